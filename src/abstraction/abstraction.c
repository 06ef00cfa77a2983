/* SRAbstraction: the certified successor lists C(k), the targets T(k) and their metrics
   (SPEC §5, §6), partitioned over a communicator.

   Rank r owns the contiguous block of cells [kstart, kend) of SRAbstractionGetOwnership; it
   encloses and checks only those, then the lists are allgathered so that every rank holds all
   of them: C(k) as index-box rows, T(k) as a short CSR (src/abstraction/abstraction_store.c).  Every per-cell value is a function of the cell alone (enclosure, rank-independent
   sample indices), and every reduction is exact: integer sums, or per-cell doubles gathered
   and summed in cell order on every rank.  So every verdict, count and volume is identical
   on any number of ranks. */
#include <simreach/private/abstraction_types.h>
#include <simreach/private/abstraction_store.h>
#include <simreach/private/abstraction_ops.h>
#include <simreach/private/target_models.h>
#include <petsctime.h>

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
  PetscCheck(type >= SR_ENCLOSURE_INTERVAL && type <= SR_ENCLOSURE_AFFINE, abs->comm, PETSC_ERR_ARG_OUTOFRANGE, "enclosure type %d: allowed are interval, taylor1, both, crown, affine", (int)type);
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
  PetscCall(PetscOptionsEnum("-enclosure", "enclosure of f_phi(cell): interval, taylor1, both, crown, affine (SPEC §7, §16)", "SRAbstractionSetEnclosureType", SREnclosureTypes, e, &e, NULL));
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
  PetscCall(PetscFree((*abs)->Cbox));
  PetscCall(SRIntBufDestroy_Private(&(*abs)->cell));
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

