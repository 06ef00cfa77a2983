/* Tests of the partitioned abstraction (src/abstraction/abstraction.c; SPEC §5, §6, §8 pruning).
   Runs on 1, 2 and 3 ranks.  Oracles, written here and run serially on every rank: a scan
   over all K cells for the certified lists, the targets recomputed from their definition,
   a recursive slab-sweep for union volumes, MPFR-exact box membership for witnesses; and the
   same abstraction on PETSC_COMM_SELF, whose lists and metrics must be bitwise identical.
   Every verdict is reduced over the ranks. */
#include <simreach/base.h>
#include <simreach/abstraction.h>
#include <simreach/loss.h> /* L_sim of the train layer (abstraction.h no longer brings it) */
#include <simreach/cells.h>
#include <simreach/model.h>
#include <simreach/random.h>
#include <simreach/system.h>

#include <math.h>
#include <mpfr.h>
#include <string.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define CHK(call) assert_int_equal((call), 0)
#define SAMPLES   16
#define SEED      5

/* All ranks agree on the verdict (a failure on one rank fails every rank, nobody hangs). */
static void all_true(int ok)
{
  int g = 0;
  assert_int_equal(MPI_Allreduce(&ok, &g, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD), MPI_SUCCESS);
  assert_true(g);
}

typedef struct {
  SRSystem sys;
  SRModel  model;
  SRCells  cells;
} Setup;

static const PetscInt widths[2] = {8, 8};

/* scale < 1 makes the network's contribution small so that E_k spans a few cells */
static void setup(Setup *s, const char *name, const PetscInt *counts, int free_cells, double scale)
{
  CHK(SRSystemCreate(PETSC_COMM_SELF, name, NULL, &s->sys));
  CHK(SRModelCreate(s->sys, SR_MODEL_DYNAMICS, 2, widths, &s->model));
  CHK(SRMLPInitialize(s->model->mlp, 3));
  for (PetscInt p = 0; p < s->model->mlp->nparams; p++) s->model->mlp->params[p] *= scale;
  CHK(SRCellsCreateGrid(s->sys, counts, &s->cells));
  if (free_cells) {
    const PetscInt n = s->cells->n;
    CHK(SRCellsSetFree(s->cells));
    for (PetscInt k = 0; k < s->cells->K; k++)
      for (PetscInt d = 0; d < n; d++) {
        const double h = (s->cells->dhi[d] - s->cells->dlo[d]) / (double)s->cells->grid[d];
        s->cells->c[k * n + d] += SRRandomRange(9, SR_STREAM_TEST, 2 * (k * n + d), -0.05, 0.05) * h;
        s->cells->w[k * n + d] = SRRandomRange(9, SR_STREAM_TEST, 2 * (k * n + d) + 1, 0.55, 0.7) * h;
      }
  }
}

static void teardown(Setup *s)
{
  CHK(SRCellsDestroy(&s->cells));
  CHK(SRModelDestroy(&s->model));
  CHK(SRSystemDestroy(&s->sys));
}

static void make_abs(MPI_Comm comm, SRTargetType tt, SRAbstraction *a)
{
  CHK(SRAbstractionCreate(comm, a));
  CHK(SRAbstractionSetEnclosureType(*a, SR_ENCLOSURE_INTERVAL));
  CHK(SRAbstractionSetTarget(*a, tt, 0.9, SAMPLES, SEED));
}

/* E_k of every cell, serially */
static double *all_enclosures(Setup *s)
{
  const PetscInt K = s->cells->K, n = s->cells->n;
  double        *E;
  SRCellStatus  *st;
  CHK(PetscMalloc1(2 * n * K, &E));
  CHK(PetscMalloc1(K, &st));
  CHK(SREnclosureCompute(s->model, SR_ENCLOSURE_INTERVAL, s->cells, 0, K, E, st));
  for (PetscInt k = 0; k < K; k++) assert_int_equal(st[k], SR_CELL_OK);
  CHK(PetscFree(st));
  return E;
}

static int inside_domain(SRCells cells, const double *elo, const double *ehi)
{
  for (PetscInt d = 0; d < cells->n; d++)
    if (!(cells->dlo[d] <= elo[d] && ehi[d] <= cells->dhi[d])) return 0;
  return 1;
}

static int outer_meets(SRCells cells, PetscInt j, const double *elo, const double *ehi)
{
  double lo[SR_MAX_DIM], hi[SR_MAX_DIM];
  SRCellsBoxOuter(cells, j, lo, hi);
  for (PetscInt d = 0; d < cells->n; d++)
    if (!(lo[d] <= ehi[d] && elo[d] <= hi[d])) return 0;
  return 1;
}

