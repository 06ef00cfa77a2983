/* simreach network FILE [-output net.h5 [-force]] [-sys S -model M]   (SPEC §14)
   Reads a network (our HDF5 file, ONNX or NNet, by content), prints what it read (format,
   layers, sizes, activations, input clipping and normalisation, output scaling) and with
   -output writes it as our HDF5 network file (format 2; SPEC §13: temporary file, renamed, an
   existing file only with -force), which states the closed loop it belongs to: -sys and -model
   are required for ONNX and NNet files and are checked against the system's dimensions. */
#include <simreach/private/commands.h>

PetscErrorCode SRCommandNetwork(MPI_Comm comm, const char file[])
{
  char          output[PETSC_MAX_PATH_LEN] = "";
  PetscBool     has_out, force = PETSC_FALSE;
  SRNetworkInfo info;
  SRMLP         mlp;

  PetscFunctionBeginUser;
  PetscCheck(file && file[0], comm, PETSC_ERR_ARG_WRONG, "simreach network: give the network file: simreach network FILE [-output net.h5] [-sys S -model M]");
  PetscOptionsBegin(comm, NULL, "simreach network: read a network (HDF5, ONNX, NNet), print it, convert it (SPEC §14)", NULL);
  PetscCall(PetscOptionsString("-output", "write it as our HDF5 network file (needs -sys and -model for ONNX/NNet)", NULL, output, output, sizeof output, &has_out));
  PetscCall(PetscOptionsBool("-force", "replace an existing -output file", NULL, force, &force, NULL));
  PetscOptionsEnd();
  PetscCheck(!has_out || output[0], comm, PETSC_ERR_ARG_WRONG, "option -output: give a file name");
  if (has_out && !force) {
    PetscBool exists;
    PetscCall(PetscTestFile(output, '\0', &exists));
    PetscCheck(!exists, comm, PETSC_ERR_FILE_OPEN, "-output %s: the file exists; give -force to replace it", output);
  }
  if (!has_out) {
    PetscCall(SRCheckUnusedOptions(comm));
    PetscCall(SRNetworkLoad(comm, file, &info, &mlp));
    PetscCall(SRNetworkPrint(comm, file, &info, mlp));
    PetscCall(SRMLPDestroy(&mlp));
  } else {
    SRSystem sys;
    SRModel  model;
    PetscCall(SRNetworkLoadModel(comm, file, "simreach network", &info, &sys, &model));
    PetscCall(SRCheckUnusedOptions(comm));
    PetscCall(SRNetworkPrint(comm, file, &info, model->mlp));
    PetscCall(SRNetworkFileWrite(comm, output, force, sys->name, model->type, sys->control_steps, model->mlp));
    PetscCall(PetscPrintf(comm, "  wrote %s (-sys %s -model %s -control_steps %" PetscInt_FMT ")\n", output, sys->name, SRModelTypes[model->type], sys->control_steps));
    PetscCall(SRModelDestroy(&model));
    PetscCall(SRSystemDestroy(&sys));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
