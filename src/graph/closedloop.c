/* Properties of the closed loop on index-box abstraction graphs (SPEC §12): the verified-safe
   set with every cell's verified horizon (a backward fixed point from the sink), and bounded
   reachability from an initial set (a forward iteration).

   Sets of cells are replicated as one byte per cell.  Two tables over the (N_0+1) x ... grid
   of cell corners answer the box questions without expanding any list:
   - a summed-area table S of a set: |set  cap  box| is an alternating sum of S at the 2^n
     corners of the box (used backwards: does C(k) meet the unsafe set?);
   - a difference array: +-1 at the 2^n corners of each owned box, summed over ranks, then
     prefix-summed along every dimension, counts for each cell the boxes covering it (used
     forwards: the union of C(k) over the frontier).
   Counts are uint32 and the tables are added modulo 2^32: the true counts never exceed
   K < 2^31, so the modular results are exact. */
#include <simreach/closedloop.h>

#include <string.h>

typedef struct {
  PetscInt   n;
  PetscInt64 K;
  size_t     stride[SR_MAX_DIM + 1]; /* strides of the corner grid (N_d + 1 per dimension) */
  size_t   P;                      /* corner-grid size */
} SRCornerGrid;

static void SRCornerGridInit_Private(const SRIndexGraph *g, SRCornerGrid *cg)
{
  cg->n         = g->n;
  cg->K         = 1;
  cg->stride[0] = 1;
  for (PetscInt d = 0; d < g->n; d++) {
    cg->K *= g->counts[d];
    cg->stride[d + 1] = cg->stride[d] * (size_t)(g->counts[d] + 1);
  }
  cg->P = cg->stride[g->n];
}

/* Odometer over the cells in index order: advances the cell's corner-grid position without
   divisions (the position of cell k + 1 from that of cell k). */
typedef struct {
  PetscInt idx[SR_MAX_DIM];
  size_t   pos;
} SRCellCursor;

static void SRCellCursorNext_Private(const SRIndexGraph *g, const SRCornerGrid *cg, SRCellCursor *c)
{
  for (PetscInt d = 0; d < g->n; d++) {
    if (++c->idx[d] < g->counts[d]) {
      c->pos += cg->stride[d];
      return;
    }
    c->idx[d] = 0;
    c->pos -= (size_t)(g->counts[d] - 1) * cg->stride[d];
  }
}

/* In-place prefix sums along every dimension of the corner grid. */
static void SRPrefixSum_Private(const SRIndexGraph *g, const SRCornerGrid *cg, uint32_t *T)
{
  for (PetscInt d = 0; d < g->n; d++) {
    const size_t s = cg->stride[d], len = (size_t)g->counts[d] + 1, outer = cg->P / (s * len);
    for (size_t o = 0; o < outer; o++)
      for (size_t j = 1; j < len; j++) { /* row j += row j - 1: contiguous, vectorisable */
        uint32_t *restrict p = T + (o * len + j) * s;
        const uint32_t *restrict q = p - s;
        for (size_t in = 0; in < s; in++) p[in] += q[in];
      }
  }
}

