/* Enclosure kernels over a block of cells (SPEC §7): interval, taylor1 and their intersection.

   The interval kernel is a batched midpoint-radius propagation through the MLP (Rump 1999):
   cells are processed SR_ENC_BLOCK at a time in structure-of-arrays layout so that every inner
   loop runs over cells and vectorises.  For an affine layer z = W x + b with x in m +- r:
       W x + b  in  M +- rho,   M = fl(W m + b),
       rho = (R + A g)(1 + g) + DBL_MIN,  R = fl(|W| r),  g = (nin + 3) 2^-52,
   where A bounds sum_j |W_ij m_j| + |b_i|: computed in floating point on the first layer, and
   the precomputed upward row sum sum_j |W_ij| + |b_i| on later layers, times
   max(1, max_j |m_j|) when the inputs are not tanh or sigmoid midpoints (|m_j| <= 1).  g covers gamma_{nin+1} (Higham Thm 3.1) for the error of M and the
   1/(1 - gamma) of R and of the final three roundings with a factor-2 margin.
   tanh is monotone and 1-Lipschitz: on [l, h] = [fl(M - rho), fl(M + rho)]
       tanh in [T(l) - 2 eps - 2^-52 |l|, T(h) + 2 eps + 2^-52 |h|]  intersected with [-1, 1],
   with T = SRTanhFast_Private (|T - tanh| <= eps, private/enclosure.h), the 2^-52 |l| term
   for the rounding of l, the second eps for the final rounding (values <= 2 in magnitude).
   Back to midpoint-radius: m = fl(a/2 + b/2) (|m| <= 1), r = fl(b/2 - a/2) + 2^-50 (>= 5u
   more than needed).  Sigmoid is (1 + tanh(x/2)) / 2 through the same fast tanh; ReLU is exact
   on the outward ends (comment at the kernel); linear keeps M +- rho.  The model's tail (x + N,
   or the controller's tanh and the true step) uses directed-rounding interval ops. */
#include <simreach/abstraction.h>
#include <simreach/private/enclosure.h>
#include <simreach/verify.h>

#include <float.h>

const char *const SREnclosureTypes[] = { "interval", "taylor1", "both", "SREnclosureType", "SR_ENCLOSURE_", NULL };

typedef double SRv4_Private __attribute__((vector_size(32)));

typedef struct {
  SRMLP   mlp;
  double *absW; /* |params| */
  double *arow; /* upward bound of sum_j |W_ij| + |b_i| per row, layers >= 1 (offset boff) */
  double *m0, *r0, *m1, *r1;
  double  lo[SR_MAX_DIM * SR_ENC_BLOCK], hi[SR_MAX_DIM * SR_ENC_BLOCK];
  double  nf[SR_ENC_BLOCK]; /* 0 while the cell's values are finite, NaN otherwise */
  double  flops; /* per cell */
} SREncWork_Private;

