/* -network FILE (SPEC §14): our HDF5 network file, an ONNX model, an NNet file or a POLAR text
   network, chosen by content: the HDF5 signature, then text that an NNet file starts with ('//'
   comments or the header's numbers; its first data line holds the four header numbers) or a
   POLAR text network (the first line holds one number, the input size), otherwise ONNX's
   protobuf (which the ONNX reader decodes or refuses). */
#include <simreach/network.h>
#include <simreach/network_file.h>

#include <ctype.h>

const char *const SRNetworkFormats[] = { "simreach-hdf5", "onnx", "nnet", "polar-text", "SRNetworkFormat", "SR_NETFMT_", NULL };

static PetscErrorCode SRNetworkDetect_Private(const char path[], SRNetworkFormat *fmt)
{
  unsigned char  b[512];
  size_t         n;
  FILE          *fp;
  PetscBool      text = PETSC_TRUE;
  static const unsigned char h5[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };

  PetscFunctionBeginUser;
  fp = fopen(path, "rb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-network %s: no such readable file", path);
  n = fread(b, 1, sizeof b, fp);
  fclose(fp);
  PetscCheck(n > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-network %s: the file is empty; allowed are a simreach HDF5 network file, an ONNX model, an NNet file or a POLAR text network", path);
  if (n >= 8 && !memcmp(b, h5, 8)) {
    *fmt = SR_NETFMT_HDF5;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    const size_t L = strlen(path);
    PetscCheck(!((L > 3 && !strcmp(path + L - 3, ".h5")) || (L > 5 && !strcmp(path + L - 5, ".hdf5"))), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-network %s: not an HDF5 file (no HDF5 signature); allowed are a simreach HDF5 network file, an ONNX model, an NNet file or a POLAR text network", path);
  }
  for (size_t k = 0; k < n; k++) text = (PetscBool)(text && (isprint(b[k]) || isspace(b[k])));
  {
    size_t k = 0;
    while (k < n && isspace(b[k])) k++;
    if (text && k < n && (b[k] == '/' || isdigit(b[k]))) {
      PetscInt tokens = 0;
      *fmt = SR_NETFMT_NNET;
      while (k < n && b[k] == '/') { /* NNet comment lines */
        while (k < n && b[k] != '\n') k++;
        while (k < n && isspace(b[k])) k++;
      }
      for (size_t e = k; e < n && b[e] != '\n'; e++) /* numbers on the first data line */
        if (!isspace(b[e]) && b[e] != ',' && (e == k || isspace(b[e - 1]) || b[e - 1] == ',')) tokens++;
      if (tokens == 1 && memchr(b + k, '\n', n - k)) *fmt = SR_NETFMT_POLAR;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  *fmt = SR_NETFMT_ONNX;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRNetworkLoad_Private(MPI_Comm comm, const char path[], SRNetworkInfo *info, SRMLP *mlp)
{
  SRNetworkFormat fmt;

  PetscFunctionBeginUser;
  PetscCall(SRNetworkDetect_Private(path, &fmt));
  {
    PetscBool acts;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-network_activations", &acts));
    PetscCheck(!acts || fmt == SR_NETFMT_POLAR, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-network_activations: the %s file %s states its own activations; leave the option out (it is for POLAR text networks)", SRNetworkFormats[fmt], path);
  }
  if (fmt == SR_NETFMT_HDF5) {
    PetscCall(PetscMemzero(info, sizeof *info));
    info->format  = SR_NETFMT_HDF5;
    info->has_sys = PETSC_TRUE;
    PetscCall(SRNetworkFileRead(comm, path, info, mlp));
  } else {
    if (fmt == SR_NETFMT_NNET) PetscCall(SRNetworkReadNNet(path, info, mlp));
    else if (fmt == SR_NETFMT_POLAR) PetscCall(SRNetworkReadPolar(path, info, mlp));
    else PetscCall(SRNetworkReadONNX(path, info, mlp));
    /* A field network's output is its control, used as read and saturated at umax (SPEC §14,
       docs/networks.md); simreach's own kind (tanh, ..., linear, no transforms) would instead be
       squashed by umax tanh.  An identity output transform keeps a tanh field network a field
       network through every file it is written to. */
    if (SRMLPIsDefault(*mlp)) {
      const PetscInt nout = (*mlp)->width[(*mlp)->nlayers];
      double        *one, *zero;
      PetscCall(PetscMalloc2(nout, &one, nout, &zero));
      for (PetscInt i = 0; i < nout; i++) {
        one[i]  = 1.0;
        zero[i] = 0.0;
      }
      PetscCall(SRMLPSetOutputTransform(*mlp, one, zero));
      PetscCall(PetscFree2(one, zero));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscErrorCode code;
  char           mess[1024];
} SRNetErr_Private;

/* keeps the first (initial) error's message, prints nothing */
static PetscErrorCode SRNetCapture_Private(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  SRNetErr_Private *e = (SRNetErr_Private *)ctx;
  if (p == PETSC_ERROR_INITIAL && !e->code) {
    e->code = n;
    snprintf(e->mess, sizeof e->mess, "%s", mess ? mess : "");
  }
  return n;
}

/* Every rank reads the small file itself, so a bad file fails identically on every rank: the
   readers' errors (raised on PETSC_COMM_SELF) are caught and raised again on comm, so that the
   command says one line and exits 2 like any refused input (SPEC §13). */
PetscErrorCode SRNetworkLoad(MPI_Comm comm, const char path[], SRNetworkInfo *info, SRMLP *mlp)
{
  SRNetworkInfo    loc;
  SRNetErr_Private e = { 0 };
  PetscErrorCode   ierr;
  int              mine, all;

  PetscFunctionBeginUser;
  if (!info) info = &loc;
  *mlp = NULL;
  PetscCall(PetscPushErrorHandler(SRNetCapture_Private, &e));
  ierr = SRNetworkLoad_Private(comm, path, info, mlp);
  PetscCall(PetscPopErrorHandler());
  mine = ierr ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, comm));
  if (ierr) PetscCall(SRMLPDestroy(mlp));
  PetscCheck(!ierr, comm, e.code ? e.code : ierr, "%s", e.mess[0] ? e.mess : "reading the network failed");
  PetscCheck(!all, comm, PETSC_ERR_FILE_READ, "-network %s: the file reads differently on another rank", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRNetworkPrint(MPI_Comm comm, const char path[], const SRNetworkInfo *info, SRMLP mlp)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(comm, "network %s: format %s%s%s\n", path, SRNetworkFormats[info->format], info->producer[0] ? ", " : "", info->producer));
  if (info->has_sys) PetscCall(PetscPrintf(comm, "  closed loop: -sys %s -model %s -control_steps %" PetscInt_FMT "\n", info->sys, SRModelTypes[info->type], info->control_steps ? info->control_steps : 1));
  if (info->has_consts) PetscCall(PetscPrintf(comm, "  constants: %.17g %.17g %.17g, dt %.17g, u_max %.17g\n", info->sys_param[0], info->sys_param[1], info->sys_param[2], info->sys_dt, info->sys_umax));
  PetscCall(PetscPrintf(comm, "  %" PetscInt_FMT " inputs, %" PetscInt_FMT " outputs, %" PetscInt_FMT " affine layers, %" PetscInt_FMT " parameters\n", mlp->width[0], mlp->width[mlp->nlayers], mlp->nlayers, mlp->nparams));
  if (mlp->has_in)
    for (PetscInt j = 0; j < mlp->width[0]; j++) PetscCall(PetscPrintf(comm, "  input %" PetscInt_FMT ": clipped to [%.17g, %.17g], normalised (x - %.17g) / %.17g\n", j, mlp->inlo[j], mlp->inhi[j], mlp->inmean[j], mlp->inrange[j]));
  for (PetscInt l = 0; l < mlp->nlayers; l++) PetscCall(PetscPrintf(comm, "  layer %" PetscInt_FMT ": %" PetscInt_FMT " -> %" PetscInt_FMT ", %s\n", l, mlp->width[l], mlp->width[l + 1], SRActivations[mlp->act[l]]));
  if (mlp->has_out)
    for (PetscInt i = 0; i < mlp->width[mlp->nlayers]; i++) PetscCall(PetscPrintf(comm, "  output %" PetscInt_FMT ": y * %.17g + %.17g\n", i, mlp->outscale[i], mlp->outoffset[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRNetworkLoadModel(MPI_Comm comm, const char path[], const char opt[], SRNetworkInfo *info, SRSystem *sys, SRModel *model)
{
  SRNetworkInfo loc;
  SRMLP         mlp;
  char          sysname[16] = "", what[PETSC_MAX_PATH_LEN + 32], plant[PETSC_MAX_PATH_LEN] = "";
  PetscBool     sys_set, model_set, plant_set;
  PetscInt      mt = 0;
  SRModelType   type;

  PetscFunctionBeginUser;
  if (!info) info = &loc;
  PetscCall(PetscSNPrintf(what, sizeof what, "%s %s", opt, path));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-sys", sysname, sizeof sysname, &sys_set));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-plant", plant, sizeof plant, &plant_set));
  PetscCall(PetscOptionsGetEList(NULL, NULL, "-model", SRModelTypes, 2, &mt, &model_set));
  PetscCall(SRNetworkLoad(comm, path, info, &mlp));
  if (info->has_sys) { /* our file states its closed loop (SPEC §13): options may only repeat it */
    if ((sys_set && strcmp(sysname, info->sys)) || (model_set && (SRModelType)mt != info->type)) PetscCall(SRMLPDestroy(&mlp));
    PetscCheck(!sys_set || !strcmp(sysname, info->sys), comm, PETSC_ERR_ARG_INCOMP, "-sys %s: the network file %s belongs to -sys %s; leave the option out", sysname, path, info->sys);
    if (plant_set && strcmp(info->sys, "plant")) PetscCall(SRMLPDestroy(&mlp));
    PetscCheck(!plant_set || !strcmp(info->sys, "plant"), comm, PETSC_ERR_ARG_INCOMP, "-plant %s: the network file %s belongs to -sys %s; leave the option out", plant, path, info->sys);
    PetscCheck(!model_set || (SRModelType)mt == info->type, comm, PETSC_ERR_ARG_INCOMP, "-model %s: the network file %s is a %s model; leave the option out", SRModelTypes[mt], path, SRModelTypes[info->type]);
    PetscCall(PetscStrncpy(sysname, info->sys, sizeof sysname));
    type = info->type;
  } else {
    if (!(sys_set || plant_set) || !model_set) PetscCall(SRMLPDestroy(&mlp));
    PetscCheck((sys_set || plant_set) && model_set, comm, PETSC_ERR_ARG_WRONG, "%s: an %s file does not say which closed loop it belongs to; give -sys (toy1d, pendulum, dubins) or -plant FILE, and -model (dynamics, controller)", what, SRNetworkFormats[info->format]);
    type = (SRModelType)mt;
  }
  if (info->has_sys && !strcmp(info->sys, "plant")) PetscCall(SRSystemCreateFromPlantFile(comm, plant_set ? plant : info->plant, NULL, sys));
  else if (info->has_sys) PetscCall(SRSystemCreate(comm, sysname, NULL, sys));
  else PetscCall(SRSystemCreateFromOptions(comm, NULL, NULL, sys)); /* -sys or -plant (SPEC §16) */
  PetscCall(PetscStrncpy(sysname, (*sys)->name, sizeof sysname));
  { /* the closed loop the file states (SPEC §13): options may only repeat it */
    char         nf[PETSC_MAX_PATH_LEN + 32];
    const double *p = info->has_consts ? info->sys_param : (*sys)->param;
    PetscCall(PetscSNPrintf(nf, sizeof nf, "the network file %s", path));
    PetscCall(SRSystemAdoptStored(comm, *sys, p, info->has_consts ? info->sys_dt : (*sys)->dt, info->has_consts ? info->sys_umax : (*sys)->umax, info->control_steps, nf));
    if (info->has_sys && !strcmp(info->sys, "plant")) PetscCall(SRSystemCheckDigest(comm, *sys, info->plant, info->plant_digest, nf)); /* SPEC §16 */
  }
  {
    const PetscBool loop = (PetscBool)(type == SR_MODEL_CONTROLLER && SRSystemIsLoop(*sys)); /* the file's input/control lines (SPEC §16) */
    const PetscInt  nin = mlp->width[0], nout = mlp->width[mlp->nlayers], need = loop ? (*sys)->plant->nout : (type == SR_MODEL_DYNAMICS ? (*sys)->n : (*sys)->nu), needin = loop ? (*sys)->plant->nin : (*sys)->n;
    if (nin != needin || nout != need) PetscCall(SRMLPDestroy(&mlp));
    PetscCheck(!loop || nin == needin, comm, PETSC_ERR_ARG_SIZ, "%s: the network has %" PetscInt_FMT " inputs; plant file %s has %" PetscInt_FMT " input lines", what, nin, (*sys)->plant_path, needin);
    PetscCheck(!loop || nout == need, comm, PETSC_ERR_ARG_SIZ, "%s: the network has %" PetscInt_FMT " outputs; plant file %s says outputs %" PetscInt_FMT, what, nout, (*sys)->plant_path, need);
    PetscCheck(nin == needin, comm, PETSC_ERR_ARG_SIZ, "%s: the network has %" PetscInt_FMT " inputs; -sys %s has %" PetscInt_FMT " states", what, nin, sysname, (*sys)->n);
    PetscCheck(nout == need, comm, PETSC_ERR_ARG_SIZ, "%s: the network has %" PetscInt_FMT " outputs; -model %s of -sys %s needs %" PetscInt_FMT, what, nout, SRModelTypes[type], sysname, need);
  }
  PetscCall(SRModelCreateFromMLP(*sys, type, mlp, what, model));
  PetscFunctionReturn(PETSC_SUCCESS);
}
