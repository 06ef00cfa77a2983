/* The run's re-check of its current triple (SPEC §8, §11) and the last verified triple it falls
   back to (moved from src/abstraction/recheck.c: it works on the run, so it lives in the train
   layer; the re-check itself stays in the abstraction layer). */
#include <simreach/private/run.h>
#include <simreach/recheck.h>

PetscErrorCode SRRunRecheck(SRRun r, SRRecheckResult *res)
{
  SRRecheckParams        par;

  static PetscLogEvent ev = 0;

  PetscFunctionBeginUser;
  PetscCheck(r->setup, r->comm, PETSC_ERR_ORDER, "SRRunRecheck: call SRRunSetUp first");
  if (!ev) PetscCall(PetscLogEventRegister("SRRunRecheck", 0, &ev));
  PetscCall(PetscLogEventBegin(ev, 0, 0, 0, 0));
  PetscCall(SRRecheckParamsSetDefault(&par));
  par.builder      = r->enclosure;
  par.depth        = r->recheck_depth;
  par.max_boxes    = r->recheck_boxes;
  par.samples      = r->nfalsify;
  par.attack_steps = r->attack_steps;
  par.seed         = (uint64_t)r->seed;
  PetscCall(SRRecheckAllCertified(r->comm, r->model, r->cells, r->abs, &par, res));
  PetscCall(PetscLogEventEnd(ev, 0, 0, 0, 0));
  if (!r->quiet && (res->falsified || res->unknown)) {
    PetscCall(PetscPrintf(r->comm, "re-check: %" PetscInt_FMT " proven, %" PetscInt_FMT " falsified, %" PetscInt_FMT " unknown (%.3g s)\n", res->proven, res->falsified, res->unknown, res->seconds));
    PetscCall(SRRecheckResultView(res, r->n, 10, PETSC_VIEWER_STDOUT_(r->comm)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The checkpoint columns: recheck_failures = cells not proven (falsified + unknown), falsified. */
PetscErrorCode SRRunRecheck_Private(SRRun r, PetscInt *nrecheck, PetscInt *nfalsified)
{
  SRRecheckResult res;

  PetscFunctionBeginUser;
  PetscCall(SRRunRecheck(r, &res));
  *nrecheck   = res.falsified + res.unknown;
  *nfalsified = res.falsified;
  PetscCall(SRRecheckResultDestroy(&r->recheck_last));
  r->recheck_last = res; /* kept for SRRunGetRecheckCells (the study stores them per row) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunSaveVerified_Private(SRRun r)
{
  PetscFunctionBeginUser;
  if (!r->ver_phi) PetscCall(PetscMalloc1(r->P, &r->ver_phi));
  PetscCall(PetscArraycpy(r->ver_phi, r->model->mlp->params, r->P));
  if (!r->ver_cells) PetscCall(SRCellsDuplicate(r->cells, &r->ver_cells));
  else PetscCall(SRCellsCopy(r->cells, r->ver_cells));
  if (!r->ver_abs) PetscCall(SRAbstractionCreate(r->comm, &r->ver_abs));
  PetscCall(SRAbstractionCopyLists(r->abs, r->ver_abs));
  r->has_verified = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunRestoreVerified_Private(SRRun r)
{
  PetscFunctionBeginUser;
  if (!r->has_verified) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscArraycpy(r->model->mlp->params, r->ver_phi, r->P));
  PetscCall(SRCellsCopy(r->ver_cells, r->cells));
  PetscCall(SRAbstractionCopyLists(r->ver_abs, r->abs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunHasVerifiedTriple(SRRun r, PetscBool *has)
{
  PetscFunctionBeginUser;
  *has = r->has_verified;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunGetRecheckCells(SRRun r, PetscInt *n, const SRRecheckCellResult **cells)
{
  PetscFunctionBeginUser;
  *n     = r->recheck_last.nfail;
  *cells = r->recheck_last.fail;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRRunDestroyVerified_Private(SRRun r)
{
  PetscFunctionBeginUser;
  PetscCall(SRRecheckResultDestroy(&r->recheck_last));
  PetscCall(PetscFree(r->ver_phi));
  PetscCall(SRCellsDestroy(&r->ver_cells));
  PetscCall(SRAbstractionDestroy(&r->ver_abs));
  r->has_verified = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}
