/* Plant files (SPEC §15, include/simreach/plant.h; the format is documented in docs/arch.md).

   One statement per line, '#' starts a comment:
     states x1 x2 ...                 the state names (at most SR_PLANT_MAX_STATES = 64)
     const NAME = EXPR                a named constant (an expression of numbers and constants)
     outputs M                        the network has M outputs, named y1..yM
     input EXPR                       the next network input, an expression of the states
     control NAME = EXPR              a control, an expression of y1..yM and the states
     disturbance NAME in [LO, HI]     a bounded disturbance, held constant over each period
     der NAME = EXPR                  the derivative of state NAME (of states, controls, disturbances)
     next NAME = EXPR                 or: state NAME at the next sample (a discrete-time plant,
                                      SPEC §15 turn 4: one update per period; 'der' and 'next'
                                      never in one file)
     select argmax initial K          several networks, one per output (simreach closedloop
                                      -network A,B,...): network K runs in the first period,
                                      then the one of the previous period's argmax output
     period T                         the control period (seconds)
     horizon H | steps N              the horizon: H a multiple of T, or N periods
   Expressions: numbers, names, + - * / ( ), integer powers ^k (k may be negative),
   sin cos tan exp log sqrt tanh, and the piecewise if(COND, A, B) (COND: comparisons <= < >= > ==
   with and, or, not), argmax(E1, ..., Ek) and case(I, V1, ..., Vk) (Piecewise_Private).  Decimal numbers that are no double are enclosed by the
   two doubles around them, so the constants of the plant are sound.  Every error names the
   file, the line and the column and what was expected.
   Bounds (SPEC §15 turn 4, the caps in include/simreach/plant.h): the step count is computed in
   double and capped before the cast, nesting is capped (the descent is recursive), constant
   sub-expressions are folded here into outward intervals (never evaluated per step; a division
   by a constant zero is refused where it is written), the DAG's distinct operations are capped,
   and only a regular file is read (SRScanReadFile). */
#include <simreach/private/plantparse.h>
#include <simreach/private/textfile.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static bool Statement_Private(SRParser_Private *P, int *der_line, double *horizon, int *horizon_line, int *horizon_col)
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
    SRPVal_Private e;
    if (!SRScanName(&P->s, name)) return false;
    if (Known_Private(P, name)) return SRScanFail(&P->s, "'%s' is already defined", name);
    if (P->nconst == SR_PLANT_MAX_CONSTS) return SRScanFail(&P->s, "more than %d constants", SR_PLANT_MAX_CONSTS);
    if (!SRScanExpect(&P->s, "=")) return false;
    e = LineExprValue_Private(P); /* no names but constants allowed: always folded */
    if (e.node != SR_PV_CONST) return false;
    OverrideConst_Private(P, name, &e);
    strcpy(P->cname[P->nconst], name);
    P->cx[P->nconst]     = e.x;
    P->cval[P->nconst++] = e.v;
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
    if (*der_line) return SRScanFail(&P->s, "'control' after a '%s' line", pl->discrete ? "next" : "der");
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
    if (*der_line) return SRScanFail(&P->s, "'disturbance' after a '%s' line", pl->discrete ? "next" : "der");
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
  if (!strcmp(kw, "der") || !strcmp(kw, "next")) {
    const bool next = kw[0] == 'n';
    int        i, e;
    if (!pl->n) return SRScanFail(&P->s, "'%s' before the 'states' line", kw);
    if (next ? P->der_seen : P->next_seen) { /* SPEC §15 turn 4: continuous or discrete, not both */
      P->s.p -= strlen(kw);
      return SRScanFail(&P->s, "'%s' in a plant with '%s' lines (line %d): a plant is continuous-time (der) or discrete-time (next), not both", kw, next ? "der" : "next", next ? P->der_seen : P->next_seen);
    }
    if (!SRScanName(&P->s, name)) return false;
    for (i = 0; i < pl->n; i++)
      if (!strcmp(pl->state[i], name)) break;
    if (i == pl->n) return SRScanFail(&P->s, "'%s' is not a state", name);
    if (pl->f_root[i] >= 0) return SRScanFail(&P->s, "a second '%s %s' line", kw, name);
    if (!SRScanExpect(&P->s, "=")) return false;
    P->allow_state = P->allow_u = P->allow_w = true;
    e                                        = LineExpr_Private(P);
    if (e < 0) return false;
    pl->f_root[i] = e;
    *der_line     = P->s.lineno;
    if (next) {
      if (!P->next_seen) P->next_seen = P->s.lineno;
      pl->discrete = true;
    } else if (!P->der_seen) P->der_seen = P->s.lineno;
    return true;
  }
  if (!strcmp(kw, "select")) { /* SPEC §15 turn 4: the networks selected by the previous argmax */
    SRInterval v;
    if (pl->select) return SRScanFail(&P->s, "a second 'select' line");
    if (!pl->nout) return SRScanFail(&P->s, "'select' before the 'outputs' line");
    const char *at;
    SRScanSkip(&P->s), at = P->s.p;
    if (!SRScanName(&P->s, name) || strcmp(name, "argmax")) return P->s.p = at, SRScanFail(&P->s, "expected 'argmax' (the only selection rule)");
    SRScanSkip(&P->s), at = P->s.p;
    if (!SRScanName(&P->s, name) || strcmp(name, "initial")) return P->s.p = at, SRScanFail(&P->s, "expected 'initial K' (the network of the first period)");
    SRScanSkip(&P->s), at = P->s.p;
    if (!Number_Private(P, &v)) return false;
    if (!(v.lo == v.hi && v.lo >= 1 && v.lo <= pl->nout)) return P->s.p = at, SRScanFail(&P->s, "initial: expected an integer 1..%d (the outputs)", pl->nout);
    pl->select = (int)v.lo;
    return SRScanAtEnd(&P->s) ? true : SRScanFail(&P->s, "expected the end of the line");
  }
  if (!strcmp(kw, "period")) {
    const char *at;
    SRScanSkip(&P->s);
    at = P->s.p;
    if (!Positive_Private(P, &pl->period, &pl->period_iv)) return false;
    if (!(pl->period_iv.lo >= SR_PLANT_MIN_PERIOD && pl->period_iv.hi <= SR_PLANT_MAX_PERIOD)) return P->s.p = at, SRScanFail(&P->s, "period %g: allowed are %g..%g (seconds)", pl->period, SR_PLANT_MIN_PERIOD, SR_PLANT_MAX_PERIOD);
    return true;
  }
  if (!strcmp(kw, "horizon")) {
    SRScanSkip(&P->s);
    *horizon_line = P->s.lineno, *horizon_col = (int)(P->s.p - P->s.line) + 1;
    return Positive_Private(P, horizon, NULL);
  }
  if (!strcmp(kw, "steps")) {
    const char *at;
    double      s;
    SRScanSkip(&P->s);
    at = P->s.p;
    if (!Positive_Private(P, &s, NULL)) return false;
    /* checked in double before the cast (SPEC §15 turn 4) */
    if (!(s == floor(s) && s <= SR_PLANT_MAX_STEPS)) return P->s.p = at, SRScanFail(&P->s, "steps %.17g: expected an integer 1..%d", s, SR_PLANT_MAX_STEPS);
    pl->steps = (int)s;
    return true;
  }
  {
    int r = SystemStatement_Private(P, kw);
    if (r >= 0) return r;
  }
  P->s.p -= strlen(kw);
  return SRScanFail(&P->s, "unknown statement '%s' (allowed: states, const, outputs, input, control, disturbance, der, next, select, period, horizon, steps, domain, bound, reference, regulate)", kw);
}

