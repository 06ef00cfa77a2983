/* |M_tight|, vol(E_tight) and the floor |F| of SPEC §5, §6, per checkpoint.

   A reviewer's question is whether a treatment lowered what soundness costs: the successor
   count the tightest available sound enclosure needs (not the run's own, cheaper enclosure,
   nor the certified lists that -succ_margin pins), and how far that still is from the floor
   that only a different network or different cells could lower. */
#include <simreach/metrics.h>
#include <simreach/verify.h>
#include <simreach/private/cellmodel.h>
#include <simreach/private/enclosure.h>
#include <simreach/private/metrics_tight.h>
#include <petsctime.h>

#define SR_METRICS_BLOCK 256     /* cells per batch of whole-cell enclosures */
#define SR_METRICS_POINTS 65536  /* sub-boxes or floor points per batch at most */

/* Outward boxes of the s^n sub-boxes of [lo, hi] (row j: lo then hi).  Edges a_i = lo + i (hi - lo) / s
   with a_0 = lo, a_s = hi exactly: neighbours share the same double, so the sub-boxes cover
   [lo, hi]; the box is c +- w (directed) around c = a/2 + b/2, which contains [a, b]. */
static void SRMetricsSubBoxes_Private(PetscInt n, PetscInt s, PetscInt nsub, const double *lo, const double *hi, double *boxes)
{
  for (PetscInt j = 0; j < nsub; j++) {
    PetscInt q = j;
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt i = q % s;
      const double   a = i == 0 ? lo[d] : lo[d] + (double)i * ((hi[d] - lo[d]) / (double)s);
      const double   b = i == s - 1 ? hi[d] : lo[d] + (double)(i + 1) * ((hi[d] - lo[d]) / (double)s);
      const double   c = 0.5 * a + 0.5 * b, w = PetscMax(SRSubUp(b, c), SRSubUp(c, a));
      q /= s;
      boxes[2 * n * j + d]     = SRSubDown(c, w);
      boxes[2 * n * j + n + d] = SRAddUp(c, w);
    }
  }
}

/* Coordinate d of the lattice point of index i (0 .. floor_points - 1) of the inner box [ilo, ihi]. */
static inline double SRMetricsLattice_Private(PetscInt floor_points, PetscInt i, double ilo, double ihi)
{
  return i == floor_points - 1 ? ihi : ilo + (double)i * ((ihi - ilo) / (double)(floor_points - 1));
}

/* The floor's sample of cell k: floor_points^n points of its inner box, corners included. */
static void SRMetricsFloorPoints_Private(SRCells cells, PetscInt k, PetscInt floor_points, PetscInt np, double *X)
{
  const PetscInt n = cells->n;
  double         ilo[SR_MAX_DIM], ihi[SR_MAX_DIM];

  SRCellsBoxInner(cells, k, ilo, ihi);
  for (PetscInt p = 0; p < np; p++) {
    PetscInt q = p;
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt i = q % floor_points;
      q /= floor_points;
      X[p * n + d] = SRMetricsLattice_Private(floor_points, i, ilo[d], ihi[d]);
    }
  }
}

/* The coarse sample of cell k (floor_points >= 4): the lattice points of indices 0,
   (floor_points - 1) / 2 and floor_points - 1 in every dimension, 3^n points, the same doubles
   as in the full lattice (so their images are the same bits). */
static void SRMetricsFloorCoarse_Private(SRCells cells, PetscInt k, PetscInt floor_points, PetscInt ns, double *X)
{
  const PetscInt n = cells->n, idx[3] = {0, (floor_points - 1) / 2, floor_points - 1};
  double         ilo[SR_MAX_DIM], ihi[SR_MAX_DIM];

  SRCellsBoxInner(cells, k, ilo, ihi);
  for (PetscInt p = 0; p < ns; p++) {
    PetscInt q = p;
    for (PetscInt d = 0; d < n; d++) {
      X[p * n + d] = SRMetricsLattice_Private(floor_points, idx[q % 3], ilo[d], ihi[d]);
      q /= 3;
    }
  }
}

/* Hull of np images (PetscMin/PetscMax in point order, as the floor always took it) and the
   number of cells (+ sink) meeting it, K + 1 when the hull is not finite. */
