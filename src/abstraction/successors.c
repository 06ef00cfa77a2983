/* Successor lists (SPEC §5): the certified list of one cell from its enclosure, pruning, the
   targets T(k) and the union volume of SPEC §6 (the list object and the index boxes that store
   the lists: src/abstraction/successorlist.c). */
#include <simreach/private/successors.h>
#include <simreach/private/cellmodel.h>
#include <simreach/random.h>

const char *const SRTargetTypes[] = {"empirical", "nominal", "certified", "SRTargetType", "SR_TARGET_", NULL};

/* Dimension d of the outward box of the cells of line i (SRCellsBoxOuter), grid-aligned or
   partition cells: those are separable, the line's interval is every one of its cells'. */
static inline void SRLineOuter_Private(SRCells cells, PetscInt d, PetscInt i, double *olo, double *ohi)
{
  if (cells->partition) {
    *olo = cells->bnd[cells->boff[d] + i];
    *ohi = cells->bnd[cells->boff[d] + i + 1];
  } else {
    const double *cw = SRCellsGridLineCW(cells, d, i);
    *olo             = SRSubDown(cw[0], cw[1]);
    *ohi             = SRAddUp(cw[0], cw[1]);
  }
}

/* Outward box of the grid-aligned cells of index i in dimension d meets [lo, hi] in that
   dimension. */
static PetscBool SRGridMeets1_Private(SRCells cells, PetscInt d, PetscInt i, double lo, double hi, PetscBool *right_of)
{
  double olo, ohi;

  SRLineOuter_Private(cells, d, i, &olo, &ohi);
  *right_of = (PetscBool)(olo > hi);
  return (PetscBool)(olo <= hi && lo <= ohi);
}

/* Index range [*a, *b] of the grid cells of dimension d whose outward box meets [lo, hi];
   *a > *b when there is none.  Starts from the estimate and walks, so a rounding error in the
   estimate costs a step, never a cell (the outward boxes are ordered in i). */
static void SRGridRange_Private(SRCells cells, PetscInt d, double lo, double hi, PetscInt *a, PetscInt *b)
{
  const PetscInt N = cells->grid[d];
  double         t = (0.5 * lo + 0.5 * hi - cells->dlo[d]) * cells->gscale[d];
  PetscInt       i;
  PetscBool      right;

  if (!(t >= 0.0)) t = 0.0;
  if (t > (double)(N - 1)) t = (double)(N - 1);
  i = (PetscInt)t;
  if (!SRGridMeets1_Private(cells, d, i, lo, hi, &right)) {
    if (right) {
      while (i > 0 && !SRGridMeets1_Private(cells, d, i, lo, hi, &right)) i--;
    } else {
      while (i < N - 1 && !SRGridMeets1_Private(cells, d, i, lo, hi, &right)) i++;
    }
    if (!SRGridMeets1_Private(cells, d, i, lo, hi, &right)) {
      *a = 1;
      *b = 0;
      return;
    }
  }
  *a = *b = i;
  while (*a > 0 && SRGridMeets1_Private(cells, d, *a - 1, lo, hi, &right)) (*a)--;
  while (*b < N - 1 && SRGridMeets1_Private(cells, d, *b + 1, lo, hi, &right)) (*b)++;
}

