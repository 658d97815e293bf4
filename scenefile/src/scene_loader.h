/* Scene loader internals shared by its files: the checked description of
 * a scene (what the file says, checked, nothing built yet), the loader
 * state, and the functions one part of the loader calls in another. */
#ifndef SN_SCENE_LOADER_H
#define SN_SCENE_LOADER_H

#include <float.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

#include "world/world_settings.h"
#include "json_text.h"
#include "scene_internal.h"

/// Largest scene file read (bytes).
#define SN_SCENE_MAX_FILE_BYTES (512u * 1024u * 1024u)
/* ------------------------------------------------------------------------ */
/* Checked description                                                       */

typedef struct sn_shape_ir {
  const cJSON *node; ///< the shape object
  const cJSON *geometry;
  sn_shape_type type;
  sn_shape_def def;
  sn_circle circle;
  sn_capsule capsule;
  sn_segment segment;
  sn_polygon polygon;
  /* a chain (type SN_SHAPE_CHAIN_SEGMENT): its def, points malloc'd */
  sn_chain_def chain;
  sn_vec2 *chain_points;
} sn_shape_ir;

typedef struct sn_body_ir {
  const cJSON *node;
  const cJSON *name_node;
  const char *name;
  sn_body_def def;
  bool enabled; ///< "enabled" (sn_body_disable after building when false)
  int32_t first_shape, shape_count;
} sn_body_ir;

typedef enum sn_soft_kind { SN_SOFT_ROPE, SN_SOFT_CLOTH, SN_SOFT_RING, SN_SOFT_LATTICE, SN_SOFT_CUSTOM } sn_soft_kind;

/// A soft body as the file describes it: a builder def (rope ... lattice)
/// or explicit particles, edges and constraint groups (custom).
typedef struct sn_soft_ir {
  const cJSON *node;
  const cJSON *name_node;
  const char *name;
  sn_soft_kind kind;
  const char *kind_name;
  sn_soft_body_def body;     ///< material of the soft body (every kind)
  sn_soft_material material; ///< builder kinds
  sn_rope_def rope;
  sn_cloth_def cloth;
  sn_ring_def ring;
  sn_lattice_def lattice;
  int32_t particle_count; ///< what the entry makes (builders: from the def)
  int32_t first_particle; ///< into the loader's particle_ids, while building
  /* custom */
  sn_particle_def *particles; ///< particle_count defs (malloc)
  const cJSON **particle_nodes;
  int32_t *edges; ///< edge_count pairs of local indices (malloc)
  const cJSON **edge_nodes;
  int32_t edge_count;
  int32_t first_group, group_count; ///< into the loader's groups
} sn_soft_ir;

typedef struct sn_param_ir {
  const cJSON *node; ///< the value (its key is the parameter name)
  bool top_level;    ///< given beside "type" rather than inside "params"
} sn_param_ir;

/// A constraint entry, or a constraint group of a custom soft body (one
/// type, one set of parameters, one or more particle lists).
typedef struct sn_constraint_ir {
  const cJSON *node;
  const cJSON *type_node;
  const cJSON *bodies_node;
  const cJSON *body_nodes[SN_MAX_CONSTRAINT_BODIES];
  const char *type;
  const char *name;
  const cJSON *name_node;
  int32_t bodies[SN_MAX_CONSTRAINT_BODIES];
  int32_t body_count;
  float break_force;
  bool collide_connected;
  int32_t first_param, param_count;
  sn_param_value *values; ///< param_count values, set by sn_scene_check_constraint_params
  int32_t soft;           ///< group: the soft body it belongs to; -1 for an entry of "constraints"
  const cJSON *particles_node;
  /* entry: particle_count references (soft body, index), 2 ints each;
   * group: tuple_count particle lists, list j is indices[start[j] .. start[j + 1]) */
  int32_t particle_count;
  int32_t *refs;
  int32_t tuple_count;
  int32_t *start;
  int32_t *indices;
  const cJSON **tuple_nodes;
} sn_constraint_ir;

