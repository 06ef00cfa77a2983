/* Sound interval arithmetic on doubles (SPEC §7 depends on it).

   Representation: [lo, hi] with lo <= hi, endpoints may be +-inf (the set is the reals
   between them).  Empty = [+inf, -inf].  NaI (not an interval, the result of a NaN input)
   = [NaN, NaN]; any operation with a NaI operand gives NaI, so a NaN never yields a finite
   interval.  Every operation returns an interval that contains the exact real result for
   every point of the operands (outward rounding).  Basic operations round to nearest and
   then correct with an error-free transformation (TwoSum / FMA remainder), which gives the
   exact directed rounding; libm-based functions are widened by a justified ulp bound
   (see src/numerics/interval.c).  Not collective; thread-safe; no global state.

   The hot basic operations are static inline here (house style: tiny value types may have
   inline operations in the header); the elementary functions live in src/numerics/interval.c.
   Semantics follow IEEE 1788 set-based intervals: 0 * inf inside a product counts as 0,
   division by an interval containing 0 gives the single-interval hull, sqrt intersects
   with [0, inf], and mid / rad / width of the empty set are NaN. */
#pragma once

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  double lo, hi;
} SRInterval;

/* ---- one-ulp steps (exact, on the bit pattern; nextafter(x, +-inf) without a libm call) ---- */
static inline double SRNextUp(double x)
{
  uint64_t u;
  if (!(x < INFINITY)) return x; /* NaN and +inf stay */
  if (x == 0) return 0x1p-1074;
  memcpy(&u, &x, sizeof u);
  u = (x > 0) ? u + 1 : u - 1;
  memcpy(&x, &u, sizeof u);
  return x;
}
static inline double SRNextDown(double x) { return -SRNextUp(-x); }

/* Below this magnitude the rounding error of a product (or the remainder of a quotient or
   square root) may not be representable: 2^-969 = 2^(emin + p - 1) with a margin of one
   binade, so above it the FMA error term is exact (Boldo & Muller, "Exact and approximated
   error of the FMA", 2011). */
#define SR_EFT_TINY 0x1p-969

/* ---- directed rounding of + - * / sqrt (exact: the returned double is the rounding of the
   exact real result towards -inf / +inf) ---- */

/* TwoSum (Knuth): e = (a + b) - s exactly whenever no intermediate overflows, including the
   subnormal range (the error of a sum is always representable).  With s finite, bb = s - a
   can still overflow (a = 0x1.f8a66543d118fp+1022, b = -DBL_MAX): e is then NaN, and the
   rare path redoes TwoSum on a/2, b/2 (exact: both operands are then >= 2^1021 in
   magnitude, and halving commutes with rounding), giving e/2; if that failed too it
   returns 1 (widen unconditionally).  Overflow of s: -inf from finite operands rounds up
   to -DBL_MAX. */
static inline double SRAddErrHalved_Private(double a, double b)
{
  double h = 0.5 * a, g = 0.5 * b, s = h + g, bb = s - h, e = (h - (s - bb)) + (g - bb);
  return isnan(e) ? 1.0 : e;
}
static inline double SRAddUp(double a, double b)
{
  double s = a + b, bb = s - a, e = (a - (s - bb)) + (b - bb);
  if (isnan(e) && isfinite(s)) e = SRAddErrHalved_Private(a, b);
  if (e > 0) return SRNextUp(s);
  if (s == -INFINITY && isfinite(a) && isfinite(b)) return -DBL_MAX;
  return s;
}
static inline double SRAddDown(double a, double b) { return -SRAddUp(-a, -b); }
static inline double SRSubUp(double a, double b) { return SRAddUp(a, -b); }
static inline double SRSubDown(double a, double b) { return -SRAddUp(-a, b); }

/* p = fl(a b), e = fma(a, b, -p) = a b - p exactly when |p| >= SR_EFT_TINY; below, a nonzero
   error may round to 0, so the result is widened by one ulp unless the product is exactly 0
   (or underflowed to 0 with a negative exact value). */
