/* The first-order width loss L_w1 (-loss width1): the positive control's treatment on the
   enclosure |M_tight| counts (SPEC §9 "Controls"; docs/study.md, "The positive control").

   |M_tight| is the count of the tightest enclosure (interval and first-order Taylor model, on
   2 x 2 sub-boxes).  Over a cell c +- r the first-order (taylor1) box of the closed-loop map
   f(x) = F(x, u(x)) has half-widths sum_j |J_ij(c)| r_j plus the Taylor model's remainder, J the
   Jacobian of f at the centre:
       controller  J = A + B g,  A = dF/dx (c, u), B = dF/du (c, u), g = u'(N) dN/dx (c),
                   u = umax tanh(N) (simreach's own networks) held for the control period;
       dynamics    J = I + dN/dx (c)   (f = x + N(x)).
   The remainder is the network's, as a Taylor model pass builds it (src/bounds/nettaylor.c, its
   narrow-range rule, here in round-to-nearest and for every range): a neuron is the affine form
   z0 + sum_j zt_j r_j xi_j plus [-rr, rr]; an affine layer adds |W| rr; tanh with S = sum_j
   |zt_j| r_j + rr is lambda (.) + g, lambda = tanh'(z0), rr' = lambda rr + M S, M = max over
   [z0 - S, z0 + S] of |tanh' - lambda|; the control's tanh likewise, and B carries the control's
   remainder R to the state: the half-widths are sum_j |J_ij| r_j + sum_o |B_io| R_o (dynamics:
   + rr_i).  The plant's own remainder does not depend on phi and is left out.
   Per cell e_k = sum_i (half-width_i) / r_i (the box's widths in units of the cell's), and
   L_w1 = mean_k e_k (|M_tight| is a mean over the cells).  |M_tight| encloses a cell as the hull
   of its 2^(n b) sub-boxes (-tight_bisect b): e_k is then the mean over the sub-boxes cs +- r/2^b
   of |J(cs)| r (the first-order part of the hull) plus the sub-box's own remainder.
   Its gradient in phi: reverse mode over the forward pass above (dN/dx by forward mode,
   tanh'' = -2 tanh tanh'); A and B the plant's exact forward-mode Jacobian chained over the held
   steps (SRLossWidth1HeldJacobian), their dependence on u (second derivatives of the plant, which
   no system provides) by central differences of e_k in u.
   Round-to-nearest: a training loss, not an enclosure (soundness stays with SPEC §7). */
#include <simreach/lossencl.h>

#define SR_W1_HUU 1e-4 /* central-difference step (relative to umax) of e_k's dependence on u through A(u), B(u) */

typedef struct {
  SRModel  model;
  SRMLP    mlp;
  PetscInt L, mw, n, nu;
  double  *a, *z, *S, *rz, *ra; /* [l * mw + i]: activation, pre-activation, S, rr of z and of a */
  double  *at, *zt;             /* tangents [(l * n + j) * mw + i] for direction j */
  double  *p, *p2, *q, *q2, *Pa, *Qa, *rho, *rho2, *Ra;
  const double *r; /* the cell's half-widths */
} SRW1Pass_Private;

static inline double SRW1Dtanh_Private(double z)
{
  const double t = tanh(z);
  return 1.0 - t * t;
}

/* The tanh step of a Taylor model (the mean-value rule): pre-activation z0 + affine part +
   [-rrz, rrz] with S = |affine part| + rrz; returns rr' = lambda rrz + M S and its partials:
   *dz = d/dz0, *dS = d/dS (S through the affine part and rrz alike), *lam = d/drrz besides S. */
