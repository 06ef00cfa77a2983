/* The period map of a linear ODE plant, enclosed once (include/simreach/odeflow.h, SPEC §15;
   issue 36).

   When every der line is affine in the states, controls and disturbances with constant
   coefficients, x' = A x + B u + E w + c, one period with u, w held is exactly
     x(t) = Phi(t) x + Gamma(t) (u, w, 1),   Phi = e^{A t},  Gamma = int_0^t e^{A s} ds (B E c),
   the top n rows of e^{M t} for the augmented d x d matrix M = [A (B E c); 0 0], d = n + nu +
   nw + 1 (e^{M t} = [Phi Gamma; 0 I]).

   Soundness argument.
   1. Detection (SRFlowLinearCreate): every node of the DAG is seen as a row over the d columns
      (states, controls, disturbances, the constant 1) with interval entries, built by sums,
      differences, negations and products or quotients by a node without variables, in
      outward-rounded interval arithmetic; a node that is anything else (a function, a product
      of two forms with variables, a comparison) makes every node using it non-linear.  The
      true coefficient of every column lies in its interval (each rule is the exact identity
      with its constants enclosed), so the true A, B, E, c are points of the interval matrix M.
   2. The exponential (SRFlowLinearExp), for a time interval T in [0, inf): with s >= 0 such
      that a = ||M||_inf sup T / 2^s <= 1/2 (||M||_inf bounded above over the interval matrix by
      the row sums of magnitudes, rounded up), the sum over k <= N of P_k (T / 2^s)^k, P_k =
      M^k / k! as interval matrices (outward rounded products, divisions by k), contains
      sum_k (M' t')^k / k! for every point M' of M and t' of T / 2^s; the rest of the series
      is bounded entrywise by ||(M' t')^k||_inf <= a^k (the norm is submultiplicative), and
      sum_{k > N} a^k / k! <= a^{N+1} / (N+1)! / (1 - a / (N+2)) (a geometric bound of the
      ratios), added as [-tail, tail] to the top n rows (the bottom rows of M^k, k >= 1, are
      exact zeros).  Then s interval squarings: the square of an interval matrix containing
      e^{M' t'} contains e^{M' t'} e^{M' t'} = e^{M' 2 t'}; T / 2^s is exact (a power of two).
   3. The map on affine forms (SRFlowLinearApply): y_i = sum_j E_ij X_j, X_j the states' forms
      and the held vars' forms (constants: the constant 1), each an interval times a form
      (SRAffineScaleInterval: midpoint product, the rest times |form| into the remainder,
      outward) and the sums of forms outward rounded (include/simreach/affine.h).  Every form
      encloses its quantity over the same coordinates xi, so y_i encloses x_i(t) for every xi,
      every t in T and every point of the interval coefficients.
   Nothing is rounded toward the inside; a non-finite entry makes the calls fail (the caller
   then runs the Taylor flow of flow.c, sound on its own). */
#include <simreach/odeflow.h>

#include <stdlib.h>
#include <string.h>

#define SR_LIN_ORDER 20 /* N: with a <= 1/2 the tail is below 2^-21 / 21! ~ 1e-26 */
#define SR_LIN_CACHE 40 /* the last time intervals' exponentials (a period, its sub-steps and their starts) */

struct _n_SRFlowLinear {
  int         n, nu, nw, d;
  double      norm;                          /* ||M||_inf, rounded up */
  SRInterval *M, *P;                         /* M (d x d); P_k = M^k / k!, k = 0..N ((N+1) d x d) */
  SRInterval  T[SR_LIN_CACHE], *E[SR_LIN_CACHE]; /* cached exponentials, keyed by the time interval */
  int         next;
};

int SRFlowLinearDim(const SRFlowLinear *L) { return L->d; }

/* the columns of a variable slot; -1 when the slot is none of the d */
static int Column_Private(const SRPlant *pl, int var)
{
  if (var >= 0 && var < pl->n) return var;
  if (var >= SR_SLOT_U(0) && var < SR_SLOT_U(pl->nu)) return pl->n + var - SR_SLOT_U(0);
  if (var >= SR_SLOT_W(0) && var < SR_SLOT_W(pl->nw)) return pl->n + pl->nu + var - SR_SLOT_W(0);
  return -1;
}

