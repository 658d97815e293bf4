/* sinew/plugin_batch.h, the helpers of batched XPBD kernels, on made-up
 * batches: the record accessors, the item path's particle records, the
 * move that leaves a fixed particle unwritten, the scalar clamp, the lane
 * dispatch under each simd level the host may allow, and every lane helper
 * at 4 lanes (the part test_plugin_batch.simd, where the header has its lane
 * part: GCC or Clang on x86) and at 8 (test_plugin_batch.avx2, where the CPU
 * has AVX2) against the records it reads and writes.
 * The shipped kernels built on it (xpbd_distance, xpbd_tether) are compared
 * with the item path in test_xpbd_batch.c and pinned in test_determinism.c. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "sinew/plugin_batch.h"

START_TEST(test_batch_records) {
  _Alignas(16) float position[3 * 4] = {0};
  _Alignas(16) float mass_velocity[3 * 4] = {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.5f, 0.0f, 0.0f, 0.0f};
  char params[3 * 24], instances[3 * 40];
  sn_particle_batch batch;
  memset(&batch, 0, sizeof batch);
  batch.size = sizeof batch;
  batch.position = position;
  batch.mass_velocity = mass_velocity;
  batch.particle_count = 3;
  batch.params = params;
  batch.instances = instances;
  batch.params_stride = 24;
  batch.instance_stride = 40;
  for (int32_t k = 0; k < 3; ++k) {
    ck_assert_ptr_eq(sn_pb_params(&batch, k), params + 24 * k);
    ck_assert_ptr_eq(sn_pb_instance(&batch, k), instances + 40 * k);
    ck_assert_ptr_eq(sn_pb_position(&batch, k), position + 4 * k);
  }
  ck_assert_float_eq(sn_pb_inv_mass(&batch, 0), 1.0f);
  ck_assert_float_eq(sn_pb_inv_mass(&batch, 1), 0.0f);
  ck_assert_float_eq(sn_pb_inv_mass(&batch, 2), 0.5f);
  /* shared params (stride 0): the one record for every constraint */
  batch.params_stride = 0;
  ck_assert_ptr_eq(sn_pb_params(&batch, 2), params);
}
END_TEST

START_TEST(test_item_records) {
  sn_solver_body state;
  memset(&state, 0, sizeof state);
  state.dp = (sn_vec2){0.25f, -0.5f};
  sn_constraint_body p;
  memset(&p, 0, sizeof p);
  p.state = &state;
  p.center = (sn_vec2){3.0f, 4.0f};
  float record[4];
  sn_pb_record_from(&p, record);
  ck_assert_float_eq(record[0], 3.0f);
  ck_assert_float_eq(record[1], 4.0f);
  ck_assert_float_eq(record[2], 0.25f);
  ck_assert_float_eq(record[3], -0.5f);
  record[0] = 99.0f; /* the centre is read-only: not written back */
  record[2] = 1.5f;
  record[3] = 2.5f;
  sn_pb_record_to(record, &p);
  ck_assert_float_eq(p.center.x, 3.0f);
  ck_assert_float_eq(state.dp.x, 1.5f);
  ck_assert_float_eq(state.dp.y, 2.5f);
}
END_TEST

START_TEST(test_move_pair) {
  float a[4] = {0.0f, 0.0f, 1.0f, 2.0f}, b[4] = {5.0f, 5.0f, -1.0f, 0.5f};
  sn_pb_move_pair(a, 0.5f, b, 0.25f, 4.0f, -8.0f);
  ck_assert_float_eq(a[2], 1.0f - 0.5f * 4.0f);
  ck_assert_float_eq(a[3], 2.0f + 0.5f * 8.0f);
  ck_assert_float_eq(b[2], -1.0f + 0.25f * 4.0f);
  ck_assert_float_eq(b[3], 0.5f - 0.25f * 8.0f);
  ck_assert_float_eq(a[0], 0.0f); /* centres stay */
  ck_assert_float_eq(b[0], 5.0f);
  /* a fixed particle is not written at all, not even with its own value
   * (a NaN correction would otherwise show) */
  float pin[4] = {1.0f, 1.0f, 0.0f, 0.0f}, free_[4] = {2.0f, 2.0f, 0.0f, 0.0f};
  sn_pb_move_pair(pin, 0.0f, free_, 1.0f, 0.5f, 0.25f);
  ck_assert_float_eq(pin[2], 0.0f);
  ck_assert_float_eq(pin[3], 0.0f);
  ck_assert_float_eq(free_[2], 0.5f);
  sn_pb_move_pair(free_, 1.0f, pin, 0.0f, NAN, NAN);
  ck_assert(pin[2] == 0.0f && pin[3] == 0.0f);
  ck_assert(isnan(free_[2]));
}
END_TEST

