/* Reading rows of a results file (SPEC §9, §13): independent reads from any rank; a row that
   fails its checksum is returned as never written (NaN, status pending, resume index -1), with
   a warning naming the file, the run and the row where the caller asks for one. */
#include <simreach/private/results_impl.h>
#include <math.h>
#include <string.h>

/* status + reason and resume index of run r, with their validity. */
PetscErrorCode SRResultsRunInfo_Private(SRResults res, PetscInt r, PetscBool warn, PetscInt *status, PetscInt *last, PetscInt *slot, PetscBool *stok, PetscBool *rsok)
{
  int64_t  st, rs[2];
  char     reason[SR_RESULTS_REASON_LEN];
  uint64_t sst, srs;
  hsize_t  start[2] = {(hsize_t)r, 0}, count[2] = {1, 2};

  PetscFunctionBeginUser;
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_STATUS], H5T_NATIVE_INT64, 1, start, count, &st, PETSC_FALSE));
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_REASON], res->strtype, 1, start, count, reason, PETSC_FALSE));
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_RESUME], H5T_NATIVE_INT64, 2, start, count, rs, PETSC_FALSE));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_STATUS_CHECKSUM], 1, r, 0, &sst, PETSC_FALSE));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_RESUME_CHECKSUM], 1, r, 0, &srs, PETSC_FALSE));
  {
    uint64_t h = SRResultsRowSum_Private("status", r, 0, &st, sizeof(st));
    *stok      = sst == SRChecksum64(reason, sizeof(reason), h) && st >= SR_RUN_PENDING && st <= SR_RUN_INTERRUPTED;
  }
  *rsok = srs == SRResultsRowSum_Private("resume", r, 0, rs, sizeof(rs)) && rs[0] >= 0 && rs[0] < res->lay.nrows && rs[1] == rs[0] % 2;
  if (sst && !*stok) SRResultsWarn_Private(res, warn, r, "/runs/status", r);
  if (srs && !*rsok) SRResultsWarn_Private(res, warn, r, "/runs/resume", r);
  *status = *stok ? (PetscInt)st : SR_RUN_PENDING;
  *last   = *rsok ? (PetscInt)rs[0] : -1;
  *slot   = *rsok ? (PetscInt)rs[1] : -1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadRunInfo(SRResults res, PetscInt r, PetscInt *status, PetscInt *last, PetscInt *slot)
{
  PetscBool stok, rsok;

  PetscFunctionBeginUser;
  PetscCall(SRResultsRunInfo_Private(res, r, PETSC_FALSE, status, last, slot, &stok, &rsok));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The state of slot (checkpoint c's slot is c mod 2); the checksum binds it to c too. */
PetscErrorCode SRResultsState_Private(SRResults res, PetscInt r, PetscInt slot, double *d, int64_t *buf, PetscBool write)
{
  hsize_t start[3] = {(hsize_t)r, (hsize_t)slot, 0}, count[3] = {1, 1, (hsize_t)res->lay.ndstate};

  PetscFunctionBeginUser;
  PetscCheck(slot == 0 || slot == 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: run %" PetscInt_FMT ": resume slot %" PetscInt_FMT " is not 0 or 1", res->filename, r, slot);
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_STATE_DOUBLE], H5T_NATIVE_DOUBLE, 3, start, count, d, write));
  count[2] = (hsize_t)res->lay.nistate;
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_STATE_INT], H5T_NATIVE_INT64, 3, start, count, buf, write));
  PetscFunctionReturn(PETSC_SUCCESS);
}

uint64_t SRResultsStateSum_Private(SRResults res, PetscInt r, PetscInt checkpoint, const double *d, const int64_t *buf)
{
  uint64_t h = SRResultsRowSum_Private("state", r, checkpoint, d, sizeof(double) * (size_t)res->lay.ndstate);
  return SRChecksum64(buf, sizeof(int64_t) * (size_t)res->lay.nistate, h);
}

