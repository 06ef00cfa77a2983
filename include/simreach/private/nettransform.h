/* The optional input/output transforms of a network (SPEC §14) as HDF5 attributes, shared by the
   network file and the abstraction file (src/model/network_file.c). */
#pragma once

#include <simreach/model.h>
#include <hdf5.h>

PetscErrorCode SRNetTransformsWrite(hid_t o, SRMLP mlp);
/* Reads the attributes present into mlp's transforms; what names the file in messages. */
PetscErrorCode SRNetTransformsRead(hid_t o, const char what[], SRMLP mlp);
