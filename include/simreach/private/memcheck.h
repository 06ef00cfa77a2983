/* Sizes checked before any work (issue #13, SPEC §13): a problem whose arrays would not fit a
   PetscInt is refused (exit 2), one whose memory, known from the options up front, exceeds what
   this process may use is refused (exit 4) — each in one line naming the options, the value and
   the limit or the memory needed — instead of PETSc's error block from a failing allocation in
   the middle of the work.  The estimates count the large arrays only, so they are lower bounds:
   a refusal is certain, a pass is not a promise. */
#pragma once

#include <simreach/base.h>

/* Bytes this rank may still allocate: the smallest of MemAvailable (and the cgroup's remaining
   memory.max) shared by the ranks of this node, and RLIMIT_AS / RLIMIT_DATA minus what the
   process already maps.  *what names the limit ("ulimit -v", "MemAvailable", ...).
   Collective on comm (counts the ranks per node).  INFINITY when nothing is known. */
PetscErrorCode SRMemAvailable(MPI_Comm comm, double *bytes, const char **what);
/* Refuses (PETSC_ERR_ARG_OUTOFRANGE, exit 2) when an array of `entries` entries does not fit a
   PetscInt: "<options>: <array> needs <entries> entries, more than the <max> a PetscInt counts;
   <allowed>".  Collective (every rank passes the same values). */
PetscErrorCode SRSizeCheck(MPI_Comm comm, double entries, const char options[], const char array[], const char allowed[]);
/* Refuses (PETSC_ERR_MEM, exit 4) when `bytes` per rank exceed SRMemAvailable: "not enough
   memory: <options>: <what> needs at least X GB per rank; <limit> leaves Y GB". Collective. */
PetscErrorCode SRMemCheck(MPI_Comm comm, double bytes, const char options[], const char what[]);
