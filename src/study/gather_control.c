/* The gather's comparisons with other studies (SPEC §9): the positive control (a study of its own,
   judged by the lower end of its confidence interval), the train-then-abstract baseline, and the
   options in which a control differs from the study; with the loading of a file's runs. */
#include <simreach/private/gather_impl.h>
#include <math.h>
#include <string.h>
#include <stdio.h>

/* A setting's value as C's %g writes it (PETSc's printf writes 3 as "3."); buf holds 32 chars. */
static const char *SRG_Private(char *buf, double v)
{
  snprintf(buf, 32, "%g", v);
  return buf;
}

/* Every run's checkpoint table and final row (the valid rows: checkpoint column written). */
PetscErrorCode SRGatherLoadRuns_Private(SRResults res, double *tables, SRGatherRun *info)
{
  const SRResultsLayout *lay;

  PetscFunctionBeginUser;
  PetscCall(SRResultsGetLayout(res, &lay));
  for (PetscInt r = 0; r < lay->nruns; r++) {
    double          *T = tables + (size_t)r * lay->nrows * SR_CHECKPOINT_NFIELDS;
    SRGatherRun *ri = &info[r];
    PetscInt         last, slot;
    PetscCall(SRResultsReadRunInfo(res, r, &ri->status, &last, &slot));
    PetscCall(SRResultsReadCheckpoints(res, r, T));
    ri->nvalid = ri->failures = ri->falsified = 0;
    for (PetscInt f = 0; f < SR_CHECKPOINT_NFIELDS; f++) ri->final[f] = NAN;
    for (PetscInt j = 0; j < lay->nrows; j++) {
      const double *row = T + j * SR_CHECKPOINT_NFIELDS;
      if (!isfinite(row[C_CK])) continue;
      ri->nvalid++;
      ri->failures += (PetscInt)row[C_FAIL];
      ri->falsified += (PetscInt)row[C_FALS];
      for (PetscInt f = 0; f < SR_CHECKPOINT_NFIELDS; f++) ri->final[f] = row[f];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The train-then-abstract baseline (SPEC §9): a study of its own with -guard none; each guarded
   beta > 0 run of this study against its beta = 0 run of the same tau (the nearest tau when the
   file has others) and seed index, at the final checkpoint: |M_tight| and vol(E_tight)
   reductions and the prediction-error change, mean +- standard error over seeds.  Prints only.
   Collective. */
PetscErrorCode SRGatherTrainThenAbstract_Private(MPI_Comm comm, const char file[], const SRResultsLayout *lay, const SRGatherRun *info, PetscViewer viewer)
{
  SRResults              res;
  const SRResultsLayout *bl;
  double                *tables;
  SRGatherRun       *binfo;
  PetscInt               bb0 = -1;

  char gb[32], gt[32]; /* SRG_Private buffers */
  PetscFunctionBeginUser;
  PetscCall(SRResultsOpen(comm, file, PETSC_FALSE, &res));
  PetscCall(SRResultsGetLayout(res, &bl));
  PetscCall(PetscMalloc2((size_t)bl->nruns * bl->nrows * SR_CHECKPOINT_NFIELDS, &tables, bl->nruns, &binfo));
  PetscCall(SRGatherLoadRuns_Private(res, tables, binfo));
  for (PetscInt ib = 0; ib < bl->nbeta; ib++)
    if (bl->beta[ib] == 0 && bb0 < 0) bb0 = ib;
  if (bb0 < 0) PetscCall(PetscViewerASCIIPrintf(viewer, "Train-then-abstract baseline %s: no beta = 0 run -> not compared\n", file));
  else {
    PetscCall(PetscViewerASCIIPrintf(viewer, "Against the train-then-abstract baseline %s (beta = 0 of that study, same seed index, nearest tau; final checkpoint, mean +- SE over seeds):\n", file));
    for (PetscInt ib = 0; ib < lay->nbeta; ib++)
      for (PetscInt it = 0; it < lay->ntau; it++) {
        double   vt[SR_RESULTS_MAX_LIST], vv[SR_RESULTS_MAX_LIST], vp[SR_RESULTS_MAX_LIST], mt, st, mv, sv, mp, sp;
        PetscInt bt = 0, ut, uv, up;
        if (lay->beta[ib] == 0) continue;
        for (PetscInt j = 1; j < bl->ntau; j++)
          if (fabs(bl->tau[j] - lay->tau[it]) < fabs(bl->tau[bt] - lay->tau[it])) bt = j;
        for (PetscInt is = 0; is < lay->nseed; is++) {
          const SRGatherRun *a = &info[(ib * lay->ntau + it) * lay->nseed + is];
          const SRGatherRun *b = is < bl->nseed ? &binfo[(bb0 * bl->ntau + bt) * bl->nseed + is] : NULL;
          const PetscBool        ok = (PetscBool)(b && a->status == SR_RUN_DONE && b->status == SR_RUN_DONE);
          vt[is] = ok ? SRGatherReduction_Private(a->final[C_TIGHT], b->final[C_TIGHT]) : NAN;
          vv[is] = ok ? SRGatherReduction_Private(a->final[C_VOLT], b->final[C_VOLT]) : NAN;
          vp[is] = ok ? a->final[C_PRED] - b->final[C_PRED] : NAN;
        }
        SRGatherMeanSE_Private(lay->nseed, vt, &mt, &st, &ut);
        SRGatherMeanSE_Private(lay->nseed, vv, &mv, &sv, &uv);
        SRGatherMeanSE_Private(lay->nseed, vp, &mp, &sp, &up);
        PetscCall(PetscViewerASCIIPrintf(viewer, "  beta=%s tau=%s: |M_tight| red. %.1f%%+-%.1f%%, vol(E_tight) red. %.1f%%+-%.1f%%, d pred_error %+.3e+-%.1e (%" PetscInt_FMT " seeds)\n", SRG_Private(gb, lay->beta[ib]), SRG_Private(gt, lay->tau[it]), 100 * mt, 100 * st, 100 * mv, 100 * sv, mp, sp, ut));
      }
  }
  PetscCall(PetscFree2(tables, binfo));
  PetscCall(SRResultsDestroy(&res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The value of option key (e.g. "-guard") in canonical options text ("-key value" lines), or
   NULL; the value is copied to val (at most len - 1 characters, "" for a flag). */
static const char *CanonicalValue_Private(const char *text, const char *key, char *val, size_t len)
{
  const size_t kl = strlen(key);
  for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    if (!strncmp(p, key, kl) && (p[kl] == ' ' || p[kl] == '\n' || p[kl] == 0)) {
      const char *v = p[kl] == ' ' ? p + kl + 1 : p + kl;
      size_t      n = strcspn(v, "\n");
      if (n > len - 1) n = len - 1;
      memcpy(val, v, n);
      val[n] = 0;
      return val;
    }
  }
  return NULL;
}

/* Prints the options that decide results (options_canonical) where the control differs from
   the study, other than the sweep lists, so that a reader sees what the control changes. */
static PetscErrorCode ControlDiff_Private(const char *study, const char *control, PetscViewer viewer)
{
  const char *const skip[] = {"-beta", "-tau", "-seeds", "-seed_list", "-record_start"}; /* -record_start measures row 0, trains the same */
  char              line[4096] = "";
  size_t            used = 0;
  PetscInt          ndiff = 0;

  PetscFunctionBeginUser;
  for (int pass = 0; pass < 2; pass++) { /* keys of the control, then keys only the study has */
    const char *text = pass == 0 ? control : study, *other = pass == 0 ? study : control;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
      char        key[128], a[256], b[256];
      size_t      kl = strcspn(p, " \n");
      PetscBool   skipped = PETSC_FALSE;
      const char *va, *vb;
      if (p[0] != '-' || kl >= sizeof(key)) continue;
      memcpy(key, p, kl);
      key[kl] = 0;
      for (size_t q = 0; q < sizeof(skip) / sizeof(skip[0]); q++) skipped = (PetscBool)(skipped || !strcmp(key, skip[q]));
      if (skipped) continue;
      va = CanonicalValue_Private(text, key, a, sizeof(a));
      vb = CanonicalValue_Private(other, key, b, sizeof(b));
      if (pass == 1 && vb) continue; /* compared in the first pass */
      if (vb && va && !strcmp(va, vb)) continue;
      if (used + 300 < sizeof(line)) {
        int w = snprintf(line + used, sizeof(line) - used, "%s %s %s (study: %s)", ndiff ? "," : "", key, pass == 0 ? a : "unset", pass == 0 ? (vb ? b : "unset") : a);
        if (w > 0) used += (size_t)w;
      }
      ndiff++;
    }
  }
  if (ndiff) PetscCall(PetscViewerASCIIPrintf(viewer, "  the control differs from this study in %" PetscInt_FMT " option(s) besides the sweep:%s\n", ndiff, line));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "  the control has this study's options besides the sweep\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The positive control (SPEC §9): a study of its own; detected when some setting of it acted and
   shows the effect of criterion 2.  Prints one line per setting, and the options in which it
   differs from the study (canonical: the study's options_canonical).  Collective. */
PetscErrorCode SRGatherPositiveControl_Private(MPI_Comm comm, const char file[], const char *canonical, PetscViewer viewer, PetscBool *detected)
{
  SRResults              res;
  const SRResultsLayout *lay;
  double                *tables, *table;
  SRGatherRun       *info;
  PetscInt               na, ne, nt, nf;

  char gb[32], gt[32], gn[32], gi[32]; /* SRG_Private buffers */
  PetscFunctionBeginUser;
  PetscCall(SRResultsOpen(comm, file, PETSC_FALSE, &res));
  PetscCall(SRResultsGetLayout(res, &lay));
  PetscCall(PetscMalloc3((size_t)lay->nruns * lay->nrows * SR_CHECKPOINT_NFIELDS, &tables, lay->nruns, &info, lay->nbeta * lay->ntau * SR_SUMMARY_NCOLS, &table));
  PetscCall(SRGatherLoadRuns_Private(res, tables, info));
  PetscCall(SRGatherManipulation(lay, info, table, &na, &nf)); /* printed for information: the control's treatment is not L_sim (-loss width1) */
  PetscCall(SRGatherCriterion2_Private(lay, tables, info, table, PETSC_TRUE, &na, &ne, &nt));
  *detected = (PetscBool)(ne > 0);
  PetscCall(PetscViewerASCIIPrintf(viewer, "Positive control %s: %" PetscInt_FMT " of %" PetscInt_FMT " settings testable, %" PetscInt_FMT " show the effect by the lower end of the 95%% confidence interval (>= 20%% in both comparisons) -> %s\n", file, nt, (lay->nbeta - 1) * lay->ntau, ne, *detected ? "DETECTED" : "NOT DETECTED"));
  for (PetscInt ib = 0; ib < lay->nbeta; ib++)
    for (PetscInt it = 0; it < lay->ntau; it++) {
      const double *row = table + (ib * lay->ntau + it) * SR_SUMMARY_NCOLS;
      if (lay->beta[ib] == 0) continue;
      {
        /* the quantile the decision uses (SRGatherCriterion2_Private): both comparisons at the
           degrees of freedom of the accuracy-matched pairs, which are never more than the
           same-checkpoint ones, so that a printed bound >= 20 % is a detected setting */
        const PetscInt ua = (PetscInt)row[S_NACC];
        const double   ta = SRGatherTQuantile_Private(0.975, (double)(ua - 1));
        PetscCall(PetscViewerASCIIPrintf(viewer, "  control beta=%s tau=%s: 95%% lower bounds |M_tight| red. %.1f%% (acc.-matched %.1f%%), vol(E_tight) red. %.1f%% (acc.-matched %.1f%%); manipulation check (L_sim yardstick, for information) p Holm %.2g\n", SRG_Private(gb, lay->beta[ib]), SRG_Private(gt, lay->tau[it]), 100 * (row[S_TRED] - ta * row[S_TRED + 1]), 100 * (row[S_TREDA] - ta * row[S_TREDA + 1]), 100 * (row[S_VTRED] - ta * row[S_VTRED + 1]), 100 * (row[S_VTREDA] - ta * row[S_VTREDA + 1]), row[SRG_S_PMANH]));
      }
      PetscCall(PetscViewerASCIIPrintf(viewer, "  control beta=%s tau=%s: acted %s (p Holm %.2g), |M_tight| red. %.1f%%+-%.1f%% (acc.-matched %.1f%%+-%.1f%%), vol(E_tight) red. %.1f%%+-%.1f%% (acc.-matched %.1f%%+-%.1f%%, %s pairs, %s interpolated), effect %s\n", SRG_Private(gb, lay->beta[ib]), SRG_Private(gt, lay->tau[it]), row[S_ACTED] == 1 ? "yes" : (row[S_ACTED] == 0 ? "no" : "n/a"), row[S_PACTH], 100 * row[S_TRED], 100 * row[S_TRED + 1], 100 * row[S_TREDA], 100 * row[S_TREDA + 1], 100 * row[S_VTRED], 100 * row[S_VTRED + 1], 100 * row[S_VTREDA], 100 * row[S_VTREDA + 1], SRG_Private(gn, row[S_NACC]), SRG_Private(gi, row[S_NINTERP]), row[S_EFFECT] == 1 ? "yes" : (row[S_EFFECT] == 0 ? "no" : "not testable")));
      PetscCall(PetscViewerASCIIPrintf(viewer, "    effect p %.2g, Holm-adjusted %.2g\n", row[S_PEFF], row[S_PEFFH]));
    }
  if (canonical) {
    const char *cc;
    PetscCall(SRResultsGetCanonicalOptions(res, &cc));
    PetscCall(ControlDiff_Private(canonical, cc, viewer));
  }
  PetscCall(PetscFree3(tables, info, table));
  PetscCall(SRResultsDestroy(&res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

