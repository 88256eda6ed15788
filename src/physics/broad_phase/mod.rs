//! Broad phase: finds pairs of colliders whose bounding boxes overlap.
//!
//! Every collider owns one *proxy*: a "fat" AABB (its tight AABB grown by a margin and stretched
//! along its motion) plus the collider index the world gave it (`user`). Fat boxes let a body
//! move a little without touching the structure, and pairs are reported only when a proxy was
//! created, re-inserted or touched, so a resting scene costs almost nothing (Catto, GDC 2019,
//! "Dynamic AABB trees"; Box2D's `b2BroadPhase`).
//!
//! Four implementations share the [`BroadPhase`] trait and the fattening policy below:
//! - [`DynamicTree`]: a bounding volume hierarchy built by the surface-area heuristic and kept
//!   height-balanced, O(log n) per query;
//! - [`Quadtree`]: the ground plane (x–z) split into quadrants, rebuilt every step;
//! - [`UniformGrid`]: a spatial hash of equal cells, rebuilt every step;
//! - [`BruteForce`]: the O(n²) reference the others are tested against.
//!
//! All of them report the same pairs in the same (sorted) order for the same calls, so the
//! simulation does not depend on the choice.
//!
//! [`PairSet`] is the deterministic pair table callers keep the reported pairs in.

pub mod brute_force;
pub mod dynamic_tree;
pub mod grid;
pub mod pair_set;
mod proxy_list;
pub mod quadtree;

pub use brute_force::BruteForce;
pub use dynamic_tree::DynamicTree;
pub use grid::UniformGrid;
pub use pair_set::{DeterministicBuildHasher, PairSet, SplitMixHasher};
pub use quadtree::Quadtree;

use super::aabb::Aabb;
use super::constants::{AABB_HUGE_MARGIN_FACTOR, AABB_MARGIN, AABB_PREDICTION_STEPS};
use glam::Vec3;

/// Handle of a proxy, valid from `create_proxy` until `destroy_proxy`; a destroyed id may be
/// handed out again by a later `create_proxy`.
pub type ProxyId = u32;

/// Moved proxies per block of `update_pairs`' queries (a query takes some tenths of a
/// microsecond, so a block is tens of microseconds: more than waking the workers costs).
const QUERY_BLOCK: usize = 128;

/// Fewest moved proxies whose queries are shared with the workers (4 blocks): below it,
/// handing the queries over costs more than they take (a few hundred moved proxies cost
/// 0.1–0.3 ms a step more on two workers than on one on a 2-vCPU machine).
const MIN_MOVED_TO_SHARE: usize = 4 * QUERY_BLOCK;

/// What each block of [`QUERY_BLOCK`] moved proxies found: its pairs and its tests. A
/// broad phase keeps it from step to step, so the blocks' buffers are reused.
type BlockPairs = Vec<(Vec<(u32, u32)>, u64)>;

/// Appends one moved proxy's pairs to a list and returns the boxes it tested.
type CollectPairs<'a> = dyn Fn(ProxyId, &mut Vec<(u32, u32)>) -> u64 + Sync + 'a;

/// Bytes held by the blocks' buffers.
fn block_pairs_bytes(blocks: &BlockPairs) -> usize {
    blocks.capacity() * std::mem::size_of::<(Vec<(u32, u32)>, u64)>()
        + blocks
            .iter()
            .map(|(found, _)| found.capacity() * std::mem::size_of::<(u32, u32)>())
            .sum::<usize>()
}

