/* The three-outcome re-check of SPEC §11 (src/abstraction/recheck.c).
   - tight lists that are sound (toy1d 1000 cells, taylor1, -succ_margin 0; pendulum world model
     `both`) give 0 falsified and 0 unknown: no false alarm;
   - planted violations are falsified with a witness that this test checks on its own (a point
     of the exact cell whose image, recomputed here from the weights, is in no listed box):
     an edited list (a successor that a sampled image hits removed), and a face shaved 1e-9 of
     a cell width inside the image (free boxes: the top face of the union moved below the
     largest image this test finds by dense sampling);
   - the outcome counts do not depend on the rank count (the test runs on 1 and 2 ranks).
   Every verdict is reduced over PETSC_COMM_WORLD. */
#include <simreach.h>
#include <petscviewer.h>
#include <math.h>
#include <string.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_run_common.h"

static PetscErrorCode MakeRun(const char opts[], SRRun *run)
{
  PetscFunctionBeginUser;
  PetscCall(TestMakeRun(PETSC_COMM_WORLD, opts, NULL, run));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x in the real box of cell k (c +- w) and f(x) (recomputed here) in no listed cell's box, with a
   relative margin far above rounding: an independent confirmation of a witness. */
static int WitnessConfirmed(SRModel model, SRCells cells, PetscInt k, PetscInt nl, const PetscInt *list, const double *x, double margin)
{
  const PetscInt n = cells->n;
  double         y[SR_MAX_DIM];
  if (cells->partition) { /* a partition cell is the box of its double boundaries */
    double lo[SR_MAX_DIM], hi[SR_MAX_DIM];
    SRCellsBoxInner(cells, k, lo, hi);
    for (PetscInt d = 0; d < n; d++)
      if (!(lo[d] <= x[d] && x[d] <= hi[d])) return 0;
  } else
    for (PetscInt d = 0; d < n; d++)
      if (!(fabs(x[d] - cells->c[k * n + d]) <= cells->w[k * n + d])) return 0;
  Forward(model, x, y);
  for (PetscInt t = 0; t < nl; t++) {
    int in = 1;
    if (list[t] == cells->K) { /* the sink covers y outside D (or within margin of its boundary) */
      in = 0;
      for (PetscInt d = 0; d < n; d++)
        if (!(y[d] > cells->dlo[d] + margin && y[d] < cells->dhi[d] - margin)) in = 1;
    } else if (cells->partition) {
      double lo[SR_MAX_DIM], hi[SR_MAX_DIM];
      SRCellsBoxOuter(cells, list[t], lo, hi);
      for (PetscInt d = 0; d < n; d++)
        if (!(y[d] > lo[d] - margin && y[d] < hi[d] + margin)) in = 0;
    } else
      for (PetscInt d = 0; d < n; d++)
        if (!(fabs(y[d] - cells->c[list[t] * n + d]) < cells->w[list[t] * n + d] + margin)) in = 0;
    if (in) return 0;
  }
  return 1;
}

static void RecheckParams(SRRun run, SREnclosureType builder, SRRecheckParams *par)
{
  (void)run;
  CHK(SRRecheckParamsSetDefault(par));
  par->builder = builder;
  par->seed    = 3;
}

/* No false alarm on sound tight lists. */
static void TightCase(const char opts[], SREnclosureType builder, PetscInt *unknown_out)
{
  SRRun                  run;
  SRModel                model;
  SRCells                cells;
  SRAbstraction          abs;
  const SRSuccessorList *C;
  SRRecheckParams        par;
  SRRecheckResult        res;

  CHK(MakeRun(opts, &run));
  CHK(SRRunGetObjects(run, &model, &cells, &abs));
  CHK(SRAbstractionGetCertified(abs, &C));
  RecheckParams(run, builder, &par);
  CHK(SRRecheckAll(PETSC_COMM_WORLD, model, cells, C, &par, &res));
  print_message("%s: %d proven, %d falsified, %d unknown, %.0f enclosures (max %d per cell), %.3g s\n", opts, (int)res.proven, (int)res.falsified, (int)res.unknown, res.boxes, (int)res.boxes_max, res.seconds);
  AssertAll(res.falsified == 0 && res.unknown == 0 && res.proven == cells->K);
  *unknown_out = res.unknown;
  CHK(SRRecheckResultDestroy(&res));
  CHK(SRRunDestroy(&run));
}

static void test_tight_toy1d(void **state)
{
  PetscInt u;
  (void)state;
  TightCase("-sys toy1d -model dynamics -mlp_widths 16,16 -cells 1000 -enclosure taylor1 -succ_margin 0 -pretrain_epochs 30 -samples 512 -quiet -seed 1", SR_ENCLOSURE_TAYLOR1, &u);
}

static void test_tight_pendulum_both(void **state)
{
  PetscInt u;
  (void)state;
  TightCase("-sys pendulum -model dynamics -mlp_widths 16,16 -cells 16,16 -enclosure both -succ_margin 0 -pretrain_epochs 20 -samples 512 -quiet -seed 2", SR_ENCLOSURE_BOTH, &u);
}

/* An edited list: in every 7th cell the successor that the image of the cell's centre falls in
   (by the model's double evaluation) is removed.  Each such cell must be falsified with a
   witness confirmed here; every other cell stays proven. */
static void test_planted_edit(void **state)
{
  SRRun                  run;
  SRModel                model;
  SRCells                cells;
  SRAbstraction          abs;
  const SRSuccessorList *C;
  SRSuccessorList        E;
  SRRecheckParams        par;
  SRRecheckResult        res;
  PetscInt               K, n, q = 0, planted = 0;
  PetscBool             *edited;
  int                    ok = 1;

  (void)state;
  CHK(MakeRun("-sys pendulum -model controller -mlp_widths 16,16 -cells 8,8 -enclosure taylor1 -succ_margin 0 -pretrain_epochs 20 -samples 512 -quiet -seed 1", &run));
  CHK(SRRunGetObjects(run, &model, &cells, &abs));
  CHK(SRAbstractionGetCertified(abs, &C));
  K = cells->K;
  n = cells->n;
  CHK(SRSuccessorListCreate(K, C->ptr[K], &E));
  CHK(PetscCalloc1(K, &edited));
  E.ptr[0] = 0;
  for (PetscInt k = 0; k < K; k++) {
    double   x[SR_MAX_DIM], y[SR_MAX_DIM];
    PetscInt drop = -1;
    for (PetscInt d = 0; d < n; d++) x[d] = cells->c[k * n + d];
    CHK(SRModelEvaluate(model, 1, x, y));
    if (k % 7 == 3) {
      drop = SRCellsAssign(cells, y);
      for (PetscInt d = 0; d < n; d++)
        if (y[d] < cells->dlo[d] || y[d] > cells->dhi[d]) drop = K;
    }
    for (PetscInt t = C->ptr[k]; t < C->ptr[k + 1]; t++) {
      if (C->idx[t] == drop) {
        edited[k] = PETSC_TRUE;
        continue;
      }
      E.idx[q++] = C->idx[t];
    }
    E.ptr[k + 1] = q;
    planted += edited[k];
  }
  RecheckParams(run, SR_ENCLOSURE_TAYLOR1, &par);
  CHK(SRRecheckAll(PETSC_COMM_WORLD, model, cells, &E, &par, &res));
  print_message("edited lists: %d planted, %d falsified, %d unknown, %d proven\n", (int)planted, (int)res.falsified, (int)res.unknown, (int)res.proven);
  ok = ok && planted > 3 && res.falsified == planted && res.unknown == 0;
  for (PetscInt i = 0; i < res.nfail; i++) {
    const SRRecheckCellResult *f = &res.fail[i];
    const PetscInt             k = f->cell;
    ok = ok && edited[k] && f->outcome == SR_RECHECK_FALSIFIED && WitnessConfirmed(model, cells, k, E.ptr[k + 1] - E.ptr[k], E.idx + E.ptr[k], f->x, 1e-12);
  }
  if (!ok) CHK(SRRecheckResultView(&res, n, 20, PETSC_VIEWER_STDOUT_WORLD));
  AssertAll(ok);
  CHK(SRRecheckResultDestroy(&res));
  CHK(PetscFree(edited));
  CHK(SRSuccessorListDestroy(&E));
  CHK(SRRunDestroy(&run));
}

/* A face shaved 1e-9 of a cell width inside the image.  toy1d, free boxes: for a cell k, the
   listed cell j holding the top of its image gets its upper face moved to ymax - 1e-9 h, where
   ymax is the largest image of a dense sample of cell k (plus its ends); the cells above j are
   taken out of C(k).  The true image then pokes 1e-9 h (at least) out of the union. */
static void ShavedCase(const char opts[], PetscInt stride)
{
  SRRun                  run;
  SRModel                model;
  SRCells                cells;
  SRAbstraction          abs;
  const SRSuccessorList *C;
  SRSuccessorList        E;
  SRRecheckParams        par;
  SRRecheckResult        res;
  PetscInt               K, q = 0, planted = 0;
  double                 h;
  PetscInt              *shaved;
  PetscBool             *isshaved, *planted_cell;
  int                    ok = 1;

  CHK(MakeRun(opts, &run));
  CHK(SRRunGetObjects(run, &model, &cells, &abs));
  CHK(SRAbstractionGetCertified(abs, &C));
  K = cells->K;
  h = (cells->dhi[0] - cells->dlo[0]) / (double)cells->grid[0];
  CHK(SRSuccessorListCreate(K, C->ptr[K], &E));
  CHK(PetscMalloc1(K, &shaved));
  CHK(PetscCalloc2(K, &isshaved, K, &planted_cell));
  CHK(SRCellsSetFree(cells)); /* free boxes (-cells_param boxes): a face may move */
  E.ptr[0] = 0;
  for (PetscInt k = 0; k < K; k++) {
    const double lo = cells->c[k] - cells->w[k], hi = cells->c[k] + cells->w[k];
    double       ymax = -INFINITY, xs, y;
    PetscInt     j;
    shaved[k] = -1;
    for (PetscInt s = 0; s <= 4096; s++) {
      xs = s == 4096 ? hi : lo + (hi - lo) * (double)s / 4096.0;
      Forward(model, &xs, &y);
      ymax = PetscMax(ymax, y);
    }
    j = SRCellsAssign(cells, &ymax);
    if (k % stride == 1 && ymax > cells->dlo[0] + h && ymax < cells->dhi[0] - h && j != k && !(cells->c[j] + cells->w[j] - ymax < 1e-6 * h)) {
      /* j keeps [its lower face, ymax - 1e-9 h]; each shaved cell serves one planted cell, and
         no planted cell is shaved itself */
      if (!isshaved[k] && !isshaved[j] && !planted_cell[j]) {
        const double jlo = cells->c[j] - cells->w[j], jhi = ymax - 1e-9 * h;
        cells->c[j]     = 0.5 * (jlo + jhi);
        cells->w[j]     = 0.5 * (jhi - jlo);
        shaved[k]       = j;
        isshaved[j]     = PETSC_TRUE;
        planted_cell[k] = PETSC_TRUE;
        planted++;
      }
    }
    for (PetscInt t = C->ptr[k]; t < C->ptr[k + 1]; t++) {
      if (shaved[k] >= 0 && C->idx[t] > shaved[k]) continue; /* the cells above the top face */
      E.idx[q++] = C->idx[t];
    }
    E.ptr[k + 1] = q;
  }
  /* A cell whose own list contains a shaved cell as another successor may now fail too: the
     test only requires every planted cell falsified with a confirmed witness, and no unknown. */
  RecheckParams(run, SR_ENCLOSURE_TAYLOR1, &par);
  CHK(SRRecheckAll(PETSC_COMM_WORLD, model, cells, &E, &par, &res));
  print_message("shaved faces (%s): %d planted, %d falsified, %d unknown\n", opts, (int)planted, (int)res.falsified, (int)res.unknown);
  ok = planted >= 3;
  for (PetscInt k = 0; k < K; k++) {
    PetscBool found = PETSC_FALSE;
    if (shaved[k] < 0) continue;
    for (PetscInt i = 0; i < res.nfail; i++) {
      const SRRecheckCellResult *f = &res.fail[i];
      if (f->cell != k) continue;
      found = f->outcome == SR_RECHECK_FALSIFIED && WitnessConfirmed(model, cells, k, E.ptr[k + 1] - E.ptr[k], E.idx + E.ptr[k], f->x, 0.0);
    }
    if (!found) print_message("cell %d (face of cell %d shaved) not falsified\n", (int)k, (int)shaved[k]);
    ok = ok && found;
  }
  for (PetscInt i = 0; i < res.nfail; i++) {
    const SRRecheckCellResult *f = &res.fail[i];
    if (f->outcome == SR_RECHECK_FALSIFIED) ok = ok && WitnessConfirmed(model, cells, f->cell, E.ptr[f->cell + 1] - E.ptr[f->cell], E.idx + E.ptr[f->cell], f->x, 0.0);
  }
  if (!ok) CHK(SRRecheckResultView(&res, 1, 20, PETSC_VIEWER_STDOUT_WORLD));
  AssertAll(ok);
  CHK(SRRecheckResultDestroy(&res));
  CHK(PetscFree(shaved));
  CHK(PetscFree2(isshaved, planted_cell));
  CHK(SRSuccessorListDestroy(&E));
  CHK(SRRunDestroy(&run));
}

static void test_planted_shaved(void **state)
{
  (void)state;
  /* an untrained network (images with interior maxima) and a warm-started one */
  ShavedCase("-sys toy1d -model dynamics -cells_param boxes -mlp_widths 16,16 -cells 64 -enclosure taylor1 -succ_margin 0 -quiet -seed 4", 5);
  ShavedCase("-sys toy1d -model dynamics -cells_param boxes -mlp_widths 16,16 -cells 64 -enclosure taylor1 -succ_margin 0 -pretrain_epochs 30 -samples 512 -quiet -seed 5", 5);
}

/* The run's own re-check (SRRunRecheck, the code behind its checkpoint columns) on a planted
   edit: one successor removed from three cells' lists of a set-up run. */
static void test_run_planted(void **state)
{
  SRRun                  run;
  SRModel                model;
  SRCells                cells;
  SRAbstraction          abs;
  const SRSuccessorList *C, *T;
  SRSuccessorList        E, Tc;
  SRRecheckResult        res;
  PetscInt               K, n, q = 0;
  const PetscInt         planted[3] = {2, 9, 13};
  int                    ok;

  (void)state;
  CHK(MakeRun("-sys pendulum -model controller -mlp_widths 8,8 -cells 4,4 -enclosure interval -pretrain_epochs 10 -samples 256 -quiet -seed 3", &run));
  CHK(SRRunGetObjects(run, &model, &cells, &abs));
  CHK(SRAbstractionGetCertified(abs, &C));
  CHK(SRAbstractionGetTargets(abs, &T));
  K = cells->K;
  n = cells->n;
  CHK(SRSuccessorListCreate(K, C->ptr[K], &E));
  E.ptr[0] = 0;
  for (PetscInt k = 0; k < K; k++) {
    double   x[SR_MAX_DIM], y[SR_MAX_DIM];
    PetscInt drop = -1;
    for (PetscInt d = 0; d < n; d++) x[d] = cells->c[k * n + d];
    CHK(SRModelEvaluate(model, 1, x, y));
    if (k == planted[0] || k == planted[1] || k == planted[2]) {
      drop = SRCellsAssign(cells, y);
      for (PetscInt d = 0; d < n; d++)
        if (y[d] < cells->dlo[d] || y[d] > cells->dhi[d]) drop = K;
    }
    for (PetscInt t = C->ptr[k]; t < C->ptr[k + 1]; t++)
      if (C->idx[t] != drop) E.idx[q++] = C->idx[t];
    E.ptr[k + 1] = q;
  }
  /* the targets, without the removed successors (T(k) must stay within C(k)) */
  CHK(SRSuccessorListCreate(K, T->ptr[K], &Tc));
  q        = 0;
  Tc.ptr[0] = 0;
  for (PetscInt k = 0; k < K; k++) {
    for (PetscInt t = T->ptr[k]; t < T->ptr[k + 1]; t++) {
      PetscBool in = PETSC_FALSE;
      for (PetscInt u = E.ptr[k]; u < E.ptr[k + 1]; u++)
        if (E.idx[u] == T->idx[t]) in = PETSC_TRUE;
      if (in) Tc.idx[q++] = T->idx[t];
    }
    if (q == Tc.ptr[k]) Tc.idx[q++] = E.idx[E.ptr[k]]; /* never empty */
    Tc.ptr[k + 1] = q;
  }
  CHK(SRAbstractionSetLists(abs, &E, &Tc));
  CHK(SRRunRecheck(run, &res));
  print_message("run re-check of edited lists: %d falsified, %d unknown, %d proven\n", (int)res.falsified, (int)res.unknown, (int)res.proven);
  ok = res.falsified == 3 && res.unknown == 0 && res.nfail == 3;
  for (PetscInt i = 0; i < res.nfail && ok; i++) {
    const SRRecheckCellResult *f = &res.fail[i];
    ok = f->cell == planted[i] && f->outcome == SR_RECHECK_FALSIFIED && WitnessConfirmed(model, cells, f->cell, E.ptr[f->cell + 1] - E.ptr[f->cell], E.idx + E.ptr[f->cell], f->x, 1e-12);
  }
  AssertAll(ok);
  CHK(SRRecheckResultDestroy(&res));
  CHK(SRSuccessorListDestroy(&E));
  CHK(SRSuccessorListDestroy(&Tc));
  CHK(SRRunDestroy(&run));
}

/* Stored triple = verified triple: after a -guard none run (lists rebuilt at every checkpoint)
   and after a diverged one, the run's current network, cells and lists (what a study stores)
   re-check with 0 falsified and 0 unknown, and the last row's columns describe exactly them. */
static void StoredIsVerified(const char opts[], SRRunStatus expect)
{
  SRRun               run;
  SRRunStatus         st;
  const char         *reason;
  const SRCheckpoint *t;
  PetscInt            nt;
  SRRecheckResult     res;
  SRModel             model;
  int                 ok, finite = 1;

  CHK(MakeRun(opts, &run));
  CHK(SRRunSolve(run));
  CHK(SRRunGetStatus(run, &st, &reason));
  CHK(SRRunGetCheckpoints(run, &nt, &t));
  CHK(SRRunGetObjects(run, &model, NULL, NULL));
  for (PetscInt p = 0; p < model->mlp->nparams; p++)
    if (!isfinite(model->mlp->params[p]) || fabs(model->mlp->params[p]) > 1e6) finite = 0;
  CHK(SRRunRecheck(run, &res));
  print_message("%s: status %s (%s), %d rows; stored triple: %d proven, %d falsified, %d unknown\n", opts, SRRunStatusNames[st], reason, (int)nt, (int)res.proven, (int)res.falsified, (int)res.unknown);
  ok = st == expect && finite && res.falsified == 0 && res.unknown == 0;
  if (!ok) CHK(SRRecheckResultView(&res, model->n, 10, PETSC_VIEWER_STDOUT_WORLD));
  if (nt > 0 && st == SR_RUN_DONE) ok = ok && t[nt - 1].recheck_failures == res.falsified + res.unknown && t[nt - 1].falsified == res.falsified;
  for (PetscInt i = 0; i < nt; i++) ok = ok && t[i].recheck_failures == 0 && t[i].falsified == 0;
  AssertAll(ok);
  CHK(SRRecheckResultDestroy(&res));
  CHK(SRRunDestroy(&run));
}

static void test_stored_unguarded(void **state)
{
  (void)state;
  /* cells that cover D (-tao_max_it 0: no theta move; moved free boxes may leave gaps, where
     SPEC §8 claims no soundness) */
  StoredIsVerified("-sys pendulum -model controller -mlp_widths 8,8 -cells 6,6 -guard none -epochs 6 -checkpoints 3 -samples 256 -heldout 128 -batch 32 -lr 3e-2 -quiet -seed 2 -tao_max_it 0", SR_RUN_DONE);
}

static void test_stored_diverged(void **state)
{
  (void)state;
  StoredIsVerified("-sys toy1d -model dynamics -mlp_widths 8,8 -cells 8 -guard none -lr 1e300 -epochs 4 -checkpoints 2 -samples 128 -heldout 128 -batch 32 -quiet -seed 1", SR_RUN_DIVERGED);
}

/* Partition cells moved by the guarded TAO solve (SPEC §4): the stored triple of a tight run
   (taylor1, margin 0) is proven everywhere, a dense sample of every cell (grid with the corners)
   finds no image outside the union of C(k) (independent cross-check of the proofs), and an
   edited list is falsified with a confirmed witness. */
static void test_partition_moved(void **state)
{
  SRRun                  run;
  SRModel                model;
  SRCells                cells;
  SRAbstraction          abs;
  const SRSuccessorList *C, *T;
  SRSuccessorList        E, Tc;
  SRRecheckResult        res;
  PetscInt               K, n, q = 0, escapes = 0, moved;
  int                    ok;

  (void)state;
  CHK(MakeRun("-sys pendulum -model controller -mlp_widths 8,8 -cells 6,6 -enclosure taylor1 -succ_margin 0 -guard backtrack -guard_halvings 4 -beta 0.5 -volume_weight 0.05 -epochs 6 -checkpoints 3 -pretrain_epochs 10 -samples 256 -heldout 256 -batch 32 -quiet -seed 4", &run));
  CHK(SRRunSolve(run));
  CHK(SRRunGetObjects(run, &model, &cells, &abs));
  CHK(SRAbstractionGetCertified(abs, &C));
  CHK(SRAbstractionGetTargets(abs, &T));
  K     = cells->K;
  n     = cells->n;
  moved = !cells->grid_aligned;
  CHK(SRRunRecheck(run, &res));
  print_message("moved partition (%s): %d proven, %d falsified, %d unknown\n", moved ? "moved" : "not moved", (int)res.proven, (int)res.falsified, (int)res.unknown);
  ok = cells->partition && res.falsified == 0 && res.unknown == 0;
  CHK(SRRecheckResultDestroy(&res));
  for (PetscInt k = 0; k < K; k++) { /* 33 x 33 points per cell, corners included */
    double lo[SR_MAX_DIM], hi[SR_MAX_DIM], x[SR_MAX_DIM];
    SRCellsBoxInner(cells, k, lo, hi);
    for (PetscInt a = 0; a <= 32; a++)
      for (PetscInt b = 0; b <= 32; b++) {
        x[0] = a == 32 ? hi[0] : lo[0] + (hi[0] - lo[0]) * a / 32.0;
        x[1] = b == 32 ? hi[1] : lo[1] + (hi[1] - lo[1]) * b / 32.0;
        if (WitnessConfirmed(model, cells, k, C->ptr[k + 1] - C->ptr[k], C->idx + C->ptr[k], x, 0.0)) escapes++;
      }
  }
  ok = ok && escapes == 0;
  /* edit: drop the successor holding the image of cell 7's centre */
  CHK(SRSuccessorListCreate(K, C->ptr[K], &E));
  E.ptr[0] = 0;
  for (PetscInt k = 0; k < K; k++) {
    PetscInt drop = -1;
    if (k == 7) {
      double lo[SR_MAX_DIM], hi[SR_MAX_DIM], x[SR_MAX_DIM], y[SR_MAX_DIM];
      SRCellsBoxInner(cells, k, lo, hi);
      for (PetscInt d = 0; d < n; d++) x[d] = 0.5 * (lo[d] + hi[d]);
      CHK(SRModelEvaluate(model, 1, x, y));
      drop = SRCellsAssign(cells, y);
      for (PetscInt d = 0; d < n; d++)
        if (y[d] < cells->dlo[d] || y[d] > cells->dhi[d]) drop = K;
    }
    for (PetscInt t = C->ptr[k]; t < C->ptr[k + 1]; t++)
      if (C->idx[t] != drop) E.idx[q++] = C->idx[t];
    E.ptr[k + 1] = q;
  }
  CHK(SRSuccessorListCreate(K, T->ptr[K], &Tc));
  q         = 0;
  Tc.ptr[0] = 0;
  for (PetscInt k = 0; k < K; k++) {
    for (PetscInt t = T->ptr[k]; t < T->ptr[k + 1]; t++)
      for (PetscInt u = E.ptr[k]; u < E.ptr[k + 1]; u++)
        if (E.idx[u] == T->idx[t]) Tc.idx[q++] = T->idx[t];
    if (q == Tc.ptr[k]) Tc.idx[q++] = E.idx[E.ptr[k]];
    Tc.ptr[k + 1] = q;
  }
  CHK(SRAbstractionSetLists(abs, &E, &Tc));
  CHK(SRRunRecheck(run, &res));
  print_message("moved partition, edited cell 7: %d falsified, %d unknown; dense-sample escapes of the stored lists %d\n", (int)res.falsified, (int)res.unknown, (int)escapes);
  ok = ok && res.falsified == 1 && res.nfail == 1 && res.fail[0].cell == 7 && WitnessConfirmed(model, cells, 7, E.ptr[8] - E.ptr[7], E.idx + E.ptr[7], res.fail[0].x, 1e-12);
  AssertAll(ok);
  CHK(SRRecheckResultDestroy(&res));
  CHK(SRSuccessorListDestroy(&E));
  CHK(SRSuccessorListDestroy(&Tc));
  CHK(SRRunDestroy(&run));
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_tight_toy1d), cmocka_unit_test(test_tight_pendulum_both), cmocka_unit_test(test_planted_edit), cmocka_unit_test(test_planted_shaved), cmocka_unit_test(test_run_planted), cmocka_unit_test(test_stored_unguarded), cmocka_unit_test(test_stored_diverged), cmocka_unit_test(test_partition_moved)};
  PetscMPIInt             rank;
  int                     fails;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank) cmocka_set_message_output(CM_OUTPUT_TAP);
  fails = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