static PetscErrorCode SREncWorkCreate_Private(SRMLP mlp, SREncWork_Private *w)
{
  const PetscInt mw = mlp->maxwidth;

  PetscFunctionBeginUser;
  w->mlp = mlp;
  PetscCall(PetscMalloc2(mlp->nparams, &w->absW, mlp->nparams, &w->arow));
  PetscCall(PetscMalloc4(mw * SR_ENC_BLOCK, &w->m0, mw * SR_ENC_BLOCK, &w->r0, mw * SR_ENC_BLOCK, &w->m1, mw * SR_ENC_BLOCK, &w->r1));
  for (PetscInt p = 0; p < mlp->nparams; p++)
    w->absW[p] = fabs(mlp->params[p]);
  w->flops = 0;
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt nin = mlp->width[l], nout = mlp->width[l + 1];
    for (PetscInt i = 0; i < nout; i++) {
      double s = w->absW[mlp->boff[l] + i];
      for (PetscInt j = 0; j < nin; j++)
        s = SRAddUp(s, w->absW[mlp->woff[l] + i * nin + j]);
      w->arow[mlp->boff[l] + i] = s;
    }
    w->flops += 4.0 * nin * nout + 4.0 * nout + (mlp->act[l] == SR_ACT_TANH || mlp->act[l] == SR_ACT_SIGMOID ? 2 * 45.0 * nout : 0);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SREncWorkDestroy_Private(SREncWork_Private *w)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree2(w->absW, w->arow));
  PetscCall(PetscFree4(w->m0, w->r0, w->m1, w->r1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One affine layer and its activation over a block: inputs (m, r) -> outputs (mo, ro).
   smax: per-cell work array (SR_ENC_BLOCK). */
/* AVX2 clone for the machines that have it, baseline SSE2 otherwise (identical results) */
__attribute__((target_clones("avx2", "default"))) static void SREncLayer_Private(const SREncWork_Private *w, PetscInt l, const double *restrict m, const double *restrict r, double *restrict mo, double *restrict ro, double *restrict nf)
{
  const SRMLP        mlp = w->mlp;
  const PetscInt     nin = mlp->width[l], nout = mlp->width[l + 1];
  const double      *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];
  const double      *aW = w->absW + mlp->woff[l], *ab = w->absW + mlp->boff[l];
  const double       g = (double)(nin + 3) * 0x1p-52, g1 = 1.0 + g;
  const SRActivation act = mlp->act[l];
  /* inputs of layers >= 1 after tanh or sigmoid have |m_j| <= 1; after ReLU or linear the
     bound A of sum_j |W_ij m_j| + |b_i| is the row sum times s = max(1, max_j |m_j|) */
  const int unit = l > 0 && (mlp->act[l - 1] == SR_ACT_TANH || mlp->act[l - 1] == SR_ACT_SIGMOID);
  double    smax[SR_ENC_BLOCK];

  for (int c = 0; c < SR_ENC_BLOCK; c++)
    smax[c] = 1.0;
  if (l > 0 && !unit) {
    for (PetscInt j = 0; j < nin; j++) {
      const double *restrict mj = m + j * SR_ENC_BLOCK;
      for (int c = 0; c < SR_ENC_BLOCK; c++) {
        const double a = fabs(mj[c]);
        smax[c]        = a > smax[c] ? a : smax[c];
      }
    }
    for (int c = 0; c < SR_ENC_BLOCK; c++)
      smax[c] *= 1.0 + 0x1p-50; /* covers the rounding of arow * smax below */
  }

  for (PetscInt i = 0; i < nout; i++) {
    double M[SR_ENC_BLOCK], R[SR_ENC_BLOCK], A[SR_ENC_BLOCK];
    for (int c = 0; c < SR_ENC_BLOCK; c++) {
      M[c] = b[i];
      R[c] = 0.0;
    }
    if (l == 0) {
      for (int c = 0; c < SR_ENC_BLOCK; c++)
        A[c] = ab[i];
      for (PetscInt j = 0; j < nin; j++) {
        const double wij = W[i * nin + j], aij = aW[i * nin + j];
        const double *restrict mj = m + j * SR_ENC_BLOCK, *restrict rj = r + j * SR_ENC_BLOCK;
        for (int c = 0; c < SR_ENC_BLOCK; c++) {
          M[c] += wij * mj[c];
          A[c] += aij * fabs(mj[c]);
          R[c] += aij * rj[c];
        }
      }
    } else {
      if (unit)
        for (int c = 0; c < SR_ENC_BLOCK; c++)
          A[c] = w->arow[mlp->boff[l] + i];
      else
        for (int c = 0; c < SR_ENC_BLOCK; c++)
          A[c] = w->arow[mlp->boff[l] + i] * smax[c];
      /* 16 cells at a time in GCC vector types so that the 8 accumulators stay in registers
         (element-wise IEEE operations, same order as the scalar loop) */
      for (int cb = 0; cb < SR_ENC_BLOCK; cb += 16) {
        SRv4_Private M0 = { b[i], b[i], b[i], b[i] }, M1 = M0, M2 = M0, M3 = M0;
        SRv4_Private R0 = { 0, 0, 0, 0 }, R1 = R0, R2 = R0, R3 = R0, t;
        for (PetscInt j = 0; j < nin; j++) {
          const SRv4_Private wv     = { W[i * nin + j], W[i * nin + j], W[i * nin + j], W[i * nin + j] };
          const SRv4_Private av     = { aW[i * nin + j], aW[i * nin + j], aW[i * nin + j], aW[i * nin + j] };
          const double *restrict mj = m + j * SR_ENC_BLOCK + cb, *restrict rj = r + j * SR_ENC_BLOCK + cb;
          memcpy(&t, mj, sizeof t);
          M0 += wv * t;
          memcpy(&t, mj + 4, sizeof t);
          M1 += wv * t;
          memcpy(&t, mj + 8, sizeof t);
          M2 += wv * t;
          memcpy(&t, mj + 12, sizeof t);
          M3 += wv * t;
          memcpy(&t, rj, sizeof t);
          R0 += av * t;
          memcpy(&t, rj + 4, sizeof t);
          R1 += av * t;
          memcpy(&t, rj + 8, sizeof t);
          R2 += av * t;
          memcpy(&t, rj + 12, sizeof t);
          R3 += av * t;
        }
        memcpy(M + cb, &M0, sizeof t);
        memcpy(M + cb + 4, &M1, sizeof t);
        memcpy(M + cb + 8, &M2, sizeof t);
        memcpy(M + cb + 12, &M3, sizeof t);
        memcpy(R + cb, &R0, sizeof t);
        memcpy(R + cb + 4, &R1, sizeof t);
        memcpy(R + cb + 8, &R2, sizeof t);
        memcpy(R + cb + 12, &R3, sizeof t);
      }
    }
    double *restrict moi = mo + i * SR_ENC_BLOCK, *restrict roi = ro + i * SR_ENC_BLOCK;
    double rho[SR_ENC_BLOCK];
    for (int c = 0; c < SR_ENC_BLOCK; c++) {
      rho[c] = (R[c] + A[c] * g) * g1 + DBL_MIN;
      nf[c] += (M[c] - M[c]) + (rho[c] - rho[c]); /* stays 0 while M, rho are finite, NaN after */
    }
    if (act == SR_ACT_LINEAR) {
      for (int c = 0; c < SR_ENC_BLOCK; c++) {
        moi[c] = M[c];
        roi[c] = rho[c];
      }
    } else if (act == SR_ACT_RELU) {
      /* [l, h] = [fl(M - rho), fl(M + rho)] is within half an ulp of the exact ends, and
         l - |l| 2^-52 (rounded) <= l - ulp(l): max(., 0) of these is monotone and exact.
         Back to midpoint-radius with 0 <= ylo <= yhi: |m| <= yhi and r0 <= yhi / 2, so
         r = r0 + yhi 2^-50 + DBL_MIN covers the roundings of m and r0 and its own. */
      double ylo[SR_ENC_BLOCK], yhi[SR_ENC_BLOCK];
      for (int c = 0; c < SR_ENC_BLOCK; c++) {
        const double lo = M[c] - rho[c], hi = M[c] + rho[c];
        ylo[c] = lo - fabs(lo) * 0x1p-52;
        yhi[c] = hi + fabs(hi) * 0x1p-52;
      }
      for (int c = 0; c < SR_ENC_BLOCK; c++) {
        ylo[c] = ylo[c] > 0.0 ? ylo[c] : 0.0;
        yhi[c] = yhi[c] > 0.0 ? yhi[c] : 0.0;
      }
      for (int c = 0; c < SR_ENC_BLOCK; c++) {
        moi[c] = 0.5 * ylo[c] + 0.5 * yhi[c];
        roi[c] = ((0.5 * yhi[c] - 0.5 * ylo[c]) + yhi[c] * 0x1p-50) + DBL_MIN;
      }
    } else {
      /* tanh, or sigmoid x = (1 + tanh(x / 2)) / 2: the argument is halved (exact but for
         subnormals, which the 2^-52 |l| term and eps cover), and the final 0.5 + 0.5 t rounds
         by at most 2^-53, covered by 2^-52 */
      const double sh = act == SR_ACT_SIGMOID ? 0.5 : 1.0;
      double       lo[SR_ENC_BLOCK], hi[SR_ENC_BLOCK], ylo[SR_ENC_BLOCK], yhi[SR_ENC_BLOCK];
      for (int c = 0; c < SR_ENC_BLOCK; c++) {
        lo[c] = (M[c] - rho[c]) * sh;
        hi[c] = (M[c] + rho[c]) * sh;
      }
      for (int c = 0; c < SR_ENC_BLOCK; c++) {
        const double nl = -fabs(lo[c]), nh = -fabs(hi[c]);
        ylo[c] = nl > -20.0 ? nl : -20.0;
        yhi[c] = nh > -20.0 ? nh : -20.0;
      }
      for (int c = 0; c < SR_ENC_BLOCK; c++) {
        const double tl = copysign(SRTanhFastHalf_Private(-2.0 * ylo[c]), lo[c]);
        const double th = copysign(SRTanhFastHalf_Private(-2.0 * yhi[c]), hi[c]);
        ylo[c]          = tl - (2.0 * SR_TANH_FAST_ERR + fabs(lo[c]) * 0x1p-52);
        yhi[c]          = th + (2.0 * SR_TANH_FAST_ERR + fabs(hi[c]) * 0x1p-52);
      }
      for (int c = 0; c < SR_ENC_BLOCK; c++) {
        ylo[c] = ylo[c] > -1.0 ? ylo[c] : -1.0;
        yhi[c] = yhi[c] < 1.0 ? yhi[c] : 1.0;
      }
      if (act == SR_ACT_SIGMOID)
        for (int c = 0; c < SR_ENC_BLOCK; c++) {
          const double sl = (0.5 + 0.5 * ylo[c]) - 0x1p-52, su = (0.5 + 0.5 * yhi[c]) + 0x1p-52;
          ylo[c]          = sl > 0.0 ? sl : 0.0;
          yhi[c]          = su < 1.0 ? su : 1.0;
        }
      for (int c = 0; c < SR_ENC_BLOCK; c++) {
        moi[c] = 0.5 * ylo[c] + 0.5 * yhi[c];
        roi[c] = (0.5 * yhi[c] - 0.5 * ylo[c]) + 0x1p-50;
      }
    }
  }
}

/* Interval enclosure of nb <= SR_ENC_BLOCK cells whose boxes are in w->lo / w->hi (SoA). */
static void SREncBlockInterval_Private(SREncWork_Private *w, SRModel model, PetscInt nb, double *E, SRCellStatus *status)
{
  const SRMLP    mlp = w->mlp;
  const PetscInt n   = model->n;
  double        *m = w->m0, *r = w->r0, *mo = w->m1, *ro = w->r1;

  for (int c = 0; c < SR_ENC_BLOCK; c++)
    w->nf[c] = 0.0;
  for (PetscInt d = 0; d < n; d++)
    for (int c = 0; c < SR_ENC_BLOCK; c++) {
      double lo = w->lo[d * SR_ENC_BLOCK + c], hi = w->hi[d * SR_ENC_BLOCK + c];
      if (mlp->has_in) { /* SPEC §14: the network reads the clipped, normalised box (outward) */
        const SRInterval z = SRMLPInputInterval(mlp, d, SRIntervalMake(lo, hi));
        lo                 = z.lo;
        hi                 = z.hi;
      }
      const double mid        = 0.5 * lo + 0.5 * hi;
      m[d * SR_ENC_BLOCK + c] = mid;
      r[d * SR_ENC_BLOCK + c] = PetscMax(SRSubUp(hi, mid), SRSubUp(mid, lo));
      if (!(isfinite(lo) && isfinite(hi))) w->nf[c] = NAN;
    }
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    double *t;
    SREncLayer_Private(w, l, m, r, mo, ro, w->nf);
    t  = m;
    m  = mo;
    mo = t;
    t  = r;
    r  = ro;
    ro = t;
  }
  /* m, r: N(x) in m +- r for the cells of the block */
  for (PetscInt c = 0; c < nb; c++) {
    double    *Ec  = E + 2 * n * c;
    PetscBool  fin = PETSC_TRUE;
    SRInterval X[SR_MAX_DIM], Y[SR_MAX_DIM];
    for (PetscInt d = 0; d < n; d++)
      X[d] = SRIntervalMake(w->lo[d * SR_ENC_BLOCK + c], w->hi[d * SR_ENC_BLOCK + c]);
    if (model->type == SR_MODEL_DYNAMICS) {
      for (PetscInt d = 0; d < n; d++) {
        const double M = m[d * SR_ENC_BLOCK + c], rho = r[d * SR_ENC_BLOCK + c];
        if (mlp->has_out) Y[d] = SRIntervalAdd(X[d], SRMLPOutputInterval(mlp, d, SRIntervalMake(SRSubDown(M, rho), SRAddUp(M, rho))));
        else Y[d] = SRIntervalMake(SRAddDown(X[d].lo, SRSubDown(M, rho)), SRAddUp(X[d].hi, SRAddUp(M, rho))); /* f = x + N(x) */
      }
    } else {
      SRInterval      U[SR_MAX_DIM];
      const PetscBool clipped = SRModelControlIsClipped(model); /* SPEC §14: imported, u = clip(N) */
      for (PetscInt k = 0; k < model->sys->nu; k++) {
        const double     M = m[k * SR_ENC_BLOCK + c], rho = r[k * SR_ENC_BLOCK + c];
        const SRInterval Nk = SRMLPOutputInterval(mlp, k, SRIntervalMake(SRSubDown(M, rho), SRAddUp(M, rho)));
        U[k] = clipped ? SRModelControlInterval(model, clipped, Nk) : SRIntervalScale(model->sys->umax, SRIntervalTanh(Nk));
      }
      SRSystemStepHeldInterval(model->sys, X, U, Y); /* -control_steps: m steps, u held */
    }
    for (PetscInt d = 0; d < n; d++) {
      Ec[d]     = Y[d].lo;
      Ec[n + d] = Y[d].hi;
      fin       = (PetscBool)(fin && isfinite(Y[d].lo) && isfinite(Y[d].hi));
    }
    status[c] = (w->nf[c] == 0.0 && fin) ? SR_CELL_OK : SR_CELL_NONFINITE;
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
  PetscLogEvent     ev;
  const PetscInt    n              = model->n;
  PetscBool         finite_weights = PETSC_TRUE;
  SREncWork_Private w;
  SRTMBatch         tb = NULL;
  double           *Et = NULL;

  PetscFunctionBeginUser;
  PetscCheck(type == SR_ENCLOSURE_INTERVAL || type == SR_ENCLOSURE_TAYLOR1 || type == SR_ENCLOSURE_BOTH, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-enclosure %d: allowed interval, taylor1, both", (int)type);
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
  PetscCall(SREncWorkCreate_Private(model->mlp, &w));
  if (type != SR_ENCLOSURE_INTERVAL) PetscCall(SRTMBatchCreate(model, &tb));
  if (type == SR_ENCLOSURE_BOTH) PetscCall(PetscMalloc1(2 * n * SR_ENC_BLOCK, &Et));
  for (PetscInt k0 = kstart; k0 < kend; k0 += SR_ENC_BLOCK) {
    const PetscInt nb = PetscMin((PetscInt)SR_ENC_BLOCK, kend - k0);
    double        *Eb = E + 2 * n * (k0 - kstart);
    SRCellStatus  *sb = status + (k0 - kstart);
    for (PetscInt c = 0; c < SR_ENC_BLOCK; c++) {
      double lo[SR_MAX_DIM], hi[SR_MAX_DIM];
      if (boxes) { /* pad with the last box */
        const double *bx = boxes + 2 * n * (k0 + PetscMin(c, nb - 1));
        for (PetscInt d = 0; d < n; d++) {
          lo[d] = bx[d];
          hi[d] = bx[n + d];
        }
      } else SRCellsBoxOuter(cells, k0 + PetscMin(c, nb - 1), lo, hi); /* pad with the last cell */
      for (PetscInt d = 0; d < n; d++) {
        w.lo[d * SR_ENC_BLOCK + c] = lo[d];
        w.hi[d * SR_ENC_BLOCK + c] = hi[d];
      }
    }
    if (type != SR_ENCLOSURE_TAYLOR1) SREncBlockInterval_Private(&w, model, nb, Eb, sb);
    if (type != SR_ENCLOSURE_INTERVAL) {
      double *Eo = type == SR_ENCLOSURE_BOTH ? Et : Eb;
      PetscCall(SRTMBatchEnclose(tb, nb, w.lo, w.hi, Eo, cm ? cm + (k0 - kstart) : NULL)); /* src/abstraction/enclosure_taylor.c */
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
  PetscCall(PetscLogFlops((type != SR_ENCLOSURE_TAYLOR1 ? w.flops : 0) * (kend - kstart) + (type != SR_ENCLOSURE_INTERVAL ? (double)(2 * (n + 3) * model->mlp->nparams) * (kend - kstart) : 0)));
  PetscCall(PetscFree(Et));
  PetscCall(SRTMBatchDestroy(&tb));
  PetscCall(SREncWorkDestroy_Private(&w));
  PetscCall(PetscLogEventEnd(ev, 0, 0, 0, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
