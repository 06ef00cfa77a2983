/* The rounding allowance of the batched taylor1 kernel's affine layers
   (src/abstraction/enclosure_taylor.c, SPEC §7) against the exact image in MPFR.

   With linear activations the model f(x) = x + N(x) is affine, so its exact image over a box
   is known: the network's matrix and offset are formed in 2400-bit MPFR (exact: products of a
   few doubles and their sums; the test checks MPFR's inexact flag), and the image's bounds
   are sums of exact products.  The batched box (SRTMBatchEnclose) must contain them: no
   tolerance, so a lost allowance of a few ulps is seen.  Inputs where rounding matters:
   - the coefficient sums cancel: N_1 = -x1 + x2 at x = (2^53, 1.5), so fl(N_1) is off by 1/2
     and f_1 = x1 + N_1 = 1.5 exactly (the allowance g a_j of the products must cover it);
   - the bias: N_1 = 2^53 + x2 at x = (-2^53, 1.5), and 2^53 + 48 neurons of 31/32 through a
     hidden layer, where each partial sum rounds down (only the allowance g |b_i| covers it);
   - the same through a hidden linear layer, point cells and cells of width 2^-40 .. 1;
   - random linear networks (0..2 hidden layers, widths 2..6, weights and biases of magnitudes
     2^-20 .. 2^20 with an exact cancelling pair) at cells whose centres have magnitudes up to
     2^55.
   Tightness (the inner side): the batched box must not be wider than the exact image by more
   than 2^-30 of the magnitudes the layers see (|W| ... |W| |x| + |b| ...; the allowance is a
   few ulps of those), so the check does not pass by an arbitrarily wide box.
     test_taylor_affine_exact */
#include <simreach.h>
#include <simreach/private/enclosure.h>
#include <simreach/private/enclosure_taylor.h>

#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>

#define PREC 2400
#define BLK SR_ENC_BLOCK
#define MAXW 64

static unsigned long rs = 99;
static double        U(void)
{
  rs = rs * 6364136223846793005UL + 1442695040888963407UL;
  return (double)(rs >> 11) * 0x1p-53;
}

static long ncells, nescape, nloose, ninexact;

/* the exact image of f = x + N(x) (N linear) over the box [lo, hi]: elo, ehi (n each) */
static void ExactImage(SRModel model, const double *lo, const double *hi, mpfr_t *elo, mpfr_t *ehi, double *scale)
{
  SRMLP          mlp = model->mlp;
  const PetscInt n   = model->n;
  /* A[j][d] (d < n) and A[j][n] (the constant): neuron j of the current layer as x -> A x + a */
  mpfr_t A[MAXW][SR_MAX_DIM + 1], B[MAXW][SR_MAX_DIM + 1], t;
  double S[MAXW], S2[MAXW]; /* the magnitudes the layers see: |W| ... |W| |x| + |b| ..., rounded up */
  mpfr_init2(t, PREC);
  for (PetscInt j = 0; j < n; j++)
    S[j] = fmax(fabs(lo[j]), fabs(hi[j]));
  for (int j = 0; j < MAXW; j++)
    for (int d = 0; d <= SR_MAX_DIM; d++)
      mpfr_init2(A[j][d], PREC), mpfr_init2(B[j][d], PREC);
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt d = 0; d <= n; d++)
      mpfr_set_ui(A[j][d], j == d ? 1 : 0, MPFR_RNDN);
  mpfr_clear_inexflag();
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt ni = mlp->width[l], no = mlp->width[l + 1];
    for (PetscInt o = 0; o < no; o++) {
      for (PetscInt d = 0; d < n; d++)
        mpfr_set_zero(B[o][d], 1);
      mpfr_set_d(B[o][n], mlp->params[mlp->boff[l] + o], MPFR_RNDN);
      S2[o] = fabs(mlp->params[mlp->boff[l] + o]);
      for (PetscInt j = 0; j < ni; j++) {
        for (PetscInt d = 0; d <= n; d++)
          mpfr_mul_d(t, A[j][d], mlp->params[mlp->woff[l] + o * ni + j], MPFR_RNDN), mpfr_add(B[o][d], B[o][d], t, MPFR_RNDN);
        S2[o] += fabs(mlp->params[mlp->woff[l] + o * ni + j]) * S[j];
      }
    }
    for (PetscInt o = 0; o < no; o++)
      S[o] = 1.01 * S2[o];
    for (PetscInt o = 0; o < no; o++)
      for (PetscInt d = 0; d <= n; d++)
        mpfr_set(A[o][d], B[o][d], MPFR_RNDN);
  }
  for (PetscInt i = 0; i < n; i++) {
    scale[i] = S[i] + fmax(fabs(lo[i]), fabs(hi[i]));
    mpfr_set(elo[i], A[i][n], MPFR_RNDN), mpfr_set(ehi[i], A[i][n], MPFR_RNDN);
    for (PetscInt d = 0; d < n; d++) {
      if (d == i) mpfr_add_ui(A[i][d], A[i][d], 1, MPFR_RNDN); /* f = x + N(x) */
      mpfr_mul_d(t, A[i][d], mpfr_sgn(A[i][d]) >= 0 ? lo[d] : hi[d], MPFR_RNDN), mpfr_add(elo[i], elo[i], t, MPFR_RNDN);
      mpfr_mul_d(t, A[i][d], mpfr_sgn(A[i][d]) >= 0 ? hi[d] : lo[d], MPFR_RNDN), mpfr_add(ehi[i], ehi[i], t, MPFR_RNDN);
    }
  }
  if (mpfr_inexflag_p()) ninexact++;
  for (int j = 0; j < MAXW; j++)
    for (int d = 0; d <= SR_MAX_DIM; d++)
      mpfr_clear(A[j][d]), mpfr_clear(B[j][d]);
  mpfr_clear(t);
}

