/* One piece of X0 and the pieces split from it, proven in windows of periods with the halves'
   states joined again (include/simreach/private/subtree.h, SPEC §15, docs/arch.md "Windows and
   joins").

   Reach_Private(k, emin, emax) brings node k to a sample time T in [emin, emax].  Node k is
   either itself (its states stored at t, or its box at t = 0) or its halves.  When its own
   window t..emin fails at period j, its halves (bisected as split.c does, or the halves it already
   has, from the states they last stored) are brought to at least j + W, both to the later of
   their times T, their states at T are joined into k's coordinates (src/reach/merge.c) and k goes
   on from T alone.  A join whose window fails is not tried again: the halves go on alone.  A node
   at the depth limit (or that cannot be split) whose window fails is an open leaf, and then every
   other box leaf under its ancestors is brought to the horizon, so each is open or proven over
   every period.  Every window is a whole enclosure of every trajectory from its node's box over
   its periods, so the box leaves' tubes, assembled from the windows that covered them, enclose
   theirs; which windows run depends on the node alone, not on the ranks. */
#include <simreach/private/subtree.h>
#include <simreach/odemerge.h>

#include <stdlib.h>

typedef struct {
  double lo[SR_AFFINE_MAX], hi[SR_AFFINE_MAX];
  double id, mid;
  int    depth, split;
  int    child[2]; /* node indices, -1: a box leaf */
  int    t;        /* sample time of the stored states (-1: none) */
  bool   joined;   /* the stored states are a join of the halves' */
  bool   own;      /* the node is itself (states F at t, or its box at 0), not its halves */
  double *F;       /* packed states at t: n x (m + 3) */
  double *tube;    /* box leaves with tubes: steps x n x 2 */
  SRPieceResult r; /* box leaves: open (the failed window's result) or proven */
} Node_Private;

typedef struct {
  SRLoop       *L;
  int           n, m, steps, window, max_depth;
  bool          tubes;
  Node_Private *node;
  int           nnode, cap;
  SRAffine     *A, *B, *C; /* n forms each: scratch */
  long          windows;
  bool          oom; /* an allocation failed: the subtree answers nothing */
} Ctx_Private;

static int NewNode_Private(Ctx_Private *X)
{
  if (X->nnode == X->cap) {
    Node_Private *p = realloc(X->node, (size_t)(2 * X->cap) * sizeof *p);
    if (!p) {
      X->oom = true;
      return -1;
    }
    X->node = p, X->cap *= 2;
  }
  memset(&X->node[X->nnode], 0, sizeof X->node[0]);
  X->node[X->nnode].child[0] = X->node[X->nnode].child[1] = -1;
  X->node[X->nnode].t        = -1;
  X->node[X->nnode].r.status = SR_PIECE_PROVEN; /* a box leaf is proven until a window over it fails */
  X->node[X->nnode].r.constraint = X->node[X->nnode].r.atom = X->node[X->nnode].r.step = X->node[X->nnode].r.split = -1;
  return X->nnode++;
}

/* the n forms in n x (m + 3) doubles; a coefficient beyond the m coordinates (none is expected:
   the network folds its extra symbols back, netaffine.c) goes into the remainder, outward */
static void Pack_Private(const Ctx_Private *X, const SRAffine *F, double *p)
{
  for (int i = 0; i < X->n; i++, p += X->m + 3) {
    double beyond = 0.0;
    for (int j = X->m; j < SR_AFFINE_MAX; j++) beyond = SRAddUp(beyond, fabs(F[i].c[j]));
    p[0] = F[i].c0, p[1] = SRSubDown(F[i].r.lo, beyond), p[2] = SRAddUp(F[i].r.hi, beyond);
    memcpy(p + 3, F[i].c, (size_t)X->m * sizeof(double));
  }
}

static void Unpack_Private(const Ctx_Private *X, const double *p, SRAffine *F)
{
  for (int i = 0; i < X->n; i++, p += X->m + 3) {
    F[i]      = SRAffineConstant(p[0]);
    F[i].r.lo = p[1], F[i].r.hi = p[2];
    memcpy(F[i].c, p + 3, (size_t)X->m * sizeof(double));
  }
}

static bool Store_Private(Ctx_Private *X, int k, const SRAffine *F, int t)
{
  Node_Private *N = &X->node[k];
  if (!N->F && !(N->F = malloc((size_t)X->n * (X->m + 3) * sizeof(double)))) {
    X->oom = true;
    return false;
  }
  Pack_Private(X, F, N->F);
  N->t      = t;
  N->joined = false;
  N->own    = true;
  return true;
}

