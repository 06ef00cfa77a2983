/* The first, batched stage of the re-check (SPEC §11) for index-box lists (SPEC §5, §10):
   the proof's first step of SRRecheckCell for a block of cells at once, through the batched
   enclosure kernels (src/abstraction/enclosure.c, enclosure_taylor.c) and the exact index-box
   containment test (SRAxesContains), with no list expanded and no division per entry.

   The step is the one SRRecheckCell takes first: the whole cell enclosed with the method that
   did not build the lists (builder interval -> taylor1, taylor1 -> interval), or for builder
   `both` the two halves of the cell along the first dimension with an interior midpoint (what
   the depth-first walk of SRRecheckProve_Private pops first) with params.subbox.  A cell this
   stage proves is proven (both enclosures are sound and SRAxesContains is exact); its result
   is what SRRecheckCell would give when that step passes: 1 enclosure at depth 0, or 2 at
   depth 1.  A cell it does not prove goes through SRRecheckCell unchanged (bisection and the
   witness search), so the outcomes are the per-cell path's. */
#include <simreach/recheck.h>

struct _p_SRRecheckBatch {
  SRModel         model;
  SRAxes          ax;
  SRRecheckParams par;
  SREnclosureType type;   /* enclosure of the first step */
  PetscBool       split;  /* builder both: the two halves of the cell */
  PetscBool       usable; /* the budget allows the first step */
  PetscInt        cap;    /* cells per call at most */
  double         *sub, *E; /* up to 2 cap boxes and their enclosures */
  SRCellStatus   *st;
  PetscInt       *owner; /* cell of each box */
};

PetscErrorCode SRRecheckBatchCreate(SRModel model, SRAxes ax, const SRRecheckParams *par, PetscInt cap, SRRecheckBatch *out)
{
  SRRecheckBatch b;
  const PetscInt n = ax->n;

  PetscFunctionBeginUser;
  PetscCheck(model->n == n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "the network maps dimension %" PetscInt_FMT ", the cells have dimension %" PetscInt_FMT, model->n, n);
  PetscCall(PetscNew(&b));
  b->model = model;
  b->ax    = ax;
  b->par   = *par;
  b->cap   = PetscMax(cap, 1);
  b->split = par->builder == SR_ENCLOSURE_BOTH;
  b->type  = b->split ? par->subbox : (par->builder == SR_ENCLOSURE_INTERVAL ? SR_ENCLOSURE_TAYLOR1 : SR_ENCLOSURE_INTERVAL);
  /* a plant file's loop (SPEC §16): one validated period per box is the cost, and the other
     network bound is far wider (TORA at 8^4: interval 3,111 successors, crown 66), so the first
     stage re-encloses with the builder's own bound, the walk with the sub-box one (docs/systems.md) */
  if (!b->split && SRModelIsLoop(model)) b->type = par->builder;
  /* the walk splits the whole cell only when the budget allows one level of two halves */
  b->usable = (PetscBool)(!b->split || (par->depth >= 1 && par->max_boxes >= 2));
  PetscCall(PetscMalloc4(2 * n * 2 * b->cap, &b->sub, 2 * n * 2 * b->cap, &b->E, 2 * b->cap, &b->st, 2 * b->cap, &b->owner));
  *out = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRecheckBatchDestroy(SRRecheckBatch *b)
{
  PetscFunctionBeginUser;
  if (!b || !*b) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree4((*b)->sub, (*b)->E, (*b)->st, (*b)->owner));
  PetscCall(PetscFree(*b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRecheckBatchProve(SRRecheckBatch b, PetscInt64 k0, PetscInt nb, const int32_t *rows, PetscBool *proven)
{
  const PetscInt n = b->ax->n, rl = SRListRowLength(n);
  PetscInt       m = 0;

  PetscFunctionBeginUser;
  PetscCheck(nb >= 0 && nb <= b->cap, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "batch of %" PetscInt_FMT " cells: allowed 0..%" PetscInt_FMT, nb, b->cap);
  for (PetscInt c = 0; c < nb; c++) proven[c] = PETSC_FALSE;
  if (!b->usable || nb == 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt c = 0; c < nb; c++) {
    double lo[SR_MAX_DIM], hi[SR_MAX_DIM];
    SRAxesCellBox(b->ax, k0 + c, lo, hi);
    if (!b->split) {
      for (PetscInt d = 0; d < n; d++) {
        b->sub[2 * n * m + d]     = lo[d];
        b->sub[2 * n * m + n + d] = hi[d];
      }
      b->owner[m++] = c;
    } else {
      /* SRRecheckProve_Private: all sides are equally wide relative to the cell, so the split is
         the first dimension whose midpoint is interior; none: the walk cannot split */
      PetscInt split = -1;
      double   mid   = 0;
      for (PetscInt d = 0; d < n && split < 0; d++) {
        mid = lo[d] + 0.5 * (hi[d] - lo[d]);
        if (mid > lo[d] && mid < hi[d]) split = d;
      }
      if (split < 0) continue;
      for (int side = 0; side < 2; side++) {
        for (PetscInt d = 0; d < n; d++) {
          b->sub[2 * n * m + d]     = lo[d];
          b->sub[2 * n * m + n + d] = hi[d];
        }
        if (side == 0) b->sub[2 * n * m + n + split] = mid;
        else b->sub[2 * n * m + split] = mid;
        b->owner[m++] = c;
      }
    }
  }
  if (m > 0) PetscCall(SREnclosureComputeBoxes(b->model, b->type, m, b->sub, b->E, b->st));
  /* a cell is proven when every one of its boxes is finite and inside its stored list */
  for (PetscInt j = 0; j < m;) {
    const PetscInt c  = b->owner[j];
    PetscBool      ok = PETSC_TRUE;
    for (; j < m && b->owner[j] == c; j++)
      if (ok && !(b->st[j] == SR_CELL_OK && SRAxesContains(b->ax, rows + rl * c, b->E + 2 * n * j, b->E + 2 * n * j + n, NULL))) ok = PETSC_FALSE;
    proven[c] = ok;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRRecheckBatchProvenResult(SRRecheckBatch b, PetscInt *boxes, PetscInt *depth)
{
  *boxes = b->split ? 2 : 1;
  *depth = b->split ? 1 : 0;
}
