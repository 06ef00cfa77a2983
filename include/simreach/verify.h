/* Verification at fine partitions (SPEC §10): the cells as per-dimension axes, the index-box
   lists of SPEC §5, their exact containment test, the distributed verify driver, the network
   file and the abstraction file (schema: analysis/abstraction-schema.md).

   Cells here are the products of per-dimension intervals: the regular grid of -cells, or a
   partition given by boundaries.  Nothing of size K is ever held whole: a rank owns the
   contiguous block of cells of SRVerifyOwnership and streams through it in chunks, so memory
   per rank is O(chunk) plus the axes (sum_d N_d numbers). */
#pragma once

#include <simreach/base.h>
#include <simreach/abstraction.h>
#include <simreach/model.h>
#include <simreach/system.h>
#include <simreach/network_file.h>
#include <simreach/axes.h>
#include <simreach/abstraction_file.h>

/* Enclosures of f_phi over nb boxes (rows lo[0..n), hi[0..n)), each box bisected into 2^depth
   sub-boxes (dimensions in turn), the sub-box enclosures hulled per box.  work: NULL or a
   buffer of SRVerifyEncloseWorkSize doubles. */
PetscErrorCode SREnclosureComputeBoxes(SRModel model, SREnclosureType type, PetscInt nb, const double *boxes, double *E, SRCellStatus *status);
PetscErrorCode SREnclosureComputeBisected(SRModel model, SREnclosureType type, PetscInt depth, PetscInt nb, const double *boxes, double *E, SRCellStatus *status);

/* Contiguous block [*kstart, *kend) of K cells owned by rank of size (larger blocks first). */
void SRVerifyOwnership(PetscInt64 K, PetscMPIInt size, PetscMPIInt rank, PetscInt64 *kstart, PetscInt64 *kend);


/* The verification of SPEC §10, collective: encloses every cell (type, bisected to depth),
   builds its index-box list C(k) = M(k), tests containment, and (out != NULL) writes E_k, the
   lists and the failures to the abstraction file out, chunk by chunk.  progress: print a line
   every tenth of the cells on rank 0. */
PetscErrorCode SRVerifyRun(MPI_Comm comm, SRModel model, SRAxes ax, SREnclosureType type, PetscInt depth, SRAbstractionFile out, PetscBool progress, SRVerifyMetrics *m);
/* The re-check of a stored abstraction (SPEC §10, §11 "proven" side): encloses every cell again
   with type (bisected to depth) and tests it against the stored lists; failing cells with
   witnesses printed (the first max_print) and counted.  Collective. */
PetscErrorCode SRVerifyCheckFile(MPI_Comm comm, const char path[], SREnclosureType type, PetscInt depth, PetscInt max_print, SRVerifyMetrics *m);
