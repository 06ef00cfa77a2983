/* Soundness suite of the validated flow (SPEC §15, §7): for each plant file, random boxes
   (relative sizes 1, 1/10, 1/100 of a given box), controls held in random sub-intervals of a
   given control box and the plant's disturbances: one control period enclosed by SRFlowStep
   at order 4 (one sub-step) and order 6 (two sub-steps), then sampled points (the box's corners first)
   integrated in 128-bit MPFR by classical RK4 (512 and 1024 steps per period; an escape only counts when it
   exceeds 10x their difference) must lie in the affine forms evaluated at their own
   coordinates xi, at the end of the period and at 16 dense times inside the tube.  The
   vector field of the DAG is also evaluated in MPFR at the sampled points and must lie in
   its affine (interval) evaluation.  A planted shrink of the result (o.shrink = 0.5) must be
   caught.
     test_flow PLANT lo1,hi1,...,lon,hin ulo1,uhi1,... [PLANT box ubox ...] */
#include <mpfr.h>
#include <petscsys.h>
#include <simreach/odeflow.h>
#include <stdio.h>
#include <stdlib.h>

#define PREC 128

typedef struct {
  const SRPlant *pl;
  mpfr_t        *v, *var, *k[4], *y, t, s;
} MOracle;

static void MOCreate(MOracle *o, const SRPlant *pl)
{
  o->pl  = pl;
  o->v   = malloc(sizeof(mpfr_t) * (pl->dag.n + 1));
  o->var = malloc(sizeof(mpfr_t) * (pl->nvars + 1));
  o->y   = malloc(sizeof(mpfr_t) * pl->n);
  for (int i = 0; i < pl->dag.n; i++)
    mpfr_init2(o->v[i], PREC);
  for (int i = 0; i < pl->nvars; i++)
    mpfr_init2(o->var[i], PREC);
  for (int j = 0; j < 4; j++) {
    o->k[j] = malloc(sizeof(mpfr_t) * pl->n);
    for (int i = 0; i < pl->n; i++)
      mpfr_init2(o->k[j][i], PREC);
  }
  for (int i = 0; i < pl->n; i++)
    mpfr_init2(o->y[i], PREC);
  mpfr_inits2(PREC, o->t, o->s, (mpfr_ptr)0);
}

/* every node of the DAG at o->var */
static void MOEval(MOracle *o)
{
  const SRExpr *e = &o->pl->dag;
  for (int i = 0; i < e->n; i++) {
    const SRExprNode *x = &e->node[i];
    mpfr_ptr          r = o->v[i];
    mpfr_srcptr       a = x->a >= 0 ? o->v[x->a] : NULL, b = x->b >= 0 ? o->v[x->b] : NULL;
    switch (x->op) {
    case SR_X_CONST:
      mpfr_set_d(r, x->value.lo, MPFR_RNDN), mpfr_add_d(r, r, x->value.hi, MPFR_RNDN), mpfr_div_2ui(r, r, 1, MPFR_RNDN);
      break;
    case SR_X_VAR:
      mpfr_set(r, o->var[x->var], MPFR_RNDN);
      break;
    case SR_X_ADD:
      mpfr_add(r, a, b, MPFR_RNDN);
      break;
    case SR_X_SUB:
      mpfr_sub(r, a, b, MPFR_RNDN);
      break;
    case SR_X_MUL:
      mpfr_mul(r, a, b, MPFR_RNDN);
      break;
    case SR_X_DIV:
      mpfr_div(r, a, b, MPFR_RNDN);
      break;
    case SR_X_NEG:
      mpfr_neg(r, a, MPFR_RNDN);
      break;
    case SR_X_SQR:
      mpfr_sqr(r, a, MPFR_RNDN);
      break;
    case SR_X_SIN:
      mpfr_sin(r, a, MPFR_RNDN);
      break;
    case SR_X_COS:
      mpfr_cos(r, a, MPFR_RNDN);
      break;
    case SR_X_TAN:
      mpfr_tan(r, a, MPFR_RNDN);
      break;
    case SR_X_EXP:
      mpfr_exp(r, a, MPFR_RNDN);
      break;
    case SR_X_LOG:
      mpfr_log(r, a, MPFR_RNDN);
      break;
    case SR_X_SQRT:
      mpfr_sqrt(r, a, MPFR_RNDN);
      break;
    case SR_X_TANH:
      mpfr_tanh(r, a, MPFR_RNDN);
      break;
    case SR_X_LE:
      mpfr_set_ui(r, mpfr_lessequal_p(a, b) ? 1 : 0, MPFR_RNDN);
      break;
    case SR_X_LT:
      mpfr_set_ui(r, mpfr_less_p(a, b) ? 1 : 0, MPFR_RNDN);
      break;
    case SR_X_IF:
      mpfr_set(r, mpfr_zero_p(a) ? o->v[x->var] : b, MPFR_RNDN);
      break;
    }
  }
}

