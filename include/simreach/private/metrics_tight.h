/* The tight metrics of SPEC §5, §6 (|M_tight|, vol(E_tight), the floor |F|) accumulated block by
   block (src/abstraction/metrics.c): SRMetricsTight encloses every cell itself; `simreach abstract`
   hands in the blocks its target samples already enclosed (SRAbstractionSetModelHook), so each
   cell is enclosed once.  The figures are the same either way. */
#pragma once

#include <simreach/metrics.h>
#include <simreach/private/target_models.h>

typedef struct _p_SRTightAcc *SRTightAcc;

/* Collective on comm at Finish only; the arguments as SRMetricsTight's. */
PetscErrorCode SRTightAccCreate(MPI_Comm comm, SRAbstraction abs, SRModel model, SRCells cells, PetscInt bisect, PetscInt floor_points, double *E_tight, SRTightAcc *acc);
/* An SRModelBlockHook (ctx: the SRTightAcc): cells [k0, k0 + nb) of the rank, in increasing
   order, nb <= 256, with their enclosure both (E, changed in place) and Taylor models. */
PetscErrorCode SRTightAccBlock(void *ctx, PetscInt k0, PetscInt nb, double *E, const SRCellStatus *st, const SRCellModel *cm);
/* The seconds spent on the blocks handed in so far. */
PetscErrorCode SRTightAccGetHandInTime(SRTightAcc acc, PetscLogDouble *time);
/* Collective.  Encloses the cells not handed in, reduces, destroys; *time (may be NULL): the
   seconds spent in the accumulator, hand-ins included. */
PetscErrorCode SRTightAccFinish(SRTightAcc *acc, SRTightMetrics *m, PetscLogDouble *time);
