/* Taylor models (SPEC §7, taylor1), checked against MPFR (200 bits).

   A TM t encloses g on the cell when g(xi) - c0 - sum c_i xi_i lies in r for every xi in
   [-1,1]^n.  Each test builds inputs whose real values are known exactly (affine part +
   a chosen point of the remainder), pushes them through one operation and checks the
   defining property of the result at vertices, random points and remainder endpoints.
   One rank. */
#include <simreach.h>

#include <mpfr.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define PREC 200
#define NPTS 64

static double U(uint64_t *ctr) { return SRRandomUniform(7, SR_STREAM_TEST, (*ctr)++); }

/* random TM with coefficients of scale s (log-uniform) and a remainder of scale s * 1e-3 */
static SRTaylor RandomTM(PetscInt n, double s, uint64_t *ctr)
{
  SRTaylor t = SRTaylorConstant(n, s * (2 * U(ctr) - 1) * 3);
  for (PetscInt i = 0; i < n; i++)
    t.c[i] = s * (2 * U(ctr) - 1);
  t.r.lo = -s * 1e-3 * U(ctr);
  t.r.hi = s * 1e-3 * U(ctr);
  return t;
}

/* sample point k of [-1,1]^n (vertices first) and a point rho of r (endpoints first) */
static void SamplePoint(PetscInt n, PetscInt k, uint64_t *ctr, double *xi, double *rho, const SRInterval *r, PetscInt m)
{
  for (PetscInt i = 0; i < n; i++)
    xi[i] = k < (1 << n) ? ((k >> i) & 1 ? 1.0 : -1.0) : 2 * U(ctr) - 1;
  for (PetscInt j = 0; j < m; j++) {
    const double u = U(ctr);
    rho[j]         = k % 3 == 0 ? r[j].lo : k % 3 == 1 ? r[j].hi : r[j].lo + u * (r[j].hi - r[j].lo);
    if (rho[j] > r[j].hi) rho[j] = r[j].hi;
  }
}

/* v = c0 + sum c_i xi_i + rho exactly (MPFR) */
static void TMValue(mpfr_t v, PetscInt n, const SRTaylor *t, const double *xi, double rho)
{
  mpfr_t p;
  mpfr_init2(p, PREC);
  mpfr_set_d(v, t->c0, MPFR_RNDN);
  for (PetscInt i = 0; i < n; i++) {
    mpfr_set_d(p, t->c[i], MPFR_RNDN);
    mpfr_mul_d(p, p, xi[i], MPFR_RNDN);
    mpfr_add(v, v, p, MPFR_RNDN);
  }
  mpfr_add_d(v, v, rho, MPFR_RNDN);
  mpfr_clear(p);
}

/* does the real value y satisfy the TM property of t at xi? */
static int TMEncloses(PetscInt n, const SRTaylor *t, const double *xi, mpfr_t y)
{
  mpfr_t a;
  int    ok;
  mpfr_init2(a, PREC);
  TMValue(a, n, t, xi, 0.0);
  mpfr_sub(a, y, a, MPFR_RNDN);
  ok = mpfr_cmp_d(a, t->r.lo) >= 0 && mpfr_cmp_d(a, t->r.hi) <= 0;
  mpfr_clear(a);
  return ok;
}

static void test_linear_sound(void **state)
{
  uint64_t ctr   = 1;
  PetscInt fails = 0, checks = 0;
  mpfr_t   y, v;
  mpfr_inits2(PREC, y, v, (mpfr_ptr)0);
  for (PetscInt trial = 0; trial < 400; trial++) {
    const PetscInt n = 1 + trial % 3, m = 1 + (PetscInt)(40 * U(&ctr));
    SRTaylor       t[64], out;
    SRInterval     r[64];
    double         a[64], b = (2 * U(&ctr) - 1) * pow(10.0, 8 * U(&ctr) - 4);
    for (PetscInt j = 0; j < m; j++) {
      t[j] = RandomTM(n, pow(10.0, 16 * U(&ctr) - 8), &ctr);
      a[j] = (2 * U(&ctr) - 1) * pow(10.0, 6 * U(&ctr) - 3);
    }
    if (trial % 5 == 0 && m >= 2) { /* catastrophic cancellation: a t0 - a t0' with t0' = t0 (1 + 2^-50) */
      t[1]    = t[0];
      t[1].c0 = t[0].c0 * (1 + 0x1p-50);
      a[1]    = -a[0];
    }
    for (PetscInt j = 0; j < m; j++)
      r[j] = t[j].r;
    out = SRTaylorLinear(n, m, a, t, b);
    for (PetscInt k = 0; k < NPTS; k++) {
      double xi[SR_MAX_DIM], rho[64];
      SamplePoint(n, k, &ctr, xi, rho, r, m);
      mpfr_set_d(y, b, MPFR_RNDN);
      for (PetscInt j = 0; j < m; j++) {
        TMValue(v, n, &t[j], xi, rho[j]);
        mpfr_mul_d(v, v, a[j], MPFR_RNDN);
        mpfr_add(y, y, v, MPFR_RNDN);
      }
      if (!TMEncloses(n, &out, xi, y)) {
        if (!fails) {
          mpfr_t e;
          mpfr_init2(e, PREC);
          TMValue(e, n, &out, xi, 0.0);
          mpfr_sub(e, y, e, MPFR_RNDN);
          printf("linear trial %" PetscInt_FMT " (n %" PetscInt_FMT ", m %" PetscInt_FMT ", point %" PetscInt_FMT "): residual %.17g outside [%.17g, %.17g]\n", trial, n, m, k, mpfr_get_d(e, MPFR_RNDN), out.r.lo, out.r.hi);
          mpfr_clear(e);
        }
        fails++;
      }
      checks++;
    }
  }
  printf("linear: %" PetscInt_FMT " checks, %" PetscInt_FMT " failures\n", checks, fails);
  assert_int_equal(fails, 0);
  mpfr_clears(y, v, (mpfr_ptr)0);
}

