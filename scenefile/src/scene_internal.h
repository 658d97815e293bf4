/* Scene file library internals shared by the loader, the writer and the
 * name table. */
#ifndef SN_SCENE_INTERNAL_H
#define SN_SCENE_INTERNAL_H

#include <stdarg.h>

#include "platform/platform.h" /* SN_PRINTF */
#include "sinew/scene_file.h"

/// Longest name, in bytes, without the terminating NUL.
#define SN_SCENE_MAX_NAME 255

/// Handles of bodies and constraints share this layout.
typedef struct sn_name_id {
  int32_t index1;
  uint16_t world_tag;
  uint16_t generation;
} sn_name_id;

typedef struct sn_name_entry {
  char *name; ///< NULL: slot unused
  uint32_t hash;
  sn_name_id id;
  int32_t next; ///< next slot in the same bucket, -1 at the end
} sn_name_entry;

/// One namespace: entries indexed by the id's slot (index1 - 1), chained by
/// name hash for lookups by name.
typedef struct sn_name_space {
  sn_name_entry *slots;
  int32_t slot_capacity;
  int32_t *buckets; ///< first slot of each chain, -1 if empty
  int32_t bucket_count;
  int32_t live;
} sn_name_space;

struct sn_scene_names {
  sn_name_space bodies;
  sn_name_space constraints;
  sn_name_space soft_bodies; ///< shares the body namespace in files (the setters keep names unique across both)
};

/// Byte offset of the first character of s (NUL-terminated) that is not
/// well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
/// above U+10FFFF, no cut-short sequences), or -1 if there is none; *why
/// (may be NULL) says what is wrong there.
long sn_utf8_invalid(const char *s, const char **why);

/// True if the name is acceptable (non-empty, <= SN_SCENE_MAX_NAME bytes,
/// no control characters, well-formed UTF-8).
bool sn_name_is_valid(const char *name);

/// Sets (name != NULL) or clears (name == NULL) the name of id. Returns
/// SN_SCENE_OK, SN_SCENE_ERR_DUPLICATE_NAME (another id has it; *other set if
/// not NULL), SN_SCENE_ERR_ARGUMENT or SN_SCENE_ERR_OUT_OF_MEMORY.
sn_scene_status sn_name_space_set(sn_name_space *ns, sn_name_id id, const char *name, sn_name_id *other);
const char *sn_name_space_get(const sn_name_space *ns, sn_name_id id);
/// The id with that name; false if none.
bool sn_name_space_find(const sn_name_space *ns, const char *name, sn_name_id *out);
void sn_name_space_free(sn_name_space *ns);

/// The plugin a type came from, as scene files name it (a type's origin,
/// sn_registry_get_type_origin): a loaded file's name without ".so" (".dll"
/// on Windows; ".../revolute.so" -> "revolute"); a plugin linked into the program
/// ("linked-in plugin <library name>") the last dot-separated part of its
/// library name, its file's name by the convention every shipped plugin
/// follows ("sinew.revolute" -> "revolute", "acme.ropes" -> "ropes"). False
/// for host types and names that do not fit in cap.
bool sn_scene_plugin_of(const char *origin, char *out, size_t cap);

/// X(type, name): the body types as scene files name them.
#define SN_SCENE_BODY_TYPES(X)                                                                                         \
  X(SN_BODY_STATIC, "static") X(SN_BODY_KINEMATIC, "kinematic") X(SN_BODY_DYNAMIC, "dynamic")

/// The name of a body type ("static"), or NULL for none of them.
const char *sn_scene_body_type_name(sn_body_type type);
/// The body type named name; false if it names none.
bool sn_scene_body_type_of(const char *name, sn_body_type *out);
/// Every name, quoted, for messages: "static", "kinematic" or "dynamic" (with the quotes).
void sn_scene_body_type_list(char *buf, size_t cap);

/// Writes "<prefix>message" into error (if not NULL) with status and place.
void sn_scene_set_error(sn_scene_error *error, sn_scene_status status, sn_result engine_result, int32_t line,
                        int32_t column, const char *fmt, ...) SN_PRINTF(6, 7);

#endif
