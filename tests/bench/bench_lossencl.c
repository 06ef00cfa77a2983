/* Benchmark (not a test): the cost of L_encl (SPEC §6) in a training step.  One Adam-free phi
   step = task loss + L_sim on a minibatch (the seed's step) against the same step plus L_encl
   over all cells with its gradient through the interval pass, for the default study's setting
   (pendulum controller, -control_steps 10, 16-16 MLP, 8 x 8 cells) and the pendulum world model.
   Prints steps per second and the ratio.  Each figure is the best of three 0.5 s windows.
     bench_lossencl [-batch 64] [-seconds 0.5] */
#include <simreach.h>

typedef struct {
  const char *label;
  SRModelType type;
  PetscInt    steps;
} Case;

static PetscErrorCode Bench(const Case *cs, PetscInt B, double seconds)
{
  SRSystem        sys;
  SRModel         model;
  SRCells         cells;
  SRSuccessorList T;
  SRLossParams    par = { .tau = 0.05, .eps = 0.05, .lambda_eps = 0.1, .assign = SR_ASSIGN_HARD, .assign_neighbors = 1 };
  const PetscInt  counts[2] = { 8, 8 }, widths[2] = { 16, 16 };
  double         *X, *Y, *dY, *g, rate[2] = { 0, 0 };
  PetscInt        K, n;

  PetscFunctionBeginUser;
  PetscCall(SRSystemCreate(PETSC_COMM_SELF, "pendulum", NULL, &sys));
  sys->control_steps = cs->steps;
  PetscCall(SRModelCreate(sys, cs->type, 2, widths, &model));
  PetscCall(SRMLPInitialize(model->mlp, 1));
  PetscCall(SRCellsCreateGrid(sys, counts, &cells));
  K = cells->K;
  n = cells->n;
  PetscCall(SRSuccessorListCreate(K, 2 * K, &T));
  for (PetscInt k = 0; k < K; k++) { /* T(k) = {k, k + 1}: a typical short target list */
    T.ptr[k]         = 2 * k;
    T.idx[2 * k]     = k;
    T.idx[2 * k + 1] = (k + 1) % K;
  }
  T.ptr[K] = 2 * K;
  PetscCall(PetscMalloc4(B * n, &X, B * n, &Y, B * n, &dY, model->mlp->nparams, &g));
  for (PetscInt i = 0; i < B * n; i++) X[i] = SRRandomRange(1, SR_STREAM_TEST, (uint64_t)i, sys->dlo[i % n], sys->dhi[i % n]);
  for (int withencl = 0; withencl < 2; withencl++)
    for (int rep = 0; rep < 3; rep++) {
      const double t0 = MPI_Wtime();
      double       t  = t0, task, le;
      PetscInt     steps = 0;
      SRLossValues val;
      while (t - t0 < seconds || steps < 3) {
        PetscCall(PetscArrayzero(g, model->mlp->nparams));
        PetscCall(SRModelTaskLoss(model, B, X, &task, g));
        PetscCall(SRModelEvaluate(model, B, X, Y));
        PetscCall(SRLossSim(cells, &T, &par, B, X, Y, &val, dY, NULL));
        PetscCall(SRModelVJP(model, B, X, dY, g));
        if (withencl) PetscCall(SRLossEncl(model, cells, &T, par.tau, 1.0, &le, g, NULL));
        steps++;
        t = MPI_Wtime();
      }
      rate[withencl] = PetscMax(rate[withencl], steps / (t - t0));
    }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-34s batch %4" PetscInt_FMT ", %" PetscInt_FMT " cells: task + L_sim %9.1f steps/s, + L_encl %9.1f steps/s, ratio %.2f\n", cs->label, B, K, rate[0], rate[1], rate[0] / rate[1]));
  PetscCall(PetscFree4(X, Y, dY, g));
  PetscCall(SRSuccessorListDestroy(&T));
  PetscCall(SRCellsDestroy(&cells));
  PetscCall(SRModelDestroy(&model));
  PetscCall(SRSystemDestroy(&sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt   B       = 64;
  PetscReal  seconds = 0.5;
  const Case cases[] = { { "pendulum controller, 10 steps/ctrl", SR_MODEL_CONTROLLER, 10 }, { "pendulum controller, 1 step/ctrl", SR_MODEL_CONTROLLER, 1 }, { "pendulum world model", SR_MODEL_DYNAMICS, 1 } };

  PetscCall(PetscInitialize(&argc, &argv, NULL, "bench_lossencl: cost of L_encl in a training step"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-batch", &B, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-seconds", &seconds, NULL));
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) PetscCall(Bench(&cases[c], B, seconds));
  PetscCall(PetscFinalize());
  return 0;
}
