/* The simulation loss L_sim, the hard metric H and eps-coverage (SPEC §6). */
#include <simreach/loss.h>
#include <math.h>

const char *const SRAssignTypes[] = {"hard", "gauss", "SRAssignType", "SR_ASSIGN_", NULL};

/* softmin_tau(a) = m - tau log(1 + sum_{j != j*} exp(-(a_j - m) / tau)), m = a_{j*} = min a
   (max-shifted, SPEC §6).  Since the log term lies in [0, log n], the result lies in
   [m - tau log n, m]; rounding is monotone, so it never exceeds m.  tau <= 0 or an infinite
   minimum gives the hard min with all the weight on its lowest index. */
static double SRSoftExtreme_Private(PetscInt n, const double *a, double tau, double *w, double sgn)
{
  PetscInt jm = 0;
  double   m, s = 0.0;

  if (n <= 0) return sgn * INFINITY; /* empty set: +inf for the min, -inf for the max */
  for (PetscInt j = 1; j < n; j++)
    if (sgn * a[j] < sgn * a[jm]) jm = j;
  m = a[jm];
  if (!(tau > 0.0) || isinf(m) || isnan(m)) {
    if (w) {
      for (PetscInt j = 0; j < n; j++) w[j] = 0.0;
      w[jm] = 1.0;
    }
    return m;
  }
  for (PetscInt j = 0; j < n; j++) {
    const double t = j == jm ? 0.0 : exp(-sgn * (a[j] - m) / tau);
    if (w) w[j] = t;
    s += t;
  }
  if (w) {
    const double z = 1.0 + s;
    for (PetscInt j = 0; j < n; j++) w[j] = (j == jm ? 1.0 : w[j]) / z;
  }
  return m - sgn * tau * log1p(s);
}

double SRSoftmin(PetscInt n, const double *a, double tau, double *w) { return SRSoftExtreme_Private(n, a, tau, w, 1.0); }

double SRSoftmax(PetscInt n, const double *a, double tau, double *w) { return SRSoftExtreme_Private(n, a, tau, w, -1.0); }

/* d(y, j) for a successor j (j = K: the sink), with gradients; the sink does not depend on theta. */
static double SRSuccessorDistance_Private(SRCells cells, const double *y, PetscInt j, double *dy, double *dc, double *dw)
{
  if (j == cells->K) {
    if (dc)
      for (PetscInt d = 0; d < cells->n; d++) dc[d] = dw[d] = 0.0;
    return SRCellsSinkDistance(cells, y, dy);
  }
  return SRCellsDistance(cells, y, j, dy, dc, dw);
}

