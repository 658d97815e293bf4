/* fuzz_snapshot: sn_world_load_snapshot on damaged snapshots.
 *
 * Input: byte 0 picks the mode.
 * - bit 0 clear: the rest of the input is loaded as a snapshot, as is (the
 *   framing checks: magic, size, checksum).
 * - bit 0 set: the rest is a list of edits (u16 offset, u8 xor) applied to a
 *   valid snapshot of a built-in world (boxes, circles, a capsule, a chain,
 *   a revolute joint, a rope and a pressure ring, stepped so contacts and
 *   warm-start impulses exist); bit 1 also cuts it at the last edit's offset.
 *   The header's size and the checksum are then recomputed, so what is
 *   fuzzed are the structural checks behind the checksum.
 *
 * Invariants: loading never crashes, and a refused load leaves nothing
 * allocated (counting allocator) and returns a snapshot code (or NOT_FOUND /
 * TYPE_MISMATCH for a damaged type name) with a message. An accepted world
 * saves back to exactly the bytes it was loaded from (but for the writer's
 * engine version, which is informational; a snapshot of an older format
 * saves back in the current one, and those bytes load and save back
 * exactly), steps, and is destroyed with nothing left allocated.
 * SPDX-License-Identifier: MIT */
#include "fuzz_common.h"

#include "world/snapshot.h"
#include "shipped.h"
#include "sinew/sinew.h"

typedef struct counting {
  size_t live_bytes, live_blocks;
} counting;

static void *count_alloc(size_t size, void *context) {
  counting *c = context;
  void *p = malloc(size);
  if (p == NULL) return NULL;
  c->live_bytes += size;
  c->live_blocks += 1;
  return p;
}

static void count_free(void *memory, size_t size, void *context) {
  counting *c = context;
  if (memory == NULL) return;
  FZ_CHECK(c->live_blocks > 0 && c->live_bytes >= size, "free of %zu bytes with %zu live", size, c->live_bytes);
  c->live_bytes -= size;
  c->live_blocks -= 1;
  free(memory);
}

static sn_registry *g_registry;
static uint8_t *g_snapshot;
static size_t g_snapshot_size;

static void build_world(void) {
  sn_world_def wd = sn_default_world_def();
  wd.registry = g_registry;
  sn_world *w = sn_create_world(&wd, NULL);
  FZ_CHECK(w != NULL, "world");
  sn_body_def gd = sn_default_body_def();
  sn_body_id ground = sn_create_body(w, &gd);
  sn_polygon box;
  sn_make_box(10.0f, 0.5f, &box);
  sn_shape_def sd = sn_default_shape_def();
  sn_create_polygon_shape(w, ground, &sd, &box);
  sn_vec2 pts[5] = {{-12, 6}, {-11, 0.5f}, {-9, 0.5f}, {-8, 3}, {-7, 5}};
  sn_chain_def cd = sn_default_chain_def();
  cd.points = pts;
  cd.count = 5;
  sn_create_chain(w, ground, &cd);
  sn_body_id bodies[5];
  for (int i = 0; i < 5; ++i) {
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    bd.position = (sn_vec2){-2.0f + 1.1f * (float)i, 1.5f + 0.3f * (float)i};
    bodies[i] = sn_create_body(w, &bd);
    if (i % 3 == 0) {
      sn_polygon b;
      sn_make_box(0.4f, 0.4f, &b);
      sn_create_polygon_shape(w, bodies[i], &sd, &b);
    } else if (i % 3 == 1) {
      sn_circle c = {{0, 0}, 0.4f};
      sn_create_circle_shape(w, bodies[i], &sd, &c);
    } else {
      sn_capsule c = {{-0.3f, 0}, {0.3f, 0}, 0.2f};
      sn_create_capsule_shape(w, bodies[i], &sd, &c);
    }
  }
  sn_destroy_body(w, bodies[3]);
  sn_constraint_def kd = sn_default_constraint_def();
  kd.type = "revolute";
  kd.bodies[0] = bodies[0];
  kd.bodies[1] = bodies[1];
  sn_create_constraint(w, &kd);
  sn_rope_def rd = sn_default_rope_def();
  rd.start = (sn_vec2){3, 5};
  rd.end = (sn_vec2){6, 5};
  rd.count = 6;
  rd.pin_start = true;
  sn_create_rope(w, &rd);
  sn_ring_def ring = sn_default_ring_def();
  ring.center = (sn_vec2){0, 4};
  ring.radius = 0.5f;
  ring.count = 8;
  sn_create_ring(w, &ring);
  for (int i = 0; i < 30; ++i) sn_world_step(w, 1.0f / 60.0f);
  FZ_CHECK(sn_world_save_snapshot(w, NULL, 0, &g_snapshot_size) == SN_OK, "%s", sn_world_last_error(w));
  g_snapshot = malloc(g_snapshot_size);
  FZ_CHECK(g_snapshot != NULL && sn_world_save_snapshot(w, g_snapshot, g_snapshot_size, &g_snapshot_size) == SN_OK,
           "save");
  sn_destroy_world(w);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  g_registry = sn_create_registry(NULL);
  if (g_registry == NULL || sn_shipped_add_all(g_registry, SN_PLUGIN_DIR, NULL, NULL) != SN_OK ||
      sn_registry_find_type(g_registry, "xpbd_area") == NULL) {
    fprintf(stderr, "fuzz_snapshot: cannot load the plugins from %s\n", SN_PLUGIN_DIR);
    abort();
  }
  build_world();
  return 0;
}

