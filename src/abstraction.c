/* SRAbstraction: the certified successor lists C(k), the targets T(k) and their metrics
   (SPEC §5, §6), partitioned over a communicator.

   Rank r owns the contiguous block of cells [kstart, kend) of SRAbstractionGetOwnership; it
   encloses and checks only those, then the lists are allgathered so that every rank holds all
   of them.  Every per-cell value is a function of the cell alone (enclosure, rank-independent
   sample indices), and every reduction is exact: integer sums, or per-cell doubles gathered
   and summed in cell order on every rank.  So every verdict, count and volume is identical
   on any number of ranks. */
#include <simreach/private/successors.h>
#include <petsctime.h>
#include <petscviewer.h>

struct _p_SRAbstraction {
  MPI_Comm        comm;
  PetscMPIInt     rank, size;
  SREnclosureType etype;
  SRTargetParams  tp;
  SRSuccessorList C, T;
  PetscBool       has_lists;
  double          margin; /* -succ_margin: E_k grown by margin x grid spacing before listing/pruning */
  PetscLogEvent   ev_succ, ev_cont;
  double          t_enc, t_succ, t_cont;
};

/* Block of rank r: sizes differ by at most one, the larger blocks first. */
static void SRAbstractionBlock_Private(PetscInt K, PetscMPIInt size, PetscMPIInt r, PetscInt *ks, PetscInt *ke)
{
  const PetscInt q = K / size, rem = K % size;
  *ks = r * q + PetscMin((PetscInt)r, rem);
  *ke = *ks + q + ((PetscInt)r < rem ? 1 : 0);
}

