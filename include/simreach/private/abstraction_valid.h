/* Validation rules of the abstraction file (SPEC §13; docs/files.md, analysis/abstraction-schema.md):
   row checksums, the partition against the system's domain, each row against the partition and
   its stored enclosure.  Pure functions; msg receives what is wrong, naming dataset and row. */
#pragma once

#include <simreach/axes.h>

/* The checksum of cell k's enclosure row (2n doubles) and list row (2n + 1 int32), bound to k. */
uint64_t  SRAbstractionRowSum(PetscInt n, PetscInt64 k, const double *E, const int32_t *row);
PetscBool SRAbstractionAxesValid(SRAxes ax, const double *sys_lo, const double *sys_hi, char msg[], size_t len);
PetscBool SRAbstractionRowValid(SRAxes ax, PetscInt64 k, const double *E, const int32_t *row, uint64_t sum, char msg[], size_t len);
