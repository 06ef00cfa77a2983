/* The cells' first-order Taylor models behind the target samples (SPEC §5, §6), made one block
   of SR_ENC_BLOCK cells at a time by the batched kernel.  A model decides the cell of most
   samples' images without the network (src/abstraction/cellmodel.c), but what it costs depends on
   the model and the cells: a few network evaluations for a small cell of a world model, far more
   for a coarse cell of a controller held over ten plant steps (the per-cell Taylor path).  So the
   cost is measured, not assumed: blocks are timed from one to the next (everything the caller does
   for a block included, the same work either way but the samples' evaluations and the models), the
   mean time per cell with and without models is kept in SRTargetModelsStats (held by the
   abstraction, so it carries over from one build to the next), and each block takes the cheaper
   way, each way re-measured on one block in SR_TM_PROBE.  The answers are the same either way:
   only the cost changes. */
#include <simreach/private/target_models.h>
#include <simreach/private/enclosure.h>
#include <petsctime.h>

#define SR_TM_PROBE 64 /* blocks between two measurements of the way not taken */

struct _p_SRTargetModels {
  SRModel              model;
  SRCells              cells;
  PetscBool            on; /* models may be used here at all */
  PetscInt             k0, nb; /* the block held: cells [k0, k0 + nb) */
  PetscBool            use; /* the block held has its models */
  PetscLogDouble       t0; /* when the block held began */
  SRTargetModelsStats *stats; /* the times per cell with and without models (may be NULL: always with) */
  SRCellModel          cm[SR_ENC_BLOCK];
  double               E[2 * SR_MAX_DIM * SR_ENC_BLOCK];
  SRCellStatus         st[SR_ENC_BLOCK];
  SRModelBlockHook     hook; /* every block to it as well (enclosure both) */
  void                *hook_ctx;
  SREnclosureType      etype; /* the caller's boxes E0, st0 of the cells from k0base on */
  const double        *E0;
  const SRCellStatus  *st0;
  PetscInt             k0base;
  double               Et[2 * SR_MAX_DIM * SR_ENC_BLOCK];
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

PetscErrorCode SRTargetModelsCreate(SRModel model, SRCells cells, const SRTargetParams *tp, PetscBool want_distinct, SRTargetModelsStats *stats, SRTargetModels *tm)
{
  SRTargetModels t;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&t));
  t->model   = model;
  t->cells   = cells;
  t->on      = (PetscBool)((tp->type == SR_TARGET_EMPIRICAL || want_distinct) && (cells->grid_aligned || cells->partition));
  t->k0      = -1;
  t->stats   = stats;
  *tm        = t;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block held is done: its time per cell goes to the way it took. */
static PetscErrorCode SRTargetModelsEndBlock_Private(SRTargetModels tm)
{
  PetscLogDouble t1;

  PetscFunctionBeginUser;
  if (tm->k0 < 0 || !tm->stats || tm->hook) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscTime(&t1));
  if (tm->use) {
    tm->stats->t_with = (t1 - tm->t0) / (double)tm->nb;
    tm->stats->n_with++;
  } else {
    tm->stats->t_without = (t1 - tm->t0) / (double)tm->nb;
    tm->stats->n_without++;
  }
  tm->stats->blocks++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With or without models for the next block: each way measured once first, then the cheaper one,
   the other re-measured on one block in SR_TM_PROBE. */
static PetscBool SRTargetModelsChoose_Private(SRTargetModels tm)
{
  SRTargetModelsStats *st = tm->stats;
  PetscBool            cheaper;

  if (tm->hook || !st) return PETSC_TRUE;
  if (st->n_with == 0) return PETSC_TRUE;
  if (st->n_without == 0) return PETSC_FALSE;
  cheaper = (PetscBool)(st->t_with <= st->t_without);
  return (st->blocks % SR_TM_PROBE == SR_TM_PROBE - 1) ? (PetscBool)!cheaper : cheaper;
}

PetscErrorCode SRTargetModelsGet(SRTargetModels tm, PetscInt k, PetscInt kend, const SRCellModel **cm)
{
  PetscFunctionBeginUser;
  *cm = NULL;
  if (!tm->on) PetscFunctionReturn(PETSC_SUCCESS);
  if (tm->k0 < 0 || k < tm->k0 || k >= tm->k0 + tm->nb) { /* the next block */
    PetscCall(SRTargetModelsEndBlock_Private(tm));
    PetscCall(PetscTime(&tm->t0));
    tm->k0      = k;
    tm->nb      = PetscMin((PetscInt)SR_ENC_BLOCK, kend - k);
    tm->use     = SRTargetModelsChoose_Private(tm);
    if (tm->hook) {
      PetscCall(SRTargetModelsBoth_Private(tm, k, tm->nb));
      PetscCall(tm->hook(tm->hook_ctx, k, tm->nb, tm->E, tm->st, tm->cm));
    } else if (tm->use)
      PetscCall(SREnclosureComputeModels(tm->model, SR_ENCLOSURE_TAYLOR1, tm->cells, k, k + tm->nb, tm->E, tm->st, tm->cm));
  }
  if (!tm->use) PetscFunctionReturn(PETSC_SUCCESS);
  *cm = &tm->cm[k - tm->k0];
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
  if (*tm && (*tm)->on) PetscCall(SRTargetModelsEndBlock_Private(*tm));
  PetscCall(PetscFree(*tm));
  PetscFunctionReturn(PETSC_SUCCESS);
}
