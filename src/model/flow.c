/* The validated flow over one control period (include/simreach/odeflow.h, SPEC §15).

   Soundness argument.  Picard: if B is a box with Range(X) + [0, h] g(B) inside B, then the
   Picard operator maps the continuous functions [0, h] -> B into themselves, so the solution
   from every x0 in X exists on [0, h] and stays in B (the a-priori enclosure).  Taylor's
   theorem with the Lagrange remainder, component by component: x_i(s) =
   sum_{k<q} x_{k,i}(x0) s^k + x_{q,i}(x(xi_s)) s^q for some xi_s in [0, s], where x_{k,i}(p)
   is the k-th Taylor coefficient of the solution through p (g is analytic wherever its
   enclosure is finite); x(xi_s) is in B, so the last term is in x_q(B) s^q.  The
   coefficients at x0 are affine forms over the piece, so the sum is evaluated for every x0
   of the piece at once; every operation is outward rounded (include/simreach/affine.h). */
#include <simreach/odeflow.h>

#include <stdlib.h>

void SRFlowOptionsDefault(SRFlowOptions *o)
{
  o->order    = 6;
  o->substeps = 1;
  o->halvings = 8;
  o->shrink   = 0.0;
  o->substeps_max = 16; /* docs/arch.md, "Adaptive sub-steps" */
  o->retry_shrink = 0.0;
  o->join_shrink  = 0.0;
  o->linear       = true;
  o->lin          = NULL;
}

size_t SRFlowWorkSize(const SRPlant *pl, const SRFlowOptions *o)
{
  /* Taylor work + coefficients (q + 1) n + the vars copy + the DAG values */
  return SRExprTaylorWorkSize(&pl->dag, o->order) + (size_t)(o->order + 2) * (size_t)pl->n + (size_t)pl->nvars + (size_t)pl->dag.n + 8;
}

/* S^k, or [0, sup S^k], for a step-length interval S > 0, outward */
static SRInterval Pow_Private(SRInterval S, int k, bool from0)
{
  SRInterval p = SRIntervalPoint(1.0);
  for (int j = 0; j < k; j++)
    p = SRIntervalMul(p, S);
  if (from0 && k > 0) p.lo = 0.0;
  return p;
}

/* g over the box B (states), the other variables as given: its interval enclosure */
static bool FieldBox_Private(const SRPlant *pl, int m, const SRInterval *B, SRAffine *vars, SRAffine *val, SRInterval *G)
{
  for (int i = 0; i < pl->n; i++)
    vars[i] = SRAffineInterval(B[i]);
  SRExprEvalAffine(&pl->dag, m, vars, val);
  for (int i = 0; i < pl->n; i++) {
    G[i] = SRAffineRange(m, &val[pl->f_root[i]]);
    if (!SRIntervalIsBounded(G[i])) return false;
  }
  return true;
}

/* Picard iteration for an a-priori enclosure B over [0, h] */
static bool APriori_Private(const SRPlant *pl, int m, const SRInterval *X, SRAffine *vars, SRAffine *val, SRInterval h, SRInterval *B)
{
  SRInterval G[SR_AFFINE_MAX], E[SR_AFFINE_MAX], H = { 0.0, h.hi };
  if (!FieldBox_Private(pl, m, X, vars, val, G)) return false;
  for (int i = 0; i < pl->n; i++)
    E[i] = SRIntervalAdd(X[i], SRIntervalMul(H, G[i]));
  for (int it = 0; it < 12; it++) {
    bool inside = true;
    /* inflate E: 10 % of its width plus a small absolute margin */
    for (int i = 0; i < pl->n; i++) {
      double w = SRIntervalWidthUp(E[i]), eps = SRAddUp(SRMulUp(0.1, w), SRMulUp(1e-12, SRAddUp(1.0, SRMax_Private(fabs(E[i].lo), fabs(E[i].hi)))));
      B[i] = (SRInterval) { SRSubDown(E[i].lo, eps), SRAddUp(E[i].hi, eps) };
    }
    if (!FieldBox_Private(pl, m, B, vars, val, G)) return false;
    for (int i = 0; i < pl->n; i++) {
      E[i] = SRIntervalAdd(X[i], SRIntervalMul(H, G[i]));
      if (!SRIntervalSubset(E[i], B[i])) inside = false;
    }
    if (inside) {
      for (int i = 0; i < pl->n; i++)
        B[i] = E[i]; /* the solution stays in the image */
      return true;
    }
  }
  return false;
}

