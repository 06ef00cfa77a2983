/* The taylor1 enclosure of f_phi over a block of SR_ENC_BLOCK cells (SPEC §7; 
   include/simreach/private/enclosure_taylor.h): the network's first-order Taylor models over
   each cell come from the batched kernel of src/bounds/nettaylor.c (which takes the per-cell
   pass for the cells it cannot batch), the model's tail (x + N(x), or the controller's tanh or
   clip, u_max and the true step; src/model/model_taylor.c) runs per cell on them, and the
   range of the result is the cell's box.  The same boxes as SRModelEncloseTaylorWork_Private
   cell by cell.  Tested against the MPFR oracle with dense sampling and attacks in
   tests/abstraction/test_soundness.c (through SREnclosureCompute) and against the per-cell path
   in tests/abstraction/test_taylor_batch.c. */
#include <simreach/private/enclosure_taylor.h>
#include <simreach/private/model_taylor.h>
#include <simreach/private/netbatch.h>

struct _p_SRTMBatch {
  SRModel          model;
  SRNetTaylorBatch net;
  SRTaylor        *X, *N; /* SR_ENC_BLOCK x SR_MAX_DIM each */
  PetscBool        ok[SR_ENC_BLOCK];
};

PetscErrorCode SRTMBatchCreate(SRModel model, SRTMBatch *tb)
{
  SRTMBatch b;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&b));
  b->model = model;
  PetscCall(SRNetTaylorBatchCreate(model->mlp, model->n, &b->net));
  PetscCall(PetscMalloc2(SR_ENC_BLOCK * SR_MAX_DIM, &b->X, SR_ENC_BLOCK * SR_MAX_DIM, &b->N));
  *tb = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTMBatchDestroy(SRTMBatch *tb)
{
  PetscFunctionBeginUser;
  if (!*tb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SRNetTaylorBatchDestroy(&(*tb)->net));
  PetscCall(PetscFree2((*tb)->X, (*tb)->N));
  PetscCall(PetscFree(*tb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTMBatchEnclose(SRTMBatch b, PetscInt nb, const double *lo, const double *hi, double *E, SRCellModel *cm)
{
  const PetscInt n = b->model->n;

  PetscFunctionBeginUser;
  PetscCall(SRNetTaylorBatchEnclose(b->net, nb, lo, hi, b->X, b->N, b->ok)); /* src/bounds/nettaylor.c */
  for (PetscInt c = 0; c < nb; c++) {
    double         *Ec = E + 2 * n * c;
    const SRTaylor *X  = b->X + c * SR_MAX_DIM;
    if (b->ok[c]) PetscCall(SRModelTaylorTail_Private(b->model, X, b->N + c * SR_MAX_DIM, Ec, Ec + n, cm ? cm[c].y : NULL));
    else
      for (PetscInt d = 0; d < n; d++) Ec[d] = Ec[n + d] = NAN; /* a box that is not finite */
    if (cm) { /* the box's coordinates (the per-cell path makes the same ones from the same box) */
      cm[c].ok = PETSC_TRUE;
      for (PetscInt d = 0; d < n; d++) {
        cm[c].c[d] = X[d].c0;
        cm[c].h[d] = X[d].c[d];
        cm[c].ok   = (PetscBool)(cm[c].ok && isfinite(Ec[d]) && isfinite(Ec[n + d]));
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
