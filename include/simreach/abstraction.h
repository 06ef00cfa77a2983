/* Enclosures, successor lists and the exact containment test (SPEC §5, §7).

   The abstraction of a model over a set of cells lives on a communicator: cells are split
   into contiguous blocks, one per rank; each rank encloses and checks its own block.  C(k) is
   held as SPEC §5 index boxes, 2n + 1 numbers per cell, gathered to every rank (fixed-size
   per-cell data, which SPEC §10 lets a study replicate: the guard and the cell solve read any
   cell's list); a rank expands a list only while it uses it.  The targets T(k) (at most the
   target capacity per cell) are gathered too, since the training loss needs every cell's.
   All verdicts are reduced so every rank agrees, and every count and volume is independent
   of the number of ranks. */
#pragma once

#include <simreach/base.h>
#include <simreach/cells.h>
#include <simreach/successorlist.h>
#include <simreach/model.h>

/* -enclosure (SPEC §7, §16): the network's bound over a cell by the batched interval kernel, the
   batched first-order Taylor models, the intersection of those two, CROWN, or the forward
   affine forms (src/bounds/), then the model's step (src/abstraction/enclosure.c) */
typedef enum { SR_ENCLOSURE_INTERVAL = 0, SR_ENCLOSURE_TAYLOR1 = 1, SR_ENCLOSURE_BOTH = 2, SR_ENCLOSURE_CROWN = 3, SR_ENCLOSURE_AFFINE = 4 } SREnclosureType;
extern const char *const SREnclosureTypes[];
typedef enum { SR_TARGET_EMPIRICAL = 0, SR_TARGET_NOMINAL = 1, SR_TARGET_CERTIFIED = 2 } SRTargetType;
extern const char *const SRTargetTypes[];

/* Per-cell status of an enclosure or a containment test. */
typedef enum { SR_CELL_OK = 0, SR_CELL_NOT_CONTAINED = 1, SR_CELL_NONFINITE = 2 } SRCellStatus;

/* Sound enclosure E_k of f_phi over the (outward-rounded) box of each cell k in [kstart, kend).
   E has (kend - kstart) rows of 2n doubles: lo[0..n) then hi[0..n).  status[k - kstart] is
   SR_CELL_NONFINITE when a weight, input or result is NaN/Inf (E is then the entire space).
   Not collective. */
PetscErrorCode SREnclosureCompute(SRModel model, SREnclosureType type, SRCells cells, PetscInt kstart, PetscInt kend, double *E, SRCellStatus *status);

/* Certified list of one cell from its enclosure: every cell meeting E plus the sink if E leaves D
   (grid index arithmetic when grid-aligned, the spatial index otherwise).  Not collective. */
typedef struct _p_SRCellIndex *SRCellIndex; /* spatial index over free boxes */
/* The list itself: fills idx (capacity cap, sorted, sink = K last) and returns count (may exceed cap).
   index may be NULL when cells are grid-aligned.  E must be finite (lo <= hi). */
PetscErrorCode SRSuccessorsCertified(SRCells cells, SRCellIndex index, const double *elo, const double *ehi, PetscInt cap, PetscInt *idx, PetscInt *count);
/* The same count without building the list (index ranges multiplied).  Not collective. */
PetscErrorCode SRSuccessorsCertifiedCount(SRCells cells, SRCellIndex index, const double *elo, const double *ehi, PetscInt *count);
PetscErrorCode SRCellIndexCreate(SRCells cells, SRCellIndex *index);
PetscErrorCode SRCellIndexDestroy(SRCellIndex *index);
/* Cells whose outward box meets [lo, hi]; returns count and fills idx (capacity cap; count may exceed cap). */
PetscErrorCode SRCellIndexQuery(SRCellIndex index, const double *lo, const double *hi, PetscInt cap, PetscInt *idx, PetscInt *count);

/* Exact test E within union of C(k) (the sink standing for R^n \ D).  On failure a witness
   point of E that no listed box (nor the sink) covers is written to witness (n doubles, may be NULL);
   the witness is NaN when E is nonfinite (status SR_CELL_NONFINITE, never contained) or when the
   uncovered part is thinner than the rounding of the boxes (still SR_CELL_NOT_CONTAINED). */
