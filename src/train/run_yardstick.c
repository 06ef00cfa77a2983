/* What a checkpoint measures beside the run's own quantities (SPEC §9, issue 33):
   - the manipulation check's common yardstick: the held-out L_sim of the network on the cells as
     they start, with the targets the run's -target rule chose for the warm-started network all
     arms of a seed start from.  Neither depends on the treated network, so the arms of a seed
     are compared on one scale, however their own cells, lists and targets moved (docs/study.md,
     "The manipulation check": why not the reference map's targets);
   - the simulated safe fraction, the ceiling of the closed-loop answer;
   - the tau-dependent columns of a row at other temperatures, so that a beta = 0 run (whose
     training does not depend on tau) is trained once and evaluated at every tau of a study. */
#include <simreach/private/run.h>
#include <math.h>

/* Builds the yardstick at set-up, after the warm start and the first SRAbstractionBuild (a
   function of the options and the seed only): the cells as they start (before any move) and the
   targets T(k) that the run's -target rule chose for the network every arm of this seed starts
   from -- the warm-started network, the same for every beta.  Kept in CSR. */
PetscErrorCode SRRunYardstickSetUp_Private(SRRun r)
{
  const SRSuccessorList *T;
  PetscInt               K, *scratch = NULL, scap = 0, tot = 0;

  PetscFunctionBeginUser;
  PetscCall(SRCellsDuplicate(r->cells, &r->ycells));
  K = r->ycells->K;
  PetscCall(SRAbstractionGetTargets(r->abs, &T));
  for (PetscInt k = 0; k < K; k++) tot += SRSuccessorListLength(T, k);
  PetscCall(PetscMalloc2(K + 1, &r->yptr, PetscMax(tot, 1), &r->yidx));
  r->yptr[0] = 0;
  for (PetscInt k = 0; k < K; k++) {
    PetscInt        n;
    const PetscInt *list;
    PetscCall(SRSuccessorListGet(T, k, &scratch, &scap, &n, &list));
    PetscCall(PetscArraycpy(r->yidx + r->yptr[k], list, n));
    r->yptr[k + 1] = r->yptr[k] + n;
  }
  PetscCall(PetscFree(scratch));
  PetscCall(PetscMemzero(&r->yT, sizeof(r->yT)));
  r->yT.K   = K;
  r->yT.ptr = r->yptr;
  r->yT.idx = r->yidx;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunYardstickDestroy_Private(SRRun r)
{
  PetscFunctionBeginUser;
  PetscCall(SRCellsDestroy(&r->ycells));
  PetscCall(PetscFree2(r->yptr, r->yidx));
  PetscCall(PetscFree(r->eval_tau));
  PetscCall(PetscFree(r->eval_rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The yardstick's L_sim at temperature tau on the held-out images Yho = f_phi(Xho). */
PetscErrorCode SRRunYardstick_Private(SRRun r, double tau, const double *Yho, double *Lref)
{
  SRLossParams par = r->par;
  SRLossValues v;

  PetscFunctionBeginUser;
  *Lref = NAN;
  if (!r->ycells) PetscFunctionReturn(PETSC_SUCCESS); /* diverged in the warm start */
  par.tau = tau;
  PetscCall(SRLossSim(r->ycells, &r->yT, &par, r->nheld, r->Xho, Yho, &v, NULL, NULL));
  *Lref = v.Lsim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The fraction of the held-out samples whose trajectory under the network stays in D for
   SR_HORIZON_CAP steps (SPEC §9: the ceiling of the verified-safe fraction; a sample estimate of
   the volume fraction of D from which the simulated loop never leaves it). */
PetscErrorCode SRRunSimulatedSafe_Private(SRRun r, double *frac)
{
  const PetscInt n = r->n, N = r->nheld;
  double        *X = r->Xb, *Y = r->Y;
  PetscBool     *in;
  PetscInt       stay = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(N, &in));
  PetscCall(PetscArraycpy(X, r->Xho, N * n));
  for (PetscInt i = 0; i < N; i++) in[i] = PETSC_TRUE;
  for (PetscInt t = 0; t < SR_HORIZON_CAP; t++) {
    PetscCall(SRModelEvaluate(r->model, N, X, Y));
    for (PetscInt i = 0; i < N; i++) {
      if (in[i] && !(SRCellsSinkDistance(r->cells, Y + i * n, NULL) > 0.0)) in[i] = PETSC_FALSE; /* left D */
      for (PetscInt d = 0; d < n; d++) X[i * n + d] = in[i] ? Y[i * n + d] : r->Xho[i * n + d]; /* a sample that left is parked */
    }
  }
  for (PetscInt i = 0; i < N; i++) stay += in[i];
  *frac = (double)stay / (double)N;
  PetscCall(PetscFree(in));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SPEC §9: beta = 0 is trained once per seed and evaluated at every tau.  The temperatures at
   which every checkpoint is evaluated besides the run's own (SRRunGetCheckpointAtTau). */
PetscErrorCode SRRunSetEvalTaus(SRRun r, PetscInt n, const double tau[])
{
  PetscFunctionBeginUser;
  PetscCheck(r->beta == 0 || n == 0, r->comm, PETSC_ERR_ARG_WRONG, "SRRunSetEvalTaus: only a beta = 0 run trains independently of tau (this run has beta %g)", r->beta);
  PetscCall(PetscFree(r->eval_tau));
  PetscCall(PetscFree(r->eval_rows));
  r->neval = n;
  PetscCall(PetscMalloc1(PetscMax(n, 1), &r->eval_tau));
  PetscCall(PetscCalloc1(PetscMax(n, 1), &r->eval_rows));
  for (PetscInt i = 0; i < n; i++) {
    PetscCheck(tau[i] > 0 && isfinite(tau[i]), r->comm, PETSC_ERR_ARG_OUTOFRANGE, "-tau %g: allowed is a finite value > 0", tau[i]);
    r->eval_tau[i] = tau[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The tau-dependent columns of row at temperature tau, the rest as in row: what a run at tau
   computes at this checkpoint, since at beta = 0 nothing in training reads tau.  Collective. */
PetscErrorCode SRRunCheckpointAtTau_Private(SRRun r, double tau, const SRCheckpoint *row, SRCheckpoint *out)
{
  SRLossParams           par = r->par;
  SRLossValues           val, vho;
  const SRSuccessorList *T;

  PetscFunctionBeginUser;
  par.tau = tau;
  *out    = *row;
  PetscCall(SRRunLossTargets_Private(r, &T));
  PetscCall(SRModelEvaluate(r->model, r->nsamples, r->Xtr, r->Y));
  PetscCall(SRLossSim(r->cells, T, &par, r->nsamples, r->Xtr, r->Y, &val, NULL, NULL));
  PetscCall(SRModelEvaluate(r->model, r->nheld, r->Xho, r->Y));
  PetscCall(SRLossSim(r->cells, T, &par, r->nheld, r->Xho, r->Y, &vho, NULL, NULL));
  PetscCall(SRRunYardstick_Private(r, tau, r->Y, &out->Lsim_ref));
  PetscCall(SRLossEncl(r->model, r->cells, T, tau, 1.0, &out->Lencl, NULL, NULL));
  out->Lsim         = val.Lsim;
  out->gap_min      = val.gap_min;
  out->taulogn      = val.taulogn;
  out->gap_max      = val.gap_max;
  out->taulogN      = val.taulogN;
  out->Lsim_heldout = vho.Lsim;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The targets the loss and the checkpoint's L_sim, H and coverage read: the abstraction's T(k), or
   with -target_update never the yardstick's (chosen once for the warm-started network and never
   re-chosen: the seed's fixed successor topology, SPEC §9). */
PetscErrorCode SRRunLossTargets_Private(SRRun r, const SRSuccessorList **T)
{
  PetscFunctionBeginUser;
  if (r->target_update == 2 && r->ycells) *T = &r->yT;
  else PetscCall(SRAbstractionGetTargets(r->abs, T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunGetCheckpointAtTau(SRRun r, PetscInt i, const SRCheckpoint **row)
{
  PetscFunctionBeginUser;
  PetscCheck(i >= 0 && i < r->neval, r->comm, PETSC_ERR_ARG_OUTOFRANGE, "SRRunGetCheckpointAtTau: index %" PetscInt_FMT " of %" PetscInt_FMT " evaluation temperatures", i, r->neval);
  *row = &r->eval_rows[i];
  PetscFunctionReturn(PETSC_SUCCESS);
}