static void Shrink_Private(int m, SRAffine *a, double f)
{
  for (int i = 0; i < m; i++)
    a->c[i] *= 1.0 - f;
  a->r.lo *= 1.0 - f;
  a->r.hi *= 1.0 - f;
}

static bool SubStep_Private(const SRPlant *pl, int m, const SRAffine *X, SRAffine *vars, SRInterval h, const SRFlowOptions *o, SRAffine *Xout, SRAffine *tube, SRInterval *tubebox, double *coarse, SRAffine *work)
{
  const int  n = pl->n, q = o->order;
  SRInterval Xr[SR_AFFINE_MAX], B[SR_AFFINE_MAX];
  SRAffine  *C = work, *val = C + (size_t)(q + 2) * n, *tw = val + pl->dag.n + 8;

  for (int i = 0; i < n; i++) {
    Xr[i] = SRAffineRange(m, &X[i]);
    if (!SRIntervalIsBounded(Xr[i])) return false;
  }
  if (!APriori_Private(pl, m, Xr, vars, val, h, B)) return false;
  /* the series from X: coefficients 0 .. q-1 (the q-th computed by the same call is unused) */
  for (int i = 0; i < n; i++)
    C[i] = X[i];
  if (!SRExprTaylor(&pl->dag, m, n, pl->f_root, vars, q - 1, C, tw)) return false;
  {
    SRInterval Rq[SR_AFFINE_MAX];
    /* the remainder: coefficient q over the a-priori box B */
    {
      SRAffine *D = malloc((size_t)(q + 1) * n * sizeof *D);
      bool      ok;
      if (!D) return false;
      for (int i = 0; i < n; i++)
        D[i] = SRAffineInterval(B[i]);
      ok = SRExprTaylor(&pl->dag, m, n, pl->f_root, vars, q, D, tw);
      for (int i = 0; ok && i < n; i++) {
        Rq[i] = SRAffineRange(m, &D[q * n + i]);
        if (!SRIntervalIsBounded(Rq[i])) ok = false;
      }
      free(D);
      if (!ok) return false;
    }
    for (int i = 0; i < n; i++) {
      SRAffine x = C[i], t = C[i], s;
      for (int k = 1; k < q; k++) {
        s = SRAffineScaleInterval(m, Pow_Private(h, k, false), &C[k * n + i]);
        x = SRAffineAdd(m, &x, &s);
        s = SRAffineScaleInterval(m, Pow_Private(h, k, true), &C[k * n + i]);
        t = SRAffineAdd(m, &t, &s);
      }
      if (coarse) { /* the remainder's share of the state's width (a heuristic: no claim rests on it) */
        const SRInterval E = SRIntervalMul(Rq[i], Pow_Private(h, q, false)), W = SRAffineRange(m, &x);
        const double     w = SRIntervalWidthUp(W), e = SRIntervalWidthUp(E), fl = 1e-12 * (1.0 + fabs(W.lo) + fabs(W.hi));
        if (isfinite(e) && isfinite(w)) *coarse = SRMax_Private(*coarse, e / (w > fl ? w : fl));
      }
      x = SRAffineAddInterval(m, &x, SRIntervalMul(Rq[i], Pow_Private(h, q, false)));
      t = SRAffineAddInterval(m, &t, SRIntervalMul(Rq[i], Pow_Private(h, q, true)));
      if (SRAffineIsNaI(&x) || SRAffineIsNaI(&t)) return false;
      Xout[i]    = x;
      tube[i]    = t;
      tubebox[i] = SRIntervalIntersect(SRAffineRange(m, &t), B[i]);
      if (SRIntervalIsEmpty(tubebox[i]) || SRIntervalIsNaI(tubebox[i])) return false;
    }
  }
  return true;
}