PetscErrorCode SRContainmentTest(SRCells cells, PetscInt nlist, const PetscInt *list, const double *elo, const double *ehi, SRCellStatus *status, double *witness);
/* The same proof against an index-box row (lo[0..n), hi[0..n), sink flag) of grid-aligned or
   partition cells without expanding it: PETSC_TRUE is SRContainmentTest's SR_CELL_OK on the
   row's list; PETSC_FALSE decides nothing (run SRContainmentTest on the expanded list). */
PetscBool SRContainmentIndexBox(SRCells cells, const PetscInt *row, const double *elo, const double *ehi);
/* Y = [ylo, yhi] (an enclosure of an image point) lies wholly outside the union of C(k): it misses
   every listed outward box and, when the sink is listed, lies inside the closed D.  Exact. */
PetscErrorCode SRContainmentOutside(SRCells cells, PetscInt nlist, const PetscInt *list, const double *ylo, const double *yhi, PetscBool *outside);
/* Signed depth of a point y outside the union of C(k) in initial-grid spacings (> 0 outside,
   <= 0 covered): the objective of the re-check's witness search, never a proof. */
double SRContainmentDepth(SRCells cells, PetscInt nlist, const PetscInt *list, const double *y);

typedef struct {
  double   succ_certified; /* mean |C(k)| (sink counts one) */
  double   succ_minimal;   /* mean number of cells (+ sink) meeting E_k */
  double   succ_empirical; /* mean number of cells (+ sink) hit by sampled f_phi(x), x in Psi_k */
  double   vol_E;          /* mean vol(E_k) */
  double   vol_union;      /* mean vol(union of the cells of C(k)) (sink excluded) */
  PetscInt failures;       /* cells whose containment test failed */
  PetscInt nonfinite;      /* cells with a NaN/Inf enclosure */
} SRAbstractionMetrics;

typedef struct _p_SRAbstraction *SRAbstraction;

/* Collective on comm.  model and cells are borrowed (the guard swaps in candidates). */
PetscErrorCode SRAbstractionCreate(MPI_Comm comm, SRAbstraction *abs);
PetscErrorCode SRAbstractionSetEnclosureType(SRAbstraction abs, SREnclosureType type);
PetscErrorCode SRAbstractionSetTarget(SRAbstraction abs, SRTargetType type, double mass, PetscInt samples_per_cell, uint64_t seed);
PetscErrorCode SRAbstractionSetMargin(SRAbstraction abs, double margin); /* -succ_margin, grid spacings */
PetscErrorCode SRAbstractionSetFromOptions(SRAbstraction abs); /* -enclosure, -target, -target_mass, -target_samples, -succ_margin */
PetscErrorCode SRAbstractionDestroy(SRAbstraction *abs);
/* Entries a target list T(k) can hold for this target type (0: T = C, -target certified). */
PetscErrorCode SRAbstractionGetTargetCapacity(SRAbstraction abs, PetscInt n, PetscInt *tcap);
/* Block [kstart, kend) of this rank for K cells. */
PetscErrorCode SRAbstractionGetOwnership(SRAbstraction abs, PetscInt K, PetscInt *kstart, PetscInt *kend);
/* Build the certified lists C(k) from E_k for (model, cells) and the targets T(k).  Collective. */
PetscErrorCode SRAbstractionBuild(SRAbstraction abs, SRModel model, SRCells cells);
/* Containment of every cell of (model, cells) in the stored C(k); nfail identical on all ranks;
   first = lowest failing cell (-1 if none) with its witness broadcast.  Collective. */
PetscErrorCode SRAbstractionCheck(SRAbstraction abs, SRModel model, SRCells cells, SREnclosureType type, PetscInt *nfail, PetscInt *first, double *witness);
/* Remove from C(k) every cell E_k (of the last accepted model/cells) no longer meets. Collective. */
PetscErrorCode SRAbstractionPrune(SRAbstraction abs, SRModel model, SRCells cells);
/* Rebuild the targets T(k) (subset of C(k)) for the current model/cells.  Collective. */
PetscErrorCode SRAbstractionUpdateTargets(SRAbstraction abs, SRModel model, SRCells cells);
PetscErrorCode SRAbstractionGetMetrics(SRAbstraction abs, SRModel model, SRCells cells, SRAbstractionMetrics *m);
/* SRAbstractionBuild, SRAbstractionCheck (with the abstraction's own enclosure type) and
   SRAbstractionGetMetrics in one pass, each cell enclosed once: the same lists and figures
   (`simreach abstract`).  Collective. */
