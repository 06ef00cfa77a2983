/* Soundness of the enclosures (SPEC §7): zero escapes of f_phi(x) from E_k.

   Random networks (1..3 hidden layers of width 4..64, weight scale 0.1..3) x random cells
   (half-widths 1e-9 .. 3 |D|, a third of them centred on the domain edge) x sampled points
   (vertices, face centres, face points, interior points, plus a projected sign-gradient
   ascent with finite differences that pushes each f_d towards each side of E_k), for the
   five enclosure types (interval, taylor1, both, crown, affine).  A point whose double evaluation leaves E_k is re-evaluated in MPFR
   (200 bits) and counts as an escape only if the real f(x) is outside; on tiny cells every
   vertex is checked in MPFR directly.  Cells are dealt round-robin to the ranks; the verdict
   is reduced.  Runs on any number of ranks:
     test_soundness -sys pendulum -model dynamics -cells 2000 -points 1000 [-seed s] [-act relu] [-plant]
   -act relu|sigmoid|linear|mixed gives the random networks those activations (SPEC §14);
   -transform adds random input clipping/normalisation and output scaling (NNet, ONNX);
   -network FILE puts that imported network (ONNX, NNet, ours; SPEC §14) on every cell instead
   (with -model controller its control is u = clip(N, -umax, umax), the oracle's too);
   -plant shrinks every box by 5 % of its width on one side and requires escapes for every
   enclosure type (the suite would catch an unsound kernel).
   With -model controller, -control_steps m (read by SRSystemCreate) holds the control for m
   plant steps in the library and in the oracle alike (SPEC §2). */
#include <simreach.h>
#include <simreach/private/enclosure.h>

#include <mpfr.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define PREC 200
#define NTYPES 5 /* interval, taylor1, both, crown, affine (SREnclosureType order) */

typedef struct {
  char        sys[16];
  SRModelType model;
  PetscInt    cells, points, cells_per_net, attack_iters;
  PetscInt    seed;
  char        act[16]; /* activations of the random networks (random_model.h) */
  PetscBool   plant;   /* planted violation: every box shrunk; the suite must find escapes */
  PetscBool   transform; /* random input clipping/normalisation and output scaling (random_model.h) */
  char        network[PETSC_MAX_PATH_LEN]; /* -network FILE: this imported network instead of random ones (SPEC §14) */
} Ctx;

/* MPFR oracle of f_phi (SPEC §2, §3), independent of the library's double code paths. */
#include "mpfr_oracle.h"

/* Does the real f(x) leave the box E (2n: lo then hi)? */
static int OracleEscapes(Oracle *o, SRModel model, const double *x, const double *E)
{
  const PetscInt n = model->n;
  OracleEval(o, model, x);
  for (PetscInt d = 0; d < n; d++)
    if (mpfr_cmp_d(o->b[d], E[d]) < 0 || mpfr_cmp_d(o->b[d], E[n + d]) > 0) return 1;
  return 0;
}

#include "random_model.h"

/* Random cell: centre in D (a third on an edge of D), half-widths 1e-9 .. 3 |D| (log-uniform). */
static void RandomCell(SRSystem sys, uint64_t seed, uint64_t *ctr, double *c, double *w)
{
  const double e    = -9.0 + 9.5 * U01(seed, ctr);
  const int    edge = U01(seed, ctr) < 1.0 / 3.0;
  const int    de   = (int)(sys->n * U01(seed, ctr));
  for (PetscInt d = 0; d < sys->n; d++) {
    const double size = sys->dhi[d] - sys->dlo[d];
    c[d]              = sys->dlo[d] + size * U01(seed, ctr);
    w[d]              = 3.0 * size * pow(10.0, e + 0.3 * (U01(seed, ctr) - 0.5));
    if (edge && d == de) c[d] = U01(seed, ctr) < 0.5 ? sys->dlo[d] : sys->dhi[d];
  }
}

typedef struct {
  long long cells, points, mpfr_checks, escapes[NTYPES], nonfinite[NTYPES];
  double    worst_margin[NTYPES]; /* min over attacked points of (distance to the box side) / box width */
} Tally;

