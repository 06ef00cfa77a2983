/* The independent re-check of a checkpoint (SPEC §8, §11). */
#include <simreach/private/run.h>
#include <math.h>
#include <string.h>

/* Containment of f_phi(box) in the union of C(k), proved with enclosure type `other` on the two
   halves of the box (bisected along its widest side), each half that is too loose bisected in
   turn, depth levels at most.  Called once the whole box has failed.  Sound: the halves' closed
   boxes cover the box, and each half's enclosure contains its image.  A nonfinite enclosure
   never proves anything. */
static PetscErrorCode SRRunRecheckHalves_Private(SRRun r, SREnclosureType other, const double *lo, const double *hi, PetscInt nl, const PetscInt *list, PetscInt depth, PetscBool *ok)
{
  const PetscInt n = r->n;
  PetscInt       split = 0;
  double         mid;

  PetscFunctionBeginUser;
  *ok = PETSC_FALSE;
  if (depth == 0) PetscFunctionReturn(PETSC_SUCCESS);
  for (PetscInt d = 1; d < n; d++)
    if (hi[d] - lo[d] > hi[split] - lo[split]) split = d;
  mid = lo[split] + 0.5 * (hi[split] - lo[split]); /* any value in (lo, hi) keeps the cover */
  if (!(mid > lo[split] && mid < hi[split])) PetscFunctionReturn(PETSC_SUCCESS);
  for (int side = 0; side < 2; side++) {
    double       slo[SR_MAX_DIM], shi[SR_MAX_DIM], elo[SR_MAX_DIM], ehi[SR_MAX_DIM];
    SRCellStatus cs = SR_CELL_OK;
    PetscBool    half_ok;

    for (PetscInt d = 0; d < n; d++) {
      slo[d] = lo[d];
      shi[d] = hi[d];
    }
    if (side == 0) shi[split] = mid;
    else slo[split] = mid;
    if (other == SR_ENCLOSURE_TAYLOR1) PetscCall(SRModelEncloseTaylor(r->model, slo, shi, elo, ehi));
    else PetscCall(SRModelEncloseInterval(r->model, slo, shi, elo, ehi));
    for (PetscInt d = 0; d < n; d++)
      if (!(isfinite(elo[d]) && isfinite(ehi[d]))) cs = SR_CELL_NONFINITE;
    if (cs == SR_CELL_OK) PetscCall(SRContainmentTest(r->cells, nl, list, elo, ehi, &cs, NULL));
    if (cs == SR_CELL_NOT_CONTAINED) PetscCall(SRRunRecheckHalves_Private(r, other, slo, shi, nl, list, depth - 1, &half_ok));
    else half_ok = cs == SR_CELL_OK ? PETSC_TRUE : PETSC_FALSE;
    if (!half_ok) PetscFunctionReturn(PETSC_SUCCESS);
  }
  *ok = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The independent re-check of SPEC §8: containment redone with the other enclosure method
   (interval <-> taylor1, both -> interval), on the cell's outward box or, within
   -recheck_depth bisections, on sub-boxes that cover it, plus sampled falsification (points
   of SR_STREAM_FALSIFY inside Psi_k whose image must lie in a box of C(k) or, if the sink is
   listed, outside D).  Cells are split as in SRAbstraction; the flags are reduced. */
PetscErrorCode SRRunRecheck_Private(SRRun r, PetscInt *nrecheck, PetscInt *nfalsified)
{
  const PetscInt         n = r->n, K = r->K, m = r->nfalsify;
  const SREnclosureType  other = r->enclosure == SR_ENCLOSURE_INTERVAL ? SR_ENCLOSURE_TAYLOR1 : SR_ENCLOSURE_INTERVAL;
  const SRSuccessorList *C;
  PetscInt               ks, ke, *flags;
  double                *E;
  SRCellStatus          *st;

  PetscFunctionBeginUser;
  PetscCall(SRAbstractionGetOwnership(r->abs, K, &ks, &ke));
  PetscCall(SRAbstractionGetCertified(r->abs, &C));
  PetscCall(PetscCalloc1(2 * K, &flags));
  PetscCall(PetscMalloc2(PetscMax(ke - ks, 1) * 2 * n, &E, PetscMax(ke - ks, 1), &st));
  if (ke > ks) PetscCall(SREnclosureCompute(r->model, other, r->cells, ks, ke, E, st));
  for (PetscInt k = ks; k < ke; k++) {
    const PetscInt  nl = C->ptr[k + 1] - C->ptr[k];
    const PetscInt *list = C->idx + C->ptr[k];
    double          witness[SR_MAX_DIM], ilo[SR_MAX_DIM], ihi[SR_MAX_DIM];
    SRCellStatus    cs = st[k - ks];

    if (cs == SR_CELL_OK) PetscCall(SRContainmentTest(r->cells, nl, list, E + (k - ks) * 2 * n, E + (k - ks) * 2 * n + n, &cs, witness));
    if (cs == SR_CELL_NOT_CONTAINED && r->recheck_depth > 0) {
      double    blo[SR_MAX_DIM], bhi[SR_MAX_DIM];
      PetscBool ok;
      SRCellsBoxOuter(r->cells, k, blo, bhi);
      PetscCall(SRRunRecheckHalves_Private(r, other, blo, bhi, nl, list, r->recheck_depth, &ok));
      if (ok) cs = SR_CELL_OK;
    }
    if (cs != SR_CELL_OK) flags[k] = 1;
    if (m == 0) continue;
    SRCellsBoxInner(r->cells, k, ilo, ihi);
    for (PetscInt s = 0; s < m; s++)
      for (PetscInt d = 0; d < n; d++) r->Xb[s * n + d] = SRRandomRange((uint64_t)r->seed, SR_STREAM_FALSIFY, (uint64_t)((k * m + s) * n + d), ilo[d], PetscMax(ilo[d], ihi[d]));
    PetscCall(SRModelEvaluate(r->model, m, r->Xb, r->Y));
    for (PetscInt s = 0; s < m; s++) {
      const double *y       = r->Y + s * n;
      PetscBool     covered = PETSC_FALSE;
      for (PetscInt q = 0; q < nl && !covered; q++) {
        const PetscInt j = list[q];
        PetscBool      in = PETSC_TRUE;
        if (j == K) { /* sink: R^n \ D */
          in = PETSC_FALSE;
          for (PetscInt d = 0; d < n; d++)
            if (y[d] < r->cells->dlo[d] || y[d] > r->cells->dhi[d]) in = PETSC_TRUE;
        } else {
          double lo[SR_MAX_DIM], hi[SR_MAX_DIM];
          SRCellsBoxOuter(r->cells, j, lo, hi);
          for (PetscInt d = 0; d < n; d++)
            if (!(y[d] >= lo[d] && y[d] <= hi[d])) in = PETSC_FALSE;
        }
        covered = in;
      }
      if (!covered) flags[K + k] = 1;
    }
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, flags, (PetscMPIInt)(2 * K), MPIU_INT, MPI_MAX, r->comm));
  *nrecheck   = 0;
  *nfalsified = 0;
  for (PetscInt k = 0; k < K; k++) {
    if (flags[k] || flags[K + k]) (*nrecheck)++;
    if (flags[K + k]) (*nfalsified)++;
  }
  PetscCall(PetscFree2(E, st));
  PetscCall(PetscFree(flags));
  PetscFunctionReturn(PETSC_SUCCESS);
}
