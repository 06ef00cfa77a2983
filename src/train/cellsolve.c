/* The cell solve of SPEC §4, §8: the bounds and one bound-constrained TAO solve per checkpoint
   interval (theta <-> cells and the objective on theta: theta.c), whose move then goes through
   the guard (guard.c).  theta is solved redundantly on every rank (PETSC_COMM_SELF). */
#include <simreach/private/run.h>
#include <simreach/verify.h>
#include <math.h>
#include <string.h>

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

/* The guard-aware part of a partition's trust region (SPEC §8; docs/cells.md), so
   that TAO solves inside a box of boundaries the guard accepts as a whole.  With E_k the run's
   enclosure of cell k and U_k = [b_{a}, b_{z+1}] (per dimension) the union of C(k) (an index
   box; the sink covers the outside of D), the slack of cell k on each side is
   g = E_k - U_k (clipped to D when the sink is listed; a side where the sink and the edge of D
   meet is unbounded).  The solve may use u = min(g / 2, max(g - h / 4, 0)) of it (h: the
   initial grid spacing of that dimension; SRRunUsableSlack_Private), so that after a move at
   least min(g, h / 4) is left for the network's next steps:
   - an outer face of U_k may move inward by at most u / 2 (interior faces of U_k, and faces
     moving outward, are not limited);
   - cell k grown to its faces' bounds (the box G_k) must have its enclosure E(G_k) within
     u / 2 of E_k on every bounded side.  A cell that fails gets the growth of its faces halved
     (its lower faces' lower bounds and upper faces' upper bounds pulled half-way back to the
     current boundary; once per round however many cells of the slab failed) and is tested
     again; after SR_TR_ROUNDS halvings its faces may only move inward (the enclosure of a sub-box lies in that of the box).
   Halving a face's growth bound moves the other side's bound of no cell, and tighter bounds only
   shrink every G_k and every face's inward range, so cells that passed keep passing.  With an
   inclusion-isotone enclosure every point of the final box then passes the containment test;
   the guard checks the move anyway.  The enclosures are computed on every rank for all cells. */
#define SR_TR_ROUNDS 6
/* The part of a slack s (dimension d) the theta solve may use: at most half of it, and none of
   the last quarter grid spacing (the network's Adam steps need that much to pass the guard). */
static double SRRunUsableSlack_Private(SRRun r, PetscInt d, double s)
{
  const double q = 0.25 * (r->sys->dhi[d] - r->sys->dlo[d]) / (double)r->counts[d];
  return PetscMin(0.5 * s, PetscMax(s - q, 0.0));
}

