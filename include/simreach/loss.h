/* The simulation loss L_sim, the hard metric H and eps-coverage of SPEC §6 (train layer,
   src/train/loss.c): what training minimises, over the cells and their successor lists. */
#pragma once

#include <simreach/base.h>
#include <simreach/cells.h>
#include <simreach/successorlist.h>

/* Soft operators with max shift: softmin_tau(a) = -tau log sum exp(-a_j / tau),
   softmax_tau(a) = tau log sum exp(a_i / tau).  If w is non-NULL it receives the weights
   d softmin / d a_j (a softmin / softmax distribution). */
double SRSoftmin(PetscInt n, const double *a, double tau, double *w);
double SRSoftmax(PetscInt n, const double *a, double tau, double *w);


typedef enum { SR_ASSIGN_HARD = 0, SR_ASSIGN_GAUSS = 1 } SRAssignType;
extern const char *const SRAssignTypes[];

typedef struct {
  double       tau, eps, lambda_eps;
  SRAssignType assign;
  PetscInt     assign_neighbors;
} SRLossParams;

typedef struct {
  double Lsim;        /* L_sim (smooth) */
  double H;           /* hard metric: the same expression with min / max */
  double coverage;    /* eps-coverage: only non-sink targets count (SPEC §6) */
  double out_of_D;    /* fraction of the samples whose image leaves D */
  double gap_min;     /* max over samples of min(a) - softmin_tau(a) (measured tau log n check) */
  double gap_max;     /* softmax_tau(r) - max(r) */
  double taulogn;     /* tau log n for the largest candidate set (successors) */
  double taulogN;     /* tau log N for the sample softmax */
  /* The two terms, so that a caller can reduce over ranks (log-sum-exp of L_r / tau, max of
     the others): Lsim = Lsim_r + lambda_eps Lsim_eps, H = H_r + lambda_eps H_eps.  With
     N = 0 they are the identities (-inf, -inf, -inf, 0), the gradients 0.  Added by cells/loss. */
  double Lsim_r, Lsim_eps, H_r, H_eps;
} SRLossValues;

/* L_sim over N samples X with images Y = f_phi(X) and targets T.
   dY (N x n) and dtheta (2 n K: dc then dw, same layout as cells) receive dL_sim/dY and
   dL_sim/dtheta when non-NULL (overwritten).  Not collective: the caller reduces. */
PetscErrorCode SRLossSim(SRCells cells, const SRSuccessorList *T, const SRLossParams *par, PetscInt N, const double *X, const double *Y, SRLossValues *val, double *dY, double *dtheta);
/* L_sim with the hard assignment hat[0..N) frozen and d(x_i, hat x_i) taken as 0 (partition cells
   cover D; SPEC §8 theta objective).  dtheta as in SRLossSim.  Not collective. */
PetscErrorCode SRLossSimFrozen(SRCells cells, const SRSuccessorList *T, const SRLossParams *par, PetscInt N, const double *X, const double *Y, const PetscInt *hat, SRLossValues *val, double *dtheta);
/* H, coverage on the (held-out) samples; fills val->H and val->coverage only. */
PetscErrorCode SRLossHard(SRCells cells, const SRSuccessorList *T, const SRLossParams *par, PetscInt N, const double *X, const double *Y, SRLossValues *val);
