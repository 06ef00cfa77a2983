/* Counter-based random numbers (SPEC §3, §6: independent streams).

   Every draw is a pure function of (seed, stream, index), so a sample never depends on which
   rank draws it or in which order: the training samples, the held-out samples of H, the
   network initialisation and the falsification samples are distinct streams of one seed.
   Not collective; no state. */
#pragma once

#include <stdint.h>

typedef enum {
  SR_STREAM_INIT     = 1, /* network initialisation (Glorot uniform) */
  SR_STREAM_TRAIN    = 2, /* training samples x_i */
  SR_STREAM_HELDOUT  = 3, /* held-out samples for H, coverage, prediction error */
  SR_STREAM_TARGET   = 4, /* samples inside cells for the empirical target T(k) */
  SR_STREAM_FALSIFY  = 5, /* sampled falsification in the independent re-check */
  SR_STREAM_BATCH    = 6, /* minibatch order */
  SR_STREAM_TEST     = 7, /* tests and benchmarks */
  SR_STREAM_PRETRAIN = 8  /* minibatch order of the task-only warm start */
} SRStream;

/* The Philox4x32-10 block function (Random123 conventions), exposed for known-answer tests. */
void SRRandomPhilox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);
/* 64 bits: Philox4x32-10 with key = seed, counter = (index, stream); words 1:0 of the block. */
uint64_t SRRandomBits(uint64_t seed, uint64_t stream, uint64_t index);
/* Uniform in [0, 1) with 53 random bits. */
double SRRandomUniform(uint64_t seed, uint64_t stream, uint64_t index);
/* Uniform in [lo, hi). */
double SRRandomRange(uint64_t seed, uint64_t stream, uint64_t index, double lo, double hi);
/* The same draws for count consecutive indices from index0, vectorised: u[j] = SRRandomUniform(index0 + j);
   x[j] = SRRandomRange(index0 + j, lo[j % period], hi[j % period]), bit for bit. */
void SRRandomUniformBatch(uint64_t seed, uint64_t stream, uint64_t index0, int64_t count, double *u);
void SRRandomRangeBatch(uint64_t seed, uint64_t stream, uint64_t index0, int64_t count, int64_t period, const double *lo, const double *hi, double *x);
/* Standard normal (Box-Muller on two draws 2*index, 2*index+1 of the stream). */
double SRRandomNormal(uint64_t seed, uint64_t stream, uint64_t index);
