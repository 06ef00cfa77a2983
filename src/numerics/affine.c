/* Affine forms of any dimension up to SR_AFFINE_MAX (include/simreach/affine.h, SPEC §15).

   Soundness by construction: every coefficient of a result is computed as an outward-rounded
   interval with the operations of include/simreach/interval.h; SRAffineFrom_Private keeps its
   midpoint and moves the interval's deviation from the midpoint, times xi_i in [-1,1], into
   the remainder with directed rounding.  So the only approximation made in round-to-nearest
   is the choice of a midpoint, which cannot break an enclosure.  Linear combinations with
   point scalars (sums, point scalings, the linear part of a product) compute the coefficients
   in double instead and move an a-priori bound of their rounding errors into the remainder
   (SRAffineCoeffs_Private): the same guarantee at a fraction of the cost. */
#include <simreach/affine.h>

#include <stdlib.h>

/* Steps of nextafter that cover the libm error of log (glibc manual: <= 1 ulp on x86_64, as
   for exp; the same factor-2 margin as SR_ULPS_EXP_SIN_COS in src/numerics/interval.c). */
#define SR_ULPS_LOG 4

static SRInterval SRIntervalNaIFor_Private(void) { return SRIntervalNaI(); }

SRInterval SRIntervalLogX(SRInterval x)
{
  SRInterval y;
  if (SRIntervalIsNaI(x)) return SRIntervalNaI();
  if (SRIntervalIsEmpty(x) || x.hi < 0) return SRIntervalEmpty();
  if (x.hi == 0) return SRIntervalNaIFor_Private(); /* {-inf}: no real */
  if (x.lo <= 0)
    y.lo = -INFINITY;
  else {
    y.lo = log(x.lo);
    for (int k = 0; k < SR_ULPS_LOG; k++)
      y.lo = SRNextDown(y.lo);
  }
  if (x.hi == INFINITY)
    y.hi = INFINITY;
  else {
    y.hi = log(x.hi);
    for (int k = 0; k < SR_ULPS_LOG; k++)
      y.hi = SRNextUp(y.hi);
  }
  return y;
}

SRInterval SRIntervalDecimal(const char *s, char **end)
{
  double   d = strtod(s, end);
  uint64_t D = 0;
  int      E = 0, digits = 0;
  bool     exact = true, frac = false;
  if (*end == s || !isfinite(d)) return SRIntervalNaI();
  /* the decimal as D 10^E (D < 10^18), then exact iff D 10^E is a dyadic number of <= 53 bits */
  for (const char *q = s; q < *end; q++) {
    if (*q == '.')
      frac = true;
    else if (*q >= '0' && *q <= '9') {
      if (D == 0 && *q == '0') {
        if (frac) E--;
        continue;
      }
      if (digits >= 18) {
        if (*q != '0') exact = false;
        if (!frac) E++;
        continue;
      }
      D = 10 * D + (uint64_t)(*q - '0'), digits++;
      if (frac) E--;
    } else if (*q == 'e' || *q == 'E') {
      E += atoi(q + 1);
      break;
    }
  }
  if (D == 0) return SRIntervalPoint(0.0);
  while (exact && E < 0) { /* divide by 10 = 2 * 5: needs a factor 5 in D */
    if (D % 5)
      exact = false;
    else
      D /= 5, E++;
    /* the factor 2 is exact in binary; count it separately */
  }
  if (exact && E > 0) {
    for (; E > 0 && D < (1ULL << 53); E--)
      D *= 10;
    if (E > 0) exact = false;
  }
  if (exact && D < (1ULL << 53)) return SRIntervalPoint(d);
  return (SRInterval) { SRNextDown(d), SRNextUp(d) };
}

SRInterval SRIntervalTanX(SRInterval x)
{
  SRInterval c = SRIntervalCos(x);
  if (SRIntervalIsNaI(c)) return c;
  if (c.lo <= 0 && c.hi >= 0) return SRIntervalEntire();
  return SRIntervalDiv(SRIntervalSin(x), c);
}

