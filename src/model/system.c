/* What every system of SPEC §2 and §16 shares, whatever its plant file says: the held map of
   -control_steps, its linearisation, the reference's LQR gain and spectral-radius check,
   printing.  The plant-backed steps are src/model/system_plant.c; the shipped files
   jobs/plants/ (compiled in: shipped_plants.c in the build tree). */
#include <simreach/system.h>

#include <petscviewer.h>

#define SR_LQR_MAX 8

const char *SRSystemNames(void) { return "toy1d, pendulum, dubins"; }

void SRSystemHeldLinearisation(SRSystem sys, double *A, double *B)
{
  const PetscInt n = sys->n, nu = sys->nu;
  const double   zero[SR_MAX_DIM] = { 0 };
  double         J[SR_MAX_DIM * SR_MAX_DIM], Ju[SR_MAX_DIM * SR_MAX_DIM];

  /* x = 0, u = 0 is an equilibrium of every system, so each of the m steps is linearised there:
     A_m = J^m, B_m = sum_{s < m} J^s J_u (built as A <- J A, B <- J B + J_u) */
  sys->step_jacobian(sys, zero, zero, J, Ju);
  for (PetscInt i = 0; i < n * n; i++) A[i] = J[i];
  for (PetscInt i = 0; i < n * nu; i++) B[i] = Ju[i];
  for (PetscInt s = 1; s < sys->control_steps; s++) {
    SRSystemChainStep(n, nu, J, Ju, A, B);
  }
}

/* 1 x 1 and 2 x 2 (the regulated parts of SPEC §2) in closed form; larger by Gelfand's formula
   rho = lim ||A^k||^(1/k) over k = 2^j, the powers normalised (no LAPACK needed). */
