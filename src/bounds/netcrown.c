/* The network over a piece by linear relaxation with back-substitution (CROWN), SPEC §15, §7;
   include/simreach/netaffine.h.

   Soundness argument.  Every activation a = s(z) of a neuron whose pre-activation z lies in
   [lo, hi] is bounded by two lines alL z + beL <= s(z) <= alU z + beU on [lo, hi]
   (src/bounds/crownrelax.c, each line checked with outward rounding).  An upper bound of a row lam . a
   of post-activations becomes lam' . z + c' with lam'_j = lam_j alU_j (lam_j >= 0) or lam_j alL_j
   (lam_j < 0); through an affine layer z = W a + b it becomes (lam' W) . a + lam' . b.  The
   coefficients are computed in double; their rounding error e_j (bounded a priori: one product
   |e| <= 2^-52 |p| + 2^-1073, a dot product of n terms |e| <= n 2^-52 sum |lam_o W_oj| + n 2^-1073)
   times a bound of |a_j| (or |z_j|) goes into the constant, rounded up, so the row stays an
   upper bound whatever the rounding.  At the input the row meets the input affine forms
   x_j = c0_j + C_j . xi + r_j and becomes A . xi + c.  Lower bounds are upper bounds of the
   negated rows.  The pre-activation bounds [lo, hi] of each layer are themselves obtained this
   way, layer by layer (the first layer exactly linear). */
#include <simreach/netaffine.h>
#include <simreach/private/netcrown.h>

#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define SR_TINY 0x1p-1000 /* >= the underflow part of one product's rounding error, with margin */

typedef struct {
  double alL, beL, alU, beU;
} Relax;

typedef struct {
  SRMLP           mlp;
  int             m;
  const SRAffine *x;         /* the inputs of layer first over m coordinates */
  int             first;     /* the first layer the relaxation sees: 1 when a linear layer 0 was applied to the forms (SRMLPForwardCrown) */
  double         *lo, *hi;   /* pre-activation bounds per layer, at off[l] */
  Relax          *rx;        /* relaxations per layer, at off[l] */
  double         *rl;        /* the same lines as arrays: alL, beL, alU, beU, each ntot long, at off[l] */
  PetscInt        ntot;      /* neurons of all layers */
  double         *amax;      /* bound of |a^l| per layer l = 0..nlayers, at aoff[l] */
  double         *zmax;      /* max(|lo|, |hi|) of the pre-activations per layer, at off[l] */
  double         *sc;        /* per network input, sum_s |C_js| (InputStep_Private) */
  PetscInt        off[SR_MAX_LAYERS + 2], aoff[SR_MAX_LAYERS + 3];
  double         *lam, *lam2, *c; /* rows x maxwidth (two buffers), rows constants */
  double         *wt;        /* a narrow layer's W transposed (at most 8 x maxwidth) */
  double         *dots;      /* the fused step's row sums (8 x 2 maxwidth) */
  int             pair;      /* 1: each row i stands for itself and its negation, row rows + i (below) */
  const double   *src;       /* when set, the rows the next RelaxStep_Private reads (stride srcld), not lam */
  PetscInt        srcld;
  double         *vbuf;      /* per affine layer l at off[l]: sum_j |W_oj| amax_j bounded above, once per call */
  bool            vdone[SR_MAX_LAYERS + 1];
  bool            parallel[SR_MAX_LAYERS + 1]; /* layer l's lines are parallel (alL = alU) for every neuron */
} Crown;

/* Paired rows.  A layer's own bounds start from the rows +W_l and -W_l.  When every layer the
   back-substitution passes has parallel lines (alL_j = alU_j: tanh and sigmoid always), the
   linear part of the row -lam stays the exact negation of the row lam's at every step (a
   product with -v is the negated product, a sum of negated terms the negated sum, in
   round-to-nearest), and only the constants differ, through the offsets each sign picks.  So
   only lam is stored and multiplied, and both constants are carried: the upper row's at c[i],
   the negated row's at c[rows + i].  The results are the same bits as with both rows. */

/* |s(z)| over [lo, hi] bounded */
static double AMax_Private(SRActivation act, double lo, double hi)
{
  if (act == SR_ACT_RELU) return SRMax_Private(0.0, hi);
  if (act == SR_ACT_TANH || act == SR_ACT_SIGMOID) return 1.0;
  return SRMax_Private(fabs(lo), fabs(hi));
}

