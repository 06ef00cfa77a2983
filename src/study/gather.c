/* The gather phase of SPEC §9: Spearman(L_sim, H) across checkpoints, reductions against the
   beta = 0 baseline of the same (tau, seed), accuracy and coverage costs, containment
   failures and the tau log n gap, computed from the results file alone. */
#include <simreach/private/results.h>
#include <petsctao.h>
#include <math.h>
#include <string.h>
#include <stdio.h>
#include <simreach/private/filelock.h>
#include <simreach/private/gather_match.h>
#include <simreach/private/gather_impl.h>

/* A setting's value as C's %g writes it (PETSc's printf writes 3 as "3."); buf holds 32 chars. */
static const char *SRG_Private(char *buf, double v)
{
  snprintf(buf, 32, "%g", v);
  return buf;
}


/* The guard on phi (SPEC §8): accepted / rejected Adam steps per run (cumulative at the run's
   last checkpoint) and, with -relist checkpoint, the cells whose C(k) grew at a re-listing.
   One line per (beta, tau) with each seed's accepted/rejected, then the fraction of runs that
   accepted at least half of their steps. */
enum { C_ACC = 16, C_REJ = 17, C_GROWN = 40 };
static PetscErrorCode PhiGuard_Private(const SRResultsLayout *lay, const double *tables, PetscViewer viewer)
{
  const PetscInt nr = lay->nrows;
  PetscInt       half = 0, nrun = 0, grown = 0;
  char           b[32], t[32];

  PetscFunctionBeginUser;
  PetscCall(PetscViewerASCIIPrintf(viewer, "Guard on phi (SPEC §8): Adam steps accepted/rejected per run (seeds in order), cells whose C(k) grew at the checkpoint re-listings\n"));
  for (PetscInt ib = 0; ib < lay->nbeta; ib++)
    for (PetscInt it = 0; it < lay->ntau; it++) {
      char     line[1024] = "";
      size_t   used       = 0;
      PetscInt g          = 0;
      for (PetscInt is = 0; is < lay->nseed; is++) {
        const double *T = tables + (size_t)((ib * lay->ntau + it) * lay->nseed + is) * nr * SR_CHECKPOINT_NFIELDS, *last = NULL;
        for (PetscInt j = 0; j < nr; j++) {
          const double *rw = T + j * SR_CHECKPOINT_NFIELDS;
          if (!isfinite(rw[C_CK])) continue;
          last = rw;
          if (j > 0 && isfinite(rw[C_GROWN])) g += (PetscInt)rw[C_GROWN];
        }
        if (last && used < sizeof(line) - 40) used += (size_t)snprintf(line + used, sizeof(line) - used, " %lld/%lld", (long long)last[C_ACC], (long long)last[C_REJ]);
        else if (used < sizeof(line) - 40) used += (size_t)snprintf(line + used, sizeof(line) - used, " -");
        if (last) {
          nrun++;
          if (last[C_ACC] >= last[C_REJ]) half++;
        }
      }
      grown += g;
      PetscCall(PetscViewerASCIIPrintf(viewer, "  beta=%s tau=%s:%s; C(k) grew %" PetscInt_FMT " times\n", SRG_Private(b, lay->beta[ib]), SRG_Private(t, lay->tau[it]), line, g));
    }
  PetscCall(PetscViewerASCIIPrintf(viewer, "  %" PetscInt_FMT " of %" PetscInt_FMT " runs accepted at least half of their phi steps; C(k) grew %" PetscInt_FMT " times in all\n", half, nrun, grown));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cell solve over every run (SPEC §8): theta moves accepted / rejected / backtracked (each
   run's last counters), intervals with a move that counts (theta_moves rose), and TAO's reasons
   over the intervals with a solve (tao_reason != 0); analysis/report.py has them per (beta, tau). */
enum { C_TAO = 28, C_THACC = 29, C_THREJ = 30, C_THBT = 31, C_THMOV = 32 };
static PetscErrorCode CellSolve_Private(const SRResultsLayout *lay, const double *tables, PetscViewer viewer)
{
  const PetscInt nr = lay->nrows, R = lay->nbeta * lay->ntau * lay->nseed;
  PetscInt       acc = 0, rej = 0, bt = 0, counted = 0, nint = 0, nsolve = 0, nconv = 0, nreason[32] = {0};
  char           buf[512] = "";

  PetscFunctionBeginUser;
  for (PetscInt r = 0; r < R; r++) {
    const double *T = tables + (size_t)r * nr * SR_CHECKPOINT_NFIELDS, *last = NULL;
    double        prev = 0;
    for (PetscInt j = 0; j < nr; j++) {
      const double *rw = T + j * SR_CHECKPOINT_NFIELDS;
      if (!isfinite(rw[C_CK]) || rw[C_CK] < 1) continue;
      last = rw;
      nint++;
      if (rw[C_THMOV] > prev) counted++;
      prev = rw[C_THMOV];
      if (rw[C_TAO] != 0) {
        const PetscInt q = (PetscInt)rw[C_TAO];
        nsolve++;
        if (q > 0) nconv++;
        if (q >= -8 && q <= 8) nreason[q + 16]++;
      }
    }
    if (last) {
      acc += (PetscInt)last[C_THACC];
      rej += (PetscInt)last[C_THREJ];
      bt += (PetscInt)last[C_THBT];
    }
  }
  for (PetscInt q = -8; q <= 8; q++) /* the TaoConvergedReason range of PETSc */
    if (nreason[q + 16]) {
      size_t len;
      PetscCall(PetscStrlen(buf, &len));
      PetscCall(PetscSNPrintf(buf + len, sizeof(buf) - len, "%s%s %" PetscInt_FMT, len ? ", " : "", TaoConvergedReasons[q], nreason[q + 16]));
    }
  PetscCall(PetscViewerASCIIPrintf(viewer, "Cell solve (SPEC §8): theta moves %" PetscInt_FMT " accepted, %" PetscInt_FMT " rejected, %" PetscInt_FMT " backtracked; %" PetscInt_FMT " of %" PetscInt_FMT " checkpoint intervals with a move that counts; TAO converged in %" PetscInt_FMT " of %" PetscInt_FMT " solves (%s)\n", acc, rej, bt, counted, nint, nconv, nsolve, nsolve ? buf : "no solve"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The closed-loop answer (SPEC §9): the verified-safe fraction and mean horizon on the
   -safe_cells grid, per (beta, tau) mean +- SE over seeds, and the paired change of the
   verified-safe fraction against the beta = 0 run of the same (tau, seed): at the same (final)
   checkpoint and accuracy-matched by the matching of criterion 2 (gather_match.h) among the
   rows that carry the grid answer (the final one, and every -safe_every m-th).  Fills S_DSAFEG
   .. S_NSAFEGA. */
static PetscErrorCode ClosedLoopAnswer_Private(const SRResultsLayout *lay, const double *tables, const SRGatherRun *info, double *table, PetscViewer viewer)
{
  const PetscInt nr = lay->nrows, ntau = lay->ntau, nseed = lay->nseed, NF = SR_CHECKPOINT_NFIELDS;
  PetscInt       ib0 = -1, rows = 0, withgrid = 0;

  PetscFunctionBeginUser;
  for (PetscInt ib = 0; ib < lay->nbeta; ib++)
    if (lay->beta[ib] == 0 && ib0 < 0) ib0 = ib;
  for (PetscInt r = 0; r < lay->nruns; r++)
    for (PetscInt j = 0; j < nr; j++) {
      const double *rw = tables + ((size_t)r * nr + j) * NF;
      rows += isfinite(rw[C_CK]) ? 1 : 0;
      withgrid += isfinite(rw[C_CK]) && isfinite(rw[C_SAFEG]) ? 1 : 0;
    }
  /* not applicable (SPEC §9): -model dynamics (a learned world model) or -safe_cells 0 */
  if (!withgrid) PetscCall(PetscViewerASCIIPrintf(viewer, "Closed-loop answer (SPEC §9): not applicable, no run stored one (-model dynamics: the network is a learned world model, whose verified-safe set is the model's, not the system's; or -safe_cells 0)\n"));
  else {
    PetscCall(PetscViewerASCIIPrintf(viewer, "Closed-loop answer (SPEC §9): network verified on the -safe_cells grid (%" PetscInt_FMT " of %" PetscInt_FMT " checkpoint rows have it%s), mean+-SE over seeds; change of the verified-safe fraction against beta = 0 (same tau, seed), same checkpoint | accuracy-matched (pairs):\n", withgrid, rows, withgrid <= lay->nruns ? ": the final checkpoint only (-safe_every m adds every m-th), so an accuracy-matched pair needs the baseline's final row to be as inaccurate as the run" : "; accuracy matching among the rows that have it"));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  beta    tau       safe        sim. safe (ceiling)    horizon          d safe (same ck.)   d safe (acc.-matched)\n"));
  }
  for (PetscInt ib = 0; ib < lay->nbeta; ib++)
    for (PetscInt it = 0; it < ntau; it++) {
      double  *row = table + (ib * ntau + it) * SR_SUMMARY_NCOLS;
      double   v[3][SR_RESULTS_MAX_LIST], d[2][SR_RESULTS_MAX_LIST], m[3], se[3];
      PetscInt used, npair;
      for (PetscInt is = 0; is < nseed; is++) {
        const PetscInt         r = (ib * ntau + it) * nseed + is, r0 = ib0 >= 0 ? (ib0 * ntau + it) * nseed + is : -1;
        const SRGatherRun *ri = &info[r];
        const PetscBool        ok = (PetscBool)(ri->status == SR_RUN_DONE && r0 >= 0 && info[r0].status == SR_RUN_DONE && lay->beta[ib] > 0);
        v[0][is] = ri->status == SR_RUN_DONE ? ri->final[C_SAFEG] : NAN;
        v[1][is] = ri->status == SR_RUN_DONE ? ri->final[C_HORG] : NAN;
        v[2][is] = ri->status == SR_RUN_DONE ? ri->final[SRG_SAFESIM] : NAN; /* its ceiling (SPEC §9) */
        d[0][is] = d[1][is] = NAN;
        if (ok) {
          const double *T = tables + (size_t)r * nr * NF, *T0 = tables + (size_t)r0 * nr * NF;
          SRMatch       mt;
          double        tv, bv;
          d[0][is] = ri->final[C_SAFEG] - info[r0].final[C_SAFEG];
          /* the matching of criterion 2 over the rows that carry the grid answer (-safe_every) */
          SRAccuracyMatch(nr, NF, C_SAFEG, C_PRED, T, T0, &mt);
          bv       = SRAccuracyMatchValue(&mt, NF, C_SAFEG, T, T0, &tv);
          d[1][is] = tv - bv;
        }
      }
      for (int q = 0; q < 3; q++) SRGatherMeanSE_Private(nseed, v[q], &m[q], &se[q], &used);
      row[SRG_S_SAFESIM] = m[2];
      SRGatherMeanSE_Private(nseed, d[0], &row[S_DSAFEG], &row[S_DSAFEG + 1], &used);
      SRGatherMeanSE_Private(nseed, d[1], &row[S_DSAFEGA], &row[S_DSAFEGA + 1], &npair);
      row[S_NSAFEGA] = (double)npair;
      if (!withgrid) continue;
      if (lay->beta[ib] == 0) PetscCall(PetscViewerASCIIPrintf(viewer, "%6.4g %6.4g %.4f+-%.4f %.4f+-%.4f %7.3f+-%.3f   (baseline)\n", lay->beta[ib], lay->tau[it], m[0], se[0], m[2], se[2], m[1], se[1]));
      else PetscCall(PetscViewerASCIIPrintf(viewer, "%6.4g %6.4g %.4f+-%.4f %.4f+-%.4f %7.3f+-%.3f   %+.4f+-%.4f      %+.4f+-%.4f (%" PetscInt_FMT ")\n", lay->beta[ib], lay->tau[it], m[0], se[0], m[2], se[2], m[1], se[1], row[S_DSAFEG], row[S_DSAFEG + 1], row[S_DSAFEGA], row[S_DSAFEGA + 1], npair));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Does the study claim soundness for its lists (SPEC §8, §11)?  Not with -guard none on free
   boxes (-cells_param boxes) or narrow cells (-cells_width < 1, the published-check setting),
   which may leave gaps no successor covers: criterion 3 is then NOT TESTED.  Read from the file's options (the run's defaults: -guard reject, -cells_param
   partition). */
static PetscErrorCode GatherSoundnessClaimed_Private(SRResults res, PetscBool *claims)
{
  char        *text, guard[32] = "reject", param[32] = "partition";
  PetscOptions opts;
  PetscBool    none, boxes;
  PetscReal    width = 1.0;

  PetscFunctionBeginUser;
  PetscCall(SRResultsGetOptionsText(res, &text));
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsInsertString(opts, text));
  PetscCall(PetscOptionsGetString(opts, NULL, "-guard", guard, sizeof(guard), NULL));
  PetscCall(PetscOptionsGetString(opts, NULL, "-cells_param", param, sizeof(param), NULL));
  PetscCall(PetscOptionsGetReal(opts, NULL, "-cells_width", &width, NULL)); /* < 1: the published-check setting (SPEC §9) */
  PetscCall(PetscOptionsDestroy(&opts));
  PetscCall(PetscFree(text));
  PetscCall(PetscStrcasecmp(guard, "none", &none));
  PetscCall(PetscStrcasecmp(param, "boxes", &boxes));
  *claims = (PetscBool)!(none && (boxes || width < 1.0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRGatherResults(SRResults res, PetscBool write, PetscViewer viewer)
{
  const SRResultsLayout *lay;
  MPI_Comm               comm;
  PetscMPIInt            rank;
  PetscInt               R, nr, ntau, nbeta, nseed, ib0 = -1, best_ib = -1, best_it = -1;
  double                *tables, *lx, *ly, best = -INFINITY;
  PetscInt               npool = 0, *poolcount, nacted, neffect, ntested, nset;
  double                *same, *tlnn, *hmean;
  PetscBool              has_control = PETSC_FALSE, control_detected = PETSC_FALSE;
  SRGatherRun       *info;
  SRSummary              s;
  PetscBool              claims = PETSC_TRUE;
  PetscInt               c3_runs, c3_falsified, c3_unknown;

  char gb[32], gt[32]; /* SRG_Private buffers */
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
    SRGatherRun *ri = &info[r];

    PetscCall(SRResultsReadRunInfo(res, r, &ri->status, &last, &slot));
    PetscCall(SRResultsReadCheckpoints(res, r, T));
    ri->failures = ri->falsified = 0;
    for (PetscInt f = 0; f < SR_CHECKPOINT_NFIELDS; f++) ri->final[f] = NAN;
    for (PetscInt j = 0; j < nr; j++) {
      const double *row = T + j * SR_CHECKPOINT_NFIELDS;
      if (!isfinite(row[C_CK])) continue;
      m++;
      ri->failures += (PetscInt)row[C_FAIL];
      ri->falsified += (PetscInt)row[C_FALS];
      for (PetscInt f = 0; f < SR_CHECKPOINT_NFIELDS; f++) ri->final[f] = row[f];
      if (row[C_TLN] > 0 && isfinite(row[C_GMIN])) s.gap_ratio_max = PetscMax(s.gap_ratio_max, row[C_GMIN] / row[C_TLN]);
      if (row[C_TLNN] > 0 && isfinite(row[C_GMAX])) s.gap_ratio_max = PetscMax(s.gap_ratio_max, row[C_GMAX] / row[C_TLNN]);
    }
    ri->nvalid = m;
    npool += m;
    s.failures += ri->failures;
    s.falsified += ri->falsified;
    s.runs_done += ri->status == SR_RUN_DONE;
    s.runs_diverged += ri->status == SR_RUN_DIVERGED;
  }
  /* Criterion 1 (SPEC §9, turn 4): the training L_sim against the held-out H, per run, pooled per
     tau and over everything; the same-sample pair beside it (gather_manipulation.c). */
  PetscCall(PetscMalloc1(ntau, &same));
  SRGatherCriterion1(lay, tables, lx, ly, s.spearman_run, s.spearman_tau, same, poolcount, &s.spearman_all);

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
        v[0][is] = ok && f0 ? SRGatherReduction_Private(f[C_SUCC], f0[C_SUCC]) : NAN;
        v[1][is] = ok && f0 ? SRGatherReduction_Private(f[C_VOLE], f0[C_VOLE]) : NAN;
        v[2][is] = ok && f0 ? SRGatherReduction_Private(f[C_VOLU], f0[C_VOLU]) : NAN;
        v[3][is] = ok && f0 ? f[C_PRED] - f0[C_PRED] : NAN;
        v[4][is] = ok && f0 ? f[C_COV] - f0[C_COV] : NAN;
        v[5][is] = s.spearman_run[r];
        v[6][is] = ok ? f[C_PRED] : NAN;
        v[7][is] = ok ? f[C_COV] : NAN;
        v[8][is] = ok ? f[C_SUCC] : NAN;
        fails += info[r].failures; /* cells not proven (falsified ones included) */
      }
      SRGatherMeanStd_Private(nseed, v[0], &row[S_SUCC], &row[S_SUCC + 1], &used);
      SRGatherMeanStd_Private(nseed, v[1], &row[S_VOLE], &row[S_VOLE + 1], &used);
      SRGatherMeanStd_Private(nseed, v[2], &row[S_VOLU], &row[S_VOLU + 1], &used);
      SRGatherMeanStd_Private(nseed, v[3], &row[S_DPRED], &row[S_DPRED + 1], &used);
      SRGatherMeanStd_Private(nseed, v[4], &row[S_DCOV], &row[S_DCOV + 1], &used);
      SRGatherMeanStd_Private(nseed, v[5], &row[S_SPEAR], &row[S_SPEAR + 1], &used);
      row[S_FAIL] = (double)fails;
      {
        double dummy;
        SRGatherMeanStd_Private(nseed, v[6], &row[S_PRED], &dummy, &used);
        SRGatherMeanStd_Private(nseed, v[7], &row[S_COV], &dummy, &used);
        SRGatherMeanStd_Private(nseed, v[8], &row[S_SUCCM], &dummy, &used);
        for (PetscInt is = 0; is < nseed; is++) v[8][is] = info[(ib * ntau + it) * nseed + is].status == SR_RUN_DONE ? info[(ib * ntau + it) * nseed + is].final[C_VOLE] : NAN;
        SRGatherMeanStd_Private(nseed, v[8], &row[S_VOLEM], &dummy, &used);
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
  /* Criterion 1 needs >= 3 checkpoints per run and a finished run (SPEC §9) */
  if (nr - 1 < 3 || s.runs_done == 0) s.verdict[0] = -1;
  /* Criterion 3 (SPEC §11): over the rows of the runs that claim soundness (a guard, or cells
     that cover D), 1 HOLDS with 0 falsified and 0 unknown, 0 DOES NOT HOLD with a falsified
     cell, 2 NOT FULLY VERIFIED with unknown cells only; -1 NOT TESTED when no such run finished. */
  PetscCall(GatherSoundnessClaimed_Private(res, &claims));
  c3_runs = c3_falsified = c3_unknown = 0;
  for (PetscInt r = 0; r < R; r++) {
    if (!claims) continue;
    c3_falsified += info[r].falsified;
    c3_unknown += info[r].failures - info[r].falsified;
    c3_runs += info[r].status == SR_RUN_DONE;
  }
  if (!claims || c3_runs == 0) s.verdict[2] = -1;
  else if (c3_falsified > 0) s.verdict[2] = 0;
  else if (c3_unknown > 0) s.verdict[2] = 2;
  else s.verdict[2] = 1;

  /* The printed table (SPEC §9): criterion by criterion, and what it cost. */
  PetscCall(PetscViewerASCIIPrintf(viewer, "simreach gather: %" PetscInt_FMT " runs (%" PetscInt_FMT " done, %" PetscInt_FMT " diverged), %" PetscInt_FMT " checkpoint rows\n", R, s.runs_done, s.runs_diverged, npool));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%8s %8s %16s %16s %16s %18s %18s %9s %7s\n", "beta", "tau", "succ red.", "vol(E) red.", "vol(UC) red.", "d pred_error", "d coverage", "Spearman", "fails"));
  for (PetscInt ib = 0; ib < nbeta; ib++)
    for (PetscInt it = 0; it < ntau; it++) {
      const double *row = s.table + (ib * ntau + it) * SR_SUMMARY_NCOLS;
      PetscCall(PetscViewerASCIIPrintf(viewer, "%8.4g %8.4g %7.1f%%+-%5.1f%% %7.1f%%+-%5.1f%% %7.1f%%+-%5.1f%% %+9.2e+-%7.1e %+9.3f+-%7.3f %9.4f %7.0f\n", lay->beta[ib], lay->tau[it], 100 * row[S_SUCC], 100 * row[S_SUCC + 1], 100 * row[S_VOLE], 100 * row[S_VOLE + 1], 100 * row[S_VOLU], 100 * row[S_VOLU + 1], row[S_DPRED], row[S_DPRED + 1], row[S_DCOV], row[S_DCOV + 1], row[S_SPEAR], row[S_FAIL]));
    }
  PetscCall(PetscViewerASCIIPrintf(viewer, "(reductions 1 - S_beta/S_0 and changes S_beta - S_0 against beta = 0 of the same tau and seed: mean +- sample std over seeds, final checkpoint)\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "Criterion 1, Spearman(training L_sim, held-out H) > 0.8 across checkpoints, pooled per tau:"));
  for (PetscInt it = 0; it < ntau; it++) PetscCall(PetscViewerASCIIPrintf(viewer, " tau=%s: %.4f (%" PetscInt_FMT " pts)", SRG_Private(gt, lay->tau[it]), s.spearman_tau[it], poolcount[it]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "; all: %.4f -> %s\n", s.spearman_all, s.verdict[0] == 1 ? "HOLDS" : (s.verdict[0] == 0 ? "DOES NOT HOLD" : (nr - 1 < 3 ? "NOT TESTED (fewer than 3 checkpoints per run)" : "NOT TESTED (no run finished)"))));
  {
    /* SPEC §9: the same-sample pair (held-out L_sim, held-out H) as the surrogate-fidelity check,
       next to the tau log n bound that alone makes it near 1 at small tau */
    PetscCall(PetscMalloc2(ntau, &tlnn, ntau, &hmean));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  beside it, surrogate fidelity on the same held-out samples, Spearman(held-out L_sim, held-out H), with the mean tau log N against the mean H:"));
    for (PetscInt it = 0; it < ntau; it++) {
      double   vt[2] = {0, 0};
      PetscInt nt    = 0;
      for (PetscInt r = 0; r < R; r++)
        if ((r / nseed) % ntau == it)
          for (PetscInt j = 0; j < nr; j++) {
            const double *row = tables + (r * nr + j) * SR_CHECKPOINT_NFIELDS;
            if (!isfinite(row[C_CK])) continue;
            vt[0] += row[C_TLNN];
            vt[1] += row[C_H];
            nt++;
          }
      tlnn[it]  = nt ? vt[0] / nt : NAN;
      hmean[it] = nt ? vt[1] / nt : NAN;
      PetscCall(PetscViewerASCIIPrintf(viewer, " tau=%s: %.4f (tau log N %.3g vs H %.3g)", SRG_Private(gt, lay->tau[it]), same[it], tlnn[it], hmean[it]));
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "\n"));
    for (PetscInt q = 0; q < nbeta * ntau; q++) {
      s.table[q * SR_SUMMARY_NCOLS + SRG_S_SPC1]   = s.spearman_tau[q % ntau];
      s.table[q * SR_SUMMARY_NCOLS + SRG_S_SPSAME] = same[q % ntau];
    }
    PetscCall(PetscFree2(tlnn, hmean));
  }
  /* Criterion 2 (SPEC §9): 1 HOLDS when a setting whose treatment acted shows the effect;
     -1 NOT TESTED when no treatment acted, when no acted setting could be tested, or when
     a null has no detected positive control; 0 DOES NOT HOLD otherwise. */
  PetscCall(SRGatherManipulation(lay, info, s.table, &nacted, &nset));
  PetscCall(SRGatherCriterion2_Private(lay, tables, info, s.table, PETSC_FALSE, &nacted, &neffect, &ntested));
  {
    char control[PETSC_MAX_PATH_LEN] = "";
    PetscCall(PetscOptionsGetString(NULL, NULL, "-control", control, sizeof(control), &has_control));
    if (has_control) {
      const char *canon;
      PetscCall(SRResultsGetCanonicalOptions(res, &canon));
      PetscCall(SRGatherPositiveControl_Private(comm, control, canon, viewer, &control_detected));
    }
  }
  {
    char      ttab[PETSC_MAX_PATH_LEN] = "";
    PetscBool has_ttab;
    PetscCall(PetscOptionsGetString(NULL, NULL, "-baseline", ttab, sizeof(ttab), &has_ttab));
    if (has_ttab) PetscCall(SRGatherTrainThenAbstract_Private(comm, ttab, lay, info, viewer));
  }
  s.control          = NULL;
  s.control_detected = -1;
  if (has_control) {
    static char cpath[PETSC_MAX_PATH_LEN];
    PetscCall(PetscOptionsGetString(NULL, NULL, "-control", cpath, sizeof(cpath), NULL));
    s.control          = cpath;
    s.control_detected = control_detected ? 1 : 0;
  }
  if (neffect > 0) s.verdict[1] = 1;
  else if (nacted == 0 || ntested == 0 || !control_detected) s.verdict[1] = -1;
  else s.verdict[1] = 0;
  PetscCall(SRGatherManipulationView(lay, s.table, nacted, nset, viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "Criterion 2 and the manipulation check (SPEC §9), final checkpoint, paired by seed against beta = 0 of the same tau: mean +- standard error over seeds\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "%6s %6s %6s %8s %8s %19s %19s %15s %15s %15s %15s %4s %4s %8s %8s %8s %6s %6s %6s %6s %9s %9s %1s\n", "beta", "tau", "acted", "p", "p Holm", "d L_sim(yardst.)", "d |M_tight|", "|M_tight| red.", "vol(Et) red.", "|M_t| red. acc", "vol(Et) r. acc", "acc", "int", "effect", "p", "p Holm", "|F|", "|M_t|", "|M|", "|C|", "pred", "H", "!"));
  for (PetscInt ib = 0; ib < nbeta; ib++)
    for (PetscInt it = 0; it < ntau; it++) {
      const double *row  = s.table + (ib * ntau + it) * SR_SUMMARY_NCOLS;
      const char   *act  = row[S_ACTED] == 1 ? "yes" : (row[S_ACTED] == 0 ? "NO" : "-");
      const char   *eff  = row[S_EFFECT] == 1 ? "yes" : (row[S_EFFECT] == 0 ? "no" : (lay->beta[ib] > 0 && row[S_ACTED] == 1 ? "n/t" : "-"));
      const char   *flag = row[S_TLNNM] > row[S_HM] ? "*" : "";
      PetscCall(PetscViewerASCIIPrintf(viewer, "%6.4g %6.4g %6s %8.2g %8.2g %+9.2e+-%7.1e %+9.3f+-%7.3f %6.1f%%+-%5.1f%% %6.1f%%+-%5.1f%% %6.1f%%+-%5.1f%% %6.1f%%+-%5.1f%% %4.0f %4.0f %8s %8.2g %8.2g %6.3f %6.3f %6.3f %6.3f %9.3e %9.3e %1s\n", lay->beta[ib], lay->tau[it], act, row[S_PACT], row[S_PACTH], row[SRG_S_DLREF], row[SRG_S_DLREF + 1], row[S_DTIGHT], row[S_DTIGHT + 1], 100 * row[S_TRED], 100 * row[S_TRED + 1], 100 * row[S_VTRED], 100 * row[S_VTRED + 1], 100 * row[S_TREDA], 100 * row[S_TREDA + 1], 100 * row[S_VTREDA], 100 * row[S_VTREDA + 1], row[S_NACC], row[S_NINTERP], eff, row[S_PEFF], row[S_PEFFH], row[S_FLOORM], row[S_TIGHTM], row[S_MINM], row[S_SUCCM], row[S_PRED], row[S_HM], flag));
    }
  PetscCall(PetscViewerASCIIPrintf(viewer, "(acted: the manipulation check above -- the drop of held-out L_sim on the common yardstick (d L_sim(yardst.)), one-sided paired t, p and p Holm over the settings, beyond 1 %% of the baseline; d |M_tight|: for information; acc: accuracy-matched pairs, against the baseline checkpoint whose prediction error is closest to and not better than the run's; int: of these, pairs where every baseline checkpoint was more accurate, so the baseline's value is interpolated along its checkpoints at the prediction error of the run's latest checkpoint that the baseline's checkpoints bracket; effect: only where the treatment acted, mean reduction >= 20 %% in both comparisons and the larger one-sided p of the two significant after Holm over the acted settings, for |M_tight| or vol(E_tight); n/t: not testable; -: did not act; |F| floor, |M_t| tightest, |M| run's enclosure, |C| certified; * tau log N > H)\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "(the manipulation check is a family of %" PetscInt_FMT " tests: at 5 %% each without correction about %.1f would pass by chance; Holm keeps the chance that any passes under the null at 5 %%)\n", nset, 0.05 * (double)nset));
  {
    /* negative control (SPEC §9): baselines differing only in seed, seed s+1 against seed s */
    PetscInt nneg = 0, ntau_neg = 0;
    if (ib0 >= 0 && nseed >= 3) {
      for (PetscInt it = 0; it < ntau; it++) {
        double   vt[SR_RESULTS_MAX_LIST], vv[SR_RESULTS_MAX_LIST], mt, st, mv, sv;
        PetscInt ut, uv;
        for (PetscInt is = 0; is < nseed; is++) {
          const SRGatherRun *a = &info[(ib0 * ntau + it) * nseed + (is + 1) % nseed], *b0 = &info[(ib0 * ntau + it) * nseed + is];
          const PetscBool        ok = (PetscBool)(a->status == SR_RUN_DONE && b0->status == SR_RUN_DONE);
          vt[is] = ok ? SRGatherReduction_Private(a->final[C_TIGHT], b0->final[C_TIGHT]) : NAN;
          vv[is] = ok ? SRGatherReduction_Private(a->final[C_VOLT], b0->final[C_VOLT]) : NAN;
        }
        SRGatherMeanSE_Private(nseed, vt, &mt, &st, &ut);
        SRGatherMeanSE_Private(nseed, vv, &mv, &sv, &uv);
        ntau_neg++;
        if (SRGatherEffect_Private(mt, st, ut) || SRGatherEffect_Private(mv, sv, uv)) nneg++;
        PetscCall(PetscViewerASCIIPrintf(viewer, "Negative control tau=%s (beta = 0, seed s+1 against seed s): |M_tight| red. %.1f%%+-%.1f%%, vol(E_tight) red. %.1f%%+-%.1f%%\n", SRG_Private(gt, lay->tau[it]), 100 * mt, 100 * st, 100 * mv, 100 * sv));
      }
      PetscCall(PetscViewerASCIIPrintf(viewer, "Negative control: %" PetscInt_FMT " of %" PetscInt_FMT " show an effect beyond the spread -> %s\n", nneg, ntau_neg, nneg ? "FAILED (the effect criterion fires on seed noise)" : "passes"));
    } else PetscCall(PetscViewerASCIIPrintf(viewer, "Negative control: needs beta = 0 and >= 3 seeds -> not run\n"));
  }
  {
    const char *why = s.verdict[1] == 1 ? "" : (nacted == 0 ? " (no treatment acted)" : (ntested == 0 ? " (no acted setting could be tested: seeds or accuracy-matched pairs missing)" : (!has_control ? " (a null without a positive control: give gather -control FILE)" : (!control_detected ? " (the positive control was not detected)" : ""))));
    PetscCall(PetscViewerASCIIPrintf(viewer, "Criterion 2, >= 20%% less |M_tight| or vol(E_tight) than beta = 0, same checkpoint and accuracy-matched, in a setting that acted: %" PetscInt_FMT " of %" PetscInt_FMT " settings acted, %" PetscInt_FMT " testable, %" PetscInt_FMT " show the effect -> %s%s\n", nacted, ib0 >= 0 ? (nbeta - 1) * ntau : 0, ntested, neffect, s.verdict[1] == 1 ? "HOLDS" : (s.verdict[1] == 0 ? "DOES NOT HOLD" : "NOT TESTED"), why));
  }
  if (best_ib >= 0) {
    const double *row = s.table + (best_ib * ntau + best_it) * SR_SUMMARY_NCOLS;
    PetscCall(PetscViewerASCIIPrintf(viewer, "  (the run's own enclosure and lists, best setting beta=%s tau=%s: |C| %.1f%%, vol(E) %.1f%%, vol(UC) %.1f%% less; prediction error %+.3e (beta=0 %.3e -> %.3e), eps-coverage %+.3f (-> %.3f))\n", SRG_Private(gb, lay->beta[best_ib]), SRG_Private(gt, lay->tau[best_it]), 100 * row[S_SUCC], 100 * row[S_VOLE], 100 * row[S_VOLU], row[S_DPRED], row[S_PRED] - row[S_DPRED], row[S_PRED], row[S_DCOV], row[S_COV]));
  }
  PetscCall(ClosedLoopAnswer_Private(lay, tables, info, s.table, viewer));
  PetscCall(PhiGuard_Private(lay, tables, viewer));
  PetscCall(CellSolve_Private(lay, tables, viewer));
  if (!claims)
    PetscCall(PetscViewerASCIIPrintf(viewer, "Criterion 3, every stored cell proven sound (SPEC §11): -guard none on cells that may leave gaps claims no soundness (%" PetscInt_FMT " falsified, %" PetscInt_FMT " unknown cell-checkpoints, for information) -> NOT TESTED\n", s.falsified, s.failures - s.falsified));
  else
    PetscCall(PetscViewerASCIIPrintf(viewer, "Criterion 3, every stored cell proven sound (SPEC §11): %" PetscInt_FMT " falsified, %" PetscInt_FMT " unknown cell-checkpoints over %" PetscInt_FMT " finished runs -> %s\n", c3_falsified, c3_unknown, c3_runs,
                                     s.verdict[2] == 1 ? "HOLDS" : (s.verdict[2] == 0 ? "DOES NOT HOLD" : (s.verdict[2] == 2 ? "NOT FULLY VERIFIED" : "NOT TESTED (no run finished)"))));
  PetscCall(PetscViewerASCIIPrintf(viewer, "tau log n check: max measured gap / (tau log n) = %.4f -> %s\n", s.gap_ratio_max, s.gap_ratio_max <= 1.0 + 1e-12 ? "bound holds" : "BOUND VIOLATED"));
  {
    const PetscBool any_no = (PetscBool)(s.verdict[0] == 0 || s.verdict[1] == 0 || s.verdict[2] == 0);
    const PetscBool all_yes = (PetscBool)(s.verdict[0] == 1 && s.verdict[1] == 1 && s.verdict[2] == 1);
    const PetscBool unverified = (PetscBool)(s.verdict[2] == 2 && s.verdict[0] != -1 && s.verdict[1] != -1);
    PetscCall(PetscViewerASCIIPrintf(viewer, "Predicted signature: %s\n", all_yes ? "HOLDS" : (any_no ? "DOES NOT HOLD" : (unverified ? "NOT FULLY VERIFIED" : "NOT TESTED"))));
  }
  if (write && rank == 0) PetscCall(SRResultsWriteSummary(res, &s));
  if (write) PetscCall(SRResultsWriteVerdictSource(res, &s)); /* collective: metadata */

  PetscCall(PetscFree3(s.spearman_run, s.spearman_tau, s.table));
  PetscCall(PetscFree(poolcount));
  PetscCall(PetscFree(same));
  PetscCall(PetscFree4(tables, info, lx, ly));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRGatherFile(MPI_Comm comm, const char filename[], PetscViewer viewer)
{
  SRResults res;

  PetscMPIInt            rank;
  PetscInt               count[2] = {0, 0}; /* unfinished runs, rows failing their checksums */
  PetscBool              store;
  SRFileLock             lock = NULL;
  const SRResultsLayout *lay;

  PetscFunctionBeginUser;
  if (!viewer) viewer = PETSC_VIEWER_STDOUT_(comm);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  /* validated as -resume does: format, version, shapes (SRResultsOpen), then every row's checksum */
  /* with -control the verdict is stored in the file (SPEC §9, issue 21): the file is opened for
     writing under the study's lock, so no study writes it at the same time */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-control", &store));
  if (store) { /* a /summary of another shape is refused in one line before any work (SPEC §13) */
    PetscCall(SRResultsOpen(comm, filename, PETSC_FALSE, &res));
    PetscCall(SRResultsCheckSummaryShapes(res));
    PetscCall(SRResultsDestroy(&res));
    PetscCall(SRFileLockAcquire(comm, filename, &lock));
  }
  PetscCall(SRResultsOpen(comm, filename, store, &res));
  PetscCall(SRResultsGetLayout(res, &lay));
  if (rank == 0)
    for (PetscInt r = 0; r < lay->nruns; r++) {
      SRResultsRunCheck chk;
      PetscCall(SRResultsCheckRun(res, r, PETSC_TRUE, &chk)); /* warns naming file, run and row */
      count[0] += !chk.finished;
      count[1] += chk.nbad;
    }
  PetscCallMPI(MPI_Bcast(count, 2, MPIU_INT, 0, comm));
  if (count[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "simreach gather: %s is UNFINISHED: %" PetscInt_FMT " of %" PetscInt_FMT " runs are not finished (%" PetscInt_FMT " rows fail their checksums); the verdict below is PARTIAL, over the finished runs only\n", filename, count[0], lay->nruns, count[1]));
  PetscCall(SRGatherResults(res, (PetscBool)(store && !count[0]), viewer));
  if (store && !count[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "simreach gather: the verdict with the positive control is stored in %s (/summary/verdict, rule_version %d); analysis/report.py reads it from there\n", filename, SR_SUMMARY_RULE_VERSION));
  PetscCall(SRResultsDestroy(&res));
  if (store) PetscCall(SRFileLockRelease(&lock));
  PetscCheck(!count[0], comm, SR_ERR_UNFINISHED, "%s is unfinished: %" PetscInt_FMT " of %" PetscInt_FMT " runs are not finished, so the verdict above is PARTIAL; finish the study with simreach study (same options) -output %s -resume", filename, count[0], lay->nruns, filename);
  PetscFunctionReturn(PETSC_SUCCESS);
}
