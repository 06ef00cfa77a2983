/* The results file of the study (SPEC §9): one parallel-HDF5 file, schema in
   analysis/results-schema.md.  Layout rule that makes kill -9 safe: all datasets are
   created collectively at once (contiguous, early allocation, fill values), the metadata
   is flushed once, and the file is renamed into place; after that only raw data is written
   (independent transfers from one rank), which never touches HDF5 metadata. */
#include <simreach/private/results.h>
#include <simreach/private/h5attr.h>
#include <simreach/private/fileio.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <math.h>

const char *const SRResultsCheckpointColumns[SR_CHECKPOINT_NFIELDS] = {"checkpoint", "epoch", "Lsim", "H", "task", "pred_error", "coverage", "succ_certified", "succ_minimal", "succ_empirical", "vol_E", "vol_union", "gap_min", "taulogn", "gap_max", "taulogN", "accepted", "rejected", "backtracked", "recheck_failures", "falsified", "Lencl", "H_train", "Lsim_heldout", "out_of_D", "succ_tight", "vol_E_tight", "succ_floor", "tao_reason", "theta_accepted", "theta_rejected", "theta_backtracked", "theta_moves", "theta_obj_before", "theta_obj_after", "theta_disp", "safe_C", "horizon_C", "safe_tight", "horizon_tight"};
/* wall is not a column of the table: it is not reproducible, so it lives in /runs/wall. */

const char *const SRSummaryColumns[SR_SUMMARY_NCOLS] = {"succ_reduction_mean", "succ_reduction_std", "volE_reduction_mean", "volE_reduction_std", "volU_reduction_mean", "volU_reduction_std", "dpred_error_mean", "dpred_error_std", "dcoverage_mean", "dcoverage_std", "spearman_mean", "spearman_std", "recheck_failures", "pred_error_mean", "coverage_mean", "succ_certified_mean", "vol_E_mean", "nseeds", "tight_reduction_mean", "tight_reduction_se", "volEtight_reduction_mean", "volEtight_reduction_se", "tight_reduction_accmatched_mean", "tight_reduction_accmatched_se", "volEtight_reduction_accmatched_mean", "volEtight_reduction_accmatched_se", "accmatched_pairs", "dLsim_heldout_mean", "dLsim_heldout_se", "dsucc_tight_mean", "dsucc_tight_se", "acted", "effect", "succ_tight_mean", "succ_floor_mean", "vol_E_tight_mean", "H_mean", "H_train_mean", "taulogN_mean", "succ_minimal_mean"};

struct _p_SRResults {
  MPI_Comm        comm;
  hid_t           file;
  PetscBool       write;
  SRResultsLayout lay;
  char           *canonical;
  hid_t           ck, wall, status, reason, resume, sd, si, net, cells, sbox, netck, cells0, sbox0;
  hid_t           strtype; /* fixed-length reason strings */
  hid_t           rc;      /* /runs/recheck_cells, -1 when the file has none */
  hid_t           enc, encsum; /* /runs/enclosures and its checksums, -1 when the file has none */
  /* format 2: row checksums (uint64, 0 = never written), parallel to the rows they cover */
  hid_t       cksum, stsum, rssum, sdsum, absum, netcksum;
  char       *filename;
  PetscMPIInt rank;
};

void SRResultsPackCheckpoint(const SRCheckpoint *cp, double row[SR_CHECKPOINT_NFIELDS])
{
  const double v[SR_CHECKPOINT_NFIELDS] = {(double)cp->checkpoint, (double)cp->epoch, cp->Lsim, cp->H, cp->task, cp->pred_error, cp->coverage, cp->succ_certified, cp->succ_minimal, cp->succ_empirical, cp->vol_E, cp->vol_union, cp->gap_min, cp->taulogn, cp->gap_max, cp->taulogN, (double)cp->accepted, (double)cp->rejected, (double)cp->backtracked, (double)cp->recheck_failures, (double)cp->falsified, cp->Lencl, cp->H_train, cp->Lsim_heldout, cp->out_of_D, cp->succ_tight, cp->vol_E_tight, cp->succ_floor, (double)cp->tao_reason, (double)cp->theta_accepted, (double)cp->theta_rejected, (double)cp->theta_backtracked, (double)cp->theta_moves, cp->theta_obj_before, cp->theta_obj_after, cp->theta_disp, cp->safe_C, cp->horizon_C, cp->safe_tight, cp->horizon_tight};
  memcpy(row, v, sizeof(v));
}

