/* The cells of the abstraction (SPEC §4): K boxes Psi_k = [c_k - w_k, c_k + w_k].

   theta = (c, w) with c stored as K x n, w as K x n (row-major, cell k's block contiguous).
   The cells start as the regular grid of D; while theta is untouched they are
   "grid-aligned": cell k then covers the exact real grid box of its index (its w is
   inflated by a few ulps so that the floating-point box contains the exact grid box, and
   neighbouring cells overlap instead of leaving a rounding gap), which allows O(1) lookup
   and grid index arithmetic in the containment test.

   -cells_param partition (SPEC §4, the default of a run; src/abstraction/partition.c): the cells are the
   products of per-dimension boundaries lo_d = b_d0 < ... < b_dm = hi_d.  Cell k of index
   (i_0, ..., i_{n-1}) is exactly the box [b_{d,i_d}, b_{d,i_d + 1}] of stored doubles, so
   neighbours share one double as their face: outer and inner boxes are the same, there is no
   rounding gap and no overlap beyond faces.  c and w are kept (midpoint and half-width,
   rounded) for the Gaussian assignment and the stored theta only; distances, boxes, lookup
   and containment use the boundaries.  theta = the interior boundaries.  Not collective. */
#pragma once

#include <simreach/base.h>
#include <simreach/system.h>

typedef enum { SR_NORM_1 = 1, SR_NORM_2 = 2, SR_NORM_INF = 0 } SRNorm;

typedef struct _p_SRCells *SRCells;
struct _p_SRCells {
  PetscInt  n, K;
  double   *c, *w;                 /* K x n each */
  double    dlo[SR_MAX_DIM], dhi[SR_MAX_DIM]; /* domain D */
  PetscInt  grid[SR_MAX_DIM];      /* counts per dimension of the initial grid */
  PetscBool grid_aligned;          /* theta still the initial grid */
  double   *gline; /* the initial grid, per dimension: c and w of line i at
                      gline[2 (goff[d] + i)] and the next double, read while grid_aligned
                      (a lookup reads 2 n doubles, not K x n strided); then the enclosures
                      of the exact grid lines g_{d,i}, i = 0..N (SRCellsGridLineEnclosure) */
  PetscInt  goff[SR_MAX_DIM + 1];
  double    gscale[SR_MAX_DIM];    /* grid[d] / (dhi[d] - dlo[d]): a candidate line from a coordinate, checked after */
  double    wmin, wmax;            /* bounds on w for the TAO solve */
  SRNorm    p;
  PetscBool partition;             /* cells are the products of the boundaries bnd */
  double   *bnd;                   /* dimension d: bnd[boff[d] .. boff[d] + grid[d]], strictly increasing */
  PetscInt  boff[SR_MAX_DIM + 1];
};

/* Grid-aligned cells: c and w of line i of dimension d (every cell of that line has them). */
static inline const double *SRCellsGridLineCW(SRCells cells, PetscInt d, PetscInt i)
{
  return cells->gline + 2 * (cells->goff[d] + i);
}

/* [lo, hi] enclosing the exact grid line g_{d,i} = dlo + i (dhi - dlo) / N, 0 <= i <= N: the values
   SRCellsGridLine computes, stored once (they depend on the domain and the counts only). */
static inline const double *SRCellsGridLineEnclosure(SRCells cells, PetscInt d, PetscInt i) { return cells->gline + 2 * cells->goff[SR_MAX_DIM] + 2 * (cells->goff[d] + d + i); }

typedef enum { SR_CELLS_PARTITION = 0, SR_CELLS_BOXES = 1 } SRCellsParam;
extern const char *const SRCellsParams[];

/* counts: n cell counts, e.g. {8, 8}; cell index k = i0 + N0 (i1 + N1 i2) (dimension 0 fastest). */
PetscErrorCode SRCellsCreateGrid(SRSystem sys, const PetscInt counts[], SRCells *cells);
PetscErrorCode SRCellsDuplicate(SRCells cells, SRCells *copy);
PetscErrorCode SRCellsCopy(SRCells from, SRCells to);
PetscErrorCode SRCellsDestroy(SRCells *cells);
/* Mark theta as changed (no longer grid-aligned) after the TAO solve moved it. */
PetscErrorCode SRCellsSetFree(SRCells cells);

