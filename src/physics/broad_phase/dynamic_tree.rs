//! The dynamic AABB tree: a binary bounding volume hierarchy over the proxies' fat AABBs
//! (Catto, GDC 2019, "Dynamic AABB trees"; Box2D's `b2DynamicTree`).
//!
//! - **Layout.** Nodes live in one `Vec` and refer to each other by `u32` index, with
//!   `NULL_NODE` for "none"; freed nodes are chained through their `parent` field into a free
//!   list. Leaves are proxies, and a leaf keeps its index for its whole life (re-insertion unlinks
//!   and relinks the same node, rotations relink nodes without moving them), so a [`ProxyId`] is
//!   simply the leaf's node index.
//! - **Insertion by the surface-area heuristic (SAH).** The expected cost of a query is
//!   proportional to the total surface area of the internal nodes (a random ray or box hits a
//!   node with probability ∝ its area). Making leaf L the sibling of node S adds a new internal
//!   node of area A(S ∪ L) and grows every ancestor P of S by A(P ∪ L) − A(P), the "inherited"
//!   cost. We walk down from the root, comparing the cost of pairing L with the current node to
//!   a cost for each child, and follow the cheaper child (see `DynamicTree::pick_sibling`).
//! - **Balance.** SAH alone degenerates into a list for sorted input (each new box extends the
//!   last), so after every change the ancestors are rebalanced with AVL rotations by height
//!   (Adelson-Velsky & Landis 1962; Box2D v2 `b2DynamicTree::Balance`). Every internal node keeps
//!   |height(a) − height(b)| ≤ 1, which bounds the height by about 1.44·log2(n).
//! - **Many moves at once** (`move_proxies`): when at least a quarter of the proxies take
//!   new boxes together (a pile falling in step leaves its fat boxes in the same step),
//!   the tree is built afresh instead, top down, each node splitting its leaves at the
//!   median of their centres along the longest axis of the centres' bounds (`rebuild`).
//!   A re-insertion costs about 2 000 instructions and a rebuild about 1 100 a leaf, but
//!   the rebuild is shared by the workers and leaves a better tree for the queries after
//!   it (on a falling pile a fraction of a half to a sixteenth gave one-thread totals
//!   within 0.3 %). Halves that differ by at most one leaf keep the AVL invariant.
//! - **Pairs.** `update_pairs` queries the tree with the fat AABB of every proxy in the move
//!   buffer, then sorts the pairs, so the report never depends on the tree's shape.

use super::{
    fatten_aabb, needs_reinsert, ordered_pair, BroadPhase, BroadPhaseNode, ProxyId, ProxyMove,
};
use crate::physics::aabb::Aabb;
use crate::physics::solver::crew::{for_each_block, Shared};
use glam::Vec3;

/// The "no node" index: the root's parent, a leaf's children, the end of the free list.
const NULL_NODE: u32 = u32::MAX;

/// How many node indices a traversal keeps on the program stack before spilling to the heap.
/// A depth-first traversal holds at most height + 1 indices, and an AVL tree of 2³² leaves is
/// under 47 high, so 64 means the spill vector is never allocated in practice.
const INLINE_STACK_CAPACITY: usize = 64;

/// [`BroadPhase::move_proxies`] rebuilds the tree when the proxies taking new boxes are
/// at least the proxy count divided by this (see the module documentation).
const REBUILD_DIVISOR: usize = 4;

/// Levels of the rebuilt tree that the calling thread splits; the subtrees under them (up
/// to 2^levels) are built on the workers ([`DynamicTree::rebuild`]).
const REBUILD_TOP_LEVELS: u32 = 3;

/// Fewest leaves of a subtree the rebuild builds as a task of its own (a run of fewer
/// than twice this is not split further on the calling thread).
const MIN_REBUILD_TASK: usize = 256;

/// A leaf as [`DynamicTree::rebuild`] sorts it: its box's centre as integers that order
/// as the floats do (twice the centre, min + max: only the order counts), and its node.
#[derive(Clone, Copy, Debug)]
struct BuildLeaf {
    key: [u32; 3],
    leaf: u32,
}

impl BuildLeaf {
    fn new(leaf: u32, aabb: &Aabb) -> Self {
        let centre = aabb.min + aabb.max;
        Self {
            key: centre.to_array().map(ordered_bits),
            leaf,
        }
    }

    /// The key along `axis`, ties broken by the node index.
    #[inline]
    fn key_along(&self, axis: usize) -> u64 {
        (self.key[axis] as u64) << 32 | self.leaf as u64
    }
}

/// `x`'s bits turned so that their unsigned order is the floats' total order (negative
/// floats flipped whole, the others with the sign bit set).
#[inline]
fn ordered_bits(x: f32) -> u32 {
    let bits = x.to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}

/// The float that [`ordered_bits`] turned into `key`.
#[inline]
fn from_ordered_bits(key: u32) -> f32 {
    f32::from_bits(if key >> 31 == 1 {
        key & !(1 << 31)
    } else {
        !key
    })
}

