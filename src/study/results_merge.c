/* Merging results files (SPEC §9, §13): the -grid_slice parts of one study become one file,
   every run copied row by row (with its checksums) from a slice that finished it. */
#include <simreach/private/results_impl.h>
#include <simreach/private/filelock.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Copy every per-run dataset row of run r (independent; one rank); an optional dataset that
   only one of the files has is skipped. */
PetscErrorCode SRResultsCopyRun(SRResults from, SRResults to, PetscInt r)
{
  PetscFunctionBeginUser;
  for (int q = 0; q < SR_RD_COUNT; q++) {
    hid_t       space, ftype, mtype;
    int         rank;
    hsize_t     dims[3], start[3] = {(hsize_t)r, 0, 0}, count[3];
    size_t      size, n = 1;
    void       *buf;
    const hid_t from_d = from->d[q], to_d = to->d[q];
    if (from_d < 0 || to_d < 0) continue;
    SRCallHDF5Id(space, H5Dget_space(from_d));
    SRCallHDF5Id(rank, H5Sget_simple_extent_ndims(space));
    PetscCheck(rank >= 1 && rank <= 3, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "results file: unexpected dataset rank %d", rank);
    SRCallHDF5(H5Sget_simple_extent_dims(space, dims, NULL));
    SRCallHDF5(H5Sclose(space));
    count[0] = 1;
    for (int d = 1; d < rank; d++) n *= (count[d] = dims[d]);
    SRCallHDF5Id(ftype, H5Dget_type(from_d));
    SRCallHDF5Id(mtype, H5Tget_native_type(ftype, H5T_DIR_ASCEND));
    size = H5Tget_size(mtype);
    PetscCall(PetscMalloc(n * size + 1, &buf));
    PetscCall(SRResultsHyperslab_Private(from_d, mtype, rank, start, count, buf, PETSC_FALSE));
    PetscCall(SRResultsHyperslab_Private(to_d, mtype, rank, start, count, buf, PETSC_TRUE));
    PetscCall(PetscFree(buf));
    SRCallHDF5(H5Tclose(mtype));
    SRCallHDF5(H5Tclose(ftype));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRGatherMerge(MPI_Comm comm, PetscInt nfiles, char *const files[], const char output[], PetscBool force, PetscViewer viewer)
{
  SRResults             *in, out;
  const SRResultsLayout *lay, *l;
  const char            *canon0, *canon;
  char                  *options;
  PetscMPIInt            rank;
  int                    exists = 0;
  SRFileLock             lock;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(nfiles >= 1, comm, PETSC_ERR_ARG_WRONG, "-merge: give the slice files, comma-separated");
  PetscCall(SRFileLockAcquire(comm, output, &lock)); /* one writer per file (SPEC §13) */
  if (rank == 0) exists = access(output, F_OK) == 0;
  PetscCallMPI(MPI_Bcast(&exists, 1, MPI_INT, 0, comm));
  PetscCheck(!exists || force, comm, PETSC_ERR_FILE_OPEN, "-merge: the output file %s exists; give -force to overwrite it (it was left untouched)", output);
  PetscCall(PetscMalloc1(nfiles, &in));
  for (PetscInt f = 0; f < nfiles; f++) PetscCall(SRResultsOpen(comm, files[f], PETSC_FALSE, &in[f]));
  PetscCall(SRResultsGetLayout(in[0], &lay));
  PetscCall(SRResultsGetCanonicalOptions(in[0], &canon0));
  for (PetscInt f = 1; f < nfiles; f++) {
    PetscCall(SRResultsGetLayout(in[f], &l));
    PetscCall(SRResultsGetCanonicalOptions(in[f], &canon));
    PetscCheck(!strcmp(canon, canon0) && l->nruns == lay->nruns && l->nrows == lay->nrows && l->ndstate == lay->ndstate && l->nistate == lay->nistate && l->nparams == lay->nparams && l->ntheta == lay->ntheta, comm, PETSC_ERR_ARG_INCOMP,
               "-merge: %s and %s are not slices of the same study (different options)", files[0], files[f]);
  }
  /* every run from a slice that finished it */
  PetscInt *from;
  PetscCall(PetscMalloc1(lay->nruns, &from));
  for (PetscInt r = 0; r < lay->nruns; r++) {
    from[r] = -1;
    for (PetscInt f = 0; f < nfiles && from[r] < 0; f++) {
      SRResultsRunCheck chk; /* finished, and every row passes its checksum */
      PetscCall(SRResultsCheckRun(in[f], r, (PetscBool)(rank == 0), &chk));
      if (chk.finished) from[r] = f;
    }
    if (from[r] < 0) {
      char label[128]; /* C's %g */
      snprintf(label, sizeof(label), "beta %g, tau %g, seed %lld", lay->beta[r / (lay->nseed * lay->ntau)], lay->tau[(r / lay->nseed) % lay->ntau], (long long)lay->seed[r % lay->nseed]);
      SETERRQ(comm, PETSC_ERR_ARG_WRONG, "-merge: run %" PetscInt_FMT " (%s) is finished in none of the slice files; resume its slice first", r, label);
    }
  }
  PetscCall(SRResultsGetOptionsText(in[0], &options));
  PetscCall(SRResultsCreateNew(comm, output, lay, options, canon0, force, &out));
  PetscCall(PetscFree(options));
  if (rank == 0)
    for (PetscInt r = 0; r < lay->nruns; r++) PetscCall(SRResultsCopyRun(in[from[r]], out, r));
  PetscCall(PetscFree(from));
  for (PetscInt f = 0; f < nfiles; f++) PetscCall(SRResultsDestroy(&in[f]));
  PetscCall(PetscFree(in));
  PetscCall(SRResultsDestroy(&out));
  PetscCall(SRResultsOpen(comm, output, PETSC_TRUE, &out));
  PetscCall(SRGatherResults(out, PETSC_TRUE, viewer));
  PetscCall(SRResultsDestroy(&out));
  PetscCall(SRFileLockRelease(&lock));
  PetscFunctionReturn(PETSC_SUCCESS);
}
