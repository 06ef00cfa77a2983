/* Expression DAGs evaluated as a system's step needs them (SPEC §16: step, Jacobian, interval
   extension and taylor1 step of a plant file all come from its DAG; include/simreach/expr.h).

   Interval: every node's natural interval extension, outward rounded (SRInterval operations;
   tan and log through the affine forms with no coordinates, as the parser folds them), so the
   root intervals contain the exact real values for every point of the variables' boxes.
   Taylor: first-order Taylor models (SPEC §7; src/numerics/taylor.c): sums, scalings and sin,
   cos, tanh are the models' own; a product is a0 b0 + a0 db + b0 da plus the interval
   Range(da) Range(db) (da = a - a0), a product by a constant node its interval scaling; the
   other functions (exp, log, sqrt, tan, a reciprocal) are enclosed by the interval of the
   function over the operand's range, as a remainder (sound, not tight).
   Tangent (forward mode) and adjoint (reverse mode) in doubles, non-validated: the Jacobian and
   the vector-Jacobian products of training and of the LQR linearisation.  A term whose seed is
   zero is skipped, so a constant's derivative is an exact 0 and a + 0 is a: at the
   equilibrium the linearisation of a shipped plant is the one the hand-written C had.
   Piecewise nodes (LE, LT, IF) follow SRExprIndicatorRange and SRExprIfDecide: an undecided IF
   is the hull of its branches (an interval, as a remainder in Taylor mode); derivatives are 0
   for LE, LT and the chosen branch's for IF. */
#include <simreach/expr.h>

#include <math.h>

static SRInterval SRExprIntervalFun_Private(SRExprOp op, SRInterval a)
{
  SRAffine x = SRAffineInterval(a), r;
  switch (op) {
  case SR_X_SIN: return SRIntervalSin(a);
  case SR_X_COS: return SRIntervalCos(a);
  case SR_X_EXP: return SRIntervalExp(a);
  case SR_X_TANH: return SRIntervalTanh(a);
  case SR_X_SQRT: return SRIntervalSqrt(a);
  case SR_X_TAN: r = SRAffineTan(0, &x); break;
  case SR_X_LOG: r = SRAffineLog(0, &x); break;
  default: return SRIntervalNaI();
  }
  return SRAffineIsNaI(&r) ? SRIntervalNaI() : SRAffineRange(0, &r);
}

void SRExprEvalInterval(const SRExpr *e, const SRInterval *vars, SRInterval *v)
{
  for (int i = 0; i < e->n; i++) {
    const SRExprNode *x = &e->node[i];
    const SRInterval  a = x->a >= 0 ? v[x->a] : SRIntervalPoint(0), b = x->b >= 0 ? v[x->b] : SRIntervalPoint(0);
    switch (x->op) {
    case SR_X_CONST: v[i] = x->value; break;
    case SR_X_VAR: v[i] = vars[x->var]; break;
    case SR_X_ADD: v[i] = SRIntervalAdd(a, b); break;
    case SR_X_SUB: v[i] = SRIntervalSub(a, b); break;
    case SR_X_MUL: v[i] = SRIntervalMul(a, b); break;
    case SR_X_DIV: v[i] = SRIntervalDiv(a, b); break;
    case SR_X_NEG: v[i] = SRIntervalNeg(a); break;
    case SR_X_SQR: v[i] = SRIntervalSqr(a); break;
    case SR_X_LE:
    case SR_X_LT: v[i] = SRExprIndicatorRange(x->op, SRIntervalSub(a, b)); break;
    case SR_X_IF: /* the branch decided, else the hull of both (SRExprIfDecide) */
      switch (SRExprIfDecide(a)) {
      case 1: v[i] = b; break;
      case 0: v[i] = v[x->var]; break;
      case -1: v[i] = SRIntervalHull(b, v[x->var]); break;
      default: v[i] = SRIntervalNaI(); break;
      }
      break;
    default: v[i] = SRExprIntervalFun_Private(x->op, a); break;
    }
  }
}

/* the model c0 = 0, no coefficients, remainder R */
static SRTaylor SRTaylorOfInterval_Private(PetscInt n, SRInterval R)
{
  SRTaylor t = SRTaylorConstant(n, 0.0);
  t.r        = R;
  return t;
}

/* a - a0 (the linear part and the remainder) */
static SRTaylor SRTaylorCentred_Private(SRTaylor a)
{
  a.c0 = 0.0;
  return a;
}

