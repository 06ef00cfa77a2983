/* SRCounter: the study's atomic ticket counter (SPEC §9), MPI-3 passive target. */
#include <simreach/private/study_counter.h>

struct _p_SRCounter {
  MPI_Comm comm;
  MPI_Win  win;
  int64_t *base;
  PetscInt nwords;
};

PetscErrorCode SRCounterCreate(MPI_Comm comm, PetscInt nwords, SRCounter *ctr)
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscNew(ctr));
  (*ctr)->comm   = comm;
  (*ctr)->nwords = nwords;
  PetscCallMPI(MPI_Win_allocate(rank == 0 ? (MPI_Aint)nwords * (MPI_Aint)sizeof(int64_t) : 0, sizeof(int64_t), MPI_INFO_NULL, comm, &(*ctr)->base, &(*ctr)->win));
  if (rank == 0) {
    PetscCallMPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, (*ctr)->win));
    for (PetscInt i = 0; i < nwords; i++) (*ctr)->base[i] = 0;
    PetscCallMPI(MPI_Win_unlock(0, (*ctr)->win));
  }
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRCounterFetchAdd(SRCounter ctr, PetscInt word, int64_t add, int64_t *old)
{
  int64_t a = add;

  PetscFunctionBeginUser;
  PetscCheck(word >= 0 && word < ctr->nwords, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "counter word %" PetscInt_FMT " outside 0..%" PetscInt_FMT, word, ctr->nwords - 1);
  PetscCallMPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, ctr->win));
  PetscCallMPI(MPI_Fetch_and_op(&a, old, MPI_INT64_T, 0, (MPI_Aint)word, add ? MPI_SUM : MPI_NO_OP, ctr->win));
  PetscCallMPI(MPI_Win_unlock(0, ctr->win));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRCounterDestroy(SRCounter *ctr)
{
  PetscFunctionBeginUser;
  if (!*ctr) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Win_free(&(*ctr)->win));
  PetscCall(PetscFree(*ctr));
  PetscFunctionReturn(PETSC_SUCCESS);
}
