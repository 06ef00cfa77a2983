/* What a cell's Taylor model decides without the network (src/abstraction/cellmodel.c; SPEC §5, §6),
   against the point pass itself.  For every system and model, grid cells and a moved partition,
   random networks (tests/random_model.h):
   - the image box holds the point pass's value SRModelEvaluate(x) at random points and corners of
     every cell (0 escapes), for tanh networks, mixed activations and input/output transforms;
   - a decided cell is the only cell at distance 0 from that value (SRCellsDistance over all K
     cells), a decided sink has every cell at a positive distance and the point outside D; some
     samples are decided (the path runs);
   - planted: boxes straddling a face by a few ulps, or touching it, are never decided; a box well
     inside a cell is that cell, one well outside D the sink;
   - the floor's count from the model equals the full lattice's count wherever it is decided,
     and it is decided on some cells;
   - the target lists and hit counts of SRSuccessorsTargetAppend_Private are identical with and
     without the models, on every cell. */
#include <simreach.h>
#include <simreach/private/cellmodel.h>
#include <simreach/private/enclosure.h>
#include <simreach/private/successors.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "random_model.h"

#define NNETS 3
#define NPTS 10
#define FLOOR_POINTS 9

/* The cell at distance 0 from y when it is the only one, K when none is and y is outside D,
   -1 otherwise (brute force over every cell). */
static PetscInt BruteSole(SRCells cells, const double *y)
{
  PetscInt found = -1, nzero = 0;
  for (PetscInt j = 0; j < cells->K; j++)
    if (SRCellsDistance(cells, y, j, NULL, NULL, NULL) == 0.0) {
      found = j;
      nzero++;
    }
  if (nzero == 1) return found;
  if (nzero == 0 && SRCellsSinkDistance(cells, y, NULL) == 0.0) return cells->K;
  return -1;
}

/* The floor's count of cell k from the full lattice (the definition, SPEC §5). */
static PetscInt LatticeCount(SRModel model, SRCells cells, PetscInt k)
{
  const PetscInt n  = cells->n;
  PetscInt       np = 1, cnt;
  double         ilo[SR_MAX_DIM], ihi[SR_MAX_DIM], lo[SR_MAX_DIM], hi[SR_MAX_DIM], *X, *Y;

  for (PetscInt d = 0; d < n; d++)
    np *= FLOOR_POINTS;
  X = malloc(sizeof(double) * np * n);
  Y = malloc(sizeof(double) * np * n);
  SRCellsBoxInner(cells, k, ilo, ihi);
  for (PetscInt p = 0; p < np; p++) {
    PetscInt q = p;
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt i = q % FLOOR_POINTS;
      q /= FLOOR_POINTS;
      X[p * n + d] = i == FLOOR_POINTS - 1 ? ihi[d] : ilo[d] + (double)i * ((ihi[d] - ilo[d]) / (double)(FLOOR_POINTS - 1));
    }
  }
  assert_int_equal(SRModelEvaluate(model, np, X, Y), 0);
  for (PetscInt d = 0; d < n; d++) {
    lo[d] = INFINITY;
    hi[d] = -INFINITY;
  }
  for (PetscInt p = 0; p < np; p++)
    for (PetscInt d = 0; d < n; d++) {
      lo[d] = PetscMin(lo[d], Y[p * n + d]);
      hi[d] = PetscMax(hi[d], Y[p * n + d]);
    }
  assert_int_equal(SRSuccessorsCertifiedCount(cells, NULL, lo, hi, &cnt), 0);
  free(X);
  free(Y);
  return cnt;
}

/* Planted boxes at cell k's faces, where SRCellsDistance itself changes: y* the last double of
   dimension d (the other coordinates at the box's middle) at distance 0 from k, walking outward.
   [y*, the next double outward] holds a point of k and one that is not: never decided.  The
   point y* alone: undecided or what the brute force says.  A box well inside k is k, one well
   outside D the sink. */
