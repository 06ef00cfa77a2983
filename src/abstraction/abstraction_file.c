/* The abstraction file of `simreach verify` (SPEC §10), one parallel HDF5 file; the schema is
   documented in analysis/abstraction-schema.md.  The reader: it opens the file on any number of
   ranks, validates it (header checksum, partition, every row) and reads any range of rows.
   The writer is abstraction_write.c; what both share is private/abstraction_file_impl.h. */
#include <simreach/private/abstraction_file_impl.h>
#include <simreach/private/fileio.h>
#include <simreach/private/h5attr.h>
#include <simreach/private/abstraction_valid.h>
#include <stdio.h>

static const char *const SRAbsFormats[]    = {SR_ABSTRACTION_FORMAT, NULL};
static const char *const SRAbsFormatsOld[] = {SR_ABSTRACTION_FORMAT_1, SR_ABSTRACTION_FORMAT_2, NULL};

hid_t SRAbsFapl_Private(MPI_Comm comm)
{
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return fapl;
  if (H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0) return -1;
  return fapl;
}

static PetscErrorCode SRAbsReadAttrNum_Private(MPI_Comm comm, hid_t o, const char path[], const char name[], hid_t type, hsize_t len, void *v)
{
  hid_t   a, s;
  hsize_t n = 1;

  PetscFunctionBeginUser;
  PetscCheck(H5Aexists(o, name) > 0, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: attribute '%s' missing", path, name);
  SRCallHDF5Id(a, H5Aopen(o, name, H5P_DEFAULT));
  SRCallHDF5Id(s, H5Aget_space(a));
  if (H5Sget_simple_extent_ndims(s) == 1) SRCallHDF5(H5Sget_simple_extent_dims(s, &n, NULL));
  PetscCheck(n == len, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: attribute '%s' has %llu values, expected %llu", path, name, (unsigned long long)n, (unsigned long long)len);
  SRCallHDF5(H5Aread(a, type, v));
  SRCallHDF5(H5Sclose(s));
  SRCallHDF5(H5Aclose(a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRAbsReadRows_Private(hid_t d, hid_t type, PetscInt64 k0, PetscInt64 nk, hsize_t cols, void *buf)
{
  hid_t   fs, ms;
  hsize_t start[2] = {(hsize_t)k0, 0}, count[2] = {(hsize_t)nk, cols};

  PetscFunctionBeginUser;
  SRCallHDF5Id(fs, H5Dget_space(d));
  SRCallHDF5Id(ms, H5Screate_simple(2, count, NULL));
  SRCallHDF5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
  SRCallHDF5(H5Dread(d, type, ms, fs, H5P_DEFAULT, buf));
  SRCallHDF5(H5Sclose(ms));
  SRCallHDF5(H5Sclose(fs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The header attributes, in a fixed order, under one checksum. */
uint64_t SRAbsHeaderSum_Private(const SRAbstractionHeader *h)
{
  int64_t  iv[6 + SR_MAX_LAYERS];
  uint64_t s = SRChecksumSeed("abstraction-header", 0, 0);

  iv[0] = h->n;
  iv[1] = h->K;
  iv[2] = h->bisect;
  iv[3] = h->model;
  iv[4] = h->control_steps;
  iv[5] = h->nhidden;
  for (PetscInt i = 0; i < SR_MAX_LAYERS; i++) iv[6 + i] = i < h->nhidden ? h->widths[i] : 0;
  s = SRChecksum64(iv, sizeof(iv), s);
  s = SRChecksum64(h->sys_param, sizeof(h->sys_param), s);
  s = SRChecksum64(&h->sys_dt, sizeof(double), s);
  s = SRChecksum64(&h->sys_umax, sizeof(double), s);
  s = SRChecksum64(h->sys, strlen(h->sys), s);
  if (!strcmp(h->sys, "plant")) { /* a plant file's system: its path and digest (SPEC §16) */
    s = SRChecksum64(h->plant, strlen(h->plant), s);
    s = SRChecksum64(&h->plant_digest, sizeof h->plant_digest, s);
  }
  s = SRChecksum64(h->enclosure, strlen(h->enclosure), s);
  s = SRChecksum64(h->source, strlen(h->source), s);
  s = SRChecksum64(h->activations, strlen(h->activations), s);
  if (h->has_in) { /* the input transforms (SPEC §14), when present */
    s = SRChecksum64(h->in_lo, sizeof(double) * (size_t)h->n, s);
    s = SRChecksum64(h->in_hi, sizeof(double) * (size_t)h->n, s);
    s = SRChecksum64(h->in_mean, sizeof(double) * (size_t)h->n, s);
    s = SRChecksum64(h->in_range, sizeof(double) * (size_t)h->n, s);
  }
  if (h->has_out) {
    const size_t no = (size_t)(h->model == SR_MODEL_DYNAMICS ? h->n : 1);
    s = SRChecksum64(h->out_scale, sizeof(double) * no, s);
    s = SRChecksum64(h->out_offset, sizeof(double) * no, s);
  }
  return s;
}

/* Reads the whole dataset grp/name of nelem values and checks its size and checksum (SPEC
   §13); refuses on comm, naming file and dataset.  Every rank reads the same bytes. */
static PetscErrorCode SRAbsReadChecked_Private(MPI_Comm comm, hid_t g, const char path[], const char grp[], const char name[], hid_t type, hsize_t nelem, void *buf)
{
  hid_t    d, s;
  hssize_t np;
  uint64_t want = 0;
  int      has;

  PetscFunctionBeginUser;
  has = H5Lexists(g, name, H5P_DEFAULT) > 0;
  PetscCheck(has, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: dataset /%s/%s missing", path, grp, name);
  SRCallHDF5Id(d, H5Dopen2(g, name, H5P_DEFAULT));
  SRCallHDF5Id(s, H5Dget_space(d));
  np = H5Sget_simple_extent_npoints(s);
  SRCallHDF5(H5Sclose(s));
  PetscCheck(np == (hssize_t)nelem, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: dataset /%s/%s has %lld values, the header says %llu", path, grp, name, (long long)np, (unsigned long long)nelem);
  has = H5Aexists(d, "checksum") > 0;
  PetscCheck(has, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: dataset /%s/%s has no checksum", path, grp, name);
  if (nelem > 0) SRCallHDF5(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
  PetscCall(SRAbsReadAttrNum_Private(comm, d, path, "checksum", H5T_NATIVE_UINT64, 1, &want));
  SRCallHDF5(H5Dclose(d));
  PetscCheck(want == SRChecksum64(buf, H5Tget_size(type) * (size_t)nelem, SRChecksumSeed(name, 0, 0)), comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: dataset /%s/%s fails its checksum (the file is damaged)", path, grp, name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every row of /cells (the rows this rank owns, in chunks): shape, checksum and the rules of
   abstraction_validate.c.  The first bad row over all ranks is refused on comm, naming it. */
PetscErrorCode SRAbstractionFileValidateRows(SRAbstractionFile af)
{
  const PetscInt n = af->h.n, rl = SRListRowLength(n);
  const PetscInt64 chunk = 65536;
  PetscMPIInt    size, rank;
  PetscInt64     ks, ke, bad = INT64_MAX, gbad;
  char           msg[512] = "";
  int32_t       *rows;
  double        *E;
  uint64_t      *sums;

  PetscFunctionBeginUser;
  { /* shapes */
    hid_t          ds[3] = {af->dE, af->dL, af->dS};
    const hsize_t  cols[3] = {(hsize_t)(2 * n), (hsize_t)rl, 1};
    const char    *names[3] = {"enclosure", "list", "checksum"};
    for (int q = 0; q < 3; q++) {
      hid_t   s;
      hsize_t dims[2] = {0, 1};
      int     nd;
      SRCallHDF5Id(s, H5Dget_space(ds[q]));
      nd = H5Sget_simple_extent_ndims(s);
      if (nd >= 1 && nd <= 2) SRCallHDF5(H5Sget_simple_extent_dims(s, dims, NULL));
      SRCallHDF5(H5Sclose(s));
      PetscCheck(nd == (q == 2 ? 1 : 2) && dims[0] == (hsize_t)af->h.K && (q == 2 || dims[1] == cols[q]), af->comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: dataset /cells/%s has shape %llu x %llu, the header says %lld x %llu", af->path, names[q], (unsigned long long)dims[0], (unsigned long long)dims[1], (long long)af->h.K, (unsigned long long)cols[q]);
    }
  }
  PetscCallMPI(MPI_Comm_size(af->comm, &size));
  PetscCallMPI(MPI_Comm_rank(af->comm, &rank));
  ks = af->h.K / size * rank + PetscMin((PetscInt64)rank, af->h.K % size); /* any split will do: every row is checked once */
  ke = ks + af->h.K / size + (rank < af->h.K % size ? 1 : 0);
  PetscCall(PetscMalloc3(rl * PetscMin(chunk, PetscMax(ke - ks, 1)), &rows, 2 * n * PetscMin(chunk, PetscMax(ke - ks, 1)), &E, PetscMin(chunk, PetscMax(ke - ks, 1)), &sums));
  for (PetscInt64 k0 = ks; k0 < ke && bad == INT64_MAX; k0 += chunk) {
    const PetscInt64 nk = PetscMin(chunk, ke - k0);
    PetscCall(SRAbsReadRows_Private(af->dL, H5T_NATIVE_INT32, k0, nk, (hsize_t)rl, rows));
    PetscCall(SRAbsReadRows_Private(af->dE, H5T_NATIVE_DOUBLE, k0, nk, (hsize_t)(2 * n), E));
    PetscCall(SRAbsReadRows_Private(af->dS, H5T_NATIVE_UINT64, k0, nk, 1, sums));
    for (PetscInt64 i = 0; i < nk; i++)
      if (!SRAbstractionRowValid(af->ax, k0 + i, E + 2 * n * i, rows + rl * i, sums[i], msg, sizeof(msg))) {
        bad = k0 + i;
        break;
      }
  }
  PetscCall(PetscFree3(rows, E, sums));
  PetscCallMPI(MPI_Allreduce(&bad, &gbad, 1, MPIU_INT64, MPI_MIN, af->comm));
  if (gbad != INT64_MAX) { /* the owner of the first bad row says what is wrong */
    PetscMPIInt owner = bad == gbad ? rank : size, gowner;
    PetscCallMPI(MPI_Allreduce(&owner, &gowner, 1, MPI_INT, MPI_MIN, af->comm));
    PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, gowner, af->comm));
    SETERRQ(af->comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: %s (the file is damaged or was altered; nothing is answered from it)", af->path, msg);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionFileProbe(MPI_Comm comm, const char path[], PetscBool *is)
{
  PetscMPIInt rank;
  int         yes = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    static const char *const any[] = {SR_ABSTRACTION_FORMAT, SR_ABSTRACTION_FORMAT_1, SR_ABSTRACTION_FORMAT_2, NULL}; /* 1, 2 are refused by name on open */
    PetscBool                ok;
    PetscCall(PetscTestFile(path, 'r', &ok));
    if (ok) PetscCall(SRH5FormatProbe(path, any, &ok));
    yes = ok ? 1 : 0;
  }
  PetscCallMPI(MPI_Bcast(&yes, 1, MPI_INT, 0, comm));
  *is = yes ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionFileOpen(MPI_Comm comm, const char path[], SRAbstractionFile *out)
{
  SRAbstractionFile af;
  hid_t             fapl, f, g;
  char              kind[32];
  int64_t           v;
  PetscBool         ok;

  PetscFunctionBeginUser;
  PetscCall(PetscTestFile(path, 'r', &ok));
  PetscCheck(ok, comm, PETSC_ERR_FILE_OPEN, "abstraction file %s: no such readable file", path);
  PetscCall(PetscNew(&af));
  af->comm = comm;
  PetscCall(PetscStrncpy(af->path, path, sizeof(af->path)));
  SRCallHDF5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  SRCallHDF5Id(fapl, SRAbsFapl_Private(comm));
  f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  SRCallHDF5(H5Pclose(fapl));
  PetscCheck(f >= 0, comm, PETSC_ERR_FILE_OPEN, "abstraction file %s: not an HDF5 file", path);
  af->file = f;
  PetscCall(SRH5FormatCheck(comm, f, "abstraction file", path, SRAbsFormats, SRAbsFormatsOld, "written before abstraction files carried checksums: write it again with simreach verify", NULL));
  PetscCall(SRH5AttrReadString(f, "abstraction file", path, "enclosure", "", PETSC_FALSE, af->h.enclosure, sizeof(af->h.enclosure)));
  PetscCall(SRH5AttrReadString(f, "abstraction file", path, "network_source", "", PETSC_FALSE, af->h.source, sizeof(af->h.source)));
  PetscCall(SRAbsReadAttrNum_Private(comm, f, path, "n", H5T_NATIVE_INT64, 1, &v));
  PetscCheck(v >= 1 && v <= SR_MAX_DIM, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: dimension %lld; allowed are 1..%d", path, (long long)v, SR_MAX_DIM);
  af->h.n = (PetscInt)v;
  PetscCall(SRAbsReadAttrNum_Private(comm, f, path, "K", H5T_NATIVE_INT64, 1, &v));
  af->h.K = v;
  PetscCall(SRAbsReadAttrNum_Private(comm, f, path, "bisect", H5T_NATIVE_INT64, 1, &v));
  af->h.bisect = (PetscInt)v;

  SRCallHDF5Id(g, H5Gopen2(f, "network", H5P_DEFAULT));
  {
    char    model[32];
    hid_t   a, s, d;
    hsize_t nw = 0, np = 0;
    int64_t w[SR_MAX_LAYERS];
    PetscCall(SRH5AttrReadString(g, "abstraction file", path, "sys", "", PETSC_FALSE, af->h.sys, sizeof(af->h.sys)));
    if (!strcmp(af->h.sys, "plant")) { /* SPEC §16: which plant file, and its digest */
      PetscCall(SRH5AttrReadString(g, "abstraction file", path, "plant", "", PETSC_FALSE, af->h.plant, sizeof(af->h.plant)));
      PetscCall(SRAbsReadAttrNum_Private(comm, g, path, "plant_digest", H5T_NATIVE_UINT64, 1, &af->h.plant_digest));
    }
    PetscCall(SRH5AttrReadString(g, "abstraction file", path, "model", "", PETSC_FALSE, model, sizeof(model)));
    af->h.model = !strcmp(model, "controller") ? SR_MODEL_CONTROLLER : SR_MODEL_DYNAMICS;
    PetscCall(SRAbsReadAttrNum_Private(comm, g, path, "sys_param", H5T_NATIVE_DOUBLE, 3, af->h.sys_param));
    PetscCall(SRAbsReadAttrNum_Private(comm, g, path, "sys_dt", H5T_NATIVE_DOUBLE, 1, &af->h.sys_dt));
    PetscCall(SRAbsReadAttrNum_Private(comm, g, path, "sys_umax", H5T_NATIVE_DOUBLE, 1, &af->h.sys_umax));
    {
      int64_t cs;
      PetscCall(SRAbsReadAttrNum_Private(comm, g, path, "control_steps", H5T_NATIVE_INT64, 1, &cs));
      af->h.control_steps = (PetscInt)cs;
    }
    SRCallHDF5Id(a, H5Aopen(g, "hidden_widths", H5P_DEFAULT));
    SRCallHDF5Id(s, H5Aget_space(a));
    SRCallHDF5(H5Sget_simple_extent_dims(s, &nw, NULL));
    SRCallHDF5(H5Sclose(s));
    SRCallHDF5(H5Aclose(a));
    PetscCheck(nw >= 1 && nw <= SR_MAX_LAYERS, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: %llu hidden layers; allowed 1..%d", path, (unsigned long long)nw, SR_MAX_LAYERS);
    PetscCall(SRAbsReadAttrNum_Private(comm, g, path, "hidden_widths", H5T_NATIVE_INT64, nw, w));
    af->h.nhidden = (PetscInt)nw;
    for (hsize_t i = 0; i < nw; i++) af->h.widths[i] = (PetscInt)w[i];
    af->h.activations[0] = 0;
    if (H5Aexists(g, "activations") > 0) { /* present when not simreach's own tanh network */
      SRActivation acts[SR_MAX_LAYERS + 1];
      char         what[PETSC_MAX_PATH_LEN + 32];
      PetscCall(SRH5AttrReadString(g, "abstraction file", path, "activations", " (it names every layer's activation)", PETSC_TRUE, af->h.activations, sizeof(af->h.activations)));
      PetscCall(PetscSNPrintf(what, sizeof what, "abstraction file %s", path));
      PetscCall(SRActivationsParse(what, af->h.activations, (PetscInt)nw + 1, acts)); /* refused here, before any work */
      af->h.has_in  = (PetscBool)(H5Aexists(g, "input_mean") > 0);
      af->h.has_out = (PetscBool)(H5Aexists(g, "output_scale") > 0);
      PetscCheck(af->h.n >= 1 && af->h.n <= SR_MAX_DIM, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: dimension %" PetscInt_FMT "; allowed 1..%d", path, af->h.n, SR_MAX_DIM);
      if (af->h.has_in) {
        PetscCall(SRAbsReadAttrNum_Private(comm, g, path, "input_clip_lo", H5T_NATIVE_DOUBLE, (hsize_t)af->h.n, af->h.in_lo));
        PetscCall(SRAbsReadAttrNum_Private(comm, g, path, "input_clip_hi", H5T_NATIVE_DOUBLE, (hsize_t)af->h.n, af->h.in_hi));
        PetscCall(SRAbsReadAttrNum_Private(comm, g, path, "input_mean", H5T_NATIVE_DOUBLE, (hsize_t)af->h.n, af->h.in_mean));
        PetscCall(SRAbsReadAttrNum_Private(comm, g, path, "input_range", H5T_NATIVE_DOUBLE, (hsize_t)af->h.n, af->h.in_range));
      }
      if (af->h.has_out) {
        const hsize_t no = (hsize_t)(af->h.model == SR_MODEL_DYNAMICS ? af->h.n : 1);
        PetscCall(SRAbsReadAttrNum_Private(comm, g, path, "output_scale", H5T_NATIVE_DOUBLE, no, af->h.out_scale));
        PetscCall(SRAbsReadAttrNum_Private(comm, g, path, "output_offset", H5T_NATIVE_DOUBLE, no, af->h.out_offset));
      }
    }
    SRCallHDF5Id(d, H5Dopen2(g, "params", H5P_DEFAULT));
    SRCallHDF5Id(s, H5Dget_space(d));
    PetscCheck(H5Sget_simple_extent_ndims(s) == 1, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: dataset /network/params is not one-dimensional", path);
    SRCallHDF5(H5Sget_simple_extent_dims(s, &np, NULL));
    SRCallHDF5(H5Sclose(s));
    SRCallHDF5(H5Dclose(d));
    PetscCheck(np >= 1 && np < (hsize_t)PETSC_MAX_INT, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: dataset /network/params has %llu values", path, (unsigned long long)np);
    af->h.nparams = (PetscInt)np;
    PetscCall(PetscMalloc1(PetscMax(np, 1), &af->params));
    PetscCall(SRAbsReadChecked_Private(comm, g, path, "network", "params", H5T_NATIVE_DOUBLE, np, af->params));
  }
  SRCallHDF5(H5Gclose(g));

  SRCallHDF5Id(g, H5Gopen2(f, "partition", H5P_DEFAULT));
  PetscCall(SRH5AttrReadString(g, "abstraction file", path, "kind", "", PETSC_FALSE, kind, sizeof(kind)));
  {
    const PetscInt n = af->h.n;
    int64_t        N[SR_MAX_DIM];
    SRAxes         A;
    PetscCall(SRAbsReadChecked_Private(comm, g, path, "partition", "counts", H5T_NATIVE_INT64, (hsize_t)n, N));
    PetscCall(PetscNew(&A));
    A->n       = n;
    A->K       = 1;
    A->is_grid = (PetscBool)!strcmp(kind, "grid");
    for (PetscInt e = 0; e < SR_MAX_DIM; e++) A->N[e] = 1;
    for (PetscInt e = 0; e < n; e++) {
      PetscCheck(N[e] >= 1 && N[e] < INT32_MAX, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: count %lld in dimension %" PetscInt_FMT, path, (long long)N[e], e);
      A->N[e] = (PetscInt)N[e];
      A->K *= N[e];
      PetscCall(PetscMalloc4(N[e], &A->olo[e], N[e], &A->ohi[e], N[e] + 1, &A->glo[e], N[e] + 1, &A->ghi[e]));
    }
    PetscCheck(A->K == af->h.K, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: the counts give %" PetscInt64_FMT " cells, the header says %" PetscInt64_FMT, path, A->K, af->h.K);
    af->ax = A; /* owned from here on, freed by close */
    PetscCall(SRAbsReadChecked_Private(comm, g, path, "partition", "domain_lo", H5T_NATIVE_DOUBLE, (hsize_t)n, A->dlo));
    PetscCall(SRAbsReadChecked_Private(comm, g, path, "partition", "domain_hi", H5T_NATIVE_DOUBLE, (hsize_t)n, A->dhi));
    for (PetscInt e = 0; e < n; e++) {
      const char *names[4] = {"cell_lo_%" PetscInt_FMT, "cell_hi_%" PetscInt_FMT, "boundary_lo_%" PetscInt_FMT, "boundary_hi_%" PetscInt_FMT};
      double     *dst[4]   = {A->olo[e], A->ohi[e], A->glo[e], A->ghi[e]};
      for (int q = 0; q < 4; q++) {
        char name[32];
        PetscCall(PetscSNPrintf(name, sizeof(name), names[q], e));
        PetscCall(SRAbsReadChecked_Private(comm, g, path, "partition", name, H5T_NATIVE_DOUBLE, (hsize_t)(A->N[e] + (q >= 2)), dst[q]));
      }
    }
  }
  SRCallHDF5(H5Gclose(g));
  SRCallHDF5Id(af->dE, H5Dopen2(f, "cells/enclosure", H5P_DEFAULT));
  SRCallHDF5Id(af->dL, H5Dopen2(f, "cells/list", H5P_DEFAULT));
  PetscCheck(H5Lexists(f, "cells/checksum", H5P_DEFAULT) > 0, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: dataset /cells/checksum missing", path);
  SRCallHDF5Id(af->dS, H5Dopen2(f, "cells/checksum", H5P_DEFAULT));
  { /* the header under its checksum, the domain the system's, the partition, then every row */
    uint64_t  hs;
    SRSystem  sys;
    char      msg[512];
    PetscBool valid;
    PetscCall(SRAbsReadAttrNum_Private(comm, f, path, "header_checksum", H5T_NATIVE_UINT64, 1, &hs));
    PetscCheck(hs == SRAbsHeaderSum_Private(&af->h), comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: the header attributes (/ and /network: n, K, sys, model, constants, control_steps, widths, enclosure) fail their checksum (the file is damaged)", path);
    PetscCall(SRSystemCreateStored(comm, af->h.sys, af->h.plant, NULL, &sys));
    PetscCheck(sys->n == af->h.n, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: dimension %" PetscInt_FMT ", system %s has %" PetscInt_FMT, path, af->h.n, af->h.sys, sys->n);
    valid = SRAbstractionAxesValid(af->ax, sys->dlo, sys->dhi, msg, sizeof(msg));
    PetscCheck(valid, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: %s (the file is damaged or was altered; nothing is answered from it)", path, msg);
    { /* the stored axes are the ones their counts (grid) or boundaries define, bit for bit */
      SRAxes   R, A = af->ax;
      PetscInt N[SR_MAX_DIM];
      for (PetscInt d = 0; d < A->n; d++) N[d] = A->N[d];
      if (A->is_grid) PetscCall(SRAxesCreateGrid(sys, N, &R));
      else PetscCall(SRAxesCreateBoundaries(A->n, N, (const double *const *)A->glo, &R));
      for (PetscInt d = 0; d < A->n && valid; d++)
        for (PetscInt i = 0; i <= A->N[d] && valid; i++) {
          if (A->glo[d][i] != R->glo[d][i] || A->ghi[d][i] != R->ghi[d][i]) PetscCall(PetscSNPrintf(msg, sizeof(msg), "/partition/boundary_lo_%" PetscInt_FMT ", boundary_hi_%" PetscInt_FMT " row %" PetscInt_FMT ": [%.17g, %.17g], the %s gives [%.17g, %.17g]", d, d, i, A->glo[d][i], A->ghi[d][i], A->is_grid ? "grid of these counts" : "boundary", R->glo[d][i], R->ghi[d][i]));
          else if (i < A->N[d] && (A->olo[d][i] != R->olo[d][i] || A->ohi[d][i] != R->ohi[d][i])) PetscCall(PetscSNPrintf(msg, sizeof(msg), "/partition/cell_lo_%" PetscInt_FMT ", cell_hi_%" PetscInt_FMT " row %" PetscInt_FMT ": [%.17g, %.17g], its boundaries give [%.17g, %.17g]", d, d, i, A->olo[d][i], A->ohi[d][i], R->olo[d][i], R->ohi[d][i]));
          else continue;
          valid = PETSC_FALSE;
        }
      PetscCall(SRAxesDestroy(&R));
    }
    PetscCall(SRSystemDestroy(&sys));
    PetscCheck(valid, comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: %s (the file is damaged or was altered; nothing is answered from it)", path, msg);
  }
  *out = af;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionFileGetHeader(SRAbstractionFile af, const SRAbstractionHeader **h)
{
  PetscFunctionBeginUser;
  *h = &af->h;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionFileGetAxes(SRAbstractionFile af, SRAxes *ax)
{
  PetscFunctionBeginUser;
  PetscCheck(af->ax, af->comm, PETSC_ERR_ARG_WRONGSTATE, "abstraction file %s: no axes (open it for reading)", af->path);
  *ax = af->ax;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionFileGetModel(SRAbstractionFile af, SRSystem *sys, SRModel *model)
{
  PetscFunctionBeginUser;
  PetscCall(SRSystemCreateStored(af->comm, af->h.sys, af->h.plant, NULL, sys));
  { /* the closed loop the file states (SPEC §13): an option may only repeat it */
    char what[PETSC_MAX_PATH_LEN + 32];
    PetscCall(PetscSNPrintf(what, sizeof what, "the abstraction file %s", af->path));
    PetscCall(SRSystemAdoptStored(af->comm, *sys, af->h.sys_param, af->h.sys_dt, af->h.sys_umax, af->h.control_steps, what));
    if (!strcmp(af->h.sys, "plant")) PetscCall(SRSystemCheckDigest(af->comm, *sys, af->h.plant, af->h.plant_digest, what)); /* SPEC §16 */
  }
  PetscCall(SRModelCreate(*sys, af->h.model, af->h.nhidden, af->h.widths, model));
  PetscCheck((*model)->mlp->nparams == af->h.nparams, af->comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: %" PetscInt_FMT " network parameters stored, the widths need %" PetscInt_FMT, af->path, af->h.nparams, (*model)->mlp->nparams);
  PetscCall(PetscArraycpy((*model)->mlp->params, af->params, af->h.nparams));
  if (af->h.activations[0]) {
    SRActivation acts[SR_MAX_LAYERS + 1];
    char         what[PETSC_MAX_PATH_LEN + 32];
    PetscCall(PetscSNPrintf(what, sizeof what, "abstraction file %s", af->path));
    PetscCall(SRActivationsParse(what, af->h.activations, (*model)->mlp->nlayers, acts));
    for (PetscInt l = 0; l < (*model)->mlp->nlayers; l++) PetscCall(SRMLPSetActivation((*model)->mlp, l, acts[l]));
    if (af->h.has_in) PetscCall(SRMLPSetInputTransform((*model)->mlp, af->h.in_lo, af->h.in_hi, af->h.in_mean, af->h.in_range));
    if (af->h.has_out) PetscCall(SRMLPSetOutputTransform((*model)->mlp, af->h.out_scale, af->h.out_offset));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionFileRead(SRAbstractionFile af, PetscInt64 k0, PetscInt64 nk, int32_t *rows, double *E)
{
  const PetscInt n = af->h.n;

  PetscFunctionBeginUser;
  PetscCheck(k0 >= 0 && nk >= 0 && k0 + nk <= af->h.K, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "abstraction file %s: rows [%" PetscInt64_FMT ", %" PetscInt64_FMT ") outside [0, %" PetscInt64_FMT ")", af->path, k0, k0 + nk, af->h.K);
  if (nk == 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (rows) PetscCall(SRAbsReadRows_Private(af->dL, H5T_NATIVE_INT32, k0, nk, (hsize_t)SRListRowLength(n), rows));
  if (E) PetscCall(SRAbsReadRows_Private(af->dE, H5T_NATIVE_DOUBLE, k0, nk, (hsize_t)(2 * n), E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionFileClose(SRAbstractionFile *af)
{
  PetscFunctionBeginUser;
  if (!af || !*af) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*af)->file >= 0) {
    if ((*af)->dE >= 0) SRCallHDF5(H5Dclose((*af)->dE));
    if ((*af)->dL >= 0) SRCallHDF5(H5Dclose((*af)->dL));
    if ((*af)->dS >= 0) SRCallHDF5(H5Dclose((*af)->dS));
    SRCallHDF5(H5Fclose((*af)->file));
  }
  PetscCall(SRAxesDestroy(&(*af)->ax));
  PetscCall(PetscFree((*af)->params));
  PetscCall(PetscFree(*af));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionFileReadFailures(SRAbstractionFile af, PetscInt64 *nf, int64_t **cells)
{
  hid_t   d, s;
  hsize_t dims[1] = {0};

  PetscFunctionBeginUser;
  SRCallHDF5Id(d, H5Dopen2(af->file, "failures/cell", H5P_DEFAULT));
  SRCallHDF5Id(s, H5Dget_space(d));
  PetscCheck(H5Sget_simple_extent_ndims(s) == 1, af->comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: /failures/cell is not one-dimensional", af->path);
  SRCallHDF5(H5Sget_simple_extent_dims(s, dims, NULL));
  *nf = (PetscInt64)dims[0];
  PetscCall(PetscMalloc1(PetscMax(*nf, 1), cells));
  if (*nf > 0) SRCallHDF5(H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, *cells));
  SRCallHDF5(H5Sclose(s));
  SRCallHDF5(H5Dclose(d));
  { /* the rows' checksums (SPEC §13) */
    double   *w;
    uint64_t *sums;
    hid_t     dw, dsum;
    PetscInt64 bad = -1;
    PetscCheck(H5Lexists(af->file, "failures/checksum", H5P_DEFAULT) > 0 && H5Lexists(af->file, "failures/witness", H5P_DEFAULT) > 0, af->comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: dataset /failures/checksum or /failures/witness missing", af->path);
    PetscCall(PetscMalloc2(PetscMax(*nf, 1) * af->h.n, &w, PetscMax(*nf, 1), &sums));
    SRCallHDF5Id(dw, H5Dopen2(af->file, "failures/witness", H5P_DEFAULT));
    SRCallHDF5Id(dsum, H5Dopen2(af->file, "failures/checksum", H5P_DEFAULT));
    {
      hid_t    s1, s2;
      hssize_t p1, p2;
      SRCallHDF5Id(s1, H5Dget_space(dw));
      SRCallHDF5Id(s2, H5Dget_space(dsum));
      p1 = H5Sget_simple_extent_npoints(s1);
      p2 = H5Sget_simple_extent_npoints(s2);
      SRCallHDF5(H5Sclose(s1));
      SRCallHDF5(H5Sclose(s2));
      PetscCheck(p1 == (hssize_t)(*nf * af->h.n) && p2 == (hssize_t)*nf, af->comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: /failures/witness or /failures/checksum does not have the %" PetscInt64_FMT " rows of /failures/cell", af->path, *nf);
    }
    if (*nf > 0) {
      SRCallHDF5(H5Dread(dw, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, w));
      SRCallHDF5(H5Dread(dsum, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, sums));
    }
    SRCallHDF5(H5Dclose(dw));
    SRCallHDF5(H5Dclose(dsum));
    for (PetscInt64 i = 0; i < *nf && bad < 0; i++)
      if (sums[i] != SRChecksum64(w + af->h.n * i, sizeof(double) * (size_t)af->h.n, SRChecksum64(&(*cells)[i], sizeof(int64_t), SRChecksumSeed("abstraction-failures", i, 0)))) bad = i;
    PetscCall(PetscFree2(w, sums));
    PetscCheck(bad < 0, af->comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: /failures/cell, /failures/witness row %" PetscInt64_FMT " fails its checksum (the file is damaged)", af->path, bad);
  }
  for (PetscInt64 i = 0; i < *nf; i++) PetscCheck((*cells)[i] >= 0 && (*cells)[i] < af->h.K, af->comm, PETSC_ERR_FILE_UNEXPECTED, "abstraction file %s: failing cell %" PetscInt64_FMT " outside [0, %" PetscInt64_FMT ")", af->path, (PetscInt64)(*cells)[i], af->h.K);
  PetscFunctionReturn(PETSC_SUCCESS);
}
