/* The controls of one period of the closed loop (SPEC §15, §15 turn 4; used by odeloop.c).

   SRLoopControls sets L->vars (states X, network outputs, controls, disturbances) for the states
   X (m coordinates): the network inputs, the network's enclosure, the control expressions.  With
   several networks (plant->select) *cand holds the networks that may run in this period (a bit
   each; L->ctrls[k]) and becomes those that may run in the next (the possible argmaxes); else
   L->ctrl runs and *cand is unused.  False when no enclosure exists.  Uses L->forms after the
   loop's (7 + nc) n state forms for the network's input and output forms (SR_LOOP_FORMS). */
#pragma once

#include <simreach/odeloop.h>
#include <stdint.h>

bool SRLoopControls(SRLoop *L, int m, const SRAffine *X, uint64_t *cand);
