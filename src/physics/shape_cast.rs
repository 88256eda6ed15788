//! Shape casts: sweep a shape along a straight line through the world and report the first
//! collider it would touch (a character moving and sliding along walls asks this).
//!
//! ```text
//! candidates: colliders whose fat box meets the box the shape sweeps
//! for each candidate B:                       conservative advancement (Mirtich 1996)
//!     t ← 0
//!     repeat: d, n ← distance and normal between the shape at pose + t·dir and B
//!             closing ← −n·dir                        (how fast the gap along n shrinks)
//!             if d ≤ skin: hit at t + d / closing     (the last bit along the approach)
//!             if closing ≤ 0: no hit
//!             t ← t + (d − skin) / closing
//!             if t > the best hit so far or the maximum distance: no hit
//! ```
//! Why the advance is safe: the plane through B's closest point with normal n separates the
//! two convex shapes, B lying wholly behind it, so the moving shape cannot touch B before it
//! reaches that plane, which takes (d − skin)/closing; and moving along or away from the
//! plane it never can. (Advancing by d − skin alone is safe too, but crawls when the shape
//! slides along a surface a few millimetres away, and gives up before a grazing hit.)
//! Distances come from GJK (a plane's from the shape's support point), so a cast is exact to
//! GJK's precision for a head-on approach and converges in a few steps for a slanted one,
//! like Newton's method on the gap. The shape does not turn during the cast.

use super::math::{is_finite_vec, Isometry, Vec3};
use super::narrow_phase::gjk::gjk_distance;
use super::narrow_phase::{collide, Scratch};
use super::shape::{Shape, SupportMap};
use super::world::{BodyHandle, ColliderHandle, World};

/// The gap at which the advancement stops and finishes the approach in one straight move, m.
/// The normal is measured at this gap: 1 mm keeps its direction good to about 10⁻⁴ (f32
/// witness points carry about 10⁻⁷ m of rounding), and the straight finish is exact for
/// flat faces and off by far less than that for curved ones.
const CAST_SKIN: f32 = 1.0e-3;
/// Advancement steps per candidate before giving up on it (grazing approaches).
const CAST_MAX_ITERATIONS: u32 = 64;
/// How far short of a surface [`World::slide_shape`] stops, m.
pub const SLIDE_SKIN: f32 = 0.005;
/// The longest cast, m (longer ones are shortened to it).
pub const MAX_CAST_DISTANCE: f32 = 1.0e6;

/// The first hit of a shape cast.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeHit {
    /// The body hit.
    pub body: BodyHandle,
    /// The collider hit.
    pub collider: ColliderHandle,
    /// How far the shape travels before it touches, m (0 when it starts touching).
    pub distance: f32,
    /// Where it touches, on the collider hit (world).
    pub point: Vec3,
    /// The hit collider's surface normal there, unit, facing the moving shape (`−direction`
    /// when the cast starts inside).
    pub normal: Vec3,
}

impl World {
    /// Sweeps `shape`, placed at `pose`, along `direction` (any length; a zero or non-finite
    /// one casts nothing) for up to `max_distance` m, and returns the first collider it would
    /// touch. Sensors and the colliders of `exclude` (the caster's own body) are ignored. A
    /// plane cannot be cast (it has no size): the answer is `None`.
    pub fn cast_shape(
        &self,
        shape: &Shape,
        pose: &Isometry,
        direction: Vec3,
        max_distance: f32,
        exclude: Option<BodyHandle>,
    ) -> Option<ShapeHit> {
        self.cast_shape_where(shape, pose, direction, max_distance, exclude, |_, _| true)
    }

