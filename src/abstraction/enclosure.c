/* Enclosures of f_phi over blocks of cells (SPEC §7, §16): interval, taylor1, their
   intersection (both), crown and affine.  The network's bound over each cell's box is computed in
   src/bounds/ (netinterval.c: the batched midpoint-radius kernel, Rump 1999; nettaylor.c: the
   batched first-order Taylor models, through enclosure_taylor.c; netbox.c: CROWN, the linear
   relaxation with back-substitution that the continuous-time loop uses); this file iterates
   the cells in blocks of SR_ENC_BLOCK, applies the model's tail to the network's bound with
   directed-rounding interval ops (x + N, or the controller's tanh or clip and the true step,
   -control_steps m steps with u held) and sets each cell's status.  crown: CROWN's output
   forms over the cell, their ranges through the interval tail and the forms, as first-order
   Taylor models, through the Taylor tail; the intersection of the two boxes is kept.  affine:
   the same with the forward pass of affine forms through the network (src/bounds/netaffine.c). */
#include <simreach/abstraction.h>
#include <simreach/private/enclosure.h>
#include <simreach/verify.h>

#include <float.h>

const char *const SREnclosureTypes[] = { "interval", "taylor1", "both", "crown", "affine", "SREnclosureType", "SR_ENCLOSURE_", NULL };

/* The model's tail over nb <= SR_ENC_BLOCK cells whose boxes are lo / hi (SoA) from the network's
   bound N_k in [Nlo, Nhi] (SoA, src/bounds/; nf[c] != 0: not finite). */
static void SREncTailInterval_Private(SRModel model, PetscInt nb, const double *lo, const double *hi, const double *Nlo, const double *Nhi, const double *nf, double *E, SRCellStatus *status)
{
  const SRMLP    mlp = model->mlp;
  const PetscInt n   = model->n;

  for (PetscInt c = 0; c < nb; c++) {
    double    *Ec  = E + 2 * n * c;
    PetscBool  fin = PETSC_TRUE;
    SRInterval X[SR_MAX_DIM], Y[SR_MAX_DIM];
    for (PetscInt d = 0; d < n; d++)
      X[d] = SRIntervalMake(lo[d * SR_ENC_BLOCK + c], hi[d * SR_ENC_BLOCK + c]);
    if (model->type == SR_MODEL_DYNAMICS) {
      for (PetscInt d = 0; d < n; d++) {
        const double Nl = Nlo[d * SR_ENC_BLOCK + c], Nh = Nhi[d * SR_ENC_BLOCK + c];
        if (mlp->has_out) Y[d] = SRIntervalAdd(X[d], (SRInterval){Nl, Nh});
        else Y[d] = SRIntervalMake(SRAddDown(X[d].lo, Nl), SRAddUp(X[d].hi, Nh)); /* f = x + N(x) */
      }
    } else {
      SRInterval      U[SR_MAX_DIM];
      const PetscBool clipped = SRModelControlIsClipped(model); /* SPEC §14: imported, u = clip(N) */
      for (PetscInt k = 0; k < model->sys->nu; k++) {
        const SRInterval Nk = SRIntervalMake(Nlo[k * SR_ENC_BLOCK + c], Nhi[k * SR_ENC_BLOCK + c]);
        U[k] = clipped ? SRModelControlInterval(model, clipped, Nk) : SRIntervalScale(model->sys->umax, SRIntervalTanh(Nk));
      }
      SRSystemStepHeldInterval(model->sys, X, U, Y); /* -control_steps: m steps, u held */
    }
    for (PetscInt d = 0; d < n; d++) {
      Ec[d]     = Y[d].lo;
      Ec[n + d] = Y[d].hi;
      fin       = (PetscBool)(fin && isfinite(Y[d].lo) && isfinite(Y[d].hi));
    }
    status[c] = (nf[c] == 0.0 && fin) ? SR_CELL_OK : SR_CELL_NONFINITE;
  }
}

static PetscErrorCode SREnclosureCompute_Private(SRModel model, SREnclosureType type, SRCells cells, const double *boxes, PetscInt kstart, PetscInt kend, double *E, SRCellStatus *status, SRCellModel *cm);

