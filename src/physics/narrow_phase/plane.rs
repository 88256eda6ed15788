//! Contacts of any shape with a half-space (always shape B here): the deepest points of A
//! below the plane. Boxes and hulls touch with the corners of their support face (the face
//! through the deepest vertex that faces the plane most squarely), reduced to four.
//!
//! Only that face's corners are candidates: with a speculative margin larger than the body
//! (a 1 cm cube and a 2 cm margin), every corner is "within reach", and reducing all of them
//! by area would keep a top corner in place of a bottom one, leaving a corner of the resting
//! face without support (the cube rocked on it forever).

use super::clip::reduce_into;
use super::{Manifold, ManifoldPoint, Scratch};
use crate::physics::math::{Isometry, Vec3};
use crate::physics::shape::{ConvexHull, Shape};

/// Shape A at the origin against the half-space with local `normal` placed at `b_in_a`.
pub fn shape_plane(
    a: &Shape,
    normal: Vec3,
    b_in_a: &Isometry,
    margin: f32,
    scratch: &mut Scratch,
    out: &mut Manifold,
) {
    let n = b_in_a.transform_vector(normal);
    let origin = b_in_a.translation;
    // A vertex v at signed height s = n·(v − o) touches with depth −s, its foot on the plane
    // at v − n·s; the contact normal from A to the plane is −n.
    let point = |v: Vec3, radius: f32, id: u32| {
        let deepest = v - n * radius;
        let height = n.dot(deepest - origin);
        ManifoldPoint {
            point_a: deepest,
            point_b: deepest - n * height,
            depth: -height,
            id,
        }
    };
    scratch.points.clear();
    match a {
        Shape::Sphere { radius } => scratch.points.push(point(Vec3::ZERO, *radius, 0)),
        Shape::Capsule {
            half_height,
            radius,
        } => {
            scratch
                .points
                .push(point(Vec3::new(0.0, -half_height, 0.0), *radius, 0));
            scratch
                .points
                .push(point(Vec3::new(0.0, *half_height, 0.0), *radius, 1));
        }
        Shape::Cuboid { half_extents } => {
            // The support face is normal to the axis most aligned with the plane normal, on
            // the side facing the plane; corner k has bit i set where its coordinate i is +.
            let m = n.abs();
            let axis = if m.x >= m.y && m.x >= m.z {
                0
            } else if m.y >= m.z {
                1
            } else {
                2
            };
            let face_bit = if n[axis] > 0.0 { 0 } else { 1 << axis };
            for k in (0..8u32).filter(|k| k & (1 << axis) == face_bit) {
                let sign = Vec3::new(
                    if k & 1 == 0 { -1.0 } else { 1.0 },
                    if k & 2 == 0 { -1.0 } else { 1.0 },
                    if k & 4 == 0 { -1.0 } else { 1.0 },
                );
                scratch.points.push(point(*half_extents * sign, 0.0, k));
            }
        }
        Shape::ConvexHull(hull) => {
            let deepest = hull.support_index(-n);
            match hull_support_face(hull, deepest, -n) {
                Some(face) => {
                    for e in hull.face_edges(face) {
                        let k = hull.edges[e].origin as usize;
                        scratch.points.push(point(hull.vertices[k], 0.0, k as u32));
                    }
                }
                None => scratch
                    .points
                    .push(point(hull.vertices[deepest], 0.0, deepest as u32)),
            }
        }
        Shape::Plane { .. } => {}
    }
    scratch.points.retain(|p| p.depth >= -margin);
    reduce_into(&scratch.points, -n, out);
}

