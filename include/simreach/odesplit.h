/* Adaptive splitting of X0 over MPI ranks with a work queue (SPEC §15).

   Rank 0 keeps the queue of pieces (a binary tree: piece id 1 is X0, pieces 2k and 2k+1 are
   the halves of piece k) and works on pieces itself between serving the other ranks; every
   other rank asks for a piece, proves it (SRPieceProve) and returns the result with its
   next request.  A piece that is not proven is bisected (the dimension that most reduces the
   width of the violating constraint, odeloop.c) until max_depth; an open piece at max_depth
   has its centre simulated and, when the simulation breaks the spec, re-checked from that
   point with the validated enclosure (SRPieceRefute).  Which pieces exist, which are proven
   and which stay open depends only on the pieces themselves, so the verdict and the set of
   proven pieces do not depend on the rank count or on the order of the work (unless a
   counterexample stops the search early, which only happens when the answer is FALSIFIED).
   Before any splitting, falsification on cheap simulations: the centre, the corners and
   nsamples pseudo-random points of X0 (split over the ranks), the most violating ones
   re-checked with the validated enclosure (with more sub-steps around the simulated violation
   when 16 per period do not confirm it; one still unconfirmed is returned in sim_*).  Collective on comm. */
#pragma once

#include <simreach/odeloop.h>

typedef enum { SR_VERDICT_VERIFIED = 0, SR_VERDICT_FALSIFIED = 1, SR_VERDICT_UNKNOWN = 2 } SRVerdict;

typedef struct {
  int       max_depth;   /* bisections per branch */
  int       nsamples;    /* falsification samples */
  int       sim_nsub;    /* RK4 steps per period in simulations */
  PetscBool keep_tubes;  /* return the tube boxes of every leaf piece */
  PetscBool progress;    /* print a progress line (rank 0) */
  int       merge_depth; /* pieces this deep or deeper are proven in windows with their halves
                            joined again (src/reach/subtree.c; -1: never, or SRLoopCanMerge false) */
  int       merge_window; /* periods a failed window's halves run past the failed one before the join */
} SRSplitOptions;

typedef struct {
  double id;     /* tree id (exact in a double up to depth 52) */
  int    depth, status, constraint, step, cause; /* cause: SRPieceCause */
  double margin;
  double *lo, *hi; /* n each */
  double *tube;    /* steps x n x 2 (lo, hi), when keep_tubes */
} SRLeaf;

typedef struct {
  SRVerdict verdict;
  long      pieces;     /* all pieces handled (internal and leaves) */
  long      nleaves, proven, open;
  SRLeaf   *leaves;     /* rank 0: the leaves sorted by id */
  double    cex[SR_AFFINE_MAX]; /* FALSIFIED: the initial point */
  int       cex_constraint;
  int       cex_phase;  /* 0: sampling before splitting, 1: at a leaf */
  /* a simulated violation the validated enclosure did not confirm (sim_constraint -1: none):
     the start point, the constraint, the time and the score of the simulation (SPEC §15) */
  int       sim_constraint;
  double    sim_x[SR_AFFINE_MAX], sim_t, sim_margin;
  double    sim_time, prove_time;
  long      my_pieces;  /* pieces this rank proved (load balance) */
} SRSplitResult;

PetscErrorCode SRSplitSolve(MPI_Comm comm, SRLoop *loop, const SRSplitOptions *o, SRSplitResult *res);
void           SRSplitResultFree(SRSplitResult *res, int n);