static SRTaylor SRTaylorMul_Private(PetscInt n, SRTaylor a, SRTaylor b, bool square)
{
  const SRTaylor   da = SRTaylorCentred_Private(a), db = SRTaylorCentred_Private(b);
  const SRInterval ra = SRTaylorRange(n, da), rb = SRTaylorRange(n, db);
  SRTaylor         y  = SRTaylorOfInterval_Private(n, SRIntervalMul(SRIntervalPoint(a.c0), SRIntervalPoint(b.c0)));
  y                   = SRTaylorAdd(n, y, SRTaylorScale(n, a.c0, db));
  y                   = SRTaylorAdd(n, y, SRTaylorScale(n, b.c0, da));
  return SRTaylorAdd(n, y, SRTaylorOfInterval_Private(n, square ? SRIntervalSqr(ra) : SRIntervalMul(ra, rb)));
}

void SRExprEvalTaylor(const SRExpr *e, PetscInt n, const SRTaylor *vars, SRTaylor *v)
{
  for (int i = 0; i < e->n; i++) {
    const SRExprNode *x = &e->node[i];
    const SRTaylor    a = x->a >= 0 ? v[x->a] : SRTaylorConstant(n, 0.0), b = x->b >= 0 ? v[x->b] : SRTaylorConstant(n, 0.0);
    switch (x->op) {
    case SR_X_CONST: v[i] = SRTaylorOfInterval_Private(n, x->value); break;
    case SR_X_VAR: v[i] = vars[x->var]; break;
    case SR_X_ADD: v[i] = SRTaylorAdd(n, a, b); break;
    case SR_X_SUB: v[i] = SRTaylorAdd(n, a, SRTaylorScale(n, -1.0, b)); break;
    case SR_X_NEG: v[i] = SRTaylorScale(n, -1.0, a); break;
    case SR_X_MUL:
      /* a constant factor scales the other model (SRTaylorScaleInterval: its midpoint exactly,
         the rest times the other's range) */
      if (e->node[x->a].op == SR_X_CONST) v[i] = SRTaylorScaleInterval(n, e->node[x->a].value, b);
      else if (e->node[x->b].op == SR_X_CONST) v[i] = SRTaylorScaleInterval(n, e->node[x->b].value, a);
      else v[i] = SRTaylorMul_Private(n, a, b, false);
      break;
    case SR_X_SQR: v[i] = SRTaylorMul_Private(n, a, a, true); break;
    case SR_X_DIV:
      if (e->node[x->b].op == SR_X_CONST) v[i] = SRTaylorScaleInterval(n, SRIntervalRecip(e->node[x->b].value), a);
      else v[i] = SRTaylorMul_Private(n, a, SRTaylorOfInterval_Private(n, SRIntervalRecip(SRTaylorRange(n, b))), false);
      break;
    case SR_X_SIN: v[i] = SRTaylorSin(n, a); break;
    case SR_X_COS: v[i] = SRTaylorCos(n, a); break;
    case SR_X_TANH: v[i] = SRTaylorTanh(n, a); break;
    case SR_X_LE:
    case SR_X_LT: v[i] = SRTaylorOfInterval_Private(n, SRExprIndicatorRange(x->op, SRTaylorRange(n, SRTaylorAdd(n, a, SRTaylorScale(n, -1.0, b))))); break;
    case SR_X_IF: /* the decided branch's model, else the hull of both ranges */
      switch (SRExprIfDecide(SRTaylorRange(n, a))) {
      case 1: v[i] = b; break;
      case 0: v[i] = v[x->var]; break;
      case -1: v[i] = SRTaylorOfInterval_Private(n, SRIntervalHull(SRTaylorRange(n, b), SRTaylorRange(n, v[x->var]))); break;
      default: v[i] = SRTaylorOfInterval_Private(n, SRIntervalNaI()); break;
      }
      break;
    default: v[i] = SRTaylorOfInterval_Private(n, SRExprIntervalFun_Private(x->op, SRTaylorRange(n, a))); break;
    }
  }
}

