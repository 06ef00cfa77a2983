/* Tests of the exact containment test, the certified lists and the cell index
   (src/abstraction/containment.c, src/abstraction/successors.c, src/abstraction/cellindex.c; SPEC §5, §7).
   Oracles, all written here: exact real-box membership in MPFR (c - w and c + w computed
   exactly), brute-force scans over all K cells, and planted violations whose uncovered point
   is checked independently.  Serial. */
#include <simreach/base.h>
#include <simreach/abstraction.h>
#include <simreach/cells.h>
#include <simreach/random.h>
#include <simreach/system.h>
#include <simreach/private/successors.h>

#include <math.h>
#include <mpfr.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define CHK(call) assert_int_equal((call), 0)
#define PREC      256
#define MAXL      4096

static uint64_t rnd_index = 0;
static double   urand(double lo, double hi) { return SRRandomRange(17, SR_STREAM_TEST, rnd_index++, lo, hi); }

/* Exact sign of (c +- w) - x, with c, w, x doubles (PREC bits make the sum exact). */
static int cmp_exact(double c, double w, int sign, double x)
{
  mpfr_t t;
  int    r, inexact;
  mpfr_init2(t, PREC);
  mpfr_set_d(t, c, MPFR_RNDN);
  inexact = sign > 0 ? mpfr_add_d(t, t, w, MPFR_RNDN) : mpfr_sub_d(t, t, w, MPFR_RNDN);
  assert_int_equal(inexact, 0);
  r = mpfr_cmp_d(t, x);
  mpfr_clear(t);
  return r;
}

/* x inside the real box [c - w, c + w] of cell j. */
static int in_real_box(SRCells cells, PetscInt j, const double *x)
{
  for (PetscInt d = 0; d < cells->n; d++) {
    const double c = cells->c[j * cells->n + d], w = cells->w[j * cells->n + d];
    if (cmp_exact(c, w, -1, x[d]) > 0 || cmp_exact(c, w, +1, x[d]) < 0) return 0;
  }
  return 1;
}

/* The real box of cell j meets the closed box E. */
static int real_meets(SRCells cells, PetscInt j, const double *elo, const double *ehi)
{
  for (PetscInt d = 0; d < cells->n; d++) {
    const double c = cells->c[j * cells->n + d], w = cells->w[j * cells->n + d];
    if (cmp_exact(c, w, -1, ehi[d]) > 0 || cmp_exact(c, w, +1, elo[d]) < 0) return 0;
  }
  return 1;
}

static int in_domain(SRCells cells, const double *x)
{
  for (PetscInt d = 0; d < cells->n; d++)
    if (!(cells->dlo[d] <= x[d] && x[d] <= cells->dhi[d])) return 0;
  return 1;
}

static int inside_domain(SRCells cells, const double *elo, const double *ehi)
{
  for (PetscInt d = 0; d < cells->n; d++)
    if (!(cells->dlo[d] <= elo[d] && ehi[d] <= cells->dhi[d])) return 0;
  return 1;
}

/* Independent check of a witness: a point of E, outside every listed real box, and in D if the
   sink is listed. */
static int witness_ok(SRCells cells, PetscInt nlist, const PetscInt *list, const double *elo, const double *ehi, const double *x)
{
  for (PetscInt d = 0; d < cells->n; d++)
    if (!(elo[d] <= x[d] && x[d] <= ehi[d])) return 0;
  for (PetscInt t = 0; t < nlist; t++) {
    if (list[t] == cells->K) {
      if (!in_domain(cells, x)) return 0;
    } else if (in_real_box(cells, list[t], x)) return 0;
  }
  return 1;
}

/* Brute force: every cell whose real box meets E, plus the sink if E leaves D. */
static PetscInt brute_list(SRCells cells, const double *elo, const double *ehi, PetscInt *list)
{
  PetscInt m = 0;
  for (PetscInt j = 0; j < cells->K; j++)
    if (real_meets(cells, j, elo, ehi)) list[m++] = j;
  if (!inside_domain(cells, elo, ehi)) list[m++] = cells->K;
  return m;
}

