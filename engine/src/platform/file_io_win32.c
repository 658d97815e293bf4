/* Files on Windows: reading, atomic replacement (see file_io.h). */
#include "platform/file_io.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/win32.h"

void sn_file_reason(int e, char *buf, size_t cap) {
  if (buf == NULL || cap == 0) return;
#if defined(_MSC_VER)
  if (strerror_s(buf, cap, e) != 0) snprintf(buf, cap, "errno %d", e);
#else
  snprintf(buf, cap, "%s", strerror(e)); /* the Windows runtime's buffer is per thread */
#endif
}

static void sn_why_win(char *why, size_t cap, const char *what, const char *path, DWORD e) {
  if (why == NULL || cap == 0) return;
  char reason[256];
  sn_win_reason(e, reason, sizeof reason);
  snprintf(why, cap, "cannot %s %s: %s", what, path, reason);
}

static void sn_set_why(char *why, size_t cap, const char *text) {
  if (why != NULL && cap > 0) snprintf(why, cap, "%s", text);
}

bool sn_file_reader_open(sn_file_reader *file, const char *path, char *why, size_t cap) {
  file->handle = -1;
  file->size = 0;
  wchar_t w[SN_WPATH_MAX];
  char reason[256];
  if (!sn_win_wide(path, w, SN_WPATH_MAX)) {
    sn_set_why(why, cap, "cannot open: the path is no valid UTF-8 or too long");
    return false;
  }
  DWORD a = GetFileAttributesW(w);
  if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY)) {
    sn_set_why(why, cap, "not a regular file (a folder)");
    return false;
  }
  HANDLE h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                         FILE_ATTRIBUTE_NORMAL, NULL);
  if (h == INVALID_HANDLE_VALUE) {
    sn_win_reason(GetLastError(), reason, sizeof reason);
    if (why != NULL && cap > 0) snprintf(why, cap, "cannot open: %s", reason);
    return false;
  }
  if (GetFileType(h) != FILE_TYPE_DISK) {
    CloseHandle(h);
    sn_set_why(why, cap, "not a regular file (a device or pipe)");
    return false;
  }
  LARGE_INTEGER size;
  if (!GetFileSizeEx(h, &size) || size.QuadPart < 0) {
    sn_win_reason(GetLastError(), reason, sizeof reason);
    CloseHandle(h);
    if (why != NULL && cap > 0) snprintf(why, cap, "cannot check: %s", reason);
    return false;
  }
  file->handle = (intptr_t)h;
  file->size = (uint64_t)size.QuadPart;
  return true;
}

ptrdiff_t sn_file_reader_read(sn_file_reader *file, void *buffer, size_t n, char *why, size_t cap) {
  DWORD want = n > (1u << 30) ? (DWORD)(1u << 30) : (DWORD)n, got = 0;
  if (!ReadFile((HANDLE)file->handle, buffer, want, &got, NULL)) {
    sn_win_reason(GetLastError(), why, cap);
    return -1;
  }
  return (ptrdiff_t)got;
}

void sn_file_reader_close(sn_file_reader *file) {
  if (file->handle != -1) CloseHandle((HANDLE)file->handle);
  file->handle = -1;
}

bool sn_file_is_regular(const char *path) {
  wchar_t w[SN_WPATH_MAX];
  if (!sn_win_wide(path, w, SN_WPATH_MAX)) return false;
  DWORD a = GetFileAttributesW(w);
  return a != INVALID_FILE_ATTRIBUTES && (a & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_DEVICE)) == 0;
}

static bool sn_write_all(HANDLE h, const unsigned char *p, size_t n) {
  while (n > 0) {
    DWORD want = n > (1u << 30) ? (DWORD)(1u << 30) : (DWORD)n, put = 0;
    if (!WriteFile(h, p, want, &put, NULL)) return false;
    if (put == 0) {
      SetLastError(ERROR_WRITE_FAULT);
      return false;
    }
    p += put;
    n -= put;
  }
  return true;
}

/* "<dir>/<base>.tmp-XXXXXXXX": eight characters [0-9a-z] mixed from the
 * clock, the process, the thread and the attempt (the file is created with
 * CREATE_NEW: a name that exists is drawn again). */
static bool sn_temp_name(wchar_t *tmp, size_t cap, const wchar_t *dir, const wchar_t *base, int attempt) {
  LARGE_INTEGER t;
  QueryPerformanceCounter(&t);
  uint64_t v = (uint64_t)t.QuadPart * 0x9e3779b97f4a7c15ull ^ ((uint64_t)GetCurrentProcessId() << 32) ^
               ((uint64_t)GetCurrentThreadId() << 12) ^ (uint64_t)(attempt + 1) * 0xbf58476d1ce4e5b9ull;
  v ^= v >> 31;
  wchar_t suffix[9];
  static const wchar_t digits[] = L"0123456789abcdefghijklmnopqrstuvwxyz";
  for (int i = 0; i < 8; ++i) {
    suffix[i] = digits[v % 36u];
    v /= 36u;
  }
  suffix[8] = L'\0';
  size_t n = wcslen(base);
  int w = swprintf(tmp, cap, L"%ls\\%.*ls.tmp-%ls", dir, (int)(n > 200 ? 200 : n), base, suffix);
  return w > 0 && (size_t)w < cap;
}

