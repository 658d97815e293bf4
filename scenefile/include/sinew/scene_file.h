/* Sinew scene files: load a world from JSON and save one back.
 *
 * A separate library (libsinew_scene_io, CMake target sinew::scene_io,
 * pkg-config sinew-scene-io) on top of libsinew, so the engine core stays
 * free of any JSON dependency. The format is described in
 * docs/scene-format.md; in short:
 *
 *   { "sinew_scene": 1, "gravity": [0, -10], "settings": {"substeps": 4},
 *     "plugins": ["revolute"],
 *     "bodies": [{"name": "ball", "type": "dynamic", "position": [0, 4],
 *                 "shapes": [{"circle": 0.5, "density": 1}]}],
 *     "soft_bodies": [{"name": "jelly", "kind": "ring", "center": [3, 5], "radius": 0.5}],
 *     "constraints": [{"type": "revolute", "bodies": ["ground", "ball"], ...},
 *                     {"type": "attach", "bodies": ["ball"], "particles": [["jelly", 0]]}] }
 *
 * Loading is all or nothing: the whole file is checked first (JSON syntax,
 * keys, types, ranges, names and references, plugins, constraint parameters
 * against each type's schema, polygon geometry), then the world is built;
 * if anything fails, everything built is destroyed and the error names
 * file:line:column and what was expected there.
 *
 * Saving writes every setting, body, shape, soft body (as explicit
 * particles, edges and constraints) and constraint of a world with
 * floats printed so they read back to the same bits: save, load, save gives
 * the same text, and a world saved before its first step and loaded back
 * steps bit for bit like the original (see the format page for what is not
 * saved: contact and warm-starting caches, sleep timers).
 *
 * Threads: no global state; different calls may run on different threads as
 * long as each world is used by one thread at a time.
 * Memory: the library allocates its own temporary memory with malloc (cJSON
 * too); worlds use the allocator given in the load options.
 * SPDX-License-Identifier: MIT */
#ifndef SINEW_SCENE_FILE_H
#define SINEW_SCENE_FILE_H

#include "sinew/sinew.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The "sinew_scene" format version this library reads and writes.
#define SN_SCENE_FORMAT_VERSION 1

/// X(name, id, message) for every scene status. Ids never change once released.
#define SN_SCENE_STATUS_TABLE(X)                                                                                       \
  X(SN_SCENE_OK, 0, "success")                                                                                         \
  X(SN_SCENE_ERR_ARGUMENT, 1, "a NULL or invalid argument was passed to the API")                                      \
  X(SN_SCENE_ERR_IO, 2, "the file could not be read or written")                                                       \
  X(SN_SCENE_ERR_SYNTAX, 3, "the text is not valid JSON")                                                              \
  X(SN_SCENE_ERR_VERSION, 4, "the sinew_scene version is missing or not supported")                                    \
  X(SN_SCENE_ERR_TYPE, 5, "a value has the wrong JSON type")                                                           \
  X(SN_SCENE_ERR_MISSING_KEY, 6, "a required key is missing")                                                          \
  X(SN_SCENE_ERR_UNKNOWN_KEY, 7, "a key is not part of the format, or given twice")                                    \
  X(SN_SCENE_ERR_RANGE, 8, "a value is out of range, not finite, not whole, or not one of the allowed words")          \
  X(SN_SCENE_ERR_UNKNOWN_SHAPE, 9, "a shape has an unknown or no geometry key")                                        \
  X(SN_SCENE_ERR_GEOMETRY, 10, "the engine refuses the geometry (degenerate or non-convex polygon, ...)")              \
  X(SN_SCENE_ERR_UNKNOWN_PLUGIN, 11, "no plugin of that name in the plugin search path")                               \
  X(SN_SCENE_ERR_PLUGIN_LOAD, 12, "a plugin file was found but could not be loaded")                                   \
  X(SN_SCENE_ERR_UNKNOWN_TYPE, 13, "no constraint type of that name in the registry")                                  \
  X(SN_SCENE_ERR_UNKNOWN_PARAM, 14, "the constraint type has no parameter of that name")                               \
  X(SN_SCENE_ERR_DUPLICATE_NAME, 15, "two bodies or two constraints have the same name")                               \
  X(SN_SCENE_ERR_DANGLING_REFERENCE, 16, "a constraint names a body that does not exist")                              \
  X(SN_SCENE_ERR_UNSUPPORTED, 17, "the file uses a feature this build does not support yet")                           \
  X(SN_SCENE_ERR_ENGINE, 18, "the engine refused an object (engine_result says why)")                                  \
  X(SN_SCENE_ERR_OUT_OF_MEMORY, 19, "memory ran out")                                                                  \
  X(SN_SCENE_ERR_UNREPRESENTABLE, 20, "the world holds something the scene format cannot describe")

