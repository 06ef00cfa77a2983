/* The cell solve of SPEC §4, §8: theta <-> cells, the TAO objective and gradient on theta, the
   bounds, and one bound-constrained TAO solve per checkpoint interval, whose move then goes
   through the guard (guard.c).  theta is solved redundantly on every rank (PETSC_COMM_SELF). */
#include <simreach/private/run.h>
#include <math.h>
#include <string.h>

/* theta = (c, w) of a cells object <-> a flat array (SPEC §4 layout: c then w). */
void SRRunThetaGet_Private(SRRun r, SRCells cells, double *th)
{
  const PetscInt nK = r->n * r->K;
  for (PetscInt i = 0; i < nK; i++) th[i] = cells->c[i];
  for (PetscInt i = 0; i < nK; i++) th[nK + i] = cells->w[i];
}

PetscErrorCode SRRunThetaSet_Private(SRRun r, SRCells cells, const double *th)
{
  const PetscInt nK = r->n * r->K;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < nK; i++) cells->c[i] = th[i];
  for (PetscInt i = 0; i < nK; i++) cells->w[i] = th[nK + i];
  PetscCall(SRCellsSetFree(cells));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TAO objective on theta (SPEC §8): beta L_sim + coverage_weight mean_i d(x_i, hat x_i)
   + volume_weight sum_k vol(Psi_k) / vol(D), with the model fixed (Y = f_phi(X) precomputed). */
