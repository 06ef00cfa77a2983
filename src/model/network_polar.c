/* The text format of the POLAR / ReachNN tools (the ARCH-COMP 2022 TORA heterogeneous
   controllers nn_tora_relu_tanh.txt and nn_tora_sigmoid.txt; SPEC §14) as simreach networks.
   Layout: one number per line,
     inputSize
     outputSize
     numHidden
     width[0..numHidden)                          one line each
     then per affine layer, per neuron (row): its weights (one per input of the layer), then its bias
     offset
     scalar
   Function (POLAR's NeuralNetwork: u = (N(x) - offset) * scalar): the affine layers with the
   activations the file does not state, then the output transform y * scalar - offset * scalar.
   The activations come from -network_activations (one name per affine layer, e.g.
   relu,relu,relu,tanh for nn_tora_relu_tanh.txt: Specifications.txt of the benchmark says
   so), required: a file without them is refused naming the option.  Weights are read as the
   doubles nearest the decimals (as every reader of the format does).  Refused in one line
   naming the file, the line and the value: a count out of range, a short file, more than one
   number on a line, a non-number, a NaN or infinite value, data after the scalar, an
   offset * scalar not exact in double. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <simreach/network.h>

#include <ctype.h>
#include <errno.h>

typedef struct {
  const char *path;
  FILE       *fp;
  char       *line;
  size_t      cap;
  long        lineno;
} SRPolar_Private;

/* The next non-blank line's single number; *eof when the file ends (only if eof is given). */
static PetscErrorCode SRPolarNext_Private(SRPolar_Private *r, const char *what, double *v, PetscBool *eof)
{
  PetscFunctionBeginUser;
  if (eof) *eof = PETSC_FALSE;
  while (1) {
    ssize_t n = getline(&r->line, &r->cap, r->fp);
    char   *s, *end;
    if (n < 0 && eof) {
      *eof = PETSC_TRUE;
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "POLAR text network %s: the file ends before %s (truncated? last line %ld)", r->path, what, r->lineno);
    r->lineno++;
    s = r->line;
    while (*s && isspace((unsigned char)*s))
      s++;
    if (!*s) continue;
    errno = 0;
    *v    = strtod(s, &end);
    PetscCheck(end != s, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "POLAR text network %s line %ld: '%.*s' is not a number (reading %s)", r->path, r->lineno, (int)PetscMin(20, strcspn(s, "\r\n")), s, what);
    while (*end && isspace((unsigned char)*end))
      end++;
    PetscCheck(!*end, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "POLAR text network %s line %ld: '%.*s' after the number; the format has one number per line (reading %s)", r->path, r->lineno, (int)PetscMin(20, strcspn(end, "\r\n")), end, what);
    PetscCheck(isfinite(*v), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "POLAR text network %s line %ld: %s is %s; all values must be finite", r->path, r->lineno, what, isnan(*v) ? "NaN" : "infinite");
    PetscFunctionReturn(PETSC_SUCCESS);
  }
}

