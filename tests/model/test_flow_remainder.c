/* The Lagrange remainder of the validated flow (src/model/flow.c, SPEC §15) against exact
   solutions in MPFR, at the default order 6 and at orders 4 and 8.

   Scalar plants with a known solution: x' = a x (x(t) = exp(a t) x0) for several a and x0,
   and x' = x^2 (x(t) = x0 / (1 - x0 t)); one step of length h = 2^-4 (a double, so the step
   is exact) from the point x0.  The enclosure of x(h) must hold the exact value, bracketed in
   256-bit MPFR with directed rounding.  The cases are chosen so that the remainder term
   x_q(B) h^q dominates the width of the enclosure (the Taylor part from a point is exact up to
   a few ulps) and lies away from 0 (B, the a-priori box, does not contain 0): the exact value
   sits at least half the remainder away from the Taylor sum at order 6, so a remainder that
   is halved (or dropped) misses it.  The test checks that it does: the distance from the
   exact value to the enclosure's far end is at most half its width for every order-6 case
   (else the cases would not see a halved remainder), and it prints the margins.
     test_flow_remainder */
#include <mpfr.h>
#include <petscsys.h>
#include <simreach/odeflow.h>
#include <stdio.h>
#include <stdlib.h>

#define PREC 256

typedef struct {
  const char *der; /* the right-hand side */
  double      x0;
  double      a; /* x' = a x, or 0 for x' = x^2 */
} Case;

/* the exact x(h), bracketed: [lo, hi] */
static void Exact(const Case *c, double h, mpfr_t lo, mpfr_t hi)
{
  mpfr_t t;
  mpfr_init2(t, PREC);
  if (c->a != 0) {
    /* exp(a h) x0; a h exact in a double here (a and h have few bits) */
    mpfr_set_d(t, c->a * h, MPFR_RNDN);
    mpfr_exp(lo, t, MPFR_RNDD), mpfr_exp(hi, t, MPFR_RNDU);
    if (c->x0 >= 0)
      mpfr_mul_d(lo, lo, c->x0, MPFR_RNDD), mpfr_mul_d(hi, hi, c->x0, MPFR_RNDU);
    else {
      mpfr_swap(lo, hi);
      mpfr_mul_d(lo, lo, c->x0, MPFR_RNDD), mpfr_mul_d(hi, hi, c->x0, MPFR_RNDU);
    }
  } else {
    /* x0 / (1 - x0 h), 1 - x0 h exact (few bits), positive */
    mpfr_set_d(t, 1.0 - c->x0 * h, MPFR_RNDN);
    mpfr_d_div(lo, c->x0, t, MPFR_RNDD), mpfr_d_div(hi, c->x0, t, MPFR_RNDU);
  }
  mpfr_clear(t);
}

/* the Taylor sum P = sum_{k<q} x_k h^k of the solution from x0, to nearest */
static void TaylorSum(const Case *c, int q, double h, mpfr_t P)
{
  mpfr_t term;
  mpfr_init2(term, PREC);
  mpfr_set_d(term, c->x0, MPFR_RNDN);
  mpfr_set_zero(P, 1);
  for (int k = 0; k < q; k++) {
    mpfr_add(P, P, term, MPFR_RNDN);
    /* x' = a x: x_{k+1} h^{k+1} = x_k h^k a h / (k + 1); x' = x^2: x_{k+1} = x0 x_k */
    if (c->a != 0)
      mpfr_mul_d(term, term, c->a * h, MPFR_RNDN), mpfr_div_ui(term, term, (unsigned long)k + 1, MPFR_RNDN);
    else
      mpfr_mul_d(term, term, c->x0 * h, MPFR_RNDN);
  }
  mpfr_clear(term);
}

