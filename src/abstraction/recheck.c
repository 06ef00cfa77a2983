/* The three-outcome re-check of SPEC §11 (see include/simreach/recheck.h for what each
   outcome means and why it is sound).  One piece of code for a run's checkpoints and for
   `simreach check`. */
#include <simreach/recheck.h>
#include <simreach/verify.h>
#include <simreach/random.h>
#include <simreach/private/enclosure.h>
#include <petscviewer.h>
#include <math.h>
#include <float.h>

const char *const SRRecheckOutcomes[] = {"proven", "falsified", "unknown", "SRRecheckOutcome", "SR_RECHECK_", NULL};

#define SR_RECHECK_MAX_DEPTH 200

PetscErrorCode SRRecheckParamsSetDefault(SRRecheckParams *par)
{
  PetscFunctionBeginUser;
  par->builder       = SR_ENCLOSURE_INTERVAL;
  par->subbox        = SR_ENCLOSURE_BOTH;
  par->depth         = 40;
  par->max_boxes     = 4096;
  par->samples       = 16;
  par->attack_steps  = 40;
  par->attack_starts = 4;
  par->seed          = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRecheckParamsSetFromOptions(MPI_Comm comm, SRRecheckParams *par)
{
  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "simreach re-check (SPEC §11)", "SRRecheck");
  PetscCall(PetscOptionsInt("-recheck_depth", "bisection levels the re-check may use per cell to prove containment (adaptive: only failing sub-boxes are split), 0 to 200", NULL, par->depth, &par->depth, NULL));
  PetscCheck(par->depth >= 0 && par->depth <= SR_RECHECK_MAX_DEPTH, comm, PETSC_ERR_ARG_OUTOFRANGE, "-recheck_depth %" PetscInt_FMT ": allowed is 0 to %d", par->depth, SR_RECHECK_MAX_DEPTH);
  PetscCall(PetscOptionsInt("-recheck_boxes", "enclosures the re-check may compute per cell, >= 1", NULL, par->max_boxes, &par->max_boxes, NULL));
  PetscCheck(par->max_boxes >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-recheck_boxes %" PetscInt_FMT ": allowed is >= 1", par->max_boxes);
  PetscCall(PetscOptionsInt("-falsify_samples", "random witness candidates per cell in the re-check (besides the centre and the corners), >= 0", NULL, par->samples, &par->samples, NULL));
  PetscCheck(par->samples >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-falsify_samples %" PetscInt_FMT ": allowed is >= 0", par->samples);
  {
    PetscEnum e = (PetscEnum)par->subbox;
    PetscCall(PetscOptionsEnum("-recheck_subbox", "enclosure of the bisected sub-boxes: interval, taylor1, both", NULL, SREnclosureTypes, e, &e, NULL));
    par->subbox = (SREnclosureType)e;
  }
  PetscCall(PetscOptionsInt("-attack_steps", "sign-gradient steps of the re-check's witness search per start on a cell it could not prove, >= 0", NULL, par->attack_steps, &par->attack_steps, NULL));
  PetscCheck(par->attack_steps >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-attack_steps %" PetscInt_FMT ": allowed is >= 0", par->attack_steps);
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  SRModel                model;
  SRCells                cells;
  PetscInt               n, nlist;
  const PetscInt        *list;
  const SRRecheckParams *par;
  SRTaylor              *work;
  double                 clo[SR_MAX_DIM], chi[SR_MAX_DIM]; /* outward box of the cell */
  double                 ilo[SR_MAX_DIM], ihi[SR_MAX_DIM]; /* inward box: points of the exact cell */
  PetscBool              inner;                             /* the inward box is not empty */
  double                *X, *Y;                             /* candidate batch */
  PetscInt               cap;
} SRRecheckCtx_Private;

/* Sound enclosure of f over [lo, hi] with `type`; PETSC_FALSE when it is not finite. */
static PetscErrorCode SRRecheckEnclose_Private(SRRecheckCtx_Private *c, SREnclosureType type, const double *lo, const double *hi, double *elo, double *ehi, PetscBool *finite)
{
  const PetscInt n = c->n;
  double         tlo[SR_MAX_DIM], thi[SR_MAX_DIM];

  PetscFunctionBeginUser;
  *finite = PETSC_TRUE;
  if (SRModelIsLoop(c->model)) { /* a plant file's closed loop: the one enclosure path (enclosure_loop.c, SPEC §16) */
    double       box[2 * SR_MAX_DIM], Eb[2 * SR_MAX_DIM];
    SRCellStatus st;
    for (PetscInt d = 0; d < n; d++) box[d] = lo[d], box[n + d] = hi[d];
    PetscCall(SREnclosureComputeBoxes(c->model, type, 1, box, Eb, &st));
    for (PetscInt d = 0; d < n; d++) elo[d] = Eb[d], ehi[d] = Eb[n + d];
    *finite = (PetscBool)(st == SR_CELL_OK);
  } else if (type != SR_ENCLOSURE_TAYLOR1) {
    PetscErrorCode ierr;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SRModelEncloseInterval(c->model, lo, hi, elo, ehi); /* errors on a NaN result: not finite */
    PetscCall(PetscPopErrorHandler());
    if (ierr) *finite = PETSC_FALSE;
  }
  if (type != SR_ENCLOSURE_INTERVAL && *finite && !SRModelIsLoop(c->model)) {
    PetscCall(SRModelEncloseTaylorWork_Private(c->model, lo, hi, tlo, thi, c->work, NULL));
    for (PetscInt d = 0; d < n; d++) {
      if (type == SR_ENCLOSURE_TAYLOR1) {
        elo[d] = tlo[d];
        ehi[d] = thi[d];
      } else { /* both: the intersection of two sound boxes */
        elo[d] = PetscMax(elo[d], tlo[d]);
        ehi[d] = PetscMin(ehi[d], thi[d]);
      }
    }
  }
  for (PetscInt d = 0; d < n && *finite; d++)
    if (!(isfinite(elo[d]) && isfinite(ehi[d]) && elo[d] <= ehi[d])) *finite = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The proof: a depth-first walk over the sub-boxes that fail, splitting each along its widest
   side relative to the cell.  The closed halves cover their box, so the leaves that passed
   cover the cell.  Stops at the first sub-box that fails at the budget (its box returned in
   flo, fhi: the place to look for a witness). */
static PetscErrorCode SRRecheckProve_Private(SRRecheckCtx_Private *c, SRRecheckCellResult *res, PetscBool *proven, double *flo, double *fhi)
{
  const PetscInt         n = c->n, cap = 2 * SR_RECHECK_MAX_DEPTH + 4;
  const SRRecheckParams *par = c->par;
  const SREnclosureType  other = par->builder == SR_ENCLOSURE_INTERVAL ? SR_ENCLOSURE_TAYLOR1 : SR_ENCLOSURE_INTERVAL;
  double                *stk;
  PetscInt              *lev, top = 0;

  PetscFunctionBeginUser;
  *proven = PETSC_FALSE;
  PetscCall(PetscMalloc2(cap * 2 * n, &stk, cap, &lev));
  for (PetscInt d = 0; d < n; d++) {
    stk[d]     = c->clo[d];
    stk[n + d] = c->chi[d];
  }
  lev[0] = 0;
  top    = 1;
  while (top > 0) {
    double       lo[SR_MAX_DIM], hi[SR_MAX_DIM], elo[SR_MAX_DIM], ehi[SR_MAX_DIM];
    PetscInt     l = lev[--top], split = -1;
    PetscBool    finite, pass = PETSC_FALSE;
    SRCellStatus cs;

    for (PetscInt d = 0; d < n; d++) {
      lo[d] = stk[top * 2 * n + d];
      hi[d] = stk[top * 2 * n + n + d];
    }
    res->depth = PetscMax(res->depth, l);
    /* the builder's own enclosure of the whole cell is not an independent proof: for `both`
       the walk starts from the halves */
    if (!(l == 0 && par->builder == SR_ENCLOSURE_BOTH)) {
      PetscCall(SRRecheckEnclose_Private(c, l == 0 ? other : par->subbox, lo, hi, elo, ehi, &finite));
      res->boxes++;
      if (finite) {
        PetscCall(SRContainmentTest(c->cells, c->nlist, c->list, elo, ehi, &cs, NULL));
        pass = cs == SR_CELL_OK;
      }
      if (pass) continue;
    }
    /* split where the sub-box is widest relative to the cell, if the budget allows */
    if (l < par->depth && res->boxes + 2 <= par->max_boxes) {
      double best = -1;
      for (PetscInt d = 0; d < n; d++) {
        const double mid = lo[d] + 0.5 * (hi[d] - lo[d]), rel = (hi[d] - lo[d]) / (c->chi[d] - c->clo[d]);
        if (mid > lo[d] && mid < hi[d] && rel > best) {
          best  = rel;
          split = d;
        }
      }
    }
    if (split < 0) {
      for (PetscInt d = 0; d < n; d++) {
        flo[d] = lo[d];
        fhi[d] = hi[d];
      }
      PetscCall(PetscFree2(stk, lev));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    {
      const double mid = lo[split] + 0.5 * (hi[split] - lo[split]);
      for (int side = 1; side >= 0; side--) { /* the lower half is popped first */
        for (PetscInt d = 0; d < n; d++) {
          stk[top * 2 * n + d]     = lo[d];
          stk[top * 2 * n + n + d] = hi[d];
        }
        if (side == 0) stk[top * 2 * n + n + split] = mid;
        else stk[top * 2 * n + split] = mid;
        lev[top++] = l + 1;
      }
    }
  }
  *proven = PETSC_TRUE;
  PetscCall(PetscFree2(stk, lev));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A candidate x of the exact cell is a witness when the directed-rounding enclosure of f(x)
   lies wholly outside the union of the list. */
static PetscErrorCode SRRecheckWitness_Private(SRRecheckCtx_Private *c, const double *x, SRRecheckCellResult *res, PetscBool *found)
{
  const PetscInt n = c->n;
  double         ylo[SR_MAX_DIM], yhi[SR_MAX_DIM];
  PetscBool      finite, outside = PETSC_FALSE;

  PetscFunctionBeginUser;
  *found = PETSC_FALSE;
  for (PetscInt d = 0; d < n; d++)
    if (!(c->ilo[d] <= x[d] && x[d] <= c->ihi[d])) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SRRecheckEnclose_Private(c, SR_ENCLOSURE_INTERVAL, x, x, ylo, yhi, &finite));
  if (finite) PetscCall(SRContainmentOutside(c->cells, c->nlist, c->list, ylo, yhi, &outside));
  if (!outside) PetscFunctionReturn(PETSC_SUCCESS);
  *found       = PETSC_TRUE;
  res->outcome = SR_RECHECK_FALSIFIED;
  for (PetscInt d = 0; d < n; d++) {
    res->x[d]    = x[d];
    res->fxlo[d] = ylo[d];
    res->fxhi[d] = yhi[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Depth of f(x) outside the union for the nb points of c->X (into g); nonfinite -> -inf. */
static PetscErrorCode SRRecheckDepths_Private(SRRecheckCtx_Private *c, PetscInt nb, double *g)
{
  const PetscInt n = c->n;

  PetscFunctionBeginUser;
  PetscCall(SRModelEvaluate(c->model, nb, c->X, c->Y));
  for (PetscInt i = 0; i < nb; i++) {
    PetscBool fin = PETSC_TRUE;
    for (PetscInt d = 0; d < n; d++)
      if (!isfinite(c->Y[i * n + d])) fin = PETSC_FALSE;
    g[i] = fin ? SRContainmentDepth(c->cells, c->nlist, c->list, c->Y + i * n) : -INFINITY;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void SRRecheckClip_Private(const SRRecheckCtx_Private *c, double *x)
{
  for (PetscInt d = 0; d < c->n; d++) x[d] = PetscMin(PetscMax(x[d], c->ilo[d]), c->ihi[d]);
}

/* Projected sign-gradient ascent of the depth from x0 (finite differences, step halved when it
   does not improve, grown by 3/2 when it does).  Every point that looks outside is checked. */
static PetscErrorCode SRRecheckAttack_Private(SRRecheckCtx_Private *c, const double *x0, SRRecheckCellResult *res, double *best_g, PetscBool *found)
{
  const PetscInt n = c->n;
  double         x[SR_MAX_DIM], a[SR_MAX_DIM], grad[SR_MAX_DIM], gx, g[2 * SR_MAX_DIM + 1];
  PetscBool      have_grad = PETSC_FALSE;

  PetscFunctionBeginUser;
  *found = PETSC_FALSE;
  for (PetscInt d = 0; d < n; d++) {
    x[d] = x0[d];
    a[d] = 0.25 * (c->ihi[d] - c->ilo[d]);
  }
  for (PetscInt d = 0; d < n; d++) c->X[d] = x[d];
  PetscCall(SRRecheckDepths_Private(c, 1, &gx));
  for (PetscInt it = 0; it < c->par->attack_steps; it++) {
    double xn[SR_MAX_DIM], gn;
    if (!have_grad) {
      for (PetscInt d = 0; d < n; d++) {
        const double h = PetscMax(1e-7 * (c->ihi[d] - c->ilo[d]), 4 * DBL_EPSILON * PetscMax(fabs(x[d]), 1e-300));
        for (PetscInt e = 0; e < n; e++) c->X[(2 * d) * n + e] = c->X[(2 * d + 1) * n + e] = x[e];
        c->X[(2 * d) * n + d] += h;
        c->X[(2 * d + 1) * n + d] -= h;
        SRRecheckClip_Private(c, c->X + (2 * d) * n);
        SRRecheckClip_Private(c, c->X + (2 * d + 1) * n);
      }
      PetscCall(SRRecheckDepths_Private(c, 2 * n, g));
      for (PetscInt d = 0; d < n; d++) grad[d] = isfinite(g[2 * d]) && isfinite(g[2 * d + 1]) ? g[2 * d] - g[2 * d + 1] : 0.0;
      have_grad = PETSC_TRUE;
    }
    for (PetscInt d = 0; d < n; d++) xn[d] = x[d] + (grad[d] > 0 ? a[d] : (grad[d] < 0 ? -a[d] : 0.0));
    SRRecheckClip_Private(c, xn);
    for (PetscInt d = 0; d < n; d++) c->X[d] = xn[d];
    PetscCall(SRRecheckDepths_Private(c, 1, &gn));
    if (gn > gx) {
      for (PetscInt d = 0; d < n; d++) {
        x[d] = xn[d];
        a[d] = PetscMin(1.5 * a[d], 0.5 * (c->ihi[d] - c->ilo[d]));
      }
      gx        = gn;
      have_grad = PETSC_FALSE;
      if (gx > *best_g) {
        *best_g = gx;
        for (PetscInt d = 0; d < n; d++) res->x[d] = x[d];
      }
      if (gx > 0) {
        PetscCall(SRRecheckWitness_Private(c, x, res, found));
        if (*found) PetscFunctionReturn(PETSC_SUCCESS);
      }
    } else {
      PetscBool tiny = PETSC_TRUE;
      for (PetscInt d = 0; d < n; d++) {
        a[d] *= 0.5;
        if (a[d] > 4 * DBL_EPSILON * PetscMax(fabs(x[d]), 1e-300)) tiny = PETSC_FALSE;
      }
      if (tiny) break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Doubles that are points of the exact cell k.  Grid-aligned cells are the real grid boxes
   [g_i, g_{i+1}] (their stored w is inflated outward, so SRCellsBoxInner of it may stick out):
   the upper end of g_i's enclosure to the lower end of g_{i+1}'s.  Partition cells: their
   double boundaries.  Free boxes: inward-rounded. */
static void SRRecheckExactInner_Private(SRCells cells, PetscInt k, double *lo, double *hi)
{
  if (cells->partition) SRCellsBoxInner(cells, k, lo, hi); /* the exact double boundaries */
  else if (cells->grid_aligned) {
    PetscInt idx[SR_MAX_DIM];
    double   a, b;
    SRCellsGridIndex(cells, k, idx);
    for (PetscInt d = 0; d < cells->n; d++) {
      SRCellsGridLine(cells, d, idx[d], &a, &b);
      lo[d] = b;
      SRCellsGridLine(cells, d, idx[d] + 1, &a, &b);
      hi[d] = a;
    }
  } else SRCellsBoxInner(cells, k, lo, hi);
}

PetscErrorCode SRRecheckCell(SRModel model, SRCells cells, PetscInt k, PetscInt nlist, const PetscInt *list, const SRRecheckParams *par, SRRecheckCellResult *res)
{
  const PetscInt       n = cells->n, m = par->samples;
  SRRecheckCtx_Private c;
  PetscInt             ncorner = 1 << n, nb, nstart;
  double               flo[SR_MAX_DIM], fhi[SR_MAX_DIM], *g, best_g = -INFINITY;
  PetscInt            *order;
  PetscBool            proven = PETSC_FALSE, found = PETSC_FALSE, finite_params = PETSC_TRUE;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(res, sizeof(*res)));
  res->cell    = k;
  res->outcome = SR_RECHECK_UNKNOWN;
  res->escape  = -INFINITY;
  for (PetscInt d = 0; d < SR_MAX_DIM; d++) res->x[d] = res->fxlo[d] = res->fxhi[d] = NAN;
  for (PetscInt p = 0; p < model->mlp->nparams; p++)
    if (!isfinite(model->mlp->params[p])) finite_params = PETSC_FALSE;
  if (!finite_params) PetscFunctionReturn(PETSC_SUCCESS); /* nothing to prove or evaluate: unknown */

  c.model = model;
  c.cells = cells;
  c.n     = n;
  c.nlist = nlist;
  c.list  = list;
  c.par   = par;
  SRCellsBoxOuter(cells, k, c.clo, c.chi);
  SRRecheckExactInner_Private(cells, k, c.ilo, c.ihi);
  c.inner = PETSC_TRUE;
  for (PetscInt d = 0; d < n; d++)
    if (!(c.ilo[d] <= c.ihi[d])) c.inner = PETSC_FALSE;
  c.cap = PetscMax(1 + ncorner + m + 1, 2 * n + 1);
  PetscCall(PetscMalloc1(2 * model->mlp->maxwidth, &c.work));
  PetscCall(PetscMalloc4(c.cap * n, &c.X, c.cap * n, &c.Y, c.cap, &g, c.cap, &order));

  PetscCall(SRRecheckProve_Private(&c, res, &proven, flo, fhi));
  if (proven) res->outcome = SR_RECHECK_PROVEN;

  if (c.inner && !proven) {
    /* a proven cell has no witness (both enclosures are sound): the search runs on the cells
       left unproven.  Candidates: the centre, the corners, the samples, and the centre of the
       failing sub-box */
    nb = 0;
    for (PetscInt d = 0; d < n; d++) c.X[d] = 0.5 * c.ilo[d] + 0.5 * c.ihi[d];
    nb++;
    for (PetscInt q = 0; q < ncorner; q++, nb++)
      for (PetscInt d = 0; d < n; d++) c.X[nb * n + d] = (q >> d) & 1 ? c.ihi[d] : c.ilo[d];
    for (PetscInt s = 0; s < m; s++, nb++)
      for (PetscInt d = 0; d < n; d++) c.X[nb * n + d] = SRRandomRange(par->seed, SR_STREAM_FALSIFY, (uint64_t)((k * m + s) * n + d), c.ilo[d], c.ihi[d]);
    for (PetscInt d = 0; d < n; d++) c.X[nb * n + d] = 0.5 * flo[d] + 0.5 * fhi[d];
    SRRecheckClip_Private(&c, c.X + nb * n);
    nb++;
    PetscCall(SRRecheckDepths_Private(&c, nb, g));
    for (PetscInt i = 0; i < nb; i++) {
      order[i] = i;
      g[i]     = -g[i]; /* ascending sort of -g: deepest first */
    }
    PetscCall(PetscSortRealWithPermutation(nb, g, order));
    {
      double xs[SR_MAX_DIM];
      /* keep the candidates (c.X is reused by the ascent) */
      double *Xc;
      PetscCall(PetscMalloc1(nb * n, &Xc));
      PetscCall(PetscArraycpy(Xc, c.X, nb * n));
      best_g = -g[order[0]];
      for (PetscInt d = 0; d < n; d++) res->x[d] = Xc[order[0] * n + d];
      for (PetscInt i = 0; i < nb && !found; i++) {
        if (!(-g[order[i]] > 0)) break;
        PetscCall(SRRecheckWitness_Private(&c, Xc + order[i] * n, res, &found));
      }
      nstart = PetscMin(nb, par->attack_starts);
      for (PetscInt i = 0; i < nstart && !found; i++) {
        for (PetscInt d = 0; d < n; d++) xs[d] = Xc[order[i] * n + d];
        PetscCall(SRRecheckAttack_Private(&c, xs, res, &best_g, &found));
      }
      PetscCall(PetscFree(Xc));
    }
    if (!found && isfinite(res->x[0])) {
      /* the deepest point found, with its directed-rounding image, for the report */
      PetscBool fin;
      PetscCall(SRRecheckEnclose_Private(&c, SR_ENCLOSURE_INTERVAL, res->x, res->x, res->fxlo, res->fxhi, &fin));
    }
  }
  if (!found && proven) {
    for (PetscInt d = 0; d < SR_MAX_DIM; d++) res->x[d] = res->fxlo[d] = res->fxhi[d] = NAN;
  }
  if (isfinite(res->x[0])) {
    double y[SR_MAX_DIM];
    for (PetscInt d = 0; d < n; d++) y[d] = 0.5 * res->fxlo[d] + 0.5 * res->fxhi[d];
    res->escape = SRContainmentDepth(cells, nlist, list, y);
  }
  PetscCall(PetscFree(c.work));
  PetscCall(PetscFree4(c.X, c.Y, g, order));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRecheckCells(SRModel model, SRCells cells, const SRSuccessorList *C, PetscInt kstart, PetscInt kend, const SRRecheckParams *par, SRRecheckCellResult *out)
{
  PetscFunctionBeginUser;
  for (PetscInt k = kstart; k < kend; k++) PetscCall(SRRecheckCell(model, cells, k, C->ptr[k + 1] - C->ptr[k], C->idx + C->ptr[k], par, &out[k - kstart]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRecheckGather(MPI_Comm comm, PetscInt K, PetscInt nown, SRRecheckCellResult *own, double t0, SRRecheckResult *res)
{
  PetscFunctionBeginUser;
  PetscCall(SRRecheckGatherPartial(comm, K, 0, 0.0, 0, nown, own, t0, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRecheckGatherPartial(MPI_Comm comm, PetscInt K, PetscInt nproven, double boxes, PetscInt bmax, PetscInt nown, SRRecheckCellResult *own, double t0, SRRecheckResult *res)
{
  PetscMPIInt size, mine, *counts, *displs;
  PetscInt    cnt[3] = {nproven, 0, 0}, nloc = 0;
  double      secs;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  for (PetscInt i = 0; i < nown; i++) {
    const SRRecheckCellResult r = own[i];
    cnt[r.outcome]++;
    boxes += r.boxes;
    bmax = PetscMax(bmax, r.boxes);
    if (r.outcome != SR_RECHECK_PROVEN) own[nloc++] = r; /* compacts in place, nloc <= i */
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, cnt, 3, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &boxes, 1, MPI_DOUBLE, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bmax, 1, MPIU_INT, MPI_MAX, comm));
  res->K         = K;
  res->proven    = cnt[SR_RECHECK_PROVEN];
  res->falsified = cnt[SR_RECHECK_FALSIFIED];
  res->unknown   = cnt[SR_RECHECK_UNKNOWN];
  res->nfail     = cnt[SR_RECHECK_FALSIFIED] + cnt[SR_RECHECK_UNKNOWN];
  res->boxes     = boxes;
  res->boxes_max = bmax;
  /* the non-proven cells (few on a sound abstraction) on every rank, in cell order */
  PetscCall(PetscMalloc1(PetscMax(res->nfail, 1), &res->fail));
  PetscCall(PetscMalloc2(size, &counts, size, &displs));
  mine = (PetscMPIInt)(nloc * (PetscInt)sizeof(SRRecheckCellResult));
  PetscCallMPI(MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, comm));
  displs[0] = 0;
  for (PetscMPIInt r = 1; r < size; r++) displs[r] = displs[r - 1] + counts[r - 1];
  PetscCallMPI(MPI_Allgatherv(own, mine, MPI_BYTE, res->fail, counts, displs, MPI_BYTE, comm));
  PetscCall(PetscFree2(counts, displs));
  secs = MPI_Wtime() - t0;
  PetscCallMPI(MPI_Allreduce(&secs, &res->seconds, 1, MPI_DOUBLE, MPI_MAX, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRecheckAll(MPI_Comm comm, SRModel model, SRCells cells, const SRSuccessorList *C, const SRRecheckParams *par, SRRecheckResult *res)
{
  const PetscInt       K = cells->K;
  PetscMPIInt          size, rank;
  PetscInt             ks, ke;
  PetscInt64           a, b;
  SRRecheckCellResult *all;
  const double         t0 = MPI_Wtime();

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(res, sizeof(*res)));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  SRVerifyOwnership(K, size, rank, &a, &b); /* the blocks of SRAbstractionGetOwnership */
  ks = (PetscInt)a;
  ke = (PetscInt)b;
  PetscCall(PetscMalloc1(PetscMax(ke - ks, 1), &all));
  PetscCall(SRRecheckCells(model, cells, C, ks, ke, par, all));
  PetscCall(SRRecheckGather(comm, K, ke - ks, all, t0, res));
  PetscCall(PetscFree(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRecheckResultDestroy(SRRecheckResult *res)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(res->fail));
  res->nfail = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRecheckResultView(const SRRecheckResult *res, PetscInt n, PetscInt max, PetscViewer viewer)
{
  PetscFunctionBeginUser;
  for (PetscInt i = 0; i < res->nfail && i < max; i++) {
    const SRRecheckCellResult *f = &res->fail[i];
    char                       xs[256] = "", ys[256] = "";
    for (PetscInt d = 0; d < n; d++) {
      char b[96];
      PetscCall(PetscSNPrintf(b, sizeof(b), "%s%.17g", d ? ", " : "", f->x[d]));
      PetscCall(PetscStrlcat(xs, b, sizeof(xs)));
      PetscCall(PetscSNPrintf(b, sizeof(b), "%s[%.17g, %.17g]", d ? ", " : "", f->fxlo[d], f->fxhi[d]));
      PetscCall(PetscStrlcat(ys, b, sizeof(ys)));
    }
    PetscCall(PetscViewerASCIIPrintf(viewer, "  cell %" PetscInt_FMT ": %s, x = (%s), f(x) in (%s)%s, depth %" PetscInt_FMT ", %" PetscInt_FMT " enclosures\n", f->cell, SRRecheckOutcomes[f->outcome], xs, ys,
                                     f->outcome == SR_RECHECK_FALSIFIED ? " outside C(k)" : " (deepest point found, not outside)", f->depth, f->boxes));
  }
  if (res->nfail > max) PetscCall(PetscViewerASCIIPrintf(viewer, "  ... and %" PetscInt_FMT " more\n", res->nfail - max));
  PetscFunctionReturn(PETSC_SUCCESS);
}
