//! Persistent contacts: one per pair of colliders whose fat AABBs overlap, holding the
//! manifold of the last step and the impulses that warm-start the next one.
//!
//! Contacts live in a slot vector (stable ids for the per-body lists) plus a dense list of
//! live ids that fixes the iteration order, so every run visits them in the same order.
//! Each body threads its contacts through an intrusive doubly linked list (Box2D's contact
//! edges), so waking, removal and islands never search. docs/design/contacts.md has the
//! whole life of a contact and the reasons for its parts.

use std::collections::HashMap;

use super::body::{Body, NULL};
use super::broad_phase::DeterministicBuildHasher;
use super::collider::Collider;
use super::collider::MixedMaterial;
use super::constants::CONTACT_MATCH_DISTANCE;
use super::constants::{MANIFOLD_KEEP_FACTOR, MANIFOLD_REUSE_DISTANCE, MANIFOLD_REUSE_FRACTION};
use super::handle::Arena;
use super::math::{Isometry, Vec3};
use super::narrow_phase::{Manifold, ManifoldPoint, MAX_MANIFOLD_POINTS};
use super::prefetch::prefetch_ptr;
use super::shape::ShapeKind;
use super::solver::simd::{transform_points, Vec3x4, LANES};
use super::world::{BodyHandle, ColliderHandle};

/// A hash map with deterministic hashing (std's default hasher is seeded per process).
pub type DeterministicMap<K, V> = HashMap<K, V, DeterministicBuildHasher>;

/// The key of an unordered pair of collider slots.
#[inline]
pub fn pair_key(a: u32, b: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (lo as u64) << 32 | hi as u64
}

/// A contact point as stored between steps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ContactPoint {
    /// World point on A's surface.
    pub point_a: Vec3,
    /// World point on B's surface.
    pub point_b: Vec3,
    /// Penetration depth, m (negative: speculative, not yet touching).
    pub depth: f32,
    /// Feature id (see [`ManifoldPoint::id`]).
    pub id: u32,
    /// Normal impulse over the last step, N·s (the per-sub-step impulse the solver ended
    /// with, times the sub-steps: at rest, the load times the step).
    pub normal_impulse: f32,
    /// This point's share of the manifold's friction impulse over the last step (friction
    /// is solved for the whole manifold at its centre: shared out by the points' normal
    /// impulses), as a world vector, N·s (re-projected onto the next step's tangent basis
    /// when warm starting).
    pub tangent_impulse: Vec3,
    /// Largest normal impulse applied in one iteration of the last step (did it push?).
    pub max_normal_impulse: f32,
    /// Lever arm from body A's centre of mass to where the solver applies this point's
    /// impulses, world axes, kept while the point stays within reach (see `world/solve/mod.rs`).
    pub(crate) arm_a: Vec3,
    /// The same from body B's centre of mass.
    pub(crate) arm_b: Vec3,
    /// The arms hold a value carried from an earlier step.
    pub(crate) anchored: bool,
}

impl ContactPoint {
    /// Midpoint between the two surface points.
    pub fn point(&self) -> Vec3 {
        0.5 * (self.point_a + self.point_b)
    }
}

/// The last collision test of a contact, in its colliders' own frames, so it can be reused
/// while the pair has barely moved relative to each other (see
/// [`MANIFOLD_REUSE_DISTANCE`]).
///
/// ```text
/// B's material point x (B's frame) sits at R·x + t in A's frame, with (R, t) = B in A.
/// Since the test it has moved by (R − R₀)·x + Δt = R₀·(ΔR − I)·x + Δt, ΔR = R₀ᵀR:
/// |Δ| ≤ |(ΔR − I)·x| + |Δt| = 2·sin(θ/2)·|x⊥| + |Δt| ≤ 2·|Δq.xyz|·reach_B + |Δt|
/// (θ the angle of ΔR, x⊥ the part of x across its axis, |Δq.xyz| = sin(θ/2))
/// ```
/// Reused, each point keeps its place on both bodies (A's point in A's frame, B's in B's),
/// and its depth is measured again along the normal, which turns with A.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ManifoldCache {
    /// B's collider in A's collider frame at the test.
    b_in_a: Isometry,
    /// The speculative margin of the test, m.
    margin: f32,
    /// How far any point may move before the test is run again, m.
    limit: f32,
    /// The farthest point of B's shape from its origin, m.
    reach_b: f32,
    /// The normal, A's frame.
    normal: Vec3,
    /// Each point on A (A's frame) and on B (B's frame), point j in lane j (zero past
    /// `count`), so a reuse moves them four at once.
    local_a: Vec3x4,
    local_b: Vec3x4,
    /// Each point's feature id.
    ids: [u32; MAX_MANIFOLD_POINTS],
    count: usize,
    /// False for a cache that keeps only the pose of the test ([`ManifoldCache::pose_only`]):
    /// it says whether the pair kept still since, but has no manifold to reuse.
    complete: bool,
    /// The test found no points because an axis separated the shapes by this much, m (a
    /// lower bound on their distance then; 0 when not known). See
    /// [`ManifoldCache::remaining_gap`].
    gap: f32,
}

