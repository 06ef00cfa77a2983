/* Tests of the fast point-training path (src/model/mlp.c kernels, private/fasttanh.h, src/model/adam.c;
   SPEC §3 and the phi steps of §8).  Oracles: MPFR (128 bits) for tanh, for N on wide nets
   and for Adam; a naive long double reverse mode written here for the gradients; the same
   sample evaluated alone.  Serial. */
#include <simreach/base.h>
#include <simreach/model.h>
#include <simreach/random.h>
#include <simreach/private/adam.h>
#include <simreach/private/fasttanh.h>

#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <string.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define CHK(call) assert_int_equal((call), 0)
#define PREC 128
#define MAXW 64

/* |f - t| in units of the last place of t rounded to double */
static double ulp_error(double f, mpfr_t t)
{
  mpfr_t d;
  double r;
  mpfr_init2(d, PREC);
  mpfr_sub_d(d, t, f, MPFR_RNDN);
  mpfr_abs(d, d, MPFR_RNDN);
  if (mpfr_zero_p(t)) r = f == 0 ? 0 : INFINITY;
  else mpfr_mul_2si(d, d, -(PetscMax((long)mpfr_get_exp(t), -1021L) - 53), MPFR_RNDN), r = mpfr_get_d(d, MPFR_RNDU);
  mpfr_clear(d);
  return r;
}

static void test_fast_tanh_within_3_ulp_of_mpfr(void **state)
{
  mpfr_t   t;
  double   worst = 0;
  uint64_t idx   = 0;
  mpfr_init2(t, PREC);
  for (int k = 0; k < 200000; k++) {
    double x;
    switch (k % 4) {
    case 0: x = SRRandomRange(5, SR_STREAM_TEST, idx++, -1, 1); break;
    case 1: x = SRRandomRange(5, SR_STREAM_TEST, idx++, -22, 22); break;
    case 2: { /* tiny and subnormal */
      const double m = SRRandomRange(5, SR_STREAM_TEST, idx, -1, 1);
      x              = ldexp(m, -(int)(SRRandomUniform(5, SR_STREAM_TEST, idx + 1) * 1070));
      idx += 2;
    } break;
    default: { /* around the reduction's switch points y = 2|x| = (k + 1/2) ln 2 */
      const double k = floor(SRRandomUniform(5, SR_STREAM_TEST, idx) * 58);
      x              = (k + 0.5) * 0.34657359027997264 * (1 + 1e-15 * SRRandomRange(5, SR_STREAM_TEST, idx + 1, -4, 4));
      idx += 2;
    }
    }
    mpfr_set_d(t, x, MPFR_RNDN);
    mpfr_tanh(t, t, MPFR_RNDN);
    worst = fmax(worst, ulp_error(SRFastTanh(x), t));
  }
  mpfr_clear(t);
  print_message("fast tanh: worst error %.3f ulp\n", worst);
  assert_true(worst <= 3.0);
}

static void test_fast_tanh_special_values(void **state)
{
  assert_true(SRFastTanh(0.0) == 0 && !signbit(SRFastTanh(0.0)));
  assert_true(SRFastTanh(-0.0) == 0 && signbit(SRFastTanh(-0.0)));
  assert_true(SRFastTanh(INFINITY) == 1.0 && SRFastTanh(-INFINITY) == -1.0);
  assert_true(isnan(SRFastTanh(NAN)) && isnan(SRFastTanh(-NAN)));
  assert_true(SRFastTanh(0x1p-1074) == 0x1p-1074 && SRFastTanh(-0x1p-1060) == -0x1p-1060);
  /* tanh rounds to +-1 from 19.07 on (1 - tanh x = 2 e^-2x < 2^-54); 19 is still below 1 */
  assert_true(SRFastTanh(19.0) == nextafter(1.0, 0.0));
  assert_true(SRFastTanh(20.0) == 1.0 && SRFastTanh(-40.5) == -1.0 && SRFastTanh(1e300) == 1.0 && SRFastTanh(-DBL_MAX) == -1.0);
}

