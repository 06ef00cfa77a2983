/* The statistics of the gather phase (SPEC §9): rank correlation, means and standard errors
   over seeds, the paired t test and its quantile, Holm's step-down adjustment. */
#include <simreach/private/gather_impl.h>
#include <simreach/study.h>
#include <math.h>

/* Average ranks (1-based) of x, ties sharing the mean of their positions. */
static PetscErrorCode AverageRanks_Private(PetscInt n, const double *x, double *rank)
{
  PetscInt *perm;
  double   *v;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(n, &perm, n, &v));
  for (PetscInt i = 0; i < n; i++) {
    perm[i] = i;
    v[i]    = x[i];
  }
  PetscCall(PetscSortRealWithPermutation(n, v, perm));
  for (PetscInt i = 0; i < n;) {
    PetscInt j = i + 1;
    while (j < n && x[perm[j]] == x[perm[i]]) j++;
    for (PetscInt k = i; k < j; k++) rank[perm[k]] = 0.5 * (double)(i + j - 1) + 1.0;
    i = j;
  }
  PetscCall(PetscFree2(perm, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Pearson correlation of the average ranks (what scipy.stats.spearmanr computes). */
double SRSpearman(PetscInt n, const double *x, const double *y)
{
  double *rx, *ry, mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;

  if (n < 2) return NAN;
  for (PetscInt i = 0; i < n; i++)
    if (!isfinite(x[i]) || !isfinite(y[i])) return NAN;
  if (PetscMalloc2(n, &rx, n, &ry)) return NAN;
  if (AverageRanks_Private(n, x, rx) || AverageRanks_Private(n, y, ry)) {
    (void)PetscFree2(rx, ry);
    return NAN;
  }
  for (PetscInt i = 0; i < n; i++) {
    mx += rx[i];
    my += ry[i];
  }
  mx /= n;
  my /= n;
  for (PetscInt i = 0; i < n; i++) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  (void)PetscFree2(rx, ry);
  if (sxx == 0 || syy == 0) return NAN; /* a constant series has no rank correlation */
  return sxy / sqrt(sxx * syy);
}

/* Mean and sample standard deviation (n - 1; 0 for one value) of the finite entries. */
void SRGatherMeanStd_Private(PetscInt n, const double *v, double *mean, double *std, PetscInt *used)
{
  double   s = 0, q = 0;
  PetscInt m = 0;

  for (PetscInt i = 0; i < n; i++)
    if (isfinite(v[i])) {
      s += v[i];
      m++;
    }
  *used = m;
  if (!m) {
    *mean = *std = NAN;
    return;
  }
  *mean = s / m;
  for (PetscInt i = 0; i < n; i++)
    if (isfinite(v[i])) q += (v[i] - *mean) * (v[i] - *mean);
  *std = m > 1 ? sqrt(q / (m - 1)) : 0.0;
}

double SRGatherReduction_Private(double s, double s0) { return (isfinite(s) && isfinite(s0) && s0 != 0) ? 1.0 - s / s0 : NAN; }


/* Mean and standard error (std / sqrt(m)) over the finite entries; m in *used. */
void SRGatherMeanSE_Private(PetscInt n, const double *v, double *mean, double *se, PetscInt *used)
{
  double std;
  SRGatherMeanStd_Private(n, v, mean, &std, used);
  *se = *used > 0 ? std / sqrt((double)*used) : NAN;
}

/* "Shows the effect" for the negative control (SPEC §9): mean paired reduction >= 20 % and > 2
   standard errors, >= 2 seeds. */
PetscBool SRGatherEffect_Private(double mean, double se, PetscInt used) { return (PetscBool)(used >= 2 && mean >= 0.2 && mean > 2.0 * se); }

/* The regularised incomplete beta function I_x(a, b) by its continued fraction (modified Lentz),
   for the Student t distribution below. */
static double BetaCF_Private(double a, double b, double x)
{
  const double tiny = 1e-300;
  double       c = 1, d = 1 - (a + b) * x / (a + 1), h;
  if (fabs(d) < tiny) d = tiny;
  d = 1 / d;
  h = d;
  for (int m = 1; m <= 300; m++) {
    const int    m2 = 2 * m;
    const double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2)), ab = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    double       del;
    d = 1 + aa * d;
    d = fabs(d) < tiny ? tiny : d;
    c = 1 + aa / c;
    c = fabs(c) < tiny ? tiny : c;
    d = 1 / d;
    h *= d * c;
    d = 1 + ab * d;
    d = fabs(d) < tiny ? tiny : d;
    c = 1 + ab / c;
    c = fabs(c) < tiny ? tiny : c;
    d   = 1 / d;
    del = d * c;
    h *= del;
    if (fabs(del - 1) < 1e-15) break;
  }
  return h;
}

