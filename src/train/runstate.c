/* The resume state of a run: its sizes, and the packing of phi, Adam, theta, counters and
   the successor lists into one double and one integer array (the study stores them). */
#include <simreach/private/run.h>
#include <math.h>
#include <string.h>

/* State layout.  doubles: phi, Adam m, Adam v (P each), theta (2 n K slots; a partition's
   interior boundaries first, the rest 0).
   ints: checkpoint, epoch, Adam t, grid flag, accepted, rejected, backtracked, TAO reason,
   status, theta accepted, rejected, backtracked, moves, then C(k) as index boxes (SPEC §5: K
   rows of 2n + 1), then T(k) as K rows of a count and tcap entries padded with -1 (tcap =
   SRAbstractionGetTargetCapacity; 0 for -target certified, where T = C and the K counts are
   0).  Size O(K), not O(K^2). */
#define SR_RUN_NHEAD 13

PetscErrorCode SRRunGetStateSizes(SRRun r, PetscInt *ndouble, PetscInt *nint)
{
  PetscInt tcap;

  PetscFunctionBeginUser;
  PetscCall(SRRunSetUp(r));
  PetscCall(SRAbstractionGetTargetCapacity(r->abs, r->n, &tcap));
  if (ndouble) *ndouble = 3 * r->P + 2 * r->n * r->K;
  if (nint) *nint = SR_RUN_NHEAD + r->K * (2 * r->n + 1) + r->K * (1 + tcap);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRRunTargetPack_Private(PetscInt K, PetscInt tcap, const SRSuccessorList *T, PetscInt *out)
{
  PetscFunctionBeginUser;
  if (tcap == 0) { /* -target certified: T = C, nothing to store; the K counts are 0 (read: ignored) */
    for (PetscInt k = 0; k < K; k++) out[k] = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (PetscInt k = 0; k < K; k++) {
    const PetscInt m = T->ptr[k + 1] - T->ptr[k];
    PetscCheck(m <= tcap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "target list of cell %" PetscInt_FMT " has %" PetscInt_FMT " entries, more than the %" PetscInt_FMT " the resume state holds", k, m, tcap);
    out[k * (1 + tcap)] = m;
    for (PetscInt q = 0; q < tcap; q++) out[k * (1 + tcap) + 1 + q] = q < m ? T->idx[T->ptr[k] + q] : -1;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunGetState(SRRun r, double *ds, PetscInt *is)
{
  const PetscInt         P = r->P, nt = 2 * r->n * r->K, K = r->K;
  const SRSuccessorList *T;
  const PetscInt        *rows;
  PetscInt               tcap;

  PetscFunctionBeginUser;
  PetscCall(SRRunSetUp(r));
  PetscCall(PetscArraycpy(ds, r->model->mlp->params, P));
  PetscCall(PetscArraycpy(ds + P, r->adam->m, P));
  PetscCall(PetscArraycpy(ds + 2 * P, r->adam->v, P));
  PetscCall(PetscArrayzero(ds + 3 * P, nt));
  SRRunThetaGet_Private(r, r->cells, ds + 3 * P);
  is[0] = r->icheck;
  is[1] = r->epoch;
  is[2] = r->adam->t;
  is[3] = r->cells->grid_aligned ? 1 : 0;
  is[4] = r->accepted;
  is[5] = r->rejected;
  is[6] = r->backtracked;
  is[7] = r->tao_reason;
  is[8] = (PetscInt)r->status;
  is[9]  = r->th_accepted;
  is[10] = r->th_rejected;
  is[11] = r->th_backtracked;
  is[12] = r->th_moves;
  PetscCall(SRAbstractionGetCertifiedBoxes(r->abs, r->cells, &rows));
  PetscCall(SRAbstractionGetTargets(r->abs, &T));
  PetscCall(SRAbstractionGetTargetCapacity(r->abs, r->n, &tcap));
  PetscCall(PetscArraycpy(is + SR_RUN_NHEAD, rows, K * (2 * r->n + 1)));
  PetscCall(SRRunTargetPack_Private(K, tcap, T, is + SR_RUN_NHEAD + K * (2 * r->n + 1)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRRunTargetUnpack_Private(MPI_Comm comm, SRCells cells, PetscInt tcap, const PetscInt *in, SRSuccessorList *T)
{
  const PetscInt K   = cells->K;
  PetscInt       nnz = 0;

  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < K; k++) {
    const PetscInt m = in[k * (1 + tcap)];
    PetscCheck(m >= 1 && m <= tcap, comm, PETSC_ERR_ARG_CORRUPT, "SRRunSetState: target list of cell %" PetscInt_FMT " with %" PetscInt_FMT " entries; allowed are 1 to %" PetscInt_FMT, k, m, tcap);
    nnz += m;
  }
  PetscCall(SRSuccessorListCreate(K, nnz, T));
  for (PetscInt k = 0; k < K; k++) {
    const PetscInt m = in[k * (1 + tcap)];
    T->ptr[k + 1]    = T->ptr[k] + m;
    for (PetscInt q = 0; q < m; q++) {
      const PetscInt j = in[k * (1 + tcap) + 1 + q];
      PetscCheck(j >= 0 && j <= K, comm, PETSC_ERR_ARG_CORRUPT, "SRRunSetState: target %" PetscInt_FMT " of cell %" PetscInt_FMT " outside 0..%" PetscInt_FMT, j, k, K);
      T->idx[T->ptr[k] + q] = j;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunSetState(SRRun r, const double *ds, const PetscInt *is)
{
  const PetscInt  P = r->P, K = r->K;
  SRSuccessorList T = {0};
  PetscInt        tcap;

  PetscFunctionBeginUser;
  PetscCall(SRRunSetUp(r));
  PetscCheck(is[0] >= 0 && is[0] <= r->ncheck, r->comm, PETSC_ERR_ARG_CORRUPT, "SRRunSetState: checkpoint %" PetscInt_FMT " outside 0..%" PetscInt_FMT " (-checkpoints)", is[0], r->ncheck);
  PetscCheck(is[1] >= 0 && is[1] <= r->epochs, r->comm, PETSC_ERR_ARG_CORRUPT, "SRRunSetState: epoch %" PetscInt_FMT " outside 0..%" PetscInt_FMT " (-epochs)", is[1], r->epochs);
  PetscCall(PetscArraycpy(r->model->mlp->params, ds, P));
  PetscCall(PetscArraycpy(r->adam->m, ds + P, P));
  PetscCall(PetscArraycpy(r->adam->v, ds + 2 * P, P));
  if (is[3]) {
    /* still the initial grid: theta is the grid's own (bit-identical by construction) */
    SRCells grid;
    PetscCall(SRCellsCreateGrid(r->sys, r->counts, &grid));
    grid->p    = r->p;
    grid->wmin = r->wmin;
    grid->wmax = r->wmax;
    PetscCall(SRCellsCopy(grid, r->cells));
    PetscCall(SRCellsDestroy(&grid));
  } else PetscCall(SRRunThetaSet_Private(r, r->cells, ds + 3 * P));
  r->icheck      = is[0];
  r->epoch       = is[1];
  r->adam->t     = is[2];
  r->accepted    = is[4];
  r->rejected    = is[5];
  r->backtracked = is[6];
  r->tao_reason  = is[7];
  r->th_accepted    = is[9];
  r->th_rejected    = is[10];
  r->th_backtracked = is[11];
  r->th_moves       = is[12];
  r->status      = (SRRunStatus)is[8] == SR_RUN_DIVERGED ? SR_RUN_DIVERGED : SR_RUN_PENDING;
  PetscCall(SRAbstractionGetTargetCapacity(r->abs, r->n, &tcap));
  if (tcap > 0) PetscCall(SRRunTargetUnpack_Private(r->comm, r->cells, tcap, is + SR_RUN_NHEAD + K * (2 * r->n + 1), &T));
  PetscCall(SRAbstractionSetBoxes(r->abs, r->cells, is + SR_RUN_NHEAD, tcap > 0 ? &T : NULL)); /* NULL: T = C */
  if (r->status != SR_RUN_DIVERGED) PetscCall(SRRunSaveVerified_Private(r)); /* the checkpoint's triple */
  PetscCall(SRSuccessorListDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}
