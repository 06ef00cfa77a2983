/* The learned map f_phi of SPEC §3: an MLP N_phi, used as a world model
   (f = x + N(x)) or as a controller inside the true step (f = F(x, u(N(x))), u = umax tanh(N)
   for simreach's own networks, clip(N, -umax, umax) for imported ones: SRModelControlPoint). */
#pragma once

#include <simreach/base.h>
#include <simreach/interval.h>
#include <simreach/system.h>
#include <simreach/taylor.h>

/* Activation after an affine layer (SPEC §3, §14): every layer of N_phi is z = W a + b followed
   by one of these, elementwise.  Networks trained by simreach are tanh, ..., tanh, linear;
   imported ones (ONNX, NNet, the network file) may use any of them on any layer. */
typedef enum { SR_ACT_TANH = 0, SR_ACT_RELU = 1, SR_ACT_SIGMOID = 2, SR_ACT_LINEAR = 3 } SRActivation;
extern const char *const SRActivations[]; /* "tanh", "relu", "sigmoid", "linear" (PETSc enum list) */

/* MLP with (by default) tanh hidden units and a linear output.  Parameters are stored contiguously:
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
  SRActivation act[SR_MAX_LAYERS + 1]; /* act[l]: after affine layer l (default tanh, the last linear) */
  /* Optional input and output transforms of imported networks (SPEC §14, src/model/mlp_transform.c):
       input   z_j = (min(max(x_j, inlo_j), inhi_j) - inmean_j) / inrange_j   (NNet clipping and
               normalisation, ONNX Sub/Div of constants; inlo = -inf, inhi = +inf: no clipping),
       output  y_i = N_i * outscale_i + outoffset_i   (NNet output scaling, u = f(x) - 10).
     The network's function is the real-arithmetic composition; enclosures enclose it. */
  PetscBool has_in, has_out;
  double   *inlo, *inhi, *inmean, *inrange; /* width[0] each, when has_in */
  double   *outscale, *outoffset;           /* width[nlayers] each, when has_out */
  double   *xcache;                         /* raw inputs of the last forward (nb x width[0]), when has_in */
};

/* Not collective. widths: the nhidden hidden widths. */
PetscErrorCode SRMLPCreate(PetscInt nin, PetscInt nhidden, const PetscInt widths[], PetscInt nout, SRMLP *mlp);
PetscErrorCode SRMLPDestroy(SRMLP *mlp);
/* Sets the activation after affine layer l (0 <= l < nlayers). */
PetscErrorCode SRMLPSetActivation(SRMLP mlp, PetscInt l, SRActivation act);
/* Sets the input transform (arrays of width[0]; inrange > 0, inlo <= inhi, NaN refused) or the
   output transform (arrays of width[nlayers], finite). */
PetscErrorCode SRMLPSetInputTransform(SRMLP mlp, const double inlo[], const double inhi[], const double inmean[], const double inrange[]);
PetscErrorCode SRMLPSetOutputTransform(SRMLP mlp, const double outscale[], const double outoffset[]);
/* The transforms applied to nb points in place (x: nb x width[0], y: nb x width[nlayers]), to
   intervals (outward rounded) and to Taylor models (sound; n the cell dimension). */
void       SRMLPInputPoint(SRMLP mlp, PetscInt nb, double *x);
void       SRMLPOutputPoint(SRMLP mlp, PetscInt nb, double *y);
SRInterval SRMLPInputInterval(SRMLP mlp, PetscInt j, SRInterval x);
SRInterval SRMLPOutputInterval(SRMLP mlp, PetscInt i, SRInterval y);
SRTaylor   SRMLPInputTaylor(SRMLP mlp, PetscInt n, PetscInt j, SRTaylor x);
SRTaylor   SRMLPOutputTaylor(SRMLP mlp, PetscInt n, PetscInt i, SRTaylor y);
/* A digest of what the parameters do not hold: the widths, the activations and the transforms
   (SPEC §14).  A study that fine-tunes an imported network stores it; readers of the results
   file refuse a -init_network file whose digest differs (the run's function would change). */
uint64_t SRMLPStructureDigest(SRMLP mlp);
/* Refuses (collective on comm; *mlp destroyed first) when digest (16 hex digits, as a study
   stores it in its options as -init_network_digest) is not SRMLPStructureDigest(*mlp); what
   names the file. */
PetscErrorCode SRMLPCheckStructureDigest(MPI_Comm comm, SRMLP *mlp, const char digest[], const char what[]);
/* PETSC_TRUE when the activations are simreach's own (tanh hidden layers, linear output). */
PetscBool      SRMLPIsDefault(SRMLP mlp); /* (and no transforms) */
/* "relu,relu,linear": one name per affine layer (len >= 8 * (SR_MAX_LAYERS + 1)). */
PetscErrorCode SRMLPActivationsString(SRMLP mlp, char buf[], size_t len);
/* Parses such a string into acts[0..nlayers); errors name what (a file or option) and the allowed names. */
PetscErrorCode SRActivationsParse(const char what[], const char str[], PetscInt nlayers, SRActivation acts[]);
/* Glorot-uniform weights, zero biases, from stream SR_STREAM_INIT of seed. */
PetscErrorCode SRMLPInitialize(SRMLP mlp, uint64_t seed);
/* Y (nb x nout) = N(X) (nb x nin); keeps the activations for SRMLPBackward. */
PetscErrorCode SRMLPForward(SRMLP mlp, PetscInt nb, const double *X, double *Y);
/* After SRMLPForward on the same batch: grad += d(sum dY.N(X))/dparams; dX (nb x nin) is
   overwritten with d(sum dY.N(X))/dX if non-NULL.  Error if nb differs from the last forward. */
