/* Partition cells (SPEC §4, -cells_param partition) and their TAO solve (SPEC §8).

   - geometry: faces shared exactly, lookup and index ranges against brute force, the trust
     region keeps the order and 2 w_min, on irregular partitions of the 3-D dubins domain;
   - the gradient of the theta objective w.r.t. the boundaries against central differences
     (L_sim, and the enclosure terms: the volume term and L_encl);
   - soundness after TAO moves: a guarded run whose partition moved; every cell (dealt to the
     ranks) is sampled densely (a grid including the exact faces, plus random points) and
     attacked (projected sign-gradient ascent on each f_d, both signs); an image outside the
     union of C(k) in double, or within 1e-9 of a union face, is re-evaluated in MPFR (200
     bits) and counts as a violation only if the real image is outside;
   - a planted violation: a boundary moved without the guard is caught by the containment test;
   - the same run on one rank and on all ranks gives the same boundaries and table.
   Runs on 1, 2 and 4 ranks; verdicts are reduced over PETSC_COMM_WORLD. */
#include <simreach.h>
#include <mpfr.h>
#include <math.h>
#include <string.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#define CHK(call) assert_int_equal((int)(call), 0)
#define PREC      200

#include "mpfr_oracle.h"


static void AssertAll(int ok)
{
  int all = ok;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD);
  assert_true(all);
}

static PetscErrorCode MakeRun(MPI_Comm comm, const char opts[], SRRun *run)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(SRRunCreate(comm, run));
  PetscCall(SRRunSetFromOptions(*run));
  PetscCall(SRRunSetUp(*run));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double U01(uint64_t *ctr) { return SRRandomUniform(7, SR_STREAM_TEST, (*ctr)++); }

/* Irregular boundaries: a few random points of successive trust regions. */
static void Shake(SRCells cells, double wmin, int rounds, uint64_t *ctr)
{
  const PetscInt nt = SRCellsPartitionNumTheta(cells);
  double         lb[64], ub[64], th[64];
  for (int r = 0; r < rounds; r++) {
    SRCellsPartitionTrustRegion(cells, wmin, lb, ub);
    for (PetscInt t = 0; t < nt; t++) th[t] = lb[t] + U01(ctr) * (ub[t] - lb[t]);
    CHK(SRCellsPartitionSetTheta(cells, th));
  }
}

/* A coordinate: uniform in [lo - 10 %, hi + 10 %] of D, or (one time in three) a boundary exactly. */
static double Coord(SRCells cells, PetscInt d, uint64_t *ctr)
{
  PetscInt      m;
  const double *b = SRCellsPartitionBoundaries(cells, d, &m);
  if (U01(ctr) < 1.0 / 3.0) return b[(PetscInt)(U01(ctr) * (m + 1)) % (m + 1)];
  return cells->dlo[d] - 0.1 * (cells->dhi[d] - cells->dlo[d]) + 1.2 * (cells->dhi[d] - cells->dlo[d]) * U01(ctr);
}