static bool Constant_Private(int d, const SRInterval *r)
{
  for (int j = 0; j + 1 < d; j++)
    if (r[j].lo != 0.0 || r[j].hi != 0.0) return false;
  return true;
}

/* the rows of the der roots (n x d) when every one is affine; false otherwise */
static bool Detect_Private(const SRPlant *pl, int d, SRInterval *A)
{
  const SRExpr *e = &pl->dag;
  SRInterval   *F;
  bool         *lin, ok = true;
  if (pl->discrete || pl->n < 1) return false;
  F   = malloc((size_t)(e->n + 1) * (size_t)d * sizeof *F);
  lin = malloc((size_t)(e->n + 1) * sizeof *lin);
  if (!F || !lin) {
    free(F), free(lin);
    return false;
  }
  for (int i = 0; i < e->n; i++) {
    const SRExprNode *x = &e->node[i];
    SRInterval       *y = F + (size_t)i * d;
    const SRInterval *a = x->a >= 0 && x->a < i ? F + (size_t)x->a * d : NULL, *b = x->b >= 0 && x->b < i ? F + (size_t)x->b * d : NULL;
    bool              la = a && lin[x->a], lb = b && lin[x->b];
    lin[i]             = true;
    for (int j = 0; j < d; j++) y[j] = SRIntervalPoint(0.0);
    switch (x->op) {
    case SR_X_CONST:
      y[d - 1] = x->value;
      lin[i]   = SRIntervalIsBounded(x->value);
      break;
    case SR_X_VAR: {
      const int c = Column_Private(pl, x->var);
      if (c < 0) lin[i] = false;
      else y[c] = SRIntervalPoint(1.0);
    } break;
    case SR_X_ADD:
    case SR_X_SUB:
      lin[i] = la && lb;
      for (int j = 0; lin[i] && j < d; j++) y[j] = x->op == SR_X_ADD ? SRIntervalAdd(a[j], b[j]) : SRIntervalSub(a[j], b[j]);
      break;
    case SR_X_NEG:
      lin[i] = la;
      for (int j = 0; lin[i] && j < d; j++) y[j] = SRIntervalNeg(a[j]);
      break;
    case SR_X_MUL:
      lin[i] = la && lb && (Constant_Private(d, a) || Constant_Private(d, b));
      if (lin[i]) {
        const SRInterval  k = Constant_Private(d, a) ? a[d - 1] : b[d - 1];
        const SRInterval *f = Constant_Private(d, a) ? b : a;
        for (int j = 0; j < d; j++) y[j] = SRIntervalMul(k, f[j]);
      }
      break;
    case SR_X_DIV:
      lin[i] = la && lb && Constant_Private(d, b) && !(b[d - 1].lo <= 0.0 && 0.0 <= b[d - 1].hi);
      for (int j = 0; lin[i] && j < d; j++) y[j] = SRIntervalDiv(a[j], b[d - 1]);
      break;
    case SR_X_SQR:
      lin[i] = la && Constant_Private(d, a);
      if (lin[i]) y[d - 1] = SRIntervalSqr(a[d - 1]);
      break;
    default: lin[i] = false; break; /* functions, comparisons, if: not affine (constants are folded by the parser) */
    }
    for (int j = 0; lin[i] && j < d; j++)
      if (!SRIntervalIsBounded(y[j])) lin[i] = false;
  }
  for (int r = 0; ok && r < pl->n; r++) {
    const int k = pl->f_root[r];
    if (k < 0 || k >= e->n || !lin[k]) ok = false;
    else memcpy(A + (size_t)r * d, F + (size_t)k * d, (size_t)d * sizeof *A);
  }
  free(F), free(lin);
  return ok;
}

static double Mag_Private(SRInterval x) { return SRMax_Private(fabs(x.lo), fabs(x.hi)); }

