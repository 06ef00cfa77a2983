/* The subcommands of the simreach program; each lives in src/command_<name>.c.
   argc/argv are what follows the subcommand word; options are already in the database. */
#pragma once

#include <simreach.h>

PetscErrorCode SRCommandTrain(MPI_Comm comm);                      /* simreach train    (SPEC §8) */
PetscErrorCode SRCommandAbstract(MPI_Comm comm);                   /* simreach abstract (SPEC §5, §7) */
PetscErrorCode SRCommandStudy(MPI_Comm comm);                      /* simreach study    (SPEC §9) */
PetscErrorCode SRCommandGather(MPI_Comm comm, const char file[]); /* simreach gather FILE.h5 */
PetscErrorCode SRCommandVerify(MPI_Comm comm);                     /* simreach verify   (SPEC §10) */
/* simreach check on an abstraction file of simreach verify: every cell re-enclosed (-enclosure,
   default the other one than stored; -bisect d) and tested against its stored list; exit_code 0
   only when every cell is proven. */
PetscErrorCode SRCommandCheckAbstraction(MPI_Comm comm, const char file[], int *exit_code);
/* simreach check FILE.h5 (SPEC §11): *exit_code 0 only when every stored cell is proven, else 1. */
PetscErrorCode SRCommandCheck(MPI_Comm comm, const char file[], int *exit_code);
/* Error out, naming them, if options were given that nothing read (like -options_left). */
PetscErrorCode SRCheckUnusedOptions(MPI_Comm comm);
