/* NNet files (the Stanford format of the ACAS Xu and ARCH-COMP networks; SPEC §14) as simreach
   networks.  Layout (text, comma-separated, '//' comment lines first):
     numLayers, inputSize, outputSize, maxLayerSize
     layerSizes[0..numLayers]
     symmetric flag (unused)
     mins[inputSize], maxes[inputSize]           input clipping bounds
     means[inputSize + 1], ranges[inputSize + 1] normalisation; the last entry is the output's
     then per layer: layerSizes[l+1] rows of layerSizes[l] weights, then layerSizes[l+1] biases.
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

static PetscErrorCode SRNNetRead_Private(SRNNet_Private *r, SRNetworkInfo *info, SRMLP *mlp)
{
  PetscInt nl, nin, nout, maxw, sizes[SR_MAX_LAYERS + 2], sym;
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
  PetscCall(SRNNetInt_Private(r, "the symmetric flag", 0, 1, &sym));
  PetscCall(PetscMalloc4(nin, &mins, nin, &maxes, nin + 1, &means, nin + 1, &ranges));
  for (PetscInt j = 0; j < nin; j++) PetscCall(SRNNetNext_Private(r, "an input minimum", &mins[j]));
  for (PetscInt j = 0; j < nin; j++) PetscCall(SRNNetNext_Private(r, "an input maximum", &maxes[j]));
  for (PetscInt j = 0; j <= nin; j++) PetscCall(SRNNetNext_Private(r, "a mean", &means[j]));
  for (PetscInt j = 0; j <= nin; j++) PetscCall(SRNNetNext_Private(r, "a range", &ranges[j]));
  for (PetscInt j = 0; j < nin; j++) PetscCheck(mins[j] <= maxes[j], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s: input %" PetscInt_FMT " has minimum %g > maximum %g", r->path, j, mins[j], maxes[j]);
  for (PetscInt j = 0; j <= nin; j++) PetscCheck(ranges[j] > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "NNet %s: range %" PetscInt_FMT " is %g; ranges must be > 0", r->path, j, ranges[j]);
  {
    PetscInt hw[SR_MAX_LAYERS];
    for (PetscInt l = 1; l < nl; l++) hw[l - 1] = sizes[l];
    PetscCall(SRMLPCreate(nin, nl - 1, hw, nout, mlp));
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