/* Check the nb points X (images Y in double) against the NTYPES boxes. */
static void CheckPoints(Oracle *o, SRModel model, PetscInt nb, const double *X, const double *Y, double E[NTYPES][2 * SR_MAX_DIM], const SRCellStatus *st, int attacked, Tally *t)
{
  const PetscInt n = model->n;
  for (PetscInt p = 0; p < nb; p++) {
    for (int k = 0; k < NTYPES; k++) {
      int inside = 1;
      if (st[k] != SR_CELL_OK) continue;
      for (PetscInt d = 0; d < n; d++) {
        const double y = Y[p * n + d];
        if (!(y >= E[k][d] && y <= E[k][n + d])) inside = 0;
        if (attacked) {
          const double wdt = E[k][n + d] - E[k][d];
          if (wdt > 0) t->worst_margin[k] = PetscMin(t->worst_margin[k], PetscMin(y - E[k][d], E[k][n + d] - y) / wdt);
        }
      }
      if (!inside) {
        t->mpfr_checks++;
        if (OracleEscapes(o, model, X + p * n, E[k])) {
          t->escapes[k]++;
          if (t->escapes[k] <= 3) {
            printf("ESCAPE type %s point", SREnclosureTypes[k]);
            for (PetscInt d = 0; d < n; d++)
              printf(" %.17g", X[p * n + d]);
            printf(" image");
            for (PetscInt d = 0; d < n; d++)
              printf(" %.17g [%.17g, %.17g]", Y[p * n + d], E[k][d], E[k][n + d]);
            printf("\n");
          }
        }
      }
    }
  }
  t->points += nb;
}