double SRGatherIncBeta_Private(double a, double b, double x)
{
  double bt;
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
  return x < (a + 1) / (a + b + 2) ? bt * BetaCF_Private(a, b, x) / a : 1 - bt * BetaCF_Private(b, a, 1 - x) / b;
}

/* Paired t test (SPEC §9) of mean / se on used - 1 degrees of freedom: two-sided p of mean != 0,
   or one-sided p of mean > 0.  se = 0 gives p = 0 for a nonzero mean (every seed the same
   difference) and 1 for a zero one; fewer than 2 values give NaN (no test). */
double SRGatherPairedT_Private(double mean, double se, PetscInt used, PetscBool two_sided)
{
  double t, nu, p2;
  if (used < 2 || !isfinite(mean)) return NAN;
  if (!(se > 0)) return mean == 0 ? 1.0 : (two_sided || mean > 0 ? 0.0 : 1.0);
  t  = mean / se;
  nu = (double)(used - 1);
  p2 = SRGatherIncBeta_Private(0.5 * nu, 0.5, nu / (nu + t * t)); /* P(|T| >= |t|) */
  if (two_sided) return p2;
  return t > 0 ? 0.5 * p2 : 1 - 0.5 * p2;
}

/* Holm's step-down adjustment of the m p-values in p (NaN: not in the family) into adj:
   sorted ascending, adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)); a hypothesis is rejected at
   family-wise error alpha when adj < alpha.  Returns the family size. */
PetscInt SRGatherHolm_Private(PetscInt m, const double *p, double *adj)
{
  PetscInt nf = 0, *ord;
  double   run = 0;
  if (PetscMalloc1(PetscMax(m, 1), &ord)) return -1;
  for (PetscInt i = 0; i < m; i++) {
    adj[i] = NAN;
    if (isfinite(p[i])) ord[nf++] = i;
  }
  for (PetscInt i = 1; i < nf; i++) /* insertion sort: families are small */
    for (PetscInt j = i; j > 0 && p[ord[j]] < p[ord[j - 1]]; j--) {
      const PetscInt t = ord[j];
      ord[j]           = ord[j - 1];
      ord[j - 1]       = t;
    }
  for (PetscInt j = 0; j < nf; j++) {
    run          = PetscMax(run, PetscMin(1.0, (double)(nf - j) * p[ord[j]]));
    adj[ord[j]] = run;
  }
  PetscFree(ord);
  return nf;
}


/* Student's t quantile by bisection on P(T <= t) = 1 - I_{nu / (nu + t^2)}(nu / 2, 1 / 2) / 2. */
double SRGatherTQuantile_Private(double q, double nu)
{
  double lo = 0, hi = 1e6;
  if (!(nu > 0) || !(q > 0.5 && q < 1)) return NAN;
  for (int it = 0; it < 200; it++) {
    const double t = 0.5 * (lo + hi), cdf = 1 - 0.5 * SRGatherIncBeta_Private(0.5 * nu, 0.5, nu / (nu + t * t));
    if (cdf < q) lo = t;
    else hi = t;
  }
  return 0.5 * (lo + hi);
}
