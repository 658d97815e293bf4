/* Constraint type registry and the plugin loader (dlopen / LoadLibraryEx,
 * through the platform layer: platform/plugin_file.h).
 *
 * Loading checks, in order, before the library is mapped: a path with a
 * '/' (or, on Windows, a '\\'), then the file opened once and checked with
 * its folders (plugin_file_posix.c: no symbolic link, a regular file,
 * owners, write bits); the library is loaded from that open file
 * (RTLD_NOW | RTLD_LOCAL), which
 * runs its constructors; then the entry symbol, ABI major, minor, the
 * float/pointer fingerprint and the entry's size. Then register_types runs
 * with types staged; they are committed only if it succeeds and every type
 * validated, else all are dropped and the library is closed.
 *
 * A callback whose form changed within ABI major 1 keeps its slot, and the
 * form follows the minor the plugin's entry declares: create takes seven
 * parameters up to 1.1 and one sn_constraint_create_args from 1.2. The
 * registry keeps such a plugin's function beside its copy of the type and
 * puts sn_create_1_1 (the 1.2 form, calling it) in the copy's slot, so the
 * rest of the host sees one form. */
#ifndef SN_HAVE_DLOPEN
#define SN_HAVE_DLOPEN 1 /* the build sets it (CMake option SINEW_DLOPEN) */
#endif
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "world/world.h"
#include "platform/platform.h"
#include "platform/plugin_file.h"
#include "sinew/sinew.h"

/// Size of sn_constraint_type in ABI 1.0: the smallest a plugin may declare.
#define SN_TYPE_SIZE_1_0  (offsetof(sn_constraint_type, debug_draw) + sizeof(void *))
#define SN_ENTRY_SIZE_1_0 (offsetof(sn_plugin_entry, register_types) + sizeof(void *))

/// create() as plugins built for ABI 1.0 and 1.1 declare it.
typedef int sn_create_1_1_fcn(const sn_host_api *host, const void *params, void *instance,
                              const sn_constraint_body *const *bodies, int32_t count, char *err, size_t err_capacity);

/// The first minor whose create takes sn_constraint_create_args.
#define SN_CREATE_ARGS_MINOR 2u

typedef struct sn_registered_type {
  sn_constraint_type type; ///< host copy, zero beyond the plugin's struct_size (first: see sn_create_1_1)
  char name[SN_MAX_TYPE_NAME];
  int32_t library; ///< -1 = host
  /// The plugin's create of the 1.0/1.1 form (type.create is then
  /// sn_create_1_1), else NULL.
  sn_create_1_1_fcn *create_1_1;
} sn_registered_type;

typedef struct sn_library {
  void *handle;                 ///< NULL for a plugin linked into the program
  sn_plugin_file file;          ///< open while the library is loaded (its descriptor names it to the dynamic loader)
  const sn_plugin_entry *entry; ///< linked in (sn_registry_add_static): its entry, else NULL
  char name[64];
} sn_library;

struct sn_registry {
  sn_mem mem;
  /* each type in its own block: worlds and the type's name keep pointers
   * into it, so it must not move when the array grows */
  SN_ARRAY(sn_registered_type *) types;
  SN_ARRAY(sn_library) libraries;
};

struct sn_registrar {
  sn_registry *registry;
  int32_t library;
  uint32_t abi_minor; ///< the minor the plugin's entry declares
  const char *library_path;
  sn_result error;
  char message[512];
};

static void sn_host_log(int level, const char *type_name, const char *message) {
  static const char *const levels[] = {"info", "warning", "error"};
  fprintf(stderr, "sinew plugin %s [%s]: %s\n", type_name ? type_name : "?",
          levels[level < 0   ? 0
                 : level > 2 ? 2
                             : level],
          message ? message : "");
}

static int sn_host_register_type(sn_registrar *registrar, const sn_constraint_type *type);

/* The 1.2 form of a plugin's 1.0/1.1 create: args->type is the registry's
 * copy, the first field of its sn_registered_type. */
static int sn_create_1_1(const sn_constraint_create_args *args) {
  const sn_registered_type *rt = (const sn_registered_type *)(const void *)args->type;
  return rt->create_1_1(args->host, args->params, args->instance, args->bodies, args->body_count, args->err,
                        args->err_capacity);
}

/* The host table is constant data: no mutable global state. */
static const sn_host_api sn_host_table = {(uint32_t)sizeof(sn_host_api), SN_PLUGIN_ABI_MAJOR, SN_PLUGIN_ABI_MINOR,
                                          sn_host_register_type, sn_host_log};

const sn_host_api *sn_registry_host_api(void) { return &sn_host_table; }