static double SRW1TanhRem_Private(double z0, double S, double rrz, double *dz, double *dS, double *lam)
{
  const double l = z0 - S, u = z0 + S, f0 = SRW1Dtanh_Private(z0), d0 = -2.0 * tanh(z0) * f0;
  /* tanh' on [l, u]: largest at the point nearest 0, smallest at the end farthest from 0 */
  const double p1 = (l <= 0 && u >= 0) ? 0.0 : (u < 0 ? u : l), s1 = (l <= 0 && u >= 0) ? 0.0 : (u < 0 ? 1.0 : -1.0);
  const double p2 = PetscAbsReal(l) > PetscAbsReal(u) ? l : u, s2 = PetscAbsReal(l) > PetscAbsReal(u) ? -1.0 : 1.0;
  const double f1 = SRW1Dtanh_Private(p1), f2 = SRW1Dtanh_Private(p2);
  double       M, dMz, dMS;

  if (f1 - f0 >= f0 - f2) {
    M   = f1 - f0;
    dMz = (s1 != 0.0 ? -2.0 * tanh(p1) * f1 : 0.0) - d0;
    dMS = s1 * -2.0 * tanh(p1) * f1;
  } else {
    M   = f0 - f2;
    dMz = d0 + 2.0 * tanh(p2) * f2;
    dMS = -s2 * -2.0 * tanh(p2) * f2;
  }
  *dz  = d0 * rrz + S * dMz;
  *dS  = M + S * dMS;
  *lam = f0;
  return f0 * rrz + M * S;
}

/* N (nu), dN (nu x n, row-major) and the output remainder rrN (nu) of the network at the
   cell centre x: forward, forward-mode tangents and the Taylor model's remainder. */
static void SRW1Forward_Private(SRW1Pass_Private *s, const double *x, double *N, double *dN, double *rrN)
{
  const SRMLP    mlp = s->mlp;
  const PetscInt n = s->n, mw = s->mw;

  for (PetscInt d = 0; d < n; d++) {
    s->a[d]  = x[d];
    s->ra[d] = 0.0;
    for (PetscInt j = 0; j < n; j++) s->at[j * mw + d] = d == j ? 1.0 : 0.0;
  }
  for (PetscInt l = 0; l < s->L; l++) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1], o = (l + 1) * mw;
    const double  *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];
    for (PetscInt i = 0; i < wout; i++) {
      double z = b[i], rz = 0.0, S = 0.0;
      for (PetscInt m = 0; m < win; m++) {
        z += W[i * win + m] * s->a[l * mw + m];
        rz += PetscAbsReal(W[i * win + m]) * s->ra[l * mw + m];
      }
      for (PetscInt j = 0; j < n; j++) {
        const double *ain = s->at + (l * n + j) * mw;
        double        zd  = 0.0;
        for (PetscInt m = 0; m < win; m++) zd += W[i * win + m] * ain[m];
        S += PetscAbsReal(zd) * s->r[j];
        if (l < s->L - 1) {
          s->zt[((l + 1) * n + j) * mw + i] = zd;
          s->at[((l + 1) * n + j) * mw + i] = SRW1Dtanh_Private(z) * zd;
        } else dN[i * n + j] = zd;
      }
      if (l < s->L - 1) {
        double dz, dS, lam;
        s->z[o + i]  = z;
        s->a[o + i]  = tanh(z);
        s->rz[o + i] = rz;
        s->S[o + i]  = S + rz;
        s->ra[o + i] = SRW1TanhRem_Private(z, S + rz, rz, &dz, &dS, &lam);
      } else {
        N[i]   = z;
        rrN[i] = rz;
      }
    }
  }
}

/* grad += d/dphi (sum_o pN_o N_o + sum_oj lam_oj dN_oj + sum_o rhoN_o rrN_o): reverse mode over
   SRW1Forward_Private. */
