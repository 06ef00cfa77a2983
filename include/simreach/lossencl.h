/* The enclosure-aware loss L_encl of SPEC §6 (-loss encl | sim+encl). */
#pragma once

#include <simreach/base.h>
#include <simreach/cells.h>
#include <simreach/loss.h>
#include <simreach/model.h>

typedef enum { SR_LOSS_SIM = 0, SR_LOSS_ENCL = 1, SR_LOSS_SIMENCL = 2, SR_LOSS_WIDTH1 = 3 } SRLossType;
extern const char *const SRLossTypes[]; /* "sim", "encl", "sim+encl", "width1" (a PETSc enum list) */
#define SRLossHasSim(l)  ((l) == SR_LOSS_SIM || (l) == SR_LOSS_SIMENCL)
#define SRLossHasEncl(l) ((l) == SR_LOSS_ENCL || (l) == SR_LOSS_SIMENCL)

/* L_encl = softmax_tau over the cells of e_k, e_k = || max(E_k.hi - B_k.hi, 0) + max(B_k.lo - E_k.lo, 0) ||_p
   with E_k the interval enclosure of f_phi over cell k and B_k the hull of the boxes of the
   non-sink cells of T(k) (a cell whose targets are only the sink has e_k = 0).

   E_k here is the training copy of the interval enclosure: midpoint-radius bound propagation
   through the MLP in round-to-nearest (as in IBP certified training), so that it is
   differentiable; it is NOT used for soundness (the guard and the lists use the outward-rounded
   enclosures of SPEC §7).  grad (nparams), when non-NULL, receives += scale * dL_encl/dphi by
   reverse mode through that pass; in controller mode the plant's part (the held interval step
   of SRSystemStepHeldInterval as a function of the control bounds) is differentiated by central
   differences in those bounds.  e (K), when non-NULL, receives the e_k.  Every rank computes
   every cell (replicated, so the value does not depend on the rank count).  Not collective. */
PetscErrorCode SRLossEncl(SRModel model, SRCells cells, const SRSuccessorList *T, double tau, double scale, double *L, double *grad, double *e);

/* The theta objective's enclosure terms (SPEC §8), on the same training copy of E_k, with the
   gradient w.r.t. the cells in the SPEC §4 layout gcw (2nK: d/dc then d/dw, cell k's box being
   [c - w, c + w]; a partition maps it to its boundaries with SRCellsPartitionThetaGradient):
   - SRLossEnclCells: L_encl as SRLossEncl, its gradient through E_k (the box of cell k) and
     through B_k (the faces of the target cells that attain the hull);
   - SREnclVolumeCells: V = sum_k vol(Psi_k) vol(E_k) / vol(D)^2 (the vol(Psi_k)-weighted mean
     of vol(E_k) / vol(D); +inf if an enclosure is not finite).
   The network part of dE_k/d(box) is exact reverse mode through the interval pass; in
   controller mode the plant's held interval step is differentiated in its state and control
   bounds by central differences.  gcw may be NULL.  Not collective. */
PetscErrorCode SRLossEnclCells(SRModel model, SRCells cells, const SRSuccessorList *T, double tau, double *L, double *gcw);
PetscErrorCode SREnclVolumeCells(SRModel model, SRCells cells, double *V, double *gcw);

/* The positive control's treatment (-loss width1, SPEC §9 "Controls"; src/train/losswidth.c):
   L_w1 = mean over the cells of e_k, the half-widths of the first-order (taylor1) box of f_phi
   over cell c_k +- r_k in units of the cell's: sum_i (sum_j |J_ij| r_kj + remainder_i) / r_ki,
   J the Jacobian of the closed-loop map (controller: dF/dx + dF/du u'(N) dN/dx with the control
   held for the control period; dynamics: I + dN/dx), the remainder the network's Taylor model
   remainder (the mean-value tanh rule).  As |M_tight| encloses a cell (-tight_bisect b), e_k is
   the mean over the 2^(n b) sub-boxes cs +- r / 2^b of |J(cs)| r (the first-order part of the
   sub-boxes' hull) plus the sub-box's remainder.  grad (nparams), when non-NULL, receives
   += scale * dL_w1/dphi (reverse mode over the forward-mode dN/dx; the plant's Jacobians exact,
   SRLossWidth1HeldJacobian, their dependence on u by central differences).  e (K), when non-NULL, receives the e_k.  simreach's own networks only;
   the cells are not differentiated (the cell solve does not see this loss).  Not collective. */
PetscErrorCode SRLossWidth1(SRModel model, SRCells cells, PetscInt bisect, double scale, double *L, double *grad, double *e);
/* A = dF/dx (n x n) and B = dF/du (n x nu), row-major, of the held step (SPEC §2, m =
   sys->control_steps plant steps with u held) at (x, u): the plant's forward-mode Jacobian
   (sys->step_jacobian) chained along the steps' trajectory.  Not collective. */
void SRLossWidth1HeldJacobian(SRSystem sys, const double *x, const double *u, double *A, double *B);
