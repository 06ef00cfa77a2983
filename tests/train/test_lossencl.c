/* Tests of L_encl (src/train/lossencl.c, SPEC §6) and of the positive control's L_w1
   (src/train/losswidth.c, SPEC §9).
   Oracles: central finite differences of L_encl for its gradient w.r.t. phi (world model and
   controller, with and without a control period, norms 1, 2, inf), and the outward-rounded
   interval enclosure of SPEC §7 (SREnclosureCompute) for the training copy of E_k: the two
   passes compute the same midpoint-radius recurrences, so e_k must agree to rounding level.
   L_w1: its gradient against central differences, e_k against differences of f_phi, and the
   held step's exact Jacobians it uses against central differences of the held step.
   Serial. */
#include <simreach.h>
#include <simreach/random.h>

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#define CHK(call) assert_int_equal((call), 0)

typedef struct {
  const char *sys;
  SRModelType type;
  PetscInt    steps;
  SRNorm      p;
} Combo;

static const Combo combos[] = {
  { "pendulum", SR_MODEL_DYNAMICS, 1, SR_NORM_2 },
  { "toy1d", SR_MODEL_DYNAMICS, 1, SR_NORM_INF },
  { "pendulum", SR_MODEL_CONTROLLER, 1, SR_NORM_INF },
  { "pendulum", SR_MODEL_CONTROLLER, 4, SR_NORM_2 },
  { "dubins", SR_MODEL_CONTROLLER, 3, SR_NORM_1 },
  { "dubins", SR_MODEL_DYNAMICS, 1, SR_NORM_2 },
};
#define NCOMBO ((int)(sizeof(combos) / sizeof(combos[0])))

typedef struct {
  SRSystem        sys;
  SRModel         model;
  SRCells         cells;
  SRSuccessorList T;
} Setup;

/* 3 cells per dimension; T(k) = {k} plus, for every other cell, its next cell (and the sink
   for cell 0), so that hulls of one and of two boxes and a sink entry all occur. */
static void SetupCreate(const Combo *c, uint64_t seed, Setup *s)
{
  PetscInt counts[SR_MAX_DIM] = { 3, 3, 3 }, widths[2] = { 8, 6 }, K, nnz = 0;
  CHK(SRSystemCreate(PETSC_COMM_SELF, c->sys, NULL, &s->sys));
  s->sys->control_steps = c->steps;
  CHK(SRModelCreate(s->sys, c->type, 2, widths, &s->model));
  CHK(SRMLPInitialize(s->model->mlp, seed));
  for (PetscInt q = 0; q < s->model->mlp->nparams; q++) s->model->mlp->params[q] += 0.2 * SRRandomNormal(seed, SR_STREAM_TEST, q); /* nonzero biases */
  CHK(SRCellsCreateGrid(s->sys, counts, &s->cells));
  s->cells->p = c->p;
  K           = s->cells->K;
  CHK(SRSuccessorListCreate(K, 3 * K, &s->T));
  for (PetscInt k = 0; k < K; k++) {
    s->T.ptr[k]      = nnz;
    s->T.idx[nnz++]  = k;
    if (k % 2 == 1 && k + 1 < K) s->T.idx[nnz++] = k + 1;
    if (k == 0) s->T.idx[nnz++] = K;
  }
  s->T.ptr[K] = nnz;
}

static void SetupDestroy(Setup *s)
{
  CHK(SRSuccessorListDestroy(&s->T));
  CHK(SRCellsDestroy(&s->cells));
  CHK(SRModelDestroy(&s->model));
  CHK(SRSystemDestroy(&s->sys));
}

static double Lencl(Setup *s, double tau)
{
  double L;
  CHK(SRLossEncl(s->model, s->cells, &s->T, tau, 1.0, &L, NULL, NULL));
  return L;
}

