/* A system is a plant file (SPEC §2, §16).

   SRSystemCreate resolves -sys NAME to a shipped plant file (jobs/plants/NAME.txt, compiled
   in), SRSystemCreateFromPlantFile takes any file; step, Jacobian, interval extension and the
   taylor1 step all come from the file's expression DAG (src/model/system_plant.c), the
   constants are options -NAME_CONST (the file's 'const' lines), the reference gain of
   'reference lqr' is the discrete LQR gain (Riccati iteration) of the held map's
   linearisation at x = 0, u = 0. */
#pragma once

#include <simreach/base.h>
#include <simreach/interval.h>
#include <simreach/plant.h>
#include <simreach/taylor.h>

typedef struct _n_SRTaylor *SRTaylorVec; /* forward: see enclosure.h */
typedef struct _p_SRSystem *SRSystem;

struct _p_SRSystem {
  char      name[16];          /* the shipped name, or "plant" for -plant FILE */
  PetscInt  n;                 /* state dimension */
  PetscInt  nu;                /* control dimension (0: dynamics mode only) */
  double    dlo[SR_MAX_DIM];   /* domain D = [dlo, dhi] */
  double    dhi[SR_MAX_DIM];
  double    umax;              /* |u| <= umax */
  double    dt;
  double    param[8];          /* the file's first three constants other than dt and umax, as files
                                  store them (toy1d: a, b, k; pendulum: g, b; dubins: v) */
  double    K[SR_MAX_DIM * SR_MAX_DIM]; /* reference feedback gain, u = clip(-K x), nu x n row-major
                                          (an expression reference: -du/dx at 0) */
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
  /* sound first-order Taylor-model step (SPEC §7): Y encloses F(X(xi), U(xi)) over the cell */
  void (*step_taylor)(SRSystem, const SRTaylor *X, const SRTaylor *U, SRTaylor *Y);
  /* the plant file (SPEC §16; src/model/system_plant.c) */
  char          *plant_text;                     /* its text, as read */
  char           plant_path[PETSC_MAX_PATH_LEN]; /* the file (or "shipped NAME") */
  uint64_t       plant_digest;                   /* SRChecksum64 of text and constant overrides */
  SRPlant       *plant;                          /* parsed with the constants of consts */
  SRPlantConsts  consts;                         /* constants given as options (or adopted) */
  int            pconst[5];                      /* const index of param[0..2], dt, umax (-1 none) */
  double        *wd;                             /* scratch: DAG values and tangents (doubles) */
  SRInterval    *wi;                             /* scratch: interval values, slot variables */
  SRTaylor      *wt;                             /* scratch: Taylor-model values, slot variables */
  int           *xuses;                          /* SRExprUses of the DAG, the updates the roots */
  void          *xform;                          /* scratch: SRExprLinearWorkSize */
};

/* Logically collective on comm (reads options with the given prefix). name: toy1d|pendulum|dubins,
   the shipped plant files (SRSystemNames). */
PetscErrorCode SRSystemCreate(MPI_Comm comm, const char name[], const char prefix[], SRSystem *sys);
/* A system from any plant file (-plant FILE, SPEC §16): its constants are the options
   -plant_CONST.  Refused in one line: a file without a 'domain' for every state, more states
   or controls than SR_MAX_DIM, disturbances, or (for -model controller) no 'bound'. */
PetscErrorCode SRSystemCreateFromPlantFile(MPI_Comm comm, const char path[], const char prefix[], SRSystem *sys);
/* The same from a plant file's text (a stored one, SPEC §13): optname names the constants'
   options (-optname_CONST), where names the text in messages. */
PetscErrorCode SRSystemCreateFromPlantText(MPI_Comm comm, const char optname[], const char where[], const char text[], const char prefix[], SRSystem *sys);
/* -sys NAME (default pendulum) or -plant FILE from the options database opts (NULL: the global
   one), collective; both together are refused in one line. */
PetscErrorCode SRSystemCreateFromOptions(MPI_Comm comm, PetscOptions opts, const char prefix[], SRSystem *sys);
/* A file records a plant-file system (name "plant") by path and digest (sys->plant_digest, over
   the text and the constants; src/model/system_record.c, SPEC §13, §16): SRSystemCheckDigest
   refuses in one line, naming what and the recorded path, a system with another digest;
   SRSystemCreateStored makes the system a file names (a shipped name, or "plant" from -plant if
   given, else from the recorded path). */
PetscErrorCode SRSystemCheckDigest(MPI_Comm comm, SRSystem sys, const char recorded[], uint64_t digest, const char what[]);
PetscErrorCode SRSystemCreateStored(MPI_Comm comm, const char sysname[], const char plant[], const char prefix[], SRSystem *sys);
/* The text of the shipped plant file NAME (NULL when there is none). */
const char *SRSystemShippedPlant(const char name[]);
/* Re-parses the plant with sys->consts and re-derives what depends on the constants
   (the gain, ref_rho); after SRSystemAdoptStored or a constant set by hand. */
PetscErrorCode SRSystemRebuild(MPI_Comm comm, SRSystem sys);
/* The taylor1 step, m held steps (SPEC §2, §7). */
void SRSystemStepHeldTaylor(SRSystem sys, const SRTaylor *X, const SRTaylor *U, SRTaylor *Y);
PetscErrorCode SRSystemDestroy(SRSystem *sys);
PetscErrorCode SRSystemView(SRSystem sys, PetscViewer viewer);
/* List of the known names, for error messages: "toy1d, pendulum, dubins". */
const char *SRSystemNames(void);
/* Reference controller (SPEC §2): clip(-K x, -umax, umax) for 'reference lqr', clip(EXPR) for
   'reference u = EXPR'; u untouched if the system has none. */
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
/* one held step more of a chained linearisation: A <- J A, B <- J B + J_u (n x n, n x nu) */
void SRSystemChainStep(PetscInt n, PetscInt nu, const double *J, const double *Ju, double *A, double *B);
/* One start-up line (rank 0 of comm): the reference gain and its closed loop's spectral radius
   (SPEC §2); nothing for a system without a reference controller. */
PetscErrorCode SRSystemPrintReference(MPI_Comm comm, SRSystem sys, const char who[]);
/* Spectral radius of the n x n row-major matrix A. */
PetscErrorCode SRSpectralRadius(PetscInt n, const double *A, double *rho);
/* The discrete LQR gain for (A, B, Q, R) by Riccati iteration; A n x n, B n x m row-major. */
PetscErrorCode SRLQRGain(PetscInt n, PetscInt m, const double *A, const double *B, const double *Q, const double *R, double *K);
