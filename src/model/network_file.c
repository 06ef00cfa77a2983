/* The network file (SPEC §10): one small HDF5 file holding an MLP of SPEC §3, readable and
   writable from PyTorch (analysis/network_torch.py).

   Layout (format "simreach-network-2"; "simreach-network-1" files are still read):
     attributes of /:  simreach_format = "simreach-network-2"
                       sys   = "toy1d" | "pendulum" | "dubins"    (the system of SPEC §2)
                       model = "dynamics" | "controller"          (SPEC §3)
                       activations = "relu,relu,linear"           (SPEC §14: one of tanh, relu,
                                     sigmoid, linear per affine layer, the output layer too)
                       [format 1: activation = "tanh": tanh hidden layers, linear output]
                       control_steps (int64, optional, default 1) (SPEC §2 control period, controller)
     /widths           int64 [L + 1]: inputs, hidden widths..., outputs
     /layers/<l>/weight  float64 [width[l+1], width[l]]  (PyTorch nn.Linear.weight, row-major)
     /layers/<l>/bias    float64 [width[l+1]]
   so the network is  y = act_{L-1}(W_{L-1} act_{L-2}(... act_0(W_0 x + b_0) ...) + b_{L-1}), and f_phi is built
   from it as in SPEC §3 (dynamics: x + N(x), n outputs; controller: umax tanh(N(x)), nu outputs).
   The file is written to path.part and renamed; an existing path is replaced only with force. */
#include <simreach/network_file.h>
#include <simreach/private/fileio.h>
#include <simreach/private/h5attr.h>
#include <simreach/private/memcheck.h>
#include <simreach/private/nettransform.h>

#define SR_NETWORK_FORMAT "simreach-network-2"
#define SR_NETWORK_FORMAT1 "simreach-network-1"

/* The optional transforms of SPEC §14 as attributes of o (network file root, abstraction file
   /network): input_clip_lo, input_clip_hi, input_mean, input_range (float64[inputs]) and
   output_scale, output_offset (float64[outputs]); absent = identity. */
