/* simreach abstract: the abstraction of one network over the grid cells (SPEC §5, §6, §7).

     simreach abstract -sys pendulum -model dynamics -cells 64,64 [-mlp_widths 32,32] [-seed 1]
                       [-enclosure interval|taylor1|both|crown|affine] [-target empirical|nominal|certified]
                       [-target_mass 0.9] [-target_samples 32] [-floor_points 9] [-cells_free]
     simreach abstract -network net.h5 -cells 1000,1000 [...]   (a network file, as verify takes)

   Builds a freshly initialised network (Glorot from -seed), the regular grid of D, the
   certified lists C(k) and targets T(k) on all ranks (cells partitioned in contiguous blocks),
   checks every cell's containment, and prints K, the successor counts, the volumes, the
   failures and the time per phase (maximum over ranks) on rank 0.  Runs on any number of
   ranks; every printed figure except the times is independent of it. */
#include <simreach/private/commands.h>
#include <petscviewer.h>
#include <simreach/metrics.h>
#include <simreach/private/metrics_tight.h>
#include <simreach/private/abstraction_ops.h>

PetscErrorCode SRCommandAbstract(MPI_Comm comm)
{
  char                 sysname[16] = "pendulum", network[PETSC_MAX_PATH_LEN] = "", plant[PETSC_MAX_PATH_LEN] = "";
  PetscEnum            mtype       = (PetscEnum)SR_MODEL_DYNAMICS, etype = (PetscEnum)SR_ENCLOSURE_INTERVAL;
  PetscInt             widths[SR_MAX_LAYERS] = {32, 32}, nw = SR_MAX_LAYERS, counts[SR_MAX_DIM] = {[0 ... SR_MAX_DIM - 1] = 8}, nc = SR_MAX_DIM, seed = 1, nfail, first, floor_points = 9, tsamples = 32;
  SRTightMetrics       tm;
  PetscBool            cells_set = PETSC_FALSE, wset = PETSC_FALSE, cells_free = PETSC_FALSE, has_net = PETSC_FALSE, sys_set = PETSC_FALSE, mset = PETSC_FALSE;
  SRSystem             sys;
  SRModel              model;
  SRCells              cells;
  SRAbstraction        abs;
  SRAbstractionMetrics m;
  double               t[6], tmax[6], witness[SR_MAX_DIM];
  PetscLogDouble       thand, ttight;
  SRTightAcc           acc;
  PetscMPIInt          size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscOptionsBegin(comm, NULL, "simreach abstract: the abstraction of a network (SPEC §5, §7)", NULL);
  PetscCall(PetscOptionsString("-network", "network file (layout: src/model/network_file.c) instead of a fresh network of -sys, -model, -mlp_widths, -seed", NULL, network, network, sizeof(network), &has_net));
  PetscCall(PetscOptionsString("-sys", "system: toy1d, pendulum, dubins (SPEC §2), the shipped plant files", NULL, sysname, sysname, sizeof(sysname), &sys_set));
  PetscCall(PetscOptionsString("-plant", "the system as a plant file instead of -sys (SPEC §16, docs/arch.md)", NULL, plant, plant, sizeof(plant), NULL));
  PetscCall(PetscOptionsEnum("-model", "learned map: dynamics, controller (SPEC §3)", NULL, SRModelTypes, mtype, &mtype, &mset));
  PetscCall(PetscOptionsIntArray("-mlp_widths", "hidden layer widths, e.g. 32,32 (SPEC §3)", NULL, widths, &nw, &wset));
  PetscCall(PetscOptionsIntArray("-cells", "cells per dimension of the grid, e.g. 8,8 (SPEC §4)", NULL, counts, &nc, &cells_set));
  PetscCall(PetscOptionsInt("-seed", "seed of the network initialisation and of the target samples", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsInt("-floor_points", "points per dimension of the dense sample (corners included) behind the floor |F|, >= 2", NULL, floor_points, &floor_points, NULL));
  PetscCall(PetscOptionsBool("-cells_free", "treat the grid cells as free boxes (spatial index and box subtraction instead of grid index arithmetic)", NULL, cells_free, &cells_free, NULL));
  PetscOptionsEnd();
  if (!wset) nw = 2;
  PetscCheck(nw >= 1 && nw <= SR_MAX_LAYERS, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mlp_widths: %" PetscInt_FMT " widths given; allowed are 1 to %d comma-separated positive integers", nw, SR_MAX_LAYERS);
  for (PetscInt i = 0; i < nw; i++) PetscCheck(widths[i] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mlp_widths: width %" PetscInt_FMT " is %" PetscInt_FMT "; widths must be >= 1", i, widths[i]);
  PetscCheck(floor_points >= 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "-floor_points %" PetscInt_FMT ": allowed is >= 2 (the corners are always sampled)", floor_points);
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-target_samples", &tsamples, NULL));
  PetscCheck(seed >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-seed %" PetscInt_FMT ": must be >= 0", seed);

  PetscCheck(!has_net || !(sys_set || mset || wset), comm, PETSC_ERR_ARG_INCOMP, "-network %s states its system, model and widths: leave -sys, -model and -mlp_widths out", network);
  if (has_net) {
    PetscCall(SRCommandNetworkLoad(comm, network, &sys, &model));
    PetscCall(PetscStrncpy(sysname, sys->name, sizeof(sysname)));
    mtype = (PetscEnum)model->type;
  } else {
    PetscCall(SRSystemCreateFromOptions(comm, NULL, NULL, &sys)); /* -sys or -plant (SPEC §16) */
    PetscCall(PetscStrncpy(sysname, sys->name, sizeof(sysname)));
  }
  if (!cells_set) nc = sys->n;
  PetscCheck(nc == sys->n, comm, PETSC_ERR_ARG_SIZ, "-cells: %" PetscInt_FMT " counts given; -sys %s has dimension %" PetscInt_FMT ", so give %" PetscInt_FMT " comma-separated counts", nc, sysname, sys->n, sys->n);
  PetscCheck((SRModelType)mtype == SR_MODEL_DYNAMICS || !SRSystemIsLoop(sys), comm, PETSC_ERR_ARG_INCOMP, "-model controller: plant file %s states the loop of its input and control lines: abstract's metrics (SPEC §6) need the cell models of SPEC §3's controller; use simreach verify -plant (docs/systems.md)", sys->plant_path);
  PetscCheck((SRModelType)mtype == SR_MODEL_DYNAMICS || sys->has_controller, comm, PETSC_ERR_ARG_INCOMP, "-model controller: -sys %s has no control input; allowed is -model dynamics", sysname);
  /* the check uses the enclosure the lists were built from (read again by SetFromOptions) */
  PetscCall(PetscOptionsGetEnum(NULL, NULL, "-enclosure", SREnclosureTypes, &etype, NULL));
  PetscCall(SRAbstractionCreate(comm, &abs));
  PetscCall(SRAbstractionSetEnclosureType(abs, (SREnclosureType)etype));
  PetscCall(SRAbstractionSetTarget(abs, SR_TARGET_EMPIRICAL, 0.9, 32, (uint64_t)seed));
  PetscCall(SRAbstractionSetFromOptions(abs));
  PetscCall(SRCheckUnusedOptions(comm));

  if (!has_net) {
    PetscCall(SRModelCreate(sys, (SRModelType)mtype, nw, widths, &model));
    PetscCall(SRMLPInitialize(model->mlp, (uint64_t)seed));
  }
  PetscCall(SRCellsCreateGrid(sys, counts, &cells));
  if (cells_free) PetscCall(SRCellsSetFree(cells));

  /* phases timed like verify's (SPEC §10), maximum over ranks: the enclosure, the lists and
     targets (with each cell's Taylor model, enclosure both), the containment test and the metrics
     (one enclosure per cell for all four), then the tightest enclosure's count and the floor, from
     the targets' models as they are made (each cell enclosed once more, not twice) */
  PetscCall(SRTightAccCreate(comm, abs, model, cells, 0, floor_points, NULL, &acc));
  PetscCall(SRAbstractionSetModelHook(abs, SRTightAccBlock, acc));
  t[0] = MPI_Wtime();
  PetscCall(SRAbstractionBuildAndMeasure(abs, model, cells, &nfail, &first, witness, &m));
  PetscCall(SRAbstractionSetModelHook(abs, NULL, NULL));
  PetscCall(SRTightAccGetHandInTime(acc, &thand));
  PetscCall(SRTightAccFinish(&acc, &tm, &ttight));
  t[4] = MPI_Wtime() - t[0];
  t[5] = ttight;
  PetscCall(SRAbstractionGetPhaseTimes(abs, &t[0], &t[1], &t[2]));
  PetscCall(SRAbstractionGetMetricsTime(abs, &t[3]));
  t[1] -= t[3];
  t[1] -= PetscMin(t[1], thand); /* the hand-ins ran inside the build's lists and targets */
  PetscCallMPI(MPI_Allreduce(t, tmax, 6, MPI_DOUBLE, MPI_MAX, comm));

  PetscCall(PetscPrintf(comm, "simreach abstract: -sys %s -model %s, %" PetscInt_FMT " parameters, %s cells, %d rank(s)\n", sysname, SRModelTypes[mtype], model->mlp->nparams, cells_free ? "free" : "grid-aligned", size));
  PetscCall(SRAbstractionView(abs, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(PetscPrintf(comm, "  successors per cell (sink counts one): certified %.6g, minimal %.6g; floor |F| %.6g (cells meeting the hull of f over %" PetscInt_FMT "^n points per cell, corners included: what any sound box enclosure must list); hit by %" PetscInt_FMT " random interior points per cell %.6g (corners not sampled: below the floor)\n", m.succ_certified, m.succ_minimal, tm.succ_floor, floor_points, tsamples, m.succ_empirical));
  PetscCall(PetscPrintf(comm, "  mean vol(E_k) %.6g, mean vol(union C(k)) %.6g\n", m.vol_E, m.vol_union));
  PetscCall(PetscPrintf(comm, "  containment failures: %" PetscInt_FMT " (nonfinite %" PetscInt_FMT ")\n", m.failures, m.nonfinite));
  if (nfail > 0) {
    PetscCall(PetscPrintf(comm, "  check: %" PetscInt_FMT " failing cells, the first %" PetscInt_FMT ", uncovered point", nfail, first));
    for (PetscInt d = 0; d < sys->n; d++) PetscCall(PetscPrintf(comm, " %.17g", witness[d]));
    PetscCall(PetscPrintf(comm, "\n"));
  }
  PetscCall(PetscPrintf(comm, "  time (max over ranks): enclosure %.3f s, lists and targets %.3f s, containment %.3f s, metrics %.3f s, tightest enclosure and floor %.3f s (total %.3f s)\n", tmax[0], tmax[1], tmax[2], tmax[3], tmax[5], tmax[4]));

  PetscCall(SRAbstractionDestroy(&abs));
  PetscCall(SRCellsDestroy(&cells));
  PetscCall(SRModelDestroy(&model));
  PetscCall(SRSystemDestroy(&sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}