bool sn_file_write_atomic(const char *path, const void *bytes, size_t size, int fault, char *why, size_t cap) {
  if (why != NULL && cap > 0) why[0] = '\0';
  int step_fault = fault & SN_FILE_FAULT_MASK;
  wchar_t target[SN_WPATH_MAX], dir[SN_WPATH_MAX], tmp[SN_WPATH_MAX];
  char target8[SN_PATH_MAX], tmp8[SN_PATH_MAX], reason[256];
  if (!sn_win_wide(path, target, SN_WPATH_MAX)) {
    if (why != NULL && cap > 0) snprintf(why, cap, "cannot write %s: the path is no valid UTF-8 or too long", path);
    return false;
  }
  snprintf(target8, sizeof target8, "%s", path);
  DWORD a = GetFileAttributesW(target);
  if (a != INVALID_FILE_ATTRIBUTES) {
    if (a & FILE_ATTRIBUTE_REPARSE_POINT) {
      /* a symbolic link: replace the file it points to, keep the link */
      HANDLE h = CreateFileW(target, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                             OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
      bool ok = h != INVALID_HANDLE_VALUE && sn_win_final_path(h, target, SN_WPATH_MAX);
      DWORD e = GetLastError();
      if (h != INVALID_HANDLE_VALUE) CloseHandle(h);
      if (!ok) {
        sn_win_reason(e, reason, sizeof reason);
        if (why != NULL && cap > 0)
          snprintf(why, cap, "%s is a symbolic link to nothing that can be written (%s)", path, reason);
        return false;
      }
      sn_win_utf8(target, target8, sizeof target8);
      a = GetFileAttributesW(target);
      if (a == INVALID_FILE_ATTRIBUTES) {
        sn_why_win(why, cap, "check", target8, GetLastError());
        return false;
      }
    }
    if (a & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_DEVICE)) {
      if (why != NULL && cap > 0)
        snprintf(why, cap, "%s exists and is not a regular file (%s)", target8,
                 (a & FILE_ATTRIBUTE_DIRECTORY) ? "a folder" : "a device");
      return false;
    }
  } else {
    DWORD e = GetLastError();
    if (e != ERROR_FILE_NOT_FOUND && e != ERROR_PATH_NOT_FOUND) {
      sn_why_win(why, cap, "check", path, e);
      return false;
    }
  }
  /* the folder and the name of the target */
  size_t n = wcslen(target), cut = n;
  while (cut > 0 && target[cut - 1] != L'/' && target[cut - 1] != L'\\') --cut;
  const wchar_t *base = target + cut;
  if (cut == 0)
    wcscpy(dir, L".");
  else if (cut == 1 || (cut == 3 && target[1] == L':'))
    swprintf(dir, SN_WPATH_MAX, L"%.*ls", (int)cut, target); /* "\" or "C:\": the root keeps its separator */
  else
    swprintf(dir, SN_WPATH_MAX, L"%.*ls", (int)(cut - 1), target);
  char dir8[SN_PATH_MAX];
  sn_win_utf8(dir, dir8, sizeof dir8);

  HANDLE h = INVALID_HANDLE_VALUE;
  DWORD e = 0;
  for (int attempt = 0; attempt < 100 && h == INVALID_HANDLE_VALUE; ++attempt) {
    if (!sn_temp_name(tmp, SN_WPATH_MAX, dir, base, attempt)) {
      sn_why_win(why, cap, "create a temporary file in", dir8, ERROR_FILENAME_EXCED_RANGE);
      return false;
    }
    h = CreateFileW(tmp, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
    e = GetLastError();
    if (h == INVALID_HANDLE_VALUE && e != ERROR_FILE_EXISTS && e != ERROR_ALREADY_EXISTS) break;
  }
  if (h == INVALID_HANDLE_VALUE) {
    sn_why_win(why, cap, "create a temporary file in", dir8, e);
    return false;
  }
  sn_win_utf8(tmp, tmp8, sizeof tmp8);
  const char *what = tmp8, *failed = NULL;
  size_t first = step_fault == SN_FILE_FAULT_WRITE || step_fault == SN_FILE_FAULT_EXIT ? size / 2 : size;
  if (!sn_write_all(h, bytes, first)) {
    failed = "write the new file", e = GetLastError();
  } else if (step_fault == SN_FILE_FAULT_EXIT) {
    _Exit(70); /* the named temporary file stays: Windows has no unnamed one */
  } else if (step_fault == SN_FILE_FAULT_WRITE) {
    failed = "write the new file", e = ERROR_WRITE_FAULT;
  }
  if (failed == NULL && (step_fault == SN_FILE_FAULT_SYNC || !FlushFileBuffers(h)))
    failed = "flush the new file", e = step_fault == SN_FILE_FAULT_SYNC ? ERROR_WRITE_FAULT : GetLastError();
  if (!CloseHandle(h) && failed == NULL) failed = "close the new file", e = GetLastError();
  if (failed == NULL && (step_fault == SN_FILE_FAULT_RENAME ||
                         !MoveFileExW(tmp, target, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)))
    failed = "rename the new file to", e = step_fault == SN_FILE_FAULT_RENAME ? ERROR_WRITE_FAULT : GetLastError(),
    what = target8;
  if (failed != NULL) {
    DeleteFileW(tmp);
    sn_why_win(why, cap, failed, what, e);
    return false;
  }
  return true;
}
