/* |M_tight|, vol(E_tight) and the floor |F| of SPEC §5, §6, per checkpoint.

   A reviewer's question is whether a treatment lowered what soundness costs: the successor
   count the tightest available sound enclosure needs (not the run's own, cheaper enclosure,
   nor the certified lists that -succ_margin pins), and how far that still is from the floor
   that only a different network or different cells could lower. */
#include <simreach/metrics.h>

/* Sound `both` box of f over [lo, hi] split into s^n sub-boxes, hulled; scratch cells sub (s^n
   free boxes).  E: 2n.  Returns PETSC_FALSE in *ok when a sub-box enclosure is not finite. */
static PetscErrorCode SRMetricsHullSub_Private(SRModel model, SRCells sub, PetscInt s, const double *lo, const double *hi, double *E, double *Es, SRCellStatus *st, PetscBool *ok)
{
  const PetscInt n = model->n;

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < sub->K; j++) {
    PetscInt q = j;
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt i = q % s;
      /* edges a_i = lo + i (hi - lo) / s with a_0 = lo, a_s = hi exactly: neighbours share the
         same double, so the sub-boxes cover [lo, hi]; c +- w (directed) contains [a, b] */
      const double a = i == 0 ? lo[d] : lo[d] + (double)i * ((hi[d] - lo[d]) / (double)s);
      const double b = i == s - 1 ? hi[d] : lo[d] + (double)(i + 1) * ((hi[d] - lo[d]) / (double)s);
      const double c = 0.5 * a + 0.5 * b;
      q /= s;
      sub->c[j * n + d] = c;
      sub->w[j * n + d] = PetscMax(SRSubUp(b, c), SRSubUp(c, a));
    }
  }
  PetscCall(SREnclosureCompute(model, SR_ENCLOSURE_BOTH, sub, 0, sub->K, Es, st));
  *ok = PETSC_TRUE;
  for (PetscInt d = 0; d < n; d++) {
    E[d]     = INFINITY;
    E[n + d] = -INFINITY;
  }
  for (PetscInt j = 0; j < sub->K; j++) {
    if (st[j] != SR_CELL_OK) *ok = PETSC_FALSE;
    for (PetscInt d = 0; d < n; d++) {
      E[d]     = PetscMin(E[d], Es[2 * n * j + d]);
      E[n + d] = PetscMax(E[n + d], Es[2 * n * j + n + d]);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRMetricsTight(MPI_Comm comm, SRAbstraction abs, SRModel model, SRCells cells, PetscInt bisect, PetscInt floor_points, SRTightMetrics *m, double *E_tight)
{
  const PetscInt n = cells->n, K = cells->K;
  PetscInt       ks, ke, s = 1, np = 1, nonfinite = 0;
  SRCells        sub = NULL;
  SRCellIndex    index = NULL;
  double        *Es = NULL, *X, *Y, *vloc, *vall;
  SRCellStatus  *st;
  PetscMPIInt    size, rank, *rc, *dp;

  PetscFunctionBeginUser;
  PetscCheck(bisect >= 0 && bisect <= 6, comm, PETSC_ERR_ARG_OUTOFRANGE, "-tight_bisect %" PetscInt_FMT ": allowed is 0..6", bisect);
  PetscCheck(floor_points >= 2 && floor_points <= 64, comm, PETSC_ERR_ARG_OUTOFRANGE, "-floor_points %" PetscInt_FMT ": allowed is 2..64", floor_points);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(SRAbstractionGetOwnership(abs, K, &ks, &ke));
  for (PetscInt b = 0; b < bisect; b++) s *= 2;
  for (PetscInt d = 0; d < n; d++) np *= floor_points;
  if (s > 1) {
    PetscInt counts[SR_MAX_DIM];
    for (PetscInt d = 0; d < n; d++) counts[d] = s;
    PetscCall(SRCellsCreateGrid(model->sys, counts, &sub));
    PetscCall(SRCellsSetFree(sub));
    PetscCall(PetscMalloc1(2 * n * sub->K, &Es));
  }
  PetscCall(PetscMalloc3(np * n, &X, np * n, &Y, PetscMax(s > 1 ? sub->K : 1, 1), &st));
  PetscCall(PetscMalloc2(4 * PetscMax(ke - ks, 1), &vloc, 4 * K, &vall));
  if (!cells->grid_aligned) PetscCall(SRCellIndexCreate(cells, &index));
  for (PetscInt k = ks; k < ke; k++) {
    double       lo[SR_MAX_DIM], hi[SR_MAX_DIM], ilo[SR_MAX_DIM], ihi[SR_MAX_DIM], E[2 * SR_MAX_DIM], Eh[2 * SR_MAX_DIM], ylo[SR_MAX_DIM], yhi[SR_MAX_DIM], vol = 1.0, wk = 1.0;
    SRCellStatus s0;
    PetscBool    ok = PETSC_TRUE;
    PetscInt     cnt;

    SRCellsBoxOuter(cells, k, lo, hi);
    SRCellsBoxInner(cells, k, ilo, ihi);
    for (PetscInt d = 0; d < n; d++) wk *= 2.0 * cells->w[k * n + d];
    PetscCall(SREnclosureCompute(model, SR_ENCLOSURE_BOTH, cells, k, k + 1, E, &s0));
    ok = (PetscBool)(s0 == SR_CELL_OK);
    if (ok && sub) {
      PetscCall(SRMetricsHullSub_Private(model, sub, s, lo, hi, Eh, Es, st, &ok));
      if (ok) /* both boxes contain f(Psi_k): so does their intersection */
        for (PetscInt d = 0; d < n; d++) {
          E[d]     = PetscMax(E[d], Eh[d]);
          E[n + d] = PetscMin(E[n + d], Eh[n + d]);
        }
    }
    vloc[4 * (k - ks) + 0] = wk;
    if (E_tight)
      for (PetscInt d = 0; d < n; d++) {
        E_tight[2 * n * (k - ks) + d]     = ok ? E[d] : -INFINITY;
        E_tight[2 * n * (k - ks) + n + d] = ok ? E[n + d] : INFINITY;
      }
    if (ok) {
      PetscCall(SRSuccessorsCertified(cells, index, E, E + n, 0, NULL, &cnt));
      for (PetscInt d = 0; d < n; d++) vol *= E[n + d] - E[d];
      vloc[4 * (k - ks) + 1] = (double)cnt;
      vloc[4 * (k - ks) + 2] = vol;
    } else {
      nonfinite++;
      vloc[4 * (k - ks) + 1] = (double)(K + 1);
      vloc[4 * (k - ks) + 2] = INFINITY;
    }
    /* the floor: a grid of floor_points^n points of the cell, corners included */
    for (PetscInt p = 0; p < np; p++) {
      PetscInt q = p;
      for (PetscInt d = 0; d < n; d++) {
        const PetscInt i = q % floor_points;
        q /= floor_points;
        X[p * n + d] = i == floor_points - 1 ? ihi[d] : ilo[d] + (double)i * ((ihi[d] - ilo[d]) / (double)(floor_points - 1));
      }
    }
    PetscCall(SRModelEvaluate(model, np, X, Y));
    for (PetscInt d = 0; d < n; d++) {
      ylo[d] = INFINITY;
      yhi[d] = -INFINITY;
    }
    for (PetscInt p = 0; p < np; p++)
      for (PetscInt d = 0; d < n; d++) {
        ylo[d] = PetscMin(ylo[d], Y[p * n + d]);
        yhi[d] = PetscMax(yhi[d], Y[p * n + d]);
      }
    ok = PETSC_TRUE;
    for (PetscInt d = 0; d < n; d++) ok = (PetscBool)(ok && isfinite(ylo[d]) && isfinite(yhi[d]));
    if (ok) PetscCall(SRSuccessorsCertified(cells, index, ylo, yhi, 0, NULL, &cnt));
    else cnt = K + 1;
    vloc[4 * (k - ks) + 3] = (double)cnt;
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
  PetscCall(PetscFree3(X, Y, st));
  PetscCall(PetscFree(Es));
  PetscCall(SRCellsDestroy(&sub));
  PetscFunctionReturn(PETSC_SUCCESS);
}
