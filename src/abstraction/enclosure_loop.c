/* The enclosures over cells of the closed loop a plant file states with its `input` and
   `control` lines (SPEC §16, issue 36; the point map is src/model/model_loop.c): every cell goes
   through src/abstraction/plantstep.c (the file's input expressions in affine arithmetic over
   the cell, the network's bound, the control expressions, the validated period of
   src/model/system_ode.c), whatever asks: verify's pass and `check`'s (src/abstraction/verify.c),
   `abstract` (SREnclosureCompute), the re-check of SPEC §11 (src/abstraction/recheck.c), the
   run's enclosures.  -enclosure maps onto plantstep's network bound (docs/systems.md):

     interval   the inputs' ranges through the batched interval kernel (blocks of cells,
                src/bounds/netinterval.c), the outputs as intervals (the controls keep the
                inputs' dependence only through the state)
     taylor1    affine forms forward through the network (src/bounds/netaffine.c): first-order
     affine     forms in the cell's coordinates with a remainder, i.e. Taylor models of order 1
     crown      CROWN's linear relaxation with back-substitution, the output forms over the cell
     both       interval and taylor1, the intersection of the two sound boxes kept

   A cell whose network bound, controls or flow fail gets [-inf, inf] and SR_CELL_NONFINITE (the
   caller maps it to every cell and the sink: sound). */
#include <simreach/private/enclosure_loop.h>
#include <simreach/private/plantstep.h>

static PetscErrorCode SREnclosureLoopOne_Private(SRModel model, PetscBool affine, SRNetEnclosure how, PetscInt nb, const double *boxes, double *E, SRCellStatus *status)
{
  SRPlantPeriodOptions o;
  SRPlantStep          s;

  PetscFunctionBeginUser;
  SRPlantPeriodOptionsDefault(&o);
  o.flow.shrink = model->test_shrink; /* 0 but in the test build's planted fault */
  { /* a linear plant's period by its exact map unless -plant_linear_flow false (docs/systems.md) */
    PetscBool lin = PETSC_TRUE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-plant_linear_flow", &lin, NULL));
    o.flow.linear = (bool)lin;
  }
  PetscCall(SRPlantStepCreate(model->sys->plant, model->mlp, affine, how, &o, &s));
  PetscCall(SRPlantStepEncloseBoxes(s, nb, boxes, E, status));
  PetscCall(SRPlantStepDestroy(&s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SREnclosureLoop(SRModel model, SREnclosureType type, SRCells cells, const double *boxes, PetscInt kstart, PetscInt kend, double *E, SRCellStatus *status)
{
  const PetscInt n = model->n, nb = kend - kstart;
  double        *own = NULL, *Et = NULL;
  SRCellStatus  *st = NULL;

  PetscFunctionBeginUser;
  PetscCheck(SRModelIsLoop(model), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "SREnclosureLoop: the model is not the closed loop of a plant file's input and control lines");
  if (nb <= 0) PetscFunctionReturn(PETSC_SUCCESS);
  if (!boxes) { /* the cells' outer boxes */
    PetscCall(PetscMalloc1(2 * n * nb, &own));
    for (PetscInt k = kstart; k < kend; k++) SRCellsBoxOuter(cells, k, own + 2 * n * (k - kstart), own + 2 * n * (k - kstart) + n);
    boxes = own;
  } else boxes += 2 * n * kstart;
  switch (type) {
  case SR_ENCLOSURE_INTERVAL:
    PetscCall(SREnclosureLoopOne_Private(model, PETSC_FALSE, SR_NET_FORWARD, nb, boxes, E, status));
    break;
  case SR_ENCLOSURE_TAYLOR1:
  case SR_ENCLOSURE_AFFINE:
    PetscCall(SREnclosureLoopOne_Private(model, PETSC_TRUE, SR_NET_FORWARD, nb, boxes, E, status));
    break;
  case SR_ENCLOSURE_CROWN:
    PetscCall(SREnclosureLoopOne_Private(model, PETSC_TRUE, SR_NET_CROWN, nb, boxes, E, status));
    break;
  case SR_ENCLOSURE_BOTH:
    PetscCall(PetscMalloc2(2 * n * nb, &Et, nb, &st));
    PetscCall(SREnclosureLoopOne_Private(model, PETSC_FALSE, SR_NET_FORWARD, nb, boxes, E, status));
    PetscCall(SREnclosureLoopOne_Private(model, PETSC_TRUE, SR_NET_FORWARD, nb, boxes, Et, st));
    for (PetscInt c = 0; c < nb; c++) { /* the intersection of two sound boxes, or the one that is finite */
      double *Ec = E + 2 * n * c, *Tc = Et + 2 * n * c;
      if (st[c] != SR_CELL_OK) continue;
      if (status[c] != SR_CELL_OK) {
        for (PetscInt d = 0; d < 2 * n; d++) Ec[d] = Tc[d];
        status[c] = SR_CELL_OK;
      } else
        for (PetscInt d = 0; d < n; d++) {
          const double l = PetscMax(Ec[d], Tc[d]), h = PetscMin(Ec[n + d], Tc[n + d]);
          if (l <= h) Ec[d] = l, Ec[n + d] = h;
        }
    }
    PetscCall(PetscFree2(Et, st));
    break;
  default:
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-enclosure %d: allowed interval, taylor1, both, crown, affine", (int)type);
  }
  PetscCall(PetscFree(own));
  PetscFunctionReturn(PETSC_SUCCESS);
}
