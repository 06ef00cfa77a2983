/* Soundness of the network over affine forms (SPEC §15, §14; src/bounds/netaffine.c):
   random networks with relu, tanh, sigmoid and linear layers, random affine input forms over
   m = 1..6 coordinates (and remainders); at sampled coordinates xi (corners first) the input
   points are drawn inside the forms, the network is evaluated in 200-bit MPFR, and the value
   must lie in the output form evaluated at xi.  A planted shrink of the output must be caught.
   The trials are budgeted: at least MIN of them (a wrong relu slope in CROWN showed its first
   escapes only after a few hundred, issue 37), then more while the wall time stays under
   SECONDS (at most 20 MIN); every trial is fixed by its index, so an escape it prints is
   reproduced by running that many trials.
     test_netaffine [MIN trials (60)] [SECONDS (0)] */
#include <mpfr.h>
#include <petscsys.h>
#include <simreach/netaffine.h>
#include <stdlib.h>

#define PREC 200

static double U(unsigned long *s)
{
  *s = *s * 6364136223846793005UL + 1442695040888963407UL;
  return (double)(*s >> 11) * 0x1p-53;
}

/* y = N(x) in MPFR; x, y of the network's widths */
static void NetMPFR(SRMLP mlp, mpfr_t *x, mpfr_t *y)
{
  mpfr_t *a = malloc(sizeof(mpfr_t) * mlp->maxwidth), *b = malloc(sizeof(mpfr_t) * mlp->maxwidth), t;
  mpfr_init2(t, PREC);
  for (PetscInt j = 0; j < mlp->maxwidth; j++) mpfr_init2(a[j], PREC), mpfr_init2(b[j], PREC);
  for (PetscInt j = 0; j < mlp->width[0]; j++) {
    mpfr_set(a[j], x[j], MPFR_RNDN);
    if (mlp->has_in) { /* (clip(x) - mean) / range */
      if (mpfr_cmp_d(a[j], mlp->inlo[j]) < 0) mpfr_set_d(a[j], mlp->inlo[j], MPFR_RNDN);
      if (mpfr_cmp_d(a[j], mlp->inhi[j]) > 0) mpfr_set_d(a[j], mlp->inhi[j], MPFR_RNDN);
      mpfr_sub_d(a[j], a[j], mlp->inmean[j], MPFR_RNDN), mpfr_div_d(a[j], a[j], mlp->inrange[j], MPFR_RNDN);
    }
  }
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt ni = mlp->width[l], no = mlp->width[l + 1];
    for (PetscInt o = 0; o < no; o++) {
      mpfr_set_d(b[o], mlp->params[mlp->boff[l] + o], MPFR_RNDN);
      for (PetscInt j = 0; j < ni; j++) mpfr_mul_d(t, a[j], mlp->params[mlp->woff[l] + o * ni + j], MPFR_RNDN), mpfr_add(b[o], b[o], t, MPFR_RNDN);
      switch (mlp->act[l]) {
      case SR_ACT_RELU: if (mpfr_sgn(b[o]) < 0) mpfr_set_zero(b[o], 1); break;
      case SR_ACT_TANH: mpfr_tanh(b[o], b[o], MPFR_RNDN); break;
      case SR_ACT_SIGMOID: mpfr_neg(b[o], b[o], MPFR_RNDN), mpfr_exp(b[o], b[o], MPFR_RNDN), mpfr_add_ui(b[o], b[o], 1, MPFR_RNDN), mpfr_ui_div(b[o], 1, b[o], MPFR_RNDN); break;
      default: break;
      }
    }
    for (PetscInt o = 0; o < no; o++) mpfr_set(a[o], b[o], MPFR_RNDN);
  }
  for (PetscInt o = 0; o < mlp->width[mlp->nlayers]; o++) {
    mpfr_set(y[o], a[o], MPFR_RNDN);
    if (mlp->has_out) mpfr_mul_d(y[o], y[o], mlp->outscale[o], MPFR_RNDN), mpfr_add_d(y[o], y[o], mlp->outoffset[o], MPFR_RNDN);
  }
  for (PetscInt j = 0; j < mlp->maxwidth; j++) mpfr_clear(a[j]), mpfr_clear(b[j]);
  mpfr_clear(t);
  free(a), free(b);
}

