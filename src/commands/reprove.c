/* What reach and safe re-prove before they say "verified" (SPEC §11, §12; docs/files.md "What
   each command re-proves"; issue 34): the lists of an abstraction file are re-proven with the
   re-check of simreach check (the batched first stage, about twice the cost of verify), so an
   edited and resealed file cannot lend its lists to a claim.  -reprove false skips it and the
   answer is printed as given the stored lists, with the command that re-proves them. */
#include <simreach/private/commands.h>
#include <simreach/recheck.h>
#include <simreach/verify.h>
#include <stdio.h>

PetscErrorCode SRReproveSource(MPI_Comm comm, const char cmd[], const char file[], PetscBool is_abstraction_file, PetscBool reprove, PetscBool *reproven, char note[], size_t len)
{
  SRRecheckParams     par;
  SRRecheckResult     res;
  SRAbstractionHeader h;

  PetscFunctionBeginUser;
  *reproven = PETSC_FALSE;
  if (!is_abstraction_file) {
    snprintf(note, len, "given the run's stored lists, which its last re-check proved (re-prove them: simreach check %s)", file);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (!reprove) {
    snprintf(note, len, "given the stored lists, not re-proven here (-reprove false; re-prove them: simreach check %s)", file);
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SRRecheckParamsSetDefault(&par));
  PetscCall(SRCheckAbstractionRows(comm, file, &par, &res, &h));
  {
    const PetscInt bad = res.falsified + res.unknown, falsified = res.falsified, unknown = res.unknown;
    const double   secs = res.seconds;
    PetscCall(SRRecheckResultDestroy(&res));
    PetscCheck(bad == 0, comm, SR_ERR_UNSOUND, "%s %s: %" PetscInt_FMT " stored rows do not re-prove (%" PetscInt_FMT " falsified, %" PetscInt_FMT " unknown): its lists are unsound or unproven, nothing is claimed (simreach check %s names the cells)", cmd, file, bad, falsified, unknown, file);
    *reproven = PETSC_TRUE;
    snprintf(note, len, "every one of the %lld stored rows re-proven here (%.3g s)", (long long)h.K, secs);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
