/* Dynamic AABB tree (internal): the broadphase's spatial index. Leaves hold
 * fat AABBs of shapes (or any proxies); internal nodes hold unions. Balanced
 * by rotations on insert (surface area heuristic for sibling choice). Proxies
 * that move every step use the deferred moves and one partial rebuild per
 * step instead (sn_tree_move_proxy_deferred, sn_tree_rebuild_moved). */
#ifndef SN_COLLISION_TREE_H
#define SN_COLLISION_TREE_H

#include "base/alloc.h"
#include "sinew/types.h"

#define SN_NULL_NODE (-1)

typedef struct sn_tree_node {
  sn_aabb aabb;
  uint64_t category_bits; ///< leaves: the proxy's bits; internal: OR of children
  int32_t parent_or_next; ///< parent, or next free node in the free list
  int32_t child1, child2; ///< SN_NULL_NODE for leaves
  int32_t user_data;      ///< leaves: the owner's id (e.g. shape index)
  int32_t group;          ///< leaves: the owner's collision group (sn_tree_leaves_query's skip_group), else 0
  int16_t height;         ///< leaf = 0, free = -1
  uint16_t flags;         ///< leaves: the owner's; internal: SN_TREE_NODE_MOVED
} sn_tree_node;

/// A node of the tree's query copy (sn_tree_refresh_wide): up to four
/// children, the grandchildren of an internal node of the binary tree (or
/// its children that are leaves), left to right in the binary tree's
/// depth-first order, their boxes side by side so that one four-lane test
/// takes them all. Two cache lines.
typedef struct sn_tree_wide_node {
  float lower_x[4], lower_y[4], upper_x[4], upper_y[4]; ///< the children's boxes
  uint64_t category_bits[4];                            ///< 0 for an unused lane (no query accepts it)
  int32_t child[4]; ///< a leaf's user data (>= 0), or -1 - the index of the wide node below
  int32_t group[4]; ///< a leaf's group (sn_tree_node.group)
} sn_tree_wide_node;

/// Internal node flag: a leaf below moved by sn_tree_move_proxy_deferred (or
/// sn_tree_enlarge_proxy) since the last rebuild; the box may be loose.
#define SN_TREE_NODE_MOVED 1u

typedef struct sn_tree {
  sn_mem *mem;
  sn_tree_node *nodes;
  int32_t root;
  int32_t node_count;
  int32_t node_capacity;
  int32_t free_list;
  int32_t proxy_count;
  void *scratch;        ///< sn_tree_rebuild_moved's work space, kept between calls
  size_t scratch_bytes; ///< its size
  /// The last sn_tree_rebuild_moved's undo record (in the scratch): the
  /// items it rebuilt over, or -1 when there is nothing to undo
  /// (sn_tree_undo_rebuild).
  int32_t undo_items;
  int32_t undo_root, undo_free_list, undo_node_count;
  /// The query copy: sn_tree_collect walks it, four children a node, while
  /// wide_valid (sn_tree_refresh_wide made it from the tree as it is; every
  /// change to the tree clears the flag).
  sn_tree_wide_node *wide; ///< in wide_block, on a cache line's start
  void *wide_block;
  int32_t *wide_work;    ///< the copy's construction stack (2 per node)
  int32_t wide_capacity; ///< nodes in wide (and pairs in wide_work)
  bool wide_valid;
} sn_tree;

/// Empty tree using mem for its node array. Returns false on OOM.
bool sn_tree_init(sn_tree *tree, sn_mem *mem, int32_t initial_capacity);
void sn_tree_destroy(sn_tree *tree);

