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
   Expressions: numbers, names, + - * / ( ), integer powers ^k (k may be negative),
   sin cos tan exp log sqrt tanh, and the piecewise if(COND, A, B) (COND: comparisons <= < >= > ==
   with and, or, not), argmax(E1, ..., Ek) and case(I, V1, ..., Vk) (Piecewise_Private).  Decimal numbers that are no double are enclosed by the
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

#define SR_PLANT_MAX_CONSTS 64
#define SR_PLANT_MAX_ARGMAX 16  /* argmax(...) calls in one file */
#define SR_PLANT_MAX_ARGS 64    /* operands of argmax and case */

/* A parsed expression: a DAG node, or a constant not yet in the DAG (folded at parse time,
   SPEC §15 turn 4: a constant sub-expression costs nothing per step, and one that has no finite
   value, e.g. a division by zero, is refused where it is written). */
typedef struct {
  int        node; /* >= 0: a node; SR_PV_CONST: the constant v; -1: an error (recorded) */
  SRInterval v;
} SRPVal_Private;
#define SR_PV_CONST -2
typedef struct {
  SRLineScan  s; /* the cursor and the first error (linescan.c) */
  SRPlant    *plant;
  char        cname[SR_PLANT_MAX_CONSTS][SR_PLANT_NAME];
  SRInterval  cval[SR_PLANT_MAX_CONSTS]; /* folded at parse time */
  int         nconst;
  int         depth; /* of the expression being read (Deeper_Private) */
  int         der_seen, next_seen; /* the first 'der' / 'next' line (0: none) */
  /* which names an expression may use */
  bool        allow_state, allow_u, allow_w, allow_y;
  /* argmax(...) nodes and their exact indicators "operand i is the first largest", so that
     'argmax(...) == i' and case(argmax(...), ...) keep the candidates apart (Piecewise_Private) */
  int         nargmax, argmax_node[SR_PLANT_MAX_ARGMAX], argmax_k[SR_PLANT_MAX_ARGMAX];
  SRPVal_Private *argmax_is[SR_PLANT_MAX_ARGMAX];
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

static const SRPVal_Private SRPVErr_Private = {-1, {0, 0}};

static SRPVal_Private Expr_Private(SRParser_Private *P);

static int Node_Private(SRParser_Private *P, SRExprOp op, int a, int b, int var, SRInterval v)
{
  int i;
  if (op != SR_X_CONST && op != SR_X_VAR && (a < 0 || (b < 0 && (op == SR_X_ADD || op == SR_X_SUB || op == SR_X_MUL || op == SR_X_DIV)))) return -1;
  if (P->plant->dag.n >= SR_PLANT_MAX_NODES) {
    /* the budget counts distinct operations: identical ones are shared (SRExprNode_) */
    i = SRExprFind(&P->plant->dag, op, a, b, var, v);
    if (i < 0) SRScanFail(&P->s, "the expressions need more than %d distinct operations (each costs time at every step; docs/arch.md)", SR_PLANT_MAX_NODES);
    return i;
  }
  i = SRExprNode_(&P->plant->dag, op, a, b, var, v);
  if (i < 0) SRScanFail(&P->s, "out of memory");
  return i;
}

static SRPVal_Private PVConst_Private(SRInterval v) { return (SRPVal_Private){SR_PV_CONST, v}; }
static SRPVal_Private PVNode_Private(int node) { return (SRPVal_Private){node < 0 ? -1 : node, {0, 0}}; }
/* the DAG node of x (a constant enters the DAG only when an operation on states needs it) */
static int Materialise_Private(SRParser_Private *P, SRPVal_Private x) { return x.node == SR_PV_CONST ? Node_Private(P, SR_X_CONST, -1, -1, -1, x.v) : x.node; }

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
    return PVConst_Private(r);
  }
  {
    int x = Materialise_Private(P, a), y = binary ? Materialise_Private(P, b) : -1;
    if (x < 0 || (binary && y < 0)) return SRPVErr_Private;
    if (op == SR_X_MUL && x == y) op = SR_X_SQR, y = -1;
    return PVNode_Private(Node_Private(P, op, x, y, -1, SRIntervalPoint(0)));
  }
}

/* one level deeper (parentheses, a function, a sign): refused past SR_PLANT_MAX_DEPTH, so the
   recursive descent never runs out of stack */
static bool Deeper_Private(SRParser_Private *P)
{
  if (++P->depth <= SR_PLANT_MAX_DEPTH) return true;
  return SRScanFail(&P->s, "expression nested deeper than %d (parentheses, functions and signs)", SR_PLANT_MAX_DEPTH);
}