static void randomize(SRMLP mlp, uint64_t seed)
{
  CHK(SRMLPInitialize(mlp, seed));
  for (PetscInt l = 0; l < mlp->nlayers; l++)
    for (PetscInt k = 0; k < mlp->width[l + 1]; k++)
      mlp->params[mlp->boff[l] + k] = SRRandomRange(seed, SR_STREAM_TEST, 1000 + mlp->boff[l] + k, -0.5, 0.5);
}

/* N(x) in MPFR from the layout of model.h */
static void mlp_mpfr(SRMLP mlp, const double *x, double *y)
{
  mpfr_t a[MAXW], z[MAXW], t;
  mpfr_init2(t, PREC);
  for (int j = 0; j < MAXW; j++)
    mpfr_inits2(PREC, a[j], z[j], (mpfr_ptr)0);
  for (PetscInt j = 0; j < mlp->width[0]; j++)
    mpfr_set_d(a[j], x[j], MPFR_RNDN);
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
    for (PetscInt o = 0; o < wout; o++) {
      mpfr_set_d(z[o], mlp->params[mlp->boff[l] + o], MPFR_RNDN);
      for (PetscInt j = 0; j < win; j++) {
        mpfr_mul_d(t, a[j], mlp->params[mlp->woff[l] + o * win + j], MPFR_RNDN);
        mpfr_add(z[o], z[o], t, MPFR_RNDN);
      }
      if (l < mlp->nlayers - 1) mpfr_tanh(z[o], z[o], MPFR_RNDN);
    }
    for (PetscInt o = 0; o < wout; o++)
      mpfr_set(a[o], z[o], MPFR_RNDN);
  }
  for (PetscInt o = 0; o < mlp->width[mlp->nlayers]; o++)
    y[o] = mpfr_get_d(a[o], MPFR_RNDN);
  for (int j = 0; j < MAXW; j++)
    mpfr_clears(a[j], z[j], (mpfr_ptr)0);
  mpfr_clear(t);
}

/* shapes that hit every block and tail of the kernels: widths below, at and off the block
   sizes, batches of 1, 3, 4, 5, 67 */
static const PetscInt shapes[][4] = {
  { 2, 32, 32, 2 },
  { 3, 37, 9,  1 },
  { 2, 64, 64, 2 },
  { 5, 3,  11, 4 },
};
static const PetscInt batches[] = { 1, 3, 4, 5, 67 };

static void test_wide_forward_matches_mpfr(void **state)
{
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    const PetscInt *w = shapes[s];
    SRMLP           mlp;
    CHK(SRMLPCreate(w[0], 2, w + 1, w[3], &mlp));
    randomize(mlp, 50 + s);
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
      const PetscInt nb = batches[b];
      double        *X, *Y, y[4];
      CHK(PetscMalloc2(nb * w[0], &X, nb * w[3], &Y));
      for (PetscInt k = 0; k < nb * w[0]; k++)
        X[k] = SRRandomRange(60 + s, SR_STREAM_TEST, k, -2, 2);
      CHK(SRMLPForward(mlp, nb, X, Y));
      for (PetscInt i = 0; i < nb; i++) {
        mlp_mpfr(mlp, X + i * w[0], y);
        for (PetscInt o = 0; o < w[3]; o++)
          assert_true(fabs(Y[i * w[3] + o] - y[o]) <= 1e-13 * (1 + fabs(y[o])));
      }
      CHK(PetscFree2(X, Y));
    }
    CHK(SRMLPDestroy(&mlp));
  }
}

/* a sample's output does not depend on the batch around it (bit for bit): the resume and
   rank-count determinism of SPEC §8 rely on batches being reproducible */
static void test_sample_result_independent_of_batch(void **state)
{
  const PetscInt nb = 67, w[4] = { 3, 37, 9, 2 };
  SRMLP          mlp;
  double        *X, *Y, y[2];
  CHK(SRMLPCreate(w[0], 2, w + 1, w[3], &mlp));
  randomize(mlp, 70);
  CHK(PetscMalloc2(nb * w[0], &X, nb * w[3], &Y));
  for (PetscInt k = 0; k < nb * w[0]; k++)
    X[k] = SRRandomRange(71, SR_STREAM_TEST, k, -2, 2);
  CHK(SRMLPForward(mlp, nb, X, Y));
  for (PetscInt i = 0; i < nb; i++) {
    double Yi[2];
    memcpy(y, Y + i * w[3], sizeof y);
    CHK(SRMLPForward(mlp, 1, X + i * w[0], Yi));
    assert_memory_equal(Yi, y, sizeof y);
  }
  CHK(PetscFree2(X, Y));
  CHK(SRMLPDestroy(&mlp));
}

