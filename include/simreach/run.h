/* One guarded training run for one (beta, tau, seed) on a communicator (SPEC §8). */
#pragma once

#include <simreach/base.h>
#include <simreach/abstraction.h>
#include <simreach/recheck.h>

typedef enum { SR_GUARD_REJECT = 0, SR_GUARD_BACKTRACK = 1, SR_GUARD_PROJECT = 2, SR_GUARD_NONE = 3 } SRGuardType;
extern const char *const SRGuardTypes[];

typedef enum { SR_RUN_PENDING = 0, SR_RUN_RUNNING = 1, SR_RUN_DONE = 2, SR_RUN_DIVERGED = 3, SR_RUN_INTERRUPTED = 4 } SRRunStatus;
extern const char *const SRRunStatusNames[];

/* One row of a run's checkpoint table (SPEC §8).  Everything but wall is a deterministic
   function of the options and (beta, tau, seed), whatever the rank count. */
typedef struct {
  PetscInt checkpoint, epoch;
  double   Lsim, H, task, pred_error, coverage;
  double   succ_certified, succ_minimal, succ_empirical;
  double   vol_E, vol_union;
  double   gap_min, taulogn, gap_max, taulogN;
  PetscInt accepted, rejected, backtracked;
  PetscInt recheck_failures; /* containment redone with the other enclosure + sampled falsification */
  PetscInt falsified;        /* cells where a sampled f_phi(x) escaped C(k) */
  /* where soundness pays (SPEC §5, §6): L_encl, H on the training samples, L_sim on the
     held-out set, the held-out images leaving D, |M_tight|, vol(E) of the tightest enclosure,
     the sampled floor |F| */
  double Lencl, H_train, Lsim_heldout, out_of_D, succ_tight, vol_E_tight, succ_floor;
  double   wall;             /* seconds since the run started (not reproducible) */
  /* the theta solve (SPEC §8): TAO's reason of the last solve, theta updates accepted / rejected /
     backtracked and moves that count (cumulative), objective before / after and the largest
     boundary displacement of the last solve */
  PetscInt tao_reason, theta_accepted, theta_rejected, theta_backtracked, theta_moves;
  double   theta_obj_before, theta_obj_after, theta_disp;
  /* the closed loop (SPEC §12): verified-safe volume fraction and mean verified horizon
     (min(h, SR_HORIZON_CAP), volume-weighted) with C(k) and with M_tight(k) */
  double safe_C, horizon_C, safe_tight, horizon_tight;
  /* -relist checkpoint (SPEC §8): the cells whose C(k) gained an entry when this checkpoint
     re-listed it from the current network's certified enclosure (0 with -relist never) */
  PetscInt relist_grown;
  /* the closed-loop answer (SPEC §9, §12): verified-safe volume fraction and mean verified
     horizon of the network verified on the -safe_cells grid; the final checkpoint only (NaN
     at the others and with -safe_cells 0) */
  double safe_grid, horizon_grid;
  /* the manipulation check's yardstick (SPEC §9, issue 33): held-out L_sim of the network on the
     cells as they start, with the targets chosen for the warm-started network that every arm of
     a seed starts from (src/train/run_yardstick.c) */
  double Lsim_ref;
  /* the ceiling of the closed-loop answer (SPEC §9): the fraction of the held-out samples
     (uniform in D) whose simulated trajectory under the network stays in D for SR_HORIZON_CAP
     steps; at the rows that carry safe_grid, NaN elsewhere */
  double safe_sim;
} SRCheckpoint;
#define SR_CHECKPOINT_NFIELDS 45
#define SR_HORIZON_CAP        100

typedef struct _p_SRRun *SRRun;

/* Collective on comm. */
PetscErrorCode SRRunCreate(MPI_Comm comm, SRRun *run);
/* Reads every knob of SPEC §3-§8 (-sys, -model, -mlp_widths, -cells, ..., -tao_*). */
PetscErrorCode SRRunSetFromOptions(SRRun run);
/* The sweep's grid point; overrides -beta / -tau / -seed. */
PetscErrorCode SRRunSetGridPoint(SRRun run, double beta, double tau, PetscInt seed);
/* SPEC §9: a beta = 0 run is trained once and evaluated at every tau: each checkpoint is also
   evaluated at these temperatures (the tau-dependent columns; the rest is the run's). */