/* Sums in round-to-nearest with an a-priori bound (Higham, Accuracy and Stability, §3.1).  With
   p_j = fl(x_j y_j), s = fl(sum p_j) and a = fl(sum |p_j|) over n terms (any order, no FMA):
   |s - sum x_j y_j| <= gamma_n sum |x_j y_j| + n 2^-1074 <= G(n) a + n SR_TINY with
   G(n) = (n + 2) 2^-51 = 2 (n + 2) u, which covers gamma_n (1 + gamma_n) / (1 - gamma_n) for
   n < 2^40.  An overflow gives inf and an inf - inf NaN, never a finite wrong bound (the callers
   reject a bound that is not finite). */
static double G_Private(PetscInt n) { return (double)(n + 2) * 0x1p-51; } /* exact: an integer below 2^53 times a power of two */

/* An upper bound U of the exact sum whose plain sums are s and a over n terms: U >= s + G(n) a + T
   with T = (n + 2) SR_TINY, in four round-to-nearest operations (no directed rounding, fused or
   not).  With u = 2^-53: w = fl(G a + T) >= (G a + T)(1 - 2u) (two positive terms), r = fl(s + w)
   with |r - (s + w)| <= u |r|, so s + G a + T <= r + u |r| + 2.01 u w.  The returned
   fl(r + m), m = fl(2^-51 (|r| + w) + SR_TINY) >= 3.99 u (|r| + w) + 0.99 SR_TINY (w >= T is
   normal, so the products' relative bounds hold up to an absolute 2^-1074, far below SR_TINY),
   is at least r + m - u |r + m| >= r + 2.98 u |r| + 3.98 u w >= s + G a + T.  inf and NaN stay. */
static inline double SumUp_Private(double s, double a, PetscInt n)
{
  const double w = G_Private(n) * a + (double)(n + 2) * SR_TINY, r = s + w;
  return r + (0x1p-51 * (fabs(r) + w) + SR_TINY);
}

/* An upper bound of a + b + c + d the same way: r = fl(((a + b) + c) + d) is within
   gamma_3 sum |t| <= 3.01 u sum |t| of the sum, A = fl(sum |t|) >= sum |t| (1 - gamma_3), and
   fl(r + fl(16 u A + SR_TINY)) >= r + 15.9 u sum |t| - u (|r| + m) >= r + 14.8 u sum |t| (the
   rows' constants, four terms at a time). */
static inline double Up4_Private(double a, double b, double c, double d)
{
  const double r = ((a + b) + c) + d, A = ((fabs(a) + fabs(b)) + fabs(c)) + fabs(d);
  return r + (0x1p-49 * A + SR_TINY);
}

/* an upper bound of x y for x, y >= 0: fl(fl(x y)(1 + 4u)) >= x y (1 - u)^2 (1 + 4u) >= x y,
   and SR_TINY for an underflow */
static inline double MulUpPos_Private(double x, double y) { return x * y * (1.0 + 0x1p-51) + SR_TINY; }

/* row i's constants (c[i] and, for paired rows, c[rows + i]) after a relax step over n neurons,
   from the plain sums s, a (the offsets' terms), ez (sum |lam'_j| zmax_j) and s2, a2 (the
   negated row's offsets): e <= 2^-52 sum |lam'_j| zmax_j + SR_TINY sum zmax_j (zs) bounds the
   rounding of lam'_j = fl(lam_j al_j) times |z_j| */
static inline void RelaxConstants_Private(double *c, int rows, int i, int pair, PetscInt n, double zs, double s, double a, double ez, double s2, double a2)
{
  const double e = Up4_Private(MulUpPos_Private(0x1p-52, SumUp_Private(ez, ez, n)), MulUpPos_Private(SR_TINY, zs), 0.0, 0.0);
  c[i]           = Up4_Private(c[i], SumUp_Private(s, a, n), e, 0.0);
  if (pair) c[rows + i] = Up4_Private(c[rows + i], SumUp_Private(s2, a2, n), e, 0.0);
}

/* rows over a^{l+1} -> rows over z^l (relaxations of layer l).  lam'_j = fl(lam_j al_j) is the new
   row, exact by definition; its rounding error against lam_j al_j, at most 2^-52 |lam'_j| + SR_TINY,
   times |z_j| <= zmax_j goes into the constant (e), as does the rounding of sum lam_j be_j.  The
   lines are read from the per-layer arrays rl (alL, beL, alU, beU, each at off[l]); four
   neurons at a time (partial sums: any order is covered by the bound). */
