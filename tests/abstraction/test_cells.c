/* Tests of the cells (src/abstraction/cells.c, SPEC §4).
   Oracles: exact rational comparisons in MPFR for the grid boxes, the clamp formula
   ||x - proj_box(x)||_p for the distance, central finite differences for the gradients,
   ray exits for the sink distance, and brute-force scans for both assignments.  Serial. */
#include <simreach/cells.h>
#include <simreach/random.h>

#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#define SEED 20240611u

static uint64_t ctr = 0; /* index into the test stream; tests run in a fixed order */
static double   U(double lo, double hi) { return SRRandomRange(SEED, SR_STREAM_TEST, ctr++, lo, hi); }

static void MakeSystem(struct _p_SRSystem *sys, PetscInt n, const double *lo, const double *hi)
{
  memset(sys, 0, sizeof(*sys));
  strcpy(sys->name, "test");
  sys->n = n;
  for (PetscInt d = 0; d < n; d++) {
    sys->dlo[d] = lo[d];
    sys->dhi[d] = hi[d];
  }
}

/* Exact test N (a - dlo) <= i (dhi - dlo) (sign s = +1) or >= (s = -1) in MPFR: that is
   a <= g_i (resp. a >= g_i) for the real grid line g_i = dlo + i (dhi - dlo) / N. */
static int CompareToGridLine(double a, double dlo, double dhi, long i, long N)
{
  mpfr_t l, r;
  int    c;
  mpfr_inits2(4400, l, r, (mpfr_ptr)0);
  assert_int_equal(mpfr_set_d(l, a, MPFR_RNDN), 0);
  assert_int_equal(mpfr_sub_d(l, l, dlo, MPFR_RNDN), 0);
  assert_int_equal(mpfr_mul_si(l, l, N, MPFR_RNDN), 0);
  assert_int_equal(mpfr_set_d(r, dhi, MPFR_RNDN), 0);
  assert_int_equal(mpfr_sub_d(r, r, dlo, MPFR_RNDN), 0);
  assert_int_equal(mpfr_mul_si(r, r, i, MPFR_RNDN), 0);
  c = mpfr_cmp(l, r); /* sign of a - g_i */
  mpfr_clears(l, r, (mpfr_ptr)0);
  return c;
}

/* exact sign of (c + s w) - v */
static int CompareSum(double c, double s, double w, double v)
{
  mpfr_t t;
  int    r;
  mpfr_init2(t, 4400);
  assert_int_equal(mpfr_set_d(t, c, MPFR_RNDN), 0);
  if (s > 0) assert_int_equal(mpfr_add_d(t, t, w, MPFR_RNDN), 0);
  else assert_int_equal(mpfr_sub_d(t, t, w, MPFR_RNDN), 0);
  r = mpfr_cmp_d(t, v);
  mpfr_clear(t);
  return r; /* sign of (c + s w) - v */
}

static const double DLO[][3] = {
  {-2, -1, -1.5707963267948966},
  {0.1, -1e3, 1e6},
  {-1e-3, 3.3, -7.77},
};
static const double DHI[][3] = {
  {2, 1, 1.5707963267948966},
  {0.7, 1e-3, 1e6 + 0.3},
  {1e-3, 3.30001, 11.1},
};
static const PetscInt COUNTS[][3] = {
  {7, 5, 3},
  {3, 11, 6},
  {13, 2, 9},
};

/* SPEC §4, §7: the real box [c - w, c + w] of grid-aligned cell (i_d) contains the exact grid
   box [g_i, g_{i+1}], and even the inward-rounded box does; grid lines are enclosed. */
