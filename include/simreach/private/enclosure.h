/* The enclosures of f_phi over cells that src/abstraction/enclosure.c adds to the public
   SREnclosureCompute (abstraction.h) and SREnclosureComputeBoxes (verify.h): the cell models of
   taylor1 and the intersection that `both` keeps (SPEC §7).  The network bounds themselves, the
   block size SR_ENC_BLOCK and the fast tanh are the bounds layer's (private/netbatch.h); the
   taylor1 block private/enclosure_taylor.h. */
#pragma once

#include <simreach/abstraction.h>
#include <simreach/private/model_taylor.h>
#include <simreach/private/netbatch.h>
#include <simreach/private/enclosure_taylor.h>
#include <simreach/private/enclosure_loop.h>

/* SREnclosureCompute (taylor1 or both) that also returns each cell's Taylor model of f_phi
   (src/abstraction/enclosure.c; cm: kend - kstart of them). */
PetscErrorCode SREnclosureComputeModels(SRModel model, SREnclosureType type, SRCells cells, PetscInt kstart, PetscInt kend, double *E, SRCellStatus *status, SRCellModel *cm);
/* Enclosure both of nb cells from their interval boxes (Eb, sb: in, and both out) and Taylor
   boxes Et: the intersection, the Taylor box alone where the interval one is not finite; a cell
   where neither is keeps its interval box (SREnclosureCompute's are -inf/inf there) and status
   (src/abstraction/enclosure.c; what SREnclosureCompute both computes). */
void SREnclosureIntersectBoth(PetscInt n, PetscInt nb, double *Eb, SRCellStatus *sb, const double *Et);
