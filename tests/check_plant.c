/* Plants a violation into run 0 of a results file, for tests/check.sh (SPEC §11):
     check_plant FILE.h5 edit   in cell 1's certified list (an index box), the successor that the
                                image of the cell's centre lies in is cut off (the box ends just
                                before it; final lists and the last checkpoint's slot);
     check_plant FILE.h5 shave  (1-D files) the listed cell that holds the top of cell 1's image
                                gets its upper face moved 1e-9 of a cell width below the largest
                                image of a dense sample of cell 1, and the cells above it leave
                                the list (final triple only).
   Prints the planted cell.  The network and cells are rebuilt from the file's options as
   `simreach check` does it. */
#include <simreach/private/results.h>
#include <simreach/private/run.h>
#include <math.h>
#include <string.h>


/* The results file stores C(k) as index boxes (SPEC §5): write C that way. */
static PetscErrorCode WriteBoxes(SRResults res, SRCells cells, const double *params, const double *theta, const SRSuccessorList *C)
{
  PetscInt *rows;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(cells->K * (2 * cells->n + 1), &rows));
  PetscCall(SRSuccessorListToBoxes(cells, C, rows));
  PetscCall(SRResultsWriteAbstraction(res, 0, PETSC_FALSE, params, theta, rows));
  PetscCall(PetscFree(rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Index boxes cannot lose one inner cell: cut the box of cell k just below (or above) drop in the
   first dimension where that keeps it non-empty, or drop the sink flag. */
static PetscErrorCode CutBox(SRCells cells, SRSuccessorList *C, PetscInt k, PetscInt drop)
{
  const PetscInt n = cells->n, rl = 2 * n + 1;
  PetscInt      *rows, *row;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(cells->K * rl, &rows));
  PetscCall(SRSuccessorListToBoxes(cells, C, rows));
  row = rows + rl * k;
  if (drop == cells->K) row[2 * n] = 0;
  else {
    PetscInt j = drop, i[SR_MAX_DIM], d;
    for (d = 0; d < n; d++) {
      i[d] = j % cells->grid[d];
      j /= cells->grid[d];
    }
    for (d = 0; d < n; d++) {
      if (i[d] > row[d]) {
        row[n + d] = i[d] - 1;
        break;
      }
      if (i[d] < row[n + d]) {
        row[d] = i[d] + 1;
        break;
      }
    }
    PetscCheck(d < n || row[2 * n], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "cell %" PetscInt_FMT ": its list is cell %" PetscInt_FMT " alone, nothing to cut", k, drop);
    if (d == n) row[n] = row[0] - 1; /* the box was that one cell: only the sink stays */
  }
  PetscCall(SRSuccessorListFromBoxes(cells, rows, C));
  PetscCall(PetscFree(rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  SRResults              res;
  const SRResultsLayout *lay;
  PetscOptions           opts;
  char                  *text;
  SRRun                  run;
  PetscInt               status, last, slot, K, n, k = 1, nd, ni;
  double                *theta, *params, *ds;
  PetscInt              *is;
  SRSuccessorList        C;
  PetscBool              shave;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCheck(argc == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "usage: check_plant FILE.h5 edit|shave");
  shave = !strcmp(argv[2], "shave");
  PetscCall(SRResultsOpen(PETSC_COMM_WORLD, argv[1], PETSC_TRUE, &res));
  PetscCall(SRResultsGetLayout(res, &lay));
  PetscCall(SRResultsGetOptionsText(res, &text));
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsInsertString(opts, text));
  PetscCall(PetscFree(text));
  PetscCall(PetscOptionsClearValue(opts, "-beta"));
  PetscCall(PetscOptionsClearValue(opts, "-tau"));
  PetscCall(PetscOptionsSetValue(opts, "-pretrain_epochs", "0"));
  PetscCall(PetscOptionsPush(opts));
  PetscCall(SRRunCreate(PETSC_COMM_WORLD, &run));
  PetscCall(SRRunSetFromOptions(run));
  PetscCall(SRRunSetGridPoint(run, lay->beta[0], lay->tau[0], lay->seed[0]));
  PetscCall(SRRunSetUp(run));
  PetscCall(PetscOptionsPop());
  K = lay->K;
  n = run->n;
  PetscCall(PetscMalloc2(lay->ntheta, &theta, lay->nparams, &params));
  PetscCall(SRResultsReadNetwork(res, 0, params));
  PetscCall(SRResultsReadAbstraction(res, 0, run->cells, theta, &C));
  PetscCall(PetscArraycpy(run->model->mlp->params, params, lay->nparams));
  /* a partition's stored theta is its interior boundaries (SPEC §4): the cells as stored */
  if (run->cells->partition) PetscCall(SRCellsPartitionSetTheta(run->cells, theta));
  if (!shave) {
    double   x[SR_MAX_DIM], y[SR_MAX_DIM];
    PetscInt drop;
    for (PetscInt d = 0; d < n; d++) x[d] = run->cells->partition ? run->cells->c[k * n + d] : theta[k * n + d];
    PetscCall(SRModelEvaluate(run->model, 1, x, y));
    drop = SRCellsAssign(run->cells, y);
    for (PetscInt d = 0; d < n; d++)
      if (y[d] < run->cells->dlo[d] || y[d] > run->cells->dhi[d]) drop = K;
    PetscCall(CutBox(run->cells, &C, k, drop));
    PetscCall(WriteBoxes(res, run->cells, params, theta, &C));
    /* the last checkpoint's slot holds the same lists (capacity layout of SRRunGetState) */
    PetscCall(SRResultsReadRunInfo(res, 0, &status, &last, &slot));
    PetscCall(SRRunGetStateSizes(run, &nd, &ni));
    PetscCall(PetscMalloc2(nd, &ds, ni, &is));
    PetscCall(SRResultsReadState(res, 0, slot, ds, is));
    PetscCall(SRRunSetState(run, ds, is));
    {
      /* the targets: the stored ones still in the cut list (T within C; at most -target_samples) */
      const SRSuccessorList *T0;
      SRSuccessorList        T;
      PetscInt               nnz = 0;
      PetscCall(SRAbstractionGetTargets(run->abs, &T0));
      PetscCall(SRSuccessorListCreate(K, T0->ptr[K] + K, &T));
      for (PetscInt c = 0; c < K; c++) {
        for (PetscInt t = T0->ptr[c]; t < T0->ptr[c + 1]; t++)
          for (PetscInt u = C.ptr[c]; u < C.ptr[c + 1]; u++)
            if (C.idx[u] == T0->idx[t]) {
              T.idx[nnz++] = T0->idx[t];
              break;
            }
        if (nnz == T.ptr[c]) T.idx[nnz++] = C.idx[C.ptr[c]];
        T.ptr[c + 1] = nnz;
      }
      PetscCall(SRAbstractionSetLists(run->abs, &C, &T));
      PetscCall(SRSuccessorListDestroy(&T));
    }
    PetscCall(SRRunGetState(run, ds, is));
    PetscCall(SRResultsWriteState(res, 0, slot, ds, is));
    PetscCall(PetscFree2(ds, is));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "planted: run 0 cell %" PetscInt_FMT ": successor %" PetscInt_FMT " removed\n", k, drop));
  } else {
    const double h = (run->cells->dhi[0] - run->cells->dlo[0]) / (double)run->cells->grid[0];
    double       lo, hi, ymax = -INFINITY, jlo, jhi;
    PetscInt     j, q;
    SRCells      cells = run->cells;
    PetscCheck(n == 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "check_plant shave: 1-D results files only");
    /* the worst of cells 1.. whose image top is inside D and in a cell other than itself */
    for (k = 1; k < K; k++) {
      double jb[1], je[1];
      if (cells->partition) SRCellsBoxOuter(cells, k, &lo, &hi);
      else {
        lo = theta[k] - theta[K + k];
        hi = theta[k] + theta[K + k];
      }
      ymax = -INFINITY;
      for (PetscInt s = 0; s <= 4096; s++) {
        double x = s == 4096 ? hi : lo + (hi - lo) * (double)s / 4096.0, y;
        PetscCall(SRModelEvaluate(run->model, 1, &x, &y));
        ymax = PetscMax(ymax, y);
      }
      j = SRCellsAssign(cells, &ymax);
      if (cells->partition) SRCellsBoxOuter(cells, j, jb, je);
      else {
        jb[0] = theta[j] - theta[K + j];
        je[0] = theta[j] + theta[K + j];
      }
      if (ymax > cells->dlo[0] + h && ymax < cells->dhi[0] - h && j != k && j < K - 1 && je[0] - ymax > 1e-6 * h && ymax - jb[0] > 1e-6 * h) break;
    }
    PetscCheck(k < K, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "check_plant shave: no cell to plant in");
    jhi = ymax - 1e-9 * h;
    if (cells->partition) theta[j] = jhi; /* boundary j + 1, the upper face of cell j (and the lower face of j + 1) */
    else {
      jlo          = theta[j] - theta[K + j];
      theta[j]     = 0.5 * (jlo + jhi);
      theta[K + j] = 0.5 * (jhi - jlo);
    }
    q            = C.ptr[k];
    for (PetscInt t = C.ptr[k]; t < C.ptr[k + 1]; t++)
      if (!(C.idx[t] > j)) C.idx[q++] = C.idx[t];
    {
      const PetscInt removed = C.ptr[k + 1] - q;
      for (PetscInt t = C.ptr[k + 1]; t < C.ptr[K]; t++) C.idx[t - removed] = C.idx[t];
      for (PetscInt i = k + 1; i <= K; i++) C.ptr[i] -= removed;
    }
    PetscCall(WriteBoxes(res, run->cells, params, theta, &C));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "planted: run 0 cell %" PetscInt_FMT ": image top %.17g, face of cell %" PetscInt_FMT " moved to %.17g\n", k, ymax, j, jhi));
  }
  PetscCall(SRSuccessorListDestroy(&C));
  PetscCall(PetscFree2(theta, params));
  PetscCall(SRRunDestroy(&run));
  PetscCall(PetscOptionsDestroy(&opts));
  PetscCall(SRResultsDestroy(&res));
  PetscCall(PetscFinalize());
  return 0;
}
