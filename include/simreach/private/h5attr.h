/* Small HDF5 helpers (the checked-call macros and attribute helpers) shared by the file formats of src/abstraction/abstraction_file.c,
   src/model/network_file.c and src/graph/closedloop_file.c.  Not collective; a failing HDF5 call is
   PETSC_ERR_LIB (SRCallHDF5), a missing or malformed attribute PETSC_ERR_FILE_UNEXPECTED. */
#pragma once

#include <simreach/base.h>
#include <hdf5.h>

/* Check an HDF5 return code (negative = failure). */
#define SRCallHDF5(...) \
  do { \
    if ((__VA_ARGS__) < 0) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "HDF5 call failed: %s", #__VA_ARGS__); \
  } while (0)
/* Assign an HDF5 identifier and check it. */
#define SRCallHDF5Id(id, ...) \
  do { \
    (id) = (__VA_ARGS__); \
    if ((id) < 0) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "HDF5 call failed: %s", #__VA_ARGS__); \
  } while (0)

/* A fixed-length string attribute (scalar dataspace). */
PetscErrorCode SRH5AttrWriteString(hid_t o, const char name[], const char value[]);
/* A numeric attribute of len values of the native type; len 0: a scalar dataspace. */
PetscErrorCode SRH5AttrWrite(hid_t o, const char name[], hid_t type, hsize_t len, const void *v);
/* Reads the numeric attribute name of object o: exactly len values (a scalar counts as one) of
   type into v.  Refused on comm (exit 2) as "<kind> <path>: attribute '<name>' missing<hint>" or
   "... has N values, expected len"; path may be NULL (kind then names the file). */
PetscErrorCode SRH5AttrRead(MPI_Comm comm, hid_t o, const char kind[], const char path[], const char name[], const char hint[], hid_t type, hsize_t len, void *v);
/* Reads the string attribute name of object o into value (len bytes) of the file path, a
   `kind` ("abstraction file", "network file"); a missing attribute is refused as
   "<kind> <path>: attribute '<name>' missing<hint>".  strict: it must also be a fixed-length
   string (else refused, naming it). */
PetscErrorCode SRH5AttrReadString(hid_t o, const char kind[], const char path[], const char name[], const char hint[], PetscBool strict, char value[], size_t len);

/* The format check of every simreach file kind (SPEC §13; src/io/h5format.c), on comm: the
   attribute simreach_format of f must name one of known[] (NULL-terminated; *version = its
   index, may be NULL); one of old[] (NULL-terminated, may be NULL) is refused by name with
   oldhint ("written before ... carried checksums"), anything else too, naming what is read. */
PetscErrorCode SRH5FormatCheck(MPI_Comm comm, hid_t f, const char kind[], const char path[], const char *const known[], const char *const old[], const char oldhint[], PetscInt *version);
/* Collective on comm: a file that starts as HDF5 but is shorter than its superblock's end-of-file
   address is refused in one line as truncated ("<path> is truncated: N of the M bytes ..."),
   before any reader calls it "not an HDF5 file" or a file of another kind (issue 34).  Any other
   file passes (its reader judges it). */
PetscErrorCode SRH5CheckTruncated(MPI_Comm comm, const char path[]);
/* Not collective: *is = path is an HDF5 file whose simreach_format is one of known[]. */
PetscErrorCode SRH5FormatProbe(const char path[], const char *const known[], PetscBool *is);
/* A whole dataset written at once (rank dims) with its checksum as attribute "checksum":
   SRChecksum64 of its bytes from SRChecksumSeed(name, 0, 0) (the abstraction file's rule). */
PetscErrorCode SRH5DatasetWriteSummed(hid_t g, const char name[], hid_t type, int rank, const hsize_t *dims, const void *buf);
/* Reads dataset name of g (shown as `shown` in messages) of exactly rank dims into buf and,
   with summed, checks its checksum attribute; refused on comm as "<kind> <path>: dataset
   <shown> ..." naming what is wrong (missing, shape, no checksum, checksum failed). */
PetscErrorCode SRH5DatasetReadChecked(MPI_Comm comm, hid_t g, const char kind[], const char path[], const char name[], const char shown[], hid_t type, int rank, const hsize_t *dims, PetscBool summed, void *buf);
