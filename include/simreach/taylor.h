/* First-order Taylor models (SPEC §7, taylor1).

   A Taylor model over the normalised cell coordinates xi in [-1,1]^n is the affine form
   c0 + sum_i c[i] xi_i plus an interval remainder r: it encloses a function g on the cell if
   for every xi, g(x(xi)) - c0 - sum c[i] xi_i lies in r (exact real arithmetic).  Every
   operation keeps that property: nonlinear functions are replaced by a linear bound with a
   sound remainder, and all floating-point rounding errors of the coefficients are swept into
   the remainder.  Value type, not collective. */
#pragma once

#include <simreach/base.h>
#include <simreach/interval.h>

typedef struct {
  double     c0;
  double     c[SR_MAX_DIM];
  SRInterval r;
} SRTaylor;

/* x_i = centre + halfwidth * xi_i for dimension i of n (the cell's own coordinates). */
SRTaylor SRTaylorVariable(PetscInt n, PetscInt i, double centre, double halfwidth);
SRTaylor SRTaylorConstant(PetscInt n, double value);
/* sum_j a[j] * t[j] + b, for point coefficients a and b */
SRTaylor SRTaylorLinear(PetscInt n, PetscInt m, const double *a, const SRTaylor *t, double b);
SRTaylor SRTaylorAdd(PetscInt n, SRTaylor a, SRTaylor b);
SRTaylor SRTaylorScale(PetscInt n, double s, SRTaylor a);
SRTaylor SRTaylorTanh(PetscInt n, SRTaylor a);
SRTaylor SRTaylorSigmoid(PetscInt n, SRTaylor a);
SRTaylor SRTaylorSin(PetscInt n, SRTaylor a);
SRTaylor SRTaylorCos(PetscInt n, SRTaylor a);
/* Sound interval range of the model over xi in [-1,1]^n. */
SRInterval SRTaylorRange(PetscInt n, SRTaylor a);
/* min(max(a, lo), hi) (lo <= hi, either may be infinite): a line plus a remainder, sound. */
SRTaylor SRTaylorClip(PetscInt n, SRTaylor a, double lo, double hi);
/* C a for an interval constant C (e.g. an inexact product dt g): mid(C) a + (C - mid C) Range(a). */
SRTaylor SRTaylorScaleInterval(PetscInt n, SRInterval C, SRTaylor a);