/// Splits `leaves` (two or more) at the median of their centres along the axis on which
/// the centres spread most, the lower half first, and returns the split (`len / 2`).
/// Ties go by node index, so the split is the same on any machine.
fn split_leaves(leaves: &mut [BuildLeaf]) -> usize {
    let (mut low, mut high) = ([u32::MAX; 3], [0u32; 3]);
    for item in leaves.iter() {
        for k in 0..3 {
            low[k] = low[k].min(item.key[k]);
            high[k] = high[k].max(item.key[k]);
        }
    }
    let spread: [f32; 3] =
        std::array::from_fn(|k| from_ordered_bits(high[k]) - from_ordered_bits(low[k]));
    let axis = if spread[0] >= spread[1] && spread[0] >= spread[2] {
        0
    } else if spread[1] >= spread[2] {
        1
    } else {
        2
    };
    let half = leaves.len() / 2;
    leaves.select_nth_unstable_by_key(half, |item| item.key_along(axis));
    half
}

/// The top `levels` levels of splits over `leaves` (positions `start..` of the whole
/// order); the runs under them go to `tasks` as (start, length), in order.
fn split_top(leaves: &mut [BuildLeaf], start: usize, levels: u32, tasks: &mut Vec<(usize, usize)>) {
    if levels == 0 || leaves.len() < 2 * MIN_REBUILD_TASK {
        if !leaves.is_empty() {
            tasks.push((start, leaves.len()));
        }
        return;
    }
    let half = split_leaves(leaves);
    let (first, second) = leaves.split_at_mut(half);
    split_top(first, start, levels - 1, tasks);
    split_top(second, start + half, levels - 1, tasks);
}

/// The root of the subtree over positions `start..start + len`: the leaf itself for one,
/// else the node of its first split (at `start + len / 2`).
fn subtree_root(leaves: &[BuildLeaf], slots: &[u32], start: usize, len: usize) -> u32 {
    if len == 1 {
        leaves[start].leaf
    } else {
        slots[start + len / 2 - 1]
    }
}

/// Builds the subtree over `leaves` (positions `start..` of the whole order, at least
/// one) into `nodes` and returns its root: a run of two or more is split
/// ([`split_leaves`]) under the node of its split position. The recursion is as deep as
/// the subtree, about log2 of its leaves.
fn build_subtree(
    nodes: Shared<Node>,
    leaves: &mut [BuildLeaf],
    start: usize,
    slots: &[u32],
) -> u32 {
    if let [only] = leaves {
        return only.leaf;
    }
    let half = split_leaves(leaves);
    let (first, second) = leaves.split_at_mut(half);
    let child_a = build_subtree(nodes, first, start, slots);
    let child_b = build_subtree(nodes, second, start + half, slots);
    let parent = slots[start + half - 1];
    // SAFETY: this run's leaves and gap nodes are this call's alone (`DynamicTree::rebuild`).
    unsafe { link_nodes(nodes, parent, child_a, child_b) };
    parent
}

/// Makes `child_a` and `child_b` the children of `parent`: its box their union, its
/// height one more than the taller's.
///
/// # Safety
/// No other thread may use those three nodes meanwhile.
#[inline]
unsafe fn link_nodes(nodes: Shared<Node>, parent: u32, child_a: u32, child_b: u32) {
    // SAFETY: the three nodes are the caller's alone.
    let (a, b) = unsafe { (*nodes.at(child_a as usize), *nodes.at(child_b as usize)) };
    // SAFETY: as above.
    unsafe {
        *nodes.at_mut(parent as usize) = Node {
            aabb: a.aabb.union(&b.aabb),
            parent: NULL_NODE,
            child_a,
            child_b,
            height: 1 + a.height.max(b.height),
            user: NULL_NODE,
            free: false,
            moved: false,
        };
        nodes.at_mut(child_a as usize).parent = parent;
        nodes.at_mut(child_b as usize).parent = parent;
    }
}

/// One node of the tree.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// For a leaf, the proxy's fat AABB; for an internal node, exactly the union of its
    /// children's boxes.
    aabb: Aabb,
    /// The parent node (NULL for the root); for a free node, the next node of the free list.
    parent: u32,
    /// First child, NULL for a leaf (a node is a leaf exactly when this is NULL).
    child_a: u32,
    /// Second child, NULL for a leaf.
    child_b: u32,
    /// Edges on the longest path down to a leaf: 0 for a leaf.
    height: u32,
    /// The proxy's user value (leaves only).
    user: u32,
    /// True while the node sits in the free list.
    free: bool,
    /// True while the leaf is in the move buffer.
    moved: bool,
}

impl Node {
    /// A fresh leaf with no links.
    fn leaf(aabb: Aabb, user: u32) -> Self {
        Self {
            aabb,
            parent: NULL_NODE,
            child_a: NULL_NODE,
            child_b: NULL_NODE,
            height: 0,
            user,
            free: false,
            moved: false,
        }
    }

