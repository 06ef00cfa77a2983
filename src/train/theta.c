/* theta, the parameters of the cells (SPEC §4, §8): theta <-> cells, the TAO objective and
   gradient on theta, and the clamp onto its bounds.  Moved down from src/train/cellsolve.c: the
   cell solve (cellsolve.c) and the guard (guard.c) both use them, and the guard no longer
   reaches into the cell solve. */
#include <simreach/private/run.h>
#include <simreach/verify.h>
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

/* The start of both theta objectives: the candidate cells set from X, G's nt entries zeroed
   (its array handed out in *g, restored by the caller), and the targets. */
static PetscErrorCode SRRunThetaObjectiveBegin_Private(SRRun r, Vec X, Vec G, PetscInt nt, double **g, const SRSuccessorList **T)
{
  const double *x;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(X, &x));
  PetscCall(SRRunThetaSet_Private(r, r->cand, x));
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(VecGetArray(G, g));
  for (PetscInt i = 0; i < nt; i++) (*g)[i] = 0;
  PetscCall(SRRunLossTargets_Private(r, T));
  PetscFunctionReturn(PETSC_SUCCESS);
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
   differences (tests/abstraction/test_partition.c checks the whole gradient against central differences
   of this objective). */
PetscErrorCode SRRunThetaObjectivePartition_Private(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx)
{
  SRRun                  r = (SRRun)ctx;
  const PetscInt         nt = r->ntheta, N = r->nsamples;
  double                *g, obj = 0, *gt = r->theta_g;
  const SRSuccessorList *T;

  PetscFunctionBeginUser;
  PetscCall(SRRunThetaObjectiveBegin_Private(r, X, G, nt, &g, &T));
  if (r->beta > 0 && SRLossHasSim(r->loss)) {
    SRLossValues val;
    PetscCall(SRLossSimFrozen(r->cand, T, &r->par, N, r->Xtr, r->Y, r->hat, &val, r->dtheta));
    obj += r->beta * val.Lsim;
    SRCellsPartitionThetaGradient(r->cand, r->dtheta, gt);
    for (PetscInt i = 0; i < nt; i++) g[i] += r->beta * gt[i];
  }
  if (r->beta > 0 && SRLossHasEncl(r->loss)) {
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
PetscErrorCode SRRunThetaObjective_Private(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx)
{
  SRRun                  r = (SRRun)ctx;
  const PetscInt         n = r->n, K = r->K, nK = n * K, N = r->nsamples;
  double                *g, obj = 0;
  const SRSuccessorList *T;

  PetscFunctionBeginUser;
  PetscCall(SRRunThetaObjectiveBegin_Private(r, X, G, 2 * nK, &g, &T));
  if (r->beta > 0 && SRLossHasSim(r->loss)) {
    SRLossValues val;
    PetscCall(SRLossSim(r->cand, T, &r->par, N, r->Xtr, r->Y, &val, NULL, r->dtheta));
    obj = r->beta * val.Lsim;
    for (PetscInt i = 0; i < 2 * nK; i++) g[i] = r->beta * r->dtheta[i];
  }
  if (r->beta > 0 && SRLossHasEncl(r->loss)) {
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