/// Result of every scene call. SN_SCENE_OK is zero.
typedef enum sn_scene_status {
#define SN_SCENE_X_ENUM(name, id, msg) name = id,
  SN_SCENE_STATUS_TABLE(SN_SCENE_X_ENUM)
#undef SN_SCENE_X_ENUM
} sn_scene_status;

/// Stable symbolic name of a status ("SN_SCENE_ERR_SYNTAX"), and its one-line description.
SN_API const char *sn_scene_status_name(sn_scene_status status);
SN_API const char *sn_scene_status_message(sn_scene_status status);

/// What went wrong and where. message is one line:
/// "<file>:<line>:<column>: <json path>: <what was found>; <what was expected>",
/// e.g. "level.json:12:20: bodies[1].shapes[0].friction: expected a number >= 0, got a string".
/// Lines and columns count from 1; columns count characters (UTF-8 code points).
/// Errors not tied to a place in the text (I/O, save) have line = column = 0
/// and no location prefix beyond the file name.
typedef struct sn_scene_error {
  sn_scene_status status;
  sn_result engine_result; ///< the engine's code for ENGINE, GEOMETRY and PLUGIN_LOAD errors, else SN_OK
  int32_t line, column;
  char message[1024];
} sn_scene_error;

/* ------------------------------------------------------------------------ */
/* Names                                                                     */

/// Names of bodies, soft bodies and constraints of a world, as scene files
/// refer to them (constraints name their bodies and soft bodies). Bodies and
/// soft bodies share one namespace; constraints have their own. Names are non-empty, well-formed UTF-8 strings (no
/// overlong forms, surrogates, cut-short sequences, code points above U+10FFFF or bytes 0xF5..0xFF) of at most 255
/// bytes without control characters. Entries are keyed by id (generation included), so a destroyed object's name is
/// simply never looked up again.
typedef struct sn_scene_names sn_scene_names;

/// An empty table (NULL if memory runs out).
SN_API sn_scene_names *sn_create_scene_names(void);
SN_API void sn_destroy_scene_names(sn_scene_names *names);
/// Names a body (replacing its old name; name NULL removes it). Refuses a
/// name another entry already has (SN_SCENE_ERR_DUPLICATE_NAME: remove the
/// old entry first if its body was destroyed) or an invalid name
/// (SN_SCENE_ERR_ARGUMENT).
SN_API sn_scene_status sn_scene_names_set_body(sn_scene_names *names, sn_body_id body, const char *name);
/// The body's name, or NULL. Valid until the table changes.
SN_API const char *sn_scene_names_get_body(const sn_scene_names *names, sn_body_id body);
/// The body with that name, or a null id.
SN_API sn_body_id sn_scene_names_find_body(const sn_scene_names *names, const char *name);
SN_API sn_scene_status sn_scene_names_set_constraint(sn_scene_names *names, sn_constraint_id constraint,
                                                     const char *name);
SN_API const char *sn_scene_names_get_constraint(const sn_scene_names *names, sn_constraint_id constraint);
SN_API sn_constraint_id sn_scene_names_find_constraint(const sn_scene_names *names, const char *name);
/// Soft body names. Bodies and soft bodies share one namespace (a file
/// refers to either by name): setting a body's name that a soft body has,
/// or the reverse, gives SN_SCENE_ERR_DUPLICATE_NAME.
SN_API sn_scene_status sn_scene_names_set_soft_body(sn_scene_names *names, sn_soft_body_id soft, const char *name);
SN_API const char *sn_scene_names_get_soft_body(const sn_scene_names *names, sn_soft_body_id soft);
SN_API sn_soft_body_id sn_scene_names_find_soft_body(const sn_scene_names *names, const char *name);

/* ------------------------------------------------------------------------ */
/* Loading                                                                   */

/// Cookie of sn_default_scene_load_options.
#define SN_SCENE_OPTIONS_COOKIE 0x53636e65 /* "Scne" */

