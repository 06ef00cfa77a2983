/* A system made from a plant file (SPEC §16): step, Jacobian, interval extension and taylor1
   step from the file's expression DAG (src/numerics/expr_eval.c), the domain, control bound,
   reference and regulated states from its 'domain', 'bound', 'reference' and 'regulate' lines,
   its constants as options -NAME_CONST.

   A discrete-time plant ('next' lines) steps by one update: the double step evaluates the DAG
   in the order the file writes it (the shipped files are written in the order of the C steps
   they replace, so the numbers are the same), the interval and taylor1 steps evaluate it
   through linear forms (src/numerics/expr_linear.c: sound, every operation outward rounded;
   for the shipped files the operations of the C steps they replace).  A continuous-time plant ('der' lines) steps by one control period with u held,
   through the validated flow of src/model/system_ode.c (SPEC §15). */
#include <simreach/system.h>
#include <simreach/private/fileio.h>
#include <simreach/private/system_ode.h>

#include <string.h>

/* ---- the steps ------------------------------------------------------------------------------ */

/* the scratch layouts: wd = [vars: SR_PLANT_NVARS][values: dag.n][tangents: dag.n * (n + nu)],
   wi and wt = [vars: SR_PLANT_NVARS][values: dag.n]; the variable slots other than states and
   controls stay 0 (the DAG's control and input lines name y1.., unused by the step) */
static void SRPlantStepNext_Private(SRSystem s, const double *x, const double *u, double *y)
{
  const SRPlant *pl   = s->plant;
  double        *vars = s->wd, *val = s->wd + SR_PLANT_NVARS;
  for (PetscInt i = 0; i < s->n; i++) vars[i] = x[i];
  for (PetscInt j = 0; j < s->nu; j++) vars[SR_SLOT_U(j)] = u[j];
  SRExprEvalDouble(&pl->dag, vars, val);
  for (PetscInt i = 0; i < s->n; i++) y[i] = val[pl->f_root[i]];
}

static void SRPlantJacobianNext_Private(SRSystem s, const double *x, const double *u, double *Jx, double *Ju)
{
  const SRPlant *pl   = s->plant;
  const int      nd   = (int)(s->n + s->nu);
  double        *vars = s->wd, *val = s->wd + SR_PLANT_NVARS, *t = val + pl->dag.n;
  int            slot[2 * SR_MAX_DIM];
  for (PetscInt i = 0; i < s->n; i++) vars[i] = x[i], slot[i] = (int)i;
  for (PetscInt j = 0; j < s->nu; j++) vars[SR_SLOT_U(j)] = u[j], slot[s->n + j] = SR_SLOT_U((int)j);
  SRExprEvalTangent(&pl->dag, vars, nd, slot, val, t);
  for (PetscInt i = 0; i < s->n; i++) {
    const double *d = &t[pl->f_root[i] * nd];
    for (PetscInt k = 0; k < s->n; k++) Jx[i * s->n + k] = d[k];
    if (Ju)
      for (PetscInt j = 0; j < s->nu; j++) Ju[i * s->nu + j] = d[s->n + j];
  }
}

static void SRPlantStepIntervalNext_Private(SRSystem s, const SRInterval *X, const SRInterval *U, SRInterval *Y)
{
  const SRPlant *pl   = s->plant;
  SRInterval    *vars = s->wi, *val = s->wi + SR_PLANT_NVARS;
  for (PetscInt i = 0; i < s->n; i++) vars[i] = X[i];
  for (PetscInt j = 0; j < s->nu; j++) vars[SR_SLOT_U(j)] = U[j];
  SRExprEvalIntervalLinear(&pl->dag, s->xuses, pl->n, pl->f_root, vars, Y, s->xform, val);
}

static void SRPlantStepTaylorNext_Private(SRSystem s, const SRTaylor *X, const SRTaylor *U, SRTaylor *Y)
{
  const SRPlant *pl   = s->plant;
  SRTaylor      *vars = s->wt, *val = s->wt + SR_PLANT_NVARS;
  for (PetscInt i = 0; i < s->n; i++) vars[i] = X[i];
  for (PetscInt j = 0; j < s->nu; j++) vars[SR_SLOT_U(j)] = U[j];
  SRExprEvalTaylorLinear(&pl->dag, s->xuses, pl->n, pl->f_root, s->n, vars, Y, s->xform, val);
}

