/* Adam (Kingma & Ba 2015) on a flat parameter vector, for the phi steps of SPEC §8.
   The moments are updated from every observed gradient; the step it proposes is what
   the guard accepts, halves or drops.  Not collective: every rank of a run holds an
   identical copy (the run computes its sample gradients redundantly). */
#pragma once

#include <simreach/base.h>

typedef struct _p_SRAdam *SRAdam;
struct _p_SRAdam {
  PetscInt n;
  double   lr, beta1, beta2, eps;
  PetscInt t;    /* steps taken */
  double  *m, *v; /* first and second moments */
};

PetscErrorCode SRAdamCreate(PetscInt n, double lr, SRAdam *adam);
/* Update the moments with grad and write the proposed step delta (n) = -lr mhat / (sqrt(vhat) + eps). */
PetscErrorCode SRAdamStep(SRAdam adam, const double *grad, double *delta);
PetscErrorCode SRAdamDestroy(SRAdam *adam);
