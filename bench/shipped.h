/* The shipped constraint types (plugins/) as this build provides them: loaded
 * from their files when Sinew loads plugin files, linked in
 * (libsinew_plugins.a, sinew/plugins_static.h) when it is built with
 * SINEW_DLOPEN=OFF. The project's programs and tests are built both ways and
 * make the choice here only; an application picks one of the two
 * (docs/user-guide.md, "Plugins: where they are found"). */
#ifndef SINEW_SHIPPED_H
#define SINEW_SHIPPED_H

#include <stdbool.h>
#include <stddef.h>

#include "sinew/sinew.h"

/// True if this build loads plugin files; false with SINEW_DLOPEN=OFF (no
/// file is ever loaded: the shipped types are linked in).
bool sn_shipped_from_files(void);

/// Registers the shipped plugins `names` ("revolute", "xpbd_area", ...;
/// `count` of them) in registry: the files <dir>/<name>.so (.dll on
/// Windows; dir NULL: the
/// folder sn_scene_plugin_dir finds on the plugin search path), or their
/// linked-in copies (dir unused). A plugin the registry has already is a
/// no-op. Stops at the first failure and returns its result; err (capacity
/// cap, may be NULL) names the plugin and says why.
sn_result sn_shipped_add(sn_registry *registry, const char *dir, const char *const *names, int32_t count, char *err,
                         size_t cap);

/// Registers every shipped plugin: each plugin file of dir
/// (sn_registry_load_directory, each file's result to fcn, which may be
/// NULL; dir NULL: every folder of the plugin search path,
/// sn_registry_load_search_path), or every linked-in one
/// (sn_registry_add_shipped; fcn then sees one result, for
/// "linked-in plugins"). Returns SN_OK if the folder (or a folder of the
/// search path) was read, or the linked-in plugins registered.
sn_result sn_shipped_add_all(sn_registry *registry, const char *dir, sn_plugin_load_fcn *fcn, void *context);

#endif