static void sn_set_err(char *err, size_t cap, const char *fmt, ...) SN_PRINTF(3, 4);
static void sn_set_err(char *err, size_t cap, const char *fmt, ...) {
  if (err == NULL || cap == 0) return;
  va_list args;
  va_start(args, fmt);
  vsnprintf(err, cap, fmt, args);
  va_end(args);
}

sn_registry *sn_create_registry(const sn_allocator *allocator) {
  sn_mem mem;
  sn_mem_init(&mem, allocator);
  sn_registry *r = sn_mem_calloc(&mem, sizeof(sn_registry));
  if (r == NULL) return NULL;
  r->mem = mem;
  return r;
}

sn_result sn_destroy_registry(sn_registry *r) {
  if (r == NULL) return SN_ERR_NULL;
  /* worlds using this registry must be destroyed first (documented) */
  for (int32_t i = 0; i < r->libraries.count; ++i) {
#if SN_HAVE_DLOPEN
    if (r->libraries.data[i].handle != NULL) sn_plugin_library_close(r->libraries.data[i].handle);
    sn_plugin_file_close(&r->libraries.data[i].file);
#endif
  }
  for (int32_t i = 0; i < r->types.count; ++i) sn_mem_free(&r->mem, r->types.data[i], sizeof(sn_registered_type));
  sn_array_free(&r->mem, r->types);
  sn_array_free(&r->mem, r->libraries);
  sn_mem mem = r->mem;
  sn_mem_free(&mem, r, sizeof(sn_registry));
  return SN_OK;
}

