/* Tests of the plant-backed system (src/model/system_plant.c, src/numerics/expr_eval.c; SPEC §2,
   §16, issue 36 items 1-3).
   Oracles: the C steps, Jacobians, reference controls, interval and Taylor steps the shipped
   files replace (copied here from src/model/system.c and model_taylor.c at baed6f0: the double
   step must equal them bit for bit, the enclosures value for value); the exact
   real step in MPFR (256 bits) at exact points of a cell, for the taylor1 step (every exact
   value inside the Taylor model at its point of the cell); the LQR gain of the closed-form
   pendulum linearisation.  Plant files given as text: the new lines (domain, bound, reference,
   regulate), constants as options, and the one-line refusals.  Serial. */
#include <simreach/base.h>
#include <simreach/random.h>
#include <simreach/system.h>

#include <math.h>
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define CHK(call) assert_int_equal((call), 0)

static const char *const names[] = { "toy1d", "pendulum", "dubins" };

/* ---- the C of baed6f0 (src/model/system.c): the oracle of the double step ---------------- */
static void c_step(SRSystem s, const double *x, const double *u, double *y)
{
  if (!strcmp(s->name, "toy1d")) {
    const double a = s->param[0], b = s->param[1], k = s->param[2];
    y[0]           = a * x[0] + b * sin(k * x[0]);
  } else if (!strcmp(s->name, "pendulum")) {
    const double g = s->param[0], b = s->param[1], dt = s->dt;
    const double w1 = x[1] + dt * (g * sin(x[0]) - b * x[1] + u[0]);
    y[0]            = x[0] + dt * w1;
    y[1]            = w1;
  } else {
    const double v = s->param[0], dt = s->dt;
    y[0]           = x[0] + v * dt * cos(x[2]);
    y[1]           = x[1] + v * dt * sin(x[2]);
    y[2]           = x[2] + dt * u[0];
  }
}

static void c_jacobian(SRSystem s, const double *x, double *Jx, double *Ju)
{
  if (!strcmp(s->name, "toy1d")) {
    Jx[0] = s->param[0] + s->param[1] * s->param[2] * cos(s->param[2] * x[0]);
  } else if (!strcmp(s->name, "pendulum")) {
    const double g = s->param[0], b = s->param[1], dt = s->dt;
    const double dw_dth = dt * g * cos(x[0]), dw_dw = 1.0 - dt * b, dw_du = dt;
    Jx[0] = 1.0 + dt * dw_dth, Jx[1] = dt * dw_dw, Jx[2] = dw_dth, Jx[3] = dw_dw;
    Ju[0] = dt * dw_du, Ju[1] = dw_du;
  } else {
    const double v = s->param[0], dt = s->dt;
    for (int i = 0; i < 9; i++) Jx[i] = 0.0;
    Jx[0] = Jx[4] = Jx[8] = 1.0;
    Jx[2]                 = -v * dt * sin(x[2]);
    Jx[5]                 = v * dt * cos(x[2]);
    Ju[0] = Ju[1] = 0.0, Ju[2] = dt;
  }
}

/* the interval and Taylor steps of baed6f0 (src/model/system.c, src/model/model_taylor.c) */
static void c_interval(SRSystem s, const SRInterval *X, const SRInterval *U, SRInterval *Y)
{
  if (!strcmp(s->name, "toy1d")) {
    const double a = s->param[0], b = s->param[1], k = s->param[2];
    Y[0] = SRIntervalAdd(SRIntervalScale(a, X[0]), SRIntervalScale(b, SRIntervalSin(SRIntervalScale(k, X[0]))));
  } else if (!strcmp(s->name, "pendulum")) {
    const double     g = s->param[0], b = s->param[1], dt = s->dt;
    const SRInterval c1  = SRIntervalSub(SRIntervalPoint(1.0), SRIntervalMul(SRIntervalPoint(dt), SRIntervalPoint(b)));
    const SRInterval dtg = SRIntervalMul(SRIntervalPoint(dt), SRIntervalPoint(g));
    const SRInterval w1  = SRIntervalAdd(SRIntervalAdd(SRIntervalMul(c1, X[1]), SRIntervalMul(dtg, SRIntervalSin(X[0]))), SRIntervalScale(dt, U[0]));
    Y[0]                 = SRIntervalAdd(X[0], SRIntervalScale(dt, w1));
    Y[1]                 = w1;
  } else {
    const double     v = s->param[0], dt = s->dt;
    const SRInterval vdt = SRIntervalMul(SRIntervalPoint(v), SRIntervalPoint(dt));
    Y[0]                 = SRIntervalAdd(X[0], SRIntervalMul(vdt, SRIntervalCos(X[2])));
    Y[1]                 = SRIntervalAdd(X[1], SRIntervalMul(vdt, SRIntervalSin(X[2])));
    Y[2]                 = SRIntervalAdd(X[2], SRIntervalScale(dt, U[0]));
  }
}