static void test_geometry(void **state)
{
  SRSystem       sys;
  SRCells        cells;
  const PetscInt counts[3] = {5, 3, 4};
  const double   wmin      = 1e-3;
  uint64_t       ctr       = 0;
  int            ok        = 1;

  CHK(SRSystemCreate(PETSC_COMM_SELF, "dubins", NULL, &sys));
  CHK(SRCellsCreatePartition(sys, counts, &cells));
  cells->p = SR_NORM_2;
  Shake(cells, wmin, 6, &ctr);
  const PetscInt n = cells->n, K = cells->K;
  /* the trust region keeps the order and every interval >= 2 wmin */
  for (PetscInt d = 0; d < n; d++) {
    PetscInt      m;
    const double *b = SRCellsPartitionBoundaries(cells, d, &m);
    ok              = ok && b[0] == sys->dlo[d] && b[m] == sys->dhi[d];
    for (PetscInt i = 0; i < m; i++) ok = ok && b[i + 1] - b[i] >= 2 * wmin * (1 - 1e-12);
  }
  /* faces: outer = inner, neighbours share one double */
  for (PetscInt k = 0; k < K; k++) {
    double lo[3], hi[3], ilo[3], ihi[3];
    PetscInt idx[3];
    SRCellsBoxOuter(cells, k, lo, hi);
    SRCellsBoxInner(cells, k, ilo, ihi);
    SRCellsIndex(cells, k, idx);
    for (PetscInt d = 0, s = 1; d < n; s *= counts[d], d++) {
      ok = ok && lo[d] == ilo[d] && hi[d] == ihi[d] && lo[d] < hi[d];
      if (idx[d] + 1 < counts[d]) {
        double nlo[3], nhi[3];
        SRCellsBoxOuter(cells, k + s, nlo, nhi);
        ok = ok && nlo[d] == hi[d];
      }
    }
  }
  /* lookup and ranges against brute force */
  for (int trial = 0; trial < 4000; trial++) {
    double   x[3], best = INFINITY;
    PetscInt kb = -1;
    for (PetscInt d = 0; d < n; d++) x[d] = Coord(cells, d, &ctr);
    int inD = 1;
    for (PetscInt d = 0; d < n; d++) inD = inD && x[d] >= sys->dlo[d] && x[d] <= sys->dhi[d];
    for (PetscInt k = 0; k < K; k++) {
      const double dk = SRCellsDistance(cells, x, k, NULL, NULL, NULL);
      if (dk < best) {
        best = dk;
        kb   = k;
      }
    }
    if (inD) ok = ok && best == 0.0 && SRCellsAssign(cells, x) == kb;
    for (PetscInt d = 0; d < n; d++) {
      PetscInt      m, a, z, ba = 1, bz = 0;
      const double *b  = SRCellsPartitionBoundaries(cells, d, &m);
      double        lo = Coord(cells, d, &ctr), hi = Coord(cells, d, &ctr);
      if (lo > hi) {
        const double t = lo;
        lo             = hi;
        hi             = t;
      }
      SRCellsPartitionRange(cells, d, lo, hi, &a, &z);
      for (PetscInt i = 0; i < m; i++)
        if (b[i] <= hi && b[i + 1] >= lo) {
          if (ba > bz) ba = i;
          bz = i;
        }
      ok = ok && ((a > z && ba > bz) || (a == ba && z == bz));
    }
  }
  CHK(SRCellsDestroy(&cells));
  CHK(SRSystemDestroy(&sys));
  AssertAll(ok);
}

/* SPEC §8: d/dtheta of L_sim (frozen assignment, d(x, hat x) = 0) by the chain rule from the
   cell faces, against central differences of the objective itself. */
