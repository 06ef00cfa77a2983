/* Tests of the systems of SPEC §2, the shipped plant files (src/model/system.c, system_plant.c).
   Oracles: central finite differences with Richardson extrapolation for the Jacobians, the
   exact real step evaluated in MPFR (256 bits) for the interval step, the closed-form scalar
   DARE, and the Lyapunov / DARE residuals and the eigenvalues of A - BK computed here from the
   SPEC formulae.  Serial. */
#include <simreach/base.h>
#include <simreach/random.h>
#include <simreach/system.h>

#include <math.h>
#include <mpfr.h>
#include <string.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include "jobs_dir.h"

#define CHK(call) assert_int_equal((call), 0)

static const char *const names[] = { "toy1d", "pendulum", "dubins" };

static void create(const char *name, SRSystem *sys) { assert_int_equal(SRSystemCreate(PETSC_COMM_SELF, name, NULL, sys), 0); }

static void test_unknown_name_is_an_error(void **state)
{
  SRSystem       sys = NULL;
  PetscErrorCode ierr;
  const char    *text, *specific = NULL;

  CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SRSystemCreate(PETSC_COMM_SELF, "cartpole", NULL, &sys);
  CHK(PetscPopErrorHandler());
  assert_int_not_equal(ierr, 0);
  assert_null(sys);
  CHK(PetscErrorMessage(ierr, &text, (char **)&specific));
  if (specific) assert_non_null(strstr(specific, "toy1d, pendulum, dubins"));
}

static void test_defaults_and_options(void **state)
{
  SRSystem sys;

  create("pendulum", &sys);
  assert_true(sys->n == 2 && sys->nu == 1 && sys->has_controller);
  assert_true(sys->param[0] == 9.81 && sys->param[1] == 0.1 && sys->dt == 0.05 && sys->umax == 8);
  assert_true(sys->dlo[0] == -1 && sys->dhi[0] == 1 && sys->dlo[1] == -2 && sys->dhi[1] == 2);
  CHK(SRSystemDestroy(&sys));
  assert_null(sys);
  create("dubins", &sys);
  assert_true(sys->n == 3 && sys->param[0] == 1 && sys->dt == 0.1 && sys->umax == 1);
  assert_true(sys->K[0] == 0 && sys->K[1] == 1.5 && sys->K[2] == 2);
  assert_true(fabs(sys->dhi[2] - 2 * atan(1.0)) < 1e-15 && sys->dlo[2] == -sys->dhi[2]);
  CHK(SRSystemDestroy(&sys));
  create("toy1d", &sys);
  assert_true(sys->n == 1 && sys->nu == 0 && !sys->has_controller);
  assert_true(sys->param[0] == 0.9 && sys->param[1] == 0.25 && sys->param[2] == 3);
  CHK(SRSystemDestroy(&sys));

  CHK(PetscOptionsSetValue(NULL, "-t_pendulum_g", "5"));
  CHK(PetscOptionsSetValue(NULL, "-t_dubins_v", "2.5"));
  assert_int_equal(SRSystemCreate(PETSC_COMM_SELF, "pendulum", "t_", &sys), 0);
  assert_true(sys->param[0] == 5);
  CHK(SRSystemDestroy(&sys));
  assert_int_equal(SRSystemCreate(PETSC_COMM_SELF, "dubins", "t_", &sys), 0);
  assert_true(sys->param[0] == 2.5);
  CHK(SRSystemDestroy(&sys));
  CHK(PetscOptionsClearValue(NULL, "-t_pendulum_g"));
  CHK(PetscOptionsClearValue(NULL, "-t_dubins_v"));

  /* a bad constant names the option */
  PetscErrorCode ierr;
  CHK(PetscOptionsSetValue(NULL, "-t_pendulum_dt", "-1"));
  CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SRSystemCreate(PETSC_COMM_SELF, "pendulum", "t_", &sys);
  CHK(PetscPopErrorHandler());
  CHK(PetscOptionsClearValue(NULL, "-t_pendulum_dt"));
  assert_int_not_equal(ierr, 0);
}