    /// Moves `shape` from `pose` by `displacement` as far as the static colliders let it,
    /// sliding along what it meets: move until the first hit,
    /// keep the part of the rest of the move along the surface, move again, at most
    /// `max_moves` times. Returns the displacement it may make. Dynamic and kinematic bodies
    /// do not stop it (a kinematic body moved by this pushes them through its contacts);
    /// sensors and `exclude` are ignored. It stops [`SLIDE_SKIN`] from every surface it
    /// meets (measured along the surface's normal), so the next move starts apart.
    pub fn slide_shape(
        &self,
        shape: &Shape,
        pose: &Isometry,
        displacement: Vec3,
        exclude: Option<BodyHandle>,
        max_moves: u32,
    ) -> Vec3 {
        let mut moved = Vec3::ZERO;
        let mut rest = displacement;
        if !is_finite_vec(displacement) {
            return Vec3::ZERO;
        }
        // The colliders slid along so far, with their normals. A convex shape moving along or
        // away from a convex collider's separating plane cannot meet it again, so later casts
        // skip them (conservative advancement parallel to a surface a few millimetres away
        // would otherwise crawl).
        let mut touched: Vec<(u32, Vec3)> = Vec::new();
        for _ in 0..max_moves {
            let length = rest.length();
            if length <= 1.0e-6 {
                break;
            }
            let dir = rest / length;
            let at = Isometry::new(pose.translation + moved, pose.rotation);
            let reach = length + SLIDE_SKIN;
            let keep = |collider: u32, body: u32| {
                let fixed = self
                    .bodies
                    .at(body)
                    .is_some_and(|b| b.body_type == super::body::BodyType::Static);
                fixed && !touched.iter().any(|&(c, _)| c == collider)
            };
            let Some(hit) = self.cast_shape_where(shape, &at, dir, reach, exclude, keep) else {
                moved += rest;
                break;
            };
            // Stop SLIDE_SKIN from the surface (along its normal, so a slanted approach
            // keeps the same gap as a head-on one).
            let closing = (-hit.normal.dot(dir)).max(1.0e-3);
            let travel = (hit.distance - SLIDE_SKIN / closing).clamp(0.0, length);
            moved += dir * travel;
            rest -= dir * travel;
            // Keep what runs along the surface; drop what goes into it. Along a crease of two
            // surfaces only the part along the crease is left, in a corner nothing.
            let into = rest.dot(hit.normal);
            if into < 0.0 {
                rest -= hit.normal * into;
            }
            for &(_, n) in &touched {
                if rest.dot(n) < -1.0e-6 {
                    let crease = n.cross(hit.normal);
                    rest = match crease.try_normalize() {
                        Some(c) => c * rest.dot(c),
                        None => Vec3::ZERO,
                    };
                }
            }
            if touched.iter().any(|&(_, n)| rest.dot(n) < -1.0e-6) {
                break;
            }
            touched.push((hit.collider.index(), hit.normal));
        }
        moved
    }

    /// [`World::cast_shape`] against the colliders of the bodies (by index) `keep` accepts.
    fn cast_shape_where(
        &self,
        shape: &Shape,
        pose: &Isometry,
        direction: Vec3,
        max_distance: f32,
        exclude: Option<BodyHandle>,
        keep: impl Fn(u32, u32) -> bool,
    ) -> Option<ShapeHit> {
        let dir = direction.try_normalize()?;
        let finite_pose = is_finite_vec(pose.translation) && pose.rotation.is_finite();
        if !finite_pose || max_distance.is_nan() || max_distance < 0.0 {
            return None;
        }
        if matches!(shape, Shape::Plane { .. }) || shape.validate().is_err() {
            return None;
        }
        let max_distance = max_distance.min(MAX_CAST_DISTANCE);
        let start = shape.world_aabb(pose);
        let end = super::aabb::Aabb::new(
            start.min + dir * max_distance,
            start.max + dir * max_distance,
        );
        let swept = start.union(&end);
        // A stale handle excludes nothing.
        let exclude = exclude
            .filter(|&h| self.bodies.get(h).is_some())
            .map(|h| h.index());
        let mut candidates = Vec::new();
        self.broad_phase.query(&swept, &mut |user| {
            candidates.push(user);
            true
        });
        // Ties go to the lowest collider index, whatever the broad phase.
        candidates.sort_unstable();
        let mut best: Option<(f32, Vec3, Vec3, u32)> = None;
        for user in candidates {
            let Some(other) = self.colliders.at(user) else {
                continue;
            };
            if other.sensor
                || Some(other.body) == exclude
                || !other.aabb.overlaps(&swept)
                || !keep(user, other.body)
            {
                continue;
            }
            let limit = best.map_or(max_distance, |b| b.0);
            if let Some((t, point, normal)) =
                time_of_impact(shape, pose, dir, limit, &other.shape, &other.world_pose)
            {
                if best.is_none_or(|b| t < b.0) {
                    best = Some((t, point, normal, user));
                }
            }
        }
        let (distance, point, normal, user) = best?;
        let collider = self.colliders.handle_at(user)?;
        let body = self.bodies.handle_at(self.colliders.at(user)?.body)?;
        Some(ShapeHit {
            body,
            collider,
            distance,
            point,
            normal,
        })
    }
}