SRAffine SRAffineConstant(double v)
{
  SRAffine a;
  memset(&a, 0, sizeof a);
  a.c0 = v;
  a.r  = SRIntervalPoint(0.0);
  return a;
}

SRAffine SRAffineInterval(SRInterval x)
{
  SRAffine a = SRAffineConstant(0.0);
  if (SRIntervalIsNaI(x) || !SRIntervalIsBounded(x)) {
    a.r = SRIntervalIsNaI(x) || SRIntervalIsEmpty(x) ? SRIntervalNaI() : x;
    return a;
  }
  a.c0 = SRIntervalMid(x);
  a.r  = SRIntervalShift(-a.c0, x);
  return a;
}

SRAffine SRAffineVariable(int i, double centre, double halfwidth)
{
  SRAffine a = SRAffineConstant(centre);
  a.c[i]     = halfwidth;
  return a;
}

bool SRAffineIsNaI(const SRAffine *a) { return SRIntervalIsNaI(a->r) || isnan(a->c0); }

/* sum_i |a_i| bounded above: n nonnegative terms summed in round-to-nearest have a relative
   error below (n - 1) 2^-53 / (1 - (n - 1) 2^-53), so S (1 + 2^-40) rounded up bounds the real
   sum for n <= 2^30 (NaN stays NaN) */
static double SRAffineAbsSum_Private(int n, const double *a)
{
  double S = 0.0;
  for (int i = 0; i < n; i++) S += fabs(a[i]);
  return SRMulUp(S, 1.0 + 0x1p-40);
}

SRInterval SRAffineLinearRange(int n, const SRAffine *a)
{
  const double S = SRAffineAbsSum_Private(n, a->c);
  if (isnan(S)) return SRIntervalNaI();
  return (SRInterval) { -S, S };
}

SRInterval SRAffineRange(int n, const SRAffine *a)
{
  if (SRAffineIsNaI(a)) return SRIntervalNaI();
  return SRIntervalAdd(SRIntervalShift(a->c0, SRAffineLinearRange(n, a)), a->r);
}

/* the form with c0 in I0, c_i in I[i], remainder R */
static SRAffine SRAffineFrom_Private(int n, SRInterval I0, const SRInterval *I, SRInterval R)
{
  SRAffine y   = SRAffineConstant(0.0);
  double   dev = 0.0;

  if (SRIntervalIsNaI(I0) || SRIntervalIsEmpty(I0) || !SRIntervalIsBounded(I0)) {
    y.r = SRIntervalNaI();
    return y;
  }
  y.c0 = SRIntervalMid(I0);
  R    = SRIntervalAdd(R, SRIntervalShift(-y.c0, I0));
  for (int i = 0; i < n; i++) {
    if (SRIntervalIsNaI(I[i]) || !SRIntervalIsBounded(I[i])) {
      y.r = SRIntervalNaI();
      return y;
    }
    y.c[i] = SRIntervalMid(I[i]);
    dev    = SRAddUp(dev, SRMax_Private(SRSubUp(I[i].hi, y.c[i]), SRSubUp(y.c[i], I[i].lo)));
  }
  y.r = SRIntervalAdd(R, (SRInterval) { -dev, dev });
  if (isnan(y.r.lo) || isnan(y.r.hi) || isnan(dev)) y.r = SRIntervalNaI();
  return y;
}

SRAffine SRAffineFromIntervals(int n, SRInterval I0, const SRInterval *I, SRInterval R) { return SRAffineFrom_Private(n, I0, I, R); }

static inline SRInterval P_(double x) { return (SRInterval) { x, x }; }

