/* Tests of the counter-based random streams (src/numerics/random.c, SPEC §3, §6).
   Oracles: the Random123 known-answer vectors of Philox4x32-10, and moments / bin counts of the
   exact distributions with 5-sigma (or chi-square) tolerances.  Serial. */
#include <simreach/base.h>
#include <simreach/random.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define NSAMPLES (1 << 18)

/* Random123 kat_vectors: philox4x32 10 ctr[4] key[2] -> out[4] */
static void test_philox_known_answers(void **state)
{
  const uint32_t ctr[3][4] = { { 0, 0, 0, 0 }, { 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu }, { 0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u } };
  const uint32_t key[3][2] = { { 0, 0 }, { 0xffffffffu, 0xffffffffu }, { 0xa4093822u, 0x299f31d0u } };
  const uint32_t exp[3][4] = { { 0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u }, { 0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu }, { 0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u } };

  for (int t = 0; t < 3; t++) {
    uint32_t out[4];
    SRRandomPhilox4x32(ctr[t], key[t], out);
    for (int i = 0; i < 4; i++)
      assert_int_equal(out[i], exp[t][i]);
  }
  /* SRRandomBits is the block with key = seed, counter = (index, stream) */
  {
    uint32_t out[4];
    SRRandomPhilox4x32(ctr[2], key[2], out);
    const uint64_t seed   = ((uint64_t)key[2][1] << 32) | key[2][0];
    const uint64_t index  = ((uint64_t)ctr[2][1] << 32) | ctr[2][0];
    const uint64_t stream = ((uint64_t)ctr[2][3] << 32) | ctr[2][2];
    assert_true(SRRandomBits(seed, stream, index) == (((uint64_t)out[1] << 32) | out[0]));
  }
}

static void test_bits_deterministic_and_distinct(void **state)
{
  int same = 0;
  for (uint64_t i = 0; i < 10000; i++) {
    const uint64_t b = SRRandomBits(42, SR_STREAM_TRAIN, i);
    assert_true(b == SRRandomBits(42, SR_STREAM_TRAIN, i));
    same += b == SRRandomBits(43, SR_STREAM_TRAIN, i);
    same += b == SRRandomBits(42, SR_STREAM_HELDOUT, i);
    same += b == SRRandomBits(42, SR_STREAM_TRAIN, i + 1);
  }
  assert_int_equal(same, 0);
}

/* every one of the 64 bits is set with frequency 1/2 (5 sigma) */
static void test_bits_balanced(void **state)
{
  static long count[64];
  for (int k = 0; k < 64; k++)
    count[k] = 0;
  for (uint64_t i = 0; i < NSAMPLES; i++) {
    const uint64_t b = SRRandomBits(7, SR_STREAM_TEST, i);
    for (int k = 0; k < 64; k++)
      count[k] += (b >> k) & 1;
  }
  const double sigma = sqrt(0.25 * NSAMPLES);
  for (int k = 0; k < 64; k++)
    assert_true(fabs(count[k] - 0.5 * NSAMPLES) < 5 * sigma);
}

static void test_uniform_distribution(void **state)
{
  static long bins[64];
  double      s = 0, s2 = 0, cross = 0;
  for (int k = 0; k < 64; k++)
    bins[k] = 0;
  for (uint64_t i = 0; i < NSAMPLES; i++) {
    const double u = SRRandomUniform(3, SR_STREAM_TRAIN, i);
    const double v = SRRandomUniform(3, SR_STREAM_HELDOUT, i);
    assert_true(u >= 0.0 && u < 1.0);
    assert_true(ldexp(u, 53) == floor(ldexp(u, 53))); /* 53-bit grid */
    s += u;
    s2 += (u - 0.5) * (u - 0.5);
    cross += (u - 0.5) * (v - 0.5);
    bins[(int)(u * 64)]++;
  }
  const double n = NSAMPLES;
  assert_true(fabs(s / n - 0.5) < 5 * sqrt(1.0 / 12.0 / n));
  /* Var((u-1/2)^2) = 1/80 - 1/144 */
  assert_true(fabs(s2 / n - 1.0 / 12.0) < 5 * sqrt((1.0 / 80 - 1.0 / 144) / n));
  /* independent streams: E[(u-1/2)(v-1/2)] = 0 with variance 1/144/n */
  assert_true(fabs(cross / n) < 5 * sqrt(1.0 / 144.0 / n));
  /* chi-square with 63 degrees of freedom: mean 63, sd sqrt(126); 6 sd is far in the tail */
  double chi2 = 0, e = n / 64;
  for (int k = 0; k < 64; k++)
    chi2 += (bins[k] - e) * (bins[k] - e) / e;
  assert_true(chi2 < 63 + 6 * sqrt(126.0));
}

