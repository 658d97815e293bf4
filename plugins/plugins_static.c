/* Every shipped constraint type linked in (libsinew_plugins.a): the plugin
 * sources are built with SN_PLUGIN_STATIC=<name>, so each defines
 * sn_plugin_entry_<name>, registered here through sn_registry_add_static. */
#include "sinew/plugins_static.h"

#include <stddef.h>

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

sn_result sn_registry_add_shipped(sn_registry *registry, char *err, size_t err_capacity) {
  const sn_plugin_entry *const entries[] = {
      &sn_plugin_entry_revolute,  &sn_plugin_entry_prismatic,     &sn_plugin_entry_wheel,
      &sn_plugin_entry_motor,     &sn_plugin_entry_mouse,         &sn_plugin_entry_distance,
      &sn_plugin_entry_weld,      &sn_plugin_entry_xpbd_distance, &sn_plugin_entry_xpbd_area,
      &sn_plugin_entry_xpbd_bend, &sn_plugin_entry_xpbd_tether,   &sn_plugin_entry_attach,
  };
  if (err != NULL && err_capacity > 0) err[0] = '\0';
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; ++i) {
    sn_result r = sn_registry_add_static(registry, entries[i], err, err_capacity);
    if (r != SN_OK) return r;
  }
  return SN_OK;
}
