/* Tests of the tightest-enclosure metrics (src/abstraction/metrics.c; SPEC §5, §6).  Runs on 1 and 2 ranks.
   Oracles: a brute-force scan over all cells for the number of cells (+ sink) meeting a box;
   the interval and `both` enclosures of the whole cell (the tightest one must lie inside
   `both` and be no wider); the sampled images of each cell (they must lie in the tightest
   box, so |F| <= |M_tight| cell by cell), and the same metrics on PETSC_COMM_SELF, which must
   be bitwise identical to the distributed ones. */
#include <simreach.h>
#include <simreach/random.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define CHK(call) assert_int_equal((call), 0)

static void all_true(int ok)
{
  int g = 0;
  assert_int_equal(MPI_Allreduce(&ok, &g, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD), MPI_SUCCESS);
  assert_true(g);
}

/* cells (+ sink) whose outward box meets [lo, hi] */
static PetscInt brute_count(SRCells cells, const double *lo, const double *hi)
{
  const PetscInt n = cells->n;
  PetscInt       c = 0, out = 0;
  for (PetscInt k = 0; k < cells->K; k++) {
    double blo[SR_MAX_DIM], bhi[SR_MAX_DIM];
    int    meets = 1;
    SRCellsBoxOuter(cells, k, blo, bhi);
    for (PetscInt d = 0; d < n; d++) meets = meets && !(hi[d] < blo[d] || lo[d] > bhi[d]);
    c += meets;
  }
  for (PetscInt d = 0; d < n; d++) out = out || lo[d] < cells->dlo[d] || hi[d] > cells->dhi[d];
  return c + out;
}

static void test_tight_floor(void **state)
{
  const char    *names[3]     = { "toy1d", "pendulum", "dubins" };
  const SRModelType types[3]  = { SR_MODEL_DYNAMICS, SR_MODEL_CONTROLLER, SR_MODEL_CONTROLLER };
  const PetscInt counts[3][3] = { { 12, 1, 1 }, { 6, 5, 1 }, { 4, 3, 3 } }, widths[2] = { 8, 8 };
  for (int c = 0; c < 3; c++) {
    SRSystem       sys;
    SRModel        model;
    SRCells        cells;
    SRAbstraction  abs, abs1;
    SRTightMetrics m0, m1, mself;
    double        *Ei, *Eb;
    SRCellStatus  *st;
    PetscInt       K, n;
    double         st_sum = 0, sf_sum = 0, v_sum = 0;
    int            ok = 1;

    CHK(SRSystemCreate(PETSC_COMM_SELF, names[c], NULL, &sys));
    if (c == 1) sys->control_steps = 4;
    CHK(SRModelCreate(sys, types[c], 2, widths, &model));
    CHK(SRMLPInitialize(model->mlp, 21 + c));
    CHK(SRCellsCreateGrid(sys, counts[c], &cells));
    K = cells->K;
    n = cells->n;
    CHK(SRAbstractionCreate(PETSC_COMM_WORLD, &abs));
    CHK(SRAbstractionCreate(PETSC_COMM_SELF, &abs1));
    CHK(SRMetricsTight(PETSC_COMM_WORLD, abs, model, cells, 0, 5, &m0, NULL));
    CHK(SRMetricsTight(PETSC_COMM_WORLD, abs, model, cells, 2, 7, &m1, NULL));
    CHK(SRMetricsTight(PETSC_COMM_SELF, abs1, model, cells, 2, 7, &mself, NULL));
    /* rank-count independence: bitwise */
    all_true(m1.succ_tight == mself.succ_tight && m1.vol_E_tight == mself.vol_E_tight && m1.succ_floor == mself.succ_floor);
    /* serial oracle of the same numbers, per cell */
    CHK(PetscMalloc3(2 * n * K, &Ei, 2 * n * K, &Eb, K, &st));
    CHK(SREnclosureCompute(model, SR_ENCLOSURE_BOTH, cells, 0, K, Eb, st));
    CHK(SREnclosureCompute(model, SR_ENCLOSURE_INTERVAL, cells, 0, K, Ei, st));
    for (PetscInt k = 0; k < K; k++) {
      double lo[SR_MAX_DIM], hi[SR_MAX_DIM], ylo[SR_MAX_DIM], yhi[SR_MAX_DIM], x[SR_MAX_DIM], y[SR_MAX_DIM], vb = 1;
      SRCellsBoxInner(cells, k, lo, hi);
      for (PetscInt d = 0; d < n; d++) {
        ylo[d] = INFINITY;
        yhi[d] = -INFINITY;
        vb *= Eb[2 * n * k + n + d] - Eb[2 * n * k + d];
      }
      /* 7 points per dimension, corners included, as -floor_points 7 */
      for (PetscInt p = 0; p < (n == 1 ? 7 : n == 2 ? 49 : 343); p++) {
        PetscInt q = p;
        for (PetscInt d = 0; d < n; d++) {
          const PetscInt i = q % 7;
          q /= 7;
          x[d] = i == 6 ? hi[d] : lo[d] + (double)i * ((hi[d] - lo[d]) / 6.0);
        }
        CHK(SRModelEvaluate(model, 1, x, y));
        for (PetscInt d = 0; d < n; d++) {
          ylo[d] = fmin(ylo[d], y[d]);
          yhi[d] = fmax(yhi[d], y[d]);
          ok     = ok && y[d] >= Eb[2 * n * k + d] && y[d] <= Eb[2 * n * k + n + d];
        }
      }
      sf_sum += brute_count(cells, ylo, yhi);
      st_sum += brute_count(cells, Eb + 2 * n * k, Eb + 2 * n * k + n);
      v_sum += vb;
    }
    /* bisect 0 is `both` over the whole cell: exactly the brute-force count and volume */
    ok = ok && fabs(m0.succ_tight - st_sum / K) <= 1e-12 * st_sum / K && fabs(m0.vol_E_tight - v_sum / K) <= 1e-12 * v_sum / K;
    ok = ok && fabs(m1.succ_floor - sf_sum / K) <= 1e-12 * sf_sum / K;
    /* bisection only tightens; the floor lies below; the sub-boxes gain something here */
    ok = ok && m1.succ_tight <= m0.succ_tight && m1.vol_E_tight <= m0.vol_E_tight && m1.vol_E_tight < m0.vol_E_tight;
    ok = ok && m1.succ_floor <= m1.succ_tight && m1.succ_floor >= 1;
    if (!ok) printf("%s: tight %g (b0 %g, brute %g) vol %g (b0 %g, brute %g) floor %g (brute %g)\n", names[c], m1.succ_tight, m0.succ_tight, st_sum / K, m1.vol_E_tight, m0.vol_E_tight, v_sum / K, m1.succ_floor, sf_sum / K);
    all_true(ok);
    CHK(PetscFree3(Ei, Eb, st));
    CHK(SRAbstractionDestroy(&abs));
    CHK(SRAbstractionDestroy(&abs1));
    CHK(SRCellsDestroy(&cells));
    CHK(SRModelDestroy(&model));
    CHK(SRSystemDestroy(&sys));
  }
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_tight_floor) };
  int                     rc;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return rc;
}
