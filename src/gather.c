/* The gather phase of SPEC §9: Spearman(L_sim, H) across checkpoints, reductions against the
   beta = 0 baseline of the same (tau, seed), accuracy and coverage costs, containment
   failures and the tau log n gap, computed from the results file alone. */
#include <simreach/private/results.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

enum { C_CK = 0, C_LSIM = 2, C_H = 3, C_PRED = 5, C_COV = 6, C_SUCC = 7, C_VOLE = 10, C_VOLU = 11, C_GMIN = 12, C_TLN = 13, C_GMAX = 14, C_TLNN = 15, C_FAIL = 19, C_FALS = 20 };
enum { S_SUCC = 0, S_VOLE = 2, S_VOLU = 4, S_DPRED = 6, S_DCOV = 8, S_SPEAR = 10, S_FAIL = 12, S_PRED = 13, S_COV = 14, S_SUCCM = 15, S_VOLEM = 16, S_NSEED = 17 };

/* Average ranks (1-based) of x, ties sharing the mean of their positions. */
static PetscErrorCode AverageRanks_Private(PetscInt n, const double *x, double *rank)
{
  PetscInt *perm;
  double   *v;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(n, &perm, n, &v));
  for (PetscInt i = 0; i < n; i++) {
    perm[i] = i;
    v[i]    = x[i];
  }
  PetscCall(PetscSortRealWithPermutation(n, v, perm));
  for (PetscInt i = 0; i < n;) {
    PetscInt j = i + 1;
    while (j < n && x[perm[j]] == x[perm[i]]) j++;
    for (PetscInt k = i; k < j; k++) rank[perm[k]] = 0.5 * (double)(i + j - 1) + 1.0;
    i = j;
  }
  PetscCall(PetscFree2(perm, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Pearson correlation of the average ranks (what scipy.stats.spearmanr computes). */
double SRSpearman(PetscInt n, const double *x, const double *y)
{
  double *rx, *ry, mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;

  if (n < 2) return NAN;
  for (PetscInt i = 0; i < n; i++)
    if (!isfinite(x[i]) || !isfinite(y[i])) return NAN;
  if (PetscMalloc2(n, &rx, n, &ry)) return NAN;
  if (AverageRanks_Private(n, x, rx) || AverageRanks_Private(n, y, ry)) {
    (void)PetscFree2(rx, ry);
    return NAN;
  }
  for (PetscInt i = 0; i < n; i++) {
    mx += rx[i];
    my += ry[i];
  }
  mx /= n;
  my /= n;
  for (PetscInt i = 0; i < n; i++) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  (void)PetscFree2(rx, ry);
  if (sxx == 0 || syy == 0) return NAN; /* a constant series has no rank correlation */
  return sxy / sqrt(sxx * syy);
}

/* Mean and sample standard deviation (n - 1; 0 for one value) of the finite entries. */
static void MeanStd_Private(PetscInt n, const double *v, double *mean, double *std, PetscInt *used)
{
  double   s = 0, q = 0;
  PetscInt m = 0;

  for (PetscInt i = 0; i < n; i++)
    if (isfinite(v[i])) {
      s += v[i];
      m++;
    }
  *used = m;
  if (!m) {
    *mean = *std = NAN;
    return;
  }
  *mean = s / m;
  for (PetscInt i = 0; i < n; i++)
    if (isfinite(v[i])) q += (v[i] - *mean) * (v[i] - *mean);
  *std = m > 1 ? sqrt(q / (m - 1)) : 0.0;
}

static double Reduction_Private(double s, double s0) { return (isfinite(s) && isfinite(s0) && s0 != 0) ? 1.0 - s / s0 : NAN; }

typedef struct {
  PetscInt status, nvalid, failures, falsified;
  double   final[SR_CHECKPOINT_NFIELDS];
} RunInfo_Private;

PetscErrorCode SRGatherResults(SRResults res, PetscBool write, PetscViewer viewer)
{
  const SRResultsLayout *lay;
  MPI_Comm               comm;
  PetscMPIInt            rank;
  PetscInt               R, nr, ntau, nbeta, nseed, ib0 = -1, best_ib = -1, best_it = -1;
  double                *tables, *lx, *ly, best = -INFINITY;
  PetscInt               npool = 0, *poolcount;
  RunInfo_Private       *info;
  SRSummary              s;

  PetscFunctionBeginUser;
  PetscCall(SRResultsGetLayout(res, &lay));
  PetscCall(PetscObjectGetComm((PetscObject)viewer, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  R     = lay->nruns;
  nr    = lay->nrows;
  ntau  = lay->ntau;
  nbeta = lay->nbeta;
  nseed = lay->nseed;
  for (PetscInt ib = 0; ib < nbeta; ib++)
    if (lay->beta[ib] == 0 && ib0 < 0) ib0 = ib;
  PetscCall(PetscMalloc4(R * nr * SR_CHECKPOINT_NFIELDS, &tables, R, &info, R * nr, &lx, R * nr, &ly));
  PetscCall(PetscCalloc1(ntau, &poolcount));
  PetscCall(PetscMemzero(&s, sizeof(s)));
  PetscCall(PetscMalloc3(R, &s.spearman_run, ntau, &s.spearman_tau, nbeta * ntau * SR_SUMMARY_NCOLS, &s.table));
  s.gap_ratio_max = 0;

  /* Per run: valid rows (checkpoint column written), Spearman, final row, failure counts. */
  for (PetscInt r = 0; r < R; r++) {
    double         *T = tables + r * nr * SR_CHECKPOINT_NFIELDS;
    PetscInt        last, slot, m = 0;
    RunInfo_Private *ri = &info[r];

    PetscCall(SRResultsReadRunInfo(res, r, &ri->status, &last, &slot));
    PetscCall(SRResultsReadCheckpoints(res, r, T));
    ri->failures = ri->falsified = 0;
    for (PetscInt f = 0; f < SR_CHECKPOINT_NFIELDS; f++) ri->final[f] = NAN;
    for (PetscInt j = 0; j < nr; j++) {
      const double *row = T + j * SR_CHECKPOINT_NFIELDS;
      if (!isfinite(row[C_CK])) continue;
      lx[m] = row[C_LSIM];
      ly[m] = row[C_H];
      m++;
      ri->failures += (PetscInt)row[C_FAIL];
      ri->falsified += (PetscInt)row[C_FALS];
      for (PetscInt f = 0; f < SR_CHECKPOINT_NFIELDS; f++) ri->final[f] = row[f];
      if (row[C_TLN] > 0 && isfinite(row[C_GMIN])) s.gap_ratio_max = PetscMax(s.gap_ratio_max, row[C_GMIN] / row[C_TLN]);
      if (row[C_TLNN] > 0 && isfinite(row[C_GMAX])) s.gap_ratio_max = PetscMax(s.gap_ratio_max, row[C_GMAX] / row[C_TLNN]);
    }
    ri->nvalid = m;
    s.spearman_run[r] = SRSpearman(m, lx, ly);
    s.failures += ri->failures;
    s.falsified += ri->falsified;
    s.runs_done += ri->status == SR_RUN_DONE;
    s.runs_diverged += ri->status == SR_RUN_DIVERGED;
  }
  /* Pooled Spearman per tau and over everything (SPEC §9). */
  for (PetscInt it = 0; it < ntau; it++) {
    PetscInt m = 0;
    for (PetscInt ib = 0; ib < nbeta; ib++)
      for (PetscInt is = 0; is < nseed; is++) {
        PetscInt r = (ib * ntau + it) * nseed + is;
        for (PetscInt j = 0; j < nr; j++) {
          const double *row = tables + (r * nr + j) * SR_CHECKPOINT_NFIELDS;
          if (!isfinite(row[C_CK])) continue;
          lx[m] = row[C_LSIM];
          ly[m] = row[C_H];
          m++;
        }
      }
    s.spearman_tau[it] = SRSpearman(m, lx, ly);
    poolcount[it]      = m;
  }
  for (PetscInt r = 0; r < R; r++)
    for (PetscInt j = 0; j < nr; j++) {
      const double *row = tables + (r * nr + j) * SR_CHECKPOINT_NFIELDS;
      if (!isfinite(row[C_CK])) continue;
      lx[npool] = row[C_LSIM];
      ly[npool] = row[C_H];
      npool++;
    }
  s.spearman_all = SRSpearman(npool, lx, ly);

  /* Per (beta, tau): statistics over seeds of the final checkpoint against the baseline. */
  for (PetscInt ib = 0; ib < nbeta; ib++)
    for (PetscInt it = 0; it < ntau; it++) {
      double  *row = s.table + (ib * ntau + it) * SR_SUMMARY_NCOLS;
      double   v[9][SR_RESULTS_MAX_LIST];
      PetscInt used, fails = 0;
      for (PetscInt is = 0; is < nseed; is++) {
        PetscInt      r  = (ib * ntau + it) * nseed + is;
        const double *f  = info[r].final;
        PetscBool     ok = info[r].status == SR_RUN_DONE;
        const double *f0 = NULL;
        if (ib0 >= 0 && info[(ib0 * ntau + it) * nseed + is].status == SR_RUN_DONE) f0 = info[(ib0 * ntau + it) * nseed + is].final;
        v[0][is] = ok && f0 ? Reduction_Private(f[C_SUCC], f0[C_SUCC]) : NAN;
        v[1][is] = ok && f0 ? Reduction_Private(f[C_VOLE], f0[C_VOLE]) : NAN;
        v[2][is] = ok && f0 ? Reduction_Private(f[C_VOLU], f0[C_VOLU]) : NAN;
        v[3][is] = ok && f0 ? f[C_PRED] - f0[C_PRED] : NAN;
        v[4][is] = ok && f0 ? f[C_COV] - f0[C_COV] : NAN;
        v[5][is] = s.spearman_run[r];
        v[6][is] = ok ? f[C_PRED] : NAN;
        v[7][is] = ok ? f[C_COV] : NAN;
        v[8][is] = ok ? f[C_SUCC] : NAN;
        fails += info[r].failures + info[r].falsified;
      }
      MeanStd_Private(nseed, v[0], &row[S_SUCC], &row[S_SUCC + 1], &used);
      MeanStd_Private(nseed, v[1], &row[S_VOLE], &row[S_VOLE + 1], &used);
      MeanStd_Private(nseed, v[2], &row[S_VOLU], &row[S_VOLU + 1], &used);
      MeanStd_Private(nseed, v[3], &row[S_DPRED], &row[S_DPRED + 1], &used);
      MeanStd_Private(nseed, v[4], &row[S_DCOV], &row[S_DCOV + 1], &used);
      MeanStd_Private(nseed, v[5], &row[S_SPEAR], &row[S_SPEAR + 1], &used);
      row[S_FAIL] = (double)fails;
      {
        double dummy;
        MeanStd_Private(nseed, v[6], &row[S_PRED], &dummy, &used);
        MeanStd_Private(nseed, v[7], &row[S_COV], &dummy, &used);
        MeanStd_Private(nseed, v[8], &row[S_SUCCM], &dummy, &used);
        for (PetscInt is = 0; is < nseed; is++) v[8][is] = info[(ib * ntau + it) * nseed + is].status == SR_RUN_DONE ? info[(ib * ntau + it) * nseed + is].final[C_VOLE] : NAN;
        MeanStd_Private(nseed, v[8], &row[S_VOLEM], &dummy, &used);
        row[S_NSEED] = (double)used;
      }
      if (lay->beta[ib] > 0) {
        double red = PetscMax(isfinite(row[S_SUCC]) ? row[S_SUCC] : -INFINITY, PetscMax(isfinite(row[S_VOLE]) ? row[S_VOLE] : -INFINITY, isfinite(row[S_VOLU]) ? row[S_VOLU] : -INFINITY));
        if (red > best) {
          best    = red;
          best_ib = ib;
          best_it = it;
        }
      }
    }
  s.verdict[0] = 1;
  for (PetscInt it = 0; it < ntau; it++)
    if (!(s.spearman_tau[it] > 0.8)) s.verdict[0] = 0;
  s.verdict[1] = best >= 0.2;
  s.verdict[2] = s.failures == 0 && s.falsified == 0;

  if (write && rank == 0) PetscCall(SRResultsWriteSummary(res, &s));

  /* The printed table (SPEC §9): criterion by criterion, and what it cost. */
  PetscCall(PetscViewerASCIIPrintf(viewer, "simreach gather: %" PetscInt_FMT " runs (%" PetscInt_FMT " done, %" PetscInt_FMT " diverged), %" PetscInt_FMT " checkpoint rows\n", R, s.runs_done, s.runs_diverged, npool));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%8s %8s %16s %16s %16s %18s %18s %9s %7s\n", "beta", "tau", "succ red.", "vol(E) red.", "vol(UC) red.", "d pred_error", "d coverage", "Spearman", "fails"));
  for (PetscInt ib = 0; ib < nbeta; ib++)
    for (PetscInt it = 0; it < ntau; it++) {
      const double *row = s.table + (ib * ntau + it) * SR_SUMMARY_NCOLS;
      PetscCall(PetscViewerASCIIPrintf(viewer, "%8.4g %8.4g %7.1f%%+-%5.1f%% %7.1f%%+-%5.1f%% %7.1f%%+-%5.1f%% %+9.2e+-%7.1e %+9.3f+-%7.3f %9.4f %7.0f\n", lay->beta[ib], lay->tau[it], 100 * row[S_SUCC], 100 * row[S_SUCC + 1], 100 * row[S_VOLE], 100 * row[S_VOLE + 1], 100 * row[S_VOLU], 100 * row[S_VOLU + 1], row[S_DPRED], row[S_DPRED + 1], row[S_DCOV], row[S_DCOV + 1], row[S_SPEAR], row[S_FAIL]));
    }
  PetscCall(PetscViewerASCIIPrintf(viewer, "(reductions 1 - S_beta/S_0 and changes S_beta - S_0 against beta = 0 of the same tau and seed: mean +- sample std over seeds, final checkpoint)\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "Criterion 1, Spearman(L_sim, H) > 0.8 across checkpoints, pooled per tau:"));
  for (PetscInt it = 0; it < ntau; it++) PetscCall(PetscViewerASCIIPrintf(viewer, " tau=%g: %.4f (%" PetscInt_FMT " pts)", lay->tau[it], s.spearman_tau[it], poolcount[it]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "; all: %.4f -> %s\n", s.spearman_all, s.verdict[0] ? "HOLDS" : "DOES NOT HOLD"));
  if (best_ib >= 0) {
    const double *row = s.table + (best_ib * ntau + best_it) * SR_SUMMARY_NCOLS;
    PetscCall(PetscViewerASCIIPrintf(viewer, "Criterion 2, >= 20%% fewer successors OR less volume than beta = 0: best beta=%g tau=%g, successors %.1f%%, vol(E) %.1f%%, vol(UC) %.1f%% -> %s\n", lay->beta[best_ib], lay->tau[best_it], 100 * row[S_SUCC], 100 * row[S_VOLE], 100 * row[S_VOLU], s.verdict[1] ? "HOLDS" : "DOES NOT HOLD"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  cost there: prediction error %+.3e (beta=0 %.3e -> %.3e), eps-coverage %+.3f (-> %.3f)\n", row[S_DPRED], row[S_PRED] - row[S_DPRED], row[S_PRED], row[S_DCOV], row[S_COV]));
  } else PetscCall(PetscViewerASCIIPrintf(viewer, "Criterion 2, >= 20%% fewer successors OR less volume than beta = 0: no beta > 0 run with a baseline -> DOES NOT HOLD\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "Criterion 3, zero containment failures: %" PetscInt_FMT " re-check failures, %" PetscInt_FMT " falsified cells -> %s\n", s.failures, s.falsified, s.verdict[2] ? "HOLDS" : "DOES NOT HOLD"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "tau log n check: max measured gap / (tau log n) = %.4f -> %s\n", s.gap_ratio_max, s.gap_ratio_max <= 1.0 + 1e-12 ? "bound holds" : "BOUND VIOLATED"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "Predicted signature: %s\n", s.verdict[0] && s.verdict[1] && s.verdict[2] ? "HOLDS" : "DOES NOT HOLD"));

  PetscCall(PetscFree3(s.spearman_run, s.spearman_tau, s.table));
  PetscCall(PetscFree(poolcount));
  PetscCall(PetscFree4(tables, info, lx, ly));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRGatherFile(MPI_Comm comm, const char filename[], PetscViewer viewer)
{
  SRResults res;

  PetscFunctionBeginUser;
  PetscCall(SRResultsOpen(comm, filename, PETSC_FALSE, &res));
  PetscCall(SRGatherResults(res, PETSC_FALSE, viewer ? viewer : PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(SRResultsDestroy(&res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRGatherMerge(MPI_Comm comm, PetscInt nfiles, char *const files[], const char output[], PetscBool force, PetscViewer viewer)
{
  SRResults             *in, out;
  const SRResultsLayout *lay, *l;
  const char            *canon0, *canon;
  char                  *options;
  PetscMPIInt            rank;
  int                    exists = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(nfiles >= 1, comm, PETSC_ERR_ARG_WRONG, "-merge: give the slice files, comma-separated");
  if (rank == 0) exists = access(output, F_OK) == 0;
  PetscCallMPI(MPI_Bcast(&exists, 1, MPI_INT, 0, comm));
  PetscCheck(!exists || force, comm, PETSC_ERR_FILE_OPEN, "-merge: the output file %s exists; give -force to overwrite it (it was left untouched)", output);
  PetscCall(PetscMalloc1(nfiles, &in));
  for (PetscInt f = 0; f < nfiles; f++) PetscCall(SRResultsOpen(comm, files[f], PETSC_FALSE, &in[f]));
  PetscCall(SRResultsGetLayout(in[0], &lay));
  PetscCall(SRResultsGetCanonicalOptions(in[0], &canon0));
  for (PetscInt f = 1; f < nfiles; f++) {
    PetscCall(SRResultsGetLayout(in[f], &l));
    PetscCall(SRResultsGetCanonicalOptions(in[f], &canon));
    PetscCheck(!strcmp(canon, canon0) && l->nruns == lay->nruns && l->nrows == lay->nrows && l->ndstate == lay->ndstate && l->nistate == lay->nistate && l->nparams == lay->nparams && l->ntheta == lay->ntheta, comm, PETSC_ERR_ARG_INCOMP,
               "-merge: %s and %s are not slices of the same study (different options)", files[0], files[f]);
  }
  /* every run from a slice that finished it */
  PetscInt *from;
  PetscCall(PetscMalloc1(lay->nruns, &from));
  for (PetscInt r = 0; r < lay->nruns; r++) {
    from[r] = -1;
    for (PetscInt f = 0; f < nfiles && from[r] < 0; f++) {
      PetscInt st, last, slot;
      PetscCall(SRResultsReadRunInfo(in[f], r, &st, &last, &slot));
      if (st == SR_RUN_DONE || st == SR_RUN_DIVERGED) from[r] = f;
    }
    PetscCheck(from[r] >= 0, comm, PETSC_ERR_ARG_WRONG, "-merge: run %" PetscInt_FMT " (beta %g, tau %g, seed %" PetscInt_FMT ") is finished in none of the slice files; resume its slice first", r, lay->beta[r / (lay->nseed * lay->ntau)], lay->tau[(r / lay->nseed) % lay->ntau], lay->seed[r % lay->nseed]);
  }
  PetscCall(SRResultsGetOptionsText(in[0], &options));
  PetscCall(SRResultsCreateNew(comm, output, lay, options, canon0, &out));
  PetscCall(PetscFree(options));
  if (rank == 0)
    for (PetscInt r = 0; r < lay->nruns; r++) PetscCall(SRResultsCopyRun(in[from[r]], out, r));
  PetscCall(PetscFree(from));
  for (PetscInt f = 0; f < nfiles; f++) PetscCall(SRResultsDestroy(&in[f]));
  PetscCall(PetscFree(in));
  PetscCall(SRResultsDestroy(&out));
  PetscCall(SRResultsOpen(comm, output, PETSC_TRUE, &out));
  PetscCall(SRGatherResults(out, PETSC_TRUE, viewer));
  PetscCall(SRResultsDestroy(&out));
  PetscFunctionReturn(PETSC_SUCCESS);
}
