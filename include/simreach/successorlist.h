/* Successor lists (SPEC §5; abstraction layer, src/abstraction/successors.c): the type every
   layer above the cells reads lists through. */
#pragma once

#include <simreach/base.h>

/* A list of candidate successors per cell; the index K stands for the sink.  Explicit (CSR:
   ptr, idx), or, when rows is set, a view of SPEC §5 index boxes: list k is every cell of the
   box rows[(2 rn + 1) k ...] over a grid of rgrid counts, increasing, then the sink if flagged
   (ptr and idx unused; what -target certified uses for T = C, so that no rank holds every
   list expanded).  Read a list with SRSuccessorListGet, which works for both. */
typedef struct {
  PetscInt        K;
  PetscInt       *ptr; /* K + 1 */
  PetscInt       *idx;
  const PetscInt *rows;
  PetscInt        rn, rgrid[SR_MAX_DIM];
} SRSuccessorList;

/* List k: *list points into L (CSR) or into *scratch (index boxes, grown as needed; the caller
   frees it with PetscFree).  Not collective. */
PetscErrorCode SRSuccessorListGet(const SRSuccessorList *L, PetscInt k, PetscInt **scratch, PetscInt *scap, PetscInt *n, const PetscInt **list);
/* The length of list k without expanding it. */
PetscInt SRSuccessorListLength(const SRSuccessorList *L, PetscInt k);
