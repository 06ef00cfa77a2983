/* One closed loop for every path (issue 36, SPEC §16): for the ARCH TORA and ACC plant files
   (input and control lines, no bound) with their ONNX controllers, -model controller is the loop
   of the file's lines on every path:
     - the point map SRModelEvaluate (re-check, safe, training) is bitwise the one that
       src/abstraction/plantstep.c simulates (SRPlantStepSimulate), batched or one by one;
     - SREnclosureComputeBoxes with each -enclosure is bitwise plantstep's enclosure with the
       network bound docs/systems.md names (interval: the interval pass; taylor1, affine: affine
       forms forward; crown: CROWN; both: the intersection of interval and taylor1), and holds
       the point map's images of sampled points of each box;
     - the model's own Taylor and interval enclosures (of SPEC §3's controller) refuse the loop;
     - SRModelVJP is the derivative of the point map (central differences in a few parameters);
     - a network of the wrong input count is refused in one line naming the plant file.
   Serial. */
#include <simreach/network.h>
#include <simreach/verify.h>
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

static const char *jobs_dir = NULL;

static const struct {
  const char *dir, *net;
} loops[] = {
  {"tora", "controllerTora.onnx"},
  {"acc", "controller_5_20.onnx"},
};

static void Load(int l, SRSystem *sys, SRModel *model)
{
  char  path[PETSC_MAX_PATH_LEN];
  SRMLP mlp;
  CHK(PetscSNPrintf(path, sizeof path, "%s/arch/%s/plant.txt", jobs_dir, loops[l].dir));
  CHK(SRSystemCreateFromPlantFile(PETSC_COMM_SELF, path, NULL, sys));
  assert_true(SRSystemIsLoop(*sys));
  CHK(PetscSNPrintf(path, sizeof path, "%s/arch/%s/%s", jobs_dir, loops[l].dir, loops[l].net));
  CHK(SRNetworkLoad(PETSC_COMM_SELF, path, NULL, &mlp));
  CHK(SRModelCreateFromMLP(*sys, SR_MODEL_CONTROLLER, mlp, path, model));
  assert_true(SRModelIsLoop(*model));
}

static double U01(uint64_t *c) { return (double)((*c = *c * 6364136223846793005ULL + 1442695040888963407ULL) >> 11) * 0x1p-53; }

