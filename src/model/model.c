/* The learned map f_phi of SPEC §3 around the MLP N_phi:
     dynamics:   f(x) = x + N(x),                 task = mean ||f(x) - F_ref(x)||^2
     controller: f(x) = F(x, u(N(x))),            task = mean ||u(x) - u_ref(x)||^2
   with u = umax tanh(N) for simreach's own networks and u = clip(N, -umax, umax) for any other
   (imported, SPEC §14; docs/networks.md "The control of an imported controller").
   SRModelEncloseTaylor lives in src/numerics/taylor.c.  Not collective. */
#include <simreach/model.h>

const char *const SRModelTypes[] = { "dynamics", "controller", "SRModelType", "SR_MODEL_", NULL };

PetscBool SRModelControlIsClipped(SRModel model) { return (PetscBool)(model->type == SR_MODEL_CONTROLLER && !SRMLPIsDefault(model->mlp)); }

/* u(N) and du/dN at a point: umax tanh(N), or clip(N, -umax, umax) (slope 1 strictly inside) */
double SRModelControlPoint(SRModel model, PetscBool clipped, double N, double *dudN)
{
  const double umax = model->sys->umax;
  if (clipped) {
    if (dudN) *dudN = (N > -umax && N < umax) ? 1.0 : 0.0;
    return fmin(fmax(N, -umax), umax);
  } else {
    const double t = tanh(N);
    if (dudN) *dudN = umax * (1.0 - t * t);
    return umax * t;
  }
}

/* Sound: umax tanh(N) intersected with [-umax, umax] (the true values lie there), or the exact clip */
SRInterval SRModelControlInterval(SRModel model, PetscBool clipped, SRInterval N)
{
  const double umax = model->sys->umax;
  if (clipped) return SRIntervalClip(N, -umax, umax);
  return SRIntervalIntersect(SRIntervalScale(umax, SRIntervalTanh(N)), SRIntervalMake(-umax, umax));
}

