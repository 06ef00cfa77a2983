/* Remainders into noise symbols (include/simreach/affine.h, SPEC §15).

   The forms of the closed loop have the piece's coordinates 0..first-1 and noise symbols
   first..m-1.  A remainder r_i becomes mid r_i + rad r_i eps with a symbol eps that no live
   form uses yet.  Sound: the value's error is some number in r_i, and a fresh symbol in
   [-1, 1] is free to take it; later operations then keep its sign (a rotation moves it
   instead of boxing it), which is what stops the wrapping effect of interval remainders.
   When too few symbols are free, the symbols of smallest total weight sum_i |c_ik| over the
   live forms are folded into the remainders first (c_ik eps_k in |c_ik| [-1, 1]) in every
   live form at once (zonotope order reduction). */
#include <simreach/affine.h>

static bool HasRemainder_Private(const SRAffine *a) { return SRIntervalIsBounded(a->r) && a->r.hi > a->r.lo && !SRAffineIsNaI(a); }

void SRAffineRemaindersToSymbols(int m, int first, int nsym, int nlive, SRAffine **F)
{
  int  need = 0, nfree = 0;
  bool used[SR_AFFINE_MAX];
  if (m <= first) return;
  for (int i = 0; i < nsym; i++)
    need += HasRemainder_Private(F[i]);
  for (int k = first; k < m; k++) {
    used[k] = false;
    for (int i = 0; i < nlive; i++)
      used[k] = used[k] || F[i]->c[k] != 0;
    nfree += !used[k];
  }
  while (nfree < need) {
    int    best = -1;
    double bw   = INFINITY;
    for (int k = first; k < m; k++) {
      double w = 0.0;
      if (!used[k]) continue;
      for (int i = 0; i < nlive; i++)
        w += fabs(F[i]->c[k]);
      if (w < bw) bw = w, best = k;
    }
    if (best < 0) break;
    for (int i = 0; i < nlive; i++) {
      const double c = fabs(F[i]->c[best]);
      if (c == 0) continue;
      F[i]->r = SRIntervalAdd(F[i]->r, (SRInterval) { -c, c }), F[i]->c[best] = 0.0;
    }
    used[best] = false, nfree++;
  }
  for (int i = 0, k = first; i < nsym; i++) {
    SRInterval Ic[SR_AFFINE_MAX];
    if (!HasRemainder_Private(F[i])) continue;
    while (k < m && used[k])
      k++;
    if (k >= m) break;
    used[k] = true;
    for (int j = 0; j < m; j++)
      Ic[j] = SRIntervalPoint(j == k ? SRIntervalRadUp(F[i]->r) : F[i]->c[j]);
    *F[i] = SRAffineFromIntervals(m, SRIntervalAdd(SRIntervalPoint(F[i]->c0), SRIntervalPoint(SRIntervalMid(F[i]->r))), Ic, SRIntervalPoint(0.0));
  }
}
