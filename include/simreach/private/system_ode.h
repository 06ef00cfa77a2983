/* One control period of a plant file with the control held: the step of the abstraction for a
   continuous-time plant (SPEC §16; the flow of §15, include/simreach/odeflow.h).

   The map is x(T) = Phi_T(x, u, w): the state after one period T from x, with the controls u
   and the disturbances w held constant over the period (zero-order hold, as in the ARCH-COMP
   benchmarks).  A discrete-time plant ('next' lines) is one update.  Three views of it:
     - SRPlantPeriodEnclose: sound.  Y contains Phi_T(x, u, w) for every x in the box X, u in
       the box U (or affine forms of the cell's coordinates, SRPlantPeriodEncloseAffine) and w
       in the file's disturbance boxes; false when the validated flow fails (then Y is not
       touched: the caller maps the cell to everything);
     - SRPlantPeriodSimulate: classical RK4 with sim_substeps steps per period (not validated;
       for sampling, training and targets);
     - SRPlantPeriodJacobian: d(RK4 map)/dx and d/du by forward mode through the same RK4
       steps (the exact derivative of the simulated map up to rounding, not validated; for
       the reference LQR and training gradients).
   Disturbances in the two non-validated views are the boxes' midpoints unless given.
   The plain calls allocate their work per call; the *With calls use an SRPlantPeriod that
   holds the options and every buffer, so a caller enclosing many cells (verify) allocates once
   per rank.  Not collective; no global state; an SRPlantPeriod serves one thread. */
#pragma once

#include <simreach/odeflow.h>

typedef struct {
  SRFlowOptions flow;         /* order, sub-steps, halvings (and the planted shrink of the tests) */
  int           symbols;      /* noise symbols beside the cell's n coordinates (flow sub-steps keep remainders as symbols) */
  int           sim_substeps; /* RK4 steps per period of the simulation and the Jacobian */
} SRPlantPeriodOptions;

typedef struct {
  const SRPlant       *pl;
  SRPlantPeriodOptions o;
  int                  m;  /* coordinates of the forms: n + symbols */
  int                  np; /* tangent directions of the Jacobian: n + nu */
  SRFlowLinear        *lin; /* a linear plant's exact period map (o.flow.linear), or NULL: the Taylor flow */
  SRAffine            *work, *vars, *X, *Y, *T;
  SRInterval          *TB;
  double              *dwork; /* simulation and tangent evaluation */
} SRPlantPeriod;

/* Collective on comm: refuses in one line a plant whose period the flow cannot take (a period
   below 2^-900 or not finite, more states than an affine form has coordinates); called once when
   a system is made from the plant. */
PetscErrorCode SRPlantPeriodSetUp(MPI_Comm comm, const SRPlant *pl);
/* order 6, one sub-step (halved up to 8 times when its a-priori enclosure fails), no symbols,
   20 RK4 steps (the -closedloop_* defaults, docs/arch.md) */
void           SRPlantPeriodOptionsDefault(SRPlantPeriodOptions *o);
PetscErrorCode SRPlantPeriodCreate(const SRPlant *pl, const SRPlantPeriodOptions *o, SRPlantPeriod **P);
PetscErrorCode SRPlantPeriodDestroy(SRPlantPeriod **P);

/* The plain calls (default options, work allocated per call). */
void SRPlantPeriodSimulate(const SRPlant *pl, const double *x, const double *u, double *y);
bool SRPlantPeriodEnclose(const SRPlant *pl, const SRInterval *X, const SRInterval *U, SRInterval *Y);
void SRPlantPeriodJacobian(const SRPlant *pl, const double *x, const double *u, double *Jx, double *Ju);

/* w: pl->nw disturbances, NULL for the boxes' midpoints */
void SRPlantPeriodSimulateWith(SRPlantPeriod *P, const double *x, const double *u, const double *w, double *y);
/* tube (optional, n intervals): the states over the whole period (the sample times alone for a
   discrete-time plant: the hull of X and Y) */
bool SRPlantPeriodEncloseWith(SRPlantPeriod *P, const SRInterval *X, const SRInterval *U, SRInterval *Y, SRInterval *tube);
/* U: nu affine forms over the cell's normalised coordinates xi in [-1, 1]^n, x_i = c_i + r_i xi_i
   with c_i = mid X_i and r_i its upward radius (the taylor1 enclosure of a controller over the
   cell, SPEC §7): keeps the control's dependence on the state through the flow */
bool SRPlantPeriodEncloseAffine(SRPlantPeriod *P, const SRInterval *X, const SRAffine *U, SRInterval *Y, SRInterval *tube);
/* nb cells: boxes row c = lo[0..n) hi[0..n), U row c = lo[0..nu) hi[0..nu); E row c = the
   enclosure's lo[0..n) hi[0..n) ([-inf, inf] where the flow failed, ok[c] false).  The flow is
   per cell (affine forms, adaptive halving): the block shares the buffers, not the arithmetic.
   Returns the number of cells whose flow failed. */
int SRPlantPeriodEncloseBlock(SRPlantPeriod *P, int nb, const double *boxes, const double *U, double *E, bool *ok);
/* Jx n x n, Ju n x nu, row-major */
void SRPlantPeriodJacobianWith(SRPlantPeriod *P, const double *x, const double *u, double *Jx, double *Ju);
