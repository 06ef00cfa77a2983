/* The work queue over ranks and the falsification phase (include/simreach/odesplit.h, SPEC §15).

   Messages (MPI_DOUBLE arrays):
     request/result, worker -> 0, tag SR_TAG_RESULT (a subtree's leaves first, tag SR_TAG_LEAF):
       [kind, id, depth, status, split, constraint, step, margin, refuted, cause, cex[n], lo[n], hi[n], tube[steps n 2]]
     work, 0 -> worker, tag SR_TAG_WORK: [id, depth, lo[n], hi[n]]; tag SR_TAG_DONE ends.
   Every message to rank 0 frees one slot of its sender; a worker has SR_SLOTS slots (it opens
   with SR_SLOTS empty requests), so it holds the next piece while it proves one and never waits
   for rank 0 to finish a piece of its own before it is served. */
#include <simreach/odesplit.h>
#include <simreach/private/subtree.h>

#include <stdio.h>
#include <stdlib.h>

#define SR_TAG_RESULT 7101
#define SR_TAG_WORK 7102
#define SR_TAG_DONE 7103
#define SR_TAG_LEAF 7104
/* message kinds (msg[0]) */
#define SR_MSG_REQUEST 0 /* an empty request */
#define SR_MSG_PIECE 1   /* one piece proven or not */
#define SR_MSG_SUBTREE 2 /* a piece proven in windows: its leaves came before (tag SR_TAG_LEAF); msg[1]: the windows run */
#define SR_MSG_LEAF 3    /* one leaf of such a piece */
#define SR_MAX_KEPT 134217728.0 /* doubles (1 GB): a piece's tube and the trajectory kept for -o */
#define SR_REFINE_CANDIDATES 2 /* falsification candidates re-checked with more sub-steps */
#define SR_SLOTS 4 /* pieces a worker may hold (one proving, the others waiting): 2 slots gave 1.68x on 2 ranks for the wide TORA of tests/bench/bench_arch.sh, 4 gave 1.92x */

typedef struct {
  double id;
  int    depth;
  double lo[SR_AFFINE_MAX], hi[SR_AFFINE_MAX];
} SRPiece_Private;

static double Urand_Private(uint64_t *s)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * 0x1p-53;
}

/* the k-th falsification sample of X0 (inner box: points of the exact X0) */
/* The corners sampled: every corner over the dimensions of X0 that are not a point (d of them)
   when d <= SR_CORNER_DIMS, else 2^SR_CORNER_DIMS corners drawn pseudo-randomly (a plant of
   any size; SPEC §15 turn 4). */
#define SR_CORNER_DIMS 10
static int CornerDims_Private(const SRSpec *S)
{
  int d = 0;
  for (int i = 0; i < S->n; i++) d += S->ilo[i] < S->ihi[i];
  return d;
}

static long Corners_Private(const SRSpec *S)
{
  const int d = CornerDims_Private(S);
  return 1L << (d <= SR_CORNER_DIMS ? d : SR_CORNER_DIMS);
}

static void Sample_Private(const SRSpec *S, long k, double *x)
{
  const int  n  = S->n;
  const long nc = Corners_Private(S);
  if (k == 0) {
    for (int i = 0; i < n; i++) x[i] = 0.5 * S->ilo[i] + 0.5 * S->ihi[i];
  } else if (k <= nc) {
    uint64_t s = 0x243F6A8885A308D3ULL ^ (uint64_t)k * 0xD1B54A32D192ED03ULL;
    int      d = 0, all = CornerDims_Private(S) <= SR_CORNER_DIMS;
    for (int i = 0; i < n; i++) {
      int hi;
      if (!(S->ilo[i] < S->ihi[i])) {
        x[i] = S->ilo[i];
        continue;
      }
      if (all) hi = (int)(((k - 1) >> d) & 1);
      else hi = Urand_Private(&s) >= 0.5;
      d++;
      x[i] = hi ? S->ihi[i] : S->ilo[i];
    }
  } else {
    uint64_t s = 0x9E3779B97F4A7C15ULL ^ (uint64_t)k * 0xD1B54A32D192ED03ULL;
    for (int r = 0; r < 3; r++) Urand_Private(&s);
    for (int i = 0; i < n; i++) x[i] = S->ilo[i] + Urand_Private(&s) * (S->ihi[i] - S->ilo[i]);
  }
  for (int i = 0; i < n; i++) {
    if (x[i] < S->ilo[i]) x[i] = S->ilo[i];
    if (x[i] > S->ihi[i]) x[i] = S->ihi[i];
  }
}

