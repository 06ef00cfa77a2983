/* The successor list object and its storage (SPEC §5): a list is CSR or a row per cell of index
   boxes; the bounding index box of a list, its count, the list a row stands for, whether a list
   is exactly its index box, the conversions between CSR and rows, and the closing of a list
   into its box.  Cut from src/abstraction/successors.c (one concern per file); declared in
   successorlist.h and private/successors.h. */
#include <simreach/private/successors.h>

/* Not collective.  nnz is the number of entries; ptr is zeroed for the caller to fill. */
PetscErrorCode SRSuccessorListCreate(PetscInt K, PetscInt nnz, SRSuccessorList *L)
{
  PetscFunctionBeginUser;
  PetscCheck(K >= 0 && nnz >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "successor list: K = %" PetscInt_FMT " and nnz = %" PetscInt_FMT " must be >= 0", K, nnz);
  L->K    = K;
  L->rows = NULL;
  PetscCall(PetscCalloc1(K + 1, &L->ptr));
  PetscCall(PetscMalloc1(PetscMax(nnz, 1), &L->idx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSuccessorListGet(const SRSuccessorList *L, PetscInt k, PetscInt **scratch, PetscInt *scap, PetscInt *n, const PetscInt **list)
{
  SRIntBuf b;

  PetscFunctionBeginUser;
  if (!L->rows) {
    *n    = L->ptr[k + 1] - L->ptr[k];
    *list = L->idx + L->ptr[k];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  b.n   = 0;
  b.cap = *scap;
  b.a   = *scratch;
  PetscCall(SRIndexBoxAppend_Private(L->rn, L->rgrid, L->K, k, L->rows + (2 * L->rn + 1) * k, &b));
  *scratch = b.a;
  *scap    = b.cap;
  *n       = b.n;
  *list    = b.a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt SRSuccessorListLength(const SRSuccessorList *L, PetscInt k)
{
  return L->rows ? SRIndexBoxCount(L->rn, L->rows + (2 * L->rn + 1) * k) : L->ptr[k + 1] - L->ptr[k];
}

/* Accepts a zeroed or already destroyed list. */
PetscErrorCode SRSuccessorListDestroy(SRSuccessorList *L)
{
  PetscFunctionBeginUser;
  if (!L) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree(L->ptr));
  PetscCall(PetscFree(L->idx));
  L->K    = 0;
  L->rows = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* to must be zeroed or a list from SRSuccessorListCreate; its storage is replaced.  A view of
   index boxes is copied as explicit lists. */
PetscErrorCode SRSuccessorListCopy(const SRSuccessorList *from, SRSuccessorList *to)
{
  PetscInt nnz;

  PetscFunctionBeginUser;
  if (from == to) PetscFunctionReturn(PETSC_SUCCESS);
  if (from->rows) {
    PetscCall(SRIndexBoxesToList_Private(from->rn, from->rgrid, from->K, from->rows, to));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCheck(from->ptr, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "successor list copy: the source list was never created");
  nnz = from->ptr[from->K];
  PetscCall(SRSuccessorListDestroy(to));
  PetscCall(SRSuccessorListCreate(from->K, nnz, to));
  PetscCall(PetscArraycpy(to->ptr, from->ptr, from->K + 1));
  PetscCall(PetscArraycpy(to->idx, from->idx, nnz));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Grid index of cell j in dimension d (cells keep the index of the initial grid they started
   from: k = i0 + N0 (i1 + N1 i2)). */
static inline PetscInt SRCellIndex1_Private(SRCells cells, PetscInt j, PetscInt d)
{
  for (PetscInt e = 0; e < d; e++) j /= cells->grid[e];
  return j % cells->grid[d];
}

/* Replaces the entries out->a[start..out->n) (increasing cells, the sink last if present) by
   every cell of their bounding index box, increasing, then the sink.  A superset of a sound list
   is sound; for grid and partition cells the cells meeting a box already form an index box, so
   nothing changes there (SPEC §5 storage: a list is an index box). */
PetscErrorCode SRSuccessorsBoxClose_Private(SRCells cells, SRIntBuf *out, PetscInt start)
{
  const PetscInt n = cells->n, K = cells->K;
  PetscInt       a[SR_MAX_DIM] = {0, 0, 0}, z[SR_MAX_DIM] = {0, 0, 0}, stride[SR_MAX_DIM] = {[0 ... SR_MAX_DIM - 1] = 1}, s = 1, m = 0, total = 1;
  PetscBool      sink = PETSC_FALSE;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < n; d++) {
    a[d]      = PETSC_MAX_INT;
    z[d]      = -1;
    stride[d] = s;
    s *= cells->grid[d];
  }
  for (PetscInt t = start; t < out->n; t++) {
    const PetscInt j = out->a[t];
    if (j == K) {
      sink = PETSC_TRUE;
      continue;
    }
    m++;
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt i = SRCellIndex1_Private(cells, j, d);
      a[d]             = PetscMin(a[d], i);
      z[d]             = PetscMax(z[d], i);
    }
  }
  out->n = start;
  if (m > 0) {
    for (PetscInt d = 0; d < n; d++) total *= z[d] - a[d] + 1;
    PetscCall(SRIntBufReserve_Private(out, start + total + 1));
    for (PetscInt i2 = (n > 2 ? a[2] : 0); i2 <= (n > 2 ? z[2] : 0); i2++)
      for (PetscInt i1 = (n > 1 ? a[1] : 0); i1 <= (n > 1 ? z[1] : 0); i1++)
        for (PetscInt i0 = a[0]; i0 <= z[0]; i0++) out->a[out->n++] = i0 + (n > 1 ? i1 * stride[1] : 0) + (n > 2 ? i2 * stride[2] : 0);
  }
  if (sink) PetscCall(SRIntBufPush_Private(out, K));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SPEC §5 storage, one cell: row = lo[0..n), hi[0..n), flags (1 = sink) of the bounding index box
   of list[0..nlist) (no cell listed: lo = 0, hi = -1 in every dimension).  The number of entries
   the row stands for (the sink counts one) in *count when non-NULL. */
PetscErrorCode SRIndexBoxBound(SRCells cells, PetscInt nlist, const PetscInt *list, PetscInt *row)
{
  const PetscInt n = cells->n, K = cells->K;
  PetscBool      any = PETSC_FALSE;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < n; d++) {
    row[d]     = PETSC_MAX_INT;
    row[n + d] = -1;
  }
  row[2 * n] = 0;
  for (PetscInt t = 0; t < nlist; t++) {
    const PetscInt j = list[t];
    if (j == K) {
      row[2 * n] = 1;
      continue;
    }
    any = PETSC_TRUE;
    for (PetscInt d = 0; d < n; d++) {
      const PetscInt i = SRCellIndex1_Private(cells, j, d);
      row[d]           = PetscMin(row[d], i);
      row[n + d]       = PetscMax(row[n + d], i);
    }
  }
  if (!any)
    for (PetscInt d = 0; d < n; d++) row[d] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt SRIndexBoxCount(PetscInt n, const PetscInt *row)
{
  PetscInt m = 1;
  for (PetscInt d = 0; d < n; d++) m = row[d] > row[n + d] ? 0 : m * (row[n + d] - row[d] + 1);
  return m + (row[2 * n] ? 1 : 0);
}

/* Appends the list a row stands for: every cell of the index box, increasing, then the sink.
   The row is validated (a file or a caller may hand in anything); a row that lists nothing is
   refused, since C(k) never is empty. */
PetscErrorCode SRIndexBoxAppend_Private(PetscInt n, const PetscInt *grid, PetscInt K, PetscInt k, const PetscInt *row, SRIntBuf *out)
{
  PetscInt       stride[SR_MAX_DIM] = {0, 0, 0}, a[SR_MAX_DIM] = {0, 0, 0}, z[SR_MAX_DIM] = {0, 0, 0}, s = 1, total;
  PetscBool      empty = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCheck(row[2 * n] == 0 || row[2 * n] == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "list of cell %" PetscInt_FMT ": flags %" PetscInt_FMT "; allowed are 0, 1 (sink)", k, row[2 * n]);
  for (PetscInt d = 0; d < n; d++) {
    if (row[d] > row[n + d]) empty = PETSC_TRUE;
    else PetscCheck(row[d] >= 0 && row[n + d] < grid[d], PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "list of cell %" PetscInt_FMT ": index range %" PetscInt_FMT "..%" PetscInt_FMT " outside 0..%" PetscInt_FMT " in dimension %" PetscInt_FMT, k, row[d], row[n + d], grid[d] - 1, d);
    stride[d] = s;
    s *= grid[d];
  }
  PetscCheck(!empty || row[2 * n], PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "list of cell %" PetscInt_FMT " is empty (C(k) never is)", k);
  total = SRIndexBoxCount(n, row);
  PetscCall(SRIntBufReserve_Private(out, out->n + total));
  if (!empty) {
    for (PetscInt d = 0; d < n; d++) {
      a[d] = row[d];
      z[d] = row[n + d];
    }
    for (PetscInt i2 = a[2]; i2 <= z[2]; i2++)
      for (PetscInt i1 = a[1]; i1 <= z[1]; i1++)
        for (PetscInt i0 = a[0]; i0 <= z[0]; i0++) out->a[out->n++] = i0 + i1 * stride[1] + i2 * stride[2];
  }
  if (row[2 * n]) out->a[out->n++] = K;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The row of list[0..nlist) when the list is exactly its index box (increasing, the sink last);
   *exact says whether it is. */
PetscErrorCode SRIndexBoxFromList_Private(SRCells cells, PetscInt nlist, const PetscInt *list, PetscInt *row, PetscBool *exact)
{
  const PetscInt n = cells->n;
  PetscInt       stride[SR_MAX_DIM] = {0, 0, 0}, s = 1, t = 0;

  PetscFunctionBeginUser;
  PetscCall(SRIndexBoxBound(cells, nlist, list, row));
  *exact = (PetscBool)(nlist >= 1 && SRIndexBoxCount(n, row) == nlist);
  if (!*exact) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 0; d < n; d++) {
    stride[d] = s;
    s *= cells->grid[d];
  }
  /* same count as the box: equal iff the entries are the box's cells in increasing order */
  if (SRIndexBoxCount(n, row) > row[2 * n])
    for (PetscInt i2 = (n > 2 ? row[2] : 0); i2 <= (n > 2 ? row[n + 2] : 0) && *exact; i2++)
      for (PetscInt i1 = (n > 1 ? row[1] : 0); i1 <= (n > 1 ? row[n + 1] : 0) && *exact; i1++)
        for (PetscInt i0 = row[0]; i0 <= row[n] && *exact; i0++) *exact = (PetscBool)(list[t++] == i0 + (n > 1 ? i1 * stride[1] : 0) + (n > 2 ? i2 * stride[2] : 0));
  if (*exact && row[2 * n]) *exact = (PetscBool)(list[t] == cells->K);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* rows[k] = the index box of C(k); error if a list is not exactly its index box. */
PetscErrorCode SRSuccessorListToBoxes(SRCells cells, const SRSuccessorList *L, PetscInt *rows)
{
  const PetscInt n = cells->n, K = cells->K, rl = 2 * n + 1;

  PetscFunctionBeginUser;
  PetscCheck(L->K == K, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "successor list for %" PetscInt_FMT " cells, the cells have %" PetscInt_FMT, L->K, K);
  for (PetscInt k = 0; k < K; k++) {
    PetscBool exact;
    PetscCall(SRIndexBoxFromList_Private(cells, L->ptr[k + 1] - L->ptr[k], L->idx + L->ptr[k], rows + rl * k, &exact));
    PetscCheck(exact, PETSC_COMM_SELF, PETSC_ERR_PLIB, "certified list of cell %" PetscInt_FMT " (%" PetscInt_FMT " entries) is not an index box", k, L->ptr[k + 1] - L->ptr[k]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every row of rows (K rows over a grid of counts grid) expanded into L (replaced). */
PetscErrorCode SRIndexBoxesToList_Private(PetscInt n, const PetscInt *grid, PetscInt K, const PetscInt *rows, SRSuccessorList *L)
{
  SRIntBuf b = {0, 0, NULL};

  PetscFunctionBeginUser;
  PetscCall(SRSuccessorListDestroy(L));
  PetscCall(SRSuccessorListCreate(K, 0, L));
  for (PetscInt k = 0; k < K; k++) {
    PetscCall(SRIndexBoxAppend_Private(n, grid, K, k, rows + (2 * n + 1) * k, &b));
    L->ptr[k + 1] = b.n;
  }
  PetscCall(PetscFree(L->idx));
  L->idx = b.a; /* the buffer becomes the list's entries */
  if (!L->idx) PetscCall(PetscMalloc1(1, &L->idx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSuccessorListFromBoxes(SRCells cells, const PetscInt *rows, SRSuccessorList *L)
{
  PetscFunctionBeginUser;
  PetscCall(SRIndexBoxesToList_Private(cells->n, cells->grid, cells->K, rows, L));
  PetscFunctionReturn(PETSC_SUCCESS);
}
