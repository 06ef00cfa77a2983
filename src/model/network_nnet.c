/* NNet files (the Stanford format of the ACAS Xu and ARCH-COMP networks; SPEC §14) as simreach
   networks.  Two layouts, told apart by the line of layer sizes (text, comma-separated, '//'
   comment lines first):
     numLayers, inputSize, outputSize, maxLayerSize
     layerSizes[0..numLayers]                     the Stanford layout: exactly numLayers + 1 sizes
     symmetric flag (unused)
     mins[inputSize], maxes[inputSize]           input clipping bounds
     means[inputSize + 1], ranges[inputSize + 1] normalisation; the last entry is the output's
     then per layer: layerSizes[l+1] rows of layerSizes[l] weights, then layerSizes[l+1] biases.
   The ARCH-COMP 2022 layout (Single and Double Pendulum, Airplane: verivital/ARCH-COMP2022):
     layerSizes[0..numLayers], outputSize         the output size once more (numLayers + 2)
     0 / 0 / 0 / 0 / 0                            five lines holding one 0 each, in place of the
                                                  flag, mins, maxes, means and ranges: no
                                                  clipping, no normalisation, no output scaling
     then the layers as above.  (The same weights as the benchmark's ONNX twins, rounded to 5
     decimals: checked by tests/networks_arch.py.)  A sizes line with numLayers + 2 entries whose
     last is not the output size, or not followed by the five single-0 lines, fits neither
     layout and is refused naming both; any other count is refused too.
   Function (the reference nnet.c / NNet.py evaluate_network): x clipped to [mins, maxes],
   z = (x - means) / ranges, ReLU on every hidden layer, linear output, y = N ranges[n] + means[n].
   That is exactly an SRMLP with input transform (mins, maxes, means, ranges), ReLU hidden
   layers and output transform (ranges[n], means[n]): the clipping is part of the function and
   is enclosed with it.  Refused in one line naming the file, the line and the value: a count or
   size out of range, a short file, a non-number, a NaN or infinite value, a range <= 0,
   mins > maxes. */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <simreach/network.h>

#include <ctype.h>
#include <errno.h>

typedef struct {
  const char *path;
  FILE       *fp;
  char       *line;
  size_t      cap;
  char       *pos; /* next unread character of line, NULL: read a new line */
  long        lineno;
} SRNNet_Private;

