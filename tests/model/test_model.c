/* Tests of the MLP and the model (src/model/mlp.c, src/model/model.c, SPEC §3, §7 interval).
   Oracles: MPFR (128 bits) evaluation of N and f written here from the SPEC formulae, central
   finite differences with Richardson extrapolation for every gradient, the Glorot bound, and
   closed-form task losses at zero weights.  Serial. */
#include <simreach/base.h>
#include <simreach/model.h>
#include <simreach/random.h>
#include <simreach/system.h>

#include <math.h>
#include <mpfr.h>
#include <string.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define CHK(call) assert_int_equal((call), 0)
#define PREC 128
#define MAXW 32

static const PetscInt hidden[2] = { 6, 5 };

/* combos: (system, type) */
static const char *const csys[]  = { "toy1d", "pendulum", "dubins", "pendulum", "dubins" };
static const SRModelType ctype[] = { SR_MODEL_DYNAMICS, SR_MODEL_DYNAMICS, SR_MODEL_DYNAMICS, SR_MODEL_CONTROLLER, SR_MODEL_CONTROLLER };
#define NCOMBO 5

/* weights from the seed plus random biases, so every parameter matters */
static void randomize(SRMLP mlp, uint64_t seed)
{
  CHK(SRMLPInitialize(mlp, seed));
  for (PetscInt l = 0; l < mlp->nlayers; l++)
    for (PetscInt k = 0; k < mlp->width[l + 1]; k++)
      mlp->params[mlp->boff[l] + k] = SRRandomRange(seed, SR_STREAM_TEST, 1000 + mlp->boff[l] + k, -0.5, 0.5);
}

/* N(x) in MPFR from the layout of model.h: z = W a + b, tanh on hidden layers */
static void mlp_mpfr(SRMLP mlp, const double *x, mpfr_t *out)
{
  mpfr_t a[MAXW], z[MAXW], t;
  mpfr_init2(t, PREC);
  for (int j = 0; j < MAXW; j++) {
    mpfr_init2(a[j], PREC);
    mpfr_init2(z[j], PREC);
  }
  for (PetscInt j = 0; j < mlp->width[0]; j++) {
    mpfr_set_d(a[j], mlp->has_in ? PetscMin(PetscMax(x[j], mlp->inlo[j]), mlp->inhi[j]) : x[j], MPFR_RNDN);
    if (mlp->has_in) {
      mpfr_sub_d(a[j], a[j], mlp->inmean[j], MPFR_RNDN);
      mpfr_div_d(a[j], a[j], mlp->inrange[j], MPFR_RNDN);
    }
  }
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
    for (PetscInt o = 0; o < wout; o++) {
      mpfr_set_d(z[o], mlp->params[mlp->boff[l] + o], MPFR_RNDN);
      for (PetscInt j = 0; j < win; j++) {
        mpfr_mul_d(t, a[j], mlp->params[mlp->woff[l] + o * win + j], MPFR_RNDN);
        mpfr_add(z[o], z[o], t, MPFR_RNDN);
      }
      if (mlp->act[l] == SR_ACT_TANH) mpfr_tanh(z[o], z[o], MPFR_RNDN);
      else if (mlp->act[l] == SR_ACT_RELU && mpfr_sgn(z[o]) < 0) mpfr_set_zero(z[o], 1);
      else if (mlp->act[l] == SR_ACT_SIGMOID) { /* 1 / (1 + exp(-z)) */
        mpfr_neg(t, z[o], MPFR_RNDN);
        mpfr_exp(t, t, MPFR_RNDN);
        mpfr_add_ui(t, t, 1, MPFR_RNDN);
        mpfr_ui_div(z[o], 1, t, MPFR_RNDN);
      }
    }
    for (PetscInt o = 0; o < wout; o++)
      mpfr_set(a[o], z[o], MPFR_RNDN);
  }
  for (PetscInt o = 0; o < mlp->width[mlp->nlayers]; o++) {
    mpfr_set(out[o], a[o], MPFR_RNDN);
    if (mlp->has_out) {
      mpfr_mul_d(out[o], out[o], mlp->outscale[o], MPFR_RNDN);
      mpfr_add_d(out[o], out[o], mlp->outoffset[o], MPFR_RNDN);
    }
  }
  for (int j = 0; j < MAXW; j++) {
    mpfr_clear(a[j]);
    mpfr_clear(z[j]);
  }
  mpfr_clear(t);
}

