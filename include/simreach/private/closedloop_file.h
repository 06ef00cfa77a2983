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

/* What a safety file states besides its horizons (format simreach-safety-2, SPEC §13): the
   question's source (an abstraction file, run -1; or a run of a results file: its index, or -2
   and beta, tau, seed), the system and partition it is about, and the summary. */
typedef struct {
  char            sys[16], label[PETSC_MAX_PATH_LEN + 160], source[PETSC_MAX_PATH_LEN];
  char            plant[PETSC_MAX_PATH_LEN]; /* sys "plant": the plant file (SPEC §16) */
  uint64_t        plant_digest;              /* and its digest */
  PetscInt64      run, seed;
  double          beta, tau;
  PetscInt        n, counts[SR_MAX_DIM];
  double          dlo[SR_MAX_DIM], dhi[SR_MAX_DIM];
  SRSafetySummary sum;
} SRSafetyHeader;

/* Writes the safety file (created as path.part, exclusively, then renamed; an existing path
   only with force): /horizon (int32 per cell, -1 = never leaves D), its per-row checksums
   /horizon_checksum, and the header under one checksum. Collective. */
PetscErrorCode SRSafetyFileWrite(MPI_Comm comm, const char path[], PetscBool force, const SRSafetyHeader *h, const SRIndexGraph *g, const PetscInt *horizon);
/* The checksum over a safety file's header (src/graph/safety_file.c). */
uint64_t SRSafetyHeaderSum(const SRSafetyHeader *h);
/* Collective: opens and validates a safety file before anything is answered from it (format,
   header checksum, the system's domain, counts against K, every row's checksum and value,
   the summary against the rows); a failure is refused in one line naming file, dataset, row.
   *mine (SR_HORIZON_SAFE for -1) is this rank's block [*ks, *ke) of SRVerifyOwnership. */
PetscErrorCode SRSafetyFileOpen(MPI_Comm comm, const char path[], SRSafetyHeader *h, PetscInt **mine, PetscInt64 *ks, PetscInt64 *ke);
/* Collective: path is an HDF5 file whose simreach_format is a safety file's (any version). */
PetscErrorCode SRSafetyFileProbe(MPI_Comm comm, const char path[], PetscBool *is);
