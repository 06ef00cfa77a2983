/* The schema of the results file (SPEC §9, §13; analysis/results-schema.md), in one place: the
   format version (results.h), the column names, every dataset's group, name, type, fill value,
   shape and `columns` attribute, the layout record that fixes the shapes and its checksum, and
   the size of a file.  The creator, the validator and the copier read these tables. */
#include <simreach/private/results_impl.h>
#include <string.h>

const char *const SRResultsCheckpointColumns[SR_CHECKPOINT_NFIELDS] = {"checkpoint", "epoch", "Lsim", "H", "task", "pred_error", "coverage", "succ_certified", "succ_minimal", "succ_empirical", "vol_E", "vol_union", "gap_min", "taulogn", "gap_max", "taulogN", "accepted", "rejected", "backtracked", "recheck_failures", "falsified", "Lencl", "H_train", "Lsim_heldout", "out_of_D", "succ_tight", "vol_E_tight", "succ_floor", "tao_reason", "theta_accepted", "theta_rejected", "theta_backtracked", "theta_moves", "theta_obj_before", "theta_obj_after", "theta_disp", "safe_C", "horizon_C", "safe_tight", "horizon_tight", "relist_grown", "safe_grid", "horizon_grid", "Lsim_ref_heldout", "safe_sim"};
/* wall is not a column of the table: it is not reproducible, so it lives in /runs/wall. */

const char *const SRSummaryColumns[SR_SUMMARY_NCOLS] = {"succ_reduction_mean", "succ_reduction_std", "volE_reduction_mean", "volE_reduction_std", "volU_reduction_mean", "volU_reduction_std", "dpred_error_mean", "dpred_error_std", "dcoverage_mean", "dcoverage_std", "spearman_mean", "spearman_std", "recheck_failures", "pred_error_mean", "coverage_mean", "succ_certified_mean", "vol_E_mean", "nseeds", "tight_reduction_mean", "tight_reduction_se", "volEtight_reduction_mean", "volEtight_reduction_se", "tight_reduction_accmatched_mean", "tight_reduction_accmatched_se", "volEtight_reduction_accmatched_mean", "volEtight_reduction_accmatched_se", "accmatched_pairs", "dLsim_heldout_mean", "dLsim_heldout_se", "dsucc_tight_mean", "dsucc_tight_se", "acted", "effect", "succ_tight_mean", "succ_floor_mean", "vol_E_tight_mean", "H_mean", "H_train_mean", "taulogN_mean", "succ_minimal_mean", "p_acted", "p_acted_holm", "p_effect", "p_effect_holm", "accmatched_interpolated", "dsafe_grid_mean", "dsafe_grid_se", "dsafe_grid_accmatched_mean", "dsafe_grid_accmatched_se", "safe_grid_accmatched_pairs", "dLsim_ref_mean", "dLsim_ref_se", "Lsim_ref_baseline_mean", "p_manipulation", "p_manipulation_holm", "spearman_c1_tau", "spearman_same_tau", "safe_sim_mean"};

void SRResultsPackCheckpoint(const SRCheckpoint *cp, double row[SR_CHECKPOINT_NFIELDS])
{
  const double v[SR_CHECKPOINT_NFIELDS] = {(double)cp->checkpoint, (double)cp->epoch, cp->Lsim, cp->H, cp->task, cp->pred_error, cp->coverage, cp->succ_certified, cp->succ_minimal, cp->succ_empirical, cp->vol_E, cp->vol_union, cp->gap_min, cp->taulogn, cp->gap_max, cp->taulogN, (double)cp->accepted, (double)cp->rejected, (double)cp->backtracked, (double)cp->recheck_failures, (double)cp->falsified, cp->Lencl, cp->H_train, cp->Lsim_heldout, cp->out_of_D, cp->succ_tight, cp->vol_E_tight, cp->succ_floor, (double)cp->tao_reason, (double)cp->theta_accepted, (double)cp->theta_rejected, (double)cp->theta_backtracked, (double)cp->theta_moves, cp->theta_obj_before, cp->theta_obj_after, cp->theta_disp, cp->safe_C, cp->horizon_C, cp->safe_tight, cp->horizon_tight, (double)cp->relist_grown, cp->safe_grid, cp->horizon_grid, cp->Lsim_ref, cp->safe_sim};
  memcpy(row, v, sizeof(v));
}

#define D3(a, b, c) {SR_DIM_##a, SR_DIM_##b, SR_DIM_##c}
const SRResultsSchema SRResultsSchemaGrid[SR_RESULTS_NGRID] = {
  {"beta", SR_RT_DOUBLE, SR_FILL_ZERO, 1, D3(BETA, ONE, ONE), NULL, PETSC_TRUE},
  {"tau", SR_RT_DOUBLE, SR_FILL_ZERO, 1, D3(TAU, ONE, ONE), NULL, PETSC_FALSE},
  {"seed", SR_RT_INT64, SR_FILL_ZERO, 1, D3(SEED, ONE, ONE), NULL, PETSC_FALSE},
  {"points", SR_RT_DOUBLE, SR_FILL_ZERO, 2, D3(RUNS, POINT, ONE), "beta,tau,seed", PETSC_FALSE},
};

