/* The network file (SPEC §10; model layer, src/model/network_file.c): reached through the model
   that owns the weights.  verify.h includes it for the commands that read networks. */
#pragma once

#include <simreach/network.h>

/* The network file (SPEC §10; layout in src/model/network_file.c and analysis/abstraction-schema.md).
   Write: rank 0 writes path.part and renames it (an existing path only with force).
   Read: every rank reads the file (a bad file fails identically everywhere).
   Format 3 (SPEC §13): the closed loop it belongs to (sys's name, constants, u_max,
   control_steps; the model type), a checksum per dataset and one over the header attributes.
   Read: formats 1 and 2 (no checksums) are still read; format 3 is validated before use
   (format, checksums, widths against the system, finite weights, activation names, transforms,
   the domain equal to the system's), a failure refused in one line naming file, dataset, row. */
PetscErrorCode SRNetworkFileWrite(MPI_Comm comm, const char path[], PetscBool force, SRSystem sys, SRModelType type, SRMLP mlp);
/* The network as an SRMLP (widths, parameters, activations, transforms; format 1: tanh, ...,
   linear) and info's closed loop (format, sys, type, control_steps 0 when the file has none,
   has_consts and the constants for format 3). */
PetscErrorCode SRNetworkFileRead(MPI_Comm comm, const char path[], SRNetworkInfo *info, SRMLP *mlp);
