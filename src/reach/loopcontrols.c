/* The controls of one period and the selection among several networks (SPEC §15 turn 4;
   include/simreach/private/loopcontrols.h). */
#include <simreach/private/loopcontrols.h>

#include <math.h>

/* the controls for the states X: network inputs, the enclosure, the control expressions */
static bool Controls_Private(SRLoop *L, const SRController *ct, int m, const SRAffine *X)
{
  const SRPlant *pl = L->plant;
  SRInterval     in[SR_PLANT_MAX_INPUTS], y[SR_PLANT_MAX_OUTPUTS];
  /* the slots the plant's expressions can name (states, controls, disturbances, outputs; the
     others of the nvars are never read): 0 until set, as the network's outputs are at the
     first evaluation */
  for (int i = 0; i < pl->n; i++)
    L->vars[i] = X[i];
  for (int j = 0; j < pl->nu; j++)
    L->vars[SR_SLOT_U(j)] = SRAffineConstant(0.0);
  for (int k = 0; k < pl->nw; k++)
    L->vars[SR_SLOT_W(k)] = SRAffineConstant(0.0);
  for (int k = 0; k < pl->nout; k++)
    L->vars[SR_SLOT_Y(k)] = SRAffineConstant(0.0);
  SRExprEvalAffine(&pl->dag, m, L->vars, L->val);
  if (ct->enclose_affine) {
    SRAffine *ain = L->forms + (size_t)(7 + L->spec->nc) * (size_t)pl->n, *aout = ain + pl->nin;
    for (int i = 0; i < pl->nin; i++) {
      ain[i] = L->val[pl->in_root[i]];
      if (SRAffineIsNaI(&ain[i])) return false;
    }
    if (ct->enclose_affine(ct->ctx, m, ain, aout)) return false;
    for (int k = 0; k < pl->nout; k++)
      L->vars[SR_SLOT_Y(k)] = aout[k];
  } else {
    for (int i = 0; i < pl->nin; i++) {
      in[i] = SRAffineRange(m, &L->val[pl->in_root[i]]);
      if (!SRIntervalIsBounded(in[i])) return false;
    }
    if (ct->enclose(ct->ctx, in, y)) return false;
    for (int k = 0; k < pl->nout; k++) {
      if (!SRIntervalIsBounded(y[k])) return false;
      L->vars[SR_SLOT_Y(k)] = SRAffineInterval(y[k]);
    }
  }
  SRExprEvalAffine(&pl->dag, m, L->vars, L->val);
  for (int j = 0; j < pl->nu; j++) {
    L->vars[SR_SLOT_U(j)] = L->val[pl->u_root[j]];
    if (SRAffineIsNaI(&L->vars[SR_SLOT_U(j)])) return false;
  }
  for (int k = 0; k < pl->nw; k++)
    L->vars[SR_SLOT_W(k)] = SRAffineInterval(pl->wbox[k]);
  return true;
}

/* Output k is a possible argmax when sup y_k >= max_j inf y_j (any tie-break covered): if y_k is
   the largest, sup y_k >= y_k >= y_j >= inf y_j for every j.  With several candidates the
   controls are the hull of every candidate's (the union, as intervals). */
bool SRLoopControls(SRLoop *L, int m, const SRAffine *X, uint64_t *cand)
{
  const SRPlant *pl = L->plant;
  SRInterval     U[SR_PLANT_MAX_STATES];
  uint64_t       next  = 0;
  int            count = 0;
  if (!pl->select) return Controls_Private(L, L->ctrl, m, X);
  if (!L->ctrls || L->nctrl != pl->nout) return false; /* one network per output (the caller's check) */
  for (int k = 0; k < L->nctrl; k++) {
    double     maxlo = -INFINITY;
    SRInterval y[SR_PLANT_MAX_OUTPUTS];
    if (!(*cand >> k & 1)) continue;
    if (!Controls_Private(L, &L->ctrls[k], m, X)) return false;
    for (int o = 0; o < pl->nout; o++) {
      y[o] = SRAffineRange(m, &L->vars[SR_SLOT_Y(o)]);
      if (!SRIntervalIsBounded(y[o])) return false;
      maxlo = fmax(maxlo, y[o].lo);
    }
    for (int o = 0; o < pl->nout; o++)
      if (y[o].hi >= maxlo) next |= (uint64_t)1 << o;
    for (int j = 0; j < pl->nu; j++) {
      SRInterval R = SRAffineRange(m, &L->vars[SR_SLOT_U(j)]);
      U[j]         = count ? SRIntervalHull(U[j], R) : R;
    }
    count++;
  }
  if (count > 1)
    for (int j = 0; j < pl->nu; j++)
      L->vars[SR_SLOT_U(j)] = SRAffineInterval(U[j]);
  *cand = next;
  return count > 0;
}