static void test_grid_covers_exact_boxes(void **state)
{
  for (int t = 0; t < 3; t++) {
    struct _p_SRSystem sys;
    SRCells            C;
    MakeSystem(&sys, 3, DLO[t], DHI[t]);
    assert_int_equal(SRCellsCreateGrid(&sys, COUNTS[t], &C), 0);
    assert_int_equal(C->K, COUNTS[t][0] * COUNTS[t][1] * COUNTS[t][2]);
    assert_true(C->grid_aligned);
    for (int d = 0; d < 3; d++) /* the stored grid-line enclosures are SRCellsGridLine's */
      for (PetscInt i = 0; i <= COUNTS[t][d]; i++) {
        double lo, hi;
        SRCellsGridLine(C, d, i, &lo, &hi);
        assert_true(SRCellsGridLineEnclosure(C, d, i)[0] == lo && SRCellsGridLineEnclosure(C, d, i)[1] == hi);
      }
    for (PetscInt k = 0; k < C->K; k++) {
      PetscInt idx[3];
      double   ilo[3], ihi[3], olo[3], ohi[3];
      SRCellsGridIndex(C, k, idx);
      assert_int_equal(idx[0] + COUNTS[t][0] * (idx[1] + COUNTS[t][1] * idx[2]), k);
      SRCellsBoxInner(C, k, ilo, ihi);
      SRCellsBoxOuter(C, k, olo, ohi);
      for (int d = 0; d < 3; d++) { /* the line table holds the very c and w of the cell's line */
        const double *cw = SRCellsGridLineCW(C, d, idx[d]);
        assert_true(cw[0] == C->c[k * 3 + d] && cw[1] == C->w[k * 3 + d]);
      }
      for (int d = 0; d < 3; d++) {
        const double c = C->c[k * 3 + d], w = C->w[k * 3 + d];
        assert_true(w > 0);
        /* real box contains exact grid box, inner box too */
        assert_true(CompareToGridLine(ilo[d], DLO[t][d], DHI[t][d], idx[d], COUNTS[t][d]) <= 0);
        assert_true(CompareToGridLine(ihi[d], DLO[t][d], DHI[t][d], idx[d] + 1, COUNTS[t][d]) >= 0);
        /* inner within the real box within outer (exact) */
        assert_true(CompareSum(c, -1, w, ilo[d]) <= 0 && CompareSum(c, -1, w, olo[d]) >= 0);
        assert_true(CompareSum(c, +1, w, ihi[d]) >= 0 && CompareSum(c, +1, w, ohi[d]) <= 0);
        /* not absurdly inflated: a few ulps of the domain's magnitude */
        assert_true(w <= 0.5 * (DHI[t][d] - DLO[t][d]) / COUNTS[t][d] + 64 * DBL_EPSILON * (fabs(DLO[t][d]) + fabs(DHI[t][d])));
      }
    }
    for (int d = 0; d < 3; d++) {
      for (PetscInt i = 0; i <= COUNTS[t][d]; i++) {
        double lo, hi;
        SRCellsGridLine(C, d, i, &lo, &hi);
        assert_true(CompareToGridLine(lo, DLO[t][d], DHI[t][d], i, COUNTS[t][d]) <= 0);
        assert_true(CompareToGridLine(hi, DLO[t][d], DHI[t][d], i, COUNTS[t][d]) >= 0);
        assert_true(hi - lo <= 8 * DBL_EPSILON * (fabs(DLO[t][d]) + fabs(DHI[t][d]))); /* tight */
      }
    }
    assert_true(C->p == SR_NORM_INF && C->wmin > 0 && C->wmax > C->wmin);
    assert_int_equal(SRCellsDestroy(&C), 0);
    assert_null(C);
  }
}

/* oracle: || x - clamp(x, c - w, c + w) ||_p in long double */
static double DistanceOracle(PetscInt n, const double *x, const double *c, const double *w, SRNorm p)
{
  long double s = 0;
  for (PetscInt d = 0; d < n; d++) {
    long double lo = (long double)c[d] - w[d], hi = (long double)c[d] + w[d];
    long double z  = x[d] < lo ? lo : (x[d] > hi ? hi : x[d]);
    long double e  = fabsl(x[d] - z);
    if (p == SR_NORM_1) s += e;
    else if (p == SR_NORM_2) s += e * e;
    else s = e > s ? e : s;
  }
  return (double)(p == SR_NORM_2 ? sqrtl(s) : s);
}

static SRCells MakeRandomFree(PetscInt n, PetscInt cnt)
{
  const double       lo[3] = {-2, -1, -1.5}, hi[3] = {2, 1, 1.5};
  const PetscInt     counts[3] = {cnt, cnt, cnt};
  struct _p_SRSystem sys;
  SRCells            C;
  MakeSystem(&sys, n, lo, hi);
  assert_int_equal(SRCellsCreateGrid(&sys, counts, &C), 0);
  for (PetscInt k = 0; k < C->K * n; k++) {
    C->c[k] += U(-0.2, 0.2);
    C->w[k] *= U(0.5, 1.5);
  }
  assert_int_equal(SRCellsSetFree(C), 0);
  assert_false(C->grid_aligned);
  return C;
}

