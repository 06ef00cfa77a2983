/* The closed-loop questions of SPEC §12 asked of an abstraction file (analysis/
   abstraction-schema.md): the owned block of its index-box lists as an SRIndexGraph, the
   falsification check by sampled trajectories of the stored network, and the safety file that
   `simreach safe` writes (analysis/safety-schema.md).

   A cell whose list certifies nothing — a failed containment test (/failures) or a NaN/Inf
   enclosure (flag 2) — is given the sink as a successor: what the abstraction does not prove
   is assumed to leave D. */
#include <simreach/closedloop.h>
#include <simreach/random.h>
#include <simreach/verify.h>
#include <simreach/private/closedloop_file.h>
#include <errno.h>
#include <simreach/private/memcheck.h>
#include <simreach/private/fileio.h>
#include <simreach/private/h5attr.h>
#include <string.h>

PetscErrorCode SRIndexGraphLoad(MPI_Comm comm, SRAbstractionFile af, SRIndexGraphStore *s)
{
  const SRAbstractionHeader *h;
  SRAxes                     ax;
  PetscMPIInt                size, rank;
  PetscInt64                 ks, ke, m, nf;
  int64_t                   *fail;
  int32_t                   *rows;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscCall(SRAbstractionFileGetHeader(af, &h));
  PetscCall(SRAbstractionFileGetAxes(af, &ax));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(h->K <= PETSC_MPI_INT_MAX, comm, PETSC_ERR_SUP, "closed-loop questions: %" PetscInt64_FMT " cells; at most %d are supported (the sets are replicated, one byte per cell)", h->K, PETSC_MPI_INT_MAX);
  SRVerifyOwnership(h->K, size, rank, &ks, &ke);
  m = ke - ks;
  { /* before anything is allocated (issue #13): the sets and tables of src/graph/closedloop.c are
       replicated (1 byte per cell, 4 per corner), the lists read here are this rank's */
    double corners = 1, bytes;
    char   opts[256];
    for (PetscInt d = 0; d < h->n; d++) corners *= (double)ax->N[d] + 1;
    bytes = (double)h->K + 4.0 * corners + (double)m * (2.0 * h->n * sizeof(PetscInt) + sizeof(PetscBool) + 4.0 * SRListRowLength(h->n) + 2.0 * sizeof(PetscInt) + 1);
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "the abstraction file's %" PetscInt64_FMT " cells (-cells ", h->K));
    for (PetscInt d = 0; d < h->n; d++) PetscCall(PetscSNPrintf(opts + strlen(opts), sizeof(opts) - strlen(opts), "%s%" PetscInt_FMT "%s", d ? "," : "", (PetscInt)ax->N[d], d == h->n - 1 ? " of simreach verify)" : ""));
    PetscCall(SRSizeCheck(comm, corners, opts, "the closed-loop tables (one entry per cell corner)", "the closed-loop questions handle fewer cells"));
    PetscCall(SRMemCheck(comm, bytes, opts, "the closed-loop sets, tables and lists (docs/closed-loop.md)"));
  }
  PetscCall(SRAbstractionFileValidateRows(af)); /* before any answer (SPEC §13) */
  s->g.n      = h->n;
  s->g.kstart = ks;
  s->g.kend   = ke;
  for (PetscInt d = 0; d < h->n; d++) {
    s->g.counts[d] = ax->N[d];
    PetscCall(PetscMalloc1(ax->N[d] + 1, &s->bounds[d]));
    /* volumes: the midpoints of the boundary enclosures (exact doubles for a partition) */
    for (PetscInt i = 0; i <= ax->N[d]; i++) s->bounds[d][i] = 0.5 * ax->glo[d][i] + 0.5 * ax->ghi[d][i];
    s->g.bounds[d] = s->bounds[d];
  }
  PetscCall(PetscMalloc3(PetscMax(m, 1) * h->n, &s->lo, PetscMax(m, 1) * h->n, &s->hi, PetscMax(m, 1), &s->sink));
  PetscCall(PetscMalloc1(PetscMax(m, 1) * SRListRowLength(h->n), &rows));
  PetscCall(SRAbstractionFileRead(af, ks, m, rows, NULL));
  for (PetscInt64 k = 0; k < m; k++) {
    const int32_t *r = rows + k * SRListRowLength(h->n);
    for (PetscInt d = 0; d < h->n; d++) {
      s->lo[k * h->n + d] = r[d];
      s->hi[k * h->n + d] = r[h->n + d];
    }
    s->sink[k] = (r[2 * h->n] & SR_LIST_SINK) ? PETSC_TRUE : PETSC_FALSE;
    if (r[2 * h->n] & SR_LIST_NONFINITE) {
      s->sink[k] = PETSC_TRUE;
      s->unverified++;
    }
  }
  PetscCall(SRAbstractionFileReadFailures(af, &nf, &fail));
  for (PetscInt64 i = 0; i < nf; i++)
    if (fail[i] >= ks && fail[i] < ke && !(rows[(fail[i] - ks) * SRListRowLength(h->n) + 2 * h->n] & SR_LIST_NONFINITE)) {
      s->sink[fail[i] - ks] = PETSC_TRUE;
      s->unverified++;
    }
  PetscCall(PetscFree(fail));
  PetscCall(PetscFree(rows));
  s->g.lo   = s->lo;
  s->g.hi   = s->hi;
  s->g.sink = s->sink;
  {
    PetscInt64 u = s->unverified;
    PetscCallMPI(MPI_Allreduce(&u, &s->unverified, 1, MPIU_INT64, MPI_SUM, comm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRIndexGraphStoreDestroy(SRIndexGraphStore *s)
{
  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < SR_MAX_DIM; d++) PetscCall(PetscFree(s->bounds[d]));
  PetscCall(PetscFree3(s->lo, s->hi, s->sink));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Trajectory i starts in cell floor(U * K) (drawn the same on every rank, so the sample does
   not depend on the decomposition), at a uniform point of the real cell. */
PetscErrorCode SRClosedLoopTrajectoryCheck(MPI_Comm comm, SRModel model, SRAxes ax, const SRIndexGraph *g, const PetscInt *horizon, PetscInt64 ntraj, PetscInt cap, uint64_t seed, SRTrajectoryCounts *c)
{
  const PetscInt n = g->n;
  PetscInt64     nb = 0, counts[4] = {0, 0, 0, 0}, total[4];
  double        *X, *Y, dlo[SR_MAX_DIM], dhi[SR_MAX_DIM];
  PetscInt      *left, *claim;
  PetscInt       maxsteps = 0;
  PetscInt64     K = 1;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < n; d++) {
    K *= g->counts[d];
    dlo[d] = ax->dlo[d];
    dhi[d] = ax->dhi[d];
  }
  /* this rank's trajectories */
  for (PetscInt64 i = 0; i < ntraj; i++) {
    const PetscInt64 k = PetscMin(K - 1, (PetscInt64)(SRRandomUniform(seed, SR_STREAM_FALSIFY, 2 * (uint64_t)i) * (double)K));
    if (k >= g->kstart && k < g->kend) nb++;
  }
  PetscCall(PetscMalloc4(PetscMax(nb, 1) * n, &X, PetscMax(nb, 1) * n, &Y, PetscMax(nb, 1), &left, PetscMax(nb, 1), &claim));
  nb = 0;
  for (PetscInt64 i = 0; i < ntraj; i++) {
    PetscInt64 k = PetscMin(K - 1, (PetscInt64)(SRRandomUniform(seed, SR_STREAM_FALSIFY, 2 * (uint64_t)i) * (double)K)), r;
    PetscInt   h;
    if (k < g->kstart || k >= g->kend) continue;
    h = horizon[k - g->kstart];
    r = k;
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt j = (PetscInt)(r % g->counts[d]);
      double         a = ax->ghi[d][j], b = ax->glo[d][j + 1]; /* inside the real cell */
      r /= g->counts[d];
      if (b < a) b = a;
      X[nb * n + d] = SRRandomRange(seed, SR_STREAM_FALSIFY, 2 * (uint64_t)i + 1 + (uint64_t)d * 0x100000000ull, a, b);
    }
    claim[nb] = (h == SR_HORIZON_SAFE) ? cap : h;
    left[nb]  = claim[nb];
    maxsteps  = PetscMax(maxsteps, claim[nb]);
    counts[0]++;
    if (h > 0) counts[1]++;
    nb++;
  }
  /* step every trajectory that still has a claim; one leaving D before its claim ends is a violation */
  for (PetscInt t = 1; t <= maxsteps; t++) {
    PetscInt64 na = 0;
    for (PetscInt64 b = 0; b < nb; b++)
      if (left[b] > 0) {
        if (na != b) {
          for (PetscInt d = 0; d < n; d++) X[na * n + d] = X[b * n + d];
          left[na]  = left[b];
          claim[na] = claim[b];
        }
        na++;
      }
    nb = na;
    if (nb == 0) break;
    PetscCall(SRModelEvaluate(model, (PetscInt)nb, X, Y));
    for (PetscInt64 b = 0; b < nb; b++) {
      PetscBool in = PETSC_TRUE;
      for (PetscInt d = 0; d < n; d++) {
        X[b * n + d] = Y[b * n + d];
        if (!(Y[b * n + d] >= dlo[d] && Y[b * n + d] <= dhi[d])) in = PETSC_FALSE;
      }
      counts[2]++;
      if (!in) {
        counts[3]++;
        left[b] = 0;
      } else left[b]--;
    }
  }
  PetscCallMPI(MPI_Allreduce(counts, total, 4, MPIU_INT64, MPI_SUM, comm));
  c->trajectories = total[0];
  c->with_claim   = total[1];
  c->steps        = total[2];
  c->violations   = total[3];
  PetscCall(PetscFree4(X, Y, left, claim));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One column of the K cells, created (collective); its identifier in *d. */
static PetscErrorCode SRSafetyCreateColumn_Private(hid_t f, const char name[], hid_t type, hsize_t K, hid_t *d)
{
  hid_t sp;

  PetscFunctionBeginUser;
  SRCallHDF5Id(sp, H5Screate_simple(1, &K, NULL));
  SRCallHDF5Id(*d, H5Dcreate2(f, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  SRCallHDF5(H5Sclose(sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This rank's block of a column: an independent write of raw data (the dataset is allocated
   at creation), so a rank whose write fails leaves no other rank waiting in it. */
static PetscErrorCode SRSafetyWriteColumn_Private(hid_t d, hid_t type, hsize_t start, hsize_t count, const void *buf)
{
  hid_t sp, ms, dx;

  PetscFunctionBeginUser;
  if (!count) PetscFunctionReturn(PETSC_SUCCESS);
  SRCallHDF5Id(sp, H5Dget_space(d));
  SRCallHDF5Id(ms, H5Screate_simple(1, &count, NULL));
  SRCallHDF5(H5Sselect_hyperslab(sp, H5S_SELECT_SET, &start, NULL, &count, NULL));
  SRCallHDF5Id(dx, H5Pcreate(H5P_DATASET_XFER));
  SRCallHDF5(H5Pset_dxpl_mpio(dx, H5FD_MPIO_INDEPENDENT));
  SRCallHDF5(H5Dwrite(d, type, ms, sp, dx, buf));
  SRCallHDF5(H5Pclose(dx));
  SRCallHDF5(H5Sclose(ms));
  SRCallHDF5(H5Sclose(sp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The header attributes (names in analysis/abstraction-schema.md, "The safety file"). */
static PetscErrorCode SRSafetyWriteHeader_Private(hid_t f, const SRSafetyHeader *h)
{
  const SRSafetySummary *sum = &h->sum;
  const int64_t          it = sum->iterations, mx = sum->max_horizon, cap = sum->traj_cap, n = h->n;
  int64_t                counts[SR_MAX_DIM];
  const uint64_t         hs = SRSafetyHeaderSum(h);

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < h->n; d++) counts[d] = h->counts[d];
  PetscCall(SRH5AttrWriteString(f, "simreach_format", "simreach-safety-2"));
  PetscCall(SRH5AttrWriteString(f, "simreach_version", SR_VERSION_STRING));
  PetscCall(SRH5AttrWriteString(f, "abstraction", h->label));
  PetscCall(SRH5AttrWriteString(f, "source_file", h->source));
  PetscCall(SRH5AttrWrite(f, "source_run", H5T_NATIVE_INT64, 0, &h->run));
  PetscCall(SRH5AttrWrite(f, "source_beta", H5T_NATIVE_DOUBLE, 0, &h->beta));
  PetscCall(SRH5AttrWrite(f, "source_tau", H5T_NATIVE_DOUBLE, 0, &h->tau));
  PetscCall(SRH5AttrWrite(f, "source_seed", H5T_NATIVE_INT64, 0, &h->seed));
  PetscCall(SRH5AttrWriteString(f, "sys", h->sys));
  if (!strcmp(h->sys, "plant")) { /* SPEC §16: which plant file, and its digest */
    PetscCall(SRH5AttrWriteString(f, "plant", h->plant));
    PetscCall(SRH5AttrWrite(f, "plant_digest", H5T_NATIVE_UINT64, 0, &h->plant_digest));
  }
  PetscCall(SRH5AttrWrite(f, "n", H5T_NATIVE_INT64, 0, &n));
  PetscCall(SRH5AttrWrite(f, "counts", H5T_NATIVE_INT64, (hsize_t)h->n, counts));
  PetscCall(SRH5AttrWrite(f, "domain_lo", H5T_NATIVE_DOUBLE, (hsize_t)h->n, h->dlo));
  PetscCall(SRH5AttrWrite(f, "domain_hi", H5T_NATIVE_DOUBLE, (hsize_t)h->n, h->dhi));
  PetscCall(SRH5AttrWrite(f, "K", H5T_NATIVE_INT64, 0, &sum->K));
  PetscCall(SRH5AttrWrite(f, "iterations", H5T_NATIVE_INT64, 0, &it));
  PetscCall(SRH5AttrWrite(f, "safe_fraction", H5T_NATIVE_DOUBLE, 0, &sum->safe_fraction));
  PetscCall(SRH5AttrWrite(f, "safe_cells", H5T_NATIVE_INT64, 0, &sum->safe_cells));
  PetscCall(SRH5AttrWrite(f, "unverified_cells", H5T_NATIVE_INT64, 0, &sum->unverified));
  PetscCall(SRH5AttrWrite(f, "max_horizon", H5T_NATIVE_INT64, 0, &mx));
  PetscCall(SRH5AttrWrite(f, "mean_horizon", H5T_NATIVE_DOUBLE, 0, &sum->mean_horizon));
  PetscCall(SRH5AttrWrite(f, "trajectories", H5T_NATIVE_INT64, 0, &sum->traj.trajectories));
  PetscCall(SRH5AttrWrite(f, "trajectories_with_claim", H5T_NATIVE_INT64, 0, &sum->traj.with_claim));
  PetscCall(SRH5AttrWrite(f, "trajectory_steps", H5T_NATIVE_INT64, 0, &sum->traj.steps));
  PetscCall(SRH5AttrWrite(f, "trajectory_violations", H5T_NATIVE_INT64, 0, &sum->traj.violations));
  PetscCall(SRH5AttrWrite(f, "trajectory_cap", H5T_NATIVE_INT64, 0, &cap));
  PetscCall(SRH5AttrWrite(f, "time_total", H5T_NATIVE_DOUBLE, 0, &sum->time_total));
  PetscCall(SRH5AttrWrite(f, "header_checksum", H5T_NATIVE_UINT64, 0, &hs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Step 1 (collective): the file, its header, the two columns created, the metadata flushed.
   Step 2: this rank's rows (raw data only: a rank that fails leaves nothing for H5Fclose to
   flush).  Step 3 (collective): closed. */
static PetscErrorCode SRSafetyWriteStep_Private(int step, MPI_Comm comm, const char tmp[], const SRSafetyHeader *h, const SRIndexGraph *g, const int32_t *h32, const uint64_t *sums, hid_t *f, hid_t d[2])
{
  PetscFunctionBeginUser;
  if (step == 1) {
    hid_t fapl;
    SRCallHDF5Id(fapl, H5Pcreate(H5P_FILE_ACCESS));
    SRCallHDF5(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
    { /* rank 0 alone writes the metadata (as the abstraction file; issue 34) */
      H5AC_cache_config_t mdc;
      mdc.version = H5AC__CURR_CACHE_CONFIG_VERSION;
      SRCallHDF5(H5Pget_mdc_config(fapl, &mdc));
      mdc.metadata_write_strategy = H5AC_METADATA_WRITE_STRATEGY__PROCESS_0_ONLY;
      SRCallHDF5(H5Pset_mdc_config(fapl, &mdc));
    }
    *f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    SRCallHDF5(H5Pclose(fapl));
    SRCallHDF5(*f);
    PetscCall(SRSafetyWriteHeader_Private(*f, h));
    PetscCall(SRSafetyCreateColumn_Private(*f, "horizon", H5T_NATIVE_INT32, (hsize_t)h->sum.K, &d[0]));
    PetscCall(SRSafetyCreateColumn_Private(*f, "horizon_checksum", H5T_NATIVE_UINT64, (hsize_t)h->sum.K, &d[1]));
    SRCallHDF5(H5Fflush(*f, H5F_SCOPE_GLOBAL));
  } else if (step == 2) {
    const hsize_t m = (hsize_t)(g->kend - g->kstart);
    PetscCall(SRSafetyWriteColumn_Private(d[0], H5T_NATIVE_INT32, (hsize_t)g->kstart, m, h32));
    SRFileTestPause(comm, "write"); /* tests: a kill -9 with the .part half written */
    PetscCall(SRSafetyWriteColumn_Private(d[1], H5T_NATIVE_UINT64, (hsize_t)g->kstart, m, sums));
  } else {
    SRCallHDF5(H5Dclose(d[0]));
    SRCallHDF5(H5Dclose(d[1]));
    d[0] = d[1] = -1;
    SRCallHDF5(H5Fclose(*f));
    *f = -1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSafetyFileWrite(MPI_Comm comm, const char path[], PetscBool force, const SRSafetyHeader *h, const SRIndexGraph *g, const PetscInt *horizon)
{
  char       tmp[PETSC_MAX_PATH_LEN];
  hid_t      f = -1, d[2] = {-1, -1};
  int32_t   *h32;
  uint64_t  *sums;
  PetscInt64 m = g->kend - g->kstart;

  PetscFunctionBeginUser;
  {
    PetscBool exists = PETSC_FALSE;
    PetscCall(PetscTestFile(path, '\0', &exists));
    PetscCheck(force || !exists, comm, PETSC_ERR_FILE_OPEN, "-output %s exists; pass -force to replace it", path);
  }
  PetscCall(SRFileCheckSpace(comm, path, 12.0 * (double)h->sum.K + 65536.0));
  PetscCall(SRFileCreateExclusiveTemp(comm, path, tmp, sizeof(tmp)));
  PetscCall(SRFileReserve(comm, tmp, path, 12.0 * (double)h->sum.K + 65536.0)); /* the blocks are there (a full tmpfs, a quota; issue 34) */
  PetscCall(PetscMalloc2(PetscMax(m, 1), &h32, PetscMax(m, 1), &sums));
  for (PetscInt64 k = 0; k < m; k++) { /* each row's checksum written with it (SPEC §13) */
    h32[k]  = horizon[k] == SR_HORIZON_SAFE ? -1 : (int32_t)horizon[k];
    sums[k] = SRChecksum64(&h32[k], sizeof(int32_t), SRChecksumSeed("safety-horizon", g->kstart + k, 0));
  }
  SRCallHDF5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  for (int step = 1; step <= 3; step++) { /* a write that fails on any rank (disk full, ulimit -f): every rank learns of it (issue 34) */
    PetscErrorCode ierr;
    PetscBool      failed;
    int            err;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    errno = 0;
    ierr  = SRSafetyWriteStep_Private(step, comm, tmp, h, g, h32, sums, &f, d);
    err   = ierr ? (errno ? errno : -1) : 0;
    PetscCall(PetscPopErrorHandler());
    PetscCall(SRFileWriteAnyFailed(comm, err, &failed));
    if (failed) {
      PetscCall(PetscFree2(h32, sums));
      SRFileH5CloseBroken(f);
      PetscCall(SRFileWriteFail(comm, tmp, path, err));
    }
  }
  PetscCall(PetscFree2(h32, sums));
  PetscCall(SRFileCommit(comm, tmp, path, force));
  PetscFunctionReturn(PETSC_SUCCESS);
}
