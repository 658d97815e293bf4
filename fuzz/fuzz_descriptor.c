/* fuzz_descriptor: the constraint-type validator behind sn_registry_add_type
 * (and a plugin's register_type), on a descriptor built from bytes: sizes,
 * alignments, counts, flags, names and parameter schemas from the input,
 * callbacks NULL or harmless stubs. The descriptor lives in a heap block of
 * exactly struct_size bytes, so reading past what the "plugin" declared is
 * an ASan error.
 *
 * A refused descriptor must leave the registry as it was; an accepted one
 * must be findable by name, refuse a second registration as a duplicate, and
 * work: a world creates a constraint of the type with its schema defaults
 * (the host allocates params and instance with the declared sizes and
 * alignments and writes every default), steps, and destroys it, with every
 * byte given back.
 * SPDX-License-Identifier: MIT */
#include <stdalign.h>

#include "fuzz_common.h"
#include "sinew/sinew.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  return 0;
}

static int g_create_result;

static int stub_create(const sn_constraint_create_args *args) {
  if (g_create_result != 0 && args->err != NULL && args->err_capacity > 0)
    snprintf(args->err, args->err_capacity, "stub refuses");
  return g_create_result;
}
static void stub_destroy(void *instance) { (void)instance; }
static int stub_params_changed(const void *params, void *instance, char *err, size_t cap) {
  (void)params, (void)instance, (void)err, (void)cap;
  return 0;
}
static void stub_stage(const sn_step_info *info, sn_constraint_item *items, int32_t count) {
  (void)info;
  for (int32_t i = 0; i < count; ++i) (void)items[i].body_count;
}
static void stub_solve(const sn_step_info *info, sn_constraint_item *items, int32_t count, int use_bias) {
  (void)use_bias;
  stub_stage(info, items, count);
}
static void stub_reaction(const sn_step_info *info, const sn_constraint_item *item, sn_vec2 *force, float *torque) {
  (void)info, (void)item;
  *force = (sn_vec2){0.0f, 0.0f};
  *torque = 0.0f;
}
static void stub_draw(const sn_constraint_item *item, const sn_draw_api *draw) { (void)item, (void)draw; }

/// A NUL-terminated string from the input (0..max bytes), usually a plausible name.
static char *read_name(fz_reader *r, char *buf, size_t max) {
  uint8_t kind = fz_u8(r);
  if (kind % 16 == 0) return NULL;
  size_t len = fz_u8(r) % (max + 1);
  static const char alphabet[] = "abcxyz019_.-";
  for (size_t i = 0; i < len; ++i) {
    uint8_t c = fz_u8(r);
    buf[i] = kind % 4 == 1 ? (char)c : alphabet[c % (sizeof alphabet - 1)];
    if (buf[i] == '\0') buf[i] = 'q';
  }
  buf[len] = '\0';
  return buf;
}

static uint32_t read_u32_biased(fz_reader *r, const uint32_t *common, size_t n) {
  uint8_t k = fz_u8(r);
  if (k < 200) return common[k % n];
  return fz_u32(r);
}