static SRPVal_Private Piecewise_Private(SRParser_Private *P, const char *name, const char *at);

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
    SRInterval v;
    if (!Number_Private(P, &v)) return SRPVErr_Private;
    return PVConst_Private(v);
  }
  {
    const char *at = P->s.p;
    if (!SRScanName(&P->s, name)) return SRPVErr_Private;
    if (!strcmp(name, "if") || !strcmp(name, "argmax") || !strcmp(name, "case")) return Piecewise_Private(P, name, at);
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
      if (!strcmp(name, P->cname[c])) return PVConst_Private(P->cval[c]);
    for (int i = 0; i < pl->n; i++)
      if (!strcmp(name, pl->state[i])) {
        if (!P->allow_state) return P->s.p = at, SRScanFail(&P->s, "state '%s' is not allowed here", name), SRPVErr_Private;
        return PVNode_Private(Node_Private(P, SR_X_VAR, -1, -1, i, SRIntervalPoint(0)));
      }
    for (int i = 0; i < pl->nu; i++)
      if (!strcmp(name, pl->control[i])) {
        if (!P->allow_u) return P->s.p = at, SRScanFail(&P->s, "control '%s' is not allowed here (only in der lines)", name), SRPVErr_Private;
        return PVNode_Private(Node_Private(P, SR_X_VAR, -1, -1, SR_SLOT_U(i), SRIntervalPoint(0)));
      }
    for (int i = 0; i < pl->nw; i++)
      if (!strcmp(name, pl->dist[i])) {
        if (!P->allow_w) return P->s.p = at, SRScanFail(&P->s, "disturbance '%s' is not allowed here (only in der lines)", name), SRPVErr_Private;
        return PVNode_Private(Node_Private(P, SR_X_VAR, -1, -1, SR_SLOT_W(i), SRIntervalPoint(0)));
      }
    if (name[0] == 'y' && isdigit((unsigned char)name[1])) {
      char *end;
      long  k = strtol(name + 1, &end, 10);
      if (!*end) {
        if (!P->allow_y) return P->s.p = at, SRScanFail(&P->s, "network output '%s' is not allowed here (only in control lines)", name), SRPVErr_Private;
        if (k < 1 || k > pl->nout) return P->s.p = at, SRScanFail(&P->s, "network output '%s': the plant declares 'outputs %d' (y1..y%d)", name, pl->nout, pl->nout), SRPVErr_Private;
        return PVNode_Private(Node_Private(P, SR_X_VAR, -1, -1, SR_SLOT_Y((int)(k - 1)), SRIntervalPoint(0)));
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

/* ---- piecewise expressions (SPEC §15 turn 4, docs/arch.md "Comparisons, if, argmax, case") ----
   if(COND, A, B) is A where COND holds, B elsewhere; COND is comparisons (<=, <, >=, >, ==) joined
   by 'and', 'or', 'not' and parentheses, built from the DAG's LE, LT and IF (and = if(a, b, 0),
   or = if(a, 1, b), not = if(a, 0, 1): three-valued when undecided).  argmax(E1, ..., Ek) is the
   index of the first largest operand: if(is_1, 1, if(is_2, 2, ... k)) with is_i = [E_j < E_i for
   j < i and E_j <= E_i for j > i]; case(I, V1, ..., Vk) is V_i for the first i < k with I == i,
   else Vk.  'argmax(...) == i' and case(argmax(...), ...) use is_i itself (exact: the argmax's
   enclosure is only the hull of its candidates). */
/* the constants 0 and 1 (through PVConst_Private, so that a constant is always made one way) */
static SRPVal_Private PVInt_Private(int k) { return PVConst_Private(SRIntervalPoint(k)); }
#define SRPV0_Private PVInt_Private(0)
#define SRPV1_Private PVInt_Private(1)

static SRPVal_Private If_Private(SRParser_Private *P, SRPVal_Private c, SRPVal_Private t, SRPVal_Private e, const char *at)
{
  int y, z;
  if (c.node == -1 || t.node == -1 || e.node == -1) return SRPVErr_Private;
  if (c.node == SR_PV_CONST) { /* decided here, or refused */
    if (c.v.lo > 0 || c.v.hi < 0) return t;
    if (c.v.lo == 0 && c.v.hi == 0) return e;
    P->s.p = at;
    SRScanFail(&P->s, "this condition of constants is undecided (enclosed in [%.17g, %.17g])", c.v.lo, c.v.hi);
    return SRPVErr_Private;
  }
  if (t.node == SR_PV_CONST && e.node == SR_PV_CONST && t.v.lo == e.v.lo && t.v.hi == e.v.hi) return t;
  if (t.node >= 0 && t.node == e.node) return t;
  y = Materialise_Private(P, t), z = Materialise_Private(P, e);
  if (y < 0 || z < 0) return SRPVErr_Private;
  return PVNode_Private(Node_Private(P, SR_X_IF, c.node, y, z, SRIntervalPoint(0)));
}

/* [l <= r] (SR_X_LE) or [l < r] (SR_X_LT); two constants are compared here (undecided: refused) */
static SRPVal_Private Compare_Private(SRParser_Private *P, SRExprOp op, SRPVal_Private l, SRPVal_Private r, const char *at)
{
  int x, y;
  if (l.node == -1 || r.node == -1) return SRPVErr_Private;
  if (l.node == SR_PV_CONST && r.node == SR_PV_CONST) {
    SRInterval d = SRIntervalSub(l.v, r.v);
    if (op == SR_X_LE ? d.hi <= 0 : d.hi < 0) return SRPV1_Private;
    if (op == SR_X_LE ? d.lo > 0 : d.lo >= 0) return SRPV0_Private;
    P->s.p = at;
    SRScanFail(&P->s, "this comparison of constants is undecided (their difference is enclosed in [%.17g, %.17g])", d.lo, d.hi);
    return SRPVErr_Private;
  }
  x = Materialise_Private(P, l), y = Materialise_Private(P, r);
  if (x < 0 || y < 0) return SRPVErr_Private;
  return PVNode_Private(Node_Private(P, op, x, y, -1, SRIntervalPoint(0)));
}

/* l == r: an argmax compared with an integer is its indicator, else l <= r and r <= l */
static SRPVal_Private Equal_Private(SRParser_Private *P, SRPVal_Private l, SRPVal_Private r, const char *at)
{
  for (int s = 0; s < 2; s++) {
    SRPVal_Private A = s ? r : l, c = s ? l : r;
    if (A.node < 0 || c.node != SR_PV_CONST || c.v.lo != c.v.hi || c.v.lo != floor(c.v.lo)) continue;
    for (int q = 0; q < P->nargmax; q++)
      if (A.node == P->argmax_node[q]) return c.v.lo < 1 || c.v.lo > P->argmax_k[q] ? SRPV0_Private : P->argmax_is[q][(int)c.v.lo - 1];
  }
  return If_Private(P, Compare_Private(P, SR_X_LE, l, r, at), Compare_Private(P, SR_X_LE, r, l, at), SRPV0_Private, at);
}

static bool Word_Private(SRParser_Private *P, const char *w)
{
  size_t n = strlen(w);
  SRScanSkip(&P->s);
  if (strncmp(P->s.p, w, n) || isalnum((unsigned char)P->s.p[n]) || P->s.p[n] == '_') return false;
  P->s.p += n;
  return true;
}

/* at '(': does a comparison follow inside these parentheses (not nested deeper)? */
static bool ParenIsCond_Private(const char *p)
{
  for (int depth = 0; *p && *p != '\n' && *p != '#'; p++) {
    if (*p == '(') depth++;
    else if (*p == ')' && --depth == 0) return false;
    else if (depth == 1 && (*p == '<' || *p == '>' || *p == '=')) return true;
  }
  return false;
}

static SRPVal_Private Cond_Private(SRParser_Private *P);

static SRPVal_Private CondAtom_Private(SRParser_Private *P)
{
  static const char *const cmp[] = {"<=", ">=", "==", "<", ">"};
  SRPVal_Private           l, r;
  const char              *at;
  char                     b[24];
  SRScanSkip(&P->s);
  at = P->s.p;
  if (Word_Private(P, "not") || (*at == '(' && ParenIsCond_Private(at))) {
    if (!Deeper_Private(P)) return SRPVErr_Private;
    if (*at == '(') {
      P->s.p++;
      l = Cond_Private(P);
      if (l.node != -1 && !SRScanExpect(&P->s, ")")) l = SRPVErr_Private;
    } else l = If_Private(P, CondAtom_Private(P), SRPV0_Private, SRPV1_Private, at); /* not binds tightest */
    P->depth--;
    return l;
  }
  l = Expr_Private(P);
  if (l.node == -1) return l;
  SRScanSkip(&P->s);
  at = P->s.p;
  for (int c = 0; c < 5; c++)
    if (!strncmp(at, cmp[c], strlen(cmp[c]))) {
      P->s.p += strlen(cmp[c]);
      r = Expr_Private(P);
      if (c == 2) return Equal_Private(P, l, r, at);
      return Compare_Private(P, c < 2 || c == 3 ? (c == 3 ? SR_X_LT : SR_X_LE) : SR_X_LT, c == 1 || c == 4 ? r : l, c == 1 || c == 4 ? l : r, at);
    }
  SRScanFail(&P->s, "expected a comparison (<=, <, >=, >, ==) in the condition, found %s", SRScanFound(&P->s, b, sizeof b));
  return SRPVErr_Private;
}

static SRPVal_Private Cond_Private(SRParser_Private *P)
{
  SRPVal_Private a = CondAtom_Private(P);
  for (bool any = true; a.node != -1 && any;) {
    const char *at = (SRScanSkip(&P->s), P->s.p);
    any            = false;
    if (Word_Private(P, "and")) a = If_Private(P, a, CondAtom_Private(P), SRPV0_Private, at), any = true;
    else if (Word_Private(P, "or")) a = If_Private(P, a, SRPV1_Private, CondAtom_Private(P), at), any = true;
  }
  return a;
}

/* argmax(E1, ..., Ek) from its parsed operands E (k of them) */
static SRPVal_Private Argmax_Private(SRParser_Private *P, int k, const SRPVal_Private *E, const char *at)
{
  SRPVal_Private *is = malloc((size_t)k * sizeof *is), A = PVConst_Private(SRIntervalPoint(k));
  if (!is) return SRScanFail(&P->s, "out of memory"), SRPVErr_Private;
  for (int i = 0; i < k; i++) {
    is[i] = SRPV1_Private;
    for (int j = 0; j < k && is[i].node != -1; j++)
      if (j != i) is[i] = If_Private(P, is[i], Compare_Private(P, j < i ? SR_X_LT : SR_X_LE, E[j], E[i], at), SRPV0_Private, at);
  }
  for (int i = k - 2; i >= 0 && A.node != -1; i--) A = If_Private(P, is[i], PVConst_Private(SRIntervalPoint(i + 1)), A, at);
  if (A.node >= 0 && P->nargmax < SR_PLANT_MAX_ARGMAX) {
    P->argmax_node[P->nargmax] = A.node, P->argmax_k[P->nargmax] = k;
    P->argmax_is[P->nargmax++] = is;
  } else free(is);
  return A;
}

/* if(...), argmax(...), case(...) after their name (at: the name) */
static __attribute__((noinline)) SRPVal_Private Piecewise_Private(SRParser_Private *P, const char *name, const char *at)
{
  SRPVal_Private *E, r = SRPVErr_Private;
  int             k = 0;
  if (!SRScanExpect(&P->s, "(") || !Deeper_Private(P)) return SRPVErr_Private;
  if (!(E = malloc((SR_PLANT_MAX_ARGS + 1) * sizeof *E))) return SRScanFail(&P->s, "out of memory"), SRPVErr_Private;
  if (name[0] == 'i') { /* if(COND, A, B) */
    E[0] = Cond_Private(P);
    if (E[0].node != -1 && SRScanExpect(&P->s, ",")) E[1] = Expr_Private(P);
    else E[1] = SRPVErr_Private;
    if (E[1].node != -1 && SRScanExpect(&P->s, ",")) E[2] = Expr_Private(P);
    else E[2] = SRPVErr_Private;
    if (E[2].node != -1 && SRScanExpect(&P->s, ")")) r = If_Private(P, E[0], E[1], E[2], at);
  } else {
    const int max = SR_PLANT_MAX_ARGS + (name[0] == 'c');
    for (;;) {
      if (k == max) {
        SRScanFail(&P->s, "%s: more than %d operands", name, max);
        break;
      }
      if ((E[k++] = Expr_Private(P)).node == -1) break;
      SRScanSkip(&P->s);
      if (*P->s.p == ',') P->s.p++;
      else if (SRScanExpect(&P->s, ")")) {
        if (name[0] == 'a') r = Argmax_Private(P, k, E, at);
        else if (k < 2) P->s.p = at, SRScanFail(&P->s, "case(I, V1, ..., Vk) needs an index and at least one value");
        else {
          r = E[k - 1];
          for (int i = k - 2; i >= 1 && r.node != -1; i--) r = If_Private(P, Equal_Private(P, E[0], PVConst_Private(SRIntervalPoint(i)), at), E[i], r, at);
        }
        break;
      } else break;
    }
  }
  free(E);
  P->depth--;
  return P->s.err[0] ? SRPVErr_Private : r;
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
    strcpy(P->cname[P->nconst], name);
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
  P->s.p -= strlen(kw);
  return SRScanFail(&P->s, "unknown statement '%s' (allowed: states, const, outputs, input, control, disturbance, der, next, select, period, horizon, steps)", kw);
}

PetscErrorCode SRPlantParse(MPI_Comm comm, const char name[], const char text[], SRPlant *pl)
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
  pl->nvars = SR_PLANT_NVARS;
  for (int r = 0; r < P->nargmax; r++) free(P->argmax_is[r]);
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

PetscErrorCode SRPlantRead(MPI_Comm comm, const char path[], SRPlant *plant)
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
