/* The step of the abstraction for a plant file and a network (SPEC §16): per cell, the
   network's inputs are the file's `input` expressions of the state, the controls its `control`
   expressions of the network's outputs (and the state), and one control period with the
   controls held is enclosed by the validated flow (include/simreach/private/system_ode.h).
   The approach of the continuous-time loop (src/reach/loopcontrols.c) over one cell: the cell
   as affine forms x_i = c_i + r_i xi_i, the inputs, the network (src/bounds/netaffine.c) and the
   controls as affine forms over the same xi (so the control keeps its dependence on the state
   through the flow), or, with affine false, as intervals.  Not collective; one object per
   thread. */
#pragma once

#include <simreach/abstraction.h>
#include <simreach/netaffine.h>
#include <simreach/private/system_ode.h>

typedef struct _n_SRPlantStep *SRPlantStep;

/* pl and mlp are referenced, not copied; mlp's inputs and outputs must be the file's `input`
   lines and outputs y1..yM */
PetscErrorCode SRPlantStepCreate(const SRPlant *pl, SRMLP mlp, PetscBool affine, SRNetEnclosure how, const SRPlantPeriodOptions *o, SRPlantStep *s);
PetscErrorCode SRPlantStepDestroy(SRPlantStep *s);
/* nb boxes (row c: lo[0..n) then hi[0..n)); E row c: the enclosure's lo then hi, or
   [-inf, inf] with status SR_CELL_NONFINITE where the network, the controls or the flow
   failed (the cell then maps to every cell and the sink: still sound) */
PetscErrorCode SRPlantStepEncloseBoxes(SRPlantStep s, PetscInt nb, const double *boxes, double *E, SRCellStatus *status);
/* the closed loop at a point, not validated: y = x(T) from x with u = controls(N(inputs(x)))
   held, the disturbances w (NULL: midpoints) held; RK4 (o->sim_substeps) */
PetscErrorCode SRPlantStepSimulate(SRPlantStep s, const double *x, const double *w, double *y);
