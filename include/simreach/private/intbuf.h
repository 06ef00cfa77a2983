/* A growable array of PetscInt (numerics layer, src/numerics/intbuf.c). */
#pragma once

#include <simreach/base.h>

/* A growable array of PetscInt (the entries of one cell's list while it is built). */
typedef struct {
  PetscInt  n, cap;
  PetscInt *a;
} SRIntBuf;

PetscErrorCode SRIntBufPush_Private(SRIntBuf *b, PetscInt v);
PetscErrorCode SRIntBufReserve_Private(SRIntBuf *b, PetscInt cap);
PetscErrorCode SRIntBufDestroy_Private(SRIntBuf *b);