/* Brute-force certified list of SPEC §5 by a scan over all cells. */
static PetscInt brute_certified(SRCells cells, const double *elo, const double *ehi, PetscInt *list)
{
  PetscInt m = 0;
  for (PetscInt j = 0; j < cells->K; j++)
    if (outer_meets(cells, j, elo, ehi)) list[m++] = j;
  if (!inside_domain(cells, elo, ehi)) list[m++] = cells->K;
  return m;
}

/* Union volume by recursive slab sweep (independent of the coordinate-compression marking). */
static double sweep_volume(PetscInt n, PetscInt d, PetscInt m, const double *lo, const double *hi, const int *active)
{
  double   xs[256], v = 0.0;
  PetscInt nx = 0;
  int      any = 0, act[128];
  for (PetscInt b = 0; b < m; b++) any |= active[b];
  if (!any) return 0.0;
  if (d == n) return 1.0;
  for (PetscInt b = 0; b < m; b++)
    if (active[b]) {
      xs[nx++] = lo[b * n + d];
      xs[nx++] = hi[b * n + d];
    }
  for (PetscInt a = 1; a < nx; a++)
    for (PetscInt b = a; b > 0 && xs[b - 1] > xs[b]; b--) {
      const double t = xs[b];
      xs[b]          = xs[b - 1];
      xs[b - 1]      = t;
    }
  for (PetscInt a = 0; a + 1 < nx; a++) {
    if (!(xs[a + 1] > xs[a])) continue;
    for (PetscInt b = 0; b < m; b++) act[b] = active[b] && lo[b * n + d] <= xs[a] && hi[b * n + d] >= xs[a + 1];
    v += (xs[a + 1] - xs[a]) * sweep_volume(n, d + 1, m, lo, hi, act);
  }
  return v;
}

static double brute_union_volume(SRCells cells, PetscInt nlist, const PetscInt *list)
{
  double lo[128 * SR_MAX_DIM], hi[128 * SR_MAX_DIM];
  int    act[128];
  PetscInt m = 0;
  assert_true(nlist <= 128);
  for (PetscInt t = 0; t < nlist; t++) {
    if (list[t] == cells->K) continue;
    SRCellsBoxOuter(cells, list[t], lo + m * cells->n, hi + m * cells->n);
    act[m++] = 1;
  }
  return sweep_volume(cells->n, 0, m, lo, hi, act);
}

/* The sample images of cell k as documented: x_d from SR_STREAM_TARGET at (k S + s) n + d. */
static void cell_images(Setup *s, PetscInt k, double *Y)
{
  const PetscInt n = s->cells->n;
  double         X[SAMPLES * SR_MAX_DIM], lo[SR_MAX_DIM], hi[SR_MAX_DIM];
  SRCellsBoxInner(s->cells, k, lo, hi);
  for (PetscInt q = 0; q < SAMPLES; q++)
    for (PetscInt d = 0; d < n; d++) X[q * n + d] = SRRandomRange(SEED, SR_STREAM_TARGET, (uint64_t)((k * SAMPLES + q) * n + d), lo[d], hi[d]);
  CHK(SRModelEvaluate(s->model, SAMPLES, X, Y));
}

/* Position in the list of the entry a sample image hits: first listed cell containing y, else
   the sink; -1 if neither (cannot happen for a sound list). */
static PetscInt hit(SRCells cells, PetscInt nlist, const PetscInt *list, const double *y)
{
  PetscInt sink = -1;
  for (PetscInt t = 0; t < nlist; t++) {
    if (list[t] == cells->K) sink = t;
    else if (SRCellsDistance(cells, y, list[t], NULL, NULL, NULL) == 0.0) return t;
  }
  if (sink >= 0 && SRCellsSinkDistance(cells, y, NULL) == 0.0) return sink;
  return -1;
}

static int lists_equal(const SRSuccessorList *A, const SRSuccessorList *B)
{
  if (A->K != B->K) return 0;
  if (memcmp(A->ptr, B->ptr, sizeof(PetscInt) * (A->K + 1))) return 0;
  return !memcmp(A->idx, B->idx, sizeof(PetscInt) * A->ptr[A->K]);
}

static const char *const sysnames[] = {"toy1d", "pendulum", "dubins"};
static const PetscInt    counts[3][3] = {{11, 1, 1}, {6, 5, 1}, {3, 3, 4}};

/* C(k) equals the scan, T(k) the definition of SPEC §5 (empirical and nominal), on grid and free
   cells; identical to the serial abstraction; every cell contained. */
