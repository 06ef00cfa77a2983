/* Sound interval arithmetic: the parts that are not inline in include/simreach/interval.h
   (division, mid/rad/width, and the libm-based elementary functions of SPEC §7).

   Rounding error of libm.  glibc does not round exp, tanh, sin, cos correctly; its manual
   ("Known Maximum Errors in Math Functions") lists for x86_64 double at most 1 ulp for exp,
   sin and cos and 2 ulps for tanh, measured against the ulp of the correctly rounded
   result.  When the computed value and the true value lie in neighbouring binades a step of
   the computed value can be half that ulp, so covering k ulps can take 2k nextafter steps.
   We widen by SR_ULPS_EXP_SIN_COS = 4 steps (>= 2 ulps of either binade: a safety factor
   of 2 over the manual) and SR_ULPS_TANH = 6 steps (>= 3 ulps: factor 1.5), then clamp to
   the mathematical range.  tests/numerics/test_interval_mpfr.c checks the result against MPFR at
   200 bits on >= 10^6 intervals per function. */
#include <simreach/interval.h>

#include <string.h>

#define SR_ULPS_EXP_SIN_COS 4
#define SR_ULPS_TANH        6

/* 2/pi = 0x1.45F306DC9C882A53F8...p-1, so these doubles bracket it (checked by MPFR in
   tests/numerics/test_interval.c). */
#define SR_TWO_OVER_PI_LO 0x1.45f306dc9c882p-1
#define SR_TWO_OVER_PI_HI 0x1.45f306dc9c883p-1

static inline void SRWiden_Private(double y, int k, double *lo, double *hi)
{
  double l = y, h = y;
  if (fabs(y) >= 0x1p-1000 && fabs(y) <= 0x1p1000) { /* k steps on the bit pattern at once: the same as k one-ulp steps (no sign change, no inf) */
    uint64_t u, ul, uh;
    memcpy(&u, &y, sizeof u);
    ul = y > 0 ? u - (uint64_t)k : u + (uint64_t)k, uh = y > 0 ? u + (uint64_t)k : u - (uint64_t)k;
    memcpy(lo, &ul, sizeof ul), memcpy(hi, &uh, sizeof uh);
    return;
  }
  for (int i = 0; i < k; i++) {
    l = SRNextDown(l);
    h = SRNextUp(h);
  }
  *lo = l;
  *hi = h;
}

/* ---- division (IEEE 1788 div, single-interval hull when 0 is in b) ---- */
SRInterval SRIntervalDiv(SRInterval a, SRInterval b)
{
  if (SR_IV_RARE(a) || SR_IV_RARE(b)) return SRIntervalSpecial_Private(a, b);
  if (b.lo > 0) { /* b positive: no endpoint quotient is inf/inf or x/0 */
    if (a.lo >= 0) return (SRInterval){SRDivDown(a.lo, b.hi), SRDivUp(a.hi, b.lo)};
    if (a.hi <= 0) return (SRInterval){SRDivDown(a.lo, b.lo), SRDivUp(a.hi, b.hi)};
    return (SRInterval){SRDivDown(a.lo, b.lo), SRDivUp(a.hi, b.lo)};
  }
  if (b.hi < 0) {
    if (a.lo >= 0) return (SRInterval){SRDivDown(a.hi, b.hi), SRDivUp(a.lo, b.lo)};
    if (a.hi <= 0) return (SRInterval){SRDivDown(a.hi, b.lo), SRDivUp(a.lo, b.hi)};
    return (SRInterval){SRDivDown(a.hi, b.hi), SRDivUp(a.lo, b.hi)};
  }
  /* 0 in b */
  if (b.lo == 0 && b.hi == 0) return SRIntervalEmpty();
  if (a.lo == 0 && a.hi == 0) return (SRInterval){0.0, 0.0};
  if (a.lo < 0 && 0 < a.hi) return SRIntervalEntire();
  if (a.hi <= 0) { /* a <= 0: the sign of the quotient follows the sign of y in b \ {0} */
    if (b.lo == 0) return (SRInterval){-INFINITY, SRDivUp(a.hi, b.hi)};
    if (b.hi == 0) return (SRInterval){SRDivDown(a.hi, b.lo), INFINITY};
    return SRIntervalEntire();
  }
  if (b.lo == 0) return (SRInterval){SRDivDown(a.lo, b.hi), INFINITY};
  if (b.hi == 0) return (SRInterval){-INFINITY, SRDivUp(a.lo, b.lo)};
  return SRIntervalEntire();
}

SRInterval SRIntervalRecip(SRInterval a) { return SRIntervalDiv((SRInterval){1.0, 1.0}, a); }

