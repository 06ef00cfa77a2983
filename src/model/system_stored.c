/* The closed loop a stored network belongs to (SPEC §13): a network file (format 3) and an
   abstraction file state the system's constants, its control bound u_max and control_steps; a
   system made from the options takes them, and an option that says otherwise is refused. */
#include <simreach/system.h>
#include <string.h>

typedef struct {
  const char *sys, *opt;
  int         what; /* 0..2: param[what], 3: dt, 4: umax */
} SRStoredOpt_Private;

static const SRStoredOpt_Private SRStoredOpts[] = {
  {"toy1d", "-toy1d_a", 0},       {"toy1d", "-toy1d_b", 1},          {"toy1d", "-toy1d_k", 2},
  {"pendulum", "-pendulum_g", 0}, {"pendulum", "-pendulum_b", 1},    {"pendulum", "-pendulum_dt", 3},
  {"pendulum", "-pendulum_umax", 4}, {"dubins", "-dubins_v", 0},     {"dubins", "-dubins_dt", 3},
  {"dubins", "-dubins_umax", 4},
};

PetscErrorCode SRSystemAdoptStored(MPI_Comm comm, SRSystem sys, const double param[3], double dt, double umax, PetscInt control_steps, const char what[])
{
  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(SRStoredOpts) / sizeof(SRStoredOpts[0]); i++) {
    const SRStoredOpt_Private *o = &SRStoredOpts[i];
    const double               stored = o->what < 3 ? param[o->what] : (o->what == 3 ? dt : umax);
    double                    *mine   = o->what < 3 ? &sys->param[o->what] : (o->what == 3 ? &sys->dt : &sys->umax);
    PetscBool                  set;
    if (strcmp(o->sys, sys->name)) continue;
    PetscCall(PetscOptionsHasName(NULL, NULL, o->opt, &set));
    PetscCheck(!set || *mine == stored, comm, PETSC_ERR_ARG_INCOMP, "%s %.17g: %s states %.17g (the closed loop it belongs to, SPEC §13); leave the option out", o->opt, *mine, what, stored);
    PetscCheck(isfinite(stored) && (o->what < 3 || stored > 0), comm, PETSC_ERR_FILE_UNEXPECTED, "%s: the stored %s is %g; must be finite%s", what, o->opt + 1, stored, o->what < 3 ? "" : " and > 0");
    *mine = stored;
  }
  if (control_steps > 0) {
    PetscBool set;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-control_steps", &set));
    PetscCheck(!set || sys->control_steps == control_steps, comm, PETSC_ERR_ARG_INCOMP, "-control_steps %" PetscInt_FMT ": %s states -control_steps %" PetscInt_FMT " (the closed loop it belongs to, SPEC §13); leave the option out", sys->control_steps, what, control_steps);
    PetscCheck(control_steps <= SR_MAX_CONTROL_STEPS, comm, PETSC_ERR_FILE_UNEXPECTED, "%s: the stored control_steps is %" PetscInt_FMT "; allowed is 1..%d", what, control_steps, SR_MAX_CONTROL_STEPS);
  }
  /* the gain and its radius follow the constants; the reference plays no part in a stored network */
  PetscCall(SRSystemSetControlSteps(comm, sys, control_steps > 0 ? control_steps : sys->control_steps, PETSC_FALSE));
  PetscFunctionReturn(PETSC_SUCCESS);
}