    /// True for a proxy (no children).
    #[inline]
    fn is_leaf(&self) -> bool {
        self.child_a == NULL_NODE
    }
}

/// A depth-first traversal stack of node indices: a fixed array on the program stack that
/// spills into a `Vec` only past [`INLINE_STACK_CAPACITY`], so queries never allocate.
struct NodeStack {
    inline: [u32; INLINE_STACK_CAPACITY],
    len: usize,
    spill: Vec<u32>,
}

impl NodeStack {
    /// A stack holding `first` unless it is NULL (the root of an empty tree).
    fn starting_at(first: u32) -> Self {
        let mut stack = Self {
            inline: [NULL_NODE; INLINE_STACK_CAPACITY],
            len: 0,
            spill: Vec::new(),
        };
        if first != NULL_NODE {
            stack.push(first);
        }
        stack
    }

    /// Pushes an index (onto the spill vector only once the array is full).
    #[inline]
    fn push(&mut self, index: u32) {
        if self.len < INLINE_STACK_CAPACITY {
            self.inline[self.len] = index;
            self.len += 1;
        } else {
            self.spill.push(index);
        }
    }

    /// Pops the most recently pushed index. The spill vector only holds entries while the array
    /// is full, so draining it first keeps last-in, first-out order.
    #[inline]
    fn pop(&mut self) -> Option<u32> {
        if let Some(index) = self.spill.pop() {
            return Some(index);
        }
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.inline[self.len])
    }
}

/// The dynamic AABB tree broad phase. See the module documentation.
#[derive(Clone, Debug)]
pub struct DynamicTree {
    /// All nodes, live or free, indexed by node id.
    nodes: Vec<Node>,
    /// The root node, NULL when the tree is empty.
    root: u32,
    /// Head of the free list (chained through `Node::parent`), NULL when empty.
    free_list: u32,
    /// Number of nodes in the free list.
    free_count: usize,
    /// Number of leaves (live proxies).
    proxy_count: usize,
    /// Proxies created, re-inserted or touched since the last `update_pairs`.
    move_buffer: Vec<ProxyId>,
    /// Scratch for `update_pairs`, kept to avoid allocating every step.
    pair_buffer: Vec<(u32, u32)>,
    /// What each block of moved proxies found (`update_pairs` on several workers).
    block_pairs: super::BlockPairs,
    /// Node boxes tested in the last `update_pairs`.
    tests: u64,
    /// Scratch for `rebuild`: the leaves with their keys, the new internal nodes, the
    /// subtrees built as tasks.
    rebuild_leaves: Vec<BuildLeaf>,
    rebuild_slots: Vec<u32>,
    rebuild_tasks: Vec<(usize, usize)>,
}

impl Default for DynamicTree {
    fn default() -> Self {
        Self::new()
    }
}

impl DynamicTree {
    /// An empty tree.
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    /// An empty tree with room for `proxies` proxies (2·proxies − 1 nodes) before reallocating.
    pub fn with_capacity(proxies: usize) -> Self {
        Self {
            nodes: Vec::with_capacity((2 * proxies).saturating_sub(1)),
            root: NULL_NODE,
            free_list: NULL_NODE,
            free_count: 0,
            proxy_count: 0,
            move_buffer: Vec::with_capacity(proxies),
            pair_buffer: Vec::new(),
            block_pairs: Vec::new(),
            tests: 0,
            rebuild_leaves: Vec::new(),
            rebuild_slots: Vec::new(),
            rebuild_tasks: Vec::new(),
        }
    }

    /// Height of the tree: edges on the longest root-to-leaf path (0 when empty or a single
    /// proxy). The AVL invariant keeps it below 1.44·log2(n + 2), hence within 2·log2(n) + 2.
    pub fn height(&self) -> u32 {
        if self.root == NULL_NODE {
            0
        } else {
            self.nodes[self.root as usize].height
        }
    }

    /// Number of nodes in use: 2n − 1 for n ≥ 1 proxies (n leaves, n − 1 internal nodes).
    pub fn node_count(&self) -> usize {
        self.nodes.len() - self.free_count
    }

    /// Tree quality: total surface area of the internal nodes divided by the root's area, the
    /// SAH cost of a query relative to testing the root alone (Box2D `GetAreaRatio`). Lower is
    /// better; 0 for fewer than two proxies.
    pub fn area_ratio(&self) -> f32 {
        if self.root == NULL_NODE {
            return 0.0;
        }
        let root_area = self.nodes[self.root as usize].aabb.surface_area();
        if root_area <= 0.0 {
            return 0.0;
        }
        let internal_area: f32 = self
            .live_nodes()
            .filter(|(_, node)| !node.is_leaf())
            .map(|(_, node)| node.aabb.surface_area())
            .sum();
        internal_area / root_area
    }

