/* The line scanner of the plant and spec files (include/simreach/private/linescan.h, SPEC §15). */
#include <simreach/private/linescan.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool SRScanFail(SRLineScan *S, const char *fmt, ...)
{
  char    msg[400];
  va_list ap;
  if (S->err[0]) return false;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(S->err, sizeof S->err, "%s %s:%d:%d: %s", S->kind, S->name, S->lineno, (int)(S->p - S->line) + 1, msg);
  return false;
}

void SRScanSkip(SRLineScan *S)
{
  while (*S->p == ' ' || *S->p == '\t' || *S->p == '\r') S->p++;
}

bool SRScanAtEnd(SRLineScan *S)
{
  SRScanSkip(S);
  return *S->p == 0 || *S->p == '\n' || *S->p == '#';
}

const char *SRScanFound(SRLineScan *S, char *buf, size_t len)
{
  size_t k = 0;
  if (SRScanAtEnd(S)) return "the end of the line";
  buf[k++] = '\'';
  for (const char *q = S->p; *q && *q != '\n' && k + 2 < len && k < 16; q++) buf[k++] = *q;
  buf[k++] = '\'';
  buf[k]   = 0;
  return buf;
}

bool SRScanName(SRLineScan *S, char *out)
{
  int  k = 0;
  char b[24];
  SRScanSkip(S);
  if (!(isalpha((unsigned char)*S->p) || *S->p == '_')) return SRScanFail(S, "expected a name, found %s", SRScanFound(S, b, sizeof b));
  while (isalnum((unsigned char)*S->p) || *S->p == '_') {
    if (k + 1 >= SR_PLANT_NAME) return SRScanFail(S, "name longer than %d characters", SR_PLANT_NAME - 1);
    out[k++] = *S->p++;
  }
  out[k] = 0;
  return true;
}

bool SRScanExpect(SRLineScan *S, const char *s)
{
  char b[24];
  SRScanSkip(S);
  if (strncmp(S->p, s, strlen(s))) return SRScanFail(S, "expected '%s', found %s", s, SRScanFound(S, b, sizeof b));
  S->p += strlen(s);
  return true;
}
