/* Spec files (include/simreach/spec.h, SPEC §15; the format is in docs/arch.md).
     initial NAME in [LO, HI]             one line per state
     always [T0, T1]: BODY                (the window may be left out: the whole horizon)
     at_end: BODY
     eventually [T0, T1]: BODY
   BODY is ATOM (and ATOM)*, an ATOM is LINEAR <= NUMBER, LINEAR >= NUMBER or NAME in [LO, HI];
   LINEAR is a sum of [NUMBER [*]] NAME and NUMBER terms.  Every error names the file, the
   line and the column. */
#include <simreach/spec.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char    *name, *line, *p;
  int            lineno;
  const SRPlant *pl;
  char           err[512];
} SRSpecParser_Private;

static bool SFail_Private(SRSpecParser_Private *P, const char *fmt, ...)
{
  char    msg[400];
  va_list ap;
  if (P->err[0]) return false;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(P->err, sizeof P->err, "spec file %s:%d:%d: %s", P->name, P->lineno, (int)(P->p - P->line) + 1, msg);
  return false;
}

static void SSkip_Private(SRSpecParser_Private *P)
{
  while (*P->p == ' ' || *P->p == '\t' || *P->p == '\r') P->p++;
}

static bool SAtEnd_Private(SRSpecParser_Private *P)
{
  SSkip_Private(P);
  return *P->p == 0 || *P->p == '\n' || *P->p == '#';
}

static const char *SFound_Private(SRSpecParser_Private *P, char *b, size_t len)
{
  size_t k = 0;
  if (SAtEnd_Private(P)) return "the end of the line";
  b[k++] = '\'';
  for (const char *q = P->p; *q && *q != '\n' && k + 2 < len && k < 16; q++) b[k++] = *q;
  b[k++] = '\'';
  b[k]   = 0;
  return b;
}

static bool SName_Private(SRSpecParser_Private *P, char *out)
{
  int  k = 0;
  char b[24];
  SSkip_Private(P);
  if (!(isalpha((unsigned char)*P->p) || *P->p == '_')) return SFail_Private(P, "expected a name, found %s", SFound_Private(P, b, sizeof b));
  while (isalnum((unsigned char)*P->p) || *P->p == '_') {
    if (k + 1 >= SR_PLANT_NAME) return SFail_Private(P, "name too long");
    out[k++] = *P->p++;
  }
  out[k] = 0;
  return true;
}

static bool SExpect_Private(SRSpecParser_Private *P, const char *s)
{
  char b[24];
  SSkip_Private(P);
  if (strncmp(P->p, s, strlen(s))) return SFail_Private(P, "expected '%s', found %s", s, SFound_Private(P, b, sizeof b));
  P->p += strlen(s);
  return true;
}

static bool SIsNumber_Private(SRSpecParser_Private *P)
{
  const char *s = P->p;
  SSkip_Private(P);
  s = P->p;
  if (*s == '-' || *s == '+') s++;
  return isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]));
}

/* a signed decimal, enclosed (SRIntervalDecimal: exact when it is a double) */
static bool SNumber_Private(SRSpecParser_Private *P, SRInterval *v)
{
  char       *end, b[24];
  const char *s;
  SSkip_Private(P);
  s = P->p;
  if (!SIsNumber_Private(P)) return SFail_Private(P, "expected a number, found %s", SFound_Private(P, b, sizeof b));
  {
    bool neg = *s == '-';
    if (*s == '-' || *s == '+') s++;
    *v = SRIntervalDecimal(s, &end);
    if (SRIntervalIsNaI(*v) || !SRIntervalIsBounded(*v)) return SFail_Private(P, "number out of range");
    if (neg) *v = SRIntervalNeg(*v);
  }
  P->p = end;
  return true;
}

static int SState_Private(SRSpecParser_Private *P, const char *at, const char *name)
{
  int i = SRPlantStateIndex(P->pl, name);
  if (i < 0) {
    P->p = at;
    SFail_Private(P, "'%s' is not a state of plant %s", name, P->pl->path);
  }
  return i;
}

