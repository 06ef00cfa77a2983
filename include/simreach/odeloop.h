/* The closed loop of a plant file, a controller and a spec over one piece of X0 (SPEC §15).

   SRPieceProve runs the tube step by step from a box P: the network inputs as affine forms,
   the controller enclosed over their ranges (a sound interval enclosure of the network), the
   controls as affine forms of the outputs, then the validated flow over the period
   (include/simreach/odeflow.h); after every step the constraints are checked on the tube.
   SRPieceRefute runs the same enclosure from one point and reports whether it proves a
   violation (the point's every trajectory breaks a constraint).  SRSimulate is the cheap,
   non-validated simulation that proposes counterexamples.  Not collective. */
#pragma once

#include <simreach/odeflow.h>
#include <simreach/spec.h>

typedef struct {
  int   nin, nout;
  void *ctx;
  /* a sound enclosure out[0..nout) of the network over the box in[0..nin); nonzero on failure */
  int (*enclose)(void *ctx, const SRInterval *in, SRInterval *out);
  /* optional: a sound enclosure of the network as affine forms over the forms in[0..nin)
     (m coordinates); nonzero on failure.  Used instead of enclose when given. */
  int (*enclose_affine)(void *ctx, int m, const SRAffine *in, SRAffine *out);
  /* the network at a point (round to nearest) */
  int (*eval)(void *ctx, const double *in, double *out);
} SRController;

typedef enum { SR_PIECE_PROVEN = 0, SR_PIECE_OPEN = 1 } SRPieceStatus;

/* why a piece stays open (issue 35 item 5): SRPieceCauseText names it and the option that
   addresses it */
typedef enum {
  SR_CAUSE_NONE = 0,
  SR_CAUSE_CONTROLLER,  /* no enclosure of the network or the control expressions */
  SR_CAUSE_FLOW,        /* the validated flow over the period failed */
  SR_CAUSE_PERIOD_TUBE, /* always: the states at both sample times are proven, the period's tube is not */
  SR_CAUSE_BOUND,       /* always: the enclosure is wider than the margin */
  SR_CAUSE_TARGET,      /* at_end / eventually: no sample time's enclosure fits the target */
  SR_CAUSE_N
} SRPieceCause;
const char *SRPieceCauseText(SRPieceCause cause);

typedef struct {
  SRPieceStatus status;
  int           constraint, atom, step; /* the first constraint not proven, at this step (-1: the flow failed) */
  int           split; /* the dimension to bisect (-1: none can be split) */
  double        margin; /* how far the bound missed (sup a.x - b) */
  SRPieceCause  cause;
  int           substeps; /* open pieces: the sub-steps per period of the last attempt (adaptive sub-steps) */
} SRPieceResult;

typedef struct {
  const SRPlant      *plant;
  const SRSpec       *spec;
  const SRController *ctrl;
  /* several networks (plant->select): ctrls[k] runs when output k+1 was the argmax (set after
     SRLoopCreate; ctrl is ctrls[0] then) */
  const SRController *ctrls;
  int                 nctrl;
  SRFlowOptions       flow;
  /* optional record of the tube: steps x n boxes of the tube over each period, and of the
     states at the sample times ((steps + 1) x n) */
  SRInterval *tube, *states;
  /* noise symbols after the piece's n coordinates (SPEC §15): the remainders of the states and
     controls become symbols, folded (zonotope order reduction) when they run out; -1 (set by
     SRLoopCreate) takes 15n; at most as many as fit beside the network's input symbols */
  int       symbols;
  SRAffine *work;
  SRAffine *vars, *val;
  SRAffine *forms; /* the pieces' state forms (SRLoopCreate sizes them by the plant, not the stack) */
  SRAffine *svars, *sval, *sbox; /* the spec's DAG (nonlinear atoms): slots, values in forms, in intervals */
  bool      eval_failed; /* a point evaluation of the network failed (SRSimulate returned -inf) */
  SRFlowParts parts;   /* the parts of a period's tube (one per sub-step) */
  long        retries; /* periods run again with more sub-steps (adaptive sub-steps), this rank */
  bool        join_first; /* SRPieceProveWindow from a join (src/reach/subtree.c): its first period runs once, without the adaptive sub-steps */
} SRLoop;

PetscErrorCode SRLoopCreate(const SRPlant *plant, const SRSpec *spec, const SRController *ctrl, const SRFlowOptions *o, SRLoop *loop);
void           SRLoopDestroy(SRLoop *loop);
/* the forms' coordinates of a piece: its n, then the noise symbols (SPEC §15) */
int SRLoopCoordinates(const SRLoop *loop);
/* a piece's coordinate over [lo, hi]: x = c + rad xi with |xi| <= 1 for every x of [lo, hi]
   (rad rounded up) */
void SRPieceCoordinate(double lo, double hi, double *c, double *rad);
/* prove the spec for every point of the box [lo, hi] */
void SRPieceProve(SRLoop *loop, const double *lo, const double *hi, SRPieceResult *r);
/* the same over the periods s..e-1 only, from the forms Fs (n forms over the piece's
   coordinates and the noise symbols) at sample time s, or from the box when Fs is NULL (then s
   must be 0); Fe (optional, n forms) receives the states at sample time e.  Windows other than
   the whole horizon are for plants whose constraints are all 'always' and that select no
   network (SRLoopCanMerge); the sample time s is not checked again. */
void SRPieceProveWindow(SRLoop *loop, const double *lo, const double *hi, int s, int e, const SRAffine *Fs, SRAffine *Fe, SRPieceResult *r);
/* true when every trajectory from the point x0 violates constraint *c (set on return) */
bool SRPieceRefute(SRLoop *loop, const double *x0, int *c);
/* SRPieceRefute for an always constraint a simulation saw broken at time t: the periods up to
   the one after t only, then (refine) again with 256 and 4096 sub-steps in the periods around t,
   so that a violation shorter than 1/16 of a period is confirmed too (SPEC §15 turn 4) */
bool SRPieceRefuteNear(SRLoop *loop, const double *x0, double t, bool refine, int *c);

/* the violation a simulation saw: the constraint with the largest score, the time of its worst
   sample and the score (> 0: broken) */
typedef struct {
  int    constraint;
  double t, margin;
} SRSimViolation;

/* simulate from x0 (RK4, nsub steps per period); the largest violation score over the
   constraints (> 0: the simulated trajectory breaks one); traj (optional): (steps*nsub + 1) x n.
   Without traj the simulation stops at the first violation of an always constraint. */
double SRSimulate(SRLoop *loop, const double *x0, int nsub, double *traj);
/* the same, and the violation in *w (optional) */
double SRSimulateWorst(SRLoop *loop, const double *x0, int nsub, double *traj, SRSimViolation *w);