const _: () = assert!(MAX_MANIFOLD_POINTS == LANES);

impl ManifoldCache {
    /// Keeps `manifold` (world space), computed for the colliders `a` and `b` where they are
    /// now with `margin`; `None` for pairs that are cheaper to test than to reuse (see
    /// [`cheap_to_test`]).
    pub(crate) fn new(
        a: &Collider,
        b: &Collider,
        b_in_a: Option<&Isometry>,
        margin: f32,
        manifold: &Manifold,
    ) -> Option<Self> {
        let pose = ManifoldCache::pose_only(a, b, b_in_a, margin, manifold.gap)?;
        let (pose_a, pose_b) = (&a.world_pose, &b.world_pose);
        let (mut local_a, mut local_b) = ([Vec3::ZERO; LANES], [Vec3::ZERO; LANES]);
        let mut ids = [0; MAX_MANIFOLD_POINTS];
        for (j, p) in manifold.points().iter().enumerate() {
            local_a[j] = pose_a.inverse_transform_point(p.point_a);
            local_b[j] = pose_b.inverse_transform_point(p.point_b);
            ids[j] = p.id;
        }
        Some(ManifoldCache {
            normal: pose_a.inverse_transform_vector(manifold.normal),
            local_a: Vec3x4::gather(local_a),
            local_b: Vec3x4::gather(local_b),
            ids,
            count: manifold.count,
            complete: true,
            ..pose
        })
    }

    /// Keeps only where `b` is relative to `a` for the test with `margin` (`None` as for
    /// [`ManifoldCache::new`]): for a pair that moved past the reuse limit since its last
    /// test, which will most likely move again, so transforming the manifold would be wasted
    /// (docs/design/contacts.md); if the pair holds still after all, the next test keeps its
    /// points and the step after reuses them.
    ///
    /// `b_in_a` is `b`'s pose in `a`'s frame if the caller has it (computed here if not).
    pub(crate) fn pose_only(
        a: &Collider,
        b: &Collider,
        b_in_a: Option<&Isometry>,
        margin: f32,
        gap: f32,
    ) -> Option<Self> {
        if cheap_to_test(a.shape.kind(), b.shape.kind()) {
            return None;
        }
        let (pose_a, pose_b) = (&a.world_pose, &b.world_pose);
        // B's bounding box bounds how far its points reach from its origin.
        let reach_b = (b.aabb.center() - pose_b.translation).abs() + b.aabb.half_extents();
        Some(ManifoldCache {
            b_in_a: b_in_a.copied().unwrap_or_else(|| pose_a.inv_mul(pose_b)),
            margin,
            limit: MANIFOLD_REUSE_DISTANCE
                .min(MANIFOLD_REUSE_FRACTION * a.feature_size.min(b.feature_size)),
            reach_b: reach_b.length(),
            normal: Vec3::ZERO,
            local_a: Vec3x4::ZERO,
            local_b: Vec3x4::ZERO,
            ids: [0; MAX_MANIFOLD_POINTS],
            count: 0,
            complete: false,
            gap,
        })
    }

    /// True when it keeps a manifold to reuse (not only a pose).
    pub(crate) fn is_complete(&self) -> bool {
        self.complete
    }

