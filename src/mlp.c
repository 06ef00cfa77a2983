/* The MLP N_phi of SPEC §3: tanh hidden layers, linear output, Glorot-uniform init.

   Layout (model.h): layer l maps width[l] -> width[l+1], W_l row-major at woff[l], b_l at
   boff[l].  The forward pass keeps every layer's activations (cache, layer-major, nb rows per
   layer) so that the backward pass is plain reverse mode: tanh' = 1 - a^2 is read from the
   cached activation a.  SRMLPForwardTaylor lives in src/taylor.c.  Not collective. */
#include <simreach/model.h>
#include <simreach/random.h>

static PetscInt SRMLPActWidth_Private(SRMLP mlp)
{
  PetscInt t = 0;
  for (PetscInt l = 0; l <= mlp->nlayers; l++)
    t += mlp->width[l];
  return t;
}

/* offset of layer l's activations in the cache for a batch of nb */
static PetscInt SRMLPActOffset_Private(SRMLP mlp, PetscInt nb, PetscInt l)
{
  PetscInt t = 0;
  for (PetscInt j = 0; j < l; j++)
    t += mlp->width[j];
  return nb * t;
}

PetscErrorCode SRMLPCreate(PetscInt nin, PetscInt nhidden, const PetscInt widths[], PetscInt nout, SRMLP *mlp)
{
  SRMLP m;

  PetscFunctionBeginUser;
  PetscCheck(nin >= 1 && nout >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SRMLPCreate: inputs %" PetscInt_FMT " and outputs %" PetscInt_FMT " must be >= 1", nin, nout);
  PetscCheck(nhidden >= 0 && nhidden <= SR_MAX_LAYERS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mlp_widths: %" PetscInt_FMT " hidden layers given; allowed 0..%d", nhidden, SR_MAX_LAYERS);
  for (PetscInt l = 0; l < nhidden; l++)
    PetscCheck(widths[l] >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mlp_widths: width %" PetscInt_FMT " of hidden layer %" PetscInt_FMT " must be >= 1", widths[l], l);
  PetscCall(PetscNew(&m));
  m->nlayers  = nhidden + 1;
  m->width[0] = nin;
  for (PetscInt l = 0; l < nhidden; l++)
    m->width[l + 1] = widths[l];
  m->width[m->nlayers] = nout;
  m->nparams           = 0;
  m->maxwidth          = 0;
  for (PetscInt l = 0; l < m->nlayers; l++) {
    m->woff[l] = m->nparams;
    m->nparams += m->width[l + 1] * m->width[l];
    m->boff[l] = m->nparams;
    m->nparams += m->width[l + 1];
  }
  for (PetscInt l = 0; l <= m->nlayers; l++)
    m->maxwidth = PetscMax(m->maxwidth, m->width[l]);
  PetscCall(PetscCalloc1(m->nparams, &m->params));
  *mlp = m;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRMLPDestroy(SRMLP *mlp)
{
  PetscFunctionBeginUser;
  if (!mlp || !*mlp) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree((*mlp)->params));
  PetscCall(PetscFree((*mlp)->cache));
  PetscCall(PetscFree((*mlp)->scratch));
  PetscCall(PetscFree(*mlp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Glorot uniform (SPEC §3): W ~ U(-a, a), a = sqrt(6 / (fan_in + fan_out)), b = 0; the draw for
   a weight is index = its position in params, so the init does not depend on anything else. */
PetscErrorCode SRMLPInitialize(SRMLP mlp, uint64_t seed)
{
  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt nw = mlp->width[l + 1] * mlp->width[l];
    const double   a  = sqrt(6.0 / (double)(mlp->width[l] + mlp->width[l + 1]));
    for (PetscInt k = 0; k < nw; k++)
      mlp->params[mlp->woff[l] + k] = SRRandomRange(seed, SR_STREAM_INIT, (uint64_t)(mlp->woff[l] + k), -a, a);
    for (PetscInt k = 0; k < mlp->width[l + 1]; k++)
      mlp->params[mlp->boff[l] + k] = 0.0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRMLPGrowCache_Private(SRMLP mlp, PetscInt nb)
{
  PetscFunctionBeginUser;
  if (nb > mlp->cache_batch) {
    PetscCall(PetscFree(mlp->cache));
    PetscCall(PetscFree(mlp->scratch));
    PetscCall(PetscMalloc1(nb * SRMLPActWidth_Private(mlp), &mlp->cache));
    PetscCall(PetscMalloc1(2 * nb * mlp->maxwidth, &mlp->scratch));
    mlp->cache_batch = nb;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRMLPForward(SRMLP mlp, PetscInt nb, const double *X, double *Y)
{
  PetscFunctionBeginUser;
  PetscCheck(nb >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SRMLPForward: batch size %" PetscInt_FMT " < 0", nb);
  PetscCall(SRMLPGrowCache_Private(mlp, PetscMax(nb, 1)));
  PetscCall(PetscArraycpy(mlp->cache, X, nb * mlp->width[0]));
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt  win = mlp->width[l], wout = mlp->width[l + 1];
    const double   *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];
    const double   *in     = mlp->cache + SRMLPActOffset_Private(mlp, nb, l);
    double         *out    = mlp->cache + SRMLPActOffset_Private(mlp, nb, l + 1);
    const PetscBool hidden = (PetscBool)(l < mlp->nlayers - 1);

    for (PetscInt i = 0; i < nb; i++) {
      for (PetscInt o = 0; o < wout; o++) {
        double z = b[o];
        for (PetscInt j = 0; j < win; j++)
          z += W[o * win + j] * in[i * win + j];
        out[i * wout + o] = hidden ? tanh(z) : z;
      }
    }
    PetscCall(PetscLogFlops(2.0 * nb * win * wout));
  }
  PetscCall(PetscArraycpy(Y, mlp->cache + SRMLPActOffset_Private(mlp, nb, mlp->nlayers), nb * mlp->width[mlp->nlayers]));
  mlp->cache_nb = nb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reverse mode through the cached activations: with delta = d(sum dY.N)/dz_{l+1},
   grad W_l += delta^T a_l, grad b_l += sum_i delta, and delta_l = (delta W_l) * (1 - a_l^2). */
PetscErrorCode SRMLPBackward(SRMLP mlp, PetscInt nb, const double *dY, double *grad, double *dX)
{
  double *d, *prev;

  PetscFunctionBeginUser;
  PetscCheck(nb == mlp->cache_nb, PETSC_COMM_SELF, PETSC_ERR_ORDER, "SRMLPBackward: batch of %" PetscInt_FMT " but the last SRMLPForward had %" PetscInt_FMT "; call SRMLPForward on the same batch first", nb, mlp->cache_nb);
  if (nb == 0) PetscFunctionReturn(PETSC_SUCCESS);
  d    = mlp->scratch;
  prev = mlp->scratch + nb * mlp->maxwidth;
  PetscCall(PetscArraycpy(d, dY, nb * mlp->width[mlp->nlayers]));
  for (PetscInt l = mlp->nlayers - 1; l >= 0; l--) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
    const double  *W  = mlp->params + mlp->woff[l];
    const double  *in = mlp->cache + SRMLPActOffset_Private(mlp, nb, l);
    double        *gW = grad + mlp->woff[l], *gb = grad + mlp->boff[l];

    for (PetscInt i = 0; i < nb; i++) {
      for (PetscInt o = 0; o < wout; o++) {
        const double dio = d[i * wout + o];
        gb[o] += dio;
        for (PetscInt j = 0; j < win; j++)
          gW[o * win + j] += dio * in[i * win + j];
      }
    }
    if (l > 0 || dX) {
      for (PetscInt i = 0; i < nb; i++) {
        for (PetscInt j = 0; j < win; j++) {
          double t = 0.0;
          for (PetscInt o = 0; o < wout; o++)
            t += d[i * wout + o] * W[o * win + j];
          /* layer l > 0 input is a tanh output a: tanh'(z) = 1 - a^2 */
          prev[i * win + j] = l > 0 ? t * (1.0 - in[i * win + j] * in[i * win + j]) : t;
        }
      }
      if (l == 0) PetscCall(PetscArraycpy(dX, prev, nb * win));
      double *swap = d;
      d            = prev;
      prev         = swap;
    }
    PetscCall(PetscLogFlops(4.0 * nb * win * wout));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Interval bound propagation (SPEC §7 interval): every product W x and sum is an outward-
   rounded interval operation and tanh is the sound interval tanh, so Y contains N(x) for all
   real x in X. */
PetscErrorCode SRMLPForwardInterval(SRMLP mlp, const SRInterval *X, SRInterval *Y)
{
  SRInterval *buf0, *buf1, *cur, *nxt;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(mlp->maxwidth, &buf0, mlp->maxwidth, &buf1));
  cur = buf0;
  nxt = buf1;
  for (PetscInt j = 0; j < mlp->width[0]; j++)
    cur[j] = X[j];
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
    const double  *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];

    for (PetscInt o = 0; o < wout; o++) {
      SRInterval z = SRIntervalPoint(b[o]);
      for (PetscInt j = 0; j < win; j++)
        z = SRIntervalAdd(z, SRIntervalScale(W[o * win + j], cur[j]));
      nxt[o] = l < mlp->nlayers - 1 ? SRIntervalTanh(z) : z;
    }
    SRInterval *swap = cur;
    cur              = nxt;
    nxt              = swap;
  }
  for (PetscInt o = 0; o < mlp->width[mlp->nlayers]; o++)
    Y[o] = cur[o];
  PetscCall(PetscFree2(buf0, buf1));
  PetscFunctionReturn(PETSC_SUCCESS);
}
