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

/* One vectorised pass over the parameters (Kingma & Ba, Algorithm 1), cloned for AVX-512/AVX2
   on x86-64 like the MLP kernels: elementwise IEEE operations only (sqrt is correctly rounded),
   so every clone gives the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
static void SRAdamKernel_Private(PetscInt n, double b1, double b2, double lr, double eps, double c1, double c2, const double *restrict grad, double *restrict m, double *restrict v, double *restrict delta)
{
  for (PetscInt i = 0; i < n; i++) {
    m[i]            = b1 * m[i] + (1.0 - b1) * grad[i];
    v[i]            = b2 * v[i] + (1.0 - b2) * grad[i] * grad[i];
    const double mh = m[i] / c1, vh = v[i] / c2;
    delta[i]        = -lr * mh / (sqrt(vh) + eps);
  }
}

PetscErrorCode SRAdamStep(SRAdam a, const double *grad, double *delta)
{
  PetscFunctionBeginUser;
  a->t++;
  /* bias corrections 1 - beta^t, computed with pow so that a resumed run (t restored) matches */
  const double c1 = 1.0 - pow(a->beta1, (double)a->t), c2 = 1.0 - pow(a->beta2, (double)a->t);
  SRAdamKernel_Private(a->n, a->beta1, a->beta2, a->lr, a->eps, c1, c2, grad, a->m, a->v, delta);
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
