/* Scene loader: the entry points. Text -> positions (json_text.c) + tree
 * (cJSON) -> checked description (scene_parse.c, scene_parse_soft.c; nothing
 * built yet) -> plugins (scene_plugins.c) -> constraint parameters against
 * their schemas -> world (scene_build.c). Any failure before the world
 * exists leaves nothing. The format is documented in docs/scene-format.md. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/file_io.h"
#include "scene_loader.h"

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */

sn_scene_load_options sn_default_scene_load_options(void) {
  sn_scene_load_options o;
  memset(&o, 0, sizeof o);
  o.search_default_dirs = true;
  o.cookie = SN_SCENE_OPTIONS_COOKIE;
  return o;
}

void sn_scene_unload(sn_loaded_scene *scene) {
  if (scene == NULL) return;
  if (scene->world) sn_destroy_world(scene->world);
  if (scene->owns_registry && scene->registry) sn_destroy_registry(scene->registry);
  sn_destroy_scene_names(scene->names);
  memset(scene, 0, sizeof *scene);
}

static void loader_free(sn_loader *L) {
  sn_json_map_free(&L->map);
  sn_scene_free_softs(L);
  free(L->groups);
  free(L->particle_ids);
  free(L->bodies);
  for (int32_t i = 0; L->shapes != NULL && i < L->shape_count; ++i) free(L->shapes[i].chain_points);
  free(L->shapes);
  free(L->softs);
  free(L->constraints);
  free(L->params);
  free(L->values);
  sn_name_space_free(&L->body_names);
  sn_name_space_free(&L->constraint_names);
}

