/* The network of a network file (SPEC §10, §14; layout in src/model/network_file.c) as a system
   and a model, for the commands that take -network (verify, abstract). */
#include <simreach/private/commands.h>
#include <simreach/network.h>

PetscErrorCode SRCommandNetworkLoad(MPI_Comm comm, const char network[], SRSystem *sys, SRModel *model)
{
  PetscFunctionBeginUser;
  /* our HDF5 file, ONNX or NNet by content; -sys/-model from the file or, for ONNX/NNet, the options */
  PetscCall(SRNetworkLoadModel(comm, network, "-network", NULL, sys, model));
  PetscFunctionReturn(PETSC_SUCCESS);
}