typedef int (*MpfrFun)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

static void CheckFunction(SRTaylor (*op)(PetscInt, SRTaylor), MpfrFun ref, const char *name)
{
  uint64_t ctr   = 2;
  PetscInt fails = 0, checks = 0;
  mpfr_t   v;
  mpfr_init2(v, PREC);
  for (PetscInt trial = 0; trial < 2000; trial++) {
    const PetscInt n = 1 + trial % 3;
    /* argument ranges from 1e-10 to 1e3 wide, centres up to 3 times that */
    const SRTaylor a = RandomTM(n, pow(10.0, 13 * U(&ctr) - 10), &ctr);
    const SRTaylor y = op(n, a);
    for (PetscInt k = 0; k < NPTS; k++) {
      double xi[SR_MAX_DIM], rho;
      SamplePoint(n, k, &ctr, xi, &rho, &a.r, 1);
      TMValue(v, n, &a, xi, rho);
      ref(v, v, MPFR_RNDN);
      fails += !TMEncloses(n, &y, xi, v);
      checks++;
    }
  }
  printf("%s: %" PetscInt_FMT " checks, %" PetscInt_FMT " failures\n", name, checks, fails);
  assert_int_equal(fails, 0);
  mpfr_clear(v);
}

static void test_tanh_sound(void **state) { CheckFunction(SRTaylorTanh, mpfr_tanh, "tanh"); }

static void test_sin_sound(void **state) { CheckFunction(SRTaylorSin, mpfr_sin, "sin"); }

static void test_cos_sound(void **state) { CheckFunction(SRTaylorCos, mpfr_cos, "cos"); }

static void test_range_sound(void **state)
{
  uint64_t ctr   = 3;
  PetscInt fails = 0;
  mpfr_t   v;
  mpfr_init2(v, PREC);
  for (PetscInt trial = 0; trial < 3000; trial++) {
    const PetscInt   n = 1 + trial % 3;
    const SRTaylor   a = RandomTM(n, pow(10.0, 40 * U(&ctr) - 20), &ctr);
    const SRInterval R = SRTaylorRange(n, a);
    for (PetscInt k = 0; k < 16; k++) {
      double xi[SR_MAX_DIM], rho;
      SamplePoint(n, k, &ctr, xi, &rho, &a.r, 1);
      TMValue(v, n, &a, xi, rho);
      fails += !(mpfr_cmp_d(v, R.lo) >= 0 && mpfr_cmp_d(v, R.hi) <= 0);
    }
  }
  assert_int_equal(fails, 0);
  mpfr_clear(v);
}

/* The remainder of a linearised tanh is second order: over x = c + h xi, |r| <= h^2
   (the mean-value form gives rad r <= max|tanh''| (2h) h ~ 0.77 (2h) h / 2 ... <= h^2 with margin),
   and the slope is tanh'(c) h to first order. */
static void test_tanh_second_order(void **state)
{
  const double c = 0.7, d = 1 - tanh(c) * tanh(c);
  for (double h = 1e-2; h >= 1e-8; h /= 10) {
    const SRTaylor x = SRTaylorVariable(1, 0, c, h), y = SRTaylorTanh(1, x);
    const double   rad = 0.5 * (y.r.hi - y.r.lo);
    printf("tanh over %g +- %.0e: slope / (tanh'(c) h) = %.12f, remainder radius / h^2 = %.3f\n", c, h, y.c[0] / (d * h), rad / (h * h));
    assert_true(rad <= h * h + 1e-14); /* + a few ulps of tanh(c): the rounding floor */
    assert_true(fabs(y.c[0] / (d * h) - 1) <= 2 * h);
  }
}

/* SRSystemStepTaylor against the MPFR step at sample points: pendulum and dubins with a
   control TM, toy1d without. */