/* a continuous-time plant: one control period, u held (SPEC §15, §16) */
static void SRPlantStepDer_Private(SRSystem s, const double *x, const double *u, double *y) { SRPlantPeriodSimulate(s->plant, x, u, y); }

static void SRPlantJacobianDer_Private(SRSystem s, const double *x, const double *u, double *Jx, double *Ju)
{
  double ju[SR_MAX_DIM * SR_MAX_DIM];
  SRPlantPeriodJacobian(s->plant, x, u, Jx, Ju ? Ju : ju);
}

static void SRPlantStepIntervalDer_Private(SRSystem s, const SRInterval *X, const SRInterval *U, SRInterval *Y)
{
  if (!SRPlantPeriodEnclose(s->plant, X, U, Y))
    for (PetscInt i = 0; i < s->n; i++) Y[i] = SRIntervalNaI(); /* no enclosure: the caller flags the cell */
}

/* the period's interval enclosure over the models' ranges, as remainders (sound, not tight) */
static void SRPlantStepTaylorDer_Private(SRSystem s, const SRTaylor *X, const SRTaylor *U, SRTaylor *Y)
{
  SRInterval XI[SR_MAX_DIM], UI[SR_MAX_DIM], YI[SR_MAX_DIM];
  for (PetscInt i = 0; i < s->n; i++) XI[i] = SRTaylorRange(s->n, X[i]);
  for (PetscInt j = 0; j < s->nu; j++) UI[j] = SRTaylorRange(s->n, U[j]);
  SRPlantStepIntervalDer_Private(s, XI, UI, YI);
  for (PetscInt i = 0; i < s->n; i++) {
    Y[i]   = SRTaylorConstant(s->n, 0.0);
    Y[i].r = YI[i];
  }
}

/* ---- making the system ---------------------------------------------------------------------- */

