/* The exact period map of a linear plant (src/model/flow_linear.c, SPEC §15) against an
   independent oracle in 320-bit MPFR.

   Random linear plants x' = A x + B u + E w + c are written as plant-file text with decimal
   coefficients (most are no double: the parser encloses them), with ||A h|| from 0.003 to
   about 100 (the stiff end takes the scaling and squaring).  The oracle reads the same decimal
   strings with mpfr_set_str (not the parser) and computes e^{M t} for the augmented matrix by
   its own scaling and squaring (Taylor series to 80 terms after ||M t|| / 2^s <= 1/4).
     1. SRFlowLinearExpInto over the period's interval and over [0, h] (t sampled) must contain
        every entry of the oracle's e^{M t}; over the period every entry must be narrower than
        1e-9 of the largest (the scaling and squaring keeps the stiff cases tight).
     2. SRFlowStepParts (the map made per call, and made once), 1 and 4 sub-steps: for sampled
        states of the box (corners first), controls and disturbances of their boxes, the oracle's
        x(h) must lie in the end forms evaluated at the sample's own coordinates xi, and x(t) for t
        sampled in each sub-step in that part's forms and box.
     3. Planted faults must be caught: Phi replaced by 0.99 of its midpoints (planted
        SRFlowLinearExpInto), and the flow's result shrunk by 0.5 (o.shrink).
     4. Detection: the plants given as PATH:1 (linear) or PATH:0 (not) are classified so, and
        products, functions and squares of states are not linear.
     test_flow_linear [PATH:0|1 ...] */
#include <math.h>
#include <mpfr.h>
#include <petscsys.h>
#include <simreach/odeflow.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PREC 320
#define MAXD 12
#define NCASES 60

static unsigned long seed = 36;
static double        Rand(void)
{
  seed = seed * 6364136223846793005UL + 1442695040888963407UL;
  return (double)(seed >> 11) * 0x1p-53;
}

typedef struct {
  int  n, nu, nw, d;
  char c[MAXD][MAXD][40]; /* the top n rows of M as decimal strings (signed) */
  char period[16];
  char wlo[4][16], whi[4][16];
} Case;

/* ---- the oracle ------------------------------------------------------------------------------ */

static mpfr_t *MNew(int k)
{
  mpfr_t *a = malloc(sizeof(mpfr_t) * (size_t)k);
  for (int i = 0; i < k; i++) mpfr_init2(a[i], PREC), mpfr_set_ui(a[i], 0, MPFR_RNDN);
  return a;
}
static void MFree(int k, mpfr_t *a)
{
  for (int i = 0; i < k; i++) mpfr_clear(a[i]);
  free(a);
}
static void MMul(int d, mpfr_t *A, mpfr_t *B, mpfr_t *C, mpfr_t tmp)
{
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) {
      mpfr_set_ui(C[i * d + j], 0, MPFR_RNDN);
      for (int k = 0; k < d; k++) mpfr_mul(tmp, A[i * d + k], B[k * d + j], MPFR_RNDN), mpfr_add(C[i * d + j], C[i * d + j], tmp, MPFR_RNDN);
    }
}

