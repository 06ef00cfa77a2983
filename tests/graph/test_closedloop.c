/* Tests of the closed-loop properties on index-box graphs (src/graph/closedloop.c, SPEC §12).
   Oracle: a brute-force serial reference written here, which expands every index box into
   its explicit successor cells and iterates h(k) = 0 (sink in C(k)), 1 + min_j h(j) to a
   fixed point for the horizon, and explicit set unions for reachability.  Every rank builds
   the same random graph and owns an uneven block, so the 1-, 2- and 4-rank runs check that
   the answers do not depend on the decomposition. */
#include <simreach/closedloop.h>
#include <simreach/abstraction.h>
#include <simreach/random.h>
#include <simreach/system.h>
#include <simreach/cells.h>
#include <math.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#define CHK(call) assert_int_equal((call), 0)

typedef struct {
  PetscInt  n, K, counts[SR_MAX_DIM];
  PetscInt *lo, *hi; /* K x n */
  PetscBool *sink;
  double   *b[SR_MAX_DIM];
} Graph;

static uint64_t ctr;
static double   U(void) { return SRRandomUniform(20261203u, SR_STREAM_TEST, ctr++); }
static PetscInt UI(PetscInt m) { return (PetscInt)(U() * m); }

/* Random graph: each cell's box is near the cell (a contracting-ish map), width up to w,
   sink with probability psink; boundaries random but ordered. */
static void MakeGraph(Graph *g, PetscInt n, const PetscInt *counts, PetscInt w, double psink, double pempty)
{
  memset(g, 0, sizeof(*g));
  g->n = n;
  g->K = 1;
  for (PetscInt d = 0; d < n; d++) {
    g->counts[d] = counts[d];
    g->K *= counts[d];
    g->b[d] = malloc(sizeof(double) * (counts[d] + 1));
    g->b[d][0] = -1;
    for (PetscInt i = 1; i <= counts[d]; i++) g->b[d][i] = g->b[d][i - 1] + 0.5 + U();
  }
  g->lo   = malloc(sizeof(PetscInt) * g->K * n);
  g->hi   = malloc(sizeof(PetscInt) * g->K * n);
  g->sink = malloc(sizeof(PetscBool) * g->K);
  for (PetscInt k = 0; k < g->K; k++) {
    PetscInt r = k;
    g->sink[k] = U() < psink;
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt i = r % counts[d], N = counts[d];
      r /= counts[d];
      /* drift toward the middle, plus noise */
      PetscInt c = i + (N / 2 - i) / 3 + UI(3) - 1, a = c - UI(w + 1), e = c + UI(w + 1);
      a = PetscMax(0, PetscMin(N - 1, a));
      e = PetscMax(0, PetscMin(N - 1, e));
      g->lo[k * n + d] = PetscMin(a, e);
      g->hi[k * n + d] = PetscMax(a, e);
    }
    if (U() < pempty) g->lo[k * n] = g->hi[k * n] + 1; /* an empty box */
  }
}

static void FreeGraph(Graph *g)
{
  for (PetscInt d = 0; d < g->n; d++) free(g->b[d]);
  free(g->lo);
  free(g->hi);
  free(g->sink);
}