/* The next number (skipping commas, blanks and line ends). */
static PetscErrorCode SRNNetNext_Private(SRNNet_Private *r, const char *what, double *v)
{
  PetscFunctionBeginUser;
  while (1) {
    if (!r->pos) {
      ssize_t n = getline(&r->line, &r->cap, r->fp);
      PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s: the file ends before %s (truncated? last line %ld)", r->path, what, r->lineno);
      r->lineno++;
      r->pos = r->line;
      continue;
    }
    while (*r->pos && (isspace((unsigned char)*r->pos) || *r->pos == ',')) r->pos++;
    if (!*r->pos) {
      r->pos = NULL;
      continue;
    }
    {
      char *end;
      errno = 0;
      *v    = strtod(r->pos, &end);
      PetscCheck(end != r->pos && (*end == 0 || *end == ',' || isspace((unsigned char)*end)), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s line %ld: '%.20s' is not a number (reading %s)", r->path, r->lineno, r->pos, what);
      PetscCheck(isfinite(*v), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s line %ld: %s is %s; all values must be finite", r->path, r->lineno, what, isnan(*v) ? "NaN" : "infinite");
      r->pos = end;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
}

static PetscErrorCode SRNNetInt_Private(SRNNet_Private *r, const char *what, PetscInt lo, PetscInt hi, PetscInt *k)
{
  double v;

  PetscFunctionBeginUser;
  PetscCall(SRNNetNext_Private(r, what, &v));
  PetscCheck(v == floor(v) && v >= lo && v <= hi, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s line %ld: %s is %g; allowed are integers %" PetscInt_FMT " to %" PetscInt_FMT, r->path, r->lineno, what, v, lo, hi);
  *k = (PetscInt)v;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The layers (weights row by row, then biases; ReLU hidden, linear output) and nothing after. */
static PetscErrorCode SRNNetLayers_Private(SRNNet_Private *r, PetscInt nl, const PetscInt sizes[], SRMLP *mlp)
{
  char what[64];

  PetscFunctionBeginUser;
  {
    PetscInt hw[SR_MAX_LAYERS] = {0};
    for (PetscInt l = 1; l < nl; l++) hw[l - 1] = sizes[l];
    PetscCall(SRMLPCreate(sizes[0], nl - 1, hw, sizes[nl], mlp));
  }
  for (PetscInt l = 0; l < nl; l++) {
    double *W = (*mlp)->params + (*mlp)->woff[l], *b = (*mlp)->params + (*mlp)->boff[l];
    PetscCall(PetscSNPrintf(what, sizeof what, "a weight of layer %" PetscInt_FMT, l));
    for (PetscInt k = 0; k < sizes[l + 1] * sizes[l]; k++) PetscCall(SRNNetNext_Private(r, what, &W[k]));
    PetscCall(PetscSNPrintf(what, sizeof what, "a bias of layer %" PetscInt_FMT, l));
    for (PetscInt k = 0; k < sizes[l + 1]; k++) PetscCall(SRNNetNext_Private(r, what, &b[k]));
    PetscCall(SRMLPSetActivation(*mlp, l, l < nl - 1 ? SR_ACT_RELU : SR_ACT_LINEAR));
  }
  /* nothing but blanks may follow */
  while (1) {
    if (r->pos)
      while (*r->pos && (isspace((unsigned char)*r->pos) || *r->pos == ',')) r->pos++;
    if (r->pos && *r->pos) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s line %ld: '%.20s' after the last bias; the layer sizes do not match the data", r->path, r->lineno, r->pos);
    if (getline(&r->line, &r->cap, r->fp) < 0) break;
    r->lineno++;
    r->pos = r->line;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Numbers left on the current line (the reader stands after the last layer size). */
static PetscInt SRNNetRestOfLine_Private(SRNNet_Private *r, double *first)
{
  PetscInt k = 0;
  char    *s = r->pos;

  while (s && *s) {
    char *end;
    while (*s && (isspace((unsigned char)*s) || *s == ',')) s++;
    if (!*s) break;
    if (k == 0) *first = strtod(s, &end);
    else (void)strtod(s, &end);
    if (end == s) return -1; /* not a number: let the reader name it */
    s = end;
    k++;
  }
  return k;
}

/* The layout (see the head of this file), decided by the line of layer sizes. */
static PetscErrorCode SRNNetLayout_Private(SRNNet_Private *r, PetscInt nl, PetscInt nout, PetscBool *arch)
{
  double   extra = 0;
  PetscInt k = SRNNetRestOfLine_Private(r, &extra);
  long     sizes_line = r->lineno;

  PetscFunctionBeginUser;
  *arch = PETSC_FALSE;
  if (k <= 0) PetscFunctionReturn(PETSC_SUCCESS); /* the Stanford layout (or junk its reader names) */
  PetscCheck(k == 1 && extra == (double)nout, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s line %ld: the layer-size line has %" PetscInt_FMT " entries for %" PetscInt_FMT " layers; known layouts: Stanford (%" PetscInt_FMT " sizes, then the symmetric flag, mins, maxes, means, ranges) or ARCH-COMP 2022 (%" PetscInt_FMT " sizes, the last the output size %" PetscInt_FMT ", then five lines holding 0)", r->path, r->lineno, nl + 1 + k, nl, nl + 1, nl + 2, nout);
  r->pos = NULL;
  for (PetscInt j = 0; j < 5; j++) {
    double  v = 1;
    ssize_t n = getline(&r->line, &r->cap, r->fp);
    PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s: the file ends at line %ld, inside the five 0 lines of the ARCH-COMP 2022 layout (sizes on line %ld)", r->path, r->lineno, sizes_line);
    r->lineno++;
    r->pos = r->line;
    PetscCheck(SRNNetRestOfLine_Private(r, &v) == 1 && v == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s line %ld: '%.*s' where the ARCH-COMP 2022 layout (line %ld: %" PetscInt_FMT " layer sizes, the last repeating the output size) has a line holding 0; the Stanford layout has %" PetscInt_FMT " sizes; the file fits neither", r->path, r->lineno, (int)PetscMin(20, strcspn(r->line, "\r\n")), r->line, sizes_line, nl + 2, nl + 1);
  }
  r->pos = NULL;
  *arch  = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRNNetRead_Private(SRNNet_Private *r, SRNetworkInfo *info, SRMLP *mlp)
{
  PetscInt  nl, nin, nout, maxw, sizes[SR_MAX_LAYERS + 2], sym;
  PetscBool arch;
  double  *mins, *maxes, *means, *ranges, v;
  char     what[64];

  PetscFunctionBeginUser;
  /* the comment lines */
  while (1) {
    int c = fgetc(r->fp);
    if (c == '/') {
      ssize_t n = getline(&r->line, &r->cap, r->fp);
      r->lineno++;
      if (info && r->lineno == 1 && n > 0) {
        char *s = r->line;
        while (*s == '/' || *s == ' ') s++;
        snprintf(info->producer, sizeof info->producer, "%.*s", (int)strcspn(s, "\r\n"), s);
      }
      continue;
    }
    if (c != EOF) ungetc(c, r->fp);
    break;
  }
  PetscCall(SRNNetInt_Private(r, "the number of layers", 2, SR_MAX_LAYERS + 1, &nl));
  PetscCall(SRNNetInt_Private(r, "the input size", 1, 1 << 20, &nin));
  PetscCall(SRNNetInt_Private(r, "the output size", 1, 1 << 20, &nout));
  PetscCall(SRNNetInt_Private(r, "the largest layer size", 1, 1 << 20, &maxw));
  for (PetscInt l = 0; l <= nl; l++) {
    PetscCall(PetscSNPrintf(what, sizeof what, "layer size %" PetscInt_FMT, l));
    PetscCall(SRNNetInt_Private(r, what, 1, 1 << 20, &sizes[l]));
  }
  PetscCheck(sizes[0] == nin && sizes[nl] == nout, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s: layer sizes start with %" PetscInt_FMT " and end with %" PetscInt_FMT ", the header says %" PetscInt_FMT " inputs and %" PetscInt_FMT " outputs", r->path, sizes[0], sizes[nl], nin, nout);
  PetscCall(SRNNetLayout_Private(r, nl, nout, &arch));
  if (arch) { /* no clipping, normalisation or output scaling; ReLU hidden, linear output */
    PetscCall(SRNNetLayers_Private(r, nl, sizes, mlp));
    if (info) PetscCall(PetscStrlcat(info->producer, " (ARCH-COMP 2022 NNet layout: no normalisation)", sizeof info->producer));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SRNNetInt_Private(r, "the symmetric flag", 0, 1, &sym));
  PetscCall(PetscMalloc4(nin, &mins, nin, &maxes, nin + 1, &means, nin + 1, &ranges));
  for (PetscInt j = 0; j < nin; j++) PetscCall(SRNNetNext_Private(r, "an input minimum", &mins[j]));
  for (PetscInt j = 0; j < nin; j++) PetscCall(SRNNetNext_Private(r, "an input maximum", &maxes[j]));
  for (PetscInt j = 0; j <= nin; j++) PetscCall(SRNNetNext_Private(r, "a mean", &means[j]));
  for (PetscInt j = 0; j <= nin; j++) PetscCall(SRNNetNext_Private(r, "a range", &ranges[j]));
  for (PetscInt j = 0; j < nin; j++) PetscCheck(mins[j] <= maxes[j], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s: input %" PetscInt_FMT " has minimum %g > maximum %g", r->path, j, mins[j], maxes[j]);
  for (PetscInt j = 0; j <= nin; j++) PetscCheck(ranges[j] > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s: range %" PetscInt_FMT " is %g; ranges must be > 0", r->path, j, ranges[j]);
  PetscCall(SRNNetLayers_Private(r, nl, sizes, mlp));
  PetscCall(SRMLPSetInputTransform(*mlp, mins, maxes, means, ranges));
  {
    double *sc, *off;
    PetscCall(PetscMalloc2(nout, &sc, nout, &off));
    for (PetscInt i = 0; i < nout; i++) {
      sc[i]  = ranges[nin];
      off[i] = means[nin];
    }
    PetscCall(SRMLPSetOutputTransform(*mlp, sc, off));
    PetscCall(PetscFree2(sc, off));
  }
  (void)maxw;
  (void)v;
  PetscCall(PetscFree4(mins, maxes, means, ranges));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRNetworkReadNNet(const char path[], SRNetworkInfo *info, SRMLP *mlp)
{
  SRNNet_Private r = { 0 };
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  r.path = path;
  r.fp   = fopen(path, "r");
  PetscCheck(r.fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-network %s: cannot open", path);
  if (info) {
    PetscCall(PetscMemzero(info, sizeof *info));
    info->format = SR_NETFMT_NNET;
  }
  *mlp = NULL;
  ierr = SRNNetRead_Private(&r, info, mlp);
  fclose(r.fp);
  free(r.line);
  if (ierr) PetscCall(SRMLPDestroy(mlp));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