/// How to load. Start from sn_default_scene_load_options().
typedef struct sn_scene_load_options {
  /// Folders searched first for the plugins the file lists: "revolute" is
  /// <dir>/revolute.so. Then every folder of the SINEW_PLUGIN_PATH environment
  /// variable (':'-separated), then the installed plugin folder
  /// (<libdir>/sinew/plugins), unless search_default_dirs is false.
  const char *const *plugin_dirs;
  int32_t plugin_dir_count;
  bool search_default_dirs; ///< default true
  /// NULL (default): the loader creates a registry, and the loaded scene owns
  /// it. Else the world uses this one (it must outlive the world); listed
  /// plugins are loaded into it unless it already has the plugin (a type of
  /// the plugin's name, or a type from a file named <plugin>.so). Plugins loaded into a caller's registry stay loaded
  /// even if the load fails later (a registry cannot unload one plugin).
  sn_registry *registry;
  sn_allocator allocator; ///< for the world and a registry the loader creates; all NULL = malloc/free
  /// The world's limits (sn_world_def.max_bodies, ...): NULL (default) = those
  /// of sn_default_world_def(); else the max_* fields of this def are used
  /// (made by sn_default_world_def; its other fields are ignored, the file
  /// gives the settings). A file that needs more bodies, shapes, soft bodies,
  /// particles or constraints is refused with SN_SCENE_ERR_ENGINE and
  /// engine_result SN_ERR_CAPACITY, checked before the world is built where
  /// the counts are in the text (a builder's constraints: when it runs).
  const sn_world_def *limits;
  int32_t cookie;
} sn_scene_load_options;

/// Defaults: no extra folders, default folders searched, a new registry.
SN_API sn_scene_load_options sn_default_scene_load_options(void);

/// A loaded scene: the world, the registry it uses and the names from the file.
typedef struct sn_loaded_scene {
  sn_world *world;
  sn_registry *registry; ///< the world's registry (never NULL after a load)
  bool owns_registry;    ///< the registry was created by the loader
  sn_scene_names *names; ///< names of the file's bodies, soft bodies and constraints
} sn_loaded_scene;

/// Loads a scene file. On success fills *out and returns SN_SCENE_OK; on
/// failure *out is zeroed, nothing is left behind (no world, no registry)
/// and *error (if not NULL) says what and where. options may be NULL. A
/// path that is not a regular file (a folder, a FIFO, a device) is refused
/// at once with SN_SCENE_ERR_IO.
SN_API sn_scene_status sn_scene_load_file(const char *path, const sn_scene_load_options *options, sn_loaded_scene *out,
                                          sn_scene_error *error);

/// Same from text in memory (length bytes, need not end with a NUL);
/// source_name stands for the file name in messages (NULL = "<string>").
SN_API sn_scene_status sn_scene_load_string(const char *text, size_t length, const char *source_name,
                                            const sn_scene_load_options *options, sn_loaded_scene *out,
                                            sn_scene_error *error);

/// Destroys the world, the names and (if owned) the registry, and zeroes
/// *scene. Safe on a zeroed scene.
SN_API void sn_scene_unload(sn_loaded_scene *scene);

/* ------------------------------------------------------------------------ */
/* Saving                                                                    */

/// Writes the world as scene text (NUL-terminated, ends with a newline).
/// Bodies, soft bodies and constraints are named from names (may be NULL);
/// unnamed bodies and soft bodies get generated names ("body7", "soft2",
/// never clashing with given ones); unnamed constraints stay unnamed. Soft
/// bodies are written in the explicit form ("kind": "custom": particles,
/// edges, constraint groups) whatever made them. Plugins are listed by the file name of the library each used
/// constraint type came from ("revolute" for .../revolute.so); types
/// registered by the host program (sn_registry_add_type) are not listed, so
/// loading such a file needs a registry that has them. Returns NULL on
/// failure (*error says why: a chain whose segments differ, or a shape the format cannot describe
/// exactly, gives SN_SCENE_ERR_UNREPRESENTABLE). Free with sn_scene_free_text.
SN_API char *sn_scene_save_string(sn_world *world, const sn_scene_names *names, sn_scene_error *error);
SN_API void sn_scene_free_text(char *text);

/// Writes the scene text to path, atomically, as sn_world_write_snapshot
/// writes a file: a new file in the same folder, flushed (fsync), given the
/// replaced file's permission bits (new files: 0666 less the umask), renamed
/// over path, then the folder flushed; a failed save leaves an old file
/// intact and no temporary file. A symbolic link at path is followed (the
/// file it points to is replaced); a link to nothing, or a path that is a
/// folder or another non-regular file, is refused (SN_SCENE_ERR_IO).
SN_API sn_scene_status sn_scene_save_file(const char *path, sn_world *world, const sn_scene_names *names,
                                          sn_scene_error *error);

#ifdef __cplusplus
}
#endif
#endif /* SINEW_SCENE_FILE_H */
