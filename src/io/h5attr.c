/* Small HDF5 attribute helpers (include/simreach/private/h5attr.h). */
#include <simreach/private/h5attr.h>
#include <string.h>

PetscErrorCode SRH5AttrWriteString(hid_t o, const char name[], const char value[])
{
  hid_t t, s, a;

  PetscFunctionBeginUser;
  SRCallHDF5Id(t, H5Tcopy(H5T_C_S1));
  SRCallHDF5(H5Tset_size(t, strlen(value) + 1));
  SRCallHDF5Id(s, H5Screate(H5S_SCALAR));
  SRCallHDF5Id(a, H5Acreate2(o, name, t, s, H5P_DEFAULT, H5P_DEFAULT));
  SRCallHDF5(H5Awrite(a, t, value));
  SRCallHDF5(H5Aclose(a));
  SRCallHDF5(H5Sclose(s));
  SRCallHDF5(H5Tclose(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRH5AttrWrite(hid_t o, const char name[], hid_t type, hsize_t len, const void *v)
{
  hid_t s, a;

  PetscFunctionBeginUser;
  if (len) SRCallHDF5Id(s, H5Screate_simple(1, &len, NULL));
  else SRCallHDF5Id(s, H5Screate(H5S_SCALAR));
  SRCallHDF5Id(a, H5Acreate2(o, name, type, s, H5P_DEFAULT, H5P_DEFAULT));
  SRCallHDF5(H5Awrite(a, type, v));
  SRCallHDF5(H5Aclose(a));
  SRCallHDF5(H5Sclose(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRH5AttrRead(MPI_Comm comm, hid_t o, const char kind[], const char path[], const char name[], const char hint[], hid_t type, hsize_t len, void *v)
{
  const char *sep = path ? " " : "", *p = path ? path : "";
  hid_t       a, s;
  hsize_t     n = 1;

  PetscFunctionBeginUser;
  PetscCheck(H5Aexists(o, name) > 0, comm, PETSC_ERR_FILE_UNEXPECTED, "%s%s%s: attribute '%s' missing%s", kind, sep, p, name, hint ? hint : "");
  SRCallHDF5Id(a, H5Aopen(o, name, H5P_DEFAULT));
  SRCallHDF5Id(s, H5Aget_space(a));
  if (H5Sget_simple_extent_ndims(s) == 1) SRCallHDF5(H5Sget_simple_extent_dims(s, &n, NULL));
  SRCallHDF5(H5Sclose(s));
  if (n != len) SRCallHDF5(H5Aclose(a));
  PetscCheck(n == len, comm, PETSC_ERR_FILE_UNEXPECTED, "%s%s%s: attribute '%s' has %llu values, expected %llu", kind, sep, p, name, (unsigned long long)n, (unsigned long long)len);
  SRCallHDF5(H5Aread(a, type, v));
  SRCallHDF5(H5Aclose(a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRH5AttrReadString(hid_t o, const char kind[], const char path[], const char name[], const char hint[], PetscBool strict, char value[], size_t len)
{
  hid_t  a, t, mt;
  size_t sz;
  char  *buf;

  PetscFunctionBeginUser;
  PetscCheck(H5Aexists(o, name) > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s %s: attribute '%s' missing%s", kind, path, name, hint);
  SRCallHDF5Id(a, H5Aopen(o, name, H5P_DEFAULT));
  SRCallHDF5Id(t, H5Aget_type(a));
  sz = H5Tget_size(t);
  if (strict) {
    PetscCheck(H5Tget_class(t) == H5T_STRING, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s %s: attribute '%s' is not a string", kind, path, name);
    PetscCheck(H5Tis_variable_str(t) <= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s %s: attribute '%s' is a variable-length string; write fixed-length strings (numpy.bytes_)", kind, path, name);
  }
  SRCallHDF5Id(mt, H5Tcopy(H5T_C_S1));
  SRCallHDF5(H5Tset_size(mt, sz + 1));
  PetscCall(PetscCalloc1(sz + 2, &buf));
  SRCallHDF5(H5Aread(a, mt, buf));
  PetscCall(PetscStrncpy(value, buf, len));
  PetscCall(PetscFree(buf));
  SRCallHDF5(H5Tclose(mt));
  SRCallHDF5(H5Tclose(t));
  SRCallHDF5(H5Aclose(a));
  PetscFunctionReturn(PETSC_SUCCESS);
}
