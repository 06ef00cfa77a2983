/* simreach check FILE.h5: re-verify every stored triple (network, cells, C(k)) of a results
   file with the three-outcome re-check of SPEC §11 (src/abstraction/recheck.c), cells distributed over
   the ranks.

     simreach check results.h5 [-recheck_depth d] [-recheck_boxes b] [-falsify_samples s]
                               [-attack_steps a] [-max_print m] [-run r]

   Per run: the triple of each valid resume slot (the last checkpoint and the one before) and
   the final triple (/runs/network, /runs/cells, /runs/successor_*), the latter skipped when it
   is bit-identical to the last slot's.  Prints per triple the proven / falsified / unknown
   counts and the failing cells with their witness x and the directed-rounding enclosure of
   f(x).  Exit code 0 only when every cell of every triple is proven, 1 otherwise. */
#include <simreach/private/commands.h>
#include <simreach/private/h5attr.h>
#include <simreach/verify.h>
#include <simreach/private/results.h>
#include <simreach/private/closedloop_file.h>
#include <simreach/private/tubes_file.h>
#include <simreach/private/run.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  PetscInt triples, cells, proven, falsified, unknown;
  double   seconds, boxes;
} SRCheckTotals_Private;

static PetscErrorCode SRCheckTriple_Private(MPI_Comm comm, SRRun run, const SRRecheckParams *par0, const char label[], PetscInt max_print, SRCheckTotals_Private *tot)
{
  SRRecheckParams        par = *par0;
  SRRecheckResult        res;

  PetscFunctionBeginUser;
  par.builder = run->enclosure;
  par.seed    = (uint64_t)run->seed;
  PetscCall(SRRecheckAllCertified(comm, run->model, run->cells, run->abs, &par, &res));
  PetscCall(PetscPrintf(comm, "  %s: %" PetscInt_FMT " cells: %" PetscInt_FMT " proven, %" PetscInt_FMT " falsified, %" PetscInt_FMT " unknown (%.0f enclosures, at most %" PetscInt_FMT " per cell; %.3g s)\n", label, res.K, res.proven, res.falsified, res.unknown, res.boxes, res.boxes_max, res.seconds));
  PetscCall(SRRecheckResultView(&res, run->n, max_print, PETSC_VIEWER_STDOUT_(comm)));
  tot->triples++;
  tot->cells += res.K;
  tot->proven += res.proven;
  tot->falsified += res.falsified;
  tot->unknown += res.unknown;
  tot->seconds += res.seconds;
  tot->boxes += res.boxes;
  PetscCall(SRRecheckResultDestroy(&res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* theta equal bit for bit to the initial grid's: the cells are the grid boxes (grid flag). */
static PetscErrorCode SRCheckIsGrid_Private(SRRun run, const double *theta, PetscBool *grid)
{
  SRCells        g;
  const PetscInt nK = run->n * run->K;

  PetscFunctionBeginUser;
  PetscCall(SRCellsCreateGrid(run->sys, run->counts, &g));
  *grid = PETSC_TRUE;
  for (PetscInt i = 0; i < nK; i++)
    if (g->c[i] != theta[i] || g->w[i] != theta[nK + i]) *grid = PETSC_FALSE;
  PetscCall(SRCellsDestroy(&g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before any proving (SPEC §11, §13): every resume slot the check reads and every final triple
   are whole.  A slot never written (with one checkpoint, slot 0) is skipped; a written one that
   fails its checksum, like any other written row that does, is refused in one line (exit 2) on
   comm: every rank reads the same bytes, so all leave through the normal path together. */
static PetscErrorCode SRCheckStored_Private(MPI_Comm comm, SRResults res, const char file[], PetscInt only, PetscInt nd, PetscInt ni)
{
  const SRResultsLayout *lay;
  double                *d;
  PetscInt              *iv;

  PetscFunctionBeginUser;
  PetscCall(SRResultsGetLayout(res, &lay));
  PetscCall(PetscMalloc2(nd + 1, &d, ni + 1, &iv));
  for (PetscInt r = 0; r < lay->nruns; r++) {
    PetscInt          status, last, slot;
    SRSlotState       st;
    SRResultsRunCheck chk;

    if (only >= 0 && r != only) continue;
    PetscCall(SRResultsReadRunInfo(res, r, &status, &last, &slot));
    if (last >= 0 && (slot == 0 || slot == 1)) {
      PetscCall(SRResultsReadSlot(res, r, slot, d, iv, &st));
      PetscCheck(st != SR_SLOT_DAMAGED, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": resume slot %" PetscInt_FMT " (/runs/state_double, /runs/state_int; checkpoint %" PetscInt_FMT ") fails its checksum (the file is damaged): its triple cannot be re-proven -> NOT FULLY VERIFIED", file, r, slot, last);
      PetscCheck(st != SR_SLOT_EMPTY, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": /runs/resume names checkpoint %" PetscInt_FMT " in slot %" PetscInt_FMT ", which was never written (the file is damaged) -> NOT FULLY VERIFIED", file, r, last, slot);
      if (last - 1 >= 1) { /* the other slot holds checkpoint last - 1 (checkpoint 0 is never stored) */
        PetscCall(SRResultsReadSlot(res, r, 1 - slot, d, iv, &st));
        PetscCheck(st != SR_SLOT_DAMAGED, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": resume slot %" PetscInt_FMT " (/runs/state_double, /runs/state_int) fails its checksum (the file is damaged): its triple cannot be re-proven -> NOT FULLY VERIFIED", file, r, 1 - slot);
      }
    }
    PetscCall(SRResultsAbstractionState(res, r, PETSC_FALSE, &st));
    PetscCheck(st != SR_SLOT_DAMAGED, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": the final triple (/runs/network, /runs/cells, /runs/successor_box) fails its checksum (the file is damaged): it cannot be re-proven -> NOT FULLY VERIFIED", file, r);
    PetscCall(SRResultsCheckRun(res, r, PETSC_FALSE, &chk));
    PetscCheck(chk.nbad == 0, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: run %" PetscInt_FMT ": %" PetscInt_FMT " written row(s) fail their checksum (the file is damaged; simreach gather %s names them): its stored triples cannot all be re-proven -> NOT FULLY VERIFIED", file, r, chk.nbad, file);
  }
  PetscCall(PetscFree2(d, iv));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRCommandCheck(MPI_Comm comm, const char file[], int *exit_code)
{
  SRResults              res;
  const SRResultsLayout *lay;
  SRRecheckParams        par;
  char                  *text;
  PetscOptions           opts;
  PetscInt               max_print = 20, only = -1, nd, ni;
  PetscBool              only_set;
  SRCheckTotals_Private  tot;
  double                *ds, *ds2, *dsl, *ds0, *theta;
  PetscInt              *is, *is2, *isl, *is0;
  SRSuccessorList        Cf;

  PetscFunctionBeginUser;
  *exit_code = SR_EXIT_UNPROVEN;
  if (file) PetscCall(SRH5CheckTruncated(comm, file)); /* named as truncated, whatever its kind (issue 34) */
  if (file) { /* an abstraction file of simreach verify: its own re-check (src/commands/command_verify.c) */
    PetscBool abs_file;
    PetscCall(SRAbstractionFileProbe(comm, file, &abs_file));
    if (abs_file) {
      PetscCall(SRCommandCheckAbstraction(comm, file, exit_code));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(SRSafetyFileProbe(comm, file, &abs_file));
    if (abs_file) {
      PetscCall(SRCommandCheckSafety(comm, file, exit_code));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(SRTubesFileProbe(file, &abs_file));
    if (abs_file) {
      PetscCall(SRCommandCheckTubes(comm, file, exit_code));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  PetscCall(PetscMemzero(&tot, sizeof(tot)));
  PetscCall(SRRecheckParamsSetDefault(&par));
  PetscCall(SRRecheckParamsSetFromOptions(comm, &par));
  PetscOptionsBegin(comm, NULL, "simreach check (SPEC §11)", NULL);
  PetscCall(PetscOptionsInt("-max_print", "failing cells printed per triple, >= 0", NULL, max_print, &max_print, NULL));
  PetscCall(PetscOptionsInt("-run", "check only this run index", NULL, only, &only, &only_set));
  PetscOptionsEnd();
  PetscCheck(max_print >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-max_print %" PetscInt_FMT ": allowed is >= 0", max_print);
  PetscCall(SRCheckUnusedOptions(comm));
  PetscCheck(file, comm, PETSC_ERR_ARG_WRONG, "simreach check: give the results file (simreach check results.h5)");
  PetscCall(SRResultsOpen(comm, file, PETSC_FALSE, &res));
  PetscCall(SRResultsGetLayout(res, &lay));
  PetscCheck(!only_set || (only >= 0 && only < lay->nruns), comm, PETSC_ERR_ARG_OUTOFRANGE, "-run %" PetscInt_FMT ": %s has runs 0..%" PetscInt_FMT, only, file, lay->nruns - 1);
  PetscCall(SRResultsGetOptionsText(res, &text));
  PetscCall(PetscOptionsCreate(&opts));
  PetscCall(PetscOptionsInsertString(opts, text));
  PetscCall(PetscFree(text));
  /* the study's lists are the file's grid; no warm start is needed to hold a stored triple */
  PetscCall(PetscOptionsClearValue(opts, "-beta"));
  PetscCall(PetscOptionsClearValue(opts, "-tau"));
  PetscCall(PetscOptionsSetValue(opts, "-pretrain_epochs", "0"));
  PetscCall(PetscOptionsSetValue(opts, "-quiet", "1"));
  PetscCall(SRCheckStored_Private(comm, res, file, only_set ? only : -1, lay->ndstate, lay->nistate));
  PetscCall(PetscPrintf(comm, "simreach check %s: %" PetscInt_FMT " runs, %" PetscInt_FMT " cells each (re-check: depth %" PetscInt_FMT ", %" PetscInt_FMT " enclosures per cell, %" PetscInt_FMT " samples, %" PetscInt_FMT " attack steps)\n", file, lay->nruns, lay->K, par.depth, par.max_boxes, par.samples,
                        par.attack_steps));
  for (PetscInt r = 0; r < lay->nruns; r++) {
    SRRun    run;
    PetscInt status, last, slot, ib = r / (lay->ntau * lay->nseed), it = (r / lay->nseed) % lay->ntau, isd = r % lay->nseed;
    char     reason[SR_RESULTS_REASON_LEN], label[128];
    PetscBool have_slot = PETSC_FALSE, finite = PETSC_TRUE, same = PETSC_TRUE, grid = PETSC_FALSE;

    if (only_set && r != only) continue;
    PetscCall(SRResultsReadRunInfo(res, r, &status, &last, &slot));
    PetscCall(SRResultsReadReason(res, r, reason));
    PetscCall(PetscOptionsPush(opts));
    PetscCall(SRRunCreate(comm, &run));
    PetscCall(SRRunSetFromOptions(run));
    PetscCall(SRRunSetGridPoint(run, lay->beta[ib], lay->tau[it], lay->seed[isd]));
    PetscCall(SRRunSetUp(run));
    PetscCall(PetscOptionsPop());
    PetscCall(SRRunGetStateSizes(run, &nd, &ni));
    PetscCheck(nd == lay->ndstate && ni == lay->nistate, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: the stored state has %" PetscInt_FMT " + %" PetscInt_FMT " numbers, its options give %" PetscInt_FMT " + %" PetscInt_FMT, file, lay->ndstate, lay->nistate, nd, ni);
    PetscCall(PetscMalloc4(nd, &ds, ni, &is, nd, &ds2, ni, &is2));
    PetscCall(PetscMalloc4(nd, &dsl, ni, &isl, nd, &ds0, ni, &is0));
    PetscCall(SRRunGetState(run, ds0, is0)); /* the set-up state: a template */
    /* C's %g (PETSc's prints 0 as "0.") */
    snprintf(label, sizeof(label), "run %lld (beta %g, tau %g, seed %lld)", (long long)r, lay->beta[ib], lay->tau[it], (long long)lay->seed[isd]);
    PetscCall(PetscPrintf(comm, "%s: %s (%s)\n", label, SRRunStatusNames[PetscMax(0, PetscMin(status, 4))], reason));
    /* the checkpoint slots: the last one, and the other if it holds the checkpoint before */
    if (last >= 0 && (slot == 0 || slot == 1)) {
      for (PetscInt s = 0; s < 2; s++) {
        const PetscInt sl = s == 0 ? slot : 1 - slot;
        SRSlotState    st;
        if (s == 1 && last - 1 < 1) continue; /* checkpoint 0 is never stored: the slot may never have been written */
        PetscCall(SRResultsReadSlot(res, r, sl, ds2, is2, &st));
        if (st != SR_SLOT_OK) continue; /* never written (damaged ones were refused above) */
        if (s == 1 && is2[0] != last - 1) continue;
        PetscCall(SRRunSetState(run, ds2, is2));
        PetscCall(PetscSNPrintf(label, sizeof(label), "checkpoint %" PetscInt_FMT " (resume slot %" PetscInt_FMT ")", is2[0], sl));
        PetscCall(SRCheckTriple_Private(comm, run, &par, label, max_print, &tot));
        if (s == 0) {
          PetscCall(PetscArraycpy(dsl, ds2, nd));
          PetscCall(PetscArraycpy(isl, is2, ni));
          have_slot = PETSC_TRUE;
        }
      }
    }
    /* the final triple: network, cells (stored as (c, w)), lists (written when the run finished
       or diverged).  The run's cells are rebuilt from a stored state whose cells give exactly
       these (c, w): the last slot's or the set-up one (a partition is its boundaries; free
       boxes are (c, w) themselves). */
    if (status == SR_RUN_DONE || status == SR_RUN_DIVERGED) {
      PetscCall(SRResultsReadNetwork(res, r, ds2));
      for (PetscInt p = 0; p < lay->nparams; p++)
        if (!isfinite(ds2[p])) finite = PETSC_FALSE;
      if (!finite) PetscCall(PetscPrintf(comm, "  final triple: no network stored (nothing verified to keep)\n"));
      else {
        PetscBool found = PETSC_FALSE;
        PetscCall(PetscMalloc1(lay->ntheta, &theta));
        Cf.ptr = Cf.idx = NULL;
        PetscCall(SRResultsReadAbstraction(res, r, run->cells, theta, &Cf));
        for (PetscInt cand = 0; cand < 3 && !found; cand++) {
          if (cand == 0 && !have_slot) continue;
          if (cand == 2 && run->cells->partition) continue;
          PetscCall(PetscArraycpy(ds, cand == 0 ? dsl : ds0, nd));
          PetscCall(PetscArraycpy(is, cand == 0 ? isl : is0, ni));
          if (cand == 2) { /* free boxes: (c, w) is the state's theta; the grid flag when it is the grid's */
            PetscCall(PetscArraycpy(ds + 3 * lay->nparams, theta, lay->ntheta));
            PetscCall(SRCheckIsGrid_Private(run, theta, &grid));
            is[3] = grid ? 1 : 0;
          }
          PetscCall(PetscArraycpy(ds, ds2, lay->nparams));
          is[8] = SR_RUN_PENDING;
          PetscCall(SRRunSetState(run, ds, is));
          found = PETSC_TRUE;
          if (run->cells->partition) { /* the stored theta of a partition is its interior boundaries */
            double        *pt;
            const PetscInt nt = SRCellsPartitionNumTheta(run->cells);
            PetscCall(PetscMalloc1(nt + 1, &pt));
            SRCellsPartitionGetTheta(run->cells, pt);
            for (PetscInt i = 0; i < nt && found; i++)
              if (pt[i] != theta[i]) found = PETSC_FALSE;
            PetscCall(PetscFree(pt));
          } else
            for (PetscInt i = 0; i < lay->K * run->n && found; i++)
              if (run->cells->c[i] != theta[i] || run->cells->w[i] != theta[lay->K * run->n + i]) found = PETSC_FALSE;
          if (found && cand == 0) { /* the slot's triple itself? */
            const PetscInt *rows;
            PetscInt       *rows_f, nr = lay->K * (2 * run->n + 1);
            same = PETSC_TRUE;
            for (PetscInt p = 0; p < lay->nparams && same; p++)
              if (ds2[p] != dsl[p]) same = PETSC_FALSE;
            PetscCall(SRAbstractionGetCertifiedBoxes(run->abs, run->cells, &rows));
            PetscCall(PetscMalloc1(nr, &rows_f));
            PetscCall(SRSuccessorListToBoxes(run->cells, &Cf, rows_f));
            for (PetscInt q = 0; q < nr && same; q++)
              if (rows[q] != rows_f[q]) same = PETSC_FALSE;
            PetscCall(PetscFree(rows_f));
          } else same = PETSC_FALSE;
        }
        if (!found) {
          PetscCall(PetscPrintf(comm, "  final triple: its cells are none of the stored states' (partition boundaries cannot be recovered from (c, w)): %" PetscInt_FMT " cells unknown\n", lay->K));
          tot.triples++;
          tot.cells += lay->K;
          tot.unknown += lay->K;
        } else if (same) PetscCall(PetscPrintf(comm, "  final triple: identical to checkpoint %" PetscInt_FMT "'s (checked above)\n", isl[0]));
        else {
          SRSuccessorList T = {0};
          PetscCall(SRSuccessorListCopy(&Cf, &T));
          PetscCall(SRAbstractionSetLists(run->abs, &Cf, &T));
          PetscCall(SRSuccessorListDestroy(&T));
          PetscCall(SRCheckTriple_Private(comm, run, &par, "final triple", max_print, &tot));
        }
        PetscCall(SRSuccessorListDestroy(&Cf));
        PetscCall(PetscFree(theta));
      }
    } else if (!have_slot) PetscCall(PetscPrintf(comm, "  nothing stored yet\n"));
    PetscCall(PetscFree4(ds, is, ds2, is2));
    PetscCall(PetscFree4(dsl, isl, ds0, is0));
    PetscCall(SRRunDestroy(&run));
  }
  PetscCall(PetscOptionsDestroy(&opts));
  PetscCall(SRResultsDestroy(&res));
  PetscCall(PetscPrintf(comm, "simreach check: %" PetscInt_FMT " triples, %" PetscInt_FMT " cells: %" PetscInt_FMT " proven, %" PetscInt_FMT " falsified, %" PetscInt_FMT " unknown (%.3g s, %.3g ms per cell) -> %s\n", tot.triples, tot.cells, tot.proven, tot.falsified, tot.unknown, tot.seconds,
                        tot.cells ? 1e3 * tot.seconds / tot.cells : 0.0, tot.falsified ? "FALSIFIED" : (tot.unknown ? "NOT FULLY VERIFIED" : (tot.triples ? "every cell proven" : "no stored triple to check"))));
  *exit_code = (tot.falsified == 0 && tot.unknown == 0) ? SR_EXIT_OK : SR_EXIT_UNPROVEN;
  PetscFunctionReturn(PETSC_SUCCESS);
}
