/* Soundness of the verify path (SPEC §5, §7, §10): index-box lists, their exact containment
   test, bisected enclosures and partitions given by boundaries (the learned-partition path).

   For random networks (scales 1 and 3) of every system and model, on the grid and on a random
   partition by boundaries, with interval / taylor1 / both and bisection depths 0 and 2:
   - the index-box list of every cell equals SRAbstractionBuild's explicit list (grid, depth 0);
   - dense sampling (a 5^n lattice with the corners) plus a sign-gradient attack on each output
     and side: every image f(x) lies in E_k and in a listed cell (or outside D with the sink
     listed); zero escapes;
   - planted violations: the list with its top index in one dimension removed must fail unless
     E_k really stays below that cell's real boundary, and every failure's witness is a point
     of E_k outside every listed outward box.
   Cells are split over the ranks like verify does; the counts are reduced.
     test_verify [-write_network FILE -sys S -model M -seed s -scale c]   (writes a network file) */
#include <simreach.h>
#include <simreach/verify.h>

static PetscInt64 g_escapes, g_checked, g_planted, g_caught, g_legit, g_badwit, g_listdiff;

static void Attack_Private(SRModel model, const double *lo, const double *hi, PetscInt out, double sign, double *x)
{
  const PetscInt n = model->n;
  double         step[SR_MAX_DIM];
  for (PetscInt d = 0; d < n; d++) {
    x[d]    = 0.5 * lo[d] + 0.5 * hi[d];
    step[d] = 0.25 * (hi[d] - lo[d]);
  }
  for (int it = 0; it < 16; it++) {
    for (PetscInt d = 0; d < n; d++) {
      double xp[SR_MAX_DIM], yp[SR_MAX_DIM], ym[SR_MAX_DIM], h = 1e-7 * (hi[d] - lo[d]) + 1e-300;
      for (PetscInt e = 0; e < n; e++) xp[e] = x[e];
      xp[d] = PetscMin(hi[d], x[d] + h);
      (void)SRModelEvaluate(model, 1, xp, yp);
      xp[d] = PetscMax(lo[d], x[d] - h);
      (void)SRModelEvaluate(model, 1, xp, ym);
      x[d] += sign * (yp[out] >= ym[out] ? 1.0 : -1.0) * step[d];
      x[d] = PetscMin(hi[d], PetscMax(lo[d], x[d]));
      step[d] *= 0.7;
    }
  }
}

/* f(x) in E and in a listed cell (outward box) or outside D with the sink listed */
static void CheckPoint_Private(SRModel model, SRAxes ax, const double *E, const int32_t *row, const double *x)
{
  const PetscInt n = ax->n;
  double         y[SR_MAX_DIM];
  PetscBool      inE = PETSC_TRUE, inD = PETSC_TRUE, inList = PETSC_TRUE;

  (void)SRModelEvaluate(model, 1, x, y);
  for (PetscInt d = 0; d < n; d++) {
    if (!(E[d] <= y[d] && y[d] <= E[n + d])) inE = PETSC_FALSE;
    if (!(ax->dlo[d] <= y[d] && y[d] <= ax->dhi[d])) inD = PETSC_FALSE;
    if (row[d] > row[n + d] || !(ax->olo[d][row[d]] <= y[d] && y[d] <= ax->ohi[d][row[n + d]])) inList = PETSC_FALSE;
  }
  g_checked++;
  if (!inE || !(inList || (!inD && (row[2 * n] & SR_LIST_SINK)))) {
    g_escapes++;
    if (g_escapes < 5) printf("ESCAPE: x = (%.17g, %.17g), f(x) = (%.17g, %.17g), inE %d inList %d inD %d\n", x[0], n > 1 ? x[1] : 0.0, y[0], n > 1 ? y[1] : 0.0, (int)inE, (int)inList, (int)inD);
  }
}