static void c_taylor(SRSystem s, const SRTaylor *X, const SRTaylor *U, SRTaylor *Y)
{
  if (!strcmp(s->name, "toy1d")) {
    const double a = s->param[0], b = s->param[1], k = s->param[2];
    Y[0] = SRTaylorAdd(1, SRTaylorScale(1, a, X[0]), SRTaylorScale(1, b, SRTaylorSin(1, SRTaylorScale(1, k, X[0]))));
  } else if (!strcmp(s->name, "pendulum")) {
    const double     g = s->param[0], b = s->param[1], dt = s->dt;
    const SRInterval c1  = SRIntervalSub(SRIntervalPoint(1.0), SRIntervalMul(SRIntervalPoint(dt), SRIntervalPoint(b)));
    const SRInterval dtg = SRIntervalMul(SRIntervalPoint(dt), SRIntervalPoint(g));
    const SRTaylor   w1  = SRTaylorAdd(2, SRTaylorAdd(2, SRTaylorScaleInterval(2, c1, X[1]), SRTaylorScaleInterval(2, dtg, SRTaylorSin(2, X[0]))), SRTaylorScale(2, dt, U[0]));
    Y[0]                 = SRTaylorAdd(2, X[0], SRTaylorScale(2, dt, w1));
    Y[1]                 = w1;
  } else {
    const double     v = s->param[0], dt = s->dt;
    const SRInterval vdt = SRIntervalMul(SRIntervalPoint(v), SRIntervalPoint(dt));
    Y[0]                 = SRTaylorAdd(3, X[0], SRTaylorScaleInterval(3, vdt, SRTaylorCos(3, X[2])));
    Y[1]                 = SRTaylorAdd(3, X[1], SRTaylorScaleInterval(3, vdt, SRTaylorSin(3, X[2])));
    Y[2]                 = SRTaylorAdd(3, X[2], SRTaylorScale(3, dt, U[0]));
  }
}

static void create(const char *name, SRSystem *sys) { assert_int_equal(SRSystemCreate(PETSC_COMM_SELF, name, NULL, sys), 0); }

static void test_double_step_is_the_c_step(void **state)
{
  uint64_t idx = 0;
  for (int r = 0; r < 3; r++) {
    SRSystem sys;
    create(names[r], &sys);
    for (int t = 0; t < 20000; t++) {
      double x[SR_MAX_DIM], u[SR_MAX_DIM] = { 0 }, y[SR_MAX_DIM], yc[SR_MAX_DIM];
      for (int i = 0; i < sys->n; i++) x[i] = 1.5 * SRRandomRange(5, SR_STREAM_TEST, idx++, sys->dlo[i], sys->dhi[i]);
      for (int j = 0; j < sys->nu; j++) u[j] = SRRandomRange(5, SR_STREAM_TEST, idx++, -sys->umax, sys->umax);
      sys->step(sys, x, u, y);
      c_step(sys, x, u, yc);
      assert_memory_equal(y, yc, sizeof(double) * sys->n);
      if (t < 2000 && sys->has_controller) { /* the reference (dubins: an expression) */
        double ur = 99, uc = 0;
        SRSystemReferenceControl(sys, x, &ur);
        for (int i = 0; i < sys->n; i++) uc -= sys->K[i] * x[i];
        uc = fmin(fmax(uc, -sys->umax), sys->umax);
        assert_true(ur == uc);
      }
    }
    { /* the linearisation at the equilibrium, which the LQR gain and the radius come from */
      double x0[SR_MAX_DIM] = { 0 }, u0[SR_MAX_DIM] = { 0 }, Jx[9], Ju[3], Jc[9], Juc[3];
      sys->step_jacobian(sys, x0, u0, Jx, Ju);
      c_jacobian(sys, x0, Jc, Juc);
      /* equal values (a zero may differ in sign: the C wrote -v dt sin(0) = -0) */
      for (int i = 0; i < sys->n * sys->n; i++) assert_true(Jx[i] == Jc[i]);
      for (int i = 0; i < sys->n * sys->nu; i++) assert_true(Ju[i] == Juc[i]);
    }
    CHK(SRSystemDestroy(&sys));
  }
}