    /// Live (non-free) nodes with their indices, in index order.
    fn live_nodes(&self) -> impl Iterator<Item = (u32, &Node)> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, node)| !node.free)
            .map(|(index, node)| (index as u32, node))
    }

    /// The leaf of a live proxy; panics on a destroyed or unknown id (a caller bug).
    fn leaf(&self, proxy: ProxyId) -> &Node {
        match self.nodes.get(proxy as usize) {
            Some(node) if !node.free && node.is_leaf() => node,
            _ => panic!("dynamic tree: proxy {proxy} is not live"),
        }
    }

    /// Mutable access to `index`'s node (no liveness check: internal use).
    #[inline]
    fn node_mut(&mut self, index: u32) -> &mut Node {
        &mut self.nodes[index as usize]
    }

    /// Height of node `index`.
    #[inline]
    fn height_of(&self, index: u32) -> u32 {
        self.nodes[index as usize].height
    }

    /// Takes a node from the free list (or grows the vector) and initialises it as `node`.
    fn allocate_node(&mut self, node: Node) -> u32 {
        if self.free_list == NULL_NODE {
            self.nodes.push(node);
            return (self.nodes.len() - 1) as u32;
        }
        let index = self.free_list;
        self.free_list = self.nodes[index as usize].parent;
        self.free_count -= 1;
        self.nodes[index as usize] = node;
        index
    }

    /// Returns a node to the free list.
    fn free_node(&mut self, index: u32) {
        let next = self.free_list;
        let node = self.node_mut(index);
        node.free = true;
        node.moved = false;
        node.parent = next;
        node.child_a = NULL_NODE;
        node.child_b = NULL_NODE;
        node.height = 0;
        self.free_list = index;
        self.free_count += 1;
    }

    /// Puts a proxy in the move buffer unless it is already there.
    fn buffer_move(&mut self, proxy: ProxyId) {
        if !self.nodes[proxy as usize].moved {
            self.node_mut(proxy).moved = true;
            self.move_buffer.push(proxy);
        }
    }

    /// Chooses the node that the new leaf with box `leaf_aabb` will become the sibling of.
    ///
    /// Greedy SAH descent (Catto 2019). At node N with inherited cost I (the growth of N's
    /// ancestors), pairing the leaf L with N costs A(N ∪ L) + I. Going into N's child C first
    /// grows N itself, so C inherits I' = I + A(N ∪ L) − A(N); then
    /// - if C is a leaf, pairing with it costs exactly A(C ∪ L) + I';
    /// - otherwise any choice inside C costs at least A(L) (the new node contains L) plus C's own
    ///   growth A(C ∪ L) − A(C), plus I' (Catto's branch-and-bound lower bound).
    ///
    /// We follow the cheaper child while it beats stopping at N. Unlike Box2D v2 we only stop at
    /// nodes of height ≤ 1: pairing L (height 0) with a taller subtree would unbalance the new
    /// parent by more than one, which a single rotation cannot repair. Stopping low keeps the
    /// strict AVL invariant, and with it the height bound, for any insertion order.
    fn pick_sibling(&self, start: u32, leaf_aabb: &Aabb) -> u32 {
        let leaf_area = leaf_aabb.surface_area();
        let mut index = start;
        let mut inherited = 0.0f32;
        loop {
            let node = &self.nodes[index as usize];
            if node.is_leaf() {
                return index;
            }
            let combined_area = union_area(&node.aabb, leaf_aabb);
            let cost_here = combined_area + inherited;
            let child_inherited = inherited + (combined_area - node.aabb.surface_area());
            let cost_a = self.descent_cost(node.child_a, leaf_aabb, leaf_area, child_inherited);
            let cost_b = self.descent_cost(node.child_b, leaf_aabb, leaf_area, child_inherited);
            if node.height <= 1 && cost_here <= cost_a.min(cost_b) {
                return index;
            }
            // Ties go to child_a so the choice is deterministic.
            index = if cost_a <= cost_b {
                node.child_a
            } else {
                node.child_b
            };
            inherited = child_inherited;
        }
    }

    /// The (lower bound of the) SAH cost of placing the leaf inside `child`; see
    /// [`Self::pick_sibling`].
    fn descent_cost(&self, child: u32, leaf_aabb: &Aabb, leaf_area: f32, inherited: f32) -> f32 {
        let node = &self.nodes[child as usize];
        let area = union_area(&node.aabb, leaf_aabb);
        if node.is_leaf() {
            area + inherited
        } else {
            leaf_area + (area - node.aabb.surface_area()) + inherited
        }
    }

    /// Links the detached leaf `leaf` into the tree: a new internal node takes the chosen
    /// sibling's place and adopts the sibling and the leaf; then the ancestors are refitted and
    /// rebalanced.
    fn insert_leaf(&mut self, leaf: u32) {
        self.insert_leaf_under(leaf, self.root);
    }

    /// [`Self::insert_leaf`] with the descent starting at `start` (the root, or a node of the
    /// tree whose box holds the leaf's).
    fn insert_leaf_under(&mut self, leaf: u32, start: u32) {
        if self.root == NULL_NODE {
            self.root = leaf;
            self.node_mut(leaf).parent = NULL_NODE;
            return;
        }
        let leaf_aabb = self.nodes[leaf as usize].aabb;
        let sibling = self.pick_sibling(start, &leaf_aabb);
        let sibling_node = self.nodes[sibling as usize];
        let old_parent = sibling_node.parent;
        let new_parent = self.allocate_node(Node {
            aabb: leaf_aabb.union(&sibling_node.aabb),
            parent: old_parent,
            child_a: sibling,
            child_b: leaf,
            height: sibling_node.height + 1,
            user: NULL_NODE,
            free: false,
            moved: false,
        });
        self.node_mut(sibling).parent = new_parent;
        self.node_mut(leaf).parent = new_parent;
        self.replace_child(old_parent, sibling, new_parent);
        self.rebalance_upwards(old_parent);
    }

    /// Unlinks `leaf` from the tree (the node itself stays allocated): its sibling takes the
    /// parent's place, the parent is freed, and the ancestors are refitted and rebalanced.
    /// Returns the sibling (NULL when the leaf was the root).
    fn remove_leaf(&mut self, leaf: u32) -> u32 {
        if leaf == self.root {
            self.root = NULL_NODE;
            return NULL_NODE;
        }
        let parent = self.nodes[leaf as usize].parent;
        let parent_node = self.nodes[parent as usize];
        let grandparent = parent_node.parent;
        let sibling = if parent_node.child_a == leaf {
            parent_node.child_b
        } else {
            parent_node.child_a
        };
        self.node_mut(sibling).parent = grandparent;
        self.replace_child(grandparent, parent, sibling);
        self.free_node(parent);
        self.node_mut(leaf).parent = NULL_NODE;
        self.rebalance_upwards(grandparent);
        sibling
    }

    /// The lowest node from `from` up whose box holds `aabb`, or the root: where a moved
    /// leaf's descent starts (`from`: the sibling it left; Bullet's `btDbvt::update` can
    /// climb a fixed number of levels from there instead). A box that moved a little is
    /// still inside its old neighbourhood's box; placed inside it no box above grows, the
    /// cost the descent from the root weighs, and the descent takes a few levels instead of
    /// the tree's height. The refit walk then stops early too. Only the tree's shape depends
    /// on where a leaf goes, never the pairs it reports (sorted, from the boxes alone).
    fn containing_ancestor(&self, from: u32, aabb: &Aabb) -> u32 {
        let mut index = from;
        while index != NULL_NODE && index != self.root {
            let node = &self.nodes[index as usize];
            if node.aabb.contains(aabb) {
                return index;
            }
            index = node.parent;
        }
        self.root
    }

    /// Builds the tree afresh over its leaves (their boxes as they are). Every internal
    /// node is freed and `n − 1` are taken back, in free-list order, as the new tree's
    /// internal nodes: the node splitting the run of leaves at position m (of the order
    /// [`split_leaves`] leaves them in) is the (m − 1)-th, so every subtree's nodes are
    /// known before it is built. The top [`REBUILD_TOP_LEVELS`] levels are split here; the
    /// subtrees under them are built on every worker the step may use
    /// (`for_each_block`: each writes only its own leaves and nodes); then the top nodes
    /// are linked here. The same leaves and boxes give the same tree at any worker count.
    fn rebuild(&mut self) {
        let mut leaves = std::mem::take(&mut self.rebuild_leaves);
        leaves.clear();
        for index in 0..self.nodes.len() as u32 {
            let node = &self.nodes[index as usize];
            if node.free {
                continue;
            }
            if node.is_leaf() {
                leaves.push(BuildLeaf::new(index, &node.aabb));
            } else {
                self.free_node(index);
            }
        }
        let mut slots = std::mem::take(&mut self.rebuild_slots);
        slots.clear();
        for _ in 1..leaves.len() {
            // Linked, box and height set, by `link_nodes`.
            slots
                .push(self.allocate_node(Node::leaf(Aabb::new(Vec3::ZERO, Vec3::ZERO), NULL_NODE)));
        }
        let mut tasks = std::mem::take(&mut self.rebuild_tasks);
        tasks.clear();
        split_top(&mut leaves, 0, REBUILD_TOP_LEVELS, &mut tasks);
        {
            let nodes = Shared::new(&mut self.nodes);
            let shared_leaves = Shared::new(&mut leaves);
            let (slots, tasks) = (&slots, &tasks);
            for_each_block(tasks.len(), 1, &|range| {
                for &(start, len) in &tasks[range] {
                    // SAFETY: the tasks are disjoint runs of the leaves; the subtree over
                    // positions start..start + len writes only those leaves' nodes and the
                    // nodes of the gaps inside the run (`slots[start..start + len - 1]`).
                    let run = unsafe { shared_leaves.slice(start..start + len) };
                    build_subtree(nodes, run, start, slots);
                }
            });
        }
        self.root = match leaves.len() {
            0 => NULL_NODE,
            n => self.link_top(&leaves, &slots, 0, n, REBUILD_TOP_LEVELS),
        };
        if self.root != NULL_NODE {
            self.node_mut(self.root).parent = NULL_NODE;
        }
        self.rebuild_leaves = leaves;
        self.rebuild_slots = slots;
        self.rebuild_tasks = tasks;
    }

    /// The top `levels` levels of the rebuilt tree over positions `start..start + len`
    /// (split as [`split_top`] did), whose subtrees below are built: links each top node
    /// to the roots of its halves ([`subtree_root`]) and returns this range's root.
    fn link_top(
        &mut self,
        leaves: &[BuildLeaf],
        slots: &[u32],
        start: usize,
        len: usize,
        levels: u32,
    ) -> u32 {
        if levels == 0 || len < 2 * MIN_REBUILD_TASK {
            return subtree_root(leaves, slots, start, len);
        }
        let half = len / 2;
        let child_a = self.link_top(leaves, slots, start, half, levels - 1);
        let child_b = self.link_top(leaves, slots, start + half, len - half, levels - 1);
        let parent = slots[start + half - 1];
        // SAFETY: the nodes are borrowed mutably here, on this thread alone.
        unsafe { link_nodes(Shared::new(&mut self.nodes), parent, child_a, child_b) };
        parent
    }

    /// In `parent`, replaces the child link `old` by `new`; a NULL `parent` means the root.
    /// (`new`'s parent link is the caller's business.)
    fn replace_child(&mut self, parent: u32, old: u32, new: u32) {
        if parent == NULL_NODE {
            self.root = new;
            return;
        }
        let node = self.node_mut(parent);
        if node.child_a == old {
            node.child_a = new;
        } else {
            debug_assert_eq!(node.child_b, old, "replace_child: {old} is not a child");
            node.child_b = new;
        }
    }

    /// Recomputes an internal node's box (the union of its children) and height; whether
    /// either changed.
    fn refit(&mut self, index: u32) -> bool {
        let node = self.nodes[index as usize];
        let a = &self.nodes[node.child_a as usize];
        let b = &self.nodes[node.child_b as usize];
        let aabb = a.aabb.union(&b.aabb);
        let height = 1 + a.height.max(b.height);
        let node = self.node_mut(index);
        let changed = node.aabb != aabb || node.height != height;
        node.aabb = aabb;
        node.height = height;
        changed
    }

    /// Walks from `start` towards the root, rebalancing and refitting each node. After one
    /// leaf is inserted or removed, each ancestor's subtree height changed by at most one, so
    /// every node on the way is off balance by at most two and one rotation fixes it. The
    /// walk stops at the first node that needed no rotation and whose box and height came out
    /// as they were: every node above it has the same children as before, each already the
    /// union of them and balanced, so refitting them would change nothing.
    fn rebalance_upwards(&mut self, start: u32) {
        let mut index = start;
        while index != NULL_NODE {
            let (top, changed) = self.balance(index);
            if !changed {
                break;
            }
            index = self.nodes[top as usize].parent;
        }
    }

    /// Restores |height(a) − height(b)| ≤ 1 at the internal node `index` (whose children are
    /// already balanced) with one rotation if needed, refits, and returns the node now at the
    /// top of that subtree, and whether anything there changed (a rotation always does).
    fn balance(&mut self, index: u32) -> (u32, bool) {
        let node = self.nodes[index as usize];
        let height_a = self.height_of(node.child_a);
        let height_b = self.height_of(node.child_b);
        if height_b > height_a + 1 {
            return (self.rotate_up(index, node.child_b), true);
        }
        if height_a > height_b + 1 {
            return (self.rotate_up(index, node.child_a), true);
        }
        (index, self.refit(index))
    }

    /// Rotates the child `tall` (two levels taller than its sibling `short`) above `top`:
    ///
    /// ```text
    ///        top                  tall
    ///       /   \                /    \
    ///   short   tall    →      top    keep
    ///           /  \          /   \
    ///        keep  give    short  give
    /// ```
    ///
    /// With height(short) = h, height(tall) = h + 2 and `tall` balanced, its children have
    /// heights (h + 1, h) or (h + 1, h + 1). Keeping the taller one (`keep`, h + 1) at the top and
    /// giving the other (h or h + 1) to `top` leaves `top` at height h + 1 or h + 2, beside
    /// `keep` at h + 1: both nodes end balanced. Because siblings in a BVH are unordered, this one
    /// rotation covers both the single and the double rotation cases of a search-tree AVL.
    fn rotate_up(&mut self, top: u32, tall: u32) -> u32 {
        let tall_node = self.nodes[tall as usize];
        let (keep, give) = if self.height_of(tall_node.child_a) >= self.height_of(tall_node.child_b)
        {
            (tall_node.child_a, tall_node.child_b)
        } else {
            (tall_node.child_b, tall_node.child_a)
        };
        let parent = self.nodes[top as usize].parent;
        // `tall` takes `top`'s place under `top`'s parent.
        self.node_mut(tall).parent = parent;
        self.replace_child(parent, top, tall);
        // `top` becomes `tall`'s child, beside `keep`.
        let tall_mut = self.node_mut(tall);
        tall_mut.child_a = top;
        tall_mut.child_b = keep;
        self.node_mut(top).parent = tall;
        // `give` fills the slot `tall` left in `top`.
        self.replace_child(top, tall, give);
        self.node_mut(give).parent = top;
        // Bottom-up: `top` first, since `tall`'s box and height depend on it.
        self.refit(top);
        self.refit(tall);
        tall
    }

    /// Calls `visit(leaf index)` for every leaf whose box overlaps `aabb`; stops when `visit`
    /// returns false. Subtrees whose box misses `aabb` are skipped whole.
    fn query_leaves(&self, aabb: &Aabb, mut visit: impl FnMut(u32) -> bool) -> u64 {
        let mut stack = NodeStack::starting_at(self.root);
        let mut tests = 0;
        while let Some(index) = stack.pop() {
            let node = &self.nodes[index as usize];
            tests += 1;
            if !node.aabb.overlaps(aabb) {
                continue;
            }
            if node.is_leaf() {
                if !visit(index) {
                    return tests;
                }
            } else {
                stack.push(node.child_b);
                stack.push(node.child_a);
            }
        }
        tests
    }

    /// Collects into `pairs` the pairs found by querying with the moved `proxy`'s fat AABB. A
    /// pair of two moved proxies is found from both sides; only the side with the smaller id
    /// keeps it, so each pair is collected once. Returns the node boxes tested.
    fn collect_pairs_of(&self, proxy: ProxyId, pairs: &mut Vec<(u32, u32)>) -> u64 {
        let this = self.nodes[proxy as usize];
        self.query_leaves(&this.aabb, |other| {
            let other_node = &self.nodes[other as usize];
            let counted_by_other = other_node.moved && other < proxy;
            if other != proxy && !counted_by_other {
                pairs.push(ordered_pair(this.user, other_node.user));
            }
            true
        })
    }

    /// Appends `index`'s subtree, depth first, to `out`.
    fn push_debug_subtree(&self, index: u32, depth: u32, out: &mut Vec<BroadPhaseNode>) {
        let node = &self.nodes[index as usize];
        let leaf = node.is_leaf();
        let children_overlap = !leaf
            && self.nodes[node.child_a as usize]
                .aabb
                .overlaps(&self.nodes[node.child_b as usize].aabb);
        out.push(BroadPhaseNode {
            aabb: node.aabb,
            depth,
            is_leaf: leaf,
            children_overlap,
            count: u32::from(leaf),
        });
        if !leaf {
            self.push_debug_subtree(node.child_a, depth + 1, out);
            self.push_debug_subtree(node.child_b, depth + 1, out);
        }
    }
}

