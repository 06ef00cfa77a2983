/* Links the installed libsimreach through its CMake package: [-1,3]*[-2,1] must print [-6, 3]. */
#include <simreach.h>
int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  SRInterval a = {-1, 3}, b = {-2, 1};
  SRInterval c = SRIntervalMul(a, b);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "[%g, %g]\n", c.lo, c.hi));
  PetscCall(PetscFinalize());
  return 0;
}