/* the interval and taylor1 steps are those of baed6f0, value for value, on random cells */
static void test_enclosures_are_the_c_enclosures(void **state)
{
  uint64_t idx = 0;
  for (int r = 0; r < 3; r++) {
    SRSystem sys;
    create(names[r], &sys);
    for (int box = 0; box < 2000; box++) {
      SRInterval   X[SR_MAX_DIM], U[SR_MAX_DIM] = { { 0, 0 } }, Y[SR_MAX_DIM], Yc[SR_MAX_DIM];
      SRTaylor     XT[SR_MAX_DIM], UT[SR_MAX_DIM], YT[SR_MAX_DIM], YTc[SR_MAX_DIM];
      const double scale = SRRandomUniform(8, SR_STREAM_TEST, idx++) * (box % 2 ? 1 : 0.01);
      for (int i = 0; i < sys->n; i++) {
        const double c = 1.5 * SRRandomRange(8, SR_STREAM_TEST, idx++, sys->dlo[i], sys->dhi[i]), h = scale * 0.5 * (sys->dhi[i] - sys->dlo[i]);
        X[i]           = SRIntervalMake(c - h, c + h);
        XT[i]          = SRTaylorVariable(sys->n, i, c, h);
      }
      for (int j = 0; j < sys->nu; j++) {
        const double a = SRRandomRange(8, SR_STREAM_TEST, idx++, -sys->umax, sys->umax);
        U[j]           = SRIntervalMake(a, a + scale);
        UT[j]          = SRTaylorConstant(sys->n, a);
        UT[j].c[0]     = 0.1 * scale;
        UT[j].r        = SRIntervalMake(-0.01 * scale, 0.01 * scale);
      }
      sys->step_interval(sys, X, U, Y);
      c_interval(sys, X, U, Yc);
      sys->step_taylor(sys, XT, UT, YT);
      c_taylor(sys, XT, UT, YTc);
      for (int i = 0; i < sys->n; i++) {
        assert_true(Y[i].lo == Yc[i].lo && Y[i].hi == Yc[i].hi);
        assert_true(YT[i].c0 == YTc[i].c0 && YT[i].r.lo == YTc[i].r.lo && YT[i].r.hi == YTc[i].r.hi);
        for (int k = 0; k < sys->n; k++) assert_true(YT[i].c[k] == YTc[i].c[k]);
      }
    }
    CHK(SRSystemDestroy(&sys));
  }
}

/* the gain of baed6f0: SRLQRGain on the closed-form linearisation of the pendulum (m = 1) */
static void test_pendulum_gain_is_the_c_gain(void **state)
{
  SRSystem     sys;
  double       A[4], B[2], K[2];
  const double Q[4] = { 1, 0, 0, 1 }, R[1] = { 1 }, x0[2] = { 0, 0 };
  create("pendulum", &sys);
  c_jacobian(sys, x0, A, B);
  CHK(SRLQRGain(2, 1, A, B, Q, R, K));
  assert_memory_equal(K, sys->K, sizeof K);
  CHK(SRSystemDestroy(&sys));
  create("dubins", &sys); /* the expression's gain: -du/dx at 0 */
  assert_true(sys->K[0] == 0 && !signbit(sys->K[0]) && sys->K[1] == 1.5 && sys->K[2] == 2);
  CHK(SRSystemDestroy(&sys));
}

/* y = F(x, u) in MPFR at exact x, u (the constants as the doubles they are, SPEC §2) */
static void step_mpfr(SRSystem s, mpfr_t *x, mpfr_t *u, mpfr_t *y)
{
  mpfr_t t, w;
  mpfr_inits2(256, t, w, (mpfr_ptr)0);
  if (!strcmp(s->name, "toy1d")) {
    mpfr_mul_d(t, x[0], s->param[2], MPFR_RNDN);
    mpfr_sin(t, t, MPFR_RNDN);
    mpfr_mul_d(t, t, s->param[1], MPFR_RNDN);
    mpfr_mul_d(y[0], x[0], s->param[0], MPFR_RNDN);
    mpfr_add(y[0], y[0], t, MPFR_RNDN);
  } else if (!strcmp(s->name, "pendulum")) {
    mpfr_sin(t, x[0], MPFR_RNDN);
    mpfr_mul_d(t, t, s->param[0], MPFR_RNDN);
    mpfr_mul_d(w, x[1], s->param[1], MPFR_RNDN);
    mpfr_sub(t, t, w, MPFR_RNDN);
    mpfr_add(t, t, u[0], MPFR_RNDN);
    mpfr_mul_d(t, t, s->dt, MPFR_RNDN);
    mpfr_add(y[1], t, x[1], MPFR_RNDN);
    mpfr_mul_d(t, y[1], s->dt, MPFR_RNDN);
    mpfr_add(y[0], t, x[0], MPFR_RNDN);
  } else {
    mpfr_cos(w, x[2], MPFR_RNDN);
    mpfr_mul_d(w, w, s->param[0], MPFR_RNDN);
    mpfr_mul_d(w, w, s->dt, MPFR_RNDN);
    mpfr_add(y[0], w, x[0], MPFR_RNDN);
    mpfr_sin(w, x[2], MPFR_RNDN);
    mpfr_mul_d(w, w, s->param[0], MPFR_RNDN);
    mpfr_mul_d(w, w, s->dt, MPFR_RNDN);
    mpfr_add(y[1], w, x[1], MPFR_RNDN);
    mpfr_mul_d(w, u[0], s->dt, MPFR_RNDN);
    mpfr_add(y[2], w, x[2], MPFR_RNDN);
  }
  mpfr_clears(t, w, (mpfr_ptr)0);
}

