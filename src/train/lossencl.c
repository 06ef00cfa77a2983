/* The enclosure-aware loss L_encl of SPEC §6 and its gradient through the interval forward pass.

   Per cell: the box [c - w, c + w] in midpoint-radius form (a, r) goes through the MLP as in
   interval bound propagation:
       affine:  z_m = W a + b,  z_r = |W| r
       tanh:    l = z_m - z_r, h = z_m + z_r,  a' = (tanh h + tanh l) / 2,  r' = (tanh h - tanh l) / 2
   and the last layer gives N in [z_m - z_r, z_m + z_r].  dynamics: E = [lo + N_lo, hi + N_hi];
   controller: U = umax tanh([N_lo, N_hi]) (monotone) and E = the held interval step of the
   plant over (X, U).  Reverse mode runs the same recurrences backwards (d|W|/dW = sign W).
   An imported network (SPEC §14: any monotone activation, input/output transforms, the control
   u = clip(N, -umax, umax)) has the forward pass (the L_encl column of the checkpoints) but no
   gradient: -init_network trains with -loss sim, -volume_weight 0 (the run's options refuse others).
   Round-to-nearest throughout: this copy of E_k is for the gradient only (see lossencl.h). */
#include <simreach/lossencl.h>

const char *const SRLossTypes[] = { "sim", "encl", "sim+encl", "width1", "SRLossType", "SR_LOSS_", NULL };

typedef struct {
  SRModel  model;
  SRMLP    mlp;
  PetscInt L, mw;
  double  *am, *ar, *tl, *th; /* (L + 1) x mw: layer inputs (a, r); tanh at l, h of hidden layers */
  double  *zm, *zr;           /* last layer's z_m, z_r */
  double  *gm, *gr, *gm2, *gr2;
  PetscBool own, clipped; /* simreach's own network (the gradient needs it); u = clip(N) (SPEC §14) */
} SREnclPass_Private;

/* A monotone activation at a point (SPEC §14): the pass maps [l, h] to [a(l), a(h)]. */
static double SREnclAct_Private(SRActivation a, double z)
{
  switch (a) {
  case SR_ACT_TANH:
    return tanh(z);
  case SR_ACT_RELU:
    return z > 0 ? z : 0.0;
  case SR_ACT_SIGMOID:
    return 1.0 / (1.0 + exp(-z));
  default:
    return z;
  }
}

/* The last layer's activation and output transform of an imported network (SPEC §14) on the
   midpoint-radius pair (value only: -loss encl's gradient is for simreach's own networks). */
static void SREnclOutput_Private(SRMLP mlp, PetscInt i, double *zm, double *zr)
{
  const SRActivation a = mlp->act[mlp->nlayers - 1];
  if (a != SR_ACT_LINEAR) {
    const double l = SREnclAct_Private(a, *zm - *zr), h = SREnclAct_Private(a, *zm + *zr);
    *zm = 0.5 * (h + l);
    *zr = 0.5 * (h - l);
  }
  if (mlp->has_out) {
    *zm = *zm * mlp->outscale[i] + mlp->outoffset[i];
    *zr = *zr * fabs(mlp->outscale[i]);
  }
}

