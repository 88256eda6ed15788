//! Narrow phase: contact manifolds between pairs of shapes.
//!
//! One dispatch ([`collide`]) on the pair of shape kinds, one function per pair. Each pair
//! function works in the local frame of its first shape (fewer transforms, simpler math) and
//! the result is moved to world space once at the end. Pairs are ordered by [`ShapeKind`]
//! (sphere < cuboid < capsule < hull < plane) so each function exists once; when the
//! collider pair comes in the other order the manifold is flipped.

pub mod box_box;
pub mod capsule;
pub mod clip;
pub mod epa;
pub mod geometry;
pub mod gjk;
pub mod plane;
pub mod polytope;
pub mod sphere;

use super::math::{Isometry, Vec3};
use super::shape::{Shape, ShapeKind};

/// At most this many points per manifold: four well-spread points hold any face contact.
pub const MAX_MANIFOLD_POINTS: usize = 4;

/// One contact point between shapes A and B.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ManifoldPoint {
    /// The point on A's surface (deepest into B).
    pub point_a: Vec3,
    /// The point on B's surface (deepest into A).
    pub point_b: Vec3,
    /// Penetration depth along the normal, m: positive when overlapping, negative for a
    /// speculative point that is still apart by that much.
    pub depth: f32,
    /// Names the pair of features (vertex, edge, face) that made this point; stays the same
    /// across steps while the same features touch, so impulses can be carried over.
    pub id: u32,
}

/// The contact between two shapes: one normal and up to four points.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Manifold {
    /// Unit normal pointing from A towards B.
    pub normal: Vec3,
    /// The points; only the first `count` are used.
    pub points: [ManifoldPoint; MAX_MANIFOLD_POINTS],
    /// Number of points in use.
    pub count: usize,
    /// When empty because an axis separated the shapes by more than the margin: that
    /// separation, m, a lower bound on their distance (0 when not known). The contact
    /// update uses it to skip testing a pair that cannot have closed the gap since.
    pub gap: f32,
}

impl Manifold {
    /// The points in use.
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.points[..self.count]
    }

    /// True when there are no points.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The largest depth, or `None` when empty.
    pub fn max_depth(&self) -> Option<f32> {
        self.points().iter().map(|p| p.depth).reduce(f32::max)
    }

    /// Appends a point if there is room.
    pub fn push(&mut self, point: ManifoldPoint) {
        if self.count < MAX_MANIFOLD_POINTS {
            self.points[self.count] = point;
            self.count += 1;
        }
    }

    /// Empties the manifold.
    pub fn clear(&mut self) {
        self.count = 0;
    }

    /// Empties it as [`Manifold::default`] is (normal, count and gap; the points past the
    /// count are never read).
    pub(crate) fn empty(&mut self) {
        self.normal = Vec3::ZERO;
        self.count = 0;
        self.gap = 0.0;
    }

    /// Moves every point and the normal by `iso` (from a local frame to its parent).
    fn transform(&mut self, iso: &Isometry) {
        self.normal = iso.transform_vector(self.normal);
        for p in &mut self.points[..self.count] {
            p.point_a = iso.transform_point(p.point_a);
            p.point_b = iso.transform_point(p.point_b);
        }
    }

    /// Swaps the roles of A and B.
    fn flip(&mut self) {
        self.normal = -self.normal;
        for p in &mut self.points[..self.count] {
            std::mem::swap(&mut p.point_a, &mut p.point_b);
        }
    }
}

/// Buffers reused by polygon clipping so a step allocates nothing once warmed up.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    pub(crate) polygon: Vec<clip::ClipVertex>,
    pub(crate) clipped: Vec<clip::ClipVertex>,
    pub(crate) points: Vec<ManifoldPoint>,
    pub(crate) epa: epa::EpaScratch,
    /// The polytope SAT's edges of B as its Minkowski face test reads them, four a group.
    pub(crate) arcs: Vec<[crate::physics::solver::simd::Vec3x4; 3]>,
}

/// Does this pair of kinds need swapping so the first one is the smaller kind?
fn needs_swap(a: ShapeKind, b: ShapeKind) -> bool {
    a > b
}

/// The contact manifold between `shape_a` placed at `pose_a` and `shape_b` at `pose_b`, in
/// world space with the normal from A to B. Points farther apart than `margin` (m) are left
/// out; `margin > 0` gives speculative points with negative depth. Empty when the shapes are
/// farther apart than `margin`, or when both are planes.
pub fn collide(
    shape_a: &Shape,
    pose_a: &Isometry,
    shape_b: &Shape,
    pose_b: &Isometry,
    margin: f32,
    scratch: &mut Scratch,
) -> Manifold {
    let mut manifold = Manifold::default();
    collide_into(
        shape_a,
        pose_a,
        shape_b,
        pose_b,
        None,
        margin,
        scratch,
        &mut manifold,
    );
    manifold
}

