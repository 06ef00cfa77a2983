/* The tubes file of `simreach closedloop -o` (format "simreach closedloop tubes 2", SPEC §13,
   §15; docs/files.md "The tubes file"): like every simreach file, written as FILE.part by rank 0
   and renamed into place, a header under its checksum and every dataset under its own, and
   validated as a whole before anything is read from it (src/reach/tubes_file.c). */
#pragma once

#include <simreach/odesplit.h>

#define SR_TUBES_FORMAT "simreach closedloop tubes 2"

typedef struct {
  const char *plant, *network, *spec; /* the file names, as given */
  const char *planted;                /* "" or the planted fault of the test executable (its option and value) */
  int         nsub;                   /* RK4 steps per period of the stored trajectory */
} SRTubesWriteInfo;

/* What a valid tubes file says (SRTubesFileValidate). */
typedef struct {
  char    verdict[32], planted[128], plant[PETSC_MAX_PATH_LEN], network[PETSC_MAX_PATH_LEN], spec[PETSC_MAX_PATH_LEN];
  int64_t n, steps, leaves, open;
} SRTubesSummary;

/* Writes out (replaced only with force; the caller checked the path before the work): the
   verdict ("PLANTED-FAULT" under a planted fault), the leaves, their tubes, the constraints and
   one simulated trajectory.  A write failure is one line, the .part and lock removed (exit 4). */
PetscErrorCode SRTubesFileWrite(MPI_Comm comm, const char out[], PetscBool force, const SRPlant *pl, const SRSpec *S, SRLoop *L, const SRSplitResult *res, const SRTubesWriteInfo *info);
/* Not collective: *is = path is an HDF5 file whose simreach_format names a tubes file (any version). */
PetscErrorCode SRTubesFileProbe(const char path[], PetscBool *is);
/* Collective: the whole file validated, refused in one line naming the file and what is wrong
   (exit 2): format, the header checksum, every dataset's shape and checksum, the leaves
   (status 0/1, inside X0, a complete bisection tree of X0, open count) and the verdict against
   them (VERIFIED: every leaf proven and the leaves cover X0; UNKNOWN: some leaf open). */
PetscErrorCode SRTubesFileValidate(MPI_Comm comm, const char path[], SRTubesSummary *sum);
