/* Network bounds over blocks of boxes (bounds layer; SPEC §7, §16): the batched interval
   kernel (src/bounds/netinterval.c), the batched first-order Taylor-model kernel
   (src/bounds/nettaylor.c) and CROWN over boxes (src/bounds/netbox.c), each giving what the
   network (input and output transforms of SPEC §14 included) does over every box of a block.
   What a cell does with that bound (the system's step, statuses, cell models) is the
   abstraction's (src/abstraction/enclosure.c, enclosure_taylor.c).  Not collective. */
#pragma once

#include <simreach/model.h>
#include <simreach/netaffine.h>

#include <stdint.h>
#include <string.h>

/* Boxes per block of the batched kernels (structure-of-arrays: value d of box c at d * SR_ENC_BLOCK + c) */
#define SR_ENC_BLOCK 64

/* Fast tanh for the batched interval kernel, vectorisable (no libm call, no branch):
     |SRTanhFast_Private(x) - tanh(x)| <= SR_TANH_FAST_ERR   for every finite x.
   tanh|x| = 1 - 2 / (e^y + 1), y = 2 min(|x|, 20) (beyond 20, 1 - tanh 20 < 1e-17);
   e^y = 2^k p(r), k = round(y / ln 2) <= 58, r = y - k ln2_hi - k ln2_lo with the fdlibm split
   (k ln2_hi exact, y - k ln2_hi exact by Sterbenz), |r| <= 0.3466 + 1e-16;
   p = degree-12 Taylor polynomial of e^r by Horner: truncation <= |r|^13 / 13! e^|r| < 2.5e-16 e^r,
   coefficients and Horner <= (gamma_24 + u) e^|r| <= 2 (25 u) e^r, r error <= 4.5e-17 relative,
   so e^y is computed with relative error delta <= 5.9e-15; then
   |d tanh / d(e^y)| e^y delta <= delta / 2 and the last three roundings add <= 4 u:
   total < 3.5e-15.  SR_TANH_FAST_ERR = 2^-45 = 2.8e-14 leaves a factor 8 (checked against MPFR in
   tests/abstraction/test_enclosure.c). */
#define SR_TANH_FAST_ERR 0x1p-45

/* tanh(y / 2) for 0 <= y <= 40 (the caller clamps: GCC does not if-convert a clamp that feeds
   further arithmetic, so the batched kernel clamps in a separate loop). */
static inline double SRTanhFastHalf_Private(double y)
{
  const double magic = 0x1.8p52, invln2 = 1.44269504088896338700e+00;
  const double ln2hi = 6.93147180369123816490e-01, ln2lo = 1.90821492927058770002e-10;
  const double t  = y * invln2 + magic;
  const double kd = t - magic;
  const double r  = (y - kd * ln2hi) - kd * ln2lo;
  double       p  = 1.0 / 479001600.0;
  uint64_t     bits;
  double       scale, e;

  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  /* 2^k from the low bits of t = 1.5 2^52 + k */
  memcpy(&bits, &t, sizeof bits);
  bits = (bits + 1023) << 52;
  memcpy(&scale, &bits, sizeof scale);
  e = p * scale;
  return 1.0 - 2.0 / (e + 1.0);
}

/* Clamped argument of SRTanhFastHalf_Private: -2 max(-|x|, -20) = 2 min(|x|, 20). */
static inline double SRTanhFastArg_Private(double x)
{
  const double nx = -fabs(x);
  return -2.0 * (nx > -20.0 ? nx : -20.0);
}

static inline double SRTanhFast_Private(double x) { return copysign(SRTanhFastHalf_Private(SRTanhFastArg_Private(x)), x); }

/* The interval kernel (src/bounds/netinterval.c): the network over SR_ENC_BLOCK boxes lo/hi (SoA,
   n = mlp->width[0] rows, every slot filled) by midpoint-radius propagation.  Writes, for box c
   and output k < nout, N_k in [Nlo[k * SR_ENC_BLOCK + c], Nhi[k * SR_ENC_BLOCK + c]] (output
   transform applied), and nf[c] = 0 while the box and every value met are finite (NaN otherwise;
   then nothing may be read from the box's N). */
typedef struct _p_SRNetIntervalBatch *SRNetIntervalBatch;
PetscErrorCode SRNetIntervalBatchCreate(SRMLP mlp, SRNetIntervalBatch *b);
PetscErrorCode SRNetIntervalBatchDestroy(SRNetIntervalBatch *b);
void           SRNetIntervalBatchEnclose(SRNetIntervalBatch b, const double *lo, const double *hi, double *Nlo, double *Nhi, double *nf);
double         SRNetIntervalBatchFlops(SRNetIntervalBatch b); /* per box */

/* The first-order Taylor-model kernel (src/bounds/nettaylor.c): for each of nb <= SR_ENC_BLOCK
   boxes lo/hi (SoA, all SR_ENC_BLOCK slots filled) of dimension n <= SR_MAX_DIM, the box's
   variables X[c * SR_MAX_DIM + d] (x_d = c_d + h_d xi_d, SPEC §7) and, when ok[c] (the box is
   finite), the network's output Taylor models N[c * SR_MAX_DIM + k] in those coordinates
   (output transform applied; their values may be non-finite).  The same models as the per-cell
   pass SRMLPForwardTaylorWork_Private, batched where every tanh range is narrow (the rest of the
   cells take that per-cell pass). */
typedef struct _p_SRNetTaylorBatch *SRNetTaylorBatch;
PetscErrorCode SRNetTaylorBatchCreate(SRMLP mlp, PetscInt n, SRNetTaylorBatch *b);
PetscErrorCode SRNetTaylorBatchDestroy(SRNetTaylorBatch *b);
PetscErrorCode SRNetTaylorBatchEnclose(SRNetTaylorBatch b, PetscInt nb, const double *lo, const double *hi, SRTaylor *X, SRTaylor *N, PetscBool *ok);

/* CROWN over boxes (src/bounds/netbox.c): the network over nb <= SR_ENC_BLOCK boxes lo/hi (SoA as
   above, n = mlp->width[0]) by SRMLPEncloseAffine (how: SR_NET_CROWN, SR_NET_FORWARD or
   SR_NET_BEST; the same code as the continuous-time loop's), one box after the other, each box
   as the forms x_d = c_d + h_d xi_d (the coordinates of SRTaylorBoxVariables_Private); the
   outputs' ranges in Nlo/Nhi (layout as the interval kernel's) and nf[c] = 0 when found (NaN
   otherwise); N (may be NULL): the output forms themselves as
   Taylor models in those coordinates, N[c * SR_MAX_DIM + k], valid where nf[c] == 0 (with N,
   a network of more than SR_MAX_DIM inputs or outputs finds nothing). */
typedef struct _p_SRNetBoxBatch *SRNetBoxBatch;
PetscErrorCode SRNetBoxBatchCreate(SRMLP mlp, SRNetEnclosure how, SRNetBoxBatch *b);
PetscErrorCode SRNetBoxBatchDestroy(SRNetBoxBatch *b);
void           SRNetBoxBatchEnclose(SRNetBoxBatch b, PetscInt nb, const double *lo, const double *hi, double *Nlo, double *Nhi, double *nf, SRTaylor *N);