PetscErrorCode SRAbstractionBuildAndMeasure(SRAbstraction abs, SRModel model, SRCells cells, PetscInt *nfail, PetscInt *first, double *witness, SRAbstractionMetrics *m);
/* C(k) of every cell as SPEC §5 index-box rows (K rows of 2n + 1; lists set explicitly are
   converted here and must be index boxes).  Not collective; valid until the lists change. */
PetscErrorCode SRAbstractionGetCertifiedBoxes(SRAbstraction abs, SRCells cells, const PetscInt **rows);
/* C(k) of one cell, increasing, the sink K last; valid until the next call.  Not collective. */
PetscErrorCode SRAbstractionGetCertifiedCell(SRAbstraction abs, PetscInt k, PetscInt *nlist, const PetscInt **list);
/* Every C(k) as one explicit CSR on this rank: O(entries), expanded on first use.  For tests
   and small problems; the library itself reads the boxes or one cell at a time. */
PetscErrorCode SRAbstractionGetCertified(SRAbstraction abs, const SRSuccessorList **C);
PetscErrorCode SRAbstractionGetTargets(SRAbstraction abs, const SRSuccessorList **T);
/* Replace the lists by index-box rows (resume from a checkpoint, a file's lists); T within C,
   or NULL for T = C (-target certified: held as a view of the rows).  Collective; every rank
   passes the same rows and targets. */
PetscErrorCode SRAbstractionSetBoxes(SRAbstraction abs, SRCells cells, const PetscInt *rows, const SRSuccessorList *T);
/* Replace the lists by explicit ones, index boxes or not (planted violations in tests; the
   abstraction then keeps explicit lists until the next SRAbstractionBuild).  Collective. */
PetscErrorCode SRAbstractionSetLists(SRAbstraction abs, const SRSuccessorList *C, const SRSuccessorList *T);
/* to takes a copy of from's lists (a run's last verified triple).  Not collective. */
PetscErrorCode SRAbstractionCopyLists(SRAbstraction from, SRAbstraction to);
PetscErrorCode SRAbstractionView(SRAbstraction abs, PetscViewer viewer);
/* Seconds this rank spent so far in enclosures, list building and containment tests. Not collective. */
PetscErrorCode SRAbstractionGetPhaseTimes(SRAbstraction abs, double *t_enclosure, double *t_successors, double *t_containment);
/* Of t_successors, the seconds spent in SRAbstractionGetMetrics' per-cell counts and volumes. Not collective. */
PetscErrorCode SRAbstractionGetMetricsTime(SRAbstraction abs, double *t_metrics);

PetscErrorCode SRSuccessorListCreate(PetscInt K, PetscInt nnz, SRSuccessorList *L);
PetscErrorCode SRSuccessorListDestroy(SRSuccessorList *L);
PetscErrorCode SRSuccessorListCopy(const SRSuccessorList *from, SRSuccessorList *to);
/* SPEC §5 storage of C(k) as index boxes over the initial grid's indices: per cell 2n + 1
   numbers lo[0..n), hi[0..n), flags (1 = the sink is listed; lo > hi in a dimension: no cell).
   ToBoxes errors if a list is not exactly its index box (the abstraction keeps them so). */
PetscErrorCode SRSuccessorListToBoxes(SRCells cells, const SRSuccessorList *L, PetscInt *rows);
PetscErrorCode SRSuccessorListFromBoxes(SRCells cells, const PetscInt *rows, SRSuccessorList *L);
/* One row: the bounding index box of list[0..nlist) (no cell listed: lo = 0, hi = -1), and the
   number of entries a row stands for (the sink counts one). */
PetscErrorCode SRIndexBoxBound(SRCells cells, PetscInt nlist, const PetscInt *list, PetscInt *row);
PetscInt       SRIndexBoxCount(PetscInt n, const PetscInt *row);