/* f(x) in MPFR (SPEC §2, §3) */
static void model_mpfr(SRModel model, const double *x, mpfr_t *y)
{
  SRSystem s = model->sys;
  mpfr_t   N[SR_MAX_DIM], u, t, w;
  mpfr_inits2(PREC, u, t, w, (mpfr_ptr)0);
  for (int i = 0; i < SR_MAX_DIM; i++)
    mpfr_init2(N[i], PREC);
  mlp_mpfr(model->mlp, x, N);
  if (model->type == SR_MODEL_DYNAMICS) {
    for (PetscInt i = 0; i < s->n; i++)
      mpfr_add_d(y[i], N[i], x[i], MPFR_RNDN);
  } else {
    mpfr_tanh(u, N[0], MPFR_RNDN);
    mpfr_mul_d(u, u, s->umax, MPFR_RNDN);
    if (!strcmp(s->name, "pendulum")) {
      mpfr_set_d(t, x[0], MPFR_RNDN);
      mpfr_sin(t, t, MPFR_RNDN);
      mpfr_mul_d(t, t, s->param[0], MPFR_RNDN);
      mpfr_set_d(w, s->param[1], MPFR_RNDN);
      mpfr_mul_d(w, w, x[1], MPFR_RNDN);
      mpfr_sub(t, t, w, MPFR_RNDN);
      mpfr_add(t, t, u, MPFR_RNDN);
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
      mpfr_mul_d(w, u, s->dt, MPFR_RNDN);
      mpfr_add_d(y[2], w, x[2], MPFR_RNDN);
    }
  }
  for (int i = 0; i < SR_MAX_DIM; i++)
    mpfr_clear(N[i]);
  mpfr_clears(u, t, w, (mpfr_ptr)0);
}

/* Richardson-extrapolated central difference of phi at p[k] */
typedef double (*ScalarFn)(void *ctx);
static double fd_param(ScalarFn phi, void *ctx, double *p, double h)
{
  const double p0 = *p;
  double       v[4];
  const double hs[4] = { h, -h, h / 2, -h / 2 };
  for (int s = 0; s < 4; s++) {
    *p   = p0 + hs[s];
    v[s] = phi(ctx);
  }
  *p              = p0;
  const double d1 = (v[0] - v[1]) / (2 * h), d2 = (v[2] - v[3]) / h;
  return (4 * d2 - d1) / 3;
}

/* max_k |g_k - fd_k| / max(|fd_k|, 1e-3 ||fd||_inf) */
static double relerr(PetscInt n, const double *g, const double *fd)
{
  double scale = 0, e = 0;
  for (PetscInt k = 0; k < n; k++)
    scale = fmax(scale, fabs(fd[k]));
  assert_true(scale > 0);
  for (PetscInt k = 0; k < n; k++)
    e = fmax(e, fabs(g[k] - fd[k]) / fmax(fabs(fd[k]), 1e-3 * scale));
  return e;
}

