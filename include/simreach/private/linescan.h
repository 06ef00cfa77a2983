/* The line scanner shared by the plant-file and spec-file parsers (SPEC §15; src/model/linescan.c):
   a cursor in one line of a text file, blanks skipped, names and fixed tokens read, and the first
   error kept as "KIND NAME:LINE:COLUMN: message".  Not collective. */
#pragma once

#include <simreach/plant.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
  const char *kind;       /* "plant file", "spec file" */
  const char *name;       /* the file */
  const char *line, *p;   /* the line and the cursor in it */
  int         lineno;
  char        err[512];   /* the first error, "" while none */
} SRLineScan;

/* records the error at the cursor (the first one only); returns false */
bool        SRScanFail(SRLineScan *S, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void        SRScanSkip(SRLineScan *S);
/* blanks skipped: the end of the line or a comment '#' */
bool        SRScanAtEnd(SRLineScan *S);
/* what is at the cursor, quoted (at most 16 characters), for messages */
const char *SRScanFound(SRLineScan *S, char *buf, size_t len);
/* a name (letters, digits, '_', not starting with a digit; shorter than SR_PLANT_NAME) */
bool        SRScanName(SRLineScan *S, char *out);
/* the fixed token s */
bool        SRScanExpect(SRLineScan *S, const char *s);
/* Reads a whole text file of at most max bytes (rank 0's part of the plant and spec readers):
   only a regular file is read (SPEC §15 turn 4; a FIFO is opened without blocking and refused
   by its type).  Returns the length and *text (malloc'd, NUL-terminated), or -1 (cannot open or
   read), -2 (larger than max), -3 (not a regular file: *type says what it is). */
long        SRScanReadFile(const char *path, long max, char **text, const char **type);