/* need: the datasets whose absence names the file as damaged on open (SRResultsOpen) */
const SRResultsSchema SRResultsSchemaRuns[SR_RD_COUNT] = {
  [SR_RD_CHECKPOINTS]                  = {"checkpoints", SR_RT_DOUBLE, SR_FILL_NAN, 3, D3(RUNS, ROWS, FIELDS), SR_COLUMNS_CHECKPOINT, PETSC_TRUE},
  [SR_RD_WALL]                         = {"wall", SR_RT_DOUBLE, SR_FILL_NAN, 2, D3(RUNS, ROWS, ONE), NULL, PETSC_FALSE},
  [SR_RD_STATUS]                       = {"status", SR_RT_INT64, SR_FILL_ZERO, 1, D3(RUNS, ONE, ONE), NULL, PETSC_FALSE},
  [SR_RD_REASON]                       = {"reason", SR_RT_REASON, SR_FILL_ZERO, 1, D3(RUNS, ONE, ONE), NULL, PETSC_FALSE},
  [SR_RD_RESUME]                       = {"resume", SR_RT_INT64, SR_FILL_MINUS1, 2, D3(RUNS, SLOTS, ONE), NULL, PETSC_FALSE},
  [SR_RD_STATE_DOUBLE]                 = {"state_double", SR_RT_DOUBLE, SR_FILL_ZERO, 3, D3(RUNS, SLOTS, DSTATE), NULL, PETSC_TRUE},
  [SR_RD_STATE_INT]                    = {"state_int", SR_RT_INT64, SR_FILL_ZERO, 3, D3(RUNS, SLOTS, ISTATE), NULL, PETSC_FALSE},
  [SR_RD_NETWORK]                      = {"network", SR_RT_DOUBLE, SR_FILL_NAN, 2, D3(RUNS, PARAMS, ONE), NULL, PETSC_FALSE},
  [SR_RD_CELLS]                        = {"cells", SR_RT_DOUBLE, SR_FILL_NAN, 2, D3(RUNS, THETA, ONE), NULL, PETSC_FALSE},
  [SR_RD_CELLS_INITIAL]                = {"cells_initial", SR_RT_DOUBLE, SR_FILL_NAN, 2, D3(RUNS, THETA, ONE), NULL, PETSC_FALSE},
  /* C(k) as index boxes (SPEC §5): K rows of 2n + 1 (lo, hi, sink flag) per run */
  [SR_RD_SUCCESSOR_BOX]                = {"successor_box", SR_RT_INT64, SR_FILL_MINUS1, 3, D3(RUNS, CELLS, CAP), NULL, PETSC_TRUE},
  [SR_RD_SUCCESSOR_BOX_INITIAL]        = {"successor_box_initial", SR_RT_INT64, SR_FILL_MINUS1, 3, D3(RUNS, CELLS, CAP), NULL, PETSC_FALSE},
  /* the network at every checkpoint (SPEC §10) */
  [SR_RD_NETWORK_CHECKPOINTS]          = {"network_checkpoints", SR_RT_DOUBLE, SR_FILL_NAN, 3, D3(RUNS, ROWS, PARAMS), NULL, PETSC_FALSE},
  /* format 2: the row checksums (SRChecksum64; 0 = never written) */
  [SR_RD_CHECKPOINTS_CHECKSUM]         = {"checkpoints_checksum", SR_RT_UINT64, SR_FILL_ZERO, 2, D3(RUNS, ROWS, ONE), NULL, PETSC_TRUE},
  [SR_RD_NETWORK_CHECKPOINTS_CHECKSUM] = {"network_checkpoints_checksum", SR_RT_UINT64, SR_FILL_ZERO, 2, D3(RUNS, ROWS, ONE), NULL, PETSC_TRUE},
  /* SPEC §11: per-cell failures (cell, outcome, x, f(x) lo, hi); created only when nfail > 0 */
  [SR_RD_RECHECK_CELLS]                = {"recheck_cells", SR_RT_DOUBLE, SR_FILL_NAN, 3, D3(RUNS, ROWS, FAILREC), SR_COLUMNS_RECHECK, PETSC_FALSE},
  /* the final enclosures E_k (run's, then tightest) of every cell */
  [SR_RD_ENCLOSURES]                   = {"enclosures", SR_RT_DOUBLE, SR_FILL_NAN, 3, D3(RUNS, CELLS, ENCL), "run_lo[n],run_hi[n],tight_lo[n],tight_hi[n]", PETSC_FALSE},
  [SR_RD_ENCLOSURES_CHECKSUM]          = {"enclosures_checksum", SR_RT_UINT64, SR_FILL_ZERO, 1, D3(RUNS, ONE, ONE), NULL, PETSC_FALSE},
  [SR_RD_STATUS_CHECKSUM]              = {"status_checksum", SR_RT_UINT64, SR_FILL_ZERO, 1, D3(RUNS, ONE, ONE), NULL, PETSC_TRUE},
  [SR_RD_RESUME_CHECKSUM]              = {"resume_checksum", SR_RT_UINT64, SR_FILL_ZERO, 1, D3(RUNS, ONE, ONE), NULL, PETSC_TRUE},
  [SR_RD_STATE_CHECKSUM]               = {"state_checksum", SR_RT_UINT64, SR_FILL_ZERO, 2, D3(RUNS, SLOTS, ONE), NULL, PETSC_TRUE},
  [SR_RD_ABSTRACTION_CHECKSUM]         = {"abstraction_checksum", SR_RT_UINT64, SR_FILL_ZERO, 2, D3(RUNS, SLOTS, ONE), "initial,final", PETSC_TRUE},
};

