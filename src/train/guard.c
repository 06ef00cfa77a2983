/* The containment guard of SPEC §8 on every candidate update of phi (once per Adam step) and
   theta (once per TAO solve): the containment test over all cells with the stored C(k),
   reject / backtrack / project on failure, pruning after an accepted update, and the
   divergence rule (non-finite values end the run with a reason). */
#include <simreach/private/run.h>
#include <math.h>
#include <string.h>

PetscBool SRAllFinite_Private(PetscInt n, const double *a)
{
  for (PetscInt i = 0; i < n; i++)
    if (!isfinite(a[i])) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* Status SR_RUN_DIVERGED with its reason; every rank computes the same values, so every rank
   of the run reaches this point together. */
PetscErrorCode SRRunDiverge_Private(SRRun r, const char reason[])
{
  PetscFunctionBeginUser;
  r->status = SR_RUN_DIVERGED;
  PetscCall(PetscStrncpy(r->reason, reason, sizeof(r->reason)));
  if (r->has_verified) PetscCall(SRRunRestoreVerified_Private(r)); /* keep the last verified triple (SPEC §11) */
  if (!r->quiet) PetscCall(PetscPrintf(r->comm, "simreach run diverged: %s\n", r->reason));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The containment test of the guard over all cells with the stored C(k) (SPEC §7, §8). */
PetscErrorCode SRRunGuardCheck_Private(SRRun r, SRCells cells, PetscBool *ok, PetscInt *first)
{
  PetscInt     nfail;
  double       witness[SR_MAX_DIM];
  const double t = MPI_Wtime();

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(r->ev_guard, 0, 0, 0, 0));
  PetscCall(SRAbstractionCheck(r->abs, r->model, cells, r->enclosure, &nfail, first, witness));
  PetscCall(PetscLogEventEnd(r->ev_guard, 0, 0, 0, 0));
  r->t_guard += MPI_Wtime() - t;
  *ok = nfail == 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After an accepted update: rebuild T(k) (SPEC §5, §8; not with -target_update checkpoint), and with -relist never prune C(k) (it
   then never grows).  With -relist checkpoint the guard holds C(k) fixed within the interval
   and the checkpoint re-lists it; train-then-abstract (-guard none) keeps its lists until the
   checkpoint rebuild. */
PetscErrorCode SRRunAccepted_Private(SRRun r)
{
  const double t = MPI_Wtime();

  PetscFunctionBeginUser;
  PetscCall(PetscLogEventBegin(r->ev_guard, 0, 0, 0, 0));
  if (r->guard != SR_GUARD_NONE && !r->relist) PetscCall(SRAbstractionPrune(r->abs, r->model, r->cells));
  /* -target_update checkpoint: T(k) stays as the last checkpoint chose it (SPEC §9: targets fixed
     over an interval do not re-centre on the network's own images after every step); with
     -relist never pruning may drop a target from C(k), so T(k) is re-chosen there as before.
     -target_update never: the loss reads the fixed targets of SRRunLossTargets_Private */
  if (!r->target_update || (r->target_update == 1 && r->guard != SR_GUARD_NONE && !r->relist)) PetscCall(SRAbstractionUpdateTargets(r->abs, r->model, r->cells));
  PetscCall(PetscLogEventEnd(r->ev_guard, 0, 0, 0, 0));
  r->t_guard += MPI_Wtime() - t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The guard on a phi candidate phi_old + s delta (SPEC §8), once per Adam step:
   reject drops it, backtrack halves s up to -guard_halvings times; project has no
   feasible set to project phi onto, so it drops the step like reject. */
PetscErrorCode SRRunGuardPhi_Private(SRRun r, PetscInt epoch, PetscInt step)
{
  double        *phi  = r->model->mlp->params;
  const PetscInt P    = r->P;
  const PetscInt hmax = r->guard == SR_GUARD_BACKTRACK ? r->halvings : 0;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(r->phi_old, phi, P));
  for (PetscInt h = 0; h <= hmax; h++) {
    const double s = ldexp(1.0, (int)-h);
    PetscBool    ok;
    PetscInt     first;

    for (PetscInt i = 0; i < P; i++) phi[i] = r->phi_old[i] + s * r->delta[i];
    if (!SRAllFinite_Private(P, phi)) {
      char msg[256];
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "non-finite network parameters after the Adam step at epoch %" PetscInt_FMT ", step %" PetscInt_FMT " (-lr %g)", epoch, step, r->lr));
      PetscCall(SRRunDiverge_Private(r, msg));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (r->guard == SR_GUARD_NONE) ok = PETSC_TRUE;
    else PetscCall(SRRunGuardCheck_Private(r, r->cells, &ok, &first));
    if (ok) {
      r->accepted++;
      if (h > 0) r->backtracked++;
      PetscCall(SRRunAccepted_Private(r));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(PetscArraycpy(phi, r->phi_old, P));
  r->rejected++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The guard on the theta move theta_old -> theta_new of one TAO solve (SPEC §8). */
PetscErrorCode SRRunGuardTheta_Private(SRRun r)
{
  const PetscInt K = r->K, nt = r->ntheta;

  PetscFunctionBeginUser;
  PetscCall(PetscArraycpy(r->theta_acc, r->theta_old, nt));
  if (r->guard == SR_GUARD_NONE) {
    PetscCall(SRRunThetaSet_Private(r, r->cand, r->theta_new));
    PetscCall(PetscArraycpy(r->theta_acc, r->theta_new, nt));
    r->accepted++;
    r->th_accepted++;
    PetscCall(SRRunAcceptTheta_Private(r));
  } else if (r->guard == SR_GUARD_REJECT || r->guard == SR_GUARD_BACKTRACK) {
    const PetscInt hmax = r->guard == SR_GUARD_BACKTRACK ? r->halvings : 0;
    double        *cand = r->dtheta; /* free as scratch outside the objective */
    for (PetscInt h = 0; h <= hmax; h++) {
      PetscBool ok;
      PetscInt  first;
      if (h == 0) PetscCall(PetscArraycpy(cand, r->theta_new, nt));
      else {
        const double s = ldexp(1.0, (int)-h);
        for (PetscInt i = 0; i < nt; i++) cand[i] = r->theta_old[i] + s * (r->theta_new[i] - r->theta_old[i]);
        SRRunThetaClamp_Private(r, cand);
      }
      PetscCall(SRRunThetaSet_Private(r, r->cand, cand));
      PetscCall(SRRunGuardCheck_Private(r, r->cand, &ok, &first));
      if (ok) {
        r->accepted++;
        r->th_accepted++;
        if (h > 0) r->backtracked++;
        if (h > 0) r->th_backtracked++;
        PetscCall(PetscArraycpy(r->theta_acc, cand, nt));
        PetscCall(SRRunAcceptTheta_Private(r));
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    }
    r->rejected++;
    r->th_rejected++;
  } else {
    /* project: put failing cells back to their last feasible (c, w), or for a partition their
       faces back to the last feasible boundaries, until the test passes;
       a cell that fails although already restored fails because of its successors, so they
       are restored too.  At worst everything is restored, which is the rejection. */
    PetscBool *restored;
    PetscInt   nrestored = 0;
    double    *cand      = r->dtheta;

    PetscCall(PetscCalloc1(K, &restored));
    PetscCall(PetscArraycpy(cand, r->theta_new, nt));
    while (nrestored < K) {
      PetscBool ok;
      PetscInt  first, before = nrestored;
      PetscCall(SRRunThetaSet_Private(r, r->cand, cand));
      PetscCall(SRRunGuardCheck_Private(r, r->cand, &ok, &first));
      if (ok) break;
      if (!restored[first]) {
        restored[first] = PETSC_TRUE;
        nrestored++;
      } else {
        PetscInt        nC;
        const PetscInt *Cf;
        PetscCall(SRAbstractionGetCertifiedCell(r->abs, first, &nC, &Cf));
        for (PetscInt q = 0; q < nC; q++) {
          const PetscInt j = Cf[q];
          if (j < K && !restored[j]) {
            restored[j] = PETSC_TRUE;
            nrestored++;
          }
        }
      }
      if (nrestored == before) {
        for (PetscInt k = 0; k < K; k++) restored[k] = PETSC_TRUE;
        nrestored = K;
      }
      for (PetscInt k = 0; k < K; k++)
        if (restored[k]) SRRunThetaRestoreCell_Private(r, cand, k);
    }
    PetscCall(PetscFree(restored));
    if (nrestored < K) {
      r->accepted++;
      r->th_accepted++;
      if (nrestored > 0) r->backtracked++;
      if (nrestored > 0) r->th_backtracked++;
      PetscCall(PetscArraycpy(r->theta_acc, cand, nt));
      PetscCall(SRRunAcceptTheta_Private(r));
    } else {
      r->rejected++;
      r->th_rejected++;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An accepted move of theta (SPEC §8): the objective of the accepted theta, the candidate cells
   become the cells, then what follows every accepted update (SRRunAccepted_Private). */
PetscErrorCode SRRunAcceptTheta_Private(SRRun r)
{
  PetscFunctionBeginUser;
  if (r->cells->partition) {
    /* the objective of the accepted theta, with the frozen assignment and the targets of the
       solve (pruning and the target update below change them) */
    Vec     A, G;
    double *a;
    PetscCall(VecDuplicate(r->theta, &A));
    PetscCall(VecDuplicate(r->theta, &G));
    PetscCall(VecGetArray(A, &a));
    PetscCall(PetscArraycpy(a, r->theta_acc, r->ntheta));
    PetscCall(VecRestoreArray(A, &a));
    PetscCall(SRRunThetaObjectivePartition_Private(r->tao, A, &r->th_obj_after, G, r));
    PetscCall(VecDestroy(&A));
    PetscCall(VecDestroy(&G));
  }
  PetscCall(SRCellsCopy(r->cand, r->cells));
  if (!r->cells->partition) PetscCall(SRCellsSetFree(r->cells));
  PetscCall(SRRunAccepted_Private(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}
