/* The two lines CROWN puts around an activation over a pre-activation range (SPEC §15, §7;
   include/simreach/private/netcrown.h): alL z + beL <= s(z) <= alU z + beU for every real z in
   [lo, hi], s = relu, tanh or sigmoid (linear: the identity).  relu: the chord above, a line of
   slope 0 or 1 below.  tanh and sigmoid: parallel lines (alL = alU, which the back-substitution's
   paired rows rely on, src/bounds/netcrown.c), of the smaller end-point derivative's slope or of
   the chord's, the narrower pair kept; every offset is computed in outward-rounded interval
   arithmetic from enclosures of tanh at the points used. */
#include <simreach/interval.h>
#include <simreach/private/netcrown.h>

#include <math.h>

typedef struct {
  double alL, beL, alU, beU;
} Relax;

/* h(y) = tanh(y) - k y at the point y, from an enclosure T of tanh(y) */
static SRInterval H_Private(double k, double y, SRInterval T) { return SRIntervalSub(T, (SRInterval){SRMulDown(k, y), SRMulUp(k, y)}); }

/* Upper bounds of h(y) = tanh(y) - k y (0 < k < 1).  h'' = -2 sech^2 tanh, so h is concave on
   [0, inf) and convex on (-inf, 0].  On the concave part the tangent at any p >= 0 lies above h:
   h(y) <= h(p) + h'(p) (y - p) for every y >= 0, so over [a0, b] (a0 >= 0) h is at most
   h(p) + h'(p) [a0 - p, b - p], enclosed from an enclosure Tp of tanh(p) (h'(p) = 1 - tanh^2(p)
   - k).  p is the point of [a0, b] nearest y* = atanh(sqrt(1 - k)), the maximum of h on
   [0, inf), computed in double: where it rounds to does not matter for soundness; at y* the
   tangent is nearly flat (the bound is h(y*) to within ~1e-16), at an end of [a0, b] it gives
   that end's value when h is monotone there. */
static double Tangent_Private(double k, double p, SRInterval Tp, double a0, double b)
{
  const SRInterval Hp = H_Private(k, p, Tp), Y = {SRSubDown(a0, p), SRSubUp(b, p)};
  const SRInterval Dp = SRIntervalSub((SRInterval){SRSubDown(1.0, SRMulUp(Tp.hi, Tp.hi)), SRSubUp(1.0, SRMulDown(SRMax_Private(Tp.lo, 0.0), SRMax_Private(Tp.lo, 0.0)))}, SRIntervalPoint(k));
  return SRIntervalAdd(Hp, SRIntervalMul(Dp, Y)).hi;
}

/* the point y*, and tanh there once (shared by both offsets) */
typedef struct {
  double     ys;
  SRInterval Tys;
  bool       have;
} Peak;

/* an upper bound of h over [a, b] from enclosures Ta, Tb of tanh(a), tanh(b) (NaN when none is
   found).  k >= 1: h non-increasing, the bound at a.  b <= 0: h convex on [a, b], the larger end.
   Otherwise the convex part [a, 0] (if any) is bounded by h(a) and h(0) = 0, and the concave part
   [max(a, 0), b] by the tangent (which is >= h(0) too). */
static double SupH_Private(double k, double a, double b, SRInterval Ta, SRInterval Tb, SRInterval Ha, SRInterval Hb, Peak *pk)
{
  const double up = SRMax_Private(Ha.hi, Hb.hi);
  double       a0;
  if (!(k > 0 && k < 1)) return k >= 1 ? up : NAN;
  if (b <= 0) return up;
  if (!(isfinite(pk->ys) && pk->ys > 0)) return NAN;
  a0 = SRMax_Private(a, 0.0);
  if (pk->ys >= b) return SRMax_Private(up, Tangent_Private(k, b, Tb, a0, b));
  if (pk->ys <= a0) return SRMax_Private(up, a0 == a ? Tangent_Private(k, a, Ta, a0, b) : Tangent_Private(k, 0.0, SRIntervalPoint(0.0), a0, b));
  if (!pk->have) pk->Tys = SRIntervalTanh(SRIntervalPoint(pk->ys)), pk->have = true;
  return SRMax_Private(up, Tangent_Private(k, pk->ys, pk->Tys, a0, b));
}

/* Parallel lines of the chord's slope k around tanh on [lo, hi], given enclosures Tl, Th of
   tanh(lo), tanh(hi): tanh(z) - k z lies in [inf h, sup h] there (inf h over [lo, hi] = -sup h
   over [-hi, -lo], h being odd, so tanh(-y) is enclosed by -tanh(y)).  Much narrower than the
   lines of the smallest derivative when [lo, hi] reaches the steep part of tanh (over [-2, 1]: a
   gap of 0.41 against 1.5).  false when no bound is found. */
