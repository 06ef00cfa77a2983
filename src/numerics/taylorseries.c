/* Expression DAGs and Taylor-mode arithmetic on them (include/simreach/expr.h, SPEC §15).

   Coefficient recurrences (u the operand series, subscripts the Taylor coefficients):
     product  (ab)_k = sum_{j=0}^k a_j b_{k-j}
     quotient q_k = (a_k - sum_{j<k} q_j b_{k-j}) / b_0
     exp      e_k = (1/k) sum_{j=1}^k j u_j e_{k-j}
     sin, cos s_k = (1/k) sum j u_j c_{k-j},  c_k = -(1/k) sum j u_j s_{k-j}
     tan      t_k = (1/k) sum j u_j v_{k-j},  v = 1 + t^2
     tanh     t_k = (1/k) sum j u_j v_{k-j},  v = 1 - t^2
     log      l_k = (u_k - (1/k) sum_{j=1}^{k-1} j l_j u_{k-j}) / u_0
     sqrt     s_k = (u_k - sum_{j=1}^{k-1} s_j s_{k-j}) / (2 s_0)
     LE, LT, IF (piecewise, SPEC §15 turn 4): decided over the operands' enclosure, the value is
              constant (an indicator) or the chosen branch's series; undecided, the affine
              evaluation takes [0, 1] or the hull of the branches (every point's value is one of
              them), and the Taylor mode has no enclosure (the function may jump in the step).
   Each is evaluated in affine forms, so every coefficient encloses the exact one for every
   point of the piece; the integer factors 1/k are outward-rounded intervals. */
#include <simreach/expr.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void SRExprInit(SRExpr *e)
{
  e->n     = 0;
  e->cap   = 0;
  e->node  = NULL;
  e->hash  = NULL;
  e->nhash = 0;
}

void SRExprFree(SRExpr *e)
{
  free(e->node);
  free(e->hash);
  SRExprInit(e);
}

static bool SRExprSame_Private(const SRExprNode *x, SRExprOp op, int a, int b, int var, SRInterval value, double xd)
{
  if (x->op != op || x->a != a || x->b != b) return false;
  if ((op == SR_X_VAR || op == SR_X_IF) && x->var != var) return false;
  if (op == SR_X_CONST && !(x->value.lo == value.lo && x->value.hi == value.hi && !memcmp(&x->x, &xd, sizeof xd))) return false;
  return true;
}

static size_t SRExprHash_Private(SRExprOp op, int a, int b, int var, SRInterval value)
{
  uint64_t h = (uint64_t)op * 0x9E3779B97F4A7C15ULL;
  uint64_t w[5];
  w[0] = (uint64_t)(uint32_t)a, w[1] = (uint64_t)(uint32_t)b, w[2] = op == SR_X_VAR || op == SR_X_IF ? (uint64_t)(uint32_t)var : 0, w[3] = 0, w[4] = 0;
  if (op == SR_X_CONST) memcpy(&w[3], &value.lo, 8), memcpy(&w[4], &value.hi, 8);
  for (int k = 0; k < 5; k++) h = (h ^ w[k]) * 0xFF51AFD7ED558CCDULL, h ^= h >> 29;
  return (size_t)h;
}

static int SRExprFind_Private(const SRExpr *e, SRExprOp op, int a, int b, int var, SRInterval value, double xd)
{
  if (!e->nhash) return -1;
  for (size_t s = SRExprHash_Private(op, a, b, var, value) & (size_t)(e->nhash - 1);; s = (s + 1) & (size_t)(e->nhash - 1)) {
    int i = e->hash[s];
    if (i < 0) return -1;
    if (SRExprSame_Private(&e->node[i], op, a, b, var, value, xd)) return i;
  }
}

static double SRExprMid_Private(SRInterval v) { return 0.5 * v.lo + 0.5 * v.hi; }

int SRExprFind(const SRExpr *e, SRExprOp op, int a, int b, int var, SRInterval value) { return SRExprFind_Private(e, op, a, b, var, value, SRExprMid_Private(value)); }

static int SRExprNodeX_Private(SRExpr *e, SRExprOp op, int a, int b, int var, SRInterval value, double xd);

int SRExprNode_(SRExpr *e, SRExprOp op, int a, int b, int var, SRInterval value) { return SRExprNodeX_Private(e, op, a, b, var, value, SRExprMid_Private(value)); }

int SRExprConstant(SRExpr *e, SRInterval value, double x) { return SRExprNodeX_Private(e, SR_X_CONST, -1, -1, -1, value, x); }

