/* Interval and taylor1 evaluation of an expression DAG through linear forms (SPEC §7, §16;
   include/simreach/expr.h).

   Every node is seen by its parents as a linear form sum_j c_j a_j + k over "atoms" a_j with
   interval coefficients c_j and an interval constant k.  Atoms are the variables, the nodes of
   the nonlinear operations (functions, a product of two non-constant forms, a division by a
   non-constant), the nodes used more than once (a shared subexpression is enclosed once, and
   its enclosure is what every user sees), and forms longer than SR_EXPR_LIN_MAX terms.  Sums,
   differences, negations and products or quotients by a constant combine the coefficients in
   outward-rounded interval arithmetic, so a variable that enters a sum twice (w + dt (... - b w))
   is enclosed once with its combined coefficient (1 - dt b): sound by subdistributivity,
   (c1 + c2) X is contained in c1 X + c2 X.  A form becomes a value (an interval, or a Taylor
   model) as sum_j c_j a_j + k, the terms in the order of their atoms' nodes, a point
   coefficient by SRIntervalScale / SRTaylorScale, a coefficient 1 not at all, an interval one
   by SRIntervalMul / SRTaylorScaleInterval: for the shipped plant files these are the
   operations, in the order, that the hand-written interval and Taylor steps they replace made,
   so the enclosures are the same. */
#include <simreach/expr.h>

#include <stdlib.h>
#include <string.h>

typedef struct {
  int        n;     /* terms */
  bool       has_k; /* a constant term */
  int        atom[SR_EXPR_LIN_MAX];
  SRInterval c[SR_EXPR_LIN_MAX];
  SRInterval k;
} SRExprForm_Private;

static bool SRIsPoint_Private(SRInterval c) { return c.lo == c.hi; }
static bool SRIsOne_Private(SRInterval c) { return c.lo == 1.0 && c.hi == 1.0; }

void SRExprUses(const SRExpr *e, int nroot, const int *root, int *uses)
{
  for (int i = 0; i < e->n; i++) uses[i] = 0;
  for (int i = 0; i < e->n; i++) {
    if (e->node[i].a >= 0) uses[e->node[i].a]++;
    if (e->node[i].b >= 0) uses[e->node[i].b]++;
    if (e->node[i].op == SR_X_IF && e->node[i].var >= 0) uses[e->node[i].var]++; /* its else */
  }
  for (int r = 0; r < nroot; r++)
    if (root[r] >= 0) uses[root[r]]++;
}

size_t SRExprLinearWorkSize(const SRExpr *e) { return (size_t)e->n * sizeof(SRExprForm_Private); }

/* y = a + s b (s = +1 or -1), terms merged by atom; false when longer than SR_EXPR_LIN_MAX */
static bool SRFormAdd_Private(const SRExprForm_Private *a, const SRExprForm_Private *b, bool sub, SRExprForm_Private *y)
{
  int i = 0, j = 0, n = 0;
  while (i < a->n || j < b->n) {
    if (n == SR_EXPR_LIN_MAX) return false;
    if (j == b->n || (i < a->n && a->atom[i] < b->atom[j])) y->atom[n] = a->atom[i], y->c[n++] = a->c[i++];
    else if (i == a->n || b->atom[j] < a->atom[i]) y->atom[n] = b->atom[j], y->c[n++] = sub ? SRIntervalNeg(b->c[j]) : b->c[j], j++;
    else y->atom[n] = a->atom[i], y->c[n++] = sub ? SRIntervalSub(a->c[i], b->c[j]) : SRIntervalAdd(a->c[i], b->c[j]), i++, j++;
  }
  y->n     = n;
  y->has_k = a->has_k || b->has_k;
  if (a->has_k && b->has_k) y->k = sub ? SRIntervalSub(a->k, b->k) : SRIntervalAdd(a->k, b->k);
  else if (a->has_k) y->k = a->k;
  else if (b->has_k) y->k = sub ? SRIntervalNeg(b->k) : b->k;
  return true;
}

