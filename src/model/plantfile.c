/* Plant files (SPEC §15, include/simreach/plant.h; the format is documented in docs/arch.md).

   One statement per line, '#' starts a comment:
     states x1 x2 ...                 the state names (at most SR_PLANT_MAX_STATES = 64)
     const NAME = EXPR                a named constant (an expression of numbers and constants)
     outputs M                        the network has M outputs, named y1..yM
     input EXPR                       the next network input, an expression of the states
     control NAME = EXPR              a control, an expression of y1..yM and the states
     disturbance NAME in [LO, HI]     a bounded disturbance, held constant over each period
     der NAME = EXPR                  the derivative of state NAME (of states, controls, disturbances)
     period T                         the control period (seconds)
     horizon H | steps N              the horizon: H a multiple of T, or N periods
   Expressions: numbers, names, + - * / ( ), integer powers ^k (k may be negative), and
   sin cos tan exp log sqrt tanh.  Decimal numbers that are no double are enclosed by the
   two doubles around them, so the constants of the plant are sound.  Every error names the
   file, the line and the column and what was expected. */
#include <simreach/plant.h>
#include <simreach/private/linescan.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SR_PLANT_MAX_CONSTS 64

typedef struct {
  SRLineScan  s; /* the cursor and the first error (linescan.c) */
  SRPlant    *plant;
  char        cname[SR_PLANT_MAX_CONSTS][SR_PLANT_NAME];
  int         cnode[SR_PLANT_MAX_CONSTS];
  int         nconst;
  /* which names an expression may use */
  bool        allow_state, allow_u, allow_w, allow_y;
} SRParser_Private;

/* A decimal literal as an outward interval (SRIntervalDecimal: exact when it is a double). */
static bool Number_Private(SRParser_Private *P, SRInterval *v)
{
  char       *end;
  const char *s = P->s.p;
  SRScanSkip(&P->s);
  s = P->s.p;
  if (!(isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1])))) {
    char b[24];
    return SRScanFail(&P->s, "expected a number, found %s", SRScanFound(&P->s, b, sizeof b));
  }
  *v = SRIntervalDecimal(s, &end);
  if (SRIntervalIsNaI(*v) || !SRIntervalIsBounded(*v)) return SRScanFail(&P->s, "number out of range");
  P->s.p = end;
  return true;
}

static int Expr_Private(SRParser_Private *P);

static int Node_Private(SRParser_Private *P, SRExprOp op, int a, int b, int var, SRInterval v)
{
  int i;
  if (a < 0 && (op != SR_X_CONST && op != SR_X_VAR)) return -1;
  i = SRExprNode_(&P->plant->dag, op, a, b, var, v);
  if (i < 0) SRScanFail(&P->s, "out of memory");
  return i;
}

static int Const_Private(SRParser_Private *P, double x) { return Node_Private(P, SR_X_CONST, -1, -1, -1, SRIntervalPoint(x)); }

