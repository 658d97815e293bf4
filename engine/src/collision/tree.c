/* Dynamic AABB tree: the broadphase's bounding volume hierarchy.
 *
 * Layout: one node array (grown by doubling through sn_mem_realloc) with an
 * intrusive free list threaded through parent_or_next. Proxy ids are leaf node
 * indices and never change while the proxy lives (move and rebuild keep them).
 *
 * Insertion picks the sibling with the surface area heuristic (in 2D the
 * "area" is the perimeter): the cost of pairing the new leaf D with node S is
 * the perimeter of the new parent, perim(S u D), plus the growth of every
 * ancestor of S, sum(perim(A u D) - perim(A)). The search descends greedily
 * and prunes with the lower bound of a subtree (see sn_tree_find_best_sibling).
 *
 * Balance: after an insert or a removal every node on the path to the root is
 * refitted and offered one rotation (swapping a child with a grandchild on the
 * other side). A height imbalance above SN_TREE_MAX_IMBALANCE is repaired first
 * (lift the taller grandchild); otherwise the rotation that lowers the SAH cost
 * most is taken, as long as it keeps both nodes balanced and does not raise the
 * height. This keeps heights near log2(n) while the tree stays SAH-tight.
 *
 * Determinism: no randomness, no pointer ordering; every tie is broken by a
 * fixed rule, so the same sequence of calls yields the same node array.
 *
 * Deferred moves: sn_tree_move_proxy_deferred only replaces the leaf's box,
 * grows the ancestors to contain it and marks them SN_TREE_NODE_MOVED; the
 * next sn_tree_rebuild_moved rebuilds the marked top of the tree (middle
 * splits over the unmarked subtrees and moved leaves below it). A moving
 * crowd then costs one partial rebuild per step instead of a removal and a
 * reinsertion (each refitting and rotating the whole path to the root) per
 * proxy. Between the two, marked boxes may be loose (larger than their
 * children's union), so queries stay exact and only do a little more work. Invariants: an unmarked
 * internal node is tight (its box is the union of its children's) and every
 * ancestor of a marked node is marked; insert, remove and the rotations keep
 * both (see sn_tree_check).
 *
 * Flags: the tree zeroes a leaf's flags on create and never reads or writes
 * them afterwards (move, enlarge and rebuild keep them): they are the owner's.
 * Internal nodes' flags are the tree's (SN_TREE_NODE_MOVED).
 *
 * Reentrancy: callbacks of the queries must not modify the tree. */
#include "collision/tree.h"

#include <assert.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "base/math.h"
#include "base/simd4.h"

/// Entries of the fixed traversal stack of the queries (on the C stack, no
/// allocation). A depth-first walk needs at most height + 1 entries, so this
/// covers any tree of height <= 254; a balanced tree of 10^6 proxies has a
/// height near 30. A taller subtree (only possible by hand-made trees, since
/// the rotations keep the height logarithmic) is still visited correctly: the
/// query switches to a slower stackless walk along parent links for it.
#define SN_TREE_STACK_SIZE 256

#if defined(__GNUC__) || defined(__clang__)
#define SN_TREE_PREFETCH(p) __builtin_prefetch(p)
#else
#define SN_TREE_PREFETCH(p) ((void)(p))
#endif

/// Largest height difference K between the two children of a node. Inserts,
/// moves and removals keep it (a rebuild may not; later updates repair it
/// gradually). With it a tree of height h has at least N(h) leaves, where
/// N(h) = N(h - 1) + N(max(h - 1 - K, 0)); for K = 4 N grows like 1.3247^h,
/// so h <= 2.47 log2(n) + O(1), in practice ~1.3 log2(n). 1 would be an AVL
/// tree; the slack leaves the surface area heuristic room to keep big and
/// small boxes apart (a big box near the root is cheaper to query).
#define SN_TREE_MAX_IMBALANCE 4

/// Minimum node capacity.
#define SN_TREE_MIN_CAPACITY 16

/// Top-down rebuild: bins of the SAH split, and the depth after which the SAH
/// and the middle split fall back to median splits (bounds recursion depth to
/// this + log2(n)).
#define SN_TREE_BIN_COUNT     16
#define SN_TREE_SAH_MAX_DEPTH 48

static inline int32_t sn_absi(int32_t a) { return a < 0 ? -a : a; }

/* ------------------------------------------------------------------------ */
/* Node allocation                                                           */

/// Grows the node array to at least min_capacity (> current capacity) by
/// doubling. The new nodes go to the head of the free list in ascending
/// order. False on OOM (the tree is unchanged).
static bool sn_tree_grow(sn_tree *tree, int32_t min_capacity) {
  int32_t old_capacity = tree->node_capacity;
  int32_t capacity = old_capacity > 0 ? old_capacity : SN_TREE_MIN_CAPACITY;
  while (capacity < min_capacity) {
    if (capacity > INT32_MAX / 2) return false;
    capacity *= 2;
  }
  sn_tree_node *nodes = sn_mem_realloc(tree->mem, tree->nodes, (size_t)old_capacity * sizeof(sn_tree_node),
                                       (size_t)capacity * sizeof(sn_tree_node));
  if (nodes == NULL) return false;
  memset(nodes + old_capacity, 0, (size_t)(capacity - old_capacity) * sizeof(sn_tree_node));
  for (int32_t i = old_capacity; i < capacity; ++i) {
    nodes[i].parent_or_next = i + 1;
    nodes[i].child1 = SN_NULL_NODE;
    nodes[i].child2 = SN_NULL_NODE;
    nodes[i].user_data = -1;
    nodes[i].height = -1;
  }
  nodes[capacity - 1].parent_or_next = tree->free_list;
  tree->free_list = old_capacity;
  tree->nodes = nodes;
  tree->node_capacity = capacity;
  return true;
}

/// Pops a node off the free list; the caller made sure one is there.
static int32_t sn_tree_alloc_node(sn_tree *tree) {
  assert(tree->free_list != SN_NULL_NODE);
  int32_t index = tree->free_list;
  sn_tree_node *node = tree->nodes + index;
  tree->free_list = node->parent_or_next;
  node->parent_or_next = SN_NULL_NODE;
  node->child1 = SN_NULL_NODE;
  node->child2 = SN_NULL_NODE;
  node->user_data = -1;
  node->group = 0;
  node->category_bits = 0;
  node->height = 0;
  node->flags = 0;
  tree->node_count += 1;
  return index;
}

static void sn_tree_free_node(sn_tree *tree, int32_t index) {
  sn_tree_node *node = tree->nodes + index;
  node->parent_or_next = tree->free_list;
  node->child1 = SN_NULL_NODE;
  node->child2 = SN_NULL_NODE;
  node->user_data = -1;
  node->height = -1;
  node->flags = 0;
  tree->free_list = index;
  tree->node_count -= 1;
}

/// The query copy's block for capacity nodes: the nodes (from a cache
/// line's start) and the construction stack.
static size_t sn_tree_wide_bytes(int32_t capacity) {
  return (size_t)capacity * (sizeof(sn_tree_wide_node) + 2 * sizeof(int32_t)) + 64;
}

bool sn_tree_init(sn_tree *tree, sn_mem *mem, int32_t initial_capacity) {
  memset(tree, 0, sizeof(*tree));
  tree->mem = mem;
  tree->root = SN_NULL_NODE;
  tree->free_list = SN_NULL_NODE;
  tree->undo_items = -1;
  int32_t capacity = initial_capacity > SN_TREE_MIN_CAPACITY ? initial_capacity : SN_TREE_MIN_CAPACITY;
  return sn_tree_grow(tree, capacity);
}

void sn_tree_destroy(sn_tree *tree) {
  sn_mem_free(tree->mem, tree->nodes, (size_t)tree->node_capacity * sizeof(sn_tree_node));
  sn_mem_free(tree->mem, tree->scratch, tree->scratch_bytes);
  sn_mem_free(tree->mem, tree->wide_block, sn_tree_wide_bytes(tree->wide_capacity));
  sn_mem *mem = tree->mem;
  memset(tree, 0, sizeof(*tree));
  tree->mem = mem;
  tree->root = SN_NULL_NODE;
  tree->free_list = SN_NULL_NODE;
  tree->undo_items = -1;
}

/* ------------------------------------------------------------------------ */
/* Refit and rotations                                                       */

