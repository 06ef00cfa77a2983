/* SRRun: one guarded training run for one (beta, tau, seed) on a communicator (SPEC §8).

   Per checkpoint interval: Adam minibatch steps on phi (task + beta L, -loss), then a
   bound-constrained TAO solve on theta (beta L_sim + coverage and volume terms).
   The guard runs on every candidate update: once per Adam step for phi, once per TAO
   solve for theta.  Sample losses and gradients are computed redundantly, in a fixed
   order, on every rank of the run; only the cell work inside SRAbstraction (and the
   independent re-check here) is partitioned, and every verdict is reduced, so the run
   is bit-identical on any number of ranks.

   This file holds the set-up and the loop; the options in run_options.c, the guard in guard.c, the TAO cell solve in
   cellsolve.c, the checkpoint re-check in recheck.c, the resume state in runstate.c, and
   the state they share in include/simreach/private/run.h. */
#include <simreach/private/run.h>
#include <stdio.h>
#include <simreach/closedloop.h>
#include <math.h>
#include <string.h>

const char *const SRGuardTypes[]     = {"reject", "backtrack", "project", "none", "SRGuardType", "SR_GUARD_", NULL};
const char *const SRRunStatusNames[] = {"pending", "running", "done", "diverged", "interrupted", "SRRunStatus", "SR_RUN_", NULL};

