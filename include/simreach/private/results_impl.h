/* Inside the results file (SPEC §9, §13; schema: analysis/results-schema.md): the object, the
   schema tables and the helpers that the files of src/study/results_*.c share.  Nothing outside
   those files includes this header; everyone else sees the handle of results.h.

     results_schema.c    the schema: every dataset's group, name, type, fill, shape and columns,
                         the layout record and its checksum, the file size
     results_hdf5.c      HDF5 helpers: datasets, hyperslabs, attributes, row checksums
     results_object.c    the object: allocation, open/close of the datasets, Destroy, getters
     results_create.c    SRResultsCreateNew: every dataset up front, then the atomic rename
     results_validate.c  SRResultsOpen: format version, layout record, every dataset's shape;
                         SRResultsCheckRun: what -resume and gather may trust
     results_write.c     the row writers (each row with its checksum after it)
     results_read.c      the row readers (a row failing its checksum is never written)
     results_merge.c     SRResultsCopyRun and SRGatherMerge (the slices of one study) */
#pragma once

#include <simreach/private/results.h>
#include <simreach/private/fileio.h>

/* The per-run datasets of /runs, in the order they are created (SPEC §13). */
typedef enum {
  SR_RD_CHECKPOINTS,
  SR_RD_WALL,
  SR_RD_STATUS,
  SR_RD_REASON,
  SR_RD_RESUME,
  SR_RD_STATE_DOUBLE,
  SR_RD_STATE_INT,
  SR_RD_NETWORK,
  SR_RD_CELLS,
  SR_RD_CELLS_INITIAL,
  SR_RD_SUCCESSOR_BOX,
  SR_RD_SUCCESSOR_BOX_INITIAL,
  SR_RD_NETWORK_CHECKPOINTS,
  SR_RD_CHECKPOINTS_CHECKSUM,
  SR_RD_NETWORK_CHECKPOINTS_CHECKSUM,
  SR_RD_RECHECK_CELLS, /* optional: only with -recheck_store > 0 */
  SR_RD_ENCLOSURES,    /* optional (with its checksum): absent in files written before it was stored */
  SR_RD_ENCLOSURES_CHECKSUM,
  SR_RD_STATUS_CHECKSUM,
  SR_RD_RESUME_CHECKSUM,
  SR_RD_STATE_CHECKSUM,
  SR_RD_ABSTRACTION_CHECKSUM,
  SR_RD_COUNT
} SRResultsDataset;

/* What a dimension of a dataset is, in terms of the layout. */
typedef enum {
  SR_DIM_RUNS,     /* nruns */
  SR_DIM_ROWS,     /* checkpoint rows */
  SR_DIM_FIELDS,   /* SR_CHECKPOINT_NFIELDS */
  SR_DIM_SLOTS,    /* 2: resume slots, or (initial, final) */
  SR_DIM_DSTATE,   /* doubles of the resume state */
  SR_DIM_ISTATE,   /* integers of the resume state */
  SR_DIM_PARAMS,   /* network parameters */
  SR_DIM_THETA,    /* cell parameters */
  SR_DIM_CELLS,    /* K */
  SR_DIM_CAP,      /* 2 n + 1 numbers of an index box */
  SR_DIM_FAILREC,  /* nfail (2 + 3 n): the failure records of a re-check row */
  SR_DIM_ENCL,     /* 4 n: run's lo, hi, tightest lo, hi */
  SR_DIM_BETA,     /* nbeta */
  SR_DIM_TAU,      /* ntau */
  SR_DIM_SEED,     /* nseed */
  SR_DIM_POINT,    /* 3: beta, tau, seed */
  SR_DIM_SUMCOLS,  /* SR_SUMMARY_NCOLS */
  SR_DIM_ONE,      /* 1 */
  SR_DIM_COUNTS,   /* 4 */
  SR_DIM_VERDICT   /* 3 */
} SRResultsDim;

typedef enum {
  SR_RT_DOUBLE,
  SR_RT_INT64,
  SR_RT_UINT64,
  SR_RT_REASON /* fixed-length string of SR_RESULTS_REASON_LEN */
} SRResultsType;

/* The value a dataset holds before anything is written ("never written"). */
typedef enum {
  SR_FILL_ZERO,
  SR_FILL_NAN,
  SR_FILL_MINUS1
} SRResultsFill;

/* One dataset of the schema.  columns: the `columns` attribute, the names joined by ','; the
   two tables of names below are named by SR_COLUMNS_CHECKPOINT / SR_COLUMNS_SUMMARY, and the
   re-check records' text depends on n (SR_COLUMNS_RECHECK). */
typedef struct {
  const char   *name;
  SRResultsType type;
  SRResultsFill fill;
  int           rank;
  SRResultsDim  dims[3];
  const char   *columns;
  PetscBool     need; /* must exist when a file is opened (else "datasets ... are missing") */
} SRResultsSchema;

#define SR_COLUMNS_CHECKPOINT "@checkpoint"
#define SR_COLUMNS_SUMMARY    "@summary"
#define SR_COLUMNS_RECHECK    "@recheck"

