/* The set-up shared by the tests of a training run (tests/train/test_run.c, tests/abstraction/test_recheck.c): a
   run made from option strings, a verdict reduced over PETSC_COMM_WORLD, and an independent
   forward pass of f_phi written from the weights (the oracle both tests check against).
   Include after <simreach.h> and <cmocka.h>. */
#pragma once

#include <math.h>

#define CHK(call) assert_int_equal((int)(call), 0)

/* A run on comm from the options base, then extra (NULL: none), set up. */
static PetscErrorCode TestMakeRun(MPI_Comm comm, const char base[], const char extra[], SRRun *run)
{
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(PetscOptionsInsertString(NULL, base));
  if (extra) PetscCall(PetscOptionsInsertString(NULL, extra));
  PetscCall(SRRunCreate(comm, run));
  PetscCall(SRRunSetFromOptions(*run));
  PetscCall(SRRunSetUp(*run));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void AssertAll(int ok)
{
  int all = ok;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD);
  assert_true(all);
}

/* Independent f_phi(x) (SPEC §3) from the weights: tanh hidden layers, linear output. */
static void Forward(SRModel model, const double *x, double *y)
{
  SRMLP  mlp = model->mlp;
  double a[64], z[64], u[SR_MAX_DIM];
  for (PetscInt i = 0; i < mlp->width[0]; i++) a[i] = x[i];
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt ni = mlp->width[l], no = mlp->width[l + 1];
    for (PetscInt o = 0; o < no; o++) {
      double s = mlp->params[mlp->boff[l] + o];
      for (PetscInt i = 0; i < ni; i++) s += mlp->params[mlp->woff[l] + o * ni + i] * a[i];
      z[o] = l + 1 < mlp->nlayers ? tanh(s) : s;
    }
    for (PetscInt o = 0; o < no; o++) a[o] = z[o];
  }
  if (model->type == SR_MODEL_DYNAMICS) {
    for (PetscInt d = 0; d < model->n; d++) y[d] = x[d] + a[d];
  } else {
    for (PetscInt j = 0; j < model->sys->nu; j++) u[j] = model->sys->umax * tanh(a[j]);
    model->sys->step(model->sys, x, u, y);
  }
}
