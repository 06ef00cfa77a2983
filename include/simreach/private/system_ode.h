/* One control period of a continuous-time plant with the control held (SPEC §15, §16): what a
   system made from a plant file with 'der' lines steps by (src/model/system_plant.c).
   Provided by src/model/system_ode.c (the validated flow of src/model/flow.c). */
#pragma once

#include <simreach/plant.h>

/* Collective on comm: refuses (one line) a plant whose period the flow cannot take; called once
   when a system is made from the plant. */
PetscErrorCode SRPlantPeriodSetUp(MPI_Comm comm, const SRPlant *pl);
/* y = x(T) from x(0) = x, u held (non-validated: sampling and training). */
void SRPlantPeriodSimulate(const SRPlant *pl, const double *x, const double *u, double *y);
/* Sound: Y contains x(T) for every x(0) in X, u in U; false when no enclosure was found. */
bool SRPlantPeriodEnclose(const SRPlant *pl, const SRInterval *X, const SRInterval *U, SRInterval *Y);
/* Jx = dx(T)/dx(0) (n x n), Ju = dx(T)/du (n x nu), row-major (non-validated). */
void SRPlantPeriodJacobian(const SRPlant *pl, const double *x, const double *u, double *Jx, double *Ju);
