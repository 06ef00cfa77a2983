/* The abstraction file of simreach verify (SPEC §10; abstraction layer,
   src/abstraction/abstraction_file.c the reader, abstraction_write.c the writer; schema analysis/abstraction-schema.md): the metrics it
   stores and its reader and writer.  Split from verify.h so that the file layer does not
   depend on the verification that writes it. */
#pragma once

#include <simreach/axes.h>
#include <simreach/model.h>

typedef struct {
  PetscInt64 K;
  PetscInt64 entries;    /* sum_k |C(k)| (sink counts one) */
  PetscInt64 sink;       /* cells whose list holds the sink */
  PetscInt64 failures;   /* cells whose containment test failed (nonfinite included) */
  PetscInt64 nonfinite;  /* cells with a NaN/Inf enclosure */
  double     succ_mean;  /* entries / K */
  double     volE_mean;  /* mean vol(E_k) / vol(D), each term rounded to 2^-30 and summed exactly */
  double     t_enclose, t_lists, t_contain, t_write; /* max over ranks, seconds */
} SRVerifyMetrics;

typedef struct _p_SRAbstractionFile *SRAbstractionFile;

/* The abstraction file (parallel HDF5).  Writer: created as path.part, renamed on close.
   Reader API (for verify, check and the closed-loop questions of SPEC §12): open, the header,
   the axes, the network, and owned-range reads of the lists and enclosures. */
typedef struct {
  char        sys[16];
  char        plant[PETSC_MAX_PATH_LEN]; /* sys "plant": the plant file (SPEC §16; system_record.c) */
  uint64_t    plant_digest;              /* and its digest */
  SRModelType model;
  PetscInt    nhidden, widths[SR_MAX_LAYERS];
  PetscInt    nparams;
  char        enclosure[16];
  PetscInt    bisect;
  PetscInt    n;
  PetscInt64  K;
  double      sys_param[3], sys_dt, sys_umax;
  PetscInt    control_steps;
  char        source[256];
  char        activations[8 * (SR_MAX_LAYERS + 1)]; /* "" for simreach's own tanh network, else one name per layer (format 2) */
  PetscBool   has_in, has_out;                       /* format 2: the network's input / output transforms (SPEC §14) */
  double      in_lo[SR_MAX_DIM], in_hi[SR_MAX_DIM], in_mean[SR_MAX_DIM], in_range[SR_MAX_DIM], out_scale[SR_MAX_DIM], out_offset[SR_MAX_DIM];
} SRAbstractionHeader;
PetscErrorCode SRAbstractionFileCreate(MPI_Comm comm, const char path[], PetscBool force, const SRAbstractionHeader *h, SRAxes ax, const double *params, SRAbstractionFile *af);
/* Not collective: a rank writes its rows [k0, k0 + nk) (independent MPI-IO; nk may be 0). */
PetscErrorCode SRAbstractionFileWriteChunk(SRAbstractionFile af, PetscInt64 k0, PetscInt64 nk, const double *E, const int32_t *rows);
/* Collective: failures of this rank (nf cells, their flags and witnesses), then the metrics;
   closes and renames the file. */
PetscErrorCode SRAbstractionFileFinish(SRAbstractionFile af, PetscInt64 nf, const int64_t *cell, const double *witness, const SRVerifyMetrics *m);
PetscErrorCode SRAbstractionFileOpen(MPI_Comm comm, const char path[], SRAbstractionFile *af);
/* Open validates the header, every small dataset's checksum and the partition (SPEC §13).
   ValidateRows (collective) checks every row of /cells (shape, row checksum, flag, index
   ranges, the list against the stored enclosure: abstraction_validate.c), refusing the first
   bad row by name; a reader calls it before any answer, after its memory check. */
PetscErrorCode SRAbstractionFileValidateRows(SRAbstractionFile af);
/* Collective: *is = the file exists and states the abstraction format (no error otherwise). */
PetscErrorCode SRAbstractionFileProbe(MPI_Comm comm, const char path[], PetscBool *is);
PetscErrorCode SRAbstractionFileGetHeader(SRAbstractionFile af, const SRAbstractionHeader **h);
/* The axes (owned by af) and a model built from the stored network (caller destroys both model and *sys). */
PetscErrorCode SRAbstractionFileGetAxes(SRAbstractionFile af, SRAxes *ax);
PetscErrorCode SRAbstractionFileGetModel(SRAbstractionFile af, SRSystem *sys, SRModel *model);
/* Independent reads of rows [k0, k0 + nk): rows (nk x (2n+1) int32) and/or E (nk x 2n), either may be NULL. */
PetscErrorCode SRAbstractionFileRead(SRAbstractionFile af, PetscInt64 k0, PetscInt64 nk, int32_t *rows, double *E);
/* Every failing cell of /failures/cell (all ranks read all; caller frees *cells). */
PetscErrorCode SRAbstractionFileReadFailures(SRAbstractionFile af, PetscInt64 *nf, int64_t **cells);
PetscErrorCode SRAbstractionFileClose(SRAbstractionFile *af);
