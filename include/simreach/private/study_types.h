/* The study object (src/study/study.c, study_options.c; SPEC §9): types only, shared by the
   sweep and its options. */
#pragma once

/* struct sigaction: POSIX */
#include <simreach/private/results.h>
#include <simreach/private/filelock.h>
#include <signal.h>

struct _p_SRStudy {
  MPI_Comm        comm;
  SRResultsLayout lay;
  PetscInt        cell_ranks, slice, nslices;
  PetscInt        recheck_store; /* non-proven cells stored per checkpoint row (SPEC §11) */
  char            output[PETSC_MAX_PATH_LEN];
  PetscBool       resume, force, setfromoptions;
  char           *options, *canonical;
  SRRun           proto; /* reads and checks every run option up front; gives the sizes */
  SRFileLock      lock;  /* one study per results file (SPEC §13) */
  PetscBool       fresh; /* the file was created by this start: every run is pending */
  PetscBool       test_hold; /* SIMREACH_TEST_PAUSE=study_checkpoint and fresh: see StudyTestHold_Private */
  struct sigaction old_term, old_usr1, old_int;
  PetscLogEvent   ev_write, ev_file; /* HDF5 I/O: per-checkpoint writes, file creation / gather */
};
