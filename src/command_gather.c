/* simreach gather FILE.h5: the gather phase of SPEC §9 from a results file alone (read-only). */
#include <simreach/private/commands.h>
#include <petscviewer.h>

PetscErrorCode SRCommandGather(MPI_Comm comm, const char file[])
{
  PetscFunctionBeginUser;
  PetscCall(SRCheckUnusedOptions(comm));
  PetscCall(SRGatherFile(comm, file, PETSC_VIEWER_STDOUT_(comm)));
  PetscFunctionReturn(PETSC_SUCCESS);
}