static void Planted(SRCells cells, PetscInt k, long long *planted)
{
  const PetscInt n = cells->n;
  double         lo[SR_MAX_DIM], hi[SR_MAX_DIM], blo[SR_MAX_DIM], bhi[SR_MAX_DIM], mid[SR_MAX_DIM];

  SRCellsBoxInner(cells, k, lo, hi);
  for (PetscInt d = 0; d < n; d++) {
    const double w = hi[d] - lo[d];
    blo[d]         = lo[d] + 0.25 * w;
    bhi[d]         = hi[d] - 0.25 * w;
    mid[d]         = 0.5 * lo[d] + 0.5 * hi[d];
  }
  assert_int_equal(SRCellsSoleCell(cells, blo, bhi), k);
  for (PetscInt d = 0; d < n; d++)
    for (int side = 0; side < 2; side++) {
      const double dir = side ? INFINITY : -INFINITY;
      double       y[SR_MAX_DIM], plo[SR_MAX_DIM], phi[SR_MAX_DIM], ystar;
      PetscInt     got;
      for (PetscInt e = 0; e < n; e++)
        y[e] = plo[e] = phi[e] = mid[e];
      y[d] = side ? hi[d] : lo[d];
      assert_true(SRCellsDistance(cells, y, k, NULL, NULL, NULL) == 0.0);
      for (int step = 0; step < 64; step++) {
        double z[SR_MAX_DIM];
        for (PetscInt e = 0; e < n; e++)
          z[e] = y[e];
        z[d] = nextafter(y[d], dir);
        if (SRCellsDistance(cells, z, k, NULL, NULL, NULL) != 0.0) break;
        y[d] = z[d];
      }
      ystar  = y[d];
      plo[d] = side ? ystar : nextafter(ystar, dir);
      phi[d] = side ? nextafter(ystar, dir) : ystar;
      assert_int_equal(SRCellsSoleCell(cells, plo, phi), -1);
      plo[d] = phi[d] = ystar;
      got             = SRCellsSoleCell(cells, plo, phi);
      if (got != -1) assert_int_equal(got, BruteSole(cells, y));
      (*planted) += 2;
    }
  for (PetscInt e = 0; e < n; e++) {
    blo[e] = cells->dhi[e] + 1.0;
    bhi[e] = cells->dhi[e] + 2.0;
  }
  assert_int_equal(SRCellsSoleCell(cells, blo, bhi), cells->K);
}

