/* The closed-loop questions of SPEC §12 asked at a study's checkpoint: the verified-safe volume
   fraction and the mean verified horizon of the run's partition, once with its certified lists
   C(k) and once with M_tight(k) (the cells meeting the tightest enclosure) — where a smaller
   abstraction pays off.

   A list becomes an index box: the partition's index ranges of the enclosure (M_tight), or the
   bounding index box of the explicit list (C; a superset, so the answers stay sound).  Cells
   whose enclosure is not finite get the sink.  Only partition cells (and the grid) have index
   boxes: for free boxes the values are NaN. */
#include <simreach/closedloop.h>
#include <simreach/cells.h>
#include <simreach/private/closedloop_file.h>

#include <math.h>

/* min(h, cap) weighted by vol(Psi_k) / vol(D), each term rounded to 2^-40 and summed exactly
   (independent of the rank count); safe cells count cap. */
static PetscErrorCode SRMeanHorizon_Private(MPI_Comm comm, SRCells cells, PetscInt ks, PetscInt ke, const PetscInt *h, PetscInt cap, double *mean)
{
  const PetscInt n = cells->n;
  double         vD = 1;
  int64_t        loc = 0, glob;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < n; d++) vD *= cells->dhi[d] - cells->dlo[d];
  for (PetscInt k = ks; k < ke; k++) {
    PetscInt idx[SR_MAX_DIM];
    double   v = 1;
    SRCellsIndex(cells, k, idx);
    for (PetscInt d = 0; d < n; d++) {
      PetscInt      m;
      const double *b = SRCellsPartitionBoundaries(cells, d, &m);
      v *= b[idx[d] + 1] - b[idx[d]];
    }
    loc += (int64_t)llround(ldexp(v / vD * (double)PetscMin(h[k - ks], cap), 40));
  }
  PetscCallMPI(MPI_Allreduce(&loc, &glob, 1, MPI_INT64_T, MPI_SUM, comm));
  *mean = ldexp((double)glob, -40);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRSafeOf_Private(MPI_Comm comm, SRCells cells, PetscInt ks, PetscInt ke, PetscInt *lo, PetscInt *hi, PetscBool *sink, PetscInt cap, double *frac, double *mean)
{
  SRIndexGraph g;
  PetscInt    *h, it;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&g, sizeof(g)));
  g.n      = cells->n;
  g.kstart = ks;
  g.kend   = ke;
  g.lo     = lo;
  g.hi     = hi;
  g.sink   = sink;
  for (PetscInt d = 0; d < cells->n; d++) g.bounds[d] = SRCellsPartitionBoundaries(cells, d, &g.counts[d]);
  PetscCall(PetscMalloc1(PetscMax(ke - ks, 1), &h));
  PetscCall(SRClosedLoopSafe(comm, &g, PETSC_MAX_INT, h, &it, frac));
  PetscCall(SRMeanHorizon_Private(comm, cells, ks, ke, h, cap, mean));
  PetscCall(PetscFree(h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRClosedLoopCheckpoint(MPI_Comm comm, SRCells cells, PetscInt ks, PetscInt ke, const PetscInt *Crows, const double *E_tight, PetscInt cap, SRClosedLoopMetrics *m)
{
  const PetscInt n = cells->n, nk = PetscMax(ke - ks, 1), rl = 2 * n + 1;
  PetscInt      *lo, *hi;
  PetscBool     *sink;

  PetscFunctionBeginUser;
  m->safe_C = m->horizon_C = m->safe_tight = m->horizon_tight = NAN;
  if (!cells->partition) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc3(nk * n, &lo, nk * n, &hi, nk, &sink));
  /* C(k): its index box */
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt *row   = Crows + rl * (k - ks);
    PetscBool       empty = PETSC_FALSE;
    for (PetscInt d = 0; d < n; d++) empty = (PetscBool)(empty || row[d] > row[n + d]);
    for (PetscInt d = 0; d < n; d++) {
      lo[(k - ks) * n + d] = empty ? 0 : row[d];
      hi[(k - ks) * n + d] = empty ? -1 : row[n + d];
    }
    sink[k - ks] = (PetscBool)(row[2 * n] != 0);
  }
  PetscCall(SRSafeOf_Private(comm, cells, ks, ke, lo, hi, sink, cap, &m->safe_C, &m->horizon_C));
  if (E_tight) {
    /* M_tight(k): the index ranges of the tightest enclosure; the sink when it leaves D or is not finite */
    for (PetscInt k = ks; k < ke; k++) {
      const double *E = E_tight + 2 * n * (k - ks);
      PetscBool     finite = PETSC_TRUE;
      sink[k - ks] = PETSC_FALSE;
      for (PetscInt d = 0; d < n; d++) finite = (PetscBool)(finite && isfinite(E[d]) && isfinite(E[n + d]));
      for (PetscInt d = 0; d < n; d++) {
        if (finite) SRCellsPartitionRange(cells, d, E[d], E[n + d], &lo[(k - ks) * n + d], &hi[(k - ks) * n + d]);
        else {
          lo[(k - ks) * n + d] = 0;
          hi[(k - ks) * n + d] = -1;
        }
        if (!finite || E[d] < cells->dlo[d] || E[n + d] > cells->dhi[d]) sink[k - ks] = PETSC_TRUE;
      }
    }
    PetscCall(SRSafeOf_Private(comm, cells, ks, ke, lo, hi, sink, cap, &m->safe_tight, &m->horizon_tight));
  }
  PetscCall(PetscFree3(lo, hi, sink));
  PetscFunctionReturn(PETSC_SUCCESS);
}
