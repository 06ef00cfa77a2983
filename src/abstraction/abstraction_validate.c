/* Validation of an abstraction file's partition and rows (SPEC §13), before any answer is
   given from it: the rules are listed in docs/files.md ("What a reader checks") and
   analysis/abstraction-schema.md.  Pure functions on data already read; the file layer
   (abstraction_file.c) reads, calls these and refuses on its communicator. */
#include <simreach/private/abstraction_valid.h>
#include <simreach/private/fileio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

uint64_t SRAbstractionRowSum(PetscInt n, PetscInt64 k, const double *E, const int32_t *row)
{
  uint64_t h = SRChecksumSeed("abstraction-cells", (int64_t)k, 0);
  h          = SRChecksum64(E, sizeof(double) * (size_t)(2 * n), h);
  return SRChecksum64(row, sizeof(int32_t) * (size_t)SRListRowLength(n), h);
}

/* The partition (SPEC §4, §10): per dimension the boundary enclosures [glo[i], ghi[i]] are
   ordered boxes, strictly increasing, equal to the domain at both ends; the outward cell boxes
   contain their boundaries, increase strictly, leave no gap and cover the domain's ends; the
   domain is the system's.  (The caller also rebuilds the axes from counts and boundaries and
   requires every stored number bit for bit: outward boxes cannot be widened.) */
PetscBool SRAbstractionAxesValid(SRAxes ax, const double *sys_lo, const double *sys_hi, char msg[], size_t len)
{
  for (PetscInt d = 0; d < ax->n; d++) {
    const PetscInt N = ax->N[d];
    const double  *glo = ax->glo[d], *ghi = ax->ghi[d], *olo = ax->olo[d], *ohi = ax->ohi[d];
    if (!(ax->dlo[d] == sys_lo[d] && ax->dhi[d] == sys_hi[d])) {
      snprintf(msg, len, "/partition/domain_lo, domain_hi: dimension %lld is [%.17g, %.17g], the system's domain is [%.17g, %.17g]", (long long)d, ax->dlo[d], ax->dhi[d], sys_lo[d], sys_hi[d]);
      return PETSC_FALSE;
    }
    if (!(glo[0] == ax->dlo[d] && ghi[0] == ax->dlo[d] && glo[N] == ax->dhi[d] && ghi[N] == ax->dhi[d])) {
      snprintf(msg, len, "/partition/boundary_lo_%lld, boundary_hi_%lld: the first and last boundaries are [%.17g, %.17g] and [%.17g, %.17g], not the domain's ends %.17g and %.17g", (long long)d, (long long)d, glo[0], ghi[0], glo[N], ghi[N], ax->dlo[d], ax->dhi[d]);
      return PETSC_FALSE;
    }
    for (PetscInt i = 0; i <= N; i++) {
      if (!(isfinite(glo[i]) && isfinite(ghi[i]) && glo[i] <= ghi[i])) {
        snprintf(msg, len, "/partition/boundary_lo_%lld, boundary_hi_%lld row %lld: [%.17g, %.17g] is not an ordered finite interval", (long long)d, (long long)d, (long long)i, glo[i], ghi[i]);
        return PETSC_FALSE;
      }
      if (i > 0 && !(ghi[i - 1] < glo[i])) {
        snprintf(msg, len, "/partition/boundary_lo_%lld row %lld: boundary %.17g does not lie strictly above the one before (%.17g)", (long long)d, (long long)i, glo[i], ghi[i - 1]);
        return PETSC_FALSE;
      }
    }
    for (PetscInt i = 0; i < N; i++) {
      if (!(olo[i] <= glo[i] && ohi[i] >= ghi[i + 1] && olo[i] < ohi[i])) {
        snprintf(msg, len, "/partition/cell_lo_%lld, cell_hi_%lld row %lld: [%.17g, %.17g] does not contain the cell between its boundaries", (long long)d, (long long)d, (long long)i, olo[i], ohi[i]);
        return PETSC_FALSE;
      }
      if (i > 0 && !(olo[i - 1] < olo[i] && ohi[i - 1] < ohi[i] && olo[i] <= ohi[i - 1])) {
        snprintf(msg, len, "/partition/cell_lo_%lld, cell_hi_%lld row %lld: the cell boxes are not strictly increasing without gaps", (long long)d, (long long)d, (long long)i);
        return PETSC_FALSE;
      }
    }
    if (!(olo[0] <= ax->dlo[d] && ohi[N - 1] >= ax->dhi[d])) {
      snprintf(msg, len, "/partition/cell_lo_%lld, cell_hi_%lld: the cells span [%.17g, %.17g], less than the domain [%.17g, %.17g]", (long long)d, (long long)d, olo[0], ohi[N - 1], ax->dlo[d], ax->dhi[d]);
      return PETSC_FALSE;
    }
  }
  return PETSC_TRUE;
}

