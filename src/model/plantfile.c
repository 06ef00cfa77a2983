/* Plant files (SPEC §15, include/simreach/plant.h; the format is documented in docs/arch.md).

   One statement per line, '#' starts a comment:
     states x1 x2 ...                 the state names (at most SR_PLANT_MAX_STATES = 64)
     const NAME = EXPR                a named constant (an expression of numbers and constants)
     outputs M                        the network has M outputs, named y1..yM
     input EXPR                       the next network input, an expression of the states
     control NAME = EXPR              a control, an expression of y1..yM and the states
     disturbance NAME in [LO, HI]     a bounded disturbance, held constant over each period
     der NAME = EXPR                  the derivative of state NAME (of states, controls, disturbances)
     next NAME = EXPR                 or: state NAME at the next sample (a discrete-time plant,
                                      SPEC §15 turn 4: one update per period; 'der' and 'next'
                                      never in one file)
     select argmax initial K          several networks, one per output (simreach closedloop
                                      -network A,B,...): network K runs in the first period,
                                      then the one of the previous period's argmax output
     period T                         the control period (seconds)
     horizon H | steps N              the horizon: H a multiple of T, or N periods
   Expressions: numbers, names, + - * / ( ), integer powers ^k (k may be negative), and
   sin cos tan exp log sqrt tanh.  Decimal numbers that are no double are enclosed by the
   two doubles around them, so the constants of the plant are sound.  Every error names the
   file, the line and the column and what was expected.
   Bounds (SPEC §15 turn 4, the caps in include/simreach/plant.h): the step count is computed in
   double and capped before the cast, nesting is capped (the descent is recursive), constant
   sub-expressions are folded here into outward intervals (never evaluated per step; a division
   by a constant zero is refused where it is written), the DAG's distinct operations are capped,
   and only a regular file is read (SRScanReadFile). */
#include <simreach/plant.h>
#include <simreach/private/linescan.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct {
  SRLineScan  s; /* the cursor and the first error (linescan.c) */
  SRPlant    *plant;
  char        cname[SR_PLANT_MAX_CONSTS][SR_PLANT_NAME];
  SRInterval  cval[SR_PLANT_MAX_CONSTS]; /* folded at parse time */
  double      cx[SR_PLANT_MAX_CONSTS];   /* their doubles (SRPVal_Private.x) */
  int         nconst;
  int         depth; /* of the expression being read (Deeper_Private) */
  int         der_seen, next_seen; /* the first 'der' / 'next' line (0: none) */
  /* which names an expression may use */
  bool        allow_state, allow_u, allow_w, allow_y;
  const SRPlantConsts *ov; /* constants given as options (SPEC §16), or NULL */
} SRParser_Private;

/* A decimal literal as an outward interval (SRIntervalDecimal: exact when it is a double). */
static bool Number_Private(SRParser_Private *P, SRInterval *v)
{
  char       *end;
  const char *s = P->s.p;
  SRScanSkip(&P->s);
  s = P->s.p;
  if (!(isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1])))) {
    char b[24];
    return SRScanFail(&P->s, "expected a number, found %s", SRScanFound(&P->s, b, sizeof b));
  }
  *v = SRIntervalDecimal(s, &end);
  if (SRIntervalIsNaI(*v) || !SRIntervalIsBounded(*v)) return SRScanFail(&P->s, "number out of range");
  P->s.p = end;
  return true;
}

/* A parsed expression: a DAG node, or a constant not yet in the DAG (folded at parse time,
   SPEC §15 turn 4: a constant sub-expression costs nothing per step, and one that has no finite
   value, e.g. a division by zero, is refused where it is written). */
typedef struct {
  int        node; /* >= 0: a node; SR_PV_CONST: the constant v; -1: an error (recorded) */
  SRInterval v;
  double     x; /* SR_PV_CONST: the constant in double arithmetic (SRExprNode.x, SPEC §16) */
} SRPVal_Private;
#define SR_PV_CONST -2
static const SRPVal_Private SRPVErr_Private = {-1, {0, 0}, 0};

static SRPVal_Private Expr_Private(SRParser_Private *P);

static int Node_Private(SRParser_Private *P, SRExprOp op, int a, int b, int var, SRInterval v, double xd)
{
  int i;
  if (op != SR_X_CONST && op != SR_X_VAR && (a < 0 || (b < 0 && (op == SR_X_ADD || op == SR_X_SUB || op == SR_X_MUL || op == SR_X_DIV)))) return -1;
  if (P->plant->dag.n >= SR_PLANT_MAX_NODES) {
    /* the budget counts distinct operations: identical ones are shared (SRExprNode_) */
    i = SRExprFind(&P->plant->dag, op, a, b, var, v);
    if (i < 0) SRScanFail(&P->s, "the expressions need more than %d distinct operations (each costs time at every step; docs/arch.md)", SR_PLANT_MAX_NODES);
    return i;
  }
  i = op == SR_X_CONST ? SRExprConstant(&P->plant->dag, v, xd) : SRExprNode_(&P->plant->dag, op, a, b, var, v);
  if (i < 0) SRScanFail(&P->s, "out of memory");
  return i;
}

