/* Unit tests of include/simreach/interval.h: special cases of the IEEE 1788 set semantics and
   exactness of the directed roundings.  Oracles: exact small-integer arithmetic, limits known
   in closed form, and MPFR (directed rounding at enough bits to be exact).  1 rank. */
#include <simreach/interval.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <mpfr.h>

static SRInterval I(double lo, double hi) { return SRIntervalMake(lo, hi); }

static bool Same(SRInterval a, SRInterval b)
{
  if (SRIntervalIsNaI(a) || SRIntervalIsNaI(b)) return SRIntervalIsNaI(a) && SRIntervalIsNaI(b);
  if (SRIntervalIsEmpty(a) || SRIntervalIsEmpty(b)) return SRIntervalIsEmpty(a) && SRIntervalIsEmpty(b);
  return a.lo == b.lo && a.hi == b.hi;
}
#define assert_iv(got, lo_, hi_) assert_true(Same((got), SRIntervalMake((lo_), (hi_))))

static uint64_t Next64(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z          = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
/* a finite double with uniformly random bit pattern (every binade, subnormals included) */
static double RandomDouble(uint64_t *s)
{
  for (;;) {
    uint64_t u = Next64(s);
    double   x;
    memcpy(&x, &u, sizeof x);
    if (isfinite(x)) return x;
  }
}

/* Every sign pattern of the product against the exact corner products of small integers;
   the trap: [-1,3]*[-2,1] = [-6,3]. */
static void test_mul_mixed_signs(void **state)
{
  const double v[] = {-3, -1, 0, 2, 5};
  assert_iv(SRIntervalMul(I(-1, 3), I(-2, 1)), -6, 3);
  for (int i = 0; i < 5; i++)
    for (int j = i; j < 5; j++)
      for (int k = 0; k < 5; k++)
        for (int l = k; l < 5; l++) {
          double c[4] = {v[i] * v[k], v[i] * v[l], v[j] * v[k], v[j] * v[l]}, lo = c[0], hi = c[0];
          for (int m = 1; m < 4; m++) lo = fmin(lo, c[m]), hi = fmax(hi, c[m]);
          assert_iv(SRIntervalMul(I(v[i], v[j]), I(v[k], v[l])), lo, hi);
        }
}

/* 0 * inf inside a product counts as 0 (IEEE 1788 set semantics). */
static void test_mul_zero_times_infinity(void **state)
{
  assert_iv(SRIntervalMul(I(0, 0), SRIntervalEntire()), 0, 0);
  assert_iv(SRIntervalMul(I(0, 1), I(1, INFINITY)), 0, INFINITY);
  assert_iv(SRIntervalMul(I(-0.0, -0.0), I(-INFINITY, -1)), 0, 0);
  assert_iv(SRIntervalMul(I(-1, 0), I(2, INFINITY)), -INFINITY, 0);
  assert_iv(SRIntervalScale(0.0, SRIntervalEntire()), 0, 0);
  assert_true(SRIntervalIsEntire(SRIntervalMul(I(-1, 1), I(1, INFINITY))));
}

static void test_signed_zeros(void **state)
{
  SRInterval r = SRIntervalAdd(I(-0.0, -0.0), I(0, 0));
  assert_true(r.lo == 0 && r.hi == 0);
  r = SRIntervalAbs(I(-0.0, 2));
  assert_true(r.lo == 0 && !signbit(r.lo) && r.hi == 2);
  assert_iv(SRIntervalSqrt(I(-0.0, 4)), 0, 2);
  assert_iv(SRIntervalDiv(I(-0.0, 0), I(1, 2)), 0, 0);
  assert_true(SRIntervalIsEmpty(SRIntervalDiv(I(1, 2), I(-0.0, 0))));
  assert_true(SRIntervalIsEmpty(SRIntervalRecip(I(-0.0, -0.0))));
}

/* Division by an interval containing 0: the single-interval hull of the 1788 result. */
static void test_div_by_zero_containing(void **state)
{
  assert_true(SRIntervalIsEntire(SRIntervalDiv(I(1, 2), I(-1, 1))));
  assert_iv(SRIntervalDiv(I(1, 2), I(0, 4)), 0.25, INFINITY);
  assert_iv(SRIntervalDiv(I(1, 2), I(-4, 0)), -INFINITY, -0.25);
  assert_iv(SRIntervalDiv(I(-2, -1), I(0, 4)), -INFINITY, -0.25);
  assert_iv(SRIntervalDiv(I(-INFINITY, 0), I(0, 3)), -INFINITY, 0);
  assert_iv(SRIntervalDiv(I(0, 0), I(-1, 1)), 0, 0);
  assert_true(SRIntervalIsEmpty(SRIntervalDiv(I(0, 0), I(0, 0))));
  assert_true(SRIntervalIsEntire(SRIntervalDiv(I(-1, 1), I(0, 1))));
  assert_iv(SRIntervalDiv(I(-30, -15), I(-INFINITY, -3)), 0, 10);
  assert_iv(SRIntervalRecip(I(0, INFINITY)), 0, INFINITY);
  assert_iv(SRIntervalRecip(I(2, 4)), 0.25, 0.5);
}

/* Overflow: the lower rounding of an overflowed positive sum is DBL_MAX, the upper is inf. */
static void test_infinities_and_overflow(void **state)
{
  assert_true(SRAddDown(DBL_MAX, DBL_MAX) == DBL_MAX && SRAddUp(DBL_MAX, DBL_MAX) == INFINITY);
  assert_true(SRAddUp(-DBL_MAX, -DBL_MAX) == -DBL_MAX && SRAddDown(-DBL_MAX, -DBL_MAX) == -INFINITY);
  assert_true(SRMulDown(0x1p600, 0x1p600) == DBL_MAX && SRMulUp(-0x1p600, 0x1p600) == -DBL_MAX);
  assert_true(SRDivDown(DBL_MAX, 0.5) == DBL_MAX && SRDivUp(-DBL_MAX, 0.5) == -DBL_MAX);
  assert_true(SRAddUp(DBL_MAX, 1) == INFINITY && SRAddDown(DBL_MAX, 1) == DBL_MAX);
  /* the exact DBL_MAX - c is 0x1.03accd5e177378p+1023 (54 bits); TwoSum's s - a overflows */
  assert_true(SRSubDown(DBL_MAX, 0x1.f8a66543d118fp+1022) == 0x1.03accd5e17737p+1023);
  assert_true(SRSubUp(DBL_MAX, 0x1.f8a66543d118fp+1022) == 0x1.03accd5e17738p+1023);
  assert_true(SRAddUp(0x1.f8a66543d118fp+1022, -DBL_MAX) == -0x1.03accd5e17737p+1023);
  assert_true(SRAddDown(0x1.f8a66543d118fp+1022, -DBL_MAX) == -0x1.03accd5e17738p+1023);
  assert_true(SRAddUp(-0x1.f8a66543d118fp+1022, -DBL_MAX) == -DBL_MAX && SRAddDown(0x1p1023, 0x1p1023) == DBL_MAX);
  assert_iv(SRIntervalAdd(I(1, DBL_MAX), I(3, 4)), 4, INFINITY);
  assert_true(SRIntervalIsEntire(SRIntervalAdd(I(-DBL_MAX, 2), I(-3, DBL_MAX))));
  assert_iv(SRIntervalSub(I(-INFINITY, 2), I(3, 4)), -INFINITY, -1);
  assert_true(SRIntervalIsEntire(SRIntervalAdd(SRIntervalEntire(), I(1, 2))));
  assert_iv(SRIntervalSqr(I(-INFINITY, -0x1p-1074)), 0, INFINITY);
  assert_iv(SRIntervalExp(I(-INFINITY, 0)), 0, 1);
  assert_iv(SRIntervalTanh(SRIntervalEntire()), -1, 1);
  assert_iv(SRIntervalSin(I(0, INFINITY)), -1, 1);
  assert_iv(SRIntervalCos(I(-INFINITY, 0)), -1, 1);
  SRInterval e = SRIntervalExp(I(710, 710));
  assert_true(e.hi == INFINITY && e.lo <= DBL_MAX && e.lo > 0x1p1023);
  e = SRIntervalExp(I(-746, -746)); /* exp(-746) ~ 1.3e-324 < 2^-1074 / 2 */
  assert_true(e.lo == 0 && e.hi >= 0x1p-1074 && e.hi <= 0x1p-1070);
}

static void test_empty(void **state)
{
  SRInterval E = SRIntervalEmpty(), x = I(-1, 2);
  SRInterval (*bin[])(SRInterval, SRInterval) = {SRIntervalAdd, SRIntervalSub, SRIntervalMul, SRIntervalDiv, SRIntervalMin, SRIntervalMax, SRIntervalIntersect};
  SRInterval (*un[])(SRInterval) = {SRIntervalNeg, SRIntervalRecip, SRIntervalSqr, SRIntervalSqrt, SRIntervalAbs, SRIntervalExp, SRIntervalTanh, SRIntervalSin, SRIntervalCos, SRIntervalDTanh};
  for (size_t i = 0; i < sizeof bin / sizeof bin[0]; i++) {
    assert_true(SRIntervalIsEmpty(bin[i](E, x)) && !SRIntervalIsNaI(bin[i](E, x)));
    assert_true(SRIntervalIsEmpty(bin[i](x, E)) && SRIntervalIsEmpty(bin[i](E, SRIntervalEntire())));
  }
  for (size_t i = 0; i < sizeof un / sizeof un[0]; i++) assert_true(SRIntervalIsEmpty(un[i](E)) && !SRIntervalIsNaI(un[i](E)));
  assert_true(SRIntervalIsEmpty(SRIntervalScale(2, E)) && SRIntervalIsEmpty(SRIntervalShift(2, E)));
  assert_true(SRIntervalIsEmpty(SRIntervalClip(E, 0, 1)));
  assert_true(SRIntervalIsEmpty(SRIntervalSqrt(I(-INFINITY, -0x1p-1074))));
  assert_true(isnan(SRIntervalWidthUp(E)) && isnan(SRIntervalMid(E)) && isnan(SRIntervalRadUp(E)));
  assert_false(SRIntervalContains(E, 0) || SRIntervalIsBounded(E));
}

/* A NaN never yields a finite interval: NaI propagates through every operation. */
static void test_nai_propagates(void **state)
{
  SRInterval N = SRIntervalNaI(), x = I(-1, 2), pts[] = {SRIntervalMake(NAN, 1), SRIntervalMake(0, NAN), SRIntervalMake(2, 1), SRIntervalPoint(NAN), SRIntervalPoint(INFINITY), N};
  SRInterval (*bin[])(SRInterval, SRInterval) = {SRIntervalAdd, SRIntervalSub, SRIntervalMul, SRIntervalDiv, SRIntervalMin, SRIntervalMax, SRIntervalHull, SRIntervalIntersect};
  SRInterval (*un[])(SRInterval) = {SRIntervalNeg, SRIntervalRecip, SRIntervalSqr, SRIntervalSqrt, SRIntervalAbs, SRIntervalExp, SRIntervalTanh, SRIntervalSin, SRIntervalCos, SRIntervalDTanh};
  for (size_t p = 0; p < sizeof pts / sizeof pts[0]; p++) assert_true(SRIntervalIsNaI(pts[p]));
  for (size_t i = 0; i < sizeof bin / sizeof bin[0]; i++) {
    assert_true(SRIntervalIsNaI(bin[i](N, x)) && SRIntervalIsNaI(bin[i](x, N)));
    assert_true(SRIntervalIsNaI(bin[i](N, SRIntervalEmpty())) && SRIntervalIsNaI(bin[i](SRIntervalEmpty(), N)));
  }
  for (size_t i = 0; i < sizeof un / sizeof un[0]; i++) assert_true(SRIntervalIsNaI(un[i](N)));
  assert_true(SRIntervalIsNaI(SRIntervalScale(NAN, x)) && SRIntervalIsNaI(SRIntervalShift(NAN, x)));
  assert_true(SRIntervalIsNaI(SRIntervalScale(2, N)) && SRIntervalIsNaI(SRIntervalShift(2, N)));
  assert_true(SRIntervalIsNaI(SRIntervalClip(N, 0, 1)) && SRIntervalIsNaI(SRIntervalClip(x, NAN, 1)));
  assert_false(SRIntervalSubset(N, x) || SRIntervalSubset(x, N) || SRIntervalContains(N, 0));
  assert_false(SRIntervalIsBounded(N) || SRIntervalIsEmpty(N) || SRIntervalIsEntire(N));
  double lo, hi;
  SRExpBounds(NAN, &lo, &hi);
  assert_true(isnan(lo) && isnan(hi));
  SRSinBounds(NAN, &lo, &hi);
  assert_true(isnan(lo) && isnan(hi));
}

static void test_subset_hull_intersect(void **state)
{
  SRInterval E = SRIntervalEmpty();
  assert_true(SRIntervalSubset(E, I(0, 1)) && SRIntervalSubset(E, E) && SRIntervalSubset(I(0, 1), SRIntervalEntire()));
  assert_true(SRIntervalSubset(I(0, 1), I(0, 1)) && !SRIntervalSubset(I(0, 1.5), I(0, 1)) && !SRIntervalSubset(I(0, 1), E));
  assert_iv(SRIntervalHull(I(0, 1), I(3, 4)), 0, 4);
  assert_iv(SRIntervalHull(E, I(3, 4)), 3, 4);
  assert_true(SRIntervalIsEmpty(SRIntervalHull(E, E)));
  assert_iv(SRIntervalIntersect(I(0, 2), I(1, 4)), 1, 2);
  assert_iv(SRIntervalIntersect(I(0, 1), I(1, 4)), 1, 1);
  assert_true(SRIntervalIsEmpty(SRIntervalIntersect(I(0, 1), I(2, 4))));
  assert_true(SRIntervalContains(I(0, 1), 1) && !SRIntervalContains(I(0, 1), 1.5) && !SRIntervalContains(SRIntervalEntire(), INFINITY));
  assert_iv(SRIntervalMin(I(0, 3), I(1, 2)), 0, 2);
  assert_iv(SRIntervalMax(I(0, 3), I(1, 2)), 1, 3);
}

static void test_clip(void **state)
{
  assert_iv(SRIntervalClip(I(-5, 0.5), 0, 1), 0, 0.5);
  assert_iv(SRIntervalClip(I(-5, 5), 0, 1), 0, 1);
  assert_iv(SRIntervalClip(I(2, 5), 0, 1), 1, 1);
  assert_iv(SRIntervalClip(SRIntervalEntire(), -1, 1), -1, 1);
  assert_iv(SRIntervalClip(I(0.25, 0.5), 0, 1), 0.25, 0.5);
  assert_true(SRIntervalIsNaI(SRIntervalClip(I(0, 1), 1, 0)));
}

static void test_mid_rad_width(void **state)
{
  SRInterval t = I(0x1p-1074, 0x1p-1074 * 2);
  double     m = SRIntervalMid(t);
  assert_true(SRIntervalContains(t, m));
  assert_true(SRIntervalMid(I(-DBL_MAX, DBL_MAX)) == 0 && SRIntervalMid(SRIntervalEntire()) == 0);
  assert_true(SRIntervalMid(I(1, INFINITY)) == DBL_MAX && SRIntervalMid(I(-INFINITY, 1)) == -DBL_MAX);
  assert_true(SRIntervalWidthUp(I(-DBL_MAX, DBL_MAX)) == INFINITY && SRIntervalWidthUp(I(1, 3)) == 2);
  assert_true(SRIntervalWidthUp(I(0, 0x1p-60 + 1)) > 0x1p-60 + 1 - 0x1p-53);
  for (uint64_t s = 1, i = 0; i < 10000; i++) {
    double a = RandomDouble(&s), b = RandomDouble(&s);
    SRInterval x = I(fmin(a, b), fmax(a, b));
    double     c = SRIntervalMid(x), r = SRIntervalRadUp(x);
    assert_true(SRIntervalContains(x, c));
    assert_true(SRSubDown(c, r) <= x.lo && x.hi <= SRAddUp(c, r));
  }
}

typedef int (*MPFROp)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);
static int MPFRSqrt2(mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b, mpfr_rnd_t rnd) { return mpfr_sqrt(r, a, rnd); }

