/* The tubes file of `simreach closedloop -o` (SPEC §13, §15; include/simreach/private/tubes_file.h).
   Attributes: simreach_format, verdict, planted_fault ("" unless the test executable planted a
   fault), plant, network, spec, states, period, steps, x0_lo, x0_hi, leaves, open, trajectory_sub
   and header_checksum over all of them.  Datasets, each with its checksum attribute (the
   abstraction file's rule, SRH5DatasetWriteSummed): pieces (leaves x (2n + 3): lo, hi, status,
   tree id, depth), tubes (leaves x steps x n x 2), constraints (rows x (n + 5)), trajectory
   ((steps sub + 1) x n). */
#include <simreach/private/fileio.h>
#include <simreach/private/h5attr.h>
#include <simreach/private/memcheck.h>
#include <simreach/private/tubes_file.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const SRTubesFormats[]    = {SR_TUBES_FORMAT, NULL};
static const char *const SRTubesFormatsOld[] = {"simreach closedloop tubes 1", NULL};

typedef struct {
  char    verdict[32], planted[128], plant[PETSC_MAX_PATH_LEN], network[PETSC_MAX_PATH_LEN], spec[PETSC_MAX_PATH_LEN], states[SR_AFFINE_MAX * (SR_PLANT_NAME + 1) + 1];
  double  period, x0lo[SR_AFFINE_MAX], x0hi[SR_AFFINE_MAX];
  int64_t n, steps, leaves, open, sub, ncons, tubes; /* tubes: 1 if the dataset is stored */
} Header_Private;

static uint64_t HeaderSum_Private(const Header_Private *h)
{
  const int64_t iv[7] = {h->n, h->steps, h->leaves, h->open, h->sub, h->ncons, h->tubes};
  uint64_t      c     = SRChecksum64(iv, sizeof iv, SRChecksumSeed("tubes-header", 0, 0));
  const char   *s[6]  = {h->verdict, h->planted, h->plant, h->network, h->spec, h->states};
  for (int i = 0; i < 6; i++) c = SRChecksum64(s[i], strlen(s[i]) + 1, c);
  c = SRChecksum64(&h->period, sizeof(double), c);
  c = SRChecksum64(h->x0lo, sizeof(double) * (size_t)h->n, c);
  return SRChecksum64(h->x0hi, sizeof(double) * (size_t)h->n, c);
}

typedef struct {
  const SRPlant          *pl;
  const SRSpec           *S;
  SRLoop                 *L;
  const SRSplitResult    *res;
  const SRTubesWriteInfo *info;
} WriteCtx_Private;

