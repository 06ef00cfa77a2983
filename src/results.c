/* The results file of the study (SPEC §9): one parallel-HDF5 file, schema in
   analysis/results-schema.md.  Layout rule that makes kill -9 safe: all datasets are
   created collectively at once (contiguous, early allocation, fill values), the metadata
   is flushed once, and the file is renamed into place; after that only raw data is written
   (independent transfers from one rank), which never touches HDF5 metadata. */
#include <sys/statvfs.h>
#include <libgen.h>
#include <simreach/private/results.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <math.h>

const char *const SRResultsCheckpointColumns[SR_CHECKPOINT_NFIELDS] = {"checkpoint", "epoch", "Lsim", "H", "task", "pred_error", "coverage", "succ_certified", "succ_minimal", "succ_empirical", "vol_E", "vol_union", "gap_min", "taulogn", "gap_max", "taulogN", "accepted", "rejected", "backtracked", "recheck_failures", "falsified", "Lencl", "H_train", "Lsim_heldout", "out_of_D", "succ_tight", "vol_E_tight", "succ_floor", "tao_reason", "theta_accepted", "theta_rejected", "theta_backtracked", "theta_moves", "theta_obj_before", "theta_obj_after", "theta_disp"};
/* wall is not a column of the table: it is not reproducible, so it lives in /runs/wall. */

const char *const SRSummaryColumns[SR_SUMMARY_NCOLS] = {"succ_reduction_mean", "succ_reduction_std", "volE_reduction_mean", "volE_reduction_std", "volU_reduction_mean", "volU_reduction_std", "dpred_error_mean", "dpred_error_std", "dcoverage_mean", "dcoverage_std", "spearman_mean", "spearman_std", "recheck_failures", "pred_error_mean", "coverage_mean", "succ_certified_mean", "vol_E_mean", "nseeds", "tight_reduction_mean", "tight_reduction_se", "volEtight_reduction_mean", "volEtight_reduction_se", "tight_reduction_accmatched_mean", "tight_reduction_accmatched_se", "volEtight_reduction_accmatched_mean", "volEtight_reduction_accmatched_se", "accmatched_pairs", "dLsim_heldout_mean", "dLsim_heldout_se", "dsucc_tight_mean", "dsucc_tight_se", "acted", "effect", "succ_tight_mean", "succ_floor_mean", "vol_E_tight_mean", "H_mean", "H_train_mean", "taulogN_mean", "succ_minimal_mean"};

struct _p_SRResults {
  MPI_Comm        comm;
  hid_t           file;
  PetscBool       write;
  SRResultsLayout lay;
  char           *canonical;
  hid_t           ck, wall, status, reason, resume, sd, si, net, cells, sbox, netck, cells0, sbox0;
  hid_t           rc;      /* /runs/recheck_cells, -1 when the file has none */
  hid_t           strtype; /* fixed-length reason strings */
};

