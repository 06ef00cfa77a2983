/* Metrics where soundness pays (SPEC §5, §6): the tightest enclosure's successor count and
   volume, and the sampled floor that no sound box enclosure can beat. */
#pragma once

#include <simreach/abstraction.h>

typedef struct {
  double succ_tight;  /* mean |M_tight(k)|: cells (+ sink) meeting the tightest enclosure */
  double vol_E_tight; /* mean vol of the tightest enclosure */
  double succ_floor;  /* mean |F(k)|: cells (+ sink) meeting the hull of f over a dense sample of Psi_k */
  PetscInt nonfinite; /* cells whose tightest enclosure is not finite (counted as K + 1 successors) */
} SRTightMetrics;

/* Collective on comm (the abstraction's communicator; each rank does its block of cells).
   The tightest enclosure of cell k: -enclosure both over the whole cell, intersected with the
   hull of `both` over 2^bisect x ... x 2^bisect sub-boxes (bisect = 0: the whole cell only);
   both boxes are sound, so is their intersection, and |M_tight| >= |F|.  The floor samples a
   grid of `floor_points` points per dimension (corners included).  Means are weighted by
   vol(Psi_k) / sum vol(Psi) (the plain mean on a regular grid), summed in cell order, so the
   values do not depend on the rank count.  E_tight (2n per cell of the block, lo then hi) may
   be NULL: otherwise it receives -inf, +inf for a cell whose tightest enclosure is not finite. */
PetscErrorCode SRMetricsTight(MPI_Comm comm, SRAbstraction abs, SRModel model, SRCells cells, PetscInt bisect, PetscInt floor_points, SRTightMetrics *m, double *E_tight);