static void make_grid(const char *name, const PetscInt *counts, SRSystem *sys, SRCells *cells)
{
  CHK(SRSystemCreate(PETSC_COMM_SELF, name, NULL, sys));
  CHK(SRCellsCreateGrid(*sys, counts, cells));
  assert_true((*cells)->grid_aligned);
}

/* Free cells that still cover D: centres jittered by 5 % of a grid step, half-widths 55-70 %. */
static void jitter(SRCells cells)
{
  const PetscInt n = cells->n;
  CHK(SRCellsSetFree(cells));
  for (PetscInt k = 0; k < cells->K; k++)
    for (PetscInt d = 0; d < n; d++) {
      const double h = (cells->dhi[d] - cells->dlo[d]) / (double)cells->grid[d];
      cells->c[k * n + d] += urand(-0.05, 0.05) * h;
      cells->w[k * n + d] = urand(0.55, 0.7) * h;
    }
}

/* A random box spanning up to about three cells per dimension; straddle: may leave D. */
static void random_box(SRCells cells, int straddle, double *elo, double *ehi)
{
  for (PetscInt d = 0; d < cells->n; d++) {
    const double h = (cells->dhi[d] - cells->dlo[d]) / (double)cells->grid[d];
    const double m = straddle ? 0.5 * h : 0.0;
    const double a = urand(cells->dlo[d] - m, cells->dhi[d] + m), b = a + urand(0.0, 3.0) * h;
    elo[d]         = a;
    ehi[d]         = straddle ? b : PetscMin(b, cells->dhi[d]);
    if (!straddle) elo[d] = PetscMax(PetscMin(elo[d], ehi[d]), cells->dlo[d]);
  }
}

/* Replaces *cells by a partition with every interior boundary moved by up to 30 % of a step. */
static void moved_partition(SRSystem sys, const PetscInt *cnt, SRCells *cells)
{
  PetscInt nt = 0;
  double   theta[64];
  CHK(SRCellsDestroy(cells));
  CHK(SRCellsCreatePartition(sys, cnt, cells));
  SRCellsPartitionGetTheta(*cells, theta);
  for (PetscInt d = 0; d < (*cells)->n; d++)
    for (PetscInt i = 1; i < (*cells)->grid[d]; i++, nt++) theta[nt] += urand(-0.3, 0.3) * ((*cells)->dhi[d] - (*cells)->dlo[d]) / (double)(*cells)->grid[d];
  CHK(SRCellsPartitionSetTheta(*cells, theta));
}

static const char *const     sysnames[] = {"toy1d", "pendulum", "dubins"};
static const PetscInt        counts[3][3] = {{9, 1, 1}, {7, 5, 1}, {4, 3, 5}};

/* The contract the grid fast path rests on: a grid-aligned cell covers the exact real grid box
   of its index (grid lines in MPFR, directed the unfavourable way). */
static void test_grid_cells_cover_exact_grid_boxes(void **state)
{
  for (int s = 0; s < 3; s++) {
    SRSystem sys;
    SRCells  cells;
    mpfr_t   g, h;
    make_grid(sysnames[s], counts[s], &sys, &cells);
    mpfr_init2(g, PREC);
    mpfr_init2(h, PREC);
    for (PetscInt k = 0; k < cells->K; k++) {
      PetscInt idx[SR_MAX_DIM], r = k;
      for (PetscInt d = 0; d < cells->n; d++) {
        idx[d] = r % cells->grid[d];
        r /= cells->grid[d];
      }
      for (PetscInt d = 0; d < cells->n; d++) {
        const double c = cells->c[k * cells->n + d], w = cells->w[k * cells->n + d];
        for (int side = 0; side < 2; side++) {
          const PetscInt i = idx[d] + side;
          mpfr_set_d(h, cells->dhi[d], MPFR_RNDN);
          mpfr_sub_d(h, h, cells->dlo[d], side ? MPFR_RNDU : MPFR_RNDD);
          mpfr_mul_si(h, h, (long)i, side ? MPFR_RNDU : MPFR_RNDD);
          mpfr_div_si(h, h, (long)cells->grid[d], side ? MPFR_RNDU : MPFR_RNDD);
          mpfr_add_d(g, h, cells->dlo[d], side ? MPFR_RNDU : MPFR_RNDD);
          /* c - w <= g_i (lower side) and c + w >= g_{i+1} (upper side), exactly */
          mpfr_set_d(h, c, MPFR_RNDN);
          if (side) {
            mpfr_add_d(h, h, w, MPFR_RNDN);
            assert_true(mpfr_cmp(h, g) >= 0);
          } else {
            mpfr_sub_d(h, h, w, MPFR_RNDN);
            assert_true(mpfr_cmp(h, g) <= 0);
          }
        }
      }
    }
    mpfr_clear(g);
    mpfr_clear(h);
    CHK(SRCellsDestroy(&cells));
    CHK(SRSystemDestroy(&sys));
  }
}