static void test_glorot_init(void **state)
{
  const PetscInt w[2] = { 16, 8 };
  SRMLP          a, b, c;
  CHK(SRMLPCreate(2, 2, w, 3, &a));
  CHK(SRMLPCreate(2, 2, w, 3, &b));
  CHK(SRMLPCreate(2, 2, w, 3, &c));
  assert_int_equal(a->nparams, 16 * 2 + 16 + 8 * 16 + 8 + 3 * 8 + 3);
  CHK(SRMLPInitialize(a, 5));
  CHK(SRMLPInitialize(b, 5));
  CHK(SRMLPInitialize(c, 6));
  assert_memory_equal(a->params, b->params, a->nparams * sizeof(double));
  assert_memory_not_equal(a->params, c->params, a->nparams * sizeof(double));
  for (PetscInt l = 0; l < a->nlayers; l++) {
    const double   lim = sqrt(6.0 / (double)(a->width[l] + a->width[l + 1]));
    double         mx = 0, mean = 0;
    const PetscInt nw = a->width[l] * a->width[l + 1];
    for (PetscInt k = 0; k < nw; k++) {
      const double v = a->params[a->woff[l] + k];
      assert_true(fabs(v) < lim);
      mx = fmax(mx, fabs(v));
      mean += v / nw;
    }
    assert_true(mx > 0.75 * lim); /* fills the range */
    assert_true(fabs(mean) < 5 * lim / sqrt(3.0 * nw)); /* 5 sigma of U(-lim, lim) mean */
    for (PetscInt k = 0; k < a->width[l + 1]; k++)
      assert_true(a->params[a->boff[l] + k] == 0.0);
  }
  CHK(SRMLPDestroy(&a));
  CHK(SRMLPDestroy(&b));
  CHK(SRMLPDestroy(&c));
  assert_null(a);
}

static void test_mlp_forward_matches_mpfr(void **state)
{
  SRMLP  mlp;
  double X[8 * 3], Y[8 * 2];
  mpfr_t y[2];
  mpfr_init2(y[0], PREC);
  mpfr_init2(y[1], PREC);
  CHK(SRMLPCreate(3, 2, hidden, 2, &mlp));
  randomize(mlp, 9);
  for (int k = 0; k < 24; k++)
    X[k] = SRRandomRange(9, SR_STREAM_TEST, k, -2, 2);
  CHK(SRMLPForward(mlp, 8, X, Y));
  for (int i = 0; i < 8; i++) {
    mlp_mpfr(mlp, X + 3 * i, y);
    for (int o = 0; o < 2; o++)
      assert_true(fabs(Y[2 * i + o] - mpfr_get_d(y[o], MPFR_RNDN)) <= 1e-13 * (1 + fabs(Y[2 * i + o])));
  }
  CHK(SRMLPDestroy(&mlp));
  mpfr_clear(y[0]);
  mpfr_clear(y[1]);
}

typedef struct {
  SRMLP    mlp;
  PetscInt nb;
  double  *X, *dY, *Y;
} MLPCtx;

static double mlp_phi(void *ctx)
{
  MLPCtx *c = (MLPCtx *)ctx;
  double  s = 0;
  CHK(SRMLPForward(c->mlp, c->nb, c->X, c->Y));
  for (PetscInt k = 0; k < c->nb * c->mlp->width[c->mlp->nlayers]; k++)
    s += c->dY[k] * c->Y[k];
  return s;
}

static void test_mlp_gradients_match_finite_differences(void **state)
{
  const PetscInt nb = 4, nin = 3, nout = 2;
  double         X[4 * 3], dY[4 * 2], Y[4 * 2], dX[4 * 3], fdX[4 * 3];
  SRMLP          mlp;
  CHK(SRMLPCreate(nin, 2, hidden, nout, &mlp));
  randomize(mlp, 21);
  for (int k = 0; k < nb * nin; k++)
    X[k] = SRRandomRange(21, SR_STREAM_TEST, 100 + k, -1.5, 1.5);
  for (int k = 0; k < nb * nout; k++)
    dY[k] = SRRandomNormal(21, SR_STREAM_TEST, 200 + k);
  MLPCtx  ctx = { mlp, nb, X, dY, Y };
  double *g, *g2, *fd;
  CHK(PetscCalloc3(mlp->nparams, &g, mlp->nparams, &g2, mlp->nparams, &fd));
  CHK(SRMLPForward(mlp, nb, X, Y));
  CHK(SRMLPBackward(mlp, nb, dY, g, dX));
  for (PetscInt k = 0; k < mlp->nparams; k++)
    fd[k] = fd_param(mlp_phi, &ctx, &mlp->params[k], 1e-3);
  for (PetscInt k = 0; k < nb * nin; k++)
    fdX[k] = fd_param(mlp_phi, &ctx, &X[k], 1e-3);
  assert_true(relerr(mlp->nparams, g, fd) < 1e-6);
  assert_true(relerr(nb * nin, dX, fdX) < 1e-6);
  /* the parameter gradient accumulates: starting from g gives 2 g (up to the summation order) */
  for (PetscInt k = 0; k < mlp->nparams; k++)
    g2[k] = g[k];
  CHK(SRMLPForward(mlp, nb, X, Y));
  CHK(SRMLPBackward(mlp, nb, dY, g2, NULL));
  for (PetscInt k = 0; k < mlp->nparams; k++)
    assert_true(fabs(g2[k] - 2 * g[k]) <= 1e-12 * (fabs(g[k]) + 1e-3));
  /* backward on another batch size than the last forward is refused */
  PetscErrorCode ierr;
  CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SRMLPBackward(mlp, nb - 1, dY, g2, NULL);
  CHK(PetscPopErrorHandler());
  assert_int_not_equal(ierr, 0);
  CHK(PetscFree3(g, g2, fd));
  CHK(SRMLPDestroy(&mlp));
}