/* E = e^{M t}: M read from the case's strings */
static void OracleExp(const Case *cs, mpfr_t t, mpfr_t *E)
{
  const int d = cs->d;
  mpfr_t   *A = MNew(d * d), *T = MNew(d * d), *W = MNew(d * d), tmp, nrm, rs;
  int       s = 0;
  mpfr_inits2(PREC, tmp, nrm, rs, (mpfr_ptr)0);
  for (int i = 0; i < cs->n; i++)
    for (int j = 0; j < d; j++) mpfr_set_str(A[i * d + j], cs->c[i][j], 10, MPFR_RNDN), mpfr_mul(A[i * d + j], A[i * d + j], t, MPFR_RNDN);
  mpfr_set_ui(nrm, 0, MPFR_RNDN);
  for (int i = 0; i < d; i++) {
    mpfr_set_ui(rs, 0, MPFR_RNDN);
    for (int j = 0; j < d; j++) mpfr_abs(tmp, A[i * d + j], MPFR_RNDN), mpfr_add(rs, rs, tmp, MPFR_RNDN);
    if (mpfr_cmp(rs, nrm) > 0) mpfr_set(nrm, rs, MPFR_RNDN);
  }
  while (mpfr_cmp_d(nrm, 0.25) > 0) mpfr_div_2ui(nrm, nrm, 1, MPFR_RNDN), s++;
  for (int q = 0; q < d * d; q++) mpfr_div_2ui(A[q], A[q], (unsigned long)s, MPFR_RNDN);
  for (int i = 0; i < d; i++)
    for (int j = 0; j < d; j++) mpfr_set_ui(E[i * d + j], i == j, MPFR_RNDN), mpfr_set_ui(T[i * d + j], i == j, MPFR_RNDN);
  for (int k = 1; k <= 80; k++) {
    MMul(d, T, A, W, tmp);
    for (int q = 0; q < d * d; q++) mpfr_div_ui(T[q], W[q], (unsigned long)k, MPFR_RNDN), mpfr_add(E[q], E[q], T[q], MPFR_RNDN);
  }
  for (int r = 0; r < s; r++) {
    MMul(d, E, E, W, tmp);
    for (int q = 0; q < d * d; q++) mpfr_set(E[q], W[q], MPFR_RNDN);
  }
  MFree(d * d, A), MFree(d * d, T), MFree(d * d, W);
  mpfr_clears(tmp, nrm, rs, (mpfr_ptr)0);
}

static bool In(mpfr_t x, SRInterval iv) { return mpfr_cmp_d(x, iv.lo) >= 0 && mpfr_cmp_d(x, iv.hi) <= 0; }

/* entries of the oracle's e^{M t} outside E */
static int ExpEscapes(const Case *cs, mpfr_t t, const SRInterval *E)
{
  mpfr_t *O = MNew(cs->d * cs->d);
  int     bad = 0;
  OracleExp(cs, t, O);
  for (int q = 0; q < cs->d * cs->d; q++) bad += !In(O[q], E[q]);
  MFree(cs->d * cs->d, O);
  return bad;
}

/* ---- the cases --------------------------------------------------------------------------------- */

static void MakeCase(int k, Case *cs, char *text, size_t len)
{
  static const char *periods[] = {"0.1", "0.5", "1", "0.0625", "2"};
  static const double scales[]  = {0.03, 0.3, 1, 4, 20};
  const double        sc       = scales[k % 5];
  size_t              o        = 0;
  cs->n = 1 + (int)(Rand() * 5), cs->nu = 1 + (int)(Rand() * 2), cs->nw = (int)(Rand() * 2);
  cs->d = cs->n + cs->nu + cs->nw + 1;
  snprintf(cs->period, sizeof cs->period, "%s", periods[(k / 5) % 5]);
  for (int i = 0; i < cs->n; i++)
    for (int j = 0; j < cs->d; j++) {
      const double v = Rand() < 0.3 && j != i ? 0.0 : sc * (2 * Rand() - 1) - (k % 3 == 0 && j == i ? sc : 0.0); /* every third case damped (stiff at the large scales) */
      snprintf(cs->c[i][j], sizeof cs->c[i][j], "%.4f", v);
    }
  o += (size_t)snprintf(text + o, len - o, "states");
  for (int i = 0; i < cs->n; i++) o += (size_t)snprintf(text + o, len - o, " x%d", i + 1);
  o += (size_t)snprintf(text + o, len - o, "\noutputs %d\ninput x1\n", cs->nu);
  for (int j = 0; j < cs->nu; j++) o += (size_t)snprintf(text + o, len - o, "control u%d = y%d\n", j + 1, j + 1);
  for (int j = 0; j < cs->nw; j++) {
    snprintf(cs->wlo[j], sizeof cs->wlo[j], "-0.%d", 1 + (int)(Rand() * 8));
    snprintf(cs->whi[j], sizeof cs->whi[j], "0.%d", 1 + (int)(Rand() * 8));
    o += (size_t)snprintf(text + o, len - o, "disturbance w%d in [%s, %s]\n", j + 1, cs->wlo[j], cs->whi[j]);
  }
  for (int i = 0; i < cs->n; i++) {
    o += (size_t)snprintf(text + o, len - o, "der x%d = 0 * x1", i + 1);
    for (int j = 0; j < cs->d; j++) {
      const char *v = cs->c[i][j], *a = v[0] == '-' ? v + 1 : v;
      char        name[16];
      if (j < cs->n) snprintf(name, sizeof name, " * x%d", j + 1);
      else if (j < cs->n + cs->nu) snprintf(name, sizeof name, " * u%d", j - cs->n + 1);
      else if (j < cs->d - 1) snprintf(name, sizeof name, " * w%d", j - cs->n - cs->nu + 1);
      else name[0] = 0;
      o += (size_t)snprintf(text + o, len - o, " %c %s%s", v[0] == '-' ? '-' : '+', a, name);
    }
    o += (size_t)snprintf(text + o, len - o, "\n");
  }
  snprintf(text + o, len - o, "period %s\nsteps 1\n", cs->period);
}

