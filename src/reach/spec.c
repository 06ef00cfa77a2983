/* Spec files (include/simreach/spec.h, SPEC §15; the format is in docs/arch.md).
     initial NAME in [LO, HI]             one line per state
     always [T0, T1]: BODY                (the window may be left out: the whole horizon)
     at_end: BODY
     eventually [T0, T1]: BODY
   BODY is a formula (SPEC §15 turn 4): OR := AND (or AND)*, AND := UNARY (and UNARY)*,
   UNARY := not UNARY | ( OR ) | ATOM; an ATOM is SUM <= SUM, SUM >= SUM or NAME in [LO, HI],
   SUM an expression of the states with the plant file's operators (+ - * / ^K, sqrt exp log
   sin cos tan tanh).  An atom affine in the states becomes a . x <= b (the linear fast path);
   any other keeps its expression in the spec's DAG.  not is pushed down to the atoms (De
   Morgan; the negation of <= is the strict <).  Every error names the file, the line and the
   column. */
#include <simreach/private/linescan.h>
#include <simreach/private/textfile.h>
#include <simreach/spec.h>

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  SRLineScan     s; /* the cursor and the first error (src/model/linescan.c) */
  const SRPlant *pl;
  SRSpec        *S;
  int            depth; /* nesting of the formula and the expressions (SR_PLANT_MAX_DEPTH) */
} SRSpecParser_Private;

static bool SIsNumber_Private(SRSpecParser_Private *P)
{
  const char *s = P->s.p;
  SRScanSkip(&P->s);
  s = P->s.p;
  if (*s == '-' || *s == '+') s++;
  return isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]));
}

/* a signed decimal, enclosed (SRIntervalDecimal: exact when it is a double) */
static bool SNumber_Private(SRSpecParser_Private *P, SRInterval *v)
{
  char       *end, b[24];
  const char *s;
  SRScanSkip(&P->s);
  s = P->s.p;
  if (!SIsNumber_Private(P)) return SRScanFail(&P->s, "expected a number, found %s", SRScanFound(&P->s, b, sizeof b));
  {
    bool neg = *s == '-';
    if (*s == '-' || *s == '+') s++;
    *v = SRIntervalDecimal(s, &end);
    if (SRIntervalIsNaI(*v) || !SRIntervalIsBounded(*v)) return SRScanFail(&P->s, "number out of range");
    if (neg) *v = SRIntervalNeg(*v);
  }
  P->s.p = end;
  return true;
}

static int SState_Private(SRSpecParser_Private *P, const char *at, const char *name)
{
  int i = SRPlantStateIndex(P->pl, name);
  if (i < 0) {
    P->s.p = at;
    SRScanFail(&P->s, "'%s' is not a state of plant %s", name, P->pl->path);
  }
  return i;
}

/* ---- expressions of the states (the plant file's operators), nodes of S->dag ---- */

static int SNode_Private(SRSpecParser_Private *P, SRExprOp op, int a, int b, int var, SRInterval v)
{
  int i;
  if (op != SR_X_CONST && op != SR_X_VAR && (a < 0 || (b < 0 && (op == SR_X_ADD || op == SR_X_SUB || op == SR_X_MUL || op == SR_X_DIV)))) return -1;
  if (P->S->dag.n >= SR_PLANT_MAX_NODES && SRExprFind(&P->S->dag, op, a, b, var, v) < 0) {
    SRScanFail(&P->s, "the expressions need more than %d distinct operations", SR_PLANT_MAX_NODES);
    return -1;
  }
  i = SRExprNode_(&P->S->dag, op, a, b, var, v);
  if (i < 0) SRScanFail(&P->s, "out of memory");
  return i;
}

static bool SDeeper_Private(SRSpecParser_Private *P)
{
  if (++P->depth <= SR_PLANT_MAX_DEPTH) return true;
  return SRScanFail(&P->s, "nested more than %d deep", SR_PLANT_MAX_DEPTH);
}