static int SRExprNodeX_Private(SRExpr *e, SRExprOp op, int a, int b, int var, SRInterval value, double xd)
{
  int i = SRExprFind_Private(e, op, a, b, var, value, xd);
  if (i >= 0) return i;
  if (e->n == e->cap) {
    int         cap = e->cap ? 2 * e->cap : 64;
    SRExprNode *p   = realloc(e->node, (size_t)cap * sizeof *p);
    if (!p) return -1;
    e->node = p;
    e->cap  = cap;
  }
  if (2 * (e->n + 1) > e->nhash) { /* at most half full: rebuild at twice the size */
    int  nh = e->nhash ? 2 * e->nhash : 128;
    int *h  = malloc((size_t)nh * sizeof *h);
    if (!h) return -1;
    for (int k = 0; k < nh; k++) h[k] = -1;
    for (int k = 0; k < e->n; k++) {
      const SRExprNode *x = &e->node[k];
      size_t            s = SRExprHash_Private(x->op, x->a, x->b, x->var, x->value) & (size_t)(nh - 1);
      while (h[s] >= 0) s = (s + 1) & (size_t)(nh - 1);
      h[s] = k;
    }
    free(e->hash);
    e->hash = h, e->nhash = nh;
  }
  e->node[e->n] = (SRExprNode){op, a, b, op == SR_X_VAR || op == SR_X_IF ? var : -1, op == SR_X_CONST ? value : SRIntervalPoint(0.0), op == SR_X_CONST ? xd : 0.0};
  {
    const SRExprNode *x = &e->node[e->n];
    size_t            s = SRExprHash_Private(x->op, x->a, x->b, x->var, x->value) & (size_t)(e->nhash - 1);
    while (e->hash[s] >= 0) s = (s + 1) & (size_t)(e->nhash - 1);
    e->hash[s] = e->n;
  }
  return e->n++;
}

void SRExprEvalDouble(const SRExpr *e, const double *vars, double *v)
{
  for (int i = 0; i < e->n; i++) {
    const SRExprNode *x = &e->node[i];
    const double      a = x->a >= 0 ? v[x->a] : 0, b = x->b >= 0 ? v[x->b] : 0;
    switch (x->op) {
    case SR_X_CONST: v[i] = x->x; break;
    case SR_X_VAR: v[i] = vars[x->var]; break;
    case SR_X_ADD: v[i] = a + b; break;
    case SR_X_SUB: v[i] = a - b; break;
    case SR_X_MUL: v[i] = a * b; break;
    case SR_X_DIV: v[i] = a / b; break;
    case SR_X_NEG: v[i] = -a; break;
    case SR_X_SQR: v[i] = a * a; break;
    case SR_X_SIN: v[i] = sin(a); break;
    case SR_X_COS: v[i] = cos(a); break;
    case SR_X_TAN: v[i] = tan(a); break;
    case SR_X_EXP: v[i] = exp(a); break;
    case SR_X_LOG: v[i] = log(a); break;
    case SR_X_SQRT: v[i] = sqrt(a); break;
    case SR_X_TANH: v[i] = tanh(a); break;
    case SR_X_LE: v[i] = a <= b ? 1.0 : 0.0; break;
    case SR_X_LT: v[i] = a < b ? 1.0 : 0.0; break;
    case SR_X_IF: v[i] = a != 0 ? b : v[x->var]; break;
    }
  }
}

SRInterval SRExprIndicatorRange(SRExprOp op, SRInterval d)
{
  if (SRIntervalIsNaI(d)) return SRIntervalNaI();
  if (op == SR_X_LE ? d.hi <= 0 : d.hi < 0) return SRIntervalPoint(1.0);
  if (op == SR_X_LE ? d.lo > 0 : d.lo >= 0) return SRIntervalPoint(0.0);
  return (SRInterval){0.0, 1.0};
}

int SRExprIfDecide(SRInterval c)
{
  if (SRIntervalIsNaI(c)) return -2;
  if (c.lo > 0 || c.hi < 0) return 1;
  if (c.lo == 0 && c.hi == 0) return 0;
  return -1;
}

static inline SRInterval SRInvInt_Private(int k) { return SRIntervalDiv((SRInterval){1.0, 1.0}, (SRInterval){(double)k, (double)k}); }

/* Coefficient k of node i.  V[i * (q+1) + k] the node's series, A the auxiliary series
   (cos for sin, sin for cos, v for tan / tanh, 1/b_0 for the quotient). */
/* the form 0 (SRAffineConstant(0.0)), copied only where an operation uses it */
static const SRAffine SR_ZERO_FORM_Private = {0.0, {0.0}, {0.0, 0.0}};