PetscErrorCode SRAbstractionSetModelHook(SRAbstraction abs, SRModelBlockHook hook, void *ctx)
{
  PetscFunctionBeginUser;
  abs->model_hook     = hook;
  abs->model_hook_ctx = ctx;
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

PetscErrorCode SRAbstractionGetMetricsTime(SRAbstraction abs, double *t_metrics)
{
  PetscFunctionBeginUser;
  *t_metrics = abs->t_meas;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Enclosures of this rank's block; a status OK with a NaN/Inf box is treated as nonfinite. */
PetscErrorCode SRAbstractionEnclose_Private(SRAbstraction abs, SRModel model, SRCells cells, SREnclosureType type, PetscInt ks, PetscInt ke, double **E, SRCellStatus **status)
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

PetscErrorCode SRAbstractionCheckCells_Private(SRAbstraction abs, SRCells cells)
{
  PetscFunctionBeginUser;
  PetscCheck(abs->has_lists, abs->comm, PETSC_ERR_ORDER, "the abstraction has no successor lists yet: call SRAbstractionBuild (or SRAbstractionSetBoxes) first");
  PetscCheck(abs->K == cells->K, abs->comm, PETSC_ERR_ARG_SIZ, "the successor lists are for K = %" PetscInt_FMT " cells, the cells given have K = %" PetscInt_FMT, abs->K, cells->K);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The row of a list the abstraction just made (an index box by construction, SPEC §5). */
static PetscErrorCode SRAbstractionRow_Private(SRCells cells, PetscInt k, PetscInt nlist, const PetscInt *list, PetscInt *row)
{
  PetscBool exact;

  PetscFunctionBeginUser;
  PetscCall(SRIndexBoxFromList_Private(cells, nlist, list, row, &exact));
  PetscCheck(exact, PETSC_COMM_SELF, PETSC_ERR_PLIB, "certified list of cell %" PetscInt_FMT " (%" PetscInt_FMT " entries) is not an index box", k, nlist);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The lists of cells [ks, ke) from their enclosures E (grown by the margin here when it is not
   0; E itself is left as it is) and the allgather (SPEC §5).  distinct (may be NULL) receives
   per cell how many entries of C(k) the target samples hit, when the target samples (-target
   empirical): the figure SRAbstractionGetMetrics counts, from the same samples and list. */
PetscErrorCode SRAbstractionBuildLists_Private(SRAbstraction abs, SRModel model, SRCells cells, PetscInt ks, PetscInt ke, const double *E0, const SRCellStatus *st, PetscInt *distinct)
{
  const PetscInt  n = cells->n, K = cells->K, rl = 2 * n + 1;
  const PetscBool certified = (PetscBool)(abs->tp.type == SR_TARGET_CERTIFIED);
  PetscInt       *Crow, *Tcnt;
  const double   *E = E0;
  double         *Eg = NULL;
  SRCellIndex     index = NULL;
  SRIntBuf        Cent  = {0, 0, NULL}, Tent = {0, 0, NULL};
  SRTargetModels  tm;
  PetscLogDouble  t0, t1;

  PetscFunctionBeginUser;
  if (abs->margin != 0.0) {
    PetscCall(PetscMalloc1(PetscMax(ke - ks, 1) * 2 * n, &Eg));
    PetscCall(PetscArraycpy(Eg, E0, (ke - ks) * 2 * n));
    SRAbstractionGrow_Private(abs, cells, ks, ke, Eg, st);
    E = Eg;
  }
  PetscCall(PetscLogEventBegin(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscMalloc2(PetscMax(ke - ks, 1) * rl, &Crow, PetscMax(ke - ks, 1), &Tcnt));
  if (!cells->grid_aligned && !cells->partition) PetscCall(SRCellIndexCreate(cells, &index));
  PetscCall(SRTargetModelsCreate(model, cells, &abs->tp, PETSC_FALSE, &abs->tm_stats, &tm));
  if (abs->model_hook) PetscCall(SRTargetModelsSetHook(tm, abs->model_hook, abs->model_hook_ctx, abs->etype, E0, st, ks));
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt t0i = Tent.n;
    Cent.n = 0; /* one cell's list at a time; only its index box is kept (SPEC §5) */
    if (st[k - ks] == SR_CELL_NONFINITE) PetscCall(SRIntBufPush_Private(&Cent, K));
    else {
      PetscCall(SRSuccessorsCertifiedAppend_Private(cells, index, E + 2 * n * (k - ks), E + 2 * n * (k - ks) + n, &Cent));
      /* moved cells: the list kept as an index box (SPEC §5 storage), a sound superset */
      if (!cells->grid_aligned && !cells->partition) PetscCall(SRSuccessorsBoxClose_Private(cells, &Cent, 0));
    }
    /* E_k inside D but in a gap between moved cells: nothing can certify it.  As for a nonfinite
       enclosure the list is the sink alone, and the containment test reports the cell. */
    if (Cent.n == 0) PetscCall(SRIntBufPush_Private(&Cent, K));
    PetscCall(SRAbstractionRow_Private(cells, k, Cent.n, Cent.a, Crow + rl * (k - ks)));
    if (!certified) {
      const SRCellModel *cm;
      PetscCall(SRTargetModelsGet(tm, k, ke, &cm));
      PetscCall(SRSuccessorsTargetAppend_Private(model, cells, &abs->tp, k, Cent.n, Cent.a, PETSC_FALSE, cm, &Tent, distinct && abs->tp.type == SR_TARGET_EMPIRICAL ? &distinct[k - ks] : NULL, NULL));
    }
    Tcnt[k - ks] = Tent.n - t0i;
  }
  PetscCall(SRCellIndexDestroy(&index));
  PetscCall(SRTargetModelsDestroy(&tm));
  PetscCall(SRAbstractionAllgatherRows_Private(abs, cells, Crow));
  if (certified) PetscCall(SRAbstractionTargetsView_Private(abs)); /* T = C */
  else PetscCall(SRAbstractionAllgatherList_Private(abs, K, Tcnt, &Tent, &abs->T));
  PetscCall(PetscTime(&t1));
  abs->t_succ += t1 - t0;
  PetscCall(PetscLogEventEnd(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscFree2(Crow, Tcnt));
  PetscCall(SRIntBufDestroy_Private(&Cent));
  PetscCall(SRIntBufDestroy_Private(&Tent));
  PetscCall(PetscFree(Eg));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective.  SPEC §5: C(k) = cells whose outward box meets E_k (+ sink if E_k leaves D).
   A NaN/Inf enclosure, or one that meets no cell and stays in D (free cells that no longer
   cover D), certifies nothing: its list is the sink alone and its check fails. */
PetscErrorCode SRAbstractionBuild(SRAbstraction abs, SRModel model, SRCells cells)
{
  const PetscInt K = cells->K;
  PetscInt       ks, ke;
  double        *E;
  SRCellStatus  *st;

  PetscFunctionBeginUser;
  PetscCheck(K >= 1, abs->comm, PETSC_ERR_ARG_OUTOFRANGE, "the abstraction needs at least one cell, got K = %" PetscInt_FMT, K);
  SRAbstractionBlock_Private(K, abs->size, abs->rank, &ks, &ke);
  PetscCall(SRAbstractionEnclose_Private(abs, model, cells, abs->etype, ks, ke, &E, &st));
  PetscCall(SRAbstractionBuildLists_Private(abs, model, cells, ks, ke, E, st, NULL));
  PetscCall(PetscFree2(E, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective.  The failure count, the lowest failing cell and its witness (broadcast from
   the owner) from this rank's lfail and lfirst (PETSC_MAX_INT: none) over enclosures E of
   [ks, ke). */
PetscErrorCode SRAbstractionFailures_Private(SRAbstraction abs, SRCells cells, PetscInt ks, const double *E, const SRCellStatus *st, PetscInt lfail, PetscInt lfirst, PetscInt *nfail, PetscInt *first, double *witness)
{
  const PetscInt  n = cells->n, K = cells->K;
  PetscInt        gfirst, nC;
  const PetscInt *Ck;
  double          w[SR_MAX_DIM];
  SRIntBuf        buf = {0, 0, NULL};

  PetscFunctionBeginUser;
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
      PetscCall(SRAbstractionCellList_Private(abs, gfirst, &buf, &nC, &Ck));
      PetscCall(SRContainmentTest(cells, nC, Ck, E + 2 * n * (gfirst - ks), E + 2 * n * (gfirst - ks) + n, &s, w));
    }
    PetscCallMPI(MPI_Bcast(w, (PetscMPIInt)n, MPI_DOUBLE, owner, abs->comm));
  }
  if (first) *first = gfirst == PETSC_MAX_INT ? -1 : gfirst;
  if (witness)
    for (PetscInt d = 0; d < n; d++) witness[d] = w[d];
  PetscCall(SRIntBufDestroy_Private(&buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective.  SPEC §7 containment of every cell in its stored C(k). */
PetscErrorCode SRAbstractionCheck(SRAbstraction abs, SRModel model, SRCells cells, SREnclosureType type, PetscInt *nfail, PetscInt *first, double *witness)
{
  const PetscInt  n = cells->n, K = cells->K;
  PetscInt        ks, ke, lfail = 0, lfirst = PETSC_MAX_INT;
  double         *E;
  SRCellStatus   *st;
  SRIntBuf        buf = {0, 0, NULL};
  PetscLogDouble  t0, t1;

  PetscFunctionBeginUser;
  PetscCall(SRAbstractionCheckCells_Private(abs, cells));
  SRAbstractionBlock_Private(K, abs->size, abs->rank, &ks, &ke);
  PetscCall(SRAbstractionEnclose_Private(abs, model, cells, type, ks, ke, &E, &st));
  PetscCall(PetscLogEventBegin(abs->ev_cont, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  for (PetscInt k = ks; k < ke; k++) {
    SRCellStatus s = st[k - ks];
    PetscCall(SRAbstractionCellContained_Private(abs, cells, k, E + 2 * n * (k - ks), E + 2 * n * (k - ks) + n, &buf, &s));
    if (s != SR_CELL_OK) {
      lfail++;
      if (lfirst == PETSC_MAX_INT) lfirst = k;
    }
  }
  PetscCall(SRAbstractionFailures_Private(abs, cells, ks, E, st, lfail, lfirst, nfail, first, witness));
  PetscCall(PetscTime(&t1));
  abs->t_cont += t1 - t0;
  PetscCall(PetscLogEventEnd(abs->ev_cont, 0, 0, 0, 0));
  PetscCall(SRIntBufDestroy_Private(&buf));
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
  const PetscInt  n = cells->n, K = cells->K, rl = 2 * n + 1;
  const PetscBool rows  = (PetscBool)!abs->explicit_C; /* index boxes in, index boxes out */
  const PetscBool tview = (PetscBool)(rows && abs->T.rows);  /* T = C as a view: nothing to prune */
  PetscInt        ks, ke, *Ccnt, *Crow, *Tcnt, nC;
  const PetscInt *Ck;
  double         *E;
  SRCellStatus   *st;
  SRIntBuf        Cent = {0, 0, NULL}, Tent = {0, 0, NULL}, buf = {0, 0, NULL};
  PetscLogDouble  t0, t1;

  PetscFunctionBeginUser;
  PetscCall(SRAbstractionCheckCells_Private(abs, cells));
  SRAbstractionBlock_Private(K, abs->size, abs->rank, &ks, &ke);
  PetscCall(SRAbstractionEnclose_Private(abs, model, cells, abs->etype, ks, ke, &E, &st));
  SRAbstractionGrow_Private(abs, cells, ks, ke, E, st);
  PetscCall(PetscLogEventBegin(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscMalloc3(PetscMax(ke - ks, 1), &Ccnt, PetscMax(ke - ks, 1) * rl, &Crow, PetscMax(ke - ks, 1), &Tcnt));
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt t0i = Tent.n;
    PetscInt       c0;
    if (rows) Cent.n = 0; /* one cell at a time; only its index box is kept */
    c0 = Cent.n;
    PetscCall(SRAbstractionCellList_Private(abs, k, &buf, &nC, &Ck));
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
    if (rows) PetscCall(SRAbstractionRow_Private(cells, k, Ccnt[k - ks], Cent.a + c0, Crow + rl * (k - ks)));
    Tcnt[k - ks] = 0;
    if (tview) continue; /* T = C, a view of the rows */
    for (PetscInt t = abs->T.ptr[k]; t < abs->T.ptr[k + 1]; t++)
      if (SRListContains_Private(Ccnt[k - ks], Cent.a + c0, abs->T.idx[t])) PetscCall(SRIntBufPush_Private(&Tent, abs->T.idx[t]));
    if (Tent.n == t0i) PetscCall(SRSuccessorsTargetAppend_Private(model, cells, &abs->tp, k, Ccnt[k - ks], Cent.a + c0, PETSC_FALSE, NULL, &Tent, NULL, NULL));
    Tcnt[k - ks] = Tent.n - t0i;
  }
  if (rows) PetscCall(SRAbstractionAllgatherRows_Private(abs, cells, Crow));
  else {
    PetscCall(SRAbstractionAllgatherList_Private(abs, K, Ccnt, &Cent, &abs->C));
    abs->box_valid = PETSC_FALSE;
  }
  if (tview) PetscCall(SRAbstractionTargetsView_Private(abs));
  else PetscCall(SRAbstractionAllgatherList_Private(abs, K, Tcnt, &Tent, &abs->T));
  PetscCall(PetscTime(&t1));
  abs->t_succ += t1 - t0;
  PetscCall(PetscLogEventEnd(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscFree3(Ccnt, Crow, Tcnt));
  PetscCall(SRIntBufDestroy_Private(&Cent));
  PetscCall(SRIntBufDestroy_Private(&Tent));
  PetscCall(SRIntBufDestroy_Private(&buf));
  PetscCall(PetscFree2(E, st));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective.  T(k) chosen afresh within the stored C(k) (SPEC §5). */
PetscErrorCode SRAbstractionUpdateTargets(SRAbstraction abs, SRModel model, SRCells cells)
{
  const PetscInt K = cells->K;
  PetscInt       ks, ke, *Tcnt, nC;
  const PetscInt *Ck;
  SRIntBuf       Tent = {0, 0, NULL}, buf = {0, 0, NULL};
  SRTargetModels tm;
  PetscLogDouble t0, t1;

  PetscFunctionBeginUser;
  PetscCall(SRAbstractionCheckCells_Private(abs, cells));
  if (abs->tp.type == SR_TARGET_CERTIFIED && !abs->explicit_C) { /* T = C */
    PetscCall(SRAbstractionTargetsView_Private(abs));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  SRAbstractionBlock_Private(K, abs->size, abs->rank, &ks, &ke);
  PetscCall(PetscLogEventBegin(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscMalloc1(PetscMax(ke - ks, 1), &Tcnt));
  PetscCall(SRTargetModelsCreate(model, cells, &abs->tp, PETSC_FALSE, &abs->tm_stats, &tm));
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt     t0i = Tent.n;
    const SRCellModel *cm;
    PetscCall(SRAbstractionCellList_Private(abs, k, &buf, &nC, &Ck));
    PetscCall(SRTargetModelsGet(tm, k, ke, &cm));
    PetscCall(SRSuccessorsTargetAppend_Private(model, cells, &abs->tp, k, nC, Ck, PETSC_FALSE, cm, &Tent, NULL, NULL));
    Tcnt[k - ks] = Tent.n - t0i;
  }
  PetscCall(SRTargetModelsDestroy(&tm));
  PetscCall(SRAbstractionAllgatherList_Private(abs, K, Tcnt, &Tent, &abs->T));
  PetscCall(PetscTime(&t1));
  abs->t_succ += t1 - t0;
  PetscCall(PetscLogEventEnd(abs->ev_succ, 0, 0, 0, 0));
  PetscCall(PetscFree(Tcnt));
  PetscCall(SRIntBufDestroy_Private(&Tent));
  PetscCall(SRIntBufDestroy_Private(&buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}
