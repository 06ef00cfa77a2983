/* The results-file object (SPEC §9, §13): allocation, the /runs datasets opened and closed
   from the schema, Destroy and the getters. */
#include <simreach/private/results_impl.h>

PetscErrorCode SRResultsAlloc_Private(MPI_Comm comm, SRResults *res)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(res));
  (*res)->comm    = comm;
  (*res)->file    = -1;
  (*res)->strtype = -1;
  for (int q = 0; q < SR_RD_COUNT; q++) (*res)->d[q] = -1;
  PetscCallMPI(MPI_Comm_rank(comm, &(*res)->rank));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Opens every /runs dataset of the schema; an optional one the file lacks stays -1 (the final
   enclosures only with their checksum). */
PetscErrorCode SRResultsOpenDatasets_Private(SRResults res)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  for (int q = 0; q < SR_RD_COUNT; q++) {
    const PetscBool optional = (PetscBool)(q == SR_RD_RECHECK_CELLS || q == SR_RD_ENCLOSURES || q == SR_RD_ENCLOSURES_CHECKSUM);
    PetscCall(PetscSNPrintf(path, sizeof(path), "/runs/%s", SRResultsSchemaRuns[q].name));
    if (optional && H5Lexists(res->file, path, H5P_DEFAULT) <= 0) continue;
    SRCallHDF5Id(res->d[q], H5Dopen2(res->file, path, H5P_DEFAULT));
  }
  if ((res->d[SR_RD_ENCLOSURES] < 0) != (res->d[SR_RD_ENCLOSURES_CHECKSUM] < 0)) {
    for (int q = SR_RD_ENCLOSURES; q <= SR_RD_ENCLOSURES_CHECKSUM; q++) {
      if (res->d[q] >= 0) SRCallHDF5(H5Dclose(res->d[q]));
      res->d[q] = -1;
    }
  }
  SRCallHDF5Id(res->strtype, H5Tcopy(H5T_C_S1));
  SRCallHDF5(H5Tset_size(res->strtype, SR_RESULTS_REASON_LEN));
  SRCallHDF5(H5Tset_strpad(res->strtype, H5T_STR_NULLTERM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsCloseDatasets_Private(SRResults res)
{
  PetscFunctionBeginUser;
  for (int q = 0; q < SR_RD_COUNT; q++) {
    if (res->d[q] > 0) SRCallHDF5(H5Dclose(res->d[q]));
    res->d[q] = -1;
  }
  if (res->strtype > 0) SRCallHDF5(H5Tclose(res->strtype));
  res->strtype = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsDestroy(SRResults *res)
{
  PetscFunctionBeginUser;
  if (!*res) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SRResultsCloseDatasets_Private(*res));
  if ((*res)->file >= 0) SRCallHDF5(H5Fclose((*res)->file));
  PetscCall(PetscFree((*res)->canonical));
  PetscCall(PetscFree((*res)->filename));
  PetscCall(PetscFree(*res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsGetLayout(SRResults res, const SRResultsLayout **lay)
{
  PetscFunctionBeginUser;
  *lay = &res->lay;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsGetCanonicalOptions(SRResults res, const char **canonical)
{
  PetscFunctionBeginUser;
  *canonical = res->canonical;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsGetFileName(SRResults res, const char **file)
{
  PetscFunctionBeginUser;
  *file = res->filename;
  PetscFunctionReturn(PETSC_SUCCESS);
}
