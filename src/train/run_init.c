/* -init_network FILE (SPEC §14, issue 24): a run starts from an imported network instead of its
   seeded Glorot initialisation, so that a study can fine-tune a field controller.  The file (our
   HDF5 network file, ONNX or NNet, by content) must have the shapes the run's -sys, -model and
   -mlp_widths give, layer for layer; its activations and transforms are used as read, and a
   controller's control is then u = clip(N(x), -umax, umax) (SRModelControlPoint; docs/networks.md).
   The gradients of L_encl and of the volume term through the network are written for
   simreach's own tanh networks, so such a network trains with -loss sim and -volume_weight 0.  Every rank reads the small file itself (SRNetworkLoad). */
#include <simreach/private/run.h>
#include <simreach/network.h>

/* "; fine-tuning it needs -mlp_widths 25,25" from the file's hidden widths */
static void SRRunInitHint_Private(SRMLP mlp, char hint[], size_t len)
{
  size_t k = (size_t)snprintf(hint, len, "; fine-tuning it needs -mlp_widths ");
  for (PetscInt l = 1; l < mlp->nlayers && k < len; l++) k += (size_t)snprintf(hint + k, len - k, "%s%lld", l > 1 ? "," : "", (long long)mlp->width[l]);
  if (mlp->nlayers < 2 && k < len) snprintf(hint + k, len - k, "(none: the file has no hidden layer)");
}

PetscErrorCode SRRunInitNetworkAdopt_Private(SRRun r, SRModel model)
{
  SRNetworkInfo info;
  SRMLP         mlp;
  char          what[PETSC_MAX_PATH_LEN + 32], hint[256];
  PetscBool     other;

  PetscFunctionBeginUser;
  PetscCall(PetscTestFile(r->init_network, 'r', &other));
  PetscCheck(other, r->comm, PETSC_ERR_FILE_OPEN, "-init_network %s: no such readable file; give our HDF5 network file, an ONNX model or an NNet file", r->init_network);
  PetscCall(SRNetworkLoad(r->comm, r->init_network, &info, &mlp));
  PetscCall(PetscSNPrintf(what, sizeof what, "-init_network %s", r->init_network));
  if (r->init_digest[0]) PetscCall(SRMLPCheckStructureDigest(r->comm, &mlp, r->init_digest, what)); /* a study's stored runs */
  other = (PetscBool)(info.has_sys && (strcmp(info.sys, r->sysname) || info.type != r->mtype || (info.control_steps > 0 && info.control_steps != r->sys->control_steps)));
  if (other) PetscCall(SRMLPDestroy(&mlp));
  PetscCheck(!other, r->comm, PETSC_ERR_ARG_INCOMP, "%s: the network file belongs to -sys %s -model %s -control_steps %" PetscInt_FMT "; the run is -sys %s -model %s -control_steps %" PetscInt_FMT, what, info.sys, SRModelTypes[info.type], info.control_steps, r->sysname, SRModelTypes[r->mtype], r->sys->control_steps);
  if (mlp->width[0] == model->mlp->width[0] && mlp->width[mlp->nlayers] == model->mlp->width[model->mlp->nlayers]) SRRunInitHint_Private(mlp, hint, sizeof hint);
  else PetscCall(PetscSNPrintf(hint, sizeof hint, "; its inputs must be the %" PetscInt_FMT " states of -sys %s and its outputs the %" PetscInt_FMT " of -model %s", model->mlp->width[0], r->sysname, model->mlp->width[model->mlp->nlayers], SRModelTypes[r->mtype]));
  PetscCall(SRModelAdoptNetwork(r->comm, model, mlp, what, hint));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Before any work: the file reads, has the run's shapes, and trains with the run's -loss. */
PetscErrorCode SRRunInitNetworkCheck_Private(SRRun r)
{
  SRModel   model;
  PetscBool own;
  char      acts[8 * (SR_MAX_LAYERS + 1)];

  PetscFunctionBeginUser;
  if (!r->init_network[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SRModelCreate(r->sys, r->mtype, r->nhidden, r->widths, &model));
  PetscCall(SRRunInitNetworkAdopt_Private(r, model));
  own = SRMLPIsDefault(model->mlp);
  PetscCall(SRMLPActivationsString(model->mlp, acts, sizeof acts));
  PetscCall(SRModelDestroy(&model));
  PetscCheck(own || r->vol_w == 0, r->comm, PETSC_ERR_ARG_INCOMP, "-volume_weight %g: -init_network %s is an imported network (%s, used as read) and trains with -volume_weight 0; the gradient of the volume term through the network is written for simreach's own tanh networks", r->vol_w, r->init_network, acts);
  PetscCheck(own || r->loss == SR_LOSS_SIM, r->comm, PETSC_ERR_ARG_INCOMP, "-loss %s: -init_network %s is an imported network (%s, used as read) and trains with -loss sim; the gradient of L_encl is written for simreach's own tanh networks", SRLossTypes[r->loss], r->init_network, acts);
  PetscFunctionReturn(PETSC_SUCCESS);
}