void SREnclosureIntersectBoth(PetscInt n, PetscInt nb, double *Eb, SRCellStatus *sb, const double *Et)
{
  for (PetscInt c = 0; c < nb; c++) {
    const double *Ec  = Et + 2 * n * c;
    PetscBool     fin = PETSC_TRUE;
    for (PetscInt d = 0; d < n; d++)
      fin = (PetscBool)(fin && isfinite(Ec[d]) && isfinite(Ec[n + d]));
    if (fin && sb[c] != SR_CELL_OK) {
      /* interval box non-finite: the Taylor box alone is sound */
      for (PetscInt d = 0; d < 2 * n; d++)
        Eb[2 * n * c + d] = Ec[d];
      sb[c] = SR_CELL_OK;
    } else if (fin) {
      /* intersection of two sound boxes; an empty intersection (impossible for sound operands)
         keeps the interval box */
      for (PetscInt d = 0; d < n; d++) {
        const double l = PetscMax(Eb[2 * n * c + d], Ec[d]), h = PetscMin(Eb[2 * n * c + n + d], Ec[n + d]);
        if (l <= h) {
          Eb[2 * n * c + d]     = l;
          Eb[2 * n * c + n + d] = h;
        }
      }
    }
  }
}

PetscErrorCode SREnclosureCompute(SRModel model, SREnclosureType type, SRCells cells, PetscInt kstart, PetscInt kend, double *E, SRCellStatus *status)
{
  PetscFunctionBeginUser;
  PetscCheck(cells->n == model->n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "cells have dimension %" PetscInt_FMT ", the model %" PetscInt_FMT, cells->n, model->n);
  PetscCheck(0 <= kstart && kstart <= kend && kend <= cells->K, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cell range [%" PetscInt_FMT ", %" PetscInt_FMT ") not within [0, %" PetscInt_FMT ")", kstart, kend, cells->K);
  PetscCall(SREnclosureCompute_Private(model, type, cells, NULL, kstart, kend, E, status, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SREnclosureCompute with type taylor1 or both, and each cell's Taylor model of f_phi (cm: kend -
   kstart of them; cm[c].ok false where the model is not finite). */
PetscErrorCode SREnclosureComputeModels(SRModel model, SREnclosureType type, SRCells cells, PetscInt kstart, PetscInt kend, double *E, SRCellStatus *status, SRCellModel *cm)
{
  PetscFunctionBeginUser;
  PetscCheck(type == SR_ENCLOSURE_TAYLOR1 || type == SR_ENCLOSURE_BOTH, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cell models come with -enclosure taylor1 or both, got %d", (int)type);
  PetscCheck(cells->n == model->n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "cells have dimension %" PetscInt_FMT ", the model %" PetscInt_FMT, cells->n, model->n);
  PetscCheck(0 <= kstart && kstart <= kend && kend <= cells->K, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cell range [%" PetscInt_FMT ", %" PetscInt_FMT ") not within [0, %" PetscInt_FMT ")", kstart, kend, cells->K);
  PetscCall(SREnclosureCompute_Private(model, type, cells, NULL, kstart, kend, E, status, cm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same kernels over nb explicit boxes (row b: lo[0..n) then hi[0..n)), used by verify,
   where no SRCells object of all K cells exists. */
PetscErrorCode SREnclosureComputeBoxes(SRModel model, SREnclosureType type, PetscInt nb, const double *boxes, double *E, SRCellStatus *status)
{
  PetscFunctionBeginUser;
  PetscCheck(nb >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "number of boxes %" PetscInt_FMT " must be >= 0", nb);
  PetscCall(SREnclosureCompute_Private(model, type, NULL, boxes, 0, nb, E, status, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SREnclosureCompute_Private(SRModel model, SREnclosureType type, SRCells cells, const double *boxes, PetscInt kstart, PetscInt kend, double *E, SRCellStatus *status, SRCellModel *cm)
{
  PetscLogEvent      ev;
  const PetscInt     n              = model->n;
  const PetscInt     nout           = model->mlp->width[model->mlp->nlayers];
  PetscBool          finite_weights = PETSC_TRUE;
  SRNetIntervalBatch ib             = NULL;
  SRNetBoxBatch      cb             = NULL;
  SRTMBatch          tb             = NULL;
  double            *Et = NULL, *lo = NULL, *hi = NULL, *Nlo = NULL, *Nhi = NULL, *nf = NULL;
  SRTaylor          *Nt = NULL;

  PetscFunctionBeginUser;
  PetscCheck(type == SR_ENCLOSURE_INTERVAL || type == SR_ENCLOSURE_TAYLOR1 || type == SR_ENCLOSURE_BOTH || type == SR_ENCLOSURE_CROWN || type == SR_ENCLOSURE_AFFINE, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-enclosure %d: allowed interval, taylor1, both, crown, affine", (int)type);
  PetscCall(PetscLogEventRegister("SREnclosure", PETSC_OBJECT_CLASSID, &ev)); /* returns the existing id after the first call */
  PetscCall(PetscLogEventBegin(ev, 0, 0, 0, 0));
  for (PetscInt p = 0; p < model->mlp->nparams; p++)
    if (!isfinite(model->mlp->params[p])) finite_weights = PETSC_FALSE;
  if (!finite_weights) {
    for (PetscInt k = kstart; k < kend; k++) {
      for (PetscInt d = 0; d < n; d++) {
        E[2 * n * (k - kstart) + d]     = -INFINITY;
        E[2 * n * (k - kstart) + n + d] = INFINITY;
      }
      status[k - kstart] = SR_CELL_NONFINITE;
      if (cm) cm[k - kstart].ok = PETSC_FALSE;
    }
    PetscCall(PetscLogEventEnd(ev, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (SRModelIsLoop(model)) { /* a plant file's closed loop: every cell through plantstep.c (SPEC §16) */
    PetscCheck(!cm, PETSC_COMM_SELF, PETSC_ERR_SUP, "the cell models of taylor1 (SPEC §7) are not defined for the closed loop of plant file %s (its input and control lines)", model->sys->plant_path);
    PetscCall(SREnclosureLoop(model, type, cells, boxes, kstart, kend, E, status));
    PetscCall(PetscLogEventEnd(ev, 0, 0, 0, 0));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscMalloc5(n * SR_ENC_BLOCK, &lo, n * SR_ENC_BLOCK, &hi, nout * SR_ENC_BLOCK, &Nlo, nout * SR_ENC_BLOCK, &Nhi, SR_ENC_BLOCK, &nf));
  if (type == SR_ENCLOSURE_INTERVAL || type == SR_ENCLOSURE_BOTH) PetscCall(SRNetIntervalBatchCreate(model->mlp, &ib));
  if (type == SR_ENCLOSURE_TAYLOR1 || type == SR_ENCLOSURE_BOTH) PetscCall(SRTMBatchCreate(model, &tb));
  if (type == SR_ENCLOSURE_CROWN || type == SR_ENCLOSURE_AFFINE) {
    PetscCall(SRNetBoxBatchCreate(model->mlp, type == SR_ENCLOSURE_CROWN ? SR_NET_CROWN : SR_NET_FORWARD, &cb));
    PetscCall(PetscMalloc1(SR_MAX_DIM * SR_ENC_BLOCK, &Nt));
  }
  if (type == SR_ENCLOSURE_BOTH || cb) PetscCall(PetscMalloc1(2 * n * SR_ENC_BLOCK, &Et));
  for (PetscInt k0 = kstart; k0 < kend; k0 += SR_ENC_BLOCK) {
    const PetscInt nb = PetscMin((PetscInt)SR_ENC_BLOCK, kend - k0);
    double        *Eb = E + 2 * n * (k0 - kstart);
    SRCellStatus  *sb = status + (k0 - kstart);
    for (PetscInt c = 0; c < SR_ENC_BLOCK; c++) {
      double l[SR_MAX_DIM], h[SR_MAX_DIM];
      if (boxes) { /* pad with the last box */
        const double *bx = boxes + 2 * n * (k0 + PetscMin(c, nb - 1));
        for (PetscInt d = 0; d < n; d++) {
          l[d] = bx[d];
          h[d] = bx[n + d];
        }
      } else SRCellsBoxOuter(cells, k0 + PetscMin(c, nb - 1), l, h); /* pad with the last cell */
      for (PetscInt d = 0; d < n; d++) {
        lo[d * SR_ENC_BLOCK + c] = l[d];
        hi[d * SR_ENC_BLOCK + c] = h[d];
      }
    }
    if (ib) {
      SRNetIntervalBatchEnclose(ib, lo, hi, Nlo, Nhi, nf); /* src/bounds/netinterval.c */
      SREncTailInterval_Private(model, nb, lo, hi, Nlo, Nhi, nf, Eb, sb);
    }
    if (cb) {
      /* CROWN's (or the forward pass's) output forms (src/bounds/netbox.c): their ranges through the interval step, the
         forms themselves through the Taylor step (SPEC §7: they are first-order Taylor models
         of the network in the cell's coordinates); both boxes are sound, the intersection kept */
      SRNetBoxBatchEnclose(cb, nb, lo, hi, Nlo, Nhi, nf, Nt);
      SREncTailInterval_Private(model, nb, lo, hi, Nlo, Nhi, nf, Eb, sb);
      for (PetscInt c = 0; c < nb; c++) {
        double  *Ec = Et + 2 * n * c, l[SR_MAX_DIM], h[SR_MAX_DIM];
        SRTaylor X[SR_MAX_DIM];
        if (nf[c] != 0.0) {
          for (PetscInt d = 0; d < 2 * n; d++) Ec[d] = NAN;
          continue;
        }
        for (PetscInt d = 0; d < n; d++) {
          l[d] = lo[d * SR_ENC_BLOCK + c];
          h[d] = hi[d * SR_ENC_BLOCK + c];
        }
        SRTaylorBoxVariables_Private(n, l, h, X);
        PetscCall(SRModelTaylorTail_Private(model, X, Nt + c * SR_MAX_DIM, Ec, Ec + n, NULL));
      }
      SREnclosureIntersectBoth(n, nb, Eb, sb, Et);
    }
    if (tb) {
      double *Eo = type == SR_ENCLOSURE_BOTH ? Et : Eb;
      PetscCall(SRTMBatchEnclose(tb, nb, lo, hi, Eo, cm ? cm + (k0 - kstart) : NULL)); /* src/abstraction/enclosure_taylor.c */
      if (type == SR_ENCLOSURE_TAYLOR1)
        for (PetscInt c = 0; c < nb; c++) {
          PetscBool fin = PETSC_TRUE;
          for (PetscInt d = 0; d < n; d++) fin = (PetscBool)(fin && isfinite(Eb[2 * n * c + d]) && isfinite(Eb[2 * n * c + n + d]));
          sb[c] = fin ? SR_CELL_OK : SR_CELL_NONFINITE;
        }
      else SREnclosureIntersectBoth(n, nb, Eb, sb, Et);
    }
    for (PetscInt c = 0; c < nb; c++)
      if (sb[c] == SR_CELL_NONFINITE)
        for (PetscInt d = 0; d < n; d++) {
          Eb[2 * n * c + d]     = -INFINITY;
          Eb[2 * n * c + n + d] = INFINITY;
        }
  }
  PetscCall(PetscLogFlops((ib ? SRNetIntervalBatchFlops(ib) : 0) * (kend - kstart) + (tb ? (double)(2 * (n + 3) * model->mlp->nparams) * (kend - kstart) : 0)));
  PetscCall(PetscFree(Et));
  PetscCall(PetscFree(Nt));
  PetscCall(SRTMBatchDestroy(&tb));
  PetscCall(SRNetBoxBatchDestroy(&cb));
  PetscCall(SRNetIntervalBatchDestroy(&ib));
  PetscCall(PetscFree5(lo, hi, Nlo, Nhi, nf));
  PetscCall(PetscLogEventEnd(ev, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