SR_CROWN_CLONES static void RelaxStep_Private(Crown *C, int rows, int l)
{
  const int pair = C->pair;
  const PetscInt n = C->mlp->width[l + 1], nt = C->ntot, n4 = SR_VEC4 ? n - n % 4 : 0;
  const double  *alL = C->rl + C->off[l], *beL = alL + nt, *alU = beL + nt, *beU = alU + nt;
  const double  *zm  = C->zmax + C->off[l];
  double         zs  = 0.0;
  for (PetscInt j = 0; j < n; j++) zs = SRAddUp(zs, zm[j]);
  const double *in = C->src ? C->src : C->lam;
  const PetscInt ldin = C->src ? C->srcld : C->mlp->maxwidth;
  for (int i = 0; i < rows; i++) {
    double       *lam = C->lam + (size_t)i * C->mlp->maxwidth, s = 0.0, a = 0.0, ez = 0.0, s2 = 0.0, a2 = 0.0;
    const double *lin = in + (size_t)i * ldin;
    PetscInt      j = 0;
#if SR_VEC4
    {
      const SRCrownVec_Private  zero = {0, 0, 0, 0};
      const SRCrownMask_Private absm = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
      SRCrownVec_Private        vs = zero, va = zero, vz = zero, vs2 = zero, va2 = zero;
      for (; j < n4; j += 4) {
        SRCrownVec_Private  v, l0, l1, b0, b1, z, al, be, p, q;
        SRCrownMask_Private pos;
        memcpy(&v, lin + j, sizeof v), memcpy(&l0, alL + j, sizeof v), memcpy(&l1, alU + j, sizeof v);
        memcpy(&b0, beL + j, sizeof v), memcpy(&b1, beU + j, sizeof v), memcpy(&z, zm + j, sizeof v);
        pos = v >= zero;
        al  = (SRCrownVec_Private)(((SRCrownMask_Private)l1 & pos) | ((SRCrownMask_Private)l0 & ~pos));
        be  = (SRCrownVec_Private)(((SRCrownMask_Private)b1 & pos) | ((SRCrownMask_Private)b0 & ~pos));
        p   = v * be;
        q   = v * al;
        memcpy(lam + j, &q, sizeof q);
        vs += p;
        va += (SRCrownVec_Private)((SRCrownMask_Private)p & absm);
        vz += (SRCrownVec_Private)((SRCrownMask_Private)q & absm) * z;
        if (pair) { /* the row -v: its offsets are those of -v's signs */
          const SRCrownVec_Private  w  = -v;
          const SRCrownMask_Private pw = w >= zero;
          const SRCrownVec_Private  p2 = w * (SRCrownVec_Private)(((SRCrownMask_Private)b1 & pw) | ((SRCrownMask_Private)b0 & ~pw));
          vs2 += p2;
          va2 += (SRCrownVec_Private)((SRCrownMask_Private)p2 & absm);
        }
      }
      s = (vs[0] + vs[1]) + (vs[2] + vs[3]), a = (va[0] + va[1]) + (va[2] + va[3]), ez = (vz[0] + vz[1]) + (vz[2] + vz[3]);
      s2 = (vs2[0] + vs2[1]) + (vs2[2] + vs2[3]), a2 = (va2[0] + va2[1]) + (va2[2] + va2[3]);
    }
#endif
    for (; j < n; j++) {
      const double v = lin[j], p = v * (v >= 0 ? beU[j] : beL[j]), w = -v, p2 = w * (w >= 0 ? beU[j] : beL[j]);
      lam[j] = v * (v >= 0 ? alU[j] : alL[j]);
      s += p, a += fabs(p), ez += fabs(lam[j]) * zm[j];
      s2 += p2, a2 += fabs(p2);
    }
    RelaxConstants_Private(C->c, rows, i, pair, n, zs, s, a, ez, s2, a2);
  }
}

/* what affine layer l's step adds to every row's constants: v_o = sum_j |W_oj| amax_j (once per
   call), g = (no + 2) 2^-51 and the underflow part es */