static void test_one_loop_every_path(void **state)
{
  if (!jobs_dir) skip();
  for (int l = 0; l < 2; l++) {
    SRSystem             sys;
    SRModel              model;
    SRPlantStep          st[3];
    SRPlantPeriodOptions o;
    const PetscInt       n = (l == 0) ? 4 : 6, NB = 6;
    double               X[6 * 24], Y[6 * 24], y1[6], y2[6], boxes[6 * 2 * 6], E[6 * 2 * 6], Es[6 * 2 * 6];
    SRCellStatus         s1[6], s2[6];
    uint64_t             c = 36 + (uint64_t)l;
    Load(l, &sys, &model);
    assert_int_equal(sys->n, n);
    SRPlantPeriodOptionsDefault(&o);
    CHK(SRPlantStepCreate(sys->plant, model->mlp, PETSC_FALSE, SR_NET_FORWARD, &o, &st[0]));
    CHK(SRPlantStepCreate(sys->plant, model->mlp, PETSC_TRUE, SR_NET_FORWARD, &o, &st[1]));
    CHK(SRPlantStepCreate(sys->plant, model->mlp, PETSC_TRUE, SR_NET_CROWN, &o, &st[2]));
    /* the point map: batched, one by one, and plantstep's simulation agree bitwise */
    for (PetscInt i = 0; i < 24; i++)
      for (PetscInt d = 0; d < n; d++) X[i * n + d] = sys->dlo[d] + (sys->dhi[d] - sys->dlo[d]) * U01(&c);
    CHK(SRModelEvaluate(model, 24, X, Y));
    for (PetscInt i = 0; i < 24; i++) {
      CHK(SRModelEvaluate(model, 1, X + i * n, y1));
      CHK(SRPlantStepSimulate(st[0], X + i * n, NULL, y2));
      assert_memory_equal(y1, Y + i * n, n * sizeof(double));
      assert_memory_equal(y1, y2, n * sizeof(double));
    }
    /* small boxes around some of the points (1 % of D) */
    for (PetscInt b = 0; b < NB; b++)
      for (PetscInt d = 0; d < n; d++) {
        const double w = 0.005 * (sys->dhi[d] - sys->dlo[d]);
        boxes[2 * n * b + d]     = X[b * n + d] - w;
        boxes[2 * n * b + n + d] = X[b * n + d] + w;
      }
    for (int t = 0; t < 5; t++) {
      const SREnclosureType type = (SREnclosureType)t;
      CHK(SREnclosureComputeBoxes(model, type, NB, boxes, E, s1));
      if (type != SR_ENCLOSURE_BOTH) {
        const int which = type == SR_ENCLOSURE_INTERVAL ? 0 : type == SR_ENCLOSURE_CROWN ? 2 : 1;
        CHK(SRPlantStepEncloseBoxes(st[which], NB, boxes, Es, s2));
        assert_memory_equal(E, Es, 2 * n * NB * sizeof(double));
        assert_memory_equal(s1, s2, NB * sizeof(SRCellStatus));
      }
      for (PetscInt b = 0; b < NB; b++) {
        assert_int_equal(s1[b], SR_CELL_OK);
        for (int k = 0; k < 40; k++) { /* corners first, then random points of the box */
          double x[6], y[6];
          for (PetscInt d = 0; d < n; d++) {
            const double lo = boxes[2 * n * b + d], hi = boxes[2 * n * b + n + d];
            x[d] = k < 16 ? (((k >> (d % 4)) & 1) ? hi : lo) : lo + (hi - lo) * U01(&c);
          }
          CHK(SRModelEvaluate(model, 1, x, y));
          for (PetscInt d = 0; d < n; d++) {
            const double slack = 1e-9 * (1 + fabs(y[d])); /* RK4 with 20 steps against the validated flow */
            if (!(E[2 * n * b + d] - slack <= y[d] && y[d] <= E[2 * n * b + n + d] + slack)) print_error("%s %s box %d state %d: %.17g outside [%.17g, %.17g]\n", loops[l].dir, SREnclosureTypes[type], (int)b, (int)d, y[d], E[2 * n * b + d], E[2 * n * b + n + d]);
            assert_true(E[2 * n * b + d] - slack <= y[d] && y[d] <= E[2 * n * b + n + d] + slack);
          }
        }
      }
    }
    { /* the model's own enclosures of SPEC §3 refuse the loop */
      double         lo[6], hi[6], elo[6], ehi[6];
      PetscErrorCode ierr;
      for (PetscInt d = 0; d < n; d++) lo[d] = boxes[d], hi[d] = boxes[n + d];
      CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = SRModelEncloseInterval(model, lo, hi, elo, ehi);
      assert_int_not_equal(ierr, 0);
      ierr = SRModelEncloseTaylor(model, lo, hi, elo, ehi);
      assert_int_not_equal(ierr, 0);
      CHK(PetscPopErrorHandler());
    }
    { /* the VJP against central differences of the point map in a few parameters */
      const PetscInt P = model->mlp->nparams;
      double        *g, dY[6], ya[6], yb[6];
      CHK(PetscCalloc1(P, &g));
      for (PetscInt d = 0; d < n; d++) dY[d] = U01(&c) - 0.5;
      CHK(SRModelEvaluate(model, 1, X, y1));
      CHK(SRModelVJP(model, 1, X, dY, g));
      for (PetscInt q = 0; q < 4; q++) {
        const PetscInt p = model->mlp->woff[model->mlp->nlayers - 1] + q; /* the last layer's weights */
        const double   v = model->mlp->params[p], h = 1e-6 * (1 + fabs(v));
        double         fd = 0;
        model->mlp->params[p] = v + h;
        CHK(SRModelEvaluate(model, 1, X, ya));
        model->mlp->params[p] = v - h;
        CHK(SRModelEvaluate(model, 1, X, yb));
        model->mlp->params[p] = v;
        for (PetscInt d = 0; d < n; d++) fd += dY[d] * (ya[d] - yb[d]) / (2 * h);
        if (!(fabs(fd - g[p]) <= 1e-5 * (1 + fabs(fd)))) print_error("%s VJP param %d: %.10g, differences %.10g\n", loops[l].dir, (int)p, g[p], fd);
        assert_true(fabs(fd - g[p]) <= 1e-5 * (1 + fabs(fd)));
      }
      CHK(PetscFree(g));
    }
    for (int k = 0; k < 3; k++) CHK(SRPlantStepDestroy(&st[k]));
    CHK(SRModelDestroy(&model));
    CHK(SRSystemDestroy(&sys));
  }
}

/* the TORA network on the ACC loop: refused in one line naming the plant file and its input lines */
static void test_refuses_mismatched_network(void **state)
{
  SRSystem       sys;
  SRModel        model = NULL;
  SRMLP          mlp;
  char           path[PETSC_MAX_PATH_LEN];
  const char    *msg;
  char          *specific = NULL;
  PetscErrorCode ierr;
  if (!jobs_dir) skip();
  CHK(PetscSNPrintf(path, sizeof path, "%s/arch/acc/plant.txt", jobs_dir));
  CHK(SRSystemCreateFromPlantFile(PETSC_COMM_SELF, path, NULL, &sys));
  CHK(PetscSNPrintf(path, sizeof path, "%s/arch/tora/controllerTora.onnx", jobs_dir));
  CHK(SRNetworkLoad(PETSC_COMM_SELF, path, NULL, &mlp));
  CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SRModelCreateFromMLP(sys, SR_MODEL_CONTROLLER, mlp, path, &model);
  CHK(PetscPopErrorHandler());
  assert_int_not_equal(ierr, 0);
  assert_null(model);
  CHK(PetscErrorMessage(ierr, &msg, &specific));
  assert_non_null(specific);
  assert_non_null(strstr(specific, "the network has 4 inputs; plant file"));
  assert_non_null(strstr(specific, "has 5 input lines"));
  assert_null(strchr(specific, '\n'));
  CHK(SRSystemDestroy(&sys));
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_one_loop_every_path),
    cmocka_unit_test(test_refuses_mismatched_network),
  };
  int fails;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SRTestJobsDir(&jobs_dir));
  fails = cmocka_run_group_tests_name("plantloop", tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
