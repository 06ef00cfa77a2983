/* The first-order width loss L_w1 (-loss width1): the positive control's treatment on the
   enclosure |M_tight| counts (SPEC §9 "Controls"; docs/study.md, "The positive control").

   |M_tight| is the count of the tightest enclosure (interval and first-order Taylor model, on
   2 x 2 sub-boxes).  Over a cell c +- r the first-order (taylor1) box of the closed-loop map
   f(x) = F(x, u(x)) has half-widths sum_j |J_ij(c)| r_j plus a higher-order remainder, J the
   Jacobian of f at the centre:
       controller  J = A + B g,  A = dF/dx (c, u), B = dF/du (c, u), g = u'(N) dN/dx (c),
                   u = umax tanh(N) (simreach's own networks) held for the control period;
       dynamics    J = I + dN/dx (c)   (f = x + N(x)).
   Per cell e_k = sum_i (sum_j |J_ij| r_j) / r_i (the first-order box's widths in units of the
   cell's own), and L_w1 = mean_k e_k (|M_tight| is a mean over the cells).  Its gradient in phi:
   dN/dx by forward mode through the MLP at c, its phi-derivative by reverse mode over that
   forward pass (the tangents' adjoints, tanh'' = -2 tanh tanh'); A and B by central differences
   of SRSystemStepHeld, their dependence on u by central differences of e_k in u.
   Round-to-nearest: a training loss, not an enclosure (soundness stays with SPEC §7). */
#include <simreach/lossencl.h>

#define SR_W1_HX 1e-5 /* central-difference steps: state (relative), control (relative to umax) */
#define SR_W1_HU 1e-5
#define SR_W1_HUU 1e-4 /* e_k's dependence on u through A(u), B(u) */

typedef struct {
  SRModel  model;
  SRMLP    mlp;
  PetscInt L, mw, n, nu;
  double  *a, *at, *zt; /* a[l * mw + i]; tangents at/zt[(l * n + j) * mw + i] for direction j */
  double  *p, *p2, *q, *q2, *Pa, *Qa;
} SRW1Pass_Private;

/* N (nu) and dN (nu x n, row-major) of the network at x: forward and forward-mode tangents. */
static void SRW1Forward_Private(SRW1Pass_Private *s, const double *x, double *N, double *dN)
{
  const SRMLP    mlp = s->mlp;
  const PetscInt n = s->n, mw = s->mw;

  for (PetscInt d = 0; d < n; d++) {
    s->a[d] = x[d];
    for (PetscInt j = 0; j < n; j++) s->at[j * mw + d] = d == j ? 1.0 : 0.0;
  }
  for (PetscInt l = 0; l < s->L; l++) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
    const double  *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];
    for (PetscInt i = 0; i < wout; i++) {
      double z = b[i];
      for (PetscInt m = 0; m < win; m++) z += W[i * win + m] * s->a[l * mw + m];
      if (l < s->L - 1) s->a[(l + 1) * mw + i] = tanh(z);
      else N[i] = z;
      for (PetscInt j = 0; j < n; j++) {
        const double *ain = s->at + (l * n + j) * mw;
        double        zd  = 0.0;
        for (PetscInt m = 0; m < win; m++) zd += W[i * win + m] * ain[m];
        if (l < s->L - 1) {
          const double t = s->a[(l + 1) * mw + i];
          s->zt[((l + 1) * n + j) * mw + i] = zd;
          s->at[((l + 1) * n + j) * mw + i] = (1.0 - t * t) * zd;
        } else dN[i * n + j] = zd;
      }
    }
  }
}