/* d(x, k) = || max(|x - c_k| - w_k, 0) ||_p.  Gradients (n each) written when non-NULL;
   where d is not differentiable (d = 0, or the inf-norm ties) the subgradient 0 / lowest index. */
double SRCellsDistance(SRCells cells, const double *x, PetscInt k, double *dx, double *dc, double *dw);
/* d(x, sink): 0 outside D, else the distance from x to the complement of D (p-norm). */
double SRCellsSinkDistance(SRCells cells, const double *x, double *dx);
/* Hard assignment: the cell with the smallest d(x, k), lowest index on ties (O(1) when grid-aligned). */
PetscInt SRCellsAssign(SRCells cells, const double *x);
/* Gaussian assignment over the m nearest cells (by d, then index): idx[m], weights a[m] summing to 1,
   a_k proportional to exp(-||(x - c_k)/w_k||^2 / 2). */
PetscErrorCode SRCellsAssignGauss(SRCells cells, const double *x, PetscInt m, PetscInt *idx, double *a);
/* Outward-rounded box of cell k (contains the real box) and inward-rounded (contained in it). */
void SRCellsBoxOuter(SRCells cells, PetscInt k, double *lo, double *hi);
void SRCellsBoxInner(SRCells cells, PetscInt k, double *lo, double *hi);
/* Grid index box of cell k (only when grid-aligned). */
void SRCellsGridIndex(SRCells cells, PetscInt k, PetscInt *idx);
/* Exact real grid line g_i of dimension d enclosed as [lo, hi] (g_i = dlo + i (dhi - dlo) / N). */
void SRCellsGridLine(SRCells cells, PetscInt d, PetscInt i, double *lo, double *hi);

/* ---- partitions (src/abstraction/partition.c, SPEC §4) ---- */
/* The regular partition of D with counts[d] intervals per dimension: b_di = fl(lo_d + i (hi_d - lo_d) / m_d),
   the ends exactly lo_d and hi_d.  Errors if two boundaries round to the same double. */
PetscErrorCode SRCellsCreatePartition(SRSystem sys, const PetscInt counts[], SRCells *cells);
/* The m_d + 1 boundaries of dimension d (read only). */
const double *SRCellsPartitionBoundaries(SRCells cells, PetscInt d, PetscInt *m);
/* The lowest interval index i of dimension d with b_i <= x <= b_{i+1}; x below D gives 0,
   above D gives m_d - 1 (the nearest interval).  Binary search, exact. */
PetscInt SRCellsPartitionLocate(SRCells cells, PetscInt d, double x);
/* The index range [*a, *z] of the intervals of dimension d that meet the closed [lo, hi]
   (b_i <= hi and b_{i+1} >= lo), exact; *a > *z when none does (also for NaN). */
void SRCellsPartitionRange(SRCells cells, PetscInt d, double lo, double hi, PetscInt *a, PetscInt *z);
/* theta of a partition: the interior boundaries, dimension by dimension (sum_d (m_d - 1) numbers). */
PetscInt       SRCellsPartitionNumTheta(SRCells cells);
void           SRCellsPartitionGetTheta(SRCells cells, double *theta);
/* Sets the interior boundaries and the derived c, w; errors unless every dimension stays strictly increasing. */
PetscErrorCode SRCellsPartitionSetTheta(SRCells cells, const double *theta);
/* The trust region of one solve (SPEC §4): boundary b_i in [mid(b_{i-1}, b_i) + wmin, mid(b_i, b_{i+1}) - wmin],
   outward of the midpoints by directed rounding, clipped to contain b_i.  Every point of the
   region keeps the order and every interval at least 2 wmin wide (up to rounding). */
void SRCellsPartitionTrustRegion(SRCells cells, double wmin, double *lb, double *ub);
/* Chain rule from d/dc, d/dw of every cell (2 n K, the SRLossSim layout) to d/dtheta: a cell's
   lower face is b_{d,i_d}, its upper face b_{d,i_d+1}; dlo = (dc - dw) / 2, dhi = (dc + dw) / 2. */
void SRCellsPartitionThetaGradient(SRCells cells, const double *dcw, double *g);
/* Index of cell k in every dimension (k = i_0 + m_0 (i_1 + m_1 i_2)); also for grid cells. */
void SRCellsIndex(SRCells cells, PetscInt k, PetscInt *idx);