/* Richardson-extrapolated central difference: error O(h^4) */
static double fd(double (*g)(SRSystem, const double *, const double *, int, int, double), SRSystem s, const double *x, const double *u, int wrt, int out, double h)
{
  const double d1 = (g(s, x, u, wrt, out, h) - g(s, x, u, wrt, out, -h)) / (2 * h);
  const double d2 = (g(s, x, u, wrt, out, h / 2) - g(s, x, u, wrt, out, -h / 2)) / h;
  return (4 * d2 - d1) / 3;
}

/* component out of F(x + t e_wrt, u) (wrt < n) or F(x, u + t e_0) (wrt == n) */
static double shifted(SRSystem s, const double *x, const double *u, int wrt, int out, double t)
{
  double xx[SR_MAX_DIM], uu[SR_MAX_DIM] = { 0 }, y[SR_MAX_DIM];
  for (int i = 0; i < s->n; i++)
    xx[i] = x[i];
  for (int i = 0; i < s->nu; i++)
    uu[i] = u[i];
  if (wrt < s->n)
    xx[wrt] += t;
  else
    uu[wrt - s->n] += t;
  s->step(s, xx, uu, y);
  return y[out];
}

static void test_jacobians_match_finite_differences(void **state)
{
  uint64_t idx = 0;
  for (int r = 0; r < 3; r++) {
    SRSystem sys;
    create(names[r], &sys);
    for (int trial = 0; trial < 50; trial++) {
      double x[SR_MAX_DIM], u[SR_MAX_DIM] = { 0 }, Jx[SR_MAX_DIM * SR_MAX_DIM], Ju[SR_MAX_DIM * SR_MAX_DIM];
      for (int i = 0; i < sys->n; i++)
        x[i] = SRRandomRange(1, SR_STREAM_TEST, idx++, sys->dlo[i], sys->dhi[i]);
      for (int i = 0; i < sys->nu; i++)
        u[i] = SRRandomRange(1, SR_STREAM_TEST, idx++, -sys->umax, sys->umax);
      sys->step_jacobian(sys, x, u, Jx, sys->nu ? Ju : NULL);
      for (int o = 0; o < sys->n; o++) {
        for (int w = 0; w < sys->n + sys->nu; w++) {
          const double exact  = w < sys->n ? Jx[o * sys->n + w] : Ju[o * sys->nu + (w - sys->n)];
          const double approx = fd(shifted, sys, x, u, w, o, 1e-3);
          assert_true(fabs(exact - approx) <= 1e-9 + 1e-7 * fabs(approx));
        }
      }
    }
    CHK(SRSystemDestroy(&sys));
  }
}

/* the exact real step at the double inputs x, u, rounded to 256 bits (SPEC 2 formulae) */
static void step_mpfr(SRSystem s, const double *x, const double *u, mpfr_t *y)
{
  mpfr_t t, w;
  mpfr_inits2(256, t, w, (mpfr_ptr)0);
  if (!strcmp(s->name, "toy1d")) {
    mpfr_set_d(t, s->param[2], MPFR_RNDN);
    mpfr_mul_d(t, t, x[0], MPFR_RNDN);
    mpfr_sin(t, t, MPFR_RNDN);
    mpfr_mul_d(t, t, s->param[1], MPFR_RNDN);
    mpfr_set_d(y[0], s->param[0], MPFR_RNDN);
    mpfr_mul_d(y[0], y[0], x[0], MPFR_RNDN);
    mpfr_add(y[0], y[0], t, MPFR_RNDN);
  } else if (!strcmp(s->name, "pendulum")) {
    /* w' = w + dt (g sin th - b w + u), th' = th + dt w' */
    mpfr_set_d(t, x[0], MPFR_RNDN);
    mpfr_sin(t, t, MPFR_RNDN);
    mpfr_mul_d(t, t, s->param[0], MPFR_RNDN);
    mpfr_set_d(w, s->param[1], MPFR_RNDN);
    mpfr_mul_d(w, w, x[1], MPFR_RNDN);
    mpfr_sub(t, t, w, MPFR_RNDN);
    mpfr_add_d(t, t, u[0], MPFR_RNDN);
    mpfr_mul_d(t, t, s->dt, MPFR_RNDN);
    mpfr_add_d(y[1], t, x[1], MPFR_RNDN);
    mpfr_mul_d(t, y[1], s->dt, MPFR_RNDN);
    mpfr_add_d(y[0], t, x[0], MPFR_RNDN);
  } else {
    mpfr_set_d(t, x[2], MPFR_RNDN);
    mpfr_cos(w, t, MPFR_RNDN);
    mpfr_mul_d(w, w, s->param[0], MPFR_RNDN);
    mpfr_mul_d(w, w, s->dt, MPFR_RNDN);
    mpfr_add_d(y[0], w, x[0], MPFR_RNDN);
    mpfr_sin(w, t, MPFR_RNDN);
    mpfr_mul_d(w, w, s->param[0], MPFR_RNDN);
    mpfr_mul_d(w, w, s->dt, MPFR_RNDN);
    mpfr_add_d(y[1], w, x[1], MPFR_RNDN);
    mpfr_set_d(w, s->dt, MPFR_RNDN);
    mpfr_mul_d(w, w, u[0], MPFR_RNDN);
    mpfr_add_d(y[2], w, x[2], MPFR_RNDN);
  }
  mpfr_clears(t, w, (mpfr_ptr)0);
}