/// Appends the pairs of the `moved` proxies to `pairs` and returns the boxes tested:
/// `collect(proxy, out)` appends one proxy's pairs to `out` and returns its tests, reading
/// the structure only. From [`MIN_MOVED_TO_SHARE`] moved proxies on, when the step has
/// several workers, the proxies go in blocks of [`QUERY_BLOCK`] to the workers
/// (`solver/crew.rs`) and the blocks' pairs are appended in block order; otherwise they
/// are queried here straight into `pairs`. Either way the list is the same.
fn collect_in_blocks(
    moved: &[ProxyId],
    blocks: &mut BlockPairs,
    pairs: &mut Vec<(u32, u32)>,
    collect: &CollectPairs<'_>,
) -> u64 {
    if moved.len() < MIN_MOVED_TO_SHARE || crate::physics::threads::split_workers() == 1 {
        return moved.iter().map(|&proxy| collect(proxy, pairs)).sum();
    }
    let count = moved.len().div_ceil(QUERY_BLOCK);
    if blocks.len() < count {
        blocks.resize_with(count, Default::default);
    }
    let out = crate::physics::solver::crew::Shared::new(&mut blocks[..count]);
    crate::physics::solver::crew::for_each_block(count, 1, &|range| {
        for block in range {
            // SAFETY: each block is handed to one call.
            let (found, tests) = unsafe { out.at_mut(block) };
            found.clear();
            *tests = 0;
            let end = ((block + 1) * QUERY_BLOCK).min(moved.len());
            for &proxy in &moved[block * QUERY_BLOCK..end] {
                *tests += collect(proxy, found);
            }
        }
    });
    let mut tests = 0;
    for (found, block_tests) in &blocks[..count] {
        pairs.extend_from_slice(found);
        tests += block_tests;
    }
    tests
}

/// One proxy's move for [`BroadPhase::move_proxies`]: the arguments of
/// [`BroadPhase::move_proxy`], and its answer.
#[derive(Clone, Copy, Debug)]
pub struct ProxyMove {
    /// The proxy that moved.
    pub proxy: ProxyId,
    /// The tight bounds after the move.
    pub aabb: Aabb,
    /// The motion this step, m.
    pub displacement: Vec3,
    /// Set by the broad phase: whether the proxy took a new fat box.
    pub reinserted: bool,
}

/// One node of a broad phase structure, as plain data for debug drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BroadPhaseNode {
    /// The node's box: a proxy's fat AABB for a leaf, the union of its children otherwise.
    pub aabb: Aabb,
    /// Distance from the root (the root and every proxy of a flat structure are at depth 0).
    pub depth: u32,
    /// True for a proxy, false for an internal node.
    pub is_leaf: bool,
    /// For an internal node: whether its two children's boxes overlap (overlapping siblings
    /// mean queries must descend both ways, a sign of a poorly built tree). False for leaves.
    pub children_overlap: bool,
    /// Proxies stored at this node itself (1 for a leaf of the tree; a quadtree node's or a
    /// grid cell's list), drawn as a label by the debug layer.
    pub count: u32,
}

/// A broad phase: a set of proxies (fat AABBs with a user value) that can report overlapping
/// pairs and answer box and ray queries.
///
/// Contract shared by every implementation:
/// - fat AABBs follow [`fatten_aabb`] and are rebuilt exactly when [`needs_reinsert`] says so,
///   so two implementations fed the same calls hold bit-identical fat AABBs;
/// - `user` values must be distinct among live proxies (the world passes collider indices);
///   `validate` reports duplicates;
/// - calling any per-proxy method with an id that is not live is a programming error and panics.
pub trait BroadPhase {
    /// A short human-readable name ("dynamic AABB tree", "brute force") for UIs and logs.
    fn name(&self) -> &'static str;

    /// A copy of this broad phase with every proxy, id and buffer as they are (for
    /// [`World`](crate::physics::World)'s `Clone`: a copy steps exactly like the original).
    fn box_clone(&self) -> Box<dyn BroadPhase + Send + Sync>;

    /// Roughly how many bytes of memory the broad phase holds (for snapshot budgets).
    fn heap_bytes(&self) -> usize;

    /// Adds a proxy with tight bounds `aabb` and returns its id. Its fat AABB is
    /// `fatten_aabb(aabb, Vec3::ZERO)`; `user` (a collider index) is what pairs and queries
    /// report. The new proxy is in the move buffer, so its pairs appear at the next
    /// `update_pairs`.
    fn create_proxy(&mut self, aabb: Aabb, user: u32) -> ProxyId {
        self.create_proxy_fat(fatten_aabb(&aabb, Vec3::ZERO), user)
    }

