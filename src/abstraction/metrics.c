/* |M_tight|, vol(E_tight) and the floor |F| of SPEC §5, §6, per checkpoint.

   A reviewer's question is whether a treatment lowered what soundness costs: the successor
   count the tightest available sound enclosure needs (not the run's own, cheaper enclosure,
   nor the certified lists that -succ_margin pins), and how far that still is from the floor
   that only a different network or different cells could lower. */
#include <simreach/metrics.h>
#include <simreach/verify.h>

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
      X[p * n + d] = i == floor_points - 1 ? ihi[d] : ilo[d] + (double)i * ((ihi[d] - ilo[d]) / (double)(floor_points - 1));
    }
  }
}

/* Per cell of the block the enclosures go through the batched kernels: the whole cells in one
   call, the sub-boxes of as many cells as fit SR_METRICS_POINTS in one call, the floor's points
   likewise in one SRModelEvaluate.  Every kernel computes each box and point on its own (lanes
   of the same operations in the same order), so the figures are bit-identical to one cell at
   a time, and the counts need no list (SRSuccessorsCertifiedCount). */
PetscErrorCode SRMetricsTight(MPI_Comm comm, SRAbstraction abs, SRModel model, SRCells cells, PetscInt bisect, PetscInt floor_points, SRTightMetrics *m, double *E_tight)
{
  const PetscInt n = cells->n, K = cells->K;
  PetscInt       ks, ke, s = 1, np = 1, nsub = 1, nonfinite = 0, cps, cpf;
  SRCellIndex    index = NULL;
  double        *E, *Es = NULL, *subb = NULL, *X, *Y, *vloc, *vall;
  SRCellStatus  *st, *sst = NULL;
  PetscMPIInt    size, rank, *rc, *dp;

  PetscFunctionBeginUser;
  PetscCheck(bisect >= 0 && bisect <= 6, comm, PETSC_ERR_ARG_OUTOFRANGE, "-tight_bisect %" PetscInt_FMT ": allowed is 0..6", bisect);
  PetscCheck(floor_points >= 2 && floor_points <= 64, comm, PETSC_ERR_ARG_OUTOFRANGE, "-floor_points %" PetscInt_FMT ": allowed is 2..64", floor_points);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(SRAbstractionGetOwnership(abs, K, &ks, &ke));
  for (PetscInt b = 0; b < bisect; b++) s *= 2;
  for (PetscInt d = 0; d < n; d++) {
    np *= floor_points;
    nsub *= s;
  }
  cps = PetscMax(1, PetscMin(SR_METRICS_BLOCK, SR_METRICS_POINTS / nsub)); /* cells per sub-box batch */
  cpf = PetscMax(1, PetscMin(SR_METRICS_BLOCK, SR_METRICS_POINTS / np));   /* cells per floor batch */
  PetscCall(PetscMalloc2(2 * n * SR_METRICS_BLOCK, &E, SR_METRICS_BLOCK, &st));
  if (s > 1) PetscCall(PetscMalloc3(2 * n * nsub * cps, &subb, 2 * n * nsub * cps, &Es, nsub * cps, &sst));
  PetscCall(PetscMalloc2(np * n * cpf, &X, np * n * cpf, &Y));
  PetscCall(PetscMalloc2(4 * PetscMax(ke - ks, 1), &vloc, 4 * K, &vall));
  if (!cells->grid_aligned) PetscCall(SRCellIndexCreate(cells, &index));
  for (PetscInt k0 = ks; k0 < ke; k0 += SR_METRICS_BLOCK) {
    const PetscInt nb = PetscMin((PetscInt)SR_METRICS_BLOCK, ke - k0);
    PetscBool      ok[SR_METRICS_BLOCK];

    /* the tightest enclosure: both over the whole cell, intersected with the sub-boxes' hull */
    PetscCall(SREnclosureCompute(model, SR_ENCLOSURE_BOTH, cells, k0, k0 + nb, E, st));
    for (PetscInt c = 0; c < nb; c++) ok[c] = (PetscBool)(st[c] == SR_CELL_OK);
    for (PetscInt c0 = 0; s > 1 && c0 < nb; c0 += cps) {
      const PetscInt mc = PetscMin(cps, nb - c0);
      PetscInt       nbox = 0, cell[SR_METRICS_BLOCK];
      for (PetscInt c = c0; c < c0 + mc; c++) {
        double lo[SR_MAX_DIM], hi[SR_MAX_DIM];
        if (!ok[c]) continue;
        SRCellsBoxOuter(cells, k0 + c, lo, hi);
        SRMetricsSubBoxes_Private(n, s, nsub, lo, hi, subb + 2 * n * nsub * nbox);
        cell[nbox++] = c;
      }
      if (nbox > 0) PetscCall(SREnclosureComputeBoxes(model, SR_ENCLOSURE_BOTH, nbox * nsub, subb, Es, sst));
      for (PetscInt q = 0; q < nbox; q++) {
        const PetscInt c = cell[q];
        double         Eh[2 * SR_MAX_DIM];
        PetscBool      subok = PETSC_TRUE;
        for (PetscInt d = 0; d < n; d++) {
          Eh[d]     = INFINITY;
          Eh[n + d] = -INFINITY;
        }
        for (PetscInt j = q * nsub; j < (q + 1) * nsub; j++) {
          if (sst[j] != SR_CELL_OK) subok = PETSC_FALSE;
          for (PetscInt d = 0; d < n; d++) {
            Eh[d]     = PetscMin(Eh[d], Es[2 * n * j + d]);
            Eh[n + d] = PetscMax(Eh[n + d], Es[2 * n * j + n + d]);
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
      const PetscInt k = k0 + c;
      const double  *Ec = E + 2 * n * c;
      double         vol = 1.0, wk = 1.0;
      PetscInt       cnt;

      for (PetscInt d = 0; d < n; d++) wk *= 2.0 * cells->w[k * n + d];
      vloc[4 * (k - ks) + 0] = wk;
      if (E_tight)
        for (PetscInt d = 0; d < n; d++) {
          E_tight[2 * n * (k - ks) + d]     = ok[c] ? Ec[d] : -INFINITY;
          E_tight[2 * n * (k - ks) + n + d] = ok[c] ? Ec[n + d] : INFINITY;
        }
      if (ok[c]) {
        PetscCall(SRSuccessorsCertifiedCount(cells, index, Ec, Ec + n, &cnt));
        for (PetscInt d = 0; d < n; d++) vol *= Ec[n + d] - Ec[d];
        vloc[4 * (k - ks) + 1] = (double)cnt;
        vloc[4 * (k - ks) + 2] = vol;
      } else {
        nonfinite++;
        vloc[4 * (k - ks) + 1] = (double)(K + 1);
        vloc[4 * (k - ks) + 2] = INFINITY;
      }
    }
    /* the floor: the hull of f over each cell's sample, cpf cells per evaluation */
    for (PetscInt c0 = 0; c0 < nb; c0 += cpf) {
      const PetscInt mc = PetscMin(cpf, nb - c0);
      for (PetscInt c = 0; c < mc; c++) SRMetricsFloorPoints_Private(cells, k0 + c0 + c, floor_points, np, X + np * n * c);
      PetscCall(SRModelEvaluate(model, np * mc, X, Y));
      for (PetscInt c = 0; c < mc; c++) {
        const double *Yc = Y + np * n * c;
        double        ylo[SR_MAX_DIM], yhi[SR_MAX_DIM];
        PetscBool     fin = PETSC_TRUE;
        PetscInt      cnt;
        for (PetscInt d = 0; d < n; d++) {
          ylo[d] = INFINITY;
          yhi[d] = -INFINITY;
        }
        for (PetscInt p = 0; p < np; p++)
          for (PetscInt d = 0; d < n; d++) {
            ylo[d] = PetscMin(ylo[d], Yc[p * n + d]);
            yhi[d] = PetscMax(yhi[d], Yc[p * n + d]);
          }
        for (PetscInt d = 0; d < n; d++) fin = (PetscBool)(fin && isfinite(ylo[d]) && isfinite(yhi[d]));
        if (fin) PetscCall(SRSuccessorsCertifiedCount(cells, index, ylo, yhi, &cnt));
        else cnt = K + 1;
        vloc[4 * (k0 + c0 + c - ks) + 3] = (double)cnt;
      }
    }
  }
  PetscCall(SRCellIndexDestroy(&index));
  /* gathered in cell order and summed serially: independent of the rank count */
  PetscCall(PetscMalloc2(size, &rc, size, &dp));
  {
    PetscMPIInt mine, off;
    PetscCall(PetscMPIIntCast(4 * (ke - ks), &mine));
    PetscCall(PetscMPIIntCast(4 * ks, &off));
    PetscCallMPI(MPI_Allgather(&mine, 1, MPI_INT, rc, 1, MPI_INT, comm));
    PetscCallMPI(MPI_Allgather(&off, 1, MPI_INT, dp, 1, MPI_INT, comm));
  }
  PetscCallMPI(MPI_Allgatherv(vloc, rc[rank], MPI_DOUBLE, vall, rc, dp, MPI_DOUBLE, comm));
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
  PetscCallMPI(MPI_Allreduce(&nonfinite, &m->nonfinite, 1, MPIU_INT, MPI_SUM, comm));
  PetscCall(PetscFree2(rc, dp));
  PetscCall(PetscFree2(vloc, vall));
  PetscCall(PetscFree2(X, Y));
  PetscCall(PetscFree2(E, st));
  if (s > 1) PetscCall(PetscFree3(subb, Es, sst));
  PetscFunctionReturn(PETSC_SUCCESS);
}