static void test_gradient_fd(void **state)
{
  SRRun                  run;
  SRModel                model;
  SRCells                cells, work;
  SRAbstraction          abs;
  const SRSuccessorList *T;
  const PetscInt         N = 256;
  SRLossParams           par = {0.05, 0.05, 0.1, SR_ASSIGN_HARD, 4};
  double                 X[2 * 256], Y[2 * 256], dcw[2 * 2 * 64], g[64], th[64], thp[64];
  PetscInt               hat[256];
  uint64_t               ctr = 100;
  int                    ok = 1, checked = 0;
  double                 worst = 0;

  CHK(MakeRun(PETSC_COMM_WORLD, "-sys pendulum -model controller -cells 6,5 -mlp_widths 8,8 -pretrain_epochs 5 -samples 128 -quiet -seed 2", &run));
  CHK(SRRunGetObjects(run, &model, &cells, &abs));
  CHK(SRAbstractionGetTargets(abs, &T));
  CHK(SRCellsDuplicate(cells, &work));
  work->p = SR_NORM_2;
  Shake(work, 1e-3, 2, &ctr);
  for (PetscInt i = 0; i < N; i++)
    for (PetscInt d = 0; d < 2; d++) X[2 * i + d] = cells->dlo[d] + (cells->dhi[d] - cells->dlo[d]) * U01(&ctr);
  CHK(SRModelEvaluate(model, N, X, Y));
  for (PetscInt i = 0; i < N; i++) hat[i] = SRCellsAssign(work, X + 2 * i);
  const PetscInt nt = SRCellsPartitionNumTheta(work);
  SRLossValues   v, vp, vm;
  CHK(SRLossSimFrozen(work, T, &par, N, X, Y, hat, &v, dcw));
  SRCellsPartitionThetaGradient(work, dcw, g);
  SRCellsPartitionGetTheta(work, th);
  for (PetscInt t = 0; t < nt; t++) {
    const double h = 1e-6;
    for (PetscInt q = 0; q < nt; q++) thp[q] = th[q];
    thp[t] = th[t] + h;
    CHK(SRCellsPartitionSetTheta(work, thp));
    CHK(SRLossSimFrozen(work, T, &par, N, X, Y, hat, &vp, NULL));
    thp[t] = th[t] - h;
    CHK(SRCellsPartitionSetTheta(work, thp));
    CHK(SRLossSimFrozen(work, T, &par, N, X, Y, hat, &vm, NULL));
    const double fd = (vp.Lsim - vm.Lsim) / (2 * h), err = fabs(fd - g[t]);
    worst = PetscMax(worst, err / PetscMax(1e-3, fabs(fd)));
    if (!(err <= 1e-5 + 1e-4 * fabs(fd))) {
      ok = 0;
      print_message("boundary %d: gradient %.10g, central difference %.10g\n", (int)t, g[t], fd);
    }
    if (fd != 0.0) checked++;
  }
  CHK(SRCellsPartitionSetTheta(work, th));
  print_message("theta gradient: %d boundaries, %d with a nonzero derivative, worst relative error %.2e\n", (int)nt, checked, worst);
  ok = ok && checked > 0;
  CHK(SRCellsDestroy(&work));
  CHK(SRRunDestroy(&run));
  AssertAll(ok);
}

/* The union of C(k) of a partition cell: the index box of its cells (lo, hi) and the sink flag. */
static void UnionBox(SRCells cells, const SRSuccessorList *C, PetscInt k, double *lo, double *hi, PetscBool *sink, PetscBool *any)
{
  const PetscInt n = cells->n, K = cells->K;
  *sink = PETSC_FALSE;
  *any  = PETSC_FALSE;
  for (PetscInt d = 0; d < n; d++) {
    lo[d] = INFINITY;
    hi[d] = -INFINITY;
  }
  for (PetscInt q = C->ptr[k]; q < C->ptr[k + 1]; q++) {
    double blo[3], bhi[3];
    if (C->idx[q] == K) {
      *sink = PETSC_TRUE;
      continue;
    }
    *any = PETSC_TRUE;
    SRCellsBoxOuter(cells, C->idx[q], blo, bhi);
    for (PetscInt d = 0; d < n; d++) {
      lo[d] = PetscMin(lo[d], blo[d]);
      hi[d] = PetscMax(hi[d], bhi[d]);
    }
  }
}

/* 1: the image y (double) is covered; 0: not; near: within 1e-9 of a union face. */
static int Covered(SRCells cells, const double *lo, const double *hi, PetscBool sink, PetscBool any, const double *y, int *near)
{
  const PetscInt n = cells->n;
  int            in = any, inD = 1;
  *near              = 0;
  for (PetscInt d = 0; d < n; d++) {
    if (!(y[d] >= lo[d] && y[d] <= hi[d])) in = 0;
    if (!(y[d] >= cells->dlo[d] && y[d] <= cells->dhi[d])) inD = 0;
    if (fabs(y[d] - lo[d]) < 1e-9 || fabs(y[d] - hi[d]) < 1e-9) *near = 1;
  }
  return in || (sink && !inD);
}

/* The real image (MPFR) covered? */
static int OracleCovered(Oracle *o, SRModel model, SRCells cells, const double *lo, const double *hi, PetscBool sink, PetscBool any, const double *x)
{
  const PetscInt n = cells->n;
  int            in = any, inD = 1;
  OracleEval(o, model, x);
  for (PetscInt d = 0; d < n; d++) {
    if (mpfr_cmp_d(o->b[d], lo[d]) < 0 || mpfr_cmp_d(o->b[d], hi[d]) > 0) in = 0;
    if (mpfr_cmp_d(o->b[d], cells->dlo[d]) < 0 || mpfr_cmp_d(o->b[d], cells->dhi[d]) > 0) inD = 0;
  }
  return in || (sink && !inD);
}