    /// Whether the test still holds for B moved by `motion` ([`Self::motion_bound`]) since
    /// and the speculative `margin` now: no point moved past the limit, and the margin has not
    /// grown past the test's by more than that (a point it left out would be at least
    /// margin − limit away).
    pub(crate) fn holds(&self, motion: f32, margin: f32) -> bool {
        motion <= self.limit && margin <= self.margin + self.limit
    }

    /// Whether a pair that moved by `motion` since this test, past the limit, keeps the
    /// manifold of its new test ([`ManifoldCache::new`]) rather than its pose alone: it moved
    /// less than [`MANIFOLD_KEEP_FACTOR`] limits, so it is most likely coming to rest.
    pub(crate) fn settling(&self, motion: f32) -> bool {
        motion <= MANIFOLD_KEEP_FACTOR * self.limit
    }

    /// If the shapes are certainly still farther apart than `margin` with B moved by `motion`
    /// ([`Self::motion_bound`]) since the test, how far apart at least (along the separating
    /// axis of the test, fixed in A's frame): the kept `gap` less that motion. A test now
    /// would then find no points either (every point it keeps is within `margin` of the other
    /// shape). [`GAP_ROUNDING`] covers the rounding of the separation.
    pub(crate) fn remaining_gap(&self, motion: f32, margin: f32) -> Option<f32> {
        let remaining = self.gap - motion;
        (self.gap > 0.0 && remaining >= margin + GAP_ROUNDING).then_some(remaining)
    }

    /// How far any point of B can have moved relative to A since the test, with B now at
    /// `b_in_a`, m: the translation plus the rotation's chord at B's reach (see the type).
    pub(crate) fn motion_bound(&self, b_in_a: &Isometry) -> f32 {
        let moved = (b_in_a.translation - self.b_in_a.translation).length();
        let turn = (self.b_in_a.rotation.inverse() * b_in_a.rotation)
            .xyz()
            .length();
        moved + 2.0 * turn * self.reach_b
    }

    /// The normal, the points on A and on B (point j in lane j) and their depths, moved with
    /// the colliders to `pose_a` and `pose_b`.
    #[inline(always)]
    fn moved(&self, pose_a: &Isometry, pose_b: &Isometry) -> (Vec3, Vec3x4, Vec3x4, [f32; 4]) {
        let normal = pose_a.transform_vector(self.normal);
        let point_a = transform_points(pose_a, self.local_a);
        let point_b = transform_points(pose_b, self.local_b);
        let depth = (point_a - point_b).dot(Vec3x4::splat(normal)).to_array();
        (normal, point_a, point_b, depth)
    }

    /// The manifold now, in world space, for colliders at `pose_a` and `pose_b`, into `out`: the cached
    /// points moved with their bodies, each depth measured again, points farther apart than
    /// `margin` left out. The points are moved four at once, each lane with the operations
    /// of the scalar transform (`simd::transform_points`), so the bits are those of moving
    /// them one by one.
    pub(crate) fn manifold_into(
        &self,
        pose_a: &Isometry,
        pose_b: &Isometry,
        margin: f32,
        out: &mut Manifold,
    ) {
        let (normal, point_a, point_b, depth) = self.moved(pose_a, pose_b);
        out.empty();
        out.normal = normal;
        let (point_a, point_b) = (point_a.lanes(), point_b.lanes());
        for j in 0..self.count {
            if depth[j] >= -margin {
                out.push(ManifoldPoint {
                    point_a: point_a[j],
                    point_b: point_b[j],
                    depth: depth[j],
                    id: self.ids[j],
                });
            }
        }
    }
}

/// Slack on a separation kept for [`ManifoldCache::remaining_gap`], m: more than the rounding
/// of a separating-axis test at the scales the engine supports.
const GAP_ROUNDING: f32 = 1.0e-4;

/// Pairs whose collision test is a closed form of a few dozen operations: anything with a
/// plane (also unbounded, so its points have no reach), two spheres or capsules (closest
/// points of two segments), a sphere and a box (the closest point of the box). Checking and
/// applying a cached manifold costs about as much as testing them (two relative poses, a
/// transform per point), so they are always tested (measured in docs/design/contacts.md).
pub(crate) fn cheap_to_test(a: ShapeKind, b: ShapeKind) -> bool {
    use ShapeKind::*;
    let round = |k| matches!(k, Sphere | Capsule);
    a == Plane
        || b == Plane
        || (round(a) && round(b))
        || matches!((a, b), (Sphere, Cuboid) | (Cuboid, Sphere))
}

