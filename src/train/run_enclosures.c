/* The final enclosures E_k of a run (SPEC §5, §6), stored by the study in /runs/enclosures
   (analysis/results-schema.md) so that a reader can draw the learned cells with the boxes the
   abstraction was certified from: per cell, the run's own enclosure (-enclosure) and the
   tightest one behind |M_tight| (SRMetricsTight), for the network and cells the run holds now
   (after SRRunSolve: its last checkpoint's, or the last verified triple of a diverged run). */
#include <simreach/private/run.h>

PetscErrorCode SRRunGetFinalEnclosures(SRRun r, double *E)
{
  const PetscInt n = r->cells->n, K = r->cells->K, w = 4 * n;
  PetscInt       ks, ke, *blk;
  PetscMPIInt    size, *cnt, *dsp;
  double        *Er, *Et, *loc;
  SRCellStatus  *st;
  SRTightMetrics tm;

  PetscFunctionBeginUser;
  PetscCheck(r->setup, r->comm, PETSC_ERR_ARG_WRONGSTATE, "SRRunGetFinalEnclosures: call SRRunSetUp first");
  PetscCallMPI(MPI_Comm_size(r->comm, &size));
  PetscCall(SRAbstractionGetOwnership(r->abs, K, &ks, &ke));
  PetscCall(PetscMalloc4(2 * n * PetscMax(ke - ks, 1), &Er, 2 * n * PetscMax(ke - ks, 1), &Et, w * PetscMax(ke - ks, 1), &loc, PetscMax(ke - ks, 1), &st));
  PetscCall(SREnclosureCompute(r->model, r->enclosure, r->cells, ks, ke, Er, st));
  PetscCall(SRMetricsTight(r->comm, r->abs, r->model, r->cells, r->tight_bisect, r->floor_points, &tm, Et));
  for (PetscInt k = 0; k < ke - ks; k++) {
    PetscCall(PetscArraycpy(loc + w * k, Er + 2 * n * k, 2 * n));
    PetscCall(PetscArraycpy(loc + w * k + 2 * n, Et + 2 * n * k, 2 * n));
  }
  PetscCall(PetscMalloc3(size, &cnt, size, &dsp, 2 * size, &blk));
  {
    const PetscInt mine[2] = {ks, ke};
    PetscCallMPI(MPI_Allgather(mine, 2, MPIU_INT, blk, 2, MPIU_INT, r->comm));
  }
  for (PetscMPIInt q = 0; q < size; q++) {
    PetscCall(PetscMPIIntCast(w * (blk[2 * q + 1] - blk[2 * q]), &cnt[q]));
    PetscCall(PetscMPIIntCast(w * blk[2 * q], &dsp[q]));
  }
  PetscCallMPI(MPI_Allgatherv(loc, cnt[r->rank], MPI_DOUBLE, E, cnt, dsp, MPI_DOUBLE, r->comm));
  PetscCall(PetscFree3(cnt, dsp, blk));
  PetscCall(PetscFree4(Er, Et, loc, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}
