/* First-order Taylor models (SPEC §7, taylor1): arithmetic, the MLP forward pass, the Taylor
   steps of the three systems of SPEC §2 and the Taylor-model enclosure of f_phi over a box.

   Rounding.  Coefficients are computed in round-to-nearest; every computed sum s of m terms
   p_j (products rounded or fused) satisfies |s - sum p_j(exact)| <= gamma_m sum |p_j| (Higham,
   Thm 3.1), and that bound, evaluated from the computed sum of absolute values with a factor-2
   margin (SRSumErr_Private), is swept into the interval remainder.  Remainders themselves are
   added with directed rounding (SRAddUp / SRSubDown of src/numerics/interval.c).

   Nonlinearities (tanh, sigmoid, sin, cos; ReLU in SRTaylorRelu_Private).  Over the range R = [l, u] of the argument the function is
   replaced by the line lambda x plus an enclosure of g(x) = f(x) - lambda x over R.  Narrow
   ranges (u - l <= 1/16, the usual case on small cells): lambda = f'(mid) and the mean-value
   form g(mid) + (f'(R) - lambda)(R - mid).  Wide ranges: lambda is the chord slope
   (f(u) - f(l)) / (u - l) and g is enclosed piece by piece (pieces of width <= 1/2): on a piece
   [a, b] where the interval g'([a, b]) = f'([a, b]) - lambda has one sign, g lies between its
   endpoint values (point enclosures of f); otherwise by the mean-value form
   g(c) + g'([a, b]) ([a, b] - c), intersected with f([a, b]) - lambda [a, b].  Both are
   sound for any double lambda; the chord makes the remainder nearly minimal. */
#include <simreach/model.h>
#include <simreach/private/enclosure.h>

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
  default:
    return SRTaylorLinear_Private(3, m, a, t, b);
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

/* ReLU (SPEC §14) over the range R = [l, u] of a: the identity when l >= 0, zero when u <= 0,
   otherwise the chord lambda = u / (u - l) (any double lambda is sound) plus an enclosure of
   g(x) = max(x, 0) - lambda x, piecewise linear, so its extremes over R are at l, 0 and u,
   each enclosed with directed rounding. */
static SRTaylor SRTaylorRelu_Private(PetscInt n, SRTaylor a)
{
  const SRInterval R = SRTaylorRange(n, a);
  SRTaylor         y;

  if (SRIntervalIsNaI(R)) {
    y   = SRTaylorConstant(n, NAN);
    y.r = SRIntervalNaI();
    return y;
  }
  if (R.lo >= 0) return a;
  if (R.hi <= 0) return SRTaylorConstant(n, 0.0);
  if (!SRIntervalIsBounded(R)) {
    y   = SRTaylorConstant(n, 0.0);
    y.r = SRActivationInterval(SR_ACT_RELU, R);
    return y;
  }
  {
    const double     l = R.lo, u = R.hi, lambda = u / (u - l);
    const SRInterval gl = { SRSubDown(0.0, SRMulUp(lambda, l)), SRSubUp(0.0, SRMulDown(lambda, l)) };
    const SRInterval gu = { SRSubDown(u, SRMulUp(lambda, u)), SRSubUp(u, SRMulDown(lambda, u)) };
    const SRInterval G  = SRIntervalHull(SRIntervalHull(gl, gu), SRIntervalPoint(0.0));
    y                   = SRTaylorScale(n, lambda, a);
    y.r                 = SRIntervalAdd(y.r, G);
  }
  return y;
}

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

SRTaylor SRActivationTaylor(SRActivation act, PetscInt n, SRTaylor z)
{
  switch (act) {
  case SR_ACT_TANH:
    return SRTaylorApply_Private(n, z, SR_FUN_TANH);
  case SR_ACT_RELU:
    return SRTaylorRelu_Private(n, z);
  case SR_ACT_SIGMOID:
    return SRTaylorApply_Private(n, z, SR_FUN_SIGMOID);
  default:
    return z;
  }
}

SRTaylor SRTaylorSin(PetscInt n, SRTaylor a) { return SRTaylorApply_Private(n, a, SR_FUN_SIN); }

SRTaylor SRTaylorCos(PetscInt n, SRTaylor a) { return SRTaylorApply_Private(n, a, SR_FUN_COS); }

