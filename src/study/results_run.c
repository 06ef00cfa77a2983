/* One run of a results file as the source of a network (SPEC §9, §10): which run, and the
   system and model its study's options describe, with the network it stored.  The options text
   stored in the file is the study's own (/ attribute "options"), so the system constants, the
   control period and the widths are the ones the run trained with. */
#include <stdlib.h>
#include <simreach/private/results_run.h>
#include <simreach/network.h>
#include <stdio.h>
#include <string.h>

PetscErrorCode SRResultsFindRun(MPI_Comm comm, SRResults res, PetscBool by_point, double beta, double tau, PetscInt seed, PetscInt *run)
{
  const SRResultsLayout *lay;
  const char            *file;

  PetscFunctionBeginUser;
  PetscCall(SRResultsGetLayout(res, &lay));
  PetscCall(SRResultsGetFileName(res, &file));
  if (by_point) {
    *run = -1;
    for (PetscInt ib = 0; ib < lay->nbeta; ib++)
      for (PetscInt it = 0; it < lay->ntau; it++)
        for (PetscInt is = 0; is < lay->nseed; is++)
          if (lay->beta[ib] == beta && lay->tau[it] == tau && lay->seed[is] == seed) *run = (ib * lay->ntau + it) * lay->nseed + is;
    PetscCheck(*run >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-run_beta %g -run_tau %g -run_seed %" PetscInt_FMT ": no such run in %s", beta, tau, seed, file);
  }
  PetscCheck(*run >= 0 && *run < lay->nruns, comm, PETSC_ERR_ARG_OUTOFRANGE, "-run %" PetscInt_FMT ": %s has runs 0..%" PetscInt_FMT, *run, file, lay->nruns - 1);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsRunModel(MPI_Comm comm, SRResults res, PetscInt checkpoint, SRResultsRunInfo *info, SRSystem *sys, SRModel *model)
{
  const SRResultsLayout *lay;
  const char            *file;
  char                  *text, sysname[16] = "pendulum", initnet[PETSC_MAX_PATH_LEN] = "", digest[32] = "";
  PetscOptions           opts;
  PetscEnum              mtype = (PetscEnum)SR_MODEL_DYNAMICS;
  PetscInt               widths[SR_MAX_LAYERS] = {32, 32}, nw = SR_MAX_LAYERS, nc = SR_MAX_DIM;
  const PetscInt         run = info->run;
  PetscBool              wset, finite = PETSC_TRUE;
  double                *params;

  PetscFunctionBeginUser;
  PetscCall(SRResultsGetLayout(res, &lay));
  PetscCall(SRResultsGetFileName(res, &file));
  /* on comm, so every rank refuses together (the readers below check on PETSC_COMM_SELF) */
  PetscCheck(run >= 0 && run < lay->nruns, comm, PETSC_ERR_ARG_OUTOFRANGE, "-run %" PetscInt_FMT ": %s has runs 0..%" PetscInt_FMT, run, file, lay->nruns - 1);
  PetscCheck(checkpoint < lay->nrows, comm, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint %" PetscInt_FMT ": %s has checkpoints 0..%" PetscInt_FMT, checkpoint, file, lay->nrows - 1);
  PetscCall(SRResultsGetOptionsText(res, &text));
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsInsertString(opts, text));
  PetscCall(PetscOptionsGetString(opts, NULL, "-sys", sysname, sizeof(sysname), NULL));
  PetscCall(PetscOptionsGetEnum(opts, NULL, "-model", SRModelTypes, &mtype, NULL));
  PetscCall(PetscOptionsGetIntArray(opts, NULL, "-mlp_widths", widths, &nw, &wset));
  if (!wset) nw = 2;
  PetscCall(PetscStrncpy(info->cells_param, "partition", sizeof(info->cells_param)));
  PetscCall(PetscOptionsGetString(opts, NULL, "-cells_param", info->cells_param, sizeof(info->cells_param), NULL));
  for (PetscInt d = 0; d < SR_MAX_DIM; d++) info->counts[d] = 1;
  PetscCall(PetscOptionsGetIntArray(opts, NULL, "-cells", info->counts, &nc, NULL));
  PetscCall(PetscOptionsGetString(opts, NULL, "-init_network", initnet, sizeof(initnet), NULL));
  PetscCall(PetscOptionsGetString(opts, NULL, "-init_network_digest", digest, sizeof(digest), NULL));
  /* the system constants of the study: its options database made the default one for a moment */
  PetscCall(SRSystemCreateFromOptions(comm, opts, NULL, sys)); /* -sys or -plant (SPEC §16) */
  {
    char      pd[32] = "", plant[PETSC_MAX_PATH_LEN] = "", what[PETSC_MAX_PATH_LEN + 32];
    PetscBool set;
    PetscCall(PetscOptionsGetString(opts, NULL, "-plant_digest", pd, sizeof(pd), &set));
    PetscCall(PetscOptionsGetString(opts, NULL, "-plant", plant, sizeof(plant), NULL));
    PetscCall(PetscSNPrintf(what, sizeof what, "the results file %s", file));
    if (set) PetscCall(SRSystemCheckDigest(comm, *sys, plant, (uint64_t)strtoull(pd, NULL, 16), what)); /* SPEC §16 */
  }
  PetscCall(PetscOptionsDestroy(&opts));
  PetscCall(PetscFree(text));
  PetscCall(SRModelCreate(*sys, (SRModelType)mtype, nw, widths, model));
  if (initnet[0]) { /* SPEC §14: the study fine-tuned an imported network; its activations and
                       transforms are the file's (the parameters below are the run's) */
    SRMLP mlp;
    char  what[PETSC_MAX_PATH_LEN + 64];
    PetscBool here;
    PetscCall(PetscSNPrintf(what, sizeof what, "%s: its -init_network %s", file, initnet));
    PetscCall(PetscTestFile(initnet, 'r', &here));
    PetscCheck(here, comm, PETSC_ERR_FILE_OPEN, "%s is not readable from here: the study fine-tuned that network and its activations and transforms are read from it; run from the study's directory", what);
    PetscCall(SRNetworkLoad(comm, initnet, NULL, &mlp));
    if (!digest[0]) PetscCall(SRMLPDestroy(&mlp));
    PetscCheck(digest[0], comm, PETSC_ERR_FILE_UNEXPECTED, "%s: the file stores no digest of that network's activations and transforms (an older simreach); the network it ran cannot be known, rerun the study", what);
    PetscCall(SRMLPCheckStructureDigest(comm, &mlp, digest, what));
    PetscCall(SRModelAdoptNetwork(comm, *model, mlp, what, "; the file changed since the study ran"));
  }
  PetscCheck((*model)->mlp->nparams == lay->nparams, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: %" PetscInt_FMT " network parameters stored per run, its options give %" PetscInt_FMT, file, lay->nparams, (*model)->mlp->nparams);
  PetscCall(PetscMalloc1(lay->nparams, &params));
  if (checkpoint < 0) PetscCall(SRResultsReadNetwork(res, run, params));
  else PetscCall(SRResultsReadCheckpointNetwork(res, run, checkpoint, params));
  for (PetscInt p = 0; p < lay->nparams; p++)
    if (!isfinite(params[p])) finite = PETSC_FALSE;
  if (checkpoint < 0) PetscCheck(finite, comm, PETSC_ERR_ARG_WRONG, "%s: run %" PetscInt_FMT " has no stored final network (not finished, or diverged); pick a finished run or give -checkpoint", file, run);
  else PetscCheck(finite, comm, PETSC_ERR_ARG_WRONG, "%s: run %" PetscInt_FMT " has no network stored at checkpoint %" PetscInt_FMT " (the run did not get there)", file, run, checkpoint);
  PetscCall(PetscArraycpy((*model)->mlp->params, params, lay->nparams));
  PetscCall(PetscFree(params));
  /* C snprintf: PETSc's %g prints an integral value as "0." */
  snprintf(info->label, sizeof(info->label), "%s run %lld (beta %g, tau %g, seed %lld)", file, (long long)run, lay->beta[run / (lay->ntau * lay->nseed)], lay->tau[(run / lay->nseed) % lay->ntau], (long long)lay->seed[run % lay->nseed]);
  PetscFunctionReturn(PETSC_SUCCESS);
}