static void test_distance_matches_projection(void **state)
{
  const SRNorm norms[3] = {SR_NORM_1, SR_NORM_2, SR_NORM_INF};
  for (PetscInt n = 1; n <= 3; n++) {
    SRCells C = MakeRandomFree(n, 3);
    for (int q = 0; q < 3; q++) {
      C->p = norms[q];
      for (int s = 0; s < 2000; s++) {
        double         x[3];
        const PetscInt k = (PetscInt)U(0, C->K);
        for (PetscInt d = 0; d < n; d++) x[d] = U(-3, 3);
        const double got = SRCellsDistance(C, x, k, NULL, NULL, NULL);
        const double ref = DistanceOracle(n, x, C->c + k * n, C->w + k * n, norms[q]);
        assert_true(got >= 0);
        assert_true(fabs(got - ref) <= 8 * DBL_EPSILON * (ref + 4));
        /* inside the box (strictly, away from rounding) the distance is 0 */
        for (PetscInt d = 0; d < n; d++) x[d] = C->c[k * n + d] + U(-0.99, 0.99) * C->w[k * n + d];
        assert_true(SRCellsDistance(C, x, k, NULL, NULL, NULL) == 0.0);
      }
    }
    assert_int_equal(SRCellsDestroy(&C), 0);
  }
}

/* central differences on x, c and w at points whose excess components are all away from 0
   (and, for inf, whose largest component is separated from the others) */
static void test_distance_gradients(void **state)
{
  const SRNorm norms[3] = {SR_NORM_1, SR_NORM_2, SR_NORM_INF};
  const double hfd       = 1e-6;
  int          checked   = 0;
  for (PetscInt n = 1; n <= 3; n++) {
    SRCells C = MakeRandomFree(n, 2);
    for (int q = 0; q < 3; q++) {
      C->p = norms[q];
      for (int s = 0; s < 300; s++) {
        double         x[3], dx[3], dc[3], dw[3], e[3];
        const PetscInt k = (PetscInt)U(0, C->K);
        double        *c = C->c + k * n, *w = C->w + k * n;
        int            ok = 1;
        double         e1 = -1, e2 = -1;
        for (PetscInt d = 0; d < n; d++) {
          x[d] = U(-3, 3);
          e[d] = fabs(x[d] - c[d]) - w[d];
          if (fabs(e[d]) < 1e-3 || fabs(x[d] - c[d]) < 1e-3) ok = 0;
          if (e[d] > e1) {
            e2 = e1;
            e1 = e[d];
          } else if (e[d] > e2) e2 = e[d];
        }
        if (norms[q] == SR_NORM_INF && n > 1 && e1 - e2 < 1e-3) ok = 0;
        if (!ok) continue;
        (void)SRCellsDistance(C, x, k, dx, dc, dw);
        for (PetscInt d = 0; d < n; d++) {
          double *vars[3] = {&x[d], &c[d], &w[d]};
          double  an[3]   = {dx[d], dc[d], dw[d]};
          for (int v = 0; v < 3; v++) {
            const double save = *vars[v];
            *vars[v]          = save + hfd;
            const double fp   = SRCellsDistance(C, x, k, NULL, NULL, NULL);
            *vars[v]          = save - hfd;
            const double fm   = SRCellsDistance(C, x, k, NULL, NULL, NULL);
            *vars[v]          = save;
            const double fd   = (fp - fm) / (2 * hfd);
            assert_true(fabs(fd - an[v]) <= 1e-6 * PetscMax(1.0, fabs(fd)));
          }
        }
        checked++;
      }
    }
    assert_int_equal(SRCellsDestroy(&C), 0);
  }
  assert_true(checked > 500);
}

/* ray exit distance from x in direction u (||u||_p = 1) out of the box D */
static double RayExit(PetscInt n, const double *x, const double *u, const double *lo, const double *hi)
{
  double t = INFINITY;
  for (PetscInt d = 0; d < n; d++) {
    if (u[d] > 0) t = fmin(t, (hi[d] - x[d]) / u[d]);
    if (u[d] < 0) t = fmin(t, (lo[d] - x[d]) / u[d]);
  }
  return t;
}

