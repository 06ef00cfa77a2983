/* The network file (SPEC §10): one small HDF5 file holding an MLP of SPEC §3, readable and
   writable from PyTorch (analysis/network_torch.py).

   Layout (format "simreach-network-3"; "simreach-network-1" and "-2" files are still read):
     attributes of /:  simreach_format = "simreach-network-3"
                       sys   = "toy1d" | "pendulum" | "dubins"    (the system of SPEC §2)
                       model = "dynamics" | "controller"          (SPEC §3)
                       activations = "relu,relu,linear"           (SPEC §14: one of tanh, relu,
                                     sigmoid, linear per affine layer, the output layer too)
                       [format 1: activation = "tanh": tanh hidden layers, linear output]
                       control_steps (int64; format 2: optional, default 1) (SPEC §2 control period)
                       [format 3, SPEC §13: the closed loop it belongs to and the checksums]
                       sys_param (float64[3]), sys_dt, sys_umax (float64): the system's constants
                       domain_lo, domain_hi (float64[n]): D, equal to the system's
                       header_checksum (uint64): the attributes above and the transforms
     /widths           int64 [L + 1]: inputs, hidden widths..., outputs
     /layers/<l>/weight  float64 [width[l+1], width[l]]  (PyTorch nn.Linear.weight, row-major)
     /layers/<l>/bias    float64 [width[l+1]]
     [format 3: every dataset has the attribute checksum (uint64), SRChecksum64 of its bytes
      from SRChecksumSeed(its path without the leading "/", e.g. "layers/0/weight", 0, 0)]
   so the network is  y = act_{L-1}(W_{L-1} act_{L-2}(... act_0(W_0 x + b_0) ...) + b_{L-1}), and f_phi is built
   from it as in SPEC §3, §14 (dynamics: x + N(x), n outputs; controller, nu outputs: umax tanh(N(x))
   for simreach's own tanh networks, clip(N(x), -umax, umax) for any other: SRModelControlPoint).
   The file is written to path.part and renamed; an existing path is replaced only with force. */
#include <simreach/network_file.h>
#include <simreach/private/fileio.h>
#include <simreach/private/h5attr.h>
#include <simreach/private/memcheck.h>
#include <simreach/private/nettransform.h>
#include <simreach/private/fileio.h>
#include <simreach/network.h>

