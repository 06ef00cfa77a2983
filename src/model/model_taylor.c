/* First-order Taylor models of the model (SPEC §7, taylor1; model layer): the activations
   (ReLU here, the others through the arithmetic of src/numerics/taylor.c), the MLP forward
   pass and the Taylor-model enclosure of f_phi
   over a box.  Rounding as in src/numerics/taylor.c. */
#include <simreach/model.h>
#include <simreach/private/model_taylor.h>
#include <math.h>

/* ReLU (SPEC §14) over the range R = [l, u] of a: the identity when l >= 0, zero when u <= 0,
   otherwise the chord lambda = u / (u - l) (any double lambda is sound) plus an enclosure of
   g(x) = max(x, 0) - lambda x, piecewise linear, so its extremes over R are at l, 0 and u,
   each enclosed with directed rounding. */
static SRTaylor SRTaylorRelu_Private(PetscInt n, SRTaylor a)
{
  const SRInterval R = SRTaylorRange(n, a);
  SRTaylor         y;

  if (SRIntervalIsNaI(R)) {
    y   = SRTaylorConstant(n, NAN);
    y.r = SRIntervalNaI();
    return y;
  }
  if (R.lo >= 0) return a;
  if (R.hi <= 0) return SRTaylorConstant(n, 0.0);
  if (!SRIntervalIsBounded(R)) {
    y   = SRTaylorConstant(n, 0.0);
    y.r = SRActivationInterval(SR_ACT_RELU, R);
    return y;
  }
  {
    const double     l = R.lo, u = R.hi, lambda = u / (u - l);
    const SRInterval gl = { SRSubDown(0.0, SRMulUp(lambda, l)), SRSubUp(0.0, SRMulDown(lambda, l)) };
    const SRInterval gu = { SRSubDown(u, SRMulUp(lambda, u)), SRSubUp(u, SRMulDown(lambda, u)) };
    const SRInterval G  = SRIntervalHull(SRIntervalHull(gl, gu), SRIntervalPoint(0.0));
    y                   = SRTaylorScale(n, lambda, a);
    y.r                 = SRIntervalAdd(y.r, G);
  }
  return y;
}

SRTaylor SRActivationTaylor(SRActivation act, PetscInt n, SRTaylor z)
{
  switch (act) {
  case SR_ACT_TANH:
    return SRTaylorTanh(n, z);
  case SR_ACT_RELU:
    return SRTaylorRelu_Private(n, z);
  case SR_ACT_SIGMOID:
    return SRTaylorSigmoid(n, z);
  default:
    return z;
  }
}

