/* The statistics of the gather (SPEC §9; src/study/gather_stats.c) and what the gather's files
   share: the run record and the column numbers of the checkpoint and summary tables. */
#pragma once

#include <simreach/private/results.h>

typedef struct {
  PetscInt status, nvalid, failures, falsified;
  double   final[SR_CHECKPOINT_NFIELDS];
} SRGatherRun;

/* checkpoint columns (SRResultsCheckpointColumns) */
enum { SRG_CK = 0, SRG_LSIM = 2, SRG_H = 3, SRG_PRED = 5, SRG_TLNN = 15, SRG_LSHO = 23, SRG_TIGHT = 25, SRG_VOLT = 26, SRG_SAFEG = 41, SRG_LSREF = 43, SRG_SAFESIM = 44 };
/* summary columns (SRSummaryColumns) */
enum { SRG_S_ACTED = 31, SRG_S_EFFECT = 32, SRG_S_PACT = 40, SRG_S_PACTH = 41, SRG_S_DLREF = 50, SRG_S_LREF0 = 52, SRG_S_PMAN = 53, SRG_S_PMANH = 54, SRG_S_SPC1 = 55, SRG_S_SPSAME = 56, SRG_S_SAFESIM = 57 };
/* the gather's own names of the same columns (gather.c, gather_control.c) */
enum { C_CK = 0, C_LSIM = 2, C_H = 3, C_PRED = 5, C_COV = 6, C_SUCC = 7, C_VOLE = 10, C_VOLU = 11, C_GMIN = 12, C_TLN = 13, C_GMAX = 14, C_TLNN = 15, C_FAIL = 19, C_FALS = 20 };
enum { S_SUCC = 0, S_VOLE = 2, S_VOLU = 4, S_DPRED = 6, S_DCOV = 8, S_SPEAR = 10, S_FAIL = 12, S_PRED = 13, S_COV = 14, S_SUCCM = 15, S_VOLEM = 16, S_NSEED = 17 };
/* criterion 2 and the treatment check (SPEC §9): columns of the checkpoint table they read, and
   the summary columns they fill (mean, standard error over seeds) */
enum { C_SUCCMIN = 8, C_HTR = 22, C_LSHO = 23, C_TIGHT = 25, C_VOLT = 26, C_FLOOR = 27 };
/* the closed loop (SPEC §12) */
enum { C_SAFEG = 41, C_HORG = 42 };
enum { S_TRED = 18, S_VTRED = 20, S_TREDA = 22, S_VTREDA = 24, S_NACC = 26, S_DLSHO = 27, S_DTIGHT = 29, S_ACTED = 31, S_EFFECT = 32, S_TIGHTM = 33, S_FLOORM = 34, S_VOLTM = 35, S_HM = 36, S_HTRM = 37, S_TLNNM = 38, S_MINM = 39 };
enum { S_PACT = 40, S_PACTH = 41, S_PEFF = 42, S_PEFFH = 43 };
/* accuracy-matched pairs found by interpolation (gather_match.h); the closed-loop answer on the
   -safe_cells grid against the baseline, same checkpoint and accuracy-matched (SPEC §9) */
enum { S_NINTERP = 44, S_DSAFEG = 45, S_DSAFEGA = 47, S_NSAFEGA = 49 };
#define SR_FWER 0.05 /* the family-wise error of the manipulation check and of "shows the effect" (SPEC §9) */

void      SRGatherMeanStd_Private(PetscInt n, const double *v, double *mean, double *std, PetscInt *used);
void      SRGatherMeanSE_Private(PetscInt n, const double *v, double *mean, double *se, PetscInt *used);
double    SRGatherReduction_Private(double s, double s0);
PetscBool SRGatherEffect_Private(double mean, double se, PetscInt used);
double    SRGatherIncBeta_Private(double a, double b, double x);
double    SRGatherPairedT_Private(double mean, double se, PetscInt used, PetscBool two_sided);
PetscInt  SRGatherHolm_Private(PetscInt m, const double *p, double *adj);
/* The q-quantile (0.5 < q < 1) of Student's t on nu degrees of freedom (bisection on I_x). */
double SRGatherTQuantile_Private(double q, double nu);
/* The manipulation check (SPEC §9, gather_manipulation.c): fills the summary columns
   dLsim_ref .. p_manipulation_holm and acted of every (beta > 0, tau); *nacted of *nset. */
PetscErrorCode SRGatherManipulation(const SRResultsLayout *lay, const SRGatherRun *info, double *table, PetscInt *nacted, PetscInt *nset);
/* Its one printed line, beginning "Manipulation check" and ending "-> k of m settings acted". */
PetscErrorCode SRGatherManipulationView(const SRResultsLayout *lay, const double *table, PetscInt nacted, PetscInt nset, PetscViewer viewer);
/* Criterion 1 (SPEC §9): Spearman of the training L_sim with the held-out H across checkpoints,
   per run, pooled per tau and over all; the same-sample (held-out L_sim, held-out H) value per
   tau beside it.  lx, ly: scratch of nruns x nrows. */
void SRGatherCriterion1(const SRResultsLayout *lay, const double *tables, double *lx, double *ly, double *run, double *tau, double *same, PetscInt *count, double *all);
/* gather_criterion2.c: criterion 2 of SPEC §9 into the summary columns (control: the positive control's rule) */
PetscErrorCode SRGatherCriterion2_Private(const SRResultsLayout *lay, const double *tables, const SRGatherRun *info, double *table, PetscBool control, PetscInt *nacted, PetscInt *neffect, PetscInt *ntested);
/* gather_control.c */
PetscErrorCode SRGatherLoadRuns_Private(SRResults res, double *tables, SRGatherRun *info);
PetscErrorCode SRGatherTrainThenAbstract_Private(MPI_Comm comm, const char file[], const SRResultsLayout *lay, const SRGatherRun *info, PetscViewer viewer);
PetscErrorCode SRGatherPositiveControl_Private(MPI_Comm comm, const char file[], const char *canonical, PetscViewer viewer, PetscBool *detected);
