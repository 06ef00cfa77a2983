/* Enclosure benchmark (SPEC §7; not a test): SREnclosureCompute over an N x N pendulum grid,
   dynamics model 2-W1-..-2, cells split in contiguous blocks over the ranks.
     mpiexec -n R bench_enclosure -grid 1000 -mlp_widths 32,32 -enclosure interval [-reps 3]
       [-dump prefix]   (rank 0 writes prefix.boxes / prefix.params / prefix.E for the NumPy reference)
   Prints one line: RESULT <type> <widths> <ranks> <cells> <wall seconds> <CPU seconds> (best of
   reps, max over ranks) <flops per cell (PetscLogFlops count)> <mean width of E over the cells>.
   CPU seconds are what the process got from a shared machine; wall seconds include waiting. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime in ISO C mode */
#include <simreach.h>

#include <time.h>

static double CPUSeconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
  SRSystem        sys;
  SRModel         model;
  SRCells         cells;
  PetscInt        grid = 1000, widths[SR_MAX_LAYERS] = { 32, 32 }, nw = SR_MAX_LAYERS, reps = 3, counts[2];
  SREnclosureType type                     = SR_ENCLOSURE_INTERVAL;
  char            dump[PETSC_MAX_PATH_LEN] = "";
  PetscBool       flg;
  PetscMPIInt     rank, size;
  PetscInt        K, kstart, kend;
  double         *E, best = INFINITY, bestcpu = INFINITY, wsum = 0, wtot;
  SRCellStatus   *st;
  PetscLogDouble  f0, f1;
  SRActivation    act = SR_ACT_TANH;
  SRModelType     mt  = SR_MODEL_DYNAMICS;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "Enclosure benchmark"));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Enclosure benchmark", NULL);
  PetscCall(PetscOptionsInt("-grid", "cells per dimension of the pendulum grid", NULL, grid, &grid, &flg));
  PetscCall(PetscOptionsIntArray("-mlp_widths", "hidden widths", NULL, widths, &nw, &flg));
  if (!flg) nw = 2;
  PetscCall(PetscOptionsEnum("-enclosure", "enclosure type", NULL, SREnclosureTypes, (PetscEnum)type, (PetscEnum *)&type, &flg));
  PetscCall(PetscOptionsInt("-reps", "repetitions (best is reported)", NULL, reps, &reps, &flg));
  PetscCall(PetscOptionsEnum("-act", "hidden activation (SPEC §14): tanh, relu, sigmoid, linear", NULL, SRActivations, (PetscEnum)act, (PetscEnum *)&act, &flg));
  PetscCall(PetscOptionsEnum("-model", "dynamics or controller", NULL, SRModelTypes, (PetscEnum)mt, (PetscEnum *)&mt, &flg));
  PetscCall(PetscOptionsString("-dump", "file prefix for the NumPy reference", NULL, dump, dump, sizeof dump, &flg));
  PetscOptionsEnd();

  PetscCall(SRSystemCreate(PETSC_COMM_WORLD, "pendulum", NULL, &sys));
  PetscCall(SRModelCreate(sys, mt, nw, widths, &model));
  PetscCall(SRMLPInitialize(model->mlp, 42));
  for (PetscInt l = 0; l < model->mlp->nlayers - 1; l++) PetscCall(SRMLPSetActivation(model->mlp, l, act));
  counts[0] = counts[1] = grid;
  PetscCall(SRCellsCreateGrid(sys, counts, &cells));
  K      = cells->K;
  kstart = (K * rank) / size;
  kend   = (K * (rank + 1)) / size;
  PetscCall(PetscMalloc2(4 * (kend - kstart), &E, kend - kstart, &st));
  PetscCall(PetscGetFlops(&f0));
  for (PetscInt r = 0; r < reps; r++) {
    double t0, c0, t[2], tmax[2];
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    t0 = MPI_Wtime();
    c0 = CPUSeconds();
    PetscCall(SREnclosureCompute(model, type, cells, kstart, kend, E, st));
    t[0] = MPI_Wtime() - t0;
    t[1] = CPUSeconds() - c0;
    PetscCallMPI(MPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    best    = PetscMin(best, tmax[0]);
    bestcpu = PetscMin(bestcpu, tmax[1]);
  }
  PetscCall(PetscGetFlops(&f1));
  for (PetscInt k = 0; k < kend - kstart; k++)
    wsum += (E[4 * k + 2] - E[4 * k]) + (E[4 * k + 3] - E[4 * k + 1]);
  PetscCallMPI(MPI_Allreduce(&wsum, &wtot, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
  {
    char ws[64] = "2";
    for (PetscInt l = 0; l < nw; l++)
      PetscCall(PetscSNPrintf(ws + strlen(ws), sizeof ws - strlen(ws), "-%" PetscInt_FMT, widths[l]));
    PetscCall(PetscStrlcat(ws, mt == SR_MODEL_DYNAMICS ? "-2" : "-1", sizeof ws));
    PetscCall(PetscStrlcat(ws, act == SR_ACT_TANH ? "" : (act == SR_ACT_RELU ? "(relu)" : "(other)"), sizeof ws));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "RESULT %s %s %d %" PetscInt_FMT " %.6f %.6f %.1f %.9g\n", SREnclosureTypes[type], ws, size, K, best, bestcpu, (f1 - f0) / reps / (kend - kstart), wtot / (2.0 * K)));
  }
  if (dump[0] && size == 1) {
    char  fn[PETSC_MAX_PATH_LEN + 16];
    FILE *fp;
    PetscCall(PetscSNPrintf(fn, sizeof fn, "%s.boxes", dump));
    fp = fopen(fn, "wb");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", fn);
    for (PetscInt k = 0; k < K; k++) {
      double lo[2], hi[2];
      SRCellsBoxOuter(cells, k, lo, hi);
      fwrite(lo, sizeof(double), 2, fp);
      fwrite(hi, sizeof(double), 2, fp);
    }
    fclose(fp);
    PetscCall(PetscSNPrintf(fn, sizeof fn, "%s.params", dump));
    fp = fopen(fn, "wb");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", fn);
    fwrite(model->mlp->params, sizeof(double), model->mlp->nparams, fp);
    fclose(fp);
    PetscCall(PetscSNPrintf(fn, sizeof fn, "%s.E", dump));
    fp = fopen(fn, "wb");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", fn);
    fwrite(E, sizeof(double), 4 * K, fp);
    fclose(fp);
  }
  PetscCall(PetscFree2(E, st));
  PetscCall(SRCellsDestroy(&cells));
  PetscCall(SRModelDestroy(&model));
  PetscCall(SRSystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return 0;
}