static inline double SRMulUp(double a, double b)
{
  double p = a * b, e = fma(a, b, -p);
  if (e > 0) return SRNextUp(p);
  if (!(fabs(p) >= SR_EFT_TINY) && a != 0 && b != 0 && e == 0 && (p != 0 || (a > 0) == (b > 0))) return SRNextUp(p);
  if (p == -INFINITY && isfinite(a) && isfinite(b)) return -DBL_MAX;
  return p;
}
static inline double SRMulDown(double a, double b) { return -SRMulUp(-a, b); }

/* q = fl(a / b), r = fma(-q, b, a) = a - q b; sign(a / b - q) = sign(r) sign(b).  The sign
   of r is always right (rounding keeps signs) but r may round to 0 when a or q is tiny: then
   widen by one ulp.  x / +-inf = 0 exactly for finite x. */
static inline double SRDivUp(double a, double b)
{
  double q = a / b, r = fma(-q, b, a);
  if (b > 0 ? r > 0 : r < 0) return SRNextUp(q);
  if (r == 0 && a != 0 && (fabs(a) < SR_EFT_TINY || fabs(q) < 0x1p-1021)) return SRNextUp(q);
  if (q == -INFINITY && isfinite(a) && isfinite(b) && b != 0) return -DBL_MAX;
  return q;
}
static inline double SRDivDown(double a, double b) { return -SRDivUp(-a, b); }

/* s = fl(sqrt a), r = fma(-s, s, a) = a - s^2 exactly for a >= SR_EFT_TINY. */
static inline double SRSqrtUp(double a)
{
  double s = sqrt(a), r = fma(-s, s, a);
  if (r > 0 || (a > 0 && a < SR_EFT_TINY && r == 0)) return SRNextUp(s);
  return s;
}
static inline double SRSqrtDown(double a)
{
  double s = sqrt(a), r = fma(-s, s, a);
  if (r < 0 || (a > 0 && a < SR_EFT_TINY && r == 0)) return SRNextDown(s);
  return s;
}

/* ---- constructors and predicates ---- */
static inline SRInterval SRIntervalNaI(void) { return (SRInterval){NAN, NAN}; }
static inline SRInterval SRIntervalEmpty(void) { return (SRInterval){INFINITY, -INFINITY}; }
static inline SRInterval SRIntervalEntire(void) { return (SRInterval){-INFINITY, INFINITY}; }
/* NaI if lo > hi, a NaN, or a bound that is no real (lo = +inf or hi = -inf) */
static inline SRInterval SRIntervalMake(double lo, double hi)
{
  if (!(lo <= hi) || lo == INFINITY || hi == -INFINITY) return SRIntervalNaI();
  return (SRInterval){lo, hi};
}
static inline SRInterval SRIntervalPoint(double x) { return SRIntervalMake(x, x); }
static inline bool SRIntervalIsNaI(SRInterval x) { return isnan(x.lo) || isnan(x.hi); }
static inline bool SRIntervalIsEmpty(SRInterval x) { return x.lo > x.hi; }
static inline bool SRIntervalIsEntire(SRInterval x) { return x.lo == -INFINITY && x.hi == INFINITY; }
/* non-empty, valid, both endpoints finite */
static inline bool SRIntervalIsBounded(SRInterval x) { return x.lo <= x.hi && isfinite(x.lo) && isfinite(x.hi); }
/* a within b (empty within all); false on NaI */
static inline bool SRIntervalSubset(SRInterval a, SRInterval b)
{
  if (SRIntervalIsNaI(a) || SRIntervalIsNaI(b)) return false;
  return SRIntervalIsEmpty(a) || (b.lo <= a.lo && a.hi <= b.hi);
}
/* x is a real number in a (false for NaN and +-inf, which are no reals) */
static inline bool SRIntervalContains(SRInterval a, double x) { return isfinite(x) && a.lo <= x && x <= a.hi; }
double SRIntervalMid(SRInterval x);     /* a point of x (finite when x is bounded; 0 for entire, +-DBL_MAX half-bounded; NaN empty/NaI) */
double SRIntervalRadUp(SRInterval x);   /* r with x within [mid - r, mid + r], rounded up */
double SRIntervalWidthUp(SRInterval x); /* hi - lo rounded up (NaN for empty / NaI) */

/* ---- arithmetic ---- */