PetscErrorCode SRSpectralRadius(PetscInt n, const double *A, double *rho)
{
  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= SR_LQR_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SRSpectralRadius: n = %" PetscInt_FMT "; allowed 1..%d", n, SR_LQR_MAX);
  if (n == 1) *rho = fabs(A[0]);
  else if (n == 2) {
    const double tr = A[0] + A[3], det = A[0] * A[3] - A[1] * A[2], disc = 0.25 * tr * tr - det;
    if (disc >= 0) *rho = fabs(0.5 * tr) + sqrt(disc); /* real eigenvalues tr/2 +- sqrt(disc) */
    else *rho = sqrt(det);                                /* complex pair: |lambda|^2 = det */
  } else {
    double B[SR_LQR_MAX * SR_LQR_MAX], T[SR_LQR_MAX * SR_LQR_MAX], L = 0, nrm = 0;
    for (PetscInt i = 0; i < n * n; i++) nrm = PetscMax(nrm, fabs(A[i]));
    if (nrm == 0) {
      *rho = 0;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    for (PetscInt i = 0; i < n * n; i++) B[i] = A[i] / nrm;
    L = log(nrm); /* log ||A^(2^j)|| (max norm), B = A^(2^j) / ||A^(2^j)|| */
    for (PetscInt j = 1; j <= 40; j++) {
      double s = 0;
      for (PetscInt r = 0; r < n; r++)
        for (PetscInt c = 0; c < n; c++) {
          double t = 0;
          for (PetscInt k = 0; k < n; k++) t += B[r * n + k] * B[k * n + c];
          T[r * n + c] = t;
          s            = PetscMax(s, fabs(t));
        }
      if (s == 0) { /* nilpotent */
        *rho = 0;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      for (PetscInt i = 0; i < n * n; i++) B[i] = T[i] / s;
      L = 2 * L + log(s);
      *rho = exp(ldexp(L, -(int)j));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRLQRGainIterate_Private(PetscInt, PetscInt, const double *, const double *, const double *, const double *, double *, PetscBool *);

PetscErrorCode SRSystemSetControlSteps(MPI_Comm comm, SRSystem s, PetscInt m, PetscBool refuse)
{
  double    A[SR_MAX_DIM * SR_MAX_DIM], B[SR_MAX_DIM * SR_MAX_DIM], Ar[SR_MAX_DIM * SR_MAX_DIM];
  PetscFunctionBeginUser;
  PetscCheck(m >= 1 && m <= SR_MAX_CONTROL_STEPS, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -control_steps = %" PetscInt_FMT ": allowed is 1..%d", m, SR_MAX_CONTROL_STEPS);
  s->control_steps = m;
  s->ref_rho       = 0;
  if (!s->has_controller) PetscFunctionReturn(PETSC_SUCCESS);
  /* SPEC 2: the reference is judged on the map actually applied, the plant over the control
     period with u held, linearised at the equilibrium (the clip is inactive there) */
  SRSystemHeldLinearisation(s, A, B);
  if (s->plant->reference == 1) {
    /* 'reference lqr' (the pendulum): the discrete LQR gain (Q = I, R = I) of that map */
    double    Q[SR_MAX_DIM * SR_MAX_DIM] = {0}, R[SR_MAX_DIM * SR_MAX_DIM] = {0};
    PetscBool ok;
    for (PetscInt i = 0; i < s->n; i++) Q[i * s->n + i] = 1;
    for (PetscInt j = 0; j < s->nu; j++) R[j * s->nu + j] = 1;
    PetscCall(SRLQRGainIterate_Private(s->n, s->nu, A, B, Q, R, s->K, &ok));
    PetscCheck(ok || !refuse, comm, PETSC_ERR_ARG_OUTOFRANGE, "-sys %s -control_steps %" PetscInt_FMT ": no reference gain: the Riccati iteration for the LQR gain of the held map (SPEC 2) does not converge in double precision; choose a shorter -control_steps", s->name, m);
  }
  for (PetscInt i = 0; i < s->nreg; i++)
    for (PetscInt j = 0; j < s->nreg; j++) {
      const PetscInt r = s->reg[i], c = s->reg[j];
      double         t = A[r * s->n + c];
      for (PetscInt k = 0; k < s->nu; k++) t -= B[r * s->nu + k] * s->K[k * s->n + c];
      Ar[i * s->nreg + j] = t;
    }
  PetscCall(SRSpectralRadius(s->nreg, Ar, &s->ref_rho));
  PetscCheck(!refuse || s->ref_rho < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-sys %s -control_steps %" PetscInt_FMT ": the reference closed loop is not stable (spectral radius %.4g of its linearisation at the equilibrium in the regulated states, must be < 1; SPEC 2); choose another -control_steps or system constants", s->name, m, s->ref_rho);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSystemPrintReference(MPI_Comm comm, SRSystem sys, const char who[])
{
  char kstr[256] = "", reg[256] = "", buf[64];

  PetscFunctionBeginUser;
  if (!sys->has_controller) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt i = 0; i < sys->n * sys->nu; i++) {
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s%.4g", i ? (i % sys->n ? ", " : "; ") : "", sys->K[i] == 0 ? 0.0 : sys->K[i]));
    PetscCall(PetscStrlcat(kstr, buf, sizeof(kstr)));
  }
  for (PetscInt i = 0; i < sys->nreg; i++) {
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s%s", i ? ", " : "", sys->plant->state[sys->reg[i]]));
    PetscCall(PetscStrlcat(reg, buf, sizeof(reg)));
  }
  PetscCall(PetscPrintf(comm, "%s: reference u = clip(-K x), K = [%s] on %" PetscInt_FMT " held step(s); closed loop spectral radius %.4f in (%s) (SPEC 2: must be < 1)\n", who, kstr, sys->control_steps, sys->ref_rho, reg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSystemDestroy(SRSystem *sys)
{
  PetscFunctionBeginUser;
  if (!sys || !*sys) PetscFunctionReturn(PETSC_SUCCESS);
  if ((*sys)->plant) SRPlantFree((*sys)->plant);
  PetscCall(PetscFree((*sys)->plant));
  PetscCall(PetscFree((*sys)->plant_text));
  PetscCall(PetscFree((*sys)->wd));
  PetscCall(PetscFree((*sys)->wi));
  PetscCall(PetscFree((*sys)->wt));
  PetscCall(PetscFree((*sys)->xuses));
  PetscCall(PetscFree((*sys)->xform));
  PetscCall(PetscFree(*sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSystemView(SRSystem sys, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  if (!viewer) viewer = PETSC_VIEWER_STDOUT_WORLD;
  PetscCall(PetscViewerASCIIPrintf(viewer, "SRSystem %s: n = %" PetscInt_FMT ", nu = %" PetscInt_FMT ", dt = %g, umax = %g\n", sys->name, sys->n, sys->nu, sys->dt, sys->umax));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  for (PetscInt i = 0; i < sys->n; i++)
    PetscCall(PetscViewerASCIIPrintf(viewer, "D[%" PetscInt_FMT "] = [%.17g, %.17g]\n", i, sys->dlo[i], sys->dhi[i]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "constants: %.17g %.17g %.17g\n", sys->param[0], sys->param[1], sys->param[2]));
  if (sys->has_controller) {
    char kstr[128] = "", buf[32];
    for (PetscInt i = 0; i < sys->n * sys->nu; i++) {
      PetscCall(PetscSNPrintf(buf, sizeof(buf), " %.17g", sys->K[i]));
      PetscCall(PetscStrlcat(kstr, buf, sizeof(kstr)));
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "reference controller u = clip(-K x), K =%s\n", kstr));
    PetscCall(PetscViewerASCIIPrintf(viewer, "reference closed loop over %" PetscInt_FMT " held step(s): spectral radius %.6g in the regulated states\n", sys->control_steps, sys->ref_rho));
  } else
    PetscCall(PetscViewerASCIIPrintf(viewer, "no reference controller (dynamics mode only)\n"));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRSystemStepHeld(SRSystem sys, const double *x, const double *u, double *y)
{
  double z[SR_MAX_DIM];

  sys->step(sys, x, u, y);
  for (PetscInt s = 1; s < sys->control_steps; s++) {
    for (PetscInt d = 0; d < sys->n; d++) z[d] = y[d];
    sys->step(sys, z, u, y);
  }
}

void SRSystemStepHeldTaylor(SRSystem sys, const SRTaylor *X, const SRTaylor *U, SRTaylor *Y)
{
  SRTaylor Z[SR_MAX_DIM];

  sys->step_taylor(sys, X, U, Y);
  for (PetscInt s = 1; s < sys->control_steps; s++) {
    for (PetscInt d = 0; d < sys->n; d++) Z[d] = Y[d];
    sys->step_taylor(sys, Z, U, Y);
  }
}

/* Each step is a sound interval extension, so their composition is one (the state boxes of
   the intermediate steps contain every intermediate state of every x in X, u in U). */
void SRSystemStepHeldInterval(SRSystem sys, const SRInterval *X, const SRInterval *U, SRInterval *Y)
{
  SRInterval Z[SR_MAX_DIM];

  sys->step_interval(sys, X, U, Y);
  for (PetscInt s = 1; s < sys->control_steps; s++) {
    for (PetscInt d = 0; d < sys->n; d++) Z[d] = Y[d];
    sys->step_interval(sys, Z, U, Y);
  }
}

/* y_{s+1} = F(y_s, u), y_0 = x: with g_m = dY, g_s = J_x(y_s, u)^T g_{s+1} and
   du = sum_s J_u(y_s, u)^T g_{s+1}. */
void SRSystemStepHeldVJP(SRSystem sys, const double *x, const double *u, const double *dY, double *du)
{
  const PetscInt n = sys->n, nu = sys->nu, m = sys->control_steps;
  double         ys[(SR_MAX_CONTROL_STEPS + 1) * SR_MAX_DIM], g[SR_MAX_DIM], gn[SR_MAX_DIM];

  for (PetscInt d = 0; d < n; d++) {
    ys[d] = x[d];
    g[d]  = dY[d];
  }
  for (PetscInt s = 0; s < m - 1; s++) sys->step(sys, ys + s * n, u, ys + (s + 1) * n);
  for (PetscInt j = 0; j < nu; j++) du[j] = 0.0;
  for (PetscInt s = m - 1; s >= 0; s--) {
    double Jx[SR_MAX_DIM * SR_MAX_DIM], Ju[SR_MAX_DIM * SR_MAX_DIM];
    sys->step_jacobian(sys, ys + s * n, u, Jx, Ju);
    for (PetscInt j = 0; j < nu; j++)
      for (PetscInt k = 0; k < n; k++) du[j] += g[k] * Ju[k * nu + j];
    for (PetscInt i = 0; i < n; i++) {
      gn[i] = 0.0;
      for (PetscInt k = 0; k < n; k++) gn[i] += g[k] * Jx[k * n + i];
    }
    for (PetscInt i = 0; i < n; i++) g[i] = gn[i];
  }
}

/* Solve S X = G for X (m x n) by Gaussian elimination with partial pivoting; S is m x m. */
static PetscErrorCode SRSolveSmall_Private(PetscInt m, PetscInt n, const double *S, const double *G, double *X)
{
  double a[SR_LQR_MAX * SR_LQR_MAX], b[SR_LQR_MAX * SR_LQR_MAX];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < m * m; i++)
    a[i] = S[i];
  for (PetscInt i = 0; i < m * n; i++)
    b[i] = G[i];
  for (PetscInt k = 0; k < m; k++) {
    PetscInt p = k;
    for (PetscInt i = k + 1; i < m; i++)
      if (fabs(a[i * m + k]) > fabs(a[p * m + k])) p = i;
    PetscCheck(a[p * m + k] != 0.0, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "SRLQRGain: R + B^T P B is singular (R must be positive definite)");
    if (p != k) {
      for (PetscInt j = 0; j < m; j++) {
        const double t = a[k * m + j];
        a[k * m + j]   = a[p * m + j];
        a[p * m + j]   = t;
      }
      for (PetscInt j = 0; j < n; j++) {
        const double t = b[k * n + j];
        b[k * n + j]   = b[p * n + j];
        b[p * n + j]   = t;
      }
    }
    for (PetscInt i = k + 1; i < m; i++) {
      const double l = a[i * m + k] / a[k * m + k];
      for (PetscInt j = k; j < m; j++)
        a[i * m + j] -= l * a[k * m + j];
      for (PetscInt j = 0; j < n; j++)
        b[i * n + j] -= l * b[k * n + j];
    }
  }
  for (PetscInt k = m - 1; k >= 0; k--) {
    for (PetscInt j = 0; j < n; j++) {
      double t = b[k * n + j];
      for (PetscInt i = k + 1; i < m; i++)
        t -= a[k * m + i] * X[i * n + j];
      X[k * n + j] = t / a[k * m + k];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* From P: PA = P A, G = B^T P A and K = (R + B^T P B)^{-1} G. */
static PetscErrorCode SRRiccatiGain_Private(PetscInt n, PetscInt m, const double *A, const double *B, const double *R, const double *P, double *PA, double *G, double *K)
{
  double PB[SR_LQR_MAX * SR_LQR_MAX], S[SR_LQR_MAX * SR_LQR_MAX];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt j = 0; j < n; j++) {
      double t = 0.0;
      for (PetscInt k = 0; k < n; k++)
        t += P[i * n + k] * A[k * n + j];
      PA[i * n + j] = t;
    }
    for (PetscInt j = 0; j < m; j++) {
      double t = 0.0;
      for (PetscInt k = 0; k < n; k++)
        t += P[i * n + k] * B[k * m + j];
      PB[i * m + j] = t;
    }
  }
  for (PetscInt i = 0; i < m; i++) {
    for (PetscInt j = 0; j < m; j++) {
      double t = R[i * m + j];
      for (PetscInt k = 0; k < n; k++)
        t += B[k * m + i] * PB[k * m + j];
      S[i * m + j] = t;
    }
    for (PetscInt j = 0; j < n; j++) {
      double t = 0.0;
      for (PetscInt k = 0; k < n; k++)
        t += B[k * m + i] * PA[k * n + j];
      G[i * n + j] = t;
    }
  }
  PetscCall(SRSolveSmall_Private(m, n, S, G, K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Discrete Riccati iteration P <- Q + A^T P A - A^T P B (R + B^T P B)^{-1} B^T P A from P = Q,
   until the update is at rounding level; K = (R + B^T P B)^{-1} B^T P A.  Converges when
   (A, B) is stabilisable and Q > 0. */
static PetscErrorCode SRLQRGainIterate_Private(PetscInt n, PetscInt m, const double *A, const double *B, const double *Q, const double *R, double *K, PetscBool *ok)
{
  double         P[SR_LQR_MAX * SR_LQR_MAX], Pn[SR_LQR_MAX * SR_LQR_MAX], PA[SR_LQR_MAX * SR_LQR_MAX], G[SR_LQR_MAX * SR_LQR_MAX];
  const PetscInt maxit     = 100000;
  PetscBool      converged = PETSC_FALSE;
  double         diff = 0.0, scale = 1.0;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && n <= SR_LQR_MAX && m >= 1 && m <= SR_LQR_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SRLQRGain: n = %" PetscInt_FMT ", m = %" PetscInt_FMT "; allowed 1..%d", n, m, SR_LQR_MAX);
  for (PetscInt i = 0; i < n * n; i++)
    P[i] = Q[i];
  for (PetscInt it = 0; it < maxit && !converged; it++) {
    diff = 0.0, scale = 1.0;

    PetscCall(SRRiccatiGain_Private(n, m, A, B, R, P, PA, G, K));
    /* Pn = Q + A^T P A - G^T K, symmetrised */
    for (PetscInt i = 0; i < n; i++) {
      for (PetscInt j = 0; j < n; j++) {
        double t = Q[i * n + j];
        for (PetscInt k = 0; k < n; k++)
          t += A[k * n + i] * PA[k * n + j];
        for (PetscInt k = 0; k < m; k++)
          t -= G[k * n + i] * K[k * n + j];
        Pn[i * n + j] = t;
      }
    }
    for (PetscInt i = 0; i < n; i++) {
      for (PetscInt j = 0; j < i; j++)
        Pn[i * n + j] = Pn[j * n + i] = 0.5 * (Pn[i * n + j] + Pn[j * n + i]);
    }
    for (PetscInt i = 0; i < n * n; i++) {
      if (!isfinite(Pn[i])) { /* diverged: (A, B) not stabilisable? */
        *ok = PETSC_FALSE;
        PetscFunctionReturn(PETSC_SUCCESS);
      }
      diff  = fmax(diff, fabs(Pn[i] - P[i]));
      scale = fmax(scale, fabs(Pn[i]));
      P[i]  = Pn[i];
    }
    converged = (PetscBool)(diff <= 1e-13 * scale);
  }
  /* an iteration that stalls at rounding level of a badly scaled P (the held pendulum map at
     some periods) is converged too, to 1e-9 */
  if (!converged) converged = (PetscBool)(diff <= 1e-9 * scale);
  /* the loop's K belongs to the previous iterate: recompute from the last P */
  PetscCall(SRRiccatiGain_Private(n, m, A, B, R, P, PA, G, K));
  *ok = converged;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRLQRGain(PetscInt n, PetscInt m, const double *A, const double *B, const double *Q, const double *R, double *K)
{
  PetscBool ok;

  PetscFunctionBeginUser;
  PetscCall(SRLQRGainIterate_Private(n, m, A, B, Q, R, K, &ok));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "SRLQRGain: the Riccati iteration diverged or did not converge ((A, B) not stabilisable?)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one held step more: A <- J A, B <- J B + J_u (n x n and n x nu, row-major) */
void SRSystemChainStep(PetscInt n, PetscInt nu, const double *J, const double *Ju, double *A, double *B)
{
  double T[SR_MAX_DIM * SR_MAX_DIM];
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      double t = 0;
      for (PetscInt k = 0; k < n; k++) t += J[i * n + k] * A[k * n + j];
      T[i * n + j] = t;
    }
  for (PetscInt i = 0; i < n * n; i++) A[i] = T[i];
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < nu; j++) {
      double t = Ju[i * nu + j];
      for (PetscInt k = 0; k < n; k++) t += J[i * n + k] * B[k * nu + j];
      T[i * nu + j] = t;
    }
  for (PetscInt i = 0; i < n * nu; i++) B[i] = T[i];
}