/* The coefficients s a_i + t b_i for points s, t, computed in double, and a bound of their
   rounding errors summed over i (each |xi_i| <= 1): fl(fl(s a) + fl(t b)) differs from the real
   value by at most 2^-52 (|s a| + |t b|) (1 + 2^-50) plus 2^-1073 for underflow, with or without
   a fused multiply-add; the sum S of the |products| is itself computed in round-to-nearest, so
   it is taken times (1 + 2^-40) (covers n <= 2^30).  Returns NaN when a value is not finite. */
static double SRAffineCoeffs_Private(int n, double s, const double *a, double t, const double *b, double *c)
{
  double S = 0.0;
  for (int i = 0; i < n; i++) {
    const double u = s * a[i], v = t * b[i];
    c[i] = u + v;
    S += fabs(u) + fabs(v);
  }
  if (!isfinite(S)) return NAN;
  return SRAddUp(SRMulUp(SRMulUp(S, 0x1p-52), 1.0 + 0x1p-40), SRMulUp((double)n + 1.0, 0x1p-1072));
}

/* the form with c0 in I0, coefficients c (already in y) with a total error dev, remainder R */
static SRAffine SRAffineFinish_Private(SRAffine *y, SRInterval I0, double dev, SRInterval R)
{
  if (SRIntervalIsNaI(I0) || SRIntervalIsEmpty(I0) || !SRIntervalIsBounded(I0) || isnan(dev)) {
    y->r = SRIntervalNaI();
    return *y;
  }
  y->c0 = SRIntervalMid(I0);
  y->r  = SRIntervalAdd(SRIntervalAdd(R, SRIntervalShift(-y->c0, I0)), (SRInterval) { -dev, dev });
  if (isnan(y->r.lo) || isnan(y->r.hi)) y->r = SRIntervalNaI();
  return *y;
}

/* s a + t b for interval scalars s, t.  Points take the double path of SRAffineCoeffs_Private.
   Other finite s, t (a decimal constant is an interval one ulp wide) take their midpoints ms, mt
   and radii rs, rt (bounded above): s a_i + t b_i - fl(ms a_i + mt b_i) is at most
   rs |a_i| + rt |b_i| plus the rounding of SRAffineCoeffs_Private, each times |xi_i| <= 1, so
   dev + rs sum |a_i| + rt sum |b_i| (rounded up) bounds the coefficients' error.  Unbounded
   scalars take every coefficient as an interval. */
static SRAffine SRAffineCombine_Private(int n, SRInterval s, const SRAffine *a, SRInterval t, const SRAffine *b)
{
  const SRInterval I0 = SRIntervalAdd(SRIntervalMul(s, P_(a->c0)), SRIntervalMul(t, P_(b->c0)));
  const SRInterval R  = SRIntervalAdd(SRIntervalMul(s, a->r), SRIntervalMul(t, b->r));
  SRInterval       I[SR_AFFINE_MAX];
  if (s.lo == s.hi && t.lo == t.hi && isfinite(s.lo) && isfinite(t.lo)) {
    SRAffine     y   = SRAffineConstant(0.0);
    const double dev = SRAffineCoeffs_Private(n, s.lo, a->c, t.lo, b->c, y.c);
    return SRAffineFinish_Private(&y, I0, dev, R);
  }
  if (SRIntervalIsBounded(s) && SRIntervalIsBounded(t) && s.lo <= s.hi && t.lo <= t.hi) {
    SRAffine     y  = SRAffineConstant(0.0);
    const double rs = SRIntervalRadUp(s), rt = SRIntervalRadUp(t);
    double       dev = SRAffineCoeffs_Private(n, SRIntervalMid(s), a->c, SRIntervalMid(t), b->c, y.c);
    if (rs > 0) dev = SRAddUp(dev, SRMulUp(rs, SRAffineAbsSum_Private(n, a->c)));
    if (rt > 0) dev = SRAddUp(dev, SRMulUp(rt, SRAffineAbsSum_Private(n, b->c)));
    return SRAffineFinish_Private(&y, I0, dev, R);
  }
  for (int i = 0; i < n; i++)
    I[i] = SRIntervalAdd(SRIntervalMul(s, P_(a->c[i])), SRIntervalMul(t, P_(b->c[i])));
  return SRAffineFrom_Private(n, I0, I, R);
}