/// Recomputes an internal node from its children.
static inline void sn_tree_refit(sn_tree_node *nodes, int32_t index) {
  sn_tree_node *node = nodes + index;
  const sn_tree_node *c1 = nodes + node->child1;
  const sn_tree_node *c2 = nodes + node->child2;
  node->aabb = sn_aabb_union(c1->aabb, c2->aabb);
  node->category_bits = c1->category_bits | c2->category_bits;
  node->height = (int16_t)(1 + (c1->height > c2->height ? c1->height : c2->height));
}

/// One candidate rotation at node A: child x of A trades places with the
/// grandchild y (the child of A's other child z that is at y_slot); w is y's
/// sibling. Afterwards A = {y, z'} and z' = {x, w}.
typedef struct sn_rotation {
  int32_t x, z;
  int32_t y_slot;      ///< 1: y is z->child1, 2: y is z->child2
  float cost_delta;    ///< perim(x u w) - perim(z): change of the SAH cost
  int32_t imbalance_a; ///< |h(y) - h(z')|
  int32_t imbalance_z; ///< |h(x) - h(w)|
  int32_t height_a;    ///< new height of A
} sn_rotation;

static sn_rotation sn_tree_eval_rotation(const sn_tree_node *nodes, int32_t x, int32_t z, int32_t y_slot) {
  const sn_tree_node *zn = nodes + z;
  int32_t y = y_slot == 1 ? zn->child1 : zn->child2;
  int32_t w = y_slot == 1 ? zn->child2 : zn->child1;
  int32_t hx = nodes[x].height, hy = nodes[y].height, hw = nodes[w].height;
  int32_t hz = 1 + (hx > hw ? hx : hw);
  sn_rotation r;
  r.x = x;
  r.z = z;
  r.y_slot = y_slot;
  r.cost_delta = sn_aabb_perimeter(sn_aabb_union(nodes[x].aabb, nodes[w].aabb)) - sn_aabb_perimeter(zn->aabb);
  r.imbalance_a = sn_absi(hy - hz);
  r.imbalance_z = sn_absi(hx - hw);
  r.height_a = 1 + (hy > hz ? hy : hz);
  return r;
}

static void sn_tree_apply_rotation(sn_tree_node *nodes, int32_t a, const sn_rotation *r) {
  sn_tree_node *an = nodes + a;
  sn_tree_node *zn = nodes + r->z;
  int32_t y = r->y_slot == 1 ? zn->child1 : zn->child2;

  if (an->child1 == r->x) {
    an->child1 = y;
  } else {
    an->child2 = y;
  }
  nodes[y].parent_or_next = a;

  if (r->y_slot == 1) {
    zn->child1 = r->x;
  } else {
    zn->child2 = r->x;
  }
  nodes[r->x].parent_or_next = r->z;
  // x now hangs below z: a marked x keeps marked ancestors
  if (nodes[r->x].height > 0) zn->flags |= nodes[r->x].flags & SN_TREE_NODE_MOVED;

  // A keeps the same leaves, so its box and bits stay; z and the heights change.
  sn_tree_refit(nodes, r->z);
  const sn_tree_node *yn = nodes + y;
  an->height = (int16_t)(1 + (yn->height > zn->height ? yn->height : zn->height));
}

/// Offers node a (internal, already refitted) one rotation; see the file comment.
static void sn_tree_rotate(sn_tree_node *nodes, int32_t a) {
  sn_tree_node *an = nodes + a;
  if (an->height < 2) return; // both children are leaves
  int32_t b = an->child1, c = an->child2;
  int32_t hb = nodes[b].height, hc = nodes[c].height;
  int32_t imbalance = sn_absi(hb - hc);

  if (imbalance > SN_TREE_MAX_IMBALANCE) {
    // Lift a grandchild of the taller side; prefer the smaller resulting
    // imbalance, then the lower cost, then the first child.
    int32_t x = hb > hc ? c : b;
    int32_t z = hb > hc ? b : c;
    sn_rotation r1 = sn_tree_eval_rotation(nodes, x, z, 1);
    sn_rotation r2 = sn_tree_eval_rotation(nodes, x, z, 2);
    bool take2 = r2.imbalance_a < r1.imbalance_a || (r2.imbalance_a == r1.imbalance_a && r2.cost_delta < r1.cost_delta);
    sn_rotation best = take2 ? r2 : r1;
    if (best.imbalance_a < imbalance) sn_tree_apply_rotation(nodes, a, &best);
    return;
  }

  // Balanced: take the rotation that lowers the SAH cost most, if it keeps the
  // balance and the height.
  sn_rotation candidates[4];
  int32_t count = 0;
  if (nodes[c].height > 0) {
    candidates[count++] = sn_tree_eval_rotation(nodes, b, c, 1);
    candidates[count++] = sn_tree_eval_rotation(nodes, b, c, 2);
  }
  if (nodes[b].height > 0) {
    candidates[count++] = sn_tree_eval_rotation(nodes, c, b, 1);
    candidates[count++] = sn_tree_eval_rotation(nodes, c, b, 2);
  }
  int32_t best = -1;
  float best_delta = 0.0f;
  for (int32_t i = 0; i < count; ++i) {
    const sn_rotation *r = candidates + i;
    if (r->imbalance_a > SN_TREE_MAX_IMBALANCE || r->imbalance_z > SN_TREE_MAX_IMBALANCE) continue;
    if (r->height_a > an->height) continue;
    if (r->cost_delta < best_delta) {
      best_delta = r->cost_delta;
      best = i;
    }
  }
  if (best >= 0) sn_tree_apply_rotation(nodes, a, candidates + best);
}

/// Refits and rotates every node from index up to the root.
static void sn_tree_fix_upwards(sn_tree_node *nodes, int32_t index) {
  while (index != SN_NULL_NODE) {
    sn_tree_refit(nodes, index);
    sn_tree_rotate(nodes, index);
    index = nodes[index].parent_or_next;
  }
}

/* ------------------------------------------------------------------------ */
/* Insertion and removal                                                     */

/// Greedy branch-and-bound descent for the sibling of a new leaf with box d.
///
/// For a node N reached with inherited cost I (growth of N's strict
/// ancestors), choosing N costs I + perim(N u d). Every node below N also
/// grows N, so it costs at least I + perim(N u d) - perim(N) + perim(d). The
/// walk evaluates both children of the current node, remembers the cheapest
/// candidate, and descends into the child with the lower bound until neither
/// bound can beat the best cost.
///
/// Only subtrees of height <= SN_TREE_MAX_IMBALANCE may become the sibling,
/// so the new parent is balanced and one rotation per ancestor restores the
/// balance invariant (see sn_tree_rotate).
static int32_t sn_tree_find_best_sibling(const sn_tree *tree, sn_aabb d) {
  const sn_tree_node *nodes = tree->nodes;
  sn_vec2 center = sn_aabb_center(d);
  float area_d = sn_aabb_perimeter(d);

  int32_t index = tree->root;
  float direct = sn_aabb_perimeter(sn_aabb_union(nodes[index].aabb, d));
  float inherited = 0.0f;
  int32_t best = index;
  float best_cost = nodes[index].height <= SN_TREE_MAX_IMBALANCE ? direct : FLT_MAX;

  while (nodes[index].height > 0) {
    const sn_tree_node *node = nodes + index;
    inherited += direct - sn_aabb_perimeter(node->aabb);

    int32_t c1 = node->child1, c2 = node->child2;
    const sn_tree_node *n1 = nodes + c1;
    const sn_tree_node *n2 = nodes + c2;

    float direct1 = sn_aabb_perimeter(sn_aabb_union(n1->aabb, d));
    float cost1 = inherited + direct1;
    if (cost1 < best_cost && n1->height <= SN_TREE_MAX_IMBALANCE) {
      best_cost = cost1;
      best = c1;
    }
    float direct2 = sn_aabb_perimeter(sn_aabb_union(n2->aabb, d));
    float cost2 = inherited + direct2;
    if (cost2 < best_cost && n2->height <= SN_TREE_MAX_IMBALANCE) {
      best_cost = cost2;
      best = c2;
    }

    float lower1 = n1->height > 0 ? inherited + direct1 - sn_aabb_perimeter(n1->aabb) + area_d : FLT_MAX;
    float lower2 = n2->height > 0 ? inherited + direct2 - sn_aabb_perimeter(n2->aabb) + area_d : FLT_MAX;
    if (lower1 >= best_cost && lower2 >= best_cost) break;

    bool go1;
    if (lower1 != lower2) {
      go1 = lower1 < lower2;
    } else {
      // Ties are common with equal boxes on a grid: go to the nearer child.
      float dist1 = sn_distance_sq(center, sn_aabb_center(n1->aabb));
      float dist2 = sn_distance_sq(center, sn_aabb_center(n2->aabb));
      go1 = dist1 <= dist2;
    }
    index = go1 ? c1 : c2;
    direct = go1 ? direct1 : direct2;
  }
  return best;
}