static int SSum_Private(SRSpecParser_Private *P);

/* NUMBER | NAME | FUNCTION ( SUM ) | ( SUM ), then ^ K (an integer 0..64) */
static int SPrimary_Private(SRSpecParser_Private *P)
{
  static const char *const fn[]  = {"sqrt", "exp", "log", "sin", "cos", "tan", "tanh"};
  static const SRExprOp    fop[] = {SR_X_SQRT, SR_X_EXP, SR_X_LOG, SR_X_SIN, SR_X_COS, SR_X_TAN, SR_X_TANH};
  char                     b[24], name[SR_PLANT_NAME];
  int                      x = -1;
  SRScanSkip(&P->s);
  if (isdigit((unsigned char)*P->s.p) || (*P->s.p == '.' && isdigit((unsigned char)P->s.p[1]))) {
    SRInterval v;
    if (!SNumber_Private(P, &v)) return -1;
    x = SNode_Private(P, SR_X_CONST, -1, -1, -1, v);
  } else if (*P->s.p == '(') {
    P->s.p++;
    if ((x = SSum_Private(P)) < 0 || !SRScanExpect(&P->s, ")")) return -1;
  } else if (isalpha((unsigned char)*P->s.p) || *P->s.p == '_') {
    const char *at = P->s.p;
    int         f  = -1;
    if (!SRScanName(&P->s, name)) return -1;
    SRScanSkip(&P->s);
    for (int k = 0; k < 7; k++)
      if (!strcmp(name, fn[k]) && *P->s.p == '(') f = k;
    if (f >= 0) {
      int a;
      P->s.p++;
      if (!SDeeper_Private(P) || (a = SSum_Private(P)) < 0 || !SRScanExpect(&P->s, ")")) return -1;
      P->depth--;
      x = SNode_Private(P, fop[f], a, -1, -1, SRIntervalPoint(0));
    } else {
      int i = SState_Private(P, at, name);
      if (i < 0) return -1;
      x = SNode_Private(P, SR_X_VAR, -1, -1, i, SRIntervalPoint(0));
    }
  } else return SRScanFail(&P->s, "expected a number, a state, a function (sqrt, exp, log, sin, cos, tan, tanh) or '(', found %s", SRScanFound(&P->s, b, sizeof b)), -1;
  SRScanSkip(&P->s);
  if (x >= 0 && *P->s.p == '^') {
    char *end;
    long  k, r = -1;
    P->s.p++;
    SRScanSkip(&P->s);
    k = strtol(P->s.p, &end, 10);
    if (end == P->s.p || k < 0 || k > 64 || *end == '.' || *end == 'e' || *end == 'E') return SRScanFail(&P->s, "expected an integer power 0..64 after '^'"), -1;
    P->s.p = end;
    /* x^k by squares and products */
    for (int sq = x; k > 0 && sq >= 0; k >>= 1) {
      if (k & 1) r = r < 0 ? sq : SNode_Private(P, SR_X_MUL, r, sq, -1, SRIntervalPoint(0));
      if (k > 1) sq = SNode_Private(P, SR_X_SQR, sq, -1, -1, SRIntervalPoint(0));
    }
    x = r >= 0 ? r : SNode_Private(P, SR_X_CONST, -1, -1, -1, SRIntervalPoint(1.0));
  }
  return x;
}

static int SUnary_Private(SRSpecParser_Private *P)
{
  int x;
  SRScanSkip(&P->s);
  if (*P->s.p != '-' && *P->s.p != '+') return SPrimary_Private(P);
  {
    bool neg = *P->s.p++ == '-';
    if (!SDeeper_Private(P) || (x = SUnary_Private(P)) < 0) return -1;
    P->depth--;
    return neg ? SNode_Private(P, SR_X_NEG, x, -1, -1, SRIntervalPoint(0)) : x;
  }
}

