/* The relaxation lines of CROWN (src/bounds/netcrown.c, SPEC §15) against the activations
   themselves, and the whole back-substitution on tiny networks against the exact network.

   1. For relu, tanh, sigmoid and linear, and for many pre-activation ranges [lo, hi] (a table
      of end points from -60 to 60 with 0, +-1e-300 and +-1e-3 among them, degenerate ranges,
      and random ranges of widths 1e-12 .. 30 about centres in [-10, 10]), the two lines
      alL z + beL <= s(z) <= alU z + beU are checked at both ends, at their neighbouring
      doubles inside the range, and on a dense grid of 129 points: the lines in exact
      arithmetic (MPFR with 2400 bits: a product of two doubles plus a double is exact there),
      s(z) in 300-bit MPFR with a bracket of 2^-280 |s(z)| + 2^-1000 (its own rounding): a line
      counts as wrong only when it is surely on the wrong side.
   2. Networks 1 -> w -> 1 and 1 -> w -> w -> 1 (w = 1..3) of every activation with a
      pre-activation range across 0 (the chord case of relu), over an input form
      c0 + r xi: the CROWN output form (SRMLPForwardCrown) at 129 values of xi in [-1, 1],
      the ends first, must hold the network evaluated exactly (MPFR, 300 bits, bracketed) at
      the same input.  Catches a wrong slope or offset in the rows of the back-substitution
      (RelaxStep) that part 1 cannot see.
   Exit 1 and one line per failure (the first 20) on any violation.
     test_crown_relax [random ranges per activation (default 2000)] */
#include <mpfr.h>
#include <petscsys.h>
#include <simreach/netaffine.h>
#include <simreach/private/netcrown.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define PREC_F 300 /* s(z) */
#define PREC_L 2400 /* the lines, exact */
#define GRID 129

static unsigned long state = 12345;
static double        U(void)
{
  state = state * 6364136223846793005UL + 1442695040888963407UL;
  return (double)(state >> 11) * 0x1p-53;
}

static const char *ActName(SRActivation a) { return a == SR_ACT_RELU ? "relu" : a == SR_ACT_TANH ? "tanh" : a == SR_ACT_SIGMOID ? "sigmoid" : "linear"; }

/* v = s(v) rounded to nearest at v's precision */
static void ActMPFR(SRActivation act, mpfr_t v)
{
  switch (act) {
  case SR_ACT_RELU:
    if (mpfr_sgn(v) < 0) mpfr_set_zero(v, 1);
    break;
  case SR_ACT_TANH:
    mpfr_tanh(v, v, MPFR_RNDN);
    break;
  case SR_ACT_SIGMOID:
    mpfr_neg(v, v, MPFR_RNDN), mpfr_exp(v, v, MPFR_RNDN), mpfr_add_ui(v, v, 1, MPFR_RNDN), mpfr_ui_div(v, 1, v, MPFR_RNDN);
    break;
  default:
    break;
  }
}

/* the bracket [f - e, f + e] of s(z), e = 2^-280 |f| + 2^-1000 (relu and linear are exact) */
static void Bracket(SRActivation act, mpfr_t f, mpfr_t flo, mpfr_t fhi, mpfr_t e)
{
  if (act == SR_ACT_RELU || act == SR_ACT_LINEAR) {
    mpfr_set(flo, f, MPFR_RNDN), mpfr_set(fhi, f, MPFR_RNDN);
    return;
  }
  mpfr_abs(e, f, MPFR_RNDU), mpfr_mul_2si(e, e, -280, MPFR_RNDU), mpfr_add_d(e, e, 0x1p-1000, MPFR_RNDU);
  mpfr_sub(flo, f, e, MPFR_RNDD), mpfr_add(fhi, f, e, MPFR_RNDU);
}

typedef struct {
  mpfr_t z, f, flo, fhi, e, line;
} Work;

static long nchecks, nfail;

static void Fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void Fail(const char *fmt, ...)
{
  va_list ap;
  if (nfail++ >= 20) return;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
}

/* the lines of act over [lo, hi] at the point z */
static void CheckPoint(Work *w, SRActivation act, double lo, double hi, const double L[4], double z)
{
  mpfr_set_d(w->f, z, MPFR_RNDN);
  ActMPFR(act, w->f);
  Bracket(act, w->f, w->flo, w->fhi, w->e);
  /* lower line: alL z + beL <= s(z) */
  mpfr_set_d(w->line, L[0], MPFR_RNDN), mpfr_mul_d(w->line, w->line, z, MPFR_RNDN), mpfr_add_d(w->line, w->line, L[1], MPFR_RNDN);
  nchecks++;
  if (mpfr_cmp(w->line, w->fhi) > 0) Fail("%s on [%.17g, %.17g]: lower line %.17g z + %.17g above s at z = %.17g by %.3g\n", ActName(act), lo, hi, L[0], L[1], z, mpfr_get_d(w->line, MPFR_RNDN) - mpfr_get_d(w->f, MPFR_RNDN));
  /* upper line: s(z) <= alU z + beU */
  mpfr_set_d(w->line, L[2], MPFR_RNDN), mpfr_mul_d(w->line, w->line, z, MPFR_RNDN), mpfr_add_d(w->line, w->line, L[3], MPFR_RNDN);
  nchecks++;
  if (mpfr_cmp(w->line, w->flo) < 0) Fail("%s on [%.17g, %.17g]: upper line %.17g z + %.17g below s at z = %.17g by %.3g\n", ActName(act), lo, hi, L[2], L[3], z, mpfr_get_d(w->f, MPFR_RNDN) - mpfr_get_d(w->line, MPFR_RNDN));
}