/* E (2n: lo then hi) of the training pass over [lo, hi]; keeps what the backward pass needs. */
static void SREnclForward_Private(SREnclPass_Private *p, const double *lo, const double *hi, double *E, double *Ulo, double *Uhi)
{
  const SRMLP    mlp = p->mlp;
  const PetscInt n = p->model->n, mw = p->mw;
  SRSystem       sys = p->model->sys;

  for (PetscInt d = 0; d < n; d++) {
    const SRInterval z = mlp->has_in ? SRMLPInputInterval(mlp, d, SRIntervalMake(lo[d], hi[d])) : SRIntervalMake(lo[d], hi[d]);
    p->am[d]           = 0.5 * (z.lo + z.hi);
    p->ar[d]           = 0.5 * (z.hi - z.lo);
  }
  for (PetscInt l = 0; l < p->L; l++) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
    const double  *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];
    const double  *a = p->am + l * mw, *r = p->ar + l * mw;
    for (PetscInt i = 0; i < wout; i++) {
      double zm = b[i], zr = 0.0;
      for (PetscInt j = 0; j < win; j++) {
        zm += W[i * win + j] * a[j];
        zr += fabs(W[i * win + j]) * r[j];
      }
      if (l < p->L - 1) {
        const double tl = SREnclAct_Private(mlp->act[l], zm - zr), th = SREnclAct_Private(mlp->act[l], zm + zr);
        p->tl[l * mw + i]       = tl;
        p->th[l * mw + i]       = th;
        p->am[(l + 1) * mw + i] = 0.5 * (th + tl);
        p->ar[(l + 1) * mw + i] = 0.5 * (th - tl);
      } else {
        if (!p->own) SREnclOutput_Private(mlp, i, &zm, &zr);
        p->zm[i] = zm;
        p->zr[i] = zr;
      }
    }
  }
  if (p->model->type == SR_MODEL_DYNAMICS) {
    for (PetscInt d = 0; d < n; d++) {
      E[d]     = lo[d] + (p->zm[d] - p->zr[d]);
      E[n + d] = hi[d] + (p->zm[d] + p->zr[d]);
    }
  } else {
    SRInterval X[SR_MAX_DIM], U[SR_MAX_DIM], Y[SR_MAX_DIM];
    for (PetscInt d = 0; d < n; d++) X[d] = SRIntervalMake(lo[d], hi[d]);
    for (PetscInt j = 0; j < sys->nu; j++) {
      Ulo[j] = SRModelControlPoint(p->model, p->clipped, p->zm[j] - p->zr[j], NULL); /* monotone */
      Uhi[j] = SRModelControlPoint(p->model, p->clipped, p->zm[j] + p->zr[j], NULL);
      U[j]   = SRIntervalMake(Ulo[j], Uhi[j]);
    }
    SRSystemStepHeldInterval(sys, X, U, Y);
    for (PetscInt d = 0; d < n; d++) {
      E[d]     = Y[d].lo;
      E[n + d] = Y[d].hi;
    }
  }
}

/* The held interval step with control bounds (ulo, uhi) of control j replaced; E (2n). */
static void SREnclPlant_Private(SRSystem sys, const double *lo, const double *hi, const double *Ulo, const double *Uhi, PetscInt j, double ulo, double uhi, double *E)
{
  SRInterval X[SR_MAX_DIM], U[SR_MAX_DIM], Y[SR_MAX_DIM];
  for (PetscInt d = 0; d < sys->n; d++) X[d] = SRIntervalMake(lo[d], hi[d]);
  for (PetscInt i = 0; i < sys->nu; i++) U[i] = i == j ? SRIntervalMake(ulo, uhi) : SRIntervalMake(Ulo[i], Uhi[i]);
  SRSystemStepHeldInterval(sys, X, U, Y);
  for (PetscInt d = 0; d < sys->n; d++) {
    E[d]           = Y[d].lo;
    E[sys->n + d] = Y[d].hi;
  }
}

/* dE/d(bound) by central differences, one-sided where the interval would turn over. */
static void SREnclPlantDerivative_Private(SRSystem sys, const double *lo, const double *hi, const double *Ulo, const double *Uhi, PetscInt j, PetscBool upper, double *dE)
{
  const PetscInt n = sys->n;
  const double   h = 1e-6 * PetscMax(1.0, sys->umax);
  double         Ep[2 * SR_MAX_DIM], Em[2 * SR_MAX_DIM], a, b;

  if (!upper) {
    a = Ulo[j] - h;
    b = PetscMin(Ulo[j] + h, Uhi[j]);
    SREnclPlant_Private(sys, lo, hi, Ulo, Uhi, j, b, Uhi[j], Ep);
    SREnclPlant_Private(sys, lo, hi, Ulo, Uhi, j, a, Uhi[j], Em);
  } else {
    a = PetscMax(Uhi[j] - h, Ulo[j]);
    b = Uhi[j] + h;
    SREnclPlant_Private(sys, lo, hi, Ulo, Uhi, j, Ulo[j], b, Ep);
    SREnclPlant_Private(sys, lo, hi, Ulo, Uhi, j, Ulo[j], a, Em);
  }
  for (PetscInt d = 0; d < 2 * n; d++) dE[d] = (Ep[d] - Em[d]) / (b - a);
}