/// Links of one side of a contact in its body's contact list.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactEdge {
    /// Body slot index.
    pub body: u32,
    /// Previous edge key (contact id << 1 | side) or NULL.
    pub prev: u32,
    /// Next edge key or NULL.
    pub next: u32,
}

/// The handles of a contact's colliders and bodies, A then B.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactHandles {
    pub colliders: [ColliderHandle; 2],
    pub bodies: [BodyHandle; 2],
}

/// A potential or actual contact between two colliders.
#[derive(Clone, Debug)]
pub struct Contact {
    /// Collider slot indices (the solver's and the pair table's keys).
    pub(crate) collider_a: u32,
    pub(crate) collider_b: u32,
    /// The colliders' and bodies' handles, for the public accessors. A contact ends when
    /// either collider is removed, so they stay live as long as it does.
    pub(crate) handles: ContactHandles,
    pub(crate) edges: [ContactEdge; 2],
    /// World normal from A to B.
    pub(crate) normal: Vec3,
    pub(crate) points: [ContactPoint; MAX_MANIFOLD_POINTS],
    pub(crate) count: usize,
    pub(crate) material: MixedMaterial,
    /// Accumulated rolling-resistance angular impulse of the last step, N·m·s.
    pub(crate) rolling_impulse: Vec3,
    /// Accumulated twist friction impulse about the normal of the last step, N·m·s.
    pub(crate) twist_impulse: f32,
    /// Has manifold points this step (never for a sensor contact).
    pub(crate) touching: bool,
    /// One of the colliders is a sensor: the contact only tracks overlap.
    pub(crate) sensor: bool,
    /// A sensor contact's shapes overlap.
    pub(crate) overlapping: bool,
    /// The manifold of the last collision test, kept for reuse while the pair barely moves.
    pub(crate) cache: Option<ManifoldCache>,
    /// Index of this contact in the dense list of live contacts.
    pub(crate) dense_index: u32,
    /// False for free slots.
    pub(crate) alive: bool,
}

impl Contact {
    /// Collider A.
    pub fn collider_a(&self) -> ColliderHandle {
        self.handles.colliders[0]
    }

    /// Collider B.
    pub fn collider_b(&self) -> ColliderHandle {
        self.handles.colliders[1]
    }

    /// The body of collider A.
    pub fn body_a(&self) -> BodyHandle {
        self.handles.bodies[0]
    }

    /// The body of collider B.
    pub fn body_b(&self) -> BodyHandle {
        self.handles.bodies[1]
    }

    /// World normal from A to B.
    pub fn normal(&self) -> Vec3 {
        self.normal
    }

    /// The manifold points of the last step.
    pub fn points(&self) -> &[ContactPoint] {
        &self.points[..self.count]
    }

    /// Mixed friction coefficient.
    pub fn friction(&self) -> f32 {
        self.material.friction
    }

    /// Mixed restitution.
    pub fn restitution(&self) -> f32 {
        self.material.restitution
    }

    /// Mixed rolling resistance, m.
    pub fn rolling_resistance(&self) -> f32 {
        self.material.rolling_resistance
    }

    /// True when the manifold has points (touching or within the speculative margin).
    pub fn is_touching(&self) -> bool {
        self.touching
    }

    /// True when one of the colliders is a sensor (the contact never pushes).
    pub fn is_sensor(&self) -> bool {
        self.sensor
    }

    /// For a sensor contact: the shapes overlap.
    pub fn is_overlapping(&self) -> bool {
        self.overlapping
    }