static void test_lists_match_brute_force(void **state)
{
  for (int sy = 0; sy < 3; sy++)
    for (int fr = 0; fr < 2; fr++)
      for (int tt = 0; tt < 2; tt++) {
        Setup                  s;
        SRAbstraction          a, aself;
        const SRSuccessorList *C, *T, *Cs, *Ts;
        double                *E;
        PetscInt               list[512], nfail, first;
        int                    ok = 1;
        const SRTargetType     type = tt ? SR_TARGET_NOMINAL : SR_TARGET_EMPIRICAL;

        setup(&s, sysnames[sy], counts[sy], fr, 0.3);
        make_abs(PETSC_COMM_WORLD, type, &a);
        make_abs(PETSC_COMM_SELF, type, &aself);
        CHK(SRAbstractionBuild(a, s.model, s.cells));
        CHK(SRAbstractionBuild(aself, s.model, s.cells));
        CHK(SRAbstractionGetCertified(a, &C));
        CHK(SRAbstractionGetTargets(a, &T));
        CHK(SRAbstractionGetCertified(aself, &Cs));
        CHK(SRAbstractionGetTargets(aself, &Ts));
        ok = ok && lists_equal(C, Cs) && lists_equal(T, Ts);
        E = all_enclosures(&s);
        for (PetscInt k = 0; k < s.cells->K && ok; k++) {
          const PetscInt  n = s.cells->n, nC = C->ptr[k + 1] - C->ptr[k], *Ck = C->idx + C->ptr[k];
          const PetscInt  nT = T->ptr[k + 1] - T->ptr[k], *Tk = T->idx + T->ptr[k];
          const PetscInt  m  = brute_certified(s.cells, E + 2 * n * k, E + 2 * n * k + n, list);
          PetscInt        want[512], nw = 0;
          ok = ok && m == nC && !memcmp(list, Ck, sizeof(PetscInt) * m);
          if (!ok) break;
          if (type == SR_TARGET_NOMINAL) {
            double y[SR_MAX_DIM];
            CHK(SRModelEvaluate(s.model, 1, s.cells->c + k * n, y));
            for (PetscInt t = 0; t < nC; t++)
              if ((Ck[t] == s.cells->K ? SRCellsSinkDistance(s.cells, y, NULL) : SRCellsDistance(s.cells, y, Ck[t], NULL, NULL, NULL)) == 0.0) want[nw++] = Ck[t];
          } else {
            double   Y[SAMPLES * SR_MAX_DIM];
            PetscInt cnt[512] = {0}, taken[512] = {0}, cum = 0;
            cell_images(&s, k, Y);
            for (PetscInt q = 0; q < SAMPLES; q++) {
              const PetscInt h = hit(s.cells, nC, Ck, Y + q * n);
              ok = ok && h >= 0; /* y in E_k within the union: the fallback is never needed */
              if (h >= 0) cnt[h]++;
            }
            /* greedy: most hits first, lowest index on ties, until >= 0.9 of the samples */
            while ((double)cum < 0.9 * SAMPLES) {
              PetscInt best = -1;
              for (PetscInt t = 0; t < nC; t++)
                if (!taken[t] && (best < 0 || cnt[t] > cnt[best])) best = t;
              taken[best] = 1;
              cum += cnt[best];
            }
            for (PetscInt t = 0; t < nC; t++)
              if (taken[t]) want[nw++] = Ck[t];
          }
          ok = ok && nw >= 1 && nw == nT && !memcmp(want, Tk, sizeof(PetscInt) * nw);
        }
        CHK(PetscFree(E));
        CHK(SRAbstractionCheck(a, s.model, s.cells, SR_ENCLOSURE_INTERVAL, &nfail, &first, NULL));
        ok = ok && nfail == 0 && first == -1;
        all_true(ok);
        CHK(SRAbstractionDestroy(&a));
        CHK(SRAbstractionDestroy(&aself));
        teardown(&s);
      }
}

/* SPEC §6 metrics: equal to the serial brute force, and bitwise equal to the abstraction on
   one rank (PETSC_COMM_SELF), whatever the number of ranks of PETSC_COMM_WORLD. */