static sn_scene_status load(sn_loader *L, sn_loaded_scene *out) {
  size_t error_offset = 0;
  while (L->length > 0 && L->text[L->length - 1] == '\0') L->length--; /* a length that counted the NUL */
  char expected[160];
  if (L->length > UINT32_MAX - 1) {
    sn_scene_set_error(L->err, SN_SCENE_ERR_IO, SN_OK, 0, 0, "%s: the text is larger than 4 GiB", L->source);
    return SN_SCENE_ERR_IO;
  }
  if (!sn_json_scan(L->text, L->length, &L->map, &error_offset, expected, sizeof expected)) {
    if (L->map.out_of_memory) return sn_scene_out_of_memory(L), SN_SCENE_ERR_OUT_OF_MEMORY;
    int32_t line, column;
    sn_json_line_column(L->text, L->length, error_offset, &line, &column);
    char found[48];
    if (error_offset >= L->length)
      snprintf(found, sizeof found, "the end of the text");
    else if ((unsigned char)L->text[error_offset] >= 0x20 && (unsigned char)L->text[error_offset] < 0x7f)
      snprintf(found, sizeof found, "'%c'", L->text[error_offset]);
    else
      snprintf(found, sizeof found, "byte 0x%02x", (unsigned)(unsigned char)L->text[error_offset]);
    sn_scene_set_error(L->err, SN_SCENE_ERR_SYNTAX, SN_OK, line, column,
                       "%s:%d:%d: syntax error: expected %s, found %s", L->source, (int)line, (int)column, expected,
                       found);
    return SN_SCENE_ERR_SYNTAX;
  }
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(L->text, L->length, &end, 0);
  if (root == NULL || !sn_json_bind(&L->map, root)) {
    /* the recognizer accepted what cJSON did not (or memory ran out) */
    size_t at = end != NULL && end >= L->text && end <= L->text + L->length ? (size_t)(end - L->text) : 0;
    int32_t line, column;
    sn_json_line_column(L->text, L->length, at, &line, &column);
    cJSON_Delete(root);
    if (L->map.out_of_memory || root != NULL) return sn_scene_out_of_memory(L), SN_SCENE_ERR_OUT_OF_MEMORY;
    sn_scene_set_error(L->err, SN_SCENE_ERR_SYNTAX, SN_OK, line, column,
                       "%s:%d:%d: syntax error: cJSON cannot read this (a number longer than 63 characters?)",
                       L->source, (int)line, (int)column);
    return SN_SCENE_ERR_SYNTAX;
  }
  L->world_def = sn_default_world_def();
  L->settings = sn_world_settings_default(); /* a key left out means its default */
  if (L->opt->limits != NULL) {
#define SN_X(name, dflt, doc) L->world_def.name = L->opt->limits->name;
    SN_WORLD_LIMITS(SN_X)
#undef SN_X
  }
  bool ok = sn_scene_parse_document(L, root);
  if (ok) {
    L->values = calloc((size_t)L->param_count + 1, sizeof *L->values);
    if (L->values == NULL) ok = sn_scene_out_of_memory(L);
  }
  sn_registry *reg = NULL;
  bool owns = false;
  if (ok) {
    reg = L->opt->registry;
    if (reg == NULL) {
      reg = sn_create_registry(L->opt->allocator.alloc != NULL ? &L->opt->allocator : NULL);
      owns = true;
      if (reg == NULL) ok = sn_scene_out_of_memory(L);
    }
  }
  if (ok) ok = sn_scene_load_plugins(L, reg);
  if (ok) ok = sn_scene_load_soft_plugins(L, reg);
  for (int32_t i = 0; ok && i < L->soft_count; ++i) {
    const sn_soft_ir *s = L->softs + i;
    for (int32_t g = 0; ok && g < s->group_count; ++g) {
      size_t mark = sn_scene_path_push_key(L, "soft_bodies");
      size_t m2 = sn_scene_path_push_index(L, i);
      size_t m3 = sn_scene_path_push_key(L, "constraints");
      size_t m4 = sn_scene_path_push_index(L, g);
      ok = sn_scene_check_constraint_params(L, reg, L->groups + s->first_group + g);
      if (ok) {
        sn_scene_path_pop(L, m4);
        sn_scene_path_pop(L, m3);
        sn_scene_path_pop(L, m2);
        sn_scene_path_pop(L, mark);
      }
    }
  }
  for (int32_t i = 0; ok && i < L->constraint_count; ++i) {
    size_t mark = sn_scene_path_push_key(L, "constraints");
    size_t m2 = sn_scene_path_push_index(L, i);
    ok = sn_scene_check_constraint_params(L, reg, L->constraints + i);
    if (ok) {
      sn_scene_path_pop(L, m2);
      sn_scene_path_pop(L, mark);
    }
  }
  if (ok) {
    out->registry = reg;
    out->owns_registry = owns;
    out->names = sn_create_scene_names();
    if (out->names == NULL) ok = sn_scene_out_of_memory(L);
  }
  if (ok) {
    L->path_len = 0;
    L->path[0] = '\0';
    ok = sn_scene_build_world(L, reg, out);
  }
  cJSON_Delete(root);
  if (!ok) {
    if (out->world) sn_destroy_world(out->world);
    sn_destroy_scene_names(out->names);
    if (owns && reg) sn_destroy_registry(reg);
    memset(out, 0, sizeof *out);
    return L->err->status;
  }
  return SN_SCENE_OK;
}

static bool options_ok(const sn_scene_load_options *opt, sn_scene_error *err, const char *source) {
  if (opt->cookie != SN_SCENE_OPTIONS_COOKIE) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_UNINITIALIZED_DEF, 0, 0,
                       "%s: load options not made by sn_default_scene_load_options()", source);
    return false;
  }
  if (opt->plugin_dir_count < 0 || (opt->plugin_dir_count > 0 && opt->plugin_dirs == NULL)) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_INVALID_ARGUMENT, 0, 0,
                       "%s: plugin_dir_count without plugin_dirs", source);
    return false;
  }
  const sn_world_def *d = opt->limits;
  if (d != NULL && d->cookie != SN_DEF_COOKIE) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_UNINITIALIZED_DEF, 0, 0,
                       "%s: the limits def was not made by sn_default_world_def()", source);
    return false;
  }
  if (d != NULL &&
      (d->max_bodies < 0 || d->max_bodies > SN_MAX_WORLD_LIMIT || d->max_shapes < 0 ||
       d->max_shapes > SN_MAX_WORLD_LIMIT || d->max_particles < 0 || d->max_particles > SN_MAX_WORLD_LIMIT ||
       d->max_soft_bodies < 0 || d->max_soft_bodies > SN_MAX_WORLD_LIMIT || d->max_constraints < 0 ||
       d->max_constraints > SN_MAX_WORLD_LIMIT || d->max_contacts < 0 || d->max_contacts > SN_MAX_WORLD_LIMIT)) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_INVALID_ARGUMENT, 0, 0,
                       "%s: a limit of the limits def is outside 0 .. SN_MAX_WORLD_LIMIT", source);
    return false;
  }
  return true;
}

