//! A quadtree over the ground plane (x–z).
//!
//! The root is the square around every proxy (leaving out huge ones such as planes); a node
//! holds up to `capacity` proxies before it splits into four quadrants, down to `max_depth`.
//! A proxy goes into the deepest node whose square holds its whole fat box in x–z: one that
//! straddles a quadrant boundary stays in the parent (the quadtree's classic rule), so each proxy is stored
//! exactly once. Heights (y) are not partitioned; each node keeps the 3D bounds of everything
//! below it, so queries still skip subtrees by height.
//!
//! **Rebuilt every step** (clear, insert, split) rather than updated incrementally. Reasons:
//! the rebuild is linear in the proxies times the depth and allocation-free once its buffers
//! have grown; the tree then depends only on the set of boxes, inserted in id order, never on
//! the history of moves (so it is deterministic and needs no removal or merge logic); and the
//! pair search, which dominates, costs the same either way. What it gives up: a step in which
//! anything moved pays for the whole rebuild (about 50 ns a proxy), where the dynamic tree
//! pays only for what moved. A step in which nothing moved skips it.
//!
//! Between two builds (a query or ray cast after proxies moved), proxies in the move buffer are
//! skipped in the tree, whose copy of them is stale, and tested one by one instead.

use super::proxy_list::{delegate_to_proxy_list, ProxyList};
use super::{ordered_pair, visit_ray_box, BroadPhase, BroadPhaseNode, ProxyId};
use crate::physics::aabb::Aabb;
use glam::{Vec2, Vec3};

/// No child.
const NONE: u32 = u32::MAX;

/// Proxies wider than this (m, x or z) do not size the root: they stay at the root anyway.
const HUGE_EXTENT: f32 = 1000.0;

/// Default maximum depth (the root is depth 0).
pub const DEFAULT_MAX_DEPTH: u32 = 8;
/// Default number of proxies a node holds before it splits.
pub const DEFAULT_CAPACITY: u32 = 8;
/// The deepest tree allowed (`max_depth` is refused above it): 4¹² cells is more than enough.
pub const MAX_DEPTH_LIMIT: u32 = 12;

/// One square of the tree.
#[derive(Clone, Debug)]
struct Node {
    /// The square, in x–z.
    min: Vec2,
    max: Vec2,
    depth: u32,
    /// Index of the first of four children (x−z−, x+z−, x−z+, x+z+), or NONE for a leaf.
    children: u32,
    /// The proxies stored here.
    items: Vec<ProxyId>,
    /// The 3D bounds of every fat box stored here or below (None when empty).
    bounds: Option<Aabb>,
}

impl Node {
    fn new(min: Vec2, max: Vec2, depth: u32) -> Self {
        Self {
            min,
            max,
            depth,
            children: NONE,
            items: Vec::new(),
            bounds: None,
        }
    }

    /// Whether the square holds `aabb`'s x–z extent.
    fn holds(&self, aabb: &Aabb) -> bool {
        aabb.min.x >= self.min.x
            && aabb.max.x <= self.max.x
            && aabb.min.z >= self.min.y
            && aabb.max.z <= self.max.y
    }
}

/// The quadtree broad phase. See the module documentation.
#[derive(Clone, Debug)]
pub struct Quadtree {
    proxies: ProxyList,
    max_depth: u32,
    capacity: u32,
    /// The tree as of the last build; `nodes[..used]` are in use, the rest keep their buffers.
    nodes: Vec<Node>,
    used: usize,
    /// Scratch for `update_pairs`.
    pair_buffer: Vec<(u32, u32)>,
    /// What each block of moved proxies found (`update_pairs` on several workers).
    block_pairs: super::BlockPairs,
    /// Node bounds and proxy boxes tested in the last `update_pairs`.
    tests: u64,
}

impl Default for Quadtree {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_DEPTH, DEFAULT_CAPACITY)
    }
}

impl Quadtree {
    /// An empty quadtree. `max_depth` is clamped to 0..=[`MAX_DEPTH_LIMIT`] and `capacity` to
    /// at least 1 (the world's settings validation refuses other values with a message).
    pub fn new(max_depth: u32, capacity: u32) -> Self {
        Self {
            proxies: ProxyList::new("quadtree"),
            max_depth: max_depth.min(MAX_DEPTH_LIMIT),
            capacity: capacity.max(1),
            nodes: Vec::new(),
            used: 0,
            pair_buffer: Vec::new(),
            block_pairs: Vec::new(),
            tests: 0,
        }
    }