/* Forward pass with caller-provided workspace (2 maxwidth SRTaylor). */
PetscErrorCode SRMLPForwardTaylorWork_Private(SRMLP mlp, PetscInt n, const SRTaylor *X, SRTaylor *Y, SRTaylor *work)
{
  SRTaylor *in = work, *out = work + mlp->maxwidth;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < mlp->width[0]; j++)
    in[j] = SRMLPInputTaylor(mlp, n, j, X[j]);
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt  nin = mlp->width[l], nout = mlp->width[l + 1];
    const double   *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];
    const PetscBool last = (PetscBool)(l == mlp->nlayers - 1);
    for (PetscInt i = 0; i < nout; i++) {
      const SRTaylor z = SRTaylorLinear(n, nin, W + i * nin, in, b[i]);
      if (last)
        Y[i] = SRMLPOutputTaylor(mlp, n, i, SRActivationTaylor(mlp->act[l], n, z));
      else
        out[i] = SRActivationTaylor(mlp->act[l], n, z);
    }
    if (!last) {
      SRTaylor *t = in;
      in          = out;
      out         = t;
    }
  }
  PetscLogFlops(2.0 * (n + 3) * (mlp->nparams));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRMLPForwardTaylor(SRMLP mlp, PetscInt n, const SRTaylor *X, SRTaylor *Y)
{
  SRTaylor *work;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= SR_MAX_DIM, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Taylor model dimension n = %" PetscInt_FMT "; allowed 1..%d", n, SR_MAX_DIM);
  PetscCall(PetscMalloc1(2 * mlp->maxwidth, &work));
  PetscCall(SRMLPForwardTaylorWork_Private(mlp, n, X, Y, work));
  PetscCall(PetscFree(work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The taylor1 step of the plant file (src/model/system_plant.c, SPEC §7, §16). */
PetscErrorCode SRSystemStepTaylor(SRSystem sys, const SRTaylor *X, const SRTaylor *U, SRTaylor *Y)
{
  PetscFunctionBeginUser;
  sys->step_taylor(sys, X, U, Y);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cell's normalised coordinates (SPEC §7): x_i = c_i + h_i xi_i with [c - h, c + h]
   containing [lo, hi] (h rounded up). */
void SRTaylorBoxVariables_Private(PetscInt n, const double *lo, const double *hi, SRTaylor *X)
{
  for (PetscInt i = 0; i < n; i++) {
    const double c = 0.5 * lo[i] + 0.5 * hi[i];
    const double h = PetscMax(SRSubUp(hi[i], c), SRSubUp(c, lo[i]));
    X[i]           = SRTaylorVariable(n, i, c, h);
  }
}

/* The part of the Taylor enclosure after the MLP: X the cell's variables, N the network's
   output Taylor models; writes the range of f_phi (NaN bounds when not finite) and, when Yout is
   not NULL, the Taylor models of f_phi themselves (n of them).  Shared by the per-cell path below
   and the batched kernel of src/abstraction/enclosure_taylor.c. */
PetscErrorCode SRModelTaylorTail_Private(SRModel model, const SRTaylor *X, const SRTaylor *N, double *elo, double *ehi, SRTaylor *Yout)
{
  const PetscInt n = model->n;
  SRTaylor       Y[SR_MAX_DIM];
  PetscBool      bad = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCheck(!SRModelIsLoop(model), PETSC_COMM_SELF, PETSC_ERR_SUP, "the Taylor tail of SPEC §7: the closed loop of plant file %s is enclosed by the abstraction layer (src/abstraction/enclosure_loop.c)", model->sys->plant_path);
  if (model->type == SR_MODEL_DYNAMICS) {
    for (PetscInt i = 0; i < n; i++)
      Y[i] = SRTaylorAdd(n, X[i], N[i]); /* f = x + N(x) */
  } else {
    SRTaylor        U[SR_MAX_DIM];
    const PetscBool clipped = SRModelControlIsClipped(model); /* SPEC §14: imported, u = clip(N) */
    for (PetscInt i = 0; i < model->sys->nu; i++)
      U[i] = clipped ? SRTaylorClip(n, N[i], -model->sys->umax, model->sys->umax) : SRTaylorScale(n, model->sys->umax, SRTaylorTanh(n, N[i]));
    PetscCall(SRSystemStepTaylor(model->sys, X, U, Y));
    /* -control_steps m (SPEC §2): the same U through m steps; each state stays a Taylor model
       in the cell's coordinates */
    for (PetscInt s = 1; s < model->sys->control_steps; s++) {
      SRTaylor Z[SR_MAX_DIM];
      for (PetscInt i = 0; i < n; i++) Z[i] = Y[i];
      PetscCall(SRSystemStepTaylor(model->sys, Z, U, Y));
    }
  }
  for (PetscInt i = 0; i < n; i++) {
    const SRInterval R = SRTaylorRange(n, Y[i]);
    elo[i]             = R.lo;
    ehi[i]             = R.hi;
    if (!(isfinite(R.lo) && isfinite(R.hi))) bad = PETSC_TRUE;
  }
  if (bad)
    for (PetscInt i = 0; i < n; i++)
      elo[i] = ehi[i] = NAN; /* NaI: the caller flags the cell */
  if (Yout)
    for (PetscInt i = 0; i < n; i++) Yout[i] = Y[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRModelEncloseTaylorWork_Private(SRModel model, const double *lo, const double *hi, double *elo, double *ehi, SRTaylor *work, SRTaylor *Yout)
{
  SRTaylor X[SR_MAX_DIM], N[SR_MAX_DIM];

  PetscFunctionBeginUser;
  SRTaylorBoxVariables_Private(model->n, lo, hi, X);
  PetscCall(SRMLPForwardTaylorWork_Private(model->mlp, model->n, X, N, work));
  PetscCall(SRModelTaylorTail_Private(model, X, N, elo, ehi, Yout));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sound TM enclosure of f_phi over [lo, hi]; a non-finite result is returned as NaN bounds. */
PetscErrorCode SRModelEncloseTaylor(SRModel model, const double *lo, const double *hi, double *elo, double *ehi)
{
  SRTaylor *work;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(2 * model->mlp->maxwidth, &work));
  PetscCall(SRModelEncloseTaylorWork_Private(model, lo, hi, elo, ehi, work, NULL));
  PetscCall(PetscFree(work));
  PetscFunctionReturn(PETSC_SUCCESS);
}