static void test_interval_step_contains_exact_step(void **state)
{
  uint64_t idx = 0;
  mpfr_t   y[SR_MAX_DIM];
  for (int i = 0; i < SR_MAX_DIM; i++)
    mpfr_init2(y[i], 256);
  for (int r = 0; r < 3; r++) {
    SRSystem sys;
    create(names[r], &sys);
    for (int box = 0; box < 60; box++) {
      SRInterval X[SR_MAX_DIM], U[SR_MAX_DIM] = { { 0, 0 } }, Y[SR_MAX_DIM];
      /* random boxes over 1.5 x the domain, from points (width 0) to the whole domain */
      const double scale = box < 5 ? 0.0 : SRRandomUniform(2, SR_STREAM_TEST, idx++);
      for (int i = 0; i < sys->n; i++) {
        const double c = 1.5 * SRRandomRange(2, SR_STREAM_TEST, idx++, sys->dlo[i], sys->dhi[i]);
        const double h = scale * (sys->dhi[i] - sys->dlo[i]) * 0.5;
        X[i]           = SRIntervalMake(c - h, c + h);
      }
      for (int i = 0; i < sys->nu; i++) {
        const double a = SRRandomRange(2, SR_STREAM_TEST, idx++, -sys->umax, sys->umax);
        const double b = box < 5 ? a : SRRandomRange(2, SR_STREAM_TEST, idx++, -sys->umax, sys->umax);
        U[i]           = SRIntervalMake(fmin(a, b), fmax(a, b));
      }
      sys->step_interval(sys, X, U, Y);
      for (int i = 0; i < sys->n; i++)
        assert_true(SRIntervalIsBounded(Y[i]));
      for (int smp = 0; smp < 200; smp++) {
        double x[SR_MAX_DIM], u[SR_MAX_DIM] = { 0 }, yp[SR_MAX_DIM];
        for (int i = 0; i < sys->n; i++) {
          /* corners first, then interior points */
          x[i] = smp < 8 ? ((smp >> i) & 1 ? X[i].hi : X[i].lo) : SRRandomRange(3, SR_STREAM_TEST, idx++, X[i].lo, X[i].hi + (X[i].hi == X[i].lo ? 1e-300 : 0));
          if (x[i] > X[i].hi) x[i] = X[i].hi;
        }
        for (int i = 0; i < sys->nu; i++)
          u[i] = smp % 3 == 0 ? U[i].lo : (smp % 3 == 1 ? U[i].hi : 0.5 * (U[i].lo + U[i].hi));
        step_mpfr(sys, x, u, y);
        sys->step(sys, x, u, yp);
        for (int i = 0; i < sys->n; i++) {
          assert_true(mpfr_cmp_d(y[i], Y[i].lo) >= 0 && mpfr_cmp_d(y[i], Y[i].hi) <= 0);
          assert_true(fabs(mpfr_get_d(y[i], MPFR_RNDN) - yp[i]) <= 1e-14 * (1 + fabs(yp[i])));
        }
      }
    }
    CHK(SRSystemDestroy(&sys));
  }
  for (int i = 0; i < SR_MAX_DIM; i++)
    mpfr_clear(y[i]);
}