/* value of the model a at xi (exact in 256 bits) plus the remainder's end e (-1 lo, +1 hi, 0 none) */
static void tm_at(PetscInt n, SRTaylor a, const double *xi, int e, mpfr_t v)
{
  mpfr_t t;
  mpfr_init2(t, 256);
  mpfr_set_d(v, a.c0, MPFR_RNDN);
  for (PetscInt i = 0; i < n; i++) {
    mpfr_set_d(t, a.c[i], MPFR_RNDN);
    mpfr_mul_d(t, t, xi[i], MPFR_RNDN);
    mpfr_add(v, v, t, MPFR_RNDN);
  }
  if (e) mpfr_add_d(v, v, e < 0 ? a.r.lo : a.r.hi, MPFR_RNDN);
  mpfr_clear(t);
}

/* the taylor1 step (and the held one, m = 3) encloses the exact step at every exact point of the
   cell, the control a Taylor model of its own with a remainder (every end of it tried) */
static void test_taylor_step_contains_exact_step(void **state)
{
  uint64_t idx = 0;
  mpfr_t   x[SR_MAX_DIM], u[SR_MAX_DIM], y[SR_MAX_DIM], z[SR_MAX_DIM], lo, hi;
  for (int i = 0; i < SR_MAX_DIM; i++) mpfr_inits2(256, x[i], u[i], y[i], z[i], (mpfr_ptr)0);
  mpfr_inits2(256, lo, hi, (mpfr_ptr)0);
  for (int r = 0; r < 3; r++) {
    SRSystem sys;
    create(names[r], &sys);
    for (int m = 1; m <= 3; m += 2) {
      if (m > 1 && !sys->nu) continue;
      CHK(SRSystemSetControlSteps(PETSC_COMM_SELF, sys, m, PETSC_FALSE));
      for (int box = 0; box < 40; box++) {
        SRTaylor     X[SR_MAX_DIM], U[SR_MAX_DIM], Y[SR_MAX_DIM];
        const double scale = box < 3 ? 1e-6 : SRRandomUniform(6, SR_STREAM_TEST, idx++);
        for (int i = 0; i < sys->n; i++) {
          const double c = 1.5 * SRRandomRange(6, SR_STREAM_TEST, idx++, sys->dlo[i], sys->dhi[i]);
          X[i]           = SRTaylorVariable(sys->n, i, c, scale * 0.5 * (sys->dhi[i] - sys->dlo[i]));
        }
        for (int j = 0; j < sys->nu; j++) {
          U[j] = SRTaylorConstant(sys->n, SRRandomRange(6, SR_STREAM_TEST, idx++, -0.5 * sys->umax, 0.5 * sys->umax));
          for (int i = 0; i < sys->n; i++) U[j].c[i] = 0.1 * scale * SRRandomRange(6, SR_STREAM_TEST, idx++, -1, 1);
          U[j].r = SRIntervalMake(-0.01 * scale, 0.02 * scale);
        }
        SRSystemStepHeldTaylor(sys, X, U, Y);
        for (int smp = 0; smp < 64; smp++) {
          double xi[SR_MAX_DIM];
          for (int i = 0; i < sys->n; i++) xi[i] = smp < 8 ? ((smp >> i) & 1 ? 1.0 : -1.0) : SRRandomRange(7, SR_STREAM_TEST, idx++, -1, 1);
          for (int e = -1; e <= 1; e++) {
            for (int i = 0; i < sys->n; i++) tm_at(sys->n, X[i], xi, 0, x[i]);
            for (int j = 0; j < sys->nu; j++) tm_at(sys->n, U[j], xi, e, u[j]);
            for (int s = 0; s < m; s++) {
              step_mpfr(sys, x, u, y);
              for (int i = 0; i < sys->n; i++) mpfr_set(x[i], y[i], MPFR_RNDN);
            }
            for (int i = 0; i < sys->n; i++) {
              tm_at(sys->n, Y[i], xi, -1, lo);
              tm_at(sys->n, Y[i], xi, 1, hi);
              assert_true(mpfr_cmp(lo, y[i]) <= 0 && mpfr_cmp(y[i], hi) <= 0);
            }
          }
        }
      }
    }
    CHK(SRSystemDestroy(&sys));
  }
  for (int i = 0; i < SR_MAX_DIM; i++) mpfr_clears(x[i], u[i], y[i], z[i], (mpfr_ptr)0);
  mpfr_clears(lo, hi, (mpfr_ptr)0);
}

