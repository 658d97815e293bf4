/* Smoke test of a build, on any platform (the one a Windows build runs,
 * under wine in CI: scripts/windows-test.sh). A plain C program on the
 * public API only, no test framework: it loads the shipped joint plugins as
 * files (sn_registry_load_plugin on the folder sn_default_plugin_dir finds
 * beside the library, then the whole search path), steps a world with a
 * revolute pendulum, a distance pair and a soft ring on two workers of the
 * thread pool, checks that the physics is sane (finite, joints hold, the
 * ring falls and lands), writes a snapshot file (twice: the second replaces
 * the first), reads it back, and checks that the copy steps bit for bit like
 * the original. Exit status 0 if every check passed.
 *
 *   sinew-smoke [SNAPSHOT_PATH]   (default: sinew-smoke.snap in the current folder) */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sinew/sinew.h>
#include <sinew/thread_pool.h>

#if defined(_WIN32)
#define PLUGIN_SUFFIX ".dll"
#else
#define PLUGIN_SUFFIX ".so"
#endif

static int passed, failed;

static void check(bool ok, const char *what, const char *detail) {
  if (ok) {
    passed++;
    printf("ok      %s\n", what);
  } else {
    failed++;
    printf("FAILED  %s%s%s\n", what, detail && detail[0] ? ": " : "", detail ? detail : "");
  }
  fflush(stdout);
}

static bool finite2(sn_vec2 v) { return isfinite(v.x) && isfinite(v.y); }

static float dist(sn_vec2 a, sn_vec2 b) { return hypotf(a.x - b.x, a.y - b.y); }

static void on_load(const char *path, sn_result result, const char *message, void *context) {
  int *bad = context;
  /* a plugin the registry already has is reported as SN_OK ("already loaded") */
  if (result != SN_OK) {
    ++*bad;
    printf("        %s: %s: %s\n", path, sn_result_name(result), message);
  }
}

typedef struct scene {
  sn_world *world;
  sn_body_id ground, bob, pair_a, pair_b;
  sn_constraint_id pin, rod;
  sn_soft_body_id ring;
} scene;

static sn_body_id dynamic_box(sn_world *w, sn_vec2 at, float half) {
  sn_body_def bd = sn_default_body_def();
  bd.type = SN_BODY_DYNAMIC;
  bd.position = at;
  sn_body_id b = sn_create_body(w, &bd);
  sn_polygon box;
  sn_make_box(half, half, &box);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, b, &sd, &box);
  return b;
}

static bool build(scene *s, const sn_world_def *def) {
  s->world = sn_create_world(def, NULL);
  if (s->world == NULL) return false;
  sn_world *w = s->world;
  sn_body_def gd = sn_default_body_def();
  gd.position = (sn_vec2){0.0f, -1.0f};
  s->ground = sn_create_body(w, &gd);
  sn_polygon ground_box;
  sn_make_box(50.0f, 1.0f, &ground_box);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, s->ground, &sd, &ground_box);

  /* a pendulum: a box 1.5 m to the right of a pivot at (0, 10) */
  s->bob = dynamic_box(w, (sn_vec2){1.5f, 10.0f}, 0.25f);
  sn_param_value pivot[] = {{"anchor", 0.0, 10.0}};
  sn_constraint_def cd = sn_default_constraint_def();
  cd.type = "revolute";
  cd.bodies[0] = s->ground;
  cd.bodies[1] = s->bob;
  cd.params = pivot;
  cd.param_count = 1;
  s->pin = sn_create_constraint(w, &cd);

  /* two boxes 2 m apart held by a rod (distance joint), falling together */
  s->pair_a = dynamic_box(w, (sn_vec2){6.0f, 6.0f}, 0.3f);
  s->pair_b = dynamic_box(w, (sn_vec2){8.0f, 6.0f}, 0.3f);
  sn_param_value ends[] = {{"anchor_a", 6.0, 6.0}, {"anchor_b", 8.0, 6.0}};
  sn_constraint_def rd = sn_default_constraint_def();
  rd.type = "distance";
  rd.bodies[0] = s->pair_a;
  rd.bodies[1] = s->pair_b;
  rd.params = ends;
  rd.param_count = 2;
  s->rod = sn_create_constraint(w, &rd);

  /* a soft ring (XPBD plugins) dropped from 4 m */
  sn_ring_def ring = sn_default_ring_def();
  ring.center = (sn_vec2){-5.0f, 4.0f};
  ring.radius = 0.5f;
  ring.pressure = 1.0f;
  s->ring = sn_create_ring(w, &ring);
  if (!sn_constraint_is_valid(w, s->pin) || !sn_constraint_is_valid(w, s->rod) || s->ring.index1 == 0) {
    printf("        %s\n", sn_world_last_error(w));
    return false;
  }
  return true;
}