/* ---- mid, radius, width (IEEE 1788 numeric functions) ---- */
double SRIntervalMid(SRInterval x)
{
  if (!(x.lo <= x.hi)) return NAN;
  if (x.lo == -INFINITY) return x.hi == INFINITY ? 0.0 : -DBL_MAX;
  if (x.hi == INFINITY) return DBL_MAX;
  if (x.lo == x.hi) return x.lo;
  /* halving first cannot overflow; clamping keeps the point inside after underflow */
  double m = 0.5 * x.lo + 0.5 * x.hi;
  return SRMin_Private(SRMax_Private(m, x.lo), x.hi);
}

double SRIntervalRadUp(SRInterval x)
{
  if (!(x.lo <= x.hi)) return NAN;
  if (!isfinite(x.lo) || !isfinite(x.hi)) return INFINITY;
  double m = SRIntervalMid(x);
  return SRMax_Private(SRSubUp(m, x.lo), SRSubUp(x.hi, m));
}

double SRIntervalWidthUp(SRInterval x)
{
  if (!(x.lo <= x.hi)) return NAN;
  return SRSubUp(x.hi, x.lo);
}

/* ---- point bounds of the libm functions ---- */
void SRExpBounds(double x, double *lo, double *hi)
{
  if (x == 0) { /* exact */
    *lo = *hi = 1.0;
    return;
  }
  SRWiden_Private(exp(x), SR_ULPS_EXP_SIN_COS, lo, hi);
  *lo = SRMax_Private(*lo, 0.0); /* exp > 0; NaN stays NaN */
}

void SRTanhBounds(double x, double *lo, double *hi)
{
  if (x == 0) {
    *lo = *hi = x;
    return;
  }
  SRWiden_Private(tanh(x), SR_ULPS_TANH, lo, hi);
  /* |tanh| <= 1 and sign(tanh x) = sign(x) */
  if (x > 0) {
    *lo = SRMax_Private(*lo, 0.0);
    *hi = SRMin_Private(*hi, 1.0);
  } else if (x < 0) {
    *lo = SRMax_Private(*lo, -1.0);
    *hi = SRMin_Private(*hi, 0.0);
  }
}

/* sigmoid x = 1 / (1 + e^-x), decreasing in e^-x in [el, eh]; where e^-x overflows (x < -709)
   the bound sigmoid x < e^x is used instead (never below the smallest subnormal). */
void SRSigmoidBounds(double x, double *lo, double *hi)
{
  double el, eh;
  if (isnan(x)) {
    *lo = *hi = NAN;
    return;
  }
  SRExpBounds(-x, &el, &eh);
  *lo = eh < INFINITY ? SRDivDown(1.0, SRAddUp(1.0, eh)) : 0.0;
  if (el < INFINITY) *hi = SRDivUp(1.0, SRAddDown(1.0, el));
  else {
    double t;
    SRExpBounds(x, &t, hi);
    *hi = SRMax_Private(*hi, 0x1p-1074);
  }
  *lo = SRMax_Private(*lo, 0.0);
  *hi = SRMin_Private(*hi, 1.0);
}

static inline void SRClampUnit_Private(double *lo, double *hi)
{
  *lo = SRMax_Private(*lo, -1.0);
  *hi = SRMin_Private(*hi, 1.0);
}

void SRSinBounds(double x, double *lo, double *hi)
{
  if (x == 0) {
    *lo = *hi = x;
    return;
  }
  SRWiden_Private(sin(x), SR_ULPS_EXP_SIN_COS, lo, hi); /* sin(+-inf) = NaN */
  SRClampUnit_Private(lo, hi);
}

void SRCosBounds(double x, double *lo, double *hi)
{
  if (x == 0) {
    *lo = *hi = 1.0;
    return;
  }
  SRWiden_Private(cos(x), SR_ULPS_EXP_SIN_COS, lo, hi);
  SRClampUnit_Private(lo, hi);
}

/* ---- monotone functions: bound the endpoints ---- */
SRInterval SRIntervalExp(SRInterval x)
{
  double l, h, t;
  if (SR_IV_RARE(x)) return x;
  if (x.lo == x.hi) { /* a point: one evaluation, the same bounds */
    SRExpBounds(x.lo, &l, &h);
    return (SRInterval){l, h};
  }
  SRExpBounds(x.lo, &l, &t);
  SRExpBounds(x.hi, &t, &h);
  return (SRInterval){l, h};
}

SRInterval SRIntervalTanh(SRInterval x)
{
  double l, h, t;
  if (SR_IV_RARE(x)) return x;
  if (x.lo == x.hi) { /* a point: one evaluation, the same bounds */
    SRTanhBounds(x.lo, &l, &h);
    return (SRInterval){l, h};
  }
  SRTanhBounds(x.lo, &l, &t);
  SRTanhBounds(x.hi, &t, &h);
  return (SRInterval){l, h};
}