static SRPVal_Private PVConstX_Private(SRInterval v, double x) { return (SRPVal_Private){SR_PV_CONST, v, x}; }
static SRPVal_Private PVConst_Private(SRInterval v) { return PVConstX_Private(v, 0.5 * v.lo + 0.5 * v.hi); }
static SRPVal_Private PVNode_Private(int node) { return (SRPVal_Private){node < 0 ? -1 : node, {0, 0}, 0}; }
/* the DAG node of x (a constant enters the DAG only when an operation on states needs it) */
static int Materialise_Private(SRParser_Private *P, SRPVal_Private x) { return x.node == SR_PV_CONST ? Node_Private(P, SR_X_CONST, -1, -1, -1, x.v, x.x) : x.node; }

/* op on two constants (b unused for unary ops), outward rounded (tan, log and sqrt in the affine
   forms of the per-step evaluation, with no coordinates); out of line, so that the recursive
   descent keeps small frames */
static __attribute__((noinline)) SRInterval Fold_Private(SRExprOp op, SRInterval a, SRInterval b)
{
  SRAffine x = SRAffineInterval(a), r;
  switch (op) { /* interval arithmetic where it exists (exact when the operation is) */
  case SR_X_ADD: return SRIntervalAdd(a, b);
  case SR_X_SUB: return SRIntervalSub(a, b);
  case SR_X_MUL: return SRIntervalMul(a, b);
  case SR_X_DIV: return SRIntervalDiv(a, b);
  case SR_X_NEG: return SRIntervalNeg(a);
  case SR_X_SQR: return SRIntervalSqr(a);
  case SR_X_SIN: return SRIntervalSin(a);
  case SR_X_COS: return SRIntervalCos(a);
  case SR_X_EXP: return SRIntervalExp(a);
  case SR_X_TANH: return SRIntervalTanh(a);
  case SR_X_TAN: r = SRAffineTan(0, &x); break;
  case SR_X_LOG: r = SRAffineLog(0, &x); break;
  case SR_X_SQRT: r = SRAffineSqrt(0, &x); break;
  default: return SRIntervalNaI();
  }
  return SRAffineIsNaI(&r) ? SRIntervalNaI() : SRAffineRange(0, &r);
}

/* op on two constants in double arithmetic (SRExprNode.x: what SRExprEvalDouble would compute) */
static double FoldDouble_Private(SRExprOp op, double a, double b)
{
  switch (op) {
  case SR_X_ADD: return a + b;
  case SR_X_SUB: return a - b;
  case SR_X_MUL: return a * b;
  case SR_X_DIV: return a / b;
  case SR_X_NEG: return -a;
  case SR_X_SQR: return a * a;
  case SR_X_SIN: return sin(a);
  case SR_X_COS: return cos(a);
  case SR_X_TAN: return tan(a);
  case SR_X_EXP: return exp(a);
  case SR_X_LOG: return log(a);
  case SR_X_SQRT: return sqrt(a);
  case SR_X_TANH: return tanh(a);
  default: return NAN;
  }
}

/* a op b (b: SRPVErr_Private for unary ops); at: where the operation is written, for errors */
static SRPVal_Private Op_Private(SRParser_Private *P, SRExprOp op, SRPVal_Private a, SRPVal_Private b, const char *at)
{
  const bool binary = op == SR_X_ADD || op == SR_X_SUB || op == SR_X_MUL || op == SR_X_DIV;
  if (a.node == -1 || (binary && b.node == -1)) return SRPVErr_Private;
  if (op == SR_X_DIV && b.node == SR_PV_CONST && b.v.lo <= 0 && 0 <= b.v.hi) {
    P->s.p = at;
    SRScanFail(&P->s, "division by zero (the constant divisor is enclosed in [%.17g, %.17g])", b.v.lo, b.v.hi);
    return SRPVErr_Private;
  }
  if (a.node == SR_PV_CONST && (!binary || b.node == SR_PV_CONST)) {
    SRInterval r = Fold_Private(op, a.v, b.v);
    if (!SRIntervalIsBounded(r)) {
      P->s.p = at;
      SRScanFail(&P->s, "this constant has no finite value (an overflow, or a function outside its domain)");
      return SRPVErr_Private;
    }
    return PVConstX_Private(r, FoldDouble_Private(op, a.x, b.x));
  }
  {
    int x = Materialise_Private(P, a), y = binary ? Materialise_Private(P, b) : -1;
    if (x < 0 || (binary && y < 0)) return SRPVErr_Private;
    if (op == SR_X_MUL && x == y) op = SR_X_SQR, y = -1;
    return PVNode_Private(Node_Private(P, op, x, y, -1, SRIntervalPoint(0), 0));
  }
}

/* one level deeper (parentheses, a function, a sign): refused past SR_PLANT_MAX_DEPTH, so the
   recursive descent never runs out of stack */
static bool Deeper_Private(SRParser_Private *P)
{
  if (++P->depth <= SR_PLANT_MAX_DEPTH) return true;
  return SRScanFail(&P->s, "expression nested deeper than %d (parentheses, functions and signs)", SR_PLANT_MAX_DEPTH);
}

