/* The network over affine forms (SPEC §15, §14): the controller enclosure that keeps the
   network's outputs as affine forms of the piece's coordinates, so the closed loop keeps the
   dependence of the control on the state (an interval enclosure loses it and the tube
   explodes within a few periods).  Affine layers are exact up to outward rounding; ReLU uses
   the chord relaxation y in lambda a + [0, -lambda l] (lambda = u / (u - l) on a range [l, u]
   containing 0), tanh the mean-value form (affine.h), sigmoid(x) = (1 + tanh(x / 2)) / 2.
   Not collective. */
#pragma once

#include <simreach/affine.h>
#include <simreach/model.h>

/* out[0..nout) over in[0..nin) (forms in m coordinates); work: 2 * mlp->maxwidth forms.
   Returns false when an enclosure is NaI. */
bool SRMLPForwardAffine(SRMLP mlp, int m, const SRAffine *in, SRAffine *out, SRAffine *work);