/* Directed rounding against MPFR: exact (equal to MPFR's directed rounding) except in the
   underflow range, where one extra ulp is allowed; always on the right side. */
static void test_directed_rounding_mpfr(void **state)
{
  double (*up[])(double, double)   = {SRAddUp, SRSubUp, SRMulUp, SRDivUp, NULL};
  double (*down[])(double, double) = {SRAddDown, SRSubDown, SRMulDown, SRDivDown, NULL};
  MPFROp ops[]                     = {mpfr_add, mpfr_sub, mpfr_mul, mpfr_div, MPFRSqrt2};
  mpfr_t a, b, r;
  uint64_t s = 42;
  mpfr_set_emin(-1073);
  mpfr_set_emax(1024);
  mpfr_inits2(53, a, b, r, (mpfr_ptr)0);
  for (int op = 0; op < 5; op++)
    for (int i = 0; i < 200000; i++) {
      double x = RandomDouble(&s), y = RandomDouble(&s);
      if (i % 4 == 1) y = x * (1 + 0x1p-30) * (i % 8 == 1 ? -1 : 1); /* cancellation */
      if (i % 4 == 2) y = ldexp((double)(Next64(&s) >> 11), -(int)(Next64(&s) % 1130)); /* small */
      if (i % 8 == 3) { /* huge operands of opposite signs: TwoSum's intermediate overflows */
        x = ldexp(1 + (double)(Next64(&s) >> 12) * 0x1p-52, 1022 + (int)(Next64(&s) % 2));
        y = -ldexp(1 + (double)(Next64(&s) >> 12) * 0x1p-52, 1023);
      }
      if (op == 4) x = fabs(x);
      double lu = op < 4 ? up[op](x, y) : SRSqrtUp(x), ld = op < 4 ? down[op](x, y) : SRSqrtDown(x);
      mpfr_set_d(a, x, MPFR_RNDN);
      mpfr_set_d(b, y, MPFR_RNDN);
      int t = ops[op](r, a, b, MPFR_RNDU);
      t     = mpfr_subnormalize(r, t, MPFR_RNDU);
      double ru = mpfr_get_d(r, MPFR_RNDU);
      t         = ops[op](r, a, b, MPFR_RNDD);
      t         = mpfr_subnormalize(r, t, MPFR_RNDD);
      double rd = mpfr_get_d(r, MPFR_RNDD);
      if (isnan(ru)) {
        assert_true(isnan(lu) && isnan(ld));
        continue;
      }
      bool tiny = fabs(ru) < 0x1p-960 || fabs(rd) < 0x1p-960 || (op == 2 && (fabs(x) < 0x1p-969 || fabs(y) < 0x1p-969)) || (op >= 3 && fabs(x) < 0x1p-960);
      if (tiny) assert_true(lu >= ru && lu <= SRNextUp(ru) && ld <= rd && ld >= SRNextDown(rd));
      else {
        if (!(lu == ru && ld == rd)) print_error("op %d x=%a y=%a up %a/%a down %a/%a\n", op, x, y, lu, ru, ld, rd);
        assert_true(lu == ru && ld == rd);
      }
    }
  mpfr_clears(a, b, r, (mpfr_ptr)0);
  mpfr_set_emin(mpfr_get_emin_min());
  mpfr_set_emax(mpfr_get_emax_max());
}

