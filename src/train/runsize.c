/* The size of a training run, known from its options before SRRunSetUp allocates anything
   (issue #13): the large arrays of run.c, cellsolve.c, loss.c, mlp.c, adam.c, enclosure.c and
   the study's state buffer, counted per rank (a run's cells and lists are replicated on every
   rank of its group; docs/performance.md, "Memory per rank").  A lower bound: small and transient arrays are
   left out, so a refusal is certain. */
#include <simreach/private/run.h>
#include <simreach/private/memcheck.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

PetscErrorCode SRRunCheckSize_Private(SRRun r)
{
  const PetscInt n = r->sys->n, nout = r->mtype == SR_MODEL_DYNAMICS ? r->sys->n : r->sys->nu;
  double         P = 0, actw = n + nout, maxw = PetscMax(n, nout), K = 1, prev = n;
  double         NY, NB, N, m, b_samples, b_net, b_cells, b_loss;
  char           widths[160] = "", cells[64] = "", opts[512], what[512], allowed[160];

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < r->nhidden; l++) {
    P += (double)r->widths[l] * (prev + 1);
    prev = (double)r->widths[l];
    actw += prev;
    maxw = PetscMax(maxw, prev);
    snprintf(widths + strlen(widths), sizeof(widths) - strlen(widths), "%s%" PetscInt_FMT, l ? "," : "", r->widths[l]);
  }
  P += (double)nout * (prev + 1);
  for (PetscInt d = 0; d < n; d++) {
    K *= (double)r->counts[d];
    snprintf(cells + strlen(cells), sizeof(cells) - strlen(cells), "%s%" PetscInt_FMT, d ? "," : "", r->counts[d]);
  }
  NY = PetscMax(PetscMax((double)r->nsamples, (double)r->nheld), (double)r->nfalsify);
  NB = PetscMax(NY, (double)r->batch);
  N  = PetscMax((double)r->nsamples, (double)r->nheld);
  m  = r->par.assign == SR_ASSIGN_GAUSS ? (double)r->par.assign_neighbors : 1;

  /* arrays that must fit a PetscInt */
  snprintf(opts, sizeof(opts), "-samples %" PetscInt_FMT " -heldout %" PetscInt_FMT " with -mlp_widths %s", r->nsamples, r->nheld, widths);
  snprintf(allowed, sizeof(allowed), "allowed are at most %.0f samples with these widths", floor(((double)PETSC_MAX_INT - P) / PetscMax(actw, 2 * maxw)));
  PetscCall(SRSizeCheck(r->comm, PetscMax(NB * actw, 2 * NB * maxw + P), opts, "the network's activations of all samples at once", allowed));
  if (m > 1) {
    snprintf(opts, sizeof(opts), "-samples %" PetscInt_FMT " -heldout %" PetscInt_FMT " with -assign_neighbors %" PetscInt_FMT, r->nsamples, r->nheld, r->par.assign_neighbors);
    snprintf(allowed, sizeof(allowed), "allowed are at most %.0f samples times neighbours", (double)PETSC_MAX_INT);
    PetscCall(SRSizeCheck(r->comm, N * m, opts, "the Gaussian assignment of all samples", allowed));
  }
  snprintf(opts, sizeof(opts), "-target_samples %" PetscInt_FMT, r->target_samples);
  PetscCall(SRSizeCheck(r->comm, 2.0 * n * (double)r->target_samples, opts, "the target samples of one cell", "allowed are fewer target samples"));

  /* memory per rank, in bytes */
  b_samples = 8.0 * n * ((double)r->nsamples + (double)r->nheld + 3 * NY) + 8.0 * (double)r->nsamples + 8.0 * NB * (actw + 2 * maxw);
  b_loss    = (4.0 + 3 * 8.0) * N * m + 4 * 8.0 * N;
  b_net     = 8.0 * 13 * P; /* params, Adam m and v, gradient, step, previous, transposes, enclosure |W|, verified copy, state buffer */
  b_cells   = 8.0 * 16 * n * K + 2 * 4.0 * (2 * n + 1) * K + 16.0 * n * (double)r->target_samples;
  snprintf(opts, sizeof(opts), "-samples %" PetscInt_FMT " -heldout %" PetscInt_FMT " -batch %" PetscInt_FMT " -mlp_widths %s -cells %s", r->nsamples, r->nheld, r->batch, widths, cells);
  snprintf(what, sizeof(what), "the run (samples and activations %.3g GB, network %.3g GB, cells %.3g GB%s)", b_samples / 1e9, b_net / 1e9, b_cells / 1e9, m > 1 ? ", Gaussian assignment" : "");
  PetscCall(SRMemCheck(r->comm, b_samples + b_loss + b_net + b_cells, opts, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}