/// [`collide`] written into `out`, given B's pose in A's frame, `pose_a.inv_mul(pose_b)`,
/// when the caller has it already (the manifold cache's check forms it for every pair it
/// tests). `out` is emptied first (normal, count and gap as [`Manifold::default`]; the
/// points past the count are not read); the contact update keeps one manifold per piece of
/// its work, so none is returned and moved by value (a copy of the whole manifold a pair).
#[allow(clippy::too_many_arguments)]
pub(crate) fn collide_into(
    shape_a: &Shape,
    pose_a: &Isometry,
    shape_b: &Shape,
    pose_b: &Isometry,
    b_in_a: Option<&Isometry>,
    margin: f32,
    scratch: &mut Scratch,
    out: &mut Manifold,
) {
    out.empty();
    if let (Shape::Sphere { radius: ra }, Shape::Sphere { radius: rb }) = (shape_a, shape_b) {
        sphere::sphere_sphere_world(*ra, pose_a, *rb, pose_b, margin, out);
        return;
    }
    if needs_swap(shape_a.kind(), shape_b.kind()) {
        let a_in_b = pose_b.inv_mul(pose_a);
        collide_ordered(shape_b, pose_b, shape_a, &a_in_b, margin, scratch, out);
        out.flip();
    } else {
        let b_in_a = b_in_a.copied().unwrap_or_else(|| pose_a.inv_mul(pose_b));
        collide_ordered(shape_a, pose_a, shape_b, &b_in_a, margin, scratch, out);
    }
}

/// Calls the pair function for `kind(a) <= kind(b)`, B at `b_in_a` in A's frame, and moves
/// its result to world space.
fn collide_ordered(
    a: &Shape,
    pose_a: &Isometry,
    b: &Shape,
    b_in_a: &Isometry,
    margin: f32,
    scratch: &mut Scratch,
    out: &mut Manifold,
) {
    let b_in_a = *b_in_a;
    use Shape::*;
    match (a, b) {
        (Sphere { radius: ra }, Sphere { radius: rb }) => {
            sphere::sphere_sphere(*ra, *rb, &b_in_a, margin, out)
        }
        (Sphere { radius }, Cuboid { half_extents }) => {
            sphere::sphere_box(*radius, *half_extents, &b_in_a, margin, out)
        }
        (
            Sphere { radius },
            Capsule {
                half_height,
                radius: rb,
            },
        ) => sphere::sphere_capsule(*radius, *half_height, *rb, &b_in_a, margin, out),
        (Sphere { radius }, ConvexHull(hull)) => {
            sphere::sphere_hull(*radius, hull, &b_in_a, margin, out)
        }
        (Cuboid { half_extents: ha }, Cuboid { half_extents: hb }) => {
            box_box::box_box(*ha, *hb, &b_in_a, margin, scratch, out)
        }
        (
            Cuboid { half_extents },
            Capsule {
                half_height,
                radius,
            },
        ) => {
            // Capsule-box runs with the capsule first; flip it into this order.
            let a_in_b = b_in_a.inverse();
            let poly = polytope::PolyView::cuboid(*half_extents);
            capsule::capsule_polytope(*half_height, *radius, &poly, &a_in_b, margin, scratch, out);
            out.transform(&b_in_a);
            out.flip();
        }
        (Cuboid { half_extents }, ConvexHull(hull)) => {
            let pa = polytope::PolyView::cuboid(*half_extents);
            let pb = polytope::PolyView::hull(hull);
            polytope::polytope_polytope(&pa, &pb, &b_in_a, margin, scratch, out)
        }
        (
            Capsule {
                half_height: ha,
                radius: ra,
            },
            Capsule {
                half_height: hb,
                radius: rb,
            },
        ) => capsule::capsule_capsule(*ha, *ra, *hb, *rb, &b_in_a, margin, out),
        (
            Capsule {
                half_height,
                radius,
            },
            ConvexHull(hull),
        ) => {
            let poly = polytope::PolyView::hull(hull);
            capsule::capsule_polytope(*half_height, *radius, &poly, &b_in_a, margin, scratch, out)
        }
        (ConvexHull(ha), ConvexHull(hb)) => {
            let pa = polytope::PolyView::hull(ha);
            let pb = polytope::PolyView::hull(hb);
            polytope::polytope_polytope(&pa, &pb, &b_in_a, margin, scratch, out)
        }
        (_, Plane { normal }) => plane::shape_plane(a, *normal, &b_in_a, margin, scratch, out),
        _ => {}
    }
    out.transform(pose_a);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::math::Quat;

    #[test]
    fn flipped_pairs_give_flipped_manifolds() {
        let sphere = Shape::sphere(0.5);
        let cube = Shape::cuboid(Vec3::splat(0.5));
        let pa = Isometry::from_translation(Vec3::new(0.0, 0.9, 0.0));
        let pb = Isometry::new(Vec3::ZERO, Quat::from_rotation_y(0.3));
        let mut scratch = Scratch::default();
        let ab = collide(&sphere, &pa, &cube, &pb, 0.0, &mut scratch);
        let ba = collide(&cube, &pb, &sphere, &pa, 0.0, &mut scratch);
        assert_eq!(ab.count, 1);
        assert_eq!(ba.count, 1);
        // Sphere centre 0.9 above a box top at 0.5: depth = 0.5 + 0.5 - 0.9 = 0.1, normal -y (A to B).
        assert!((ab.points[0].depth - 0.1).abs() < 1e-5);
        assert!((ab.normal + Vec3::Y).length() < 1e-5);
        assert!((ba.normal - Vec3::Y).length() < 1e-5);
        assert!((ab.points[0].point_a - ba.points[0].point_b).length() < 1e-5);
    }
}
