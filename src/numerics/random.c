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

/* u in [0, 1) to [lo, hi): lo + (hi - lo) u can round up to hi; keep the half-open promise */
static inline double SRRandomScale_Private(double u, double lo, double hi)
{
  double x = lo + (hi - lo) * u;

  if (x >= hi && hi > lo) x = nextafter(hi, lo);
  if (x < lo) x = lo;
  return x;
}

double SRRandomRange(uint64_t seed, uint64_t stream, uint64_t index, double lo, double hi) { return SRRandomScale_Private(SRRandomUniform(seed, stream, index), lo, hi); }

/* SRRandomUniform of index0 .. index0 + count - 1 into u: the same rounds on 16 counters at a
   time, lanes of the same integer operations (vectorised), so every value is SRRandomUniform's. */
__attribute__((target_clones("avx2", "default"))) static void SRRandomUniform16_Private(uint32_t k0, uint32_t k1, uint64_t stream, uint64_t index0, double *u)
{
  uint32_t c0[16], c1[16], c2[16], c3[16];
  for (int l = 0; l < 16; l++) {
    const uint64_t idx = index0 + (uint64_t)l;
    c0[l]              = (uint32_t)idx;
    c1[l]              = (uint32_t)(idx >> 32);
    c2[l]              = (uint32_t)stream;
    c3[l]              = (uint32_t)(stream >> 32);
  }
  for (int r = 0; r < 10; r++) {
    if (r > 0) {
      k0 += SR_PHILOX_W0;
      k1 += SR_PHILOX_W1;
    }
    for (int l = 0; l < 16; l++) {
      const uint64_t p0 = (uint64_t)SR_PHILOX_M0 * c0[l], p1 = (uint64_t)SR_PHILOX_M1 * c2[l];
      const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1[l] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3[l] ^ k1;
      c1[l] = (uint32_t)p1;
      c3[l] = (uint32_t)p0;
      c0[l] = n0;
      c2[l] = n2;
    }
  }
  for (int l = 0; l < 16; l++)
    u[l] = (double)((((uint64_t)c1[l] << 32) | (uint64_t)c0[l]) >> 11) * 0x1.0p-53;
}

void SRRandomUniformBatch(uint64_t seed, uint64_t stream, uint64_t index0, int64_t count, double *u)
{
  const uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
  int64_t        j = 0;
  for (; j + 16 <= count; j += 16)
    SRRandomUniform16_Private(k0, k1, stream, index0 + (uint64_t)j, u + j);
  for (; j < count; j++)
    u[j] = SRRandomUniform(seed, stream, index0 + (uint64_t)j);
}

void SRRandomRangeBatch(uint64_t seed, uint64_t stream, uint64_t index0, int64_t count, int64_t period, const double *lo, const double *hi, double *x)
{
  SRRandomUniformBatch(seed, stream, index0, count, x);
  for (int64_t j = 0; j < count; j++)
    x[j] = SRRandomScale_Private(x[j], lo[j % period], hi[j % period]);
}

/* Box-Muller on draws 2 index and 2 index + 1; 1 - u1 lies in (0, 1], so the log is finite. */
double SRRandomNormal(uint64_t seed, uint64_t stream, uint64_t index)
{
  const double u1 = 1.0 - SRRandomUniform(seed, stream, 2 * index);
  const double u2 = SRRandomUniform(seed, stream, 2 * index + 1);

  return sqrt(-2.0 * log(u1)) * cos(SR_TWO_PI * u2);
}