/* distance of v outside the form f at xi (0 inside) */
static double Out(int m, const SRAffine *f, const double *xi, mpfr_t v)
{
  mpfr_t c, t;
  double d;
  mpfr_inits2(PREC, c, t, (mpfr_ptr)0);
  mpfr_set_d(c, f->c0, MPFR_RNDN);
  for (int i = 0; i < m; i++) mpfr_set_d(t, f->c[i], MPFR_RNDN), mpfr_mul_d(t, t, xi[i], MPFR_RNDN), mpfr_add(c, c, t, MPFR_RNDN);
  mpfr_sub(t, v, c, MPFR_RNDN);
  d = mpfr_get_d(t, MPFR_RNDN);
  mpfr_clears(c, t, (mpfr_ptr)0);
  /* the MPFR value is rounded to a double above: compare with a margin of 2 ulp of |v| */
  if (d < f->r.lo) return f->r.lo - d;
  if (d > f->r.hi) return d - f->r.hi;
  return 0;
}

int main(int argc, char **argv)
{
  int           trials = argc > 1 ? atoi(argv[1]) : 60, escapes = 0, planted = 0, checked = 0, caught[4] = {0, 0, 0, 0}, tr;
  const double  budget = argc > 2 ? atof(argv[2]) : 0.0, t0 = MPI_Wtime();
  double        wsum[3] = {0, 0, 0};
  int           direct = 0;
  unsigned long s      = 7;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (tr = 0; tr < trials || (tr < 20 * trials && MPI_Wtime() - t0 < budget); tr++) {
    const int      m = 1 + tr % 6, nin = 1 + (tr / 6) % 5, nout = 1 + tr % 3, nh = 1 + tr % 3;
    PetscInt       w[SR_MAX_LAYERS];
    SRMLP          mlp;
    SRAffine       in[8], outs[4][4], *work;
    const double   scale = tr % 4 == 0 ? 1e-3 : tr % 4 == 1 ? 0.1 : 1.0;
    for (int l = 0; l < nh; l++) w[l] = 3 + (tr + l) % 20;
    PetscCall(SRMLPCreate(nin, nh, w, nout, &mlp));
    PetscCall(SRMLPInitialize(mlp, (uint64_t)tr));
    for (PetscInt k = 0; k < mlp->nparams; k++) mlp->params[k] += 0.3 * (U(&s) - 0.5);
    for (PetscInt l = 0; l < mlp->nlayers; l++) PetscCall(SRMLPSetActivation(mlp, l, (SRActivation)((tr + 3 * l) % 4)));
    for (int j = 0; j < nin; j++) {
      in[j] = SRAffineConstant(2 * U(&s) - 1);
      for (int i = 0; i < m; i++) in[j].c[i] = scale * (2 * U(&s) - 1);
      /* remainders: small, or (every third trial) as wide as the coefficients and lopsided, so a
         bound that takes the wrong end of a remainder escapes at the sampled ends below */
      if (tr % 3 == 2) in[j].r = U(&s) < 0.5 ? (SRInterval){-scale * 0.05 * U(&s), scale * U(&s)} : (SRInterval){-scale * U(&s), scale * 0.05 * U(&s)};
      else in[j].r = (SRInterval){-scale * 0.1 * U(&s), scale * 0.1 * U(&s)};
    }
    if (tr % 5 == 4) { /* transforms of imported networks (SPEC §14); clipping in every other such trial */
      double lo[8], hi[8], mean[8], range[8], sc[4], off[4];
      for (int j = 0; j < nin; j++) lo[j] = tr % 10 == 4 ? -0.3 : -INFINITY, hi[j] = tr % 10 == 4 ? 0.4 : INFINITY, mean[j] = U(&s) - 0.5, range[j] = 0.1 + 2 * U(&s);
      for (int o = 0; o < nout; o++) sc[o] = 3 * U(&s) - 1, off[o] = 20 * U(&s) - 10;
      PetscCall(SRMLPSetInputTransform(mlp, lo, hi, mean, range));
      PetscCall(SRMLPSetOutputTransform(mlp, sc, off));
    }
    work = malloc(sizeof(SRAffine) * SR_NET_WORK(mlp));
    for (int how = 0; how < 3; how++)
      if (!SRMLPEncloseAffine(mlp, m, in, outs[how], work, (SRNetEnclosure)how)) {
        printf("trial %d method %d: no enclosure\n", tr, how);
        escapes++;
      }
    /* method 3: CROWN on the inputs as they are, remainders kept (SRMLPEncloseAffine turns them
       into symbols first; a plant of many states may leave no room for that) */
    const int nm = tr % 5 == 4 ? 3 : 4;
    if (nm == 4 && !SRMLPForwardCrown(mlp, m, in, outs[3])) {
      printf("trial %d method 3: no enclosure\n", tr);
      escapes++;
    }
    direct += nm == 4;
    for (int smp = 0; smp < 40; smp++) {
      double xi[8];
      mpfr_t x[8], y[4], t;
      mpfr_init2(t, PREC);
      for (int i = 0; i < m; i++) xi[i] = smp < (1 << m) ? ((smp >> i) & 1 ? 1.0 : -1.0) : 2 * U(&s) - 1;
      for (int j = 0; j < nin; j++) {
        /* the remainder's value: an end of r in every other sample (the worst case of a bound), else inside */
        double rr = smp % 2 ? (U(&s) < 0.5 ? in[j].r.lo : in[j].r.hi) : in[j].r.lo + U(&s) * (in[j].r.hi - in[j].r.lo);
        mpfr_init2(x[j], PREC);
        mpfr_set_d(x[j], in[j].c0, MPFR_RNDN);
        for (int i = 0; i < m; i++) mpfr_set_d(t, in[j].c[i], MPFR_RNDN), mpfr_mul_d(t, t, xi[i], MPFR_RNDN), mpfr_add(x[j], x[j], t, MPFR_RNDN);
        mpfr_add_d(x[j], x[j], rr, MPFR_RNDN);
      }
      for (int o = 0; o < nout; o++) mpfr_init2(y[o], PREC);
      NetMPFR(mlp, x, y);
      for (int o = 0; o < nout * nm; o++) {
        const SRAffine *out = outs[o / nout];
        SRAffine        sh  = out[o % nout];
        double          d = Out(m, &sh, xi, y[o % nout]), tol = 4 * 0x1p-52 * fabs(mpfr_get_d(y[o % nout], MPFR_RNDN)) + 1e-300;
        checked++;
        if (d > tol) {
          printf("ESCAPE trial %d sample %d output %d method %d: %.3g outside\n", tr, smp, o % nout, o / nout, d);
          escapes++;
        }
        for (int i = 0; i < m; i++) sh.c[i] *= 0.5; /* planted shrink */
        sh.r.lo *= 0.5, sh.r.hi *= 0.5;
        if (Out(m, &sh, xi, y[o % nout]) > tol) planted++, caught[o / nout]++;
      }
      for (int j = 0; j < nin; j++) mpfr_clear(x[j]);
      for (int o = 0; o < nout; o++) mpfr_clear(y[o]);
      mpfr_clear(t);
    }
    for (int how = 0; how < 3; how++)
      for (int o = 0; o < nout; o++) {
        SRInterval R = SRAffineRange(m, &outs[how][o]);
        wsum[how] += R.hi - R.lo;
      }
    free(work);
    PetscCall(SRMLPDestroy(&mlp));
  }
  printf("netaffine: %d trials, %d checks (forward, crown, best; crown on %d with the remainders kept), %d escapes; planted shrink caught %d times (%d, %d, %d, %d); summed output widths forward %.4g crown %.4g best %.4g\n", tr, checked, direct, escapes, planted, caught[0], caught[1], caught[2], caught[3], wsum[0], wsum[1], wsum[2]);
  PetscCall(PetscFinalize());
  return escapes || !caught[0] || !caught[1] || !caught[2] || !caught[3] || wsum[2] > wsum[0];
}