/* the tube rows s..e-1 of the last window (L->tube) into every box leaf under node k */
static void Tube_Private(Ctx_Private *X, int k, int s, int e)
{
  Node_Private *N = &X->node[k];
  if (!X->tubes) return;
  if (N->child[0] >= 0) {
    Tube_Private(X, N->child[0], s, e);
    Tube_Private(X, N->child[1], s, e);
    return;
  }
  for (int j = s; j < e; j++)
    for (int i = 0; i < X->n; i++) {
      const SRInterval b = X->L->tube[(size_t)j * X->n + i];
      N->tube[2 * ((size_t)j * X->n + i)] = b.lo, N->tube[2 * ((size_t)j * X->n + i) + 1] = b.hi;
    }
}

static bool Split_Private(Ctx_Private *X, int k, int d)
{
  for (int h = 0; h < 2; h++) {
    int           c = NewNode_Private(X);
    Node_Private *N, *C;
    if (c < 0) return false;
    N = &X->node[k], C = &X->node[c];
    N->child[h] = c;
    memcpy(C->lo, N->lo, (size_t)X->n * sizeof(double));
    memcpy(C->hi, N->hi, (size_t)X->n * sizeof(double));
    N->mid   = 0.5 * N->lo[d] + 0.5 * N->hi[d];
    N->split = d;
    if (h == 0) C->hi[d] = N->mid;
    else C->lo[d] = N->mid;
    C->id    = 2 * N->id + h;
    C->depth = N->depth + 1;
    C->own   = true; /* from its box at period 0 */
    if (X->tubes) {
      if (!(C->tube = malloc((size_t)X->steps * X->n * 2 * sizeof(double)))) {
        X->oom = true;
        return false;
      }
      memcpy(C->tube, N->tube, (size_t)X->steps * X->n * 2 * sizeof(double)); /* the rows proven so far */
    }
  }
  free(X->node[k].tube);
  X->node[k].tube = NULL;
  return true;
}

/* Brings node k to a sample time T, emin <= T <= emax, and returns T (-1: a box leaf under k is
   open; every other box leaf under k is then proven to the horizon).  Node k is either itself
   (own: its states stored at t, or its box at t = 0) or its halves (each at its own time).  Its
   own window s..emin fails at period j: the halves are brought to at least j + W, both to the
   later of their times T, joined at T, and k goes on from T.  A join whose window fails is not
   tried again: the halves go on alone to emax (on Docking a join retried later won nothing, and
   on the wide TORA of tests/bench the retries cost 3 %). */
static int Reach_Private(Ctx_Private *X, int k, int emin, int emax)
{
  SRLoop *L    = X->L;
  int     need = emin;

  for (;;) {
    int c0, c1, T0, T1, T;
    if (X->oom) return -1;
    if (X->node[k].own) {
      SRPieceResult r;
      const int     s = X->node[k].F ? X->node[k].t : 0;
      int           j;
      if (s >= emin) return s;
      if (s > 0) Unpack_Private(X, X->node[k].F, X->A);
      X->windows++;
      L->join_first = X->node[k].joined;
      SRPieceProveWindow(L, X->node[k].lo, X->node[k].hi, s, emin, s > 0 ? X->A : NULL, X->B, &r);
      L->join_first = false;
      if (r.status == SR_PIECE_PROVEN) {
        Tube_Private(X, k, s, emin);
        return Store_Private(X, k, X->B, emin) ? emin : -1;
      }
      j = r.step > s ? r.step : s;
      if (j > s) Tube_Private(X, k, s, j);
      need = j + X->window < emax ? j + X->window : emax;
      if (X->node[k].joined) need = emax; /* a join that fails is not tried again: the halves run on alone */
      if (X->node[k].child[0] < 0) {
        if (X->node[k].depth >= X->max_depth || r.split < 0) {
          Node_Private *N = &X->node[k];
          N->r            = r;
          if (X->tubes) /* nothing after the failed period is claimed */
            for (size_t q = 2 * (size_t)j * X->n; q < 2 * (size_t)X->steps * X->n; q++) N->tube[q] = NAN;
          return -1;
        }
        if (!Split_Private(X, k, r.split)) return -1;
      }
      X->node[k].own = false;
    }
    c0 = X->node[k].child[0], c1 = X->node[k].child[1];
    /* an open leaf below: the other half on to the horizon, so that each box leaf is open or
       proven over every period */
    if ((T0 = Reach_Private(X, c0, need, emax)) < 0) return Reach_Private(X, c1, X->steps, X->steps), -1;
    if ((T1 = Reach_Private(X, c1, need, emax)) < 0) return Reach_Private(X, c0, X->steps, X->steps), -1;
    T = T0 > T1 ? T0 : T1;
    if (T0 < T && Reach_Private(X, c0, T, T) < 0) return Reach_Private(X, c1, X->steps, X->steps), -1;
    if (T1 < T && Reach_Private(X, c1, T, T) < 0) return Reach_Private(X, c0, X->steps, X->steps), -1;
    if (X->node[c0].own && X->node[c1].own && X->node[c0].t == T && X->node[c1].t == T) {
      const Node_Private *N = &X->node[k];
      Unpack_Private(X, X->node[c0].F, X->A);
      Unpack_Private(X, X->node[c1].F, X->B);
      if (SRLoopMergeForms(X->n, X->m, N->lo, N->hi, N->split, N->mid, X->A, X->B, X->C)) {
        if (L->flow.join_shrink > 0) /* planted violation (tests/reach/tube_soundness.py must catch it) */
          for (int i = 0; i < X->n; i++) {
            for (int c = 0; c < X->m; c++) X->C[i].c[c] *= 1.0 - L->flow.join_shrink;
            X->C[i].r.lo *= 1.0 - L->flow.join_shrink, X->C[i].r.hi *= 1.0 - L->flow.join_shrink;
          }
        if (!Store_Private(X, k, X->C, T)) return -1;
        X->node[k].own = X->node[k].joined = true;
      }
    }
    if (T >= emin) return T;
    need = emin; /* no join: the halves on to emin */
  }
}

