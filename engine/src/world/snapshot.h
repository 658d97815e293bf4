/* Snapshots (internal): the file writer with a failure hook for the tests.
 * The public API is in sinew/sinew.h (sn_world_save_snapshot and friends). */
#ifndef SN_WORLD_SNAPSHOT_H
#define SN_WORLD_SNAPSHOT_H

#include "platform/file_io.h"
#include "sinew/sinew.h"

/// The format this library writes (a u32 at byte 8 of a snapshot), and the
/// oldest it reads: a format adds to the one before it (world settings, the
/// format column of SN_WORLD_SETTINGS), so this library reads every format
/// from the oldest on; a snapshot of an older format saves back in this one.
#define SN_SNAPSHOT_FORMAT        7u
#define SN_SNAPSHOT_OLDEST_FORMAT 3u

/// Where sn_snapshot_write_file pretends to fail (tests only): the
/// sn_file_fault values of platform/file_io.h.
typedef enum sn_snapshot_fault {
  SN_SNAPSHOT_FAULT_NONE = SN_FILE_FAULT_NONE,
  SN_SNAPSHOT_FAULT_WRITE = SN_FILE_FAULT_WRITE,   ///< after half of the bytes reached the temporary file
  SN_SNAPSHOT_FAULT_SYNC = SN_FILE_FAULT_SYNC,     ///< at fsync of the temporary file
  SN_SNAPSHOT_FAULT_RENAME = SN_FILE_FAULT_RENAME, ///< at the rename over path
  SN_SNAPSHOT_FAULT_EXIT = SN_FILE_FAULT_EXIT,     ///< _exit(70) half way: a process killed while writing
  SN_SNAPSHOT_NAMED_TEMP = SN_FILE_NAMED_TEMP      ///< flag: a named temporary file from the start
} sn_snapshot_fault;

/// sn_world_write_snapshot with an injected failure (sn_snapshot_fault,
/// optionally | SN_SNAPSHOT_NAMED_TEMP): the temporary file is removed and
/// path left as it was, as for a real failure at that point.
sn_result sn_snapshot_write_file(sn_world *world, const char *path, int fault);

/// FNV-1a (64 bit) over bytes, continuing from h (start with
/// SN_SNAPSHOT_FNV_BASIS): the snapshot's checksum.
#define SN_SNAPSHOT_FNV_BASIS 0xcbf29ce484222325ull
uint64_t sn_snapshot_fnv1a(uint64_t h, const void *bytes, size_t n);

/// Byte offset of the checksum trailer: the last 8 bytes of a snapshot
/// (little-endian FNV-1a of everything before it).
#define SN_SNAPSHOT_TRAILER_BYTES 8

#endif /* SN_WORLD_SNAPSHOT_H */
