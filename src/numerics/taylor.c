/* First-order Taylor models (SPEC §7, taylor1): the arithmetic (numerics layer).  The MLP
   forward pass, the activations, the Taylor steps of the systems of SPEC §2 and the
   Taylor-model enclosure of f_phi over a box are src/model/model_taylor.c.

   Rounding.  Coefficients are computed in round-to-nearest; every computed sum s of m terms
   p_j (products rounded or fused) satisfies |s - sum p_j(exact)| <= gamma_m sum |p_j| (Higham,
   Thm 3.1), and that bound, evaluated from the computed sum of absolute values with a factor-2
   margin (SRSumErr_Private), is swept into the interval remainder.  Remainders themselves are
   added with directed rounding (SRAddUp / SRSubDown of src/numerics/interval.c).

   Nonlinearities (tanh, sigmoid, sin, cos; ReLU in src/model/model_taylor.c).  Over the range R = [l, u] of the argument the function is
   replaced by the line lambda x plus an enclosure of g(x) = f(x) - lambda x over R.  Narrow
   ranges (u - l <= 1/16, the usual case on small cells): lambda = f'(mid) and the mean-value
   form g(mid) + (f'(R) - lambda)(R - mid).  Wide ranges: lambda is the chord slope
   (f(u) - f(l)) / (u - l) and g is enclosed piece by piece (pieces of width <= 1/2): on a piece
   [a, b] where the interval g'([a, b]) = f'([a, b]) - lambda has one sign, g lies between its
   endpoint values (point enclosures of f); otherwise by the mean-value form
   g(c) + g'([a, b]) ([a, b] - c), intersected with f([a, b]) - lambda [a, b].  Both are
   sound for any double lambda; the chord makes the remainder nearly minimal. */
#include <simreach/taylor.h>
#include <math.h>

#include <float.h>

/* e >= |rounding error| of a computed sum of m terms whose computed |terms| add up to S (>= 0):
   gamma_m S (1 + 2 gamma_m) + underflow, with g = 2 (m + 2) u as margin (u = 2^-53). */
static inline double SRSumErr_Private(PetscInt m, double S)
{
  const double g = (double)(m + 2) * 0x1p-52;
  return (S * g) * (1.0 + g) + DBL_MIN;
}

SRTaylor SRTaylorVariable(PetscInt n, PetscInt i, double centre, double halfwidth)
{
  SRTaylor t = SRTaylorConstant(n, centre);
  t.c[i]     = halfwidth;
  return t;
}

SRTaylor SRTaylorConstant(PetscInt n, double value)
{
  SRTaylor t;
  t.c0 = value;
  for (PetscInt i = 0; i < SR_MAX_DIM; i++)
    t.c[i] = 0.0;
  t.r = SRIntervalPoint(0.0);
  return t;
}

/* sum_j a[j] t[j] + b: each coefficient in floating point, its a-priori rounding error bound
   (times |xi_i| <= 1) and the rounding of the remainder sum go into the remainder. */
static inline __attribute__((always_inline)) SRTaylor SRTaylorLinear_Private(const PetscInt n, PetscInt m, const double *a, const SRTaylor *t, double b)
{
  SRTaylor y;
  double   s[SR_MAX_DIM + 1], S[SR_MAX_DIM + 1], rlo = 0.0, rhi = 0.0, Slo = 0.0, Shi = 0.0, E = 0.0;

  s[0] = b;
  S[0] = fabs(b);
  for (PetscInt i = 0; i < n; i++)
    s[i + 1] = S[i + 1] = 0.0;
  for (PetscInt j = 0; j < m; j++) {
    const double aj = a[j];
    const double p0 = aj * t[j].c0;
    s[0] += p0;
    S[0] += fabs(p0);
    for (PetscInt i = 0; i < n; i++) {
      const double p = aj * t[j].c[i];
      s[i + 1] += p;
      S[i + 1] += fabs(p);
    }
    /* a r = [a lo, a hi] for a >= 0, [a hi, a lo] otherwise (0 * r = 0 when r is finite) */
    const double plo = aj >= 0 ? aj * t[j].r.lo : aj * t[j].r.hi;
    const double phi = aj >= 0 ? aj * t[j].r.hi : aj * t[j].r.lo;
    rlo += plo;
    rhi += phi;
    Slo += fabs(plo);
    Shi += fabs(phi);
  }
  for (PetscInt i = 0; i <= n; i++)
    E = SRAddUp(E, SRSumErr_Private(m + 1, S[i]));
  y.c0 = s[0];
  for (PetscInt i = 0; i < SR_MAX_DIM; i++)
    y.c[i] = i < n ? s[i + 1] : 0.0;
  y.r.lo = SRSubDown(rlo, SRAddUp(SRSumErr_Private(m, Slo), E));
  y.r.hi = SRAddUp(rhi, SRAddUp(SRSumErr_Private(m, Shi), E));
  if (isnan(y.r.lo) || isnan(y.r.hi)) y.r = SRIntervalNaI();
  return y;
}