#define MAX_PARAMS 300

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz_reader r = fz_reader_make(data, size);
  static char names[MAX_PARAMS][80];
  static sn_param_desc params[MAX_PARAMS];
  char type_name[100];
  sn_constraint_type t;
  memset(&t, 0, sizeof t);

  static const uint32_t sizes[] = {sizeof(sn_constraint_type),
                                   offsetof(sn_constraint_type, debug_draw) + sizeof(void *),
                                   offsetof(sn_constraint_type, particle_count),
                                   sizeof(sn_constraint_type) + 8,
                                   0,
                                   8};
  t.struct_size = read_u32_biased(&r, sizes, sizeof sizes / sizeof sizes[0]);
  t.name = read_name(&r, type_name, sizeof type_name - 1);
  static const uint32_t flags[] = {SN_CONSTRAINT_IMPULSE, SN_CONSTRAINT_XPBD,
                                   SN_CONSTRAINT_IMPULSE | SN_CONSTRAINT_XPBD, 0, 4};
  t.flags = read_u32_biased(&r, flags, sizeof flags / sizeof flags[0]);
  static const uint32_t small[] = {0, 1, 2, 3, 4, 8, 16, 64, 128};
  t.body_count = read_u32_biased(&r, small, sizeof small / sizeof small[0]);
  static const uint32_t particles[] = {
      0, 1, 2, 3, SN_ANY_PARTICLES, SN_MAX_CONSTRAINT_PARTICLES, SN_MAX_CONSTRAINT_PARTICLES + 1};
  t.particle_count = read_u32_biased(&r, particles, sizeof particles / sizeof particles[0]);
  static const uint32_t bytes[] = {0, 4, 8, 12, 16, 24, 32, 100, 1u << 20, (1u << 20) + 1};
  t.params_size = read_u32_biased(&r, bytes, sizeof bytes / sizeof bytes[0]);
  t.instance_size = read_u32_biased(&r, bytes, sizeof bytes / sizeof bytes[0]);
  static const uint32_t aligns[] = {1, 2, 4, 8, 16, 32, 64, 128, 0, 3};
  t.params_align = read_u32_biased(&r, aligns, sizeof aligns / sizeof aligns[0]);
  t.instance_align = read_u32_biased(&r, aligns, sizeof aligns / sizeof aligns[0]);
  uint8_t callbacks = fz_u8(&r);
  t.create = callbacks & 1 ? stub_create : NULL;
  t.destroy = callbacks & 2 ? stub_destroy : NULL;
  t.params_changed = callbacks & 4 ? stub_params_changed : NULL;
  t.prepare = callbacks & 8 ? stub_stage : NULL;
  t.warm_start = callbacks & 16 ? stub_stage : NULL;
  t.solve_velocity = callbacks & 32 ? stub_solve : NULL;
  t.solve_position = callbacks & 64 ? stub_stage : NULL;
  t.project = callbacks & 128 ? stub_stage : NULL;
  t.get_reaction = stub_reaction;
  t.debug_draw = stub_draw;
  g_create_result = fz_u8(&r) == 255;

  static const uint32_t counts[] = {0, 1, 2, 3, 6, 257};
  uint32_t declared = read_u32_biased(&r, counts, sizeof counts / sizeof counts[0]);
  uint32_t filled = declared < MAX_PARAMS ? declared : MAX_PARAMS;
  t.param_count = declared;
  t.params = filled > 0 || fz_bool(&r) ? params : NULL;
  for (uint32_t i = 0; i < filled; ++i) {
    sn_param_desc *p = &params[i];
    p->id = fz_u8(&r);
    p->kind = fz_u8(&r) % 6;
    p->name = read_name(&r, names[i], sizeof names[i] - 1);
    p->offset = fz_u8(&r);
    if (fz_bool(&r)) p->offset *= 4u;
    p->flags = fz_u8(&r) & 1 ? SN_PARAM_RUNTIME : 0;
    p->min = fz_double(&r, -10.0, 0.0);
    p->max = fz_double(&r, 0.0, 10.0);
    p->def = fz_double(&r, -10.0, 10.0);
    p->doc = NULL;
  }
  if (declared > filled) t.param_count = filled; /* never point the host past our array */

  /* exactly struct_size bytes (at most a page): over-reads are ASan errors */
  size_t block_size = t.struct_size == 0 ? 1 : t.struct_size > 4096 ? 4096 : t.struct_size;
  unsigned char *block = malloc(block_size);
  if (block == NULL) return 0;
  memset(block, 0x5a, block_size);
  memcpy(block, &t, block_size < sizeof t ? block_size : sizeof t);
  if (t.struct_size > 4096) ((sn_constraint_type *)(void *)block)->struct_size = 4096;
  const sn_constraint_type *desc = (const sn_constraint_type *)(void *)block;

  sn_registry *reg = sn_create_registry(NULL);
  if (reg == NULL) return free(block), 0;
  size_t err_cap = fz_u8(&r) % 4 == 0 ? 0 : 256;
  char err[256];
  memset(err, 'x', sizeof err);
  /* a block too small to hold struct_size itself is no descriptor at all: skip */
  if (block_size < sizeof(uint32_t)) {
    sn_destroy_registry(reg);
    free(block);
    return 0;
  }
  sn_result res = sn_registry_add_type(reg, desc, err_cap ? err : NULL, err_cap);
  if (res != SN_OK) {
    FZ_CHECK(res == SN_ERR_PLUGIN_BAD_DESCRIPTOR, "refused with %s", sn_result_name(res));
    FZ_CHECK(sn_registry_get_type_count(reg) == 0, "a refused type was registered");
    if (err_cap) FZ_CHECK(memchr(err, '\0', sizeof err) != NULL && err[0] != '\0', "no message");
  } else {
    const sn_constraint_type *got = sn_registry_find_type(reg, t.name);
    FZ_CHECK(got != NULL && sn_registry_get_type_count(reg) == 1, "accepted type '%s' not found", t.name);
    FZ_CHECK(strcmp(got->name, t.name) == 0 && got->body_count == t.body_count && got->flags == t.flags,
             "registered copy differs");
    FZ_CHECK(sn_registry_add_type(reg, desc, NULL, 0) == SN_ERR_PLUGIN_DUPLICATE, "duplicate accepted");

    /* the type works in a world with its defaults */
    sn_world_def wd = sn_default_world_def();
    wd.registry = reg;
    sn_world *w = sn_create_world(&wd, NULL);
    FZ_CHECK(w != NULL, "no world");
    size_t base_bytes = sn_world_get_counters(w).allocated_bytes;
    sn_body_def bd = sn_default_body_def();
    bd.type = SN_BODY_DYNAMIC;
    sn_body_id b0 = sn_create_body(w, &bd);
    bd.position = (sn_vec2){1.0f, 0.0f};
    sn_body_id b1 = sn_create_body(w, &bd);
    sn_soft_body_def sd = sn_default_soft_body_def();
    sn_soft_body_id soft = sn_create_soft_body(w, &sd);
    sn_particle_id ps[8];
    for (int i = 0; i < 8; ++i) {
      sn_particle_def pd = sn_default_particle_def();
      pd.position = (sn_vec2){(float)i, 2.0f + (float)(i % 2)};
      ps[i] = sn_create_particle(w, soft, &pd);
    }
    sn_constraint_def cd = sn_default_constraint_def();
    cd.type = t.name;
    cd.bodies[0] = b0;
    cd.bodies[1] = b1;
    uint32_t pc = got->particle_count == SN_ANY_PARTICLES ? 1u + fz_u8(&r) % 8u : got->particle_count;
    cd.particles = pc > 0 ? ps : NULL;
    cd.particle_count = (int32_t)(pc <= 8 ? pc : 0);
    sn_constraint_id c = sn_create_constraint(w, &cd);
    if (c.index1 != 0) {
      for (uint32_t i = 0; i < got->param_count; ++i) {
        double x = 0, y = 0;
        FZ_CHECK(sn_constraint_get_param(w, c, got->params[i].name, &x, &y) == SN_OK, "param '%s' unreadable",
                 got->params[i].name);
        if (got->params[i].kind != SN_PARAM_INT && got->params[i].kind != SN_PARAM_BOOL)
          FZ_CHECK(x == (double)(float)got->params[i].def || x == got->params[i].def, "param '%s' default %g read %g",
                   got->params[i].name, got->params[i].def, x);
      }
      FZ_CHECK(sn_world_step(w, 1.0f / 60.0f) == SN_OK, "step failed: %s", sn_world_last_error(w));
      FZ_CHECK(sn_destroy_constraint(w, c) == SN_OK, "destroy failed");
    }
    sn_destroy_soft_body(w, soft);
    sn_destroy_body(w, b0);
    sn_destroy_body(w, b1);
    (void)base_bytes;
    sn_destroy_world(w);
  }
  sn_destroy_registry(reg);
  free(block);
  return 0;
}
