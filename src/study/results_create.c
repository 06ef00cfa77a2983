/* Creating a results file (SPEC §9, §13): every dataset of the schema is created collectively
   up front in FILE.part (contiguous, early allocation, fill values), the metadata is flushed
   once, and the file is renamed into place; afterwards only raw data is written (independent
   transfers from one rank), which never touches HDF5 metadata, so a kill -9 at any moment
   leaves a readable file. */
#include <simreach/private/results_impl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file's attributes: format and program version, the options (as given and canonical), the
   layout record and its checksum. */
static PetscErrorCode CreateAttributes_Private(hid_t f, const SRResultsLayout *lay, const char options[], const char canonical[])
{
  int64_t  rec[SR_LAYOUT_RECORD];
  uint64_t sum = SRResultsLayoutChecksum(lay, canonical);
  hsize_t  n   = SR_LAYOUT_RECORD, one = 1;
  hid_t    sp, at;

  PetscFunctionBeginUser;
  PetscCall(SRResultsWriteStringAttribute_Private(f, "simreach_format", SR_RESULTS_FORMAT));
  PetscCall(SRResultsWriteStringAttribute_Private(f, "simreach_version", SR_VERSION_STRING));
  PetscCall(SRResultsWriteStringAttribute_Private(f, "options", options));
  PetscCall(SRResultsWriteStringAttribute_Private(f, "options_canonical", canonical));
  SRResultsLayoutRecord(lay, rec);
  SRCallHDF5Id(sp, H5Screate_simple(1, &n, NULL));
  SRCallHDF5Id(at, H5Acreate2(f, "layout", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT));
  SRCallHDF5(H5Awrite(at, H5T_NATIVE_INT64, rec));
  SRCallHDF5(H5Aclose(at));
  SRCallHDF5(H5Sclose(sp));
  SRCallHDF5Id(sp, H5Screate_simple(1, &one, NULL));
  SRCallHDF5Id(at, H5Acreate2(f, "layout_checksum", H5T_STD_U64LE, sp, H5P_DEFAULT, H5P_DEFAULT));
  SRCallHDF5(H5Awrite(at, H5T_NATIVE_UINT64, &sum));
  SRCallHDF5(H5Aclose(at));
  SRCallHDF5(H5Sclose(sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Group `group` with the n datasets of its schema table, in table order; their identifiers in
   ids (left open), or closed when ids is NULL.  /runs/recheck_cells only when nfail > 0. */
static PetscErrorCode CreateGroup_Private(hid_t f, const char group[], const SRResultsSchema *table, int n, const SRResultsLayout *lay, hid_t *ids)
{
  hid_t g, d;

  PetscFunctionBeginUser;
  SRCallHDF5Id(g, H5Gcreate2(f, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  for (int q = 0; q < n; q++) {
    if (table == SRResultsSchemaRuns && q == SR_RD_RECHECK_CELLS && lay->nfail <= 0) continue;
    PetscCall(SRResultsCreateDataset_Private(g, &table[q], lay, &d));
    if (ids) ids[q] = d;
    else SRCallHDF5(H5Dclose(d));
  }
  SRCallHDF5(H5Gclose(g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The grid values (/grid/beta, tau, seed, points): raw data, one writer. */
static PetscErrorCode WriteGridValues_Private(const SRResultsLayout *lay, const hid_t gd[SR_RESULTS_NGRID])
{
  int64_t *seeds;
  double  *pts;
  hsize_t  start[2] = {0, 0}, count[2];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(lay->nseed, &seeds, 3 * lay->nruns, &pts));
  for (PetscInt i = 0; i < lay->nseed; i++) seeds[i] = lay->seed[i];
  for (PetscInt ib = 0; ib < lay->nbeta; ib++)
    for (PetscInt it = 0; it < lay->ntau; it++)
      for (PetscInt is = 0; is < lay->nseed; is++) {
        PetscInt r     = (ib * lay->ntau + it) * lay->nseed + is;
        pts[3 * r]     = lay->beta[ib];
        pts[3 * r + 1] = lay->tau[it];
        pts[3 * r + 2] = (double)lay->seed[is];
      }
  count[0] = (hsize_t)lay->nbeta;
  PetscCall(SRResultsHyperslab_Private(gd[0], H5T_NATIVE_DOUBLE, 1, start, count, (void *)lay->beta, PETSC_TRUE));
  count[0] = (hsize_t)lay->ntau;
  PetscCall(SRResultsHyperslab_Private(gd[1], H5T_NATIVE_DOUBLE, 1, start, count, (void *)lay->tau, PETSC_TRUE));
  count[0] = (hsize_t)lay->nseed;
  PetscCall(SRResultsHyperslab_Private(gd[2], H5T_NATIVE_INT64, 1, start, count, seeds, PETSC_TRUE));
  count[0] = (hsize_t)lay->nruns;
  count[1] = 3;
  PetscCall(SRResultsHyperslab_Private(gd[3], H5T_NATIVE_DOUBLE, 2, start, count, pts, PETSC_TRUE));
  PetscCall(PetscFree2(seeds, pts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CreateBody_Private(MPI_Comm comm, const char part[], const SRResultsLayout *lay, const char options[], const char canonical[], SRResults *res)
{
  hid_t       fapl, f, gd[SR_RESULTS_NGRID];
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  SRCallHDF5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  SRCallHDF5Id(fapl, SRResultsFileAccess_Private(comm));
  (*res)->file = H5Fcreate(part, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  PetscCheck((*res)->file >= 0, comm, PETSC_ERR_FILE_OPEN, "cannot create the results file %s (is the directory of -output writable?)", part);
  SRCallHDF5(H5Pclose(fapl));
  f = (*res)->file;
  PetscCall(CreateAttributes_Private(f, lay, options, canonical));
  PetscCall(CreateGroup_Private(f, "grid", SRResultsSchemaGrid, SR_RESULTS_NGRID, lay, gd));
  PetscCall(CreateGroup_Private(f, "runs", SRResultsSchemaRuns, SR_RD_COUNT, lay, NULL));
  PetscCall(CreateGroup_Private(f, "summary", SRResultsSchemaSummary, SR_RESULTS_NSUMMARY, lay, NULL));
  if (rank == 0) PetscCall(WriteGridValues_Private(lay, gd));
  for (int i = 0; i < SR_RESULTS_NGRID; i++) SRCallHDF5(H5Dclose(gd[i]));
  PetscCall(SRResultsOpenDatasets_Private(*res));
  /* The one metadata flush: afterwards only raw data changes. */
  SRCallHDF5(H5Fflush((*res)->file, H5F_SCOPE_GLOBAL));
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsCreateNew(MPI_Comm comm, const char file[], const SRResultsLayout *lay, const char options[], const char canonical[], PetscBool force, SRResults *res)
{
  char           part[PETSC_MAX_PATH_LEN];
  PetscErrorCode ierr;
  int            ok, allok, err;

  PetscFunctionBeginUser;
  /* the whole file is allocated at creation: check that it fits before writing anything */
  PetscCall(SRFileCheckSpace(comm, file, 1.01 * SRResultsFileBytes(lay) + 1048576.0));
  PetscCall(SRFileCreateExclusiveTemp(comm, file, part, sizeof(part)));
  /* the blocks really there (quotas, a disk filled since the check): else part is removed, exit 4 */
  PetscCall(SRFileReserve(comm, part, file, SRResultsFileBytes(lay)));
  PetscCall(SRResultsAlloc_Private(comm, res));
  (*res)->lay   = *lay;
  (*res)->write = PETSC_TRUE;
  PetscCall(PetscStrallocpy(canonical, &(*res)->canonical));
  PetscCall(PetscStrallocpy(file, &(*res)->filename));
  /* a failure (disk full, I/O error) removes the partial file and says why, naming the file */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  errno = 0;
  ierr  = CreateBody_Private(comm, part, lay, options, canonical, res);
  err   = errno;
  PetscCall(PetscPopErrorHandler());
  ok = !ierr;
  PetscCallMPI(MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm));
  if (!allok) {
    char        msg[PETSC_MAX_PATH_LEN * 2] = "";
    const char *text;
    char       *specific = NULL;
    (void)SRResultsCloseDatasets_Private(*res);
    if ((*res)->file >= 0) SRFileH5CloseBroken((*res)->file); /* every object it left open first: H5Fclose of an MPI-IO file fails with one open */
    (*res)->file = -1;
    PetscCall(SRFileRemove(comm, part));
    if ((*res)->rank == 0) {
      SRFileWriteFailureReason(file, err, msg, sizeof(msg));
      if (ierr && !PetscErrorMessage(ierr, &text, &specific) && specific && !strstr(msg, "full")) {
        PetscCall(PetscStrlcat(msg, " (", sizeof(msg)));
        PetscCall(PetscStrlcat(msg, specific, sizeof(msg)));
        PetscCall(PetscStrlcat(msg, ")", sizeof(msg)));
      }
    }
    PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, comm));
    PetscCall(PetscFree((*res)->canonical));
    PetscCall(PetscFree((*res)->filename));
    PetscCall(PetscFree(*res));
    SETERRQ(comm, PETSC_ERR_FILE_WRITE, "cannot create the results file %s: %s; the partial file %s was removed", file, msg, part);
  }
  PetscCall(SRFileCommit(comm, part, file, force));
  PetscFunctionReturn(PETSC_SUCCESS);
}
