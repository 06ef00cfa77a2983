/* Differential test of the interval functions against MPFR (1 rank).

   Usage: test_interval_mpfr [count]   (intervals per function, default 10^6)

   For each of exp, tanh, sin, cos, sqrt, DTanh, +, -, *, / it draws `count` random intervals
   mixing edge cases (all binades, subnormals, huge arguments, near multiples of pi/2, tanh
   saturation, exp overflow / underflow thresholds, zeros and infinities, point and ulp-wide
   intervals) and checks that the exact value at several points of the input -- endpoints
   (limits at infinite ones), random interior points, the corners for the binary operations,
   and for sin / cos every extremum pi/2 + k pi inside the input -- lies in the result.
   MPFR evaluates at 200 bits (2200 for + and -, where that is exact); an inexact MPFR value v
   is accepted against an endpoint e only if it is strictly on the right side (the exact
   value is then on the right side too, since e lies on MPFR's grid).  Since exp, tanh, sqrt,
   sech^2 are monotone on each side and sin, cos are monotone between extrema, endpoints plus
   extrema give the exact range.  Prints counts and violations; every function must have 0. */
#include <simreach/interval.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <mpfr.h>

typedef struct {
  long     count;
  uint64_t seed;
  mpfr_t   two_over_pi, x, y, v, t0, t1;
  long     points, violations;
} Ctx;

