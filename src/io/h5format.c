/* The format check and the checksummed datasets shared by every simreach file kind (SPEC §13):
   abstraction files (src/abstraction/abstraction_file.c), network files (src/model/network_file.c)
   and safety files (src/graph/closedloop_file.c).  Declared in include/simreach/private/h5attr.h. */
#define _GNU_SOURCE /* fseeko, ftello */
#include <simreach/private/h5attr.h>
#include <simreach/private/fileio.h>
#include <stdio.h>
#include <string.h>

static PetscBool SRH5InList_Private(const char *const list[], const char s[], PetscInt *at)
{
  for (PetscInt i = 0; list && list[i]; i++)
    if (!strcmp(list[i], s)) {
      if (at) *at = i;
      return PETSC_TRUE;
    }
  return PETSC_FALSE;
}

PetscErrorCode SRH5FormatCheck(MPI_Comm comm, hid_t f, const char kind[], const char path[], const char *const known[], const char *const old[], const char oldhint[], PetscInt *version)
{
  char fmt[64] = "", names[256] = "";

  PetscFunctionBeginUser;
  PetscCheck(H5Aexists(f, "simreach_format") > 0, comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: attribute 'simreach_format' missing (not a simreach %s?)", kind, path, kind);
  PetscCall(SRH5AttrReadString(f, kind, path, "simreach_format", "", PETSC_FALSE, fmt, sizeof(fmt)));
  for (PetscInt i = 0; known[i]; i++) {
    PetscCall(PetscStrlcat(names, i ? ", '" : "'", sizeof(names)));
    PetscCall(PetscStrlcat(names, known[i], sizeof(names)));
    PetscCall(PetscStrlcat(names, "'", sizeof(names)));
  }
  PetscCheck(!SRH5InList_Private(old, fmt, NULL), comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: format '%s' (%s); this simreach reads %s", kind, path, fmt, oldhint ? oldhint : "no longer read", names);
  PetscCheck(SRH5InList_Private(known, fmt, version), comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: format '%s'; this simreach reads %s", kind, path, fmt, names);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRH5FormatProbe(const char path[], const char *const known[], PetscBool *is)
{
  *is = PETSC_FALSE;
  PetscFunctionBeginUser;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  if (H5Fis_hdf5(path) > 0) {
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f >= 0) {
      char fmt[64] = "";
      if (H5Aexists(f, "simreach_format") > 0 && SRH5AttrReadString(f, "file", path, "simreach_format", "", PETSC_FALSE, fmt, sizeof(fmt)) == PETSC_SUCCESS) *is = SRH5InList_Private(known, fmt, NULL);
      H5Fclose(f);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRH5DatasetWriteSummed(hid_t g, const char name[], hid_t type, int rank, const hsize_t *dims, const void *buf)
{
  hid_t    s, d;
  size_t   nb = H5Tget_size(type);
  uint64_t sum;

  PetscFunctionBeginUser;
  for (int i = 0; i < rank; i++) nb *= (size_t)dims[i];
  sum = SRChecksum64(buf, nb, SRChecksumSeed(name, 0, 0));
  SRCallHDF5Id(s, H5Screate_simple(rank, dims, NULL));
  SRCallHDF5Id(d, H5Dcreate2(g, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  SRCallHDF5(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
  PetscCall(SRH5AttrWrite(d, "checksum", H5T_NATIVE_UINT64, 1, &sum));
  SRCallHDF5(H5Dclose(d));
  SRCallHDF5(H5Sclose(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRH5DatasetReadChecked(MPI_Comm comm, hid_t g, const char kind[], const char path[], const char name[], const char shown[], hid_t type, int rank, const hsize_t *dims, PetscBool summed, void *buf)
{
  hid_t    d, s, a;
  hsize_t  fd[4] = {0, 0, 0, 0};
  int      r, ok;
  size_t   nb = H5Tget_size(type);
  uint64_t want = 0;

  PetscFunctionBeginUser;
  ok = H5Lexists(g, name, H5P_DEFAULT) > 0;
  PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: dataset %s missing", kind, path, shown);
  SRCallHDF5Id(d, H5Dopen2(g, name, H5P_DEFAULT));
  SRCallHDF5Id(s, H5Dget_space(d));
  r = H5Sget_simple_extent_ndims(s);
  if (r >= 1 && r <= 4) SRCallHDF5(H5Sget_simple_extent_dims(s, fd, NULL));
  SRCallHDF5(H5Sclose(s));
  ok = r == rank;
  for (int i = 0; ok && i < rank; i++) ok = fd[i] == dims[i];
  if (!ok) SRCallHDF5(H5Dclose(d));
  PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: dataset %s has rank %d, extent %llu x %llu; the header says rank %d, %llu x %llu", kind, path, shown, r, (unsigned long long)fd[0], (unsigned long long)(r > 1 ? fd[1] : 1), rank, (unsigned long long)dims[0], (unsigned long long)(rank > 1 ? dims[1] : 1));
  for (int i = 0; i < rank; i++) nb *= (size_t)dims[i];
  if (nb) SRCallHDF5(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
  if (summed) {
    ok = H5Aexists(d, "checksum") > 0;
    if (ok) {
      SRCallHDF5Id(a, H5Aopen(d, "checksum", H5P_DEFAULT));
      SRCallHDF5Id(s, H5Aget_space(a));
      ok = H5Sget_simple_extent_npoints(s) == 1;
      SRCallHDF5(H5Sclose(s));
      if (ok) SRCallHDF5(H5Aread(a, H5T_NATIVE_UINT64, &want));
      SRCallHDF5(H5Aclose(a));
    }
    if (!ok) SRCallHDF5(H5Dclose(d));
    PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: dataset %s has no checksum", kind, path, shown);
  }
  SRCallHDF5(H5Dclose(d));
  PetscCheck(!summed || want == SRChecksum64(buf, nb, SRChecksumSeed(name, 0, 0)), comm, PETSC_ERR_FILE_UNEXPECTED, "%s %s: dataset %s fails its checksum (the file is damaged)", kind, path, shown);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the superblock's end of file (base + EOF address), 0 if path is no HDF5 file */
static unsigned long long H5End_Private(const char path[], unsigned long long *size)
{
  static const unsigned char sig[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  unsigned char              b[64];
  unsigned long long         at = 0, end = 0;
  FILE                      *fp = fopen(path, "rb");

  *size = 0;
  if (!fp) return 0;
  if (!fseeko(fp, 0, SEEK_END)) *size = (unsigned long long)ftello(fp);
  for (at = 0; at + sizeof b <= *size; at = at ? 2 * at : 512) { /* the signature at 0, 512, 1024, ... */
    int    v, O;
    size_t p;
    if (fseeko(fp, (off_t)at, SEEK_SET) || fread(b, 1, sizeof b, fp) != sizeof b) break;
    if (memcmp(b, sig, 8)) continue;
    v = b[8];
    O = v <= 1 ? b[13] : b[9];
    p = v == 0 ? 24 : v == 1 ? 28 : 12;
    if (O == 8 && p + 4 * 8 <= sizeof b) {
      unsigned long long base = 0, eof = 0;
      for (int i = 7; i >= 0; i--) base = base << 8 | b[p + i], eof = eof << 8 | b[p + 2 * 8 + i];
      end = base + eof;
    }
    break;
  }
  fclose(fp);
  return end;
}

PetscErrorCode SRH5CheckTruncated(MPI_Comm comm, const char path[])
{
  unsigned long long v[2] = {0, 0};
  PetscMPIInt        rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (!rank && path) v[0] = H5End_Private(path, &v[1]);
  PetscCallMPI(MPI_Bcast(v, 2, MPI_UNSIGNED_LONG_LONG, 0, comm));
  PetscCheck(!(v[0] && v[0] < 1ULL << 60 && v[1] < v[0]), comm, PETSC_ERR_FILE_UNEXPECTED, "%s is truncated: it holds %llu of the %llu bytes its HDF5 superblock records (a copy or a write cut short); nothing is answered from it", path, v[1], v[0]);
  PetscFunctionReturn(PETSC_SUCCESS);
}
