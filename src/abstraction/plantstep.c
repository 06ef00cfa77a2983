/* The step of the abstraction for a plant file and a network (include/simreach/private/plantstep.h,
   SPEC §16).

   Soundness: the cell's forms cover the cell (CellForms_Private, as odeloop.c); the inputs are
   the file's expressions evaluated in outward-rounded affine arithmetic (SRExprEvalAffine), so
   they enclose the network's inputs over the cell; the network's enclosure (affine forms or
   intervals, src/bounds/netaffine.c, src/model/mlp.c) encloses its outputs for every input
   enclosed; the control expressions, evaluated the same way, enclose the controls; and the
   flow (src/model/system_ode.c) encloses the period's end for every state of the cell and
   every control enclosed, held.  Every link is over the same cell coordinates xi, so the
   enclosure holds for the true closed loop x -> Phi_T(x, u(N(in(x)))).

   Blocks of cells (issue 36): with the interval bound the network runs over SR_ENC_BLOCK
   cells at a time in the batched interval kernel (src/bounds/netinterval.c, the same transforms
   and a sound midpoint-radius pass); each cell's values there depend on that cell alone, so
   a cell's enclosure does not depend on its block (nor on the ranks).  The affine bounds
   (taylor1, affine, crown) stay per cell.  A linear plant's period is one interval matrix for
   every cell (SRPlantPeriod holds it, src/model/flow_linear.c); a nonlinear plant's flow stays
   per cell: its a-priori box and Taylor coefficients are functions of the cell's own forms,
   and one enclosure shared by a block would be the block's, wider for each cell in it
   (docs/systems.md). */
#include <simreach/private/plantstep.h>
#include <simreach/private/netbatch.h>

struct _n_SRPlantStep {
  const SRPlant *pl;
  SRMLP          mlp;
  PetscBool      affine;
  SRNetEnclosure how;
  SRPlantPeriod *P;
  SRAffine      *vars, *val, *ain, *aout, *nwork, *U;
  SRInterval    *iin, *iout;
  double        *dvars, *dval, *din, *dout, *du;
  SRNetIntervalBatch ib;             /* the batched interval kernel (affine false), or NULL */
  double            *blo, *bhi, *Nlo, *Nhi, *nf; /* its block: inputs and outputs (SoA), finiteness */
  bool              *bok;
};

