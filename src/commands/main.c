/* simreach: the command-line program.
     simreach train    -options_file jobs/X.opts ...   one guarded training run (SPEC §8)
     simreach abstract -sys S -model M -cells N1,N2 ... the abstraction of a network (SPEC §5, §7)
     simreach study    -options_file jobs/X.opts ...   the beta x tau x seed study (SPEC §9)
     simreach gather   FILE.h5                         the gather phase from a results file
     simreach gather   -merge A.h5,B.h5 -output FILE.h5  merge -grid_slice parts, then gather
     simreach verify   -network net.h5 -cells N1,N2 ...  a network over a fine partition (SPEC §10)
     simreach check    FILE.h5                         re-verify every stored triple (SPEC §11); exit 5 unless all proven
     simreach safe     ABS.h5 | RES.h5 -run r         verified-safe set and horizons of an abstraction file or a run (SPEC §12)
     simreach reach    ABS.h5 -init lo,hi,.. -steps N  bounded reachability from an initial box (SPEC §12)
     simreach network  FILE [-output net.h5]            print an HDF5/ONNX/NNet network, convert it to our file (SPEC §14)
     simreach closedloop -plant P -network N -spec S  a continuous-time plant under a network controller (SPEC §15); exit 0 VERIFIED, 6 FALSIFIED, 5 UNKNOWN
   Exit codes: README "Exit codes" (commands.h SR_EXIT_*). */
#define _GNU_SOURCE /* sigaction */
#include <simreach/private/commands.h>
#include <simreach/private/fileio.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char help[] = "simreach: simulation-regularised neural dynamics with sound reachability.\n"
                           "Usage: simreach train|abstract|study|gather|verify|check|safe|reach|network|closedloop [FILE] [options]; -help lists the options.\n";

