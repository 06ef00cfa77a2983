/* How a file records the system it was made for (SPEC §13, §16): a shipped system by its name
   (toy1d, pendulum, dubins), a plant file's system (name "plant") by the file's path and the
   digest of its text and constants (SRSystem.plant_digest).  Whoever re-proves a file makes the
   system again (from -plant if given, else from the recorded path) and refuses, in one line, a
   plant whose digest differs.  The HDF5 attributes "plant" and "plant_digest" are written by
   the file layouts themselves (network_file.c, abstraction_write.c, safety_file.c). */
#include <simreach/system.h>

PetscErrorCode SRSystemCheckDigest(MPI_Comm comm, SRSystem sys, const char recorded[], uint64_t digest, const char what[])
{
  PetscFunctionBeginUser;
  PetscCheck(sys->plant_digest == digest, comm, PETSC_ERR_ARG_INCOMP, "%s was made from the plant file %s with digest %016llx; the plant read now (%s, its constants as options) has digest %016llx: give -plant with the file it was made from and the same -plant_CONST options", what, recorded,
             (unsigned long long)digest, sys->plant_path, (unsigned long long)sys->plant_digest);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRSystemCreateStored(MPI_Comm comm, const char sysname[], const char plant[], const char prefix[], SRSystem *sys)
{
  PetscBool is_plant;

  PetscFunctionBeginUser;
  PetscCall(PetscStrcmp(sysname, "plant", &is_plant));
  if (is_plant) {
    char      pp[PETSC_MAX_PATH_LEN];
    PetscBool set;
    PetscCall(PetscStrncpy(pp, plant, sizeof pp));
    PetscCall(PetscOptionsGetString(NULL, NULL, "-plant", pp, sizeof pp, &set));
    PetscCall(SRSystemCreateFromPlantFile(comm, pp, prefix, sys));
  } else PetscCall(SRSystemCreate(comm, sysname, prefix, sys));
  PetscFunctionReturn(PETSC_SUCCESS);
}