/* LINEAR (<= | >=) NUMBER, or NAME in [LO, HI]: one or two atoms */
static bool SAtom_Private(SRSpecParser_Private *P, SRSpecConstraint *c)
{
  SRSpecAtom at;
  SRInterval k = SRIntervalPoint(0.0);
  int        sign = 1, nterms = 0;
  for (int i = 0; i < SR_AFFINE_MAX; i++) at.a[i] = SRIntervalPoint(0.0);
  if (c->natoms + 2 > SR_SPEC_MAX_ATOMS) return SFail_Private(P, "more than %d atoms in one constraint", SR_SPEC_MAX_ATOMS);
  for (;;) {
    SRInterval coef = SRIntervalPoint(1.0);
    bool       num  = false;
    char       name[SR_PLANT_NAME];
    SSkip_Private(P);
    if (SIsNumber_Private(P) && *P->p != '-' && *P->p != '+') {
      if (!SNumber_Private(P, &coef)) return false;
      num = true;
      SSkip_Private(P);
      if (*P->p == '*') P->p++;
    }
    SSkip_Private(P);
    if (isalpha((unsigned char)*P->p) || *P->p == '_') {
      const char *atp = P->p;
      int         i;
      if (!SName_Private(P, name)) return false;
      SSkip_Private(P);
      if (nterms == 0 && !num && !strncmp(P->p, "in", 2) && !isalnum((unsigned char)P->p[2])) {
        SRInterval lo, hi;
        if ((i = SState_Private(P, atp, name)) < 0) return false;
        P->p += 2;
        if (!SExpect_Private(P, "[") || !SNumber_Private(P, &lo) || !SExpect_Private(P, ",") || !SNumber_Private(P, &hi) || !SExpect_Private(P, "]")) return false;
        if (!(lo.lo <= hi.hi)) return SFail_Private(P, "empty interval");
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
      return SFail_Private(P, "expected a term (NUMBER, NAME or NUMBER * NAME), found %s", SFound_Private(P, b, sizeof b));
    }
    nterms++;
    SSkip_Private(P);
    if (*P->p == '+' || *P->p == '-') {
      sign = *P->p++ == '+' ? 1 : -1;
      continue;
    }
    break;
  }
  {
    SRInterval b;
    bool       ge;
    char       buf[24];
    SSkip_Private(P);
    if (!strncmp(P->p, "<=", 2)) ge = false;
    else if (!strncmp(P->p, ">=", 2)) ge = true;
    else return SFail_Private(P, "expected '<=', '>=' or 'in', found %s", SFound_Private(P, buf, sizeof buf));
    P->p += 2;
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
  SSkip_Private(P);
  if (*P->p != '[') {
    c->t0 = 0.0, c->t1 = horizon;
    return true;
  }
  P->p++;
  if (!SNumber_Private(P, &t0) || !SExpect_Private(P, ",") || !SNumber_Private(P, &t1) || !SExpect_Private(P, "]")) return false;
  if (!(t0.lo >= 0 && t0.lo <= t1.hi && t1.hi <= horizon * (1 + 1e-12))) return SFail_Private(P, "window [%g, %g] is not inside the horizon [0, %g] of plant %s", t0.lo, t1.hi, horizon, P->pl->path);
  c->t0 = t0.lo, c->t1 = t1.hi; /* outward: a longer window is a stronger claim for always */
  return true;
}

static bool SStatement_Private(SRSpecParser_Private *P, SRSpec *S, bool *seen)
{
  char         kw[SR_PLANT_NAME], name[SR_PLANT_NAME];
  const double horizon = P->pl->period * P->pl->steps;
  if (SAtEnd_Private(P)) return true;
  if (!SName_Private(P, kw)) return false;
  if (!strcmp(kw, "initial")) {
    const char *at;
    int         i;
    SRInterval  lo, hi;
    SSkip_Private(P);
    at = P->p;
    if (!SName_Private(P, name) || (i = SState_Private(P, at, name)) < 0) return false;
    if (seen[i]) return P->p = at, SFail_Private(P, "a second 'initial %s' line", name);
    if (!SExpect_Private(P, "in") || !SExpect_Private(P, "[") || !SNumber_Private(P, &lo) || !SExpect_Private(P, ",") || !SNumber_Private(P, &hi) || !SExpect_Private(P, "]")) return false;
    if (!(lo.lo <= hi.hi)) return SFail_Private(P, "initial %s: empty interval", name);
    if (!SAtEnd_Private(P)) return SFail_Private(P, "expected the end of the line");
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
    if (S->nc == SR_SPEC_MAX_CONSTRAINTS) return SFail_Private(P, "more than %d constraints", SR_SPEC_MAX_CONSTRAINTS);
    c = &S->c[S->nc];
    memset(c, 0, sizeof *c);
    c->line = P->lineno;
    c->kind = !strcmp(kw, "always") ? SR_SPEC_ALWAYS : !strcmp(kw, "at_end") ? SR_SPEC_AT_END : SR_SPEC_EVENTUALLY;
    if (c->kind == SR_SPEC_AT_END) c->t0 = c->t1 = horizon;
    else if (!SWindow_Private(P, c, horizon)) return false;
    if (!SExpect_Private(P, ":")) return false;
    for (;;) {
      char w[8];
      if (!SAtom_Private(P, c)) return false;
      if (SAtEnd_Private(P)) break;
      if (!SName_Private(P, w) || strcmp(w, "and")) return P->err[0] ? false : SFail_Private(P, "expected 'and' or the end of the line");
    }
    S->nc++;
    return true;
  }
  P->p -= strlen(kw);
  return SFail_Private(P, "unknown statement '%s' (allowed: initial, always, at_end, eventually)", kw);
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
  P.name = name;
  P.pl   = pl;
  for (int lineno = 1; *line; lineno++) {
    P.line = P.p = line;
    P.lineno     = lineno;
    if (!SStatement_Private(&P, S, seen)) break;
    while (*line && *line != '\n') line++;
    if (*line) line++;
  }
  if (!P.err[0]) {
    for (int i = 0; i < pl->n && !P.err[0]; i++)
      if (!seen[i]) snprintf(P.err, sizeof P.err, "spec file %.200s: no 'initial %s in [LO, HI]' line (the plant has %d states)", name, pl->state[i], pl->n);
    if (!P.err[0] && !S->nc) snprintf(P.err, sizeof P.err, "spec file %s: no constraint (always, at_end or eventually line)", name);
  }
  PetscCheck(!P.err[0], comm, PETSC_ERR_FILE_UNEXPECTED, "%s", P.err);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSpecRead(MPI_Comm comm, const char path[], const SRPlant *plant, SRSpec *spec)
{
  PetscMPIInt rank;
  long        len  = -1;
  char       *text = NULL;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    FILE *f = fopen(path, "rb");
    if (f) {
      if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
      if (len > (1L << 20)) len = -2;
      if (len >= 0) {
        rewind(f);
        text = malloc((size_t)len + 1);
        if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) len = -1;
        else text[len] = 0;
      }
      fclose(f);
    }
  }
  PetscCallMPI(MPI_Bcast(&len, 1, MPI_LONG, 0, comm));
  if (len < 0) free(text);
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
