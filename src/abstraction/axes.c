/* Per-dimension cell axes, index-box lists and their exact containment test (SPEC §5, §7, §10).

   The cells are products of per-dimension intervals (the grid, or a partition by boundaries),
   so "the cells whose outward box meets E" is one index box: per dimension the first index
   whose outward box reaches up to E and the last whose outward box starts below E's top
   (binary search; the outward boxes are non-decreasing in the index).  Containment is exact
   index arithmetic on the real boundaries g_{d,i}: the listed cells of a box a..b cover the real
   product of [g_{d,a_d}, g_{d,b_d+1}], so E (clipped to D when the sink is listed) lies in their
   union iff in every dimension its range lies in that interval; with enclosures [glo, ghi] of
   the boundaries that is proven by elo' >= ghi[a] and ehi' <= glo[b + 1]. */
#include <simreach/axes.h>
#include <simreach/cells.h>
#include <simreach/interval.h>

PetscErrorCode SRAxesDestroy(SRAxes *ax)
{
  PetscFunctionBeginUser;
  if (!ax || !*ax) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 0; d < (*ax)->n; d++) PetscCall(PetscFree4((*ax)->olo[d], (*ax)->ohi[d], (*ax)->glo[d], (*ax)->ghi[d]));
  PetscCall(PetscFree(*ax));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRAxesAlloc_Private(PetscInt n, const PetscInt N[], SRAxes *ax)
{
  SRAxes A;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= SR_MAX_DIM, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cells of dimension %" PetscInt_FMT ": allowed are 1..%d", n, SR_MAX_DIM);
  PetscCall(PetscNew(&A));
  A->n = n;
  A->K = 1;
  for (PetscInt d = 0; d < n; d++) {
    PetscCheck(N[d] >= 1 && N[d] < (PetscInt)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-cells: count %" PetscInt_FMT " of dimension %" PetscInt_FMT ": allowed are 1 to %d", N[d], d, INT32_MAX - 1);
    PetscCheck(A->K <= INT64_MAX / N[d], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-cells: the product of the counts overflows a 64-bit integer");
    A->N[d] = N[d];
    A->K *= N[d];
    PetscCall(PetscMalloc4(N[d], &A->olo[d], N[d], &A->ohi[d], N[d] + 1, &A->glo[d], N[d] + 1, &A->ghi[d]));
  }
  for (PetscInt d = n; d < SR_MAX_DIM; d++) A->N[d] = 1;
  *ax = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The grid of SRCellsCreateGrid, one dimension at a time: the grid with counts N_d in
   dimension d and 1 elsewhere has the same centres and half-width in dimension d (they depend
   on N_d and D_d only), so the outward boxes are bit-identical to the full grid's. */
PetscErrorCode SRAxesCreateGrid(SRSystem sys, const PetscInt counts[], SRAxes *ax)
{
  const PetscInt n = sys->n;
  SRAxes         A;

  PetscFunctionBeginUser;
  PetscCall(SRAxesAlloc_Private(n, counts, &A));
  A->is_grid = PETSC_TRUE;
  for (PetscInt d = 0; d < n; d++) {
    PetscInt one[SR_MAX_DIM] = {[0 ... SR_MAX_DIM - 1] = 1};
    SRCells  c1;
    one[d] = counts[d];
    PetscCall(SRCellsCreateGrid(sys, one, &c1));
    A->dlo[d] = c1->dlo[d];
    A->dhi[d] = c1->dhi[d];
    for (PetscInt i = 0; i < counts[d]; i++) {
      double lo[SR_MAX_DIM], hi[SR_MAX_DIM];
      SRCellsBoxOuter(c1, i, lo, hi);
      A->olo[d][i] = lo[d];
      A->ohi[d][i] = hi[d];
    }
    for (PetscInt i = 0; i <= counts[d]; i++) SRCellsGridLine(c1, d, i, &A->glo[d][i], &A->ghi[d][i]);
    PetscCall(SRCellsDestroy(&c1));
    for (PetscInt i = 1; i < counts[d]; i++) PetscCheck(A->olo[d][i - 1] <= A->olo[d][i] && A->ohi[d][i - 1] <= A->ohi[d][i], PETSC_COMM_SELF, PETSC_ERR_PLIB, "grid axis %" PetscInt_FMT ": outward boxes not ordered at %" PetscInt_FMT, d, i);
  }
  *ax = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAxesCreateBoundaries(PetscInt n, const PetscInt N[], const double *const b[], SRAxes *ax)
{
  SRAxes A;

  PetscFunctionBeginUser;
  PetscCall(SRAxesAlloc_Private(n, N, &A));
  A->is_grid = PETSC_FALSE;
  for (PetscInt d = 0; d < n; d++) {
    for (PetscInt i = 0; i <= N[d]; i++) {
      PetscCheck(isfinite(b[d][i]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "partition boundary %" PetscInt_FMT " of dimension %" PetscInt_FMT " is %g: must be finite", i, d, b[d][i]);
      PetscCheck(i == 0 || b[d][i - 1] < b[d][i], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "partition boundaries of dimension %" PetscInt_FMT " must increase strictly: b[%" PetscInt_FMT "] = %.17g, b[%" PetscInt_FMT "] = %.17g", d, i - 1, i > 0 ? b[d][i - 1] : 0.0, i, b[d][i]);
      A->glo[d][i] = A->ghi[d][i] = b[d][i];
    }
    for (PetscInt i = 0; i < N[d]; i++) {
      A->olo[d][i] = b[d][i];
      A->ohi[d][i] = b[d][i + 1];
    }
    A->dlo[d] = b[d][0];
    A->dhi[d] = b[d][N[d]];
  }
  *ax = A;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRAxesCellBox(SRAxes ax, PetscInt64 k, double *lo, double *hi)
{
  for (PetscInt d = 0; d < ax->n; d++) {
    const PetscInt64 i = k % ax->N[d];
    k /= ax->N[d];
    lo[d] = ax->olo[d][i];
    hi[d] = ax->ohi[d][i];
  }
}

/* First i with v[i] >= x (N if none); v non-decreasing.  Starts from the uniform-spacing guess g
   (exact for the grid up to rounding, close for a learned partition) and walks a few steps,
   then bisects what is left: the answer never depends on the guess. */
static inline PetscInt SRLowerBound_Private(PetscInt N, const double *v, double x, PetscInt g)
{
  PetscInt lo = 0, hi = N;
  if (g < 0) g = 0;
  if (g > N - 1) g = N - 1;
  if (v[g] >= x) {
    hi = g; /* answer in [0, g] */
    for (int s = 0; s < 4 && hi > 0 && v[hi - 1] >= x; s++) hi--;
    if (hi == 0 || !(v[hi - 1] >= x)) return hi;
  } else {
    lo = g + 1; /* answer in [g + 1, N] */
    for (int s = 0; s < 4 && lo < N && !(v[lo] >= x); s++) lo++;
    if (lo == N || v[lo] >= x) return lo;
  }
  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (v[mid] >= x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/* Last i with v[i] <= x (-1 if none) = (first i with v[i] > x) - 1, the same way. */
static inline PetscInt SRLastLE_Private(PetscInt N, const double *v, double x, PetscInt g)
{
  PetscInt lo = 0, hi = N;
  if (g < 0) g = 0;
  if (g > N - 1) g = N - 1;
  if (v[g] > x) {
    hi = g;
    for (int s = 0; s < 4 && hi > 0 && v[hi - 1] > x; s++) hi--;
    if (hi == 0 || !(v[hi - 1] > x)) return hi - 1;
  } else {
    lo = g + 1;
    for (int s = 0; s < 4 && lo < N && !(v[lo] > x); s++) lo++;
    if (lo == N || v[lo] > x) return lo - 1;
  }
  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (v[mid] > x) hi = mid;
    else lo = mid + 1;
  }
  return lo - 1;
}

static inline PetscInt SRGuess_Private(SRAxes ax, PetscInt d, double x)
{
  const double t = (x - ax->dlo[d]) / (ax->dhi[d] - ax->dlo[d]) * (double)ax->N[d];
  if (!(t >= 0.0)) return 0; /* also NaN */
  if (t >= (double)(ax->N[d] - 1)) return ax->N[d] - 1;
  return (PetscInt)t;
}

void SRAxesIndexBox(SRAxes ax, const double *elo, const double *ehi, int32_t *row)
{
  const PetscInt n      = ax->n;
  PetscBool      inside = PETSC_TRUE;

  for (PetscInt d = 0; d < n; d++) {
    /* cells meeting [elo, ehi] in d: ohi[i] >= elo and olo[i] <= ehi */
    const PetscInt a = SRLowerBound_Private(ax->N[d], ax->ohi[d], elo[d], SRGuess_Private(ax, d, elo[d]) - 1);
    const PetscInt b = SRLastLE_Private(ax->N[d], ax->olo[d], ehi[d], SRGuess_Private(ax, d, ehi[d]));
    row[d]     = (int32_t)a;
    row[n + d] = (int32_t)b;
    if (!(ax->dlo[d] <= elo[d] && ehi[d] <= ax->dhi[d])) inside = PETSC_FALSE;
  }
  row[2 * n] = inside ? 0 : SR_LIST_SINK;
}

PetscInt64 SRListRowCount(PetscInt n, const int32_t *row)
{
  PetscInt64 c = 1;
  for (PetscInt d = 0; d < n; d++) c *= row[n + d] >= row[d] ? (PetscInt64)(row[n + d] - row[d] + 1) : 0;
  return c + ((row[2 * n] & SR_LIST_SINK) ? 1 : 0);
}

/* x in E, in D when the sink is listed, and outside every listed outward box. */
static PetscBool SRAxesWitnessValid_Private(SRAxes ax, const int32_t *row, const double *elo, const double *ehi, const double *x)
{
  const PetscInt n    = ax->n;
  const PetscBool sink = (PetscBool)((row[2 * n] & SR_LIST_SINK) != 0);
  PetscBool       out  = PETSC_FALSE;

  for (PetscInt d = 0; d < n; d++) {
    const int32_t a = row[d], b = row[n + d];
    if (!(elo[d] <= x[d] && x[d] <= ehi[d])) return PETSC_FALSE;
    if (sink && !(ax->dlo[d] <= x[d] && x[d] <= ax->dhi[d])) return PETSC_FALSE;
    if (a > b || a < 0 || b >= ax->N[d]) out = PETSC_TRUE; /* no listed cell (or a corrupt row: nothing valid listed) */
    else if (x[d] < ax->olo[d][a] || x[d] > ax->ohi[d][b]) out = PETSC_TRUE;
  }
  return out;
}

PetscBool SRAxesContains(SRAxes ax, const int32_t *row, const double *elo, const double *ehi, double *witness)
{
  const PetscInt  n    = ax->n;
  const PetscBool sink = (PetscBool)((row[2 * n] & SR_LIST_SINK) != 0);
  double          lo[SR_MAX_DIM], hi[SR_MAX_DIM], x[SR_MAX_DIM];
  PetscBool       meets = PETSC_TRUE, ok = PETSC_TRUE;
  PetscInt        bad = -1, side = 0;

  if (witness)
    for (PetscInt d = 0; d < n; d++) witness[d] = NAN;
  for (PetscInt d = 0; d < n; d++)
    if (!(isfinite(elo[d]) && isfinite(ehi[d]) && elo[d] <= ehi[d])) return PETSC_FALSE;
  if (row[2 * n] & SR_LIST_NONFINITE) ok = PETSC_FALSE;
  for (PetscInt d = 0; d < n; d++) {
    lo[d] = elo[d];
    hi[d] = ehi[d];
    if (sink) {
      lo[d] = PetscMax(lo[d], ax->dlo[d]);
      hi[d] = PetscMin(hi[d], ax->dhi[d]);
    }
    if (lo[d] > hi[d]) meets = PETSC_FALSE;
  }
  if (ok && sink && !meets) return PETSC_TRUE; /* E misses D: inside the sink R^n \ D */
  for (PetscInt d = 0; d < n && ok; d++) {
    const int32_t a = row[d], b = row[n + d];
    if (a > b || a < 0 || b >= ax->N[d]) {
      ok  = PETSC_FALSE;
      bad = d;
    } else if (!(lo[d] >= ax->ghi[d][a])) {
      ok   = PETSC_FALSE;
      bad  = d;
      side = -1;
    } else if (!(hi[d] <= ax->glo[d][b + 1])) {
      ok   = PETSC_FALSE;
      bad  = d;
      side = 1;
    }
  }
  if (ok || !witness) return ok;
  /* Witness: inside E (clipped to D with the sink), at the offending side in dimension bad. */
  for (PetscInt d = 0; d < n; d++) x[d] = lo[d] <= hi[d] ? 0.5 * lo[d] + 0.5 * hi[d] : elo[d];
  if (bad >= 0 && side < 0) x[bad] = lo[bad];
  if (bad >= 0 && side > 0) x[bad] = hi[bad];
  if (SRAxesWitnessValid_Private(ax, row, elo, ehi, x)) {
    for (PetscInt d = 0; d < n; d++) witness[d] = x[d];
    return PETSC_FALSE;
  }
  /* E leaving D without the sink: the part of E beyond D */
  for (PetscInt d = 0; d < n; d++) {
    for (PetscInt e = 0; e < n; e++) x[e] = 0.5 * elo[e] + 0.5 * ehi[e];
    if (ehi[d] > ax->dhi[d]) x[d] = ehi[d];
    else if (elo[d] < ax->dlo[d]) x[d] = elo[d];
    else continue;
    if (SRAxesWitnessValid_Private(ax, row, elo, ehi, x)) {
      for (PetscInt e = 0; e < n; e++) witness[e] = x[e];
      break;
    }
  }
  return PETSC_FALSE;
}