static PetscErrorCode from_text(const char *text, SRSystem *sys);

/* every operation of the language in a discrete-time plant (no division by an interval holding 0) */
static const char *const plant_allfun = "states p q r\n"
                                        "const k = 0.3\n"
                                        "const two = 2\n"
                                        "outputs 2\n"
                                        "input p\n"
                                        "control u = y1\n"
                                        "control v = y2\n"
                                        "next p = p + 0.1 * (q - k * sin(r) + u * cos(p) / (two + p^2))\n"
                                        "next q = q + 0.1 * (-exp(-p^2) * q + log(2 + q^2) / 4 + sqrt(1 + r^2) - 1) + 0.05 * if(p <= q and not r > 0.5, p, q - r)\n"
                                        "next r = r + 0.1 * (tan(0.2 * p) - tanh(r) + v * r / 100 + (p - q)^3 / 8) - 2 * r / two\n"
                                        "period 0.1\n"
                                        "steps 10\n"
                                        "domain p in [-1, 1]\n"
                                        "domain q in [-1, 1]\n"
                                        "domain r in [-1, 1]\n"
                                        "bound 1\n";

/* the DAG in MPFR, node by node (the arithmetic independent of the library's): a constant is its
   double, which its enclosure contains */
static void dag_mpfr(const SRPlant *pl, mpfr_t *x, mpfr_t *u, mpfr_t *v)
{
  for (int i = 0; i < pl->dag.n; i++) {
    const SRExprNode *d = &pl->dag.node[i];
    mpfr_ptr          a = d->a >= 0 ? v[d->a] : NULL, b = d->b >= 0 ? v[d->b] : NULL;
    switch (d->op) {
    case SR_X_CONST: mpfr_set_d(v[i], d->x, MPFR_RNDN); break;
    case SR_X_VAR:
      if (d->var < pl->n) mpfr_set(v[i], x[d->var], MPFR_RNDN);
      else if (d->var >= SR_SLOT_U(0) && d->var < SR_SLOT_U(pl->nu)) mpfr_set(v[i], u[d->var - SR_SLOT_U(0)], MPFR_RNDN);
      else mpfr_set_d(v[i], 0.0, MPFR_RNDN);
      break;
    case SR_X_ADD: mpfr_add(v[i], a, b, MPFR_RNDN); break;
    case SR_X_SUB: mpfr_sub(v[i], a, b, MPFR_RNDN); break;
    case SR_X_MUL: mpfr_mul(v[i], a, b, MPFR_RNDN); break;
    case SR_X_DIV: mpfr_div(v[i], a, b, MPFR_RNDN); break;
    case SR_X_NEG: mpfr_neg(v[i], a, MPFR_RNDN); break;
    case SR_X_SQR: mpfr_sqr(v[i], a, MPFR_RNDN); break;
    case SR_X_SIN: mpfr_sin(v[i], a, MPFR_RNDN); break;
    case SR_X_COS: mpfr_cos(v[i], a, MPFR_RNDN); break;
    case SR_X_TAN: mpfr_tan(v[i], a, MPFR_RNDN); break;
    case SR_X_EXP: mpfr_exp(v[i], a, MPFR_RNDN); break;
    case SR_X_LOG: mpfr_log(v[i], a, MPFR_RNDN); break;
    case SR_X_SQRT: mpfr_sqrt(v[i], a, MPFR_RNDN); break;
    case SR_X_TANH: mpfr_tanh(v[i], a, MPFR_RNDN); break;
    case SR_X_LE: mpfr_set_d(v[i], mpfr_lessequal_p(a, b) ? 1.0 : 0.0, MPFR_RNDN); break;
    case SR_X_LT: mpfr_set_d(v[i], mpfr_less_p(a, b) ? 1.0 : 0.0, MPFR_RNDN); break;
    case SR_X_IF: mpfr_set(v[i], mpfr_zero_p(a) ? v[d->var] : b, MPFR_RNDN); break;
    }
  }
}

