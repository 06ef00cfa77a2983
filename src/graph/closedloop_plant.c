/* The closed loop of a plant file and a network on a fine grid (include/simreach/private/closedloop_plant.h,
   SPEC §16, §12): the enclosure of SPEC §16 per cell, the index-box list C(k) = M(k) with its
   exact containment (as src/graph/closedloop_grid.c does for the systems of SPEC §2), the
   verified-safe set and horizons.  A cell whose enclosure failed, or whose list fails the
   containment test, gets the sink (conservative, as closedloop_file.c reads an abstraction).

   Distributed like verify: rank r encloses the contiguous block of SRVerifyOwnership, in
   chunks, keeping only the lists (2n + 1 integers per cell); the fixed point and the exact sums
   make every figure independent of the rank count. */
#include <simreach/axes.h>
#include <simreach/private/closedloop_plant.h>
#include <simreach/private/fileio.h>
#include <simreach/verify.h>

#include <float.h>
#include <math.h>

#define SR_PLANT_CHUNK 1024 /* cells enclosed per call (boxes and enclosures of a chunk only) */

void SRPlantGridOptionsDefault(SRPlantGridOptions *o)
{
  o->affine = PETSC_TRUE;
  o->how    = SR_NET_BEST;
  SRPlantPeriodOptionsDefault(&o->period);
  o->cap = 1000;
}

