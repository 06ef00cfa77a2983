/* The step of the abstraction for an ARCH closed loop (src/abstraction/plantstep.c, SPEC §16),
   without a command.  Oracle: the closed loop written out here by hand — the benchmark's
   network inputs and control (TORA: u = N(x) - 10; ACC: the five inputs v_set + 1, T_gap + 1,
   v_ego + 1, x_lead - x_ego + 1, v_lead - v_ego + 1 and a_ego = N), the network evaluated by a
   plain forward pass written here (libm tanh, the file's transforms), the vector field by
   hand, RK4 with 2000 steps per period.  On a small grid of a region of each plant, every
   sampled point's image (corners and random points of each cell) must lie in its cell's
   enclosure and in a cell of its certified list (the grid cells meeting the enclosure, the
   sink when the enclosure leaves the region); with the flow's planted shrink some must not.
   Serial. */
#include <simreach/network.h>
#include <simreach/private/plantstep.h>
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
  const char *dir, *net;
  int         n, N; /* states, cells per dimension */
  double      lo[NMAX], hi[NMAX];
  void (*inputs)(const double *x, double *in);
  void (*control)(const double *y, double *u);
  void (*field)(const double *x, const double *u, double *d);
} Loop;

static void InTora(const double *x, double *in) { memcpy(in, x, 4 * sizeof(double)); }
static void UTora(const double *y, double *u) { u[0] = y[0] - 10; }
static void FTora(const double *x, const double *u, double *d) { d[0] = x[1], d[1] = -x[0] + 0.1 * sin(x[2]), d[2] = x[3], d[3] = u[0]; }
static void InAcc(const double *x, double *in)
{
  in[0] = 30 + 1.0, in[1] = 1.4 + 1.0, in[2] = x[4] + 1, in[3] = x[0] - x[3] + 1, in[4] = x[1] - x[4] + 1;
}
static void UAcc(const double *y, double *u) { u[0] = y[0]; }
static void FAcc(const double *x, const double *u, double *d)
{
  d[0] = x[1], d[1] = x[2], d[2] = -2 * x[2] - 4 - 0.0001 * x[1] * x[1];
  d[3] = x[4], d[4] = x[5], d[5] = -2 * x[5] + 2 * u[0] - 0.0001 * x[4] * x[4];
}

static const Loop loops[] = {
  {"tora", "controllerTora.onnx", 4, 4, {-1, -1, -1, -1}, {1, 1, 1, 1}, InTora, UTora, FTora},
  {"acc", "controller_5_20.onnx", 6, 2, {90, 32, -0.1, 10, 30, -0.1}, {110, 32.2, 0.1, 11, 30.2, 0.1}, InAcc, UAcc, FAcc},
};

/* the network at a point, written out: transforms, affine layers, activations (libm) */
static void Net(SRMLP mlp, const double *in, double *out)
{
  double a[1024], b[1024];
  for (PetscInt j = 0; j < mlp->width[0]; j++) {
    a[j] = in[j];
    if (mlp->has_in) a[j] = (fmin(fmax(a[j], mlp->inlo[j]), mlp->inhi[j]) - mlp->inmean[j]) / mlp->inrange[j];
  }
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
    for (PetscInt o = 0; o < wout; o++) {
      double z = mlp->params[mlp->boff[l] + o];
      for (PetscInt j = 0; j < win; j++) z += mlp->params[mlp->woff[l] + o * win + j] * a[j];
      switch (mlp->act[l]) {
      case SR_ACT_TANH: z = tanh(z); break;
      case SR_ACT_RELU: z = z > 0 ? z : 0; break;
      case SR_ACT_SIGMOID: z = 1 / (1 + exp(-z)); break;
      default: break;
      }
      b[o] = z;
    }
    memcpy(a, b, (size_t)wout * sizeof(double));
  }
  for (PetscInt o = 0; o < mlp->width[mlp->nlayers]; o++) out[o] = mlp->has_out ? a[o] * mlp->outscale[o] + mlp->outoffset[o] : a[o];
}