/* naive reverse mode in long double, one sample at a time (SPEC §3 network) */
static void mlp_grad_ref(SRMLP mlp, PetscInt nb, const double *X, const double *dY, long double *g, long double *dX)
{
  long double a[SR_MAX_LAYERS + 2][MAXW], d[MAXW], dn[MAXW];
  const PetscInt L = mlp->nlayers;
  for (PetscInt k = 0; k < mlp->nparams; k++)
    g[k] = 0;
  for (PetscInt i = 0; i < nb; i++) {
    for (PetscInt j = 0; j < mlp->width[0]; j++)
      a[0][j] = X[i * mlp->width[0] + j];
    for (PetscInt l = 0; l < L; l++)
      for (PetscInt o = 0; o < mlp->width[l + 1]; o++) {
        long double z = mlp->params[mlp->boff[l] + o];
        for (PetscInt j = 0; j < mlp->width[l]; j++)
          z += (long double)mlp->params[mlp->woff[l] + o * mlp->width[l] + j] * a[l][j];
        a[l + 1][o] = l < L - 1 ? tanhl(z) : z;
      }
    for (PetscInt o = 0; o < mlp->width[L]; o++)
      d[o] = dY[i * mlp->width[L] + o];
    for (PetscInt l = L - 1; l >= 0; l--) {
      const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
      for (PetscInt o = 0; o < wout; o++) {
        g[mlp->boff[l] + o] += d[o];
        for (PetscInt j = 0; j < win; j++)
          g[mlp->woff[l] + o * win + j] += d[o] * a[l][j];
      }
      for (PetscInt j = 0; j < win; j++) {
        long double t = 0;
        for (PetscInt o = 0; o < wout; o++)
          t += d[o] * mlp->params[mlp->woff[l] + o * win + j];
        dn[j] = l > 0 ? t * (1 - a[l][j] * a[l][j]) : t;
      }
      for (PetscInt j = 0; j < win; j++)
        d[j] = dn[j];
    }
    for (PetscInt j = 0; j < mlp->width[0]; j++)
      dX[i * mlp->width[0] + j] = d[j];
  }
}

static void test_wide_gradients_match_long_double_reference(void **state)
{
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    const PetscInt *w = shapes[s];
    SRMLP           mlp;
    CHK(SRMLPCreate(w[0], 2, w + 1, w[3], &mlp));
    randomize(mlp, 80 + s);
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
      const PetscInt nb = batches[b];
      double        *X, *Y, *dY, *g, *dX, gscale = 0, xscale = 0;
      long double   *gr, *dXr;
      CHK(PetscMalloc5(nb * w[0], &X, nb * w[3], &Y, nb * w[3], &dY, mlp->nparams, &g, nb * w[0], &dX));
      CHK(PetscMalloc2(mlp->nparams, &gr, nb * w[0], &dXr));
      for (PetscInt k = 0; k < nb * w[0]; k++)
        X[k] = SRRandomRange(90 + s, SR_STREAM_TEST, k, -2, 2);
      for (PetscInt k = 0; k < nb * w[3]; k++)
        dY[k] = SRRandomNormal(90 + s, SR_STREAM_TEST, 5000 + k);
      for (PetscInt k = 0; k < mlp->nparams; k++)
        g[k] = 0.25; /* Backward accumulates into grad */
      CHK(SRMLPForward(mlp, nb, X, Y));
      CHK(SRMLPBackward(mlp, nb, dY, g, dX));
      mlp_grad_ref(mlp, nb, X, dY, gr, dXr);
      for (PetscInt k = 0; k < mlp->nparams; k++)
        gscale = fmax(gscale, fabs((double)gr[k]));
      for (PetscInt k = 0; k < nb * w[0]; k++)
        xscale = fmax(xscale, fabs((double)dXr[k]));
      for (PetscInt k = 0; k < mlp->nparams; k++)
        assert_true(fabsl(g[k] - 0.25L - gr[k]) <= 1e-13L * (gscale + 1));
      for (PetscInt k = 0; k < nb * w[0]; k++)
        assert_true(fabsl(dX[k] - dXr[k]) <= 1e-13L * (xscale + 1));
      CHK(PetscFree5(X, Y, dY, g, dX));
      CHK(PetscFree2(gr, dXr));
    }
    CHK(SRMLPDestroy(&mlp));
  }
}