PetscErrorCode SRRunCreate(MPI_Comm comm, SRRun *run)
{
  SRRun r;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&r));
  r->comm = comm;
  PetscCallMPI(MPI_Comm_rank(comm, &r->rank));
  PetscCall(PetscStrncpy(r->sysname, "pendulum", sizeof(r->sysname)));
  r->mtype     = SR_MODEL_CONTROLLER;
  r->nhidden   = 2;
  r->widths[0] = 32;
  r->widths[1] = 32;
  r->ncounts   = 2;
  r->counts[0] = 8;
  r->counts[1] = 8;
  r->counts[2] = 8;
  r->p                    = SR_NORM_2;
  r->par.tau              = 0.05;
  r->par.eps              = 0.05;
  r->par.lambda_eps       = 0.1;
  r->par.assign           = SR_ASSIGN_HARD;
  r->par.assign_neighbors = 4;
  r->target               = SR_TARGET_EMPIRICAL;
  r->target_mass          = 0.9;
  r->target_samples       = 32;
  r->enclosure            = SR_ENCLOSURE_INTERVAL;
  r->beta                 = 0.15;
  r->seed                 = 0;
  r->wmin                 = 1e-3;
  r->wmax                 = -1;
  r->guard                = SR_GUARD_REJECT;
  r->relist               = 1; /* checkpoint (SPEC §8) */
  r->halvings             = 4;
  r->epochs               = 20;
  r->pretrain_epochs      = 0;
  r->margin               = 0.0;
  r->recheck_depth        = 40;
  r->recheck_boxes        = 4096;
  r->attack_steps         = 40;
  r->ncheck               = 5;
  r->batch                = 64;
  r->nsamples             = 512;
  r->nheld                = 8192; /* SPEC §6: a max over held-out points that is stable */
  r->loss                 = SR_LOSS_SIM;
  r->tight_bisect         = 1;
  r->cells_width          = 1.0;
  r->floor_points         = 9;
  r->safe_nc              = 0; /* by dimension (SRRunSafeCounts_Private) */
  r->safe_bisect          = 1;
  r->safe_every           = 0; /* final checkpoint only (docs/closed-loop.md: the cost per checkpoint) */
  r->safe_enclosure       = SR_ENCLOSURE_BOTH;
  r->nfalsify             = 16;
  r->lr                   = 3e-3;
  r->cov_w                = 0.0;
  r->vol_w                = 0.0;
  r->status               = SR_RUN_PENDING;
  r->cells_param          = SR_CELLS_PARTITION;
  r->cell_solve           = PETSC_TRUE;
  PetscCall(SRAbstractionCreate(comm, &r->abs));
  /* theta is solved redundantly on every rank (PETSC_COMM_SELF) so its floating-point
     reductions never depend on the rank count. */
  PetscCall(TaoCreate(PETSC_COMM_SELF, &r->tao));
  PetscCall(TaoSetType(r->tao, TAOBLMVM));
  PetscCall(TaoSetMaximumIterations(r->tao, 10));
  PetscCall(PetscLogEventRegister("SRRunAdamStep", 0, &r->ev_step));
  PetscCall(PetscLogEventRegister("SRRunGuard", 0, &r->ev_guard));
  PetscCall(PetscLogEventRegister("SRRunThetaTAO", 0, &r->ev_tao));
  PetscCall(PetscLogEventRegister("SRRunCheckpoint", 0, &r->ev_check));
  *run = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunSetGridPoint(SRRun r, double beta, double tau, PetscInt seed)
{
  PetscFunctionBeginUser;
  PetscCheck(!r->setup, r->comm, PETSC_ERR_ORDER, "SRRunSetGridPoint must come before SRRunSetUp");
  PetscCheck(beta >= 0 && isfinite(beta), r->comm, PETSC_ERR_ARG_OUTOFRANGE, "-beta %g: allowed is a finite value >= 0", beta);
  PetscCheck(tau > 0 && isfinite(tau), r->comm, PETSC_ERR_ARG_OUTOFRANGE, "-tau %g: allowed is a finite value > 0", tau);
  PetscCheck(seed >= 0, r->comm, PETSC_ERR_ARG_OUTOFRANGE, "-seed %" PetscInt_FMT ": allowed is >= 0", seed);
  r->beta    = beta;
  r->par.tau = tau;
  r->seed    = seed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunSetMonitor(SRRun r, PetscErrorCode (*monitor)(SRRun, const SRCheckpoint *, void *), void *ctx)
{
  PetscFunctionBeginUser;
  r->monitor = monitor;
  r->mctx    = ctx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunSetStopFlag(SRRun r, volatile int *stop)
{
  PetscFunctionBeginUser;
  r->stop = stop;
  PetscFunctionReturn(PETSC_SUCCESS);
}


/* Minibatch order of one epoch: a Fisher-Yates shuffle driven by the stream at index
   (epoch N + i), never by rank. */
static void SRRunShuffle_Private(SRRun r, SRStream stream, PetscInt epoch)
{
  const PetscInt N = r->nsamples;

  for (PetscInt i = 0; i < N; i++) r->perm[i] = i;
  for (PetscInt i = N - 1; i > 0; i--) {
    const double   u = SRRandomUniform((uint64_t)r->seed, stream, (uint64_t)epoch * (uint64_t)N + (uint64_t)i);
    const PetscInt j = (PetscInt)floor(u * (double)(i + 1));
    const PetscInt t = r->perm[i];
    r->perm[i]       = r->perm[j];
    r->perm[j]       = t;
  }
}

/* Warm start (-pretrain_epochs; docs/study.md, "Guard slack"): plain Adam on the task loss from the
   seeded initialisation, with no abstraction yet.  SPEC §5 certifies C(k) once, at the
   start of the guarded training, and afterwards only prunes it; certifying the lists of a
   random network would pin f_phi near its initialisation, since every task step that moves
   an enclosure out of its successors is refused.  The result depends on the seed alone, so
   every beta of a seed (and its beta = 0 baseline) starts from the same network. */
static PetscErrorCode SRRunPretrain_Private(SRRun r)
{
  const PetscInt N = r->nsamples, n = r->n, B = r->batch;
  SRAdam         adam;
  double        *phi = r->model->mlp->params;

  PetscFunctionBeginUser;
  if (r->pretrain_epochs == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SRAdamCreate(r->P, r->lr, &adam));
  for (PetscInt e = 0; e < r->pretrain_epochs && r->status != SR_RUN_DIVERGED; e++) {
    SRRunShuffle_Private(r, SR_STREAM_PRETRAIN, e);
    for (PetscInt s = 0; s * B < N; s++) {
      const PetscInt nb = PetscMin(B, N - s * B);
      double         task;

      for (PetscInt b = 0; b < nb; b++)
        for (PetscInt d = 0; d < n; d++) r->Xb[b * n + d] = r->Xtr[r->perm[s * B + b] * n + d];
      PetscCall(PetscArrayzero(r->grad, r->P));
      PetscCall(SRModelTaskLoss(r->model, nb, r->Xb, &task, r->grad));
      PetscCall(SRAdamStep(adam, r->grad, r->delta));
      for (PetscInt i = 0; i < r->P; i++) phi[i] += r->delta[i];
      if (!isfinite(task) || !SRAllFinite_Private(r->P, phi)) {
        char msg[256];
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "non-finite task loss or parameters in the warm start at epoch %" PetscInt_FMT " of -pretrain_epochs %" PetscInt_FMT " (-lr %g)", e, r->pretrain_epochs, r->lr));
        PetscCall(SRRunDiverge_Private(r, msg));
        break;
      }
    }
  }
  PetscCall(SRAdamDestroy(&adam));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunSetUp(SRRun r)
{
  MPI_Comm comm = r->comm;
  PetscInt n, K, P;

  PetscFunctionBeginUser;
  if (r->setup) PetscFunctionReturn(PETSC_SUCCESS);
  if (!r->sys) PetscCall(SRSystemCreate(comm, r->sysname, NULL, &r->sys));
  n = r->sys->n;
  if (!r->cells_given && r->ncounts != n) {
    r->ncounts = n;
    for (PetscInt i = 0; i < SR_MAX_DIM; i++) r->counts[i] = 8;
  }
  PetscCheck(r->ncounts == n, comm, PETSC_ERR_ARG_SIZ, "-cells: %" PetscInt_FMT " counts given; -sys %s has dimension %" PetscInt_FMT, r->ncounts, r->sysname, n);
  PetscCall(SRRunCheckSize_Private(r)); /* before anything is allocated (issue #13) */
  PetscCall(SRModelCreate(r->sys, r->mtype, r->nhidden, r->widths, &r->model));
  PetscCall(SRMLPInitialize(r->model->mlp, (uint64_t)r->seed));
  if (r->init_network[0]) PetscCall(SRRunInitNetworkAdopt_Private(r, r->model)); /* SPEC §14: instead of the init */
  if (r->cells_param == SR_CELLS_PARTITION) PetscCall(SRCellsCreatePartition(r->sys, r->counts, &r->cells));
  else PetscCall(SRCellsCreateGrid(r->sys, r->counts, &r->cells));
  r->h0 = PETSC_MAX_REAL;
  for (PetscInt d = 0; d < n; d++) r->h0 = PetscMin(r->h0, (r->sys->dhi[d] - r->sys->dlo[d]) / (double)r->counts[d]);
  if (r->cells_width != 1.0) { /* -cells_width f < 1: narrow free boxes with gaps (SPEC §9 published-check setting) */
    PetscCheck(r->cells_param != SR_CELLS_PARTITION, comm, PETSC_ERR_ARG_INCOMP, "-cells_width %g: narrow cells with gaps need -cells_param boxes (a partition tiles D)", r->cells_width);
    PetscCall(SRCellsSetFree(r->cells));
    for (PetscInt i = 0; i < r->cells->K * n; i++) r->cells->w[i] *= r->cells_width;
  }
  if (r->wmax < 0) {
    r->wmax = 0;
    for (PetscInt d = 0; d < n; d++) r->wmax = PetscMax(r->wmax, 0.5 * (r->sys->dhi[d] - r->sys->dlo[d]));
    PetscCheck(r->wmin <= r->wmax, comm, PETSC_ERR_ARG_OUTOFRANGE, "-w_min %g > -w_max %g (the default, half the largest extent of D): the half-width bounds need w_min <= w_max", r->wmin, r->wmax);
  }
  r->cells->p    = r->p;
  r->cells->wmin = r->wmin;
  r->cells->wmax = r->wmax;
  PetscCall(SRCellsDuplicate(r->cells, &r->cand));
  r->n = n;
  r->K = K = r->cells->K;
  r->P = P = r->model->mlp->nparams;
  PetscCall(SRAbstractionSetEnclosureType(r->abs, r->enclosure));
  PetscCall(SRAbstractionSetMargin(r->abs, r->margin));
  PetscCall(SRAbstractionSetTarget(r->abs, r->target, r->target_mass, r->target_samples, (uint64_t)r->seed));
  PetscCall(SRAdamCreate(P, r->lr, &r->adam));

  const PetscInt NY = PetscMax(PetscMax(r->nsamples, r->nheld), r->nfalsify);
  PetscCall(PetscMalloc5(r->nsamples * n, &r->Xtr, r->nheld * n, &r->Xho, NY * n, &r->Xb, NY * n, &r->Y, NY * n, &r->dY));
  PetscCall(PetscMalloc6(P, &r->grad, P, &r->delta, P, &r->phi_old, 2 * n * K, &r->theta_old, 2 * n * K, &r->theta_new, 2 * n * K, &r->dtheta));
  PetscCall(PetscMalloc1(r->nsamples, &r->perm));
  /* samples uniform in D, each coordinate a pure function of (seed, stream, i n + d) (random.h) */
  for (PetscInt i = 0; i < r->nsamples; i++)
    for (PetscInt d = 0; d < n; d++) r->Xtr[i * n + d] = SRRandomRange((uint64_t)r->seed, SR_STREAM_TRAIN, (uint64_t)(i * n + d), r->sys->dlo[d], r->sys->dhi[d]);
  for (PetscInt i = 0; i < r->nheld; i++)
    for (PetscInt d = 0; d < n; d++) r->Xho[i * n + d] = SRRandomRange((uint64_t)r->seed, SR_STREAM_HELDOUT, (uint64_t)(i * n + d), r->sys->dlo[d], r->sys->dhi[d]);

  PetscCall(SRRunCellSolveSetUp_Private(r));
  PetscCall(PetscCalloc1(r->ncheck + 1, &r->table));
  PetscCall(SRRunPretrain_Private(r));
  /* the divergence rule's reference: the held-out task loss of the network training starts from
     (a function of the options and the seed, so a resumed run recomputes the same value) */
  if (r->status != SR_RUN_DIVERGED) PetscCall(SRModelTaskLoss(r->model, r->nheld, r->Xho, &r->pred0, NULL));
  /* C(k) and T(k) of the (warm-started) model on the initial grid (SPEC §5) */
  if (r->status != SR_RUN_DIVERGED) PetscCall(SRAbstractionBuild(r->abs, r->model, r->cells));
  if (r->status != SR_RUN_DIVERGED) PetscCall(SRRunYardstickSetUp_Private(r)); /* the manipulation check's yardstick (SPEC §9) */
  r->setup = PETSC_TRUE;
  if (r->status != SR_RUN_DIVERGED) PetscCall(SRRunSaveVerified_Private(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One epoch of Adam minibatch steps on task + beta L, L per -loss (SPEC §6, §8).  The order is a
   Fisher-Yates shuffle driven by SR_STREAM_BATCH at index (epoch N + i), never by rank. */
static PetscErrorCode SRRunTrainEpoch_Private(SRRun r, PetscInt epoch)
{
  const PetscInt         N = r->nsamples, n = r->n, B = r->batch;
  const SRSuccessorList *T;

  PetscFunctionBeginUser;
  SRRunShuffle_Private(r, SR_STREAM_BATCH, epoch);
  for (PetscInt s = 0; s * B < N; s++) {
    const PetscInt nb   = PetscMin(B, N - s * B);
    double         task = 0, lsim = 0, lencl = 0;

    PetscCall(PetscLogEventBegin(r->ev_step, 0, 0, 0, 0));
    for (PetscInt b = 0; b < nb; b++)
      for (PetscInt d = 0; d < n; d++) r->Xb[b * n + d] = r->Xtr[r->perm[s * B + b] * n + d];
    PetscCall(PetscArrayzero(r->grad, r->P));
    PetscCall(SRModelTaskLoss(r->model, nb, r->Xb, &task, r->grad));
    if (r->beta > 0 && SRLossHasEncl(r->loss)) {
      /* L_encl over every cell, its gradient through the interval pass (SPEC §6) */
      PetscCall(SRRunLossTargets_Private(r, &T));
      PetscCall(SRLossEncl(r->model, r->cells, T, r->par.tau, r->beta, &lencl, r->grad, NULL));
    }
    if (r->beta > 0 && r->loss == SR_LOSS_WIDTH1) /* the positive control's first-order width (SPEC §9) */
      PetscCall(SRLossWidth1(r->model, r->cells, r->tight_bisect, r->beta, &lencl, r->grad, NULL));
    if (r->beta > 0 && SRLossHasSim(r->loss)) {
      SRLossValues val;
      PetscCall(SRRunLossTargets_Private(r, &T));
      PetscCall(SRModelEvaluate(r->model, nb, r->Xb, r->Y));
      PetscCall(SRLossSim(r->cells, T, &r->par, nb, r->Xb, r->Y, &val, r->dY, NULL));
      for (PetscInt i = 0; i < nb * n; i++) r->dY[i] *= r->beta;
      PetscCall(SRModelVJP(r->model, nb, r->Xb, r->dY, r->grad));
      lsim = val.Lsim;
    }
    PetscCall(PetscLogEventEnd(r->ev_step, 0, 0, 0, 0));
    if (!isfinite(task) || !isfinite(lsim) || !isfinite(lencl) || !SRAllFinite_Private(r->P, r->grad)) {
      char msg[256];
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "non-finite loss or gradient (task %g, L_sim %g, L_encl %g) at epoch %" PetscInt_FMT ", step %" PetscInt_FMT " (-lr %g)", task, lsim, lencl, epoch, s, r->lr));
      PetscCall(SRRunDiverge_Private(r, msg));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(SRAdamStep(r->adam, r->grad, r->delta));
    PetscCall(SRRunGuardPhi_Private(r, epoch, s));
    if (r->status == SR_RUN_DIVERGED) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}


/* -relist checkpoint (SPEC §8): C(k) re-listed from the current network's certified enclosure
   (SRAbstractionBuild, as at the start), so it may grow as well as shrink; *grown counts the
   cells whose index box gained a cell or the sink.  The lists are replicated, so every rank
   counts the same. */
static PetscErrorCode SRRunRelist_Private(SRRun r, PetscInt *grown)
{
  const PetscInt  n = r->cells->n, K = r->cells->K, rl = 2 * n + 1;
  const PetscInt *rows;
  PetscInt       *old;

  PetscFunctionBeginUser;
  PetscCall(SRAbstractionGetCertifiedBoxes(r->abs, r->cells, &rows));
  PetscCall(PetscMalloc1(K * rl, &old));
  PetscCall(PetscArraycpy(old, rows, K * rl));
  PetscCall(SRAbstractionBuild(r->abs, r->model, r->cells));
  PetscCall(SRAbstractionGetCertifiedBoxes(r->abs, r->cells, &rows));
  *grown = 0;
  for (PetscInt k = 0; k < K; k++) {
    const PetscInt *o = old + k * rl, *w = rows + k * rl;
    PetscBool       g = (PetscBool)(w[2 * n] && !o[2 * n]);
    for (PetscInt d = 0; d < n && !g; d++)
      if (w[d] <= w[n + d] && (w[d] < o[d] || w[n + d] > o[n + d])) g = PETSC_TRUE; /* an empty old box (lo > hi) loses to any cell */
    if (g) (*grown)++;
  }
  PetscCall(PetscFree(old));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The closed-loop answer (SPEC §9, §12) at checkpoint j: the network verified on the -safe_cells
   grid, at the final checkpoint and, with -safe_every m > 0, at every m-th one (j = 0, m, 2m, ...);
   NaN elsewhere, with -safe_cells 0 and with -model dynamics (not applicable, SRRunSetFromOptions). */
static PetscErrorCode SRRunSafeGrid_Private(SRRun r, PetscInt j, double *frac, double *mean)
{
  static const PetscInt bydim[SR_MAX_DIM][SR_MAX_DIM] = {{400}, {200, 200}, {40, 20, 20}, {12, 12, 12, 12}, {8, 8, 8, 8, 8}, {6, 6, 6, 6, 6, 6}}; /* issue 36: rows for the ARCH plants (4..6 states) */
  const PetscInt       *sc                            = r->safe_nc > 0 ? r->safe_counts : bydim[r->sys->n - 1];

  PetscFunctionBeginUser;
  *frac = *mean = NAN;
  if (r->safe_nc < 0 || !(j == r->ncheck || (r->safe_every > 0 && j % r->safe_every == 0))) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SRClosedLoopGrid(r->comm, r->model, r->sys, sc, r->safe_enclosure, r->safe_bisect, SR_HORIZON_CAP, frac, mean));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One row of the checkpoint table (SPEC §6, §8). */
static PetscErrorCode SRRunCheckpoint_Private(SRRun r, PetscInt j)
{
  SRCheckpoint           row;
  SRLossValues           val, hv, hvt, vho;
  SRAbstractionMetrics   met;
  SRTightMetrics         tm;
  const SRSuccessorList *T;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(r->ev_check, 0, 0, 0, 0));
  PetscCall(PetscMemzero(&row, sizeof(row)));
  row.checkpoint = j;
  row.epoch      = r->epoch;
  /* A network with NaN/Inf weights is never stored: the run falls back to its last verified
     triple (SPEC §11). */
  if (!SRAllFinite_Private(r->P, r->model->mlp->params)) {
    char msg[256];
    PetscCall(PetscLogEventEnd(r->ev_check, 0, 0, 0, 0));
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "non-finite network weights at checkpoint %" PetscInt_FMT "; the last verified network, cells and lists are kept", j));
    PetscCall(SRRunDiverge_Private(r, msg));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  /* train-then-abstract: C(k) rebuilt from E_k (SPEC §8).  Then the re-check of SPEC §11 on the
     triple this checkpoint stores: the network, the cells and the lists as they now stand. */
  if (j == 0) { /* -record_start: the starting triple as set up, measured, nothing re-built */
  } else if (r->guard == SR_GUARD_NONE) PetscCall(SRAbstractionBuild(r->abs, r->model, r->cells));
  else if (r->relist) PetscCall(SRRunRelist_Private(r, &row.relist_grown)); /* -relist checkpoint (SPEC §8) */
  PetscCall(SRRunRecheck_Private(r, &row.recheck_failures, &row.falsified));
  PetscCall(SRRunLossTargets_Private(r, &T));
  PetscCall(SRModelEvaluate(r->model, r->nsamples, r->Xtr, r->Y));
  PetscCall(SRLossSim(r->cells, T, &r->par, r->nsamples, r->Xtr, r->Y, &val, NULL, NULL));
  PetscCall(SRLossHard(r->cells, T, &r->par, r->nsamples, r->Xtr, r->Y, &hvt)); /* H_train */
  PetscCall(SRModelTaskLoss(r->model, r->nsamples, r->Xtr, &row.task, NULL));
  PetscCall(SRModelEvaluate(r->model, r->nheld, r->Xho, r->Y));
  PetscCall(SRLossHard(r->cells, T, &r->par, r->nheld, r->Xho, r->Y, &hv));
  PetscCall(SRLossSim(r->cells, T, &r->par, r->nheld, r->Xho, r->Y, &vho, NULL, NULL)); /* held-out L_sim */
  PetscCall(SRLossEncl(r->model, r->cells, T, r->par.tau, 1.0, &row.Lencl, NULL, NULL));
  {
    /* |M_tight|, vol(E_tight), |F|; then the closed loop with C(k) and M_tight(k) (SPEC §12) */
    SRClosedLoopMetrics cl;
    PetscInt            ks, ke, *Crows;
    double             *Et;
    PetscCall(SRAbstractionGetOwnership(r->abs, r->cells->K, &ks, &ke));
    PetscCall(PetscMalloc2(2 * r->cells->n * PetscMax(ke - ks, 1), &Et, (2 * r->cells->n + 1) * PetscMax(ke - ks, 1), &Crows));
    PetscCall(SRMetricsTight(r->comm, r->abs, r->model, r->cells, r->tight_bisect, r->floor_points, &tm, Et));
    for (PetscInt k = ks; k < ke; k++) { /* the index boxes of this rank's C(k) */
      PetscInt        nC;
      const PetscInt *Ck;
      PetscCall(SRAbstractionGetCertifiedCell(r->abs, k, &nC, &Ck));
      PetscCall(SRIndexBoxBound(r->cells, nC, Ck, Crows + (2 * r->cells->n + 1) * (k - ks)));
    }
    PetscCall(SRClosedLoopCheckpoint(r->comm, r->cells, ks, ke, Crows, Et, SR_HORIZON_CAP, &cl));
    PetscCall(PetscFree2(Et, Crows));
    row.safe_C        = cl.safe_C;
    row.horizon_C     = cl.horizon_C;
    row.safe_tight    = cl.safe_tight;
    row.horizon_tight = cl.horizon_tight;
  }
  PetscCall(SRRunYardstick_Private(r, r->par.tau, r->Y, &row.Lsim_ref)); /* r->Y: the held-out images */
  PetscCall(SRRunSafeGrid_Private(r, j, &row.safe_grid, &row.horizon_grid));
  row.safe_sim = NAN;
  if (isfinite(row.safe_grid)) PetscCall(SRRunSimulatedSafe_Private(r, &row.safe_sim)); /* its ceiling (SPEC §9) */
  PetscCall(SRModelTaskLoss(r->model, r->nheld, r->Xho, &row.pred_error, NULL));
  PetscCall(SRAbstractionGetMetrics(r->abs, r->model, r->cells, &met));
  row.Lsim           = val.Lsim;
  row.gap_min        = val.gap_min;
  row.taulogn        = val.taulogn;
  row.gap_max        = val.gap_max;
  row.taulogN        = val.taulogN;
  row.H              = hv.H;
  row.coverage       = hv.coverage;
  row.out_of_D       = hv.out_of_D;
  row.H_train        = hvt.H;
  row.Lsim_heldout   = vho.Lsim;
  row.succ_tight     = tm.succ_tight;
  row.vol_E_tight    = tm.vol_E_tight;
  row.succ_floor     = tm.succ_floor;
  row.succ_certified = met.succ_certified;
  row.succ_minimal   = met.succ_minimal;
  row.succ_empirical = met.succ_empirical;
  row.vol_E          = met.vol_E;
  row.vol_union      = met.vol_union;
  row.accepted       = r->accepted;
  row.rejected       = r->rejected;
  row.backtracked    = r->backtracked;
  row.wall           = MPI_Wtime() - r->t0;
  row.tao_reason     = r->tao_reason;
  row.theta_accepted = r->th_accepted;
  row.theta_rejected = r->th_rejected;
  row.theta_backtracked = r->th_backtracked;
  row.theta_moves    = r->th_moves;
  row.theta_obj_before  = r->th_obj_before;
  row.theta_obj_after   = r->th_obj_after;
  row.theta_disp     = r->th_disp;
  PetscCall(PetscLogEventEnd(r->ev_check, 0, 0, 0, 0));
  if (!isfinite(row.Lsim) || !isfinite(row.task) || !isfinite(row.H)) {
    /* not stored: the run falls back to the triple of its last checkpoint */
    char msg[256];
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "non-finite checkpoint values (L_sim %g, task %g, H %g) at checkpoint %" PetscInt_FMT "; the last verified network, cells and lists are kept", row.Lsim, row.task, row.H, j));
    PetscCall(SRRunDiverge_Private(r, msg));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!(row.pred_error <= SR_RUN_EXPLODE_FACTOR * PetscMax(r->pred0, 1e-300))) {
    /* the loss exploded (docs/study.md, "Divergence"): a finite but useless network is not a result */
    char msg[256];
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "the loss exploded: prediction error %g at checkpoint %" PetscInt_FMT " exceeds %d times its initial value %g (-lr %g); the last verified network, cells and lists are kept", row.pred_error, j, (int)SR_RUN_EXPLODE_FACTOR, r->pred0, r->lr));
    PetscCall(SRRunDiverge_Private(r, msg));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt i = 0; i < r->neval; i++) PetscCall(SRRunCheckpointAtTau_Private(r, r->eval_tau[i], &row, &r->eval_rows[i])); /* SPEC §9: beta = 0 at every tau */
  PetscCall(SRRunSaveVerified_Private(r));
  r->table[r->ntable++] = row;
  if (!r->quiet)
    PetscCall(PetscPrintf(r->comm,
                          "checkpoint %2" PetscInt_FMT " epoch %4" PetscInt_FMT ": L_sim %.4g H %.4g task %.4g pred %.4g cov %.3f succ %.3f/%.3f/%.3f vol %.3g/%.3g tight %.3f floor %.3f acc %" PetscInt_FMT " rej %" PetscInt_FMT " bt %" PetscInt_FMT " recheck %" PetscInt_FMT " (falsified %" PetscInt_FMT ") TAO %s theta acc %" PetscInt_FMT " rej %" PetscInt_FMT " bt %" PetscInt_FMT " moves %" PetscInt_FMT " obj %.5g -> %.5g disp %.3g\n",
                          row.checkpoint, row.epoch, row.Lsim, row.H, row.task, row.pred_error, row.coverage, row.succ_certified, row.succ_minimal, row.succ_empirical, row.vol_E, row.vol_union, row.succ_tight, row.succ_floor, row.accepted, row.rejected, row.backtracked, row.recheck_failures, row.falsified,
                          TaoConvergedReasons[r->tao_reason], r->th_accepted, r->th_rejected, r->th_backtracked, r->th_moves, r->th_obj_before, r->th_obj_after, r->th_disp));
  r->icheck             = j; /* the state the monitor saves is the state after checkpoint j */
  if (r->monitor) PetscCall((*r->monitor)(r, &r->table[r->ntable - 1], r->mctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunSolve(SRRun r)
{
  PetscFunctionBeginUser;
  PetscCall(SRRunSetUp(r));
  if (r->status == SR_RUN_DIVERGED) PetscFunctionReturn(PETSC_SUCCESS); /* in the warm start: recorded, nothing to train */
  r->t0     = MPI_Wtime();
  r->status = SR_RUN_RUNNING;
  r->ntable = 0;
  if (r->record_start && r->icheck == 0) PetscCall(SRRunCheckpoint_Private(r, 0)); /* row 0 (SPEC §9) */
  for (PetscInt j = r->icheck + 1; r->status == SR_RUN_RUNNING && j <= r->ncheck; j++) {
    const PetscInt eend = (j * r->epochs) / r->ncheck; /* checkpoints spread evenly over the epochs */
    for (PetscInt e = r->epoch; e < eend && r->status == SR_RUN_RUNNING; e++) {
      PetscCall(SRRunTrainEpoch_Private(r, e));
      if (r->status == SR_RUN_RUNNING) r->epoch = e + 1;
    }
    if (r->status == SR_RUN_RUNNING) PetscCall(SRRunThetaStep_Private(r));
    if (r->status != SR_RUN_RUNNING) break;
    PetscCall(SRRunCheckpoint_Private(r, j));
    if (r->status != SR_RUN_RUNNING) break;
    r->icheck = j;
    {
      int stop = r->stop ? *r->stop : 0;
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &stop, 1, MPI_INT, MPI_MAX, r->comm));
      if (stop && j < r->ncheck) {
        r->status = SR_RUN_INTERRUPTED;
        PetscCall(PetscSNPrintf(r->reason, sizeof(r->reason), "stop flag raised; stopped after checkpoint %" PetscInt_FMT " of %" PetscInt_FMT, j, r->ncheck));
        break;
      }
    }
  }
  if (r->status == SR_RUN_RUNNING) {
    r->status = SR_RUN_DONE;
    PetscCall(PetscStrncpy(r->reason, "all checkpoints done", sizeof(r->reason)));
  }
  r->t_total += MPI_Wtime() - r->t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunGetStatus(SRRun r, SRRunStatus *status, const char **reason)
{
  PetscFunctionBeginUser;
  if (status) *status = r->status;
  if (reason) *reason = r->reason;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunGetCheckpoints(SRRun r, PetscInt *n, const SRCheckpoint **table)
{
  PetscFunctionBeginUser;
  if (n) *n = r->ntable;
  if (table) *table = r->table;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunGetNumCheckpoints(SRRun r, PetscInt *ncheckpoints)
{
  PetscFunctionBeginUser;
  *ncheckpoints = r->ncheck;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunGetObjects(SRRun r, SRModel *model, SRCells *cells, SRAbstraction *abs)
{
  PetscFunctionBeginUser;
  PetscCheck(r->setup, r->comm, PETSC_ERR_ORDER, "SRRunGetObjects: call SRRunSetUp first");
  if (model) *model = r->model;
  if (cells) *cells = r->cells;
  if (abs) *abs = r->abs;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunGetTaoReason(SRRun r, PetscInt *reason, const char **name)
{
  PetscFunctionBeginUser;
  if (reason) *reason = r->tao_reason;
  if (name) *name = TaoConvergedReasons[r->tao_reason];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunGetTimings(SRRun r, double *total, double *guard)
{
  PetscFunctionBeginUser;
  if (total) *total = r->t_total;
  if (guard) *guard = r->t_guard;
  PetscFunctionReturn(PETSC_SUCCESS);
}


PetscErrorCode SRRunView(SRRun r, PetscViewer viewer)
{
  char label[256];

  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(r->comm, &viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "SRRun: -sys %s -model %s, %" PetscInt_FMT " hidden layers, %" PetscInt_FMT " cells, %" PetscInt_FMT " parameters\n", r->sysname, SRModelTypes[r->mtype], r->nhidden, r->K, r->P));
  snprintf(label, sizeof(label), "beta %g tau %g seed %lld eps %g lambda_eps %g", r->beta, r->par.tau, (long long)r->seed, r->par.eps, r->par.lambda_eps); /* C's %g */
  PetscCall(PetscViewerASCIIPrintf(viewer, "  %s, -loss %s, -guard %s (halvings %" PetscInt_FMT "), -enclosure %s, -target %s\n", label, SRLossTypes[r->loss], SRGuardTypes[r->guard], r->halvings, SREnclosureTypes[r->enclosure], SRTargetTypes[r->target]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  epochs %" PetscInt_FMT " checkpoints %" PetscInt_FMT " batch %" PetscInt_FMT " lr %g samples %" PetscInt_FMT " heldout %" PetscInt_FMT "\n", r->epochs, r->ncheck, r->batch, r->lr, r->nsamples, r->nheld));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  -cells_param %s, -cell_solve %s; theta updates accepted %" PetscInt_FMT " rejected %" PetscInt_FMT " backtracked %" PetscInt_FMT ", moves %" PetscInt_FMT "\n", SRCellsParams[r->cells_param], r->cell_solve ? "on" : "off", r->th_accepted, r->th_rejected, r->th_backtracked, r->th_moves));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  status %s (%s); updates accepted %" PetscInt_FMT " rejected %" PetscInt_FMT " backtracked %" PetscInt_FMT "; last TAO reason %s\n", SRRunStatusNames[r->status], r->reason, r->accepted, r->rejected, r->backtracked, TaoConvergedReasons[r->tao_reason]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunDestroy(SRRun *run)
{
  SRRun r;

  PetscFunctionBeginUser;
  if (!run || !*run) PetscFunctionReturn(PETSC_SUCCESS);
  r = *run;
  PetscCall(TaoDestroy(&r->tao));
  PetscCall(VecDestroy(&r->theta));
  PetscCall(VecDestroy(&r->lb));
  PetscCall(VecDestroy(&r->ub));
  PetscCall(SRRunDestroyVerified_Private(r));
  PetscCall(SRAbstractionDestroy(&r->abs));
  PetscCall(SRCellsDestroy(&r->cand));
  PetscCall(SRCellsDestroy(&r->cells));
  PetscCall(SRRunYardstickDestroy_Private(r));
  PetscCall(SRModelDestroy(&r->model));
  PetscCall(SRSystemDestroy(&r->sys));
  PetscCall(SRAdamDestroy(&r->adam));
  if (r->setup) {
    PetscCall(PetscFree5(r->Xtr, r->Xho, r->Xb, r->Y, r->dY));
    PetscCall(PetscFree6(r->grad, r->delta, r->phi_old, r->theta_old, r->theta_new, r->dtheta));
    PetscCall(PetscFree(r->perm));
    PetscCall(PetscFree5(r->hat, r->theta_acc, r->tr_lb, r->tr_ub, r->theta_g));
    PetscCall(PetscFree(r->table));
  }
  PetscCall(PetscFree(r));
  *run = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