static PetscErrorCode SRRunPartitionGuardBounds_Private(SRRun r)
{
  const PetscInt         n = r->n, K = r->K;
  double                *E, *lim, *G, *EG;
  SRCellStatus          *st;
  PetscInt               toff[SR_MAX_DIM], q = 0, idx[SR_MAX_DIM], *todo, ntodo = 0;
  PetscBool             *sink, *half_lb, *half_ub;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < n; d++) {
    toff[d] = q - 1; /* boundary i (1..m-1) of dimension d is theta[toff[d] + i] */
    q += r->cells->grid[d] - 1;
  }
  PetscCall(PetscMalloc6(2 * n * K, &E, K, &st, 2 * n * K, &lim, 2 * n * K, &G, 2 * n * K, &EG, K, &todo));
  PetscCall(PetscMalloc1(K, &sink));
  PetscCall(PetscCalloc2(r->ntheta + 1, &half_lb, r->ntheta + 1, &half_ub));
  PetscCall(SREnclosureCompute(r->model, r->enclosure, r->cells, 0, K, E, st));
  for (PetscInt k = 0; k < K; k++) {
    PetscInt        a[SR_MAX_DIM], z[SR_MAX_DIM], nc = 0, nC;
    const PetscInt *Ck;
    PetscCall(SRAbstractionGetCertifiedCell(r->abs, k, &nC, &Ck));
    sink[k] = (PetscBool)(nC > 0 && Ck[nC - 1] >= K);
    for (PetscInt d = 0; d < n; d++) {
      a[d]                 = PETSC_MAX_INT;
      z[d]                 = -1;
      lim[2 * n * k + d]     = -INFINITY;
      lim[2 * n * k + n + d] = INFINITY;
    }
    todo[ntodo++] = k;
    if (st[k] == SR_CELL_NONFINITE) continue; /* cannot be an accepted state; its growth is halved away below */
    for (PetscInt e = 0; e < nC; e++) {
      if (Ck[e] >= K) continue;
      SRCellsIndex(r->cells, Ck[e], idx);
      nc++;
      for (PetscInt d = 0; d < n; d++) {
        a[d] = PetscMin(a[d], idx[d]);
        z[d] = PetscMax(z[d], idx[d]);
      }
    }
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt m  = r->cells->grid[d];
      const double  *b  = r->cells->bnd + r->cells->boff[d];
      const double   lo = sink[k] ? PetscMax(E[2 * n * k + d], r->cells->dlo[d]) : E[2 * n * k + d];
      const double   hi = sink[k] ? PetscMin(E[2 * n * k + n + d], r->cells->dhi[d]) : E[2 * n * k + n + d];
      if (!nc) { /* only the sink: E_k must stay outside D, so no growth at all (clipped E empty) */
        lim[2 * n * k + d]     = INFINITY;
        lim[2 * n * k + n + d] = -INFINITY;
        continue;
      }
      if (!(sink[k] && a[d] == 0)) {
        const double g = SRRunUsableSlack_Private(r, d, PetscMax(lo - b[a[d]], 0.0));
        lim[2 * n * k + d] = lo - 0.5 * g;
        if (a[d] >= 1 && a[d] <= m - 1) { /* lower face b_a may rise by g / 4 */
          const PetscInt t = toff[d] + a[d];
          r->tr_ub[t]      = PetscMax(PetscMin(r->tr_ub[t], b[a[d]] + 0.5 * g), b[a[d]]);
        }
      }
      if (!(sink[k] && z[d] == m - 1)) {
        const double g = SRRunUsableSlack_Private(r, d, PetscMax(b[z[d] + 1] - hi, 0.0));
        lim[2 * n * k + n + d] = hi + 0.5 * g;
        if (z[d] + 1 >= 1 && z[d] + 1 <= m - 1) { /* upper face b_{z+1} may fall by g / 4 */
          const PetscInt t = toff[d] + z[d] + 1;
          r->tr_lb[t]      = PetscMin(PetscMax(r->tr_lb[t], b[z[d] + 1] - 0.5 * g), b[z[d] + 1]);
        }
      }
    }
  }
  for (PetscInt round = 0; round <= SR_TR_ROUNDS && ntodo > 0; round++) {
    PetscInt nfail = 0;
    for (PetscInt i = 0; i < ntodo; i++) { /* G_k: cell k grown to its faces' bounds */
      const PetscInt k = todo[i];
      SRCellsIndex(r->cells, k, idx);
      for (PetscInt d = 0; d < n; d++) {
        const PetscInt m = r->cells->grid[d];
        const double  *b = r->cells->bnd + r->cells->boff[d];
        G[2 * n * i + d]     = idx[d] >= 1 ? r->tr_lb[toff[d] + idx[d]] : b[0];
        G[2 * n * i + n + d] = idx[d] + 1 <= m - 1 ? r->tr_ub[toff[d] + idx[d] + 1] : b[m];
      }
    }
    PetscCall(SREnclosureComputeBoxes(r->model, r->enclosure, ntodo, G, EG, st));
    for (PetscInt i = 0; i < ntodo; i++) {
      const PetscInt k  = todo[i];
      PetscBool      ok = (PetscBool)(st[i] != SR_CELL_NONFINITE);
      for (PetscInt d = 0; d < n && ok; d++) {
        const double lo = sink[k] ? PetscMax(EG[2 * n * i + d], r->cells->dlo[d]) : EG[2 * n * i + d];
        const double hi = sink[k] ? PetscMin(EG[2 * n * i + n + d], r->cells->dhi[d]) : EG[2 * n * i + n + d];
        if (sink[k] && (lo > hi || EG[2 * n * i + d] > r->cells->dhi[d] || EG[2 * n * i + n + d] < r->cells->dlo[d])) continue; /* this side wholly outside D */
        ok = (PetscBool)(lo >= lim[2 * n * k + d] && hi <= lim[2 * n * k + n + d]);
      }
      if (ok) continue;
      todo[nfail++] = k;
      SRCellsIndex(r->cells, k, idx);
      for (PetscInt d = 0; d < n; d++) { /* mark the growth of cell k's faces for halving */
        if (idx[d] >= 1) half_lb[toff[d] + idx[d]] = PETSC_TRUE;
        if (idx[d] + 1 <= r->cells->grid[d] - 1) half_ub[toff[d] + idx[d] + 1] = PETSC_TRUE;
      }
    }
    /* halve each marked bound once per round (a boundary is a face of a whole slab of cells),
       none left after the last round */
    for (PetscInt d = 0; d < n; d++) {
      const double *b = r->cells->bnd + r->cells->boff[d];
      for (PetscInt i = 1; i < r->cells->grid[d]; i++) {
        const PetscInt t = toff[d] + i;
        if (half_lb[t]) r->tr_lb[t] = round == SR_TR_ROUNDS ? b[i] : PetscMin(PetscMax(b[i] + 0.5 * (r->tr_lb[t] - b[i]), r->tr_lb[t]), b[i]);
        if (half_ub[t]) r->tr_ub[t] = round == SR_TR_ROUNDS ? b[i] : PetscMax(PetscMin(b[i] + 0.5 * (r->tr_ub[t] - b[i]), r->tr_ub[t]), b[i]);
        half_lb[t] = half_ub[t] = PETSC_FALSE;
      }
    }
    ntodo = nfail;
  }
  PetscCall(PetscFree6(E, st, lim, G, EG, todo));
  PetscCall(PetscFree(sink));
  PetscCall(PetscFree2(half_lb, half_ub));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The theta update of one checkpoint interval (SPEC §8): a bound-constrained TAO solve (BLMVM,
   which copes with the objective's kinks inside the trust region), then the guard on the whole
   move (SRRunGuardTheta_Private).  Tolerance (set in run.c, -tao_* override it): each solve is
   one trust-region step of a problem whose targets and assignment are frozen only for this
   interval, so it stops at ||g|| <= 1e-2 |f| (-tao_grtol 1e-2) or after -tao_max_it; measured on
   the three default studies it converges in 1198/1200, 360/360 and 166/180 solves, while a
   relative reduction -tao_gttol 1e-2 (always a first step) fails the line search on toy1d
   (docs/cells.md).  For a partition the assignment of the
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