static void SRW1Backward_Private(SRW1Pass_Private *s, const double *pN, const double *lam, const double *rhoN, double *grad)
{
  const SRMLP    mlp = s->mlp;
  const PetscInt n = s->n, mw = s->mw;
  double        *p = s->p, *p2 = s->p2, *q = s->q, *q2 = s->q2, *rho = s->rho, *rho2 = s->rho2, *t;

  for (PetscInt o = 0; o < s->nu; o++) {
    p[o]   = pN[o];
    rho[o] = rhoN[o];
    for (PetscInt j = 0; j < n; j++) q[j * mw + o] = lam[o * n + j];
  }
  for (PetscInt l = s->L - 1; l >= 0; l--) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1], o = l * mw;
    const double  *W = mlp->params + mlp->woff[l];
    double        *gW = grad + mlp->woff[l], *gb = grad + mlp->boff[l];
    for (PetscInt m = 0; m < win; m++) {
      s->Pa[m] = s->Ra[m] = 0.0;
      for (PetscInt j = 0; j < n; j++) s->Qa[j * mw + m] = 0.0;
    }
    for (PetscInt i = 0; i < wout; i++) {
      gb[i] += p[i];
      for (PetscInt m = 0; m < win; m++) {
        const double w = W[i * win + m], sw = w > 0 ? 1.0 : (w < 0 ? -1.0 : 0.0);
        double       g = p[i] * s->a[o + m] + rho[i] * sw * s->ra[o + m];
        for (PetscInt j = 0; j < n; j++) {
          g += q[j * mw + i] * s->at[(l * n + j) * mw + m];
          s->Qa[j * mw + m] += w * q[j * mw + i];
        }
        gW[i * win + m] += g;
        s->Pa[m] += w * p[i];
        s->Ra[m] += PetscAbsReal(w) * rho[i];
      }
    }
    if (l == 0) break;
    /* layer l's input: a = tanh(z), at_j = tanh'(z) zt_j, ra = the tanh rule of (z, S, rz) */
    for (PetscInt m = 0; m < win; m++) {
      const double a = s->a[o + m], sd = 1.0 - a * a;
      double       dz, dS, lm, pm = sd * s->Pa[m];
      (void)SRW1TanhRem_Private(s->z[o + m], s->S[o + m], s->rz[o + m], &dz, &dS, &lm);
      pm += s->Ra[m] * dz;
      for (PetscInt j = 0; j < n; j++) {
        const double zt = s->zt[(l * n + j) * mw + m], sz = zt > 0 ? 1.0 : (zt < 0 ? -1.0 : 0.0);
        pm += s->Qa[j * mw + m] * zt * (-2.0 * a * sd);
        q2[j * mw + m] = sd * s->Qa[j * mw + m] + s->Ra[m] * dS * s->r[j] * sz;
      }
      p2[m]   = pm;
      rho2[m] = s->Ra[m] * (lm + dS);
    }
    t    = p;
    p    = p2;
    p2   = t;
    t    = q;
    q    = q2;
    q2   = t;
    t    = rho;
    rho  = rho2;
    rho2 = t;
  }
}

/* A = dF/dx (n x n) and B = dF/du (n x nu) of the held step at (x, u) (SPEC §2): the plant's
   exact forward-mode Jacobian chained over the m held steps along the trajectory y_0 = x,
   y_{s+1} = F(y_s, u) (the way SRSystemStepHeld steps): A <- J_x(y_s) A, B <- J_x(y_s) B +
   J_u(y_s), as SRSystemHeldLinearisation chains it at the equilibrium. */
void SRLossWidth1HeldJacobian(SRSystem sys, const double *x, const double *u, double *A, double *B)
{
  const PetscInt n = sys->n, nu = sys->nu;
  double         y[SR_MAX_DIM], z[SR_MAX_DIM], Jx[SR_MAX_DIM * SR_MAX_DIM], Ju[SR_MAX_DIM * SR_MAX_DIM];

  sys->step_jacobian(sys, x, u, A, B);
  if (sys->control_steps > 1) sys->step(sys, x, u, y);
  for (PetscInt s = 1; s < sys->control_steps; s++) {
    sys->step_jacobian(sys, y, u, Jx, Ju);
    SRSystemChainStep(n, nu, Jx, Ju, A, B);
    if (s + 1 < sys->control_steps) {
      for (PetscInt d = 0; d < n; d++) z[d] = y[d];
      sys->step(sys, z, u, y);
    }
  }
}

/* e_k of J = A + B g with the control's remainder R carried by |B| (controller), or of
   J = I + g with the remainder R added (dynamics; A, B unused); S (n x n, may be NULL) gets
   de_k/dJ. */
static double SRW1Excess_Private(PetscBool ctrl, PetscInt n, PetscInt nu, const double *A, const double *B, const double *g, const double *R, const double *r, double *S)
{
  double e = 0.0;
  for (PetscInt i = 0; i < n; i++) {
    for (PetscInt j = 0; j < n; j++) {
      double J = 0.0;
      if (ctrl) {
        J = A[i * n + j];
        for (PetscInt o = 0; o < nu; o++) J += B[i * nu + o] * g[o * n + j];
      } else J = (i == j ? 1.0 : 0.0) + g[i * n + j];
      e += PetscAbsReal(J) * r[j] / r[i];
      if (S) S[i * n + j] = (J > 0 ? 1.0 : (J < 0 ? -1.0 : 0.0)) * r[j] / r[i];
    }
    if (ctrl)
      for (PetscInt o = 0; o < nu; o++) e += PetscAbsReal(B[i * nu + o]) * R[o] / r[i];
    else e += R[i] / r[i];
  }
  return e;
}

