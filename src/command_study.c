/* simreach study (placeholder until its module lands). */
#include <simreach/private/commands.h>

PetscErrorCode SRCommandStudy(MPI_Comm comm)
{
  PetscFunctionBeginUser;
  SETERRQ(comm, PETSC_ERR_SUP, "simreach study is not built yet");
}