static uint64_t Next64(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z          = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z          = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double Uniform(uint64_t *s) { return (double)(Next64(s) >> 11) * 0x1p-53; } /* [0, 1) */

static double StepUlps(double x, int k)
{
  for (int i = 0; i < k; i++) x = SRNextUp(x);
  for (int i = 0; i > k; i--) x = SRNextDown(x);
  return x;
}

/* One endpoint drawn from a mixture of ordinary values and edge cases. */
static double RandomPoint(uint64_t *s)
{
  double sign = (Next64(s) & 1) ? -1.0 : 1.0, x;
  switch (Next64(s) % 10) {
  case 0: return 20 * Uniform(s) - 10;
  case 1: /* uniform bit pattern: every binade */
    for (;;) {
      uint64_t u = Next64(s);
      memcpy(&x, &u, sizeof x);
      if (isfinite(x)) return x;
    }
  case 2: return sign * ldexp((double)(Next64(s) >> 12), -1074); /* subnormal */
  case 3: {                                                     /* near k pi / 2 */
    double k = (Next64(s) % 4) ? (double)((int64_t)(Next64(s) % 41) - 20) : (double)((int64_t)(Next64(s) % 2000001) - 1000000);
    x = fma(k, 0x1.921fb54442d18p+0, k * 0x1.1a62633145c07p-54);
    return StepUlps(x, (int)(Next64(s) % 9) - 4);
  }
  case 4: return sign * ldexp(1 + Uniform(s), 40 + (int)(Next64(s) % 984)); /* huge */
  case 5: return sign * (15 + 10 * Uniform(s));                            /* tanh saturation */
  case 6: {                                                                /* exp thresholds */
    static const double th[] = {0x1.62e42fefa39efp+9, -0x1.6232bdd7abcd2p+9, -0x1.74385446d71c3p+9, -0x1.74910d52d3051p+9};
    x = th[Next64(s) % 4];
    return (Next64(s) & 1) ? StepUlps(x, (int)(Next64(s) % 17) - 8) : x + (Uniform(s) - 0.5) * 1e-3;
  }
  case 7: {
    static const double sp[] = {0.0, -0.0, DBL_MAX, -DBL_MAX, DBL_MIN, -DBL_MIN, 0x1p-1074, -0x1p-1074, 1, -1, INFINITY, -INFINITY};
    return sp[Next64(s) % 12];
  }
  case 8: return 2000 * Uniform(s) - 1000;
  default: return sign * ldexp(Uniform(s), -(int)(Next64(s) % 60));
  }
}

static SRInterval RandomInterval(uint64_t *s)
{
  double a = RandomPoint(s), b;
  switch (Next64(s) % 4) {
  case 0: b = a; break;
  case 1: b = StepUlps(a, (int)(Next64(s) % 7) - 3); break;
  case 2: b = a + fabs(a) * ldexp(Uniform(s), -(int)(Next64(s) % 40)); break;
  default: b = RandomPoint(s);
  }
  SRInterval x = {fmin(a, b), fmax(a, b)};
  if (x.lo == INFINITY) x.lo = DBL_MAX;
  if (x.hi == -INFINITY) x.hi = -DBL_MAX;
  return x;
}

/* A point of x (finite when x is bounded). */
static double Interior(uint64_t *s, SRInterval x)
{
  double lo = isfinite(x.lo) ? x.lo : -DBL_MAX, hi = isfinite(x.hi) ? x.hi : DBL_MAX, u = Uniform(s);
  double p = (1 - u) * lo + u * hi;
  if (!isfinite(p)) p = 0.5 * lo + 0.5 * hi;
  return fmin(fmax(p, lo), hi);
}

/* MPFR value v (ternary t: sign of v - exact) within [r.lo, r.hi]? */
static bool Inside(mpfr_srcptr v, int t, SRInterval r)
{
  if (mpfr_nan_p(v) || SRIntervalIsNaI(r) || SRIntervalIsEmpty(r)) return false;
  int cl = mpfr_cmp_d(v, r.lo), ch = mpfr_cmp_d(v, r.hi);
  return (t > 0 ? cl > 0 : cl >= 0) && (t < 0 ? ch < 0 : ch <= 0);
}

typedef int (*UnaryMPFR)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
typedef int (*BinaryMPFR)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

static void CheckUnaryPoint(Ctx *c, UnaryMPFR f, double x, SRInterval r)
{
  mpfr_set_d(c->x, x, MPFR_RNDN);
  int t = f(c->v, c->x, MPFR_RNDN);
  c->points++;
  if (!Inside(c->v, t, r)) {
    if (c->violations++ < 10) mpfr_printf("  violation: f(%a) = %.20Rg not in [%a, %a]\n", x, c->v, r.lo, r.hi);
  }
}

/* Extrema of sin (shift 0) / cos (shift 1) inside x: t = x 2/pi crosses n with (n + shift)
   = 1 mod 4 (value +1) or 3 mod 4 (value -1); directed rounding can only add integers. */
static void CheckExtrema(Ctx *c, SRInterval x, SRInterval r, int shift)
{
  bool need_max = false, need_min = false;
  mpfr_set_d(c->x, x.lo, MPFR_RNDN);
  mpfr_mul(c->t0, c->x, c->two_over_pi, MPFR_RNDD);
  mpfr_ceil(c->t0, c->t0);
  mpfr_set_d(c->x, x.hi, MPFR_RNDN);
  mpfr_mul(c->t1, c->x, c->two_over_pi, MPFR_RNDU);
  mpfr_floor(c->t1, c->t1);
  mpfr_sub(c->v, c->t1, c->t0, MPFR_RNDN);
  if (mpfr_cmp_ui(c->v, 3) >= 0) need_max = need_min = true;
  else
    for (; mpfr_cmp(c->t0, c->t1) <= 0; mpfr_add_ui(c->t0, c->t0, 1, MPFR_RNDN)) {
      mpfr_add_ui(c->v, c->t0, (unsigned long)shift, MPFR_RNDN);
      mpfr_fmod_ui(c->v, c->v, 4, MPFR_RNDN);
      long m = (mpfr_get_si(c->v, MPFR_RNDN) + 4) % 4;
      need_max |= (m == 1);
      need_min |= (m == 3);
    }
  c->points += need_max + need_min;
  if ((need_max && !(r.hi >= 1)) || (need_min && !(r.lo <= -1))) {
    if (c->violations++ < 10) printf("  violation: extremum in [%a, %a] missed by [%a, %a]\n", x.lo, x.hi, r.lo, r.hi);
  }
}

static void RunUnary(Ctx *c, const char *name, SRInterval (*g)(SRInterval), UnaryMPFR f, int trig)
{
  uint64_t s = c->seed;
  c->points = c->violations = 0;
  mpfr_set_prec(c->x, 53);
  mpfr_set_prec(c->v, 200);
  for (long i = 0; i < c->count; i++) {
    SRInterval x = RandomInterval(&s), r = g(x);
    if (g == SRIntervalSqrt && x.hi < 0) {
      c->points++;
      if (!(SRIntervalIsEmpty(r) && !SRIntervalIsNaI(r)) && c->violations++ < 10) printf("  violation: sqrt [%a, %a] not empty\n", x.lo, x.hi);
      continue;
    }
    if (trig && (!isfinite(x.lo) || !isfinite(x.hi))) {
      c->points++;
      if (!(r.lo <= -1 && r.hi >= 1) && c->violations++ < 10) printf("  violation: %s of unbounded [%a, %a] = [%a, %a]\n", name, x.lo, x.hi, r.lo, r.hi);
      continue;
    }
    if (g == SRIntervalSqrt) x.lo = fmax(x.lo, 0.0); /* the points of the domain */
    CheckUnaryPoint(c, f, x.lo, r);
    CheckUnaryPoint(c, f, x.hi, r);
    CheckUnaryPoint(c, f, Interior(&s, x), r);
    CheckUnaryPoint(c, f, Interior(&s, x), r);
    if (trig && !(r.lo <= -1 && r.hi >= 1)) CheckExtrema(c, x, r, trig - 1);
  }
  printf("%-6s %ld intervals, %ld points, %ld violations\n", name, c->count, c->points, c->violations);
}

/* sech^2 is a composition: bound it by directed roundings (lower <= exact <= upper). */
static void RunDTanh(Ctx *c)
{
  uint64_t s = c->seed ^ 0x5555;
  c->points = c->violations = 0;
  mpfr_set_prec(c->x, 53);
  mpfr_set_prec(c->v, 200);
  for (long i = 0; i < c->count; i++) {
    SRInterval x = RandomInterval(&s), r = SRIntervalDTanh(x);
    double     p[5] = {x.lo, x.hi, Interior(&s, x), 0.0, Interior(&s, x)};
    int        np   = (x.lo <= 0 && 0 <= x.hi) ? 5 : 4;
    if (np == 4) p[3] = p[4];
    for (int k = 0; k < np; k++) {
      mpfr_set_d(c->x, p[k], MPFR_RNDN);
      mpfr_sech(c->v, c->x, MPFR_RNDD);
      mpfr_sqr(c->v, c->v, MPFR_RNDD);
      bool ok = mpfr_cmp_d(c->v, r.lo) >= 0;
      mpfr_sech(c->v, c->x, MPFR_RNDU);
      mpfr_sqr(c->v, c->v, MPFR_RNDU);
      ok = ok && mpfr_cmp_d(c->v, r.hi) <= 0;
      c->points++;
      if (!ok && c->violations++ < 10) printf("  violation: dtanh(%a) not in [%a, %a]\n", p[k], r.lo, r.hi);
    }
  }
  printf("%-6s %ld intervals, %ld points, %ld violations\n", "dtanh", c->count, c->points, c->violations);
}

static double Finite(double x) { return isfinite(x) ? x : copysign(DBL_MAX, x); }

static void RunBinary(Ctx *c, const char *name, SRInterval (*g)(SRInterval, SRInterval), BinaryMPFR f, mpfr_prec_t prec)
{
  uint64_t s = c->seed ^ (uint64_t)name[0] * 0x1234567ULL;
  bool     div = (g == SRIntervalDiv);
  c->points = c->violations = 0;
  mpfr_set_prec(c->x, 53);
  mpfr_set_prec(c->y, 53);
  mpfr_set_prec(c->v, prec);
  for (long i = 0; i < c->count; i++) {
    SRInterval a = RandomInterval(&s), b = RandomInterval(&s), r = g(a, b);
    if (div && b.lo == 0 && b.hi == 0) {
      c->points++;
      if (!(SRIntervalIsEmpty(r) && !SRIntervalIsNaI(r)) && c->violations++ < 10) printf("  violation: div by [0,0] not empty\n");
      continue;
    }
    double px[6] = {Finite(a.lo), Finite(a.lo), Finite(a.hi), Finite(a.hi), Interior(&s, a), Interior(&s, a)};
    double py[6] = {Finite(b.lo), Finite(b.hi), Finite(b.lo), Finite(b.hi), Interior(&s, b), Interior(&s, b)};
    if (div && b.lo <= 0 && 0 <= b.hi) { /* points of b next to 0 give the huge quotients */
      py[4] = b.hi > 0 ? 0x1p-1074 : -0x1p-1074;
      py[5] = b.lo < 0 ? -0x1p-1074 : 0x1p-1074;
    }
    for (int k = 0; k < 6; k++) {
      if (div && py[k] == 0) continue;
      mpfr_set_d(c->x, px[k], MPFR_RNDN);
      mpfr_set_d(c->y, py[k], MPFR_RNDN);
      int t = f(c->v, c->x, c->y, MPFR_RNDN);
      c->points++;
      if (!Inside(c->v, t, r) && c->violations++ < 10)
        printf("  violation: [%a,%a] %s [%a,%a] = [%a,%a] misses %a, %a\n", a.lo, a.hi, name, b.lo, b.hi, r.lo, r.hi, px[k], py[k]);
    }
  }
  printf("%-6s %ld intervals, %ld points, %ld violations\n", name, c->count, c->points, c->violations);
}

static int SinWrap(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t d) { return mpfr_sin(r, x, d); }
static int CosWrap(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t d) { return mpfr_cos(r, x, d); }

static void test_exp(void **state)
{
  Ctx *c = *state;
  RunUnary(c, "exp", SRIntervalExp, mpfr_exp, 0);
  assert_int_equal(c->violations, 0);
}
static void test_tanh(void **state)
{
  Ctx *c = *state;
  RunUnary(c, "tanh", SRIntervalTanh, mpfr_tanh, 0);
  assert_int_equal(c->violations, 0);
}
static void test_sin(void **state)
{
  Ctx *c = *state;
  RunUnary(c, "sin", SRIntervalSin, SinWrap, 1);
  assert_int_equal(c->violations, 0);
}
static void test_cos(void **state)
{
  Ctx *c = *state;
  RunUnary(c, "cos", SRIntervalCos, CosWrap, 2);
  assert_int_equal(c->violations, 0);
}
static void test_sqrt(void **state)
{
  Ctx *c = *state;
  RunUnary(c, "sqrt", SRIntervalSqrt, mpfr_sqrt, 0);
  assert_int_equal(c->violations, 0);
}
static void test_dtanh(void **state)
{
  Ctx *c = *state;
  RunDTanh(c);
  assert_int_equal(c->violations, 0);
}
static void test_add(void **state)
{
  Ctx *c = *state;
  RunBinary(c, "add", SRIntervalAdd, mpfr_add, 2200);
  assert_int_equal(c->violations, 0);
}
static void test_sub(void **state)
{
  Ctx *c = *state;
  RunBinary(c, "sub", SRIntervalSub, mpfr_sub, 2200);
  assert_int_equal(c->violations, 0);
}
static void test_mul(void **state)
{
  Ctx *c = *state;
  RunBinary(c, "mul", SRIntervalMul, mpfr_mul, 200);
  assert_int_equal(c->violations, 0);
}
static void test_div(void **state)
{
  Ctx *c = *state;
  RunBinary(c, "div", SRIntervalDiv, mpfr_div, 200);
  assert_int_equal(c->violations, 0);
}

int main(int argc, char **argv)
{
  Ctx c = {.count = 1000000, .seed = 20240601};
  if (argc > 1) {
    char *end;
    c.count = strtol(argv[1], &end, 10);
    if (*end || c.count <= 0) {
      fprintf(stderr, "usage: %s [count > 0] (got %s)\n", argv[0], argv[1]);
      return 2;
    }
  }
  mpfr_set_emin(mpfr_get_emin_min());
  mpfr_set_emax(mpfr_get_emax_max());
  mpfr_inits2(1300, c.two_over_pi, c.t0, c.t1, (mpfr_ptr)0); /* |x| 2/pi exact to 2^-200 for |x| < 2^1024 */
  mpfr_inits2(200, c.x, c.y, c.v, (mpfr_ptr)0);
  mpfr_const_pi(c.two_over_pi, MPFR_RNDN);
  mpfr_ui_div(c.two_over_pi, 2, c.two_over_pi, MPFR_RNDN);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_prestate(test_exp, &c), cmocka_unit_test_prestate(test_tanh, &c), cmocka_unit_test_prestate(test_sin, &c), cmocka_unit_test_prestate(test_cos, &c), cmocka_unit_test_prestate(test_sqrt, &c),
    cmocka_unit_test_prestate(test_dtanh, &c), cmocka_unit_test_prestate(test_add, &c), cmocka_unit_test_prestate(test_sub, &c), cmocka_unit_test_prestate(test_mul, &c), cmocka_unit_test_prestate(test_div, &c),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  mpfr_clears(c.two_over_pi, c.t0, c.t1, c.x, c.y, c.v, (mpfr_ptr)0);
  mpfr_free_cache();
  return rc;
}