/* Between sub-steps the states' remainders become noise symbols (coordinates n..m-1 after
   the piece's n), the controls and disturbances in vars being the other live forms: the next
   sub-step then moves the remainders with the flow instead of boxing them (the wrapping
   effect).  Nothing happens when m == n. */
static void Symbols_Private(const SRPlant *pl, int m, SRAffine *X, SRAffine *vars)
{
  SRAffine *F[SR_AFFINE_MAX + SR_PLANT_NVARS];
  int       k = 0;
  if (m <= pl->n) return;
  for (int i = 0; i < pl->n; i++)
    F[k++] = &X[i];
  for (int j = 0; j < pl->nu; j++)
    F[k++] = &vars[SR_SLOT_U(j)];
  for (int j = 0; j < pl->nw; j++)
    F[k++] = &vars[SR_SLOT_W(j)];
  SRAffineRemaindersToSymbols(m, pl->n, pl->n, k, F);
}

/* part k of a step's tube (SRFlowParts): the states over one sub-step (or one half of one) as
   forms and a box; when the parts are full the last one takes the hull of the rest */
static void Part_Private(const SRPlant *pl, int m, SRFlowParts *P, const SRAffine *tube, const SRInterval *box)
{
  const int n = pl->n;
  if (!P || P->max <= 0) return;
  if (P->count < P->max) {
    for (int i = 0; i < n; i++)
      P->tube[(size_t)P->count * n + i] = tube[i], P->box[(size_t)P->count * n + i] = box[i];
    P->count++;
    return;
  }
  for (int i = 0; i < n; i++) {
    const size_t k = (size_t)(P->max - 1) * n + i;
    P->tube[k]     = SRAffineInterval(SRIntervalHull(SRAffineRange(m, &P->tube[k]), SRAffineRange(m, &tube[i])));
    P->box[k]      = SRIntervalHull(P->box[k], box[i]);
  }
}

/* one sub-step of length h, halved (recursively, depth levels) when it fails */
static bool Adaptive_Private(const SRPlant *pl, int m, const SRAffine *X, SRAffine *vars, SRInterval h, int depth, const SRFlowOptions *o, SRAffine *Xout, SRAffine *tube, SRInterval *tubebox, SRFlowParts *P, SRAffine *work)
{
  SRAffine   Xh[SR_PLANT_MAX_STATES], t2[SR_PLANT_MAX_STATES];
  SRInterval b2[SR_AFFINE_MAX];
  if (SubStep_Private(pl, m, X, vars, h, o, Xout, tube, tubebox, P ? &P->coarse : NULL, work)) {
    Part_Private(pl, m, P, tube, tubebox);
    return true;
  }
  if (depth <= 0) return false;
  /* h / 2 is exact (no underflow: h >= 2^-900 is checked by the caller); two halves cover [0, h] */
  {
    SRInterval h2 = { 0.5 * h.lo, 0.5 * h.hi };
    if (!Adaptive_Private(pl, m, X, vars, h2, depth - 1, o, Xh, tube, tubebox, P, work)) return false;
    Symbols_Private(pl, m, Xh, vars);
    if (!Adaptive_Private(pl, m, Xh, vars, h2, depth - 1, o, Xout, t2, b2, P, work)) return false;
  }
  for (int i = 0; i < pl->n; i++) {
    /* the tube over [0, h]: the hull of the two halves, as a constant form */
    SRInterval H = SRIntervalHull(SRAffineRange(m, &tube[i]), SRAffineRange(m, &t2[i]));
    tube[i]      = SRAffineInterval(H);
    tubebox[i]   = SRIntervalHull(tubebox[i], b2[i]);
  }
  return true;
}

