/* The private state of one training run (SPEC §8), shared by the files that implement it:
   run.c (set-up and the loop), guard.c, cellsolve.c, run_recheck.c, runstate.c (src/train/). */
#pragma once

#include <simreach/base.h>
#include <simreach/random.h>
#include <simreach/model.h>
#include <simreach/cells.h>
#include <simreach/abstraction.h>
#include <simreach/metrics.h>
#include <simreach/recheck.h>
#include <simreach/loss.h>
#include <simreach/lossencl.h>
#include <simreach/run.h>
#include <simreach/private/adam.h>
#include <petsctao.h>

/* Divergence (docs/study.md, "Divergence"): a run whose held-out task loss (prediction error) at a
   checkpoint exceeds this factor times its value for the starting network has diverged. */
#define SR_RUN_EXPLODE_FACTOR 1000.0

struct _p_SRRun {
  MPI_Comm    comm;
  PetscMPIInt rank;
  /* options (SPEC §2-§8) */
  char            sysname[16];
  SRModelType     mtype;
  PetscInt        nhidden, widths[SR_MAX_LAYERS];
  PetscInt        ncounts, counts[SR_MAX_DIM];
  SRLossParams    par;
  SRNorm          p;
  SRTargetType    target;
  double          target_mass;
  PetscInt        target_samples;
  SREnclosureType enclosure;
  double          beta;
  PetscInt        seed;
  double          wmin, wmax; /* wmax < 0: half the largest extent of D */
  SRGuardType     guard;
  PetscInt        relist; /* -relist: 0 never (lists only shrink), 1 checkpoint (SPEC §8) */
  PetscBool       record_start; /* -record_start: row 0 measured on the network training starts from (SPEC §9) */
  PetscInt        halvings, epochs, ncheck, batch, nsamples, nheld, nfalsify;
  PetscInt        pretrain_epochs; /* task-only warm start before the abstraction is built */
  double          margin;          /* -succ_margin of the abstraction (grid spacings) */
  PetscInt        recheck_depth;   /* bisection depth of the independent re-check */
  PetscInt        recheck_boxes, attack_steps; /* its enclosure budget per cell, witness-search steps */
  double          lr, cov_w, vol_w;
  SRLossType      loss;           /* -loss sim|encl|sim+encl (SPEC §6) */
  PetscInt        tight_bisect;   /* -tight_bisect: sub-box levels of the tightest enclosure (SPEC §5) */
  PetscInt        safe_counts[SR_MAX_DIM], safe_nc; /* -safe_cells: the verification grid of the closed-loop answer (0 counts: by dimension; -1: off) */
  PetscInt        safe_bisect;    /* -safe_bisect */
  PetscInt        safe_every;     /* -safe_every: the closed-loop answer at every m-th checkpoint too (0: final only) */
  SREnclosureType safe_enclosure; /* -safe_enclosure */
  PetscInt        floor_points;   /* -floor_points: sample points per dimension of the floor |F| */
  double          cells_width;    /* -cells_width: initial half-widths as a fraction of the grid's (< 1: gaps) */
  PetscBool       quiet, fromoptions, setup, cells_given;
  char            init_network[PETSC_MAX_PATH_LEN]; /* -init_network FILE ("" none; SPEC §14, run_init.c) */
  char            init_digest[32]; /* -init_network_digest: set by study (SRMLPStructureDigest); "" none */
  /* objects */
  SRSystem      sys;
  SRModel       model;
  SRCells       cells, cand; /* accepted cells, candidate cells (TAO evaluations and guard) */
  SRAbstraction abs;
  Tao           tao;
  Vec           theta, lb, ub;
  SRAdam        adam;
  /* work arrays */
  PetscInt  P, K, n;
  double   *Xtr, *Xho, *Xb, *Y, *dY, *grad, *delta, *phi_old, *theta_old, *theta_new, *dtheta;
  PetscInt *perm;
  /* progress */
  PetscInt      icheck, epoch, accepted, rejected, backtracked, tao_reason;
  SRCheckpoint *table;
  PetscInt      ntable;
  SRRunStatus   status;
  char          reason[256];
  volatile int *stop;
  PetscErrorCode (*monitor)(SRRun, const SRCheckpoint *, void *);
  void         *mctx;
  double        t0, t_total, t_guard;
  /* the last verified triple (SPEC §11): network, cells and lists as re-checked at the last
     checkpoint (or as built at set-up); a diverging run falls back to it */
  PetscBool       has_verified;
  double         *ver_phi;
  SRCells         ver_cells;
  SRAbstraction   ver_abs; /* holds only the lists (SRAbstractionCopyLists) */
  SRRecheckResult recheck_last; /* the last checkpoint's re-check (its non-proven cells) */
  /* cells parametrisation and the theta solve (SPEC §4, §8) */
  SRCellsParam cells_param;
  PetscBool    cell_solve, cell_solve_set; /* -cell_solve; default on under a guard, off with -guard none */
  PetscInt     ntheta;                     /* 2 n K (boxes) or sum_d (m_d - 1) (partition) */
  PetscInt    *hat;                        /* frozen hard assignment of the training samples in one solve */
  double      *theta_acc;                  /* the theta the guard accepted (ntheta) */
  double      *tr_lb, *tr_ub;              /* trust region of the current partition solve */
  double      *theta_g;                    /* scratch of the partition objective: one term's theta gradient */
  double       h0;                         /* smallest spacing of the initial grid */
  double       pred0;                      /* held-out task loss of the starting network (divergence rule) */
  PetscInt     th_accepted, th_rejected, th_backtracked, th_moves; /* theta updates (cumulative) */
  double       th_obj_before, th_obj_after, th_disp;              /* the last solve */
  PetscLogEvent ev_step, ev_guard, ev_tao, ev_check;
  /* the manipulation check's yardstick and the other temperatures (run_yardstick.c, SPEC §9) */
  SRCells         ycells;
  PetscInt       *yptr, *yidx;
  SRSuccessorList yT;
  PetscInt        neval;
  double         *eval_tau;
  SRCheckpoint   *eval_rows;
  PetscInt        target_update; /* -target_update: 0 after every accepted step, 1 at checkpoints only, 2 never (SPEC §9) */
};

