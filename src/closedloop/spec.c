/* Spec files (include/simreach/spec.h, SPEC §15; the format is in docs/arch.md).
     initial NAME in [LO, HI]             one line per state
     always [T0, T1]: BODY                (the window may be left out: the whole horizon)
     at_end: BODY
     eventually [T0, T1]: BODY
   BODY is ATOM (and ATOM)*, an ATOM is LINEAR <= NUMBER, LINEAR >= NUMBER or NAME in [LO, HI];
   LINEAR is a sum of [NUMBER [*]] NAME and NUMBER terms.  Every error names the file, the
   line and the column. */
#include <simreach/private/linescan.h>
#include <simreach/spec.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  SRLineScan     s; /* the cursor and the first error (src/model/linescan.c) */
  const SRPlant *pl;
} SRSpecParser_Private;

static bool SIsNumber_Private(SRSpecParser_Private *P)
{
  const char *s = P->s.p;
  SRScanSkip(&P->s);
  s = P->s.p;
  if (*s == '-' || *s == '+') s++;
  return isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]));
}

/* a signed decimal, enclosed (SRIntervalDecimal: exact when it is a double) */
static bool SNumber_Private(SRSpecParser_Private *P, SRInterval *v)
{
  char       *end, b[24];
  const char *s;
  SRScanSkip(&P->s);
  s = P->s.p;
  if (!SIsNumber_Private(P)) return SRScanFail(&P->s, "expected a number, found %s", SRScanFound(&P->s, b, sizeof b));
  {
    bool neg = *s == '-';
    if (*s == '-' || *s == '+') s++;
    *v = SRIntervalDecimal(s, &end);
    if (SRIntervalIsNaI(*v) || !SRIntervalIsBounded(*v)) return SRScanFail(&P->s, "number out of range");
    if (neg) *v = SRIntervalNeg(*v);
  }
  P->s.p = end;
  return true;
}

static int SState_Private(SRSpecParser_Private *P, const char *at, const char *name)
{
  int i = SRPlantStateIndex(P->pl, name);
  if (i < 0) {
    P->s.p = at;
    SRScanFail(&P->s, "'%s' is not a state of plant %s", name, P->pl->path);
  }
  return i;
}

/* LINEAR (<= | >=) NUMBER, or NAME in [LO, HI]: one or two atoms */
static bool SAtom_Private(SRSpecParser_Private *P, SRSpecConstraint *c)
{
  SRSpecAtom at;
  SRInterval k = SRIntervalPoint(0.0);
  int        sign = 1, nterms = 0;
  for (int i = 0; i < SR_PLANT_MAX_STATES; i++) at.a[i] = SRIntervalPoint(0.0);
  if (c->natoms + 2 > SR_SPEC_MAX_ATOMS) return SRScanFail(&P->s, "more than %d atoms in one constraint", SR_SPEC_MAX_ATOMS);
  for (;;) {
    SRInterval coef = SRIntervalPoint(1.0);
    bool       num  = false;
    char       name[SR_PLANT_NAME];
    SRScanSkip(&P->s);
    if (SIsNumber_Private(P) && *P->s.p != '-' && *P->s.p != '+') {
      if (!SNumber_Private(P, &coef)) return false;
      num = true;
      SRScanSkip(&P->s);
      if (*P->s.p == '*') P->s.p++;
    }
    SRScanSkip(&P->s);
    if (isalpha((unsigned char)*P->s.p) || *P->s.p == '_') {
      const char *atp = P->s.p;
      int         i;
      if (!SRScanName(&P->s, name)) return false;
      SRScanSkip(&P->s);
      if (nterms == 0 && !num && !strncmp(P->s.p, "in", 2) && !isalnum((unsigned char)P->s.p[2])) {
        SRInterval lo, hi;
        if ((i = SState_Private(P, atp, name)) < 0) return false;
        P->s.p += 2;
        if (!SRScanExpect(&P->s, "[") || !SNumber_Private(P, &lo) || !SRScanExpect(&P->s, ",") || !SNumber_Private(P, &hi) || !SRScanExpect(&P->s, "]")) return false;
        if (!(lo.lo <= hi.hi)) return SRScanFail(&P->s, "empty interval");
        /* x_i <= hi and -x_i <= -lo */
        c->atom[c->natoms]      = at;
        c->atom[c->natoms].a[i] = SRIntervalPoint(1.0);
        c->atom[c->natoms++].b  = hi;
        c->atom[c->natoms]      = at;
        c->atom[c->natoms].a[i] = SRIntervalPoint(-1.0);
        c->atom[c->natoms++].b  = SRIntervalNeg(lo);
        return true;
      }
      if ((i = SState_Private(P, atp, name)) < 0) return false;
      at.a[i] = SRIntervalAdd(at.a[i], sign > 0 ? coef : SRIntervalNeg(coef));
    } else if (num) k = SRIntervalAdd(k, sign > 0 ? coef : SRIntervalNeg(coef));
    else {
      char b[24];
      return SRScanFail(&P->s, "expected a term (NUMBER, NAME or NUMBER * NAME), found %s", SRScanFound(&P->s, b, sizeof b));
    }
    nterms++;
    SRScanSkip(&P->s);
    if (*P->s.p == '+' || *P->s.p == '-') {
      sign = *P->s.p++ == '+' ? 1 : -1;
      continue;
    }
    break;
  }
  {
    SRInterval b;
    bool       ge;
    char       buf[24];
    SRScanSkip(&P->s);
    if (!strncmp(P->s.p, "<=", 2)) ge = false;
    else if (!strncmp(P->s.p, ">=", 2)) ge = true;
    else return SRScanFail(&P->s, "expected '<=', '>=' or 'in', found %s", SRScanFound(&P->s, buf, sizeof buf));
    P->s.p += 2;
    if (!SNumber_Private(P, &b)) return false;
    b = SRIntervalSub(b, k); /* a . x + k <= b  <=>  a . x <= b - k */
    if (ge) {
      for (int i = 0; i < P->pl->n; i++) at.a[i] = SRIntervalNeg(at.a[i]);
      b = SRIntervalNeg(b);
    }
    at.b                 = b;
    c->atom[c->natoms++] = at;
  }
  return true;
}