/// Links an allocated leaf into the tree. Needs one free node (for the new
/// parent) unless the tree is empty.
static void sn_tree_insert_leaf(sn_tree *tree, int32_t leaf) {
  if (tree->root == SN_NULL_NODE) {
    tree->root = leaf;
    tree->nodes[leaf].parent_or_next = SN_NULL_NODE;
    return;
  }

  int32_t sibling = sn_tree_find_best_sibling(tree, tree->nodes[leaf].aabb);
  int32_t parent = sn_tree_alloc_node(tree);
  sn_tree_node *nodes = tree->nodes;
  int32_t old_parent = nodes[sibling].parent_or_next;

  sn_tree_node *pn = nodes + parent;
  pn->parent_or_next = old_parent;
  pn->child1 = sibling;
  pn->child2 = leaf;
  // a marked sibling keeps marked ancestors (a leaf's flags are not the tree's)
  if (nodes[sibling].height > 0) pn->flags = nodes[sibling].flags & SN_TREE_NODE_MOVED;
  nodes[sibling].parent_or_next = parent;
  nodes[leaf].parent_or_next = parent;

  if (old_parent == SN_NULL_NODE) {
    tree->root = parent;
  } else if (nodes[old_parent].child1 == sibling) {
    nodes[old_parent].child1 = parent;
  } else {
    nodes[old_parent].child2 = parent;
  }

  sn_tree_fix_upwards(nodes, parent);
}

/// Unlinks a leaf (and frees its parent); the leaf node itself stays allocated.
static void sn_tree_remove_leaf(sn_tree *tree, int32_t leaf) {
  sn_tree_node *nodes = tree->nodes;
  if (leaf == tree->root) {
    tree->root = SN_NULL_NODE;
    nodes[leaf].parent_or_next = SN_NULL_NODE;
    return;
  }

  int32_t parent = nodes[leaf].parent_or_next;
  int32_t grand = nodes[parent].parent_or_next;
  int32_t sibling = nodes[parent].child1 == leaf ? nodes[parent].child2 : nodes[parent].child1;

  nodes[sibling].parent_or_next = grand;
  if (grand == SN_NULL_NODE) {
    tree->root = sibling;
  } else if (nodes[grand].child1 == parent) {
    nodes[grand].child1 = sibling;
  } else {
    nodes[grand].child2 = sibling;
  }
  sn_tree_free_node(tree, parent);
  nodes[leaf].parent_or_next = SN_NULL_NODE;

  sn_tree_fix_upwards(nodes, grand);
}

int32_t sn_tree_create_proxy(sn_tree *tree, sn_aabb aabb, uint64_t category_bits, int32_t user_data) {
  assert(sn_aabb_is_valid(aabb));
  // A leaf and its new parent: reserve both first so nothing fails halfway.
  if (tree->node_capacity - tree->node_count < 2 && !sn_tree_grow(tree, tree->node_count + 2)) {
    return SN_NULL_NODE;
  }
  tree->wide_valid = false;
  int32_t leaf = sn_tree_alloc_node(tree);
  sn_tree_node *node = tree->nodes + leaf;
  node->aabb = aabb;
  node->category_bits = category_bits;
  node->user_data = user_data;
  node->height = 0;
  sn_tree_insert_leaf(tree, leaf);
  tree->proxy_count += 1;
  return leaf;
}

void sn_tree_destroy_proxy(sn_tree *tree, int32_t proxy_id) {
  assert(0 <= proxy_id && proxy_id < tree->node_capacity);
  assert(tree->nodes[proxy_id].height == 0 && "not a proxy (leaf)");
  tree->wide_valid = false;
  sn_tree_remove_leaf(tree, proxy_id);
  sn_tree_free_node(tree, proxy_id);
  tree->proxy_count -= 1;
}

void sn_tree_move_proxy(sn_tree *tree, int32_t proxy_id, sn_aabb aabb) {
  assert(0 <= proxy_id && proxy_id < tree->node_capacity);
  assert(tree->nodes[proxy_id].height == 0 && "not a proxy (leaf)");
  assert(sn_aabb_is_valid(aabb));
  // Removal frees exactly the node that reinsertion takes: no allocation.
  tree->wide_valid = false;
  sn_tree_remove_leaf(tree, proxy_id);
  tree->nodes[proxy_id].aabb = aabb;
  sn_tree_insert_leaf(tree, proxy_id);
}

/// Sets the leaf's box, grows every ancestor to contain it and marks them
/// all (up to the root) for sn_tree_rebuild_moved. The walk stops at a marked
/// ancestor that already contains the box: everything above it is marked
/// (invariant) and contains its box, hence this one.
static void sn_tree_set_leaf_box(sn_tree_node *nodes, int32_t proxy_id, sn_aabb box) {
  nodes[proxy_id].aabb = box;
  for (int32_t index = nodes[proxy_id].parent_or_next; index != SN_NULL_NODE; index = nodes[index].parent_or_next) {
    sn_tree_node *node = nodes + index;
    if (!sn_aabb_contains(node->aabb, box)) {
      node->aabb = sn_aabb_union(node->aabb, box);
    } else if (node->flags & SN_TREE_NODE_MOVED) {
      return;
    }
    node->flags |= SN_TREE_NODE_MOVED;
  }
}

void sn_tree_enlarge_proxy(sn_tree *tree, int32_t proxy_id, sn_aabb aabb) {
  assert(0 <= proxy_id && proxy_id < tree->node_capacity);
  assert(tree->nodes[proxy_id].height == 0 && "not a proxy (leaf)");
  assert(sn_aabb_is_valid(aabb));
  tree->wide_valid = false;
  sn_tree_set_leaf_box(tree->nodes, proxy_id, sn_aabb_union(tree->nodes[proxy_id].aabb, aabb));
}

void sn_tree_set_group(sn_tree *tree, int32_t proxy_id, int32_t group) {
  assert(0 <= proxy_id && proxy_id < tree->node_capacity);
  assert(tree->nodes[proxy_id].height == 0 && "not a proxy (leaf)");
  tree->wide_valid = false;
  tree->nodes[proxy_id].group = group;
}

void sn_tree_set_category(sn_tree *tree, int32_t proxy_id, uint64_t category_bits) {
  assert(0 <= proxy_id && proxy_id < tree->node_capacity);
  assert(tree->nodes[proxy_id].height == 0 && "not a proxy (leaf)");
  sn_tree_node *nodes = tree->nodes;
  tree->wide_valid = false;
  nodes[proxy_id].category_bits = category_bits;
  /* the ancestors hold the OR of their children */
  for (int32_t i = nodes[proxy_id].parent_or_next; i != SN_NULL_NODE; i = nodes[i].parent_or_next)
    nodes[i].category_bits = nodes[nodes[i].child1].category_bits | nodes[nodes[i].child2].category_bits;
}

void sn_tree_move_proxy_deferred(sn_tree *tree, int32_t proxy_id, sn_aabb aabb) {
  assert(0 <= proxy_id && proxy_id < tree->node_capacity);
  assert(tree->nodes[proxy_id].height == 0 && "not a proxy (leaf)");
  assert(sn_aabb_is_valid(aabb));
  tree->wide_valid = false;
  sn_tree_set_leaf_box(tree->nodes, proxy_id, aabb);
}

void sn_tree_move_proxy_marked(sn_tree *tree, int32_t proxy_id, sn_aabb aabb) {
  assert(0 <= proxy_id && proxy_id < tree->node_capacity);
  assert(tree->nodes[proxy_id].height == 0 && "not a proxy (leaf)");
  assert(sn_aabb_is_valid(aabb));
  tree->wide_valid = false;
  sn_tree_node *nodes = tree->nodes;
  nodes[proxy_id].aabb = aabb;
  /* the ancestors marked up to the first that is (its own are, too) */
  for (int32_t index = nodes[proxy_id].parent_or_next; index != SN_NULL_NODE; index = nodes[index].parent_or_next) {
    if (nodes[index].flags & SN_TREE_NODE_MOVED) return;
    nodes[index].flags |= SN_TREE_NODE_MOVED;
  }
}

/* ------------------------------------------------------------------------ */
/* Queries                                                                   */

