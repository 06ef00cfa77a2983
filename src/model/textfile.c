/* A text file read by rank 0 and broadcast (include/simreach/private/textfile.h). */
#include <simreach/private/linescan.h>
#include <simreach/private/textfile.h>

#include <stdlib.h>
#include <string.h>

PetscErrorCode SRTextFileReadBroadcast(MPI_Comm comm, const char path[], long max, const char maxname[], const char option[], const char what[], char **textp)
{
  static const char *const types[] = {"a directory", "a FIFO", "a character device", "a block device", "a socket", "not a regular file"};
  PetscMPIInt              rank;
  long                     len  = -1;
  char                    *text = NULL;
  bool                     nul;

  PetscFunctionBeginUser;
  *textp = NULL;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    const char *type;
    len = SRScanReadFile(path, max, &text, &type);
    if (len == -3) /* -3 - k: the k-th type */
      for (int k = 0; k < 6; k++)
        if (!strcmp(type, types[k])) len = -3 - k;
  }
  PetscCallMPI(MPI_Bcast(&len, 1, MPI_LONG, 0, comm));
  PetscCheck(len > -3, comm, PETSC_ERR_FILE_OPEN, "%s %s: %s%s; give a regular file", option, path, len == -8 ? "" : "is ", types[-3 - len < 6 && -3 - len >= 0 ? -3 - len : 5]);
  PetscCheck(len != -2, comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: larger than %s", what, path, maxname);
  PetscCheck(len >= 0, comm, PETSC_ERR_FILE_OPEN, "%s %s: cannot read the file", option, path);
  PetscCheck(len < INT_MAX, comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: too large to broadcast", what, path);
  if (rank != 0) PetscCheck(text = malloc((size_t)len + 1), PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory");
  PetscCallMPI(MPI_Bcast(text, (int)len + 1, MPI_CHAR, 0, comm));
  nul = strlen(text) != (size_t)len;
  if (nul) free(text);
  PetscCheck(!nul, comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: contains a NUL byte (not a text file?)", what, path);
  *textp = text;
  PetscFunctionReturn(PETSC_SUCCESS);
}
