/* What a cell's first-order Taylor model decides without evaluating the network (SPEC §5, §6):
   the box holding a sample's image and the cell it lands in (the floor's count from the image
   boxes of the lattice's corners is SRCellModelFloorCount, src/abstraction/metrics.c).

   The point pass (SRModelEvaluate) computes f_phi(x) in double; its value f~(x) is within
   2^-30 (1 + |f(x)|) of the real f(x), the margin the floor's sandwich already takes
   (src/abstraction/metrics.c), far beyond the pass's rounding.  Every box below holds f~(x) for
   every x it is made for; an answer is given only when every value of such a box gives the same
   one, so a decided answer is the one the point pass would give, bit for bit, and an undecided
   one is left to the point pass.  Only the metrics' cost changes, never a figure.  The 2^-30
   bound on the point pass is an assumption (shared with the floor's sandwich), not a proof: a
   network whose hidden sums cancel to far below their size could break it, and then a sample
   might be counted in a neighbouring listed cell.  That would move a metric (a target, the
   count of hit entries, the floor), never a certified list, an enclosure or a verdict. */
#include <simreach/private/cellmodel.h>

#define SR_CM_LIN 0x1p-40 /* the linear part's rounding at a point, relative to |c_0| + sum |c_k| */
#define SR_CM_PASS 0x1p-30 /* the point pass's distance to f, relative to 1 + |f| */

/* Margin for output i of cm at any x of the box: the linear part's rounding (at most (n + 5) u
   (|c_0| + sum |c_k|) with xi's own roundings) and the point pass's error (|f| <= |c_0| + sum |c_k| + |r| there). */
static double SRCellModelMargin_Private(PetscInt n, const SRTaylor *y)
{
  double a = fabs(y->c0), r = PetscMax(fabs(y->r.lo), fabs(y->r.hi));
  for (PetscInt k = 0; k < n; k++)
    a += fabs(y->c[k]);
  return SR_CM_LIN * a + SR_CM_PASS * (1.0 + 1.01 * (a + r));
}

PetscBool SRCellModelImages(const SRCellModel *cm, PetscInt n, PetscInt np, const double *X, double *Ylo, double *Yhi)
{
  double mu[SR_MAX_DIM], ih[SR_MAX_DIM];

  if (!cm->ok) return PETSC_FALSE;
  for (PetscInt i = 0; i < n; i++) {
    mu[i] = SRCellModelMargin_Private(n, &cm->y[i]);
    ih[i] = 1.0 / cm->h[i]; /* xi = (x - c) (1 / h): three roundings, 3.01 u |xi|, inside SR_CM_LIN */
  }
  for (PetscInt p = 0; p < np; p++) {
    const double *x = X + p * n;
    double        xi[SR_MAX_DIM];
    PetscBool     fin = PETSC_TRUE;
    for (PetscInt k = 0; k < n; k++) xi[k] = (x[k] - cm->c[k]) * ih[k];
    for (PetscInt i = 0; i < n; i++) {
      double v = cm->y[i].c0;
      for (PetscInt k = 0; k < n; k++) v += cm->y[i].c[k] * xi[k];
      Ylo[p * n + i] = (v + cm->y[i].r.lo) - mu[i];
      Yhi[p * n + i] = (v + cm->y[i].r.hi) + mu[i];
      fin            = (PetscBool)(fin && isfinite(Ylo[p * n + i]) && isfinite(Yhi[p * n + i]));
    }
    if (!fin)
      for (PetscInt i = 0; i < n; i++) Ylo[p * n + i] = Yhi[p * n + i] = NAN; /* decides nothing */
  }
  return PETSC_TRUE;
}

/* Grid-aligned cells, dimension d: the index i of the one cell line whose closed box holds all of
   [lo, hi] while both neighbours' boxes miss it, by the very test of SRCellsDistance
   (fl(|y - c|) - w <= 0, monotone in y on either side of c); -1 otherwise.  Cells further away
   are further: the lines are ordered and a grid step is far beyond an ulp. */
static PetscInt SRCellsSoleGrid1_Private(SRCells cells, PetscInt d, double lo, double hi)
{
  const PetscInt N = cells->grid[d];
  const double   t = (0.5 * lo + 0.5 * hi - cells->dlo[d]) * cells->gscale[d]; /* a candidate, checked below */
  PetscInt       i;
  double         c, w;

  if (!(t >= 0.0 && t < (double)N)) return -1;
  i = (PetscInt)t;
  c = SRCellsGridLineCW(cells, d, i)[0];
  w = SRCellsGridLineCW(cells, d, i)[1];
  if (!(fabs(lo - c) - w <= 0.0 && fabs(hi - c) - w <= 0.0)) return -1;
  if (i > 0) {
    const double cl = SRCellsGridLineCW(cells, d, i - 1)[0], wl = SRCellsGridLineCW(cells, d, i - 1)[1];
    if (!(cl < lo && fabs(lo - cl) - wl > 0.0)) return -1;
  }
  if (i < N - 1) {
    const double cr = SRCellsGridLineCW(cells, d, i + 1)[0], wr = SRCellsGridLineCW(cells, d, i + 1)[1];
    if (!(cr > hi && fabs(hi - cr) - wr > 0.0)) return -1;
  }
  return i;
}

/* Dimension d puts all of [lo, hi] strictly outside D and at a positive distance from every cell
   (the edge cell's box missed by the test of SRCellsDistance, the cells further in missing it more). */
static PetscBool SRCellsOutside1_Private(SRCells cells, PetscInt d, double lo, double hi)
{
  const PetscInt N = cells->grid[d];
  if (cells->partition) {
    const double *b = cells->bnd + cells->boff[d];
    return (PetscBool)(hi < b[0] || lo > b[N]);
  }
  if (hi < cells->dlo[d]) {
    const double c = SRCellsGridLineCW(cells, d, 0)[0], w = SRCellsGridLineCW(cells, d, 0)[1];
    return (PetscBool)(c > hi && fabs(hi - c) - w > 0.0);
  }
  if (lo > cells->dhi[d]) {
    const double c = SRCellsGridLineCW(cells, d, N - 1)[0], w = SRCellsGridLineCW(cells, d, N - 1)[1];
    return (PetscBool)(c < lo && fabs(lo - c) - w > 0.0);
  }
  return PETSC_FALSE;
}

PetscInt SRCellsSoleCell(SRCells cells, const double *lo, const double *hi)
{
  const PetscInt n = cells->n;
  PetscInt       k = 0, s = 1;

  if (!cells->grid_aligned && !cells->partition) return -1;
  for (PetscInt d = 0; d < n; d++) /* outside D in one dimension: no cell, the sink */
    if (SRCellsOutside1_Private(cells, d, lo[d], hi[d])) return cells->K;
  for (PetscInt d = 0; d < n; d++) {
    PetscInt i;
    if (cells->partition) { /* closed cells [b_i, b_{i+1}]: inside one, strictly off its faces */
      const double *b = cells->bnd + cells->boff[d];
      i               = SRCellsPartitionLocate(cells, d, 0.5 * lo[d] + 0.5 * hi[d]);
      if (!(b[i] < lo[d] && hi[d] < b[i + 1])) return -1;
    } else if ((i = SRCellsSoleGrid1_Private(cells, d, lo[d], hi[d])) < 0)
      return -1;
    k += i * s;
    s *= cells->grid[d];
  }
  return k;
}
