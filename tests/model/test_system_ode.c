/* Tests of one control period of a plant file (src/model/system_ode.c, SPEC §15, §16).
   Oracle: the ARCH plants' vector fields written out here by hand from the benchmarks'
   equations (not the plant files' DAG), integrated by classical RK4 with 4000 steps per period
   (error far below the tolerance 1e-9 (1 + |y|)).  For random boxes X and control boxes U of
   each plant, the oracle's images of the corners and of random points of X x U x W must lie in
   the enclosure; the same check with the flow's planted shrink (SRFlowOptions.shrink) must
   fail.  The simulation and the Jacobian are checked against the oracle and its central
   differences.  Serial. */
#include <simreach/private/system_ode.h>
#include <simreach/random.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "jobs_dir.h"

#define CHK(call) assert_int_equal((call), 0)
#define NMAX 8

static const char *jobs_dir = NULL;

typedef struct {
  const char *name;
  int         n, nu, nw;
  double      T;
  void (*f)(const double *x, const double *u, const double *w, double *dx);
  double c_lo[NMAX], c_hi[NMAX], wmax[NMAX]; /* box centres and widths */
  double u_lo, u_hi, uw;                     /* control box centres and width */
} Oracle;

static void FTora(const double *x, const double *u, const double *w, double *d)
{
  d[0] = x[1], d[1] = -x[0] + 0.1 * sin(x[2]), d[2] = x[3], d[3] = u[0];
}
static void FAcc(const double *x, const double *u, const double *w, double *d)
{
  const double mu = 0.0001;
  d[0] = x[1], d[1] = x[2], d[2] = -2 * x[2] + 2 * (-2) - mu * x[1] * x[1];
  d[3] = x[4], d[4] = x[5], d[5] = -2 * x[5] + 2 * u[0] - mu * x[4] * x[4];
}
static void FUnicycle(const double *x, const double *u, const double *w, double *d)
{
  d[0] = x[3] * cos(x[2]), d[1] = x[3] * sin(x[2]), d[2] = u[1], d[3] = u[0] + w[0];
}
static void FPendulum(const double *x, const double *u, const double *w, double *d)
{
  d[0] = x[1], d[1] = 1.0 / 0.5 * sin(x[0]) + u[0] / (0.5 * 0.25);
}
static void FDocking(const double *x, const double *u, const double *w, double *d)
{
  const double a = 0.001027;
  d[0] = x[2], d[1] = x[3], d[2] = 2 * a * x[3] + 3 * a * a * x[0] + u[0] / 12, d[3] = -2 * a * x[2] + u[1] / 12;
}

static const Oracle oracles[] = {
  {"tora", 4, 1, 0, 1.0, FTora, {-1.5, -1.5, -1.5, -1.5}, {1.5, 1.5, 1.5, 1.5}, {0.2, 0.2, 0.2, 0.2}, -3, 3, 0.5},
  {"acc", 6, 1, 0, 0.1, FAcc, {60, 20, -1, 0, 20, -1}, {120, 35, 1, 60, 35, 1}, {1, 0.2, 0.05, 1, 0.2, 0.05}, -3, 1, 0.3},
  {"unicycle", 4, 2, 1, 0.2, FUnicycle, {-10, -10, -3, -2}, {10, 10, 3, 2}, {0.1, 0.1, 0.1, 0.1}, -2, 2, 0.2},
  {"pendulum", 2, 1, 0, 0.05, FPendulum, {-1.5, -2}, {1.5, 2}, {0.1, 0.1}, -2, 2, 0.2},
  {"docking", 4, 2, 0, 1.0, FDocking, {-100, -100, -1, -1}, {100, 100, 1, 1}, {1, 1, 0.05, 0.05}, -1, 1, 0.1},
};