static SRPVal_Private Primary_Private(SRParser_Private *P)
{
  static const char *const fun[] = {"sin", "cos", "tan", "exp", "log", "sqrt", "tanh"};
  static const SRExprOp    fop[] = {SR_X_SIN, SR_X_COS, SR_X_TAN, SR_X_EXP, SR_X_LOG, SR_X_SQRT, SR_X_TANH};
  SRPlant                 *pl    = P->plant;
  char                     name[SR_PLANT_NAME];
  SRScanSkip(&P->s);
  if (*P->s.p == '(') {
    SRPVal_Private e;
    if (!Deeper_Private(P)) return SRPVErr_Private;
    P->s.p++;
    e = Expr_Private(P);
    P->depth--;
    if (e.node == -1 || !SRScanExpect(&P->s, ")")) return SRPVErr_Private;
    return e;
  }
  if (isdigit((unsigned char)*P->s.p) || *P->s.p == '.') {
    SRInterval  v;
    const char *at = P->s.p;
    char       *end;
    double      x  = strtod(at, &end); /* rounded to nearest: the double a C literal would be */
    if (!Number_Private(P, &v)) return SRPVErr_Private;
    return end == P->s.p && v.lo <= x && x <= v.hi ? PVConstX_Private(v, x) : PVConst_Private(v);
  }
  {
    const char *at = P->s.p;
    if (!SRScanName(&P->s, name)) return SRPVErr_Private;
    for (int f = 0; f < 7; f++)
      if (!strcmp(name, fun[f])) {
        SRPVal_Private e;
        if (!SRScanExpect(&P->s, "(") || !Deeper_Private(P)) return SRPVErr_Private;
        e = Expr_Private(P);
        P->depth--;
        if (e.node == -1 || !SRScanExpect(&P->s, ")")) return SRPVErr_Private;
        return Op_Private(P, fop[f], e, SRPVErr_Private, at);
      }
    for (int c = 0; c < P->nconst; c++)
      if (!strcmp(name, P->cname[c])) return PVConstX_Private(P->cval[c], P->cx[c]);
    for (int i = 0; i < pl->n; i++)
      if (!strcmp(name, pl->state[i])) {
        if (!P->allow_state) return P->s.p = at, SRScanFail(&P->s, "state '%s' is not allowed here", name), SRPVErr_Private;
        return PVNode_Private(Node_Private(P, SR_X_VAR, -1, -1, i, SRIntervalPoint(0), 0));
      }
    for (int i = 0; i < pl->nu; i++)
      if (!strcmp(name, pl->control[i])) {
        if (!P->allow_u) return P->s.p = at, SRScanFail(&P->s, "control '%s' is not allowed here (only in der lines)", name), SRPVErr_Private;
        return PVNode_Private(Node_Private(P, SR_X_VAR, -1, -1, SR_SLOT_U(i), SRIntervalPoint(0), 0));
      }
    for (int i = 0; i < pl->nw; i++)
      if (!strcmp(name, pl->dist[i])) {
        if (!P->allow_w) return P->s.p = at, SRScanFail(&P->s, "disturbance '%s' is not allowed here (only in der lines)", name), SRPVErr_Private;
        return PVNode_Private(Node_Private(P, SR_X_VAR, -1, -1, SR_SLOT_W(i), SRIntervalPoint(0), 0));
      }
    if (name[0] == 'y' && isdigit((unsigned char)name[1])) {
      char *end;
      long  k = strtol(name + 1, &end, 10);
      if (!*end) {
        if (!P->allow_y) return P->s.p = at, SRScanFail(&P->s, "network output '%s' is not allowed here (only in control lines)", name), SRPVErr_Private;
        if (k < 1 || k > pl->nout) return P->s.p = at, SRScanFail(&P->s, "network output '%s': the plant declares 'outputs %d' (y1..y%d)", name, pl->nout, pl->nout), SRPVErr_Private;
        return PVNode_Private(Node_Private(P, SR_X_VAR, -1, -1, SR_SLOT_Y((int)(k - 1)), SRIntervalPoint(0), 0));
      }
    }
    P->s.p = at;
    SRScanFail(&P->s, "unknown name '%s' (not a state, constant, control, disturbance, y1..y%d or function)", name, pl->nout);
    return SRPVErr_Private;
  }
}

/* x^k, k an integer: squares and products (k < 0: 1 / x^|k|) */
static SRPVal_Private Power_Private(SRParser_Private *P, SRPVal_Private x, long k, const char *at)
{
  SRPVal_Private r = SRPVErr_Private, b = x;
  long           m = k < 0 ? -k : k;
  bool           have = false;
  if (m == 0) return PVConst_Private(SRIntervalPoint(1.0));
  while (m > 0) {
    if (m & 1) r = have ? Op_Private(P, SR_X_MUL, r, b, at) : b, have = true;
    m >>= 1;
    if (m > 0) b = Op_Private(P, SR_X_SQR, b, SRPVErr_Private, at);
    if (P->s.err[0]) return SRPVErr_Private;
  }
  if (k < 0) r = Op_Private(P, SR_X_DIV, PVConst_Private(SRIntervalPoint(1.0)), r, at);
  return r;
}

