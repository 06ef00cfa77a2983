/* SRRun: one guarded training run for one (beta, tau, seed) on a communicator (SPEC §8).

   Per checkpoint interval: Adam minibatch steps on phi (task + beta L_sim), then a
   bound-constrained TAO solve on theta (beta L_sim + coverage and volume terms).
   The guard runs on every candidate update: once per Adam step for phi, once per TAO
   solve for theta.  Sample losses and gradients are computed redundantly, in a fixed
   order, on every rank of the run; only the cell work inside SRAbstraction (and the
   independent re-check here) is partitioned, and every verdict is reduced, so the run
   is bit-identical on any number of ranks. */
#include <simreach.h>
#include <simreach/private/adam.h>
#include <petsctao.h>
#include <math.h>
#include <string.h>

const char *const SRGuardTypes[]     = {"reject", "backtrack", "project", "none", "SRGuardType", "SR_GUARD_", NULL};
const char *const SRRunStatusNames[] = {"pending", "running", "done", "diverged", "interrupted", "SRRunStatus", "SR_RUN_", NULL};

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
  PetscInt        halvings, epochs, ncheck, batch, nsamples, nheld, nfalsify;
  PetscInt        pretrain_epochs; /* task-only warm start before the abstraction is built */
  double          margin;          /* -succ_margin of the abstraction (grid spacings) */
  PetscInt        recheck_depth;   /* bisection depth of the independent re-check */
  double          lr, cov_w, vol_w;
  PetscBool       quiet, fromoptions, setup, cells_given;
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
  PetscLogEvent ev_step, ev_guard, ev_tao, ev_check;
};

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
  r->halvings             = 4;
  r->epochs               = 20;
  r->pretrain_epochs      = 0;
  r->margin               = 0.0;
  r->recheck_depth        = 6;
  r->ncheck               = 5;
  r->batch                = 64;
  r->nsamples             = 512;
  r->nheld                = 512;
  r->nfalsify             = 16;
  r->lr                   = 3e-3;
  r->cov_w                = 0.0;
  r->vol_w                = 0.0;
  r->status               = SR_RUN_PENDING;
  PetscCall(SRAbstractionCreate(comm, &r->abs));
  /* theta is solved redundantly on every rank (PETSC_COMM_SELF) so its floating-point
     reductions never depend on the rank count. */
  PetscCall(TaoCreate(PETSC_COMM_SELF, &r->tao));
  PetscCall(TaoSetType(r->tao, TAOBLMVM));
  PetscCall(TaoSetMaximumIterations(r->tao, 5));
  PetscCall(PetscLogEventRegister("SRRunAdamStep", 0, &r->ev_step));
  PetscCall(PetscLogEventRegister("SRRunGuard", 0, &r->ev_guard));
  PetscCall(PetscLogEventRegister("SRRunThetaTAO", 0, &r->ev_tao));
  PetscCall(PetscLogEventRegister("SRRunCheckpoint", 0, &r->ev_check));
  *run = r;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An enum option read as a string so that a bad name is reported with the allowed names. */
