/* The safety file's header checksum (src/graph/safety_file.c) keeps the layout of the files
   written while SR_MAX_DIM was 3 (issue 36): for n = 1..3 it equals the sum of that layout,
   written out here (15 integers + the counts padded to 3, 5 doubles + the domain's ends padded
   to 3 each), so those files stay readable; for n > 3 every dimension is summed.  Serial. */
#include <simreach/private/closedloop_file.h>
#include <simreach/private/fileio.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

static void Fill(SRSafetyHeader *h, PetscInt n)
{
  memset(h, 0, sizeof *h);
  strcpy(h->sys, "pendulum"), strcpy(h->label, "abs.h5"), strcpy(h->source, "/tmp/abs.h5");
  h->n = n, h->run = -1, h->seed = 7, h->beta = 0.5, h->tau = 0.01;
  h->sum.K = 1, h->sum.iterations = 3, h->sum.safe_cells = 11, h->sum.max_horizon = 9, h->sum.safe_fraction = 0.25, h->sum.mean_horizon = 2.5;
  for (PetscInt d = 0; d < n; d++) h->counts[d] = 10 + d, h->dlo[d] = -1 - d, h->dhi[d] = 1 + d, h->sum.K *= 10 + d;
}

/* the sum as written with SR_MAX_DIM = 3 (main baed6f0) */
static uint64_t Old(const SRSafetyHeader *h)
{
  const SRSafetySummary *s = &h->sum;
  int64_t                iv[18];
  double                 dv[11];
  uint64_t               c = SRChecksumSeed("safety-header", 0, 0);
  int64_t                head[15] = {s->K, h->n, s->iterations, s->safe_cells, s->unverified, s->max_horizon, s->traj_cap, s->traj.trajectories, s->traj.with_claim, s->traj.steps, s->traj.violations, h->run, h->seed, 0, 0};
  double                 dh[5]    = {s->safe_fraction, s->mean_horizon, s->time_total, h->beta, h->tau};
  memcpy(iv, head, sizeof head), memcpy(dv, dh, sizeof dh);
  for (PetscInt d = 0; d < 3; d++) iv[15 + d] = d < h->n ? h->counts[d] : 0, dv[5 + d] = d < h->n ? h->dlo[d] : 0, dv[8 + d] = d < h->n ? h->dhi[d] : 0;
  c = SRChecksum64(iv, sizeof iv, c);
  c = SRChecksum64(dv, sizeof dv, c);
  c = SRChecksum64(h->sys, strlen(h->sys), c);
  c = SRChecksum64(h->label, strlen(h->label), c);
  return SRChecksum64(h->source, strlen(h->source), c);
}

static void test_old_layout_kept(void **state)
{
  for (PetscInt n = 1; n <= 3; n++) {
    SRSafetyHeader h;
    Fill(&h, n);
    assert_true(SRSafetyHeaderSum(&h) == Old(&h));
  }
}

static void test_every_dimension_summed(void **state)
{
  for (PetscInt n = 4; n <= SR_MAX_DIM; n++) {
    SRSafetyHeader h, g;
    Fill(&h, n);
    g = h;
    g.dhi[n - 1] += 1; /* the last dimension's domain is under the sum */
    assert_true(SRSafetyHeaderSum(&h) != SRSafetyHeaderSum(&g));
    g = h;
    g.counts[n - 1] += 1;
    assert_true(SRSafetyHeaderSum(&h) != SRSafetyHeaderSum(&g));
  }
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_old_layout_kept),
    cmocka_unit_test(test_every_dimension_summed),
  };
  int fails;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  fails = cmocka_run_group_tests_name("safety_sum", tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