/* the batched boxes of nb cells (lo, hi: nb x n) against their exact images */
static PetscErrorCode Check(SRModel model, const char what[], PetscInt nb, const double *lo, const double *hi)
{
  const PetscInt n = model->n;
  SRTMBatch      tb;
  double         L[SR_MAX_DIM * BLK], H[SR_MAX_DIM * BLK], *E;
  mpfr_t         elo[SR_MAX_DIM], ehi[SR_MAX_DIM], t;
  double         scale[SR_MAX_DIM];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(2 * n * BLK, &E));
  for (int d = 0; d < SR_MAX_DIM; d++)
    mpfr_init2(elo[d], PREC), mpfr_init2(ehi[d], PREC);
  mpfr_init2(t, PREC);
  for (PetscInt c = 0; c < BLK; c++) /* SoA; the unused slots repeat the first cell */
    for (PetscInt d = 0; d < n; d++)
      L[d * BLK + c] = lo[(c < nb ? c : 0) * n + d], H[d * BLK + c] = hi[(c < nb ? c : 0) * n + d];
  PetscCall(SRTMBatchCreate(model, &tb));
  PetscCall(SRTMBatchEnclose(tb, nb, L, H, E, NULL));
  PetscCall(SRTMBatchDestroy(&tb));
  for (PetscInt c = 0; c < nb; c++) {
    const double *Ec = E + 2 * n * c;
    ExactImage(model, lo + c * n, hi + c * n, elo, ehi, scale);
    ncells++;
    for (PetscInt i = 0; i < n; i++) {
      double slack;
      if (!(mpfr_cmp_d(elo[i], Ec[i]) >= 0 && mpfr_cmp_d(ehi[i], Ec[n + i]) <= 0)) {
        if (nescape++ < 20) printf("ESCAPE %s, cell %d, f_%d: exact image [%.17g, %.17g], batched box [%.17g, %.17g]\n", what, (int)c, (int)i + 1, mpfr_get_d(elo[i], MPFR_RNDD), mpfr_get_d(ehi[i], MPFR_RNDU), Ec[i], Ec[n + i]);
        continue;
      }
      /* inner side: the box is the exact image up to 2^-30 of the magnitudes the layers see */
      mpfr_d_sub(t, Ec[n + i], ehi[i], MPFR_RNDU);
      slack = mpfr_get_d(t, MPFR_RNDU);
      mpfr_sub_d(t, elo[i], Ec[i], MPFR_RNDU);
      slack = fmax(slack, mpfr_get_d(t, MPFR_RNDU));
      if (!(slack <= 0x1p-30 * scale[i] + 1e-300))
        if (nloose++ < 20) printf("LOOSE %s, cell %d, f_%d: batched box [%.17g, %.17g] wider than the exact image by %.3g\n", what, (int)c, (int)i + 1, Ec[i], Ec[n + i], slack);
    }
  }
  PetscCall(PetscFree(E));
  for (int d = 0; d < SR_MAX_DIM; d++)
    mpfr_clear(elo[d]), mpfr_clear(ehi[d]);
  mpfr_clear(t);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a linear model (every layer linear) of nh hidden layers with the given widths */