static void MOField(MOracle *o, mpfr_t *x, mpfr_t *out)
{
  for (int i = 0; i < o->pl->n; i++)
    mpfr_set(o->var[i], x[i], MPFR_RNDN);
  MOEval(o);
  for (int i = 0; i < o->pl->n; i++)
    mpfr_set(out[i], o->v[o->pl->f_root[i]], MPFR_RNDN);
}

/* x (MPFR, in/out) advanced by time h in N RK4 steps */
static void MORK4(MOracle *o, mpfr_t *x, double h, int N)
{
  const int n = o->pl->n;
  mpfr_t    dt;
  mpfr_init2(dt, PREC);
  mpfr_set_d(dt, h, MPFR_RNDN);
  mpfr_div_ui(dt, dt, (unsigned long)N, MPFR_RNDN);
  for (int s = 0; s < N; s++) {
    MOField(o, x, o->k[0]);
    for (int i = 0; i < n; i++)
      mpfr_mul(o->t, o->k[0][i], dt, MPFR_RNDN), mpfr_div_2ui(o->t, o->t, 1, MPFR_RNDN), mpfr_add(o->y[i], x[i], o->t, MPFR_RNDN);
    MOField(o, o->y, o->k[1]);
    for (int i = 0; i < n; i++)
      mpfr_mul(o->t, o->k[1][i], dt, MPFR_RNDN), mpfr_div_2ui(o->t, o->t, 1, MPFR_RNDN), mpfr_add(o->y[i], x[i], o->t, MPFR_RNDN);
    MOField(o, o->y, o->k[2]);
    for (int i = 0; i < n; i++)
      mpfr_mul(o->t, o->k[2][i], dt, MPFR_RNDN), mpfr_add(o->y[i], x[i], o->t, MPFR_RNDN);
    MOField(o, o->y, o->k[3]);
    for (int i = 0; i < n; i++) {
      mpfr_add(o->t, o->k[1][i], o->k[2][i], MPFR_RNDN);
      mpfr_mul_2ui(o->t, o->t, 1, MPFR_RNDN);
      mpfr_add(o->t, o->t, o->k[0][i], MPFR_RNDN);
      mpfr_add(o->t, o->t, o->k[3][i], MPFR_RNDN);
      mpfr_mul(o->t, o->t, dt, MPFR_RNDN);
      mpfr_div_ui(o->t, o->t, 6, MPFR_RNDN);
      mpfr_add(x[i], x[i], o->t, MPFR_RNDN);
    }
  }
  mpfr_clear(dt);
}

/* how far (>= 0) the value v lies outside the affine form a at coordinates xi (0..n-1); the
   noise symbols n..m-1 are free in [-1, 1] (the flow's own remainder symbols, SPEC §15) */