/* The whole state as bytes (malloc'd): equal bytes, equal worlds. */
static unsigned char *state_of(sn_world *w, size_t *size) {
  *size = 0;
  if (sn_world_save_snapshot(w, NULL, 0, size) != SN_OK) return NULL;
  unsigned char *bytes = malloc(*size);
  if (bytes != NULL && sn_world_save_snapshot(w, bytes, *size, size) != SN_OK) {
    free(bytes);
    return NULL;
  }
  return bytes;
}

int main(int argc, char **argv) {
  const char *snap = argc > 1 ? argv[1] : "sinew-smoke.snap";
  char msg[1024], dir[4096], path[4200];

  /* plugins: the folder beside the library, two joints by file name */
  sn_registry *reg = sn_create_registry(NULL);
  sn_result r = sn_default_plugin_dir(dir, sizeof dir);
  check(r == SN_OK, "sn_default_plugin_dir finds the plugin folder from the library's own path", sn_result_name(r));
  if (r == SN_OK) printf("        plugin folder: %s\n", dir);
  const char *joints[] = {"revolute", "distance"};
  for (int i = 0; i < 2; ++i) {
    snprintf(path, sizeof path, "%s/%s" PLUGIN_SUFFIX, dir, joints[i]);
    msg[0] = '\0';
    r = sn_registry_load_plugin(reg, path, msg, sizeof msg);
    char what[128];
    snprintf(what, sizeof what, "load %s" PLUGIN_SUFFIX " as a plugin file", joints[i]);
    check(r == SN_OK && sn_registry_find_type(reg, joints[i]) != NULL, what, msg);
  }
  /* loading it again is a no-op that says so */
  snprintf(path, sizeof path, "%s/revolute" PLUGIN_SUFFIX, dir);
  r = sn_registry_load_plugin(reg, path, msg, sizeof msg);
  check(r == SN_OK && strstr(msg, "already loaded") != NULL, "a second load of the same file is refused as a no-op",
        msg);
  /* a path without a folder is never searched for */
  r = sn_registry_load_plugin(reg, "revolute" PLUGIN_SUFFIX, msg, sizeof msg);
  check(r == SN_ERR_PLUGIN_INSECURE_PATH, "a bare file name is refused", msg);
  /* the rest of the search path (the soft body's XPBD types) */
  int bad = 0;
  r = sn_registry_load_search_path(reg, on_load, &bad);
  check(r == SN_OK && bad == 0, "sn_registry_load_search_path loads every shipped plugin", sn_result_name(r));
  snprintf(msg, sizeof msg, "%d types", (int)sn_registry_get_type_count(reg));
  check(sn_registry_find_type(reg, "xpbd_distance") != NULL && sn_registry_find_type(reg, "xpbd_area") != NULL &&
            sn_registry_get_type_count(reg) >= 12,
        "the registry has the XPBD types", msg);
  const char *origin = sn_registry_get_type_origin(reg, "revolute");
  check(origin != NULL && strstr(origin, "revolute" PLUGIN_SUFFIX) != NULL, "a type names the file it came from",
        origin);

  /* a world on two workers of the thread pool */
  sn_thread_pool *pool = sn_thread_pool_create(2);
  check(pool != NULL, "a thread pool of two workers starts", NULL);
  sn_world_def def = sn_default_world_def();
  def.registry = reg;
  if (pool != NULL) sn_thread_pool_apply(pool, &def);
  scene s;
  memset(&s, 0, sizeof s);
  bool built = build(&s, &def);
  check(built, "a world with a revolute joint, a distance joint and a soft ring", NULL);
  if (!built) {
    printf("smoke: %d passed, %d failed\n", passed, failed);
    return 1;
  }
  sn_world *w = s.world;
  float ring_start = sn_soft_body_get_center(w, s.ring).y;
  float worst_pin = 0.0f, worst_rod = 0.0f;
  bool finite = true;
  for (int i = 0; i < 120; ++i) {
    if (sn_world_step(w, 1.0f / 60.0f) != SN_OK) finite = false;
    sn_vec2 bob = sn_body_get_position(w, s.bob);
    sn_vec2 a = sn_body_get_position(w, s.pair_a), b = sn_body_get_position(w, s.pair_b);
    finite = finite && finite2(bob) && finite2(a) && finite2(b) && finite2(sn_soft_body_get_center(w, s.ring));
    float pin = fabsf(dist(bob, (sn_vec2){0.0f, 10.0f}) - 1.5f), rod = fabsf(dist(a, b) - 2.0f);
    worst_pin = pin > worst_pin ? pin : worst_pin;
    worst_rod = rod > worst_rod ? rod : worst_rod;
  }
  check(finite, "120 steps: every position finite", sn_world_last_error(w));
  snprintf(msg, sizeof msg, "worst radius error %.4f m", (double)worst_pin);
  check(worst_pin < 0.02f, "the revolute joint holds the pendulum at its radius", msg);
  sn_vec2 bob = sn_body_get_position(w, s.bob);
  snprintf(msg, sizeof msg, "bob at (%.3f, %.3f)", (double)bob.x, (double)bob.y);
  check(bob.y < 9.0f, "the pendulum swung down", msg);
  snprintf(msg, sizeof msg, "worst length error %.4f m", (double)worst_rod);
  check(worst_rod < 0.02f, "the distance joint keeps its length", msg);
  float ring_end = sn_soft_body_get_center(w, s.ring).y;
  snprintf(msg, sizeof msg, "centre from y %.3f to %.3f", (double)ring_start, (double)ring_end);
  check(ring_end < ring_start - 2.0f && ring_end > 0.2f, "the soft ring fell and rests on the ground", msg);

  /* snapshot file: written twice (the second replaces the first), read back */
  r = sn_world_write_snapshot(w, snap);
  check(r == SN_OK, "sn_world_write_snapshot writes a new file", sn_world_last_error(w));
  sn_world_step(w, 1.0f / 60.0f);
  r = sn_world_write_snapshot(w, snap);
  check(r == SN_OK, "sn_world_write_snapshot replaces the file", sn_world_last_error(w));
  sn_world *copy = NULL;
  sn_world_def rd = sn_default_world_def();
  rd.registry = reg;
  if (pool != NULL) sn_thread_pool_apply(pool, &rd);
  msg[0] = '\0';
  r = sn_world_read_snapshot(snap, &rd, &copy, msg, sizeof msg);
  check(r == SN_OK && copy != NULL, "sn_world_read_snapshot reads it back", msg);
  if (copy != NULL) {
    size_t na = 0, nb = 0;
    unsigned char *a = state_of(w, &na), *b = state_of(copy, &nb);
    check(a != NULL && b != NULL && na == nb && memcmp(a, b, na) == 0, "the copy is the original, byte for byte", NULL);
    free(a);
    free(b);
    bool same = true;
    for (int i = 0; i < 90; ++i) {
      sn_world_step(w, 1.0f / 60.0f);
      sn_world_step(copy, 1.0f / 60.0f);
      sn_vec2 p = sn_body_get_position(w, s.bob), q = sn_body_get_position(copy, s.bob);
      sn_vec2 c = sn_soft_body_get_center(w, s.ring), d = sn_soft_body_get_center(copy, s.ring);
      same = same && memcmp(&p, &q, sizeof p) == 0 && memcmp(&c, &d, sizeof c) == 0;
    }
    a = state_of(w, &na);
    b = state_of(copy, &nb);
    same = same && a != NULL && b != NULL && na == nb && memcmp(a, b, na) == 0;
    check(same, "90 more steps: the copy steps bit for bit like the original (ids of the original work in it)", NULL);
    free(a);
    free(b);
    sn_destroy_world(copy);
  }
  /* reading what is no snapshot file fails cleanly */
  copy = NULL;
  snprintf(path, sizeof path, "%s.missing", snap);
  r = sn_world_read_snapshot(path, &rd, &copy, msg, sizeof msg);
  check(r == SN_ERR_IO && copy == NULL, "a missing snapshot file is SN_ERR_IO", msg);
  r = sn_world_read_snapshot(dir, &rd, &copy, msg, sizeof msg);
  check(r == SN_ERR_IO && copy == NULL, "a folder is no snapshot file", msg);
  remove(snap);

  sn_destroy_world(w);
  sn_thread_pool_destroy(pool);
  sn_destroy_registry(reg);
  printf("smoke: %d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
