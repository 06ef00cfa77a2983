/* The cells of the abstraction (SPEC §4): K boxes Psi_k = [c_k - w_k, c_k + w_k].

   theta = (c, w) with c stored as K x n, w as K x n (row-major, cell k's block contiguous).
   The cells start as the regular grid of D; while theta is untouched they are
   "grid-aligned": cell k then covers the exact real grid box of its index (its w is
   inflated by a few ulps so that the floating-point box contains the exact grid box, and
   neighbouring cells overlap instead of leaving a rounding gap), which allows O(1) lookup
   and grid index arithmetic in the containment test.  Not collective. */
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
  double    wmin, wmax;            /* bounds on w for the TAO solve */
  SRNorm    p;
};

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