static void test_gradient_matches_finite_differences(void **state)
{
  for (int c = 0; c < NCOMBO; c++) {
    Setup          s;
    const double   tau = 0.05;
    double        *g, *fd, L, num = 0, den = 0;
    PetscInt       P;
    SetupCreate(&combos[c], 11 + c, &s);
    P = s.model->mlp->nparams;
    CHK(PetscCalloc2(P, &g, P, &fd));
    CHK(SRLossEncl(s.model, s.cells, &s.T, tau, 2.0, &L, g, NULL));
    assert_true(L > 0); /* the enclosures stick out of their targets: the loss has something to do */
    for (PetscInt q = 0; q < P; q++) {
      double      *w = &s.model->mlp->params[q], w0 = *w, h = 1e-6 * PetscMax(1.0, fabs(w0)), Lp, Lm;
      *w = w0 + h;
      Lp = Lencl(&s, tau);
      *w = w0 - h;
      Lm = Lencl(&s, tau);
      *w    = w0;
      fd[q] = 2.0 * (Lp - Lm) / (2 * h); /* scale 2 */
    }
    for (PetscInt q = 0; q < P; q++) {
      num += (g[q] - fd[q]) * (g[q] - fd[q]);
      den += fd[q] * fd[q];
    }
    printf("L_encl %s %s m=%" PetscInt_FMT " p=%d: L = %.6g, |grad| = %.4g, relative error against central differences %.2e\n", combos[c].sys, SRModelTypes[combos[c].type], combos[c].steps, (int)combos[c].p, L, sqrt(den), sqrt(num / den));
    assert_true(den > 0);
    assert_true(sqrt(num / den) < 1e-5);
    CHK(PetscFree2(g, fd));
    SetupDestroy(&s);
  }
}

/* e_k from the training pass against e_k recomputed from the sound interval enclosure. */
static void test_excess_matches_sound_enclosure(void **state)
{
  for (int c = 0; c < NCOMBO; c++) {
    Setup          s;
    double        *e, *E, L;
    SRCellStatus  *st;
    PetscInt       K, dim;
    SetupCreate(&combos[c], 31 + c, &s);
    K   = s.cells->K;
    dim = s.cells->n;
    CHK(PetscMalloc3(K, &e, 2 * dim * K, &E, K, &st));
    CHK(SRLossEncl(s.model, s.cells, &s.T, 0.01, 1.0, &L, NULL, e));
    CHK(SREnclosureCompute(s.model, SR_ENCLOSURE_INTERVAL, s.cells, 0, K, E, st));
    for (PetscInt k = 0; k < K; k++) {
      double blo[SR_MAX_DIM], bhi[SR_MAX_DIM], v[SR_MAX_DIM], ek = 0;
      PetscInt nb = 0;
      for (PetscInt d = 0; d < dim; d++) {
        blo[d] = INFINITY;
        bhi[d] = -INFINITY;
      }
      for (PetscInt t = s.T.ptr[k]; t < s.T.ptr[k + 1]; t++) {
        const PetscInt j = s.T.idx[t];
        if (j == K) continue;
        nb++;
        for (PetscInt d = 0; d < dim; d++) {
          blo[d] = fmin(blo[d], s.cells->c[j * dim + d] - s.cells->w[j * dim + d]);
          bhi[d] = fmax(bhi[d], s.cells->c[j * dim + d] + s.cells->w[j * dim + d]);
        }
      }
      assert_int_equal(st[k], SR_CELL_OK);
      for (PetscInt d = 0; d < dim; d++) v[d] = fmax(E[2 * dim * k + dim + d] - bhi[d], 0) + fmax(blo[d] - E[2 * dim * k + d], 0);
      for (PetscInt d = 0; d < dim; d++) {
        if (combos[c].p == SR_NORM_1) ek += v[d];
        else if (combos[c].p == SR_NORM_2) ek += v[d] * v[d];
        else ek = fmax(ek, v[d]);
      }
      if (combos[c].p == SR_NORM_2) ek = sqrt(ek);
      if (!nb) ek = 0;
      /* the sound box is the wider one, by rounding-level margins only */
      assert_true(e[k] <= ek + 1e-12);
      assert_true(ek - e[k] <= 1e-9 * (1 + ek));
    }
    /* and the softmax over cells: max e <= L <= max e + tau log K */
    {
      double m = 0;
      for (PetscInt k = 0; k < K; k++) m = fmax(m, e[k]);
      assert_true(L >= m - 1e-15 && L <= m + 0.01 * log((double)K) + 1e-15);
    }
    CHK(PetscFree3(e, E, st));
    SetupDestroy(&s);
  }
}

static double Lwidth1(Setup *s, PetscInt bisect)
{
  double L;
  CHK(SRLossWidth1(s->model, s->cells, bisect, 1.0, &L, NULL, NULL));
  return L;
}

/* L_w1 (-loss width1, the positive control's treatment): its gradient against central
   differences (e_k's dependence on u through the plant's Jacobians is a difference inside it,
   so the tolerance is theirs), and e_k against the first-order box of the closed-loop map computed here by
   differences of SRModelEvaluate at the cell centre, its remainder against the deviation of
   f_phi from that linearisation over the cell. */