/* specialised for each dimension so the coefficient loops unroll */
SRTaylor SRTaylorLinear(PetscInt n, PetscInt m, const double *a, const SRTaylor *t, double b)
{
  switch (n) {
  case 1:
    return SRTaylorLinear_Private(1, m, a, t, b);
  case 2:
    return SRTaylorLinear_Private(2, m, a, t, b);
  case 3:
    return SRTaylorLinear_Private(3, m, a, t, b);
  default: /* 4..SR_MAX_DIM (the ARCH plants, issue 36): not unrolled */
    return SRTaylorLinear_Private(n, m, a, t, b);
  }
}

SRTaylor SRTaylorAdd(PetscInt n, SRTaylor a, SRTaylor b)
{
  const double   one[2] = { 1.0, 1.0 };
  const SRTaylor t[2]   = { a, b };
  return SRTaylorLinear(n, 2, one, t, 0.0);
}

SRTaylor SRTaylorScale(PetscInt n, double s, SRTaylor a) { return SRTaylorLinear(n, 1, &s, &a, 0.0); }

/* Range = c0 +- sum |c_i| + r, outward rounded; NaI when anything is NaN. */
SRInterval SRTaylorRange(PetscInt n, SRTaylor a)
{
  double     S = 0.0;
  SRInterval R;

  for (PetscInt i = 0; i < n; i++)
    S = SRAddUp(S, fabs(a.c[i]));
  R.lo = SRAddDown(SRSubDown(a.c0, S), a.r.lo);
  R.hi = SRAddUp(SRAddUp(a.c0, S), a.r.hi);
  if (isnan(R.lo) || isnan(R.hi) || isnan(a.c0) || isnan(S)) return SRIntervalNaI();
  return R;
}

/* C a for an interval constant C (an inexact product like dt g): mid(C) a, and
   (C - mid C) Range(a) into the remainder. */
SRTaylor SRTaylorScaleInterval(PetscInt n, SRInterval C, SRTaylor a)
{
  const double m = SRIntervalMid(C);
  SRTaylor     y = SRTaylorScale(n, m, a);
  y.r            = SRIntervalAdd(y.r, SRIntervalMul(SRIntervalShift(-m, C), SRTaylorRange(n, a)));
  return y;
}

typedef enum { SR_FUN_TANH, SR_FUN_SIN, SR_FUN_COS, SR_FUN_SIGMOID } SRFun_Private;

static SRInterval SRFunPoint_Private(SRFun_Private f, double x)
{
  SRInterval y;
  if (f == SR_FUN_TANH)
    SRTanhBounds(x, &y.lo, &y.hi);
  else if (f == SR_FUN_SIGMOID)
    SRSigmoidBounds(x, &y.lo, &y.hi);
  else if (f == SR_FUN_SIN)
    SRSinBounds(x, &y.lo, &y.hi);
  else
    SRCosBounds(x, &y.lo, &y.hi);
  return y;
}

static SRInterval SRFunInterval_Private(SRFun_Private f, SRInterval x)
{
  if (f == SR_FUN_TANH) return SRIntervalTanh(x);
  if (f == SR_FUN_SIGMOID) return SRIntervalSigmoid(x);
  if (f == SR_FUN_SIN) return SRIntervalSin(x);
  return SRIntervalCos(x);
}

