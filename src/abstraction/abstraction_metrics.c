/* SPEC §6 metrics of an abstraction (SRAbstractionGetMetrics), and the abstraction built,
   checked and measured from one enclosure per cell (SRAbstractionBuildAndMeasure, what
   `simreach abstract` runs): the same figures as SRAbstractionBuild, SRAbstractionCheck and
   SRAbstractionGetMetrics in turn, since those three enclose every cell with the same enclosure
   and the metrics' empirical count samples the very points the build's empirical target
   sampled, against the very list the build made. */
#include <simreach/private/abstraction_ops.h>
#include <simreach/private/abstraction_store.h>
#include <simreach/private/target_models.h>
#include <petsctime.h>

/* Collective.  SPEC §6 metrics of (model, cells) against the stored C(k).  Per cell:
   minimal = cells meeting E_k (+ sink if E_k leaves D), K + 1 for a nonfinite E_k (the whole
   space); empirical = distinct entries of C(k) hit by the target samples; vol(E_k) rounded up
   (+inf if nonfinite); vol of the union of the outward boxes of C(k).  failures counts the
   cells whose containment test fails, nonfinite ones included. */
static PetscErrorCode SRAbstractionMeasure_Private(SRAbstraction abs, SRModel model, SRCells cells, PetscInt ks, PetscInt ke, const double *E, const SRCellStatus *st, const PetscInt *distinct_build, PetscInt *lfail, PetscInt *lfirst, SRAbstractionMetrics *m)
{
  const PetscInt n = cells->n, K = cells->K;
  const PetscInt nloc = ke - ks;
  double        *vloc, *vall;
  SRCellIndex    index = NULL;
  SRIntBuf       scratch = {0, 0, NULL}, buf = {0, 0, NULL};
  SRTargetModels tm;
  PetscInt64     lsum[4] = {0, 0, 0, 0}, gsum[4]; /* minimal, empirical, failures, nonfinite */
  PetscMPIInt   *rc, *dp;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  *lfirst = PETSC_MAX_INT;
  PetscCall(PetscMalloc2(2 * PetscMax(nloc, 1), &vloc, 2 * K, &vall));
  PetscCall(PetscLogEventBegin(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  if (!cells->grid_aligned && !cells->partition) PetscCall(SRCellIndexCreate(cells, &index));
  {
    SRTargetParams tpc = abs->tp;
    tpc.type           = SR_TARGET_CERTIFIED;
    PetscCall(SRTargetModelsCreate(model, cells, &tpc, (PetscBool)!distinct_build, &abs->tm_stats, &tm));
  }
  for (PetscInt k = ks; k < ke; k++) {
    const double   *elo = E + 2 * n * (k - ks), *ehi = elo + n;
    PetscInt        nC        = 0, distinct;
    const PetscInt *Ck        = NULL;
    SRTargetParams  tp        = abs->tp;
    const PetscBool rowvolume = (PetscBool)(!abs->explicit_C && (cells->grid_aligned || cells->partition));

    if (!distinct_build || !rowvolume) PetscCall(SRAbstractionCellList_Private(abs, k, &buf, &nC, &Ck)); /* read below only then */
    if (st[k - ks] == SR_CELL_NONFINITE) {
      lsum[0] += K + 1;
      lsum[3]++;
      vloc[2 * (k - ks)] = PETSC_INFINITY;
    } else {
      double   v = 1.0;
      PetscInt cnt;
      PetscCall(SRSuccessorsCertifiedCount(cells, index, elo, ehi, &cnt)); /* the list's length, unlisted */
      lsum[0] += cnt;
      for (PetscInt d = 0; d < n; d++) v = SRMulUp(v, SRSubUp(ehi[d], elo[d]));
      vloc[2 * (k - ks)] = v;
    }
    tp.type   = SR_TARGET_CERTIFIED;
    scratch.n = 0;
    if (distinct_build) distinct = distinct_build[k - ks]; /* the build's samples hit this same list */
    else {
      const SRCellModel *cm;
      PetscCall(SRTargetModelsGet(tm, k, ke, &cm));
      PetscCall(SRSuccessorsTargetAppend_Private(model, cells, &tp, k, nC, Ck, PETSC_TRUE, cm, &scratch, &distinct, NULL));
    }
    lsum[1] += distinct;
    if (rowvolume)
      PetscCall(SRSuccessorsUnionVolumeBox_Private(cells, abs->Cbox + abs->rl * k, &vloc[2 * (k - ks) + 1]));
    else PetscCall(SRSuccessorsUnionVolume_Private(cells, nC, Ck, &vloc[2 * (k - ks) + 1]));
  }
  PetscCall(SRCellIndexDestroy(&index));
  PetscCall(SRTargetModelsDestroy(&tm));
  PetscCall(PetscTime(&t1));
  abs->t_succ += t1 - t0;
  abs->t_meas += t1 - t0;
  PetscCall(PetscLogEventEnd(abs->ev_succ, 0, 0, 0, 0));

  PetscCall(PetscLogEventBegin(abs->ev_cont, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  for (PetscInt k = ks; k < ke; k++) {
    SRCellStatus s = st[k - ks];
    PetscCall(SRAbstractionCellContained_Private(abs, cells, k, E + 2 * n * (k - ks), E + 2 * n * (k - ks) + n, &buf, &s));
    if (s != SR_CELL_OK) {
      lsum[2]++;
      if (*lfirst == PETSC_MAX_INT) *lfirst = k;
    }
  }
  PetscCall(PetscTime(&t1));
  abs->t_cont += t1 - t0;
  PetscCall(PetscLogEventEnd(abs->ev_cont, 0, 0, 0, 0));

  /* Exact reductions: 64-bit integer sums; the per-cell volumes gathered and summed in cell order. */
  PetscCall(MPIU_Allreduce(lsum, gsum, 4, MPIU_INT64, MPI_SUM, abs->comm));
  PetscCall(PetscMalloc2(abs->size, &rc, abs->size, &dp));
  for (PetscMPIInt r = 0; r < abs->size; r++) {
    PetscInt a, b;
    SRAbstractionBlock_Private(K, abs->size, r, &a, &b);
    PetscCall(PetscMPIIntCast(2 * (b - a), &rc[r]));
    PetscCall(PetscMPIIntCast(2 * a, &dp[r]));
  }
  PetscCallMPI(MPI_Allgatherv(vloc, rc[abs->rank], MPI_DOUBLE, vall, rc, dp, MPI_DOUBLE, abs->comm));
  {
    double sE = 0.0, sU = 0.0;
    for (PetscInt k = 0; k < K; k++) {
      sE += vall[2 * k];
      sU += vall[2 * k + 1];
    }
    m->vol_E     = sE / (double)K;
    m->vol_union = sU / (double)K;
  }
  m->succ_certified = (double)SRAbstractionCertifiedEntries_Private(abs) / (double)K;
  m->succ_minimal   = (double)gsum[0] / (double)K;
  m->succ_empirical = (double)gsum[1] / (double)K;
  m->failures       = (PetscInt)gsum[2];
  *lfail            = (PetscInt)lsum[2];
  m->nonfinite      = (PetscInt)gsum[3];
  PetscCall(PetscFree2(rc, dp));
  PetscCall(PetscFree2(vloc, vall));
  PetscCall(SRIntBufDestroy_Private(&scratch));
  PetscCall(SRIntBufDestroy_Private(&buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionGetMetrics(SRAbstraction abs, SRModel model, SRCells cells, SRAbstractionMetrics *m)
{
  PetscInt      ks, ke, lfail, lfirst;
  double       *E;
  SRCellStatus *st;

  PetscFunctionBeginUser;
  PetscCall(SRAbstractionCheckCells_Private(abs, cells));
  SRAbstractionBlock_Private(cells->K, abs->size, abs->rank, &ks, &ke);
  PetscCall(SRAbstractionEnclose_Private(abs, model, cells, abs->etype, ks, ke, &E, &st));
  PetscCall(SRAbstractionMeasure_Private(abs, model, cells, ks, ke, E, st, NULL, &lfail, &lfirst, m));
  PetscCall(PetscFree2(E, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective.  SRAbstractionBuild, SRAbstractionCheck with the abstraction's enclosure and
   SRAbstractionGetMetrics in one: each cell enclosed once, the empirical count from the build's
   target samples, the containment tested once; the same lists, targets and figures. */
PetscErrorCode SRAbstractionBuildAndMeasure(SRAbstraction abs, SRModel model, SRCells cells, PetscInt *nfail, PetscInt *first, double *witness, SRAbstractionMetrics *m)
{
  const PetscInt K = cells->K;
  PetscInt       ks, ke, lfail, lfirst, *distinct = NULL;
  double        *E;
  SRCellStatus  *st;

  PetscFunctionBeginUser;
  PetscCheck(K >= 1, abs->comm, PETSC_ERR_ARG_OUTOFRANGE, "the abstraction needs at least one cell, got K = %" PetscInt_FMT, K);
  SRAbstractionBlock_Private(K, abs->size, abs->rank, &ks, &ke);
  PetscCall(SRAbstractionEnclose_Private(abs, model, cells, abs->etype, ks, ke, &E, &st));
  if (abs->tp.type == SR_TARGET_EMPIRICAL) PetscCall(PetscMalloc1(PetscMax(ke - ks, 1), &distinct));
  PetscCall(SRAbstractionBuildLists_Private(abs, model, cells, ks, ke, E, st, distinct));
  PetscCall(SRAbstractionMeasure_Private(abs, model, cells, ks, ke, E, st, distinct, &lfail, &lfirst, m));
  PetscCall(SRAbstractionFailures_Private(abs, cells, ks, E, st, lfail, lfirst, nfail, first, witness));
  PetscCall(PetscFree(distinct));
  PetscCall(PetscFree2(E, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}