START_TEST(test_min0) {
  ck_assert_float_eq(sn_pb_min0(-2.5f), -2.5f);
  ck_assert_float_eq(sn_pb_min0(3.0f), 0.0f);
  ck_assert(!signbit(sn_pb_min0(-0.0f))); /* -0 is not below 0: +0, as the lanes' select */
  ck_assert_float_eq(sn_pb_min0(NAN), 0.0f);
}
END_TEST

/* Fake lane kernels: each takes whole groups of its width and counts them. */
typedef struct lane_log {
  int calls4, calls8;
} lane_log;

static int32_t fake_lanes(const sn_particle_batch *batch, int32_t begin, int32_t end, int32_t width) {
  lane_log *log = batch->instances;
  if (width == 8)
    log->calls8++;
  else
    log->calls4++;
  return begin + (end - begin) / width * width;
}
static int32_t fake_lanes4(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin, int32_t end) {
  (void)info;
  return fake_lanes(batch, begin, end, 4);
}
static int32_t fake_lanes8(const sn_step_info *info, const sn_particle_batch *batch, int32_t begin, int32_t end) {
  (void)info;
  return fake_lanes(batch, begin, end, 8);
}

START_TEST(test_run_lanes) {
  sn_step_info info;
  memset(&info, 0, sizeof info);
  lane_log log;
  sn_particle_batch batch;
  memset(&batch, 0, sizeof batch);
  batch.instances = &log;
  for (int32_t simd = 0; simd <= 2; ++simd) {
    memset(&log, 0, sizeof log);
    batch.simd = simd;
    /* 3 .. 26: 23 constraints */
    int32_t tail = SN_PB_RUN_LANES(fake_lanes, &info, &batch, 3, 26);
#if SN_PB_SIMD
    const int avx2 = simd >= 2 && __builtin_cpu_supports("avx2");
    ck_assert_int_eq(log.calls8, avx2);
    ck_assert_int_eq(log.calls4, simd >= 1);
    /* 8 + 8, then 4, leave 3; 4 lanes alone leave 3 too; none leave 23 */
    ck_assert_int_eq(tail, simd == 0 ? 3 : 23);
#else
    ck_assert_int_eq(log.calls4 + log.calls8, 0);
    ck_assert_int_eq(tail, 3);
#endif
  }
  (void)fake_lanes4;
  (void)fake_lanes8;
}
END_TEST

#if SN_PB_SIMD
#define SN_PB_W 4
#include "plugin_batch_lanes.inc"
#undef SN_PB_W
#define SN_PB_W 8
#include "plugin_batch_lanes.inc"
#undef SN_PB_W

START_TEST(test_lanes4) { check_lanes4(); }
END_TEST

/* The 8-lane helpers need AVX2 (the part test_plugin_batch.avx2). */
START_TEST(test_lanes8) { check_lanes8(); }
END_TEST
#endif

/* The lane part of sinew/plugin_batch.h is in this build (the part
 * test_plugin_batch.simd holds its 4-lane checks). */
static const char *simd_missing(void) {
  return SN_PB_SIMD ? NULL : "sinew/plugin_batch.h has no lane part here (SN_PB_SIMD 0: not GCC or Clang on x86)";
}
static const sn_test_need need_simd = {"simd", simd_missing};

Suite *sn_test_suite(void) {
  Suite *s = suite_create("plugin_batch");
  TCase *tc = tcase_create("helpers");
  tcase_add_test(tc, test_batch_records);
  tcase_add_test(tc, test_item_records);
  tcase_add_test(tc, test_move_pair);
  tcase_add_test(tc, test_min0);
  tcase_add_test(tc, test_run_lanes);
  suite_add_tcase(s, tc);
  /* the lane helpers: 4 lanes where the lane part exists, 8 where the CPU
   * also has AVX2; in a build without the lane part both parts skip */
  TCase *lanes4 = tcase_create("lanes4");
  TCase *lanes8 = tcase_create("lanes8");
#if SN_PB_SIMD
  tcase_add_test(lanes4, test_lanes4);
  tcase_add_test(lanes8, test_lanes8);
#endif
  sn_test_add_part(&need_simd, lanes4);
  sn_test_add_part(&sn_need_avx2, lanes8);
  return s;
}