/* grad += d/dphi (sum_o pN_o N_o + sum_oj lam_oj dN_oj): reverse mode over SRW1Forward_Private. */
static void SRW1Backward_Private(SRW1Pass_Private *s, const double *pN, const double *lam, double *grad)
{
  const SRMLP    mlp = s->mlp;
  const PetscInt n = s->n, mw = s->mw;
  double        *p = s->p, *p2 = s->p2, *q = s->q, *q2 = s->q2, *t;

  for (PetscInt o = 0; o < s->nu; o++) {
    p[o] = pN[o];
    for (PetscInt j = 0; j < n; j++) q[j * mw + o] = lam[o * n + j];
  }
  for (PetscInt l = s->L - 1; l >= 0; l--) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
    const double  *W = mlp->params + mlp->woff[l];
    double        *gW = grad + mlp->woff[l], *gb = grad + mlp->boff[l];
    for (PetscInt m = 0; m < win; m++) {
      s->Pa[m] = 0.0;
      for (PetscInt j = 0; j < n; j++) s->Qa[j * mw + m] = 0.0;
    }
    for (PetscInt i = 0; i < wout; i++) {
      gb[i] += p[i];
      for (PetscInt m = 0; m < win; m++) {
        double g = p[i] * s->a[l * mw + m];
        for (PetscInt j = 0; j < n; j++) {
          g += q[j * mw + i] * s->at[(l * n + j) * mw + m];
          s->Qa[j * mw + m] += W[i * win + m] * q[j * mw + i];
        }
        gW[i * win + m] += g;
        s->Pa[m] += W[i * win + m] * p[i];
      }
    }
    if (l == 0) break;
    /* layer l's input a = tanh(z), at_j = (1 - a^2) zt_j: d at_j / dz = -2 a (1 - a^2) zt_j */
    for (PetscInt m = 0; m < win; m++) {
      const double a = s->a[l * mw + m], sd = 1.0 - a * a;
      double       pm = sd * s->Pa[m];
      for (PetscInt j = 0; j < n; j++) {
        pm += s->Qa[j * mw + m] * s->zt[(l * n + j) * mw + m] * (-2.0 * a * sd);
        q2[j * mw + m] = sd * s->Qa[j * mw + m];
      }
      p2[m] = pm;
    }
    t  = p;
    p  = p2;
    p2 = t;
    t  = q;
    q  = q2;
    q2 = t;
  }
}

/* A = dF/dx (n x n) and B = dF/du (n x nu) of the held step at (x, u), central differences. */
static void SRW1Plant_Private(SRSystem sys, const double *x, const double *u, double *A, double *B)
{
  const PetscInt n = sys->n, nu = sys->nu;
  double         xp[SR_MAX_DIM], up[SR_MAX_DIM], yp[SR_MAX_DIM], ym[SR_MAX_DIM];

  for (PetscInt d = 0; d < n; d++) xp[d] = x[d];
  for (PetscInt j = 0; j < nu; j++) up[j] = u[j];
  for (PetscInt j = 0; j < n; j++) {
    const double h = SR_W1_HX * PetscMax(1.0, PetscAbsReal(x[j]));
    xp[j]          = x[j] + h;
    SRSystemStepHeld(sys, xp, u, yp);
    xp[j] = x[j] - h;
    SRSystemStepHeld(sys, xp, u, ym);
    xp[j] = x[j];
    for (PetscInt i = 0; i < n; i++) A[i * n + j] = (yp[i] - ym[i]) / (2 * h);
  }
  for (PetscInt j = 0; j < nu; j++) {
    const double h = SR_W1_HU * PetscMax(1.0, sys->umax);
    up[j]          = u[j] + h;
    SRSystemStepHeld(sys, x, up, yp);
    up[j] = u[j] - h;
    SRSystemStepHeld(sys, x, up, ym);
    up[j] = u[j];
    for (PetscInt i = 0; i < n; i++) B[i * nu + j] = (yp[i] - ym[i]) / (2 * h);
  }
}

/* e_k of the Jacobian J = A + B g (controller) or I + g (dynamics; A, B unused); S (n x n,
   may be NULL) gets de_k/dJ. */
static double SRW1Excess_Private(PetscBool ctrl, PetscInt n, PetscInt nu, const double *A, const double *B, const double *g, const double *r, double *S)
{
  double e = 0.0;
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = 0; j < n; j++) {
      double J = 0.0;
      if (ctrl) {
        J = A[i * n + j];
        for (PetscInt o = 0; o < nu; o++) J += B[i * nu + o] * g[o * n + j];
      } else J = (i == j ? 1.0 : 0.0) + g[i * n + j];
      e += PetscAbsReal(J) * r[j] / r[i];
      if (S) S[i * n + j] = (J > 0 ? 1.0 : (J < 0 ? -1.0 : 0.0)) * r[j] / r[i];
    }
  return e;
}