/* the slots of vars the plant's expressions can name (states, controls, disturbances, network
   outputs): a form is ~4 KB, and the other of the nvars slots are never read */
static void CopyVars_Private(const SRPlant *pl, const SRAffine *vars, SRAffine *v)
{
  for (int i = 0; i < pl->n; i++) v[i] = vars[i];
  for (int j = 0; j < pl->nu; j++) v[SR_SLOT_U(j)] = vars[SR_SLOT_U(j)];
  for (int k = 0; k < pl->nw; k++) v[SR_SLOT_W(k)] = vars[SR_SLOT_W(k)];
  for (int k = 0; k < pl->nout; k++) v[SR_SLOT_Y(k)] = vars[SR_SLOT_Y(k)];
}

/* A discrete-time plant (SPEC §15 turn 4): the update x(j+1) = f(x(j), u, w) is the DAG
   evaluated in the affine forms, every operation outward rounded (SRExprEvalAffine), so Xout
   encloses the image of every state of X under every control and disturbance of vars.  The
   state exists at the sample times only; tube and tubebox are the hull of X and Xout (what a
   picture of the period shows; odeloop.c checks a discrete plant at its sample times). */
static bool Update_Private(const SRPlant *pl, int m, const SRAffine *X, const SRAffine *vars, const SRFlowOptions *o, SRAffine *Xout, SRAffine *tube, SRInterval *tubebox, SRAffine *work)
{
  SRAffine *v = work, *val = work + pl->nvars;
  CopyVars_Private(pl, vars, v);
  for (int i = 0; i < pl->n; i++)
    v[i] = X[i];
  SRExprEvalAffine(&pl->dag, m, v, val);
  for (int i = 0; i < pl->n; i++) {
    SRInterval H;
    Xout[i] = val[pl->f_root[i]];
    if (SRAffineIsNaI(&Xout[i])) return false;
    if (o->shrink > 0) Shrink_Private(m, &Xout[i], o->shrink); /* planted violation: the soundness suite must catch this */
    H = SRIntervalHull(SRAffineRange(m, &X[i]), SRAffineRange(m, &Xout[i]));
    if (!SRIntervalIsBounded(H)) return false;
    tube[i] = SRAffineInterval(H), tubebox[i] = H;
  }
  return true;
}

/* A linear plant (src/model/flow_linear.c has the soundness argument): the end state and the
   part of every sub-step k from X by the exact map: x(k hs) = e^{M k hs} X, then x(k hs + s) =
   e^{M s} x(k hs) for s in [0, sup hs] (hs = h / ns, every period in h), so there is no
   a-priori box, no Lagrange remainder and no wrapping between sub-steps; coarse stays 0 (the
   series' tail is below 1e-25).  tube and tubebox as the Taylor flow's: the one sub-step's
   forms, or the hull of the parts as a constant form. */