void SRResultsPackCheckpoint(const SRCheckpoint *cp, double row[SR_CHECKPOINT_NFIELDS])
{
  const double v[SR_CHECKPOINT_NFIELDS] = {(double)cp->checkpoint, (double)cp->epoch, cp->Lsim, cp->H, cp->task, cp->pred_error, cp->coverage, cp->succ_certified, cp->succ_minimal, cp->succ_empirical, cp->vol_E, cp->vol_union, cp->gap_min, cp->taulogn, cp->gap_max, cp->taulogN, (double)cp->accepted, (double)cp->rejected, (double)cp->backtracked, (double)cp->recheck_failures, (double)cp->falsified, cp->Lencl, cp->H_train, cp->Lsim_heldout, cp->out_of_D, cp->succ_tight, cp->vol_E_tight, cp->succ_floor, (double)cp->tao_reason, (double)cp->theta_accepted, (double)cp->theta_rejected, (double)cp->theta_backtracked, (double)cp->theta_moves, cp->theta_obj_before, cp->theta_obj_after, cp->theta_disp};
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
  hid_t  type, space, attr;
  size_t len = strlen(value) + 1;

  PetscFunctionBeginUser;
  /* Attributes live in the object header (64 KiB in the default format). */
  PetscCheck(len < 60000, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "attribute %s of the results file is %zu bytes; at most 60000 are allowed (too many options?)", name, len);
  SRCallHDF5Id(type, H5Tcopy(H5T_C_S1));
  SRCallHDF5(H5Tset_size(type, len));
  SRCallHDF5(H5Tset_strpad(type, H5T_STR_NULLTERM));
  SRCallHDF5Id(space, H5Screate(H5S_SCALAR));
  SRCallHDF5Id(attr, H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT));
  SRCallHDF5(H5Awrite(attr, type, value));
  SRCallHDF5(H5Aclose(attr));
  SRCallHDF5(H5Sclose(space));
  SRCallHDF5(H5Tclose(type));
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
  res->rc = -1;
  if (H5Lexists(f, "/runs/recheck_cells", H5P_DEFAULT) > 0) SRCallHDF5Id(res->rc, H5Dopen2(f, "/runs/recheck_cells", H5P_DEFAULT));
  SRCallHDF5Id(res->strtype, H5Tcopy(H5T_C_S1));
  SRCallHDF5(H5Tset_size(res->strtype, SR_RESULTS_REASON_LEN));
  SRCallHDF5(H5Tset_strpad(res->strtype, H5T_STR_NULLTERM));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CloseDatasets_Private(SRResults res)
{
  hid_t *ids[] = {&res->ck, &res->wall, &res->status, &res->reason, &res->resume, &res->sd, &res->si, &res->net, &res->cells, &res->sbox, &res->netck, &res->cells0, &res->sbox0, &res->rc};

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
  (*res)->cells0 = (*res)->sbox0 = (*res)->rc = -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bytes of a results file of this layout (every dataset is allocated at creation). */
double SRResultsFileBytes(const SRResultsLayout *lay)
{
  const double R = (double)lay->nruns, rows = (double)lay->nrows;
  double       per = rows * (double)SR_CHECKPOINT_NFIELDS * 8.0 + rows * 8.0 + 8.0 + SR_RESULTS_REASON_LEN + 16.0;
  per += 2.0 * 8.0 * ((double)lay->ndstate + (double)lay->nistate); /* two state slots */
  per += 8.0 * (double)lay->nparams * (1.0 + rows);                  /* final network, one per checkpoint */
  per += 2.0 * 8.0 * (double)lay->ntheta;                            /* cells, cells_initial */
  per += 2.0 * 8.0 * (double)lay->K * (double)lay->ncap;             /* successor boxes, final and initial */
  return R * per + 1e6;
}

/* The file must fit: its size against the free space of its directory, before anything is written. */
static PetscErrorCode CheckFreeSpace_Private(MPI_Comm comm, const char file[], const SRResultsLayout *lay)
{
  PetscMPIInt  rank;
  double       avail = -1.0;
  const double need  = SRResultsFileBytes(lay);

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char           dir[PETSC_MAX_PATH_LEN];
    struct statvfs sv;
    PetscCall(PetscStrncpy(dir, file, sizeof(dir)));
    if (!statvfs(dirname(dir), &sv)) avail = (double)sv.f_bavail * (double)sv.f_frsize;
  }
  PetscCallMPI(MPI_Bcast(&avail, 1, MPI_DOUBLE, 0, comm));
  PetscCheck(avail < 0 || need <= avail, comm, PETSC_ERR_FILE_WRITE, "results file %s needs %.3g GB, its file system has %.3g GB free: free space or give another -output", file, need / 1e9, avail / 1e9);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsCreateNew(MPI_Comm comm, const char file[], const SRResultsLayout *lay, const char options[], const char canonical[], SRResults *res)
{
  char        part[PETSC_MAX_PATH_LEN];
  hid_t       fapl, g, d;
  PetscMPIInt rank;
  const double  nan = NAN, zero = 0.0;
  const int64_t m1 = -1, z = 0;
  const char    empty[SR_RESULTS_REASON_LEN] = "";
  const hsize_t R = (hsize_t)lay->nruns;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(CheckFreeSpace_Private(comm, file, lay));
  PetscCall(Alloc_Private(comm, res));
  (*res)->lay   = *lay;
  (*res)->write = PETSC_TRUE;
  PetscCall(PetscStrallocpy(canonical, &(*res)->canonical));
  PetscCall(PetscSNPrintf(part, sizeof(part), "%s.part", file));
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
  if (rank == 0) PetscCheck(!rename(part, file), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot rename %s to the results file %s", part, file);
  PetscCallMPI(MPI_Barrier(comm));
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

static PetscErrorCode ReadLayout_Private(SRResults res)
{
  SRResultsLayout *lay = &res->lay;
  hid_t            d;
  hsize_t          dims[3], start[3] = {0, 0, 0};
  int64_t          seeds[SR_RESULTS_MAX_LIST];

  PetscFunctionBeginUser;
  SRCallHDF5Id(d, H5Dopen2(res->file, "/grid/beta", H5P_DEFAULT));
  PetscCall(Dims_Private(d, 1, dims));
  PetscCheck(dims[0] <= SR_RESULTS_MAX_LIST, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "results file: too many beta values");
  lay->nbeta = (PetscInt)dims[0];
  PetscCall(Hyperslab_Private(d, H5T_NATIVE_DOUBLE, 1, start, dims, lay->beta, PETSC_FALSE));
  SRCallHDF5(H5Dclose(d));
  SRCallHDF5Id(d, H5Dopen2(res->file, "/grid/tau", H5P_DEFAULT));
  PetscCall(Dims_Private(d, 1, dims));
  PetscCheck(dims[0] <= SR_RESULTS_MAX_LIST, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "results file: too many tau values");
  lay->ntau = (PetscInt)dims[0];
  PetscCall(Hyperslab_Private(d, H5T_NATIVE_DOUBLE, 1, start, dims, lay->tau, PETSC_FALSE));
  SRCallHDF5(H5Dclose(d));
  SRCallHDF5Id(d, H5Dopen2(res->file, "/grid/seed", H5P_DEFAULT));
  PetscCall(Dims_Private(d, 1, dims));
  PetscCheck(dims[0] <= SR_RESULTS_MAX_LIST, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "results file: too many seeds");
  lay->nseed = (PetscInt)dims[0];
  PetscCall(Hyperslab_Private(d, H5T_NATIVE_INT64, 1, start, dims, seeds, PETSC_FALSE));
  for (PetscInt i = 0; i < lay->nseed; i++) lay->seed[i] = (PetscInt)seeds[i];
  SRCallHDF5(H5Dclose(d));
  lay->nruns = lay->nbeta * lay->ntau * lay->nseed;
  PetscCall(Dims_Private(res->ck, 3, dims));
  PetscCheck((PetscInt)dims[0] == lay->nruns && dims[2] == SR_CHECKPOINT_NFIELDS, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "results file: /runs/checkpoints has the wrong shape");
  lay->nrows = (PetscInt)dims[1];
  PetscCall(Dims_Private(res->sd, 3, dims));
  lay->ndstate = (PetscInt)dims[2];
  PetscCall(Dims_Private(res->si, 3, dims));
  lay->nistate = (PetscInt)dims[2];
  PetscCall(Dims_Private(res->net, 2, dims));
  lay->nparams = (PetscInt)dims[1];
  PetscCall(Dims_Private(res->cells, 2, dims));
  lay->ntheta = (PetscInt)dims[1];
  PetscCall(Dims_Private(res->sbox, 3, dims));
  lay->K    = (PetscInt)dims[1];
  lay->ncap = (PetscInt)dims[2];
  lay->nfail = lay->ndim = 0;
  if (res->rc >= 0 && lay->K > 0) {
    lay->ndim = (PetscInt)dims[2] > 0 ? (((PetscInt)dims[2] - 1) / 2) : 0; /* index boxes: 2n + 1 */
    PetscCall(Dims_Private(res->rc, 3, dims));
    PetscCheck((PetscInt)dims[0] == lay->nruns && (PetscInt)dims[1] == lay->nrows && lay->ndim >= 1 && (PetscInt)dims[2] % (2 + 3 * lay->ndim) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "results file: /runs/recheck_cells has the wrong shape");
    lay->nfail = (PetscInt)dims[2] / (2 + 3 * lay->ndim);
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
  if (ok) PetscCall(ReadStringAttribute_Private((*res)->file, "simreach_format", &format));
  ok = format && !strcmp(format, SR_RESULTS_FORMAT);
  PetscCall(PetscFree(format));
  if (ok) ok = H5Lexists((*res)->file, "runs", H5P_DEFAULT) > 0 && H5Lexists((*res)->file, "grid", H5P_DEFAULT) > 0 && H5Lexists((*res)->file, "summary", H5P_DEFAULT) > 0;
  PetscCallMPI(MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm));
  PetscCheck(allok, comm, PETSC_ERR_FILE_UNEXPECTED, "%s is an HDF5 file but not a simreach results file (no attribute simreach_format = %s); it was left untouched", file, SR_RESULTS_FORMAT);
  PetscCall(ReadStringAttribute_Private((*res)->file, "options_canonical", &(*res)->canonical));
  PetscCheck((*res)->canonical, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: attribute options_canonical is missing", file);
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

PetscErrorCode SRResultsReadRunInfo(SRResults res, PetscInt r, PetscInt *status, PetscInt *last, PetscInt *slot)
{
  int64_t st, rs[2];
  hsize_t start[2] = {(hsize_t)r, 0}, count[2] = {1, 2};

  PetscFunctionBeginUser;
  PetscCall(Hyperslab_Private(res->status, H5T_NATIVE_INT64, 1, start, count, &st, PETSC_FALSE));
  PetscCall(Hyperslab_Private(res->resume, H5T_NATIVE_INT64, 2, start, count, rs, PETSC_FALSE));
  *status = (PetscInt)st;
  *last   = (PetscInt)rs[0];
  *slot   = (PetscInt)rs[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteCheckpoint(SRResults res, PetscInt r, const SRCheckpoint *cp)
{
  double  row[SR_CHECKPOINT_NFIELDS], wall = cp->wall;
  hsize_t start[3] = {(hsize_t)r, (hsize_t)cp->checkpoint, 0}, count[3] = {1, 1, SR_CHECKPOINT_NFIELDS};

  PetscFunctionBeginUser;
  PetscCheck(cp->checkpoint >= 0 && cp->checkpoint < res->lay.nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "checkpoint %" PetscInt_FMT " outside the table (0..%" PetscInt_FMT ")", cp->checkpoint, res->lay.nrows - 1);
  SRResultsPackCheckpoint(cp, row);
  PetscCall(Hyperslab_Private(res->ck, H5T_NATIVE_DOUBLE, 3, start, count, row, PETSC_TRUE));
  PetscCall(Hyperslab_Private(res->wall, H5T_NATIVE_DOUBLE, 2, start, count, &wall, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode State_Private(SRResults res, PetscInt r, PetscInt slot, double *d, PetscInt *i, PetscBool write)
{
  hsize_t  start[3] = {(hsize_t)r, (hsize_t)slot, 0}, count[3] = {1, 1, (hsize_t)res->lay.ndstate};
  int64_t *buf;

  PetscFunctionBeginUser;
  PetscCheck(slot == 0 || slot == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "resume slot %" PetscInt_FMT " is not 0 or 1", slot);
  PetscCall(Hyperslab_Private(res->sd, H5T_NATIVE_DOUBLE, 3, start, count, d, write));
  PetscCall(PetscMalloc1(res->lay.nistate + 1, &buf));
  if (write)
    for (PetscInt k = 0; k < res->lay.nistate; k++) buf[k] = i[k];
  count[2] = (hsize_t)res->lay.nistate;
  PetscCall(Hyperslab_Private(res->si, H5T_NATIVE_INT64, 3, start, count, buf, write));
  if (!write)
    for (PetscInt k = 0; k < res->lay.nistate; k++) i[k] = (PetscInt)buf[k];
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteState(SRResults res, PetscInt r, PetscInt slot, const double *d, const PetscInt *i)
{
  PetscFunctionBeginUser;
  PetscCall(State_Private(res, r, slot, (double *)d, (PetscInt *)i, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadState(SRResults res, PetscInt r, PetscInt slot, double *d, PetscInt *i)
{
  PetscFunctionBeginUser;
  PetscCall(State_Private(res, r, slot, d, i, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteResume(SRResults res, PetscInt r, PetscInt last, PetscInt slot)
{
  int64_t rs[2] = {last, slot};
  hsize_t start[2] = {(hsize_t)r, 0}, count[2] = {1, 2};

  PetscFunctionBeginUser;
  PetscCall(Hyperslab_Private(res->resume, H5T_NATIVE_INT64, 2, start, count, rs, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteStatus(SRResults res, PetscInt r, PetscInt status, const char reason[])
{
  int64_t st = status;
  char    buf[SR_RESULTS_REASON_LEN];
  hsize_t start[1] = {(hsize_t)r}, count[1] = {1};

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(buf, sizeof(buf)));
  if (reason) PetscCall(PetscStrncpy(buf, reason, sizeof(buf)));
  PetscCall(Hyperslab_Private(res->reason, res->strtype, 1, start, count, buf, PETSC_TRUE));
  PetscCall(Hyperslab_Private(res->status, H5T_NATIVE_INT64, 1, start, count, &st, PETSC_TRUE));
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

PetscErrorCode SRResultsWriteAbstraction(SRResults res, PetscInt r, PetscBool initial, const double *params, const double *theta, const PetscInt *boxes)
{
  const SRResultsLayout *lay = &res->lay;
  hsize_t                start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)lay->nparams, 0};
  int64_t               *buf;

  PetscFunctionBeginUser;
  if (params) PetscCall(Hyperslab_Private(res->net, H5T_NATIVE_DOUBLE, 2, start, count, (void *)params, PETSC_TRUE));
  count[1] = (hsize_t)lay->ntheta;
  PetscCall(Hyperslab_Private(initial ? res->cells0 : res->cells, H5T_NATIVE_DOUBLE, 2, start, count, (void *)theta, PETSC_TRUE));
  PetscCall(PetscMalloc1(lay->K * lay->ncap + 1, &buf));
  for (PetscInt q = 0; q < lay->K * lay->ncap; q++) buf[q] = boxes[q];
  count[1] = (hsize_t)lay->K;
  count[2] = (hsize_t)lay->ncap;
  PetscCall(Hyperslab_Private(initial ? res->sbox0 : res->sbox, H5T_NATIVE_INT64, 3, start, count, buf, PETSC_TRUE));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteCheckpointNetwork(SRResults res, PetscInt r, PetscInt row, const double *params)
{
  hsize_t start[3] = {(hsize_t)r, (hsize_t)row, 0}, count[3] = {1, 1, (hsize_t)res->lay.nparams};

  PetscFunctionBeginUser;
  PetscCheck(row >= 0 && row < res->lay.nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "checkpoint %" PetscInt_FMT " outside 0..%" PetscInt_FMT, row, res->lay.nrows - 1);
  PetscCall(Hyperslab_Private(res->netck, H5T_NATIVE_DOUBLE, 3, start, count, (void *)params, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadCheckpointNetwork(SRResults res, PetscInt r, PetscInt row, double *params)
{
  hsize_t start[3] = {(hsize_t)r, (hsize_t)row, 0}, count[3] = {1, 1, (hsize_t)res->lay.nparams};

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < res->lay.nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, res->lay.nruns - 1);
  PetscCheck(row >= 0 && row < res->lay.nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint %" PetscInt_FMT ": the results file has checkpoints 0..%" PetscInt_FMT, row, res->lay.nrows - 1);
  PetscCall(Hyperslab_Private(res->netck, H5T_NATIVE_DOUBLE, 3, start, count, params, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadCheckpoints(SRResults res, PetscInt r, double *table)
{
  hsize_t start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)res->lay.nrows, SR_CHECKPOINT_NFIELDS};

  PetscFunctionBeginUser;
  PetscCall(Hyperslab_Private(res->ck, H5T_NATIVE_DOUBLE, 3, start, count, table, PETSC_FALSE));
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
  const hid_t src[] = {from->ck, from->wall, from->status, from->reason, from->resume, from->sd, from->si, from->net, from->cells, from->sbox, from->netck, from->cells0, from->sbox0};
  const hid_t dst[] = {to->ck, to->wall, to->status, to->reason, to->resume, to->sd, to->si, to->net, to->cells, to->sbox, to->netck, to->cells0, to->sbox0};

  PetscFunctionBeginUser;
  for (size_t q = 0; q < sizeof(src) / sizeof(src[0]) + 1; q++) {
    hid_t   space, ftype, mtype;
    int     rank;
    hsize_t dims[3], start[3] = {(hsize_t)r, 0, 0}, count[3];
    size_t  size, n = 1;
    void   *buf;
    const hid_t from_d = q < sizeof(src) / sizeof(src[0]) ? src[q] : from->rc, to_d = q < sizeof(src) / sizeof(src[0]) ? dst[q] : to->rc;
    if (from_d < 0 || to_d < 0) continue; /* /runs/recheck_cells in one file only */
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
  hsize_t start[2] = {(hsize_t)r, 0}, count[2] = {1, (hsize_t)res->lay.nparams};

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < res->lay.nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, res->lay.nruns - 1);
  PetscCall(Hyperslab_Private(res->net, H5T_NATIVE_DOUBLE, 2, start, count, params, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final cells theta (ntheta doubles) and certified lists of run r (C created here). */
PetscErrorCode SRResultsReadAbstraction(SRResults res, PetscInt r, SRCells cells, double *theta, SRSuccessorList *C)
{
  const SRResultsLayout *lay = &res->lay;
  hsize_t                start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)lay->ntheta, 0};
  int64_t               *buf;
  PetscInt              *rows;

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < lay->nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, lay->nruns - 1);
  PetscCheck(cells->K == lay->K && lay->ncap == 2 * cells->n + 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "run %" PetscInt_FMT ": /runs/successor_box has %" PetscInt_FMT " cells of %" PetscInt_FMT " numbers; the options give %" PetscInt_FMT " cells in dimension %" PetscInt_FMT, r, lay->K, lay->ncap, cells->K, cells->n);
  PetscCall(Hyperslab_Private(res->cells, H5T_NATIVE_DOUBLE, 2, start, count, theta, PETSC_FALSE));
  PetscCall(PetscMalloc2(lay->K * lay->ncap, &buf, lay->K * lay->ncap, &rows));
  count[1] = (hsize_t)lay->K;
  count[2] = (hsize_t)lay->ncap;
  PetscCall(Hyperslab_Private(res->sbox, H5T_NATIVE_INT64, 3, start, count, buf, PETSC_FALSE));
  for (PetscInt q = 0; q < lay->K * lay->ncap; q++) {
    PetscCheck(buf[q] >= -1 && buf[q] <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "run %" PetscInt_FMT ": /runs/successor_box entry %" PetscInt_FMT " is %lld", r, q, (long long)buf[q]);
    rows[q] = (PetscInt)buf[q];
  }
  PetscCall(SRSuccessorListFromBoxes(cells, rows, C));
  PetscCall(PetscFree2(buf, rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final cells theta of run r (ntheta doubles; NaN if never written).  Independent. */
PetscErrorCode SRResultsReadCells(SRResults res, PetscInt r, double *theta)
{
  hsize_t start[2] = {(hsize_t)r, 0}, count[2] = {1, (hsize_t)res->lay.ntheta};

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < res->lay.nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, res->lay.nruns - 1);
  PetscCall(Hyperslab_Private(res->cells, H5T_NATIVE_DOUBLE, 2, start, count, theta, PETSC_FALSE));
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
