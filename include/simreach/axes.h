/* The axes of a fine partition (SPEC §10; abstraction layer, src/abstraction/axes.c): per
   dimension the cells' boundaries, index-box lists and their exact containment test. */
#pragma once

#include <simreach/base.h>
#include <simreach/system.h>
#include <stdint.h>

/* Per-dimension cell layout.  Cell k = i0 + N0 (i1 + N1 i2) (dimension 0 fastest).  Index i of
   dimension d covers the real interval [g_{d,i}, g_{d,i+1}]; olo/ohi hold a double box that
   contains it (the box every enclosure starts from; for the grid bit-identical to
   SRCellsBoxOuter of the grid cells), glo/ghi an enclosure of the real boundary g_{d,i}
   (exact doubles for a partition given by boundaries).  olo, ohi are non-decreasing in i. */
typedef struct _p_SRAxes *SRAxes;
struct _p_SRAxes {
  PetscInt   n;
  PetscInt   N[SR_MAX_DIM];
  PetscInt64 K;
  double     dlo[SR_MAX_DIM], dhi[SR_MAX_DIM];
  double    *olo[SR_MAX_DIM], *ohi[SR_MAX_DIM]; /* N[d] each */
  double    *glo[SR_MAX_DIM], *ghi[SR_MAX_DIM]; /* N[d] + 1 each */
  PetscBool  is_grid;                           /* the regular grid of D (else boundaries) */
};
PetscErrorCode SRAxesCreateGrid(SRSystem sys, const PetscInt counts[], SRAxes *ax);
/* b[d]: N[d] + 1 strictly increasing doubles, b[d][0] = dlo[d], b[d][N[d]] = dhi[d]. */
PetscErrorCode SRAxesCreateBoundaries(PetscInt n, const PetscInt N[], const double *const b[], SRAxes *ax);
PetscErrorCode SRAxesDestroy(SRAxes *ax);
/* Outward box of cell k. */
void SRAxesCellBox(SRAxes ax, PetscInt64 k, double *lo, double *hi);

/* An index-box list (SPEC §5): one row of 2n + 1 int32 per cell, lo[0..n), hi[0..n), flags.
   The list is the cells with lo[d] <= i_d <= hi[d] in every d (none if lo[d] > hi[d] in some d),
   plus the sink when flags & SR_LIST_SINK.  SR_LIST_NONFINITE marks a cell whose enclosure is
   NaN/Inf: its list is the sink alone and certifies nothing. */
#define SR_LIST_SINK 1
#define SR_LIST_NONFINITE 2
#define SRListRowLength(n) (2 * (n) + 1)
/* The list of SPEC §5 for a finite E: every cell whose outward box meets E, plus the sink if E
   leaves D (binary search per dimension). */
void SRAxesIndexBox(SRAxes ax, const double *elo, const double *ehi, int32_t *row);
/* Number of entries of a list row (sink counts one). */
PetscInt64 SRListRowCount(PetscInt n, const int32_t *row);
/* Exact containment of E in the union of the cells of row (and R^n \ D when the sink is listed),
   by index arithmetic on the enclosed boundaries.  On failure witness (may be NULL) receives a
   double point of E outside every listed outward box (and inside D when the sink is listed),
   verified before it is returned; NaN when none could be verified (the cell still fails). */
PetscBool SRAxesContains(SRAxes ax, const int32_t *row, const double *elo, const double *ehi, double *witness);
