/* simreach safe: the verified-safe set and every cell's verified horizon (SPEC §12).

     simreach safe ABS.h5 [-output SAFE.h5 [-force]] [-trajectories 100000] [-trajectory_cap 100]
                   [-seed 1] [-max_iterations K]
     simreach safe RESULTS.h5 (-run r | -run_beta b -run_tau t -run_seed s) [options as above]

   Reads the index-box lists of an abstraction file (simreach verify), or the abstraction a
   finished run of a study certified at its end (src/study/closedloop_results.c), computes the sink's
   backward-reachable set as a fixed point (SRClosedLoopSafe), and prints the safe volume
   fraction, the horizons and the time per iteration; with -trajectories it simulates the
   stored network from uniform points of uniformly drawn cells and counts trajectories that
   leave D before their cell's verified horizon (a falsification check: it must be 0).
   -output writes the safety file (analysis/abstraction-schema.md, "The safety file").  The
   file is validated before any answer (SPEC §13).  When a trajectory violates its horizon
   nothing is claimed: no verified-safe line, no -output (an existing one is kept), exit 5. */
#include <simreach/private/commands.h>
#include <simreach/private/h5attr.h>
#include <simreach/private/fileio.h>
#include <simreach/private/closedloop_results.h>
#include <petsctime.h>
#include <sys/resource.h>

