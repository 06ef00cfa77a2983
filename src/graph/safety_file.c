/* Reading the safety file of `simreach safe -output` (format simreach-safety-2, SPEC §12, §13;
   analysis/abstraction-schema.md, "The safety file"): the header under its checksum, the
   system's domain, every row's checksum and value, and the summary against the rows, all
   validated before anything is answered from the file. */
#include <simreach/private/closedloop_file.h>
#include <simreach/private/fileio.h>
#include <simreach/private/h5attr.h>
#include <simreach/system.h>
#include <string.h>

static const char *const SRSafetyFormats[]    = {"simreach-safety-2", NULL};
static const char *const SRSafetyFormatsOld[] = {"simreach-safety-1", NULL};

uint64_t SRSafetyHeaderSum(const SRSafetyHeader *h)
{
  const SRSafetySummary *s  = &h->sum;
  /* the per-dimension values padded with zeros to P = max(3, n) slots: 3 was SR_MAX_DIM when the
     format was fixed, so a file of 1..3 dimensions written before SR_MAX_DIM grew (issue 36)
     keeps its checksum (tests/sr_reseal_net.py pads alike) */
  const PetscInt         P  = h->n > 3 ? h->n : 3;
  int64_t                iv[15 + SR_MAX_DIM];
  double                 dv[5 + 2 * SR_MAX_DIM];
  uint64_t               c = SRChecksumSeed("safety-header", 0, 0);

  iv[0]  = s->K;
  iv[1]  = h->n;
  iv[2]  = s->iterations;
  iv[3]  = s->safe_cells;
  iv[4]  = s->unverified;
  iv[5]  = s->max_horizon;
  iv[6]  = s->traj_cap;
  iv[7]  = s->traj.trajectories;
  iv[8]  = s->traj.with_claim;
  iv[9]  = s->traj.steps;
  iv[10] = s->traj.violations;
  iv[11] = h->run;
  iv[12] = h->seed;
  iv[13] = 0;
  iv[14] = 0;
  dv[0]  = s->safe_fraction;
  dv[1]  = s->mean_horizon;
  dv[2]  = s->time_total;
  dv[3]  = h->beta;
  dv[4]  = h->tau;
  for (PetscInt d = 0; d < P; d++) {
    iv[15 + d]    = d < h->n ? h->counts[d] : 0;
    dv[5 + d]     = d < h->n ? h->dlo[d] : 0;
    dv[5 + P + d] = d < h->n ? h->dhi[d] : 0;
  }
  c = SRChecksum64(iv, sizeof(int64_t) * (size_t)(15 + P), c);
  c = SRChecksum64(dv, sizeof(double) * (size_t)(5 + 2 * P), c);
  c = SRChecksum64(h->sys, strlen(h->sys), c);
  if (!strcmp(h->sys, "plant")) { /* a plant file's system: its path and digest (SPEC §16) */
    c = SRChecksum64(h->plant, strlen(h->plant), c);
    c = SRChecksum64(&h->plant_digest, sizeof h->plant_digest, c);
  }
  c = SRChecksum64(h->label, strlen(h->label), c);
  return SRChecksum64(h->source, strlen(h->source), c);
}

