/* Specifications of closed-loop questions (SPEC §15, docs/arch.md): an initial box X0 and
   constraints with time windows.  A constraint is a conjunction of atoms a . x <= b (a and b
   outward-rounded intervals: the file's decimals need not be doubles); kind
     always [t0, t1]      every atom holds at every time of the window (safety),
     at_end               the conjunction holds at the horizon (reach),
     eventually [t0, t1]  the conjunction holds at some time of the window.
   A spec file is read against a plant file (state names, the horizon). */
#pragma once

#include <simreach/plant.h>

#define SR_SPEC_MAX_ATOMS 32
#define SR_SPEC_MAX_CONSTRAINTS 32

typedef enum { SR_SPEC_ALWAYS, SR_SPEC_AT_END, SR_SPEC_EVENTUALLY } SRSpecKind;

typedef struct {
  SRInterval a[SR_PLANT_MAX_STATES]; /* one per state */
  SRInterval b;
} SRSpecAtom;

typedef struct {
  SRSpecKind kind;
  double     t0, t1; /* the window (at_end: the horizon twice) */
  int        natoms, line;
  SRSpecAtom atom[SR_SPEC_MAX_ATOMS];
} SRSpecConstraint;

typedef struct {
  char             path[PETSC_MAX_PATH_LEN];
  int              n;
  double           lo[SR_AFFINE_MAX], hi[SR_AFFINE_MAX]; /* X0, outward (covers the decimals) */
  double           ilo[SR_AFFINE_MAX], ihi[SR_AFFINE_MAX]; /* X0, inward (falsifying points come from here) */
  int              nc;
  SRSpecConstraint c[SR_SPEC_MAX_CONSTRAINTS];
} SRSpec;

/* Refused on comm with one line "spec file PATH:LINE:COL: problem" (PETSC_ERR_FILE_UNEXPECTED). */
PetscErrorCode SRSpecRead(MPI_Comm comm, const char path[], const SRPlant *plant, SRSpec *spec);
PetscErrorCode SRSpecParse(MPI_Comm comm, const char name[], const char text[], const SRPlant *plant, SRSpec *spec);
