/* The taylor1 enclosure of f_phi over a block of cells (src/abstraction/enclosure_taylor.c;
   SPEC §7) and the Taylor model of f_phi it leaves per cell.  The network's part is the
   bounds layer's (private/netbatch.h). */
#pragma once

#include <simreach/model.h>

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