/* f' over x: tanh' = 1 - tanh^2, sin' = cos, cos' = -sin. */
static SRInterval SRFunDeriv_Private(SRFun_Private f, SRInterval x)
{
  if (f == SR_FUN_TANH) return SRIntervalDTanh(x);
  if (f == SR_FUN_SIGMOID) return SRIntervalDSigmoid(x);
  if (f == SR_FUN_SIN) return SRIntervalCos(x);
  return SRIntervalNeg(SRIntervalSin(x));
}

static double SRFunDerivApprox_Private(SRFun_Private f, double x)
{
  if (f == SR_FUN_TANH) {
    const double t = tanh(x);
    return 1.0 - t * t;
  }
  if (f == SR_FUN_SIGMOID) {
    const double t = 1.0 / (1.0 + exp(-x));
    return t * (1.0 - t);
  }
  if (f == SR_FUN_SIN) return cos(x);
  return -sin(x);
}

/* g(x) = f(x) - lambda x enclosed at the point x */
static SRInterval SRGPoint_Private(SRFun_Private f, double lambda, double x)
{
  const SRInterval lx = { SRMulDown(lambda, x), SRMulUp(lambda, x) };
  return SRIntervalSub(SRFunPoint_Private(f, x), lx);
}

#define SR_TM_PIECE 0.5 /* width of the pieces of R on which g is bounded */
#define SR_TM_NARROW 0x1p-4 /* ranges up to this width use the mean-value form with lambda = f'(mid) */
#define SR_TM_MAXPIECES 32

static SRTaylor SRTaylorApply_Private(PetscInt n, SRTaylor a, SRFun_Private f)
{
  const SRInterval R = SRTaylorRange(n, a);
  SRInterval       G = SRIntervalEmpty(), fR;
  SRTaylor         y;
  double           lambda;
  PetscInt         P;

  if (SRIntervalIsNaI(R)) {
    y   = SRTaylorConstant(n, NAN);
    y.r = SRIntervalNaI();
    return y;
  }
  if (!SRIntervalIsBounded(R)) {
    y   = SRTaylorConstant(n, 0.0);
    y.r = SRFunInterval_Private(f, R);
    return y;
  }
  {
    const double l = R.lo, u = R.hi, w = u - l, mid = PetscMin(u, PetscMax(l, 0.5 * l + 0.5 * u));
    if (w <= SR_TM_NARROW) {
      /* narrow range: lambda = f'(mid), and the mean-value form over all of R */
      SRInterval dg;
      lambda = SRFunDerivApprox_Private(f, mid);
      if (!isfinite(lambda)) lambda = 0.0;
      dg  = SRIntervalShift(-lambda, SRFunDeriv_Private(f, R));
      G   = SRIntervalAdd(SRGPoint_Private(f, lambda, mid), SRIntervalMul(dg, SRIntervalSub(R, SRIntervalPoint(mid))));
      y   = SRTaylorScale(n, lambda, a);
      y.r = SRIntervalAdd(y.r, G);
      return y;
    }
    lambda = (SRIntervalMid(SRFunPoint_Private(f, u)) - SRIntervalMid(SRFunPoint_Private(f, l))) / w;
    if (!isfinite(lambda)) lambda = 0.0;
    P = (PetscInt)PetscMin((double)SR_TM_MAXPIECES, PetscMax(1.0, ceil(w / SR_TM_PIECE)));
    {
      double     xa = l;
      SRInterval ga = SRGPoint_Private(f, lambda, xa);
      for (PetscInt p = 1; p <= P; p++) {
        /* breakpoints are monotone and the last one is u, so the pieces cover [l, u] */
        const double     xb = p == P ? u : PetscMin(u, l + (w * (double)p) / (double)P);
        const SRInterval gb = SRGPoint_Private(f, lambda, xb);
        const SRInterval X  = SRIntervalMake(xa, xb);
        const SRInterval dg = SRIntervalShift(-lambda, SRFunDeriv_Private(f, X));
        SRInterval       Gp;
        if (dg.lo >= 0)
          Gp = SRIntervalMake(ga.lo, gb.hi);
        else if (dg.hi <= 0)
          Gp = SRIntervalMake(gb.lo, ga.hi);
        else {
          const double     c     = PetscMin(xb, PetscMax(xa, 0.5 * xa + 0.5 * xb));
          const SRInterval mvf   = SRIntervalAdd(SRGPoint_Private(f, lambda, c), SRIntervalMul(dg, SRIntervalSub(X, SRIntervalPoint(c))));
          const SRInterval crude = SRIntervalSub(SRFunInterval_Private(f, X), SRIntervalMul(SRIntervalPoint(lambda), X));
          Gp                     = SRIntervalIntersect(mvf, crude);
          if (SRIntervalIsEmpty(Gp)) Gp = SRIntervalHull(mvf, crude); /* cannot happen for sound operands; stay safe */
        }
        G  = SRIntervalHull(G, Gp);
        xa = xb;
        ga = gb;
      }
    }
  }
  fR = SRFunInterval_Private(f, R);
  /* a useless linear part (remainder wider than the whole range) falls back to f(R) */
  if (!SRIntervalIsBounded(G) || SRIntervalWidthUp(G) >= SRIntervalWidthUp(fR)) {
    y   = SRTaylorConstant(n, 0.0);
    y.r = fR;
    return y;
  }
  y   = SRTaylorScale(n, lambda, a);
  y.r = SRIntervalAdd(y.r, G);
  return y;
}

