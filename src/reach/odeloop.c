/* One piece of X0 through the closed loop (include/simreach/odeloop.h, SPEC §15).

   Time.  The period is the plant file's decimal, enclosed in [plo, phi]; step j covers the
   real times [j plo, (j + 1) phi] (a superset of every reading of the period), so an always
   constraint is checked on every step whose interval meets its window, and a sample time
   counts for a window (eventually, at_end) only when [j plo, j phi] lies inside it.
   Constraints are formulas of atoms (include/simreach/spec.h): their margins fold through
   and/or (SRSpecCombine); a nonlinear atom is the spec's DAG evaluated in the forms and, over a
   step, also in the step's box, the two ranges intersected.
   A discrete-time plant (SPEC §15 turn 4, 'next' lines) has states at the sample times only:
   SRFlowStep is its update in the forms, and always is checked at each sample time j whose
   [j plo, j phi] meets the window (docs/arch.md).
   Soundness of a proof: the tube encloses every trajectory from the piece (the controller
   enclosure covers the network on the range of its inputs, the flow covers the plant), and
   an atom a . x <= b is proven when the upper bound of a . x over the tube is <= inf b. */
#include <simreach/odeloop.h>
#include <simreach/private/loopcontrols.h>
#include <simreach/private/memcheck.h>

#include <stdlib.h>

#define SR_REFUTE_SUB 16 /* sub-steps per period when a counterexample is re-checked */
#define SR_REFUTE_MAX_SUB 4096 /* ... and at most, around a simulated violation (SRPieceRefuteNear) */
/* L->forms: X, Y, T, Xl of a proof and X, Y, T of a refutation (n each), the best forms per
   constraint (nc x n), the network's inputs and outputs */
#define SR_LOOP_FORMS(n, nc, nin, nout) ((size_t)(7 + (nc)) * (size_t)(n) + (size_t)(nin) + (size_t)(nout) + 1)
/* the parts of a period's tube kept (one per sub-step; beyond, the last takes the hull) */
#define SR_LOOP_COARSE 0.05 /* a sub-step's remainder wider than this share of its state asks for more sub-steps: TORA heterogeneous sigmoid 0.2-1.6 at one sub-step (no verdict), at most 0.035 at four (VERIFIED); the other shipped instances at most 0.007 */
#define SR_LOOP_PARTS(o) ((o)->substeps_max > (o)->substeps ? ((o)->substeps_max < 64 ? (o)->substeps_max : 64) : ((o)->substeps < 64 ? (o)->substeps : 64))

