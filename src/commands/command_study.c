/* simreach study: the beta x tau x seed sweep and its gather phase (SPEC §9). */
#include <simreach/private/commands.h>

PetscErrorCode SRCommandStudy(MPI_Comm comm)
{
  SRStudy study;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(SRStudyCreate(comm, &study));
  ierr = SRStudySetFromOptions(study);
  if (!ierr) ierr = SRCheckUnusedOptions(comm);
  if (!ierr) ierr = SRStudySolve(study);
  /* the error (already reported) returns after the lock is released */
  PetscCall(SRStudyDestroy(&study));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