static void AffinePrep_Private(Crown *C, int l, double *g, double *es)
{
  SRMLP          mlp = C->mlp;
  const PetscInt ni = mlp->width[l], no = mlp->width[l + 1];
  const double  *W = mlp->params + mlp->woff[l], *am = C->amax + C->aoff[l];
  double        *v = C->vbuf + C->off[l], sa = 0.0;
  *g = SRMulUp((double)(no + 2), 0x1p-51);
  for (PetscInt j = 0; j < ni; j++) sa = SRAddUp(sa, am[j]);
  if (!C->vdone[l]) /* amax of layer l is fixed within a call: once */
    for (PetscInt o = 0; o < no; o++) { /* sum_j |W_oj| amax_j in nearest, bounded above (amax >= 0) */
      double s, a;
      SRCrownDot3(ni, W + o * ni, am, NULL, &s, &a, NULL);
      v[o] = SumUp_Private(a, a, ni);
    }
  C->vdone[l] = true;
  *es = SRMulUp(SRMulUp((double)(no + 2), SR_TINY), sa); /* the same for every row */
}

/* row i's constants after affine layer l (no outputs), from s = sum_o lam_o b_o, a = sum_o
   |lam_o b_o| and t = sum_o |lam_o| v_o computed in nearest: the rounding of the dot products is
   at most n 2^-52 sum_o |lam_o| sum_j |W_oj| amax_j, doubled (t bounded above as in SumUp_Private) */
static void AffineConstants_Private(Crown *C, int rows, int i, PetscInt no, double g, double es, double s, double a, double t)
{
  const double et = MulUpPos_Private(g, SumUp_Private(t, t, no));
  C->c[i]         = Up4_Private(C->c[i], SumUp_Private(s, a, no), et, es);
  if (C->pair) C->c[rows + i] = Up4_Private(C->c[rows + i], SumUp_Private(-s, a, no), et, es); /* the row -lam: sum -s */
}

static void SwapRows_Private(Crown *C)
{
  double *s = C->lam;
  C->lam    = C->lam2;
  C->lam2   = s;
}

/* rows over z^l -> rows over a^l (affine layer l) */
static void AffineStep_Private(Crown *C, int rows, int l)
{
  SRMLP          mlp = C->mlp;
  const PetscInt ni = mlp->width[l], no = mlp->width[l + 1], mw = mlp->maxwidth;
  const double  *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l], *v = C->vbuf + C->off[l];
  double         g, es;
  AffinePrep_Private(C, l, &g, &es);
  SRCrownGemm(rows, no, ni, mw, C->lam, W, C->lam2); /* a narrow layer takes RelaxAffineNarrow_Private instead (BackSub_Private) */
  for (int i = 0; i < rows; i++) {
    double s, a, t;
    SRCrownDot3(no, C->lam + (size_t)i * mw, b, v, &s, &a, &t);
    AffineConstants_Private(C, rows, i, no, g, es, s, a, t);
  }
  SwapRows_Private(C);
}

static void RelaxAffineNarrow_Private(Crown *C, int rows, int l)
{
  SRMLP          mlp = C->mlp;
  const PetscInt ni = mlp->width[l], no = mlp->width[l + 1], mw = mlp->maxwidth, nt = C->ntot;
  const double  *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l], *v = C->vbuf + C->off[l];
  const double  *alL = C->rl + C->off[l], *beL = alL + nt, *alU = beL + nt, *beU = alU + nt, *zm = C->zmax + C->off[l];
  double         g, es, zs = 0.0, *S = C->dots;
  for (PetscInt j = 0; j < no; j++) zs = SRAddUp(zs, zm[j]);
  AffinePrep_Private(C, l, &g, &es);
  for (PetscInt o = 0; o < no; o++)
    for (PetscInt j = 0; j < ni; j++) C->wt[j * no + o] = W[o * ni + j];
  SRCrownRelaxNarrowRows(rows, no, ni, C->src ? C->src : C->lam, C->src ? C->srcld : mw, alL, beL, alU, beU, zm, C->wt, b, v, C->pair, C->lam2, mw, S);
  for (int i = 0; i < rows; i++) {
    /* the relax step's constants (RelaxStep_Private), then the affine step's */
    RelaxConstants_Private(C->c, rows, i, C->pair, no, zs, S[i], S[rows + i], S[2 * rows + i], S[3 * rows + i], S[4 * rows + i]);
    AffineConstants_Private(C, rows, i, no, g, es, S[5 * rows + i], S[6 * rows + i], S[7 * rows + i]);
  }
  C->src = NULL;
  SwapRows_Private(C);
}