static SRPVal_Private Unary_Private(SRParser_Private *P)
{
  SRPVal_Private e;
  SRScanSkip(&P->s);
  if (*P->s.p == '-' || *P->s.p == '+') {
    const char *at = P->s.p;
    if (!Deeper_Private(P)) return SRPVErr_Private;
    P->s.p++;
    e = Unary_Private(P);
    P->depth--;
    return *at == '+' ? e : Op_Private(P, SR_X_NEG, e, SRPVErr_Private, at);
  }
  e = Primary_Private(P);
  if (e.node == -1) return e;
  SRScanSkip(&P->s);
  if (*P->s.p == '^') {
    const char *at = P->s.p;
    char       *end;
    long        k;
    P->s.p++;
    SRScanSkip(&P->s);
    k = strtol(P->s.p, &end, 10);
    if (end == P->s.p || (*P->s.p != '-' && !isdigit((unsigned char)*P->s.p))) {
      char b[24];
      SRScanFail(&P->s, "expected an integer exponent after '^', found %s", SRScanFound(&P->s, b, sizeof b));
      return SRPVErr_Private;
    }
    if (k > 64 || k < -64) return SRScanFail(&P->s, "exponent %ld outside -64..64", k), SRPVErr_Private;
    P->s.p = end;
    e      = Power_Private(P, e, k, at);
  }
  return e;
}

static SRPVal_Private Term_Private(SRParser_Private *P)
{
  SRPVal_Private a = Unary_Private(P);
  while (a.node != -1) {
    const char *at;
    SRScanSkip(&P->s);
    at = P->s.p;
    if (*at != '*' && *at != '/') break;
    P->s.p++;
    a = Op_Private(P, *at == '*' ? SR_X_MUL : SR_X_DIV, a, Unary_Private(P), at);
  }
  return a;
}

static SRPVal_Private Expr_Private(SRParser_Private *P)
{
  SRPVal_Private a = Term_Private(P);
  while (a.node != -1) {
    const char *at;
    SRScanSkip(&P->s);
    at = P->s.p;
    if (*at != '+' && *at != '-') break;
    P->s.p++;
    a = Op_Private(P, *at == '+' ? SR_X_ADD : SR_X_SUB, a, Term_Private(P), at);
  }
  return a;
}

/* a whole-line expression: nothing may follow it */
static SRPVal_Private LineExprValue_Private(SRParser_Private *P)
{
  SRPVal_Private e;
  P->depth = 0;
  e        = Expr_Private(P);
  if (e.node != -1 && !SRScanAtEnd(&P->s)) {
    char b[24];
    SRScanFail(&P->s, "expected an operator or the end of the line, found %s", SRScanFound(&P->s, b, sizeof b));
    return SRPVErr_Private;
  }
  return e;
}

/* a whole-line expression as a DAG node */
static int LineExpr_Private(SRParser_Private *P)
{
  SRPVal_Private e = LineExprValue_Private(P);
  return e.node == -1 ? -1 : Materialise_Private(P, e);
}

static bool Known_Private(SRParser_Private *P, const char *name)
{
  SRPlant *pl = P->plant;
  for (int c = 0; c < P->nconst; c++)
    if (!strcmp(name, P->cname[c])) return true;
  for (int i = 0; i < pl->n; i++)
    if (!strcmp(name, pl->state[i])) return true;
  for (int i = 0; i < pl->nu; i++)
    if (!strcmp(name, pl->control[i])) return true;
  for (int i = 0; i < pl->nw; i++)
    if (!strcmp(name, pl->dist[i])) return true;
  return false;
}

static bool Positive_Private(SRParser_Private *P, double *v, SRInterval *iv)
{
  SRInterval x;
  const char *at;
  SRScanSkip(&P->s);
  at = P->s.p;
  if (!Number_Private(P, &x)) return false;
  *v = 0.5 * x.lo + 0.5 * x.hi;
  if (iv) *iv = x;
  if (!(x.lo > 0)) return P->s.p = at, SRScanFail(&P->s, "expected a positive number");
  if (!SRScanAtEnd(&P->s)) {
    char b[24];
    return SRScanFail(&P->s, "expected the end of the line, found %s", SRScanFound(&P->s, b, sizeof b));
  }
  return true;
}

/* a signed number for disturbance bounds */
static bool Signed_Private(SRParser_Private *P, double *lo, double *hi)
{
  SRInterval x;
  bool       neg = false;
  SRScanSkip(&P->s);
  if (*P->s.p == '-' || *P->s.p == '+') neg = *P->s.p++ == '-';
  if (!Number_Private(P, &x)) return false;
  if (neg) x = SRIntervalNeg(x);
  *lo = x.lo;
  *hi = x.hi;
  return true;
}

/* ---- what the abstraction and the study need (SPEC §16; plant.h): domain, bound, reference,
   regulate, and constants given as options --------------------------------------------------- */

/* a 'const NAME' line whose NAME is given as an option takes the option's value (exact) */
static void OverrideConst_Private(SRParser_Private *P, const char *name, SRPVal_Private *e)
{
  if (!P->ov) return;
  for (int k = 0; k < P->ov->n; k++)
    if (!strcmp(P->ov->name[k], name)) *e = PVConstX_Private(SRIntervalPoint(P->ov->value[k]), P->ov->value[k]);
}

/* a constant expression up to ',' ']' or the end of the line; its double in *x */
static bool ConstExpr_Private(SRParser_Private *P, const char *what, double *x)
{
  SRPVal_Private e;
  const char    *at;
  SRScanSkip(&P->s);
  at       = P->s.p;
  P->depth = 0;
  P->allow_state = P->allow_u = P->allow_w = P->allow_y = false;
  e = Expr_Private(P);
  if (e.node == -1) return false;
  if (e.node != SR_PV_CONST || !isfinite(e.x)) return P->s.p = at, SRScanFail(&P->s, "%s: expected a finite constant expression", what);
  *x = e.x;
  return true;
}

