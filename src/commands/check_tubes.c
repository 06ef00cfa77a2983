/* simreach check TUBES.h5 on a tubes file of `simreach closedloop -o` (SPEC §13, §15): the file is
   validated as a whole (format, header checksum, every dataset's checksum and shape, the leaves
   and the verdict against them; src/reach/tubes_file.c).  The tubes themselves are not
   re-proven here: the line printed names the command that re-proves them.  Exit 0 for a valid
   file, 5 for one written under a planted fault (the test executable's; it answers nothing). */
#include <simreach/private/commands.h>
#include <simreach/private/tubes_file.h>

PetscErrorCode SRCommandCheckTubes(MPI_Comm comm, const char file[], int *exit_code)
{
  SRTubesSummary s;

  PetscFunctionBeginUser;
  *exit_code = SR_EXIT_UNPROVEN;
  PetscCall(SRCheckUnusedOptions(comm));
  PetscCall(SRTubesFileValidate(comm, file, &s));
  if (s.planted[0]) {
    PetscCall(PetscPrintf(comm, "simreach check %s (closedloop tubes file): written by the test executable under the planted fault '%s': it answers nothing\n", file, s.planted));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscPrintf(comm, "simreach check %s (closedloop tubes file): valid (format, checksums, %lld leaves, %lld open, consistent with the verdict %s); the tubes are re-proven by simreach closedloop -plant %s -network %s -spec %s\n", file, (long long)s.leaves, (long long)s.open, s.verdict, s.plant, s.network, s.spec));
  *exit_code = SR_EXIT_OK;
  PetscFunctionReturn(PETSC_SUCCESS);
}