/* C + sum_j s_j a_j (k forms, interval scalars) in one pass: the coefficients sum_j mid(s_j) a_j,i
   in double (any order, fused or not: a dot product of k terms is within
   gamma_k sum_j |mid(s_j) a_j,i| of its value, gamma_k <= (k + 2) 2^-52 for k < 2^40, plus
   k 2^-1074 for underflow), the radii of the s_j times sum_i |a_j,i| and the constants and
   remainders in interval arithmetic, all bounded upward into the remainder (as
   SRAffineCombine_Private does for two forms).  Unbounded scalars fall back to pairwise sums. */
SRAffine SRAffineDotInterval(int n, int k, const SRInterval *s, const SRAffine *const *a, SRInterval C)
{
  SRAffine   y = SRAffineConstant(0.0);
  SRInterval I0 = C, R = P_(0.0);
  double     mu[64], S = 0.0, dev = 0.0;
  bool       bounded = k <= 64;
  for (int j = 0; j < k && bounded; j++) bounded = SRIntervalIsBounded(s[j]) && s[j].lo <= s[j].hi;
  if (!bounded) {
    y = SRAffineInterval(C);
    for (int j = 0; j < k; j++) {
      SRAffine t = SRAffineScaleInterval(n, s[j], a[j]);
      y          = SRAffineAdd(n, &y, &t);
    }
    return y;
  }
  for (int j = 0; j < k; j++) {
    const double r = SRIntervalRadUp(s[j]);
    mu[j]          = SRIntervalMid(s[j]);
    I0             = SRIntervalAdd(I0, SRIntervalMul(s[j], P_(a[j]->c0)));
    R              = SRIntervalAdd(R, SRIntervalMul(s[j], a[j]->r));
    if (r > 0) dev = SRAddUp(dev, SRMulUp(r, SRAffineAbsSum_Private(n, a[j]->c)));
  }
  for (int i = 0; i < n; i++) {
    double c = 0.0, t = 0.0;
    for (int j = 0; j < k; j++) {
      const double p = mu[j] * a[j]->c[i];
      c += p, t += fabs(p);
    }
    y.c[i] = c, S += t;
  }
  if (!isfinite(S)) dev = NAN;
  else dev = SRAddUp(dev, SRAddUp(SRMulUp(SRMulUp(S, 1.0 + 0x1p-40), (double)(k + 2) * 0x1p-52), SRMulUp((double)n * (double)k + 1.0, 0x1p-1073)));
  return SRAffineFinish_Private(&y, I0, dev, R);
}

SRAffine SRAffineAdd(int n, const SRAffine *a, const SRAffine *b) { return SRAffineCombine_Private(n, P_(1.0), a, P_(1.0), b); }
SRAffine SRAffineSub(int n, const SRAffine *a, const SRAffine *b) { return SRAffineCombine_Private(n, P_(1.0), a, P_(-1.0), b); }
SRAffine SRAffineNeg(int n, const SRAffine *a)
{
  SRAffine y = *a;
  y.c0       = -a->c0;
  for (int i = 0; i < n; i++)
    y.c[i] = -a->c[i];
  y.r = SRIntervalNeg(a->r);
  return y;
}

SRAffine SRAffineScaleInterval(int n, SRInterval C, const SRAffine *a)
{
  SRAffine z = SRAffineConstant(0.0);
  return SRAffineCombine_Private(n, C, a, P_(0.0), &z);
}

SRAffine SRAffineAddInterval(int n, const SRAffine *a, SRInterval C)
{
  SRAffine y = SRAffineInterval(C);
  return SRAffineAdd(n, a, &y);
}