#define SR_RESULTS_NGRID    4
#define SR_RESULTS_NSUMMARY 7
extern const SRResultsSchema SRResultsSchemaGrid[SR_RESULTS_NGRID];       /* /grid */
extern const SRResultsSchema SRResultsSchemaRuns[SR_RD_COUNT];            /* /runs */
extern const SRResultsSchema SRResultsSchemaSummary[SR_RESULTS_NSUMMARY]; /* /summary */

/* The shape of a dataset of the schema for a layout. */
void SRResultsSchemaShape(const SRResultsSchema *s, const SRResultsLayout *lay, hsize_t dims[3]);
/* Its `columns` attribute text for a layout ("" when it has none). */
PetscErrorCode SRResultsSchemaColumns(const SRResultsSchema *s, const SRResultsLayout *lay, char *buf, size_t len);

/* The shape record of a layout (the `layout` attribute): every dataset's shape follows from it. */
#define SR_LAYOUT_RECORD 12
void SRResultsLayoutRecord(const SRResultsLayout *lay, int64_t rec[SR_LAYOUT_RECORD]);
void SRResultsLayoutFromRecord(const int64_t rec[SR_LAYOUT_RECORD], SRResultsLayout *lay);
/* Checksum of the layout record, the grid values and the canonical options. */
uint64_t SRResultsLayoutChecksum(const SRResultsLayout *lay, const char canonical[]);

struct _p_SRResults {
  MPI_Comm        comm;
  hid_t           file;
  PetscBool       write;
  SRResultsLayout lay;
  char           *canonical;
  hid_t           d[SR_RD_COUNT]; /* the /runs datasets; -1 for an optional one the file has not */
  hid_t           strtype;        /* fixed-length reason strings */
  char           *filename;
  PetscMPIInt     rank;
};

/* HDF5 helpers (results_hdf5.c). */
PetscErrorCode SRResultsCreateDataset_Private(hid_t loc, const SRResultsSchema *s, const SRResultsLayout *lay, hid_t *dset);
PetscErrorCode SRResultsHyperslab_Private(hid_t dset, hid_t memtype, int rank, const hsize_t *start, const hsize_t *count, void *buf, PetscBool write);
PetscErrorCode SRResultsWriteStringAttribute_Private(hid_t loc, const char name[], const char value[]);
PetscErrorCode SRResultsReadStringAttribute_Private(hid_t loc, const char name[], char **value);
PetscErrorCode SRResultsReadNumericAttribute_Private(hid_t loc, const char name[], hid_t memtype, size_t n, void *buf, int *found);
PetscErrorCode SRResultsDims_Private(hid_t dset, int rank, hsize_t *dims);
hid_t          SRResultsFileAccess_Private(MPI_Comm comm);
/* One checksum value of a checksum dataset (rank 1 or 2) of row (r, j), read or written. */
PetscErrorCode SRResultsSum_Private(hid_t dset, int rank, PetscInt r, PetscInt j, uint64_t *sum, PetscBool write);
/* The checksum of SPEC §13 of a row: its bytes bound to its dataset (tag) and place (r, j). */
uint64_t SRResultsRowSum_Private(const char tag[], PetscInt r, PetscInt j, const void *buf, size_t n);
/* The warning for a row that fails its checksum (when warn). */
void SRResultsWarn_Private(SRResults res, PetscBool warn, PetscInt r, const char what[], PetscInt row);

/* The object (results_object.c). */
PetscErrorCode SRResultsAlloc_Private(MPI_Comm comm, SRResults *res);
PetscErrorCode SRResultsOpenDatasets_Private(SRResults res);
PetscErrorCode SRResultsCloseDatasets_Private(SRResults res);

/* Readers shared by the readers and the run check (results_read.c). */
PetscErrorCode SRResultsRunInfo_Private(SRResults res, PetscInt r, PetscBool warn, PetscInt *status, PetscInt *last, PetscInt *slot, PetscBool *stok, PetscBool *rsok);
PetscErrorCode SRResultsState_Private(SRResults res, PetscInt r, PetscInt slot, double *d, int64_t *buf, PetscBool write);
uint64_t       SRResultsStateSum_Private(SRResults res, PetscInt r, PetscInt checkpoint, const double *d, const int64_t *buf);
PetscErrorCode SRResultsReadStateChecked_Private(SRResults res, PetscInt r, PetscInt slot, double *d, PetscInt *i, PetscBool *ok);
PetscErrorCode SRResultsAbstraction_Private(SRResults res, PetscInt r, PetscBool initial, double *params, double *theta, int64_t *boxes, PetscBool write, uint64_t *sum);
PetscErrorCode SRResultsAbstractionChecked_Private(SRResults res, PetscInt r, PetscBool initial, double *params, double *theta, int64_t *boxes, PetscBool *ok, PetscBool *written);
PetscErrorCode SRResultsCheckpoints_Private(SRResults res, PetscInt r, PetscBool warn, double *table, PetscBool *valid, PetscInt *nbad);
