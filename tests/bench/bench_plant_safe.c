/* The verified-safe set of an ARCH closed loop on a fine grid (SPEC §16, §12), split over the
   ranks: src/graph/closedloop_plant.c, then sampled closed-loop trajectories from safe cells
   (a falsification check: none may leave D).  Prints the figures of docs/arch.md "Scale", the
   wall time, the CPU time summed over ranks and the peak RSS of the largest rank.  A benchmark,
   not a test (tests/plant_safe_ranks.sh compares 1 and 2 ranks on a small grid).
     mpiexec -n R bench_plant_safe PLANT NETWORK "lo1,hi1,lo2,hi2,..."|- "N1,N2,..." [interval|forward|crown]
   (REGION -: the plant file's domain lines) */
#include <simreach/network.h>
#include <simreach/private/closedloop_plant.h>
#include <simreach/verify.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
  SRPlant            pl;
  SRMLP              mlp;
  SRPlantGridOptions o;
  SRPlantGridResult  r;
  PetscInt           counts[SR_MAX_DIM], *h, nc = 0;
  PetscInt64         ks, traj = 0, viol = 0;
  double             dlo[SR_MAX_DIM], dhi[SR_MAX_DIM], t0, wall;
  PetscMPIInt        size, rank;
  char              *s, *tok;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCheck(argc >= 5, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "usage: bench_plant_safe PLANT NETWORK REGION COUNTS [interval]");
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(SRPlantRead(PETSC_COMM_WORLD, argv[1], &pl));
  PetscCall(SRNetworkLoad(PETSC_COMM_WORLD, argv[2], NULL, &mlp));
  s = argv[3];
  for (PetscInt i = 0; !strcmp(s, "-") && i < pl.n; i++) { /* the file's domain lines (SPEC §16) */
    PetscCheck(pl.has_domain[i], PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "REGION -: plant file %s has no 'domain %s in [LO, HI]' line", argv[1], pl.state[i]);
    dlo[i] = pl.dlo[i], dhi[i] = pl.dhi[i];
  }
  for (PetscInt i = 0; strcmp(s, "-") && i < 2 * pl.n; i++) {
    tok = strtok(i ? NULL : s, ",");
    PetscCheck(tok, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "REGION needs %d numbers", 2 * pl.n);
    (i % 2 ? dhi : dlo)[i / 2] = atof(tok);
  }
  for (tok = strtok(argv[4], ","); tok && nc < SR_MAX_DIM; tok = strtok(NULL, ",")) counts[nc++] = atoi(tok);
  PetscCheck(nc == pl.n, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "COUNTS needs %d numbers", pl.n);
  SRPlantGridOptionsDefault(&o);
  if (argc > 5 && !strcmp(argv[5], "interval")) o.affine = PETSC_FALSE;
  if (argc > 5 && !strcmp(argv[5], "forward")) o.how = SR_NET_FORWARD;
  if (argc > 5 && !strcmp(argv[5], "crown")) o.how = SR_NET_CROWN;
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  t0 = MPI_Wtime();
  PetscCall(SRClosedLoopPlantGrid(PETSC_COMM_WORLD, &pl, mlp, dlo, dhi, counts, &o, &r, &h, &ks));
  wall = MPI_Wtime() - t0;
  { /* from the centre of every 61st safe cell: 100 periods of the closed loop, simulated */
    SRPlantStep st;
    PetscInt64  m = 0, K = r.K, kend;
    PetscCall(SRPlantStepCreate(&pl, mlp, PETSC_TRUE, SR_NET_BEST, &o.period, &st));
    SRVerifyOwnership(K, size, rank, &ks, &kend);
    m = kend - ks;
    for (PetscInt64 c = 0; c < m; c++) {
      double     x[SR_MAX_DIM], y[SR_MAX_DIM];
      PetscInt64 k = ks + c;
      if (h[c] != SR_HORIZON_SAFE || (ks + c) % 61) continue;
      for (PetscInt d = 0; d < pl.n; d++, k /= counts[d - 1]) x[d] = dlo[d] + (dhi[d] - dlo[d]) * ((double)(k % counts[d]) + 0.5) / counts[d];
      traj++;
      for (int t = 0; t < 100; t++) {
        PetscBool in = PETSC_TRUE;
        PetscCall(SRPlantStepSimulate(st, x, NULL, y));
        for (PetscInt d = 0; d < pl.n; d++) in = (PetscBool)(in && y[d] >= dlo[d] && y[d] <= dhi[d]), x[d] = y[d];
        if (!in) {
          viol++;
          break;
        }
      }
    }
    PetscCall(SRPlantStepDestroy(&st));
  }
  {
    struct rusage ru;
    double        cpu, cpus, rss, rssmax;
    PetscInt64    tv[2] = {traj, viol}, tg[2];
    getrusage(RUSAGE_SELF, &ru);
    cpu = ru.ru_utime.tv_sec + 1e-6 * ru.ru_utime.tv_usec + ru.ru_stime.tv_sec + 1e-6 * ru.ru_stime.tv_usec;
    rss = (double)ru.ru_maxrss / 1024.0;
    PetscCallMPI(MPI_Allreduce(&cpu, &cpus, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Allreduce(&rss, &rssmax, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    PetscCallMPI(MPI_Allreduce(tv, tg, 2, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "plant %s network %s: %" PetscInt64_FMT " cells on %d ranks, %s network enclosure\n", argv[1], argv[2], r.K, size, !o.affine ? "interval" : o.how == SR_NET_FORWARD ? "affine forward" : o.how == SR_NET_CROWN ? "affine crown" : "affine best (forward and crown)"));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "result: verified-safe fraction %.6f (%" PetscInt64_FMT " cells), mean horizon %.4f (cap %" PetscInt_FMT "), fixed-point iterations %" PetscInt_FMT ", mean successors %.3f, enclosures failed %" PetscInt64_FMT ", digest %016llx\n", r.safe_fraction, r.safe_cells, r.mean_horizon, o.cap, r.iterations, r.mean_successors, r.nonfinite, (unsigned long long)r.digest));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "sampled: %" PetscInt64_FMT " closed-loop trajectories of 100 periods from safe cells, %" PetscInt64_FMT " left D\n", tg[0], tg[1]));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "time: wall %.2f s (enclosures %.2f s, lists %.2f s, fixed point %.2f s; max over ranks), CPU %.2f s summed over ranks, %.1f us CPU per cell; peak RSS %.1f MB (largest rank)\n", wall, r.time_enclose, r.time_lists, r.time_safe, cpus, 1e6 * cpus / (double)r.K, rssmax));
  }
  PetscCall(PetscFree(h));
  PetscCall(SRMLPDestroy(&mlp));
  SRPlantFree(&pl);
  PetscCall(PetscFinalize());
  return 0;
}