/* E within D or straddling it, all cells meeting E (+ sink) listed: contained, on grid-aligned
   cells (index arithmetic), on the same boxes as free cells (box subtraction with shared faces),
   and on jittered free cells. */
static void test_full_lists_are_contained(void **state)
{
  PetscInt *list;
  CHK(PetscMalloc1(MAXL, &list));
  for (int s = 0; s < 3; s++)
    for (int mode = 0; mode < 3; mode++) {
      SRSystem sys;
      SRCells  cells;
      make_grid(sysnames[s], counts[s], &sys, &cells);
      if (mode == 1) CHK(SRCellsSetFree(cells));
      if (mode == 2) jitter(cells);
      for (int trial = 0; trial < 150; trial++) {
        double       elo[SR_MAX_DIM], ehi[SR_MAX_DIM], wit[SR_MAX_DIM];
        SRCellStatus st;
        PetscInt     m;
        random_box(cells, trial % 2, elo, ehi);
        m = brute_list(cells, elo, ehi, list);
        CHK(SRContainmentTest(cells, m, list, elo, ehi, &st, wit));
        assert_int_equal(st, SR_CELL_OK);
      }
      CHK(SRCellsDestroy(&cells));
      CHK(SRSystemDestroy(&sys));
    }
  CHK(PetscFree(list));
}

/* Planted violations: remove a listed cell whose centre lies in E and in no other listed real
   box (checked here).  Must be "not contained" every time, with a witness that really is
   uncovered. */
static void test_planted_violations_are_caught(void **state)
{
  PetscInt *list, *cut;
  CHK(PetscMalloc2(MAXL, &list, MAXL, &cut));
  for (int s = 0; s < 3; s++)
    for (int mode = 0; mode < 3; mode++) {
      SRSystem sys;
      SRCells  cells;
      PetscInt planted = 0;
      make_grid(sysnames[s], counts[s], &sys, &cells);
      if (mode == 1) CHK(SRCellsSetFree(cells));
      if (mode == 2) jitter(cells);
      for (int trial = 0; trial < 60; trial++) {
        double   elo[SR_MAX_DIM], ehi[SR_MAX_DIM];
        PetscInt m;
        random_box(cells, trial % 2, elo, ehi);
        m = brute_list(cells, elo, ehi, list);
        for (PetscInt r = 0; r < m; r++) {
          const PetscInt j = list[r];
          const double  *cj = cells->c + j * cells->n;
          double         wit[SR_MAX_DIM];
          SRCellStatus   st;
          PetscInt       mc = 0;
          int            gap = 1;
          if (j == cells->K) continue;
          for (PetscInt d = 0; d < cells->n; d++)
            if (!(elo[d] <= cj[d] && cj[d] <= ehi[d])) gap = 0;
          for (PetscInt t = 0; t < m; t++)
            if (t != r) cut[mc++] = list[t];
          if (gap) gap = witness_ok(cells, mc, cut, elo, ehi, cj);
          if (!gap) continue;
          planted++;
          CHK(SRContainmentTest(cells, mc, cut, elo, ehi, &st, wit));
          assert_int_equal(st, SR_CELL_NOT_CONTAINED);
          assert_true(witness_ok(cells, mc, cut, elo, ehi, wit));
        }
      }
      assert_true(planted >= 20);
      CHK(SRCellsDestroy(&cells));
      CHK(SRSystemDestroy(&sys));
    }
  CHK(PetscFree2(list, cut));
}

