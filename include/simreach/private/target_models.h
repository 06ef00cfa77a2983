/* The cells' Taylor models for the target samples, one block of cells at a time
   (src/abstraction/target_models.c; SPEC §5, §6). */
#pragma once

#include <simreach/private/successors.h>

typedef struct _p_SRTargetModels *SRTargetModels;

/* Measured cost of the samples with and without models (seconds per cell, the latest block of each
   way), kept by the caller across builds; zero-initialised. */
typedef struct {
  double   t_with, t_without;
  PetscInt n_with, n_without, blocks;
} SRTargetModelsStats;

/* Called with every block of models made (cells [k0, k0 + nb), their enclosure E and status). */
typedef PetscErrorCode (*SRModelBlockHook)(void *ctx, PetscInt k0, PetscInt nb, double *E, const SRCellStatus *st, const SRCellModel *cm);

/* Models are made only where they can pay: the samples are drawn (empirical target or a count of
   the hit entries), the cells are grid-aligned or a partition; and then only for the blocks where
   the measured cost (stats, may be NULL: always) says so.  Otherwise Get returns NULL. */
PetscErrorCode SRTargetModelsCreate(SRModel model, SRCells cells, const SRTargetParams *tp, PetscBool want_distinct, SRTargetModelsStats *stats, SRTargetModels *tm);
/* The model of cell k (cells are asked for in increasing k, below kend), NULL when none. */
PetscErrorCode SRTargetModelsGet(SRTargetModels tm, PetscInt k, PetscInt kend, const SRCellModel **cm);
PetscErrorCode SRTargetModelsDestroy(SRTargetModels *tm);
/* From now on every block is made (enclosure both, no skipping) and handed to hook as well.
   E0, st0 (may be NULL): the caller's enclosure etype of the cells from k0 on; interval or both
   boxes there are not computed again. */
PetscErrorCode SRTargetModelsSetHook(SRTargetModels tm, SRModelBlockHook hook, void *ctx, SREnclosureType etype, const double *E0, const SRCellStatus *st0, PetscInt k0);
