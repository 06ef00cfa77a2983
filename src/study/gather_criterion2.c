/* Criterion 2 of the gather (SPEC §9), shared by the study's verdict (gather.c) and the positive
   control's (gather_control.c): in a file of its own so that neither of them calls the other. */
#include <simreach/private/results.h>
#include <math.h>
#include <string.h>
#include <simreach/private/gather_match.h>
#include <simreach/private/gather_impl.h>

/* Criterion 2 of SPEC §9 for every (beta > 0, tau) of a study, into the summary table's columns
   S_TRED .. S_MINM; "acted" comes from the manipulation check (gather_manipulation.c), which runs
   first.  Per seed, against the beta = 0 run of the same
   (tau, seed): reductions of |M_tight| and vol(E_tight) at the final checkpoint, and
   accuracy-matched -- against the baseline checkpoint whose prediction error is closest to and
   not better than the beta run's final one; the paired differences of held-out L_sim and
   |M_tight| (printed).  S_EFFECT: 1 shows the effect in both comparisons (for |M_tight| or for
   vol(E_tight)), 0 not, -1 not testable (fewer than 2 seeds or accuracy-matched pairs, or, in a
   study, a setting that did not act).  In a study the effect is Holm-controlled over the settings
   that acted; a positive control (control) shows it when the lower end of the 95 % confidence
   interval of both mean reductions is >= 20 % (SPEC §9).   Also per setting: the means of |M_tight|, |F|,
   vol(E_tight), H, H_train, tau log N, |M|. */