static bool SWindow_Private(SRSpecParser_Private *P, SRSpecConstraint *c, double horizon)
{
  SRInterval t0, t1;
  SRScanSkip(&P->s);
  if (*P->s.p != '[') {
    c->t0 = 0.0, c->t1 = horizon;
    return true;
  }
  P->s.p++;
  if (!SNumber_Private(P, &t0) || !SRScanExpect(&P->s, ",") || !SNumber_Private(P, &t1) || !SRScanExpect(&P->s, "]")) return false;
  if (!(t0.lo >= 0 && t0.lo <= t1.hi && t1.hi <= horizon * (1 + 1e-12))) return SRScanFail(&P->s, "window [%g, %g] is not inside the horizon [0, %g] of plant %s", t0.lo, t1.hi, horizon, P->pl->path);
  c->t0 = t0.lo, c->t1 = t1.hi; /* outward: a longer window is a stronger claim for always */
  return true;
}

static bool SStatement_Private(SRSpecParser_Private *P, SRSpec *S, bool *seen)
{
  char         kw[SR_PLANT_NAME], name[SR_PLANT_NAME];
  const double horizon = P->pl->period * P->pl->steps;
  if (SRScanAtEnd(&P->s)) return true;
  if (!SRScanName(&P->s, kw)) return false;
  if (!strcmp(kw, "initial")) {
    const char *at;
    int         i;
    SRInterval  lo, hi;
    SRScanSkip(&P->s);
    at = P->s.p;
    if (!SRScanName(&P->s, name) || (i = SState_Private(P, at, name)) < 0) return false;
    if (seen[i]) return P->s.p = at, SRScanFail(&P->s, "a second 'initial %s' line", name);
    if (!SRScanExpect(&P->s, "in") || !SRScanExpect(&P->s, "[") || !SNumber_Private(P, &lo) || !SRScanExpect(&P->s, ",") || !SNumber_Private(P, &hi) || !SRScanExpect(&P->s, "]")) return false;
    if (!(lo.lo <= hi.hi)) return SRScanFail(&P->s, "initial %s: empty interval", name);
    if (!SRScanAtEnd(&P->s)) return SRScanFail(&P->s, "expected the end of the line");
    seen[i]   = true;
    S->lo[i]  = lo.lo, S->hi[i] = hi.hi;
    S->ilo[i] = lo.hi, S->ihi[i] = hi.lo;
    /* a single decimal that is no double (e.g. [1.2, 1.2]) holds no double: counterexamples
       then start from the nearest double (docs/arch.md) */
    if (S->ilo[i] > S->ihi[i]) S->ilo[i] = S->ihi[i] = 0.5 * lo.lo + 0.5 * hi.hi;
    return true;
  }
  if (!strcmp(kw, "always") || !strcmp(kw, "at_end") || !strcmp(kw, "eventually")) {
    SRSpecConstraint *c;
    if (S->nc == SR_SPEC_MAX_CONSTRAINTS) return SRScanFail(&P->s, "more than %d constraints", SR_SPEC_MAX_CONSTRAINTS);
    c = &S->c[S->nc];
    memset(c, 0, sizeof *c);
    c->line = P->s.lineno;
    c->kind = !strcmp(kw, "always") ? SR_SPEC_ALWAYS : !strcmp(kw, "at_end") ? SR_SPEC_AT_END : SR_SPEC_EVENTUALLY;
    if (c->kind == SR_SPEC_AT_END) c->t0 = c->t1 = horizon;
    else if (!SWindow_Private(P, c, horizon)) return false;
    if (!SRScanExpect(&P->s, ":")) return false;
    for (;;) {
      char w[8];
      if (!SAtom_Private(P, c)) return false;
      if (SRScanAtEnd(&P->s)) break;
      if (!SRScanName(&P->s, w) || strcmp(w, "and")) return P->s.err[0] ? false : SRScanFail(&P->s, "expected 'and' or the end of the line");
    }
    S->nc++;
    return true;
  }
  P->s.p -= strlen(kw);
  return SRScanFail(&P->s, "unknown statement '%s' (allowed: initial, always, at_end, eventually)", kw);
}