PetscErrorCode SRRunSetEvalTaus(SRRun run, PetscInt n, const double tau[]);
/* Row i of the latest checkpoint at the i-th evaluation temperature (valid in the monitor). */
PetscErrorCode SRRunGetCheckpointAtTau(SRRun run, PetscInt i, const SRCheckpoint **row);
PetscErrorCode SRRunSetUp(SRRun run);
/* Called on every rank of the run after each checkpoint (the study writes it to HDF5). */
PetscErrorCode SRRunSetMonitor(SRRun run, PetscErrorCode (*monitor)(SRRun, const SRCheckpoint *, void *), void *ctx);
/* Collective: trains through all checkpoints (or from the restored one to the end).
   Stops cleanly (status SR_RUN_INTERRUPTED) at the next checkpoint if *stop becomes nonzero on any rank. */
PetscErrorCode SRRunSetStopFlag(SRRun run, volatile int *stop);
PetscErrorCode SRRunSolve(SRRun run);
PetscErrorCode SRRunGetStatus(SRRun run, SRRunStatus *status, const char **reason);
PetscErrorCode SRRunGetCheckpoints(SRRun run, PetscInt *n, const SRCheckpoint **table);
PetscErrorCode SRRunGetNumCheckpoints(SRRun run, PetscInt *ncheckpoints); /* -checkpoints */
PetscErrorCode SRRunGetObjects(SRRun run, SRModel *model, SRCells *cells, SRAbstraction *abs);
/* The enclosures E_k of every cell for the run's current network and cells: E has K rows of
   4n doubles, the run's enclosure (-enclosure) lo[n], hi[n], then the tightest (SPEC §5, the one
   behind |M_tight|) lo[n], hi[n]; +-inf where an enclosure is not finite.  Collective; every
   rank receives all K rows; the values do not depend on the rank count. */
PetscErrorCode SRRunGetFinalEnclosures(SRRun run, double *E);

/* Complete state after a checkpoint, for resume (bit-identical continuation):
   phi, Adam moments and step, theta, grid flag, counters, checkpoint index, and the
   successor lists.  Both sizes are fixed by the options alone (the lists are stored at
   their capacity), so the study can create its HDF5 datasets up front. */
PetscErrorCode SRRunGetStateSizes(SRRun run, PetscInt *ndouble, PetscInt *nint);
PetscErrorCode SRRunGetState(SRRun run, double *dstate, PetscInt *istate);
PetscErrorCode SRRunSetState(SRRun run, const double *dstate, const PetscInt *istate);
PetscErrorCode SRRunView(SRRun run, PetscViewer viewer);
/* The three-outcome re-check (SPEC §11, include/simreach/recheck.h) of the run's current triple
   (network, cells, C(k)) with the run's -recheck_* options; destroy res with
   SRRecheckResultDestroy.  Collective. */
PetscErrorCode SRRunRecheck(SRRun run, SRRecheckResult *res);
/* The non-proven cells (ascending, with witness or deepest point) of the last checkpoint's
   re-check; valid until the next checkpoint.  Not collective (every rank holds them). */
PetscErrorCode SRRunGetRecheckCells(SRRun run, PetscInt *n, const SRRecheckCellResult **cells);
/* Whether the run holds a verified triple (network, cells, lists) to store: PETSC_FALSE when it
   diverged before its abstraction was built (in the warm start).  Not collective. */
PetscErrorCode SRRunHasVerifiedTriple(SRRun run, PetscBool *has);
/* Last TAO converged reason of the theta solve (a TaoConvergedReason; 0 if TAO never ran) and its name. */
PetscErrorCode SRRunGetTaoReason(SRRun run, PetscInt *reason, const char **name);
/* Seconds spent in SRRunSolve and, of those, in the guard (containment checks, pruning, targets). */
PetscErrorCode SRRunGetTimings(SRRun run, double *total, double *guard);
PetscErrorCode SRRunDestroy(SRRun *run);
