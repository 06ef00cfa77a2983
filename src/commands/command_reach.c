/* simreach reach: bounded reachability on an abstraction file (SPEC §12).

     simreach reach ABS.h5 -init lo0,hi0[,lo1,hi1[,lo2,hi2]] -steps N
     simreach reach RESULTS.h5 (-run r | -run_beta b -run_tau t -run_seed s) -init ... -steps N

   On a results file, the graph is the abstraction a finished run certified at its end (its
   final partition and lists; src/study/closedloop_results.c).

   R_0 = the cells whose (outward-rounded) box meets the initial box X0 (a superset of the
   cells X0 touches), R_t = the union of C(k) over R_{t-1}.  Prints |R_t|, vol(R_t)/vol(D) and
   whether the sink (leaving D) is reachable, step by step; every real trajectory from X0 is in
   R_t at step t.  Unverified cells (failures, NaN/Inf enclosures) are given the sink. */
#include <simreach/private/commands.h>
#include <simreach/private/h5attr.h>
#include <simreach/private/closedloop_results.h>
#include <petsctime.h>

PetscErrorCode SRCommandReach(MPI_Comm comm, const char file[])
{
  double             init[2 * SR_MAX_DIM];
  PetscInt           ninit = 2 * SR_MAX_DIM, steps = 10, sink_step;
  PetscBool          has_init, sel_set, reprove = PETSC_TRUE, reproven;
  char               note[PETSC_MAX_PATH_LEN + 200];
  SRRunSelect        sel;
  SRClosedLoopSource src;
  SRIndexGraphStore  gs;
  SRAxes             ax;
  PetscInt64        *ncells, m, nin = 0, nin_g;
  double            *vol, lo[SR_MAX_DIM], hi[SR_MAX_DIM];
  unsigned char     *x0;
  PetscLogDouble     t0, t1;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "simreach reach: bounded reachability on an abstraction file (SPEC §12)", NULL);
  PetscCall(PetscOptionsRealArray("-init", "initial box X0 as lo,hi per dimension: lo0,hi0,lo1,hi1,...", NULL, init, &ninit, &has_init));
  PetscCall(PetscOptionsInt("-steps", "number of steps N", NULL, steps, &steps, NULL));
  PetscCall(PetscOptionsBool("-reprove", "re-prove the abstraction file's lists before saying verified (docs/files.md)", NULL, reprove, &reprove, NULL));
  PetscCall(SRRunSelectOptions(PetscOptionsObject, comm, &sel, &sel_set));
  PetscOptionsEnd();
  PetscCheck(file && file[0], comm, PETSC_ERR_ARG_WRONG, "simreach reach: give the abstraction file, e.g. simreach reach abs.h5 -init -0.1,0.1,-0.1,0.1 -steps 20");
  PetscCheck(steps >= 0 && steps <= 1000000, comm, PETSC_ERR_ARG_OUTOFRANGE, "-steps %" PetscInt_FMT ": allowed are 0 to 1000000", steps);
  PetscCheck(has_init, comm, PETSC_ERR_ARG_WRONG, "simreach reach: give the initial box, -init lo0,hi0,... (two numbers per dimension)");
  PetscCall(SRCheckUnusedOptions(comm));
  PetscCall(SRH5CheckTruncated(comm, file)); /* named as truncated (issue 34) */
  PetscCall(SRClosedLoopSourceOpen(comm, file, sel_set ? &sel : NULL, &src));
  gs = src.gs;
  ax = src.ax;
  PetscCheck(ninit == 2 * ax->n, comm, PETSC_ERR_ARG_WRONG, "-init: %" PetscInt_FMT " numbers given; the system of %s has dimension %" PetscInt_FMT ", so give %" PetscInt_FMT " (lo,hi per dimension)", ninit, file, ax->n, 2 * ax->n);
  for (PetscInt d = 0; d < ax->n; d++) {
    lo[d] = init[2 * d];
    hi[d] = init[2 * d + 1];
    PetscCheck(!PetscIsInfOrNanReal(lo[d]) && !PetscIsInfOrNanReal(hi[d]) && lo[d] <= hi[d], comm, PETSC_ERR_ARG_OUTOFRANGE, "-init: dimension %" PetscInt_FMT " is [%g, %g]; give finite lo <= hi", d, lo[d], hi[d]);
  }
  m = gs.g.kend - gs.g.kstart;
  PetscCall(PetscMalloc3(PetscMax(m, 1), &x0, steps + 1, &ncells, steps + 1, &vol));
  for (PetscInt64 k = 0; k < m; k++) {
    double    blo[SR_MAX_DIM], bhi[SR_MAX_DIM];
    PetscBool meets = PETSC_TRUE;
    SRAxesCellBox(ax, gs.g.kstart + k, blo, bhi);
    for (PetscInt d = 0; d < ax->n; d++)
      if (bhi[d] < lo[d] || blo[d] > hi[d]) meets = PETSC_FALSE;
    x0[k] = meets ? 1 : 0;
    nin += meets;
  }
  PetscCallMPI(MPI_Allreduce(&nin, &nin_g, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCheck(nin_g > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-init: the box meets no cell of D in %s", file);
  PetscCall(SRReproveSource(comm, "reach", file, (PetscBool)(src.af != NULL), reprove, &reproven, note, sizeof note)); /* before any answer (issue 34) */
  PetscCallMPI(MPI_Barrier(comm));
  PetscCall(PetscTime(&t0));
  PetscCall(SRClosedLoopReach(comm, &gs.g, x0, steps, ncells, vol, &sink_step, NULL));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(comm, "reach: %s, K = %" PetscInt64_FMT " cells, %" PetscInt64_FMT " unverified (given the sink), X0 meets %" PetscInt64_FMT " cells\n", src.label, ax->K, gs.unverified, nin_g));
  PetscCall(PetscPrintf(comm, "| step | cells | vol / vol(D) | sink reachable |\n|---|---|---|---|\n"));
  for (PetscInt t = 0; t <= steps; t++) PetscCall(PetscPrintf(comm, "| %" PetscInt_FMT " | %" PetscInt64_FMT " | %.6g | %s |\n", t, ncells[t], vol[t], sink_step >= 0 && t >= sink_step ? "yes" : "no"));
  if (sink_step >= 0) PetscCall(PetscPrintf(comm, "reach: the sink (leaving D) is reachable from X0 at step %" PetscInt_FMT ": safety from X0 is NOT verified for %" PetscInt_FMT " steps\n", sink_step, steps));
  else PetscCall(PetscPrintf(comm, "reach: the sink is not reachable within %" PetscInt_FMT " steps: every trajectory from X0 stays in D for %" PetscInt_FMT " steps %s%s%s\n", steps, steps, reproven ? "(verified); the lists: " : "(NOT verified here: ", note, reproven ? "" : ")"));
  PetscCall(PetscPrintf(comm, "reach: %.3f s (%.2e s per step)\n", t1 - t0, (t1 - t0) / PetscMax(steps, 1)));
  PetscCall(PetscFree3(x0, ncells, vol));
  PetscCall(SRClosedLoopSourceClose(&src));
  PetscFunctionReturn(PETSC_SUCCESS);
}