static void test_metrics_identical_and_correct(void **state)
{
  for (int sy = 0; sy < 3; sy++)
    for (int fr = 0; fr < 2; fr++) {
      Setup                  s;
      SRAbstraction          a, aself;
      SRAbstractionMetrics   m, ms;
      const SRSuccessorList *C;
      double                *E, vE = 0.0, vU = 0.0;
      PetscInt64             minimal = 0, empirical = 0;
      PetscInt               list[512];
      const PetscInt         n = (PetscInt)(sy + 1);
      int                    ok;

      setup(&s, sysnames[sy], counts[sy], fr, 0.3);
      make_abs(PETSC_COMM_WORLD, SR_TARGET_EMPIRICAL, &a);
      make_abs(PETSC_COMM_SELF, SR_TARGET_EMPIRICAL, &aself);
      CHK(SRAbstractionBuild(a, s.model, s.cells));
      CHK(SRAbstractionBuild(aself, s.model, s.cells));
      CHK(SRAbstractionGetMetrics(a, s.model, s.cells, &m));
      CHK(SRAbstractionGetMetrics(aself, s.model, s.cells, &ms));
      ok = !memcmp(&m, &ms, sizeof(m));
      CHK(SRAbstractionGetCertified(aself, &C));
      E = all_enclosures(&s);
      for (PetscInt k = 0; k < s.cells->K; k++) {
        const PetscInt nC = C->ptr[k + 1] - C->ptr[k], *Ck = C->idx + C->ptr[k];
        double         Y[SAMPLES * SR_MAX_DIM], v = 1.0;
        int            seen[512] = {0};
        minimal += brute_certified(s.cells, E + 2 * n * k, E + 2 * n * k + n, list);
        for (PetscInt d = 0; d < n; d++) v *= E[2 * n * k + n + d] - E[2 * n * k + d];
        vE += v;
        vU += brute_union_volume(s.cells, nC, Ck);
        cell_images(&s, k, Y);
        for (PetscInt q = 0; q < SAMPLES; q++) {
          const PetscInt h = hit(s.cells, nC, Ck, Y + q * n);
          if (h >= 0 && !seen[h]) {
            seen[h] = 1;
            empirical++;
          }
        }
      }
      vE /= s.cells->K;
      vU /= s.cells->K;
      ok = ok && m.succ_minimal == (double)minimal / s.cells->K && m.succ_empirical == (double)empirical / s.cells->K;
      ok = ok && m.succ_certified == (double)C->ptr[s.cells->K] / s.cells->K;
      ok = ok && m.vol_E >= vE * (1 - 1e-15) && fabs(m.vol_E - vE) <= 1e-12 * vE && fabs(m.vol_union - vU) <= 1e-12 * vU;
      ok = ok && m.failures == 0 && m.nonfinite == 0 && m.succ_empirical >= 1.0 && m.succ_empirical <= m.succ_certified;
      if (!ok) print_message("metrics differ, sys %d free %d (metric vs oracle): %g %g | %g %g | %g %g | %.17g %.17g | %.17g %.17g | %d %d\n", sy, fr, m.succ_minimal, (double)minimal / s.cells->K, m.succ_empirical, (double)empirical / s.cells->K, m.succ_certified, ms.succ_certified, m.vol_E, vE, m.vol_union, vU, (int)m.failures, (int)m.nonfinite);
      CHK(PetscFree(E));
      all_true(ok);
      CHK(SRAbstractionDestroy(&a));
      CHK(SRAbstractionDestroy(&aself));
      teardown(&s);
    }
}

/* SPEC §8 pruning from the trivially sound lists "every cell + sink": the result is the scan's
   certified list, never larger, stays contained, and pruning again changes nothing.  Then a
   perturbed model: lists only shrink (subsets), and a contained cell stays contained. */
