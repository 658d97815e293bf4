/* Helpers for batched XPBD kernels of constraint plugins (header only,
 * optional): solve_particles and begin_particles over an sn_particle_batch
 * (sinew/plugin.h), one constraint after another or several lanes at a time.
 *
 * Every compiler gets the scalar part: the records of constraint k and
 * particle i in a batch, a particle of the item path as the batch's record,
 * the move of two particles that leaves a fixed one unwritten, and
 * SN_PB_RUN_LANES, which runs a plugin's lane kernels as far as the host
 * allows and the CPU has.
 *
 * GCC and Clang on x86 with SSE2 also get the lane part (SN_PB_SIMD is 1;
 * define SN_PB_SIMD 0 before the include to leave it out): vector types and
 * macros for one kernel written once and compiled twice, 4 lanes with SSE2
 * and 8 with AVX2. The plugin defines SN_PB_W (4 or 8) around each inclusion
 * of its kernel file; every SN_PB_ name below that depends on the width
 * expands to that width's definition where it is used:
 *
 *   #include <sinew/plugin_batch.h>
 *   #if SN_PB_SIMD
 *   #define SN_PB_W 4
 *   #include "my_kernel.inc"   // defines SN_PB_NAME(my_lanes), i.e. my_lanes4
 *   #undef SN_PB_W
 *   #define SN_PB_W 8
 *   #include "my_kernel.inc"   // my_lanes8, compiled for AVX2 (SN_PB_TARGET)
 *   #undef SN_PB_W
 *   #endif
 *   static void my_solve_batch(const sn_step_info *info, const sn_particle_batch *batch,
 *                              int32_t begin, int32_t end) {
 *     my_solve_scalar(info, batch, SN_PB_RUN_LANES(my_lanes, info, batch, begin, end), end);
 *   }
 *
 * A lane is one constraint of one colour, so the lanes of a group touch
 * distinct movable particles. The helpers move data only (loads, stores,
 * shuffles, selects) and take square roots with the exact SSE2/AVX
 * instructions: a kernel that repeats its scalar projection operation for
 * operation (built with -ffp-contract=off, no reciprocal approximations)
 * gives the scalar loop's result bit for bit at either width, as the host
 * requires (sn_particle_batch.simd). Wide vectors cannot cross a call
 * without AVX in the baseline ABI, so the vector helpers are macros.
 * plugins/xpbd_distance and plugins/xpbd_tether are complete examples.
 * The lane part serves impulse types too, over the items of a call marked
 * SN_STEP_INDEPENDENT_ITEMS (eight wide where SN_STEP_WIDE_LANES allows):
 * plugins/revolute gathers its bodies' and instances' rows with
 * SN_PB_LOADT. SPDX-License-Identifier: MIT */
#ifndef SINEW_PLUGIN_BATCH_H
#define SINEW_PLUGIN_BATCH_H

#include "sinew/plugin.h"

/// 1 where the lane part exists (GCC or Clang, x86 with SSE2), else 0;
/// define it 0 before the include to leave the lane part out.
#ifndef SN_PB_SIMD
#if (defined(__GNUC__) || defined(__clang__)) && defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__))
#define SN_PB_SIMD 1
#else
#define SN_PB_SIMD 0
#endif
#endif
#if SN_PB_SIMD
#include <immintrin.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Records of a batch (any compiler)                                         */

/// Constraint k's params: params + k * params_stride (with
/// SN_BATCH_SHARED_PARAMS and params_stride 0, the one shared record).
static inline const void *sn_pb_params(const sn_particle_batch *batch, int32_t k) {
  return (const char *)batch->params + (size_t)k * batch->params_stride;
}

/// Constraint k's instance: instances + k * instance_stride.
static inline void *sn_pb_instance(const sn_particle_batch *batch, int32_t k) {
  return (char *)batch->instances + (size_t)k * batch->instance_stride;
}

/// Particle i's position record: x, y (the centre at the substep start,
/// read-only) and dx, dy (its motion in the substep so far).
static inline float *sn_pb_position(const sn_particle_batch *batch, int32_t i) { return batch->position + 4 * i; }

/// Particle i's inverse mass (0: fixed, never move it).
static inline float sn_pb_inv_mass(const sn_particle_batch *batch, int32_t i) { return batch->mass_velocity[4 * i]; }

