/* The vector kernels of CROWN's back-substitution (src/bounds/netcrown.c, SPEC §15): block
   products, dot products and the fused relax-and-narrow-layer pass, over plain arrays.  Every
   sum here is a plain round-to-nearest sum in some order; netcrown.c bounds its rounding a
   priori (Higham), whatever the order, so the lanes and tiles are free.  Each kernel is
   compiled for AVX-512, AVX2 and the baseline, chosen at run time (SR_CROWN_CLONES). */
#include <simreach/private/netcrown.h>

#include <stdint.h>
#include <string.h>

#define SR_CT_I 4 /* rows per tile */
#define SR_CT_J 8 /* columns per tile (two vectors of 4) */

/* O (rows x ni, row stride ld) = L (rows x no, row stride ld) W (no x ni): each entry summed over
   o = 0, 1, ... in order (plain products and sums; their rounding is bounded by the callers
   a priori, whatever the order), SR_CT_I x SR_CT_J entries in registers. */
SR_CROWN_CLONES void SRCrownGemm(int rows, PetscInt no, PetscInt ni, PetscInt ld, const double *restrict L, const double *restrict W, double *restrict O)
{
  int i0 = 0;
  for (; i0 + SR_CT_I <= rows; i0 += SR_CT_I) {
    PetscInt j0 = 0;
#if defined(__GNUC__)
    for (; j0 + SR_CT_J <= ni; j0 += SR_CT_J) {
      SRCrownVec_Private acc[SR_CT_I][2] = {{{0}}};
      for (PetscInt o = 0; o < no; o++) {
        SRCrownVec_Private w0, w1;
        memcpy(&w0, W + o * ni + j0, sizeof w0);
        memcpy(&w1, W + o * ni + j0 + 4, sizeof w1);
        for (int s = 0; s < SR_CT_I; s++) {
          const double             x  = L[(size_t)(i0 + s) * ld + o];
          const SRCrownVec_Private xv = {x, x, x, x};
          acc[s][0] += xv * w0;
          acc[s][1] += xv * w1;
        }
      }
      for (int s = 0; s < SR_CT_I; s++) memcpy(O + (size_t)(i0 + s) * ld + j0, acc[s], sizeof acc[s]);
    }
    for (; j0 + 4 <= ni; j0 += 4) { /* four columns (a layer of 4 inputs) */
      SRCrownVec_Private acc[SR_CT_I] = {{0}};
      for (PetscInt o = 0; o < no; o++) {
        SRCrownVec_Private w0;
        memcpy(&w0, W + o * ni + j0, sizeof w0);
        for (int s = 0; s < SR_CT_I; s++) {
          const double             x  = L[(size_t)(i0 + s) * ld + o];
          const SRCrownVec_Private xv = {x, x, x, x};
          acc[s] += xv * w0;
        }
      }
      for (int s = 0; s < SR_CT_I; s++) memcpy(O + (size_t)(i0 + s) * ld + j0, &acc[s], sizeof acc[s]);
    }
#endif
    for (int s = 0; s < SR_CT_I; s++)
      for (PetscInt j = j0; j < ni; j++) {
        double t = 0.0;
        for (PetscInt o = 0; o < no; o++) t += L[(size_t)(i0 + s) * ld + o] * W[o * ni + j];
        O[(size_t)(i0 + s) * ld + j] = t;
      }
  }
  for (int i = i0; i < rows; i++) { /* the last rows one at a time: O_i += L_io W_o, o in order */
    double  *restrict Oi = O + (size_t)i * ld;
    PetscInt j4 = 0;
    for (PetscInt j = 0; j < ni; j++) Oi[j] = 0.0;
#if defined(__GNUC__)
    j4 = ni - ni % 4;
#endif
    for (PetscInt o = 0; o < no; o++) {
      const double x = L[(size_t)i * ld + o];
#if defined(__GNUC__)
      const SRCrownVec_Private xv = {x, x, x, x};
      for (PetscInt j = 0; j < j4; j += 4) {
        SRCrownVec_Private w0, a0;
        memcpy(&w0, W + o * ni + j, sizeof w0), memcpy(&a0, Oi + j, sizeof a0);
        a0 += xv * w0;
        memcpy(Oi + j, &a0, sizeof a0);
      }
#endif
      for (PetscInt j = j4; j < ni; j++) Oi[j] += x * W[o * ni + j];
    }
  }
}