PetscErrorCode SRLossWidth1(SRModel model, SRCells cells, double scale, double *L, double *grad, double *eout)
{
  const PetscInt   n = model->n, K = cells->K;
  const PetscBool  ctrl = (PetscBool)(model->type == SR_MODEL_CONTROLLER);
  SRSystem         sys  = model->sys;
  SRW1Pass_Private s;
  double           sum = 0.0;

  PetscFunctionBeginUser;
  PetscCheck(cells->n == n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "cells have dimension %" PetscInt_FMT ", the model %" PetscInt_FMT, cells->n, n);
  PetscCheck(SRMLPIsDefault(model->mlp), PETSC_COMM_SELF, PETSC_ERR_SUP, "-loss width1 is written for simreach's own tanh networks; an imported network (-init_network, SPEC §14) trains with -loss sim");
  s.model = model;
  s.mlp   = model->mlp;
  s.L     = model->mlp->nlayers;
  s.mw    = PetscMax(model->mlp->maxwidth, n);
  s.n     = n;
  s.nu    = model->mlp->width[s.L];
  PetscCheck(s.nu <= SR_MAX_DIM, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-loss width1: %" PetscInt_FMT " network outputs, at most %d", s.nu, SR_MAX_DIM);
  PetscCall(PetscMalloc3((s.L + 1) * s.mw, &s.a, (s.L + 1) * n * s.mw, &s.at, (s.L + 1) * n * s.mw, &s.zt));
  PetscCall(PetscMalloc6(s.mw, &s.p, s.mw, &s.p2, n * s.mw, &s.q, n * s.mw, &s.q2, s.mw, &s.Pa, n * s.mw, &s.Qa));
  for (PetscInt k = 0; k < K; k++) {
    const double *c = cells->c + k * n, *r = cells->w + k * n;
    double        N[SR_MAX_DIM], dN[SR_MAX_DIM * SR_MAX_DIM], g[SR_MAX_DIM * SR_MAX_DIM], u[SR_MAX_DIM], tn[SR_MAX_DIM];
    double        A[SR_MAX_DIM * SR_MAX_DIM], B[SR_MAX_DIM * SR_MAX_DIM], S[SR_MAX_DIM * SR_MAX_DIM], ek;

    SRW1Forward_Private(&s, c, N, dN);
    if (ctrl) {
      for (PetscInt o = 0; o < s.nu; o++) {
        tn[o] = tanh(N[o]);
        u[o]  = sys->umax * tn[o];
        for (PetscInt j = 0; j < n; j++) g[o * n + j] = sys->umax * (1.0 - tn[o] * tn[o]) * dN[o * n + j];
      }
      SRW1Plant_Private(sys, c, u, A, B);
    } else
      for (PetscInt i = 0; i < n * n; i++) g[i] = dN[i];
    ek = SRW1Excess_Private(ctrl, n, s.nu, A, B, g, r, grad ? S : NULL);
    if (eout) eout[k] = ek;
    sum += ek;
    if (grad) {
      double pN[SR_MAX_DIM], lam[SR_MAX_DIM * SR_MAX_DIM];
      const double wk = scale / (double)K;
      if (!ctrl) {
        for (PetscInt o = 0; o < s.nu; o++) pN[o] = 0.0;
        for (PetscInt i = 0; i < n * n; i++) lam[i] = wk * S[i];
      } else
        for (PetscInt o = 0; o < s.nu; o++) {
          const double sd = 1.0 - tn[o] * tn[o];
          double       dedu, dedg_dN = 0.0, up[SR_MAX_DIM], Ap[SR_MAX_DIM * SR_MAX_DIM], Bp[SR_MAX_DIM * SR_MAX_DIM], ep, em;
          const double h = SR_W1_HUU * PetscMax(1.0, sys->umax);
          /* de/du_o through A(u), B(u), g fixed */
          for (PetscInt q = 0; q < s.nu; q++) up[q] = u[q];
          up[o] = u[o] + h;
          SRW1Plant_Private(sys, c, up, Ap, Bp);
          ep    = SRW1Excess_Private(ctrl, n, s.nu, Ap, Bp, g, r, NULL);
          up[o] = u[o] - h;
          SRW1Plant_Private(sys, c, up, Ap, Bp);
          em   = SRW1Excess_Private(ctrl, n, s.nu, Ap, Bp, g, r, NULL);
          dedu = (ep - em) / (2 * h);
          for (PetscInt j = 0; j < n; j++) {
            double dedg = 0.0; /* de/dg_oj = sum_i S_ij B_io */
            for (PetscInt i = 0; i < n; i++) dedg += S[i * n + j] * B[i * s.nu + o];
            lam[o * n + j] = wk * dedg * sys->umax * sd;
            dedg_dN += dedg * sys->umax * (-2.0 * tn[o] * sd) * dN[o * n + j];
          }
          pN[o] = wk * (dedu * sys->umax * sd + dedg_dN);
        }
      SRW1Backward_Private(&s, pN, lam, grad);
    }
  }
  *L = sum / (double)K;
  PetscCall(PetscFree6(s.p, s.p2, s.q, s.q2, s.Pa, s.Qa));
  PetscCall(PetscFree3(s.a, s.at, s.zt));
  PetscFunctionReturn(PETSC_SUCCESS);
}