/* Reads slot; *ok = its checksum holds. */
PetscErrorCode SRResultsReadStateChecked_Private(SRResults res, PetscInt r, PetscInt slot, double *d, PetscInt *i, PetscBool *ok)
{
  int64_t *buf;
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(res->lay.nistate + 1, &buf));
  PetscCall(SRResultsState_Private(res, r, slot, d, buf, PETSC_FALSE));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_STATE_CHECKSUM], 2, r, slot, &sum, PETSC_FALSE));
  *ok = sum == SRResultsStateSum_Private(res, r, slot, d, buf);
  if (i)
    for (PetscInt k = 0; k < res->lay.nistate; k++) i[k] = (PetscInt)buf[k];
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadSlot(SRResults res, PetscInt r, PetscInt slot, double *d, PetscInt *i, SRSlotState *state)
{
  int64_t  *buf;
  uint64_t  sum;
  PetscBool zero = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(res->lay.nistate + 1, &buf));
  PetscCall(SRResultsState_Private(res, r, slot, d, buf, PETSC_FALSE));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_STATE_CHECKSUM], 2, r, slot, &sum, PETSC_FALSE));
  /* never written: checksum and numbers keep the fill value 0 (bit for bit: -0.0 is written) */
  for (PetscInt k = 0; k < res->lay.ndstate && zero; k++) {
    uint64_t bits;
    memcpy(&bits, &d[k], sizeof(bits));
    if (bits) zero = PETSC_FALSE;
  }
  for (PetscInt k = 0; k < res->lay.nistate && zero; k++)
    if (buf[k]) zero = PETSC_FALSE;
  if (!sum && zero) *state = SR_SLOT_EMPTY;
  else *state = sum == SRResultsStateSum_Private(res, r, slot, d, buf) ? SR_SLOT_OK : SR_SLOT_DAMAGED;
  if (i)
    for (PetscInt k = 0; k < res->lay.nistate; k++) i[k] = (PetscInt)buf[k];
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadState(SRResults res, PetscInt r, PetscInt slot, double *d, PetscInt *i)
{
  PetscBool ok;

  PetscFunctionBeginUser;
  PetscCall(SRResultsReadStateChecked_Private(res, r, slot, d, i, &ok));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": the resume state in slot %" PetscInt_FMT " fails its checksum", res->filename, r, slot);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadReason(SRResults res, PetscInt r, char reason[SR_RESULTS_REASON_LEN])
{
  hsize_t start[1] = {(hsize_t)r}, count[1] = {1};

  PetscFunctionBeginUser;
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_REASON], res->strtype, 1, start, count, reason, PETSC_FALSE));
  reason[SR_RESULTS_REASON_LEN - 1] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads (write = FALSE) or writes the abstraction rows of run r; returns their checksum. */
PetscErrorCode SRResultsAbstraction_Private(SRResults res, PetscInt r, PetscBool initial, double *params, double *theta, int64_t *boxes, PetscBool write, uint64_t *sum)
{
  const SRResultsLayout *lay = &res->lay;
  hsize_t                start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)lay->nparams, 0};
  uint64_t               h = SRChecksumSeed("abstraction", r, initial ? 0 : 1);

  PetscFunctionBeginUser;
  if (!initial) {
    PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_NETWORK], H5T_NATIVE_DOUBLE, 2, start, count, params, write));
    h = SRChecksum64(params, sizeof(double) * (size_t)lay->nparams, h);
  }
  count[1] = (hsize_t)lay->ntheta;
  PetscCall(SRResultsHyperslab_Private(initial ? res->d[SR_RD_CELLS_INITIAL] : res->d[SR_RD_CELLS], H5T_NATIVE_DOUBLE, 2, start, count, theta, write));
  h        = SRChecksum64(theta, sizeof(double) * (size_t)lay->ntheta, h);
  count[1] = (hsize_t)lay->K;
  count[2] = (hsize_t)lay->ncap;
  PetscCall(SRResultsHyperslab_Private(initial ? res->d[SR_RD_SUCCESSOR_BOX_INITIAL] : res->d[SR_RD_SUCCESSOR_BOX], H5T_NATIVE_INT64, 3, start, count, boxes, write));
  *sum = SRChecksum64(boxes, sizeof(int64_t) * (size_t)lay->K * (size_t)lay->ncap, h);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final (or initial) abstraction rows of run r, read and checked; *ok = the checksum holds. */
