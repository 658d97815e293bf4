/* World settings (internal): the one list of them, and of the world's limits.
 *
 * SN_WORLD_SETTINGS(X) has one line per setting a world keeps in its
 * snapshots and scene files; everything else about a setting is expanded
 * from that line: the default def, validation and its messages, the
 * world's copy (sn_world.settings), sn_world_get_def, the accessors
 * sn_world_set_<name> / sn_world_get_<name>, the snapshot's world section,
 * the scene file keys and the docs tables (tests/test_settings_doc.c checks
 * them, and rewrites them with --write).
 *
 *   X(name, type, api, default, min, max, flags, key, format, doc)
 *
 *   name     field of sn_world_settings and, for api DEF and DEF_SET, of
 *            sn_world_def (a static assertion in world.c checks its type)
 *   type     INT (int32_t), FLOAT, BOOL or VEC2 (sn_vec2: each component in range)
 *   api      how a program reaches it:
 *              DEF      a field of sn_world_def, read back by sn_world_get_def
 *              DEF_SET  the same, and sn_world_set_<name> / sn_world_get_<name>
 *              SET      sn_world_set_<name> / sn_world_get_<name> only: the
 *                       layout of sn_world_def is part of the ABI, so a setting
 *                       it does not have is reached this way
 *            world.c defines the accessors of DEF_SET and SET from the table;
 *            their prototypes are sinew.h's, so the compiler checks they agree
 *   default  the default def's and a new world's value
 *   min, max the range, both included (min excluded with SN_SETTING_ABOVE_MIN);
 *            VEC2: each component; BOOL: 0, 1
 *   flags    SN_SETTING_ABOVE_MIN; SN_SETTING_TOP_LEVEL: the scene file key
 *            sits at the document's top level, not in "settings"
 *   key      the key in scene files
 *   format   the first snapshot format whose world section holds it (in table
 *            order); a snapshot of an earlier format gives it its default
 *   doc      unit and meaning, one line, for the docs tables
 *
 * Adding a setting: docs/architecture.md, "How to add a world setting".
 * This header uses only the public API, so the scene file library (which
 * links libsinew's exported symbols only) expands the table too. */
#ifndef SN_WORLD_WORLD_SETTINGS_H
#define SN_WORLD_WORLD_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinew/sinew.h"

#define SN_SETTING_ABOVE_MIN 1u
#define SN_SETTING_TOP_LEVEL 2u

// clang-format off
#define SN_WORLD_SETTINGS(X)                                                                                           \
  X(gravity, VEC2, DEF_SET, ((sn_vec2){0.0f, -10.0f}), -SN_MAX_GRAVITY, SN_MAX_GRAVITY, SN_SETTING_TOP_LEVEL,           \
    "gravity", 3, "acceleration (m/s^2) of every body and particle")                                                  \
  X(substeps, INT, DEF_SET, 8, 1, 64, 0, "substeps", 3, "substeps per step")                                          \
  X(position_iterations, INT, DEF_SET, 2, 0, 32, 0, "position_iterations",                                            \
    3, "sweeps per substep that project joints' position drift away; 0 = none")                                      \
  X(soft_iterations, INT, DEF_SET, 1, 1, 32, 0, "soft_iterations", 3, "XPBD sweeps per substep")                      \
  X(enable_sleep, BOOL, DEF, true, 0, 1, 0, "sleep", 3, "islands at rest fall asleep")                                \
  X(enable_continuous, BOOL, DEF, true, 0, 1, 0, "continuous",                                                        \
    3, "time of impact for fast bodies against static shapes and the moving bodies they move fast against (see `is_bullet`)") \
  X(contact_hertz, FLOAT, DEF, 0.0f, 0, SN_MAX_CONTACT_TUNING, 0, "contact_hertz",                                    \
    3, "contact stiffness (Hz), at most a quarter of the substep rate; 0 = that quarter")                             \
  X(contact_damping_ratio, FLOAT, DEF, 10.0f, 0, SN_MAX_CONTACT_TUNING, 0, "contact_damping_ratio",                    \
    3, "contact damping ratio")                                                                                       \
  X(contact_push_max_velocity, FLOAT, DEF, 3.0f, 0, SN_MAX_SPEED, 0, "contact_push_max_velocity",                     \
    3, "largest speed (m/s) at which contacts push overlapping shapes apart")                                         \
  X(contact_reuse_distance, FLOAT, DEF, 0.0005f, 0, SN_MAX_CONTACT_REUSE_DISTANCE, 0, "contact_reuse_distance",       \
    3, "motion (m) below which a touching pair keeps its manifold; 0 = every manifold computed every step")           \
  X(restitution_threshold, FLOAT, DEF, 1.0f, 0, SN_MAX_SPEED, 0, "restitution_threshold",                             \
    3, "approach speed (m/s) below which contacts do not bounce")                                                     \
  X(hit_event_threshold, FLOAT, SET, 1.0f, 0, SN_MAX_SPEED, 0, "hit_event_threshold",                                 \
    3, "approach speed (m/s) above which a contact reports a hit event")                                              \
  X(maximum_linear_speed, FLOAT, DEF, 400.0f, 0, SN_MAX_SPEED, SN_SETTING_ABOVE_MIN, "maximum_linear_speed",          \
    3, "largest speed (m/s) of bodies and particles")                                                                 \
  X(joint_hertz, FLOAT, SET, 0.0f, 0, SN_MAX_CONTACT_TUNING, 0, "joint_hertz",                                        \
    4, "stiffness (Hz) of rigid joints' position feedback, at most a quarter of the substep rate; 0 = that quarter")  \
  X(joint_damping_ratio, FLOAT, SET, 2.0f, 0, SN_MAX_CONTACT_TUNING, 0, "joint_damping_ratio",                        \
    4, "damping ratio of rigid joints' position feedback")