static void check_load(const uint8_t *bytes, size_t size) {
  counting mem = {0, 0};
  sn_world_def wd = sn_default_world_def();
  wd.registry = g_registry;
  wd.allocator.alloc = count_alloc;
  wd.allocator.free = count_free;
  wd.allocator.context = &mem;
  sn_world *w = NULL;
  char err[256];
  sn_result r = sn_world_load_snapshot(bytes, size, &wd, &w, err, sizeof err);
  if (r != SN_OK) {
    FZ_CHECK(w == NULL, "refused load returned a world");
    FZ_CHECK(r == SN_ERR_SNAPSHOT_CORRUPT || r == SN_ERR_SNAPSHOT_VERSION || r == SN_ERR_NOT_FOUND ||
                 r == SN_ERR_SNAPSHOT_TYPE_MISMATCH,
             "unexpected code %s: %s", sn_result_name(r), err);
    FZ_CHECK(strncmp(err, sn_result_name(r), strlen(sn_result_name(r))) == 0, "message '%s'", err);
    FZ_CHECK(mem.live_bytes == 0 && mem.live_blocks == 0, "refused load (%s) leaked %zu bytes", err, mem.live_bytes);
    return;
  }
  FZ_CHECK(w != NULL, "accepted load without a world");
  uint32_t format = 0;
  for (int i = 0; i < 4; ++i) format |= (uint32_t)bytes[8 + i] << (8 * i);
  FZ_CHECK(format >= SN_SNAPSHOT_OLDEST_FORMAT && format <= SN_SNAPSHOT_FORMAT, "accepted format %u", (unsigned)format);
  if (format < SN_SNAPSHOT_FORMAT) {
    /* an older format saves back in this library's: those bytes load and
     * save back exactly */
    size_t n = 0;
    FZ_CHECK(sn_world_save_snapshot(w, NULL, 0, &n) == SN_OK, "%s", sn_world_last_error(w));
    uint8_t *up = malloc(n), *again = malloc(n);
    FZ_CHECK(up != NULL && again != NULL && sn_world_save_snapshot(w, up, n, &n) == SN_OK, "save");
    sn_world *w2 = NULL;
    sn_world_def wd2 = sn_default_world_def();
    wd2.registry = g_registry;
    FZ_CHECK(sn_world_load_snapshot(up, n, &wd2, &w2, err, sizeof err) == SN_OK, "format %u saved anew: %s",
             (unsigned)format, err);
    size_t n2 = 0;
    FZ_CHECK(sn_world_save_snapshot(w2, again, n, &n2) == SN_OK && n2 == n && memcmp(up, again, n) == 0,
             "format %u saved anew does not save back exactly", (unsigned)format);
    free(up);
    free(again);
    FZ_CHECK(sn_destroy_world(w2) == SN_OK, "destroy");
    for (int i = 0; i < 3; ++i) FZ_CHECK(sn_world_step(w, 1.0f / 60.0f) == SN_OK, "%s", sn_world_last_error(w));
    FZ_CHECK(sn_destroy_world(w) == SN_OK, "destroy");
    FZ_CHECK(mem.live_bytes == 0 && mem.live_blocks == 0, "after sn_destroy_world: %zu bytes live", mem.live_bytes);
    return;
  }
  /* an accepted snapshot saves back to the same bytes, but for derived data
   * the loader recomputes (below) */
  size_t n = 0;
  FZ_CHECK(sn_world_save_snapshot(w, NULL, 0, &n) == SN_OK, "%s", sn_world_last_error(w));
  FZ_CHECK(n == size, "re-saved %zu bytes, loaded %zu", n, size);
  uint8_t *again = malloc(n);
  FZ_CHECK(again != NULL && sn_world_save_snapshot(w, again, n, &n) == SN_OK, "save");
  /* the writer's engine version and plugin ABI minor (offsets 24-26 and 28)
   * are informational: take the loaded ones, reseal, compare everything */
  memcpy(again + 24, bytes + 24, 3);
  again[28] = bytes[28];
  uint64_t h = sn_snapshot_fnv1a(SN_SNAPSHOT_FNV_BASIS, again, n - SN_SNAPSHOT_TRAILER_BYTES);
  for (int i = 0; i < 8; ++i) again[n - SN_SNAPSHOT_TRAILER_BYTES + (size_t)i] = (uint8_t)(h >> (8 * i));
  size_t diff = 0;
  while (diff < n && again[diff] == bytes[diff]) ++diff;
  if (diff < n) {
    /* The loader recomputes derived data that damage behind a valid
     * checksum may have changed (the shapes' tight AABBs, from the bodies'
     * transforms): such bytes save back normalised. Normalising must be
     * done in one go: the re-saved bytes load and save back exactly. */
    sn_world *w2 = NULL;
    sn_world_def wd2 = sn_default_world_def();
    wd2.registry = g_registry;
    FZ_CHECK(sn_world_load_snapshot(again, n, &wd2, &w2, err, sizeof err) == SN_OK,
             "re-saved bytes (differing from offset %zu) do not load: %s", diff, err);
    size_t n2 = 0;
    uint8_t *third = malloc(n);
    FZ_CHECK(third != NULL && sn_world_save_snapshot(w2, third, n, &n2) == SN_OK && n2 == n, "second save");
    memcpy(third + 24, again + 24, 3);
    third[28] = again[28];
    uint64_t h2 = sn_snapshot_fnv1a(SN_SNAPSHOT_FNV_BASIS, third, n - SN_SNAPSHOT_TRAILER_BYTES);
    for (int i = 0; i < 8; ++i) third[n - SN_SNAPSHOT_TRAILER_BYTES + (size_t)i] = (uint8_t)(h2 >> (8 * i));
    size_t diff2 = 0;
    while (diff2 < n && third[diff2] == again[diff2]) ++diff2;
    FZ_CHECK(diff2 == n, "normalised bytes differ after a second load and save from offset %zu (first at %zu)", diff2,
             diff);
    free(third);
    FZ_CHECK(sn_destroy_world(w2) == SN_OK, "destroy");
  }
  free(again);
  for (int i = 0; i < 3; ++i) FZ_CHECK(sn_world_step(w, 1.0f / 60.0f) == SN_OK, "%s", sn_world_last_error(w));
  FZ_CHECK(sn_destroy_world(w) == SN_OK, "destroy");
  FZ_CHECK(mem.live_bytes == 0 && mem.live_blocks == 0, "after sn_destroy_world: %zu bytes live", mem.live_bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  fz_reader r = fz_reader_make(data, size);
  uint8_t mode = fz_u8(&r);
  if ((mode & 1) == 0) {
    check_load(data + 1, size - 1);
    return 0;
  }
  uint8_t *bytes = malloc(g_snapshot_size);
  FZ_CHECK(bytes != NULL, "malloc");
  memcpy(bytes, g_snapshot, g_snapshot_size);
  size_t n = g_snapshot_size, last = 0;
  while (r.size - r.pos >= 3) {
    uint16_t at = fz_u16(&r);
    uint8_t x = fz_u8(&r);
    last = at % (g_snapshot_size - SN_SNAPSHOT_TRAILER_BYTES);
    bytes[last] ^= x;
  }
  if ((mode & 2) && last >= 24) n = last + SN_SNAPSHOT_TRAILER_BYTES;
  /* the total size (offset 16) and the checksum trailer of the edited bytes */
  for (int i = 0; i < 8; ++i) bytes[16 + i] = (uint8_t)((uint64_t)n >> (8 * i));
  uint64_t h = sn_snapshot_fnv1a(SN_SNAPSHOT_FNV_BASIS, bytes, n - SN_SNAPSHOT_TRAILER_BYTES);
  for (int i = 0; i < 8; ++i) bytes[n - SN_SNAPSHOT_TRAILER_BYTES + (size_t)i] = (uint8_t)(h >> (8 * i));
  /* an exact-size copy, so ASan sees any read past the end */
  uint8_t *exact = malloc(n);
  FZ_CHECK(exact != NULL, "malloc");
  memcpy(exact, bytes, n);
  free(bytes);
  check_load(exact, n);
  free(exact);
  return 0;
}