/* Rare operands (empty or NaI, detected by !(lo <= hi)): the result of a binary operation. */
static inline SRInterval SRIntervalSpecial_Private(SRInterval a, SRInterval b)
{
  return (SRIntervalIsNaI(a) || SRIntervalIsNaI(b)) ? SRIntervalNaI() : SRIntervalEmpty();
}
#define SR_IV_RARE(a) (!((a).lo <= (a).hi))

static inline SRInterval SRIntervalNeg(SRInterval x) { return (SRInterval){-x.hi, -x.lo}; }
static inline SRInterval SRIntervalAdd(SRInterval a, SRInterval b)
{
  if (SR_IV_RARE(a) || SR_IV_RARE(b)) return SRIntervalSpecial_Private(a, b);
  return (SRInterval){SRAddDown(a.lo, b.lo), SRAddUp(a.hi, b.hi)};
}
static inline SRInterval SRIntervalSub(SRInterval a, SRInterval b)
{
  if (SR_IV_RARE(a) || SR_IV_RARE(b)) return SRIntervalSpecial_Private(a, b);
  return (SRInterval){SRSubDown(a.lo, b.hi), SRSubUp(a.hi, b.lo)};
}
/* IEEE 1788 products of endpoints: 0 * inf = 0 (the set product never reaches inf). */
static inline double SRMulUp_Private(double a, double b) { return (a == 0 || b == 0) ? 0.0 : SRMulUp(a, b); }
static inline double SRMulDown_Private(double a, double b) { return (a == 0 || b == 0) ? 0.0 : SRMulDown(a, b); }
/* min / max that keep a NaN first argument (clamps must not turn a NaN into a number) */
static inline double SRMin_Private(double a, double b) { return b < a ? b : a; }
static inline double SRMax_Private(double a, double b) { return b > a ? b : a; }
/* The four endpoint products bound the product of the sets for every sign pattern (the
   bilinear map attains its extrema at corners), so mixed signs need no case analysis:
   [-1,3]*[-2,1] = [min(2,-1,-6,3), max(...)] = [-6,3]. */
