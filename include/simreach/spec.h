/* Specifications of closed-loop questions (SPEC §15 with its turn-4 additions, docs/arch.md):
   an initial box X0 and constraints with time windows.  A constraint is a formula of atoms
   combined with and / or (not is pushed down to the atoms when the file is read); an atom is
     linear     a . x <= b (a and b outward-rounded intervals: decimals need not be doubles), or
     nonlinear  e(x) <= b, e a node of the spec's expression DAG over the states (slot i is
                state i), enclosed by evaluating the DAG in the tube's affine forms;
   a strict atom (from a negation) asks < instead of <=.  Kind:
     always [t0, t1]      the formula holds at every time of the window (safety),
     at_end               the formula holds at the horizon (reach),
     eventually [t0, t1]  the formula holds at some sample time of the window.
   Margins: an atom's upper margin sup e - b (<= 0: proven; strict: < 0) and lower margin
   inf e - b (> 0: surely broken; strict: >= 0); SRSpecCombine folds them through the formula
   (and: max, or: min), so one number says proven (<= 0) or broken (> 0).
   A spec file is read against a plant file (state names, the horizon). */
#pragma once

#include <simreach/plant.h>

#define SR_SPEC_MAX_ATOMS 32
#define SR_SPEC_MAX_CONSTRAINTS 32

typedef enum { SR_SPEC_ALWAYS, SR_SPEC_AT_END, SR_SPEC_EVENTUALLY } SRSpecKind;

typedef struct {
  SRInterval a[SR_PLANT_MAX_STATES]; /* one per state (linear atoms) */
  SRInterval b;
  int        root;   /* -1: linear; else the DAG node e of e(x) <= b */
  bool       strict; /* < instead of <= */
} SRSpecAtom;

typedef enum { SR_SPEC_NODE_ATOM, SR_SPEC_NODE_AND, SR_SPEC_NODE_OR } SRSpecNodeOp;

/* the formula, children before parents, the root last; ATOM: a is the atom's index */
typedef struct {
  SRSpecNodeOp op;
  int          a, b;
} SRSpecNode;

typedef struct {
  SRSpecKind kind;
  double     t0, t1; /* the window (at_end: the horizon twice) */
  int        natoms, line, nnodes;
  bool       nonlinear; /* some atom is nonlinear */
  SRSpecAtom atom[SR_SPEC_MAX_ATOMS];
  SRSpecNode node[2 * SR_SPEC_MAX_ATOMS];
} SRSpecConstraint;

typedef struct {
  char             path[PETSC_MAX_PATH_LEN];
  int              n;
  double           lo[SR_AFFINE_MAX], hi[SR_AFFINE_MAX]; /* X0, outward (covers the decimals) */
  double           ilo[SR_AFFINE_MAX], ihi[SR_AFFINE_MAX]; /* X0, inward (falsifying points come from here) */
  int              nc;
  SRSpecConstraint c[SR_SPEC_MAX_CONSTRAINTS];
  SRExpr           dag; /* the nonlinear atoms' expressions (slot i: state i) */
} SRSpec;

/* Refused on comm with one line "spec file PATH:LINE:COL: problem" (PETSC_ERR_FILE_UNEXPECTED). */
PetscErrorCode SRSpecRead(MPI_Comm comm, const char path[], const SRPlant *plant, SRSpec *spec);
PetscErrorCode SRSpecParse(MPI_Comm comm, const char name[], const char text[], const SRPlant *plant, SRSpec *spec);
void           SRSpecFree(SRSpec *spec);
/* the formula's margin from the atoms' margins m[natoms] (upper or lower, strictness applied by
   SRSpecAtomMargins); *crit (optional): the atom that decides it */
double SRSpecCombine(const SRSpecConstraint *c, const double *m, int *crit);
/* an atom's margins from the range R of its left side: *up (proven when <= 0), *low (broken
   when > 0); a NaI range gives +inf and -inf */
void SRSpecAtomMargins(const SRSpecAtom *a, SRInterval R, double *up, double *low);
