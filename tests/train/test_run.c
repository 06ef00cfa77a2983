/* Tests of the guarded training run (SPEC §8) on the pendulum with 16 cells.
   Runs on 1 and 2 ranks; every verdict is reduced over PETSC_COMM_WORLD.
   Oracles: an independent forward pass of f_phi written here (tanh MLP + the system's
   point step) with brute-force sampling inside every cell, the initial grid computed
   from D and the counts, a serial rerun on a one-rank communicator, and the
   uninterrupted run for the resumed one. */
#include <simreach.h>
#include <petsctao.h>
#include <math.h>
#include <string.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_run_common.h"

/* Small and fast: 16 cells, a 2-8-8 network, 128 samples. */
static const char base_opts[] = "-sys pendulum -cells 4,4 -mlp_widths 8,8 -samples 128 -heldout 128 -batch 32 "
                                "-target_samples 8 -falsify_samples 8 -epochs 4 -checkpoints 4 -quiet -seed 3";

static PetscErrorCode MakeRun(MPI_Comm comm, const char extra[], SRRun *run)
{
  PetscFunctionBeginUser;
  PetscCall(TestMakeRun(comm, base_opts, extra, run));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Brute force: number of cells k with a sampled f_phi(x), x in Psi_k, outside every box of C(k)
   (the sink standing for R^n \ D). */
static PetscInt EscapingCells(SRModel model, SRCells cells, const SRSuccessorList *C, PetscInt m)
{
  const PetscInt n = cells->n, K = cells->K;
  PetscInt       bad = 0;
  for (PetscInt k = 0; k < K; k++) {
    PetscBool esc = PETSC_FALSE;
    for (PetscInt s = 0; s < m && !esc; s++) {
      double x[SR_MAX_DIM], y[SR_MAX_DIM];
      for (PetscInt d = 0; d < n; d++) x[d] = cells->c[k * n + d] + cells->w[k * n + d] * (2 * SRRandomUniform(99, SR_STREAM_TEST, (uint64_t)((k * m + s) * n + d)) - 1);
      Forward(model, x, y);
      PetscBool cov = PETSC_FALSE;
      for (PetscInt q = C->ptr[k]; q < C->ptr[k + 1] && !cov; q++) {
        const PetscInt j  = C->idx[q];
        PetscBool      in = PETSC_TRUE;
        if (j == K) {
          in = PETSC_FALSE;
          for (PetscInt d = 0; d < n; d++)
            if (y[d] < cells->dlo[d] || y[d] > cells->dhi[d]) in = PETSC_TRUE;
        } else
          for (PetscInt d = 0; d < n; d++) {
            const double lo = nextafter(cells->c[j * n + d] - cells->w[j * n + d], -INFINITY), hi = nextafter(cells->c[j * n + d] + cells->w[j * n + d], INFINITY);
            if (!(y[d] >= lo && y[d] <= hi)) in = PETSC_FALSE;
          }
        cov = in;
      }
      if (!cov) esc = PETSC_TRUE;
    }
    if (esc) bad++;
  }
  return bad;
}

static int SameDouble(double a, double b) { return !memcmp(&a, &b, sizeof(double)); }

/* Bitwise equality of every reproducible field (all but wall). */
static int SameRow(const SRCheckpoint *a, const SRCheckpoint *b)
{
  return a->checkpoint == b->checkpoint && a->epoch == b->epoch && SameDouble(a->Lsim, b->Lsim) && SameDouble(a->H, b->H) && SameDouble(a->task, b->task) && SameDouble(a->pred_error, b->pred_error) && SameDouble(a->coverage, b->coverage) &&
         SameDouble(a->succ_certified, b->succ_certified) && SameDouble(a->succ_minimal, b->succ_minimal) && SameDouble(a->succ_empirical, b->succ_empirical) && SameDouble(a->vol_E, b->vol_E) && SameDouble(a->vol_union, b->vol_union) &&
         SameDouble(a->gap_min, b->gap_min) && SameDouble(a->taulogn, b->taulogn) && SameDouble(a->gap_max, b->gap_max) && SameDouble(a->taulogN, b->taulogN) && a->accepted == b->accepted && a->rejected == b->rejected &&
         a->backtracked == b->backtracked && a->recheck_failures == b->recheck_failures && a->falsified == b->falsified;
}

/* Guard on with -relist never (the shrink-only lists of SPEC §8): at least one update rejected, C(k) never grows, every re-check passes, and no
   sampled image escapes C(k).  The step size lr is one at which some phi steps break
   containment (the theta solve's guard-aware trust region leaves the guard little to reject). */
static void GuardRun(const char model[], const char lr[])
{
  SRRun                  run;
  SRModel                mdl;
  SRCells                cells;
  SRAbstraction          abs;
  SRAbstractionMetrics   m0;
  const SRCheckpoint    *t;
  const SRSuccessorList *C;
  PetscInt               n;
  SRRunStatus            st;
  char                   opts[256];
  int                    ok = 1;

  snprintf(opts, sizeof(opts), "-model %s -guard reject -relist never -lr %s -beta 0.5 -volume_weight 0.1", model, lr);
  CHK(MakeRun(PETSC_COMM_WORLD, opts, &run));
  CHK(SRRunGetObjects(run, &mdl, &cells, &abs));
  CHK(SRAbstractionGetMetrics(abs, mdl, cells, &m0));
  CHK(SRRunSolve(run));
  CHK(SRRunGetStatus(run, &st, NULL));
  CHK(SRRunGetCheckpoints(run, &n, &t));
  ok = ok && st == SR_RUN_DONE && n == 4;
  ok = ok && t[n - 1].rejected >= 1;
  double prev = m0.succ_certified;
  for (PetscInt i = 0; i < n; i++) {
    ok   = ok && t[i].succ_certified <= prev && t[i].recheck_failures == 0 && t[i].falsified == 0;
    prev = t[i].succ_certified;
  }
  CHK(SRAbstractionGetCertified(abs, &C));
  const PetscInt esc = EscapingCells(mdl, cells, C, 200);
  print_message("guard %s: status %d, %d checkpoints, rejected %d, escaping cells %d\n", model, (int)st, (int)n, n ? (int)t[n - 1].rejected : -1, (int)esc);
  ok = ok && esc == 0;
  CHK(SRRunDestroy(&run));
  AssertAll(ok);
}

static void test_guard_controller(void **state) { GuardRun("controller", "0.2"); }
static void test_guard_dynamics(void **state) { GuardRun("dynamics", "0.01"); }

/* -guard none: the stale lists of the previous checkpoint are re-checked before the rebuild;
   every cell the brute-force sampler sees escaping must be among the reported failures, and
   the rebuilt lists hold. */
typedef struct {
  SRSuccessorList prev;
  int             ok;
  PetscInt        reported;
} NoneCtx;

static PetscErrorCode NoneMonitor(SRRun run, const SRCheckpoint *row, void *ctx)
{
  NoneCtx               *c = (NoneCtx *)ctx;
  SRModel                mdl;
  SRCells                cells;
  SRAbstraction          abs;
  const SRSuccessorList *C;

  PetscFunctionBeginUser;
  PetscCall(SRRunGetObjects(run, &mdl, &cells, &abs));
  const PetscInt stale = EscapingCells(mdl, cells, &c->prev, 100);
  if (stale > row->recheck_failures) c->ok = 0;
  c->reported += row->recheck_failures;
  PetscCall(SRAbstractionGetCertified(abs, &C));
  if (EscapingCells(mdl, cells, C, 100) != 0) c->ok = 0;
  PetscCall(SRSuccessorListDestroy(&c->prev));
  PetscCall(SRSuccessorListCopy(C, &c->prev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void test_guard_none(void **state)
{
  SRRun                  run;
  SRModel                mdl;
  SRCells                cells;
  SRAbstraction          abs;
  const SRSuccessorList *C;
  const SRCheckpoint    *t;
  PetscInt               n;
  SRRunStatus            st;
  NoneCtx                ctx;

  memset(&ctx, 0, sizeof(ctx));
  ctx.ok = 1;
  CHK(MakeRun(PETSC_COMM_WORLD, "-model dynamics -guard none -lr 0.05 -beta 0.5", &run));
  CHK(SRRunGetObjects(run, &mdl, &cells, &abs));
  CHK(SRAbstractionGetCertified(abs, &C));
  CHK(SRSuccessorListCopy(C, &ctx.prev));
  CHK(SRRunSetMonitor(run, NoneMonitor, &ctx));
  CHK(SRRunSolve(run));
  CHK(SRRunGetStatus(run, &st, NULL));
  CHK(SRRunGetCheckpoints(run, &n, &t));
  print_message("guard none: %d stale-list failures reported over %d checkpoints\n", (int)ctx.reported, (int)n);
  int ok = ctx.ok && st == SR_RUN_DONE && n == 4 && t[n - 1].rejected == 0 && t[n - 1].accepted > 0;
  CHK(SRSuccessorListDestroy(&ctx.prev));
  CHK(SRRunDestroy(&run));
  AssertAll(ok);
}

/* -guard none with a volume term: the unguarded TAO solve shrinks the cells until they no longer
   cover D, so some E_k fall into gaps and meet no cell.  The checkpoint rebuild must give such a
   cell the sink-only list and report it failing, not stop the run. */
static void test_guard_none_gaps(void **state)
{
  SRRun               run;
  const SRCheckpoint *t;
  PetscInt            n, fails = 0;
  SRRunStatus         st;

  CHK(MakeRun(PETSC_COMM_WORLD, "-model controller -cells_param boxes -cell_solve on -guard none -beta 0.5 -volume_weight 0.5 -w_min 0.01 -tao_max_it 20", &run));
  CHK(SRRunSolve(run));
  CHK(SRRunGetStatus(run, &st, NULL));
  CHK(SRRunGetCheckpoints(run, &n, &t));
  for (PetscInt i = 0; i < n; i++) fails += t[i].recheck_failures;
  print_message("guard none with shrinking cells: %d failing cells reported over %d checkpoints\n", (int)fails, (int)n);
  int ok = st == SR_RUN_DONE && n == 4 && fails > 0;
  CHK(SRRunDestroy(&run));
  AssertAll(ok);
}

/* -cells_param boxes: TAO moves theta away from the initial grid and respects c in D,
   w in [w_min, w_max].  (Under a guard almost every move of free boxes is rejected: any shrink
   or shift opens a gap in the union of C(k); -guard none shows the solve itself.) */
static void test_tao_moves_cells(void **state)
{
  SRRun    run;
  SRModel  mdl;
  SRCells  cells;
  SRAbstraction abs;
  PetscInt reason;
  int      ok = 1, moved = 0;
  const double wmin = 0.05, wmax = 0.6;

  CHK(MakeRun(PETSC_COMM_WORLD, "-model controller -cells_param boxes -cell_solve on -guard none -beta 0.5 -volume_weight 0.2 -w_min 0.05 -w_max 0.6 -tao_max_it 5", &run));
  CHK(SRRunSolve(run));
  CHK(SRRunGetObjects(run, &mdl, &cells, &abs));
  CHK(SRRunGetTaoReason(run, &reason, NULL));
  ok = ok && reason != 0;
  /* initial grid from D = [-1, 1] x [-2, 2] and the counts 4, 4 */
  const double dlo[2] = {-1, -2}, dhi[2] = {1, 2};
  for (PetscInt k = 0; k < 16; k++)
    for (PetscInt d = 0; d < 2; d++) {
      const PetscInt i  = d == 0 ? k % 4 : k / 4;
      const double   h  = (dhi[d] - dlo[d]) / 4;
      const double   c0 = dlo[d] + (i + 0.5) * h, w0 = 0.5 * h;
      const double   c = cells->c[k * 2 + d], w = cells->w[k * 2 + d];
      if (fabs(c - c0) > 1e-9 || fabs(w - w0) > 1e-9) moved = 1;
      ok = ok && c >= dlo[d] && c <= dhi[d] && w >= wmin && w <= wmax;
    }
  ok = ok && moved && !cells->grid_aligned;
  CHK(SRRunDestroy(&run));
  AssertAll(ok);
}

/* -relist checkpoint (the default, SPEC §8): at every checkpoint the stored C(k) equals a fresh
   build from the current network and cells (an abstraction made here), the row's relist_grown
   counts the cells whose list gained an entry against the lists the guard held during the
   interval (those of the previous checkpoint), every re-check passes and no sampled image
   escapes.  Over the run some list grows (the lists are not shrink-only any more). */
typedef struct {
  SRSuccessorList prev;
  int             ok, have;
  PetscInt        grown;
} RelistCtx;

static PetscErrorCode RelistMonitor(SRRun run, const SRCheckpoint *row, void *ctx)
{
  RelistCtx             *c = (RelistCtx *)ctx;
  SRModel                mdl;
  SRCells                cells;
  SRAbstraction          abs, fresh;
  const SRSuccessorList *C, *F;
  PetscInt               grown = 0;

  PetscFunctionBeginUser;
  PetscCall(SRRunGetObjects(run, &mdl, &cells, &abs));
  PetscCall(SRAbstractionGetCertified(abs, &C));
  PetscCall(SRAbstractionCreate(PETSC_COMM_WORLD, &fresh));
  PetscCall(SRAbstractionSetEnclosureType(fresh, SR_ENCLOSURE_INTERVAL));
  PetscCall(SRAbstractionSetMargin(fresh, 0.5));
  PetscCall(SRAbstractionBuild(fresh, mdl, cells));
  PetscCall(SRAbstractionGetCertified(fresh, &F));
  c->ok = c->ok && C->ptr[C->K] == F->ptr[F->K] && !memcmp(C->ptr, F->ptr, sizeof(PetscInt) * (C->K + 1)) && !memcmp(C->idx, F->idx, sizeof(PetscInt) * C->ptr[C->K]);
  if (c->have)
    for (PetscInt k = 0; k < C->K; k++) {
      PetscBool g = PETSC_FALSE;
      for (PetscInt q = C->ptr[k]; q < C->ptr[k + 1] && !g; q++) {
        PetscBool found = PETSC_FALSE;
        for (PetscInt t = c->prev.ptr[k]; t < c->prev.ptr[k + 1]; t++) found = found || c->prev.idx[t] == C->idx[q];
        g = (PetscBool)!found;
      }
      if (g) grown++;
    }
  c->ok = c->ok && (!c->have || grown == row->relist_grown) && row->recheck_failures == 0 && row->falsified == 0 && EscapingCells(mdl, cells, C, 200) == 0;
  c->grown += row->relist_grown;
  PetscCall(SRSuccessorListCopy(C, &c->prev));
  c->have = 1;
  PetscCall(SRAbstractionDestroy(&fresh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void test_relist_checkpoint(void **state)
{
  SRRun     run;
  RelistCtx ctx = {{0}, 1, 0, 0};
  SRModel   mdl;
  SRCells   cells;
  SRAbstraction abs;
  const SRSuccessorList *C0;

  CHK(MakeRun(PETSC_COMM_WORLD, "-model controller -control_steps 5 -guard backtrack -guard_halvings 4 -succ_margin 0.5 -lr 0.05 -beta 0.5 -epochs 8 -checkpoints 8", &run));
  CHK(SRRunGetObjects(run, &mdl, &cells, &abs));
  CHK(SRAbstractionGetCertified(abs, &C0)); /* the lists built at set-up: what the first interval's guard holds */
  CHK(SRSuccessorListCopy(C0, &ctx.prev));
  ctx.have = 1;
  CHK(SRRunSetMonitor(run, RelistMonitor, &ctx));
  CHK(SRRunSolve(run));
  print_message("relist checkpoint: C(k) grew in %d cells over the run; checks %s\n", (int)ctx.grown, ctx.ok ? "pass" : "FAIL");
  AssertAll(ctx.ok && ctx.grown > 0);
  CHK(SRSuccessorListDestroy(&ctx.prev));
  CHK(SRRunDestroy(&run));
}

/* -succ_margin: C(k) built from E_k grown by a margin is a superset of the literal lists, the
   guard accepts at least as many steps, the lists never grow, and nothing escapes them. */
static void test_succ_margin(void **state)
{
  SRRun                  r0, r1;
  SRModel                mdl;
  SRCells                cells;
  SRAbstraction          a0, a1;
  const SRSuccessorList *C0, *C1;
  const SRCheckpoint    *t0, *t1;
  PetscInt               n0, n1;
  int                    ok = 1;

  CHK(MakeRun(PETSC_COMM_WORLD, "-model dynamics -guard backtrack -relist never -guard_halvings 4 -beta 0.5", &r0));
  CHK(MakeRun(PETSC_COMM_WORLD, "-model dynamics -guard backtrack -relist never -guard_halvings 4 -beta 0.5 -succ_margin 0.5", &r1));
  CHK(SRRunGetObjects(r0, NULL, NULL, &a0));
  CHK(SRRunGetObjects(r1, &mdl, &cells, &a1));
  CHK(SRAbstractionGetCertified(a0, &C0));
  CHK(SRAbstractionGetCertified(a1, &C1));
  for (PetscInt k = 0; k < C0->K; k++)
    for (PetscInt q = C0->ptr[k]; q < C0->ptr[k + 1]; q++) {
      PetscBool found = PETSC_FALSE;
      for (PetscInt t = C1->ptr[k]; t < C1->ptr[k + 1]; t++) found = found || C1->idx[t] == C0->idx[q];
      ok = ok && found;
    }
  ok = ok && C1->ptr[C1->K] > C0->ptr[C0->K];
  CHK(SRRunSolve(r0));
  CHK(SRRunSolve(r1));
  CHK(SRRunGetCheckpoints(r0, &n0, &t0));
  CHK(SRRunGetCheckpoints(r1, &n1, &t1));
  print_message("succ_margin 0: %d accepted, %d rejected; 0.5: %d accepted, %d rejected\n", (int)t0[n0 - 1].accepted, (int)t0[n0 - 1].rejected, (int)t1[n1 - 1].accepted, (int)t1[n1 - 1].rejected);
  ok = ok && t1[n1 - 1].accepted >= t0[n0 - 1].accepted;
  for (PetscInt i = 0; i < n1; i++) ok = ok && t1[i].recheck_failures == 0 && t1[i].falsified == 0 && (i == 0 || t1[i].succ_certified <= t1[i - 1].succ_certified);
  CHK(SRAbstractionGetCertified(a1, &C1));
  ok = ok && EscapingCells(mdl, cells, C1, 200) == 0;
  CHK(SRRunDestroy(&r0));
  CHK(SRRunDestroy(&r1));
  AssertAll(ok);
}

/* The re-check may bisect a cell to prove containment with the other enclosure: with
   -recheck_depth 0 a taylor1 re-check of an interval-guarded controller run fails cells that
   the bisected re-check proves; the guard itself and sampling never see an escape. */
static void test_recheck_bisection(void **state)
{
  SRRun               r0, r1;
  const SRCheckpoint *t0, *t1;
  PetscInt            n0, n1, f0 = 0, f1 = 0;
  int                 ok = 1;

  CHK(MakeRun(PETSC_COMM_WORLD, "-model controller -mlp_widths 8 -cells 6,6 -seed 2 -guard backtrack -guard_halvings 2 -beta 0.5 -recheck_depth 0", &r0));
  CHK(MakeRun(PETSC_COMM_WORLD, "-model controller -mlp_widths 8 -cells 6,6 -seed 2 -guard backtrack -guard_halvings 2 -beta 0.5", &r1));
  CHK(SRRunSolve(r0));
  CHK(SRRunSolve(r1));
  CHK(SRRunGetCheckpoints(r0, &n0, &t0));
  CHK(SRRunGetCheckpoints(r1, &n1, &t1));
  for (PetscInt i = 0; i < n0; i++) {
    f0 += t0[i].recheck_failures;
    ok = ok && t0[i].falsified == 0;
  }
  for (PetscInt i = 0; i < n1; i++) f1 += t1[i].recheck_failures;
  print_message("re-check failures: %d without bisection, %d with -recheck_depth 6\n", (int)f0, (int)f1);
  ok = ok && f0 > 0 && f1 == 0;
  CHK(SRRunDestroy(&r0));
  CHK(SRRunDestroy(&r1));
  AssertAll(ok);
}

/* beta = 0 and beta > 0 train different networks from the same seed. */
static void test_beta_matters(void **state)
{
  SRRun               r0, r1;
  SRModel             m0, m1;
  const SRCheckpoint *t0, *t1;
  PetscInt            n0, n1;

  CHK(MakeRun(PETSC_COMM_WORLD, "-model controller -beta 0", &r0));
  CHK(SRRunSolve(r0));
  CHK(MakeRun(PETSC_COMM_WORLD, "-model controller -beta 0.5", &r1));
  CHK(SRRunSolve(r1));
  CHK(SRRunGetObjects(r0, &m0, NULL, NULL));
  CHK(SRRunGetObjects(r1, &m1, NULL, NULL));
  CHK(SRRunGetCheckpoints(r0, &n0, &t0));
  CHK(SRRunGetCheckpoints(r1, &n1, &t1));
  int ok = m0->mlp->nparams == m1->mlp->nparams && memcmp(m0->mlp->params, m1->mlp->params, sizeof(double) * m0->mlp->nparams) != 0 && n0 == n1 && !SameDouble(t0[n0 - 1].task, t1[n1 - 1].task);
  CHK(SRRunDestroy(&r0));
  CHK(SRRunDestroy(&r1));
  AssertAll(ok);
}

/* The same run on all ranks and alone on each rank gives bit-identical checkpoints and weights. */
static void test_rank_independent(void **state)
{
  MPI_Comm            self;
  PetscMPIInt         rank;
  SRRun               rw, rs;
  SRModel             mw, ms;
  const SRCheckpoint *tw, *ts;
  PetscInt            nw, ns;
  const char          opts[] = "-model controller -guard backtrack -beta 0.5 -volume_weight 0.1 -lr 0.05";
  int                 ok = 1;

  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_split(PETSC_COMM_WORLD, rank, 0, &self);
  CHK(MakeRun(PETSC_COMM_WORLD, opts, &rw));
  CHK(SRRunSolve(rw));
  CHK(MakeRun(self, opts, &rs));
  CHK(SRRunSolve(rs));
  CHK(SRRunGetCheckpoints(rw, &nw, &tw));
  CHK(SRRunGetCheckpoints(rs, &ns, &ts));
  CHK(SRRunGetObjects(rw, &mw, NULL, NULL));
  CHK(SRRunGetObjects(rs, &ms, NULL, NULL));
  ok = nw == ns && nw == 4;
  for (PetscInt i = 0; ok && i < nw; i++) ok = SameRow(&tw[i], &ts[i]);
  ok = ok && !memcmp(mw->mlp->params, ms->mlp->params, sizeof(double) * mw->mlp->nparams);
  CHK(SRRunDestroy(&rw));
  CHK(SRRunDestroy(&rs));
  MPI_Comm_free(&self);
  AssertAll(ok);
}

/* A huge learning rate overflows the loss: status diverged, with a reason that says so. */
static void test_diverged(void **state)
{
  SRRun       run;
  SRRunStatus st;
  const char *reason;

  CHK(MakeRun(PETSC_COMM_WORLD, "-model dynamics -guard none -lr 1e200", &run));
  CHK(SRRunSolve(run));
  CHK(SRRunGetStatus(run, &st, &reason));
  int ok = st == SR_RUN_DIVERGED && strstr(reason, "non-finite") != NULL;
  CHK(SRRunDestroy(&run));
  AssertAll(ok);
}

/* Stop after checkpoint 2 of 4, save the state, restore it in a new run and finish:
   checkpoints 3 and 4 and the weights equal those of the uninterrupted run bit for bit. */
static PetscErrorCode StopAt2(SRRun run, const SRCheckpoint *row, void *ctx)
{
  PetscFunctionBeginUser;
  if (row->checkpoint == 2) *(volatile int *)ctx = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void Resume(const char opts[])
{
  SRRun               full, part, rest;
  SRModel             mf, mr;
  const SRCheckpoint *tf, *tp, *tr;
  PetscInt            nf, np, nr, nd, ni, nd2, ni2;
  SRRunStatus         st;
  volatile int        stop = 0;
  double             *ds;
  PetscInt           *is;

  CHK(MakeRun(PETSC_COMM_WORLD, opts, &full));
  CHK(SRRunSolve(full));
  CHK(SRRunGetCheckpoints(full, &nf, &tf));
  CHK(MakeRun(PETSC_COMM_WORLD, opts, &part));
  CHK(SRRunSetStopFlag(part, &stop));
  CHK(SRRunSetMonitor(part, StopAt2, (void *)&stop));
  CHK(SRRunSolve(part));
  CHK(SRRunGetStatus(part, &st, NULL));
  CHK(SRRunGetCheckpoints(part, &np, &tp));
  int ok = st == SR_RUN_INTERRUPTED && np == 2 && SameRow(&tp[0], &tf[0]) && SameRow(&tp[1], &tf[1]);
  CHK(SRRunGetStateSizes(part, &nd, &ni));
  CHK(PetscMalloc2(nd, &ds, ni, &is));
  CHK(SRRunGetState(part, ds, is));
  CHK(SRRunDestroy(&part));
  CHK(MakeRun(PETSC_COMM_WORLD, opts, &rest));
  CHK(SRRunGetStateSizes(rest, &nd2, &ni2));
  ok = ok && nd2 == nd && ni2 == ni;
  CHK(SRRunSetState(rest, ds, is));
  CHK(SRRunSolve(rest));
  CHK(SRRunGetStatus(rest, &st, NULL));
  CHK(SRRunGetCheckpoints(rest, &nr, &tr));
  ok = ok && st == SR_RUN_DONE && nr == 2 && SameRow(&tr[0], &tf[2]) && SameRow(&tr[1], &tf[3]);
  if (!ok && nr == 2)
    for (PetscInt i = 0; i < 2; i++) print_message("resume row %d: L_sim %.17g vs %.17g, task %.17g vs %.17g, acc %d vs %d\n", (int)i + 3, tr[i].Lsim, tf[i + 2].Lsim, tr[i].task, tf[i + 2].task, (int)tr[i].accepted, (int)tf[i + 2].accepted);
  CHK(SRRunGetObjects(full, &mf, NULL, NULL));
  CHK(SRRunGetObjects(rest, &mr, NULL, NULL));
  ok = ok && !memcmp(mf->mlp->params, mr->mlp->params, sizeof(double) * mf->mlp->nparams);
  CHK(PetscFree2(ds, is));
  CHK(SRRunDestroy(&full));
  CHK(SRRunDestroy(&rest));
  AssertAll(ok);
}

/* with the guard (theta moves rejected) and without it (TAO's moves accepted, so any state
   TAO kept between solves would show) */
static void test_resume(void **state) { Resume("-model controller -guard backtrack -beta 0.5 -volume_weight 0.1 -lr 0.05"); }
static void test_resume_unguarded(void **state) { Resume("-model dynamics -guard none -beta 0.5 -lr 0.01"); }

/* Bad option values are errors that name the option and the value. */
typedef struct {
  char msg[1024];
} ErrCtx;

static PetscErrorCode KeepMessage(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  ErrCtx *e = (ErrCtx *)ctx;
  if (p == PETSC_ERROR_INITIAL && mess) snprintf(e->msg, sizeof(e->msg), "%s", mess);
  return n;
}

static int BadOption(const char opts[], const char want1[], const char want2[])
{
  SRRun          run;
  ErrCtx         e = {""};
  PetscErrorCode ierr;

  PetscOptionsClear(NULL);
  PetscOptionsInsertString(NULL, base_opts);
  PetscOptionsInsertString(NULL, opts);
  SRRunCreate(PETSC_COMM_WORLD, &run);
  PetscPushErrorHandler(KeepMessage, &e);
  ierr = SRRunSetFromOptions(run);
  PetscPopErrorHandler();
  SRRunDestroy(&run);
  const int ok = ierr != 0 && strstr(e.msg, want1) && strstr(e.msg, want2);
  if (!ok) print_message("option '%s': got error %d '%s'\n", opts, (int)ierr, e.msg);
  return ok;
}

static void test_bad_options(void **state)
{
  int ok = 1;
  ok     = BadOption("-tau 0", "-tau", "0") && ok;
  ok     = BadOption("-beta -1", "-beta", "-1") && ok;
  ok     = BadOption("-eps -0.5", "-eps", "-0.5") && ok;
  ok     = BadOption("-w_min 0.5 -w_max 0.1", "-w_min 0.5", "-w_max 0.1") && ok;
  ok     = BadOption("-guard maybe", "-guard maybe", "reject, backtrack, project, none") && ok;
  ok     = BadOption("-p 3", "-p 3", "1, 2, inf") && ok;
  ok     = BadOption("-cells 4,4,4", "-cells", "pendulum") && ok;
  ok     = BadOption("-target_mass 1.5", "-target_mass", "1.5") && ok;
  ok     = BadOption("-cells_param grid", "-cells_param grid", "partition, boxes") && ok;
  ok     = BadOption("-cell_solve maybe", "-cell_solve maybe", "on, off") && ok;
  ok     = BadOption("-coverage_weight 1", "-coverage_weight 1", "-cells_param partition") && ok;
  ok     = BadOption("-w_min 0.3", "-w_min 0.3", "2 m w_min") && ok;
  AssertAll(ok);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bad_options), cmocka_unit_test(test_guard_controller), cmocka_unit_test(test_guard_dynamics), cmocka_unit_test(test_guard_none), cmocka_unit_test(test_guard_none_gaps), cmocka_unit_test(test_tao_moves_cells),
    cmocka_unit_test(test_succ_margin), cmocka_unit_test(test_relist_checkpoint), cmocka_unit_test(test_recheck_bisection), cmocka_unit_test(test_beta_matters), cmocka_unit_test(test_rank_independent), cmocka_unit_test(test_diverged),         cmocka_unit_test(test_resume), cmocka_unit_test(test_resume_unguarded),
  };
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  const int fails = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
