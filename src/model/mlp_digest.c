/* The digest of an MLP's structure, what its parameters do not hold: widths, activations and the
   input/output transforms (SPEC §14).  A study that fine-tunes an imported network
   (-init_network) stores it among its options as -init_network_digest; whoever rebuilds a run's
   network from the file later (verify -from, check, safe -run, network, -resume) refuses a file
   whose digest differs, so stored lists are only re-proved for the network they were certified
   for.  Not collective except where noted. */
#include <simreach/model.h>
#include <simreach/private/fileio.h>
#include <stdio.h>
#include <string.h>

uint64_t SRMLPStructureDigest(SRMLP mlp)
{
  const PetscInt nin = mlp->width[0], nout = mlp->width[mlp->nlayers];
  int64_t        head[2 + SR_MAX_LAYERS + 2 + SR_MAX_LAYERS + 1 + 2];
  PetscInt       k = 0;
  uint64_t       h;

  head[k++] = mlp->nlayers;
  for (PetscInt l = 0; l <= mlp->nlayers; l++) head[k++] = mlp->width[l];
  for (PetscInt l = 0; l < mlp->nlayers; l++) head[k++] = mlp->act[l];
  head[k++] = mlp->has_in;
  head[k++] = mlp->has_out;
  h = SRChecksum64(head, (size_t)k * sizeof(int64_t), SRChecksumSeed("mlp_structure", 0, 0));
  if (mlp->has_in) {
    h = SRChecksum64(mlp->inlo, (size_t)nin * sizeof(double), h);
    h = SRChecksum64(mlp->inhi, (size_t)nin * sizeof(double), h);
    h = SRChecksum64(mlp->inmean, (size_t)nin * sizeof(double), h);
    h = SRChecksum64(mlp->inrange, (size_t)nin * sizeof(double), h);
  }
  if (mlp->has_out) {
    h = SRChecksum64(mlp->outscale, (size_t)nout * sizeof(double), h);
    h = SRChecksum64(mlp->outoffset, (size_t)nout * sizeof(double), h);
  }
  return h;
}

PetscErrorCode SRMLPCheckStructureDigest(MPI_Comm comm, SRMLP *mlp, const char digest[], const char what[])
{
  char now[32];

  PetscFunctionBeginUser;
  snprintf(now, sizeof now, "%016llx", (unsigned long long)SRMLPStructureDigest(*mlp));
  if (strcmp(now, digest)) PetscCall(SRMLPDestroy(mlp));
  PetscCheck(!strcmp(now, digest), comm, PETSC_ERR_FILE_UNEXPECTED, "%s: its widths, activations or transforms changed since the study ran (digest %s stored, %s now); the runs' network cannot be rebuilt from it", what, digest, now);
  PetscFunctionReturn(PETSC_SUCCESS);
}
