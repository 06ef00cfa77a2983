/* The closed loop a stored network belongs to (SPEC §13): a network file (format 3) and an
   abstraction file state the system's constants, its control bound u_max and control_steps; a
   system made from the options takes them, and an option that says otherwise is refused. */
#include <simreach/system.h>
#include <string.h>

/* the stored values map to the plant's constants as SRSystem.pconst says: param[0..2] the file's
   first three constants other than dt and umax, then dt, umax; options -NAME_CONST */
PetscErrorCode SRSystemAdoptStored(MPI_Comm comm, SRSystem sys, const double param[3], double dt, double umax, PetscInt control_steps, const char what[])
{
  PetscFunctionBeginUser;
  for (int k = 0; k < 5; k++) {
    const int    c      = sys->pconst[k];
    const double stored = k < 3 ? param[k] : (k == 3 ? dt : umax);
    double      *mine   = k < 3 ? &sys->param[k] : (k == 3 ? &sys->dt : &sys->umax);
    char         opt[2 * SR_PLANT_NAME + 8];
    PetscBool    set;
    if (c < 0) { /* no constant of the plant holds it: the plant must give the stored value itself */
      PetscCheck(*mine == stored || (k < 3 && stored == 0), comm, PETSC_ERR_ARG_INCOMP, "%s states %s %.17g; the plant file %s gives %.17g (the closed loop it belongs to, SPEC §13)", what, k < 3 ? "a constant" : (k == 3 ? "dt" : "u_max"), stored, sys->plant_path, *mine);
      continue;
    }
    PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_%s", sys->name, sys->plant->cname[c]));
    PetscCall(PetscOptionsHasName(NULL, NULL, opt, &set));
    PetscCheck(!set || *mine == stored, comm, PETSC_ERR_ARG_INCOMP, "%s %.17g: %s states %.17g (the closed loop it belongs to, SPEC §13); leave the option out", opt, *mine, what, stored);
    PetscCheck(isfinite(stored) && (k < 3 || stored > 0), comm, PETSC_ERR_FILE_UNEXPECTED, "%s: the stored %s is %g; must be finite%s", what, opt + 1, stored, k < 3 ? "" : " and > 0");
    *mine = stored;
  }
  if (control_steps > 0) {
    PetscBool set;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-control_steps", &set));
    PetscCheck(!set || sys->control_steps == control_steps, comm, PETSC_ERR_ARG_INCOMP, "-control_steps %" PetscInt_FMT ": %s states -control_steps %" PetscInt_FMT " (the closed loop it belongs to, SPEC §13); leave the option out", sys->control_steps, what, control_steps);
    PetscCheck(control_steps <= SR_MAX_CONTROL_STEPS, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: the stored control_steps is %" PetscInt_FMT "; allowed is 1..%d", what, control_steps, SR_MAX_CONTROL_STEPS);
  }
  /* the plant takes the constants; the gain and its radius follow them; the reference plays no
     part in a stored network */
  if (control_steps > 0) sys->control_steps = control_steps;
  PetscCall(SRSystemRebuild(comm, sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}
