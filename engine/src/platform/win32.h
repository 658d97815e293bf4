/* Helpers of the Windows implementation of the platform layer (internal;
 * included by the *_win32.c files only): UTF-8 paths to UTF-16 and back,
 * the system's text for an error code. */
#ifndef SN_PLATFORM_WIN32_H
#define SN_PLATFORM_WIN32_H

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "platform/platform.h"

/// Wide characters a path may take (SN_PATH_MAX bytes of UTF-8 never need more).
#define SN_WPATH_MAX SN_PATH_MAX

/// UTF-8 to UTF-16 into out (cap wide characters); false if s is no valid
/// UTF-8 or does not fit.
static inline bool sn_win_wide(const char *s, wchar_t *out, int cap) {
  return MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, out, cap) > 0;
}

/// UTF-16 to UTF-8 into out (cap bytes); false if it does not fit.
static inline bool sn_win_utf8(const wchar_t *w, char *out, size_t cap) {
  int limit = cap > 0x7fffffff ? 0x7fffffff : (int)cap;
  return WideCharToMultiByte(CP_UTF8, 0, w, -1, out, limit, NULL, NULL) > 0;
}

/// The system's text for the error code e (GetLastError), one line without
/// the final period.
static inline void sn_win_reason(DWORD e, char *buf, size_t cap) {
  if (buf == NULL || cap == 0) return;
  wchar_t w[256];
  DWORD n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, w, 256, NULL);
  while (n > 0 && (w[n - 1] == L'\r' || w[n - 1] == L'\n' || w[n - 1] == L' ' || w[n - 1] == L'.')) w[--n] = L'\0';
  if (n == 0 || !sn_win_utf8(w, buf, cap)) snprintf(buf, cap, "Windows error %lu", (unsigned long)e);
}

/// A name GetFinalPathNameByHandle returned, without its "\\?\" prefix
/// ("\\?\UNC\server\share" becomes "\\server\share"), in place.
static inline void sn_win_strip_final_prefix(wchar_t *w) {
  if (wcsncmp(w, L"\\\\?\\UNC\\", 8) == 0) {
    memmove(w + 2, w + 8, (wcslen(w + 8) + 1) * sizeof(wchar_t));
  } else if (wcsncmp(w, L"\\\\?\\", 4) == 0) {
    memmove(w, w + 4, (wcslen(w + 4) + 1) * sizeof(wchar_t));
  }
}

/// The name of an open file or folder, symbolic links resolved, as a plain
/// path (sn_win_strip_final_prefix); false if the system cannot tell.
static inline bool sn_win_final_path(HANDLE h, wchar_t *out, DWORD cap) {
  DWORD n = GetFinalPathNameByHandleW(h, out, cap, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
  if (n == 0 || n >= cap) return false;
  sn_win_strip_final_prefix(out);
  return true;
}

#endif /* SN_PLATFORM_WIN32_H */