/* C = A B, d x d interval matrices, outward */
static void MatMul_Private(int d, const SRInterval *A, const SRInterval *B, SRInterval *C)
{
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) {
      SRInterval s = SRIntervalPoint(0.0);
      for (int k = 0; k < d; k++) {
        const SRInterval a = A[i * d + k], b = B[k * d + j];
        if ((a.lo == 0.0 && a.hi == 0.0) || (b.lo == 0.0 && b.hi == 0.0)) continue; /* exact zero */
        s = SRIntervalAdd(s, SRIntervalMul(a, b));
      }
      C[i * d + j] = s;
    }
}

SRFlowLinear *SRFlowLinearCreate(const SRPlant *pl)
{
  const int     d = pl->n + pl->nu + pl->nw + 1;
  SRFlowLinear *L;
  SRInterval   *M;
  if (pl->discrete) return NULL;
  M = calloc((size_t)d * d, sizeof *M);
  if (!M) return NULL;
  for (size_t k = 0; k < (size_t)d * d; k++) M[k] = SRIntervalPoint(0.0);
  if (!Detect_Private(pl, d, M)) {
    free(M);
    return NULL;
  }
  L = calloc(1, sizeof *L);
  if (L) L->P = malloc((size_t)(SR_LIN_ORDER + 1) * d * d * sizeof *L->P);
  for (int c = 0; L && c < SR_LIN_CACHE; c++) {
    L->E[c] = malloc((size_t)d * d * sizeof *L->E[c]);
    L->T[c] = SRIntervalNaI(); /* no entry: NaN matches nothing */
    if (!L->E[c]) L->P = (free(L->P), NULL);
  }
  if (!L || !L->P) {
    SRFlowLinearDestroy(&L);
    free(M);
    return NULL;
  }
  L->n = pl->n, L->nu = pl->nu, L->nw = pl->nw, L->d = d, L->M = M;
  L->norm = 0.0;
  for (int i = 0; i < d; i++) {
    double s = 0.0;
    for (int j = 0; j < d; j++) s = SRAddUp(s, Mag_Private(M[i * d + j]));
    L->norm = SRMax_Private(L->norm, s);
  }
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) L->P[i * d + j] = SRIntervalPoint(i == j ? 1.0 : 0.0);
  for (int k = 1; k <= SR_LIN_ORDER; k++) {
    SRInterval *Pk = L->P + (size_t)k * d * d;
    MatMul_Private(d, Pk - (size_t)d * d, M, Pk);
    for (int q = 0; q < d * d; q++) Pk[q] = SRIntervalDiv(Pk[q], SRIntervalPoint((double)k));
  }
  for (int q = 0; q < (SR_LIN_ORDER + 1) * d * d; q++)
    if (!SRIntervalIsBounded(L->P[q])) { /* ||M|| too large for the powers: not taken */
      SRFlowLinearDestroy(&L);
      return NULL;
    }
  return L;
}

void SRFlowLinearDestroy(SRFlowLinear **L)
{
  if (!*L) return;
  for (int c = 0; c < SR_LIN_CACHE; c++) free((*L)->E[c]);
  free((*L)->P), free((*L)->M), free(*L);
  *L = NULL;
}

const SRInterval *SRFlowLinearMatrix(const SRFlowLinear *L) { return L->M; }