static void test_pruning_shrinks_and_stays_contained(void **state)
{
  for (int sy = 0; sy < 3; sy++)
    for (int fr = 0; fr < 2; fr++) {
      Setup                  s;
      SRAbstraction          a, aself;
      SRSuccessorList        all = {0}, before = {0};
      const SRSuccessorList *C, *T, *Cs;
      double                *E;
      PetscInt               K, list[512], nfail, first, nfail0;
      const PetscInt         n = (PetscInt)(sy + 1);
      int                    ok = 1;

      setup(&s, sysnames[sy], counts[sy], fr, 0.3);
      K = s.cells->K;
      make_abs(PETSC_COMM_WORLD, SR_TARGET_EMPIRICAL, &a);
      make_abs(PETSC_COMM_SELF, SR_TARGET_EMPIRICAL, &aself);
      CHK(SRSuccessorListCreate(K, K * (K + 1), &all));
      for (PetscInt k = 0; k < K; k++) {
        all.ptr[k + 1] = all.ptr[k] + K + 1;
        for (PetscInt j = 0; j <= K; j++) all.idx[k * (K + 1) + j] = j;
      }
      CHK(SRAbstractionSetLists(a, &all, &all));
      CHK(SRAbstractionSetLists(aself, &all, &all));
      CHK(SRAbstractionCheck(a, s.model, s.cells, SR_ENCLOSURE_INTERVAL, &nfail, &first, NULL));
      ok = ok && nfail == 0;
      CHK(SRAbstractionPrune(a, s.model, s.cells));
      CHK(SRAbstractionPrune(aself, s.model, s.cells));
      CHK(SRAbstractionGetCertified(a, &C));
      CHK(SRAbstractionGetTargets(a, &T));
      CHK(SRAbstractionGetCertified(aself, &Cs));
      ok = ok && lists_equal(C, Cs);
      E = all_enclosures(&s);
      for (PetscInt k = 0; k < K; k++) {
        const PetscInt m = brute_certified(s.cells, E + 2 * n * k, E + 2 * n * k + n, list);
        ok = ok && m == C->ptr[k + 1] - C->ptr[k] && !memcmp(list, C->idx + C->ptr[k], sizeof(PetscInt) * m);
        ok = ok && T->ptr[k + 1] > T->ptr[k];
        for (PetscInt t = T->ptr[k]; t < T->ptr[k + 1]; t++) {
          int in = 0;
          for (PetscInt u = C->ptr[k]; u < C->ptr[k + 1]; u++) in |= C->idx[u] == T->idx[t];
          ok = ok && in;
        }
      }
      CHK(PetscFree(E));
      CHK(SRAbstractionCheck(a, s.model, s.cells, SR_ENCLOSURE_INTERVAL, &nfail, &first, NULL));
      ok = ok && nfail == 0;
      CHK(SRSuccessorListCopy(C, &before));
      CHK(SRAbstractionPrune(a, s.model, s.cells));
      CHK(SRAbstractionGetCertified(a, &C));
      ok = ok && lists_equal(C, &before);
      /* perturbed model (a small training step): lists may only shrink */
      for (PetscInt p = 0; p < s.model->mlp->nparams; p++) s.model->mlp->params[p] *= 1.0 - 0.02 * SRRandomUniform(4, SR_STREAM_TEST, (uint64_t)p);
      CHK(SRAbstractionCheck(a, s.model, s.cells, SR_ENCLOSURE_INTERVAL, &nfail0, &first, NULL));
      CHK(SRAbstractionPrune(a, s.model, s.cells));
      CHK(SRAbstractionGetCertified(a, &C));
      for (PetscInt k = 0; k < K; k++) {
        PetscInt q = before.ptr[k];
        ok = ok && C->ptr[k + 1] - C->ptr[k] <= before.ptr[k + 1] - before.ptr[k];
        for (PetscInt t = C->ptr[k]; t < C->ptr[k + 1]; t++) { /* C(k) subset of before(k), order kept */
          while (q < before.ptr[k + 1] && before.idx[q] != C->idx[t]) q++;
          ok = ok && q < before.ptr[k + 1];
        }
      }
      CHK(SRAbstractionCheck(a, s.model, s.cells, SR_ENCLOSURE_INTERVAL, &nfail, &first, NULL));
      ok = ok && nfail == nfail0;
      all_true(ok);
      CHK(SRSuccessorListDestroy(&all));
      CHK(SRSuccessorListDestroy(&before));
      CHK(SRAbstractionDestroy(&a));
      CHK(SRAbstractionDestroy(&aself));
      teardown(&s);
    }
}

/* Exact membership of x in the real box [c - w, c + w] of cell j (MPFR). */
static int in_real_box(SRCells cells, PetscInt j, const double *x)
{
  mpfr_t t;
  int    in = 1;
  mpfr_init2(t, 256);
  for (PetscInt d = 0; d < cells->n; d++) {
    const double c = cells->c[j * cells->n + d], w = cells->w[j * cells->n + d];
    mpfr_set_d(t, c, MPFR_RNDN);
    mpfr_sub_d(t, t, w, MPFR_RNDN);
    if (mpfr_cmp_d(t, x[d]) > 0) in = 0;
    mpfr_set_d(t, c, MPFR_RNDN);
    mpfr_add_d(t, t, w, MPFR_RNDN);
    if (mpfr_cmp_d(t, x[d]) < 0) in = 0;
  }
  mpfr_clear(t);
  return in;
}

/* A planted violation: from the lists of Build, remove from C(k) a cell whose centre lies in E_k
   and in no other listed box, for every third such cell.  Check must report every planted cell,
   first = the lowest one, with a witness verified here, identically on all ranks. */
