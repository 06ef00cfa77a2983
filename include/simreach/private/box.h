/* Boxes of doubles (numerics layer; inline only): shared by the cell index and the successor
   lists (src/abstraction/cellindex.c, successors.c, containment.c). */
#pragma once

#include <simreach/base.h>

/* Closed boxes [alo, ahi] and [blo, bhi] share a point (false if any endpoint is NaN). */
static inline PetscBool SRBoxMeets_Private(PetscInt n, const double *alo, const double *ahi, const double *blo, const double *bhi)
{
  for (PetscInt d = 0; d < n; d++)
    if (!(alo[d] <= bhi[d] && blo[d] <= ahi[d])) return PETSC_FALSE;
  return PETSC_TRUE;
}
