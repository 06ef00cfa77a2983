/* The cells of the abstraction (SPEC §4): boxes Psi_k = [c_k - w_k, c_k + w_k], their
   distances, the sink distance and the hard / Gaussian assignments. */
#include <simreach/cells.h>
#include <simreach/interval.h>
#include <float.h>
#include <math.h>

/* Positive part of the excess of x over the half-width in one dimension: the one formula
   every distance uses, so that the O(1) grid assignment reproduces the brute force bit
   for bit. */
static inline double SRExcess_Private(double x, double c, double w)
{
  double e = fabs(x - c) - w;
  return e > 0.0 ? e : 0.0;
}

/* || e ||_p of non-negative excesses, always summed in dimension order.  Every step is a
   monotone rounding, so the result is non-decreasing in each e_d (the grid assignment
   relies on it). */
static inline double SRNorm_Private(PetscInt n, const double *e, SRNorm p)
{
  double s = 0.0;

  switch (p) {
  case SR_NORM_1:
    for (PetscInt d = 0; d < n; d++) s += e[d];
    return s;
  case SR_NORM_2:
    for (PetscInt d = 0; d < n; d++) s += e[d] * e[d];
    return sqrt(s);
  default:
    for (PetscInt d = 0; d < n; d++) s = e[d] > s ? e[d] : s;
    return s;
  }
}

void SRCellsGridLine(SRCells cells, PetscInt d, PetscInt i, double *lo, double *hi)
{
  const double  a = cells->dlo[d], b = cells->dhi[d];
  const PetscInt N = cells->grid[d];

  /* g_i = a + i (b - a) / N in real arithmetic; the ends are exact. */
  if (i <= 0) {
    *lo = *hi = a;
  } else if (i >= N) {
    *lo = *hi = b;
  } else {
    const double wlo = SRSubDown(b, a), whi = SRSubUp(b, a); /* b - a >= 0 */
    const double qlo = SRDivDown(SRMulDown((double)i, wlo), (double)N);
    const double qhi = SRDivUp(SRMulUp((double)i, whi), (double)N);
    *lo = SRAddDown(a, qlo);
    *hi = SRAddUp(a, qhi);
  }
}

/* Half-width of dimension d such that, for every i, the inner (inward-rounded) box of
   [c_i - w, c_i + w] contains the outer enclosure of the exact grid box [g_i, g_{i+1}]
   (SPEC §4, §7: grid-aligned cells overlap by ulps instead of leaving gaps). */