/* The sink stands for the open set R^n \ D. */
static void test_sink_cases(void **state)
{
  const PetscInt c2[2] = {4, 4};
  for (int mode = 0; mode < 2; mode++) {
    SRSystem     sys;
    SRCells      cells;
    PetscInt     list[64], m, K, got[64], cnt;
    double       elo[2], ehi[2], wit[2];
    SRCellStatus st;

    make_grid("pendulum", c2, &sys, &cells);
    if (mode) CHK(SRCellsSetFree(cells));
    K = cells->K;
    /* E straddles the upper th boundary of D = [-1,1] x [-2,2] */
    elo[0] = 0.6;
    ehi[0] = 1.3;
    elo[1] = -0.3;
    ehi[1] = 0.4;
    m      = brute_list(cells, elo, ehi, list);
    assert_int_equal(list[m - 1], K);
    CHK(SRContainmentTest(cells, m, list, elo, ehi, &st, wit));
    assert_int_equal(st, SR_CELL_OK);
    CHK(SRContainmentTest(cells, m - 1, list, elo, ehi, &st, wit)); /* sink dropped */
    assert_int_equal(st, SR_CELL_NOT_CONTAINED);
    assert_true(witness_ok(cells, m - 1, list, elo, ehi, wit));
    assert_false(in_domain(cells, wit));
    /* E entirely outside D: the sink alone covers it; nothing else does */
    elo[0] = 1.5;
    ehi[0] = 2.0;
    m      = 0;
    list[m++] = K;
    CHK(SRContainmentTest(cells, 1, list, elo, ehi, &st, wit));
    assert_int_equal(st, SR_CELL_OK);
    CHK(SRContainmentTest(cells, 0, list, elo, ehi, &st, wit));
    assert_int_equal(st, SR_CELL_NOT_CONTAINED);
    assert_true(witness_ok(cells, 0, list, elo, ehi, wit));
    for (PetscInt j = 0; j < K; j++) list[j] = j;
    CHK(SRContainmentTest(cells, K, list, elo, ehi, &st, wit));
    assert_int_equal(st, SR_CELL_NOT_CONTAINED);
    assert_true(witness_ok(cells, K, list, elo, ehi, wit));
    if (mode == 0) { /* grid index arithmetic: no cell, the sink */
      CHK(SRSuccessorsCertified(cells, NULL, elo, ehi, 64, got, &cnt));
      assert_int_equal(cnt, 1);
      assert_int_equal(got[0], K);
    }
    /* E touching D's boundary from outside: the sink is open, the boundary point is in D */
    elo[0] = 1.0;
    list[0] = K;
    CHK(SRContainmentTest(cells, 1, list, elo, ehi, &st, wit));
    assert_int_equal(st, SR_CELL_NOT_CONTAINED);
    assert_true(witness_ok(cells, 1, list, elo, ehi, wit));
    assert_true(wit[0] == 1.0);
    /* E inside D with the sink alone: not contained, the witness is in D */
    elo[0] = -0.2;
    ehi[0] = 0.1;
    CHK(SRContainmentTest(cells, 1, list, elo, ehi, &st, wit));
    assert_int_equal(st, SR_CELL_NOT_CONTAINED);
    assert_true(witness_ok(cells, 1, list, elo, ehi, wit));
    assert_true(in_domain(cells, wit));
    CHK(SRCellsDestroy(&cells));
    CHK(SRSystemDestroy(&sys));
  }
}

