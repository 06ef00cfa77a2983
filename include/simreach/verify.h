/* Verification at fine partitions (SPEC §10): the cells as per-dimension axes, the index-box
   lists of SPEC §5, their exact containment test, the distributed verify driver, the network
   file and the abstraction file (schema: analysis/abstraction-schema.md).

   Cells here are the products of per-dimension intervals: the regular grid of -cells, or a
   partition given by boundaries.  Nothing of size K is ever held whole: a rank owns the
   contiguous block of cells of SRVerifyOwnership and streams through it in chunks, so memory
   per rank is O(chunk) plus the axes (sum_d N_d numbers). */
#pragma once

#include <simreach/base.h>
#include <simreach/abstraction.h>
#include <simreach/model.h>
#include <simreach/system.h>

/* Per-dimension cell layout.  Cell k = i0 + N0 (i1 + N1 i2) (dimension 0 fastest).  Index i of
   dimension d covers the real interval [g_{d,i}, g_{d,i+1}]; olo/ohi hold a double box that
   contains it (the box every enclosure starts from; for the grid bit-identical to
   SRCellsBoxOuter of the grid cells), glo/ghi an enclosure of the real boundary g_{d,i}
   (exact doubles for a partition given by boundaries).  olo, ohi are non-decreasing in i. */
typedef struct _p_SRAxes *SRAxes;
struct _p_SRAxes {
  PetscInt   n;
  PetscInt   N[SR_MAX_DIM];
  PetscInt64 K;
  double     dlo[SR_MAX_DIM], dhi[SR_MAX_DIM];
  double    *olo[SR_MAX_DIM], *ohi[SR_MAX_DIM]; /* N[d] each */
  double    *glo[SR_MAX_DIM], *ghi[SR_MAX_DIM]; /* N[d] + 1 each */
  PetscBool  is_grid;                           /* the regular grid of D (else boundaries) */
};
PetscErrorCode SRAxesCreateGrid(SRSystem sys, const PetscInt counts[], SRAxes *ax);
/* b[d]: N[d] + 1 strictly increasing doubles, b[d][0] = dlo[d], b[d][N[d]] = dhi[d]. */
PetscErrorCode SRAxesCreateBoundaries(PetscInt n, const PetscInt N[], const double *const b[], SRAxes *ax);
PetscErrorCode SRAxesDestroy(SRAxes *ax);
/* Outward box of cell k. */
void SRAxesCellBox(SRAxes ax, PetscInt64 k, double *lo, double *hi);

/* An index-box list (SPEC §5): one row of 2n + 1 int32 per cell, lo[0..n), hi[0..n), flags.
   The list is the cells with lo[d] <= i_d <= hi[d] in every d (none if lo[d] > hi[d] in some d),
   plus the sink when flags & SR_LIST_SINK.  SR_LIST_NONFINITE marks a cell whose enclosure is
   NaN/Inf: its list is the sink alone and certifies nothing. */
#define SR_LIST_SINK 1
#define SR_LIST_NONFINITE 2
#define SRListRowLength(n) (2 * (n) + 1)
/* The list of SPEC §5 for a finite E: every cell whose outward box meets E, plus the sink if E
   leaves D (binary search per dimension). */
void SRAxesIndexBox(SRAxes ax, const double *elo, const double *ehi, int32_t *row);
/* Number of entries of a list row (sink counts one). */
PetscInt64 SRListRowCount(PetscInt n, const int32_t *row);
/* Exact containment of E in the union of the cells of row (and R^n \ D when the sink is listed),
   by index arithmetic on the enclosed boundaries.  On failure witness (may be NULL) receives a
   double point of E outside every listed outward box (and inside D when the sink is listed),
   verified before it is returned; NaN when none could be verified (the cell still fails). */
PetscBool SRAxesContains(SRAxes ax, const int32_t *row, const double *elo, const double *ehi, double *witness);

/* Enclosures of f_phi over nb boxes (rows lo[0..n), hi[0..n)), each box bisected into 2^depth
   sub-boxes (dimensions in turn), the sub-box enclosures hulled per box.  work: NULL or a
   buffer of SRVerifyEncloseWorkSize doubles. */
PetscErrorCode SREnclosureComputeBoxes(SRModel model, SREnclosureType type, PetscInt nb, const double *boxes, double *E, SRCellStatus *status);
PetscErrorCode SREnclosureComputeBisected(SRModel model, SREnclosureType type, PetscInt depth, PetscInt nb, const double *boxes, double *E, SRCellStatus *status);

/* Contiguous block [*kstart, *kend) of K cells owned by rank of size (larger blocks first). */
void SRVerifyOwnership(PetscInt64 K, PetscMPIInt size, PetscMPIInt rank, PetscInt64 *kstart, PetscInt64 *kend);

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

/* The verification of SPEC §10, collective: encloses every cell (type, bisected to depth),
   builds its index-box list C(k) = M(k), tests containment, and (out != NULL) writes E_k, the
   lists and the failures to the abstraction file out, chunk by chunk.  progress: print a line
   every tenth of the cells on rank 0. */
PetscErrorCode SRVerifyRun(MPI_Comm comm, SRModel model, SRAxes ax, SREnclosureType type, PetscInt depth, SRAbstractionFile out, PetscBool progress, SRVerifyMetrics *m);
/* The re-check of a stored abstraction (SPEC §10, §11 "proven" side): encloses every cell again
   with type (bisected to depth) and tests it against the stored lists; failing cells with
   witnesses printed (the first max_print) and counted.  Collective. */
PetscErrorCode SRVerifyCheckFile(MPI_Comm comm, const char path[], SREnclosureType type, PetscInt depth, PetscInt max_print, SRVerifyMetrics *m);

/* The network file (SPEC §10; layout in src/model/network_file.c and analysis/abstraction-schema.md).
   Write: rank 0 writes path.part and renames it (an existing path only with force).
   Read: every rank reads the file (a bad file fails identically everywhere).  */
PetscErrorCode SRNetworkFileWrite(MPI_Comm comm, const char path[], PetscBool force, const char sysname[], SRModelType type, PetscInt control_steps, SRMLP mlp);
/* The network as an SRMLP (widths, parameters, activations, transforms; format 1: tanh, ...,
   linear); *control_steps 0 when the file has none. */
PetscErrorCode SRNetworkFileRead(MPI_Comm comm, const char path[], char sysname[], size_t len, SRModelType *type, PetscInt *control_steps, SRMLP *mlp);

/* The abstraction file (parallel HDF5).  Writer: created as path.part, renamed on close.
   Reader API (for verify, check and the closed-loop questions of SPEC §12): open, the header,
   the axes, the network, and owned-range reads of the lists and enclosures. */
typedef struct {
  char        sys[16];
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
