/* The plant parser's constant folding, nesting limit and node sharing (src/model/plantfile.c,
   SPEC §15 turn 4, issue #34).  Oracle: MPFR (256 bits) for every folded constant, which must
   lie in the stored interval (outward rounding) and be close to it; refusals (division by a
   constant zero, overflow, domain errors, nesting past the cap, the operation budget) are checked
   through SRPlantParse's error; the DAG must hold no two identical nodes.  Serial. */
#include <simreach/plant.h>

#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define PREC 256

static const char *head = "states x1 x2\noutputs 1\ninput x1\ninput x2\ncontrol a = y1\nder x2 = a\nperiod 0.05\nsteps 20\n";

/* parse head + "der x1 = BODY"; returns the PETSc error code (errors silenced) */
static PetscErrorCode Parse(const char *pre, const char *body, SRPlant *pl)
{
  size_t         len = strlen(head) + strlen(pre) + strlen(body) + 32;
  char          *t   = malloc(len);
  PetscErrorCode ierr;
  snprintf(t, len, "%s%s\nder x1 = %s\n", pre, head, body);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SRPlantParse(PETSC_COMM_SELF, "t.txt", t, pl);
  PetscCall(PetscPopErrorHandler());
  free(t);
  return ierr;
}

/* der x1 = K * x1: the folded K (a CONST node, operand of the root) */
static SRInterval FoldedK(const SRPlant *pl)
{
  const SRExprNode *r = &pl->dag.node[pl->f_root[0]];
  assert_int_equal(r->op, SR_X_MUL);
  assert_int_equal(pl->dag.node[r->a].op, SR_X_CONST);
  return pl->dag.node[r->a].value;
}

/* the CONST nodes of the DAG (the head's own expressions hold none) */
static int Consts(const SRPlant *pl)
{
  int k = 0;
  for (int i = 0; i < pl->dag.n; i++) k += pl->dag.node[i].op == SR_X_CONST;
  return k;
}

static void CheckEnclosed(SRInterval k, mpfr_t v, const char *what)
{
  double d = mpfr_get_d(v, MPFR_RNDN);
  printf("%-60s [%.17g, %.17g] MPFR %.17g\n", what, k.lo, k.hi, d);
  assert_true(mpfr_cmp_d(v, k.lo) >= 0);
  assert_true(mpfr_cmp_d(v, k.hi) <= 0);
  assert_true(k.hi - k.lo <= 1e-13 * fabs(d) + 1e-300);
}

static void test_fold_mpfr(void **state)
{
  SRPlant pl;
  mpfr_t  v, t, u;
  (void)state;
  mpfr_inits2(PREC, v, t, u, (mpfr_ptr)0);
  /* 1: sin, cos, tan, exp, log, sqrt, tanh of decimals that are no doubles */
  assert_int_equal(Parse("", "(sin(0.7) + cos(0.3) * tan(0.4) - exp(-1.5) + log(3.1) / sqrt(2.2) + tanh(0.1)) * x1", &pl), 0);
  mpfr_set_str(t, "0.7", 10, MPFR_RNDN), mpfr_sin(v, t, MPFR_RNDN);
  mpfr_set_str(t, "0.3", 10, MPFR_RNDN), mpfr_cos(u, t, MPFR_RNDN), mpfr_set_str(t, "0.4", 10, MPFR_RNDN), mpfr_tan(t, t, MPFR_RNDN), mpfr_mul(u, u, t, MPFR_RNDN), mpfr_add(v, v, u, MPFR_RNDN);
  mpfr_set_str(t, "-1.5", 10, MPFR_RNDN), mpfr_exp(u, t, MPFR_RNDN), mpfr_sub(v, v, u, MPFR_RNDN);
  mpfr_set_str(t, "3.1", 10, MPFR_RNDN), mpfr_log(u, t, MPFR_RNDN), mpfr_set_str(t, "2.2", 10, MPFR_RNDN), mpfr_sqrt(t, t, MPFR_RNDN), mpfr_div(u, u, t, MPFR_RNDN), mpfr_add(v, v, u, MPFR_RNDN);
  mpfr_set_str(t, "0.1", 10, MPFR_RNDN), mpfr_tanh(u, t, MPFR_RNDN), mpfr_add(v, v, u, MPFR_RNDN);
  CheckEnclosed(FoldedK(&pl), v, "sin cos tan exp log sqrt tanh");
  assert_int_equal(Consts(&pl), 1); /* K only: no intermediate constant enters the DAG */
  SRPlantFree(&pl);
  /* 2: named constants, powers (negative too), signs, a quotient */
  assert_int_equal(Parse("const g = 9.81\nconst l = 0.3\n", "-(g / l^2 - (0.1 + 0.2)^-3 + --1.7) * x1", &pl), 0);
  mpfr_set_str(t, "0.3", 10, MPFR_RNDN), mpfr_sqr(t, t, MPFR_RNDN), mpfr_set_str(v, "9.81", 10, MPFR_RNDN), mpfr_div(v, v, t, MPFR_RNDN);
  mpfr_set_str(t, "0.1", 10, MPFR_RNDN), mpfr_set_str(u, "0.2", 10, MPFR_RNDN), mpfr_add(t, t, u, MPFR_RNDN), mpfr_pow_si(t, t, -3, MPFR_RNDN), mpfr_sub(v, v, t, MPFR_RNDN);
  mpfr_set_str(t, "1.7", 10, MPFR_RNDN), mpfr_add(v, v, t, MPFR_RNDN), mpfr_neg(v, v, MPFR_RNDN);
  CheckEnclosed(FoldedK(&pl), v, "g / l^2 - (0.1 + 0.2)^-3 + --1.7, negated");
  SRPlantFree(&pl);
  mpfr_clears(v, t, u, (mpfr_ptr)0);
}