static void run_case(const char *sysname, SRModelType mt, PetscBool partition)
{
  SRSystem  sys;
  SRCells   cells;
  PetscInt  counts[SR_MAX_DIM] = { 1, 1, 1 };
  uint64_t  ctr = 0, seed = 29;
  long long escapes = 0, points = 0, decided = 0, wrong = 0, floor_decided = 0, floor_wrong = 0, planted = 0, tdiff = 0, tdecided = 0;

  assert_int_equal(SRSystemCreate(PETSC_COMM_SELF, sysname, NULL, &sys), 0);
  if (sys->n == 1)
    counts[0] = 300;
  else if (sys->n == 2) {
    counts[0] = 30;
    counts[1] = 24;
  } else {
    counts[0] = 10;
    counts[1] = 9;
    counts[2] = 8;
  }
  if (partition) assert_int_equal(RandomMovedPartition(sys, counts, 0.25, seed, &ctr, &cells), 0); /* moved by up to a quarter of a step */
  else assert_int_equal(SRCellsCreateGrid(sys, counts, &cells), 0);

  for (int net = 0; net < NNETS; net++) {
    const PetscInt n = cells->n, K = cells->K;
    SRModel        model;
    SRCellModel   *cm;
    double        *E;
    SRCellStatus  *st;
    SRTargetParams tp = { SR_TARGET_EMPIRICAL, 0.9, 32, 7 + (uint64_t)net };

    assert_int_equal(RandomModel(sys, mt, seed, &ctr, &model), 0);
    if (net == 1) assert_int_equal(RandomActivations(model, "mixed", seed, &ctr), 0); /* tanh, relu, sigmoid, linear (SPEC §14) */
    if (net == 2) assert_int_equal(RandomTransforms(model, seed, &ctr), 0);           /* clipped, normalised inputs; scaled outputs */
    cm = malloc(sizeof(SRCellModel) * K);
    E  = malloc(sizeof(double) * 2 * n * K);
    st = malloc(sizeof(SRCellStatus) * K);
    assert_int_equal(SREnclosureComputeModels(model, SR_ENCLOSURE_TAYLOR1, cells, 0, K, E, st, cm), 0);
    for (PetscInt k = 0; k < K; k++) {
      double   ilo[SR_MAX_DIM], ihi[SR_MAX_DIM], X[(NPTS + 8) * SR_MAX_DIM], Y[(NPTS + 8) * SR_MAX_DIM];
      PetscInt np = 0;

      if (!cm[k].ok) continue;
      SRCellsBoxInner(cells, k, ilo, ihi);
      for (PetscInt q = 0; q < (1 << n); q++, np++)
        for (PetscInt d = 0; d < n; d++)
          X[np * n + d] = (q >> d) & 1 ? ihi[d] : ilo[d];
      for (int p = 0; p < NPTS; p++, np++)
        for (PetscInt d = 0; d < n; d++)
          X[np * n + d] = ilo[d] + (ihi[d] - ilo[d]) * U01(seed, &ctr);
      assert_int_equal(SRModelEvaluate(model, np, X, Y), 0);
      for (PetscInt p = 0; p < np; p++) {
        double   ylo[SR_MAX_DIM], yhi[SR_MAX_DIM];
        PetscInt j;
        if (!SRCellModelImages(&cm[k], n, 1, X + p * n, ylo, yhi) || !isfinite(ylo[0])) continue;
        points++;
        for (PetscInt d = 0; d < n; d++)
          if (!(ylo[d] <= Y[p * n + d] && Y[p * n + d] <= yhi[d])) escapes++;
        j = SRCellsSoleCell(cells, ylo, yhi);
        if (j >= 0) {
          decided++;
          if (BruteSole(cells, Y + p * n) != j) wrong++;
        }
      }
      if (k % 7 == 0) { /* the floor against the full lattice, on every seventh cell */
        PetscBool dec;
        PetscInt  cnt;
        assert_int_equal(SRCellModelFloorCount(cells, NULL, &cm[k], ilo, ihi, &dec, &cnt), 0);
        if (dec) {
          floor_decided++;
          if (cnt != LatticeCount(model, cells, k)) floor_wrong++;
        }
      }
      if (k % 13 == 0) Planted(cells, k, &planted);
      { /* targets: with and without the model, the same list and count */
        SRIntBuf L = { 0, 0, NULL }, T1 = { 0, 0, NULL }, T2 = { 0, 0, NULL };
        PetscInt d1 = -1, d2 = -2, dec = 0;
        assert_int_equal(SRSuccessorsCertifiedAppend_Private(cells, NULL, E + 2 * n * k, E + 2 * n * k + n, &L), 0);
        if (L.n == 0) assert_int_equal(SRIntBufPush_Private(&L, K), 0);
        assert_int_equal(SRSuccessorsTargetAppend_Private(model, cells, &tp, k, L.n, L.a, PETSC_TRUE, NULL, &T1, &d1, NULL), 0);
        assert_int_equal(SRSuccessorsTargetAppend_Private(model, cells, &tp, k, L.n, L.a, PETSC_TRUE, &cm[k], &T2, &d2, &dec), 0);
        tdecided += dec;
        if (d1 != d2 || T1.n != T2.n)
          tdiff++;
        else
          for (PetscInt t = 0; t < T1.n; t++)
            if (T1.a[t] != T2.a[t]) tdiff++;
        SRIntBufDestroy_Private(&L);
        SRIntBufDestroy_Private(&T1);
        SRIntBufDestroy_Private(&T2);
      }
    }
    free(cm);
    free(E);
    free(st);
    assert_int_equal(SRModelDestroy(&model), 0);
  }
  print_message("%s %s %s: %lld points, %lld escapes, %lld decided (%lld wrong), floor %lld decided (%lld wrong), %lld planted boxes, targets: %lld samples decided, %lld differences\n", sysname, SRModelTypes[mt], partition ? "partition" : "grid",
      points, escapes, decided, wrong, floor_decided, floor_wrong, planted, tdecided, tdiff);
  assert_true(points > 0);
  assert_int_equal(escapes, 0);
  assert_int_equal(wrong, 0);
  assert_true(decided > points / 10);
  assert_int_equal(floor_wrong, 0);
  assert_true(floor_decided > 0);
  assert_true(planted > 0);
  assert_int_equal(tdiff, 0);
  assert_true(tdecided > 0);
  assert_int_equal(SRCellsDestroy(&cells), 0);
  assert_int_equal(SRSystemDestroy(&sys), 0);
}

static void test_toy1d(void **state)
{
  (void)state;
  run_case("toy1d", SR_MODEL_DYNAMICS, PETSC_FALSE);
  run_case("toy1d", SR_MODEL_DYNAMICS, PETSC_TRUE);
}
static void test_pendulum(void **state)
{
  (void)state;
  run_case("pendulum", SR_MODEL_DYNAMICS, PETSC_FALSE);
  run_case("pendulum", SR_MODEL_DYNAMICS, PETSC_TRUE);
  run_case("pendulum", SR_MODEL_CONTROLLER, PETSC_FALSE);
  run_case("pendulum", SR_MODEL_CONTROLLER, PETSC_TRUE);
}
static void test_dubins(void **state)
{
  (void)state;
  run_case("dubins", SR_MODEL_DYNAMICS, PETSC_FALSE);
  run_case("dubins", SR_MODEL_DYNAMICS, PETSC_TRUE);
  run_case("dubins", SR_MODEL_CONTROLLER, PETSC_FALSE);
  run_case("dubins", SR_MODEL_CONTROLLER, PETSC_TRUE);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_toy1d),
    cmocka_unit_test(test_pendulum),
    cmocka_unit_test(test_dubins),
  };
  int rc;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return rc;
}