static void test_reference_controller_clips(void **state)
{
  SRSystem     sys;
  const double xs[4][3] = { { 0, 0.1, 0.2 }, { 0, 1, 1.5 }, { 0, -1, -1.5 }, { 1.5, 0.2, -0.1 } };
  create("dubins", &sys);
  for (int t = 0; t < 4; t++) {
    double       u   = 99, y[3];
    const double lin = -1.5 * xs[t][1] - 2 * xs[t][2];
    SRSystemReferenceControl(sys, xs[t], &u);
    assert_true(u == fmin(fmax(lin, -1.0), 1.0));
    SRSystemReferenceStep(sys, xs[t], y);
    assert_true(fabs(y[2] - (xs[t][2] + 0.1 * u)) < 1e-15);
  }
  CHK(SRSystemDestroy(&sys));
  create("pendulum", &sys);
  {
    const double big[2] = { 1, 2 }, small[2] = { 0.01, -0.02 };
    double       u;
    SRSystemReferenceControl(sys, big, &u);
    assert_true(fabs(u) == 8);
    SRSystemReferenceControl(sys, small, &u);
    assert_true(fabs(u + sys->K[0] * small[0] + sys->K[1] * small[1]) < 1e-15);
  }
  CHK(SRSystemDestroy(&sys));
  create("toy1d", &sys);
  {
    const double x = 0.7;
    double       y;
    SRSystemReferenceStep(sys, &x, &y);
    assert_true(fabs(y - (0.9 * x + 0.25 * sin(3 * x))) < 1e-15);
  }
  CHK(SRSystemDestroy(&sys));
}

/* scalar DARE: b^2 p^2 + (r - q b^2 - a^2 r) p - q r = 0, k = a b p / (r + b^2 p) */
static void test_lqr_scalar_closed_form(void **state)
{
  const double cases[3][4] = { { 1.2, 0.5, 1, 1 }, { 0.5, 1, 2, 0.1 }, { -3, 2, 1, 5 } };
  for (int t = 0; t < 3; t++) {
    const double a = cases[t][0], b = cases[t][1], q = cases[t][2], r = cases[t][3];
    const double B2 = b * b, C = r - q * B2 - a * a * r;
    const double p    = (-C + sqrt(C * C + 4 * B2 * q * r)) / (2 * B2);
    const double kexp = a * b * p / (r + B2 * p);
    double       k;
    assert_int_equal(SRLQRGain(1, 1, &a, &b, &q, &r, &k), 0);
    assert_true(fabs(k - kexp) <= 1e-10 * fabs(kexp));
  }
}

static void test_pendulum_lqr_gain(void **state)
{
  SRSystem sys;
  create("pendulum", &sys);
  const double g = sys->param[0], b = sys->param[1], dt = sys->dt, *K = sys->K;
  /* linearisation of the semi-implicit Euler step at the upright equilibrium, from SPEC 2 */
  const double A[2][2] = { { 1 + dt * dt * g, dt * (1 - dt * b) }, { dt * g, 1 - dt * b } }, B[2] = { dt * dt, dt };
  double       Acl[2][2], P[2][2]                                                                 = { { 0, 0 }, { 0, 0 } };
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      Acl[i][j] = A[i][j] - B[i] * K[j];
  /* eigenvalues of the 2 x 2 closed loop from trace and determinant */
  const double tr = Acl[0][0] + Acl[1][1], det = Acl[0][0] * Acl[1][1] - Acl[0][1] * Acl[1][0], disc = tr * tr / 4 - det;
  const double rho = disc >= 0 ? fmax(fabs(tr / 2 + sqrt(disc)), fabs(tr / 2 - sqrt(disc))) : sqrt(det);
  assert_true(rho < 1);
  /* the open loop is unstable, so K does something */
  assert_true(A[0][0] + A[1][1] > 2);
  /* P from the closed-loop Lyapunov equation P = Acl^T P Acl + Q + K^T R K, by fixed point */
  for (int it = 0; it < 20000; it++) {
    double Pn[2][2];
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) {
        double t = (i == j) + K[i] * K[j];
        for (int k = 0; k < 2; k++)
          for (int l = 0; l < 2; l++)
            t += Acl[k][i] * P[k][l] * Acl[l][j];
        Pn[i][j] = t;
      }
    memcpy(P, Pn, sizeof(P));
  }
  /* optimality: K = (R + B^T P B)^{-1} B^T P A, and P solves the DARE */
  double S = 1, G[2] = { 0, 0 }, pnorm = 0, res = 0;
  for (int k = 0; k < 2; k++)
    for (int l = 0; l < 2; l++)
      S += B[k] * P[k][l] * B[l];
  for (int j = 0; j < 2; j++)
    for (int k = 0; k < 2; k++)
      for (int l = 0; l < 2; l++)
        G[j] += B[k] * P[k][l] * A[l][j];
  for (int j = 0; j < 2; j++)
    assert_true(fabs(K[j] - G[j] / S) <= 1e-9 * fabs(G[j] / S));
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      double t = (i == j) - G[i] * G[j] / S;
      for (int k = 0; k < 2; k++)
        for (int l = 0; l < 2; l++)
          t += A[k][i] * P[k][l] * A[l][j];
      res   = fmax(res, fabs(t - P[i][j]));
      pnorm = fmax(pnorm, fabs(P[i][j]));
    }
  assert_true(res <= 1e-10 * pnorm);
  CHK(SRSystemDestroy(&sys));
}

