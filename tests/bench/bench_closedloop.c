/* Benchmark of the closed-loop properties (src/graph/closedloop.c, SPEC §12) on synthetic index-box
   graphs: a contracting map on an N x N grid (cell (i, j) lists the index box around its image
   under a rotation by -alpha scaled by rho about the centre, widened by w cells on each side;
   cells whose box leaves the grid list the sink).  It prints, for list widths w = 0, 4, 16, 64,
   the fixed-point iterations, the time per iteration and in total of SRClosedLoopSafe, and the
   time of 50 reach steps — so one sees that the cost follows K x iterations, not |C(k)|.

     mpiexec -n 2 build/tests/bench_closedloop -N 1000            (10^6 cells)

   Runs on any number of ranks; cells are split in contiguous blocks. */
#include <simreach/closedloop.h>

#include <math.h>
#include <stdio.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
  PetscInt    N = 1000, widths[] = {0, 4, 16, 64}, steps = 50;
  PetscMPIInt rank, size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-N", &N, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &steps, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  const PetscInt64 K = (PetscInt64)N * N, ks = K * rank / size, ke = K * (rank + 1) / size;
  const PetscInt   m = (PetscInt)(ke - ks);
  PetscInt      *lo, *hi, *h, niter, sink_step;
  PetscInt64    *ncells;
  PetscBool     *sink;
  double        *b, *vol, frac;
  unsigned char *init;

  PetscCall(PetscMalloc4(2 * m, &lo, 2 * m, &hi, m, &sink, m, &h));
  PetscCall(PetscMalloc4(N + 1, &b, steps + 1, &ncells, steps + 1, &vol, m, &init));
  for (PetscInt i = 0; i <= N; i++) b[i] = -1.0 + 2.0 * i / N;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bench_closedloop: %" PetscInt_FMT " x %" PetscInt_FMT " = %" PetscInt64_FMT " cells on %d rank(s)\n", N, N, K, size));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| w | mean |C(k)| | safe iterations | safe total s | s per iteration | ns per cell-iteration | safe fraction | reach %" PetscInt_FMT " steps s |\n|---|---|---|---|---|---|---|---|\n", steps));
  for (size_t iw = 0; iw < sizeof(widths) / sizeof(widths[0]); iw++) {
    const PetscInt w = widths[iw];
    const double   rho = 0.995, alpha = 0.02, ca = cos(alpha), sa = sin(alpha);
    double         mean = 0, meang, t0, t1, t2, tmax[2], tl[2];
    for (PetscInt k = 0; k < m; k++) {
      const PetscInt i = (ks + k) % N, j = (ks + k) / N;
      const double   x = (i + 0.5) / N * 2 - 1, y = (j + 0.5) / N * 2 - 1;
      const double   xn = rho * (ca * x + sa * y) * 1.01, yn = rho * (-sa * x + ca * y) * 1.01; /* 1.01: the corners leave D */
      const PetscInt ci = (PetscInt)floor((xn + 1) / 2 * N), cj = (PetscInt)floor((yn + 1) / 2 * N);
      PetscInt       a0 = ci - w, a1 = ci + w, c0 = cj - w, c1 = cj + w;
      sink[k] = (a0 < 0 || c0 < 0 || a1 >= N || c1 >= N) ? PETSC_TRUE : PETSC_FALSE;
      lo[2 * k] = PetscMax(a0, 0);
      hi[2 * k] = PetscMin(a1, N - 1);
      lo[2 * k + 1] = PetscMax(c0, 0);
      hi[2 * k + 1] = PetscMin(c1, N - 1);
      mean += (double)(hi[2 * k] - lo[2 * k] + 1) * (hi[2 * k + 1] - lo[2 * k + 1] + 1) + (sink[k] ? 1 : 0);
      init[k] = (PetscAbsReal(x - 0.3) < 0.05 && PetscAbsReal(y) < 0.05);
    }
    PetscCallMPI(MPI_Allreduce(&mean, &meang, 1, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD));
    SRIndexGraph g = {.n = 2, .counts = {N, N}, .kstart = ks, .kend = ke, .lo = lo, .hi = hi, .sink = sink, .bounds = {b, b}};
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    t0 = MPI_Wtime();
    PetscCall(SRClosedLoopSafe(PETSC_COMM_WORLD, &g, PETSC_MAX_INT, h, &niter, &frac));
    t1 = MPI_Wtime();
    PetscCall(SRClosedLoopReach(PETSC_COMM_WORLD, &g, init, steps, ncells, vol, &sink_step, NULL));
    t2 = MPI_Wtime();
    tl[0] = t1 - t0;
    tl[1] = t2 - t1;
    PetscCallMPI(MPI_Allreduce(tl, tmax, 2, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| %" PetscInt_FMT " | %.1f | %" PetscInt_FMT " | %.3f | %.4f | %.2f | %.4f | %.3f |\n", w, meang / K, niter, tmax[0], tmax[0] / PetscMax(niter, 1), 1e9 * tmax[0] / ((double)K * PetscMax(niter, 1)), frac, tmax[1]));
  }
  {
    struct rusage ru;
    long          rss, rssmax;
    getrusage(RUSAGE_SELF, &ru);
    rss = ru.ru_maxrss;
    PetscCallMPI(MPI_Allreduce(&rss, &rssmax, 1, MPI_LONG, MPI_MAX, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "max RSS per rank: %.1f MB\n", rssmax / 1024.0));
  }
  PetscCall(PetscFree4(lo, hi, sink, h));
  PetscCall(PetscFree4(b, ncells, vol, init));
  PetscCall(PetscFinalize());
  return 0;
}