static inline bool sn_query_accepts(const sn_tree_node *node, sn_aabb aabb, uint64_t mask_bits) {
  return (node->category_bits & mask_bits) != 0 && sn_aabb_overlaps(node->aabb, aabb);
}

/// Walks the subtree under start along parent links, without a stack. Only
/// used when the fixed stack is full. Returns false if the callback stopped.
static bool sn_tree_query_stackless(const sn_tree *tree, int32_t start, sn_aabb aabb, uint64_t mask_bits,
                                    sn_tree_query_fcn *fcn, void *context) {
  const sn_tree_node *nodes = tree->nodes;
  int32_t index = start;
  bool descending = true;
  for (;;) {
    if (descending) {
      const sn_tree_node *node = nodes + index;
      if (sn_query_accepts(node, aabb, mask_bits)) {
        if (node->height > 0) {
          index = node->child1;
          continue;
        }
        if (!fcn(index, node->user_data, context)) return false;
      }
      descending = false;
    }
    // Done with index: go to its sibling if it is a first child, else up.
    if (index == start) return true;
    int32_t parent = nodes[index].parent_or_next;
    if (nodes[parent].child1 == index) {
      index = nodes[parent].child2;
      descending = true;
    } else {
      index = parent;
    }
  }
}

void sn_tree_query(const sn_tree *tree, sn_aabb aabb, uint64_t mask_bits, sn_tree_query_fcn *fcn, void *context) {
  if (tree->root == SN_NULL_NODE) return;
  const sn_tree_node *nodes = tree->nodes;
  if (!sn_query_accepts(nodes + tree->root, aabb, mask_bits)) return;
  // Only accepted nodes go on the stack: children are tested before they are
  // pushed (child1 is visited first, as a plain depth-first walk would).
  int32_t stack[SN_TREE_STACK_SIZE];
  int32_t count = 0;
  stack[count++] = tree->root;

  while (count > 0) {
    int32_t index = stack[--count];
    const sn_tree_node *node = nodes + index;
    if (node->height == 0) {
      if (!fcn(index, node->user_data, context)) return;
      continue;
    }
    if (count + 2 > SN_TREE_STACK_SIZE) {
      if (!sn_tree_query_stackless(tree, index, aabb, mask_bits, fcn, context)) return;
      continue;
    }
    // A pushed child's own children are fetched now: the walk waits on
    // node lines it learns of one level at a time.
    int32_t c1 = node->child1, c2 = node->child2;
    const sn_tree_node *n1 = nodes + c1, *n2 = nodes + c2;
    if (sn_query_accepts(n2, aabb, mask_bits)) {
      stack[count++] = c2;
      if (n2->height > 0) {
        SN_TREE_PREFETCH(nodes + n2->child1);
        SN_TREE_PREFETCH(nodes + n2->child2);
      }
    }
    if (sn_query_accepts(n1, aabb, mask_bits)) {
      stack[count++] = c1;
      if (n1->height > 0) {
        SN_TREE_PREFETCH(nodes + n1->child1);
        SN_TREE_PREFETCH(nodes + n1->child2);
      }
    }
  }
}

/* ------------------------------------------------------------------------ */
/* The query copy, four children a node                                      */

/// Lane `lane` of w: binary node `node` under the code `child` (a leaf's
/// user data, or -1 - its wide node).
static inline void sn_wide_set(sn_tree_wide_node *w, int lane, const sn_tree_node *node, int32_t child) {
  w->lower_x[lane] = node->aabb.lower.x;
  w->lower_y[lane] = node->aabb.lower.y;
  w->upper_x[lane] = node->aabb.upper.x;
  w->upper_y[lane] = node->aabb.upper.y;
  w->category_bits[lane] = node->category_bits;
  w->child[lane] = child;
  w->group[lane] = node->height == 0 ? node->group : 0;
}

/// An unused lane: an empty box no query accepts, and no category.
static inline void sn_wide_clear(sn_tree_wide_node *w, int lane) {
  w->lower_x[lane] = w->lower_y[lane] = FLT_MAX;
  w->upper_x[lane] = w->upper_y[lane] = -FLT_MAX;
  w->category_bits[lane] = 0;
  w->child[lane] = 0;
  w->group[lane] = 0;
}

