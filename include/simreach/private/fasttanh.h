/* A fast, accurate, branch-free tanh for the POINT forward pass of the MLP (SPEC §3, the phi
   steps of §8).  Not sound: enclosures (SPEC §7) keep using SRIntervalTanh of interval.h.

   tanh|x| = E / (E + 2) with E = expm1(2|x|), then the sign of x is copied back (so -0 -> -0).
   expm1(y), 0 <= y <= 40: y = k ln2 + r with |r| <= ln2/2 (Cody-Waite, ln2 split in a hi part
   with its low 21 bits zero so that k*LN2HI is exact), expm1(r) by its Taylor series to r^14
   (truncation < 2^-60 relative at |r| = 0.35), expm1(y) = 2^k expm1(r) + (2^k - 1).  E has a
   few ulp of relative error for every y (no cancellation: k = 0 gives expm1(r) itself), and
   E/(E+2) is well conditioned, so tanh is within a few ulp (checked against MPFR in
   tests/model/test_mlp_fast.c).  For |x| >= 20, tanh(x) rounds to +-1 and so does the formula.
   NaN propagates; +-inf give +-1.  Every operation is a plain IEEE one (no FMA, no table),
   so a loop over SRFastTanh vectorises and gives the same bits at any vector width. */
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline double SRFastTanh(double x)
{
  const double INVLN2 = 0x1.71547652b82fep0, LN2HI = 0x1.62e42fee00000p-1, LN2LO = 0x1.a39ef35793c76p-33;
  const double SHIFT  = 0x1.8p52; /* adding it rounds to an integer kept in the low mantissa bits */
  double       y      = 2.0 * fabs(x);
  /* y = min(y, 40) except for NaN, on the bit pattern (y >= 0 orders like int64; >> 63 is GCC's arithmetic shift): a compare of
     doubles would be a branch under -ftrapping-math and stop the vectoriser */
  int64_t yb;
  memcpy(&yb, &y, sizeof yb);
  const int64_t cb = 0x4044000000000000;                                         /* 40.0 */
  const int64_t m  = ((cb - yb) >> 63) & ((yb - (int64_t)0x7ff0000000000001) >> 63); /* 40 < y <= inf */
  yb               = (yb & ~m) | (cb & m);
  memcpy(&y, &yb, sizeof y);
  double   kd         = y * INVLN2 + SHIFT;
  uint64_t kb;
  memcpy(&kb, &kd, sizeof kb);
  kd             = kd - SHIFT;                      /* k, exactly, 0 <= k <= 58 */
  const double r = (y - kd * LN2HI) - kd * LN2LO;   /* y - k ln2, |r| <= ~0.35 */
  /* expm1(r) = r + r^2 (1/2 + r (1/6 + ... r / 14!)) */
  double q = 1.0 / 87178291200.0;
  q        = q * r + 1.0 / 6227020800.0;
  q        = q * r + 1.0 / 479001600.0;
  q        = q * r + 1.0 / 39916800.0;
  q        = q * r + 1.0 / 3628800.0;
  q        = q * r + 1.0 / 362880.0;
  q        = q * r + 1.0 / 40320.0;
  q        = q * r + 1.0 / 5040.0;
  q        = q * r + 1.0 / 720.0;
  q        = q * r + 1.0 / 120.0;
  q        = q * r + 1.0 / 24.0;
  q        = q * r + 1.0 / 6.0;
  q        = q * r + 0.5;
  const double p = r + (r * r) * q;
  /* 2^k from the integer in kb's low bits: exponent field k + 1023 */
  const uint64_t sb = (kb << 52) + ((uint64_t)1023 << 52);
  double         s;
  memcpy(&s, &sb, sizeof s);
  const double E = s * p + (s - 1.0);
  return copysign(E / (E + 2.0), x);
}