PetscErrorCode SRAbstractionCreate(MPI_Comm comm, SRAbstraction *abs)
{
  SRAbstraction a;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&a));
  a->comm = comm;
  PetscCallMPI(MPI_Comm_rank(comm, &a->rank));
  PetscCallMPI(MPI_Comm_size(comm, &a->size));
  a->etype      = SR_ENCLOSURE_INTERVAL;
  a->tp.type    = SR_TARGET_EMPIRICAL;
  a->tp.mass    = 0.9;
  a->tp.samples = 32;
  a->tp.seed    = 0;
  PetscCall(PetscLogEventRegister("SRSuccessors", PETSC_OBJECT_CLASSID, &a->ev_succ));
  PetscCall(PetscLogEventRegister("SRContainment", PETSC_OBJECT_CLASSID, &a->ev_cont));
  *abs = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionSetEnclosureType(SRAbstraction abs, SREnclosureType type)
{
  PetscFunctionBeginUser;
  PetscCheck(type >= SR_ENCLOSURE_INTERVAL && type <= SR_ENCLOSURE_BOTH, abs->comm, PETSC_ERR_ARG_OUTOFRANGE, "enclosure type %d: allowed are interval, taylor1, both", (int)type);
  abs->etype = type;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionSetTarget(SRAbstraction abs, SRTargetType type, double mass, PetscInt samples_per_cell, uint64_t seed)
{
  PetscFunctionBeginUser;
  PetscCheck(type >= SR_TARGET_EMPIRICAL && type <= SR_TARGET_CERTIFIED, abs->comm, PETSC_ERR_ARG_OUTOFRANGE, "-target %d: allowed are empirical, nominal, certified", (int)type);
  PetscCheck(mass > 0.0 && mass <= 1.0, abs->comm, PETSC_ERR_ARG_OUTOFRANGE, "-target_mass %g: allowed is (0, 1]", mass);
  PetscCheck(samples_per_cell >= 1, abs->comm, PETSC_ERR_ARG_OUTOFRANGE, "-target_samples %" PetscInt_FMT ": must be >= 1", samples_per_cell);
  abs->tp.type    = type;
  abs->tp.mass    = mass;
  abs->tp.samples = samples_per_cell;
  abs->tp.seed    = seed;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The slack of SPEC §5's lists: C(k) is built from, and pruned against, E_k grown by margin
   times the initial grid spacing in every dimension.  Listing the cells that meet a superset
   of E_k is still sound (the containment test always uses E_k itself); it leaves C(k) a gap
   around E_k so that small updates of phi or theta need not fail the guard.  0 is SPEC §5. */
PetscErrorCode SRAbstractionSetMargin(SRAbstraction abs, double margin)
{
  PetscFunctionBeginUser;
  PetscCheck(isfinite(margin) && margin >= 0.0, abs->comm, PETSC_ERR_ARG_OUTOFRANGE, "-succ_margin %g: allowed is a finite number >= 0 (in grid spacings)", margin);
  abs->margin = margin;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* E_k (cells [ks, ke)) grown by the margin; nonfinite enclosures stay as they are. */
static void SRAbstractionGrow_Private(SRAbstraction abs, SRCells cells, PetscInt ks, PetscInt ke, double *E, const SRCellStatus *st)
{
  const PetscInt n = cells->n;
  double         delta[SR_MAX_DIM];

  if (abs->margin == 0.0) return;
  for (PetscInt d = 0; d < n; d++) delta[d] = abs->margin * (cells->dhi[d] - cells->dlo[d]) / (double)cells->grid[d];
  for (PetscInt k = ks; k < ke; k++) {
    if (st[k - ks] == SR_CELL_NONFINITE) continue;
    for (PetscInt d = 0; d < n; d++) {
      E[2 * n * (k - ks) + d] -= delta[d];
      E[2 * n * (k - ks) + n + d] += delta[d];
    }
  }
}

/* Logically collective. */
PetscErrorCode SRAbstractionSetFromOptions(SRAbstraction abs)
{
  PetscEnum e, t;
  double    margin  = abs->margin;
  double    mass    = abs->tp.mass;
  PetscInt  samples = abs->tp.samples;

  PetscFunctionBeginUser;
  e = (PetscEnum)abs->etype;
  t = (PetscEnum)abs->tp.type;
  PetscOptionsBegin(abs->comm, NULL, "Abstraction: successor lists and containment (SPEC §5, §7)", "SRAbstraction");
  PetscCall(PetscOptionsEnum("-enclosure", "enclosure of f_phi(cell): interval, taylor1, both (SPEC §7)", "SRAbstractionSetEnclosureType", SREnclosureTypes, e, &e, NULL));
  PetscCall(PetscOptionsEnum("-target", "target successors T(k): empirical, nominal, certified (SPEC §5)", "SRAbstractionSetTarget", SRTargetTypes, t, &t, NULL));
  PetscCall(PetscOptionsReal("-target_mass", "share of sampled hits the empirical target keeps, in (0, 1] (SPEC §5)", "SRAbstractionSetTarget", mass, &mass, NULL));
  PetscCall(PetscOptionsInt("-target_samples", "samples per cell for the empirical target and count (SPEC §5, §6)", "SRAbstractionSetTarget", samples, &samples, NULL));
  PetscCall(PetscOptionsReal("-succ_margin", "slack of C(k): list and prune against E_k grown by this many grid spacings (0 = SPEC §5 literal)", "SRAbstractionSetMargin", margin, &margin, NULL));
  PetscOptionsEnd();
  PetscCall(SRAbstractionSetMargin(abs, margin));
  PetscCall(SRAbstractionSetEnclosureType(abs, (SREnclosureType)e));
  PetscCall(SRAbstractionSetTarget(abs, (SRTargetType)t, mass, samples, abs->tp.seed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionDestroy(SRAbstraction *abs)
{
  PetscFunctionBeginUser;
  if (!abs || !*abs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SRSuccessorListDestroy(&(*abs)->C));
  PetscCall(SRSuccessorListDestroy(&(*abs)->T));
  PetscCall(PetscFree(*abs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entries a target list T(k) can have (SPEC §5): empirical: every entry but the first was hit by
   one of the samples, so at most max(samples, 1); nominal: the listed cells containing one
   point, at most 2^n grid neighbours and the sink (2^(n+1) + 1 allowed for moved cells);
   certified: T = C, 0 (nothing to store).  Pruning and re-choosing keep these bounds. */
PetscErrorCode SRAbstractionGetTargetCapacity(SRAbstraction abs, PetscInt n, PetscInt *tcap)
{
  PetscFunctionBeginUser;
  switch (abs->tp.type) {
  case SR_TARGET_EMPIRICAL:
    *tcap = PetscMax(abs->tp.samples, 1);
    break;
  case SR_TARGET_NOMINAL:
    *tcap = (1 << (n + 1)) + 1;
    break;
  default:
    *tcap = 0;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionGetOwnership(SRAbstraction abs, PetscInt K, PetscInt *kstart, PetscInt *kend)
{
  PetscFunctionBeginUser;
  PetscCheck(K >= 0, abs->comm, PETSC_ERR_ARG_OUTOFRANGE, "number of cells K = %" PetscInt_FMT " must be >= 0", K);
  SRAbstractionBlock_Private(K, abs->size, abs->rank, kstart, kend);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionGetPhaseTimes(SRAbstraction abs, double *t_enclosure, double *t_successors, double *t_containment)
{
  PetscFunctionBeginUser;
  if (t_enclosure) *t_enclosure = abs->t_enc;
  if (t_successors) *t_successors = abs->t_succ;
  if (t_containment) *t_containment = abs->t_cont;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Enclosures of this rank's block; a status OK with a NaN/Inf box is treated as nonfinite. */
static PetscErrorCode SRAbstractionEnclose_Private(SRAbstraction abs, SRModel model, SRCells cells, SREnclosureType type, PetscInt ks, PetscInt ke, double **E, SRCellStatus **status)
{
  const PetscInt n = cells->n;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(PetscMax(ke - ks, 1) * 2 * n, E, PetscMax(ke - ks, 1), status));
  PetscCall(PetscTime(&t0));
  if (ke > ks) PetscCall(SREnclosureCompute(model, type, cells, ks, ke, *E, *status));
  PetscCall(PetscTime(&t1));
  abs->t_enc += t1 - t0;
  for (PetscInt k = 0; k < ke - ks; k++)
    if (!SRBoxIsFinite_Private(n, *E + 2 * n * k, *E + 2 * n * k + n)) (*status)[k] = SR_CELL_NONFINITE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every rank contributes the lists of its block (cnt[k - ks] entries each, concatenated in ent);
   every rank receives the whole CSR list. */
static PetscErrorCode SRAbstractionAllgather_Private(SRAbstraction abs, PetscInt K, const PetscInt *cnt, const SRIntBuf *ent, SRSuccessorList *L)
{
  PetscMPIInt *rc, *dp, *rce, *dpe, nloc, nent;
  PetscInt    *all;
  PetscInt     ks, ke;

  PetscFunctionBeginUser;
  SRAbstractionBlock_Private(K, abs->size, abs->rank, &ks, &ke);
  PetscCall(PetscMalloc4(abs->size, &rc, abs->size, &dp, abs->size, &rce, abs->size, &dpe));
  PetscCall(PetscMalloc1(K + 1, &all));
  for (PetscMPIInt r = 0; r < abs->size; r++) {
    PetscInt a, b;
    SRAbstractionBlock_Private(K, abs->size, r, &a, &b);
    PetscCall(PetscMPIIntCast(b - a, &rc[r]));
    PetscCall(PetscMPIIntCast(a, &dp[r]));
  }
  PetscCall(PetscMPIIntCast(ke - ks, &nloc));
  PetscCallMPI(MPI_Allgatherv(cnt, nloc, MPIU_INT, all, rc, dp, MPIU_INT, abs->comm));
  PetscCall(SRSuccessorListDestroy(L));
  {
    PetscInt nnz = 0;
    for (PetscInt k = 0; k < K; k++) nnz += all[k];
    PetscCall(SRSuccessorListCreate(K, nnz, L));
  }
  for (PetscInt k = 0; k < K; k++) L->ptr[k + 1] = L->ptr[k] + all[k];
  for (PetscMPIInt r = 0; r < abs->size; r++) {
    PetscInt a, b;
    SRAbstractionBlock_Private(K, abs->size, r, &a, &b);
    PetscCall(PetscMPIIntCast(L->ptr[b] - L->ptr[a], &rce[r]));
    PetscCall(PetscMPIIntCast(L->ptr[a], &dpe[r]));
  }
  PetscCall(PetscMPIIntCast(ent->n, &nent));
  PetscCheck(nent == rce[abs->rank], PETSC_COMM_SELF, PETSC_ERR_PLIB, "successor gather: %d local entries, the counts say %d", nent, rce[abs->rank]);
  PetscCallMPI(MPI_Allgatherv(ent->a, nent, MPIU_INT, L->idx, rce, dpe, MPIU_INT, abs->comm));
  PetscCall(PetscFree(all));
  PetscCall(PetscFree4(rc, dp, rce, dpe));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRAbstractionCheckCells_Private(SRAbstraction abs, SRCells cells)
{
  PetscFunctionBeginUser;
  PetscCheck(abs->has_lists, abs->comm, PETSC_ERR_ORDER, "the abstraction has no successor lists yet: call SRAbstractionBuild (or SRAbstractionSetLists) first");
  PetscCheck(abs->C.K == cells->K, abs->comm, PETSC_ERR_ARG_SIZ, "the successor lists are for K = %" PetscInt_FMT " cells, the cells given have K = %" PetscInt_FMT, abs->C.K, cells->K);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective.  SPEC §5: C(k) = cells whose outward box meets E_k (+ sink if E_k leaves D).
   A NaN/Inf enclosure, or one that meets no cell and stays in D (free cells that no longer
   cover D), certifies nothing: its list is the sink alone and its check fails. */
PetscErrorCode SRAbstractionBuild(SRAbstraction abs, SRModel model, SRCells cells)
{
  const PetscInt n = cells->n, K = cells->K;
  PetscInt       ks, ke, *Ccnt, *Tcnt;
  double        *E;
  SRCellStatus  *st;
  SRCellIndex    index = NULL;
  SRIntBuf       Cent  = {0, 0, NULL}, Tent = {0, 0, NULL};
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCheck(K >= 1, abs->comm, PETSC_ERR_ARG_OUTOFRANGE, "the abstraction needs at least one cell, got K = %" PetscInt_FMT, K);
  SRAbstractionBlock_Private(K, abs->size, abs->rank, &ks, &ke);
  PetscCall(SRAbstractionEnclose_Private(abs, model, cells, abs->etype, ks, ke, &E, &st));
  SRAbstractionGrow_Private(abs, cells, ks, ke, E, st);
  PetscCall(PetscLogEventBegin(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscMalloc2(PetscMax(ke - ks, 1), &Ccnt, PetscMax(ke - ks, 1), &Tcnt));
  if (!cells->grid_aligned && !cells->partition) PetscCall(SRCellIndexCreate(cells, &index));
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt c0 = Cent.n, t0i = Tent.n;
    if (st[k - ks] == SR_CELL_NONFINITE) PetscCall(SRIntBufPush_Private(&Cent, K));
    else {
      PetscCall(SRSuccessorsCertifiedAppend_Private(cells, index, E + 2 * n * (k - ks), E + 2 * n * (k - ks) + n, &Cent));
      /* moved cells: the list kept as an index box (SPEC §5 storage), a sound superset */
      if (!cells->grid_aligned && !cells->partition) PetscCall(SRSuccessorsBoxClose_Private(cells, &Cent, c0));
    }
    /* E_k inside D but in a gap between moved cells: nothing can certify it.  As for a nonfinite
       enclosure the list is the sink alone, and the containment test reports the cell. */
    if (Cent.n == c0) PetscCall(SRIntBufPush_Private(&Cent, K));
    Ccnt[k - ks] = Cent.n - c0;
    PetscCall(SRSuccessorsTargetAppend_Private(model, cells, &abs->tp, k, Ccnt[k - ks], Cent.a + c0, PETSC_FALSE, &Tent, NULL));
    Tcnt[k - ks] = Tent.n - t0i;
  }
  PetscCall(SRCellIndexDestroy(&index));
  PetscCall(SRAbstractionAllgather_Private(abs, K, Ccnt, &Cent, &abs->C));
  PetscCall(SRAbstractionAllgather_Private(abs, K, Tcnt, &Tent, &abs->T));
  abs->has_lists = PETSC_TRUE;
  PetscCall(PetscTime(&t1));
  abs->t_succ += t1 - t0;
  PetscCall(PetscLogEventEnd(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscFree2(Ccnt, Tcnt));
  PetscCall(SRIntBufDestroy_Private(&Cent));
  PetscCall(SRIntBufDestroy_Private(&Tent));
  PetscCall(PetscFree2(E, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective.  SPEC §7 containment of every cell in its stored C(k). */
PetscErrorCode SRAbstractionCheck(SRAbstraction abs, SRModel model, SRCells cells, SREnclosureType type, PetscInt *nfail, PetscInt *first, double *witness)
{
  const PetscInt n = cells->n, K = cells->K;
  PetscInt       ks, ke, lfail = 0, lfirst = PETSC_MAX_INT, gfirst;
  double        *E, w[SR_MAX_DIM];
  SRCellStatus  *st;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(SRAbstractionCheckCells_Private(abs, cells));
  SRAbstractionBlock_Private(K, abs->size, abs->rank, &ks, &ke);
  PetscCall(SRAbstractionEnclose_Private(abs, model, cells, type, ks, ke, &E, &st));
  PetscCall(PetscLogEventBegin(abs->ev_cont, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  for (PetscInt k = ks; k < ke; k++) {
    SRCellStatus s = st[k - ks];
    if (s != SR_CELL_NONFINITE) PetscCall(SRContainmentTest(cells, abs->C.ptr[k + 1] - abs->C.ptr[k], abs->C.idx + abs->C.ptr[k], E + 2 * n * (k - ks), E + 2 * n * (k - ks) + n, &s, NULL));
    if (s != SR_CELL_OK) {
      lfail++;
      if (lfirst == PETSC_MAX_INT) lfirst = k;
    }
  }
  PetscCall(MPIU_Allreduce(&lfail, nfail, 1, MPIU_INT, MPI_SUM, abs->comm));
  PetscCall(MPIU_Allreduce(&lfirst, &gfirst, 1, MPIU_INT, MPI_MIN, abs->comm));
  for (PetscInt d = 0; d < n; d++) w[d] = NAN;
  if (gfirst != PETSC_MAX_INT) {
    PetscMPIInt owner = 0;
    for (PetscMPIInt r = 0; r < abs->size; r++) {
      PetscInt a, b;
      SRAbstractionBlock_Private(K, abs->size, r, &a, &b);
      if (gfirst >= a && gfirst < b) owner = r;
    }
    if (owner == abs->rank && st[gfirst - ks] != SR_CELL_NONFINITE) {
      SRCellStatus s;
      PetscCall(SRContainmentTest(cells, abs->C.ptr[gfirst + 1] - abs->C.ptr[gfirst], abs->C.idx + abs->C.ptr[gfirst], E + 2 * n * (gfirst - ks), E + 2 * n * (gfirst - ks) + n, &s, w));
    }
    PetscCallMPI(MPI_Bcast(w, (PetscMPIInt)n, MPI_DOUBLE, owner, abs->comm));
  }
  if (first) *first = gfirst == PETSC_MAX_INT ? -1 : gfirst;
  if (witness)
    for (PetscInt d = 0; d < n; d++) witness[d] = w[d];
  PetscCall(PetscTime(&t1));
  abs->t_cont += t1 - t0;
  PetscCall(PetscLogEventEnd(abs->ev_cont, 0, 0, 0, 0));
  PetscCall(PetscFree2(E, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool SRListContains_Private(PetscInt m, const PetscInt *a, PetscInt v)
{
  for (PetscInt i = 0; i < m; i++)
    if (a[i] == v) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* Collective.  SPEC §8 pruning: C(k) loses the cells E_k no longer meets (and the sink once E_k
   is inside D), so |C(k)| never grows; T(k) keeps its entries still in C(k), and is chosen
   afresh (SPEC §5) if none is left.  A nonfinite E_k leaves C(k) untouched. */
PetscErrorCode SRAbstractionPrune(SRAbstraction abs, SRModel model, SRCells cells)
{
  const PetscInt n = cells->n, K = cells->K;
  PetscInt       ks, ke, *Ccnt, *Tcnt;
  double        *E;
  SRCellStatus  *st;
  SRIntBuf       Cent = {0, 0, NULL}, Tent = {0, 0, NULL};
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(SRAbstractionCheckCells_Private(abs, cells));
  SRAbstractionBlock_Private(K, abs->size, abs->rank, &ks, &ke);
  PetscCall(SRAbstractionEnclose_Private(abs, model, cells, abs->etype, ks, ke, &E, &st));
  SRAbstractionGrow_Private(abs, cells, ks, ke, E, st);
  PetscCall(PetscLogEventBegin(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscMalloc2(PetscMax(ke - ks, 1), &Ccnt, PetscMax(ke - ks, 1), &Tcnt));
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt  c0 = Cent.n, t0i = Tent.n, nC = abs->C.ptr[k + 1] - abs->C.ptr[k];
    const PetscInt *Ck = abs->C.idx + abs->C.ptr[k];
    if (st[k - ks] == SR_CELL_NONFINITE) {
      for (PetscInt t = 0; t < nC; t++) PetscCall(SRIntBufPush_Private(&Cent, Ck[t]));
    } else {
      PetscCall(SRSuccessorsPruneAppend_Private(cells, nC, Ck, E + 2 * n * (k - ks), E + 2 * n * (k - ks) + n, &Cent));
      /* moved cells: pruning intersects index boxes (SPEC §5): the bounding box of what is kept,
         inside the old box since that was one */
      if (!cells->grid_aligned && !cells->partition) PetscCall(SRSuccessorsBoxClose_Private(cells, &Cent, c0));
    }
    if (Cent.n == c0) {
      /* E_k meets no listed cell and stays in D: the containment already fails; keep C(k) as is
         (never empty) and let the check report it. */
      for (PetscInt t = 0; t < nC; t++) PetscCall(SRIntBufPush_Private(&Cent, Ck[t]));
    }
    Ccnt[k - ks] = Cent.n - c0;
    for (PetscInt t = abs->T.ptr[k]; t < abs->T.ptr[k + 1]; t++)
      if (SRListContains_Private(Ccnt[k - ks], Cent.a + c0, abs->T.idx[t])) PetscCall(SRIntBufPush_Private(&Tent, abs->T.idx[t]));
    if (Tent.n == t0i) PetscCall(SRSuccessorsTargetAppend_Private(model, cells, &abs->tp, k, Ccnt[k - ks], Cent.a + c0, PETSC_FALSE, &Tent, NULL));
    Tcnt[k - ks] = Tent.n - t0i;
  }
  PetscCall(SRAbstractionAllgather_Private(abs, K, Ccnt, &Cent, &abs->C));
  PetscCall(SRAbstractionAllgather_Private(abs, K, Tcnt, &Tent, &abs->T));
  PetscCall(PetscTime(&t1));
  abs->t_succ += t1 - t0;
  PetscCall(PetscLogEventEnd(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscFree2(Ccnt, Tcnt));
  PetscCall(SRIntBufDestroy_Private(&Cent));
  PetscCall(SRIntBufDestroy_Private(&Tent));
  PetscCall(PetscFree2(E, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective.  T(k) chosen afresh within the stored C(k) (SPEC §5). */
PetscErrorCode SRAbstractionUpdateTargets(SRAbstraction abs, SRModel model, SRCells cells)
{
  const PetscInt K = cells->K;
  PetscInt       ks, ke, *Tcnt;
  SRIntBuf       Tent = {0, 0, NULL};
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(SRAbstractionCheckCells_Private(abs, cells));
  SRAbstractionBlock_Private(K, abs->size, abs->rank, &ks, &ke);
  PetscCall(PetscLogEventBegin(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscMalloc1(PetscMax(ke - ks, 1), &Tcnt));
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt t0i = Tent.n;
    PetscCall(SRSuccessorsTargetAppend_Private(model, cells, &abs->tp, k, abs->C.ptr[k + 1] - abs->C.ptr[k], abs->C.idx + abs->C.ptr[k], PETSC_FALSE, &Tent, NULL));
    Tcnt[k - ks] = Tent.n - t0i;
  }
  PetscCall(SRAbstractionAllgather_Private(abs, K, Tcnt, &Tent, &abs->T));
  PetscCall(PetscTime(&t1));
  abs->t_succ += t1 - t0;
  PetscCall(PetscLogEventEnd(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscFree(Tcnt));
  PetscCall(SRIntBufDestroy_Private(&Tent));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective.  SPEC §6 metrics of (model, cells) against the stored C(k).  Per cell:
   minimal = cells meeting E_k (+ sink if E_k leaves D), K + 1 for a nonfinite E_k (the whole
   space); empirical = distinct entries of C(k) hit by the target samples; vol(E_k) rounded up
   (+inf if nonfinite); vol of the union of the outward boxes of C(k).  failures counts the
   cells whose containment test fails, nonfinite ones included. */
PetscErrorCode SRAbstractionGetMetrics(SRAbstraction abs, SRModel model, SRCells cells, SRAbstractionMetrics *m)
{
  const PetscInt n = cells->n, K = cells->K;
  PetscInt       ks, ke, nloc;
  double        *E, *vloc, *vall;
  SRCellStatus  *st;
  SRCellIndex    index = NULL;
  SRIntBuf       scratch = {0, 0, NULL};
  PetscInt64     lsum[4] = {0, 0, 0, 0}, gsum[4]; /* minimal, empirical, failures, nonfinite */
  PetscMPIInt   *rc, *dp;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(SRAbstractionCheckCells_Private(abs, cells));
  SRAbstractionBlock_Private(K, abs->size, abs->rank, &ks, &ke);
  nloc = ke - ks;
  PetscCall(SRAbstractionEnclose_Private(abs, model, cells, abs->etype, ks, ke, &E, &st));
  PetscCall(PetscMalloc2(2 * PetscMax(nloc, 1), &vloc, 2 * K, &vall));
  PetscCall(PetscLogEventBegin(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  if (!cells->grid_aligned && !cells->partition) PetscCall(SRCellIndexCreate(cells, &index));
  for (PetscInt k = ks; k < ke; k++) {
    const double   *elo = E + 2 * n * (k - ks), *ehi = elo + n;
    const PetscInt  nC = abs->C.ptr[k + 1] - abs->C.ptr[k];
    const PetscInt *Ck = abs->C.idx + abs->C.ptr[k];
    SRTargetParams  tp = abs->tp;
    PetscInt        distinct;

    if (st[k - ks] == SR_CELL_NONFINITE) {
      lsum[0] += K + 1;
      lsum[3]++;
      vloc[2 * (k - ks)] = PETSC_INFINITY;
    } else {
      double v = 1.0;
      scratch.n = 0;
      PetscCall(SRSuccessorsCertifiedAppend_Private(cells, index, elo, ehi, &scratch));
      lsum[0] += scratch.n;
      for (PetscInt d = 0; d < n; d++) v = SRMulUp(v, SRSubUp(ehi[d], elo[d]));
      vloc[2 * (k - ks)] = v;
    }
    tp.type   = SR_TARGET_CERTIFIED;
    scratch.n = 0;
    PetscCall(SRSuccessorsTargetAppend_Private(model, cells, &tp, k, nC, Ck, PETSC_TRUE, &scratch, &distinct));
    lsum[1] += distinct;
    PetscCall(SRSuccessorsUnionVolume_Private(cells, nC, Ck, &vloc[2 * (k - ks) + 1]));
  }
  PetscCall(SRCellIndexDestroy(&index));
  PetscCall(PetscTime(&t1));
  abs->t_succ += t1 - t0;
  PetscCall(PetscLogEventEnd(abs->ev_succ, 0, 0, 0, 0));

  PetscCall(PetscLogEventBegin(abs->ev_cont, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  for (PetscInt k = ks; k < ke; k++) {
    SRCellStatus s = st[k - ks];
    if (s != SR_CELL_NONFINITE) PetscCall(SRContainmentTest(cells, abs->C.ptr[k + 1] - abs->C.ptr[k], abs->C.idx + abs->C.ptr[k], E + 2 * n * (k - ks), E + 2 * n * (k - ks) + n, &s, NULL));
    if (s != SR_CELL_OK) lsum[2]++;
  }
  PetscCall(PetscTime(&t1));
  abs->t_cont += t1 - t0;
  PetscCall(PetscLogEventEnd(abs->ev_cont, 0, 0, 0, 0));

  /* Exact reductions: 64-bit integer sums; the per-cell volumes gathered and summed in cell order. */
  PetscCall(MPIU_Allreduce(lsum, gsum, 4, MPIU_INT64, MPI_SUM, abs->comm));
  PetscCall(PetscMalloc2(abs->size, &rc, abs->size, &dp));
  for (PetscMPIInt r = 0; r < abs->size; r++) {
    PetscInt a, b;
    SRAbstractionBlock_Private(K, abs->size, r, &a, &b);
    PetscCall(PetscMPIIntCast(2 * (b - a), &rc[r]));
    PetscCall(PetscMPIIntCast(2 * a, &dp[r]));
  }
  PetscCallMPI(MPI_Allgatherv(vloc, rc[abs->rank], MPI_DOUBLE, vall, rc, dp, MPI_DOUBLE, abs->comm));
  {
    double sE = 0.0, sU = 0.0;
    for (PetscInt k = 0; k < K; k++) {
      sE += vall[2 * k];
      sU += vall[2 * k + 1];
    }
    m->vol_E     = sE / (double)K;
    m->vol_union = sU / (double)K;
  }
  m->succ_certified = (double)abs->C.ptr[K] / (double)K;
  m->succ_minimal   = (double)gsum[0] / (double)K;
  m->succ_empirical = (double)gsum[1] / (double)K;
  m->failures       = (PetscInt)gsum[2];
  m->nonfinite      = (PetscInt)gsum[3];
  PetscCall(PetscFree2(rc, dp));
  PetscCall(PetscFree2(vloc, vall));
  PetscCall(SRIntBufDestroy_Private(&scratch));
  PetscCall(PetscFree2(E, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionGetCertified(SRAbstraction abs, const SRSuccessorList **C)
{
  PetscFunctionBeginUser;
  PetscCheck(abs->has_lists, abs->comm, PETSC_ERR_ORDER, "the abstraction has no successor lists yet: call SRAbstractionBuild first");
  *C = &abs->C;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionGetTargets(SRAbstraction abs, const SRSuccessorList **T)
{
  PetscFunctionBeginUser;
  PetscCheck(abs->has_lists, abs->comm, PETSC_ERR_ORDER, "the abstraction has no successor lists yet: call SRAbstractionBuild first");
  *T = &abs->T;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective (no communication, but every rank must pass the same lists). */
PetscErrorCode SRAbstractionSetLists(SRAbstraction abs, const SRSuccessorList *C, const SRSuccessorList *T)
{
  PetscFunctionBeginUser;
  PetscCheck(C->K == T->K && C->K >= 1, abs->comm, PETSC_ERR_ARG_SIZ, "successor lists for K = %" PetscInt_FMT " (certified) and %" PetscInt_FMT " (targets) cells: must agree and be >= 1", C->K, T->K);
  for (PetscInt k = 0; k < C->K; k++) {
    PetscCheck(C->ptr[k + 1] > C->ptr[k] && T->ptr[k + 1] > T->ptr[k], abs->comm, PETSC_ERR_ARG_WRONG, "cell %" PetscInt_FMT ": empty successor list (C and T are never empty)", k);
    for (PetscInt t = C->ptr[k]; t < C->ptr[k + 1]; t++) PetscCheck(C->idx[t] >= 0 && C->idx[t] <= C->K, abs->comm, PETSC_ERR_ARG_OUTOFRANGE, "cell %" PetscInt_FMT ": certified entry %" PetscInt_FMT " outside 0..K = %" PetscInt_FMT, k, C->idx[t], C->K);
    for (PetscInt t = T->ptr[k]; t < T->ptr[k + 1]; t++)
      PetscCheck(SRListContains_Private(C->ptr[k + 1] - C->ptr[k], C->idx + C->ptr[k], T->idx[t]), abs->comm, PETSC_ERR_ARG_WRONG, "cell %" PetscInt_FMT ": target %" PetscInt_FMT " is not in the certified list", k, T->idx[t]);
  }
  PetscCall(SRSuccessorListCopy(C, &abs->C));
  PetscCall(SRSuccessorListCopy(T, &abs->T));
  abs->has_lists = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective on the viewer. */
PetscErrorCode SRAbstractionView(SRAbstraction abs, PetscViewer viewer)
{
  PetscBool ascii;

  PetscFunctionBeginUser;
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(abs->comm, &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "SRAbstraction on %d rank(s): enclosure %s, target %s (mass %g, %" PetscInt_FMT " samples per cell, seed %" PetscInt64_FMT ")\n", abs->size, SREnclosureTypes[abs->etype], SRTargetTypes[abs->tp.type], abs->tp.mass, abs->tp.samples, (PetscInt64)abs->tp.seed));
  if (abs->has_lists) PetscCall(PetscViewerASCIIPrintf(viewer, "  K = %" PetscInt_FMT " cells, %" PetscInt_FMT " certified and %" PetscInt_FMT " target entries (sink = index K)\n", abs->C.K, abs->C.ptr[abs->C.K], abs->T.ptr[abs->T.K]));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  no successor lists yet\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