static double Outside_Private(int n, int m, const SRAffine *a, const double *xi, mpfr_t v)
{
  mpfr_t c, t;
  double lo, hi, slack = 0.0;
  mpfr_inits2(PREC, c, t, (mpfr_ptr)0);
  mpfr_set_d(c, a->c0, MPFR_RNDN);
  for (int j = 0; j < n; j++)
    mpfr_set_d(t, a->c[j], MPFR_RNDN), mpfr_mul_d(t, t, xi[j], MPFR_RNDN), mpfr_add(c, c, t, MPFR_RNDN);
  for (int j = n; j < m; j++)
    slack += fabs(a->c[j]);
  slack *= 1.0 + 0x1p-40;
  mpfr_sub(t, v, c, MPFR_RNDN); /* v - linear part must lie in r + the symbols' range */
  lo = mpfr_get_d(t, MPFR_RNDN);
  hi = lo;
  mpfr_clears(c, t, (mpfr_ptr)0);
  if (lo < a->r.lo - slack) return a->r.lo - slack - lo;
  if (hi > a->r.hi + slack) return hi - a->r.hi - slack;
  return 0.0;
}

static double Urand(unsigned long *s)
{
  *s = *s * 6364136223846793005UL + 1442695040888963407UL;
  return (double)(*s >> 11) * 0x1p-53;
}

static int ParseList(const char *s, double *v, int max)
{
  int k = 0;
  while (*s && k < max) {
    char *end;
    v[k++] = strtod(s, &end);
    if (end == s) return -1;
    s = *end == ',' ? end + 1 : end;
  }
  return k;
}

/* returns the number of escapes (beyond the integration error bound); *maxerr the largest
   RK4 error estimate seen */