static void test_width1_gradient_matches_finite_differences(void **state)
{
  for (int cb = 0; cb < 2 * NCOMBO; cb++) {
    const int      c = cb % NCOMBO;
    const PetscInt bisect = cb / NCOMBO; /* the whole cell, and 2 x 2 sub-boxes as |M_tight| */
    Setup          s;
    double        *g, *fd, *e, L, num = 0, den = 0;
    PetscInt       P, K, dim;
    SetupCreate(&combos[c], 51 + c, &s);
    P   = s.model->mlp->nparams;
    K   = s.cells->K;
    dim = s.cells->n;
    CHK(PetscCalloc3(P, &g, P, &fd, K, &e));
    CHK(SRLossWidth1(s.model, s.cells, bisect, 2.0, &L, g, e));
    assert_true(L > 0);
    for (PetscInt q = 0; q < P; q++) {
      double *w = &s.model->mlp->params[q], w0 = *w, h = 1e-5 * PetscMax(1.0, fabs(w0)), Lp, Lm;
      *w    = w0 + h;
      Lp    = Lwidth1(&s, bisect);
      *w    = w0 - h;
      Lm    = Lwidth1(&s, bisect);
      *w    = w0;
      fd[q] = 2.0 * (Lp - Lm) / (2 * h); /* scale 2 */
    }
    for (PetscInt q = 0; q < P; q++) {
      num += (g[q] - fd[q]) * (g[q] - fd[q]);
      den += fd[q] * fd[q];
    }
    printf("L_w1 bisect %" PetscInt_FMT " %s %s m=%" PetscInt_FMT ": L = %.6g, |grad| = %.4g, relative error against central differences %.2e\n", bisect, combos[c].sys, SRModelTypes[combos[c].type], combos[c].steps, L, sqrt(den), sqrt(num / den));
    assert_true(den > 0);
    assert_true(sqrt(num / den) < 1e-4);
    /* e_k = first-order part + remainder part.  The first-order part from the closed-loop
       Jacobian by differences of f_phi itself (network and plant together); the remainder part
       >= 0 and, in dynamics mode (f = x + N, no plant), at least the deviation of f from its
       linearisation at the centre on a 9^n lattice of the cell (the mean-value rule bounds it) */
    for (PetscInt k = 0; k < K && bisect == 0; k++) {
      double x[2 * SR_MAX_DIM], y[2 * SR_MAX_DIM], J[SR_MAX_DIM * SR_MAX_DIM], y0[SR_MAX_DIM], e1 = 0, dev = 0, npts = 1;
      for (PetscInt j = 0; j < dim; j++) {
        const double h = 1e-6;
        for (PetscInt d = 0; d < dim; d++) x[d] = x[dim + d] = s.cells->c[k * dim + d];
        x[j] += h;
        x[dim + j] -= h;
        CHK(SRModelEvaluate(s.model, 2, x, y));
        for (PetscInt i = 0; i < dim; i++) J[i * dim + j] = (y[i] - y[dim + i]) / (2 * h);
      }
      for (PetscInt i = 0; i < dim; i++)
        for (PetscInt j = 0; j < dim; j++) e1 += fabs(J[i * dim + j]) * s.cells->w[k * dim + j] / s.cells->w[k * dim + i];
      assert_true(e[k] >= e1 - 1e-5 * (1 + e1));
      if (combos[c].type != SR_MODEL_DYNAMICS) continue;
      CHK(SRModelEvaluate(s.model, 1, s.cells->c + k * dim, y0));
      for (PetscInt d = 0; d < dim; d++) npts *= 9;
      for (PetscInt i = 0; i < dim; i++) {
        double m = 0;
        for (PetscInt q = 0; q < (PetscInt)npts; q++) {
          PetscInt qq = q;
          double   lin;
          for (PetscInt d = 0; d < dim; d++) {
            x[d] = s.cells->c[k * dim + d] + s.cells->w[k * dim + d] * (-1.0 + 0.25 * (double)(qq % 9));
            qq /= 9;
          }
          CHK(SRModelEvaluate(s.model, 1, x, y));
          lin = y0[i];
          for (PetscInt j = 0; j < dim; j++) lin += J[i * dim + j] * (x[j] - s.cells->c[k * dim + j]);
          m = fmax(m, fabs(y[i] - lin));
        }
        dev += m / s.cells->w[k * dim + i];
      }
      assert_true(dev <= e[k] - e1 + 1e-5 * (1 + e[k]));
    }
    CHK(PetscFree3(g, fd, e));
    SetupDestroy(&s);
  }
}