static void test_fold_many(void **state)
{
  SRPlant pl;
  size_t  n = 50000, len = 16 + 8 * n;
  char   *pre = malloc(len), *p = pre;
  (void)state;
  p += sprintf(p, "const k = 0.001");
  for (size_t i = 1; i < n; i++) p += sprintf(p, " + 0.001");
  sprintf(p, "\n");
  assert_int_equal(Parse(pre, "k * x1", &pl), 0);
  printf("50,000 constant terms: %d DAG nodes, k in [%.17g, %.17g]\n", pl.dag.n, FoldedK(&pl).lo, FoldedK(&pl).hi);
  assert_int_equal(Consts(&pl), 1);
  assert_true(FoldedK(&pl).lo <= 50.0 && 50.0 <= FoldedK(&pl).hi && FoldedK(&pl).hi - FoldedK(&pl).lo < 1e-9);
  SRPlantFree(&pl);
  free(pre);
}

static void test_refusals(void **state)
{
  SRPlant     pl;
  const char *bad[] = {"x1 / (2 - 2)", "x1 / (0.1 * 0)", "log(0 - 1) * x1", "sqrt(0 - 1) * x1", "exp(1000) * x1", "(1e300 * 1e300) * x1", "1 / 0"};
  char       *deep;
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    printf("refused: der x1 = %s\n", bad[i]);
    assert_int_not_equal(Parse("", bad[i], &pl), 0);
  }
  assert_int_not_equal(Parse("const c = 0\nconst k = 1 / c\n", "x1", &pl), 0);
  /* nesting: SR_PLANT_MAX_DEPTH levels pass, one more is refused */
  deep = malloc(4 * SR_PLANT_MAX_DEPTH + 16);
  for (int extra = 0; extra <= 1; extra++) {
    int d = SR_PLANT_MAX_DEPTH + extra, k = 0;
    for (int i = 0; i < d; i++) deep[k++] = '(';
    deep[k++] = 'x', deep[k++] = '1';
    for (int i = 0; i < d; i++) deep[k++] = ')';
    deep[k] = 0;
    if (extra) assert_int_not_equal(Parse("", deep, &pl), 0);
    else {
      assert_int_equal(Parse("", deep, &pl), 0);
      SRPlantFree(&pl);
    }
    k = 0;
    for (int i = 0; i < d; i++) deep[k++] = '-';
    deep[k++] = 'x', deep[k++] = '1', deep[k] = 0;
    if (extra) assert_int_not_equal(Parse("", deep, &pl), 0);
    else {
      assert_int_equal(Parse("", deep, &pl), 0);
      SRPlantFree(&pl);
    }
  }
  free(deep);
}

/* many distinct and repeated operations: shared through the hash, no two nodes identical; past
   the budget refused */
static void test_sharing(void **state)
{
  SRPlant pl;
  char   *body = malloc(1 << 20), *p;
  (void)state;
  for (int terms = 1000; terms <= 3000; terms += 2000) { /* under, then over 10,000 nodes */
    p = body;
    p += sprintf(p, "x1");
    for (int i = 0; i < terms; i++) p += sprintf(p, " + sin(x1 + %d) * x2 + sin(x1 + %d) * x2", i, i); /* the second copy is shared */
    if (terms == 1000) {
      assert_int_equal(Parse("", body, &pl), 0);
      printf("%d terms: %d DAG nodes\n", terms, pl.dag.n);
      for (int i = 0; i < pl.dag.n; i++)
        for (int j = 0; j < i; j++) {
          const SRExprNode *a = &pl.dag.node[i], *b = &pl.dag.node[j];
          assert_false(a->op == b->op && a->a == b->a && a->b == b->b && a->var == b->var && a->value.lo == b->value.lo && a->value.hi == b->value.hi);
        }
      assert_true(pl.dag.n <= 6 * terms + 4); /* const i, x1 + i, sin, * x2, two sums: 6 per term, not 9 */
      SRPlantFree(&pl);
    } else assert_int_not_equal(Parse("", body, &pl), 0);
  }
  free(body);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_fold_mpfr),
    cmocka_unit_test(test_fold_many),
    cmocka_unit_test(test_refusals),
    cmocka_unit_test(test_sharing),
  };
  int rc;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return rc;
}
