/* Plugin files (internal, part of the platform layer: platform.h): opening
 * a plugin once, checking the file and every folder above it, and loading
 * that same open file; its symbols; unloading. The public entry points are
 * sn_registry_load_plugin / sn_registry_load_directory (sinew/sinew.h);
 * docs/plugins.md lists the rules. plugin_file_posix.c (dlopen) or
 * plugin_file_win32.c (LoadLibraryEx) implements it; the comments below
 * describe POSIX, the Windows differences are in plugin_file_win32.c. */
#ifndef SN_PLATFORM_PLUGIN_FILE_H
#define SN_PLATFORM_PLUGIN_FILE_H

#include <stdint.h>

#include "platform/platform.h"
#include "sinew/sinew.h"

/// A plugin file opened for loading.
typedef struct sn_plugin_file {
  intptr_t fd;            ///< read-only descriptor (Windows: HANDLE) of the checked file, -1 when closed
  uint64_t dev;           ///< device and inode of the checked file (Windows: volume serial, file index)
  uint64_t ino;           ///<
  char path[SN_PATH_MAX]; ///< absolute path of the open file, without symbolic links
} sn_plugin_file;

/// Opens path once (no symbolic link at the file, never blocking) and checks
/// the open file: a regular file owned by root or the effective user, not
/// writable by its group or others; then every folder from the root down to
/// the file's own: owned by root or the effective user and not writable by
/// group or others, except root-owned folders with the sticky bit above the
/// file's own folder; and that the file is still the one in its folder.
/// SN_OK fills *file (close it with sn_plugin_file_close); else err says
/// which path broke which rule (SN_ERR_PLUGIN_INSECURE_PATH) or why the
/// file cannot be opened (SN_ERR_PLUGIN_OPEN), and nothing stays open.
sn_result sn_plugin_file_open(const char *path, sn_plugin_file *file, char *err, size_t cap);

/// dlopen (RTLD_NOW | RTLD_LOCAL) of the open descriptor through
/// /proc/self/fd, never by the file's name; then checks that the library
/// the loader returned maps the checked file (the loader matches names of
/// libraries already loaded, and an earlier descriptor of the same number
/// may have named another one): if not, it is released and the load is
/// tried again under another descriptor number. The descriptor the library
/// was loaded through is kept in file->fd: keep it open while the library
/// is loaded. NULL (err says why) if the system cannot load a descriptor or
/// the file is no loadable shared object.
void *sn_plugin_file_load(sn_plugin_file *file, char *err, size_t cap);

/// Closes the descriptor (after sn_plugin_library_close of the library
/// loaded through it).
void sn_plugin_file_close(sn_plugin_file *file);

/// The address of the symbol name in a library sn_plugin_file_load
/// returned (dlsym, GetProcAddress), or NULL.
void *sn_plugin_library_symbol(void *library, const char *name);

/// Releases a library sn_plugin_file_load returned (dlclose, FreeLibrary).
void sn_plugin_library_close(void *library);

/// Called by sn_registry_load_plugin_checked after every check passed and
/// before the library is loaded (tests replace the file there).
typedef void sn_plugin_checked_fcn(const char *path, void *context);

/// sn_registry_load_plugin with a callback between the checks and the load.
sn_result sn_registry_load_plugin_checked(sn_registry *registry, const char *path, sn_plugin_checked_fcn *checked,
                                          void *context, char *err, size_t cap);

#endif /* SN_PLATFORM_PLUGIN_FILE_H */