PetscErrorCode SRCommandSafe(MPI_Comm comm, const char file[])
{
  char               output[PETSC_MAX_PATH_LEN] = "";
  PetscInt           ntraj = 100000, cap = 100, seed = 1, maxit = PETSC_MAX_INT, *horizon;
  PetscBool          has_out, force = PETSC_FALSE, sel_set, reprove = PETSC_TRUE, reproven;
  char               note[PETSC_MAX_PATH_LEN + 200];
  SRRunSelect        sel;
  SRClosedLoopSource src;
  SRIndexGraphStore  gs;
  SRAxes             ax;
  SRSafetySummary    sum;
  PetscLogDouble     t0, t1;
  PetscInt64         m, loc[2] = {0, 0}, glob[2], hsum = 0, hsum_g;
  PetscInt           hmax = 0, hmax_g;
  struct rusage      ru;
  long               rss, rss_max;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "simreach safe: the verified-safe set and horizons of an abstraction file (SPEC §12)", NULL);
  PetscCall(PetscOptionsString("-output", "safety file to write (per-cell horizons and the summary)", NULL, output, output, sizeof(output), &has_out));
  PetscCall(PetscOptionsBool("-force", "replace an existing -output file", NULL, force, &force, NULL));
  PetscCall(PetscOptionsInt("-trajectories", "sampled trajectories of the real network checked against the horizons (0 = none)", NULL, ntraj, &ntraj, NULL));
  PetscCall(PetscOptionsInt("-trajectory_cap", "steps simulated from a safe cell (horizon infinite)", NULL, cap, &cap, NULL));
  PetscCall(PetscOptionsInt("-seed", "seed of the sampled trajectories", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-max_iterations", "bound on the fixed-point iterations (default: until the fixed point)", NULL, maxit, &maxit, NULL));
  PetscCall(PetscOptionsBool("-reprove", "re-prove the abstraction file's lists before claiming a verified-safe set (docs/files.md)", NULL, reprove, &reprove, NULL));
  PetscCall(SRRunSelectOptions(PetscOptionsObject, comm, &sel, &sel_set));
  PetscOptionsEnd();
  PetscCheck(file && file[0], comm, PETSC_ERR_ARG_WRONG, "simreach safe: give the abstraction file, e.g. simreach safe abs.h5 (written by simreach verify -output)");
  PetscCheck(ntraj >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-trajectories %" PetscInt_FMT ": allowed are 0 or more", ntraj);
  PetscCheck(cap >= 1 && cap <= 1000000, comm, PETSC_ERR_ARG_OUTOFRANGE, "-trajectory_cap %" PetscInt_FMT ": allowed are 1 to 1000000", cap);
  PetscCheck(maxit >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-max_iterations %" PetscInt_FMT ": allowed are 1 or more", maxit);
  PetscCheck(seed >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-seed %" PetscInt_FMT ": allowed are 0 or more", seed);
  PetscCall(SRCheckUnusedOptions(comm));
  if (has_out) PetscCall(SRFileCheckOutput(comm, "-output", output, force)); /* before the work (issue 34) */

  PetscCall(SRH5CheckTruncated(comm, file)); /* named as truncated (issue 34) */
  PetscCall(SRClosedLoopSourceOpen(comm, file, sel_set ? &sel : NULL, &src));
  gs = src.gs;
  ax = src.ax;
  m = gs.g.kend - gs.g.kstart;
  PetscCall(PetscMalloc1(PetscMax(m, 1), &horizon));
  PetscCall(PetscMemzero(&sum, sizeof(sum)));
  sum.K = 1;
  for (PetscInt d = 0; d < gs.g.n; d++) sum.K *= gs.g.counts[d];
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(SRClosedLoopSafe(comm, &gs.g, maxit, horizon, &sum.iterations, &sum.safe_fraction));
  PetscCall(PetscTime(&t1));
  sum.time_total = t1 - t0;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &sum.time_total, 1, MPI_DOUBLE, MPI_MAX, comm));
  for (PetscInt64 k = 0; k < m; k++) {
    if (horizon[k] == SR_HORIZON_SAFE) loc[0]++;
    else {
      loc[1]++;
      hsum += horizon[k];
      hmax = PetscMax(hmax, horizon[k]);
    }
  }
  PetscCallMPI(MPI_Allreduce(loc, glob, 2, MPIU_INT64, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&hsum, &hsum_g, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&hmax, &hmax_g, 1, MPIU_INT, MPI_MAX, comm));
  sum.safe_cells   = glob[0];
  sum.unverified   = gs.unverified;
  sum.max_horizon  = hmax_g;
  sum.mean_horizon = glob[1] ? (double)hsum_g / (double)glob[1] : 0;
  sum.traj_cap     = cap;
  PetscCall(PetscPrintf(comm, "safe: %s, K = %" PetscInt64_FMT " cells, %" PetscInt64_FMT " unverified (given the sink)\n", src.label, sum.K, sum.unverified));
  /* the sampled trajectories first: a set they contradict is never printed nor written (SPEC §12, §13) */
  if (ntraj > 0) {
    PetscCall(SRClosedLoopTrajectoryCheck(comm, src.model, ax, &gs.g, horizon, ntraj, cap, (uint64_t)seed, &sum.traj));
    PetscCall(PetscPrintf(comm, "safe: %" PetscInt64_FMT " sampled trajectories of the network (%" PetscInt64_FMT " from cells with horizon >= 1, %" PetscInt64_FMT " steps): %" PetscInt64_FMT " left D before their verified horizon%s\n", sum.traj.trajectories, sum.traj.with_claim, sum.traj.steps, sum.traj.violations, sum.traj.violations ? "  <-- UNSOUND" : ""));
  }
  if (sum.traj.violations) {
    PetscCall(PetscFree(horizon));
    PetscCall(SRClosedLoopSourceClose(&src));
    SETERRQ(comm, SR_ERR_UNSOUND, "%s: %" PetscInt64_FMT " sampled trajectories left D before their cell's verified horizon: its lists are unsound, no verified-safe set is claimed%s (re-prove them: simreach check %s)", file, sum.traj.violations, has_out ? " and -output is not written" : "", file);
  }
  PetscCall(SRReproveSource(comm, "safe", file, (PetscBool)(src.af != NULL), reprove, &reproven, note, sizeof note)); /* before any claim (issue 34) */
  PetscCall(PetscPrintf(comm, "safe: the lists of %s: %s\n", file, note));
  PetscCall(PetscPrintf(comm, "safe: %s set %" PetscInt64_FMT " cells, %.6f of vol(D); the other %" PetscInt64_FMT " cells stay in D for %.2f steps on average (max %" PetscInt_FMT ")\n", reproven ? "verified-safe" : "safe (given the stored lists, NOT verified here)", sum.safe_cells, sum.safe_fraction, glob[1], sum.mean_horizon, sum.max_horizon));
  PetscCall(PetscPrintf(comm, "safe: fixed point after %" PetscInt_FMT " iterations, %.3f s in all, %.2e s per iteration\n", sum.iterations, sum.time_total, sum.time_total / PetscMax(sum.iterations, 1)));
  getrusage(RUSAGE_SELF, &ru);
  rss = ru.ru_maxrss;
  PetscCallMPI(MPI_Allreduce(&rss, &rss_max, 1, MPI_LONG, MPI_MAX, comm));
  PetscCall(PetscPrintf(comm, "safe: max RSS per rank %.1f MB\n", rss_max / 1024.0));
  if (has_out) { /* with what it is about, so that simreach check can recompute it (SPEC §13) */
    SRSafetyHeader sh;
    PetscCall(PetscMemzero(&sh, sizeof sh));
    PetscCall(PetscStrncpy(sh.sys, src.sys->name, sizeof sh.sys));
    PetscCall(PetscStrncpy(sh.plant, src.sys->plant_path, sizeof sh.plant)); /* SPEC §16 */
    sh.plant_digest = src.sys->plant_digest;
    PetscCall(PetscStrncpy(sh.label, src.label, sizeof sh.label));
    PetscCall(PetscStrncpy(sh.source, file, sizeof sh.source));
    sh.run  = !sel_set ? -1 : (sel.by_point ? -2 : sel.run);
    sh.beta = sel_set && sel.by_point ? sel.beta : 0;
    sh.tau  = sel_set && sel.by_point ? sel.tau : 0;
    sh.seed = sel_set && sel.by_point ? sel.seed : 0;
    sh.n    = ax->n;
    for (PetscInt d = 0; d < ax->n; d++) {
      sh.counts[d] = ax->N[d];
      sh.dlo[d]    = ax->dlo[d];
      sh.dhi[d]    = ax->dhi[d];
    }
    sh.sum = sum;
    PetscCall(SRSafetyFileWrite(comm, output, force, &sh, &gs.g, horizon));
  }
  PetscCall(PetscFree(horizon));
  PetscCall(SRClosedLoopSourceClose(&src));
  PetscFunctionReturn(PETSC_SUCCESS);
}