SRTaylor SRTaylorTanh(PetscInt n, SRTaylor a) { return SRTaylorApply_Private(n, a, SR_FUN_TANH); }

/* clip(x) = min(max(x, lo), hi) over the range R = [l, u] of a: the identity or a constant when
   R is on one piece; otherwise the chord lambda = (clip(u) - clip(l)) / (u - l) and the
   piecewise-linear g = clip - lambda x enclosed at l, u and the kinks lo, hi inside R. */
SRTaylor SRTaylorClip(PetscInt n, SRTaylor a, double lo, double hi)
{
  const SRInterval R = SRTaylorRange(n, a);
  SRTaylor         y;

  if (SRIntervalIsNaI(R) || !(lo <= hi)) {
    y   = SRTaylorConstant(n, NAN);
    y.r = SRIntervalNaI();
    return y;
  }
  if (R.lo >= lo && R.hi <= hi) return a;
  if (R.hi <= lo) return SRTaylorConstant(n, lo);
  if (R.lo >= hi) return SRTaylorConstant(n, hi);
  if (!SRIntervalIsBounded(R)) {
    y   = SRTaylorConstant(n, 0.0);
    y.r = SRIntervalClip(R, lo, hi);
    return y;
  }
  {
    const double l = R.lo, u = R.hi;
    const double cl = PetscMin(PetscMax(l, lo), hi), cu = PetscMin(PetscMax(u, lo), hi);
    double       lambda = (cu - cl) / (u - l), pts[4];
    SRInterval   G      = SRIntervalEmpty();
    int          np     = 0;
    if (!isfinite(lambda)) lambda = 0.0;
    pts[np++] = l;
    pts[np++] = u;
    if (lo > l && lo < u) pts[np++] = lo;
    if (hi > l && hi < u) pts[np++] = hi;
    for (int k = 0; k < np; k++) {
      const double     x  = pts[k], cx = PetscMin(PetscMax(x, lo), hi);
      const SRInterval gx = { SRSubDown(cx, SRMulUp(lambda, x)), SRSubUp(cx, SRMulDown(lambda, x)) };
      G                   = SRIntervalHull(G, gx);
    }
    y   = SRTaylorScale(n, lambda, a);
    y.r = SRIntervalAdd(y.r, G);
  }
  return y;
}

SRTaylor SRTaylorSigmoid(PetscInt n, SRTaylor a) { return SRTaylorApply_Private(n, a, SR_FUN_SIGMOID); }

SRTaylor SRTaylorSin(PetscInt n, SRTaylor a) { return SRTaylorApply_Private(n, a, SR_FUN_SIN); }

SRTaylor SRTaylorCos(PetscInt n, SRTaylor a) { return SRTaylorApply_Private(n, a, SR_FUN_COS); }
