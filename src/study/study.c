/* SRStudy: the beta x tau x seed sweep of SPEC §9.

   MPI_COMM_WORLD is split into groups of -cell_ranks ranks; the groups take grid points
   dynamically from an MPI-3 passive-target counter (MPI_Fetch_and_op on a window held by
   rank 0), so every rank computes and none only dispatches.  Each grid point is one SRRun
   on its group's communicator; after every checkpoint the group's rank 0 writes the row,
   the resume state (slot = checkpoint mod 2) and then the index pointing at it, so a
   kill -9 at any moment leaves the file consistent.  Every run is a deterministic function
   of the options and (beta, tau, seed), and is written at its own fixed place in the file,
   so the file does not depend on the rank count, the groups or the order of completion.
   The options and the grid: src/study/study_options.c. */
/* sigaction, strtok_r, access: POSIX in ISO C17 mode */
#define _POSIX_C_SOURCE 200809L
#include <simreach/private/study_types.h>
#include <simreach/private/study_counter.h>
#include <simreach/private/filelock.h>
#include <simreach/network.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <math.h>

/* The one piece of static state: a signal handler can reach nothing else.  It only sets
   the flag; the runs poll it at checkpoints (SRRunSetStopFlag). */
static volatile sig_atomic_t SRStudyStopSignal_Private = 0;
static volatile int          SRStudyStop_Private       = 0;
static void                  SRStudySignalHandler_Private(int sig)
{
  SRStudyStopSignal_Private = sig;
  SRStudyStop_Private       = 1;
}

void SRStudyCatchSignals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = SRStudySignalHandler_Private;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGTERM, &sa, NULL);
  (void)sigaction(SIGUSR1, &sa, NULL);
  (void)sigaction(SIGINT, &sa, NULL); /* Ctrl-C; Open MPI's mpiexec turns SIGINT and SIGTERM into SIGTERM */
}

