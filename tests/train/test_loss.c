/* Tests of the losses (src/model/loss.c, SPEC §6).
   Oracles: 256-bit MPFR log-sum-exp for softmin / softmax, central finite differences for
   every gradient of L_sim, straightforward loops (brute-force assignment, min, max) for H
   and eps-coverage, and the O(tau log n) sandwich for tau -> 0.  Serial. */
#include <simreach/loss.h>
#include <simreach/random.h>

#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#define SEED 77031u

static uint64_t ctr = 0;
static double   U(double lo, double hi) { return SRRandomRange(SEED, SR_STREAM_TEST, ctr++, lo, hi); }

/* sgn = +1: softmin, -1: softmax, in 256-bit arithmetic */
static double SoftOracle(PetscInt n, const double *a, double tau, double sgn)
{
  mpfr_t s, t, q;
  double m = a[0], r;
  for (PetscInt j = 1; j < n; j++) m = sgn > 0 ? fmin(m, a[j]) : fmax(m, a[j]);
  mpfr_inits2(256, s, t, q, (mpfr_ptr)0);
  mpfr_set_zero(s, 1);
  for (PetscInt j = 0; j < n; j++) {
    mpfr_set_d(t, a[j], MPFR_RNDN);
    mpfr_sub_d(t, t, m, MPFR_RNDN);
    mpfr_div_d(t, t, -sgn * tau, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_add(s, s, t, MPFR_RNDN);
  }
  mpfr_log(s, s, MPFR_RNDN);
  mpfr_mul_d(s, s, -sgn * tau, MPFR_RNDN);
  mpfr_add_d(s, s, m, MPFR_RNDN);
  r = mpfr_get_d(s, MPFR_RNDN);
  mpfr_clears(s, t, q, (mpfr_ptr)0);
  return r;
}

/* SPEC §6: 0 <= min - softmin <= tau log n, 0 <= softmax - max <= tau log n, values against
   MPFR, weights a distribution equal to the finite-difference derivative. */
static void test_soft_bounds(void **state)
{
  const PetscInt ns[] = {1, 2, 3, 10, 100, 1000};
  static double  a[1000], w[1000];
  for (int it = 0; it < 6; it++) {
    const PetscInt n = ns[it];
    for (int lt = 0; lt <= 10; lt++) {
      const double tau = pow(10.0, -4 + 0.5 * lt); /* 1e-4 .. 10 */
      for (int rep = 0; rep < 3; rep++) {
        double amin = INFINITY, amax = -INFINITY, mag = 0;
        for (PetscInt j = 0; j < n; j++) {
          a[j] = rep == 2 && j % 2 ? a[j - 1] : U(-5, 5) * (rep == 1 ? 1e-3 : 1); /* ties, clustered */
          amin = fmin(amin, a[j]);
          amax = fmax(amax, a[j]);
          mag  = fmax(mag, fabs(a[j]));
        }
        const double slack = 4 * DBL_EPSILON * (mag + tau * log(n + 1.0));
        const double smin  = SRSoftmin(n, a, tau, w);
        assert_true(amin - smin >= 0 && amin - smin <= tau * log((double)n) + slack);
        assert_true(fabs(smin - SoftOracle(n, a, tau, 1)) <= slack);
        double sw = 0;
        for (PetscInt j = 0; j < n; j++) {
          assert_true(w[j] >= 0);
          sw += w[j];
        }
        assert_true(fabs(sw - 1) <= 1e-12);
        const double smax = SRSoftmax(n, a, tau, w);
        assert_true(smax - amax >= 0 && smax - amax <= tau * log((double)n) + slack);
        assert_true(fabs(smax - SoftOracle(n, a, tau, -1)) <= slack);
        /* weights = d softmax / d a_j (finite differences, where the curvature allows) */
        if (tau >= 0.1 && n <= 100) {
          for (PetscInt j = 0; j < n; j += 7) {
            const double h = 1e-6 * tau, s0 = a[j];
            a[j]            = s0 + h;
            const double fp = SRSoftmax(n, a, tau, NULL);
            a[j]            = s0 - h;
            const double fm = SRSoftmax(n, a, tau, NULL);
            a[j]            = s0;
            assert_true(fabs((fp - fm) / (2 * h) - w[j]) <= 1e-6);
          }
        }
      }
    }
  }
  assert_true(SRSoftmin(0, a, 1.0, NULL) == INFINITY && SRSoftmax(0, a, 1.0, NULL) == -INFINITY);
}

/* A 3 x 3 grid on [-1, 2] x [0, 3], moved off the grid, random successor lists (with the sink). */
typedef struct {
  struct _p_SRSystem sys;
  SRCells            C;
  SRSuccessorList    T;
  PetscInt           ptr[10], idx[90];
  PetscInt           N;
  double             X[200], Y[200];
} Problem;

static void MakeProblem(Problem *P, PetscInt N, PetscBool move)
{
  const PetscInt cnt[2] = {3, 3};
  memset(P, 0, sizeof(*P));
  strcpy(P->sys.name, "test");
  P->sys.n      = 2;
  P->sys.dlo[0] = -1;
  P->sys.dhi[0] = 2;
  P->sys.dlo[1] = 0;
  P->sys.dhi[1] = 3;
  assert_int_equal(SRCellsCreateGrid(&P->sys, cnt, &P->C), 0);
  if (move) {
    for (PetscInt k = 0; k < 18; k++) {
      P->C->c[k] += U(-0.15, 0.15);
      P->C->w[k] *= U(0.7, 1.2);
    }
    assert_int_equal(SRCellsSetFree(P->C), 0);
  }
  P->ptr[0] = 0;
  for (PetscInt k = 0; k < 9; k++) {
    const PetscInt nt = 1 + (PetscInt)U(0, 5);
    for (PetscInt t = 0; t < nt; t++) P->idx[P->ptr[k] + t] = (PetscInt)U(0, 10); /* 9 = sink */
    P->ptr[k + 1] = P->ptr[k] + nt;
  }
  P->T.K   = 9;
  P->T.ptr = P->ptr;
  P->T.idx = P->idx;
  P->N     = N;
  for (PetscInt i = 0; i < N; i++) {
    P->X[2 * i]     = U(-1.2, 2.2);
    P->X[2 * i + 1] = U(-0.2, 3.2);
    P->Y[2 * i]     = U(-1.5, 2.5);
    P->Y[2 * i + 1] = U(-0.5, 3.5);
  }
}

static double LossOnly(Problem *P, const SRLossParams *par)
{
  SRLossValues v;
  assert_int_equal(SRLossSim(P->C, &P->T, par, P->N, P->X, P->Y, &v, NULL, NULL), 0);
  return v.Lsim;
}

/* central difference of L_sim in *var; returns 0 and *ok = 0 at a kink (one-sided slopes disagree) */
static double FD(Problem *P, const SRLossParams *par, double *var, int *ok)
{
  const double h = 1e-6, s0 = *var;
  const double f0 = LossOnly(P, par);
  *var            = s0 + h;
  const double fp = LossOnly(P, par);
  *var            = s0 - h;
  const double fm = LossOnly(P, par);
  *var            = s0;
  *ok             = fabs((fp - f0) - (f0 - fm)) <= 1e-3 * h; /* smooth: second difference O(h^2 / tau) */
  return (fp - fm) / (2 * h);
}

static void CheckGradients(SRAssignType assign)
{
  const SRNorm norms[3] = {SR_NORM_1, SR_NORM_2, SR_NORM_INF};
  int          checked = 0, kinks = 0, nonzero = 0;
  for (int q = 0; q < 3; q++) {
    for (int rep = 0; rep < 2; rep++) {
      Problem     *P;
      SRLossParams par = {.tau = 0.3, .eps = 0.02, .lambda_eps = 0.7, .assign = assign, .assign_neighbors = 3};
      SRLossValues v;
      double       dY[200], dth[36], gmax = 0;
      assert_int_equal(PetscNew(&P), 0);
      MakeProblem(P, 40, PETSC_TRUE);
      P->C->p = norms[q];
      assert_int_equal(SRLossSim(P->C, &P->T, &par, P->N, P->X, P->Y, &v, dY, dth), 0);
      for (int j = 0; j < 2 * P->N; j++) gmax = fmax(gmax, fabs(dY[j]));
      for (int j = 0; j < 36; j++) gmax = fmax(gmax, fabs(dth[j]));
      assert_true(gmax > 0);
      for (int j = 0; j < 2 * P->N + 36; j++) {
        int          ok;
        double      *var = j < 2 * P->N ? &P->Y[j] : (j < 2 * P->N + 18 ? &P->C->c[j - 2 * P->N] : &P->C->w[j - 2 * P->N - 18]);
        const double an  = j < 2 * P->N ? dY[j] : dth[j - 2 * P->N];
        const double fd  = FD(P, &par, var, &ok);
        if (!ok) {
          kinks++;
          continue;
        }
        if (fabs(an - fd) > 1e-6 * fmax(fabs(fd), gmax)) print_error("norm %d assign %d var %d: analytic %.12g fd %.12g\n", (int)norms[q], (int)assign, j, an, fd);
        assert_true(fabs(an - fd) <= 1e-6 * fmax(fabs(fd), gmax));
        nonzero += fabs(an) > 1e-8 * gmax;
        checked++;
      }
      assert_int_equal(SRCellsDestroy(&P->C), 0);
      assert_int_equal(PetscFree(P), 0);
    }
  }
  assert_true(kinks * 20 < checked); /* kinks are rare: the test really checks */
  assert_true(nonzero * 4 > checked);
}

static void test_gradients_hard(void **state) { CheckGradients(SR_ASSIGN_HARD); }
static void test_gradients_gauss(void **state) { CheckGradients(SR_ASSIGN_GAUSS); }

/* oracle for H and coverage: brute-force assignment and plain loops */
/* coverage (SPEC §6): only non-sink targets cover; out: images outside D = [-1, 2] x [0, 3] */
static void HardOracle(Problem *P, const SRLossParams *par, double *H, double *cov, double *out)
{
  double hr = -INFINITY, he = 0;
  int    covered = 0, nout = 0;
  for (PetscInt i = 0; i < P->N; i++) {
    const double *x = P->X + 2 * i, *y = P->Y + 2 * i;
    PetscInt      kb = 0;
    double        db = INFINITY, amin = INFINITY, acell = INFINITY;
    nout += !(y[0] >= -1 && y[0] <= 2 && y[1] >= 0 && y[1] <= 3);
    for (PetscInt k = 0; k < 9; k++) {
      const double d = SRCellsDistance(P->C, x, k, NULL, NULL, NULL);
      if (d < db) {
        db = d;
        kb = k;
      }
    }
    for (PetscInt t = P->ptr[kb]; t < P->ptr[kb + 1]; t++) {
      const PetscInt j = P->idx[t];
      double         d;
      if (j < 9) {
        d     = SRCellsDistance(P->C, y, j, NULL, NULL, NULL);
        acell = fmin(acell, d);
      } else {
        const int in = y[0] >= -1 && y[0] <= 2 && y[1] >= 0 && y[1] <= 3;
        d            = in ? fmin(fmin(y[0] + 1, 2 - y[0]), fmin(y[1], 3 - y[1])) : 0.0;
      }
      amin = fmin(amin, d);
    }
    hr = fmax(hr, amin - db);
    he = fmax(he, db - par->eps);
    covered += db <= par->eps && acell <= par->eps;
  }
  *H   = hr + par->lambda_eps * he;
  *cov = (double)covered / P->N;
  *out = (double)nout / P->N;
}

static void test_hard_metric(void **state)
{
  const SRNorm norms[3] = {SR_NORM_1, SR_NORM_2, SR_NORM_INF};
  for (int q = 0; q < 3; q++) {
    for (int move = 0; move < 2; move++) {
      Problem     *P;
      SRLossParams par = {.tau = 0.1, .eps = 0.3, .lambda_eps = 0.5, .assign = SR_ASSIGN_HARD, .assign_neighbors = 1};
      SRLossValues v;
      double       H, cov, out;
      assert_int_equal(PetscNew(&P), 0);
      MakeProblem(P, 100, (PetscBool)move);
      P->C->p = norms[q];
      assert_int_equal(SRLossHard(P->C, &P->T, &par, P->N, P->X, P->Y, &v), 0);
      HardOracle(P, &par, &H, &cov, &out);
      assert_true(fabs(v.H - H) <= 1e-15 * (1 + fabs(H)));
      assert_true(v.coverage == cov);
      assert_true(v.out_of_D == out && out > 0 && out < 1); /* some images leave D */
      assert_true(v.coverage > 0 && v.coverage < 1); /* the oracle distinguishes */
      assert_true(v.H_r + par.lambda_eps * v.H_eps == v.H);
      assert_int_equal(SRCellsDestroy(&P->C), 0);
      assert_int_equal(PetscFree(P), 0);
    }
  }
}

/* SPEC §6: as tau -> 0, L_sim -> H on the same samples, inside the O(tau log n) sandwich
   -tau log n <= L_r - H_r <= tau log N, 0 <= L_eps - H_eps <= tau log N. */
static void test_tau_to_zero(void **state)
{
  const SRNorm norms[3] = {SR_NORM_1, SR_NORM_2, SR_NORM_INF};
  for (int q = 0; q < 3; q++) {
    Problem     *P;
    double       prev = INFINITY;
    assert_int_equal(PetscNew(&P), 0);
    MakeProblem(P, 100, PETSC_TRUE);
    P->C->p = norms[q];
    for (int lt = 0; lt <= 6; lt++) {
      SRLossParams par = {.tau = pow(10.0, -lt), .eps = 0.01, .lambda_eps = 0.5, .assign = SR_ASSIGN_HARD, .assign_neighbors = 1};
      SRLossValues v, h;
      assert_int_equal(SRLossSim(P->C, &P->T, &par, P->N, P->X, P->Y, &v, NULL, NULL), 0);
      assert_int_equal(SRLossHard(P->C, &P->T, &par, P->N, P->X, P->Y, &h), 0);
      const double sl = 1e-14;
      assert_true(v.Lsim_r - h.H_r >= -v.taulogn - sl && v.Lsim_r - h.H_r <= v.taulogN + sl);
      assert_true(v.Lsim_eps - h.H_eps >= -sl && v.Lsim_eps - h.H_eps <= v.taulogN + sl);
      assert_true(v.gap_min >= 0 && v.gap_min <= v.taulogn + sl);
      assert_true(v.gap_max >= 0 && v.gap_max <= v.taulogN + sl);
      assert_true(fabs(v.taulogN - par.tau * log(100.0)) <= 1e-15);
      const double err = fabs(v.Lsim - h.H);
      assert_true(err <= par.tau * (log(5.0) + 2 * log(100.0)) + sl);
      assert_true(err <= prev + sl);
      prev = err;
    }
    assert_true(prev < 1e-5);
    assert_int_equal(SRCellsDestroy(&P->C), 0);
    assert_int_equal(PetscFree(P), 0);
  }
}

static void test_errors_and_empty(void **state)
{
  Problem     *P;
  SRLossParams par = {.tau = 0.1, .eps = 0.01, .lambda_eps = 0.5, .assign = SR_ASSIGN_HARD, .assign_neighbors = 1};
  SRLossValues v;
  double       dY[2] = {1, 1}, dth[36];
  assert_int_equal(PetscNew(&P), 0);
  MakeProblem(P, 10, PETSC_FALSE);
  /* no samples: the identities of the reductions, zero gradients */
  for (int j = 0; j < 36; j++) dth[j] = 1;
  assert_int_equal(SRLossSim(P->C, &P->T, &par, 0, P->X, P->Y, &v, dY, dth), 0);
  assert_true(v.Lsim_r == -INFINITY && v.Lsim_eps == -INFINITY && v.Lsim == -INFINITY);
  for (int j = 0; j < 36; j++) assert_true(dth[j] == 0);
  assert_int_equal(SRLossHard(P->C, &P->T, &par, 0, P->X, P->Y, &v), 0);
  assert_true(v.H_r == -INFINITY && v.H_eps == 0 && v.coverage == 0);
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
  par.tau = 0;
  assert_int_not_equal(SRLossSim(P->C, &P->T, &par, P->N, P->X, P->Y, &v, NULL, NULL), 0);
  par.tau    = 0.1;
  par.assign = SR_ASSIGN_GAUSS;
  par.assign_neighbors = 10;
  assert_int_not_equal(SRLossSim(P->C, &P->T, &par, P->N, P->X, P->Y, &v, NULL, NULL), 0);
  par.assign = SR_ASSIGN_HARD;
  P->idx[0]  = 10; /* beyond the sink */
  assert_int_not_equal(SRLossSim(P->C, &P->T, &par, P->N, P->X, P->Y, &v, NULL, NULL), 0);
  P->idx[0] = 9;
  /* an empty T(k) of a used cell */
  {
    const double x[2] = {P->C->c[0], P->C->c[1]}, y[2] = {0.5, 0.5};
    const PetscInt shift = P->ptr[1] - P->ptr[0];
    for (PetscInt k = 1; k <= 9; k++) P->ptr[k] -= shift; /* T(0) := {} */
    assert_int_not_equal(SRLossSim(P->C, &P->T, &par, 1, x, y, &v, NULL, NULL), 0);
    assert_int_not_equal(SRLossHard(P->C, &P->T, &par, 1, x, y, &v), 0);
  }
  PetscPopErrorHandler();
  assert_int_equal(SRCellsDestroy(&P->C), 0);
  assert_int_equal(PetscFree(P), 0);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_soft_bounds), cmocka_unit_test(test_gradients_hard), cmocka_unit_test(test_gradients_gauss),
    cmocka_unit_test(test_hard_metric), cmocka_unit_test(test_tau_to_zero),    cmocka_unit_test(test_errors_and_empty),
  };
  int fails, all;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  fails = cmocka_run_group_tests_name("loss", tests, NULL, NULL);
  PetscCallMPI(MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscFinalize());
  return all;
}
