/* The subcommands of the simreach program; each lives in src/command_<name>.c.
   argc/argv are what follows the subcommand word; options are already in the database. */
#pragma once

#include <simreach.h>

PetscErrorCode SRCommandTrain(MPI_Comm comm);                      /* simreach train    (SPEC §8) */
PetscErrorCode SRCommandAbstract(MPI_Comm comm);                   /* simreach abstract (SPEC §5, §7) */
PetscErrorCode SRCommandStudy(MPI_Comm comm);                      /* simreach study    (SPEC §9) */
PetscErrorCode SRCommandGather(MPI_Comm comm, const char file[]); /* simreach gather FILE.h5 */
PetscErrorCode SRCommandVerify(MPI_Comm comm, int *exit_code);                     /* simreach verify   (SPEC §10) */
/* simreach check on an abstraction file of simreach verify: every cell re-enclosed (-enclosure,
   default the other one than stored; -bisect d) and tested against its stored list; exit_code 0
   only when every cell is proven. */
PetscErrorCode SRCommandCheckAbstraction(MPI_Comm comm, const char file[], int *exit_code);
/* Every stored row of an abstraction file re-proven (the batched first stage, then SRRecheckCell
   for what it leaves; src/commands/check_abstraction.c): what simreach check does, and what reach
   and safe do before they say "verified" (SRReproveSource).  Collective. */
PetscErrorCode SRCheckAbstractionRows(MPI_Comm comm, const char file[], SRRecheckParams *par, SRRecheckResult *res, SRAbstractionHeader *h);
/* Before reach or safe says "verified" (docs/files.md "What each command re-proves"): with
   reprove, every row of an abstraction file is re-proven (SRCheckAbstractionRows); a row that
   does not re-prove refuses the answer in one line (SR_ERR_UNSOUND, exit 5).  note is then "re-proven
   here"; without reprove, or for a results file's run (its rows are the ones the run's own
   re-check proved; not re-proven here), note says "given the stored lists" and names the
   command that re-proves them.  Collective. */
PetscErrorCode SRReproveSource(MPI_Comm comm, const char cmd[], const char file[], PetscBool is_abstraction_file, PetscBool reprove, PetscBool *reproven, char note[], size_t len);
/* simreach check on a safety file of simreach safe -output (src/commands/check_safety.c). */
PetscErrorCode SRCommandCheckSafety(MPI_Comm comm, const char file[], int *exit_code);
/* simreach check on a tubes file of simreach closedloop -o (src/commands/check_tubes.c). */
PetscErrorCode SRCommandCheckTubes(MPI_Comm comm, const char file[], int *exit_code);
/* simreach check FILE.h5 (SPEC §11): *exit_code 0 only when every stored cell is proven, else 1. */
PetscErrorCode SRCommandCheck(MPI_Comm comm, const char file[], int *exit_code);
PetscErrorCode SRCommandNetwork(MPI_Comm comm, const char file[]); /* simreach network FILE (SPEC §14) */
PetscErrorCode SRCommandSafe(MPI_Comm comm, const char file[]);   /* simreach safe ABS.h5  (SPEC §12) */
PetscErrorCode SRCommandReach(MPI_Comm comm, const char file[]);  /* simreach reach ABS.h5 (SPEC §12) */
/* simreach closedloop (SPEC §15): *exit_code 0 VERIFIED, 6 FALSIFIED, 5 UNKNOWN */
PetscErrorCode SRCommandClosedLoop(MPI_Comm comm, int *exit_code);
/* The fault-planting test options (-closedloop_test_planted_shrink) exist only in the test
   executable simreach_testhooks (CMake option SIMREACH_TEST_HOOKS; docs/arch.md "Test build"):
   its main() calls SRTestHooksEnable before dispatching.  In the product executable nothing
   enables them, so such an option is never read and SRCheckUnusedOptions refuses it. */
void      SRTestHooksEnable(void);
PetscBool SRTestHooksEnabled(void);
/* Error out, naming them, if options were given that nothing read (like -options_left). */
PetscErrorCode SRCheckUnusedOptions(MPI_Comm comm);
/* The system and model of a network file (-network of verify and abstract).  Collective. */
PetscErrorCode SRCommandNetworkLoad(MPI_Comm comm, const char network[], SRSystem *sys, SRModel *model);
/* Refuse, naming option, value and range, any value of a simreach option that does not parse
   strictly or lies outside the option's range (no wrap at 2^32, no cut lists, no inf, no
   empty names).  Call before anything reads the options.  Collective. */
PetscErrorCode SRCheckOptionValues(MPI_Comm comm, const char cmd[]); /* cmd: the subcommand (limits differ) */

/* Exit codes of the simreach program (README "Exit codes"). */
enum {
  SR_EXIT_OK         = 0,  /* done */
  SR_EXIT_INTERNAL   = 1,  /* an error inside simreach or a library: PETSc's traceback is printed */
  SR_EXIT_REFUSED    = 2,  /* refused input: option, value, file, lock; nothing was done */
  SR_EXIT_UNFINISHED = 3,  /* gather: the study is unfinished, the verdict printed is partial */
  SR_EXIT_RESOURCES  = 4,  /* not enough disk space or memory, or a file could not be written */
  SR_EXIT_UNPROVEN   = 5,  /* check: some stored cell is not proven (falsified or unknown); closedloop: UNKNOWN */
  SR_EXIT_FALSIFIED  = 6,  /* closedloop: FALSIFIED (a confirmed counterexample) */
  SR_EXIT_PLANTED    = 7,  /* simreach_testhooks only: a planted fault was active, the run answers nothing */
  SR_EXIT_STOPPED    = 83  /* stopped by a signal after writing checkpoints: rerun with -resume */
};
int SRExitCode(PetscErrorCode ierr);
/* The program's error handler (PetscPushErrorHandler(SRErrorHandler, &state)): refusals are
   one line on stderr, internal errors keep PETSc's traceback; state records the first error. */
typedef struct {
  PetscErrorCode code;
  int            brief, collective;
} SRErrorState;
PetscErrorCode SRErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx);
