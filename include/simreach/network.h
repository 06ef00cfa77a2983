/* Networks from the field (SPEC §14): one call reads our HDF5 network file, an ONNX model or an
   NNet file, chosen by content, into an SRMLP (layers, activations, input clipping and
   normalisation, output scaling).  Readers refuse what they cannot represent exactly, naming it,
   before any work. */
#pragma once

#include <simreach/base.h>
#include <simreach/model.h>
#include <simreach/system.h>

typedef enum { SR_NETFMT_HDF5 = 0, SR_NETFMT_ONNX = 1, SR_NETFMT_NNET = 2, SR_NETFMT_POLAR = 3 } SRNetworkFormat;
extern const char *const SRNetworkFormats[]; /* "simreach-hdf5", "onnx", "nnet", "polar-text" */

typedef struct {
  SRNetworkFormat format;
  PetscBool       has_sys;       /* our HDF5 file states the closed loop (SPEC §13); ONNX/NNet do not */
  char            sys[16];       /* when has_sys */
  SRModelType     type;          /* when has_sys */
  PetscInt        control_steps; /* when has_sys; 0 when the file has none */
  PetscBool       has_consts;    /* our HDF5 file of format 3 also states the system's constants (SPEC §13): */
  double          sys_param[3], sys_dt, sys_umax;
  char            plant[PETSC_MAX_PATH_LEN]; /* sys "plant": the plant file it was made from (SPEC §16) */
  uint64_t        plant_digest;              /* and that plant's digest (SRSystem.plant_digest) */
  char            producer[128]; /* ONNX producer name and version, NNet header comment, or "" */
} SRNetworkInfo;

/* Collective (every rank reads the small file itself, so a bad file fails identically on
   every rank).  *mlp is created; info may be NULL. */
PetscErrorCode SRNetworkLoad(MPI_Comm comm, const char path[], SRNetworkInfo *info, SRMLP *mlp);
/* The readers behind it (not collective). */
PetscErrorCode SRNetworkReadONNX(const char path[], SRNetworkInfo *info, SRMLP *mlp);
PetscErrorCode SRNetworkReadNNet(const char path[], SRNetworkInfo *info, SRMLP *mlp);
/* POLAR / ReachNN text (TORA heterogeneous); the activations from -network_activations. */
PetscErrorCode SRNetworkReadPolar(const char path[], SRNetworkInfo *info, SRMLP *mlp);
/* The closed loop around a network file (collective): the system and model type come from our
   HDF5 file (options -sys/-model may only repeat them) or, for ONNX and NNet, from -sys and
   -model (required); -control_steps and (format 3) the system's constants and u_max as the
   file says: an option that contradicts them is refused (SRSystemAdoptStored).  Dimension mismatches are refused naming
   opt and path.  The caller destroys *model and *sys. */
PetscErrorCode SRNetworkLoadModel(MPI_Comm comm, const char path[], const char opt[], SRNetworkInfo *info, SRSystem *sys, SRModel *model);
/* Layers, sizes, activations, transforms, parameter count (rank 0 prints). */
PetscErrorCode SRNetworkPrint(MPI_Comm comm, const char path[], const SRNetworkInfo *info, SRMLP mlp);