/* rows over a^0 = the input forms -> A (rows x m) and upper constants c */
static void InputStep_Private(Crown *C, int rows, double *A)
{
  const int      m   = C->m;
  const PetscInt nin = C->mlp->width[C->first], mw = C->mlp->maxwidth;
  double         g   = SRMulUp((double)(nin + 2), 0x1p-51), *sc = C->sc;
  for (PetscInt j = 0; j < nin; j++) { /* sum_s |C_js| rounded up, once per input */
    double t = 0.0;
    for (int s = 0; s < m; s++) t = SRAddUp(t, fabs(C->x[j].c[s]));
    sc[j] = t;
  }
  for (int i = 0; i < rows; i++) {
    /* the constant: sum_j l_j c0_j + max(l_j r_j) as 2 nin plain products summed, bounded above
       by SumUp_Private (the row -lam likewise, with -l_j) */
    const double *lam = C->lam + (size_t)i * mw;
    double        s = 0.0, a = 0.0, s2 = 0.0, a2 = 0.0, t = 0.0, *restrict A_i = A + (size_t)i * m;
    for (int k = 0; k < m; k++) A_i[k] = 0.0;
    for (PetscInt j = 0; j < nin; j++) {
      const SRAffine *x = &C->x[j];
      const double    l = lam[j];
      if (l == 0) continue;
      SRCrownAxpy(m, l, x->c, A_i);
      {
        const double p = l * x->c0, q = l * (l >= 0 ? x->r.hi : x->r.lo);
        s += p + q, a += fabs(p) + fabs(q), t += fabs(l) * sc[j];
        if (C->pair) { /* the row -lam (its A is -A_i) */
          const double q2 = -l * (l <= 0 ? x->r.hi : x->r.lo);
          s2 += -p + q2, a2 += fabs(p) + fabs(q2);
        }
      }
    }
    {
      /* rounding of A: n 2^-52 sum_j |lam_j| sum_s |C_js| doubled, plus the underflow part */
      const double e = Up4_Private(MulUpPos_Private(g, SumUp_Private(t, t, nin)), (double)(nin + 2) * SR_TINY, 0.0, 0.0);
      C->c[i]        = Up4_Private(C->c[i], SumUp_Private(s, a, 2 * nin), e, 0.0);
      if (C->pair) C->c[rows + i] = Up4_Private(C->c[rows + i], SumUp_Private(s2, a2, 2 * nin), e, 0.0);
    }
  }
}

/* rows over a^l (the inputs of affine layer l) down to xi */
static void BackSub_Private(Crown *C, int rows, int l, double *A)
{
  for (; l > C->first; l--) {
    const PetscInt ni = C->mlp->width[l - 1], no = C->mlp->width[l];
    if (ni <= 8 && no >= 16) { /* the two steps in one pass */
      RelaxAffineNarrow_Private(C, rows, l - 1);
      continue;
    }
    RelaxStep_Private(C, rows, l - 1);
    C->src = NULL; /* from here on the rows are lam */
    AffineStep_Private(C, rows, l - 1);
  }
  InputStep_Private(C, rows, A);
}

/* rows = +W_l and -W_l over a^l, constants +b_l and -b_l: the rows +I and -I over z^l through
   the affine layer l, which is exact (products with 1 and negations), so the n x n_in x 2n
   product of a back-substitution step is not needed for a layer's own bounds */
static void Weights_Private(Crown *C, PetscInt l)
{
  SRMLP          mlp = C->mlp;
  const PetscInt ni = mlp->width[l], no = mlp->width[l + 1], mw = mlp->maxwidth;
  const double  *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];
  if (C->pair && l > C->first) { /* the first relax step reads +W_l in place (the negated rows are implied) */
    C->src = W, C->srcld = ni;
    for (PetscInt i = 0; i < no; i++) C->c[i] = b[i], C->c[no + i] = -b[i];
    return;
  }
  for (PetscInt i = 0; i < no; i++) {
    double *up = C->lam + (size_t)i * mw, *dn = C->lam + (size_t)(no + i) * mw;
    for (PetscInt j = 0; j < ni; j++) up[j] = W[i * ni + j];
    if (!C->pair)
      for (PetscInt j = 0; j < ni; j++) dn[j] = -W[i * ni + j];
    C->c[i] = b[i], C->c[no + i] = -b[i];
  }
}

/* rows = +I and -I over n targets */
static void Identity_Private(Crown *C, PetscInt n)
{
  const PetscInt mw = C->mlp->maxwidth;
  for (PetscInt i = 0; i < 2 * n; i++) {
    double *lam = C->lam + (size_t)i * mw;
    for (PetscInt j = 0; j < mw; j++) lam[j] = 0.0;
    lam[i % n] = i < n ? 1.0 : -1.0;
    C->c[i]    = 0.0;
  }
}