/* The header: format, attributes, their checksum, the system's domain, counts against K. */
static PetscErrorCode SRSafetyReadHeader_Private(MPI_Comm comm, hid_t f, const char path[], SRSafetyHeader *h)
{
  SRSafetySummary *s = &h->sum;
  int64_t          v, counts[SR_MAX_DIM], K = 1;
  uint64_t         hs;
  SRSystem         sys;

  PetscFunctionBeginUser;
  PetscCall(SRH5FormatCheck(comm, f, "safety file", path, SRSafetyFormats, SRSafetyFormatsOld, "written before safety files carried checksums: write it again with simreach safe -output", NULL));
  PetscCall(SRH5AttrReadString(f, "safety file", path, "abstraction", "", PETSC_FALSE, h->label, sizeof h->label));
  PetscCall(SRH5AttrReadString(f, "safety file", path, "source_file", "", PETSC_FALSE, h->source, sizeof h->source));
  PetscCall(SRH5AttrReadString(f, "safety file", path, "sys", "", PETSC_FALSE, h->sys, sizeof h->sys));
  h->plant[0] = 0, h->plant_digest = 0;
  if (!strcmp(h->sys, "plant")) { /* SPEC §16: which plant file, and its digest */
    PetscCall(SRH5AttrReadString(f, "safety file", path, "plant", "", PETSC_FALSE, h->plant, sizeof h->plant));
    PetscCall(SRH5AttrRead(comm, f, "safety file", path, "plant_digest", NULL, H5T_NATIVE_UINT64, 1, &h->plant_digest));
  }
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "source_run", NULL, H5T_NATIVE_INT64, 1, &h->run));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "source_beta", NULL, H5T_NATIVE_DOUBLE, 1, &h->beta));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "source_tau", NULL, H5T_NATIVE_DOUBLE, 1, &h->tau));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "source_seed", NULL, H5T_NATIVE_INT64, 1, &h->seed));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "n", NULL, H5T_NATIVE_INT64, 1, &v));
  PetscCheck(v >= 1 && v <= SR_MAX_DIM, comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: attribute n is %lld; allowed 1..%d", path, (long long)v, SR_MAX_DIM);
  h->n = (PetscInt)v;
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "counts", NULL, H5T_NATIVE_INT64, (hsize_t)h->n, counts));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "domain_lo", NULL, H5T_NATIVE_DOUBLE, (hsize_t)h->n, h->dlo));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "domain_hi", NULL, H5T_NATIVE_DOUBLE, (hsize_t)h->n, h->dhi));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "K", NULL, H5T_NATIVE_INT64, 1, &s->K));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "iterations", NULL, H5T_NATIVE_INT64, 1, &v));
  s->iterations = (PetscInt)v;
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "safe_fraction", NULL, H5T_NATIVE_DOUBLE, 1, &s->safe_fraction));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "safe_cells", NULL, H5T_NATIVE_INT64, 1, &s->safe_cells));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "unverified_cells", NULL, H5T_NATIVE_INT64, 1, &s->unverified));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "max_horizon", NULL, H5T_NATIVE_INT64, 1, &v));
  s->max_horizon = (PetscInt)v;
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "mean_horizon", NULL, H5T_NATIVE_DOUBLE, 1, &s->mean_horizon));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "trajectories", NULL, H5T_NATIVE_INT64, 1, &s->traj.trajectories));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "trajectories_with_claim", NULL, H5T_NATIVE_INT64, 1, &s->traj.with_claim));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "trajectory_steps", NULL, H5T_NATIVE_INT64, 1, &s->traj.steps));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "trajectory_violations", NULL, H5T_NATIVE_INT64, 1, &s->traj.violations));
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "trajectory_cap", NULL, H5T_NATIVE_INT64, 1, &v));
  s->traj_cap = (PetscInt)v;
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "time_total", NULL, H5T_NATIVE_DOUBLE, 1, &s->time_total));
  for (PetscInt d = 0; d < h->n; d++) {
    PetscCheck(counts[d] >= 1 && counts[d] < INT32_MAX, comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: attribute counts row %" PetscInt_FMT " is %lld", path, d, (long long)counts[d]);
    h->counts[d] = (PetscInt)counts[d];
    K *= counts[d];
  }
  PetscCall(SRH5AttrRead(comm, f, "safety file", path, "header_checksum", NULL, H5T_NATIVE_UINT64, 1, &hs));
  PetscCheck(hs == SRSafetyHeaderSum(h), comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: the header attributes (source, sys, counts, domain, K, the summary) fail their checksum (the file is damaged)", path);
  PetscCheck(K == s->K, comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: the counts give %lld cells, attribute K says %lld", path, (long long)K, (long long)s->K);
  PetscCheck(s->traj.violations == 0, comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: attribute trajectory_violations is %lld; simreach safe never writes a set its trajectories contradict", path, (long long)s->traj.violations);
  PetscCheck(s->safe_cells >= 0 && s->safe_cells <= K && s->max_horizon >= 0 && s->unverified >= 0 && s->unverified <= K, comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: attributes safe_cells %lld, unverified_cells %lld, max_horizon %" PetscInt_FMT " out of range for %lld cells", path, (long long)s->safe_cells, (long long)s->unverified, s->max_horizon, (long long)K);
  PetscCall(SRSystemCreateStored(comm, h->sys, h->plant, "sr_safety_file_", &sys)); /* the prefix is nobody's */
  for (PetscInt d = 0; d < h->n; d++) PetscCheck(sys->n == h->n && h->dlo[d] == sys->dlo[d] && h->dhi[d] == sys->dhi[d], comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: attributes domain_lo, domain_hi row %" PetscInt_FMT ": [%.17g, %.17g]; -sys %s has dimension %" PetscInt_FMT " and D = [%.17g, %.17g] there", path, d, h->dlo[d], h->dhi[d], h->sys, sys->n, d < sys->n ? sys->dlo[d] : 0, d < sys->n ? sys->dhi[d] : 0);
  PetscCall(SRSystemDestroy(&sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* This rank's rows: shape, checksums, values; the first bad row over all ranks is named. */
static PetscErrorCode SRSafetyReadRows_Private(MPI_Comm comm, hid_t f, const char path[], const SRSafetyHeader *h, PetscInt64 ks, PetscInt64 ke, PetscInt *mine)
{
  const char *names[2] = {"horizon", "horizon_checksum"};
  hid_t       types[2] = {H5T_NATIVE_INT32, H5T_NATIVE_UINT64};
  PetscInt64  m = ke - ks, bad = INT64_MAX, gbad, cnt[2] = {0, 0}, gcnt[2];
  PetscInt    hmax = 0, ghmax;
  int32_t    *h32;
  uint64_t   *sums;
  void       *bufs[2];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(PetscMax(m, 1), &h32, PetscMax(m, 1), &sums));
  bufs[0] = h32;
  bufs[1] = sums;
  for (int q = 0; q < 2; q++) {
    hid_t   d, fs, ms;
    hsize_t dims = 0, start = (hsize_t)ks, count = (hsize_t)m, one = PetscMax(count, 1);
    int     ok = H5Lexists(f, names[q], H5P_DEFAULT) > 0, nd = 0;
    PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: dataset /%s missing", path, names[q]);
    SRCallHDF5Id(d, H5Dopen2(f, names[q], H5P_DEFAULT));
    SRCallHDF5Id(fs, H5Dget_space(d));
    nd = H5Sget_simple_extent_ndims(fs);
    if (nd == 1) SRCallHDF5(H5Sget_simple_extent_dims(fs, &dims, NULL));
    PetscCheck(nd == 1 && dims == (hsize_t)h->sum.K, comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: dataset /%s has %d dimension(s), %llu rows; attribute K says %lld", path, names[q], nd, (unsigned long long)dims, (long long)h->sum.K);
    SRCallHDF5Id(ms, H5Screate_simple(1, &one, NULL));
    if (count) SRCallHDF5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL));
    else {
      SRCallHDF5(H5Sselect_none(fs));
      SRCallHDF5(H5Sselect_none(ms));
    }
    SRCallHDF5(H5Dread(d, types[q], ms, fs, H5P_DEFAULT, bufs[q]));
    SRCallHDF5(H5Sclose(ms));
    SRCallHDF5(H5Sclose(fs));
    SRCallHDF5(H5Dclose(d));
  }
  for (PetscInt64 k = 0; k < m; k++) {
    const PetscBool ok = (PetscBool)(sums[k] == SRChecksum64(&h32[k], sizeof(int32_t), SRChecksumSeed("safety-horizon", ks + k, 0)) && h32[k] >= -1 && h32[k] <= h->sum.max_horizon);
    if (!ok && bad == INT64_MAX) bad = ks + k;
    mine[k] = h32[k] == -1 ? SR_HORIZON_SAFE : h32[k];
    cnt[h32[k] == -1 ? 0 : 1]++;
    if (h32[k] >= 0) hmax = PetscMax(hmax, h32[k]);
  }
  PetscCallMPI(MPI_Allreduce(&bad, &gbad, 1, MPIU_INT64, MPI_MIN, comm));
  if (gbad != INT64_MAX) { /* the owner of the first bad row says what is wrong */
    int64_t v[2] = {0, 0}, gv[2];
    if (bad == gbad) {
      v[0] = h32[bad - ks];
      v[1] = sums[bad - ks] == SRChecksum64(&h32[bad - ks], sizeof(int32_t), SRChecksumSeed("safety-horizon", bad, 0));
    }
    PetscCallMPI(MPI_Allreduce(v, gv, 2, MPIU_INT64, MPI_SUM, comm));
    PetscCall(PetscFree2(h32, sums));
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: dataset /horizon row %" PetscInt64_FMT ": %s (the file is damaged or was altered; nothing is answered from it)", path, gbad, gv[1] ? "the value is outside -1..max_horizon" : "fails its checksum (/horizon_checksum)");
  }
  PetscCall(PetscFree2(h32, sums));
  PetscCallMPI(MPI_Allreduce(cnt, gcnt, 2, MPIU_INT64, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&hmax, &ghmax, 1, MPIU_INT, MPI_MAX, comm));
  PetscCheck(gcnt[0] == h->sum.safe_cells && (gcnt[1] == 0 || ghmax == h->sum.max_horizon), comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: dataset /horizon has %lld safe cells (-1) and largest horizon %" PetscInt_FMT "; attributes safe_cells, max_horizon say %lld, %" PetscInt_FMT, path, (long long)gcnt[0], ghmax, (long long)h->sum.safe_cells, h->sum.max_horizon);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSafetyFileOpen(MPI_Comm comm, const char path[], SRSafetyHeader *h, PetscInt **mine, PetscInt64 *ks, PetscInt64 *ke)
{
  hid_t       fapl, f;
  PetscBool   ok;
  PetscMPIInt size, rank;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(h, sizeof *h));
  PetscCall(PetscTestFile(path, 'r', &ok));
  PetscCheck(ok, comm, PETSC_ERR_FILE_OPEN, "safety file %s: no such readable file", path);
  SRCallHDF5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  SRCallHDF5Id(fapl, H5Pcreate(H5P_FILE_ACCESS));
  SRCallHDF5(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
  f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
  SRCallHDF5(H5Pclose(fapl));
  PetscCheck(f >= 0, comm, PETSC_ERR_FILE_OPEN, "safety file %s: not an HDF5 file", path);
  PetscCall(SRSafetyReadHeader_Private(comm, f, path, h));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  SRVerifyOwnership(h->sum.K, size, rank, ks, ke);
  PetscCall(PetscMalloc1(PetscMax(*ke - *ks, 1), mine));
  PetscCall(SRSafetyReadRows_Private(comm, f, path, h, *ks, *ke, *mine));
  SRCallHDF5(H5Fclose(f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSafetyFileProbe(MPI_Comm comm, const char path[], PetscBool *is)
{
  static const char *const any[] = {"simreach-safety-1", "simreach-safety-2", NULL};
  PetscMPIInt              rank;
  int                      yes = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    PetscBool ok;
    PetscCall(PetscTestFile(path, 'r', &ok));
    if (ok) PetscCall(SRH5FormatProbe(path, any, &ok));
    yes = ok ? 1 : 0;
  }
  PetscCallMPI(MPI_Bcast(&yes, 1, MPI_INT, 0, comm));
  *is = yes ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
