/* Batched first-order Taylor models of the network (SPEC §7, taylor1; include/simreach/private/netbatch.h)
   over a block of SR_ENC_BLOCK boxes, structure-of-arrays so that every inner loop runs over cells and vectorises.  It
   computes the same kind of Taylor model as the per-cell path of src/numerics/taylor.c (an affine form
   in the cell's normalised coordinates xi in [-1,1]^n plus a remainder), with the remainder
   kept symmetric, [-rr, rr], so that a neuron is n + 2 numbers per cell: c_0 .. c_n and rr.

   Affine layer z_i = sum_j W_ij y_j + b_i, y_j = sum_k c_jk xi_k (k = 0: the constant) + [-rr_j, rr_j]:
     c'_ik = fl(sum_j W_ij c_jk (+ b_i for k = 0))  (round to nearest),
     rr'_i = fl(fl(Q_i + g |b_i|) g1) + DBL_MIN,  Q_i = fl(sum_j |W_ij| q_j),
     q_j   = fl(rr_j + g a_j),  a_j = fl(sum_k |c_jk|),  g = (nin + 1) 2^-52,  g1 = 1 + (nin + n + 8) 2^-52.
   Soundness: the computed c'_ik differ from the exact sums by at most gamma_{nin+1} (sum_j
   |W_ij c_jk| + [k = 0] |b_i|) (Higham, Thm 3.1; gamma_m = m u / (1 - m u) <= 2 m u = g for
   m = nin + 1, u = 2^-53), and |xi_k| <= 1, so the error of the whole affine part is at most
   g (sum_j |W_ij| a_j + |b_i|) with exact a_j; the remainders add sum_j |W_ij| rr_j.  Every
   rounding in Q_i + g |b_i| is of a sum or product of non-negative numbers, at most
   nin + n + 4 of them on any path, so the exact value is at most the computed one times
   (1 + u)^(nin + n + 4) <= 1 + 1.01 (nin + n + 4) u; g1 and the rounding of the product cover
   that; DBL_MIN covers underflow (each of the < 2^40 operations loses < 2^-1074).
   NaN or infinite values make Q, hence rr', non-finite: such cells are redone by the per-cell path.

   tanh of a hidden neuron with range [l, u] (S = sum_{k>=1} |c_k| + rr):
     S2 = fl(fl(S (1 + (n + 4) 2^-52)) + |c_0| 2^-52) + DBL_MIN,  l = fl(c_0 - S2),  u = fl(c_0 + S2)
   contains the exact range (|x - c_0| <= S exact <= S2 (1 - u) - u |c_0|).  Narrow ranges
   (u - l <= 1/16, the same threshold as src/numerics/taylor.c): lambda = 1 - T^2, T = SRTanhFast(c_0)
   (any double is sound), and by the mean-value theorem
     tanh(x) = lambda x + g(c_0) + g'(xi)(x - c_0),  g' = tanh' - lambda,  xi, x in [l, u],
   tanh'(xi) = 1 - tanh^2 |xi| in [1 - Th^2, 1 - Tl^2], Th = min(1, T(max(|l|, |u|)) + 2 eps),
   Tl = max(0, T(min |x| over [l, u]) - 2 eps) (eps = SR_TANH_FAST_ERR, the second eps for the
   rounding of the sum), each bound moved outward by 2^-51 for its two roundings;
     |g'(xi)(x - c_0)| <= M S2,  M = max |[1 - Th^2, 1 - Tl^2] - lambda| + 2^-50,
     g(c_0) in gm +- (2 eps + (|lambda c_0| + |gm|) 2^-52),  gm = fl(T - fl(lambda c_0)).
   The result is the Taylor model lambda (c, rr) + g: c'_k = fl(lambda c_k), c'_0 = fl(fl(lambda c_0) + gm),
     rr' = fl(lambda (rr + a 2^-52) + M S2 (1 + 2^-51) + err_g + |c'_0| 2^-52) (1 + 2^-49) + DBL_MIN,
   where lambda a 2^-52 covers the roundings of fl(lambda c_k) and |c'_0| 2^-52 that of c'_0, and
   (1 + 2^-50) the at most n + 6 roundings of that non-negative sum (rr' below uses 1 + 2^-49).
   ReLU layers (SPEC §14) have their own branch (the chord relaxation, comment at the code),
   linear layers keep the affine form, sigmoid layers go through the tanh branch as
   1/2 + tanh(z / 2) / 2 (SRTMBSigmoid_Private).
   Wider tanh ranges (a cell whose network meets one) and non-finite values: the whole cell is
   redone by the per-cell path of src/numerics/taylor.c (chord slope over pieces), so this kernel's boxes
   are never looser than that path's by more than rounding margins.

   After the last layer the caller (src/abstraction/enclosure_taylor.c) runs the per-cell tail of
   src/model/model_taylor.c (x + N(x), or the controller's tanh, u_max and the true step) on the
   network's models.  Tested against the MPFR oracle with
   dense sampling and attacks in tests/abstraction/test_soundness.c (through SREnclosureCompute) and
   against the per-cell path in tests/abstraction/test_taylor_batch.c. */