static void test_planted_violation_found_by_check(void **state)
{
  for (int sy = 1; sy < 3; sy++)
    for (int fr = 0; fr < 2; fr++) {
      Setup                  s;
      SRAbstraction          a;
      const SRSuccessorList *C;
      SRSuccessorList        Cp = {0}, Tp = {0};
      double                *E, wit[SR_MAX_DIM];
      PetscInt               K, nfail, first, planted = 0, lowest = -1, e = 0;
      const PetscInt         n = (PetscInt)(sy + 1);
      int                    ok = 1;

      setup(&s, sysnames[sy], counts[sy], fr, 0.3);
      K = s.cells->K;
      make_abs(PETSC_COMM_WORLD, SR_TARGET_CERTIFIED, &a);
      CHK(SRAbstractionBuild(a, s.model, s.cells));
      CHK(SRAbstractionGetCertified(a, &C));
      E = all_enclosures(&s);
      CHK(SRSuccessorListCreate(K, C->ptr[K], &Cp));
      for (PetscInt k = 0; k < K; k++) {
        const PetscInt *Ck = C->idx + C->ptr[k], nC = C->ptr[k + 1] - C->ptr[k];
        PetscInt        drop = -1;
        if (k % 3 == 0)
          for (PetscInt t = 0; t < nC && drop < 0; t++) {
            const PetscInt j = Ck[t];
            int            gap = j < K;
            for (PetscInt d = 0; d < n && gap; d++) gap = E[2 * n * k + d] <= s.cells->c[j * n + d] && s.cells->c[j * n + d] <= E[2 * n * k + n + d];
            for (PetscInt u = 0; u < nC && gap; u++)
              if (u != t && Ck[u] < K) gap = !in_real_box(s.cells, Ck[u], s.cells->c + j * n);
            if (gap) drop = t;
          }
        if (drop >= 0) {
          planted++;
          if (lowest < 0) lowest = k;
        }
        for (PetscInt t = 0; t < nC; t++)
          if (t != drop) Cp.idx[e++] = Ck[t];
        Cp.ptr[k + 1] = e;
      }
      CHK(SRSuccessorListCopy(&Cp, &Tp));
      CHK(SRAbstractionSetLists(a, &Cp, &Tp));
      CHK(SRAbstractionCheck(a, s.model, s.cells, SR_ENCLOSURE_INTERVAL, &nfail, &first, wit));
      ok = planted >= 1 && nfail == planted && first == lowest;
      if (ok) {
        const PetscInt *Ck = Cp.idx + Cp.ptr[first], nC = Cp.ptr[first + 1] - Cp.ptr[first];
        for (PetscInt d = 0; d < n; d++) ok = ok && E[2 * n * first + d] <= wit[d] && wit[d] <= E[2 * n * first + n + d];
        for (PetscInt t = 0; t < nC; t++) {
          if (Ck[t] < K) ok = ok && !in_real_box(s.cells, Ck[t], wit);
          else
            for (PetscInt d = 0; d < n; d++) ok = ok && s.cells->dlo[d] <= wit[d] && wit[d] <= s.cells->dhi[d];
        }
      }
      {
        double wmin[SR_MAX_DIM], wmax[SR_MAX_DIM];
        assert_int_equal(MPI_Allreduce(wit, wmin, (int)n, MPI_DOUBLE, MPI_MIN, PETSC_COMM_WORLD), MPI_SUCCESS);
        assert_int_equal(MPI_Allreduce(wit, wmax, (int)n, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD), MPI_SUCCESS);
        ok = ok && !memcmp(wmin, wmax, sizeof(double) * n);
      }
      CHK(PetscFree(E));
      all_true(ok);
      CHK(SRSuccessorListDestroy(&Cp));
      CHK(SRSuccessorListDestroy(&Tp));
      CHK(SRAbstractionDestroy(&a));
      teardown(&s);
    }
}

/* A NaN weight: every enclosure nonfinite, every cell fails, lists hold the sink alone. */
static void test_nonfinite_model(void **state)
{
  Setup                  s;
  SRAbstraction          a;
  SRAbstractionMetrics   m;
  const SRSuccessorList *C, *T;
  PetscInt               nfail, first;
  double                 wit[2];
  int                    ok = 1;

  setup(&s, "pendulum", counts[1], 0, 0.3);
  s.model->mlp->params[1] = NAN;
  make_abs(PETSC_COMM_WORLD, SR_TARGET_EMPIRICAL, &a);
  CHK(SRAbstractionBuild(a, s.model, s.cells));
  CHK(SRAbstractionGetCertified(a, &C));
  CHK(SRAbstractionGetTargets(a, &T));
  for (PetscInt k = 0; k < s.cells->K; k++) ok = ok && C->ptr[k + 1] - C->ptr[k] == 1 && C->idx[C->ptr[k]] == s.cells->K && T->idx[T->ptr[k]] == s.cells->K;
  CHK(SRAbstractionCheck(a, s.model, s.cells, SR_ENCLOSURE_INTERVAL, &nfail, &first, wit));
  ok = ok && nfail == s.cells->K && first == 0 && isnan(wit[0]);
  CHK(SRAbstractionGetMetrics(a, s.model, s.cells, &m));
  ok = ok && m.failures == s.cells->K && m.nonfinite == s.cells->K && isinf(m.vol_E);
  all_true(ok);
  CHK(SRAbstractionDestroy(&a));
  teardown(&s);
}