/* One sub-box cs +- rp of a cell of half-widths r: its term of e_k (the first-order part over the
   whole cell, |J(cs)| r, the sub-box's remainder); grad += w d(term)/dphi when non-NULL. */
static double SRW1Cell_Private(SRW1Pass_Private *sp, PetscBool ctrl, const double *c, const double *rp, const double *r, double wk, double *grad)
{
  SRW1Pass_Private s = *sp;
  const PetscInt   n = s.n;
  SRSystem         sys = s.model->sys;
  double           N[SR_MAX_DIM], dN[SR_MAX_DIM * SR_MAX_DIM], rrN[SR_MAX_DIM], g[SR_MAX_DIM * SR_MAX_DIM], u[SR_MAX_DIM], tn[SR_MAX_DIM], R[SR_MAX_DIM];
  double           SN[SR_MAX_DIM], A[SR_MAX_DIM * SR_MAX_DIM], B[SR_MAX_DIM * SR_MAX_DIM], Sg[SR_MAX_DIM * SR_MAX_DIM], ek;
  double           Rz[SR_MAX_DIM], RS[SR_MAX_DIM], Rl[SR_MAX_DIM];

  s.r = rp;
  SRW1Forward_Private(&s, c, N, dN, rrN);
  if (ctrl) {
    for (PetscInt o = 0; o < s.nu; o++) {
      tn[o] = tanh(N[o]);
      u[o]  = sys->umax * tn[o];
      SN[o] = rrN[o];
      for (PetscInt j = 0; j < n; j++) {
        g[o * n + j] = sys->umax * (1.0 - tn[o] * tn[o]) * dN[o * n + j];
        SN[o] += PetscAbsReal(dN[o * n + j]) * rp[j];
      }
      R[o] = sys->umax * SRW1TanhRem_Private(N[o], SN[o], rrN[o], &Rz[o], &RS[o], &Rl[o]); /* the control umax tanh(N) */
    }
    SRLossWidth1HeldJacobian(sys, c, u, A, B);
  } else {
    for (PetscInt i = 0; i < n * n; i++) g[i] = dN[i];
    for (PetscInt i = 0; i < n; i++) R[i] = rrN[i];
  }
  ek = SRW1Excess_Private(ctrl, n, s.nu, A, B, g, R, r, grad ? Sg : NULL);
  if (grad) {
    double pN[SR_MAX_DIM], lam[SR_MAX_DIM * SR_MAX_DIM], rhoN[SR_MAX_DIM];
    if (!ctrl) {
      for (PetscInt o = 0; o < s.nu; o++) {
        pN[o]   = 0.0;
        rhoN[o] = wk / r[o];
      }
      for (PetscInt i = 0; i < n * n; i++) lam[i] = wk * Sg[i];
    } else
      for (PetscInt o = 0; o < s.nu; o++) {
        const double sd = 1.0 - tn[o] * tn[o], h = SR_W1_HUU * PetscMax(1.0, sys->umax);
        double       dedu, dedR = 0.0, dedg_dN = 0.0, up[SR_MAX_DIM], Ap[SR_MAX_DIM * SR_MAX_DIM], Bp[SR_MAX_DIM * SR_MAX_DIM], ep, em;
        /* de/du_o through A(u), B(u), with g and R fixed */
        for (PetscInt q = 0; q < s.nu; q++) up[q] = u[q];
        up[o] = u[o] + h;
        SRLossWidth1HeldJacobian(sys, c, up, Ap, Bp);
        ep    = SRW1Excess_Private(ctrl, n, s.nu, Ap, Bp, g, R, r, NULL);
        up[o] = u[o] - h;
        SRLossWidth1HeldJacobian(sys, c, up, Ap, Bp);
        em   = SRW1Excess_Private(ctrl, n, s.nu, Ap, Bp, g, R, r, NULL);
        dedu = (ep - em) / (2 * h);
        for (PetscInt i = 0; i < n; i++) dedR += PetscAbsReal(B[i * s.nu + o]) / r[i];
        for (PetscInt j = 0; j < n; j++) {
          const double dn = dN[o * n + j], sz = dn > 0 ? 1.0 : (dn < 0 ? -1.0 : 0.0);
          double       dedg = 0.0; /* de/dg_oj = sum_i Sg_ij B_io */
          for (PetscInt i = 0; i < n; i++) dedg += Sg[i * n + j] * B[i * s.nu + o];
          lam[o * n + j] = wk * (dedg * sys->umax * sd + dedR * sys->umax * RS[o] * rp[j] * sz);
          dedg_dN += dedg * sys->umax * (-2.0 * tn[o] * sd) * dn;
        }
        pN[o]   = wk * (dedu * sys->umax * sd + dedg_dN + dedR * sys->umax * Rz[o]);
        rhoN[o] = wk * dedR * sys->umax * (Rl[o] + RS[o]);
      }
    SRW1Backward_Private(&s, pN, lam, rhoN, grad);
  }
  return ek;
}

