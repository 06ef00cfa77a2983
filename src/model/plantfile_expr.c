/* Plant-file expressions (SPEC §15, docs/arch.md "Plant files"; the parser's state is
   include/simreach/private/plantparse.h): numbers, names, operations, integer powers, functions,
   comparisons, if, argmax and case, by recursive descent into the plant's DAG.  Constant
   sub-expressions are folded here into outward intervals (and their doubles, SRExprNode.x). */
#include <simreach/private/plantparse.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A decimal literal as an outward interval (SRIntervalDecimal: exact when it is a double). */
bool Number_Private(SRParser_Private *P, SRInterval *v)
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
bool Deeper_Private(SRParser_Private *P)
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

SRPVal_Private Expr_Private(SRParser_Private *P)
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
  return PVNode_Private(Node_Private(P, SR_X_IF, c.node, y, z, SRIntervalPoint(0), 0));
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
  return PVNode_Private(Node_Private(P, op, x, y, -1, SRIntervalPoint(0), 0));
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
SRPVal_Private LineExprValue_Private(SRParser_Private *P)
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
int LineExpr_Private(SRParser_Private *P)
{
  SRPVal_Private e = LineExprValue_Private(P);
  return e.node == -1 ? -1 : Materialise_Private(P, e);
}