static void test_next_up_down(void **state)
{
  const double v[] = {0.0, -0.0, 1.0, -1.0, 0x1p-1074, -0x1p-1074, DBL_MAX, -DBL_MAX, DBL_MIN, 3.5, INFINITY, -INFINITY};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    assert_true(SRNextUp(v[i]) == nextafter(v[i], INFINITY));
    assert_true(SRNextDown(v[i]) == nextafter(v[i], -INFINITY));
  }
  assert_true(isnan(SRNextUp(NAN)));
}

/* The bracket of 2/pi used by the quadrant computation of sin / cos (MPFR at 200 bits). */
static void test_two_over_pi_bracket(void **state)
{
  mpfr_t c;
  mpfr_init2(c, 200);
  mpfr_const_pi(c, MPFR_RNDN);
  mpfr_ui_div(c, 2, c, MPFR_RNDN);
  assert_true(mpfr_cmp_d(c, 0x1.45f306dc9c882p-1) > 0 && mpfr_cmp_d(c, 0x1.45f306dc9c883p-1) < 0);
  mpfr_clear(c);
}

static void test_sin_cos_extrema(void **state)
{
  const double pio2 = 0x1.921fb54442d18p+0; /* just below pi/2 */
  assert_true(SRIntervalSin(I(1, 2)).hi == 1 && SRIntervalSin(I(1, 2)).lo < sin(1));
  assert_true(SRIntervalSin(I(pio2, pio2)).hi == 1);      /* sin of the double nearest pi/2 rounds to 1 */
  assert_true(SRIntervalCos(I(3, 3.5)).lo == -1);        /* pi inside */
  assert_true(SRIntervalCos(I(-0.5, 0.5)).hi == 1 && SRIntervalCos(I(-0.5, 0.5)).lo < cos(0.5));
  assert_iv(SRIntervalSin(I(0, 7)), -1, 1);               /* width >= 2 pi */
  assert_iv(SRIntervalCos(I(0x1p60, 0x1p60)), -1, 1);     /* huge argument */
  SRInterval s = SRIntervalSin(I(0.1, 0.2));              /* monotone, no extremum */
  assert_true(s.lo <= sin(0.1) && s.hi >= sin(0.2) && s.hi < 0.2 && s.lo > 0.099);
  s = SRIntervalSin(I(-3 * pio2 - 0.1, -3 * pio2 + 0.1)); /* max of sin at -3 pi/2 */
  assert_true(s.hi == 1 && s.lo > 0.99);
  s = SRIntervalCos(I(2 * pio2 * 1000 - 0.01, 2 * pio2 * 1000 + 0.01)); /* 1000 pi, cos = +1 */
  assert_true(s.hi == 1 && s.lo > 0.999);
}