static bool Chord_Private(double lo, double hi, SRInterval Tl, SRInterval Th, double *k, double *beL, double *beU)
{
  Peak pk = {NAN, {0, 0}, false};
  *k = (SRIntervalMid(Th) - SRIntervalMid(Tl)) / (hi - lo);
  if (!(hi > lo) || !(*k > 0)) return false;
  if (*k > 1) *k = 1;
  if (*k < 1) pk.ys = atanh(sqrt(1.0 - *k));
  {
    const SRInterval Hl = H_Private(*k, lo, Tl), Hh = H_Private(*k, hi, Th); /* h(-y) in -h(y) */
    *beU = SupH_Private(*k, lo, hi, Tl, Th, Hl, Hh, &pk);
    *beL = -SupH_Private(*k, -hi, -lo, SRIntervalNeg(Th), SRIntervalNeg(Tl), SRIntervalNeg(Hh), SRIntervalNeg(Hl), &pk);
  }
  return isfinite(*beU) && isfinite(*beL);
}

/* sound lines around s on [lo, hi] (lo <= hi finite) */
static bool Relax_Private(SRActivation act, double lo, double hi, Relax *r)
{
  *r = (Relax){1.0, 0.0, 1.0, 0.0};
  if (act == SR_ACT_RELU) {
    if (lo >= 0) return true;
    if (hi <= 0) return *r = (Relax){0.0, 0.0, 0.0, 0.0}, true;
    r->alU = hi / (hi - lo);
    if (!(r->alU >= 0 && r->alU <= 1)) r->alU = 1.0;
    /* the chord: above relu at both end points (relu convex) */
    r->beU = SRMax_Private(SRMulUp(-r->alU, lo), SRMulUp(hi, SRSubUp(1.0, r->alU)));
    r->alL = hi >= -lo ? 1.0 : 0.0, r->beL = 0.0;
    return true;
  }
  if (act == SR_ACT_TANH || act == SR_ACT_SIGMOID) {
    /* s' is unimodal with its maximum at 0, so s' >= lam on [lo, hi] for lam below its values at
       the end points: s(z) - lam z is non-decreasing, in [s(lo) - lam lo, s(hi) - lam hi] */
    const bool sg = act == SR_ACT_SIGMOID;
    SRInterval L = SRIntervalPoint(lo), H = SRIntervalPoint(hi), sL, sH;
    double     lam;
    if (sg) L = SRIntervalMul(L, SRIntervalPoint(0.5)), H = SRIntervalMul(H, SRIntervalPoint(0.5));
    const SRInterval tL = SRIntervalTanh(L), tH = SRIntervalTanh(H); /* once: the chord uses them too */
    /* tanh' = 1 - tanh^2 >= 1 - M^2 for M >= |tanh| at the end point */
    lam = SRMax_Private(0.0, fmin(SRSubDown(1.0, SRMulUp(SRMax_Private(fabs(tL.lo), fabs(tL.hi)), SRMax_Private(fabs(tL.lo), fabs(tL.hi)))),
                                  SRSubDown(1.0, SRMulUp(SRMax_Private(fabs(tH.lo), fabs(tH.hi)), SRMax_Private(fabs(tH.lo), fabs(tH.hi))))));
    sL = tL, sH = tH;
    if (sg) {
      lam = 0.25 * lam; /* exact scaling by a power of two (lam is 0 or normal) */
      sL  = SRIntervalMul(SRIntervalAdd(sL, SRIntervalPoint(1.0)), SRIntervalPoint(0.5));
      sH  = SRIntervalMul(SRIntervalAdd(sH, SRIntervalPoint(1.0)), SRIntervalPoint(0.5));
    }
    if (lam < 0x1p-1000) lam = 0.0;
    r->alL = r->alU = lam;
    r->beL = SRSubDown(sL.lo, SRMulUp(lam, lo));
    r->beU = SRSubUp(sH.hi, SRMulDown(lam, hi));
    {
      /* or the chord's slope (tanh(y) - k y over the tanh argument y; a sigmoid is
         (1 + tanh(z / 2)) / 2, so its slope is k / 4 and its offsets (1 + be) / 2): the
         narrower pair of lines is kept, both being sound */
      double k, bl, bu;
      if (Chord_Private(L.lo, H.hi, tL, tH, &k, &bl, &bu)) {
        if (sg) k = 0.25 * k, bl = SRMulDown(0.5, SRAddDown(1.0, bl)), bu = SRMulUp(0.5, SRAddUp(1.0, bu));
        if (SRSubUp(bu, bl) < SRSubDown(r->beU, r->beL)) r->alL = r->alU = k, r->beL = bl, r->beU = bu;
      }
    }
    return isfinite(r->beL) && isfinite(r->beU);
  }
  return true; /* linear */
}

bool SRCrownRelax_Private(SRActivation act, double lo, double hi, double *alL, double *beL, double *alU, double *beU)
{
  Relax      r;
  const bool ok = Relax_Private(act, lo, hi, &r);
  *alL = r.alL, *beL = r.beL, *alU = r.alU, *beU = r.beU;
  return ok;
}
