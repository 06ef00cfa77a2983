/* A growable array of PetscInt (include/simreach/private/intbuf.h): moved down from
   src/abstraction/successors.c so that the cell index and the successor lists, which both
   build lists with it, do not depend on each other for it. */
#include <simreach/private/intbuf.h>

PetscErrorCode SRIntBufReserve_Private(SRIntBuf *b, PetscInt cap)
{
  PetscFunctionBeginUser;
  if (cap > b->cap) {
    PetscInt  ncap = PetscMax(cap, 2 * b->cap + 16);
    PetscInt *a;
    PetscCall(PetscMalloc1(ncap, &a));
    if (b->n) PetscCall(PetscArraycpy(a, b->a, b->n));
    PetscCall(PetscFree(b->a));
    b->a   = a;
    b->cap = ncap;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRIntBufPush_Private(SRIntBuf *b, PetscInt v)
{
  PetscFunctionBeginUser;
  if (b->n == b->cap) PetscCall(SRIntBufReserve_Private(b, b->n + 1));
  b->a[b->n++] = v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRIntBufDestroy_Private(SRIntBuf *b)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(b->a));
  b->n = b->cap = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}
