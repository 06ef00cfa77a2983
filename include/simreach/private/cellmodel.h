/* What a cell's Taylor model decides without the network (src/abstraction/cellmodel.c; SPEC §5,
   §6): used by the target samples (src/abstraction/successors.c) and the floor
   (src/abstraction/metrics.c).  Every decision is the point pass's own answer. */
#pragma once

#include <simreach/abstraction.h>
#include <simreach/private/enclosure_taylor.h>

/* For np points X (in the model's box), boxes holding the point pass's values of f_phi (n lo, then
   n hi per point in Ylo, Yhi; NaN where not finite, which decides nothing); false when the model
   is not finite (nothing written). */
PetscBool SRCellModelImages(const SRCellModel *cm, PetscInt n, PetscInt np, const double *X, double *Ylo, double *Yhi);
/* The one cell at distance 0 (SRCellsDistance) from every point of [lo, hi], every other cell at
   a positive distance; K (the sink) when every point is outside D and every cell at a positive
   distance; -1 when neither is so or it is not decided (free cells: always -1). */
PetscInt SRCellsSoleCell(SRCells cells, const double *lo, const double *hi);
/* (src/abstraction/metrics.c) The floor's count of a cell from its model (lattice of the inner box
   [ilo, ihi], corners included); *decided false when the model cannot tell (then the lattice is
   evaluated). */
PetscErrorCode SRCellModelFloorCount(SRCells cells, SRCellIndex index, const SRCellModel *cm, const double *ilo, const double *ihi, PetscBool *decided, PetscInt *cnt);