static void test_tanh_dtanh(void **state)
{
  SRInterval t = SRIntervalTanh(I(20, 30)); /* saturation: tanh rounds to 1 */
  assert_true(t.hi == 1 && t.lo < 1 && t.lo > 0.99);
  t = SRIntervalTanh(I(-0x1p-1074, 0x1p-1074));
  assert_true(t.lo <= -0x1p-1074 * 0.5 && t.hi >= 0 && t.hi <= 0x1p-1060);
  mpfr_t v;
  mpfr_set_emin(mpfr_get_emin_min());
  mpfr_set_emax(mpfr_get_emax_max());
  mpfr_init2(v, 200);
  const double pts[] = {0, 0.5, -1, 3, 20, -40, 400};
  for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    SRInterval d = SRIntervalDTanh(I(pts[i], pts[i]));
    mpfr_set_d(v, pts[i], MPFR_RNDN);
    mpfr_sech(v, v, MPFR_RNDN);
    mpfr_sqr(v, v, MPFR_RNDN);
    if (!(mpfr_cmp_d(v, d.lo) > 0 || (pts[i] == 0 && d.lo == 1))) print_error("x=%g [%a,%a] %a\n", pts[i], d.lo, d.hi, mpfr_get_d(v, MPFR_RNDN));
    assert_true(mpfr_cmp_d(v, d.lo) > 0 || (pts[i] == 0 && d.lo == 1));
    assert_true(mpfr_cmp_d(v, d.hi) <= 0);
    assert_true(pts[i] == 400 || d.lo > 0); /* positive lower bound, no cancellation */
  }
  mpfr_clear(v);
  SRInterval d = SRIntervalDTanh(I(-1, 2)); /* max 1 at 0, min at |x| = 2 */
  assert_true(d.hi == 1 && d.lo <= 1 - tanh(2) * tanh(2) && d.lo > 0.07);
  assert_iv(SRIntervalDTanh(SRIntervalEntire()), 0, 1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_mul_mixed_signs), cmocka_unit_test(test_mul_zero_times_infinity), cmocka_unit_test(test_signed_zeros), cmocka_unit_test(test_div_by_zero_containing), cmocka_unit_test(test_infinities_and_overflow), cmocka_unit_test(test_empty), cmocka_unit_test(test_nai_propagates), cmocka_unit_test(test_subset_hull_intersect), cmocka_unit_test(test_clip), cmocka_unit_test(test_mid_rad_width), cmocka_unit_test(test_next_up_down), cmocka_unit_test(test_directed_rounding_mpfr), cmocka_unit_test(test_two_over_pi_bracket), cmocka_unit_test(test_sin_cos_extrema), cmocka_unit_test(test_tanh_dtanh),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  mpfr_free_cache();
  return rc;
}
