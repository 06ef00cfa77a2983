/* simreach closedloop -plant P -network N -spec S [-o TUBES.h5 [-force]] (SPEC §15, docs/arch.md)

   Reads and cross-checks the three files before any work (one line naming file, line and
   problem, exit 2), then falsification on simulations and the adaptive split of X0 over the
   ranks (src/reach/split.c).  Prints the verdict; exit 0 VERIFIED, 6 FALSIFIED,
   5 UNKNOWN (the open pieces are listed). */
#include <simreach/model.h>
#include <simreach/netaffine.h>
#include <simreach/odesplit.h>
#include <simreach/private/subtree.h>
#include <simreach/private/commands.h>
#include <simreach/private/fileio.h>
#include <simreach/private/h5attr.h>
#include <simreach/private/results.h>
#include <simreach/private/tubes_file.h>
#include <simreach/verify.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

typedef struct {
  SRMLP          mlp;
  SRNetEnclosure how;
} NetCtx;

static int EncloseMLP_Private(void *ctx, const SRInterval *in, SRInterval *out) { return SRMLPForwardInterval(((NetCtx *)ctx)->mlp, in, out) ? 1 : 0; }
static int EncloseMLPAffine_Private(void *ctx, int m, const SRAffine *in, SRAffine *out)
{
  static SRAffine *work = NULL;
  static PetscInt  len  = 0;
  SRMLP            mlp  = ((NetCtx *)ctx)->mlp;
  if (len < SR_NET_WORK(mlp)) {
    free(work);
    len  = SR_NET_WORK(mlp);
    work = malloc(sizeof(SRAffine) * (size_t)len);
    if (!work) return len = 0, 1;
  }
  return SRMLPEncloseAffine(mlp, m, in, out, work, ((NetCtx *)ctx)->how) ? 0 : 1;
}
static int EvalMLP_Private(void *ctx, const double *in, double *out) { return SRMLPForward(((NetCtx *)ctx)->mlp, 1, in, out) ? 1 : 0; }

