/* The plant-file lines a system of the abstraction and the study needs (SPEC §16, docs/systems.md;
   the parser's state is include/simreach/private/plantparse.h): domain, bound, reference,
   regulate, and the constants given as options. */
#include <simreach/private/plantparse.h>

#include <stdio.h>
#include <string.h>

/* ---- what the abstraction and the study need (SPEC §16; plant.h): domain, bound, reference,
   regulate, and constants given as options --------------------------------------------------- */

/* a 'const NAME' line whose NAME is given as an option takes the option's value (exact) */
void OverrideConst_Private(SRParser_Private *P, const char *name, SRPVal_Private *e)
{
  if (!P->ov) return;
  for (int k = 0; k < P->ov->n; k++)
    if (!strcmp(P->ov->name[k], name)) *e = PVConstX_Private(SRIntervalPoint(P->ov->value[k]), P->ov->value[k]);
}

/* a constant expression up to ',' ']' or the end of the line; its double in *x */
static bool ConstExpr_Private(SRParser_Private *P, const char *what, double *x)
{
  SRPVal_Private e;
  const char    *at;
  SRScanSkip(&P->s);
  at       = P->s.p;
  P->depth = 0;
  P->allow_state = P->allow_u = P->allow_w = P->allow_y = false;
  e = Expr_Private(P);
  if (e.node == -1) return false;
  if (e.node != SR_PV_CONST || !isfinite(e.x)) return P->s.p = at, SRScanFail(&P->s, "%s: expected a finite constant expression", what);
  *x = e.x;
  return true;
}

static int StateName_Private(SRParser_Private *P, const char *kw)
{
  char        name[SR_PLANT_NAME];
  const char *at;
  int         i;
  SRScanSkip(&P->s);
  at = P->s.p;
  if (!SRScanName(&P->s, name)) return -1;
  for (i = P->plant->n - 1; i >= 0; i--) /* (not SRPlantStateIndex: plantfile.c calls this file) */
    if (!strcmp(P->plant->state[i], name)) break;
  if (i < 0) P->s.p = at, SRScanFail(&P->s, "%s: '%s' is not a state", kw, name);
  return i;
}

/* 1/0: a statement of this kind, parsed (true) or refused (false, recorded); -1: not one */
int SystemStatement_Private(SRParser_Private *P, const char *kw)
{
  SRPlant *pl = P->plant;
  char     name[SR_PLANT_NAME];
  if (!strcmp(kw, "domain")) {
    int         i;
    double      lo, hi;
    const char *at;
    if (!pl->n) return SRScanFail(&P->s, "'domain' before the 'states' line");
    if ((i = StateName_Private(P, kw)) < 0) return false;
    if (pl->has_domain[i]) return SRScanFail(&P->s, "a second 'domain %s' line", pl->state[i]);
    if (!SRScanName(&P->s, name) || strcmp(name, "in")) return SRScanFail(&P->s, "expected 'in [LO, HI]'");
    if (!SRScanExpect(&P->s, "[") || !ConstExpr_Private(P, "domain", &lo) || !SRScanExpect(&P->s, ",")) return false;
    SRScanSkip(&P->s);
    at = P->s.p;
    if (!ConstExpr_Private(P, "domain", &hi) || !SRScanExpect(&P->s, "]")) return false;
    if (!(lo < hi)) return P->s.p = at, SRScanFail(&P->s, "domain %s: [%.17g, %.17g] is empty; LO < HI is needed", pl->state[i], lo, hi);
    if (!SRScanAtEnd(&P->s)) return SRScanFail(&P->s, "expected the end of the line");
    pl->has_domain[i] = true, pl->dlo[i] = lo, pl->dhi[i] = hi;
    return true;
  }
  if (!strcmp(kw, "bound")) {
    const char *at;
    double      u;
    if (pl->umax > 0) return SRScanFail(&P->s, "a second 'bound' line");
    SRScanSkip(&P->s);
    at = P->s.p;
    if (!ConstExpr_Private(P, "bound", &u)) return false;
    if (!(u > 0)) return P->s.p = at, SRScanFail(&P->s, "bound %g: the control bound must be > 0", u);
    if (!SRScanAtEnd(&P->s)) return SRScanFail(&P->s, "expected the end of the line");
    pl->umax = u;
    return true;
  }
  if (!strcmp(kw, "reference")) {
    const char *at;
    int         j, e;
    SRScanSkip(&P->s);
    at = P->s.p;
    if (!SRScanName(&P->s, name)) return false;
    if (!strcmp(name, "lqr")) {
      if (pl->reference) return P->s.p = at, SRScanFail(&P->s, "a second reference (lqr and expressions do not mix)");
      pl->reference = 1;
      return SRScanAtEnd(&P->s) ? true : SRScanFail(&P->s, "expected the end of the line ('reference lqr' is at x = 0, u = 0)");
    }
    for (j = 0; j < pl->nu; j++)
      if (!strcmp(pl->control[j], name)) break;
    if (j == pl->nu) return P->s.p = at, SRScanFail(&P->s, "reference: expected 'lqr' or a control name (the 'control' lines come first), found '%s'", name);
    if (pl->reference == 1 || pl->ref_root[j] >= 0) return P->s.p = at, SRScanFail(&P->s, "a second reference for '%s'", name);
    if (!SRScanExpect(&P->s, "=")) return false;
    P->allow_state = true;
    e              = LineExpr_Private(P);
    if (e < 0) return false;
    pl->reference = 2;
    pl->ref_root[j] = e;
    return true;
  }
  if (!strcmp(kw, "regulate")) {
    if (pl->nreg) return SRScanFail(&P->s, "a second 'regulate' line");
    while (!SRScanAtEnd(&P->s)) {
      int i = StateName_Private(P, kw);
      if (i < 0) return false;
      for (int k = 0; k < pl->nreg; k++)
        if (pl->reg[k] == i) return SRScanFail(&P->s, "regulate: '%s' twice", pl->state[i]);
      pl->reg[pl->nreg++] = i;
    }
    return pl->nreg ? true : SRScanFail(&P->s, "expected state names after 'regulate'");
  }
  return -1;
}

/* after the file: a reference by expressions gives every control one */
void SystemCheck_Private(SRParser_Private *P, const char *name)
{
  SRPlant *pl = P->plant;
  if (pl->reference == 2)
    for (int j = 0; j < pl->nu; j++)
      if (pl->ref_root[j] < 0) {
        snprintf(P->s.err, sizeof P->s.err, "plant file %s: no 'reference %s = ...' line (every control needs one, or 'reference lqr')", name, pl->control[j]);
        return;
      }
  if (pl->reference && !pl->nu) snprintf(P->s.err, sizeof P->s.err, "plant file %s: a 'reference' line in a plant with no 'control' line", name);
}