PetscErrorCode SRLossWidth1(SRModel model, SRCells cells, PetscInt bisect, double scale, double *L, double *grad, double *eout)
{
  const PetscInt   n = model->n, K = cells->K;
  const PetscBool  ctrl = (PetscBool)(model->type == SR_MODEL_CONTROLLER);
  SRW1Pass_Private s;
  double           sum = 0.0;
  PetscInt         nsub = 1;

  PetscFunctionBeginUser;
  PetscCheck(cells->n == n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "cells have dimension %" PetscInt_FMT ", the model %" PetscInt_FMT, cells->n, n);
  PetscCheck(bisect >= 0 && bisect <= 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-loss width1: bisect %" PetscInt_FMT ", allowed is 0..3", bisect);
  for (PetscInt d = 0; d < n; d++) nsub <<= bisect;
  PetscCheck(SRMLPIsDefault(model->mlp), PETSC_COMM_SELF, PETSC_ERR_SUP, "-loss width1 is written for simreach's own tanh networks; an imported network (-init_network, SPEC §14) trains with -loss sim");
  s.model = model;
  s.mlp   = model->mlp;
  s.L     = model->mlp->nlayers;
  s.mw    = PetscMax(model->mlp->maxwidth, n);
  s.n     = n;
  s.nu    = model->mlp->width[s.L];
  PetscCheck(s.nu <= SR_MAX_DIM, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-loss width1: %" PetscInt_FMT " network outputs, at most %d", s.nu, SR_MAX_DIM);
  PetscCall(PetscMalloc7((s.L + 1) * s.mw, &s.a, (s.L + 1) * s.mw, &s.z, (s.L + 1) * s.mw, &s.S, (s.L + 1) * s.mw, &s.rz, (s.L + 1) * s.mw, &s.ra, (s.L + 1) * n * s.mw, &s.at, (s.L + 1) * n * s.mw, &s.zt));
  PetscCall(PetscMalloc5(s.mw, &s.p, s.mw, &s.p2, n * s.mw, &s.q, n * s.mw, &s.q2, s.mw, &s.Pa));
  PetscCall(PetscMalloc4(n * s.mw, &s.Qa, s.mw, &s.rho, s.mw, &s.rho2, s.mw, &s.Ra));
  for (PetscInt k = 0; k < K; k++) {
    const double *c = cells->c + k * n, *r = cells->w + k * n;
    double        ek = 0.0;
    for (PetscInt sb = 0; sb < nsub; sb++) { /* the 2^(n bisect) sub-boxes, as |M_tight| encloses them */
      double   cs[SR_MAX_DIM], rp[SR_MAX_DIM];
      PetscInt q = sb;
      for (PetscInt d = 0; d < n; d++) {
        const PetscInt m = (PetscInt)1 << bisect, i = q % m;
        q /= m;
        rp[d] = r[d] / (double)m;
        cs[d] = c[d] - r[d] + (2.0 * (double)i + 1.0) * rp[d];
      }
      ek += SRW1Cell_Private(&s, ctrl, cs, rp, r, scale / (double)(K * nsub), grad) / (double)nsub;
    }
    if (eout) eout[k] = ek;
    sum += ek;
  }
  *L = sum / (double)K;
  PetscCall(PetscFree4(s.Qa, s.rho, s.rho2, s.Ra));
  PetscCall(PetscFree5(s.p, s.p2, s.q, s.q2, s.Pa));
  PetscCall(PetscFree7(s.a, s.z, s.S, s.rz, s.ra, s.at, s.zt));
  PetscFunctionReturn(PETSC_SUCCESS);
}