/* NaN / Inf / inverted enclosures are never contained, even by everything plus the sink. */
static void test_nonfinite_never_contained(void **state)
{
  const PetscInt c2[2] = {3, 3};
  SRSystem       sys;
  SRCells        cells;
  PetscInt       list[16];
  const double   bad[5][4] = {{NAN, 0.0, 0.1, 0.2}, {0.0, NAN, 0.1, 0.2}, {0.0, 0.0, INFINITY, 0.2}, {-INFINITY, 0.0, 0.1, 0.2}, {0.5, 0.0, 0.1, 0.2}};

  make_grid("pendulum", c2, &sys, &cells);
  for (PetscInt j = 0; j <= cells->K; j++) list[j] = j;
  for (int mode = 0; mode < 2; mode++) {
    if (mode) CHK(SRCellsSetFree(cells));
    for (int b = 0; b < 5; b++) {
      const double elo[2] = {bad[b][0], bad[b][1]}, ehi[2] = {bad[b][2], bad[b][3]};
      double       wit[2];
      SRCellStatus st;
      CHK(SRContainmentTest(cells, cells->K + 1, list, elo, ehi, &st, wit));
      assert_int_equal(st, SR_CELL_NONFINITE);
      assert_true(isnan(wit[0]) && isnan(wit[1]));
    }
  }
  CHK(SRCellsDestroy(&cells));
  CHK(SRSystemDestroy(&sys));
}

/* Exactly representable free boxes that share faces: the union is decided exactly (no false
   failure at a shared face), a missing tile is found, and a gap narrower than one ulp, which
   no double can witness, still fails. */
static void test_shared_faces_and_subulp_gaps(void **state)
{
  const PetscInt c1[1] = {4}, c2[2] = {2, 2};
  SRSystem       sys;
  SRCells        cells;
  PetscInt       list[8] = {0, 1, 2, 3};
  double         elo[2], ehi[2], wit[2];
  SRCellStatus   st;

  make_grid("toy1d", c1, &sys, &cells); /* D = [-2, 2] */
  CHK(SRCellsSetFree(cells));
  for (PetscInt k = 0; k < 4; k++) {
    cells->c[k] = -1.5 + (double)k;
    cells->w[k] = 0.5;
  }
  elo[0] = -2.0;
  ehi[0] = 2.0;
  CHK(SRContainmentTest(cells, 4, list, elo, ehi, &st, wit));
  assert_int_equal(st, SR_CELL_OK);
  list[1] = 3; /* cell 1 = [-1, 0] missing */
  CHK(SRContainmentTest(cells, 3, list, elo, ehi, &st, wit));
  assert_int_equal(st, SR_CELL_NOT_CONTAINED);
  assert_true(witness_ok(cells, 3, list, elo, ehi, wit));
  assert_true(wit[0] > -1.0 && wit[0] < 0.0);
  /* cell 1 = [nextafter(-1, 0), 0]: the gap (-1, nextafter(-1, 0)) holds no double */
  list[1] = 1;
  cells->w[1] = 0.5 * nextafter(1.0, 0.0); /* half of 1 - 2^-53... then centre makes lo > -1 */
  cells->c[1] = -cells->w[1];
  assert_true(cells->c[1] - cells->w[1] > -1.0 && cells->c[1] + cells->w[1] == 0.0);
  CHK(SRContainmentTest(cells, 4, list, elo, ehi, &st, wit));
  assert_int_equal(st, SR_CELL_NOT_CONTAINED);
  assert_true(isnan(wit[0]) || witness_ok(cells, 4, list, elo, ehi, wit));
  CHK(SRCellsDestroy(&cells));
  CHK(SRSystemDestroy(&sys));

  make_grid("pendulum", c2, &sys, &cells); /* D = [-1, 1] x [-2, 2] */
  CHK(SRCellsSetFree(cells));
  for (PetscInt k = 0; k < 4; k++) {
    cells->c[2 * k]     = (k % 2) ? 0.5 : -0.5;
    cells->c[2 * k + 1] = (k / 2) ? 1.0 : -1.0;
    cells->w[2 * k]     = 0.5;
    cells->w[2 * k + 1] = 1.0;
  }
  elo[0] = -1.0;
  ehi[0] = 1.0;
  elo[1] = -2.0;
  ehi[1] = 2.0;
  list[0] = 0;
  list[1] = 1;
  list[2] = 2;
  list[3] = 3;
  CHK(SRContainmentTest(cells, 4, list, elo, ehi, &st, wit));
  assert_int_equal(st, SR_CELL_OK);
  CHK(SRContainmentTest(cells, 3, list, elo, ehi, &st, wit));
  assert_int_equal(st, SR_CELL_NOT_CONTAINED);
  assert_true(witness_ok(cells, 3, list, elo, ehi, wit));
  assert_true(wit[0] > 0.0 && wit[1] > 0.0);
  CHK(SRCellsDestroy(&cells));
  CHK(SRSystemDestroy(&sys));
}