typedef struct {
  long long points, mpfr, violations;
} Tally;

static void CheckPoint(Oracle *o, SRModel model, SRCells cells, const double *lo, const double *hi, PetscBool sink, PetscBool any, const double *x, int force, Tally *t)
{
  double y[3];
  int    near;
  CHK(SRModelEvaluate(model, 1, x, y));
  t->points++;
  if (!Covered(cells, lo, hi, sink, any, y, &near) || near || force) {
    t->mpfr++;
    if (!OracleCovered(o, model, cells, lo, hi, sink, any, x)) {
      t->violations++;
      if (t->violations <= 3) print_message("VIOLATION at %.17g %.17g %.17g\n", x[0], cells->n > 1 ? x[1] : 0.0, cells->n > 2 ? x[2] : 0.0);
    }
  }
}

/* Dense grid (faces included exactly) + random points + an attack on each f_d, both signs. */
static void CheckCell(Oracle *o, SRModel model, SRCells cells, const SRSuccessorList *C, PetscInt k, Tally *t, uint64_t *ctr)
{
  const PetscInt n = cells->n, G = n == 1 ? 257 : (n == 2 ? 17 : 7);
  double         clo[3], chi[3], ulo[3], uhi[3], x[3];
  PetscBool      sink, any;
  PetscInt       tot = 1;

  SRCellsBoxOuter(cells, k, clo, chi);
  UnionBox(cells, C, k, ulo, uhi, &sink, &any);
  for (PetscInt d = 0; d < n; d++) tot *= G;
  for (PetscInt p = 0; p < tot; p++) {
    for (PetscInt d = 0, q = p; d < n; d++, q /= G) {
      const PetscInt i = q % G;
      x[d]             = i == 0 ? clo[d] : (i == G - 1 ? chi[d] : clo[d] + (chi[d] - clo[d]) * (double)i / (double)(G - 1));
    }
    CheckPoint(o, model, cells, ulo, uhi, sink, any, x, 0, t);
  }
  for (PetscInt p = 0; p < 64; p++) {
    for (PetscInt d = 0; d < n; d++) x[d] = PetscMin(chi[d], clo[d] + (chi[d] - clo[d]) * U01(ctr));
    CheckPoint(o, model, cells, ulo, uhi, sink, any, x, 0, t);
  }
  for (PetscInt dd = 0; dd < n; dd++)
    for (int s = -1; s <= 1; s += 2) {
      double step[3], y[3], best;
      for (PetscInt d = 0; d < n; d++) {
        x[d]    = 0.5 * clo[d] + 0.5 * chi[d];
        step[d] = 0.25 * (chi[d] - clo[d]);
      }
      CHK(SRModelEvaluate(model, 1, x, y));
      best = s * y[dd];
      for (int it = 0; it < 40; it++) {
        double g[3], xt[3];
        for (PetscInt i = 0; i < n; i++) {
          double xp[3], yp[3], del = 1e-4 * (chi[i] - clo[i]);
          for (PetscInt j = 0; j < n; j++) xp[j] = x[j];
          if (xp[i] + del > chi[i]) del = -del;
          xp[i] += del;
          CHK(SRModelEvaluate(model, 1, xp, yp));
          g[i] = (s * yp[dd] - best) / del;
        }
        for (PetscInt j = 0; j < n; j++) xt[j] = PetscMin(chi[j], PetscMax(clo[j], x[j] + (g[j] > 0 ? step[j] : (g[j] < 0 ? -step[j] : 0.0))));
        CHK(SRModelEvaluate(model, 1, xt, y));
        if (s * y[dd] > best) {
          best = s * y[dd];
          for (PetscInt j = 0; j < n; j++) x[j] = xt[j];
        } else
          for (PetscInt j = 0; j < n; j++) step[j] *= 0.5;
      }
      CheckPoint(o, model, cells, ulo, uhi, sink, any, x, 1, t); /* the attacked extreme: always in MPFR */
    }
}