static void SRExprCoeff_Private(const SRExpr *e, int n, int nstate, const SRAffine *vars, const SRAffine *X, int q, int i, int k, SRAffine *V, SRAffine *A)
{
  const SRExprNode *x  = &e->node[i];
  const int         Q  = q + 1;
  const SRAffine   *a  = x->a >= 0 ? &V[x->a * Q] : NULL, *b = x->b >= 0 ? &V[x->b * Q] : NULL;
  const SRAffine   *c  = x->op == SR_X_IF && x->var >= 0 ? &V[x->var * Q] : NULL; /* IF's else */
  SRAffine         *y  = &V[i * Q], *w = &A[i * Q];
  SRAffine          s, t;
  switch (x->op) {
  case SR_X_CONST: y[k] = k == 0 ? SRAffineInterval(x->value) : SR_ZERO_FORM_Private; break;
  case SR_X_VAR:
    if (x->var < nstate) y[k] = X[k * nstate + x->var];
    else y[k] = k == 0 ? vars[x->var] : SR_ZERO_FORM_Private;
    break;
  case SR_X_ADD: y[k] = SRAffineAdd(n, &a[k], &b[k]); break;
  case SR_X_SUB: y[k] = SRAffineSub(n, &a[k], &b[k]); break;
  case SR_X_NEG: y[k] = SRAffineNeg(n, &a[k]); break;
  case SR_X_MUL:
    /* a constant factor C: the k-th coefficient of C g is C g_k (one product, not k + 1) */
    if (e->node[x->a].op == SR_X_CONST) {
      y[k] = SRAffineScaleInterval(n, e->node[x->a].value, &b[k]);
      break;
    }
    if (e->node[x->b].op == SR_X_CONST) {
      y[k] = SRAffineScaleInterval(n, e->node[x->b].value, &a[k]);
      break;
    }
    s = SRAffineMul(n, &a[0], &b[k]);
    for (int j = 1; j <= k; j++) {
      t = SRAffineMul(n, &a[j], &b[k - j]);
      s = SRAffineAdd(n, &s, &t);
    }
    y[k] = s;
    break;
  case SR_X_SQR:
    if (k == 0) {
      y[0] = SRAffineSqr(n, &a[0]);
      break;
    }
    s = SR_ZERO_FORM_Private;
    for (int j = 0; 2 * j < k; j++) {
      t = SRAffineMul(n, &a[j], &a[k - j]);
      s = SRAffineAdd(n, &s, &t);
    }
    s = SRAffineScaleInterval(n, SRIntervalPoint(2.0), &s);
    if (k % 2 == 0) {
      t = SRAffineSqr(n, &a[k / 2]);
      s = SRAffineAdd(n, &s, &t);
    }
    y[k] = s;
    break;
  case SR_X_DIV:
    if (k == 0) w[0] = SRAffineRecip(n, &b[0]);
    s = a[k];
    for (int j = 0; j < k; j++) {
      t = SRAffineMul(n, &y[j], &b[k - j]);
      s = SRAffineSub(n, &s, &t);
    }
    y[k] = SRAffineMul(n, &s, &w[0]);
    break;
  case SR_X_EXP:
  case SR_X_SIN:
  case SR_X_COS:
  case SR_X_TAN:
  case SR_X_TANH:
    if (k == 0) {
      if (x->op == SR_X_EXP) y[0] = SRAffineExp(n, &a[0]);
      else if (x->op == SR_X_SIN) y[0] = SRAffineSin(n, &a[0]), w[0] = SRAffineCos(n, &a[0]);
      else if (x->op == SR_X_COS) y[0] = SRAffineCos(n, &a[0]), w[0] = SRAffineSin(n, &a[0]);
      else if (x->op == SR_X_TAN) {
        y[0] = SRAffineTan(n, &a[0]);
        t    = SRAffineSqr(n, &y[0]);
        w[0] = SRAffineAddInterval(n, &t, SRIntervalPoint(1.0));
      } else {
        y[0] = SRAffineTanh(n, &a[0]);
        t    = SRAffineSqr(n, &y[0]);
        t    = SRAffineNeg(n, &t);
        w[0] = SRAffineAddInterval(n, &t, SRIntervalPoint(1.0));
      }
      break;
    }
    {
      /* the factor series: e itself for exp, the partner for sin/cos, v for tan/tanh */
      const SRAffine *f = x->op == SR_X_EXP ? y : w;
      SRAffine        s2 = SR_ZERO_FORM_Private;
      s                  = SR_ZERO_FORM_Private;
      for (int j = 1; j <= k; j++) {
        t = SRAffineMul(n, &a[j], &f[k - j]);
        t = SRAffineScaleInterval(n, SRIntervalPoint((double)j), &t);
        s = SRAffineAdd(n, &s, &t);
        if (x->op == SR_X_SIN || x->op == SR_X_COS) {
          t  = SRAffineMul(n, &a[j], &y[k - j]);
          t  = SRAffineScaleInterval(n, SRIntervalPoint((double)j), &t);
          s2 = SRAffineAdd(n, &s2, &t);
        }
      }
      y[k] = SRAffineScaleInterval(n, SRInvInt_Private(k), &s);
      if (x->op == SR_X_SIN) w[k] = SRAffineScaleInterval(n, SRIntervalNeg(SRInvInt_Private(k)), &s2);
      else if (x->op == SR_X_COS) {
        /* here y is cos, w is sin: c_k = -(1/k) sum j u_j s_{k-j}, s_k = (1/k) sum j u_j c_{k-j} */
        y[k] = SRAffineScaleInterval(n, SRIntervalNeg(SRInvInt_Private(k)), &s);
        w[k] = SRAffineScaleInterval(n, SRInvInt_Private(k), &s2);
      } else if (x->op == SR_X_TAN || x->op == SR_X_TANH) {
        SRAffine v = SR_ZERO_FORM_Private;
        for (int j = 0; j <= k; j++) {
          t = SRAffineMul(n, &y[j], &y[k - j]);
          v = SRAffineAdd(n, &v, &t);
        }
        w[k] = x->op == SR_X_TAN ? v : SRAffineNeg(n, &v);
      }
    }
    break;
  case SR_X_LOG:
    if (k == 0) {
      y[0] = SRAffineLog(n, &a[0]);
      w[0] = SRAffineRecip(n, &a[0]);
      break;
    }
    s = SR_ZERO_FORM_Private;
    for (int j = 1; j < k; j++) {
      t = SRAffineMul(n, &y[j], &a[k - j]);
      t = SRAffineScaleInterval(n, SRIntervalPoint((double)j), &t);
      s = SRAffineAdd(n, &s, &t);
    }
    s    = SRAffineScaleInterval(n, SRInvInt_Private(k), &s);
    s    = SRAffineSub(n, &a[k], &s);
    y[k] = SRAffineMul(n, &s, &w[0]);
    break;
  case SR_X_SQRT:
    if (k == 0) {
      y[0] = SRAffineSqrt(n, &a[0]);
      t    = SRAffineScaleInterval(n, SRIntervalPoint(2.0), &y[0]);
      w[0] = SRAffineRecip(n, &t);
      break;
    }
    s = a[k];
    for (int j = 1; j < k; j++) {
      t = SRAffineMul(n, &y[j], &y[k - j]);
      s = SRAffineSub(n, &s, &t);
    }
    y[k] = SRAffineMul(n, &s, &w[0]);
    break;
  case SR_X_LE:
  case SR_X_LT:
    if (k == 0) {
      SRInterval R;
      s    = SRAffineSub(n, &a[0], &b[0]);
      R    = SRExprIndicatorRange(x->op, SRAffineRange(n, &s));
      y[0] = SRAffineInterval(X != NULL && R.lo != R.hi ? SRIntervalNaI() : R); /* undecided: none in Taylor mode */
    } else y[k] = SRAffineIsNaI(&y[0]) ? y[0] : SR_ZERO_FORM_Private; /* decided: a constant */
    break;
  case SR_X_IF:
    switch (SRExprIfDecide(SRAffineRange(n, &a[0]))) {
    case 1: y[k] = b[k]; break;
    case 0: y[k] = c[k]; break;
    case -1: /* undecided: the union of the branches (affine mode only; k == 0 there) */
      y[k] = X != NULL ? SRAffineInterval(SRIntervalNaI()) : SRAffineInterval(SRIntervalHull(SRAffineRange(n, &b[0]), SRAffineRange(n, &c[0])));
      break;
    default: y[k] = SRAffineInterval(SRIntervalNaI()); break;
    }
    break;
  }
}