static PetscErrorCode CreateDataset_Private(hid_t loc, const char name[], hid_t type, int rank, const hsize_t *dims, const void *fill, hid_t *dset)
{
  hid_t space, dcpl;

  PetscFunctionBeginUser;
  SRCallHDF5Id(space, H5Screate_simple(rank, dims, NULL));
  SRCallHDF5Id(dcpl, H5Pcreate(H5P_DATASET_CREATE));
  SRCallHDF5(H5Pset_layout(dcpl, H5D_CONTIGUOUS));
  SRCallHDF5(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY));
  SRCallHDF5(H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC));
  SRCallHDF5(H5Pset_fill_value(dcpl, type, fill));
  SRCallHDF5Id(*dset, H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
  SRCallHDF5(H5Pclose(dcpl));
  SRCallHDF5(H5Sclose(space));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Independent write (or read) of the hyperslab start/count of dset from/to buf. */
static PetscErrorCode Hyperslab_Private(hid_t dset, hid_t memtype, int rank, const hsize_t *start, const hsize_t *count, void *buf, PetscBool write)
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

static PetscErrorCode WriteStringAttribute_Private(hid_t loc, const char name[], const char value[])
{
  const size_t len = strlen(value) + 1;

  PetscFunctionBeginUser;
  /* Attributes live in the object header (64 KiB in the default format). */
  PetscCheck(len < 60000, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "attribute %s of the results file is %zu bytes; at most 60000 are allowed (too many options?)", name, len);
  PetscCall(SRH5AttrWriteString(loc, name, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads a string attribute into a PetscMalloc'ed buffer; *value = NULL if absent. */
static PetscErrorCode ReadStringAttribute_Private(hid_t loc, const char name[], char **value)
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

static PetscErrorCode WriteNames_Private(hid_t loc, PetscInt n, const char *const names[])
{
  char buf[2048] = "";

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    if (i) PetscCall(PetscStrlcat(buf, ",", sizeof(buf)));
    PetscCall(PetscStrlcat(buf, names[i], sizeof(buf)));
  }
  PetscCall(WriteStringAttribute_Private(loc, "columns", buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static hid_t FileAccess_Private(MPI_Comm comm)
{
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) return fapl;
  if (H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0) return -1;
  /* No sieve buffer: a raw write reaches the file when H5Dwrite returns, in program order. */
  if (H5Pset_sieve_buf_size(fapl, 0) < 0) return -1;
  return fapl;
}

static PetscErrorCode OpenDatasets_Private(SRResults res)
{
  hid_t f = res->file;

  PetscFunctionBeginUser;
  SRCallHDF5Id(res->ck, H5Dopen2(f, "/runs/checkpoints", H5P_DEFAULT));
  SRCallHDF5Id(res->wall, H5Dopen2(f, "/runs/wall", H5P_DEFAULT));
  SRCallHDF5Id(res->status, H5Dopen2(f, "/runs/status", H5P_DEFAULT));
  SRCallHDF5Id(res->reason, H5Dopen2(f, "/runs/reason", H5P_DEFAULT));
  SRCallHDF5Id(res->resume, H5Dopen2(f, "/runs/resume", H5P_DEFAULT));
  SRCallHDF5Id(res->sd, H5Dopen2(f, "/runs/state_double", H5P_DEFAULT));
  SRCallHDF5Id(res->si, H5Dopen2(f, "/runs/state_int", H5P_DEFAULT));
  SRCallHDF5Id(res->net, H5Dopen2(f, "/runs/network", H5P_DEFAULT));
  SRCallHDF5Id(res->cells, H5Dopen2(f, "/runs/cells", H5P_DEFAULT));
  SRCallHDF5Id(res->sbox, H5Dopen2(f, "/runs/successor_box", H5P_DEFAULT));
  SRCallHDF5Id(res->netck, H5Dopen2(f, "/runs/network_checkpoints", H5P_DEFAULT));
  SRCallHDF5Id(res->cells0, H5Dopen2(f, "/runs/cells_initial", H5P_DEFAULT));
  SRCallHDF5Id(res->sbox0, H5Dopen2(f, "/runs/successor_box_initial", H5P_DEFAULT));
  SRCallHDF5Id(res->cksum, H5Dopen2(f, "/runs/checkpoints_checksum", H5P_DEFAULT));
  SRCallHDF5Id(res->stsum, H5Dopen2(f, "/runs/status_checksum", H5P_DEFAULT));
  SRCallHDF5Id(res->rssum, H5Dopen2(f, "/runs/resume_checksum", H5P_DEFAULT));
  SRCallHDF5Id(res->sdsum, H5Dopen2(f, "/runs/state_checksum", H5P_DEFAULT));
  SRCallHDF5Id(res->absum, H5Dopen2(f, "/runs/abstraction_checksum", H5P_DEFAULT));
  SRCallHDF5Id(res->netcksum, H5Dopen2(f, "/runs/network_checkpoints_checksum", H5P_DEFAULT));
  res->rc = -1;
  if (H5Lexists(f, "/runs/recheck_cells", H5P_DEFAULT) > 0) SRCallHDF5Id(res->rc, H5Dopen2(f, "/runs/recheck_cells", H5P_DEFAULT));
  res->enc = res->encsum = -1; /* the final E_k: absent in files written before they were stored */
  if (H5Lexists(f, "/runs/enclosures", H5P_DEFAULT) > 0 && H5Lexists(f, "/runs/enclosures_checksum", H5P_DEFAULT) > 0) {
    SRCallHDF5Id(res->enc, H5Dopen2(f, "/runs/enclosures", H5P_DEFAULT));
    SRCallHDF5Id(res->encsum, H5Dopen2(f, "/runs/enclosures_checksum", H5P_DEFAULT));
  }
  SRCallHDF5Id(res->strtype, H5Tcopy(H5T_C_S1));
  SRCallHDF5(H5Tset_size(res->strtype, SR_RESULTS_REASON_LEN));
  SRCallHDF5(H5Tset_strpad(res->strtype, H5T_STR_NULLTERM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CloseDatasets_Private(SRResults res)
{
  hid_t *ids[] = {&res->ck, &res->wall, &res->status, &res->reason, &res->resume, &res->sd, &res->si, &res->net, &res->cells, &res->sbox, &res->netck, &res->cells0, &res->sbox0, &res->cksum, &res->stsum, &res->rssum, &res->sdsum, &res->absum, &res->netcksum, &res->rc, &res->enc, &res->encsum};

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
    if (*ids[i] > 0) SRCallHDF5(H5Dclose(*ids[i]));
    *ids[i] = -1;
  }
  if (res->strtype > 0) SRCallHDF5(H5Tclose(res->strtype));
  res->strtype = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Alloc_Private(MPI_Comm comm, SRResults *res)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(res));
  (*res)->comm = comm;
  (*res)->file = -1;
  (*res)->ck = (*res)->wall = (*res)->status = (*res)->reason = (*res)->resume = (*res)->sd = (*res)->si = -1;
  (*res)->net = (*res)->cells = (*res)->sbox = (*res)->netck = (*res)->strtype = -1;
  (*res)->cells0 = (*res)->sbox0 = (*res)->rc = (*res)->enc = (*res)->encsum = -1;
  (*res)->cksum = (*res)->stsum = (*res)->rssum = (*res)->sdsum = (*res)->absum = (*res)->netcksum = -1;
  PetscCallMPI(MPI_Comm_rank(comm, &(*res)->rank));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The shape record of a layout: every dataset's shape follows from these ten numbers. */
#define SR_LAYOUT_RECORD 12
static void LayoutRecord_Private(const SRResultsLayout *lay, int64_t rec[SR_LAYOUT_RECORD])
{
  const int64_t v[SR_LAYOUT_RECORD] = {lay->nbeta, lay->ntau, lay->nseed, lay->nrows, lay->nparams, lay->ntheta, lay->K, lay->ncap, lay->ndstate, lay->nistate, lay->nfail, lay->ndim};
  memcpy(rec, v, sizeof(v));
}

/* Checksum of the layout record, the grid values and the canonical options. */
static uint64_t LayoutChecksum_Private(const SRResultsLayout *lay, const char canonical[])
{
  int64_t  rec[SR_LAYOUT_RECORD], seeds[SR_RESULTS_MAX_LIST];
  uint64_t h = SRChecksumSeed("layout", 0, 0);

  LayoutRecord_Private(lay, rec);
  for (PetscInt i = 0; i < lay->nseed && i < SR_RESULTS_MAX_LIST; i++) seeds[i] = lay->seed[i];
  h = SRChecksum64(rec, sizeof(rec), h);
  h = SRChecksum64(lay->beta, sizeof(double) * (size_t)lay->nbeta, h);
  h = SRChecksum64(lay->tau, sizeof(double) * (size_t)lay->ntau, h);
  h = SRChecksum64(seeds, sizeof(int64_t) * (size_t)lay->nseed, h);
  return SRChecksum64(canonical, strlen(canonical), h);
}

double SRResultsFileBytes(const SRResultsLayout *lay)
{
  const double R = (double)lay->nbeta * (double)lay->ntau * (double)lay->nseed, rows = (double)lay->nrows;
  double       per = 0;

  per += rows * (SR_CHECKPOINT_NFIELDS + 3);                     /* checkpoints, wall, 2 checksums */
  per += 1 + SR_RESULTS_REASON_LEN / 8 + 2 + 1 + 1 + 2 + 2;      /* status, reason, resume, checksums */
  per += 2.0 * ((double)lay->ndstate + (double)lay->nistate);   /* state slots */
  per += (double)lay->nparams * (1.0 + rows);                   /* final network, one per checkpoint */
  per += 2.0 * (double)lay->ntheta;                             /* cells, cells_initial */
  per += 2.0 * (double)lay->K * (double)lay->ncap;              /* successor boxes, final and initial */
  per += 4.0 * (double)lay->ndim * (double)lay->K + 1;          /* final enclosures and their checksum */
  per += 1;                                                     /* spearman_run */
  return 8.0 * R * per + 8.0 * ((double)lay->nbeta * (double)lay->ntau * (SR_SUMMARY_NCOLS + 2) + 3.0 * R) + 1e6;
}

static PetscErrorCode CreateBody_Private(MPI_Comm comm, const char part[], const SRResultsLayout *lay, const char options[], const char canonical[], SRResults *res)
{
  hid_t       fapl, g, d;
  PetscMPIInt rank;
  const double  nan = NAN, zero = 0.0;
  const int64_t m1 = -1, z = 0;
  const uint64_t zsum = 0;
  const char    empty[SR_RESULTS_REASON_LEN] = "";
  const hsize_t R = (hsize_t)lay->nruns;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  SRCallHDF5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  SRCallHDF5Id(fapl, FileAccess_Private(comm));
  (*res)->file = H5Fcreate(part, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  PetscCheck((*res)->file >= 0, comm, PETSC_ERR_FILE_OPEN, "cannot create the results file %s (is the directory of -output writable?)", part);
  SRCallHDF5(H5Pclose(fapl));
  {
    hid_t f = (*res)->file;
    PetscCall(WriteStringAttribute_Private(f, "simreach_format", SR_RESULTS_FORMAT));
    PetscCall(WriteStringAttribute_Private(f, "simreach_version", SR_VERSION_STRING));
    PetscCall(WriteStringAttribute_Private(f, "options", options));
    PetscCall(WriteStringAttribute_Private(f, "options_canonical", canonical));
    {
      int64_t  rec[SR_LAYOUT_RECORD];
      uint64_t sum = LayoutChecksum_Private(lay, canonical);
      hsize_t  n   = SR_LAYOUT_RECORD, one = 1;
      hid_t    sp, at;
      LayoutRecord_Private(lay, rec);
      SRCallHDF5Id(sp, H5Screate_simple(1, &n, NULL));
      SRCallHDF5Id(at, H5Acreate2(f, "layout", H5T_STD_I64LE, sp, H5P_DEFAULT, H5P_DEFAULT));
      SRCallHDF5(H5Awrite(at, H5T_NATIVE_INT64, rec));
      SRCallHDF5(H5Aclose(at));
      SRCallHDF5(H5Sclose(sp));
      SRCallHDF5Id(sp, H5Screate_simple(1, &one, NULL));
      SRCallHDF5Id(at, H5Acreate2(f, "layout_checksum", H5T_STD_U64LE, sp, H5P_DEFAULT, H5P_DEFAULT));
      SRCallHDF5(H5Awrite(at, H5T_NATIVE_UINT64, &sum));
      SRCallHDF5(H5Aclose(at));
      SRCallHDF5(H5Sclose(sp));
    }

    /* /grid */
    hid_t   gd[4];
    hsize_t dims[3];
    SRCallHDF5Id(g, H5Gcreate2(f, "grid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    dims[0] = (hsize_t)lay->nbeta;
    PetscCall(CreateDataset_Private(g, "beta", H5T_NATIVE_DOUBLE, 1, dims, &zero, &gd[0]));
    dims[0] = (hsize_t)lay->ntau;
    PetscCall(CreateDataset_Private(g, "tau", H5T_NATIVE_DOUBLE, 1, dims, &zero, &gd[1]));
    dims[0] = (hsize_t)lay->nseed;
    PetscCall(CreateDataset_Private(g, "seed", H5T_NATIVE_INT64, 1, dims, &z, &gd[2]));
    dims[0] = R;
    dims[1] = 3;
    PetscCall(CreateDataset_Private(g, "points", H5T_NATIVE_DOUBLE, 2, dims, &zero, &gd[3]));
    {
      const char *const pc[3] = {"beta", "tau", "seed"};
      PetscCall(WriteNames_Private(gd[3], 3, pc));
    }
    SRCallHDF5(H5Gclose(g));

    /* /runs */
    SRCallHDF5Id(g, H5Gcreate2(f, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    dims[0] = R;
    dims[1] = (hsize_t)lay->nrows;
    dims[2] = SR_CHECKPOINT_NFIELDS;
    PetscCall(CreateDataset_Private(g, "checkpoints", H5T_NATIVE_DOUBLE, 3, dims, &nan, &d));
    PetscCall(WriteNames_Private(d, SR_CHECKPOINT_NFIELDS, SRResultsCheckpointColumns));
    SRCallHDF5(H5Dclose(d));
    PetscCall(CreateDataset_Private(g, "wall", H5T_NATIVE_DOUBLE, 2, dims, &nan, &d));
    SRCallHDF5(H5Dclose(d));
    PetscCall(CreateDataset_Private(g, "status", H5T_NATIVE_INT64, 1, dims, &z, &d));
    SRCallHDF5(H5Dclose(d));
    {
      hid_t st;
      SRCallHDF5Id(st, H5Tcopy(H5T_C_S1));
      SRCallHDF5(H5Tset_size(st, SR_RESULTS_REASON_LEN));
      SRCallHDF5(H5Tset_strpad(st, H5T_STR_NULLTERM));
      PetscCall(CreateDataset_Private(g, "reason", st, 1, dims, empty, &d));
      SRCallHDF5(H5Dclose(d));
      SRCallHDF5(H5Tclose(st));
    }
    dims[1] = 2;
    PetscCall(CreateDataset_Private(g, "resume", H5T_NATIVE_INT64, 2, dims, &m1, &d));
    SRCallHDF5(H5Dclose(d));
    dims[2] = (hsize_t)lay->ndstate;
    PetscCall(CreateDataset_Private(g, "state_double", H5T_NATIVE_DOUBLE, 3, dims, &zero, &d));
    SRCallHDF5(H5Dclose(d));
    dims[2] = (hsize_t)lay->nistate;
    PetscCall(CreateDataset_Private(g, "state_int", H5T_NATIVE_INT64, 3, dims, &z, &d));
    SRCallHDF5(H5Dclose(d));
    dims[1] = (hsize_t)lay->nparams;
    PetscCall(CreateDataset_Private(g, "network", H5T_NATIVE_DOUBLE, 2, dims, &nan, &d));
    SRCallHDF5(H5Dclose(d));
    dims[1] = (hsize_t)lay->ntheta;
    PetscCall(CreateDataset_Private(g, "cells", H5T_NATIVE_DOUBLE, 2, dims, &nan, &d));
    SRCallHDF5(H5Dclose(d));
    PetscCall(CreateDataset_Private(g, "cells_initial", H5T_NATIVE_DOUBLE, 2, dims, &nan, &d));
    SRCallHDF5(H5Dclose(d));
    /* C(k) as index boxes (SPEC §5): K rows of 2n + 1 (lo, hi, sink flag) per run */
    dims[1] = (hsize_t)lay->K;
    dims[2] = (hsize_t)lay->ncap;
    PetscCall(CreateDataset_Private(g, "successor_box", H5T_NATIVE_INT64, 3, dims, &m1, &d));
    SRCallHDF5(H5Dclose(d));
    PetscCall(CreateDataset_Private(g, "successor_box_initial", H5T_NATIVE_INT64, 3, dims, &m1, &d));
    SRCallHDF5(H5Dclose(d));
    /* the network at every checkpoint (SPEC §10) */
    dims[1] = (hsize_t)lay->nrows;
    dims[2] = (hsize_t)lay->nparams;
    PetscCall(CreateDataset_Private(g, "network_checkpoints", H5T_NATIVE_DOUBLE, 3, dims, &nan, &d));
    SRCallHDF5(H5Dclose(d));
    /* format 2: the row checksums (SRChecksum64; 0 = never written) */
    dims[1] = (hsize_t)lay->nrows;
    PetscCall(CreateDataset_Private(g, "checkpoints_checksum", H5T_NATIVE_UINT64, 2, dims, &zsum, &d));
    SRCallHDF5(H5Dclose(d));
    PetscCall(CreateDataset_Private(g, "network_checkpoints_checksum", H5T_NATIVE_UINT64, 2, dims, &zsum, &d));
    SRCallHDF5(H5Dclose(d));
    if (lay->nfail > 0) { /* SPEC §11: per-cell failures (cell, outcome, x, f(x) lo, hi) */
      char cols[64];
      dims[0] = R;
      dims[1] = (hsize_t)lay->nrows;
      dims[2] = (hsize_t)(lay->nfail * (2 + 3 * lay->ndim));
      PetscCall(CreateDataset_Private(g, "recheck_cells", H5T_NATIVE_DOUBLE, 3, dims, &nan, &d));
      PetscCall(PetscSNPrintf(cols, sizeof(cols), "cell,outcome,x[%" PetscInt_FMT "],fx_lo[%" PetscInt_FMT "],fx_hi[%" PetscInt_FMT "]", lay->ndim, lay->ndim, lay->ndim));
      PetscCall(WriteStringAttribute_Private(d, "columns", cols));
      SRCallHDF5(H5Dclose(d));
    }
    /* the final enclosures E_k (run's, then tightest) of every cell */
    dims[0] = R;
    dims[1] = (hsize_t)lay->K;
    dims[2] = (hsize_t)(4 * lay->ndim);
    PetscCall(CreateDataset_Private(g, "enclosures", H5T_NATIVE_DOUBLE, 3, dims, &nan, &d));
    PetscCall(WriteStringAttribute_Private(d, "columns", "run_lo[n],run_hi[n],tight_lo[n],tight_hi[n]"));
    SRCallHDF5(H5Dclose(d));
    PetscCall(CreateDataset_Private(g, "enclosures_checksum", H5T_NATIVE_UINT64, 1, dims, &zsum, &d));
    SRCallHDF5(H5Dclose(d));
    PetscCall(CreateDataset_Private(g, "status_checksum", H5T_NATIVE_UINT64, 1, dims, &zsum, &d));
    SRCallHDF5(H5Dclose(d));
    PetscCall(CreateDataset_Private(g, "resume_checksum", H5T_NATIVE_UINT64, 1, dims, &zsum, &d));
    SRCallHDF5(H5Dclose(d));
    dims[1] = 2;
    PetscCall(CreateDataset_Private(g, "state_checksum", H5T_NATIVE_UINT64, 2, dims, &zsum, &d));
    SRCallHDF5(H5Dclose(d));
    PetscCall(CreateDataset_Private(g, "abstraction_checksum", H5T_NATIVE_UINT64, 2, dims, &zsum, &d));
    {
      const char *const ac[2] = {"initial", "final"};
      PetscCall(WriteNames_Private(d, 2, ac));
    }
    SRCallHDF5(H5Dclose(d));
    SRCallHDF5(H5Gclose(g));

    /* /summary */
    SRCallHDF5Id(g, H5Gcreate2(f, "summary", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    dims[0] = R;
    PetscCall(CreateDataset_Private(g, "spearman_run", H5T_NATIVE_DOUBLE, 1, dims, &nan, &d));
    SRCallHDF5(H5Dclose(d));
    dims[0] = (hsize_t)lay->ntau;
    PetscCall(CreateDataset_Private(g, "spearman_tau", H5T_NATIVE_DOUBLE, 1, dims, &nan, &d));
    SRCallHDF5(H5Dclose(d));
    dims[0] = 1;
    PetscCall(CreateDataset_Private(g, "spearman_all", H5T_NATIVE_DOUBLE, 1, dims, &nan, &d));
    SRCallHDF5(H5Dclose(d));
    PetscCall(CreateDataset_Private(g, "gap_ratio_max", H5T_NATIVE_DOUBLE, 1, dims, &nan, &d));
    SRCallHDF5(H5Dclose(d));
    dims[0] = (hsize_t)lay->nbeta;
    dims[1] = (hsize_t)lay->ntau;
    dims[2] = SR_SUMMARY_NCOLS;
    PetscCall(CreateDataset_Private(g, "table", H5T_NATIVE_DOUBLE, 3, dims, &nan, &d));
    PetscCall(WriteNames_Private(d, SR_SUMMARY_NCOLS, SRSummaryColumns));
    SRCallHDF5(H5Dclose(d));
    dims[0] = 4;
    PetscCall(CreateDataset_Private(g, "counts", H5T_NATIVE_INT64, 1, dims, &m1, &d));
    {
      const char *const cc[4] = {"recheck_failures", "falsified", "runs_done", "runs_diverged"};
      PetscCall(WriteNames_Private(d, 4, cc));
    }
    SRCallHDF5(H5Dclose(d));
    dims[0] = 3;
    PetscCall(CreateDataset_Private(g, "verdict", H5T_NATIVE_INT64, 1, dims, &m1, &d));
    {
      const char *const vc[3] = {"spearman_gt_0.8", "reduction_ge_20pct", "zero_containment_failures"};
      PetscCall(WriteNames_Private(d, 3, vc));
    }
    SRCallHDF5(H5Dclose(d));
    SRCallHDF5(H5Gclose(g));

    /* grid values: raw data, one writer */
    if (rank == 0) {
      int64_t *seeds;
      double  *pts;
      hsize_t  start[2] = {0, 0}, count[2];
      PetscCall(PetscMalloc2(lay->nseed, &seeds, 3 * lay->nruns, &pts));
      for (PetscInt i = 0; i < lay->nseed; i++) seeds[i] = lay->seed[i];
      for (PetscInt ib = 0; ib < lay->nbeta; ib++)
        for (PetscInt it = 0; it < lay->ntau; it++)
          for (PetscInt is = 0; is < lay->nseed; is++) {
            PetscInt r     = (ib * lay->ntau + it) * lay->nseed + is;
            pts[3 * r]     = lay->beta[ib];
            pts[3 * r + 1] = lay->tau[it];
            pts[3 * r + 2] = (double)lay->seed[is];
          }
      count[0] = (hsize_t)lay->nbeta;
      PetscCall(Hyperslab_Private(gd[0], H5T_NATIVE_DOUBLE, 1, start, count, (void *)lay->beta, PETSC_TRUE));
      count[0] = (hsize_t)lay->ntau;
      PetscCall(Hyperslab_Private(gd[1], H5T_NATIVE_DOUBLE, 1, start, count, (void *)lay->tau, PETSC_TRUE));
      count[0] = (hsize_t)lay->nseed;
      PetscCall(Hyperslab_Private(gd[2], H5T_NATIVE_INT64, 1, start, count, seeds, PETSC_TRUE));
      count[0] = R;
      count[1] = 3;
      PetscCall(Hyperslab_Private(gd[3], H5T_NATIVE_DOUBLE, 2, start, count, pts, PETSC_TRUE));
      PetscCall(PetscFree2(seeds, pts));
    }
    for (int i = 0; i < 4; i++) SRCallHDF5(H5Dclose(gd[i]));
  }
  PetscCall(OpenDatasets_Private(*res));
  /* The one metadata flush: afterwards only raw data changes. */
  SRCallHDF5(H5Fflush((*res)->file, H5F_SCOPE_GLOBAL));
  PetscCallMPI(MPI_Barrier(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Closes a file whose creation failed half-way: the groups, datasets, types and attributes the
   creation left open first (with an object open, H5Fclose of an MPI-IO file fails, and HDF5 would
   try again inside MPI_Finalize on a file that is gone -- a crash instead of the message). */
static void CloseBroken_Private(hid_t file)
{
  ssize_t n = H5Fget_obj_count(file, H5F_OBJ_ALL & ~H5F_OBJ_FILE);
  if (n > 0) {
    hid_t *ids = (hid_t *)malloc((size_t)n * sizeof(hid_t));
    if (ids) {
      n = H5Fget_obj_ids(file, H5F_OBJ_ALL & ~H5F_OBJ_FILE, (size_t)n, ids);
      for (ssize_t i = 0; i < n; i++) {
        if (H5Iget_type(ids[i]) == H5I_ATTR) (void)H5Aclose(ids[i]);
        else (void)H5Oclose(ids[i]);
      }
      free(ids);
    }
  }
  (void)H5Fclose(file);
}

PetscErrorCode SRResultsCreateNew(MPI_Comm comm, const char file[], const SRResultsLayout *lay, const char options[], const char canonical[], PetscBool force, SRResults *res)
{
  char           part[PETSC_MAX_PATH_LEN];
  PetscErrorCode ierr;
  int            ok, allok, err;

  PetscFunctionBeginUser;
  /* the whole file is allocated at creation: check that it fits before writing anything */
  PetscCall(SRFileCheckSpace(comm, file, 1.01 * SRResultsFileBytes(lay) + 1048576.0));
  PetscCall(SRFileCreateExclusiveTemp(comm, file, part, sizeof(part)));
  /* the blocks really there (quotas, a disk filled since the check): else part is removed, exit 4 */
  PetscCall(SRFileReserve(comm, part, file, SRResultsFileBytes(lay)));
  PetscCall(Alloc_Private(comm, res));
  (*res)->lay   = *lay;
  (*res)->write = PETSC_TRUE;
  PetscCall(PetscStrallocpy(canonical, &(*res)->canonical));
  PetscCall(PetscStrallocpy(file, &(*res)->filename));
  /* a failure (disk full, I/O error) removes the partial file and says why, naming the file */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  errno = 0;
  ierr  = CreateBody_Private(comm, part, lay, options, canonical, res);
  err   = errno;
  PetscCall(PetscPopErrorHandler());
  ok = !ierr;
  PetscCallMPI(MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm));
  if (!allok) {
    char        msg[PETSC_MAX_PATH_LEN * 2] = "";
    const char *text;
    char       *specific = NULL;
    (void)CloseDatasets_Private(*res);
    if ((*res)->file >= 0) CloseBroken_Private((*res)->file);
    (*res)->file = -1;
    PetscCall(SRFileRemove(comm, part));
    if ((*res)->rank == 0) {
      SRFileWriteFailureReason(file, err, msg, sizeof(msg));
      if (ierr && !PetscErrorMessage(ierr, &text, &specific) && specific && !strstr(msg, "full")) {
        PetscCall(PetscStrlcat(msg, " (", sizeof(msg)));
        PetscCall(PetscStrlcat(msg, specific, sizeof(msg)));
        PetscCall(PetscStrlcat(msg, ")", sizeof(msg)));
      }
    }
    PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, comm));
    PetscCall(PetscFree((*res)->canonical));
    PetscCall(PetscFree((*res)->filename));
    PetscCall(PetscFree(*res));
    SETERRQ(comm, PETSC_ERR_FILE_WRITE, "cannot create the results file %s: %s; the partial file %s was removed", file, msg, part);
  }
  PetscCall(SRFileCommit(comm, part, file, force));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Dims_Private(hid_t dset, int rank, hsize_t *dims)
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

/* Reads a 1-D numeric attribute of n elements; *found = 0 if absent or of another size. */
static PetscErrorCode ReadNumericAttribute_Private(hid_t loc, const char name[], hid_t memtype, size_t n, void *buf, int *found)
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

/* Reads one /grid dataset of at most SR_RESULTS_MAX_LIST values. */
static PetscErrorCode ReadGrid_Private(SRResults res, const char name[], hid_t memtype, void *buf, PetscInt *n)
{
  hid_t   d;
  hsize_t dims[1], start[1] = {0};

  PetscFunctionBeginUser;
  SRCallHDF5Id(d, H5Dopen2(res->file, name, H5P_DEFAULT));
  PetscCall(Dims_Private(d, 1, dims));
  PetscCheck(dims[0] >= 1 && dims[0] <= SR_RESULTS_MAX_LIST, res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: %s has %llu values, allowed are 1 to %d (the file is damaged); it was left untouched", res->filename, name, (unsigned long long)dims[0], SR_RESULTS_MAX_LIST);
  *n = (PetscInt)dims[0];
  PetscCall(Hyperslab_Private(d, memtype, 1, start, dims, buf, PETSC_FALSE));
  SRCallHDF5(H5Dclose(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The layout from the checksummed `layout` record; the grid and every dataset's shape must
   agree with it (a flipped bit in a dimension is refused, not trusted). */
static PetscErrorCode ReadLayout_Private(SRResults res)
{
  SRResultsLayout *lay = &res->lay;
  int64_t          seeds[SR_RESULTS_MAX_LIST], rec[SR_LAYOUT_RECORD];
  uint64_t         sum = 0;
  int              found, found2;
  PetscInt         n[3];

  PetscFunctionBeginUser;
  PetscCall(ReadGrid_Private(res, "/grid/beta", H5T_NATIVE_DOUBLE, lay->beta, &n[0]));
  PetscCall(ReadGrid_Private(res, "/grid/tau", H5T_NATIVE_DOUBLE, lay->tau, &n[1]));
  PetscCall(ReadGrid_Private(res, "/grid/seed", H5T_NATIVE_INT64, seeds, &n[2]));
  PetscCall(ReadNumericAttribute_Private(res->file, "layout", H5T_NATIVE_INT64, SR_LAYOUT_RECORD, rec, &found));
  PetscCall(ReadNumericAttribute_Private(res->file, "layout_checksum", H5T_NATIVE_UINT64, 1, &sum, &found2));
  PetscCheck(found && found2, res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: the attributes layout and layout_checksum are missing (the file is damaged); it was left untouched", res->filename);
  for (int i = 0; i < SR_LAYOUT_RECORD; i++) PetscCheck(rec[i] >= 0 && rec[i] <= PETSC_MAX_INT, res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: layout entry %d is %lld (the file is damaged); it was left untouched", res->filename, i, (long long)rec[i]);
  lay->nbeta   = (PetscInt)rec[0];
  lay->ntau    = (PetscInt)rec[1];
  lay->nseed   = (PetscInt)rec[2];
  lay->nrows   = (PetscInt)rec[3];
  lay->nparams = (PetscInt)rec[4];
  lay->ntheta  = (PetscInt)rec[5];
  lay->K       = (PetscInt)rec[6];
  lay->ncap    = (PetscInt)rec[7];
  lay->ndstate = (PetscInt)rec[8];
  lay->nistate = (PetscInt)rec[9];
  lay->nfail   = (PetscInt)rec[10];
  lay->ndim    = (PetscInt)rec[11];
  PetscCheck((lay->nfail > 0) == (res->rc >= 0), res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: /runs/recheck_cells %s, the layout record says %" PetscInt_FMT " failure records per row (the file is damaged); it was left untouched", res->filename, res->rc >= 0 ? "exists" : "is missing", lay->nfail);
  PetscCheck(n[0] == lay->nbeta && n[1] == lay->ntau && n[2] == lay->nseed, res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: /grid has %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " values, the layout record says %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " (the file is damaged); it was left untouched", res->filename, n[0], n[1], n[2], lay->nbeta, lay->ntau, lay->nseed);
  for (PetscInt i = 0; i < lay->nseed; i++) lay->seed[i] = (PetscInt)seeds[i];
  PetscCheck(LayoutChecksum_Private(lay, res->canonical) == sum, res->comm, PETSC_ERR_FILE_UNEXPECTED, "%s: the layout record, the grid or the options text fails its checksum (the file is damaged); it was left untouched", res->filename);
  lay->nruns = lay->nbeta * lay->ntau * lay->nseed;
  {
    const hsize_t R = (hsize_t)lay->nruns, rows = (hsize_t)lay->nrows;
    const struct {
      hid_t       d;
      const char *name;
      int         rank;
      hsize_t     dims[3];
    } want[] = {
      {res->ck, "checkpoints", 3, {R, rows, SR_CHECKPOINT_NFIELDS}},
      {res->wall, "wall", 2, {R, rows, 0}},
      {res->status, "status", 1, {R, 0, 0}},
      {res->reason, "reason", 1, {R, 0, 0}},
      {res->resume, "resume", 2, {R, 2, 0}},
      {res->sd, "state_double", 3, {R, 2, (hsize_t)lay->ndstate}},
      {res->si, "state_int", 3, {R, 2, (hsize_t)lay->nistate}},
      {res->net, "network", 2, {R, (hsize_t)lay->nparams, 0}},
      {res->cells, "cells", 2, {R, (hsize_t)lay->ntheta, 0}},
      {res->cells0, "cells_initial", 2, {R, (hsize_t)lay->ntheta, 0}},
      {res->sbox, "successor_box", 3, {R, (hsize_t)lay->K, (hsize_t)lay->ncap}},
      {res->sbox0, "successor_box_initial", 3, {R, (hsize_t)lay->K, (hsize_t)lay->ncap}},
      {res->netck, "network_checkpoints", 3, {R, rows, (hsize_t)lay->nparams}},
      {res->netcksum, "network_checkpoints_checksum", 2, {R, rows, 0}},
      {res->rc, "recheck_cells", 3, {R, rows, (hsize_t)(lay->nfail * (2 + 3 * lay->ndim))}},
      {res->cksum, "checkpoints_checksum", 2, {R, rows, 0}},
      {res->stsum, "status_checksum", 1, {R, 0, 0}},
      {res->rssum, "resume_checksum", 1, {R, 0, 0}},
      {res->sdsum, "state_checksum", 2, {R, 2, 0}},
      {res->absum, "abstraction_checksum", 2, {R, 2, 0}},
      {res->enc, "enclosures", 3, {R, (hsize_t)lay->K, (hsize_t)(4 * lay->ndim)}},
      {res->encsum, "enclosures_checksum", 1, {R, 0, 0}},
    };
    for (size_t q = 0; q < sizeof(want) / sizeof(want[0]); q++) {
      hid_t   space;
      int     rank;
      hsize_t dims[3] = {0, 0, 0};
      if (want[q].d < 0) continue; /* an optional dataset the file does not have */
      SRCallHDF5Id(space, H5Dget_space(want[q].d));
      rank = H5Sget_simple_extent_ndims(space);
      if (rank >= 1 && rank <= 3) SRCallHDF5(H5Sget_simple_extent_dims(space, dims, NULL));
      SRCallHDF5(H5Sclose(space));
      PetscCheck(rank == want[q].rank && dims[0] == want[q].dims[0] && dims[1] == want[q].dims[1] && dims[2] == want[q].dims[2], res->comm, PETSC_ERR_FILE_UNEXPECTED,
                 "%s: /runs/%s has shape [%llu %llu %llu] (rank %d), the layout record of the file says [%llu %llu %llu] (the file is damaged); it was left untouched", res->filename, want[q].name, (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)dims[2], rank,
                 (unsigned long long)want[q].dims[0], (unsigned long long)want[q].dims[1], (unsigned long long)want[q].dims[2]);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsOpen(MPI_Comm comm, const char file[], PetscBool write, SRResults *res)
{
  hid_t       fapl;
  PetscMPIInt rank;
  int         ok = 1, allok;
  char       *format = NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) ok = access(file, write ? (R_OK | W_OK) : R_OK) == 0;
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_OPEN, "results file %s does not exist or is not %s", file, write ? "readable and writable" : "readable");
  SRCallHDF5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  SRCallHDF5Id(fapl, FileAccess_Private(comm));
  PetscCall(Alloc_Private(comm, res));
  (*res)->write = write;
  (*res)->file  = H5Fopen(file, write ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
  SRCallHDF5(H5Pclose(fapl));
  ok = (*res)->file >= 0;
  PetscCallMPI(MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm));
  PetscCheck(allok, comm, PETSC_ERR_FILE_UNEXPECTED, "%s is not a readable HDF5 file (it was left untouched)", file);
  PetscCall(PetscStrallocpy(file, &(*res)->filename));
  if (ok) PetscCall(ReadStringAttribute_Private((*res)->file, "simreach_format", &format));
  {
    /* "simreach-results-<version>": another version is refused by name */
    const size_t np = strlen(SR_RESULTS_FORMAT_NAME "-");
    char         fmt[128] = "";
    int          known    = format && !strncmp(format, SR_RESULTS_FORMAT_NAME "-", np);
    if (known) PetscCall(PetscStrncpy(fmt, format, sizeof(fmt)));
    PetscCallMPI(MPI_Bcast(fmt, sizeof(fmt), MPI_CHAR, 0, comm));
    PetscCall(PetscFree(format));
    PetscCheck(!fmt[0] || !strcmp(fmt, SR_RESULTS_FORMAT), comm, PETSC_ERR_FILE_UNEXPECTED, "%s has results format version %s (%s); this simreach %s reads version %d (%s) only; it was left untouched", file, fmt + np, fmt, SR_VERSION_STRING, SR_RESULTS_FORMAT_VERSION, SR_RESULTS_FORMAT);
    ok = fmt[0] != 0;
  }
  if (ok) ok = H5Lexists((*res)->file, "runs", H5P_DEFAULT) > 0 && H5Lexists((*res)->file, "grid", H5P_DEFAULT) > 0 && H5Lexists((*res)->file, "summary", H5P_DEFAULT) > 0;
  PetscCallMPI(MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm));
  PetscCheck(allok, comm, PETSC_ERR_FILE_UNEXPECTED, "%s is an HDF5 file but not a simreach results file (no attribute simreach_format = %s); it was left untouched", file, SR_RESULTS_FORMAT);
  PetscCall(ReadStringAttribute_Private((*res)->file, "options_canonical", &(*res)->canonical));
  PetscCheck((*res)->canonical, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: attribute options_canonical is missing", file);
  {
    /* a file written by an interrupted creation or another version may lack datasets */
    const char *const need[] = {"/runs/checkpoints_checksum", "/runs/status_checksum", "/runs/resume_checksum", "/runs/state_checksum", "/runs/abstraction_checksum", "/runs/network_checkpoints_checksum", "/runs/successor_box", "/runs/checkpoints", "/runs/state_double", "/grid/beta"};
    ok = 1;
    for (size_t q = 0; q < sizeof(need) / sizeof(need[0]); q++) ok = ok && H5Lexists((*res)->file, need[q], H5P_DEFAULT) > 0;
    PetscCallMPI(MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm));
    PetscCheck(allok, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: datasets of format %s are missing (the file is damaged); it was left untouched", file, SR_RESULTS_FORMAT);
  }
  PetscCall(OpenDatasets_Private(*res));
  PetscCall(ReadLayout_Private(*res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsDestroy(SRResults *res)
{
  PetscFunctionBeginUser;
  if (!*res) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(CloseDatasets_Private(*res));
  if ((*res)->file >= 0) SRCallHDF5(H5Fclose((*res)->file));
  PetscCall(PetscFree((*res)->canonical));
  PetscCall(PetscFree((*res)->filename));
  PetscCall(PetscFree(*res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsGetLayout(SRResults res, const SRResultsLayout **lay)
{
  PetscFunctionBeginUser;
  *lay = &res->lay;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsGetCanonicalOptions(SRResults res, const char **canonical)
{
  PetscFunctionBeginUser;
  *canonical = res->canonical;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsGetFileName(SRResults res, const char **file)
{
  PetscFunctionBeginUser;
  *file = res->filename;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One checksum value of a checksum dataset (rank 1 or 2), read or written. */
static PetscErrorCode Sum_Private(hid_t dset, int rank, PetscInt r, PetscInt j, uint64_t *sum, PetscBool write)
{
  hsize_t start[2] = {(hsize_t)r, (hsize_t)j}, count[2] = {1, 1};

  PetscFunctionBeginUser;
  PetscCall(Hyperslab_Private(dset, H5T_NATIVE_UINT64, rank, start, count, sum, write));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The checksums of SPEC §13: each binds a row's bytes (as held in memory: native x86-64
   doubles and int64) to its dataset and place. */
static uint64_t RowSum_Private(const char tag[], PetscInt r, PetscInt j, const void *buf, size_t n) { return SRChecksum64(buf, n, SRChecksumSeed(tag, r, j)); }

static void Warn_Private(SRResults res, PetscBool warn, PetscInt r, const char what[], PetscInt row)
{
  const SRResultsLayout *lay = &res->lay;
  if (!warn) return;
  /* C's %g, as every label (PETSc's prints 0 as "0.") */
  fprintf(stderr, "simreach: warning: %s: run %lld (beta %g, tau %g, seed %lld): %s row %lld fails its checksum; it is treated as never written (the run restarts from its last good checkpoint)\n", res->filename, (long long)r, lay->beta[r / (lay->nseed * lay->ntau)], lay->tau[(r / lay->nseed) % lay->ntau], (long long)lay->seed[r % lay->nseed], what, (long long)row);
  fflush(stderr);
}

/* status + reason and resume index of run r, with their validity. */
static PetscErrorCode RunInfo_Private(SRResults res, PetscInt r, PetscBool warn, PetscInt *status, PetscInt *last, PetscInt *slot, PetscBool *stok, PetscBool *rsok)
{
  int64_t  st, rs[2];
  char     reason[SR_RESULTS_REASON_LEN];
  uint64_t sst, srs;
  hsize_t  start[2] = {(hsize_t)r, 0}, count[2] = {1, 2};

  PetscFunctionBeginUser;
  PetscCall(Hyperslab_Private(res->status, H5T_NATIVE_INT64, 1, start, count, &st, PETSC_FALSE));
  PetscCall(Hyperslab_Private(res->reason, res->strtype, 1, start, count, reason, PETSC_FALSE));
  PetscCall(Hyperslab_Private(res->resume, H5T_NATIVE_INT64, 2, start, count, rs, PETSC_FALSE));
  PetscCall(Sum_Private(res->stsum, 1, r, 0, &sst, PETSC_FALSE));
  PetscCall(Sum_Private(res->rssum, 1, r, 0, &srs, PETSC_FALSE));
  {
    uint64_t h = RowSum_Private("status", r, 0, &st, sizeof(st));
    *stok      = sst == SRChecksum64(reason, sizeof(reason), h) && st >= SR_RUN_PENDING && st <= SR_RUN_INTERRUPTED;
  }
  *rsok = srs == RowSum_Private("resume", r, 0, rs, sizeof(rs)) && rs[0] >= 0 && rs[0] < res->lay.nrows && rs[1] == rs[0] % 2;
  if (sst && !*stok) Warn_Private(res, warn, r, "/runs/status", r);
  if (srs && !*rsok) Warn_Private(res, warn, r, "/runs/resume", r);
  *status = *stok ? (PetscInt)st : SR_RUN_PENDING;
  *last   = *rsok ? (PetscInt)rs[0] : -1;
  *slot   = *rsok ? (PetscInt)rs[1] : -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadRunInfo(SRResults res, PetscInt r, PetscInt *status, PetscInt *last, PetscInt *slot)
{
  PetscBool stok, rsok;

  PetscFunctionBeginUser;
  PetscCall(RunInfo_Private(res, r, PETSC_FALSE, status, last, slot, &stok, &rsok));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteCheckpoint(SRResults res, PetscInt r, const SRCheckpoint *cp)
{
  double   row[SR_CHECKPOINT_NFIELDS], wall = cp->wall;
  hsize_t  start[3] = {(hsize_t)r, (hsize_t)cp->checkpoint, 0}, count[3] = {1, 1, SR_CHECKPOINT_NFIELDS};
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCheck(cp->checkpoint >= 0 && cp->checkpoint < res->lay.nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "checkpoint %" PetscInt_FMT " outside the table (0..%" PetscInt_FMT ")", cp->checkpoint, res->lay.nrows - 1);
  SRResultsPackCheckpoint(cp, row);
  PetscCall(Hyperslab_Private(res->ck, H5T_NATIVE_DOUBLE, 3, start, count, row, PETSC_TRUE));
  PetscCall(Hyperslab_Private(res->wall, H5T_NATIVE_DOUBLE, 2, start, count, &wall, PETSC_TRUE));
  /* the checksum after the row: a kill in between leaves the row "never written" */
  sum = RowSum_Private("checkpoints", r, cp->checkpoint, row, sizeof(row));
  PetscCall(Sum_Private(res->cksum, 2, r, cp->checkpoint, &sum, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The state of slot (checkpoint c's slot is c mod 2); the checksum binds it to c too. */
static PetscErrorCode State_Private(SRResults res, PetscInt r, PetscInt slot, double *d, int64_t *buf, PetscBool write)
{
  hsize_t start[3] = {(hsize_t)r, (hsize_t)slot, 0}, count[3] = {1, 1, (hsize_t)res->lay.ndstate};

  PetscFunctionBeginUser;
  PetscCheck(slot == 0 || slot == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: run %" PetscInt_FMT ": resume slot %" PetscInt_FMT " is not 0 or 1", res->filename, r, slot);
  PetscCall(Hyperslab_Private(res->sd, H5T_NATIVE_DOUBLE, 3, start, count, d, write));
  count[2] = (hsize_t)res->lay.nistate;
  PetscCall(Hyperslab_Private(res->si, H5T_NATIVE_INT64, 3, start, count, buf, write));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static uint64_t StateSum_Private(SRResults res, PetscInt r, PetscInt checkpoint, const double *d, const int64_t *buf)
{
  uint64_t h = RowSum_Private("state", r, checkpoint, d, sizeof(double) * (size_t)res->lay.ndstate);
  return SRChecksum64(buf, sizeof(int64_t) * (size_t)res->lay.nistate, h);
}

PetscErrorCode SRResultsWriteState(SRResults res, PetscInt r, PetscInt slot, const double *d, const PetscInt *i)
{
  int64_t *buf;
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(res->lay.nistate + 1, &buf));
  for (PetscInt k = 0; k < res->lay.nistate; k++) buf[k] = i[k];
  PetscCall(State_Private(res, r, slot, (double *)d, buf, PETSC_TRUE));
  /* i[0] is the checkpoint the state follows (the study's convention); the resume index says which */
  sum = StateSum_Private(res, r, slot, d, buf);
  PetscCall(Sum_Private(res->sdsum, 2, r, slot, &sum, PETSC_TRUE));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads slot; *ok = its checksum holds. */
static PetscErrorCode ReadStateChecked_Private(SRResults res, PetscInt r, PetscInt slot, double *d, PetscInt *i, PetscBool *ok)
{
  int64_t *buf;
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(res->lay.nistate + 1, &buf));
  PetscCall(State_Private(res, r, slot, d, buf, PETSC_FALSE));
  PetscCall(Sum_Private(res->sdsum, 2, r, slot, &sum, PETSC_FALSE));
  *ok = sum == StateSum_Private(res, r, slot, d, buf);
  if (i)
    for (PetscInt k = 0; k < res->lay.nistate; k++) i[k] = (PetscInt)buf[k];
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadSlot(SRResults res, PetscInt r, PetscInt slot, double *d, PetscInt *i, SRSlotState *state)
{
  int64_t  *buf;
  uint64_t  sum;
  PetscBool zero = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(res->lay.nistate + 1, &buf));
  PetscCall(State_Private(res, r, slot, d, buf, PETSC_FALSE));
  PetscCall(Sum_Private(res->sdsum, 2, r, slot, &sum, PETSC_FALSE));
  /* never written: checksum and numbers keep the fill value 0 (bit for bit: -0.0 is written) */
  for (PetscInt k = 0; k < res->lay.ndstate && zero; k++) {
    uint64_t bits;
    memcpy(&bits, &d[k], sizeof(bits));
    if (bits) zero = PETSC_FALSE;
  }
  for (PetscInt k = 0; k < res->lay.nistate && zero; k++)
    if (buf[k]) zero = PETSC_FALSE;
  if (!sum && zero) *state = SR_SLOT_EMPTY;
  else *state = sum == StateSum_Private(res, r, slot, d, buf) ? SR_SLOT_OK : SR_SLOT_DAMAGED;
  if (i)
    for (PetscInt k = 0; k < res->lay.nistate; k++) i[k] = (PetscInt)buf[k];
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadState(SRResults res, PetscInt r, PetscInt slot, double *d, PetscInt *i)
{
  PetscBool ok;

  PetscFunctionBeginUser;
  PetscCall(ReadStateChecked_Private(res, r, slot, d, i, &ok));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": the resume state in slot %" PetscInt_FMT " fails its checksum", res->filename, r, slot);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteResume(SRResults res, PetscInt r, PetscInt last, PetscInt slot)
{
  int64_t  rs[2] = {last, slot};
  hsize_t  start[2] = {(hsize_t)r, 0}, count[2] = {1, 2};
  uint64_t sum = RowSum_Private("resume", r, 0, rs, sizeof(rs));

  PetscFunctionBeginUser;
  PetscCall(Hyperslab_Private(res->resume, H5T_NATIVE_INT64, 2, start, count, rs, PETSC_TRUE));
  PetscCall(Sum_Private(res->rssum, 1, r, 0, &sum, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteStatus(SRResults res, PetscInt r, PetscInt status, const char reason[])
{
  int64_t  st = status;
  char     buf[SR_RESULTS_REASON_LEN];
  hsize_t  start[1] = {(hsize_t)r}, count[1] = {1};
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(buf, sizeof(buf)));
  if (reason) PetscCall(PetscStrncpy(buf, reason, sizeof(buf)));
  PetscCall(Hyperslab_Private(res->reason, res->strtype, 1, start, count, buf, PETSC_TRUE));
  PetscCall(Hyperslab_Private(res->status, H5T_NATIVE_INT64, 1, start, count, &st, PETSC_TRUE));
  sum = SRChecksum64(buf, sizeof(buf), RowSum_Private("status", r, 0, &st, sizeof(st)));
  PetscCall(Sum_Private(res->stsum, 1, r, 0, &sum, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadReason(SRResults res, PetscInt r, char reason[SR_RESULTS_REASON_LEN])
{
  hsize_t start[1] = {(hsize_t)r}, count[1] = {1};

  PetscFunctionBeginUser;
  PetscCall(Hyperslab_Private(res->reason, res->strtype, 1, start, count, reason, PETSC_FALSE));
  reason[SR_RESULTS_REASON_LEN - 1] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads (write = FALSE) or writes the abstraction rows of run r; returns their checksum. */
static PetscErrorCode Abstraction_Private(SRResults res, PetscInt r, PetscBool initial, double *params, double *theta, int64_t *boxes, PetscBool write, uint64_t *sum)
{
  const SRResultsLayout *lay = &res->lay;
  hsize_t                start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)lay->nparams, 0};
  uint64_t               h = SRChecksumSeed("abstraction", r, initial ? 0 : 1);

  PetscFunctionBeginUser;
  if (!initial) {
    PetscCall(Hyperslab_Private(res->net, H5T_NATIVE_DOUBLE, 2, start, count, params, write));
    h = SRChecksum64(params, sizeof(double) * (size_t)lay->nparams, h);
  }
  count[1] = (hsize_t)lay->ntheta;
  PetscCall(Hyperslab_Private(initial ? res->cells0 : res->cells, H5T_NATIVE_DOUBLE, 2, start, count, theta, write));
  h        = SRChecksum64(theta, sizeof(double) * (size_t)lay->ntheta, h);
  count[1] = (hsize_t)lay->K;
  count[2] = (hsize_t)lay->ncap;
  PetscCall(Hyperslab_Private(initial ? res->sbox0 : res->sbox, H5T_NATIVE_INT64, 3, start, count, boxes, write));
  *sum = SRChecksum64(boxes, sizeof(int64_t) * (size_t)lay->K * (size_t)lay->ncap, h);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final (or initial) abstraction rows of run r, read and checked; *ok = the checksum holds. */
static PetscErrorCode AbstractionChecked_Private(SRResults res, PetscInt r, PetscBool initial, double *params, double *theta, int64_t *boxes, PetscBool *ok, PetscBool *written)
{
  uint64_t want, got;

  PetscFunctionBeginUser;
  PetscCall(Abstraction_Private(res, r, initial, params, theta, boxes, PETSC_FALSE, &got));
  PetscCall(Sum_Private(res->absum, 2, r, initial ? 0 : 1, &want, PETSC_FALSE));
  *ok = want == got;
  if (written) *written = want != 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsAbstractionState(SRResults res, PetscInt r, PetscBool initial, SRSlotState *state)
{
  const SRResultsLayout *lay = &res->lay;
  double                *net, *theta;
  int64_t               *boxes;
  PetscBool              ok, written;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(lay->nparams + 1, &net, lay->ntheta + 1, &theta, lay->K * lay->ncap + 1, &boxes));
  PetscCall(AbstractionChecked_Private(res, r, initial, net, theta, boxes, &ok, &written));
  *state = !written ? SR_SLOT_EMPTY : (ok ? SR_SLOT_OK : SR_SLOT_DAMAGED);
  PetscCall(PetscFree3(net, theta, boxes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteAbstraction(SRResults res, PetscInt r, PetscBool initial, const double *params, const double *theta, const PetscInt *boxes)
{
  const SRResultsLayout *lay = &res->lay;
  int64_t               *buf;
  double                *net;
  uint64_t               sum;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(lay->K * lay->ncap + 1, &buf, lay->nparams + 1, &net));
  for (PetscInt q = 0; q < lay->K * lay->ncap; q++) buf[q] = boxes[q];
  /* the final rows without a network keep the fill value NaN there */
  for (PetscInt k = 0; k < lay->nparams; k++) net[k] = params ? params[k] : NAN;
  PetscCall(Abstraction_Private(res, r, initial, net, (double *)theta, buf, PETSC_TRUE, &sum));
  PetscCall(Sum_Private(res->absum, 2, r, initial ? 0 : 1, &sum, PETSC_TRUE));
  PetscCall(PetscFree2(buf, net));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final enclosures of run r: K rows of 4n doubles (run's lo, hi; tightest lo, hi) under
   one checksum (tag "enclosures").  A file without the dataset (written before it existed)
   is left as it is. */
PetscErrorCode SRResultsWriteEnclosures(SRResults res, PetscInt r, const double *E)
{
  const SRResultsLayout *lay = &res->lay;
  hsize_t                start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)lay->K, (hsize_t)(4 * lay->ndim)};
  uint64_t               sum;

  PetscFunctionBeginUser;
  if (res->enc < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Hyperslab_Private(res->enc, H5T_NATIVE_DOUBLE, 3, start, count, (void *)E, PETSC_TRUE));
  sum = RowSum_Private("enclosures", r, 0, E, sizeof(double) * (size_t)(4 * lay->ndim * lay->K));
  PetscCall(Sum_Private(res->encsum, 1, r, 0, &sum, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadEnclosures(SRResults res, PetscInt r, double *E, PetscBool *ok)
{
  const SRResultsLayout *lay = &res->lay;
  const size_t           m   = (size_t)(4 * lay->ndim * lay->K);
  hsize_t                start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)lay->K, (hsize_t)(4 * lay->ndim)};
  uint64_t               sum = 0;

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < lay->nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, lay->nruns - 1);
  *ok = PETSC_FALSE;
  for (size_t q = 0; q < m; q++) E[q] = NAN;
  if (res->enc < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Hyperslab_Private(res->enc, H5T_NATIVE_DOUBLE, 3, start, count, E, PETSC_FALSE));
  PetscCall(Sum_Private(res->encsum, 1, r, 0, &sum, PETSC_FALSE));
  *ok = sum != 0 && sum == RowSum_Private("enclosures", r, 0, E, sizeof(double) * m);
  if (!*ok) {
    if (sum) (void)PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "simreach: warning: %s: run %" PetscInt_FMT ": /runs/enclosures fails its checksum; it is treated as never written\n", res->filename, r);
    for (size_t q = 0; q < m; q++) E[q] = NAN;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteCheckpointNetwork(SRResults res, PetscInt r, PetscInt row, const double *params)
{
  hsize_t  start[3] = {(hsize_t)r, (hsize_t)row, 0}, count[3] = {1, 1, (hsize_t)res->lay.nparams};
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCheck(row >= 0 && row < res->lay.nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "checkpoint %" PetscInt_FMT " outside 0..%" PetscInt_FMT, row, res->lay.nrows - 1);
  PetscCall(Hyperslab_Private(res->netck, H5T_NATIVE_DOUBLE, 3, start, count, (void *)params, PETSC_TRUE));
  sum = RowSum_Private("network_checkpoints", r, row, params, sizeof(double) * (size_t)res->lay.nparams);
  PetscCall(Sum_Private(res->netcksum, 2, r, row, &sum, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadCheckpointNetwork(SRResults res, PetscInt r, PetscInt row, double *params)
{
  hsize_t  start[3] = {(hsize_t)r, (hsize_t)row, 0}, count[3] = {1, 1, (hsize_t)res->lay.nparams};
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < res->lay.nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, res->lay.nruns - 1);
  PetscCheck(row >= 0 && row < res->lay.nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint %" PetscInt_FMT ": the results file has checkpoints 0..%" PetscInt_FMT, row, res->lay.nrows - 1);
  PetscCall(Hyperslab_Private(res->netck, H5T_NATIVE_DOUBLE, 3, start, count, params, PETSC_FALSE));
  PetscCall(Sum_Private(res->netcksum, 2, r, row, &sum, PETSC_FALSE));
  if (sum != RowSum_Private("network_checkpoints", r, row, params, sizeof(double) * (size_t)res->lay.nparams)) {
    /* a row that fails is never written (NaN), with a warning if it was written */
    if (sum) Warn_Private(res, PETSC_TRUE, r, "/runs/network_checkpoints", row);
    for (PetscInt k = 0; k < res->lay.nparams; k++) params[k] = NAN;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads the checkpoint rows of run r and their validity (valid may be NULL). */
static PetscErrorCode Checkpoints_Private(SRResults res, PetscInt r, PetscBool warn, double *table, PetscBool *valid, PetscInt *nbad)
{
  const PetscInt nr = res->lay.nrows;
  hsize_t        start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)nr, SR_CHECKPOINT_NFIELDS};
  uint64_t      *sums;

  PetscFunctionBeginUser;
  *nbad = 0;
  PetscCall(PetscMalloc1(nr, &sums));
  PetscCall(Hyperslab_Private(res->ck, H5T_NATIVE_DOUBLE, 3, start, count, table, PETSC_FALSE));
  count[1] = (hsize_t)nr;
  PetscCall(Hyperslab_Private(res->cksum, H5T_NATIVE_UINT64, 2, start, count, sums, PETSC_FALSE));
  for (PetscInt j = 0; j < nr; j++) {
    double   *row = table + j * SR_CHECKPOINT_NFIELDS;
    PetscBool ok  = sums[j] == RowSum_Private("checkpoints", r, j, row, sizeof(double) * SR_CHECKPOINT_NFIELDS);
    if (!ok && sums[j]) {
      (*nbad)++;
      Warn_Private(res, warn, r, "/runs/checkpoints", j);
    }
    if (!ok)
      for (PetscInt f = 0; f < SR_CHECKPOINT_NFIELDS; f++) row[f] = NAN; /* never written */
    if (valid) valid[j] = ok;
  }
  PetscCall(PetscFree(sums));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadCheckpoints(SRResults res, PetscInt r, double *table)
{
  PetscInt nbad;

  PetscFunctionBeginUser;
  PetscCall(Checkpoints_Private(res, r, PETSC_FALSE, table, NULL, &nbad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsCheckRun(SRResults res, PetscInt r, PetscBool warn, SRResultsRunCheck *chk)
{
  const SRResultsLayout *lay = &res->lay;
  const PetscInt         nr  = lay->nrows;
  PetscInt               last, slot, L = -1;
  PetscBool              stok, rsok, *valid, abok[2];
  PetscInt              *iv;
  double                *table, *d, *net, *theta;
  int64_t               *boxes;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(chk, sizeof(*chk)));
  PetscCall(RunInfo_Private(res, r, warn, &chk->status, &last, &slot, &stok, &rsok));
  {
    uint64_t s0, s1;
    PetscCall(Sum_Private(res->stsum, 1, r, 0, &s0, PETSC_FALSE));
    PetscCall(Sum_Private(res->rssum, 1, r, 0, &s1, PETSC_FALSE));
    chk->nbad += (s0 && !stok) + (s1 && !rsok);
  }
  PetscCall(PetscMalloc2(nr * SR_CHECKPOINT_NFIELDS, &table, nr, &valid));
  {
    PetscInt nbad;
    PetscCall(Checkpoints_Private(res, r, warn, table, valid, &nbad));
    chk->nbad += nbad;
  }
  { /* the network of every checkpoint row (verify -from reads them): a failing one makes its row bad */
    double   *net;
    uint64_t *sums;
    hsize_t   start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)nr, 0};
    PetscCall(PetscMalloc2(lay->nparams + 1, &net, nr, &sums));
    PetscCall(Hyperslab_Private(res->netcksum, H5T_NATIVE_UINT64, 2, start, count, sums, PETSC_FALSE));
    for (PetscInt j = 0; j < nr; j++) {
      hsize_t st3[3] = {(hsize_t)r, (hsize_t)j, 0}, ct3[3] = {1, 1, (hsize_t)lay->nparams};
      if (!sums[j]) continue; /* never written: the checkpoint row decides */
      PetscCall(Hyperslab_Private(res->netck, H5T_NATIVE_DOUBLE, 3, st3, ct3, net, PETSC_FALSE));
      if (sums[j] != RowSum_Private("network_checkpoints", r, j, net, sizeof(double) * (size_t)lay->nparams)) {
        chk->nbad++;
        valid[j] = PETSC_FALSE;
        Warn_Private(res, warn, r, "/runs/network_checkpoints", j);
      }
    }
    PetscCall(PetscFree2(net, sums));
  }
  /* the final and the initial abstraction */
  PetscCall(PetscMalloc4(lay->nparams + 1, &net, lay->ntheta + 1, &theta, lay->K * lay->ncap + 1, &boxes, lay->ndstate + 1, &d));
  PetscCall(PetscMalloc1(lay->nistate + 1, &iv));
  for (int q = 0; q < 2; q++) {
    uint64_t want, got;
    PetscCall(Sum_Private(res->absum, 2, r, q, &want, PETSC_FALSE));
    PetscCall(Abstraction_Private(res, r, q == 0, net, theta, boxes, PETSC_FALSE, &got));
    abok[q] = want == got;
    if (want && !abok[q]) {
      chk->nbad++;
      Warn_Private(res, warn, r, q ? "/runs/network, cells, successor lists (final)" : "/runs/cells_initial, successor lists (initial)", r);
    }
  }
  /* the restart point: the last good checkpoint c with a good state in slot c mod 2 and good
     rows 1..c; c is the resume index, or one before it (the other slot), or, if the index is
     bad, the last good row or one before it */
  if (rsok) L = last;
  else
    for (PetscInt j = 1; j < nr; j++)
      if (valid[j]) L = j;
  chk->restart = -1;
  chk->slot    = -1;
  for (PetscInt c = L; c >= PetscMax(L - 1, 1) && chk->restart < 0; c--) {
    PetscBool rows = PETSC_TRUE, ok;
    for (PetscInt j = 1; j <= c; j++) rows = rows && valid[j];
    if (!rows || !abok[0]) continue;
    /* the state's first integer is the checkpoint it follows (the study's convention): a good
       slot still holding checkpoint c - 2 is not checkpoint c */
    PetscCall(ReadStateChecked_Private(res, r, c % 2, d, iv, &ok));
    if (ok && lay->nistate > 0 && iv[0] != c) continue;
    if (!ok) {
      uint64_t s;
      PetscCall(Sum_Private(res->sdsum, 2, r, c % 2, &s, PETSC_FALSE));
      /* a written slot that fails (not one that held the other checkpoint) */
      if (s && c == L) Warn_Private(res, warn, r, "/runs/state_double + state_int slot", c % 2);
      continue;
    }
    chk->restart = c;
    chk->slot    = c % 2;
  }
  {
    PetscBool allrows = PETSC_TRUE;
    for (PetscInt j = 1; j <= L; j++) allrows = allrows && valid[j];
    chk->finished = (PetscBool)(stok && (chk->status == SR_RUN_DONE || chk->status == SR_RUN_DIVERGED) && chk->nbad == 0 && abok[0] && abok[1] && allrows && (chk->status == SR_RUN_DIVERGED || (rsok && last == nr - 1)));
  }
  PetscCall(PetscFree4(net, theta, boxes, d));
  PetscCall(PetscFree(iv));
  PetscCall(PetscFree2(table, valid));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteWhole_Private(hid_t f, const char name[], hid_t memtype, int rank, const hsize_t *count, const void *buf)
{
  hid_t   d;
  hsize_t start[3] = {0, 0, 0};

  PetscFunctionBeginUser;
  SRCallHDF5Id(d, H5Dopen2(f, name, H5P_DEFAULT));
  PetscCall(Hyperslab_Private(d, memtype, rank, start, count, (void *)buf, PETSC_TRUE));
  SRCallHDF5(H5Dclose(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteSummary(SRResults res, const SRSummary *s)
{
  const SRResultsLayout *lay = &res->lay;
  hsize_t                c[3];
  int64_t                counts[4] = {s->failures, s->falsified, s->runs_done, s->runs_diverged}, verdict[3] = {s->verdict[0], s->verdict[1], s->verdict[2]};

  PetscFunctionBeginUser;
  PetscCheck(res->write, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "results file opened read-only");
  c[0] = (hsize_t)lay->nruns;
  PetscCall(WriteWhole_Private(res->file, "/summary/spearman_run", H5T_NATIVE_DOUBLE, 1, c, s->spearman_run));
  c[0] = (hsize_t)lay->ntau;
  PetscCall(WriteWhole_Private(res->file, "/summary/spearman_tau", H5T_NATIVE_DOUBLE, 1, c, s->spearman_tau));
  c[0] = 1;
  PetscCall(WriteWhole_Private(res->file, "/summary/spearman_all", H5T_NATIVE_DOUBLE, 1, c, &s->spearman_all));
  PetscCall(WriteWhole_Private(res->file, "/summary/gap_ratio_max", H5T_NATIVE_DOUBLE, 1, c, &s->gap_ratio_max));
  c[0] = (hsize_t)lay->nbeta;
  c[1] = (hsize_t)lay->ntau;
  c[2] = SR_SUMMARY_NCOLS;
  PetscCall(WriteWhole_Private(res->file, "/summary/table", H5T_NATIVE_DOUBLE, 3, c, s->table));
  c[0] = 4;
  PetscCall(WriteWhole_Private(res->file, "/summary/counts", H5T_NATIVE_INT64, 1, c, counts));
  c[0] = 3;
  PetscCall(WriteWhole_Private(res->file, "/summary/verdict", H5T_NATIVE_INT64, 1, c, verdict));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsCopyRun(SRResults from, SRResults to, PetscInt r)
{
  const hid_t src[] = {from->ck, from->wall, from->status, from->reason, from->resume, from->sd, from->si, from->net, from->cells, from->sbox, from->netck, from->cells0, from->sbox0, from->netcksum, from->cksum, from->stsum, from->rssum, from->sdsum, from->absum};
  const hid_t dst[] = {to->ck, to->wall, to->status, to->reason, to->resume, to->sd, to->si, to->net, to->cells, to->sbox, to->netck, to->cells0, to->sbox0, to->netcksum, to->cksum, to->stsum, to->rssum, to->sdsum, to->absum};
  const hid_t osrc[] = {from->rc, from->enc, from->encsum}, odst[] = {to->rc, to->enc, to->encsum}; /* optional */
  const size_t ns = sizeof(src) / sizeof(src[0]);

  PetscFunctionBeginUser;
  for (size_t q = 0; q < ns + 3; q++) {
    hid_t   space, ftype, mtype;
    int     rank;
    hsize_t dims[3], start[3] = {(hsize_t)r, 0, 0}, count[3];
    size_t  size, n = 1;
    void   *buf;
    const hid_t from_d = q < ns ? src[q] : osrc[q - ns], to_d = q < ns ? dst[q] : odst[q - ns];
    if (from_d < 0 || to_d < 0) continue; /* an optional dataset in one file only */
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
    PetscCall(Hyperslab_Private(from_d, mtype, rank, start, count, buf, PETSC_FALSE));
    PetscCall(Hyperslab_Private(to_d, mtype, rank, start, count, buf, PETSC_TRUE));
    PetscCall(PetscFree(buf));
    SRCallHDF5(H5Tclose(mtype));
    SRCallHDF5(H5Tclose(ftype));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsGetOptionsText(SRResults res, char **options)
{
  PetscFunctionBeginUser;
  PetscCall(ReadStringAttribute_Private(res->file, "options", options));
  if (!*options) PetscCall(PetscStrallocpy("", options));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The network of run r (/runs/network, nparams doubles; NaN where never written). */
PetscErrorCode SRResultsReadNetwork(SRResults res, PetscInt r, double *params)
{
  const SRResultsLayout *lay = &res->lay;
  double                *theta;
  int64_t               *boxes;
  PetscBool              ok, written;

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < lay->nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, lay->nruns - 1);
  /* the network is covered by the final abstraction's checksum: read it all and check */
  PetscCall(PetscMalloc2(lay->ntheta + 1, &theta, lay->K * lay->ncap + 1, &boxes));
  PetscCall(AbstractionChecked_Private(res, r, PETSC_FALSE, params, theta, boxes, &ok, &written));
  PetscCall(PetscFree2(theta, boxes));
  if (!ok) {
    if (written) Warn_Private(res, PETSC_TRUE, r, "/runs/network, cells, successor_box (final)", r);
    for (PetscInt k = 0; k < lay->nparams; k++) params[k] = NAN; /* never written */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final cells theta (ntheta doubles) and certified lists of run r (C created here). */
PetscErrorCode SRResultsReadAbstraction(SRResults res, PetscInt r, SRCells cells, double *theta, SRSuccessorList *C)
{
  const SRResultsLayout *lay = &res->lay;
  int64_t               *buf;
  double                *net;
  PetscInt              *rows;
  PetscBool              ok, written;

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < lay->nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, lay->nruns - 1);
  PetscCheck(cells->K == lay->K && lay->ncap == 2 * cells->n + 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "run %" PetscInt_FMT ": /runs/successor_box has %" PetscInt_FMT " cells of %" PetscInt_FMT " numbers; the options give %" PetscInt_FMT " cells in dimension %" PetscInt_FMT, r, lay->K, lay->ncap, cells->K, cells->n);
  PetscCall(PetscMalloc3(lay->K * lay->ncap + 1, &buf, lay->K * lay->ncap + 1, &rows, lay->nparams + 1, &net));
  /* format 2: the final network, cells and lists must pass their checksum */
  PetscCall(AbstractionChecked_Private(res, r, PETSC_FALSE, net, theta, buf, &ok, &written));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": the final network, cells and successor lists %s", res->filename, r, written ? "fail their checksum (the file is damaged)" : "were never written (the run has not finished)");
  for (PetscInt q = 0; q < lay->K * lay->ncap; q++) {
    PetscCheck(buf[q] >= -1 && buf[q] <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "run %" PetscInt_FMT ": /runs/successor_box entry %" PetscInt_FMT " is %lld", r, q, (long long)buf[q]);
    rows[q] = (PetscInt)buf[q];
  }
  PetscCall(SRSuccessorListFromBoxes(cells, rows, C));
  PetscCall(PetscFree3(buf, rows, net));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final network, cells and index-box lists of run r, as stored together (their checksum
   must hold, else an error naming the file and run).  Independent. */
PetscErrorCode SRResultsReadFinal(SRResults res, PetscInt r, double *params, double *theta, int64_t *boxes)
{
  PetscBool ok, written;

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < res->lay.nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, res->lay.nruns - 1);
  PetscCall(AbstractionChecked_Private(res, r, PETSC_FALSE, params, theta, boxes, &ok, &written));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": the final network, cells and successor lists %s", res->filename, r, written ? "fail their checksum (the file is damaged)" : "were never written (the run has not finished)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final cells theta of run r (ntheta doubles; NaN if never written or failing its checksum). */
PetscErrorCode SRResultsReadCells(SRResults res, PetscInt r, double *theta)
{
  const SRResultsLayout *lay = &res->lay;
  double                *net;
  int64_t               *boxes;
  PetscBool              ok, written;

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < lay->nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, lay->nruns - 1);
  PetscCall(PetscMalloc2(lay->nparams + 1, &net, lay->K * lay->ncap + 1, &boxes));
  PetscCall(AbstractionChecked_Private(res, r, PETSC_FALSE, net, theta, boxes, &ok, &written));
  PetscCall(PetscFree2(net, boxes));
  if (!ok) {
    if (written) Warn_Private(res, PETSC_TRUE, r, "/runs/network, cells, successor_box (final)", r);
    for (PetscInt k = 0; k < lay->ntheta; k++) theta[k] = NAN;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadRecheckCellIds(SRResults res, PetscInt r, PetscInt j, PetscInt *nstored, PetscInt64 *cells)
{
  const SRResultsLayout *lay = &res->lay;
  const PetscInt         w   = 2 + 3 * lay->ndim;
  hsize_t                start[3] = {(hsize_t)r, (hsize_t)j, 0}, count[3] = {1, 1, (hsize_t)(lay->nfail * w)};
  double                *row;

  PetscFunctionBeginUser;
  *nstored = 0;
  if (res->rc < 0 || lay->nfail == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(r >= 0 && r < lay->nruns && j >= 0 && j < lay->nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "recheck cells: run %" PetscInt_FMT " row %" PetscInt_FMT " outside the file", r, j);
  PetscCall(PetscMalloc1(lay->nfail * w, &row));
  PetscCall(Hyperslab_Private(res->rc, H5T_NATIVE_DOUBLE, 3, start, count, row, PETSC_FALSE));
  for (PetscInt i = 0; i < lay->nfail; i++) {
    const double c = row[i * w];
    if (!isfinite(c)) break;
    PetscCheck(c >= 0 && c < (double)lay->K && c == floor(c), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: /runs/recheck_cells run %" PetscInt_FMT " row %" PetscInt_FMT ": cell %g is not a cell index 0..%" PetscInt_FMT, res->filename, r, j, c, lay->K - 1);
    cells[(*nstored)++] = (PetscInt64)c;
  }
  PetscCall(PetscFree(row));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteRecheckCells(SRResults res, PetscInt r, PetscInt j, PetscInt nf, const SRRecheckCellResult *f)
{
  const SRResultsLayout *lay = &res->lay;
  const PetscInt         n = lay->ndim, w = 2 + 3 * n;
  hsize_t                start[3] = {(hsize_t)r, (hsize_t)j, 0}, count[3] = {1, 1, (hsize_t)(lay->nfail * w)};
  double                *row;

  PetscFunctionBeginUser;
  if (res->rc < 0 || lay->nfail == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(j >= 0 && j < lay->nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "recheck cells: row %" PetscInt_FMT " outside 0..%" PetscInt_FMT, j, lay->nrows - 1);
  PetscCall(PetscMalloc1(lay->nfail * w, &row));
  for (PetscInt q = 0; q < lay->nfail * w; q++) row[q] = NAN;
  for (PetscInt i = 0; i < PetscMin(nf, lay->nfail); i++) {
    double *e = row + i * w;
    e[0]      = (double)f[i].cell;
    e[1]      = (double)f[i].outcome;
    for (PetscInt d = 0; d < n; d++) {
      e[2 + d]         = f[i].x[d];
      e[2 + n + d]     = f[i].fxlo[d];
      e[2 + 2 * n + d] = f[i].fxhi[d];
    }
  }
  PetscCall(Hyperslab_Private(res->rc, H5T_NATIVE_DOUBLE, 3, start, count, row, PETSC_TRUE));
  PetscCall(PetscFree(row));
  PetscFunctionReturn(PETSC_SUCCESS);
}
