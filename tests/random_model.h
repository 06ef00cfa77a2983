/* Random networks for the soundness tests (test_soundness, test_taylor_batch): U01 draws the
   test stream of a seed; RandomModel builds a model of 1-3 hidden layers of 4-64 neurons with
   weights scaled by 0.1..3 and random biases (a new model each call).  RandomActivations then
   sets the layers' activations (SPEC §14): one kind everywhere but the linear output, or
   "mixed": each layer (the output too) drawn from tanh, relu, sigmoid, linear; RandomTransforms adds
   input/output transforms; RandomMovedPartition makes a partition with moved boundaries. */
#pragma once

#include <simreach.h>
#include <math.h>

static inline double U01(uint64_t seed, uint64_t *ctr) { return SRRandomUniform(seed, SR_STREAM_TEST, (*ctr)++); }

/* A random network of the model's shape family: new model each call. */
static inline PetscErrorCode RandomModel(SRSystem sys, SRModelType type, uint64_t seed, uint64_t *ctr, SRModel *model)
{
  PetscInt     nh    = 1 + (PetscInt)(3 * U01(seed, ctr)), widths[3];
  const double scale = 0.1 * pow(30.0, U01(seed, ctr));

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < nh; l++)
    widths[l] = 4 + (PetscInt)(61 * U01(seed, ctr));
  PetscCall(SRModelCreate(sys, type, nh, widths, model));
  PetscCall(SRMLPInitialize((*model)->mlp, seed + *ctr));
  for (PetscInt l = 0; l < (*model)->mlp->nlayers; l++) {
    SRMLP mlp = (*model)->mlp;
    for (PetscInt p = mlp->woff[l]; p < mlp->boff[l]; p++)
      mlp->params[p] *= scale;
    for (PetscInt i = 0; i < mlp->width[l + 1]; i++)
      mlp->params[mlp->boff[l] + i] = scale * (2 * U01(seed, ctr) - 1);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* act: "tanh" (leaves the model as it is), "relu", "sigmoid", "linear" or "mixed". */
static inline PetscErrorCode RandomActivations(SRModel model, const char act[], uint64_t seed, uint64_t *ctr)
{
  SRMLP mlp = model->mlp;

  PetscFunctionBeginUser;
  if (!strcmp(act, "tanh")) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    SRActivation a;
    if (!strcmp(act, "mixed")) a = (SRActivation)(PetscInt)(4 * U01(seed, ctr));
    else {
      PetscInt i;
      PetscCall(PetscEListFind(4, SRActivations, act, &i, NULL));
      PetscCheck(i >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-act %s: allowed are tanh, relu, sigmoid, linear, mixed", act);
      a = l < mlp->nlayers - 1 ? (SRActivation)i : SR_ACT_LINEAR;
    }
    PetscCall(SRMLPSetActivation(mlp, l, a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Random input clipping/normalisation and output scaling (SPEC §14): clipping bounds inside the
   domain (so cells straddle them; one input in three unclipped on a side), mean in D, range
   0.3..3, output scale +-(0.3..3), offset -2..2. */
static inline PetscErrorCode RandomTransforms(SRModel model, uint64_t seed, uint64_t *ctr)
{
  SRMLP    mlp = model->mlp;
  SRSystem sys = model->sys;
  double   lo[SR_MAX_DIM], hi[SR_MAX_DIM], mean[SR_MAX_DIM], range[SR_MAX_DIM], sc[SR_MAX_DIM], off[SR_MAX_DIM];

  PetscFunctionBeginUser;
  for (PetscInt j = 0; j < mlp->width[0]; j++) {
    const double a = sys->dlo[j], b = sys->dhi[j], w = b - a;
    lo[j]    = U01(seed, ctr) < 1.0 / 3 ? -INFINITY : a + 0.4 * w * U01(seed, ctr);
    hi[j]    = U01(seed, ctr) < 1.0 / 3 ? INFINITY : b - 0.4 * w * U01(seed, ctr);
    mean[j]  = a + w * U01(seed, ctr);
    range[j] = 0.3 * pow(10.0, U01(seed, ctr));
  }
  for (PetscInt i = 0; i < mlp->width[mlp->nlayers]; i++) {
    sc[i]  = (U01(seed, ctr) < 0.5 ? -1 : 1) * 0.3 * pow(10.0, U01(seed, ctr));
    off[i] = 4 * U01(seed, ctr) - 2;
  }
  PetscCall(SRMLPSetInputTransform(mlp, lo, hi, mean, range));
  PetscCall(SRMLPSetOutputTransform(mlp, sc, off));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The regular partition of counts[d] intervals per dimension with every interior boundary moved by
   up to frac of a step (frac < 0.5 keeps them increasing). */
static inline PetscErrorCode RandomMovedPartition(SRSystem sys, const PetscInt counts[], double frac, uint64_t seed, uint64_t *ctr, SRCells *cells)
{
  PetscInt nt;
  double  *theta;

  PetscFunctionBeginUser;
  PetscCall(SRCellsCreatePartition(sys, counts, cells));
  nt = SRCellsPartitionNumTheta(*cells);
  PetscCall(PetscMalloc1(PetscMax(nt, 1), &theta));
  SRCellsPartitionGetTheta(*cells, theta);
  for (PetscInt d = 0, q = 0; d < sys->n; d++) {
    const double step = (sys->dhi[d] - sys->dlo[d]) / (double)counts[d];
    for (PetscInt i = 1; i < counts[d]; i++, q++) theta[q] += frac * step * (2 * U01(seed, ctr) - 1);
  }
  PetscCall(SRCellsPartitionSetTheta(*cells, theta));
  PetscCall(PetscFree(theta));
  PetscFunctionReturn(PETSC_SUCCESS);
}
