//! Contacts of any shape with a half-space (always shape B here): the deepest points of A
//! below the plane. Vertices of boxes and hulls are tested one by one and reduced to four.

use super::clip::reduce_into;
use super::{Manifold, ManifoldPoint, Scratch};
use crate::physics::math::{Isometry, Vec3};
use crate::physics::shape::Shape;

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
            for k in 0..8u32 {
                let sign = Vec3::new(
                    if k & 1 == 0 { -1.0 } else { 1.0 },
                    if k & 2 == 0 { -1.0 } else { 1.0 },
                    if k & 4 == 0 { -1.0 } else { 1.0 },
                );
                scratch.points.push(point(*half_extents * sign, 0.0, k));
            }
        }
        Shape::ConvexHull(hull) => {
            for (k, &v) in hull.vertices.iter().enumerate() {
                scratch.points.push(point(v, 0.0, k as u32));
            }
        }
        Shape::Plane { .. } => {}
    }
    scratch.points.retain(|p| p.depth >= -margin);
    reduce_into(&scratch.points, -n, out);
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
