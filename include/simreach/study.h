/* The study of SPEC §9: the beta x tau x seed sweep over rank groups, the results file
   (parallel HDF5, schema in analysis/results-schema.md) with resume, and the gather phase. */
#pragma once

#include <simreach/base.h>
#include <simreach/run.h>

typedef struct _p_SRStudy *SRStudy;

/* Collective on comm (normally PETSC_COMM_WORLD). */
PetscErrorCode SRStudyCreate(MPI_Comm comm, SRStudy *study);
/* -beta, -tau, -seeds lists, -cell_ranks, -output, -resume, -force, plus every run option. */
PetscErrorCode SRStudySetFromOptions(SRStudy study);
PetscErrorCode SRStudySolve(SRStudy study);
PetscErrorCode SRStudyDestroy(SRStudy *study);
/* Catch SIGTERM / SIGUSR1 as a stop request from the very start (before PetscInitialize; no
   PETSc calls): a study stopped during start-up then exits with the -resume hint. */
void SRStudyCatchSignals(void);

/* Gather phase from a results file alone (Spearman, reductions, verdict).  Collective. */
PetscErrorCode SRGatherFile(MPI_Comm comm, const char filename[], PetscViewer viewer);
/* Spearman rank correlation with average ranks for ties (NaN if undefined). */
double SRSpearman(PetscInt n, const double *x, const double *y);