static int Primary_Private(SRParser_Private *P)
{
  static const char *const fun[] = {"sin", "cos", "tan", "exp", "log", "sqrt", "tanh"};
  static const SRExprOp    fop[] = {SR_X_SIN, SR_X_COS, SR_X_TAN, SR_X_EXP, SR_X_LOG, SR_X_SQRT, SR_X_TANH};
  SRPlant                 *pl    = P->plant;
  char                     name[SR_PLANT_NAME];
  SRScanSkip(&P->s);
  if (*P->s.p == '(') {
    int e;
    P->s.p++;
    e = Expr_Private(P);
    if (e < 0 || !SRScanExpect(&P->s, ")")) return -1;
    return e;
  }
  if (isdigit((unsigned char)*P->s.p) || *P->s.p == '.') {
    SRInterval v;
    if (!Number_Private(P, &v)) return -1;
    return Node_Private(P, SR_X_CONST, -1, -1, -1, v);
  }
  {
    const char *at = P->s.p;
    if (!SRScanName(&P->s, name)) return -1;
    for (int f = 0; f < 7; f++)
      if (!strcmp(name, fun[f])) {
        int e;
        if (!SRScanExpect(&P->s, "(")) return -1;
        e = Expr_Private(P);
        if (e < 0 || !SRScanExpect(&P->s, ")")) return -1;
        return Node_Private(P, fop[f], e, -1, -1, SRIntervalPoint(0));
      }
    for (int c = 0; c < P->nconst; c++)
      if (!strcmp(name, P->cname[c])) return P->cnode[c];
    for (int i = 0; i < pl->n; i++)
      if (!strcmp(name, pl->state[i])) {
        if (!P->allow_state) return P->s.p = at, SRScanFail(&P->s, "state '%s' is not allowed here", name), -1;
        return Node_Private(P, SR_X_VAR, -1, -1, i, SRIntervalPoint(0));
      }
    for (int i = 0; i < pl->nu; i++)
      if (!strcmp(name, pl->control[i])) {
        if (!P->allow_u) return P->s.p = at, SRScanFail(&P->s, "control '%s' is not allowed here (only in der lines)", name), -1;
        return Node_Private(P, SR_X_VAR, -1, -1, SR_SLOT_U(i), SRIntervalPoint(0));
      }
    for (int i = 0; i < pl->nw; i++)
      if (!strcmp(name, pl->dist[i])) {
        if (!P->allow_w) return P->s.p = at, SRScanFail(&P->s, "disturbance '%s' is not allowed here (only in der lines)", name), -1;
        return Node_Private(P, SR_X_VAR, -1, -1, SR_SLOT_W(i), SRIntervalPoint(0));
      }
    if (name[0] == 'y' && isdigit((unsigned char)name[1])) {
      char *end;
      long  k = strtol(name + 1, &end, 10);
      if (!*end) {
        if (!P->allow_y) return P->s.p = at, SRScanFail(&P->s, "network output '%s' is not allowed here (only in control lines)", name), -1;
        if (k < 1 || k > pl->nout) return P->s.p = at, SRScanFail(&P->s, "network output '%s': the plant declares 'outputs %d' (y1..y%d)", name, pl->nout, pl->nout), -1;
        return Node_Private(P, SR_X_VAR, -1, -1, SR_SLOT_Y((int)(k - 1)), SRIntervalPoint(0));
      }
    }
    P->s.p = at;
    SRScanFail(&P->s, "unknown name '%s' (not a state, constant, control, disturbance, y1..y%d or function)", name, pl->nout);
    return -1;
  }
}

/* x^k, k an integer: squares and products (k < 0: 1 / x^|k|) */
static int Power_Private(SRParser_Private *P, int x, long k)
{
  int r = -1, b = x;
  long m = k < 0 ? -k : k;
  if (m == 0) return Const_Private(P, 1.0);
  while (m > 0) {
    if (m & 1) r = r < 0 ? b : Node_Private(P, SR_X_MUL, r, b, -1, SRIntervalPoint(0));
    m >>= 1;
    if (m > 0) b = Node_Private(P, SR_X_SQR, b, -1, -1, SRIntervalPoint(0));
    if (r == -1 && P->s.err[0]) return -1;
  }
  if (k < 0) r = Node_Private(P, SR_X_DIV, Const_Private(P, 1.0), r, -1, SRIntervalPoint(0));
  return r;
}

static int Unary_Private(SRParser_Private *P)
{
  int e;
  SRScanSkip(&P->s);
  if (*P->s.p == '-') {
    P->s.p++;
    e = Unary_Private(P);
    return e < 0 ? -1 : Node_Private(P, SR_X_NEG, e, -1, -1, SRIntervalPoint(0));
  }
  if (*P->s.p == '+') {
    P->s.p++;
    return Unary_Private(P);
  }
  e = Primary_Private(P);
  if (e < 0) return -1;
  SRScanSkip(&P->s);
  if (*P->s.p == '^') {
    char *end;
    long  k;
    P->s.p++;
    SRScanSkip(&P->s);
    k = strtol(P->s.p, &end, 10);
    if (end == P->s.p || (*P->s.p != '-' && !isdigit((unsigned char)*P->s.p))) {
      char b[24];
      SRScanFail(&P->s, "expected an integer exponent after '^', found %s", SRScanFound(&P->s, b, sizeof b));
      return -1;
    }
    if (k > 64 || k < -64) return SRScanFail(&P->s, "exponent %ld outside -64..64", k), -1;
    P->s.p = end;
    e    = Power_Private(P, e, k);
  }
  return e;
}

static int Term_Private(SRParser_Private *P)
{
  int a = Unary_Private(P);
  while (a >= 0) {
    char op;
    int  b;
    SRScanSkip(&P->s);
    op = *P->s.p;
    if (op != '*' && op != '/') break;
    P->s.p++;
    b = Unary_Private(P);
    if (b < 0) return -1;
    a = Node_Private(P, op == '*' ? (a == b ? SR_X_SQR : SR_X_MUL) : SR_X_DIV, a, op == '*' && a == b ? -1 : b, -1, SRIntervalPoint(0));
  }
  return a;
}