static void test_sink_distance(void **state)
{
  const SRNorm norms[3] = {SR_NORM_1, SR_NORM_2, SR_NORM_INF};
  for (PetscInt n = 1; n <= 3; n++) {
    SRCells C = MakeRandomFree(n, 2);
    for (int q = 0; q < 3; q++) {
      C->p = norms[q];
      for (int s = 0; s < 300; s++) {
        double x[3], dx[3];
        for (PetscInt d = 0; d < n; d++) x[d] = U(C->dlo[d], C->dhi[d]);
        const double ds = SRCellsSinkDistance(C, x, dx);
        assert_true(ds >= 0);
        /* no point of the complement is closer: every ray leaves D no earlier */
        for (int r = 0; r < 50; r++) {
          double u[3], nu = 0;
          for (PetscInt d = 0; d < n; d++) u[d] = U(-1, 1);
          for (PetscInt d = 0; d < n; d++) nu = norms[q] == SR_NORM_1 ? nu + fabs(u[d]) : (norms[q] == SR_NORM_2 ? nu + u[d] * u[d] : fmax(nu, fabs(u[d])));
          if (norms[q] == SR_NORM_2) nu = sqrt(nu);
          for (PetscInt d = 0; d < n; d++) u[d] /= nu;
          assert_true(ds <= RayExit(n, x, u, C->dlo, C->dhi) * (1 + 1e-12));
        }
        /* and it is attained along some axis */
        double best = INFINITY;
        for (PetscInt d = 0; d < n; d++) {
          double u[3] = {0, 0, 0};
          u[d]        = 1;
          best        = fmin(best, RayExit(n, x, u, C->dlo, C->dhi));
          u[d]        = -1;
          best        = fmin(best, RayExit(n, x, u, C->dlo, C->dhi));
        }
        assert_true(fabs(best - ds) <= 4 * DBL_EPSILON * 4);
        /* gradient by central differences */
        for (PetscInt d = 0; d < n; d++) {
          const double h = 1e-7, save = x[d];
          x[d]            = save + h;
          const double fp = SRCellsSinkDistance(C, x, NULL);
          x[d]            = save - h;
          const double fm = SRCellsSinkDistance(C, x, NULL);
          x[d]            = save;
          if (ds > 1e-5) assert_true(fabs((fp - fm) / (2 * h) - dx[d]) < 1e-6);
        }
        /* outside D: 0 */
        x[(PetscInt)U(0, n)] = U(0, 1) < 0.5 ? C->dlo[0] - U(1e-9, 3) - 3 : C->dhi[0] + U(1e-9, 3) + 3;
        assert_true(SRCellsSinkDistance(C, x, dx) == 0.0);
        for (PetscInt d = 0; d < n; d++) assert_true(dx[d] == 0.0);
      }
    }
    assert_int_equal(SRCellsDestroy(&C), 0);
  }
}

static PetscInt BruteAssign(SRCells C, const double *x)
{
  PetscInt best = 0;
  double   db   = SRCellsDistance(C, x, 0, NULL, NULL, NULL);
  for (PetscInt k = 1; k < C->K; k++) {
    const double dk = SRCellsDistance(C, x, k, NULL, NULL, NULL);
    if (dk < db) {
      db   = dk;
      best = k;
    }
  }
  return best;
}

/* a coordinate that stresses the O(1) lookup: random, a grid line (rounded either way),
   a cell face c +- w and its neighbours, outside D, far outside, infinite */
static double StressCoordinate(SRCells C, PetscInt d)
{
  const PetscInt N    = C->grid[d];
  const PetscInt i    = (PetscInt)U(0, N + 1);
  const PetscInt k    = (PetscInt)U(0, N) * (d == 0 ? 1 : (d == 1 ? C->grid[0] : C->grid[0] * C->grid[1]));
  const double   c    = C->c[k * C->n + d], w = C->w[k * C->n + d];
  const double   span = C->dhi[d] - C->dlo[d];
  double         lo, hi;
  SRCellsGridLine(C, d, i, &lo, &hi);
  switch ((int)U(0, 12)) {
  case 0: return lo;
  case 1: return hi;
  case 2: return c - w;
  case 3: return c + w;
  case 4: return nextafter(c + w, INFINITY);
  case 5: return nextafter(c - w, -INFINITY);
  case 6: return C->dlo[d] - U(0, 2) * span;
  case 7: return C->dhi[d] + U(0, 2) * span;
  case 8: return U(0, 1) < 0.5 ? -1e300 : 1e300;
  case 9: return U(0, 1) < 0.5 ? -INFINITY : INFINITY;
  case 10: return c;
  default: return U(C->dlo[d], C->dhi[d]);
  }
}

