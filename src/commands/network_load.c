/* The network of a network file (SPEC §10, §14; layout in src/model/network_file.c) as a system
   and a model, for the commands that take -network (verify, abstract). */
#include <simreach/private/commands.h>
#include <simreach/verify.h>

PetscErrorCode SRCommandNetworkLoad(MPI_Comm comm, const char network[], SRSystem *sys, SRModel *model)
{
  char        sysname[16];
  SRModelType mt;
  PetscInt    cs;
  PetscBool   cs_set;
  SRMLP       mlp;
  char        what[PETSC_MAX_PATH_LEN + 16];

  PetscFunctionBeginUser;
  PetscCall(SRNetworkFileRead(comm, network, sysname, sizeof(sysname), &mt, &cs, &mlp));
  PetscCall(SRSystemCreate(comm, sysname, NULL, sys));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-control_steps", &cs_set));
  PetscCheck(!cs_set || cs == 0 || cs == (*sys)->control_steps, comm, PETSC_ERR_ARG_INCOMP, "-control_steps %" PetscInt_FMT ": the network file %s says %" PetscInt_FMT "; leave the option out", (*sys)->control_steps, network, cs);
  if (cs > 0) (*sys)->control_steps = cs;
  PetscCall(PetscSNPrintf(what, sizeof what, "-network %s", network));
  PetscCall(SRModelCreateFromMLP(*sys, mt, mlp, what, model));
  PetscFunctionReturn(PETSC_SUCCESS);
}