static int Expr_Private(SRParser_Private *P)
{
  int a = Term_Private(P);
  while (a >= 0) {
    char op;
    int  b;
    SRScanSkip(&P->s);
    op = *P->s.p;
    if (op != '+' && op != '-') break;
    P->s.p++;
    b = Term_Private(P);
    if (b < 0) return -1;
    a = Node_Private(P, op == '+' ? SR_X_ADD : SR_X_SUB, a, b, -1, SRIntervalPoint(0));
  }
  return a;
}

/* a whole-line expression: nothing may follow it */
static int LineExpr_Private(SRParser_Private *P)
{
  int e = Expr_Private(P);
  if (e >= 0 && !SRScanAtEnd(&P->s)) {
    char b[24];
    SRScanFail(&P->s, "expected an operator or the end of the line, found %s", SRScanFound(&P->s, b, sizeof b));
    return -1;
  }
  return e;
}

static bool Known_Private(SRParser_Private *P, const char *name)
{
  SRPlant *pl = P->plant;
  for (int c = 0; c < P->nconst; c++)
    if (!strcmp(name, P->cname[c])) return true;
  for (int i = 0; i < pl->n; i++)
    if (!strcmp(name, pl->state[i])) return true;
  for (int i = 0; i < pl->nu; i++)
    if (!strcmp(name, pl->control[i])) return true;
  for (int i = 0; i < pl->nw; i++)
    if (!strcmp(name, pl->dist[i])) return true;
  return false;
}

static bool Positive_Private(SRParser_Private *P, double *v, SRInterval *iv)
{
  SRInterval x;
  const char *at;
  SRScanSkip(&P->s);
  at = P->s.p;
  if (!Number_Private(P, &x)) return false;
  *v = 0.5 * x.lo + 0.5 * x.hi;
  if (iv) *iv = x;
  if (!(x.lo > 0)) return P->s.p = at, SRScanFail(&P->s, "expected a positive number");
  if (!SRScanAtEnd(&P->s)) {
    char b[24];
    return SRScanFail(&P->s, "expected the end of the line, found %s", SRScanFound(&P->s, b, sizeof b));
  }
  return true;
}

/* a signed number for disturbance bounds */
static bool Signed_Private(SRParser_Private *P, double *lo, double *hi)
{
  SRInterval x;
  bool       neg = false;
  SRScanSkip(&P->s);
  if (*P->s.p == '-' || *P->s.p == '+') neg = *P->s.p++ == '-';
  if (!Number_Private(P, &x)) return false;
  if (neg) x = SRIntervalNeg(x);
  *lo = x.lo;
  *hi = x.hi;
  return true;
}