PetscErrorCode SRMLPBackward(SRMLP mlp, PetscInt nb, const double *dY, double *grad, double *dX);
/* Sound interval forward pass (outward rounded): Y contains N(x) for every x in X. */
PetscErrorCode SRMLPForwardInterval(SRMLP mlp, const SRInterval *X, SRInterval *Y);
/* Sound enclosures of one activation: interval (outward rounded) and first-order Taylor model
   (a line plus a remainder; src/numerics/taylor.c). */
SRInterval SRActivationInterval(SRActivation act, SRInterval z);
SRTaylor   SRActivationTaylor(SRActivation act, PetscInt n, SRTaylor z);
/* Taylor step Y = F(X, U) of the system (SPEC §2, §16; sys->step_taylor, from its plant file): Y contains
   F(x, u) for every x, u enclosed by X, U over the same cell coordinates.  U is ignored when
   the system has no control (toy1d).  Not collective. */
PetscErrorCode SRSystemStepTaylor(SRSystem sys, const SRTaylor *X, const SRTaylor *U, SRTaylor *Y);
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
  double      test_shrink; /* a planted fault of the test build only (simreach_testhooks): the
                              flow's result of a plant-file loop shrunk by this factor (0: off) */
};

/* Not collective.  The MLP starts Glorot-initialised from seed 0; runs call
   SRMLPInitialize(model->mlp, seed).  Error (naming -model and -sys) for a controller on a
   system without a reference controller. */
PetscErrorCode SRModelCreate(SRSystem sys, SRModelType type, PetscInt nhidden, const PetscInt widths[], SRModel *model);
/* The model around a given network (imported, SPEC §14), taking ownership of mlp (also on
   error): its inputs must be the system's n states and its outputs n (dynamics) or nu
   (controller); errors name what (the file) and the numbers. */
PetscErrorCode SRModelCreateFromMLP(SRSystem sys, SRModelType type, SRMLP mlp, const char what[], SRModel *model);
/* The model's network replaced by an imported one of the same shapes (-init_network, SPEC §14),
   taking ownership of mlp (also on error); a mismatch is refused naming what, the first layer
   that differs and both shapes, then hint, raised on comm (every rank holds the same file). */
PetscErrorCode SRModelAdoptNetwork(MPI_Comm comm, SRModel model, SRMLP mlp, const char what[], const char hint[]);
PetscErrorCode SRModelDestroy(SRModel *model);
/* Y (nb x n) = f_phi(X). */
PetscErrorCode SRModelEvaluate(SRModel model, PetscInt nb, const double *X, double *Y);
/* After SRModelEvaluate on the same batch: grad += d(sum_i dY_i . f(x_i))/dphi. */
PetscErrorCode SRModelVJP(SRModel model, PetscInt nb, const double *X, const double *dY, double *grad);
/* Task loss of SPEC §3 on the batch; grad (nparams) += its gradient when non-NULL.  Runs its
   own forward pass on X (a following SRModelVJP must be on the same X). */
PetscErrorCode SRModelTaskLoss(SRModel model, PetscInt nb, const double *X, double *loss, double *grad);
/* The control from the network's output N (SPEC §3; §14, docs/networks.md): simreach's own
   networks (SRMLPIsDefault: tanh hidden layers, linear output, no transforms) give
   u = umax tanh(N); a controller network of any other kind (every ONNX or NNet controller, an
   -init_network study) is used as read and saturated, u = clip(N, -umax, umax).
   clipped = SRModelControlIsClipped(model); dudN (may be NULL) gets du/dN (0 at the kinks). */
PetscBool  SRModelControlIsClipped(SRModel model);
double     SRModelControlPoint(SRModel model, PetscBool clipped, double N, double *dudN);
SRInterval SRModelControlInterval(SRModel model, PetscBool clipped, SRInterval N); /* sound */
/* Sound enclosures of f_phi over the box [lo, hi]: interval and first-order Taylor model. */
PetscErrorCode SRModelEncloseInterval(SRModel model, const double *lo, const double *hi, double *elo, double *ehi);

/* The closed loop of a plant file's `input` and `control` lines (SPEC §16, issue 36;
   src/model/model_loop.c): a system whose plant file has input and control lines and no
   'bound' line (the ARCH files; a 'bound' line makes it a system of SPEC §3) makes -model controller
   the loop f(x) = Phi_T(x, u(x, N(in(x)))): the network's inputs are the input lines, its
   outputs the file's y1..yM, the controls the control lines (no tanh, no clip), held one period.
   SRModelEvaluate and SRModelVJP take that path; the enclosures over cells are the abstraction
   layer's (src/abstraction/enclosure_loop.c), SRModelEncloseInterval and the model's Taylor
   enclosures refuse such a model. */
PetscBool      SRSystemIsLoop(SRSystem sys);
PetscBool      SRModelIsLoop(SRModel model);
PetscErrorCode SRModelLoopEvaluate(SRModel model, PetscInt nb, const double *X, double *Y);
PetscErrorCode SRModelLoopVJP(SRModel model, PetscInt nb, const double *X, const double *dY, double *grad);
PetscErrorCode SRModelEncloseTaylor(SRModel model, const double *lo, const double *hi, double *elo, double *ehi);
