/* Simulation of the closed loop from a point (include/simreach/odeloop.h, SPEC §15): the
   non-validated trajectory and its running violation scores, which choose the points that the
   validated refutation (odeloop.c, SRPieceRefute) then tries to confirm.  Nothing here proves
   or refutes anything by itself. */
#include <simreach/odeloop.h>
#include <simreach/private/loopcontrols.h>

#include <stdlib.h>

/* the same in doubles (simulation; not validated) */
static void SpecEvalDouble_Private(const SRExpr *e, const double *vars, double *val)
{
  for (int k = 0; k < e->n; k++) {
    const SRExprNode *x = &e->node[k];
    const double      a = x->a >= 0 ? val[x->a] : 0, b = x->b >= 0 ? val[x->b] : 0;
    switch (x->op) {
    case SR_X_CONST: val[k] = SRIntervalMid(x->value); break;
    case SR_X_VAR: val[k] = vars[x->var]; break;
    case SR_X_ADD: val[k] = a + b; break;
    case SR_X_SUB: val[k] = a - b; break;
    case SR_X_MUL: val[k] = a * b; break;
    case SR_X_DIV: val[k] = a / b; break;
    case SR_X_NEG: val[k] = -a; break;
    case SR_X_SQR: val[k] = a * a; break;
    case SR_X_SIN: val[k] = sin(a); break;
    case SR_X_COS: val[k] = cos(a); break;
    case SR_X_TAN: val[k] = tan(a); break;
    case SR_X_EXP: val[k] = exp(a); break;
    case SR_X_LOG: val[k] = log(a); break;
    case SR_X_TANH: val[k] = tanh(a); break;
    case SR_X_SQRT: val[k] = sqrt(a > 0 ? a : 0.0); break;
    case SR_X_LE: /* plant files only */
    case SR_X_LT:
    case SR_X_IF: val[k] = NAN; break;
    }
  }
}

/* violation score of the state x at time t for the running scores (when: the time of each
   constraint's worst score so far) */
static void Score_Private(const SRSpec *S, const double *x, double t, bool end, double *score, double *evmin, double *when, double *sval)
{
  bool evaluated = false;
  for (int c = 0; c < S->nc; c++) {
    const SRSpecConstraint *C = &S->c[c];
    double                  worst, s[SR_SPEC_MAX_ATOMS];
    bool                    in = t >= C->t0 && t <= C->t1;
    if (C->kind == SR_SPEC_AT_END) in = end;
    if (!in) continue;
    if (C->nonlinear && !evaluated) SpecEvalDouble_Private(&S->dag, x, sval), evaluated = true;
    for (int k = 0; k < C->natoms; k++) {
      const SRSpecAtom *A = &C->atom[k];
      s[k]                = 0;
      if (A->root >= 0) s[k] = sval[A->root];
      else
        for (int i = 0; i < S->n; i++)
          s[k] += SRIntervalMid(A->a[i]) * x[i];
      s[k] -= SRIntervalMid(A->b);
      if (isnan(s[k])) s[k] = INFINITY; /* a domain error counts as broken (a hint only) */
    }
    worst = SRSpecCombine(C, s, NULL);
    if (C->kind == SR_SPEC_EVENTUALLY)
      evmin[c] = fmin(evmin[c], worst);
    else if (worst > score[c])
      score[c] = worst, when[c] = t;
  }
}

double SRSimulate(SRLoop *L, const double *x0, int nsub, double *traj) { return SRSimulateWorst(L, x0, nsub, traj, NULL); }

/* true when an always constraint is already broken: the answer of the simulation is known */
static bool Broken_Private(const SRSpec *S, const double *score)
{
  for (int c = 0; c < S->nc; c++)
    if (S->c[c].kind == SR_SPEC_ALWAYS && score[c] > 0) return true;
  return false;
}

