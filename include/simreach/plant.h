/* Plant files: continuous-time plants under a sampled controller, or discrete-time plants with
   one update per period (SPEC §15 turn 4, docs/arch.md).

   A plant file names the states, the network's inputs as expressions of the states, the
   controls as expressions of the network's outputs y1..yM (and states), bounded disturbance
   inputs, the vector field x' = g(x, u, w), the control period T and the horizon.  All
   expressions live in one DAG (include/simreach/expr.h); variable slots are fixed: state i
   is slot i, control j SR_SLOT_U(j), disturbance k SR_SLOT_W(k), network output y_k+1
   SR_SLOT_Y(k) (so a slot never depends on how many controls follow). */
#pragma once

#include <simreach/base.h>
#include <simreach/expr.h>

#define SR_PLANT_MAX_INPUTS 64
#define SR_PLANT_MAX_OUTPUTS 64
#define SR_PLANT_NAME 32
/* States, controls and disturbances (each).  Not a limit of the method: the affine forms have
   SR_AFFINE_MAX coordinates, the piece's n, the network inputs' nin and the noise symbols
   (odeloop.c: 15 per state while they fit), and memory is checked against the machine
   (SRLoopCreate); docs/arch.md states the memory model. */
#define SR_PLANT_MAX_STATES 64
/* caps on what a file may ask for (SPEC §15 turn 4, docs/arch.md), checked in double before any
   cast and refused with file:line:col */
#define SR_PLANT_MAX_STEPS 10000000 /* periods in the horizon */
#define SR_PLANT_MIN_PERIOD 1e-9
#define SR_PLANT_MAX_PERIOD 1e9
#define SR_PLANT_MAX_DEPTH 100   /* nesting of parentheses, functions and signs in one expression */
#define SR_PLANT_MAX_NODES 10000 /* distinct operations of all expressions (constants are folded) */
#define SR_PLANT_MAX_BYTES (1L << 24) /* the file */
#define SR_PLANT_MAX_CONSTS 64
#define SR_SLOT_U(j) (SR_PLANT_MAX_STATES + (j))
#define SR_SLOT_W(k) (2 * SR_PLANT_MAX_STATES + (k))
#define SR_SLOT_Y(k) (3 * SR_PLANT_MAX_STATES + (k))
#define SR_PLANT_NVARS (3 * SR_PLANT_MAX_STATES + SR_PLANT_MAX_OUTPUTS)

typedef struct {
  char       path[PETSC_MAX_PATH_LEN];
  int        n, nin, nout, nu, nw;
  char       state[SR_PLANT_MAX_STATES][SR_PLANT_NAME];
  char       control[SR_PLANT_MAX_STATES][SR_PLANT_NAME];
  char       dist[SR_PLANT_MAX_STATES][SR_PLANT_NAME];
  SRInterval wbox[SR_PLANT_MAX_STATES];
  SRExpr     dag;
  int        in_root[SR_PLANT_MAX_INPUTS]; /* network input i = node in_root[i] */
  int        u_root[SR_PLANT_MAX_STATES];  /* control j */
  int        f_root[SR_PLANT_MAX_STATES];  /* x_i' (der), or x_i at the next sample (next) */
  int        select; /* 'select argmax initial K': several networks (one per output), network K
                       runs in the first period, then the argmax of the previous period's outputs
                       (SPEC §15 turn 4, docs/arch.md); 0: one network */
  bool       discrete; /* 'next' lines: x(j+1) = f(x(j), u, w), one update per period (docs/arch.md) */
  double     period;    /* the period's double */
  SRInterval period_iv; /* the period as written, enclosed (a decimal may be no double) */
  int        steps; /* horizon = steps * period */
  int        nvars; /* SR_PLANT_NVARS: the slots of vars[] arrays */
  /* the named constants, as used (after any override; SPEC §16: constants are options) */
  int        nconst;
  char       cname[SR_PLANT_MAX_CONSTS][SR_PLANT_NAME];
  SRInterval cval[SR_PLANT_MAX_CONSTS];
  double     cx[SR_PLANT_MAX_CONSTS]; /* the double (the literal rounded to nearest, or the option's value) */
  /* what the abstraction and the study need (SPEC §16, docs/arch.md; plantfile_system.c):
       domain NAME in [LO, HI]     the domain D, per state
       bound EXPR                  |u_j| <= EXPR for every control (u_max of SPEC §3)
       reference lqr               u = clip(-K x), K the discrete LQR gain (Q = I, R = I) of the
                                   held map linearised at x = 0, u = 0 (SPEC §2)
       reference NAME = EXPR       u_NAME = clip(EXPR), an expression of the states
       regulate NAME ...           the states the reference regulates (the spectral-radius check
                                   of SPEC §2; default: all) */
  bool       has_domain[SR_PLANT_MAX_STATES];
  double     dlo[SR_PLANT_MAX_STATES], dhi[SR_PLANT_MAX_STATES];
  double     umax; /* 0: no 'bound' line */
  int        reference; /* 0 none, 1 lqr, 2 expressions (ref_root) */
  int        ref_root[SR_PLANT_MAX_STATES];
  int        nreg, reg[SR_PLANT_MAX_STATES]; /* nreg 0: no 'regulate' line */
} SRPlant;

/* Constants given as options (SPEC §16): a 'const NAME = ...' line whose NAME is here takes the
   value instead (a point, exact); names the file does not define are the caller's to refuse. */
typedef struct {
  int    n;
  char   name[SR_PLANT_MAX_CONSTS][SR_PLANT_NAME];
  double value[SR_PLANT_MAX_CONSTS];
} SRPlantConsts;
/* SRPlantParse with constants overridden (ov may be NULL) */
PetscErrorCode SRPlantParseConsts(MPI_Comm comm, const char name[], const char text[], const SRPlantConsts *ov, SRPlant *plant);
/* The text of a regular file (rank 0 reads, broadcast; refused in one line as SRPlantRead does);
   free() it. */
PetscErrorCode SRPlantReadText(MPI_Comm comm, const char path[], char **text);

/* Reads and parses path (rank 0 reads, every rank parses the same bytes); a bad file is
   refused on comm with one line "plant file PATH:LINE:COL: problem" (PETSC_ERR_FILE_UNEXPECTED). */
PetscErrorCode SRPlantRead(MPI_Comm comm, const char path[], SRPlant *plant);
/* Parses text (name is used in messages). */
PetscErrorCode SRPlantParse(MPI_Comm comm, const char name[], const char text[], SRPlant *plant);
void           SRPlantFree(SRPlant *plant);
/* slot of the variable named name (-1 if none); kinds: 's' state, 'u' control, 'w' disturbance */
int SRPlantStateIndex(const SRPlant *plant, const char name[]);