/* exact sum over ranks of doubles rounded to 2^-40 (rank-count independent) */
static PetscErrorCode FixedSum_Private(MPI_Comm comm, int64_t loc, double *sum)
{
  int64_t glob;
  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&loc, &glob, 1, MPI_INT64_T, MPI_SUM, comm));
  *sum = ldexp((double)glob, -40);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRClosedLoopPlantGrid(MPI_Comm comm, const SRPlant *pl, SRMLP mlp, const double dlo[], const double dhi[], const PetscInt counts[], const SRPlantGridOptions *o, SRPlantGridResult *res, PetscInt **horizon, PetscInt64 *kstart)
{
  const PetscInt n = pl->n;
  SRAxes         ax;
  SRIndexGraph   g;
  SRPlantStep    step;
  PetscMPIInt    size, rank;
  PetscInt64     ks, ke, m, nonf = 0, nsafe = 0;
  PetscInt      *lo, *hi, *h;
  PetscBool     *sink;
  double        *bounds[SR_MAX_DIM], *boxes, *E, vD = 1, t0, t1, t2, t3, tl[3], tg[3];
  int32_t        row[2 * SR_MAX_DIM + 1];
  SRCellStatus  *st;
  int64_t        hsum = 0, ssum = 0;
  uint64_t       dig = 0, gdig;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= SR_MAX_DIM, comm, PETSC_ERR_ARG_OUTOFRANGE, "plant file %s has %" PetscInt_FMT " states; the abstraction takes 1..%d (SR_MAX_DIM)", pl->path, n, SR_MAX_DIM);
  PetscCheck(o->cap >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "horizon cap %" PetscInt_FMT "; allowed >= 1", o->cap);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  for (PetscInt d = 0; d < n; d++) {
    PetscCheck(dlo[d] < dhi[d] && isfinite(dlo[d]) && isfinite(dhi[d]), comm, PETSC_ERR_ARG_OUTOFRANGE, "domain of state %s: [%g, %g]; allowed a finite interval lo < hi", pl->state[d], dlo[d], dhi[d]);
    PetscCheck(counts[d] >= 1 && (double)counts[d] < (dhi[d] - dlo[d]) / (4 * DBL_EPSILON * fmax(fabs(dlo[d]), fabs(dhi[d]))), comm, PETSC_ERR_ARG_OUTOFRANGE, "-cells: %" PetscInt_FMT " cells of [%g, %g] in state %s; allowed 1 to what doubles resolve", counts[d], dlo[d], dhi[d], pl->state[d]);
    PetscCall(PetscMalloc1(counts[d] + 1, &bounds[d]));
    for (PetscInt i = 0; i <= counts[d]; i++) bounds[d][i] = i == counts[d] ? dhi[d] : dlo[d] + (dhi[d] - dlo[d]) * ((double)i / (double)counts[d]);
  }
  PetscCall(SRAxesCreateBoundaries(n, counts, (const double *const *)bounds, &ax));
  SRVerifyOwnership(ax->K, size, rank, &ks, &ke);
  m = ke - ks;
  PetscCall(SRPlantStepCreate(pl, mlp, o->affine, o->how, &o->period, &step));
  PetscCall(PetscMalloc3(PetscMax(m, 1) * n, &lo, PetscMax(m, 1) * n, &hi, PetscMax(m, 1), &sink));
  PetscCall(PetscMalloc1(PetscMax(m, 1), &h)); /* apart: it may be handed to the caller */
  PetscCall(PetscMalloc3(2 * n * SR_PLANT_CHUNK, &boxes, 2 * n * SR_PLANT_CHUNK, &E, SR_PLANT_CHUNK, &st));
  t0 = MPI_Wtime();
  tl[1] = 0;
  for (PetscInt64 c0 = 0; c0 < m; c0 += SR_PLANT_CHUNK) {
    const PetscInt nb = (PetscInt)PetscMin((PetscInt64)SR_PLANT_CHUNK, m - c0);
    double         ta;
    for (PetscInt c = 0; c < nb; c++) SRAxesCellBox(ax, ks + c0 + c, boxes + 2 * n * c, boxes + 2 * n * c + n);
    PetscCall(SRPlantStepEncloseBoxes(step, nb, boxes, E, st));
    ta = MPI_Wtime();
    for (PetscInt c = 0; c < nb; c++) {
      const PetscInt64 k  = c0 + c;
      PetscBool        ok = (PetscBool)(st[c] == SR_CELL_OK);
      if (ok) {
        SRAxesIndexBox(ax, E + 2 * n * c, E + 2 * n * c + n, row);
        ok = SRAxesContains(ax, row, E + 2 * n * c, E + 2 * n * c + n, NULL);
      }
      nonf += st[c] != SR_CELL_OK;
      for (PetscInt d = 0; d < n; d++) {
        lo[k * n + d] = ok ? row[d] : 0;
        hi[k * n + d] = ok ? row[n + d] : -1;
      }
      sink[k] = (PetscBool)(!ok || (row[2 * n] & SR_LIST_SINK));
      if (!ok) { /* the list is the sink alone */
        for (PetscInt d = 0; d < n; d++) row[d] = 0, row[n + d] = -1;
        row[2 * n] = SR_LIST_SINK;
      }
      ssum += (int64_t)SRListRowCount(n, row) + (sink[k] ? 1 : 0);
    }
    tl[1] += MPI_Wtime() - ta;
  }
  t1 = MPI_Wtime();
  PetscCall(PetscMemzero(&g, sizeof g));
  g.n      = n;
  g.kstart = ks;
  g.kend   = ke;
  g.lo     = lo;
  g.hi     = hi;
  g.sink   = sink;
  for (PetscInt d = 0; d < n; d++) {
    g.counts[d] = counts[d];
    g.bounds[d] = bounds[d];
    vD *= bounds[d][counts[d]] - bounds[d][0];
  }
  PetscCallMPI(MPI_Barrier(comm)); /* the fixed point's time without the ranks' imbalance */
  t2 = MPI_Wtime();
  PetscCall(SRClosedLoopSafe(comm, &g, PETSC_MAX_INT, h, &res->iterations, &res->safe_fraction));
  t3 = MPI_Wtime();
  /* min(h, cap) weighted by vol(cell) / vol(D), each term rounded to 2^-40, summed exactly */
  for (PetscInt64 c = 0; c < m; c++) {
    PetscInt64 k = ks + c;
    double     v = 1;
    int64_t    rec[2 * SR_MAX_DIM + 2];
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt i = (PetscInt)(k % counts[d]);
      k /= counts[d];
      v *= bounds[d][i + 1] - bounds[d][i];
    }
    hsum += (int64_t)llround(ldexp(v / vD * (double)PetscMin(h[c], o->cap), 40));
    nsafe += h[c] == SR_HORIZON_SAFE;
    for (PetscInt d = 0; d < n; d++) rec[d] = lo[c * n + d], rec[n + d] = hi[c * n + d];
    rec[2 * n]     = sink[c];
    rec[2 * n + 1] = h[c];
    dig += SRChecksum64(rec, sizeof(int64_t) * (size_t)(2 * n + 2), SRChecksumSeed("plant-grid", ks + c, 0)); /* a sum: any split adds up alike */
  }
  PetscCall(FixedSum_Private(comm, hsum, &res->mean_horizon));
  PetscCallMPI(MPI_Allreduce(&dig, &gdig, 1, MPI_UINT64_T, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&nonf, &res->nonfinite, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&nsafe, &res->safe_cells, 1, MPIU_INT64, MPI_SUM, comm));
  {
    int64_t s;
    PetscCallMPI(MPI_Allreduce(&ssum, &s, 1, MPI_INT64_T, MPI_SUM, comm));
    res->mean_successors = (double)s / (double)ax->K;
  }
  res->K      = ax->K;
  res->digest = gdig;
  tl[0]       = t1 - t0 - tl[1];
  tl[2]       = t3 - t2;
  PetscCallMPI(MPI_Allreduce(tl, tg, 3, MPI_DOUBLE, MPI_MAX, comm));
  res->time_enclose = tg[0];
  res->time_lists   = tg[1];
  res->time_safe    = tg[2];
  if (horizon) {
    *horizon = h;
    *kstart  = ks;
    h        = NULL;
  }
  for (PetscInt d = 0; d < n; d++) PetscCall(PetscFree(bounds[d]));
  PetscCall(PetscFree3(boxes, E, st));
  PetscCall(PetscFree3(lo, hi, sink));
  PetscCall(PetscFree(h));
  PetscCall(SRPlantStepDestroy(&step));
  PetscCall(SRAxesDestroy(&ax));
  PetscFunctionReturn(PETSC_SUCCESS);
}
