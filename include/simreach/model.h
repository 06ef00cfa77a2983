/* The learned map f_phi of SPEC §3: an MLP N_phi, used as a world model
   (f = x + N(x)) or as a controller inside the true step (f = F(x, umax tanh(N(x)))). */
#pragma once

#include <simreach/base.h>
#include <simreach/interval.h>
#include <simreach/system.h>
#include <simreach/taylor.h>

/* MLP with tanh hidden units and a linear output.  Parameters are stored contiguously:
   for layer l (0 <= l < nlayers): W_l (width[l+1] x width[l], row-major) at woff[l], then
   b_l (width[l+1]) at boff[l].  The struct is public because the enclosure kernels read
   the weights directly. */
typedef struct _p_SRMLP *SRMLP;
struct _p_SRMLP {
  PetscInt nlayers;                    /* affine layers = hidden layers + 1 */
  PetscInt width[SR_MAX_LAYERS + 2];   /* width[0] = inputs, width[nlayers] = outputs */
  PetscInt woff[SR_MAX_LAYERS + 1], boff[SR_MAX_LAYERS + 1];
  PetscInt nparams;
  double  *params;
  PetscInt maxwidth;
  /* scratch for batched forward/backward, grown on demand */
  PetscInt cache_batch;
  double  *cache;                      /* activations of every layer for the last forward */
  double  *scratch;
  PetscInt cache_nb;                   /* batch size of the last SRMLPForward (checked by Backward) */
};

/* Not collective. widths: the nhidden hidden widths. */
PetscErrorCode SRMLPCreate(PetscInt nin, PetscInt nhidden, const PetscInt widths[], PetscInt nout, SRMLP *mlp);
PetscErrorCode SRMLPDestroy(SRMLP *mlp);
/* Glorot-uniform weights, zero biases, from stream SR_STREAM_INIT of seed. */
PetscErrorCode SRMLPInitialize(SRMLP mlp, uint64_t seed);
/* Y (nb x nout) = N(X) (nb x nin); keeps the activations for SRMLPBackward. */
PetscErrorCode SRMLPForward(SRMLP mlp, PetscInt nb, const double *X, double *Y);
/* After SRMLPForward on the same batch: grad += d(sum dY.N(X))/dparams; dX (nb x nin) is
   overwritten with d(sum dY.N(X))/dX if non-NULL.  Error if nb differs from the last forward. */
PetscErrorCode SRMLPBackward(SRMLP mlp, PetscInt nb, const double *dY, double *grad, double *dX);
/* Sound interval forward pass (outward rounded): Y contains N(x) for every x in X. */
PetscErrorCode SRMLPForwardInterval(SRMLP mlp, const SRInterval *X, SRInterval *Y);
/* Sound Taylor-model forward pass over a cell (see taylor.h). */
PetscErrorCode SRMLPForwardTaylor(SRMLP mlp, PetscInt n, const SRTaylor *X, SRTaylor *Y);

typedef enum { SR_MODEL_DYNAMICS = 0, SR_MODEL_CONTROLLER = 1 } SRModelType;
extern const char *const SRModelTypes[]; /* PETSc enum list for PetscOptionsEnum */

typedef struct _p_SRModel *SRModel;
struct _p_SRModel {
  SRModelType type;
  SRSystem    sys;   /* borrowed */
  SRMLP       mlp;   /* owned: in = n, out = n (dynamics) or nu (controller) */
  PetscInt    n;
  double     *scratch;
  PetscInt    scratch_len;
};

/* Not collective.  The MLP starts Glorot-initialised from seed 0; runs call
   SRMLPInitialize(model->mlp, seed).  Error (naming -model and -sys) for a controller on a
   system without a reference controller. */
PetscErrorCode SRModelCreate(SRSystem sys, SRModelType type, PetscInt nhidden, const PetscInt widths[], SRModel *model);
PetscErrorCode SRModelDestroy(SRModel *model);
/* Y (nb x n) = f_phi(X). */
PetscErrorCode SRModelEvaluate(SRModel model, PetscInt nb, const double *X, double *Y);
/* After SRModelEvaluate on the same batch: grad += d(sum_i dY_i . f(x_i))/dphi. */
PetscErrorCode SRModelVJP(SRModel model, PetscInt nb, const double *X, const double *dY, double *grad);
/* Task loss of SPEC §3 on the batch; grad (nparams) += its gradient when non-NULL.  Runs its
   own forward pass on X (a following SRModelVJP must be on the same X). */
PetscErrorCode SRModelTaskLoss(SRModel model, PetscInt nb, const double *X, double *loss, double *grad);
/* Sound enclosures of f_phi over the box [lo, hi]: interval and first-order Taylor model. */
PetscErrorCode SRModelEncloseInterval(SRModel model, const double *lo, const double *hi, double *elo, double *ehi);
PetscErrorCode SRModelEncloseTaylor(SRModel model, const double *lo, const double *hi, double *elo, double *ehi);
