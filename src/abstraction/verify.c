/* The verification of SPEC §10: enclosures (optionally bisected), index-box lists C(k) = M(k)
   and the exact containment test over a fine partition, distributed by owned cells and
   streamed in chunks; and the re-check of a stored abstraction file.

   Rank r owns the block [kstart, kend) of SRVerifyOwnership and handles it SR_VERIFY_CHUNK
   cells at a time: boxes from the axes, enclosures, index boxes, containment, then one
   collective write of the chunk's rows.  Nothing list-sized is communicated: the reductions
   are integer sums (entries, failures) and an exact fixed-point sum of the volumes, so every
   figure is independent of the number of ranks. */
#include <simreach/verify.h>
#include <simreach/interval.h>
#include <petsctime.h>

#define SR_VERIFY_CHUNK 32768

void SRVerifyOwnership(PetscInt64 K, PetscMPIInt size, PetscMPIInt rank, PetscInt64 *kstart, PetscInt64 *kend)
{
  const PetscInt64 q = K / size, rem = K % size;
  *kstart = rank * q + PetscMin((PetscInt64)rank, rem);
  *kend   = *kstart + q + ((PetscInt64)rank < rem ? 1 : 0);
}

/* Bisection depth d: dimension (level mod n) is halved at each level, so dimension e is cut into
   s_e = 2^(number of levels e got) pieces.  Piece j of [lo, hi] is [t_j, t_{j+1}] with
   t_j = lo + (hi - lo) (j / s) (j / s exact), t_0 = lo, t_s = hi: adjacent pieces share their
   endpoint, and t_j is non-decreasing (monotone rounding), so the pieces cover [lo, hi]. */
static inline double SRPiece_Private(double lo, double hi, PetscInt j, PetscInt s)
{
  if (j <= 0) return lo;
  if (j >= s) return hi;
  return lo + (hi - lo) * ((double)j / (double)s);
}

