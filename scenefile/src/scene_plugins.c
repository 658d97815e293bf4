/* Scene loader: the plugins a scene names, found in the plugin folders (or
 * linked in) and registered. */
#include <stdio.h>
#include <string.h>

#include "platform/file_io.h"
#include "platform/platform.h"
#include "scene_loader.h"

#ifndef SN_HAVE_DLOPEN
#define SN_HAVE_DLOPEN 1 /* the build sets it (CMake option SINEW_DLOPEN) */
#endif
#ifndef SN_SCENE_SHIPPED_PLUGINS
#define SN_SCENE_SHIPPED_PLUGINS 0 /* the shipped plugins linked in (SINEW_DLOPEN off) */
#endif
#if SN_SCENE_SHIPPED_PLUGINS
#include "sinew/plugins_static.h"
#endif

bool sn_scene_plugin_name_ok(const char *s) {
  if (s[0] == '\0' || s[0] == '.' || strlen(s) >= SN_MAX_TYPE_NAME) return false;
  for (; *s; ++s) {
    char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == '-'))
      return false;
  }
  return true;
}

#if SN_HAVE_DLOPEN /* a build without file loading searches no folders */
static bool regular_file(const char *path) { return sn_file_is_regular(path); }

/* Tries dir/name.so (name.dll on Windows); appends dir to the searched list. */
static bool try_dir(const char *dir, size_t dir_len, const char *name, char *path, size_t cap, char *searched,
                    size_t searched_cap) {
  if (dir_len == 0) return false;
  size_t n = strlen(searched);
  if (n < searched_cap) snprintf(searched + n, searched_cap - n, "%s%.*s", n ? ", " : "", (int)dir_len, dir);
  int w = snprintf(path, cap, "%.*s/%s" SN_PLUGIN_SUFFIX, (int)dir_len, dir, name);
  return w > 0 && (size_t)w < cap && regular_file(path);
}

typedef struct plugin_search {
  const char *name;
  char *path;
  size_t cap;
  char *searched;
  size_t searched_cap;
  bool found;
} plugin_search;

static bool try_search_dir(const char *dir, void *context) {
  plugin_search *s = context;
  s->found = try_dir(dir, strlen(dir), s->name, s->path, s->cap, s->searched, s->searched_cap);
  return !s->found;
}

static bool find_plugin(const sn_scene_load_options *opt, const char *name, char *path, size_t cap, char *searched,
                        size_t searched_cap) {
  searched[0] = '\0';
  for (int32_t i = 0; i < opt->plugin_dir_count; ++i) {
    const char *d = opt->plugin_dirs[i];
    if (d != NULL && try_dir(d, strlen(d), name, path, cap, searched, searched_cap)) return true;
  }
  if (!opt->search_default_dirs) return false;
  /* then the engine's search path: SINEW_PLUGIN_PATH, the installed folder */
  plugin_search s = {name, path, cap, searched, searched_cap, false};
  sn_plugin_search_path(try_search_dir, &s);
  return s.found;
}
#endif

/* The registry already has the plugin: a type of that name, or a type from
 * a plugin of that name (a file <name>.so, .dll on Windows, wherever it was
 * loaded from, or a plugin linked in under that name: sn_scene_plugin_of). */
bool sn_scene_registry_has_plugin(const sn_registry *reg, const char *name) {
  if (sn_registry_find_type(reg, name) != NULL) return true;
  for (int32_t i = 0; i < sn_registry_get_type_count(reg); ++i) {
    char plugin[SN_MAX_TYPE_NAME];
    if (sn_scene_plugin_of(sn_registry_get_type_origin(reg, sn_registry_get_type(reg, i)->name), plugin,
                           sizeof plugin) &&
        strcmp(plugin, name) == 0)
      return true;
  }
  return false;
}

/* Registers plugin `name` in reg: the file <name>.so from the plugin
 * folders, or, in a build that loads no plugin files (SINEW_DLOPEN off), the
 * shipped plugin of that name linked in. SN_OK; SN_ERR_NOT_FOUND (no such
 * plugin: a->missing says what was looked for); else the registry refused
 * it (a->where, a->msg). */
sn_result sn_scene_add_plugin(const sn_scene_load_options *opt, sn_registry *reg, const char *name,
                              sn_scene_plugin_attempt *a) {
  a->msg[0] = '\0';
#if SN_HAVE_DLOPEN
  char searched[2048];
  if (!find_plugin(opt, name, a->where, sizeof a->where, searched, sizeof searched)) {
    snprintf(a->missing, sizeof a->missing, "%s" SN_PLUGIN_SUFFIX " in one of: %s", name,
             searched[0] ? searched : "(no folders: set plugin_dirs or SINEW_PLUGIN_PATH)");
    return SN_ERR_NOT_FOUND;
  }
  return sn_registry_load_plugin(reg, a->where, a->msg, sizeof a->msg);
#else
  (void)opt;
  snprintf(a->where, sizeof a->where, "linked in");
  sn_result r = SN_ERR_NOT_FOUND;
#if SN_SCENE_SHIPPED_PLUGINS
  r = sn_registry_add_shipped_plugin(reg, name, a->msg, sizeof a->msg);
#endif
  if (r == SN_ERR_NOT_FOUND)
    snprintf(a->missing, sizeof a->missing,
             "a plugin linked into this build, which loads no plugin files (SINEW_DLOPEN off): %s",
             SN_SCENE_SHIPPED_PLUGINS ? a->msg : "it has none");
  return r;
#endif
}