PetscErrorCode SRResultsAbstractionChecked_Private(SRResults res, PetscInt r, PetscBool initial, double *params, double *theta, int64_t *boxes, PetscBool *ok, PetscBool *written)
{
  uint64_t want, got;

  PetscFunctionBeginUser;
  PetscCall(SRResultsAbstraction_Private(res, r, initial, params, theta, boxes, PETSC_FALSE, &got));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_ABSTRACTION_CHECKSUM], 2, r, initial ? 0 : 1, &want, PETSC_FALSE));
  *ok = want == got;
  if (written) *written = want != 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsAbstractionState(SRResults res, PetscInt r, PetscBool initial, SRSlotState *state)
{
  const SRResultsLayout *lay = &res->lay;
  double                *net, *theta;
  int64_t               *boxes;
  PetscBool              ok, written;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(lay->nparams + 1, &net, lay->ntheta + 1, &theta, lay->K * lay->ncap + 1, &boxes));
  PetscCall(SRResultsAbstractionChecked_Private(res, r, initial, net, theta, boxes, &ok, &written));
  *state = !written ? SR_SLOT_EMPTY : (ok ? SR_SLOT_OK : SR_SLOT_DAMAGED);
  PetscCall(PetscFree3(net, theta, boxes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadEnclosures(SRResults res, PetscInt r, double *E, PetscBool *ok)
{
  const SRResultsLayout *lay = &res->lay;
  const size_t           m   = (size_t)(4 * lay->ndim * lay->K);
  hsize_t                start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)lay->K, (hsize_t)(4 * lay->ndim)};
  uint64_t               sum = 0;

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < lay->nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, lay->nruns - 1);
  *ok = PETSC_FALSE;
  for (size_t q = 0; q < m; q++) E[q] = NAN;
  if (res->d[SR_RD_ENCLOSURES] < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_ENCLOSURES], H5T_NATIVE_DOUBLE, 3, start, count, E, PETSC_FALSE));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_ENCLOSURES_CHECKSUM], 1, r, 0, &sum, PETSC_FALSE));
  *ok = sum != 0 && sum == SRResultsRowSum_Private("enclosures", r, 0, E, sizeof(double) * m);
  if (!*ok) {
    if (sum) (void)PetscFPrintf(PETSC_COMM_SELF, PETSC_STDERR, "simreach: warning: %s: run %" PetscInt_FMT ": /runs/enclosures fails its checksum; it is treated as never written\n", res->filename, r);
    for (size_t q = 0; q < m; q++) E[q] = NAN;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadCheckpointNetwork(SRResults res, PetscInt r, PetscInt row, double *params)
{
  hsize_t  start[3] = {(hsize_t)r, (hsize_t)row, 0}, count[3] = {1, 1, (hsize_t)res->lay.nparams};
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < res->lay.nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, res->lay.nruns - 1);
  PetscCheck(row >= 0 && row < res->lay.nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-checkpoint %" PetscInt_FMT ": the results file has checkpoints 0..%" PetscInt_FMT, row, res->lay.nrows - 1);
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_NETWORK_CHECKPOINTS], H5T_NATIVE_DOUBLE, 3, start, count, params, PETSC_FALSE));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_NETWORK_CHECKPOINTS_CHECKSUM], 2, r, row, &sum, PETSC_FALSE));
  if (sum != SRResultsRowSum_Private("network_checkpoints", r, row, params, sizeof(double) * (size_t)res->lay.nparams)) {
    /* a row that fails is never written (NaN), with a warning if it was written */
    if (sum) SRResultsWarn_Private(res, PETSC_TRUE, r, "/runs/network_checkpoints", row);
    for (PetscInt k = 0; k < res->lay.nparams; k++) params[k] = NAN;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Reads the checkpoint rows of run r and their validity (valid may be NULL). */
PetscErrorCode SRResultsCheckpoints_Private(SRResults res, PetscInt r, PetscBool warn, double *table, PetscBool *valid, PetscInt *nbad)
{
  const PetscInt nr = res->lay.nrows;
  hsize_t        start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)nr, SR_CHECKPOINT_NFIELDS};
  uint64_t      *sums;

  PetscFunctionBeginUser;
  *nbad = 0;
  PetscCall(PetscMalloc1(nr, &sums));
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_CHECKPOINTS], H5T_NATIVE_DOUBLE, 3, start, count, table, PETSC_FALSE));
  count[1] = (hsize_t)nr;
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_CHECKPOINTS_CHECKSUM], H5T_NATIVE_UINT64, 2, start, count, sums, PETSC_FALSE));
  for (PetscInt j = 0; j < nr; j++) {
    double   *row = table + j * SR_CHECKPOINT_NFIELDS;
    PetscBool ok  = sums[j] == SRResultsRowSum_Private("checkpoints", r, j, row, sizeof(double) * SR_CHECKPOINT_NFIELDS);
    if (!ok && sums[j]) {
      (*nbad)++;
      SRResultsWarn_Private(res, warn, r, "/runs/checkpoints", j);
    }
    if (!ok)
      for (PetscInt f = 0; f < SR_CHECKPOINT_NFIELDS; f++) row[f] = NAN; /* never written */
    if (valid) valid[j] = ok;
  }
  PetscCall(PetscFree(sums));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadCheckpoints(SRResults res, PetscInt r, double *table)
{
  PetscInt nbad;

  PetscFunctionBeginUser;
  PetscCall(SRResultsCheckpoints_Private(res, r, PETSC_FALSE, table, NULL, &nbad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsGetOptionsText(SRResults res, char **options)
{
  PetscFunctionBeginUser;
  PetscCall(SRResultsReadStringAttribute_Private(res->file, "options", options));
  if (!*options) PetscCall(PetscStrallocpy("", options));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final network (params) or cells (theta) of run r, the other NULL: the three are covered by
   one checksum, so all are read and checked; NaN where never written or failing the checksum
   (warned once). */
static PetscErrorCode ReadFinalOrNaN_Private(SRResults res, PetscInt r, double *params, double *theta)
{
  const SRResultsLayout *lay = &res->lay;
  double                *net = params, *th = theta, *spare;
  int64_t               *boxes;
  PetscBool              ok, written;

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < lay->nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, lay->nruns - 1);
  PetscCall(PetscMalloc2(PetscMax(lay->nparams, lay->ntheta) + 1, &spare, lay->K * lay->ncap + 1, &boxes));
  if (!net) net = spare;
  if (!th) th = spare;
  PetscCall(SRResultsAbstractionChecked_Private(res, r, PETSC_FALSE, net, th, boxes, &ok, &written));
  PetscCall(PetscFree2(spare, boxes));
  if (!ok) {
    if (written) SRResultsWarn_Private(res, PETSC_TRUE, r, "/runs/network, cells, successor_box (final)", r);
    for (PetscInt k = 0; params && k < lay->nparams; k++) params[k] = NAN; /* never written */
    for (PetscInt k = 0; theta && k < lay->ntheta; k++) theta[k] = NAN;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The network of run r (/runs/network, nparams doubles; NaN where never written). */
PetscErrorCode SRResultsReadNetwork(SRResults res, PetscInt r, double *params)
{
  PetscFunctionBeginUser;
  PetscCall(ReadFinalOrNaN_Private(res, r, params, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final cells theta (ntheta doubles) and certified lists of run r (C created here). */
PetscErrorCode SRResultsReadAbstraction(SRResults res, PetscInt r, SRCells cells, double *theta, SRSuccessorList *C)
{
  const SRResultsLayout *lay = &res->lay;
  int64_t               *buf;
  double                *net;
  PetscInt              *rows;
  PetscBool              ok, written;

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < lay->nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, lay->nruns - 1);
  PetscCheck(cells->K == lay->K && lay->ncap == 2 * cells->n + 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "run %" PetscInt_FMT ": /runs/successor_box has %" PetscInt_FMT " cells of %" PetscInt_FMT " numbers; the options give %" PetscInt_FMT " cells in dimension %" PetscInt_FMT, r, lay->K, lay->ncap, cells->K, cells->n);
  PetscCall(PetscMalloc3(lay->K * lay->ncap + 1, &buf, lay->K * lay->ncap + 1, &rows, lay->nparams + 1, &net));
  /* format 2: the final network, cells and lists must pass their checksum */
  PetscCall(SRResultsAbstractionChecked_Private(res, r, PETSC_FALSE, net, theta, buf, &ok, &written));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": the final network, cells and successor lists %s", res->filename, r, written ? "fail their checksum (the file is damaged)" : "were never written (the run has not finished)");
  for (PetscInt q = 0; q < lay->K * lay->ncap; q++) {
    PetscCheck(buf[q] >= -1 && buf[q] <= PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "run %" PetscInt_FMT ": /runs/successor_box entry %" PetscInt_FMT " is %lld", r, q, (long long)buf[q]);
    rows[q] = (PetscInt)buf[q];
  }
  PetscCall(SRSuccessorListFromBoxes(cells, rows, C));
  PetscCall(PetscFree3(buf, rows, net));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final network, cells and index-box lists of run r, as stored together (their checksum
   must hold, else an error naming the file and run).  Independent. */
PetscErrorCode SRResultsReadFinal(SRResults res, PetscInt r, double *params, double *theta, int64_t *boxes)
{
  PetscBool ok, written;

  PetscFunctionBeginUser;
  PetscCheck(r >= 0 && r < res->lay.nruns, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "run %" PetscInt_FMT ": the results file has runs 0..%" PetscInt_FMT, r, res->lay.nruns - 1);
  PetscCall(SRResultsAbstractionChecked_Private(res, r, PETSC_FALSE, params, theta, boxes, &ok, &written));
  PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": the final network, cells and successor lists %s", res->filename, r, written ? "fail their checksum (the file is damaged)" : "were never written (the run has not finished)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final cells theta of run r (ntheta doubles; NaN if never written or failing its checksum). */
PetscErrorCode SRResultsReadCells(SRResults res, PetscInt r, double *theta)
{
  PetscFunctionBeginUser;
  PetscCall(ReadFinalOrNaN_Private(res, r, NULL, theta));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsReadRecheckCellIds(SRResults res, PetscInt r, PetscInt j, PetscInt *nstored, PetscInt64 *cells)
{
  const SRResultsLayout *lay = &res->lay;
  const PetscInt         w   = 2 + 3 * lay->ndim;
  hsize_t                start[3] = {(hsize_t)r, (hsize_t)j, 0}, count[3] = {1, 1, (hsize_t)(lay->nfail * w)};
  double                *row;

  PetscFunctionBeginUser;
  *nstored = 0;
  if (res->d[SR_RD_RECHECK_CELLS] < 0 || lay->nfail == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(r >= 0 && r < lay->nruns && j >= 0 && j < lay->nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "recheck cells: run %" PetscInt_FMT " row %" PetscInt_FMT " outside the file", r, j);
  PetscCall(PetscMalloc1(lay->nfail * w, &row));
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_RECHECK_CELLS], H5T_NATIVE_DOUBLE, 3, start, count, row, PETSC_FALSE));
  for (PetscInt i = 0; i < lay->nfail; i++) {
    const double c = row[i * w];
    if (!isfinite(c)) break;
    PetscCheck(c >= 0 && c < (double)lay->K && c == floor(c), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: /runs/recheck_cells run %" PetscInt_FMT " row %" PetscInt_FMT ": cell %g is not a cell index 0..%" PetscInt_FMT, res->filename, r, j, c, lay->K - 1);
    cells[(*nstored)++] = (PetscInt64)c;
  }
  PetscCall(PetscFree(row));
  PetscFunctionReturn(PETSC_SUCCESS);
}