/* escapes of the oracle's states from the flow's end forms and parts (2.); shrink: planted */
static int FlowEscapes(const Case *cs, const SRPlant *pl, SRFlowLinear *L, int ns, double shrink, int nsamples)
{
  const int     n = cs->n, d = cs->d;
  SRFlowOptions o;
  SRAffine     *X = malloc(sizeof(SRAffine) * (size_t)(4 * n + 8 * n)), *Y = X + n, *T = Y + n, *vars, *work, *Pt = T + n;
  SRInterval    TB[SR_PLANT_MAX_STATES], Pb[8 * SR_PLANT_MAX_STATES], U[4];
  SRFlowParts   P = {8, 0, Pt, Pb, 0.0};
  double        c[MAXD], r[MAXD];
  mpfr_t       *E = MNew(d * d), *z = MNew(d), x, v, h, t, tmp;
  int           bad = 0;
  mpfr_inits2(PREC, x, v, h, t, tmp, (mpfr_ptr)0);
  SRFlowOptionsDefault(&o);
  o.substeps = ns, o.shrink = shrink, o.lin = L;
  vars = malloc(sizeof(SRAffine) * (size_t)pl->nvars);
  work = malloc(sizeof(SRAffine) * (SRFlowWorkSize(pl, &o) + 16));
  for (int j = 0; j < pl->nvars; j++) vars[j] = SRAffineConstant(0.0);
  for (int i = 0; i < n; i++) {
    c[i] = 4 * Rand() - 2, r[i] = 0.5 * Rand();
    X[i] = SRAffineVariable(i, c[i], r[i]);
  }
  for (int j = 0; j < cs->nu; j++) {
    const double a = 2 * Rand() - 1;
    U[j]           = (SRInterval){a, a + 0.3 * Rand()};
    vars[SR_SLOT_U(j)] = SRAffineInterval(U[j]);
  }
  for (int j = 0; j < cs->nw; j++) vars[SR_SLOT_W(j)] = SRAffineInterval(pl->wbox[j]);
  if (!SRFlowStepParts(pl, n, X, vars, pl->period_iv, &o, Y, T, TB, &P, work) || P.count != ns || P.coarse != 0.0) {
    printf("  case n %d: the linear step failed (parts %d of %d, coarse %g)\n", n, P.count, ns, P.coarse);
    bad = 1000;
    goto done;
  }
  mpfr_set_str(h, cs->period, 10, MPFR_RNDN);
  for (int s = 0; s < nsamples; s++) {
    double xi[MAXD];
    for (int i = 0; i < n; i++) xi[i] = s < (1 << n) && s < nsamples / 2 ? (((s >> i) & 1) ? 1.0 : -1.0) : 2 * Rand() - 1;
    /* z = (x0, u, w, 1) */
    for (int i = 0; i < n; i++) mpfr_set_d(z[i], r[i], MPFR_RNDN), mpfr_mul_d(z[i], z[i], xi[i], MPFR_RNDN), mpfr_add_d(z[i], z[i], c[i], MPFR_RNDN);
    for (int j = 0; j < cs->nu; j++) mpfr_set_d(z[n + j], U[j].lo + Rand() * (U[j].hi - U[j].lo), MPFR_RNDN);
    for (int j = 0; j < cs->nw; j++) {
      mpfr_set_str(tmp, cs->wlo[j], 10, MPFR_RNDN), mpfr_set_str(v, cs->whi[j], 10, MPFR_RNDN);
      mpfr_sub(v, v, tmp, MPFR_RNDN), mpfr_mul_d(v, v, Rand(), MPFR_RNDN), mpfr_add(z[n + cs->nu + j], tmp, v, MPFR_RNDN);
    }
    mpfr_set_ui(z[d - 1], 1, MPFR_RNDN);
    for (int part = -1; part < ns; part++) {
      const SRAffine *F = part < 0 ? Y : Pt + (size_t)part * n;
      if (part < 0) mpfr_set(t, h, MPFR_RNDN);
      else mpfr_mul_d(t, h, (part + Rand()) / ns, MPFR_RNDN);
      OracleExp(cs, t, E);
      for (int i = 0; i < n; i++) {
        mpfr_set_ui(x, 0, MPFR_RNDN);
        for (int j = 0; j < d; j++) mpfr_mul(tmp, E[i * d + j], z[j], MPFR_RNDN), mpfr_add(x, x, tmp, MPFR_RNDN);
        /* x - (c0 + sum c_j xi_j) must lie in the remainder */
        mpfr_set_d(v, F[i].c0, MPFR_RNDN);
        for (int j = 0; j < n; j++) mpfr_set_d(tmp, F[i].c[j], MPFR_RNDN), mpfr_mul_d(tmp, tmp, xi[j], MPFR_RNDN), mpfr_add(v, v, tmp, MPFR_RNDN);
        mpfr_sub(v, x, v, MPFR_RNDN);
        if (!In(v, F[i].r)) bad++;
        if (part >= 0 && !In(x, Pb[(size_t)part * n + i])) bad++;
      }
    }
  }
done:
  MFree(d * d, E), MFree(d, z);
  mpfr_clears(x, v, h, t, tmp, (mpfr_ptr)0);
  free(X), free(vars), free(work);
  return bad;
}