/* SPEC §14: every activation on every layer (the output too): the point pass against MPFR,
   reverse mode against finite differences, the interval pass around MPFR values, and the
   activation names round-trip through SRMLPActivationsString / SRActivationsParse. */
static void test_mlp_activations(void **state)
{
  const SRActivation combos[4][3] = {
    { SR_ACT_RELU, SR_ACT_RELU, SR_ACT_LINEAR },
    { SR_ACT_SIGMOID, SR_ACT_SIGMOID, SR_ACT_LINEAR },
    { SR_ACT_RELU, SR_ACT_LINEAR, SR_ACT_SIGMOID },
    { SR_ACT_SIGMOID, SR_ACT_RELU, SR_ACT_TANH },
  };
  const PetscInt nb = 6, nin = 3, nout = 2;
  for (int cmb = 0; cmb < 4; cmb++) {
    SRMLP        mlp;
    double       X[6 * 3], dY[6 * 2], Y[6 * 2], dX[6 * 3], fdX[6 * 3], *g, *fd;
    mpfr_t       y[2];
    char         buf[128];
    SRActivation back[3];
    CHK(SRMLPCreate(nin, 2, hidden, nout, &mlp));
    randomize(mlp, 31 + cmb);
    for (PetscInt l = 0; l < 3; l++) CHK(SRMLPSetActivation(mlp, l, combos[cmb][l]));
    if (cmb >= 2) { /* input clipping/normalisation and output scaling (SPEC §14) */
      const double lo[3] = { -1.0, -INFINITY, -0.5 }, hi[3] = { 1.2, 0.9, INFINITY }, mean[3] = { 0.1, -0.3, 0.0 }, range[3] = { 0.7, 2.5, 1.0 };
      const double sc[2] = { -3.0, 0.5 }, off[2] = { -10.0, 0.25 };
      CHK(SRMLPSetInputTransform(mlp, lo, hi, mean, range));
      CHK(SRMLPSetOutputTransform(mlp, sc, off));
    }
    assert_false(SRMLPIsDefault(mlp));
    CHK(SRMLPActivationsString(mlp, buf, sizeof buf));
    CHK(SRActivationsParse("test", buf, 3, back));
    for (PetscInt l = 0; l < 3; l++) assert_int_equal(back[l], combos[cmb][l]);
    for (int k = 0; k < nb * nin; k++) X[k] = SRRandomRange(31 + cmb, SR_STREAM_TEST, 100 + k, -1.5, 1.5);
    for (int k = 0; k < nb * nout; k++) dY[k] = SRRandomNormal(31 + cmb, SR_STREAM_TEST, 200 + k);
    mpfr_init2(y[0], PREC);
    mpfr_init2(y[1], PREC);
    CHK(SRMLPForward(mlp, nb, X, Y));
    for (int i = 0; i < nb; i++) {
      SRInterval Xi[3], Yi[2];
      mlp_mpfr(mlp, X + 3 * i, y);
      for (int o = 0; o < 2; o++) assert_true(fabs(Y[2 * i + o] - mpfr_get_d(y[o], MPFR_RNDN)) <= 1e-13 * (1 + fabs(Y[2 * i + o])));
      for (int j = 0; j < 3; j++) Xi[j] = SRIntervalPoint(X[3 * i + j]);
      CHK(SRMLPForwardInterval(mlp, Xi, Yi));
      for (int o = 0; o < 2; o++) assert_true(mpfr_cmp_d(y[o], Yi[o].lo) >= 0 && mpfr_cmp_d(y[o], Yi[o].hi) <= 0);
    }
    MLPCtx ctx = { mlp, nb, X, dY, Y };
    CHK(PetscCalloc2(mlp->nparams, &g, mlp->nparams, &fd));
    CHK(SRMLPForward(mlp, nb, X, Y));
    CHK(SRMLPBackward(mlp, nb, dY, g, dX));
    for (PetscInt k = 0; k < mlp->nparams; k++) fd[k] = fd_param(mlp_phi, &ctx, &mlp->params[k], 1e-4);
    for (PetscInt k = 0; k < nb * nin; k++) fdX[k] = fd_param(mlp_phi, &ctx, &X[k], 1e-4);
    assert_true(relerr(mlp->nparams, g, fd) < 1e-6);
    assert_true(relerr(nb * nin, dX, fdX) < 1e-6);
    CHK(PetscFree2(g, fd));
    mpfr_clear(y[0]);
    mpfr_clear(y[1]);
    CHK(SRMLPDestroy(&mlp));
  }
  {
    SRActivation a[3];
    CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    assert_int_not_equal(SRActivationsParse("test", "relu,softplus,linear", 3, a), 0);
    assert_int_not_equal(SRActivationsParse("test", "relu,linear", 3, a), 0);
    CHK(PetscPopErrorHandler());
  }
}

