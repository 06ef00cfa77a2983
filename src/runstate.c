/* The resume state of a run: its sizes, and the packing of phi, Adam, theta, counters and
   the successor lists into one double and one integer array (the study stores them). */
#include <simreach/private/run.h>
#include <math.h>
#include <string.h>

/* State layout.  doubles: phi, Adam m, Adam v (P each), theta (2 n K slots; a partition's
   interior boundaries first, the rest 0).
   ints: checkpoint, epoch, Adam t, grid flag, accepted, rejected, backtracked, TAO reason,
   status, theta accepted, rejected, backtracked, moves, then C and T as ptr (K + 1) and idx at capacity K (K + 1), padded with -1. */
#define SR_RUN_NHEAD 13

PetscErrorCode SRRunGetStateSizes(SRRun r, PetscInt *ndouble, PetscInt *nint)
{
  PetscFunctionBeginUser;
  PetscCall(SRRunSetUp(r));
  if (ndouble) *ndouble = 3 * r->P + 2 * r->n * r->K;
  if (nint) *nint = SR_RUN_NHEAD + 2 * ((r->K + 1) + r->K * (r->K + 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void SRRunListPack_Private(PetscInt K, const SRSuccessorList *L, PetscInt *out)
{
  const PetscInt cap = K * (K + 1);
  for (PetscInt k = 0; k <= K; k++) out[k] = L->ptr[k];
  for (PetscInt q = 0; q < cap; q++) out[K + 1 + q] = q < L->ptr[K] ? L->idx[q] : -1;
}

PetscErrorCode SRRunGetState(SRRun r, double *ds, PetscInt *is)
{
  const PetscInt         P = r->P, nt = 2 * r->n * r->K, K = r->K;
  const SRSuccessorList *C, *T;

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
  PetscCall(SRAbstractionGetCertified(r->abs, &C));
  PetscCall(SRAbstractionGetTargets(r->abs, &T));
  SRRunListPack_Private(K, C, is + SR_RUN_NHEAD);
  SRRunListPack_Private(K, T, is + SR_RUN_NHEAD + (K + 1) + K * (K + 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SRRunListUnpack_Private(MPI_Comm comm, PetscInt K, const PetscInt *in, SRSuccessorList *L)
{
  const PetscInt cap = K * (K + 1), nnz = in[K];

  PetscFunctionBeginUser;
  PetscCheck(in[0] == 0 && nnz >= 0 && nnz <= cap, comm, PETSC_ERR_ARG_CORRUPT, "SRRunSetState: successor list with %" PetscInt_FMT " entries; allowed are 0 to %" PetscInt_FMT, nnz, cap);
  for (PetscInt k = 0; k < K; k++) PetscCheck(in[k + 1] >= in[k], comm, PETSC_ERR_ARG_CORRUPT, "SRRunSetState: successor list pointers decrease at cell %" PetscInt_FMT, k);
  PetscCall(SRSuccessorListCreate(K, nnz, L));
  for (PetscInt k = 0; k <= K; k++) L->ptr[k] = in[k];
  for (PetscInt q = 0; q < nnz; q++) {
    PetscCheck(in[K + 1 + q] >= 0 && in[K + 1 + q] <= K, comm, PETSC_ERR_ARG_CORRUPT, "SRRunSetState: successor %" PetscInt_FMT " outside 0..%" PetscInt_FMT, in[K + 1 + q], K);
    L->idx[q] = in[K + 1 + q];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunSetState(SRRun r, const double *ds, const PetscInt *is)
{
  const PetscInt  P = r->P, K = r->K;
  SRSuccessorList C, T;

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
  PetscCall(SRRunListUnpack_Private(r->comm, K, is + SR_RUN_NHEAD, &C));
  PetscCall(SRRunListUnpack_Private(r->comm, K, is + SR_RUN_NHEAD + (K + 1) + K * (K + 1), &T));
  PetscCall(SRAbstractionSetLists(r->abs, &C, &T));
  if (r->status != SR_RUN_DIVERGED) PetscCall(SRRunSaveVerified_Private(r)); /* the checkpoint's triple */
  PetscCall(SRSuccessorListDestroy(&C));
  PetscCall(SRSuccessorListDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}