int main(int argc, char **argv)
{
  int    fails = 0, caught = 0, caught_shrink = 0, maxs = 0;
  double relw = 0.0;
  char   text[8192];
  mpfr_t t;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  mpfr_init2(t, PREC);
  for (int k = 0; k < NCASES; k++) {
    Case          cs;
    SRPlant       pl;
    SRFlowLinear *L;
    SRInterval    E[MAXD * MAXD];
    int           bad = 0, fb;
    MakeCase(k, &cs, text, sizeof text);
    PetscCall(SRPlantParse(PETSC_COMM_SELF, "random linear plant", text, &pl));
    L = SRFlowLinearCreate(&pl);
    if (!L || SRFlowLinearDim(L) != cs.d) {
      printf("case %d: a linear plant not detected:\n%s", k, text);
      fails++;
      SRPlantFree(&pl);
      continue;
    }
    /* 1. the period and [0, h] */
    if (!SRFlowLinearExpInto(L, pl.period_iv, false, E)) bad += 1000;
    else {
      double big = 1.0;
      mpfr_set_str(t, cs.period, 10, MPFR_RNDN);
      bad += ExpEscapes(&cs, t, E);
      /* and tight: every entry within 1e-9 of the largest magnitude (the stiff cases included) */
      for (int q = 0; q < cs.d * cs.d; q++) big = fmax(big, fmax(fabs(E[q].lo), fabs(E[q].hi)));
      for (int q = 0; q < cs.d * cs.d; q++) relw = fmax(relw, (E[q].hi - E[q].lo) / big);
    }
    if (!SRFlowLinearExpInto(L, (SRInterval){0.0, pl.period_iv.hi}, false, E)) bad += 1000;
    else
      for (int s = 0; s < 4; s++) {
        mpfr_set_d(t, s == 0 ? 0.0 : s == 1 ? pl.period_iv.hi : Rand() * pl.period_iv.hi, MPFR_RNDN);
        bad += ExpEscapes(&cs, t, E);
      }
    /* 3. the planted Phi */
    if (SRFlowLinearExpInto(L, pl.period_iv, true, E)) {
      mpfr_set_str(t, cs.period, 10, MPFR_RNDN);
      caught += ExpEscapes(&cs, t, E) > 0;
    } else caught++; /* nothing enclosed: nothing claimed */
    /* 2. the flow, the map per call (lin NULL) and made once (L) */
    fb = FlowEscapes(&cs, &pl, NULL, 1, 0.0, 24) + FlowEscapes(&cs, &pl, L, 4, 0.0, 12);
    caught_shrink += FlowEscapes(&cs, &pl, L, 1, 0.5, 8) > 0;
    if (bad || fb) printf("case %d (n %d, nu %d, nw %d, period %s): %d exponential entries and %d states outside\n%s", k, cs.n, cs.nu, cs.nw, cs.period, bad, fb, text);
    fails += bad + fb;
    maxs = k;
    SRFlowLinearDestroy(&L);
    SRPlantFree(&pl);
  }
  printf("%d random linear plants: %s; widest entry of e^{Mh} %.2g of its largest; planted Phi caught in %d, planted shrink caught in %d\n", maxs + 1, fails ? "ESCAPES" : "every oracle value enclosed", relw, caught, caught_shrink);
  if (caught < NCASES || caught_shrink < NCASES || !(relw < 1e-9)) fails++;
  /* 4. detection */
  {
    const char *nonlinear[] = {"der x1 = x1 * x2", "der x1 = sin(x1)", "der x1 = x1^2", "der x1 = u1 * x2", "der x1 = x2 / x1", "der x1 = tanh(u1)"};
    for (size_t q = 0; q < sizeof nonlinear / sizeof nonlinear[0]; q++) {
      SRPlant       pl;
      SRFlowLinear *L;
      snprintf(text, sizeof text, "states x1 x2\noutputs 1\ninput x1\ncontrol u1 = y1\n%s\nder x2 = x1 - 0.5 * u1\nperiod 0.1\nsteps 1\n", nonlinear[q]);
      PetscCall(SRPlantParse(PETSC_COMM_SELF, "nonlinear plant", text, &pl));
      L = SRFlowLinearCreate(&pl);
      if (L) printf("'%s' taken as linear\n", nonlinear[q]), fails++;
      SRFlowLinearDestroy(&L);
      SRPlantFree(&pl);
    }
  }
  for (int a = 1; a < argc; a++) {
    char         *colon = strrchr(argv[a], ':');
    SRPlant       pl;
    SRFlowLinear *L;
    if (!colon) continue;
    *colon = 0;
    PetscCall(SRPlantRead(PETSC_COMM_SELF, argv[a], &pl));
    L = SRFlowLinearCreate(&pl);
    printf("%s: %s\n", argv[a], L ? "linear" : "not linear");
    if (!!L != (colon[1] == '1')) printf("  expected %s\n", colon[1] == '1' ? "linear" : "not linear"), fails++;
    SRFlowLinearDestroy(&L);
    SRPlantFree(&pl);
  }
  mpfr_clear(t);
  PetscCall(PetscFinalize());
  printf("%s\n", fails ? "FAIL" : "PASS");
  return fails ? 1 : 0;
}
