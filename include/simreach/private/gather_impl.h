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
