/* The MLP N_phi of SPEC §3: tanh hidden layers, linear output, Glorot-uniform init; imported
   networks (SPEC §14) carry any of ReLU, tanh, sigmoid, linear after any layer (act[l]).

   Layout (model.h): layer l maps width[l] -> width[l+1], W_l row-major at woff[l], b_l at
   boff[l].  The forward pass keeps every layer's activations (cache, layer-major, nb rows per
   layer) so that the backward pass is plain reverse mode: tanh' = 1 - a^2 is read from the
   cached activation a (ReLU: a > 0, sigmoid: a (1 - a), linear: 1).  SRMLPForwardTaylor lives in src/numerics/taylor.c.  Not collective. */
#include <simreach/model.h>
#include <simreach/random.h>
#include <simreach/private/fasttanh.h>

const char *const SRActivations[] = { "tanh", "relu", "sigmoid", "linear", "SRActivation", "SR_ACT_", NULL };

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
  for (PetscInt l = 0; l < m->nlayers; l++) m->act[l] = l < m->nlayers - 1 ? SR_ACT_TANH : SR_ACT_LINEAR;
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
  PetscCall(PetscFree((*mlp)->xcache));
  if ((*mlp)->has_in) PetscCall(PetscFree4((*mlp)->inlo, (*mlp)->inhi, (*mlp)->inmean, (*mlp)->inrange));
  if ((*mlp)->has_out) PetscCall(PetscFree2((*mlp)->outscale, (*mlp)->outoffset));
  PetscCall(PetscFree(*mlp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRMLPSetActivation(SRMLP mlp, PetscInt l, SRActivation act)
{
  PetscFunctionBeginUser;
  PetscCheck(l >= 0 && l < mlp->nlayers, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SRMLPSetActivation: layer %" PetscInt_FMT "; the network has %" PetscInt_FMT " affine layers", l, mlp->nlayers);
  PetscCheck(act >= SR_ACT_TANH && act <= SR_ACT_LINEAR, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SRMLPSetActivation: activation %d; allowed are tanh, relu, sigmoid, linear", (int)act);
  mlp->act[l] = act;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscBool SRMLPIsDefault(SRMLP mlp)
{
  for (PetscInt l = 0; l < mlp->nlayers; l++)
    if (mlp->act[l] != (l < mlp->nlayers - 1 ? SR_ACT_TANH : SR_ACT_LINEAR)) return PETSC_FALSE;
  return (PetscBool)(!mlp->has_in && !mlp->has_out);
}

PetscErrorCode SRMLPActivationsString(SRMLP mlp, char buf[], size_t len)
{
  PetscFunctionBeginUser;
  buf[0] = 0;
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const size_t k = strlen(buf);
    PetscCall(PetscSNPrintf(buf + k, len - k, "%s%s", l ? "," : "", SRActivations[mlp->act[l]]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRActivationsParse(const char what[], const char str[], PetscInt nlayers, SRActivation acts[])
{
  const char *p = str;
  PetscInt    l = 0;

  PetscFunctionBeginUser;
  while (1) {
    const char *e = strchr(p, ',');
    size_t      k = e ? (size_t)(e - p) : strlen(p);
    int         a = -1;
    for (int i = 0; i <= SR_ACT_LINEAR; i++)
      if (strlen(SRActivations[i]) == k && !strncmp(p, SRActivations[i], k)) a = i;
    PetscCheck(a >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: activation '%.*s' in '%s'; allowed are tanh, relu, sigmoid, linear", what, (int)PetscMin(k, 32), p, str);
    PetscCheck(l < nlayers, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: activations '%s' name more than the %" PetscInt_FMT " affine layers", what, str, nlayers);
    acts[l++] = (SRActivation)a;
    if (!e) break;
    p = e + 1;
  }
  PetscCheck(l == nlayers, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: activations '%s' name %" PetscInt_FMT " layers; the network has %" PetscInt_FMT " affine layers", what, str, l, nlayers);
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

/* scratch layout for a batch of nb: two delta buffers (nb x maxwidth each) | W_l^T of every
   layer (nparams entries, at woff[l]) for the forward kernel */
static PetscErrorCode SRMLPGrowCache_Private(SRMLP mlp, PetscInt nb)
{
  PetscFunctionBeginUser;
  if (nb > mlp->cache_batch) {
    PetscCall(PetscFree(mlp->cache));
    PetscCall(PetscFree(mlp->scratch));
    PetscCall(PetscFree(mlp->xcache));
    if (mlp->has_in) PetscCall(PetscMalloc1(nb * mlp->width[0], &mlp->xcache));
    PetscCall(PetscMalloc1(nb * SRMLPActWidth_Private(mlp), &mlp->cache));
    PetscCall(PetscMalloc1(2 * nb * mlp->maxwidth + mlp->nparams, &mlp->scratch));
    mlp->cache_batch = nb;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The point kernels below are written so that the compiler vectorises them across the OUTPUT
   index of a row (never across a sum): each output is summed in exactly the order of the
   plain triple loop, so results are the same bits at any vector width, batch size or block
   size, and a sample's result does not depend on the rest of its batch.  A tile of
   SR_KB_I rows x SR_KB_N outputs lives in registers across the whole summation.
   On x86-64, GCC also compiles the kernels for AVX2 and AVX-512 and picks one at load time
   (ifunc).  Not -march=native: the binary stays portable, and since the kernels contain no
   reductions and no FMA (-ffp-contract=off), every clone gives the same bits. */
#define SR_KB_I 4
#define SR_KB_N 8
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
  #define SR_KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
  #define SR_KERNEL_CLONES
#endif
#if defined(__GNUC__)
  #define SR_TILE_INLINE __attribute__((always_inline)) inline /* so it is compiled for each clone */
/* GCC vector type of 4 doubles: elementwise IEEE operations, lowered to the clone's ISA */
typedef double SRVec4_Private __attribute__((vector_size(4 * sizeof(double))));
  #define SR_VEC 4
#else
  #define SR_TILE_INLINE inline
  #define SR_VEC 0
#endif

/* C[s][0..SR_KB_N) += sum_t B[s*bs + t*bt] V[t*vt + 0..SR_KB_N) for s < SR_KB_I, t = 0..T-1 in
   order (C row stride ldc); both kernels are this tile with different strides. */
static SR_TILE_INLINE void SRMLPTile_Private(PetscInt T, const double *restrict B, PetscInt bs, PetscInt bt, const double *restrict V, PetscInt vt, double *restrict C, PetscInt ldc)
{
#if SR_VEC
  SRVec4_Private acc[SR_KB_I][SR_KB_N / 4];
  for (PetscInt s = 0; s < SR_KB_I; s++)
    for (PetscInt v = 0; v < SR_KB_N / 4; v++)
      memcpy(&acc[s][v], C + s * ldc + 4 * v, sizeof acc[s][v]);
  for (PetscInt t = 0; t < T; t++) {
    SRVec4_Private m[SR_KB_N / 4];
    for (PetscInt v = 0; v < SR_KB_N / 4; v++)
      memcpy(&m[v], V + t * vt + 4 * v, sizeof m[v]);
    for (PetscInt s = 0; s < SR_KB_I; s++) {
      const double         a  = B[s * bs + t * bt];
      const SRVec4_Private av = { a, a, a, a };
      for (PetscInt v = 0; v < SR_KB_N / 4; v++)
        acc[s][v] += av * m[v];
    }
  }
  for (PetscInt s = 0; s < SR_KB_I; s++)
    for (PetscInt v = 0; v < SR_KB_N / 4; v++)
      memcpy(C + s * ldc + 4 * v, &acc[s][v], sizeof acc[s][v]);
#else
  for (PetscInt s = 0; s < SR_KB_I; s++)
    for (PetscInt t = 0; t < T; t++)
      for (PetscInt n = 0; n < SR_KB_N; n++)
        C[s * ldc + n] += B[s * bs + t * bt] * V[t * vt + n];
#endif
}

/* C (nb x N) = init + A (nb x K) M (K x N), summed over k = 0, 1, ... in order;
   init is the row vector b (forward, SPEC §3: z = W a + b) or zero when b is NULL. */
SR_KERNEL_CLONES static void SRMLPRowsTimes_Private(PetscInt nb, PetscInt K, PetscInt N, const double *restrict A, const double *restrict M, const double *restrict b, double *restrict C)
{
  PetscInt i0 = 0;
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt n = 0; n < N; n++)
      C[i * N + n] = b ? b[n] : 0.0;
  for (; i0 + SR_KB_I <= nb; i0 += SR_KB_I) {
    PetscInt n0 = 0;
    for (; n0 + SR_KB_N <= N; n0 += SR_KB_N) SRMLPTile_Private(K, A + i0 * K, K, 1, M + n0, N, C + i0 * N + n0, N);
    for (PetscInt s = 0; s < SR_KB_I; s++)
      for (PetscInt k = 0; k < K; k++) {
        const double a = A[(i0 + s) * K + k];
        for (PetscInt n = n0; n < N; n++)
          C[(i0 + s) * N + n] += a * M[k * N + n];
      }
  }
  for (PetscInt i = i0; i < nb; i++)
    for (PetscInt k = 0; k < K; k++) {
      const double a = A[i * K + k];
      for (PetscInt n = 0; n < N; n++)
        C[i * N + n] += a * M[k * N + n];
    }
}

/* C (nb x N) = b + A (nb x K) W^T with W (N x K) row-major, read in place: C[i][n] = b[n] + A[i][0]
   W[n][0] + A[i][1] W[n][1] + ... in order (the order of SRMLPRowsTimes_Private, so the same
   bits); four outputs at a time for independent sums. */
SR_KERNEL_CLONES static void SRMLPRowsTimesW_Private(PetscInt nb, PetscInt K, PetscInt N, const double *restrict A, const double *restrict W, const double *restrict b, double *restrict C)
{
  for (PetscInt i = 0; i < nb; i++) {
    const double *a = A + i * K;
    PetscInt      n = 0;
    for (; n + 4 <= N; n += 4) {
      const double *w0 = W + n * K, *w1 = w0 + K, *w2 = w1 + K, *w3 = w2 + K;
      double        c0 = b[n], c1 = b[n + 1], c2 = b[n + 2], c3 = b[n + 3];
      for (PetscInt k = 0; k < K; k++) {
        c0 += a[k] * w0[k];
        c1 += a[k] * w1[k];
        c2 += a[k] * w2[k];
        c3 += a[k] * w3[k];
      }
      C[i * N + n] = c0, C[i * N + n + 1] = c1, C[i * N + n + 2] = c2, C[i * N + n + 3] = c3;
    }
    for (; n < N; n++) {
      double c = b[n];
      for (PetscInt k = 0; k < K; k++) c += a[k] * W[n * K + k];
      C[i * N + n] = c;
    }
  }
}

/* G (P x Q) += D^T A over the batch, D (nb x P), A (nb x Q): G[p][q] += D[i][p] A[i][q] for
   i = 0, 1, ... in order (reverse mode's grad W = delta^T a). */
SR_KERNEL_CLONES static void SRMLPAddTransTimes_Private(PetscInt nb, PetscInt P, PetscInt Q, const double *restrict D, const double *restrict A, double *restrict G)
{
  PetscInt p0 = 0;
  for (; p0 + SR_KB_I <= P; p0 += SR_KB_I) {
    PetscInt q0 = 0;
    for (; q0 + SR_KB_N <= Q; q0 += SR_KB_N) SRMLPTile_Private(nb, D + p0, 1, P, A + q0, Q, G + p0 * Q + q0, Q);
    for (PetscInt i = 0; i < nb; i++)
      for (PetscInt s = 0; s < SR_KB_I; s++)
        for (PetscInt q = q0; q < Q; q++)
          G[(p0 + s) * Q + q] += D[i * P + p0 + s] * A[i * Q + q];
  }
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt p = p0; p < P; p++) {
      const double d = D[i * P + p];
      for (PetscInt q = 0; q < Q; q++)
        G[p * Q + q] += d * A[i * Q + q];
    }
}

/* a <- tanh(a) in place (the point pass, SPEC §3) */
SR_KERNEL_CLONES static void SRMLPTanh_Private(PetscInt n, double *restrict a)
{
  for (PetscInt k = 0; k < n; k++)
    a[k] = SRFastTanh(a[k]);
}

/* a <- max(a, 0) in place; NaN stays NaN (the comparison is false) */
SR_KERNEL_CLONES static void SRMLPRelu_Private(PetscInt n, double *restrict a)
{
  for (PetscInt k = 0; k < n; k++)
    a[k] = a[k] < 0.0 ? 0.0 : a[k];
}

/* a <- 1 / (1 + exp(-a)) (libm exp: the point pass, not an enclosure) */
static void SRMLPSigmoid_Private(PetscInt n, double *restrict a)
{
  for (PetscInt k = 0; k < n; k++)
    a[k] = 1.0 / (1.0 + exp(-a[k]));
}

/* d <- d * tanh'(z) = d * (1 - a^2), a = tanh(z) the cached activation */
SR_KERNEL_CLONES static void SRMLPTanhBackward_Private(PetscInt n, const double *restrict a, double *restrict d)
{
  for (PetscInt k = 0; k < n; k++)
    d[k] *= 1.0 - a[k] * a[k];
}

/* d <- d * relu'(z) = d [a > 0] */
SR_KERNEL_CLONES static void SRMLPReluBackward_Private(PetscInt n, const double *restrict a, double *restrict d)
{
  for (PetscInt k = 0; k < n; k++)
    d[k] = a[k] > 0.0 ? d[k] : 0.0;
}

/* d <- d * sigmoid'(z) = d a (1 - a) */
SR_KERNEL_CLONES static void SRMLPSigmoidBackward_Private(PetscInt n, const double *restrict a, double *restrict d)
{
  for (PetscInt k = 0; k < n; k++)
    d[k] *= a[k] * (1.0 - a[k]);
}

static void SRMLPActivate_Private(SRActivation act, PetscInt n, double *a)
{
  if (act == SR_ACT_TANH) SRMLPTanh_Private(n, a);
  else if (act == SR_ACT_RELU) SRMLPRelu_Private(n, a);
  else if (act == SR_ACT_SIGMOID) SRMLPSigmoid_Private(n, a);
}

/* d <- d * act'(z) from the cached activation a = act(z) */
static void SRMLPActivateBackward_Private(SRActivation act, PetscInt n, const double *a, double *d)
{
  if (act == SR_ACT_TANH) SRMLPTanhBackward_Private(n, a, d);
  else if (act == SR_ACT_RELU) SRMLPReluBackward_Private(n, a, d);
  else if (act == SR_ACT_SIGMOID) SRMLPSigmoidBackward_Private(n, a, d);
}

PetscErrorCode SRMLPForward(SRMLP mlp, PetscInt nb, const double *X, double *Y)
{
  PetscFunctionBeginUser;
  PetscCheck(nb >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "SRMLPForward: batch size %" PetscInt_FMT " < 0", nb);
  if (mlp->has_in && !mlp->xcache) mlp->cache_batch = 0; /* the transform was set after the cache grew */
  PetscCall(SRMLPGrowCache_Private(mlp, PetscMax(nb, 1)));
  PetscCall(PetscArraycpy(mlp->cache, X, nb * mlp->width[0]));
  if (mlp->has_in) { /* SPEC §14: clipping and normalisation; layer 0 reads the transformed input */
    PetscCall(PetscArraycpy(mlp->xcache, X, nb * mlp->width[0]));
    SRMLPInputPoint(mlp, nb, mlp->cache);
  }
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
    const double  *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];
    double        *WT  = mlp->scratch + 2 * mlp->cache_batch * mlp->maxwidth + mlp->woff[l];
    const double  *in  = mlp->cache + SRMLPActOffset_Private(mlp, nb, l);
    double        *out = mlp->cache + SRMLPActOffset_Private(mlp, nb, l + 1);

    /* z_i = b + sum_j W[:, j] a_i[j] (SPEC §3), then the layer's activation: the point pass
       uses the fast tanh, the enclosures the sound one.  Below a tile of rows (a simulation's
       single point) W is read in place, not transposed per call: the same sums in the same order,
       so the same bits as the tiled kernel. */
    if (nb < SR_KB_I) SRMLPRowsTimesW_Private(nb, win, wout, in, W, b, out);
    else {
      for (PetscInt o = 0; o < wout; o++)
        for (PetscInt j = 0; j < win; j++)
          WT[j * wout + o] = W[o * win + j];
      SRMLPRowsTimes_Private(nb, win, wout, in, WT, b, out);
    }
    SRMLPActivate_Private(mlp->act[l], nb * wout, out);
    PetscCall(PetscLogFlops(2.0 * nb * win * wout));
  }
  PetscCall(PetscArraycpy(Y, mlp->cache + SRMLPActOffset_Private(mlp, nb, mlp->nlayers), nb * mlp->width[mlp->nlayers]));
  SRMLPOutputPoint(mlp, nb, Y);
  mlp->cache_nb = nb;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reverse mode through the cached activations: with delta = d(sum dY.N)/dz_{l+1},
   grad W_l += delta^T a_l, grad b_l += sum_i delta, and delta_l = (delta W_l) * act'_{l-1}
   (tanh: 1 - a_l^2); the output layer's own activation first multiplies dY. */
PetscErrorCode SRMLPBackward(SRMLP mlp, PetscInt nb, const double *dY, double *grad, double *dX)
{
  double *d, *prev;

  PetscFunctionBeginUser;
  PetscCheck(nb == mlp->cache_nb, PETSC_COMM_SELF, PETSC_ERR_ORDER, "SRMLPBackward: batch of %" PetscInt_FMT " but the last SRMLPForward had %" PetscInt_FMT "; call SRMLPForward on the same batch first", nb, mlp->cache_nb);
  if (nb == 0) PetscFunctionReturn(PETSC_SUCCESS);
  d    = mlp->scratch;
  prev = mlp->scratch + nb * mlp->maxwidth;
  PetscCall(PetscArraycpy(d, dY, nb * mlp->width[mlp->nlayers]));
  if (mlp->has_out)
    for (PetscInt i = 0; i < nb; i++)
      for (PetscInt o = 0; o < mlp->width[mlp->nlayers]; o++) d[i * mlp->width[mlp->nlayers] + o] *= mlp->outscale[o];
  SRMLPActivateBackward_Private(mlp->act[mlp->nlayers - 1], nb * mlp->width[mlp->nlayers], mlp->cache + SRMLPActOffset_Private(mlp, nb, mlp->nlayers), d);
  for (PetscInt l = mlp->nlayers - 1; l >= 0; l--) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
    const double  *W  = mlp->params + mlp->woff[l];
    const double  *in = mlp->cache + SRMLPActOffset_Private(mlp, nb, l);
    double        *gW = grad + mlp->woff[l], *gb = grad + mlp->boff[l];

    for (PetscInt i = 0; i < nb; i++)
      for (PetscInt o = 0; o < wout; o++)
        gb[o] += d[i * wout + o];
    SRMLPAddTransTimes_Private(nb, wout, win, d, in, gW);
    if (l > 0 || dX) {
      SRMLPRowsTimes_Private(nb, wout, win, d, W, NULL, prev);
      /* layer l > 0 input is the output a of layer l - 1's activation */
      if (l > 0) SRMLPActivateBackward_Private(mlp->act[l - 1], nb * win, in, prev);
      if (l == 0) {
        PetscCall(PetscArraycpy(dX, prev, nb * win));
        if (mlp->has_in) /* d z / d x = [inlo <= x <= inhi] / inrange */
          for (PetscInt i = 0; i < nb; i++)
            for (PetscInt j = 0; j < win; j++) {
              const double x = mlp->xcache[i * win + j];
              dX[i * win + j] = (x >= mlp->inlo[j] && x <= mlp->inhi[j]) ? dX[i * win + j] / mlp->inrange[j] : 0.0;
            }
      }
      double *swap = d;
      d            = prev;
      prev         = swap;
    }
    PetscCall(PetscLogFlops(4.0 * nb * win * wout));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Interval bound propagation (SPEC §7 interval): every product W x and sum is an outward-
   rounded interval operation and the activations are the sound interval ones, so Y contains
   N(x) for all real x in X. */
SRInterval SRActivationInterval(SRActivation act, SRInterval z)
{
  switch (act) {
  case SR_ACT_TANH:
    return SRIntervalTanh(z);
  case SR_ACT_RELU: /* max(., 0) is monotone and exact */
    if (SRIntervalIsNaI(z)) return z;
    return SRIntervalMake(z.lo < 0 ? 0.0 : z.lo, z.hi < 0 ? 0.0 : z.hi);
  case SR_ACT_SIGMOID:
    return SRIntervalSigmoid(z);
  default:
    return z;
  }
}

PetscErrorCode SRMLPForwardInterval(SRMLP mlp, const SRInterval *X, SRInterval *Y)
{
  SRInterval *buf0, *buf1, *cur, *nxt;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(mlp->maxwidth, &buf0, mlp->maxwidth, &buf1));
  cur = buf0;
  nxt = buf1;
  for (PetscInt j = 0; j < mlp->width[0]; j++)
    cur[j] = SRMLPInputInterval(mlp, j, X[j]);
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt win = mlp->width[l], wout = mlp->width[l + 1];
    const double  *W = mlp->params + mlp->woff[l], *b = mlp->params + mlp->boff[l];

    for (PetscInt o = 0; o < wout; o++) {
      SRInterval z = SRIntervalPoint(b[o]);
      for (PetscInt j = 0; j < win; j++)
        z = SRIntervalAdd(z, SRIntervalScale(W[o * win + j], cur[j]));
      nxt[o] = SRActivationInterval(mlp->act[l], z);
    }
    SRInterval *swap = cur;
    cur              = nxt;
    nxt              = swap;
  }
  for (PetscInt o = 0; o < mlp->width[mlp->nlayers]; o++)
    Y[o] = SRMLPOutputInterval(mlp, o, cur[o]);
  PetscCall(PetscFree2(buf0, buf1));
  PetscFunctionReturn(PETSC_SUCCESS);
}