static void CheckRange(Work *w, SRActivation act, double lo, double hi)
{
  double L[4];
  if (!SRCrownRelax_Private(act, lo, hi, &L[0], &L[1], &L[2], &L[3])) {
    /* no lines: CROWN then gives no enclosure, which is sound; finite ranges of moderate size
       must have lines */
    if (fabs(lo) < 1e300 && fabs(hi) < 1e300) Fail("%s on [%.17g, %.17g]: no lines\n", ActName(act), lo, hi);
    return;
  }
  if (!(isfinite(L[0]) && isfinite(L[1]) && isfinite(L[2]) && isfinite(L[3]))) {
    Fail("%s on [%.17g, %.17g]: non-finite lines\n", ActName(act), lo, hi);
    return;
  }
  CheckPoint(w, act, lo, hi, L, lo);
  CheckPoint(w, act, lo, hi, L, hi);
  if (lo < hi) CheckPoint(w, act, lo, hi, L, nextafter(lo, hi)), CheckPoint(w, act, lo, hi, L, nextafter(hi, lo));
  if (lo < 0 && hi > 0) CheckPoint(w, act, lo, hi, L, 0.0);
  for (int g = 1; g < GRID - 1; g++) {
    double z = lo + (hi - lo) * ((double)g / (GRID - 1));
    if (z < lo) z = lo;
    if (z > hi) z = hi;
    CheckPoint(w, act, lo, hi, L, z);
  }
}

/* part 2: y = N(x) exactly (300 bits, rounded to nearest per operation: bracketed by the
   caller with a relative 2^-250) */
static void NetMPFR(SRMLP mlp, double x, mpfr_t y, mpfr_t *a, mpfr_t *b, mpfr_t t)
{
  mpfr_set_d(a[0], x, MPFR_RNDN);
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt ni = mlp->width[l], no = mlp->width[l + 1];
    for (PetscInt o = 0; o < no; o++) {
      mpfr_set_d(b[o], mlp->params[mlp->boff[l] + o], MPFR_RNDN);
      for (PetscInt j = 0; j < ni; j++)
        mpfr_mul_d(t, a[j], mlp->params[mlp->woff[l] + o * ni + j], MPFR_RNDN), mpfr_add(b[o], b[o], t, MPFR_RNDN);
      ActMPFR(mlp->act[l], b[o]);
    }
    for (PetscInt o = 0; o < no; o++)
      mpfr_set(a[o], b[o], MPFR_RNDN);
  }
  mpfr_set(y, a[0], MPFR_RNDN);
}