/* sum_s |a_s| bounded above (SumUp_Private) */
static double AbsSumUp_Private(int m, const double *a)
{
  double t = 0.0;
  for (int s = 0; s < m; s++) t += fabs(a[s]);
  return SumUp_Private(t, t, m);
}

/* sup of A_i . xi + c_i over [-1, 1]^m */
static double Sup_Private(int m, const double *a, double c) { return SRAddUp(c, AbsSumUp_Private(m, a)); }

/* bounds and relaxations of the pre-activations of layer l */
static bool LayerBounds_Private(Crown *C, int l, double *A)
{
  const PetscInt n = C->mlp->width[l + 1];
  const int      m = C->m;
  bool           par = true;
  if (C->mlp->act[l] == SR_ACT_LINEAR && l > C->first && l + 1 < C->mlp->nlayers) {
    /* a linear layer inside the network (not the last, whose rows give the outputs): its
       lines are the identity whatever its bounds, which enter only the rounding terms (zmax,
       amax of the next layer), so interval bounds from |a^l| <= amax do (sound, and no
       back-substitution through the wide layers before it) */
    SRMLP          mlp = C->mlp;
    const PetscInt ni = mlp->width[l];
    const double  *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l], *am = C->amax + C->aoff[l];
    C->parallel[l] = true;
    for (PetscInt j = 0; j < n; j++) {
      const PetscInt k = C->off[l] + j, t = C->ntot;
      double         v = 0.0, lo, hi;
      for (PetscInt i = 0; i < ni; i++) v = SRAddUp(v, SRMulUp(fabs(W[j * ni + i]), am[i]));
      lo = SRSubDown(b[j], v), hi = SRAddUp(b[j], v);
      if (!(isfinite(lo) && isfinite(hi))) return false;
      C->lo[k] = lo, C->hi[k] = hi, C->zmax[k] = SRMax_Private(fabs(lo), fabs(hi));
      C->rx[k] = (Relax){1.0, 0.0, 1.0, 0.0};
      C->rl[k] = 1.0, C->rl[t + k] = 0.0, C->rl[2 * t + k] = 1.0, C->rl[3 * t + k] = 0.0;
      C->amax[C->aoff[l + 1] + j] = C->zmax[k];
    }
    return true;
  }
  for (int k = 0; k < l; k++) par = par && C->parallel[k];
  C->pair = par; /* the rows -W_l as negations of +W_l (paired rows, above) */
  Weights_Private(C, l);
  BackSub_Private(C, (int)(par ? n : 2 * n), l, A);
  C->pair = 0;
  C->parallel[l] = true;
  for (PetscInt j = 0; j < n; j++) {
    double hi, lo;
    if (par) { /* one row, sum |A_j| once, the two constants */
      const double t = AbsSumUp_Private(m, A + (size_t)j * m);
      hi = SRAddUp(C->c[j], t), lo = -SRAddUp(C->c[n + j], t);
    } else hi = Sup_Private(m, A + (size_t)j * m, C->c[j]), lo = -Sup_Private(m, A + (size_t)(n + j) * m, C->c[n + j]);
    if (!(isfinite(lo) && isfinite(hi) && lo <= hi)) return false;
    C->lo[C->off[l] + j] = lo, C->hi[C->off[l] + j] = hi, C->zmax[C->off[l] + j] = SRMax_Private(fabs(lo), fabs(hi));
    {
      Relax *r = &C->rx[C->off[l] + j];
      if (!SRCrownRelax_Private(C->mlp->act[l], lo, hi, &r->alL, &r->beL, &r->alU, &r->beU)) return false; /* src/bounds/crownrelax.c */
    }
    {
      const Relax  *r = &C->rx[C->off[l] + j];
      const PetscInt k = C->off[l] + j, t = C->ntot;
      C->rl[k] = r->alL, C->rl[t + k] = r->beL, C->rl[2 * t + k] = r->alU, C->rl[3 * t + k] = r->beU;
      if (!(r->alL == r->alU)) C->parallel[l] = false;
    }
    C->amax[C->aoff[l + 1] + j] = AMax_Private(C->mlp->act[l], lo, hi);
  }
  return true;
}

