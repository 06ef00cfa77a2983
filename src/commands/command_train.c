/* simreach train: one guarded training run (SPEC §8) and its checkpoint table.
     simreach train -options_file jobs/train_pendulum.opts [-quiet] [-run_view] */
#include <simreach/private/commands.h>

PetscErrorCode SRCommandTrain(MPI_Comm comm)
{
  SRRun               run;
  SRRunStatus         status;
  const char         *reason, *taoname;
  PetscInt            n;
  const SRCheckpoint *t;
  PetscBool           view = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(SRRunCreate(comm, &run));
  PetscCall(SRRunSetFromOptions(run));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-run_view", &view, NULL));
  /* every option has been read by now: a leftover one is a typo, reported before any work */
  PetscCall(SRCheckUnusedOptions(comm));
  PetscCall(SRRunSetUp(run));
  {
    SRModel       model;
    SRCells       cells;
    SRAbstraction abs;
    PetscCall(SRRunGetObjects(run, &model, &cells, &abs));
    PetscCall(SRSystemPrintReference(comm, model->sys, "simreach train")); /* SPEC §2 */
  }
  PetscCall(SRRunSolve(run));
  PetscCall(SRRunGetStatus(run, &status, &reason));
  PetscCall(SRRunGetCheckpoints(run, &n, &t));
  PetscCall(SRRunGetTaoReason(run, NULL, &taoname));
  PetscCall(PetscPrintf(comm, "\n  cp epoch      L_sim          H       task  pred_err   cover  succ_C  succ_min succ_emp      vol_E  vol_union  gap_min  tlogn  gap_max  tlogN   acc   rej   bt  recheck falsif\n"));
  for (PetscInt i = 0; i < n; i++)
    PetscCall(PetscPrintf(comm, "%4" PetscInt_FMT " %5" PetscInt_FMT " %10.4g %10.4g %10.4g %9.4g %7.3f %7.3f %9.3f %8.3f %10.4g %10.4g %8.2g %6.3g %8.2g %6.3g %5" PetscInt_FMT " %5" PetscInt_FMT " %4" PetscInt_FMT " %8" PetscInt_FMT " %6" PetscInt_FMT "\n",
                          t[i].checkpoint, t[i].epoch, t[i].Lsim, t[i].H, t[i].task, t[i].pred_error, t[i].coverage, t[i].succ_certified, t[i].succ_minimal, t[i].succ_empirical, t[i].vol_E, t[i].vol_union, t[i].gap_min, t[i].taulogn, t[i].gap_max,
                          t[i].taulogN, t[i].accepted, t[i].rejected, t[i].backtracked, t[i].recheck_failures, t[i].falsified));
  PetscCall(PetscPrintf(comm, "status: %s (%s); last TAO reason: %s\n", SRRunStatusNames[status], reason, taoname));
  if (view) PetscCall(SRRunView(run, NULL));
  PetscCall(SRRunDestroy(&run));
  PetscFunctionReturn(PETSC_SUCCESS);
}
