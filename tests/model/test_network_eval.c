/* N(x) of any network file simreach reads (SPEC §14), for the oracles of tests/networks_arch.py:
     test_network_eval -network FILE -points P.txt [-network_activations LIST]
   P.txt holds one point per line (the network's inputs); each output line is "N y1 y2 ...",
   %.17g.  The network's function as the library evaluates it (SRMLPForward: input transform,
   layers, output transform). */
#include <simreach/network.h>

int main(int argc, char **argv)
{
  char   net[PETSC_MAX_PATH_LEN] = "", pts[PETSC_MAX_PATH_LEN] = "";
  SRMLP  mlp;
  FILE  *fp;
  double x[4096], y[4096];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-network", net, sizeof net, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-points", pts, sizeof pts, NULL));
  PetscCall(SRNetworkLoad(PETSC_COMM_SELF, net, NULL, &mlp));
  {
    const PetscInt nin = mlp->width[0], nout = mlp->width[mlp->nlayers];
    PetscCheck(nin <= 4096 && nout <= 4096, PETSC_COMM_SELF, PETSC_ERR_SUP, "at most 4096 inputs and outputs");
    fp = fopen(pts, "r");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-points %s: cannot open", pts);
    while (1) {
      PetscInt j = 0;
      for (; j < nin; j++)
        if (fscanf(fp, "%lf", &x[j]) != 1) break;
      if (j < nin) break;
      PetscCall(SRMLPForward(mlp, 1, x, y));
      printf("N");
      for (PetscInt i = 0; i < nout; i++)
        printf(" %.17g", y[i]);
      printf("\n");
    }
    fclose(fp);
  }
  PetscCall(SRMLPDestroy(&mlp));
  PetscCall(PetscFinalize());
  return 0;
}
