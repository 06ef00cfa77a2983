/* The batched first-order Taylor-model kernel (src/abstraction/enclosure_taylor.c; SPEC §7). */
#pragma once

#include <simreach/model.h>

/* Batched first-order Taylor-model enclosure (src/abstraction/enclosure_taylor.c): the same enclosure as
   SRModelEncloseTaylorWork_Private (sound, SPEC §7) over a block of cells. */
typedef struct _p_SRTMBatch *SRTMBatch;
PetscErrorCode SRTMBatchCreate(SRModel model, SRTMBatch *tb);
PetscErrorCode SRTMBatchDestroy(SRTMBatch *tb);
/* nb <= SR_ENC_BLOCK cells with boxes lo/hi in SoA layout (all SR_ENC_BLOCK slots filled);
   E: 2n per cell (lo then hi), NaN bounds when not finite. */
PetscErrorCode SRTMBatchEnclose(SRTMBatch tb, PetscInt nb, const double *lo, const double *hi, double *E);