typedef struct sn_loader {
  const char *text;
  size_t length;
  const char *source;
  sn_json_map map;
  sn_scene_error *err;
  char path[512];
  size_t path_len;
  const sn_scene_load_options *opt;

  sn_world_def world_def;     ///< the limits (sn_scene_load_options.limits)
  sn_world_settings settings; ///< gravity and "settings"
  int64_t particle_total;     ///< particles of the soft bodies parsed so far (the world's max_particles)
  const cJSON *settings_node;
  const cJSON *plugins_node;

  sn_body_ir *bodies;
  int32_t body_count;
  sn_shape_ir *shapes;
  int32_t shape_count;
  sn_soft_ir *softs;
  int32_t soft_count;
  sn_constraint_ir *constraints;
  int32_t constraint_count;
  sn_constraint_ir *groups; ///< constraint groups of custom soft bodies
  int32_t group_count, group_capacity;
  sn_particle_id *particle_ids; ///< every soft body's particles, while building
  sn_param_ir *params;
  int32_t param_count, param_capacity;
  sn_param_value *values;

  sn_name_space body_names;       ///< file order: body i is slot i, soft body j is slot body_count + j
  sn_name_space constraint_names; ///< slot i: constraints[i]; slot constraint_count + g: groups[g]
} sn_loader;

/* Value ranges of numbers (check_number) */
typedef struct sn_scene_range {
  double lo, hi;
  bool lo_open;
} sn_scene_range;
static const sn_scene_range SN_RANGE_ANY = {-FLT_MAX, FLT_MAX, false};
static const sn_scene_range SN_RANGE_NON_NEGATIVE = {0.0, FLT_MAX, false};
static const sn_scene_range SN_RANGE_POSITIVE = {0.0, FLT_MAX, true};
static const sn_scene_range SN_RANGE_UNIT = {0.0, 1.0, false};

/* Reading the tree (scene_load_read.c) */
/// Byte offset of node in the text (of its key if at_key and it has one).
size_t sn_scene_node_offset(const sn_loader *L, const cJSON *node, bool at_key);
/// Appends ".key" ([i]) to the path of messages; returns the mark to pop back to.
size_t sn_scene_path_push_key(sn_loader *L, const char *key);
size_t sn_scene_path_push_index(sn_loader *L, int32_t index);
void sn_scene_path_pop(sn_loader *L, size_t mark);
/// Records an error at node (its key if at_key) and returns false.
SN_PRINTF(6, 7)
bool sn_scene_fail(sn_loader *L, sn_scene_status status, sn_result engine, const cJSON *node, bool at_key,
                   const char *fmt, ...);
/// Same, with the key of node appended to the path (for errors about a key).
SN_PRINTF(4, 5)
bool sn_scene_fail_key(sn_loader *L, sn_scene_status status, const cJSON *node, const char *fmt, ...);
/// Records that memory ran out; returns false.
bool sn_scene_out_of_memory(sn_loader *L);
/// "a string", "-0.5", "an object"... for "got ..." in messages.
const char *sn_scene_describe(const sn_loader *L, const cJSON *n, char *buf, size_t cap);
/// The member of obj named key, or NULL.
const cJSON *sn_scene_member(const cJSON *obj, const char *key);
bool sn_scene_in_list(const char *key, const char *const *list);
void sn_scene_join_list(const char *const *list, char *buf, size_t cap);
/// A key given twice in one object.
bool sn_scene_check_duplicate_key(sn_loader *L, const cJSON *obj, const cJSON *c);
/// Every key of obj is in allowed, and none is given twice.
bool sn_scene_check_keys(sn_loader *L, const cJSON *obj, const char *const *allowed, const char *what);
/// Records that obj lacks the required key; returns false.
bool sn_scene_missing(sn_loader *L, const cJSON *obj, const char *key, const char *expected);
/// A finite number within r (a whole one if whole), else an error naming what was expected.
bool sn_scene_check_number(sn_loader *L, const cJSON *n, sn_scene_range r, bool whole, double *out);
bool sn_scene_read_float(sn_loader *L, const cJSON *n, sn_scene_range r, float *out);
bool sn_scene_read_int(sn_loader *L, const cJSON *n, int32_t lo, int32_t hi, int32_t *out);
bool sn_scene_read_bool(sn_loader *L, const cJSON *n, bool *out);
bool sn_scene_read_string(sn_loader *L, const cJSON *n, const char *expected, const char **out);
bool sn_scene_read_array(sn_loader *L, const cJSON *n, const char *expected);
bool sn_scene_read_object(sn_loader *L, const cJSON *n, const char *expected);
/// [x, y]: exactly two numbers within r.
bool sn_scene_read_vec2_in(sn_loader *L, const cJSON *n, sn_scene_range r, sn_vec2 *out);
bool sn_scene_read_vec2(sn_loader *L, const cJSON *n, sn_vec2 *out);
/// A name as scene files allow them (sn_name_is_valid, well-formed UTF-8).
bool sn_scene_read_name(sn_loader *L, const cJSON *n, const char **out);

