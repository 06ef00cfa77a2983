/* The closed-loop questions of SPEC §12 asked of one run of a study's results file: the graph
   k -> C(k) of the abstraction the run certified at its end — its final partition and index-box
   lists, stored and checksummed together with its final network (analysis/results-schema.md).

   What the run's last re-check (SPEC §11) did not prove — falsified or unknown cells, stored in
   /runs/recheck_cells — is given the sink.  When more cells failed than the file stores, the
   run's lists cannot be used as proven: the caller is told to verify the run's network afresh
   (simreach verify -from FILE -run r -learned_cells).  Only a partition (-cells_param partition,
   the default) has cells that form a grid of index boxes; free boxes are refused.

   Every rank reads the run's rows (network, boundaries and lists: partition-sized, checked by one
   checksum) and keeps the lists of the cells it owns (SRVerifyOwnership). */
#include <simreach/private/closedloop_results.h>
#include <simreach/private/results_run.h>

PetscErrorCode SRIndexGraphLoadRun(MPI_Comm comm, const char file[], const SRRunSelect *sel, SRIndexGraphStore *s, SRSystem *sys, SRModel *model, SRAxes *ax, char label[], size_t len)
{
  SRResults              res;
  const SRResultsLayout *lay;
  SRResultsRunInfo       info;
  SRResultsRunCheck      chk;
  PetscMPIInt            size, rank;
  PetscInt64             ks, ke, m, *failed;
  PetscInt               n, off = 0, last = -1, nstored = 0, nfail_row = 0;
  double                *params, *theta, *table, *b[SR_MAX_DIM];
  int64_t               *boxes;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(SRResultsOpen(comm, file, PETSC_FALSE, &res));
  PetscCall(SRResultsGetLayout(res, &lay));
  info.run = sel->run;
  PetscCall(SRResultsFindRun(comm, res, sel->by_point, sel->beta, sel->tau, sel->seed, &info.run));
  PetscCall(SRResultsCheckRun(res, info.run, (PetscBool)(rank == 0), &chk));
  PetscCheck(chk.status == SR_RUN_DONE && chk.finished, comm, PETSC_ERR_ARG_WRONG, "%s: run %" PetscInt_FMT " has %s; the closed-loop questions are asked of a finished run's certified abstraction (simreach gather %s lists the runs)", file, info.run, chk.status == SR_RUN_DIVERGED ? "diverged (its last verified abstraction can be re-verified with simreach verify -from ... -checkpoint c)" : "not finished", file);
  PetscCall(SRResultsRunModel(comm, res, -1, &info, sys, model));
  PetscCheck(!strcmp(info.cells_param, "partition"), comm, PETSC_ERR_ARG_INCOMP, "%s: run %" PetscInt_FMT " has free-box cells (-cells_param %s), which do not form a grid of index boxes; verify its network on a grid instead: simreach verify -from %s -run %" PetscInt_FMT " -cells ... -output abs.h5", file, info.run, info.cells_param, file, info.run);
  n = (*sys)->n;
  PetscCall(PetscMalloc4(lay->nparams + 1, &params, lay->ntheta + 1, &theta, lay->K * lay->ncap + 1, &boxes, lay->nrows * SR_CHECKPOINT_NFIELDS, &table));
  PetscCall(SRResultsReadFinal(res, info.run, params, theta, boxes));
  PetscCheck(lay->ncap == SRListRowLength(n), comm, PETSC_ERR_FILE_UNEXPECTED, "%s: %" PetscInt_FMT " numbers per stored list, dimension %" PetscInt_FMT " needs %" PetscInt_FMT, file, lay->ncap, n, SRListRowLength(n));

  /* the final partition: D's ends and the stored interior boundaries */
  for (PetscInt d = 0; d < n; d++) {
    PetscCall(PetscMalloc1(info.counts[d] + 1, &b[d]));
    b[d][0]              = (*sys)->dlo[d];
    b[d][info.counts[d]] = (*sys)->dhi[d];
    for (PetscInt i = 1; i < info.counts[d]; i++) b[d][i] = theta[off++];
  }
  PetscCall(SRAxesCreateBoundaries(n, info.counts, (const double *const *)b, ax));
  PetscCheck((*ax)->K == lay->K, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: %" PetscInt_FMT " cells stored, -cells of its options gives %" PetscInt64_FMT, file, lay->K, (PetscInt64)(*ax)->K);

  /* the owned lists */
  SRVerifyOwnership(lay->K, size, rank, &ks, &ke);
  m        = ke - ks;
  s->g.n   = n;
  s->g.kstart = ks;
  s->g.kend   = ke;
  for (PetscInt d = 0; d < n; d++) {
    s->g.counts[d] = info.counts[d];
    s->bounds[d]   = b[d];
    s->g.bounds[d] = b[d];
  }
  PetscCall(PetscMalloc3(PetscMax(m, 1) * n, &s->lo, PetscMax(m, 1) * n, &s->hi, PetscMax(m, 1), &s->sink));
  for (PetscInt64 k = 0; k < m; k++) {
    const int64_t *r = boxes + (ks + k) * lay->ncap;
    for (PetscInt d = 0; d < n; d++) {
      PetscCheck(r[d] >= 0 && r[n + d] < info.counts[d] && r[d] <= (int64_t)PETSC_MAX_INT, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ", cell %" PetscInt64_FMT ": stored list box [%lld, %lld] in dimension %" PetscInt_FMT " lies outside 0..%" PetscInt_FMT, file, info.run, ks + k, (long long)r[d], (long long)r[n + d], d, info.counts[d] - 1);
      s->lo[k * n + d] = (PetscInt)r[d];
      s->hi[k * n + d] = (PetscInt)r[n + d];
    }
    PetscCheck(r[2 * n] == 0 || r[2 * n] == 1, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ", cell %" PetscInt64_FMT ": list flag %lld (allowed 0 or 1: the sink)", file, info.run, ks + k, (long long)r[2 * n]);
    s->sink[k] = r[2 * n] ? PETSC_TRUE : PETSC_FALSE;
  }

  /* cells the last re-check did not prove get the sink */
  PetscCall(SRResultsReadCheckpoints(res, info.run, table));
  for (PetscInt j = 0; j < lay->nrows; j++)
    if (isfinite(table[j * SR_CHECKPOINT_NFIELDS])) last = j;
  PetscCheck(last >= 0, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT " is done but has no checkpoint row", file, info.run);
  {
    const double nf = table[last * SR_CHECKPOINT_NFIELDS + 19]; /* recheck_failures: falsified + unknown cells */
    PetscCheck(isfinite(nf) && nf >= 0, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": the re-check count of its last checkpoint is %g", file, info.run, nf);
    nfail_row = (PetscInt)nf;
  }
  PetscCall(PetscMalloc1(PetscMax(lay->nfail, 1), &failed));
  if (nfail_row > 0) PetscCall(SRResultsReadRecheckCellIds(res, info.run, last, &nstored, failed));
  PetscCheck(nstored >= nfail_row, comm, PETSC_ERR_ARG_WRONG, "%s: run %" PetscInt_FMT ": its last re-check did not prove %" PetscInt_FMT " cells and the file names only %" PetscInt_FMT " (-recheck_store); verify the run afresh: simreach verify -from %s -run %" PetscInt_FMT " -learned_cells -output abs.h5, then ask that file", file, info.run, nfail_row, nstored, file, info.run);
  for (PetscInt i = 0; i < nstored; i++)
    if (failed[i] >= ks && failed[i] < ke && !s->sink[failed[i] - ks]) s->sink[failed[i] - ks] = PETSC_TRUE;
  s->unverified = nstored;
  s->g.lo       = s->lo;
  s->g.hi       = s->hi;
  s->g.sink     = s->sink;
  PetscCall(PetscSNPrintf(label, len, "%s, its certified abstraction", info.label));
  PetscCall(PetscFree(failed));
  PetscCall(PetscFree4(params, theta, boxes, table));
  PetscCall(SRResultsDestroy(&res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunSelectOptions(PetscOptionItems *PetscOptionsObject, MPI_Comm comm, SRRunSelect *sel, PetscBool *set)
{
  PetscBool r_set, b_set, t_set, s_set;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(sel, sizeof(*sel)));
  sel->run = -1;
  PetscCall(PetscOptionsInt("-run", "on a results file: the run index", NULL, sel->run, &sel->run, &r_set));
  PetscCall(PetscOptionsReal("-run_beta", "on a results file: the run's beta", NULL, sel->beta, &sel->beta, &b_set));
  PetscCall(PetscOptionsReal("-run_tau", "on a results file: the run's tau", NULL, sel->tau, &sel->tau, &t_set));
  PetscCall(PetscOptionsInt("-run_seed", "on a results file: the run's seed", NULL, sel->seed, &sel->seed, &s_set));
  *set = (PetscBool)(r_set || b_set || t_set || s_set);
  PetscCheck(r_set || !*set || (b_set && t_set && s_set), comm, PETSC_ERR_ARG_WRONG, "-run_beta, -run_tau, -run_seed: give all three to name a run");
  PetscCheck(!*set || r_set != (b_set && t_set && s_set), comm, PETSC_ERR_ARG_WRONG, "name the run of the results file as -run r or as -run_beta b -run_tau t -run_seed s (exactly one)");
  sel->by_point = (PetscBool)!r_set;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRClosedLoopSourceOpen(MPI_Comm comm, const char file[], const SRRunSelect *sel, SRClosedLoopSource *src)
{
  PetscBool is_abs;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(src, sizeof(*src)));
  PetscCall(SRAbstractionFileProbe(comm, file, &is_abs));
  if (is_abs) {
    PetscCheck(!sel, comm, PETSC_ERR_ARG_INCOMP, "-run, -run_beta, -run_tau, -run_seed name a run of a study's results file; %s is an abstraction file (one network, no runs)", file);
    PetscCall(SRAbstractionFileOpen(comm, file, &src->af));
    PetscCall(SRAbstractionFileGetAxes(src->af, &src->ax));
    PetscCall(SRIndexGraphLoad(comm, src->af, &src->gs));
    PetscCall(SRAbstractionFileGetModel(src->af, &src->sys, &src->model));
    PetscCall(PetscStrncpy(src->label, file, sizeof(src->label)));
  } else {
    PetscCheck(sel, comm, PETSC_ERR_ARG_WRONG, "%s is not an abstraction file of simreach verify; if it is a study's results file, name the run: -run r (or -run_beta b -run_tau t -run_seed s)", file);
    PetscCall(SRIndexGraphLoadRun(comm, file, sel, &src->gs, &src->sys, &src->model, &src->ax, src->label, sizeof(src->label)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRClosedLoopSourceClose(SRClosedLoopSource *src)
{
  PetscFunctionBeginUser;
  PetscCall(SRIndexGraphStoreDestroy(&src->gs));
  PetscCall(SRModelDestroy(&src->model));
  PetscCall(SRSystemDestroy(&src->sys));
  if (src->af) PetscCall(SRAbstractionFileClose(&src->af));
  else PetscCall(SRAxesDestroy(&src->ax));
  PetscFunctionReturn(PETSC_SUCCESS);
}