static int RunPlant(const SRPlant *pl, const double *box, const double *ubox, double shrink, int order, int substeps, int symbols, int ntrials, int nsamples, double *maxerr, double *maxrel)
{
  const int     n = pl->n, m = n + symbols;
  SRFlowOptions o;
  MOracle       O;
  SRAffine     *work, X[SR_PLANT_MAX_STATES], Xout[SR_PLANT_MAX_STATES], tube[SR_PLANT_MAX_STATES], *vars, *val;
  SRInterval    tb[SR_AFFINE_MAX];
  unsigned long seed   = 12345;
  int           escape = 0;
  mpfr_t       *xa, *xb;

  SRFlowOptionsDefault(&o);
  o.order    = order;
  o.substeps = substeps;
  o.shrink   = shrink;
  work       = malloc(SRFlowWorkSize(pl, &o) * sizeof *work);
  vars       = malloc(sizeof(SRAffine) * pl->nvars);
  val        = malloc(sizeof(SRAffine) * (pl->dag.n + 1));
  xa         = malloc(sizeof(mpfr_t) * n);
  xb         = malloc(sizeof(mpfr_t) * n);
  for (int i = 0; i < n; i++)
    mpfr_init2(xa[i], PREC), mpfr_init2(xb[i], PREC);
  MOCreate(&O, pl);
  for (int trial = 0; trial < ntrials; trial++) {
    const double rel = trial % 3 == 0 ? 1.0 : trial % 3 == 1 ? 0.1 : 0.01;
    double       lo[SR_AFFINE_MAX], hi[SR_AFFINE_MAX], c[SR_AFFINE_MAX], r[SR_AFFINE_MAX], ulo[SR_AFFINE_MAX], uhi[SR_AFFINE_MAX];
    for (int i = 0; i < n; i++) {
      double w = (box[2 * i + 1] - box[2 * i]) * rel, a = box[2 * i] + Urand(&seed) * (box[2 * i + 1] - box[2 * i] - w);
      lo[i] = a, hi[i] = a + w;
      c[i] = 0.5 * (lo[i] + hi[i]);
      r[i] = SRMax_Private(SRSubUp(hi[i], c[i]), SRSubUp(c[i], lo[i]));
      X[i] = SRAffineVariable(i, c[i], r[i]);
    }
    for (int j = 0; j < pl->nvars; j++)
      vars[j] = SRAffineConstant(0.0);
    for (int j = 0; j < pl->nu; j++) {
      double w = (ubox[2 * j + 1] - ubox[2 * j]) * rel * 0.1, a = ubox[2 * j] + Urand(&seed) * (ubox[2 * j + 1] - ubox[2 * j] - w);
      ulo[j] = a, uhi[j] = a + w;
      vars[SR_SLOT_U(j)] = SRAffineInterval((SRInterval) { ulo[j], uhi[j] });
      if (symbols > j) { /* the control as a noise symbol of its own, as the closed loop holds it */
        vars[SR_SLOT_U(j)].c[n + j] = SRIntervalRadUp(vars[SR_SLOT_U(j)].r);
        vars[SR_SLOT_U(j)].r        = SRIntervalPoint(0.0);
      }
    }
    for (int j = 0; j < pl->nw; j++)
      vars[SR_SLOT_W(j)] = SRAffineInterval(pl->wbox[j]);
    if (!SRFlowStep(pl, m, X, vars, pl->period_iv, &o, Xout, tube, tb, work)) {
      printf("  trial %d (box scale %g): no enclosure (allowed, not an escape)\n", trial, rel);
      continue;
    }
    for (int i = 0; i < n; i++) {
      double w = SRIntervalWidthUp(SRAffineRange(m, &Xout[i]));
      if (w > *maxrel) *maxrel = w;
    }
    for (int smp = 0; smp < nsamples; smp++) {
      double x0[SR_AFFINE_MAX], xi[SR_AFFINE_MAX], pv[SR_AFFINE_MAX * 3];
      bool   corner = smp < (1 << (n < 10 ? n : 10));
      for (int i = 0; i < n; i++) {
        xi[i] = corner ? ((smp >> i) & 1 ? 1.0 : -1.0) : 2.0 * Urand(&seed) - 1.0;
        x0[i] = corner ? (xi[i] > 0 ? hi[i] : lo[i]) : c[i] + r[i] * xi[i];
        if (x0[i] < lo[i]) x0[i] = lo[i];
        if (x0[i] > hi[i]) x0[i] = hi[i];
        xi[i] = (x0[i] - c[i]) / r[i]; /* |xi| <= 1: x0 is in the box, c +- r covers it */
        if (xi[i] > 1) xi[i] = 1;
        if (xi[i] < -1) xi[i] = -1;
      }
      for (int j = 0; j < pl->nu; j++)
        pv[j] = ulo[j] + Urand(&seed) * (uhi[j] - ulo[j]);
      for (int j = 0; j < pl->nvars; j++)
        mpfr_set_d(O.var[j], 0.0, MPFR_RNDN);
      for (int j = 0; j < pl->nu; j++)
        mpfr_set_d(O.var[SR_SLOT_U(j)], pv[j], MPFR_RNDN);
      for (int j = 0; j < pl->nw; j++)
        mpfr_set_d(O.var[SR_SLOT_W(j)], pl->wbox[j].lo + Urand(&seed) * (pl->wbox[j].hi - pl->wbox[j].lo), MPFR_RNDN);
      /* the vector field in MPFR against the DAG's affine evaluation at the point */
      {
        SRAffine pvars[SR_PLANT_NVARS];
        for (int i = 0; i < n; i++)
          pvars[i] = SRAffineConstant(x0[i]), mpfr_set_d(O.var[i], x0[i], MPFR_RNDN);
        for (int j = n; j < pl->nvars; j++)
          pvars[j] = SRAffineConstant(mpfr_get_d(O.var[j], MPFR_RNDN));
        SRExprEvalAffine(&pl->dag, n, pvars, val);
        MOEval(&O);
        for (int i = 0; i < pl->dag.n; i++) {
          SRInterval R = SRAffineRange(n, &val[i]);
          if (SRIntervalIsNaI(R)) continue; /* no enclosure claimed */
          if (mpfr_cmp_d(O.v[i], R.lo) < 0 || mpfr_cmp_d(O.v[i], R.hi) > 0) {
            printf("  ESCAPE: DAG node %d at a sample: MPFR %.17g outside [%.17g, %.17g]\n", i, mpfr_get_d(O.v[i], MPFR_RNDN), R.lo, R.hi);
            escape++;
          }
        }
      }
      /* dense times j h / 16 in the tube, the end in Xout */
      for (int i = 0; i < n; i++)
        mpfr_set_d(xa[i], x0[i], MPFR_RNDN), mpfr_set_d(xb[i], x0[i], MPFR_RNDN);
      for (int j = 1; j <= 16; j++) {
        double err;
        MORK4(&O, xa, pl->period / 16.0, 32);
        MORK4(&O, xb, pl->period / 16.0, 64);
        for (int i = 0; i < n; i++) {
          double d;
          mpfr_sub(O.t, xa[i], xb[i], MPFR_RNDN);
          err = fabs(mpfr_get_d(O.t, MPFR_RNDN));
          if (err > *maxerr) *maxerr = err;
          d = j == 16 ? Outside_Private(n, m, &Xout[i], xi, xb[i]) : 0.0;
          if (d <= 10 * err + 1e-300) d = 0;
          if (d == 0) {
            double v = mpfr_get_d(xb[i], MPFR_RNDN);
            d        = Outside_Private(n, m, &tube[i], xi, xb[i]);
            if (d <= 10 * err + 1e-300) d = 0;
            if (v < tb[i].lo - 10 * err - 1e-300 || v > tb[i].hi + 10 * err + 1e-300) d = fmax(d, fmax(tb[i].lo - v, v - tb[i].hi));
          }
          if (d > 0) {
            if (shrink == 0) printf("  ESCAPE: trial %d sample %d state %s at t = %g/16 T: %.3g outside (RK4 error %.2g)\n", trial, smp, pl->state[i], (double)j, d, err);
            escape++;
          }
        }
      }
    }
  }
  for (int i = 0; i < n; i++)
    mpfr_clear(xa[i]), mpfr_clear(xb[i]);
  free(xa), free(xb), free(work), free(vars), free(val);
  return escape;
}