static int STerm_Private(SRSpecParser_Private *P)
{
  int x = SUnary_Private(P);
  for (;;) {
    int  y;
    bool mul;
    SRScanSkip(&P->s);
    if (x < 0 || (*P->s.p != '*' && *P->s.p != '/')) return x;
    mul = *P->s.p++ == '*';
    if ((y = SUnary_Private(P)) < 0) return -1;
    x = SNode_Private(P, mul ? SR_X_MUL : SR_X_DIV, x, y, -1, SRIntervalPoint(0));
  }
}

static int SSum_Private(SRSpecParser_Private *P)
{
  int x;
  if (!SDeeper_Private(P)) return -1;
  x = STerm_Private(P);
  for (;;) {
    int  y;
    bool add;
    SRScanSkip(&P->s);
    if (x < 0 || (*P->s.p != '+' && *P->s.p != '-')) break;
    add = *P->s.p++ == '+';
    if ((y = STerm_Private(P)) < 0) return -1;
    x = SNode_Private(P, add ? SR_X_ADD : SR_X_SUB, x, y, -1, SRIntervalPoint(0));
  }
  P->depth--;
  return x;
}

/* the value of a node without states (false when it has one) */
static bool SConst_Private(const SRExpr *e, int i, SRInterval *v)
{
  const SRExprNode *x = &e->node[i];
  SRInterval        a, b;
  switch (x->op) {
  case SR_X_CONST: *v = x->value; return true;
  case SR_X_NEG: return SConst_Private(e, x->a, &a) && (*v = SRIntervalNeg(a), true);
  case SR_X_SQR: return SConst_Private(e, x->a, &a) && (*v = SRIntervalSqr(a), true);
  case SR_X_ADD: return SConst_Private(e, x->a, &a) && SConst_Private(e, x->b, &b) && (*v = SRIntervalAdd(a, b), true);
  case SR_X_SUB: return SConst_Private(e, x->a, &a) && SConst_Private(e, x->b, &b) && (*v = SRIntervalSub(a, b), true);
  case SR_X_MUL: return SConst_Private(e, x->a, &a) && SConst_Private(e, x->b, &b) && (*v = SRIntervalMul(a, b), true);
  case SR_X_DIV: return SConst_Private(e, x->a, &a) && SConst_Private(e, x->b, &b) && (*v = SRIntervalDiv(a, b), SRIntervalIsBounded(*v));
  default: return false;
  }
}

/* node i as s * (a . x + k), added into a and k; false when it is not affine in the states (then
   the atom is nonlinear; the fast path of linear atoms is kept for the others) */
static bool SLinear_Private(const SRExpr *e, int i, SRInterval s, SRInterval *a, SRInterval *k, int depth)
{
  const SRExprNode *x = &e->node[i];
  SRInterval        c;
  if (depth > 4 * SR_PLANT_MAX_DEPTH) return false;
  if (SConst_Private(e, i, &c)) return *k = SRIntervalAdd(*k, SRIntervalMul(s, c)), true;
  switch (x->op) {
  case SR_X_VAR: a[x->var] = SRIntervalAdd(a[x->var], s); return true;
  case SR_X_NEG: return SLinear_Private(e, x->a, SRIntervalNeg(s), a, k, depth + 1);
  case SR_X_ADD: return SLinear_Private(e, x->a, s, a, k, depth + 1) && SLinear_Private(e, x->b, s, a, k, depth + 1);
  case SR_X_SUB: return SLinear_Private(e, x->a, s, a, k, depth + 1) && SLinear_Private(e, x->b, SRIntervalNeg(s), a, k, depth + 1);
  case SR_X_MUL:
    if (SConst_Private(e, x->a, &c)) return SLinear_Private(e, x->b, SRIntervalMul(s, c), a, k, depth + 1);
    if (SConst_Private(e, x->b, &c)) return SLinear_Private(e, x->a, SRIntervalMul(s, c), a, k, depth + 1);
    return false;
  case SR_X_DIV:
    if (SConst_Private(e, x->b, &c) && (c.lo > 0 || c.hi < 0)) return SLinear_Private(e, x->a, SRIntervalDiv(s, c), a, k, depth + 1);
    return false;
  default: return false;
  }
}

