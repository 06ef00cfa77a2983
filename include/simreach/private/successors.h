/* Kernels shared by the successor lists, the containment test and the abstraction
   (SPEC §5, §6, §7).  Private to src/abstraction/successors.c, src/abstraction/containment.c, src/abstraction/abstraction.c. */
#pragma once

#include <simreach/abstraction.h>
#include <simreach/private/intbuf.h>
#include <simreach/private/box.h>
#include <simreach/private/enclosure_taylor.h>

/* E = [elo, ehi] lies inside the closed domain D (so it cannot meet the sink R^n \ D). */
static inline PetscBool SRBoxInsideDomain_Private(SRCells cells, const double *elo, const double *ehi)
{
  for (PetscInt d = 0; d < cells->n; d++)
    if (!(cells->dlo[d] <= elo[d] && ehi[d] <= cells->dhi[d])) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Every endpoint finite and lo <= hi. */
static inline PetscBool SRBoxIsFinite_Private(PetscInt n, const double *lo, const double *hi)
{
  for (PetscInt d = 0; d < n; d++)
    if (!(isfinite(lo[d]) && isfinite(hi[d]) && lo[d] <= hi[d])) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Appends to out the certified list of SPEC §5 for a finite E (sorted, sink = K last). */
PetscErrorCode SRSuccessorsCertifiedAppend_Private(SRCells cells, SRCellIndex index, const double *elo, const double *ehi, SRIntBuf *out);

/* Pruning (SPEC §8): the entries of list[0..nlist) whose outward box still meets E (the sink
   kept only while E leaves D), appended to out in the same order. */
PetscErrorCode SRSuccessorsPruneAppend_Private(SRCells cells, PetscInt nlist, const PetscInt *list, const double *elo, const double *ehi, SRIntBuf *out);

/* The position in list[0..nlist) that a sampled image y is attributed to (SPEC §5 targets):
   the first listed cell with d(y, j) = 0, else the sink if listed and d(y, sink) = 0, else the
   listed entry nearest to y (first on ties).  nlist >= 1; increasing: the list is strictly
   increasing (enables the grid lookup). */
PetscInt SRSuccessorsHit_Private(SRCells cells, PetscInt nlist, const PetscInt *list, PetscBool increasing, const double *y);

/* Target T(k) within C(k) (SPEC §5), appended to out; *ndistinct receives the number of
   distinct entries hit by the samples (the empirical count of SPEC §6) when non-NULL,
   whatever the target type.  work: caller scratch. */
typedef struct {
  SRTargetType type;
  double       mass;
  PetscInt     samples;
  uint64_t     seed;
} SRTargetParams;

/* The target T(k) within list[0..nlist) (SPEC §5), appended to out; *ndistinct (may be NULL) the
   number of entries the samples hit.  cm (may be NULL): the cell's Taylor model, which decides
   most samples' cells without the network (src/abstraction/cellmodel.c), the same answers.
   *decided (may be NULL) is incremented by the number of samples so decided. */
PetscErrorCode SRSuccessorsTargetAppend_Private(SRModel model, SRCells cells, const SRTargetParams *tp, PetscInt k, PetscInt nlist, const PetscInt *list, PetscBool want_distinct, const SRCellModel *cm, SRIntBuf *out, PetscInt *ndistinct, PetscInt *decided);

/* Exact volume of the union of the outward boxes of the cells list[0..nlist) (the sink,
   index K, skipped) by coordinate compression; summed in a fixed order. */
PetscErrorCode SRSuccessorsUnionVolume_Private(SRCells cells, PetscInt nlist, const PetscInt *list, double *vol);
/* The same for the cells of an index box row (grid-aligned or partition cells), without the list. */
PetscErrorCode SRSuccessorsUnionVolumeBox_Private(SRCells cells, const PetscInt *row, double *vol);

/* SPEC §5 storage: out->a[start..out->n) replaced by every cell of its bounding index box (over
   the initial grid's indices), increasing, then the sink if it was there. */
PetscErrorCode SRSuccessorsBoxClose_Private(SRCells cells, SRIntBuf *out, PetscInt start);

/* SPEC §5 index-box rows (lo[0..n), hi[0..n), flags): the list a row stands for appended to out
   (every cell of the box, increasing, then the sink; the row validated, an empty list refused;
   grid = the initial grid's counts, K the cell count, k the cell for messages); and the row of
   a list that is exactly an index box (*exact false otherwise). */
PetscErrorCode SRIndexBoxAppend_Private(PetscInt n, const PetscInt *grid, PetscInt K, PetscInt k, const PetscInt *row, SRIntBuf *out);
PetscErrorCode SRIndexBoxFromList_Private(SRCells cells, PetscInt nlist, const PetscInt *list, PetscInt *row, PetscBool *exact);
/* All K rows expanded into one explicit list L (its storage replaced). */
PetscErrorCode SRIndexBoxesToList_Private(PetscInt n, const PetscInt *grid, PetscInt K, const PetscInt *rows, SRSuccessorList *L);