/* A signal seen by any rank stops the study here, with the -resume hint (exit code 83). */
static PetscErrorCode StudyCheckStop_Private(SRStudy st, const char when[])
{
  int lstop = SRStudyStop_Private, gstop;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&lstop, &gstop, 1, MPI_INT, MPI_MAX, st->comm));
  if (gstop) {
    int sig = SRStudyStopSignal_Private, gsig;
    PetscCallMPI(MPI_Allreduce(&sig, &gsig, 1, MPI_INT, MPI_MAX, st->comm));
    PetscCall(SRFileLockRelease(&st->lock));
    SETERRQ(st->comm, SR_ERR_STOPPED, "the study was stopped by signal %d (%s) %s; rerun the same command with -resume to continue %s", gsig, gsig == SIGTERM ? "SIGTERM" : gsig == SIGUSR1 ? "SIGUSR1" : gsig == SIGINT ? "SIGINT" : "signal", when, st->output);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRStudyCreate(MPI_Comm comm, SRStudy *study)
{
  PetscFunctionBeginUser;
  PetscCall(PetscNew(study));
  (*study)->comm       = comm;
  (*study)->cell_ranks = 1;
  (*study)->recheck_store = 32;
  (*study)->nslices    = 1;
  PetscCall(PetscStrncpy((*study)->output, "results.h5", sizeof((*study)->output)));
  PetscCall(PetscLogEventRegister("SRStudyWrite", 0, &(*study)->ev_write));
  PetscCall(PetscLogEventRegister("SRStudyFile", 0, &(*study)->ev_file));
  /* SIGTERM / SIGUSR1 / SIGINT from here on (PetscInitialize may have installed its own): a flag that
     start-up, the runs (at checkpoints) and the final gather poll */
  {
    struct sigaction sa;
    PetscCall(PetscMemzero(&sa, sizeof(sa)));
    sa.sa_handler = SRStudySignalHandler_Private;
    sigemptyset(&sa.sa_mask);
    PetscCheck(!sigaction(SIGTERM, &sa, &(*study)->old_term) && !sigaction(SIGUSR1, &sa, &(*study)->old_usr1) && !sigaction(SIGINT, &sa, &(*study)->old_int), PETSC_COMM_SELF, PETSC_ERR_SYS, "cannot install the SIGTERM/SIGUSR1/SIGINT handlers");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRStudyDestroy(SRStudy *study)
{
  PetscFunctionBeginUser;
  if (!*study) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SRFileLockRelease(&(*study)->lock));
  (void)sigaction(SIGTERM, &(*study)->old_term, NULL);
  (void)sigaction(SIGUSR1, &(*study)->old_usr1, NULL);
  (void)sigaction(SIGINT, &(*study)->old_int, NULL);
  PetscCall(PetscFree((*study)->options));
  PetscCall(PetscFree((*study)->canonical));
  PetscCall(SRRunDestroy(&(*study)->proto));
  PetscCall(PetscFree(*study));
  PetscFunctionReturn(PETSC_SUCCESS);
}


/* Sizes of the file from a prototype run (they depend on the options alone). */
static PetscErrorCode StudyLayout_Private(SRStudy st)
{
  SRRun            run = st->proto;
  SRModel          model;
  SRCells          cells;
  SRAbstraction    abs;
  SRResultsLayout *lay = &st->lay;
  PetscInt         ncheck;

  PetscFunctionBeginUser;
  PetscCall(SRRunSetUp(run));
  PetscCall(SRRunGetNumCheckpoints(run, &ncheck));
  PetscCall(SRRunGetStateSizes(run, &lay->ndstate, &lay->nistate));
  PetscCall(SRRunGetObjects(run, &model, &cells, &abs));
  PetscCall(SRSystemPrintReference(st->comm, model->sys, "simreach study")); /* SPEC §2: printed at start-up */
  lay->nrows   = ncheck + 1;
  lay->nparams = model->mlp->nparams;
  lay->K       = cells->K;
  lay->ntheta  = 2 * cells->n * cells->K;
  /* at most K + 1 successors (the sink included) per cell: the capacity the state uses too */
  lay->ncap = 2 * cells->n + 1; /* C(k) as an index box (SPEC §5) */
  lay->nfail = st->recheck_store;
  lay->ndim  = cells->n;
  PetscCall(SRRunDestroy(&st->proto));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  SRResults   res;
  PetscInt    r;
  PetscMPIInt grank;
  double     *d;
  PetscInt   *i;
  SRCounter     ctr;
  PetscLogEvent ev_write;
  PetscBool    *hold; /* tests only: wait for a signal after the first checkpoint (StudyTestHold_Private) */
  PetscInt  nsib, sib[SR_RESULTS_MAX_LIST]; /* SPEC §9: the beta = 0 runs at the other taus this run stands for */
} StudyMonitorCtx;

/* Window words on rank 0: next ticket, runs finished, stop requested. */
enum { W_TICKET = 0, W_DONE = 1, W_STOP = 2 };

/* Tests only (tests/study_signals.sh, tests/slurm_jobs.sh): with SIMREACH_TEST_PAUSE=study_checkpoint
   a study that created its results file holds every group after the first checkpoint it
   wrote, until a stop signal arrives (here or in another group) or 300 s pass, so that a
   signal sent after the line below always lands mid-study, however fast the machine. */
static PetscErrorCode StudyTestHold_Private(StudyMonitorCtx *m)
{
  PetscFunctionBeginUser;
  *m->hold = PETSC_FALSE;
  fprintf(stderr, "simreach study: SIMREACH_TEST_PAUSE=study_checkpoint: process %ld holds after its first checkpoint until a signal arrives\n", (long)getpid());
  fflush(stderr);
  for (int s = 0; s < 300 && !SRStudyStop_Private; s++) {
    int64_t stop;
    sleep(1); /* a signal ends the sleep at once */
    PetscCall(SRCounterFetchAdd(m->ctr, W_STOP, 0, &stop));
    if (stop) SRStudyStop_Private = 1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* After every checkpoint (SPEC §8): the row, the state in slot checkpoint mod 2, then the
   index.  The slot depends only on the checkpoint number, so a resumed run writes exactly
   what the uninterrupted one writes, and never the slot it resumed from. */
static PetscErrorCode StudyMonitor_Private(SRRun run, const SRCheckpoint *cp, void *ctx)
{
  StudyMonitorCtx *m    = (StudyMonitorCtx *)ctx;
  PetscInt         slot = cp->checkpoint % 2;

  PetscFunctionBeginUser;
  PetscCall(SRRunGetState(run, m->d, m->i));
  /* The state is the one after checkpoint cp->checkpoint (SRRunGetState may still report the
     previous index while its monitor runs); resuming must continue with the next interval. */
  m->i[0] = cp->checkpoint;
  if (m->grank == 0) {
    int64_t stop;
    PetscCall(PetscLogEventBegin(m->ev_write, 0, 0, 0, 0));
    /* SPEC §9: beta = 0 trained once, its rows at the other taus written to their runs first,
       so that the run's own resume index never runs ahead of its siblings' */
    for (PetscInt i = 0; i < m->nsib; i++) {
      const SRCheckpoint *sr;
      PetscInt            nf;
      const SRRecheckCellResult *f;
      PetscCall(SRRunGetCheckpointAtTau(run, i, &sr));
      PetscCall(SRResultsWriteCheckpoint(m->res, m->sib[i], sr));
      PetscCall(SRResultsWriteCheckpointNetwork(m->res, m->sib[i], cp->checkpoint, m->d));
      PetscCall(SRRunGetRecheckCells(run, &nf, &f));
      PetscCall(SRResultsWriteRecheckCells(m->res, m->sib[i], cp->checkpoint, nf, f));
      PetscCall(SRResultsWriteState(m->res, m->sib[i], slot, m->d, m->i));
      PetscCall(SRResultsWriteResume(m->res, m->sib[i], cp->checkpoint, slot));
    }
    PetscCall(SRResultsWriteCheckpoint(m->res, m->r, cp));
    PetscCall(SRResultsWriteCheckpointNetwork(m->res, m->r, cp->checkpoint, m->d)); /* phi: the state's first doubles */
    {
      PetscInt                   nf;
      const SRRecheckCellResult *f;
      PetscCall(SRRunGetRecheckCells(run, &nf, &f));
      PetscCall(SRResultsWriteRecheckCells(m->res, m->r, cp->checkpoint, nf, f));
    }
    PetscCall(SRResultsWriteState(m->res, m->r, slot, m->d, m->i));
    PetscCall(SRResultsWriteResume(m->res, m->r, cp->checkpoint, slot));
    PetscCall(PetscLogEventEnd(m->ev_write, 0, 0, 0, 0));
    /* another group was signalled: stop at the next checkpoint here too */
    PetscCall(SRCounterFetchAdd(m->ctr, W_STOP, 0, &stop));
    if (stop) SRStudyStop_Private = 1;
    if (*m->hold) PetscCall(StudyTestHold_Private(m));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* theta and C(k) of the run (with the network at the end): (c, w) for boxes, the interior
   boundaries for a partition (SPEC §4).  Not collective. */
static PetscErrorCode StudyWriteAbstraction_Private(SRRun run, SRResults res, PetscInt r, PetscBool initial)
{
  SRModel                model;
  SRCells                cells;
  SRAbstraction          abs;
  double                *theta;
  const PetscInt        *boxes;

  PetscFunctionBeginUser;
  PetscCall(SRRunGetObjects(run, &model, &cells, &abs));
  PetscCall(SRAbstractionGetCertifiedBoxes(abs, cells, &boxes));
  PetscCall(PetscMalloc1(2 * cells->n * cells->K + 1, &theta));
  if (cells->partition) { /* the exact faces: the interior boundaries (the resume-state layout), then zeros */
    PetscCall(PetscArrayzero(theta, 2 * cells->n * cells->K));
    SRCellsPartitionGetTheta(cells, theta);
  } else {
    PetscCall(PetscArraycpy(theta, cells->c, cells->n * cells->K));
    PetscCall(PetscArraycpy(theta + cells->n * cells->K, cells->w, cells->n * cells->K));
  }
  PetscCall(SRResultsWriteAbstraction(res, r, initial, initial ? NULL : model->mlp->params, theta, boxes));
  PetscCall(PetscFree(theta));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SPEC §9: beta = 0 does not depend on tau in training, so it is trained once per seed, by the
   run of the first tau, and evaluated at every tau; the run that trains run r. */
static PetscInt StudyOwner_Private(const SRResultsLayout *lay, PetscInt r)
{
  const PetscInt is = r % lay->nseed, ib = r / (lay->nseed * lay->ntau);
  PetscInt       ib0 = -1;
  for (PetscInt b = 0; b < lay->nbeta && ib0 < 0; b++)
    if (lay->beta[b] == 0) ib0 = b;
  return ib == ib0 ? (ib * lay->ntau) * lay->nseed + is : r;
}

/* Runs grid point r on the group; returns its final status. */
static PetscErrorCode StudyRunPoint_Private(SRStudy st, SRResults res, MPI_Comm group, PetscMPIInt grank, SRCounter ctr, PetscInt r, SRRunStatus *status)
{
  const SRResultsLayout *lay = &st->lay;
  PetscInt               is = r % lay->nseed, it = (r / lay->nseed) % lay->ntau, ib = r / (lay->nseed * lay->ntau);
  PetscInt               info[4] = {0, -1, 0, 0};
  SRRun                  run;
  StudyMonitorCtx        m;
  const char            *reason;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(&m, sizeof(m)));
  m.res   = res;
  m.r     = r;
  m.grank = grank;
  m.ctr   = ctr;
  m.ev_write = st->ev_write;
  m.hold     = &st->test_hold;
  PetscCall(PetscMalloc2(lay->ndstate + 1, &m.d, lay->nistate + 1, &m.i));
  PetscCall(SRRunCreate(group, &run));
  PetscCall(SRRunSetFromOptions(run));
  PetscCall(SRRunSetGridPoint(run, lay->beta[ib], lay->tau[it], lay->seed[is]));
  if (StudyOwner_Private(lay, r) == r && lay->beta[ib] == 0 && lay->ntau > 1) { /* SPEC §9: at every tau */
    for (PetscInt j = 1; j < lay->ntau; j++) m.sib[m.nsib++] = (ib * lay->ntau + j) * lay->nseed + is;
    PetscCall(SRRunSetEvalTaus(run, lay->ntau - 1, lay->tau + 1));
  }
  PetscCall(SRRunSetMonitor(run, StudyMonitor_Private, &m));
  PetscCall(SRRunSetStopFlag(run, &SRStudyStop_Private));
  PetscCall(SRRunSetUp(run));
  if (grank == 0 && !st->fresh) { /* the last good checkpoint (rows failing their checksums count as never written) */
    SRResultsRunCheck chk;
    PetscCall(SRResultsCheckRun(res, r, PETSC_FALSE, &chk));
    info[0] = chk.status;
    info[1] = chk.restart;
    info[2] = chk.slot;
    info[3] = r;
    /* SPEC §9: the runs at the other taus hold the same states; resume from the earliest good one */
    for (PetscInt q = 0; q < m.nsib; q++) {
      PetscCall(SRResultsCheckRun(res, m.sib[q], PETSC_FALSE, &chk));
      if (chk.restart < info[1]) {
        info[1] = chk.restart;
        info[2] = chk.slot;
        info[3] = m.sib[q];
      }
    }
  }
  PetscCallMPI(MPI_Bcast(info, 4, MPIU_INT, 0, group));
  if (info[1] >= 0) { /* resume from the last complete checkpoint */
    if (grank == 0) PetscCall(SRResultsReadState(res, info[3], info[2], m.d, m.i));
    /* the index points at it (again, if its row had failed its checksum) */
    if (grank == 0) PetscCall(SRResultsWriteResume(res, r, info[1], info[2]));
    PetscCallMPI(MPI_Bcast(m.d, (PetscMPIInt)lay->ndstate, MPI_DOUBLE, 0, group));
    PetscCallMPI(MPI_Bcast(m.i, (PetscMPIInt)lay->nistate, MPIU_INT, 0, group));
    PetscCall(SRRunSetState(run, m.d, m.i));
  }
  else if (grank == 0) {
    PetscBool has;
    PetscCall(SRRunHasVerifiedTriple(run, &has)); /* none when the warm start diverged */
    for (PetscInt q = -1; q < m.nsib; q++) {
      const PetscInt rq = q < 0 ? r : m.sib[q];
      if (has) PetscCall(StudyWriteAbstraction_Private(run, res, rq, PETSC_TRUE));
      if (has) { /* row 0: the network training starts from (seeded or -init_network, after any warm start) */
        SRModel       model;
        SRCells       cells;
        SRAbstraction abs;
        PetscCall(SRRunGetObjects(run, &model, &cells, &abs));
        PetscCall(SRResultsWriteCheckpointNetwork(res, rq, 0, model->mlp->params));
      }
    }
  }
  if (grank == 0)
    for (PetscInt q = -1; q < m.nsib; q++) PetscCall(SRResultsWriteStatus(res, q < 0 ? r : m.sib[q], SR_RUN_RUNNING, ""));
  PetscCall(SRRunSolve(run));
  PetscCall(SRRunGetStatus(run, status, &reason));
  {
    /* the final E_k of every cell (/runs/enclosures), collective on the group */
    PetscBool has;
    PetscCall(SRRunHasVerifiedTriple(run, &has));
    if ((*status == SR_RUN_DONE || *status == SR_RUN_DIVERGED) && has) {
      double *E;
      PetscCall(PetscMalloc1(4 * lay->ndim * lay->K, &E));
      PetscCall(SRRunGetFinalEnclosures(run, E));
      if (grank == 0)
        for (PetscInt q = -1; q < m.nsib; q++) PetscCall(SRResultsWriteEnclosures(res, q < 0 ? r : m.sib[q], E));
      PetscCall(PetscFree(E));
    }
  }
  if (grank == 0) {
    PetscBool has;
    PetscCall(SRRunHasVerifiedTriple(run, &has)); /* a run that diverged in its warm start stores no triple (SPEC §11) */
    /* the siblings (SPEC §9: beta = 0 at the other taus) first: a finished run implies finished siblings */
    for (PetscInt q = 0; q <= m.nsib; q++) {
      const PetscInt rq = q < m.nsib ? m.sib[q] : r;
      if ((*status == SR_RUN_DONE || *status == SR_RUN_DIVERGED) && has) PetscCall(StudyWriteAbstraction_Private(run, res, rq, PETSC_FALSE));
      if (q < m.nsib && *status == SR_RUN_INTERRUPTED) continue; /* resumed with the run */
      PetscCall(SRResultsWriteStatus(res, rq, *status, reason));
    }
  }
  PetscCall(SRRunDestroy(&run));
  PetscCall(PetscFree2(m.d, m.i));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Pending runs in dispatch order: beta > 0 first (the expensive ones), larger beta first,
   then by index; runs outside this -grid_slice or already finished are left out. */
static PetscErrorCode StudyPending_Private(SRStudy st, SRResults res, PetscInt *npending, PetscInt **pending)
{
  const SRResultsLayout *lay = &st->lay;
  PetscMPIInt            rank;
  PetscInt              *status, n = 0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(st->comm, &rank));
  PetscCall(PetscMalloc1(lay->nruns, &status));
  PetscCall(PetscMalloc1(lay->nruns, pending));
  if (rank == 0)
    for (PetscInt r = 0; r < lay->nruns; r++) {
      SRResultsRunCheck chk;
      if (st->fresh || StudyOwner_Private(lay, r) % st->nslices != st->slice) { /* a sibling counts with its owner's slice */
        status[r] = SR_RUN_PENDING;
        continue;
      }
      /* warns, naming file, run and row, about every row that fails its checksum */
      PetscCall(SRResultsCheckRun(res, r, PETSC_TRUE, &chk));
      status[r] = chk.finished ? SR_RUN_DONE : SR_RUN_PENDING;
    }
  PetscCallMPI(MPI_Bcast(status, (PetscMPIInt)lay->nruns, MPIU_INT, 0, st->comm));
  {
    PetscInt order[SR_RESULTS_MAX_LIST];
    for (PetscInt i = 0; i < lay->nbeta; i++) order[i] = i;
    for (PetscInt i = 1; i < lay->nbeta; i++)
      for (PetscInt j = i; j > 0 && lay->beta[order[j]] > lay->beta[order[j - 1]]; j--) {
        PetscInt t   = order[j];
        order[j]     = order[j - 1];
        order[j - 1] = t;
      }
    for (PetscInt oi = 0; oi < lay->nbeta; oi++)
      for (PetscInt rr = 0; rr < lay->ntau * lay->nseed; rr++) {
        PetscInt r = order[oi] * lay->ntau * lay->nseed + rr;
        if (r % st->nslices != st->slice) continue;
        if (StudyOwner_Private(lay, r) != r) continue; /* trained by the beta = 0 run of the first tau (SPEC §9) */
        if (status[r] == SR_RUN_DONE) {
          /* finished: done or diverged, every row good; a beta = 0 run also needs its siblings */
          PetscBool sibs = PETSC_TRUE;
          for (PetscInt q = 0; q < lay->nruns; q++)
            if (q != r && StudyOwner_Private(lay, q) == r && status[q] != SR_RUN_DONE) sibs = PETSC_FALSE;
          if (sibs) continue;
        }
        (*pending)[n++] = r;
      }
  }
  *npending = n;
  PetscCall(PetscFree(status));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRStudySolve(SRStudy st)
{
  MPI_Comm         comm = st->comm, group;
  PetscMPIInt      rank, size, grank;
  PetscInt         exists = 0, npending = 0, *pending, ndone_here = 0, stopped = 0, allstopped;
  SRResults        res = NULL;
  SRCounter        ctr;
  double           t0;

  PetscFunctionBeginUser;
  PetscCheck(st->setfromoptions, comm, PETSC_ERR_ARG_WRONGSTATE, "call SRStudySetFromOptions() before SRStudySolve()");
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(StudyCheckStop_Private(st, "during start-up, before the results file was opened"));
  /* 0. One study per results file (SPEC §13): a second one is refused, naming the owner. */
  PetscCall(SRFileLockAcquire(comm, st->output, &st->lock));
  /* 1. The output file: never touched without -resume or -force (SPEC §9). */
  if (rank == 0) {
    struct stat sb;
    exists = lstat(st->output, &sb) == 0;
  }
  PetscCallMPI(MPI_Bcast(&exists, 1, MPIU_INT, 0, comm));
  PetscCheck(!exists || st->resume || st->force, comm, PETSC_ERR_FILE_OPEN, "the results file %s exists; rerun with -resume to continue it or -force to overwrite it (it was left untouched)", st->output);
  if (exists && st->resume) { /* read-only checks first: a refused file stays byte-identical */
    const char *canon;
    PetscCall(SRResultsOpen(comm, st->output, PETSC_FALSE, &res));
    PetscCall(SRResultsGetCanonicalOptions(res, &canon));
    if (strcmp(canon, st->canonical)) {
      char        a[256] = "", b[256] = "";
      const char *p = canon, *q = st->canonical;
      while (*p && *p == *q) p++, q++;
      while (p > canon && p[-1] != '\n') p--;
      while (q > st->canonical && q[-1] != '\n') q--;
      for (int k = 0; p[k] && p[k] != '\n' && k < 255; k++) a[k] = p[k];
      for (int k = 0; q[k] && q[k] != '\n' && k < 255; k++) b[k] = q[k];
      PetscCall(SRResultsDestroy(&res));
      SETERRQ(comm, PETSC_ERR_ARG_INCOMP, "-resume: %s was written with different options (file has '%s', now '%s'); rerun with the same options, or -force to overwrite it (it was left untouched)", st->output, a, b);
    }
    PetscCall(SRResultsDestroy(&res));
  }
  /* 2. Sizes from a prototype run: bad run options fail here, before the file is touched. */
  PetscCall(StudyLayout_Private(st));
  PetscCall(StudyCheckStop_Private(st, "during start-up, before any run started"));
  PetscCall(PetscLogEventBegin(st->ev_file, 0, 0, 0, 0));
  if (exists && st->resume) {
    const SRResultsLayout *fl;
    PetscCall(SRResultsOpen(comm, st->output, PETSC_TRUE, &res));
    PetscCall(SRResultsGetLayout(res, &fl));
    PetscCheck(fl->nruns == st->lay.nruns && fl->nrows == st->lay.nrows && fl->nparams == st->lay.nparams && fl->ntheta == st->lay.ntheta && fl->ndstate == st->lay.ndstate && fl->nistate == st->lay.nistate && fl->ncap == st->lay.ncap, comm,
               PETSC_ERR_ARG_INCOMP, "-resume: the datasets of %s do not have the sizes these options give (another simreach version?); use -force to overwrite it", st->output);
  } else {
    if (!exists && st->resume) PetscCall(PetscPrintf(comm, "simreach study: -resume: %s does not exist yet, starting the study\n", st->output));
    PetscCall(SRResultsCreateNew(comm, st->output, &st->lay, st->options, st->canonical, st->force, &res));
    st->fresh = PETSC_TRUE;
    {
      const char *pause = getenv("SIMREACH_TEST_PAUSE");
      st->test_hold     = pause && !strcmp(pause, "study_checkpoint") ? PETSC_TRUE : PETSC_FALSE;
    }
  }
  PetscCall(StudyPending_Private(st, res, &npending, &pending));
  PetscCall(PetscLogEventEnd(st->ev_file, 0, 0, 0, 0));

  /* 3. Groups and the ticket counter (MPI-3 passive target on rank 0).  With fewer runs to do
     than groups, the groups are widened (fewer, larger groups: a multiple of -cell_ranks that
     divides the ranks) so that no rank idles; a run's cells are spread over its group's ranks,
     and a run's results do not depend on how many ranks ran it (SPEC §9). */
  {
    const PetscMPIInt g0 = size / (PetscMPIInt)st->cell_ranks;
    PetscMPIInt       g  = g0;
    while (g > 1 && (PetscInt)g > npending) {
      g--;
      while (g > 1 && g0 % g != 0) g--;
    }
    if (g != g0) {
      PetscCall(PetscPrintf(comm, "simreach study: %" PetscInt_FMT " run(s) to do for %d group(s) of -cell_ranks %" PetscInt_FMT ": %d group(s) of %d ranks instead, so that no rank idles\n", npending, g0, st->cell_ranks, (int)g, (int)(size / g)));
      st->cell_ranks = size / g;
    }
  }
  PetscCallMPI(MPI_Comm_split(comm, rank / (PetscMPIInt)st->cell_ranks, rank, &group));
  PetscCallMPI(MPI_Comm_rank(group, &grank));
  PetscCall(SRCounterCreate(comm, 3, &ctr));

  /* 4. SIGTERM / SIGUSR1 (caught since SRStudyCreate): finish to the next checkpoint, write it, exit 83. */

  t0 = MPI_Wtime();
  {
    PetscInt nsib = 0; /* SPEC §9: beta = 0 runs at the other taus, written by the run of the first tau */
    for (PetscInt r = 0; r < st->lay.nruns; r++) nsib += StudyOwner_Private(&st->lay, r) != r;
    PetscCall(PetscPrintf(comm, "simreach study: %" PetscInt_FMT " runs in %s, %" PetscInt_FMT " to do, %d group(s) of %" PetscInt_FMT " rank(s)%s\n", st->lay.nruns, st->output, npending, size / (PetscMPIInt)st->cell_ranks, st->cell_ranks,
                          nsib ? "; beta = 0 is trained once per seed and evaluated at every tau (SPEC §9), so its runs at the other taus are not counted as runs to do" : ""));
  }
  for (;;) {
    int64_t     ticket[2] = {0, 0};
    SRRunStatus status;
    /* a local signal between runs, or another group's stop, ends the loop */
    PetscInt    lstop = SRStudyStop_Private, gstop;
    PetscCallMPI(MPI_Allreduce(&lstop, &gstop, 1, MPIU_INT, MPI_MAX, group));
    if (grank == 0) {
      int64_t wstop;
      PetscCall(SRCounterFetchAdd(ctr, W_STOP, 0, &wstop));
      if (gstop || wstop) ticket[1] = 1;
      else PetscCall(SRCounterFetchAdd(ctr, W_TICKET, 1, &ticket[0]));
    }
    PetscCallMPI(MPI_Bcast(ticket, 2, MPI_INT64_T, 0, group));
    if (ticket[1]) {
      stopped = 1;
      break;
    }
    if (ticket[0] >= npending) break;
    PetscCall(StudyRunPoint_Private(st, res, group, grank, ctr, pending[ticket[0]], &status));
    if (status == SR_RUN_INTERRUPTED) {
      int64_t old;
      stopped = 1;
      if (grank == 0) PetscCall(SRCounterFetchAdd(ctr, W_STOP, 1, &old));
      break;
    }
    ndone_here++;
    if (grank == 0) {
      int64_t done;
      PetscCall(SRCounterFetchAdd(ctr, W_DONE, 1, &done));
      if (rank == 0) {
        double el = MPI_Wtime() - t0, eta = el / (double)(done + 1) * (double)(npending - done - 1);
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "simreach study: %" PetscInt64_FMT " / %" PetscInt_FMT " runs done in this start, %.1f s elapsed, ETA %.0f s\n", (PetscInt64)(done + 1), npending, el, eta));
      }
    }
  }
  PetscCallMPI(MPI_Allreduce(&stopped, &allstopped, 1, MPIU_INT, MPI_MAX, comm));
  PetscCall(SRCounterDestroy(&ctr));
  PetscCallMPI(MPI_Comm_free(&group));
  PetscCall(PetscFree(pending));
  PetscCall(SRResultsDestroy(&res));
  if (allstopped) PetscCall(StudyCheckStop_Private(st, "after writing a checkpoint of every running grid point"));
  PetscCheck(!allstopped, comm, SR_ERR_STOPPED, "the study was stopped by a signal after writing a checkpoint of every running grid point; rerun the same command with -resume to continue %s", st->output);
  PetscCall(StudyCheckStop_Private(st, "after its runs, before the final gather"));

  /* 5. The gather phase on the finished file (SPEC §9), stored in /summary; a signal during it
     is reported afterwards (the gather takes seconds; -resume repeats it). */
  PetscCall(PetscLogEventBegin(st->ev_file, 0, 0, 0, 0));
  PetscCall(SRResultsOpen(comm, st->output, PETSC_TRUE, &res));
  PetscCall(SRGatherResults(res, PETSC_TRUE, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(SRResultsDestroy(&res));
  PetscCall(PetscLogEventEnd(st->ev_file, 0, 0, 0, 0));
  PetscCall(StudyCheckStop_Private(st, "during the final gather (every run is finished; -resume only repeats the gather)"));
  PetscCall(SRFileLockRelease(&st->lock));
  PetscFunctionReturn(PETSC_SUCCESS);
}
