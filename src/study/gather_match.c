/* Accuracy matching of the gather (SPEC §9; include/simreach/private/gather_match.h). */
#include <simreach/private/gather_match.h>
#include <math.h>

/* The baseline row closest to and not below prediction error p, or -1. */
static PetscInt ByCheckpoint_Private(PetscInt nr, PetscInt nf, PetscInt ck, PetscInt pred, const double *B, double p)
{
  PetscInt kb = -1;
  for (PetscInt k = 0; k < nr; k++) {
    const double *rw = B + k * nf;
    if (!isfinite(rw[ck]) || !(rw[pred] >= p)) continue;
    if (kb < 0 || rw[pred] < B[kb * nf + pred]) kb = k;
  }
  return kb;
}

/* The latest consecutive valid baseline rows (k0, k1) whose prediction errors bracket p, with
   the weight of k1; PETSC_FALSE when none do. */
static PetscBool Bracket_Private(PetscInt nr, PetscInt nf, PetscInt ck, PetscInt pred, const double *B, double p, PetscInt *k0, PetscInt *k1, double *w)
{
  PetscInt prev = -1;
  PetscBool found = PETSC_FALSE;
  for (PetscInt k = 0; k < nr; k++) {
    if (!isfinite(B[k * nf + ck])) continue;
    if (prev >= 0) {
      const double a = B[prev * nf + pred], b = B[k * nf + pred];
      if (isfinite(a) && isfinite(b) && PetscMin(a, b) <= p && p <= PetscMax(a, b)) {
        *k0   = prev;
        *k1   = k;
        *w    = a == b ? 0.0 : (p - a) / (b - a);
        found = PETSC_TRUE;
      }
    }
    prev = k;
  }
  return found;
}

void SRAccuracyMatch(PetscInt nr, PetscInt nf, PetscInt ck, PetscInt pred, const double *T, const double *B, SRMatch *m)
{
  PetscInt jf = -1;

  m->kind = SR_MATCH_NONE;
  m->jt = m->k0 = m->k1 = -1;
  m->w                  = 0;
  for (PetscInt j = 0; j < nr; j++)
    if (isfinite(T[j * nf + ck])) jf = j;
  if (jf < 0 || !isfinite(T[jf * nf + pred])) return;
  m->k0 = ByCheckpoint_Private(nr, nf, ck, pred, B, T[jf * nf + pred]);
  if (m->k0 >= 0) {
    m->kind = SR_MATCH_CHECKPOINT;
    m->jt   = jf;
    m->k1   = m->k0;
    return;
  }
  for (PetscInt j = jf; j >= 1; j--) { /* row 0 precedes any training with the treatment */
    const double p = T[j * nf + pred];
    if (!isfinite(T[j * nf + ck]) || !isfinite(p)) continue;
    if (Bracket_Private(nr, nf, ck, pred, B, p, &m->k0, &m->k1, &m->w)) {
      m->kind = SR_MATCH_INTERPOLATED;
      m->jt   = j;
      return;
    }
  }
  m->k0 = m->k1 = -1;
}

double SRAccuracyMatchValue(const SRMatch *m, PetscInt nf, PetscInt col, const double *T, const double *B, double *treated)
{
  *treated = NAN;
  if (m->kind == SR_MATCH_NONE) return NAN;
  *treated = T[m->jt * nf + col];
  return (1.0 - m->w) * B[m->k0 * nf + col] + m->w * B[m->k1 * nf + col];
}