static void test_system_steps(void **state)
{
  const char *names[3] = { "toy1d", "pendulum", "dubins" };
  uint64_t    ctr      = 4;
  PetscInt    fails    = 0;
  mpfr_t      x[SR_MAX_DIM], u, t, s, y[SR_MAX_DIM];
  for (int i = 0; i < SR_MAX_DIM; i++)
    mpfr_inits2(PREC, x[i], y[i], (mpfr_ptr)0);
  mpfr_inits2(PREC, u, t, s, (mpfr_ptr)0);
  for (int q = 0; q < 3; q++) {
    SRSystem sys;
    assert_int_equal(SRSystemCreate(PETSC_COMM_SELF, names[q], NULL, &sys), 0);
    for (PetscInt trial = 0; trial < 300; trial++) {
      const PetscInt n = sys->n;
      const double   h = pow(10.0, -8 + 8 * U(&ctr));
      SRTaylor       X[SR_MAX_DIM], Uc[1], Y[SR_MAX_DIM];
      for (PetscInt i = 0; i < n; i++)
        X[i] = SRTaylorVariable(n, i, sys->dlo[i] + (sys->dhi[i] - sys->dlo[i]) * U(&ctr), h * (sys->dhi[i] - sys->dlo[i]));
      Uc[0]   = RandomTM(n, 1.0, &ctr);
      Uc[0].r = SRIntervalPoint(0.0);
      assert_int_equal(SRSystemStepTaylor(sys, X, Uc, Y), 0);
      for (PetscInt k = 0; k < 32; k++) {
        double xi[SR_MAX_DIM], rho;
        SamplePoint(n, k, &ctr, xi, &rho, &X[0].r, 1);
        for (PetscInt i = 0; i < n; i++)
          TMValue(x[i], n, &X[i], xi, 0.0);
        TMValue(u, n, &Uc[0], xi, 0.0);
        if (q == 0) { /* a x + b sin(k x) */
          mpfr_mul_d(t, x[0], sys->param[2], MPFR_RNDN);
          mpfr_sin(t, t, MPFR_RNDN);
          mpfr_mul_d(t, t, sys->param[1], MPFR_RNDN);
          mpfr_mul_d(y[0], x[0], sys->param[0], MPFR_RNDN);
          mpfr_add(y[0], y[0], t, MPFR_RNDN);
        } else if (q == 1) { /* w' = w + dt (g sin th - b w + u), th' = th + dt w' */
          mpfr_sin(t, x[0], MPFR_RNDN);
          mpfr_mul_d(t, t, sys->param[0], MPFR_RNDN);
          mpfr_mul_d(s, x[1], sys->param[1], MPFR_RNDN);
          mpfr_sub(t, t, s, MPFR_RNDN);
          mpfr_add(t, t, u, MPFR_RNDN);
          mpfr_mul_d(t, t, sys->dt, MPFR_RNDN);
          mpfr_add(y[1], x[1], t, MPFR_RNDN);
          mpfr_mul_d(t, y[1], sys->dt, MPFR_RNDN);
          mpfr_add(y[0], x[0], t, MPFR_RNDN);
        } else { /* px + v dt cos h, py + v dt sin h, h + dt u */
          mpfr_cos(t, x[2], MPFR_RNDN);
          mpfr_mul_d(t, t, sys->param[0], MPFR_RNDN);
          mpfr_mul_d(t, t, sys->dt, MPFR_RNDN);
          mpfr_add(y[0], x[0], t, MPFR_RNDN);
          mpfr_sin(t, x[2], MPFR_RNDN);
          mpfr_mul_d(t, t, sys->param[0], MPFR_RNDN);
          mpfr_mul_d(t, t, sys->dt, MPFR_RNDN);
          mpfr_add(y[1], x[1], t, MPFR_RNDN);
          mpfr_mul_d(t, u, sys->dt, MPFR_RNDN);
          mpfr_add(y[2], x[2], t, MPFR_RNDN);
        }
        for (PetscInt i = 0; i < n; i++)
          fails += !TMEncloses(n, &Y[i], xi, y[i]);
      }
    }
    assert_int_equal(SRSystemDestroy(&sys), 0);
  }
  assert_int_equal(fails, 0);
  for (int i = 0; i < SR_MAX_DIM; i++)
    mpfr_clears(x[i], y[i], (mpfr_ptr)0);
  mpfr_clears(u, t, s, (mpfr_ptr)0);
}

static void test_nonfinite_propagates(void **state)
{
  SRTaylor a = SRTaylorVariable(2, 0, 0.5, 0.1), b = a;
  a.c[1] = NAN;
  b.r.hi = INFINITY;
  assert_true(SRIntervalIsNaI(SRTaylorRange(2, SRTaylorTanh(2, a))));
  assert_true(SRIntervalIsNaI(SRTaylorRange(2, SRTaylorSin(2, SRTaylorScale(2, 3.0, a)))));
  {
    const SRInterval R = SRTaylorRange(2, SRTaylorAdd(2, b, b));
    assert_true(SRIntervalIsNaI(R) || !isfinite(R.hi));
  }
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_linear_sound),
    cmocka_unit_test(test_tanh_sound),
    cmocka_unit_test(test_sin_sound),
    cmocka_unit_test(test_cos_sound),
    cmocka_unit_test(test_range_sound),
    cmocka_unit_test(test_tanh_second_order),
    cmocka_unit_test(test_system_steps),
    cmocka_unit_test(test_nonfinite_propagates),
  };
  int rc;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "Taylor model tests"));
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return rc;
}