static int Moved(SRCells cells)
{
  int moved = 0;
  for (PetscInt d = 0; d < cells->n; d++) {
    PetscInt      m;
    const double *b = SRCellsPartitionBoundaries(cells, d, &m);
    for (PetscInt i = 1; i < m; i++)
      if (b[i] != cells->dlo[d] + (double)i * ((cells->dhi[d] - cells->dlo[d]) / (double)m)) moved = 1;
  }
  return moved;
}

static void SoundAfterMoves(const char opts[])
{
  SRRun                  run, rs;
  SRModel                model;
  SRCells                cells, cs;
  SRAbstraction          abs;
  const SRSuccessorList *C;
  const SRCheckpoint    *tab, *tabs;
  PetscInt               nrow, nrows, nfail, first;
  PetscMPIInt            rank, size;
  MPI_Comm               self;
  Oracle                 o;
  Tally                  t   = {0, 0, 0};
  uint64_t               ctr = 500;
  double                 w[3];
  int                    ok;

  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  CHK(MakeRun(PETSC_COMM_WORLD, opts, &run));
  CHK(SRRunSolve(run));
  CHK(SRRunGetObjects(run, &model, &cells, &abs));
  CHK(SRRunGetCheckpoints(run, &nrow, &tab));
  CHK(SRAbstractionGetCertified(abs, &C));
  ok = nrow > 0 && tab[nrow - 1].theta_accepted > 0 && Moved(cells) && cells->partition;
  print_message("%s: theta accepted %d rejected %d backtracked %d moves %d; partition moved: %d\n", opts, (int)tab[nrow - 1].theta_accepted, (int)tab[nrow - 1].theta_rejected, (int)tab[nrow - 1].theta_backtracked, (int)tab[nrow - 1].theta_moves, Moved(cells));
  /* the guard's own test on the final partition */
  CHK(SRAbstractionCheck(abs, model, cells, SR_ENCLOSURE_INTERVAL, &nfail, &first, w));
  ok = ok && nfail == 0;
  OracleCreate(65, &o);
  for (PetscInt k = 0; k < cells->K; k++)
    if (k % size == rank) CheckCell(&o, model, cells, C, k, &t, &ctr);
  OracleDestroy(&o);
  long long loc[3] = {t.points, t.mpfr, t.violations}, tot[3];
  MPI_Allreduce(loc, tot, 3, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD);
  print_message("  %lld points (dense, random, attacked), %lld re-evaluated in MPFR, %lld violations\n", tot[0], tot[1], tot[2]);
  ok = ok && tot[2] == 0;
  /* the same run on one rank: the same boundaries and table, bit for bit */
  MPI_Comm_split(PETSC_COMM_WORLD, rank, 0, &self);
  CHK(MakeRun(self, opts, &rs));
  CHK(SRRunSolve(rs));
  CHK(SRRunGetObjects(rs, NULL, &cs, NULL));
  CHK(SRRunGetCheckpoints(rs, &nrows, &tabs));
  ok = ok && nrows == nrow && !memcmp(cs->bnd, cells->bnd, sizeof(double) * cells->boff[cells->n]);
  for (PetscInt i = 0; ok && i < nrow; i++) {
    SRCheckpoint a = tab[i], b = tabs[i];
    a.wall = b.wall = 0;
    ok              = !memcmp(&a, &b, sizeof(a));
  }
  CHK(SRRunDestroy(&rs));
  MPI_Comm_free(&self);
  CHK(SRRunDestroy(&run));
  AssertAll(ok);
}