/* SPEC §5: the certified list holds every cell whose real box meets E (brute force) and only
   cells within rounding of E; the sink exactly when E leaves D; sorted.  Grid index arithmetic,
   and the cell index on free cells, which must agree with a full scan. */
static void test_certified_lists_match_brute_force(void **state)
{
  PetscInt *list, *got;
  CHK(PetscMalloc2(MAXL, &list, MAXL, &got));
  for (int s = 0; s < 3; s++)
    for (int mode = 0; mode < 3; mode++) {
      SRSystem    sys;
      SRCells     cells;
      SRCellIndex index = NULL;
      make_grid(sysnames[s], counts[s], &sys, &cells);
      if (mode == 1) CHK(SRCellsSetFree(cells));
      if (mode == 2) jitter(cells);
      if (mode) CHK(SRCellIndexCreate(cells, &index));
      for (int trial = 0; trial < 200; trial++) {
        double   elo[SR_MAX_DIM], ehi[SR_MAX_DIM];
        PetscInt m, cnt, q = 0;
        random_box(cells, trial % 2, elo, ehi);
        m = brute_list(cells, elo, ehi, list);
        CHK(SRSuccessorsCertified(cells, index, elo, ehi, 2, got, &cnt)); /* too small on purpose */
        assert_true(cnt >= m);
        CHK(SRSuccessorsCertified(cells, index, elo, ehi, MAXL, got, &cnt));
        for (PetscInt t = 1; t < cnt; t++) assert_true(got[t - 1] < got[t]);
        for (PetscInt t = 0; t < m; t++) {
          while (q < cnt && got[q] < list[t]) q++;
          assert_true(q < cnt && got[q] == list[t]);
        }
        for (PetscInt t = 0; t < cnt; t++) {
          if (got[t] == cells->K) {
            assert_false(inside_domain(cells, elo, ehi));
            continue;
          }
          for (PetscInt d = 0; d < cells->n; d++) {
            const double c = cells->c[got[t] * cells->n + d], w = cells->w[got[t] * cells->n + d];
            assert_true(c - w <= ehi[d] + 1e-12 && c + w >= elo[d] - 1e-12);
          }
        }
        if (index) {
          PetscInt cq;
          CHK(SRCellIndexQuery(index, elo, ehi, MAXL, got, &cq));
          assert_int_equal(cq, cnt - (inside_domain(cells, elo, ehi) ? 0 : 1));
        }
      }
      CHK(SRCellIndexDestroy(&index));
      CHK(SRCellsDestroy(&cells));
      CHK(SRSystemDestroy(&sys));
    }
  CHK(PetscFree2(list, got));
}

/* The verdict-only call (witness NULL: the guard, the metrics) may decide a failure from a
   verified uncovered point before the box subtraction; it must give the same verdict as the
   call that asks for a witness, on grid, free, jittered and moved partition cells, on full lists,
   lists with random entries cut, lists cut to faces only, and the sub-ulp gap case. */
