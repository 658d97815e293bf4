/* JSON text positions (internal). cJSON builds the tree but keeps no source
 * positions, so a strict RFC 8259 recognizer runs over the same text first:
 * it either stops at the first syntax error (offset + what was expected
 * there) or records the byte offset of every value, and of the key of every
 * object member, in document order. That order is the pre-order of the cJSON
 * tree, so the i-th node of a pre-order walk is the i-th record. */
#ifndef SN_SCENE_JSON_TEXT_H
#define SN_SCENE_JSON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cJSON.h>

/// Deepest nesting accepted (cJSON's own limit is 1000).
#define SN_JSON_MAX_DEPTH 256

#define SN_JSON_NO_KEY UINT32_MAX

typedef struct sn_json_pos {
  uint32_t value; ///< offset of the value's first byte
  uint32_t key;   ///< offset of the member's key (its opening quote), or SN_JSON_NO_KEY
} sn_json_pos;

typedef struct sn_json_node_pos {
  const cJSON *node;
  sn_json_pos pos;
} sn_json_node_pos;

/// Positions of a parsed document.
typedef struct sn_json_map {
  sn_json_pos *pos; ///< in document order
  size_t count, capacity;
  sn_json_node_pos *by_node; ///< sorted by node address
  size_t node_count;
  bool out_of_memory;
} sn_json_map;

/// Syntax check of text[0..length). On success fills map->pos and returns
/// true. On failure returns false with *error_offset at the offending byte and
/// a short phrase in expected ("',' or '}'"); map->out_of_memory tells an
/// allocation failure apart.
bool sn_json_scan(const char *text, size_t length, sn_json_map *map, size_t *error_offset, char *expected,
                  size_t expected_capacity);

/// Pairs the recorded positions with the nodes of root (pre-order). False if
/// the counts differ (the recognizer and cJSON disagree) or memory runs out.
bool sn_json_bind(sn_json_map *map, const cJSON *root);

/// Position of a node (NULL if unknown).
const sn_json_pos *sn_json_find(const sn_json_map *map, const cJSON *node);

void sn_json_map_free(sn_json_map *map);

/// 1-based line and column (in UTF-8 code points; a leading byte order mark
/// does not count) of a byte offset.
void sn_json_line_column(const char *text, size_t length, size_t offset, int32_t *line, int32_t *column);

#endif
