/* simreach check SAFE.h5 on a safety file of `simreach safe -output` (SPEC §12, §13): the file is
   validated (format, checksums, domain, rows against the summary), then its answer is
   recomputed from the abstraction it names (the abstraction file, or the run of a results file;
   validated in turn) and compared cell by cell: exit 0 only when every horizon and the
   verified-safe set are the ones the stored lists give.  The lists themselves are re-proven by
   `simreach check` on the abstraction (the line printed says so). */
#include <simreach/private/commands.h>
#include <simreach/private/closedloop_results.h>

PetscErrorCode SRCommandCheckSafety(MPI_Comm comm, const char file[], int *exit_code)
{
  SRSafetyHeader     h;
  SRRunSelect        sel;
  SRClosedLoopSource src;
  PetscInt          *stored, *again, niter;
  PetscInt64         ks, ke, diff = -1, gdiff;
  double             frac;

  PetscFunctionBeginUser;
  *exit_code = SR_EXIT_UNPROVEN;
  PetscCall(SRCheckUnusedOptions(comm));
  PetscCall(SRSafetyFileOpen(comm, file, &h, &stored, &ks, &ke));
  PetscCall(PetscMemzero(&sel, sizeof sel));
  sel.run      = h.run;
  sel.by_point = (PetscBool)(h.run == -2);
  sel.beta     = h.beta;
  sel.tau      = h.tau;
  sel.seed     = (PetscInt)h.seed;
  PetscCall(SRClosedLoopSourceOpen(comm, h.source, h.run == -1 ? NULL : &sel, &src));
  PetscCheck(src.gs.g.kstart == ks && src.gs.g.kend == ke && src.ax->K == h.sum.K, comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: %lld cells; its source %s has %lld", file, (long long)h.sum.K, h.source, (long long)src.ax->K);
  for (PetscInt d = 0; d < h.n; d++) PetscCheck(src.ax->N[d] == h.counts[d], comm, PETSC_ERR_FILE_UNEXPECTED, "safety file %s: attribute counts row %" PetscInt_FMT " is %" PetscInt_FMT "; its source %s has %" PetscInt_FMT, file, d, h.counts[d], h.source, (PetscInt)src.ax->N[d]);
  PetscCall(PetscMalloc1(PetscMax(ke - ks, 1), &again));
  PetscCall(SRClosedLoopSafe(comm, &src.gs.g, PETSC_MAX_INT, again, &niter, &frac));
  for (PetscInt64 k = 0; k < ke - ks && diff < 0; k++)
    if (again[k] != stored[k]) diff = ks + k;
  if (diff < 0) diff = INT64_MAX;
  PetscCallMPI(MPI_Allreduce(&diff, &gdiff, 1, MPIU_INT64, MPI_MIN, comm));
  PetscCall(PetscFree(again));
  PetscCall(PetscFree(stored));
  PetscCall(SRClosedLoopSourceClose(&src));
  if (gdiff != INT64_MAX || frac != h.sum.safe_fraction) {
    PetscCall(PetscPrintf(comm, "simreach check %s: the stored answer is NOT the one %s gives (%s%" PetscInt64_FMT "; safe fraction stored %.17g, recomputed %.17g): nothing in it is verified\n", file, h.label, gdiff != INT64_MAX ? "first differing horizon: cell " : "horizons equal, ", gdiff != INT64_MAX ? gdiff : (PetscInt64)0, h.sum.safe_fraction, frac));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscPrintf(comm, "simreach check %s (safety file): every horizon and the %lld safe cells (%.6f of vol(D)) recomputed from %s -> equal; the lists themselves are re-proven by simreach check on the abstraction\n", file, (long long)h.sum.safe_cells, h.sum.safe_fraction, h.label));
  *exit_code = SR_EXIT_OK;
  PetscFunctionReturn(PETSC_SUCCESS);
}