#include <simreach/private/model_taylor.h>
#include <simreach/private/netbatch.h>

#include <float.h>

#define BLK SR_ENC_BLOCK
#define SR_TMB_NARROW 0x1p-4 /* = SR_TM_NARROW of src/numerics/taylor.c */

typedef double SRv4_TMB __attribute__((vector_size(32)));

struct _p_SRNetTaylorBatch {
  SRMLP     mlp;
  PetscInt  n, ns;   /* dimension, numbers per neuron (n + 2) */
  double   *absW;    /* |params| */
  double   *y0, *y1; /* two neuron buffers: maxwidth * ns * BLK */
  double   *q;       /* maxwidth * BLK */
  SRTaylor *work;    /* per-cell fallback: 2 maxwidth */
  double    redo[BLK]; /* non-zero (or NaN): the cell is redone by the per-cell path */
  PetscBool percell;   /* an activation without a batched branch: every cell takes the per-cell path */
};

PetscErrorCode SRNetTaylorBatchCreate(SRMLP mlp, PetscInt n, SRNetTaylorBatch *tb)
{
  SRNetTaylorBatch b;
  const PetscInt   mw = mlp->maxwidth;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= SR_MAX_DIM, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Taylor models of dimension n = %" PetscInt_FMT "; allowed 1..%d", n, SR_MAX_DIM);
  PetscCheck(mlp->width[mlp->nlayers] <= SR_MAX_DIM, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "network with %" PetscInt_FMT " outputs; the Taylor kernel takes at most %d", mlp->width[mlp->nlayers], SR_MAX_DIM);
  PetscCall(PetscNew(&b));
  b->mlp   = mlp;
  b->n     = n;
  b->ns    = n + 2;
  PetscCall(PetscMalloc5(b->mlp->nparams, &b->absW, mw * b->ns * BLK, &b->y0, mw * b->ns * BLK, &b->y1, mw * BLK, &b->q, 2 * mw, &b->work));
  for (PetscInt p = 0; p < b->mlp->nparams; p++)
    b->absW[p] = fabs(b->mlp->params[p]);
  for (PetscInt l = 0; l < b->mlp->nlayers; l++)
    if (b->mlp->act[l] != SR_ACT_TANH && b->mlp->act[l] != SR_ACT_RELU && b->mlp->act[l] != SR_ACT_LINEAR && b->mlp->act[l] != SR_ACT_SIGMOID) b->percell = PETSC_TRUE;
  if (n > 3) b->percell = PETSC_TRUE; /* the batched layers are written for n <= 3 */
  *tb = b;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRNetTaylorBatchDestroy(SRNetTaylorBatch *tb)
{
  PetscFunctionBeginUser;
  if (!*tb) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree5((*tb)->absW, (*tb)->y0, (*tb)->y1, (*tb)->q, (*tb)->work));
  PetscCall(PetscFree(*tb));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One affine layer, then tanh when hidden: in (nin neurons) -> out (nout neurons), each neuron
   ns rows of BLK.  Specialised on n (always_inline into the dispatch below). */
/* tanh of neuron yo (BLK cells, n + 2 numbers each), in place, by the mean-value form of the
   header comment; simple loops over the cells so that each vectorises (clamps in their own
   loops, as in src/bounds/netinterval.c) */
static inline __attribute__((always_inline)) void SRTMBTanh_Private(SRNetTaylorBatch b, const PetscInt n, double *restrict yo)
{
  double *restrict redo = b->redo;
  double S2[BLK], lo[BLK], hi[BLK], A[BLK], am[3][BLK], T[3][BLK];
  for (int c = 0; c < BLK; c++) {
    const double c0 = yo[c];
    double       S = yo[(n + 1) * BLK + c], a = fabs(c0);
    for (PetscInt k = 1; k <= n; k++) {
      S += fabs(yo[k * BLK + c]);
      a += fabs(yo[k * BLK + c]);
    }
    A[c]  = a;
    S2[c] = (S * (1.0 + (double)(n + 4) * 0x1p-52) + fabs(c0) * 0x1p-52) + DBL_MIN;
    lo[c] = c0 - S2[c];
    hi[c] = c0 + S2[c];
  }
  for (int c = 0; c < BLK; c++) {
    const double al = fabs(lo[c]), ah = fabs(hi[c]);
    am[0][c] = -fabs(yo[c]);
    am[1][c] = -(al > ah ? al : ah);
    am[2][c] = (lo[c] <= 0.0 && hi[c] >= 0.0) ? 0.0 : -(al < ah ? al : ah);
  }
  for (int e = 0; e < 3; e++)
    for (int c = 0; c < BLK; c++)
      am[e][c] = am[e][c] > -20.0 ? am[e][c] : -20.0;
  for (int e = 0; e < 3; e++)
    for (int c = 0; c < BLK; c++)
      T[e][c] = SRTanhFastHalf_Private(-2.0 * am[e][c]); /* tanh |.| */
  for (int c = 0; c < BLK; c++) {
    const double c0 = yo[c], rr = yo[(n + 1) * BLK + c];
    const double Tc = copysign(T[0][c], c0);
    const double Th0 = T[1][c] + 2.0 * SR_TANH_FAST_ERR, Tl0 = T[2][c] - 2.0 * SR_TANH_FAST_ERR;
    const double Th = Th0 < 1.0 ? Th0 : 1.0, Tl = Tl0 > 0.0 ? Tl0 : 0.0;
    const double Dlo = (1.0 - Th * Th) - 0x1p-51, Dhi = (1.0 - Tl * Tl) + 0x1p-51;
    const double lambda = 1.0 - Tc * Tc; /* in [0, 1] */
    const double e1 = fabs(Dlo - lambda), e2 = fabs(Dhi - lambda);
    const double M  = (e1 > e2 ? e1 : e2) + 0x1p-50;
    const double lc0 = lambda * c0, gm = Tc - lc0;
    const double errg = 2.0 * SR_TANH_FAST_ERR + (fabs(lc0) + fabs(gm)) * 0x1p-52;
    const double c0o  = lc0 + gm;
    /* all terms non-negative, at most n + 6 <= 12 roundings on any path (n <= SR_MAX_DIM = 6), each losing at
       most a factor 1 + u: (1 + u)^13 < 1 + 16 u = 1 + 2^-49 */
    const double rro = (lambda * (rr + A[c] * 0x1p-52) + (M * S2[c]) * (1.0 + 0x1p-51) + errg + fabs(c0o) * 0x1p-52) * (1.0 + 0x1p-49) + DBL_MIN;
    yo[c] = c0o;
    for (PetscInt k = 1; k <= n; k++)
      yo[k * BLK + c] *= lambda;
    yo[(n + 1) * BLK + c] = rro;
    /* hi - lo > 1/16: the per-cell path (chord slope) is tighter; NaN: non-finite */
    redo[c] += (hi[c] - lo[c] > SR_TMB_NARROW ? 1.0 : 0.0) + (rro - rro);
  }
}

/* sigmoid(z) = 1/2 + tanh(z / 2) / 2 (SPEC §14), in place, for z ranges of width <= 1/16 about
   (as the per-cell path's narrow ranges; wider: the cell is redone by the per-cell path, chord
   slope): the model of z halved (exact: every nonzero number involved is at least 2^-1000, else
   the cell is redone by the per-cell path),
   the tanh branch, then halved again and 1/2 added to the constant, whose rounding
   (<= u |c0'|) the remainder takes, with the factor 1 + 2^-49 for its own two roundings. */
static inline __attribute__((always_inline)) void SRTMBSigmoid_Private(SRNetTaylorBatch b, const PetscInt n, double *restrict yo)
{
  double *restrict redo = b->redo;
  for (int c = 0; c < BLK; c++) { /* the per-cell path's narrow ranges are of z: width <= 1/16 */
    double S = yo[(n + 1) * BLK + c];
    for (PetscInt k = 1; k <= n; k++) S += fabs(yo[k * BLK + c]);
    redo[c] += 2.0 * S > 0.5 * SR_TMB_NARROW ? 1.0 : 0.0;
  }
  for (PetscInt k = 0; k <= n + 1; k++)
    for (int c = 0; c < BLK; c++) {
      const double v = yo[k * BLK + c];
      redo[c] += (v != 0.0 && fabs(v) < 0x1p-1000) ? 1.0 : 0.0;
      yo[k * BLK + c] = 0.5 * v;
    }
  SRTMBTanh_Private(b, n, yo);
  for (PetscInt k = 1; k <= n; k++)
    for (int c = 0; c < BLK; c++) {
      const double v = yo[k * BLK + c];
      redo[c] += (v != 0.0 && fabs(v) < 0x1p-1000) ? 1.0 : 0.0;
      yo[k * BLK + c] = 0.5 * v;
    }
  for (int c = 0; c < BLK; c++) {
    const double rr = yo[(n + 1) * BLK + c], c0o = 0.5 + 0.5 * yo[c];
    redo[c] += (rr < 0x1p-1000) ? 1.0 : 0.0;
    yo[c]                 = c0o;
    yo[(n + 1) * BLK + c] = (0.5 * rr + fabs(c0o) * 0x1p-52) * (1.0 + 0x1p-49) + DBL_MIN;
  }
}

static inline __attribute__((always_inline)) void SRTMBLayer_Private(SRNetTaylorBatch b, const PetscInt n, PetscInt l, double *restrict in, double *restrict out)
{
  const SRMLP    mlp = b->mlp;
  const PetscInt ns = n + 2, nin = mlp->width[l], nout = mlp->width[l + 1];
  const double  *W = mlp->params + mlp->woff[l], *bias = mlp->params + mlp->boff[l];
  const double  *aW = b->absW + mlp->woff[l];
  const double   g = (double)(nin + 1) * 0x1p-52, g1 = 1.0 + (double)(nin + n + 8) * 0x1p-52;
  const SRActivation act = mlp->act[l];
  double *restrict q  = b->q;

  /* q_j = rr_j + g a_j */
  for (PetscInt j = 0; j < nin; j++) {
    const double *restrict yj = in + j * ns * BLK;
    for (int c = 0; c < BLK; c++) {
      double a = fabs(yj[c]);
      for (PetscInt k = 1; k <= n; k++)
        a += fabs(yj[k * BLK + c]);
      q[j * BLK + c] = yj[(n + 1) * BLK + c] + g * a;
    }
  }
  for (PetscInt i = 0; i < nout; i++) {
    double *restrict yo = out + i * ns * BLK;
    const double     gb = g * fabs(bias[i]);
    /* 8 cells at a time: (n + 2) x 2 vector accumulators in named variables so that they stay
       in registers (n is a compile-time constant here: the unused ones vanish) */
    for (int cb = 0; cb < BLK; cb += 8) {
      const double bi = bias[i];
      SRv4_TMB     a00 = { bi, bi, bi, bi }, a01 = a00, z = { 0, 0, 0, 0 };
      SRv4_TMB     a10 = z, a11 = z, a20 = z, a21 = z, a30 = z, a31 = z, Q0 = z, Q1 = z, t;
      for (PetscInt j = 0; j < nin; j++) {
        const double   wij = W[i * nin + j], aij = aW[i * nin + j];
        const SRv4_TMB wv = { wij, wij, wij, wij }, av = { aij, aij, aij, aij };
        const double *restrict yj = in + j * ns * BLK + cb, *restrict qj = q + j * BLK + cb;
#define SR_TMB_ACC(A0, A1, k) \
  do { \
    memcpy(&t, yj + (k) * BLK, sizeof t); \
    A0 += wv * t; \
    memcpy(&t, yj + (k) * BLK + 4, sizeof t); \
    A1 += wv * t; \
  } while (0)
        SR_TMB_ACC(a00, a01, 0);
        SR_TMB_ACC(a10, a11, 1);
        if (n >= 2) SR_TMB_ACC(a20, a21, 2);
        if (n >= 3) SR_TMB_ACC(a30, a31, 3);
#undef SR_TMB_ACC
        memcpy(&t, qj, sizeof t);
        Q0 += av * t;
        memcpy(&t, qj + 4, sizeof t);
        Q1 += av * t;
      }
      {
        const SRv4_TMB gbv = { gb, gb, gb, gb }, g1v = { g1, g1, g1, g1 }, mn = { DBL_MIN, DBL_MIN, DBL_MIN, DBL_MIN };
        const SRv4_TMB r0 = (Q0 + gbv) * g1v + mn, r1 = (Q1 + gbv) * g1v + mn;
        memcpy(yo + cb, &a00, sizeof t);
        memcpy(yo + cb + 4, &a01, sizeof t);
        memcpy(yo + BLK + cb, &a10, sizeof t);
        memcpy(yo + BLK + cb + 4, &a11, sizeof t);
        if (n >= 2) {
          memcpy(yo + 2 * BLK + cb, &a20, sizeof t);
          memcpy(yo + 2 * BLK + cb + 4, &a21, sizeof t);
        }
        if (n >= 3) {
          memcpy(yo + 3 * BLK + cb, &a30, sizeof t);
          memcpy(yo + 3 * BLK + cb + 4, &a31, sizeof t);
        }
        memcpy(yo + (n + 1) * BLK + cb, &r0, sizeof t);
        memcpy(yo + (n + 1) * BLK + cb + 4, &r1, sizeof t);
      }
    }
    {
      double *restrict redo = b->redo;
      for (int c = 0; c < BLK; c++)
        redo[c] += yo[(n + 1) * BLK + c] - yo[(n + 1) * BLK + c]; /* NaN once rr is not finite */
    }
    if (act == SR_ACT_LINEAR) continue;
    if (act == SR_ACT_RELU) {
      /* ReLU, in place (SPEC §14): over the range [lo, hi] of the neuron (outward: c0 -+ S2
         rounded, then moved by |.| 2^-52 >= one ulp), the identity when lo >= 0, zero when
         hi <= 0, else y = lambda z + g with lambda = hi / (hi - lo) in [0, 1] and
         g = max(z, 0) - lambda z in [0, Gm], Gm >= max(-lambda lo, hi - lambda hi) (the two
         roundings of each, <= 2 u (hi - lo), and the sum's, covered by (hi - lo) 2^-51).
         Written as c0' = lambda c0 + Gm/2, c_k' = lambda c_k, remainder lambda rr + Gm/2 plus
         the roundings of the products (<= u lambda A) and of c0' (<= u |c0'|), all terms
         non-negative and rounded at most 6 times ((1 + u)^7 < 1 + 2^-49). */
      double *restrict redo = b->redo;
      double lam[BLK], Gm[BLK], A[BLK];
      for (int c = 0; c < BLK; c++) {
        const double c0 = yo[c];
        double       S = yo[(n + 1) * BLK + c], a = fabs(c0);
        for (PetscInt k = 1; k <= n; k++) {
          S += fabs(yo[k * BLK + c]);
          a += fabs(yo[k * BLK + c]);
        }
        A[c]             = a;
        const double S2  = (S * (1.0 + (double)(n + 4) * 0x1p-52) + fabs(c0) * 0x1p-52) + DBL_MIN;
        const double lo0 = c0 - S2, hi0 = c0 + S2;
        const double lo = lo0 - fabs(lo0) * 0x1p-52, hi = hi0 + fabs(hi0) * 0x1p-52;
        const double ls = hi / (hi - lo);
        const double g1 = -(ls * lo), g2 = hi - ls * hi;
        const double gm = ((g1 > g2 ? g1 : g2) + (hi - lo) * 0x1p-51) + DBL_MIN;
        const int    pos = lo >= 0.0, neg = hi <= 0.0;
        lam[c] = pos ? 1.0 : (neg ? 0.0 : ls);
        Gm[c]  = (pos || neg) ? 0.0 : gm;
      }
      for (int c = 0; c < BLK; c++) {
        const double c0o = lam[c] * yo[c] + 0.5 * Gm[c];
        const double rr  = yo[(n + 1) * BLK + c];
        const double rro = ((lam[c] * (rr + A[c] * 0x1p-52) + 0.5 * Gm[c]) + fabs(c0o) * 0x1p-52) * (1.0 + 0x1p-49) + DBL_MIN;
        yo[c]            = c0o;
        for (PetscInt k = 1; k <= n; k++)
          yo[k * BLK + c] *= lam[c];
        yo[(n + 1) * BLK + c] = rro;
        redo[c] += rro - rro; /* NaN: non-finite */
      }
      continue;
    }
    if (act == SR_ACT_SIGMOID) SRTMBSigmoid_Private(b, n, yo);
    else SRTMBTanh_Private(b, n, yo);
  }
}

static inline __attribute__((always_inline)) void SRTMBForward_Private(SRNetTaylorBatch b, const PetscInt n, double **y)
{
  double *in = b->y0, *out = b->y1;
  for (PetscInt l = 0; l < b->mlp->nlayers; l++) {
    double *t;
    SRTMBLayer_Private(b, n, l, in, out);
    t   = in;
    in  = out;
    out = t;
  }
  *y = in;
}

__attribute__((target_clones("avx2", "default"))) static void SRTMBForward1_Private(SRNetTaylorBatch b, double **y) { SRTMBForward_Private(b, 1, y); }
__attribute__((target_clones("avx2", "default"))) static void SRTMBForward2_Private(SRNetTaylorBatch b, double **y) { SRTMBForward_Private(b, 2, y); }
__attribute__((target_clones("avx2", "default"))) static void SRTMBForward3_Private(SRNetTaylorBatch b, double **y) { SRTMBForward_Private(b, 3, y); }
static void SRTMBForwardN_Private(SRNetTaylorBatch b, PetscInt n, double **y) { SRTMBForward_Private(b, n, y); } /* 4..SR_MAX_DIM (issue 36) */

PetscErrorCode SRNetTaylorBatchEnclose(SRNetTaylorBatch b, PetscInt nb, const double *lo, const double *hi, SRTaylor *X, SRTaylor *N, PetscBool *ok)
{
  const PetscInt n = b->n, ns = b->ns;
  SRTaylor       Xb[BLK][SR_MAX_DIM];
  double        *y;

  PetscFunctionBeginUser;
  PetscCheck(nb >= 0 && nb <= BLK, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "block of %" PetscInt_FMT " cells; allowed 0..%d", nb, BLK);
  /* the cells' variables x_d = c_d + h_d xi_d: neuron d of the input layer */
  for (int c = 0; c < BLK; c++) {
    double l[SR_MAX_DIM], h[SR_MAX_DIM];
    b->redo[c] = 0.0;
    for (PetscInt d = 0; d < n; d++) {
      l[d] = lo[d * BLK + c];
      h[d] = hi[d * BLK + c];
      if (!(isfinite(l[d]) && isfinite(h[d]))) b->redo[c] = NAN;
    }
    SRTaylorBoxVariables_Private(n, l, h, Xb[c]);
    for (PetscInt d = 0; d < n; d++) {
      double  *yd = b->y0 + d * ns * BLK;
      SRTaylor z  = Xb[c][d];
      double   rr = 0.0;
      if (b->mlp->has_in) { /* SPEC §14: clipped, normalised input; remainder [a, b] in [-rr, rr] */
        z  = SRMLPInputTaylor(b->mlp, n, d, z);
        rr = PetscMax(-z.r.lo, z.r.hi);
        if (!(rr >= 0)) b->redo[c] = NAN;
      }
      yd[c] = z.c0;
      for (PetscInt k = 1; k <= n; k++)
        yd[k * BLK + c] = z.c[k - 1];
      yd[(n + 1) * BLK + c] = rr;
    }
  }
  if (b->percell) {
    y = b->y0;
    for (int c = 0; c < BLK; c++) b->redo[c] = 1.0;
  } else if (n == 1) SRTMBForward1_Private(b, &y);
  else if (n == 2) SRTMBForward2_Private(b, &y);
  else if (n == 3) SRTMBForward3_Private(b, &y);
  else SRTMBForwardN_Private(b, n, &y);
  for (PetscInt c = 0; c < nb; c++) {
    SRTaylor *Nc = N + c * SR_MAX_DIM;
    for (PetscInt d = 0; d < n; d++) X[c * SR_MAX_DIM + d] = Xb[c][d];
    ok[c] = PETSC_TRUE;
    if (b->redo[c] != 0.0) { /* wide range or non-finite: the per-cell path */
      for (PetscInt d = 0; d < n; d++) ok[c] = (PetscBool)(ok[c] && isfinite(lo[d * BLK + c]) && isfinite(hi[d * BLK + c]));
      if (ok[c]) PetscCall(SRMLPForwardTaylorWork_Private(b->mlp, n, Xb[c], Nc, b->work));
    } else {
      for (PetscInt i = 0; i < b->mlp->width[b->mlp->nlayers]; i++) {
        const double *yi = y + i * ns * BLK;
        Nc[i].c0         = yi[c];
        for (PetscInt k = 0; k < SR_MAX_DIM; k++)
          Nc[i].c[k] = k < n ? yi[(k + 1) * BLK + c] : 0.0;
        Nc[i].r = SRIntervalMake(-yi[(n + 1) * BLK + c], yi[(n + 1) * BLK + c]);
        Nc[i]   = SRMLPOutputTaylor(b->mlp, n, i, Nc[i]);
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