    /// Number of nodes in the last build.
    pub fn node_count(&self) -> usize {
        self.used
    }

    /// Takes a node slot (reusing its item buffer) and returns its index.
    fn add_node(&mut self, min: Vec2, max: Vec2, depth: u32) -> u32 {
        if self.used == self.nodes.len() {
            self.nodes.push(Node::new(min, max, depth));
        } else {
            let node = &mut self.nodes[self.used];
            node.min = min;
            node.max = max;
            node.depth = depth;
            node.children = NONE;
            node.items.clear();
            node.bounds = None;
        }
        self.used += 1;
        (self.used - 1) as u32
    }

    /// Clears the tree and inserts every live proxy, in id order.
    fn rebuild(&mut self) {
        self.used = 0;
        let mut lo = Vec2::splat(f32::INFINITY);
        let mut hi = Vec2::splat(f32::NEG_INFINITY);
        for (_, slot) in self.proxies.live() {
            let b = &slot.fat_aabb;
            if b.max.x - b.min.x <= HUGE_EXTENT && b.max.z - b.min.z <= HUGE_EXTENT {
                lo = lo.min(Vec2::new(b.min.x, b.min.z));
                hi = hi.max(Vec2::new(b.max.x, b.max.z));
            }
        }
        if lo.x > hi.x {
            // Nothing bounded: a unit square holds the root, the huge proxies stay in it.
            lo = Vec2::ZERO;
            hi = Vec2::ONE;
        }
        // A square root, so every cell is square.
        let side = (hi - lo).max_element().max(1e-3);
        self.add_node(lo, lo + Vec2::splat(side), 0);
        for id in 0..self.proxies.capacity() as ProxyId {
            if self.proxies.get(id).is_some_and(|s| s.live) {
                self.insert(id);
            }
        }
        // Bounds bottom-up: children always come after their parent.
        for index in (0..self.used).rev() {
            let node = &self.nodes[index];
            let mut bounds = node
                .items
                .iter()
                .map(|&id| self.proxies.slot(id).fat_aabb)
                .reduce(|a, b| a.union(&b));
            if node.children != NONE {
                for child in node.children..node.children + 4 {
                    if let Some(c) = self.nodes[child as usize].bounds {
                        bounds = Some(bounds.map_or(c, |b| b.union(&c)));
                    }
                }
            }
            self.nodes[index].bounds = bounds;
        }
    }

    /// Puts `id` in the deepest node that holds it, splitting full leaves on the way.
    fn insert(&mut self, id: ProxyId) {
        let aabb = self.proxies.slot(id).fat_aabb;
        let mut index = 0u32;
        loop {
            let node = &self.nodes[index as usize];
            if node.children != NONE {
                match (node.children..node.children + 4)
                    .find(|&c| self.nodes[c as usize].holds(&aabb))
                {
                    Some(child) => index = child,
                    None => break,
                }
                continue;
            }
            if node.items.len() < self.capacity as usize || node.depth >= self.max_depth {
                break;
            }
            self.split(index);
        }
        self.nodes[index as usize].items.push(id);
    }

    /// Gives a full leaf four children and moves down the items that fit in one of them.
    fn split(&mut self, index: u32) {
        let (min, max, depth) = {
            let n = &self.nodes[index as usize];
            (n.min, n.max, n.depth)
        };
        let mid = (min + max) * 0.5;
        let first = self.add_node(min, mid, depth + 1);
        self.add_node(Vec2::new(mid.x, min.y), Vec2::new(max.x, mid.y), depth + 1);
        self.add_node(Vec2::new(min.x, mid.y), Vec2::new(mid.x, max.y), depth + 1);
        self.add_node(mid, max, depth + 1);
        self.nodes[index as usize].children = first;
        let mut items = std::mem::take(&mut self.nodes[index as usize].items);
        let nodes = &mut self.nodes;
        let proxies = &self.proxies;
        items.retain(|&id| {
            let aabb = proxies.slot(id).fat_aabb;
            match (first..first + 4).find(|&c| nodes[c as usize].holds(&aabb)) {
                Some(child) => {
                    nodes[child as usize].items.push(id);
                    false
                }
                None => true,
            }
        });
        self.nodes[index as usize].items = items;
    }

