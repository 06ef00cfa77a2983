/* The network file (SPEC §10; model layer, src/model/network_file.c): reached through the model
   that owns the weights.  verify.h includes it for the commands that read networks. */
#pragma once

#include <simreach/model.h>

/* The network file (SPEC §10; layout in src/model/network_file.c and analysis/abstraction-schema.md).
   Write: rank 0 writes path.part and renames it (an existing path only with force).
   Read: every rank reads the file (a bad file fails identically everywhere).  */
PetscErrorCode SRNetworkFileWrite(MPI_Comm comm, const char path[], PetscBool force, const char sysname[], SRModelType type, PetscInt control_steps, SRMLP mlp);
/* The network as an SRMLP (widths, parameters, activations, transforms; format 1: tanh, ...,
   linear); *control_steps 0 when the file has none. */
PetscErrorCode SRNetworkFileRead(MPI_Comm comm, const char path[], char sysname[], size_t len, SRModelType *type, PetscInt *control_steps, SRMLP *mlp);