/* (a0 + A xi + ra)(b0 + B xi + rb) = a0 b0 + (a0 B + b0 A) xi
   + [(A xi)(B xi) + (A xi) rb + ra (b0 + B xi + rb)]: the bracket enclosed by intervals. */
SRAffine SRAffineMul(int n, const SRAffine *a, const SRAffine *b)
{
  SRInterval I0, R, LA = SRAffineLinearRange(n, a), LB = SRAffineLinearRange(n, b);
  SRAffine   y   = SRAffineConstant(0.0);
  double     dev = SRAffineCoeffs_Private(n, a->c0, b->c, b->c0, a->c, y.c);
  I0             = SRIntervalMul(P_(a->c0), P_(b->c0));
  R              = SRIntervalAdd(SRIntervalAdd(SRIntervalMul(LA, LB), SRIntervalMul(LA, b->r)), SRIntervalMul(a->r, SRAffineRange(n, b)));
  R              = SRIntervalAdd(R, SRIntervalMul(P_(a->c0), b->r));
  return SRAffineFinish_Private(&y, I0, dev, R);
}

/* a^2 = a0^2 + 2 a0 A xi + [(A xi + ra)^2 + 2 a0 ra]: the square term is >= 0. */
SRAffine SRAffineSqr(int n, const SRAffine *a)
{
  SRAffine   y = SRAffineConstant(0.0);
  SRInterval I0, R, D = SRIntervalAdd(SRAffineLinearRange(n, a), a->r);
  /* the coefficients 2 a0 a_i in double (2 a0 exact), their rounding bounded a priori */
  const double dev = SRAffineCoeffs_Private(n, 2.0 * a->c0, a->c, 0.0, a->c, y.c);
  I0 = SRIntervalMul(P_(a->c0), P_(a->c0));
  R  = SRIntervalAdd(SRIntervalSqr(D), SRIntervalMul(P_(2.0 * a->c0), a->r));
  return SRAffineFinish_Private(&y, I0, dev, R);
}

typedef enum { SR_AF_EXP, SR_AF_LOG, SR_AF_SQRT, SR_AF_SIN, SR_AF_COS, SR_AF_TAN, SR_AF_TANH, SR_AF_RECIP } SRAffineFun_Private;

static SRInterval SRAffineF_Private(SRAffineFun_Private f, SRInterval x)
{
  switch (f) {
  case SR_AF_EXP:
    return SRIntervalExp(x);
  case SR_AF_LOG:
    return SRIntervalLogX(x);
  case SR_AF_SQRT:
    return SRIntervalSqrt(x);
  case SR_AF_SIN:
    return SRIntervalSin(x);
  case SR_AF_COS:
    return SRIntervalCos(x);
  case SR_AF_TAN:
    return SRIntervalTanX(x);
  case SR_AF_TANH:
    return SRIntervalTanh(x);
  default:
    return SRIntervalRecip(x);
  }
}

static SRInterval SRAffineDF_Private(SRAffineFun_Private f, SRInterval x)
{
  switch (f) {
  case SR_AF_EXP:
    return SRIntervalExp(x);
  case SR_AF_LOG:
    return SRIntervalRecip(x);
  case SR_AF_SQRT:
    return SRIntervalRecip(SRIntervalScale(2.0, SRIntervalSqrt(x)));
  case SR_AF_SIN:
    return SRIntervalCos(x);
  case SR_AF_COS:
    return SRIntervalNeg(SRIntervalSin(x));
  case SR_AF_TAN:
    return SRIntervalShift(1.0, SRIntervalSqr(SRIntervalTanX(x)));
  case SR_AF_TANH:
    return SRIntervalDTanh(x);
  default:
    return SRIntervalNeg(SRIntervalRecip(SRIntervalSqr(x)));
  }
}