static PetscErrorCode SRCellsGridHalfWidth_Private(SRCells cells, PetscInt d, const double *c, double *wout)
{
  const PetscInt N      = cells->grid[d];
  const double   h      = (cells->dhi[d] - cells->dlo[d]) / (double)N;
  double         margin = 4.0 * DBL_EPSILON * (fabs(cells->dlo[d]) + fabs(cells->dhi[d]));
  double         w      = SRAddUp(0.5 * h, margin);

  PetscFunctionBeginUser;
  for (PetscInt attempt = 0; attempt < 64; attempt++) {
    PetscBool ok = PETSC_TRUE;
    for (PetscInt i = 0; i < N && ok; i++) {
      double glo, ghi, g1lo, g1hi;
      SRCellsGridLine(cells, d, i, &glo, &ghi);
      SRCellsGridLine(cells, d, i + 1, &g1lo, &g1hi);
      if (!(SRSubUp(c[i], w) <= glo && SRAddDown(c[i], w) >= g1hi)) ok = PETSC_FALSE;
    }
    if (ok) {
      *wout = w;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    w = SRAddUp(w, margin);
    margin *= 2.0;
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, "could not inflate the grid half-width of dimension %" PetscInt_FMT " to cover the exact grid boxes of [%g, %g] with %" PetscInt_FMT " cells", d, cells->dlo[d], cells->dhi[d], N);
}

/* gline's length: c, w of N lines and the enclosures of N + 1 grid lines per dimension. */
static PetscInt SRCellsGridTableLength_Private(SRCells cells) { return 4 * cells->goff[SR_MAX_DIM] + 2 * cells->n; }

/* Not collective. */
PetscErrorCode SRCellsCreateGrid(SRSystem sys, const PetscInt counts[], SRCells *cells)
{
  SRCells  C;
  PetscInt n = sys->n, K = 1, stride = 1;
  double   hmin = PETSC_MAX_REAL, hmax = 0.0;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= SR_MAX_DIM, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "system %s has dimension %" PetscInt_FMT "; cells support 1..%d", sys->name, n, SR_MAX_DIM);
  for (PetscInt d = 0; d < n; d++) {
    PetscCheck(counts[d] >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-cells: count %" PetscInt_FMT " of dimension %" PetscInt_FMT " must be >= 1", counts[d], d);
    PetscCheck(sys->dlo[d] < sys->dhi[d] && isfinite(sys->dlo[d]) && isfinite(sys->dhi[d]), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "domain of system %s, dimension %" PetscInt_FMT ": [%g, %g] must be finite with lo < hi", sys->name, d, sys->dlo[d], sys->dhi[d]);
    PetscCheck(K <= PETSC_MAX_INT / counts[d], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-cells: the product of the counts overflows PetscInt");
    K *= counts[d];
  }
  PetscCall(PetscNew(&C));
  C->n = n;
  C->K = K;
  for (PetscInt d = 0; d < SR_MAX_DIM; d++) {
    C->dlo[d]  = d < n ? sys->dlo[d] : 0.0;
    C->dhi[d]  = d < n ? sys->dhi[d] : 0.0;
    C->grid[d] = d < n ? counts[d] : 1;
  }
  PetscCall(PetscMalloc2(K * n, &C->c, K * n, &C->w));
  for (PetscInt d = 0; d <= SR_MAX_DIM; d++) C->goff[d] = d == 0 ? 0 : C->goff[d - 1] + (d - 1 < n ? counts[d - 1] : 0);
  PetscCall(PetscMalloc1(SRCellsGridTableLength_Private(C), &C->gline));
  for (PetscInt d = 0; d < n; d++)
    for (PetscInt i = 0; i <= counts[d]; i++) {
      double *g = C->gline + 2 * C->goff[SR_MAX_DIM] + 2 * (C->goff[d] + d + i);
      SRCellsGridLine(C, d, i, &g[0], &g[1]);
    }
  for (PetscInt d = 0; d < n; d++) {
    const PetscInt N = counts[d];
    const double   h = (C->dhi[d] - C->dlo[d]) / (double)N;
    double        *c1, w;

    C->gscale[d] = (double)N / (C->dhi[d] - C->dlo[d]);
    PetscCall(PetscMalloc1(N, &c1));
    /* c_i = fl(dlo + (i + 1/2) h): non-decreasing in i (monotone rounding). */
    for (PetscInt i = 0; i < N; i++) c1[i] = C->dlo[d] + ((double)i + 0.5) * h;
    PetscCall(SRCellsGridHalfWidth_Private(C, d, c1, &w));
    for (PetscInt i = 0; i < N; i++) {
      C->gline[2 * (C->goff[d] + i)]     = c1[i];
      C->gline[2 * (C->goff[d] + i) + 1] = w;
    }
    for (PetscInt k = 0; k < K; k++) {
      const PetscInt i = (k / stride) % N;
      C->c[k * n + d]  = c1[i];
      C->w[k * n + d]  = w;
    }
    PetscCall(PetscFree(c1));
    hmin = PetscMin(hmin, h);
    hmax = PetscMax(hmax, h);
    stride *= N;
  }
  /* Defaults; the run overrides them from -w_min / -w_max / -p. */
  C->wmin         = 0.05 * hmin;
  C->wmax         = 2.0 * hmax;
  C->p            = SR_NORM_INF;
  C->grid_aligned = PETSC_TRUE;
  *cells          = C;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Not collective. */
PetscErrorCode SRCellsDuplicate(SRCells cells, SRCells *copy)
{
  SRCells C;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&C));
  *C = *cells;
  PetscCall(PetscMalloc2(cells->K * cells->n, &C->c, cells->K * cells->n, &C->w));
  PetscCall(PetscArraycpy(C->c, cells->c, cells->K * cells->n));
  PetscCall(PetscArraycpy(C->w, cells->w, cells->K * cells->n));
  PetscCall(PetscMalloc1(SRCellsGridTableLength_Private(cells), &C->gline));
  PetscCall(PetscArraycpy(C->gline, cells->gline, SRCellsGridTableLength_Private(cells)));
  if (cells->partition) {
    PetscCall(PetscMalloc1(cells->boff[cells->n], &C->bnd));
    PetscCall(PetscArraycpy(C->bnd, cells->bnd, cells->boff[cells->n]));
  }
  *copy = C;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Copies theta and every setting; both must have the same n and K.  Not collective. */
PetscErrorCode SRCellsCopy(SRCells from, SRCells to)
{
  double  *c, *w, *bnd, *gline;
  PetscInt ngline;

  PetscFunctionBeginUser;
  PetscCheck(from->partition == to->partition, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "SRCellsCopy: a partition and free boxes cannot be copied into each other");
  PetscCheck(from->n == to->n && from->K == to->K, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "SRCellsCopy: sizes differ (n %" PetscInt_FMT " vs %" PetscInt_FMT ", K %" PetscInt_FMT " vs %" PetscInt_FMT ")", from->n, to->n, from->K, to->K);
  if (from == to) PetscFunctionReturn(PETSC_SUCCESS);
  c   = to->c;
  w   = to->w;
  bnd    = to->bnd;
  gline  = to->gline;
  ngline = to->goff[SR_MAX_DIM];
  *to    = *from;
  to->c     = c;
  to->w     = w;
  to->bnd   = bnd;
  to->gline = gline;
  if (ngline != from->goff[SR_MAX_DIM]) { /* same K, other counts */
    PetscCall(PetscFree(to->gline));
    PetscCall(PetscMalloc1(SRCellsGridTableLength_Private(from), &to->gline));
  }
  PetscCall(PetscArraycpy(to->gline, from->gline, SRCellsGridTableLength_Private(from)));
  if (from->partition) PetscCall(PetscArraycpy(to->bnd, from->bnd, from->boff[from->n]));
  PetscCall(PetscArraycpy(to->c, from->c, from->K * from->n));
  PetscCall(PetscArraycpy(to->w, from->w, from->K * from->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Accepts NULL and a NULL handle; clears the handle.  Not collective. */
PetscErrorCode SRCellsDestroy(SRCells *cells)
{
  PetscFunctionBeginUser;
  if (!cells || !*cells) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree2((*cells)->c, (*cells)->w));
  PetscCall(PetscFree((*cells)->bnd));
  PetscCall(PetscFree((*cells)->gline));
  PetscCall(PetscFree(*cells));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRCellsSetFree(SRCells cells)
{
  PetscFunctionBeginUser;
  cells->grid_aligned = PETSC_FALSE; /* a partition never is: its own index arithmetic stays exact */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SPEC §4: d(x, k) = || max(|x - c_k| - w_k, 0) ||_p with (sub)gradients. */
double SRCellsDistance(SRCells cells, const double *x, PetscInt k, double *dx, double *dc, double *dw)
{
  const PetscInt n = cells->n;
  const double  *c = cells->c + k * n, *w = cells->w + k * n;
  double         e[SR_MAX_DIM], g[SR_MAX_DIM], s[SR_MAX_DIM], dist;

  if (cells->partition) {
    /* the excess over the exact faces: 0 on the closed cell, one rounding outside it */
    PetscInt idx[SR_MAX_DIM];
    SRCellsIndex(cells, k, idx);
    for (PetscInt d = 0; d < n; d++) {
      const double lo = cells->bnd[cells->boff[d] + idx[d]], hi = cells->bnd[cells->boff[d] + idx[d] + 1];
      e[d] = x[d] < lo ? lo - x[d] : (x[d] > hi ? x[d] - hi : 0.0);
      s[d] = x[d] < lo ? -1.0 : (x[d] > hi ? 1.0 : 0.0);
    }
  } else
    for (PetscInt d = 0; d < n; d++) {
      e[d] = SRExcess_Private(x[d], c[d], w[d]);
      s[d] = x[d] > c[d] ? 1.0 : (x[d] < c[d] ? -1.0 : 0.0);
    }
  dist = SRNorm_Private(n, e, cells->p);
  if (!dx && !dc && !dw) return dist;
  /* g_d = d dist / d e_d; 0 where dist = 0 (the subgradient 0). */
  for (PetscInt d = 0; d < n; d++) g[d] = 0.0;
  if (dist > 0.0) {
    switch (cells->p) {
    case SR_NORM_1:
      for (PetscInt d = 0; d < n; d++) g[d] = e[d] > 0.0 ? 1.0 : 0.0;
      break;
    case SR_NORM_2:
      for (PetscInt d = 0; d < n; d++) g[d] = e[d] / dist;
      break;
    default:
      for (PetscInt d = 0; d < n; d++) {
        if (e[d] == dist) { /* lowest maximal component */
          g[d] = 1.0;
          break;
        }
      }
    }
  }
  for (PetscInt d = 0; d < n; d++) {
    if (dx) dx[d] = g[d] * s[d];
    if (dc) dc[d] = -g[d] * s[d];
    if (dw) dw[d] = -g[d];
  }
  return dist;
}

/* SPEC §4: 0 outside D; inside, the distance to R^n \ D, i.e. the smallest face distance
   (the same in every p-norm).  Ties: lowest dimension, lower face first. */
double SRCellsSinkDistance(SRCells cells, const double *x, double *dx)
{
  const PetscInt n    = cells->n;
  double         best = PETSC_MAX_REAL;
  PetscInt       arg  = -1;
  double         sgn  = 0.0;

  if (dx)
    for (PetscInt d = 0; d < n; d++) dx[d] = 0.0;
  for (PetscInt d = 0; d < n; d++) {
    if (!(x[d] >= cells->dlo[d] && x[d] <= cells->dhi[d])) return 0.0; /* outside D (or NaN) */
  }
  for (PetscInt d = 0; d < n; d++) {
    const double a = x[d] - cells->dlo[d], b = cells->dhi[d] - x[d];
    if (a < best) {
      best = a;
      arg  = d;
      sgn  = 1.0;
    }
    if (b < best) {
      best = b;
      arg  = d;
      sgn  = -1.0;
    }
  }
  if (dx && best > 0.0) dx[arg] = sgn;
  return best;
}

static PetscInt SRCellsAssignBrute_Private(SRCells cells, const double *x)
{
  PetscInt best = 0;
  double   dbest = SRCellsDistance(cells, x, 0, NULL, NULL, NULL);

  for (PetscInt k = 1; k < cells->K; k++) {
    const double dk = SRCellsDistance(cells, x, k, NULL, NULL, NULL);
    if (dk < dbest) {
      dbest = dk;
      best  = k;
    }
  }
  return best;
}

/* Hard assignment on the grid-aligned cells by index arithmetic.  The excess of dimension d
   depends only on i_d (ex(i) below) and is non-increasing in i while c_i <= x_d,
   non-decreasing after, and the norm is monotone in each excess; so the smallest distance
   uses the per-dimension minima, and the lowest index among the minimisers (k orders by the
   last dimension first) is found dimension by dimension from the last, each time as the
   first i whose excess still attains the minimum (a binary search on the monotone part). */
static PetscInt SRCellsAssignGrid_Private(SRCells cells, const double *x)
{
  const PetscInt n = cells->n;
  PetscInt       stride[SR_MAX_DIM], jd[SR_MAX_DIM], k = 0;
  double         m[SR_MAX_DIM], dstar;

#define SR_EX(d, i) SRExcess_Private(x[d], cells->c[(i) * stride[d] * n + (d)], cells->w[(i) * stride[d] * n + (d)])
#define SR_C(d, i)  (cells->c[(i) * stride[d] * n + (d)])
  for (PetscInt d = 0, s = 1; d < n; d++) {
    stride[d] = s;
    s *= cells->grid[d];
  }
  for (PetscInt d = 0; d < n; d++) {
    const PetscInt N = cells->grid[d];
    const double   h = (cells->dhi[d] - cells->dlo[d]) / (double)N;
    double         t = floor((x[d] - cells->dlo[d]) / h - 0.5);
    PetscInt       j;

    /* j = the last i with c_i <= x_d (-1 if none): a guess, then corrected exactly */
    t = t < -1.0 ? -1.0 : (t > (double)(N - 1) ? (double)(N - 1) : t);
    j = (PetscInt)t;
    while (j >= 0 && SR_C(d, j) > x[d]) j--;
    while (j + 1 < N && SR_C(d, j + 1) <= x[d]) j++;
    jd[d] = j;
    if (j < 0) m[d] = SR_EX(d, 0);
    else if (j == N - 1) m[d] = SR_EX(d, j);
    else m[d] = PetscMin(SR_EX(d, j), SR_EX(d, j + 1));
  }
  dstar = SRNorm_Private(n, m, cells->p);
  for (PetscInt d = n - 1; d >= 0; d--) {
    const PetscInt j = jd[d];
    double         e[SR_MAX_DIM];
    PetscInt       i;

    for (PetscInt q = 0; q < n; q++) e[q] = m[q];
    e[d] = j >= 0 ? SR_EX(d, j) : PETSC_MAX_REAL;
    if (j >= 0 && SRNorm_Private(n, e, cells->p) <= dstar) {
      PetscInt lo = 0, hi = j; /* first i in [0, j] that attains dstar; hi does */
      while (lo < hi) {
        const PetscInt mid = lo + (hi - lo) / 2;
        e[d]               = SR_EX(d, mid);
        if (SRNorm_Private(n, e, cells->p) <= dstar) hi = mid;
        else lo = mid + 1;
      }
      i = lo;
    } else i = j + 1; /* then the minimum of this dimension is only at j + 1 */
    m[d] = SR_EX(d, i);
    k += i * stride[d];
  }
#undef SR_EX
#undef SR_C
  return k;
}

/* SPEC §4: smallest d(x, k), lowest index on ties.  Not collective. */
PetscInt SRCellsAssign(SRCells cells, const double *x)
{
  for (PetscInt d = 0; d < cells->n; d++)
    if (isnan(x[d])) return 0; /* every distance is NaN: the brute force keeps cell 0 */
  if (cells->partition) {
    /* the excess of dimension d is 0 on the located interval and positive on every other, or
       (outside D) smallest on the located one; the norm is monotone in each excess */
    PetscInt k = 0, stride = 1;
    for (PetscInt d = 0; d < cells->n; d++) {
      k += SRCellsPartitionLocate(cells, d, x[d]) * stride;
      stride *= cells->grid[d];
    }
    return k;
  }
  if (cells->grid_aligned) return SRCellsAssignGrid_Private(cells, x);
  return SRCellsAssignBrute_Private(cells, x);
}

/* SPEC §4 Gaussian assignment: the m nearest cells by (d, index), weights
   a_k = exp(-q_k / 2) / sum_l exp(-q_l / 2) with q_k = ||(x - c_k) / w_k||_2^2, shifted by
   the smallest q so that no weight underflows to a 0 / 0.  Not collective. */
PetscErrorCode SRCellsAssignGauss(SRCells cells, const double *x, PetscInt m, PetscInt *idx, double *a)
{
  const PetscInt n = cells->n;
  double        *dist, qmin = PETSC_MAX_REAL, s = 0.0;

  PetscFunctionBeginUser;
  PetscCheck(m >= 1 && m <= cells->K, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-assign_neighbors %" PetscInt_FMT ": must be in 1..K = %" PetscInt_FMT, m, cells->K);
  PetscCall(PetscMalloc1(m, &dist));
  /* insertion into a sorted list of the m best (d, then index) */
  PetscInt cnt = 0;
  for (PetscInt k = 0; k < cells->K; k++) {
    const double dk = SRCellsDistance(cells, x, k, NULL, NULL, NULL);
    PetscInt     pos;
    if (cnt == m && !(dk < dist[m - 1])) continue;
    pos = cnt < m ? cnt++ : m - 1;
    while (pos > 0 && dk < dist[pos - 1]) {
      dist[pos] = dist[pos - 1];
      idx[pos]  = idx[pos - 1];
      pos--;
    }
    dist[pos] = dk;
    idx[pos]  = k;
  }
  PetscCall(PetscFree(dist));
  for (PetscInt l = 0; l < m; l++) {
    const double *c = cells->c + idx[l] * n, *w = cells->w + idx[l] * n;
    double        q = 0.0;
    for (PetscInt d = 0; d < n; d++) {
      const double z = (x[d] - c[d]) / w[d];
      q += z * z;
    }
    a[l] = q;
    qmin = PetscMin(qmin, q);
  }
  for (PetscInt l = 0; l < m; l++) {
    a[l] = exp(-0.5 * (a[l] - qmin));
    s += a[l];
  }
  for (PetscInt l = 0; l < m; l++) a[l] /= s;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A partition cell's box is its faces, exact: outer and inner are the same. */
static void SRCellsBoxPartition_Private(SRCells cells, PetscInt k, double *lo, double *hi)
{
  PetscInt idx[SR_MAX_DIM];
  SRCellsIndex(cells, k, idx);
  for (PetscInt d = 0; d < cells->n; d++) {
    lo[d] = cells->bnd[cells->boff[d] + idx[d]];
    hi[d] = cells->bnd[cells->boff[d] + idx[d] + 1];
  }
}

void SRCellsBoxOuter(SRCells cells, PetscInt k, double *lo, double *hi)
{
  const PetscInt n = cells->n;
  if (cells->partition) {
    SRCellsBoxPartition_Private(cells, k, lo, hi);
    return;
  }
  for (PetscInt d = 0; d < n; d++) {
    lo[d] = SRSubDown(cells->c[k * n + d], cells->w[k * n + d]);
    hi[d] = SRAddUp(cells->c[k * n + d], cells->w[k * n + d]);
  }
}

void SRCellsBoxInner(SRCells cells, PetscInt k, double *lo, double *hi)
{
  const PetscInt n = cells->n;
  if (cells->partition) {
    SRCellsBoxPartition_Private(cells, k, lo, hi);
    return;
  }
  for (PetscInt d = 0; d < n; d++) {
    lo[d] = SRSubUp(cells->c[k * n + d], cells->w[k * n + d]);
    hi[d] = SRAddDown(cells->c[k * n + d], cells->w[k * n + d]);
  }
}

void SRCellsGridIndex(SRCells cells, PetscInt k, PetscInt *idx)
{
  for (PetscInt d = 0; d < cells->n; d++) {
    idx[d] = k % cells->grid[d];
    k /= cells->grid[d];
  }
}
