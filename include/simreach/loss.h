/* The simulation loss L_sim, the hard metric H and eps-coverage of SPEC §6. */
#pragma once

#include <simreach/base.h>
#include <simreach/cells.h>

/* Soft operators with max shift: softmin_tau(a) = -tau log sum exp(-a_j / tau),
   softmax_tau(a) = tau log sum exp(a_i / tau).  If w is non-NULL it receives the weights
   d softmin / d a_j (a softmin / softmax distribution). */
double SRSoftmin(PetscInt n, const double *a, double tau, double *w);
double SRSoftmax(PetscInt n, const double *a, double tau, double *w);

/* A list of candidate successors per cell; the index K stands for the sink.  Explicit (CSR:
   ptr, idx), or, when rows is set, a view of SPEC §5 index boxes: list k is every cell of the
   box rows[(2 rn + 1) k ...] over a grid of rgrid counts, increasing, then the sink if flagged
   (ptr and idx unused; what -target certified uses for T = C, so that no rank holds every
   list expanded).  Read a list with SRSuccessorListGet, which works for both. */
typedef struct {
  PetscInt        K;
  PetscInt       *ptr; /* K + 1 */
  PetscInt       *idx;
  const PetscInt *rows;
  PetscInt        rn, rgrid[SR_MAX_DIM];
} SRSuccessorList;

/* List k: *list points into L (CSR) or into *scratch (index boxes, grown as needed; the caller
   frees it with PetscFree).  Not collective. */
PetscErrorCode SRSuccessorListGet(const SRSuccessorList *L, PetscInt k, PetscInt **scratch, PetscInt *scap, PetscInt *n, const PetscInt **list);
/* The length of list k without expanding it. */
PetscInt SRSuccessorListLength(const SRSuccessorList *L, PetscInt k);

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
