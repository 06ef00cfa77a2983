/* simreach: the command-line program.
     simreach train    -options_file jobs/X.opts ...   one guarded training run (SPEC §8)
     simreach abstract -sys S -model M -cells N1,N2 ... the abstraction of a network (SPEC §5, §7)
     simreach study    -options_file jobs/X.opts ...   the beta x tau x seed study (SPEC §9)
     simreach gather   FILE.h5                         the gather phase from a results file
     simreach gather   -merge A.h5,B.h5 -output FILE.h5  merge -grid_slice parts, then gather
     simreach verify   -network net.h5 -cells N1,N2 ...  a network over a fine partition (SPEC §10)
     simreach check    FILE.h5                         re-verify every stored triple (SPEC §11); exit 1 unless all proven */
#include <simreach/private/commands.h>
#include <string.h>

static const char help[] = "simreach: simulation-regularised neural dynamics with sound reachability.\n"
                           "Usage: simreach train|abstract|study|gather|verify|check [FILE.h5] [options]; -help lists the options.\n";

int main(int argc, char **argv)
{
  const char *cmd  = argc > 1 ? argv[1] : "";
  const char *file = NULL;
  int         code = 0;

  /* The subcommand word (and gather's file) are not PETSc options: hide them from PetscInitialize. */
  int    pargc = argc > 1 ? argc - 1 : argc;
  char **pargv = argv + (argc > 1 ? 1 : 0);
  if (argc > 2 && (!strcmp(cmd, "gather") || !strcmp(cmd, "check")) && argv[2][0] != '-') {
    file     = argv[2];
    argv[2]  = argv[0];
    pargc    = argc - 2;
    pargv    = argv + 2;
  } else if (argc > 1) {
    argv[1] = argv[0];
  }
  PetscCall(PetscInitialize(&pargc, &pargv, NULL, help));
  if (!strcmp(cmd, "train")) PetscCall(SRCommandTrain(PETSC_COMM_WORLD));
  else if (!strcmp(cmd, "abstract")) PetscCall(SRCommandAbstract(PETSC_COMM_WORLD));
  else if (!strcmp(cmd, "study")) PetscCall(SRCommandStudy(PETSC_COMM_WORLD));
  else if (!strcmp(cmd, "verify")) PetscCall(SRCommandVerify(PETSC_COMM_WORLD));
  else if (!strcmp(cmd, "gather")) PetscCall(SRCommandGather(PETSC_COMM_WORLD, file)); /* file may be NULL: -merge, -help */
  else if (!strcmp(cmd, "check")) PetscCall(SRCommandCheck(PETSC_COMM_WORLD, file, &code));
  else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", help));
    PetscCheck(!strcmp(cmd, "-help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
               "unknown subcommand '%s': allowed are train, abstract, study, gather, verify, check", cmd);
  }
  PetscCall(PetscFinalize());
  return code;
}
