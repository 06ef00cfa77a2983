/* ITF1788 conformance of the interval arithmetic (include/simreach/interval.h).

   Usage: itf1788 file.itl ...   (1 rank; not collective)

   Parses the portable ITL test format (testcase NAME { op [a,b] [c,d] = [e,f]; ... },
   decimal or hex numbers, [empty], [entire], [nai], decorations _xxx, `signal ...`) and runs
   every case whose operation simreach implements; decorated cases (_dec testcases, any
   decoration suffix, [nai]) and other operations are skipped.  A case passes when the result
   CONTAINS the expected interval and is empty / entire exactly when the expected one is.
   Literals are converted outward with MPFR (lower bounds down, upper bounds up), the
   tightest double interval containing the decimal text.  Prints one line
   `N passed, N failed, N skipped` and the median and maximum widening in ulps (how far our
   endpoints lie outside the expected ones).  Exit status 1 on any failure. */
#include <simreach/interval.h>
#include <ctype.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  SRInterval v;
  bool       decorated, nai, ok;
} ITLInterval;

typedef struct {
  long    passed, failed, skipped;
  double *widen;
  size_t  nwiden, capwiden;
} ITFStats;

/* Outward conversion of a literal: round the decimal/hex text down (dir < 0) or up. */
static bool ParseNumber(const char *s, size_t n, int dir, double *out)
{
  char  buf[128];
  mpfr_t v;
  char  *end;
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  mpfr_init2(v, 256);
  int rc = mpfr_strtofr(v, buf, &end, 0, dir < 0 ? MPFR_RNDD : MPFR_RNDU);
  (void)rc;
  bool ok = (*end == 0);
  *out    = mpfr_get_d(v, dir < 0 ? MPFR_RNDD : MPFR_RNDU);
  mpfr_clear(v);
  return ok;
}

static const char *SkipSpace(const char *p)
{
  while (*p && isspace((unsigned char)*p)) p++;
  return p;
}

/* Parse "[...]" with an optional _dec suffix at p; returns the position after it. */
static const char *ParseInterval(const char *p, ITLInterval *iv)
{
  iv->decorated = iv->nai = false;
  iv->ok                  = false;
  p                       = SkipSpace(p);
  if (*p != '[') return p;
  const char *q = strchr(p, ']');
  if (!q) return p;
  char inner[256];
  size_t n = 0;
  for (const char *c = p + 1; c < q && n + 1 < sizeof inner; c++)
    if (!isspace((unsigned char)*c)) inner[n++] = (char)tolower((unsigned char)*c);
  inner[n] = 0;
  if (!strcmp(inner, "empty")) iv->v = SRIntervalEmpty(), iv->ok = true;
  else if (!strcmp(inner, "entire") || !strcmp(inner, ",")) iv->v = SRIntervalEntire(), iv->ok = true;
  else if (!strcmp(inner, "nai")) iv->v = SRIntervalNaI(), iv->nai = iv->ok = true;
  else {
    char *comma = strchr(inner, ',');
    if (comma) {
      double lo, hi;
      iv->ok = ParseNumber(inner, (size_t)(comma - inner), -1, &lo) && ParseNumber(comma + 1, strlen(comma + 1), +1, &hi);
      iv->v  = (SRInterval){lo, hi};
    } else {
      double lo, hi;
      iv->ok = ParseNumber(inner, n, -1, &lo) && ParseNumber(inner, n, +1, &hi);
      iv->v  = (SRInterval){lo, hi};
    }
  }
  p = q + 1;
  if (*p == '_') {
    iv->decorated = true;
    while (*p && (isalnum((unsigned char)*p) || *p == '_')) p++;
  }
  return p;
}

/* Ordered integer image of a double: the difference of two images is the ulp distance. */
static double UlpDistance(double a, double b)
{
  int64_t ia, ib;
  memcpy(&ia, &a, 8);
  memcpy(&ib, &b, 8);
  if (ia < 0) ia = INT64_MIN - ia;
  if (ib < 0) ib = INT64_MIN - ib;
  return fabs((double)ia - (double)ib);
}

static void AddWiden(ITFStats *st, double w)
{
  if (st->nwiden == st->capwiden) {
    st->capwiden = st->capwiden ? 2 * st->capwiden : 1024;
    st->widen    = realloc(st->widen, st->capwiden * sizeof *st->widen);
    if (!st->widen) {
      fprintf(stderr, "itf1788: out of memory\n");
      exit(2);
    }
  }
  st->widen[st->nwiden++] = w;
}

static int Apply(const char *op, int nargs, const SRInterval *x, SRInterval *r)
{
  static const struct {
    const char *name;
    SRInterval (*f)(SRInterval);
  } un[] = {
    {"neg", SRIntervalNeg}, {"sqr", SRIntervalSqr}, {"sqrt", SRIntervalSqrt}, {"exp", SRIntervalExp}, {"sin", SRIntervalSin}, {"cos", SRIntervalCos}, {"tanh", SRIntervalTanh}, {"abs", SRIntervalAbs}, {"recip", SRIntervalRecip},
  };
  static const struct {
    const char *name;
    SRInterval (*f)(SRInterval, SRInterval);
  } bin[] = {
    {"add", SRIntervalAdd}, {"sub", SRIntervalSub}, {"mul", SRIntervalMul}, {"div", SRIntervalDiv}, {"min", SRIntervalMin}, {"max", SRIntervalMax},
  };
  if (nargs == 1)
    for (size_t i = 0; i < sizeof un / sizeof un[0]; i++)
      if (!strcmp(op, un[i].name)) return *r = un[i].f(x[0]), 1;
  if (nargs == 2)
    for (size_t i = 0; i < sizeof bin / sizeof bin[0]; i++)
      if (!strcmp(op, bin[i].name)) return *r = bin[i].f(x[0], x[1]), 1;
  return 0;
}