/* The document, settings, bodies and shapes (scene_parse.c) */
/// What the engine wants instead, for a geometry refusal.
const char *sn_scene_geometry_expected(sn_result r);
/// Registers the name of body (or soft body) slot; refuses a duplicate.
bool sn_scene_add_body_name(sn_loader *L, const cJSON *name_node, const char *name, int32_t slot);
/// Reads the whole document into the loader's description.
bool sn_scene_parse_document(sn_loader *L, const cJSON *root);

/* Soft bodies and constraints (scene_parse_soft.c) */
/// Reads entry index of "soft_bodies".
bool sn_scene_parse_soft(sn_loader *L, const cJSON *obj, int32_t index);
/// Constraint types a builder entry needs (the builders' own rule).
int32_t sn_scene_soft_needs(const sn_soft_ir *s, const char **types);
/// Frees the custom soft bodies' arrays.
void sn_scene_free_softs(sn_loader *L);
/// Reads entry index of "constraints": structure and references; parameters wait for the types.
bool sn_scene_parse_constraint(sn_loader *L, const cJSON *obj, int32_t index);
/// The type exists, joins what the entry (or group) gives, and every
/// parameter is in its schema and range.
bool sn_scene_check_constraint_params(sn_loader *L, const sn_registry *reg, sn_constraint_ir *k);

/* Plugins (scene_plugins.c) */
/// Checks the "plugins" array: names only, nothing loaded.
bool sn_scene_parse_plugin_names(sn_loader *L, const cJSON *arr);
/// Loads (or finds linked in) each plugin the file lists, unless the registry has it.
bool sn_scene_load_plugins(sn_loader *L, sn_registry *reg);
/* The constraint types the builder entries need, loaded implicitly: the
 * plugin of the same name (xpbd_area.so for xpbd_area) from the search path,
 * unless the registry has it already. */
bool sn_scene_load_soft_plugins(sn_loader *L, sn_registry *reg);

/* Building (scene_build.c) */
/// Creates the world and everything the description holds; on failure destroys what it built.
bool sn_scene_build_world(sn_loader *L, sn_registry *reg, sn_loaded_scene *out);

/* Optional members: read if present, else keep *out (the default). The
 * member's key goes on the path while its value is read. */
#define SN_OPT(L, obj, key, call)                                                                                      \
  do {                                                                                                                 \
    const cJSON *n_ = sn_scene_member((obj), (key));                                                                   \
    if (n_ != NULL) {                                                                                                  \
      size_t mark_ = sn_scene_path_push_key((L), (key));                                                               \
      bool ok_ = (call);                                                                                               \
      sn_scene_path_pop((L), mark_);                                                                                   \
      if (!ok_) return false;                                                                                          \
    }                                                                                                                  \
  } while (0)

/// Same, but the sn_scene_member must be there.
#define SN_REQ(L, obj, key, expected, call)                                                                            \
  do {                                                                                                                 \
    const cJSON *n_ = sn_scene_member((obj), (key));                                                                   \
    if (n_ == NULL) return sn_scene_missing((L), (obj), (key), (expected));                                            \
    size_t mark_ = sn_scene_path_push_key((L), (key));                                                                 \
    bool ok_ = (call);                                                                                                 \
    sn_scene_path_pop((L), mark_);                                                                                     \
    if (!ok_) return false;                                                                                            \
  } while (0)

#endif /* SN_SCENE_LOADER_H */
