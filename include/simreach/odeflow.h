/* The validated flow of a plant over one control period with the control held (SPEC §15).

   For x' = g(x, u, w) with u and w constant over the period (affine forms over the piece's
   coordinates, held by the caller in vars[]), one step of length h (optionally cut into
   sub-steps, each cut again in halves when its a-priori enclosure cannot be found):
     1. a-priori enclosure B of x(t), t in [0, h], by Picard iteration: a box B with
        Range(X) + [0, h] g(B, U, W) inside B (then the solution exists on [0, h] and stays
        in that smaller set);
     2. the Taylor coefficients x_0 .. x_{q-1} of the flow from X, by Taylor-mode
        differentiation of g in affine forms (include/simreach/expr.h);
     3. the Lagrange remainder x_q(B) h^q, the q-th coefficient enclosed over B;
     x(h) in sum_{k<q} x_k h^k + x_q(B) h^q, and over [0, h] the tube
     sum_{k<q} x_k [0, h]^k + x_q(B) [0, h]^q, intersected with B.
   Not collective; no global state. */
#pragma once

#include <simreach/plant.h>

typedef struct {
  int    order;    /* q >= 1 (SPEC §15 asks q >= 4; the default is 6) */
  int    substeps; /* sub-steps per period (a power of two) */
  int    halvings; /* how often a sub-step may be halved when its a-priori enclosure fails */
  double shrink;   /* planted violation for the soundness suite: 0 (off) or a factor in (0,1) by which the result is shrunk */
  int    substeps_max; /* adaptive sub-steps (odeloop.c): a period whose flow fails or whose always check misses is retried with twice the sub-steps, up to this many (>= substeps; = substeps: off) */
  double retry_shrink; /* planted violation: 0 (off) or the factor by which a retried period's result is shrunk */
} SRFlowOptions;

void SRFlowOptionsDefault(SRFlowOptions *o);

/* The work array SRFlowStep needs (in SRAffine forms). */
size_t SRFlowWorkSize(const SRPlant *pl, const SRFlowOptions *o);

/* X (pl->n forms over m <= SR_AFFINE_MAX coordinates) at time t; vars (pl->nvars forms)
   holds the controls and disturbances (state slots ignored).  Xout: the state at t + h;
   The step length h is an interval (the period as the plant file wrote it, a decimal that
   may be no double): Xout holds x(t + s) for every s in h.  tube (pl->n forms): the states
   over [t, t + sup h]; tubebox: a box enclosing them (may be
   tighter than the range of tube).  Returns false when no enclosure was found. */
bool SRFlowStep(const SRPlant *pl, int m, const SRAffine *X, const SRAffine *vars, SRInterval h, const SRFlowOptions *o, SRAffine *Xout, SRAffine *tube, SRInterval *tubebox, SRAffine *work);

/* The tube of one step in parts (SRFlowStepParts): part k encloses the states over the k-th
   sub-step (or half sub-step) of the step, as n forms (tube + k n, with the time inside the
   sub-step boxed) and n intervals (box + k n); the parts together cover [t, t + sup h].  At
   most max parts: beyond, the last part takes the hull of the rest.  Checking a constraint on
   every part is tighter than on the step's hull, whose corners mix the states of different
   times (docs/arch.md, "Adaptive sub-steps"). */
typedef struct {
  int         max, count;
  SRAffine   *tube;
  SRInterval *box;
  double      coarse; /* the largest ratio, over the sub-steps and states, of the Lagrange remainder's width to the state's (a local error estimate: adaptive sub-steps) */
} SRFlowParts;

/* SRFlowStep, and the parts of the tube in P (P->count set; P may be NULL) */
bool SRFlowStepParts(const SRPlant *pl, int m, const SRAffine *X, const SRAffine *vars, SRInterval h, const SRFlowOptions *o, SRAffine *Xout, SRAffine *tube, SRInterval *tubebox, SRFlowParts *P, SRAffine *work);
/* planted violation for the soundness suite: Xout, tube, tubebox and every part of P (may be
   NULL) shrunk by the factor f about their centres */
void SRFlowShrink(const SRPlant *pl, int m, double f, SRAffine *Xout, SRAffine *tube, SRInterval *tubebox, SRFlowParts *P);

/* Non-validated simulation for falsification and the oracle: classical RK4 with nsub steps
   over h from x (pl->n doubles), controls/disturbances in vars (pl->nvars doubles). */
void SRFlowSimulate(const SRPlant *pl, const double *x, const double *vars, double h, int nsub, double *xout, double *work);