static void test_mlp_interval_contains_exact(void **state)
{
  SRMLP    mlp;
  mpfr_t   y[2];
  uint64_t idx = 0;
  mpfr_init2(y[0], PREC);
  mpfr_init2(y[1], PREC);
  CHK(SRMLPCreate(3, 2, hidden, 2, &mlp));
  randomize(mlp, 31);
  for (int box = 0; box < 30; box++) {
    SRInterval   X[3], Y[2];
    const double r = box < 3 ? 0 : SRRandomUniform(31, SR_STREAM_TEST, idx++);
    for (int j = 0; j < 3; j++) {
      const double c = SRRandomRange(31, SR_STREAM_TEST, idx++, -2, 2);
      X[j]           = SRIntervalMake(c - r, c + r);
    }
    CHK(SRMLPForwardInterval(mlp, X, Y));
    for (int s = 0; s < 40; s++) {
      double x[3];
      for (int j = 0; j < 3; j++)
        x[j] = s < 8 ? ((s >> j) & 1 ? X[j].hi : X[j].lo) : fmin(X[j].hi, SRRandomRange(32, SR_STREAM_TEST, idx++, X[j].lo, X[j].hi + (r == 0 ? 1e-300 : 0)));
      mlp_mpfr(mlp, x, y);
      for (int o = 0; o < 2; o++)
        assert_true(mpfr_cmp_d(y[o], Y[o].lo) >= 0 && mpfr_cmp_d(y[o], Y[o].hi) <= 0);
    }
  }
  CHK(SRMLPDestroy(&mlp));
  mpfr_clear(y[0]);
  mpfr_clear(y[1]);
}

static void create_combo(int c, SRSystem *sys, SRModel *model)
{
  CHK(SRSystemCreate(PETSC_COMM_SELF, csys[c], NULL, sys));
  CHK(SRModelCreate(*sys, ctype[c], 2, hidden, model));
  randomize((*model)->mlp, 40 + c);
}

static void random_states(SRSystem sys, PetscInt nb, uint64_t seed, double *X)
{
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt k = 0; k < sys->n; k++)
      X[i * sys->n + k] = SRRandomRange(seed, SR_STREAM_TEST, i * sys->n + k, sys->dlo[k], sys->dhi[k]);
}

typedef struct {
  SRModel  model;
  PetscInt nb;
  double  *X, *dY, *Y;
} ModelCtx;