sn_scene_status sn_scene_load_string(const char *text, size_t length, const char *source_name,
                                     const sn_scene_load_options *options, sn_loaded_scene *out,
                                     sn_scene_error *error) {
  sn_scene_error local;
  sn_scene_error *err = error ? error : &local;
  memset(err, 0, sizeof *err);
  const char *source = source_name ? source_name : "<string>";
  if (out == NULL || (text == NULL && length > 0)) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_NULL, 0, 0, "%s: text or out is NULL", source);
    return SN_SCENE_ERR_ARGUMENT;
  }
  memset(out, 0, sizeof *out);
  sn_scene_load_options defaults = sn_default_scene_load_options();
  const sn_scene_load_options *opt = options ? options : &defaults;
  if (!options_ok(opt, err, source)) return err->status;
  sn_loader L;
  memset(&L, 0, sizeof L);
  L.text = text ? text : "";
  L.length = length;
  L.source = source;
  L.err = err;
  L.opt = opt;
  sn_scene_status st = load(&L, out);
  loader_free(&L);
  return st;
}

sn_scene_status sn_scene_load_file(const char *path, const sn_scene_load_options *options, sn_loaded_scene *out,
                                   sn_scene_error *error) {
  sn_scene_error local;
  sn_scene_error *err = error ? error : &local;
  memset(err, 0, sizeof *err);
  if (path == NULL || out == NULL) {
    sn_scene_set_error(err, SN_SCENE_ERR_ARGUMENT, SN_ERR_NULL, 0, 0, "path or out is NULL");
    return SN_SCENE_ERR_ARGUMENT;
  }
  memset(out, 0, sizeof *out);
  char why[768];
  sn_file_reader f;
  if (!sn_file_reader_open(&f, path, why, sizeof why)) {
    sn_scene_set_error(err, SN_SCENE_ERR_IO, SN_OK, 0, 0, "%s: %s", path, why);
    return SN_SCENE_ERR_IO;
  }
  char *text = NULL;
  size_t length = 0, capacity = 0;
  bool ok = true;
  for (;;) {
    if (length == capacity) {
      if (capacity >= SN_SCENE_MAX_FILE_BYTES) {
        sn_scene_set_error(err, SN_SCENE_ERR_IO, SN_OK, 0, 0, "%s: larger than %u bytes", path,
                           SN_SCENE_MAX_FILE_BYTES);
        ok = false;
        break;
      }
      capacity = capacity ? 2 * capacity : 65536;
      char *t = realloc(text, capacity);
      if (t == NULL) {
        sn_scene_set_error(err, SN_SCENE_ERR_OUT_OF_MEMORY, SN_ERR_OUT_OF_MEMORY, 0, 0, "%s: out of memory", path);
        ok = false;
        break;
      }
      text = t;
    }
    ptrdiff_t got = sn_file_reader_read(&f, text + length, capacity - length, why, sizeof why);
    if (got < 0) {
      sn_scene_set_error(err, SN_SCENE_ERR_IO, SN_OK, 0, 0, "%s: read error: %s", path, why);
      ok = false;
      break;
    }
    if (got == 0) break;
    length += (size_t)got;
  }
  sn_file_reader_close(&f);
  sn_scene_status st = ok ? sn_scene_load_string(text, length, path, options, out, err) : err->status;
  free(text);
  return st;
}
