/* Four float lanes for the engine's SIMD paths (contact preparation and the
 * 4-lane contact kernel, the box-pair narrowphase): SSE2 where the compiler
 * targets it, otherwise a plain-C fallback with the same semantics lane by
 * lane. Every operation is one IEEE operation per lane (no FMA, no
 * reciprocal approximations), so results do not depend on the path.
 * Internal header. SN_F4_SSE is defined when f4 is __m128. */
#ifndef SN_BASE_SIMD4_H
#define SN_BASE_SIMD4_H

#include <math.h>
#include <stdbool.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#define SN_F4_SSE 1
typedef __m128 f4;
static inline f4 f4_set(float a) { return _mm_set1_ps(a); }
static inline f4 f4_add(f4 a, f4 b) { return _mm_add_ps(a, b); }
static inline f4 f4_sub(f4 a, f4 b) { return _mm_sub_ps(a, b); }
static inline f4 f4_mul(f4 a, f4 b) { return _mm_mul_ps(a, b); }
static inline f4 f4_max(f4 a, f4 b) { return _mm_max_ps(a, b); }
static inline f4 f4_min(f4 a, f4 b) { return _mm_min_ps(a, b); }
static inline f4 f4_gt(f4 a, f4 b) { return _mm_cmpgt_ps(a, b); }
static inline f4 f4_ge(f4 a, f4 b) { return _mm_cmpge_ps(a, b); }
static inline f4 f4_lt(f4 a, f4 b) { return _mm_cmplt_ps(a, b); }
static inline f4 f4_and(f4 a, f4 b) { return _mm_and_ps(a, b); }
static inline f4 f4_div(f4 a, f4 b) { return _mm_div_ps(a, b); }
static inline f4 f4_sqrt(f4 a) { return _mm_sqrt_ps(a); }
static inline int f4_mask_bits(f4 m) { return _mm_movemask_ps(m); }
/// mask ? a : b
static inline f4 f4_select(f4 mask, f4 a, f4 b) { return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b)); }
static inline f4 f4_load(const float *p) { return _mm_loadu_ps(p); }
static inline void f4_store(float *p, f4 a) { _mm_storeu_ps(p, a); }
static inline void f4_transpose(f4 *a, f4 *b, f4 *c, f4 *d) { _MM_TRANSPOSE4_PS(*a, *b, *c, *d); }
/// Lanes a, b, c, d in that order (from registers: no trip through memory).
static inline f4 f4_make(float a, float b, float c, float d) { return _mm_setr_ps(a, b, c, d); }
#else
/* Portable fallback with the same semantics lane by lane. */
typedef struct f4 {
  float v[4];
} f4;
#define F4_MAP(expr)                                                                                                   \
  f4 r;                                                                                                                \
  for (int i = 0; i < 4; ++i) r.v[i] = (expr);                                                                         \
  return r
static inline f4 f4_set(float a) { F4_MAP(a); }
static inline f4 f4_add(f4 a, f4 b) { F4_MAP(a.v[i] + b.v[i]); }
static inline f4 f4_sub(f4 a, f4 b) { F4_MAP(a.v[i] - b.v[i]); }
static inline f4 f4_mul(f4 a, f4 b) { F4_MAP(a.v[i] * b.v[i]); }
static inline f4 f4_max(f4 a, f4 b) { F4_MAP(a.v[i] > b.v[i] ? a.v[i] : b.v[i]); }
static inline f4 f4_min(f4 a, f4 b) { F4_MAP(a.v[i] < b.v[i] ? a.v[i] : b.v[i]); }
static inline float f4_mask(bool b) { return b ? -1.0f : 0.0f; } /* any nonzero marks true */
static inline f4 f4_gt(f4 a, f4 b) { F4_MAP(f4_mask(a.v[i] > b.v[i])); }
static inline f4 f4_ge(f4 a, f4 b) { F4_MAP(f4_mask(a.v[i] >= b.v[i])); }
static inline f4 f4_lt(f4 a, f4 b) { F4_MAP(f4_mask(a.v[i] < b.v[i])); }
static inline f4 f4_and(f4 a, f4 b) { F4_MAP(f4_mask(a.v[i] != 0.0f && b.v[i] != 0.0f)); }
static inline f4 f4_div(f4 a, f4 b) { F4_MAP(a.v[i] / b.v[i]); }
static inline f4 f4_sqrt(f4 a) { F4_MAP(sqrtf(a.v[i])); }
static inline int f4_mask_bits(f4 m) {
  int bits = 0;
  for (int i = 0; i < 4; ++i) bits |= (m.v[i] != 0.0f) << i;
  return bits;
}
static inline f4 f4_select(f4 m, f4 a, f4 b) { F4_MAP(m.v[i] != 0.0f ? a.v[i] : b.v[i]); }
static inline f4 f4_load(const float *p) { F4_MAP(p[i]); }
static inline f4 f4_make(float a, float b, float c, float d) {
  f4 r = {{a, b, c, d}};
  return r;
}
static inline void f4_store(float *p, f4 a) {
  for (int i = 0; i < 4; ++i) p[i] = a.v[i];
}
static inline void f4_transpose(f4 *a, f4 *b, f4 *c, f4 *d) {
  f4 m[4] = {*a, *b, *c, *d};
  for (int i = 0; i < 4; ++i) {
    a->v[i] = m[i].v[0];
    b->v[i] = m[i].v[1];
    c->v[i] = m[i].v[2];
    d->v[i] = m[i].v[3];
  }
}
#endif

#endif /* SN_BASE_SIMD4_H */