const SRResultsSchema SRResultsSchemaSummary[SR_RESULTS_NSUMMARY] = {
  {"spearman_run", SR_RT_DOUBLE, SR_FILL_NAN, 1, D3(RUNS, ONE, ONE), NULL, PETSC_FALSE},
  {"spearman_tau", SR_RT_DOUBLE, SR_FILL_NAN, 1, D3(TAU, ONE, ONE), NULL, PETSC_FALSE},
  {"spearman_all", SR_RT_DOUBLE, SR_FILL_NAN, 1, D3(ONE, ONE, ONE), NULL, PETSC_FALSE},
  {"gap_ratio_max", SR_RT_DOUBLE, SR_FILL_NAN, 1, D3(ONE, ONE, ONE), NULL, PETSC_FALSE},
  {"table", SR_RT_DOUBLE, SR_FILL_NAN, 3, D3(BETA, TAU, SUMCOLS), SR_COLUMNS_SUMMARY, PETSC_FALSE},
  {"counts", SR_RT_INT64, SR_FILL_MINUS1, 1, D3(COUNTS, ONE, ONE), "recheck_failures,falsified,runs_done,runs_diverged", PETSC_FALSE},
  {"verdict", SR_RT_INT64, SR_FILL_MINUS1, 1, D3(VERDICT, ONE, ONE), "spearman_gt_0.8,reduction_ge_20pct,zero_containment_failures", PETSC_FALSE},
};
#undef D3

static hsize_t Extent_Private(SRResultsDim d, const SRResultsLayout *lay)
{
  switch (d) {
  case SR_DIM_RUNS:
    return (hsize_t)lay->nruns;
  case SR_DIM_ROWS:
    return (hsize_t)lay->nrows;
  case SR_DIM_FIELDS:
    return SR_CHECKPOINT_NFIELDS;
  case SR_DIM_SLOTS:
    return 2;
  case SR_DIM_DSTATE:
    return (hsize_t)lay->ndstate;
  case SR_DIM_ISTATE:
    return (hsize_t)lay->nistate;
  case SR_DIM_PARAMS:
    return (hsize_t)lay->nparams;
  case SR_DIM_THETA:
    return (hsize_t)lay->ntheta;
  case SR_DIM_CELLS:
    return (hsize_t)lay->K;
  case SR_DIM_CAP:
    return (hsize_t)lay->ncap;
  case SR_DIM_FAILREC:
    return (hsize_t)(lay->nfail * (2 + 3 * lay->ndim));
  case SR_DIM_ENCL:
    return (hsize_t)(4 * lay->ndim);
  case SR_DIM_BETA:
    return (hsize_t)lay->nbeta;
  case SR_DIM_TAU:
    return (hsize_t)lay->ntau;
  case SR_DIM_SEED:
    return (hsize_t)lay->nseed;
  case SR_DIM_POINT:
    return 3;
  case SR_DIM_SUMCOLS:
    return SR_SUMMARY_NCOLS;
  case SR_DIM_COUNTS:
    return 4;
  case SR_DIM_VERDICT:
    return 3;
  case SR_DIM_ONE:
    return 1;
  }
  return 0;
}

/* dims beyond the rank are 0 (as the shape check compares them) */
void SRResultsSchemaShape(const SRResultsSchema *s, const SRResultsLayout *lay, hsize_t dims[3])
{
  for (int d = 0; d < 3; d++) dims[d] = d < s->rank ? Extent_Private(s->dims[d], lay) : 0;
}