/* the box leaves under node k, in tree order */
static int Emit_Private(Ctx_Private *X, int k, SRSubtreeEmit emit, void *ctx)
{
  const Node_Private *N = &X->node[k];
  if (N->child[0] >= 0) {
    int err = Emit_Private(X, N->child[0], emit, ctx);
    return err ? err : Emit_Private(X, N->child[1], emit, ctx);
  }
  return emit(ctx, N->id, N->depth, N->lo, N->hi, &N->r, N->tube);
}

int SRSubtreeSolve(SRLoop *L, int window, int max_depth, bool tubes, double id, int depth, const double *lo, const double *hi, SRSubtreeEmit emit, void *ctx, long *windows)
{
  Ctx_Private X;
  int         err = 1;
  memset(&X, 0, sizeof X);
  X.L = L, X.n = L->plant->n, X.m = SRLoopCoordinates(L), X.steps = L->plant->steps, X.window = window, X.max_depth = max_depth, X.tubes = tubes && L->tube;
  X.cap = 64;
  X.node = malloc((size_t)X.cap * sizeof *X.node);
  X.A    = malloc(3 * (size_t)X.n * sizeof(SRAffine));
  if (X.node && X.A) {
    X.B = X.A + X.n, X.C = X.B + X.n;
    (void)NewNode_Private(&X);
    memcpy(X.node[0].lo, lo, (size_t)X.n * sizeof(double));
    memcpy(X.node[0].hi, hi, (size_t)X.n * sizeof(double));
    X.node[0].id = id, X.node[0].depth = depth;
    if (!X.tubes || (X.node[0].tube = malloc((size_t)X.steps * X.n * 2 * sizeof(double)))) {
      if (X.tubes)
        for (size_t q = 0; q < 2 * (size_t)X.steps * X.n; q++) X.node[0].tube[q] = NAN;
      /* every box leaf starts proven; a failed window marks its leaf open */
      X.node[0].r.status = SR_PIECE_PROVEN, X.node[0].r.constraint = X.node[0].r.atom = X.node[0].r.step = X.node[0].r.split = -1;
      X.node[0].own = true;
      (void)Reach_Private(&X, 0, X.steps, X.steps);
      err = X.oom ? 2 : Emit_Private(&X, 0, emit, ctx);
    }
  }
  *windows = X.windows;
  for (int k = 0; X.node && k < X.nnode; k++) free(X.node[k].F), free(X.node[k].tube);
  free(X.node);
  free(X.A);
  return err;
}

bool SRLoopCanMerge(const SRLoop *L)
{
  if (L->plant->discrete || L->plant->select) return false;
  for (int c = 0; c < L->spec->nc; c++)
    if (L->spec->c[c].kind != SR_SPEC_ALWAYS) return false;
  return true;
}