/* guard.c: the containment guard on candidate updates and the divergence rule (SPEC §8) */
PetscBool      SRAllFinite_Private(PetscInt n, const double *a);
PetscErrorCode SRRunDiverge_Private(SRRun r, const char reason[]);
PetscErrorCode SRRunGuardCheck_Private(SRRun r, SRCells cells, PetscBool *ok, PetscInt *first);
PetscErrorCode SRRunAccepted_Private(SRRun r);
PetscErrorCode SRRunGuardPhi_Private(SRRun r, PetscInt epoch, PetscInt step);
PetscErrorCode SRRunGuardTheta_Private(SRRun r);

/* cellsolve.c: the TAO solve on theta (SPEC §4, §8) */
void           SRRunThetaGet_Private(SRRun r, SRCells cells, double *th);
PetscErrorCode SRRunThetaSet_Private(SRRun r, SRCells cells, const double *th);
void           SRRunThetaClamp_Private(SRRun r, double *th);
void           SRRunThetaRestoreCell_Private(SRRun r, double *cand, PetscInt k);
PetscErrorCode SRRunAcceptTheta_Private(SRRun r);
/* The TAO objectives on theta (src/train/theta.c): a partition, free boxes. */
PetscErrorCode SRRunThetaObjectivePartition_Private(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx);
PetscErrorCode SRRunThetaObjective_Private(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx);
PetscErrorCode SRRunCellSolveSetUp_Private(SRRun r);
PetscErrorCode SRRunThetaStep_Private(SRRun r);

/* recheck.c: the independent re-check of a checkpoint (SPEC §8, §11) */
PetscErrorCode SRRunRecheck_Private(SRRun r, PetscInt *nrecheck, PetscInt *nfalsified);
/* Keep the current (network, cells, C, T) as the last verified triple / put it back.  Collective. */
PetscErrorCode SRRunSaveVerified_Private(SRRun r);
PetscErrorCode SRRunRestoreVerified_Private(SRRun r);
PetscErrorCode SRRunDestroyVerified_Private(SRRun r);
/* runsize.c: refuses, before SRRunSetUp allocates anything, a run whose arrays overflow a
   PetscInt (exit 2) or whose memory exceeds what this rank may use (exit 4), naming the options. */
PetscErrorCode SRRunCheckSize_Private(SRRun r);
/* -init_network FILE (SPEC §14, run_init.c): checked against the run's shapes and -loss when the
   options are read (before any work); adopted in SRRunSetUp in place of the seeded init. */
PetscErrorCode SRRunInitNetworkCheck_Private(SRRun r);
PetscErrorCode SRRunInitNetworkAdopt_Private(SRRun r, SRModel model);
/* run_yardstick.c (SPEC §9, issue 33) */
PetscErrorCode SRRunYardstickSetUp_Private(SRRun r);
PetscErrorCode SRRunYardstickDestroy_Private(SRRun r);
PetscErrorCode SRRunYardstick_Private(SRRun r, double tau, const double *Yho, double *Lref);
PetscErrorCode SRRunSimulatedSafe_Private(SRRun r, double *frac);
PetscErrorCode SRRunLossTargets_Private(SRRun r, const SRSuccessorList **T);
PetscErrorCode SRRunCheckpointAtTau_Private(SRRun r, double tau, const SRCheckpoint *row, SRCheckpoint *out);
