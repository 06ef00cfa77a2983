/* The network over affine forms (include/simreach/netaffine.h, SPEC §15). */
#include <simreach/netaffine.h>

#define SR_NET_MAX_WIDTH_FORWARD 4096 /* widest layer the forward pass takes (else it is skipped) */

/* relu(x) - lambda x over [l, u] (l < 0 < u, 0 <= lambda <= 1): -lambda x in [0, -lambda l]
   for x < 0, (1 - lambda) x in [0, (1 - lambda) u] for x >= 0. */
static SRAffine Relu_Private(int m, const SRAffine *a)
{
  const SRInterval R = SRAffineRange(m, a);
  SRAffine         y;
  double           lambda, M;
  if (SRIntervalIsNaI(R)) return *a;
  if (R.lo >= 0) return *a;
  if (R.hi <= 0) return SRAffineConstant(0.0);
  lambda = R.hi / (R.hi - R.lo);
  if (!(lambda >= 0 && lambda <= 1)) lambda = 0.5;
  M = SRMax_Private(SRMulUp(-lambda, R.lo), SRMulUp(SRSubUp(1.0, lambda), R.hi));
  y = SRAffineScaleInterval(m, SRIntervalPoint(lambda), a);
  return SRAffineAddInterval(m, &y, (SRInterval) { 0.0, M });
}

static SRAffine Act_Private(SRActivation act, int m, const SRAffine *a)
{
  switch (act) {
  case SR_ACT_RELU:
    return Relu_Private(m, a);
  case SR_ACT_TANH:
    return SRAffineTanh(m, a);
  case SR_ACT_SIGMOID: {
    SRAffine h = SRAffineScaleInterval(m, SRIntervalPoint(0.5), a), t = SRAffineTanh(m, &h);
    t = SRAffineScaleInterval(m, SRIntervalPoint(0.5), &t);
    return SRAffineAddInterval(m, &t, SRIntervalPoint(0.5));
  }
  default:
    return *a;
  }
}

/* Each input's remainder r_j becomes a symbol of its own while inside the network: the input is
   c0 + c . xi + mid r_j + rad r_j eps_j with one unknown eps_j in [-1, 1] (sound: every neuron
   sees the same value of the input), so the network's linear layers keep the remainders' signs
   and cancellations instead of summing |W| r (which grows by the product of the layers' norms).
   At the output the extra symbols return into the remainder (Fold_Private).  Returns m. */
static int Symbols_Private(int m0, PetscInt nin, const SRAffine *in, SRAffine *cur)
{
  const int m = m0 + nin <= SR_AFFINE_MAX ? m0 + (int)nin : m0;
  for (PetscInt j = 0; j < nin; j++) {
    cur[j] = in[j];
    if (m > m0 && !SRAffineIsNaI(&in[j]) && SRIntervalIsBounded(in[j].r)) {
      SRInterval c   = SRIntervalShift(in[j].c0, (SRInterval) { 0.0, 0.0 });
      double     mid = SRIntervalMid(in[j].r), rad = SRIntervalRadUp(in[j].r);
      SRInterval I0 = SRIntervalAdd(c, SRIntervalPoint(mid)), Ic[SR_AFFINE_MAX];
      for (int i = 0; i < m; i++)
        Ic[i] = SRIntervalPoint(i < m0 ? in[j].c[i] : i == m0 + j ? rad : 0.0);
      cur[j] = SRAffineFromIntervals(m, I0, Ic, SRIntervalPoint(0.0));
    }
  }
  return m;
}

/* the extra symbols back into the remainder: sum |c_i| [-1, 1] over i >= m0 */
static SRAffine Fold_Private(int m0, int m, SRAffine y)
{
  double S = 0.0;
  for (int i = m0; i < m; i++)
    S = SRAddUp(S, fabs(y.c[i])), y.c[i] = 0.0;
  y.r = SRIntervalAdd(y.r, (SRInterval) { -S, S });
  return y;
}

/* The forward pass over m coordinates; cur holds the inputs, the outputs end in the returned
   buffer.  An affine layer's coefficients W C are computed in double; their rounding error is
   bounded a priori like CROWN's (netcrown.c): per coefficient n 2^-52 sum_j |W_oj C_ji| plus the
   underflow part, so over |xi_i| <= 1 in all at most (n + 2) 2^-51 sum_j |W_oj| sum_i |C_ji| +
   m (n + 2) 2^-1000, which joins the remainder (rounded up).  The constants and remainders are
   intervals. */