/* dE/d(bound) of the held interval step w.r.t. state bound d (lower or upper) by central
   differences, one-sided where the interval would turn over. */
static void SREnclPlantStateDerivative_Private(SRSystem sys, const double *lo, const double *hi, const double *Ulo, const double *Uhi, PetscInt d, PetscBool upper, double *dE)
{
  const PetscInt n = sys->n;
  const double   h = 1e-6 * PetscMax(1.0, PetscMax(PetscAbsReal(lo[d]), PetscAbsReal(hi[d])));
  double         Ep[2 * SR_MAX_DIM], Em[2 * SR_MAX_DIM], xl[SR_MAX_DIM], xh[SR_MAX_DIM], a, b;

  for (PetscInt e = 0; e < n; e++) {
    xl[e] = lo[e];
    xh[e] = hi[e];
  }
  if (!upper) {
    a = lo[d] - h;
    b = PetscMin(lo[d] + h, hi[d]);
    xl[d] = b;
    SREnclPlant_Private(sys, xl, xh, Ulo, Uhi, 0, Ulo[0], Uhi[0], Ep);
    xl[d] = a;
    SREnclPlant_Private(sys, xl, xh, Ulo, Uhi, 0, Ulo[0], Uhi[0], Em);
  } else {
    a = PetscMax(hi[d] - h, lo[d]);
    b = hi[d] + h;
    xh[d] = b;
    SREnclPlant_Private(sys, xl, xh, Ulo, Uhi, 0, Ulo[0], Uhi[0], Ep);
    xh[d] = a;
    SREnclPlant_Private(sys, xl, xh, Ulo, Uhi, 0, Ulo[0], Uhi[0], Em);
  }
  for (PetscInt e = 0; e < 2 * n; e++) dE[e] = (Ep[e] - Em[e]) / (b - a);
}

/* Reverse mode of the pass for cell box [lo, hi], given gE = dL/dE (2n): grad (nparams) +=
   dL/dphi when grad is non-NULL; gx (2n: dL/dlo then dL/dhi) = the derivative w.r.t. the box
   when gx is non-NULL (the network part exactly by reverse mode; in controller mode the plant's
   direct dependence on the state bounds by central differences, as for the control bounds). */
