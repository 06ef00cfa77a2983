/* simreach study: the beta x tau x seed sweep and its gather phase (SPEC §9). */
#include <simreach/private/commands.h>

PetscErrorCode SRCommandStudy(MPI_Comm comm)
{
  SRStudy study;

  PetscFunctionBeginUser;
  PetscCall(SRStudyCreate(comm, &study));
  PetscCall(SRStudySetFromOptions(study));
  PetscCall(SRCheckUnusedOptions(comm));
  PetscCall(SRStudySolve(study));
  PetscCall(SRStudyDestroy(&study));
  PetscFunctionReturn(PETSC_SUCCESS);
}