static inline SRInterval SRIntervalMul(SRInterval a, SRInterval b)
{
  if (SR_IV_RARE(a) || SR_IV_RARE(b)) return SRIntervalSpecial_Private(a, b);
  double lo = SRMin_Private(SRMin_Private(SRMulDown_Private(a.lo, b.lo), SRMulDown_Private(a.lo, b.hi)),
                            SRMin_Private(SRMulDown_Private(a.hi, b.lo), SRMulDown_Private(a.hi, b.hi)));
  double hi = SRMax_Private(SRMax_Private(SRMulUp_Private(a.lo, b.lo), SRMulUp_Private(a.lo, b.hi)),
                            SRMax_Private(SRMulUp_Private(a.hi, b.lo), SRMulUp_Private(a.hi, b.hi)));
  return (SRInterval){lo, hi};
}
SRInterval SRIntervalDiv(SRInterval a, SRInterval b); /* single-interval hull when 0 in b */
SRInterval SRIntervalRecip(SRInterval a);
/* s * x for a point s (NaI unless s is finite) */
static inline SRInterval SRIntervalScale(double s, SRInterval x)
{
  if (!isfinite(s) || SR_IV_RARE(x)) return isfinite(s) ? x : SRIntervalNaI();
  if (s >= 0) return (SRInterval){SRMulDown_Private(s, x.lo), SRMulUp_Private(s, x.hi)};
  return (SRInterval){SRMulDown_Private(s, x.hi), SRMulUp_Private(s, x.lo)};
}
/* s + x for a point s (NaI unless s is finite) */
static inline SRInterval SRIntervalShift(double s, SRInterval x)
{
  if (!isfinite(s) || SR_IV_RARE(x)) return isfinite(s) ? x : SRIntervalNaI();
  return (SRInterval){SRAddDown(s, x.lo), SRAddUp(s, x.hi)};
}
static inline SRInterval SRIntervalSqr(SRInterval x)
{
  if (SR_IV_RARE(x)) return x;
  if (x.lo >= 0) return (SRInterval){SRMulDown(x.lo, x.lo), SRMulUp(x.hi, x.hi)};
  if (x.hi <= 0) return (SRInterval){SRMulDown(x.hi, x.hi), SRMulUp(x.lo, x.lo)};
  double m = SRMax_Private(-x.lo, x.hi);
  return (SRInterval){0.0, SRMulUp(m, m)};
}
/* sqrt of x intersected with [0, inf] (IEEE 1788): empty when x < 0 */
static inline SRInterval SRIntervalSqrt(SRInterval x)
{
  if (SR_IV_RARE(x)) return x;
  if (x.hi < 0) return SRIntervalEmpty();
  return (SRInterval){x.lo <= 0 ? 0.0 : SRSqrtDown(x.lo), SRSqrtUp(x.hi)};
}
static inline SRInterval SRIntervalAbs(SRInterval x)
{
  if (SR_IV_RARE(x)) return x;
  if (x.lo >= 0) return (SRInterval){x.lo + 0.0, x.hi};
  if (x.hi <= 0) return (SRInterval){-x.hi, -x.lo};
  return (SRInterval){0.0, SRMax_Private(-x.lo, x.hi)};
}
static inline SRInterval SRIntervalMin(SRInterval a, SRInterval b)
{
  if (SR_IV_RARE(a) || SR_IV_RARE(b)) return SRIntervalSpecial_Private(a, b);
  return (SRInterval){SRMin_Private(a.lo, b.lo), SRMin_Private(a.hi, b.hi)};
}
static inline SRInterval SRIntervalMax(SRInterval a, SRInterval b)
{
  if (SR_IV_RARE(a) || SR_IV_RARE(b)) return SRIntervalSpecial_Private(a, b);
  return (SRInterval){SRMax_Private(a.lo, b.lo), SRMax_Private(a.hi, b.hi)};
}
/* Hull: empty is neutral (its [+inf,-inf] representation makes min/max do it); NaI wins. */
static inline SRInterval SRIntervalHull(SRInterval a, SRInterval b)
{
  if (SRIntervalIsNaI(a) || SRIntervalIsNaI(b)) return SRIntervalNaI();
  return (SRInterval){SRMin_Private(a.lo, b.lo), SRMax_Private(a.hi, b.hi)};
}
static inline SRInterval SRIntervalIntersect(SRInterval a, SRInterval b)
{
  if (SRIntervalIsNaI(a) || SRIntervalIsNaI(b)) return SRIntervalNaI();
  SRInterval r = {SRMax_Private(a.lo, b.lo), SRMin_Private(a.hi, b.hi)};
  return r.lo <= r.hi ? r : SRIntervalEmpty();
}
/* {min(max(t, lo), hi) : t in x}; NaI unless lo <= hi (no NaN) */
static inline SRInterval SRIntervalClip(SRInterval x, double lo, double hi)
{
  if (!(lo <= hi) || SRIntervalIsNaI(x)) return SRIntervalNaI();
  if (SRIntervalIsEmpty(x)) return x;
  return (SRInterval){SRMin_Private(SRMax_Private(x.lo, lo), hi), SRMin_Private(SRMax_Private(x.hi, lo), hi)};
}

/* ---- elementary functions (libm evaluation + proven widening, src/numerics/interval.c) ---- */
SRInterval SRIntervalExp(SRInterval x);
SRInterval SRIntervalTanh(SRInterval x);
SRInterval SRIntervalSin(SRInterval x);
SRInterval SRIntervalCos(SRInterval x);
/* Derivative of tanh, 1 - tanh(x)^2, enclosed over x (used by Taylor models). */
SRInterval SRIntervalDTanh(SRInterval x);
/* The logistic sigmoid 1 / (1 + e^-x) and its derivative, enclosed over x (SPEC §14). */
SRInterval SRIntervalSigmoid(SRInterval x);
SRInterval SRIntervalDSigmoid(SRInterval x);

/* Point evaluations with rigorous bounds: lo <= f(x) <= hi (NaN bounds for a NaN x). */
void SRTanhBounds(double x, double *lo, double *hi);
void SRExpBounds(double x, double *lo, double *hi);
void SRSigmoidBounds(double x, double *lo, double *hi);
void SRSinBounds(double x, double *lo, double *hi);
void SRCosBounds(double x, double *lo, double *hi);