static void test_verdict_only_matches_witness_call(void **state)
{
  PetscInt *list, *cut;
  CHK(PetscMalloc2(MAXL, &list, MAXL, &cut));
  for (int s = 0; s < 3; s++)
    for (int mode = 0; mode < 4; mode++) {
      SRSystem sys;
      SRCells  cells;
      PetscInt fails = 0, oks = 0;
      make_grid(sysnames[s], counts[s], &sys, &cells);
      if (mode == 1) CHK(SRCellsSetFree(cells));
      if (mode == 2) jitter(cells);
      if (mode == 3) moved_partition(sys, counts[s], &cells);
      for (int trial = 0; trial < 400; trial++) {
        double       elo[SR_MAX_DIM], ehi[SR_MAX_DIM], wit[SR_MAX_DIM];
        SRCellStatus s1, s2;
        PetscInt     m, mc = 0;
        random_box(cells, trial % 2, elo, ehi);
        if (trial % 5 == 4) /* E ending exactly on a face of the grid */
          for (PetscInt d = 0; d < cells->n; d++) ehi[d] = cells->dlo[d] + (cells->dhi[d] - cells->dlo[d]) * (double)(1 + trial % cells->grid[d]) / (double)cells->grid[d];
        for (PetscInt d = 0; d < cells->n; d++) elo[d] = PetscMin(elo[d], ehi[d]);
        m = brute_list(cells, elo, ehi, list);
        for (PetscInt t = 0; t < m; t++)
          if (trial % 3 == 0 || urand(0.0, 1.0) > 0.15) cut[mc++] = list[t];
        if (mc == 0) cut[mc++] = list[0];
        CHK(SRContainmentTest(cells, mc, cut, elo, ehi, &s1, NULL));
        CHK(SRContainmentTest(cells, mc, cut, elo, ehi, &s2, wit));
        assert_int_equal(s1, s2);
        if (s2 == SR_CELL_OK) oks++;
        else fails++;
      }
      assert_true(oks >= 20 && fails >= 20);
      CHK(SRCellsDestroy(&cells));
      CHK(SRSystemDestroy(&sys));
    }
  CHK(PetscFree2(list, cut));
  {
    /* the sub-ulp gap: no double point is uncovered, the subtraction still reports it */
    const PetscInt c1[1] = {4};
    SRSystem       sys;
    SRCells        cells;
    PetscInt       l4[4] = {0, 1, 2, 3};
    double         elo[1] = {-2.0}, ehi[1] = {2.0};
    SRCellStatus   st;
    make_grid("toy1d", c1, &sys, &cells);
    CHK(SRCellsSetFree(cells));
    for (PetscInt k = 0; k < 4; k++) {
      cells->c[k] = -1.5 + (double)k;
      cells->w[k] = 0.5;
    }
    cells->w[1] = 0.5 * nextafter(1.0, 0.0);
    cells->c[1] = -cells->w[1];
    CHK(SRContainmentTest(cells, 4, l4, elo, ehi, &st, NULL));
    assert_int_equal(st, SR_CELL_NOT_CONTAINED);
    CHK(SRCellsDestroy(&cells));
    CHK(SRSystemDestroy(&sys));
  }
}

/* SRContainmentIndexBox against SRContainmentTest on the row's expanded list: grid-aligned cells
   and moved partitions, random rows with and without the sink, boxes in, across and on the faces
   of D, rows one line short of what E needs.  A proof by the row must be one by the list, and the
   row proves nearly every box the list holds; a malformed row proves nothing. */