static double model_phi(void *ctx)
{
  ModelCtx *c = (ModelCtx *)ctx;
  double    s = 0;
  CHK(SRModelEvaluate(c->model, c->nb, c->X, c->Y));
  for (PetscInt k = 0; k < c->nb * c->model->n; k++)
    s += c->dY[k] * c->Y[k];
  return s;
}

static double task_phi(void *ctx)
{
  ModelCtx *c = (ModelCtx *)ctx;
  double    L;
  CHK(SRModelTaskLoss(c->model, c->nb, c->X, &L, NULL));
  return L;
}

static void test_model_vjp_matches_finite_differences(void **state)
{
  for (int c = 0; c < NCOMBO; c++) {
    SRSystem sys;
    SRModel  model;
    double   X[5 * 3], dY[5 * 3], Y[5 * 3], *g, *fd;
    create_combo(c, &sys, &model);
    random_states(sys, 5, 50 + c, X);
    for (int k = 0; k < 5 * sys->n; k++)
      dY[k] = SRRandomNormal(60 + c, SR_STREAM_TEST, k);
    ModelCtx ctx = { model, 5, X, dY, Y };
    CHK(PetscCalloc2(model->mlp->nparams, &g, model->mlp->nparams, &fd));
    CHK(SRModelEvaluate(model, 5, X, Y));
    CHK(SRModelVJP(model, 5, X, dY, g));
    for (PetscInt k = 0; k < model->mlp->nparams; k++)
      fd[k] = fd_param(model_phi, &ctx, &model->mlp->params[k], 1e-3);
    assert_true(relerr(model->mlp->nparams, g, fd) < 1e-6);
    CHK(PetscFree2(g, fd));
    CHK(SRModelDestroy(&model));
    CHK(SRSystemDestroy(&sys));
  }
}

static void test_task_loss_gradient_matches_finite_differences(void **state)
{
  for (int c = 0; c < NCOMBO; c++) {
    SRSystem sys;
    SRModel  model;
    double   X[6 * 3], Y[6 * 3], L, *g, *fd;
    create_combo(c, &sys, &model);
    random_states(sys, 6, 70 + c, X);
    ModelCtx ctx = { model, 6, X, NULL, Y };
    CHK(PetscCalloc2(model->mlp->nparams, &g, model->mlp->nparams, &fd));
    CHK(SRModelTaskLoss(model, 6, X, &L, g));
    assert_true(L > 0);
    for (PetscInt k = 0; k < model->mlp->nparams; k++)
      fd[k] = fd_param(task_phi, &ctx, &model->mlp->params[k], 1e-3);
    assert_true(relerr(model->mlp->nparams, g, fd) < 1e-6);
    CHK(PetscFree2(g, fd));
    CHK(SRModelDestroy(&model));
    CHK(SRSystemDestroy(&sys));
  }
}

/* zero weights: dynamics f = x, so task = mean ||x - F_ref(x)||^2; controller u = 0, so
   task = mean u_ref^2 -- both written here from the SPEC formulae */
static void test_task_loss_at_zero_weights(void **state)
{
  for (int c = 0; c < NCOMBO; c++) {
    SRSystem sys;
    SRModel  model;
    double   X[7 * 3], L, expect = 0;
    create_combo(c, &sys, &model);
    for (PetscInt k = 0; k < model->mlp->nparams; k++)
      model->mlp->params[k] = 0;
    random_states(sys, 7, 80 + c, X);
    for (int i = 0; i < 7; i++) {
      const double *x = X + i * sys->n;
      if (ctype[c] == SR_MODEL_CONTROLLER) {
        const double v = !strcmp(csys[c], "dubins") ? -1.5 * x[1] - 2 * x[2] : -(sys->K[0] * x[0] + sys->K[1] * x[1]);
        const double u = fmin(fmax(v, -sys->umax), sys->umax);
        expect += u * u / 7;
      } else if (!strcmp(csys[c], "toy1d")) {
        const double r = x[0] - (0.9 * x[0] + 0.25 * sin(3 * x[0]));
        expect += r * r / 7;
      } else {
        double y[3];
        SRSystemReferenceStep(sys, x, y);
        for (PetscInt k = 0; k < sys->n; k++)
          expect += (x[k] - y[k]) * (x[k] - y[k]) / 7;
      }
    }
    CHK(SRModelTaskLoss(model, 7, X, &L, NULL));
    assert_true(fabs(L - expect) <= 1e-13 * expect);
    CHK(SRModelDestroy(&model));
    CHK(SRSystemDestroy(&sys));
  }
}

