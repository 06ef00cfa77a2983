/* The interval kernel over a block of boxes (SPEC §7, §16; include/simreach/private/netbatch.h).

   It is a batched midpoint-radius propagation through the MLP (Rump 1999):
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
   with T = SRTanhFast_Private (|T - tanh| <= eps, private/netbatch.h), the 2^-52 |l| term
   for the rounding of l, the second eps for the final rounding (values <= 2 in magnitude).
   Back to midpoint-radius: m = fl(a/2 + b/2) (|m| <= 1), r = fl(b/2 - a/2) + 2^-50 (>= 5u
   more than needed).  Sigmoid is (1 + tanh(x/2)) / 2 through the same fast tanh; ReLU is exact
   on the outward ends (comment at the kernel); linear keeps M +- rho.  The model's tail (x + N,
   or the controller's tanh and the true step) is the abstraction's (src/abstraction/enclosure.c). */
#include <simreach/private/netbatch.h>

#include <float.h>

typedef double SRv4_Private __attribute__((vector_size(32)));

struct _p_SRNetIntervalBatch {
  SRMLP   mlp;
  double *absW; /* |params| */
  double *arow; /* upward bound of sum_j |W_ij| + |b_i| per row, layers >= 1 (offset boff) */
  double *m0, *r0, *m1, *r1;
  double  flops; /* per box */
};

PetscErrorCode SRNetIntervalBatchCreate(SRMLP mlp, SRNetIntervalBatch *wp)
{
  const PetscInt     mw = mlp->maxwidth;
  SRNetIntervalBatch w;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&w));
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
  *wp = w;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRNetIntervalBatchDestroy(SRNetIntervalBatch *wp)
{
  PetscFunctionBeginUser;
  if (!*wp) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree2((*wp)->absW, (*wp)->arow));
  PetscCall(PetscFree4((*wp)->m0, (*wp)->r0, (*wp)->m1, (*wp)->r1));
  PetscCall(PetscFree(*wp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

double SRNetIntervalBatchFlops(SRNetIntervalBatch w) { return w->flops; }

/* One affine layer and its activation over a block: inputs (m, r) -> outputs (mo, ro).
   smax: per-cell work array (SR_ENC_BLOCK). */
/* AVX2 clone for the machines that have it, baseline SSE2 otherwise (identical results) */
__attribute__((target_clones("avx2", "default"))) static void SREncLayer_Private(const struct _p_SRNetIntervalBatch *w, PetscInt l, const double *restrict m, const double *restrict r, double *restrict mo, double *restrict ro, double *restrict nf)
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

void SRNetIntervalBatchEnclose(SRNetIntervalBatch w, const double *blo, const double *bhi, double *Nlo, double *Nhi, double *nf)
{
  const SRMLP    mlp = w->mlp;
  const PetscInt n = mlp->width[0], nout = mlp->width[mlp->nlayers];
  double        *m = w->m0, *r = w->r0, *mo = w->m1, *ro = w->r1;

  for (int c = 0; c < SR_ENC_BLOCK; c++)
    nf[c] = 0.0;
  for (PetscInt d = 0; d < n; d++)
    for (int c = 0; c < SR_ENC_BLOCK; c++) {
      double lo = blo[d * SR_ENC_BLOCK + c], hi = bhi[d * SR_ENC_BLOCK + c];
      if (mlp->has_in) { /* SPEC §14: the network reads the clipped, normalised box (outward) */
        const SRInterval z = SRMLPInputInterval(mlp, d, SRIntervalMake(lo, hi));
        lo                 = z.lo;
        hi                 = z.hi;
      }
      const double mid        = 0.5 * lo + 0.5 * hi;
      m[d * SR_ENC_BLOCK + c] = mid;
      r[d * SR_ENC_BLOCK + c] = PetscMax(SRSubUp(hi, mid), SRSubUp(mid, lo));
      if (!(isfinite(lo) && isfinite(hi))) nf[c] = NAN;
    }
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    double *t;
    SREncLayer_Private(w, l, m, r, mo, ro, nf);
    t  = m;
    m  = mo;
    mo = t;
    t  = r;
    r  = ro;
    ro = t;
  }
  /* m, r: N(x) in m +- r for the boxes of the block; outward ends, then the output transform */
  for (PetscInt k = 0; k < nout; k++)
    for (int c = 0; c < SR_ENC_BLOCK; c++) {
      const double     M = m[k * SR_ENC_BLOCK + c], rho = r[k * SR_ENC_BLOCK + c];
      const double     lo = SRSubDown(M, rho), hi = SRAddUp(M, rho);
      /* without a transform the raw ends (NaN where not finite; nf says so) */
      const SRInterval Ok = mlp->has_out ? SRMLPOutputInterval(mlp, k, SRIntervalMake(lo, hi)) : (SRInterval){lo, hi};
      Nlo[k * SR_ENC_BLOCK + c] = Ok.lo;
      Nhi[k * SR_ENC_BLOCK + c] = Ok.hi;
    }
}