static int StateName_Private(SRParser_Private *P, const char *kw)
{
  char        name[SR_PLANT_NAME];
  const char *at;
  int         i;
  SRScanSkip(&P->s);
  at = P->s.p;
  if (!SRScanName(&P->s, name)) return -1;
  i = SRPlantStateIndex(P->plant, name);
  if (i < 0) P->s.p = at, SRScanFail(&P->s, "%s: '%s' is not a state", kw, name);
  return i;
}

/* 1/0: a statement of this kind, parsed (true) or refused (false, recorded); -1: not one */
static int SystemStatement_Private(SRParser_Private *P, const char *kw)
{
  SRPlant *pl = P->plant;
  char     name[SR_PLANT_NAME];
  if (!strcmp(kw, "domain")) {
    int         i;
    double      lo, hi;
    const char *at;
    if (!pl->n) return SRScanFail(&P->s, "'domain' before the 'states' line");
    if ((i = StateName_Private(P, kw)) < 0) return false;
    if (pl->has_domain[i]) return SRScanFail(&P->s, "a second 'domain %s' line", pl->state[i]);
    if (!SRScanName(&P->s, name) || strcmp(name, "in")) return SRScanFail(&P->s, "expected 'in [LO, HI]'");
    if (!SRScanExpect(&P->s, "[") || !ConstExpr_Private(P, "domain", &lo) || !SRScanExpect(&P->s, ",")) return false;
    SRScanSkip(&P->s);
    at = P->s.p;
    if (!ConstExpr_Private(P, "domain", &hi) || !SRScanExpect(&P->s, "]")) return false;
    if (!(lo < hi)) return P->s.p = at, SRScanFail(&P->s, "domain %s: [%.17g, %.17g] is empty; LO < HI is needed", pl->state[i], lo, hi);
    if (!SRScanAtEnd(&P->s)) return SRScanFail(&P->s, "expected the end of the line");
    pl->has_domain[i] = true, pl->dlo[i] = lo, pl->dhi[i] = hi;
    return true;
  }
  if (!strcmp(kw, "bound")) {
    const char *at;
    double      u;
    if (pl->umax > 0) return SRScanFail(&P->s, "a second 'bound' line");
    SRScanSkip(&P->s);
    at = P->s.p;
    if (!ConstExpr_Private(P, "bound", &u)) return false;
    if (!(u > 0)) return P->s.p = at, SRScanFail(&P->s, "bound %g: the control bound must be > 0", u);
    if (!SRScanAtEnd(&P->s)) return SRScanFail(&P->s, "expected the end of the line");
    pl->umax = u;
    return true;
  }
  if (!strcmp(kw, "reference")) {
    const char *at;
    int         j, e;
    SRScanSkip(&P->s);
    at = P->s.p;
    if (!SRScanName(&P->s, name)) return false;
    if (!strcmp(name, "lqr")) {
      if (pl->reference) return P->s.p = at, SRScanFail(&P->s, "a second reference (lqr and expressions do not mix)");
      pl->reference = 1;
      return SRScanAtEnd(&P->s) ? true : SRScanFail(&P->s, "expected the end of the line ('reference lqr' is at x = 0, u = 0)");
    }
    for (j = 0; j < pl->nu; j++)
      if (!strcmp(pl->control[j], name)) break;
    if (j == pl->nu) return P->s.p = at, SRScanFail(&P->s, "reference: expected 'lqr' or a control name (the 'control' lines come first), found '%s'", name);
    if (pl->reference == 1 || pl->ref_root[j] >= 0) return P->s.p = at, SRScanFail(&P->s, "a second reference for '%s'", name);
    if (!SRScanExpect(&P->s, "=")) return false;
    P->allow_state = true;
    e              = LineExpr_Private(P);
    if (e < 0) return false;
    pl->reference = 2;
    pl->ref_root[j] = e;
    return true;
  }
  if (!strcmp(kw, "regulate")) {
    if (pl->nreg) return SRScanFail(&P->s, "a second 'regulate' line");
    while (!SRScanAtEnd(&P->s)) {
      int i = StateName_Private(P, kw);
      if (i < 0) return false;
      for (int k = 0; k < pl->nreg; k++)
        if (pl->reg[k] == i) return SRScanFail(&P->s, "regulate: '%s' twice", pl->state[i]);
      pl->reg[pl->nreg++] = i;
    }
    return pl->nreg ? true : SRScanFail(&P->s, "expected state names after 'regulate'");
  }
  return -1;
}

/* after the file: a reference by expressions gives every control one */
static void SystemCheck_Private(SRParser_Private *P, const char *name)
{
  SRPlant *pl = P->plant;
  if (pl->reference == 2)
    for (int j = 0; j < pl->nu; j++)
      if (pl->ref_root[j] < 0) {
        snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'reference %s = ...' line (every control needs one, or 'reference lqr')", name, pl->control[j]);
        return;
      }
  if (pl->reference && !pl->nu) snprintf(P->s.err, sizeof P->s.err, "plant file %s: a 'reference' line in a plant with no 'control' line", name);
}

