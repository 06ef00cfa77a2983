/* The closed loop of a plant file and a network on a fine grid of a domain (SPEC §16, §12;
   src/graph/closedloop_plant.c): every cell's step enclosed (src/abstraction/plantstep.c: the
   file's inputs, the network, its controls, one period by the validated flow), its certified
   list the index box of the grid cells meeting the enclosure plus the sink when it leaves the
   domain (exact containment, SRAxesContains), then the verified-safe set and horizons
   (SRClosedLoopSafe).  Cells are split over the ranks of comm as verify splits them; every
   figure is identical on any number of ranks.  Collective on comm. */
#pragma once

#include <simreach/closedloop.h>
#include <simreach/private/plantstep.h>

typedef struct {
  PetscBool            affine; /* the network over affine forms (else intervals) */
  SRNetEnclosure       how;
  SRPlantPeriodOptions period;
  PetscInt             cap; /* horizons counted up to cap in the mean */
} SRPlantGridOptions;

typedef struct {
  PetscInt64 K, nonfinite;   /* cells; cells whose enclosure failed (their list: the sink) */
  double     safe_fraction;  /* vol(verified-safe cells) / vol(D) */
  double     mean_horizon;   /* volume-weighted mean of min(h, cap) */
  double     mean_successors; /* mean |C(k)| (the sink counts one) */
  PetscInt   iterations;     /* of the fixed point */
  PetscInt64 safe_cells;
  uint64_t   digest;         /* of every cell's list and horizon, in cell order (rank-count independent) */
  double     time_enclose, time_lists, time_safe; /* max over ranks, seconds */
} SRPlantGridResult;

void SRPlantGridOptionsDefault(SRPlantGridOptions *o);
/* dlo, dhi: the domain D (n each); counts: cells per dimension.  horizon (optional): the owned
   cells' horizons, allocated (PetscFree), with *kstart the first owned cell. */
PetscErrorCode SRClosedLoopPlantGrid(MPI_Comm comm, const SRPlant *pl, SRMLP mlp, const double dlo[], const double dhi[], const PetscInt counts[], const SRPlantGridOptions *o, SRPlantGridResult *res, PetscInt **horizon, PetscInt64 *kstart);