static void test_sound_pendulum(void **state) { SoundAfterMoves("-sys pendulum -model controller -cells 6,6 -mlp_widths 8,8 -pretrain_epochs 20 -succ_margin 0.5 -guard backtrack -guard_halvings 8 -beta 0.5 -volume_weight 0.05 -epochs 8 -checkpoints 4 -samples 256 -heldout 128 -target_samples 8 -lr 1e-2 -tao_max_it 3 -quiet -seed 1"); }
static void test_sound_toy1d(void **state) { SoundAfterMoves("-sys toy1d -model dynamics -cells 16 -mlp_widths 8,8 -pretrain_epochs 20 -succ_margin 0.5 -guard project -loss sim+encl -volume_weight 0.05 -beta 0.5 -epochs 8 -checkpoints 4 -samples 256 -heldout 128 -target_samples 8 -lr 1e-2 -tao_max_it 3 -quiet -seed 2"); }
static void test_sound_dubins(void **state) { SoundAfterMoves("-sys dubins -model controller -cells 4,3,3 -mlp_widths 8,8 -pretrain_epochs 20 -succ_margin 0.5 -guard backtrack -guard_halvings 8 -beta 0.5 -volume_weight 0.05 -epochs 6 -checkpoints 3 -samples 256 -heldout 128 -target_samples 8 -lr 1e-2 -tao_max_it 3 -quiet -seed 3"); }

/* A boundary moved without the guard: the lower outer face of a cell's union pushed past the
   bottom of its E_k (staying below the next boundary) must make the containment test fail. */
static void test_planted_boundary(void **state)
{
  SRRun                  run;
  SRModel                model;
  SRCells                cells, moved;
  SRAbstraction          abs;
  const SRSuccessorList *C;
  double                 E[4], w[2], th[64];
  SRCellStatus           st;
  PetscInt               nfail = 0, first = -1, planted = -1;
  int                    ok = 1;

  CHK(MakeRun(PETSC_COMM_WORLD, "-sys pendulum -model controller -cells 6,6 -mlp_widths 8,8 -pretrain_epochs 20 -succ_margin 0 -guard backtrack -beta 0.5 -epochs 4 -checkpoints 2 -samples 256 -heldout 128 -target_samples 8 -lr 1e-2 -tao_max_it 3 -quiet -seed 1", &run));
  CHK(SRRunSolve(run));
  CHK(SRRunGetObjects(run, &model, &cells, &abs));
  CHK(SRAbstractionGetCertified(abs, &C));
  CHK(SRCellsDuplicate(cells, &moved));
  SRCellsPartitionGetTheta(cells, th);
  for (PetscInt k = 0; k < cells->K && planted < 0; k++) {
    double   ulo[2], uhi[2];
    PetscBool sink, any;
    UnionBox(cells, C, k, ulo, uhi, &sink, &any);
    if (sink || !any) continue;
    CHK(SREnclosureCompute(model, SR_ENCLOSURE_INTERVAL, cells, k, k + 1, E, &st));
    PetscInt      m;
    const double *b = SRCellsPartitionBoundaries(cells, 0, &m);
    for (PetscInt i = 1; i < m; i++)
      if (b[i] == ulo[0] && E[0] < b[i + 1]) {
        /* boundary i of dimension 0 (theta index i - 1) to between E.lo and b_{i+1} */
        th[i - 1] = PetscMax(E[0], b[i]) + 0.5 * (b[i + 1] - PetscMax(E[0], b[i]));
        planted   = k;
        break;
      }
  }
  ok = planted >= 0;
  if (ok) {
    CHK(SRCellsPartitionSetTheta(moved, th));
    CHK(SRAbstractionCheck(abs, model, moved, SR_ENCLOSURE_INTERVAL, &nfail, &first, w));
    print_message("planted: a boundary of the union of C(%d) moved without the guard: %d cells fail, first %d\n", (int)planted, (int)nfail, (int)first);
    ok = nfail > 0;
    /* and the accepted partition passes */
    CHK(SRAbstractionCheck(abs, model, cells, SR_ENCLOSURE_INTERVAL, &nfail, &first, w));
    ok = ok && nfail == 0;
  }
  CHK(SRCellsDestroy(&moved));
  CHK(SRRunDestroy(&run));
  AssertAll(ok);
}

/* SPEC §8: the enclosure terms of the theta objective (the volume term V and L_encl, lossencl.h)
   mapped to the boundaries, against central differences of the same functions, in controller
   mode (pendulum: network by reverse mode, plant by inner differences) and dynamics mode (toy1d:
   exact reverse mode). */
