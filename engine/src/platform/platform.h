/* The platform layer (internal): everything Sinew asks of the operating
 * system, behind one small interface. CMake compiles one implementation of
 * each part: *_posix.c (Linux and other POSIX systems) or *_win32.c
 * (Windows).
 *
 *   platform.h       clocks, yielding, paths, the library's own file, folders
 *                    (platform_posix.c, platform_win32.c)
 *   file_io.h        reading a file without hanging, atomic replacement
 *                    (file_io_posix.c, file_io_win32.c)
 *   plugin_file.h    opening, checking and loading a plugin library, its
 *                    symbols (plugin_file_posix.c, plugin_file_win32.c)
 *   threads.h        mutex, condition variable, thread for the thread pool
 *                    (header only: pthreads or Win32)
 *
 * Paths are char strings in UTF-8 (converted to UTF-16 on Windows), with
 * '/' as separator; Windows accepts '\\' too. */
#ifndef SN_PLATFORM_PLATFORM_H
#define SN_PLATFORM_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

/// Longest path handled, in bytes with the terminating zero (Linux's
/// PATH_MAX; a fixed number, so every unit sees the same struct sizes
/// whatever feature macros it defines).
#define SN_PATH_MAX 4096

#if defined(_WIN32)
/// File name ending of a plugin library.
#define SN_PLUGIN_SUFFIX ".dll"
/// Separator of the folders in SINEW_PLUGIN_PATH (';': a drive has a ':').
#define SN_PATH_LIST_SEPARATOR ';'
#else
#define SN_PLUGIN_SUFFIX       ".so"
#define SN_PATH_LIST_SEPARATOR ':'
#endif

/// printf-style checking of a function's format and arguments (GCC,
/// clang). MinGW: the C99 printf family of its runtime (gnu_printf, with
/// __USE_MINGW_ANSI_STDIO), not msvcrt's.
#if defined(__MINGW32__)
#define SN_PRINTF(fmt, args) __attribute__((format(gnu_printf, fmt, args)))
#elif defined(__GNUC__) || defined(__clang__)
#define SN_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define SN_PRINTF(fmt, args)
#endif

/// A monotonic clock in milliseconds (profiles, stall detection, timing).
double sn_clock_ms(void);

/// CPU time the calling thread has used, in milliseconds (benchmarks).
double sn_thread_cpu_ms(void);

/// Gives the rest of the calling thread's time slice to another thread.
void sn_thread_yield(void);

/// True if c separates folders in a path ('/'; on Windows '\\' too).
static inline bool sn_path_is_separator(char c) {
#if defined(_WIN32)
  return c == '/' || c == '\\';
#else
  return c == '/';
#endif
}

/// The last separator in path, or NULL.
static inline const char *sn_path_last_separator(const char *path) {
  const char *last = NULL;
  for (const char *c = path; *c; ++c) {
    if (sn_path_is_separator(*c)) last = c;
  }
  return last;
}

/// True if path names a folder (following symbolic links).
bool sn_path_is_dir(const char *path);

/// The absolute path of path without "." or ".." (and, on POSIX, without
/// symbolic links: realpath) into out; false if it does not exist or does
/// not fit.
bool sn_path_real(const char *path, char *out, size_t cap);

/// The file of the library (or program) this code is linked into, as an
/// absolute path: dladdr on POSIX, GetModuleHandleEx + GetModuleFileName on
/// Windows. false if the system cannot tell (or the build loads no files,
/// SN_HAVE_DLOPEN 0, where the dynamic loader is never called).
bool sn_self_path(char *out, size_t cap);

/// Called with the name (not the path) of each entry of a folder; return
/// false to stop.
typedef bool sn_dir_entry_fcn(const char *name, void *context);

/// Lists the entries of dir, "." and ".." excluded, in the system's order.
/// false if the folder cannot be read (a stop by fcn is no failure).
bool sn_dir_list(const char *dir, sn_dir_entry_fcn *fcn, void *context);

#endif /* SN_PLATFORM_PLATFORM_H */