/* s = sum_o x_o b_o, a = sum_o |x_o b_o|, t = sum_o |x_o| v_o (v NULL: t untouched), in four
   partial sums (any order is covered by SumUp_Private's bound) */
SR_CROWN_CLONES void SRCrownDot3(PetscInt n, const double *restrict x, const double *restrict b, const double *restrict v, double *s, double *a, double *t)
{
  PetscInt j = 0;
  double   ss = 0.0, aa = 0.0, tt = 0.0;
#if SR_VEC4
  {
    const SRCrownVec_Private  zero = {0, 0, 0, 0};
    const SRCrownMask_Private absm = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    SRCrownVec_Private        vs = zero, va = zero, vt = zero;
    for (; j + 4 <= n; j += 4) {
      SRCrownVec_Private xv, bv, p;
      memcpy(&xv, x + j, sizeof xv), memcpy(&bv, b + j, sizeof bv);
      p = xv * bv;
      vs += p;
      va += (SRCrownVec_Private)((SRCrownMask_Private)p & absm);
      if (v) {
        SRCrownVec_Private vv;
        memcpy(&vv, v + j, sizeof vv);
        vt += (SRCrownVec_Private)((SRCrownMask_Private)xv & absm) * vv;
      }
    }
    ss = (vs[0] + vs[1]) + (vs[2] + vs[3]), aa = (va[0] + va[1]) + (va[2] + va[3]), tt = (vt[0] + vt[1]) + (vt[2] + vt[3]);
  }
#endif
  for (; j < n; j++) {
    const double p = x[j] * b[j];
    ss += p, aa += fabs(p);
    if (v) tt += fabs(x[j]) * v[j];
  }
  *s = ss, *a = aa;
  if (v) *t = tt;
}

/* a += l x over m entries (each entry one product and one sum: the same bits in any grouping) */
SR_CROWN_CLONES void SRCrownAxpy(int m, double l, const double *restrict x, double *restrict a)
{
  int s = 0;
#if SR_VEC4
  const SRCrownVec_Private lv = {l, l, l, l};
  for (; s + 4 <= m; s += 4) {
    SRCrownVec_Private xv, av;
    memcpy(&xv, x + s, sizeof xv), memcpy(&av, a + s, sizeof av);
    av += lv * xv;
    memcpy(a + s, &av, sizeof av);
  }
#endif
  for (; s < m; s++) a[s] += l * x[s];
}

/* RelaxStep_Private(l) then AffineStep_Private(l) for a narrow affine layer l (ni <= 8 inputs,
   no >= 16 outputs: the network's first layers) in one pass over each row: the same products
   (lam'_j = fl(lam_j al_j), the offsets' and the dot products' terms), summed in another order,
   which the a-priori bounds of both steps cover; lam' is never stored.  Per row i, sums[k rows
   + i] for k = 0..7: s, a, ez, s2, a2 of the relax step, s, a, t of the affine step. */