static bool Linear_Private(const SRPlant *pl, SRFlowLinear *L, int m, const SRAffine *X, const SRAffine *vars, SRInterval h, int ns, SRAffine *Xout, SRAffine *tube, SRInterval *tubebox, SRFlowParts *P)
{
  SRAffine          T[SR_PLANT_MAX_STATES], S[SR_PLANT_MAX_STATES];
  SRInterval        TB[SR_PLANT_MAX_STATES];
  const SRInterval  hs = { h.lo / ns, h.hi / ns };
  const SRInterval *E  = SRFlowLinearExp(L, h);
  if (!E || !SRFlowLinearApply(L, m, E, X, vars, Xout)) return false;
  for (int k = 0; k < ns; k++) {
    /* the sub-step's start x(k hs) from X, then the times [0, sup hs] from there: the interval
       series over [0, hs] is tighter than over [k hs, (k + 1) hs] (whose powers widen with k) */
    const SRInterval Tk = { SRMulDown((double)k, hs.lo), SRMulUp((double)k, hs.hi) }, T0 = { 0.0, hs.hi };
    if (k == 0)
      for (int i = 0; i < pl->n; i++) S[i] = X[i];
    else if (!(E = SRFlowLinearExp(L, Tk)) || !SRFlowLinearApply(L, m, E, X, vars, S)) return false;
    if (!(E = SRFlowLinearExp(L, T0)) || !SRFlowLinearApply(L, m, E, S, vars, T)) return false;
    for (int i = 0; i < pl->n; i++)
      TB[i] = SRAffineRange(m, &T[i]);
    Part_Private(pl, m, P, T, TB);
    for (int i = 0; i < pl->n; i++) {
      if (k == 0)
        tube[i] = T[i], tubebox[i] = TB[i];
      else {
        tubebox[i] = SRIntervalHull(tubebox[i], TB[i]);
        tube[i]    = SRAffineInterval(tubebox[i]);
      }
    }
  }
  return true;
}

bool SRFlowStepParts(const SRPlant *pl, int m, const SRAffine *X, const SRAffine *vars, SRInterval h, const SRFlowOptions *o, SRAffine *Xout, SRAffine *tube, SRInterval *tubebox, SRFlowParts *P, SRAffine *work)
{
  if (P) P->count = 0, P->coarse = 0.0;
  if (!pl->discrete && o->linear) { /* the exact map of a linear plant; the Taylor flow when it is not linear or fails */
    const int     ns = o->substeps > 0 ? o->substeps : 1;
    SRFlowLinear *L  = o->lin ? o->lin : SRFlowLinearCreate(pl);
    bool          ok = L && !(ns & (ns - 1)) && h.lo >= 0x1p-900 && h.lo <= h.hi && Linear_Private(pl, L, m, X, vars, h, ns, Xout, tube, tubebox, P);
    if (L != o->lin) SRFlowLinearDestroy(&L);
    if (ok) {
      if (o->shrink > 0) SRFlowShrink(pl, m, o->shrink, Xout, tube, tubebox, P); /* planted violation: the soundness suite must catch this */
      return true;
    }
    if (P) P->count = 0, P->coarse = 0.0;
  }
  if (pl->discrete) {
    if (!Update_Private(pl, m, X, vars, o, Xout, tube, tubebox, work)) return false;
    Part_Private(pl, m, P, tube, tubebox);
    return true;
  }
  {
  SRAffine   Y[SR_PLANT_MAX_STATES], T[SR_PLANT_MAX_STATES], *v = work;
  SRInterval TB[SR_AFFINE_MAX];
  const int  ns = o->substeps > 0 ? o->substeps : 1;
  /* ns sub-steps of length h / ns (ns a power of two: the division is exact, so the sub-step
     intervals add up to h; the flow is autonomous with u, w held) */
  SRInterval hs = { h.lo / ns, h.hi / ns };
  if (ns & (ns - 1) || !(h.lo >= 0x1p-900) || !(h.lo <= h.hi)) return false;
  work += pl->nvars;
  CopyVars_Private(pl, vars, v);
  for (int i = 0; i < pl->n; i++)
    Y[i] = X[i];
  for (int s = 0; s < ns; s++) {
    if (!Adaptive_Private(pl, m, Y, v, hs, o->halvings, o, Xout, T, TB, P, work)) return false;
    if (s + 1 < ns) Symbols_Private(pl, m, Xout, v);
    for (int i = 0; i < pl->n; i++) {
      Y[i] = Xout[i];
      if (s == 0)
        tube[i] = T[i], tubebox[i] = TB[i];
      else {
        SRInterval H = SRIntervalHull(SRAffineRange(m, &tube[i]), SRAffineRange(m, &T[i]));
        tube[i]      = SRAffineInterval(H);
        tubebox[i]   = SRIntervalHull(tubebox[i], TB[i]);
      }
    }
  }
  if (o->shrink > 0) SRFlowShrink(pl, m, o->shrink, Xout, tube, tubebox, P); /* planted violation: the soundness suite must catch this */
  return true;
  }
}

