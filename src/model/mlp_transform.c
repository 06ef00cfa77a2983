/* The input and output transforms of an imported network (SPEC §14): NNet's input clipping and
   mean/range normalisation and its output scaling, ONNX's constant Sub/Div before the first
   layer and Mul/Add/Sub after the last (the ARCH controllers' u = f(x) - 10).

     input   z_j = (clip(x_j, inlo_j, inhi_j) - inmean_j) / inrange_j
     output  y_i = N_i outscale_i + outoffset_i

   The network's function is this composition in real arithmetic; the point pass evaluates it in
   double (as the NNet reference code does), the enclosures enclose the real function: intervals
   with directed rounding, Taylor models through SRTaylorClip, SRTaylorLinear (rounding swept into
   the remainder) and SRTaylorScaleInterval with an outward enclosure of 1 / inrange.  Not
   collective. */
#include <simreach/model.h>

PetscErrorCode SRMLPSetInputTransform(SRMLP mlp, const double inlo[], const double inhi[], const double inmean[], const double inrange[])
{
  const PetscInt n = mlp->width[0];

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < n; j++) {
    PetscCheck(!isnan(inlo[j]) && !isnan(inhi[j]) && inlo[j] <= inhi[j], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "input %" PetscInt_FMT ": clipping bounds [%g, %g]; need min <= max", j, inlo[j], inhi[j]);
    PetscCheck(isfinite(inmean[j]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "input %" PetscInt_FMT ": mean %g; must be finite", j, inmean[j]);
    PetscCheck(isfinite(inrange[j]) && inrange[j] > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "input %" PetscInt_FMT ": range %g; must be finite and > 0", j, inrange[j]);
  }
  if (!mlp->has_in) PetscCall(PetscMalloc4(n, &mlp->inlo, n, &mlp->inhi, n, &mlp->inmean, n, &mlp->inrange));
  PetscCall(PetscArraycpy(mlp->inlo, inlo, n));
  PetscCall(PetscArraycpy(mlp->inhi, inhi, n));
  PetscCall(PetscArraycpy(mlp->inmean, inmean, n));
  PetscCall(PetscArraycpy(mlp->inrange, inrange, n));
  mlp->has_in = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRMLPSetOutputTransform(SRMLP mlp, const double outscale[], const double outoffset[])
{
  const PetscInt m = mlp->width[mlp->nlayers];

  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < m; i++) PetscCheck(isfinite(outscale[i]) && isfinite(outoffset[i]), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "output %" PetscInt_FMT ": scale %g, offset %g; both must be finite", i, outscale[i], outoffset[i]);
  if (!mlp->has_out) PetscCall(PetscMalloc2(m, &mlp->outscale, m, &mlp->outoffset));
  PetscCall(PetscArraycpy(mlp->outscale, outscale, m));
  PetscCall(PetscArraycpy(mlp->outoffset, outoffset, m));
  mlp->has_out = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRMLPInputPoint(SRMLP mlp, PetscInt nb, double *x)
{
  const PetscInt n = mlp->width[0];
  if (!mlp->has_in) return;
  for (PetscInt i = 0; i < nb; i++)
    for (PetscInt j = 0; j < n; j++) {
      double v = x[i * n + j];
      v        = v < mlp->inlo[j] ? mlp->inlo[j] : (v > mlp->inhi[j] ? mlp->inhi[j] : v);
      x[i * n + j] = (v - mlp->inmean[j]) / mlp->inrange[j];
    }
}

void SRMLPOutputPoint(SRMLP mlp, PetscInt nb, double *y)
{
  const PetscInt m = mlp->width[mlp->nlayers];
  if (!mlp->has_out) return;
  for (PetscInt k = 0; k < nb; k++)
    for (PetscInt i = 0; i < m; i++) y[k * m + i] = y[k * m + i] * mlp->outscale[i] + mlp->outoffset[i];
}

SRInterval SRMLPInputInterval(SRMLP mlp, PetscInt j, SRInterval x)
{
  SRInterval c;
  if (!mlp->has_in) return x;
  c = SRIntervalClip(x, mlp->inlo[j], mlp->inhi[j]);
  if (SRIntervalIsNaI(c)) return c;
  /* inrange > 0: (c - mean) / range is increasing in c */
  return SRIntervalMake(SRDivDown(SRSubDown(c.lo, mlp->inmean[j]), mlp->inrange[j]), SRDivUp(SRSubUp(c.hi, mlp->inmean[j]), mlp->inrange[j]));
}

SRInterval SRMLPOutputInterval(SRMLP mlp, PetscInt i, SRInterval y)
{
  if (!mlp->has_out) return y;
  return SRIntervalAdd(SRIntervalScale(mlp->outscale[i], y), SRIntervalPoint(mlp->outoffset[i]));
}

SRTaylor SRMLPInputTaylor(SRMLP mlp, PetscInt n, PetscInt j, SRTaylor x)
{
  const double one = 1.0;
  SRTaylor     c;
  if (!mlp->has_in) return x;
  c = SRTaylorClip(n, x, mlp->inlo[j], mlp->inhi[j]);
  c = SRTaylorLinear(n, 1, &one, &c, -mlp->inmean[j]); /* c - mean, its rounding in the remainder */
  /* 1 / range enclosed outward; the scale's inexactness goes into the remainder */
  return SRTaylorScaleInterval(n, SRIntervalMake(SRDivDown(1.0, mlp->inrange[j]), SRDivUp(1.0, mlp->inrange[j])), c);
}

SRTaylor SRMLPOutputTaylor(SRMLP mlp, PetscInt n, PetscInt i, SRTaylor y)
{
  if (!mlp->has_out) return y;
  return SRTaylorLinear(n, 1, &mlp->outscale[i], &y, mlp->outoffset[i]);
}