PetscErrorCode SRModelCreate(SRSystem sys, SRModelType type, PetscInt nhidden, const PetscInt widths[], SRModel *model)
{
  SRModel         m;
  const PetscBool loop = (PetscBool)(type == SR_MODEL_CONTROLLER && SRSystemIsLoop(sys)); /* the file's input/control lines (SPEC §16) */

  PetscFunctionBeginUser;
  PetscCheck(type == SR_MODEL_DYNAMICS || type == SR_MODEL_CONTROLLER, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-model %d: allowed dynamics, controller", (int)type);
  PetscCheck(
      type != SR_MODEL_CONTROLLER || loop || (sys->has_controller && sys->nu > 0), PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-model controller needs a system with a control input and a reference controller; -sys %s has none (use -model dynamics)", sys->name);
  PetscCheck(type == SR_MODEL_CONTROLLER || sys->control_steps == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-control_steps %" PetscInt_FMT ": a control period needs -model controller (the world model of -model dynamics is one step); allowed with -model dynamics is 1", sys->control_steps);
  PetscCheck(!loop || sys->control_steps == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-control_steps %" PetscInt_FMT ": the closed loop of plant file %s (its input and control lines) holds the control one period; allowed is 1", sys->control_steps, sys->plant_path);
  PetscCheck(!loop || !sys->plant->select, PETSC_COMM_SELF, PETSC_ERR_SUP, "plant file %s selects among several networks ('select'); -model controller takes one network", sys->plant_path);
  PetscCall(PetscNew(&m));
  m->type = type;
  m->sys  = sys;
  m->n    = sys->n;
  PetscCall(SRMLPCreate(loop ? sys->plant->nin : sys->n, nhidden, widths, loop ? sys->plant->nout : (type == SR_MODEL_DYNAMICS ? sys->n : sys->nu), &m->mlp));
  /* a usable default; the run re-initialises from its own seed (SPEC §3) */
  PetscCall(SRMLPInitialize(m->mlp, 0));
  *model = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRModelCreateFromMLP(SRSystem sys, SRModelType type, SRMLP mlp, const char what[], SRModel *model)
{
  const PetscInt  nin = mlp->width[0], nout = mlp->width[mlp->nlayers];
  const PetscBool loop = (PetscBool)(type == SR_MODEL_CONTROLLER && SRSystemIsLoop(sys));
  const PetscInt  need = loop ? sys->plant->nout : (type == SR_MODEL_DYNAMICS ? sys->n : sys->nu), needin = loop ? sys->plant->nin : sys->n;
  PetscInt        hw[SR_MAX_LAYERS + 1];

  PetscFunctionBeginUser;
  if (nin != needin || nout != need || mlp->nlayers < 2) PetscCall(SRMLPDestroy(&mlp));
  PetscCheck(!loop || nin == needin, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: the network has %" PetscInt_FMT " inputs; plant file %s has %" PetscInt_FMT " input lines", what, nin, sys->plant_path, needin);
  PetscCheck(!loop || nout == need, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: the network has %" PetscInt_FMT " outputs; plant file %s says outputs %" PetscInt_FMT, what, nout, sys->plant_path, need);
  PetscCheck(nin == needin, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: the network has %" PetscInt_FMT " inputs; -sys %s has %" PetscInt_FMT " states", what, nin, sys->name, sys->n);
  PetscCheck(nout == need, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: the network has %" PetscInt_FMT " outputs; -model %s of -sys %s needs %" PetscInt_FMT, what, nout, SRModelTypes[type], sys->name, need);
  PetscCheck(mlp->nlayers >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: the network has no hidden layer; allowed are 1 to %d", what, SR_MAX_LAYERS);
  for (PetscInt l = 1; l < mlp->nlayers; l++) hw[l - 1] = mlp->width[l];
  PetscCall(SRModelCreate(sys, type, mlp->nlayers - 1, hw, model));
  PetscCall(SRMLPDestroy(&(*model)->mlp));
  (*model)->mlp = mlp;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void SRModelShape_Private(SRMLP mlp, char buf[], size_t len)
{
  size_t k = 0;
  for (PetscInt l = 0; l <= mlp->nlayers && k < len; l++) k += (size_t)snprintf(buf + k, len - k, "%s%lld", l ? "-" : "", (long long)mlp->width[l]);
}

/* -init_network (SPEC §14): the imported network replaces the model's, layer for layer */
PetscErrorCode SRModelAdoptNetwork(MPI_Comm comm, SRModel model, SRMLP mlp, const char what[], const char hint[])
{
  char     have[128], want[128];
  PetscInt bad = -1;

  PetscFunctionBeginUser;
  SRModelShape_Private(mlp, have, sizeof have);
  SRModelShape_Private(model->mlp, want, sizeof want);
  for (PetscInt l = PetscMin(mlp->nlayers, model->mlp->nlayers) - 1; l >= 0; l--)
    if (mlp->width[l] != model->mlp->width[l] || mlp->width[l + 1] != model->mlp->width[l + 1]) bad = l;
  if (mlp->nlayers != model->mlp->nlayers || bad >= 0) {
    const PetscInt l = bad >= 0 ? bad : PetscMin(mlp->nlayers, model->mlp->nlayers);
    char           lf[64] = "absent", lm[64] = "absent";
    if (l < mlp->nlayers) snprintf(lf, sizeof lf, "%lld -> %lld", (long long)mlp->width[l], (long long)mlp->width[l + 1]);
    if (l < model->mlp->nlayers) snprintf(lm, sizeof lm, "%lld -> %lld", (long long)model->mlp->width[l], (long long)model->mlp->width[l + 1]);
    PetscCall(SRMLPDestroy(&mlp));
    SETERRQ(comm, PETSC_ERR_ARG_SIZ, "%s: layer %" PetscInt_FMT " is %s in the file (a %s network), %s in the model (%s)%s", what, l, lf, have, lm, want, hint ? hint : "");
  }
  PetscCall(SRMLPDestroy(&model->mlp));
  model->mlp = mlp;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRModelDestroy(SRModel *model)
{
  PetscFunctionBeginUser;
  if (!model || !*model) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SRMLPDestroy(&(*model)->mlp));
  PetscCall(PetscFree((*model)->scratch));
  PetscCall(PetscFree(*model));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* scratch layout for a batch of nb: N (nb x nout) | work (nb x SR_MAX_DIM >= nb x nout) */
static PetscErrorCode SRModelScratch_Private(SRModel model, PetscInt nb, double **N, double **work)
{
  const PetscInt len = PetscMax(nb, 1) * (model->mlp->width[model->mlp->nlayers] + SR_MAX_DIM);

  PetscFunctionBeginUser;
  if (len > model->scratch_len) {
    PetscCall(PetscFree(model->scratch));
    PetscCall(PetscMalloc1(len, &model->scratch));
    model->scratch_len = len;
  }
  *N = model->scratch;
  if (work) *work = model->scratch + PetscMax(nb, 1) * model->mlp->width[model->mlp->nlayers];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRModelEvaluate(SRModel model, PetscInt nb, const double *X, double *Y)
{
  const PetscInt n   = model->n;
  SRSystem       sys = model->sys;
  double        *N;

  PetscFunctionBeginUser;
  if (SRModelIsLoop(model)) { /* the plant file's closed loop (src/model/model_loop.c) */
    PetscCall(SRModelLoopEvaluate(model, nb, X, Y));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SRModelScratch_Private(model, nb, &N, NULL));
  PetscCall(SRMLPForward(model->mlp, nb, X, N));
  if (model->type == SR_MODEL_DYNAMICS) {
    for (PetscInt i = 0; i < nb * n; i++)
      Y[i] = X[i] + N[i];
  } else {
    const PetscInt  nu      = sys->nu;
    const PetscBool clipped = SRModelControlIsClipped(model);
    for (PetscInt i = 0; i < nb; i++) {
      double u[SR_MAX_DIM];
      for (PetscInt j = 0; j < nu; j++)
        u[j] = SRModelControlPoint(model, clipped, N[i * nu + j], NULL);
      SRSystemStepHeld(sys, X + i * n, u, Y + i * n); /* -control_steps: u held (SPEC §2) */
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* grad += d/dphi sum_i dY_i . f(x_i).  dynamics: dN = dY.  controller: by the chain rule through
   the m held steps F^m, dN_ij = u'(N_ij) sum_k dY_ik dF^m_k/du_j (x_i, u_i). */
PetscErrorCode SRModelVJP(SRModel model, PetscInt nb, const double *X, const double *dY, double *grad)
{
  const PetscInt n   = model->n;
  SRSystem       sys = model->sys;
  double        *N, *dN;

  PetscFunctionBeginUser;
  PetscCheck(nb == model->mlp->cache_nb, PETSC_COMM_SELF, PETSC_ERR_ORDER, "SRModelVJP: batch of %" PetscInt_FMT " but the last SRModelEvaluate had %" PetscInt_FMT, nb, model->mlp->cache_nb);
  if (SRModelIsLoop(model)) {
    PetscCall(SRModelLoopVJP(model, nb, X, dY, grad));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (model->type == SR_MODEL_DYNAMICS) {
    PetscCall(SRMLPBackward(model->mlp, nb, dY, grad, NULL));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  const PetscInt  nu      = sys->nu;
  const PetscBool clipped = SRModelControlIsClipped(model);
  PetscCheck(nu <= SR_MAX_DIM, PETSC_COMM_SELF, PETSC_ERR_SUP, "SRModelVJP: %" PetscInt_FMT " controls; at most %d supported", nu, SR_MAX_DIM);
  PetscCall(SRModelScratch_Private(model, nb, &N, &dN));
  for (PetscInt i = 0; i < nb; i++) {
    double u[SR_MAX_DIM], du[SR_MAX_DIM], s[SR_MAX_DIM];
    for (PetscInt j = 0; j < nu; j++)
      u[j] = SRModelControlPoint(model, clipped, N[i * nu + j], &s[j]);
    SRSystemStepHeldVJP(sys, X + i * n, u, dY + i * n, du);
    for (PetscInt j = 0; j < nu; j++) dN[i * nu + j] = s[j] * du[j];
  }
  PetscCall(SRMLPBackward(model->mlp, nb, dN, grad, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SPEC §3 task losses; the gradient goes through SRMLPBackward with dL/dN. */
PetscErrorCode SRModelTaskLoss(SRModel model, PetscInt nb, const double *X, double *loss, double *grad)
{
  const PetscInt n   = model->n;
  SRSystem       sys = model->sys;
  double        *N, *work, L = 0.0;

  PetscFunctionBeginUser;
  PetscCheck(nb >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SRModelTaskLoss: batch of %" PetscInt_FMT " samples; the mean needs >= 1", nb);
  PetscCheck(!SRModelIsLoop(model), PETSC_COMM_SELF, PETSC_ERR_SUP, "plant file %s: the task loss of SPEC §3 (u against a reference) is not defined for the closed loop of its input and control lines", sys->plant_path);
  PetscCall(SRModelScratch_Private(model, nb, &N, &work));
  PetscCall(SRMLPForward(model->mlp, nb, X, N));
  if (model->type == SR_MODEL_DYNAMICS) {
    /* r = x + N(x) - F_ref(x); dL/dN = 2 r / nb into work (N stays valid for SRModelVJP) */
    for (PetscInt i = 0; i < nb; i++) {
      double yref[SR_MAX_DIM];
      SRSystemReferenceStep(sys, X + i * n, yref);
      for (PetscInt k = 0; k < n; k++) {
        const double r = X[i * n + k] + N[i * n + k] - yref[k];
        L += r * r;
        work[i * n + k] = 2.0 * r / (double)nb;
      }
    }
  } else {
    const PetscInt  nu      = sys->nu;
    const PetscBool clipped = SRModelControlIsClipped(model);
    for (PetscInt i = 0; i < nb; i++) {
      double uref[SR_MAX_DIM];
      SRSystemReferenceControl(sys, X + i * n, uref);
      for (PetscInt j = 0; j < nu; j++) {
        if (clipped) {
          double       s;
          const double r = SRModelControlPoint(model, clipped, N[i * nu + j], &s) - uref[j];
          L += r * r;
          work[i * nu + j] = 2.0 * r / (double)nb * s;
        } else {
          const double t = tanh(N[i * nu + j]), r = sys->umax * t - uref[j];
          L += r * r;
          work[i * nu + j] = 2.0 * r / (double)nb * sys->umax * (1.0 - t * t);
        }
      }
    }
  }
  *loss = L / (double)nb;
  if (grad) PetscCall(SRMLPBackward(model->mlp, nb, work, grad, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SPEC §7 interval: X + N(X) (dynamics), or the interval step at U = u(N(X)) (SRModelControlInterval). */
PetscErrorCode SRModelEncloseInterval(SRModel model, const double *lo, const double *hi, double *elo, double *ehi)
{
  const PetscInt n   = model->n;
  SRSystem       sys = model->sys;
  SRInterval     X[SR_MAX_DIM], Y[SR_MAX_DIM], N[SR_MAX_DIM];

  PetscFunctionBeginUser;
  PetscCheck(!SRModelIsLoop(model), PETSC_COMM_SELF, PETSC_ERR_SUP, "SRModelEncloseInterval: the closed loop of plant file %s is enclosed by the abstraction layer (SREnclosureComputeBoxes, src/abstraction/enclosure_loop.c)", sys->plant_path);
  for (PetscInt i = 0; i < n; i++) {
    X[i] = SRIntervalMake(lo[i], hi[i]);
    PetscCheck(!SRIntervalIsNaI(X[i]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SRModelEncloseInterval: box [%g, %g] in dimension %" PetscInt_FMT " is not an interval", lo[i], hi[i], i);
  }
  PetscCall(SRMLPForwardInterval(model->mlp, X, N));
  if (model->type == SR_MODEL_DYNAMICS) {
    for (PetscInt i = 0; i < n; i++)
      Y[i] = SRIntervalAdd(X[i], N[i]);
  } else {
    SRInterval      U[SR_MAX_DIM];
    const PetscBool clipped = SRModelControlIsClipped(model);
    for (PetscInt j = 0; j < sys->nu; j++) U[j] = SRModelControlInterval(model, clipped, N[j]);
    SRSystemStepHeldInterval(sys, X, U, Y);
  }
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(!SRIntervalIsNaI(Y[i]) && !SRIntervalIsEmpty(Y[i]), PETSC_COMM_SELF, PETSC_ERR_FP, "SRModelEncloseInterval: enclosure of dimension %" PetscInt_FMT " is not a valid interval (NaN in the weights?)", i);
    elo[i] = Y[i].lo;
    ehi[i] = Y[i].hi;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