static void test_model_interval_enclosure_contains_exact(void **state)
{
  mpfr_t   y[SR_MAX_DIM];
  uint64_t idx = 0;
  for (int i = 0; i < SR_MAX_DIM; i++)
    mpfr_init2(y[i], PREC);
  for (int c = 0; c < NCOMBO; c++) {
    SRSystem sys;
    SRModel  model;
    create_combo(c, &sys, &model);
    for (int box = 0; box < 20; box++) {
      double       lo[3], hi[3], elo[3], ehi[3];
      const double r = box < 3 ? 0 : 0.3 * SRRandomUniform(90, SR_STREAM_TEST, idx++);
      for (PetscInt k = 0; k < sys->n; k++) {
        const double cc = SRRandomRange(90, SR_STREAM_TEST, idx++, sys->dlo[k], sys->dhi[k]), h = r * (sys->dhi[k] - sys->dlo[k]);
        lo[k] = cc - h;
        hi[k] = cc + h;
      }
      CHK(SRModelEncloseInterval(model, lo, hi, elo, ehi));
      /* bounded, and tight on point boxes (a box of everything would be sound but useless) */
      for (PetscInt k = 0; k < sys->n; k++)
        assert_true(isfinite(elo[k]) && isfinite(ehi[k]) && (r > 0 || ehi[k] - elo[k] < 1e-12));
      for (int s = 0; s < 40; s++) {
        double x[3], yp[3];
        for (PetscInt k = 0; k < sys->n; k++)
          x[k] = s < 8 ? ((s >> k) & 1 ? hi[k] : lo[k]) : fmin(hi[k], SRRandomRange(91, SR_STREAM_TEST, idx++, lo[k], hi[k] + (r == 0 ? 1e-300 : 0)));
        model_mpfr(model, x, y);
        CHK(SRModelEvaluate(model, 1, x, yp));
        for (PetscInt k = 0; k < sys->n; k++) {
          assert_true(mpfr_cmp_d(y[k], elo[k]) >= 0 && mpfr_cmp_d(y[k], ehi[k]) <= 0);
          assert_true(fabs(yp[k] - mpfr_get_d(y[k], MPFR_RNDN)) <= 1e-13 * (1 + fabs(yp[k])));
        }
      }
    }
    CHK(SRModelDestroy(&model));
    CHK(SRSystemDestroy(&sys));
  }
  for (int i = 0; i < SR_MAX_DIM; i++)
    mpfr_clear(y[i]);
}

static void test_controller_needs_reference(void **state)
{
  SRSystem       sys;
  SRModel        model = NULL;
  PetscErrorCode ierr;
  const char    *text, *specific = NULL;
  CHK(SRSystemCreate(PETSC_COMM_SELF, "toy1d", NULL, &sys));
  CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SRModelCreate(sys, SR_MODEL_CONTROLLER, 2, hidden, &model);
  CHK(PetscPopErrorHandler());
  assert_int_not_equal(ierr, 0);
  assert_null(model);
  CHK(PetscErrorMessage(ierr, &text, (char **)&specific));
  if (specific) assert_true(strstr(specific, "-model") && strstr(specific, "-sys toy1d"));
  assert_string_equal(SRModelTypes[SR_MODEL_CONTROLLER], "controller");
  CHK(SRSystemDestroy(&sys));
}

/* -control_steps m (SPEC §2): f(x) is m plant steps with u = umax tanh(N(x)) held, against a
   direct simulation with the system's point step; the VJP through the m steps against finite
   differences; -model dynamics refuses m > 1. */
