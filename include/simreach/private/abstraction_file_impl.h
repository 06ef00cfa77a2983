/* What the reader (src/abstraction/abstraction_file.c) and the writer
   (src/abstraction/abstraction_write.c) of the abstraction file share (SPEC §10, §13): the
   format names, the object and two helpers.  Private to src/abstraction/. */
#pragma once

#include <simreach/abstraction_file.h>
#include <simreach/private/h5attr.h>

/* Format 3 (SPEC §13): a checksum on every dataset (attribute "checksum", or per row in
   /cells/checksum and /failures/checksum) and on the header attributes ("header_checksum");
   the reader validates everything before the file is used (abstraction_validate.c).  The
   network's activations (SPEC §14) are the attribute /network/activations when they are not
   simreach's own.  Formats 1 and 2 (no checksums) are refused by name. */
#define SR_ABSTRACTION_FORMAT "simreach-abstraction-3"
#define SR_ABSTRACTION_FORMAT_1 "simreach-abstraction-1"
#define SR_ABSTRACTION_FORMAT_2 "simreach-abstraction-2"

struct _p_SRAbstractionFile {
  MPI_Comm            comm;
  hid_t               file, dE, dL, dS;
  char                path[PETSC_MAX_PATH_LEN], part[PETSC_MAX_PATH_LEN];
  PetscBool           write, force;
  int                 werr; /* this rank's first write error (errno, -1 unknown): issue 34 */
  SRAbstractionHeader h;
  SRAxes              ax;
  double             *params;
};

/* A file-access list for MPI-IO on comm; negative on failure. */
hid_t SRAbsFapl_Private(MPI_Comm comm);
/* The header attributes, in a fixed order, under one checksum. */
uint64_t SRAbsHeaderSum_Private(const SRAbstractionHeader *h);
