/* The network over affine forms (include/simreach/netaffine.h, SPEC §15). */
#include <simreach/netaffine.h>

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
  return SRAffineAddInterval(m, &y, (SRInterval){0.0, M});
}

static SRAffine Act_Private(SRActivation act, int m, const SRAffine *a)
{
  switch (act) {
  case SR_ACT_RELU: return Relu_Private(m, a);
  case SR_ACT_TANH: return SRAffineTanh(m, a);
  case SR_ACT_SIGMOID: {
    SRAffine h = SRAffineScaleInterval(m, SRIntervalPoint(0.5), a), t = SRAffineTanh(m, &h);
    t          = SRAffineScaleInterval(m, SRIntervalPoint(0.5), &t);
    return SRAffineAddInterval(m, &t, SRIntervalPoint(0.5));
  }
  default: return *a;
  }
}

bool SRMLPForwardAffine(SRMLP mlp, int m0, const SRAffine *in, SRAffine *out, SRAffine *work)
{
  SRAffine *cur = work, *nxt = work + mlp->maxwidth;
  const int nin = (int)mlp->width[0];
  /* Each input's remainder r_j becomes a symbol of its own while inside the network: the
     input is c0 + c . xi + mid r_j + rad r_j eps_j with one unknown eps_j in [-1, 1] (sound:
     every neuron sees the same value of the input), so the network's linear layers keep the
     remainders' signs and cancellations instead of summing |W| r (which grows by the product
     of the layers' norms).  At the output the extra symbols return into the remainder. */
  const int m = m0 + nin <= SR_AFFINE_MAX ? m0 + nin : m0;
  for (PetscInt j = 0; j < nin; j++) {
    cur[j] = in[j];
    if (m > m0 && !SRAffineIsNaI(&in[j]) && SRIntervalIsBounded(in[j].r)) {
      SRInterval c = SRIntervalShift(in[j].c0, (SRInterval){0.0, 0.0});
      double     mid = SRIntervalMid(in[j].r), rad = SRIntervalRadUp(in[j].r);
      SRInterval I0 = SRIntervalAdd(c, SRIntervalPoint(mid)), Ic[SR_AFFINE_MAX];
      for (int i = 0; i < m; i++) Ic[i] = SRIntervalPoint(i < m0 ? in[j].c[i] : i == m0 + j ? rad : 0.0);
      cur[j] = SRAffineFromIntervals(m, I0, Ic, SRIntervalPoint(0.0));
    }
  }
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt ni = mlp->width[l], no = mlp->width[l + 1];
    const double  *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];
    for (PetscInt o = 0; o < no; o++) {
      SRInterval I0 = SRIntervalPoint(b[o]), Ic[SR_AFFINE_MAX], R = SRIntervalPoint(0.0);
      for (int i = 0; i < m; i++) Ic[i] = SRIntervalPoint(0.0);
      for (PetscInt j = 0; j < ni; j++) {
        const SRInterval w = SRIntervalPoint(W[o * ni + j]);
        if (w.lo == 0) continue;
        I0 = SRIntervalAdd(I0, SRIntervalMul(w, SRIntervalPoint(cur[j].c0)));
        for (int i = 0; i < m; i++)
          if (cur[j].c[i] != 0) Ic[i] = SRIntervalAdd(Ic[i], SRIntervalMul(w, SRIntervalPoint(cur[j].c[i])));
        R = SRIntervalAdd(R, SRIntervalMul(w, cur[j].r));
      }
      nxt[o] = SRAffineFromIntervals(m, I0, Ic, R);
      nxt[o] = Act_Private(mlp->act[l], m, &nxt[o]);
      if (SRAffineIsNaI(&nxt[o])) return false;
    }
    SRAffine *s = cur;
    cur         = nxt;
    nxt         = s;
  }
  for (PetscInt o = 0; o < mlp->width[mlp->nlayers]; o++) {
    /* the extra symbols back into the remainder: sum |c_i| [-1, 1] over i >= m0 */
    SRAffine y = cur[o];
    double   S = 0.0;
    for (int i = m0; i < m; i++) S = SRAddUp(S, fabs(y.c[i])), y.c[i] = 0.0;
    y.r    = SRIntervalAdd(y.r, (SRInterval){-S, S});
    out[o] = y;
    if (SRAffineIsNaI(&y)) return false;
  }
  return true;
}