/* a plant of every operation: the interval and taylor1 steps (linear forms) contain the exact
   step at exact points of random cells, the controls Taylor models with remainders */
static void test_every_operation_encloses(void **state)
{
  SRSystem sys;
  uint64_t idx = 0;
  mpfr_t   x[SR_MAX_DIM], u[SR_MAX_DIM], *v, lo, hi;
  CHK(from_text(plant_allfun, &sys));
  v = malloc(sizeof(mpfr_t) * (size_t)sys->plant->dag.n);
  for (int i = 0; i < sys->plant->dag.n; i++) mpfr_init2(v[i], 256);
  for (int i = 0; i < SR_MAX_DIM; i++) mpfr_inits2(256, x[i], u[i], (mpfr_ptr)0);
  mpfr_inits2(256, lo, hi, (mpfr_ptr)0);
  for (int box = 0; box < 300; box++) {
    SRTaylor     X[SR_MAX_DIM], U[SR_MAX_DIM], Y[SR_MAX_DIM];
    SRInterval   XI[SR_MAX_DIM], UI[SR_MAX_DIM], YI[SR_MAX_DIM];
    const double scale = box < 3 ? 1e-6 : SRRandomUniform(9, SR_STREAM_TEST, idx++);
    for (int i = 0; i < sys->n; i++) {
      const double h = scale * 0.5 * (sys->dhi[i] - sys->dlo[i]), c = SRRandomRange(9, SR_STREAM_TEST, idx++, sys->dlo[i] + h, sys->dhi[i] - h);
      X[i]           = SRTaylorVariable(sys->n, i, c, h);
      XI[i]          = SRTaylorRange(sys->n, X[i]);
    }
    for (int j = 0; j < sys->nu; j++) {
      U[j] = SRTaylorConstant(sys->n, SRRandomRange(9, SR_STREAM_TEST, idx++, -0.5, 0.5));
      for (int i = 0; i < sys->n; i++) U[j].c[i] = 0.2 * scale * SRRandomRange(9, SR_STREAM_TEST, idx++, -1, 1);
      U[j].r = SRIntervalMake(-0.01 * scale, 0.03 * scale);
      UI[j]  = SRTaylorRange(sys->n, U[j]);
    }
    sys->step_taylor(sys, X, U, Y);
    sys->step_interval(sys, XI, UI, YI);
    for (int smp = 0; smp < 40; smp++) {
      double xi[SR_MAX_DIM];
      for (int i = 0; i < sys->n; i++) xi[i] = smp < 8 ? ((smp >> i) & 1 ? 1.0 : -1.0) : SRRandomRange(10, SR_STREAM_TEST, idx++, -1, 1);
      for (int e = -1; e <= 1; e++) {
        for (int i = 0; i < sys->n; i++) tm_at(sys->n, X[i], xi, 0, x[i]);
        for (int j = 0; j < sys->nu; j++) tm_at(sys->n, U[j], xi, e, u[j]);
        dag_mpfr(sys->plant, x, u, v);
        for (int i = 0; i < sys->n; i++) {
          mpfr_srcptr y = v[sys->plant->f_root[i]];
          tm_at(sys->n, Y[i], xi, -1, lo);
          tm_at(sys->n, Y[i], xi, 1, hi);
          assert_true(mpfr_cmp(lo, y) <= 0 && mpfr_cmp(y, hi) <= 0);
          assert_true(mpfr_cmp_d(y, YI[i].lo) >= 0 && mpfr_cmp_d(y, YI[i].hi) <= 0);
        }
      }
    }
  }
  for (int i = 0; i < sys->plant->dag.n; i++) mpfr_clear(v[i]);
  free(v);
  for (int i = 0; i < SR_MAX_DIM; i++) mpfr_clears(x[i], u[i], (mpfr_ptr)0);
  mpfr_clears(lo, hi, (mpfr_ptr)0);
  CHK(SRSystemDestroy(&sys));
}

/* reverse mode (SRExprAdjoint) against forward mode (SRExprEvalTangent) and against central
   differences of the double evaluation, on the plant of every operation */
