/* SRRunSetFromOptions: every option of a training run read, checked and defaulted (SPEC §3-§8,
   §9's -target_update), before any work; a bad value is one line naming the option, the value
   and what is allowed.  The run itself is run.c. */
#include <stdlib.h>
#include <simreach/private/run.h>
#include <stdio.h>
#include <simreach/closedloop.h>
#include <math.h>
#include <string.h>

static const char *const SRRelistTypes[] = { "never", "checkpoint", "SRRelistType", "SR_RELIST_", NULL };

/* An enum option read as a string so that a bad name is reported with the allowed names. */
static PetscErrorCode SRRunOptionEnum_Private(PetscOptionItems *PetscOptionsObject, MPI_Comm comm, const char opt[], const char help[], const char *const list[], PetscInt *value)
{
  char      buf[64], allowed[256] = "";
  PetscBool set;
  PetscInt  nlist = 0;

  PetscFunctionBeginUser;
  while (list[nlist + 3])
    nlist++; /* PETSc enum lists end with the type name, prefix and NULL */
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
  char      pbuf[16], plant[PETSC_MAX_PATH_LEN] = "", pdigest[32] = "";

  PetscFunctionBeginUser;
  PetscCheck(!r->setup, comm, PETSC_ERR_ORDER, "SRRunSetFromOptions must come before SRRunSetUp");
  PetscOptionsBegin(comm, NULL, "simreach guarded training run (SPEC §8)", "SRRun");
  PetscCall(PetscOptionsString("-sys", "system: toy1d, pendulum, dubins (SPEC §2), the shipped plant files", NULL, r->sysname, r->sysname, sizeof(r->sysname), NULL));
  PetscCall(PetscOptionsString("-plant", "the system as a plant file instead of -sys (SPEC §16, docs/arch.md)", NULL, plant, plant, sizeof(plant), NULL));
  PetscCall(PetscOptionsString("-plant_digest", "set by simreach study: the digest of the -plant file's text and constants; a plant that differs is refused", NULL, pdigest, pdigest, sizeof(pdigest), NULL));
  e = r->mtype;
  PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-model", "learned map: dynamics, controller (SPEC §3)", SRModelTypes, &e));
  r->mtype = (SRModelType)e;
  for (PetscInt i = 0; i < r->nhidden; i++)
    widths[i] = r->widths[i];
  nw = SR_MAX_LAYERS;
  PetscCall(PetscOptionsIntArray("-mlp_widths", "hidden layer widths, e.g. 32,32 (SPEC §3)", NULL, widths, &nw, &set));
  if (set) {
    PetscCheck(nw >= 1 && nw <= SR_MAX_LAYERS, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mlp_widths: %" PetscInt_FMT " widths given; allowed are 1 to %d comma-separated positive integers", nw, SR_MAX_LAYERS);
    for (PetscInt i = 0; i < nw; i++)
      PetscCheck(widths[i] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mlp_widths: width %" PetscInt_FMT " is %" PetscInt_FMT "; widths must be >= 1", i, widths[i]);
    r->nhidden = nw;
    for (PetscInt i = 0; i < nw; i++)
      r->widths[i] = widths[i];
  }
  for (PetscInt i = 0; i < SR_MAX_DIM; i++)
    counts[i] = r->counts[i];
  nc = SR_MAX_DIM;
  PetscCall(PetscOptionsIntArray("-cells", "cells per dimension of the initial grid, e.g. 8,8 (default 8 per dimension) (SPEC §4)", NULL, counts, &nc, &cells_set));
  if (cells_set) {
    for (PetscInt i = 0; i < nc; i++)
      PetscCheck(counts[i] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cells: count %" PetscInt_FMT " is %" PetscInt_FMT "; counts must be >= 1", i, counts[i]);
    PetscCheck(nc >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cells: give one positive count per dimension, e.g. 8,8");
    r->ncounts = nc;
    for (PetscInt i = 0; i < nc; i++)
      r->counts[i] = counts[i];
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
    const char *const upd[] = { "step", "checkpoint", "never", "SRTargetUpdate", "SR_TARGET_UPDATE_", NULL };
    e                       = r->target_update;
    PetscCall(SRRunOptionEnum_Private(
        PetscOptionsObject, comm, "-target_update", "when T(k) is re-chosen: after every accepted step, at checkpoints only, or never (the warm-started network's targets, the seed's fixed successor topology; SPEC §5, §9)", upd, &e));
    r->target_update = e;
  }
  PetscCall(PetscOptionsReal("-target_mass", "share of sampled hits the empirical target keeps, in (0, 1] (SPEC §5)", NULL, r->target_mass, &r->target_mass, NULL));
  PetscCheck(r->target_mass > 0 && r->target_mass <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-target_mass %g: allowed is (0, 1]", r->target_mass);
  PetscCall(PetscOptionsInt("-target_samples", "samples per cell for the empirical target and count (SPEC §5, §6)", NULL, r->target_samples, &r->target_samples, NULL));
  PetscCheck(r->target_samples >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-target_samples %" PetscInt_FMT ": must be >= 1", r->target_samples);
  e = r->enclosure;
  PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-enclosure", "enclosure of f_phi(cell): interval, taylor1, both (SPEC §7)", SREnclosureTypes, &e));
  r->enclosure = (SREnclosureType)e;
  e            = r->loss;
  PetscCall(SRRunOptionEnum_Private(PetscOptionsObject, comm, "-loss", "what beta weights: sim (L_sim), encl (L_encl, the enclosure excess), sim+encl (SPEC §6), width1 (the positive control's first-order width, SPEC §9)", SRLossTypes, &e));
  r->loss = (SRLossType)e;
  PetscCall(PetscOptionsReal(
      "-cells_width", "half-width of the initial cells as a fraction of half the grid spacing, in (0, 1]; < 1 gives free boxes with gaps that do not tile D (SPEC §9 published-check setting)", NULL, r->cells_width, &r->cells_width, NULL));
  PetscCheck(r->cells_width > 0 && r->cells_width <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-cells_width %g: allowed is 0 < f <= 1", r->cells_width);
  PetscCall(PetscOptionsInt("-tight_bisect", "sub-box levels of the tightest enclosure behind |M_tight| and vol(E_tight): 2^l pieces per dimension, 0..6 (SPEC §5)", NULL, r->tight_bisect, &r->tight_bisect, NULL));
  PetscCheck(r->tight_bisect >= 0 && r->tight_bisect <= 6, comm, PETSC_ERR_ARG_OUTOFRANGE, "-tight_bisect %" PetscInt_FMT ": allowed is 0..6", r->tight_bisect);
  {
    /* the closed-loop answer (SPEC §9, §12): the verification grid of the final checkpoint */
    PetscInt  sc[SR_MAX_DIM] = { 0, 0, 0 }, snc = SR_MAX_DIM;
    PetscBool sset;
    PetscCall(PetscOptionsIntArray("-safe_cells", "grid of the closed-loop answer at the final checkpoint: cells per dimension, finer than -cells (default 400 / 200,200 / 40,20,20 by dimension; 0 = off) (SPEC §9, §12)", NULL, sc, &snc, &sset));
    if (sset) {
      PetscCheck(snc >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-safe_cells: give one positive count per dimension, or 0 (off)");
      if (snc == 1 && sc[0] == 0)
        r->safe_nc = -1;
      else {
        for (PetscInt i = 0; i < snc; i++)
          PetscCheck(sc[i] >= 1 && sc[i] <= 100000, comm, PETSC_ERR_ARG_OUTOFRANGE, "-safe_cells: count %" PetscInt_FMT " is %" PetscInt_FMT "; allowed are 1 to 100000 per dimension, or 0 alone (off)", i, sc[i]);
        r->safe_nc = snc;
        for (PetscInt i = 0; i < snc; i++)
          r->safe_counts[i] = sc[i];
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
  e        = r->relist;
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
  PetscCall(PetscOptionsBool("-record_start", "also measure row 0, the network training starts from (after any warm start), so that accuracy matching sees the start of the baseline's trajectory (SPEC §9); measures only, trains the same", NULL,
      r->record_start, &r->record_start, NULL));
  PetscCall(PetscOptionsBool("-quiet", "no progress line per checkpoint", NULL, r->quiet, &r->quiet, NULL));
  PetscCall(PetscOptionsString("-init_network", "start from this network (HDF5, ONNX or NNet; the shapes of -sys, -model, -mlp_widths) instead of the seeded init (SPEC §14)", NULL, r->init_network, r->init_network, sizeof(r->init_network), &set));
  PetscCheck(!set || r->init_network[0], comm, PETSC_ERR_ARG_WRONG, "-init_network: give a network file (our HDF5 network file, ONNX or NNet)");
  PetscCall(
      PetscOptionsString("-init_network_digest", "set by simreach study: the digest of the -init_network file's widths, activations and transforms; a file that differs is refused", NULL, r->init_digest, r->init_digest, sizeof(r->init_digest), NULL));
  PetscOptionsEnd();

  /* the system reads its own constants (-pendulum_g, ..., -plant_CONST; SPEC §16) */
  PetscCall(SRSystemDestroy(&r->sys));
  PetscCall(SRSystemCreateFromOptions(comm, NULL, NULL, &r->sys));
  PetscCall(PetscStrncpy(r->sysname, r->sys->name, sizeof(r->sysname)));
  if (pdigest[0]) PetscCall(SRSystemCheckDigest(comm, r->sys, plant, (uint64_t)strtoull(pdigest, NULL, 16), "the study")); /* -resume on a changed plant */
  if (!cells_set && !r->cells_given) {
    r->ncounts = r->sys->n;
    for (PetscInt i = 0; i < SR_MAX_DIM; i++)
      r->counts[i] = 8;
  }
  if (cells_set) r->cells_given = PETSC_TRUE;
  PetscCheck(r->safe_nc <= 0 || r->safe_nc == r->sys->n, comm, PETSC_ERR_ARG_SIZ, "-safe_cells: %" PetscInt_FMT " counts given; -sys %s has dimension %" PetscInt_FMT ", so give %" PetscInt_FMT " comma-separated counts (or 0: off)", r->safe_nc,
      r->sysname, r->sys->n, r->sys->n);
  PetscCheck(r->ncounts == r->sys->n, comm, PETSC_ERR_ARG_SIZ, "-cells: %" PetscInt_FMT " counts given; -sys %s has dimension %" PetscInt_FMT ", so give %" PetscInt_FMT " comma-separated counts", r->ncounts, r->sysname, r->sys->n, r->sys->n);
  /* the closed-loop answer needs a closed loop (SPEC §9): with -model dynamics the network is a
     learned world model, whose verified-safe set is the model's, not the system's (an options
     file's -safe_cells is then ignored, not refused: tests/study_tiny.opts serves both models) */
  if (r->mtype == SR_MODEL_DYNAMICS) r->safe_nc = -1; /* not applicable: NaN, and the gather says why */
  PetscCheck(r->mtype == SR_MODEL_DYNAMICS || !SRSystemIsLoop(r->sys), comm, PETSC_ERR_ARG_INCOMP, "-model controller: plant file %s states the loop of its input and control lines, without a reference controller (the task loss of SPEC §3): train and study need a bounded controller and a reference (add bound and reference lines, as jobs/arch/tora/study_plant.txt does; docs/systems.md)", r->sys->plant_path);
  PetscCheck(r->mtype == SR_MODEL_DYNAMICS || r->sys->has_controller, comm, PETSC_ERR_ARG_INCOMP, "-model controller: -sys %s has no control input; allowed is -model dynamics", r->sysname);
  if (r->wmax >= 0) PetscCheck(r->wmin <= r->wmax, comm, PETSC_ERR_ARG_OUTOFRANGE, "-w_min %g > -w_max %g: the half-width bounds need w_min <= w_max", r->wmin, r->wmax);
  PetscCheck(!(r->cells_param == SR_CELLS_PARTITION && r->cov_w > 0), comm, PETSC_ERR_ARG_INCOMP,
      "-coverage_weight %g: not allowed with -cells_param partition (a partition covers D, so d(x, hat x) = 0 and the coverage term is constant; SPEC §8); use -cells_param boxes or drop it", r->cov_w);
  if (r->cells_param == SR_CELLS_PARTITION)
    for (PetscInt d = 0; d < r->sys->n; d++)
      PetscCheck(r->sys->dhi[d] - r->sys->dlo[d] >= 2.0 * (double)r->counts[d] * r->wmin, comm, PETSC_ERR_ARG_OUTOFRANGE,
          "-w_min %g with -cells %" PetscInt_FMT " in dimension %" PetscInt_FMT ": a partition of [%g, %g] into %" PetscInt_FMT " intervals of width >= 2 w_min needs hi - lo >= 2 m w_min = %g (SPEC §4); lower -w_min or the count", r->wmin,
          r->counts[d], d, r->sys->dlo[d], r->sys->dhi[d], r->counts[d], 2.0 * (double)r->counts[d] * r->wmin);
  if (!r->cell_solve_set) r->cell_solve = r->guard == SR_GUARD_NONE ? PETSC_FALSE : PETSC_TRUE;
  /* a partition's objective is piecewise smooth and each solve is only a trust-region step that
     the guard then checks: stop at ||g|| <= 1e-2 |f| (docs/cells.md); -tao_* win */
  if (r->cells_param == SR_CELLS_PARTITION) PetscCall(TaoSetTolerances(r->tao, PETSC_DEFAULT, 1e-2, PETSC_DEFAULT));
  PetscCall(TaoSetFromOptions(r->tao));
  PetscCall(SRRunInitNetworkCheck_Private(r)); /* -init_network: read and checked before any work */
  r->fromoptions = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
