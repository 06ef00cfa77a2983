/* One run of a study's results file as the source of a network (SPEC §9, §10): the run named by
   index or by (beta, tau, seed), the system and model its options describe, with the network
   it stored at the end or at a checkpoint.  Used by simreach verify -from and by simreach safe /
   reach on a run. */
#pragma once

#include <simreach/model.h>
#include <simreach/private/results.h>

typedef struct {
  PetscInt run;                    /* run index r = (ib * ntau + it) * nseed + is */
  char     cells_param[32];        /* -cells_param of the study: partition or boxes */
  PetscInt counts[SR_MAX_DIM];     /* -cells of the study */
  char     label[PETSC_MAX_PATH_LEN + 96]; /* "FILE run r (beta b, tau t, seed s)" */
} SRResultsRunInfo;

/* The run index: run itself (by_point false; checked against the file) or the run with exactly
   this beta, tau and seed.  Errors name the option, the value and what the file holds.  Collective. */
PetscErrorCode SRResultsFindRun(MPI_Comm comm, SRResults res, PetscBool by_point, double beta, double tau, PetscInt seed, PetscInt *run);

/* The system and model of the study's options with the parameters of run info->run: the final
   network (checkpoint < 0) or the one stored at that checkpoint; an error when it is not stored
   (unfinished, diverged, not reached).  Fills the rest of info.  Collective. */
PetscErrorCode SRResultsRunModel(MPI_Comm comm, SRResults res, PetscInt checkpoint, SRResultsRunInfo *info, SRSystem *sys, SRModel *model);