/* the form c0 + c . xi + r between the lower row -(An . xi + cn) and the upper row Au . xi + cu */
static SRAffine Form_Private(int m, const double *Au, double cu, const double *An, double cn)
{
  SRAffine y = SRAffineConstant(0.0);
  double   su = 0.0, sl = 0.0;
  y.c0 = 0.5 * cu - 0.5 * cn;
  for (int s = 0; s < m; s++) {
    y.c[s] = 0.5 * Au[s] - 0.5 * An[s];
    su     = SRAddUp(su, SRMax_Private(fabs(SRSubUp(Au[s], y.c[s])), fabs(SRSubDown(Au[s], y.c[s]))));
    sl     = SRAddUp(sl, SRMax_Private(fabs(SRAddUp(An[s], y.c[s])), fabs(SRAddDown(An[s], y.c[s]))));
  }
  /* y <= Au xi + cu = c xi + c0 + (Au - c) xi + cu - c0;  y >= -An xi - cn = c xi + c0 - (An + c) xi - cn - c0 */
  y.r = (SRInterval){SRSubDown(SRSubDown(SRSubDown(0.0, cn), y.c0), sl), SRAddUp(SRSubUp(cu, y.c0), su)};
  return y;
}

static bool Alloc_Private(Crown *C, SRMLP mlp, int m)
{
  const PetscInt L = mlp->nlayers, mw = mlp->maxwidth;
  PetscInt       no = 0, na = 0;
  for (PetscInt l = 0; l < L; l++) C->off[l] = no, no += mlp->width[l + 1];
  for (PetscInt l = 0; l <= L; l++) C->aoff[l] = na, na += mlp->width[l];
  C->lo   = malloc(sizeof(double) * (size_t)(8 * no + 2 * na));
  C->rx   = malloc(sizeof(Relax) * (size_t)no);
  C->lam  = malloc(sizeof(double) * (size_t)(2 * mw + 1) * (size_t)mw);
  C->lam2 = malloc(sizeof(double) * (size_t)(2 * mw + 1) * (size_t)mw);
  C->wt   = malloc(sizeof(double) * 8 * (size_t)mw);
  C->dots = malloc(sizeof(double) * 16 * (size_t)mw);
  C->c    = malloc(sizeof(double) * (size_t)(2 * mw) * (size_t)(m + 1));
  if (!C->lo || !C->rx || !C->lam || !C->lam2 || !C->c || !C->wt || !C->dots) return false;
  C->hi = C->lo + no, C->zmax = C->hi + no, C->amax = C->zmax + no, C->sc = C->amax + na, C->rl = C->sc + na, C->vbuf = C->rl + 4 * no, C->ntot = no;
  return true;
}

/* Au' = al A (entries rounded to nearest) and an upper bound of al c + be plus the rounding of
   Au': |al a_s - fl(al a_s)| <= 2^-53 |fl(al a_s)| + 2^-1075 per entry, times |xi_s| <= 1 */
static double ScaleRow_Private(int m, double al, const double *A, double c, double be, double *Au)
{
  for (int s = 0; s < m; s++) Au[s] = al * A[s];
  return SRAddUp(SRAddUp(SRAddUp(SRMulUp(al, c), be), SRMulUp(0x1p-53, AbsSumUp_Private(m, Au))), (double)(m + 2) * SR_TINY);
}

/* The outputs from the last layer's own bounds.  Its rows z_o <= A_o . xi + c_o and -z_o <=
   An_o . xi + cn_o are computed (LayerBounds_Private) before its activation is relaxed by
   alL z + beL <= s(z) <= alU z + beU; with alU, alL >= 0 (relu, tanh, sigmoid, linear) the
   outputs are bounded by s(z_o) <= alU (A_o . xi + c_o) + beU and -s(z_o) <= alL (An_o . xi +
   cn_o) - beL.  Back-substituting the outputs from a^L gives the same rows in exact arithmetic
   (every step is linear in the row, and a factor al >= 0 keeps every sign and so every choice of
   line), so that pass is not run.  false (nothing written) when a slope is negative. */
static bool LastLayer_Private(Crown *C, const double *A, SRAffine *out)
{
  const PetscInt L = C->mlp->nlayers, n = C->mlp->width[L];
  const int      m = C->m;
  bool           par = true;
  double        *Au, *An;
  for (PetscInt k = 0; k + 1 < L; k++) par = par && C->parallel[k];
  for (PetscInt o = 0; o < n; o++) {
    const Relax *r = &C->rx[C->off[L - 1] + o];
    if (!(r->alL >= 0 && r->alU >= 0)) return false;
  }
  if (!(Au = malloc(sizeof(double) * 2 * (size_t)(m + 1)))) return false;
  An = Au + m + 1;
  for (PetscInt o = 0; o < n; o++) {
    const Relax  *r  = &C->rx[C->off[L - 1] + o];
    const double *Ao = A + (size_t)o * m;
    double        cu, cn;
    cu = ScaleRow_Private(m, r->alU, Ao, C->c[o], r->beU, Au);
    if (par) { /* the lower row is -A_o (paired rows) */
      for (int s = 0; s < m; s++) An[s] = -Ao[s];
      cn = ScaleRow_Private(m, r->alL, An, C->c[n + o], -r->beL, An);
    } else cn = ScaleRow_Private(m, r->alL, A + (size_t)(n + o) * m, C->c[n + o], -r->beL, An);
    out[o] = Form_Private(m, Au, cu, An, cn);
  }
  free(Au);
  return true;
}

