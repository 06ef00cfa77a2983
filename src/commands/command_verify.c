/* simreach verify: a trained network verified over a fine partition (SPEC §10).

     simreach verify -network net.h5 -cells 1000,1000 [-enclosure interval|taylor1|both|crown|affine] [-bisect d]
                     [-output abs.h5 [-force]] [-progress]
     simreach verify -from results.h5 (-run r | -run_beta b -run_tau t -run_seed s) [-checkpoint c] -cells ...
     simreach verify -recheck abs.h5 [-enclosure taylor1] [-bisect d]

   The network comes from a network file (src/model/network_file.c) or from a run of a study's
   results file (its final network, or the one stored at -checkpoint c; system and widths from the
   file's options).  The cells
   are the regular grid of -cells, or (-learned_cells) the partition the run learned.  Every cell is enclosed (bisected 2^d times and hulled),
   its index-box list C(k) = M(k) is built and the containment tested; with -output the
   abstraction file (analysis/abstraction-schema.md) is written collectively.  -recheck
   encloses every cell of a stored abstraction file again (by default with the other
   enclosure) and tests it against the stored lists; it exits non-zero when a cell fails. */
#include <simreach/private/commands.h>
#include <simreach/private/h5attr.h>
#include <simreach/private/fileio.h>
#include <simreach/private/results_run.h>
#include <simreach/verify.h>

/* The network of a run of a results file (src/study/results_run.c) and, with learned, the partition
   the run learned at that checkpoint. */