/* the fields that follow from the parsed plant (after every (re-)parse) */
static PetscErrorCode SRSystemFromPlant_Private(MPI_Comm comm, SRSystem s)
{
  const SRPlant *pl = s->plant;
  const char    *f  = s->plant_path;
  PetscInt       np = 0;

  PetscFunctionBeginUser;
  PetscCheck(pl->n <= SR_MAX_DIM, comm, PETSC_ERR_ARG_WRONG, "plant file %s: %d states; the abstraction and the study take at most %d (SR_MAX_DIM)", f, pl->n, SR_MAX_DIM);
  PetscCheck(pl->nu <= SR_MAX_DIM, comm, PETSC_ERR_ARG_WRONG, "plant file %s: %d controls; the abstraction and the study take at most %d (SR_MAX_DIM)", f, pl->nu, SR_MAX_DIM);
  PetscCheck(pl->nw == 0, comm, PETSC_ERR_ARG_WRONG, "plant file %s: disturbance '%s': the abstraction and the study take plants without disturbances (closedloop takes them)", f, pl->dist[0]);
  for (int i = 0; i < pl->n; i++)
    PetscCheck(pl->has_domain[i], comm, PETSC_ERR_FILE_UNEXPECTED, "plant file %s: no 'domain %s in [LO, HI]' line (the abstraction needs the domain D of every state, SPEC §16)", f, pl->state[i]);
  /* a file with input and control lines and no bound states its closed loop (SPEC §16:
     -model controller is then x -> Phi_T(x, u(x, N(in(x)))), src/model/model_loop.c) */
  PetscCheck(pl->nu == 0 || (pl->nin > 0 && !pl->reference) || pl->umax > 0, comm, PETSC_ERR_FILE_UNEXPECTED, "plant file %s: no 'bound EXPR' line (the control bound |u| <= u_max of SPEC §3; a file without one is the loop of its input and control lines and has no 'reference')", f);
  PetscCheck(pl->nin <= SR_MAX_DIM, comm, PETSC_ERR_ARG_WRONG, "plant file %s: %d input lines; the abstraction and the study take at most %d network inputs (SR_MAX_DIM)", f, pl->nin, SR_MAX_DIM);
  s->n  = pl->n;
  s->nu = pl->nu;
  for (int i = 0; i < pl->n; i++) s->dlo[i] = pl->dlo[i], s->dhi[i] = pl->dhi[i];
  s->umax = pl->umax;
  s->dt   = pl->period;
  for (int k = 0; k < 5; k++) s->pconst[k] = -1;
  for (int k = 0; k < 8; k++) s->param[k] = 0;
  for (int c = 0; c < pl->nconst; c++) {
    if (!strcmp(pl->cname[c], "dt")) s->pconst[3] = c, s->dt = pl->cx[c];
    else if (!strcmp(pl->cname[c], "umax")) s->pconst[4] = pl->umax == pl->cx[c] ? c : -1; /* 'bound umax': u_max is that constant */
    else if (np < 3) s->pconst[np] = c, s->param[np++] = pl->cx[c];
  }
  PetscCheck(s->dt > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -%s_dt = %g (plant file %s): the time step must be > 0", s->name, s->dt, f);
  s->has_controller = (PetscBool)(pl->reference != 0);
  s->nreg           = pl->nreg ? pl->nreg : pl->n;
  for (PetscInt i = 0; i < s->nreg; i++) s->reg[i] = pl->nreg ? pl->reg[i] : i;
  for (PetscInt i = 0; i < SR_MAX_DIM * SR_MAX_DIM; i++) s->K[i] = 0;
  if (pl->discrete) {
    s->step = SRPlantStepNext_Private, s->step_jacobian = SRPlantJacobianNext_Private;
    s->step_interval = SRPlantStepIntervalNext_Private, s->step_taylor = SRPlantStepTaylorNext_Private;
  } else {
    s->step = SRPlantStepDer_Private, s->step_jacobian = SRPlantJacobianDer_Private;
    s->step_interval = SRPlantStepIntervalDer_Private, s->step_taylor = SRPlantStepTaylorDer_Private;
    PetscCall(SRPlantPeriodSetUp(comm, pl));
  }
  /* the scratch (single-threaded use; the slots beyond states and controls stay 0) */
  PetscCall(PetscFree(s->wd));
  PetscCall(PetscFree(s->wi));
  PetscCall(PetscFree(s->wt));
  PetscCall(PetscCalloc1(SR_PLANT_NVARS + (size_t)pl->dag.n * (1 + pl->n + pl->nu), &s->wd));
  PetscCall(PetscMalloc1(SR_PLANT_NVARS + (size_t)pl->dag.n, &s->wi));
  PetscCall(PetscMalloc1(SR_PLANT_NVARS + (size_t)pl->dag.n, &s->wt));
  for (int k = 0; k < SR_PLANT_NVARS; k++) s->wi[k] = SRIntervalPoint(0.0), s->wt[k] = SRTaylorConstant(SR_MAX_DIM, 0.0);
  PetscCall(PetscFree(s->xuses));
  PetscCall(PetscFree(s->xform));
  PetscCall(PetscMalloc1(pl->dag.n + 1, &s->xuses));
  PetscCall(PetscMalloc(SRExprLinearWorkSize(&pl->dag) + 1, &s->xform));
  SRExprUses(&pl->dag, pl->n, pl->f_root, s->xuses);
  /* a reference by expressions: K = -d u_ref / dx at x = 0 (for the spectral radius, SPEC §2) */
  if (pl->reference == 2) {
    double *vars = s->wd, *val = s->wd + SR_PLANT_NVARS, *t = val + pl->dag.n;
    int     slot[SR_MAX_DIM];
    for (PetscInt i = 0; i < s->n; i++) vars[i] = 0.0, slot[i] = (int)i;
    SRExprEvalTangent(&pl->dag, vars, (int)s->n, slot, val, t);
    for (PetscInt j = 0; j < s->nu; j++)
      for (PetscInt i = 0; i < s->n; i++) s->K[j * s->n + i] = 0.0 - t[pl->ref_root[j] * s->n + i];
  }
  {
    uint64_t h = SRChecksum64(s->plant_text, strlen(s->plant_text), SRChecksumSeed("plant", 0, 0));
    for (int k = 0; k < s->consts.n; k++) {
      h = SRChecksum64(s->consts.name[k], strlen(s->consts.name[k]), h);
      h = SRChecksum64(&s->consts.value[k], sizeof(double), h);
    }
    s->plant_digest = h;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRSystemParse_Private(MPI_Comm comm, SRSystem s)
{
  PetscFunctionBeginUser;
  if (s->plant) SRPlantFree(s->plant);
  else PetscCall(PetscNew(&s->plant));
  PetscCall(SRPlantParseConsts(comm, s->plant_path, s->plant_text, &s->consts, s->plant));
  PetscCall(SRSystemFromPlant_Private(comm, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSystemRebuild(MPI_Comm comm, SRSystem s)
{
  const SRPlant *pl = s->plant;

  PetscFunctionBeginUser;
  /* param[0..2], dt and umax back to their constants */
  for (int k = 0; k < 5; k++) {
    const int    c = s->pconst[k];
    const double v = k < 3 ? s->param[k] : (k == 3 ? s->dt : s->umax);
    int          o;
    if (c < 0) continue;
    if (!memcmp(&v, &pl->cx[c], sizeof v)) continue;
    for (o = 0; o < s->consts.n; o++)
      if (!strcmp(s->consts.name[o], pl->cname[c])) break;
    if (o == s->consts.n) PetscCall(PetscStrncpy(s->consts.name[s->consts.n++], pl->cname[c], SR_PLANT_NAME));
    s->consts.value[o] = v;
  }
  PetscCall(SRSystemParse_Private(comm, s));
  PetscCall(SRSystemSetControlSteps(comm, s, s->control_steps, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSystemCreateFromPlantText(MPI_Comm comm, const char optname[], const char where[], const char text[], const char prefix[], SRSystem *sys)
{
  SRSystem s;
  SRPlant  pl0;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&s));
  PetscCall(PetscStrncpy(s->name, optname, sizeof s->name));
  PetscCall(PetscStrncpy(s->plant_path, where, sizeof s->plant_path));
  PetscCall(PetscStrallocpy(text, &s->plant_text));
  s->control_steps = 1;
  /* the file's constants name the options (SPEC §16: constants are options) */
  PetscCall(SRPlantParse(comm, where, text, &pl0));
  PetscOptionsBegin(comm, prefix, "System constants (SPEC 2, 16)", "SRSystem");
  for (int c = 0; c < pl0.nconst; c++) {
    char      opt[2 * SR_PLANT_NAME + 8], help[128];
    double    v = pl0.cx[c];
    PetscBool set;
    PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_%s", optname, pl0.cname[c]));
    PetscCall(PetscSNPrintf(help, sizeof help, "constant %s of the plant file %s", pl0.cname[c], where));
    PetscCall(PetscOptionsReal(opt, help, "SRSystemCreate", v, &v, &set));
    PetscCheck(isfinite(v), comm, PETSC_ERR_ARG_OUTOFRANGE, "option %s%s = %g: must be finite", prefix ? prefix : "", opt + 1, v);
    /* every constant is its double, a point (SPEC §2: the constants are options, doubles) */
    PetscCall(PetscStrncpy(s->consts.name[s->consts.n], pl0.cname[c], SR_PLANT_NAME));
    s->consts.value[s->consts.n++] = v;
  }
  PetscCall(PetscOptionsInt("-control_steps", "plant steps per control, the control held (zero-order hold) in -model controller, >= 1 (SPEC 2)", "SRSystemCreate", s->control_steps, &s->control_steps, NULL));
  PetscOptionsEnd();
  SRPlantFree(&pl0);
  PetscCheck(s->control_steps >= 1 && s->control_steps <= SR_MAX_CONTROL_STEPS, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -%scontrol_steps = %" PetscInt_FMT ": allowed is 1..%d", prefix ? prefix : "", s->control_steps, SR_MAX_CONTROL_STEPS);
  PetscCall(SRSystemParse_Private(comm, s));
  PetscCall(SRSystemSetControlSteps(comm, s, s->control_steps, PETSC_TRUE));
  *sys = s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSystemCreateFromPlantFile(MPI_Comm comm, const char path[], const char prefix[], SRSystem *sys)
{
  char *text;

  PetscFunctionBeginUser;
  PetscCall(SRPlantReadText(comm, path, &text));
  {
    PetscErrorCode ierr = SRSystemCreateFromPlantText(comm, "plant", path, text, prefix, sys);
    free(text);
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSystemCreate(MPI_Comm comm, const char name[], const char prefix[], SRSystem *sys)
{
  const char *text;
  char        where[64];

  PetscFunctionBeginUser;
  PetscCheck(name, comm, PETSC_ERR_ARG_NULL, "system name is NULL; allowed: %s", SRSystemNames());
  text = SRSystemShippedPlant(name);
  PetscCheck(text, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "unknown system -sys %s; allowed: %s (or -plant FILE)", name, SRSystemNames());
  PetscCall(PetscSNPrintf(where, sizeof where, "jobs/plants/%s.txt", name));
  PetscCall(SRSystemCreateFromPlantText(comm, name, where, text, prefix, sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the reference controller (SPEC §2) ---------------------------------------------------- */

/* u = clip(-K x) for 'reference lqr', u = clip(EXPR) for expressions; leaves u untouched when the
   system has none (SRModelCreate refuses that combination) */
void SRSystemReferenceControl(SRSystem s, const double *x, double *u)
{
  const SRPlant *pl = s->plant;
  if (!s->has_controller || s->nu == 0) return;
  if (pl->reference == 1) {
    for (PetscInt j = 0; j < s->nu; j++) {
      double v = 0.0;
      for (PetscInt i = 0; i < s->n; i++) v -= s->K[j * s->n + i] * x[i];
      u[j] = fmin(fmax(v, -s->umax), s->umax);
    }
  } else {
    double *vars = s->wd, *val = s->wd + SR_PLANT_NVARS;
    for (PetscInt i = 0; i < s->n; i++) vars[i] = x[i];
    SRExprEvalDouble(&pl->dag, vars, val);
    for (PetscInt j = 0; j < s->nu; j++) u[j] = fmin(fmax(val[pl->ref_root[j]], -s->umax), s->umax);
  }
}

void SRSystemReferenceStep(SRSystem sys, const double *x, double *y)
{
  double u[SR_MAX_DIM] = { 0 };
  SRSystemReferenceControl(sys, x, u);
  sys->step(sys, x, u, y);
}

/* -sys NAME or -plant FILE from the options database opts (NULL: the global one); -sys and -plant
   together are refused in one line (SPEC §16) */
PetscErrorCode SRSystemCreateFromOptions(MPI_Comm comm, PetscOptions opts, const char prefix[], SRSystem *sys)
{
  char      name[16] = "pendulum", path[PETSC_MAX_PATH_LEN] = "";
  PetscBool sys_set, plant_set;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(opts, prefix, "-sys", name, sizeof name, &sys_set));
  PetscCall(PetscOptionsGetString(opts, prefix, "-plant", path, sizeof path, &plant_set));
  PetscCheck(!(sys_set && plant_set), comm, PETSC_ERR_ARG_INCOMP, "-sys %s -plant %s: give one system, a shipped one (-sys) or a plant file (-plant)", name, path);
  PetscCheck(!plant_set || path[0], comm, PETSC_ERR_ARG_WRONG, "-plant: give a plant file (docs/arch.md)");
  if (opts) PetscCall(PetscOptionsPush(opts));
  {
    PetscErrorCode ierr = plant_set ? SRSystemCreateFromPlantFile(comm, path, prefix, sys) : SRSystemCreate(comm, name, prefix, sys);
    if (opts) PetscCall(PetscOptionsPop());
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