double SRSimulateWorst(SRLoop *L, const double *x0, int nsub, double *traj, SRSimViolation *w)
{
  const SRPlant *pl = L->plant;
  const SRSpec  *S  = L->spec;
  const int      n  = pl->n;
  double         x[SR_AFFINE_MAX], in[SR_PLANT_MAX_INPUTS], y[SR_PLANT_MAX_OUTPUTS], score[SR_SPEC_MAX_CONSTRAINTS], evmin[SR_SPEC_MAX_CONSTRAINTS], when[SR_SPEC_MAX_CONSTRAINTS], best = -INFINITY;
  double        *v = (double *)L->work, *val = v + pl->nvars, *sw = val + pl->dag.n + 1, *sv = (double *)L->sval;
  const double   h = pl->period, dt = h / nsub;
  int            bc = -1;
  const SRController *ct = pl->select && L->ctrls ? &L->ctrls[pl->select - 1] : L->ctrl;

  if (pl->select && (!L->ctrls || L->nctrl != pl->nout)) { /* one network per output (the caller's check) */
    L->eval_failed = true;
    return -INFINITY;
  }

  for (int c = 0; c < S->nc; c++)
    score[c] = -INFINITY, evmin[c] = INFINITY, when[c] = S->c[c].t1;
  for (int i = 0; i < n; i++)
    x[i] = x0[i];
  if (traj)
    for (int i = 0; i < n; i++)
      traj[i] = x[i];
  /* from t = 0; without a trajectory to record, the simulation stops at its first violation of
     an always constraint (SPEC §15 turn 4) */
  Score_Private(S, x, 0.0, pl->steps == 0, score, evmin, when, sv);
  for (int j = 0; j < pl->steps && (traj || !Broken_Private(S, score)); j++) {
    for (int k = 0; k < pl->nvars; k++)
      v[k] = 0;
    for (int i = 0; i < n; i++)
      v[i] = x[i];
    SRExprEvalDouble(&pl->dag, v, val);
    for (int i = 0; i < pl->nin; i++)
      in[i] = val[pl->in_root[i]];
    if (ct->eval(ct->ctx, in, y)) { /* out of memory (the network's cache): no answer from here */
      L->eval_failed = true;
      return -INFINITY;
    }
    for (int k = 0; k < pl->nout; k++)
      v[SR_SLOT_Y(k)] = y[k];
    if (pl->select) { /* the next period's network: the first largest output (SPEC §15 turn 4) */
      int a = 0;
      for (int k = 1; k < pl->nout; k++)
        if (y[k] > y[a]) a = k;
      ct = &L->ctrls[a];
    }
    SRExprEvalDouble(&pl->dag, v, val);
    for (int k = 0; k < pl->nu; k++)
      v[SR_SLOT_U(k)] = val[pl->u_root[k]];
    for (int k = 0; k < pl->nw; k++)
      v[SR_SLOT_W(k)] = SRIntervalMid(pl->wbox[k]);
    for (int s = 0; s < nsub; s++) {
      double xn[SR_AFFINE_MAX];
      if (pl->discrete && s + 1 < nsub) { /* the state exists at the sample times only: held in traj, not scored */
        if (traj)
          for (int i = 0; i < n; i++)
            traj[((size_t)j * nsub + s + 1) * n + i] = x[i];
        continue;
      }
      SRFlowSimulate(pl, x, v, dt, 2, xn, sw);
      for (int i = 0; i < n; i++)
        x[i] = xn[i];
      if (traj)
        for (int i = 0; i < n; i++)
          traj[((size_t)j * nsub + s + 1) * n + i] = x[i];
      Score_Private(S, x, j * h + (s + 1) * dt, j + 1 == pl->steps && s + 1 == nsub, score, evmin, when, sv);
      if (!traj && Broken_Private(S, score)) break;
    }
  }
  for (int c = 0; c < S->nc; c++) {
    double sc = S->c[c].kind == SR_SPEC_EVENTUALLY ? evmin[c] : score[c];
    if (sc > best) best = sc, bc = c;
  }
  if (w) w->constraint = bc, w->t = bc >= 0 ? when[bc] : 0.0, w->margin = best;
  return best;
}