/* SPEC §5: every cell whose outward box meets E, then the sink if E leaves D. */
PetscErrorCode SRSuccessorsCertifiedAppend_Private(SRCells cells, SRCellIndex index, const double *elo, const double *ehi, SRIntBuf *out)
{
  const PetscInt n = cells->n;

  PetscFunctionBeginUser;
  PetscCheck(SRBoxIsFinite_Private(n, elo, ehi), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "certified successors need a finite enclosure with lo <= hi");
  if (cells->grid_aligned || cells->partition) {
    PetscInt a[SR_MAX_DIM] = {0}, b[SR_MAX_DIM] = {0}, stride[SR_MAX_DIM], s = 1;
    PetscBool empty = PETSC_FALSE;

    for (PetscInt d = 0; d < n; d++) {
      stride[d] = s;
      if (cells->partition) SRCellsPartitionRange(cells, d, elo[d], ehi[d], &a[d], &b[d]); /* exact */
      else SRGridRange_Private(cells, d, elo[d], ehi[d], &a[d], &b[d]);
      if (a[d] > b[d]) empty = PETSC_TRUE;
      s *= cells->grid[d];
    }
    if (!empty) {
      PetscInt total = 1;
      for (PetscInt d = 0; d < n; d++) total *= b[d] - a[d] + 1;
      PetscCall(SRIntBufReserve_Private(out, out->n + total + 1));
      /* k = i0 + N0 (i1 + N1 i2): dimension 0 innermost gives increasing k. */
      for (PetscInt i2 = (n > 2 ? a[2] : 0); i2 <= (n > 2 ? b[2] : 0); i2++)
        for (PetscInt i1 = (n > 1 ? a[1] : 0); i1 <= (n > 1 ? b[1] : 0); i1++)
          for (PetscInt i0 = a[0]; i0 <= b[0]; i0++) {
            out->a[out->n++] = i0 + (n > 1 ? i1 * stride[1] : 0) + (n > 2 ? i2 * stride[2] : 0);
          }
    }
  } else {
    PetscInt count, start = out->n;

    PetscCheck(index, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "certified successors of free cells need a cell index (SRCellIndexCreate)");
    PetscCall(SRCellIndexQuery(index, elo, ehi, out->cap - start, out->a ? out->a + start : NULL, &count));
    if (count > out->cap - start) {
      PetscCall(SRIntBufReserve_Private(out, start + count));
      PetscCall(SRCellIndexQuery(index, elo, ehi, out->cap - start, out->a + start, &count));
    }
    out->n = start + count;
  }
  if (!SRBoxInsideDomain_Private(cells, elo, ehi)) PetscCall(SRIntBufPush_Private(out, cells->K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |the list| without the list: the product of the index ranges on grid-aligned and partition
   cells (the loops above), the index's count on free cells; the sink counts one. */
PetscErrorCode SRSuccessorsCertifiedCount(SRCells cells, SRCellIndex index, const double *elo, const double *ehi, PetscInt *count)
{
  const PetscInt n = cells->n;

  PetscFunctionBeginUser;
  PetscCheck(SRBoxIsFinite_Private(n, elo, ehi), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "certified successors need a finite enclosure with lo <= hi");
  if (cells->grid_aligned || cells->partition) {
    PetscInt total = 1;
    for (PetscInt d = 0; d < n; d++) {
      PetscInt a, b;
      if (cells->partition) SRCellsPartitionRange(cells, d, elo[d], ehi[d], &a, &b);
      else SRGridRange_Private(cells, d, elo[d], ehi[d], &a, &b);
      total = a > b ? 0 : total * (b - a + 1);
    }
    *count = total;
  } else {
    PetscCheck(index, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "certified successors of free cells need a cell index (SRCellIndexCreate)");
    PetscCall(SRCellIndexQuery(index, elo, ehi, 0, NULL, count));
  }
  if (!SRBoxInsideDomain_Private(cells, elo, ehi)) (*count)++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSuccessorsCertified(SRCells cells, SRCellIndex index, const double *elo, const double *ehi, PetscInt cap, PetscInt *idx, PetscInt *count)
{
  SRIntBuf b = {0, 0, NULL};

  PetscFunctionBeginUser;
  PetscCall(SRSuccessorsCertifiedAppend_Private(cells, index, elo, ehi, &b));
  *count = b.n;
  if (idx) PetscCall(PetscArraycpy(idx, b.a, PetscMin(cap, b.n)));
  PetscCall(SRIntBufDestroy_Private(&b));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A cell whose outward box misses E covers no point of E, and the sink (R^n \ D) covers none
   when E is inside D: dropping them keeps E within the union (SPEC §8 pruning). */
PetscErrorCode SRSuccessorsPruneAppend_Private(SRCells cells, PetscInt nlist, const PetscInt *list, const double *elo, const double *ehi, SRIntBuf *out)
{
  const PetscInt n = cells->n, K = cells->K;
  double         lo[SR_MAX_DIM], hi[SR_MAX_DIM];
  const PetscBool inside = SRBoxInsideDomain_Private(cells, elo, ehi);

  PetscFunctionBeginUser;
  for (PetscInt t = 0; t < nlist; t++) {
    const PetscInt j = list[t];
    if (j == K) {
      if (!inside) PetscCall(SRIntBufPush_Private(out, j));
      continue;
    }
    SRCellsBoxOuter(cells, j, lo, hi);
    if (SRBoxMeets_Private(n, lo, hi, elo, ehi)) PetscCall(SRIntBufPush_Private(out, j));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Position of cell j (>= 0) in list[0..nlist), -1 when absent or j < 0. */
static PetscInt SRListPosition_Private(PetscInt nlist, const PetscInt *list, PetscBool increasing, PetscInt j)
{
  if (j < 0) return -1;
  if (increasing) {
    PetscInt lo = 0, hi = nlist - 1;
    while (lo <= hi) {
      const PetscInt mid = lo + (hi - lo) / 2;
      if (list[mid] == j) return mid;
      if (list[mid] < j) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
  for (PetscInt t = 0; t < nlist; t++)
    if (list[t] == j) return t;
  return -1;
}

/* Grid-aligned cells and an increasing list: the cells with d(y, j) = 0 lie within one grid step
   of y's estimated index (neighbours overlap by ulps only), so test those 3^n candidates in
   increasing index and binary-search the list; the lowest listed one is the first in list
   order.  Returns -1 when none is listed (the caller then scans). */
static PetscInt SRSuccessorsHitGrid_Private(SRCells cells, PetscInt nlist, const PetscInt *list, const double *y)
{
  const PetscInt n = cells->n;
  PetscInt       a[SR_MAX_DIM] = {0, 0, 0}, z[SR_MAX_DIM] = {0, 0, 0}, stride[SR_MAX_DIM] = {[0 ... SR_MAX_DIM - 1] = 1}, s = 1;

  for (PetscInt d = 0; d < n; d++) {
    const PetscInt N = cells->grid[d];
    double         t = (y[d] - cells->dlo[d]) / ((cells->dhi[d] - cells->dlo[d]) / (double)N);
    PetscInt       i;
    if (!(t >= -1.0)) return -1; /* also NaN */
    if (!(t <= (double)N + 1.0)) return -1;
    i         = cells->partition ? SRCellsPartitionLocate(cells, d, y[d]) : (PetscInt)PetscFloorReal(t);
    a[d]      = PetscMax(i - 1, 0);
    z[d]      = PetscMin(i + 1, N - 1);
    stride[d] = s;
    s *= N;
    if (a[d] > z[d]) return -1;
  }
  for (PetscInt i2 = a[2]; i2 <= z[2]; i2++)
    for (PetscInt i1 = a[1]; i1 <= z[1]; i1++)
      for (PetscInt i0 = a[0]; i0 <= z[0]; i0++) {
        const PetscInt k = i0 + (n > 1 ? i1 * stride[1] : 0) + (n > 2 ? i2 * stride[2] : 0);
        PetscInt       pos;
        if (SRCellsDistance(cells, y, k, NULL, NULL, NULL) != 0.0) continue;
        if ((pos = SRListPosition_Private(nlist, list, PETSC_TRUE, k)) >= 0) return pos;
      }
  return -1;
}

PetscInt SRSuccessorsHit_Private(SRCells cells, PetscInt nlist, const PetscInt *list, PetscBool increasing, const double *y)
{
  const PetscInt K    = cells->K;
  PetscInt       sink = -1, best = 0;
  double         dbest = PETSC_INFINITY;

  if ((cells->grid_aligned || cells->partition) && increasing && nlist > 8) {
    const PetscInt h = SRSuccessorsHitGrid_Private(cells, nlist, list, y);
    if (h >= 0) return h;
  }

  for (PetscInt t = 0; t < nlist; t++) {
    if (list[t] == K) {
      sink = t;
      continue;
    }
    const double d = SRCellsDistance(cells, y, list[t], NULL, NULL, NULL);
    if (d == 0.0) return t;
    if (d < dbest) {
      dbest = d;
      best  = t;
    }
  }
  if (sink >= 0) {
    const double d = SRCellsSinkDistance(cells, y, NULL);
    if (d == 0.0 || !(d >= dbest)) return sink;
  }
  return best;
}

PetscErrorCode SRSuccessorsTargetAppend_Private(SRModel model, SRCells cells, const SRTargetParams *tp, PetscInt k, PetscInt nlist, const PetscInt *list, PetscBool want_distinct, const SRCellModel *cm, SRIntBuf *out, PetscInt *ndistinct, PetscInt *decided)
{
  const PetscInt n = cells->n;
  const PetscBool sample = (PetscBool)(tp->type == SR_TARGET_EMPIRICAL || want_distinct);
  PetscBool       increasing = PETSC_TRUE;

  PetscFunctionBeginUser;
  for (PetscInt t = 1; t < nlist && increasing; t++) increasing = (PetscBool)(list[t - 1] < list[t]);
  PetscCheck(nlist >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "cell %" PetscInt_FMT ": the certified list is empty, no target can be chosen", k);
  if (ndistinct) *ndistinct = 0;
  if (sample) {
    const PetscInt S = tp->samples;
    double        *X, *Y, *Yhi, lo[SR_MAX_DIM], hi[SR_MAX_DIM];
    PetscInt      *hits, *order, distinct = 0;

    PetscCheck(S >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-target_samples %" PetscInt_FMT ": must be >= 1", S);
    PetscCall(PetscMalloc5(S * n, &X, S * n, &Y, nlist, &hits, nlist, &order, S * n, &Yhi));
    SRCellsBoxInner(cells, k, lo, hi);
    for (PetscInt d = 0; d < n; d++)
      if (!(lo[d] <= hi[d])) lo[d] = hi[d] = cells->c[k * n + d];
    /* sample s of cell k, coordinate d: index (k S + s) n + d of SR_STREAM_TARGET (independent of
       the rank), uniform in the inward-rounded box, so inside the cell */
    SRRandomRangeBatch(tp->seed, SR_STREAM_TARGET, (uint64_t)k * (uint64_t)S * (uint64_t)n, S * n, n, lo, hi, X); /* in [lo, hi) */
    PetscCall(PetscArrayzero(hits, nlist));
    if (cm && cm->ok && (cells->grid_aligned || cells->partition)) {
      /* the samples whose cell the model decides are counted here; the others are moved to the
         front of X and go through the network below */
      PetscInt nu = 0;
      (void)SRCellModelImages(cm, n, S, X, Y, Yhi); /* Y: the boxes' lower ends first, the network's values below */
      for (PetscInt s = 0; s < S; s++) {
        const PetscInt pos = SRListPosition_Private(nlist, list, increasing, SRCellsSoleCell(cells, Y + s * n, Yhi + s * n));
        if (pos >= 0) hits[pos]++;
        else {
          for (PetscInt d = 0; d < n; d++) X[nu * n + d] = X[s * n + d];
          nu++;
        }
      }
      if (decided) *decided += S - nu;
      if (nu > 0) PetscCall(SRModelEvaluate(model, nu, X, Y));
      for (PetscInt s = 0; s < nu; s++) hits[SRSuccessorsHit_Private(cells, nlist, list, increasing, Y + s * n)]++;
    } else {
      PetscCall(SRModelEvaluate(model, S, X, Y));
      for (PetscInt s = 0; s < S; s++) hits[SRSuccessorsHit_Private(cells, nlist, list, increasing, Y + s * n)]++;
    }
    for (PetscInt t = 0; t < nlist; t++) {
      if (hits[t] > 0) distinct++;
      order[t] = t;
    }
    if (ndistinct) *ndistinct = distinct;
    if (tp->type == SR_TARGET_EMPIRICAL) {
      /* SPEC §5: the smallest set carrying >= mass of the hits: most hits first, ties by index
         (list order is increasing index, the sink last).  Insertion sort: lists are short. */
      PetscInt cum = 0, start = out->n;
      for (PetscInt a = 1; a < nlist; a++) {
        const PetscInt v = order[a];
        PetscInt       b = a - 1;
        while (b >= 0 && (hits[order[b]] < hits[v] || (hits[order[b]] == hits[v] && list[order[b]] > list[v]))) {
          order[b + 1] = order[b];
          b--;
        }
        order[b + 1] = v;
      }
      for (PetscInt a = 0; a < nlist; a++) {
        if (a > 0 && (double)cum >= tp->mass * (double)S) break;
        if (hits[order[a]] == 0 && a > 0) break;
        PetscCall(SRIntBufPush_Private(out, list[order[a]]));
        cum += hits[order[a]];
      }
      PetscCall(PetscSortInt(out->n - start, out->a + start));
    }
    PetscCall(PetscFree5(X, Y, hits, order, Yhi));
  }
  if (tp->type == SR_TARGET_CERTIFIED) {
    for (PetscInt t = 0; t < nlist; t++) PetscCall(SRIntBufPush_Private(out, list[t]));
  } else if (tp->type == SR_TARGET_NOMINAL) {
    /* The listed cells (and the sink) containing f_phi(c_k); the nearest entry if none does. */
    double   y[SR_MAX_DIM];
    PetscInt start = out->n;

    PetscCall(SRModelEvaluate(model, 1, cells->c + k * n, y));
    for (PetscInt t = 0; t < nlist; t++) {
      const double d = list[t] == cells->K ? SRCellsSinkDistance(cells, y, NULL) : SRCellsDistance(cells, y, list[t], NULL, NULL, NULL);
      if (d == 0.0) PetscCall(SRIntBufPush_Private(out, list[t]));
    }
    if (out->n == start) PetscCall(SRIntBufPush_Private(out, list[SRSuccessorsHit_Private(cells, nlist, list, increasing, y)]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Position of x in the sorted array v (x is one of its entries). */
static PetscInt SRFindExact_Private(PetscInt m, const double *v, double x)
{
  PetscInt lo = 0, hi = m - 1;
  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (v[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Coordinate compression: the sorted distinct endpoints of the boxes cut space into
   elementary boxes, each either inside a box or outside all of them; mark the covered ones
   and add their volumes in index order (a fixed order, so the sum never depends on ranks). */
PetscErrorCode SRSuccessorsUnionVolume_Private(SRCells cells, PetscInt nlist, const PetscInt *list, double *vol)
{
  const PetscInt n = cells->n, K = cells->K;
  PetscInt       m = 0, nc[SR_MAX_DIM] = {[0 ... SR_MAX_DIM - 1] = 1}, ncell = 1;
  double        *lo, *hi, *crd[SR_MAX_DIM];
  PetscBool     *covered;

  PetscFunctionBeginUser;
  *vol = 0.0;
  PetscCall(PetscMalloc2(nlist * n, &lo, nlist * n, &hi));
  for (PetscInt t = 0; t < nlist; t++) {
    if (list[t] == K) continue;
    SRCellsBoxOuter(cells, list[t], lo + m * n, hi + m * n);
    if (SRBoxIsFinite_Private(n, lo + m * n, hi + m * n)) m++; /* a NaN cell covers nothing */
  }
  if (m == 0) {
    PetscCall(PetscFree2(lo, hi));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt d = 0; d < n; d++) {
    PetscInt c = 0;
    PetscCall(PetscMalloc1(2 * m, &crd[d]));
    for (PetscInt b = 0; b < m; b++) {
      crd[d][c++] = lo[b * n + d];
      crd[d][c++] = hi[b * n + d];
    }
    PetscCall(PetscSortRemoveDupsReal(&c, crd[d]));
    nc[d] = c - 1;
    ncell *= PetscMax(nc[d], 0);
  }
  PetscCall(PetscCalloc1(PetscMax(ncell, 1), &covered));
  for (PetscInt b = 0; b < m && ncell > 0; b++) {
    PetscInt a[SR_MAX_DIM] = {0, 0, 0}, z[SR_MAX_DIM] = {0, 0, 0};
    for (PetscInt d = 0; d < n; d++) {
      /* the endpoints are in crd exactly: elementary intervals [crd_i, crd_{i+1}], ilo <= i < ihi */
      a[d] = SRFindExact_Private(nc[d] + 1, crd[d], lo[b * n + d]);
      z[d] = SRFindExact_Private(nc[d] + 1, crd[d], hi[b * n + d]) - 1;
    }
    for (PetscInt i2 = a[2]; i2 <= (n > 2 ? z[2] : 0); i2++)
      for (PetscInt i1 = a[1]; i1 <= (n > 1 ? z[1] : 0); i1++)
        for (PetscInt i0 = a[0]; i0 <= z[0]; i0++) covered[i0 + nc[0] * (i1 + (n > 1 ? nc[1] : 1) * i2)] = PETSC_TRUE;
  }
  for (PetscInt i2 = 0; i2 < (n > 2 ? nc[2] : 1); i2++)
    for (PetscInt i1 = 0; i1 < (n > 1 ? nc[1] : 1); i1++)
      for (PetscInt i0 = 0; i0 < nc[0]; i0++) {
        if (!covered[i0 + nc[0] * (i1 + (n > 1 ? nc[1] : 1) * i2)]) continue;
        double v = crd[0][i0 + 1] - crd[0][i0];
        if (n > 1) v *= crd[1][i1 + 1] - crd[1][i1];
        if (n > 2) v *= crd[2][i2 + 1] - crd[2][i2];
        *vol += v;
      }
  PetscCall(PetscFree(covered));
  for (PetscInt d = 0; d < n; d++) PetscCall(PetscFree(crd[d]));
  PetscCall(PetscFree2(lo, hi));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The union volume of the cells of an index box row (grid-aligned or partition cells, whose boxes
   are products of per-dimension lines): the elementary boxes of SRSuccessorsUnionVolume_Private are
   the products of per-dimension elementary intervals, and one is covered when each factor is
   covered by a line of its dimension (the boxes are all products of lines).  The same coordinates,
   the same covered boxes and the same sum in the same order: the same volume, bit for bit, without
   listing the cells. */
PetscErrorCode SRSuccessorsUnionVolumeBox_Private(SRCells cells, const PetscInt *row, double *vol)
{
  const PetscInt n = cells->n;
  PetscInt       nc[SR_MAX_DIM] = {[0 ... SR_MAX_DIM - 1] = 1};
  double        *crd[SR_MAX_DIM] = {NULL, NULL, NULL};
  PetscBool     *cov[SR_MAX_DIM] = {NULL, NULL, NULL}, one = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCheck(cells->grid_aligned || cells->partition, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "the union volume of an index box needs grid-aligned or partition cells");
  *vol = 0.0;
  for (PetscInt d = 0; d < n; d++)
    if (row[d] > row[n + d]) PetscFunctionReturn(PETSC_SUCCESS); /* the sink alone covers nothing */
  for (PetscInt d = 0; d < n; d++) {
    const PetscInt len = row[n + d] - row[d] + 1;
    PetscInt       c   = 2 * len;
    double        *ends; /* the lines' lo, hi in line order */
    PetscCall(PetscMalloc1(2 * len, &ends));
    PetscCall(PetscMalloc2(2 * len, &crd[d], 2 * len, &cov[d]));
    for (PetscInt i = 0; i < len; i++)
      SRLineOuter_Private(cells, d, row[d] + i, &ends[2 * i], &ends[2 * i + 1]);
    PetscCall(PetscArraycpy(crd[d], ends, 2 * len));
    PetscCall(PetscSortRemoveDupsReal(&c, crd[d]));
    nc[d] = c - 1;
    for (PetscInt e = 0; e < nc[d]; e++) cov[d][e] = PETSC_FALSE;
    for (PetscInt i = 0; i < len; i++)
      for (PetscInt e = SRFindExact_Private(nc[d] + 1, crd[d], ends[2 * i]); e < SRFindExact_Private(nc[d] + 1, crd[d], ends[2 * i + 1]); e++) cov[d][e] = PETSC_TRUE;
    PetscCall(PetscFree(ends));
  }
  for (PetscInt i2 = 0; i2 < (n > 2 ? nc[2] : 1); i2++)
    for (PetscInt i1 = 0; i1 < (n > 1 ? nc[1] : 1); i1++)
      for (PetscInt i0 = 0; i0 < nc[0]; i0++) {
        if (!(cov[0][i0] && (n > 1 ? cov[1][i1] : one) && (n > 2 ? cov[2][i2] : one))) continue;
        double v = crd[0][i0 + 1] - crd[0][i0];
        if (n > 1) v *= crd[1][i1 + 1] - crd[1][i1];
        if (n > 2) v *= crd[2][i2 + 1] - crd[2][i2];
        *vol += v;
      }
  for (PetscInt d = 0; d < n; d++) PetscCall(PetscFree2(crd[d], cov[d]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
