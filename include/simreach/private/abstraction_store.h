/* The list storage of the abstraction (src/abstraction/abstraction_store.c; SPEC §5): what
   src/abstraction/abstraction.c calls to hold, expand and exchange C(k) and T(k). */
#pragma once

#include <simreach/private/abstraction_types.h>

/* C(k) as an increasing list (the sink K last): a pointer into the explicit lists, or the row
   expanded into buf.  Valid until buf is next used.  The caller has checked that lists exist
   for its cells (SRAbstractionCheckCells_Private). */
PetscErrorCode SRAbstractionCellList_Private(SRAbstraction abs, PetscInt k, SRIntBuf *buf, PetscInt *nlist, const PetscInt **list);
/* SPEC §7 verdict (no witness) of E = [elo, ehi] (status st: SR_CELL_NONFINITE stays) within C(k):
   first against the stored index box itself (SRContainmentIndexBox), then, for what that does not
   prove, SRContainmentTest on the list expanded into buf. */
PetscErrorCode SRAbstractionCellContained_Private(SRAbstraction abs, SRCells cells, PetscInt k, const double *elo, const double *ehi, SRIntBuf *buf, SRCellStatus *st);
/* This rank's rows of C (cells [ks, ke) in order) to every rank: C becomes K index boxes. */
PetscErrorCode SRAbstractionAllgatherRows_Private(SRAbstraction abs, SRCells cells, const PetscInt *rows);
/* This rank's lists (cnt[k - ks] entries each, concatenated in ent) to every rank as one CSR. */
PetscErrorCode SRAbstractionAllgatherList_Private(SRAbstraction abs, PetscInt K, const PetscInt *cnt, const SRIntBuf *ent, SRSuccessorList *L);
/* Entries of every C(k) together (the sink counts one); the same on every rank. */
PetscInt64 SRAbstractionCertifiedEntries_Private(SRAbstraction abs);
/* -target certified with index boxes: T becomes a view of C's rows (T = C), nothing expanded. */
PetscErrorCode SRAbstractionTargetsView_Private(SRAbstraction abs);