static PetscErrorCode LinearModel(SRSystem sys, PetscInt nh, const PetscInt *w, SRModel *model)
{
  PetscFunctionBeginUser;
  PetscCall(SRModelCreate(sys, SR_MODEL_DYNAMICS, nh, w, model));
  for (PetscInt l = 0; l < (*model)->mlp->nlayers; l++)
    PetscCall(SRMLPSetActivation((*model)->mlp, l, SR_ACT_LINEAR));
  for (PetscInt p = 0; p < (*model)->mlp->nparams; p++)
    (*model)->mlp->params[p] = 0.0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the hand-made cancellations: point cells, then widths 2^-40 .. 1 about the same points */
static PetscErrorCode Handmade(SRSystem sys)
{
  const double P = 0x1p53;
  double       lo[2 * BLK], hi[2 * BLK];
  PetscFunctionBeginUser;
  for (int kind = 0; kind < 4; kind++) {
    SRModel        model;
    SRMLP          mlp;
    const PetscInt nh = kind / 2, w[1] = { 2 };
    double         x1;
    PetscCall(LinearModel(sys, nh, w, &model));
    mlp = model->mlp;
    if (nh) { /* hidden layer the identity, the cancellation in the output layer */
      mlp->params[mlp->woff[0] + 0] = 1.0, mlp->params[mlp->woff[0] + 3] = 1.0;
    }
    if (kind % 2 == 0) { /* N_1 = -x1 + x2 */
      mlp->params[mlp->woff[nh] + 0] = -1.0, mlp->params[mlp->woff[nh] + 1] = 1.0;
      x1 = P;
    } else { /* N_1 = 2^53 + x2 */
      mlp->params[mlp->woff[nh] + 1] = 1.0, mlp->params[mlp->boff[nh] + 0] = P;
      x1 = -P;
    }
    for (int c = 0; c < 42; c++) {
      const double h = c == 0 ? 0.0 : ldexp(1.0, -(c - 1)); /* 0, 1, 1/2, ..., 2^-40 */
      lo[2 * c] = hi[2 * c] = x1;
      lo[2 * c + 1] = 1.5 - h, hi[2 * c + 1] = 1.5 + h;
    }
    PetscCall(Check(model, kind % 2 == 0 ? "-x1 + x2 at (2^53, 1.5)" : "2^53 + x2 at (-2^53, 1.5)", 42, lo, hi));
    PetscCall(SRModelDestroy(&model));
  }
  { /* the bias alone: N_1 = 2^53 + h_1 + ... + h_48, h_j = x2 = 31/32: each partial sum rounds
       down (the doubles near 2^53 are 2 apart), fl(N_1) = 2^53 is off by 46.5, f_1 = -2^53 + N_1
       = 46.5 (more than the tail's own allowance for x + N, about 20 here); the products'
       allowance is tiny, only g |b| covers it */
    SRModel        model;
    SRMLP          mlp;
    const PetscInt w[1] = { 48 };
    PetscCall(LinearModel(sys, 1, w, &model));
    mlp = model->mlp;
    for (int j = 0; j < 48; j++)
      mlp->params[mlp->woff[0] + 2 * j + 1] = 1.0, mlp->params[mlp->woff[1] + j] = 1.0;
    mlp->params[mlp->boff[1] + 0] = P;
    for (int c = 0; c < 42; c++) {
      const double h = c == 0 ? 0.0 : ldexp(1.0, -(c + 1)); /* 0, 1/4, ..., 2^-42 */
      lo[2 * c] = hi[2 * c] = -P;
      lo[2 * c + 1] = 0.96875 - h, hi[2 * c + 1] = 0.96875 + h;
    }
    PetscCall(Check(model, "2^53 + 48 x2 at (-2^53, 31/32)", 42, lo, hi));
    PetscCall(SRModelDestroy(&model));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Random(SRSystem sys, int nnets)
{
  double lo[2 * BLK], hi[2 * BLK];
  PetscFunctionBeginUser;
  for (int net = 0; net < nnets; net++) {
    SRModel        model;
    SRMLP          mlp;
    const PetscInt nh = net % 3;
    PetscInt       w[2];
    for (PetscInt l = 0; l < nh; l++)
      w[l] = 2 + (PetscInt)(5 * U());
    PetscCall(LinearModel(sys, nh, w, &model));
    mlp = model->mlp;
    for (PetscInt p = 0; p < mlp->nparams; p++)
      mlp->params[p] = (U() < 0.5 ? -1 : 1) * ldexp(1.0 + floor(U() * 1024) / 1024, (int)(40 * U()) - 20);
    if (nh == 0) mlp->params[mlp->woff[0] + 1] = -mlp->params[mlp->woff[0] + 0]; /* N_1 = a (x1 - x2) + ... */
    for (int c = 0; c < BLK; c++) {
      const double big = ldexp(1.0 + floor(U() * 4096) / 4096, (int)(55 * U()));
      for (int d = 0; d < 2; d++) {
        const double x = (d == 0 || U() < 0.5 ? big : -big) + (U() < 0.5 ? 0.0 : floor(U() * 16) * 0.25), h = c % 4 == 0 ? 0.0 : ldexp(U(), -(int)(50 * U()));
        lo[2 * c + d] = x - h * fabs(x), hi[2 * c + d] = x + h * fabs(x);
        if (!(lo[2 * c + d] <= hi[2 * c + d])) lo[2 * c + d] = hi[2 * c + d] = x;
      }
    }
    PetscCall(Check(model, "random linear network", BLK, lo, hi));
    PetscCall(SRModelDestroy(&model));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  SRSystem sys;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(SRSystemCreate(PETSC_COMM_SELF, "pendulum", NULL, &sys));
  PetscCheck(sys->n == 2, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the pendulum has 2 states");
  PetscCall(Handmade(sys));
  PetscCall(Random(sys, 60));
  printf("batched affine layers: %ld cells, %ld escapes from the exact image, %ld boxes looser than 2^-30, oracle inexact %ld times\n", ncells, nescape, nloose, ninexact);
  PetscCall(SRSystemDestroy(&sys));
  PetscCall(PetscFinalize());
  return nescape || nloose || ninexact;
}
