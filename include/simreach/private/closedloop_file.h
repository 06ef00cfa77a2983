/* The closed-loop questions of SPEC §12 asked of an abstraction file: the owned lists as an
   index graph, sampled trajectories of the stored network as a falsification check, and the
   safety file of `simreach safe` (analysis/abstraction-schema.md, "The safety file"). */
#pragma once

#include <simreach/closedloop.h>
#include <simreach/verify.h>

typedef struct {
  SRIndexGraph g;                    /* views the arrays below */
  PetscInt    *lo, *hi;              /* owned cells x n */
  PetscBool   *sink;                 /* owned cells */
  double      *bounds[SR_MAX_DIM];   /* N_d + 1 boundaries (midpoints of their enclosures) */
  PetscInt64   unverified;           /* cells (all ranks) given the sink: failures, NaN/Inf enclosures */
} SRIndexGraphStore;

/* Collective: the block of SRVerifyOwnership of every rank. */
PetscErrorCode SRIndexGraphLoad(MPI_Comm comm, SRAbstractionFile af, SRIndexGraphStore *s);
PetscErrorCode SRIndexGraphStoreDestroy(SRIndexGraphStore *s);

/* A run of a results file: by index, or (by_point) by its beta, tau and seed. */
typedef struct {
  PetscInt  run;
  PetscBool by_point;
  double    beta, tau;
  PetscInt  seed;
} SRRunSelect;

/* Collective: the graph of the abstraction a finished run certified at its end (its final
   partition and index-box lists; cells its last re-check did not prove get the sink), with the
   system, the model holding its final network and the partition as axes; label names the run.
   Partition runs only (free boxes are refused, naming the alternative). */
PetscErrorCode SRIndexGraphLoadRun(MPI_Comm comm, const char file[], const SRRunSelect *sel, SRIndexGraphStore *s, SRSystem *sys, SRModel *model, SRAxes *ax, char label[], size_t len);

/* What safe and reach ask: an abstraction file, or a run of a results file. */
typedef struct {
  SRIndexGraphStore gs;
  SRAxes            ax;                      /* the partition (borrowed from af, or owned) */
  SRSystem          sys;
  SRModel           model;                   /* the network, for the trajectory check */
  SRAbstractionFile af;                      /* NULL for a results file */
  char              label[PETSC_MAX_PATH_LEN + 160];
} SRClosedLoopSource;

/* Inside a PetscOptionsBegin block: -run r, or -run_beta b -run_tau t -run_seed s (exactly one
   way; *set says whether any was given). */
PetscErrorCode SRRunSelectOptions(PetscOptionItems *PetscOptionsObject, MPI_Comm comm, SRRunSelect *sel, PetscBool *set);
/* Collective: opens file as an abstraction file (sel must be NULL) or as a results file (sel
   names the run; refused when missing, naming the options). */
PetscErrorCode SRClosedLoopSourceOpen(MPI_Comm comm, const char file[], const SRRunSelect *sel, SRClosedLoopSource *src);
PetscErrorCode SRClosedLoopSourceClose(SRClosedLoopSource *src);

typedef struct {
  PetscInt64 trajectories; /* drawn (start cell uniform over all K cells) */
  PetscInt64 with_claim;   /* of those, started in a cell with horizon >= 1 */
  PetscInt64 steps;        /* steps simulated within the claims */
  PetscInt64 violations;   /* trajectories that left D before their cell's horizon (or cap) ran out */
} SRTrajectoryCounts;

/* From a uniform point of a uniformly drawn cell with verified horizon h, the real f_phi is
   stepped min(h, cap) times (cap steps for safe cells); each leaving D within them is counted.
   Collective; counts identical on any number of ranks. */
PetscErrorCode SRClosedLoopTrajectoryCheck(MPI_Comm comm, SRModel model, SRAxes ax, const SRIndexGraph *g, const PetscInt *horizon, PetscInt64 ntraj, PetscInt cap, uint64_t seed, SRTrajectoryCounts *c);

typedef struct {
  PetscInt64         K;
  PetscInt           iterations;
  double             safe_fraction, time_total;
  PetscInt64         safe_cells, unverified;
  PetscInt           max_horizon;   /* largest finite horizon */
  double             mean_horizon;  /* mean finite horizon over the cells that may leave D */
  SRTrajectoryCounts traj;
  PetscInt           traj_cap;
} SRSafetySummary;

/* Writes the safety file (created as path.part, exclusively, then renamed; an existing path
   only with force): /horizon (int32 per cell, -1 = never leaves D) and the summary. Collective. */
PetscErrorCode SRSafetyFileWrite(MPI_Comm comm, const char path[], PetscBool force, const char abstraction[], const SRIndexGraph *g, const PetscInt *horizon, const SRSafetySummary *sum);