void SRExprEvalAffine(const SRExpr *e, int n, const SRAffine *vars, SRAffine *val)
{
  SRAffine *aux = malloc((size_t)(e->n > 0 ? e->n : 1) * sizeof *aux);
  for (int i = 0; i < e->n; i++) SRExprCoeff_Private(e, n, 0, vars, NULL, 0, i, 0, val, aux);
  free(aux);
}

size_t SRExprTaylorWorkSize(const SRExpr *e, int q) { return 2 * (size_t)e->n * (size_t)(q + 1); }

bool SRExprTaylor(const SRExpr *e, int n, int nstate, const int *root, const SRAffine *vars, int q, SRAffine *X, SRAffine *work)
{
  SRAffine *V = work, *A = work + (size_t)e->n * (size_t)(q + 1);
  for (int i = 0; i < nstate; i++)
    if (SRAffineIsNaI(&X[i])) return false;
  for (int k = 0; k < q; k++) {
    for (int i = 0; i < e->n; i++) SRExprCoeff_Private(e, n, nstate, vars, X, q, i, k, V, A);
    for (int i = 0; i < nstate; i++) {
      SRAffine *c = &X[(k + 1) * nstate + i];
      *c          = SRAffineScaleInterval(n, SRInvInt_Private(k + 1), &V[root[i] * (q + 1) + k]);
      if (SRAffineIsNaI(c)) return false;
    }
  }
  return true;
}