/// Inserts a leaf with the given (already fattened) AABB. Returns the proxy
/// id (node index) or SN_NULL_NODE on OOM.
int32_t sn_tree_create_proxy(sn_tree *tree, sn_aabb aabb, uint64_t category_bits, int32_t user_data);
void sn_tree_destroy_proxy(sn_tree *tree, int32_t proxy_id);
/// Replaces the leaf's AABB (remove + reinsert).
void sn_tree_move_proxy(sn_tree *tree, int32_t proxy_id, sn_aabb aabb);
/// Grows the leaf's AABB to contain aabb (ancestors grown too and marked
/// SN_TREE_NODE_MOVED), no reinsert.
void sn_tree_enlarge_proxy(sn_tree *tree, int32_t proxy_id, sn_aabb aabb);
/// Changes the leaf's category bits (the ancestors' ORs follow).
void sn_tree_set_category(sn_tree *tree, int32_t proxy_id, uint64_t category_bits);
/// Sets the leaf's collision group (0 at creation): what a collected
/// leaves query's skip_group compares (sn_tree_leaves_query).
void sn_tree_set_group(sn_tree *tree, int32_t proxy_id, int32_t group);
/// Replaces the leaf's AABB without restructuring: the ancestors are grown to
/// contain it and marked for sn_tree_rebuild_moved. Queries stay exact in
/// between (marked boxes may just be loose). Never allocates.
void sn_tree_move_proxy_deferred(sn_tree *tree, int32_t proxy_id, sn_aabb aabb);
/// sn_tree_move_proxy_deferred without growing the ancestors: they are only
/// marked (the walk stops at the first marked one). Until the next
/// sn_tree_rebuild_moved the marked boxes may not hold the moved leaves: no
/// query may run in between. For a step that moves its proxies and rebuilds
/// right after: the same marks as sn_tree_move_proxy_deferred, so the same
/// rebuilt tree, without the walks that grow each moved leaf's path towards
/// the root. (Where the rebuild cannot run, each leaf so moved put through
/// sn_tree_move_proxy_deferred with its own box grows its path: the boxes
/// held their children's before these moves, so the walk's stop at a marked
/// ancestor that holds the leaf stays right, and queries are exact again.)
void sn_tree_move_proxy_marked(sn_tree *tree, int32_t proxy_id, sn_aabb aabb);
/// Rebuilds the marked part of the tree over the unmarked subtrees and
/// leaves below it, each node split at the middle of its items' centres
/// along their wider extent (cheaper than sn_tree_rebuild's binned SAH, which
/// a rebuild every step would pay for more than its queries gain);
/// afterwards no node is marked. Leaves keep their ids. Deterministic. Keeps a scratch buffer in the tree (grown when
/// the tree grows); if that fails the tree is left as it was (still valid).
/// Records what it changed, so that sn_tree_undo_rebuild can put it back.
void sn_tree_rebuild_moved(sn_tree *tree);
/// Runs job(context, i) for every i in [0, count), in any order and on any
/// threads, and returns when all are done.
typedef void sn_tree_jobs_fcn(void *runner, int32_t count, void (*job)(void *context, int32_t i), void *context);
/// sn_tree_rebuild_moved with the subtrees below its first two levels built
/// by run (on other threads): the same tree, node for node.
void sn_tree_rebuild_moved_with(sn_tree *tree, sn_tree_jobs_fcn *run, void *runner);
/// Grows the scratch sn_tree_rebuild_moved needs for the tree as it is, so
/// that the rebuild then allocates nothing. False on OOM (nothing changed).
bool sn_tree_reserve_rebuild(sn_tree *tree);
/// Makes the query copy of the tree as it is now, unless it is made
/// already: sn_tree_collect then descends four children a node, visiting
/// the same leaves in the same order. Call where nothing else uses the tree
/// (it writes the copy); allocates when the tree has grown: false when that
/// fails (nothing else changed). Without a copy (out of memory, or a leaf's
/// user data is negative: the copy keeps only the owners' ids) queries walk
/// the binary tree, with the same results.
bool sn_tree_refresh_wide(sn_tree *tree);
/// Puts the tree back, node for node, as it was before the last
/// sn_tree_rebuild_moved (nothing else may have changed it since). A no-op
/// when that call rebuilt nothing or was undone already.
void sn_tree_undo_rebuild(sn_tree *tree);

static inline sn_aabb sn_tree_get_aabb(const sn_tree *tree, int32_t proxy_id) { return tree->nodes[proxy_id].aabb; }
static inline int32_t sn_tree_get_user_data(const sn_tree *tree, int32_t proxy_id) {
  return tree->nodes[proxy_id].user_data;
}

/// Return false to stop the query.
typedef bool sn_tree_query_fcn(int32_t proxy_id, int32_t user_data, void *context);
/// Calls fcn for every leaf whose AABB overlaps aabb and whose category_bits & mask_bits != 0.
void sn_tree_query(const sn_tree *tree, sn_aabb aabb, uint64_t mask_bits, sn_tree_query_fcn *fcn, void *context);

/// A leaf as a query meets it (sn_tree_collect).
typedef struct sn_tree_leaf {
  sn_aabb aabb;
  uint64_t category_bits;
  int32_t user_data;
  int32_t group; ///< sn_tree_node.group
} sn_tree_leaf;
/// The leaves sn_tree_query(tree, aabb, mask_bits) would visit, in its
/// order (the tree's depth-first order, which does not depend on the box),
/// copied to leaves: their count, or -1 when there are more than capacity.
/// Queries of neighbours then share one descent: a box inside aabb and a
/// mask inside mask_bits visit, through sn_tree_leaves_query, what their own
/// sn_tree_query would, in the same order.
int32_t sn_tree_collect(const sn_tree *tree, sn_aabb aabb, uint64_t mask_bits, sn_tree_leaf *leaves, int32_t capacity);
/// A collected leaves query's callback: the leaf's user data (return false
/// to stop).
typedef bool sn_tree_leaves_fcn(int32_t user_data, void *context);
/// Calls fcn, in the order sn_tree_query does, for every collected leaf
/// whose AABB overlaps aabb and whose category_bits & mask_bits != 0, but
/// not for the leaves of group skip_group when it is not 0 (a negative
/// collision group: its shapes never pair, so their callbacks would only
/// turn them down).
void sn_tree_leaves_query(const sn_tree_leaf *leaves, int32_t count, sn_aabb aabb, uint64_t mask_bits,
                          int32_t skip_group, sn_tree_leaves_fcn *fcn, void *context);