int main(int argc, char **argv)
{
  int fails = 0;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int a = 1; a + 2 < argc + 0 || a + 2 == argc; a += 3) {
    SRPlant pl;
    double  box[2 * SR_AFFINE_MAX], ubox[2 * SR_AFFINE_MAX], maxerr = 0, maxw = 0;
    int     e, planted;
    if (a + 2 >= argc) break;
    PetscCall(SRPlantRead(PETSC_COMM_SELF, argv[a], &pl));
    if (ParseList(argv[a + 1], box, 2 * SR_AFFINE_MAX) != 2 * pl.n || ParseList(argv[a + 2], ubox, 2 * SR_AFFINE_MAX) != 2 * pl.nu) {
      printf("%s: box needs %d numbers and the control box %d\n", argv[a], 2 * pl.n, 2 * pl.nu);
      return 1;
    }
    for (int order = 4; order <= 6; order += 2)
      for (int sub = order / 4; sub <= order / 4; sub++) { /* order 4 in one sub-step, order 6 in two */
        maxerr = maxw = 0;
        e             = RunPlant(&pl, box, ubox, 0.0, order, sub, 0, 6, 10, &maxerr, &maxw);
        printf("%s order %d substeps %d: %d escapes (largest RK4 error estimate %.2g, widest enclosure %.3g)\n", argv[a], order, sub, e, maxerr, maxw);
        fails += e;
      }
    /* the remainders as noise symbols between sub-steps (flow.c), the controls as symbols */
    maxerr = maxw = 0;
    e             = RunPlant(&pl, box, ubox, 0.0, 6, 4, 3 * pl.n, 6, 10, &maxerr, &maxw);
    printf("%s order 6 substeps 4 with %d noise symbols: %d escapes (largest RK4 error estimate %.2g, widest enclosure %.3g)\n", argv[a], 3 * pl.n, e, maxerr, maxw);
    fails += e;
    planted = RunPlant(&pl, box, ubox, 0.5, 6, 1, 0, 3, 4, &maxerr, &maxw);
    printf("%s planted shrink 0.5: %d escapes %s\n", argv[a], planted, planted ? "(caught)" : "NOT CAUGHT");
    if (!planted) fails++;
    planted = RunPlant(&pl, box, ubox, 0.5, 6, 4, 3 * pl.n, 3, 4, &maxerr, &maxw);
    printf("%s planted shrink 0.5 with noise symbols: %d escapes %s\n", argv[a], planted, planted ? "(caught)" : "NOT CAUGHT");
    if (!planted) fails++;
    SRPlantFree(&pl);
  }
  PetscCall(PetscFinalize());
  printf("%s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
