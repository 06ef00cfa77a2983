/* The re-check of SPEC §11: every cell of a stored triple (network, cells, lists) gets one of
   three outcomes.
   - proven: an enclosure other than the one that built C(k) lies inside the union of C(k);
     on the whole cell the other method (interval <-> taylor1; skipped for `both`), then,
     where that fails, adaptively bisected sub-boxes (only the failing ones are split, along
     their widest side relative to the cell) enclosed with params.subbox (default `both`:
     interval and taylor1 intersected), up to params.depth levels and params.max_boxes
     enclosures per cell;
   - falsified: a witness x in the exact cell (its inward-rounded box) whose image, enclosed
     with directed rounding (the interval point enclosure [x, x]), lies wholly outside the
     union of C(k) (SRContainmentOutside: exact comparisons);
   - unknown: neither within the budget.
   The witness search runs on the cells left unproven (a proof by sound enclosures leaves no
   witness to find; the enclosures' soundness is the soundness suite's, tests/abstraction/test_soundness.c):
   the centre, the 2^n corners, params.samples points of SR_STREAM_FALSIFY and the centre of
   the failing sub-box, then params.attack_steps steps of a sign-gradient ascent (finite
   differences) of the depth of f(x) outside the union (SRContainmentDepth) from the most
   promising points.
   Every per-cell result is a function of the cell alone, so results never depend on ranks.
   The lists go through SRContainmentTest / SRContainmentOutside / SRContainmentDepth only. */
#pragma once
#include <simreach/base.h>
#include <simreach/abstraction.h>
#include <simreach/verify.h>

typedef enum { SR_RECHECK_PROVEN = 0, SR_RECHECK_FALSIFIED = 1, SR_RECHECK_UNKNOWN = 2 } SRRecheckOutcome;
extern const char *const SRRecheckOutcomes[];

typedef struct {
  SREnclosureType builder;      /* the enclosure that built the lists */
  SREnclosureType subbox;       /* enclosure of the bisected sub-boxes (default both) */
  PetscInt        depth;        /* -recheck_depth: bisection levels per cell (default 40) */
  PetscInt        max_boxes;    /* -recheck_boxes: enclosures per cell at most (default 4096) */
  PetscInt        samples;      /* -falsify_samples: random witness candidates per cell (default 16) */
  PetscInt        attack_steps; /* -attack_steps: sign-gradient steps per start (default 40) */
  PetscInt        attack_starts;/* starts of the ascent (default 4) */
  uint64_t        seed;         /* seed of the SR_STREAM_FALSIFY samples */
} SRRecheckParams;

typedef struct {
  PetscInt cell;
  PetscInt outcome;                      /* SRRecheckOutcome */
  PetscInt boxes;                        /* enclosures computed for the proof */
  PetscInt depth;                        /* deepest bisection level reached */
  double   x[SR_MAX_DIM];                /* falsified: the witness; unknown: the deepest point found */
  double   fxlo[SR_MAX_DIM], fxhi[SR_MAX_DIM]; /* directed-rounding enclosure of f(x) */
  double   escape;                       /* SRContainmentDepth of f(x) (grid spacings) */
} SRRecheckCellResult;

typedef struct {
  PetscInt             K, proven, falsified, unknown;
  PetscInt             nfail; /* non-proven cells, ascending, identical on every rank */
  SRRecheckCellResult *fail;
  PetscInt             boxes_max; /* largest per-cell enclosure count */
  double               boxes;     /* total enclosures computed */
  double               seconds;   /* wall time (max over ranks) */
} SRRecheckResult;

PetscErrorCode SRRecheckParamsSetDefault(SRRecheckParams *par);
/* -recheck_depth, -recheck_boxes, -falsify_samples, -attack_steps (one or two lines on a bad value). */
PetscErrorCode SRRecheckParamsSetFromOptions(MPI_Comm comm, SRRecheckParams *par);
/* One cell.  Not collective. */
PetscErrorCode SRRecheckCell(SRModel model, SRCells cells, PetscInt k, PetscInt nlist, const PetscInt *list, const SRRecheckParams *par, SRRecheckCellResult *res);
/* Cells [kstart, kend) against C (out: kend - kstart results).  Not collective. */
PetscErrorCode SRRecheckCells(SRModel model, SRCells cells, const SRSuccessorList *C, PetscInt kstart, PetscInt kend, const SRRecheckParams *par, SRRecheckCellResult *out);
/* Collective: res from the outcomes of the nown cells this rank owns (ascending, rank blocks in
   cell order): the counts summed, the non-proven cells gathered on every rank, the time since t0
   (MPI_Wtime, max over ranks).  own is compacted in place. */
PetscErrorCode SRRecheckGather(MPI_Comm comm, PetscInt K, PetscInt nown, SRRecheckCellResult *own, double t0, SRRecheckResult *res);
/* Every cell, split in contiguous blocks over comm (the same blocks as SRAbstraction); the
   non-proven cells are gathered on every rank.  Collective.  Against explicit lists C, or
   against the lists abs holds (index boxes: one cell's list expanded at a time). */
PetscErrorCode SRRecheckAll(MPI_Comm comm, SRModel model, SRCells cells, const SRSuccessorList *C, const SRRecheckParams *par, SRRecheckResult *res);
PetscErrorCode SRRecheckAllCertified(MPI_Comm comm, SRModel model, SRCells cells, SRAbstraction abs, const SRRecheckParams *par, SRRecheckResult *res);
PetscErrorCode SRRecheckResultDestroy(SRRecheckResult *res);

/* The batched first stage for index-box lists (src/abstraction/recheck_batch.c): the first
   step of SRRecheckCell's proof for up to cap cells at once through the batched kernels and
   SRAxesContains.  proven[c] for cells k0 .. k0 + nb - 1 with their stored rows (nb x (2n+1));
   a proven cell's SRRecheckCell result would be proven with SRRecheckBatchProvenResult's
   enclosure count and depth, a cell not proven goes to SRRecheckCell.  Not collective. */
typedef struct _p_SRRecheckBatch *SRRecheckBatch;
PetscErrorCode SRRecheckBatchCreate(SRModel model, SRAxes ax, const SRRecheckParams *par, PetscInt cap, SRRecheckBatch *b);
PetscErrorCode SRRecheckBatchProve(SRRecheckBatch b, PetscInt64 k0, PetscInt nb, const int32_t *rows, PetscBool *proven);
void           SRRecheckBatchProvenResult(SRRecheckBatch b, PetscInt *boxes, PetscInt *depth);
PetscErrorCode SRRecheckBatchDestroy(SRRecheckBatch *b);
/* SRRecheckGather for a rank whose cells are partly proven elsewhere: nproven cells proven
   with boxes enclosures in all and at most bmax per cell, plus the nown results in own. */
PetscErrorCode SRRecheckGatherPartial(MPI_Comm comm, PetscInt K, PetscInt nproven, double boxes, PetscInt bmax, PetscInt nown, SRRecheckCellResult *own, double t0, SRRecheckResult *res);
/* One line per non-proven cell (cell, outcome, x, f(x), depth) on the viewer, at most max lines. */
PetscErrorCode SRRecheckResultView(const SRRecheckResult *res, PetscInt n, PetscInt max, PetscViewer viewer);
