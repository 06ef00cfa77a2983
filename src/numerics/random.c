/* Counter-based random numbers (SPEC §3, §6): Philox4x32-10 (Salmon et al., SC'11, the
   generator of Random123).  A draw is a pure function of (seed, stream, index): the key is the
   seed, the counter is (index, stream), so streams and indices never overlap and a sample does
   not depend on which rank draws it.  Not collective, no state. */
#include <simreach/random.h>

#include <math.h>

#define SR_PHILOX_M0 0xD2511F53u
#define SR_PHILOX_M1 0xCD9E8D57u
#define SR_PHILOX_W0 0x9E3779B9u
#define SR_PHILOX_W1 0xBB67AE85u
#define SR_TWO_PI 6.283185307179586476925286766559

static inline void SRPhiloxRound_Private(uint32_t ctr[4], const uint32_t key[2])
{
  const uint64_t p0  = (uint64_t)SR_PHILOX_M0 * ctr[0];
  const uint64_t p1  = (uint64_t)SR_PHILOX_M1 * ctr[2];
  const uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
  const uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;

  ctr[0] = hi1 ^ ctr[1] ^ key[0];
  ctr[1] = lo1;
  ctr[2] = hi0 ^ ctr[3] ^ key[1];
  ctr[3] = lo0;
}

void SRRandomPhilox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
  uint32_t c[4] = { ctr[0], ctr[1], ctr[2], ctr[3] };
  uint32_t k[2] = { key[0], key[1] };

  for (int r = 0; r < 10; r++) {
    if (r > 0) { /* key schedule: bump before rounds 2..10 */
      k[0] += SR_PHILOX_W0;
      k[1] += SR_PHILOX_W1;
    }
    SRPhiloxRound_Private(c, k);
  }
  for (int i = 0; i < 4; i++)
    out[i] = c[i];
}

uint64_t SRRandomBits(uint64_t seed, uint64_t stream, uint64_t index)
{
  const uint32_t ctr[4] = { (uint32_t)index, (uint32_t)(index >> 32), (uint32_t)stream, (uint32_t)(stream >> 32) };
  const uint32_t key[2] = { (uint32_t)seed, (uint32_t)(seed >> 32) };
  uint32_t       out[4];

  SRRandomPhilox4x32(ctr, key, out);
  return ((uint64_t)out[1] << 32) | (uint64_t)out[0];
}

/* The top 53 bits scaled by 2^-53: every value is a multiple of 2^-53 in [0, 1), exactly. */
double SRRandomUniform(uint64_t seed, uint64_t stream, uint64_t index) { return (double)(SRRandomBits(seed, stream, index) >> 11) * 0x1.0p-53; }

double SRRandomRange(uint64_t seed, uint64_t stream, uint64_t index, double lo, double hi)
{
  const double u = SRRandomUniform(seed, stream, index);
  double       x = lo + (hi - lo) * u;

  /* lo + (hi - lo) u can round up to hi; keep the half-open promise */
  if (x >= hi && hi > lo) x = nextafter(hi, lo);
  if (x < lo) x = lo;
  return x;
}

/* Box-Muller on draws 2 index and 2 index + 1; 1 - u1 lies in (0, 1], so the log is finite. */
double SRRandomNormal(uint64_t seed, uint64_t stream, uint64_t index)
{
  const double u1 = 1.0 - SRRandomUniform(seed, stream, 2 * index);
  const double u2 = SRRandomUniform(seed, stream, 2 * index + 1);

  return sqrt(-2.0 * log(u1)) * cos(SR_TWO_PI * u2);
}