/* ------------------------------------------------------------------------ */
/* Plugins                                                                   */

bool sn_scene_parse_plugin_names(sn_loader *L, const cJSON *arr) {
  size_t mark = sn_scene_path_push_key(L, "plugins");
  if (!sn_scene_read_array(L, arr, "an array of plugin names such as [\"revolute\"]")) return false;
  int32_t i = 0;
  for (const cJSON *c = arr->child; c != NULL; c = c->next, ++i) {
    size_t m2 = sn_scene_path_push_index(L, i);
    const char *name = NULL;
    if (!sn_scene_read_string(L, c, "a plugin name (a string)", &name)) return false;
    if (!sn_scene_plugin_name_ok(name))
      return sn_scene_fail(
          L, SN_SCENE_ERR_UNKNOWN_PLUGIN, SN_OK, c, false,
          "invalid plugin name \"%.60s\"; expected a file name without \".so\" (letters, digits, '.', '_', "
          "'-', not starting with '.')",
          name);
    sn_scene_path_pop(L, m2);
  }
  sn_scene_path_pop(L, mark);
  return true;
}

bool sn_scene_load_plugins(sn_loader *L, sn_registry *reg) {
  if (L->plugins_node == NULL) return true;
  size_t mark = sn_scene_path_push_key(L, "plugins");
  int32_t i = 0;
  for (const cJSON *c = L->plugins_node->child; c != NULL; c = c->next, ++i) {
    size_t m2 = sn_scene_path_push_index(L, i);
    const char *name = c->valuestring;
    if (!sn_scene_registry_has_plugin(reg, name)) {
      sn_scene_plugin_attempt a;
      sn_result r = sn_scene_add_plugin(L->opt, reg, name, &a);
      if (r == SN_ERR_NOT_FOUND)
        return sn_scene_fail(L, SN_SCENE_ERR_UNKNOWN_PLUGIN, SN_OK, c, false, "plugin \"%s\" not found; expected %s",
                             name, a.missing);
      if (r != SN_OK)
        return sn_scene_fail(
            L, SN_SCENE_ERR_PLUGIN_LOAD, r, c, false,
            "plugin \"%s\" (%s) failed to load: %s: %s; expected a Sinew constraint plugin (docs/plugins.md)", name,
            a.where, sn_result_name(r), a.msg);
    }
    sn_scene_path_pop(L, m2);
  }
  sn_scene_path_pop(L, mark);
  return true;
}

/* The constraint types the builder entries need, loaded implicitly: the
 * plugin of the same name (xpbd_area.so for xpbd_area) from the search path,
 * unless the registry has it already. */
bool sn_scene_load_soft_plugins(sn_loader *L, sn_registry *reg) {
  for (int32_t i = 0; i < L->soft_count; ++i) {
    const sn_soft_ir *s = L->softs + i;
    const char *types[4];
    int32_t n = sn_scene_soft_needs(s, types);
    for (int32_t j = 0; j < n; ++j) {
      if (sn_scene_registry_has_plugin(reg, types[j])) continue;
      size_t mark = sn_scene_path_push_key(L, "soft_bodies");
      size_t m2 = sn_scene_path_push_index(L, i);
      sn_scene_plugin_attempt a;
      sn_result r = sn_scene_add_plugin(L->opt, reg, types[j], &a);
      if (r == SN_ERR_NOT_FOUND)
        return sn_scene_fail(
            L, SN_SCENE_ERR_UNKNOWN_PLUGIN, SN_OK, s->node, false,
            "a %s needs the constraint type \"%s\", which no listed plugin provides, and plugin \"%s\" is "
            "not found; expected %s",
            s->kind_name, types[j], types[j], a.missing);
      if (r != SN_OK)
        return sn_scene_fail(
            L, SN_SCENE_ERR_PLUGIN_LOAD, r, s->node, false,
            "a %s needs the constraint type \"%s\"; plugin %s failed to load: %s: %s; expected a Sinew "
            "constraint plugin (docs/plugins.md)",
            s->kind_name, types[j], a.where, sn_result_name(r), a.msg);
      sn_scene_path_pop(L, m2);
      sn_scene_path_pop(L, mark);
    }
  }
  return true;
}