static void test_range(void **state)
{
  const double lo = -2.5, hi = 0.75, one_up = nextafter(1.0, 2.0);
  double       mn = hi, mx = lo;
  for (uint64_t i = 0; i < 100000; i++) {
    const double x = SRRandomRange(5, SR_STREAM_TEST, i, lo, hi);
    assert_true(x >= lo && x < hi);
    mn = fmin(mn, x);
    mx = fmax(mx, x);
    /* a one-ulp interval has the single point lo */
    assert_true(SRRandomRange(5, SR_STREAM_TEST, i, 1.0, one_up) == 1.0);
  }
  assert_true(mn < lo + 1e-3 && mx > hi - 1e-3);
}

/* The batched draws are the scalar ones, bit for bit: every count 0..70 (partial blocks of 16),
   counter words crossing 2^32, seeds and streams with high words, periods 1..3. */
static void test_batches_equal_scalar(void **state)
{
  const uint64_t seeds[3] = {0, 7, 0x123456789abcdefULL}, starts[3] = {0, 1000003, 0xfffffff0ULL};
  double         u[70], x[70], lo[3] = {-1.0, 2.0, 5.0}, hi[3] = {1.0, 2.5, 5.0 + 1e-9};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      for (int64_t count = 0; count <= 70; count++) {
        const uint64_t stream = b == 2 ? 0x100000004ULL : (uint64_t)SR_STREAM_TARGET;
        SRRandomUniformBatch(seeds[a], stream, starts[b], count, u);
        SRRandomRangeBatch(seeds[a], stream, starts[b], count, 1 + (count % 3), lo, hi, x);
        for (int64_t j = 0; j < count; j++) {
          const double us = SRRandomUniform(seeds[a], stream, starts[b] + (uint64_t)j);
          const double xs = SRRandomRange(seeds[a], stream, starts[b] + (uint64_t)j, lo[j % (1 + count % 3)], hi[j % (1 + count % 3)]);
          assert_memory_equal(&u[j], &us, sizeof us);
          assert_memory_equal(&x[j], &xs, sizeof xs);
        }
      }
}

static void test_normal_distribution(void **state)
{
  double s = 0, s2 = 0, s4 = 0;
  long   inside = 0;
  for (uint64_t i = 0; i < NSAMPLES; i++) {
    const double z = SRRandomNormal(11, SR_STREAM_TEST, i);
    assert_true(isfinite(z));
    s += z;
    s2 += z * z;
    s4 += z * z * z * z;
    inside += fabs(z) < 1.0;
  }
  const double n = NSAMPLES, p = erf(1.0 / sqrt(2.0));
  assert_true(fabs(s / n) < 5 / sqrt(n));
  assert_true(fabs(s2 / n - 1) < 5 * sqrt(2.0 / n)); /* Var(z^2) = 2 */
  assert_true(fabs(s4 / n - 3) < 5 * sqrt(96.0 / n)); /* Var(z^4) = 105 - 9 */
  assert_true(fabs(inside / n - p) < 5 * sqrt(p * (1 - p) / n));
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_philox_known_answers),
    cmocka_unit_test(test_bits_deterministic_and_distinct),
    cmocka_unit_test(test_bits_balanced),
    cmocka_unit_test(test_uniform_distribution),
    cmocka_unit_test(test_range),
    cmocka_unit_test(test_batches_equal_scalar),
    cmocka_unit_test(test_normal_distribution),
  };
  int fails;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  fails = cmocka_run_group_tests_name("random", tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
