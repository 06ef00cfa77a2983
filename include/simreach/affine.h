/* Affine forms (first-order Taylor models) of any dimension up to SR_AFFINE_MAX, for the
   validated ODE flow of SPEC §15.

   An affine form over the normalised coordinates xi in [-1,1]^n of a piece of the initial
   set is c0 + sum_i c[i] xi_i plus an interval remainder r; it encloses a function g on the
   piece if g(xi) - c0 - sum c[i] xi_i lies in r for every xi (exact real arithmetic).  Every
   operation keeps that property: each coefficient is first computed as an outward-rounded
   interval (include/simreach/interval.h), its midpoint becomes the coefficient and the rest,
   times |xi_i| <= 1, goes into the remainder; nonlinear functions use the mean-value form
   f(m) + lambda (a - m) + (f'(R) - lambda)(R - m) over the range R of the argument, or the
   constant f(R) when that is narrower.  SRTaylor (taylor.h) is the same idea fixed at
   SR_MAX_DIM (6) for the cell enclosures; the forms of plants have up to SR_AFFINE_MAX coordinates.
   Value type, not collective, no global state. */
#pragma once

#include <simreach/interval.h>

#define SR_AFFINE_MAX 512 /* coordinates: a piece's n, noise symbols, network inputs (docs/arch.md) */

typedef struct {
  double     c0;
  double     c[SR_AFFINE_MAX];
  SRInterval r;
} SRAffine;

/* the form with c0 in I0, c_i in Ic[i] and remainder R (midpoints kept, the rest into r) */
SRAffine SRAffineFromIntervals(int n, SRInterval I0, const SRInterval *Ic, SRInterval R);
SRAffine SRAffineConstant(double v);
/* the interval x as a form without coefficients (c0 = mid x, r = x - mid x) */
SRAffine SRAffineInterval(SRInterval x);
/* C + sum_j s_j a_j over k <= 64 forms with interval scalars, in one pass (more forms or
   unbounded scalars: pairwise) */
SRAffine SRAffineDotInterval(int n, int k, const SRInterval *s, const SRAffine *const *a, SRInterval C);
/* centre + halfwidth xi_i */
SRAffine   SRAffineVariable(int i, double centre, double halfwidth);
SRInterval SRAffineRange(int n, const SRAffine *a);
/* range of the linear part alone: [-sum |c_i|, sum |c_i|] */
SRInterval SRAffineLinearRange(int n, const SRAffine *a);
bool       SRAffineIsNaI(const SRAffine *a);

SRAffine SRAffineAdd(int n, const SRAffine *a, const SRAffine *b);
SRAffine SRAffineSub(int n, const SRAffine *a, const SRAffine *b);
SRAffine SRAffineNeg(int n, const SRAffine *a);
SRAffine SRAffineMul(int n, const SRAffine *a, const SRAffine *b);
SRAffine SRAffineSqr(int n, const SRAffine *a);
/* C a for an interval C */
SRAffine SRAffineScaleInterval(int n, SRInterval C, const SRAffine *a);
/* a + C for an interval C */
SRAffine SRAffineAddInterval(int n, const SRAffine *a, SRInterval C);
SRAffine SRAffineRecip(int n, const SRAffine *a);
SRAffine SRAffineDiv(int n, const SRAffine *a, const SRAffine *b);
SRAffine SRAffineExp(int n, const SRAffine *a);
SRAffine SRAffineLog(int n, const SRAffine *a);
SRAffine SRAffineSqrt(int n, const SRAffine *a);
SRAffine SRAffineSin(int n, const SRAffine *a);
SRAffine SRAffineCos(int n, const SRAffine *a);
SRAffine SRAffineTan(int n, const SRAffine *a);
SRAffine SRAffineTanh(int n, const SRAffine *a);

/* The remainders of F[0..nsym-1] into fresh noise symbols among coordinates first..m-1
   (src/numerics/affine_symbols.c); F[nsym..nlive-1] are the other live forms that may use the
   symbols: none of their symbols is taken as fresh, and when symbols run short the lightest
   are folded into the remainders of all nlive forms.  Does nothing when m <= first. */
void SRAffineRemaindersToSymbols(int m, int first, int nsym, int nlive, SRAffine **F);

/* The decimal literal at s (digits, optional fraction and exponent, no sign) enclosed:
   the point when the decimal is a double, else the two doubles around it; *end is set past
   it (to s when there is no number).  strtod rounds correctly (glibc), so the enclosure is
   exact or one ulp wide. */
SRInterval SRIntervalDecimal(const char *s, char **end);

/* interval log and tan (interval.h has exp, sin, cos, tanh) */
SRInterval SRIntervalLogX(SRInterval x);
SRInterval SRIntervalTanX(SRInterval x);