/// A particle of the item path (sn_constraint_item) as a position record,
/// so one projection serves both paths: x, y = centre, dx, dy = state->dp.
static inline void sn_pb_record_from(const sn_constraint_body *particle, float record[4]) {
  record[0] = particle->center.x;
  record[1] = particle->center.y;
  record[2] = particle->state->dp.x;
  record[3] = particle->state->dp.y;
}

/// A record's motion dx, dy back into the item path's particle (state->dp).
static inline void sn_pb_record_to(const float record[4], const sn_constraint_body *particle) {
  particle->state->dp.x = record[2];
  particle->state->dp.y = record[3];
}

/// Moves two particles' records by the correction (px, py): b along it, a
/// against it, each by its inverse mass. A fixed particle (w 0) is not
/// written: when the host splits a colour between threads, two of them may
/// hold constraints on the same fixed particle.
static inline void sn_pb_move_pair(float *a, float wa, float *b, float wb, float px, float py) {
  if (wa != 0.0f) {
    a[2] = a[2] - wa * px;
    a[3] = a[3] - wa * py;
  }
  if (wb != 0.0f) {
    b[2] = b[2] + wb * px;
    b[3] = b[3] + wb * py;
  }
}

/// min(x, 0) as the lanes compute it (SN_PB_SEL(x < 0, x, 0)): the scalar
/// path's clamp, so both give the same bits (fminf may not for -0 or NaN).
static inline float sn_pb_min0(float x) { return x < 0.0f ? x : 0.0f; }

/* ------------------------------------------------------------------------ */
/* Lane dispatch                                                             */

/// A lane kernel: solves constraints from begin in whole groups of its
/// width (not past end) and returns where the constraints it left start.
typedef int32_t sn_pb_lanes_fcn(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin, int32_t end);

