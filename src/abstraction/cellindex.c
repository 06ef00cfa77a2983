/* SRCellIndex: a uniform bucket grid over D for free (no longer grid-aligned) cells, so that
   the certified list of a cell (SPEC §5) costs the buckets its enclosure meets, never a scan
   over all K cells.  Each cell's outward box is stored in every bucket it meets; boxes that
   stick out of D fall into the boundary buckets, because the bucket coordinate is clamped. */
#include <simreach/abstraction.h>
#include <simreach/private/intbuf.h>
#include <simreach/private/box.h>

struct _p_SRCellIndex {
  PetscInt  n, K;
  PetscInt  nb[SR_MAX_DIM]; /* buckets per dimension */
  double    org[SR_MAX_DIM], h[SR_MAX_DIM];
  PetscInt *ptr, *ent;      /* CSR: bucket -> cells */
  double   *lo, *hi;        /* outward boxes, K x n */
  PetscInt *stamp, epoch;   /* de-duplication of cells met in several buckets */
  SRIntBuf  found;
};

/* Bucket coordinate of x in dimension d.  Monotone in x (rounded subtraction and division by a
   positive constant are monotone, so is floor), so a point shared by a box and a query lies in a
   bucket of both ranges: no rounding can lose a cell. */
static PetscInt SRCellIndexCoord_Private(SRCellIndex ix, PetscInt d, double x)
{
  double t = (x - ix->org[d]) / ix->h[d];
  if (!(t >= 0.0)) return 0; /* also NaN: the widest range is taken by the callers */
  if (t >= (double)ix->nb[d]) return ix->nb[d] - 1;
  return PetscMin((PetscInt)t, ix->nb[d] - 1);
}

static void SRCellIndexRange_Private(SRCellIndex ix, const double *lo, const double *hi, PetscInt *a, PetscInt *b)
{
  for (PetscInt d = 0; d < ix->n; d++) {
    if (isnan(lo[d]) || isnan(hi[d])) {
      a[d] = 0;
      b[d] = ix->nb[d] - 1;
    } else {
      a[d] = SRCellIndexCoord_Private(ix, d, lo[d]);
      b[d] = SRCellIndexCoord_Private(ix, d, hi[d]);
    }
  }
  for (PetscInt d = ix->n; d < SR_MAX_DIM; d++) a[d] = b[d] = 0;
}

/* Not collective.  The index describes the cells as they are now; recreate it after theta moves. */
PetscErrorCode SRCellIndexCreate(SRCells cells, SRCellIndex *index)
{
  SRCellIndex ix;
  PetscInt    n = cells->n, K = cells->K, nbt = 1;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&ix));
  ix->n = n;
  ix->K = K;
  for (PetscInt d = 0; d < SR_MAX_DIM; d++) ix->nb[d] = 1;
  /* About one bucket per cell: the initial grid counts when they fit K, else K^(1/n). */
  {
    PetscInt prod = 1;
    for (PetscInt d = 0; d < n; d++) prod *= PetscMax(cells->grid[d], 1);
    for (PetscInt d = 0; d < n; d++) {
      ix->nb[d] = (prod == K) ? PetscMax(cells->grid[d], 1) : PetscMax((PetscInt)PetscCeilReal(PetscPowReal((double)K, 1.0 / (double)n)), 1);
      ix->org[d] = cells->dlo[d];
      ix->h[d]   = (cells->dhi[d] - cells->dlo[d]) / (double)ix->nb[d];
      PetscCheck(ix->h[d] > 0.0 && isfinite(ix->h[d]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "cell index: domain [%g, %g] of dimension %" PetscInt_FMT " must be finite with lo < hi", cells->dlo[d], cells->dhi[d], d);
      nbt *= ix->nb[d];
    }
  }
  PetscCall(PetscMalloc2(K * n, &ix->lo, K * n, &ix->hi));
  PetscCall(PetscCalloc1(K, &ix->stamp));
  PetscCall(PetscCalloc1(nbt + 1, &ix->ptr));
  for (PetscInt k = 0; k < K; k++) SRCellsBoxOuter(cells, k, ix->lo + k * n, ix->hi + k * n);
  /* Two passes: count, then fill. */
  for (PetscInt pass = 0; pass < 2; pass++) {
    PetscInt *fill = NULL;
    if (pass == 1) {
      for (PetscInt b = 0; b < nbt; b++) ix->ptr[b + 1] += ix->ptr[b];
      PetscCall(PetscMalloc1(PetscMax(ix->ptr[nbt], 1), &ix->ent));
      PetscCall(PetscMalloc1(nbt, &fill));
      PetscCall(PetscArraycpy(fill, ix->ptr, nbt));
    }
    for (PetscInt k = 0; k < K; k++) {
      PetscInt a[SR_MAX_DIM], b[SR_MAX_DIM];
      SRCellIndexRange_Private(ix, ix->lo + k * n, ix->hi + k * n, a, b);
      for (PetscInt i2 = a[2]; i2 <= b[2]; i2++)
        for (PetscInt i1 = a[1]; i1 <= b[1]; i1++)
          for (PetscInt i0 = a[0]; i0 <= b[0]; i0++) {
            const PetscInt bk = i0 + ix->nb[0] * (i1 + ix->nb[1] * i2);
            if (pass == 0) ix->ptr[bk + 1]++;
            else ix->ent[fill[bk]++] = k;
          }
    }
    PetscCall(PetscFree(fill));
  }
  *index = ix;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRCellIndexDestroy(SRCellIndex *index)
{
  PetscFunctionBeginUser;
  if (!index || !*index) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree2((*index)->lo, (*index)->hi));
  PetscCall(PetscFree((*index)->stamp));
  PetscCall(PetscFree((*index)->ptr));
  PetscCall(PetscFree((*index)->ent));
  PetscCall(SRIntBufDestroy_Private(&(*index)->found));
  PetscCall(PetscFree(*index));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Not collective.  Exact closed-box test against the stored outward boxes; sorted output. */
PetscErrorCode SRCellIndexQuery(SRCellIndex ix, const double *lo, const double *hi, PetscInt cap, PetscInt *idx, PetscInt *count)
{
  const PetscInt n = ix->n;
  PetscInt       a[SR_MAX_DIM], b[SR_MAX_DIM];

  PetscFunctionBeginUser;
  ix->found.n = 0;
  if (ix->epoch == PETSC_MAX_INT) {
    PetscCall(PetscArrayzero(ix->stamp, ix->K));
    ix->epoch = 0;
  }
  ix->epoch++;
  SRCellIndexRange_Private(ix, lo, hi, a, b);
  for (PetscInt i2 = a[2]; i2 <= b[2]; i2++)
    for (PetscInt i1 = a[1]; i1 <= b[1]; i1++)
      for (PetscInt i0 = a[0]; i0 <= b[0]; i0++) {
        const PetscInt bk = i0 + ix->nb[0] * (i1 + ix->nb[1] * i2);
        for (PetscInt e = ix->ptr[bk]; e < ix->ptr[bk + 1]; e++) {
          const PetscInt k = ix->ent[e];
          if (ix->stamp[k] == ix->epoch) continue;
          ix->stamp[k] = ix->epoch;
          if (SRBoxMeets_Private(n, ix->lo + k * n, ix->hi + k * n, lo, hi)) PetscCall(SRIntBufPush_Private(&ix->found, k));
        }
      }
  PetscCall(PetscSortInt(ix->found.n, ix->found.a));
  *count = ix->found.n;
  if (idx && cap > 0) PetscCall(PetscArraycpy(idx, ix->found.a, PetscMin(cap, ix->found.n)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