/* d(node)/d(seed j): t[i * nd + j]; the derivative of f(a) is f'(a) a' */
void SRExprEvalTangent(const SRExpr *e, const double *vars, int nd, const int *dslot, double *v, double *t)
{
  SRExprEvalDouble(e, vars, v);
  for (int i = 0; i < e->n; i++) {
    const SRExprNode *x  = &e->node[i];
    const double     *ta = x->a >= 0 ? &t[x->a * nd] : NULL, *tb = x->b >= 0 ? &t[x->b * nd] : NULL;
    const double      a  = x->a >= 0 ? v[x->a] : 0, b = x->b >= 0 ? v[x->b] : 0;
    double           *ti = &t[i * nd];
    double            f  = 0; /* f'(a) of a unary function */
    for (int j = 0; j < nd; j++) ti[j] = 0.0;
    switch (x->op) {
    case SR_X_CONST: break;
    case SR_X_VAR:
      for (int j = 0; j < nd; j++)
        if (dslot[j] == x->var) ti[j] = 1.0;
      break;
    case SR_X_ADD:
      for (int j = 0; j < nd; j++) ti[j] = tb[j] == 0 ? ta[j] : ta[j] == 0 ? tb[j] : ta[j] + tb[j];
      break;
    case SR_X_SUB:
      for (int j = 0; j < nd; j++) ti[j] = tb[j] == 0 ? ta[j] : ta[j] == 0 ? -tb[j] : ta[j] - tb[j];
      break;
    case SR_X_NEG:
      for (int j = 0; j < nd; j++) ti[j] = -ta[j];
      break;
    case SR_X_MUL:
      for (int j = 0; j < nd; j++) ti[j] = ta[j] == 0 ? (tb[j] == 0 ? 0.0 : a * tb[j]) : tb[j] == 0 ? ta[j] * b : ta[j] * b + a * tb[j];
      break;
    case SR_X_DIV:
      for (int j = 0; j < nd; j++) ti[j] = ta[j] == 0 && tb[j] == 0 ? 0.0 : (ta[j] - v[i] * tb[j]) / b;
      break;
    case SR_X_LE:
    case SR_X_LT: break; /* piecewise constant */
    case SR_X_IF: {
      const double *tc = a != 0 ? tb : &t[x->var * nd]; /* the chosen branch's */
      for (int j = 0; j < nd; j++) ti[j] = tc[j];
    } break;
    default:
      switch (x->op) {
      case SR_X_SQR: f = 2.0 * a; break;
      case SR_X_SIN: f = cos(a); break;
      case SR_X_COS: f = -sin(a); break;
      case SR_X_TAN: f = 1.0 + v[i] * v[i]; break;
      case SR_X_EXP: f = v[i]; break;
      case SR_X_LOG: f = 1.0 / a; break;
      case SR_X_SQRT: f = 0.5 / v[i]; break;
      case SR_X_TANH: f = 1.0 - v[i] * v[i]; break;
      default: f = NAN; break;
      }
      for (int j = 0; j < nd; j++) ti[j] = ta[j] == 0 ? 0.0 : f * ta[j];
      break;
    }
  }
}

/* reverse sweep: adj[] holds the seeds on entry, every node's adjoint on return */
void SRExprAdjoint(const SRExpr *e, const double *v, double *adj)
{
  for (int i = e->n - 1; i >= 0; i--) {
    const SRExprNode *x = &e->node[i];
    const double      g = adj[i], a = x->a >= 0 ? v[x->a] : 0, b = x->b >= 0 ? v[x->b] : 0;
    if (g == 0) continue;
    switch (x->op) {
    case SR_X_CONST:
    case SR_X_VAR: break;
    case SR_X_ADD: adj[x->a] += g, adj[x->b] += g; break;
    case SR_X_SUB: adj[x->a] += g, adj[x->b] -= g; break;
    case SR_X_NEG: adj[x->a] -= g; break;
    case SR_X_MUL: adj[x->a] += g * b, adj[x->b] += g * a; break;
    case SR_X_DIV: adj[x->a] += g / b, adj[x->b] -= g * v[i] / b; break;
    case SR_X_SQR: adj[x->a] += g * 2.0 * a; break;
    case SR_X_SIN: adj[x->a] += g * cos(a); break;
    case SR_X_COS: adj[x->a] -= g * sin(a); break;
    case SR_X_TAN: adj[x->a] += g * (1.0 + v[i] * v[i]); break;
    case SR_X_EXP: adj[x->a] += g * v[i]; break;
    case SR_X_LOG: adj[x->a] += g / a; break;
    case SR_X_SQRT: adj[x->a] += g * 0.5 / v[i]; break;
    case SR_X_TANH: adj[x->a] += g * (1.0 - v[i] * v[i]); break;
    case SR_X_LE:
    case SR_X_LT: break;
    case SR_X_IF: adj[a != 0 ? x->b : x->var] += g; break; /* the chosen branch */
    }
  }
}
