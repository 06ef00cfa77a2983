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

/* The period map of a linear plant (src/model/flow_linear.c): when every der line is affine in
   the states, controls and disturbances with constant coefficients, the flow over any time
   interval T is the interval matrix e^{M T} (M = [A (B E c); 0 0], d = n + nu + nw + 1
   columns) applied to the forms, exact up to outward rounding and a tail below 1e-25. */
typedef struct _n_SRFlowLinear SRFlowLinear;
/* NULL when the plant is not linear (or discrete, or its matrix too large for the series) */
SRFlowLinear     *SRFlowLinearCreate(const SRPlant *pl);
void              SRFlowLinearDestroy(SRFlowLinear **L);
int               SRFlowLinearDim(const SRFlowLinear *L);
/* M, d x d row-major (the bottom nu + nw + 1 rows zero) */
const SRInterval *SRFlowLinearMatrix(const SRFlowLinear *L);
/* E (d x d) containing e^{M' t} for every t in T (0 <= T.lo) and every point M' of M; false when
   an entry is not finite.  planted (tests only): Phi replaced by 0.99 of its midpoints, a fault
   the soundness suite must catch. */
bool SRFlowLinearExpInto(const SRFlowLinear *L, SRInterval T, bool planted, SRInterval *E);
/* the same, cached for the last few T in L (an SRFlowLinear serves one thread); NULL on failure */
const SRInterval *SRFlowLinearExp(SRFlowLinear *L, SRInterval T);
/* Y_i = sum_j E_ij (X_j, the held controls and disturbances of vars, 1) for the n states, m
   coordinates, outward; false when a result is not finite */
bool SRFlowLinearApply(const SRFlowLinear *L, int m, const SRInterval *E, const SRAffine *X, const SRAffine *vars, SRAffine *Y);

typedef struct {
  int    order;    /* q >= 1 (SPEC §15 asks q >= 4; the default is 6) */
  int    substeps; /* sub-steps per period (a power of two) */
  int    halvings; /* how often a sub-step may be halved when its a-priori enclosure fails */
  double shrink;   /* planted violation for the soundness suite: 0 (off) or a factor in (0,1) by which the result is shrunk */
  int    substeps_max; /* adaptive sub-steps (odeloop.c): a period whose flow fails or whose always check misses is retried with twice the sub-steps, up to this many (>= substeps; = substeps: off) */
  double retry_shrink; /* planted violation: 0 (off) or the factor by which a retried period's result is shrunk */
  double join_shrink;  /* planted violation: 0 (off) or the factor by which a join of two halves (src/reach/subtree.c) is shrunk about its centre */
  bool          linear; /* a linear plant's period by its exact map (SRFlowLinear; default true; -plant_linear_flow, -closedloop_linear_flow) */
  SRFlowLinear *lin;    /* the map made once by the caller, or NULL: made per call when linear is set */
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