static void test_adjoint_matches_tangent(void **state)
{
  SRSystem       sys;
  uint64_t       idx = 0;
  const SRExpr  *e;
  const SRPlant *pl;
  double         vars[SR_PLANT_NVARS] = { 0 }, *val, *t, *adj;
  int            slot[5];
  CHK(from_text(plant_allfun, &sys));
  pl  = sys->plant;
  e   = &pl->dag;
  val = malloc(sizeof(double) * (size_t)e->n);
  adj = malloc(sizeof(double) * (size_t)e->n);
  t   = malloc(sizeof(double) * (size_t)e->n * 5);
  for (int i = 0; i < 3; i++) slot[i] = i;
  slot[3] = SR_SLOT_U(0), slot[4] = SR_SLOT_U(1);
  for (int trial = 0; trial < 200; trial++) {
    double w[3];
    for (int k = 0; k < 5; k++) vars[slot[k]] = SRRandomRange(11, SR_STREAM_TEST, idx++, -0.9, 0.9);
    for (int i = 0; i < 3; i++) w[i] = SRRandomRange(11, SR_STREAM_TEST, idx++, -1, 1);
    SRExprEvalTangent(e, vars, 5, slot, val, t);
    for (int i = 0; i < e->n; i++) adj[i] = 0;
    for (int i = 0; i < 3; i++) adj[pl->f_root[i]] += w[i];
    SRExprAdjoint(e, val, adj);
    for (int k = 0; k < 5; k++) {
      double fwd = 0, rev = 0, fd, vp[3], vm[3], h = 1e-6;
      for (int i = 0; i < 3; i++) fwd += w[i] * t[pl->f_root[i] * 5 + k];
      for (int i = 0; i < e->n; i++)
        if (e->node[i].op == SR_X_VAR && e->node[i].var == slot[k]) rev += adj[i];
      vars[slot[k]] += h;
      SRExprEvalDouble(e, vars, val);
      for (int i = 0; i < 3; i++) vp[i] = val[pl->f_root[i]];
      vars[slot[k]] -= 2 * h;
      SRExprEvalDouble(e, vars, val);
      for (int i = 0; i < 3; i++) vm[i] = val[pl->f_root[i]];
      vars[slot[k]] += h;
      fd = 0;
      for (int i = 0; i < 3; i++) fd += w[i] * (vp[i] - vm[i]) / (2 * h);
      assert_true(fabs(fwd - rev) <= 1e-12 * (1 + fabs(fwd)));
      assert_true(fabs(fwd - fd) <= 1e-6 * (1 + fabs(fwd)));
    }
  }
  free(val), free(adj), free(t);
  CHK(SRSystemDestroy(&sys));
}

static const char *const plant_ok = "states p q\n"
                                    "const k = 0.5\n"
                                    "const dt = 0.1\n"
                                    "outputs 1\n"
                                    "input p\n"
                                    "input q\n"
                                    "control u = y1\n"
                                    "next p = p + dt * q\n"
                                    "next q = q + dt * (k * sin(p) + u)\n"
                                    "period 0.1\n"
                                    "steps 10\n"
                                    "domain p in [-1, 2 * 0.5]\n"
                                    "domain q in [-(1 + 1), 2]\n"
                                    "bound 3\n"
                                    "reference lqr\n";

static PetscErrorCode from_text(const char *text, SRSystem *sys)
{
  PetscErrorCode ierr;
  CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SRSystemCreateFromPlantText(PETSC_COMM_SELF, "plant", "test.txt", text, NULL, sys);
  CHK(PetscPopErrorHandler());
  return ierr;
}