static PetscBool InBox(const Graph *g, PetscInt k, PetscInt j)
{
  for (PetscInt d = 0; d < g->n; d++) {
    const PetscInt i = j % g->counts[d];
    j /= g->counts[d];
    if (i < g->lo[k * g->n + d] || i > g->hi[k * g->n + d]) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

static double Volume(const Graph *g, PetscInt k)
{
  double v = 1;
  for (PetscInt d = 0; d < g->n; d++) {
    const PetscInt i = k % g->counts[d];
    k /= g->counts[d];
    v *= g->b[d][i + 1] - g->b[d][i];
  }
  return v;
}

static void Own(const Graph *g, PetscInt64 *ks, PetscInt64 *ke)
{
  PetscMPIInt rank, size;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  /* uneven blocks: rank r gets a share proportional to r + 1 */
  const PetscInt tot = size * (size + 1) / 2;
  PetscInt       acc = 0;
  for (PetscMPIInt r = 0; r < rank; r++) acc += r + 1;
  *ks = g->K * acc / tot;
  *ke = g->K * (acc + rank + 1) / tot;
}

static void View(const Graph *g, PetscInt64 ks, PetscInt64 ke, SRIndexGraph *ig)
{
  memset(ig, 0, sizeof(*ig));
  ig->n      = g->n;
  ig->kstart = ks;
  ig->kend   = ke;
  ig->lo     = g->lo + ks * g->n;
  ig->hi     = g->hi + ks * g->n;
  ig->sink   = g->sink + ks;
  for (PetscInt d = 0; d < g->n; d++) {
    ig->counts[d] = g->counts[d];
    ig->bounds[d] = g->b[d];
  }
}

static void BruteHorizon(const Graph *g, PetscInt *h)
{
  PetscBool changed = PETSC_TRUE;
  for (PetscInt k = 0; k < g->K; k++) h[k] = g->sink[k] ? 0 : SR_HORIZON_SAFE;
  while (changed) {
    changed = PETSC_FALSE;
    for (PetscInt k = 0; k < g->K; k++) {
      if (g->sink[k]) continue;
      PetscInt best = SR_HORIZON_SAFE;
      for (PetscInt j = 0; j < g->K; j++)
        if (InBox(g, k, j) && h[j] != SR_HORIZON_SAFE) best = PetscMin(best, h[j] + 1);
      if (best < h[k]) {
        h[k]    = best;
        changed = PETSC_TRUE;
      }
    }
  }
}

static void CheckSafe(PetscInt n, const PetscInt *counts, PetscInt w, double psink, double pempty)
{
  Graph        g;
  SRIndexGraph ig;
  PetscInt64   ks, ke;
  PetscInt     *h, *href, niter, nsafe = 0;
  double       frac, vsafe = 0, vtot = 0;

  MakeGraph(&g, n, counts, w, psink, pempty);
  Own(&g, &ks, &ke);
  View(&g, ks, ke, &ig);
  h    = malloc(sizeof(PetscInt) * PetscMax(ke - ks, 1));
  href = malloc(sizeof(PetscInt) * g.K);
  CHK(SRClosedLoopSafe(PETSC_COMM_WORLD, &ig, g.K, h, &niter, &frac));
  BruteHorizon(&g, href);
  for (PetscInt64 k = ks; k < ke; k++) assert_int_equal(h[k - ks], href[k]);
  for (PetscInt k = 0; k < g.K; k++) {
    vtot += Volume(&g, k);
    if (href[k] == SR_HORIZON_SAFE) {
      vsafe += Volume(&g, k);
      nsafe++;
    }
  }
  assert_true(PetscAbsReal(frac - vsafe / vtot) <= 1e-12);
  /* the fixture must exercise both outcomes */
  assert_true(nsafe > 0 && nsafe < g.K);
  free(h);
  free(href);
  FreeGraph(&g);
}

static void test_safe_matches_brute_force(void **state)
{
  (void)state;
  const PetscInt c1[] = {97}, c2[] = {13, 11}, c3[] = {7, 6, 5};
  ctr = 0;
  CheckSafe(1, c1, 3, 0.03, 0.0);
  CheckSafe(2, c2, 2, 0.02, 0.01);
  CheckSafe(3, c3, 1, 0.02, 0.01);
}

static void test_reach_matches_brute_force(void **state)
{
  (void)state;
  const PetscInt  c2[] = {12, 9}, c3[] = {6, 5, 7}, *cs[] = {c2, c3};
  const PetscInt  steps = 6;
  ctr                   = 1000;
  for (int which = 0; which < 2; which++) {
    Graph          g;
    SRIndexGraph   ig;
    PetscInt64     ks, ke, ncells[7];
    PetscInt       n = which ? 3 : 2, sink_step, ref_sink = -1;
    double         vol[7];
    unsigned char *init, *reached, *R, *Rn, *ever;

    MakeGraph(&g, n, cs[which], 2, 0.05, 0.02);
    Own(&g, &ks, &ke);
    View(&g, ks, ke, &ig);
    R    = calloc(g.K, 1);
    Rn   = calloc(g.K, 1);
    ever = calloc(g.K, 1);
    for (PetscInt k = 0; k < g.K; k++) R[k] = (k % 17 == 3);
    init    = calloc(PetscMax(ke - ks, 1), 1);
    reached = calloc(PetscMax(ke - ks, 1), 1);
    for (PetscInt64 k = ks; k < ke; k++) init[k - ks] = R[k];
    CHK(SRClosedLoopReach(PETSC_COMM_WORLD, &ig, init, steps, ncells, vol, &sink_step, reached));
    for (PetscInt t = 0; t <= steps; t++) {
      PetscInt cnt = 0;
      double   v = 0, vt = 0;
      for (PetscInt k = 0; k < g.K; k++) {
        vt += Volume(&g, k);
        if (R[k]) {
          cnt++;
          v += Volume(&g, k);
          ever[k] = 1;
        }
      }
      assert_int_equal(ncells[t], (PetscInt64)cnt);
      assert_true(PetscAbsReal(vol[t] - v / vt) <= 1e-12);
      if (t == steps) break;
      memset(Rn, 0, g.K);
      for (PetscInt k = 0; k < g.K; k++) {
        if (!R[k]) continue;
        if (g.sink[k] && ref_sink < 0) ref_sink = t + 1;
        for (PetscInt j = 0; j < g.K; j++)
          if (InBox(&g, k, j)) Rn[j] = 1;
      }
      memcpy(R, Rn, g.K);
    }
    assert_int_equal(sink_step, ref_sink);
    for (PetscInt64 k = ks; k < ke; k++) assert_int_equal(reached[k - ks], ever[k]);
    free(R);
    free(Rn);
    free(ever);
    free(init);
    free(reached);
    FreeGraph(&g);
  }
}

/* A planted edit: the one cell whose box reaches the sink-listing cell is hidden from it —
   the answers must change (the cell becomes safe), so an edited list cannot go unnoticed. */
static void test_planted_edit_changes_answer(void **state)
{
  (void)state;
  Graph        g;
  SRIndexGraph ig;
  PetscInt64   ks, ke;
  PetscInt     counts[] = {10}, h[10], niter;
  double       frac;
  /* chain: k -> k + 1, cell 9 lists the sink */
  memset(&g, 0, sizeof(g));
  g.n = 1;
  g.K = 10;
  g.counts[0] = 10;
  g.b[0] = malloc(sizeof(double) * 11);
  g.lo = malloc(sizeof(PetscInt) * 10);
  g.hi = malloc(sizeof(PetscInt) * 10);
  g.sink = malloc(sizeof(PetscBool) * 10);
  for (PetscInt i = 0; i <= 10; i++) g.b[0][i] = i;
  for (PetscInt k = 0; k < 10; k++) {
    g.lo[k] = g.hi[k] = PetscMin(k + 1, 9);
    g.sink[k] = (k == 9);
  }
  (void)counts;
  Own(&g, &ks, &ke);
  View(&g, ks, ke, &ig);
  CHK(SRClosedLoopSafe(PETSC_COMM_WORLD, &ig, g.K, h, &niter, &frac));
  for (PetscInt64 k = ks; k < ke; k++) assert_int_equal(h[k - ks], 9 - k);
  assert_true(frac == 0.0);
  /* hide cell 9 from cell 8's list: 0..8 now loop forever at 8 -> 8 */
  g.lo[8] = g.hi[8] = 8;
  CHK(SRClosedLoopSafe(PETSC_COMM_WORLD, &ig, g.K, h, &niter, &frac));
  for (PetscInt64 k = ks; k < ke; k++) assert_int_equal(h[k - ks], k == 9 ? 0 : SR_HORIZON_SAFE);
  assert_true(PetscAbsReal(frac - 0.9) < 1e-15);
  FreeGraph(&g);
}

static void test_bad_lists_refused(void **state)
{
  (void)state;
  SRIndexGraph ig;
  PetscInt     lo[] = {0}, hi[] = {5}, h[1], niter;
  PetscBool    sink[] = {PETSC_FALSE};
  double       b[]    = {0, 1, 2, 3};
  double       frac;
  PetscMPIInt  rank;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  memset(&ig, 0, sizeof(ig));
  ig.n = 1;
  ig.counts[0] = 3;
  ig.kstart = 0;
  ig.kend = 0;
  if (rank == 0) ig.kend = 1; /* not a partition of 3 cells, but the check is local */
  ig.lo = lo;
  ig.hi = hi;
  ig.sink = sink;
  ig.bounds[0] = b;
  CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  if (rank == 0) assert_int_not_equal(SRClosedLoopSafe(PETSC_COMM_SELF, &ig, 3, h, &niter, &frac), 0);
  CHK(PetscPopErrorHandler());
}

/* The study's checkpoint metrics on a partition (SRClosedLoopCheckpoint): explicit lists that are
   index boxes (as C(k) on a partition is) and tight enclosures, against the brute-force horizon
   of the explicit lists and the volume-weighted mean of min(h, cap) computed here. */
static void test_checkpoint_metrics(void **state)
{
  (void)state;
  SRSystem            sys;
  SRCells             cells;
  const PetscInt      counts[] = {9, 7}, cap = 5;
  PetscInt64          ks, ke;
  SRSuccessorList     C;
  Graph               g;
  SRClosedLoopMetrics m;
  PetscInt           *href, *rows, nnz = 0;
  double             *Et, vD, vsafe = 0, hmean = 0;

  ctr = 5000;
  CHK(SRSystemCreate(PETSC_COMM_WORLD, "pendulum", NULL, &sys));
  CHK(SRCellsCreatePartition(sys, counts, &cells));
  MakeGraph(&g, 2, counts, 1, 0.04, 0.0);
  for (PetscInt d = 0; d < 2; d++) { /* the partition's boundaries for the reference volumes */
    PetscInt      mm;
    const double *b = SRCellsPartitionBoundaries(cells, d, &mm);
    for (PetscInt i = 0; i <= counts[d]; i++) g.b[d][i] = b[i];
  }
  /* explicit CSR of the boxes, sink = K last */
  C.ptr = malloc(sizeof(PetscInt) * (g.K + 1));
  C.idx = malloc(sizeof(PetscInt) * g.K * (g.K + 1));
  C.ptr[0] = 0;
  for (PetscInt k = 0; k < g.K; k++) {
    for (PetscInt j = 0; j < g.K; j++)
      if (InBox(&g, k, j)) C.idx[nnz++] = j;
    if (g.sink[k]) C.idx[nnz++] = g.K;
    C.ptr[k + 1] = nnz;
  }
  Own(&g, &ks, &ke);
  /* the rows of the owned cells: each explicit list's index box */
  rows = malloc(sizeof(PetscInt) * 5 * PetscMax(ke - ks, 1));
  for (PetscInt64 k = ks; k < ke; k++) CHK(SRIndexBoxBound(cells, C.ptr[k + 1] - C.ptr[k], C.idx + C.ptr[k], rows + 5 * (k - ks)));
  /* E_tight: a point enclosure in the middle of cell k's own box (M_tight(k) = that cell), or
     outside D for the sink cells */
  Et = malloc(sizeof(double) * 4 * PetscMax(ke - ks, 1));
  for (PetscInt64 k = ks; k < ke; k++) {
    PetscInt idx[2];
    SRCellsIndex(cells, (PetscInt)k, idx);
    for (PetscInt d = 0; d < 2; d++) {
      const double c = 0.5 * (g.b[d][idx[d]] + g.b[d][idx[d] + 1]);
      Et[4 * (k - ks) + d] = Et[4 * (k - ks) + 2 + d] = c;
    }
    if (g.sink[k]) Et[4 * (k - ks) + 2] = 10.0; /* leaves D */
  }
  CHK(SRClosedLoopCheckpoint(PETSC_COMM_WORLD, cells, (PetscInt)ks, (PetscInt)ke, rows, Et, cap, &m));
  href = malloc(sizeof(PetscInt) * g.K);
  BruteHorizon(&g, href);
  vD = (g.b[0][counts[0]] - g.b[0][0]) * (g.b[1][counts[1]] - g.b[1][0]);
  for (PetscInt k = 0; k < g.K; k++) {
    const double v = Volume(&g, k) / vD;
    if (href[k] == SR_HORIZON_SAFE) vsafe += v;
    hmean += v * PetscMin(href[k], cap);
  }
  assert_true(PetscAbsReal(m.safe_C - vsafe) <= 1e-12);
  assert_true(PetscAbsReal(m.horizon_C - hmean) <= 1e-9);
  assert_true(vsafe > 0 && vsafe < 1);
  /* M_tight(k) = {k} (+ sink): cells without the sink never leave */
  {
    double vs = 0, hm = 0;
    for (PetscInt k = 0; k < g.K; k++) {
      const double v = Volume(&g, k) / vD;
      if (!g.sink[k]) {
        vs += v;
        hm += v * cap;
      }
    }
    assert_true(PetscAbsReal(m.safe_tight - vs) <= 1e-12);
    assert_true(PetscAbsReal(m.horizon_tight - hm) <= 1e-9);
  }
  free(href);
  free(Et);
  free(rows);
  free(C.ptr);
  free(C.idx);
  FreeGraph(&g);
  CHK(SRCellsDestroy(&cells));
  CHK(SRSystemDestroy(&sys));
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_safe_matches_brute_force),
    cmocka_unit_test(test_reach_matches_brute_force),
    cmocka_unit_test(test_planted_edit_changes_answer),
    cmocka_unit_test(test_bad_lists_refused),
    cmocka_unit_test(test_checkpoint_metrics),
  };
  int fails;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  fails = cmocka_run_group_tests_name("closedloop", tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
