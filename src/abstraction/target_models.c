/* The cells' first-order Taylor models behind the target samples (SPEC §5, §6), made one block
   of SR_ENC_BLOCK cells at a time by the batched kernel.  A model decides the cell of most
   samples' images without the network (src/abstraction/cellmodel.c) and costs about as much as
   6 to 8 network evaluations; where it decides less than half of a block's samples (wide cells,
   large remainders) the next SR_TM_SKIP blocks are sampled without models.  The answers are the
   same either way: only the cost changes. */
#include <simreach/private/target_models.h>
#include <simreach/private/enclosure.h>

#define SR_TM_SKIP 15

struct _p_SRTargetModels {
  SRModel             model;
  SRCells             cells;
  PetscBool           on; /* models pay here at all */
  PetscInt            k0, nb; /* the block held: cells [k0, k0 + nb) */
  PetscInt            skip; /* blocks still to go without models */
  PetscInt            samples, decided; /* samples per cell; decided in the block held */
  SRCellModel         cm[SR_ENC_BLOCK];
  double              E[2 * SR_MAX_DIM * SR_ENC_BLOCK];
  SRCellStatus        st[SR_ENC_BLOCK];
  SRModelBlockHook    hook; /* every block to it as well (enclosure both) */
  void               *hook_ctx;
  SREnclosureType     etype; /* the caller's boxes E0, st0 of the cells from k0base on */
  const double       *E0;
  const SRCellStatus *st0;
  PetscInt            k0base;
  double              Et[2 * SR_MAX_DIM * SR_ENC_BLOCK];
};

/* The block's models and enclosure both: the caller's interval (or both) boxes reused. */
static PetscErrorCode SRTargetModelsBoth_Private(SRTargetModels tm, PetscInt k, PetscInt nb)
{
  const PetscInt n = tm->cells->n;

  PetscFunctionBeginUser;
  if (!tm->E0 || tm->etype == SR_ENCLOSURE_TAYLOR1) {
    PetscCall(SREnclosureComputeModels(tm->model, SR_ENCLOSURE_BOTH, tm->cells, k, k + nb, tm->E, tm->st, tm->cm));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SREnclosureComputeModels(tm->model, SR_ENCLOSURE_TAYLOR1, tm->cells, k, k + nb, tm->Et, tm->st, tm->cm));
  PetscCall(PetscArraycpy(tm->E, tm->E0 + 2 * n * (k - tm->k0base), 2 * n * nb));
  PetscCall(PetscArraycpy(tm->st, tm->st0 + (k - tm->k0base), nb));
  if (tm->etype == SR_ENCLOSURE_INTERVAL) SREnclosureIntersectBoth(n, nb, tm->E, tm->st, tm->Et);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTargetModelsCreate(SRModel model, SRCells cells, const SRTargetParams *tp, PetscBool want_distinct, SRTargetModels *tm)
{
  SRTargetModels t;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&t));
  t->model   = model;
  t->cells   = cells;
  t->samples = tp->samples;
  t->on      = (PetscBool)((tp->type == SR_TARGET_EMPIRICAL || want_distinct) && (cells->grid_aligned || cells->partition) && tp->samples >= SR_TARGET_MODEL_MIN_SAMPLES);
  t->k0      = -1;
  *tm        = t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTargetModelsGet(SRTargetModels tm, PetscInt k, PetscInt kend, const SRCellModel **cm, PetscInt **decided)
{
  PetscFunctionBeginUser;
  *cm      = NULL;
  *decided = NULL;
  if (!tm->on) PetscFunctionReturn(PETSC_SUCCESS);
  if (tm->k0 < 0 || k < tm->k0 || k >= tm->k0 + tm->nb) { /* the next block */
    const PetscBool had = (PetscBool)(tm->k0 >= 0 && tm->skip == 0);
    if (had && 2 * tm->decided < tm->samples * tm->nb) tm->skip = SR_TM_SKIP + 1;
    if (tm->skip > 0) tm->skip--;
    tm->k0      = k;
    tm->nb      = PetscMin((PetscInt)SR_ENC_BLOCK, kend - k);
    tm->decided = 0;
    if (tm->hook) tm->skip = 0;
    if (tm->hook) {
      PetscCall(SRTargetModelsBoth_Private(tm, k, tm->nb));
      PetscCall(tm->hook(tm->hook_ctx, k, tm->nb, tm->E, tm->st, tm->cm));
    } else if (tm->skip == 0)
      PetscCall(SREnclosureComputeModels(tm->model, SR_ENCLOSURE_TAYLOR1, tm->cells, k, k + tm->nb, tm->E, tm->st, tm->cm));
  }
  if (tm->skip > 0) PetscFunctionReturn(PETSC_SUCCESS);
  *cm      = &tm->cm[k - tm->k0];
  *decided = &tm->decided;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTargetModelsSetHook(SRTargetModels tm, SRModelBlockHook hook, void *ctx, SREnclosureType etype, const double *E0, const SRCellStatus *st0, PetscInt k0)
{
  PetscFunctionBeginUser;
  tm->hook     = hook;
  tm->hook_ctx = ctx;
  tm->etype    = etype;
  tm->E0       = E0;
  tm->st0      = st0;
  tm->k0base   = k0;
  if (hook) tm->on = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTargetModelsDestroy(SRTargetModels *tm)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(*tm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