static PetscErrorCode SRPolarInt_Private(SRPolar_Private *r, const char *what, PetscInt lo, PetscInt hi, PetscInt *k)
{
  double v;

  PetscFunctionBeginUser;
  PetscCall(SRPolarNext_Private(r, what, &v, NULL));
  PetscCheck(v == floor(v) && v >= lo && v <= hi, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "POLAR text network %s line %ld: %s is %g; allowed are integers %" PetscInt_FMT " to %" PetscInt_FMT, r->path, r->lineno, what, v, lo, hi);
  *k = (PetscInt)v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRPolarRead_Private(SRPolar_Private *r, SRMLP *mlp)
{
  PetscInt     nin, nout, nh, hw[SR_MAX_LAYERS] = { 0 }, nset = 0;
  SRActivation acts[SR_MAX_LAYERS + 1];
  char         what[64], list[8 * (SR_MAX_LAYERS + 1)] = "", opt[PETSC_MAX_PATH_LEN + 32];
  PetscBool    has_acts, eof;
  double       offset, scalar, extra;

  PetscFunctionBeginUser;
  PetscCall(SRPolarInt_Private(r, "the input size", 1, 1 << 20, &nin));
  PetscCall(SRPolarInt_Private(r, "the output size", 1, 1 << 20, &nout));
  PetscCall(SRPolarInt_Private(r, "the number of hidden layers", 0, SR_MAX_LAYERS, &nh));
  for (PetscInt l = 0; l < nh; l++) {
    PetscCall(PetscSNPrintf(what, sizeof what, "the width of hidden layer %" PetscInt_FMT, l));
    PetscCall(SRPolarInt_Private(r, what, 1, 1 << 20, &hw[l]));
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-network_activations", list, sizeof list, &has_acts));
  PetscCheck(
      has_acts, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-network %s: a POLAR text network does not state its activations; give -network_activations with %" PetscInt_FMT " names (tanh, relu, sigmoid, linear), one per affine layer", r->path, nh + 1);
  for (const char *s = list; *s; s++)
    nset += *s == ',';
  PetscCheck(nset == nh, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-network_activations %s: %" PetscInt_FMT " names for the %" PetscInt_FMT " affine layers of %s", list, nset + 1, nh + 1, r->path);
  PetscCall(PetscSNPrintf(opt, sizeof opt, "-network_activations (for %s)", r->path));
  PetscCall(SRActivationsParse(opt, list, nh + 1, acts));
  PetscCall(SRMLPCreate(nin, nh, hw, nout, mlp));
  for (PetscInt l = 0; l <= nh; l++) {
    const PetscInt ni = (*mlp)->width[l], no = (*mlp)->width[l + 1];
    double        *W = (*mlp)->params + (*mlp)->woff[l], *b = (*mlp)->params + (*mlp)->boff[l];
    for (PetscInt i = 0; i < no; i++) {
      PetscCall(PetscSNPrintf(what, sizeof what, "a weight of layer %" PetscInt_FMT " neuron %" PetscInt_FMT, l, i));
      for (PetscInt j = 0; j < ni; j++)
        PetscCall(SRPolarNext_Private(r, what, &W[i * ni + j], NULL));
      PetscCall(PetscSNPrintf(what, sizeof what, "the bias of layer %" PetscInt_FMT " neuron %" PetscInt_FMT, l, i));
      PetscCall(SRPolarNext_Private(r, what, &b[i], NULL));
    }
    PetscCall(SRMLPSetActivation(*mlp, l, acts[l]));
  }
  PetscCall(SRPolarNext_Private(r, "the output offset", &offset, NULL));
  PetscCall(SRPolarNext_Private(r, "the output scalar", &scalar, NULL));
  PetscCall(SRPolarNext_Private(r, "the end of the file", &extra, &eof));
  PetscCheck(eof, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "POLAR text network %s line %ld: %g after the output scalar; the widths do not match the data", r->path, r->lineno, extra);
  { /* u = (N - offset) * scalar = N * scalar + (-offset * scalar), the product exact */
    const double p = offset * scalar;
    double      *sc, *off;
    PetscCheck(fma(offset, scalar, -p) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "POLAR text network %s: offset %.17g times scalar %.17g is not a double; state the scaling in the plant file instead", r->path, offset, scalar);
    PetscCall(PetscMalloc2(nout, &sc, nout, &off));
    for (PetscInt i = 0; i < nout; i++) {
      sc[i]  = scalar;
      off[i] = p == 0 ? 0 : -p;
    }
    PetscCall(SRMLPSetOutputTransform(*mlp, sc, off));
    PetscCall(PetscFree2(sc, off));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRNetworkReadPolar(const char path[], SRNetworkInfo *info, SRMLP *mlp)
{
  SRPolar_Private r = { 0 };
  PetscErrorCode  ierr;

  PetscFunctionBeginUser;
  r.path = path;
  r.fp   = fopen(path, "r");
  PetscCheck(r.fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-network %s: cannot open", path);
  if (info) {
    PetscCall(PetscMemzero(info, sizeof *info));
    info->format = SR_NETFMT_POLAR;
  }
  *mlp = NULL;
  ierr = SRPolarRead_Private(&r, mlp);
  fclose(r.fp);
  free(r.line);
  if (ierr) PetscCall(SRMLPDestroy(mlp));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