/* X(name, default, doc): the limits on live objects (sn_world_def.max_*,
 * each 0 .. SN_MAX_WORLD_LIMIT). The caller's def supplies them to a world,
 * a snapshot load and a scene load (sn_scene_load_options.limits); they are
 * not saved. */
#define SN_WORLD_LIMITS(X)                                                                                             \
  X(max_bodies, SN_DEFAULT_MAX_BODIES, "bodies")                                                                       \
  X(max_shapes, SN_DEFAULT_MAX_SHAPES, "shapes, chain segments included")                                              \
  X(max_particles, SN_DEFAULT_MAX_PARTICLES, "particles")                                                              \
  X(max_soft_bodies, SN_DEFAULT_MAX_SOFT_BODIES, "soft bodies")                                                        \
  X(max_constraints, SN_DEFAULT_MAX_CONSTRAINTS, "constraints (joints, springs, the soft bodies' links and tethers)")  \
  X(max_contacts, SN_DEFAULT_MAX_CONTACTS,                                                                             \
    "contacts: shape pairs whose fat boxes overlap; also each step's particle contact candidates of each kind")
// clang-format on

/* ------------------------------------------------------------------------ */
/* What the table expands to                                                 */

/// The C type of each setting type.
#define SN_SETTING_CTYPE_INT   int32_t
#define SN_SETTING_CTYPE_FLOAT float
#define SN_SETTING_CTYPE_BOOL  bool
#define SN_SETTING_CTYPE_VEC2  sn_vec2

/// Code kept or dropped by a setting's api: SN_SETTING_IN_DEF_##api(code)
/// keeps code for fields of sn_world_def, SN_SETTING_NOT_IN_DEF_##api for the
/// others; SN_SETTING_ACCESSORS_##api for those with sn_world_set_/get_<name>,
/// SN_SETTING_NO_ACCESSORS_##api for the others.
#define SN_SETTING_IN_DEF_DEF(...)           __VA_ARGS__
#define SN_SETTING_IN_DEF_DEF_SET(...)       __VA_ARGS__
#define SN_SETTING_IN_DEF_SET(...)           /* not in sn_world_def */
#define SN_SETTING_NOT_IN_DEF_DEF(...)       /* in sn_world_def */
#define SN_SETTING_NOT_IN_DEF_DEF_SET(...)   /* in sn_world_def */
#define SN_SETTING_NOT_IN_DEF_SET(...)       __VA_ARGS__
#define SN_SETTING_ACCESSORS_DEF(...)        /* set through sn_world_def (and hand-written setters) */
#define SN_SETTING_ACCESSORS_DEF_SET(...)    __VA_ARGS__
#define SN_SETTING_ACCESSORS_SET(...)        __VA_ARGS__
#define SN_SETTING_NO_ACCESSORS_DEF(...)     __VA_ARGS__
#define SN_SETTING_NO_ACCESSORS_DEF_SET(...) /* has them */
#define SN_SETTING_NO_ACCESSORS_SET(...)     /* has them */

/// A world's settings, one field per line of the table (sn_world.settings).
typedef struct sn_world_settings {
#define SN_X(name, type, api, dflt, lo, hi, flags, key, format, doc) SN_SETTING_CTYPE_##type name;
  SN_WORLD_SETTINGS(SN_X)
#undef SN_X
} sn_world_settings;

/// Index of each setting in the table: SN_SETTING_<name>.
// clang-format off
enum {
#define SN_X(name, type, api, dflt, lo, hi, flags, key, format, doc) SN_SETTING_##name,
  SN_WORLD_SETTINGS(SN_X)
#undef SN_X
  SN_WORLD_SETTING_COUNT
};
// clang-format on

