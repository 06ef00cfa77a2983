/* The Taylor passes of the model with caller-provided workspace (src/model/model_taylor.c;
   model layer, SPEC §7), shared with the batched kernel and the re-check. */
#pragma once

#include <simreach/model.h>

/* Workspace variants of the Taylor passes (work: 2 * mlp->maxwidth SRTaylor); Yout (may be
   NULL) receives the n Taylor models of f_phi in the box's coordinates. */
PetscErrorCode SRMLPForwardTaylorWork_Private(SRMLP mlp, PetscInt n, const SRTaylor *X, SRTaylor *Y, SRTaylor *work);
PetscErrorCode SRModelEncloseTaylorWork_Private(SRModel model, const double *lo, const double *hi, double *elo, double *ehi, SRTaylor *work, SRTaylor *Yout);
/* the cell's normalised coordinates x_i = c_i + h_i xi_i (SPEC §7), and the part of the
   Taylor enclosure after the MLP (src/model/model_taylor.c) */
void           SRTaylorBoxVariables_Private(PetscInt n, const double *lo, const double *hi, SRTaylor *X);
PetscErrorCode SRModelTaylorTail_Private(SRModel model, const SRTaylor *X, const SRTaylor *N, double *elo, double *ehi, SRTaylor *Yout);