/* -target_mass outside (0, 1] is refused, naming the option. */
static void test_options_checked(void **state)
{
  SRAbstraction a;
  PetscErrorCode ierr;
  CHK(SRAbstractionCreate(PETSC_COMM_WORLD, &a));
  CHK(PetscOptionsSetValue(NULL, "-target", "certified"));
  CHK(PetscOptionsSetValue(NULL, "-target_samples", "7"));
  CHK(SRAbstractionSetFromOptions(a));
  CHK(PetscOptionsSetValue(NULL, "-target_mass", "1.5"));
  CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SRAbstractionSetFromOptions(a);
  CHK(PetscPopErrorHandler());
  all_true(ierr == PETSC_ERR_ARG_OUTOFRANGE);
  CHK(PetscOptionsClearValue(NULL, "-target_mass"));
  CHK(PetscOptionsClearValue(NULL, "-target"));
  CHK(PetscOptionsClearValue(NULL, "-target_samples"));
  CHK(SRAbstractionDestroy(&a));
}

/* SPEC §5 storage: C(k) is held as index boxes (2n + 1 numbers per cell) on every rank.  The
   boxes, one cell's expansion and the whole explicit CSR agree; SetBoxes round-trips (lists
   and targets, and then the same pruning as the built abstraction); CopyLists keeps them; a
   corrupt row or a target outside its box is refused with the cell named. */
