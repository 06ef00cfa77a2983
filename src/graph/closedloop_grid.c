/* The closed-loop answer of a run (SPEC §9, §12): its network verified on a grid of D finer than
   the training cells (the verification of SPEC §10: enclosures bisected to a depth, index-box
   lists C(k) = M(k), exact containment), then the verified-safe volume fraction and the mean
   verified horizon on that grid.  The same numbers as `simreach verify -cells ... -output A`
   followed by `simreach safe A`: a cell whose enclosure is not finite or whose list fails the
   containment test gets the sink (closedloop_file.c does the same when it reads A).

   Distributed like the verification: rank r encloses its block of SRVerifyOwnership; the fixed
   point (SRClosedLoopSafe) and the exact fixed-point sum of the horizons make both numbers
   independent of the rank count. */
#include <simreach/closedloop.h>
#include <simreach/verify.h>

#include <math.h>

PetscErrorCode SRClosedLoopGrid(MPI_Comm comm, SRModel model, SRSystem sys, const PetscInt counts[], SREnclosureType type, PetscInt depth, PetscInt cap, double *frac, double *mean)
{
  const PetscInt n = sys->n, rl = SRListRowLength(n);
  SRAxes         ax;
  SRIndexGraph   g;
  PetscMPIInt    size, rank;
  PetscInt64     ks, ke, m;
  PetscInt      *lo, *hi, *h, it;
  PetscBool     *sink;
  double        *bounds[SR_MAX_DIM], *boxes, *E, vD = 1;
  int32_t       *rows;
  SRCellStatus  *st;
  int64_t        loc = 0, glob;

  PetscFunctionBeginUser;
  PetscCheck(model->n == n, comm, PETSC_ERR_ARG_INCOMP, "the network maps dimension %" PetscInt_FMT ", -sys %s has dimension %" PetscInt_FMT, model->n, sys->name, n);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(SRAxesCreateGrid(sys, counts, &ax));
  SRVerifyOwnership(ax->K, size, rank, &ks, &ke);
  m = ke - ks;
  PetscCall(PetscMalloc4(PetscMax(m, 1) * n, &lo, PetscMax(m, 1) * n, &hi, PetscMax(m, 1), &sink, PetscMax(m, 1), &h));
  PetscCall(PetscMalloc4(2 * n * PetscMax(m, 1), &boxes, 2 * n * PetscMax(m, 1), &E, rl * PetscMax(m, 1), &rows, PetscMax(m, 1), &st));
  for (PetscInt64 c = 0; c < m; c++) SRAxesCellBox(ax, ks + c, boxes + 2 * n * c, boxes + 2 * n * c + n);
  if (m > 0) PetscCall(SREnclosureComputeBisected(model, type, depth, (PetscInt)m, boxes, E, st));
  for (PetscInt64 c = 0; c < m; c++) {
    int32_t  *row = rows + rl * c;
    PetscBool ok  = (PetscBool)(st[c] == SR_CELL_OK);
    if (ok) {
      SRAxesIndexBox(ax, E + 2 * n * c, E + 2 * n * c + n, row);
      ok = SRAxesContains(ax, row, E + 2 * n * c, E + 2 * n * c + n, NULL);
    }
    for (PetscInt d = 0; d < n; d++) {
      lo[c * n + d] = ok ? row[d] : 0;
      hi[c * n + d] = ok ? row[n + d] : -1;
    }
    sink[c] = (PetscBool)(!ok || (row[2 * n] & SR_LIST_SINK));
  }
  PetscCall(PetscMemzero(&g, sizeof(g)));
  g.n      = n;
  g.kstart = ks;
  g.kend   = ke;
  g.lo     = lo;
  g.hi     = hi;
  g.sink   = sink;
  for (PetscInt d = 0; d < n; d++) {
    g.counts[d] = ax->N[d];
    PetscCall(PetscMalloc1(ax->N[d] + 1, &bounds[d]));
    /* as closedloop_file.c reads an abstraction file: the midpoints of the boundary enclosures */
    for (PetscInt i = 0; i <= ax->N[d]; i++) bounds[d][i] = 0.5 * ax->glo[d][i] + 0.5 * ax->ghi[d][i];
    g.bounds[d] = bounds[d];
    vD *= bounds[d][ax->N[d]] - bounds[d][0];
  }
  PetscCall(SRClosedLoopSafe(comm, &g, PETSC_MAX_INT, h, &it, frac));
  /* min(h, cap) weighted by vol(cell) / vol(D), each term rounded to 2^-40, summed exactly */
  for (PetscInt64 c = 0; c < m; c++) {
    PetscInt64 k = ks + c;
    double     v = 1;
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt i = (PetscInt)(k % ax->N[d]);
      k /= ax->N[d];
      v *= bounds[d][i + 1] - bounds[d][i];
    }
    loc += (int64_t)llround(ldexp(v / vD * (double)PetscMin(h[c], cap), 40));
  }
  PetscCallMPI(MPI_Allreduce(&loc, &glob, 1, MPI_INT64_T, MPI_SUM, comm));
  *mean = ldexp((double)glob, -40);
  for (PetscInt d = 0; d < n; d++) PetscCall(PetscFree(bounds[d]));
  PetscCall(PetscFree4(boxes, E, rows, st));
  PetscCall(PetscFree4(lo, hi, sink, h));
  PetscCall(SRAxesDestroy(&ax));
  PetscFunctionReturn(PETSC_SUCCESS);
}