/* ---- the formula ---- */

static int SFNode_Private(SRSpecConstraint *c, SRSpecNodeOp op, int a, int b)
{
  c->node[c->nnodes] = (SRSpecNode){op, a, b};
  return c->nnodes++;
}

/* the atom e <= 0 (e = node; neg: its negation -e < 0) */
static int SAddAtom_Private(SRSpecParser_Private *P, SRSpecConstraint *c, int e, bool neg)
{
  SRSpecAtom *at = &c->atom[c->natoms];
  SRInterval  k  = SRIntervalPoint(0.0), s = SRIntervalPoint(neg ? -1.0 : 1.0);
  memset(at, 0, sizeof *at);
  for (int i = 0; i < SR_PLANT_MAX_STATES; i++) at->a[i] = SRIntervalPoint(0.0);
  at->strict = neg;
  if (SLinear_Private(&P->S->dag, e, s, at->a, &k, 0)) { /* s e = a . x + k <= 0 */
    at->root = -1, at->b = SRIntervalNeg(k);
  } else {
    at->root = neg ? SNode_Private(P, SR_X_NEG, e, -1, -1, SRIntervalPoint(0)) : e;
    at->b    = SRIntervalPoint(0.0);
    if (at->root < 0) return -1;
    c->nonlinear = true;
    for (int i = 0; i < SR_PLANT_MAX_STATES; i++) at->a[i] = SRIntervalPoint(0.0);
  }
  return SFNode_Private(c, SR_SPEC_NODE_ATOM, c->natoms++, -1);
}

/* SUM (<= | >=) SUM, or NAME in [LO, HI] (two atoms) */
static int SAtom_Private(SRSpecParser_Private *P, SRSpecConstraint *c, bool neg)
{
  const char *at;
  char        name[SR_PLANT_NAME], buf[24];
  int         l, r, e;
  bool        ge;
  if (c->natoms + 2 > SR_SPEC_MAX_ATOMS) return SRScanFail(&P->s, "more than %d atoms in one constraint", SR_SPEC_MAX_ATOMS), -1;
  SRScanSkip(&P->s);
  at = P->s.p;
  if (isalpha((unsigned char)*at) || *at == '_') {
    if (!SRScanName(&P->s, name)) return -1;
    SRScanSkip(&P->s);
    if (!strncmp(P->s.p, "in", 2) && !isalnum((unsigned char)P->s.p[2]) && P->s.p[2] != '_') {
      SRInterval lo, hi;
      int        i, x, hi_, lo_;
      if ((i = SState_Private(P, at, name)) < 0) return -1;
      P->s.p += 2;
      if (!SRScanExpect(&P->s, "[") || !SNumber_Private(P, &lo) || !SRScanExpect(&P->s, ",") || !SNumber_Private(P, &hi) || !SRScanExpect(&P->s, "]")) return -1;
      if (!(lo.lo <= hi.hi)) return SRScanFail(&P->s, "empty interval"), -1;
      /* x - hi <= 0 and lo - x <= 0; negated: x - hi > 0 or lo - x > 0 */
      if ((x = SNode_Private(P, SR_X_VAR, -1, -1, i, SRIntervalPoint(0))) < 0) return -1;
      hi_ = SNode_Private(P, SR_X_SUB, x, SNode_Private(P, SR_X_CONST, -1, -1, -1, hi), -1, SRIntervalPoint(0));
      lo_ = SNode_Private(P, SR_X_SUB, SNode_Private(P, SR_X_CONST, -1, -1, -1, lo), x, -1, SRIntervalPoint(0));
      if (hi_ < 0 || lo_ < 0 || (hi_ = SAddAtom_Private(P, c, hi_, neg)) < 0 || (lo_ = SAddAtom_Private(P, c, lo_, neg)) < 0) return -1;
      return SFNode_Private(c, neg ? SR_SPEC_NODE_OR : SR_SPEC_NODE_AND, hi_, lo_);
    }
    P->s.p = at;
  }
  if ((l = SSum_Private(P)) < 0) return -1;
  SRScanSkip(&P->s);
  if (!strncmp(P->s.p, "<=", 2)) ge = false;
  else if (!strncmp(P->s.p, ">=", 2)) ge = true;
  else return SRScanFail(&P->s, "expected '<=', '>=' or 'in', found %s", SRScanFound(&P->s, buf, sizeof buf)), -1;
  P->s.p += 2;
  if ((r = SSum_Private(P)) < 0) return -1;
  e = ge ? SNode_Private(P, SR_X_SUB, r, l, -1, SRIntervalPoint(0)) : SNode_Private(P, SR_X_SUB, l, r, -1, SRIntervalPoint(0));
  return e < 0 ? -1 : SAddAtom_Private(P, c, e, neg);
}

