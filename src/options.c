/* Checks on the options database shared by the subcommands. */
#include <simreach/private/commands.h>

/* Unknown options are an error before any work starts (like -options_left, but fatal):
   every object has read its options by now, so an option nobody read is a typo or a
   knob that does not exist.  Collective. */
PetscErrorCode SRCheckUnusedOptions(MPI_Comm comm)
{
  PetscInt  n;
  char    **names, **values;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  if (n > 0) {
    char msg[4096] = "";
    for (PetscInt i = 0; i < n; i++) {
      PetscCall(PetscStrlcat(msg, " -", sizeof(msg)));
      PetscCall(PetscStrlcat(msg, names[i], sizeof(msg)));
    }
    PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
    SETERRQ(comm, PETSC_ERR_ARG_WRONG, "unknown option(s):%s (run with -help for the options that exist)", msg);
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscFunctionReturn(PETSC_SUCCESS);
}