/* sigmoid is increasing */
SRInterval SRIntervalSigmoid(SRInterval x)
{
  double l, h, t;
  if (SR_IV_RARE(x)) return x;
  if (x.lo == x.hi) { /* a point: one evaluation, the same bounds */
    SRSigmoidBounds(x.lo, &l, &h);
    return (SRInterval){l, h};
  }
  SRSigmoidBounds(x.lo, &l, &t);
  SRSigmoidBounds(x.hi, &t, &h);
  return (SRInterval){l, h};
}

/* sigmoid' x = sigmoid x (1 - sigmoid x) = (1 - tanh^2 (x / 2)) / 4 */
SRInterval SRIntervalDSigmoid(SRInterval x)
{
  if (SR_IV_RARE(x)) return x;
  return SRIntervalScale(0.25, SRIntervalDTanh(SRIntervalScale(0.5, x)));
}

/* 1 - tanh^2 t = sech^2 t = 4u / (1 + u)^2 with u = exp(-2|t|) in (0, 1]; f(u) = 4u/(1+u)^2
   increases on [0, 1] (f' = 4(1 - u)/(1 + u)^3), and avoids the cancellation of 1 - tanh^2
   for large |t|.  So over x the range is [f(u(mag x)), f(u(mig x))]. */
SRInterval SRIntervalDTanh(SRInterval x)
{
  double ul, uh, t;
  if (SR_IV_RARE(x)) return x;
  SRInterval a = SRIntervalAbs(x);
  if (a.lo == a.hi) SRExpBounds(-2.0 * a.hi, &ul, &uh); /* a point: one evaluation */
  else {
    SRExpBounds(-2.0 * a.hi, &ul, &t); /* -2 M is exact or -inf */
    SRExpBounds(-2.0 * a.lo, &t, &uh);
  }
  ul = SRMax_Private(ul, 0.0);
  uh = SRMin_Private(uh, 1.0);
  double dl = SRAddUp(1.0, ul), dh = SRAddDown(1.0, uh);
  double lo = SRDivDown(SRMulDown(4.0, ul), SRMulUp(dl, dl));
  double hi = SRDivUp(SRMulUp(4.0, uh), SRMulDown(dh, dh));
  return (SRInterval){SRMax_Private(lo, 0.0), SRMin_Private(hi, 1.0)};
}

/* ---- sin and cos: endpoints plus every extremum the interval might contain ----
   The extrema of sin are at t = x (2/pi) odd: t = 1 mod 4 gives +1, t = 3 mod 4 gives -1;
   those of cos at t even: 0 mod 4 gives +1, 2 mod 4 gives -1.  T is a rigorous enclosure of
   x (2/pi) over x (outward interval product with a bracket of 2/pi), so every extremum in x
   has its integer in T: an integer in T that is no true extremum only widens (sound).
   |T| > 2^52 (|x| > ~7e15) or 4 integers in T cover every residue: the range is [-1, 1]. */
static SRInterval SRIntervalTrig_Private(SRInterval x, int shift, void (*bounds)(double, double *, double *))
{
  double l0, h0, l1, h1;
  if (SR_IV_RARE(x)) return x;
  if (!isfinite(x.lo) || !isfinite(x.hi)) return (SRInterval){-1.0, 1.0};
  SRInterval T = SRIntervalMul(x, (SRInterval){SR_TWO_OVER_PI_LO, SR_TWO_OVER_PI_HI});
  if (!(fabs(T.lo) <= 0x1p52 && fabs(T.hi) <= 0x1p52)) return (SRInterval){-1.0, 1.0};
  double n0 = ceil(T.lo), n1 = floor(T.hi);
  if (n1 - n0 >= 3) return (SRInterval){-1.0, 1.0};
  bounds(x.lo, &l0, &h0);
  bounds(x.hi, &l1, &h1);
  SRInterval r = {SRMin_Private(l0, l1), SRMax_Private(h0, h1)};
  for (int64_t n = (int64_t)n0; n <= (int64_t)n1; n++) {
    int64_t m = ((n + shift) % 4 + 4) % 4; /* sin: shift 0, cos: shift 1 (cos x = sin(x + pi/2)) */
    if (m == 1) r.hi = 1.0;
    if (m == 3) r.lo = -1.0;
  }
  return r;
}

SRInterval SRIntervalSin(SRInterval x) { return SRIntervalTrig_Private(x, 0, SRSinBounds); }
SRInterval SRIntervalCos(SRInterval x) { return SRIntervalTrig_Private(x, 1, SRCosBounds); }