static void SREnclBackward_Private(SREnclPass_Private *p, const double *lo, const double *hi, const double *Ulo, const double *Uhi, const double *gE, double *grad, double *gx)
{
  const SRMLP    mlp = p->mlp;
  const PetscInt n = p->model->n, mw = p->mw, nout = mlp->width[p->L];
  SRSystem       sys = p->model->sys;
  double        *gm = p->gm, *gr = p->gr, *gm2 = p->gm2, *gr2 = p->gr2;

  /* dL/d N_lo, dL/d N_hi of the last layer -> dL/dz_m, dL/dz_r */
  if (gx)
    for (PetscInt d = 0; d < 2 * n; d++) gx[d] = 0.0;
  if (p->model->type == SR_MODEL_DYNAMICS) {
    for (PetscInt d = 0; d < n; d++) {
      gm[d] = gE[d] + gE[n + d];
      gr[d] = gE[n + d] - gE[d];
      if (gx) { /* E = [lo + N_lo, hi + N_hi] */
        gx[d] += gE[d];
        gx[n + d] += gE[n + d];
      }
    }
  } else {
    if (gx)
      for (PetscInt d = 0; d < n; d++) {
        double dlo[2 * SR_MAX_DIM], dhi[2 * SR_MAX_DIM];
        SREnclPlantStateDerivative_Private(sys, lo, hi, Ulo, Uhi, d, PETSC_FALSE, dlo);
        SREnclPlantStateDerivative_Private(sys, lo, hi, Ulo, Uhi, d, PETSC_TRUE, dhi);
        for (PetscInt e = 0; e < 2 * n; e++) {
          gx[d] += gE[e] * dlo[e];
          gx[n + d] += gE[e] * dhi[e];
        }
      }
    for (PetscInt j = 0; j < nout; j++) {
      double dlo[2 * SR_MAX_DIM], dhi[2 * SR_MAX_DIM], gUlo = 0.0, gUhi = 0.0, glo, ghi;
      SREnclPlantDerivative_Private(sys, lo, hi, Ulo, Uhi, j, PETSC_FALSE, dlo);
      SREnclPlantDerivative_Private(sys, lo, hi, Ulo, Uhi, j, PETSC_TRUE, dhi);
      for (PetscInt d = 0; d < 2 * n; d++) {
        gUlo += gE[d] * dlo[d];
        gUhi += gE[d] * dhi[d];
      }
      {
        const double tl = tanh(p->zm[j] - p->zr[j]), th = tanh(p->zm[j] + p->zr[j]);
        glo = gUlo * sys->umax * (1.0 - tl * tl);
        ghi = gUhi * sys->umax * (1.0 - th * th);
      }
      gm[j] = glo + ghi;
      gr[j] = ghi - glo;
    }
  }
  for (PetscInt l = p->L - 1; l >= 0; l--) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
    const double  *W = mlp->params + mlp->woff[l];
    const double  *a = p->am + l * mw, *r = p->ar + l * mw;
    double        *gW = grad ? grad + mlp->woff[l] : NULL, *gb = grad ? grad + mlp->boff[l] : NULL, *t;

    for (PetscInt j = 0; j < win; j++) gm2[j] = gr2[j] = 0.0;
    for (PetscInt i = 0; i < wout; i++) {
      if (gb) gb[i] += gm[i];
      for (PetscInt j = 0; j < win; j++) {
        const double w = W[i * win + j], s = w > 0 ? 1.0 : (w < 0 ? -1.0 : 0.0);
        if (gW) gW[i * win + j] += gm[i] * a[j] + s * gr[i] * r[j];
        gm2[j] += w * gm[i];
        gr2[j] += fabs(w) * gr[i];
      }
    }
    if (l == 0) {
      if (gx) /* the input (a, r) = ((lo + hi) / 2, (hi - lo) / 2) */
        for (PetscInt d = 0; d < n; d++) {
          gx[d] += 0.5 * (gm2[d] - gr2[d]);
          gx[n + d] += 0.5 * (gm2[d] + gr2[d]);
        }
      break;
    }
    /* (a, r) of layer l came from tanh at (l, h) of layer l - 1 */
    for (PetscInt j = 0; j < win; j++) {
      const double tl = p->tl[(l - 1) * mw + j], th = p->th[(l - 1) * mw + j];
      const double gth = 0.5 * (gm2[j] + gr2[j]) * (1.0 - th * th), gtl = 0.5 * (gm2[j] - gr2[j]) * (1.0 - tl * tl);
      gm2[j] = gtl + gth;
      gr2[j] = gth - gtl;
    }
    t   = gm;
    gm  = gm2;
    gm2 = t;
    t   = gr;
    gr  = gr2;
    gr2 = t;
  }
}

