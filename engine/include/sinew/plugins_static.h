/* The shipped constraint types linked into the program (library
 * libsinew_plugins.a: CMake sinew::plugins_static, pkg-config
 * sinew-plugins-static), for programs that load no plugin files: static
 * builds, SINEW_DLOPEN off, platforms without dlopen. */
#ifndef SINEW_PLUGINS_STATIC_H
#define SINEW_PLUGINS_STATIC_H

#include "sinew/sinew.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers every shipped type (revolute, prismatic, wheel, motor, mouse,
/// distance, weld, xpbd_distance, xpbd_area, xpbd_bend, xpbd_tether, attach,
/// filter, pulley, gear, rotary_limit, ratchet)
/// through sn_registry_add_static. Each plugin's types come all or none; on
/// the first failure it stops, returns why and err says which. Registering
/// them twice is a no-op.
SN_API sn_result sn_registry_add_shipped(sn_registry *registry, char *err, size_t err_capacity);

/// Registers one shipped plugin, named as its file would be without ".so"
/// ("revolute", "xpbd_area", ...; each shipped plugin has one type of that
/// name), through sn_registry_add_static: the same result, and a no-op if
/// it is registered already. SN_ERR_NOT_FOUND if no shipped plugin has that
/// name (err lists the names); SN_ERR_NULL for a NULL registry or name.
SN_API sn_result sn_registry_add_shipped_plugin(sn_registry *registry, const char *name, char *err,
                                                size_t err_capacity);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_PLUGINS_STATIC_H */
