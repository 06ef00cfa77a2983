/* The theta branch of the guard (src/train/guard.c, SPEC §8) made to reject (issue 37: in the
   runs of test_run.c it never rejected anything, so a guard that accepted a candidate whose
   containment failed went unseen).

   Free boxes (-cells_param boxes) moved by TAO with a large volume weight: the solve shrinks
   the cells, which opens gaps in the union of C(k), so the guard must reject such moves.  For
   -guard reject and -guard backtrack on the pendulum (controller and dynamics models):
   - theta moves were rejected (the checkpoint's theta_rejected >= 1);
   - after the run the guard's own test passes on the final cells and lists (SRAbstractionCheck
     with the run's enclosure: no failing cell), and no sampled image (an independent forward
     pass, 200 points per cell) escapes its list.
   Runs on 1 and 2 ranks; every verdict is reduced over PETSC_COMM_WORLD. */
#include <simreach.h>
#include <math.h>
#include <string.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_run_common.h"

static const char base_opts[] = "-sys pendulum -cells 4,4 -mlp_widths 8,8 -samples 128 -heldout 128 -batch 32 "
                                "-target_samples 8 -falsify_samples 8 -epochs 4 -checkpoints 4 -quiet -seed 3 -enclosure interval "
                                "-cells_param boxes -cell_solve on -beta 0.5 -volume_weight 0.5 -w_min 0.01 -tao_max_it 20 -lr 0.01";

/* cells k with a sampled f_phi(x), x in the cell, outside every box of C(k) (the sink: outside D) */
static PetscInt EscapingCells(SRModel model, SRCells cells, const SRSuccessorList *C, PetscInt m)
{
  const PetscInt n = cells->n, K = cells->K;
  PetscInt       bad = 0;
  for (PetscInt k = 0; k < K; k++) {
    PetscBool esc = PETSC_FALSE;
    for (PetscInt s = 0; s < m && !esc; s++) {
      double    x[SR_MAX_DIM], y[SR_MAX_DIM];
      PetscBool cov = PETSC_FALSE;
      for (PetscInt d = 0; d < n; d++)
        x[d] = cells->c[k * n + d] + cells->w[k * n + d] * (2 * SRRandomUniform(41, SR_STREAM_TEST, (uint64_t)((k * m + s) * n + d)) - 1);
      Forward(model, x, y);
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

static void ThetaGuardRun(const char extra[])
{
  SRRun                  run;
  SRModel                mdl;
  SRCells                cells;
  SRAbstraction          abs;
  const SRCheckpoint    *t;
  const SRSuccessorList *C;
  PetscInt               n, nfail = -1, first, esc;
  SRRunStatus            st;
  double                 witness[SR_MAX_DIM];
  int                    ok = 1;

  CHK(TestMakeRun(PETSC_COMM_WORLD, base_opts, extra, &run));
  CHK(SRRunSolve(run));
  CHK(SRRunGetStatus(run, &st, NULL));
  CHK(SRRunGetCheckpoints(run, &n, &t));
  CHK(SRRunGetObjects(run, &mdl, &cells, &abs));
  ok = ok && st == SR_RUN_DONE && n == 4;
  ok = ok && n > 0 && t[n - 1].theta_rejected >= 1;
  CHK(SRAbstractionCheck(abs, mdl, cells, SR_ENCLOSURE_INTERVAL, &nfail, &first, witness));
  ok = ok && nfail == 0;
  CHK(SRAbstractionGetCertified(abs, &C));
  esc = EscapingCells(mdl, cells, C, 200);
  ok  = ok && esc == 0;
  print_message("theta guard %s: status %d, %d checkpoints, theta accepted %d rejected %d backtracked %d, guard test failing cells %d, escaping cells %d\n", extra, (int)st, (int)n, n ? (int)t[n - 1].theta_accepted : -1,
      n ? (int)t[n - 1].theta_rejected : -1, n ? (int)t[n - 1].theta_backtracked : -1, (int)nfail, (int)esc);
  CHK(SRRunDestroy(&run));
  AssertAll(ok);
}

static void test_theta_reject_controller(void **state) { ThetaGuardRun("-model controller -guard reject"); }
static void test_theta_backtrack_controller(void **state) { ThetaGuardRun("-model controller -guard backtrack -guard_halvings 2"); }
static void test_theta_reject_dynamics(void **state) { ThetaGuardRun("-model dynamics -guard reject"); }

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = { cmocka_unit_test(test_theta_reject_controller), cmocka_unit_test(test_theta_backtrack_controller), cmocka_unit_test(test_theta_reject_dynamics) };
  int                     rc;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return rc;
}
