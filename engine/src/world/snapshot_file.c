/* Snapshots: files (sn_world_write_snapshot, sn_world_read_snapshot), the
 * bytes of sn_world_save_snapshot and sn_world_load_snapshot. */
#include "world/snapshot_codec.h"

#include <stdio.h>

sn_result sn_snapshot_write_file(sn_world *w, const char *path, int fault) {
  if (w == NULL) return SN_ERR_NULL;
  if (path == NULL) return sn_world_error(w, SN_ERR_NULL, "sn_world_write_snapshot: path is NULL");
  if (w->stepping) return sn_world_locked_error(w, "sn_world_write_snapshot");
  size_t size = 0;
  sn_result r = sn_world_save_snapshot(w, NULL, 0, &size);
  if (r != SN_OK) return r;
  uint8_t *bytes = sn_mem_alloc(&w->mem, size);
  if (bytes == NULL) return sn_world_error(w, SN_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes for the snapshot", size);
  r = sn_world_save_snapshot(w, bytes, size, &size);
  if (r != SN_OK) {
    sn_mem_free(&w->mem, bytes, size);
    return r;
  }
  char why[768];
  bool ok = sn_file_write_atomic(path, bytes, size, fault, why, sizeof why);
  sn_mem_free(&w->mem, bytes, size);
  if (!ok)
    return sn_world_error(w, SN_ERR_IO, "sn_world_write_snapshot %s: %s (the old file, if any, is unchanged)", path,
                          why);
  return SN_OK;
}

sn_result sn_world_write_snapshot(sn_world *w, const char *path) {
  return sn_snapshot_write_file(w, path, SN_SNAPSHOT_FAULT_NONE);
}

sn_result sn_world_read_snapshot(const char *path, const sn_world_def *def, sn_world **out, char *err,
                                 size_t err_capacity) {
  sn_loader l = {err, err_capacity, SN_OK};
  if (err != NULL && err_capacity > 0) err[0] = '\0';
  if (out == NULL) return sn_load_fail(&l, SN_ERR_NULL, "out is NULL");
  *out = NULL;
  if (path == NULL) return sn_load_fail(&l, SN_ERR_NULL, "path is NULL");
  if (def != NULL && def->cookie != SN_DEF_COOKIE)
    return sn_load_fail(&l, SN_ERR_UNINITIALIZED_DEF, "start the world def from sn_default_world_def()");
  sn_mem mem;
  sn_mem_init(&mem, def != NULL ? &def->allocator : NULL);
  sn_file_reader file;
  char why[768];
  if (!sn_file_reader_open(&file, path, why, sizeof why))
    return sn_load_fail(&l, SN_ERR_IO, "sn_world_read_snapshot %s: %s", path, why);
  if (file.size == 0) {
    sn_file_reader_close(&file);
    return sn_load_fail(&l, SN_ERR_SNAPSHOT_CORRUPT, "%s is empty", path);
  }
  size_t size = (size_t)file.size;
  uint8_t *bytes = sn_mem_alloc(&mem, size);
  if (bytes == NULL) {
    sn_file_reader_close(&file);
    return sn_load_fail(&l, SN_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes for %s", size, path);
  }
  size_t got = 0;
  char reason[128];
  reason[0] = '\0';
  while (got < size) {
    ptrdiff_t k = sn_file_reader_read(&file, bytes + got, size - got, reason, sizeof reason);
    if (k <= 0) break;
    got += (size_t)k;
  }
  sn_file_reader_close(&file);
  sn_result r;
  if (got != size) {
    if (reason[0] == '\0') snprintf(reason, sizeof reason, "the file became shorter while being read");
    r = sn_load_fail(&l, SN_ERR_IO, "cannot read %s: %s", path, reason);
  } else {
    r = sn_world_load_snapshot(bytes, size, def, out, err, err_capacity);
  }
  sn_mem_free(&mem, bytes, size);
  return r;
}