static bool Statement_Private(SRParser_Private *P, int *der_line, double *horizon, int *horizon_line)
{
  SRPlant *pl = P->plant;
  char     kw[SR_PLANT_NAME], name[SR_PLANT_NAME];
  if (SRScanAtEnd(&P->s)) return true;
  if (!SRScanName(&P->s, kw)) return false;
  P->allow_state = P->allow_u = P->allow_w = P->allow_y = false;
  if (!strcmp(kw, "states")) {
    if (pl->n) return SRScanFail(&P->s, "a second 'states' line");
    while (!SRScanAtEnd(&P->s)) {
      if (pl->n == SR_PLANT_MAX_STATES) return SRScanFail(&P->s, "more than %d states", SR_PLANT_MAX_STATES);
      if (!SRScanName(&P->s, name)) return false;
      if (Known_Private(P, name)) return SRScanFail(&P->s, "'%s' is already defined", name);
      strcpy(pl->state[pl->n++], name);
    }
    if (!pl->n) return SRScanFail(&P->s, "expected state names after 'states'");
    return true;
  }
  if (!strcmp(kw, "const")) {
    int e;
    if (!SRScanName(&P->s, name)) return false;
    if (Known_Private(P, name)) return SRScanFail(&P->s, "'%s' is already defined", name);
    if (P->nconst == SR_PLANT_MAX_CONSTS) return SRScanFail(&P->s, "more than %d constants", SR_PLANT_MAX_CONSTS);
    if (!SRScanExpect(&P->s, "=")) return false;
    e = LineExpr_Private(P);
    if (e < 0) return false;
    strcpy(P->cname[P->nconst], name);
    P->cnode[P->nconst++] = e;
    return true;
  }
  if (!strcmp(kw, "outputs")) {
    SRInterval v;
    if (pl->nout) return SRScanFail(&P->s, "a second 'outputs' line");
    if (pl->nu) return SRScanFail(&P->s, "'outputs' must come before the control lines");
    if (!Number_Private(P, &v)) return false;
    if (!(v.lo == v.hi && v.lo >= 1 && v.lo <= SR_PLANT_MAX_OUTPUTS)) return SRScanFail(&P->s, "outputs: expected an integer 1..%d", SR_PLANT_MAX_OUTPUTS);
    pl->nout = (int)v.lo;
    return SRScanAtEnd(&P->s) ? true : SRScanFail(&P->s, "expected the end of the line");
  }
  if (!strcmp(kw, "input")) {
    int e;
    if (!pl->n) return SRScanFail(&P->s, "'input' before the 'states' line");
    if (pl->nin == SR_PLANT_MAX_INPUTS) return SRScanFail(&P->s, "more than %d inputs", SR_PLANT_MAX_INPUTS);
    P->allow_state = true;
    e              = LineExpr_Private(P);
    if (e < 0) return false;
    pl->in_root[pl->nin++] = e;
    return true;
  }
  if (!strcmp(kw, "control")) {
    int e;
    if (!pl->nout) return SRScanFail(&P->s, "'control' before the 'outputs' line");
    if (*der_line) return SRScanFail(&P->s, "'control' after a 'der' line");
    if (pl->nu == SR_PLANT_MAX_STATES) return SRScanFail(&P->s, "more than %d controls", SR_PLANT_MAX_STATES);
    if (!SRScanName(&P->s, name)) return false;
    if (Known_Private(P, name)) return SRScanFail(&P->s, "'%s' is already defined", name);
    if (pl->nw) return SRScanFail(&P->s, "'control' lines must come before the disturbance lines");
    if (!SRScanExpect(&P->s, "=")) return false;
    P->allow_state = P->allow_y = true;
    e                           = LineExpr_Private(P);
    if (e < 0) return false;
    strcpy(pl->control[pl->nu], name);
    pl->u_root[pl->nu++] = e;
    return true;
  }
  if (!strcmp(kw, "disturbance")) {
    double lo, hi, t;
    if (*der_line) return SRScanFail(&P->s, "'disturbance' after a 'der' line");
    if (pl->nw == SR_PLANT_MAX_STATES) return SRScanFail(&P->s, "more than %d disturbances", SR_PLANT_MAX_STATES);
    if (!SRScanName(&P->s, name)) return false;
    if (Known_Private(P, name)) return SRScanFail(&P->s, "'%s' is already defined", name);
    if (!SRScanName(&P->s, kw) || strcmp(kw, "in")) return SRScanFail(&P->s, "expected 'in [LO, HI]'");
    if (!SRScanExpect(&P->s, "[") || !Signed_Private(P, &lo, &t) || !SRScanExpect(&P->s, ",") || !Signed_Private(P, &t, &hi) || !SRScanExpect(&P->s, "]")) return false;
    if (!(lo <= hi)) return SRScanFail(&P->s, "disturbance '%s': empty interval", name);
    if (!SRScanAtEnd(&P->s)) return SRScanFail(&P->s, "expected the end of the line");
    strcpy(pl->dist[pl->nw], name);
    pl->wbox[pl->nw++] = (SRInterval){lo, hi};
    return true;
  }
  if (!strcmp(kw, "der")) {
    int i, e;
    if (!pl->n) return SRScanFail(&P->s, "'der' before the 'states' line");
    if (!SRScanName(&P->s, name)) return false;
    for (i = 0; i < pl->n; i++)
      if (!strcmp(pl->state[i], name)) break;
    if (i == pl->n) return SRScanFail(&P->s, "'%s' is not a state", name);
    if (pl->f_root[i] >= 0) return SRScanFail(&P->s, "a second 'der %s' line", name);
    if (!SRScanExpect(&P->s, "=")) return false;
    P->allow_state = P->allow_u = P->allow_w = true;
    e                                        = LineExpr_Private(P);
    if (e < 0) return false;
    pl->f_root[i] = e;
    *der_line     = P->s.lineno;
    return true;
  }
  if (!strcmp(kw, "period")) return Positive_Private(P, &pl->period, &pl->period_iv);
  if (!strcmp(kw, "horizon")) {
    *horizon_line = P->s.lineno;
    return Positive_Private(P, horizon, NULL);
  }
  if (!strcmp(kw, "steps")) {
    double s;
    if (!Positive_Private(P, &s, NULL)) return false;
    if (s != floor(s) || s > 1e7) return SRScanFail(&P->s, "steps: expected an integer 1..10^7");
    pl->steps = (int)s;
    return true;
  }
  P->s.p -= strlen(kw);
  return SRScanFail(&P->s, "unknown statement '%s' (allowed: states, const, outputs, input, control, disturbance, der, period, horizon, steps)", kw);
}