static bool SWord_Private(SRSpecParser_Private *P, const char *w)
{
  size_t k = strlen(w);
  SRScanSkip(&P->s);
  return !strncmp(P->s.p, w, k) && !isalnum((unsigned char)P->s.p[k]) && P->s.p[k] != '_';
}

/* does the '(' at the cursor open a formula (it holds a comparison, in, and, or, not) rather
   than an expression? */
static bool SGroup_Private(const char *p)
{
  int depth = 0;
  for (const char *q = p; *q && *q != '\n' && *q != '#'; q++) {
    if (*q == '(') depth++;
    else if (*q == ')' && --depth == 0) return false;
    else if (*q == '<' || *q == '>') return true;
    else if (isalpha((unsigned char)*q) && (q == p || !(isalnum((unsigned char)q[-1]) || q[-1] == '_'))) {
      static const char *const w[] = {"in", "and", "or", "not"};
      for (int k = 0; k < 4; k++) {
        size_t l = strlen(w[k]);
        if (!strncmp(q, w[k], l) && !isalnum((unsigned char)q[l]) && q[l] != '_') return true;
      }
    }
  }
  return false;
}

static int SOr_Private(SRSpecParser_Private *P, SRSpecConstraint *c, bool neg);

/* not UNARY | ( FORMULA ) | ATOM; neg: the negation is pushed down (De Morgan) */
static int SUnaryF_Private(SRSpecParser_Private *P, SRSpecConstraint *c, bool neg)
{
  int x;
  if (!SDeeper_Private(P)) return -1;
  if (SWord_Private(P, "not")) {
    P->s.p += 3;
    x = SUnaryF_Private(P, c, !neg);
  } else if (*P->s.p == '(' && SGroup_Private(P->s.p)) {
    P->s.p++;
    x = SOr_Private(P, c, neg);
    if (x >= 0 && !SRScanExpect(&P->s, ")")) x = -1;
  } else x = SAtom_Private(P, c, neg);
  P->depth--;
  return x;
}

static int SAnd_Private(SRSpecParser_Private *P, SRSpecConstraint *c, bool neg)
{
  int x = SUnaryF_Private(P, c, neg);
  while (x >= 0 && SWord_Private(P, "and")) {
    int y;
    P->s.p += 3;
    if ((y = SUnaryF_Private(P, c, neg)) < 0) return -1;
    x = SFNode_Private(c, neg ? SR_SPEC_NODE_OR : SR_SPEC_NODE_AND, x, y);
  }
  return x;
}

static int SOr_Private(SRSpecParser_Private *P, SRSpecConstraint *c, bool neg)
{
  int x = SAnd_Private(P, c, neg);
  while (x >= 0 && SWord_Private(P, "or")) {
    int y;
    P->s.p += 2;
    if ((y = SAnd_Private(P, c, neg)) < 0) return -1;
    x = SFNode_Private(c, neg ? SR_SPEC_NODE_AND : SR_SPEC_NODE_OR, x, y);
  }
  return x;
}