static void test_assign_grid_matches_brute_force(void **state)
{
  const SRNorm norms[3] = {SR_NORM_1, SR_NORM_2, SR_NORM_INF};
  int          mism     = 0, faces = 0;
  for (int t = 0; t < 3; t++) {
    for (PetscInt n = 1; n <= 3; n++) {
      struct _p_SRSystem sys;
      SRCells            C;
      MakeSystem(&sys, n, DLO[t], DHI[t]);
      assert_int_equal(SRCellsCreateGrid(&sys, COUNTS[t], &C), 0);
      for (int q = 0; q < 3; q++) {
        C->p = norms[q];
        for (int s = 0; s < 3000; s++) {
          double x[3];
          for (PetscInt d = 0; d < n; d++) x[d] = s % 3 == 0 ? U(C->dlo[d], C->dhi[d]) : StressCoordinate(C, d);
          mism += SRCellsAssign(C, x) != BruteAssign(C, x);
        }
        /* a point on the shared face of cells 0 and 1 of dimension 0 goes to the lower one */
        if (C->grid[0] > 1) {
          double x[3];
          for (PetscInt d = 0; d < n; d++) x[d] = C->c[d];
          x[0] = 0.5 * (C->c[0] + C->c[n]);
          if (SRCellsDistance(C, x, 0, NULL, NULL, NULL) == 0 && SRCellsDistance(C, x, 1, NULL, NULL, NULL) == 0) {
            assert_int_equal(SRCellsAssign(C, x), 0);
            faces++;
          }
        }
      }
      assert_int_equal(SRCellsDestroy(&C), 0);
    }
  }
  assert_int_equal(mism, 0);
  assert_true(faces > 0);
}

static void test_assign_free_and_gauss(void **state)
{
  for (PetscInt n = 1; n <= 3; n++) {
    SRCells C = MakeRandomFree(n, 3);
    C->p      = SR_NORM_2;
    for (int s = 0; s < 300; s++) {
      double         x[3], a[8], dk[27];
      PetscInt       idx[8];
      const PetscInt m = 1 + (PetscInt)U(0, PetscMin(8, C->K));
      for (PetscInt d = 0; d < n; d++) x[d] = U(-2.5, 2.5);
      assert_int_equal(SRCellsAssign(C, x), BruteAssign(C, x));
      assert_int_equal(SRCellsAssignGauss(C, x, m, idx, a), 0);
      for (PetscInt k = 0; k < C->K; k++) dk[k] = SRCellsDistance(C, x, k, NULL, NULL, NULL);
      /* the m nearest by (d, index): every chosen cell precedes every other one */
      for (PetscInt l = 0; l < m; l++) {
        if (l > 0) assert_true(dk[idx[l - 1]] < dk[idx[l]] || (dk[idx[l - 1]] == dk[idx[l]] && idx[l - 1] < idx[l]));
        for (PetscInt k = 0; k < C->K; k++) {
          int chosen = 0;
          for (PetscInt j = 0; j < m; j++) chosen |= idx[j] == k;
          if (!chosen) assert_true(dk[idx[l]] < dk[k] || (dk[idx[l]] == dk[k] && idx[l] < k));
        }
      }
      /* weights: sum 1 and ratios exp(-(q_a - q_b)/2) */
      double sum = 0, q[8];
      for (PetscInt l = 0; l < m; l++) {
        sum += a[l];
        q[l] = 0;
        for (PetscInt d = 0; d < n; d++) {
          const double z = (x[d] - C->c[idx[l] * n + d]) / C->w[idx[l] * n + d];
          q[l] += z * z;
        }
      }
      assert_true(fabs(sum - 1) < 1e-14);
      for (PetscInt l = 1; l < m; l++)
        if (a[l] > 1e-300 && a[0] > 1e-300) assert_true(fabs(a[l] / a[0] - exp(-0.5 * (q[l] - q[0]))) <= 1e-12 * exp(-0.5 * (q[l] - q[0])));
    }
    double   x[3] = {0, 0, 0}, a[1];
    PetscInt idx[1];
    PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
    assert_int_not_equal(SRCellsAssignGauss(C, x, C->K + 1, idx, a), 0);
    assert_int_not_equal(SRCellsAssignGauss(C, x, 0, idx, a), 0);
    PetscPopErrorHandler();
    assert_int_equal(SRCellsDestroy(&C), 0);
  }
}