static PetscBool SRBoxEmpty_Private(PetscInt n, const PetscInt *lo, const PetscInt *hi)
{
  for (PetscInt d = 0; d < n; d++)
    if (lo[d] > hi[d]) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* Summed-area table of a set (bytes per cell): S at corner j = |{i in set : i_d < j_d}|. */
static void SRSummedArea_Private(const SRIndexGraph *g, const SRCornerGrid *cg, const unsigned char *set, uint32_t *S)
{
  SRCellCursor c    = {{0}, 0};
  size_t       diag = 0; /* corner i + 1 of cell i */

  for (PetscInt d = 0; d < g->n; d++) diag += cg->stride[d];
  memset(S, 0, cg->P * sizeof(*S));
  for (PetscInt64 k = 0; k < cg->K; k++, SRCellCursorNext_Private(g, cg, &c))
    if (set[k]) S[c.pos + diag] = 1;
  SRPrefixSum_Private(g, cg, S);
}

/* |set cap box| from its summed-area table: sum over the 2^n corners, sign by how many are low. */
static uint32_t SRBoxCount_Private(const SRIndexGraph *g, const SRCornerGrid *cg, const uint32_t *S, const PetscInt *lo, const PetscInt *hi)
{
  uint32_t sum = 0;
  for (unsigned s = 0; s < (1u << g->n); s++) {
    size_t pos = 0;
    int    nlow = 0;
    for (PetscInt d = 0; d < g->n; d++) {
      if (s >> d & 1u) pos += (size_t)(hi[d] + 1) * cg->stride[d];
      else {
        pos += (size_t)lo[d] * cg->stride[d];
        nlow++;
      }
    }
    if (nlow % 2) sum -= S[pos];
    else sum += S[pos];
  }
  return sum;
}

/* Adds +-1 at the 2^n corners of box [lo, hi] (inclusive cell indices) to a difference array. */
static void SRBoxMark_Private(const SRIndexGraph *g, const SRCornerGrid *cg, uint32_t *Dif, const PetscInt *lo, const PetscInt *hi)
{
  for (unsigned s = 0; s < (1u << g->n); s++) {
    size_t pos  = 0;
    int    nhigh = 0;
    for (PetscInt d = 0; d < g->n; d++) {
      if (s >> d & 1u) {
        pos += (size_t)(hi[d] + 1) * cg->stride[d];
        nhigh++;
      } else pos += (size_t)lo[d] * cg->stride[d];
    }
    if (nhigh % 2) Dif[pos] -= 1u;
    else Dif[pos] += 1u;
  }
}

/* Sum of a uint32 table over the ranks, in chunks that fit an MPI count. */
static PetscErrorCode SRAllreduceU32_Private(MPI_Comm comm, uint32_t *T, size_t P)
{
  const size_t chunk = (size_t)1 << 30;

  PetscFunctionBeginUser;
  for (size_t off = 0; off < P; off += chunk) {
    const size_t m = PetscMin(chunk, P - off);
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, T + off, (int)m, MPI_UINT32_T, MPI_SUM, comm));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every rank's owned slice of a byte set into the replicated set. */
static PetscErrorCode SRAllgatherSet_Private(MPI_Comm comm, const SRIndexGraph *g, unsigned char *set)
{
  PetscMPIInt size, rank, *cnt, *displ, mine[2];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscMalloc2(size, &cnt, size, &displ));
  PetscCheck(g->kend <= PETSC_MPI_INT_MAX, comm, PETSC_ERR_SUP, "closed-loop sets: %" PetscInt64_FMT " cells; at most %d supported", g->kend, PETSC_MPI_INT_MAX);
  mine[0] = (PetscMPIInt)g->kstart;
  mine[1] = (PetscMPIInt)(g->kend - g->kstart);
  {
    PetscMPIInt *both;
    PetscCall(PetscMalloc1(2 * size, &both));
    PetscCallMPI(MPI_Allgather(mine, 2, MPI_INT, both, 2, MPI_INT, comm));
    for (PetscMPIInt r = 0; r < size; r++) {
      displ[r] = both[2 * r];
      cnt[r]   = both[2 * r + 1];
    }
    PetscCall(PetscFree(both));
  }
  PetscCallMPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, set, cnt, displ, MPI_UNSIGNED_CHAR, comm));
  PetscCall(PetscFree2(cnt, displ));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* vol(set) / vol(D), summed in cell order over the replicated set (identical on every rank). */
static double SRSetVolumeFraction_Private(const SRIndexGraph *g, const SRCornerGrid *cg, const unsigned char *set)
{
  SRCellCursor c   = {{0}, 0};
  double       sum = 0, total = 1;

  for (PetscInt d = 0; d < g->n; d++) total *= g->bounds[d][g->counts[d]] - g->bounds[d][0];
  for (PetscInt64 k = 0; k < cg->K; k++, SRCellCursorNext_Private(g, cg, &c)) {
    if (!set[k]) continue;
    double v = 1;
    for (PetscInt d = 0; d < g->n; d++) v *= g->bounds[d][c.idx[d] + 1] - g->bounds[d][c.idx[d]];
    sum += v;
  }
  return sum / total;
}

