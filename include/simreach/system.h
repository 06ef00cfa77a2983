/* The systems of SPEC §2 as rows of one table.

   A system is a value (constants + function pointers); SRSystemCreate copies the table row
   and applies the options (-sr_pendulum_g, ...).  The pendulum's LQR gain is computed by
   discrete Riccati iteration on the linearisation at the upright equilibrium. */
#pragma once

#include <simreach/base.h>
#include <simreach/interval.h>

typedef struct _n_SRTaylor *SRTaylorVec; /* forward: see enclosure.h */
typedef struct _p_SRSystem *SRSystem;

struct _p_SRSystem {
  char      name[16];
  PetscInt  n;                 /* state dimension */
  PetscInt  nu;                /* control dimension (0: dynamics mode only) */
  double    dlo[SR_MAX_DIM];   /* domain D = [dlo, dhi] */
  double    dhi[SR_MAX_DIM];
  double    umax;              /* |u| <= umax */
  double    dt;
  double    param[8];          /* system constants (pendulum: g, b; dubins: v) */
  double    K[SR_MAX_DIM];     /* reference feedback gain, u = clip(-K x) */
  PetscBool has_controller;
  PetscInt  control_steps;     /* -control_steps m: plant steps per control (zero-order hold, SPEC §2) */
  PetscInt  nreg;              /* the states the reference regulates (SPEC §2: pendulum both, dubins py, h) */
  PetscInt  reg[SR_MAX_DIM];
  double    ref_rho;           /* spectral radius of the reference closed loop's regulated part (SPEC §2) */
  /* point step y = F(x, u); u is ignored when nu == 0 */
  void (*step)(SRSystem, const double *x, const double *u, double *y);
  /* Jacobians dF/dx (n x n, row-major) and dF/du (n x nu) at (x, u) */
  void (*step_jacobian)(SRSystem, const double *x, const double *u, double *Jx, double *Ju);
  /* sound interval step: Y contains F(x, u) for all x in X, u in U */
  void (*step_interval)(SRSystem, const SRInterval *X, const SRInterval *U, SRInterval *Y);
};

/* Logically collective on comm (reads options with the given prefix). name: toy1d|pendulum|dubins */
PetscErrorCode SRSystemCreate(MPI_Comm comm, const char name[], const char prefix[], SRSystem *sys);
PetscErrorCode SRSystemDestroy(SRSystem *sys);
PetscErrorCode SRSystemView(SRSystem sys, PetscViewer viewer);
/* List of the known names, for error messages: "toy1d, pendulum, dubins". */
const char *SRSystemNames(void);
/* Reference controller u_ref(x) = clip(-K x, -umax, umax). Error if the system has none. */
void SRSystemReferenceControl(SRSystem sys, const double *x, double *u);
/* True closed-loop reference step F_ref(x) = F(x, u_ref(x)) (dynamics with no control for toy1d). */
void SRSystemReferenceStep(SRSystem sys, const double *x, double *y);
/* The held step of SPEC §2 (-control_steps m): y = F(..F(F(x, u), u).., u), m plant steps
   with the same u (zero-order hold); m = 1 is the plain step. */
void SRSystemStepHeld(SRSystem sys, const double *x, const double *u, double *y);
/* Sound interval extension of SRSystemStepHeld: Y contains it for all x in X, u in U. */
void SRSystemStepHeldInterval(SRSystem sys, const SRInterval *X, const SRInterval *U, SRInterval *Y);
/* du (nu) = dY^T d(SRSystemStepHeld)/du at (x, u), by reverse mode through the m steps. */
void SRSystemStepHeldVJP(SRSystem sys, const double *x, const double *u, const double *dY, double *du);
/* Sets the control period m (SPEC §2) and recomputes what depends on it: the pendulum's gain
   (LQR of the held map) and ref_rho.  With refuse, a reference closed loop whose regulated part
   has spectral radius >= 1 is refused (PETSC_ERR_ARG_OUTOFRANGE, exit 2, naming the radius);
   without (reading a stored network, where the reference plays no part), it is only recorded. */
PetscErrorCode SRSystemSetControlSteps(MPI_Comm comm, SRSystem sys, PetscInt m, PetscBool refuse);
/* The closed loop a stored network or abstraction states (SPEC §13; src/model/system_stored.c):
   sys, made by SRSystemCreate from the options, takes the stored constants (param[0..2], dt,
   umax) and control_steps (0: none stored, the option's value stays).  An option the user gave
   (-pendulum_g, ..., -dubins_umax, -control_steps) with another value is refused in one line
   (PETSC_ERR_ARG_INCOMP, exit 2) naming the option, its value, `what` (e.g. "the network file
   net.h5") and the stored value. */
PetscErrorCode SRSystemAdoptStored(MPI_Comm comm, SRSystem sys, const double param[3], double dt, double umax, PetscInt control_steps, const char what[]);
/* The linearisation at the equilibrium x = 0, u = 0 of the held map (m plant steps, u held):
   A (n x n) and B (n x nu), row-major. */
void SRSystemHeldLinearisation(SRSystem sys, double *A, double *B);
/* One start-up line (rank 0 of comm): the reference gain and its closed loop's spectral radius
   (SPEC §2); nothing for a system without a reference controller. */
PetscErrorCode SRSystemPrintReference(MPI_Comm comm, SRSystem sys, const char who[]);
/* Spectral radius of the n x n row-major matrix A. */
PetscErrorCode SRSpectralRadius(PetscInt n, const double *A, double *rho);
/* The discrete LQR gain for (A, B, Q, R) by Riccati iteration; A n x n, B n x m row-major. */
PetscErrorCode SRLQRGain(PetscInt n, PetscInt m, const double *A, const double *B, const double *Q, const double *R, double *K);
