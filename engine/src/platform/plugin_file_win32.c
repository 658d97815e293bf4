/* Plugin files on Windows (see plugin_file.h): the file is opened once,
 * with sharing that lets others read it but neither write, rename nor
 * delete it, from the checks until the library is unloaded, so the file
 * checked is the file loaded: LoadLibraryEx then loads it by its final name
 * (symbolic links resolved), and the module the loader returns must be
 * that same file (volume serial number and file index).
 *
 * Not done on Windows (see docs/architecture.md): the POSIX checks of the
 * owner and write permission of the file and of every folder above it; an
 * ACL check (owner one of the user, Administrators, SYSTEM, TrustedInstaller,
 * no write access for others) would be their counterpart. */
#ifndef SN_HAVE_DLOPEN
#define SN_HAVE_DLOPEN 1
#endif
#if SN_HAVE_DLOPEN /* else no file is loaded: the whole unit is empty */
#include "platform/plugin_file.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "platform/win32.h"

static sn_result sn_fail(sn_result code, char *err, size_t cap, const char *fmt, ...) SN_PRINTF(4, 5);
static sn_result sn_fail(sn_result code, char *err, size_t cap, const char *fmt, ...) {
  if (err != NULL && cap > 0) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(err, cap, fmt, args);
    va_end(args);
  }
  return code;
}

/* Volume serial number and file index of an open file. */
static bool sn_identity(HANDLE h, uint64_t *dev, uint64_t *ino, DWORD *attributes) {
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(h, &info)) return false;
  *dev = info.dwVolumeSerialNumber;
  *ino = ((uint64_t)info.nFileIndexHigh << 32) | info.nFileIndexLow;
  if (attributes != NULL) *attributes = info.dwFileAttributes;
  return true;
}

sn_result sn_plugin_file_open(const char *path, sn_plugin_file *file, char *err, size_t cap) {
  file->fd = -1;
  file->path[0] = '\0';
  char reason[256];
  wchar_t w[SN_WPATH_MAX];
  if (!sn_win_wide(path, w, SN_WPATH_MAX))
    return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot open: the path is no valid UTF-8 or too long", path);
  /* a first look without opening */
  DWORD a = GetFileAttributesW(w);
  if (a == INVALID_FILE_ATTRIBUTES) {
    DWORD e = GetLastError();
    if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
      return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: no such file", path);
    sn_win_reason(e, reason, sizeof reason);
    return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot open: %s", path, reason);
  }
  if (a & FILE_ATTRIBUTE_REPARSE_POINT)
    return sn_fail(SN_ERR_PLUGIN_INSECURE_PATH, err, cap,
                   "%s: refused, it is a symbolic link (give the path of the file itself)", path);
  if (a & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_DEVICE))
    return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: not a regular file (%s)", path,
                   (a & FILE_ATTRIBUTE_DIRECTORY) ? "a folder" : "a device");
  /* others may read it (the loader does), nobody may change, rename or
   * delete it while it is open */
  HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING,
                         FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
  if (h == INVALID_HANDLE_VALUE) {
    DWORD e = GetLastError();
    if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
      return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: no such file", path);
    sn_win_reason(e, reason, sizeof reason);
    return sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot open: %s", path, reason);
  }
  /* from here on only the open file counts */
  sn_result res = SN_OK;
  DWORD attributes = 0;
  wchar_t final[SN_WPATH_MAX];
  if (GetFileType(h) != FILE_TYPE_DISK || !sn_identity(h, &file->dev, &file->ino, &attributes))
    res = sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot check the open file", path);
  else if (attributes & FILE_ATTRIBUTE_REPARSE_POINT)
    res = sn_fail(SN_ERR_PLUGIN_INSECURE_PATH, err, cap,
                  "%s: refused, it is a symbolic link (give the path of the file itself)", path);
  else if (attributes & FILE_ATTRIBUTE_DIRECTORY)
    res = sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: not a regular file (a folder)", path);
  else if (!sn_win_final_path(h, final, SN_WPATH_MAX) || !sn_win_utf8(final, file->path, sizeof file->path))
    res = sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot tell the name of the open file", path);
  if (res != SN_OK) {
    CloseHandle(h);
    file->path[0] = '\0';
    return res;
  }
  file->fd = (intptr_t)h;
  return SN_OK;
}

void *sn_plugin_file_load(sn_plugin_file *file, char *err, size_t cap) {
  wchar_t w[SN_WPATH_MAX];
  char reason[256];
  if (!sn_win_wide(file->path, w, SN_WPATH_MAX)) {
    sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: cannot load it: the path does not convert", file->path);
    return NULL;
  }
  /* no error boxes from the loader; the plugin's own folder first for the
   * DLLs it needs */
  UINT mode = SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX);
  HMODULE module = LoadLibraryExW(w, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
  DWORD e = GetLastError();
  SetErrorMode(mode);
  if (module == NULL) {
    sn_win_reason(e, reason, sizeof reason);
    sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: not a loadable shared object: %s", file->path, reason);
    return NULL;
  }
  /* the module must be the checked file (a module loaded earlier under the
   * same name would be returned as it is) */
  wchar_t loaded[SN_WPATH_MAX];
  DWORD n = GetModuleFileNameW(module, loaded, SN_WPATH_MAX);
  bool same = false;
  if (n > 0 && n < SN_WPATH_MAX) {
    HANDLE h = CreateFileW(loaded, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    uint64_t dev = 0, ino = 0;
    same = h != INVALID_HANDLE_VALUE && sn_identity(h, &dev, &ino, NULL) && dev == file->dev && ino == file->ino;
    if (h != INVALID_HANDLE_VALUE) CloseHandle(h);
  }
  if (!same) {
    FreeLibrary(module);
    sn_fail(SN_ERR_PLUGIN_OPEN, err, cap, "%s: the loader answered with another library for this name", file->path);
    return NULL;
  }
  return (void *)module;
}

void sn_plugin_file_close(sn_plugin_file *file) {
  if (file->fd != -1) CloseHandle((HANDLE)file->fd);
  file->fd = -1;
}

void *sn_plugin_library_symbol(void *library, const char *name) {
  FARPROC p = GetProcAddress((HMODULE)library, name);
  return (void *)(uintptr_t)p; /* the entry is data: no function pointer is called through this */
}

void sn_plugin_library_close(void *library) { FreeLibrary((HMODULE)library); }
#else
typedef int sn_plugin_file_unused; /* ISO C wants a declaration in every unit */
#endif
