/* SRRun: one guarded training run for one (beta, tau, seed) on a communicator (SPEC §8).

   Per checkpoint interval: Adam minibatch steps on phi (task + beta L, -loss), then a
   bound-constrained TAO solve on theta (beta L_sim + coverage and volume terms).
   The guard runs on every candidate update: once per Adam step for phi, once per TAO
   solve for theta.  Sample losses and gradients are computed redundantly, in a fixed
   order, on every rank of the run; only the cell work inside SRAbstraction (and the
   independent re-check here) is partitioned, and every verdict is reduced, so the run
   is bit-identical on any number of ranks.

   This file holds the set-up and the loop; the guard is in guard.c, the TAO cell solve in
   cellsolve.c, the checkpoint re-check in recheck.c, the resume state in runstate.c, and
   the state they share in include/simreach/private/run.h. */
#include <simreach/private/run.h>
#include <stdio.h>
#include <simreach/closedloop.h>
#include <math.h>
#include <string.h>

const char *const SRGuardTypes[]     = {"reject", "backtrack", "project", "none", "SRGuardType", "SR_GUARD_", NULL};
const char *const SRRelistTypes[]    = {"never", "checkpoint", "SRRelistType", "SR_RELIST_", NULL};
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
  {
    const char *const upd[] = {"step", "checkpoint", "never", "SRTargetUpdate", "SR_TARGET_UPDATE_", NULL};
    e = r->target_update;
    PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-target_update", "when T(k) is re-chosen: after every accepted step, at checkpoints only, or never (the warm-started network's targets, the seed's fixed successor topology; SPEC §5, §9)", upd, &e));
    r->target_update = e;
  }
  PetscCall(PetscOptionsReal("-target_mass", "share of sampled hits the empirical target keeps, in (0, 1] (SPEC §5)", NULL, r->target_mass, &r->target_mass, NULL));
  PetscCheck(r->target_mass > 0 && r->target_mass <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-target_mass %g: allowed is (0, 1]", r->target_mass);
  PetscCall(PetscOptionsInt("-target_samples", "samples per cell for the empirical target and count (SPEC §5, §6)", NULL, r->target_samples, &r->target_samples, NULL));
  PetscCheck(r->target_samples >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-target_samples %" PetscInt_FMT ": must be >= 1", r->target_samples);
  e = r->enclosure;
  PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-enclosure", "enclosure of f_phi(cell): interval, taylor1, both (SPEC §7)", SREnclosureTypes, &e));
  r->enclosure = (SREnclosureType)e;
  e = r->loss;
  PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-loss", "what beta weights: sim (L_sim), encl (L_encl, the enclosure excess), sim+encl (SPEC §6)", SRLossTypes, &e));
  r->loss = (SRLossType)e;
  PetscCall(PetscOptionsReal("-cells_width", "half-width of the initial cells as a fraction of half the grid spacing, in (0, 1]; < 1 gives free boxes with gaps that do not tile D (SPEC §9 published-check setting)", NULL, r->cells_width, &r->cells_width, NULL));
  PetscCheck(r->cells_width > 0 && r->cells_width <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cells_width %g: allowed is 0 < f <= 1", r->cells_width);
  PetscCall(PetscOptionsInt("-tight_bisect", "sub-box levels of the tightest enclosure behind |M_tight| and vol(E_tight): 2^l pieces per dimension, 0..6 (SPEC §5)", NULL, r->tight_bisect, &r->tight_bisect, NULL));
  PetscCheck(r->tight_bisect >= 0 && r->tight_bisect <= 6, comm, PETSC_ERR_ARG_OUTOFRANGE, "-tight_bisect %" PetscInt_FMT ": allowed is 0..6", r->tight_bisect);
  {
    /* the closed-loop answer (SPEC §9, §12): the verification grid of the final checkpoint */
    PetscInt  sc[SR_MAX_DIM] = {0, 0, 0}, snc = SR_MAX_DIM;
    PetscBool sset;
    PetscCall(PetscOptionsIntArray("-safe_cells", "grid of the closed-loop answer at the final checkpoint: cells per dimension, finer than -cells (default 400 / 200,200 / 40,20,20 by dimension; 0 = off) (SPEC §9, §12)", NULL, sc, &snc, &sset));
    if (sset) {
      PetscCheck(snc >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-safe_cells: give one positive count per dimension, or 0 (off)");
      if (snc == 1 && sc[0] == 0) r->safe_nc = -1;
      else {
        for (PetscInt i = 0; i < snc; i++) PetscCheck(sc[i] >= 1 && sc[i] <= 100000, comm, PETSC_ERR_ARG_OUTOFRANGE, "-safe_cells: count %" PetscInt_FMT " is %" PetscInt_FMT "; allowed are 1 to 100000 per dimension, or 0 alone (off)", i, sc[i]);
        r->safe_nc = snc;
        for (PetscInt i = 0; i < snc; i++) r->safe_counts[i] = sc[i];
      }
    }
    e = r->safe_enclosure;
    PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-safe_enclosure", "enclosure of the -safe_cells verification: interval, taylor1, both (SPEC §7, §10)", SREnclosureTypes, &e));
    r->safe_enclosure = (SREnclosureType)e;
    PetscCall(PetscOptionsInt("-safe_bisect", "bisection depth of the -safe_cells verification, 0..20 (SPEC §10)", NULL, r->safe_bisect, &r->safe_bisect, NULL));
    PetscCheck(r->safe_bisect >= 0 && r->safe_bisect <= 20, comm, PETSC_ERR_ARG_OUTOFRANGE, "-safe_bisect %" PetscInt_FMT ": allowed is 0..20", r->safe_bisect);
    PetscCall(PetscOptionsInt("-safe_every", "the closed-loop answer also at every m-th checkpoint (0, m, 2m, ...; the final one always), 0 = final only; each costs one -safe_cells verification (SPEC §9)", NULL, r->safe_every, &r->safe_every, NULL));
    PetscCheck(r->safe_every >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-safe_every %" PetscInt_FMT ": allowed is 0 (final checkpoint only) or m >= 1 (every m-th checkpoint and the final one)", r->safe_every);
  }
  PetscCall(PetscOptionsInt("-floor_points", "sample points per dimension (corners included) of the floor |F| (SPEC §5), 2..64", NULL, r->floor_points, &r->floor_points, NULL));
  PetscCheck(r->floor_points >= 2 && r->floor_points <= 64, comm, PETSC_ERR_ARG_OUTOFRANGE, "-floor_points %" PetscInt_FMT ": allowed is 2..64", r->floor_points);
  PetscCall(PetscOptionsReal("-beta", "weight of the loss L of -loss, >= 0 (SPEC §6)", NULL, r->beta, &r->beta, NULL));
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
  e = r->relist;
  PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-relist", "under a guard, C(k) re-listed from the current network at every checkpoint (checkpoint) or only pruned (never) (SPEC §8)", SRRelistTypes, &e));
  r->relist = e;
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
  PetscCall(PetscOptionsInt("-recheck_depth", "bisection levels per cell the re-check may use to prove containment (only failing sub-boxes are split), 0 to 200", NULL, r->recheck_depth, &r->recheck_depth, NULL));
  PetscCheck(r->recheck_depth >= 0 && r->recheck_depth <= 200, comm, PETSC_ERR_ARG_OUTOFRANGE, "-recheck_depth %" PetscInt_FMT ": allowed is 0 to 200", r->recheck_depth);
  PetscCall(PetscOptionsInt("-recheck_boxes", "enclosures per cell the re-check may compute, >= 1", NULL, r->recheck_boxes, &r->recheck_boxes, NULL));
  PetscCheck(r->recheck_boxes >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-recheck_boxes %" PetscInt_FMT ": allowed is >= 1", r->recheck_boxes);
  PetscCall(PetscOptionsInt("-attack_steps", "sign-gradient steps per start of the re-check's witness search on a cell it could not prove, >= 0", NULL, r->attack_steps, &r->attack_steps, NULL));
  PetscCheck(r->attack_steps >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-attack_steps %" PetscInt_FMT ": allowed is >= 0", r->attack_steps);
  PetscCall(PetscOptionsInt("-falsify_samples", "random witness candidates per cell in the re-check (besides its centre and corners), >= 0", NULL, r->nfalsify, &r->nfalsify, NULL));
  PetscCheck(r->nfalsify >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-falsify_samples %" PetscInt_FMT ": allowed is >= 0", r->nfalsify);
  PetscCall(PetscOptionsReal("-coverage_weight", "weight of the coverage term mean_i d(x_i, hat x_i) in the theta solve, >= 0", NULL, r->cov_w, &r->cov_w, NULL));
  PetscCheck(r->cov_w >= 0 && isfinite(r->cov_w), comm, PETSC_ERR_ARG_OUTOFRANGE, "-coverage_weight %g: allowed is a finite value >= 0", r->cov_w);
  PetscCall(PetscOptionsReal("-volume_weight", "weight of the volume term sum_k vol(Psi_k) / vol(D) in the theta solve, >= 0", NULL, r->vol_w, &r->vol_w, NULL));
  PetscCheck(r->vol_w >= 0 && isfinite(r->vol_w), comm, PETSC_ERR_ARG_OUTOFRANGE, "-volume_weight %g: allowed is a finite value >= 0", r->vol_w);
  e = r->cells_param;
  PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-cells_param", "cell parametrisation: partition (boundaries per dimension, the cells tile D), boxes (free boxes (c, w)) (SPEC §4)", SRCellsParams, &e));
  r->cells_param = (SRCellsParam)e;
  {
    char      sbuf[16];
    PetscBool sset;
    PetscCall(PetscStrncpy(sbuf, r->cell_solve ? "on" : "off", sizeof(sbuf)));
    PetscCall(PetscOptionsString("-cell_solve", "the TAO solve on theta per checkpoint interval: on, off (default on under a guard, off with -guard none) (SPEC §8)", NULL, sbuf, sbuf, sizeof(sbuf), &sset));
    if (sset) {
      PetscBool on, off;
      PetscCall(PetscStrcasecmp(sbuf, "on", &on));
      PetscCall(PetscStrcasecmp(sbuf, "off", &off));
      PetscCheck(on || off, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cell_solve %s: unknown value; allowed are on, off", sbuf);
      r->cell_solve     = on;
      r->cell_solve_set = PETSC_TRUE;
    }
  }
  PetscCall(PetscOptionsBool("-record_start", "also measure row 0, the network training starts from (after any warm start), so that accuracy matching sees the start of the baseline's trajectory (SPEC §9); measures only, trains the same", NULL, r->record_start, &r->record_start, NULL));
  PetscCall(PetscOptionsBool("-quiet", "no progress line per checkpoint", NULL, r->quiet, &r->quiet, NULL));
  PetscCall(PetscOptionsString("-init_network", "start from this network (HDF5, ONNX or NNet; the shapes of -sys, -model, -mlp_widths) instead of the seeded init (SPEC §14)", NULL, r->init_network, r->init_network, sizeof(r->init_network), &set));
  PetscCheck(!set || r->init_network[0], comm, PETSC_ERR_ARG_WRONG, "-init_network: give a network file (our HDF5 network file, ONNX or NNet)");
  PetscCall(PetscOptionsString("-init_network_digest", "set by simreach study: the digest of the -init_network file's widths, activations and transforms; a file that differs is refused", NULL, r->init_digest, r->init_digest, sizeof(r->init_digest), NULL));
  PetscOptionsEnd();

  /* the system reads its own constants (-sr_pendulum_g, ...) */
  PetscCall(SRSystemDestroy(&r->sys));
  PetscCall(SRSystemCreate(comm, r->sysname, NULL, &r->sys));
  if (!cells_set && !r->cells_given) {
    r->ncounts = r->sys->n;
    for (PetscInt i = 0; i < SR_MAX_DIM; i++) r->counts[i] = 8;
  }
  if (cells_set) r->cells_given = PETSC_TRUE;
  PetscCheck(r->safe_nc <= 0 || r->safe_nc == r->sys->n, comm, PETSC_ERR_ARG_SIZ, "-safe_cells: %" PetscInt_FMT " counts given; -sys %s has dimension %" PetscInt_FMT ", so give %" PetscInt_FMT " comma-separated counts (or 0: off)", r->safe_nc, r->sysname, r->sys->n, r->sys->n);
  PetscCheck(r->ncounts == r->sys->n, comm, PETSC_ERR_ARG_SIZ, "-cells: %" PetscInt_FMT " counts given; -sys %s has dimension %" PetscInt_FMT ", so give %" PetscInt_FMT " comma-separated counts", r->ncounts, r->sysname, r->sys->n, r->sys->n);
  /* the closed-loop answer needs a closed loop (SPEC §9): with -model dynamics the network is a
     learned world model, whose verified-safe set is the model's, not the system's (an options
     file's -safe_cells is then ignored, not refused: tests/study_tiny.opts serves both models) */
  if (r->mtype == SR_MODEL_DYNAMICS) r->safe_nc = -1; /* not applicable: NaN, and the gather says why */
  PetscCheck(r->mtype == SR_MODEL_DYNAMICS || r->sys->has_controller, comm, PETSC_ERR_ARG_INCOMP, "-model controller: -sys %s has no control input; allowed is -model dynamics", r->sysname);
  if (r->wmax >= 0) PetscCheck(r->wmin <= r->wmax, comm, PETSC_ERR_ARG_OUTOFRANGE, "-w_min %g > -w_max %g: the half-width bounds need w_min <= w_max", r->wmin, r->wmax);
  PetscCheck(!(r->cells_param == SR_CELLS_PARTITION && r->cov_w > 0), comm, PETSC_ERR_ARG_INCOMP, "-coverage_weight %g: not allowed with -cells_param partition (a partition covers D, so d(x, hat x) = 0 and the coverage term is constant; SPEC §8); use -cells_param boxes or drop it", r->cov_w);
  if (r->cells_param == SR_CELLS_PARTITION)
    for (PetscInt d = 0; d < r->sys->n; d++)
      PetscCheck(r->sys->dhi[d] - r->sys->dlo[d] >= 2.0 * (double)r->counts[d] * r->wmin, comm, PETSC_ERR_ARG_OUTOFRANGE, "-w_min %g with -cells %" PetscInt_FMT " in dimension %" PetscInt_FMT ": a partition of [%g, %g] into %" PetscInt_FMT " intervals of width >= 2 w_min needs hi - lo >= 2 m w_min = %g (SPEC §4); lower -w_min or the count", r->wmin, r->counts[d], d, r->sys->dlo[d], r->sys->dhi[d], r->counts[d], 2.0 * (double)r->counts[d] * r->wmin);
  if (!r->cell_solve_set) r->cell_solve = r->guard == SR_GUARD_NONE ? PETSC_FALSE : PETSC_TRUE;
  /* a partition's objective is piecewise smooth and each solve is only a trust-region step that
     the guard then checks: stop at ||g|| <= 1e-2 |f| (docs/cells.md); -tao_* win */
  if (r->cells_param == SR_CELLS_PARTITION) PetscCall(TaoSetTolerances(r->tao, PETSC_DEFAULT, 1e-2, PETSC_DEFAULT));
  PetscCall(TaoSetFromOptions(r->tao));
  PetscCall(SRRunInitNetworkCheck_Private(r)); /* -init_network: read and checked before any work */
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
    if (r->beta > 0 && r->loss != SR_LOSS_SIM) {
      /* L_encl over every cell, its gradient through the interval pass (SPEC §6) */
      PetscCall(SRRunLossTargets_Private(r, &T));
      PetscCall(SRLossEncl(r->model, r->cells, T, r->par.tau, r->beta, &lencl, r->grad, NULL));
    }
    if (r->beta > 0 && r->loss != SR_LOSS_ENCL) {
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
  static const PetscInt bydim[SR_MAX_DIM][SR_MAX_DIM] = {{400, 0, 0}, {200, 200, 0}, {40, 20, 20}};
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
