/* The join of two sibling pieces' states at one sample time (src/reach/merge.c, SPEC §15,
   docs/arch.md "Windows and joins"): piece [lo, hi] was bisected in dimension d at mid; F0, F1 (n forms
   over m coordinates each) enclose the states of the lower and the upper half in their own
   piece coordinates (SRPieceCoordinate); out (n forms) encloses both in the coordinates of
   [lo, hi], sharing the noise symbols.  Returns false when no join can be formed (a form NaI,
   an empty half). */
#pragma once

#include <simreach/odeloop.h>

bool SRLoopMergeForms(int n, int m, const double *lo, const double *hi, int d, double mid, const SRAffine *F0, const SRAffine *F1, SRAffine *out);