bool SRFlowStep(const SRPlant *pl, int m, const SRAffine *X, const SRAffine *vars, SRInterval h, const SRFlowOptions *o, SRAffine *Xout, SRAffine *tube, SRInterval *tubebox, SRAffine *work)
{
  return SRFlowStepParts(pl, m, X, vars, h, o, Xout, tube, tubebox, NULL, work);
}

/* planted violation (the soundness suite must catch it): the step's result shrunk by the factor
   f, forms and boxes about their centres, and every part of the tube (P may be NULL) */
void SRFlowShrink(const SRPlant *pl, int m, double f, SRAffine *Xout, SRAffine *tube, SRInterval *tubebox, SRFlowParts *P)
{
  for (int i = 0; i < pl->n; i++) {
    double c = 0.5 * tubebox[i].lo + 0.5 * tubebox[i].hi, r = 0.5 * (tubebox[i].hi - tubebox[i].lo) * (1.0 - f);
    Shrink_Private(m, &Xout[i], f);
    Shrink_Private(m, &tube[i], f);
    tubebox[i] = (SRInterval) { c - r, c + r };
  }
  for (int k = 0; P && k < P->count; k++)
    for (int i = 0; i < pl->n; i++) {
      SRInterval  *b = &P->box[(size_t)k * pl->n + i];
      const double c = 0.5 * b->lo + 0.5 * b->hi, r = 0.5 * (b->hi - b->lo) * (1.0 - f);
      Shrink_Private(m, &P->tube[(size_t)k * pl->n + i], f);
      *b = (SRInterval) { c - r, c + r };
    }
}

void SRFlowSimulate(const SRPlant *pl, const double *x, const double *vars, double h, int nsub, double *xout, double *work)
{
  const int n = pl->n;
  double   *v = work, *val = v + pl->nvars, *k1 = val + pl->dag.n, *k2 = k1 + n, *k3 = k2 + n, *k4 = k3 + n, *y = k4 + n;
  double    dt = h / nsub;
  for (int j = 0; j < pl->nvars; j++)
    v[j] = vars[j];
  for (int i = 0; i < n; i++)
    xout[i] = x[i];
  if (pl->discrete) { /* one update, whatever h and nsub (SPEC §15 turn 4) */
    for (int i = 0; i < n; i++)
      v[i] = x[i];
    SRExprEvalDouble(&pl->dag, v, val);
    for (int i = 0; i < n; i++)
      xout[i] = val[pl->f_root[i]];
    return;
  }
#define SR_FIELD(out, st)                                                                                                                                                                                                                                \
  do {                                                                                                                                                                                                                                                   \
    for (int i_ = 0; i_ < n; i_++)                                                                                                                                                                                                                       \
      v[i_] = (st)[i_];                                                                                                                                                                                                                                  \
    SRExprEvalDouble(&pl->dag, v, val);                                                                                                                                                                                                                  \
    for (int i_ = 0; i_ < n; i_++)                                                                                                                                                                                                                       \
      (out)[i_] = val[pl->f_root[i_]];                                                                                                                                                                                                                   \
  } while (0)
  for (int s = 0; s < nsub; s++) {
    SR_FIELD(k1, xout);
    for (int i = 0; i < n; i++)
      y[i] = xout[i] + 0.5 * dt * k1[i];
    SR_FIELD(k2, y);
    for (int i = 0; i < n; i++)
      y[i] = xout[i] + 0.5 * dt * k2[i];
    SR_FIELD(k3, y);
    for (int i = 0; i < n; i++)
      y[i] = xout[i] + dt * k3[i];
    SR_FIELD(k4, y);
    for (int i = 0; i < n; i++)
      xout[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  }
#undef SR_FIELD
}