PetscErrorCode SREnclosureComputeBisected(SRModel model, SREnclosureType type, PetscInt depth, PetscInt nb, const double *boxes, double *E, SRCellStatus *status)
{
  const PetscInt n = model->n;
  PetscInt       s[SR_MAX_DIM] = {[0 ... SR_MAX_DIM - 1] = 1}, nsub = 1, per;
  double        *sub, *Es;
  SRCellStatus  *ss;

  PetscFunctionBeginUser;
  PetscCheck(depth >= 0 && depth <= 20, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-bisect %" PetscInt_FMT ": allowed are 0 to 20", depth);
  if (depth == 0) {
    PetscCall(SREnclosureComputeBoxes(model, type, nb, boxes, E, status));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt l = 0; l < depth; l++) s[l % n] *= 2;
  for (PetscInt d = 0; d < n; d++) nsub *= s[d];
  per = PetscMax(1, 4096 / nsub); /* boxes per batch */
  PetscCall(PetscMalloc3(2 * n * per * nsub, &sub, 2 * n * per * nsub, &Es, per * nsub, &ss));
  for (PetscInt b0 = 0; b0 < nb; b0 += per) {
    const PetscInt m = PetscMin(per, nb - b0);
    for (PetscInt c = 0; c < m; c++) {
      const double *bx = boxes + 2 * n * (b0 + c);
      for (PetscInt q = 0; q < nsub; q++) {
        double  *sb = sub + 2 * n * (c * nsub + q);
        PetscInt r  = q;
        for (PetscInt d = 0; d < n; d++) {
          const PetscInt j = r % s[d];
          r /= s[d];
          sb[d]     = SRPiece_Private(bx[d], bx[n + d], j, s[d]);
          sb[n + d] = SRPiece_Private(bx[d], bx[n + d], j + 1, s[d]);
        }
      }
    }
    PetscCall(SREnclosureComputeBoxes(model, type, m * nsub, sub, Es, ss));
    for (PetscInt c = 0; c < m; c++) {
      double *Ec = E + 2 * n * (b0 + c);
      status[b0 + c] = SR_CELL_OK;
      for (PetscInt d = 0; d < n; d++) {
        Ec[d]     = PETSC_INFINITY;
        Ec[n + d] = -PETSC_INFINITY;
      }
      for (PetscInt q = 0; q < nsub; q++) {
        const double *e = Es + 2 * n * (c * nsub + q);
        if (ss[c * nsub + q] != SR_CELL_OK) status[b0 + c] = SR_CELL_NONFINITE;
        for (PetscInt d = 0; d < n; d++) {
          Ec[d]     = PetscMin(Ec[d], e[d]);
          Ec[n + d] = PetscMax(Ec[n + d], e[n + d]);
        }
      }
      if (status[b0 + c] != SR_CELL_OK)
        for (PetscInt d = 0; d < n; d++) {
          Ec[d]     = -PETSC_INFINITY;
          Ec[n + d] = PETSC_INFINITY;
        }
    }
  }
  PetscCall(PetscFree3(sub, Es, ss));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscLogEvent ev_enc, ev_list, ev_cont, ev_write;
} SRVerifyEvents;

static PetscErrorCode SRVerifyEvents_Private(SRVerifyEvents *ev)
{
  PetscClassId cid;

  PetscFunctionBeginUser;
  PetscCall(PetscClassIdRegister("SRVerify", &cid));
  PetscCall(PetscLogEventRegister("SRVerifyEnclose", cid, &ev->ev_enc));
  PetscCall(PetscLogEventRegister("SRVerifyLists", cid, &ev->ev_list));
  PetscCall(PetscLogEventRegister("SRVerifyContain", cid, &ev->ev_cont));
  PetscCall(PetscLogEventRegister("SRVerifyWrite", cid, &ev->ev_write));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* vol(E) / vol(D) rounded to nearest in units of 2^-30, clamped to [0, 2^32) units; exact sums. */
static inline int64_t SRVolumeUnits_Private(PetscInt n, const double *E, const double *dvol)
{
  double v = 1.0;
  for (PetscInt d = 0; d < n; d++) v *= (E[n + d] - E[d]) / dvol[d];
  v = v * 0x1p30;
  if (!(v >= 0.0)) return 0;
  if (v > 0x1p62) v = 0x1p62;
  return (int64_t)(v + 0.5);
}

typedef struct {
  PetscInt64 nf, cap;
  int64_t   *cell;
  double    *w; /* n per failure */
} SRFailBuf;

static PetscErrorCode SRFailPush_Private(SRFailBuf *f, PetscInt n, PetscInt64 k, const double *w)
{
  PetscFunctionBeginUser;
  if (f->nf == f->cap) {
    PetscInt64 nc = 2 * f->cap + 64;
    int64_t   *c;
    double    *ww;
    PetscCall(PetscMalloc2(nc, &c, nc * n, &ww));
    if (f->nf) {
      PetscCall(PetscArraycpy(c, f->cell, f->nf));
      PetscCall(PetscArraycpy(ww, f->w, f->nf * n));
    }
    PetscCall(PetscFree2(f->cell, f->w));
    f->cell = c;
    f->w    = ww;
    f->cap  = nc;
  }
  f->cell[f->nf] = k;
  for (PetscInt d = 0; d < n; d++) f->w[f->nf * n + d] = w[d];
  f->nf++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One pass over the owned cells.  build: lists from E (verify); otherwise the lists are read
   from af (check) and only tested.  */
static PetscErrorCode SRVerifyPass_Private(MPI_Comm comm, SRModel model, SRAxes ax, SREnclosureType type, PetscInt depth, SRAbstractionFile af, PetscBool build, PetscBool progress, SRFailBuf *fails, SRVerifyMetrics *m)
{
  const PetscInt n = ax->n, rl = SRListRowLength(n);
  PetscMPIInt    rank, size;
  PetscInt64     ks, ke, nloc, rounds, lsum[5] = {0, 0, 0, 0, 0}, gsum[5], next_report = 1;
  double        *boxes, *E, dvol[SR_MAX_DIM], t[4] = {0, 0, 0, 0}, tmax[4];
  int32_t       *rows;
  SRCellStatus  *st;
  SRVerifyEvents ev;
  PetscLogDouble t0, t1, tstart;

  PetscFunctionBeginUser;
  PetscCall(SRVerifyEvents_Private(&ev));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  SRVerifyOwnership(ax->K, size, rank, &ks, &ke);
  nloc = ke - ks;
  {
    PetscInt64 lr = (nloc + SR_VERIFY_CHUNK - 1) / SR_VERIFY_CHUNK;
    PetscCallMPI(MPI_Allreduce(&lr, &rounds, 1, MPIU_INT64, MPI_MAX, comm));
  }
  for (PetscInt d = 0; d < n; d++) dvol[d] = ax->dhi[d] - ax->dlo[d];
  PetscCall(PetscMalloc4(2 * n * SR_VERIFY_CHUNK, &boxes, 2 * n * SR_VERIFY_CHUNK, &E, rl * SR_VERIFY_CHUNK, &rows, SR_VERIFY_CHUNK, &st));
  PetscCall(PetscTime(&tstart));
  for (PetscInt64 r = 0; r < rounds; r++) {
    const PetscInt64 k0 = ks + r * SR_VERIFY_CHUNK;
    const PetscInt   nb = (PetscInt)PetscMax(0, PetscMin((PetscInt64)SR_VERIFY_CHUNK, ke - k0));

    /* enclosures */
    PetscCall(PetscLogEventBegin(ev.ev_enc, 0, 0, 0, 0));
    PetscCall(PetscTime(&t0));
    for (PetscInt c = 0; c < nb; c++) SRAxesCellBox(ax, k0 + c, boxes + 2 * n * c, boxes + 2 * n * c + n);
    if (nb > 0) PetscCall(SREnclosureComputeBisected(model, type, depth, nb, boxes, E, st));
    PetscCall(PetscTime(&t1));
    t[0] += t1 - t0;
    PetscCall(PetscLogEventEnd(ev.ev_enc, 0, 0, 0, 0));

    /* lists: built from E (verify) or read from the file (check) */
    PetscCall(PetscLogEventBegin(ev.ev_list, 0, 0, 0, 0));
    PetscCall(PetscTime(&t0));
    if (build) {
      for (PetscInt c = 0; c < nb; c++) {
        int32_t *row = rows + rl * c;
        if (st[c] == SR_CELL_OK) SRAxesIndexBox(ax, E + 2 * n * c, E + 2 * n * c + n, row);
        else {
          for (PetscInt d = 0; d < n; d++) {
            row[d]     = 0;
            row[n + d] = -1;
          }
          row[2 * n] = SR_LIST_SINK | SR_LIST_NONFINITE;
        }
      }
    } else if (nb > 0) PetscCall(SRAbstractionFileRead(af, k0, nb, rows, NULL));
    for (PetscInt c = 0; c < nb; c++) {
      const int32_t *row = rows + rl * c;
      lsum[0] += SRListRowCount(n, row);
      if (row[2 * n] & SR_LIST_SINK) lsum[1]++;
      if (st[c] == SR_CELL_OK) lsum[4] += SRVolumeUnits_Private(n, E + 2 * n * c, dvol);
      else lsum[3]++;
    }
    PetscCall(PetscTime(&t1));
    t[1] += t1 - t0;
    PetscCall(PetscLogEventEnd(ev.ev_list, 0, 0, 0, 0));

    /* containment */
    PetscCall(PetscLogEventBegin(ev.ev_cont, 0, 0, 0, 0));
    PetscCall(PetscTime(&t0));
    for (PetscInt c = 0; c < nb; c++) {
      double w[SR_MAX_DIM];
      if (st[c] == SR_CELL_OK && SRAxesContains(ax, rows + rl * c, E + 2 * n * c, E + 2 * n * c + n, NULL)) continue;
      lsum[2]++;
      if (st[c] == SR_CELL_OK) (void)SRAxesContains(ax, rows + rl * c, E + 2 * n * c, E + 2 * n * c + n, w);
      else
        for (PetscInt d = 0; d < n; d++) w[d] = NAN;
      PetscCall(SRFailPush_Private(fails, n, k0 + c, w));
    }
    PetscCall(PetscTime(&t1));
    t[2] += t1 - t0;
    PetscCall(PetscLogEventEnd(ev.ev_cont, 0, 0, 0, 0));

    if (build && af) {
      PetscCall(PetscLogEventBegin(ev.ev_write, 0, 0, 0, 0));
      PetscCall(PetscTime(&t0));
      PetscCall(SRAbstractionFileWriteChunk(af, k0, nb, E, rows));
      PetscCall(PetscTime(&t1));
      t[3] += t1 - t0;
      PetscCall(PetscLogEventEnd(ev.ev_write, 0, 0, 0, 0));
    }
    if (progress && rank == 0 && (r + 1) * 10 >= next_report * rounds && rounds >= 10) {
      PetscCall(PetscTime(&t1));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  verify: %3d %% of the cells (rank 0: %" PetscInt64_FMT " of %" PetscInt64_FMT "), %.1f s\n", (int)(100 * (r + 1) / rounds), PetscMin((r + 1) * (PetscInt64)SR_VERIFY_CHUNK, nloc), nloc, t1 - tstart));
      while ((r + 1) * 10 >= next_report * rounds) next_report++;
    }
  }
  PetscCall(PetscFree4(boxes, E, rows, st));
  PetscCallMPI(MPI_Allreduce(lsum, gsum, 5, MPIU_INT64, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(t, tmax, 4, MPI_DOUBLE, MPI_MAX, comm));
  m->K         = ax->K;
  m->entries   = gsum[0];
  m->sink      = gsum[1];
  m->failures  = gsum[2];
  m->nonfinite = gsum[3];
  m->succ_mean = (double)gsum[0] / (double)ax->K;
  m->volE_mean = ((double)gsum[4] * 0x1p-30) / (double)ax->K;
  m->t_enclose = tmax[0];
  m->t_lists   = tmax[1];
  m->t_contain = tmax[2];
  m->t_write   = tmax[3];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRVerifyRun(MPI_Comm comm, SRModel model, SRAxes ax, SREnclosureType type, PetscInt depth, SRAbstractionFile out, PetscBool progress, SRVerifyMetrics *m)
{
  SRFailBuf f = {0, 0, NULL, NULL};

  PetscFunctionBeginUser;
  PetscCheck(model->n == ax->n, comm, PETSC_ERR_ARG_INCOMP, "the network maps dimension %" PetscInt_FMT ", the cells have dimension %" PetscInt_FMT, model->n, ax->n);
  PetscCall(SRVerifyPass_Private(comm, model, ax, type, depth, out, PETSC_TRUE, progress, &f, m));
  if (out) PetscCall(SRAbstractionFileFinish(out, f.nf, f.cell, f.w, m));
  PetscCall(PetscFree2(f.cell, f.w));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRVerifyCheckFile(MPI_Comm comm, const char path[], SREnclosureType type, PetscInt depth, PetscInt max_print, SRVerifyMetrics *m)
{
  SRAbstractionFile          af;
  const SRAbstractionHeader *h;
  SRAxes                     ax;
  SRSystem                   sys;
  SRModel                    model;
  SRFailBuf                  f = {0, 0, NULL, NULL};
  PetscMPIInt                rank, size;
  PetscInt64                 nprint, *counts = NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(SRAbstractionFileOpen(comm, path, &af));
  PetscCall(SRAbstractionFileValidateRows(af)); /* before any answer (SPEC §13) */
  PetscCall(SRAbstractionFileGetHeader(af, &h));
  PetscCall(SRAbstractionFileGetAxes(af, &ax));
  PetscCall(SRAbstractionFileGetModel(af, &sys, &model));
  PetscCall(SRVerifyPass_Private(comm, model, ax, type, depth, af, PETSC_FALSE, PETSC_FALSE, &f, m));
  /* print the first failures in cell order: ranks own increasing blocks, so rank order is cell order */
  PetscCall(PetscMalloc1(size, &counts));
  PetscCallMPI(MPI_Allgather(&f.nf, 1, MPIU_INT64, counts, 1, MPIU_INT64, comm));
  nprint = max_print;
  for (PetscMPIInt r = 0; r < size && nprint > 0; r++) {
    const PetscInt64 np = PetscMin(nprint, counts[r]);
    if (r == rank)
      for (PetscInt64 i = 0; i < np; i++) {
        char buf[256] = "";
        for (PetscInt d = 0; d < ax->n; d++) {
          char one[40];
          PetscCall(PetscSNPrintf(one, sizeof(one), " %.17g", f.w[i * ax->n + d]));
          PetscCall(PetscStrlcat(buf, one, sizeof(buf)));
        }
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "  FAILED cell %" PetscInt64_FMT ": E_k (%s) is not inside its stored list; uncovered point of E_k:%s\n", (PetscInt64)f.cell[i], SREnclosureTypes[type], buf));
      }
    nprint -= np;
    PetscCallMPI(MPI_Barrier(comm));
  }
  PetscCall(PetscFree(counts));
  PetscCall(PetscFree2(f.cell, f.w));
  PetscCall(SRModelDestroy(&model));
  PetscCall(SRSystemDestroy(&sys));
  PetscCall(SRAbstractionFileClose(&af));
  PetscFunctionReturn(PETSC_SUCCESS);
}
