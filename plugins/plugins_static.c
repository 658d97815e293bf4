/* Every shipped constraint type linked in (libsinew_plugins.a): the plugin
 * sources are built with SN_PLUGIN_STATIC=<name>, so each defines
 * sn_plugin_entry_<name>, registered here through sn_registry_add_static. */
#include "sinew/plugins_static.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "sinew/plugin.h"

SN_DECLARE_STATIC_PLUGIN(revolute);
SN_DECLARE_STATIC_PLUGIN(prismatic);
SN_DECLARE_STATIC_PLUGIN(wheel);
SN_DECLARE_STATIC_PLUGIN(motor);
SN_DECLARE_STATIC_PLUGIN(mouse);
SN_DECLARE_STATIC_PLUGIN(distance);
SN_DECLARE_STATIC_PLUGIN(weld);
SN_DECLARE_STATIC_PLUGIN(xpbd_distance);
SN_DECLARE_STATIC_PLUGIN(xpbd_area);
SN_DECLARE_STATIC_PLUGIN(xpbd_bend);
SN_DECLARE_STATIC_PLUGIN(xpbd_tether);
SN_DECLARE_STATIC_PLUGIN(attach);
SN_DECLARE_STATIC_PLUGIN(filter);
SN_DECLARE_STATIC_PLUGIN(pulley);
SN_DECLARE_STATIC_PLUGIN(gear);
SN_DECLARE_STATIC_PLUGIN(rotary_limit);
SN_DECLARE_STATIC_PLUGIN(ratchet);

/* each plugin under the name of its file (<name>.so) in a build that loads files */
typedef struct shipped_plugin {
  const char *name;
  const sn_plugin_entry *entry;
} shipped_plugin;

#define SHIPPED(name)                                                                                                  \
  { #name, &sn_plugin_entry_##name }
static const shipped_plugin shipped[] = {
    SHIPPED(revolute),     SHIPPED(prismatic), SHIPPED(wheel),         SHIPPED(motor),     SHIPPED(mouse),
    SHIPPED(distance),     SHIPPED(weld),      SHIPPED(xpbd_distance), SHIPPED(xpbd_area), SHIPPED(xpbd_bend),
    SHIPPED(xpbd_tether),  SHIPPED(attach),    SHIPPED(filter),        SHIPPED(pulley),    SHIPPED(gear),
    SHIPPED(rotary_limit), SHIPPED(ratchet),
};
#undef SHIPPED
#define SHIPPED_COUNT (sizeof shipped / sizeof shipped[0])

sn_result sn_registry_add_shipped(sn_registry *registry, char *err, size_t err_capacity) {
  if (err != NULL && err_capacity > 0) err[0] = '\0';
  for (size_t i = 0; i < SHIPPED_COUNT; ++i) {
    sn_result r = sn_registry_add_static(registry, shipped[i].entry, err, err_capacity);
    if (r != SN_OK) return r;
  }
  return SN_OK;
}

sn_result sn_registry_add_shipped_plugin(sn_registry *registry, const char *name, char *err, size_t err_capacity) {
  if (err != NULL && err_capacity > 0) err[0] = '\0';
  if (registry == NULL || name == NULL) return SN_ERR_NULL;
  for (size_t i = 0; i < SHIPPED_COUNT; ++i) {
    if (strcmp(shipped[i].name, name) == 0)
      return sn_registry_add_static(registry, shipped[i].entry, err, err_capacity);
  }
  if (err != NULL && err_capacity > 0) {
    int n = snprintf(err, err_capacity, "no shipped plugin \"%.64s\"; the shipped ones are", name);
    for (size_t i = 0; i < SHIPPED_COUNT && n >= 0 && (size_t)n < err_capacity; ++i)
      n += snprintf(err + n, err_capacity - (size_t)n, "%s %s", i == 0 ? "" : ",", shipped[i].name);
  }
  return SN_ERR_NOT_FOUND;
}
