/* Sound interval arithmetic on doubles (SPEC §7 depends on it).

   Representation: [lo, hi] with lo <= hi, endpoints may be +-inf (the set is the reals
   between them).  Empty = [+inf, -inf].  NaI (not an interval, the result of a NaN input)
   = [NaN, NaN]; any operation with a NaI operand gives NaI, so a NaN never yields a finite
   interval.  Every operation returns an interval that contains the exact real result for
   every point of the operands (outward rounding).  Basic operations round to nearest and
   then correct with an error-free transformation (TwoSum / FMA remainder), which gives the
   exact directed rounding; libm-based functions are widened by a justified ulp bound
   (see src/interval.c).  Not collective; thread-safe; no global state. */
#pragma once

#include <math.h>
#include <stdbool.h>

typedef struct {
  double lo, hi;
} SRInterval;

SRInterval SRIntervalMake(double lo, double hi); /* NaI if lo > hi or a NaN */
SRInterval SRIntervalPoint(double x);
SRInterval SRIntervalEmpty(void);
SRInterval SRIntervalEntire(void);
SRInterval SRIntervalNaI(void);
bool       SRIntervalIsEmpty(SRInterval x);
bool       SRIntervalIsNaI(SRInterval x);
bool       SRIntervalIsEntire(SRInterval x);
bool       SRIntervalIsBounded(SRInterval x); /* non-empty, valid, both endpoints finite */
bool       SRIntervalSubset(SRInterval a, SRInterval b); /* a within b (empty within all); false on NaI */
bool       SRIntervalContains(SRInterval a, double x);
double     SRIntervalMid(SRInterval x);      /* a point of x (finite when x is bounded) */
double     SRIntervalRadUp(SRInterval x);    /* r with x within [mid - r, mid + r], rounded up */
double     SRIntervalWidthUp(SRInterval x);  /* hi - lo rounded up */

/* Directed rounding of the basic operations on doubles (exact results). */
double SRAddDown(double a, double b);
double SRAddUp(double a, double b);
double SRSubDown(double a, double b);
double SRSubUp(double a, double b);
double SRMulDown(double a, double b);
double SRMulUp(double a, double b);
double SRDivDown(double a, double b);
double SRDivUp(double a, double b);
double SRSqrtDown(double a);
double SRSqrtUp(double a);

SRInterval SRIntervalNeg(SRInterval x);
SRInterval SRIntervalAdd(SRInterval a, SRInterval b);
SRInterval SRIntervalSub(SRInterval a, SRInterval b);
SRInterval SRIntervalMul(SRInterval a, SRInterval b);  /* mixed signs: [-1,3]*[-2,1] = [-6,3] */
SRInterval SRIntervalDiv(SRInterval a, SRInterval b);  /* single-interval hull when 0 in b */
SRInterval SRIntervalRecip(SRInterval a);
SRInterval SRIntervalScale(double s, SRInterval x);    /* s * x for a point s */
SRInterval SRIntervalShift(double s, SRInterval x);    /* s + x for a point s */
SRInterval SRIntervalSqr(SRInterval x);
SRInterval SRIntervalSqrt(SRInterval x);
SRInterval SRIntervalAbs(SRInterval x);
SRInterval SRIntervalMin(SRInterval a, SRInterval b);
SRInterval SRIntervalMax(SRInterval a, SRInterval b);
SRInterval SRIntervalHull(SRInterval a, SRInterval b);
SRInterval SRIntervalIntersect(SRInterval a, SRInterval b);
SRInterval SRIntervalClip(SRInterval x, double lo, double hi); /* {min(max(t,lo),hi) : t in x} */

/* Elementary functions (libm evaluation + proven widening, src/interval.c). */
SRInterval SRIntervalExp(SRInterval x);
SRInterval SRIntervalTanh(SRInterval x);
SRInterval SRIntervalSin(SRInterval x);
SRInterval SRIntervalCos(SRInterval x);
/* Derivative of tanh, 1 - tanh(x)^2, enclosed over x (used by Taylor models). */
SRInterval SRIntervalDTanh(SRInterval x);

/* Point evaluations with rigorous bounds: lo <= f(x) <= hi. */
void SRTanhBounds(double x, double *lo, double *hi);
void SRExpBounds(double x, double *lo, double *hi);
void SRSinBounds(double x, double *lo, double *hi);
void SRCosBounds(double x, double *lo, double *hi);
