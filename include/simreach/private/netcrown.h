/* The relaxation lines of CROWN (src/bounds/crownrelax.c; SPEC §15): the two lines CROWN
   (src/bounds/netcrown.c) puts around an activation over a pre-activation range; a test checks
   them against the function itself (tests/bounds/test_crown_relax.c). */
#pragma once

#include <simreach/model.h>
#include <stdbool.h>

/* alL z + beL <= s(z) <= alU z + beU for every real z in [lo, hi] (lo <= hi finite), s the
   activation act; false when no finite lines were found */
bool SRCrownRelax_Private(SRActivation act, double lo, double hi, double *alL, double *beL, double *alU, double *beU);