#if SN_PB_SIMD
/// Runs lanes8 over [begin, end) when the host allows AVX2 (batch->simd >=
/// 2) and the CPU has it, then lanes4 when the host allows SSE2 (simd >= 1);
/// returns where the scalar tail starts. Use SN_PB_RUN_LANES.
static inline int32_t sn_pb_run_lanes(sn_pb_lanes_fcn *lanes8, sn_pb_lanes_fcn *lanes4, const sn_step_info *info,
                                      const sn_particle_batch *batch, int32_t begin, int32_t end) {
  if (batch->simd >= 2 && __builtin_cpu_supports("avx2")) begin = lanes8(info, batch, begin, end);
  if (batch->simd >= 1) begin = lanes4(info, batch, begin, end);
  return begin;
}
/// The lane kernels name##8 and name##4 (SN_PB_NAME(name) at both widths)
/// over [begin, end): the index where the scalar tail starts. Without
/// SN_PB_SIMD it is begin and names no kernel.
#define SN_PB_RUN_LANES(name, info, batch, begin, end)                                                                 \
  sn_pb_run_lanes(name##8, name##4, (info), (batch), (begin), (end))
#else
#define SN_PB_RUN_LANES(name, info, batch, begin, end) (begin)
#endif

#if SN_PB_SIMD

/* ------------------------------------------------------------------------ */
/* Lanes: names for the width SN_PB_W in use                                 */

/// name with the width appended (SN_PB_NAME(my_lanes) is my_lanes4 or my_lanes8).
#define SN_PB_NAME(name) SN_PLUGIN_CAT(name, SN_PB_W)
/// Attributes of a kernel function: none with 4 lanes, target("avx2") with 8.
#define SN_PB_TARGET SN_PLUGIN_CAT(SN_PB_TARGET_, SN_PB_W)
/// A lane kernel's always-inline body (SN_PB_DEFINE_LANES calls it).
#define SN_PB_INLINE SN_PB_TARGET static inline __attribute__((always_inline))
/// One float, double or int32_t per lane; int32_t lanes hold masks (all ones or zero).
#define SN_PB_VF SN_PLUGIN_CAT(sn_pb_vf, SN_PB_W)
#define SN_PB_VD SN_PLUGIN_CAT(sn_pb_vd, SN_PB_W)
#define SN_PB_VI SN_PLUGIN_CAT(sn_pb_vi, SN_PB_W)
/// The intrinsics' register of SN_PB_W floats (__m128 or __m256): what
/// SN_PB_LOADT and SN_PB_LOADC fill.
#define SN_PB_VEC SN_PLUGIN_CAT(sn_pb_reg, SN_PB_W)
/// Every lane's bit (SN_PB_BITS of a full mask).
#define SN_PB_ALL ((1 << SN_PB_W) - 1)

typedef float sn_pb_vf4 __attribute__((vector_size(16)));
typedef double sn_pb_vd4 __attribute__((vector_size(32)));
typedef int32_t sn_pb_vi4 __attribute__((vector_size(16)));
typedef float sn_pb_vf8 __attribute__((vector_size(32)));
typedef double sn_pb_vd8 __attribute__((vector_size(64)));
typedef int32_t sn_pb_vi8 __attribute__((vector_size(32)));
typedef __m128 sn_pb_reg4;
typedef __m256 sn_pb_reg8;

/* ------------------------------------------------------------------------ */
/* Lanes: arithmetic                                                         */

/// m ? a : b per lane (m an SN_PB_VI mask, a and b SN_PB_VF).
#define SN_PB_SEL(m, a, b) SN_PLUGIN_CAT(SN_PB_SEL_, SN_PB_W)(m, a, b)
/// out = the square root of in per lane (SN_PB_VD; sqrtpd, exact).
#define SN_PB_SQRT(out, in)                                                                                            \
  do {                                                                                                                 \
    union {                                                                                                            \
      SN_PB_VD v;                                                                                                      \
      SN_PLUGIN_CAT(SN_PB_HALF_, SN_PB_W) h[2];                                                                        \
    } u_;                                                                                                              \
    u_.v = (in);                                                                                                       \
    u_.h[0] = SN_PLUGIN_CAT(SN_PB_SQRTH_, SN_PB_W)(u_.h[0]);                                                           \
    u_.h[1] = SN_PLUGIN_CAT(SN_PB_SQRTH_, SN_PB_W)(u_.h[1]);                                                           \
    (out) = u_.v;                                                                                                      \
  } while (0)
/// The lanes whose mask (SN_PB_VI) is set, as the bits of an int.
#define SN_PB_BITS(mask) SN_PLUGIN_CAT(SN_PB_BITS_, SN_PB_W)(mask)
/// Each lane's float as a double (SN_PB_VF to SN_PB_VD, exact) and back
/// (rounded to nearest, as a scalar (float) cast).
#define SN_PB_WIDEN(x)  __builtin_convertvector((x), SN_PB_VD)
#define SN_PB_NARROW(x) __builtin_convertvector((x), SN_PB_VF)
/// sn_pb_move_pair in the lanes whose mask move is set: the motions of a
/// (dax, day) go by -wa (px, py), those of b (dbx, dby) by +wb (px, py).
/// All SN_PB_VF but move; the motions are updated in place.
#define SN_PB_MOVE_PAIR(move, px, py, wa, dax, day, wb, dbx, dby)                                                      \
  do {                                                                                                                 \
    (dax) = SN_PB_SEL(move, (dax) - (wa) * (px), dax);                                                                 \
    (day) = SN_PB_SEL(move, (day) - (wa) * (py), day);                                                                 \
    (dbx) = SN_PB_SEL(move, (dbx) + (wb) * (px), dbx);                                                                 \
    (dby) = SN_PB_SEL(move, (dby) + (wb) * (py), dby);                                                                 \
  } while (0)

/* ------------------------------------------------------------------------ */
/* Lanes: records of 4 floats (16 bytes) in and out                          */

/* Records go into four registers t[0..3] (SN_PB_VEC t[4]); SN_PB_F01 /
 * SN_PB_F23 then pick fields 0, 1 / 2, 3 of every lane (half a 4 x 4
 * transpose each: 3 or 4 shuffles for the fields a kernel needs instead of
 * 12 for all four).
 *
 * Gathered (SN_PB_LOADT, lane l's record at P(l), P a macro or function of
 * the lane): register k holds record k in each 128-bit half (records k and
 * k + 4 with 8 lanes), and the fields come in lane order.
 *
 * Contiguous (SN_PB_LOADC, the lanes' records one after another from p):
 * register k holds records 2k and 2k + 1 with 8 lanes, so the lanes hold
 * the records in the order SN_PB_LANE_RECORDS (0 2 4 6 1 3 5 7). The lanes are independent:
 * any order does, as long as every input and output of a lane uses it.
 * SN_PB_PUT01 / SN_PB_PUT23 write two vectors back into fields 0, 1 / 2, 3
 * of the registers; SN_PB_STOREC stores them. */

/// Gathers lane l's record from P(l) into t.
#define SN_PB_LOADT(P, t) SN_PLUGIN_CAT(SN_PB_LOADT_, SN_PB_W)(P, t)
/// Loads SN_PB_W consecutive records from p (float *) into t.
#define SN_PB_LOADC(p, t) SN_PLUGIN_CAT(SN_PB_LOADC_, SN_PB_W)(p, t)
/// Stores t as SN_PB_W consecutive records at p.
#define SN_PB_STOREC(p, t) SN_PLUGIN_CAT(SN_PB_STOREC_, SN_PB_W)(p, t)
/// The records the lanes hold after SN_PB_LOADC (const int[SN_PB_W]; lane
/// v holds record SN_PB_LANE_RECORDS[v], counted from p).
#define SN_PB_LANE_RECORDS SN_PLUGIN_CAT(sn_pb_lane_records, SN_PB_W)()
/// Field 0 of every lane (SN_PB_VF o0).
#define SN_PB_F0(t, o0)                                                                                                \
  do {                                                                                                                 \
    SN_PB_VEC lo_ = SN_PB_UNPLO((t)[0], (t)[1]), hi_ = SN_PB_UNPLO((t)[2], (t)[3]);                                    \
    (o0) = (SN_PB_VF)SN_PB_SHUF(lo_, hi_, 0x44);                                                                       \
  } while (0)
/// Fields 0 and 1 of every lane.
#define SN_PB_F01(t, o0, o1)                                                                                           \
  do {                                                                                                                 \
    SN_PB_VEC lo_ = SN_PB_UNPLO((t)[0], (t)[1]), hi_ = SN_PB_UNPLO((t)[2], (t)[3]);                                    \
    (o0) = (SN_PB_VF)SN_PB_SHUF(lo_, hi_, 0x44), (o1) = (SN_PB_VF)SN_PB_SHUF(lo_, hi_, 0xEE);                          \
  } while (0)
/// Field 2 of every lane.
#define SN_PB_F2(t, o2)                                                                                                \
  do {                                                                                                                 \
    SN_PB_VEC lo_ = SN_PB_UNPHI((t)[0], (t)[1]), hi_ = SN_PB_UNPHI((t)[2], (t)[3]);                                    \
    (o2) = (SN_PB_VF)SN_PB_SHUF(lo_, hi_, 0x44);                                                                       \
  } while (0)
/// Fields 2 and 3 of every lane.
#define SN_PB_F23(t, o2, o3)                                                                                           \
  do {                                                                                                                 \
    SN_PB_VEC lo_ = SN_PB_UNPHI((t)[0], (t)[1]), hi_ = SN_PB_UNPHI((t)[2], (t)[3]);                                    \
    (o2) = (SN_PB_VF)SN_PB_SHUF(lo_, hi_, 0x44), (o3) = (SN_PB_VF)SN_PB_SHUF(lo_, hi_, 0xEE);                          \
  } while (0)
/// x and y into fields 0 and 1 of every lane of t (the other fields kept).
#define SN_PB_PUT01(t, x, y)                                                                                           \
  do {                                                                                                                 \
    SN_PB_VEC lo_ = SN_PB_UNPLO((SN_PB_VEC)(x), (SN_PB_VEC)(y)), hi_ = SN_PB_UNPHI((SN_PB_VEC)(x), (SN_PB_VEC)(y));    \
    (t)[0] = SN_PB_SHUF(lo_, (t)[0], 0xE4), (t)[1] = SN_PB_SHUF(lo_, (t)[1], 0xEE);                                    \
    (t)[2] = SN_PB_SHUF(hi_, (t)[2], 0xE4), (t)[3] = SN_PB_SHUF(hi_, (t)[3], 0xEE);                                    \
  } while (0)
/// x and y into fields 2 and 3 of every lane of t (the other fields kept).
#define SN_PB_PUT23(t, x, y)                                                                                           \
  do {                                                                                                                 \
    SN_PB_VEC lo_ = SN_PB_UNPLO((SN_PB_VEC)(x), (SN_PB_VEC)(y)), hi_ = SN_PB_UNPHI((SN_PB_VEC)(x), (SN_PB_VEC)(y));    \
    (t)[0] = SN_PB_SHUF((t)[0], lo_, 0x44), (t)[1] = SN_PB_SHUF((t)[1], lo_, 0xE4);                                    \
    (t)[2] = SN_PB_SHUF((t)[2], hi_, 0x44), (t)[3] = SN_PB_SHUF((t)[3], hi_, 0xE4);                                    \
  } while (0)
/// Lane l's x and y (SN_PB_VF) as two floats at P(l), for the lanes whose
/// bit is set in m (SN_PB_ALL: every lane).
#define SN_PB_STORE2(P, x, y, m) SN_PLUGIN_CAT(SN_PB_STORE2_, SN_PB_W)(P, x, y, m)

/// Defines the lane kernel `static int32_t name(info, batch, begin, end)`
/// (SN_PB_TARGET): it calls body (SN_PB_INLINE, with the parameters of a
/// lane kernel then size_t params_stride, size_t instance_stride) with the
/// host's usual strides as constants (params_size and instance_size, or 0
/// and instance_size for shared params) or, for any other layout, as the
/// batch gives them, so the common layouts compile to constant offsets.
#define SN_PB_DEFINE_LANES(name, body, params_size, instance_size)                                                     \
  SN_PB_TARGET static int32_t name(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin,            \
                                   int32_t end) {                                                                      \
    if (batch->params_stride == (params_size) && batch->instance_stride == (instance_size))                            \
      return body(info, batch, begin, end, (params_size), (instance_size));                                            \
    if (batch->params_stride == 0 && batch->instance_stride == (instance_size))                                        \
      return body(info, batch, begin, end, 0, (instance_size));                                                        \
    return body(info, batch, begin, end, batch->params_stride, batch->instance_stride);                                \
  }

/* ------------------------------------------------------------------------ */
/* The two widths' definitions behind the names above (use those)            */

static inline const int *sn_pb_lane_records4(void) {
  static const int records[4] = {0, 1, 2, 3};
  return records;
}
static inline const int *sn_pb_lane_records8(void) {
  static const int records[8] = {0, 2, 4, 6, 1, 3, 5, 7};
  return records;
}
#define SN_PB_TARGET_4
#define SN_PB_TARGET_8      __attribute__((target("avx2")))
#define SN_PB_UNPLO         SN_PLUGIN_CAT(SN_PB_UNPLO_, SN_PB_W)
#define SN_PB_UNPHI         SN_PLUGIN_CAT(SN_PB_UNPHI_, SN_PB_W)
#define SN_PB_SHUF(a, b, i) SN_PLUGIN_CAT(SN_PB_SHUF_, SN_PB_W)(a, b, i)

#define SN_PB_SEL_4(m, a, b)  ((sn_pb_vf4)(((m) & (sn_pb_vi4)(a)) | (~(m) & (sn_pb_vi4)(b))))
#define SN_PB_HALF_4          __m128d
#define SN_PB_SQRTH_4         _mm_sqrt_pd
#define SN_PB_BITS_4(mask)    _mm_movemask_ps((__m128)(mask))
#define SN_PB_UNPLO_4         _mm_unpacklo_ps
#define SN_PB_UNPHI_4         _mm_unpackhi_ps
#define SN_PB_SHUF_4(a, b, i) _mm_shuffle_ps((a), (b), (i))
#define SN_PB_LOADT_4(P, t)                                                                                            \
  do {                                                                                                                 \
    (t)[0] = _mm_loadu_ps(P(0)), (t)[1] = _mm_loadu_ps(P(1));                                                          \
    (t)[2] = _mm_loadu_ps(P(2)), (t)[3] = _mm_loadu_ps(P(3));                                                          \
  } while (0)
#define SN_PB_LOADC_4(p, t)                                                                                            \
  do {                                                                                                                 \
    (t)[0] = _mm_loadu_ps((p)), (t)[1] = _mm_loadu_ps((p) + 4);                                                        \
    (t)[2] = _mm_loadu_ps((p) + 8), (t)[3] = _mm_loadu_ps((p) + 12);                                                   \
  } while (0)
#define SN_PB_STOREC_4(p, t)                                                                                           \
  do {                                                                                                                 \
    _mm_storeu_ps((p), (t)[0]), _mm_storeu_ps((p) + 4, (t)[1]);                                                        \
    _mm_storeu_ps((p) + 8, (t)[2]), _mm_storeu_ps((p) + 12, (t)[3]);                                                   \
  } while (0)
#define SN_PB_STORE2_4(P, x, y, m)                                                                                     \
  do {                                                                                                                 \
    __m128d lo_ = _mm_castps_pd(_mm_unpacklo_ps((x), (y))), hi_ = _mm_castps_pd(_mm_unpackhi_ps((x), (y)));            \
    const int all_ = (m) == 15;                                                                                        \
    if (all_ || ((m)&1)) _mm_store_sd((double *)(void *)(P(0)), lo_);                                                  \
    if (all_ || ((m)&2)) _mm_storeh_pd((double *)(void *)(P(1)), lo_);                                                 \
    if (all_ || ((m)&4)) _mm_store_sd((double *)(void *)(P(2)), hi_);                                                  \
    if (all_ || ((m)&8)) _mm_storeh_pd((double *)(void *)(P(3)), hi_);                                                 \
  } while (0)

#define SN_PB_SEL_8(m, a, b)  ((sn_pb_vf8)_mm256_blendv_ps((__m256)(b), (__m256)(a), (__m256)(m)))
#define SN_PB_HALF_8          __m256d
#define SN_PB_SQRTH_8         _mm256_sqrt_pd
#define SN_PB_BITS_8(mask)    _mm256_movemask_ps((__m256)(mask))
#define SN_PB_UNPLO_8         _mm256_unpacklo_ps
#define SN_PB_UNPHI_8         _mm256_unpackhi_ps
#define SN_PB_SHUF_8(a, b, i) _mm256_shuffle_ps((a), (b), (i))
#define SN_PB_LOAD2_8(p, q)   _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(p)), _mm_loadu_ps(q), 1)
#define SN_PB_LOADT_8(P, t)                                                                                            \
  do {                                                                                                                 \
    (t)[0] = SN_PB_LOAD2_8(P(0), P(4)), (t)[1] = SN_PB_LOAD2_8(P(1), P(5));                                            \
    (t)[2] = SN_PB_LOAD2_8(P(2), P(6)), (t)[3] = SN_PB_LOAD2_8(P(3), P(7));                                            \
  } while (0)
#define SN_PB_LOADC_8(p, t)                                                                                            \
  do {                                                                                                                 \
    (t)[0] = _mm256_loadu_ps((p)), (t)[1] = _mm256_loadu_ps((p) + 8);                                                  \
    (t)[2] = _mm256_loadu_ps((p) + 16), (t)[3] = _mm256_loadu_ps((p) + 24);                                            \
  } while (0)
#define SN_PB_STOREC_8(p, t)                                                                                           \
  do {                                                                                                                 \
    _mm256_storeu_ps((p), (t)[0]), _mm256_storeu_ps((p) + 8, (t)[1]);                                                  \
    _mm256_storeu_ps((p) + 16, (t)[2]), _mm256_storeu_ps((p) + 24, (t)[3]);                                            \
  } while (0)
#define SN_PB_STORE2_8(P, x, y, m)                                                                                     \
  do {                                                                                                                 \
    __m256 lo8_ = _mm256_unpacklo_ps((x), (y)), hi8_ = _mm256_unpackhi_ps((x), (y));                                   \
    const int all_ = (m) == 255;                                                                                       \
    __m128d l0_ = _mm_castps_pd(_mm256_castps256_ps128(lo8_)), l1_ = _mm_castps_pd(_mm256_extractf128_ps(lo8_, 1));    \
    __m128d h0_ = _mm_castps_pd(_mm256_castps256_ps128(hi8_)), h1_ = _mm_castps_pd(_mm256_extractf128_ps(hi8_, 1));    \
    if (all_ || ((m)&1)) _mm_store_sd((double *)(void *)(P(0)), l0_);                                                  \
    if (all_ || ((m)&2)) _mm_storeh_pd((double *)(void *)(P(1)), l0_);                                                 \
    if (all_ || ((m)&4)) _mm_store_sd((double *)(void *)(P(2)), h0_);                                                  \
    if (all_ || ((m)&8)) _mm_storeh_pd((double *)(void *)(P(3)), h0_);                                                 \
    if (all_ || ((m)&16)) _mm_store_sd((double *)(void *)(P(4)), l1_);                                                 \
    if (all_ || ((m)&32)) _mm_storeh_pd((double *)(void *)(P(5)), l1_);                                                \
    if (all_ || ((m)&64)) _mm_store_sd((double *)(void *)(P(6)), h1_);                                                 \
    if (all_ || ((m)&128)) _mm_storeh_pd((double *)(void *)(P(7)), h1_);                                               \
  } while (0)
#endif /* SN_PB_SIMD */

#ifdef __cplusplus
}
#endif
#endif /* SINEW_PLUGIN_BATCH_H */
