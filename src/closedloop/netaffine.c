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

bool SRMLPForwardAffine(SRMLP mlp, int m, const SRAffine *in, SRAffine *out, SRAffine *work)
{
  SRAffine *cur = work, *nxt = work + mlp->maxwidth;
  for (PetscInt j = 0; j < mlp->width[0]; j++) cur[j] = in[j];
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
  for (PetscInt o = 0; o < mlp->width[mlp->nlayers]; o++) out[o] = cur[o];
  return true;
}