bool sn_tree_refresh_wide(sn_tree *tree) {
  if (tree->wide_valid) return true;
  const int32_t root = tree->root;
  if (root == SN_NULL_NODE) {
    tree->wide_valid = true; /* nothing to walk: sn_tree_collect returns at once */
    return true;
  }
  /* a node per internal node of the binary tree at an even depth: each
   * below the root has an internal parent at an odd depth, with two such
   * children at most, so at most (2 n - 1) / 3 of the n - 1 (a third in a
   * balanced tree) */
  const int32_t need = (int32_t)(((int64_t)tree->proxy_count * 2 + 2) / 3) + 1;
  if (tree->wide_capacity < need) {
    int32_t capacity = tree->wide_capacity > 0 ? tree->wide_capacity : 64;
    while (capacity < need) {
      if (capacity > INT32_MAX / 2) return false;
      capacity *= 2;
    }
    void *block = sn_mem_alloc(tree->mem, sn_tree_wide_bytes(capacity));
    if (block == NULL) return false;
    sn_mem_free(tree->mem, tree->wide_block, sn_tree_wide_bytes(tree->wide_capacity));
    tree->wide_block = block;
    tree->wide = (sn_tree_wide_node *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
    tree->wide_work = (int32_t *)(tree->wide + capacity);
    tree->wide_capacity = capacity;
  }
  const sn_tree_node *nodes = tree->nodes;
  sn_tree_wide_node *wide = tree->wide;
  int32_t *work = tree->wide_work;
  int32_t count = 1, top = 0;
  if (nodes[root].height == 0) {
    if (nodes[root].user_data < 0) return true; /* (no copy: the binary walk) */
    sn_wide_set(wide, 0, nodes + root, nodes[root].user_data);
    for (int lane = 1; lane < 4; ++lane) sn_wide_clear(wide, lane);
  } else {
    work[top++] = root;
    work[top++] = 0;
  }
  /* each wide node: the binary node's children, each internal child opened
   * to its two children, left to right */
  while (top > 0) {
    const int32_t wi = work[--top], bi = work[--top];
    sn_tree_wide_node *w = wide + wi;
    int lane = 0;
    const int32_t kids[2] = {nodes[bi].child1, nodes[bi].child2};
    for (int k = 0; k < 2; ++k) {
      const sn_tree_node *c = nodes + kids[k];
      const int32_t opened[2] = {c->child1, c->child2};
      const int n = c->height == 0 ? 1 : 2;
      for (int j = 0; j < n; ++j) {
        const int32_t index = n == 1 ? kids[k] : opened[j];
        const sn_tree_node *node = nodes + index;
        if (node->height == 0) {
          if (node->user_data < 0) return true; /* (no copy: the binary walk) */
          sn_wide_set(w, lane++, node, node->user_data);
        } else {
          const int32_t below = count++;
          if (below >= tree->wide_capacity) return true; /* (cannot happen: no copy) */
          sn_wide_set(w, lane++, node, -1 - below);
          work[top++] = index;
          work[top++] = below;
        }
      }
    }
    for (; lane < 4; ++lane) sn_wide_clear(w, lane);
  }
  tree->wide_valid = true;
  return true;
}

/// The lowest set bit's index (bits != 0).
static inline int sn_lowest_bit(int bits) {
  int i = 0;
  while (!((bits >> i) & 1)) ++i;
  return i;
}

/// Leaf lane `lane` of w as sn_tree_collect reports it.
static inline void sn_wide_leaf(const sn_tree_wide_node *w, int lane, sn_tree_leaf *leaf) {
  leaf->aabb = (sn_aabb){{w->lower_x[lane], w->lower_y[lane]}, {w->upper_x[lane], w->upper_y[lane]}};
  leaf->category_bits = w->category_bits[lane];
  leaf->user_data = w->child[lane];
  leaf->group = w->group[lane];
}

/// sn_tree_collect over the query copy; SN_WIDE_DEEP when its stack is too
/// short for the tree (the caller walks the binary tree instead).
enum { SN_WIDE_DEEP = -2 };
static int32_t sn_tree_wide_collect(const sn_tree *tree, sn_aabb aabb, uint64_t mask_bits, sn_tree_leaf *leaves,
                                    int32_t capacity) {
  const sn_tree_wide_node *wide = tree->wide;
  const f4 qlx = f4_set(aabb.lower.x), qly = f4_set(aabb.lower.y);
  const f4 qux = f4_set(aabb.upper.x), quy = f4_set(aabb.upper.y);
  /* entries: a wide node to open (>= 0), or a leaf to report, -1 - (node * 4
   * + lane): leaves wait on the stack behind the subtrees before them, so
   * they come out in the binary tree's depth-first order */
  int32_t stack[SN_TREE_STACK_SIZE];
  int32_t top = 0, count = 0;
  stack[top++] = 0;
  while (top > 0) {
    const int32_t item = stack[--top];
    if (item < 0) {
      const int32_t ref = -1 - item;
      if (count == capacity) return -1;
      sn_wide_leaf(wide + (ref >> 2), ref & 3, leaves + count++);
      continue;
    }
    if (top + 4 > SN_TREE_STACK_SIZE) return SN_WIDE_DEEP;
    const sn_tree_wide_node *w = wide + item;
    /* sn_aabb_overlaps and the category test, four lanes at once */
    const int apart = f4_mask_bits(f4_gt(qlx, f4_load(w->upper_x))) | f4_mask_bits(f4_gt(qly, f4_load(w->upper_y))) |
                      f4_mask_bits(f4_gt(f4_load(w->lower_x), qux)) | f4_mask_bits(f4_gt(f4_load(w->lower_y), quy));
    const int bits = ((w->category_bits[0] & mask_bits) != 0) | ((w->category_bits[1] & mask_bits) != 0) << 1 |
                     ((w->category_bits[2] & mask_bits) != 0) << 2 | ((w->category_bits[3] & mask_bits) != 0) << 3;
    int hit = bits & ~apart;
    /* leaves before the first subtree are next in order: reported now */
    int lane = 0;
    for (; hit != 0 && w->child[lane = sn_lowest_bit(hit)] >= 0; hit &= hit - 1) {
      if (count == capacity) return -1;
      sn_wide_leaf(w, lane, leaves + count++);
    }
    /* the rest wait, the last on the bottom */
    for (int l = 3; l >= lane; --l) {
      if (!((hit >> l) & 1)) continue;
      const int32_t child = w->child[l];
      if (child < 0) {
        const sn_tree_wide_node *below = wide + (-1 - child);
        SN_TREE_PREFETCH(below);
        SN_TREE_PREFETCH((const char *)below + 64);
        stack[top++] = -1 - child;
      } else {
        stack[top++] = -1 - (item * 4 + l);
      }
    }
  }
  return count;
}

typedef struct sn_tree_collector {
  const sn_tree *tree;
  sn_tree_leaf *leaves;
  int32_t count, capacity;
  bool full;
} sn_tree_collector;

static bool sn_tree_collect_fcn(int32_t proxy_id, int32_t user_data, void *context) {
  sn_tree_collector *c = context;
  if (c->count == c->capacity) {
    c->full = true;
    return false;
  }
  const sn_tree_node *node = c->tree->nodes + proxy_id;
  c->leaves[c->count++] = (sn_tree_leaf){node->aabb, node->category_bits, user_data, node->group};
  return true;
}

int32_t sn_tree_collect(const sn_tree *tree, sn_aabb aabb, uint64_t mask_bits, sn_tree_leaf *leaves, int32_t capacity) {
  if (tree->root == SN_NULL_NODE) return 0;
  if (tree->wide_valid) {
    const int32_t n = sn_tree_wide_collect(tree, aabb, mask_bits, leaves, capacity);
    if (n != SN_WIDE_DEEP) return n;
  }
  sn_tree_collector c = {tree, leaves, 0, capacity, false};
  sn_tree_query(tree, aabb, mask_bits, sn_tree_collect_fcn, &c);
  return c.full ? -1 : c.count;
}

void sn_tree_leaves_query(const sn_tree_leaf *leaves, int32_t count, sn_aabb aabb, uint64_t mask_bits,
                          int32_t skip_group, sn_tree_leaves_fcn *fcn, void *context) {
  /* the hits of a run of leaves first, then their callbacks */
  enum { RUN = 64 };
  int32_t hits[RUN];
  for (int32_t first = 0; first < count; first += RUN) {
    const sn_tree_leaf *run = leaves + first;
    const int32_t n =
        sn_tree_leaves_hits(run, count - first < RUN ? count - first : RUN, aabb, mask_bits, skip_group, hits);
    for (int32_t k = 0; k < n; ++k) {
      if (!fcn(run[hits[k]].user_data, context)) return;
    }
  }
}

/// State of a ray cast, shared by the stack walk and the stackless fallback.
typedef struct sn_ray_state {
  sn_ray_input sub; ///< handed to the callback; max_fraction is the current clip
  sn_vec2 p1, d;    ///< origin and full translation
  sn_vec2 v, abs_v; ///< unit normal of the ray and its absolute value
  sn_aabb segment;  ///< box of the clipped segment
  uint64_t mask_bits;
  sn_tree_ray_cast_fcn *fcn;
  void *context;
} sn_ray_state;

static inline void sn_ray_clip(sn_ray_state *s, float max_fraction) {
  s->sub.max_fraction = max_fraction;
  sn_vec2 p2 = sn_mul_add(s->p1, max_fraction, s->d);
  s->segment.lower = sn_vmin(s->p1, p2);
  s->segment.upper = sn_vmax(s->p1, p2);
}

/// Does the clipped segment cross the node's box (and pass the filter)?
/// Separating axes: x and y (box of the segment) and the ray's normal.
static inline bool sn_ray_accepts(const sn_ray_state *s, const sn_tree_node *node) {
  if ((node->category_bits & s->mask_bits) == 0 || !sn_aabb_overlaps(node->aabb, s->segment)) return false;
  sn_vec2 c = sn_aabb_center(node->aabb);
  sn_vec2 h = sn_aabb_extents(node->aabb);
  float separation = sn_absf(sn_dot(s->v, sn_sub(s->p1, c))) - sn_dot(s->abs_v, h);
  return separation <= 0.0f;
}

/// Calls the callback on a leaf; false when it asked to stop.
static inline bool sn_ray_visit_leaf(sn_ray_state *s, int32_t index, const sn_tree_node *node) {
  float value = s->fcn(&s->sub, index, node->user_data, s->context);
  if (value == 0.0f) return false;
  // Negative (or NaN) values ignore the leaf; only a shorter ray clips.
  if (0.0f < value && value < s->sub.max_fraction) sn_ray_clip(s, value);
  return true;
}

static bool sn_tree_ray_cast_stackless(const sn_tree *tree, int32_t start, sn_ray_state *s) {
  const sn_tree_node *nodes = tree->nodes;
  int32_t index = start;
  bool descending = true;
  for (;;) {
    if (descending) {
      const sn_tree_node *node = nodes + index;
      if (sn_ray_accepts(s, node)) {
        if (node->height > 0) {
          index = node->child1;
          continue;
        }
        if (!sn_ray_visit_leaf(s, index, node)) return false;
      }
      descending = false;
    }
    if (index == start) return true;
    int32_t parent = nodes[index].parent_or_next;
    if (nodes[parent].child1 == index) {
      index = nodes[parent].child2;
      descending = true;
    } else {
      index = parent;
    }
  }
}

void sn_tree_ray_cast(const sn_tree *tree, const sn_ray_input *input, uint64_t mask_bits, sn_tree_ray_cast_fcn *fcn,
                      void *context) {
  if (tree->root == SN_NULL_NODE) return;
  if (!sn_vec2_is_finite(input->origin) || !sn_vec2_is_finite(input->translation) ||
      !sn_is_finite(input->max_fraction)) {
    assert(false && "sn_tree_ray_cast: ray input must be finite");
    return;
  }

  sn_ray_state s;
  s.sub = *input;
  s.p1 = input->origin;
  s.d = input->translation;
  // A zero translation gives v = 0: the normal axis then never separates and
  // the segment box (a point) does all the culling.
  s.v = sn_left_perp(sn_normalize(s.d));
  s.abs_v = (sn_vec2){sn_absf(s.v.x), sn_absf(s.v.y)};
  s.mask_bits = mask_bits;
  s.fcn = fcn;
  s.context = context;
  sn_ray_clip(&s, input->max_fraction);

  const sn_tree_node *nodes = tree->nodes;
  int32_t stack[SN_TREE_STACK_SIZE];
  int32_t count = 0;
  stack[count++] = tree->root;

  while (count > 0) {
    int32_t index = stack[--count];
    const sn_tree_node *node = nodes + index;
    if (!sn_ray_accepts(&s, node)) continue;

    if (node->height == 0) {
      if (!sn_ray_visit_leaf(&s, index, node)) return;
    } else if (count + 2 <= SN_TREE_STACK_SIZE) {
      stack[count++] = node->child2;
      stack[count++] = node->child1;
    } else if (!sn_tree_ray_cast_stackless(tree, index, &s)) {
      return;
    }
  }
}

/* ------------------------------------------------------------------------ */
/* Metrics and validation                                                    */

int32_t sn_tree_get_height(const sn_tree *tree) {
  return tree->root == SN_NULL_NODE ? 0 : tree->nodes[tree->root].height;
}

float sn_tree_get_area_ratio(const sn_tree *tree) {
  if (tree->root == SN_NULL_NODE) return 0.0f;
  float root_area = sn_aabb_perimeter(tree->nodes[tree->root].aabb);
  if (!(root_area > 0.0f)) return 0.0f;
  float total = 0.0f;
  for (int32_t i = 0; i < tree->node_capacity; ++i) {
    const sn_tree_node *node = tree->nodes + i;
    if (node->height > 0) total += sn_aabb_perimeter(node->aabb);
  }
  return total / root_area;
}

/// Checks node index as the walk reaches it (its parent already checked its
/// link): a leaf for its owner, an internal node for its children, heights
/// and (boxes) its box.
static sn_tree_error sn_tree_check_node(const sn_tree *tree, int32_t index, bool boxes, sn_tree_leaf_fcn *leaf_ok,
                                        const void *context) {
  int32_t cap = tree->node_capacity;
  const sn_tree_node *node = tree->nodes + index;
  if (node->height < 0) return SN_TREE_FREE_NODE_LINKED;
  if (boxes && !sn_aabb_is_valid(node->aabb)) return SN_TREE_BAD_BOX;
  if (node->height == 0) {
    if (node->child1 != SN_NULL_NODE || node->child2 != SN_NULL_NODE ||
        (leaf_ok != NULL && !leaf_ok(index, node->user_data, context)))
      return SN_TREE_BAD_LEAF;
    return SN_TREE_VALID;
  }
  int32_t c1 = node->child1, c2 = node->child2;
  if (c1 < 0 || c1 >= cap || c2 < 0 || c2 >= cap || c1 == c2 || tree->nodes[c1].parent_or_next != index ||
      tree->nodes[c2].parent_or_next != index || tree->nodes[c1].height < 0 || tree->nodes[c2].height < 0)
    return SN_TREE_BAD_CHILDREN;
  const sn_tree_node *n1 = tree->nodes + c1;
  const sn_tree_node *n2 = tree->nodes + c2;
  if (node->height != 1 + (n1->height > n2->height ? n1->height : n2->height)) return SN_TREE_BAD_HEIGHT;
  if (!boxes) return SN_TREE_VALID;
  if (!sn_aabb_contains(node->aabb, n1->aabb) || !sn_aabb_contains(node->aabb, n2->aabb)) return SN_TREE_BAD_BOX;
  if (node->category_bits != (n1->category_bits | n2->category_bits)) return SN_TREE_BAD_BOX;
  // deferred moves: unmarked is tight, and marked nodes hang below marked ones
  int32_t parent = node->parent_or_next;
  bool moved = (node->flags & SN_TREE_NODE_MOVED) != 0;
  if (moved && parent != SN_NULL_NODE && !(tree->nodes[parent].flags & SN_TREE_NODE_MOVED)) return SN_TREE_BAD_BOX;
  if (!moved) {
    sn_aabb u = sn_aabb_union(n1->aabb, n2->aabb);
    if (u.lower.x != node->aabb.lower.x || u.lower.y != node->aabb.lower.y || u.upper.x != node->aabb.upper.x ||
        u.upper.y != node->aabb.upper.y)
      return SN_TREE_BAD_BOX;
  }
  return SN_TREE_VALID;
}

/* The walk needs no stack and no memory: a node's children are checked to
 * name it as their parent before the walk enters them, so the parent links
 * lead back up, no node is reached twice (a node has one parent, the root
 * none) and the heights, falling by at least one per level, bound the depth.
 * Depth first, child2's subtree before child1's. */
sn_tree_error sn_tree_check(const sn_tree *tree, bool boxes, sn_tree_leaf_fcn *leaf_ok, const void *context,
                            sn_tree_check_report *report) {
  sn_tree_check_report local;
  sn_tree_check_report *r = report != NULL ? report : &local;
  r->error = SN_TREE_VALID;
  r->node = SN_NULL_NODE;
  r->nodes = r->leaves = 0;
  int32_t cap = tree->node_capacity;
  if (tree->nodes == NULL || cap <= 0 || tree->node_count < 0 || tree->node_count > cap || tree->proxy_count < 0 ||
      tree->proxy_count > tree->node_count || tree->root < SN_NULL_NODE || tree->root >= cap ||
      tree->free_list < SN_NULL_NODE || tree->free_list >= cap)
    return r->error = SN_TREE_BAD_HEADER;
  if (tree->root != SN_NULL_NODE) {
    if (tree->nodes[tree->root].parent_or_next != SN_NULL_NODE) return r->error = SN_TREE_ROOT_HAS_PARENT;
    int32_t i = tree->root;
    for (;;) {
      sn_tree_error e = sn_tree_check_node(tree, i, boxes, leaf_ok, context);
      if (e != SN_TREE_VALID) {
        r->node = i;
        return r->error = e;
      }
      r->nodes += 1;
      if (tree->nodes[i].height > 0) {
        i = tree->nodes[i].child2;
        continue;
      }
      r->leaves += 1;
      // up to the first ancestor entered from its child2, then its child1
      while (i != tree->root && tree->nodes[tree->nodes[i].parent_or_next].child1 == i)
        i = tree->nodes[i].parent_or_next;
      if (i == tree->root) break;
      i = tree->nodes[tree->nodes[i].parent_or_next].child1;
    }
  }
  if (r->nodes != tree->node_count || r->leaves != tree->proxy_count) return r->error = SN_TREE_BAD_COUNTS;
  // every other node on the free list, once (a cycle runs past the capacity)
  int32_t free_nodes = 0;
  for (int32_t i = tree->free_list; i != SN_NULL_NODE; i = tree->nodes[i].parent_or_next) {
    if (i < 0 || i >= cap || tree->nodes[i].height != -1 || ++free_nodes > cap) return r->error = SN_TREE_BAD_FREE_LIST;
  }
  if (free_nodes + r->nodes != cap) return r->error = SN_TREE_NODES_LOST;
  return SN_TREE_VALID;
}

bool sn_tree_validate(const sn_tree *tree) { return sn_tree_check(tree, true, NULL, NULL, NULL) == SN_TREE_VALID; }

/* ------------------------------------------------------------------------ */
/* Rebuild (top-down: binned SAH, or middle splits for the moved part)       */

typedef struct sn_build_item {
  sn_aabb box; ///< its node's box (read in order by the binning, not gathered from the nodes)
  sn_vec2 center;
  int32_t node;
  int32_t bin; ///< scratch of sn_build_partition (the item's bin on the split axis)
} sn_build_item;

static int sn_build_compare_x(const void *a, const void *b) {
  const sn_build_item *ia = a, *ib = b;
  if (ia->center.x != ib->center.x) return ia->center.x < ib->center.x ? -1 : 1;
  return (ia->node > ib->node) - (ia->node < ib->node);
}

static int sn_build_compare_y(const void *a, const void *b) {
  const sn_build_item *ia = a, *ib = b;
  if (ia->center.y != ib->center.y) return ia->center.y < ib->center.y ? -1 : 1;
  return (ia->node > ib->node) - (ia->node < ib->node);
}

static inline int32_t sn_build_bin(sn_vec2 center, int axis, float axis_lo, float scale) {
  float c = axis == 0 ? center.x : center.y;
  /* clamped as a float: boxes near FLT_MAX (a damaged snapshot) can make
   * the product inf * 0 = NaN, and converting NaN or a huge float to an
   * integer is undefined */
  float t = (c - axis_lo) * scale;
  if (!(t > 0.0f)) return 0;
  if (t >= (float)SN_TREE_BIN_COUNT) return SN_TREE_BIN_COUNT - 1;
  return (int32_t)t;
}

/// Splits items[0, count) at the middle of their centres' extent along axis
/// (those below it to the left): returns the size of the left part, 0 or
/// count when the centres all fall on one side.
static int32_t sn_build_split_middle(sn_build_item *items, int32_t count, int axis, float pivot) {
  int32_t i = 0, j = count - 1;
  for (;;) {
    while (i <= j && (axis == 0 ? items[i].center.x : items[i].center.y) < pivot) ++i;
    while (i <= j && !((axis == 0 ? items[j].center.x : items[j].center.y) < pivot)) --j;
    if (i >= j) return i;
    sn_build_item t = items[i];
    items[i] = items[j];
    items[j] = t;
  }
}

/// Chooses where to split items[0, count): returns the size of the left part
/// (1..count-1) after reordering the items. With sah the binned surface area
/// heuristic picks the split, else the middle of the centres' extent along
/// the wider axis: a few operations an item, where the binning costs a box
/// union and a bin an item, for a tree whose queries visit a few more nodes
/// (the moved part's rebuild every step, see sn_tree_rebuild_moved).
static int32_t sn_build_partition(sn_build_item *items, int32_t count, int32_t depth, bool sah) {
  sn_vec2 lo = items[0].center, hi = items[0].center;
  for (int32_t i = 1; i < count; ++i) {
    lo = sn_vmin(lo, items[i].center);
    hi = sn_vmax(hi, items[i].center);
  }
  int axis = (hi.x - lo.x) >= (hi.y - lo.y) ? 0 : 1;
  float axis_lo = axis == 0 ? lo.x : lo.y;
  float extent = axis == 0 ? hi.x - lo.x : hi.y - lo.y;
  // All centers coincide: any balanced split is as good as another.
  if (!(extent > 0.0f)) return count / 2;

  if (!sah && depth < SN_TREE_SAH_MAX_DEPTH && count > 2) {
    const int32_t left = sn_build_split_middle(items, count, axis, axis_lo + 0.5f * extent);
    // (rounding can put the middle on an end: then any balanced split does)
    return 0 < left && left < count ? left : count / 2;
  }
  if (sah && depth < SN_TREE_SAH_MAX_DEPTH && count > 2) {
    int32_t bin_count[SN_TREE_BIN_COUNT] = {0};
    sn_aabb bin_box[SN_TREE_BIN_COUNT];
    float scale = (float)SN_TREE_BIN_COUNT / extent;
    for (int32_t i = 0; i < count; ++i) {
      int32_t bin = sn_build_bin(items[i].center, axis, axis_lo, scale);
      items[i].bin = bin;
      sn_aabb box = items[i].box;
      bin_box[bin] = bin_count[bin] == 0 ? box : sn_aabb_union(bin_box[bin], box);
      bin_count[bin] += 1;
    }

    // Only the non-empty bins can end the left part: a run of empty bins
    // after bin p costs what p costs (same parts), and p comes first. Sweep
    // over those, right to left for the cost of every right part.
    int32_t used[SN_TREE_BIN_COUNT];
    int32_t k = 0;
    for (int32_t bin = 0; bin < SN_TREE_BIN_COUNT; ++bin) {
      if (bin_count[bin] > 0) used[k++] = bin;
    }
    float right_cost[SN_TREE_BIN_COUNT];
    sn_aabb right_box = bin_box[used[k - 1]];
    int32_t right_n = bin_count[used[k - 1]];
    right_cost[k - 1] = (float)right_n * sn_aabb_perimeter(right_box);
    for (int32_t u = k - 2; u > 0; --u) {
      right_box = sn_aabb_union(right_box, bin_box[used[u]]);
      right_n += bin_count[used[u]];
      right_cost[u] = (float)right_n * sn_aabb_perimeter(right_box);
    }

    int32_t best_split = -1; // last bin of the left part
    float best_cost = FLT_MAX;
    sn_aabb left_box = bin_box[used[0]];
    int32_t left_n = 0;
    for (int32_t u = 0; u < k - 1; ++u) {
      if (u > 0) left_box = sn_aabb_union(left_box, bin_box[used[u]]);
      left_n += bin_count[used[u]];
      float cost = (float)left_n * sn_aabb_perimeter(left_box) + right_cost[u + 1];
      if (cost < best_cost) {
        best_cost = cost;
        best_split = used[u];
      }
    }

    if (best_split >= 0) {
      // In-place partition by bin; deterministic for a given input order.
      int32_t i = 0, j = count - 1;
      for (;;) {
        while (i <= j && items[i].bin <= best_split) ++i;
        while (i <= j && items[j].bin > best_split) --j;
        if (i >= j) break;
        sn_build_item t = items[i];
        items[i] = items[j];
        items[j] = t;
      }
      if (0 < i && i < count) return i;
    }
  }

  // Median split along the wider axis (also bounds the recursion depth).
  int (*compare)(const void *, const void *) = axis == 0 ? sn_build_compare_x : sn_build_compare_y;
  if (count == 2) {
    // the order qsort gives two items, without the call (the most common case)
    if (compare(items, items + 1) > 0) {
      sn_build_item t = items[0];
      items[0] = items[1];
      items[1] = t;
    }
    return 1;
  }
  qsort(items, (size_t)count, sizeof(sn_build_item), compare);
  return count / 2;
}

/// Makes node index the internal node over child1 and child2 (as
/// sn_tree_alloc_node leaves a node, then linked and refit).
static void sn_tree_make_node(sn_tree_node *nodes, int32_t index, int32_t child1, int32_t child2) {
  sn_tree_node *node = nodes + index;
  node->parent_or_next = SN_NULL_NODE;
  node->child1 = child1;
  node->child2 = child2;
  node->user_data = -1;
  node->flags = 0;
  nodes[child1].parent_or_next = index;
  nodes[child2].parent_or_next = index;
  sn_tree_refit(nodes, index);
}

/// Builds the subtree of items[0, count) (split by sn_build_partition with
/// sah); returns its root. Its internal nodes come from pool, children
/// first: the left subtree's left - 1 nodes, then the right's, then its
/// root, pool[count - 2] (the order in which a build popping them off the
/// free list would take them, sn_tree_take_nodes). Writes only those nodes and the parents of its
/// items' nodes, so disjoint subtrees build on separate threads.
static int32_t sn_tree_build_pooled(sn_tree_node *nodes, sn_build_item *items, int32_t count, int32_t depth,
                                    const int32_t *pool, bool sah) {
  if (count == 1) return items[0].node;
  const int32_t left = sn_build_partition(items, count, depth, sah);
  const int32_t child1 = sn_tree_build_pooled(nodes, items, left, depth + 1, pool, sah);
  const int32_t child2 = sn_tree_build_pooled(nodes, items + left, count - left, depth + 1, pool + (left - 1), sah);
  const int32_t index = pool[count - 2];
  sn_tree_make_node(nodes, index, child1, child2);
  return index;
}

/// Takes count nodes off the free list into pool, in order (the nodes a
/// build over count + 1 items takes, sn_tree_build_pooled).
static void sn_tree_take_nodes(sn_tree *tree, int32_t *pool, int32_t count) {
  for (int32_t k = 0; k < count; ++k) {
    assert(tree->free_list != SN_NULL_NODE);
    pool[k] = tree->free_list;
    tree->free_list = tree->nodes[tree->free_list].parent_or_next;
  }
  tree->node_count += count;
}

void sn_tree_rebuild(sn_tree *tree) {
  int32_t n = tree->proxy_count;
  if (n <= 2) return; // already optimal
  size_t bytes = (size_t)n * (sizeof(sn_build_item) + sizeof(int32_t));
  sn_build_item *items = sn_mem_alloc(tree->mem, bytes);
  if (items == NULL) return; // keep the current tree
  tree->wide_valid = false;
  int32_t *pool = (int32_t *)(items + n);

  // Leaves keep their node index (the proxy id); internal nodes are recycled.
  // The n - 1 freed internal nodes are exactly what the build takes.
  int32_t count = 0;
  for (int32_t i = 0; i < tree->node_capacity; ++i) {
    sn_tree_node *node = tree->nodes + i;
    if (node->height == 0) {
      items[count].box = node->aabb;
      items[count].center = sn_aabb_center(node->aabb);
      items[count].node = i;
      count += 1;
    } else if (node->height > 0) {
      sn_tree_free_node(tree, i);
    }
  }
  assert(count == n);

  sn_tree_take_nodes(tree, pool, count - 1);
  int32_t root = sn_tree_build_pooled(tree->nodes, items, count, 0, pool, true);
  tree->nodes[root].parent_or_next = SN_NULL_NODE;
  tree->root = root;
  sn_mem_free(tree->mem, items, bytes);
}

/* ------------------------------------------------------------------------ */
/* Partial rebuild after deferred moves                                      */

/// A marked node as it was before the rebuild freed it (the undo record).
typedef struct sn_tree_saved_node {
  sn_tree_node node;
  int32_t index;
} sn_tree_saved_node;

/* The scratch of a rebuild over n proxies: the saved marked nodes (at most
 * n - 1), the items and the traversal stack (both hold disjoint subtrees, so
 * at most n entries each), the items' parents before the rebuild, and the
 * nodes the build takes from the free list, in order. */
static size_t sn_tree_rebuild_bytes(size_t n) {
  return n * (sizeof(sn_tree_saved_node) + sizeof(sn_build_item) + 4 * sizeof(int32_t));
}

/* The first levels of a rebuild, split on the calling thread; the subtrees
 * below them are the jobs. */
enum { SN_TREE_SPLIT_LEVELS = 2, SN_TREE_SPLIT_JOBS = 1 << SN_TREE_SPLIT_LEVELS };
/// Fewer items than this per subtree are not worth a job of their own.
#define SN_TREE_SPLIT_MIN 256

typedef struct sn_tree_split {
  sn_tree_node *nodes;
  struct {
    sn_build_item *items;
    int32_t count, depth;
    const int32_t *pool;
    int32_t root;
  } jobs[SN_TREE_SPLIT_JOBS];
  int32_t job_count;
  int32_t lefts[SN_TREE_SPLIT_JOBS]; ///< the first levels' splits, in the order they were made
  int32_t left_count;
} sn_tree_split;

/* Is the subtree of count items at depth a job of its own? */
static bool sn_tree_split_job_at(int32_t count, int32_t depth) {
  return depth == SN_TREE_SPLIT_LEVELS || count < 2 * SN_TREE_SPLIT_MIN;
}

/* Splits items[0, count) as sn_tree_build_pooled does, down to level
 * SN_TREE_SPLIT_LEVELS; the subtrees there become jobs. */
static void sn_tree_split_levels(sn_tree_split *sp, sn_build_item *items, int32_t count, int32_t depth,
                                 const int32_t *pool) {
  if (sn_tree_split_job_at(count, depth)) {
    sp->jobs[sp->job_count].items = items;
    sp->jobs[sp->job_count].count = count;
    sp->jobs[sp->job_count].depth = depth;
    sp->jobs[sp->job_count].pool = pool;
    sp->job_count += 1;
    return;
  }
  const int32_t left = sn_build_partition(items, count, depth, false);
  sp->lefts[sp->left_count++] = left;
  sn_tree_split_levels(sp, items, left, depth + 1, pool);
  sn_tree_split_levels(sp, items + left, count - left, depth + 1, pool + (left - 1));
}

/* The first levels' nodes over the jobs' roots (the split's order again);
 * returns the root. */
static int32_t sn_tree_join_levels(sn_tree_split *sp, int32_t count, int32_t depth, const int32_t *pool, int32_t *job,
                                   int32_t *split) {
  if (sn_tree_split_job_at(count, depth)) return sp->jobs[(*job)++].root;
  const int32_t left = sp->lefts[(*split)++];
  const int32_t child1 = sn_tree_join_levels(sp, left, depth + 1, pool, job, split);
  const int32_t child2 = sn_tree_join_levels(sp, count - left, depth + 1, pool + (left - 1), job, split);
  const int32_t index = pool[count - 2];
  sn_tree_make_node(sp->nodes, index, child1, child2);
  return index;
}

static void sn_tree_split_job(void *context, int32_t i) {
  sn_tree_split *sp = context;
  sp->jobs[i].root =
      sn_tree_build_pooled(sp->nodes, sp->jobs[i].items, sp->jobs[i].count, sp->jobs[i].depth, sp->jobs[i].pool, false);
}

bool sn_tree_reserve_rebuild(sn_tree *tree) {
  size_t need = sn_tree_rebuild_bytes((size_t)tree->proxy_count);
  if (tree->scratch_bytes >= need) return true;
  // grown by doubling: a step does not allocate once the tree stopped growing
  size_t bytes = tree->scratch_bytes > 0 ? tree->scratch_bytes : sn_tree_rebuild_bytes(64);
  while (bytes < need) bytes *= 2;
  void *scratch = sn_mem_alloc(tree->mem, bytes);
  if (scratch == NULL) return false;
  sn_mem_free(tree->mem, tree->scratch, tree->scratch_bytes);
  tree->scratch = scratch;
  tree->scratch_bytes = bytes;
  return true;
}

void sn_tree_rebuild_moved(sn_tree *tree) { sn_tree_rebuild_moved_with(tree, NULL, NULL); }

void sn_tree_rebuild_moved_with(sn_tree *tree, sn_tree_jobs_fcn *run, void *runner) {
  tree->undo_items = -1;
  int32_t root = tree->root;
  if (root == SN_NULL_NODE || tree->nodes[root].height == 0 || !(tree->nodes[root].flags & SN_TREE_NODE_MOVED)) return;
  if (!sn_tree_reserve_rebuild(tree)) return; // keep the loose tree: queries stay exact
  tree->wide_valid = false;

  size_t n = (size_t)tree->proxy_count;
  sn_tree_saved_node *saved = tree->scratch;
  sn_build_item *items = (sn_build_item *)(saved + n);
  int32_t *stack = (int32_t *)(items + n);
  int32_t *parents = stack + n;    // item k's node and its parent before the rebuild: 2 k, 2 k + 1
  int32_t *pool = parents + 2 * n; // the nodes the build takes, in the order it takes them
  tree->undo_root = root;
  tree->undo_free_list = tree->free_list;
  tree->undo_node_count = tree->node_count;

  // Marked nodes are freed (and saved); the unmarked subtrees (tight, with no
  // marked node inside) and the leaves right below them become the items of
  // the build.
  sn_tree_node *nodes = tree->nodes;
  int32_t count = 0, marked = 0, top = 0;
  stack[top++] = root;
  while (top > 0) {
    int32_t index = stack[--top];
    sn_tree_node *node = nodes + index;
    if (node->height == 0 || !(node->flags & SN_TREE_NODE_MOVED)) {
      items[count].box = node->aabb;
      items[count].center = sn_aabb_center(node->aabb);
      items[count].node = index;
      parents[2 * count] = index;
      parents[2 * count + 1] = node->parent_or_next;
      count += 1;
      continue;
    }
    stack[top++] = node->child2;
    stack[top++] = node->child1;
    saved[marked].node = *node;
    saved[marked].index = index;
    marked += 1;
    sn_tree_free_node(tree, index);
  }
  assert(count >= 2 && (size_t)count <= n);
  // a binary tree over count items has count - 1 internal nodes: the build
  // takes back exactly the nodes just freed (the free list is a stack)
  assert(marked == count - 1);

  /* the nodes the build takes off the free list, in order; subtrees take
   * their parts of them (sn_tree_build_pooled), on other threads with run */
  sn_tree_take_nodes(tree, pool, count - 1);
  if (run == NULL || count < 2 * SN_TREE_SPLIT_MIN) {
    root = sn_tree_build_pooled(nodes, items, count, 0, pool, false);
  } else {
    sn_tree_split sp;
    sp.nodes = nodes;
    sp.job_count = sp.left_count = 0;
    sn_tree_split_levels(&sp, items, count, 0, pool);
    run(runner, sp.job_count, sn_tree_split_job, &sp);
    int32_t job = 0, split = 0;
    root = sn_tree_join_levels(&sp, count, 0, pool, &job, &split);
  }
  tree->nodes[root].parent_or_next = SN_NULL_NODE;
  tree->root = root;
  tree->undo_items = count;
}

void sn_tree_undo_rebuild(sn_tree *tree) {
  int32_t count = tree->undo_items;
  if (count < 0) return;
  tree->undo_items = -1;
  tree->wide_valid = false;
  size_t n = (size_t)tree->proxy_count;
  const sn_tree_saved_node *saved = tree->scratch;
  const sn_build_item *items = (const sn_build_item *)(saved + n);
  const int32_t *parents = (const int32_t *)(items + n) + n;
  // the build's internal nodes are the marked ones' slots: each gets its old
  // node back, the items their old parents, the free list its old head
  for (int32_t k = 0; k < count - 1; ++k) tree->nodes[saved[k].index] = saved[k].node;
  for (int32_t k = 0; k < count; ++k) tree->nodes[parents[2 * k]].parent_or_next = parents[2 * k + 1];
  tree->root = tree->undo_root;
  tree->free_list = tree->undo_free_list;
  tree->node_count = tree->undo_node_count;
}
