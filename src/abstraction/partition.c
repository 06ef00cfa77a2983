/* Partition cells (SPEC §4, -cells_param partition): per-dimension boundaries
   lo_d = b_d0 < b_d1 < ... < b_dm = hi_d whose products are the cells.  The stored doubles
   ARE the faces: cell (i_0, ..., i_{n-1}) is [b_{d,i_d}, b_{d,i_d+1}] in every dimension, so
   neighbours share one double, no rounding gap, no overlap beyond faces, and every lookup is
   exact index arithmetic on the boundaries (a binary search per dimension).

   theta = the interior boundaries b_d1 .. b_d(m-1), dimension by dimension.  Each TAO solve
   bounds boundary b_i by the trust region [mid(b_{i-1}, b_i) + w_min, mid(b_i, b_{i+1}) - w_min]
   of the current partition (the midpoints rounded outward): any point of the product of these
   boxes, and so any convex combination or per-boundary mix of the old and the new theta that
   the guard tries, keeps the order and every interval at least 2 w_min wide.  Not collective. */
#include <simreach/cells.h>
#include <simreach/interval.h>
#include <math.h>

const char *const SRCellsParams[] = {"partition", "boxes", "SRCellsParam", "SR_CELLS_", NULL};

/* c and w of every cell from the boundaries (rounded to nearest; used by the Gaussian
   assignment and the stored theta only, never for a box). */
static void SRCellsPartitionDerive_Private(SRCells C)
{
  const PetscInt n = C->n;
  PetscInt       idx[SR_MAX_DIM];

  for (PetscInt k = 0; k < C->K; k++) {
    SRCellsIndex(C, k, idx);
    for (PetscInt d = 0; d < n; d++) {
      const double lo = C->bnd[C->boff[d] + idx[d]], hi = C->bnd[C->boff[d] + idx[d] + 1];
      C->w[k * n + d] = 0.5 * (hi - lo);
      C->c[k * n + d] = lo + 0.5 * (hi - lo);
    }
  }
}