/* one dataset with its checksum; an empty one is created without a write */
static PetscErrorCode Dataset_Private(hid_t f, const char name[], int rank, const hsize_t *dims, const double *buf, const char meaning[])
{
  hid_t d;
  PetscFunctionBeginUser;
  PetscCall(SRH5DatasetWriteSummed(f, name, H5T_NATIVE_DOUBLE, rank, dims, buf));
  SRCallHDF5Id(d, H5Dopen2(f, name, H5P_DEFAULT));
  PetscCall(SRH5AttrWriteString(d, "meaning", meaning));
  SRCallHDF5(H5Dclose(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Write_Private(hid_t f, void *vctx)
{
  WriteCtx_Private    *c = (WriteCtx_Private *)vctx;
  const SRPlant       *pl = c->pl;
  const SRSpec        *S  = c->S;
  const SRSplitResult *res = c->res;
  const int            n = pl->n, nsub = c->info->nsub;
  const hsize_t        L_ = (hsize_t)res->nleaves;
  Header_Private       h;
  double              *buf;
  int                  na = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&h, sizeof h));
  PetscCall(PetscStrncpy(h.verdict, c->info->planted[0] ? "PLANTED-FAULT" : res->verdict == SR_VERDICT_VERIFIED ? "VERIFIED" : res->verdict == SR_VERDICT_FALSIFIED ? "FALSIFIED" : "UNKNOWN", sizeof h.verdict));
  PetscCall(PetscStrncpy(h.planted, c->info->planted, sizeof h.planted));
  PetscCall(PetscStrncpy(h.plant, c->info->plant, sizeof h.plant));
  PetscCall(PetscStrncpy(h.network, c->info->network, sizeof h.network));
  PetscCall(PetscStrncpy(h.spec, c->info->spec, sizeof h.spec));
  for (int i = 0; i < n; i++) strcat(h.states, pl->state[i]), strcat(h.states, i + 1 < n ? "," : "");
  for (int k = 0; k < S->nc; k++) na += S->c[k].natoms;
  h.period = pl->period, h.n = n, h.steps = pl->steps, h.leaves = res->nleaves, h.open = 0, h.sub = nsub, h.ncons = na;
  h.tubes = L_ && res->leaves[0].tube;
  for (hsize_t k = 0; k < L_; k++) h.open += res->leaves[k].status != SR_PIECE_PROVEN;
  for (int i = 0; i < n; i++) h.x0lo[i] = S->lo[i], h.x0hi[i] = S->hi[i];
  PetscCall(SRH5AttrWriteString(f, "simreach_format", SR_TUBES_FORMAT));
  PetscCall(SRH5AttrWriteString(f, "verdict", h.verdict));
  PetscCall(SRH5AttrWriteString(f, "planted_fault", h.planted));
  PetscCall(SRH5AttrWriteString(f, "plant", h.plant));
  PetscCall(SRH5AttrWriteString(f, "network", h.network));
  PetscCall(SRH5AttrWriteString(f, "spec", h.spec));
  PetscCall(SRH5AttrWriteString(f, "states", h.states));
  PetscCall(SRH5AttrWrite(f, "period", H5T_NATIVE_DOUBLE, 1, &h.period));
  PetscCall(SRH5AttrWrite(f, "steps", H5T_NATIVE_INT64, 1, &h.steps));
  PetscCall(SRH5AttrWrite(f, "leaves", H5T_NATIVE_INT64, 1, &h.leaves));
  PetscCall(SRH5AttrWrite(f, "open", H5T_NATIVE_INT64, 1, &h.open));
  PetscCall(SRH5AttrWrite(f, "trajectory_sub", H5T_NATIVE_INT64, 1, &h.sub));
  PetscCall(SRH5AttrWrite(f, "constraint_rows", H5T_NATIVE_INT64, 1, &h.ncons));
  PetscCall(SRH5AttrWrite(f, "has_tubes", H5T_NATIVE_INT64, 1, &h.tubes));
  PetscCall(SRH5AttrWrite(f, "x0_lo", H5T_NATIVE_DOUBLE, (hsize_t)n, h.x0lo));
  PetscCall(SRH5AttrWrite(f, "x0_hi", H5T_NATIVE_DOUBLE, (hsize_t)n, h.x0hi));
  {
    const uint64_t hs = HeaderSum_Private(&h);
    PetscCall(SRH5AttrWrite(f, "header_checksum", H5T_NATIVE_UINT64, 1, &hs));
  }
  /* leaves: lo, hi, status, id, depth */
  PetscCall(PetscMalloc1(L_ * (2 * n + 3) + 1, &buf));
  for (hsize_t k = 0; k < L_; k++) {
    const SRLeaf *lf = &res->leaves[k];
    for (int i = 0; i < n; i++) buf[k * (2 * n + 3) + i] = lf->lo[i], buf[k * (2 * n + 3) + n + i] = lf->hi[i];
    buf[k * (2 * n + 3) + 2 * n] = lf->status, buf[k * (2 * n + 3) + 2 * n + 1] = lf->id, buf[k * (2 * n + 3) + 2 * n + 2] = lf->depth;
  }
  {
    const hsize_t d[2] = {L_, (hsize_t)(2 * n + 3)};
    PetscCall(Dataset_Private(f, "pieces", 2, d, buf, "lo[n], hi[n], status (0 proven, 1 open), tree id, depth"));
  }
  PetscCall(PetscFree(buf));
  if (h.tubes) {
    const hsize_t d[4] = {L_, (hsize_t)pl->steps, (hsize_t)n, 2};
    const size_t  one  = (size_t)pl->steps * (size_t)n * 2;
    PetscCall(PetscMalloc1(L_ * one, &buf));
    for (hsize_t k = 0; k < L_; k++) PetscCall(PetscArraycpy(buf + k * one, res->leaves[k].tube, one));
    PetscCall(Dataset_Private(f, "tubes", 4, d, buf, "per piece and period: the box enclosing every state over [j T, (j+1) T] (NaN after a failure)"));
    PetscCall(PetscFree(buf));
  }
  /* constraints: rows [constraint, kind, t0, t1, a[n], b] */
  {
    int           r = 0;
    const hsize_t d[2] = {(hsize_t)na, (hsize_t)(n + 5)};
    PetscCall(PetscMalloc1((size_t)na * (n + 5) + 1, &buf));
    for (int k = 0; k < S->nc; k++)
      for (int q = 0; q < S->c[k].natoms; q++, r++) {
        double *row = buf + (size_t)r * (n + 5);
        row[0] = k, row[1] = S->c[k].kind, row[2] = S->c[k].t0, row[3] = S->c[k].t1;
        for (int i = 0; i < n; i++) row[4 + i] = SRIntervalMid(S->c[k].atom[q].a[i]);
        row[4 + n] = SRIntervalMid(S->c[k].atom[q].b);
      }
    PetscCall(Dataset_Private(f, "constraints", 2, d, buf, "constraint, kind (0 always, 1 at_end, 2 eventually), t0, t1, a[n], b: a . x <= b"));
    PetscCall(PetscFree(buf));
  }
  /* the counterexample's simulated trajectory, or the centre's (a reference) */
  {
    double        x0[SR_AFFINE_MAX];
    const hsize_t d[2] = {(hsize_t)pl->steps * (hsize_t)nsub + 1, (hsize_t)n};
    for (int i = 0; i < n; i++) x0[i] = res->verdict == SR_VERDICT_FALSIFIED ? res->cex[i] : 0.5 * S->ilo[i] + 0.5 * S->ihi[i];
    PetscCall(PetscMalloc1(d[0] * d[1], &buf));
    SRSimulate(c->L, x0, nsub, buf);
    PetscCall(Dataset_Private(f, "trajectory", 2, d, buf, res->verdict == SR_VERDICT_FALSIFIED ? "the counterexample (simulated, RK4), times k T / trajectory_sub" : "a simulated trajectory from the centre of X0, times k T / trajectory_sub"));
    PetscCall(PetscFree(buf));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTubesFileWrite(MPI_Comm comm, const char out[], PetscBool force, const SRPlant *pl, const SRSpec *S, SRLoop *L, const SRSplitResult *res, const SRTubesWriteInfo *info)
{
  char             part[PETSC_MAX_PATH_LEN + 8];
  WriteCtx_Private c = {pl, S, L, res, info};
  double           bytes;

  PetscFunctionBeginUser;
  /* the size known before writing: checked (statvfs, ulimit -f) and reserved (fallocate) */
  bytes = 8.0 * (double)res->nleaves * (2.0 * pl->n + 3.0 + 2.0 * (double)pl->steps * pl->n) + 8.0 * ((double)pl->steps * info->nsub + 1.0) * pl->n + 8.0 * 32.0 * SR_SPEC_MAX_ATOMS * (pl->n + 5.0) + 65536.0;
  PetscCall(SRFileCheckSpace(comm, out, bytes));
  PetscCall(SRFileCreateExclusiveTemp(comm, out, part, sizeof part));
  PetscCall(SRFileReserve(comm, part, out, bytes));
  PetscCall(SRFileWriteOnRank0(comm, part, out, Write_Private, &c));
  PetscCall(SRFileCommit(comm, part, out, force));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTubesFileProbe(const char path[], PetscBool *is)
{
  static const char *const any[] = {SR_TUBES_FORMAT, "simreach closedloop tubes 1", NULL};
  PetscFunctionBeginUser;
  PetscCall(SRH5FormatProbe(path, any, is));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int CmpDouble_Private(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The leaves against the header: status, depth and id (the heap numbering of split.c: the root
   1, the halves of id are 2 id and 2 id + 1), inside X0; with every leaf of a complete tree
   (no leaf the ancestor of another, sum of 2^-depth = 1: exact in doubles to depth 52). */
static PetscErrorCode Leaves_Private(MPI_Comm comm, const char path[], const Header_Private *h, const double *P, PetscBool *complete)
{
  const int64_t n = h->n, w = 2 * n + 3;
  int64_t       open = 0;
  double        mass = 0, *ids;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(h->leaves + 1, &ids));
  for (int64_t k = 0; k < h->leaves; k++) {
    const double *r = P + k * w, st = r[2 * n], id = r[2 * n + 1], dp = r[2 * n + 2];
    PetscBool     ok = (PetscBool)((st == 0 || st == 1) && dp >= 0 && dp <= 52 && dp == floor(dp) && id == floor(id) && id >= ldexp(1.0, (int)dp) && id < ldexp(1.0, (int)dp + 1));
    for (int64_t i = 0; i < n && ok; i++) ok = (PetscBool)(r[i] <= r[n + i] && r[i] >= h->x0lo[i] && r[n + i] <= h->x0hi[i]);
    if (!ok) PetscCall(PetscFree(ids));
    PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED, "tubes file %s: dataset /pieces row %lld is no leaf of X0 (status %g, depth %g, tree id %g, or a box outside x0_lo, x0_hi)", path, (long long)k, st, dp, id);
    open += st == 1;
    mass += ldexp(1.0, -(int)dp);
    ids[k] = id;
  }
  if (open != h->open) PetscCall(PetscFree(ids));
  PetscCheck(open == h->open, comm, PETSC_ERR_FILE_UNEXPECTED, "tubes file %s: %lld open leaves in /pieces, attribute open says %lld", path, (long long)open, (long long)h->open);
  qsort(ids, (size_t)h->leaves, sizeof(double), CmpDouble_Private);
  *complete = (PetscBool)(mass == 1.0 && h->leaves > 0);
  for (int64_t k = 0; k < h->leaves && *complete; k++) {
    if (k && ids[k] == ids[k - 1]) *complete = PETSC_FALSE;
    for (double a = floor(ids[k] / 2); a >= 1 && *complete; a = floor(a / 2))
      if (bsearch(&a, ids, (size_t)h->leaves, sizeof(double), CmpDouble_Private)) *complete = PETSC_FALSE;
  }
  PetscCall(PetscFree(ids));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTubesFileValidate(MPI_Comm comm, const char path[], SRTubesSummary *sum)
{
  Header_Private h;
  hid_t          f;
  uint64_t       hs;
  double        *P, *buf;
  PetscBool      complete, ok;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&h, sizeof h));
  SRCallHDF5(H5Eset_auto2(H5E_DEFAULT, NULL, NULL));
  f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  PetscCheck(f >= 0, comm, PETSC_ERR_FILE_READ, "tubes file %s: cannot be opened as HDF5 (truncated or damaged)", path);
  PetscCall(SRH5FormatCheck(comm, f, "tubes file", path, SRTubesFormats, SRTubesFormatsOld, "written before tubes files carried checksums: write it again with simreach closedloop -o", NULL));
  PetscCall(SRH5AttrReadString(f, "tubes file", path, "verdict", "", PETSC_TRUE, h.verdict, sizeof h.verdict));
  PetscCall(SRH5AttrReadString(f, "tubes file", path, "planted_fault", "", PETSC_TRUE, h.planted, sizeof h.planted));
  PetscCall(SRH5AttrReadString(f, "tubes file", path, "plant", "", PETSC_TRUE, h.plant, sizeof h.plant));
  PetscCall(SRH5AttrReadString(f, "tubes file", path, "network", "", PETSC_TRUE, h.network, sizeof h.network));
  PetscCall(SRH5AttrReadString(f, "tubes file", path, "spec", "", PETSC_TRUE, h.spec, sizeof h.spec));
  PetscCall(SRH5AttrReadString(f, "tubes file", path, "states", "", PETSC_TRUE, h.states, sizeof h.states));
  PetscCall(SRH5AttrRead(comm, f, "tubes file", path, "period", NULL, H5T_NATIVE_DOUBLE, 1, &h.period));
  PetscCall(SRH5AttrRead(comm, f, "tubes file", path, "steps", NULL, H5T_NATIVE_INT64, 1, &h.steps));
  PetscCall(SRH5AttrRead(comm, f, "tubes file", path, "leaves", NULL, H5T_NATIVE_INT64, 1, &h.leaves));
  PetscCall(SRH5AttrRead(comm, f, "tubes file", path, "open", NULL, H5T_NATIVE_INT64, 1, &h.open));
  PetscCall(SRH5AttrRead(comm, f, "tubes file", path, "trajectory_sub", NULL, H5T_NATIVE_INT64, 1, &h.sub));
  PetscCall(SRH5AttrRead(comm, f, "tubes file", path, "constraint_rows", NULL, H5T_NATIVE_INT64, 1, &h.ncons));
  PetscCall(SRH5AttrRead(comm, f, "tubes file", path, "has_tubes", NULL, H5T_NATIVE_INT64, 1, &h.tubes));
  /* the counts bounded before any is used as a size (the plant file's caps, SPEC §15) */
  {
    int commas = 0;
    for (const char *p = h.states; *p; p++) commas += *p == ',';
    h.n = h.states[0] ? commas + 1 : 0;
  }
  ok = (PetscBool)(h.n >= 1 && h.n <= SR_AFFINE_MAX && h.steps >= 1 && h.steps <= 10000000 && h.leaves >= 0 && h.leaves <= 100000000 && h.open >= 0 && h.open <= h.leaves && h.sub >= 1 && h.sub <= 10000 && h.ncons >= 0 &&
                   h.ncons <= SR_SPEC_MAX_CONSTRAINTS * SR_SPEC_MAX_ATOMS && (h.tubes == 0 || h.tubes == 1) && isfinite(h.period) && h.period > 0);
  PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED, "tubes file %s: the header counts are out of range (states %lld, steps %lld, leaves %lld, open %lld, trajectory_sub %lld, constraint_rows %lld, has_tubes %lld, period %g)", path, (long long)h.n, (long long)h.steps,
             (long long)h.leaves, (long long)h.open, (long long)h.sub, (long long)h.ncons, (long long)h.tubes, h.period);
  PetscCall(SRH5AttrRead(comm, f, "tubes file", path, "x0_lo", NULL, H5T_NATIVE_DOUBLE, (hsize_t)h.n, h.x0lo));
  PetscCall(SRH5AttrRead(comm, f, "tubes file", path, "x0_hi", NULL, H5T_NATIVE_DOUBLE, (hsize_t)h.n, h.x0hi));
  PetscCall(SRH5AttrRead(comm, f, "tubes file", path, "header_checksum", NULL, H5T_NATIVE_UINT64, 1, &hs));
  PetscCheck(hs == HeaderSum_Private(&h), comm, PETSC_ERR_FILE_UNEXPECTED, "tubes file %s: the header attributes (verdict, files, states, period, steps, counts, X0) fail their checksum (the file is damaged or was edited)", path);
  {
    const hsize_t dp[2] = {(hsize_t)h.leaves, (hsize_t)(2 * h.n + 3)}, dc[2] = {(hsize_t)h.ncons, (hsize_t)(h.n + 5)}, dt[2] = {(hsize_t)(h.steps * h.sub + 1), (hsize_t)h.n};
    const hsize_t dtub[4] = {(hsize_t)h.leaves, (hsize_t)h.steps, (hsize_t)h.n, 2};
    const double  tb      = h.tubes ? (double)h.leaves * (double)h.steps * (double)h.n * 2.0 : 0;
    PetscCall(SRMemCheck(comm, 8.0 * (tb + dp[0] * dp[1] + dc[0] * dc[1] + dt[0] * dt[1]), "tubes file", path));
    PetscCall(PetscMalloc1(dp[0] * dp[1] + 1, &P));
    PetscCall(SRH5DatasetReadChecked(comm, f, "tubes file", path, "pieces", "/pieces", H5T_NATIVE_DOUBLE, 2, dp, PETSC_TRUE, P));
    PetscCall(Leaves_Private(comm, path, &h, P, &complete));
    PetscCall(PetscMalloc1(PetscMax(dc[0] * dc[1], dt[0] * dt[1]) + 1, &buf));
    PetscCall(SRH5DatasetReadChecked(comm, f, "tubes file", path, "constraints", "/constraints", H5T_NATIVE_DOUBLE, 2, dc, PETSC_TRUE, buf));
    PetscCall(SRH5DatasetReadChecked(comm, f, "tubes file", path, "trajectory", "/trajectory", H5T_NATIVE_DOUBLE, 2, dt, PETSC_TRUE, buf));
    PetscCall(PetscFree(buf));
    if (h.tubes) {
      const size_t one = (size_t)h.steps * (size_t)h.n * 2;
      PetscCall(PetscMalloc1((size_t)tb + 1, &buf));
      PetscCall(SRH5DatasetReadChecked(comm, f, "tubes file", path, "tubes", "/tubes", H5T_NATIVE_DOUBLE, 4, dtub, PETSC_TRUE, buf));
      for (int64_t k = 0; k < h.leaves; k++) /* a proven leaf has a whole tube */
        for (size_t j = 0; j < one && P[k * (2 * h.n + 3) + 2 * h.n] == 0; j += 2) {
          ok = (PetscBool)(isfinite(buf[k * one + j]) && isfinite(buf[k * one + j + 1]) && buf[k * one + j] <= buf[k * one + j + 1]);
          if (!ok) PetscCall(PetscFree(buf));
          if (!ok) PetscCall(PetscFree(P));
          PetscCheck(ok, comm, PETSC_ERR_FILE_UNEXPECTED, "tubes file %s: leaf %lld is proven, but its tube has an empty or non-finite box at period %lld", path, (long long)k, (long long)(j / (2 * (size_t)h.n)));
        }
      PetscCall(PetscFree(buf));
    }
    PetscCall(PetscFree(P));
  }
  SRCallHDF5(H5Fclose(f));
  /* the verdict against the leaves */
  if (!strcmp(h.verdict, "VERIFIED")) {
    PetscCheck(!h.planted[0], comm, PETSC_ERR_FILE_UNEXPECTED, "tubes file %s: says VERIFIED under the planted fault '%s'", path, h.planted);
    PetscCheck(h.open == 0 && complete && h.tubes, comm, PETSC_ERR_FILE_UNEXPECTED, "tubes file %s: says VERIFIED, but %s", path, h.open ? "some leaves are open" : !h.tubes ? "no tubes are stored" : "its leaves are no complete bisection of X0");
  } else if (!strcmp(h.verdict, "UNKNOWN")) {
    PetscCheck(h.open > 0, comm, PETSC_ERR_FILE_UNEXPECTED, "tubes file %s: says UNKNOWN, but no leaf is open", path);
  } else if (!strcmp(h.verdict, "PLANTED-FAULT")) {
    PetscCheck(h.planted[0], comm, PETSC_ERR_FILE_UNEXPECTED, "tubes file %s: says PLANTED-FAULT, but names no planted fault", path);
  } else PetscCheck(!strcmp(h.verdict, "FALSIFIED") && !h.planted[0], comm, PETSC_ERR_FILE_UNEXPECTED, "tubes file %s: verdict '%s'; allowed are VERIFIED, FALSIFIED, UNKNOWN (PLANTED-FAULT only with a planted fault)", path, h.verdict);
  if (sum) {
    PetscCall(PetscStrncpy(sum->verdict, h.verdict, sizeof sum->verdict));
    PetscCall(PetscStrncpy(sum->planted, h.planted, sizeof sum->planted));
    PetscCall(PetscStrncpy(sum->plant, h.plant, sizeof sum->plant));
    PetscCall(PetscStrncpy(sum->network, h.network, sizeof sum->network));
    PetscCall(PetscStrncpy(sum->spec, h.spec, sizeof sum->spec));
    sum->n = h.n, sum->steps = h.steps, sum->leaves = h.leaves, sum->open = h.open;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