PetscErrorCode SRNetTransformsWrite(hid_t o, SRMLP mlp)
{
  const hsize_t ni = (hsize_t)mlp->width[0], no = (hsize_t)mlp->width[mlp->nlayers];

  PetscFunctionBeginUser;
  if (mlp->has_in) {
    PetscCall(SRH5AttrWrite(o, "input_clip_lo", H5T_NATIVE_DOUBLE, ni, mlp->inlo));
    PetscCall(SRH5AttrWrite(o, "input_clip_hi", H5T_NATIVE_DOUBLE, ni, mlp->inhi));
    PetscCall(SRH5AttrWrite(o, "input_mean", H5T_NATIVE_DOUBLE, ni, mlp->inmean));
    PetscCall(SRH5AttrWrite(o, "input_range", H5T_NATIVE_DOUBLE, ni, mlp->inrange));
  }
  if (mlp->has_out) {
    PetscCall(SRH5AttrWrite(o, "output_scale", H5T_NATIVE_DOUBLE, no, mlp->outscale));
    PetscCall(SRH5AttrWrite(o, "output_offset", H5T_NATIVE_DOUBLE, no, mlp->outoffset));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRNetAttrVec_Private(hid_t o, const char what[], const char name[], hsize_t len, double *v)
{
  hid_t   a, s;
  hsize_t n = 0;

  PetscFunctionBeginUser;
  SRCallHDF5Id(a, H5Aopen(o, name, H5P_DEFAULT));
  SRCallHDF5Id(s, H5Aget_space(a));
  if (H5Sget_simple_extent_ndims(s) == 1) SRCallHDF5(H5Sget_simple_extent_dims(s, &n, NULL));
  SRCallHDF5(H5Sclose(s));
  if (n != len) SRCallHDF5(H5Aclose(a));
  PetscCheck(n == len, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: attribute %s has %llu values; the network needs %llu", what, name, (unsigned long long)n, (unsigned long long)len);
  SRCallHDF5(H5Aread(a, H5T_NATIVE_DOUBLE, v));
  SRCallHDF5(H5Aclose(a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRNetTransformsRead(hid_t o, const char what[], SRMLP mlp)
{
  const hsize_t ni = (hsize_t)mlp->width[0], no = (hsize_t)mlp->width[mlp->nlayers];
  const char   *in[4]  = { "input_clip_lo", "input_clip_hi", "input_mean", "input_range" };
  const char   *out[2] = { "output_scale", "output_offset" };
  int           nin = 0, nout = 0;

  PetscFunctionBeginUser;
  for (int k = 0; k < 4; k++) nin += H5Aexists(o, in[k]) > 0;
  for (int k = 0; k < 2; k++) nout += H5Aexists(o, out[k]) > 0;
  PetscCheck(nin == 0 || nin == 4, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: %d of the 4 input transform attributes (input_clip_lo, input_clip_hi, input_mean, input_range); give all or none", what, nin);
  PetscCheck(nout == 0 || nout == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: 1 of the 2 output transform attributes (output_scale, output_offset); give both or none", what);
  if (nin) {
    double *v;
    PetscCall(PetscMalloc1(4 * ni, &v));
    for (int k = 0; k < 4; k++) PetscCall(SRNetAttrVec_Private(o, what, in[k], ni, v + k * ni));
    PetscCall(SRMLPSetInputTransform(mlp, v, v + ni, v + 2 * ni, v + 3 * ni));
    PetscCall(PetscFree(v));
  }
  if (nout) {
    double *v;
    PetscCall(PetscMalloc1(2 * no, &v));
    for (int k = 0; k < 2; k++) PetscCall(SRNetAttrVec_Private(o, what, out[k], no, v + k * no));
    PetscCall(SRMLPSetOutputTransform(mlp, v, v + no));
    PetscCall(PetscFree(v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRNetWriteData_Private(hid_t g, const char name[], hid_t type, int rank, const hsize_t *dims, const void *buf)
{
  hid_t s, d;

  PetscFunctionBeginUser;
  SRCallHDF5Id(s, H5Screate_simple(rank, dims, NULL));
  SRCallHDF5Id(d, H5Dcreate2(g, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  SRCallHDF5(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
  SRCallHDF5(H5Dclose(d));
  SRCallHDF5(H5Sclose(s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads dataset name into buf, checking its shape (rank, dims). */
static PetscErrorCode SRNetReadData_Private(hid_t f, const char path[], const char name[], hid_t type, int rank, const hsize_t *dims, void *buf)
{
  hid_t   d, s;
  int     r;
  hsize_t fd[4];

  PetscFunctionBeginUser;
  PetscCheck(H5Lexists(f, name, H5P_DEFAULT) > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: dataset %s missing", path, name);
  SRCallHDF5Id(d, H5Dopen2(f, name, H5P_DEFAULT));
  SRCallHDF5Id(s, H5Dget_space(d));
  r = H5Sget_simple_extent_ndims(s);
  PetscCheck(r == rank, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: dataset %s has rank %d, expected %d", path, name, r, rank);
  SRCallHDF5(H5Sget_simple_extent_dims(s, fd, NULL));
  for (int i = 0; i < rank; i++) PetscCheck(fd[i] == dims[i], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: dataset %s has extent %llu in dimension %d, expected %llu (the widths say so)", path, name, (unsigned long long)fd[i], i, (unsigned long long)dims[i]);
  SRCallHDF5(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
  SRCallHDF5(H5Sclose(s));
  SRCallHDF5(H5Dclose(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRNetworkFileWrite(MPI_Comm comm, const char path[], PetscBool force, const char sysname[], SRModelType type, PetscInt control_steps, SRMLP mlp)
{
  PetscMPIInt rank;
  char        part[PETSC_MAX_PATH_LEN];
  PetscBool   exists;
  int         err = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscTestFile(path, 'r', &exists));
  PetscCheck(!exists || force, comm, PETSC_ERR_FILE_OPEN, "network file %s exists: give -force to replace it", path);
  /* path.part created exclusively (never through a link, never over another .part; SPEC §13) */
  PetscCall(SRFileCreateExclusiveTemp(comm, path, part, sizeof(part)));
  if (rank == 0) {
    hid_t   f, g, gl;
    hsize_t dims[2];
    int64_t w[SR_MAX_LAYERS + 2];
    char    name[32];

    SRCallHDF5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
    SRCallHDF5Id(f, H5Fcreate(part, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    PetscCall(SRH5AttrWriteString(f, "simreach_format", SR_NETWORK_FORMAT));
    PetscCall(SRH5AttrWriteString(f, "sys", sysname));
    PetscCall(SRH5AttrWriteString(f, "model", SRModelTypes[type]));
    {
      char acts[8 * (SR_MAX_LAYERS + 1)];
      PetscCall(SRMLPActivationsString(mlp, acts, sizeof acts));
      PetscCall(SRH5AttrWriteString(f, "activations", acts));
    }
    {
      const int64_t cs = control_steps;
      hid_t         sp, a;
      SRCallHDF5Id(sp, H5Screate(H5S_SCALAR));
      SRCallHDF5Id(a, H5Acreate2(f, "control_steps", H5T_NATIVE_INT64, sp, H5P_DEFAULT, H5P_DEFAULT));
      SRCallHDF5(H5Awrite(a, H5T_NATIVE_INT64, &cs));
      SRCallHDF5(H5Aclose(a));
      SRCallHDF5(H5Sclose(sp));
    }
    PetscCall(SRNetTransformsWrite(f, mlp));
    for (PetscInt l = 0; l <= mlp->nlayers; l++) w[l] = mlp->width[l];
    dims[0] = (hsize_t)mlp->nlayers + 1;
    PetscCall(SRNetWriteData_Private(f, "widths", H5T_NATIVE_INT64, 1, dims, w));
    SRCallHDF5Id(g, H5Gcreate2(f, "layers", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    for (PetscInt l = 0; l < mlp->nlayers; l++) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "%" PetscInt_FMT, l));
      SRCallHDF5Id(gl, H5Gcreate2(g, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
      dims[0] = (hsize_t)mlp->width[l + 1];
      dims[1] = (hsize_t)mlp->width[l];
      PetscCall(SRNetWriteData_Private(gl, "weight", H5T_NATIVE_DOUBLE, 2, dims, mlp->params + mlp->woff[l]));
      PetscCall(SRNetWriteData_Private(gl, "bias", H5T_NATIVE_DOUBLE, 1, dims, mlp->params + mlp->boff[l]));
      SRCallHDF5(H5Gclose(gl));
    }
    SRCallHDF5(H5Gclose(g));
    SRCallHDF5(H5Fclose(f));
  }
  PetscCallMPI(MPI_Bcast(&err, 1, MPI_INT, 0, comm));
  PetscCall(SRFileCommit(comm, part, path, force)); /* replaces path only with -force */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every rank reads the (small) file itself, so a bad file fails identically on every rank. */
PetscErrorCode SRNetworkFileRead(MPI_Comm comm, const char path[], char sysname[], size_t len, SRModelType *type, PetscInt *control_steps, SRMLP *mlp)
{
  SRActivation acts[SR_MAX_LAYERS + 1];
  hid_t     f;
  char      fmt[64], model[32], act[8 * (SR_MAX_LAYERS + 1)];
  PetscBool v1;
  hsize_t   dims[2];
  int64_t   w[SR_MAX_LAYERS + 2];
  PetscInt  nl, np = 0;
  PetscBool ok;
  double   *p;

  PetscFunctionBeginUser;
  SRCallHDF5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscTestFile(path, 'r', &ok));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-network %s: no such readable file", path);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  PetscCheck(f >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-network %s: not an HDF5 file", path);
  PetscCall(SRH5AttrReadString(f, "network file", path, "simreach_format", " (not a simreach network file?)", PETSC_TRUE, fmt, sizeof(fmt)));
  PetscCheck(!strcmp(fmt, SR_NETWORK_FORMAT) || !strcmp(fmt, SR_NETWORK_FORMAT1), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: format '%s'; this simreach reads '%s' and '%s'", path, fmt, SR_NETWORK_FORMAT, SR_NETWORK_FORMAT1);
  v1 = (PetscBool)!strcmp(fmt, SR_NETWORK_FORMAT1);
  PetscCall(SRH5AttrReadString(f, "network file", path, "sys", " (not a simreach network file?)", PETSC_TRUE, sysname, len));
  PetscCall(SRH5AttrReadString(f, "network file", path, "model", " (not a simreach network file?)", PETSC_TRUE, model, sizeof(model)));
  if (v1) {
    PetscCall(SRH5AttrReadString(f, "network file", path, "activation", " (not a simreach network file?)", PETSC_TRUE, act, sizeof(act)));
    PetscCheck(!strcmp(act, "tanh"), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: activation '%s'; allowed in format 1 is tanh", path, act);
  } else PetscCall(SRH5AttrReadString(f, "network file", path, "activations", " (format 2 names every layer's activation)", PETSC_TRUE, act, sizeof(act)));
  if (!strcmp(model, "dynamics")) *type = SR_MODEL_DYNAMICS;
  else if (!strcmp(model, "controller")) *type = SR_MODEL_CONTROLLER;
  else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: model '%s'; allowed are dynamics, controller", path, model);
  *control_steps = 0;
  if (H5Aexists(f, "control_steps") > 0) {
    hid_t   a;
    int64_t cs;
    SRCallHDF5Id(a, H5Aopen(f, "control_steps", H5P_DEFAULT));
    SRCallHDF5(H5Aread(a, H5T_NATIVE_INT64, &cs));
    SRCallHDF5(H5Aclose(a));
    PetscCheck(cs >= 1 && cs <= 1000000, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: control_steps %lld; must be >= 1", path, (long long)cs);
    *control_steps = (PetscInt)cs;
  }
  {
    hid_t d, s;
    PetscCheck(H5Lexists(f, "widths", H5P_DEFAULT) > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: dataset /widths missing", path);
    SRCallHDF5Id(d, H5Dopen2(f, "widths", H5P_DEFAULT));
    SRCallHDF5Id(s, H5Dget_space(d));
    PetscCheck(H5Sget_simple_extent_ndims(s) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: /widths must be one-dimensional", path);
    SRCallHDF5(H5Sget_simple_extent_dims(s, dims, NULL));
    SRCallHDF5(H5Sclose(s));
    SRCallHDF5(H5Dclose(d));
  }
  nl = (PetscInt)dims[0] - 1;
  PetscCheck(nl >= 2 && nl <= SR_MAX_LAYERS + 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: %" PetscInt_FMT " affine layers; allowed are 2 to %d (1 to %d hidden)", path, nl, SR_MAX_LAYERS + 1, SR_MAX_LAYERS);
  if (v1)
    for (PetscInt l = 0; l < nl; l++) acts[l] = l < nl - 1 ? SR_ACT_TANH : SR_ACT_LINEAR;
  else {
    char what[PETSC_MAX_PATH_LEN + 32];
    PetscCall(PetscSNPrintf(what, sizeof what, "network file %s", path));
    PetscCall(SRActivationsParse(what, act, nl, acts));
  }
  PetscCall(SRNetReadData_Private(f, path, "widths", H5T_NATIVE_INT64, 1, dims, w));
  {
    double npd = 0, maxw = 0;
    char   opts[PETSC_MAX_PATH_LEN + 256];
    for (PetscInt l = 0; l <= nl; l++) {
      PetscCheck(w[l] >= 1 && w[l] <= 1 << 20, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: width %" PetscInt_FMT " is %lld; allowed are 1 to 2^20", path, l, (long long)w[l]);
      if (l < nl) npd += (double)w[l + 1] * ((double)w[l] + 1);
      maxw = PetscMax(maxw, (double)w[l]);
    }
    /* before anything is allocated (issue #13): every rank holds the parameters, the enclosures
       |W| and the rows (enclosure.c), the forward pass's transposes (mlp.c) and this read's copy */
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-network %s (widths ", path));
    for (PetscInt l = 0; l <= nl; l++) PetscCall(PetscSNPrintf(opts + strlen(opts), sizeof(opts) - strlen(opts), "%lld%s", (long long)w[l], l < nl ? "," : ")"));
    PetscCall(SRSizeCheck(comm, npd, opts, "the network's parameters", "allowed are networks of at most 2147483647 parameters"));
    PetscCall(SRMemCheck(comm, 8.0 * 5 * npd + 8.0 * 64 * 4 * maxw, opts, "the network (its parameters, their copies and the enclosure's work arrays)"));
    np = (PetscInt)npd;
  }
  PetscCall(PetscMalloc1(np, &p));
  np = 0;
  for (PetscInt l = 0; l < nl; l++) {
    char name[64];
    dims[0] = (hsize_t)w[l + 1];
    dims[1] = (hsize_t)w[l];
    PetscCall(PetscSNPrintf(name, sizeof(name), "layers/%" PetscInt_FMT "/weight", l));
    PetscCall(SRNetReadData_Private(f, path, name, H5T_NATIVE_DOUBLE, 2, dims, p + np));
    np += (PetscInt)(w[l + 1] * w[l]);
    PetscCall(PetscSNPrintf(name, sizeof(name), "layers/%" PetscInt_FMT "/bias", l));
    PetscCall(SRNetReadData_Private(f, path, name, H5T_NATIVE_DOUBLE, 1, dims, p + np));
    np += (PetscInt)w[l + 1];
  }
  for (PetscInt q = 0; q < np; q++) PetscCheck(isfinite(p[q]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: parameter %" PetscInt_FMT " is %g; all must be finite", path, q, p[q]);
  {
    PetscInt hw[SR_MAX_LAYERS];
    for (PetscInt l = 1; l < nl; l++) hw[l - 1] = (PetscInt)w[l];
    PetscCall(SRMLPCreate((PetscInt)w[0], nl - 1, hw, (PetscInt)w[nl], mlp));
  }
  PetscCall(PetscArraycpy((*mlp)->params, p, np));
  PetscCall(PetscFree(p));
  for (PetscInt l = 0; l < nl; l++) PetscCall(SRMLPSetActivation(*mlp, l, acts[l]));
  if (!v1) {
    char what[PETSC_MAX_PATH_LEN + 32];
    PetscCall(PetscSNPrintf(what, sizeof what, "network file %s", path));
    PetscCall(SRNetTransformsRead(f, what, *mlp));
  }
  SRCallHDF5(H5Fclose(f));
  PetscFunctionReturn(PETSC_SUCCESS);
}
