/* Validating a results file (SPEC §13): SRResultsOpen refuses a file of another format version
   (naming it), a file whose layout record fails its checksum, and one whose datasets' shapes do
   not follow from the record (a flipped bit in the HDF5 header); SRResultsCheckRun says what of
   a run -resume and gather may trust, from the rows that pass their checksums. */
#include <simreach/private/results_impl.h>
#include <string.h>
#include <unistd.h>

/* Reads one /grid dataset of at most SR_RESULTS_MAX_LIST values. */
static PetscErrorCode ReadGrid_Private(SRResults res, const char name[], hid_t memtype, void *buf, PetscInt *n)
{
  hid_t   d;
  hsize_t dims[1], start[1] = {0};

  PetscFunctionBeginUser;
  SRCallHDF5Id(d, H5Dopen2(res->file, name, H5P_DEFAULT));
  PetscCall(SRResultsDims_Private(d, 1, dims));
  PetscCheck(dims[0] >= 1 && dims[0] <= SR_RESULTS_MAX_LIST, res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: %s has %llu values, allowed are 1 to %d (the file is damaged); it was left untouched", res->filename, name, (unsigned long long)dims[0], SR_RESULTS_MAX_LIST);
  *n = (PetscInt)dims[0];
  PetscCall(SRResultsHyperslab_Private(d, memtype, 1, start, dims, buf, PETSC_FALSE));
  SRCallHDF5(H5Dclose(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The layout from the checksummed `layout` record; the grid must agree with it. */
static PetscErrorCode ReadLayoutRecord_Private(SRResults res)
{
  SRResultsLayout *lay = &res->lay;
  int64_t          seeds[SR_RESULTS_MAX_LIST], rec[SR_LAYOUT_RECORD];
  uint64_t         sum = 0;
  int              found, found2;
  PetscInt         n[3];
  const hid_t      rc = res->d[SR_RD_RECHECK_CELLS];

  PetscFunctionBeginUser;
  PetscCall(ReadGrid_Private(res, "/grid/beta", H5T_NATIVE_DOUBLE, lay->beta, &n[0]));
  PetscCall(ReadGrid_Private(res, "/grid/tau", H5T_NATIVE_DOUBLE, lay->tau, &n[1]));
  PetscCall(ReadGrid_Private(res, "/grid/seed", H5T_NATIVE_INT64, seeds, &n[2]));
  PetscCall(SRResultsReadNumericAttribute_Private(res->file, "layout", H5T_NATIVE_INT64, SR_LAYOUT_RECORD, rec, &found));
  PetscCall(SRResultsReadNumericAttribute_Private(res->file, "layout_checksum", H5T_NATIVE_UINT64, 1, &sum, &found2));
  PetscCheck(found && found2, res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: the attributes layout and layout_checksum are missing (the file is damaged); it was left untouched", res->filename);
  for (int i = 0; i < SR_LAYOUT_RECORD; i++) PetscCheck(rec[i] >= 0 && rec[i] <= PETSC_MAX_INT, res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: layout entry %d is %lld (the file is damaged); it was left untouched", res->filename, i, (long long)rec[i]);
  SRResultsLayoutFromRecord(rec, lay);
  PetscCheck((lay->nfail > 0) == (rc >= 0), res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: /runs/recheck_cells %s, the layout record says %" PetscInt_FMT " failure records per row (the file is damaged); it was left untouched", res->filename, rc >= 0 ? "exists" : "is missing", lay->nfail);
  PetscCheck(n[0] == lay->nbeta && n[1] == lay->ntau && n[2] == lay->nseed, res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: /grid has %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " values, the layout record says %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " (the file is damaged); it was left untouched", res->filename, n[0], n[1], n[2], lay->nbeta, lay->ntau, lay->nseed);
  for (PetscInt i = 0; i < lay->nseed; i++) lay->seed[i] = (PetscInt)seeds[i];
  PetscCheck(SRResultsLayoutChecksum(lay, res->canonical) == sum, res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: the layout record, the grid or the options text fails its checksum (the file is damaged); it was left untouched", res->filename);
  lay->nruns = lay->nbeta * lay->ntau * lay->nseed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every /runs dataset's shape must be the one the schema gives for the layout record (a
   flipped bit in a dimension is refused, not trusted). */
static PetscErrorCode CheckShapes_Private(SRResults res)
{
  PetscFunctionBeginUser;
  for (int q = 0; q < SR_RD_COUNT; q++) {
    const SRResultsSchema *s = &SRResultsSchemaRuns[q];
    hid_t                  space;
    int                    rank;
    hsize_t                dims[3] = {0, 0, 0}, want[3];
    if (res->d[q] < 0) continue; /* an optional dataset the file does not have */
    SRResultsSchemaShape(s, &res->lay, want);
    SRCallHDF5Id(space, H5Dget_space(res->d[q]));
    rank = H5Sget_simple_extent_ndims(space);
    if (rank >= 1 && rank <= 3) SRCallHDF5(H5Sget_simple_extent_dims(space, dims, NULL));
    SRCallHDF5(H5Sclose(space));
    PetscCheck(rank == s->rank && dims[0] == want[0] && dims[1] == want[1] && dims[2] == want[2], res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: /runs/%s has shape [%llu %llu %llu] (rank %d), the layout record of the file says [%llu %llu %llu] (the file is damaged); it was left untouched", res->filename, s->name,
               (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)dims[2], rank, (unsigned long long)want[0], (unsigned long long)want[1], (unsigned long long)want[2]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "simreach-results-<version>": another version is refused by name; *known = the file states
   a simreach results format at all. */
static PetscErrorCode CheckFormat_Private(MPI_Comm comm, SRResults res, const char file[], int *known)
{
  const size_t np     = strlen(SR_RESULTS_FORMAT_NAME "-");
  char         fmt[128] = "";
  char        *format = NULL;

  PetscFunctionBeginUser;
  if (res->file >= 0) PetscCall(SRResultsReadStringAttribute_Private(res->file, "simreach_format", &format));
  if (format && !strncmp(format, SR_RESULTS_FORMAT_NAME "-", np)) PetscCall(PetscStrncpy(fmt, format, sizeof(fmt)));
  PetscCallMPI(MPI_Bcast(fmt, sizeof(fmt), MPI_CHAR, 0, comm));
  PetscCall(PetscFree(format));
  PetscCheck(!fmt[0] || !strcmp(fmt, SR_RESULTS_FORMAT), comm, PETSC_ERR_FILE_UNEXPECTED, "%s has results format version %s (%s); this simreach %s reads version %d (%s) only; it was left untouched", file, fmt + np, fmt, SR_VERSION_STRING, SR_RESULTS_FORMAT_VERSION, SR_RESULTS_FORMAT);
  *known = fmt[0] != 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A file written by an interrupted creation or another version may lack datasets: those the
   schema marks as needed must be there. */
static PetscErrorCode CheckNeeded_Private(MPI_Comm comm, SRResults res, const char file[])
{
  char path[PETSC_MAX_PATH_LEN];
  int  ok = 1, allok;

  PetscFunctionBeginUser;
  for (int q = 0; q < SR_RD_COUNT; q++) {
    if (!SRResultsSchemaRuns[q].need) continue;
    PetscCall(PetscSNPrintf(path, sizeof(path), "/runs/%s", SRResultsSchemaRuns[q].name));
    ok = ok && H5Lexists(res->file, path, H5P_DEFAULT) > 0;
  }
  for (int q = 0; q < SR_RESULTS_NGRID; q++) {
    if (!SRResultsSchemaGrid[q].need) continue;
    PetscCall(PetscSNPrintf(path, sizeof(path), "/grid/%s", SRResultsSchemaGrid[q].name));
    ok = ok && H5Lexists(res->file, path, H5P_DEFAULT) > 0;
  }
  PetscCallMPI(MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm));
  PetscCheck(allok, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: datasets of format %s are missing (the file is damaged); it was left untouched", file, SR_RESULTS_FORMAT);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsOpen(MPI_Comm comm, const char file[], PetscBool write, SRResults *res)
{
  hid_t       fapl;
  PetscMPIInt rank;
  int         ok = 1, allok;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) ok = access(file, write ? (R_OK | W_OK) : R_OK) == 0;
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_OPEN, "results file %s does not exist or is not %s", file, write ? "readable and writable" : "readable");
  if (write) PetscCall(SRFileCheckRewrite(comm, file)); /* -resume past ulimit -f: refused here, not mid-run (issue 34) */
  SRCallHDF5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  SRCallHDF5Id(fapl, SRResultsFileAccess_Private(comm));
  PetscCall(SRResultsAlloc_Private(comm, res));
  (*res)->write = write;
  (*res)->file  = H5Fopen(file, write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
  SRCallHDF5(H5Pclose(fapl));
  ok = (*res)->file >= 0;
  PetscCallMPI(MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm));
  PetscCheck(allok, comm, PETSC_ERR_FILE_UNEXPECTED, "%s is not a readable HDF5 file (it was left untouched)", file);
  PetscCall(PetscStrallocpy(file, &(*res)->filename));
  PetscCall(CheckFormat_Private(comm, *res, file, &ok));
  if (ok) ok = H5Lexists((*res)->file, "runs", H5P_DEFAULT) > 0 && H5Lexists((*res)->file, "grid", H5P_DEFAULT) > 0 && H5Lexists((*res)->file, "summary", H5P_DEFAULT) > 0;
  PetscCallMPI(MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm));
  PetscCheck(allok, comm, PETSC_ERR_FILE_UNEXPECTED, "%s is an HDF5 file but not a simreach results file (no attribute simreach_format = %s); it was left untouched", file, SR_RESULTS_FORMAT);
  PetscCall(SRResultsReadStringAttribute_Private((*res)->file, "options_canonical", &(*res)->canonical));
  PetscCheck((*res)->canonical, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: attribute options_canonical is missing", file);
  PetscCall(CheckNeeded_Private(comm, *res, file));
  PetscCall(SRResultsOpenDatasets_Private(*res));
  PetscCall(ReadLayoutRecord_Private(*res));
  PetscCall(CheckShapes_Private(*res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The network of every checkpoint row (verify -from reads them): a failing one makes its row
   bad (valid[j] false) and counts in *nbad. */
static PetscErrorCode CheckCheckpointNetworks_Private(SRResults res, PetscInt r, PetscBool warn, PetscBool *valid, PetscInt *nbad)
{
  const SRResultsLayout *lay = &res->lay;
  const PetscInt         nr  = lay->nrows;
  double                *net;
  uint64_t              *sums;
  hsize_t                start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)nr, 0};

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(lay->nparams + 1, &net, nr, &sums));
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_NETWORK_CHECKPOINTS_CHECKSUM], H5T_NATIVE_UINT64, 2, start, count, sums, PETSC_FALSE));
  for (PetscInt j = 0; j < nr; j++) {
    hsize_t st3[3] = {(hsize_t)r, (hsize_t)j, 0}, ct3[3] = {1, 1, (hsize_t)lay->nparams};
    if (!sums[j]) continue; /* never written: the checkpoint row decides */
    PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_NETWORK_CHECKPOINTS], H5T_NATIVE_DOUBLE, 3, st3, ct3, net, PETSC_FALSE));
    if (sums[j] != SRResultsRowSum_Private("network_checkpoints", r, j, net, sizeof(double) * (size_t)lay->nparams)) {
      (*nbad)++;
      valid[j] = PETSC_FALSE;
      SRResultsWarn_Private(res, warn, r, "/runs/network_checkpoints", j);
    }
  }
  PetscCall(PetscFree2(net, sums));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The initial (abok[0]) and final (abok[1]) abstraction rows: their checksums hold. */
static PetscErrorCode CheckAbstractions_Private(SRResults res, PetscInt r, PetscBool warn, PetscBool abok[2], PetscInt *nbad)
{
  const SRResultsLayout *lay = &res->lay;
  double                *net, *theta;
  int64_t               *boxes;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(lay->nparams + 1, &net, lay->ntheta + 1, &theta, lay->K * lay->ncap + 1, &boxes));
  for (int q = 0; q < 2; q++) {
    uint64_t want, got;
    PetscCall(SRResultsSum_Private(res->d[SR_RD_ABSTRACTION_CHECKSUM], 2, r, q, &want, PETSC_FALSE));
    PetscCall(SRResultsAbstraction_Private(res, r, q == 0, net, theta, boxes, PETSC_FALSE, &got));
    abok[q] = want == got;
    if (want && !abok[q]) {
      (*nbad)++;
      SRResultsWarn_Private(res, warn, r, q ? "/runs/network, cells, successor lists (final)" : "/runs/cells_initial, successor lists (initial)", r);
    }
  }
  PetscCall(PetscFree3(net, theta, boxes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The restart point: the last good checkpoint c with a good state in slot c mod 2 and good
   rows 1..c; c is L (the resume index, or, if the index is bad, the last good row) or one
   before it (the other slot). */
static PetscErrorCode RestartPoint_Private(SRResults res, PetscInt r, PetscBool warn, PetscInt L, const PetscBool *valid, PetscBool initial_ok, SRResultsRunCheck *chk)
{
  const SRResultsLayout *lay = &res->lay;
  double                *d;
  PetscInt              *iv;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(lay->ndstate + 1, &d, lay->nistate + 1, &iv));
  chk->restart = -1;
  chk->slot    = -1;
  for (PetscInt c = L; c >= PetscMax(L - 1, 1) && chk->restart < 0; c--) {
    PetscBool rows = PETSC_TRUE, ok;
    for (PetscInt j = 1; j <= c; j++) rows = rows && valid[j];
    if (!rows || !initial_ok) continue;
    /* the state's first integer is the checkpoint it follows (the study's convention): a good
       slot still holding checkpoint c - 2 is not checkpoint c */
    PetscCall(SRResultsReadStateChecked_Private(res, r, c % 2, d, iv, &ok));
    if (ok && lay->nistate > 0 && iv[0] != c) continue;
    if (!ok) {
      uint64_t s;
      PetscCall(SRResultsSum_Private(res->d[SR_RD_STATE_CHECKSUM], 2, r, c % 2, &s, PETSC_FALSE));
      /* a written slot that fails (not one that held the other checkpoint) */
      if (s && c == L) SRResultsWarn_Private(res, warn, r, "/runs/state_double + state_int slot", c % 2);
      continue;
    }
    chk->restart = c;
    chk->slot    = c % 2;
  }
  PetscCall(PetscFree2(d, iv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsCheckRun(SRResults res, PetscInt r, PetscBool warn, SRResultsRunCheck *chk)
{
  const PetscInt nr = res->lay.nrows;
  PetscInt       last, slot, L = -1, nbad;
  PetscBool      stok, rsok, *valid, abok[2], allrows = PETSC_TRUE;
  double        *table;
  uint64_t       s0, s1;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(chk, sizeof(*chk)));
  PetscCall(SRResultsRunInfo_Private(res, r, warn, &chk->status, &last, &slot, &stok, &rsok));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_STATUS_CHECKSUM], 1, r, 0, &s0, PETSC_FALSE));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_RESUME_CHECKSUM], 1, r, 0, &s1, PETSC_FALSE));
  chk->nbad += (s0 && !stok) + (s1 && !rsok);
  PetscCall(PetscMalloc2(nr * SR_CHECKPOINT_NFIELDS, &table, nr, &valid));
  PetscCall(SRResultsCheckpoints_Private(res, r, warn, table, valid, &nbad));
  chk->nbad += nbad;
  PetscCall(CheckCheckpointNetworks_Private(res, r, warn, valid, &chk->nbad));
  PetscCall(CheckAbstractions_Private(res, r, warn, abok, &chk->nbad));
  if (rsok) L = last;
  else
    for (PetscInt j = 1; j < nr; j++)
      if (valid[j]) L = j;
  PetscCall(RestartPoint_Private(res, r, warn, L, valid, abok[0], chk));
  for (PetscInt j = 1; j <= L; j++) allrows = allrows && valid[j];
  chk->finished = (PetscBool)(stok && (chk->status == SR_RUN_DONE || chk->status == SR_RUN_DIVERGED) && chk->nbad == 0 && abok[0] && abok[1] && allrows && (chk->status == SR_RUN_DIVERGED || (rsok && last == nr - 1)));
  PetscCall(PetscFree2(table, valid));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Can the gather store its summary in this file (SPEC §9, §13)?  A file written by an older
   simreach of the same format version may carry a /summary of other shapes (fewer summary
   columns): gather -control refuses it in one line, before any
   work, instead of failing inside an HDF5 write.  Collective. */
PetscErrorCode SRResultsCheckSummaryShapes(SRResults res)
{
  char msg[512] = "";
  int  bad = 0, anybad;

  PetscFunctionBeginUser;
  for (int q = 0; q < SR_RESULTS_NSUMMARY && !bad; q++) {
    const SRResultsSchema *s = &SRResultsSchemaSummary[q];
    char                   path[64];
    hsize_t                dims[3] = {0, 0, 0}, want[3];
    hid_t                  d, space;
    int                    rank = -1;
    SRResultsSchemaShape(s, &res->lay, want);
    PetscCall(PetscSNPrintf(path, sizeof(path), "/summary/%s", s->name));
    d = H5Lexists(res->file, path, H5P_DEFAULT) > 0 ? H5Dopen2(res->file, path, H5P_DEFAULT) : -1;
    if (d >= 0) {
      space = H5Dget_space(d);
      rank  = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
      if (rank >= 1 && rank <= 3) H5Sget_simple_extent_dims(space, dims, NULL);
      if (space >= 0) H5Sclose(space);
      H5Dclose(d);
    }
    bad = !(rank == s->rank && dims[0] == want[0] && (rank < 2 || dims[1] == want[1]) && (rank < 3 || dims[2] == want[2]));
    if (bad && rank == 3 && s->columns && !strcmp(s->columns, SR_COLUMNS_SUMMARY))
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: /summary/table has %llu columns, this simreach %s writes %d (the file was written by an older simreach): gather -control cannot store its verdict there; gather it without -control, or rerun the study into a new file", res->filename, (unsigned long long)dims[2], SR_VERSION_STRING, SR_SUMMARY_NCOLS));
    else if (bad)
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s: %s %s, this simreach %s writes shape [%llu %llu %llu] (the file was written by an older simreach or is damaged): gather -control cannot store its verdict there; gather it without -control, or rerun the study into a new file", res->filename, path, d >= 0 ? "has another shape" : "is missing", SR_VERSION_STRING, (unsigned long long)want[0], (unsigned long long)want[1], (unsigned long long)want[2]));
  }
  PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, res->comm));
  PetscCheck(!anybad, res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s", msg[0] ? msg : "the results file's /summary has another shape on some rank");
  PetscFunctionReturn(PETSC_SUCCESS);
}
