/* A stub until the period of a continuous-time plant is enclosed (SPEC §16, issue 36 item 2;
   include/simreach/private/system_ode.h): a plant with 'der' lines is refused when a system is
   made from it, in one line. */
#include <simreach/private/system_ode.h>

#include <math.h>

PetscErrorCode SRPlantPeriodSetUp(MPI_Comm comm, const SRPlant *pl)
{
  PetscFunctionBeginUser;
  SETERRQ(comm, PETSC_ERR_ARG_WRONG, "plant file %s: a continuous-time plant ('der' lines) is not yet taken by study, train, abstract, verify, check, safe or reach (closedloop takes it); give a discrete-time plant ('next' lines)", pl->path);
}

void SRPlantPeriodSimulate(const SRPlant *pl, const double *x, const double *u, double *y)
{
  for (int i = 0; i < pl->n; i++) y[i] = NAN;
}

bool SRPlantPeriodEnclose(const SRPlant *pl, const SRInterval *X, const SRInterval *U, SRInterval *Y) { return false; }

void SRPlantPeriodJacobian(const SRPlant *pl, const double *x, const double *u, double *Jx, double *Ju)
{
  for (int i = 0; i < pl->n * pl->n; i++) Jx[i] = NAN;
  for (int i = 0; i < pl->n * pl->nu; i++) Ju[i] = NAN;
}