static PetscErrorCode JoinNames_Private(PetscInt n, const char *const names[], char *buf, size_t len)
{
  PetscFunctionBeginUser;
  buf[0] = 0;
  for (PetscInt i = 0; i < n; i++) {
    if (i) PetscCall(PetscStrlcat(buf, ",", len));
    PetscCall(PetscStrlcat(buf, names[i], len));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRResultsSchemaColumns(const SRResultsSchema *s, const SRResultsLayout *lay, char *buf, size_t len)
{
  PetscFunctionBeginUser;
  buf[0] = 0;
  if (!s->columns) PetscFunctionReturn(PETSC_SUCCESS);
  if (!strcmp(s->columns, SR_COLUMNS_CHECKPOINT)) PetscCall(JoinNames_Private(SR_CHECKPOINT_NFIELDS, SRResultsCheckpointColumns, buf, len));
  else if (!strcmp(s->columns, SR_COLUMNS_SUMMARY)) PetscCall(JoinNames_Private(SR_SUMMARY_NCOLS, SRSummaryColumns, buf, len));
  else if (!strcmp(s->columns, SR_COLUMNS_RECHECK)) PetscCall(PetscSNPrintf(buf, len, "cell,outcome,x[%" PetscInt_FMT "],fx_lo[%" PetscInt_FMT "],fx_hi[%" PetscInt_FMT "]", lay->ndim, lay->ndim, lay->ndim));
  else PetscCall(PetscStrncpy(buf, s->columns, len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRResultsLayoutRecord(const SRResultsLayout *lay, int64_t rec[SR_LAYOUT_RECORD])
{
  const int64_t v[SR_LAYOUT_RECORD] = {lay->nbeta, lay->ntau, lay->nseed, lay->nrows, lay->nparams, lay->ntheta, lay->K, lay->ncap, lay->ndstate, lay->nistate, lay->nfail, lay->ndim};
  memcpy(rec, v, sizeof(v));
}

void SRResultsLayoutFromRecord(const int64_t rec[SR_LAYOUT_RECORD], SRResultsLayout *lay)
{
  lay->nbeta   = (PetscInt)rec[0];
  lay->ntau    = (PetscInt)rec[1];
  lay->nseed   = (PetscInt)rec[2];
  lay->nrows   = (PetscInt)rec[3];
  lay->nparams = (PetscInt)rec[4];
  lay->ntheta  = (PetscInt)rec[5];
  lay->K       = (PetscInt)rec[6];
  lay->ncap    = (PetscInt)rec[7];
  lay->ndstate = (PetscInt)rec[8];
  lay->nistate = (PetscInt)rec[9];
  lay->nfail   = (PetscInt)rec[10];
  lay->ndim    = (PetscInt)rec[11];
}

uint64_t SRResultsLayoutChecksum(const SRResultsLayout *lay, const char canonical[])
{
  int64_t  rec[SR_LAYOUT_RECORD], seeds[SR_RESULTS_MAX_LIST];
  uint64_t h = SRChecksumSeed("layout", 0, 0);

  SRResultsLayoutRecord(lay, rec);
  for (PetscInt i = 0; i < lay->nseed && i < SR_RESULTS_MAX_LIST; i++) seeds[i] = lay->seed[i];
  h = SRChecksum64(rec, sizeof(rec), h);
  h = SRChecksum64(lay->beta, sizeof(double) * (size_t)lay->nbeta, h);
  h = SRChecksum64(lay->tau, sizeof(double) * (size_t)lay->ntau, h);
  h = SRChecksum64(seeds, sizeof(int64_t) * (size_t)lay->nseed, h);
  return SRChecksum64(canonical, strlen(canonical), h);
}

double SRResultsFileBytes(const SRResultsLayout *lay)
{
  const double R = (double)lay->nbeta * (double)lay->ntau * (double)lay->nseed, rows = (double)lay->nrows;
  double       per = 0;

  per += rows * (SR_CHECKPOINT_NFIELDS + 3);                     /* checkpoints, wall, 2 checksums */
  per += 1 + SR_RESULTS_REASON_LEN / 8 + 2 + 1 + 1 + 2 + 2;      /* status, reason, resume, checksums */
  per += 2.0 * ((double)lay->ndstate + (double)lay->nistate);   /* state slots */
  per += (double)lay->nparams * (1.0 + rows);                   /* final network, one per checkpoint */
  per += 2.0 * (double)lay->ntheta;                             /* cells, cells_initial */
  per += 2.0 * (double)lay->K * (double)lay->ncap;              /* successor boxes, final and initial */
  per += 4.0 * (double)lay->ndim * (double)lay->K + 1;          /* final enclosures and their checksum */
  per += 1;                                                     /* spearman_run */
  return 8.0 * R * per + 8.0 * ((double)lay->nbeta * (double)lay->ntau * (SR_SUMMARY_NCOLS + 2) + 3.0 * R) + 1e6;
}