/// The first distance t ≤ `limit` along `dir` at which `shape` (from `pose`) touches `other`,
/// with the point on `other` and its normal there.
fn time_of_impact(
    shape: &Shape,
    pose: &Isometry,
    dir: Vec3,
    limit: f32,
    other: &Shape,
    other_pose: &Isometry,
) -> Option<(f32, Vec3, Vec3)> {
    let mut t = 0.0f32;
    for _ in 0..CAST_MAX_ITERATIONS {
        let moved = Isometry::new(pose.translation + dir * t, pose.rotation);
        let (d, point, normal) = closest(shape, &moved, other, other_pose);
        if d <= 0.0 && t == 0.0 {
            // Touching or inside from the start.
            return Some((0.0, point, -dir));
        }
        let closing = -normal.dot(dir);
        // Within the skin (and GJK's precision of it), or so close that the next advance
        // would not change t: finish.
        if d <= CAST_SKIN * 1.05 || t + (d - CAST_SKIN) == t {
            // The contact normal and point from the narrow phase (exact for faces, where
            // GJK's witness points are only good to a millimetre or so: a capsule's side
            // against a face touches along a whole segment).
            let (point, normal) = contact_at(shape, &moved, other, other_pose)
                .unwrap_or((point, if normal == Vec3::ZERO { -dir } else { normal }));
            // The last bit along the approach: d closes at `closing` per unit of t.
            let closing = -normal.dot(dir);
            let t = t + d.max(0.0) / closing.max(1.0e-3);
            return (t <= limit).then_some((t, point, normal));
        }
        if closing <= 1.0e-6 {
            // Moving along or away from the separating plane: never touches.
            return None;
        }
        t += (d - CAST_SKIN) / closing;
        if t > limit || !t.is_finite() {
            return None;
        }
    }
    None
}

/// The narrow phase's contact between `shape` and `other` when they are within a few skins:
/// the point on `other` nearest the shape (its closest manifold point) and `other`'s normal
/// facing the shape.
fn contact_at(
    shape: &Shape,
    pose: &Isometry,
    other: &Shape,
    other_pose: &Isometry,
) -> Option<(Vec3, Vec3)> {
    let mut scratch = Scratch::default();
    let manifold = collide(
        shape,
        pose,
        other,
        other_pose,
        4.0 * CAST_SKIN,
        &mut scratch,
    );
    let closest = manifold
        .points()
        .iter()
        .max_by(|a, b| a.depth.total_cmp(&b.depth))?;
    Some((closest.point_b, -manifold.normal))
}

/// The distance between `shape` at `pose` and `other` at `other_pose` (0 when they overlap),
/// the point of `other` nearest the shape, and `other`'s normal there pointing towards the
/// shape (zero when they overlap).
fn closest(
    shape: &Shape,
    pose: &Isometry,
    other: &Shape,
    other_pose: &Isometry,
) -> (f32, Vec3, Vec3) {
    if let Shape::Plane { normal } = other {
        let n = other_pose.rotation * *normal;
        let lowest = pose.transform_point(shape.support(pose.rotation.inverse() * -n));
        let d = n.dot(lowest - other_pose.translation);
        return (d.max(0.0), lowest - n * d, n);
    }
    let r = gjk_distance(shape, other, &pose.inv_mul(other_pose));
    // The normal from the witness points in the shape's own frame, where they are small
    // numbers: in world coordinates their rounding would swamp a 1 mm gap.
    let normal = pose.rotation
        * (r.point_a - r.point_b)
            .try_normalize()
            .unwrap_or(Vec3::ZERO);
    // GJK's witness points blend the support points of its simplex and are only good to
    // about a millimetre across a face; a moving sphere's contact point follows from the
    // normal alone, carried across the gap.
    let point = match shape {
        Shape::Sphere { radius } => pose.translation - normal * (radius + r.distance),
        _ => pose.transform_point(r.point_b),
    };
    (r.distance, point, normal)
}
