/* Per-cell cost of one ODE period (src/model/system_ode.c, SPEC §16): a plant file, a region
   (lo,hi per state), cells per dimension and a control box; encloses every cell of the grid
   once and prints the time per cell and the mean enclosure width relative to the cell's.
   A benchmark, not a test (docs/arch.md "Scale").
     bench_system_ode PLANT "lo1,hi1,lo2,hi2,..." CELLS_PER_DIM ULO UHI [ORDER SUBSTEPS SYMBOLS] */
#define _POSIX_C_SOURCE 200809L
#include <simreach/private/system_ode.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
  SRPlant              pl;
  SRPlantPeriodOptions o;
  SRPlantPeriod       *P;
  double               lo[64], hi[64], t0, t1, grow = 0;
  long                 K = 1, fail = 0;
  int                  N;
  struct timespec      ts;
  char                *s, *tok;

  if (argc < 6) return fprintf(stderr, "usage: %s PLANT REGION CELLS ULO UHI [ORDER SUBSTEPS SYMBOLS]\n", argv[0]), 2;
  PetscCall(PetscInitializeNoArguments());
  PetscCall(SRPlantRead(PETSC_COMM_SELF, argv[1], &pl));
  s = strdup(argv[2]);
  for (int i = 0; i < 2 * pl.n; i++) {
    tok = strtok(i ? NULL : s, ",");
    if (!tok) return fprintf(stderr, "region needs %d numbers\n", 2 * pl.n), 2;
    (i % 2 ? hi : lo)[i / 2] = atof(tok);
  }
  N = atoi(argv[3]);
  for (int i = 0; i < pl.n; i++) K *= N;
  SRPlantPeriodOptionsDefault(&o);
  if (argc > 6) o.flow.order = atoi(argv[6]);
  if (argc > 7) o.flow.substeps = atoi(argv[7]);
  if (argc > 8) o.symbols = atoi(argv[8]);
  PetscCall(SRPlantPeriodCreate(&pl, &o, &P));
  clock_gettime(CLOCK_MONOTONIC, &ts);
  t0 = ts.tv_sec + 1e-9 * ts.tv_nsec;
  for (long k = 0; k < K; k++) {
    SRInterval X[64], U[64], Y[64];
    long       r = k;
    for (int i = 0; i < pl.n; i++, r /= N) X[i] = (SRInterval){lo[i] + (hi[i] - lo[i]) * (r % N) / N, lo[i] + (hi[i] - lo[i]) * (r % N + 1) / N};
    for (int j = 0; j < pl.nu; j++) U[j] = (SRInterval){atof(argv[4]), atof(argv[5])};
    if (!SRPlantPeriodEncloseWith(P, X, U, Y, NULL)) {
      fail++;
      continue;
    }
    for (int i = 0; i < pl.n; i++) grow += (Y[i].hi - Y[i].lo) / (X[i].hi - X[i].lo) / pl.n;
  }
  clock_gettime(CLOCK_MONOTONIC, &ts);
  t1 = ts.tv_sec + 1e-9 * ts.tv_nsec;
  printf("%s: %ld cells, order %d, substeps %d, symbols %d: %.1f us per cell, %ld flows failed, mean width ratio Y/X %.3f\n", argv[1], K, o.flow.order, o.flow.substeps, o.symbols, 1e6 * (t1 - t0) / K, fail,
         grow / (double)(K - fail > 0 ? K - fail : 1));
  PetscCall(SRPlantPeriodDestroy(&P));
  SRPlantFree(&pl);
  free(s);
  PetscCall(PetscFinalize());
  return 0;
}
