/* The batched taylor1 kernel (src/abstraction/enclosure_taylor.c) against the per-cell Taylor path of
   src/numerics/taylor.c and against the MPFR oracle (SPEC §7).

   For every system and model: random networks (1..3 hidden layers of width 4..64, weight
   scale 0.1..3) x random small cells (half-widths 1e-7 .. 1e-2 |D|, where the batched
   narrow-range path runs) in blocks of SREnclosureCompute.  Checks
   - soundness: the real f(x) (MPFR, 200 bits) at every vertex, face centre and random point of
     every cell lies in the batched box (0 escapes);
   - the checker has teeth (planted violation): the same boxes shrunk by 10 % of their width on
     one side miss the real f(x) at some sampled point in most cells;
   - tightness: the batched box is never wider than the per-cell box by more than a relative
     1e-9 of the per-cell width plus 1e-10 (the batched kernel's fast tanh is enclosed with
     2^-45 per neuron where the per-cell path uses libm bounds: measured <= 1.3e-11), and the
     two differ on some cells (so the batched path, not only its per-cell fallback, ran);
   - the first cells of every block of 64 give the same box whatever the block they are in
     (a cell's enclosure does not depend on its neighbours). */
#include <simreach.h>
#include <simreach/private/enclosure.h>

#include <mpfr.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define PREC 200
#include "mpfr_oracle.h"

#include "random_model.h"

/* real f(x) outside E (2n: lo then hi)? */
static int Escapes(Oracle *o, SRModel model, const double *x, const double *E)
{
  const PetscInt n = model->n;
  OracleEval(o, model, x);
  for (PetscInt d = 0; d < n; d++)
    if (mpfr_cmp_d(o->b[d], E[d]) < 0 || mpfr_cmp_d(o->b[d], E[n + d]) > 0) return 1;
  return 0;
}

#define NCELLS 100 /* cells per network: 2 blocks, the last one partial */
#define NNETS 4
#define NPTS 12

static void run_case_act(const char *sysname, SRModelType mt, const char *act)
{
  SRSystem       sys;
  SRCells        cells;
  Oracle         o;
  PetscInt       counts[SR_MAX_DIM] = { 1, 1, 1 };
  uint64_t       ctr = 0, seed = 17;
  long long      escapes = 0, planted_cells = 0, checked = 0, differ = 0;
  double         worst = 0;

  assert_int_equal(SRSystemCreate(PETSC_COMM_SELF, sysname, NULL, &sys), 0);
  counts[0] = NCELLS;
  for (PetscInt d = 1; d < sys->n; d++) counts[d] = 1;
  assert_int_equal(SRCellsCreateGrid(sys, counts, &cells), 0);
  assert_int_equal(SRCellsSetFree(cells), 0);
  OracleCreate(65, &o);
  for (int net = 0; net < NNETS; net++) {
    const PetscInt n = sys->n;
    SRModel        model;
    double        *E = malloc(sizeof(double) * 2 * n * NCELLS), *E1 = malloc(sizeof(double) * 2 * n * NCELLS);
    SRCellStatus  *st = malloc(sizeof(SRCellStatus) * NCELLS);

    assert_int_equal(RandomModel(sys, mt, seed, &ctr, &model), 0);
    assert_int_equal(RandomActivations(model, act, seed, &ctr), 0);
    for (PetscInt k = 0; k < NCELLS; k++) {
      const double e = -7.0 + 5.0 * U01(seed, &ctr);
      for (PetscInt d = 0; d < n; d++) {
        const double size       = sys->dhi[d] - sys->dlo[d];
        cells->c[k * n + d]     = sys->dlo[d] + size * U01(seed, &ctr);
        cells->w[k * n + d]     = size * pow(10.0, e + 0.3 * (U01(seed, &ctr) - 0.5));
      }
    }
    assert_int_equal(SREnclosureCompute(model, SR_ENCLOSURE_TAYLOR1, cells, 0, NCELLS, E, st), 0);
    /* the same cells from an offset start: other block neighbours, same boxes */
    assert_int_equal(SREnclosureCompute(model, SR_ENCLOSURE_TAYLOR1, cells, 7, NCELLS, E1, st + 7), 0);
    for (PetscInt k = 7; k < NCELLS; k++)
      for (PetscInt d = 0; d < 2 * n; d++) assert_true(E1[2 * n * (k - 7) + d] == E[2 * n * k + d]);
    for (PetscInt k = 0; k < NCELLS; k++) {
      double lo[SR_MAX_DIM], hi[SR_MAX_DIM], P[2 * SR_MAX_DIM], S[2 * SR_MAX_DIM], x[SR_MAX_DIM];
      int    planted = 0;
      if (st[k] != SR_CELL_OK) continue;
      SRCellsBoxOuter(cells, k, lo, hi);
      assert_int_equal(SRModelEncloseTaylor(model, lo, hi, P, P + n), 0);
      for (PetscInt d = 0; d < n; d++) {
        const double wb = E[2 * n * k + n + d] - E[2 * n * k + d], wp = P[n + d] - P[d];
        if (E[2 * n * k + d] != P[d] || E[2 * n * k + n + d] != P[n + d]) differ++;
        if (wb > wp) worst = PetscMax(worst, (wb - wp) / wp);
        assert_true(wb <= wp * (1 + 1e-9) + 1e-10);
      }
      /* planted: shrink side (hi of dimension k % n) by 10 % of the width */
      for (PetscInt d = 0; d < 2 * n; d++) S[d] = E[2 * n * k + d];
      S[n + k % n] -= 0.1 * (S[n + k % n] - S[k % n]);
      for (PetscInt p = 0; p < NPTS + (1 << n); p++) {
        for (PetscInt d = 0; d < n; d++)
          x[d] = p < (1 << n) ? ((p >> d) & 1 ? hi[d] : lo[d]) : PetscMin(hi[d], lo[d] + U01(seed, &ctr) * (hi[d] - lo[d]));
        escapes += Escapes(&o, model, x, E + 2 * n * k);
        planted = planted || Escapes(&o, model, x, S);
      }
      planted_cells += planted;
      checked++;
    }
    assert_int_equal(SRModelDestroy(&model), 0);
    free(E);
    free(E1);
    free(st);
  }
  printf("taylor batch %s %s -act %s: %lld cells, escapes %lld, planted violations caught in %lld cells, %lld bounds differ from the per-cell path, worst relative width excess %.3g\n", sysname, SRModelTypes[mt], act, checked, escapes, planted_cells, differ, worst);
  assert_int_equal(escapes, 0);
  assert_true(checked > NNETS * NCELLS / 2);
  assert_true(planted_cells > checked / 2);
  assert_true(differ > 0);
  OracleDestroy(&o);
  assert_int_equal(SRCellsDestroy(&cells), 0);
  assert_int_equal(SRSystemDestroy(&sys), 0);
}