static void Image(const Loop *L, SRMLP mlp, double T, const double *x, double *y)
{
  double in[NMAX], out[NMAX], u[NMAX], k1[NMAX], k2[NMAX], k3[NMAX], k4[NMAX], s[NMAX];
  const int N = 2000;
  const double h = T / N;
  L->inputs(x, in);
  Net(mlp, in, out);
  L->control(out, u);
  memcpy(y, x, sizeof(double) * L->n);
  for (int j = 0; j < N; j++) {
    L->field(y, u, k1);
    for (int i = 0; i < L->n; i++) s[i] = y[i] + 0.5 * h * k1[i];
    L->field(s, u, k2);
    for (int i = 0; i < L->n; i++) s[i] = y[i] + 0.5 * h * k2[i];
    L->field(s, u, k3);
    for (int i = 0; i < L->n; i++) s[i] = y[i] + h * k3[i];
    L->field(s, u, k4);
    for (int i = 0; i < L->n; i++) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
}

/* the cells of the grid meeting E: index ranges a..z per dimension, sink when E leaves the region */
static void List(const Loop *L, const double *E, int *a, int *z, bool *sink)
{
  *sink = false;
  for (int d = 0; d < L->n; d++) {
    const double w = (L->hi[d] - L->lo[d]) / L->N;
    if (E[d] < L->lo[d] || E[L->n + d] > L->hi[d]) *sink = true;
    a[d] = (int)floor((E[d] - L->lo[d]) / w) - 1; /* one cell of slack each side: the list is a superset */
    z[d] = (int)floor((E[L->n + d] - L->lo[d]) / w) + 1;
    a[d] = a[d] < 0 ? 0 : a[d];
    z[d] = z[d] > L->N - 1 ? L->N - 1 : z[d];
  }
}

/* images outside the enclosure, images in no listed cell (nor the listed sink) */
static void Check(const Loop *L, SRMLP mlp, double T, PetscBool affine, double shrink, int *outside, int *unlisted, int *failed, int *ncell)
{
  SRPlant              pl;
  SRPlantPeriodOptions o;
  SRPlantStep          s;
  char                 path[PETSC_MAX_PATH_LEN];
  int                  K = 1;
  double              *boxes, *E;
  SRCellStatus        *st;
  uint64_t             ri = 0;

  CHK(PetscSNPrintf(path, sizeof path, "%s/arch/%s/plant.txt", jobs_dir, L->dir));
  CHK(SRPlantRead(PETSC_COMM_SELF, path, &pl));
  for (int d = 0; d < L->n; d++) K *= L->N;
  SRPlantPeriodOptionsDefault(&o);
  o.flow.shrink = shrink;
  CHK(SRPlantStepCreate(&pl, mlp, affine, SR_NET_BEST, &o, &s));
  CHK(PetscMalloc3(2 * L->n * K, &boxes, 2 * L->n * K, &E, K, &st));
  for (int k = 0; k < K; k++)
    for (int d = 0, r = k; d < L->n; d++, r /= L->N) {
      const double w = (L->hi[d] - L->lo[d]) / L->N;
      boxes[2 * L->n * k + d]        = L->lo[d] + w * (r % L->N);
      boxes[2 * L->n * k + L->n + d] = r % L->N == L->N - 1 ? L->hi[d] : L->lo[d] + w * (r % L->N + 1);
    }
  CHK(SRPlantStepEncloseBoxes(s, K, boxes, E, st));
  *outside = *unlisted = *failed = 0;
  *ncell   = K;
  for (int k = 0; k < K; k++) {
    const double *b = boxes + 2 * L->n * k, *Ek = E + 2 * L->n * k;
    int           a[NMAX], z[NMAX];
    bool          sink;
    if (st[k] != SR_CELL_OK) {
      (*failed)++;
      continue;
    }
    List(L, Ek, a, z, &sink);
    for (int q = 0; q < (1 << L->n) + 16; q++) {
      double x[NMAX], y[NMAX], ys[NMAX];
      bool   out = false, in_region = true, listed = true;
      for (int d = 0; d < L->n; d++) x[d] = q < (1 << L->n) ? ((q >> d & 1) ? b[L->n + d] : b[d]) : b[d] + (b[L->n + d] - b[d]) * SRRandomUniform(5, SR_STREAM_TEST, ri++);
      Image(L, mlp, T, x, y);
      CHK(SRPlantStepSimulate(s, x, NULL, ys)); /* the library's own simulation agrees with the oracle */
      for (int d = 0; d < L->n; d++) {
        const double tol = 1e-9 * (1 + fabs(y[d])), w = (L->hi[d] - L->lo[d]) / L->N;
        int          j;
        assert_true(fabs(ys[d] - y[d]) <= 1e-4 * (1 + fabs(y[d])));
        if (y[d] < Ek[d] - tol || y[d] > Ek[L->n + d] + tol) out = true;
        if (y[d] < L->lo[d] || y[d] > L->hi[d]) in_region = false;
        j = (int)floor((y[d] - L->lo[d]) / w);
        if (j < a[d] || j > z[d]) listed = false;
      }
      if (out) (*outside)++;
      if (in_region ? !listed : !sink) (*unlisted)++;
    }
  }
  CHK(PetscFree3(boxes, E, st));
  CHK(SRPlantStepDestroy(&s));
  SRPlantFree(&pl);
}

static void test_arch_loops_against_simulation(void **state)
{
  if (!jobs_dir) skip();
  for (size_t l = 0; l < sizeof loops / sizeof loops[0]; l++) {
    const Loop *L = &loops[l];
    SRMLP       mlp;
    SRPlant     pl;
    char        path[PETSC_MAX_PATH_LEN];
    int         outside, unlisted, failed, K, s_out, s_unl, s_fail;
    CHK(PetscSNPrintf(path, sizeof path, "%s/arch/%s/%s", jobs_dir, L->dir, L->net));
    CHK(SRNetworkLoad(PETSC_COMM_SELF, path, NULL, &mlp));
    CHK(PetscSNPrintf(path, sizeof path, "%s/arch/%s/plant.txt", jobs_dir, L->dir));
    CHK(SRPlantRead(PETSC_COMM_SELF, path, &pl));
    for (int affine = 1; affine >= 0; affine--) { /* the network over affine forms, then intervals */
      Check(L, mlp, pl.period, (PetscBool)affine, 0.0, &outside, &unlisted, &failed, &K);
      print_message("%-5s %-8s %d cells: %d flows failed, %d images outside their enclosure, %d in no listed cell\n", L->dir, affine ? "affine" : "interval", K, failed, outside, unlisted);
      assert_true(failed <= K / 10); /* else the check is vacuous */
      assert_int_equal(outside, 0);
      assert_int_equal(unlisted, 0);
    }
    Check(L, mlp, pl.period, PETSC_TRUE, 0.3, &s_out, &s_unl, &s_fail, &K); /* planted: each enclosure shrunk by 30 % */
    print_message("%-5s planted shrink: %d images outside their enclosure\n", L->dir, s_out);
    assert_true(s_out > 0);
    SRPlantFree(&pl);
    CHK(SRMLPDestroy(&mlp));
  }
}

/* the network's inputs and outputs must be the file's: a network of the wrong width is refused */
static void test_refuses_mismatched_network(void **state)
{
  SRPlant              pl;
  SRMLP                mlp;
  SRPlantStep          s = NULL;
  SRPlantPeriodOptions o;
  char                 path[PETSC_MAX_PATH_LEN];
  PetscErrorCode       ierr;
  if (!jobs_dir) skip();
  CHK(PetscSNPrintf(path, sizeof path, "%s/arch/acc/plant.txt", jobs_dir));
  CHK(SRPlantRead(PETSC_COMM_SELF, path, &pl));
  CHK(PetscSNPrintf(path, sizeof path, "%s/arch/tora/controllerTora.onnx", jobs_dir));
  CHK(SRNetworkLoad(PETSC_COMM_SELF, path, NULL, &mlp));
  SRPlantPeriodOptionsDefault(&o);
  CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SRPlantStepCreate(&pl, mlp, PETSC_TRUE, SR_NET_BEST, &o, &s);
  CHK(PetscPopErrorHandler());
  assert_int_not_equal(ierr, 0);
  assert_null(s);
  SRPlantFree(&pl);
  CHK(SRMLPDestroy(&mlp));
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_arch_loops_against_simulation),
    cmocka_unit_test(test_refuses_mismatched_network),
  };
  int fails;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SRTestJobsDir(&jobs_dir));
  fails = cmocka_run_group_tests_name("plantstep", tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