int main(int argc, char **argv)
{
  const Case cases[] = {
    { "a * x", 1.0, 1.0 },
    { "a * x", -2.5, 1.0 },
    { "a * x", 1.0, -1.0 },
    { "a * x", 3.75, -2.0 },
    { "a * x", 0.5, 3.0 },
    { "a * x", -1.0, -4.0 },
    { "a * x", 2.0, 0.5 },
    { "x^2", 0.5, 0.0 },
    { "x^2", 1.0, 0.0 },
    { "x^2", -2.0, 0.0 },
  };
  const int    orders[] = { 6, 4, 8 };
  const double h        = 0x1p-4;
  int          fails = 0, weak = 0, checked = 0;
  double       worst_ratio = INFINITY; /* max over order-6 cases: |true remainder| / |enclosed far end| */
  mpfr_t       lo, hi, t;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  mpfr_inits2(PREC, lo, hi, t, (mpfr_ptr)0);
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    const Case *c = &cases[ci];
    char        text[512];
    SRPlant     pl;
    snprintf(text, sizeof text, "states x\nconst a = %.17g\noutputs 1\ninput x\ncontrol u = y1\nder x = %s + 0 * u\nperiod 0.0625\nhorizon 0.0625\n", c->a, c->der);
    PetscCall(SRPlantParse(PETSC_COMM_SELF, "remainder plant", text, &pl));
    for (size_t oi = 0; oi < sizeof orders / sizeof orders[0]; oi++) {
      SRFlowOptions o;
      SRAffine     *work, *vars, X, Y, T;
      SRInterval    TB[SR_AFFINE_MAX], R;
      SRFlowOptionsDefault(&o);
      o.order  = orders[oi];
      o.linear = false; /* x' = a x is linear: the Taylor flow's remainder is tested here, the exact map in test_flow_linear.c */
      PetscCall(PetscMalloc1(SRFlowWorkSize(&pl, &o) + 16, &work));
      PetscCall(PetscMalloc1(pl.nvars + 1, &vars));
      for (int j = 0; j < pl.nvars; j++)
        vars[j] = SRAffineConstant(0.0);
      X = SRAffineConstant(c->x0);
      checked++;
      if (!SRFlowStep(&pl, 1, &X, vars, (SRInterval) { h, h }, &o, &Y, &T, TB, work)) {
        printf("FAIL der x = %s, x0 = %g, a = %g, order %d: no enclosure\n", c->der, c->x0, c->a, o.order);
        fails++;
      } else {
        double dlo, dhi, w, e, far;
        R = SRAffineRange(1, &Y);
        Exact(c, h, lo, hi);
        if (mpfr_cmp_d(lo, R.lo) < 0 || mpfr_cmp_d(hi, R.hi) > 0) {
          printf("FAIL der x = %s, x0 = %g, a = %g, order %d: exact x(h) in [%.17g, %.17g] not inside [%.17g, %.17g]\n", c->der, c->x0, c->a, o.order, mpfr_get_d(lo, MPFR_RNDD), mpfr_get_d(hi, MPFR_RNDU), R.lo, R.hi);
          fails++;
        }
        /* where the exact value sits in the enclosure: its distances to the two ends */
        mpfr_sub_d(t, lo, R.lo, MPFR_RNDN), dlo = mpfr_get_d(t, MPFR_RNDN);
        mpfr_d_sub(t, R.hi, hi, MPFR_RNDN), dhi = mpfr_get_d(t, MPFR_RNDN);
        w = R.hi - R.lo;
        printf("der x = %-5s x0 = %5g a = %4g order %d: width %.3g, exact value %.3g from the lower end, %.3g from the upper\n", c->der, c->x0, c->a, o.order, w, dlo, dhi);
        /* e = x(h) - P, the remainder's true value, against the remainder part of the
           enclosure: its end far from P; the enclosure with that part halved ends at
           P + far / 2, which misses x(h) when |e| > |far| / 2 */
        TaylorSum(c, o.order, h, t);
        mpfr_sub(t, lo, t, MPFR_RNDN), e = mpfr_get_d(t, MPFR_RNDN);
        TaylorSum(c, o.order, h, t);
        mpfr_d_sub(t, e >= 0 ? R.hi : R.lo, t, MPFR_RNDN), far = mpfr_get_d(t, MPFR_RNDN);
        printf("   remainder: true %.4g, enclosure's far end %.4g, halved misses by %.3g\n", e, far, fabs(e) - 0.5 * fabs(far));
        if (o.order == 6) {
          /* the remainder dominates: halved, it must miss x(h) by more than the rounding */
          const double ratio = fabs(e) / fabs(far);
          worst_ratio        = fmin(worst_ratio, ratio);
          if (!(fabs(e) - 0.5 * fabs(far) > 64 * 0x1p-52 * fabs(c->x0) * 4) || e * far <= 0) {
            printf("WEAK der x = %s, x0 = %g, a = %g: a halved remainder would still hold x(h)\n", c->der, c->x0, c->a);
            weak++;
          }
        }
      }
      PetscCall(PetscFree(work));
      PetscCall(PetscFree(vars));
    }
    SRPlantFree(&pl);
  }
  printf("flow remainder: %d enclosures, %d failures, %d weak cases; at order 6 the true remainder is >= %.3f of the enclosed one's far end (a halved one misses above 0.5)\n", checked, fails, weak, worst_ratio);
  mpfr_clears(lo, hi, t, (mpfr_ptr)0);
  PetscCall(PetscFinalize());
  return fails || weak;
}