/* SPEC §2: the pendulum's gain is the LQR gain of the held map (-control_steps m), and the
   reference closed loop's regulated part is Schur stable.  Oracles: the held map composed here
   from the SPEC formulae, its DARE residual, and figures from scipy.linalg.solve_discrete_are
   (K = [11.8831251, 3.44872951], moduli 0.26604036, 0.15801807 at m = 10); Dubins in closed form. */
static void test_held_reference(void **state)
{
  SRSystem sys;
  create("pendulum", &sys);
  CHK(SRSystemSetControlSteps(PETSC_COMM_SELF, sys, 10, PETSC_TRUE));
  {
    const double g = sys->param[0], b = sys->param[1], dt = sys->dt, *K = sys->K;
    const double A1[2][2] = { { 1 + dt * dt * g, dt * (1 - dt * b) }, { dt * g, 1 - dt * b } }, B1[2] = { dt * dt, dt };
    double       A[2][2] = { { 1, 0 }, { 0, 1 } }, B[2] = { 0, 0 }, Acl[4];
    for (int s = 0; s < 10; s++) { /* x_{s+1} = A1 x_s + B1 u: A <- A1 A, B <- A1 B + B1 */
      double An[2][2], Bn[2];
      for (int i = 0; i < 2; i++) {
        Bn[i] = B1[i];
        for (int j = 0; j < 2; j++) {
          An[i][j] = 0;
          for (int k = 0; k < 2; k++) An[i][j] += A1[i][k] * A[k][j];
          Bn[i] += A1[i][j] * B[j];
        }
      }
      memcpy(A, An, sizeof(A));
      memcpy(B, Bn, sizeof(B));
    }
    assert_true(fabs(K[0] - 11.8831251) < 1e-6 && fabs(K[1] - 3.44872951) < 1e-6);
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) Acl[2 * i + j] = A[i][j] - B[i] * K[j];
    assert_true(fabs(sys->ref_rho - 0.26604036) < 1e-6);
    {
      double rho;
      CHK(SRSpectralRadius(2, Acl, &rho));
      assert_true(fabs(rho - sys->ref_rho) < 1e-12);
    }
    /* the one-step gain held for 10 steps is what issue 21 measured: modulus 2.21, unstable */
    CHK(SRSystemSetControlSteps(PETSC_COMM_SELF, sys, 1, PETSC_TRUE));
    {
      const double K1[2] = { sys->K[0], sys->K[1] };
      double       rho;
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) Acl[2 * i + j] = A[i][j] - B[i] * K1[j];
      CHK(SRSpectralRadius(2, Acl, &rho));
      assert_true(fabs(rho - 2.20978867) < 1e-6);
    }
  }
  CHK(SRSystemDestroy(&sys));
  /* Dubins at m = 10: (py, h) closed loop [[1 - 0.45 * 1.5, 1 - 0.45 * 2], [-1.5, -1]], eigenvalues 0.2, -0.875 */
  create("dubins", &sys);
  CHK(SRSystemSetControlSteps(PETSC_COMM_SELF, sys, 10, PETSC_TRUE));
  assert_true(fabs(sys->ref_rho - 0.875) < 1e-12);
  {
    PetscErrorCode ierr;
    const char    *text, *specific = NULL;
    CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SRSystemSetControlSteps(PETSC_COMM_SELF, sys, 20, PETSC_TRUE);
    CHK(PetscPopErrorHandler());
    assert_int_equal(ierr, PETSC_ERR_ARG_OUTOFRANGE); /* exit 2 */
    CHK(PetscErrorMessage(ierr, &text, (char **)&specific));
    assert_non_null(specific);
    assert_non_null(strstr(specific, "spectral radius 4.8"));
    CHK(SRSystemSetControlSteps(PETSC_COMM_SELF, sys, 20, PETSC_FALSE)); /* recorded, not refused */
    assert_true(sys->ref_rho > 1);
  }
  CHK(SRSystemDestroy(&sys));
  {
    const double A3[9] = { 0.5, 1, 0, 0, -0.7, 2, 0, 0, 0.1 }; /* triangular: rho = 0.7 */
    double       rho;
    CHK(SRSpectralRadius(3, A3, &rho));
    assert_true(fabs(rho - 0.7) < 1e-9);
  }
}