/* The plant's Jacobians in L_w1 (SRLossWidth1HeldJacobian: the exact forward-mode Jacobian
   chained over the m held steps) against central differences of the held step itself
   (SRSystemStepHeld), at random states of the domain and controls within the bound: a chain
   evaluated at the wrong points, multiplied in the wrong order or missing B's carried term
   differs from the differences by far more than their error (~1e-9 here). */
static void test_width1_plant_jacobian_matches_differences(void **state)
{
  const struct {
    const char *sys;
    PetscInt    steps;
  } cases[] = {
    { "pendulum", 1 }, { "pendulum", 4 }, { "pendulum", 10 }, { "dubins", 1 }, { "dubins", 3 }, { "dubins", 7 }, { "ode", 1 }, { "ode", 4 },
  };
  /* a continuous plant (der lines: the plant's one-period flow and its Jacobian, SPEC §16) */
  static const char ode[] = "states th w\nconst umax = 8\noutputs 1\ninput th\ninput w\n"
                            "control u = umax * tanh(y1)\nder th = w\nder w = 9.81 * sin(th) - 0.1 * w + u\n"
                            "period 0.05\nhorizon 5\ndomain th in [-1, 1]\ndomain w in [-2, 2]\nbound umax\n";
  for (int c = 0; c < (int)(sizeof(cases) / sizeof(cases[0])); c++) {
    SRSystem sys;
    double   worst = 0.0, scale = 0.0;
    if (!strcmp(cases[c].sys, "ode")) CHK(SRSystemCreateFromPlantText(PETSC_COMM_SELF, "plant", "the test's continuous plant", ode, NULL, &sys));
    else CHK(SRSystemCreate(PETSC_COMM_SELF, cases[c].sys, NULL, &sys));
    sys->control_steps = cases[c].steps;
    for (PetscInt t = 0; t < 20; t++) {
      const PetscInt n = sys->n, nu = sys->nu;
      double         x[SR_MAX_DIM], u[SR_MAX_DIM], A[SR_MAX_DIM * SR_MAX_DIM], B[SR_MAX_DIM * SR_MAX_DIM], yp[SR_MAX_DIM], ym[SR_MAX_DIM];
      for (PetscInt d = 0; d < n; d++) x[d] = sys->dlo[d] + (sys->dhi[d] - sys->dlo[d]) * SRRandomUniform(61 + c, SR_STREAM_TEST, t * 16 + d);
      for (PetscInt j = 0; j < nu; j++) u[j] = sys->umax * (2.0 * SRRandomUniform(61 + c, SR_STREAM_TEST, t * 16 + 8 + j) - 1.0);
      SRLossWidth1HeldJacobian(sys, x, u, A, B);
      for (PetscInt j = 0; j < n + nu; j++) {
        const double h = 1e-6 * PetscMax(1.0, j < n ? fabs(x[j]) : sys->umax);
        double      *v = j < n ? x : u, v0;
        const PetscInt jj = j < n ? j : j - n;
        v0     = v[jj];
        v[jj]  = v0 + h;
        SRSystemStepHeld(sys, x, u, yp);
        v[jj] = v0 - h;
        SRSystemStepHeld(sys, x, u, ym);
        v[jj] = v0;
        for (PetscInt i = 0; i < n; i++) {
          const double fd = (yp[i] - ym[i]) / (2 * h), ex = j < n ? A[i * n + j] : B[i * nu + jj];
          worst           = fmax(worst, fabs(ex - fd));
          scale           = fmax(scale, fabs(fd));
        }
      }
    }
    printf("L_w1 plant Jacobian %s m=%" PetscInt_FMT ": max |exact - central differences| %.2e (largest entry %.3g)\n", cases[c].sys, cases[c].steps, worst, scale);
    assert_true(scale > 0);
    assert_true(worst <= 1e-6 * (1.0 + scale));
    CHK(SRSystemDestroy(&sys));
  }
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_gradient_matches_finite_differences),
    cmocka_unit_test(test_excess_matches_sound_enclosure),
    cmocka_unit_test(test_width1_gradient_matches_finite_differences),
    cmocka_unit_test(test_width1_plant_jacobian_matches_differences),
  };
  int rc;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  PetscCall(PetscFinalize());
  return rc;
}