impl BroadPhase for DynamicTree {
    fn name(&self) -> &'static str {
        "dynamic AABB tree"
    }

    fn box_clone(&self) -> Box<dyn BroadPhase + Send + Sync> {
        Box::new(self.clone())
    }

    fn heap_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.move_buffer.capacity() * std::mem::size_of::<ProxyId>()
            + self.pair_buffer.capacity() * std::mem::size_of::<(u32, u32)>()
            + super::block_pairs_bytes(&self.block_pairs)
    }

    fn create_proxy_fat(&mut self, fat: Aabb, user: u32) -> ProxyId {
        let leaf = self.allocate_node(Node::leaf(fat, user));
        self.insert_leaf(leaf);
        self.proxy_count += 1;
        self.buffer_move(leaf);
        leaf
    }

    fn destroy_proxy(&mut self, proxy: ProxyId) {
        if self.leaf(proxy).moved {
            // Rare (destroyed in the step it moved), so a linear search is fine.
            self.move_buffer.retain(|&id| id != proxy);
        }
        self.remove_leaf(proxy);
        self.free_node(proxy);
        self.proxy_count -= 1;
    }

    fn move_proxy(&mut self, proxy: ProxyId, aabb: Aabb, displacement: Vec3) -> bool {
        let fresh = fatten_aabb(&aabb, displacement);
        if !needs_reinsert(&self.leaf(proxy).aabb, &aabb, &fresh, displacement) {
            return false;
        }
        let sibling = self.remove_leaf(proxy);
        self.node_mut(proxy).aabb = fresh;
        let start = self.containing_ancestor(sibling, &fresh);
        self.insert_leaf_under(proxy, start);
        self.buffer_move(proxy);
        true
    }

    fn move_proxies(&mut self, moves: &mut [ProxyMove]) {
        let fresh = |m: &ProxyMove| fatten_aabb(&m.aabb, m.displacement);
        let taking = moves
            .iter()
            .filter(|m| {
                needs_reinsert(&self.leaf(m.proxy).aabb, &m.aabb, &fresh(m), m.displacement)
            })
            .count();
        if taking == 0 || taking * REBUILD_DIVISOR < self.proxy_count {
            for m in moves {
                m.reinserted = self.move_proxy(m.proxy, m.aabb, m.displacement);
            }
            return;
        }
        // Each box as `move_proxy` would leave it, in order (a proxy named twice is decided
        // on its box after the first), then one rebuild.
        for m in moves.iter_mut() {
            let fat = fresh(m);
            m.reinserted = needs_reinsert(&self.leaf(m.proxy).aabb, &m.aabb, &fat, m.displacement);
            if m.reinserted {
                self.node_mut(m.proxy).aabb = fat;
                self.buffer_move(m.proxy);
            }
        }
        self.rebuild();
    }

    fn touch_proxy(&mut self, proxy: ProxyId) {
        // `leaf` panics on an id that is not live, as every per-proxy call does.
        self.leaf(proxy);
        self.buffer_move(proxy);
    }

    fn fat_aabb(&self, proxy: ProxyId) -> Aabb {
        self.leaf(proxy).aabb
    }

    fn user_data(&self, proxy: ProxyId) -> u32 {
        self.leaf(proxy).user
    }

    fn proxy_count(&self) -> usize {
        self.proxy_count
    }

    fn update_pairs(&mut self, report: &mut dyn FnMut(u32, u32)) {
        let mut pairs = std::mem::take(&mut self.pair_buffer);
        pairs.clear();
        // The moved proxies are queried on every worker when there are many
        // (`collect_in_blocks`; the tree is only read).
        let mut blocks = std::mem::take(&mut self.block_pairs);
        let tree = &*self;
        self.tests =
            super::collect_in_blocks(&tree.move_buffer, &mut blocks, &mut pairs, &|proxy, out| {
                tree.collect_pairs_of(proxy, out)
            });
        self.block_pairs = blocks;
        // Sorting makes the report independent of the tree's shape, of the move order and
        // of the blocks.
        pairs.sort_unstable();
        for &(user_a, user_b) in &pairs {
            report(user_a, user_b);
        }
        for index in 0..self.move_buffer.len() {
            let proxy = self.move_buffer[index];
            self.node_mut(proxy).moved = false;
        }
        self.move_buffer.clear();
        self.pair_buffer = pairs;
    }

    fn query(&self, aabb: &Aabb, visit: &mut dyn FnMut(u32) -> bool) {
        self.query_leaves(aabb, |leaf| visit(self.nodes[leaf as usize].user));
    }

    fn pair_tests(&self) -> u64 {
        self.tests
    }

    fn ray_cast(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_t: f32,
        visit: &mut dyn FnMut(u32, f32) -> f32,
    ) {
        let mut clip = max_t;
        let mut stack = NodeStack::starting_at(self.root);
        while let Some(index) = stack.pop() {
            let node = &self.nodes[index as usize];
            // Testing against the current clip prunes subtrees beyond the closest hit so far.
            if node.aabb.ray_intersection(origin, dir, clip).is_none() {
                continue;
            }
            if node.is_leaf() {
                let new_clip = visit(node.user, clip);
                if new_clip <= 0.0 {
                    return;
                }
                clip = clip.min(new_clip);
            } else {
                stack.push(node.child_b);
                stack.push(node.child_a);
            }
        }
    }

    fn debug_nodes(&self, out: &mut Vec<BroadPhaseNode>) {
        if self.root != NULL_NODE {
            self.push_debug_subtree(self.root, 0, out);
        }
    }

    /// Checks, in order: the structure reachable from the root (links, no cycles, leaf count,
    /// boxes equal to the union of the children, heights, AVL balance), the free list, the move
    /// buffer and that user values are distinct.
    fn validate(&self) -> Result<(), String> {
        let reached = self.validate_structure()?;
        self.validate_free_list(&reached)?;
        self.validate_move_buffer()?;
        self.validate_users()
    }
}

mod validate;

/// The surface area of the union of `a` and `b` (`a.union(b).surface_area()`, the same bits
/// for finite boxes, which every box in the tree is): the bounds taken with one comparison
/// each, where `f32::min` and `f32::max` also order NaNs. The insertion's descent runs it
/// three times a level.
#[inline]
fn union_area(a: &Aabb, b: &Aabb) -> f32 {
    let lesser = |x: f32, y: f32| if x < y { x } else { y };
    let greater = |x: f32, y: f32| if x > y { x } else { y };
    let d = Vec3::new(
        greater(a.max.x, b.max.x) - lesser(a.min.x, b.min.x),
        greater(a.max.y, b.max.y) - lesser(a.min.y, b.min.y),
        greater(a.max.z, b.max.z) - lesser(a.min.z, b.min.z),
    );
    2.0 * (d.x * d.y + d.y * d.z + d.z * d.x)
}

#[cfg(test)]
mod tests;