/* Every shipped options file (jobs, *.opts) names a system whose reference closed loop is
   stable (SPEC §2): the system is created from the file's options, as the commands do. */
static const char *jobs_dir = NULL;
static void test_shipped_options_files(void **state)
{
  DIR           *d;
  struct dirent *e;
  int            nfiles = 0, nctl = 0;

  if (!jobs_dir) skip();
  d = opendir(jobs_dir);
  assert_non_null(d);
  while ((e = readdir(d))) {
    const size_t  len = strlen(e->d_name);
    char          path[PETSC_MAX_PATH_LEN], sysname[16] = "";
    PetscOptions  opts;
    SRSystem      sys;
    PetscBool     set;
    if (len < 6 || strcmp(e->d_name + len - 5, ".opts")) continue;
    CHK(PetscSNPrintf(path, sizeof(path), "%s/%s", jobs_dir, e->d_name));
    CHK(PetscOptionsCreate(&opts));
    CHK(PetscOptionsInsertFile(PETSC_COMM_SELF, opts, path, PETSC_TRUE));
    CHK(PetscOptionsGetString(opts, NULL, "-sys", sysname, sizeof(sysname), &set));
    assert_true(set);
    CHK(PetscOptionsPush(opts));
    assert_int_equal(SRSystemCreate(PETSC_COMM_SELF, sysname, NULL, &sys), 0);
    CHK(PetscOptionsPop());
    CHK(PetscOptionsDestroy(&opts));
    if (sys->has_controller) {
      assert_true(sys->ref_rho > 0 && sys->ref_rho < 1);
      nctl++;
    }
    CHK(PetscPrintf(PETSC_COMM_SELF, "%s: -sys %s -control_steps %" PetscInt_FMT ": reference spectral radius %.4f\n", e->d_name, sysname, sys->control_steps, sys->ref_rho));
    CHK(SRSystemDestroy(&sys));
    nfiles++;
  }
  closedir(d);
  assert_true(nfiles >= 8 && nctl >= 5);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_unknown_name_is_an_error),
    cmocka_unit_test(test_defaults_and_options),
    cmocka_unit_test(test_jacobians_match_finite_differences),
    cmocka_unit_test(test_interval_step_contains_exact_step),
    cmocka_unit_test(test_reference_controller_clips),
    cmocka_unit_test(test_lqr_scalar_closed_form),
    cmocka_unit_test(test_pendulum_lqr_gain),
    cmocka_unit_test(test_held_reference),
    cmocka_unit_test(test_shipped_options_files),
  };
  int fails;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SRTestJobsDir(&jobs_dir));
  fails = cmocka_run_group_tests_name("system", tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
