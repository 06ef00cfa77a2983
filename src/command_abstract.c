/* simreach abstract (placeholder until its module lands). */
#include <simreach/private/commands.h>

PetscErrorCode SRCommandAbstract(MPI_Comm comm)
{
  PetscFunctionBeginUser;
  SETERRQ(comm, PETSC_ERR_SUP, "simreach abstract is not built yet");
}
