/* How the program reports errors and which exit code it returns (README "Exit codes").

   A refusal (a bad option or value, a file that does not fit, a lock held by another study,
   not enough disk space, a stop by a signal) is one line, "simreach: <message>", printed once
   (by rank 0 of the communicator it was raised on), not PETSc's traceback block: the message
   already names the option or file, the value and what is allowed.  Anything else is an
   internal error and keeps PETSc's full traceback. */
#include <simreach/private/commands.h>
#include <stdio.h>
#include <string.h>

/* Is n a refusal (brief message) rather than an internal error (traceback)? */
static int SRErrorIsRefusal_Private(PetscErrorCode n)
{
  switch (n) {
  case PETSC_ERR_ARG_SIZ:
  case PETSC_ERR_ARG_WRONG:
  case PETSC_ERR_ARG_OUTOFRANGE:
  case PETSC_ERR_ARG_INCOMP:
  case PETSC_ERR_ARG_UNKNOWN_TYPE:
  case PETSC_ERR_ARG_CORRUPT:
  case PETSC_ERR_FILE_OPEN:
  case PETSC_ERR_FILE_READ:
  case PETSC_ERR_FILE_WRITE:
  case PETSC_ERR_FILE_UNEXPECTED:
  case PETSC_ERR_MEM:
  case SR_ERR_STOPPED:
  case SR_ERR_UNFINISHED:
  case SR_ERR_UNSOUND:
    return 1;
  default:
    return 0;
  }
}

int SRExitCode(PetscErrorCode n)
{
  switch (n) {
  case 0:
    return SR_EXIT_OK;
  case SR_ERR_STOPPED:
    return SR_EXIT_STOPPED;
  case SR_ERR_UNFINISHED:
    return SR_EXIT_UNFINISHED;
  case SR_ERR_UNSOUND:
    return SR_EXIT_UNPROVEN;
  case PETSC_ERR_FILE_WRITE:
  case PETSC_ERR_MEM:
    return SR_EXIT_RESOURCES;
  default:
    return SRErrorIsRefusal_Private(n) ? SR_EXIT_REFUSED : SR_EXIT_INTERNAL;
  }
}

PetscErrorCode SRErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  SRErrorState *st = (SRErrorState *)ctx;

  if (p == PETSC_ERROR_INITIAL) {
    int cmp = MPI_UNEQUAL;
    /* a failing allocation inside PETSc (PetscMallocAlign): Debian's PETSc 3.18 raises it with a
       code other than PETSC_ERR_MEM for sizes it cannot represent; it is out of memory all the same */
    if (fun && !strncmp(fun, "PetscMalloc", 11)) n = PETSC_ERR_MEM, mess = NULL;
    st->code  = n;
    st->brief = SRErrorIsRefusal_Private(n);
    /* raised on every rank of the world at once: the program can finalize normally */
    if (comm != MPI_COMM_NULL && comm != PETSC_COMM_SELF) MPI_Comm_compare(comm, PETSC_COMM_WORLD, &cmp);
    st->collective = cmp == MPI_IDENT || cmp == MPI_CONGRUENT;
    if (st->brief) {
      PetscMPIInt rank = 0;
      if (comm != MPI_COMM_NULL && comm != PETSC_COMM_SELF) MPI_Comm_rank(comm, &rank);
      if (rank == 0) {
        if (n == PETSC_ERR_MEM && mess && !strncmp(mess, "not enough memory", 17)) fprintf(stderr, "simreach: %s\n", mess); /* SRMemCheck's, complete */
        else if (n == PETSC_ERR_MEM && (!mess || !mess[0] || mess[0] == ' ')) fprintf(stderr, "simreach: out of memory in %s (%s:%d): the problem is too large for this machine; give fewer cells, samples or a smaller network\n", fun, file, line);
        else if (n == PETSC_ERR_MEM) fprintf(stderr, "simreach: out of memory: %s (the problem is too large for this machine)\n", mess);
        else fprintf(stderr, "simreach: %s\n", mess);
        fflush(stderr);
      }
      return n;
    }
  } else if (st->brief) return n;
  return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, NULL);
}