static void EnclTermsFD(const char opts[], double tol, int *ok)
{
  SRRun                  run;
  SRModel                model;
  SRCells                cells, work;
  SRAbstraction          abs;
  const SRSuccessorList *T;
  double                 gcw[2 * 3 * 96], g[2][64], th[64], thp[64];
  uint64_t               ctr = 300;
  int                    checked[2] = {0, 0};
  double                 worst[2] = {0, 0};

  CHK(MakeRun(PETSC_COMM_WORLD, opts, &run));
  CHK(SRRunGetObjects(run, &model, &cells, &abs));
  CHK(SRAbstractionGetTargets(abs, &T));
  CHK(SRCellsDuplicate(cells, &work));
  work->p = SR_NORM_2;
  Shake(work, 1e-3, 2, &ctr);
  const PetscInt nt = SRCellsPartitionNumTheta(work);
  double         V, L;
  CHK(SREnclVolumeCells(model, work, &V, gcw));
  SRCellsPartitionThetaGradient(work, gcw, g[0]);
  CHK(SRLossEnclCells(model, work, T, 0.05, &L, gcw));
  SRCellsPartitionThetaGradient(work, gcw, g[1]);
  SRCellsPartitionGetTheta(work, th);
  for (PetscInt t = 0; t < nt; t++) {
    const double h = 1e-6;
    double       vp[2], vm[2];
    for (PetscInt q = 0; q < nt; q++) thp[q] = th[q];
    thp[t] = th[t] + h;
    CHK(SRCellsPartitionSetTheta(work, thp));
    CHK(SREnclVolumeCells(model, work, &vp[0], NULL));
    CHK(SRLossEnclCells(model, work, T, 0.05, &vp[1], NULL));
    thp[t] = th[t] - h;
    CHK(SRCellsPartitionSetTheta(work, thp));
    CHK(SREnclVolumeCells(model, work, &vm[0], NULL));
    CHK(SRLossEnclCells(model, work, T, 0.05, &vm[1], NULL));
    for (int q = 0; q < 2; q++) {
      const double fd = (vp[q] - vm[q]) / (2 * h), err = fabs(fd - g[q][t]);
      worst[q] = PetscMax(worst[q], err / PetscMax(1e-3, fabs(fd)));
      if (!(err <= tol * (1e-3 + fabs(fd)))) {
        *ok = 0;
        print_message("%s: boundary %d: gradient %.10g, central difference %.10g\n", q ? "L_encl" : "volume", (int)t, g[q][t], fd);
      }
      if (fd != 0.0) checked[q]++;
    }
  }
  print_message("enclosure terms (%s): %d boundaries; volume %d nonzero, worst relative error %.2e; L_encl %d nonzero, worst %.2e\n", opts, (int)nt, checked[0], worst[0], checked[1], worst[1]);
  *ok = *ok && checked[0] > 0 && checked[1] > 0;
  CHK(SRCellsDestroy(&work));
  CHK(SRRunDestroy(&run));
}

static void test_encl_terms_fd(void **state)
{
  int ok = 1;
  EnclTermsFD("-sys pendulum -model controller -control_steps 10 -cells 6,5 -mlp_widths 8,8 -pretrain_epochs 5 -samples 128 -quiet -seed 2 -succ_margin 0", 1e-4, &ok);
  EnclTermsFD("-sys toy1d -model dynamics -cells 12 -mlp_widths 8,8 -pretrain_epochs 5 -samples 128 -quiet -seed 3 -succ_margin 0", 1e-5, &ok);
  AssertAll(ok);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_geometry), cmocka_unit_test(test_gradient_fd), cmocka_unit_test(test_encl_terms_fd), cmocka_unit_test(test_sound_pendulum), cmocka_unit_test(test_sound_toy1d), cmocka_unit_test(test_sound_dubins), cmocka_unit_test(test_planted_boundary)};
  PetscMPIInt             rank;
  int                     fails;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank) cmocka_set_message_output(CM_OUTPUT_TAP);
  fails = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