static bool Statement_Private(SRParser_Private *P, int *der_line, double *horizon, int *horizon_line, int *horizon_col)
{
  SRPlant *pl = P->plant;
  char     kw[SR_PLANT_NAME], name[SR_PLANT_NAME];
  if (SRScanAtEnd(&P->s)) return true;
  if (!SRScanName(&P->s, kw)) return false;
  P->allow_state = P->allow_u = P->allow_w = P->allow_y = false;
  if (!strcmp(kw, "states")) {
    if (pl->n) return SRScanFail(&P->s, "a second 'states' line");
    while (!SRScanAtEnd(&P->s)) {
      if (pl->n == SR_PLANT_MAX_STATES) return SRScanFail(&P->s, "more than %d states", SR_PLANT_MAX_STATES);
      if (!SRScanName(&P->s, name)) return false;
      if (Known_Private(P, name)) return SRScanFail(&P->s, "'%s' is already defined", name);
      strcpy(pl->state[pl->n++], name);
    }
    if (!pl->n) return SRScanFail(&P->s, "expected state names after 'states'");
    return true;
  }
  if (!strcmp(kw, "const")) {
    SRPVal_Private e;
    if (!SRScanName(&P->s, name)) return false;
    if (Known_Private(P, name)) return SRScanFail(&P->s, "'%s' is already defined", name);
    if (P->nconst == SR_PLANT_MAX_CONSTS) return SRScanFail(&P->s, "more than %d constants", SR_PLANT_MAX_CONSTS);
    if (!SRScanExpect(&P->s, "=")) return false;
    e = LineExprValue_Private(P); /* no names but constants allowed: always folded */
    if (e.node != SR_PV_CONST) return false;
    OverrideConst_Private(P, name, &e);
    strcpy(P->cname[P->nconst], name);
    P->cx[P->nconst]     = e.x;
    P->cval[P->nconst++] = e.v;
    return true;
  }
  if (!strcmp(kw, "outputs")) {
    SRInterval v;
    if (pl->nout) return SRScanFail(&P->s, "a second 'outputs' line");
    if (pl->nu) return SRScanFail(&P->s, "'outputs' must come before the control lines");
    if (!Number_Private(P, &v)) return false;
    if (!(v.lo == v.hi && v.lo >= 1 && v.lo <= SR_PLANT_MAX_OUTPUTS)) return SRScanFail(&P->s, "outputs: expected an integer 1..%d", SR_PLANT_MAX_OUTPUTS);
    pl->nout = (int)v.lo;
    return SRScanAtEnd(&P->s) ? true : SRScanFail(&P->s, "expected the end of the line");
  }
  if (!strcmp(kw, "input")) {
    int e;
    if (!pl->n) return SRScanFail(&P->s, "'input' before the 'states' line");
    if (pl->nin == SR_PLANT_MAX_INPUTS) return SRScanFail(&P->s, "more than %d inputs", SR_PLANT_MAX_INPUTS);
    P->allow_state = true;
    e              = LineExpr_Private(P);
    if (e < 0) return false;
    pl->in_root[pl->nin++] = e;
    return true;
  }
  if (!strcmp(kw, "control")) {
    int e;
    if (!pl->nout) return SRScanFail(&P->s, "'control' before the 'outputs' line");
    if (*der_line) return SRScanFail(&P->s, "'control' after a '%s' line", pl->discrete ? "next" : "der");
    if (pl->nu == SR_PLANT_MAX_STATES) return SRScanFail(&P->s, "more than %d controls", SR_PLANT_MAX_STATES);
    if (!SRScanName(&P->s, name)) return false;
    if (Known_Private(P, name)) return SRScanFail(&P->s, "'%s' is already defined", name);
    if (pl->nw) return SRScanFail(&P->s, "'control' lines must come before the disturbance lines");
    if (!SRScanExpect(&P->s, "=")) return false;
    P->allow_state = P->allow_y = true;
    e                           = LineExpr_Private(P);
    if (e < 0) return false;
    strcpy(pl->control[pl->nu], name);
    pl->u_root[pl->nu++] = e;
    return true;
  }
  if (!strcmp(kw, "disturbance")) {
    double lo, hi, t;
    if (*der_line) return SRScanFail(&P->s, "'disturbance' after a '%s' line", pl->discrete ? "next" : "der");
    if (pl->nw == SR_PLANT_MAX_STATES) return SRScanFail(&P->s, "more than %d disturbances", SR_PLANT_MAX_STATES);
    if (!SRScanName(&P->s, name)) return false;
    if (Known_Private(P, name)) return SRScanFail(&P->s, "'%s' is already defined", name);
    if (!SRScanName(&P->s, kw) || strcmp(kw, "in")) return SRScanFail(&P->s, "expected 'in [LO, HI]'");
    if (!SRScanExpect(&P->s, "[") || !Signed_Private(P, &lo, &t) || !SRScanExpect(&P->s, ",") || !Signed_Private(P, &t, &hi) || !SRScanExpect(&P->s, "]")) return false;
    if (!(lo <= hi)) return SRScanFail(&P->s, "disturbance '%s': empty interval", name);
    if (!SRScanAtEnd(&P->s)) return SRScanFail(&P->s, "expected the end of the line");
    strcpy(pl->dist[pl->nw], name);
    pl->wbox[pl->nw++] = (SRInterval){lo, hi};
    return true;
  }
  if (!strcmp(kw, "der") || !strcmp(kw, "next")) {
    const bool next = kw[0] == 'n';
    int        i, e;
    if (!pl->n) return SRScanFail(&P->s, "'%s' before the 'states' line", kw);
    if (next ? P->der_seen : P->next_seen) { /* SPEC §15 turn 4: continuous or discrete, not both */
      P->s.p -= strlen(kw);
      return SRScanFail(&P->s, "'%s' in a plant with '%s' lines (line %d): a plant is continuous-time (der) or discrete-time (next), not both", kw, next ? "der" : "next", next ? P->der_seen : P->next_seen);
    }
    if (!SRScanName(&P->s, name)) return false;
    for (i = 0; i < pl->n; i++)
      if (!strcmp(pl->state[i], name)) break;
    if (i == pl->n) return SRScanFail(&P->s, "'%s' is not a state", name);
    if (pl->f_root[i] >= 0) return SRScanFail(&P->s, "a second '%s %s' line", kw, name);
    if (!SRScanExpect(&P->s, "=")) return false;
    P->allow_state = P->allow_u = P->allow_w = true;
    e                                        = LineExpr_Private(P);
    if (e < 0) return false;
    pl->f_root[i] = e;
    *der_line     = P->s.lineno;
    if (next) {
      if (!P->next_seen) P->next_seen = P->s.lineno;
      pl->discrete = true;
    } else if (!P->der_seen) P->der_seen = P->s.lineno;
    return true;
  }
  if (!strcmp(kw, "select")) { /* SPEC §15 turn 4: the networks selected by the previous argmax */
    SRInterval v;
    if (pl->select) return SRScanFail(&P->s, "a second 'select' line");
    if (!pl->nout) return SRScanFail(&P->s, "'select' before the 'outputs' line");
    const char *at;
    SRScanSkip(&P->s), at = P->s.p;
    if (!SRScanName(&P->s, name) || strcmp(name, "argmax")) return P->s.p = at, SRScanFail(&P->s, "expected 'argmax' (the only selection rule)");
    SRScanSkip(&P->s), at = P->s.p;
    if (!SRScanName(&P->s, name) || strcmp(name, "initial")) return P->s.p = at, SRScanFail(&P->s, "expected 'initial K' (the network of the first period)");
    SRScanSkip(&P->s), at = P->s.p;
    if (!Number_Private(P, &v)) return false;
    if (!(v.lo == v.hi && v.lo >= 1 && v.lo <= pl->nout)) return P->s.p = at, SRScanFail(&P->s, "initial: expected an integer 1..%d (the outputs)", pl->nout);
    pl->select = (int)v.lo;
    return SRScanAtEnd(&P->s) ? true : SRScanFail(&P->s, "expected the end of the line");
  }
  if (!strcmp(kw, "period")) {
    const char *at;
    SRScanSkip(&P->s);
    at = P->s.p;
    if (!Positive_Private(P, &pl->period, &pl->period_iv)) return false;
    if (!(pl->period_iv.lo >= SR_PLANT_MIN_PERIOD && pl->period_iv.hi <= SR_PLANT_MAX_PERIOD)) return P->s.p = at, SRScanFail(&P->s, "period %g: allowed are %g..%g (seconds)", pl->period, SR_PLANT_MIN_PERIOD, SR_PLANT_MAX_PERIOD);
    return true;
  }
  if (!strcmp(kw, "horizon")) {
    SRScanSkip(&P->s);
    *horizon_line = P->s.lineno, *horizon_col = (int)(P->s.p - P->s.line) + 1;
    return Positive_Private(P, horizon, NULL);
  }
  if (!strcmp(kw, "steps")) {
    const char *at;
    double      s;
    SRScanSkip(&P->s);
    at = P->s.p;
    if (!Positive_Private(P, &s, NULL)) return false;
    /* checked in double before the cast (SPEC §15 turn 4) */
    if (!(s == floor(s) && s <= SR_PLANT_MAX_STEPS)) return P->s.p = at, SRScanFail(&P->s, "steps %.17g: expected an integer 1..%d", s, SR_PLANT_MAX_STEPS);
    pl->steps = (int)s;
    return true;
  }
  {
    int r = SystemStatement_Private(P, kw);
    if (r >= 0) return r;
  }
  P->s.p -= strlen(kw);
  return SRScanFail(&P->s, "unknown statement '%s' (allowed: states, const, outputs, input, control, disturbance, der, next, select, period, horizon, steps, domain, bound, reference, regulate)", kw);
}