PetscErrorCode SRLoopCreate(const SRPlant *plant, const SRSpec *spec, const SRController *ctrl, const SRFlowOptions *o, SRLoop *L)
{
  PetscFunctionBeginUser;
  memset(L, 0, sizeof *L);
  L->plant   = plant;
  L->spec    = spec;
  L->ctrl    = ctrl;
  L->flow    = *o;
  L->symbols = -1;
  { /* memory model (docs/arch.md): forms of SR_AFFINE_MAX coordinates each, for the Taylor
       work, the variable slots, the DAG values and the pieces' states; checked against the
       machine before any work */
    const double forms = (double)SRFlowWorkSize(plant, o) + 16 + plant->nvars + 1 + plant->dag.n + 1 + SR_LOOP_FORMS(plant->n, spec->nc, plant->nin, plant->nout) + 2.0 * spec->dag.n + plant->n + (double)SR_LOOP_PARTS(o) * plant->n;
    char         what[PETSC_MAX_PATH_LEN + 96];
    PetscCall(PetscSNPrintf(what, sizeof what, "the closed loop of %s (%d states, %d DAG nodes, order %d: %.0f affine forms of %zu bytes)", plant->path, plant->n, plant->dag.n, o->order, forms, sizeof(SRAffine)));
    PetscCall(SRMemCheck(PETSC_COMM_SELF, forms * (double)sizeof(SRAffine), "-plant", what));
  }
  PetscCall(PetscMalloc1(SRFlowWorkSize(plant, o) + 16, &L->work));
  PetscCall(PetscMalloc1(plant->nvars + 1, &L->vars));
  PetscCall(PetscMalloc1(plant->dag.n + 1, &L->val));
  PetscCall(PetscMalloc1(SR_LOOP_FORMS(plant->n, spec->nc, plant->nin, plant->nout), &L->forms));
  L->parts.max = SR_LOOP_PARTS(o);
  PetscCall(PetscMalloc2((size_t)L->parts.max * plant->n, &L->parts.tube, (size_t)L->parts.max * plant->n, &L->parts.box));
  if (spec->dag.n) { /* the nonlinear atoms: the spec's DAG in the forms and in intervals */
    PetscCall(PetscMalloc1(plant->n, &L->svars));
    PetscCall(PetscMalloc2(spec->dag.n, &L->sval, spec->dag.n, &L->sbox));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

void SRLoopDestroy(SRLoop *L)
{
  PetscFree(L->work);
  PetscFree(L->vars);
  PetscFree(L->val);
  PetscFree(L->forms);
  PetscFree2(L->parts.tube, L->parts.box);
  PetscFree(L->svars);
  PetscFree2(L->sval, L->sbox);
}

/* the form a . F (F: n forms over m coordinates) */
static SRAffine Dot_Private(int n, int m, const SRInterval *a, const SRAffine *F)
{
  SRAffine s = SRAffineConstant(0.0), t;
  for (int i = 0; i < n; i++) {
    if (a[i].lo == 0 && a[i].hi == 0) continue;
    t = SRAffineScaleInterval(m, a[i], &F[i]);
    s = SRAffineAdd(m, &s, &t);
  }
  return s;
}

/* the range of a . x over the forms F, intersected with a . box when box is given */
static SRInterval DotRange_Private(int n, int m, const SRInterval *a, const SRAffine *F, const SRInterval *box)
{
  SRAffine   d = Dot_Private(n, m, a, F);
  SRInterval R = SRAffineRange(m, &d);
  if (box) {
    SRInterval S = SRIntervalPoint(0.0);
    for (int i = 0; i < n; i++)
      S = SRIntervalAdd(S, SRIntervalMul(a[i], box[i]));
    if (!SRIntervalIsNaI(S) && !SRIntervalIsNaI(R)) R = SRIntervalIntersect(R, S);
  }
  return R;
}

/* the spec's DAG (nonlinear atoms) in affine forms of m coordinates: SRExprEvalAffine's operations,
   except that sqrt takes max(x, 0) (docs/arch.md): an enclosure of a sum of squares may dip
   below 0 by rounding, and sqrt(x^2 + y^2) must still be enclosed */
static void SpecEvalAffine_Private(const SRExpr *e, int m, const SRAffine *vars, SRAffine *val)
{
  for (int k = 0; k < e->n; k++) {
    const SRExprNode *x = &e->node[k];
    const SRAffine   *a = x->a >= 0 ? &val[x->a] : NULL, *b = x->b >= 0 ? &val[x->b] : NULL;
    switch (x->op) {
    case SR_X_CONST: val[k] = SRAffineInterval(x->value); break;
    case SR_X_VAR: val[k] = vars[x->var]; break;
    case SR_X_ADD: val[k] = SRAffineAdd(m, a, b); break;
    case SR_X_SUB: val[k] = SRAffineSub(m, a, b); break;
    case SR_X_MUL: val[k] = SRAffineMul(m, a, b); break;
    case SR_X_DIV: val[k] = SRAffineDiv(m, a, b); break;
    case SR_X_NEG: val[k] = SRAffineNeg(m, a); break;
    case SR_X_SQR: val[k] = SRAffineSqr(m, a); break;
    case SR_X_SIN: val[k] = SRAffineSin(m, a); break;
    case SR_X_COS: val[k] = SRAffineCos(m, a); break;
    case SR_X_TAN: val[k] = SRAffineTan(m, a); break;
    case SR_X_EXP: val[k] = SRAffineExp(m, a); break;
    case SR_X_LOG: val[k] = SRAffineLog(m, a); break;
    case SR_X_TANH: val[k] = SRAffineTanh(m, a); break;
    case SR_X_SQRT: {
      SRInterval R = SRAffineRange(m, a);
      if (!SRIntervalIsNaI(R) && R.lo < 0) val[k] = R.hi < 0 ? SRAffineConstant(0.0) : SRAffineInterval(SRIntervalSqrt((SRInterval){0.0, R.hi}));
      else val[k] = SRAffineSqrt(m, a);
    } break;
    case SR_X_LE: /* piecewise operations: plant files only, never in a spec's DAG */
    case SR_X_LT:
    case SR_X_IF: val[k] = SRAffineInterval(SRIntervalNaI()); break;
    }
  }
}


/* the range of atom A over the forms F (m coordinates), intersected with its range over box when
   box is given; a nonlinear atom evaluates the spec's DAG (SPEC §15 turn 4: the expression
   enclosed over the tube), once per call of Margins_Private (*fresh) */
static SRInterval AtomRange_Private(SRLoop *L, const SRSpecAtom *A, int m, const SRAffine *F, const SRInterval *box, bool box_only, bool *fresh)
{
  const SRExpr *e = &L->spec->dag;
  const int     n = L->plant->n;
  SRInterval    R;
  if (A->root < 0) return DotRange_Private(n, m, A->a, F, box);
  if (!*fresh) {
    /* in intervals over the box (the forms' ranges when none is given): a square is >= 0
       there, so sqrt(x^2 + y^2) has an enclosure where the forms' range of x^2 + y^2 dips
       below 0 */
    for (int i = 0; i < n; i++) L->svars[i] = SRAffineInterval(box ? box[i] : SRAffineRange(m, &F[i]));
    SpecEvalAffine_Private(e, 0, L->svars, L->sbox);
    if (!box_only) {
      for (int i = 0; i < n; i++) L->svars[i] = F[i];
      SpecEvalAffine_Private(e, m, L->svars, L->sval);
    }
    *fresh = true;
  }
  R = SRAffineRange(0, &L->sbox[A->root]);
  if (!box_only) {
    SRInterval S = SRAffineRange(m, &L->sval[A->root]);
    if (SRIntervalIsNaI(R)) R = S;
    else if (!SRIntervalIsNaI(S)) R = SRIntervalIntersect(S, R);
  }
  if (L->flow.shrink > 0 && SRIntervalIsBounded(R)) { /* planted violation (tests/reach/spec_soundness.py must catch it) */
    const double c = 0.5 * R.lo + 0.5 * R.hi, r = 0.5 * (R.hi - R.lo) * (1.0 - L->flow.shrink);
    R = (SRInterval){c - r, c + r};
  }
  return R;
}

/* constraint C over the forms F (box: optional, their hull): *up <= 0 proves it, *low > 0
   (optional) shows it broken for every state of F; *crit: the atom deciding *up.  With a box
   and no *low, the nonlinear atoms are first enclosed over the box alone (their range over the
   forms is intersected with it, so a proof over the box is one over the forms); the forms'
   evaluation runs only when that does not prove C (the same decision, without the affine DAG
   for most parts of a tube). */
static void Margins_Private(SRLoop *L, const SRSpecConstraint *C, int m, const SRAffine *F, const SRInterval *box, double *up, double *low, int *crit)
{
  double mu[SR_SPEC_MAX_ATOMS], ml[SR_SPEC_MAX_ATOMS];
  for (int pass = box && !low ? 0 : 1; pass < 2; pass++) {
    bool fresh = false;
    for (int k = 0; k < C->natoms; k++) {
      SRInterval R = AtomRange_Private(L, &C->atom[k], m, F, box, pass == 0, &fresh);
      if (L->flow.shrink > 0 && C->atom[k].root < 0 && C->atom[k].strict && SRIntervalIsBounded(R)) { /* planted, as above: negated atoms */
        const double c = 0.5 * R.lo + 0.5 * R.hi, r = 0.5 * (R.hi - R.lo) * (1.0 - L->flow.shrink);
        R = (SRInterval){c - r, c + r};
      }
      SRSpecAtomMargins(&C->atom[k], R, &mu[k], &ml[k]);
    }
    *up = SRSpecCombine(C, mu, crit);
    if (pass == 0 && *up <= 0) return;
  }
  if (low) *low = SRSpecCombine(C, ml, NULL);
}

/* the affine form of atom A's left side over F (to choose the dimension to split) */
static SRAffine AtomForm_Private(SRLoop *L, const SRSpecAtom *A, int m, const SRAffine *F)
{
  bool fresh = false;
  if (A->root < 0) return Dot_Private(L->plant->n, m, A->a, F);
  (void)AtomRange_Private(L, A, m, F, NULL, false, &fresh);
  return L->sval[A->root];
}

/* the dimension to split for a nonlinear atom A that failed over the forms F (a heuristic, no
   claim): sum over states i of the atom's sensitivity to x_i over F's box (its interval width
   with only x_i spanning its range, per unit of x_i) times |dx_i / d coordinate d|; -1: none.
   (Until 2026-12-05 the halving that lowered the atom's bound most: the halves of a velocity
   range symmetric about 0 keep the same largest speed, so it split positions.)  The score is
   weighted by the piece's width in d relative to X0's: the sensitivity alone split Docking's
   velocities first and again, while what the tube misses by comes mostly from the thrust over
   the wide position range (a piece [70, 106]^2 x [-0.21, -0.14]^2: halving x2 leaves a miss of
   0.0007, halving a velocity 0.0025-0.005); weighted, Docking needs 777 pieces instead of 1,077
   (docs/arch.md, "Docking's cost"). */
static int SplitNonlinear_Private(SRLoop *L, const SRSpecAtom *A, int m, const SRAffine *F, const double *lo, const double *hi)
{
  const int  n    = L->plant->n;
  int        best = -1;
  double     bv   = 0.0, sens[SR_PLANT_MAX_STATES];
  SRInterval R[SR_PLANT_MAX_STATES];
  for (int i = 0; i < n; i++) R[i] = SRAffineRange(m, &F[i]);
  for (int i = 0; i < n; i++) {
    SRInterval E;
    double     w = R[i].hi - R[i].lo;
    for (int k = 0; k < n; k++) L->svars[k] = SRAffineInterval(k == i ? R[k] : SRIntervalPoint(SRIntervalMid(R[k])));
    SpecEvalAffine_Private(&L->spec->dag, 0, L->svars, L->sbox);
    E       = SRAffineRange(0, &L->sbox[A->root]);
    sens[i] = SRIntervalIsBounded(E) && w > 0 ? (E.hi - E.lo) / w : 0.0;
  }
  for (int d = 0; d < n; d++) {
    const double w0 = L->spec->hi[d] - L->spec->lo[d];
    double       sc = 0.0;
    if (!(hi[d] > lo[d])) continue;
    for (int i = 0; i < n; i++) sc += sens[i] * fabs(F[i].c[d]);
    sc *= w0 > 0 ? (hi[d] - lo[d]) / w0 : 0.0; /* times the piece's share of X0's width */
    if (sc > bv) bv = sc, best = d;
  }
  return best;
}

/* the dimension whose coordinate contributes most to a . F; -1 when none can be split */
static int SplitDim_Private(const SRLoop *L, int m, const double *lo, const double *hi, const SRAffine *d)
{
  const int n    = L->plant->n;
  int       best = -1;
  double    bv   = 0.0;
  (void)m;
  if (d)
    for (int i = 0; i < n; i++)
      if (hi[i] > lo[i] && fabs(d->c[i]) > bv) bv = fabs(d->c[i]), best = i;
  if (best >= 0) return best;
  for (int i = 0; i < n; i++) { /* the widest relative to X0 */
    double w0 = L->spec->hi[i] - L->spec->lo[i], w = w0 > 0 ? (hi[i] - lo[i]) / w0 : 0;
    if (hi[i] > lo[i] && w > bv) bv = w, best = i;
  }
  return best;
}

/* the forms' coordinates: the piece's n and the noise symbols */
int SRLoopCoordinates(const SRLoop *L)
{
  const int n = L->plant->n, room = SR_AFFINE_MAX - n - L->plant->nin; /* the network adds nin symbols (netaffine.c) */
  int       k = L->symbols >= 0 ? L->symbols : 15 * n; /* default: 16n coordinates in all */
  if (k > room) k = room;
  return n + (k > 0 ? k : 0);
}

/* The always constraints over the tube of step j (times [j plo, (j + 1) phi], docs/arch.md) on
   every part of the tube (one per sub-step, L->parts): true, with r filled, when one is not
   proven.  X, Y: the states at the sample times (both proven: the cause is the tube). */
static bool AlwaysParts_Private(SRLoop *L, int j, int mm, const SRAffine *X, const SRAffine *Y, const double *lo, const double *hi, SRPieceResult *r)
{
  const SRPlant *pl = L->plant;
  const SRSpec  *S  = L->spec;
  const int      n  = pl->n;
  const double   plo = pl->period_iv.lo, phi = pl->period_iv.hi;
  if (pl->discrete) return false; /* checked at the sample times */
  for (int c = 0; c < S->nc; c++) {
    const SRSpecConstraint *C = &S->c[c];
    double                  m = -INFINITY;
    int                     k = 0, part = 0;
    if (C->kind != SR_SPEC_ALWAYS) continue;
    if (SRMulUp(j + 1, phi) < C->t0 || SRMulDown(j, plo) > C->t1) continue;
    for (int p = 0; p < L->parts.count; p++) {
      double mp;
      int    kp = 0;
      Margins_Private(L, C, mm, L->parts.tube + (size_t)p * n, L->parts.box + (size_t)p * n, &mp, NULL, &kp);
      if (isnan(mp)) mp = INFINITY;
      if (mp > m) m = mp, k = kp, part = p;
      if (!(mp <= 0)) break;
    }
    if (!(m <= 0)) {
      const SRAffine *T = L->parts.tube + (size_t)part * n;
      SRAffine        d = AtomForm_Private(L, &C->atom[k], mm, T);
      double          mx, my;
      r->constraint = c, r->atom = k, r->step = j, r->margin = m;
      Margins_Private(L, C, mm, X, NULL, &mx, NULL, NULL);
      Margins_Private(L, C, mm, Y, NULL, &my, NULL, NULL);
      r->cause = mx <= 0 && my <= 0 ? SR_CAUSE_PERIOD_TUBE : SR_CAUSE_BOUND;
      r->split = C->atom[k].root >= 0 ? SplitNonlinear_Private(L, &C->atom[k], mm, T, lo, hi) : -1;
      if (r->split < 0) r->split = SplitDim_Private(L, mm, lo, hi, &d);
      return true;
    }
  }
  return false;
}

void SRPieceCoordinate(double lo, double hi, double *c, double *rad)
{
  *c   = 0.5 * lo + 0.5 * hi;
  *rad = SRMax_Private(SRSubUp(hi, *c), SRSubUp(*c, lo));
  if (!(lo <= *c && *c <= hi)) *c = lo, *rad = SRSubUp(hi, lo);
}

void SRPieceProve(SRLoop *L, const double *lo, const double *hi, SRPieceResult *r)
{
  SRPieceProveWindow(L, lo, hi, 0, L->plant->steps, NULL, NULL, r);
}

/* Periods s..e-1 from the forms Fs at sample time s (NULL: from the box, s = 0); Fe (optional)
   receives the forms at sample time e when the window is proven.  The sample time s was checked
   by whoever made Fs (the window before, or the children merged into Fs: src/reach/merge.c), so
   a window from Fs checks its periods and the later sample times only (SPEC §15, docs/arch.md
   "Windows and joins"). */
void SRPieceProveWindow(SRLoop *L, const double *lo, const double *hi, int s, int e, const SRAffine *Fs, SRAffine *Fe, SRPieceResult *r)
{
  const SRPlant *pl = L->plant;
  const SRSpec  *S  = L->spec;
  const int      n  = pl->n;
  SRAffine      *X = L->forms, *Y = X + n, *T = Y + n, *Xl = T + n, *bestF0 = L->forms + 7 * (size_t)n;
  SRInterval     TB[SR_AFFINE_MAX];
  bool           reached[SR_SPEC_MAX_CONSTRAINTS] = { false };
  double         bestm[SR_SPEC_MAX_CONSTRAINTS];
  int            besta[SR_SPEC_MAX_CONSTRAINTS];
  const double   plo = pl->period_iv.lo, phi = pl->period_iv.hi;
  /* the forms: the piece's n coordinates, then noise symbols (SRAffineRemaindersToSymbols) */
  const int mm = SRLoopCoordinates(L);
  uint64_t  cand; /* the networks that may run (plant->select) */

  r->status     = SR_PIECE_OPEN;
  r->cause      = SR_CAUSE_NONE;
  r->constraint = r->atom = r->step = -1;
  r->margin                         = INFINITY;
  r->substeps                       = L->flow.substeps;
  for (int c = 0; c < S->nc; c++)
    bestm[c] = INFINITY, besta[c] = 0;
  for (int i = 0; i < n; i++) {
    if (Fs) {
      X[i] = Fs[i];
      continue;
    }
    double c, rad;
    SRPieceCoordinate(lo[i], hi[i], &c, &rad);
    X[i] = SRAffineVariable(i, c, rad);
  }
  r->split = SplitDim_Private(L, mm, lo, hi, NULL);
  cand     = pl->select ? (uint64_t)1 << (pl->select - 1) : 0;
  for (int j = Fs ? s : 0; j <= e; j++) {
    /* sample time j: [j plo, j phi] */
    const SRInterval tj = { SRMulDown(j, plo), SRMulUp(j, phi) };
    if (L->states)
      for (int i = 0; i < n; i++)
        L->states[j * n + i] = SRAffineRange(mm, &X[i]);
    if (pl->discrete && !(Fs && j == s)) /* always at the sample times, all the times the plant has (docs/arch.md) */
      for (int c = 0; c < S->nc; c++) {
        const SRSpecConstraint *C = &S->c[c];
        double                  m;
        int                     k = 0;
        if (C->kind != SR_SPEC_ALWAYS || tj.hi < C->t0 || tj.lo > C->t1) continue;
        Margins_Private(L, C, mm, X, NULL, &m, NULL, &k);
        if (!(m <= 0)) {
          SRAffine d = AtomForm_Private(L, &C->atom[k], mm, X);
          r->constraint = c, r->atom = k, r->step = j, r->margin = isnan(m) ? INFINITY : m, r->cause = SR_CAUSE_BOUND;
          r->split = C->atom[k].root >= 0 ? SplitNonlinear_Private(L, &C->atom[k], mm, X, lo, hi) : -1;
          if (r->split < 0) r->split = SplitDim_Private(L, mm, lo, hi, &d);
          return;
        }
      }
    for (int c = 0; c < S->nc; c++) {
      const SRSpecConstraint *C = &S->c[c];
      double                  worst;
      int                     wa = 0;
      if (C->kind == SR_SPEC_ALWAYS || reached[c]) continue;
      if (!(C->t0 <= tj.lo && tj.hi <= C->t1) && !(C->kind == SR_SPEC_AT_END && j == pl->steps)) continue;
      /* at the sample time j (eventually, at_end: sampled-time semantics, docs/arch.md) */
      Margins_Private(L, C, mm, X, NULL, &worst, NULL, &wa);
      if (isnan(worst)) worst = INFINITY;
      if (worst <= 0)
        reached[c] = true;
      else if (worst < bestm[c]) {
        bestm[c] = worst, besta[c] = wa;
        for (int i = 0; i < n; i++)
          bestF0[c * n + i] = X[i];
      }
    }
    if (j == e) break;
    {
      /* the states' remainders become noise symbols, so the network and the flow keep their
         signs, and they stay symbols in the next periods */
      const int m  = mm;
      bool      ok = true;
      SRAffine *F[SR_PLANT_MAX_STATES + SR_AFFINE_MAX]; /* states, then controls */
      for (int i = 0; i < n; i++)
        Xl[i] = X[i], F[i] = &Xl[i];
      SRAffineRemaindersToSymbols(m, n, n, n, F);
      ok = SRLoopControls(L, m, Xl, &cand);
      if (!ok) r->cause = SR_CAUSE_CONTROLLER;
      if (ok) {
        /* the controls' remainders too (the network's relaxation gap): held over the period,
           one symbol each keeps them the same value in every sub-step */
        for (int k = 0; k < pl->nu; k++)
          F[k] = &L->vars[SR_SLOT_U(k)];
        for (int i = 0; i < n; i++)
          F[pl->nu + i] = &Xl[i];
        SRAffineRemaindersToSymbols(m, n, pl->nu, pl->nu + n, F);
      }
      if (!ok) {
        r->step = j;
        return; /* no enclosure of the controls: split */
      }
      /* the flow and the always constraints over the period; when either fails or a sub-step's
         remainder is wider than SR_LOOP_COARSE of its state, the period runs again with twice
         the sub-steps, up to substeps_max (docs/arch.md): each attempt is a whole enclosure
         from Xl, so keeping one that passes is sound; a finer one that fails where a coarser
         one passed gives way to that one (run again, so the tree depends on the pieces only) */
      for (int level = L->flow.substeps > 0 ? L->flow.substeps : 1, passed = 0, rerun = 0;;) {
        SRFlowOptions fo = L->flow;
        bool          fail, coarse;
        fo.substeps = level;
        ok          = SRFlowStepParts(pl, m, Xl, L->vars, pl->period_iv, &fo, Y, T, TB, &L->parts, L->work);
        for (int i = 0; ok && i < n; i++)
          if (SRAffineIsNaI(&Y[i]) || SRAffineIsNaI(&T[i])) ok = false;
        if (ok && level > L->flow.substeps && L->flow.retry_shrink > 0) SRFlowShrink(pl, m, L->flow.retry_shrink, Y, T, TB, &L->parts); /* planted violation */
        if (!ok) { /* no enclosure: split the widest dimension */
          r->cause = SR_CAUSE_FLOW, r->constraint = r->atom = -1, r->margin = INFINITY;
          r->split = SplitDim_Private(L, m, lo, hi, NULL);
        }
        fail   = !ok || AlwaysParts_Private(L, j, m, X, Y, lo, hi, r);
        coarse = ok && L->parts.coarse > SR_LOOP_COARSE;
        if (!fail && (!coarse || rerun)) break;
        if (!fail) passed = level;
        if (fail && passed && !rerun) { /* back to the last attempt that passed */
          level = passed, rerun = 1;
          continue;
        }
        if (2 * level > L->flow.substeps_max || (L->join_first && Fs && j == s)) { /* a join's first period: no retries (subtree.c) */
          if (!fail) break; /* coarse, but as fine as allowed */
          r->substeps = level;
          r->step     = j; /* r holds the cause of the last attempt */
          return;
        }
        level *= 2;
        L->retries++;
      }
      r->constraint = r->atom = r->step = -1, r->margin = INFINITY, r->cause = SR_CAUSE_NONE; /* not a failed attempt's */
      r->split = SplitDim_Private(L, m, lo, hi, NULL);
    }
    if (L->tube)
      for (int i = 0; i < n; i++)
        L->tube[j * n + i] = TB[i];
    for (int i = 0; i < n; i++)
      X[i] = Y[i];
  }
  if (Fe)
    for (int i = 0; i < n; i++)
      Fe[i] = X[i];
  for (int c = 0; c < S->nc && e == pl->steps; c++)
    if (S->c[c].kind != SR_SPEC_ALWAYS && !reached[c]) {
      r->constraint = c, r->atom = besta[c], r->step = pl->steps, r->margin = bestm[c], r->cause = SR_CAUSE_TARGET;
      if (isfinite(bestm[c])) {
        const SRSpecAtom *A = &S->c[c].atom[besta[c]];
        SRAffine          d = AtomForm_Private(L, A, mm, bestF0 + (size_t)c * n);
        r->split            = A->root >= 0 ? SplitNonlinear_Private(L, A, mm, bestF0 + (size_t)c * n, lo, hi) : -1;
        if (r->split < 0) r->split = SplitDim_Private(L, mm, lo, hi, &d);
      } else r->split = SplitDim_Private(L, mm, lo, hi, NULL);
      return;
    }
  r->status = SR_PIECE_PROVEN;
  r->margin = 0;
}

const char *SRPieceCauseText(SRPieceCause cause)
{
  switch (cause) {
  case SR_CAUSE_CONTROLLER: return "no enclosure of the network or the control expressions over the piece (an input unbounded or out of an operation's domain): split further (-closedloop_max_depth) or give a smaller X0";
  case SR_CAUSE_FLOW: return "the validated flow over the period failed (the a-priori enclosure did not close or an operation left its domain), also with the adaptive sub-steps: allow more (-closedloop_substeps_max 64, 256, ...), then a higher order (-closedloop_order)";
  case SR_CAUSE_PERIOD_TUBE: return "the states at both sample times are proven, the tube over the whole period is not, also with the adaptive sub-steps: allow more (-closedloop_substeps_max 64, 256, ...) or split further (-closedloop_max_depth)";
  case SR_CAUSE_BOUND: return "the enclosure is wider than the margin, also with the adaptive sub-steps: split further (-closedloop_max_depth), more noise symbols (-closedloop_symbols), or more sub-steps (-closedloop_substeps_max)";
  case SR_CAUSE_TARGET: return "no sample time's enclosure fits the target: more sub-steps per period from the start (-closedloop_substeps 4, 16, ...: one Taylor step over a long period widens the states; the adaptive sub-steps only retry periods that fail an always constraint or the flow), split further (-closedloop_max_depth) or more noise symbols (-closedloop_symbols)";
  default: return "";
  }
}

/* the validated enclosure from the point x0, SR_REFUTE_SUB sub-steps per period except in
   periods jlo..jhi, which take K (a power of two); periods after jend are not run (then nothing
   is concluded about eventually constraints) */
static bool Refute_Private(SRLoop *L, const double *x0, int jlo, int jhi, int K, int jend, int *cv)
{
  const SRPlant *pl = L->plant;
  const SRSpec  *S  = L->spec;
  const int      n  = pl->n;
  SRAffine      *X = L->forms + 4 * (size_t)n, *Y = X + n, *T = Y + n;
  SRInterval     TB[SR_AFFINE_MAX];
  bool           escaped[SR_SPEC_MAX_CONSTRAINTS];
  const double   plo = pl->period_iv.lo, phi = pl->period_iv.hi;
  uint64_t       cand = pl->select ? (uint64_t)1 << (pl->select - 1) : 0;

  for (int c = 0; c < S->nc; c++)
    escaped[c] = true; /* eventually: outside at every time of the window so far */
  for (int i = 0; i < n; i++)
    X[i] = SRAffineConstant(x0[i]);
  for (int j = 0; j <= pl->steps; j++) {
    const SRInterval tj = { SRMulDown(j, plo), SRMulUp(j, phi) };
    if (j > jend) return false;
    /* at_end: the final state breaks an atom of the target for sure */
    if (j == pl->steps)
      for (int c = 0; c < S->nc; c++) {
        const SRSpecConstraint *C = &S->c[c];
        double                  up, low;
        if (C->kind != SR_SPEC_AT_END) continue;
        Margins_Private(L, C, n, X, NULL, &up, &low, NULL);
        if (low > 0) return *cv = c, true;
      }
    /* always: a sample time surely in the window with an atom surely broken */
    for (int c = 0; c < S->nc; c++) {
      const SRSpecConstraint *C = &S->c[c];
      double                  up, low;
      if (pl->discrete && C->kind == SR_SPEC_EVENTUALLY && !(tj.hi < C->t0 || tj.lo > C->t1)) {
        /* a discrete plant's eventually: a sample time possibly in the window, possibly in the target */
        Margins_Private(L, C, n, X, NULL, &up, &low, NULL);
        if (!(low > 0)) escaped[c] = false;
      }
      if (C->kind != SR_SPEC_ALWAYS || !(C->t0 <= tj.lo && tj.hi <= C->t1)) continue;
      Margins_Private(L, C, n, X, NULL, &up, &low, NULL);
      if (low > 0) return *cv = c, true;
    }
    if (j == pl->steps) break;
    if (!SRLoopControls(L, n, X, &cand)) return false;
    /* the period in SR_REFUTE_SUB (or K) sub-steps (u held; the division by a power of two is
       exact), each sub-step's tube and end state checked: a violation that lasts less than a
       period is still confirmed */
    if (pl->discrete) { /* one update; the next sample time is checked above */
      if (!SRFlowStep(pl, n, X, L->vars, pl->period_iv, &L->flow, Y, T, TB, L->work)) return false;
      for (int i = 0; i < n; i++)
        X[i] = Y[i];
      continue;
    }
    const int nq = jlo <= j && j <= jhi ? K : SR_REFUTE_SUB;
    for (int q = 0; q < nq; q++) {
      const SRInterval hq = { pl->period_iv.lo / nq, pl->period_iv.hi / nq };
      /* the sub-step's times: [j plo + q plo / K, j phi + (q + 1) phi / K] */
      const double slo = SRAddDown(SRMulDown(j, plo), SRMulDown(q, hq.lo)), shi = SRAddUp(SRMulUp(j, phi), SRMulUp(q + 1, hq.hi));
      const double elo = SRAddDown(SRMulDown(j, plo), SRMulDown(q + 1, hq.lo)), ehi = SRAddUp(SRMulUp(j, phi), SRMulUp(q + 1, hq.hi));
      if (!SRFlowStep(pl, n, X, L->vars, hq, &L->flow, Y, T, TB, L->work)) return false;
      for (int c = 0; c < S->nc; c++) {
        const SRSpecConstraint *C = &S->c[c];
        bool                    out, endout;
        double                  up, low;
        if (C->kind == SR_SPEC_AT_END) continue;
        if (shi < C->t0 || slo > C->t1) continue;
        Margins_Private(L, C, n, T, TB, &up, &low, NULL);
        out = low > 0;
        Margins_Private(L, C, n, Y, NULL, &up, &low, NULL);
        endout = low > 0;
        if (C->kind == SR_SPEC_ALWAYS) {
          /* broken over the whole sub-step, some time of which surely lies in the window; or
             broken at the sub-step's end, a time surely in the window */
          if (out && ehi <= C->t1 && elo >= C->t0) return *cv = c, true;
          if (out && shi <= C->t1 && SRAddDown(SRMulDown(j, plo), SRMulDown(q, hq.lo)) >= C->t0) return *cv = c, true;
          if (endout && C->t0 <= elo && ehi <= C->t1) return *cv = c, true;
        } else if (!out)
          escaped[c] = false;
      }
      for (int i = 0; i < n; i++)
        X[i] = Y[i];
    }
    continue;
    for (int i = 0; i < n; i++)
      X[i] = Y[i];
  }
  for (int c = 0; c < S->nc; c++)
    if (S->c[c].kind == SR_SPEC_EVENTUALLY && escaped[c]) return *cv = c, true;
  return false;
}

bool SRPieceRefute(SRLoop *L, const double *x0, int *cv) { return Refute_Private(L, x0, -1, -1, SR_REFUTE_SUB, L->plant->steps, cv); }

bool SRPieceRefuteNear(SRLoop *L, const double *x0, double t, bool refine, int *cv)
{
  const int steps = L->plant->steps;
  double    j     = floor(t / L->plant->period);
  int       jlo, jhi;
  if (!(j >= 0)) j = 0;
  if (j > steps) j = steps;
  jlo = (int)j - 1 < 0 ? 0 : (int)j - 1, jhi = (int)j > steps - 1 ? steps - 1 : (int)j;
  /* up to the period after the violation only: a violation at t = 0 is confirmed at once
     whatever the horizon */
  for (int K = SR_REFUTE_SUB; K <= (refine ? SR_REFUTE_MAX_SUB : SR_REFUTE_SUB); K *= 16)
    if (Refute_Private(L, x0, jlo, jhi, K, jhi + 1, cv)) return true;
  return false;
}
