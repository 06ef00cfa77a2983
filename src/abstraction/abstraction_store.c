/* How an SRAbstraction holds its lists (SPEC §5 storage, §10 memory).

   C(k) is K index-box rows (2n + 1 numbers per cell) on every rank: a fixed size per cell,
   which SPEC §10 lets a study replicate so that the guard and the cell solve can read any
   cell's list and results stay independent of the rank count.  Nothing of the size of the
   expanded lists is kept: a rank expands one C(k) while it uses it.  Explicit lists exist only
   where a caller sets lists that are not index boxes (SRAbstractionSetLists, for planted
   violations in tests) or asks for them (SRAbstractionGetCertified, tests).  T(k) is a CSR of
   at most the target capacity per cell (T = C for -target certified). */
#include <simreach/private/abstraction_store.h>
#include <petscviewer.h>

PetscErrorCode SRAbstractionCellList_Private(SRAbstraction abs, PetscInt k, SRIntBuf *buf, PetscInt *nlist, const PetscInt **list)
{
  PetscFunctionBeginUser;
  if (abs->explicit_C) {
    *nlist = abs->C.ptr[k + 1] - abs->C.ptr[k];
    *list  = abs->C.idx + abs->C.ptr[k];
  } else {
    buf->n = 0;
    PetscCall(SRIndexBoxAppend_Private(abs->n, abs->grid, abs->K, k, abs->Cbox + abs->rl * k, buf));
    *nlist = buf->n;
    *list  = buf->a;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionCellContained_Private(SRAbstraction abs, SRCells cells, PetscInt k, const double *elo, const double *ehi, SRIntBuf *buf, SRCellStatus *st)
{
  PetscInt        nC;
  const PetscInt *Ck;

  PetscFunctionBeginUser;
  if (*st == SR_CELL_NONFINITE) PetscFunctionReturn(PETSC_SUCCESS);
  if (!abs->explicit_C && SRContainmentIndexBox(cells, abs->Cbox + abs->rl * k, elo, ehi)) {
    *st = SR_CELL_OK; /* the stored index box, unexpanded */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SRAbstractionCellList_Private(abs, k, buf, &nC, &Ck));
  PetscCall(SRContainmentTest(cells, nC, Ck, elo, ehi, st, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRAbstractionSetShape_Private(SRAbstraction abs, SRCells cells)
{
  PetscFunctionBeginUser;
  if (abs->Cbox && (abs->K != cells->K || abs->n != cells->n)) PetscCall(PetscFree(abs->Cbox));
  abs->K  = cells->K;
  abs->n  = cells->n;
  abs->rl = 2 * cells->n + 1;
  for (PetscInt d = 0; d < SR_MAX_DIM; d++) abs->grid[d] = d < cells->n ? cells->grid[d] : 1;
  if (!abs->Cbox) PetscCall(PetscMalloc1(abs->K * abs->rl, &abs->Cbox));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The expansions made for GetCertified are dropped: C is the rows from now on. */
static PetscErrorCode SRAbstractionBoxMode_Private(SRAbstraction abs)
{
  PetscFunctionBeginUser;
  PetscCall(SRSuccessorListDestroy(&abs->C));
  abs->explicit_C = PETSC_FALSE;
  abs->box_valid  = PETSC_TRUE;
  abs->C_valid    = PETSC_FALSE;
  abs->has_lists  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionAllgatherRows_Private(SRAbstraction abs, SRCells cells, const PetscInt *rows)
{
  PetscMPIInt *rc, *dp;

  PetscFunctionBeginUser;
  PetscCall(SRAbstractionSetShape_Private(abs, cells));
  PetscCall(PetscMalloc2(abs->size, &rc, abs->size, &dp));
  for (PetscMPIInt r = 0; r < abs->size; r++) {
    PetscInt a, b;
    SRAbstractionBlock_Private(abs->K, abs->size, r, &a, &b);
    PetscCall(PetscMPIIntCast(abs->rl * (b - a), &rc[r]));
    PetscCall(PetscMPIIntCast(abs->rl * a, &dp[r]));
  }
  PetscCallMPI(MPI_Allgatherv(rows, rc[abs->rank], MPIU_INT, abs->Cbox, rc, dp, MPIU_INT, abs->comm));
  PetscCall(PetscFree2(rc, dp));
  PetscCall(SRAbstractionBoxMode_Private(abs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionAllgatherList_Private(SRAbstraction abs, PetscInt K, const PetscInt *cnt, const SRIntBuf *ent, SRSuccessorList *L)
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

/* -target certified with index boxes: T = C is a view of C's rows, nothing expanded (SPEC §10). */
PetscErrorCode SRAbstractionTargetsView_Private(SRAbstraction abs)
{
  PetscFunctionBeginUser;
  PetscCall(SRSuccessorListDestroy(&abs->T));
  abs->T.K    = abs->K;
  abs->T.rows = abs->Cbox;
  abs->T.rn   = abs->n;
  for (PetscInt d = 0; d < SR_MAX_DIM; d++) abs->T.rgrid[d] = abs->grid[d];
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionGetCertifiedBoxes(SRAbstraction abs, SRCells cells, const PetscInt **rows)
{
  PetscFunctionBeginUser;
  PetscCheck(abs->has_lists, abs->comm, PETSC_ERR_ORDER, "the abstraction has no successor lists yet: call SRAbstractionBuild first");
  PetscCheck(abs->K == cells->K, abs->comm, PETSC_ERR_ARG_SIZ, "the successor lists are for K = %" PetscInt_FMT " cells, the cells given have K = %" PetscInt_FMT, abs->K, cells->K);
  if (!abs->box_valid) { /* explicit lists: each must be exactly its index box */
    PetscCall(SRAbstractionSetShape_Private(abs, cells));
    PetscCall(SRSuccessorListToBoxes(cells, &abs->C, abs->Cbox));
    abs->box_valid = PETSC_TRUE;
  }
  *rows = abs->Cbox;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionGetCertifiedCell(SRAbstraction abs, PetscInt k, PetscInt *nlist, const PetscInt **list)
{
  PetscFunctionBeginUser;
  PetscCheck(abs->has_lists, abs->comm, PETSC_ERR_ORDER, "the abstraction has no successor lists yet: call SRAbstractionBuild first");
  PetscCheck(k >= 0 && k < abs->K, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "cell %" PetscInt_FMT " outside 0..%" PetscInt_FMT, k, abs->K - 1);
  PetscCall(SRAbstractionCellList_Private(abs, k, &abs->cell, nlist, list));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionGetCertified(SRAbstraction abs, const SRSuccessorList **C)
{
  PetscFunctionBeginUser;
  PetscCheck(abs->has_lists, abs->comm, PETSC_ERR_ORDER, "the abstraction has no successor lists yet: call SRAbstractionBuild first");
  if (!abs->C_valid) {
    PetscCall(SRIndexBoxesToList_Private(abs->n, abs->grid, abs->K, abs->Cbox, &abs->C));
    abs->C_valid = PETSC_TRUE;
  }
  *C = &abs->C;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionGetTargets(SRAbstraction abs, const SRSuccessorList **T)
{
  PetscFunctionBeginUser;
  PetscCheck(abs->has_lists, abs->comm, PETSC_ERR_ORDER, "the abstraction has no successor lists yet: call SRAbstractionBuild first");
  if (abs->T.rows) abs->T.rows = abs->Cbox; /* the view follows the rows */
  *T = &abs->T;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscBool SRListHas_Private(PetscInt m, const PetscInt *a, PetscInt v)
{
  for (PetscInt i = 0; i < m; i++)
    if (a[i] == v) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* Collective (no communication, but every rank must pass the same rows and targets). */
PetscErrorCode SRAbstractionSetBoxes(SRAbstraction abs, SRCells cells, const PetscInt *rows, const SRSuccessorList *T)
{
  const PetscInt K = cells->K, n = cells->n, rl = 2 * n + 1;
  SRIntBuf       b = {0, 0, NULL};

  PetscFunctionBeginUser;
  PetscCheck(K >= 1 && (!T || T->K == K), abs->comm, PETSC_ERR_ARG_SIZ, "successor lists for K = %" PetscInt_FMT " cells and targets for %" PetscInt_FMT ": must agree and be >= 1", K, T ? T->K : K);
  for (PetscInt k = 0; k < K; k++) {
    PetscInt        nt;
    const PetscInt *Tk;
    b.n = 0;
    PetscCall(SRIndexBoxAppend_Private(n, cells->grid, K, k, rows + rl * k, &b)); /* validates the row */
    if (!T) continue;
    PetscCheck(SRSuccessorListLength(T, k) > 0, abs->comm, PETSC_ERR_ARG_WRONG, "cell %" PetscInt_FMT ": empty target list (T is never empty)", k);
    if (T->rows) continue; /* a view of boxes: T = C */
    nt = T->ptr[k + 1] - T->ptr[k];
    Tk = T->idx + T->ptr[k];
    for (PetscInt t = 0; t < nt; t++) PetscCheck(SRListHas_Private(b.n, b.a, Tk[t]), abs->comm, PETSC_ERR_ARG_WRONG, "cell %" PetscInt_FMT ": target %" PetscInt_FMT " is not in the certified list", k, Tk[t]);
  }
  PetscCall(SRIntBufDestroy_Private(&b));
  PetscCall(SRAbstractionSetShape_Private(abs, cells));
  PetscCall(PetscArraycpy(abs->Cbox, rows, K * rl));
  if (T && !T->rows) PetscCall(SRSuccessorListCopy(T, &abs->T));
  else PetscCall(SRAbstractionTargetsView_Private(abs));
  PetscCall(SRAbstractionBoxMode_Private(abs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective (no communication, but every rank must pass the same lists). */
PetscErrorCode SRAbstractionSetLists(SRAbstraction abs, const SRSuccessorList *C, const SRSuccessorList *T)
{
  PetscFunctionBeginUser;
  if (C->rows || T->rows) { /* views of index boxes: set their explicit copies */
    SRSuccessorList Cx = {0}, Tx = {0};
    PetscCall(SRSuccessorListCopy(C, &Cx));
    PetscCall(SRSuccessorListCopy(T, &Tx));
    PetscCall(SRAbstractionSetLists(abs, &Cx, &Tx));
    PetscCall(SRSuccessorListDestroy(&Cx));
    PetscCall(SRSuccessorListDestroy(&Tx));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(C->K == T->K && C->K >= 1, abs->comm, PETSC_ERR_ARG_SIZ, "successor lists for K = %" PetscInt_FMT " (certified) and %" PetscInt_FMT " (targets) cells: must agree and be >= 1", C->K, T->K);
  for (PetscInt k = 0; k < C->K; k++) {
    PetscCheck(C->ptr[k + 1] > C->ptr[k] && T->ptr[k + 1] > T->ptr[k], abs->comm, PETSC_ERR_ARG_WRONG, "cell %" PetscInt_FMT ": empty successor list (C and T are never empty)", k);
    for (PetscInt t = C->ptr[k]; t < C->ptr[k + 1]; t++) PetscCheck(C->idx[t] >= 0 && C->idx[t] <= C->K, abs->comm, PETSC_ERR_ARG_OUTOFRANGE, "cell %" PetscInt_FMT ": certified entry %" PetscInt_FMT " outside 0..K = %" PetscInt_FMT, k, C->idx[t], C->K);
    for (PetscInt t = T->ptr[k]; t < T->ptr[k + 1]; t++)
      PetscCheck(SRListHas_Private(C->ptr[k + 1] - C->ptr[k], C->idx + C->ptr[k], T->idx[t]), abs->comm, PETSC_ERR_ARG_WRONG, "cell %" PetscInt_FMT ": target %" PetscInt_FMT " is not in the certified list", k, T->idx[t]);
  }
  PetscCall(SRSuccessorListCopy(C, &abs->C));
  PetscCall(SRSuccessorListCopy(T, &abs->T));
  abs->K          = C->K;
  abs->explicit_C = PETSC_TRUE;
  abs->C_valid    = PETSC_TRUE;
  abs->box_valid  = PETSC_FALSE;
  abs->has_lists  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAbstractionCopyLists(SRAbstraction from, SRAbstraction to)
{
  PetscFunctionBeginUser;
  PetscCheck(from->has_lists, from->comm, PETSC_ERR_ORDER, "SRAbstractionCopyLists: the source has no successor lists");
  if (to->Cbox && (to->K != from->K || to->rl != from->rl)) PetscCall(PetscFree(to->Cbox));
  to->K  = from->K;
  to->n  = from->n;
  to->rl = from->rl;
  PetscCall(PetscArraycpy(to->grid, from->grid, SR_MAX_DIM));
  if (from->box_valid) {
    if (!to->Cbox) PetscCall(PetscMalloc1(from->K * from->rl, &to->Cbox));
    PetscCall(PetscArraycpy(to->Cbox, from->Cbox, from->K * from->rl));
  }
  if (from->explicit_C) PetscCall(SRSuccessorListCopy(&from->C, &to->C));
  else PetscCall(SRSuccessorListDestroy(&to->C));
  if (from->T.rows) PetscCall(SRAbstractionTargetsView_Private(to));
  else PetscCall(SRSuccessorListCopy(&from->T, &to->T));
  to->explicit_C = from->explicit_C;
  to->box_valid  = from->box_valid;
  to->C_valid    = from->explicit_C;
  to->has_lists  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entries of every C(k) together (the sink counts one): the sum of the rows' counts, or the
   explicit lists' length.  The same on every rank. */
PetscInt64 SRAbstractionCertifiedEntries_Private(SRAbstraction abs)
{
  PetscInt64 s = 0;
  if (abs->explicit_C) return (PetscInt64)abs->C.ptr[abs->K];
  for (PetscInt k = 0; k < abs->K; k++) s += SRIndexBoxCount(abs->n, abs->Cbox + abs->rl * k);
  return s;
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
  if (abs->has_lists)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  K = %" PetscInt_FMT " cells, %" PetscInt64_FMT " certified entries held as %s, %" PetscInt_FMT " target entries%s (sink = index K)\n", abs->K, SRAbstractionCertifiedEntries_Private(abs), abs->explicit_C ? "explicit lists" : "index boxes", abs->T.rows ? 0 : abs->T.ptr[abs->T.K], abs->T.rows ? " (T = C, a view of the boxes)" : ""));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  no successor lists yet\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}