PetscErrorCode SRPlantParse(MPI_Comm comm, const char name[], const char text[], SRPlant *pl)
{
  PetscFunctionBeginUser;
  PetscCall(SRPlantParseConsts(comm, name, text, NULL, pl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRPlantParseConsts(MPI_Comm comm, const char name[], const char text[], const SRPlantConsts *ov, SRPlant *pl)
{
  SRParser_Private *P;
  int               der_line = 0, horizon_line = 0, horizon_col = 0;
  double            horizon  = 0;
  const char       *line     = text;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(1, &P));
  memset(pl, 0, sizeof *pl);
  PetscCall(PetscStrncpy(pl->path, name, sizeof pl->path));
  SRExprInit(&pl->dag);
  for (int i = 0; i < SR_PLANT_MAX_STATES; i++) pl->f_root[i] = -1;
  P->s.kind  = "plant file";
  P->s.name  = name;
  P->plant = pl;
  P->ov    = ov;
  for (int i = 0; i < SR_PLANT_MAX_STATES; i++) pl->ref_root[i] = -1;
  for (int lineno = 1; *line; lineno++) {
    P->s.line   = line;
    P->s.p      = line;
    P->s.lineno = lineno;
    if (!Statement_Private(P, &der_line, &horizon, &horizon_line, &horizon_col)) break;
    while (*line && *line != '\n') line++;
    if (*line) line++;
  }
  if (!P->s.err[0]) {
    P->s.p = P->s.line = "";
    P->s.lineno      = 0;
    if (!pl->n) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'states' line", name);
    else if (!pl->nout) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'outputs' line (the number of network outputs)", name);
    else if (!pl->nin) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'input' line (the network's inputs)", name);
    else if (!(pl->period > 0)) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'period' line", name);
    else {
      for (int i = 0; i < pl->n && !P->s.err[0]; i++)
        if (pl->f_root[i] < 0) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no '%s %s' line", name, pl->discrete ? "next" : "der", pl->state[i]);
    }
  }
  if (!P->s.err[0]) {
    if (horizon_line && pl->steps) snprintf(P->s.err, sizeof P->s.err, "plant file %s:%d: give 'horizon' or 'steps', not both", name, horizon_line);
    else if (horizon_line) {
      /* the number of periods in double, bounded before the cast (SPEC §15 turn 4) */
      double s = horizon / pl->period;
      if (!(floor(s + 0.5) <= SR_PLANT_MAX_STEPS))
        snprintf(P->s.err, sizeof P->s.err, "plant file %s:%d:%d: horizon %g / period %g = %.3g periods; at most %d (give a shorter horizon or a longer period)", name, horizon_line, horizon_col, horizon, pl->period, s, SR_PLANT_MAX_STEPS);
      else if (fabs(s - floor(s + 0.5)) > 1e-9 * s || floor(s + 0.5) < 1) snprintf(P->s.err, sizeof P->s.err, "plant file %s:%d:%d: horizon %g is not a multiple of the period %g", name, horizon_line, horizon_col, horizon, pl->period);
      else pl->steps = (int)floor(s + 0.5);
    } else if (!pl->steps) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'horizon' or 'steps' line", name);
  }
  if (!P->s.err[0]) SystemCheck_Private(P, name);
  pl->nvars = SR_PLANT_NVARS;
  pl->nconst = P->nconst;
  for (int c = 0; c < P->nconst; c++) strcpy(pl->cname[c], P->cname[c]), pl->cval[c] = P->cval[c], pl->cx[c] = P->cx[c];
  if (P->s.err[0]) {
    char msg[512];
    PetscCall(PetscStrncpy(msg, P->s.err, sizeof msg));
    PetscCall(PetscFree(P));
    SRPlantFree(pl);
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "%s", msg);
  }
  PetscCall(PetscFree(P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRPlantReadText(MPI_Comm comm, const char path[], char **textp)
{
  static const char *const types[] = {"a directory", "a FIFO", "a character device", "a block device", "a socket", "not a regular file"};
  PetscMPIInt              rank;
  long                     len  = -1;
  char                    *text = NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    const char *type;
    len = SRScanReadFile(path, SR_PLANT_MAX_BYTES, &text, &type);
    if (len == -3) /* -3 - k: the k-th type */
      for (int k = 0; k < 6; k++)
        if (!strcmp(type, types[k])) len = -3 - k;
  }
  PetscCallMPI(MPI_Bcast(&len, 1, MPI_LONG, 0, comm));
  PetscCheck(len > -3, comm, PETSC_ERR_FILE_OPEN, "-plant %s: %s%s; give a regular file", path, len == -8 ? "" : "is ", types[-3 - len < 6 && -3 - len >= 0 ? -3 - len : 5]);
  PetscCheck(len != -2, comm, PETSC_ERR_FILE_UNEXPECTED, "plant file %s: larger than 16 MB", path);
  PetscCheck(len >= 0, comm, PETSC_ERR_FILE_OPEN, "-plant %s: cannot read the file", path);
  if (rank != 0) PetscCheck(text = malloc((size_t)len + 1), PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory");
  PetscCallMPI(MPI_Bcast(text, (int)len + 1, MPI_CHAR, 0, comm));
  PetscCheck(strlen(text) == (size_t)len, comm, PETSC_ERR_FILE_UNEXPECTED, "plant file %s: contains a NUL byte (not a text file?)", path);
  *textp = text;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRPlantRead(MPI_Comm comm, const char path[], SRPlant *plant)
{
  char *text;

  PetscFunctionBeginUser;
  PetscCall(SRPlantReadText(comm, path, &text));
  {
    PetscErrorCode ierr = SRPlantParse(comm, path, text, plant);
    free(text);
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRPlantFree(SRPlant *plant) { SRExprFree(&plant->dag); }

int SRPlantStateIndex(const SRPlant *plant, const char name[])
{
  for (int i = 0; i < plant->n; i++)
    if (!strcmp(plant->state[i], name)) return i;
  return -1;
}