    /// Adds a proxy whose fat AABB is `fat`, as given: a proxy carried over from another broad
    /// phase keeps its box, so switching broad phases changes no pair. Otherwise like
    /// [`BroadPhase::create_proxy`].
    fn create_proxy_fat(&mut self, fat: Aabb, user: u32) -> ProxyId;

    /// Removes a proxy (and drops it from the move buffer). Its pairs are not reported as ending:
    /// the caller removes them from its own pair table.
    fn destroy_proxy(&mut self, proxy: ProxyId);

    /// Tells the broad phase that the collider now has tight bounds `aabb` after moving by
    /// `displacement` (m) during this step. The proxy is re-inserted with the fat AABB
    /// `fatten_aabb(aabb, displacement)` only if [`needs_reinsert`] holds (the tight box left the
    /// fat one, or the fat one has become much too large); a re-inserted proxy joins the move
    /// buffer. Returns true if it was re-inserted.
    fn move_proxy(&mut self, proxy: ProxyId, aabb: Aabb, displacement: Vec3) -> bool;

    /// [`BroadPhase::move_proxy`] for each of `moves` in order, with the same result for
    /// every proxy: each one's `reinserted` says what `move_proxy` would have returned. A
    /// structure may reorganise itself wholesale when many of its proxies move at once
    /// (the tree rebuilds itself, `dynamic_tree.rs`); the pairs never depend on it.
    fn move_proxies(&mut self, moves: &mut [ProxyMove]) {
        for m in moves {
            m.reinserted = self.move_proxy(m.proxy, m.aabb, m.displacement);
        }
    }

    /// Puts a proxy into the move buffer without changing its box, so that its pairs are
    /// reported again at the next `update_pairs` (e.g. its body woke up or a filter changed).
    /// Touching a proxy already in the buffer does nothing.
    fn touch_proxy(&mut self, proxy: ProxyId);

    /// The proxy's current fat AABB.
    fn fat_aabb(&self, proxy: ProxyId) -> Aabb;

    /// The `user` value the proxy was created with.
    fn user_data(&self, proxy: ProxyId) -> u32;

    /// Number of live proxies.
    fn proxy_count(&self) -> usize;

    /// How many boxes the last `update_pairs` tested for overlap (tree or quadtree nodes, grid
    /// candidates, proxies): what the broad phase's choice changes.
    fn pair_tests(&self) -> u64;

    /// Calls `report(user_a, user_b)` with `user_a < user_b` for every pair of live proxies whose
    /// FAT AABBs overlap (touching counts) and of which at least one is in the move buffer
    /// (created, re-inserted or touched since the previous call). Each such pair is reported
    /// exactly once, in ascending lexicographic order of `(user_a, user_b)`, so the output
    /// depends only on the set of pairs, never on the internal layout. Then empties the move
    /// buffer. Pairs that stopped overlapping are not reported: the caller drops them by testing
    /// the fat AABBs itself.
    fn update_pairs(&mut self, report: &mut dyn FnMut(u32, u32));

    /// Calls `visit(user)` for every proxy whose fat AABB overlaps `aabb` (touching counts),
    /// in an unspecified but deterministic order; `visit` returns false to stop the query.
    fn query(&self, aabb: &Aabb, visit: &mut dyn FnMut(u32) -> bool);

    /// Casts the ray `origin + t·dir`, `t ∈ [0, max_t]` (`t` in units of `dir`, which need not be
    /// normalised) and calls `visit(user, clip)` for proxies whose fat AABB the ray still crosses
    /// with `t ≤ clip`, where `clip` starts at `max_t`. `visit` returns the new clip: the current
    /// value to go on unchanged, a smaller one (typically the hit fraction on the real shape) to
    /// prune everything farther, or `≤ 0` to stop. Values above the current clip are ignored, so
    /// the clip only shrinks. This is what a closest-hit ray cast needs.
    fn ray_cast(&self, origin: Vec3, dir: Vec3, max_t: f32, visit: &mut dyn FnMut(u32, f32) -> f32);

