/* Shared by the fuzz targets: a reader that turns fuzz bytes into values,
 * biased toward the values that break physics code (NaN, infinities, huge,
 * tiny, negative zero), and a check that aborts with a message.
 * SPDX-License-Identifier: MIT */
#ifndef SINEW_FUZZ_COMMON_H
#define SINEW_FUZZ_COMMON_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The libFuzzer entry point every target defines (replay_main.c calls it too).
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/// Aborts (a crash libFuzzer records) when an invariant does not hold.
#define FZ_CHECK(cond, ...)                                                                                            \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      fprintf(stderr, "fuzz invariant failed at %s:%d: %s: ", __FILE__, __LINE__, #cond);                              \
      fprintf(stderr, __VA_ARGS__);                                                                                    \
      fputc('\n', stderr);                                                                                             \
      abort();                                                                                                         \
    }                                                                                                                  \
  } while (0)

/* Decoding must not depend on the compiler: never read twice in one
 * expression, argument list or initializer list (their order is unspecified),
 * or the libFuzzer (clang) and replay (gcc) builds would decode the same
 * input differently. */

/// Consumes the input front to back; past the end every read gives zero.
typedef struct fz_reader {
  const uint8_t *data;
  size_t size, pos;
} fz_reader;

static inline fz_reader fz_reader_make(const uint8_t *data, size_t size) {
  fz_reader r = {data, size, 0};
  return r;
}

static inline int fz_empty(const fz_reader *r) { return r->pos >= r->size; }

static inline uint8_t fz_u8(fz_reader *r) { return r->pos < r->size ? r->data[r->pos++] : 0; }

static inline uint16_t fz_u16(fz_reader *r) {
  uint16_t lo = fz_u8(r);
  return (uint16_t)(lo | (uint16_t)fz_u8(r) << 8);
}

static inline uint32_t fz_u32(fz_reader *r) {
  uint32_t lo = fz_u16(r);
  return lo | (uint32_t)fz_u16(r) << 16;
}

static inline int fz_bool(fz_reader *r) { return fz_u8(r) & 1; }

/// An integer in [lo, hi] (inclusive).
static inline int32_t fz_range(fz_reader *r, int32_t lo, int32_t hi) {
  if (hi <= lo) return lo;
  uint32_t span = (uint32_t)(hi - lo) + 1u;
  return lo + (int32_t)(fz_u16(r) % span);
}

/// Raw float bits (any value, NaN payloads included).
static inline float fz_raw_float(fz_reader *r) {
  uint32_t bits = fz_u32(r);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/// A special value: what a careless caller or a diverging simulation hands over.
static inline float fz_special(uint8_t k) {
  static const float table[] = {0.0f,   -0.0f,   1.0f,     -1.0f, 1e-30f, -1e-30f, 1e-45f,  1e30f,
                                -1e30f, FLT_MAX, -FLT_MAX, 1e6f,  -1e6f,  1e12f,   3.0e38f, 0.5f};
  if (k % 20 == 16) return NAN;
  if (k % 20 == 17) return INFINITY;
  if (k % 20 == 18) return -INFINITY;
  if (k % 20 == 19) return -NAN;
  return table[k % 16];
}

/// Mostly a value in [lo, hi] (65536 steps), sometimes a special value or raw bits.
static inline float fz_float(fz_reader *r, float lo, float hi) {
  uint8_t tag = fz_u8(r);
  if (tag < 224) return lo + (hi - lo) * ((float)fz_u16(r) / 65535.0f);
  if (tag < 252) return fz_special(fz_u8(r));
  return fz_raw_float(r);
}

static inline double fz_double(fz_reader *r, double lo, double hi) {
  uint8_t tag = fz_u8(r);
  if (tag < 224) return lo + (hi - lo) * ((double)fz_u16(r) / 65535.0);
  if (tag < 252) return (double)fz_special(fz_u8(r));
  uint64_t low = fz_u32(r);
  uint64_t bits = low | (uint64_t)fz_u32(r) << 32;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

#endif