static void test_index_box_matches_list(void **state)
{
  for (int s = 0; s < 3; s++)
    for (int mode = 0; mode < 2; mode++) {
      SRSystem sys;
      SRCells  cells;
      PetscInt oks = 0, fast = 0, shrunk = 0;
      SRIntBuf b = { 0, 0, NULL };
      make_grid(sysnames[s], counts[s], &sys, &cells);
      if (mode == 1) moved_partition(sys, counts[s], &cells);
      for (int trial = 0; trial < 2000; trial++) {
        const PetscInt n = cells->n;
        PetscInt       row[2 * SR_MAX_DIM + 1];
        double         elo[SR_MAX_DIM], ehi[SR_MAX_DIM];
        SRCellStatus   st;
        PetscBool      byrow, cut = PETSC_FALSE;
        random_box(cells, trial % 2, elo, ehi);
        if (trial % 5 == 4)
          for (PetscInt d = 0; d < n; d++)
            ehi[d] = PetscMax(elo[d], cells->dlo[d] + (cells->dhi[d] - cells->dlo[d]) * (double)(1 + trial % cells->grid[d]) / (double)cells->grid[d]);
        if (trial % 3 == 0) { /* the row E needs (from the certified list), sometimes one line short */
          PetscBool exact;
          b.n = 0;
          CHK(SRSuccessorsCertifiedAppend_Private(cells, NULL, elo, ehi, &b));
          CHK(SRIndexBoxFromList_Private(cells, b.n, b.a, row, &exact));
          assert_true(exact);
          if (trial % 2 == 0) {
            const PetscInt d = trial % n;
            if (row[d] < row[n + d]) {
              if (trial % 4 == 0)
                row[d]++;
              else
                row[n + d]--;
              shrunk++;
              cut = PETSC_TRUE;
            }
          }
        } else {
          for (PetscInt d = 0; d < n; d++) {
            const PetscInt a = (PetscInt)urand(0.0, (double)cells->grid[d]), len = (PetscInt)urand(0.0, 4.0); /* PetscMin evaluates twice */
            row[d]     = PetscMin(a, cells->grid[d] - 1);
            row[n + d] = PetscMin(row[d] + len, cells->grid[d] - 1);
          }
          row[2 * n] = trial % 4 == 1 ? 1 : 0;
        }
        b.n = 0;
        CHK(SRIndexBoxAppend_Private(n, cells->grid, cells->K, 0, row, &b));
        CHK(SRContainmentTest(cells, b.n, b.a, elo, ehi, &st, NULL));
        byrow = SRContainmentIndexBox(cells, row, elo, ehi);
        if (byrow) assert_int_equal(st, SR_CELL_OK);
        if (!cut) {
          oks += st == SR_CELL_OK;
          fast += byrow;
        }
      }
      assert_true(oks >= 200 && shrunk >= 50);
      assert_true(fast >= oks - oks / 50); /* uncut rows: the row proves (nearly) all the list does; the rest the box subtraction proves */
      { /* malformed rows decide nothing */
        const PetscInt n = cells->n;
        PetscInt       row[2 * SR_MAX_DIM + 1];
        double         elo[SR_MAX_DIM], ehi[SR_MAX_DIM];
        for (PetscInt d = 0; d < n; d++) {
          row[d]     = 0;
          row[n + d] = cells->grid[d] - 1;
          elo[d]     = cells->dlo[d];
          ehi[d]     = cells->dhi[d];
        }
        row[2 * n] = 0;
        assert_true(SRContainmentIndexBox(cells, row, elo, ehi));
        row[2 * n] = 2;
        assert_false(SRContainmentIndexBox(cells, row, elo, ehi));
        row[2 * n] = 0;
        row[n]     = cells->grid[0];
        assert_false(SRContainmentIndexBox(cells, row, elo, ehi));
        row[n] = cells->grid[0] - 1;
        ehi[0] = NAN;
        assert_false(SRContainmentIndexBox(cells, row, elo, ehi));
      }
      CHK(SRIntBufDestroy_Private(&b));
      CHK(SRCellsDestroy(&cells));
      CHK(SRSystemDestroy(&sys));
    }
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_grid_cells_cover_exact_grid_boxes),
    cmocka_unit_test(test_full_lists_are_contained),
    cmocka_unit_test(test_planted_violations_are_caught),
    cmocka_unit_test(test_sink_cases),
    cmocka_unit_test(test_nonfinite_never_contained),
    cmocka_unit_test(test_shared_faces_and_subulp_gaps),
    cmocka_unit_test(test_certified_lists_match_brute_force),
    cmocka_unit_test(test_verdict_only_matches_witness_call),
    cmocka_unit_test(test_index_box_matches_list),
  };
  int fails;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  fails = cmocka_run_group_tests_name("containment", tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