static PetscErrorCode SRRunThetaObjective_Private(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx)
{
  SRRun                  r = (SRRun)ctx;
  const PetscInt         n = r->n, K = r->K, nK = n * K, N = r->nsamples;
  const double          *x;
  double                *g, obj = 0;
  const SRSuccessorList *T;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(SRRunThetaSet_Private(r, r->cand, x));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(VecGetArray(G, &g));
  for (PetscInt i = 0; i < 2 * nK; i++) g[i] = 0;
  if (r->beta > 0) {
    SRLossValues val;
    PetscCall(SRAbstractionGetTargets(r->abs, &T));
    PetscCall(SRLossSim(r->cand, T, &r->par, N, r->Xtr, r->Y, &val, NULL, r->dtheta));
    obj = r->beta * val.Lsim;
    for (PetscInt i = 0; i < 2 * nK; i++) g[i] = r->beta * r->dtheta[i];
  }
  if (r->cov_w > 0) {
    double dc[SR_MAX_DIM], dw[SR_MAX_DIM], s = 0;
    for (PetscInt i = 0; i < N; i++) {
      const double  *xi = r->Xtr + i * n;
      const PetscInt k  = SRCellsAssign(r->cand, xi);
      s += SRCellsDistance(r->cand, xi, k, NULL, dc, dw);
      for (PetscInt d = 0; d < n; d++) {
        g[k * n + d] += r->cov_w * dc[d] / N;
        g[nK + k * n + d] += r->cov_w * dw[d] / N;
      }
    }
    obj += r->cov_w * s / N;
  }
  if (r->vol_w > 0) {
    double volD = 1;
    for (PetscInt d = 0; d < n; d++) volD *= r->cells->dhi[d] - r->cells->dlo[d];
    for (PetscInt k = 0; k < K; k++) {
      const double *w = r->cand->w + k * n;
      double        v = 1;
      for (PetscInt d = 0; d < n; d++) v *= 2 * w[d];
      obj += r->vol_w * v / volD;
      for (PetscInt d = 0; d < n; d++) {
        double vo = 2; /* d vol / d w_d = 2 prod_{e != d} 2 w_e */
        for (PetscInt e = 0; e < n; e++)
          if (e != d) vo *= 2 * w[e];
        g[nK + k * n + d] += r->vol_w * vo / volD;
      }
    }
  }
  PetscCall(VecRestoreArray(G, &g));
  *f = obj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Clamp theta onto its bounds (a convex combination of two feasible points can leave them by rounding). */
void SRRunThetaClamp_Private(SRRun r, double *th)
{
  const PetscInt n = r->n, K = r->K;
  for (PetscInt k = 0; k < K; k++)
    for (PetscInt d = 0; d < n; d++) {
      th[k * n + d]         = PetscMin(PetscMax(th[k * n + d], r->sys->dlo[d]), r->sys->dhi[d]);
      th[n * K + k * n + d] = PetscMin(PetscMax(th[n * K + k * n + d], r->wmin), r->wmax);
    }
}

PetscErrorCode SRRunAcceptTheta_Private(SRRun r)
{
  PetscFunctionBeginUser;
  PetscCall(SRCellsCopy(r->cand, r->cells));
  PetscCall(SRCellsSetFree(r->cells));
  PetscCall(SRRunAccepted_Private(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* theta bounds of SPEC §8 and the TAO callbacks; called once from SRRunSetUp. */
PetscErrorCode SRRunCellSolveSetUp_Private(SRRun r)
{
  const PetscInt n = r->n, K = r->K;

  PetscFunctionBeginUser;
  /* theta bounds of SPEC §8: c in D, w in [w_min, w_max] */
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, 2 * n * K, &r->theta));
  PetscCall(VecDuplicate(r->theta, &r->lb));
  PetscCall(VecDuplicate(r->theta, &r->ub));
  {
    double *lb, *ub;
    PetscCall(VecGetArray(r->lb, &lb));
    PetscCall(VecGetArray(r->ub, &ub));
    for (PetscInt k = 0; k < K; k++)
      for (PetscInt d = 0; d < n; d++) {
        lb[k * n + d]         = r->sys->dlo[d];
        ub[k * n + d]         = r->sys->dhi[d];
        lb[n * K + k * n + d] = r->wmin;
        ub[n * K + k * n + d] = r->wmax;
      }
    PetscCall(VecRestoreArray(r->lb, &lb));
    PetscCall(VecRestoreArray(r->ub, &ub));
  }
  PetscCall(TaoSetObjectiveAndGradient(r->tao, NULL, SRRunThetaObjective_Private, r));
  PetscCall(TaoSetVariableBounds(r->tao, r->lb, r->ub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The theta update of one checkpoint interval: a bound-constrained TAO solve (SPEC §8),
   then the guard on the whole move (SRRunGuardTheta_Private). */
PetscErrorCode SRRunThetaStep_Private(SRRun r)
{
  const PetscInt     n = r->n, K = r->K, nt = 2 * n * K;
  TaoConvergedReason reason;
  double            *th;

  PetscFunctionBeginUser;
  if (r->beta == 0 && r->cov_w == 0 && r->vol_w == 0) PetscFunctionReturn(PETSC_SUCCESS); /* objective identically 0 */
  PetscCall(PetscLogEventBegin(r->ev_tao, 0, 0, 0, 0));
  PetscCall(SRModelEvaluate(r->model, r->nsamples, r->Xtr, r->Y));
  PetscCall(VecGetArray(r->theta, &th));
  SRRunThetaGet_Private(r, r->cells, th);
  PetscCall(PetscArraycpy(r->theta_old, th, nt));
  PetscCall(VecRestoreArray(r->theta, &th));
  PetscCall(TaoSetSolution(r->tao, r->theta));
  PetscCall(TaoSolve(r->tao));
  PetscCall(TaoGetConvergedReason(r->tao, &reason));
  r->tao_reason = (PetscInt)reason;
  PetscCall(VecGetArray(r->theta, &th));
  PetscCall(PetscArraycpy(r->theta_new, th, nt));
  PetscCall(VecRestoreArray(r->theta, &th));
  PetscCall(PetscLogEventEnd(r->ev_tao, 0, 0, 0, 0));
  if (reason == TAO_DIVERGED_NAN || !SRAllFinite_Private(nt, r->theta_new)) {
    char msg[256];
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "non-finite cell parameters from the TAO theta solve at epoch %" PetscInt_FMT " (TAO reason %s)", r->epoch, TaoConvergedReasons[reason]));
    PetscCall(SRRunDiverge_Private(r, msg));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!memcmp(r->theta_new, r->theta_old, (size_t)nt * sizeof(double))) PetscFunctionReturn(PETSC_SUCCESS);

  PetscCall(SRRunGuardTheta_Private(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}