/* Domain of f: an argument range leaving it gives NaI (the flow then cannot be proven). */
static bool SRAffineInDomain_Private(SRAffineFun_Private f, SRInterval R)
{
  switch (f) {
  case SR_AF_LOG:
    return R.lo > 0;
  case SR_AF_SQRT:
    return R.lo >= 0;
  case SR_AF_RECIP:
    return R.lo > 0 || R.hi < 0;
  case SR_AF_TAN: {
    SRInterval c = SRIntervalCos(R);
    return c.lo > 0 || c.hi < 0;
  }
  default:
    return true;
  }
}

static SRAffine SRAffineApply_Private(int n, const SRAffine *a, SRAffineFun_Private f)
{
  const SRInterval R = SRAffineRange(n, a);
  SRAffine         y = SRAffineConstant(0.0), c;
  SRInterval       fR, I0, I[SR_AFFINE_MAX], Rem, dR;
  double           m, lambda;

  if (SRIntervalIsNaI(R) || !SRIntervalIsBounded(R) || !SRAffineInDomain_Private(f, R)) {
    y.r = SRIntervalNaI();
    return y;
  }
  fR = SRAffineF_Private(f, R);
  c  = SRAffineInterval(fR); /* the constant form: always sound */
  if (!SRIntervalIsBounded(fR)) {
    y.r = SRIntervalNaI();
    return y;
  }
  dR = SRAffineDF_Private(f, R);
  if (!SRIntervalIsBounded(dR)) return c;
  m      = SRIntervalMid(R);
  lambda = SRIntervalMid(SRAffineDF_Private(f, P_(m)));
  if (!isfinite(lambda)) return c;
  /* f(a) in f(m) + lambda (a - m) + (f'(R) - lambda)(R - m) */
  I0 = SRIntervalAdd(SRIntervalMul(P_(lambda), SRIntervalSub(P_(a->c0), P_(m))), SRAffineF_Private(f, P_(m)));
  for (int i = 0; i < n; i++)
    I[i] = SRIntervalMul(P_(lambda), P_(a->c[i]));
  Rem = SRIntervalAdd(SRIntervalMul(P_(lambda), a->r), SRIntervalMul(SRIntervalShift(-lambda, dR), SRIntervalShift(-m, R)));
  y   = SRAffineFrom_Private(n, I0, I, Rem);
  if (SRAffineIsNaI(&y)) return c;
  /* keep the form unless its remainder alone is wider than the constant f(R): the constant has
     the narrower range whenever f is monotone on R (f(R) is exact there), but it drops the
     dependence on the coordinates, and a closed loop then wraps within a few periods; the form's
     remainder is what it loses of that dependence */
  if (!(SRIntervalWidthUp(y.r) < SRIntervalWidthUp(fR))) return c;
  return y;
}

SRAffine SRAffineRecip(int n, const SRAffine *a) { return SRAffineApply_Private(n, a, SR_AF_RECIP); }
SRAffine SRAffineDiv(int n, const SRAffine *a, const SRAffine *b)
{
  SRAffine r = SRAffineRecip(n, b);
  return SRAffineMul(n, a, &r);
}
SRAffine SRAffineExp(int n, const SRAffine *a) { return SRAffineApply_Private(n, a, SR_AF_EXP); }
SRAffine SRAffineLog(int n, const SRAffine *a) { return SRAffineApply_Private(n, a, SR_AF_LOG); }
SRAffine SRAffineSqrt(int n, const SRAffine *a) { return SRAffineApply_Private(n, a, SR_AF_SQRT); }
SRAffine SRAffineSin(int n, const SRAffine *a) { return SRAffineApply_Private(n, a, SR_AF_SIN); }
SRAffine SRAffineCos(int n, const SRAffine *a) { return SRAffineApply_Private(n, a, SR_AF_COS); }
SRAffine SRAffineTan(int n, const SRAffine *a) { return SRAffineApply_Private(n, a, SR_AF_TAN); }
SRAffine SRAffineTanh(int n, const SRAffine *a) { return SRAffineApply_Private(n, a, SR_AF_TANH); }