/* Projected sign-gradient ascent on s f_d inside [lo, hi] from x (finite differences). */
static PetscErrorCode Attack(SRModel model, const double *lo, const double *hi, PetscInt d, double s, PetscInt iters, double *x, double *fx, double *X, double *Y)
{
  const PetscInt n = model->n;
  double         step[SR_MAX_DIM], best;

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++)
    step[i] = 0.25 * (hi[i] - lo[i]);
  PetscCall(SRModelEvaluate(model, 1, x, Y));
  best = s * Y[d];
  for (PetscInt it = 0; it < iters; it++) {
    /* rows 0..n-1: x + delta e_i (delta towards the inside), row n: the trial step */
    double g[SR_MAX_DIM], delta[SR_MAX_DIM];
    for (PetscInt i = 0; i < n; i++) {
      delta[i] = (hi[i] - lo[i]) * 1e-3;
      if (x[i] + delta[i] > hi[i]) delta[i] = -delta[i];
      for (PetscInt j = 0; j < n; j++)
        X[i * n + j] = x[j] + (j == i ? delta[i] : 0.0);
    }
    PetscCall(SRModelEvaluate(model, n, X, Y));
    for (PetscInt i = 0; i < n; i++)
      g[i] = (s * Y[i * n + d] - best) / delta[i];
    for (PetscInt j = 0; j < n; j++)
      X[j] = PetscMin(hi[j], PetscMax(lo[j], x[j] + (g[j] > 0 ? step[j] : g[j] < 0 ? -step[j] : 0.0)));
    PetscCall(SRModelEvaluate(model, 1, X, Y));
    if (s * Y[d] > best) {
      best = s * Y[d];
      for (PetscInt j = 0; j < n; j++)
        x[j] = X[j];
    } else
      for (PetscInt j = 0; j < n; j++)
        step[j] *= 0.5;
  }
  PetscCall(SRModelEvaluate(model, 1, x, fx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void test_zero_escapes(void **state)
{
  Ctx           *ctx = (Ctx *)*state;
  PetscMPIInt    rank, size;
  SRSystem       sys;
  SRModel        model = NULL;
  SRCells        cells;
  Oracle         o;
  Tally          t                  = { 0 };
  const PetscInt P                  = ctx->points;
  PetscInt       counts[SR_MAX_DIM] = { 1, 1, 1 };
  double        *X, *Y;
  uint64_t       ctr = 0;
  long long      tot[3 + 2 * NTYPES], loc[3 + 2 * NTYPES];
  double         worst[NTYPES];

  for (int k = 0; k < NTYPES; k++)
    t.worst_margin[k] = INFINITY;
  assert_int_equal(MPI_Comm_rank(PETSC_COMM_WORLD, &rank), 0);
  assert_int_equal(MPI_Comm_size(PETSC_COMM_WORLD, &size), 0);
  assert_int_equal(SRSystemCreate(PETSC_COMM_SELF, ctx->sys, NULL, &sys), 0);
  assert_int_equal(SRCellsCreateGrid(sys, counts, &cells), 0);
  assert_int_equal(SRCellsSetFree(cells), 0);
  OracleCreate(65, &o);
  X = malloc(sizeof(double) * (P + 16) * SR_MAX_DIM);
  Y = malloc(sizeof(double) * (P + 16) * SR_MAX_DIM);
  for (PetscInt k = 0; k < ctx->cells; k++) {
    const PetscInt n = sys->n;
    double         lo[SR_MAX_DIM], hi[SR_MAX_DIM], E[NTYPES][2 * SR_MAX_DIM];
    SRCellStatus   st[NTYPES];
    PetscInt       np = 0;
    int            tiny;

    if (k % ctx->cells_per_net == 0) { /* every rank draws the same networks */
      assert_int_equal(SRModelDestroy(&model), 0);
      ctr = (uint64_t)k * 1000003;
      if (ctx->network[0]) { /* an imported network (ONNX, NNet, ours): its own function throughout */
        SRMLP mlp;
        assert_int_equal(SRNetworkLoad(PETSC_COMM_SELF, ctx->network, NULL, &mlp), 0);
        assert_int_equal(SRModelCreateFromMLP(sys, ctx->model, mlp, ctx->network, &model), 0);
      } else {
        assert_int_equal(RandomModel(sys, ctx->model, ctx->seed, &ctr, &model), 0);
        assert_int_equal(RandomActivations(model, ctx->act, ctx->seed, &ctr), 0);
        if (ctx->transform) assert_int_equal(RandomTransforms(model, ctx->seed, &ctr), 0);
      }
    }
    ctr = (uint64_t)k * 1000003 + 1000;
    RandomCell(sys, ctx->seed, &ctr, cells->c, cells->w);
    if (k % size != rank) continue;
    for (int ty = 0; ty < NTYPES; ty++)
      assert_int_equal(SREnclosureCompute(model, (SREnclosureType)ty, cells, 0, 1, E[ty], &st[ty]), 0);
    for (int ty = 0; ty < NTYPES; ty++)
      if (st[ty] != SR_CELL_OK) t.nonfinite[ty]++;
    if (ctx->plant) /* the planted violation: the upper side of dimension k % n moved in by 5 % of the width */
      for (int ty = 0; ty < NTYPES; ty++) E[ty][n + k % n] -= 0.05 * (E[ty][n + k % n] - E[ty][k % n]);
    SRCellsBoxOuter(cells, 0, lo, hi);
    tiny = 1;
    for (PetscInt d = 0; d < n; d++)
      tiny = tiny && (hi[d] - lo[d] < 1e-6);
    /* vertices */
    for (PetscInt v = 0; v < (1 << n) && np < P; v++, np++)
      for (PetscInt d = 0; d < n; d++)
        X[np * n + d] = (v >> d) & 1 ? hi[d] : lo[d];
    /* face centres */
    for (PetscInt f = 0; f < 2 * n && np < P; f++, np++)
      for (PetscInt d = 0; d < n; d++)
        X[np * n + d] = d == f / 2 ? (f % 2 ? hi[d] : lo[d]) : 0.5 * lo[d] + 0.5 * hi[d];
    /* face points and interior points */
    for (; np < P; np++) {
      const PetscInt face = np % 2 ? (PetscInt)(2 * n * U01(ctx->seed, &ctr)) : -1;
      for (PetscInt d = 0; d < n; d++) {
        const double uu = U01(ctx->seed, &ctr);
        X[np * n + d]   = PetscMin(hi[d], lo[d] + uu * (hi[d] - lo[d]));
        if (face >= 0 && d == face / 2) X[np * n + d] = face % 2 ? hi[d] : lo[d];
      }
    }
    assert_int_equal(SRModelEvaluate(model, P, X, Y), 0);
    if (tiny) /* every vertex straight to MPFR: rounding-sized misses show only there */
      for (PetscInt v = 0; v < (1 << n) && v < P; v++)
        for (int ty = 0; ty < NTYPES; ty++) {
          t.mpfr_checks++;
          if (st[ty] == SR_CELL_OK && OracleEscapes(&o, model, X + v * n, E[ty])) t.escapes[ty]++;
        }
    CheckPoints(&o, model, P, X, Y, E, st, 0, &t);
    /* the attack: start from the best sample of each objective */
    for (PetscInt d = 0; d < n; d++)
      for (int sgn = -1; sgn <= 1; sgn += 2) {
        double   x[SR_MAX_DIM], fx[SR_MAX_DIM], bestv = -INFINITY;
        PetscInt bp = 0;
        for (PetscInt p = 0; p < P; p++)
          if (sgn * Y[p * n + d] > bestv) {
            bestv = sgn * Y[p * n + d];
            bp    = p;
          }
        for (PetscInt j = 0; j < n; j++)
          x[j] = X[bp * n + j];
        assert_int_equal(Attack(model, lo, hi, d, (double)sgn, ctx->attack_iters, x, fx, X + P * n, Y + P * n), 0);
        CheckPoints(&o, model, 1, x, fx, E, st, 1, &t);
        t.points += (n + 1) * ctx->attack_iters;
      }
    t.cells++;
  }
  loc[0] = t.cells;
  loc[1] = t.points;
  loc[2] = t.mpfr_checks;
  for (int k = 0; k < NTYPES; k++) {
    loc[3 + k]          = t.escapes[k];
    loc[3 + NTYPES + k] = t.nonfinite[k];
  }
  assert_int_equal(MPI_Allreduce(loc, tot, 3 + 2 * NTYPES, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD), 0);
  assert_int_equal(MPI_Allreduce(t.worst_margin, worst, NTYPES, MPI_DOUBLE, MPI_MIN, PETSC_COMM_WORLD), 0);
  if (!rank) {
    printf("soundness %s %s -act %s%s%s%s%s: cells %lld, points %lld (incl. attack), MPFR re-checks %lld\n", ctx->sys, SRModelTypes[ctx->model], ctx->network[0] ? "(file)" : ctx->act, ctx->network[0] ? " -network " : "", ctx->network, ctx->transform ? " -transform" : "", ctx->plant ? " (PLANTED: every box shrunk, escapes expected)" : "", tot[0], tot[1], tot[2]);
    for (int k = 0; k < NTYPES; k++)
      printf("  %-8s escapes %lld, nonfinite cells %lld, closest attack to the box side %.3g of its width\n", SREnclosureTypes[k], tot[3 + k], tot[3 + NTYPES + k], worst[k]);
  }
  for (int k = 0; k < NTYPES; k++) {
    if (ctx->plant) assert_true(tot[3 + k] > 0); /* the suite has teeth for every enclosure */
    else assert_int_equal(tot[3 + k], 0);
  }
  assert_true(tot[0] == ctx->cells);
  free(X);
  free(Y);
  OracleDestroy(&o);
  assert_int_equal(SRModelDestroy(&model), 0);
  assert_int_equal(SRCellsDestroy(&cells), 0);
  assert_int_equal(SRSystemDestroy(&sys), 0);
}

int main(int argc, char **argv)
{
  Ctx       ctx = { .sys = "pendulum", .model = SR_MODEL_DYNAMICS, .cells = 2000, .points = 1000, .cells_per_net = 20, .attack_iters = 10, .seed = 1, .act = "tanh", .plant = PETSC_FALSE };
  PetscBool flg;
  int       rc;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "Soundness of the enclosures (SPEC 7)"));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "Soundness test options", NULL);
  PetscCall(PetscOptionsString("-sys", "system", NULL, ctx.sys, ctx.sys, sizeof ctx.sys, &flg));
  PetscCall(PetscOptionsEnum("-model", "model", NULL, SRModelTypes, (PetscEnum)ctx.model, (PetscEnum *)&ctx.model, &flg));
  PetscCall(PetscOptionsInt("-cells", "number of random cells", NULL, ctx.cells, &ctx.cells, &flg));
  PetscCall(PetscOptionsInt("-points", "sampled points per cell", NULL, ctx.points, &ctx.points, &flg));
  PetscCall(PetscOptionsInt("-cells_per_net", "cells per random network", NULL, ctx.cells_per_net, &ctx.cells_per_net, &flg));
  PetscCall(PetscOptionsInt("-attack_iters", "gradient-ascent iterations per objective", NULL, ctx.attack_iters, &ctx.attack_iters, &flg));
  PetscCall(PetscOptionsInt("-seed", "seed", NULL, ctx.seed, &ctx.seed, &flg));
  PetscCall(PetscOptionsString("-act", "activations: tanh, relu, sigmoid, linear, mixed", NULL, ctx.act, ctx.act, sizeof ctx.act, &flg));
  PetscCall(PetscOptionsBool("-transform", "random input clipping/normalisation and output scaling (NNet, ONNX)", NULL, ctx.transform, &ctx.transform, &flg));
  PetscCall(PetscOptionsString("-network", "an imported network file instead of random networks", NULL, ctx.network, ctx.network, sizeof ctx.network, &flg));
  PetscCall(PetscOptionsBool("-plant", "shrink every box (a planted violation the suite must catch)", NULL, ctx.plant, &ctx.plant, &flg));
  PetscOptionsEnd();
  PetscCheck(ctx.points >= 16 && ctx.cells >= 1 && ctx.cells_per_net >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-points >= 16, -cells >= 1, -cells_per_net >= 1 required");
  {
    const struct CMUnitTest tests[] = { cmocka_unit_test_prestate(test_zero_escapes, &ctx) };
    rc                              = cmocka_run_group_tests(tests, NULL, NULL);
  }
  PetscCall(PetscFinalize());
  return rc;
}
