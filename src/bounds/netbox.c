/* CROWN (or the forward affine pass) over a block of boxes (include/simreach/private/netbatch.h;
   SPEC §7, §16): each box becomes the affine forms x_d = c_d + h_d xi_d (c = the midpoint, h its
   distance to the ends rounded up, so the forms cover the box) and goes through
   SRMLPEncloseAffine (src/bounds/netaffine.c, netcrown.c), the same code the continuous-time
   loop uses; the range of each output form, outward rounded, is the bound, and the form itself
   (over the box's own coordinates: the extra symbols folded into the remainder) is a
   first-order Taylor model of the network over the box, which the abstraction carries through
   the model's Taylor step (SPEC §7) like taylor1's.  One box after the
   other: the relaxation's lines depend on each box's pre-activation bounds, so the block is the
   interface (shared with the interval kernel), not a vectorised loop. */
#include <simreach/private/netbatch.h>

struct _p_SRNetBoxBatch {
  SRMLP          mlp;
  SRNetEnclosure how;
  SRAffine      *in, *out, *work; /* width[0], width[L], SR_NET_WORK forms */
};

PetscErrorCode SRNetBoxBatchCreate(SRMLP mlp, SRNetEnclosure how, SRNetBoxBatch *bp)
{
  SRNetBoxBatch b;

  PetscFunctionBeginUser;
  PetscCheck(mlp->width[0] <= SR_AFFINE_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "network with %" PetscInt_FMT " inputs; CROWN over a box takes at most %d", mlp->width[0], SR_AFFINE_MAX);
  PetscCall(PetscNew(&b));
  b->mlp = mlp;
  b->how = how;
  PetscCall(PetscMalloc3(mlp->width[0], &b->in, mlp->width[mlp->nlayers], &b->out, SR_NET_WORK(mlp), &b->work));
  *bp = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRNetBoxBatchDestroy(SRNetBoxBatch *bp)
{
  PetscFunctionBeginUser;
  if (!*bp) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree3((*bp)->in, (*bp)->out, (*bp)->work));
  PetscCall(PetscFree(*bp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRNetBoxBatchEnclose(SRNetBoxBatch b, PetscInt nb, const double *lo, const double *hi, double *Nlo, double *Nhi, double *nf, SRTaylor *N)
{
  const SRMLP    mlp = b->mlp;
  const PetscInt n = mlp->width[0], nout = mlp->width[mlp->nlayers];

  for (PetscInt c = 0; c < SR_ENC_BLOCK; c++) {
    bool fin = c < nb && (!N || (n <= SR_MAX_DIM && nout <= SR_MAX_DIM));
    nf[c]    = NAN;
    for (PetscInt k = 0; k < nout; k++) Nlo[k * SR_ENC_BLOCK + c] = Nhi[k * SR_ENC_BLOCK + c] = NAN;
    for (PetscInt d = 0; fin && d < n; d++) {
      const double l = lo[d * SR_ENC_BLOCK + c], h = hi[d * SR_ENC_BLOCK + c];
      const double m = 0.5 * l + 0.5 * h, r = PetscMax(SRSubUp(h, m), SRSubUp(m, l));
      fin            = isfinite(l) && isfinite(h) && l <= h && isfinite(r);
      if (fin) b->in[d] = SRAffineVariable((int)d, m, r);
    }
    if (!fin || !SRMLPEncloseAffine(mlp, (int)n, b->in, b->out, b->work, b->how)) continue;
    for (PetscInt k = 0; k < nout; k++) {
      const SRInterval R = SRAffineRange((int)n, &b->out[k]);
      fin                = fin && SRIntervalIsBounded(R);
      Nlo[k * SR_ENC_BLOCK + c] = R.lo;
      Nhi[k * SR_ENC_BLOCK + c] = R.hi;
      if (N) { /* the same form as a Taylor model (n, nout <= SR_MAX_DIM: checked at create) */
        SRTaylor *t = N + c * SR_MAX_DIM + k;
        t->c0       = b->out[k].c0;
        for (PetscInt j = 0; j < SR_MAX_DIM; j++) t->c[j] = j < n ? b->out[k].c[j] : 0.0;
        t->r = b->out[k].r;
      }
    }
    if (fin) nf[c] = 0.0;
  }
}
