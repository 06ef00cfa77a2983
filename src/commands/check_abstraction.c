/* simreach check on an abstraction file of simreach verify (SPEC §10, §11): the same
   three-outcome re-check (src/abstraction/recheck.c, SRRecheckCell) as on a results file, so each cell is
   proven, falsified (a witness x in the exact cell whose directed-rounding image lies wholly
   outside its stored list) or unknown.

   Cells are split in the contiguous blocks of SRRecheckAll; a rank reads the index-box rows of
   its own block from the file in chunks and expands one row at a time into the explicit list
   SRRecheckCell takes (ascending cell indices, the sink as K), so no list-sized array is
   replicated.  The cells themselves are an SRCells of the file's grid or partition (K x n
   centres and widths on every rank; the re-check's containment tests need it).  Every per-cell
   result is a function of the cell alone: identical on any number of ranks. */
#include <simreach/private/commands.h>
#include <simreach/recheck.h>
#include <simreach/verify.h>
#include <petscviewer.h>

#define SR_CHECK_CHUNK 32768 /* cells per read and batch: the chunk of verify */

/* The cells of the file as an SRCells: the grid, or the partition with the file's boundaries. */
static PetscErrorCode SRCheckAbsCells_Private(SRSystem sys, SRAxes ax, SRCells *cells)
{
  PetscInt counts[SR_MAX_DIM];

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < ax->n; d++) counts[d] = ax->N[d];
  if (ax->is_grid) PetscCall(SRCellsCreateGrid(sys, counts, cells));
  else {
    double  *theta;
    PetscInt nt = 0;
    PetscCall(SRCellsCreatePartition(sys, counts, cells));
    PetscCall(PetscMalloc1(SRCellsPartitionNumTheta(*cells) + 1, &theta));
    for (PetscInt d = 0; d < ax->n; d++)
      for (PetscInt i = 1; i < ax->N[d]; i++) theta[nt++] = ax->glo[d][i]; /* exact doubles for a partition */
    PetscCall(SRCellsPartitionSetTheta(*cells, theta));
    PetscCall(PetscFree(theta));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The explicit list of an index-box row: cells with lo <= i <= hi (ascending k), then the sink K. */
static PetscErrorCode SRCheckAbsExpand_Private(SRAxes ax, PetscInt K, const int32_t *row, PetscInt *nlist, PetscInt **list, PetscInt *cap)
{
  const PetscInt n = ax->n;
  PetscInt64     cnt = 1;
  PetscInt       m = 0, i[SR_MAX_DIM] = {0, 0, 0}, lo[SR_MAX_DIM] = {0, 0, 0}, hi[SR_MAX_DIM] = {0, 0, 0};

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < n; d++) {
    lo[d] = row[d];
    hi[d] = row[n + d];
    cnt *= hi[d] >= lo[d] ? (PetscInt64)(hi[d] - lo[d] + 1) : 0;
  }
  PetscCheck(cnt + 1 <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "an index-box list of %" PetscInt64_FMT " cells is too long for this build's PetscInt", cnt);
  if (cnt + 1 > *cap) {
    PetscCall(PetscFree(*list));
    *cap = (PetscInt)(cnt + 1);
    PetscCall(PetscMalloc1(*cap, list));
  }
  if (cnt > 0) {
    for (PetscInt d = 0; d < n; d++) i[d] = lo[d];
    for (;;) {
      PetscInt k = 0;
      for (PetscInt d = n - 1; d >= 0; d--) k = k * ax->N[d] + i[d];
      (*list)[m++] = k;
      {
        PetscInt d = 0;
        while (d < n && i[d] == hi[d]) {
          i[d] = lo[d];
          d++;
        }
        if (d == n) break;
        i[d]++;
      }
    }
  }
  if (row[2 * n] & SR_LIST_SINK) (*list)[m++] = K;
  *nlist = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Cells [ks, ke) of this rank, SR_CHECK_CHUNK at a time: the batched first stage proves what
   it can against the stored rows; only the cells it leaves go through SRRecheckCell (bisection
   and the witness search), with their list expanded and the file's cells as an SRCells, built
   on the first such cell.  Memory: the chunk, the axes and the non-proven results. */
PetscErrorCode SRCheckAbstractionRows(MPI_Comm comm, const char file[], SRRecheckParams *par, SRRecheckResult *res, SRAbstractionHeader *hout)
{
  SRAbstractionFile          af;
  const SRAbstractionHeader *h;
  SRAxes                     ax;
  SRSystem                   sys;
  SRModel                    model;
  SRCells                    cells = NULL;
  SRRecheckBatch             batch;
  PetscMPIInt                size, rank;
  PetscInt                   K, ks, ke, cap = 0, nlist = 0, *list = NULL, nproven = 0, bmax = 0, pboxes, pdepth, nres = 0, rcap = 0;
  SRRecheckCellResult       *loc = NULL;
  int32_t                   *rows;
  PetscBool                 *proven;
  double                     boxes = 0;
  const double               t0 = MPI_Wtime();

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(res, sizeof(*res)));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(SRAbstractionFileOpen(comm, file, &af));
  PetscCall(SRAbstractionFileGetHeader(af, &h));
  *hout = *h;
  PetscCheck(h->K <= PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "simreach check %s: %" PetscInt64_FMT " cells; this build's PetscInt allows %d (configure PETSc --with-64-bit-indices)", file, h->K, PETSC_MAX_INT);
  PetscCall(SRAbstractionFileGetAxes(af, &ax));
  PetscCall(SRAbstractionFileValidateRows(af)); /* ranges and flags before any enclosure work (SPEC §11, §13) */
  PetscCall(SRAbstractionFileGetModel(af, &sys, &model));
  K = (PetscInt)h->K;
  par->builder = !strcmp(h->enclosure, "taylor1") ? SR_ENCLOSURE_TAYLOR1 : (!strcmp(h->enclosure, "both") ? SR_ENCLOSURE_BOTH : (!strcmp(h->enclosure, "crown") ? SR_ENCLOSURE_CROWN : (!strcmp(h->enclosure, "affine") ? SR_ENCLOSURE_AFFINE : SR_ENCLOSURE_INTERVAL)));
  {
    PetscInt64 a, b;
    SRVerifyOwnership(K, size, rank, &a, &b); /* the blocks of SRRecheckAll */
    ks = (PetscInt)a;
    ke = (PetscInt)b;
  }
  PetscCall(SRRecheckBatchCreate(model, ax, par, SR_CHECK_CHUNK, &batch));
  SRRecheckBatchProvenResult(batch, &pboxes, &pdepth);
  PetscCall(PetscMalloc2(SR_CHECK_CHUNK * SRListRowLength(ax->n), &rows, SR_CHECK_CHUNK, &proven));
  for (PetscInt k0 = ks; k0 < ke; k0 += SR_CHECK_CHUNK) {
    const PetscInt nb = PetscMin((PetscInt)SR_CHECK_CHUNK, ke - k0);
    PetscCall(SRAbstractionFileRead(af, k0, nb, rows, NULL));
    PetscCall(SRRecheckBatchProve(batch, k0, nb, rows, proven));
    for (PetscInt c = 0; c < nb; c++) {
      if (proven[c]) {
        nproven++;
        boxes += pboxes;
        bmax = PetscMax(bmax, pboxes);
        continue;
      }
      if (!cells) PetscCall(SRCheckAbsCells_Private(sys, ax, &cells));
      if (nres == rcap) {
        SRRecheckCellResult *grown;
        rcap = 2 * rcap + 64;
        PetscCall(PetscMalloc1(rcap, &grown));
        if (nres) PetscCall(PetscArraycpy(grown, loc, nres));
        PetscCall(PetscFree(loc));
        loc = grown;
      }
      PetscCall(SRCheckAbsExpand_Private(ax, K, rows + c * SRListRowLength(ax->n), &nlist, &list, &cap));
      PetscCall(SRRecheckCell(model, cells, k0 + c, nlist, list, par, &loc[nres]));
      nres++;
    }
  }
  PetscCall(SRRecheckGatherPartial(comm, K, nproven, boxes, bmax, nres, loc, t0, res));
  PetscCall(PetscFree2(rows, proven));
  PetscCall(PetscFree(loc));
  PetscCall(PetscFree(list));
  PetscCall(SRRecheckBatchDestroy(&batch));
  PetscCall(SRCellsDestroy(&cells));
  PetscCall(SRModelDestroy(&model));
  PetscCall(SRSystemDestroy(&sys));
  PetscCall(SRAbstractionFileClose(&af));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* simreach check FILE on an abstraction file (called by SRCommandCheck when the file is one). */
PetscErrorCode SRCommandCheckAbstraction(MPI_Comm comm, const char file[], int *exit_code)
{
  SRRecheckParams     par;
  SRRecheckResult     res;
  SRAbstractionHeader h;
  PetscInt            max_print = 20;
  PetscMPIInt         size;

  PetscFunctionBeginUser;
  *exit_code = SR_EXIT_UNPROVEN;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(SRRecheckParamsSetDefault(&par));
  PetscCall(SRRecheckParamsSetFromOptions(comm, &par));
  PetscOptionsBegin(comm, NULL, "simreach check on an abstraction file (SPEC §10, §11)", NULL);
  PetscCall(PetscOptionsInt("-max_print", "failing cells printed, >= 0", NULL, max_print, &max_print, NULL));
  PetscOptionsEnd();
  PetscCheck(max_print >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-max_print %" PetscInt_FMT ": allowed is >= 0", max_print);
  PetscCall(SRCheckUnusedOptions(comm));
  PetscCall(SRCheckAbstractionRows(comm, file, &par, &res, &h));
  PetscCall(PetscPrintf(comm, "simreach check %s (abstraction file, lists built with %s, bisect %" PetscInt_FMT ") on %d rank(s)\n", file, h.enclosure, h.bisect, size));
  PetscCall(SRRecheckResultView(&res, h.n, max_print, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(PetscPrintf(comm, "simreach check: %" PetscInt_FMT " cells: %" PetscInt_FMT " proven, %" PetscInt_FMT " falsified, %" PetscInt_FMT " unknown (%.0f enclosures, at most %" PetscInt_FMT " per cell; %.3g s) -> %s\n", res.K, res.proven, res.falsified, res.unknown, res.boxes, res.boxes_max, res.seconds,
                        res.falsified ? "FALSIFIED" : (res.unknown ? "NOT FULLY VERIFIED" : "every cell proven")));
  *exit_code = (res.falsified == 0 && res.unknown == 0) ? SR_EXIT_OK : SR_EXIT_UNPROVEN;
  PetscCall(SRRecheckResultDestroy(&res));
  PetscFunctionReturn(PETSC_SUCCESS);
}
