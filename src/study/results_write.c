/* Writing rows of a results file (SPEC §9, §13): independent raw-data writes from one rank;
   every row's checksum is written after the row, so a kill in between leaves the row "never
   written" (analysis/results-schema.md). */
#include <simreach/private/results_impl.h>
#include <simreach/private/h5attr.h>
#include <math.h>

PetscErrorCode SRResultsWriteCheckpoint(SRResults res, PetscInt r, const SRCheckpoint *cp)
{
  double   row[SR_CHECKPOINT_NFIELDS], wall = cp->wall;
  hsize_t  start[3] = {(hsize_t)r, (hsize_t)cp->checkpoint, 0}, count[3] = {1, 1, SR_CHECKPOINT_NFIELDS};
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCheck(cp->checkpoint >= 0 && cp->checkpoint < res->lay.nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "checkpoint %" PetscInt_FMT " outside the table (0..%" PetscInt_FMT ")", cp->checkpoint, res->lay.nrows - 1);
  SRResultsPackCheckpoint(cp, row);
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_CHECKPOINTS], H5T_NATIVE_DOUBLE, 3, start, count, row, PETSC_TRUE));
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_WALL], H5T_NATIVE_DOUBLE, 2, start, count, &wall, PETSC_TRUE));
  /* the checksum after the row: a kill in between leaves the row "never written" */
  sum = SRResultsRowSum_Private("checkpoints", r, cp->checkpoint, row, sizeof(row));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_CHECKPOINTS_CHECKSUM], 2, r, cp->checkpoint, &sum, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteState(SRResults res, PetscInt r, PetscInt slot, const double *d, const PetscInt *i)
{
  int64_t *buf;
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(res->lay.nistate + 1, &buf));
  for (PetscInt k = 0; k < res->lay.nistate; k++) buf[k] = i[k];
  PetscCall(SRResultsState_Private(res, r, slot, (double *)d, buf, PETSC_TRUE));
  /* i[0] is the checkpoint the state follows (the study's convention); the resume index says which */
  sum = SRResultsStateSum_Private(res, r, slot, d, buf);
  PetscCall(SRResultsSum_Private(res->d[SR_RD_STATE_CHECKSUM], 2, r, slot, &sum, PETSC_TRUE));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteResume(SRResults res, PetscInt r, PetscInt last, PetscInt slot)
{
  int64_t  rs[2] = {last, slot};
  hsize_t  start[2] = {(hsize_t)r, 0}, count[2] = {1, 2};
  uint64_t sum = SRResultsRowSum_Private("resume", r, 0, rs, sizeof(rs));

  PetscFunctionBeginUser;
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_RESUME], H5T_NATIVE_INT64, 2, start, count, rs, PETSC_TRUE));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_RESUME_CHECKSUM], 1, r, 0, &sum, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteStatus(SRResults res, PetscInt r, PetscInt status, const char reason[])
{
  int64_t  st = status;
  char     buf[SR_RESULTS_REASON_LEN];
  hsize_t  start[1] = {(hsize_t)r}, count[1] = {1};
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(buf, sizeof(buf)));
  if (reason) PetscCall(PetscStrncpy(buf, reason, sizeof(buf)));
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_REASON], res->strtype, 1, start, count, buf, PETSC_TRUE));
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_STATUS], H5T_NATIVE_INT64, 1, start, count, &st, PETSC_TRUE));
  sum = SRChecksum64(buf, sizeof(buf), SRResultsRowSum_Private("status", r, 0, &st, sizeof(st)));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_STATUS_CHECKSUM], 1, r, 0, &sum, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteAbstraction(SRResults res, PetscInt r, PetscBool initial, const double *params, const double *theta, const PetscInt *boxes)
{
  const SRResultsLayout *lay = &res->lay;
  int64_t               *buf;
  double                *net;
  uint64_t               sum;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(lay->K * lay->ncap + 1, &buf, lay->nparams + 1, &net));
  for (PetscInt q = 0; q < lay->K * lay->ncap; q++) buf[q] = boxes[q];
  /* the final rows without a network keep the fill value NaN there */
  for (PetscInt k = 0; k < lay->nparams; k++) net[k] = params ? params[k] : NAN;
  PetscCall(SRResultsAbstraction_Private(res, r, initial, net, (double *)theta, buf, PETSC_TRUE, &sum));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_ABSTRACTION_CHECKSUM], 2, r, initial ? 0 : 1, &sum, PETSC_TRUE));
  PetscCall(PetscFree2(buf, net));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The final enclosures of run r: K rows of 4n doubles (run's lo, hi; tightest lo, hi) under
   one checksum (tag "enclosures").  A file without the dataset (written before it existed)
   is left as it is. */
PetscErrorCode SRResultsWriteEnclosures(SRResults res, PetscInt r, const double *E)
{
  const SRResultsLayout *lay = &res->lay;
  hsize_t                start[3] = {(hsize_t)r, 0, 0}, count[3] = {1, (hsize_t)lay->K, (hsize_t)(4 * lay->ndim)};
  uint64_t               sum;

  PetscFunctionBeginUser;
  if (res->d[SR_RD_ENCLOSURES] < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_ENCLOSURES], H5T_NATIVE_DOUBLE, 3, start, count, (void *)E, PETSC_TRUE));
  sum = SRResultsRowSum_Private("enclosures", r, 0, E, sizeof(double) * (size_t)(4 * lay->ndim * lay->K));
  PetscCall(SRResultsSum_Private(res->d[SR_RD_ENCLOSURES_CHECKSUM], 1, r, 0, &sum, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteCheckpointNetwork(SRResults res, PetscInt r, PetscInt row, const double *params)
{
  hsize_t  start[3] = {(hsize_t)r, (hsize_t)row, 0}, count[3] = {1, 1, (hsize_t)res->lay.nparams};
  uint64_t sum;

  PetscFunctionBeginUser;
  PetscCheck(row >= 0 && row < res->lay.nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "checkpoint %" PetscInt_FMT " outside 0..%" PetscInt_FMT, row, res->lay.nrows - 1);
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_NETWORK_CHECKPOINTS], H5T_NATIVE_DOUBLE, 3, start, count, (void *)params, PETSC_TRUE));
  sum = SRResultsRowSum_Private("network_checkpoints", r, row, params, sizeof(double) * (size_t)res->lay.nparams);
  PetscCall(SRResultsSum_Private(res->d[SR_RD_NETWORK_CHECKPOINTS_CHECKSUM], 2, r, row, &sum, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteRecheckCells(SRResults res, PetscInt r, PetscInt j, PetscInt nf, const SRRecheckCellResult *f)
{
  const SRResultsLayout *lay = &res->lay;
  const PetscInt         n = lay->ndim, w = 2 + 3 * n;
  hsize_t                start[3] = {(hsize_t)r, (hsize_t)j, 0}, count[3] = {1, 1, (hsize_t)(lay->nfail * w)};
  double                *row;

  PetscFunctionBeginUser;
  if (res->d[SR_RD_RECHECK_CELLS] < 0 || lay->nfail == 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCheck(j >= 0 && j < lay->nrows, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "recheck cells: row %" PetscInt_FMT " outside 0..%" PetscInt_FMT, j, lay->nrows - 1);
  PetscCall(PetscMalloc1(lay->nfail * w, &row));
  for (PetscInt q = 0; q < lay->nfail * w; q++) row[q] = NAN;
  for (PetscInt i = 0; i < PetscMin(nf, lay->nfail); i++) {
    double *e = row + i * w;
    e[0]      = (double)f[i].cell;
    e[1]      = (double)f[i].outcome;
    for (PetscInt d = 0; d < n; d++) {
      e[2 + d]         = f[i].x[d];
      e[2 + n + d]     = f[i].fxlo[d];
      e[2 + 2 * n + d] = f[i].fxhi[d];
    }
  }
  PetscCall(SRResultsHyperslab_Private(res->d[SR_RD_RECHECK_CELLS], H5T_NATIVE_DOUBLE, 3, start, count, row, PETSC_TRUE));
  PetscCall(PetscFree(row));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode WriteWhole_Private(hid_t f, const char name[], hid_t memtype, int rank, const hsize_t *count, const void *buf)
{
  hid_t   d;
  hsize_t start[3] = {0, 0, 0};

  PetscFunctionBeginUser;
  SRCallHDF5Id(d, H5Dopen2(f, name, H5P_DEFAULT));
  PetscCall(SRResultsHyperslab_Private(d, memtype, rank, start, count, (void *)buf, PETSC_TRUE));
  SRCallHDF5(H5Dclose(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective on the file's communicator (attribute changes are metadata, which parallel HDF5
   writes collectively): which rule and which positive control the stored verdict stands on
   (SPEC §9: the verdict with the control is stored in the file and the report reads it). */
PetscErrorCode SRResultsWriteVerdictSource(SRResults res, const SRSummary *s)
{
  const int64_t ver = SR_SUMMARY_RULE_VERSION, det = s->control_detected;
  hid_t         d;

  PetscFunctionBeginUser;
  PetscCheck(res->write, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "results file opened read-only");
  SRCallHDF5Id(d, H5Dopen2(res->file, "/summary/verdict", H5P_DEFAULT));
  for (int a = 0; a < 3; a++) {
    const char *nm = a == 0 ? "rule_version" : (a == 1 ? "control" : "control_detected");
    if (H5Aexists(d, nm) > 0) SRCallHDF5(H5Adelete(d, nm));
  }
  PetscCall(SRH5AttrWrite(d, "rule_version", H5T_NATIVE_INT64, 1, &ver));
  PetscCall(SRH5AttrWriteString(d, "control", s->control ? s->control : ""));
  PetscCall(SRH5AttrWrite(d, "control_detected", H5T_NATIVE_INT64, 1, &det));
  SRCallHDF5(H5Dclose(d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsWriteSummary(SRResults res, const SRSummary *s)
{
  const SRResultsLayout *lay = &res->lay;
  hsize_t                c[3];
  int64_t                counts[4] = {s->failures, s->falsified, s->runs_done, s->runs_diverged}, verdict[3] = {s->verdict[0], s->verdict[1], s->verdict[2]};

  PetscFunctionBeginUser;
  PetscCheck(res->write, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "results file opened read-only");
  c[0] = (hsize_t)lay->nruns;
  PetscCall(WriteWhole_Private(res->file, "/summary/spearman_run", H5T_NATIVE_DOUBLE, 1, c, s->spearman_run));
  c[0] = (hsize_t)lay->ntau;
  PetscCall(WriteWhole_Private(res->file, "/summary/spearman_tau", H5T_NATIVE_DOUBLE, 1, c, s->spearman_tau));
  c[0] = 1;
  PetscCall(WriteWhole_Private(res->file, "/summary/spearman_all", H5T_NATIVE_DOUBLE, 1, c, &s->spearman_all));
  PetscCall(WriteWhole_Private(res->file, "/summary/gap_ratio_max", H5T_NATIVE_DOUBLE, 1, c, &s->gap_ratio_max));
  c[0] = (hsize_t)lay->nbeta;
  c[1] = (hsize_t)lay->ntau;
  c[2] = SR_SUMMARY_NCOLS;
  PetscCall(WriteWhole_Private(res->file, "/summary/table", H5T_NATIVE_DOUBLE, 3, c, s->table));
  c[0] = 4;
  PetscCall(WriteWhole_Private(res->file, "/summary/counts", H5T_NATIVE_INT64, 1, c, counts));
  c[0] = 3;
  PetscCall(WriteWhole_Private(res->file, "/summary/verdict", H5T_NATIVE_INT64, 1, c, verdict));
  PetscFunctionReturn(PETSC_SUCCESS);
}