/* One row: checksum, flag, index ranges, and the list against the stored enclosure — the cells
   E meets and the sink when E leaves D (SRAxesIndexBox) must be listed.  This does not prove
   the list (E itself is re-proven by simreach check); it refuses a row that contradicts its
   own enclosure or the partition. */
PetscBool SRAbstractionRowValid(SRAxes ax, PetscInt64 k, const double *E, const int32_t *row, uint64_t sum, char msg[], size_t len)
{
  const PetscInt n = ax->n;
  const int32_t  f = row[2 * n];
  PetscBool      empty = PETSC_FALSE;
  int32_t        ib[2 * SR_MAX_DIM + 1];

  if (sum != SRAbstractionRowSum(n, k, E, row)) {
    snprintf(msg, len, "/cells/enclosure, /cells/list row %lld fails its checksum (/cells/checksum)", (long long)k);
    return PETSC_FALSE;
  }
  if (f != 0 && f != SR_LIST_SINK && f != (SR_LIST_SINK | SR_LIST_NONFINITE)) {
    snprintf(msg, len, "/cells/list row %lld: flag %d; allowed are 0, 1 (the sink) and 3 (the sink alone, non-finite enclosure)", (long long)k, (int)f);
    return PETSC_FALSE;
  }
  if (f & SR_LIST_NONFINITE) {
    for (PetscInt d = 0; d < n; d++)
      if (row[d] != 0 || row[n + d] != -1) {
        snprintf(msg, len, "/cells/list row %lld: a non-finite enclosure lists the sink alone (lo 0, hi -1), not [%d, %d] in dimension %lld", (long long)k, (int)row[d], (int)row[n + d], (long long)d);
        return PETSC_FALSE;
      }
    return PETSC_TRUE;
  }
  for (PetscInt d = 0; d < n; d++) {
    if (!(isfinite(E[d]) && isfinite(E[n + d]) && E[d] <= E[n + d])) {
      snprintf(msg, len, "/cells/enclosure row %lld: [%.17g, %.17g] in dimension %lld is not an ordered finite interval, and the list does not say non-finite", (long long)k, E[d], E[n + d], (long long)d);
      return PETSC_FALSE;
    }
    if (row[d] > row[n + d]) empty = PETSC_TRUE;
  }
  for (PetscInt d = 0; d < n; d++) {
    if (!empty && !(row[d] >= 0 && row[n + d] < ax->N[d])) {
      snprintf(msg, len, "/cells/list row %lld: index box [%d, %d] in dimension %lld lies outside the cells 0..%lld", (long long)k, (int)row[d], (int)row[n + d], (long long)d, (long long)ax->N[d] - 1);
      return PETSC_FALSE;
    }
    if (empty && !(row[d] >= -1 && row[d] <= ax->N[d] && row[n + d] >= -1 && row[n + d] <= ax->N[d])) {
      snprintf(msg, len, "/cells/list row %lld: empty index box [%d, %d] in dimension %lld lies outside -1..%lld", (long long)k, (int)row[d], (int)row[n + d], (long long)d, (long long)ax->N[d]);
      return PETSC_FALSE;
    }
  }
  if (empty && !(f & SR_LIST_SINK)) {
    snprintf(msg, len, "/cells/list row %lld: an empty list (lo > hi) without the sink: the image of a cell is never empty", (long long)k);
    return PETSC_FALSE;
  }
  SRAxesIndexBox(ax, E, E + n, ib);
  if ((ib[2 * n] & SR_LIST_SINK) && !(f & SR_LIST_SINK)) {
    snprintf(msg, len, "/cells/list row %lld: the stored enclosure leaves the domain but the sink flag is not set", (long long)k);
    return PETSC_FALSE;
  }
  {
    PetscBool ibempty = PETSC_FALSE;
    for (PetscInt d = 0; d < n; d++)
      if (ib[d] > ib[n + d]) ibempty = PETSC_TRUE;
    if (!ibempty)
      for (PetscInt d = 0; d < n; d++)
        if (empty || row[d] > ib[d] || row[n + d] < ib[n + d]) {
          snprintf(msg, len, "/cells/list row %lld: the list does not contain the cells its stored enclosure meets (index box [%d, %d] in dimension %lld, needed [%d, %d])", (long long)k, (int)row[d], (int)row[n + d], (long long)d, (int)ib[d], (int)ib[n + d]);
          return PETSC_FALSE;
        }
  }
  return PETSC_TRUE;
}
