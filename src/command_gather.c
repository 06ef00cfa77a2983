/* simreach gather (placeholder until its module lands). */
#include <simreach/private/commands.h>

PetscErrorCode SRCommandGather(MPI_Comm comm, const char file[])
{
  PetscFunctionBeginUser;
  SETERRQ(comm, PETSC_ERR_SUP, "simreach gather is not built yet");
}
