/* The network over affine forms (SPEC §15, §14): the controller enclosure that keeps the
   network's outputs as affine forms of the piece's coordinates, so the closed loop keeps the
   dependence of the control on the state (an interval enclosure loses it and the tube
   explodes within a few periods).  Affine layers are exact up to outward rounding; ReLU uses
   the chord relaxation y in lambda a + [0, -lambda l] (lambda = u / (u - l) on a range [l, u]
   containing 0), tanh the mean-value form (affine.h), sigmoid(x) = (1 + tanh(x / 2)) / 2.
   The tighter enclosure is the linear relaxation with back-substitution (CROWN,
   src/bounds/netcrown.c): every neuron's activation between two lines over its
   pre-activation bounds, the bounds of each layer and of the outputs obtained by substituting
   the lines and the affine layers back to the piece's coordinates; outward rounded.
   Input and output transforms of imported networks (SPEC §14) are applied.  Used by the
   continuous-time loop (src/reach/odeloop.c) over pieces and by the abstraction over cells
   (-enclosure crown: src/bounds/netbox.c, private/netbatch.h).  Not collective. */
#pragma once

#include <simreach/affine.h>
#include <simreach/model.h>

typedef enum {
  SR_NET_FORWARD, /* affine forms layer by layer */
  SR_NET_CROWN,   /* linear relaxation with back-substitution */
  SR_NET_BEST     /* both, the narrower output kept */
} SRNetEnclosure;

#define SR_NET_WORK(mlp) (4 * (mlp)->maxwidth) /* forms of work */

/* out[0..nout) over in[0..nin) (forms in m coordinates); work: SR_NET_WORK(mlp) forms.
   Returns false when no enclosure was found (NaI). */
bool SRMLPEncloseAffine(SRMLP mlp, int m, const SRAffine *in, SRAffine *out, SRAffine *work, SRNetEnclosure how);
/* SRMLPEncloseAffine(..., SR_NET_FORWARD) */
bool SRMLPForwardAffine(SRMLP mlp, int m, const SRAffine *in, SRAffine *out, SRAffine *work);
/* CROWN alone, over exactly the m coordinates of in (no transforms, no extra symbols); allocates */
bool SRMLPForwardCrown(SRMLP mlp, int m, const SRAffine *in, SRAffine *out);