#define SR_NETWORK_FORMAT "simreach-network-3"
static const char *const SRNetFormats[] = {"simreach-network-1", "simreach-network-2", SR_NETWORK_FORMAT, NULL}; /* version = index + 1 */

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
    for (int k = 0; k < 4; k++) PetscCall(SRH5AttrRead(PETSC_COMM_SELF, o, what, NULL, in[k], NULL, H5T_NATIVE_DOUBLE, ni, v + k * ni));
    for (hsize_t j = 0; j < ni; j++) { /* named here, before the model's own checks */
      const double    a = v[j], b = v[ni + j], c = v[2 * ni + j], r = v[3 * ni + j];
      const PetscBool ok = (PetscBool)(!isnan(a) && !isnan(b) && a <= b && isfinite(c) && isfinite(r) && r > 0);
      if (!ok) PetscCall(PetscFree(v));
      PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: attributes input_clip_lo, input_clip_hi, input_mean, input_range row %llu: clip [%g, %g], mean %g, range %g; need min <= max, a finite mean and a finite range > 0", what, (unsigned long long)j, a, b, c, r);
    }
    PetscCall(SRMLPSetInputTransform(mlp, v, v + ni, v + 2 * ni, v + 3 * ni));
    PetscCall(PetscFree(v));
  }
  if (nout) {
    double *v;
    PetscCall(PetscMalloc1(2 * no, &v));
    for (int k = 0; k < 2; k++) PetscCall(SRH5AttrRead(PETSC_COMM_SELF, o, what, NULL, out[k], NULL, H5T_NATIVE_DOUBLE, no, v + k * no));
    for (hsize_t j = 0; j < no; j++) {
      const double    a = v[j], b = v[no + j];
      const PetscBool ok = (PetscBool)(isfinite(a) && isfinite(b));
      if (!ok) PetscCall(PetscFree(v));
      PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: attributes output_scale, output_offset row %llu: %g, %g; both must be finite", what, (unsigned long long)j, a, b);
    }
    PetscCall(SRMLPSetOutputTransform(mlp, v, v + no));
    PetscCall(PetscFree(v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The header attributes of format 3 under one checksum (SPEC §13), in this order: format, sys,
   model, activations, control_steps (int64), sys_param[3], sys_dt, sys_umax, domain_lo[n],
   domain_hi[n], then each transform attribute present (name, then values) in the order
   input_clip_lo, input_clip_hi, input_mean, input_range, output_scale, output_offset. */
static uint64_t SRNetHeaderSum_Private(const SRNetworkInfo *info, const char acts[], PetscInt n, const double *dlo, const double *dhi, SRMLP mlp)
{
  const int64_t cs = info->control_steps;
  const size_t  ni = (size_t)mlp->width[0], no = (size_t)mlp->width[mlp->nlayers];
  uint64_t      h  = SRChecksumSeed("network-header", 0, 0);

  h = SRChecksum64(SR_NETWORK_FORMAT, strlen(SR_NETWORK_FORMAT), h);
  h = SRChecksum64(info->sys, strlen(info->sys), h);
  if (!strcmp(info->sys, "plant")) { /* a plant file's system: its path and digest (SPEC §16) */
    h = SRChecksum64(info->plant, strlen(info->plant), h);
    h = SRChecksum64(&info->plant_digest, sizeof info->plant_digest, h);
  }
  h = SRChecksum64(SRModelTypes[info->type], strlen(SRModelTypes[info->type]), h);
  h = SRChecksum64(acts, strlen(acts), h);
  h = SRChecksum64(&cs, sizeof cs, h);
  h = SRChecksum64(info->sys_param, 3 * sizeof(double), h);
  h = SRChecksum64(&info->sys_dt, sizeof(double), h);
  h = SRChecksum64(&info->sys_umax, sizeof(double), h);
  h = SRChecksum64(dlo, (size_t)n * sizeof(double), h);
  h = SRChecksum64(dhi, (size_t)n * sizeof(double), h);
  if (mlp->has_in) {
    const char   *nm[4] = {"input_clip_lo", "input_clip_hi", "input_mean", "input_range"};
    const double *v[4]  = {mlp->inlo, mlp->inhi, mlp->inmean, mlp->inrange};
    for (int k = 0; k < 4; k++) h = SRChecksum64(v[k], ni * sizeof(double), SRChecksum64(nm[k], strlen(nm[k]), h));
  }
  if (mlp->has_out) {
    const char   *nm[2] = {"output_scale", "output_offset"};
    const double *v[2]  = {mlp->outscale, mlp->outoffset};
    for (int k = 0; k < 2; k++) h = SRChecksum64(v[k], no * sizeof(double), SRChecksum64(nm[k], strlen(nm[k]), h));
  }
  return h;
}

/* Rank 0's part of the write, into the file f SRFileWriteOnRank0 builds: the attributes, then
   every dataset with its checksum. */
typedef struct {
  SRSystem    sys;
  SRModelType type;
  SRMLP       mlp;
} SRNetworkWriteCtx_Private;

static PetscErrorCode SRNetworkFileWrite_Private(hid_t f, void *vctx)
{
  const SRNetworkWriteCtx_Private *c    = (const SRNetworkWriteCtx_Private *)vctx;
  SRSystem                         sys  = c->sys;
  SRModelType                      type = c->type;
  SRMLP                            mlp  = c->mlp;
  SRNetworkInfo                    info;
  hid_t                            g, gl;
  hsize_t       dims[2];
  int64_t       w[SR_MAX_LAYERS + 2];
  char          name[32], acts[8 * (SR_MAX_LAYERS + 1)];

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&info, sizeof info));
  PetscCall(PetscStrncpy(info.sys, sys->name, sizeof info.sys));
  info.type          = type;
  info.control_steps = sys->control_steps;
  for (int i = 0; i < 3; i++) info.sys_param[i] = sys->param[i];
  info.sys_dt   = sys->dt;
  info.sys_umax = sys->umax;
  PetscCall(SRMLPActivationsString(mlp, acts, sizeof acts));
  PetscCall(SRH5AttrWriteString(f, "simreach_format", SR_NETWORK_FORMAT));
  PetscCall(SRH5AttrWriteString(f, "simreach_version", SR_VERSION_STRING));
  PetscCall(SRH5AttrWriteString(f, "sys", sys->name));
  if (!strcmp(sys->name, "plant")) { /* SPEC §16: which plant file, and its digest */
    PetscCall(PetscStrncpy(info.plant, sys->plant_path, sizeof info.plant));
    info.plant_digest = sys->plant_digest;
    PetscCall(SRH5AttrWriteString(f, "plant", sys->plant_path));
    PetscCall(SRH5AttrWrite(f, "plant_digest", H5T_NATIVE_UINT64, 0, &sys->plant_digest));
  }
  PetscCall(SRH5AttrWriteString(f, "model", SRModelTypes[type]));
  PetscCall(SRH5AttrWriteString(f, "activations", acts));
  {
    const int64_t cs = sys->control_steps;
    PetscCall(SRH5AttrWrite(f, "control_steps", H5T_NATIVE_INT64, 0, &cs));
  }
  PetscCall(SRH5AttrWrite(f, "sys_param", H5T_NATIVE_DOUBLE, 3, sys->param));
  PetscCall(SRH5AttrWrite(f, "sys_dt", H5T_NATIVE_DOUBLE, 0, &sys->dt));
  PetscCall(SRH5AttrWrite(f, "sys_umax", H5T_NATIVE_DOUBLE, 0, &sys->umax));
  PetscCall(SRH5AttrWrite(f, "domain_lo", H5T_NATIVE_DOUBLE, (hsize_t)sys->n, sys->dlo));
  PetscCall(SRH5AttrWrite(f, "domain_hi", H5T_NATIVE_DOUBLE, (hsize_t)sys->n, sys->dhi));
  PetscCall(SRNetTransformsWrite(f, mlp));
  {
    const uint64_t hs = SRNetHeaderSum_Private(&info, acts, sys->n, sys->dlo, sys->dhi, mlp);
    PetscCall(SRH5AttrWrite(f, "header_checksum", H5T_NATIVE_UINT64, 0, &hs));
  }
  for (PetscInt l = 0; l <= mlp->nlayers; l++) w[l] = mlp->width[l];
  dims[0] = (hsize_t)mlp->nlayers + 1;
  PetscCall(SRH5DatasetWriteSummed(f, "widths", H5T_NATIVE_INT64, 1, dims, w));
  SRCallHDF5Id(g, H5Gcreate2(f, "layers", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  for (PetscInt l = 0; l < mlp->nlayers; l++) { /* the checksum seeded by the path: a layer moved fails */
    PetscCall(PetscSNPrintf(name, sizeof(name), "%" PetscInt_FMT, l));
    SRCallHDF5Id(gl, H5Gcreate2(g, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    SRCallHDF5(H5Gclose(gl));
    dims[0] = (hsize_t)mlp->width[l + 1];
    dims[1] = (hsize_t)mlp->width[l];
    PetscCall(PetscSNPrintf(name, sizeof(name), "layers/%" PetscInt_FMT "/weight", l));
    PetscCall(SRH5DatasetWriteSummed(f, name, H5T_NATIVE_DOUBLE, 2, dims, mlp->params + mlp->woff[l]));
    PetscCall(PetscSNPrintf(name, sizeof(name), "layers/%" PetscInt_FMT "/bias", l));
    PetscCall(SRH5DatasetWriteSummed(f, name, H5T_NATIVE_DOUBLE, 1, dims, mlp->params + mlp->boff[l]));
  }
  SRCallHDF5(H5Gclose(g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRNetworkFileWrite(MPI_Comm comm, const char path[], PetscBool force, SRSystem sys, SRModelType type, SRMLP mlp)
{
  char                      part[PETSC_MAX_PATH_LEN];
  PetscBool                 exists;
  SRNetworkWriteCtx_Private c = {sys, type, mlp};

  PetscFunctionBeginUser;
  PetscCall(PetscTestFile(path, 'r', &exists));
  PetscCheck(!exists || force, comm, PETSC_ERR_FILE_OPEN, "network file %s exists: give -force to replace it", path);
  /* path.part created exclusively (never through a link, never over another .part; SPEC §13) */
  PetscCall(SRFileCreateExclusiveTemp(comm, path, part, sizeof(part)));
  /* built in memory, written with write(2): a failure is one line naming the file and the errno,
     the .part and its lock removed (issue 34) */
  PetscCall(SRFileWriteOnRank0(comm, part, path, SRNetworkFileWrite_Private, &c));
  PetscCall(SRFileCommit(comm, part, path, force)); /* replaces path only with -force */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the hint of a missing closed-loop attribute */
static const char SRNetLoopHint[] = " (format 3 states the closed loop)";

/* The header of /: format, closed loop (sys, model, control_steps; format 3 its constants) and
   the activations string; *version 1, 2 or 3. */
static PetscErrorCode SRNetReadHeader_Private(hid_t f, const char path[], SRNetworkInfo *info, char act[], size_t alen, PetscInt *version)
{
  char model[32];

  PetscFunctionBeginUser;
  PetscCall(SRH5FormatCheck(PETSC_COMM_SELF, f, "network file", path, SRNetFormats, NULL, NULL, version));
  *version += 1;
  PetscCall(SRH5AttrReadString(f, "network file", path, "sys", " (not a simreach network file?)", PETSC_TRUE, info->sys, sizeof info->sys));
  PetscCheck(SRSystemShippedPlant(info->sys) || !strcmp(info->sys, "plant"), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: attribute sys is '%s'; allowed are %s, plant", path, info->sys, SRSystemNames());
  info->plant[0] = 0, info->plant_digest = 0;
  if (!strcmp(info->sys, "plant")) {
    PetscCall(SRH5AttrReadString(f, "network file", path, "plant", " (a plant file's system names its file)", PETSC_TRUE, info->plant, sizeof info->plant));
    PetscCall(SRH5AttrRead(PETSC_COMM_SELF, f, "network file", path, "plant_digest", " (a plant file's system states its digest)", H5T_NATIVE_UINT64, 1, &info->plant_digest));
  }
  PetscCall(SRH5AttrReadString(f, "network file", path, "model", " (not a simreach network file?)", PETSC_TRUE, model, sizeof(model)));
  if (*version == 1) {
    PetscCall(SRH5AttrReadString(f, "network file", path, "activation", " (not a simreach network file?)", PETSC_TRUE, act, alen));
    PetscCheck(!strcmp(act, "tanh"), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: activation '%s'; allowed in format 1 is tanh", path, act);
  } else PetscCall(SRH5AttrReadString(f, "network file", path, "activations", " (format 2 names every layer's activation)", PETSC_TRUE, act, alen));
  if (!strcmp(model, "dynamics")) info->type = SR_MODEL_DYNAMICS;
  else if (!strcmp(model, "controller")) info->type = SR_MODEL_CONTROLLER;
  else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: attribute model is '%s'; allowed are dynamics, controller", path, model);
  info->control_steps = 0;
  if (*version == 3 || H5Aexists(f, "control_steps") > 0) {
    int64_t cs;
    PetscCall(SRH5AttrRead(PETSC_COMM_SELF, f, "network file", path, "control_steps", SRNetLoopHint, H5T_NATIVE_INT64, 1, &cs));
    PetscCheck(cs >= 1 && cs <= SR_MAX_CONTROL_STEPS, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: attribute control_steps is %lld; allowed is 1..%d", path, (long long)cs, SR_MAX_CONTROL_STEPS);
    info->control_steps = (PetscInt)cs;
  }
  info->has_consts = (PetscBool)(*version == 3);
  if (info->has_consts) {
    PetscCall(SRH5AttrRead(PETSC_COMM_SELF, f, "network file", path, "sys_param", SRNetLoopHint, H5T_NATIVE_DOUBLE, 3, info->sys_param));
    PetscCall(SRH5AttrRead(PETSC_COMM_SELF, f, "network file", path, "sys_dt", SRNetLoopHint, H5T_NATIVE_DOUBLE, 1, &info->sys_dt));
    PetscCall(SRH5AttrRead(PETSC_COMM_SELF, f, "network file", path, "sys_umax", SRNetLoopHint, H5T_NATIVE_DOUBLE, 1, &info->sys_umax));
    for (int i = 0; i < 3; i++) PetscCheck(isfinite(info->sys_param[i]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: attribute sys_param row %d is %g; must be finite", path, i, info->sys_param[i]);
    PetscCheck(isfinite(info->sys_dt) && info->sys_dt > 0 && isfinite(info->sys_umax) && info->sys_umax >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: attributes sys_dt %g, sys_umax %g; need a finite dt > 0 and a finite u_max >= 0", path, info->sys_dt, info->sys_umax);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The widths (checked against the system of the file: inputs n, outputs n or nu) and, before
   anything is allocated (issue #13), the size of the network. */
static PetscErrorCode SRNetReadWidths_Private(MPI_Comm comm, hid_t f, const char path[], PetscBool summed, SRSystem sys, SRModelType type, int64_t w[], PetscInt *nl)
{
  hsize_t dims[2];
  double  npd = 0, maxw = 0;
  char    opts[PETSC_MAX_PATH_LEN + 256];

  PetscFunctionBeginUser;
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
  *nl = (PetscInt)dims[0] - 1;
  PetscCheck(*nl >= 2 && *nl <= SR_MAX_LAYERS + 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: %" PetscInt_FMT " affine layers; allowed are 2 to %d (1 to %d hidden)", path, *nl, SR_MAX_LAYERS + 1, SR_MAX_LAYERS);
  PetscCall(SRH5DatasetReadChecked(PETSC_COMM_SELF, f, "network file", path, "widths", "/widths", H5T_NATIVE_INT64, 1, dims, summed, w));
  for (PetscInt l = 0; l <= *nl; l++) {
    PetscCheck(w[l] >= 1 && w[l] <= 1 << 20, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: dataset /widths row %" PetscInt_FMT " is %lld; allowed are 1 to 2^20", path, l, (long long)w[l]);
    if (l < *nl) npd += (double)w[l + 1] * ((double)w[l] + 1);
    maxw = PetscMax(maxw, (double)w[l]);
  }
  PetscCheck(w[0] == sys->n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: dataset /widths row 0 is %lld inputs; its system %s has %" PetscInt_FMT " states", path, (long long)w[0], sys->name, sys->n);
  PetscCheck(w[*nl] == (type == SR_MODEL_DYNAMICS ? sys->n : sys->nu), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: dataset /widths row %" PetscInt_FMT " is %lld outputs; a %s model of %s has %" PetscInt_FMT, path, *nl, (long long)w[*nl], SRModelTypes[type], sys->name, type == SR_MODEL_DYNAMICS ? sys->n : sys->nu);
  /* every rank holds the parameters, the enclosures |W| and the rows (enclosure.c), the
     forward pass's transposes (mlp.c) and this read's copy */
  PetscCall(PetscSNPrintf(opts, sizeof(opts), "-network %s (widths ", path));
  for (PetscInt l = 0; l <= *nl; l++) PetscCall(PetscSNPrintf(opts + strlen(opts), sizeof(opts) - strlen(opts), "%lld%s", (long long)w[l], l < *nl ? "," : ")"));
  PetscCall(SRSizeCheck(comm, npd, opts, "the network's parameters", "allowed are networks of at most 2147483647 parameters"));
  PetscCall(SRMemCheck(comm, 8.0 * 5 * npd + 8.0 * 64 * 4 * maxw, opts, "the network (its parameters, their copies and the enclosure's work arrays)"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every layer's weight and bias (shape, checksum, finite: a bad one named with its row). */
static PetscErrorCode SRNetReadLayers_Private(hid_t f, const char path[], PetscBool summed, PetscInt nl, const int64_t w[], SRMLP mlp)
{
  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < nl; l++) {
    const hsize_t dims[2] = {(hsize_t)w[l + 1], (hsize_t)w[l]};
    double       *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];
    char          name[64], shown[64];
    PetscCall(PetscSNPrintf(name, sizeof(name), "layers/%" PetscInt_FMT "/weight", l));
    PetscCall(PetscSNPrintf(shown, sizeof(shown), "/%s", name));
    PetscCall(SRH5DatasetReadChecked(PETSC_COMM_SELF, f, "network file", path, name, shown, H5T_NATIVE_DOUBLE, 2, dims, summed, W));
    for (hsize_t i = 0; i < dims[0] * dims[1]; i++) PetscCheck(isfinite(W[i]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: dataset %s row %llu column %llu is %g; every weight must be finite", path, shown, (unsigned long long)(i / dims[1]), (unsigned long long)(i % dims[1]), W[i]);
    PetscCall(PetscSNPrintf(name, sizeof(name), "layers/%" PetscInt_FMT "/bias", l));
    PetscCall(PetscSNPrintf(shown, sizeof(shown), "/%s", name));
    PetscCall(SRH5DatasetReadChecked(PETSC_COMM_SELF, f, "network file", path, name, shown, H5T_NATIVE_DOUBLE, 1, dims, summed, b));
    for (hsize_t i = 0; i < dims[0]; i++) PetscCheck(isfinite(b[i]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: dataset %s row %llu is %g; every bias must be finite", path, shown, (unsigned long long)i, b[i]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Format 3: D as the system's, and the header under its checksum. */
static PetscErrorCode SRNetCheckHeader_Private(hid_t f, const char path[], const SRNetworkInfo *info, const char act[], SRSystem sys, SRMLP mlp)
{
  double   dlo[SR_MAX_DIM], dhi[SR_MAX_DIM];
  uint64_t hs;

  PetscFunctionBeginUser;
  PetscCall(SRH5AttrRead(PETSC_COMM_SELF, f, "network file", path, "domain_lo", SRNetLoopHint, H5T_NATIVE_DOUBLE, (hsize_t)sys->n, dlo));
  PetscCall(SRH5AttrRead(PETSC_COMM_SELF, f, "network file", path, "domain_hi", SRNetLoopHint, H5T_NATIVE_DOUBLE, (hsize_t)sys->n, dhi));
  for (PetscInt d = 0; d < sys->n; d++) PetscCheck(dlo[d] == sys->dlo[d] && dhi[d] == sys->dhi[d], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: attributes domain_lo, domain_hi row %" PetscInt_FMT ": [%.17g, %.17g]; the domain of %s is [%.17g, %.17g]", path, d, dlo[d], dhi[d], sys->name, sys->dlo[d], sys->dhi[d]);
  PetscCall(SRH5AttrRead(PETSC_COMM_SELF, f, "network file", path, "header_checksum", SRNetLoopHint, H5T_NATIVE_UINT64, 1, &hs));
  PetscCheck(hs == SRNetHeaderSum_Private(info, act, sys->n, dlo, dhi, mlp), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "network file %s: the header attributes (sys, model, activations, control_steps, sys_param, sys_dt, sys_umax, domain, transforms) fail their checksum (the file is damaged)", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Not collective in effect (every rank reads the small file itself, so a bad file fails
   identically on every rank); errors on PETSC_COMM_SELF, re-raised on comm by SRNetworkLoad. */
PetscErrorCode SRNetworkFileRead(MPI_Comm comm, const char path[], SRNetworkInfo *info, SRMLP *mlp)
{
  SRActivation acts[SR_MAX_LAYERS + 1];
  hid_t        f;
  char         act[8 * (SR_MAX_LAYERS + 1)], what[PETSC_MAX_PATH_LEN + 32];
  int64_t      w[SR_MAX_LAYERS + 2];
  PetscInt     nl, version;
  PetscBool    ok;
  SRSystem     sys;

  PetscFunctionBeginUser;
  SRCallHDF5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  PetscCall(PetscTestFile(path, 'r', &ok));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-network %s: no such readable file", path);
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  PetscCheck(f >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-network %s: not an HDF5 file", path);
  PetscCall(PetscSNPrintf(what, sizeof what, "network file %s", path));
  PetscCall(SRNetReadHeader_Private(f, path, info, act, sizeof act, &version));
  /* the system, untouched by the options (the prefix is nobody's); a plant file's from -plant if
     given, else from the path the file records (SPEC §16) */
  PetscCall(SRSystemCreateStored(PETSC_COMM_SELF, info->sys, info->plant, "sr_network_file_", &sys));
  PetscCall(SRNetReadWidths_Private(comm, f, path, (PetscBool)(version == 3), sys, info->type, w, &nl));
  if (version == 1)
    for (PetscInt l = 0; l < nl; l++) acts[l] = l < nl - 1 ? SR_ACT_TANH : SR_ACT_LINEAR;
  else PetscCall(SRActivationsParse(what, act, nl, acts));
  {
    PetscInt hw[SR_MAX_LAYERS];
    for (PetscInt l = 1; l < nl; l++) hw[l - 1] = (PetscInt)w[l];
    PetscCall(SRMLPCreate((PetscInt)w[0], nl - 1, hw, (PetscInt)w[nl], mlp));
  }
  PetscCall(SRNetReadLayers_Private(f, path, (PetscBool)(version == 3), nl, w, *mlp));
  for (PetscInt l = 0; l < nl; l++) PetscCall(SRMLPSetActivation(*mlp, l, acts[l]));
  if (version > 1) PetscCall(SRNetTransformsRead(f, what, *mlp));
  if (version == 3) PetscCall(SRNetCheckHeader_Private(f, path, info, act, sys, *mlp));
  PetscCall(SRSystemDestroy(&sys));
  SRCallHDF5(H5Fclose(f));
  PetscFunctionReturn(PETSC_SUCCESS);
}
