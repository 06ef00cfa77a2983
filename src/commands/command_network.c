/* simreach network FILE [-output net.h5 [-force]] [-sys S -model M]   (SPEC §13, §14)
   simreach network RESULTS.h5 (-run r | -run_beta b -run_tau t -run_seed s) [-checkpoint c] [-output net.h5]
   Reads a network (our HDF5 file, ONNX or NNet, by content), prints what it read (format,
   layers, sizes, activations, input clipping and normalisation, output scaling) and with
   -output writes it as our HDF5 network file (format 2; SPEC §13: temporary file, renamed, an
   existing file only with -force), which states the closed loop it belongs to: -sys and -model
   are required for ONNX and NNet files and are checked against the system's dimensions.  On a
   study's results file with a run named, the run's final network (or the one of -checkpoint c)
   is written with the closed loop of the study's options (system, constants, u_max,
   control_steps; SPEC §13). */
#include <simreach/private/commands.h>
#include <simreach/private/h5attr.h>
#include <simreach/private/fileio.h>
#include <simreach/private/closedloop_results.h>
#include <simreach/private/results_run.h>

static PetscErrorCode SRCommandNetworkRun_Private(MPI_Comm comm, const char file[], const SRRunSelect *sel, PetscInt checkpoint, const char output[], PetscBool force)
{
  SRResults        res;
  SRResultsRunInfo info;
  SRSystem         sys;
  SRModel          model;
  SRNetworkInfo    ni;

  PetscFunctionBeginUser;
  PetscCall(SRCheckUnusedOptions(comm));
  PetscCall(SRResultsOpen(comm, file, PETSC_FALSE, &res));
  info.run = sel->run;
  PetscCall(SRResultsFindRun(comm, res, sel->by_point, sel->beta, sel->tau, sel->seed, &info.run));
  PetscCall(SRResultsRunModel(comm, res, checkpoint, &info, &sys, &model));
  PetscCall(SRResultsDestroy(&res));
  PetscCall(PetscMemzero(&ni, sizeof ni));
  ni.format        = SR_NETFMT_HDF5;
  ni.has_sys       = PETSC_TRUE;
  ni.type          = model->type;
  ni.control_steps = sys->control_steps;
  ni.has_consts    = PETSC_TRUE;
  ni.sys_dt        = sys->dt;
  ni.sys_umax      = sys->umax;
  for (int i = 0; i < 3; i++) ni.sys_param[i] = sys->param[i];
  PetscCall(PetscStrncpy(ni.sys, sys->name, sizeof ni.sys));
  PetscCall(PetscSNPrintf(ni.producer, sizeof ni.producer, "%s network", checkpoint < 0 ? "final" : "checkpoint"));
  PetscCall(SRNetworkPrint(comm, info.label, &ni, model->mlp));
  if (output) {
    PetscCall(SRNetworkFileWrite(comm, output, force, sys, model->type, model->mlp));
    PetscCall(PetscPrintf(comm, "  wrote %s (-sys %s -model %s -control_steps %" PetscInt_FMT ")\n", output, sys->name, SRModelTypes[model->type], sys->control_steps));
  }
  PetscCall(SRModelDestroy(&model));
  PetscCall(SRSystemDestroy(&sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRCommandNetwork(MPI_Comm comm, const char file[])
{
  char          output[PETSC_MAX_PATH_LEN] = "";
  PetscBool     has_out, force = PETSC_FALSE;
  SRNetworkInfo info;
  SRMLP         mlp;
  SRRunSelect   sel;
  PetscBool     sel_set;
  PetscInt      checkpoint = -1;

  PetscFunctionBeginUser;
  PetscCheck(file && file[0], comm, PETSC_ERR_ARG_WRONG, "simreach network: give the network file: simreach network FILE [-output net.h5] [-sys S -model M]");
  PetscOptionsBegin(comm, NULL, "simreach network: read a network (HDF5, ONNX, NNet, a study's run), print it, convert it (SPEC §14)", NULL);
  PetscCall(PetscOptionsString("-output", "write it as our HDF5 network file (needs -sys and -model for ONNX/NNet)", NULL, output, output, sizeof output, &has_out));
  PetscCall(PetscOptionsBool("-force", "replace an existing -output file", NULL, force, &force, NULL));
  PetscCall(SRRunSelectOptions(PetscOptionsObject, comm, &sel, &sel_set));
  PetscCall(PetscOptionsInt("-checkpoint", "with a run: the network stored at this checkpoint (default: the final one)", NULL, checkpoint, &checkpoint, NULL));
  PetscOptionsEnd();
  if (has_out) PetscCall(SRFileCheckOutput(comm, "-output", output, force)); /* before the work (issue 34) */
  if (sel_set) { /* a study's run (SPEC §13: the closed loop of the study's options) */
    PetscCall(SRCommandNetworkRun_Private(comm, file, &sel, checkpoint, has_out ? output : NULL, force));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
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
    PetscCall(SRNetworkFileWrite(comm, output, force, sys, model->type, model->mlp));
    PetscCall(PetscPrintf(comm, "  wrote %s (-sys %s -model %s -control_steps %" PetscInt_FMT ")\n", output, sys->name, SRModelTypes[model->type], sys->control_steps));
    PetscCall(SRModelDestroy(&model));
    PetscCall(SRSystemDestroy(&sys));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