static PetscErrorCode SRLossCheckInput_Private(SRCells cells, const SRSuccessorList *T, const SRLossParams *par, PetscInt N, PetscInt *maxT)
{
  PetscFunctionBeginUser;
  PetscCheck(N >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "number of samples %" PetscInt_FMT " must be >= 0", N);
  PetscCheck(T->K == cells->K, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "successor list has %" PetscInt_FMT " cells, the cells %" PetscInt_FMT, T->K, cells->K);
  PetscCheck(par->tau > 0.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-tau %g: must be > 0", par->tau);
  PetscCheck(par->lambda_eps >= 0.0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-lambda_eps %g: must be >= 0", par->lambda_eps);
  PetscCheck(par->assign == SR_ASSIGN_HARD || par->assign == SR_ASSIGN_GAUSS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-assign %d: allowed hard, gauss", (int)par->assign);
  if (par->assign == SR_ASSIGN_GAUSS)
    PetscCheck(par->assign_neighbors >= 1 && par->assign_neighbors <= cells->K, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-assign_neighbors %" PetscInt_FMT ": must be in 1..K = %" PetscInt_FMT, par->assign_neighbors, cells->K);
  *maxT = 0;
  for (PetscInt k = 0; k < cells->K; k++) {
    *maxT = PetscMax(*maxT, SRSuccessorListLength(T, k));
    if (T->rows) continue; /* index boxes: validated when they were set */
    for (PetscInt t = T->ptr[k]; t < T->ptr[k + 1]; t++)
      PetscCheck(T->idx[t] >= 0 && T->idx[t] <= cells->K, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "successor %" PetscInt_FMT " of cell %" PetscInt_FMT " is outside 0..K = %" PetscInt_FMT " (K = sink)", T->idx[t], k, cells->K);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* softmin over T(k) = Tk[0..nt) of d(y, j); a, wts: buffers of nt. */
static PetscErrorCode SRLossSoftminT_Private(SRCells cells, PetscInt nt, const PetscInt *Tk, PetscInt k, const double *y, double tau, double *a, double *wts, double *sm, double *amin)
{
  PetscFunctionBeginUser;
  PetscCheck(nt > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "target list T(%" PetscInt_FMT ") is empty: every cell a sample is assigned to needs a successor (the sink counts)", k);
  *amin = INFINITY;
  for (PetscInt t = 0; t < nt; t++) {
    a[t]  = SRSuccessorDistance_Private(cells, y, Tk[t], NULL, NULL, NULL);
    *amin = PetscMin(*amin, a[t]);
  }
  *sm = SRSoftmin(nt, a, tau, wts);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SPEC §6:
     r_i   = sum_k a_ik [softmin_{j in T(k)} d(y_i, j) - d(x_i, k)]     (hard: a_ik = 1 for k = hat x_i)
     e_i   = sum_k a_ik [d(x_i, k) - eps]_+
     L_sim = softmax_i r_i + lambda_eps softmax_i e_i.
   The choice of the cells (argmin, the m nearest) is piecewise constant and held fixed in
   the gradient; for the Gaussian assignment the gradient goes through a_ik.  Not collective. */
static PetscErrorCode SRLossSim_Private(SRCells cells, const SRSuccessorList *T, const SRLossParams *par, PetscInt N, const double *X, const double *Y, const PetscInt *hat, SRLossValues *val, double *dY, double *dtheta)
{
  const PetscInt n = cells->n, K = cells->K;
  const PetscInt m = (par->assign == SR_ASSIGN_GAUSS && !hat) ? par->assign_neighbors : 1;
  const double   tau = par->tau, eps = par->eps, lam = par->lambda_eps;
  PetscInt      *kk, maxT, nused = 0, *scr = NULL, scap = 0, nt;
  const PetscInt *Tk;
  double        *aw, *g, *h, *r, *e, *u, *v, *a, *wts, gap_min = 0.0, rmax = -INFINITY;

  PetscFunctionBeginUser;
  PetscCall(SRLossCheckInput_Private(cells, T, par, N, &maxT));
  PetscCall(PetscMalloc4(N * m, &kk, N * m, &aw, N * m, &g, N * m, &h));
  PetscCall(PetscMalloc4(N, &r, N, &e, N, &u, N, &v));
  PetscCall(PetscMalloc2(maxT, &a, maxT, &wts));
  for (PetscInt i = 0; i < N; i++) {
    const double *x = X + i * n, *y = Y + i * n;
    if (hat) {
      kk[i] = hat[i];
      aw[i] = 1.0;
    } else if (par->assign == SR_ASSIGN_GAUSS) PetscCall(SRCellsAssignGauss(cells, x, m, kk + i * m, aw + i * m));
    else {
      kk[i] = SRCellsAssign(cells, x);
      aw[i] = 1.0;
    }
    r[i] = e[i] = 0.0;
    for (PetscInt l = 0; l < m; l++) {
      const PetscInt k = kk[i * m + l];
      double         sm, amin, dx;
      PetscCall(SRSuccessorListGet(T, k, &scr, &scap, &nt, &Tk));
      PetscCall(SRLossSoftminT_Private(cells, nt, Tk, k, y, tau, a, wts, &sm, &amin));
      gap_min = PetscMax(gap_min, amin - sm);
      nused   = PetscMax(nused, nt);
      dx      = hat ? 0.0 : SRCellsDistance(cells, x, k, NULL, NULL, NULL);
      g[i * m + l] = sm - dx;
      h[i * m + l] = PetscMax(dx - eps, 0.0);
      r[i] += aw[i * m + l] * g[i * m + l];
      e[i] += aw[i * m + l] * h[i * m + l];
    }
    rmax = PetscMax(rmax, r[i]);
  }
  val->Lsim_r   = SRSoftmax(N, r, tau, u);
  val->Lsim_eps = SRSoftmax(N, e, tau, v);
  val->Lsim     = val->Lsim_r + (lam > 0.0 ? lam * val->Lsim_eps : 0.0); /* no 0 * -inf when N = 0 */
  val->gap_min  = gap_min;
  val->taulogn  = nused > 0 ? tau * log((double)nused) : 0.0;
  val->gap_max  = N > 0 ? val->Lsim_r - rmax : 0.0;
  val->taulogN  = N > 0 ? tau * log((double)N) : 0.0;

  if (dY) PetscCall(PetscArrayzero(dY, N * n));
  if (dtheta) PetscCall(PetscArrayzero(dtheta, 2 * n * K));
  if (dY || dtheta) {
    double *dcb = dtheta, *dwb = dtheta ? dtheta + n * K : NULL;
    for (PetscInt i = 0; i < N; i++) {
      const double *x = X + i * n, *y = Y + i * n;
      double        rbar = 0.0, G[64];
      double       *Gl   = m <= 64 ? G : NULL;

      if (!Gl) PetscCall(PetscMalloc1(m, &Gl));
      /* dL / d a_il = u_i g_il + lambda v_i h_il, and their a-weighted mean */
      for (PetscInt l = 0; l < m; l++) {
        Gl[l] = u[i] * g[i * m + l] + lam * v[i] * h[i * m + l];
        rbar += aw[i * m + l] * Gl[l];
      }
      for (PetscInt l = 0; l < m; l++) {
        const PetscInt k  = kk[i * m + l];
        const double   U  = u[i] * aw[i * m + l];
        double         sm, amin, gy[SR_MAX_DIM], gc[SR_MAX_DIM], gw[SR_MAX_DIM], dx;

        /* through the softmin over T(k): weight U wts_j on d(y_i, j) */
        PetscCall(SRSuccessorListGet(T, k, &scr, &scap, &nt, &Tk));
        PetscCall(SRLossSoftminT_Private(cells, nt, Tk, k, y, tau, a, wts, &sm, &amin));
        for (PetscInt t = 0; t < nt; t++) {
          const PetscInt j = Tk[t];
          const double   s = U * wts[t];
          if (s == 0.0) continue;
          (void)SRSuccessorDistance_Private(cells, y, j, gy, gc, gw);
          if (dY)
            for (PetscInt d = 0; d < n; d++) dY[i * n + d] += s * gy[d];
          if (dtheta && j < K)
            for (PetscInt d = 0; d < n; d++) {
              dcb[j * n + d] += s * gc[d];
              dwb[j * n + d] += s * gw[d];
            }
        }
        if (!dtheta || hat) continue;
        /* through d(x_i, k): -U in r_i, lambda v_i a_ik in e_i where the [.]_+ is active */
        dx = SRCellsDistance(cells, x, k, NULL, gc, gw);
        {
          const double s = -U + (dx - eps > 0.0 ? lam * v[i] * aw[i * m + l] : 0.0);
          for (PetscInt d = 0; d < n; d++) {
            dcb[k * n + d] += s * gc[d];
            dwb[k * n + d] += s * gw[d];
          }
        }
        /* through a_il = softmax_l(-q_l / 2): dL/dq_l = -a_l (G_l - rbar) / 2,
           q_l = sum_d ((x_d - c_ld) / w_ld)^2 */
        if (par->assign == SR_ASSIGN_GAUSS) {
          const double s = -0.5 * aw[i * m + l] * (Gl[l] - rbar);
          for (PetscInt d = 0; d < n; d++) {
            const double wd = cells->w[k * n + d], z = (x[d] - cells->c[k * n + d]) / wd;
            dcb[k * n + d] += s * (-2.0 * z / wd);
            dwb[k * n + d] += s * (-2.0 * z * z / wd);
          }
        }
      }
      if (Gl != G) PetscCall(PetscFree(Gl));
    }
  }
  PetscCall(PetscFree2(a, wts));
  PetscCall(PetscFree(scr));
  PetscCall(PetscFree4(r, e, u, v));
  PetscCall(PetscFree4(kk, aw, g, h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRLossSim(SRCells cells, const SRSuccessorList *T, const SRLossParams *par, PetscInt N, const double *X, const double *Y, SRLossValues *val, double *dY, double *dtheta)
{
  PetscFunctionBeginUser;
  PetscCall(SRLossSim_Private(cells, T, par, N, X, Y, NULL, val, dY, dtheta));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SPEC §8: the theta objective of a partition, with the hard assignment hat[i] frozen for the
   solve and d(x_i, hat x_i) = 0 (a partition covers D: whichever cell x_i lies in after a move,
   its distance is 0).  Not collective. */
PetscErrorCode SRLossSimFrozen(SRCells cells, const SRSuccessorList *T, const SRLossParams *par, PetscInt N, const double *X, const double *Y, const PetscInt *hat, SRLossValues *val, double *dtheta)
{
  PetscFunctionBeginUser;
  PetscCheck(hat, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "SRLossSimFrozen needs the frozen assignment");
  PetscCall(SRLossSim_Private(cells, T, par, N, X, Y, hat, val, NULL, dtheta));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SPEC §6: H = max_i [min_{j in T(hat x_i)} d(y_i, j) - d(x_i, hat x_i)] + lambda_eps max_i
   [d(x_i, hat x_i) - eps]_+ with the hard assignment, the eps-coverage (non-sink targets only)
   and the fraction of images outside D.  Not collective. */
PetscErrorCode SRLossHard(SRCells cells, const SRSuccessorList *T, const SRLossParams *par, PetscInt N, const double *X, const double *Y, SRLossValues *val)
{
  const PetscInt n = cells->n;
  PetscInt       maxT, covered = 0, out = 0, *scr = NULL, scap = 0, nt;
  const PetscInt *Tk;
  double         hr = -INFINITY, he = 0.0;

  PetscFunctionBeginUser;
  PetscCall(SRLossCheckInput_Private(cells, T, par, N, &maxT));
  for (PetscInt i = 0; i < N; i++) {
    const double  *x = X + i * n, *y = Y + i * n;
    const PetscInt k = SRCellsAssign(cells, x);
    const double   dx = SRCellsDistance(cells, x, k, NULL, NULL, NULL);
    double         amin = INFINITY, amin_cell = INFINITY;

    PetscCall(SRSuccessorListGet(T, k, &scr, &scap, &nt, &Tk));
    PetscCheck(nt > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "target list T(%" PetscInt_FMT ") is empty: every cell a sample is assigned to needs a successor (the sink counts)", k);
    for (PetscInt t = 0; t < nt; t++) {
      const double a = SRSuccessorDistance_Private(cells, y, Tk[t], NULL, NULL, NULL);
      amin = PetscMin(amin, a);
      if (Tk[t] < cells->K) amin_cell = PetscMin(amin_cell, a);
    }
    hr = PetscMax(hr, amin - dx);
    he = PetscMax(he, dx - par->eps);
    /* a target sink does not cover: a network that maps everything out of D has coverage 0 */
    if (dx <= par->eps && amin_cell <= par->eps) covered++;
    for (PetscInt d = 0; d < n; d++)
      if (!(y[d] >= cells->dlo[d] && y[d] <= cells->dhi[d])) {
        out++;
        break;
      }
  }
  val->H_r      = hr;
  val->H_eps    = he;
  val->H        = hr + par->lambda_eps * he;
  val->coverage = N > 0 ? (double)covered / (double)N : 0.0;
  val->out_of_D = N > 0 ? (double)out / (double)N : 0.0;
  PetscCall(PetscFree(scr));
  PetscFunctionReturn(PETSC_SUCCESS);
}