    /// Appends the structure's nodes (leaves and internal nodes) for debug drawing.
    fn debug_nodes(&self, out: &mut Vec<BroadPhaseNode>);

    /// Checks every internal invariant; `Err` describes the first broken one.
    fn validate(&self) -> Result<(), String>;
}

/// The fat AABB given to a proxy with tight bounds `tight` that moved by `displacement` (m) this
/// step: the tight box grown by [`AABB_MARGIN`] on every side, then stretched by
/// `AABB_PREDICTION_STEPS · displacement`, on each axis only on the side the body is moving
/// towards (Box2D v2 `b2DynamicTree::MoveProxy`). A body keeping its velocity thus stays inside
/// its box for about `AABB_PREDICTION_STEPS` steps, and the side it leaves behind is not grown.
pub fn fatten_aabb(tight: &Aabb, displacement: Vec3) -> Aabb {
    let grown = tight.expanded(AABB_MARGIN);
    let stretch = displacement * AABB_PREDICTION_STEPS;
    // Negative components extend `min`, positive ones extend `max`.
    Aabb::new(
        grown.min + stretch.min(Vec3::ZERO),
        grown.max + stretch.max(Vec3::ZERO),
    )
}

/// Whether a proxy whose fat AABB is `current_fat` must be re-inserted now that its tight bounds
/// are `tight`, it moved by `displacement` this step, and a fresh fat AABB would be `fresh_fat`
/// (from [`fatten_aabb`]).
///
/// Yes when the tight box has left the fat one (pairs could be missed otherwise), and also when
/// the fat box is "huge": not contained in `fresh_fat` grown by
/// `AABB_HUGE_MARGIN_FACTOR · AABB_MARGIN`, and on the side the body is leaving by
/// `AABB_PREDICTION_STEPS` times this step's displacement, e.g. after a fast body stopped
/// (Box2D v2's huge-AABB check). Without the second rule boxes would keep their largest
/// predicted size forever. The side left behind lags the body by the steps it has moved
/// since the box was made, as many as the prediction reaches ahead: without that allowance
/// (Box2D v2 has none) a body moving more than a fraction of the huge margin per step was
/// re-inserted every other step or every step (above 0.4 m, 24 m/s at 60 Hz), most of the
/// stress test's broad-phase time.
pub fn needs_reinsert(
    current_fat: &Aabb,
    tight: &Aabb,
    fresh_fat: &Aabb,
    displacement: Vec3,
) -> bool {
    if !current_fat.contains(tight) {
        return true;
    }
    let grown = fresh_fat.expanded(AABB_HUGE_MARGIN_FACTOR * AABB_MARGIN);
    // Positive components leave the min side behind, negative ones the max side.
    let lag = displacement * AABB_PREDICTION_STEPS;
    let huge = Aabb::new(
        grown.min - lag.max(Vec3::ZERO),
        grown.max - lag.min(Vec3::ZERO),
    );
    !huge.contains(current_fat)
}

/// One step of a closest-hit ray cast: when the ray `origin + t·dir` still crosses `aabb`
/// with `t ≤ clip`, asks `visit(user, clip)` and shrinks `clip` to its answer. Returns false
/// when `visit` stopped the cast (answered ≤ 0).
#[inline]
pub(crate) fn visit_ray_box(
    aabb: &Aabb,
    user: u32,
    origin: Vec3,
    dir: Vec3,
    clip: &mut f32,
    visit: &mut dyn FnMut(u32, f32) -> f32,
) -> bool {
    if aabb.ray_intersection(origin, dir, *clip).is_some() {
        let new_clip = visit(user, *clip);
        if new_clip <= 0.0 {
            return false;
        }
        *clip = clip.min(new_clip);
    }
    true
}