PetscErrorCode SRGatherCriterion2_Private(const SRResultsLayout *lay, const double *tables, const SRGatherRun *info, double *table, PetscBool control, PetscInt *nacted, PetscInt *neffect, PetscInt *ntested)
{
  const PetscInt nr = lay->nrows, ntau = lay->ntau, nseed = lay->nseed, NS = lay->nbeta * ntau;
  PetscInt       ib0 = -1;
  double        *pe, *ae; /* per setting: [2 s] |M_tight| / vol(E_tight) */
  PetscBool     *big; /* per setting: the four magnitude conditions */

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(2 * NS, &pe, 2 * NS, &ae, 4 * NS, &big));
  *nacted = *neffect = *ntested = 0;
  for (PetscInt ib = 0; ib < lay->nbeta; ib++)
    if (lay->beta[ib] == 0 && ib0 < 0) ib0 = ib;
  for (PetscInt ib = 0; ib < lay->nbeta; ib++)
    for (PetscInt it = 0; it < ntau; it++) {
      double  *row = table + (ib * ntau + it) * SR_SUMMARY_NCOLS;
      double   v[16][SR_RESULTS_MAX_LIST], dummy;
      PetscInt used, u[4], ud, ut, nacc = 0, ninterp = 0;
      for (PetscInt is = 0; is < nseed; is++) {
        const PetscInt     r  = (ib * ntau + it) * nseed + is;
        const SRGatherRun *ri = &info[r], *r0 = ib0 >= 0 ? &info[(ib0 * ntau + it) * nseed + is] : NULL;
        const double      *f = ri->final, *f0 = r0 ? r0->final : NULL;
        const PetscBool    ok = (PetscBool)(ri->status == SR_RUN_DONE && r0 && r0->status == SR_RUN_DONE && lay->beta[ib] > 0);
        for (int q = 0; q < 16; q++)
          v[q][is] = NAN;
        if (ri->status == SR_RUN_DONE) {
          v[8][is]  = f[C_TIGHT];
          v[9][is]  = f[C_FLOOR];
          v[10][is] = f[C_VOLT];
          v[11][is] = f[C_H];
          v[12][is] = f[C_HTR];
          v[13][is] = f[C_TLNN];
          v[14][is] = f[C_SUCCMIN];
        }
        if (!ok) continue;
        v[0][is] = SRGatherReduction_Private(f[C_TIGHT], f0[C_TIGHT]);
        v[1][is] = SRGatherReduction_Private(f[C_VOLT], f0[C_VOLT]);
        v[4][is] = f[C_LSHO] - f0[C_LSHO];
        v[5][is] = f[C_TIGHT] - f0[C_TIGHT];
        v[6][is] = f0[C_LSHO];
        v[7][is] = f0[C_TIGHT];
        {
          /* accuracy-matched (SPEC §9): by checkpoint, else interpolated (gather_match.h) */
          const double *T0 = tables + (size_t)((ib0 * ntau + it) * nseed + is) * nr * SR_CHECKPOINT_NFIELDS, *T = tables + (size_t)r * nr * SR_CHECKPOINT_NFIELDS;
          SRMatch       m;
          double        tv, bv;
          SRAccuracyMatch(nr, SR_CHECKPOINT_NFIELDS, C_CK, C_PRED, T, T0, &m);
          if (m.kind != SR_MATCH_NONE) {
            bv       = SRAccuracyMatchValue(&m, SR_CHECKPOINT_NFIELDS, C_TIGHT, T, T0, &tv);
            v[2][is] = SRGatherReduction_Private(tv, bv);
            bv       = SRAccuracyMatchValue(&m, SR_CHECKPOINT_NFIELDS, C_VOLT, T, T0, &tv);
            v[3][is] = SRGatherReduction_Private(tv, bv);
            nacc++;
            ninterp += m.kind == SR_MATCH_INTERPOLATED;
          }
        }
      }
      SRGatherMeanSE_Private(nseed, v[0], &row[S_TRED], &row[S_TRED + 1], &u[0]);
      SRGatherMeanSE_Private(nseed, v[1], &row[S_VTRED], &row[S_VTRED + 1], &u[1]);
      SRGatherMeanSE_Private(nseed, v[2], &row[S_TREDA], &row[S_TREDA + 1], &u[2]);
      SRGatherMeanSE_Private(nseed, v[3], &row[S_VTREDA], &row[S_VTREDA + 1], &u[3]);
      row[S_NACC]    = (double)nacc;
      row[S_NINTERP] = (double)ninterp;
      SRGatherMeanSE_Private(nseed, v[4], &row[S_DLSHO], &row[S_DLSHO + 1], &ud);
      SRGatherMeanSE_Private(nseed, v[5], &row[S_DTIGHT], &row[S_DTIGHT + 1], &ut);
      {
        /* SPEC §9: p-values of the paired t tests; the decisions after Holm over all settings */
        const PetscInt q = ib * ntau + it;
        double         bl, bt;
        SRGatherMeanStd_Private(nseed, v[6], &bl, &dummy, &used);
        SRGatherMeanStd_Private(nseed, v[7], &bt, &dummy, &used);
        pe[2 * q] = pe[2 * q + 1] = NAN;
        big[4 * q]                = (PetscBool)(fabs(row[S_DLSHO]) > 0.01 * fabs(bl));
        big[4 * q + 1]            = (PetscBool)(fabs(row[S_DTIGHT]) > 0.01 * fabs(bt));
        if (lay->beta[ib] > 0 && u[0] >= 2 && u[2] >= 2 && (control || row[S_ACTED] == 1.0)) {
          /* both comparisons must show it: the larger one-sided p of the two (intersection-union) */
          pe[2 * q]     = PetscMax(SRGatherPairedT_Private(row[S_TRED], row[S_TRED + 1], u[0], PETSC_FALSE), SRGatherPairedT_Private(row[S_TREDA], row[S_TREDA + 1], u[2], PETSC_FALSE));
          pe[2 * q + 1] = (u[1] >= 2 && u[3] >= 2) ? PetscMax(SRGatherPairedT_Private(row[S_VTRED], row[S_VTRED + 1], u[1], PETSC_FALSE), SRGatherPairedT_Private(row[S_VTREDA], row[S_VTREDA + 1], u[3], PETSC_FALSE)) : NAN;
        }
        big[4 * q + 2] = (PetscBool)(row[S_TRED] >= 0.2 && row[S_TREDA] >= 0.2);
        big[4 * q + 3] = (PetscBool)(row[S_VTRED] >= 0.2 && row[S_VTREDA] >= 0.2);
        row[S_EFFECT]  = isfinite(pe[2 * q]) ? 0.0 : -1.0;
        if (control && isfinite(pe[2 * q])) {
          /* the positive control by the lower end of its confidence interval (SPEC §9) */
          const double t0 = SRGatherTQuantile_Private(0.975, (double)(PetscMin(u[0], u[2]) - 1)), t1 = SRGatherTQuantile_Private(0.975, (double)(PetscMin(u[1], u[3]) - 1));
          big[4 * q + 2] = (PetscBool)(row[S_TRED] - t0 * row[S_TRED + 1] >= 0.2 && row[S_TREDA] - t0 * row[S_TREDA + 1] >= 0.2);
          big[4 * q + 3] = (PetscBool)(u[1] >= 2 && u[3] >= 2 && row[S_VTRED] - t1 * row[S_VTRED + 1] >= 0.2 && row[S_VTREDA] - t1 * row[S_VTREDA + 1] >= 0.2);
        }
      }
      SRGatherMeanStd_Private(nseed, v[8], &row[S_TIGHTM], &dummy, &used);
      SRGatherMeanStd_Private(nseed, v[9], &row[S_FLOORM], &dummy, &used);
      SRGatherMeanStd_Private(nseed, v[10], &row[S_VOLTM], &dummy, &used);
      SRGatherMeanStd_Private(nseed, v[11], &row[S_HM], &dummy, &used);
      SRGatherMeanStd_Private(nseed, v[12], &row[S_HTRM], &dummy, &used);
      SRGatherMeanStd_Private(nseed, v[13], &row[S_TLNNM], &dummy, &used);
      SRGatherMeanStd_Private(nseed, v[14], &row[S_MINM], &dummy, &used);
    }
  /* "shows the effect": Holm over every (setting, metric) tested (SPEC §9) */
  PetscCheck(SRGatherHolm_Private(2 * NS, pe, ae) >= 0, PETSC_COMM_SELF, PETSC_ERR_MEM, "gather: out of memory in the Holm adjustment");
  for (PetscInt q = 0; q < NS; q++) {
    double *row  = table + q * SR_SUMMARY_NCOLS;
    row[S_PACT]  = row[SRG_S_PMAN]; /* the manipulation check's p-values (SPEC §9) */
    row[S_PACTH] = row[SRG_S_PMANH];
    row[S_PEFF]  = PetscMin(isfinite(pe[2 * q]) ? pe[2 * q] : INFINITY, isfinite(pe[2 * q + 1]) ? pe[2 * q + 1] : INFINITY);
    row[S_PEFFH] = PetscMin(isfinite(ae[2 * q]) ? ae[2 * q] : INFINITY, isfinite(ae[2 * q + 1]) ? ae[2 * q + 1] : INFINITY);
    for (int c = S_PACT; c <= S_PEFFH; c++)
      if (!isfinite(row[c])) row[c] = NAN;
    if (row[S_EFFECT] == 0.0 && (control ? (big[4 * q + 2] || big[4 * q + 3]) : ((ae[2 * q] < SR_FWER && big[4 * q + 2]) || (ae[2 * q + 1] < SR_FWER && big[4 * q + 3])))) row[S_EFFECT] = 1.0;
    if (control && row[S_EFFECT] >= 0) {
      (*nacted)++; /* a control is not held to the manipulation check: its effect is known to exist */
      (*ntested)++;
      if (row[S_EFFECT] == 1.0) (*neffect)++;
    } else if (row[S_ACTED] == 1.0) {
      (*nacted)++;
      if (row[S_EFFECT] >= 0) (*ntested)++;
      if (row[S_EFFECT] == 1.0) (*neffect)++;
    }
  }
  PetscCall(PetscFree3(pe, ae, big));
  PetscFunctionReturn(PETSC_SUCCESS);
}