static void OracleFlow(const Oracle *O, const double *x, const double *u, const double *w, int N, double *y)
{
  double k1[NMAX], k2[NMAX], k3[NMAX], k4[NMAX], s[NMAX];
  const double h = O->T / N;
  memcpy(y, x, sizeof(double) * O->n);
  for (int j = 0; j < N; j++) {
    O->f(y, u, w, k1);
    for (int i = 0; i < O->n; i++) s[i] = y[i] + 0.5 * h * k1[i];
    O->f(s, u, w, k2);
    for (int i = 0; i < O->n; i++) s[i] = y[i] + 0.5 * h * k2[i];
    O->f(s, u, w, k3);
    for (int i = 0; i < O->n; i++) s[i] = y[i] + h * k3[i];
    O->f(s, u, w, k4);
    for (int i = 0; i < O->n; i++) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
}

static void ReadPlant(const char *name, SRPlant *pl)
{
  char path[PETSC_MAX_PATH_LEN];
  CHK(PetscSNPrintf(path, sizeof path, "%s/arch/%s/plant.txt", jobs_dir, name));
  CHK(SRPlantRead(PETSC_COMM_SELF, path, pl));
}

typedef struct {
  uint64_t seed, i;
} Rng, *SRRandom;
static double U01(SRRandom r) { return SRRandomUniform(r->seed, SR_STREAM_TEST, r->i++); }

/* a random box X, control box U of plant O */
static void RandomBox(const Oracle *O, SRRandom r, SRInterval *X, SRInterval *U)
{
  for (int i = 0; i < O->n; i++) {
    const double c = O->c_lo[i] + (O->c_hi[i] - O->c_lo[i]) * U01(r), w = O->wmax[i] * U01(r);
    X[i] = (SRInterval){c - 0.5 * w, c + 0.5 * w};
  }
  for (int j = 0; j < O->nu; j++) {
    const double c = O->u_lo + (O->u_hi - O->u_lo) * U01(r), w = O->uw * U01(r);
    U[j] = (SRInterval){c - 0.5 * w, c + 0.5 * w};
  }
}

/* the oracle's images of corners and random points of X x U x W outside Y: their count */
static int Outside(const Oracle *O, const SRPlant *pl, SRRandom r, const SRInterval *X, const SRInterval *U, const SRInterval *Y, double *worst)
{
  const int nc = 1 << (O->n + O->nu + O->nw);
  int       bad = 0;
  for (int s = 0; s < nc + 64; s++) {
    double x[NMAX], u[NMAX], w[NMAX], y[NMAX];
    for (int i = 0; i < O->n; i++) x[i] = s < nc ? ((s >> i & 1) ? X[i].hi : X[i].lo) : X[i].lo + (X[i].hi - X[i].lo) * U01(r);
    for (int j = 0; j < O->nu; j++) u[j] = s < nc ? ((s >> (O->n + j) & 1) ? U[j].hi : U[j].lo) : U[j].lo + (U[j].hi - U[j].lo) * U01(r);
    for (int k = 0; k < O->nw; k++) w[k] = s < nc ? ((s >> (O->n + O->nu + k) & 1) ? pl->wbox[k].hi : pl->wbox[k].lo) : pl->wbox[k].lo + (pl->wbox[k].hi - pl->wbox[k].lo) * U01(r);
    OracleFlow(O, x, u, w, 4000, y);
    for (int i = 0; i < O->n; i++) {
      const double tol = 1e-9 * (1 + fabs(y[i])), e = fmax(Y[i].lo - y[i], y[i] - Y[i].hi);
      if (e > tol) bad++;
      if (worst) *worst = fmax(*worst, e);
    }
  }
  return bad;
}

/* every oracle image in the enclosure; the planted shrink caught on the same boxes */
static void test_enclosure_contains_oracle_images(void **state)
{
  if (!jobs_dir) skip();
  for (size_t p = 0; p < sizeof oracles / sizeof oracles[0]; p++) {
    const Oracle        *O = &oracles[p];
    SRPlant              pl;
    SRPlantPeriodOptions o;
    SRPlantPeriod       *P, *Pshrunk;
    Rng                  rs, *r = &rs;
    int                  nbox = 24, failed = 0, bad = 0, caught = 0;
    double               worst = -INFINITY;

    ReadPlant(O->name, &pl);
    assert_int_equal(pl.n, O->n);
    assert_int_equal(pl.nu, O->nu);
    assert_int_equal(pl.nw, O->nw);
    SRPlantPeriodOptionsDefault(&o);
    CHK(SRPlantPeriodCreate(&pl, &o, &P));
    o.flow.shrink = 0.2; /* planted: every enclosure shrunk by 20 % */
    CHK(SRPlantPeriodCreate(&pl, &o, &Pshrunk));
    rs = (Rng){1234 + (uint64_t)p, 0};
    for (int b = 0; b < nbox; b++) {
      SRInterval X[NMAX], U[NMAX], Y[NMAX], Ys[NMAX];
      RandomBox(O, r, X, U);
      if (!SRPlantPeriodEncloseWith(P, X, U, Y, NULL)) {
        failed++;
        continue;
      }
      bad += Outside(O, &pl, r, X, U, Y, &worst);
      if (SRPlantPeriodEncloseWith(Pshrunk, X, U, Ys, NULL) && Outside(O, &pl, r, X, U, Ys, NULL) > 0) caught++;
    }
    print_message("%-9s %d boxes: %d flows failed, %d images outside, worst excess %.3g; planted shrink caught on %d boxes\n", O->name, nbox, failed, bad, worst, caught);
    assert_true(failed <= nbox / 10); /* else the check is vacuous */
    assert_int_equal(bad, 0);
    assert_true(caught >= nbox / 2);
    CHK(SRPlantPeriodDestroy(&P));
    CHK(SRPlantPeriodDestroy(&Pshrunk));
    SRPlantFree(&pl);
  }
}

/* the plain call, the block call and affine controls (TORA: u an affine function of the cell's
   coordinates, the oracle applying that same function at each point) */
static void test_block_plain_and_affine_controls(void **state)
{
  const Oracle        *O = &oracles[0];
  SRPlant              pl;
  SRPlantPeriodOptions o;
  SRPlantPeriod       *P;
  Rng                  rs = {99, 0}, *r = &rs;
  if (!jobs_dir) skip();
  ReadPlant(O->name, &pl);
  SRPlantPeriodOptionsDefault(&o);
  CHK(SRPlantPeriodCreate(&pl, &o, &P));
  for (int b = 0; b < 8; b++) {
    SRInterval X[NMAX], U[NMAX], Y[NMAX], Y1[NMAX], Ya[NMAX];
    double     boxes[2 * NMAX], ub[2], E[2 * NMAX], k[NMAX], worst = -INFINITY;
    bool       ok;
    SRAffine   Ua;
    RandomBox(O, r, X, U);
    assert_true(SRPlantPeriodEncloseWith(P, X, U, Y, NULL));
    assert_true(SRPlantPeriodEnclose(&pl, X, U, Y1));
    for (int i = 0; i < O->n; i++) boxes[i] = X[i].lo, boxes[O->n + i] = X[i].hi;
    ub[0] = U[0].lo, ub[1] = U[0].hi;
    assert_int_equal(SRPlantPeriodEncloseBlock(P, 1, boxes, ub, E, &ok), 0);
    assert_true(ok);
    for (int i = 0; i < O->n; i++) {
      assert_true(Y[i].lo == Y1[i].lo && Y[i].hi == Y1[i].hi);
      assert_true(E[i] == Y[i].lo && E[O->n + i] == Y[i].hi);
    }
    /* u = mid U + sum_i k_i xi_i, |k_i| <= 0.3 */
    Ua = SRAffineConstant(0.5 * U[0].lo + 0.5 * U[0].hi);
    for (int i = 0; i < O->n; i++) Ua.c[i] = k[i] = 0.6 * U01(r) - 0.3;
    assert_true(SRPlantPeriodEncloseAffine(P, X, &Ua, Ya, NULL));
    for (int s = 0; s < 200; s++) {
      double x[NMAX], u, y[NMAX];
      u = Ua.c0;
      for (int i = 0; i < O->n; i++) {
        const double xi = s < 16 ? ((s >> i & 1) ? 1.0 : -1.0) : 2 * U01(r) - 1;
        x[i]            = 0.5 * X[i].lo + 0.5 * X[i].hi + 0.5 * (X[i].hi - X[i].lo) * xi;
        u += k[i] * xi;
      }
      OracleFlow(O, x, &u, NULL, 4000, y);
      for (int i = 0; i < O->n; i++) worst = fmax(worst, fmax(Ya[i].lo - y[i], y[i] - Ya[i].hi) / (1 + fabs(y[i])));
    }
    assert_true(worst <= 1e-9);
  }
  CHK(SRPlantPeriodDestroy(&P));
  SRPlantFree(&pl);
}

/* RK4 simulation against the oracle; the Jacobian against the oracle's central differences */
static void test_simulation_and_jacobian(void **state)
{
  if (!jobs_dir) skip();
  for (size_t p = 0; p < sizeof oracles / sizeof oracles[0]; p++) {
    const Oracle *O = &oracles[p];
    SRPlant       pl;
    Rng           rs = {7 + (uint64_t)p, 0}, *r = &rs;
    ReadPlant(O->name, &pl);
    for (int t = 0; t < 4; t++) {
      SRInterval X[NMAX], U[NMAX];
      double     x[NMAX], u[NMAX], w[NMAX], y[NMAX], yo[NMAX], Jx[NMAX * NMAX], Ju[NMAX * NMAX];
      RandomBox(O, r, X, U);
      for (int i = 0; i < O->n; i++) x[i] = X[i].lo;
      for (int j = 0; j < O->nu; j++) u[j] = U[j].hi;
      for (int k = 0; k < O->nw; k++) w[k] = SRIntervalMid(pl.wbox[k]);
      SRPlantPeriodSimulate(&pl, x, u, y);
      OracleFlow(O, x, u, w, 4000, yo);
      for (int i = 0; i < O->n; i++) assert_true(fabs(y[i] - yo[i]) <= 1e-5 * (1 + fabs(yo[i])));
      SRPlantPeriodJacobian(&pl, x, u, Jx, Ju);
      for (int j = 0; j < O->n + O->nu; j++) {
        double xp[NMAX], xm[NMAX], up[NMAX], um[NMAX], yp[NMAX], ym[NMAX];
        const double h = 1e-5 * (1 + fabs(j < O->n ? x[j] : u[j - O->n]));
        memcpy(xp, x, sizeof xp), memcpy(xm, x, sizeof xm), memcpy(up, u, sizeof up), memcpy(um, u, sizeof um);
        if (j < O->n) xp[j] += h, xm[j] -= h;
        else up[j - O->n] += h, um[j - O->n] -= h;
        OracleFlow(O, xp, up, w, 400, yp);
        OracleFlow(O, xm, um, w, 400, ym);
        for (int i = 0; i < O->n; i++) {
          const double fd = (yp[i] - ym[i]) / (2 * h), J = j < O->n ? Jx[i * O->n + j] : Ju[i * O->nu + j - O->n];
          if (!(fabs(J - fd) <= 1e-4 * (1 + fabs(fd)))) print_message("%s J[%d][%d] = %.10g, differences %.10g\n", O->name, i, j, J, fd);
          assert_true(fabs(J - fd) <= 1e-4 * (1 + fabs(fd)));
        }
      }
    }
    SRPlantFree(&pl);
  }
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_enclosure_contains_oracle_images),
    cmocka_unit_test(test_block_plain_and_affine_controls),
    cmocka_unit_test(test_simulation_and_jacobian),
  };
  int fails;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SRTestJobsDir(&jobs_dir));
  fails = cmocka_run_group_tests_name("system_ode", tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
