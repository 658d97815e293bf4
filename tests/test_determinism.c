/* Determinism: the standard scenes (bench/scenes.c) stepped a fixed number of
 * steps give pinned state hashes (sn_scene_measure's FNV-1a over every
 * dynamic body's pose and velocities and every particle's position and
 * velocity, the "state_hash" of each sinew-bench line).
 *
 * Why pins, and what they prove: CI runs this suite in the Release build
 * (-O2) and in the ASan build (Debug, -O0, sanitizers), both against the same
 * table, so a pass in both is Release == Debug, bit for bit (the code is
 * built with -ffp-contract=off and without fast-math: no FMA contraction, no
 * reassociation, so the optimiser may not change a single rounding). Each
 * scene runs on the 4-lane SSE2 contact kernel; where the CPU has AVX2 it
 * runs again on the 8-lane AVX2 kernel, to the same pin (the part
 * test_determinism.avx2). sinew-bench must print the same hash as the
 * library (the part test_determinism.bench, in a build with sinew-bench).
 *
 * The hashes depend on the platform's float math library (sinf, cosf, atan2f
 * from glibc) and on every change to the engine, the plugins or the scenes.
 *
 * UPDATE THE TABLE DELIBERATELY: a change in any hash is a change in the
 * simulation's results. If it is intended (a solver change, a new default),
 * run `SINEW_PRINT_HASHES=1 build/release/tests/test_determinism`, paste the
 * printed rows below and say why in the commit message. If it is not, find
 * out what changed the bits before you touch the table. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "world/world.h"
#include "report.h"
#include "scenes.h"

typedef struct pinned_scene {
  const char *name;
  int32_t size;
  int32_t steps;
  uint64_t hash;
} pinned_scene;

/* Update deliberately (see above). Rigid, soft, mixed, with plugins:
 * chain = revolute joints; cloth, jelly, mixed = the XPBD plugins. */
static const pinned_scene pinned[] = {
    {"pyramid", 20, 240, 0x4fba8fd6ca3890ecull}, {"rain", 200, 240, 0xc5608e872b295693ull},
    {"chain", 20, 240, 0x470ff93583cf64b0ull},   {"cloth", 16, 240, 0x78a91aada6bfe40aull},
    {"jelly", 5, 240, 0x1c2d30348e213c63ull},    {"mixed", 1, 240, 0x05b3497a9451890cull},
};
#define PINNED_COUNT ((int)(sizeof pinned / sizeof pinned[0]))

/* The scene p stepped and measured. avx2: 1 the 8-lane contact kernel, 0 the
 * 4-lane SSE2 one, -1 whatever the world picks for this CPU. */
static uint64_t run_scene_checked(const pinned_scene *p, int avx2, bool check_plugins) {
  sn_scene scene;
  ck_assert_msg(sn_scene_build(&scene, p->name, p->size, 0, false), "cannot build %s %d (SINEW_PLUGIN_PATH %s)",
                p->name, (int)p->size, getenv("SINEW_PLUGIN_PATH") ? getenv("SINEW_PLUGIN_PATH") : "(unset)");
  if (avx2 >= 0) scene.world->use_avx2 = avx2 == 1;
  /* as sn_world_def.check_plugins sets them */
  if (check_plugins) scene.world->check_plugins = scene.world->xpbd_batch_off = true;
  for (int32_t i = 0; i < p->steps; ++i) ck_assert_int_eq(sn_world_step(scene.world, 1.0f / 60.0f), SN_OK);
  sn_scene_metrics m;
  sn_scene_measure(&scene, &m);
  sn_scene_destroy(&scene);
  return m.state_hash;
}

static void assert_pinned(const pinned_scene *p, uint64_t hash, const char *kernel) {
  ck_assert_msg(hash == p->hash,
                "%s %d after %d steps (%s): state hash 0x%016" PRIx64 ", pinned 0x%016" PRIx64
                ". The results changed: if on purpose, update the table in tests/test_determinism.c (see its "
                "comment); if not, find out why.",
                p->name, (int)p->size, (int)p->steps, kernel, hash, p->hash);
}

/* sn_world_def.check_plugins calls every plugin callback one constraint at a
 * time and checks the states after each: the same bits as without. */
START_TEST(test_plugin_checks_same_bits) {
  const pinned_scene *p = &pinned[_i];
  uint64_t checked = run_scene_checked(p, -1, true);
  ck_assert_msg(checked == p->hash, "%s %d with check_plugins: 0x%016" PRIx64 ", pinned 0x%016" PRIx64, p->name,
                (int)p->size, checked, p->hash);
}
END_TEST

START_TEST(test_pinned_hash) {
  const pinned_scene *p = &pinned[_i];
  uint64_t sse2 = run_scene_checked(p, 0, false);
  if (getenv("SINEW_PRINT_HASHES") != NULL) {
    printf("    {\"%s\", %d, %d, 0x%016" PRIx64 "ull},\n", p->name, (int)p->size, (int)p->steps, sse2);
    fflush(stdout);
  }
  assert_pinned(p, sse2, "SSE2 contact kernel");
}
END_TEST

/* The 8-lane AVX2 contact kernel gives the pinned bits too (the part that
 * needs AVX2). */
START_TEST(test_pinned_hash_avx2) {
  const pinned_scene *p = &pinned[_i];
  assert_pinned(p, run_scene_checked(p, 1, false), "AVX2 contact kernel");
}
END_TEST

/* sinew-bench, where this build has it (tests/CMakeLists.txt defines
 * SN_BENCH_EXE); empty where it has not, and the "bench" part skips. */
#ifdef SN_BENCH_EXE
static const char bench_exe[] = SN_BENCH_EXE;
#else
static const char bench_exe[] = "";
#endif
static const char *bench_missing(void) {
  return bench_exe[0] != '\0' ? NULL : "this build has no sinew-bench (SINEW_BUILD_BENCH=OFF)";
}
static const sn_test_need need_bench = {"bench", bench_missing};

/* sinew-bench's JSON line carries the same hash (its "state_hash" field). */
START_TEST(test_bench_line_hash) {
  const pinned_scene *p = &pinned[0];
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' --scene %s --size %d --steps %d", bench_exe, p->name, (int)p->size, (int)p->steps);
  FILE *f = popen(cmd, "r");
  ck_assert_ptr_nonnull(f);
  char line[4096] = "";
  char *got = fgets(line, sizeof line, f);
  int status = pclose(f);
  ck_assert_msg(got != NULL && status == 0, "%s failed (status %d)", cmd, status);
  char want[64];
  snprintf(want, sizeof want, "\"state_hash\": \"%016" PRIx64 "\"", p->hash);
  ck_assert_msg(strstr(line, want) != NULL, "bench line lacks %s:\n%s", want, line);
}
END_TEST

Suite *sn_test_suite(void) {
  Suite *s = suite_create("determinism");
  TCase *tc = tcase_create("pinned");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, test_pinned_hash, 0, PINNED_COUNT);
  tcase_add_loop_test(tc, test_plugin_checks_same_bits, 2, PINNED_COUNT); /* the scenes with plugins */
  suite_add_tcase(s, tc);
  TCase *avx2 = tcase_create("avx2");
  tcase_set_timeout(avx2, 600);
  tcase_add_loop_test(avx2, test_pinned_hash_avx2, 0, PINNED_COUNT);
  sn_test_add_part(&sn_need_avx2, avx2);
  TCase *bench = tcase_create("bench");
  tcase_set_timeout(bench, 600);
  tcase_add_test(bench, test_bench_line_hash);
  sn_test_add_part(&need_bench, bench);
  return s;
}
