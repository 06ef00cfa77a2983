/* The line scanner of the plant and spec files (include/simreach/private/linescan.h, SPEC §15). */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC, S_ISSOCK */
#include <simreach/private/linescan.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

long SRScanReadFile(const char *path, long max, char **text, const char **type)
{
  struct stat st;
  int         fd;
  long        len, got = 0;
  *text = NULL;
  *type = NULL;
  /* O_NONBLOCK: opening a FIFO with no writer returns at once; fstat then refuses it by type */
  fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && (stat(path, &st) || S_ISREG(st.st_mode))) return -1; /* (a socket cannot be opened: named by stat) */
  if (fd >= 0 && fstat(fd, &st)) return close(fd), -1;
  if (!S_ISREG(st.st_mode)) {
    *type = S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) ? "a character device" : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file";
    if (fd >= 0) close(fd);
    return -3;
  }
  if (st.st_size > max) return close(fd), -2;
  len = (long)st.st_size;
  if (!(*text = malloc((size_t)len + 1))) return close(fd), -1;
  while (got < len) {
    ssize_t r = read(fd, *text + got, (size_t)(len - got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += r;
  }
  close(fd);
  if (got != len) return free(*text), *text = NULL, -1; /* changed while read */
  (*text)[len] = 0;
  return len;
}
