/* The cell solve of SPEC §4, §8: theta <-> cells, the TAO objective and gradient on theta, the
   bounds, and one bound-constrained TAO solve per checkpoint interval, whose move then goes
   through the guard (guard.c).  theta is solved redundantly on every rank (PETSC_COMM_SELF). */
#include <simreach/private/run.h>
#include <math.h>
#include <string.h>

/* theta of a cells object <-> a flat array: (c, w) for boxes (SPEC §4 layout: c then w), the
   interior boundaries for a partition. */
void SRRunThetaGet_Private(SRRun r, SRCells cells, double *th)
{
  const PetscInt nK = r->n * r->K;
  if (cells->partition) {
    SRCellsPartitionGetTheta(cells, th);
    return;
  }
  for (PetscInt i = 0; i < nK; i++) th[i] = cells->c[i];
  for (PetscInt i = 0; i < nK; i++) th[nK + i] = cells->w[i];
}

PetscErrorCode SRRunThetaSet_Private(SRRun r, SRCells cells, const double *th)
{
  const PetscInt nK = r->n * r->K;

  PetscFunctionBeginUser;
  if (cells->partition) {
    PetscCall(SRCellsPartitionSetTheta(cells, th));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt i = 0; i < nK; i++) cells->c[i] = th[i];
  for (PetscInt i = 0; i < nK; i++) cells->w[i] = th[nK + i];
  PetscCall(SRCellsSetFree(cells));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Project of the guard: cell k's parameters back to the last feasible ones (for a partition
   the cell's faces, which its neighbours share). */
void SRRunThetaRestoreCell_Private(SRRun r, double *cand, PetscInt k)
{
  const PetscInt n = r->n, K = r->K;

  if (r->cells->partition) {
    PetscInt idx[SR_MAX_DIM], off = 0;
    SRCellsIndex(r->cells, k, idx);
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt m = r->cells->grid[d];
      /* boundary i (1..m-1) of dimension d is theta[off + i - 1] */
      if (idx[d] >= 1) cand[off + idx[d] - 1] = r->theta_old[off + idx[d] - 1];
      if (idx[d] + 1 <= m - 1) cand[off + idx[d]] = r->theta_old[off + idx[d]];
      off += m - 1;
    }
    return;
  }
  for (PetscInt d = 0; d < n; d++) {
    cand[k * n + d]         = r->theta_old[k * n + d];
    cand[n * K + k * n + d] = r->theta_old[n * K + k * n + d];
  }
}

/* The theta objective of a partition (SPEC §8), with the assignment and the targets frozen:
     beta L + volume_weight V,
   L per -loss: L_sim (d(x, hat x) = 0 on a partition; SRLossSimFrozen), L_encl
   (SRLossEnclCells) or their sum; V = sum_k vol(Psi_k) vol(E_k) / vol(D)^2, the
   vol(Psi_k)-weighted mean of vol(E_k) / vol(D) (SREnclVolumeCells; weighted as every mean
   over cells that may differ, SPEC §6: the plain mean rewards many tiny cells and a few huge
   ones whose lists already hold every cell, which the guard cannot refuse).  E_k is the
   round-to-nearest training copy of the interval enclosure (lossencl.h), never used for
   soundness.  Every term's gradient goes to the cell faces (c, w layout) and from there to the
   boundaries by the chain rule (SRCellsPartitionThetaGradient): exact for the network, with
   the controller plant's held interval step differentiated in its bounds by central
   differences (tests/test_partition.c checks the whole gradient against central differences
   of this objective). */