static PetscErrorCode SRVerifyFromResults_Private(MPI_Comm comm, const char file[], PetscInt run, PetscBool by_point, double pb, double pt, PetscInt ps, PetscInt checkpoint, PetscBool learned, SRAbstractionHeader *h, SRSystem *sys, SRModel *model, SRAxes *ax)
{
  SRResults              res;
  const SRResultsLayout *lay;
  SRResultsRunInfo       info;

  PetscFunctionBeginUser;
  PetscCall(SRResultsOpen(comm, file, PETSC_FALSE, &res));
  PetscCall(SRResultsGetLayout(res, &lay));
  PetscCall(SRResultsFindRun(comm, res, by_point, pb, pt, ps, &run));
  info.run = run;
  PetscCall(SRResultsRunModel(comm, res, checkpoint, &info, sys, model));
  if (learned) {
    /* the partition the run learned (SPEC §4): its interior boundaries, exact in the resume state */
    const PetscInt *counts = info.counts;
    PetscInt        off    = 0;
    double         *theta, *b[SR_MAX_DIM];
    PetscCheck(!strcmp(info.cells_param, "partition"), comm, PETSC_ERR_ARG_INCOMP, "-learned_cells: %s ran with -cells_param %s; only a partition (the default) is a grid of boundaries to verify on", file, info.cells_param);
    {
      SRCells dummy;
      PetscCall(SRCellsCreateGrid(*sys, counts, &dummy)); /* only for its K */
      PetscCheck(dummy->K == lay->K, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: %" PetscInt_FMT " cells stored, -cells gives %" PetscInt_FMT, file, lay->K, dummy->K);
      PetscCall(SRCellsDestroy(&dummy));
    }
    {
      /* the boundaries are exact in the resume slots (theta after phi, Adam m, v); the slot of
         the requested checkpoint, else of the last one */
      PetscInt  status, last, slot, *is, want;
      double   *ds;
      PetscBool found = PETSC_FALSE;
      PetscCall(SRResultsReadRunInfo(res, run, &status, &last, &slot));
      PetscCheck(last >= 0, comm, PETSC_ERR_ARG_WRONG, "-learned_cells: run %" PetscInt_FMT " of %s has no checkpoint stored yet", run, file);
      want = checkpoint >= 0 ? checkpoint : last;
      PetscCall(PetscMalloc2(lay->ndstate, &ds, lay->nistate, &is));
      if (want >= 1) { /* checkpoint c is in slot c mod 2; a slot never written holds nothing (SPEC §13) */
        SRSlotState st;
        PetscCall(SRResultsReadSlot(res, run, want % 2, ds, is, &st));
        PetscCheck(st != SR_SLOT_DAMAGED, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": resume slot %" PetscInt_FMT " (/runs/state_double, /runs/state_int) fails its checksum (the file is damaged)", file, run, want % 2);
        found = (PetscBool)(st == SR_SLOT_OK && is[0] == want);
      }
      PetscCheck(found, comm, PETSC_ERR_ARG_WRONG, "-learned_cells: the cells of checkpoint %" PetscInt_FMT " of run %" PetscInt_FMT " are not stored (the resume slots hold the last two checkpoints, up to %" PetscInt_FMT ")", want, run, last);
      PetscCall(PetscMalloc1(lay->ntheta, &theta));
      PetscCall(PetscArraycpy(theta, ds + 3 * lay->nparams, lay->ntheta));
      PetscCall(PetscFree2(ds, is));
    }
    for (PetscInt d = 0; d < (*sys)->n; d++) {
      PetscCall(PetscMalloc1(counts[d] + 1, &b[d]));
      b[d][0]         = (*sys)->dlo[d];
      b[d][counts[d]] = (*sys)->dhi[d];
      for (PetscInt i = 1; i < counts[d]; i++) b[d][i] = theta[off++];
      PetscCheck(isfinite(b[d][1 < counts[d] ? 1 : 0]), comm, PETSC_ERR_ARG_WRONG, "-learned_cells: run %" PetscInt_FMT " of %s has no stored cells (not finished?)", run, file);
    }
    PetscCall(SRAxesCreateBoundaries((*sys)->n, counts, (const double *const *)b, ax));
    for (PetscInt d = 0; d < (*sys)->n; d++) PetscCall(PetscFree(b[d]));
    PetscCall(PetscFree(theta));
  }
  {
    char cks[64] = "final network";
    if (checkpoint >= 0) PetscCall(PetscSNPrintf(cks, sizeof(cks), "checkpoint %" PetscInt_FMT, checkpoint));
    if (learned) PetscCall(PetscStrlcat(cks, ", its learned partition", sizeof(cks)));
    PetscCall(PetscSNPrintf(h->source, sizeof(h->source), "%s, %s", info.label, cks));
  }
  PetscCall(SRResultsDestroy(&res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* N_phi(x) and f_phi(x) at the points of a text file, printed by rank 0 with 17 digits. */
static PetscErrorCode SRVerifyEval_Private(MPI_Comm comm, const char file[], SRModel model)
{
  PetscMPIInt    rank;
  const PetscInt n = model->n, nout = model->mlp->width[model->mlp->nlayers];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    FILE    *fp = fopen(file, "r");
    double   x[SR_MAX_DIM], y[SR_MAX_DIM], N[64];
    PetscInt npt = 0;
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-eval %s: cannot open the file", file);
    PetscCheck(nout <= 64, PETSC_COMM_SELF, PETSC_ERR_SUP, "-eval: at most 64 network outputs");
    for (;;) {
      PetscInt d;
      for (d = 0; d < n; d++)
        if (fscanf(fp, "%lf", &x[d]) != 1) break;
      if (d == 0) break;
      PetscCheck(d == n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-eval %s: point %" PetscInt_FMT " has %" PetscInt_FMT " numbers; give %" PetscInt_FMT " per point", file, npt, d, n);
      PetscCall(SRMLPForward(model->mlp, 1, x, N));
      PetscCall(SRModelEvaluate(model, 1, x, y));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "N"));
      for (PetscInt o = 0; o < nout; o++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %.17g", N[o]));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, " f"));
      for (PetscInt o = 0; o < n; o++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %.17g", y[o]));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
      npt++;
    }
    fclose(fp);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRCommandVerify(MPI_Comm comm, int *exit_code)
{
  char                 evalf[PETSC_MAX_PATH_LEN] = "", network[PETSC_MAX_PATH_LEN] = "", from[PETSC_MAX_PATH_LEN] = "", output[PETSC_MAX_PATH_LEN] = "", recheck[PETSC_MAX_PATH_LEN] = "";
  PetscEnum            etype = (PetscEnum)SR_ENCLOSURE_INTERVAL;
  PetscInt             counts[SR_MAX_DIM] = {0, 0, 0}, nc = SR_MAX_DIM, bisect = 0, run = -1, pseed = 0, max_print = 10, checkpoint = -1;
  double               pbeta = 0, ptau = 0;
  PetscBool            learned = PETSC_FALSE, has_eval, has_net, has_from, has_out, has_recheck, has_cells, etype_set, force = PETSC_FALSE, progress = PETSC_FALSE, run_set, pb_set, pt_set, ps_set;
  SRSystem             sys   = NULL;
  SRModel              model = NULL;
  SRAxes               ax    = NULL;
  SRAbstractionFile    af    = NULL;
  SRAbstractionHeader  h;
  SRVerifyMetrics      m;
  PetscMPIInt          size;
  double               shrink = 0;

  PetscFunctionBeginUser;
  *exit_code = SR_EXIT_OK;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  /* the test executable only (simreach_testhooks, docs/systems.md; tests/abstraction/
     plantloop_soundness.py): a planted violation, the validated period of a plant file's loop
     shrunk by this factor, which the soundness oracle and `check` must catch.  The product
     refuses the option as unknown; under it the run records the fault in the file's source
     and exits 7 (PLANTED-FAULT, SPEC §15 turn 4). */
  if (SRTestHooksEnabled()) {
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-verify_test_planted_shrink", &shrink, NULL));
    PetscCheck(shrink >= 0 && shrink < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -verify_test_planted_shrink %g: allowed are 0 (off) to below 1", shrink);
  }
  PetscCall(PetscMemzero(&h, sizeof(h)));
  PetscOptionsBegin(comm, NULL, "simreach verify: a network over a fine partition (SPEC §10)", NULL);
  PetscCall(PetscOptionsString("-network", "network: our HDF5 file (src/model/network_file.c), ONNX or NNet, by content (ONNX/NNet need -sys and -model)", NULL, network, network, sizeof(network), &has_net));
  PetscCall(PetscOptionsString("-from", "results file of a study: verify the final network of one run", NULL, from, from, sizeof(from), &has_from));
  PetscCall(PetscOptionsInt("-run", "with -from: the run index", NULL, run, &run, &run_set));
  PetscCall(PetscOptionsReal("-run_beta", "with -from: the run's beta", NULL, pbeta, &pbeta, &pb_set));
  PetscCall(PetscOptionsReal("-run_tau", "with -from: the run's tau", NULL, ptau, &ptau, &pt_set));
  PetscCall(PetscOptionsInt("-run_seed", "with -from: the run's seed", NULL, pseed, &pseed, &ps_set));
  PetscCall(PetscOptionsInt("-checkpoint", "with -from: the network stored at this checkpoint (default: the final one)", NULL, checkpoint, &checkpoint, NULL));
  PetscCall(PetscOptionsBool("-learned_cells", "with -from: the cells are the partition the run learned (its final boundaries), not a grid", NULL, learned, &learned, NULL));
  PetscCall(PetscOptionsIntArray("-cells", "cells per dimension of the grid of D, e.g. 1000,1000", NULL, counts, &nc, &has_cells));
  PetscCall(PetscOptionsEnum("-enclosure", "enclosure of f_phi(cell): interval, taylor1, both, crown, affine (SPEC §7, §16)", NULL, SREnclosureTypes, etype, &etype, &etype_set));
  PetscCall(PetscOptionsInt("-bisect", "enclose over 2^d sub-boxes per cell, hulled (0..20)", NULL, bisect, &bisect, NULL));
  PetscCall(PetscOptionsString("-output", "abstraction file to write (schema: analysis/abstraction-schema.md)", NULL, output, output, sizeof(output), &has_out));
  PetscCall(PetscOptionsBool("-force", "replace an existing -output file", NULL, force, &force, NULL));
  PetscCall(PetscOptionsBool("-progress", "print a progress line every tenth of the cells", NULL, progress, &progress, NULL));
  PetscCall(PetscOptionsString("-recheck", "abstraction file to re-verify (with the other enclosure unless -enclosure is given)", NULL, recheck, recheck, sizeof(recheck), &has_recheck));
  PetscCall(PetscOptionsString("-eval", "text file of points (n numbers each): print N_phi(x) and f_phi(x) at each and stop (interop checks)", NULL, evalf, evalf, sizeof(evalf), &has_eval));
  PetscCall(PetscOptionsInt("-max_print", "with -recheck: failing cells printed", NULL, max_print, &max_print, NULL));
  PetscOptionsEnd();
  PetscCheck(bisect >= 0 && bisect <= 20, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bisect %" PetscInt_FMT ": allowed are 0 to 20 (2^d sub-boxes per cell)", bisect);

  if (has_out) PetscCall(SRFileCheckOutput(comm, "-output", output, force)); /* before the work (issue 34) */
  if (has_recheck) {
    SRAbstractionFile          rf;
    const SRAbstractionHeader *rh;
    PetscCheck(!has_net && !has_from && !has_cells && !has_out, comm, PETSC_ERR_ARG_INCOMP, "-recheck FILE re-verifies a stored abstraction: -network, -from, -cells and -output do not apply");
    PetscCall(SRCheckUnusedOptions(comm));
    PetscCall(SRH5CheckTruncated(comm, recheck)); /* named as truncated (issue 34) */
    if (!etype_set) {
      PetscCall(SRAbstractionFileOpen(comm, recheck, &rf));
      PetscCall(SRAbstractionFileGetHeader(rf, &rh));
      etype = (PetscEnum)(!strcmp(rh->enclosure, "interval") ? SR_ENCLOSURE_TAYLOR1 : SR_ENCLOSURE_INTERVAL);
      { /* a plant file's loop: the bound it was built with (the others are far wider; docs/systems.md) */
        SRSystem rs;
        SRModel  rm;
        PetscCall(SRAbstractionFileGetModel(rf, &rs, &rm));
        for (PetscEnum e = 0; SRModelIsLoop(rm) && e <= (PetscEnum)SR_ENCLOSURE_AFFINE; e++)
          if (!strcmp(rh->enclosure, SREnclosureTypes[e])) etype = e;
        PetscCall(SRModelDestroy(&rm));
        PetscCall(SRSystemDestroy(&rs));
      }
      PetscCall(SRAbstractionFileClose(&rf));
    }
    PetscCall(SRVerifyCheckFile(comm, recheck, (SREnclosureType)etype, bisect, max_print, &m));
    PetscCall(PetscPrintf(comm, "simreach verify -recheck %s: %" PetscInt64_FMT " cells re-enclosed with %s (bisect %" PetscInt_FMT ") on %d rank(s)\n", recheck, m.K, SREnclosureTypes[etype], bisect, size));
    PetscCall(PetscPrintf(comm, "  proven %" PetscInt64_FMT ", failed %" PetscInt64_FMT " (nonfinite %" PetscInt64_FMT ")\n", m.K - m.failures, m.failures, m.nonfinite));
    PetscCall(PetscPrintf(comm, "  time (max over ranks): enclosure %.3f s, lists (read) %.3f s, containment %.3f s\n", m.t_enclose, m.t_lists, m.t_contain));
    PetscCheck(m.failures == 0, comm, SR_ERR_UNSOUND, "simreach verify -recheck %s: %" PetscInt64_FMT " of %" PetscInt64_FMT " cells are not proven inside their stored lists (listed above; exit 5)", recheck, m.failures, m.K);
    PetscFunctionReturn(PETSC_SUCCESS);
  }

  PetscCheck(has_net != has_from, comm, PETSC_ERR_ARG_WRONG, "simreach verify: give the network as -network net.h5 or as -from results.h5 -run r (exactly one)");
  PetscCheck(has_cells || has_eval || learned, comm, PETSC_ERR_ARG_WRONG, "simreach verify: give the grid as -cells N1,N2[,N3] (or -from FILE -learned_cells)");
  PetscCheck(!(has_cells && learned), comm, PETSC_ERR_ARG_INCOMP, "-cells and -learned_cells: give one of them");
  PetscCheck(!learned || has_from, comm, PETSC_ERR_ARG_INCOMP, "-learned_cells needs -from results.h5 (the run whose partition is verified)");
  PetscCheck(!has_from || run_set != (pb_set && pt_set && ps_set), comm, PETSC_ERR_ARG_WRONG, "-from: name the run as -run r or as -run_beta b -run_tau t -run_seed s (exactly one)");
  PetscCheck(!has_net || !(run_set || pb_set || pt_set || ps_set), comm, PETSC_ERR_ARG_INCOMP, "-run, -run_beta, -run_tau, -run_seed go with -from, not with -network");
  PetscCall(PetscStrncpy(h.enclosure, SREnclosureTypes[etype], sizeof(h.enclosure)));
  h.bisect = bisect;

  if (has_net) {
    SRNetworkInfo info;
    PetscCall(SRNetworkLoadModel(comm, network, "-network", &info, &sys, &model)); /* HDF5, ONNX or NNet, by content (SPEC §14) */
    PetscCall(PetscSNPrintf(h.source, sizeof(h.source), "%s network file %s", SRNetworkFormats[info.format], network));
  } else PetscCall(SRVerifyFromResults_Private(comm, from, run, (PetscBool)!run_set, pbeta, ptau, pseed, checkpoint, learned, &h, &sys, &model, &ax));
  PetscCheck(shrink == 0 || SRModelIsLoop(model), comm, PETSC_ERR_ARG_INCOMP, "option -verify_test_planted_shrink %g: the fault is planted in the validated period of a plant file's loop (input and control lines); -sys %s has none", shrink, sys->name);
  model->test_shrink = shrink;
  if (shrink > 0) {
    char pf[sizeof h.source];
    PetscCall(PetscSNPrintf(pf, sizeof pf, "PLANTED-FAULT -verify_test_planted_shrink %g, ", shrink));
    PetscCall(PetscStrlcat(pf, h.source, sizeof pf));
    PetscCall(PetscStrncpy(h.source, pf, sizeof h.source));
  }
  if (has_eval) {
    PetscCheck(!SRModelIsLoop(model), comm, PETSC_ERR_SUP, "-eval %s: the closed loop of plant file %s (input and control lines) is not printed by -eval; use simreach closedloop", evalf, sys->plant_path);
    PetscCall(SRCheckUnusedOptions(comm));
    PetscCall(SRVerifyEval_Private(comm, evalf, model));
    PetscCall(SRModelDestroy(&model));
    PetscCall(SRSystemDestroy(&sys));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(learned || nc == sys->n, comm, PETSC_ERR_ARG_SIZ, "-cells: %" PetscInt_FMT " counts given; -sys %s has dimension %" PetscInt_FMT ", so give %" PetscInt_FMT " comma-separated counts", nc, sys->name, sys->n, sys->n);
  PetscCall(SRCheckUnusedOptions(comm));
  if (!learned) PetscCall(SRAxesCreateGrid(sys, counts, &ax));

  PetscCall(PetscStrncpy(h.sys, sys->name, sizeof(h.sys)));
  PetscCall(PetscStrncpy(h.plant, sys->plant_path, sizeof(h.plant))); /* SPEC §16: recorded for "plant" */
  h.plant_digest = sys->plant_digest;
  h.model   = model->type;
  h.nhidden = model->mlp->nlayers - 1;
  for (PetscInt l = 0; l < h.nhidden; l++) h.widths[l] = model->mlp->width[l + 1];
  h.nparams = model->mlp->nparams;
  h.n       = sys->n;
  h.K       = ax->K;
  for (int i = 0; i < 3; i++) h.sys_param[i] = sys->param[i];
  h.sys_dt   = sys->dt;
  h.sys_umax = sys->umax;
  h.control_steps = sys->control_steps;
  h.activations[0] = 0; /* format 1 for simreach's own networks; else format 2 with the activations */
  if (!SRMLPIsDefault(model->mlp)) PetscCall(SRMLPActivationsString(model->mlp, h.activations, sizeof h.activations));
  h.has_in  = model->mlp->has_in;
  h.has_out = model->mlp->has_out;
  /* the file stores n input transforms: a plant file's loop may have other input counts (SPEC §16) */
  PetscCheck(!model->mlp->has_in || model->mlp->width[0] <= sys->n, comm, PETSC_ERR_SUP, "-network %s: %" PetscInt_FMT " network inputs with an input transform; the abstraction file stores at most %" PetscInt_FMT " (the state dimension)", network, model->mlp->width[0], sys->n);
  for (PetscInt j = 0; h.has_in && j < model->mlp->width[0]; j++) {
    h.in_lo[j]    = model->mlp->inlo[j];
    h.in_hi[j]    = model->mlp->inhi[j];
    h.in_mean[j]  = model->mlp->inmean[j];
    h.in_range[j] = model->mlp->inrange[j];
  }
  for (PetscInt i = 0; h.has_out && i < model->mlp->width[model->mlp->nlayers]; i++) {
    h.out_scale[i]  = model->mlp->outscale[i];
    h.out_offset[i] = model->mlp->outoffset[i];
  }
  if (has_out) PetscCall(SRAbstractionFileCreate(comm, output, force, &h, ax, model->mlp->params, &af));
  PetscCall(SRVerifyRun(comm, model, ax, (SREnclosureType)etype, bisect, af, progress, &m));
  PetscCall(SRAbstractionFileClose(&af));

  PetscCall(PetscPrintf(comm, "simreach verify: %s, -sys %s -model %s, %" PetscInt64_FMT " cells, -enclosure %s -bisect %" PetscInt_FMT ", %d rank(s)\n", h.source, sys->name, SRModelTypes[model->type], ax->K, SREnclosureTypes[etype], bisect, size));
  PetscCall(PetscPrintf(comm, "  successors per cell %.6g (sink counts one; %" PetscInt64_FMT " cells list the sink), mean vol(E_k)/vol(D) %.6g\n", m.succ_mean, m.sink, m.volE_mean));
  PetscCall(PetscPrintf(comm, "  containment failures: %" PetscInt64_FMT " (nonfinite %" PetscInt64_FMT ")\n", m.failures, m.nonfinite));
  PetscCall(PetscPrintf(comm, "  time (max over ranks): enclosure %.3f s, lists %.3f s, containment %.3f s, write %.3f s\n", m.t_enclose, m.t_lists, m.t_contain, m.t_write));
  if (has_out) PetscCall(PetscPrintf(comm, "  wrote %s\n", output));
  if (shrink > 0) {
    PetscCall(PetscPrintf(comm, "verify: PLANTED-FAULT: the test option -verify_test_planted_shrink %g shrank every period's enclosure; this run certifies nothing (exit %d)\n", shrink, SR_EXIT_PLANTED));
    *exit_code = SR_EXIT_PLANTED;
  }
  PetscCall(SRAxesDestroy(&ax));
  PetscCall(SRModelDestroy(&model));
  PetscCall(SRSystemDestroy(&sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}
