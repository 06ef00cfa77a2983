/* SREnclosureCompute (SPEC §7): the fast tanh against MPFR, non-finite handling, 'both' as the
   intersection, isotonicity, independence of the cell partition (any number of ranks), and the
   taylor1 / interval width ratio on shrinking cells (printed as a table).  Runs on 1..n ranks;
   verdicts are reduced over PETSC_COMM_WORLD. */
#include <simreach.h>
#include <simreach/private/enclosure.h>

#include <mpfr.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

static double U(uint64_t *ctr) { return SRRandomUniform(11, SR_STREAM_TEST, (*ctr)++); }

/* all ranks agree on the verdict */
static int AllTrue(int ok)
{
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, PETSC_COMM_WORLD);
  return all;
}

typedef struct {
  SRSystem sys;
  SRModel  model;
  SRCells  cells;
} Setup;

static PetscErrorCode SetupCreate(const char *sysname, SRModelType type, PetscInt nh, const PetscInt *widths, PetscInt K, uint64_t seed, Setup *s)
{
  PetscInt counts[SR_MAX_DIM] = { K, 1, 1 };
  uint64_t ctr                = seed * 7919;

  PetscFunctionBeginUser;
  PetscCall(SRSystemCreate(PETSC_COMM_SELF, sysname, NULL, &s->sys));
  PetscCall(SRModelCreate(s->sys, type, nh, widths, &s->model));
  PetscCall(SRMLPInitialize(s->model->mlp, seed));
  PetscCall(SRCellsCreateGrid(s->sys, counts, &s->cells));
  PetscCall(SRCellsSetFree(s->cells));
  for (PetscInt k = 0; k < K; k++)
    for (PetscInt d = 0; d < s->sys->n; d++) {
      const double size              = s->sys->dhi[d] - s->sys->dlo[d];
      s->cells->c[k * s->sys->n + d] = s->sys->dlo[d] + size * U(&ctr);
      s->cells->w[k * s->sys->n + d] = size * pow(10.0, -6 + 6 * U(&ctr));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SetupDestroy(Setup *s)
{
  PetscFunctionBeginUser;
  PetscCall(SRCellsDestroy(&s->cells));
  PetscCall(SRModelDestroy(&s->model));
  PetscCall(SRSystemDestroy(&s->sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |SRTanhFast_Private(x) - tanh(x)| <= SR_TANH_FAST_ERR, tanh in MPFR (200 bits) */
static void test_tanh_fast_bound(void **state)
{
  uint64_t ctr    = 1;
  double   maxerr = 0, worst = 0;
  mpfr_t   t;
  mpfr_init2(t, 200);
  for (PetscInt i = 0; i < 200000; i++) {
    double x;
    if (i % 2)
      x = (2 * U(&ctr) - 1) * 25.0;
    else
      x = (U(&ctr) < 0.5 ? -1 : 1) * pow(10.0, -20 + 22 * U(&ctr));
    if (i < 8) x = (double[]) { 0.0, -0.0, 20.0, -20.0, 19.999999999999996, 1e308, -5e-324, 0.34657359027997264 }[i];
    mpfr_set_d(t, x, MPFR_RNDN);
    mpfr_tanh(t, t, MPFR_RNDN);
    mpfr_sub_d(t, t, SRTanhFast_Private(x), MPFR_RNDN);
    const double e = fabs(mpfr_get_d(t, MPFR_RNDU));
    if (e > maxerr) {
      maxerr = e;
      worst  = x;
    }
  }
  mpfr_clear(t);
  printf("fast tanh: max |error| %.3g at x = %.17g (bound %.3g)\n", maxerr, worst, SR_TANH_FAST_ERR);
  assert_true(AllTrue(maxerr <= SR_TANH_FAST_ERR));
}

static void test_nonfinite_weights(void **state)
{
  const PetscInt widths[2] = { 8, 8 };
  Setup          s;
  double         E[20 * 4];
  SRCellStatus   st[20];
  int            ok = 1;
  assert_int_equal(SetupCreate("pendulum", SR_MODEL_DYNAMICS, 2, widths, 20, 1, &s), 0);
  for (int bad = 0; bad < 2; bad++) {
    s.model->mlp->params[3] = bad ? INFINITY : NAN;
    for (int ty = 0; ty < 3; ty++) {
      assert_int_equal(SREnclosureCompute(s.model, (SREnclosureType)ty, s.cells, 0, 20, E, st), 0);
      for (PetscInt k = 0; k < 20; k++)
        ok = ok && st[k] == SR_CELL_NONFINITE && E[4 * k] == -INFINITY && E[4 * k + 3] == INFINITY;
    }
  }
  /* huge finite weights overflow inside the kernel: non-finite results */
  s.model->mlp->params[3] = 1e308;
  s.model->mlp->params[4] = 1e308;
  for (int ty = 0; ty < 3; ty++) {
    assert_int_equal(SREnclosureCompute(s.model, (SREnclosureType)ty, s.cells, 0, 20, E, st), 0);
    for (PetscInt k = 0; k < 20; k++)
      ok = ok && (st[k] == SR_CELL_NONFINITE ? (E[4 * k] == -INFINITY && E[4 * k + 2] == INFINITY) : (isfinite(E[4 * k]) && isfinite(E[4 * k + 3])));
  }
  assert_true(AllTrue(ok));
  assert_int_equal(SetupDestroy(&s), 0);
}

/* a NaN / Inf cell only flags that cell, for both models */
static void test_nonfinite_cells(void **state)
{
  const PetscInt widths[1] = { 16 };
  int            ok        = 1;
  for (int mt = 0; mt < 2; mt++) {
    Setup        s;
    double       E[10 * 4];
    SRCellStatus st[10];
    assert_int_equal(SetupCreate("pendulum", (SRModelType)mt, 1, widths, 10, 2, &s), 0);
    s.cells->c[2 * 3 + 1] = NAN;
    s.cells->w[2 * 7 + 0] = INFINITY;
    for (int ty = 0; ty < 3; ty++) {
      assert_int_equal(SREnclosureCompute(s.model, (SREnclosureType)ty, s.cells, 0, 10, E, st), 0);
      for (PetscInt k = 0; k < 10; k++) {
        if (k == 3 || k == 7)
          ok = ok && st[k] == SR_CELL_NONFINITE && E[4 * k + 1] == -INFINITY && E[4 * k + 2] == INFINITY;
        else
          ok = ok && st[k] == SR_CELL_OK && isfinite(E[4 * k]) && isfinite(E[4 * k + 3]);
      }
    }
    assert_int_equal(SetupDestroy(&s), 0);
  }
  assert_true(AllTrue(ok));
}

/* both = interval box intersected with the taylor1 box */
static void test_both_is_intersection(void **state)
{
  const PetscInt widths[2] = { 32, 16 }, K = 300;
  const char    *names[3] = { "toy1d", "pendulum", "dubins" };
  int            ok       = 1;
  for (int q = 0; q < 3; q++)
    for (int mt = 0; mt < (q ? 2 : 1); mt++) {
      Setup          s;
      const PetscInt n = q + 1;
      double        *E[3];
      SRCellStatus  *st[3];
      assert_int_equal(SetupCreate(names[q], (SRModelType)mt, 2, widths, K, 3 + q, &s), 0);
      for (int ty = 0; ty < 3; ty++) {
        E[ty]  = malloc(sizeof(double) * 2 * n * K);
        st[ty] = malloc(sizeof(SRCellStatus) * K);
        assert_int_equal(SREnclosureCompute(s.model, (SREnclosureType)ty, s.cells, 0, K, E[ty], st[ty]), 0);
      }
      for (PetscInt k = 0; k < K; k++)
        for (PetscInt d = 0; d < n; d++) {
          const double *Ei = E[0] + 2 * n * k, *Ev = E[1] + 2 * n * k, *Eo = E[2] + 2 * n * k;
          ok = ok && st[2][k] == SR_CELL_OK && Eo[d] == PetscMax(Ei[d], Ev[d]) && Eo[n + d] == PetscMin(Ei[n + d], Ev[n + d]);
        }
      for (int ty = 0; ty < 3; ty++) {
        free(E[ty]);
        free(st[ty]);
      }
      assert_int_equal(SetupDestroy(&s), 0);
    }
  assert_true(AllTrue(ok));
}

/* Isotonicity: for sub-boxes B' of B, E(B') within E(B).  Neither kernel is isotone by
   construction at the ulp level (the interval kernel's a-priori rounding terms grow with |m|
   of the first layer; taylor1 re-linearises on every range), so the excess is allowed up to
   2^-40 (1 + max |E|); the largest excess is printed (0 on these cells when last measured). */
static void test_isotone(void **state)
{
  const PetscInt widths[2] = { 24, 24 }, K = 200;
  int            ok        = 1;
  double         excess[3] = { 0, 0, 0 };
  for (int mt = 0; mt < 2; mt++) {
    Setup         s, sub;
    uint64_t      ctr = 5;
    double       *E = malloc(sizeof(double) * 4 * K), *Es = malloc(sizeof(double) * 4 * K);
    SRCellStatus *st = malloc(sizeof(SRCellStatus) * K), *sts = malloc(sizeof(SRCellStatus) * K);
    assert_int_equal(SetupCreate("pendulum", (SRModelType)mt, 2, widths, K, 6, &s), 0);
    assert_int_equal(SetupCreate("pendulum", (SRModelType)mt, 2, widths, K, 6, &sub), 0);
    for (PetscInt k = 0; k < K; k++)
      for (PetscInt d = 0; d < 2; d++) { /* random sub-box, one in four sharing a face */
        const double c = s.cells->c[2 * k + d], w = s.cells->w[2 * k + d];
        const double ws         = w * (k % 4 == 0 ? 0.5 : U(&ctr));
        sub.cells->w[2 * k + d] = ws;
        sub.cells->c[2 * k + d] = k % 4 == 0 ? c + 0.5 * w : c + (w - ws) * (2 * U(&ctr) - 1) * 0.999;
      }
    for (int ty = 0; ty < 3; ty++) {
      assert_int_equal(SREnclosureCompute(s.model, (SREnclosureType)ty, s.cells, 0, K, E, st), 0);
      assert_int_equal(SREnclosureCompute(sub.model, (SREnclosureType)ty, sub.cells, 0, K, Es, sts), 0);
      for (PetscInt k = 0; k < K; k++) {
        double slo[2], shi[2], lo[2], hi[2];
        SRCellsBoxOuter(sub.cells, k, slo, shi);
        SRCellsBoxOuter(s.cells, k, lo, hi);
        if (!(slo[0] >= lo[0] && slo[1] >= lo[1] && shi[0] <= hi[0] && shi[1] <= hi[1])) continue; /* rounding made it stick out */
        for (PetscInt d = 0; d < 2; d++) {
          const double scale = 1 + PetscMax(fabs(E[4 * k + d]), fabs(E[4 * k + 2 + d]));
          const double ex    = PetscMax(E[4 * k + d] - Es[4 * k + d], Es[4 * k + 2 + d] - E[4 * k + 2 + d]) / scale;
          excess[ty]         = PetscMax(excess[ty], ex);
        }
      }
    }
    free(E);
    free(Es);
    free(st);
    free(sts);
    assert_int_equal(SetupDestroy(&s), 0);
    assert_int_equal(SetupDestroy(&sub), 0);
  }
  printf("isotonicity: largest relative excess of E(sub-box) over E(box): interval %.3g, taylor1 %.3g, both %.3g\n", excess[0], excess[1], excess[2]);
  ok = excess[0] <= 0x1p-40 && excess[1] <= 0x1p-40 && excess[2] <= 0x1p-40;
  assert_true(AllTrue(ok));
}

/* The result for a cell does not depend on the block it was computed in (ranks, SR_ENC_BLOCK
   padding): each rank computes its own block and compares bitwise with the full range. */
static void test_partition_independent(void **state)
{
  const PetscInt widths[2] = { 20, 20 }, K = 517;
  PetscMPIInt    rank, size;
  int            ok = 1;
  assert_int_equal(MPI_Comm_rank(PETSC_COMM_WORLD, &rank), 0);
  assert_int_equal(MPI_Comm_size(PETSC_COMM_WORLD, &size), 0);
  for (int mt = 0; mt < 2; mt++) {
    Setup          s;
    const PetscInt ks = (K * rank) / size, ke = (K * (rank + 1)) / size;
    double        *E = malloc(sizeof(double) * 6 * K), *Eb = malloc(sizeof(double) * 6 * K);
    SRCellStatus  *st = malloc(sizeof(SRCellStatus) * K), *stb = malloc(sizeof(SRCellStatus) * K);
    assert_int_equal(SetupCreate("dubins", (SRModelType)mt, 2, widths, K, 8, &s), 0);
    for (int ty = 0; ty < 3; ty++) {
      assert_int_equal(SREnclosureCompute(s.model, (SREnclosureType)ty, s.cells, 0, K, E, st), 0);
      assert_int_equal(SREnclosureCompute(s.model, (SREnclosureType)ty, s.cells, ks, ke, Eb, stb), 0);
      ok = ok && !memcmp(E + 6 * ks, Eb, sizeof(double) * 6 * (ke - ks));
    }
    free(E);
    free(Eb);
    free(st);
    free(stb);
    assert_int_equal(SetupDestroy(&s), 0);
  }
  assert_true(AllTrue(ok));
}

/* taylor1 / interval mean width on shrinking cells around random centres (pendulum, 2-32-32-2):
   the first-order model wins once the cells are small.  The table is the measurement; the
   assertion is the qualitative claim (ratio < 1 for half-widths <= 1e-2 of |D|). */
static void test_width_ratio_table(void **state)
{
  const PetscInt widths[2] = { 32, 32 }, K = 64;
  const char    *mnames[2] = { "dynamics", "controller" };
  PetscMPIInt    rank;
  int            ok = 1;
  assert_int_equal(MPI_Comm_rank(PETSC_COMM_WORLD, &rank), 0);
  for (int mt = 0; mt < 2; mt++) {
    Setup         s;
    double       *E = malloc(sizeof(double) * 4 * K), *Et = malloc(sizeof(double) * 4 * K);
    SRCellStatus *st = malloc(sizeof(SRCellStatus) * K);
    assert_int_equal(SetupCreate("pendulum", (SRModelType)mt, 2, widths, K, 9, &s), 0);
    if (!rank) printf("pendulum %s 2-32-32-2: half-width/|D|   interval width   taylor1 width   ratio\n", mnames[mt]);
    for (double h = 0.25; h >= 1e-9; h /= 10) {
      double wi = 0, wt = 0;
      for (PetscInt k = 0; k < K; k++)
        for (PetscInt d = 0; d < 2; d++)
          s.cells->w[2 * k + d] = h * (s.sys->dhi[d] - s.sys->dlo[d]);
      assert_int_equal(SREnclosureCompute(s.model, SR_ENCLOSURE_INTERVAL, s.cells, 0, K, E, st), 0);
      assert_int_equal(SREnclosureCompute(s.model, SR_ENCLOSURE_TAYLOR1, s.cells, 0, K, Et, st), 0);
      for (PetscInt k = 0; k < K; k++)
        for (PetscInt d = 0; d < 2; d++) {
          wi += E[4 * k + 2 + d] - E[4 * k + d];
          wt += Et[4 * k + 2 + d] - Et[4 * k + d];
        }
      if (!rank) printf("  %8.1e   %14.6g   %14.6g   %6.3f\n", h, wi / (2 * K), wt / (2 * K), wt / wi);
      if (h <= 1e-2) ok = ok && wt < wi;
    }
    free(E);
    free(Et);
    free(st);
    assert_int_equal(SetupDestroy(&s), 0);
  }
  assert_true(AllTrue(ok));
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_tanh_fast_bound),
    cmocka_unit_test(test_nonfinite_weights),
    cmocka_unit_test(test_nonfinite_cells),
    cmocka_unit_test(test_both_is_intersection),
    cmocka_unit_test(test_isotone),
    cmocka_unit_test(test_partition_independent),
    cmocka_unit_test(test_width_ratio_table),
  };
  int rc;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "Enclosure kernel tests"));
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return rc;
}
