/* simreach train (placeholder until its module lands). */
#include <simreach/private/commands.h>

PetscErrorCode SRCommandTrain(MPI_Comm comm)
{
  PetscFunctionBeginUser;
  SETERRQ(comm, PETSC_ERR_SUP, "simreach train is not built yet");
}