static PetscErrorCode SREnclPassCreate_Private(SRModel model, SREnclPass_Private *p)
{
  PetscFunctionBeginUser;
  p->model = model;
  p->mlp   = model->mlp;
  p->L     = model->mlp->nlayers;
  p->mw    = model->mlp->maxwidth;
  p->own     = SRMLPIsDefault(model->mlp);
  p->clipped = SRModelControlIsClipped(model);
  PetscCall(PetscMalloc6((p->L + 1) * p->mw, &p->am, (p->L + 1) * p->mw, &p->ar, p->L * p->mw, &p->tl, p->L * p->mw, &p->th, p->mw, &p->zm, p->mw, &p->zr));
  PetscCall(PetscMalloc4(p->mw, &p->gm, p->mw, &p->gr, p->mw, &p->gm2, p->mw, &p->gr2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SREnclPassDestroy_Private(SREnclPass_Private *p)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree4(p->gm, p->gr, p->gm2, p->gr2));
  PetscCall(PetscFree6(p->am, p->ar, p->tl, p->th, p->zm, p->zr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* gcw (2nK: d/dc then d/dw, the SPEC §4 layout) += the face derivatives gx (2n: d/dlo, d/dhi)
   of cell k (lo = c - w, hi = c + w). */
static void SREnclFacesToCW_Private(PetscInt n, PetscInt K, PetscInt k, const double *gx, double *gcw)
{
  for (PetscInt d = 0; d < n; d++) {
    gcw[k * n + d] += gx[d] + gx[n + d];
    gcw[n * K + k * n + d] += gx[n + d] - gx[d];
  }
}

/* v_d = max(E.hi - B.hi, 0) + max(B.lo - E.lo, 0); e = ||v||_p; dv (n) = de/dv. */
static double SREnclExcess_Private(SRNorm p, PetscInt n, const double *E, const double *blo, const double *bhi, double *v, double *dv)
{
  double e = 0.0;
  for (PetscInt d = 0; d < n; d++) v[d] = PetscMax(E[n + d] - bhi[d], 0.0) + PetscMax(blo[d] - E[d], 0.0);
  for (PetscInt d = 0; d < n; d++) dv[d] = 0.0;
  if (p == SR_NORM_1) {
    for (PetscInt d = 0; d < n; d++) {
      e += v[d];
      dv[d] = 1.0;
    }
  } else if (p == SR_NORM_2) {
    for (PetscInt d = 0; d < n; d++) e += v[d] * v[d];
    e = sqrt(e);
    if (e > 0)
      for (PetscInt d = 0; d < n; d++) dv[d] = v[d] / e;
  } else {
    PetscInt dm = 0;
    for (PetscInt d = 1; d < n; d++)
      if (v[d] > v[dm]) dm = d;
    e      = v[dm];
    dv[dm] = 1.0;
  }
  return e;
}

/* The forward pass of SRLossEncl and SRLossEnclCells (SPEC §6), every cell k: E_k with its saved
   pre-activations (ulo, uhi), the hull B_k = [blo, bhi] of the non-sink boxes of T(k), the cells
   whose faces attain it (jlo, jhi; NULL when not wanted) and e_k (0 when T(k) is the sink alone). */
static PetscErrorCode SREnclForwardCells_Private(SREnclPass_Private *p, SRCells cells, const SRSuccessorList *T, double *E, double *ulo, double *uhi, double *blo, double *bhi, PetscInt *jlo, PetscInt *jhi, double *e)
{
  const PetscInt  n = cells->n, K = cells->K;
  PetscInt       *scr = NULL, scap = 0, nt;
  const PetscInt *Tk;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < K; k++) {
    double   lo[SR_MAX_DIM], hi[SR_MAX_DIM], v[SR_MAX_DIM], dv[SR_MAX_DIM];
    PetscInt nb = 0;
    for (PetscInt d = 0; d < n; d++) {
      lo[d]          = cells->c[k * n + d] - cells->w[k * n + d];
      hi[d]          = cells->c[k * n + d] + cells->w[k * n + d];
      blo[k * n + d] = INFINITY;
      bhi[k * n + d] = -INFINITY;
      if (jlo) jlo[k * n + d] = jhi[k * n + d] = -1;
    }
    PetscCall(SRSuccessorListGet(T, k, &scr, &scap, &nt, &Tk));
    for (PetscInt t = 0; t < nt; t++) {
      const PetscInt j = Tk[t];
      if (j >= K) continue;
      nb++;
      for (PetscInt d = 0; d < n; d++) {
        const double a = cells->c[j * n + d] - cells->w[j * n + d], b = cells->c[j * n + d] + cells->w[j * n + d];
        if (a < blo[k * n + d]) {
          blo[k * n + d] = a;
          if (jlo) jlo[k * n + d] = j;
        }
        if (b > bhi[k * n + d]) {
          bhi[k * n + d] = b;
          if (jhi) jhi[k * n + d] = j;
        }
      }
    }
    SREnclForward_Private(p, lo, hi, E + 2 * n * k, ulo + SR_MAX_DIM * k, uhi + SR_MAX_DIM * k);
    e[k] = nb ? SREnclExcess_Private(cells->p, n, E + 2 * n * k, blo + n * k, bhi + n * k, v, dv) : 0.0;
  }
  PetscCall(PetscFree(scr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRLossEncl(SRModel model, SRCells cells, const SRSuccessorList *T, double tau, double scale, double *L, double *grad, double *eout)
{
  const PetscInt     n = model->n, K = cells->K;
  SREnclPass_Private p;
  double            *e, *w, *E, *blo, *bhi, *ulo, *uhi;
  PetscLogEvent      ev;

  PetscFunctionBeginUser;
  PetscCheck(cells->n == n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "cells have dimension %" PetscInt_FMT ", the model %" PetscInt_FMT, cells->n, n);
  PetscCheck(T->K == K, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "target lists for %" PetscInt_FMT " cells, the cells %" PetscInt_FMT, T->K, K);
  PetscCheck(tau > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-tau %g: must be > 0", tau);
  PetscCall(PetscLogEventRegister("SRLossEncl", PETSC_OBJECT_CLASSID, &ev));
  PetscCall(PetscLogEventBegin(ev, 0, 0, 0, 0));
  PetscCall(SREnclPassCreate_Private(model, &p));
  PetscCall(PetscMalloc5(K, &e, K, &w, 2 * n * K, &E, n * K, &blo, n * K, &bhi));
  PetscCall(PetscMalloc2(SR_MAX_DIM * K, &ulo, SR_MAX_DIM * K, &uhi));
  /* forward: E_k, the hull B_k of T(k)'s non-sink boxes, e_k */
  PetscCall(SREnclForwardCells_Private(&p, cells, T, E, ulo, uhi, blo, bhi, NULL, NULL, e));
  *L = SRSoftmax(K, e, tau, w);
  if (eout) PetscCall(PetscArraycpy(eout, e, K));
  if (grad) {
    PetscCheck(p.own, PETSC_COMM_SELF, PETSC_ERR_SUP, "the gradient of L_encl (-loss encl, sim+encl) is written for simreach's own tanh networks; an imported network (-init_network, SPEC §14) trains with -loss sim");
    for (PetscInt k = 0; k < K; k++) {
      double   lo[SR_MAX_DIM], hi[SR_MAX_DIM], v[SR_MAX_DIM], dv[SR_MAX_DIM], gE[2 * SR_MAX_DIM], Ek[2 * SR_MAX_DIM];
      PetscBool any = PETSC_FALSE;
      if (!(e[k] > 0) || w[k] == 0.0) continue;
      for (PetscInt d = 0; d < n; d++) {
        lo[d] = cells->c[k * n + d] - cells->w[k * n + d];
        hi[d] = cells->c[k * n + d] + cells->w[k * n + d];
      }
      (void)SREnclExcess_Private(cells->p, n, E + 2 * n * k, blo + n * k, bhi + n * k, v, dv);
      for (PetscInt d = 0; d < n; d++) {
        const double s = scale * w[k] * dv[d];
        gE[n + d]      = E[2 * n * k + n + d] > bhi[k * n + d] ? s : 0.0;
        gE[d]          = blo[k * n + d] > E[2 * n * k + d] ? -s : 0.0;
        any            = (PetscBool)(any || gE[d] != 0.0 || gE[n + d] != 0.0);
      }
      if (!any) continue;
      SREnclForward_Private(&p, lo, hi, Ek, ulo + SR_MAX_DIM * k, uhi + SR_MAX_DIM * k); /* the cache of cell k */
      SREnclBackward_Private(&p, lo, hi, ulo + SR_MAX_DIM * k, uhi + SR_MAX_DIM * k, gE, grad, NULL);
    }
  }
  PetscCall(PetscFree2(ulo, uhi));
  PetscCall(PetscFree5(e, w, E, blo, bhi));
  PetscCall(SREnclPassDestroy_Private(&p));
  PetscCall(PetscLogEventEnd(ev, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRLossEnclCells(SRModel model, SRCells cells, const SRSuccessorList *T, double tau, double *L, double *gcw)
{
  const PetscInt     n = model->n, K = cells->K;
  SREnclPass_Private p;
  double            *e, *w, *E, *blo, *bhi, *ulo, *uhi;
  PetscInt          *jlo, *jhi;

  PetscFunctionBeginUser;
  PetscCheck(cells->n == n && T->K == K, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "SRLossEnclCells: cells, model and target lists do not match");
  PetscCheck(tau > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-tau %g: must be > 0", tau);
  PetscCall(SREnclPassCreate_Private(model, &p));
  PetscCall(PetscMalloc5(K, &e, K, &w, 2 * n * K, &E, n * K, &blo, n * K, &bhi));
  PetscCall(PetscMalloc4(SR_MAX_DIM * K, &ulo, SR_MAX_DIM * K, &uhi, n * K, &jlo, n * K, &jhi));
  PetscCall(SREnclForwardCells_Private(&p, cells, T, E, ulo, uhi, blo, bhi, jlo, jhi, e));
  *L = SRSoftmax(K, e, tau, w);
  if (gcw) {
    PetscCheck(p.own, PETSC_COMM_SELF, PETSC_ERR_SUP, "the gradient of L_encl (-loss encl, sim+encl) is written for simreach's own tanh networks; an imported network (-init_network, SPEC §14) trains with -loss sim");
    for (PetscInt i = 0; i < 2 * n * K; i++) gcw[i] = 0.0;
    for (PetscInt k = 0; k < K; k++) {
      double    lo[SR_MAX_DIM], hi[SR_MAX_DIM], v[SR_MAX_DIM], dv[SR_MAX_DIM], gE[2 * SR_MAX_DIM], gx[2 * SR_MAX_DIM], Ek[2 * SR_MAX_DIM];
      PetscBool any = PETSC_FALSE;
      if (!(e[k] > 0) || w[k] == 0.0) continue;
      for (PetscInt d = 0; d < n; d++) {
        lo[d] = cells->c[k * n + d] - cells->w[k * n + d];
        hi[d] = cells->c[k * n + d] + cells->w[k * n + d];
      }
      (void)SREnclExcess_Private(cells->p, n, E + 2 * n * k, blo + n * k, bhi + n * k, v, dv);
      for (PetscInt d = 0; d < n; d++) {
        const double s = w[k] * dv[d];
        gE[n + d]      = E[2 * n * k + n + d] > bhi[k * n + d] ? s : 0.0;
        gE[d]          = blo[k * n + d] > E[2 * n * k + d] ? -s : 0.0;
        any            = (PetscBool)(any || gE[d] != 0.0 || gE[n + d] != 0.0);
        /* through B_k: its faces are faces of the cells that attain them */
        if (gE[n + d] != 0.0) {
          const PetscInt j = jhi[k * n + d];
          gcw[j * n + d] -= gE[n + d];
          gcw[n * K + j * n + d] -= gE[n + d];
        }
        if (gE[d] != 0.0) {
          const PetscInt j = jlo[k * n + d];
          gcw[j * n + d] -= gE[d];
          gcw[n * K + j * n + d] += gE[d];
        }
      }
      if (!any) continue;
      SREnclForward_Private(&p, lo, hi, Ek, ulo + SR_MAX_DIM * k, uhi + SR_MAX_DIM * k);
      SREnclBackward_Private(&p, lo, hi, ulo + SR_MAX_DIM * k, uhi + SR_MAX_DIM * k, gE, NULL, gx);
      SREnclFacesToCW_Private(n, K, k, gx, gcw);
    }
  }
  PetscCall(PetscFree4(ulo, uhi, jlo, jhi));
  PetscCall(PetscFree5(e, w, E, blo, bhi));
  PetscCall(SREnclPassDestroy_Private(&p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SREnclVolumeCells(SRModel model, SRCells cells, double *V, double *gcw)
{
  const PetscInt     n = model->n, K = cells->K;
  SREnclPass_Private p;
  double             volD = 1, s = 0;

  PetscFunctionBeginUser;
  PetscCheck(cells->n == n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "cells have dimension %" PetscInt_FMT ", the model %" PetscInt_FMT, cells->n, n);
  PetscCall(SREnclPassCreate_Private(model, &p));
  for (PetscInt d = 0; d < n; d++) volD *= cells->dhi[d] - cells->dlo[d];
  if (gcw) PetscCheck(p.own, PETSC_COMM_SELF, PETSC_ERR_SUP, "the gradient of L_encl (-loss encl, sim+encl) is written for simreach's own tanh networks; an imported network (-init_network, SPEC §14) trains with -loss sim");
  if (gcw)
    for (PetscInt i = 0; i < 2 * n * K; i++) gcw[i] = 0.0;
  for (PetscInt k = 0; k < K; k++) {
    double lo[SR_MAX_DIM], hi[SR_MAX_DIM], E[2 * SR_MAX_DIM], ulo[SR_MAX_DIM], uhi[SR_MAX_DIM], wE[SR_MAX_DIM], wP[SR_MAX_DIM], vP = 1, vE = 1;
    for (PetscInt d = 0; d < n; d++) {
      lo[d] = cells->c[k * n + d] - cells->w[k * n + d];
      hi[d] = cells->c[k * n + d] + cells->w[k * n + d];
    }
    SREnclForward_Private(&p, lo, hi, E, ulo, uhi);
    for (PetscInt d = 0; d < n; d++) {
      wP[d] = hi[d] - lo[d];
      wE[d] = E[n + d] - E[d];
      vP *= wP[d];
      vE *= wE[d];
    }
    if (!isfinite(vP * vE)) {
      s = INFINITY;
      continue;
    }
    s += vP * vE;
    if (gcw) {
      double gE[2 * SR_MAX_DIM], gx[2 * SR_MAX_DIM];
      for (PetscInt d = 0; d < n; d++) { /* d(vP vE)/dE.hi_d = vP prod_{e != d} wE_e; products, not quotients (a zero width) */
        double pe = 1, pp = 1;
        for (PetscInt f = 0; f < n; f++)
          if (f != d) {
            pe *= wE[f];
            pp *= wP[f];
          }
        gE[n + d] = vP * pe / (volD * volD);
        gE[d]     = -gE[n + d];
        gx[n + d] = vE * pp / (volD * volD); /* the direct part through vol(Psi_k) */
        gx[d]     = -gx[n + d];
      }
      SREnclFacesToCW_Private(n, K, k, gx, gcw);
      SREnclBackward_Private(&p, lo, hi, ulo, uhi, gE, NULL, gx);
      SREnclFacesToCW_Private(n, K, k, gx, gcw);
    }
  }
  *V = s / (volD * volD);
  PetscCall(SREnclPassDestroy_Private(&p));
  PetscFunctionReturn(PETSC_SUCCESS);
}