static PetscErrorCode SRIndexGraphCheck_Private(MPI_Comm comm, const SRIndexGraph *g)
{
  PetscFunctionBeginUser;
  PetscCheck(g->n >= 1 && g->n <= SR_MAX_DIM, comm, PETSC_ERR_ARG_OUTOFRANGE, "index graph: dimension %" PetscInt_FMT " not in 1..%d", g->n, SR_MAX_DIM);
  for (PetscInt d = 0; d < g->n; d++) PetscCheck(g->counts[d] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "index graph: %" PetscInt_FMT " cells in dimension %" PetscInt_FMT, g->counts[d], d);
  for (PetscInt64 k = 0; k < g->kend - g->kstart; k++)
    for (PetscInt d = 0; d < g->n; d++) {
      const PetscInt a = g->lo[k * g->n + d], b = g->hi[k * g->n + d];
      PetscCheck(a > b || (a >= 0 && b < g->counts[d]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "index graph: cell %" PetscInt64_FMT " lists indices %" PetscInt_FMT "..%" PetscInt_FMT " in dimension %" PetscInt_FMT " (0..%" PetscInt_FMT " allowed)", g->kstart + k, a, b, d, g->counts[d] - 1);
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRClosedLoopSafe(MPI_Comm comm, const SRIndexGraph *g, PetscInt maxit, PetscInt *horizon, PetscInt *niter, double *safe_fraction)
{
  SRCornerGrid   cg;
  unsigned char *bad;
  uint32_t      *S;
  PetscInt       t = 0;
  PetscInt64     nnew;
  const PetscInt64 m = g->kend - g->kstart;

  PetscFunctionBeginUser;
  PetscCall(SRIndexGraphCheck_Private(comm, g));
  SRCornerGridInit_Private(g, &cg);
  PetscCall(PetscCalloc1(cg.K, &bad));
  PetscCall(PetscMalloc1(cg.P, &S));
  /* B_0: the cells whose successors include the sink (horizon 0). */
  for (PetscInt64 k = 0; k < m; k++) {
    horizon[k] = SR_HORIZON_SAFE;
    if (g->sink[k]) {
      bad[g->kstart + k] = 1;
      horizon[k]         = 0;
    }
  }
  PetscCall(SRAllgatherSet_Private(comm, g, bad));
  /* B_t = B_{t-1} plus every cell whose C(k) meets B_{t-1}: such a cell first stays t steps. */
  do {
    PetscInt64 mine = 0;
    if (t >= maxit) break;
    t++;
    SRSummedArea_Private(g, &cg, bad, S);
    for (PetscInt64 k = 0; k < m; k++) {
      const PetscInt *lo = g->lo + k * g->n, *hi = g->hi + k * g->n;
      if (horizon[k] != SR_HORIZON_SAFE || SRBoxEmpty_Private(g->n, lo, hi)) continue;
      if (SRBoxCount_Private(g, &cg, S, lo, hi)) {
        horizon[k] = t;
        mine++;
      }
    }
    for (PetscInt64 k = 0; k < m; k++)
      if (horizon[k] == t) bad[g->kstart + k] = 1;
    PetscCall(MPIU_Allreduce(&mine, &nnew, 1, MPIU_INT64, MPI_SUM, comm));
    if (nnew) PetscCall(SRAllgatherSet_Private(comm, g, bad));
  } while (nnew);
  *niter = t;
  for (PetscInt64 k = 0; k < cg.K; k++) bad[k] = !bad[k]; /* the safe set */
  *safe_fraction = SRSetVolumeFraction_Private(g, &cg, bad);
  PetscCall(PetscFree(S));
  PetscCall(PetscFree(bad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRClosedLoopReach(MPI_Comm comm, const SRIndexGraph *g, const unsigned char *init, PetscInt steps, PetscInt64 *ncells, double *volume, PetscInt *sink_step, unsigned char *reached)
{
  SRCornerGrid   cg;
  unsigned char *R;
  uint32_t      *Dif;
  const PetscInt64 m = g->kend - g->kstart;

  PetscFunctionBeginUser;
  PetscCall(SRIndexGraphCheck_Private(comm, g));
  PetscCheck(steps >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "reach: %" PetscInt_FMT " steps; allowed is 0 or more", steps);
  SRCornerGridInit_Private(g, &cg);
  PetscCall(PetscCalloc1(cg.K, &R));
  PetscCall(PetscMalloc1(cg.P, &Dif));
  for (PetscInt64 k = 0; k < m; k++) R[g->kstart + k] = init[k] ? 1 : 0;
  PetscCall(SRAllgatherSet_Private(comm, g, R));
  if (reached)
    for (PetscInt64 k = 0; k < m; k++) reached[k] = R[g->kstart + k];
  *sink_step = -1;
  for (PetscInt t = 0;; t++) {
    PetscInt64 n = 0;
    for (PetscInt64 k = 0; k < cg.K; k++) n += R[k];
    ncells[t] = n;
    volume[t] = SRSetVolumeFraction_Private(g, &cg, R);
    if (t == steps) break;
    /* R_{t+1}: the union of the owned frontier cells' boxes, summed over the ranks. */
    PetscInt sink = 0, anysink;
    memset(Dif, 0, cg.P * sizeof(*Dif));
    for (PetscInt64 k = 0; k < m; k++) {
      if (!R[g->kstart + k]) continue;
      if (g->sink[k]) sink = 1;
      if (!SRBoxEmpty_Private(g->n, g->lo + k * g->n, g->hi + k * g->n)) SRBoxMark_Private(g, &cg, Dif, g->lo + k * g->n, g->hi + k * g->n);
    }
    PetscCall(MPIU_Allreduce(&sink, &anysink, 1, MPIU_INT, MPI_MAX, comm));
    if (anysink && *sink_step < 0) *sink_step = t + 1;
    PetscCall(SRAllreduceU32_Private(comm, Dif, cg.P));
    SRPrefixSum_Private(g, &cg, Dif);
    {
      SRCellCursor c = {{0}, 0};
      for (PetscInt64 k = 0; k < cg.K; k++, SRCellCursorNext_Private(g, &cg, &c)) R[k] = Dif[c.pos] ? 1 : 0;
    }
    if (reached)
      for (PetscInt64 k = 0; k < m; k++) reached[k] |= R[g->kstart + k];
  }
  PetscCall(PetscFree(Dif));
  PetscCall(PetscFree(R));
  PetscFunctionReturn(PETSC_SUCCESS);
}