/// Among the faces through vertex `vertex`, the one whose outward normal is closest to
/// `dir` (the direction into the plane). Only faces through the deepest vertex qualify: a
/// face elsewhere may face the plane more squarely but lie far above it.
fn hull_support_face(hull: &ConvexHull, vertex: usize, dir: Vec3) -> Option<usize> {
    hull.edges
        .iter()
        .filter(|e| e.origin as usize == vertex)
        .map(|e| e.face as usize)
        .max_by(|&f, &g| {
            let key = |f: usize| hull.faces[f].normal.dot(dir);
            key(f).total_cmp(&key(g))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::math::Quat;

    #[test]
    fn tilted_box_touches_with_its_lowest_corner() {
        // A unit cube turned 45° about z has its lowest edge √2/2 below its centre; centre at
        // 0.7 above the ground gives depth √2/2 − 0.7 ≈ 0.00711 at the two corners of that edge.
        let rot = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4);
        let pose_a = Isometry::new(Vec3::new(0.0, 0.7, 0.0), rot);
        let b_in_a = pose_a.inv_mul(&Isometry::IDENTITY);
        let mut m = Manifold::default();
        shape_plane(
            &Shape::cuboid(Vec3::splat(0.5)),
            Vec3::Y,
            &b_in_a,
            0.0,
            &mut Scratch::default(),
            &mut m,
        );
        assert_eq!(m.count, 2);
        for p in m.points() {
            assert!((p.depth - (0.5f32.sqrt() - 0.7)).abs() < 1e-5);
        }
        assert!((rot * m.normal + Vec3::Y).length() < 1e-5);
    }

    /// A 1 cm cube tilted 3° about x, a hair above the plane, with a 2 cm speculative
    /// margin that reaches all eight corners: the manifold is the four corners of the bottom
    /// face (local y = −h), never a top corner. Each corner's depth is −(centre height +
    /// its local offset turned by the tilt).
    #[test]
    fn small_box_keeps_its_bottom_face_under_a_large_margin() {
        let h = 0.005;
        let rot = Quat::from_rotation_x(3.0f32.to_radians());
        let pose_a = Isometry::new(Vec3::new(0.0, h + 1.0e-4, 0.0), rot);
        let b_in_a = pose_a.inv_mul(&Isometry::IDENTITY);
        let mut m = Manifold::default();
        let cube = Shape::cuboid(Vec3::splat(h));
        shape_plane(
            &cube,
            Vec3::Y,
            &b_in_a,
            0.02,
            &mut Scratch::default(),
            &mut m,
        );
        assert_eq!(m.count, 4);
        for p in m.points() {
            assert!((p.point_a.y + h).abs() < 1e-7, "corner {:?}", p.point_a);
            let height = pose_a.translation.y + (rot * p.point_a).y;
            assert!(
                (p.depth + height).abs() < 1e-6,
                "{} vs {}",
                p.depth,
                -height
            );
        }
    }

    /// The same for a hull: a square pyramid standing on its apex touches with the apex and
    /// the corners of the side face leaning most towards the ground, not with its base.
    #[test]
    fn hull_touches_with_a_face_through_its_deepest_vertex() {
        let pyramid = Shape::convex_hull(&[
            Vec3::new(-0.5, 0.0, -0.5),
            Vec3::new(0.5, 0.0, -0.5),
            Vec3::new(0.5, 0.0, 0.5),
            Vec3::new(-0.5, 0.0, 0.5),
            Vec3::new(0.0, 1.0, 0.0),
        ])
        .unwrap();
        // Upside down (apex at local y = 1 pointing to −y in the world), tilted 10° about z.
        let rot =
            Quat::from_rotation_z(10f32.to_radians()) * Quat::from_rotation_x(std::f32::consts::PI);
        let pose_a = Isometry::new(Vec3::new(0.0, 0.99, 0.0), rot);
        let b_in_a = pose_a.inv_mul(&Isometry::IDENTITY);
        let mut m = Manifold::default();
        shape_plane(
            &pyramid,
            Vec3::Y,
            &b_in_a,
            10.0,
            &mut Scratch::default(),
            &mut m,
        );
        assert_eq!(m.count, 3, "apex and two base corners of one side face");
        let apex = m.points().iter().filter(|p| p.point_a == Vec3::Y).count();
        assert_eq!(apex, 1);
        let deepest = m.points().iter().map(|p| p.depth).fold(f32::MIN, f32::max);
        let apex_height = pose_a.translation.y + (rot * Vec3::Y).y;
        assert!((deepest + apex_height).abs() < 1e-6);
    }

    #[test]
    fn sphere_on_plane() {
        let b_in_a = Isometry::from_translation(Vec3::new(0.0, -0.95, 0.0));
        let mut m = Manifold::default();
        shape_plane(
            &Shape::sphere(1.0),
            Vec3::Y,
            &b_in_a,
            0.0,
            &mut Scratch::default(),
            &mut m,
        );
        assert!((m.points[0].depth - 0.05).abs() < 1e-6);
        assert!((m.points[0].point_b - Vec3::new(0.0, -0.95, 0.0)).length() < 1e-6);
    }
}