static PetscErrorCode Planted_Private(SRAxes ax, const double *E, const int32_t *row)
{
  const PetscInt n = ax->n;

  PetscFunctionBeginUser;
  for (PetscInt d = 0; d < n; d++) {
    int32_t r2[2 * SR_MAX_DIM + 1];
    double  w[SR_MAX_DIM], hi;
    if (row[n + d] <= row[d]) continue;
    for (PetscInt q = 0; q < 2 * n + 1; q++) r2[q] = row[q];
    r2[n + d]--;
    g_planted++;
    hi = (row[2 * n] & SR_LIST_SINK) ? PetscMin(E[n + d], ax->dhi[d]) : E[n + d];
    if (SRAxesContains(ax, r2, E, E + n, w)) {
      /* legitimate only if E really ends at or below the real boundary of the removed cell */
      PetscBool misses = PETSC_FALSE; /* E misses D and the sink is listed */
      for (PetscInt e = 0; e < n; e++)
        if ((row[2 * n] & SR_LIST_SINK) && (E[e] > ax->dhi[e] || E[n + e] < ax->dlo[e])) misses = PETSC_TRUE;
      if (hi <= ax->glo[d][row[n + d]] || misses) g_legit++;
      else {
        g_badwit++; /* a containment claimed that is not proven: unsound */
        printf("UNSOUND claim d %d row %d %d sink %d E %g %g\n", (int)d, row[d], row[n + d], row[2 * n], E[d], E[n + d]);
      }
      continue;
    }
    g_caught++;
    if (!isnan(w[0])) {
      PetscBool ok = PETSC_TRUE, out = PETSC_FALSE;
      for (PetscInt e = 0; e < n; e++) {
        if (!(E[e] <= w[e] && w[e] <= E[n + e])) ok = PETSC_FALSE;
        if (r2[e] > r2[n + e] || w[e] < ax->olo[e][r2[e]] || w[e] > ax->ohi[e][r2[n + e]]) out = PETSC_TRUE;
      }
      if (!ok || !out) {
        g_badwit++;
        printf("BAD witness d %d ok %d out %d\n", (int)d, (int)ok, (int)out);
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode RunCase_Private(MPI_Comm comm, const char *sysname, SRModelType mt, double scale, PetscBool partition, SREnclosureType et, PetscInt depth, const PetscInt *counts)
{
  SRSystem    sys;
  SRModel     model;
  SRAxes      ax;
  PetscInt    widths[2] = {16, 16};
  PetscMPIInt rank, size;
  PetscInt64  ks, ke;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(SRSystemCreate(comm, sysname, NULL, &sys));
  PetscCall(SRModelCreate(sys, mt, 2, widths, &model));
  PetscCall(SRMLPInitialize(model->mlp, 7));
  for (PetscInt p = 0; p < model->mlp->nparams; p++) model->mlp->params[p] *= scale;
  if (partition) {
    double  *b[SR_MAX_DIM];
    uint64_t s = 12345;
    for (PetscInt d = 0; d < sys->n; d++) {
      PetscCall(PetscMalloc1(counts[d] + 1, &b[d]));
      for (PetscInt i = 0; i <= counts[d]; i++) {
        const double h = (sys->dhi[d] - sys->dlo[d]) / (double)counts[d];
        s              = s * 6364136223846793005ULL + 1442695040888963407ULL;
        b[d][i]        = sys->dlo[d] + h * ((double)i + (i > 0 && i < counts[d] ? 0.4 * ((double)(s >> 11) / 9007199254740992.0 - 0.5) : 0.0));
      }
      b[d][0]          = sys->dlo[d];
      b[d][counts[d]] = sys->dhi[d];
    }
    PetscCall(SRAxesCreateBoundaries(sys->n, counts, (const double *const *)b, &ax));
    for (PetscInt d = 0; d < sys->n; d++) PetscCall(PetscFree(b[d]));
  } else PetscCall(SRAxesCreateGrid(sys, counts, &ax));
  SRVerifyOwnership(ax->K, size, rank, &ks, &ke);
  {
    const PetscInt n = ax->n, nl = ke - ks;
    double        *boxes, *E;
    int32_t       *rows;
    SRCellStatus  *st;
    PetscCall(PetscMalloc4(2 * n * PetscMax(nl, 1), &boxes, 2 * n * PetscMax(nl, 1), &E, SRListRowLength(n) * PetscMax(nl, 1), &rows, PetscMax(nl, 1), &st));
    for (PetscInt c = 0; c < nl; c++) SRAxesCellBox(ax, ks + c, boxes + 2 * n * c, boxes + 2 * n * c + n);
    if (nl > 0) PetscCall(SREnclosureComputeBisected(model, et, depth, nl, boxes, E, st));
    for (PetscInt c = 0; c < nl; c++) {
      const double *lo = boxes + 2 * n * c, *hi = lo + n, *Ec = E + 2 * n * c;
      int32_t      *row = rows + SRListRowLength(n) * c;
      PetscInt      M = 5, npts = 1;
      if (st[c] != SR_CELL_OK) continue;
      SRAxesIndexBox(ax, Ec, Ec + n, row);
      PetscCheck(SRAxesContains(ax, row, Ec, Ec + n, NULL), PETSC_COMM_SELF, PETSC_ERR_PLIB, "cell %" PetscInt64_FMT ": E_k not contained in its own index box", ks + c);
      for (PetscInt d = 0; d < n; d++) npts *= M;
      for (PetscInt q = 0; q < npts; q++) {
        double   x[SR_MAX_DIM];
        PetscInt r = q;
        for (PetscInt d = 0; d < n; d++) {
          const PetscInt j = r % M;
          r /= M;
          x[d] = j == 0 ? lo[d] : j == M - 1 ? hi[d] : lo[d] + (hi[d] - lo[d]) * (double)j / (double)(M - 1);
        }
        CheckPoint_Private(model, ax, Ec, row, x);
      }
      for (PetscInt o = 0; o < n; o++)
        for (int sg = -1; sg <= 1; sg += 2) {
          double x[SR_MAX_DIM];
          Attack_Private(model, lo, hi, o, (double)sg, x);
          CheckPoint_Private(model, ax, Ec, row, x);
        }
      PetscCall(Planted_Private(ax, Ec, row));
    }
    /* the index boxes against the explicit lists of SRAbstractionBuild (grid, no bisection) */
    if (!partition && depth == 0) {
      SRCells                cells;
      SRAbstraction          abs;
      const SRSuccessorList *C;
      PetscCall(SRCellsCreateGrid(sys, counts, &cells));
      PetscCall(SRAbstractionCreate(comm, &abs));
      PetscCall(SRAbstractionSetEnclosureType(abs, et));
      PetscCall(SRAbstractionSetTarget(abs, SR_TARGET_CERTIFIED, 0.9, 1, 0));
      PetscCall(SRAbstractionBuild(abs, model, cells));
      PetscCall(SRAbstractionGetCertified(abs, &C));
      for (PetscInt c = 0; c < nl; c++) {
        const int32_t *row = rows + SRListRowLength(n) * c;
        const PetscInt k   = (PetscInt)(ks + c);
        PetscInt       t = C->ptr[k];
        if (st[c] != SR_CELL_OK) continue;
        for (PetscInt j = 0; j < ax->K; j++) {
          PetscBool in = PETSC_TRUE;
          PetscInt  r  = j;
          for (PetscInt d = 0; d < n; d++) {
            const PetscInt i = r % ax->N[d];
            r /= ax->N[d];
            if (i < row[d] || i > row[n + d]) in = PETSC_FALSE;
          }
          if (!in) continue;
          if (t < C->ptr[k + 1] && C->idx[t] == j) t++;
          else g_listdiff++;
        }
        if ((row[2 * n] & SR_LIST_SINK) && t < C->ptr[k + 1] && C->idx[t] == ax->K) t++;
        if (t != C->ptr[k + 1]) g_listdiff++;
      }
      PetscCall(SRAbstractionDestroy(&abs));
      PetscCall(SRCellsDestroy(&cells));
    }
    PetscCall(PetscFree4(boxes, E, rows, st));
  }
  PetscCall(SRAxesDestroy(&ax));
  PetscCall(SRModelDestroy(&model));
  PetscCall(SRSystemDestroy(&sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      out[PETSC_MAX_PATH_LEN] = "", sysname[16] = "pendulum";
  PetscBool wr;
  PetscEnum mt    = (PetscEnum)SR_MODEL_DYNAMICS;
  PetscInt  seed  = 1;
  double    scale = 1.0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-write_network", out, sizeof(out), &wr));
  if (wr) {
    SRSystem sys;
    SRModel  model;
    PetscInt widths[2] = {16, 16};
    PetscCall(PetscOptionsGetString(NULL, NULL, "-sys", sysname, sizeof(sysname), NULL));
    PetscCall(PetscOptionsGetEnum(NULL, NULL, "-model", SRModelTypes, &mt, NULL));
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &seed, NULL));
    PetscCall(PetscOptionsGetReal(NULL, NULL, "-scale", &scale, NULL));
    PetscCall(SRSystemCreate(PETSC_COMM_WORLD, sysname, NULL, &sys));
    PetscCall(SRModelCreate(sys, (SRModelType)mt, 2, widths, &model));
    PetscCall(SRMLPInitialize(model->mlp, (uint64_t)seed));
    for (PetscInt p = 0; p < model->mlp->nparams; p++) model->mlp->params[p] *= scale;
    PetscCall(SRNetworkFileWrite(PETSC_COMM_WORLD, out, PETSC_TRUE, sys, (SRModelType)mt, model->mlp));
    PetscCall(SRModelDestroy(&model));
    PetscCall(SRSystemDestroy(&sys));
    PetscCall(PetscFinalize());
    return 0;
  }
  {
    const char     *systems[4] = {"toy1d", "pendulum", "pendulum", "dubins"};
    const SRModelType models[4] = {SR_MODEL_DYNAMICS, SR_MODEL_DYNAMICS, SR_MODEL_CONTROLLER, SR_MODEL_CONTROLLER};
    const PetscInt  counts[4][3] = {{150, 1, 1}, {24, 20, 1}, {24, 20, 1}, {7, 6, 5}};
    PetscInt64      loc[7], glob[7];
    for (int s = 0; s < 4; s++)
      for (int part = 0; part < 2; part++)
        for (int sc = 0; sc < 2; sc++)
          for (int et = 0; et < 3; et++)
            for (PetscInt depth = 0; depth <= 2; depth += 2) PetscCall(RunCase_Private(PETSC_COMM_WORLD, systems[s], models[s], sc ? 3.0 : 1.0, (PetscBool)part, (SREnclosureType)et, depth, counts[s]));
    loc[0] = g_escapes;
    loc[1] = g_checked;
    loc[2] = g_planted;
    loc[3] = g_caught;
    loc[4] = g_legit;
    loc[5] = g_badwit;
    loc[6] = g_listdiff;
    PetscCallMPI(MPI_Allreduce(loc, glob, 7, MPIU_INT64, MPI_SUM, PETSC_COMM_WORLD));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_verify: %" PetscInt64_FMT " images checked, %" PetscInt64_FMT " escapes; %" PetscInt64_FMT " planted violations, %" PetscInt64_FMT " caught, %" PetscInt64_FMT " legitimately still contained, %" PetscInt64_FMT " unsound claims or bad witnesses; %" PetscInt64_FMT " differences index box vs explicit list\n", glob[1], glob[0], glob[2], glob[3], glob[4], glob[5], glob[6]));
    PetscCheck(glob[0] == 0 && glob[5] == 0 && glob[6] == 0 && glob[1] > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "test_verify FAILED");
    PetscCheck(glob[3] >= (9 * glob[2]) / 10, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "test_verify: only %" PetscInt64_FMT " of %" PetscInt64_FMT " planted violations caught", glob[3], glob[2]);
  }
  PetscCall(PetscFinalize());
  return 0;
}