static void test_duplicate_copy_destroy(void **state)
{
  SRCells A = MakeRandomFree(2, 3), B = NULL, E = NULL;
  assert_int_equal(SRCellsDuplicate(A, &B), 0);
  assert_true(B->c != A->c && B->w != A->w && B->K == A->K && !B->grid_aligned);
  for (PetscInt k = 0; k < A->K * A->n; k++) assert_true(B->c[k] == A->c[k] && B->w[k] == A->w[k]);
  B->c[3] = 17;
  assert_true(A->c[3] != 17);
  assert_int_equal(SRCellsCopy(A, B), 0);
  assert_true(B->c[3] == A->c[3]);
  {
    SRCells        G;
    const double   lo[2] = {0, 0}, hi[2] = {1, 1};
    const PetscInt cnt[2] = {2, 2};
    struct _p_SRSystem sys;
    MakeSystem(&sys, 2, lo, hi);
    assert_int_equal(SRCellsCreateGrid(&sys, cnt, &G), 0);
    PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
    assert_int_not_equal(SRCellsCopy(A, G), 0); /* K differs */
    PetscPopErrorHandler();
    { /* the line table travels with a duplicate and a copy, also between other counts of the same K */
      SRCells        D = NULL, H = NULL;
      const PetscInt cnt2[2] = {4, 1};
      assert_int_equal(SRCellsDuplicate(G, &D), 0);
      assert_true(D->gline != G->gline && D->grid_aligned);
      assert_int_equal(SRCellsCreateGrid(&sys, cnt2, &H), 0);
      assert_int_equal(SRCellsCopy(H, D), 0);
      for (PetscInt i = 0; i < 4; i++) assert_true(SRCellsGridLineCW(D, 0, i)[0] == H->c[i * 2] && SRCellsGridLineCW(D, 0, i)[1] == H->w[i * 2]);
      assert_true(SRCellsGridLineCW(D, 1, 0)[0] == H->c[1]);
      assert_int_equal(SRCellsDestroy(&D), 0);
      assert_int_equal(SRCellsDestroy(&H), 0);
    }
    assert_int_equal(SRCellsDestroy(&G), 0);
  }
  assert_int_equal(SRCellsDestroy(&A), 0);
  assert_int_equal(SRCellsDestroy(&B), 0);
  assert_null(A);
  assert_null(B);
  assert_int_equal(SRCellsDestroy(&E), 0);
  assert_int_equal(SRCellsDestroy(NULL), 0);
}

static void test_create_rejects_bad_input(void **state)
{
  const double       lo[2] = {0, 1}, hi[2] = {1, 1};
  const PetscInt     cnt[2] = {2, 2}, bad[2] = {0, 2};
  struct _p_SRSystem sys;
  SRCells            C = NULL;
  PetscPushErrorHandler(PetscReturnErrorHandler, NULL);
  MakeSystem(&sys, 2, lo, hi);
  assert_int_not_equal(SRCellsCreateGrid(&sys, cnt, &C), 0); /* empty dimension */
  MakeSystem(&sys, 1, lo, hi);
  assert_int_not_equal(SRCellsCreateGrid(&sys, bad, &C), 0); /* count 0 */
  PetscPopErrorHandler();
  assert_null(C);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_grid_covers_exact_boxes),    cmocka_unit_test(test_distance_matches_projection),
    cmocka_unit_test(test_distance_gradients),         cmocka_unit_test(test_sink_distance),
    cmocka_unit_test(test_assign_grid_matches_brute_force), cmocka_unit_test(test_assign_free_and_gauss),
    cmocka_unit_test(test_duplicate_copy_destroy),     cmocka_unit_test(test_create_rejects_bad_input),
  };
  int fails, all;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  fails = cmocka_run_group_tests_name("cells", tests, NULL, NULL);
  PetscCallMPI(MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCall(PetscFinalize());
  return all;
}
