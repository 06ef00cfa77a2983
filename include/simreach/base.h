/* simreach: common definitions shared by every object of the library. */
#pragma once

#include <petscsys.h>
#include <stdint.h>

/* PETSc 3.18 (Debian 12) predates PETSC_SUCCESS. */
#ifndef PETSC_SUCCESS
  #define PETSC_SUCCESS 0
#endif

#define SR_VERSION_MAJOR 0
#define SR_VERSION_MINOR 1
#define SR_VERSION_STRING "0.1.0"

/* Error codes of simreach beside PETSc's; main turns them into the documented exit codes
   (README "Exit codes"): SR_ERR_STOPPED -> 83, SR_ERR_UNFINISHED -> 3. */
#define SR_ERR_STOPPED 1001    /* stopped by a signal after writing checkpoints: rerun with -resume */
#define SR_ERR_UNFINISHED 1002 /* gather: the study has unfinished runs (the verdict is partial) */
#define SR_ERR_UNSOUND 1003    /* safe: sampled trajectories contradict the abstraction (nothing claimed, nothing written) -> 5 */

/* Largest state dimension of a system the abstraction (cells, lists, files) handles: the ARCH
   closed loops of SPEC §16 (ACC 6 states, TORA 4; issue 36; until then 3, the Dubins car).  A
   file of 1..3 dimensions written before keeps its layout and checksums (src/graph/safety_file.c). */
#define SR_MAX_DIM 6
/* Largest number of hidden layers of the MLP (SPEC §3). */
#define SR_MAX_LAYERS 8
/* largest -control_steps (plant steps per held control, SPEC §2) */
#define SR_MAX_CONTROL_STEPS 64