static void test_plant_file_system(void **state)
{
  SRSystem sys;
  double   x[2] = { 0.3, -0.2 }, u[1] = { 0.5 }, y[2], A[4], B[2], K[2];
  CHK(from_text(plant_ok, &sys));
  assert_true(sys->n == 2 && sys->nu == 1 && sys->umax == 3 && sys->dt == 0.1 && sys->has_controller);
  assert_true(sys->dlo[0] == -1 && sys->dhi[0] == 1 && sys->dlo[1] == -2 && sys->dhi[1] == 2);
  assert_true(sys->param[0] == 0.5 && sys->nreg == 2 && sys->ref_rho < 1);
  sys->step(sys, x, u, y);
  assert_true(y[1] == 0.3 * 0 + (-0.2 + 0.1 * (0.5 * sin(0.3) + 0.5)) && y[0] == 0.3 + 0.1 * -0.2);
  { /* the gain is the LQR gain of the linearisation at 0 */
    const double Q[4] = { 1, 0, 0, 1 }, R[1] = { 1 };
    SRSystemHeldLinearisation(sys, A, B);
    assert_true(A[0] == 1 && A[1] == 0.1 && A[2] == 0.1 * 0.5 && A[3] == 1 && B[0] == 0 && B[1] == 0.1);
    CHK(SRLQRGain(2, 1, A, B, Q, R, K));
    assert_memory_equal(K, sys->K, sizeof K);
  }
  CHK(SRSystemDestroy(&sys));
  /* a constant as an option: -plant_k */
  CHK(PetscOptionsSetValue(NULL, "-plant_k", "2"));
  CHK(from_text(plant_ok, &sys));
  CHK(PetscOptionsClearValue(NULL, "-plant_k"));
  assert_true(sys->param[0] == 2);
  sys->step(sys, x, u, y);
  assert_true(y[1] == -0.2 + 0.1 * (2 * sin(0.3) + 0.5));
  /* a stored constant adopted: the plant follows */
  sys->param[0] = 0.25;
  CHK(SRSystemRebuild(PETSC_COMM_SELF, sys));
  sys->step(sys, x, u, y);
  assert_true(y[1] == -0.2 + 0.1 * (0.25 * sin(0.3) + 0.5));
  CHK(SRSystemDestroy(&sys));
}

/* each refusal is one line naming the file and what is missing */
static void test_plant_file_refusals(void **state)
{
  static const struct {
    const char *from, *to, *says, *more; /* more: appended */
  } bad[] = {
    { "domain p in [-1, 2 * 0.5]\n", "", "no 'domain p", NULL },
    { "bound 3\n", "", "no 'bound", NULL },
    { "bound 3\n", "bound -3\n", "must be > 0", NULL },
    { "domain q in [-(1 + 1), 2]\n", "domain q in [2, -2]\n", "is empty", NULL },
    { "domain q in [-(1 + 1), 2]\n", "domain r in [0, 1]\n", "'r' is not a state", NULL },
    { "domain q in [-(1 + 1), 2]\n", "domain q in [q, 1]\n", "not allowed", NULL },
    { "reference lqr\n", "reference v = p\n", "expected 'lqr' or a control name", NULL },
    { "reference lqr\n", "reference u = y1\n", "not allowed", NULL },
    { "control u = y1\n", "control u = y1\ndisturbance d in [0, 1]\n", "disturbance 'd'", NULL },
    /* SR_MAX_DIM = 6 (issue 36; a continuous-time plant is taken since the validated period, src/model/system_ode.c) */
    { "states p q\n", "states p q r s t v w\n", "at most 6", "next r = r\nnext s = s\nnext t = t\nnext v = v\nnext w = w\ndomain r in [0, 1]\ndomain s in [0, 1]\ndomain t in [0, 1]\ndomain v in [0, 1]\ndomain w in [0, 1]\n" },
  };
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
    char           text[2048], *at, *specific = NULL;
    const char    *msg;
    SRSystem       sys = NULL;
    PetscErrorCode ierr;
    at              = strstr(plant_ok, bad[b].from);
    assert_non_null(at);
    snprintf(text, sizeof text, "%.*s%s%s%s", (int)(at - plant_ok), plant_ok, bad[b].to, at + strlen(bad[b].from), bad[b].more ? bad[b].more : "");
    ierr = from_text(text, &sys);
    assert_int_not_equal(ierr, 0);
    assert_null(sys);
    CHK(PetscErrorMessage(ierr, &msg, &specific));
    assert_non_null(specific);
    if (!strstr(specific, bad[b].says) || strchr(specific, '\n')) print_error("refusal %zu: '%s' does not say '%s' in one line\n", b, specific, bad[b].says);
    assert_non_null(strstr(specific, bad[b].says));
    assert_null(strchr(specific, '\n'));
  }
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_double_step_is_the_c_step),
    cmocka_unit_test(test_pendulum_gain_is_the_c_gain),
    cmocka_unit_test(test_enclosures_are_the_c_enclosures),
    cmocka_unit_test(test_taylor_step_contains_exact_step),
    cmocka_unit_test(test_plant_file_system),
    cmocka_unit_test(test_plant_file_refusals),
    cmocka_unit_test(test_every_operation_encloses),
    cmocka_unit_test(test_adjoint_matches_tangent),
  };
  int rc;
  if (PetscInitialize(&argc, &argv, NULL, NULL)) return 1;
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  if (PetscFinalize()) return 1;
  return rc;
}