static bool SWindow_Private(SRSpecParser_Private *P, SRSpecConstraint *c, double horizon)
{
  SRInterval t0, t1;
  SRScanSkip(&P->s);
  if (*P->s.p != '[') {
    c->t0 = 0.0, c->t1 = horizon;
    return true;
  }
  P->s.p++;
  if (!SNumber_Private(P, &t0) || !SRScanExpect(&P->s, ",") || !SNumber_Private(P, &t1) || !SRScanExpect(&P->s, "]")) return false;
  if (!(t0.lo >= 0 && t0.lo <= t1.hi && t1.hi <= horizon * (1 + 1e-12))) return SRScanFail(&P->s, "window [%g, %g] is not inside the horizon [0, %g] of plant %s", t0.lo, t1.hi, horizon, P->pl->path);
  c->t0 = t0.lo, c->t1 = t1.hi; /* outward: a longer window is a stronger claim for always */
  return true;
}

static bool SStatement_Private(SRSpecParser_Private *P, SRSpec *S, bool *seen)
{
  char         kw[SR_PLANT_NAME], name[SR_PLANT_NAME];
  const double horizon = P->pl->period * P->pl->steps;
  if (SRScanAtEnd(&P->s)) return true;
  if (!SRScanName(&P->s, kw)) return false;
  if (!strcmp(kw, "initial")) {
    const char *at;
    int         i;
    SRInterval  lo, hi;
    SRScanSkip(&P->s);
    at = P->s.p;
    if (!SRScanName(&P->s, name) || (i = SState_Private(P, at, name)) < 0) return false;
    if (seen[i]) return P->s.p = at, SRScanFail(&P->s, "a second 'initial %s' line", name);
    if (!SRScanExpect(&P->s, "in") || !SRScanExpect(&P->s, "[") || !SNumber_Private(P, &lo) || !SRScanExpect(&P->s, ",") || !SNumber_Private(P, &hi) || !SRScanExpect(&P->s, "]")) return false;
    if (!(lo.lo <= hi.hi)) return SRScanFail(&P->s, "initial %s: empty interval", name);
    if (!SRScanAtEnd(&P->s)) return SRScanFail(&P->s, "expected the end of the line");
    seen[i]   = true;
    S->lo[i]  = lo.lo, S->hi[i] = hi.hi;
    S->ilo[i] = lo.hi, S->ihi[i] = hi.lo;
    /* a single decimal that is no double (e.g. [1.2, 1.2]) holds no double: counterexamples
       then start from the nearest double (docs/arch.md) */
    if (S->ilo[i] > S->ihi[i]) S->ilo[i] = S->ihi[i] = 0.5 * lo.lo + 0.5 * hi.hi;
    return true;
  }
  if (!strcmp(kw, "always") || !strcmp(kw, "at_end") || !strcmp(kw, "eventually")) {
    SRSpecConstraint *c;
    if (S->nc == SR_SPEC_MAX_CONSTRAINTS) return SRScanFail(&P->s, "more than %d constraints", SR_SPEC_MAX_CONSTRAINTS);
    c = &S->c[S->nc];
    memset(c, 0, sizeof *c);
    c->line = P->s.lineno;
    c->kind = !strcmp(kw, "always") ? SR_SPEC_ALWAYS : !strcmp(kw, "at_end") ? SR_SPEC_AT_END : SR_SPEC_EVENTUALLY;
    if (c->kind == SR_SPEC_AT_END) c->t0 = c->t1 = horizon;
    else if (!SWindow_Private(P, c, horizon)) return false;
    if (!SRScanExpect(&P->s, ":")) return false;
    P->depth = 0;
    if (SOr_Private(P, c, false) < 0) return false;
    if (!SRScanAtEnd(&P->s)) {
      char b[24];
      return SRScanFail(&P->s, "expected 'and', 'or' or the end of the line, found %s", SRScanFound(&P->s, b, sizeof b));
    }
    S->nc++;
    return true;
  }
  P->s.p -= strlen(kw);
  return SRScanFail(&P->s, "unknown statement '%s' (allowed: initial, always, at_end, eventually)", kw);
}

