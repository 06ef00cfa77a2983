/* CROWN's private parts (SPEC §15): the relaxation lines (src/bounds/crownrelax.c), the two
   lines CROWN (src/bounds/netcrown.c) puts around an activation over a pre-activation range, which
   a test checks against the function itself (tests/bounds/test_crown_relax.c); and the vector
   kernels of its back-substitution (src/bounds/crownkernels.c). */
#pragma once

#include <simreach/model.h>
#include <stdbool.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
  #define SR_CROWN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
  #define SR_CROWN_CLONES
#endif
#if defined(__GNUC__)
typedef double    SRCrownVec_Private __attribute__((vector_size(4 * sizeof(double))));
typedef long long SRCrownMask_Private __attribute__((vector_size(4 * sizeof(long long))));
  #define SR_VEC4 1
#else
  #define SR_VEC4 0
#endif
#if defined(__GNUC__)
typedef double    SRCrownVec8_Private __attribute__((vector_size(8 * sizeof(double))));
typedef long long SRCrownMask8_Private __attribute__((vector_size(8 * sizeof(long long))));
#endif

/* alL z + beL <= s(z) <= alU z + beU for every real z in [lo, hi] (lo <= hi finite), s the
   activation act; false when no finite lines were found */
bool SRCrownRelax_Private(SRActivation act, double lo, double hi, double *alL, double *beL, double *alU, double *beU);

/* the kernels (each defined with SR_CROWN_CLONES: one symbol, its variant chosen at load time)
   O (rows x ni, row stride ld) = L (rows x no, row stride ld) W (no x ni) */
void SRCrownGemm(int rows, PetscInt no, PetscInt ni, PetscInt ld, const double *restrict L, const double *restrict W, double *restrict O);
/* s = sum_o x_o b_o, a = sum_o |x_o b_o|, t = sum_o |x_o| v_o (v NULL: t untouched) */
void SRCrownDot3(PetscInt n, const double *restrict x, const double *restrict b, const double *restrict v, double *s, double *a, double *t);
/* a += l x over m entries */
void SRCrownAxpy(int m, double l, const double *restrict x, double *restrict a);
/* the relax step and a narrow affine layer's step in one pass over each row (netcrown.c,
   RelaxAffineNarrow_Private): out (rows x ni) and per row i the sums sums[k rows + i] */
void SRCrownRelaxNarrowRows(int rows, PetscInt no, PetscInt ni, const double *in, PetscInt ldin, const double *alL, const double *beL, const double *alU, const double *beU, const double *zm, const double *WT, const double *b, const double *vb, int pair, double *out, PetscInt ldout, double *sums);