/// The pair `(a, b)` ordered so that the smaller value comes first.
#[inline]
pub fn ordered_pair(a: u32, b: u32) -> (u32, u32) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box() -> Aabb {
        Aabb::new(Vec3::ZERO, Vec3::ONE)
    }

    #[test]
    fn fattening_grows_by_margin_and_stretches_along_motion_only() {
        let displacement = Vec3::new(0.5, -0.25, 0.0);
        let fat = fatten_aabb(&unit_box(), displacement);
        let m = AABB_MARGIN;
        let k = AABB_PREDICTION_STEPS;
        // x moves forward: only max.x grows by k·0.5; y moves backward: only min.y by k·0.25.
        assert_eq!(fat.min, Vec3::new(-m, -m - k * 0.25, -m));
        assert_eq!(fat.max, Vec3::new(1.0 + m + k * 0.5, 1.0 + m, 1.0 + m));
    }

    #[test]
    fn reinsert_when_leaving_fat_box() {
        let fat = fatten_aabb(&unit_box(), Vec3::ZERO);
        let inside = Aabb::new(Vec3::splat(0.05), Vec3::splat(1.05));
        let outside = Aabb::new(Vec3::splat(0.2), Vec3::splat(1.2));
        assert!(!needs_reinsert(
            &fat,
            &inside,
            &fatten_aabb(&inside, Vec3::ZERO),
            Vec3::ZERO
        ));
        assert!(needs_reinsert(
            &fat,
            &outside,
            &fatten_aabb(&outside, Vec3::ZERO),
            Vec3::ZERO
        ));
    }

    #[test]
    fn reinsert_when_fat_box_is_huge() {
        // A fast body got a long predicted box, then stopped inside it.
        let long = fatten_aabb(&unit_box(), Vec3::new(5.0, 0.0, 0.0));
        let resting = fatten_aabb(&unit_box(), Vec3::ZERO);
        assert!(needs_reinsert(&long, &unit_box(), &resting, Vec3::ZERO));
        // A small excess (below the huge factor) is tolerated.
        let slightly = fatten_aabb(&unit_box(), Vec3::new(0.1, 0.0, 0.0));
        assert!(!needs_reinsert(
            &slightly,
            &unit_box(),
            &resting,
            Vec3::ZERO
        ));
    }

    #[test]
    fn a_fast_body_keeps_its_box_until_it_leaves_it() {
        // A unit box falling 0.6 m per step (36 m/s at 60 Hz), more than the huge margin
        // (0.4 m). Re-inserted at step 0, its box reaches m + k·0.6 = 1.3 m below it, so the
        // tight box leaves it at the third step: one re-insertion every 3 steps, 10 in 30
        // (without the trailing side's allowance of k·0.6 m the huge rule fired at every
        // step: a step after re-insertion the box's top is 0.1 + 0.6 = 0.7 m above the body's,
        // a fresh box's top grown by the huge margin only 0.1 + 0.4 = 0.5 m).
        let d = Vec3::new(0.0, -0.6, 0.0);
        let mut tight = unit_box();
        let mut fat = fatten_aabb(&tight, d);
        let mut reinserted = 0;
        for _ in 0..30 {
            tight = Aabb::new(tight.min + d, tight.max + d);
            let fresh = fatten_aabb(&tight, d);
            if needs_reinsert(&fat, &tight, &fresh, d) {
                fat = fresh;
                reinserted += 1;
            }
        }
        assert_eq!(reinserted, 10);
        // Then it stops: the long box is huge at once.
        let resting = fatten_aabb(&tight, Vec3::ZERO);
        let long = fatten_aabb(&tight, Vec3::new(0.0, -3.0, 0.0));
        assert!(needs_reinsert(&long, &tight, &resting, Vec3::ZERO));
    }

    #[test]
    fn ordered_pair_sorts() {
        assert_eq!(ordered_pair(7, 3), (3, 7));
        assert_eq!(ordered_pair(3, 7), (3, 7));
    }
}