/// The skip_group of a query for a shape of collision group `group`.
static inline int32_t sn_tree_skip_group(int32_t group) { return group < 0 ? group : 0; }
/// The collected leaves [0, count) that sn_tree_leaves_query would visit:
/// their indices to hits (room for count), in order; returns how many. No
/// branch on a leaf's outcome: whether a leaf of a crowd's group overlaps a
/// box is a coin toss the branch predictor loses.
static inline int32_t sn_tree_leaves_hits(const sn_tree_leaf *leaves, int32_t count, sn_aabb aabb, uint64_t mask_bits,
                                          int32_t skip_group, int32_t *hits) {
  int32_t n = 0;
  for (int32_t i = 0; i < count; ++i) {
    const sn_tree_leaf *leaf = leaves + i;
    /* sn_aabb_overlaps(leaf->aabb, aabb), a comparison at a time */
    const int apart = (aabb.lower.x > leaf->aabb.upper.x) | (aabb.lower.y > leaf->aabb.upper.y) |
                      (leaf->aabb.lower.x > aabb.upper.x) | (leaf->aabb.lower.y > aabb.upper.y);
    const int kept = (skip_group == 0) | (leaf->group != skip_group);
    hits[n] = i;
    n += (int32_t)(((leaf->category_bits & mask_bits) != 0) & !apart & kept);
  }
  return n;
}

/// Ray callback: return the new max fraction (0 stops; input->max_fraction
/// or larger continues unchanged; a smaller value clips the ray).
typedef float sn_tree_ray_cast_fcn(const sn_ray_input *input, int32_t proxy_id, int32_t user_data, void *context);
/// Visits leaves whose AABB the ray (clipped as it goes) crosses.
void sn_tree_ray_cast(const sn_tree *tree, const sn_ray_input *input, uint64_t mask_bits, sn_tree_ray_cast_fcn *fcn,
                      void *context);

int32_t sn_tree_get_height(const sn_tree *tree);
/// Sum of perimeters of internal nodes / root perimeter (quality metric).
float sn_tree_get_area_ratio(const sn_tree *tree);
/// What sn_tree_check found wrong (the first fault it met).
typedef enum sn_tree_error {
  SN_TREE_VALID = 0,
  SN_TREE_BAD_HEADER,       ///< counts, root or free list head out of range
  SN_TREE_ROOT_HAS_PARENT,  ///< the root's parent link is not SN_NULL_NODE
  SN_TREE_FREE_NODE_LINKED, ///< a free node (height -1) is the root
  SN_TREE_BAD_LEAF,         ///< a leaf with children, or one its owner refuses
  SN_TREE_BAD_CHILDREN,     ///< children out of range, equal, free or not linked back to the node
  SN_TREE_BAD_HEIGHT,       ///< not one more than the higher child's
  SN_TREE_BAD_BOX,          ///< (boxes) a box not finite, not containing, not tight, or wrong bits or marks
  SN_TREE_BAD_COUNTS,       ///< node_count or proxy_count is not what the root reaches
  SN_TREE_BAD_FREE_LIST,    ///< out of range, a node in use, or a cycle
  SN_TREE_NODES_LOST        ///< nodes neither reachable nor on the free list
} sn_tree_error;

typedef struct sn_tree_check_report {
  sn_tree_error error;
  int32_t node;          ///< the node at fault (leaf, children, height, box, free node), else SN_NULL_NODE
  int32_t nodes, leaves; ///< reached from the root (before a fault: so far)
} sn_tree_check_report;

/// Whether leaf proxy_id with user_data belongs to its owner.
typedef bool sn_tree_leaf_fcn(int32_t proxy_id, int32_t user_data, const void *context);

/// Checks a tree whose fields may hold anything (a snapshot's bytes): the
/// header's ranges, every node reachable from the root (parent links,
/// children, heights; leaves through leaf_ok when not NULL), the counts and
/// the free list. With boxes, also every box finite, internal boxes
/// containing their children's and tight unless marked SN_TREE_NODE_MOVED
/// (marked nodes only under marked ones), and category bits the children's
/// OR. Allocates nothing, recurses nowhere; returns report->error (report
/// may be NULL).
sn_tree_error sn_tree_check(const sn_tree *tree, bool boxes, sn_tree_leaf_fcn *leaf_ok, const void *context,
                            sn_tree_check_report *report);
/// sn_tree_check with boxes and no owner: false if the tree is broken (tests).
bool sn_tree_validate(const sn_tree *tree);

/// Rebuilds the whole tree top-down (binned SAH) for better queries; optional.
void sn_tree_rebuild(sn_tree *tree);

#endif /* SN_COLLISION_TREE_H */