    /// The kept manifold moved to where the colliders are now (`pose_a`, `pose_b`), written
    /// straight into the points when it is the same manifold again (every cached point
    /// within `margin`, the same feature ids in the same order: what [`Self::update_points`]
    /// would then do, without building the manifold first). Returns false, changing
    /// nothing, when it is not, when it has no points, or when there is no complete cache.
    pub(crate) fn refresh_from_cache(
        &mut self,
        pose_a: &Isometry,
        pose_b: &Isometry,
        margin: f32,
    ) -> bool {
        let Some(cache) = self.cache.as_ref().filter(|c| c.complete) else {
            return false;
        };
        let count = cache.count;
        if count == 0
            || count != self.count
            || (0..count).any(|j| cache.ids[j] != self.points[j].id)
        {
            return false;
        }
        let (normal, point_a, point_b, depth) = cache.moved(pose_a, pose_b);
        // Every point kept as `manifold` keeps them (`depth >= -margin`, which a NaN
        // depth is not), else it is not the same manifold.
        if !depth[..count].iter().all(|&d| d >= -margin) {
            return false;
        }
        let (point_a, point_b) = (point_a.lanes(), point_b.lanes());
        self.normal = normal;
        for (j, dst) in self.points[..count].iter_mut().enumerate() {
            dst.point_a = point_a[j];
            dst.point_b = point_b[j];
            dst.depth = depth[j];
            dst.max_normal_impulse = 0.0;
        }
        true
    }

    /// Replaces the manifold, carrying impulses over from the old points.
    ///
    /// A new point takes the impulses of the old point with the same feature id. Feature ids
    /// are not stable where clipping is degenerate (faces exactly on top of each other, as in
    /// every aligned stack: a corner is both an incident vertex and an edge cut by a side
    /// plane, and the smallest tilt decides which), so a point left without a match takes
    /// the nearest unclaimed old point instead when it lies within [`CONTACT_MATCH_DISTANCE`]
    /// and within a quarter of the old points' spacing (so small shapes never swap corners).
    /// Without this, warm starting is lost whenever a resting manifold's ids flip and the
    /// fresh, unbalanced impulses kick the stack sideways.
    pub(crate) fn update_points(&mut self, normal: Vec3, new_points: &[ManifoldPoint]) {
        self.normal = normal;
        // The common case, a manifold found again with the same features in the same
        // order: every point keeps its impulses and arms, only its geometry changes.
        if new_points.len() == self.count
            && new_points
                .iter()
                .zip(&self.points)
                .all(|(new, old)| new.id == old.id)
        {
            for (dst, src) in self.points.iter_mut().zip(new_points) {
                dst.point_a = src.point_a;
                dst.point_b = src.point_b;
                dst.depth = src.depth;
                dst.max_normal_impulse = 0.0;
            }
            return;
        }
        let old = self.points;
        let old_count = self.count;
        self.count = new_points.len();
        let mut claimed = [false; MAX_MANIFOLD_POINTS];
        let mut matched_of = [None::<usize>; MAX_MANIFOLD_POINTS];
        for (slot, src) in matched_of.iter_mut().zip(new_points) {
            if let Some(j) = (0..old_count).find(|&j| !claimed[j] && old[j].id == src.id) {
                claimed[j] = true;
                *slot = Some(j);
            }
        }
        let reach2 = if matched_of[..new_points.len()].iter().all(Option::is_some) {
            0.0
        } else {
            let spacing2 = min_spacing_squared(&old[..old_count]);
            (CONTACT_MATCH_DISTANCE * CONTACT_MATCH_DISTANCE).min(spacing2 / 16.0)
        };
        for (slot, src) in matched_of.iter_mut().zip(new_points) {
            if slot.is_some() {
                continue;
            }
            let mid = 0.5 * (src.point_a + src.point_b);
            let nearest = (0..old_count)
                .filter(|&j| !claimed[j])
                .map(|j| (j, old[j].point().distance_squared(mid)))
                .filter(|&(_, d2)| d2 <= reach2)
                .min_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((j, _)) = nearest {
                claimed[j] = true;
                *slot = Some(j);
            }
        }
        for ((dst, src), matched) in self.points.iter_mut().zip(new_points).zip(matched_of) {
            let matched = matched.map(|j| &old[j]);
            *dst = ContactPoint {
                point_a: src.point_a,
                point_b: src.point_b,
                depth: src.depth,
                id: src.id,
                normal_impulse: matched.map_or(0.0, |o| o.normal_impulse),
                tangent_impulse: matched.map_or(Vec3::ZERO, |o| o.tangent_impulse),
                max_normal_impulse: 0.0,
                arm_a: matched.map_or(Vec3::ZERO, |o| o.arm_a),
                arm_b: matched.map_or(Vec3::ZERO, |o| o.arm_b),
                anchored: matched.is_some_and(|o| o.anchored),
            };
        }
    }
}

