/* The plant-file parser's state, shared by its parts (SPEC §15, §16; include/simreach/plant.h):
   src/model/plantfile.c reads the statements and the file, plantfile_expr.c the expressions
   (numbers, operations folded on constants, piecewise expressions), plantfile_system.c the lines
   a system of the abstraction and the study needs (domain, bound, reference, regulate) and the
   constants given as options.  Model layer, not installed for users. */
#pragma once

#include <simreach/plant.h>
#include <simreach/private/linescan.h>

#define SR_PLANT_MAX_ARGMAX 16  /* argmax(...) calls in one file */
#define SR_PLANT_MAX_ARGS 64    /* operands of argmax and case */

/* A parsed expression: a DAG node, or a constant not yet in the DAG (folded at parse time,
   SPEC §15 turn 4: a constant sub-expression costs nothing per step, and one that has no finite
   value, e.g. a division by zero, is refused where it is written). */
typedef struct {
  int        node; /* >= 0: a node; SR_PV_CONST: the constant v; -1: an error (recorded) */
  SRInterval v;
  double     x; /* SR_PV_CONST: the constant in double arithmetic (SRExprNode.x, SPEC §16) */
} SRPVal_Private;
#define SR_PV_CONST -2
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
  /* argmax(...) nodes and their exact indicators "operand i is the first largest", so that
     'argmax(...) == i' and case(argmax(...), ...) keep the candidates apart (Piecewise_Private) */
  int         nargmax, argmax_node[SR_PLANT_MAX_ARGMAX], argmax_k[SR_PLANT_MAX_ARGMAX];
  SRPVal_Private *argmax_is[SR_PLANT_MAX_ARGMAX];
} SRParser_Private;

static const SRPVal_Private SRPVErr_Private = {-1, {0, 0}, 0};
static inline SRPVal_Private PVConstX_Private(SRInterval v, double x) { return (SRPVal_Private){SR_PV_CONST, v, x}; }
static inline SRPVal_Private PVConst_Private(SRInterval v) { return PVConstX_Private(v, 0.5 * v.lo + 0.5 * v.hi); }
static inline SRPVal_Private PVNode_Private(int node) { return (SRPVal_Private){node < 0 ? -1 : node, {0, 0}, 0}; }

/* plantfile_expr.c: a decimal literal; one nesting level more (refused past the cap); an
   expression; a whole-line expression (nothing may follow), as a value or a DAG node */
bool           Number_Private(SRParser_Private *P, SRInterval *v);
bool           Deeper_Private(SRParser_Private *P);
SRPVal_Private Expr_Private(SRParser_Private *P);
SRPVal_Private LineExprValue_Private(SRParser_Private *P);
int            LineExpr_Private(SRParser_Private *P);
/* plantfile_system.c: a 'const' given as an option; the statements domain, bound, reference,
   regulate (1/0: parsed or refused, -1: not one of them); the checks after the file */
void OverrideConst_Private(SRParser_Private *P, const char *name, SRPVal_Private *e);
int  SystemStatement_Private(SRParser_Private *P, const char *kw);
void SystemCheck_Private(SRParser_Private *P, const char *name);
