/* The join of two sibling pieces' states (include/simreach/odemerge.h, SPEC §15, docs/arch.md
   "Windows and joins").

   Child k (k = 0, 1) of a piece P split in dimension d has the coordinate x_d = c_k + r_k xi_d
   (SRPieceCoordinate over its half) where P has x_d = c + r xi'_d, so over child k's half
   xi_d = alpha_k + beta_k xi'_d with alpha_k = (c - c_k) / r_k, beta_k = r / r_k, and xi'_d lies in
   [(lo_k - c) / r, (hi_k - c) / r]; every other piece coordinate is P's own.  A state form of
   child k, f_k = a0 + sum_j a_j xi_j + R, is then g_k(xi') + R with interval coefficients.  The
   join keeps one point coefficient per column, gamma_j = (g_0j + g_1j) / 2 (the noise symbols as
   well: both children made theirs in the same order, and the join holds whatever they are), and
   its constant and remainder enclose, for each child over its half, the rest
   g_k0 + (g_kd - gamma_d) xi'_d + sum_{j != d} |g_kj - gamma_j| [-1, 1] + R_k.
   Soundness: for a start point in child k's half with symbol values eta (the ones f_k takes
   there), the state is g_k(xi', eta) + rho with rho in R_k, which is gamma . (xi', eta) plus a
   value of that rest, so the joined forms hold every state of both children, with the symbols
   shared between the n states as in each child (all intervals outward rounded). */
#include <simreach/odemerge.h>

/* the coefficient of column j of child form f over P's coordinates (the interval g_kj above) and
   the constant g_k0 */
static SRInterval Coefficient_Private(const SRAffine *f, int j, int d, SRInterval beta)
{
  if (j == d) return SRIntervalMul(SRIntervalPoint(f->c[d]), beta);
  return SRIntervalPoint(f->c[j]);
}

static double Mag_Private(SRInterval x) { return SRMax_Private(fabs(x.lo), fabs(x.hi)); }

static SRInterval Constant_Private(const SRAffine *f, int d, SRInterval alpha) { return SRIntervalAdd(SRIntervalPoint(f->c0), SRIntervalMul(SRIntervalPoint(f->c[d]), alpha)); }

bool SRLoopMergeForms(int n, int m, const double *lo, const double *hi, int d, double mid, const SRAffine *F0, const SRAffine *F1, SRAffine *out)
{
  double     c, r, ck[2], rk[2];
  SRInterval alpha[2], beta[2], half[2];
  const double klo[2] = { lo[d], mid }, khi[2] = { mid, hi[d] };
  if (d < 0 || d >= n || !(lo[d] < mid && mid < hi[d])) return false;
  SRPieceCoordinate(lo[d], hi[d], &c, &r);
  if (!(r > 0)) return false;
  for (int k = 0; k < 2; k++) {
    SRPieceCoordinate(klo[k], khi[k], &ck[k], &rk[k]);
    if (!(rk[k] > 0)) return false;
    alpha[k] = SRIntervalDiv(SRIntervalSub(SRIntervalPoint(c), SRIntervalPoint(ck[k])), SRIntervalPoint(rk[k]));
    beta[k]  = SRIntervalDiv(SRIntervalPoint(r), SRIntervalPoint(rk[k]));
    half[k]  = SRIntervalIntersect(SRIntervalDiv(SRIntervalSub((SRInterval){ klo[k], khi[k] }, SRIntervalPoint(c)), SRIntervalPoint(r)), (SRInterval){ -1.0, 1.0 });
  }
  for (int i = 0; i < n; i++) {
    const SRAffine *f[2] = { &F0[i], &F1[i] };
    SRInterval      rest[2], Ic[SR_AFFINE_MAX];
    for (int k = 0; k < 2; k++)
      if (SRAffineIsNaI(f[k])) return false;
    for (int j = 0; j < m; j++) {
      const SRInterval g0 = Coefficient_Private(f[0], j, d, beta[0]), g1 = Coefficient_Private(f[1], j, d, beta[1]);
      Ic[j]               = SRIntervalPoint(0.5 * SRIntervalMid(g0) + 0.5 * SRIntervalMid(g1));
    }
    for (int k = 0; k < 2; k++) {
      double dev = 0.0;
      rest[k]    = SRIntervalAdd(Constant_Private(f[k], d, alpha[k]), f[k]->r);
      rest[k]    = SRIntervalAdd(rest[k], SRIntervalMul(SRIntervalSub(Coefficient_Private(f[k], d, d, beta[k]), Ic[d]), half[k]));
      for (int j = 0; j < m; j++) {
        if (j == d) continue;
        dev = SRAddUp(dev, Mag_Private(SRIntervalSub(Coefficient_Private(f[k], j, d, beta[k]), Ic[j])));
      }
      rest[k] = SRIntervalAdd(rest[k], (SRInterval){ -dev, dev });
    }
    out[i] = SRAffineFromIntervals(m, SRIntervalHull(rest[0], rest[1]), Ic, SRIntervalPoint(0.0));
    if (SRAffineIsNaI(&out[i])) return false;
  }
  return true;
}