/* falsification on simulations: returns the index of a refuted sample or -1 */
static PetscErrorCode Falsify_Private(MPI_Comm comm, SRLoop *L, const SRSplitOptions *o, long *found, int *cc, SRSplitResult *res)
{
  PetscMPIInt rank, size;
  const int   n     = L->plant->n;
  const long  total = 1 + Corners_Private(L->spec) + o->nsamples;
  double      mine[16], *all = NULL;
  const int   K = 8; /* candidates per rank */
  double      best[8];
  long        bestk[8];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  for (int q = 0; q < K; q++) best[q] = -INFINITY, bestk[q] = -1;
  for (long k = rank; k < total; k += size) {
    double x[SR_AFFINE_MAX], s;
    Sample_Private(L->spec, k, x);
    s = SRSimulate(L, x, o->sim_nsub, NULL);
    if (!(s > 0)) continue;
    for (int q = 0; q < K; q++)
      if (s > best[q]) {
        for (int r = K - 1; r > q; r--) best[r] = best[r - 1], bestk[r] = bestk[r - 1];
        best[q] = s, bestk[q] = k;
        break;
      }
  }
  { /* a failed point evaluation of the network (out of memory) ends the run on every rank with
       one line, instead of running on with garbage outputs */
    int bad = L->eval_failed, anybad;
    PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm));
    PetscCheck(!anybad, comm, PETSC_ERR_MEM, "closedloop: the network's point evaluation failed (out of memory: its activation cache could not be allocated); give the run more memory");
  }
  for (int q = 0; q < K; q++) mine[2 * q] = best[q], mine[2 * q + 1] = (double)bestk[q];
  if (rank == 0) PetscCall(PetscMalloc1(16 * size, &all));
  PetscCallMPI(MPI_Gather(mine, 16, MPI_DOUBLE, all, 16, MPI_DOUBLE, 0, comm));
  *found = -1;
  *cc    = -1;
  if (rank == 0) {
    int  refined     = 0;
    bool always_only = true;
    for (int c = 0; c < L->spec->nc; c++)
      if (L->spec->c[c].kind != SR_SPEC_ALWAYS) always_only = false;
    /* candidates in order of score (ties: lower index), re-checked until one is refuted */
    for (int tries = 0; tries < K && *found < 0; tries++) {
      int    bi = -1;
      double bs = 0;
      long   bk = -1;
      for (int i = 0; i < K * size; i++) {
        double s = all[2 * i];
        long   k = (long)all[2 * i + 1];
        if (k < 0 || !(s > 0)) continue;
        if (bi < 0 || s > bs || (s == bs && k < bk)) bi = i, bs = s, bk = k;
      }
      if (bi < 0) break;
      all[2 * bi + 1] = -1;
      {
        double         x[SR_AFFINE_MAX];
        int            c;
        SRSimViolation w;
        bool           always, ok;
        Sample_Private(L->spec, bk, x);
        SRSimulateWorst(L, x, o->sim_nsub, NULL, &w); /* the same simulation as above: w.margin > 0 */
        always = w.constraint >= 0 && L->spec->c[w.constraint].kind == SR_SPEC_ALWAYS;
        /* an always constraint: re-checked up to the simulated violation only, then with more
           sub-steps around it for the best candidates (SPEC §15 turn 4; a refinement costs up
           to 2 x 4096 validated sub-steps); the whole horizon only when another kind of
           constraint may be broken.  The first candidate still unconfirmed is reported with
           UNKNOWN. */
        if (always)
          ok = SRPieceRefuteNear(L, x, w.t, refined++ < SR_REFINE_CANDIDATES, &c) || (!always_only && SRPieceRefute(L, x, &c));
        else
          ok = SRPieceRefute(L, x, &c);
        if (ok)
          *found = bk, *cc = c;
        else if (res->sim_constraint < 0 && w.constraint >= 0) {
          res->sim_constraint = w.constraint, res->sim_t = w.t, res->sim_margin = w.margin;
          for (int i = 0; i < n; i++)
            res->sim_x[i] = x[i];
        }
      }
    }
    PetscCall(PetscFree(all));
  }
  {
    long   buf[3] = { *found, *cc, res->sim_constraint };
    double dbuf[SR_AFFINE_MAX + 2];
    PetscCallMPI(MPI_Bcast(buf, 3, MPI_LONG, 0, comm));
    *found = buf[0], *cc = (int)buf[1], res->sim_constraint = (int)buf[2];
    for (int i = 0; i < n; i++)
      dbuf[i] = res->sim_x[i];
    dbuf[n] = res->sim_t, dbuf[n + 1] = res->sim_margin;
    PetscCallMPI(MPI_Bcast(dbuf, n + 2, MPI_DOUBLE, 0, comm));
    for (int i = 0; i < n; i++)
      res->sim_x[i] = dbuf[i];
    res->sim_t = dbuf[n], res->sim_margin = dbuf[n + 1];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the result message of one piece (r: its result; tube: steps x n x 2 or NULL for L->tube up to
   the failed step); an open leaf (at the depth limit or unsplittable) has its centre simulated
   and, when that breaks the spec, re-checked from the point */
static void Message_Private(SRLoop *L, const SRSplitOptions *o, int kind, double id, int depth, const double *lo, const double *hi, const SRPieceResult *r, const double *tube, double *msg)
{
  const int n = L->plant->n, steps = L->plant->steps;
  double    x[SR_AFFINE_MAX] = {0};
  int       c = -1;
  msg[0] = kind, msg[1] = id, msg[2] = depth, msg[3] = r->status, msg[4] = r->split, msg[5] = r->constraint, msg[6] = r->step, msg[7] = r->margin, msg[8] = 0, msg[9] = r->cause;
  if (r->status != SR_PIECE_PROVEN && (depth >= o->max_depth || r->split < 0)) {
    for (int i = 0; i < n; i++) x[i] = 0.5 * lo[i] + 0.5 * hi[i];
    for (int i = 0; i < n; i++) {
      if (x[i] < L->spec->ilo[i]) x[i] = L->spec->ilo[i];
      if (x[i] > L->spec->ihi[i]) x[i] = L->spec->ihi[i];
    }
    if (SRSimulate(L, x, o->sim_nsub, NULL) > 0 && SRPieceRefute(L, x, &c)) msg[8] = 1 + c;
  }
  for (int i = 0; i < n; i++) msg[10 + i] = x[i], msg[10 + n + i] = lo[i], msg[10 + 2 * n + i] = hi[i];
  if (o->keep_tubes) {
    double *t = msg + 10 + 3 * n;
    if (tube) PetscArraycpy(t, tube, 2 * steps * n);
    else
      for (int k = 0; k < steps * n; k++) {
        bool ok = r->status == SR_PIECE_PROVEN || k / n < (r->step >= 0 ? r->step : 0);
        t[2 * k] = ok ? L->tube[k].lo : NAN, t[2 * k + 1] = ok ? L->tube[k].hi : NAN;
      }
  }
}

/* the leaves of a subtree (SRSubtreeSolve) as messages of kind SR_MSG_LEAF, kept in order */
typedef struct {
  SRLoop               *L;
  const SRSplitOptions *o;
  int                   mlen;
  double               *buf;
  long                  count, cap;
} Leaves_Private;

static int EmitLeaf_Private(void *ctx, double id, int depth, const double *lo, const double *hi, const SRPieceResult *r, const double *tube)
{
  Leaves_Private *B = ctx;
  SRPieceResult   q = *r;
  if (B->count == B->cap) {
    long    cap = B->cap ? 2 * B->cap : 64;
    double *p   = realloc(B->buf, (size_t)cap * B->mlen * sizeof(double));
    if (!p) return 2;
    B->buf = p, B->cap = cap;
  }
  q.split = -1; /* a leaf: the subtree split what it could */
  Message_Private(B->L, B->o, SR_MSG_LEAF, id, depth, lo, hi, &q, tube, B->buf + (size_t)B->count++ * B->mlen);
  return 0;
}

/* prove one piece: a message of kind SR_MSG_PIECE in msg, or (a piece at merge_depth or deeper)
   its subtree's leaves in B and a message of kind SR_MSG_SUBTREE with the windows run in msg[1] */
static PetscErrorCode Work_Private(SRLoop *L, const SRSplitOptions *o, const SRPiece_Private *p, double *msg, Leaves_Private *B)
{
  SRPieceResult r;
  PetscFunctionBeginUser;
  B->count = 0;
  if (o->merge_depth >= 0 && p->depth >= o->merge_depth) {
    long windows = 0;
    int  err     = SRSubtreeSolve(L, o->merge_window, o->max_depth, o->keep_tubes, p->id, p->depth, p->lo, p->hi, EmitLeaf_Private, B, &windows);
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_MEM, "closedloop: out of memory in the windows of piece %.0f (depth %d): give the run more memory, or -closedloop_merge_depth -1", p->id, p->depth);
    msg[0] = SR_MSG_SUBTREE, msg[1] = (double)windows;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  SRPieceProve(L, p->lo, p->hi, &r);
  Message_Private(L, o, SR_MSG_PIECE, p->id, p->depth, p->lo, p->hi, &r, NULL, msg);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CmpLeaf_Private(const void *a, const void *b)
{
  const SRLeaf *x = a, *y = b;
  if (x->depth != y->depth) return x->depth < y->depth ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

PetscErrorCode SRSplitSolve(MPI_Comm comm, SRLoop *L, const SRSplitOptions *o, SRSplitResult *res)
{
  PetscMPIInt      rank, size;
  const int        n = L->plant->n, steps = L->plant->steps;
  const int        mlen = 10 + 3 * n + (o->keep_tubes ? 2 * steps * n : 0), wlen = 2 + 2 * n;
  double          *msg, *wmsg, t0;
  long             found = -1;
  int              cc    = -1;
  Leaves_Private   B     = {L, o, mlen, NULL, 0, 0};

  PetscFunctionBeginUser;
  memset(res, 0, sizeof *res);
  res->sim_constraint = -1;
  if (o->keep_tubes) { /* sizes from the plant file, in double before any cast (SPEC §15 turn 4) */
    const double tube = 2.0 * steps * n, traj = ((double)steps * o->sim_nsub + 1) * n;
    PetscCheck(tube <= SR_MAX_KEPT && traj <= SR_MAX_KEPT, comm, PETSC_ERR_ARG_OUTOFRANGE,
        "-o: %d steps of %d states need %.3g GB per piece for the tubes and %.3g GB for the trajectory (%d RK4 steps per period); at most %.3g GB each: leave out -o, or give fewer steps or a smaller -closedloop_sim_substeps", steps, n, 8e-9 * tube,
        8e-9 * traj, o->sim_nsub, 8e-9 * SR_MAX_KEPT);
  }
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMalloc2(mlen, &msg, wlen, &wmsg));
  if (o->keep_tubes) PetscCall(PetscMalloc1((size_t)steps * n, &L->tube));
  t0 = MPI_Wtime();
  PetscCall(Falsify_Private(comm, L, o, &found, &cc, res));
  res->sim_time = MPI_Wtime() - t0;
  if (found >= 0) {
    res->verdict        = SR_VERDICT_FALSIFIED;
    res->cex_constraint = cc;
    res->cex_phase      = 0;
    Sample_Private(L->spec, found, res->cex);
    PetscCall(PetscFree2(msg, wmsg));
    PetscCall(PetscFree(L->tube));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  t0 = MPI_Wtime();
  if (rank == 0) {
    SRPiece_Private *queue;
    long             qhead = 0, qtail = 0, qcap = 1024, outstanding = 0, nleaves = 0, lcap = 256;
    int             *idle, nidle = 0;
    bool             stop = false, haveCex = false;
    double           lastprint = MPI_Wtime();
    SRLeaf          *leaves;

    PetscCall(PetscMalloc1(qcap, &queue));
    PetscCall(PetscMalloc1(SR_SLOTS * size, &idle));
    PetscCall(PetscMalloc1(lcap, &leaves));
    queue[qtail].id    = 1;
    queue[qtail].depth = 0;
    for (int i = 0; i < n; i++) queue[qtail].lo[i] = L->spec->lo[i], queue[qtail].hi[i] = L->spec->hi[i];
    qtail++;
    for (;;) {
      int        flag = 1;
      MPI_Status st;
      /* handle one result message (from msg) */
#define SR_HANDLE_RESULT() \
  do { \
    if (msg[0] == SR_MSG_SUBTREE) res->pieces += (long)msg[1]; \
    if (msg[0] == SR_MSG_PIECE || msg[0] == SR_MSG_LEAF) { \
      const int status = (int)msg[3], split = (int)msg[4], depth = (int)msg[2]; \
      res->pieces += msg[0] == SR_MSG_PIECE; \
      if (msg[8] > 0 && (!haveCex)) { \
        haveCex = true, stop = true; \
        for (int i_ = 0; i_ < n; i_++) res->cex[i_] = msg[10 + i_]; \
        res->cex_constraint = (int)msg[8] - 1, res->cex_phase = 1; \
      } \
      if (status != SR_PIECE_PROVEN && depth < o->max_depth && split >= 0) { \
        if (qtail + 2 > qcap) { \
          long keep = qtail - qhead; \
          memmove(queue, queue + qhead, keep * sizeof *queue); \
          qtail = keep, qhead = 0; \
          if (qtail + 2 > qcap) { \
            qcap *= 2; \
            PetscCall(PetscRealloc(qcap * sizeof *queue, &queue)); \
          } \
        } \
        for (int h_ = 0; h_ < 2; h_++) { \
          SRPiece_Private *c_ = &queue[qtail++]; \
          c_->id              = 2 * msg[1] + h_; \
          c_->depth           = depth + 1; \
          for (int i_ = 0; i_ < n; i_++) c_->lo[i_] = msg[10 + n + i_], c_->hi[i_] = msg[10 + 2 * n + i_]; \
          { \
            double mid_ = 0.5 * msg[10 + n + split] + 0.5 * msg[10 + 2 * n + split]; \
            if (h_ == 0) c_->hi[split] = mid_; \
            else c_->lo[split] = mid_; \
          } \
        } \
      } else { \
        SRLeaf *lf; \
        if (nleaves == lcap) { \
          lcap *= 2; \
          PetscCall(PetscRealloc(lcap * sizeof *leaves, &leaves)); \
        } \
        lf = &leaves[nleaves++]; \
        lf->id = msg[1], lf->depth = depth, lf->status = status, lf->constraint = (int)msg[5], lf->step = (int)msg[6], lf->margin = msg[7], lf->cause = (int)msg[9]; \
        PetscCall(PetscMalloc2(n, &lf->lo, n, &lf->hi)); \
        for (int i_ = 0; i_ < n; i_++) lf->lo[i_] = msg[10 + n + i_], lf->hi[i_] = msg[10 + 2 * n + i_]; \
        lf->tube = NULL; \
        if (o->keep_tubes) { \
          PetscCall(PetscMalloc1(2 * steps * n, &lf->tube)); \
          PetscCall(PetscArraycpy(lf->tube, msg + 10 + 3 * n, 2 * steps * n)); \
        } \
        if (status == SR_PIECE_PROVEN) res->proven++; \
        else res->open++; \
      } \
    } \
  } while (0)
      /* serve every waiting worker */
      while (size > 1) {
        PetscCallMPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st));
        if (!flag) break;
        PetscCallMPI(MPI_Recv(msg, mlen, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, comm, MPI_STATUS_IGNORE));
        SR_HANDLE_RESULT();
        if (st.MPI_TAG == SR_TAG_LEAF) continue; /* a subtree's leaf: its result message follows */
        if (msg[0] != SR_MSG_REQUEST) outstanding--;
        idle[nidle++] = st.MPI_SOURCE;
      }
      if (stop) qhead = qtail; /* a counterexample: hand out nothing more */
      while (nidle > 0 && qhead < qtail) {
        SRPiece_Private *p = &queue[qhead++];
        wmsg[0]            = p->id, wmsg[1] = p->depth;
        for (int i = 0; i < n; i++) wmsg[2 + i] = p->lo[i], wmsg[2 + n + i] = p->hi[i];
        PetscCallMPI(MPI_Send(wmsg, wlen, MPI_DOUBLE, idle[--nidle], SR_TAG_WORK, comm));
        outstanding++;
      }
      if (qhead < qtail) {
        SRPiece_Private p = queue[qhead++];
        PetscCall(Work_Private(L, o, &p, msg, &B));
        res->my_pieces++;
        SR_HANDLE_RESULT();
        for (long k = 0; k < B.count; k++) {
          PetscCall(PetscArraycpy(msg, B.buf + (size_t)k * mlen, mlen));
          SR_HANDLE_RESULT();
        }
      } else if (outstanding > 0) {
        PetscCallMPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
      } else if (nidle == SR_SLOTS * (size - 1)) break;
      else {
        /* workers that have not asked yet */
        PetscCallMPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
      }
      if (o->progress && MPI_Wtime() - lastprint > 2.0) {
        lastprint = MPI_Wtime();
        PetscCall(PetscFPrintf(PETSC_COMM_SELF, stderr, "closedloop: %ld pieces, %ld proven, %ld open, %ld queued, %.1f s\n", res->pieces, res->proven, res->open, qtail - qhead, MPI_Wtime() - t0));
      }
#undef SR_HANDLE_RESULT
    }
    for (int r = 1; r < size; r++) PetscCallMPI(MPI_Send(wmsg, wlen, MPI_DOUBLE, r, SR_TAG_DONE, comm));
    qsort(leaves, nleaves, sizeof *leaves, CmpLeaf_Private);
    res->leaves  = leaves;
    res->nleaves = nleaves;
    res->verdict = haveCex ? SR_VERDICT_FALSIFIED : res->open ? SR_VERDICT_UNKNOWN : SR_VERDICT_VERIFIED;
    PetscCall(PetscFree(queue));
    PetscCall(PetscFree(idle));
  } else {
    SRPiece_Private held[SR_SLOTS];
    int             nheld = 0;
    bool            done  = false;
    msg[0]                = 0;
    for (int k = 0; k < SR_SLOTS; k++) PetscCallMPI(MPI_Send(msg, mlen, MPI_DOUBLE, 0, SR_TAG_RESULT, comm));
    while (!done || nheld > 0) {
      /* take what has arrived; wait only when nothing is held */
      while (!done) {
        MPI_Status st;
        int        flag = 1;
        if (nheld > 0) PetscCallMPI(MPI_Iprobe(0, MPI_ANY_TAG, comm, &flag, &st));
        if (!flag) break;
        PetscCallMPI(MPI_Recv(wmsg, wlen, MPI_DOUBLE, 0, MPI_ANY_TAG, comm, &st));
        if (st.MPI_TAG == SR_TAG_DONE) {
          done = true;
          break;
        }
        {
          SRPiece_Private *p = &held[nheld++];
          p->id              = wmsg[0];
          p->depth           = (int)wmsg[1];
          for (int i = 0; i < n; i++) p->lo[i] = wmsg[2 + i], p->hi[i] = wmsg[2 + n + i];
        }
      }
      if (nheld > 0) {
        SRPiece_Private p = held[0];
        for (int k = 1; k < nheld; k++) held[k - 1] = held[k];
        nheld--;
        PetscCall(Work_Private(L, o, &p, msg, &B));
        res->my_pieces++;
        for (long k = 0; k < B.count; k++) PetscCallMPI(MPI_Send(B.buf + (size_t)k * mlen, mlen, MPI_DOUBLE, 0, SR_TAG_LEAF, comm));
        PetscCallMPI(MPI_Send(msg, mlen, MPI_DOUBLE, 0, SR_TAG_RESULT, comm));
      }
    }
  }
  res->prove_time = MPI_Wtime() - t0;
  {
    long   buf[5] = {res->verdict, res->pieces, res->nleaves, res->proven, res->open};
    double cbuf[SR_AFFINE_MAX + 2];
    PetscCallMPI(MPI_Bcast(buf, 5, MPI_LONG, 0, comm));
    res->verdict = (SRVerdict)buf[0], res->pieces = buf[1], res->nleaves = buf[2], res->proven = buf[3], res->open = buf[4];
    for (int i = 0; i < n; i++) cbuf[i] = res->cex[i];
    cbuf[n] = res->cex_constraint, cbuf[n + 1] = res->cex_phase;
    PetscCallMPI(MPI_Bcast(cbuf, n + 2, MPI_DOUBLE, 0, comm));
    for (int i = 0; i < n; i++) res->cex[i] = cbuf[i];
    res->cex_constraint = (int)cbuf[n], res->cex_phase = (int)cbuf[n + 1];
  }
  PetscCall(PetscFree2(msg, wmsg));
  PetscCall(PetscFree(L->tube));
  free(B.buf);
  L->tube = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRSplitResultFree(SRSplitResult *res, int n)
{
  (void)n;
  if (!res->leaves) return; /* ranks other than 0 hold none */
  for (long k = 0; k < res->nleaves; k++) {
    PetscFree2(res->leaves[k].lo, res->leaves[k].hi);
    PetscFree(res->leaves[k].tube);
  }
  PetscFree(res->leaves);
  res->nleaves = 0;
}