PetscErrorCode SRSpecParse(MPI_Comm comm, const char name[], const char text[], const SRPlant *pl, SRSpec *S)
{
  SRSpecParser_Private P;
  bool                 seen[SR_AFFINE_MAX] = {false};
  const char          *line                = text;

  PetscFunctionBeginUser;
  memset(&P, 0, sizeof P);
  memset(S, 0, sizeof *S);
  PetscCall(PetscStrncpy(S->path, name, sizeof S->path));
  S->n   = pl->n;
  P.s.kind = "spec file";
  P.s.name = name;
  P.pl   = pl;
  P.S    = S;
  SRExprInit(&S->dag);
  for (int lineno = 1; *line; lineno++) {
    P.s.line = P.s.p = line;
    P.s.lineno     = lineno;
    if (!SStatement_Private(&P, S, seen)) break;
    while (*line && *line != '\n') line++;
    if (*line) line++;
  }
  if (!P.s.err[0]) {
    for (int i = 0; i < pl->n && !P.s.err[0]; i++)
      if (!seen[i]) snprintf(P.s.err, sizeof P.s.err, "spec file %.200s: no 'initial %s in [LO, HI]' line (the plant has %d states)", name, pl->state[i], pl->n);
    if (!P.s.err[0] && !S->nc) snprintf(P.s.err, sizeof P.s.err, "spec file %s: no constraint (always, at_end or eventually line)", name);
  }
  if (P.s.err[0]) SRSpecFree(S);
  PetscCheck(!P.s.err[0], comm, PETSC_ERR_FILE_UNEXPECTED, "%s", P.s.err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRSpecFree(SRSpec *S) { SRExprFree(&S->dag); }

double SRSpecCombine(const SRSpecConstraint *c, const double *m, int *crit)
{
  double v[2 * SR_SPEC_MAX_ATOMS];
  int    w[2 * SR_SPEC_MAX_ATOMS];
  for (int k = 0; k < c->nnodes; k++) {
    const SRSpecNode *x = &c->node[k];
    if (x->op == SR_SPEC_NODE_ATOM) v[k] = m[x->a], w[k] = x->a;
    else {
      /* and: the worse (larger) margin decides, or: the better; NaN counts as unknown (+inf) */
      double a = isnan(v[x->a]) ? INFINITY : v[x->a], b = isnan(v[x->b]) ? INFINITY : v[x->b];
      bool   first = x->op == SR_SPEC_NODE_AND ? a >= b : a <= b;
      v[k] = first ? a : b, w[k] = first ? w[x->a] : w[x->b];
    }
  }
  if (crit) *crit = c->nnodes ? w[c->nnodes - 1] : 0;
  return c->nnodes ? v[c->nnodes - 1] : INFINITY;
}

void SRSpecAtomMargins(const SRSpecAtom *a, SRInterval R, double *up, double *low)
{
  if (SRIntervalIsNaI(R) || SRIntervalIsEmpty(R)) {
    *up = INFINITY, *low = -INFINITY;
    return;
  }
  *up  = SRSubUp(R.hi, a->b.lo);
  *low = SRSubDown(R.lo, a->b.hi);
  if (a->strict) { /* e < b: proven only when sup e < b, broken when inf e >= b */
    if (*up >= 0) *up = fmax(*up, DBL_TRUE_MIN);
    if (*low >= 0) *low = fmax(*low, DBL_TRUE_MIN);
  }
}

PetscErrorCode SRSpecRead(MPI_Comm comm, const char path[], const SRPlant *plant, SRSpec *spec)
{
  char *text;

  PetscFunctionBeginUser;
  PetscCall(SRTextFileReadBroadcast(comm, path, 1L << 20, "1 MB", "-spec", "spec file", &text));
  {
    PetscErrorCode ierr = SRSpecParse(comm, path, text, plant, spec);
    free(text);
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
