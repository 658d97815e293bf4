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
/// distance, weld, xpbd_distance, xpbd_area, xpbd_bend, xpbd_tether, attach)
/// through sn_registry_add_static. Each plugin's types come all or none; on
/// the first failure it stops, returns why and err says which. Registering
/// them twice is a no-op.
SN_API sn_result sn_registry_add_shipped(sn_registry *registry, char *err, size_t err_capacity);

#ifdef __cplusplus
}
#endif

#endif /* SINEW_PLUGINS_STATIC_H */
