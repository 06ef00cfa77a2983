/* Properties of the closed loop on the abstraction graph k -> C(k) (SPEC §12).

   The graph is given by index-box lists over a partition with counts[d] intervals per
   dimension (cell index k = i0 + N0 (i1 + N1 i2), dimension 0 fastest): cell k's list C(k)
   is the index box lo[d] <= i_d <= hi[d] (empty when lo[d] > hi[d] for some d) plus a sink
   flag.  Every rank owns the contiguous block [kstart, kend) of cells and passes only their
   lists; no list is expanded into explicit successors.  A set of cells is a byte per cell of
   D (partition-sized, like the boundaries); "does C(k) meet the set" is one summed-area-table
   query (2^n look-ups), "the union of C(k) over a set" one n-dimensional difference array.

   Both answers are sound consequences of SPEC §5: a cell outside the computed reachable set
   is never reached by a real trajectory, and a cell with verified horizon h (or safe) keeps
   every real trajectory in D for h steps (forever).  A cell whose list was not verified must
   be passed with sink = PETSC_TRUE by the caller (conservative).

   Every result is identical on any number of ranks (volumes are summed in cell order over
   the replicated set).  Collective on comm. */
#pragma once

#include <simreach/base.h>

typedef struct {
  PetscInt         n;                      /* state dimension, 1..SR_MAX_DIM */
  PetscInt         counts[SR_MAX_DIM];     /* intervals per dimension; K = prod counts */
  PetscInt64       kstart, kend;           /* the cells this rank owns (K < 2^31) */
  const PetscInt  *lo, *hi;                /* (kend - kstart) x n inclusive index ranges of C(k) */
  const PetscBool *sink;                   /* (kend - kstart): the sink is in C(k) */
  const double    *bounds[SR_MAX_DIM];     /* counts[d] + 1 boundaries of dimension d (volumes) */
} SRIndexGraph;

/* The verified horizon of every owned cell: the number of steps every trajectory from it is
   proven to stay in D (0 when the sink is in C(k)); SR_HORIZON_SAFE for cells outside the
   sink's backward-reachable set, i.e. the largest set of cells from which D is never left.
   niter: fixed-point iterations; safe_fraction: vol(safe cells) / vol(D).  maxit bounds the
   iterations (the fixed point is reached after at most K of them; pass K or less). */
#define SR_HORIZON_SAFE PETSC_MAX_INT
PetscErrorCode SRClosedLoopSafe(MPI_Comm comm, const SRIndexGraph *g, PetscInt maxit, PetscInt *horizon, PetscInt *niter, double *safe_fraction);

/* Bounded reachability from the owned cells marked in init (bytes, 1 = in X0): R_0 = the
   initial cells, R_t = the union of C(k) over k in R_{t-1} without the sink.  For t = 0..steps:
   ncells[t] = |R_t|, volume[t] = vol(R_t) / vol(D); sink_step = the first t >= 1 at which the
   sink is among the successors of R_{t-1} (-1 if never within steps).  reached (optional, owned
   cells) = 1 where the cell is in some R_t, t <= steps. */
PetscErrorCode SRClosedLoopReach(MPI_Comm comm, const SRIndexGraph *g, const unsigned char *init, PetscInt steps, PetscInt64 *ncells, double *volume, PetscInt *sink_step, unsigned char *reached);

/* At a study checkpoint (SPEC §12): the verified-safe volume fraction and the mean verified
   horizon (volume-weighted, min(h, cap), safe cells counting cap) of a partition's cells, with
   the index boxes of their certified lists C(k) and with M_tight
   (E_tight: 2n per owned cell [ks, ke), lo then hi; NULL skips it).  NaN for free boxes.
   Collective on comm; identical on any number of ranks. */
#include <simreach/cells.h>
#include <simreach/successorlist.h>
typedef struct {
  double safe_C, horizon_C, safe_tight, horizon_tight;
} SRClosedLoopMetrics;
/* Crows: the index-box rows (SPEC §5: lo[0..n), hi[0..n), sink flag) of C(k) for this rank's
   cells [ks, ke), in order (SRIndexBoxBound of each list). */
PetscErrorCode SRClosedLoopCheckpoint(MPI_Comm comm, SRCells cells, PetscInt ks, PetscInt ke, const PetscInt *Crows, const double *E_tight, PetscInt cap, SRClosedLoopMetrics *m);

/* The closed-loop answer of a run (SPEC §9, §12): the network verified on the regular grid of
   D with counts[d] cells per dimension (enclosure type, bisected to depth; SPEC §10), then the
   verified-safe volume fraction and the mean verified horizon (min(h, cap), volume-weighted) on
   that grid — what `simreach verify -cells ... -output A` and `simreach safe A` print.
   Collective on comm; identical on any number of ranks. */
#include <simreach/model.h>
#include <simreach/system.h>
#include <simreach/abstraction.h>
PetscErrorCode SRClosedLoopGrid(MPI_Comm comm, SRModel model, SRSystem sys, const PetscInt counts[], SREnclosureType type, PetscInt depth, PetscInt cap, double *frac, double *mean);
