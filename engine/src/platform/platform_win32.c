/* The platform layer on Windows (see platform.h). */
#include "platform/platform.h"

#ifndef SN_HAVE_DLOPEN
#define SN_HAVE_DLOPEN 1 /* the build sets it (CMake option SINEW_DLOPEN) */
#endif

#include <stdint.h>

#include "platform/win32.h"

double sn_clock_ms(void) {
  LARGE_INTEGER f, t;
  if (!QueryPerformanceFrequency(&f) || f.QuadPart <= 0 || !QueryPerformanceCounter(&t)) return 0.0;
  /* whole seconds and the rest apart: no precision lost to a large count */
  int64_t s = t.QuadPart / f.QuadPart, rest = t.QuadPart % f.QuadPart;
  return (double)s * 1e3 + (double)rest * 1e3 / (double)f.QuadPart;
}

double sn_thread_cpu_ms(void) {
  FILETIME created, exited, kernel, user;
  if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user)) return 0.0;
  uint64_t k = ((uint64_t)kernel.dwHighDateTime << 32) | kernel.dwLowDateTime;
  uint64_t u = ((uint64_t)user.dwHighDateTime << 32) | user.dwLowDateTime;
  return (double)(k + u) * 1e-4; /* 100 ns units */
}

void sn_thread_yield(void) { (void)SwitchToThread(); }

bool sn_path_is_dir(const char *path) {
  wchar_t w[SN_WPATH_MAX];
  if (!sn_win_wide(path, w, SN_WPATH_MAX)) return false;
  DWORD a = GetFileAttributesW(w);
  return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) != 0;
}

bool sn_path_real(const char *path, char *out, size_t cap) {
  wchar_t w[SN_WPATH_MAX], full[SN_WPATH_MAX];
  if (!sn_win_wide(path, w, SN_WPATH_MAX)) return false;
  /* the final name of the open file or folder (symbolic links resolved),
   * else the full path of the name as given */
  HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                         OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  if (h == INVALID_HANDLE_VALUE) return false;
  bool ok = sn_win_final_path(h, full, SN_WPATH_MAX);
  CloseHandle(h);
  if (!ok) {
    DWORD n = GetFullPathNameW(w, SN_WPATH_MAX, full, NULL);
    if (n == 0 || n >= SN_WPATH_MAX) return false;
  }
  return sn_win_utf8(full, out, cap);
}

bool sn_self_path(char *out, size_t cap) {
#if SN_HAVE_DLOPEN
  HMODULE self = NULL;
  if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                          (LPCWSTR)(uintptr_t)&sn_self_path, &self))
    return false;
  wchar_t w[SN_WPATH_MAX];
  DWORD n = GetModuleFileNameW(self, w, SN_WPATH_MAX);
  if (n == 0 || n >= SN_WPATH_MAX) return false;
  char name[SN_PATH_MAX];
  return sn_win_utf8(w, name, sizeof name) && sn_path_real(name, out, cap);
#else
  (void)out, (void)cap;
  return false;
#endif
}

bool sn_dir_list(const char *dir, sn_dir_entry_fcn *fcn, void *context) {
  wchar_t w[SN_WPATH_MAX];
  if (!sn_win_wide(dir, w, SN_WPATH_MAX - 2)) return false;
  size_t n = wcslen(w);
  if (n > 0 && w[n - 1] != L'/' && w[n - 1] != L'\\') w[n++] = L'\\';
  w[n++] = L'*';
  w[n] = L'\0';
  WIN32_FIND_DATAW found;
  HANDLE h = FindFirstFileW(w, &found);
  if (h == INVALID_HANDLE_VALUE) return GetLastError() == ERROR_FILE_NOT_FOUND; /* an empty folder */
  do {
    if (wcscmp(found.cFileName, L".") == 0 || wcscmp(found.cFileName, L"..") == 0) continue;
    char name[SN_PATH_MAX];
    if (!sn_win_utf8(found.cFileName, name, sizeof name)) continue;
    if (!fcn(name, context)) break;
  } while (FindNextFileW(h, &found));
  FindClose(h);
  return true;
}