static void test_index_box_storage(void **state)
{
  (void)state;
  for (int sy = 0; sy < 3; sy++)
    for (int fr = 0; fr < 2; fr++) {
      Setup                  s;
      SRAbstraction          a, b, c;
      const SRSuccessorList *C, *T, *Cb, *Tb;
      const PetscInt        *rows;
      PetscInt              *bad, rl;
      SRSuccessorList        Tbad = {0};
      int                    ok = 1;

      setup(&s, sysnames[sy], counts[sy], fr, 0.3);
      rl = 2 * s.cells->n + 1;
      make_abs(PETSC_COMM_WORLD, SR_TARGET_EMPIRICAL, &a);
      make_abs(PETSC_COMM_WORLD, SR_TARGET_EMPIRICAL, &b);
      make_abs(PETSC_COMM_WORLD, SR_TARGET_EMPIRICAL, &c);
      CHK(SRAbstractionBuild(a, s.model, s.cells));
      CHK(SRAbstractionGetCertifiedBoxes(a, s.cells, &rows));
      CHK(SRAbstractionGetCertified(a, &C));
      CHK(SRAbstractionGetTargets(a, &T));
      for (PetscInt k = 0; k < s.cells->K && ok; k++) {
        PetscInt        nl, row[2 * SR_MAX_DIM + 1];
        const PetscInt *l;
        CHK(SRAbstractionGetCertifiedCell(a, k, &nl, &l));
        ok = nl == C->ptr[k + 1] - C->ptr[k] && !memcmp(l, C->idx + C->ptr[k], sizeof(PetscInt) * nl) && SRIndexBoxCount(s.cells->n, rows + rl * k) == nl;
        CHK(SRIndexBoxBound(s.cells, nl, l, row));
        ok = ok && !memcmp(row, rows + rl * k, sizeof(PetscInt) * rl);
      }
      CHK(SRAbstractionSetBoxes(b, s.cells, rows, T));
      CHK(SRAbstractionGetCertified(b, &Cb));
      CHK(SRAbstractionGetTargets(b, &Tb));
      ok = ok && lists_equal(C, Cb) && lists_equal(T, Tb);
      CHK(SRAbstractionCopyLists(b, c));
      for (PetscInt p = 0; p < s.model->mlp->nparams; p++) s.model->mlp->params[p] *= 0.5; /* narrower E_k: pruning removes cells */
      CHK(SRAbstractionPrune(a, s.model, s.cells));
      CHK(SRAbstractionPrune(c, s.model, s.cells));
      CHK(SRAbstractionGetCertified(a, &C));
      CHK(SRAbstractionGetCertified(c, &Cb));
      ok = ok && lists_equal(C, Cb);
      /* refused: a range past the grid; a target outside C(k) */
      CHK(PetscMalloc1(rl * s.cells->K, &bad));
      CHK(PetscArraycpy(bad, rows, rl * s.cells->K));
      bad[rl * 1 + s.cells->n] = s.cells->grid[0];
      CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ok = ok && SRAbstractionSetBoxes(b, s.cells, bad, T) != 0;
      CHK(PetscPopErrorHandler());
      CHK(SRAbstractionGetTargets(b, &Tb));
      CHK(SRSuccessorListCopy(Tb, &Tbad));
      Tbad.idx[Tbad.ptr[2]] = -1;
      CHK(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ok = ok && SRAbstractionSetBoxes(b, s.cells, rows, &Tbad) != 0;
      CHK(PetscPopErrorHandler());
      CHK(SRSuccessorListDestroy(&Tbad));
      CHK(PetscFree(bad));
      all_true(ok);
      CHK(SRAbstractionDestroy(&a));
      CHK(SRAbstractionDestroy(&b));
      CHK(SRAbstractionDestroy(&c));
      teardown(&s);
    }
}

/* -target certified: T = C is held as a view of the index boxes (no expanded copy).  Each of
   its lists is C(k); the loss and the hard metric on the view equal those on an explicit copy,
   bit for bit; a copy of the view is explicit; pruning keeps T = C. */
static void test_certified_targets_view(void **state)
{
  (void)state;
  for (int sy = 0; sy < 3; sy++) {
    Setup                  s;
    SRAbstraction          a;
    const SRSuccessorList *C, *T;
    SRSuccessorList        Tx = {0};
    SRLossParams           par = {0.05, 0.0, 0.0, SR_ASSIGN_HARD, 1};
    SRLossValues           v1, v2, h1, h2;
    const PetscInt         N = 200;
    double                 X[600], Y[600], g1[600], g2[600];
    PetscInt              *scr = NULL, scap = 0;
    int                    ok = 1;

    setup(&s, sysnames[sy], counts[sy], 0, 0.3);
    make_abs(PETSC_COMM_WORLD, SR_TARGET_CERTIFIED, &a);
    CHK(SRAbstractionBuild(a, s.model, s.cells));
    CHK(SRAbstractionGetCertified(a, &C));
    CHK(SRAbstractionGetTargets(a, &T));
    ok = T->rows != NULL && T->ptr == NULL;
    for (PetscInt k = 0; k < s.cells->K && ok; k++) {
      PetscInt        nt;
      const PetscInt *Tk;
      CHK(SRSuccessorListGet(T, k, &scr, &scap, &nt, &Tk));
      ok = nt == C->ptr[k + 1] - C->ptr[k] && nt == SRSuccessorListLength(T, k) && !memcmp(Tk, C->idx + C->ptr[k], sizeof(PetscInt) * nt);
    }
    CHK(PetscFree(scr));
    CHK(SRSuccessorListCopy(T, &Tx));
    ok = ok && Tx.rows == NULL && lists_equal(C, &Tx);
    for (PetscInt i = 0; i < N * s.cells->n; i++) X[i] = SRRandomRange(11, SR_STREAM_TEST, i, s.cells->dlo[i % s.cells->n], s.cells->dhi[i % s.cells->n]);
    CHK(SRModelEvaluate(s.model, N, X, Y));
    CHK(SRLossSim(s.cells, T, &par, N, X, Y, &v1, g1, NULL));
    CHK(SRLossSim(s.cells, &Tx, &par, N, X, Y, &v2, g2, NULL));
    CHK(SRLossHard(s.cells, T, &par, N, X, Y, &h1));
    CHK(SRLossHard(s.cells, &Tx, &par, N, X, Y, &h2));
    ok = ok && v1.Lsim == v2.Lsim && h1.H == h2.H && h1.coverage == h2.coverage && !memcmp(g1, g2, sizeof(double) * N * s.cells->n);
    for (PetscInt p = 0; p < s.model->mlp->nparams; p++) s.model->mlp->params[p] *= 0.5;
    CHK(SRAbstractionPrune(a, s.model, s.cells));
    CHK(SRAbstractionGetCertified(a, &C));
    CHK(SRAbstractionGetTargets(a, &T));
    CHK(SRSuccessorListDestroy(&Tx));
    CHK(SRSuccessorListCopy(T, &Tx));
    ok = ok && T->rows != NULL && lists_equal(C, &Tx);
    all_true(ok);
    CHK(SRSuccessorListDestroy(&Tx));
    CHK(SRAbstractionDestroy(&a));
    teardown(&s);
  }
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_lists_match_brute_force),          cmocka_unit_test(test_metrics_identical_and_correct), cmocka_unit_test(test_pruning_shrinks_and_stays_contained),
    cmocka_unit_test(test_planted_violation_found_by_check), cmocka_unit_test(test_nonfinite_model),               cmocka_unit_test(test_options_checked),
    cmocka_unit_test(test_index_box_storage),
    cmocka_unit_test(test_certified_targets_view),
  };
  int fails;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  fails = cmocka_run_group_tests_name("abstraction", tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