static PetscErrorCode GetInt_Private(MPI_Comm comm, const char name[], PetscInt lo, PetscInt hi, PetscInt *v)
{
  char      buf[64];
  PetscBool set;
  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, name, buf, sizeof buf, &set));
  if (set) {
    char *end;
    long  x = strtol(buf, &end, 10);
    PetscCheck(buf[0] && !*end && x >= lo && x <= hi, comm, PETSC_ERR_ARG_OUTOFRANGE, "option %s %s: allowed are integers %" PetscInt_FMT "..%" PetscInt_FMT, name, buf, lo, hi);
    *v = (PetscInt)x;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRCommandClosedLoop(MPI_Comm comm, int *exit_code)
{
  char           plantf[PETSC_MAX_PATH_LEN] = "", netf[PETSC_MAX_PATH_LEN] = "", specf[PETSC_MAX_PATH_LEN] = "", out[PETSC_MAX_PATH_LEN] = "";
  PetscBool      has_p, has_n, has_s, has_o, force = PETSC_FALSE, progress = PETSC_TRUE, affine_net = PETSC_TRUE, linflow = PETSC_TRUE;
  NetCtx         netctx = { NULL, SR_NET_BEST }, nets[SR_PLANT_MAX_OUTPUTS];
  PetscInt       order = 6, substeps = 1, substeps_max = -1, depth = 12, samples = 256, nsub = 20, list = 10, symbols = -1, merge_depth = 5, merge_window = 5;
  PetscReal      shrink = 0, rshrink = 0, jshrink = 0;
  SRPlant        pl;
  SRSpec         S;
  SRMLP          mlp = NULL, mlps[SR_PLANT_MAX_OUTPUTS] = {NULL};
  SRController   ctrl, ctrls[SR_PLANT_MAX_OUTPUTS];
  int            nnet = 1;
  SRLoop         L;
  SRFlowOptions  fo;
  SRSplitOptions so;
  SRSplitResult  res;
  PetscMPIInt    rank, size;
  double         t0 = MPI_Wtime();
  int            code;

  PetscFunctionBeginUser;
  *exit_code = SR_EXIT_OK;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-plant", plantf, sizeof plantf, &has_p));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-network", netf, sizeof netf, &has_n));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-spec", specf, sizeof specf, &has_s));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-o", out, sizeof out, &has_o));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-force", &force, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-closedloop_progress", &progress, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-closedloop_affine_network", &affine_net, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-closedloop_linear_flow", &linflow, NULL)); /* a linear plant's exact period map (src/model/flow_linear.c) */
  {
    const char *names[] = { "forward", "crown", "best" };
    PetscInt    k       = 2;
    PetscBool   set;
    char        buf[32];
    PetscCall(PetscOptionsGetString(NULL, NULL, "-closedloop_network", buf, sizeof buf, &set));
    if (set) {
      for (k = 0; k < 3 && strcmp(buf, names[k]); k++) { }
      PetscCheck(k < 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -closedloop_network %s: allowed are forward, crown, best", buf);
    }
    netctx.how = (SRNetEnclosure)k;
  }
  PetscCall(GetInt_Private(comm, "-closedloop_order", 4, 20, &order));
  PetscCall(GetInt_Private(comm, "-closedloop_substeps", 1, 1024, &substeps));
  PetscCall(GetInt_Private(comm, "-closedloop_substeps_max", 1, 1024, &substeps_max));
  PetscCall(GetInt_Private(comm, "-closedloop_max_depth", 0, 50, &depth));
  PetscCall(GetInt_Private(comm, "-closedloop_samples", 0, 10000000, &samples));
  PetscCall(GetInt_Private(comm, "-closedloop_sim_substeps", 1, 10000, &nsub));
  PetscCall(GetInt_Private(comm, "-closedloop_list", 0, 1000000, &list));
  PetscCall(GetInt_Private(comm, "-closedloop_symbols", -1, SR_AFFINE_MAX - 1, &symbols));
  /* windows with the halves joined again (src/reach/subtree.c, docs/arch.md "Windows and joins") */
  PetscCall(GetInt_Private(comm, "-closedloop_merge_depth", -1, 50, &merge_depth));
  PetscCall(GetInt_Private(comm, "-closedloop_merge_window", 1, 1000000, &merge_window));
  PetscCheck(!(substeps & (substeps - 1)), comm, PETSC_ERR_ARG_OUTOFRANGE, "option -closedloop_substeps %" PetscInt_FMT ": allowed are powers of two 1..1024 (the sub-steps must add up to the period exactly)", substeps);
  /* adaptive sub-steps (docs/arch.md): a period that fails is run again with twice the
     sub-steps, up to -closedloop_substeps_max (default 16, at least -closedloop_substeps) */
  if (substeps_max < 0) substeps_max = substeps > 16 ? substeps : 16;
  PetscCheck(!(substeps_max & (substeps_max - 1)) && substeps_max >= substeps, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -closedloop_substeps_max %" PetscInt_FMT ": allowed are powers of two from -closedloop_substeps (%" PetscInt_FMT ") to 1024; equal to it turns the adaptive sub-steps off", substeps_max, substeps);
  PetscCheck(has_p && plantf[0], comm, PETSC_ERR_ARG_WRONG, "closedloop: give -plant FILE (docs/arch.md)");
  PetscCheck(has_n && netf[0], comm, PETSC_ERR_ARG_WRONG, "closedloop: give -network FILE");
  PetscCheck(has_s && specf[0], comm, PETSC_ERR_ARG_WRONG, "closedloop: give -spec FILE (docs/arch.md)");
  PetscCheck(!has_o || out[0], comm, PETSC_ERR_ARG_WRONG, "option -o: give a file name");
  /* the test executable only (simreach_testhooks, docs/arch.md "Test build"; tests/reach/
     tube_soundness.py): a planted violation, the flow's result shrunk by this factor, which the
     closed-loop soundness test must catch.  The product never reads the option (it is refused
     as unknown); under it the run answers PLANTED-FAULT, exit 7, whatever the split found. */
  if (SRTestHooksEnabled()) {
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-closedloop_test_planted_shrink", &shrink, NULL));
    PetscCheck(shrink >= 0 && shrink < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -closedloop_test_planted_shrink %g: allowed are 0 (off) to below 1", (double)shrink);
    /* the same for the adaptive path only: a period run again with more sub-steps is
       accepted shrunk by this factor (tests/reach/adaptive_soundness.py must catch it) */
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-closedloop_test_planted_retry_shrink", &rshrink, NULL));
    PetscCheck(rshrink >= 0 && rshrink < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -closedloop_test_planted_retry_shrink %g: allowed are 0 (off) to below 1", (double)rshrink);
    /* and for the windows' joins only (src/reach/subtree.c; tests/reach/tube_soundness.py) */
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-closedloop_test_planted_join_shrink", &jshrink, NULL));
    PetscCheck(jshrink >= 0 && jshrink < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -closedloop_test_planted_join_shrink %g: allowed are 0 (off) to below 1", (double)jshrink);
  }
  PetscCall(SRCheckUnusedOptions(comm));
  if (has_o) PetscCall(SRFileCheckOutput(comm, "-o", out, force)); /* before the work (issue 34) */
  PetscCall(SRPlantRead(comm, plantf, &pl));
  PetscCall(SRSpecRead(comm, specf, &pl, &S));
  PetscCheck(symbols <= SR_AFFINE_MAX - pl.n - pl.nin, comm, PETSC_ERR_ARG_OUTOFRANGE, "option -closedloop_symbols %" PetscInt_FMT ": allowed are -1 (15 per state) or 0..%d for plant %s (%d states, %d network inputs)", symbols,
      SR_AFFINE_MAX - pl.n - pl.nin, plantf, pl.n, pl.nin);
  { /* one network, or with a 'select' line one per output: -network A,B,... (SPEC §15 turn 4) */
    char  list[PETSC_MAX_PATH_LEN], *f = list, *next;
    PetscCall(PetscStrncpy(list, netf, sizeof list));
    for (nnet = 0; f; f = next, nnet++) {
      next = pl.select ? strchr(f, ',') : NULL;
      if (next) *next++ = 0;
      PetscCheck(nnet < pl.nout || !pl.select, comm, PETSC_ERR_ARG_WRONG, "-network %s: more than the %d networks plant file %s selects among ('select argmax' over %d outputs)", netf, pl.nout, plantf, pl.nout);
      PetscCheck(f[0], comm, PETSC_ERR_ARG_WRONG, "-network %s: an empty name in the list", netf);
      PetscCall(SRNetworkLoad(comm, f, NULL, &mlps[nnet])); /* HDF5, ONNX or NNet by content, with activations and transforms (SPEC §14) */
      mlp = mlps[nnet];
      PetscCheck(mlp->nlayers - 1 >= 1 && mlp->nlayers - 1 <= SR_MAX_LAYERS, comm, PETSC_ERR_FILE_UNEXPECTED, "-network %s: %" PetscInt_FMT " hidden layers; allowed 1..%d", f, mlp->nlayers - 1, SR_MAX_LAYERS);
      PetscCheck(mlp->width[0] == pl.nin, comm, PETSC_ERR_FILE_UNEXPECTED, "-network %s: %" PetscInt_FMT " inputs, but plant file %s has %d 'input' lines", f, mlp->width[0], plantf, pl.nin);
      PetscCheck(mlp->width[mlp->nlayers] == pl.nout, comm, PETSC_ERR_FILE_UNEXPECTED, "-network %s: %" PetscInt_FMT " outputs, but plant file %s says 'outputs %d'", f, mlp->width[mlp->nlayers], plantf, pl.nout);
      nets[nnet] = (NetCtx){mlp, netctx.how};
      ctrls[nnet] = (SRController){pl.nin, pl.nout, &nets[nnet], EncloseMLP_Private, affine_net ? EncloseMLPAffine_Private : NULL, EvalMLP_Private};
    }
    PetscCheck(!pl.select || nnet == pl.nout, comm, PETSC_ERR_ARG_WRONG, "-network %s: %d networks, but plant file %s selects among %d ('select argmax' over 'outputs %d'): give one per output, -network A,B,...", netf, nnet, plantf, pl.nout, pl.nout);
    mlp = mlps[0];
  }
  ctrl = ctrls[0];
  SRFlowOptionsDefault(&fo);
  fo.order    = (int)order;
  fo.substeps = (int)substeps;
  fo.shrink   = (double)shrink;
  fo.substeps_max = (int)substeps_max;
  fo.retry_shrink = (double)rshrink;
  fo.join_shrink  = (double)jshrink;
  fo.lin          = linflow ? SRFlowLinearCreate(&pl) : NULL; /* once: a linear plant's map (NULL: not linear) */
  fo.linear       = fo.lin != NULL;
  PetscCall(SRLoopCreate(&pl, &S, &ctrl, &fo, &L));
  L.ctrls       = ctrls;
  L.nctrl       = nnet;
  L.symbols     = (int)symbols;
  so.max_depth  = (int)depth;
  so.nsamples   = (int)samples;
  so.sim_nsub   = (int)nsub;
  so.keep_tubes = has_o;
  so.progress   = progress;
  so.merge_depth  = SRLoopCanMerge(&L) ? (int)merge_depth : -1;
  so.merge_window = (int)merge_window;
  PetscCall(PetscPrintf(comm, "closedloop: plant %s (%d states%s, %d network inputs, %d outputs, period %g, %d steps), spec %s (%d constraints), network %s, %d ranks\n", plantf, pl.n, pl.discrete ? ", discrete-time" : "", pl.nin, pl.nout, pl.period, pl.steps, specf, S.nc, netf, size));
  PetscCall(SRSplitSolve(comm, &L, &so, &res));
  {
    long          mine = res.my_pieces, mx, mn;
    double        wall = MPI_Wtime() - t0, cpu, cpus;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    cpu = ru.ru_utime.tv_sec + 1e-6 * ru.ru_utime.tv_usec + ru.ru_stime.tv_sec + 1e-6 * ru.ru_stime.tv_usec;
    PetscCallMPI(MPI_Allreduce(&mine, &mx, 1, MPI_LONG, MPI_MAX, comm));
    PetscCallMPI(MPI_Allreduce(&mine, &mn, 1, MPI_LONG, MPI_MIN, comm));
    PetscCallMPI(MPI_Allreduce(&cpu, &cpus, 1, MPI_DOUBLE, MPI_SUM, comm));
    if (shrink > 0 || rshrink > 0 || jshrink > 0) {
      PetscCall(PetscPrintf(comm, "closedloop: PLANTED-FAULT: the test option %s %g shrank %s; this run answers nothing (the split ended %s; exit %d)\n", shrink > 0 ? "-closedloop_test_planted_shrink" : rshrink > 0 ? "-closedloop_test_planted_retry_shrink" : "-closedloop_test_planted_join_shrink", (double)(shrink > 0 ? shrink : rshrink > 0 ? rshrink : jshrink), shrink > 0 ? "every flow enclosure" : rshrink > 0 ? "every retried period's enclosure" : "every join of two halves' states",
          res.verdict == SR_VERDICT_VERIFIED ? "with every piece proven under the fault" : res.verdict == SR_VERDICT_FALSIFIED ? "with a counterexample" : "with open pieces", SR_EXIT_PLANTED));
    } else if (res.verdict == SR_VERDICT_FALSIFIED) {
      char pt[512] = "";
      for (int i = 0; i < pl.n; i++) {
        char b[64];
        snprintf(b, sizeof b, "%s%s = %.17g", i ? ", " : "", pl.state[i], res.cex[i]);
        strncat(pt, b, sizeof pt - strlen(pt) - 1);
      }
      PetscCall(PetscPrintf(comm, "closedloop: FALSIFIED: the trajectory from (%s) breaks the constraint of spec line %d (found %s; confirmed by the validated enclosure from that point)\n", pt, S.c[res.cex_constraint].line,
          res.cex_phase == 0 ? "by the simulations before splitting" : "at the centre of an open piece"));
    } else if (res.verdict == SR_VERDICT_VERIFIED) {
      PetscCall(PetscPrintf(comm, "closedloop: VERIFIED: every piece of X0 proven (%ld pieces handled, %ld leaves)\n", res.pieces, res.nleaves));
    } else {
      PetscCall(PetscPrintf(comm, "closedloop: UNKNOWN: %ld of %ld leaf pieces open at the split budget (-closedloop_max_depth %d); %ld pieces handled\n", res.open, res.nleaves, (int)depth, res.pieces));
      if (res.sim_constraint >= 0) { /* a simulated violation not confirmed (SPEC §15 turn 4) */
        char pt[512] = "";
        for (int i = 0; i < pl.n; i++) {
          char b[64];
          snprintf(b, sizeof b, "%s%s = %.17g", i ? ", " : "", pl.state[i], res.sim_x[i]);
          strncat(pt, b, sizeof pt - strlen(pt) - 1);
        }
        if (S.c[res.sim_constraint].kind == SR_SPEC_EVENTUALLY)
          PetscCall(PetscPrintf(comm, "closedloop: the simulated trajectory (RK4, %d steps per period%s) from (%s) never meets the constraint of spec line %d in its window (it misses by %.3g at best), NOT confirmed by the validated enclosure\n",
              (int)nsub, pl.nw ? ", disturbances at their midpoints" : "", pt, S.c[res.sim_constraint].line, res.sim_margin));
        else
          PetscCall(PetscPrintf(comm, "closedloop: the simulated trajectory (RK4, %d steps per period%s) from (%s) breaks the constraint of spec line %d at t = %.9g by %.3g, NOT confirmed by the validated enclosure%s\n", (int)nsub,
              pl.nw ? ", disturbances at their midpoints" : "", pt, S.c[res.sim_constraint].line, res.sim_t, res.sim_margin, S.c[res.sim_constraint].kind == SR_SPEC_ALWAYS ? " (up to 4096 sub-steps per period around that time)" : ""));
      }
      if (rank == 0) {
        long shown = 0;
        for (long k = 0; k < res.nleaves && shown < list; k++) {
          const SRLeaf *lf       = &res.leaves[k];
          char          box[512] = "";
          if (lf->status == SR_PIECE_PROVEN) continue;
          for (int i = 0; i < pl.n; i++) {
            char b[80];
            snprintf(b, sizeof b, "%s[%.9g, %.9g]", i ? " x " : "", lf->lo[i], lf->hi[i]);
            strncat(box, b, sizeof box - strlen(box) - 1);
          }
          if (lf->constraint >= 0)
            PetscCall(PetscPrintf(PETSC_COMM_SELF, "  open piece %.0f (depth %d) %s: constraint of spec line %d not proven at step %d (bound misses by %.3g)\n", lf->id, lf->depth, box, S.c[lf->constraint].line, lf->step, lf->margin));
          else
            PetscCall(PetscPrintf(PETSC_COMM_SELF, "  open piece %.0f (depth %d) %s: no flow/controller enclosure at step %d\n", lf->id, lf->depth, box, lf->step));
          shown++;
        }
        if (res.open > shown) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  ... %ld more open pieces (-closedloop_list N shows more; -o FILE stores all)\n", res.open - shown));
        { /* why, and the option that addresses it (issue 35 item 5) */
          long count[SR_CAUSE_N] = {0};
          for (long k = 0; k < res.nleaves; k++)
            if (res.leaves[k].status != SR_PIECE_PROVEN && res.leaves[k].cause > 0 && res.leaves[k].cause < SR_CAUSE_N) count[res.leaves[k].cause]++;
          for (int c = 1; c < SR_CAUSE_N; c++)
            if (count[c]) PetscCall(PetscPrintf(PETSC_COMM_SELF, "closedloop: why (%ld open pieces): %s\n", count[c], SRPieceCauseText((SRPieceCause)c)));
        }
      }
    }
    {
      double rss = ru.ru_maxrss / 1024.0, rssmax; /* kB on Linux */
      PetscCallMPI(MPI_Allreduce(&rss, &rssmax, 1, MPI_DOUBLE, MPI_MAX, comm));
      {
        long retries = L.retries, all;
        PetscCallMPI(MPI_Allreduce(&retries, &all, 1, MPI_LONG, MPI_SUM, comm));
        if (all > 0) PetscCall(PetscPrintf(comm, "closedloop: adaptive sub-steps: %ld periods run again with twice the sub-steps (up to %d per period, -closedloop_substeps_max)\n", all, fo.substeps_max));
      }
      PetscCall(PetscPrintf(comm, "closedloop: wall %.3f s (simulations %.3f s, proofs %.3f s), CPU %.3f s on %d ranks, pieces per rank %ld..%ld, peak RSS %.1f MB per rank\n", wall, res.sim_time, res.prove_time, cpus, size, mn, mx, rssmax));
    }
  }
  if (has_o) {
    char             planted[128] = "";
    SRTubesWriteInfo info         = {plantf, netf, specf, planted, (int)nsub};
    if (shrink > 0) snprintf(planted, sizeof planted, "-closedloop_test_planted_shrink %g", (double)shrink);
    else if (rshrink > 0) snprintf(planted, sizeof planted, "-closedloop_test_planted_retry_shrink %g", (double)rshrink);
    else if (jshrink > 0) snprintf(planted, sizeof planted, "-closedloop_test_planted_join_shrink %g", (double)jshrink);
    PetscCall(SRTubesFileWrite(comm, out, force, &pl, &S, &L, &res, &info));
  }
  code = shrink > 0 || rshrink > 0 || jshrink > 0 ? SR_EXIT_PLANTED : res.verdict == SR_VERDICT_VERIFIED ? SR_EXIT_OK : res.verdict == SR_VERDICT_FALSIFIED ? SR_EXIT_FALSIFIED : SR_EXIT_UNPROVEN;
  SRSplitResultFree(&res, pl.n);
  SRLoopDestroy(&L);
  SRFlowLinearDestroy(&fo.lin);
  for (int k = 0; k < nnet; k++) PetscCall(SRMLPDestroy(&mlps[k]));
  SRSpecFree(&S);
  SRPlantFree(&pl);
  *exit_code = code;
  PetscFunctionReturn(PETSC_SUCCESS);
}
