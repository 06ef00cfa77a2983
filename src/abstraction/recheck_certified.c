/* The re-check (SPEC §11) of an abstraction's certified lists: a results file's run (`simreach
   check`) and a run's re-check at every checkpoint.  On grid and partition cells the batched first stage of
   src/abstraction/recheck_batch.c proves every cell it can against the stored index boxes,
   SR_RECHECK_CHUNK cells per call; the cells it leaves (and every cell of moved free cells, or of lists
   set explicitly) go through SRRecheckCell, bisection and witness search.
   A cell the first stage proves is one SRRecheckCell proves at its first step with the same
   enclosure count and depth (recheck_batch.c), so the result is the per-cell path's. */
#include <simreach/recheck.h>
#include <simreach/axes.h>
#include <simreach/private/abstraction_types.h>

#define SR_RECHECK_CHUNK 4096

/* The first stage's verdicts on cells [k0, k0 + nb): the rows converted to the file's int32
   rows, and a cell taken only when the axes' box is the cell's outward box, bit for bit. */
static PetscErrorCode SRRecheckCertifiedFirst_Private(SRRecheckBatch batch, SRAxes ax, SRCells cells, const PetscInt *Cbox, PetscInt k0, PetscInt nb, int32_t *rows, PetscBool *proven)
{
  const PetscInt n = cells->n, rl = 2 * n + 1;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nb * rl; i++) rows[i] = (int32_t)Cbox[rl * k0 + i]; /* ranges < K, flags 0/1 = SR_LIST_SINK */
  PetscCall(SRRecheckBatchProve(batch, k0, nb, rows, proven));
  for (PetscInt c = 0; c < nb; c++) {
    double alo[SR_MAX_DIM], ahi[SR_MAX_DIM], clo[SR_MAX_DIM], chi[SR_MAX_DIM];
    if (!proven[c]) continue;
    SRAxesCellBox(ax, k0 + c, alo, ahi);
    SRCellsBoxOuter(cells, k0 + c, clo, chi);
    for (PetscInt d = 0; d < n; d++)
      if (alo[d] != clo[d] || ahi[d] != chi[d]) proven[c] = PETSC_FALSE;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRecheckAllCertified(MPI_Comm comm, SRModel model, SRCells cells, SRAbstraction abs, const SRRecheckParams *par, SRRecheckResult *res)
{
  const PetscInt       K = cells->K;
  const PetscBool      first = (PetscBool)((cells->grid_aligned || cells->partition) && !abs->explicit_C && K <= INT32_MAX);
  PetscInt             ks, ke, nres = 0, nproven = 0, bmax = 0, pboxes = 0, pdepth = 0;
  SRRecheckCellResult *all;
  SRAxes               ax    = NULL;
  SRRecheckBatch       batch = NULL;
  const PetscInt      *Cbox  = NULL;
  int32_t             *rows  = NULL;
  PetscBool           *proven = NULL;
  double               boxes  = 0;
  const double         t0     = MPI_Wtime();

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(res, sizeof(*res)));
  PetscCall(SRAbstractionGetOwnership(abs, K, &ks, &ke));
  PetscCall(PetscMalloc1(PetscMax(ke - ks, 1), &all));
  if (first) {
    PetscCall(SRAbstractionGetCertifiedBoxes(abs, cells, &Cbox));
    if (cells->partition) { /* the partition's own boundaries, exact doubles (SPEC §10) */
      const double *b[SR_MAX_DIM] = {NULL, NULL, NULL};
      for (PetscInt d = 0; d < cells->n; d++) b[d] = cells->bnd + cells->boff[d];
      PetscCall(SRAxesCreateBoundaries(cells->n, cells->grid, b, &ax));
    } else PetscCall(SRAxesCreateGrid(model->sys, cells->grid, &ax));
    PetscCall(SRRecheckBatchCreate(model, ax, par, SR_RECHECK_CHUNK, &batch));
    SRRecheckBatchProvenResult(batch, &pboxes, &pdepth);
    PetscCall(PetscMalloc2(SR_RECHECK_CHUNK * (2 * cells->n + 1), &rows, SR_RECHECK_CHUNK, &proven));
  }
  for (PetscInt k0 = ks; k0 < ke; k0 += SR_RECHECK_CHUNK) {
    const PetscInt nb = PetscMin((PetscInt)SR_RECHECK_CHUNK, ke - k0);
    if (first) PetscCall(SRRecheckCertifiedFirst_Private(batch, ax, cells, Cbox, k0, nb, rows, proven));
    for (PetscInt c = 0; c < nb; c++) {
      PetscInt        nlist;
      const PetscInt *list;
      if (first && proven[c]) {
        nproven++;
        boxes += pboxes;
        bmax = PetscMax(bmax, pboxes);
        continue;
      }
      PetscCall(SRAbstractionGetCertifiedCell(abs, k0 + c, &nlist, &list));
      PetscCall(SRRecheckCell(model, cells, k0 + c, nlist, list, par, &all[nres++]));
    }
  }
  PetscCall(SRRecheckGatherPartial(comm, K, nproven, boxes, bmax, nres, all, t0, res));
  PetscCall(PetscFree2(rows, proven));
  PetscCall(SRRecheckBatchDestroy(&batch));
  PetscCall(SRAxesDestroy(&ax));
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}
