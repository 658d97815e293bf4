/* The shipped constraint types as this build provides them (shipped.h): the
 * build says which way with SN_HAVE_DLOPEN (CMake option SINEW_DLOPEN); with
 * files off, the library links libsinew_plugins.a. */
#include "shipped.h"

#include <stdio.h>

#include "platform/platform.h" /* SN_PLUGIN_SUFFIX */
#include "scenes.h"

#ifndef SN_HAVE_DLOPEN
#define SN_HAVE_DLOPEN 1
#endif
#if !SN_HAVE_DLOPEN
#include "sinew/plugins_static.h"
#endif

bool sn_shipped_from_files(void) { return SN_HAVE_DLOPEN; }

/* One shipped plugin, the way this build has it; msg (512 bytes) says why not. */
static sn_result sn_shipped_add_one(sn_registry *registry, const char *dir, const char *name, char *msg) {
#if SN_HAVE_DLOPEN
  char path[4200];
  snprintf(path, sizeof path, "%s/%s" SN_PLUGIN_SUFFIX, dir, name);
  return sn_registry_load_plugin(registry, path, msg, 512);
#else
  (void)dir;
  return sn_registry_add_shipped_plugin(registry, name, msg, 512);
#endif
}

sn_result sn_shipped_add(sn_registry *registry, const char *dir, const char *const *names, int32_t count, char *err,
                         size_t cap) {
  if (err != NULL && cap > 0) err[0] = '\0';
  if (registry == NULL || (names == NULL && count > 0)) return SN_ERR_NULL;
  char found[4096];
  if (dir == NULL && sn_shipped_from_files()) {
    if (!sn_scene_plugin_dir(found, sizeof found)) {
      if (err != NULL && cap > 0)
        snprintf(err, cap, "no folder of the plugin search path holds the shipped plugins (set SINEW_PLUGIN_PATH)");
      return SN_ERR_NOT_FOUND;
    }
    dir = found;
  }
  for (int32_t i = 0; i < count; ++i) {
    char msg[512] = "";
    sn_result r = sn_shipped_add_one(registry, dir, names[i], msg);
    if (r != SN_OK) {
      if (err != NULL && cap > 0) snprintf(err, cap, "plugin %s: %s", names[i], msg);
      return r;
    }
  }
  return SN_OK;
}

sn_result sn_shipped_add_all(sn_registry *registry, const char *dir, sn_plugin_load_fcn *fcn, void *context) {
  if (registry == NULL) return SN_ERR_NULL;
#if SN_HAVE_DLOPEN
  return dir != NULL ? sn_registry_load_directory(registry, dir, fcn, context)
                     : sn_registry_load_search_path(registry, fcn, context);
#else
  (void)dir;
  char msg[512];
  sn_result r = sn_registry_add_shipped(registry, msg, sizeof msg);
  if (fcn != NULL) fcn("linked-in plugins", r, msg, context);
  return r;
#endif
}