static bool sn_valid_name(const char *name, size_t max_len, bool allow_dots) {
  if (name == NULL || name[0] == '\0') return false;
  size_t n = 0;
  for (const char *c = name; *c; ++c, ++n) {
    bool ok =
        (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_' || (allow_dots && (*c == '.' || *c == '-'));
    if (!ok || n + 1 >= max_len) return false;
  }
  return true;
}

static bool sn_pow2(uint32_t x) { return x != 0 && (x & (x - 1)) == 0; }

static uint32_t sn_param_bytes(uint32_t kind) {
  switch (kind) {
  case SN_PARAM_FLOAT:
  case SN_PARAM_INT:
  case SN_PARAM_BOOL:
    return 4;
  case SN_PARAM_VEC2:
    return 8;
  default:
    return 0;
  }
}

/* Checks a descriptor as the plugin declared it. */
static sn_result sn_validate_type(const sn_constraint_type *t, char *err, size_t cap) {
  if (t == NULL) return sn_set_err(err, cap, "descriptor is NULL"), SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  if (t->struct_size < SN_TYPE_SIZE_1_0)
    return sn_set_err(err, cap, "descriptor struct_size %u is smaller than ABI 1.0's %zu", t->struct_size,
                      (size_t)SN_TYPE_SIZE_1_0),
           SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  if (!sn_valid_name(t->name, SN_MAX_TYPE_NAME, true))
    return sn_set_err(err, cap, "type name '%s' must be 1..%d chars of [a-z0-9._-]", t->name ? t->name : "(null)",
                      SN_MAX_TYPE_NAME - 1),
           SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  const char *n = t->name;
  if (t->flags == 0 || (t->flags & ~(SN_CONSTRAINT_IMPULSE | SN_CONSTRAINT_XPBD)) != 0)
    return sn_set_err(err, cap, "type '%s': flags 0x%x must be IMPULSE and/or XPBD", n, t->flags),
           SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  /* particle_count arrived after the first 1.0 fields: read it only if the plugin's struct has it */
  uint32_t particles =
      t->struct_size >= offsetof(sn_constraint_type, particle_count) + sizeof(uint32_t) ? t->particle_count : 0u;
  if (t->body_count > SN_MAX_CONSTRAINT_BODIES || (t->body_count == 0 && particles == 0))
    return sn_set_err(err, cap, "type '%s': body_count %u must be 1 or 2 (or 0 with particles)", n, t->body_count),
           SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  if (particles != SN_ANY_PARTICLES && particles > SN_MAX_CONSTRAINT_PARTICLES)
    return sn_set_err(err, cap, "type '%s': particle_count %u above %d", n, particles, SN_MAX_CONSTRAINT_PARTICLES),
           SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  if (!sn_pow2(t->params_align) || t->params_align > 64 || !sn_pow2(t->instance_align) || t->instance_align > 64)
    return sn_set_err(err, cap, "type '%s': alignments must be powers of two <= 64", n), SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  if (t->params_size > (1u << 20) || t->instance_size > (1u << 20))
    return sn_set_err(err, cap, "type '%s': params or instance larger than 1 MiB", n), SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  const char *missing = t->create == NULL                                          ? "create"
                        : (t->flags & SN_CONSTRAINT_IMPULSE) && !t->prepare        ? "prepare"
                        : (t->flags & SN_CONSTRAINT_IMPULSE) && !t->solve_velocity ? "solve_velocity"
                        : (t->flags & SN_CONSTRAINT_XPBD) && !t->solve_position    ? "solve_position"
                                                                                   : NULL;
  if (missing != NULL)
    return sn_set_err(err, cap, "type '%s': required callback %s is NULL", n, missing), SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  /* solve_particles arrived after 1.0 too: batched XPBD for particle-only types */
  bool batched = t->struct_size >= offsetof(sn_constraint_type, solve_particles) + sizeof(t->solve_particles) &&
                 t->solve_particles != NULL;
  if (batched && (!(t->flags & SN_CONSTRAINT_XPBD) || t->body_count != 0 || particles == SN_ANY_PARTICLES))
    return sn_set_err(err, cap, "type '%s': solve_particles needs XPBD, body_count 0 and a fixed particle_count", n),
           SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  /* batch_flags arrived later still */
  uint32_t batch_flags =
      t->struct_size >= offsetof(sn_constraint_type, batch_flags) + sizeof(t->batch_flags) ? t->batch_flags : 0u;
  if ((batch_flags & ~SN_BATCH_SHARED_PARAMS) != 0u)
    return sn_set_err(err, cap, "type '%s': batch_flags 0x%x has bits that are no SN_BATCH_* flag", n, batch_flags),
           SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  /* begin_position / begin_particles arrived with ABI 1.1 */
  bool begins = t->struct_size >= offsetof(sn_constraint_type, begin_position) + sizeof(t->begin_position) &&
                t->begin_position != NULL;
  bool begins_batch = t->struct_size >= offsetof(sn_constraint_type, begin_particles) + sizeof(t->begin_particles) &&
                      t->begin_particles != NULL;
  if (begins && !(t->flags & SN_CONSTRAINT_XPBD))
    return sn_set_err(err, cap, "type '%s': begin_position needs XPBD", n), SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  if (begins_batch && (!begins || !batched))
    return sn_set_err(err, cap, "type '%s': begin_particles needs begin_position and solve_particles", n),
           SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  /* the state schema arrived with ABI 1.3: read only if the plugin's struct holds it */
  if (t->struct_size >= offsetof(sn_constraint_type, get_state) + sizeof(t->get_state)) {
    if (t->state_count > SN_MAX_CONSTRAINT_STATES)
      return sn_set_err(err, cap, "type '%s': state_count %u above %d", n, t->state_count, SN_MAX_CONSTRAINT_STATES),
             SN_ERR_PLUGIN_BAD_DESCRIPTOR;
    if (t->state_count > 0 && (t->states == NULL || t->get_state == NULL))
      return sn_set_err(err, cap, "type '%s': state_count %u needs states and get_state", n, t->state_count),
             SN_ERR_PLUGIN_BAD_DESCRIPTOR;
    for (uint32_t i = 0; i < t->state_count; ++i) {
      const sn_state_desc *d = t->states + i;
      if (!sn_valid_name(d->name, 64, false))
        return sn_set_err(err, cap, "type '%s': state %u has an invalid name (use [a-z0-9_])", n, i),
               SN_ERR_PLUGIN_BAD_DESCRIPTOR;
      if (d->kind != SN_PARAM_FLOAT && d->kind != SN_PARAM_VEC2)
        return sn_set_err(err, cap, "type '%s': state '%s' has kind %u (FLOAT or VEC2 only)", n, d->name, d->kind),
               SN_ERR_PLUGIN_BAD_DESCRIPTOR;
      for (uint32_t j = 0; j < i; ++j) {
        if (t->states[j].id == d->id || strcmp(t->states[j].name, d->name) == 0)
          return sn_set_err(err, cap, "type '%s': states %u and %u share an id or name", n, j, i),
                 SN_ERR_PLUGIN_BAD_DESCRIPTOR;
      }
    }
  }
  if (t->param_count > 0 && t->params == NULL)
    return sn_set_err(err, cap, "type '%s': param_count %u but params is NULL", n, t->param_count),
           SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  if (t->param_count > 256)
    return sn_set_err(err, cap, "type '%s': more than 256 parameters", n), SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  for (uint32_t i = 0; i < t->param_count; ++i) {
    const sn_param_desc *p = t->params + i;
    uint32_t bytes = sn_param_bytes(p->kind);
    if (!sn_valid_name(p->name, 64, false))
      return sn_set_err(err, cap, "type '%s': parameter %u has an invalid name (use [a-z0-9_])", n, i),
             SN_ERR_PLUGIN_BAD_DESCRIPTOR;
    if (bytes == 0)
      return sn_set_err(err, cap, "type '%s': parameter '%s' has unknown kind %u", n, p->name, p->kind),
             SN_ERR_PLUGIN_BAD_DESCRIPTOR;
    if (p->offset % 4 != 0 || (uint64_t)p->offset + bytes > t->params_size)
      return sn_set_err(err, cap, "type '%s': parameter '%s' at offset %u does not fit the %u-byte params", n, p->name,
                        p->offset, t->params_size),
             SN_ERR_PLUGIN_BAD_DESCRIPTOR;
    if (!isfinite(p->min) || !isfinite(p->max) || !isfinite(p->def) || p->min > p->max)
      return sn_set_err(err, cap, "type '%s': parameter '%s' needs finite min <= max", n, p->name),
             SN_ERR_PLUGIN_BAD_DESCRIPTOR;
    /* every value in [min, max] must fit the parameter's storage: a float
     * (finite), or an int32_t (converting 1e30 to int is undefined) */
    bool is_int = p->kind == SN_PARAM_INT || p->kind == SN_PARAM_BOOL;
    double limit = is_int ? 2147483647.0 : (double)FLT_MAX;
    if (p->min < (is_int ? -2147483648.0 : -limit) || p->max > limit)
      return sn_set_err(err, cap, "type '%s': parameter '%s' range [%g, %g] exceeds its %s storage", n, p->name, p->min,
                        p->max, is_int ? "int32" : "float"),
             SN_ERR_PLUGIN_BAD_DESCRIPTOR;
    if (is_int && p->def != floor(p->def))
      return sn_set_err(err, cap, "type '%s': parameter '%s' default %g is not a whole number", n, p->name, p->def),
             SN_ERR_PLUGIN_BAD_DESCRIPTOR;
    if (p->def < p->min || p->def > p->max)
      return sn_set_err(err, cap, "type '%s': parameter '%s' default %g outside [%g, %g]", n, p->name, p->def, p->min,
                        p->max),
             SN_ERR_PLUGIN_BAD_DESCRIPTOR;
    for (uint32_t j = 0; j < i; ++j) {
      if (t->params[j].id == p->id || strcmp(t->params[j].name, p->name) == 0)
        return sn_set_err(err, cap, "type '%s': parameters %u and %u share an id or name", n, j, i),
               SN_ERR_PLUGIN_BAD_DESCRIPTOR;
      /* overlapping parameters would overwrite each other's values */
      uint32_t q = t->params[j].offset, q_bytes = sn_param_bytes(t->params[j].kind);
      if (p->offset < q + q_bytes && q < p->offset + bytes)
        return sn_set_err(err, cap, "type '%s': parameters '%s' and '%s' overlap in the params blob", n,
                          t->params[j].name, p->name),
               SN_ERR_PLUGIN_BAD_DESCRIPTOR;
    }
  }
  return SN_OK;
}

static int32_t sn_find_index(const sn_registry *r, const char *name) {
  for (int32_t i = 0; i < r->types.count; ++i) {
    if (strcmp(r->types.data[i]->name, name) == 0) return i;
  }
  return -1;
}

static const char *sn_origin(const sn_registry *r, int32_t library) {
  return library < 0 ? "<host>" : r->libraries.data[library].file.path;
}

/* Validates and appends (staged until the caller commits). */
static sn_result sn_add(sn_registry *r, const sn_constraint_type *t, int32_t library, uint32_t abi_minor,
                        const char *origin, char *err, size_t cap) {
  sn_result res = sn_validate_type(t, err, cap);
  if (res != SN_OK) return res;
  int32_t other = sn_find_index(r, t->name);
  if (other >= 0) {
    sn_set_err(err, cap, "type '%s' from %s is already registered by %s", t->name, origin,
               sn_origin(r, r->types.data[other]->library));
    return SN_ERR_PLUGIN_DUPLICATE;
  }
  if (!sn_array_reserve(&r->mem, r->types, r->types.count + 1))
    return sn_set_err(err, cap, "out of memory"), SN_ERR_OUT_OF_MEMORY;
  sn_registered_type *rt = sn_mem_calloc(&r->mem, sizeof(sn_registered_type));
  if (rt == NULL) return sn_set_err(err, cap, "out of memory"), SN_ERR_OUT_OF_MEMORY;
  r->types.data[r->types.count++] = rt;
  size_t n = t->struct_size < sizeof(sn_constraint_type) ? t->struct_size : sizeof(sn_constraint_type);
  memcpy(&rt->type, t, n);
  /* fields appended after ABI 1.0 count only if the plugin's struct holds
   * them whole (a struct_size ending inside a field leaves it unset) */
  if (t->struct_size < offsetof(sn_constraint_type, project) + sizeof(rt->type.project)) rt->type.project = NULL;
  if (t->struct_size < offsetof(sn_constraint_type, particle_count) + sizeof(uint32_t)) rt->type.particle_count = 0u;
  if (t->struct_size < offsetof(sn_constraint_type, export_params) + sizeof(rt->type.export_params))
    rt->type.export_params = NULL;
  if (t->struct_size < offsetof(sn_constraint_type, solve_particles) + sizeof(rt->type.solve_particles))
    rt->type.solve_particles = NULL;
  if (t->struct_size < offsetof(sn_constraint_type, batch_flags) + sizeof(rt->type.batch_flags))
    rt->type.batch_flags = 0u;
  if (t->struct_size < offsetof(sn_constraint_type, begin_position) + sizeof(rt->type.begin_position))
    rt->type.begin_position = NULL;
  if (t->struct_size < offsetof(sn_constraint_type, begin_particles) + sizeof(rt->type.begin_particles))
    rt->type.begin_particles = NULL;
  if (t->struct_size < offsetof(sn_constraint_type, get_state) + sizeof(rt->type.get_state)) {
    rt->type.state_count = 0u;
    rt->type.states = NULL;
    rt->type.get_state = NULL;
  }
  if (abi_minor < SN_CREATE_ARGS_MINOR) {
    /* the plugin's function has the 1.1 form: converted back to it (through
     * the generic function pointer type), it is called only as such */
    rt->create_1_1 = (sn_create_1_1_fcn *)(void (*)(void))t->create;
    rt->type.create = sn_create_1_1;
  }
  rt->type.struct_size = (uint32_t)sizeof(sn_constraint_type);
  snprintf(rt->name, sizeof(rt->name), "%s", t->name);
  rt->type.name = rt->name;
  rt->library = library;
  return SN_OK;
}

sn_result sn_registry_add_type(sn_registry *r, const sn_constraint_type *type, char *err, size_t cap) {
  if (r == NULL) return SN_ERR_NULL;
  return sn_add(r, type, -1, SN_PLUGIN_ABI_MINOR, "<host>", err, cap);
}

static int sn_host_register_type(sn_registrar *g, const sn_constraint_type *type) {
  if (g == NULL) return 1;
  if (g->error != SN_OK) return 1; /* keep the first error */
  char msg[384];
  msg[0] = '\0';
  sn_result res = sn_add(g->registry, type, g->library, g->abi_minor, g->library_path, msg, sizeof(msg));
  if (res != SN_OK) {
    g->error = res;
    snprintf(g->message, sizeof(g->message), "%s", msg);
    return 1;
  }
  return 0;
}

/* An entry's fixed fields, checked before any of its code runs: the same
 * for a loaded file and a linked-in entry (what names it in messages). */
static sn_result sn_check_entry(const sn_plugin_entry *entry, const char *what, char *err, size_t cap) {
  if (entry->abi_major != SN_PLUGIN_ABI_MAJOR) {
    sn_set_err(err, cap, "%s: %s has plugin ABI %u.%u, this host speaks %d.%d", what, SN_PLUGIN_ENTRY_SYMBOL,
               entry->abi_major, entry->abi_minor, SN_PLUGIN_ABI_MAJOR, SN_PLUGIN_ABI_MINOR);
    return SN_ERR_PLUGIN_ABI_MAJOR;
  }
  if (entry->abi_minor > SN_PLUGIN_ABI_MINOR) {
    sn_set_err(err, cap, "%s: %s needs plugin ABI %u.%u, this host is older (%d.%d)", what, SN_PLUGIN_ENTRY_SYMBOL,
               entry->abi_major, entry->abi_minor, SN_PLUGIN_ABI_MAJOR, SN_PLUGIN_ABI_MINOR);
    return SN_ERR_PLUGIN_TOO_NEW;
  }
  if (entry->fingerprint != SN_PLUGIN_FINGERPRINT) {
    sn_set_err(err, cap, "%s: %s fingerprint 0x%x, host 0x%x (float/pointer sizes differ)", what,
               SN_PLUGIN_ENTRY_SYMBOL, entry->fingerprint, (unsigned)SN_PLUGIN_FINGERPRINT);
    return SN_ERR_PLUGIN_FINGERPRINT;
  }
  if (entry->struct_size < SN_ENTRY_SIZE_1_0 || entry->register_types == NULL) {
    sn_set_err(err, cap, "%s: %s is truncated (size %u) or has no register_types (ABI %u.%u, host %d.%d)", what,
               SN_PLUGIN_ENTRY_SYMBOL, entry->struct_size, entry->abi_major, entry->abi_minor, SN_PLUGIN_ABI_MAJOR,
               SN_PLUGIN_ABI_MINOR);
    return SN_ERR_PLUGIN_BAD_DESCRIPTOR;
  }
  return SN_OK;
}

/* Runs the entry's register_types as library `library` (the last record of
 * r->libraries): all its types or, on any failure, none (staged types are
 * rolled back and the record dropped; the caller closes what it opened). */
static sn_result sn_register_entry(sn_registry *r, const sn_plugin_entry *entry, int32_t library, const char *what,
                                   char *err, size_t cap) {
  sn_registrar g;
  memset(&g, 0, sizeof(g));
  g.registry = r;
  g.library = library;
  g.abi_minor = entry->abi_minor;
  g.library_path = what;
  int32_t first = r->types.count;
  char plugin_err[256];
  plugin_err[0] = '\0';
  int rc = entry->register_types(&sn_host_table, &g, plugin_err, sizeof(plugin_err));
  if (rc == 0 && g.error == SN_OK) return SN_OK;
  sn_result res;
  if (g.error != SN_OK) {
    res = g.error;
    sn_set_err(err, cap, "%s: %s", what, g.message);
  } else {
    res = SN_ERR_PLUGIN_INIT_FAILED;
    plugin_err[sizeof(plugin_err) - 1] = '\0';
    sn_set_err(err, cap, "%s: register_types of %s (ABI %u.%u, host %d.%d) failed: %s", what, SN_PLUGIN_ENTRY_SYMBOL,
               entry->abi_major, entry->abi_minor, SN_PLUGIN_ABI_MAJOR, SN_PLUGIN_ABI_MINOR,
               plugin_err[0] ? plugin_err : "(no message)");
  }
  /* roll back every staged type */
  while (r->types.count > first) sn_mem_free(&r->mem, r->types.data[--r->types.count], sizeof(sn_registered_type));
  r->libraries.count--;
  return res;
}

sn_result sn_registry_add_static(sn_registry *r, const struct sn_plugin_entry *entry, char *err, size_t cap) {
  if (err && cap) err[0] = '\0';
  if (r == NULL) return SN_ERR_NULL;
  if (entry == NULL) return sn_set_err(err, cap, "plugin entry is NULL"), SN_ERR_NULL;
  char what[96];
  snprintf(what, sizeof what, "linked-in plugin %.64s", entry->library_name ? entry->library_name : "?");
  for (int32_t i = 0; i < r->libraries.count; ++i) {
    if (r->libraries.data[i].entry == entry) {
      sn_set_err(err, cap, "%s: already registered", what);
      return SN_OK;
    }
  }
  sn_result res = sn_check_entry(entry, what, err, cap);
  if (res != SN_OK) return res;
  if (!sn_array_reserve(&r->mem, r->libraries, r->libraries.count + 1))
    return sn_set_err(err, cap, "out of memory"), SN_ERR_OUT_OF_MEMORY;
  int32_t library = r->libraries.count++;
  sn_library *lib = r->libraries.data + library;
  memset(lib, 0, sizeof(*lib));
  lib->file.fd = -1;
  snprintf(lib->file.path, sizeof(lib->file.path), "%s", what);
  lib->entry = entry;
  snprintf(lib->name, sizeof(lib->name), "%s", entry->library_name ? entry->library_name : "?");
  return sn_register_entry(r, entry, library, lib->file.path, err, cap);
}

#if SN_HAVE_DLOPEN
sn_result sn_registry_load_plugin_checked(sn_registry *r, const char *path, sn_plugin_checked_fcn *checked,
                                          void *context, char *err, size_t cap) {
  if (err && cap) err[0] = '\0';
  if (r == NULL) return SN_ERR_NULL;
  if (path == NULL) return sn_set_err(err, cap, "plugin path is NULL"), SN_ERR_NULL;
  if (sn_path_last_separator(path) == NULL)
    return sn_set_err(err, cap, "%s: give a path with a '/' (the current directory is never searched)", path),
           SN_ERR_PLUGIN_INSECURE_PATH;
  sn_plugin_file file;
  sn_result res = sn_plugin_file_open(path, &file, err, cap);
  if (res != SN_OK) return res;
  const char *real = file.path;
  for (int32_t i = 0; i < r->libraries.count; ++i) {
    const sn_plugin_file *had = &r->libraries.data[i].file;
    if (had->fd < 0 && r->libraries.data[i].entry != NULL) continue; /* linked in */
    if ((had->dev == file.dev && had->ino == file.ino) || strcmp(had->path, real) == 0) {
      sn_set_err(err, cap, "%s: already loaded", real);
      sn_plugin_file_close(&file);
      return SN_OK;
    }
  }
  if (!sn_array_reserve(&r->mem, r->libraries, r->libraries.count + 1)) {
    sn_plugin_file_close(&file);
    return sn_set_err(err, cap, "out of memory"), SN_ERR_OUT_OF_MEMORY;
  }
  if (checked != NULL) checked(path, context);
  void *handle = sn_plugin_file_load(&file, err, cap);
  if (handle == NULL) {
    sn_plugin_file_close(&file);
    return SN_ERR_PLUGIN_OPEN;
  }
  const sn_plugin_entry *entry = sn_plugin_library_symbol(handle, SN_PLUGIN_ENTRY_SYMBOL);
  if (entry == NULL) {
    sn_set_err(err, cap, "%s: no symbol %s (is it a Sinew plugin of ABI major %d?)", real, SN_PLUGIN_ENTRY_SYMBOL,
               SN_PLUGIN_ABI_MAJOR);
    res = SN_ERR_PLUGIN_NO_ENTRY;
  } else {
    res = sn_check_entry(entry, real, err, cap);
  }
  if (res != SN_OK) {
    sn_plugin_library_close(handle);
    sn_plugin_file_close(&file);
    return res;
  }
  int32_t library = r->libraries.count++;
  sn_library *lib = r->libraries.data + library;
  memset(lib, 0, sizeof(*lib));
  lib->handle = handle;
  lib->file = file;
  snprintf(lib->name, sizeof(lib->name), "%s", entry->library_name ? entry->library_name : "?");
  res = sn_register_entry(r, entry, library, lib->file.path, err, cap);
  if (res != SN_OK) {
    sn_plugin_library_close(handle);
    sn_plugin_file_close(&file);
  }
  return res;
}
#else
sn_result sn_registry_load_plugin_checked(sn_registry *r, const char *path, sn_plugin_checked_fcn *checked,
                                          void *context, char *err, size_t cap) {
  (void)checked, (void)context;
  if (err && cap) err[0] = '\0';
  if (r == NULL) return SN_ERR_NULL;
  if (path == NULL) return sn_set_err(err, cap, "plugin path is NULL"), SN_ERR_NULL;
  sn_set_err(err, cap,
             "%s: this build of Sinew loads no files (SINEW_DLOPEN off): link the plugin in and register it with "
             "sn_registry_add_static",
             path);
  return SN_ERR_PLUGIN_OPEN;
}
#endif

sn_result sn_registry_load_plugin(sn_registry *r, const char *path, char *err, size_t cap) {
  return sn_registry_load_plugin_checked(r, path, NULL, NULL, err, cap);
}

static int sn_cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

typedef struct sn_dir_names {
  sn_registry *registry;
  char **names;
  size_t count, capacity;
  sn_result res;
} sn_dir_names;

/* Keeps the names that end in SN_PLUGIN_SUFFIX (".so"; ".dll" on Windows). */
static bool sn_collect_plugin_name(const char *name, void *context) {
  sn_dir_names *d = context;
  size_t len = strlen(name), suffix = strlen(SN_PLUGIN_SUFFIX);
  if (len <= suffix || strcmp(name + len - suffix, SN_PLUGIN_SUFFIX) != 0) return true;
  if (d->count == d->capacity) {
    size_t cap2 = d->capacity ? 2 * d->capacity : 16;
    char **grown = sn_mem_realloc(&d->registry->mem, d->names, d->capacity * sizeof(char *), cap2 * sizeof(char *));
    if (grown == NULL) {
      d->res = SN_ERR_OUT_OF_MEMORY;
      return false;
    }
    d->names = grown;
    d->capacity = cap2;
  }
  d->names[d->count] = sn_mem_alloc(&d->registry->mem, len + 1);
  if (d->names[d->count] == NULL) {
    d->res = SN_ERR_OUT_OF_MEMORY;
    return false;
  }
  memcpy(d->names[d->count], name, len + 1);
  d->count++;
  return true;
}

sn_result sn_registry_load_directory(sn_registry *r, const char *dir, sn_plugin_load_fcn *fcn, void *context) {
  if (r == NULL || dir == NULL) return SN_ERR_NULL;
  if (!SN_HAVE_DLOPEN) return SN_ERR_PLUGIN_OPEN; /* no files are loaded (sn_registry_add_static) */
  sn_dir_names d = {r, NULL, 0, 0, SN_OK};
  if (!sn_dir_list(dir, sn_collect_plugin_name, &d)) return SN_ERR_PLUGIN_OPEN;
  sn_result res = d.res;
  char **names = d.names;
  size_t count = d.count, capacity = d.capacity;
  if (res == SN_OK && count > 1) qsort(names, count, sizeof(char *), sn_cmp_str);
  for (size_t i = 0; i < count; ++i) {
    if (res == SN_OK) {
      char path[SN_PATH_MAX], msg[512];
      msg[0] = '\0';
      snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
      sn_result one = sn_registry_load_plugin(r, path, msg, sizeof(msg));
      if (fcn) fcn(path, one, msg, context);
    }
    sn_mem_free(&r->mem, names[i], strlen(names[i]) + 1);
  }
  sn_mem_free(&r->mem, names, capacity * sizeof(char *));
  return res;
}

int32_t sn_registry_get_type_count(const sn_registry *r) { return r ? r->types.count : 0; }

const sn_constraint_type *sn_registry_get_type(const sn_registry *r, int32_t index) {
  if (r == NULL || index < 0 || index >= r->types.count) return NULL;
  return &r->types.data[index]->type;
}

const sn_constraint_type *sn_registry_find_type(const sn_registry *r, const char *name) {
  if (r == NULL || name == NULL) return NULL;
  int32_t i = sn_find_index(r, name);
  return i < 0 ? NULL : &r->types.data[i]->type;
}

const char *sn_registry_get_type_origin(const sn_registry *r, const char *name) {
  if (r == NULL || name == NULL) return NULL;
  int32_t i = sn_find_index(r, name);
  return i < 0 ? NULL : sn_origin(r, r->types.data[i]->library);
}

/* ---------------------------------------------------------- search path */

#ifndef SN_INSTALL_LIBDIR
#define SN_INSTALL_LIBDIR "lib" /* the build sets it (CMAKE_INSTALL_LIBDIR, relative) */
#endif

sn_result sn_default_plugin_dir(char *out, size_t capacity) {
  if (out == NULL) return SN_ERR_NULL;
  if (capacity > 0) out[0] = '\0';
  char self[SN_PATH_MAX];
  if (!SN_HAVE_DLOPEN || !sn_self_path(self, sizeof self)) return SN_ERR_NOT_FOUND;
  char *slash = (char *)sn_path_last_separator(self);
  if (slash == NULL) return SN_ERR_NOT_FOUND;
  *slash = '\0'; /* the folder the library (or the program it is linked into) is in */
  const char *const tails[2] = {"/sinew/plugins", "/../" SN_INSTALL_LIBDIR "/sinew/plugins"};
  for (int k = 0; k < 2; ++k) {
    char candidate[SN_PATH_MAX + 64], real[SN_PATH_MAX];
    snprintf(candidate, sizeof candidate, "%s%s", self, tails[k]);
    if (!sn_path_is_dir(candidate) || !sn_path_real(candidate, real, sizeof real)) continue;
    if (strlen(real) + 1 > capacity) return SN_ERR_CAPACITY;
    memcpy(out, real, strlen(real) + 1);
    return SN_OK;
  }
  return SN_ERR_NOT_FOUND;
}

int32_t sn_plugin_search_path(sn_plugin_dir_fcn *fcn, void *context) {
  if (fcn == NULL) return 0;
  int32_t seen = 0;
  const char *env = getenv("SINEW_PLUGIN_PATH");
  for (const char *p = env; p != NULL && *p;) {
    const char *sep = strchr(p, SN_PATH_LIST_SEPARATOR);
    size_t len = sep ? (size_t)(sep - p) : strlen(p);
    if (len > 0 && len < SN_PATH_MAX) {
      char dir[SN_PATH_MAX];
      memcpy(dir, p, len);
      dir[len] = '\0';
      seen++;
      if (!fcn(dir, context)) return seen;
    }
    p = sep ? sep + 1 : p + len;
  }
  char dir[SN_PATH_MAX];
  if (sn_default_plugin_dir(dir, sizeof dir) == SN_OK) {
    seen++;
    fcn(dir, context);
  }
  return seen;
}

typedef struct sn_search_load {
  sn_registry *registry;
  sn_plugin_load_fcn *fcn;
  void *context;
  int32_t read;
} sn_search_load;

static bool sn_load_search_dir(const char *dir, void *context) {
  sn_search_load *s = context;
  if (sn_registry_load_directory(s->registry, dir, s->fcn, s->context) == SN_OK) s->read++;
  return true;
}

sn_result sn_registry_load_search_path(sn_registry *r, sn_plugin_load_fcn *fcn, void *context) {
  if (r == NULL) return SN_ERR_NULL;
  sn_search_load s = {r, fcn, context, 0};
  sn_plugin_search_path(sn_load_search_dir, &s);
  return s.read > 0 ? SN_OK : SN_ERR_NOT_FOUND;
}
