/* The closed-loop questions of SPEC §12 asked of a study's run (study layer,
   src/study/closedloop_results.c): the results file is reached through the study that owns it,
   so the closed-loop layer below knows nothing of results files. */
#pragma once

#include <simreach/private/closedloop_file.h>

/* A run of a results file: by index, or (by_point) by its beta, tau and seed. */
typedef struct {
  PetscInt  run;
  PetscBool by_point;
  double    beta, tau;
  PetscInt  seed;
} SRRunSelect;

/* Collective: the graph of the abstraction a finished run certified at its end (its final
   partition and index-box lists; cells its last re-check did not prove get the sink), with the
   system, the model holding its final network and the partition as axes; label names the run.
   Partition runs only (free boxes are refused, naming the alternative). */
PetscErrorCode SRIndexGraphLoadRun(MPI_Comm comm, const char file[], const SRRunSelect *sel, SRIndexGraphStore *s, SRSystem *sys, SRModel *model, SRAxes *ax, char label[], size_t len);

/* What safe and reach ask: an abstraction file, or a run of a results file. */
typedef struct {
  SRIndexGraphStore gs;
  SRAxes            ax;                      /* the partition (borrowed from af, or owned) */
  SRSystem          sys;
  SRModel           model;                   /* the network, for the trajectory check */
  SRAbstractionFile af;                      /* NULL for a results file */
  char              label[PETSC_MAX_PATH_LEN + 160];
} SRClosedLoopSource;

/* Inside a PetscOptionsBegin block: -run r, or -run_beta b -run_tau t -run_seed s (exactly one
   way; *set says whether any was given). */
PetscErrorCode SRRunSelectOptions(PetscOptionItems *PetscOptionsObject, MPI_Comm comm, SRRunSelect *sel, PetscBool *set);
/* Collective: opens file as an abstraction file (sel must be NULL) or as a results file (sel
   names the run; refused when missing, naming the options). */
PetscErrorCode SRClosedLoopSourceOpen(MPI_Comm comm, const char file[], const SRRunSelect *sel, SRClosedLoopSource *src);
PetscErrorCode SRClosedLoopSourceClose(SRClosedLoopSource *src);