static SRAffine *Forward_Private(SRMLP mlp, int m, SRAffine *cur, SRAffine *nxt)
{
  double sc[SR_NET_MAX_WIDTH_FORWARD];
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt ni = mlp->width[l], no = mlp->width[l + 1];
    const double  *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];
    const double   g = SRMulUp((double)(ni + 2), 0x1p-51), tiny = SRMulUp(SRMulUp((double)m, (double)(ni + 2)), 0x1p-1000);
    if (ni > SR_NET_MAX_WIDTH_FORWARD) return NULL;
    for (PetscInt j = 0; j < ni; j++)
      sc[j] = SRAffineLinearRange(m, &cur[j]).hi; /* sum_i |C_ji|, rounded up (NaN reaches t below) */
    for (PetscInt o = 0; o < no; o++) {
      SRInterval I0 = SRIntervalPoint(b[o]), R = SRIntervalPoint(0.0);
      SRAffine   y = SRAffineConstant(0.0);
      double     t = 0.0, err;
      for (PetscInt j = 0; j < ni; j++) {
        const double w = W[o * ni + j];
        if (w == 0) continue;
        I0 = SRIntervalAdd(I0, SRIntervalMul(SRIntervalPoint(w), SRIntervalPoint(cur[j].c0)));
        for (int i = 0; i < m; i++)
          y.c[i] += w * cur[j].c[i];
        R = SRIntervalAdd(R, SRIntervalMul(SRIntervalPoint(w), cur[j].r));
        t = SRAddUp(t, SRMulUp(fabs(w), sc[j]));
      }
      err    = SRAddUp(SRMulUp(g, t), tiny);
      y.c0   = SRIntervalMid(I0);
      y.r    = SRIntervalAdd(SRIntervalAdd(R, SRIntervalShift(-y.c0, I0)), (SRInterval) { -err, err });
      nxt[o] = Act_Private(mlp->act[l], m, &y);
      if (SRAffineIsNaI(&nxt[o]) || !isfinite(y.c0) || !isfinite(t)) return NULL;
    }
    SRAffine *s = cur;
    cur         = nxt;
    nxt         = s;
  }
  return cur;
}

/* the input transform of an imported network (SPEC §14): (clip(x) - mean) / range; a clip that
   may act turns the form into its interval enclosure */
static SRAffine InputTransform_Private(SRMLP mlp, int m, PetscInt j, const SRAffine *x)
{
  SRInterval R = SRAffineRange(m, x);
  SRAffine   y;
  if (!mlp->has_in) return *x;
  if (!(R.lo >= mlp->inlo[j] && R.hi <= mlp->inhi[j])) return SRAffineInterval(SRMLPInputInterval(mlp, j, R));
  y = SRAffineAddInterval(m, x, SRIntervalPoint(-mlp->inmean[j]));
  return SRAffineScaleInterval(m, SRIntervalMake(SRDivDown(1.0, mlp->inrange[j]), SRDivUp(1.0, mlp->inrange[j])), &y);
}

static double Width_Private(int m, const SRAffine *a)
{
  SRInterval R = SRAffineRange(m, a);
  return SRIntervalIsBounded(R) ? R.hi - R.lo : INFINITY;
}

bool SRMLPEncloseAffine(SRMLP mlp, int m0, const SRAffine *in, SRAffine *out, SRAffine *work, SRNetEnclosure how)
{
  const PetscInt nin = mlp->width[0], nout = mlp->width[mlp->nlayers];
  SRAffine      *cur = work, *nxt = work + mlp->maxwidth, *x = nxt + mlp->maxwidth, *y = x + nin, *f = NULL;
  int            m;
  bool           okc = false;
  for (PetscInt j = 0; j < nin; j++)
    y[j] = InputTransform_Private(mlp, m0, j, &in[j]);
  m = Symbols_Private(m0, nin, y, x);
  for (PetscInt j = 0; j < nin; j++)
    cur[j] = x[j];
  if (how != SR_NET_CROWN) f = Forward_Private(mlp, m, cur, nxt);
  if (how != SR_NET_FORWARD) okc = SRMLPForwardCrown(mlp, m, x, y);
  if (!f && !okc) return false;
  for (PetscInt o = 0; o < nout; o++) {
    /* both enclose the network: keep the narrower */
    SRAffine a = okc && (!f || Width_Private(m, &y[o]) <= Width_Private(m, &f[o])) ? y[o] : f[o];
    a          = Fold_Private(m0, m, a);
    if (mlp->has_out) {
      a = SRAffineScaleInterval(m0, SRIntervalPoint(mlp->outscale[o]), &a);
      a = SRAffineAddInterval(m0, &a, SRIntervalPoint(mlp->outoffset[o]));
    }
    out[o] = a;
    if (SRAffineIsNaI(&a)) return false;
  }
  return true;
}

bool SRMLPForwardAffine(SRMLP mlp, int m0, const SRAffine *in, SRAffine *out, SRAffine *work) { return SRMLPEncloseAffine(mlp, m0, in, out, work, SR_NET_FORWARD); }
