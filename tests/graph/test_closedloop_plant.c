/* The closed loop of a plant file and a network on a grid (src/graph/closedloop_plant.c, SPEC
   §16, §12).  On TORA with its ARCH controller, a 5^4 grid of [-2, 2]^4:
     - the figures on all ranks of the run equal those of rank 0 alone (PETSC_COMM_SELF);
     - every cell's verified horizon h is a claim on the real closed loop: from the corners and
       the centre of the cell, the simulated closed loop (SRPlantStepSimulate, itself checked
       against a hand-written oracle in test_plantstep) stays in D for min(h, 4) periods; with
       the flow's planted shrink, some claim must fail.
   Run on 1 and 2 ranks. */
#include <simreach/network.h>
#include <simreach/private/closedloop_plant.h>
#include <simreach/verify.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "jobs_dir.h"

#define CHK(call) assert_int_equal((call), 0)

static const char *jobs_dir = NULL;
static const double lo4[4] = {-2, -2, -2, -2}, hi4[4] = {2, 2, 2, 2};
static const PetscInt cnt4[4] = {5, 5, 5, 5};

static void Load(SRPlant *pl, SRMLP *mlp)
{
  char path[PETSC_MAX_PATH_LEN];
  CHK(PetscSNPrintf(path, sizeof path, "%s/arch/tora/plant.txt", jobs_dir));
  CHK(SRPlantRead(PETSC_COMM_SELF, path, pl));
  CHK(PetscSNPrintf(path, sizeof path, "%s/arch/tora/controllerTora.onnx", jobs_dir));
  CHK(SRNetworkLoad(PETSC_COMM_SELF, path, NULL, mlp));
}

/* sampled points of cells with horizon h that leave D within min(h, 4) periods (this rank's cells) */
static PetscInt64 BrokenClaims(const SRPlant *pl, SRMLP mlp, const SRPlantGridOptions *o, const PetscInt *h, PetscInt64 ks, PetscInt64 m, PetscInt64 *claims)
{
  SRPlantStep s;
  PetscInt64  bad = 0;
  CHK(SRPlantStepCreate(pl, mlp, PETSC_TRUE, SR_NET_BEST, &o->period, &s));
  *claims = 0;
  for (PetscInt64 c = 0; c < m; c++) {
    const PetscInt steps = PetscMin(h[c], 4);
    double         clo[4], chi[4];
    for (PetscInt64 d = 0, k = ks + c; d < 4; d++, k /= 5) {
      const double w = (hi4[d] - lo4[d]) / 5;
      clo[d] = lo4[d] + w * (double)(k % 5), chi[d] = clo[d] + w;
    }
    if (steps < 1) continue;
    for (int q = 0; q <= 16; q++) {
      double x[4], y[4];
      for (int d = 0; d < 4; d++) x[d] = q == 16 ? 0.5 * (clo[d] + chi[d]) : (q >> d & 1) ? chi[d] : clo[d];
      (*claims)++;
      for (PetscInt t = 0; t < steps; t++) {
        PetscBool in = PETSC_TRUE;
        CHK(SRPlantStepSimulate(s, x, NULL, y));
        for (int d = 0; d < 4; d++) in = (PetscBool)(in && y[d] >= lo4[d] && y[d] <= hi4[d]), x[d] = y[d];
        if (!in) {
          bad++;
          break;
        }
      }
    }
  }
  CHK(SRPlantStepDestroy(&s));
  return bad;
}

static void test_ranks_and_sampled_horizons(void **state)
{
  SRPlant            pl;
  SRMLP              mlp;
  SRPlantGridOptions o;
  SRPlantGridResult  rw, rs;
  PetscInt          *h, *hs;
  PetscInt64         ks, kss, claims, bad, gbad, gclaims, ke;
  PetscMPIInt        rank, size;
  if (!jobs_dir) skip();
  CHK(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  CHK(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  Load(&pl, &mlp);
  SRPlantGridOptionsDefault(&o);
  CHK(SRClosedLoopPlantGrid(PETSC_COMM_WORLD, &pl, mlp, lo4, hi4, cnt4, &o, &rw, &h, &ks));
  if (rank == 0) { /* the same alone */
    CHK(SRClosedLoopPlantGrid(PETSC_COMM_SELF, &pl, mlp, lo4, hi4, cnt4, &o, &rs, &hs, &kss));
    print_message("tora 5^4: safe fraction %.6f, mean horizon %.4f, mean successors %.3f, digest %016llx (%d ranks and 1)\n", rw.safe_fraction, rw.mean_horizon, rw.mean_successors, (unsigned long long)rw.digest, size);
    assert_true(rw.safe_fraction == rs.safe_fraction && rw.mean_horizon == rs.mean_horizon && rw.digest == rs.digest && rw.iterations == rs.iterations);
    assert_true(rw.mean_successors == rs.mean_successors && rw.nonfinite == rs.nonfinite && rw.safe_cells == rs.safe_cells);
    CHK(PetscFree(hs));
  }
  SRVerifyOwnership(rw.K, size, rank, &ks, &ke);
  bad = BrokenClaims(&pl, mlp, &o, h, ks, ke - ks, &claims);
  CHK(MPI_Allreduce(&bad, &gbad, 1, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
  CHK(MPI_Allreduce(&claims, &gclaims, 1, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
  if (rank == 0) print_message("%lld sampled horizon claims, %lld broken\n", (long long)gclaims, (long long)gbad);
  assert_true(gclaims > 0); /* else the check is vacuous */
  assert_int_equal(gbad, 0);
  CHK(PetscFree(h));
  /* planted: every flow enclosure shrunk by 60 %: claims beyond the truth must show */
  o.period.flow.shrink = 0.6;
  CHK(SRClosedLoopPlantGrid(PETSC_COMM_WORLD, &pl, mlp, lo4, hi4, cnt4, &o, &rw, &h, &ks));
  SRVerifyOwnership(rw.K, size, rank, &ks, &ke);
  bad = BrokenClaims(&pl, mlp, &o, h, ks, ke - ks, &claims);
  CHK(MPI_Allreduce(&bad, &gbad, 1, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
  if (rank == 0) print_message("planted shrink: %lld broken horizon claims\n", (long long)gbad);
  assert_true(gbad > 0);
  CHK(PetscFree(h));
  SRPlantFree(&pl);
  CHK(SRMLPDestroy(&mlp));
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_ranks_and_sampled_horizons),
  };
  int fails;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SRTestJobsDir(&jobs_dir));
  fails = cmocka_run_group_tests_name("closedloop_plant", tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return fails;
}
