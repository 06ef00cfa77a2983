/* A piece of X0 and the pieces split from it, proven in windows of periods with the halves'
   states joined again after the period that made them split (src/reach/subtree.c, SPEC §15,
   docs/arch.md "Windows and joins").  For plants whose constraints are all 'always' and that select no
   network (SRLoopCanMerge); not collective. */
#pragma once

#include <simreach/odeloop.h>

/* one box leaf of the subtree: its tree id and depth, box, result (status, and for an open
   leaf the failed window's constraint, step, margin, cause) and tube (steps x n x 2, NaN
   where nothing is claimed; NULL without tubes); nonzero stops the emission */
typedef int (*SRSubtreeEmit)(void *ctx, double id, int depth, const double *lo, const double *hi, const SRPieceResult *r, const double *tube);

/* proves the piece [lo, hi] (tree id, depth) with windows: a failed window's halves run on for
   `window` periods past the failed one, then are joined; splits down to max_depth.  Emits
   every box leaf in tree order; *windows: the windows run (each a SRPieceProveWindow).
   Returns 0, the emitter's nonzero value, or 2 when memory ran out (nothing was emitted). */
int SRSubtreeSolve(SRLoop *loop, int window, int max_depth, bool tubes, double id, int depth, const double *lo, const double *hi, SRSubtreeEmit emit, void *ctx, long *windows);

/* true when the loop can be proven in windows: a continuous-time plant selecting no network,
   every constraint 'always' */
bool SRLoopCanMerge(const SRLoop *loop);