/* y = s a for the constant s (div: a / s) */
static void SRFormScale_Private(SRInterval s, const SRExprForm_Private *a, bool div, SRExprForm_Private *y)
{
  *y = *a;
  for (int j = 0; j < a->n; j++) y->c[j] = div ? SRIntervalDiv(a->c[j], s) : SRIntervalMul(s, a->c[j]);
  if (a->has_k) y->k = div ? SRIntervalDiv(a->k, s) : SRIntervalMul(s, a->k);
}

static void SRFormAtom_Private(int i, SRExprForm_Private *y)
{
  y->n       = 1;
  y->has_k   = false;
  y->atom[0] = i;
  y->c[0]    = SRIntervalPoint(1.0);
}

typedef enum { SR_FORM_KEEP, SR_FORM_SHARED, SR_FORM_ATOM } SRFormKind_Private;

/* the form of node i from its operands' forms: KEEP (a linear node, its parents see the form),
   SHARED (a linear node used more than once: its value is its form's, its parents see the atom),
   ATOM (its value is the operation on its operands' values) */
static SRFormKind_Private SRFormNode_Private(const SRExpr *e, int i, const int *uses, SRExprForm_Private *F)
{
  const SRExprNode         *x = &e->node[i];
  const SRExprForm_Private *a = x->a >= 0 ? &F[x->a] : NULL, *b = x->b >= 0 ? &F[x->b] : NULL;
  SRExprForm_Private       *y = &F[i];
  bool                      lin;
  switch (x->op) {
  case SR_X_CONST: y->n = 0, y->has_k = true, y->k = x->value; return SR_FORM_KEEP;
  case SR_X_ADD: lin = SRFormAdd_Private(a, b, false, y); break;
  case SR_X_SUB: lin = SRFormAdd_Private(a, b, true, y); break;
  case SR_X_NEG: {
    const SRExprForm_Private z = {0};
    lin                        = SRFormAdd_Private(&z, a, true, y);
  } break;
  case SR_X_MUL:
    lin = !a->n || !b->n;
    if (!a->n) SRFormScale_Private(a->k, b, false, y);
    else if (!b->n) SRFormScale_Private(b->k, a, false, y);
    break;
  case SR_X_DIV:
    lin = !b->n && !(b->k.lo <= 0 && 0 <= b->k.hi);
    if (lin) SRFormScale_Private(b->k, a, true, y);
    break;
  default: lin = false; break;
  }
  if (!lin) return SR_FORM_ATOM;
  return uses[i] < 2 || !y->n ? SR_FORM_KEEP : SR_FORM_SHARED;
}

/* ---- intervals ------------------------------------------------------------------------------ */

static SRInterval SRFormInterval_Private(const SRExprForm_Private *f, const SRInterval *val)
{
  SRInterval v = SRIntervalPoint(0.0);
  for (int j = 0; j < f->n; j++) {
    const SRInterval c = f->c[j], a = val[f->atom[j]];
    const SRInterval t = SRIsOne_Private(c) ? a : SRIsPoint_Private(c) ? SRIntervalScale(c.lo, a) : SRIntervalMul(c, a);
    v                  = j ? SRIntervalAdd(v, t) : t;
  }
  if (f->has_k) v = f->n ? SRIntervalAdd(v, f->k) : f->k;
  return v;
}

/* the one-node DAG "operand 0 op operand 1" (variables in slots 0, 1 and, for IF's else, 2) */
static void SRTinyDag_Private(const SRExprNode *x, SRExprNode nodes[4], SRExpr *tiny)
{
  nodes[0]   = (SRExprNode){SR_X_VAR, -1, -1, 0, {0, 0}, 0};
  nodes[1]   = (SRExprNode){SR_X_VAR, -1, -1, 1, {0, 0}, 0};
  nodes[2]   = (SRExprNode){SR_X_VAR, -1, -1, 2, {0, 0}, 0};
  nodes[3]   = *x;
  nodes[3].a = 0, nodes[3].b = x->b >= 0 ? 1 : -1;
  if (x->op == SR_X_IF) nodes[3].var = 2;
  *tiny = (SRExpr){4, 4, nodes, NULL, 0};
}