static void run_case(const char *sysname, SRModelType mt) { run_case_act(sysname, mt, "tanh"); }

static void test_toy1d(void **state) { run_case("toy1d", SR_MODEL_DYNAMICS); }
/* ReLU layers take the batched kernel's own ReLU branch (SPEC §14) */
static void test_relu_pendulum_dynamics(void **state) { run_case_act("pendulum", SR_MODEL_DYNAMICS, "relu"); }
static void test_relu_dubins_controller(void **state) { run_case_act("dubins", SR_MODEL_CONTROLLER, "relu"); }
static void test_relu_toy1d(void **state) { run_case_act("toy1d", SR_MODEL_DYNAMICS, "relu"); }
/* sigmoid layers: the tanh branch as 1/2 + tanh(z / 2) / 2 (SPEC §14) */
static void test_sigmoid_pendulum_dynamics(void **state) { run_case_act("pendulum", SR_MODEL_DYNAMICS, "sigmoid"); }
static void test_sigmoid_dubins_controller(void **state) { run_case_act("dubins", SR_MODEL_CONTROLLER, "sigmoid"); }
static void test_mixed_toy1d(void **state) { run_case_act("toy1d", SR_MODEL_DYNAMICS, "mixed"); }
static void test_pendulum_dynamics(void **state) { run_case("pendulum", SR_MODEL_DYNAMICS); }
static void test_pendulum_controller(void **state) { run_case("pendulum", SR_MODEL_CONTROLLER); }
static void test_dubins_dynamics(void **state) { run_case("dubins", SR_MODEL_DYNAMICS); }
static void test_dubins_controller(void **state) { run_case("dubins", SR_MODEL_CONTROLLER); }

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_toy1d), cmocka_unit_test(test_pendulum_dynamics), cmocka_unit_test(test_pendulum_controller), cmocka_unit_test(test_dubins_dynamics), cmocka_unit_test(test_dubins_controller),
    cmocka_unit_test(test_relu_pendulum_dynamics), cmocka_unit_test(test_relu_dubins_controller), cmocka_unit_test(test_relu_toy1d),
    cmocka_unit_test(test_sigmoid_pendulum_dynamics), cmocka_unit_test(test_sigmoid_dubins_controller), cmocka_unit_test(test_mixed_toy1d),
  };
  int rc;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return rc;
}