static void RunStatement(const char *tc, const char *s, ITFStats *st)
{
  char        op[64];
  size_t      n = 0;
  ITLInterval arg[4], expect;
  int         nargs = 0;
  bool        skip  = strstr(tc, "_dec") != NULL;
  const char *p     = SkipSpace(s);
  if (!*p) return;
  while (*p && (isalnum((unsigned char)*p) || *p == '_') && n + 1 < sizeof op) op[n++] = *p++;
  op[n] = 0;
  for (p = SkipSpace(p); *p && *p != '='; p = SkipSpace(p)) {
    if (*p != '[' || nargs == 4) { /* a non-interval argument (pown exponent, ...) */
      skip = true;
      while (*p && *p != '=') p++;
      break;
    }
    p = ParseInterval(p, &arg[nargs]);
    if (!arg[nargs].ok || arg[nargs].decorated || arg[nargs].nai) skip = true;
    nargs++;
  }
  if (*p != '=') skip = true;
  else {
    p = ParseInterval(p + 1, &expect);
    if (!expect.ok || expect.decorated || expect.nai) skip = true;
    p = SkipSpace(p);
    if (*p && *p != '[' && strncmp(p, "signal", 6)) skip = true; /* anything unexpected */
    if (*p == '[') skip = true;                                 /* two-output operations */
  }
  SRInterval x[4], r;
  for (int i = 0; i < nargs; i++) x[i] = arg[i].v;
  if (skip || !Apply(op, nargs, x, &r)) {
    st->skipped++;
    return;
  }
  SRInterval e  = expect.v;
  bool       ok;
  if (SRIntervalIsEmpty(e)) ok = SRIntervalIsEmpty(r) && !SRIntervalIsNaI(r);
  else if (SRIntervalIsEntire(e)) ok = SRIntervalIsEntire(r);
  else ok = !SRIntervalIsNaI(r) && !SRIntervalIsEmpty(r) && !SRIntervalIsEntire(r) && r.lo <= e.lo && e.hi <= r.hi;
  if (ok) {
    st->passed++;
    if (!SRIntervalIsEmpty(e)) {
      AddWiden(st, UlpDistance(r.lo, e.lo));
      AddWiden(st, UlpDistance(r.hi, e.hi));
    }
  } else {
    st->failed++;
    printf("FAIL %s: %s -> [%a, %a], expected [%a, %a]\n", tc, s, r.lo, r.hi, e.lo, e.hi);
  }
}

static int CompareDouble(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int RunFile(const char *path, ITFStats *st)
{
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "itf1788: cannot open %s\n", path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)len + 1);
  if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
    fprintf(stderr, "itf1788: cannot read %s\n", path);
    fclose(f);
    free(buf);
    return 1;
  }
  fclose(f);
  buf[len] = 0;
  /* blank the comments */
  for (char *c = buf; *c; c++) {
    if (c[0] == '/' && c[1] == '*') {
      char *e = strstr(c + 2, "*/");
      char *stop = e ? e + 2 : c + strlen(c);
      memset(c, ' ', (size_t)(stop - c));
      c = stop - 1;
    } else if (c[0] == '/' && c[1] == '/') {
      while (*c && *c != '\n') *c++ = ' ';
      if (!*c) break;
    }
  }
  char *p = buf;
  while ((p = strstr(p, "testcase"))) {
    char  tc[128];
    size_t n = 0;
    p += 8;
    p = (char *)SkipSpace(p);
    while (*p && !isspace((unsigned char)*p) && *p != '{' && n + 1 < sizeof tc) tc[n++] = *p++;
    tc[n]      = 0;
    char *open = strchr(p, '{'), *close = open ? strchr(open, '}') : NULL;
    if (!close) break;
    *close = 0;
    for (char *stmt = open + 1; stmt && *stmt;) {
      char *semi = strchr(stmt, ';');
      if (semi) *semi = 0;
      for (char *c = stmt; *c; c++)
        if (*c == '\n' || *c == '\t' || *c == '\r') *c = ' ';
      RunStatement(tc, stmt, st);
      stmt = semi ? semi + 1 : NULL;
    }
    p = close + 1;
  }
  free(buf);
  return 0;
}

int main(int argc, char **argv)
{
  ITFStats st = {0};
  int      bad = 0;
  if (argc < 2) {
    fprintf(stderr, "usage: %s file.itl ...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; i++) bad |= RunFile(argv[i], &st);
  printf("%ld passed, %ld failed, %ld skipped\n", st.passed, st.failed, st.skipped);
  if (st.nwiden) {
    qsort(st.widen, st.nwiden, sizeof *st.widen, CompareDouble);
    double med = st.nwiden % 2 ? st.widen[st.nwiden / 2] : 0.5 * (st.widen[st.nwiden / 2 - 1] + st.widen[st.nwiden / 2]);
    printf("widening in ulps over %zu endpoints: median %g, max %g\n", st.nwiden, med, st.widen[st.nwiden - 1]);
  }
  free(st.widen);
  mpfr_free_cache();
  return (bad || st.failed || st.passed == 0) ? 1 : 0;
}
