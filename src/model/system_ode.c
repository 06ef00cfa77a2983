/* One control period of a plant file with the control held (include/simreach/private/system_ode.h,
   SPEC §15, §16).

   Soundness of SRPlantPeriodEnclose: the cell X is the affine forms x_i = c_i + r_i xi_i over
   xi in [-1, 1]^n (c_i = fl(mid X_i), r_i rounded up, so the forms cover X); the controls and
   disturbances are constant forms (or the caller's forms over the same xi) held over the
   period; SRFlowStep (src/model/flow.c) encloses x(t + s) for every s in the period's
   interval, every xi and every held control and disturbance.  The box Y is the range of the
   result (outward).  Nothing here rounds toward the inside. */
#include <simreach/private/system_ode.h>

#include <stdlib.h>
#include <string.h>

PetscErrorCode SRPlantPeriodSetUp(MPI_Comm comm, const SRPlant *pl)
{
  PetscFunctionBeginUser;
  PetscCheck(pl->discrete || (pl->period_iv.lo >= 0x1p-900 && pl->period_iv.lo <= pl->period_iv.hi && isfinite(pl->period_iv.hi)), comm, PETSC_ERR_ARG_OUTOFRANGE, "plant file %s: period %g; the validated flow takes a finite period >= 2^-900", pl->path, pl->period);
  PetscCheck(pl->n >= 1 && pl->n <= SR_AFFINE_MAX, comm, PETSC_ERR_ARG_OUTOFRANGE, "plant file %s: %d states; the flow's forms have %d coordinates", pl->path, pl->n, SR_AFFINE_MAX);
  { /* -plant_linear_flow false: a linear plant's period by the Taylor flow (for comparison,
       docs/systems.md); read here, before the options are checked, and where the periods are made */
    PetscBool lin = PETSC_TRUE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-plant_linear_flow", &lin, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRPlantPeriodOptionsDefault(SRPlantPeriodOptions *o)
{
  SRFlowOptionsDefault(&o->flow);
  o->symbols      = 0;
  o->sim_substeps = 20;
}

/* doubles of dwork: the vars slots, the DAG values and tangents, the RK4 stages and their tangents */
static size_t DWorkSize_Private(const SRPlant *pl, int np) { return 2 * (size_t)pl->nvars + (size_t)pl->dag.n * (size_t)(1 + np) + (size_t)pl->n * (6 + 6 * (size_t)np) + 8; }

PetscErrorCode SRPlantPeriodCreate(const SRPlant *pl, const SRPlantPeriodOptions *o, SRPlantPeriod **P)
{
  SRPlantPeriod *p;
  const int      n = pl->n;

  PetscFunctionBeginUser;
  PetscCheck(o->flow.order >= 1 && o->flow.order <= 20, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Taylor order %d of the period's flow; allowed 1..20", o->flow.order);
  PetscCheck(o->flow.substeps >= 1 && !(o->flow.substeps & (o->flow.substeps - 1)), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%d sub-steps per period; allowed a power of two", o->flow.substeps);
  PetscCheck(o->symbols >= 0 && n + o->symbols <= SR_AFFINE_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%d noise symbols beside %d states; allowed 0..%d", o->symbols, n, SR_AFFINE_MAX - n);
  PetscCheck(o->sim_substeps >= 1 && o->sim_substeps <= 1000000, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%d RK4 steps per period; allowed 1..1000000", o->sim_substeps);
  PetscCall(PetscNew(&p));
  p->pl = pl;
  p->o  = *o;
  p->m  = n + o->symbols;
  p->np = n + pl->nu;
  p->lin = o->flow.linear ? SRFlowLinearCreate(pl) : NULL; /* NULL: not linear (or discrete) */
  p->o.flow.lin    = p->lin;
  p->o.flow.linear = p->lin != NULL; /* not classified again per cell */
  PetscCall(PetscMalloc1(SRFlowWorkSize(pl, &o->flow) + 16, &p->work));
  PetscCall(PetscMalloc1(pl->nvars, &p->vars));
  /* once: the slots no call writes stay 0 (a call writes the controls and disturbances; the flow the states) */
  for (int j = 0; j < pl->nvars; j++) p->vars[j] = SRAffineConstant(0.0);
  PetscCall(PetscMalloc1(3 * (size_t)n, &p->X));
  PetscCall(PetscMalloc1(n, &p->TB));
  PetscCall(PetscMalloc1(DWorkSize_Private(pl, p->np), &p->dwork));
  p->Y = p->X + n;
  p->T = p->Y + n;
  *P   = p;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRPlantPeriodDestroy(SRPlantPeriod **P)
{
  PetscFunctionBeginUser;
  if (!*P) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*P)->work));
  PetscCall(PetscFree((*P)->vars));
  PetscCall(PetscFree((*P)->X));
  PetscCall(PetscFree((*P)->TB));
  PetscCall(PetscFree((*P)->dwork));
  SRFlowLinearDestroy(&(*P)->lin);
  PetscCall(PetscFree(*P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- simulation (not validated) ------------------------------------------------------------ */

/* the vars slots for a point: controls u, disturbances w (NULL: the boxes' midpoints) */
static void PointVars_Private(const SRPlant *pl, const double *u, const double *w, double *v)
{
  for (int j = 0; j < pl->nvars; j++) v[j] = 0.0;
  for (int j = 0; j < pl->nu; j++) v[SR_SLOT_U(j)] = u[j];
  for (int k = 0; k < pl->nw; k++) v[SR_SLOT_W(k)] = w ? w[k] : SRIntervalMid(pl->wbox[k]);
}

void SRPlantPeriodSimulateWith(SRPlantPeriod *P, const double *x, const double *u, const double *w, double *y)
{
  const SRPlant *pl = P->pl;
  double        *v  = P->dwork;
  PointVars_Private(pl, u, w, v);
  SRFlowSimulate(pl, x, v, pl->period, P->o.sim_substeps, y, v + pl->nvars);
}

/* ---- the enclosure (sound) ------------------------------------------------------------------ */

/* the cell's forms over m coordinates: x_i = c_i + r_i xi_i, covering [lo, hi] (as odeloop.c) */
static bool CellForms_Private(int n, const SRInterval *X, SRAffine *F)
{
  for (int i = 0; i < n; i++) {
    const double lo = X[i].lo, hi = X[i].hi;
    double       c = 0.5 * lo + 0.5 * hi, rad = SRMax_Private(SRSubUp(hi, c), SRSubUp(c, lo));
    if (!(isfinite(lo) && isfinite(hi) && lo <= hi)) return false;
    if (!(lo <= c && c <= hi)) c = lo, rad = SRSubUp(hi, lo);
    F[i] = SRAffineVariable(i, c, rad);
  }
  return true;
}

/* vars, X set: the flow over one period, Y and tube its boxes */
static bool Flow_Private(SRPlantPeriod *P, SRInterval *Y, SRInterval *tube)
{
  const SRPlant *pl = P->pl;
  const int      n = pl->n, m = P->m;
  for (int k = 0; k < pl->nw; k++) P->vars[SR_SLOT_W(k)] = SRAffineInterval(pl->wbox[k]);
  if (!SRFlowStep(pl, m, P->X, P->vars, pl->period_iv, &P->o.flow, P->Y, P->T, P->TB, P->work)) return false;
  for (int i = 0; i < n; i++) {
    const SRInterval R = SRAffineRange(m, &P->Y[i]);
    if (SRAffineIsNaI(&P->Y[i]) || !SRIntervalIsBounded(R)) return false;
  }
  for (int i = 0; i < n; i++) {
    Y[i] = SRAffineRange(m, &P->Y[i]);
    if (tube) tube[i] = P->TB[i];
  }
  return true;
}

bool SRPlantPeriodEncloseWith(SRPlantPeriod *P, const SRInterval *X, const SRInterval *U, SRInterval *Y, SRInterval *tube)
{
  const SRPlant *pl = P->pl;
  if (!CellForms_Private(pl->n, X, P->X)) return false;
  for (int j = 0; j < pl->nu; j++) {
    if (SRIntervalIsNaI(U[j]) || !SRIntervalIsBounded(U[j])) return false;
    P->vars[SR_SLOT_U(j)] = SRAffineInterval(U[j]);
  }
  return Flow_Private(P, Y, tube);
}

bool SRPlantPeriodEncloseAffine(SRPlantPeriod *P, const SRInterval *X, const SRAffine *U, SRInterval *Y, SRInterval *tube)
{
  const SRPlant *pl = P->pl;
  const int      n  = pl->n;
  if (!CellForms_Private(n, X, P->X)) return false;
  for (int j = 0; j < pl->nu; j++) {
    SRAffine a = SRAffineConstant(U[j].c0);
    /* only the cell's n coordinates are the caller's; the symbols start empty */
    for (int i = 0; i < n; i++) a.c[i] = U[j].c[i];
    a.r = U[j].r;
    if (SRAffineIsNaI(&a) || !SRIntervalIsBounded(SRAffineRange(n, &a))) return false;
    P->vars[SR_SLOT_U(j)] = a;
  }
  return Flow_Private(P, Y, tube);
}

int SRPlantPeriodEncloseBlock(SRPlantPeriod *P, int nb, const double *boxes, const double *U, double *E, bool *ok)
{
  const int  n = P->pl->n, nu = P->pl->nu;
  int        bad = 0;
  SRInterval X[SR_PLANT_MAX_STATES], Uc[SR_PLANT_MAX_STATES], Y[SR_PLANT_MAX_STATES];
  for (int c = 0; c < nb; c++) {
    bool good;
    for (int i = 0; i < n; i++) X[i] = (SRInterval){boxes[2 * n * c + i], boxes[2 * n * c + n + i]};
    for (int j = 0; j < nu; j++) Uc[j] = (SRInterval){U[2 * nu * c + j], U[2 * nu * c + nu + j]};
    good = SRPlantPeriodEncloseWith(P, X, Uc, Y, NULL);
    for (int i = 0; i < n; i++) {
      E[2 * n * c + i]     = good ? Y[i].lo : -INFINITY;
      E[2 * n * c + n + i] = good ? Y[i].hi : INFINITY;
    }
    if (ok) ok[c] = good;
    bad += !good;
  }
  return bad;
}

/* ---- the Jacobian of the RK4 map (forward mode, not validated) ----------------------------- */

/* values val and tangents tan (np per node) of the DAG at the state s with tangents S (n x np);
   control j has tangent e_{n+j}, every other slot 0 */
static void EvalTangent_Private(const SRPlant *pl, int np, const double *v, const double *s, const double *S, double *val, double *tg)
{
  const SRExpr *e = &pl->dag;
  const int     n = pl->n;
  for (int k = 0; k < e->n; k++) {
    const SRExprNode *x = &e->node[k];
    const double      a = x->a >= 0 ? val[x->a] : 0, b = x->b >= 0 ? val[x->b] : 0;
    const double     *da = x->a >= 0 ? tg + (size_t)x->a * np : NULL, *db = x->b >= 0 ? tg + (size_t)x->b * np : NULL;
    double           *t  = tg + (size_t)k * np, r = 0, fa = 0; /* value, d value / d a (unary) */
    switch (x->op) {
    case SR_X_CONST:
      val[k] = SRIntervalMid(x->value);
      for (int p = 0; p < np; p++) t[p] = 0;
      continue;
    case SR_X_VAR:
      val[k] = x->var < n ? s[x->var] : v[x->var];
      for (int p = 0; p < np; p++) t[p] = x->var < n ? S[(size_t)x->var * np + p] : (x->var >= SR_SLOT_U(0) && x->var < SR_SLOT_U(pl->nu) && p == n + x->var - SR_SLOT_U(0));
      continue;
    case SR_X_ADD:
      val[k] = a + b;
      for (int p = 0; p < np; p++) t[p] = da[p] + db[p];
      continue;
    case SR_X_SUB:
      val[k] = a - b;
      for (int p = 0; p < np; p++) t[p] = da[p] - db[p];
      continue;
    case SR_X_MUL:
      val[k] = a * b;
      for (int p = 0; p < np; p++) t[p] = da[p] * b + a * db[p];
      continue;
    case SR_X_DIV:
      val[k] = a / b;
      for (int p = 0; p < np; p++) t[p] = (da[p] - val[k] * db[p]) / b;
      continue;
    case SR_X_LE: /* piecewise constant (SPEC §15 turn 4): as SRExprEvalDouble */
    case SR_X_LT:
      val[k] = x->op == SR_X_LE ? (a <= b ? 1.0 : 0.0) : (a < b ? 1.0 : 0.0);
      for (int p = 0; p < np; p++) t[p] = 0;
      continue;
    case SR_X_IF: { /* the chosen branch's value and tangent (else is node x->var) */
      const double *tc = a != 0 ? db : tg + (size_t)x->var * np;
      val[k]           = a != 0 ? b : val[x->var];
      for (int p = 0; p < np; p++) t[p] = tc[p];
    }
      continue;
    case SR_X_NEG: r = -a, fa = -1; break;
    case SR_X_SQR: r = a * a, fa = 2 * a; break;
    case SR_X_SIN: r = sin(a), fa = cos(a); break;
    case SR_X_COS: r = cos(a), fa = -sin(a); break;
    case SR_X_TAN: r = tan(a), fa = 1 + r * r; break;
    case SR_X_EXP: r = exp(a), fa = r; break;
    case SR_X_LOG: r = log(a), fa = 1 / a; break;
    case SR_X_SQRT: r = sqrt(a), fa = 0.5 / r; break;
    case SR_X_TANH: r = tanh(a), fa = 1 - r * r; break;
    }
    val[k] = r;
    for (int p = 0; p < np; p++) t[p] = fa * da[p];
  }
}

/* the field g and its tangent at the stage (s, S): k (n), dK (n x np) */
static void FieldTangent_Private(const SRPlant *pl, int np, const double *v, const double *s, const double *S, double *val, double *tg, double *k, double *dK)
{
  EvalTangent_Private(pl, np, v, s, S, val, tg);
  for (int i = 0; i < pl->n; i++) {
    k[i] = val[pl->f_root[i]];
    memcpy(dK + (size_t)i * np, tg + (size_t)pl->f_root[i] * np, (size_t)np * sizeof *dK);
  }
}

void SRPlantPeriodJacobianWith(SRPlantPeriod *P, const double *x, const double *u, double *Jx, double *Ju)
{
  const SRPlant *pl = P->pl;
  const int      n = pl->n, np = P->np, nsub = P->o.sim_substeps;
  const size_t   nn = (size_t)n * np;
  double        *v = P->dwork, *val = v + pl->nvars, *tg = val + pl->dag.n, *y = tg + (size_t)pl->dag.n * np;
  double        *ys = y + n, *k1 = ys + n, *k2 = k1 + n, *k3 = k2 + n, *k4 = k3 + n;
  double        *S = k4 + n, *Ss = S + nn, *d1 = Ss + nn, *d2 = d1 + nn, *d3 = d2 + nn, *d4 = d3 + nn;
  const double   dt = pl->period / nsub;

  PointVars_Private(pl, u, NULL, v);
  for (int i = 0; i < n; i++) {
    y[i] = x[i];
    for (int p = 0; p < np; p++) S[(size_t)i * np + p] = p == i;
  }
  if (pl->discrete) { /* one update (SPEC §15 turn 4) */
    FieldTangent_Private(pl, np, v, y, S, val, tg, k1, d1);
    memcpy(S, d1, nn * sizeof *S);
  } else
    for (int s = 0; s < nsub; s++) { /* SRFlowSimulate's RK4 steps, with their tangents */
      FieldTangent_Private(pl, np, v, y, S, val, tg, k1, d1);
      for (size_t i = 0; i < (size_t)n; i++) ys[i] = y[i] + 0.5 * dt * k1[i];
      for (size_t i = 0; i < nn; i++) Ss[i] = S[i] + 0.5 * dt * d1[i];
      FieldTangent_Private(pl, np, v, ys, Ss, val, tg, k2, d2);
      for (size_t i = 0; i < (size_t)n; i++) ys[i] = y[i] + 0.5 * dt * k2[i];
      for (size_t i = 0; i < nn; i++) Ss[i] = S[i] + 0.5 * dt * d2[i];
      FieldTangent_Private(pl, np, v, ys, Ss, val, tg, k3, d3);
      for (size_t i = 0; i < (size_t)n; i++) ys[i] = y[i] + dt * k3[i];
      for (size_t i = 0; i < nn; i++) Ss[i] = S[i] + dt * d3[i];
      FieldTangent_Private(pl, np, v, ys, Ss, val, tg, k4, d4);
      for (size_t i = 0; i < (size_t)n; i++) y[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
      for (size_t i = 0; i < nn; i++) S[i] += dt / 6.0 * (d1[i] + 2.0 * d2[i] + 2.0 * d3[i] + d4[i]);
    }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) Jx[i * n + j] = S[(size_t)i * np + j];
    for (int j = 0; j < pl->nu; j++)
      if (Ju) Ju[i * pl->nu + j] = S[(size_t)i * np + n + j];
  }
}

/* ---- the plain calls ------------------------------------------------------------------------- */

static SRPlantPeriod *Default_Private(const SRPlant *pl)
{
  SRPlantPeriodOptions o;
  SRPlantPeriod       *P = NULL;
  SRPlantPeriodOptionsDefault(&o);
  if (SRPlantPeriodCreate(pl, &o, &P)) return NULL;
  return P;
}

void SRPlantPeriodSimulate(const SRPlant *pl, const double *x, const double *u, double *y)
{
  SRPlantPeriod *P = Default_Private(pl);
  if (!P) {
    for (int i = 0; i < pl->n; i++) y[i] = NAN;
    return;
  }
  SRPlantPeriodSimulateWith(P, x, u, NULL, y);
  (void)SRPlantPeriodDestroy(&P);
}

bool SRPlantPeriodEnclose(const SRPlant *pl, const SRInterval *X, const SRInterval *U, SRInterval *Y)
{
  SRPlantPeriod *P = Default_Private(pl);
  bool           ok;
  if (!P) return false;
  ok = SRPlantPeriodEncloseWith(P, X, U, Y, NULL);
  (void)SRPlantPeriodDestroy(&P);
  return ok;
}

void SRPlantPeriodJacobian(const SRPlant *pl, const double *x, const double *u, double *Jx, double *Ju)
{
  SRPlantPeriod *P = Default_Private(pl);
  if (!P) {
    for (int i = 0; i < pl->n * pl->n; i++) Jx[i] = NAN;
    for (int i = 0; Ju && i < pl->n * pl->nu; i++) Ju[i] = NAN;
    return;
  }
  SRPlantPeriodJacobianWith(P, x, u, Jx, Ju);
  (void)SRPlantPeriodDestroy(&P);
}