static PetscErrorCode SRCellsPartitionCheckOrder_Private(SRCells C, PetscInt d)
{
  const double *b = C->bnd + C->boff[d];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < C->grid[d]; i++)
    PetscCheck(b[i] < b[i + 1], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "partition of dimension %" PetscInt_FMT ": boundary %" PetscInt_FMT " (%.17g) is not below boundary %" PetscInt_FMT " (%.17g); boundaries must be strictly increasing", d, i, b[i], i + 1, b[i + 1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRCellsCreatePartition(SRSystem sys, const PetscInt counts[], SRCells *cells)
{
  SRCells  C;
  PetscInt nb = 0;

  PetscFunctionBeginUser;
  PetscCall(SRCellsCreateGrid(sys, counts, &C));
  for (PetscInt d = 0; d < C->n; d++) nb += C->grid[d] + 1;
  PetscCall(PetscMalloc1(nb, &C->bnd));
  nb = 0;
  for (PetscInt d = 0; d <= SR_MAX_DIM; d++) {
    C->boff[d] = nb;
    if (d < C->n) nb += C->grid[d] + 1;
  }
  for (PetscInt d = 0; d < C->n; d++) {
    const PetscInt N = C->grid[d];
    const double   a = C->dlo[d], b = C->dhi[d];
    double        *bd = C->bnd + C->boff[d];
    bd[0] = a;
    bd[N] = b;
    for (PetscInt i = 1; i < N; i++) bd[i] = a + (double)i * ((b - a) / (double)N);
    PetscCall(SRCellsPartitionCheckOrder_Private(C, d));
  }
  C->partition    = PETSC_TRUE;
  C->grid_aligned = PETSC_FALSE;
  SRCellsPartitionDerive_Private(C);
  *cells = C;
  PetscFunctionReturn(PETSC_SUCCESS);
}

const double *SRCellsPartitionBoundaries(SRCells cells, PetscInt d, PetscInt *m)
{
  if (m) *m = cells->grid[d];
  return cells->bnd + cells->boff[d];
}

void SRCellsPartitionRange(SRCells cells, PetscInt d, double lo, double hi, PetscInt *a, PetscInt *z)
{
  const PetscInt N = cells->grid[d];
  const double  *b = cells->bnd + cells->boff[d];
  PetscInt       l, h;

  if (!(lo <= hi) || !(hi >= b[0]) || !(lo <= b[N])) {
    *a = 1;
    *z = 0;
    return;
  }
  *a = SRCellsPartitionLocate(cells, d, lo); /* first i with b_{i+1} >= lo (lo <= b_N) */
  /* last i with b_i <= hi (hi >= b_0) */
  l = 0;
  h = N - 1;
  while (l < h) {
    const PetscInt mid = l + (h - l + 1) / 2;
    if (b[mid] <= hi) l = mid;
    else h = mid - 1;
  }
  *z = l;
}

PetscInt SRCellsPartitionNumTheta(SRCells cells)
{
  PetscInt nt = 0;
  for (PetscInt d = 0; d < cells->n; d++) nt += cells->grid[d] - 1;
  return nt;
}

void SRCellsPartitionGetTheta(SRCells cells, double *theta)
{
  PetscInt q = 0;
  for (PetscInt d = 0; d < cells->n; d++)
    for (PetscInt i = 1; i < cells->grid[d]; i++) theta[q++] = cells->bnd[cells->boff[d] + i];
}

PetscErrorCode SRCellsPartitionSetTheta(SRCells cells, const double *theta)
{
  PetscInt q = 0;

  PetscFunctionBeginUser;
  PetscCheck(cells->partition, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "SRCellsPartitionSetTheta: the cells are not a partition (-cells_param boxes)");
  for (PetscInt d = 0; d < cells->n; d++) {
    for (PetscInt i = 1; i < cells->grid[d]; i++) cells->bnd[cells->boff[d] + i] = theta[q++];
    PetscCall(SRCellsPartitionCheckOrder_Private(cells, d));
  }
  SRCellsPartitionDerive_Private(cells);
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRCellsPartitionTrustRegion(SRCells cells, double wmin, double *lb, double *ub)
{
  PetscInt q = 0;

  for (PetscInt d = 0; d < cells->n; d++) {
    const double *b = cells->bnd + cells->boff[d];
    for (PetscInt i = 1; i < cells->grid[d]; i++, q++) {
      /* mid(b_{i-1}, b_i) rounded up plus wmin rounded up; mid(b_i, b_{i+1}) rounded down minus wmin rounded down */
      const double ml = SRAddUp(b[i - 1], SRMulUp(0.5, SRSubUp(b[i], b[i - 1])));
      const double mr = SRAddDown(b[i], SRMulDown(0.5, SRSubDown(b[i + 1], b[i])));
      lb[q]           = PetscMin(SRAddUp(ml, wmin), b[i]);
      ub[q]           = PetscMax(SRSubDown(mr, wmin), b[i]);
    }
  }
}

void SRCellsPartitionThetaGradient(SRCells cells, const double *dcw, double *g)
{
  const PetscInt n = cells->n, K = cells->K, nt = SRCellsPartitionNumTheta(cells);
  PetscInt       idx[SR_MAX_DIM], toff[SR_MAX_DIM], q = 0;

  for (PetscInt d = 0; d < n; d++) {
    toff[d] = q - 1; /* boundary i (1..m-1) of dimension d is theta[toff[d] + i] */
    q += cells->grid[d] - 1;
  }
  for (PetscInt t = 0; t < nt; t++) g[t] = 0.0;
  for (PetscInt k = 0; k < K; k++) {
    SRCellsIndex(cells, k, idx);
    for (PetscInt d = 0; d < n; d++) {
      const double dc = dcw[k * n + d], dw = dcw[n * K + k * n + d];
      if (dc == 0.0 && dw == 0.0) continue;
      if (idx[d] >= 1) g[toff[d] + idx[d]] += 0.5 * (dc - dw);                   /* lower face */
      if (idx[d] + 1 <= cells->grid[d] - 1) g[toff[d] + idx[d] + 1] += 0.5 * (dc + dw); /* upper face */
    }
  }
}

