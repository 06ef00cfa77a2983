/* A text file read by rank 0 and broadcast (the plant and spec files, SPEC §15 turn 4;
   src/model/textfile.c).  Collective. */
#pragma once

#include <simreach/base.h>

/* Reads the regular file path of at most max bytes on rank 0 and gives every rank of comm its
   text (*textp, malloc'd, NUL-terminated; free() it).  Refused in one line, on every rank:
   not a regular file or unreadable ("OPTION PATH: ..."), larger than max or holding a NUL byte
   ("WHAT PATH: ..."); maxname says max in words ("1 MB"). */
PetscErrorCode SRTextFileReadBroadcast(MPI_Comm comm, const char path[], long max, const char maxname[], const char option[], const char what[], char **textp);