    /// Visits the proxies in the built tree whose fat box overlaps `aabb` (skipping those moved
    /// since the build when `skip_moved`); returns the boxes tested, or stops early when
    /// `visit` returns false.
    fn query_tree(
        &self,
        aabb: &Aabb,
        skip_moved: bool,
        visit: &mut dyn FnMut(ProxyId) -> bool,
    ) -> (u64, bool) {
        let mut tests = 0;
        if self.used == 0 {
            return (0, true);
        }
        let mut stack = [0u32; 4 * MAX_DEPTH_LIMIT as usize + 4];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let node = &self.nodes[stack[top] as usize];
            tests += 1;
            if !node.bounds.is_some_and(|b| b.overlaps(aabb)) {
                continue;
            }
            for &id in &node.items {
                let Some(slot) = self.proxies.get(id).filter(|s| s.live) else {
                    continue;
                };
                if skip_moved && slot.moved {
                    continue;
                }
                tests += 1;
                if slot.fat_aabb.overlaps(aabb) && !visit(id) {
                    return (tests, false);
                }
            }
            if node.children != NONE {
                for child in (node.children..node.children + 4).rev() {
                    stack[top] = child;
                    top += 1;
                }
            }
        }
        (tests, true)
    }
}

impl BroadPhase for Quadtree {
    fn name(&self) -> &'static str {
        "quadtree"
    }

    delegate_to_proxy_list!();

    fn heap_bytes(&self) -> usize {
        self.proxies.heap_bytes()
            + self
                .nodes
                .iter()
                .map(|n| std::mem::size_of::<Node>() + n.items.capacity() * 4)
                .sum::<usize>()
            + self.pair_buffer.capacity() * std::mem::size_of::<(u32, u32)>()
            + super::block_pairs_bytes(&self.block_pairs)
    }

    fn update_pairs(&mut self, report: &mut dyn FnMut(u32, u32)) {
        if self.proxies.moved().is_empty() {
            // Nothing was created, moved or touched: the last build still holds every box
            // (destroyed proxies are skipped by their flag), and there are no new pairs.
            self.tests = 0;
            return;
        }
        self.rebuild();
        let mut pairs = std::mem::take(&mut self.pair_buffer);
        pairs.clear();
        let mut blocks = std::mem::take(&mut self.block_pairs);
        let tree = &*self;
        let moved = tree.proxies.moved();
        self.tests = super::collect_in_blocks(moved, &mut blocks, &mut pairs, &|proxy, out| {
            let this = tree.proxies.slot(proxy);
            tree.query_tree(&this.fat_aabb, false, &mut |other| {
                if tree.proxies.keeps_pair(proxy, other) {
                    out.push(ordered_pair(this.user, tree.proxies.slot(other).user));
                }
                true
            })
            .0
        });
        self.block_pairs = blocks;
        self.proxies.report_and_clear(&mut pairs, report);
        self.pair_buffer = pairs;
    }

    fn query(&self, aabb: &Aabb, visit: &mut dyn FnMut(u32) -> bool) {
        let (_, go_on) = self.query_tree(aabb, true, &mut |id| visit(self.proxies.slot(id).user));
        if go_on {
            self.proxies.query_moved(aabb, visit);
        }
    }

    fn ray_cast(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_t: f32,
        visit: &mut dyn FnMut(u32, f32) -> f32,
    ) {
        let mut clip = max_t;
        let mut stack = [0u32; 4 * MAX_DEPTH_LIMIT as usize + 4];
        let mut top = usize::from(self.used > 0);
        while top > 0 {
            top -= 1;
            let node = &self.nodes[stack[top] as usize];
            if node
                .bounds
                .is_none_or(|b| b.ray_intersection(origin, dir, clip).is_none())
            {
                continue;
            }
            for &id in &node.items {
                let Some(slot) = self.proxies.get(id).filter(|s| s.live && !s.moved) else {
                    continue;
                };
                if !visit_ray_box(&slot.fat_aabb, slot.user, origin, dir, &mut clip, visit) {
                    return;
                }
            }
            if node.children != NONE {
                for child in (node.children..node.children + 4).rev() {
                    stack[top] = child;
                    top += 1;
                }
            }
        }
        self.proxies.ray_cast_moved(origin, dir, &mut clip, visit);
    }

    /// Every node of the last build as its square, spanning the heights of what it holds
    /// (a thin square on the ground plane when it holds nothing), with its own proxy count.
    fn debug_nodes(&self, out: &mut Vec<BroadPhaseNode>) {
        let (y0, y1) = self.nodes[..self.used]
            .first()
            .and_then(|root| root.bounds)
            .map_or((0.0, 0.0), |b| {
                (b.min.y.max(-HUGE_EXTENT), b.max.y.min(HUGE_EXTENT))
            });
        for node in &self.nodes[..self.used] {
            let (lo, hi) = node.bounds.map_or((y0, y0), |b| {
                (b.min.y.max(y0), b.max.y.min(y1).max(b.min.y.max(y0)))
            });
            out.push(BroadPhaseNode {
                aabb: Aabb::new(
                    Vec3::new(node.min.x, lo, node.min.y),
                    Vec3::new(node.max.x, hi, node.max.y),
                ),
                depth: node.depth,
                is_leaf: false,
                children_overlap: false,
                count: node.items.len() as u32,
            });
        }
    }

    /// The proxy list's checks, then: every live proxy not moved since the build is stored
    /// exactly once, in a node whose square holds it (the root holds anything), and no node
    /// is deeper than the maximum depth.
    fn validate(&self) -> Result<(), String> {
        self.proxies.validate()?;
        let mut seen = vec![0u32; self.proxies.capacity()];
        for (index, node) in self.nodes[..self.used].iter().enumerate() {
            if node.depth > self.max_depth {
                return Err(format!("quadtree: node {index} deeper than the maximum"));
            }
            for &id in &node.items {
                let Some(slot) = self.proxies.get(id) else {
                    return Err(format!("quadtree: node {index} lists unknown id {id}"));
                };
                if slot.live && !slot.moved {
                    seen[id as usize] += 1;
                    if index > 0 && !node.holds(&slot.fat_aabb) {
                        return Err(format!("quadtree: proxy {id} outside node {index}"));
                    }
                }
            }
        }
        for (id, slot) in self.proxies.live() {
            let expected = u32::from(!slot.moved);
            if seen[id as usize] != expected {
                return Err(format!(
                    "quadtree: proxy {id} stored {} times",
                    seen[id as usize]
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(center: Vec3, half: f32) -> Aabb {
        Aabb::from_center_half_extents(center, Vec3::splat(half))
    }

    #[test]
    fn straddling_proxies_stay_in_the_parent_and_full_leaves_split() {
        let mut qt = Quadtree::new(4, 2);
        // Four small boxes in the four corners of a 10 m square and one across its middle.
        let corners = [(-4.0, -4.0), (4.0, -4.0), (-4.0, 4.0), (4.0, 4.0)];
        for (i, (x, z)) in corners.iter().enumerate() {
            qt.create_proxy(cube(Vec3::new(*x, 0.0, *z), 0.4), i as u32);
        }
        qt.create_proxy(cube(Vec3::ZERO, 0.4), 9);
        qt.update_pairs(&mut |_, _| {});
        qt.validate().unwrap();
        // Five proxies over a capacity of 2: the root split once; the corner boxes went down to
        // one quadrant each, the middle box (crossing both mid-lines) stayed at the root.
        assert_eq!(qt.node_count(), 5);
        assert_eq!(qt.nodes[0].items, vec![4]);
        for child in 1..5 {
            assert_eq!(qt.nodes[child].items.len(), 1);
        }
    }

    #[test]
    fn depth_is_capped() {
        let mut qt = Quadtree::new(2, 1);
        for i in 0..20 {
            // All in one spot: splitting cannot separate them.
            qt.create_proxy(cube(Vec3::new(1.0, 0.0, 1.0), 0.1), i);
        }
        qt.create_proxy(cube(Vec3::new(50.0, 0.0, 50.0), 0.1), 99);
        qt.update_pairs(&mut |_, _| {});
        qt.validate().unwrap();
        assert!(qt.nodes[..qt.used].iter().all(|n| n.depth <= 2));
    }
}
