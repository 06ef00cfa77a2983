/* Shared counters for the study's dynamic schedule (SPEC §9): MPI-3 passive-target atomics
   (MPI_Fetch_and_op) on a window whose memory lives on rank 0 of the communicator, so any
   rank takes the next grid point without a rank that only dispatches. */
#pragma once

#include <simreach/base.h>

typedef struct _p_SRCounter *SRCounter;

/* Collective on comm: nwords counters, all 0. */
PetscErrorCode SRCounterCreate(MPI_Comm comm, PetscInt nwords, SRCounter *ctr);
/* Not collective: atomically *old = word; word += add.  add = 0 just reads. */
PetscErrorCode SRCounterFetchAdd(SRCounter ctr, PetscInt word, int64_t add, int64_t *old);
PetscErrorCode SRCounterDestroy(SRCounter *ctr); /* collective */
