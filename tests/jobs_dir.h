/* The -jobs_dir option of the C tests that read shipped files (jobs/plants, jobs/arch): the
   folder given, or NULL.  Call after PetscInitialize. */
#pragma once

#include <petscsys.h>

static inline PetscErrorCode SRTestJobsDir(const char **jobs_dir)
{
  static char dir[PETSC_MAX_PATH_LEN];
  PetscBool   set = PETSC_FALSE;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-jobs_dir", dir, sizeof(dir), &set));
  *jobs_dir = set ? dir : NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
