/* Index arithmetic of the cells' grid (SPEC §4): a cell's per-dimension index and the
   partition cell holding a point.  Moved down from src/abstraction/partition.c: both the cells
   (src/abstraction/cells.c) and the partition use them, and the partition is built on the cells. */
#include <simreach/cells.h>

PetscInt SRCellsPartitionLocate(SRCells cells, PetscInt d, double x)
{
  const PetscInt N = cells->grid[d];
  const double  *b = cells->bnd + cells->boff[d];
  PetscInt       lo = 0, hi = N - 1;

  /* the first i in [0, N-1] with b_{i+1} >= x; N-1 if none (x above D or NaN) */
  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (b[mid + 1] >= x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

void SRCellsIndex(SRCells cells, PetscInt k, PetscInt *idx)
{
  for (PetscInt d = 0; d < cells->n; d++) {
    idx[d] = k % cells->grid[d];
    k /= cells->grid[d];
  }
}
