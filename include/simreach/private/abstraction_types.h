/* The SRAbstraction object's struct, the types header shared by src/abstraction/abstraction.c (the
   SPEC §5-§7 operations) and src/abstraction/abstraction_store.c (how C(k) and T(k) are held and
   exchanged; its functions are private/abstraction_store.h).  Types and an inline only, so that
   the store does not depend on the operations that call it. */
#pragma once

#include <simreach/private/successors.h>
#include <simreach/private/target_models.h>
#include <simreach/verify.h>

struct _p_SRAbstraction {
  MPI_Comm        comm;
  PetscMPIInt     rank, size;
  SREnclosureType etype;
  SRTargetParams  tp;
  double          margin; /* -succ_margin: E_k grown by margin x grid spacing before listing/pruning */
  PetscLogEvent   ev_succ, ev_cont;
  double          t_enc, t_succ, t_cont;
  double          t_meas; /* of t_succ: the metrics' share (SRAbstractionGetMetrics) */
  SRModelBlockHook model_hook; /* the build's target models go to it too (SRAbstractionSetModelHook) */
  SRTargetModelsStats tm_stats; /* the samples' cost with and without cell models, across builds */
  void            *model_hook_ctx;

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
