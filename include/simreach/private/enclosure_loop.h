/* The enclosures over cells of a plant file's closed loop (src/abstraction/enclosure_loop.c,
   SPEC §16), which SREnclosureCompute and SREnclosureComputeBoxes call for such a model. */
#pragma once

#include <simreach/abstraction.h>

/* The enclosure over cells [kstart, kend) of SRCells cells, or over boxes (row c: lo then hi;
   cells NULL) of the closed loop of a plant file's input and control lines (SRModelIsLoop,
   SPEC §16): every cell through src/abstraction/plantstep.c, -enclosure mapped onto its network
   bound (src/abstraction/enclosure_loop.c).  SREnclosureCompute and SREnclosureComputeBoxes
   call it for such a model. */
PetscErrorCode SREnclosureLoop(SRModel model, SREnclosureType type, SRCells cells, const double *boxes, PetscInt kstart, PetscInt kend, double *E, SRCellStatus *status);