PetscErrorCode SRSpecParse(MPI_Comm comm, const char name[], const char text[], const SRPlant *pl, SRSpec *S)
{
  SRSpecParser_Private P;
  bool                 seen[SR_AFFINE_MAX] = {false};
  const char          *line                = text;

  PetscFunctionBeginUser;
  memset(&P, 0, sizeof P);
  memset(S, 0, sizeof *S);
  PetscCall(PetscStrncpy(S->path, name, sizeof S->path));
  S->n   = pl->n;
  P.s.kind = "spec file";
  P.s.name = name;
  P.pl   = pl;
  for (int lineno = 1; *line; lineno++) {
    P.s.line = P.s.p = line;
    P.s.lineno     = lineno;
    if (!SStatement_Private(&P, S, seen)) break;
    while (*line && *line != '\n') line++;
    if (*line) line++;
  }
  if (!P.s.err[0]) {
    for (int i = 0; i < pl->n && !P.s.err[0]; i++)
      if (!seen[i]) snprintf(P.s.err, sizeof P.s.err, "spec file %.200s: no 'initial %s in [LO, HI]' line (the plant has %d states)", name, pl->state[i], pl->n);
    if (!P.s.err[0] && !S->nc) snprintf(P.s.err, sizeof P.s.err, "spec file %s: no constraint (always, at_end or eventually line)", name);
  }
  PetscCheck(!P.s.err[0], comm, PETSC_ERR_FILE_UNEXPECTED, "%s", P.s.err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSpecRead(MPI_Comm comm, const char path[], const SRPlant *plant, SRSpec *spec)
{
  static const char *const types[] = {"a directory", "a FIFO", "a character device", "a block device", "a socket", "not a regular file"};
  PetscMPIInt              rank;
  long                     len  = -1;
  char                    *text = NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    const char *type;
    len = SRScanReadFile(path, 1L << 20, &text, &type); /* only a regular file (SPEC §15 turn 4) */
    if (len == -3)
      for (int k = 0; k < 6; k++)
        if (!strcmp(type, types[k])) len = -3 - k;
  }
  PetscCallMPI(MPI_Bcast(&len, 1, MPI_LONG, 0, comm));
  PetscCheck(len > -3, comm, PETSC_ERR_FILE_OPEN, "-spec %s: %s%s; give a regular file", path, len == -8 ? "" : "is ", types[-3 - len < 6 && -3 - len >= 0 ? -3 - len : 5]);
  PetscCheck(len != -2, comm, PETSC_ERR_FILE_UNEXPECTED, "spec file %s: larger than 1 MB", path);
  PetscCheck(len >= 0, comm, PETSC_ERR_FILE_OPEN, "-spec %s: cannot read the file", path);
  if (rank != 0) PetscCheck(text = malloc((size_t)len + 1), PETSC_COMM_SELF, PETSC_ERR_MEM, "out of memory");
  PetscCallMPI(MPI_Bcast(text, (int)len + 1, MPI_CHAR, 0, comm));
  {
    PetscErrorCode ierr = strlen(text) == (size_t)len ? SRSpecParse(comm, path, text, plant, spec) : PETSC_ERR_FILE_UNEXPECTED;
    bool           nul  = strlen(text) != (size_t)len;
    free(text);
    PetscCheck(!nul, comm, PETSC_ERR_FILE_UNEXPECTED, "spec file %s: contains a NUL byte (not a text file?)", path);
    PetscCall(ierr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