static PetscErrorCode SRMetricsHullCount_Private(SRCells cells, SRCellIndex index, PetscInt np, const double *Y, double *ylo, double *yhi, PetscInt *cnt)
{
  const PetscInt n = cells->n;
  PetscBool      fin = PETSC_TRUE;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < n; d++) {
    ylo[d] = INFINITY;
    yhi[d] = -INFINITY;
  }
  for (PetscInt p = 0; p < np; p++)
    for (PetscInt d = 0; d < n; d++) {
      ylo[d] = PetscMin(ylo[d], Y[p * n + d]);
      yhi[d] = PetscMax(yhi[d], Y[p * n + d]);
    }
  for (PetscInt d = 0; d < n; d++) fin = (PetscBool)(fin && isfinite(ylo[d]) && isfinite(yhi[d]));
  if (fin) PetscCall(SRSuccessorsCertifiedCount(cells, index, ylo, yhi, cnt));
  else *cnt = cells->K + 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The floor's count without the full lattice when a sandwich decides it (SPEC §6): the coarse
   sample's hull H is inside the full lattice's hull F, which is inside the sound enclosure E
   (grown by 2^-30 (1 + |E|), far beyond the point pass's rounding, and H must lie in it).
   The cells meeting a box grow with the box in every dimension (the index ranges are exact),
   and so does leaving D; so |cells meeting H| = |cells meeting E| forces |F| to the same count.
   *decided is false when it does not (then the full lattice is evaluated). */
static PetscErrorCode SRMetricsFloorSandwich_Private(SRCells cells, SRCellIndex index, PetscInt ns, const double *Y, const double *E, PetscBool *decided, PetscInt *cnt)
{
  const PetscInt n = cells->n;
  double         hlo[SR_MAX_DIM], hhi[SR_MAX_DIM], glo[SR_MAX_DIM], ghi[SR_MAX_DIM];
  PetscInt       ch, ce;

  PetscFunctionBeginUser;
  *decided = PETSC_FALSE;
  PetscCall(SRMetricsHullCount_Private(cells, index, ns, Y, hlo, hhi, &ch));
  if (ch == cells->K + 1) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 0; d < n; d++) {
    glo[d] = E[d] - 0x1p-30 * (1.0 + PetscAbsReal(E[d]));
    ghi[d] = E[n + d] + 0x1p-30 * (1.0 + PetscAbsReal(E[n + d]));
    if (!(isfinite(glo[d]) && isfinite(ghi[d]) && glo[d] <= hlo[d] && hhi[d] <= ghi[d])) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SRSuccessorsCertifiedCount(cells, index, glo, ghi, &ce));
  *decided = (PetscBool)(ce == ch);
  *cnt     = ch;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The floor's count from cell k's Taylor model (src/abstraction/cellmodel.c), the hull over the lattice
   points of the inner box [ilo, ihi], corners included: per output, the linear part's extremes over
   the lattice are at corners, so with [lo_q, hi_q] the image boxes of the corners q
   (SRCellModelImages), min f~ lies in [min_q lo_q, min_q hi_q] and max f~ in [max_q lo_q, max_q hi_q].
   The hull contains the inner box I = [min_q hi_q, max_q lo_q] and lies in the outer box
   O = [min_q lo_q, max_q hi_q]; the cells meeting a box (and leaving D) grow with the box, so equal
   counts for I and O are the hull's count. */
PetscErrorCode SRCellModelFloorCount(SRCells cells, SRCellIndex index, const SRCellModel *cm, const double *ilo, const double *ihi, PetscBool *decided, PetscInt *cnt)
{
  const PetscInt n = cells->n, nq = (PetscInt)1 << n;
  double         X[(1 << SR_MAX_DIM) * SR_MAX_DIM], Ylo[(1 << SR_MAX_DIM) * SR_MAX_DIM], Yhi[(1 << SR_MAX_DIM) * SR_MAX_DIM], Ilo[SR_MAX_DIM], Ihi[SR_MAX_DIM], Olo[SR_MAX_DIM], Ohi[SR_MAX_DIM];
  PetscInt       ci, co;

  PetscFunctionBeginUser;
  *decided = PETSC_FALSE;
  for (PetscInt q = 0; q < nq; q++)
    for (PetscInt d = 0; d < n; d++) X[q * n + d] = (q >> d) & 1 ? ihi[d] : ilo[d];
  if (!SRCellModelImages(cm, n, nq, X, Ylo, Yhi)) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < n; i++) {
    Olo[i] = Ilo[i] = INFINITY;
    Ohi[i] = Ihi[i] = -INFINITY;
    for (PetscInt q = 0; q < nq; q++) {
      if (!isfinite(Ylo[q * n + i])) PetscFunctionReturn(PETSC_SUCCESS);
      Olo[i] = PetscMin(Olo[i], Ylo[q * n + i]);
      Ilo[i] = PetscMin(Ilo[i], Yhi[q * n + i]);
      Ihi[i] = PetscMax(Ihi[i], Ylo[q * n + i]);
      Ohi[i] = PetscMax(Ohi[i], Yhi[q * n + i]);
    }
    if (!(Ilo[i] <= Ihi[i])) PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SRSuccessorsCertifiedCount(cells, index, Ilo, Ihi, &ci));
  PetscCall(SRSuccessorsCertifiedCount(cells, index, Olo, Ohi, &co));
  *decided = (PetscBool)(ci == co);
  *cnt     = ci;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The floor counts of cells [k0, k0 + nb) of a block whose tightest enclosures are E (ok[c]: finite)
   and whose Taylor models are cm: first what each model decides (src/abstraction/cellmodel.c), then
   the coarse sample of the cells left, cpf cells per evaluation, then the full lattice of the cells
   the sandwich leaves open.  Counts identical to the full lattice's. */
static PetscErrorCode SRMetricsFloorBlock_Private(SRModel model, SRCells cells, SRCellIndex index, PetscInt k0, PetscInt nb, PetscInt floor_points, PetscInt np, PetscInt cpf, const double *E, const PetscBool *ok, const SRCellModel *cm, double *X, double *Y, PetscInt *cnt)
{
  const PetscInt n = cells->n;
  PetscInt       ns = 1, rest[SR_METRICS_BLOCK], nrest = 0, open[SR_METRICS_BLOCK], nopen = 0;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < n; d++) ns *= 3;
  for (PetscInt c = 0; c < nb; c++) {
    PetscBool decided = PETSC_FALSE;
    if (cm[c].ok) {
      double ilo[SR_MAX_DIM], ihi[SR_MAX_DIM];
      SRCellsBoxInner(cells, k0 + c, ilo, ihi);
      PetscCall(SRCellModelFloorCount(cells, index, &cm[c], ilo, ihi, &decided, &cnt[c]));
    }
    if (!decided) rest[nrest++] = c;
  }
  for (PetscInt r0 = 0; r0 < nrest; r0 += cpf) { /* coarse sample, cpf cells per evaluation (ns < np) */
    const PetscInt mr = PetscMin(cpf, nrest - r0), mc = floor_points >= 4 ? mr : 0;
    for (PetscInt q = 0; q < mc; q++) SRMetricsFloorCoarse_Private(cells, k0 + rest[r0 + q], floor_points, ns, X + ns * n * q);
    if (mc > 0) PetscCall(SRModelEvaluate(model, ns * mc, X, Y));
    for (PetscInt q = 0; q < mr; q++) {
      const PetscInt c       = rest[r0 + q];
      PetscBool      decided = PETSC_FALSE;
      if (mc > 0 && ok[c]) PetscCall(SRMetricsFloorSandwich_Private(cells, index, ns, Y + ns * n * q, E + 2 * n * c, &decided, &cnt[c]));
      if (!decided) open[nopen++] = c;
    }
  }
  for (PetscInt o0 = 0; o0 < nopen; o0 += cpf) { /* the full lattice where still open */
    const PetscInt mc = PetscMin(cpf, nopen - o0);
    for (PetscInt c = 0; c < mc; c++) SRMetricsFloorPoints_Private(cells, k0 + open[o0 + c], floor_points, np, X + np * n * c);
    PetscCall(SRModelEvaluate(model, np * mc, X, Y));
    for (PetscInt c = 0; c < mc; c++) {
      double ylo[SR_MAX_DIM], yhi[SR_MAX_DIM];
      PetscCall(SRMetricsHullCount_Private(cells, index, np, Y + np * n * c, ylo, yhi, &cnt[open[o0 + c]]));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct _p_SRTightAcc {
  MPI_Comm       comm;
  SRModel        model;
  SRCells        cells;
  PetscInt       ks, ke, next; /* the rank's cells; the first not yet measured */
  PetscInt       s, nsub, np, cps, cpf, floor_points, nonfinite;
  SRCellIndex    index;
  double        *E, *Es, *subb, *X, *Y, *vloc, *E_tight;
  SRCellStatus  *st, *sst;
  SRCellModel   *cm;
  PetscLogDouble time;
};

PetscErrorCode SRTightAccCreate(MPI_Comm comm, SRAbstraction abs, SRModel model, SRCells cells, PetscInt bisect, PetscInt floor_points, double *E_tight, SRTightAcc *acc)
{
  const PetscInt n = cells->n;
  SRTightAcc     a;

  PetscFunctionBeginUser;
  PetscCheck(bisect >= 0 && bisect <= 6, comm, PETSC_ERR_ARG_OUTOFRANGE, "-tight_bisect %" PetscInt_FMT ": allowed is 0..6", bisect);
  PetscCheck(floor_points >= 2 && floor_points <= 64, comm, PETSC_ERR_ARG_OUTOFRANGE, "-floor_points %" PetscInt_FMT ": allowed is 2..64", floor_points);
  PetscCall(PetscNew(&a));
  a->comm         = comm;
  a->model        = model;
  a->cells        = cells;
  a->floor_points = floor_points;
  a->E_tight      = E_tight;
  PetscCall(SRAbstractionGetOwnership(abs, cells->K, &a->ks, &a->ke));
  a->next = a->ks;
  a->s = a->np = a->nsub = 1;
  for (PetscInt b = 0; b < bisect; b++) a->s *= 2;
  for (PetscInt d = 0; d < n; d++) {
    a->np *= floor_points;
    a->nsub *= a->s;
  }
  a->cps = PetscMax(1, PetscMin(SR_METRICS_BLOCK, SR_METRICS_POINTS / a->nsub)); /* cells per sub-box batch */
  a->cpf = PetscMax(1, PetscMin(SR_METRICS_BLOCK, SR_METRICS_POINTS / a->np));   /* cells per floor batch */
  PetscCall(PetscMalloc3(2 * n * SR_METRICS_BLOCK, &a->E, SR_METRICS_BLOCK, &a->st, SR_METRICS_BLOCK, &a->cm));
  if (a->s > 1) PetscCall(PetscMalloc3(2 * n * a->nsub * a->cps, &a->subb, 2 * n * a->nsub * a->cps, &a->Es, a->nsub * a->cps, &a->sst));
  PetscCall(PetscMalloc2(a->np * n * a->cpf, &a->X, a->np * n * a->cpf, &a->Y));
  PetscCall(PetscMalloc1(4 * PetscMax(a->ke - a->ks, 1), &a->vloc));
  if (!cells->grid_aligned && !cells->partition) PetscCall(SRCellIndexCreate(cells, &a->index)); /* the counts of free cells only */
  *acc = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Cells [k0, k0 + nb) whose enclosure both (E, st) and Taylor models cm are given: the tightest
   enclosure (intersected with the sub-boxes' hull), its count and volume, the floor. */
static PetscErrorCode SRTightAccMeasure_Private(SRTightAcc a, PetscInt k0, PetscInt nb, double *E, const SRCellStatus *st, const SRCellModel *cm)
{
  const SRCells  cells = a->cells;
  const PetscInt n = cells->n, K = cells->K, s = a->s, nsub = a->nsub, ks = a->ks;
  PetscBool      ok[SR_METRICS_BLOCK];
  PetscInt       fcnt[SR_METRICS_BLOCK];

  PetscFunctionBeginUser;
  for (PetscInt c = 0; c < nb; c++) ok[c] = (PetscBool)(st[c] == SR_CELL_OK);
  for (PetscInt c0 = 0; s > 1 && c0 < nb; c0 += a->cps) {
    const PetscInt mc = PetscMin(a->cps, nb - c0);
    PetscInt       nbox = 0, cell[SR_METRICS_BLOCK];
    for (PetscInt c = c0; c < c0 + mc; c++) {
      double lo[SR_MAX_DIM], hi[SR_MAX_DIM];
      if (!ok[c]) continue;
      SRCellsBoxOuter(cells, k0 + c, lo, hi);
      SRMetricsSubBoxes_Private(n, s, nsub, lo, hi, a->subb + 2 * n * nsub * nbox);
      cell[nbox++] = c;
    }
    if (nbox > 0) PetscCall(SREnclosureComputeBoxes(a->model, SR_ENCLOSURE_BOTH, nbox * nsub, a->subb, a->Es, a->sst));
    for (PetscInt q = 0; q < nbox; q++) {
      const PetscInt c = cell[q];
      double         Eh[2 * SR_MAX_DIM];
      PetscBool      subok = PETSC_TRUE;
      for (PetscInt d = 0; d < n; d++) {
        Eh[d]     = INFINITY;
        Eh[n + d] = -INFINITY;
      }
      for (PetscInt j = q * nsub; j < (q + 1) * nsub; j++) {
        if (a->sst[j] != SR_CELL_OK) subok = PETSC_FALSE;
        for (PetscInt d = 0; d < n; d++) {
          Eh[d]     = PetscMin(Eh[d], a->Es[2 * n * j + d]);
          Eh[n + d] = PetscMax(Eh[n + d], a->Es[2 * n * j + n + d]);
        }
      }
      ok[c] = subok;
      if (subok) /* both boxes contain f(Psi_k): so does their intersection */
        for (PetscInt d = 0; d < n; d++) {
          E[2 * n * c + d]     = PetscMax(E[2 * n * c + d], Eh[d]);
          E[2 * n * c + n + d] = PetscMin(E[2 * n * c + n + d], Eh[n + d]);
        }
    }
  }
  for (PetscInt c = 0; c < nb; c++) {
    const PetscInt k  = k0 + c;
    const double  *Ec = E + 2 * n * c;
    double         vol = 1.0, wk = 1.0;
    PetscInt       cnt;

    for (PetscInt d = 0; d < n; d++) wk *= 2.0 * cells->w[k * n + d];
    a->vloc[4 * (k - ks) + 0] = wk;
    if (a->E_tight)
      for (PetscInt d = 0; d < n; d++) {
        a->E_tight[2 * n * (k - ks) + d]     = ok[c] ? Ec[d] : -INFINITY;
        a->E_tight[2 * n * (k - ks) + n + d] = ok[c] ? Ec[n + d] : INFINITY;
      }
    if (ok[c]) {
      PetscCall(SRSuccessorsCertifiedCount(cells, a->index, Ec, Ec + n, &cnt));
      for (PetscInt d = 0; d < n; d++) vol *= Ec[n + d] - Ec[d];
      a->vloc[4 * (k - ks) + 1] = (double)cnt;
      a->vloc[4 * (k - ks) + 2] = vol;
    } else {
      a->nonfinite++;
      a->vloc[4 * (k - ks) + 1] = (double)(K + 1);
      a->vloc[4 * (k - ks) + 2] = INFINITY;
    }
  }
  /* the floor: the hull of f over each cell's lattice, decided by the model or a coarse sample where they can */
  PetscCall(SRMetricsFloorBlock_Private(a->model, cells, a->index, k0, nb, a->floor_points, a->np, a->cpf, E, ok, cm, a->X, a->Y, fcnt));
  for (PetscInt c = 0; c < nb; c++) a->vloc[4 * (k0 + c - ks) + 3] = (double)fcnt[c];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rank's cells [a->next, kend) not handed in: enclosed here, SR_METRICS_BLOCK at a time. */
static PetscErrorCode SRTightAccFill_Private(SRTightAcc a, PetscInt kend)
{
  PetscFunctionBeginUser;
  while (a->next < kend) {
    const PetscInt k0 = a->next, nb = PetscMin((PetscInt)SR_METRICS_BLOCK, kend - k0);
    PetscCall(SREnclosureComputeModels(a->model, SR_ENCLOSURE_BOTH, a->cells, k0, k0 + nb, a->E, a->st, a->cm));
    PetscCall(SRTightAccMeasure_Private(a, k0, nb, a->E, a->st, a->cm));
    a->next = k0 + nb;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTightAccBlock(void *ctx, PetscInt k0, PetscInt nb, double *E, const SRCellStatus *st, const SRCellModel *cm)
{
  SRTightAcc     a = (SRTightAcc)ctx;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCheck(k0 >= a->next && k0 + nb <= a->ke && nb <= SR_METRICS_BLOCK, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "tight metrics: cells [%" PetscInt_FMT ", %" PetscInt_FMT ") handed in after cell %" PetscInt_FMT " or beyond the rank's %" PetscInt_FMT, k0, k0 + nb, a->next, a->ke);
  PetscCall(PetscTime(&t0));
  PetscCall(SRTightAccFill_Private(a, k0)); /* a gap first */
  PetscCall(SRTightAccMeasure_Private(a, k0, nb, E, st, cm));
  a->next = k0 + nb;
  PetscCall(PetscTime(&t1));
  a->time += t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTightAccGetHandInTime(SRTightAcc acc, PetscLogDouble *time)
{
  PetscFunctionBeginUser;
  *time = acc->time;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTightAccFinish(SRTightAcc *acc, SRTightMetrics *m, PetscLogDouble *time)
{
  SRTightAcc     a = *acc;
  const PetscInt K = a->cells->K, ks = a->ks, ke = a->ke;
  double        *vall;
  PetscMPIInt    size, rank, *rc, *dp;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscTime(&t0));
  PetscCall(SRTightAccFill_Private(a, ke));
  PetscCallMPI(MPI_Comm_size(a->comm, &size));
  PetscCallMPI(MPI_Comm_rank(a->comm, &rank));
  /* gathered in cell order and summed serially: independent of the rank count */
  PetscCall(PetscMalloc3(size, &rc, size, &dp, 4 * K, &vall));
  {
    PetscMPIInt mine, off;
    PetscCall(PetscMPIIntCast(4 * (ke - ks), &mine));
    PetscCall(PetscMPIIntCast(4 * ks, &off));
    PetscCallMPI(MPI_Allgather(&mine, 1, MPI_INT, rc, 1, MPI_INT, a->comm));
    PetscCallMPI(MPI_Allgather(&off, 1, MPI_INT, dp, 1, MPI_INT, a->comm));
  }
  PetscCallMPI(MPI_Allgatherv(a->vloc, rc[rank], MPI_DOUBLE, vall, rc, dp, MPI_DOUBLE, a->comm));
  {
    double sw = 0, st_ = 0, sv = 0, sf = 0;
    for (PetscInt k = 0; k < K; k++) {
      sw += vall[4 * k];
      st_ += vall[4 * k] * vall[4 * k + 1];
      sv += vall[4 * k] * vall[4 * k + 2];
      sf += vall[4 * k] * vall[4 * k + 3];
    }
    m->succ_tight  = st_ / sw;
    m->vol_E_tight = sv / sw;
    m->succ_floor  = sf / sw;
  }
  PetscCallMPI(MPI_Allreduce(&a->nonfinite, &m->nonfinite, 1, MPIU_INT, MPI_SUM, a->comm));
  PetscCall(PetscFree3(rc, dp, vall));
  PetscCall(SRCellIndexDestroy(&a->index));
  PetscCall(PetscFree(a->vloc));
  PetscCall(PetscFree2(a->X, a->Y));
  PetscCall(PetscFree3(a->E, a->st, a->cm));
  if (a->s > 1) PetscCall(PetscFree3(a->subb, a->Es, a->sst));
  PetscCall(PetscTime(&t1));
  if (time) *time = a->time + (t1 - t0);
  PetscCall(PetscFree(*acc));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Per cell of the block the enclosures go through the batched kernels: the whole cells in one
   call, the sub-boxes of as many cells as fit SR_METRICS_POINTS in one call, the floor's points
   likewise (the cell's Taylor model first, then the coarse sample, the full lattice only where
   they leave the count open).  Every kernel computes each box and point on its own (lanes of the
   same operations in the same order), so the figures are bit-identical to one cell at a time,
   and the counts need no list (SRSuccessorsCertifiedCount). */
PetscErrorCode SRMetricsTight(MPI_Comm comm, SRAbstraction abs, SRModel model, SRCells cells, PetscInt bisect, PetscInt floor_points, SRTightMetrics *m, double *E_tight)
{
  SRTightAcc acc;

  PetscFunctionBeginUser;
  PetscCall(SRTightAccCreate(comm, abs, model, cells, bisect, floor_points, E_tight, &acc));
  PetscCall(SRTightAccFinish(&acc, m, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