typedef enum sn_setting_type {
  SN_SETTING_TYPE_INT,
  SN_SETTING_TYPE_FLOAT,
  SN_SETTING_TYPE_BOOL,
  SN_SETTING_TYPE_VEC2
} sn_setting_type;

/// A line of the table as data, for code that walks every setting (the
/// scene file library, validation messages, the docs check).
typedef struct sn_setting_info {
  const char *name;     ///< field name
  const char *key;      ///< scene file key
  const char *doc;      ///< unit and meaning
  const char *max_text; ///< the upper bound as the table writes it ("SN_MAX_SPEED", "64")
  bool in_def;          ///< a field of sn_world_def (api DEF, DEF_SET)
  bool accessors;       ///< sn_world_set_<name> / sn_world_get_<name> (api DEF_SET, SET)
  sn_setting_type type;
  uint32_t flags;
  int32_t format;
  size_t offset; ///< of the field in sn_world_settings
  double min, max;
} sn_setting_info;

/// The line of setting `index` (SN_SETTING_<name>); NULL outside the table.
static inline const sn_setting_info *sn_world_setting_info(int32_t index) {
  static const sn_setting_info infos[] = {
#define SN_X(name, type, api, dflt, lo, hi, flags, key, format, doc)                                                   \
  {#name,                                                                                                              \
   key,                                                                                                                \
   doc,                                                                                                                \
   #hi,                                                                                                                \
   SN_SETTING_IN_DEF_##api(true) SN_SETTING_NOT_IN_DEF_##api(false),                                                   \
   SN_SETTING_ACCESSORS_##api(true) SN_SETTING_NO_ACCESSORS_##api(false),                                              \
   SN_SETTING_TYPE_##type,                                                                                             \
   flags,                                                                                                              \
   format,                                                                                                             \
   offsetof(sn_world_settings, name),                                                                                  \
   (double)(lo),                                                                                                       \
   (double)(hi)},
      SN_WORLD_SETTINGS(SN_X)
#undef SN_X
  };
  return index >= 0 && index < SN_WORLD_SETTING_COUNT ? &infos[index] : NULL;
}

/// Every setting at its default.
static inline sn_world_settings sn_world_settings_default(void) {
  sn_world_settings s;
#define SN_X(name, type, api, dflt, lo, hi, flags, key, format, doc) s.name = (dflt);
  SN_WORLD_SETTINGS(SN_X)
#undef SN_X
  return s;
}

/// The settings of a def (those sn_world_def lacks at their defaults).
static inline sn_world_settings sn_world_settings_from_def(const sn_world_def *def) {
  sn_world_settings s = sn_world_settings_default();
#define SN_X(name, type, api, dflt, lo, hi, flags, key, format, doc) SN_SETTING_IN_DEF_##api(s.name = def->name;)
  SN_WORLD_SETTINGS(SN_X)
#undef SN_X
  return s;
}

/// Writes the settings sn_world_def has into def.
static inline void sn_world_settings_to_def(const sn_world_settings *s, sn_world_def *def) {
#define SN_X(name, type, api, dflt, lo, hi, flags, key, format, doc) SN_SETTING_IN_DEF_##api(def->name = s->name;)
  SN_WORLD_SETTINGS(SN_X)
#undef SN_X
  (void)s;
  (void)def;
}

/// Sets, through their accessors, the settings sn_world_def lacks; the
/// first refusal's code (its message in sn_world_last_error), else SN_OK.
static inline sn_result sn_world_settings_apply_outside_def(sn_world *w, const sn_world_settings *s) {
#define SN_X(name, type, api, dflt, lo, hi, flags, key, format, doc)                                                   \
  SN_SETTING_NOT_IN_DEF_##api({                                                                                        \
    sn_result r_ = sn_world_set_##name(w, s->name);                                                                    \
    if (r_ != SN_OK) return r_;                                                                                        \
  })
  SN_WORLD_SETTINGS(SN_X)
#undef SN_X
  (void)w;
  (void)s;
  return SN_OK;
}

/// A world's settings through the public API: sn_world_get_def, then the
/// accessors of those sn_world_def lacks. SN_ERR_NULL for a NULL world.
static inline sn_result sn_world_settings_of(sn_world *w, sn_world_settings *out) {
  sn_world_def def;
  sn_result r = sn_world_get_def(w, &def);
  if (r != SN_OK) return r;
  *out = sn_world_settings_from_def(&def);
#define SN_X(name, type, api, dflt, lo, hi, flags, key, format, doc)                                                   \
  SN_SETTING_NOT_IN_DEF_##api(out->name = sn_world_get_##name(w);)
  SN_WORLD_SETTINGS(SN_X)
#undef SN_X
  return SN_OK;
}

#endif /* SN_WORLD_WORLD_SETTINGS_H */