static bool OutputsFinite_Private(int m, PetscInt nout, const SRAffine *out)
{
  for (PetscInt o = 0; o < nout; o++)
    if (SRAffineIsNaI(&out[o]) || !SRIntervalIsBounded(out[o].r)) return false;
  return true;
}

bool SRMLPForwardCrown(SRMLP mlp, int m, const SRAffine *in, SRAffine *out)
{
  Crown          C = {.mlp = mlp, .m = m, .x = in}; /* the rest zero */
  const PetscInt L = mlp->nlayers, nout = mlp->width[L];
  double        *A = NULL;
  SRAffine      *y = NULL;
  bool           ok = Alloc_Private(&C, mlp, m);
  if (ok) A = malloc(sizeof(double) * ((size_t)(2 * mlp->maxwidth) * (size_t)m + 1)), ok = A != NULL;
  if (ok && L > 1 && mlp->act[0] == SR_ACT_LINEAR && mlp->width[0] <= 64 && mlp->width[1] <= 16 && (y = malloc(sizeof(SRAffine) * (size_t)mlp->width[1]))) {
    /* a linear layer 0 (an imported network's input normalisation) applied to the forms in
       affine arithmetic (outward rounded: SRAffineDotInterval), so that no row of the
       back-substitution passes it (its lines are the identity) */
    const PetscInt ni = mlp->width[0];
    const double  *W = mlp->params + mlp->woff[0], *b = mlp->params + mlp->boff[0];
    const SRAffine *ptr[64];
    SRInterval      sc[64];
    for (PetscInt i = 0; i < ni; i++) ptr[i] = &in[i];
    for (PetscInt j = 0; ok && j < mlp->width[1]; j++) {
      for (PetscInt i = 0; i < ni; i++) sc[i] = SRIntervalPoint(W[j * ni + i]);
      y[j] = SRAffineDotInterval(m, (int)ni, sc, ptr, SRIntervalPoint(b[j]));
    }
    C.x = y, C.first = 1, C.parallel[0] = true;
  }
  for (PetscInt j = 0; ok && j < mlp->width[C.first]; j++) {
    SRInterval R = SRAffineRange(m, &C.x[j]);
    ok           = SRIntervalIsBounded(R) && !SRAffineIsNaI(&C.x[j]);
    if (ok) C.amax[C.aoff[C.first] + j] = SRMax_Private(fabs(R.lo), fabs(R.hi));
  }
  for (PetscInt l = C.first; ok && l < L; l++) ok = LayerBounds_Private(&C, (int)l, A);
  if (ok && LastLayer_Private(&C, A, out)) ok = OutputsFinite_Private(m, nout, out);
  else if (ok) {
    /* the outputs a^L: relaxed by the last activation, then back to xi */
    bool par = true;
    for (PetscInt l = 0; l < L; l++) par = par && C.parallel[l];
    C.pair = par; /* the rows -I as negations of +I (paired rows) */
    Identity_Private(&C, nout);
    BackSub_Private(&C, (int)(par ? nout : 2 * nout), (int)L, A);
    if (par)
      for (PetscInt o = 0; o < nout; o++)
        for (int s = 0; s < m; s++) A[(size_t)(nout + o) * m + s] = -A[(size_t)o * m + s];
    for (PetscInt o = 0; o < nout; o++) {
      out[o] = Form_Private(m, A + (size_t)o * m, C.c[o], A + (size_t)(nout + o) * m, C.c[nout + o]);
      if (SRAffineIsNaI(&out[o]) || !SRIntervalIsBounded(out[o].r)) ok = false;
    }
  }
  free(A), free(y), free(C.lo), free(C.rx), free(C.lam), free(C.lam2), free(C.c), free(C.wt), free(C.dots);
  return ok;
}
