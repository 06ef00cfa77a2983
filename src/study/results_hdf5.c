/* HDF5 helpers of the results file (SPEC §13): datasets created from the schema, independent
   hyperslab transfers, attributes, and the row checksums with their warning. */
#include <simreach/private/results_impl.h>
#include <simreach/private/h5attr.h>
#include <stdio.h>
#include <string.h>
#include <math.h>

/* Creates dataset s of a schema in loc for a layout: contiguous, allocated early and filled with
   the schema's "never written" value, so that later writes touch no metadata (SPEC §13); with
   its `columns` attribute. */
PetscErrorCode SRResultsCreateDataset_Private(hid_t loc, const SRResultsSchema *s, const SRResultsLayout *lay, hid_t *dset)
{
  hid_t          space, dcpl, type = -1;
  hsize_t        dims[3];
  const double   nan = NAN, zero = 0.0;
  const int64_t  m1 = -1, z = 0;
  const uint64_t zsum = 0;
  const char     empty[SR_RESULTS_REASON_LEN] = "";
  const void    *fill = NULL;
  char           cols[2048];

  PetscFunctionBeginUser;
  switch (s->type) {
  case SR_RT_DOUBLE:
    type = H5T_NATIVE_DOUBLE;
    fill = s->fill == SR_FILL_NAN ? (const void *)&nan : (const void *)&zero;
    break;
  case SR_RT_INT64:
    type = H5T_NATIVE_INT64;
    fill = s->fill == SR_FILL_MINUS1 ? &m1 : &z;
    break;
  case SR_RT_UINT64:
    type = H5T_NATIVE_UINT64;
    fill = &zsum;
    break;
  case SR_RT_REASON:
    SRCallHDF5Id(type, H5Tcopy(H5T_C_S1));
    SRCallHDF5(H5Tset_size(type, SR_RESULTS_REASON_LEN));
    SRCallHDF5(H5Tset_strpad(type, H5T_STR_NULLTERM));
    fill = empty;
    break;
  }
  SRResultsSchemaShape(s, lay, dims);
  SRCallHDF5Id(space, H5Screate_simple(s->rank, dims, NULL));
  SRCallHDF5Id(dcpl, H5Pcreate(H5P_DATASET_CREATE));
  SRCallHDF5(H5Pset_layout(dcpl, H5D_CONTIGUOUS));
  SRCallHDF5(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY));
  SRCallHDF5(H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC));
  SRCallHDF5(H5Pset_fill_value(dcpl, type, fill));
  SRCallHDF5Id(*dset, H5Dcreate2(loc, s->name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
  SRCallHDF5(H5Pclose(dcpl));
  SRCallHDF5(H5Sclose(space));
  if (s->type == SR_RT_REASON) SRCallHDF5(H5Tclose(type));
  PetscCall(SRResultsSchemaColumns(s, lay, cols, sizeof(cols)));
  if (cols[0]) PetscCall(SRResultsWriteStringAttribute_Private(*dset, "columns", cols));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Independent write (or read) of the hyperslab start/count of dset from/to buf. */
PetscErrorCode SRResultsHyperslab_Private(hid_t dset, hid_t memtype, int rank, const hsize_t *start, const hsize_t *count, void *buf, PetscBool write)
{
  hid_t   fspace, mspace;
  hsize_t n = 1;

  PetscFunctionBeginUser;
  for (int d = 0; d < rank; d++) n *= count[d];
  if (n == 0) PetscFunctionReturn(PETSC_SUCCESS);
  SRCallHDF5Id(fspace, H5Dget_space(dset));
  SRCallHDF5(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL));
  SRCallHDF5Id(mspace, H5Screate_simple(1, &n, NULL));
  if (write) SRCallHDF5(H5Dwrite(dset, memtype, mspace, fspace, H5P_DEFAULT, buf));
  else SRCallHDF5(H5Dread(dset, memtype, mspace, fspace, H5P_DEFAULT, buf));
  SRCallHDF5(H5Sclose(mspace));
  SRCallHDF5(H5Sclose(fspace));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteStringAttribute_Private(hid_t loc, const char name[], const char value[])
{
  const size_t len = strlen(value) + 1;

  PetscFunctionBeginUser;
  /* Attributes live in the object header (64 KiB in the default format). */
  PetscCheck(len < 60000, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "attribute %s of the results file is %zu bytes; at most 60000 are allowed (too many options?)", name, len);
  PetscCall(SRH5AttrWriteString(loc, name, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads a string attribute into a PetscMalloc'ed buffer; *value = NULL if absent. */
PetscErrorCode SRResultsReadStringAttribute_Private(hid_t loc, const char name[], char **value)
{
  hid_t  attr, type, mtype;
  htri_t exists;
  size_t len;

  PetscFunctionBeginUser;
  *value = NULL;
  SRCallHDF5Id(exists, H5Aexists(loc, name));
  if (!exists) PetscFunctionReturn(PETSC_SUCCESS);
  SRCallHDF5Id(attr, H5Aopen(loc, name, H5P_DEFAULT));
  SRCallHDF5Id(type, H5Aget_type(attr));
  if (H5Tget_class(type) == H5T_STRING && !H5Tis_variable_str(type)) {
    len = H5Tget_size(type);
    SRCallHDF5Id(mtype, H5Tcopy(H5T_C_S1));
    SRCallHDF5(H5Tset_size(mtype, len + 1));
    SRCallHDF5(H5Tset_strpad(mtype, H5T_STR_NULLTERM));
    PetscCall(PetscCalloc1(len + 1, value));
    SRCallHDF5(H5Aread(attr, mtype, *value));
    SRCallHDF5(H5Tclose(mtype));
  } else if (H5Tget_class(type) == H5T_STRING) { /* variable length (h5py writes these) */
    hid_t space;
    char *v = NULL;
    SRCallHDF5Id(space, H5Aget_space(attr));
    if (H5Sget_simple_extent_npoints(space) == 1) {
      SRCallHDF5Id(mtype, H5Tcopy(H5T_C_S1));
      SRCallHDF5(H5Tset_size(mtype, H5T_VARIABLE));
      SRCallHDF5(H5Tset_cset(mtype, H5Tget_cset(type)));
      SRCallHDF5(H5Aread(attr, mtype, &v));
      if (v) PetscCall(PetscStrallocpy(v, value));
      if (v) H5free_memory(v);
      SRCallHDF5(H5Tclose(mtype));
    }
    SRCallHDF5(H5Sclose(space));
  }
  SRCallHDF5(H5Tclose(type));
  SRCallHDF5(H5Aclose(attr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads a 1-D numeric attribute of n elements; *found = 0 if absent or of another size. */
PetscErrorCode SRResultsReadNumericAttribute_Private(hid_t loc, const char name[], hid_t memtype, size_t n, void *buf, int *found)
{
  hid_t    attr, space;
  htri_t   exists;
  hssize_t npts;

  PetscFunctionBeginUser;
  *found = 0;
  SRCallHDF5Id(exists, H5Aexists(loc, name));
  if (!exists) PetscFunctionReturn(PETSC_SUCCESS);
  SRCallHDF5Id(attr, H5Aopen(loc, name, H5P_DEFAULT));
  SRCallHDF5Id(space, H5Aget_space(attr));
  npts = H5Sget_simple_extent_npoints(space);
  SRCallHDF5(H5Sclose(space));
  if (npts == (hssize_t)n) {
    SRCallHDF5(H5Aread(attr, memtype, buf));
    *found = 1;
  }
  SRCallHDF5(H5Aclose(attr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsDims_Private(hid_t dset, int rank, hsize_t *dims)
{
  hid_t space;
  int   r;

  PetscFunctionBeginUser;
  SRCallHDF5Id(space, H5Dget_space(dset));
  SRCallHDF5Id(r, H5Sget_simple_extent_ndims(space));
  PetscCheck(r == rank, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "results file: a dataset has rank %d, expected %d", r, rank);
  SRCallHDF5(H5Sget_simple_extent_dims(space, dims, NULL));
  SRCallHDF5(H5Sclose(space));
  PetscFunctionReturn(PETSC_SUCCESS);
}

hid_t SRResultsFileAccess_Private(MPI_Comm comm)
{
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return fapl;
  if (H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0) return -1;
  /* No sieve buffer: a raw write reaches the file when H5Dwrite returns, in program order. */
  if (H5Pset_sieve_buf_size(fapl, 0) < 0) return -1;
  return fapl;
}

PetscErrorCode SRResultsSum_Private(hid_t dset, int rank, PetscInt r, PetscInt j, uint64_t *sum, PetscBool write)
{
  hsize_t start[2] = {(hsize_t)r, (hsize_t)j}, count[2] = {1, 1};

  PetscFunctionBeginUser;
  PetscCall(SRResultsHyperslab_Private(dset, H5T_NATIVE_UINT64, rank, start, count, sum, write));
  PetscFunctionReturn(PETSC_SUCCESS);
}

uint64_t SRResultsRowSum_Private(const char tag[], PetscInt r, PetscInt j, const void *buf, size_t n) { return SRChecksum64(buf, n, SRChecksumSeed(tag, r, j)); }

void SRResultsWarn_Private(SRResults res, PetscBool warn, PetscInt r, const char what[], PetscInt row)
{
  const SRResultsLayout *lay = &res->lay;
  if (!warn) return;
  /* C's %g, as every label (PETSc's prints 0 as "0.") */
  fprintf(stderr, "simreach: warning: %s: run %lld (beta %g, tau %g, seed %lld): %s row %lld fails its checksum; it is treated as never written (the run restarts from its last good checkpoint)\n", res->filename, (long long)r, lay->beta[r / (lay->nseed * lay->ntau)], lay->tau[(r / lay->nseed) % lay->ntau], (long long)lay->seed[r % lay->nseed], what, (long long)row);
  fflush(stderr);
}