void SRExprEvalIntervalLinear(const SRExpr *e, const int *uses, int nroot, const int *root, const SRInterval *vars, SRInterval *out, void *work, SRInterval *val)
{
  SRExprForm_Private *F = work;
  for (int i = 0; i < e->n; i++) {
    const SRExprNode  *x = &e->node[i];
    SRFormKind_Private k = x->op == SR_X_VAR ? SR_FORM_ATOM : SRFormNode_Private(e, i, uses, F);
    if (k == SR_FORM_KEEP) continue;
    if (x->op == SR_X_VAR) val[i] = vars[x->var];
    else if (k == SR_FORM_SHARED) val[i] = SRFormInterval_Private(&F[i], val);
    else { /* the natural extension of the one operation, on its operands' values */
      SRExprNode nodes[4];
      SRExpr     tiny;
      SRInterval in[3], v[4];
      in[0] = SRFormInterval_Private(&F[x->a], val);
      in[1] = x->b >= 0 ? SRFormInterval_Private(&F[x->b], val) : SRIntervalPoint(0);
      in[2] = x->op == SR_X_IF ? SRFormInterval_Private(&F[x->var], val) : SRIntervalPoint(0);
      SRTinyDag_Private(x, nodes, &tiny);
      SRExprEvalInterval(&tiny, in, v);
      val[i] = v[3];
    }
    SRFormAtom_Private(i, &F[i]);
  }
  for (int r = 0; r < nroot; r++) out[r] = SRFormInterval_Private(&F[root[r]], val);
}

/* ---- Taylor models -------------------------------------------------------------------------- */

static SRTaylor SRFormTaylor_Private(PetscInt n, const SRExprForm_Private *f, const SRTaylor *val)
{
  SRTaylor v = SRTaylorConstant(n, 0.0);
  for (int j = 0; j < f->n; j++) {
    const SRInterval c = f->c[j];
    const SRTaylor   a = val[f->atom[j]];
    const SRTaylor   t = SRIsOne_Private(c) ? a : SRIsPoint_Private(c) ? SRTaylorScale(n, c.lo, a) : SRTaylorScaleInterval(n, c, a);
    v                  = j ? SRTaylorAdd(n, v, t) : t;
  }
  if (f->has_k) {
    SRTaylor k = SRTaylorConstant(n, 0.0);
    k.r        = f->k;
    v          = f->n ? SRTaylorAdd(n, v, k) : k;
  }
  return v;
}

void SRExprEvalTaylorLinear(const SRExpr *e, const int *uses, int nroot, const int *root, PetscInt n, const SRTaylor *vars, SRTaylor *out, void *work, SRTaylor *val)
{
  SRExprForm_Private *F = work;
  for (int i = 0; i < e->n; i++) {
    const SRExprNode  *x = &e->node[i];
    SRFormKind_Private k = x->op == SR_X_VAR ? SR_FORM_ATOM : SRFormNode_Private(e, i, uses, F);
    if (k == SR_FORM_KEEP) continue;
    if (x->op == SR_X_VAR) val[i] = vars[x->var];
    else if (k == SR_FORM_SHARED) val[i] = SRFormTaylor_Private(n, &F[i], val);
    else { /* the Taylor extension of the one operation, on its operands' models */
      SRExprNode nodes[4];
      SRExpr     tiny;
      SRTaylor   in[3], v[4];
      in[0] = SRFormTaylor_Private(n, &F[x->a], val);
      in[1] = x->b >= 0 ? SRFormTaylor_Private(n, &F[x->b], val) : SRTaylorConstant(n, 0.0);
      in[2] = x->op == SR_X_IF ? SRFormTaylor_Private(n, &F[x->var], val) : SRTaylorConstant(n, 0.0);
      SRTinyDag_Private(x, nodes, &tiny);
      SRExprEvalTaylor(&tiny, n, in, v);
      val[i] = v[3];
    }
    SRFormAtom_Private(i, &F[i]);
  }
  for (int r = 0; r < nroot; r++) out[r] = SRFormTaylor_Private(n, &F[root[r]], val);
}