/* Adam (Kingma & Ba 2015, Algorithm 1) in MPFR over 30 steps of random gradients */
static void test_adam_matches_mpfr(void **state)
{
  const PetscInt n = 37, T = 30;
  const double   lr = 1e-3;
  SRAdam         adam;
  double         g[37], delta[37];
  mpfr_t         m[37], v[37], t, u, c1, c2, b1t, b2t;
  CHK(SRAdamCreate(n, lr, &adam));
  mpfr_inits2(PREC, t, u, c1, c2, b1t, b2t, (mpfr_ptr)0);
  for (PetscInt i = 0; i < n; i++) {
    mpfr_inits2(PREC, m[i], v[i], (mpfr_ptr)0);
    mpfr_set_zero(m[i], 1);
    mpfr_set_zero(v[i], 1);
  }
  mpfr_set_ui(b1t, 1, MPFR_RNDN);
  mpfr_set_ui(b2t, 1, MPFR_RNDN);
  for (PetscInt s = 0; s < T; s++) {
    for (PetscInt i = 0; i < n; i++)
      g[i] = (i % 7 == 3 && s % 4 == 1) ? 0.0 : SRRandomNormal(100, SR_STREAM_TEST, s * n + i) * ldexp(1, (int)(i % 9) - 4);
    CHK(SRAdamStep(adam, g, delta));
    mpfr_mul_d(b1t, b1t, 0.9, MPFR_RNDN);
    mpfr_mul_d(b2t, b2t, 0.999, MPFR_RNDN);
    mpfr_ui_sub(c1, 1, b1t, MPFR_RNDN);
    mpfr_ui_sub(c2, 1, b2t, MPFR_RNDN);
    for (PetscInt i = 0; i < n; i++) {
      /* m = 0.9 m + 0.1 g, v = 0.999 v + 0.001 g^2 with the doubles 0.9, 1 - 0.9, ... */
      mpfr_mul_d(m[i], m[i], 0.9, MPFR_RNDN);
      mpfr_set_d(t, g[i], MPFR_RNDN);
      mpfr_mul_d(t, t, 1.0 - 0.9, MPFR_RNDN);
      mpfr_add(m[i], m[i], t, MPFR_RNDN);
      mpfr_mul_d(v[i], v[i], 0.999, MPFR_RNDN);
      mpfr_set_d(t, g[i], MPFR_RNDN);
      mpfr_sqr(t, t, MPFR_RNDN);
      mpfr_mul_d(t, t, 1.0 - 0.999, MPFR_RNDN);
      mpfr_add(v[i], v[i], t, MPFR_RNDN);
      mpfr_div(t, v[i], c2, MPFR_RNDN);
      mpfr_sqrt(t, t, MPFR_RNDN);
      mpfr_add_d(t, t, 1e-8, MPFR_RNDN);
      mpfr_div(u, m[i], c1, MPFR_RNDN);
      mpfr_div(u, u, t, MPFR_RNDN);
      mpfr_mul_d(u, u, -lr, MPFR_RNDN);
      const double ref = mpfr_get_d(u, MPFR_RNDN);
      assert_true(fabs(delta[i] - ref) <= 1e-12 * fabs(ref) + 1e-300);
    }
  }
  for (PetscInt i = 0; i < n; i++)
    mpfr_clears(m[i], v[i], (mpfr_ptr)0);
  mpfr_clears(t, u, c1, c2, b1t, b2t, (mpfr_ptr)0);
  CHK(SRAdamDestroy(&adam));
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fast_tanh_within_3_ulp_of_mpfr),
    cmocka_unit_test(test_fast_tanh_special_values),
    cmocka_unit_test(test_wide_forward_matches_mpfr),
    cmocka_unit_test(test_sample_result_independent_of_batch),
    cmocka_unit_test(test_wide_gradients_match_long_double_reference),
    cmocka_unit_test(test_adam_matches_mpfr),
  };
  int rc;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return rc;
}