static void test_control_hold(void **state)
{
  const char *names[2] = { "pendulum", "dubins" };
  for (int c = 0; c < 2; c++) {
    SRSystem sys;
    SRModel  model, dyn = NULL;
    double   X[5 * 3], Y[5 * 3], dY[5 * 3], *g, *fd;
    CHK(SRSystemCreate(PETSC_COMM_SELF, names[c], NULL, &sys));
    sys->control_steps = 7;
    CHK(SRModelCreate(sys, SR_MODEL_CONTROLLER, 2, hidden, &model));
    randomize(model->mlp, 140 + c);
    random_states(sys, 5, 150 + c, X);
    CHK(SRModelEvaluate(model, 5, X, Y));
    for (PetscInt i = 0; i < 5; i++) {
      double N[1], u[1], z[3], y[3];
      CHK(SRMLPForward(model->mlp, 1, X + i * sys->n, N));
      u[0] = sys->umax * tanh(N[0]);
      for (PetscInt d = 0; d < sys->n; d++) z[d] = X[i * sys->n + d];
      for (int step = 0; step < 7; step++) {
        sys->step(sys, z, u, y);
        for (PetscInt d = 0; d < sys->n; d++) z[d] = y[d];
      }
      for (PetscInt d = 0; d < sys->n; d++) assert_true(fabs(Y[i * sys->n + d] - z[d]) <= 1e-12 * (1 + fabs(z[d])));
    }
    for (int k = 0; k < 5 * sys->n; k++) dY[k] = SRRandomNormal(160 + c, SR_STREAM_TEST, k);
    ModelCtx ctx = { model, 5, X, dY, Y };
    CHK(PetscCalloc2(model->mlp->nparams, &g, model->mlp->nparams, &fd));
    CHK(SRModelEvaluate(model, 5, X, Y));
    CHK(SRModelVJP(model, 5, X, dY, g));
    for (PetscInt k = 0; k < model->mlp->nparams; k++) fd[k] = fd_param(model_phi, &ctx, &model->mlp->params[k], 1e-3);
    assert_true(relerr(model->mlp->nparams, g, fd) < 1e-6);
    CHK(PetscFree2(g, fd));
    /* the interval enclosure of a small box holds the direct simulation of its corners */
    {
      double lo[3], hi[3], elo[3], ehi[3], x[3], y[3];
      for (PetscInt d = 0; d < sys->n; d++) {
        lo[d] = X[d] - 0.01;
        hi[d] = X[d] + 0.01;
      }
      CHK(SRModelEncloseInterval(model, lo, hi, elo, ehi));
      for (int v = 0; v < (1 << sys->n); v++) {
        for (PetscInt d = 0; d < sys->n; d++) x[d] = (v >> d) & 1 ? hi[d] : lo[d];
        CHK(SRModelEvaluate(model, 1, x, y));
        for (PetscInt d = 0; d < sys->n; d++) assert_true(elo[d] <= y[d] && y[d] <= ehi[d]);
      }
    }
    CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    assert_int_not_equal(SRModelCreate(sys, SR_MODEL_DYNAMICS, 2, hidden, &dyn), 0);
    CHK(PetscPopErrorHandler());
    assert_null(dyn);
    CHK(SRModelDestroy(&model));
    CHK(SRSystemDestroy(&sys));
  }
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_glorot_init),
    cmocka_unit_test(test_mlp_forward_matches_mpfr),
    cmocka_unit_test(test_mlp_gradients_match_finite_differences),
    cmocka_unit_test(test_mlp_activations),
    cmocka_unit_test(test_mlp_interval_contains_exact),
    cmocka_unit_test(test_model_vjp_matches_finite_differences),
    cmocka_unit_test(test_task_loss_gradient_matches_finite_differences),
    cmocka_unit_test(test_task_loss_at_zero_weights),
    cmocka_unit_test(test_model_interval_enclosure_contains_exact),
    cmocka_unit_test(test_controller_needs_reference),
    cmocka_unit_test(test_control_hold),
  };
  int fails;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  fails = cmocka_run_group_tests_name("model", tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
