/* Adam on a flat parameter vector (SPEC §8: the phi steps of a guarded run). */
#include <simreach/private/adam.h>
#include <math.h>

PetscErrorCode SRAdamCreate(PetscInt n, double lr, SRAdam *adam)
{
  SRAdam a;

  PetscFunctionBeginUser;
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Adam: parameter count %" PetscInt_FMT " must be >= 0", n);
  PetscCheck(lr > 0 && isfinite(lr), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-lr %g: the learning rate must be finite and > 0", lr);
  PetscCall(PetscNew(&a));
  a->n     = n;
  a->lr    = lr;
  a->beta1 = 0.9;
  a->beta2 = 0.999;
  a->eps   = 1e-8;
  PetscCall(PetscCalloc2(n, &a->m, n, &a->v));
  *adam = a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAdamStep(SRAdam a, const double *grad, double *delta)
{
  PetscFunctionBeginUser;
  a->t++;
  /* bias corrections 1 - beta^t, computed with pow so that a resumed run (t restored) matches */
  const double c1 = 1.0 - pow(a->beta1, (double)a->t), c2 = 1.0 - pow(a->beta2, (double)a->t);
  for (PetscInt i = 0; i < a->n; i++) {
    a->m[i]         = a->beta1 * a->m[i] + (1.0 - a->beta1) * grad[i];
    a->v[i]         = a->beta2 * a->v[i] + (1.0 - a->beta2) * grad[i] * grad[i];
    const double mh = a->m[i] / c1, vh = a->v[i] / c2;
    delta[i]        = -a->lr * mh / (sqrt(vh) + a->eps);
  }
  PetscCall(PetscLogFlops(12.0 * a->n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRAdamDestroy(SRAdam *adam)
{
  PetscFunctionBeginUser;
  if (!adam || !*adam) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscFree2((*adam)->m, (*adam)->v));
  PetscCall(PetscFree(*adam));
  PetscFunctionReturn(PETSC_SUCCESS);
}
