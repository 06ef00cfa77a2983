/* The SRAbstraction object and its list storage, shared by src/abstraction/abstraction.c (the SPEC §5-§7
   operations) and src/abstraction/abstraction_store.c (how C(k) and T(k) are held and exchanged). */
#pragma once

#include <simreach/private/successors.h>
#include <simreach/verify.h>

struct _p_SRAbstraction {
  MPI_Comm        comm;
  PetscMPIInt     rank, size;
  SREnclosureType etype;
  SRTargetParams  tp;
  double          margin; /* -succ_margin: E_k grown by margin x grid spacing before listing/pruning */
  PetscLogEvent   ev_succ, ev_cont;
  double          t_enc, t_succ, t_cont;

  /* C(k): SPEC §5 storage, K index-box rows of 2n + 1 numbers on every rank (fixed size per
     cell, which SPEC §10 lets a study replicate); the explicit lists only when a caller set
     lists that are not index boxes (SRAbstractionSetLists: planted violations in tests). */
  PetscBool       has_lists, explicit_C;
  PetscInt        K, n, rl;
  PetscInt        grid[SR_MAX_DIM];
  PetscInt       *Cbox;      /* K rows (for explicit C: made by SRAbstractionGetCertifiedBoxes) */
  SRSuccessorList C;         /* explicit C (for index boxes: made by SRAbstractionGetCertified, tests) */
  PetscBool       box_valid, C_valid;
  SRSuccessorList T;         /* T(k), at most the target capacity per cell (T = C for -target certified) */
  SRIntBuf        cell;      /* one expanded C(k) (SRAbstractionGetCertifiedCell) */
};

/* The contiguous block [ks, ke) of rank r for K cells: SRVerifyOwnership's blocks (sizes differ
   by at most one, larger first), so that verify, check and the abstraction split cells alike. */
static inline void SRAbstractionBlock_Private(PetscInt K, PetscMPIInt size, PetscMPIInt r, PetscInt *ks, PetscInt *ke)
{
  PetscInt64 a, b;
  SRVerifyOwnership(K, size, r, &a, &b);
  *ks = (PetscInt)a;
  *ke = (PetscInt)b;
}

/* C(k) as an increasing list (the sink K last): a pointer into the explicit lists, or the row
   expanded into buf.  Valid until buf is next used.  The caller has checked that lists exist
   for its cells (SRAbstractionCheckCells_Private). */
PetscErrorCode SRAbstractionCellList_Private(SRAbstraction abs, PetscInt k, SRIntBuf *buf, PetscInt *nlist, const PetscInt **list);
/* This rank's rows of C (cells [ks, ke) in order) to every rank: C becomes K index boxes. */
PetscErrorCode SRAbstractionAllgatherRows_Private(SRAbstraction abs, SRCells cells, const PetscInt *rows);
/* This rank's lists (cnt[k - ks] entries each, concatenated in ent) to every rank as one CSR. */
PetscErrorCode SRAbstractionAllgatherList_Private(SRAbstraction abs, PetscInt K, const PetscInt *cnt, const SRIntBuf *ent, SRSuccessorList *L);
/* Entries of every C(k) together (the sink counts one); the same on every rank. */
PetscInt64 SRAbstractionCertifiedEntries_Private(SRAbstraction abs);
/* -target certified with index boxes: T becomes a view of C's rows (T = C), nothing expanded. */
PetscErrorCode SRAbstractionTargetsView_Private(SRAbstraction abs);