static PetscErrorCode CheckNetworks(Work *w, int nnets)
{
  mpfr_t a[4], b[4], t;
  PetscFunctionBeginUser;
  for (int j = 0; j < 4; j++)
    mpfr_init2(a[j], PREC_F), mpfr_init2(b[j], PREC_F);
  mpfr_init2(t, PREC_F);
  for (int tr = 0; tr < nnets; tr++) {
    const SRActivation act = (SRActivation)(tr % 4);
    const PetscInt     nh = 1 + (tr / 4) % 2, wd = 1 + (tr / 8) % 3, widths[2] = { wd, wd };
    SRMLP              mlp;
    SRAffine           in, out;
    const double       c0 = 4 * U() - 2, r = 0.05 + 3 * U();
    PetscCall(SRMLPCreate(1, nh, widths, 1, &mlp));
    for (PetscInt k = 0; k < mlp->nparams; k++)
      mlp->params[k] = 4 * U() - 2;
    for (PetscInt l = 0; l < nh; l++)
      PetscCall(SRMLPSetActivation(mlp, l, act));
    in = SRAffineVariable(0, c0, r);
    if (!SRMLPForwardCrown(mlp, 1, &in, &out))
      Fail("network %d (%s): no CROWN enclosure\n", tr, ActName(act));
    else
      for (int g = 0; g < 129; g++) {
        /* xi in [-1, 1]: the ends first; x = c0 + r xi as the form holds it (exact in MPFR) */
        const double xi = g == 0 ? -1.0 : g == 1 ? 1.0 : -1.0 + 2.0 * (g - 1) / 128.0;
        double       x;
        mpfr_set_d(t, r, MPFR_RNDN), mpfr_mul_d(t, t, xi, MPFR_RNDN), mpfr_add_d(t, t, c0, MPFR_RNDN);
        x = mpfr_get_d(t, MPFR_RNDN);
        if (mpfr_cmp_d(t, x) != 0) continue; /* the input must be a double to feed the oracle */
        NetMPFR(mlp, x, w->f, a, b, t);
        mpfr_abs(w->e, w->f, MPFR_RNDU), mpfr_mul_2si(w->e, w->e, -250, MPFR_RNDU), mpfr_add_d(w->e, w->e, 0x1p-1000, MPFR_RNDU);
        /* the form at xi: c0' + c' xi + [r.lo, r.hi] (exact) */
        mpfr_set_d(w->line, out.c[0], MPFR_RNDN), mpfr_mul_d(w->line, w->line, xi, MPFR_RNDN), mpfr_add_d(w->line, w->line, out.c0, MPFR_RNDN);
        mpfr_add_d(w->flo, w->line, out.r.lo, MPFR_RNDN), mpfr_add_d(w->fhi, w->line, out.r.hi, MPFR_RNDN);
        mpfr_add(w->z, w->f, w->e, MPFR_RNDU);
        nchecks++;
        if (mpfr_cmp(w->z, w->flo) < 0)
          Fail("network %d (%s, %d x %d): N(%.17g) = %.17g below the CROWN form by %.3g\n", tr, ActName(act), (int)nh, (int)wd, x, mpfr_get_d(w->f, MPFR_RNDN), mpfr_get_d(w->flo, MPFR_RNDN) - mpfr_get_d(w->f, MPFR_RNDN));
        mpfr_sub(w->z, w->f, w->e, MPFR_RNDD);
        nchecks++;
        if (mpfr_cmp(w->z, w->fhi) > 0)
          Fail("network %d (%s, %d x %d): N(%.17g) = %.17g above the CROWN form by %.3g\n", tr, ActName(act), (int)nh, (int)wd, x, mpfr_get_d(w->f, MPFR_RNDN), mpfr_get_d(w->f, MPFR_RNDN) - mpfr_get_d(w->fhi, MPFR_RNDN));
      }
    PetscCall(SRMLPDestroy(&mlp));
  }
  for (int j = 0; j < 4; j++)
    mpfr_clear(a[j]), mpfr_clear(b[j]);
  mpfr_clear(t);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const double ends[] = { -60, -20, -7.5, -3, -2, -1, -0.75, -0.5, -0.1, -1e-3, -1e-300, 0, 1e-300, 1e-3, 0.1, 0.5, 0.75, 1, 2, 3, 7.5, 20, 60 };
  const int    ne     = (int)(sizeof ends / sizeof ends[0]);
  int          nrand;
  Work         w;
  long         per[4] = { 0, 0, 0, 0 };

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  nrand = argc > 1 ? atoi(argv[1]) : 2000;
  mpfr_inits2(PREC_F, w.f, w.flo, w.fhi, w.e, (mpfr_ptr)0);
  mpfr_inits2(PREC_L, w.z, w.line, (mpfr_ptr)0);
  /* the lines are compared exactly: flo, fhi and line at the lines' precision */
  mpfr_set_prec(w.flo, PREC_L), mpfr_set_prec(w.fhi, PREC_L);
  for (int a = 0; a < 4; a++) {
    const SRActivation act    = (SRActivation)a;
    const long         before = nfail;
    for (int i = 0; i < ne; i++)
      for (int j = i; j < ne; j++)
        CheckRange(&w, act, ends[i], ends[j]);
    for (int k = 0; k < nrand; k++) {
      const double c = 20 * U() - 10, h = pow(10.0, -12 + 13.5 * U()), s = U();
      double       lo = c - h * s, hi = c + h * (1 - s);
      if (k % 50 == 0) lo = hi = c; /* degenerate */
      if (k % 7 == 0) lo = -h * s, hi = h * (1 - s); /* across 0 */
      CheckRange(&w, act, lo, hi);
    }
    per[a] = nfail - before;
  }
  PetscCall(CheckNetworks(&w, 1200));
  printf("crown relaxation: %ld checks, %ld failures (relu %ld, tanh %ld, sigmoid %ld, linear %ld on the lines; %ld on the networks)\n", nchecks, nfail, per[SR_ACT_RELU], per[SR_ACT_TANH], per[SR_ACT_SIGMOID], per[SR_ACT_LINEAR],
      nfail - per[0] - per[1] - per[2] - per[3]);
  mpfr_clears(w.z, w.f, w.flo, w.fhi, w.e, w.line, (mpfr_ptr)0);
  PetscCall(PetscFinalize());
  return nfail != 0;
}
