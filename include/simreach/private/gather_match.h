/* Accuracy matching of the gather (SPEC §9): which baseline value a treated run is compared
   with "at the same accuracy".  One code path for criterion 2 of the study, for its positive
   control and for the closed-loop answer. */
#pragma once

#include <simreach/base.h>

typedef enum {
  SR_MATCH_NONE         = 0, /* the baseline never reached the treated run's prediction error */
  SR_MATCH_CHECKPOINT   = 1, /* a baseline checkpoint closest to and not better than the final one */
  SR_MATCH_INTERPOLATED = 2  /* interpolated along the baseline's checkpoints, see SRAccuracyMatch */
} SRMatchKind;

typedef struct {
  SRMatchKind kind;
  PetscInt    jt;     /* the treated run's row compared (its final row unless interpolated) */
  PetscInt    k0, k1; /* the baseline rows; value (1 - w) B[k0] + w B[k1] */
  double      w;
} SRMatch;

/* T and B: nr checkpoint rows of nf values of the treated run and of its baseline (row j valid
   when column ck is finite), prediction error in column pred.  First by checkpoint: the
   baseline row whose prediction error is closest to and not below the treated run's final one.
   When every baseline row is more accurate: the latest treated row j >= 1 (trained with the
   treatment) whose prediction error p lies between those of two consecutive valid baseline rows
   (k, k'), the baseline's value taken linearly in the prediction error between them, at p.
   Otherwise SR_MATCH_NONE. */
void SRAccuracyMatch(PetscInt nr, PetscInt nf, PetscInt ck, PetscInt pred, const double *T, const double *B, SRMatch *m);
/* The matched pair's values of column col: *treated from T's row jt, the return value the
   baseline's (NaN when kind is SR_MATCH_NONE). */
double SRAccuracyMatchValue(const SRMatch *m, PetscInt nf, PetscInt col, const double *T, const double *B, double *treated);