PetscErrorCode SRPlantStepCreate(const SRPlant *pl, SRMLP mlp, PetscBool affine, SRNetEnclosure how, const SRPlantPeriodOptions *o, SRPlantStep *s)
{
  SRPlantStep p;

  PetscFunctionBeginUser;
  PetscCheck(mlp->width[0] == pl->nin, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "the network has %" PetscInt_FMT " inputs; plant file %s has %d input lines", mlp->width[0], pl->path, pl->nin);
  PetscCheck(mlp->width[mlp->nlayers] == pl->nout, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "the network has %" PetscInt_FMT " outputs; plant file %s says outputs %d", mlp->width[mlp->nlayers], pl->path, pl->nout);
  PetscCheck(!pl->select, PETSC_COMM_SELF, PETSC_ERR_SUP, "plant file %s selects among several networks: the abstraction takes one network", pl->path);
  PetscCall(PetscNew(&p));
  p->pl     = pl;
  p->mlp    = mlp;
  p->affine = affine;
  p->how    = how;
  PetscCall(SRPlantPeriodCreate(pl, o, &p->P));
  PetscCall(PetscMalloc6(pl->nvars, &p->vars, pl->dag.n + 1, &p->val, pl->nin + 1, &p->ain, pl->nout + 1, &p->aout, SR_NET_WORK(mlp), &p->nwork, pl->nu + 1, &p->U));
  PetscCall(PetscMalloc2(pl->nin + 1, &p->iin, pl->nout + 1, &p->iout));
  PetscCall(PetscMalloc5(pl->nvars, &p->dvars, pl->dag.n + 1, &p->dval, pl->nin + 1, &p->din, pl->nout + 1, &p->dout, pl->nu + 1, &p->du));
  for (int j = 0; j < pl->nvars; j++) p->vars[j] = SRAffineConstant(0.0), p->dvars[j] = 0.0;
  if (!affine) {
    PetscCall(SRNetIntervalBatchCreate(mlp, &p->ib));
    PetscCall(PetscMalloc6((size_t)pl->nin * SR_ENC_BLOCK, &p->blo, (size_t)pl->nin * SR_ENC_BLOCK, &p->bhi, (size_t)pl->nout * SR_ENC_BLOCK, &p->Nlo, (size_t)pl->nout * SR_ENC_BLOCK, &p->Nhi, SR_ENC_BLOCK, &p->nf, SR_ENC_BLOCK, &p->bok));
  }
  *s = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRPlantStepDestroy(SRPlantStep *s)
{
  PetscFunctionBeginUser;
  if (!*s) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SRPlantPeriodDestroy(&(*s)->P));
  PetscCall(PetscFree6((*s)->vars, (*s)->val, (*s)->ain, (*s)->aout, (*s)->nwork, (*s)->U));
  PetscCall(PetscFree2((*s)->iin, (*s)->iout));
  PetscCall(PetscFree5((*s)->dvars, (*s)->dval, (*s)->din, (*s)->dout, (*s)->du));
  if ((*s)->ib) {
    PetscCall(SRNetIntervalBatchDestroy(&(*s)->ib));
    PetscCall(PetscFree6((*s)->blo, (*s)->bhi, (*s)->Nlo, (*s)->Nhi, (*s)->nf, (*s)->bok));
  }
  PetscCall(PetscFree(*s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the cell [lo, hi] as forms over its n coordinates (c_i = fl(mid), r_i rounded up: they cover it) */
static bool CellForms_Private(int n, const double *lo, const double *hi, SRAffine *F, SRInterval *X)
{
  for (int i = 0; i < n; i++) {
    double c = 0.5 * lo[i] + 0.5 * hi[i], rad = SRMax_Private(SRSubUp(hi[i], c), SRSubUp(c, lo[i]));
    if (!(isfinite(lo[i]) && isfinite(hi[i]) && lo[i] <= hi[i])) return false;
    if (!(lo[i] <= c && c <= hi[i])) c = lo[i], rad = SRSubUp(hi[i], lo[i]);
    F[i] = SRAffineVariable(i, c, rad);
    X[i] = (SRInterval){lo[i], hi[i]};
  }
  return true;
}

/* the cell's forms in s->vars (network outputs 0) and the DAG over them in s->val */
static bool Inputs_Private(SRPlantStep s, const double *lo, const double *hi, SRInterval *X)
{
  const SRPlant *pl = s->pl;
  if (!CellForms_Private(pl->n, lo, hi, s->vars, X)) return false;
  for (int k = 0; k < pl->nout; k++) s->vars[SR_SLOT_Y(k)] = SRAffineConstant(0.0);
  SRExprEvalAffine(&pl->dag, pl->n, s->vars, s->val);
  return true;
}

/* the network's outputs set in s->vars: the controls, then the period */
static bool Period_Private(SRPlantStep s, const SRInterval *X, SRInterval *Y)
{
  const SRPlant *pl = s->pl;
  SRExprEvalAffine(&pl->dag, pl->n, s->vars, s->val);
  for (int j = 0; j < pl->nu; j++) {
    s->U[j] = s->val[pl->u_root[j]];
    if (SRAffineIsNaI(&s->U[j])) return false;
  }
  return SRPlantPeriodEncloseAffine(s->P, X, s->U, Y, NULL);
}

/* one cell with the affine bound (taylor1, affine, crown): the controls as forms over the
   cell's n coordinates, then the period */
static PetscErrorCode EncloseCell_Private(SRPlantStep s, const double *lo, const double *hi, SRInterval *Y, bool *ok)
{
  const SRPlant *pl = s->pl;
  const int      n  = pl->n;
  SRInterval     X[SR_PLANT_MAX_STATES];

  PetscFunctionBeginUser;
  *ok = false;
  if (!Inputs_Private(s, lo, hi, X)) PetscFunctionReturn(PETSC_SUCCESS);
  for (int i = 0; i < pl->nin; i++) {
    s->ain[i] = s->val[pl->in_root[i]];
    if (SRAffineIsNaI(&s->ain[i])) PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!SRMLPEncloseAffine(s->mlp, n, s->ain, s->aout, s->nwork, s->how)) PetscFunctionReturn(PETSC_SUCCESS);
  for (int k = 0; k < pl->nout; k++) s->vars[SR_SLOT_Y(k)] = s->aout[k];
  *ok = Period_Private(s, X, Y);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void Store_Private(PetscInt n, bool ok, const SRInterval *Y, double *E, SRCellStatus *status)
{
  for (PetscInt d = 0; d < n; d++) {
    E[d]     = ok ? Y[d].lo : -INFINITY;
    E[n + d] = ok ? Y[d].hi : INFINITY;
  }
  *status = ok ? SR_CELL_OK : SR_CELL_NONFINITE;
}

/* up to SR_ENC_BLOCK cells with the interval bound: the inputs' ranges of every cell, the
   network over the block in the batched kernel, then each cell's controls and period */
static void EncloseBlock_Private(SRPlantStep s, PetscInt nb, const double *boxes, double *E, SRCellStatus *status)
{
  const SRPlant *pl = s->pl;
  const PetscInt n  = pl->n;
  SRInterval     X[SR_PLANT_MAX_STATES], Y[SR_PLANT_MAX_STATES];

  for (int c = 0; c < SR_ENC_BLOCK; c++) {
    s->bok[c] = c < nb && Inputs_Private(s, boxes + 2 * n * c, boxes + 2 * n * c + n, X);
    for (int i = 0; i < pl->nin; i++) {
      const SRInterval R = s->bok[c] ? SRAffineRange(n, &s->val[pl->in_root[i]]) : SRIntervalPoint(0.0);
      if (!SRIntervalIsBounded(R)) s->bok[c] = false;
      s->blo[i * SR_ENC_BLOCK + c] = s->bok[c] ? R.lo : 0.0; /* an unused or failed slot: a point */
      s->bhi[i * SR_ENC_BLOCK + c] = s->bok[c] ? R.hi : 0.0;
    }
  }
  SRNetIntervalBatchEnclose(s->ib, s->blo, s->bhi, s->Nlo, s->Nhi, s->nf);
  for (PetscInt c = 0; c < nb; c++) {
    bool ok = s->bok[c] && s->nf[c] == 0.0 && Inputs_Private(s, boxes + 2 * n * c, boxes + 2 * n * c + n, X);
    for (int k = 0; ok && k < pl->nout; k++) {
      const SRInterval O = {s->Nlo[k * SR_ENC_BLOCK + c], s->Nhi[k * SR_ENC_BLOCK + c]};
      if (!SRIntervalIsBounded(O)) ok = false;
      else s->vars[SR_SLOT_Y(k)] = SRAffineInterval(O);
    }
    ok = ok && Period_Private(s, X, Y);
    Store_Private(n, ok, Y, E + 2 * n * c, &status[c]);
  }
}

PetscErrorCode SRPlantStepEncloseBoxes(SRPlantStep s, PetscInt nb, const double *boxes, double *E, SRCellStatus *status)
{
  const PetscInt n = s->pl->n;
  SRInterval     Y[SR_PLANT_MAX_STATES];
  PetscLogEvent  ev;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventRegister("SRPlantStep", PETSC_OBJECT_CLASSID, &ev)); /* the existing id after the first call */
  PetscCall(PetscLogEventBegin(ev, 0, 0, 0, 0));
  if (s->ib)
    for (PetscInt c0 = 0; c0 < nb; c0 += SR_ENC_BLOCK) EncloseBlock_Private(s, PetscMin(SR_ENC_BLOCK, nb - c0), boxes + 2 * n * c0, E + 2 * n * c0, status + c0);
  else
    for (PetscInt c = 0; c < nb; c++) {
      bool ok;
      PetscCall(EncloseCell_Private(s, boxes + 2 * n * c, boxes + 2 * n * c + n, Y, &ok));
      Store_Private(n, ok, Y, E + 2 * n * c, &status[c]);
    }
  PetscCall(PetscLogEventEnd(ev, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRPlantStepSimulate(SRPlantStep s, const double *x, const double *w, double *y)
{
  const SRPlant *pl = s->pl;

  PetscFunctionBeginUser;
  for (int i = 0; i < pl->n; i++) s->dvars[i] = x[i];
  SRExprEvalDouble(&pl->dag, s->dvars, s->dval);
  for (int i = 0; i < pl->nin; i++) s->din[i] = s->dval[pl->in_root[i]];
  PetscCall(SRMLPForward(s->mlp, 1, s->din, s->dout)); /* with the network's transforms (SPEC §14) */
  for (int k = 0; k < pl->nout; k++) s->dvars[SR_SLOT_Y(k)] = s->dout[k];
  SRExprEvalDouble(&pl->dag, s->dvars, s->dval);
  for (int j = 0; j < pl->nu; j++) s->du[j] = s->dval[pl->u_root[j]];
  SRPlantPeriodSimulateWith(s->P, x, s->du, w, y);
  PetscFunctionReturn(PETSC_SUCCESS);
}
