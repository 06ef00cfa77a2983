/* The 200-bit MPFR oracle of f_phi shared by the soundness tests (test_soundness.c,
   test_partition.c): the network and the true step evaluated in MPFR at a double point,
   so an escape can be confirmed independently of the library's own arithmetic.
   Include after <mpfr.h>, <simreach/model.h> and a definition of PREC. */
#pragma once

typedef struct {
  PetscInt maxw;
  mpfr_t  *a, *b, t, s, u;
} Oracle;

static void OracleCreate(PetscInt maxw, Oracle *o)
{
  o->maxw = maxw;
  o->a    = malloc(sizeof(mpfr_t) * maxw);
  o->b    = malloc(sizeof(mpfr_t) * maxw);
  for (PetscInt i = 0; i < maxw; i++) {
    mpfr_init2(o->a[i], PREC);
    mpfr_init2(o->b[i], PREC);
  }
  mpfr_inits2(PREC, o->t, o->s, o->u, (mpfr_ptr)0);
}

static void OracleDestroy(Oracle *o)
{
  for (PetscInt i = 0; i < o->maxw; i++) {
    mpfr_clear(o->a[i]);
    mpfr_clear(o->b[i]);
  }
  free(o->a);
  free(o->b);
  mpfr_clears(o->t, o->s, o->u, (mpfr_ptr)0);
}

/* y[0..n) = f(x) in o->b[0..n) */
static void OracleEval(Oracle *o, SRModel model, const double *x)
{
  SRMLP    mlp = model->mlp;
  SRSystem sys = model->sys;
  mpfr_t  *in = o->a, *out = o->b;
  for (PetscInt j = 0; j < mlp->width[0]; j++) {
    mpfr_set_d(in[j], x[j], MPFR_RNDN);
    if (mlp->has_in) { /* SPEC §14: (clip(x) - mean) / range */
      if (x[j] < mlp->inlo[j]) mpfr_set_d(in[j], mlp->inlo[j], MPFR_RNDN);
      if (x[j] > mlp->inhi[j]) mpfr_set_d(in[j], mlp->inhi[j], MPFR_RNDN);
      mpfr_sub_d(in[j], in[j], mlp->inmean[j], MPFR_RNDN);
      mpfr_div_d(in[j], in[j], mlp->inrange[j], MPFR_RNDN);
    }
  }
  for (PetscInt l = 0; l < mlp->nlayers; l++) {
    const PetscInt nin = mlp->width[l], nout = mlp->width[l + 1];
    for (PetscInt i = 0; i < nout; i++) {
      mpfr_set_d(out[i], mlp->params[mlp->boff[l] + i], MPFR_RNDN);
      for (PetscInt j = 0; j < nin; j++) {
        mpfr_mul_d(o->t, in[j], mlp->params[mlp->woff[l] + i * nin + j], MPFR_RNDN);
        mpfr_add(out[i], out[i], o->t, MPFR_RNDN);
      }
      switch (mlp->act[l]) { /* SPEC §14 */
      case SR_ACT_TANH:
        mpfr_tanh(out[i], out[i], MPFR_RNDN);
        break;
      case SR_ACT_RELU:
        if (mpfr_sgn(out[i]) < 0) mpfr_set_zero(out[i], 1);
        break;
      case SR_ACT_SIGMOID: /* 1 / (1 + exp(-z)) */
        mpfr_neg(o->t, out[i], MPFR_RNDN);
        mpfr_exp(o->t, o->t, MPFR_RNDN);
        mpfr_add_ui(o->t, o->t, 1, MPFR_RNDN);
        mpfr_ui_div(out[i], 1, o->t, MPFR_RNDN);
        break;
      default:
        break;
      }
    }
    mpfr_t *tmp = in;
    in          = out;
    out         = tmp;
  }
  /* N(x) in in[0..nout); SPEC §14 output scaling */
  if (mlp->has_out)
    for (PetscInt i = 0; i < mlp->width[mlp->nlayers]; i++) {
      mpfr_mul_d(in[i], in[i], mlp->outscale[i], MPFR_RNDN);
      mpfr_add_d(in[i], in[i], mlp->outoffset[i], MPFR_RNDN);
    }
  if (model->type == SR_MODEL_DYNAMICS) {
    for (PetscInt d = 0; d < model->n; d++) {
      mpfr_add_d(o->t, in[d], x[d], MPFR_RNDN);
      mpfr_set(o->b[d], o->t, MPFR_RNDN);
    }
    return;
  }
  if (SRModelControlIsClipped(model)) { /* imported kind (SPEC §14): u = clip(N, -umax, umax), exact */
    mpfr_set(o->u, in[0], MPFR_RNDN);
    if (mpfr_cmp_d(o->u, sys->umax) > 0) mpfr_set_d(o->u, sys->umax, MPFR_RNDN);
    if (mpfr_cmp_d(o->u, -sys->umax) < 0) mpfr_set_d(o->u, -sys->umax, MPFR_RNDN);
  } else {
    mpfr_tanh(o->u, in[0], MPFR_RNDN);
    mpfr_mul_d(o->u, o->u, sys->umax, MPFR_RNDN); /* u = umax tanh(N) */
  }
  /* the state in o->b; -control_steps m: m steps with the same u (SPEC §2) */
  for (PetscInt d = 0; d < model->n; d++)
    mpfr_set_d(o->b[d], x[d], MPFR_RNDN);
  for (PetscInt step = 0; step < sys->control_steps; step++) {
    if (!strcmp(sys->name, "pendulum")) {
      /* w' = w + dt (g sin th - b w + u), th' = th + dt w' */
      mpfr_sin(o->t, o->b[0], MPFR_RNDN);
      mpfr_mul_d(o->t, o->t, sys->param[0], MPFR_RNDN);
      mpfr_mul_d(o->s, o->b[1], sys->param[1], MPFR_RNDN);
      mpfr_sub(o->t, o->t, o->s, MPFR_RNDN);
      mpfr_add(o->t, o->t, o->u, MPFR_RNDN);
      mpfr_mul_d(o->t, o->t, sys->dt, MPFR_RNDN);
      mpfr_add(o->b[1], o->t, o->b[1], MPFR_RNDN);
      mpfr_mul_d(o->t, o->b[1], sys->dt, MPFR_RNDN);
      mpfr_add(o->b[0], o->t, o->b[0], MPFR_RNDN);
    } else {
      /* dubins: px + v dt cos h, py + v dt sin h, h + dt u */
      mpfr_cos(o->t, o->b[2], MPFR_RNDN);
      mpfr_mul_d(o->t, o->t, sys->param[0], MPFR_RNDN);
      mpfr_mul_d(o->t, o->t, sys->dt, MPFR_RNDN);
      mpfr_add(o->b[0], o->t, o->b[0], MPFR_RNDN);
      mpfr_sin(o->t, o->b[2], MPFR_RNDN);
      mpfr_mul_d(o->t, o->t, sys->param[0], MPFR_RNDN);
      mpfr_mul_d(o->t, o->t, sys->dt, MPFR_RNDN);
      mpfr_add(o->b[1], o->t, o->b[1], MPFR_RNDN);
      mpfr_mul_d(o->t, o->u, sys->dt, MPFR_RNDN);
      mpfr_add(o->b[2], o->t, o->b[2], MPFR_RNDN);
    }
  }
}