bool SRFlowLinearExpInto(const SRFlowLinear *L, SRInterval T, bool planted, SRInterval *E)
{
  const int   d = L->d, N = SR_LIN_ORDER;
  int         s = 0;
  double      a, tail, num = 1.0, fact = 1.0, den;
  SRInterval  Ts, Tk, *W;
  if (!(T.lo >= 0.0 && T.lo <= T.hi && isfinite(T.hi))) return false;
  a = SRMulUp(L->norm, T.hi);
  while (a > 0.5 && s < 64) a = 0.5 * a, s++; /* halving a double is exact (no underflow: a > 0.5) */
  if (!(a <= 0.5)) return false;
  Ts = (SRInterval){ldexp(T.lo, -s), ldexp(T.hi, -s)}; /* exact unless subnormal: then outward */
  if (Ts.lo > 0 && ldexp(Ts.lo, s) != T.lo) Ts.lo = 0.0;
  if (ldexp(Ts.hi, s) != T.hi) Ts.hi = SRNextUp(Ts.hi);
  /* the series in Horner-free form: sum_k P_k Ts^k */
  for (int q = 0; q < d * d; q++) E[q] = L->P[q];
  Tk = SRIntervalPoint(1.0);
  for (int k = 1; k <= N; k++) {
    const SRInterval *Pk = L->P + (size_t)k * d * d;
    Tk                   = SRIntervalMul(Tk, Ts);
    if (Tk.lo < 0.0) Tk.lo = 0.0; /* Ts >= 0 */
    for (int q = 0; q < L->n * d; q++) /* the bottom rows of P_k, k >= 1, are zero */
      E[q] = SRIntervalAdd(E[q], SRIntervalMul(Pk[q], Tk));
  }
  /* the tail: a^{N+1} / (N+1)! / (1 - a / (N+2)), rounded up */
  for (int k = 1; k <= N + 1; k++) num = SRMulUp(num, a), fact = SRMulDown(fact, (double)k);
  den  = SRSubDown(1.0, SRDivUp(a, (double)(N + 2)));
  tail = SRDivUp(SRDivUp(num, fact), den);
  for (int q = 0; q < L->n * d; q++) E[q] = SRIntervalAdd(E[q], (SRInterval){-tail, tail});
  if (s > 0) {
    W = malloc((size_t)d * d * sizeof *W);
    if (!W) return false;
    for (int r = 0; r < s; r++) {
      MatMul_Private(d, E, E, W);
      memcpy(E, W, (size_t)d * d * sizeof *E);
    }
    free(W);
  }
  if (planted) /* planted fault (tests only): Phi replaced by 0.99 of its midpoints */
    for (int i = 0; i < L->n; i++)
      for (int j = 0; j < L->n; j++) {
        SRInterval *e = &E[i * d + j];
        const double m = SRIntervalMid(*e);
        e->lo = e->hi = 0.99 * m;
      }
  for (int q = 0; q < d * d; q++)
    if (!SRIntervalIsBounded(E[q])) return false;
  return true;
}

const SRInterval *SRFlowLinearExp(SRFlowLinear *L, SRInterval T)
{
  for (int c = 0; c < SR_LIN_CACHE; c++)
    if (L->T[c].lo == T.lo && L->T[c].hi == T.hi) return L->E[c];
  {
    const int c = L->next;
    L->next     = (L->next + 1) % SR_LIN_CACHE;
    L->T[c]     = SRIntervalNaI();
    if (!SRFlowLinearExpInto(L, T, false, L->E[c])) return NULL;
    L->T[c] = T;
    return L->E[c];
  }
}

bool SRFlowLinearApply(const SRFlowLinear *L, int m, const SRInterval *E, const SRAffine *X, const SRAffine *vars, SRAffine *Y)
{
  const int d = L->d;
  for (int i = 0; i < L->n; i++) {
    const SRInterval *row = E + (size_t)i * d;
    SRInterval        s[SR_AFFINE_MAX];
    const SRAffine   *f[SR_AFFINE_MAX];
    int               k = 0;
    SRAffine          y;
    for (int j = 0; j + 1 < d; j++) {
      if (row[j].lo == 0.0 && row[j].hi == 0.0) continue; /* an exact zero */
      s[k] = row[j], f[k++] = j < L->n ? &X[j] : j < L->n + L->nu ? &vars[SR_SLOT_U(j - L->n)] : &vars[SR_SLOT_W(j - L->n - L->nu)];
    }
    y = SRAffineDotInterval(m, k, s, f, row[d - 1]); /* the constant column times 1 (more than 64 terms: pairwise sums) */
    if (SRAffineIsNaI(&y) || !SRIntervalIsBounded(SRAffineRange(m, &y))) return false;
    Y[i] = y;
  }
  return true;
}