static PetscErrorCode Dispatch_Private(const char cmd[], const char file[], int *code)
{
  PetscFunctionBeginUser;
  PetscCall(SRCheckOptionValues(PETSC_COMM_WORLD, cmd)); /* before any object reads them */
  if (!strcmp(cmd, "train")) PetscCall(SRCommandTrain(PETSC_COMM_WORLD));
  else if (!strcmp(cmd, "abstract")) PetscCall(SRCommandAbstract(PETSC_COMM_WORLD));
  else if (!strcmp(cmd, "study")) PetscCall(SRCommandStudy(PETSC_COMM_WORLD));
  else if (!strcmp(cmd, "verify")) PetscCall(SRCommandVerify(PETSC_COMM_WORLD, code));
  else if (!strcmp(cmd, "gather")) PetscCall(SRCommandGather(PETSC_COMM_WORLD, file)); /* file may be NULL: -merge, -help */
  else if (!strcmp(cmd, "check")) PetscCall(SRCommandCheck(PETSC_COMM_WORLD, file, code));
  else if (!strcmp(cmd, "safe")) PetscCall(SRCommandSafe(PETSC_COMM_WORLD, file));
  else if (!strcmp(cmd, "reach")) PetscCall(SRCommandReach(PETSC_COMM_WORLD, file));
  else if (!strcmp(cmd, "network")) PetscCall(SRCommandNetwork(PETSC_COMM_WORLD, file));
  else if (!strcmp(cmd, "closedloop")) PetscCall(SRCommandClosedLoop(PETSC_COMM_WORLD, code));
  else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", help));
    PetscCheck(!strcmp(cmd, "-help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "unknown subcommand '%s': allowed are train, abstract, study, gather, verify, check, safe, reach, network, closedloop", cmd);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SIGTERM or SIGINT during any command but study (which checkpoints and says -resume): one line
   "stopped by signal 15 (SIGTERM)" from the first rank, the .part files being written and their
   locks removed, exit 128 + the signal (README "Exit codes"; issue 34).  Open MPI's mpiexec
   forwards both as SIGTERM to every rank.  Async-signal-safe: write(2), unlink(2), _exit(2). */
static volatile sig_atomic_t SRFirstRank_Private = 1;
static void SRStopHandler_Private(int sig)
{
  static const char term[] = "simreach: stopped by signal 15 (SIGTERM); nothing more is computed and no output file is written (partial files and their locks removed)\n";
  static const char intr[] = "simreach: stopped by signal 2 (SIGINT); nothing more is computed and no output file is written (partial files and their locks removed)\n";
  static const char termw[] = "simreach: stopped by signal 15 (SIGTERM) after its output file was written in full; nothing more is computed\n";
  static const char intrw[] = "simreach: stopped by signal 2 (SIGINT) after its output file was written in full; nothing more is computed\n";
  if (SRFirstRank_Private) {
    const int written = SRFileCommittedOnSignal(); /* the rename is done: the file is whole */
    SRFileUnlinkOpenOnSignal();
    if (sig == SIGINT) (void)!write(2, written ? intrw : intr, (written ? sizeof(intrw) : sizeof(intr)) - 1);
    else (void)!write(2, written ? termw : term, (written ? sizeof(termw) : sizeof(term)) - 1);
  }
  _exit(128 + sig);
}
static void SRCatchStop_Private(void)
{
  struct sigaction sa;
  const char      *rank = getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = getenv("PMI_RANK");
  SRFirstRank_Private = !rank || !strcmp(rank, "0");
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = SRStopHandler_Private;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGTERM, &sa, NULL);
  (void)sigaction(SIGINT, &sa, NULL);
}

/* Before MPI and PETSc start: an -options_file that cannot be read is refused input (exit 2),
   said in one line by the first rank (PETSc would say it in a block and exit 83). */
/* A refusal before MPI is initialised: rank 0 says it; the other ranks wait half a second before
   they exit, because mpiexec ends the job when the first rank exits non-zero, and rank 0 may not
   have printed yet (with odls_base_sigkill_timeout 0 it is killed at once). */
static int RefuseBeforeMPI_Private(const char *rank)
{
  if (rank && strcmp(rank, "0")) {
    struct timespec t = {0, 500000000L};
    (void)nanosleep(&t, NULL);
  }
  return SR_EXIT_REFUSED;
}

static int CheckOptionsFiles_Private(int argc, char **argv)
{
  const char *rank = getenv("OMPI_COMM_WORLD_RANK");
  if (!rank) rank = getenv("PMI_RANK");
  for (int i = 1; i < argc; i++) {
    FILE *f;
    if (strcmp(argv[i], "-options_file") && strcmp(argv[i], "-options_file_yaml")) continue;
    if (i + 1 >= argc) {
      if (!rank || !strcmp(rank, "0")) fprintf(stderr, "simreach: option %s: give a file name\n", argv[i]);
      return RefuseBeforeMPI_Private(rank);
    }
    f = fopen(argv[i + 1], "r");
    if (!f) {
      if (!rank || !strcmp(rank, "0")) fprintf(stderr, "simreach: option %s %s: cannot open the file: %s\n", argv[i], argv[i + 1], strerror(errno));
      return RefuseBeforeMPI_Private(rank);
    }
    fclose(f);
  }
  return SR_EXIT_OK;
}

int main(int argc, char **argv)
{
  const char    *cmd   = argc > 1 ? argv[1] : "";
  const char    *file  = NULL;
  SRErrorState   state = {0, 0, 0};
  PetscErrorCode ierr;
  int            code = 0;

  /* a study catches SIGTERM/SIGUSR1 from the start, so a stop during start-up says -resume */
  if (!strcmp(cmd, "study")) SRStudyCatchSignals();
  else SRCatchStop_Private();
  SRFileCatchSizeLimit(); /* a write past ulimit -f fails (and is reported) instead of killing us */
  /* The subcommand word (and gather's file) are not PETSc options: hide them from PetscInitialize. */
  int    pargc = argc > 1 ? argc - 1 : argc;
  char **pargv = argv + (argc > 1 ? 1 : 0);
  if (argc > 2 && (!strcmp(cmd, "gather") || !strcmp(cmd, "check") || !strcmp(cmd, "safe") || !strcmp(cmd, "reach") || !strcmp(cmd, "network")) && argv[2][0] != '-') {
    file     = argv[2];
    argv[2]  = argv[0];
    pargc    = argc - 2;
    pargv    = argv + 2;
  } else if (argc > 1) {
    argv[1] = argv[0];
  }
  if ((code = CheckOptionsFiles_Private(pargc, pargv))) return code;
  ierr = PetscInitialize(&pargc, &pargv, NULL, help);
  if (ierr) return SR_EXIT_REFUSED; /* PETSc said why (a bad options file) */
  if (!strcmp(cmd, "study")) SRStudyCatchSignals(); /* again: PetscInitialize may install its own */
  else SRCatchStop_Private();
  PetscCall(PetscPushErrorHandler(SRErrorHandler, &state));
#if defined(SR_TEST_HOOKS)
  SRTestHooksEnable(); /* simreach_testhooks only (CMake SIMREACH_TEST_HOOKS): the fault-planting test options */
#endif
  ierr = Dispatch_Private(cmd, file, &code);
  if (ierr) {
    code = SRExitCode(state.code ? state.code : ierr);
    /* an error every rank raised together ends like a normal run; any other aborts the job */
    if (state.collective) (void)PetscFinalize();
    else MPI_Abort(MPI_COMM_WORLD, code);
    return code;
  }
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscFinalize());
  return code;
}