static PetscErrorCode SRRunOptionEnum_Private(PetscOptionItems *PetscOptionsObject, MPI_Comm comm, const char opt[], const char help[], const char *const list[], PetscInt *value)
{
  char      buf[64], allowed[256] = "";
  PetscBool set;
  PetscInt  nlist = 0;

  PetscFunctionBeginUser;
  while (list[nlist + 3]) nlist++; /* PETSc enum lists end with the type name, prefix and NULL */
  nlist++;
  for (PetscInt i = 0; i < nlist; i++) {
    if (i) PetscCall(PetscStrlcat(allowed, ", ", sizeof(allowed)));
    PetscCall(PetscStrlcat(allowed, list[i], sizeof(allowed)));
  }
  PetscCall(PetscStrncpy(buf, list[*value], sizeof(buf)));
  PetscCall(PetscOptionsString(opt, help, NULL, buf, buf, sizeof(buf), &set));
  if (set) {
    PetscInt found = -1;
    for (PetscInt i = 0; i < nlist; i++) {
      PetscBool eq;
      PetscCall(PetscStrcasecmp(buf, list[i], &eq));
      if (eq) found = i;
    }
    PetscCheck(found >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "%s %s: unknown value; allowed are %s", opt, buf, allowed);
    *value = found;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunSetFromOptions(SRRun r)
{
  MPI_Comm  comm = r->comm;
  PetscInt  e, nw = SR_MAX_LAYERS, nc = SR_MAX_DIM, widths[SR_MAX_LAYERS], counts[SR_MAX_DIM];
  PetscBool set, cells_set;
  char      pbuf[16];

  PetscFunctionBeginUser;
  PetscCheck(!r->setup, comm, PETSC_ERR_ORDER, "SRRunSetFromOptions must come before SRRunSetUp");
  PetscOptionsBegin(comm, NULL, "simreach guarded training run (SPEC §8)", "SRRun");
  PetscCall(PetscOptionsString("-sys", "system: toy1d, pendulum, dubins (SPEC §2)", NULL, r->sysname, r->sysname, sizeof(r->sysname), NULL));
  e = r->mtype;
  PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-model", "learned map: dynamics, controller (SPEC §3)", SRModelTypes, &e));
  r->mtype = (SRModelType)e;
  for (PetscInt i = 0; i < r->nhidden; i++) widths[i] = r->widths[i];
  nw = SR_MAX_LAYERS;
  PetscCall(PetscOptionsIntArray("-mlp_widths", "hidden layer widths, e.g. 32,32 (SPEC §3)", NULL, widths, &nw, &set));
  if (set) {
    PetscCheck(nw >= 1 && nw <= SR_MAX_LAYERS, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mlp_widths: %" PetscInt_FMT " widths given; allowed are 1 to %d comma-separated positive integers", nw, SR_MAX_LAYERS);
    for (PetscInt i = 0; i < nw; i++) PetscCheck(widths[i] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mlp_widths: width %" PetscInt_FMT " is %" PetscInt_FMT "; widths must be >= 1", i, widths[i]);
    r->nhidden = nw;
    for (PetscInt i = 0; i < nw; i++) r->widths[i] = widths[i];
  }
  for (PetscInt i = 0; i < SR_MAX_DIM; i++) counts[i] = r->counts[i];
  nc = SR_MAX_DIM;
  PetscCall(PetscOptionsIntArray("-cells", "cells per dimension of the initial grid, e.g. 8,8 (default 8 per dimension) (SPEC §4)", NULL, counts, &nc, &cells_set));
  if (cells_set) {
    for (PetscInt i = 0; i < nc; i++) PetscCheck(counts[i] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cells: count %" PetscInt_FMT " is %" PetscInt_FMT "; counts must be >= 1", i, counts[i]);
    PetscCheck(nc >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cells: give one positive count per dimension, e.g. 8,8");
    r->ncounts = nc;
    for (PetscInt i = 0; i < nc; i++) r->counts[i] = counts[i];
  }
  PetscCall(PetscStrncpy(pbuf, r->p == SR_NORM_1 ? "1" : (r->p == SR_NORM_2 ? "2" : "inf"), sizeof(pbuf)));
  PetscCall(PetscOptionsString("-p", "norm of the cell distance: 1, 2, inf (SPEC §4)", NULL, pbuf, pbuf, sizeof(pbuf), &set));
  if (set) {
    PetscBool is1, is2, isinf;
    PetscCall(PetscStrcmp(pbuf, "1", &is1));
    PetscCall(PetscStrcmp(pbuf, "2", &is2));
    PetscCall(PetscStrcasecmp(pbuf, "inf", &isinf));
    PetscCheck(is1 || is2 || isinf, comm, PETSC_ERR_ARG_OUTOFRANGE, "-p %s: unknown norm; allowed are 1, 2, inf", pbuf);
    r->p = is1 ? SR_NORM_1 : (is2 ? SR_NORM_2 : SR_NORM_INF);
  }
  e = r->par.assign;
  PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-assign", "sample-to-cell assignment: hard, gauss (SPEC §4)", SRAssignTypes, &e));
  r->par.assign = (SRAssignType)e;
  PetscCall(PetscOptionsInt("-assign_neighbors", "nearest cells weighted by -assign gauss (SPEC §4)", NULL, r->par.assign_neighbors, &r->par.assign_neighbors, NULL));
  PetscCheck(r->par.assign_neighbors >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-assign_neighbors %" PetscInt_FMT ": must be >= 1", r->par.assign_neighbors);
  e = r->target;
  PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-target", "target successors T(k): empirical, nominal, certified (SPEC §5)", SRTargetTypes, &e));
  r->target = (SRTargetType)e;
  PetscCall(PetscOptionsReal("-target_mass", "share of sampled hits the empirical target keeps, in (0, 1] (SPEC §5)", NULL, r->target_mass, &r->target_mass, NULL));
  PetscCheck(r->target_mass > 0 && r->target_mass <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-target_mass %g: allowed is (0, 1]", r->target_mass);
  PetscCall(PetscOptionsInt("-target_samples", "samples per cell for the empirical target and count (SPEC §5, §6)", NULL, r->target_samples, &r->target_samples, NULL));
  PetscCheck(r->target_samples >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-target_samples %" PetscInt_FMT ": must be >= 1", r->target_samples);
  e = r->enclosure;
  PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-enclosure", "enclosure of f_phi(cell): interval, taylor1, both (SPEC §7)", SREnclosureTypes, &e));
  r->enclosure = (SREnclosureType)e;
  PetscCall(PetscOptionsReal("-beta", "weight of L_sim, >= 0 (SPEC §6)", NULL, r->beta, &r->beta, NULL));
  PetscCheck(r->beta >= 0 && isfinite(r->beta), comm, PETSC_ERR_ARG_OUTOFRANGE, "-beta %g: allowed is a finite value >= 0", r->beta);
  PetscCall(PetscOptionsReal("-tau", "temperature of softmin / softmax, > 0 (SPEC §6)", NULL, r->par.tau, &r->par.tau, NULL));
  PetscCheck(r->par.tau > 0 && isfinite(r->par.tau), comm, PETSC_ERR_ARG_OUTOFRANGE, "-tau %g: allowed is a finite value > 0", r->par.tau);
  PetscCall(PetscOptionsInt("-seed", "seed of every random stream of the run, >= 0", NULL, r->seed, &r->seed, NULL));
  PetscCheck(r->seed >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-seed %" PetscInt_FMT ": allowed is >= 0", r->seed);
  PetscCall(PetscOptionsReal("-eps", "eps of eps-coverage and of the lambda_eps term, >= 0 (SPEC §6)", NULL, r->par.eps, &r->par.eps, NULL));
  PetscCheck(r->par.eps >= 0 && isfinite(r->par.eps), comm, PETSC_ERR_ARG_OUTOFRANGE, "-eps %g: allowed is a finite value >= 0", r->par.eps);
  PetscCall(PetscOptionsReal("-lambda_eps", "weight of softmax [d(x, hat x) - eps]_+ in L_sim, >= 0 (SPEC §6)", NULL, r->par.lambda_eps, &r->par.lambda_eps, NULL));
  PetscCheck(r->par.lambda_eps >= 0 && isfinite(r->par.lambda_eps), comm, PETSC_ERR_ARG_OUTOFRANGE, "-lambda_eps %g: allowed is a finite value >= 0", r->par.lambda_eps);
  PetscCall(PetscOptionsReal("-w_min", "lower bound of the cell half-widths in the TAO solve, > 0 (SPEC §4)", NULL, r->wmin, &r->wmin, NULL));
  PetscCall(PetscOptionsReal("-w_max", "upper bound of the cell half-widths (default: half the largest extent of D)", NULL, r->wmax, &r->wmax, &set));
  PetscCheck(r->wmin > 0 && isfinite(r->wmin), comm, PETSC_ERR_ARG_OUTOFRANGE, "-w_min %g: allowed is a finite value > 0", r->wmin);
  if (set) {
    PetscCheck(isfinite(r->wmax), comm, PETSC_ERR_ARG_OUTOFRANGE, "-w_max %g: allowed is a finite value >= -w_min", r->wmax);
    PetscCheck(r->wmin <= r->wmax, comm, PETSC_ERR_ARG_OUTOFRANGE, "-w_min %g > -w_max %g: the half-width bounds need w_min <= w_max", r->wmin, r->wmax);
  }
  e = r->guard;
  PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-guard", "on a failed containment test: reject, backtrack, project, none (SPEC §8)", SRGuardTypes, &e));
  r->guard = (SRGuardType)e;
  PetscCall(PetscOptionsInt("-guard_halvings", "step halvings of -guard backtrack, >= 0", NULL, r->halvings, &r->halvings, NULL));
  PetscCheck(r->halvings >= 0 && r->halvings <= 60, comm, PETSC_ERR_ARG_OUTOFRANGE, "-guard_halvings %" PetscInt_FMT ": allowed is 0 to 60", r->halvings);
  PetscCall(PetscOptionsInt("-epochs", "training epochs over the samples, >= 0", NULL, r->epochs, &r->epochs, NULL));
  PetscCheck(r->epochs >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-epochs %" PetscInt_FMT ": allowed is >= 0", r->epochs);
  PetscCall(PetscOptionsInt("-pretrain_epochs", "warm start: Adam epochs on the task loss alone from the seeded init, before C(k) is built; the same for every beta of a seed, >= 0", NULL, r->pretrain_epochs, &r->pretrain_epochs, NULL));
  PetscCheck(r->pretrain_epochs >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-pretrain_epochs %" PetscInt_FMT ": allowed is >= 0", r->pretrain_epochs);
  PetscCall(PetscOptionsInt("-checkpoints", "checkpoints spread evenly over the epochs, >= 1", NULL, r->ncheck, &r->ncheck, NULL));
  PetscCheck(r->ncheck >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoints %" PetscInt_FMT ": allowed is >= 1", r->ncheck);
  PetscCall(PetscOptionsInt("-batch", "minibatch size of the Adam steps, >= 1", NULL, r->batch, &r->batch, NULL));
  PetscCheck(r->batch >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-batch %" PetscInt_FMT ": allowed is >= 1", r->batch);
  PetscCall(PetscOptionsReal("-lr", "Adam learning rate, > 0", NULL, r->lr, &r->lr, NULL));
  PetscCheck(r->lr > 0 && isfinite(r->lr), comm, PETSC_ERR_ARG_OUTOFRANGE, "-lr %g: allowed is a finite value > 0", r->lr);
  PetscCall(PetscOptionsInt("-samples", "training samples (stream SR_STREAM_TRAIN), >= 1", NULL, r->nsamples, &r->nsamples, NULL));
  PetscCheck(r->nsamples >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-samples %" PetscInt_FMT ": allowed is >= 1", r->nsamples);
  PetscCall(PetscOptionsInt("-heldout", "held-out samples for H, coverage, prediction error, >= 1", NULL, r->nheld, &r->nheld, NULL));
  PetscCheck(r->nheld >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-heldout %" PetscInt_FMT ": allowed is >= 1", r->nheld);
  PetscCall(PetscOptionsReal("-succ_margin", "slack of C(k): listed and pruned against E_k grown by this many grid spacings, >= 0 (0 = SPEC §5 literal)", NULL, r->margin, &r->margin, NULL));
  PetscCheck(r->margin >= 0 && isfinite(r->margin), comm, PETSC_ERR_ARG_OUTOFRANGE, "-succ_margin %g: allowed is a finite value >= 0 (grid spacings)", r->margin);
  PetscCall(PetscOptionsInt("-recheck_depth", "bisections of a cell the independent re-check may use to prove its containment with the other enclosure, 0 to 30", NULL, r->recheck_depth, &r->recheck_depth, NULL));
  PetscCheck(r->recheck_depth >= 0 && r->recheck_depth <= 30, comm, PETSC_ERR_ARG_OUTOFRANGE, "-recheck_depth %" PetscInt_FMT ": allowed is 0 to 30", r->recheck_depth);
  PetscCall(PetscOptionsInt("-falsify_samples", "sampled points per cell in the independent re-check, >= 0", NULL, r->nfalsify, &r->nfalsify, NULL));
  PetscCheck(r->nfalsify >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-falsify_samples %" PetscInt_FMT ": allowed is >= 0", r->nfalsify);
  PetscCall(PetscOptionsReal("-coverage_weight", "weight of the coverage term mean_i d(x_i, hat x_i) in the theta solve, >= 0", NULL, r->cov_w, &r->cov_w, NULL));
  PetscCheck(r->cov_w >= 0 && isfinite(r->cov_w), comm, PETSC_ERR_ARG_OUTOFRANGE, "-coverage_weight %g: allowed is a finite value >= 0", r->cov_w);
  PetscCall(PetscOptionsReal("-volume_weight", "weight of the volume term sum_k vol(Psi_k) / vol(D) in the theta solve, >= 0", NULL, r->vol_w, &r->vol_w, NULL));
  PetscCheck(r->vol_w >= 0 && isfinite(r->vol_w), comm, PETSC_ERR_ARG_OUTOFRANGE, "-volume_weight %g: allowed is a finite value >= 0", r->vol_w);
  PetscCall(PetscOptionsBool("-quiet", "no progress line per checkpoint", NULL, r->quiet, &r->quiet, NULL));
  PetscOptionsEnd();

  /* the system reads its own constants (-sr_pendulum_g, ...) */
  PetscCall(SRSystemDestroy(&r->sys));
  PetscCall(SRSystemCreate(comm, r->sysname, NULL, &r->sys));
  if (!cells_set && !r->cells_given) {
    r->ncounts = r->sys->n;
    for (PetscInt i = 0; i < SR_MAX_DIM; i++) r->counts[i] = 8;
  }
  if (cells_set) r->cells_given = PETSC_TRUE;
  PetscCheck(r->ncounts == r->sys->n, comm, PETSC_ERR_ARG_SIZ, "-cells: %" PetscInt_FMT " counts given; -sys %s has dimension %" PetscInt_FMT ", so give %" PetscInt_FMT " comma-separated counts", r->ncounts, r->sysname, r->sys->n, r->sys->n);
  PetscCheck(r->mtype == SR_MODEL_DYNAMICS || r->sys->has_controller, comm, PETSC_ERR_ARG_INCOMP, "-model controller: -sys %s has no control input; allowed is -model dynamics", r->sysname);
  if (r->wmax >= 0) PetscCheck(r->wmin <= r->wmax, comm, PETSC_ERR_ARG_OUTOFRANGE, "-w_min %g > -w_max %g: the half-width bounds need w_min <= w_max", r->wmin, r->wmax);
  PetscCall(TaoSetFromOptions(r->tao));
  r->fromoptions = PETSC_TRUE;
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

static PetscBool SRAllFinite_Private(PetscInt n, const double *a)
{
  for (PetscInt i = 0; i < n; i++)
    if (!isfinite(a[i])) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Status SR_RUN_DIVERGED with its reason; every rank computes the same values, so every rank
   of the run reaches this point together. */
static PetscErrorCode SRRunDiverge_Private(SRRun r, const char reason[])
{
  PetscFunctionBeginUser;
  r->status = SR_RUN_DIVERGED;
  PetscCall(PetscStrncpy(r->reason, reason, sizeof(r->reason)));
  if (!r->quiet) PetscCall(PetscPrintf(r->comm, "simreach run diverged: %s\n", r->reason));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* theta = (c, w) of a cells object <-> a flat array (SPEC §4 layout: c then w). */
static void SRRunThetaGet_Private(SRRun r, SRCells cells, double *th)
{
  const PetscInt nK = r->n * r->K;
  for (PetscInt i = 0; i < nK; i++) th[i] = cells->c[i];
  for (PetscInt i = 0; i < nK; i++) th[nK + i] = cells->w[i];
}

static PetscErrorCode SRRunThetaSet_Private(SRRun r, SRCells cells, const double *th)
{
  const PetscInt nK = r->n * r->K;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nK; i++) cells->c[i] = th[i];
  for (PetscInt i = 0; i < nK; i++) cells->w[i] = th[nK + i];
  PetscCall(SRCellsSetFree(cells));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TAO objective on theta (SPEC §8): beta L_sim + coverage_weight mean_i d(x_i, hat x_i)
   + volume_weight sum_k vol(Psi_k) / vol(D), with the model fixed (Y = f_phi(X) precomputed). */
static PetscErrorCode SRRunThetaObjective_Private(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx)
{
  SRRun                  r = (SRRun)ctx;
  const PetscInt         n = r->n, K = r->K, nK = n * K, N = r->nsamples;
  const double          *x;
  double                *g, obj = 0;
  const SRSuccessorList *T;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(SRRunThetaSet_Private(r, r->cand, x));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(VecGetArray(G, &g));
  for (PetscInt i = 0; i < 2 * nK; i++) g[i] = 0;
  if (r->beta > 0) {
    SRLossValues val;
    PetscCall(SRAbstractionGetTargets(r->abs, &T));
    PetscCall(SRLossSim(r->cand, T, &r->par, N, r->Xtr, r->Y, &val, NULL, r->dtheta));
    obj = r->beta * val.Lsim;
    for (PetscInt i = 0; i < 2 * nK; i++) g[i] = r->beta * r->dtheta[i];
  }
  if (r->cov_w > 0) {
    double dc[SR_MAX_DIM], dw[SR_MAX_DIM], s = 0;
    for (PetscInt i = 0; i < N; i++) {
      const double  *xi = r->Xtr + i * n;
      const PetscInt k  = SRCellsAssign(r->cand, xi);
      s += SRCellsDistance(r->cand, xi, k, NULL, dc, dw);
      for (PetscInt d = 0; d < n; d++) {
        g[k * n + d] += r->cov_w * dc[d] / N;
        g[nK + k * n + d] += r->cov_w * dw[d] / N;
      }
    }
    obj += r->cov_w * s / N;
  }
  if (r->vol_w > 0) {
    double volD = 1;
    for (PetscInt d = 0; d < n; d++) volD *= r->cells->dhi[d] - r->cells->dlo[d];
    for (PetscInt k = 0; k < K; k++) {
      const double *w = r->cand->w + k * n;
      double        v = 1;
      for (PetscInt d = 0; d < n; d++) v *= 2 * w[d];
      obj += r->vol_w * v / volD;
      for (PetscInt d = 0; d < n; d++) {
        double vo = 2; /* d vol / d w_d = 2 prod_{e != d} 2 w_e */
        for (PetscInt e = 0; e < n; e++)
          if (e != d) vo *= 2 * w[e];
        g[nK + k * n + d] += r->vol_w * vo / volD;
      }
    }
  }
  PetscCall(VecRestoreArray(G, &g));
  *f = obj;
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

/* Warm start (-pretrain_epochs; README "Training"): plain Adam on the task loss from the
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
  PetscCall(SRModelCreate(r->sys, r->mtype, r->nhidden, r->widths, &r->model));
  PetscCall(SRMLPInitialize(r->model->mlp, (uint64_t)r->seed));
  PetscCall(SRCellsCreateGrid(r->sys, r->counts, &r->cells));
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

  /* theta bounds of SPEC §8: c in D, w in [w_min, w_max] */
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 2 * n * K, &r->theta));
  PetscCall(VecDuplicate(r->theta, &r->lb));
  PetscCall(VecDuplicate(r->theta, &r->ub));
  {
    double *lb, *ub;
    PetscCall(VecGetArray(r->lb, &lb));
    PetscCall(VecGetArray(r->ub, &ub));
    for (PetscInt k = 0; k < K; k++)
      for (PetscInt d = 0; d < n; d++) {
        lb[k * n + d]         = r->sys->dlo[d];
        ub[k * n + d]         = r->sys->dhi[d];
        lb[n * K + k * n + d] = r->wmin;
        ub[n * K + k * n + d] = r->wmax;
      }
    PetscCall(VecRestoreArray(r->lb, &lb));
    PetscCall(VecRestoreArray(r->ub, &ub));
  }
  PetscCall(TaoSetObjectiveAndGradient(r->tao, NULL, SRRunThetaObjective_Private, r));
  PetscCall(TaoSetVariableBounds(r->tao, r->lb, r->ub));
  PetscCall(PetscCalloc1(r->ncheck, &r->table));
  PetscCall(SRRunPretrain_Private(r));
  /* C(k) and T(k) of the (warm-started) model on the initial grid (SPEC §5) */
  if (r->status != SR_RUN_DIVERGED) PetscCall(SRAbstractionBuild(r->abs, r->model, r->cells));
  r->setup = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The containment test of the guard over all cells with the stored C(k) (SPEC §7, §8). */
static PetscErrorCode SRRunGuardCheck_Private(SRRun r, SRCells cells, PetscBool *ok, PetscInt *first)
{
  PetscInt     nfail;
  double       witness[SR_MAX_DIM];
  const double t = MPI_Wtime();

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(r->ev_guard, 0, 0, 0, 0));
  PetscCall(SRAbstractionCheck(r->abs, r->model, cells, r->enclosure, &nfail, first, witness));
  PetscCall(PetscLogEventEnd(r->ev_guard, 0, 0, 0, 0));
  r->t_guard += MPI_Wtime() - t;
  *ok = nfail == 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After an accepted update: prune C(k) (it never grows) and rebuild T(k) (SPEC §5, §8).
   Train-then-abstract (-guard none) keeps its lists until the checkpoint rebuild. */
static PetscErrorCode SRRunAccepted_Private(SRRun r)
{
  const double t = MPI_Wtime();

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(r->ev_guard, 0, 0, 0, 0));
  if (r->guard != SR_GUARD_NONE) PetscCall(SRAbstractionPrune(r->abs, r->model, r->cells));
  PetscCall(SRAbstractionUpdateTargets(r->abs, r->model, r->cells));
  PetscCall(PetscLogEventEnd(r->ev_guard, 0, 0, 0, 0));
  r->t_guard += MPI_Wtime() - t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The guard on a phi candidate phi_old + s delta (SPEC §8), once per Adam step:
   reject drops it, backtrack halves s up to -guard_halvings times; project has no
   feasible set to project phi onto, so it drops the step like reject. */
static PetscErrorCode SRRunGuardPhi_Private(SRRun r, PetscInt epoch, PetscInt step)
{
  double        *phi  = r->model->mlp->params;
  const PetscInt P    = r->P;
  const PetscInt hmax = r->guard == SR_GUARD_BACKTRACK ? r->halvings : 0;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(r->phi_old, phi, P));
  for (PetscInt h = 0; h <= hmax; h++) {
    const double s = ldexp(1.0, (int)-h);
    PetscBool    ok;
    PetscInt     first;

    for (PetscInt i = 0; i < P; i++) phi[i] = r->phi_old[i] + s * r->delta[i];
    if (!SRAllFinite_Private(P, phi)) {
      char msg[256];
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "non-finite network parameters after the Adam step at epoch %" PetscInt_FMT ", step %" PetscInt_FMT " (-lr %g)", epoch, step, r->lr));
      PetscCall(SRRunDiverge_Private(r, msg));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (r->guard == SR_GUARD_NONE) ok = PETSC_TRUE;
    else PetscCall(SRRunGuardCheck_Private(r, r->cells, &ok, &first));
    if (ok) {
      r->accepted++;
      if (h > 0) r->backtracked++;
      PetscCall(SRRunAccepted_Private(r));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(PetscArraycpy(phi, r->phi_old, P));
  r->rejected++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One epoch of Adam minibatch steps on task + beta L_sim (SPEC §6, §8).  The order is a
   Fisher-Yates shuffle driven by SR_STREAM_BATCH at index (epoch N + i), never by rank. */
static PetscErrorCode SRRunTrainEpoch_Private(SRRun r, PetscInt epoch)
{
  const PetscInt         N = r->nsamples, n = r->n, B = r->batch;
  const SRSuccessorList *T;

  PetscFunctionBeginUser;
  SRRunShuffle_Private(r, SR_STREAM_BATCH, epoch);
  for (PetscInt s = 0; s * B < N; s++) {
    const PetscInt nb   = PetscMin(B, N - s * B);
    double         task = 0, lsim = 0;

    PetscCall(PetscLogEventBegin(r->ev_step, 0, 0, 0, 0));
    for (PetscInt b = 0; b < nb; b++)
      for (PetscInt d = 0; d < n; d++) r->Xb[b * n + d] = r->Xtr[r->perm[s * B + b] * n + d];
    PetscCall(PetscArrayzero(r->grad, r->P));
    PetscCall(SRModelTaskLoss(r->model, nb, r->Xb, &task, r->grad));
    if (r->beta > 0) {
      SRLossValues val;
      PetscCall(SRAbstractionGetTargets(r->abs, &T));
      PetscCall(SRModelEvaluate(r->model, nb, r->Xb, r->Y));
      PetscCall(SRLossSim(r->cells, T, &r->par, nb, r->Xb, r->Y, &val, r->dY, NULL));
      for (PetscInt i = 0; i < nb * n; i++) r->dY[i] *= r->beta;
      PetscCall(SRModelVJP(r->model, nb, r->Xb, r->dY, r->grad));
      lsim = val.Lsim;
    }
    PetscCall(PetscLogEventEnd(r->ev_step, 0, 0, 0, 0));
    if (!isfinite(task) || !isfinite(lsim) || !SRAllFinite_Private(r->P, r->grad)) {
      char msg[256];
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "non-finite loss or gradient (task %g, L_sim %g) at epoch %" PetscInt_FMT ", step %" PetscInt_FMT " (-lr %g)", task, lsim, epoch, s, r->lr));
      PetscCall(SRRunDiverge_Private(r, msg));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(SRAdamStep(r->adam, r->grad, r->delta));
    PetscCall(SRRunGuardPhi_Private(r, epoch, s));
    if (r->status == SR_RUN_DIVERGED) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Clamp theta onto its bounds (a convex combination of two feasible points can leave them by rounding). */
static void SRRunThetaClamp_Private(SRRun r, double *th)
{
  const PetscInt n = r->n, K = r->K;
  for (PetscInt k = 0; k < K; k++)
    for (PetscInt d = 0; d < n; d++) {
      th[k * n + d]         = PetscMin(PetscMax(th[k * n + d], r->sys->dlo[d]), r->sys->dhi[d]);
      th[n * K + k * n + d] = PetscMin(PetscMax(th[n * K + k * n + d], r->wmin), r->wmax);
    }
}

static PetscErrorCode SRRunAcceptTheta_Private(SRRun r)
{
  PetscFunctionBeginUser;
  PetscCall(SRCellsCopy(r->cand, r->cells));
  PetscCall(SRCellsSetFree(r->cells));
  PetscCall(SRRunAccepted_Private(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The theta update of one checkpoint interval: a bound-constrained TAO solve (SPEC §8),
   then the guard on the whole move. */
static PetscErrorCode SRRunThetaStep_Private(SRRun r)
{
  const PetscInt     n = r->n, K = r->K, nt = 2 * n * K;
  TaoConvergedReason reason;
  double            *th;

  PetscFunctionBeginUser;
  if (r->beta == 0 && r->cov_w == 0 && r->vol_w == 0) PetscFunctionReturn(PETSC_SUCCESS); /* objective identically 0 */
  PetscCall(PetscLogEventBegin(r->ev_tao, 0, 0, 0, 0));
  PetscCall(SRModelEvaluate(r->model, r->nsamples, r->Xtr, r->Y));
  PetscCall(VecGetArray(r->theta, &th));
  SRRunThetaGet_Private(r, r->cells, th);
  PetscCall(PetscArraycpy(r->theta_old, th, nt));
  PetscCall(VecRestoreArray(r->theta, &th));
  PetscCall(TaoSetSolution(r->tao, r->theta));
  PetscCall(TaoSolve(r->tao));
  PetscCall(TaoGetConvergedReason(r->tao, &reason));
  r->tao_reason = (PetscInt)reason;
  PetscCall(VecGetArray(r->theta, &th));
  PetscCall(PetscArraycpy(r->theta_new, th, nt));
  PetscCall(VecRestoreArray(r->theta, &th));
  PetscCall(PetscLogEventEnd(r->ev_tao, 0, 0, 0, 0));
  if (reason == TAO_DIVERGED_NAN || !SRAllFinite_Private(nt, r->theta_new)) {
    char msg[256];
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "non-finite cell parameters from the TAO theta solve at epoch %" PetscInt_FMT " (TAO reason %s)", r->epoch, TaoConvergedReasons[reason]));
    PetscCall(SRRunDiverge_Private(r, msg));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!memcmp(r->theta_new, r->theta_old, (size_t)nt * sizeof(double))) PetscFunctionReturn(PETSC_SUCCESS);

  if (r->guard == SR_GUARD_NONE) {
    PetscCall(SRRunThetaSet_Private(r, r->cand, r->theta_new));
    r->accepted++;
    PetscCall(SRRunAcceptTheta_Private(r));
  } else if (r->guard == SR_GUARD_REJECT || r->guard == SR_GUARD_BACKTRACK) {
    const PetscInt hmax = r->guard == SR_GUARD_BACKTRACK ? r->halvings : 0;
    double        *cand = r->dtheta; /* free as scratch outside the objective */
    for (PetscInt h = 0; h <= hmax; h++) {
      PetscBool ok;
      PetscInt  first;
      if (h == 0) PetscCall(PetscArraycpy(cand, r->theta_new, nt));
      else {
        const double s = ldexp(1.0, (int)-h);
        for (PetscInt i = 0; i < nt; i++) cand[i] = r->theta_old[i] + s * (r->theta_new[i] - r->theta_old[i]);
        SRRunThetaClamp_Private(r, cand);
      }
      PetscCall(SRRunThetaSet_Private(r, r->cand, cand));
      PetscCall(SRRunGuardCheck_Private(r, r->cand, &ok, &first));
      if (ok) {
        r->accepted++;
        if (h > 0) r->backtracked++;
        PetscCall(SRRunAcceptTheta_Private(r));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
    r->rejected++;
  } else {
    /* project: put failing cells back to their last feasible (c, w) until the test passes;
       a cell that fails although already restored fails because of its successors, so they
       are restored too.  At worst everything is restored, which is the rejection. */
    PetscBool *restored;
    PetscInt   nrestored = 0;
    double    *cand      = r->dtheta;
    const SRSuccessorList *C;

    PetscCall(PetscCalloc1(K, &restored));
    PetscCall(PetscArraycpy(cand, r->theta_new, nt));
    while (nrestored < K) {
      PetscBool ok;
      PetscInt  first, before = nrestored;
      PetscCall(SRRunThetaSet_Private(r, r->cand, cand));
      PetscCall(SRRunGuardCheck_Private(r, r->cand, &ok, &first));
      if (ok) break;
      PetscCall(SRAbstractionGetCertified(r->abs, &C));
      if (!restored[first]) {
        restored[first] = PETSC_TRUE;
        nrestored++;
      } else {
        for (PetscInt q = C->ptr[first]; q < C->ptr[first + 1]; q++) {
          const PetscInt j = C->idx[q];
          if (j < K && !restored[j]) {
            restored[j] = PETSC_TRUE;
            nrestored++;
          }
        }
      }
      if (nrestored == before) {
        for (PetscInt k = 0; k < K; k++) restored[k] = PETSC_TRUE;
        nrestored = K;
      }
      for (PetscInt k = 0; k < K; k++)
        if (restored[k])
          for (PetscInt d = 0; d < n; d++) {
            cand[k * n + d]         = r->theta_old[k * n + d];
            cand[n * K + k * n + d] = r->theta_old[n * K + k * n + d];
          }
    }
    PetscCall(PetscFree(restored));
    if (nrestored < K) {
      r->accepted++;
      if (nrestored > 0) r->backtracked++;
      PetscCall(SRRunAcceptTheta_Private(r));
    } else r->rejected++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Containment of f_phi(box) in the union of C(k), proved with enclosure type `other` on the two
   halves of the box (bisected along its widest side), each half that is too loose bisected in
   turn, depth levels at most.  Called once the whole box has failed.  Sound: the halves' closed
   boxes cover the box, and each half's enclosure contains its image.  A nonfinite enclosure
   never proves anything. */
static PetscErrorCode SRRunRecheckHalves_Private(SRRun r, SREnclosureType other, const double *lo, const double *hi, PetscInt nl, const PetscInt *list, PetscInt depth, PetscBool *ok)
{
  const PetscInt n = r->n;
  PetscInt       split = 0;
  double         mid;

  PetscFunctionBeginUser;
  *ok = PETSC_FALSE;
  if (depth == 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 1; d < n; d++)
    if (hi[d] - lo[d] > hi[split] - lo[split]) split = d;
  mid = lo[split] + 0.5 * (hi[split] - lo[split]); /* any value in (lo, hi) keeps the cover */
  if (!(mid > lo[split] && mid < hi[split])) PetscFunctionReturn(PETSC_SUCCESS);
  for (int side = 0; side < 2; side++) {
    double       slo[SR_MAX_DIM], shi[SR_MAX_DIM], elo[SR_MAX_DIM], ehi[SR_MAX_DIM];
    SRCellStatus cs = SR_CELL_OK;
    PetscBool    half_ok;

    for (PetscInt d = 0; d < n; d++) {
      slo[d] = lo[d];
      shi[d] = hi[d];
    }
    if (side == 0) shi[split] = mid;
    else slo[split] = mid;
    if (other == SR_ENCLOSURE_TAYLOR1) PetscCall(SRModelEncloseTaylor(r->model, slo, shi, elo, ehi));
    else PetscCall(SRModelEncloseInterval(r->model, slo, shi, elo, ehi));
    for (PetscInt d = 0; d < n; d++)
      if (!(isfinite(elo[d]) && isfinite(ehi[d]))) cs = SR_CELL_NONFINITE;
    if (cs == SR_CELL_OK) PetscCall(SRContainmentTest(r->cells, nl, list, elo, ehi, &cs, NULL));
    if (cs == SR_CELL_NOT_CONTAINED) PetscCall(SRRunRecheckHalves_Private(r, other, slo, shi, nl, list, depth - 1, &half_ok));
    else half_ok = cs == SR_CELL_OK ? PETSC_TRUE : PETSC_FALSE;
    if (!half_ok) PetscFunctionReturn(PETSC_SUCCESS);
  }
  *ok = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The independent re-check of SPEC §8: containment redone with the other enclosure method
   (interval <-> taylor1, both -> interval), on the cell's outward box or, within
   -recheck_depth bisections, on sub-boxes that cover it, plus sampled falsification (points
   of SR_STREAM_FALSIFY inside Psi_k whose image must lie in a box of C(k) or, if the sink is
   listed, outside D).  Cells are split as in SRAbstraction; the flags are reduced. */
static PetscErrorCode SRRunRecheck_Private(SRRun r, PetscInt *nrecheck, PetscInt *nfalsified)
{
  const PetscInt         n = r->n, K = r->K, m = r->nfalsify;
  const SREnclosureType  other = r->enclosure == SR_ENCLOSURE_INTERVAL ? SR_ENCLOSURE_TAYLOR1 : SR_ENCLOSURE_INTERVAL;
  const SRSuccessorList *C;
  PetscInt               ks, ke, *flags;
  double                *E;
  SRCellStatus          *st;

  PetscFunctionBeginUser;
  PetscCall(SRAbstractionGetOwnership(r->abs, K, &ks, &ke));
  PetscCall(SRAbstractionGetCertified(r->abs, &C));
  PetscCall(PetscCalloc1(2 * K, &flags));
  PetscCall(PetscMalloc2(PetscMax(ke - ks, 1) * 2 * n, &E, PetscMax(ke - ks, 1), &st));
  if (ke > ks) PetscCall(SREnclosureCompute(r->model, other, r->cells, ks, ke, E, st));
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt  nl = C->ptr[k + 1] - C->ptr[k];
    const PetscInt *list = C->idx + C->ptr[k];
    double          witness[SR_MAX_DIM], ilo[SR_MAX_DIM], ihi[SR_MAX_DIM];
    SRCellStatus    cs = st[k - ks];

    if (cs == SR_CELL_OK) PetscCall(SRContainmentTest(r->cells, nl, list, E + (k - ks) * 2 * n, E + (k - ks) * 2 * n + n, &cs, witness));
    if (cs == SR_CELL_NOT_CONTAINED && r->recheck_depth > 0) {
      double    blo[SR_MAX_DIM], bhi[SR_MAX_DIM];
      PetscBool ok;
      SRCellsBoxOuter(r->cells, k, blo, bhi);
      PetscCall(SRRunRecheckHalves_Private(r, other, blo, bhi, nl, list, r->recheck_depth, &ok));
      if (ok) cs = SR_CELL_OK;
    }
    if (cs != SR_CELL_OK) flags[k] = 1;
    if (m == 0) continue;
    SRCellsBoxInner(r->cells, k, ilo, ihi);
    for (PetscInt s = 0; s < m; s++)
      for (PetscInt d = 0; d < n; d++) r->Xb[s * n + d] = SRRandomRange((uint64_t)r->seed, SR_STREAM_FALSIFY, (uint64_t)((k * m + s) * n + d), ilo[d], PetscMax(ilo[d], ihi[d]));
    PetscCall(SRModelEvaluate(r->model, m, r->Xb, r->Y));
    for (PetscInt s = 0; s < m; s++) {
      const double *y       = r->Y + s * n;
      PetscBool     covered = PETSC_FALSE;
      for (PetscInt q = 0; q < nl && !covered; q++) {
        const PetscInt j = list[q];
        PetscBool      in = PETSC_TRUE;
        if (j == K) { /* sink: R^n \ D */
          in = PETSC_FALSE;
          for (PetscInt d = 0; d < n; d++)
            if (y[d] < r->cells->dlo[d] || y[d] > r->cells->dhi[d]) in = PETSC_TRUE;
        } else {
          double lo[SR_MAX_DIM], hi[SR_MAX_DIM];
          SRCellsBoxOuter(r->cells, j, lo, hi);
          for (PetscInt d = 0; d < n; d++)
            if (!(y[d] >= lo[d] && y[d] <= hi[d])) in = PETSC_FALSE;
        }
        covered = in;
      }
      if (!covered) flags[K + k] = 1;
    }
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, flags, (PetscMPIInt)(2 * K), MPIU_INT, MPI_MAX, r->comm));
  *nrecheck   = 0;
  *nfalsified = 0;
  for (PetscInt k = 0; k < K; k++) {
    if (flags[k] || flags[K + k]) (*nrecheck)++;
    if (flags[K + k]) (*nfalsified)++;
  }
  PetscCall(PetscFree2(E, st));
  PetscCall(PetscFree(flags));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One row of the checkpoint table (SPEC §6, §8). */
static PetscErrorCode SRRunCheckpoint_Private(SRRun r, PetscInt j)
{
  SRCheckpoint           row;
  SRLossValues           val, hv;
  SRAbstractionMetrics   met;
  const SRSuccessorList *T;

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(r->ev_check, 0, 0, 0, 0));
  PetscCall(PetscMemzero(&row, sizeof(row)));
  row.checkpoint = j;
  row.epoch      = r->epoch;
  /* train-then-abstract: the lists of the last checkpoint are re-checked as they stand (their
     failures are the pipeline's honest failure count), then rebuilt from E_k (SPEC §8). */
  PetscCall(SRRunRecheck_Private(r, &row.recheck_failures, &row.falsified));
  if (r->guard == SR_GUARD_NONE) PetscCall(SRAbstractionBuild(r->abs, r->model, r->cells));
  PetscCall(SRAbstractionGetTargets(r->abs, &T));
  PetscCall(SRModelEvaluate(r->model, r->nsamples, r->Xtr, r->Y));
  PetscCall(SRLossSim(r->cells, T, &r->par, r->nsamples, r->Xtr, r->Y, &val, NULL, NULL));
  PetscCall(SRModelTaskLoss(r->model, r->nsamples, r->Xtr, &row.task, NULL));
  PetscCall(SRModelEvaluate(r->model, r->nheld, r->Xho, r->Y));
  PetscCall(SRLossHard(r->cells, T, &r->par, r->nheld, r->Xho, r->Y, &hv));
  PetscCall(SRModelTaskLoss(r->model, r->nheld, r->Xho, &row.pred_error, NULL));
  PetscCall(SRAbstractionGetMetrics(r->abs, r->model, r->cells, &met));
  row.Lsim           = val.Lsim;
  row.gap_min        = val.gap_min;
  row.taulogn        = val.taulogn;
  row.gap_max        = val.gap_max;
  row.taulogN        = val.taulogN;
  row.H              = hv.H;
  row.coverage       = hv.coverage;
  row.succ_certified = met.succ_certified;
  row.succ_minimal   = met.succ_minimal;
  row.succ_empirical = met.succ_empirical;
  row.vol_E          = met.vol_E;
  row.vol_union      = met.vol_union;
  row.accepted       = r->accepted;
  row.rejected       = r->rejected;
  row.backtracked    = r->backtracked;
  row.wall           = MPI_Wtime() - r->t0;
  PetscCall(PetscLogEventEnd(r->ev_check, 0, 0, 0, 0));
  r->table[r->ntable++] = row;
  if (!r->quiet)
    PetscCall(PetscPrintf(r->comm,
                          "checkpoint %2" PetscInt_FMT " epoch %4" PetscInt_FMT ": L_sim %.4g H %.4g task %.4g pred %.4g cov %.3f succ %.3f/%.3f/%.3f vol %.3g/%.3g acc %" PetscInt_FMT " rej %" PetscInt_FMT " bt %" PetscInt_FMT " recheck %" PetscInt_FMT " (falsified %" PetscInt_FMT ") TAO %s\n",
                          row.checkpoint, row.epoch, row.Lsim, row.H, row.task, row.pred_error, row.coverage, row.succ_certified, row.succ_minimal, row.succ_empirical, row.vol_E, row.vol_union, row.accepted, row.rejected, row.backtracked, row.recheck_failures, row.falsified,
                          TaoConvergedReasons[r->tao_reason]));
  r->icheck             = j; /* the state the monitor saves is the state after checkpoint j */
  if (r->monitor) PetscCall((*r->monitor)(r, &r->table[r->ntable - 1], r->mctx));
  if (!isfinite(row.Lsim) || !isfinite(row.task) || !isfinite(row.H)) {
    char msg[256];
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "non-finite checkpoint values (L_sim %g, task %g, H %g) at checkpoint %" PetscInt_FMT, row.Lsim, row.task, row.H, j));
    PetscCall(SRRunDiverge_Private(r, msg));
  }
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
  for (PetscInt j = r->icheck + 1; j <= r->ncheck; j++) {
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

/* State layout.  doubles: phi, Adam m, Adam v (P each), theta (2 n K).
   ints: checkpoint, epoch, Adam t, grid flag, accepted, rejected, backtracked, TAO reason,
   status, then C and T as ptr (K + 1) and idx at capacity K (K + 1), padded with -1. */
#define SR_RUN_NHEAD 9

PetscErrorCode SRRunGetStateSizes(SRRun r, PetscInt *ndouble, PetscInt *nint)
{
  PetscFunctionBeginUser;
  PetscCall(SRRunSetUp(r));
  if (ndouble) *ndouble = 3 * r->P + 2 * r->n * r->K;
  if (nint) *nint = SR_RUN_NHEAD + 2 * ((r->K + 1) + r->K * (r->K + 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void SRRunListPack_Private(PetscInt K, const SRSuccessorList *L, PetscInt *out)
{
  const PetscInt cap = K * (K + 1);
  for (PetscInt k = 0; k <= K; k++) out[k] = L->ptr[k];
  for (PetscInt q = 0; q < cap; q++) out[K + 1 + q] = q < L->ptr[K] ? L->idx[q] : -1;
}

PetscErrorCode SRRunGetState(SRRun r, double *ds, PetscInt *is)
{
  const PetscInt         P = r->P, nt = 2 * r->n * r->K, K = r->K;
  const SRSuccessorList *C, *T;

  PetscFunctionBeginUser;
  PetscCall(SRRunSetUp(r));
  PetscCall(PetscArraycpy(ds, r->model->mlp->params, P));
  PetscCall(PetscArraycpy(ds + P, r->adam->m, P));
  PetscCall(PetscArraycpy(ds + 2 * P, r->adam->v, P));
  SRRunThetaGet_Private(r, r->cells, ds + 3 * P);
  (void)nt;
  is[0] = r->icheck;
  is[1] = r->epoch;
  is[2] = r->adam->t;
  is[3] = r->cells->grid_aligned ? 1 : 0;
  is[4] = r->accepted;
  is[5] = r->rejected;
  is[6] = r->backtracked;
  is[7] = r->tao_reason;
  is[8] = (PetscInt)r->status;
  PetscCall(SRAbstractionGetCertified(r->abs, &C));
  PetscCall(SRAbstractionGetTargets(r->abs, &T));
  SRRunListPack_Private(K, C, is + SR_RUN_NHEAD);
  SRRunListPack_Private(K, T, is + SR_RUN_NHEAD + (K + 1) + K * (K + 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRRunListUnpack_Private(MPI_Comm comm, PetscInt K, const PetscInt *in, SRSuccessorList *L)
{
  const PetscInt cap = K * (K + 1), nnz = in[K];

  PetscFunctionBeginUser;
  PetscCheck(in[0] == 0 && nnz >= 0 && nnz <= cap, comm, PETSC_ERR_ARG_CORRUPT, "SRRunSetState: successor list with %" PetscInt_FMT " entries; allowed are 0 to %" PetscInt_FMT, nnz, cap);
  for (PetscInt k = 0; k < K; k++) PetscCheck(in[k + 1] >= in[k], comm, PETSC_ERR_ARG_CORRUPT, "SRRunSetState: successor list pointers decrease at cell %" PetscInt_FMT, k);
  PetscCall(SRSuccessorListCreate(K, nnz, L));
  for (PetscInt k = 0; k <= K; k++) L->ptr[k] = in[k];
  for (PetscInt q = 0; q < nnz; q++) {
    PetscCheck(in[K + 1 + q] >= 0 && in[K + 1 + q] <= K, comm, PETSC_ERR_ARG_CORRUPT, "SRRunSetState: successor %" PetscInt_FMT " outside 0..%" PetscInt_FMT, in[K + 1 + q], K);
    L->idx[q] = in[K + 1 + q];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunSetState(SRRun r, const double *ds, const PetscInt *is)
{
  const PetscInt  P = r->P, K = r->K;
  SRSuccessorList C, T;

  PetscFunctionBeginUser;
  PetscCall(SRRunSetUp(r));
  PetscCheck(is[0] >= 0 && is[0] <= r->ncheck, r->comm, PETSC_ERR_ARG_CORRUPT, "SRRunSetState: checkpoint %" PetscInt_FMT " outside 0..%" PetscInt_FMT " (-checkpoints)", is[0], r->ncheck);
  PetscCheck(is[1] >= 0 && is[1] <= r->epochs, r->comm, PETSC_ERR_ARG_CORRUPT, "SRRunSetState: epoch %" PetscInt_FMT " outside 0..%" PetscInt_FMT " (-epochs)", is[1], r->epochs);
  PetscCall(PetscArraycpy(r->model->mlp->params, ds, P));
  PetscCall(PetscArraycpy(r->adam->m, ds + P, P));
  PetscCall(PetscArraycpy(r->adam->v, ds + 2 * P, P));
  if (is[3]) {
    /* still the initial grid: theta is the grid's own (bit-identical by construction) */
    SRCells grid;
    PetscCall(SRCellsCreateGrid(r->sys, r->counts, &grid));
    grid->p    = r->p;
    grid->wmin = r->wmin;
    grid->wmax = r->wmax;
    PetscCall(SRCellsCopy(grid, r->cells));
    PetscCall(SRCellsDestroy(&grid));
  } else PetscCall(SRRunThetaSet_Private(r, r->cells, ds + 3 * P));
  r->icheck      = is[0];
  r->epoch       = is[1];
  r->adam->t     = is[2];
  r->accepted    = is[4];
  r->rejected    = is[5];
  r->backtracked = is[6];
  r->tao_reason  = is[7];
  r->status      = (SRRunStatus)is[8] == SR_RUN_DIVERGED ? SR_RUN_DIVERGED : SR_RUN_PENDING;
  PetscCall(SRRunListUnpack_Private(r->comm, K, is + SR_RUN_NHEAD, &C));
  PetscCall(SRRunListUnpack_Private(r->comm, K, is + SR_RUN_NHEAD + (K + 1) + K * (K + 1), &T));
  PetscCall(SRAbstractionSetLists(r->abs, &C, &T));
  PetscCall(SRSuccessorListDestroy(&C));
  PetscCall(SRSuccessorListDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunView(SRRun r, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(r->comm, &viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "SRRun: -sys %s -model %s, %" PetscInt_FMT " hidden layers, %" PetscInt_FMT " cells, %" PetscInt_FMT " parameters\n", r->sysname, SRModelTypes[r->mtype], r->nhidden, r->K, r->P));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  beta %g tau %g seed %" PetscInt_FMT " eps %g lambda_eps %g, -guard %s (halvings %" PetscInt_FMT "), -enclosure %s, -target %s\n", r->beta, r->par.tau, r->seed, r->par.eps, r->par.lambda_eps, SRGuardTypes[r->guard], r->halvings, SREnclosureTypes[r->enclosure], SRTargetTypes[r->target]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  epochs %" PetscInt_FMT " checkpoints %" PetscInt_FMT " batch %" PetscInt_FMT " lr %g samples %" PetscInt_FMT " heldout %" PetscInt_FMT "\n", r->epochs, r->ncheck, r->batch, r->lr, r->nsamples, r->nheld));
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
  PetscCall(SRAbstractionDestroy(&r->abs));
  PetscCall(SRCellsDestroy(&r->cand));
  PetscCall(SRCellsDestroy(&r->cells));
  PetscCall(SRModelDestroy(&r->model));
  PetscCall(SRSystemDestroy(&r->sys));
  PetscCall(SRAdamDestroy(&r->adam));
  if (r->setup) {
    PetscCall(PetscFree5(r->Xtr, r->Xho, r->Xb, r->Y, r->dY));
    PetscCall(PetscFree6(r->grad, r->delta, r->phi_old, r->theta_old, r->theta_new, r->dtheta));
    PetscCall(PetscFree(r->perm));
    PetscCall(PetscFree(r->table));
  }
  PetscCall(PetscFree(r));
  *run = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