PetscErrorCode SRPlantParse(MPI_Comm comm, const char name[], const char text[], SRPlant *pl)
{
  SRParser_Private *P;
  int               der_line = 0, horizon_line = 0;
  double            horizon  = 0;
  const char       *line     = text;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(1, &P));
  memset(pl, 0, sizeof *pl);
  PetscCall(PetscStrncpy(pl->path, name, sizeof pl->path));
  SRExprInit(&pl->dag);
  for (int i = 0; i < SR_PLANT_MAX_STATES; i++) pl->f_root[i] = -1;
  P->s.kind  = "plant file";
  P->s.name  = name;
  P->plant = pl;
  for (int lineno = 1; *line; lineno++) {
    P->s.line   = line;
    P->s.p      = line;
    P->s.lineno = lineno;
    if (!Statement_Private(P, &der_line, &horizon, &horizon_line)) break;
    while (*line && *line != '\n') line++;
    if (*line) line++;
  }
  if (!P->s.err[0]) {
    P->s.p = P->s.line = "";
    P->s.lineno      = 0;
    if (!pl->n) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'states' line", name);
    else if (!pl->nout) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'outputs' line (the number of network outputs)", name);
    else if (!pl->nin) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'input' line (the network's inputs)", name);
    else if (!(pl->period > 0)) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'period' line", name);
    else {
      for (int i = 0; i < pl->n && !P->s.err[0]; i++)
        if (pl->f_root[i] < 0) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'der %s' line", name, pl->state[i]);
    }
  }
  if (!P->s.err[0]) {
    if (horizon_line && pl->steps) snprintf(P->s.err, sizeof P->s.err, "plant file %s:%d: give 'horizon' or 'steps', not both", name, horizon_line);
    else if (horizon_line) {
      double s = horizon / pl->period;
      if (fabs(s - floor(s + 0.5)) > 1e-9 * s || floor(s + 0.5) < 1) snprintf(P->s.err, sizeof P->s.err, "plant file %s:%d: horizon %g is not a multiple of the period %g", name, horizon_line, horizon, pl->period);
      else pl->steps = (int)floor(s + 0.5);
    } else if (!pl->steps) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'horizon' or 'steps' line", name);
  }
  pl->nvars = SR_PLANT_NVARS;
  if (P->s.err[0]) {
    char msg[512];
    PetscCall(PetscStrncpy(msg, P->s.err, sizeof msg));
    PetscCall(PetscFree(P));
    SRPlantFree(pl);
    SETERRQ(comm, PETSC_ERR_FILE_UNEXPECTED, "%s", msg);
  }
  PetscCall(PetscFree(P));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRPlantRead(MPI_Comm comm, const char path[], SRPlant *plant)
{
  PetscMPIInt rank;
  long        len = -1;
  char       *text;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    FILE *f = fopen(path, "rb");
    if (f) {
      if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
      if (len > (1L << 24)) len = -2;
      if (len >= 0) rewind(f);
      if (len >= 0) {
        text = malloc((size_t)len + 1);
        if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) len = -1;
        else text[len] = 0;
        if (len < 0) free(text);
      }
      fclose(f);
    }
  }
  PetscCallMPI(MPI_Bcast(&len, 1, MPI_LONG, 0, comm));
  PetscCheck(len != -2, comm, PETSC_ERR_FILE_UNEXPECTED, "plant file %s: larger than 16 MB", path);
  PetscCheck(len >= 0, comm, PETSC_ERR_FILE_OPEN, "-plant %s: cannot read the file", path);
  if (rank != 0) PetscCheck(text = malloc((size_t)len + 1), PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory");
  PetscCallMPI(MPI_Bcast(text, (int)len + 1, MPI_CHAR, 0, comm));
  PetscCheck(strlen(text) == (size_t)len, comm, PETSC_ERR_FILE_UNEXPECTED, "plant file %s: contains a NUL byte (not a text file?)", path);
  {
    PetscErrorCode ierr = SRPlantParse(comm, path, text, plant);
    free(text);
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRPlantFree(SRPlant *plant) { SRExprFree(&plant->dag); }

int SRPlantStateIndex(const SRPlant *plant, const char name[])
{
  for (int i = 0; i < plant->n; i++)
    if (!strcmp(plant->state[i], name)) return i;
  return -1;
}