/* Forward pass with caller-provided workspace (2 maxwidth SRTaylor). */
PetscErrorCode SRMLPForwardTaylorWork_Private(SRMLP mlp, PetscInt n, const SRTaylor *X, SRTaylor *Y, SRTaylor *work)
{
  SRTaylor *in = work, *out = work + mlp->maxwidth;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < mlp->width[0]; j++)
    in[j] = SRMLPInputTaylor(mlp, n, j, X[j]);
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt  nin = mlp->width[l], nout = mlp->width[l + 1];
    const double   *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];
    const PetscBool last = (PetscBool)(l == mlp->nlayers - 1);
    for (PetscInt i = 0; i < nout; i++) {
      const SRTaylor z = SRTaylorLinear(n, nin, W + i * nin, in, b[i]);
      if (last)
        Y[i] = SRMLPOutputTaylor(mlp, n, i, SRActivationTaylor(mlp->act[l], n, z));
      else
        out[i] = SRActivationTaylor(mlp->act[l], n, z);
    }
    if (!last) {
      SRTaylor *t = in;
      in          = out;
      out         = t;
    }
  }
  PetscLogFlops(2.0 * (n + 3) * (mlp->nparams));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRMLPForwardTaylor(SRMLP mlp, PetscInt n, const SRTaylor *X, SRTaylor *Y)
{
  SRTaylor *work;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= SR_MAX_DIM, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Taylor model dimension n = %" PetscInt_FMT "; allowed 1..%d", n, SR_MAX_DIM);
  PetscCall(PetscMalloc1(2 * mlp->maxwidth, &work));
  PetscCall(SRMLPForwardTaylorWork_Private(mlp, n, X, Y, work));
  PetscCall(PetscFree(work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Taylor steps of SPEC §2, written like the interval steps of src/model/system.c (inexact
   constant products such as dt g enclosed as intervals). */
static void SRStepTaylorToy1d_Private(SRSystem sys, const SRTaylor *X, SRTaylor *Y)
{
  const double a = sys->param[0], b = sys->param[1], k = sys->param[2];
  Y[0] = SRTaylorAdd(1, SRTaylorScale(1, a, X[0]), SRTaylorScale(1, b, SRTaylorSin(1, SRTaylorScale(1, k, X[0]))));
}

static void SRStepTaylorPendulum_Private(SRSystem sys, const SRTaylor *X, const SRTaylor *U, SRTaylor *Y)
{
  const double     g = sys->param[0], b = sys->param[1], dt = sys->dt;
  const SRInterval c1  = SRIntervalSub(SRIntervalPoint(1.0), SRIntervalMul(SRIntervalPoint(dt), SRIntervalPoint(b)));
  const SRInterval dtg = SRIntervalMul(SRIntervalPoint(dt), SRIntervalPoint(g));
  const SRTaylor   w1  = SRTaylorAdd(2, SRTaylorAdd(2, SRTaylorScaleInterval(2, c1, X[1]), SRTaylorScaleInterval(2, dtg, SRTaylorSin(2, X[0]))), SRTaylorScale(2, dt, U[0]));
  Y[0]                 = SRTaylorAdd(2, X[0], SRTaylorScale(2, dt, w1));
  Y[1]                 = w1;
}

static void SRStepTaylorDubins_Private(SRSystem sys, const SRTaylor *X, const SRTaylor *U, SRTaylor *Y)
{
  const double     v = sys->param[0], dt = sys->dt;
  const SRInterval vdt = SRIntervalMul(SRIntervalPoint(v), SRIntervalPoint(dt));
  Y[0]                 = SRTaylorAdd(3, X[0], SRTaylorScaleInterval(3, vdt, SRTaylorCos(3, X[2])));
  Y[1]                 = SRTaylorAdd(3, X[1], SRTaylorScaleInterval(3, vdt, SRTaylorSin(3, X[2])));
  Y[2]                 = SRTaylorAdd(3, X[2], SRTaylorScale(3, dt, U[0]));
}

PetscErrorCode SRSystemStepTaylor(SRSystem sys, const SRTaylor *X, const SRTaylor *U, SRTaylor *Y)
{
  PetscBool toy, pend, dub;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(sys->name, "toy1d", &toy));
  PetscCall(PetscStrcmp(sys->name, "pendulum", &pend));
  PetscCall(PetscStrcmp(sys->name, "dubins", &dub));
  if (toy)
    SRStepTaylorToy1d_Private(sys, X, Y);
  else if (pend)
    SRStepTaylorPendulum_Private(sys, X, U, Y);
  else if (dub)
    SRStepTaylorDubins_Private(sys, X, U, Y);
  else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "SRSystemStepTaylor: system %s has no Taylor step; allowed: %s", sys->name, SRSystemNames());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cell's normalised coordinates (SPEC §7): x_i = c_i + h_i xi_i with [c - h, c + h]
   containing [lo, hi] (h rounded up). */
void SRTaylorBoxVariables_Private(PetscInt n, const double *lo, const double *hi, SRTaylor *X)
{
  for (PetscInt i = 0; i < n; i++) {
    const double c = 0.5 * lo[i] + 0.5 * hi[i];
    const double h = PetscMax(SRSubUp(hi[i], c), SRSubUp(c, lo[i]));
    X[i]           = SRTaylorVariable(n, i, c, h);
  }
}

/* The part of the Taylor enclosure after the MLP: X the cell's variables, N the network's
   output Taylor models; writes the range of f_phi (NaN bounds when not finite).  Shared by the
   per-cell path below and the batched kernel of src/abstraction/enclosure_taylor.c. */
PetscErrorCode SRModelTaylorTail_Private(SRModel model, const SRTaylor *X, const SRTaylor *N, double *elo, double *ehi)
{
  const PetscInt n = model->n;
  SRTaylor       Y[SR_MAX_DIM];
  PetscBool      bad = PETSC_FALSE;

  PetscFunctionBeginUser;
  if (model->type == SR_MODEL_DYNAMICS) {
    for (PetscInt i = 0; i < n; i++)
      Y[i] = SRTaylorAdd(n, X[i], N[i]); /* f = x + N(x) */
  } else {
    SRTaylor U[SR_MAX_DIM];
    for (PetscInt i = 0; i < model->sys->nu; i++)
      U[i] = SRTaylorScale(n, model->sys->umax, SRTaylorTanh(n, N[i]));
    PetscCall(SRSystemStepTaylor(model->sys, X, U, Y));
    /* -control_steps m (SPEC §2): the same U through m steps; each state stays a Taylor model
       in the cell's coordinates */
    for (PetscInt s = 1; s < model->sys->control_steps; s++) {
      SRTaylor Z[SR_MAX_DIM];
      for (PetscInt i = 0; i < n; i++) Z[i] = Y[i];
      PetscCall(SRSystemStepTaylor(model->sys, Z, U, Y));
    }
  }
  for (PetscInt i = 0; i < n; i++) {
    const SRInterval R = SRTaylorRange(n, Y[i]);
    elo[i]             = R.lo;
    ehi[i]             = R.hi;
    if (!(isfinite(R.lo) && isfinite(R.hi))) bad = PETSC_TRUE;
  }
  if (bad)
    for (PetscInt i = 0; i < n; i++)
      elo[i] = ehi[i] = NAN; /* NaI: the caller flags the cell */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRModelEncloseTaylorWork_Private(SRModel model, const double *lo, const double *hi, double *elo, double *ehi, SRTaylor *work)
{
  SRTaylor X[SR_MAX_DIM], N[SR_MAX_DIM];

  PetscFunctionBeginUser;
  SRTaylorBoxVariables_Private(model->n, lo, hi, X);
  PetscCall(SRMLPForwardTaylorWork_Private(model->mlp, model->n, X, N, work));
  PetscCall(SRModelTaylorTail_Private(model, X, N, elo, ehi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sound TM enclosure of f_phi over [lo, hi]; a non-finite result is returned as NaN bounds. */
PetscErrorCode SRModelEncloseTaylor(SRModel model, const double *lo, const double *hi, double *elo, double *ehi)
{
  SRTaylor *work;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(2 * model->mlp->maxwidth, &work));
  PetscCall(SRModelEncloseTaylorWork_Private(model, lo, hi, elo, ehi, work));
  PetscCall(PetscFree(work));
  PetscFunctionReturn(PETSC_SUCCESS);
}
