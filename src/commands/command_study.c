/* simreach study: the beta x tau x seed sweep and its gather phase (SPEC §9). */
#include <simreach/private/commands.h>
#include <simreach/private/fileio.h>

PetscErrorCode SRCommandStudy(MPI_Comm comm)
{
  SRStudy study;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  { /* the results file's path checked before the work (issue 34); whether an existing one may be
       resumed or replaced is the study's rule (-resume, -force) */
    char out[PETSC_MAX_PATH_LEN] = "results.h5";
    PetscCall(PetscOptionsGetString(NULL, NULL, "-output", out, sizeof out, NULL));
    PetscCall(SRFileCheckOutput(comm, "-output", out, PETSC_TRUE));
  }
  PetscCall(SRStudyCreate(comm, &study));
  ierr = SRStudySetFromOptions(study);
  if (!ierr) ierr = SRCheckUnusedOptions(comm);
  if (!ierr) ierr = SRStudySolve(study);
  /* the error (already reported) returns after the lock is released */
  PetscCall(SRStudyDestroy(&study));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