SR_CROWN_CLONES void SRCrownRelaxNarrowRows(int rows, PetscInt no, PetscInt ni, const double *in, PetscInt ldin, const double *alL, const double *beL, const double *alU, const double *beU, const double *zm, const double *WT, const double *b, const double *vb, int pair, double *out, PetscInt ldout, double *sums)
{
  for (int i = 0; i < rows; i++) {
    const double *lin = in + (size_t)i * ldin;
    PetscInt      j   = 0;
    double        t[8] = {0, 0, 0, 0, 0, 0, 0, 0}, r[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#if defined(__GNUC__)
    {
      const SRCrownVec8_Private  zero = {0};
      const SRCrownMask8_Private absm = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
      SRCrownVec8_Private        acc[8] = {{0}}, vs = zero, va = zero, vz = zero, vs2 = zero, va2 = zero, ds = zero, da = zero, dt = zero;
      for (; j + 8 <= no; j += 8) {
        SRCrownVec8_Private  v, l0, l1, b0, b1, z, al, be, p, q, bv, vv, pb;
        SRCrownMask8_Private pos;
        memcpy(&v, lin + j, sizeof v), memcpy(&l0, alL + j, sizeof v), memcpy(&l1, alU + j, sizeof v);
        memcpy(&b0, beL + j, sizeof v), memcpy(&b1, beU + j, sizeof v), memcpy(&z, zm + j, sizeof v);
        memcpy(&bv, b + j, sizeof v), memcpy(&vv, vb + j, sizeof v);
        pos = v >= zero;
        al  = (SRCrownVec8_Private)(((SRCrownMask8_Private)l1 & pos) | ((SRCrownMask8_Private)l0 & ~pos));
        be  = (SRCrownVec8_Private)(((SRCrownMask8_Private)b1 & pos) | ((SRCrownMask8_Private)b0 & ~pos));
        p   = v * be;
        q   = v * al; /* lam'_j */
        vs += p;
        va += (SRCrownVec8_Private)((SRCrownMask8_Private)p & absm);
        vz += (SRCrownVec8_Private)((SRCrownMask8_Private)q & absm) * z;
        if (pair) {
          const SRCrownVec8_Private  w  = -v;
          const SRCrownMask8_Private pw = w >= zero;
          const SRCrownVec8_Private  p2 = w * (SRCrownVec8_Private)(((SRCrownMask8_Private)b1 & pw) | ((SRCrownMask8_Private)b0 & ~pw));
          vs2 += p2;
          va2 += (SRCrownVec8_Private)((SRCrownMask8_Private)p2 & absm);
        }
        for (PetscInt k = 0; k < ni; k++) {
          SRCrownVec8_Private wv;
          memcpy(&wv, WT + k * no + j, sizeof wv);
          acc[k] += q * wv;
        }
        pb = q * bv;
        ds += pb;
        da += (SRCrownVec8_Private)((SRCrownMask8_Private)pb & absm);
        dt += (SRCrownVec8_Private)((SRCrownMask8_Private)q & absm) * vv;
      }
      for (PetscInt k = 0; k < ni; k++) t[k] = ((acc[k][0] + acc[k][1]) + (acc[k][2] + acc[k][3])) + ((acc[k][4] + acc[k][5]) + (acc[k][6] + acc[k][7]));
#define SR_SUM8(x) (((x)[0] + (x)[1]) + ((x)[2] + (x)[3])) + (((x)[4] + (x)[5]) + ((x)[6] + (x)[7]))
      r[0] = SR_SUM8(vs), r[1] = SR_SUM8(va), r[2] = SR_SUM8(vz), r[3] = SR_SUM8(vs2), r[4] = SR_SUM8(va2), r[5] = SR_SUM8(ds), r[6] = SR_SUM8(da), r[7] = SR_SUM8(dt);
#undef SR_SUM8
    }
#endif
    for (; j < no; j++) {
      const double v = lin[j], p = v * (v >= 0 ? beU[j] : beL[j]), w = -v, p2 = w * (w >= 0 ? beU[j] : beL[j]), q = v * (v >= 0 ? alU[j] : alL[j]), pb = q * b[j];
      r[0] += p, r[1] += fabs(p), r[2] += fabs(q) * zm[j], r[3] += p2, r[4] += fabs(p2);
      for (PetscInt k = 0; k < ni; k++) t[k] += q * WT[k * no + j];
      r[5] += pb, r[6] += fabs(pb), r[7] += fabs(q) * vb[j];
    }
    for (PetscInt k = 0; k < ni; k++) out[(size_t)i * ldout + k] = t[k];
    for (int k = 0; k < 8; k++) sums[(size_t)k * rows + i] = r[k];
  }
}