/// The smallest squared distance between two of `points` (infinite for fewer than two).
fn min_spacing_squared(points: &[ContactPoint]) -> f32 {
    let mut best = f32::INFINITY;
    for (i, p) in points.iter().enumerate() {
        for q in &points[i + 1..] {
            best = best.min(p.point().distance_squared(q.point()));
        }
    }
    best
}

/// How far ahead of a loop over a list of contacts [`prefetch_ahead`] asks for the contact,
/// and for its bodies and colliders (positions in the list).
const CONTACT_AHEAD: usize = 8;
const OBJECTS_AHEAD: usize = 4;

/// Cache hints for a loop over `list` (the active contacts, or the touching ones) at
/// position `k`; results do not depend on them. Starts loading the contact
/// [`CONTACT_AHEAD`] places on, and the bodies (and, if given, the colliders) of the one
/// [`OBJECTS_AHEAD`] places on. The loops hop through memory by index; without the hints
/// each iteration waited on its loads in turn.
#[inline]
pub(crate) fn prefetch_ahead(
    list: &[ActiveInfo],
    k: usize,
    slots: *const Contact,
    len: usize,
    bodies: &Arena<Body>,
    colliders: Option<&Arena<Collider>>,
) {
    if let Some(info) = list.get(k + CONTACT_AHEAD) {
        if (info.id as usize) < len {
            // A hint only: the slot's address, never read here (another thread may be
            // writing it).
            prefetch_ptr(slots.wrapping_add(info.id as usize));
        }
    }
    if let Some(info) = list.get(k + OBJECTS_AHEAD) {
        bodies.prefetch(info.bodies[0]);
        bodies.prefetch(info.bodies[1]);
        if let Some(colliders) = colliders {
            colliders.prefetch(info.colliders[0]);
            colliders.prefetch(info.colliders[1]);
        }
    }
}

/// A live contact as the loops over the contacts see it first ([`ContactSet::active`]): enough
/// to skip it, or to ask for the ones ahead, without loading it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ActiveInfo {
    /// The contact's id.
    pub id: u32,
    /// Body slots of A and B.
    pub bodies: [u32; 2],
    /// Collider slots of A and B.
    pub colliders: [u32; 2],
    /// The contact has manifold points ([`Contact::touching`]).
    pub touching: bool,
}

/// All contacts, with the pair table and the dense iteration list.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactSet {
    pub slots: Vec<Contact>,
    free: Vec<u32>,
    /// The live contacts, in creation order (with swap-removal): each one's id, bodies,
    /// colliders and whether it touches.
    pub active: Vec<ActiveInfo>,
    pairs: DeterministicMap<u64, u32>,
}

impl ContactSet {
    /// The contact between two collider slots, if any.
    pub fn find(&self, collider_a: u32, collider_b: u32) -> Option<u32> {
        self.pairs.get(&pair_key(collider_a, collider_b)).copied()
    }

