/* simreach gather FILE.h5: the gather phase of SPEC §9 from a results file alone (read-only).
   simreach gather -merge A.h5,B.h5,... -output FILE.h5 [-force] (or simreach gather FILE.h5
   -merge A.h5,B.h5,...): merge the -grid_slice parts of one study (slurm/array.sbatch) into
   the results file FILE.h5, then gather it. */
#include <simreach/private/commands.h>
#include <simreach/private/fileio.h>
#include <simreach/private/results.h>

PetscErrorCode SRCommandGather(MPI_Comm comm, const char file[])
{
  char      merge[PETSC_MAX_PATH_LEN * 4] = "", output[PETSC_MAX_PATH_LEN] = "results.h5";
  char      control[PETSC_MAX_PATH_LEN] = "", baseline[PETSC_MAX_PATH_LEN] = "";
  PetscBool merging, output_set, force = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "simreach gather (SPEC §9)", NULL);
  PetscCall(PetscOptionsString("-merge", "comma-separated results files of the -grid_slice parts of one study", NULL, merge, merge, sizeof(merge), &merging));
  PetscCall(PetscOptionsString("-output", "with -merge: the merged results file", NULL, output, output, sizeof(output), &output_set));
  PetscCall(PetscOptionsBool("-force", "with -merge: overwrite an existing -output file", NULL, force, &force, NULL));
  PetscCall(PetscOptionsString("-baseline", "results file of a train-then-abstract study (-guard none) whose beta = 0 runs every guarded beta > 0 run is also compared with (SPEC §9)", NULL, baseline, baseline, sizeof(baseline), NULL));
  PetscCall(PetscOptionsString("-control", "results file of a positive-control study (SPEC §9): a null of criterion 2 reads DOES NOT HOLD only when it detects the effect", NULL, control, control, sizeof(control), NULL));
  PetscOptionsEnd();
  PetscCall(SRCheckUnusedOptions(comm));
  if (merging) {
    char **files;
    int    n;
    PetscCheck(!(file && output_set), comm, PETSC_ERR_ARG_INCOMP, "simreach gather -merge: give the merged file once, as FILE.h5 or as -output, not both");
    PetscCall(SRFileCheckOutput(comm, file ? "FILE" : "-output", file ? file : output, force)); /* before the work (issue 34) */
    PetscCall(PetscStrToArray(merge, ',', &n, &files));
    PetscCall(SRGatherMerge(comm, (PetscInt)n, files, file ? file : output, force, PETSC_VIEWER_STDOUT_(comm)));
    PetscCall(PetscStrToArrayDestroy(n, files));
  } else {
    PetscCheck(file, comm, PETSC_ERR_ARG_WRONG, "simreach gather: give the results file (simreach gather results.h5) or -merge A.h5,B.h5 -output results.h5");
    PetscCall(SRGatherFile(comm, file, PETSC_VIEWER_STDOUT_(comm)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
