/* The closed loop a plant file states with its `input` and `control` lines (SPEC §16, issue 36):
   with -model controller the network N reads the file's input expressions of the state and
   the controls are the file's control expressions of the state and N's outputs y1..yM, held
   over one period:

     f(x) = Phi_T(x, u(x, N(in(x))))

   (no tanh, no clip: the controls are what the file says, as in closedloop and the ARCH
   benchmarks).  Such a loop is a file with input and control lines and no 'bound' line.  This file holds the point map and its vector-Jacobian product (training);
   every enclosure of the map over a cell is src/abstraction/enclosure_loop.c (through
   src/abstraction/plantstep.c), so that one closed loop is proved and sampled.  Not collective. */
#include <simreach/model.h>
#include <simreach/private/system_ode.h>

/* A file with a 'bound' line is a system of SPEC §3 (the shipped files: their input and control
   lines restate u = u_max tanh(N(x)), and an imported network is clipped at the bound); a file
   with input and control lines and no 'bound' line (the ARCH files) states its own loop. */
PetscBool SRSystemIsLoop(SRSystem sys) { return (PetscBool)(sys && sys->plant && sys->plant->nin > 0 && sys->plant->nu > 0 && !(sys->plant->umax > 0)); }

PetscBool SRModelIsLoop(SRModel model) { return (PetscBool)(model->type == SR_MODEL_CONTROLLER && SRSystemIsLoop(model->sys)); }

typedef struct {
  double *in, *N, *vars, *val, *tan;
} SRLoopWork_Private;

static PetscErrorCode SRLoopWorkGet_Private(SRModel model, PetscInt nb, PetscBool tangents, SRLoopWork_Private *w)
{
  const SRPlant *pl = model->sys->plant;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc5(PetscMax(nb, 1) * pl->nin, &w->in, PetscMax(nb, 1) * pl->nout, &w->N, SR_PLANT_NVARS, &w->vars, pl->dag.n + 1, &w->val, tangents ? (size_t)(pl->dag.n + 1) * pl->nout : 1, &w->tan));
  for (int k = 0; k < SR_PLANT_NVARS; k++) w->vars[k] = 0.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRLoopWorkFree_Private(SRLoopWork_Private *w)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree5(w->in, w->N, w->vars, w->val, w->tan));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the network's inputs in(x) of nb points, then N(in(x)) (keeps the activations for SRMLPBackward) */
static PetscErrorCode SRLoopInputs_Private(SRModel model, PetscInt nb, const double *X, SRLoopWork_Private *w)
{
  const SRPlant *pl = model->sys->plant;
  const PetscInt n  = model->n;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nb; i++) {
    for (PetscInt d = 0; d < n; d++) w->vars[d] = X[i * n + d];
    for (int k = 0; k < pl->nout; k++) w->vars[SR_SLOT_Y(k)] = 0.0; /* the inputs do not read y */
    SRExprEvalDouble(&pl->dag, w->vars, w->val);
    for (int j = 0; j < pl->nin; j++) w->in[i * pl->nin + j] = w->val[pl->in_root[j]];
  }
  PetscCall(SRMLPForward(model->mlp, nb, w->in, w->N)); /* with the network's transforms (SPEC §14) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRModelLoopEvaluate(SRModel model, PetscInt nb, const double *X, double *Y)
{
  const SRPlant     *pl = model->sys->plant;
  const PetscInt     n  = model->n;
  SRLoopWork_Private   w;
  SRPlantPeriodOptions o;
  SRPlantPeriod       *P;

  PetscFunctionBeginUser;
  SRPlantPeriodOptionsDefault(&o); /* plantstep's simulation (SRPlantStepSimulate): the same numbers */
  PetscCall(SRPlantPeriodCreate(pl, &o, &P)); /* once per batch, not per point */
  PetscCall(SRLoopWorkGet_Private(model, nb, PETSC_FALSE, &w));
  PetscCall(SRLoopInputs_Private(model, nb, X, &w));
  for (PetscInt i = 0; i < nb; i++) {
    double u[SR_MAX_DIM];
    for (PetscInt d = 0; d < n; d++) w.vars[d] = X[i * n + d];
    for (int k = 0; k < pl->nout; k++) w.vars[SR_SLOT_Y(k)] = w.N[i * pl->nout + k];
    SRExprEvalDouble(&pl->dag, w.vars, w.val);
    for (int j = 0; j < pl->nu; j++) u[j] = w.val[pl->u_root[j]];
    SRPlantPeriodSimulateWith(P, X + i * n, u, NULL, Y + i * n); /* one period, u held (control_steps is 1) */
  }
  PetscCall(SRLoopWorkFree_Private(&w));
  PetscCall(SRPlantPeriodDestroy(&P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* grad += d/dphi sum_i dY_i . f(x_i): du = dY^T dPhi_T/du (SRSystemStepHeldVJP, through the
   period's Jacobian), dN_k = sum_j du_j du_j/dy_k (forward mode through the control lines) */
PetscErrorCode SRModelLoopVJP(SRModel model, PetscInt nb, const double *X, const double *dY, double *grad)
{
  const SRPlant     *pl = model->sys->plant;
  const PetscInt     n  = model->n;
  int                slot[SR_PLANT_MAX_OUTPUTS];
  double            *dN;
  SRLoopWork_Private w;

  PetscFunctionBeginUser;
  for (int k = 0; k < pl->nout; k++) slot[k] = SR_SLOT_Y(k);
  PetscCall(SRLoopWorkGet_Private(model, nb, PETSC_TRUE, &w));
  PetscCall(PetscMalloc1(PetscMax(nb, 1) * pl->nout, &dN));
  PetscCall(SRLoopInputs_Private(model, nb, X, &w)); /* again: the activations of this batch */
  for (PetscInt i = 0; i < nb; i++) {
    double u[SR_MAX_DIM], du[SR_MAX_DIM];
    for (PetscInt d = 0; d < n; d++) w.vars[d] = X[i * n + d];
    for (int k = 0; k < pl->nout; k++) w.vars[SR_SLOT_Y(k)] = w.N[i * pl->nout + k];
    SRExprEvalTangent(&pl->dag, w.vars, pl->nout, slot, w.val, w.tan);
    for (int j = 0; j < pl->nu; j++) u[j] = w.val[pl->u_root[j]];
    SRSystemStepHeldVJP(model->sys, X + i * n, u, dY + i * n, du);
    for (int k = 0; k < pl->nout; k++) {
      double s = 0.0;
      for (int j = 0; j < pl->nu; j++) s += du[j] * w.tan[pl->u_root[j] * pl->nout + k];
      dN[i * pl->nout + k] = s;
    }
  }
  PetscCall(SRMLPBackward(model->mlp, nb, dN, grad, NULL));
  PetscCall(PetscFree(dN));
  PetscCall(SRLoopWorkFree_Private(&w));
  PetscFunctionReturn(PETSC_SUCCESS);
}