    /// Roughly the bytes the set holds (slots, lists and the pair table).
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Contact>()
            + self.free.capacity() * std::mem::size_of::<u32>()
            + self.active.capacity() * std::mem::size_of::<ActiveInfo>()
            + self.pairs.capacity() * (std::mem::size_of::<(u64, u32)>() + 1)
    }

    /// Number of live contacts.
    pub fn len(&self) -> usize {
        self.active.len()
    }

    /// Creates a contact (no points yet) and returns its id. The caller links it to bodies.
    pub fn create(
        &mut self,
        handles: ContactHandles,
        material: MixedMaterial,
        sensor: bool,
    ) -> u32 {
        let [collider_a, collider_b] = handles.colliders.map(|h| h.index());
        let [body_a, body_b] = handles.bodies.map(|h| h.index());
        let edge = |body| ContactEdge {
            body,
            prev: NULL,
            next: NULL,
        };
        let contact = Contact {
            collider_a,
            collider_b,
            handles,
            edges: [edge(body_a), edge(body_b)],
            normal: Vec3::ZERO,
            points: [ContactPoint::default(); MAX_MANIFOLD_POINTS],
            count: 0,
            material,
            rolling_impulse: Vec3::ZERO,
            twist_impulse: 0.0,
            touching: false,
            sensor,
            overlapping: false,
            cache: None,
            dense_index: self.active.len() as u32,
            alive: true,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = contact;
                id
            }
            None => {
                self.slots.push(contact);
                (self.slots.len() - 1) as u32
            }
        };
        self.active.push(ActiveInfo {
            id,
            bodies: [body_a, body_b],
            colliders: [collider_a, collider_b],
            touching: false,
        });
        self.pairs.insert(pair_key(collider_a, collider_b), id);
        id
    }

    /// The touching contacts, in `active`'s order, into `out`.
    pub fn touching_into(&self, out: &mut Vec<ActiveInfo>) {
        out.clear();
        out.extend(self.active.iter().filter(|info| info.touching));
    }

    /// Frees a contact (already unlinked from its bodies).
    pub fn destroy(&mut self, id: u32) {
        let contact = &mut self.slots[id as usize];
        contact.alive = false;
        let dense = contact.dense_index as usize;
        let key = pair_key(contact.collider_a, contact.collider_b);
        self.pairs.remove(&key);
        self.active.swap_remove(dense);
        if let Some(moved) = self.active.get(dense) {
            self.slots[moved.id as usize].dense_index = dense as u32;
        }
        self.free.push(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(x: f32, z: f32, id: u32) -> ManifoldPoint {
        let p = Vec3::new(x, 0.0, z);
        ManifoldPoint {
            point_a: p,
            point_b: p,
            depth: 0.001,
            id,
        }
    }

    fn contact_with(points: &[ManifoldPoint], impulses: &[f32]) -> Contact {
        let mut set = ContactSet::default();
        let handles = ContactHandles {
            colliders: [0, 1].map(|i| ColliderHandle::from_raw_parts(i, 0)),
            bodies: [0, 1].map(|i| BodyHandle::from_raw_parts(i, 0)),
        };
        let id = set.create(handles, MixedMaterial::default(), false);
        let mut c = set.slots[id as usize].clone();
        c.update_points(Vec3::Y, points);
        for (p, &impulse) in c.points.iter_mut().zip(impulses) {
            p.normal_impulse = impulse;
            p.tangent_impulse = Vec3::X * impulse;
        }
        c
    }

    #[test]
    fn impulses_follow_the_feature_id() {
        let mut c = contact_with(&[point(0.5, 0.5, 1), point(-0.5, 0.5, 2)], &[3.0, 4.0]);
        // Same ids, listed in the other order and moved slightly.
        c.update_points(Vec3::Y, &[point(-0.49, 0.5, 2), point(0.51, 0.5, 1)]);
        assert_eq!(c.points()[0].normal_impulse, 4.0);
        assert_eq!(c.points()[1].normal_impulse, 3.0);
        assert_eq!(c.points()[1].tangent_impulse, Vec3::X * 3.0);
    }

    #[test]
    fn a_renamed_point_in_the_same_place_keeps_its_impulses() {
        // Degenerate clipping renames a corner (new id) without moving it: the nearest old
        // point within reach hands over its impulses; a point that appeared far from every
        // old one starts from zero.
        let mut c = contact_with(&[point(0.5, 0.5, 1), point(-0.5, 0.5, 2)], &[3.0, 4.0]);
        c.update_points(Vec3::Y, &[point(0.5, 0.501, 9), point(-0.2, -0.5, 10)]);
        assert_eq!(c.points()[0].normal_impulse, 3.0);
        assert_eq!(c.points()[1].normal_impulse, 0.0);
    }

    #[test]
    fn the_reach_shrinks_with_the_spacing_of_small_manifolds() {
        // Corners of a 4 mm face are 4 mm apart: reach is a quarter of that (1 mm), so a
        // renamed point 2 mm from the nearest old corner starts fresh instead of stealing it.
        let mut c = contact_with(&[point(0.002, 0.0, 1), point(-0.002, 0.0, 2)], &[3.0, 4.0]);
        c.update_points(Vec3::Y, &[point(0.0, 0.002, 7)]);
        assert_eq!(c.points()[0].normal_impulse, 0.0);
        c = contact_with(&[point(0.002, 0.0, 1), point(-0.002, 0.0, 2)], &[3.0, 4.0]);
        c.update_points(Vec3::Y, &[point(0.0015, 0.0, 7)]);
        assert_eq!(c.points()[0].normal_impulse, 3.0);
    }
}