static PetscErrorCode SRRunThetaObjectivePartition_Private(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx)
{
  SRRun                  r = (SRRun)ctx;
  const PetscInt         nt = r->ntheta, N = r->nsamples;
  const double          *x;
  double                *g, obj = 0, *gt = r->theta_g;
  const SRSuccessorList *T;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(SRRunThetaSet_Private(r, r->cand, x));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(VecGetArray(G, &g));
  for (PetscInt i = 0; i < nt; i++) g[i] = 0;
  PetscCall(SRAbstractionGetTargets(r->abs, &T));
  if (r->beta > 0 && r->loss != SR_LOSS_ENCL) {
    SRLossValues val;
    PetscCall(SRLossSimFrozen(r->cand, T, &r->par, N, r->Xtr, r->Y, r->hat, &val, r->dtheta));
    obj += r->beta * val.Lsim;
    SRCellsPartitionThetaGradient(r->cand, r->dtheta, gt);
    for (PetscInt i = 0; i < nt; i++) g[i] += r->beta * gt[i];
  }
  if (r->beta > 0 && r->loss != SR_LOSS_SIM) {
    double Le;
    PetscCall(SRLossEnclCells(r->model, r->cand, T, r->par.tau, &Le, r->dtheta));
    obj += r->beta * Le;
    SRCellsPartitionThetaGradient(r->cand, r->dtheta, gt);
    for (PetscInt i = 0; i < nt; i++) g[i] += r->beta * gt[i];
  }
  if (r->vol_w > 0) {
    double v = 0;
    PetscCall(SREnclVolumeCells(r->model, r->cand, &v, r->dtheta));
    obj += r->vol_w * v;
    SRCellsPartitionThetaGradient(r->cand, r->dtheta, gt);
    for (PetscInt i = 0; i < nt; i++) g[i] += r->vol_w * gt[i];
  }
  PetscCall(VecRestoreArray(G, &g));
  *f = obj;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* TAO objective on theta (SPEC §8): beta L (L_sim, L_encl or both, per -loss) + coverage_weight mean_i d(x_i, hat x_i)
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
  PetscCall(SRAbstractionGetTargets(r->abs, &T));
  if (r->beta > 0 && r->loss != SR_LOSS_ENCL) {
    SRLossValues val;
    PetscCall(SRLossSim(r->cand, T, &r->par, N, r->Xtr, r->Y, &val, NULL, r->dtheta));
    obj = r->beta * val.Lsim;
    for (PetscInt i = 0; i < 2 * nK; i++) g[i] = r->beta * r->dtheta[i];
  }
  if (r->beta > 0 && r->loss != SR_LOSS_SIM) {
    double Le;
    PetscCall(SRLossEnclCells(r->model, r->cand, T, r->par.tau, &Le, r->dtheta));
    obj += r->beta * Le;
    for (PetscInt i = 0; i < 2 * nK; i++) g[i] += r->beta * r->dtheta[i];
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
  if (r->cells->partition) { /* onto the trust region of this solve */
    for (PetscInt i = 0; i < r->ntheta; i++) th[i] = PetscMin(PetscMax(th[i], r->tr_lb[i]), r->tr_ub[i]);
    return;
  }
  for (PetscInt k = 0; k < K; k++)
    for (PetscInt d = 0; d < n; d++) {
      th[k * n + d]         = PetscMin(PetscMax(th[k * n + d], r->sys->dlo[d]), r->sys->dhi[d]);
      th[n * K + k * n + d] = PetscMin(PetscMax(th[n * K + k * n + d], r->wmin), r->wmax);
    }
}

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

/* theta bounds of SPEC §8 and the TAO callbacks; called once from SRRunSetUp. */
PetscErrorCode SRRunCellSolveSetUp_Private(SRRun r)
{
  const PetscInt n = r->n, K = r->K;

  PetscFunctionBeginUser;
  r->ntheta = r->cells->partition ? SRCellsPartitionNumTheta(r->cells) : 2 * n * K;
  PetscCall(PetscMalloc5(r->nsamples, &r->hat, 2 * n * K, &r->theta_acc, 2 * n * K, &r->tr_lb, 2 * n * K, &r->tr_ub, 2 * n * K, &r->theta_g));
  if (r->cells->partition) {
    /* the bounds are the trust region of each solve, set in SRRunThetaStep_Private */
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, PetscMax(r->ntheta, 1), &r->theta));
    PetscCall(VecDuplicate(r->theta, &r->lb));
    PetscCall(VecDuplicate(r->theta, &r->ub));
    PetscCall(TaoSetObjectiveAndGradient(r->tao, NULL, SRRunThetaObjectivePartition_Private, r));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
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

/* The guard-aware part of a partition's trust region (SPEC §8; README "Cells that learn"): the
   union of C(k) is the index box of its cells, so only its outer faces matter for the
   containment of E_k, and a face that moves towards E_k eats the slack the guard needs.  Each
   outer face of every list may move at most half-way towards the edge of the current E_k it
   guards (not at all when there is no gap).  Interior boundaries of a union and faces moving
   away from E_k are not limited.  The enclosures are computed on every rank for all cells. */
static PetscErrorCode SRRunPartitionGuardBounds_Private(SRRun r)
{
  const PetscInt         n = r->n, K = r->K;
  const SRSuccessorList *C;
  double                *E;
  SRCellStatus          *st;
  PetscInt               toff[SR_MAX_DIM], q = 0, idx[SR_MAX_DIM];

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < n; d++) {
    toff[d] = q - 1; /* boundary i (1..m-1) of dimension d is theta[toff[d] + i] */
    q += r->cells->grid[d] - 1;
  }
  PetscCall(SRAbstractionGetCertified(r->abs, &C));
  PetscCall(PetscMalloc2(2 * n * K, &E, K, &st));
  PetscCall(SREnclosureCompute(r->model, r->enclosure, r->cells, 0, K, E, st));
  for (PetscInt k = 0; k < K; k++) {
    PetscInt a[SR_MAX_DIM], z[SR_MAX_DIM], nc = 0;
    if (st[k] == SR_CELL_NONFINITE) continue;
    for (PetscInt d = 0; d < n; d++) {
      a[d] = PETSC_MAX_INT;
      z[d] = -1;
    }
    for (PetscInt e = C->ptr[k]; e < C->ptr[k + 1]; e++) {
      if (C->idx[e] >= K) continue;
      SRCellsIndex(r->cells, C->idx[e], idx);
      nc++;
      for (PetscInt d = 0; d < n; d++) {
        a[d] = PetscMin(a[d], idx[d]);
        z[d] = PetscMax(z[d], idx[d]);
      }
    }
    if (!nc) continue;
    {
      /* a cell whose E_k comes within a quarter grid spacing of its union may only shrink: the
         interval enclosure of a sub-box lies in the enclosure of the box, so it stays contained */
      PetscBool has_sink = (PetscBool)(C->ptr[k + 1] > C->ptr[k] && C->idx[C->ptr[k + 1] - 1] >= K), tight = PETSC_FALSE;
      for (PetscInt d = 0; d < n; d++) {
        const PetscInt m = r->cells->grid[d];
        const double  *b = r->cells->bnd + r->cells->boff[d], hd = (r->cells->dhi[d] - r->cells->dlo[d]) / m;
        const double   glo = (has_sink && a[d] == 0) ? PETSC_MAX_REAL : E[2 * n * k + d] - b[a[d]];
        const double   ghi = (has_sink && z[d] == m - 1) ? PETSC_MAX_REAL : b[z[d] + 1] - E[2 * n * k + n + d];
        if (glo < 0.25 * hd || ghi < 0.25 * hd) tight = PETSC_TRUE;
      }
      if (tight) {
        SRCellsIndex(r->cells, k, idx);
        for (PetscInt d = 0; d < n; d++) {
          const PetscInt m = r->cells->grid[d];
          const double  *b = r->cells->bnd + r->cells->boff[d];
          if (idx[d] >= 1) r->tr_lb[toff[d] + idx[d]] = PetscMax(r->tr_lb[toff[d] + idx[d]], b[idx[d]]);
          if (idx[d] + 1 <= m - 1) r->tr_ub[toff[d] + idx[d] + 1] = PetscMin(r->tr_ub[toff[d] + idx[d] + 1], b[idx[d] + 1]);
        }
      }
    }
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt m  = r->cells->grid[d];
      const double  *b  = r->cells->bnd + r->cells->boff[d];
      const double   lo = E[2 * n * k + d], hi = E[2 * n * k + n + d];
      if (a[d] >= 1 && a[d] <= m - 1) { /* lower face b_a may rise at most half-way to E.lo */
        const PetscInt t = toff[d] + a[d];
        r->tr_ub[t]      = PetscMin(r->tr_ub[t], lo > b[a[d]] ? b[a[d]] + 0.5 * (lo - b[a[d]]) : b[a[d]]);
        r->tr_ub[t]      = PetscMax(r->tr_ub[t], b[a[d]]);
      }
      if (z[d] + 1 >= 1 && z[d] + 1 <= m - 1) { /* upper face b_{z+1} may fall at most half-way to E.hi */
        const PetscInt t = toff[d] + z[d] + 1;
        r->tr_lb[t]      = PetscMax(r->tr_lb[t], hi < b[z[d] + 1] ? b[z[d] + 1] - 0.5 * (b[z[d] + 1] - hi) : b[z[d] + 1]);
        r->tr_lb[t]      = PetscMin(r->tr_lb[t], b[z[d] + 1]);
      }
    }
  }
  PetscCall(PetscFree2(E, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The theta update of one checkpoint interval (SPEC §8): a bound-constrained TAO solve, then
   the guard on the whole move (SRRunGuardTheta_Private).  For a partition the assignment of the
   training samples is frozen for the solve, the bounds are the trust region of the current
   boundaries, and the objective before and after, the largest boundary displacement and
   whether the move counts (>= 1e-3 grid spacing and a lower objective) are recorded. */
PetscErrorCode SRRunThetaStep_Private(SRRun r)
{
  const PetscInt     nt = r->ntheta;
  const PetscBool    part = r->cells->partition;
  TaoConvergedReason reason;
  double            *th;

  PetscFunctionBeginUser;
  r->th_obj_before = r->th_obj_after = r->th_disp = 0;
  if (!r->cell_solve) PetscFunctionReturn(PETSC_SUCCESS);
  if (r->beta == 0 && r->cov_w == 0 && r->vol_w == 0) PetscFunctionReturn(PETSC_SUCCESS); /* objective identically 0 */
  if (part && nt == 0) PetscFunctionReturn(PETSC_SUCCESS);                                /* one cell per dimension: nothing to move */
  PetscCall(PetscLogEventBegin(r->ev_tao, 0, 0, 0, 0));
  PetscCall(SRModelEvaluate(r->model, r->nsamples, r->Xtr, r->Y));
  if (part) {
    double *lb, *ub;
    for (PetscInt i = 0; i < r->nsamples; i++) r->hat[i] = SRCellsAssign(r->cells, r->Xtr + i * r->n);
    SRCellsPartitionTrustRegion(r->cells, r->wmin, r->tr_lb, r->tr_ub);
    if (r->guard != SR_GUARD_NONE) PetscCall(SRRunPartitionGuardBounds_Private(r));
    PetscCall(VecGetArray(r->lb, &lb));
    PetscCall(VecGetArray(r->ub, &ub));
    PetscCall(PetscArraycpy(lb, r->tr_lb, nt));
    PetscCall(PetscArraycpy(ub, r->tr_ub, nt));
    PetscCall(VecRestoreArray(r->lb, &lb));
    PetscCall(VecRestoreArray(r->ub, &ub));
    PetscCall(TaoSetVariableBounds(r->tao, r->lb, r->ub));
  }
  PetscCall(VecGetArray(r->theta, &th));
  SRRunThetaGet_Private(r, r->cells, th);
  PetscCall(PetscArraycpy(r->theta_old, th, nt));
  PetscCall(VecRestoreArray(r->theta, &th));
  if (part) {
    Vec G;
    PetscCall(VecDuplicate(r->theta, &G));
    PetscCall(SRRunThetaObjectivePartition_Private(r->tao, r->theta, &r->th_obj_before, G, r));
    PetscCall(VecDestroy(&G));
  }
  PetscCall(TaoSetSolution(r->tao, r->theta));
  {
    /* a failing TAO solve (a PETSc error inside it, e.g. an objective TAO finds non-finite or a
       method that needs what is not given) ends this run as diverged with the reason, instead
       of aborting the study; every rank of the run sees the same values, so all fail together */
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = TaoSolve(r->tao);
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      char        msg[256];
      const char *text = NULL;
      char       *specific = NULL;
      PetscCall(PetscLogEventEnd(r->ev_tao, 0, 0, 0, 0));
      (void)PetscErrorMessage(ierr, &text, &specific);
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "the TAO theta solve failed at epoch %" PetscInt_FMT ": %s%s%s", r->epoch, text ? text : "PETSc error", specific ? ": " : "", specific ? specific : ""));
      PetscCall(SRRunDiverge_Private(r, msg));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
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
  if (part) SRRunThetaClamp_Private(r, r->theta_new); /* TAO keeps its bounds; a rounding must not leave them */
  if (!memcmp(r->theta_new, r->theta_old, (size_t)nt * sizeof(double))) {
    r->th_obj_after = r->th_obj_before;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  r->th_obj_after = r->th_obj_before; /* unless the guard accepts a move (SRRunAcceptTheta_Private) */
  PetscCall(SRRunGuardTheta_Private(r));
  if (part) {
    for (PetscInt i = 0; i < nt; i++) r->th_disp = PetscMax(r->th_disp, PetscAbsReal(r->theta_acc[i] - r->theta_old[i]));
    if (r->th_disp >= 1e-3 * r->h0 && r->th_obj_after < r->th_obj_before) r->th_moves++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