PetscErrorCode SRPlantParse(MPI_Comm comm, const char name[], const char text[], SRPlant *pl)
{
  PetscFunctionBeginUser;
  PetscCall(SRPlantParseConsts(comm, name, text, NULL, pl));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRPlantParseConsts(MPI_Comm comm, const char name[], const char text[], const SRPlantConsts *ov, SRPlant *pl)
{
  SRParser_Private *P;
  int               der_line = 0, horizon_line = 0, horizon_col = 0;
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
  P->ov    = ov;
  for (int i = 0; i < SR_PLANT_MAX_STATES; i++) pl->ref_root[i] = -1;
  for (int lineno = 1; *line; lineno++) {
    P->s.line   = line;
    P->s.p      = line;
    P->s.lineno = lineno;
    if (!Statement_Private(P, &der_line, &horizon, &horizon_line, &horizon_col)) break;
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
        if (pl->f_root[i] < 0) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no '%s %s' line", name, pl->discrete ? "next" : "der", pl->state[i]);
    }
  }
  if (!P->s.err[0]) {
    if (horizon_line && pl->steps) snprintf(P->s.err, sizeof P->s.err, "plant file %s:%d: give 'horizon' or 'steps', not both", name, horizon_line);
    else if (horizon_line) {
      /* the number of periods in double, bounded before the cast (SPEC §15 turn 4) */
      double s = horizon / pl->period;
      if (!(floor(s + 0.5) <= SR_PLANT_MAX_STEPS))
        snprintf(P->s.err, sizeof P->s.err, "plant file %s:%d:%d: horizon %g / period %g = %.3g periods; at most %d (give a shorter horizon or a longer period)", name, horizon_line, horizon_col, horizon, pl->period, s, SR_PLANT_MAX_STEPS);
      else if (fabs(s - floor(s + 0.5)) > 1e-9 * s || floor(s + 0.5) < 1) snprintf(P->s.err, sizeof P->s.err, "plant file %s:%d:%d: horizon %g is not a multiple of the period %g", name, horizon_line, horizon_col, horizon, pl->period);
      else pl->steps = (int)floor(s + 0.5);
    } else if (!pl->steps) snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'horizon' or 'steps' line", name);
  }
  if (!P->s.err[0]) SystemCheck_Private(P, name);
  pl->nvars = SR_PLANT_NVARS;
  pl->nconst = P->nconst;
  for (int c = 0; c < P->nconst; c++) strcpy(pl->cname[c], P->cname[c]), pl->cval[c] = P->cval[c], pl->cx[c] = P->cx[c];
  for (int r = 0; r < P->nargmax; r++) free(P->argmax_is[r]);
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

PetscErrorCode SRPlantReadText(MPI_Comm comm, const char path[], char **textp)
{
  PetscFunctionBeginUser;
  PetscCall(SRTextFileReadBroadcast(comm, path, SR_PLANT_MAX_BYTES, "16 MB", "-plant", "plant file", textp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRPlantRead(MPI_Comm comm, const char path[], SRPlant *plant)
{
  char *text;

  PetscFunctionBeginUser;
  PetscCall(SRPlantReadText(comm, path, &text));
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
