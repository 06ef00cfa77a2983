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
  SRModel      model;
  SRCells      cells;
  PetscBool    on; /* models pay here at all */
  PetscInt     k0, nb; /* the block held: cells [k0, k0 + nb) */
  PetscInt     skip; /* blocks still to go without models */
  PetscInt     samples, decided; /* samples per cell; decided in the block held */
  SRCellModel  cm[SR_ENC_BLOCK];
  double       E[2 * SR_MAX_DIM * SR_ENC_BLOCK];
  SRCellStatus st[SR_ENC_BLOCK];
};

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
    if (tm->skip == 0) PetscCall(SREnclosureComputeModels(tm->model, SR_ENCLOSURE_TAYLOR1, tm->cells, k, k + tm->nb, tm->E, tm->st, tm->cm));
  }
  if (tm->skip > 0) PetscFunctionReturn(PETSC_SUCCESS);
  *cm      = &tm->cm[k - tm->k0];
  *decided = &tm->decided;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRTargetModelsDestroy(SRTargetModels *tm)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree(*tm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
