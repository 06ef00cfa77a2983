/* Expression DAGs and their Taylor-mode evaluation (SPEC §15).

   A plant file's expressions (include/simreach/plant.h) are parsed once into one DAG: nodes
   are stored in topological order (a node's operands come before it) and identical nodes
   are shared.  Leaves are constants (an outward-rounded interval: a decimal literal that is
   no double becomes the two doubles around it) and variables (slots numbered by the
   caller).  Integer powers are expanded into squares and products by the parser.

   Evaluation is in affine forms (include/simreach/affine.h, outward rounded) or in doubles
   (non-validated, for simulation).  SRExprTaylor computes the Taylor coefficients of the
   solution of x' = g(x) (g a set of roots of the DAG, the other variables held constant)
   by Taylor-mode differentiation: x_{k+1} = g(x)_k / (k + 1), with the coefficient
   recurrences of products, quotients, exp, log, sqrt, sin/cos, tan and tanh (Griewank &
   Walther, "Evaluating Derivatives", 2nd ed., §13.2).  Not collective; no global state. */
#pragma once

#include <simreach/affine.h>
#include <simreach/taylor.h>

typedef enum {
  SR_X_CONST,
  SR_X_VAR,
  SR_X_ADD,
  SR_X_SUB,
  SR_X_MUL,
  SR_X_DIV,
  SR_X_NEG,
  SR_X_SQR,
  SR_X_SIN,
  SR_X_COS,
  SR_X_TAN,
  SR_X_EXP,
  SR_X_LOG,
  SR_X_SQRT,
  SR_X_TANH,
  /* piecewise (SPEC §15 turn 4, docs/arch.md "Comparisons, if, argmax"): the indicators
     LE = [a <= b], LT = [a < b] (1 or 0), and IF = b where a != 0, else the node in var.  In
     affine forms an undecided indicator is [0, 1] and an undecided IF the hull of both branches
     (an interval: the union of the images); in Taylor mode (SRExprTaylor) an undecided
     indicator has no enclosure (the function may jump within the step), a decided one the
     branch's series. */
  SR_X_LE,
  SR_X_LT,
  SR_X_IF
} SRExprOp;

typedef struct {
  SRExprOp   op;
  int        a, b;  /* operand nodes (-1 when unused) */
  int        var;   /* SR_X_VAR: variable slot; SR_X_IF: the else operand node */
  SRInterval value; /* SR_X_CONST */
  double     x;     /* SR_X_CONST: its value in double arithmetic (the literal rounded to nearest,
                       folded operations in double), what SRExprEvalDouble uses (SPEC §16: the
                       double step of a plant file is the C step's, bit for bit) */
} SRExprNode;

typedef struct {
  int         n, cap;
  SRExprNode *node;
  int        *hash, nhash; /* open addressing over the nodes (-1 free), so that sharing is O(1) */
} SRExpr;

void SRExprInit(SRExpr *e);
void SRExprFree(SRExpr *e);
/* the index of the node (an existing identical one when there is one); -1 when out of memory */
int  SRExprNode_(SRExpr *e, SRExprOp op, int a, int b, int var, SRInterval value);
/* a constant node with interval value and double x (SRExprNode_ takes x = mid(value)) */
int  SRExprConstant(SRExpr *e, SRInterval value, double x);
/* the index of an existing identical node; -1 when there is none */
int  SRExprFind(const SRExpr *e, SRExprOp op, int a, int b, int var, SRInterval value);
/* val[e->n]: every node's value for the variables vars[] */
void SRExprEvalAffine(const SRExpr *e, int n, const SRAffine *vars, SRAffine *val);
void SRExprEvalDouble(const SRExpr *e, const double *vars, double *val);

/* Taylor coefficients X[k * nstate + i], k = 0..q, of the solution of x_i' = node root[i]
   through X[0 .. nstate-1] (given on entry, affine forms in n coordinates).  Variable slot
   v < nstate is state v; slot v >= nstate is the constant vars[v].  work: at least
   SRExprTaylorWorkSize(e, q) forms.  Returns false when a coefficient is NaI (a domain error
   or an overflow: no enclosure). */
size_t SRExprTaylorWorkSize(const SRExpr *e, int q);
/* The piecewise operations' rules, for every evaluator (docs/arch.md "Piecewise expressions"):
   SRExprIndicatorRange: [a <= b] (SR_X_LE) or [a < b] (SR_X_LT) from an enclosure d of a - b:
   [1, 1], [0, 0], or [0, 1] when undecided (NaI for NaI).  SRExprIfDecide: IF's branch from an
   enclosure c of its condition: 1 the 'then' operand (0 is outside c), 0 the 'else' (c = {0}),
   -1 undecided (an enclosure takes the hull of both branches; a Taylor series of a flow has
   none), -2 NaI.  Doubles: LE a <= b, LT a < b, IF a != 0 ? b : else; derivatives: 0 for LE and
   LT, the chosen branch's for IF. */
SRInterval SRExprIndicatorRange(SRExprOp op, SRInterval d);
int        SRExprIfDecide(SRInterval c);
bool   SRExprTaylor(const SRExpr *e, int n, int nstate, const int *root, const SRAffine *vars, int q, SRAffine *X, SRAffine *work);

/* What a system's step needs (SPEC §16; src/numerics/expr_eval.c).  vars[] are indexed by
   variable slot, val[] by node (e->n of them).
   SRExprEvalInterval: sound natural interval extension (outward rounded).
   SRExprEvalTaylor: sound first-order Taylor models (SPEC §7) in n cell coordinates.
   SRExprEvalTangent: values and forward-mode derivatives in doubles (non-validated):
     dval[i * nd + j] = d node i / d variable slot dslot[j].
   SRExprAdjoint: reverse mode in doubles from the values val of SRExprEvalDouble: adj[] holds
     the seeds on entry (0 elsewhere) and every node's adjoint on return (a variable's is the sum
     over its SR_X_VAR node). */
void SRExprEvalInterval(const SRExpr *e, const SRInterval *vars, SRInterval *val);
void SRExprEvalTaylor(const SRExpr *e, PetscInt n, const SRTaylor *vars, SRTaylor *val);
void SRExprEvalTangent(const SRExpr *e, const double *vars, int nd, const int *dslot, double *val, double *dval);
void SRExprAdjoint(const SRExpr *e, const double *val, double *adj);

/* Interval and taylor1 evaluation through linear forms (src/numerics/expr_linear.c): sums,
   differences and constant multiples of a node are kept as interval-coefficient combinations of
   atoms (variables, nonlinear nodes, shared nodes), so a variable entering a sum twice is
   enclosed once; at least as tight as SRExprEvalInterval up to rounding, sound the same way.
   uses[e->n] from SRExprUses (the roots count as uses); work: SRExprLinearWorkSize(e) bytes;
   val[e->n] scratch; out[r] the value of root[r]. */
#define SR_EXPR_LIN_MAX 8
void   SRExprUses(const SRExpr *e, int nroot, const int *root, int *uses);
size_t SRExprLinearWorkSize(const SRExpr *e);
void   SRExprEvalIntervalLinear(const SRExpr *e, const int *uses, int nroot, const int *root, const SRInterval *vars, SRInterval *out, void *work, SRInterval *val);
void   SRExprEvalTaylorLinear(const SRExpr *e, const int *uses, int nroot, const int *root, PetscInt n, const SRTaylor *vars, SRTaylor *out, void *work, SRTaylor *val);
