/* Writing the abstraction file of `simreach verify` (SPEC §10; schema in
   analysis/abstraction-schema.md).  Created as path.part (every dataset of known size created
   collectively up front, contiguous, and the metadata flushed), filled chunk by chunk with
   independent writes of each rank's owned rows (contiguous byte ranges of the early-allocated
   datasets, so no rank waits for another per chunk: collective writes made every chunk a
   synchronisation, 2 ranks spent 1.5-1.8 s in the write phase of 10^6 cells against 0.05 s on
   1 rank), finished with the failures and the metrics, then renamed into place: path is either
   absent or complete.  A write that fails on any rank is told to every rank (issue 34). */
#include <simreach/private/abstraction_file_impl.h>
#include <simreach/private/fileio.h>
#include <simreach/private/abstraction_valid.h>
#include <sys/statvfs.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>

/* Collective create of a contiguous dataset; rank 0 writes buf (may be NULL: no data). */
static PetscErrorCode SRAbsDataset_Private(hid_t g, const char name[], hid_t type, int rank, const hsize_t *dims, const void *buf, PetscMPIInt me, hid_t *out)
{
  hid_t s, d, dcpl;

  PetscFunctionBeginUser;
  SRCallHDF5Id(s, H5Screate_simple(rank, dims, NULL));
  SRCallHDF5Id(dcpl, H5Pcreate(H5P_DATASET_CREATE));
  SRCallHDF5(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY));
  SRCallHDF5(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
  SRCallHDF5Id(d, H5Dcreate2(g, name, type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT));
  if (buf) { /* its checksum (SPEC §13): buf is the same on every rank */
    size_t   nb = H5Tget_size(type);
    uint64_t sum;
    for (int i = 0; i < rank; i++) nb *= (size_t)dims[i];
    sum = SRChecksum64(buf, nb, SRChecksumSeed(name, 0, 0));
    PetscCall(SRH5AttrWrite(d, "checksum", H5T_NATIVE_UINT64, 1, &sum));
  }
  if (buf) {
    hid_t fs, ms;
    SRCallHDF5Id(fs, H5Dget_space(d));
    SRCallHDF5Id(ms, H5Screate_simple(rank, dims, NULL));
    if (me != 0) {
      SRCallHDF5(H5Sselect_none(fs));
      SRCallHDF5(H5Sselect_none(ms));
    }
    SRCallHDF5(H5Dwrite(d, type, ms, fs, H5P_DEFAULT, buf));
    SRCallHDF5(H5Sclose(ms));
    SRCallHDF5(H5Sclose(fs));
  }
  SRCallHDF5(H5Pclose(dcpl));
  SRCallHDF5(H5Sclose(s));
  if (out) *out = d;
  else SRCallHDF5(H5Dclose(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Write of rows [k0, k0 + nk) of a K x cols dataset: collective (every rank calls, nk may be 0)
   or independent (a rank with nk = 0 writes nothing; the dataset is allocated early, so no
   metadata changes). */
static PetscErrorCode SRAbsWriteRows_Private(hid_t d, hid_t type, PetscInt64 k0, PetscInt64 nk, hsize_t cols, const void *buf, PetscBool collective)
{
  hid_t   fs, ms, dx;
  hsize_t start[2] = {(hsize_t)k0, 0}, count[2] = {(hsize_t)nk, cols}, mdim[2] = {(hsize_t)PetscMax(nk, 1), cols};

  PetscFunctionBeginUser;
  if (!collective && nk == 0) PetscFunctionReturn(PETSC_SUCCESS);
  SRCallHDF5Id(fs, H5Dget_space(d));
  SRCallHDF5Id(ms, H5Screate_simple(2, mdim, NULL));
  if (nk > 0) SRCallHDF5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
  else {
    SRCallHDF5(H5Sselect_none(fs));
    SRCallHDF5(H5Sselect_none(ms));
  }
  SRCallHDF5Id(dx, H5Pcreate(H5P_DATASET_XFER));
  SRCallHDF5(H5Pset_dxpl_mpio(dx, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
  SRCallHDF5(H5Dwrite(d, type, ms, fs, dx, buf));
  SRCallHDF5(H5Pclose(dx));
  SRCallHDF5(H5Sclose(ms));
  SRCallHDF5(H5Sclose(fs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bytes the file will take, against the free space of its directory (rank 0 looks). */
static PetscErrorCode SRAbsCheckSpace_Private(MPI_Comm comm, const char path[], double need)
{
  PetscMPIInt rank;
  double      avail = -1.0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char           dir[PETSC_MAX_PATH_LEN];
    struct statvfs sv;
    PetscCall(PetscStrncpy(dir, path, sizeof(dir)));
    if (!statvfs(dirname(dir), &sv)) avail = (double)sv.f_bavail * (double)sv.f_frsize;
  }
  PetscCallMPI(MPI_Bcast(&avail, 1, MPI_DOUBLE, 0, comm));
  PetscCheck(avail < 0 || need <= avail, comm, PETSC_ERR_FILE_WRITE, "abstraction file %s needs %.3g GB, its file system has %.3g GB free: free space or write elsewhere (-output)", path, need / 1e9, avail / 1e9);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRAbsCreateBody_Private(SRAbstractionFile, const SRAbstractionHeader *, SRAxes, const double *);
static PetscErrorCode SRAbsAbandon_Private(SRAbstractionFile, char[]);

PetscErrorCode SRAbstractionFileCreate(MPI_Comm comm, const char path[], PetscBool force, const SRAbstractionHeader *h, SRAxes ax, const double *params, SRAbstractionFile *out)
{
  SRAbstractionFile af;
  PetscBool         exists;
  const PetscInt    n = ax->n;

  PetscFunctionBeginUser;
  PetscCall(PetscTestFile(path, 'r', &exists));
  PetscCheck(!exists || force, comm, PETSC_ERR_FILE_OPEN, "-output %s exists: give -force to replace it", path);
  PetscCall(SRAbsCheckSpace_Private(comm, path, (double)ax->K * (double)(16 * n + 4 * SRListRowLength(n)) + 1e6));
  PetscCall(SRFileCheckSpace(comm, path, (double)ax->K * (double)(16 * n + 4 * SRListRowLength(n)) + 1e6)); /* ulimit -f too (issue 34) */
  PetscCall(PetscNew(&af));
  af->comm  = comm;
  af->write = PETSC_TRUE;
  af->h     = *h;
  PetscCall(PetscStrncpy(af->path, path, sizeof(af->path)));
  af->force = force;
  af->h.n    = n;
  af->h.K    = ax->K;
  /* path.part created exclusively (never through a link, never over another .part; SPEC §13) */
  PetscCall(SRFileCreateExclusiveTemp(comm, path, af->part, sizeof(af->part)));
  PetscCall(SRFileReserve(comm, af->part, path, (double)ax->K * (double)(16 * n + 4 * SRListRowLength(n)))); /* the blocks are there (a full tmpfs, a quota) */
  af->file = af->dE = af->dL = af->dS = -1;
  SRCallHDF5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  { /* a disk that fills after the reservation: every rank learns of it, one line (issue 34) */
    PetscErrorCode ierr;
    PetscBool      failed;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    errno    = 0;
    ierr     = SRAbsCreateBody_Private(af, h, ax, params);
    af->werr = ierr ? (errno ? errno : -1) : 0;
    PetscCall(PetscPopErrorHandler());
    PetscCall(SRFileWriteAnyFailed(comm, af->werr, &failed));
    if (failed) {
      char part[PETSC_MAX_PATH_LEN];
      PetscCall(SRAbsAbandon_Private(af, part));
      PetscCall(SRFileWriteFail(comm, part, path, af->werr));
    }
  }
  *out = af;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Closes the half-written file on every rank (collective) and frees af; part = its .part. */
static PetscErrorCode SRAbsAbandon_Private(SRAbstractionFile af, char part[])
{
  PetscFunctionBeginUser;
  PetscCall(PetscStrncpy(part, af->part, PETSC_MAX_PATH_LEN));
  SRFileH5CloseBroken(af->file);
  PetscCall(PetscFree(af));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The file's metadata, the stored network and partition, the datasets of /cells (collective). */
static PetscErrorCode SRAbsCreateBody_Private(SRAbstractionFile af, const SRAbstractionHeader *h, SRAxes ax, const double *params)
{
  MPI_Comm       comm = af->comm;
  PetscMPIInt    rank;
  hid_t          fapl, f, g;
  hsize_t        dims[2];
  const PetscInt n = ax->n;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  SRCallHDF5Id(fapl, SRAbsFapl_Private(comm));
  { /* rank 0 alone writes the metadata: another rank that fails a raw write (its ulimit -f)
       never leaves HDF5's flush half-way with the others waiting in it (issue 34) */
    H5AC_cache_config_t mdc;
    mdc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    SRCallHDF5(H5Pget_mdc_config(fapl, &mdc));
    mdc.metadata_write_strategy = H5AC_METADATA_WRITE_STRATEGY__PROCESS_0_ONLY;
    SRCallHDF5(H5Pset_mdc_config(fapl, &mdc));
  }
  f = H5Fcreate(af->part, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  SRCallHDF5(H5Pclose(fapl));
  PetscCheck(f >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create the abstraction file %s (is the directory of -output writable?)", af->part);
  af->file = f;

  PetscCall(SRH5AttrWriteString(f, "simreach_format", SR_ABSTRACTION_FORMAT));
  PetscCall(SRH5AttrWriteString(f, "simreach_version", SR_VERSION_STRING));
  PetscCall(SRH5AttrWriteString(f, "enclosure", h->enclosure));
  PetscCall(SRH5AttrWriteString(f, "network_source", h->source));
  {
    int64_t v[3] = {(int64_t)n, (int64_t)ax->K, (int64_t)h->bisect};
    PetscCall(SRH5AttrWrite(f, "n", H5T_NATIVE_INT64, 1, &v[0]));
    PetscCall(SRH5AttrWrite(f, "K", H5T_NATIVE_INT64, 1, &v[1]));
    PetscCall(SRH5AttrWrite(f, "bisect", H5T_NATIVE_INT64, 1, &v[2]));
  }
  {
    const uint64_t hs = SRAbsHeaderSum_Private(&af->h);
    PetscCall(SRH5AttrWrite(f, "header_checksum", H5T_NATIVE_UINT64, 1, &hs));
  }

  /* /network: the map f_phi that was verified */
  SRCallHDF5Id(g, H5Gcreate2(f, "network", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  PetscCall(SRH5AttrWriteString(g, "sys", h->sys));
  if (!strcmp(h->sys, "plant")) { /* SPEC §16: which plant file, and its digest */
    PetscCall(SRH5AttrWriteString(g, "plant", h->plant));
    PetscCall(SRH5AttrWrite(g, "plant_digest", H5T_NATIVE_UINT64, 1, &h->plant_digest));
  }
  PetscCall(SRH5AttrWriteString(g, "model", SRModelTypes[h->model]));
  PetscCall(SRH5AttrWrite(g, "sys_param", H5T_NATIVE_DOUBLE, 3, h->sys_param));
  PetscCall(SRH5AttrWrite(g, "sys_dt", H5T_NATIVE_DOUBLE, 1, &h->sys_dt));
  PetscCall(SRH5AttrWrite(g, "sys_umax", H5T_NATIVE_DOUBLE, 1, &h->sys_umax));
  {
    const int64_t cs = h->control_steps;
    PetscCall(SRH5AttrWrite(g, "control_steps", H5T_NATIVE_INT64, 1, &cs));
  }
  {
    int64_t w[SR_MAX_LAYERS];
    for (PetscInt i = 0; i < h->nhidden; i++) w[i] = h->widths[i];
    PetscCall(SRH5AttrWrite(g, "hidden_widths", H5T_NATIVE_INT64, (hsize_t)h->nhidden, w));
  }
  if (h->activations[0]) PetscCall(SRH5AttrWriteString(g, "activations", h->activations));
  if (h->has_in) { /* the names of src/model/network_file.c */
    PetscCall(SRH5AttrWrite(g, "input_clip_lo", H5T_NATIVE_DOUBLE, (hsize_t)h->n, h->in_lo));
    PetscCall(SRH5AttrWrite(g, "input_clip_hi", H5T_NATIVE_DOUBLE, (hsize_t)h->n, h->in_hi));
    PetscCall(SRH5AttrWrite(g, "input_mean", H5T_NATIVE_DOUBLE, (hsize_t)h->n, h->in_mean));
    PetscCall(SRH5AttrWrite(g, "input_range", H5T_NATIVE_DOUBLE, (hsize_t)h->n, h->in_range));
  }
  if (h->has_out) {
    const hsize_t no = (hsize_t)(h->model == SR_MODEL_DYNAMICS ? h->n : 1);
    PetscCall(SRH5AttrWrite(g, "output_scale", H5T_NATIVE_DOUBLE, no, h->out_scale));
    PetscCall(SRH5AttrWrite(g, "output_offset", H5T_NATIVE_DOUBLE, no, h->out_offset));
  }
  dims[0] = (hsize_t)h->nparams;
  PetscCall(SRAbsDataset_Private(g, "params", H5T_NATIVE_DOUBLE, 1, dims, params, rank, NULL));
  SRCallHDF5(H5Gclose(g));

  /* /partition: the axes */
  SRCallHDF5Id(g, H5Gcreate2(f, "partition", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  PetscCall(SRH5AttrWriteString(g, "kind", ax->is_grid ? "grid" : "boundaries"));
  {
    int64_t N[SR_MAX_DIM];
    for (PetscInt d = 0; d < n; d++) N[d] = ax->N[d];
    dims[0] = (hsize_t)n;
    PetscCall(SRAbsDataset_Private(g, "counts", H5T_NATIVE_INT64, 1, dims, N, rank, NULL));
    PetscCall(SRAbsDataset_Private(g, "domain_lo", H5T_NATIVE_DOUBLE, 1, dims, ax->dlo, rank, NULL));
    PetscCall(SRAbsDataset_Private(g, "domain_hi", H5T_NATIVE_DOUBLE, 1, dims, ax->dhi, rank, NULL));
  }
  for (PetscInt d = 0; d < n; d++) {
    char name[32];
    dims[0] = (hsize_t)ax->N[d];
    PetscCall(PetscSNPrintf(name, sizeof(name), "cell_lo_%" PetscInt_FMT, d));
    PetscCall(SRAbsDataset_Private(g, name, H5T_NATIVE_DOUBLE, 1, dims, ax->olo[d], rank, NULL));
    PetscCall(PetscSNPrintf(name, sizeof(name), "cell_hi_%" PetscInt_FMT, d));
    PetscCall(SRAbsDataset_Private(g, name, H5T_NATIVE_DOUBLE, 1, dims, ax->ohi[d], rank, NULL));
    dims[0] = (hsize_t)ax->N[d] + 1;
    PetscCall(PetscSNPrintf(name, sizeof(name), "boundary_lo_%" PetscInt_FMT, d));
    PetscCall(SRAbsDataset_Private(g, name, H5T_NATIVE_DOUBLE, 1, dims, ax->glo[d], rank, NULL));
    PetscCall(PetscSNPrintf(name, sizeof(name), "boundary_hi_%" PetscInt_FMT, d));
    PetscCall(SRAbsDataset_Private(g, name, H5T_NATIVE_DOUBLE, 1, dims, ax->ghi[d], rank, NULL));
  }
  SRCallHDF5(H5Gclose(g));

  /* /cells: E_k and the index-box lists, filled by SRAbstractionFileWriteChunk */
  SRCallHDF5Id(g, H5Gcreate2(f, "cells", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  dims[0] = (hsize_t)ax->K;
  dims[1] = (hsize_t)(2 * n);
  PetscCall(SRAbsDataset_Private(g, "enclosure", H5T_NATIVE_DOUBLE, 2, dims, NULL, rank, &af->dE));
  dims[1] = (hsize_t)SRListRowLength(n);
  PetscCall(SRAbsDataset_Private(g, "list", H5T_NATIVE_INT32, 2, dims, NULL, rank, &af->dL));
  PetscCall(SRAbsDataset_Private(g, "checksum", H5T_NATIVE_UINT64, 1, dims, NULL, rank, &af->dS));
  SRCallHDF5(H5Gclose(g));
  /* the metadata on disk now: the chunks are raw data only, so a chunk that fails on one rank
     (disk full, ulimit -f) leaves nothing for H5Fclose to flush, and every rank closes alike */
  SRCallHDF5(H5Fflush(f, H5F_SCOPE_GLOBAL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This rank's rows [k0, k0 + nk): independent writes, no other rank waits. */
static PetscErrorCode SRAbsWriteChunk_Private(SRAbstractionFile af, PetscInt64 k0, PetscInt64 nk, const double *E, const int32_t *rows)
{
  const PetscInt n = af->h.n;

  PetscFunctionBeginUser;
  PetscCall(SRAbsWriteRows_Private(af->dE, H5T_NATIVE_DOUBLE, k0, nk, (hsize_t)(2 * n), E, PETSC_FALSE));
  PetscCall(SRAbsWriteRows_Private(af->dL, H5T_NATIVE_INT32, k0, nk, (hsize_t)SRListRowLength(n), rows, PETSC_FALSE));
  { /* the rows' checksums, written with them */
    uint64_t *sums;
    PetscCall(PetscMalloc1(PetscMax(nk, 1), &sums));
    for (PetscInt64 i = 0; i < nk; i++) sums[i] = SRAbstractionRowSum(n, k0 + i, E + 2 * n * i, rows + SRListRowLength(n) * i);
    PetscCall(SRAbsWriteRows_Private(af->dS, H5T_NATIVE_UINT64, k0, nk, 1, sums, PETSC_FALSE));
    PetscCall(PetscFree(sums));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionFileWriteChunk(SRAbstractionFile af, PetscInt64 k0, PetscInt64 nk, const double *E, const int32_t *rows)
{
  PetscFunctionBeginUser;
  PetscCheck(af->write, af->comm, PETSC_ERR_ARG_WRONGSTATE, "abstraction file %s is open for reading", af->path);
  if (!af->werr) { /* a failed write (disk full, ulimit -f) is kept, not raised: SRAbstractionFileFinish tells every rank */
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    errno    = 0;
    ierr     = SRAbsWriteChunk_Private(af, k0, nk, E, rows);
    af->werr = ierr ? (errno ? errno : -1) : 0;
    PetscCall(PetscPopErrorHandler());
  }
  SRFileTestPause(af->comm, "write"); /* tests: a kill -9 with the .part half written */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The failures and the metrics, then the file closed (collective). */
static PetscErrorCode SRAbsFinishBody_Private(SRAbstractionFile af, PetscInt64 nf, const int64_t *cell, const double *witness, const SRVerifyMetrics *m)
{
  const PetscInt n = af->h.n;
  PetscInt64     off = 0, total = 0;
  PetscMPIInt    rank;
  hid_t          g, dc, dw, dfs;
  hsize_t        dims[2];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(af->comm, &rank));
  PetscCallMPI(MPI_Exscan(&nf, &off, 1, MPIU_INT64, MPI_SUM, af->comm));
  if (rank == 0) off = 0;
  PetscCallMPI(MPI_Allreduce(&nf, &total, 1, MPIU_INT64, MPI_SUM, af->comm));
  SRCallHDF5Id(g, H5Gcreate2(af->file, "failures", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  dims[0] = (hsize_t)total;
  dims[1] = (hsize_t)n;
  PetscCall(SRAbsDataset_Private(g, "cell", H5T_NATIVE_INT64, 1, dims, NULL, rank, &dc));
  PetscCall(SRAbsDataset_Private(g, "witness", H5T_NATIVE_DOUBLE, 2, dims, NULL, rank, &dw));
  PetscCall(SRAbsDataset_Private(g, "checksum", H5T_NATIVE_UINT64, 1, dims, NULL, rank, &dfs));
  if (total > 0) {
    uint64_t *sums;
    PetscCall(PetscMalloc1(PetscMax(nf, 1), &sums));
    for (PetscInt64 i = 0; i < nf; i++) sums[i] = SRChecksum64(witness + n * i, sizeof(double) * (size_t)n, SRChecksum64(&cell[i], sizeof(int64_t), SRChecksumSeed("abstraction-failures", off + i, 0)));
    PetscCall(SRAbsWriteRows_Private(dfs, H5T_NATIVE_UINT64, off, nf, 1, sums, PETSC_TRUE));
    PetscCall(PetscFree(sums));
    PetscCall(SRAbsWriteRows_Private(dw, H5T_NATIVE_DOUBLE, off, nf, (hsize_t)n, witness, PETSC_TRUE));
    hid_t   fs, ms, dx;
    hsize_t start = (hsize_t)off, count = (hsize_t)nf, md = (hsize_t)PetscMax(nf, 1);
    SRCallHDF5Id(fs, H5Dget_space(dc));
    SRCallHDF5Id(ms, H5Screate_simple(1, &md, NULL));
    if (nf > 0) SRCallHDF5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL));
    else {
      SRCallHDF5(H5Sselect_none(fs));
      SRCallHDF5(H5Sselect_none(ms));
    }
    SRCallHDF5Id(dx, H5Pcreate(H5P_DATASET_XFER));
    SRCallHDF5(H5Pset_dxpl_mpio(dx, H5FD_MPIO_COLLECTIVE));
    SRCallHDF5(H5Dwrite(dc, H5T_NATIVE_INT64, ms, fs, dx, cell));
    SRCallHDF5(H5Pclose(dx));
    SRCallHDF5(H5Sclose(ms));
    SRCallHDF5(H5Sclose(fs));
  }
  SRCallHDF5(H5Dclose(dc));
  SRCallHDF5(H5Dclose(dw));
  SRCallHDF5(H5Dclose(dfs));
  SRCallHDF5(H5Gclose(g));

  SRCallHDF5Id(g, H5Gcreate2(af->file, "metrics", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  {
    const int64_t iv[5] = {m->K, m->entries, m->sink, m->failures, m->nonfinite};
    const char   *in[5] = {"K", "entries", "sink", "failures", "nonfinite"};
    const double  dv[6] = {m->succ_mean, m->volE_mean, m->t_enclose, m->t_lists, m->t_contain, m->t_write};
    const char   *dn[6] = {"succ_mean", "volE_mean", "time_enclosure", "time_lists", "time_containment", "time_write"};
    for (int i = 0; i < 5; i++) PetscCall(SRH5AttrWrite(g, in[i], H5T_NATIVE_INT64, 1, &iv[i]));
    for (int i = 0; i < 6; i++) PetscCall(SRH5AttrWrite(g, dn[i], H5T_NATIVE_DOUBLE, 1, &dv[i]));
    {
      const uint64_t ms = SRChecksum64(dv, sizeof(dv), SRChecksum64(iv, sizeof(iv), SRChecksumSeed("abstraction-metrics", 0, 0)));
      PetscCall(SRH5AttrWrite(g, "checksum", H5T_NATIVE_UINT64, 1, &ms));
    }
  }
  SRCallHDF5(H5Gclose(g));
  SRCallHDF5(H5Dclose(af->dE));
  af->dE = -1;
  SRCallHDF5(H5Dclose(af->dL));
  af->dL = -1;
  SRCallHDF5(H5Dclose(af->dS));
  af->dS = -1;
  SRCallHDF5(H5Fclose(af->file));
  af->file = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionFileFinish(SRAbstractionFile af, PetscInt64 nf, const int64_t *cell, const double *witness, const SRVerifyMetrics *m)
{
  PetscBool failed;

  PetscFunctionBeginUser;
  /* a chunk that failed on any rank: nothing more is written (issue 34) */
  PetscCall(SRFileWriteAnyFailed(af->comm, af->werr, &failed));
  if (!failed) {
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    errno    = 0;
    ierr     = SRAbsFinishBody_Private(af, nf, cell, witness, m);
    af->werr = ierr ? (errno ? errno : -1) : 0;
    PetscCall(PetscPopErrorHandler());
    PetscCall(SRFileWriteAnyFailed(af->comm, af->werr, &failed)); /* the last flush (H5Fclose) too */
  }
  if (failed) { /* every rank closes the file, the .part and lock go, one line names the file and the errno */
    SRFileH5CloseBroken(af->file);
    af->file = af->dE = af->dL = af->dS = -1;
    af->write = PETSC_FALSE;
    PetscCall(SRFileWriteFail(af->comm, af->part, af->path, af->werr));
  }
  PetscCallMPI(MPI_Barrier(af->comm));
  PetscCall(SRFileCommit(af->comm, af->part, af->path, af->force)); /* replaces path only with -force */
  af->write = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
