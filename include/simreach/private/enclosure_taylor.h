/* The batched first-order Taylor-model kernel (src/abstraction/enclosure_taylor.c; SPEC §7). */
#pragma once

#include <simreach/model.h>
#include <simreach/abstraction.h>

/* Batched first-order Taylor-model enclosure (src/abstraction/enclosure_taylor.c): the same enclosure as
   SRModelEncloseTaylorWork_Private (sound, SPEC §7) over a block of cells. */
typedef struct _p_SRTMBatch *SRTMBatch;

/* What a cell's first-order Taylor model says of f_phi (SPEC §7): for every x = c + h xi of the
   box, xi in [-1, 1]^n, f_phi,i(x) lies in y[i].c0 + sum_k y[i].c[k] xi_k + y[i].r.  ok: the model
   is finite (otherwise nothing may be read from it).  Used to decide sample images without
   evaluating the network (src/abstraction/cellmodel.c). */
typedef struct {
  SRTaylor  y[SR_MAX_DIM];
  double    c[SR_MAX_DIM], h[SR_MAX_DIM];
  PetscBool ok;
} SRCellModel;

PetscErrorCode SRTMBatchCreate(SRModel model, SRTMBatch *tb);
PetscErrorCode SRTMBatchDestroy(SRTMBatch *tb);
/* nb <= SR_ENC_BLOCK cells with boxes lo/hi in SoA layout (all SR_ENC_BLOCK slots filled);
   E: 2n per cell (lo then hi), NaN bounds when not finite; cm (may be NULL): nb cell models. */
PetscErrorCode SRTMBatchEnclose(SRTMBatch tb, PetscInt nb, const double *lo, const double *hi, double *E, SRCellModel *cm);

/* SREnclosureCompute (taylor1 or both) that also returns each cell's Taylor model of f_phi
   (src/abstraction/enclosure.c; cm: kend - kstart of them). */
PetscErrorCode SREnclosureComputeModels(SRModel model, SREnclosureType type, SRCells cells, PetscInt kstart, PetscInt kend, double *E, SRCellStatus *status, SRCellModel *cm);
/* Enclosure both of nb cells from their interval boxes (Eb, sb: in, and both out) and Taylor
   boxes Et: the intersection, the Taylor box alone where the interval one is not finite; a cell
   where neither is keeps its interval box (SREnclosureCompute's are -inf/inf there) and status
   (src/abstraction/enclosure.c; what SREnclosureCompute both computes). */
void SREnclosureIntersectBoth(PetscInt n, PetscInt nb, double *Eb, SRCellStatus *sb, const double *Et);
