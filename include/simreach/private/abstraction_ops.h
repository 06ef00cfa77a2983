/* The SPEC §5-§7 operations' internals that src/abstraction/abstraction.c shares with
   src/abstraction/abstraction_metrics.c (the metrics, and the abstraction built and measured
   from one enclosure per cell). */
#pragma once
#include <simreach/private/abstraction_types.h>

/* Enclosures of cells [ks, ke) (status NONFINITE also for an OK status with a NaN/Inf box);
   *E and *status from PetscMalloc2. */
PetscErrorCode SRAbstractionEnclose_Private(SRAbstraction abs, SRModel model, SRCells cells, SREnclosureType type, PetscInt ks, PetscInt ke, double **E, SRCellStatus **status);
PetscErrorCode SRAbstractionCheckCells_Private(SRAbstraction abs, SRCells cells);
PetscErrorCode SRAbstractionBuildLists_Private(SRAbstraction abs, SRModel model, SRCells cells, PetscInt ks, PetscInt ke, const double *E, const SRCellStatus *st, PetscInt *distinct);
PetscErrorCode SRAbstractionFailures_Private(SRAbstraction abs, SRCells cells, PetscInt ks, const double *E, const SRCellStatus *st, PetscInt lfail, PetscInt lfirst, PetscInt *nfail, PetscInt *first, double *witness);

/* The build (SRAbstractionBuild, SRAbstractionBuildAndMeasure) makes the Taylor models of every
   cell (enclosure both) for its target samples and hands each block to hook as well (NULL: off);
   `simreach abstract` measures the tight metrics from them (src/abstraction/metrics.c). */
PetscErrorCode SRAbstractionSetModelHook(SRAbstraction abs, SRModelBlockHook hook, void *ctx);
