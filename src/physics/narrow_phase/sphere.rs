//! Contacts of a sphere (shape A, centred on A's origin) with spheres, boxes, capsules and hulls.
//!
//! All follow one pattern: find the point `q` of B's core closest to the sphere centre `c`;
//! the normal is (q − c)/|q − c|, the depth is r_a (+ r_b) − |q − c|. When the centre is
//! inside B the closest feature is the face of least penetration instead.

use super::geometry::closest_point_on_segment;
use super::gjk::gjk_distance;
use super::{Manifold, ManifoldPoint};
use crate::physics::constants::COINCIDENT_DISTANCE as COINCIDENT;
use crate::physics::math::{Isometry, Vec3};
use crate::physics::shape::{ConvexHull, PointSupport};

/// Writes a one-point manifold for a sphere of radius `ra` at the origin whose centre is
/// closest to `q`, a point on B's core with radius `rb`, if within `margin`. When the centre
/// lies on B's core the normal is `fallback`, which must be a shortest way out: any
/// direction for a point core, perpendicular to a segment core.
fn point_contact(ra: f32, q: Vec3, rb: f32, fallback: Vec3, margin: f32, out: &mut Manifold) {
    let dist = q.length();
    let depth = ra + rb - dist;
    if depth < -margin {
        return;
    }
    let normal = if dist > COINCIDENT {
        q / dist
    } else {
        fallback
    };
    out.normal = normal;
    out.push(ManifoldPoint {
        point_a: normal * ra,
        point_b: q - normal * rb,
        depth,
        id: 0,
    });
}

/// Sphere–sphere: centres at the origin and at `b_in_a.translation`.
pub fn sphere_sphere(ra: f32, rb: f32, b_in_a: &Isometry, margin: f32, out: &mut Manifold) {
    // Coincident centres: every direction is as short a way out (ra + rb).
    point_contact(ra, b_in_a.translation, rb, Vec3::Y, margin, out);
}

/// Sphere–sphere in world space: the same contact as [`sphere_sphere`] in A's frame moved to
/// the world, without forming B's pose in A's frame and moving the result back (the most
/// common pair of a ball pit, where those two transforms were most of the test).
pub fn sphere_sphere_world(
    ra: f32,
    pose_a: &Isometry,
    rb: f32,
    pose_b: &Isometry,
    margin: f32,
    out: &mut Manifold,
) {
    let centre = pose_a.translation;
    point_contact(
        ra,
        pose_b.translation - centre,
        rb,
        pose_a.rotation * Vec3::Y,
        margin,
        out,
    );
    for p in &mut out.points[..out.count] {
        p.point_a += centre;
        p.point_b += centre;
    }
}

/// Sphere–capsule: the closest point of the capsule's segment to the sphere centre.
pub fn sphere_capsule(
    ra: f32,
    half_height: f32,
    rb: f32,
    b_in_a: &Isometry,
    margin: f32,
    out: &mut Manifold,
) {
    let p = b_in_a.transform_point(Vec3::new(0.0, -half_height, 0.0));
    let q = b_in_a.transform_point(Vec3::new(0.0, half_height, 0.0));
    // Centre on the segment: the way out is perpendicular to it (B's local x), depth ra + rb;
    // along the segment (+y, say) the capsule would still hold the sphere.
    point_contact(
        ra,
        closest_point_on_segment(Vec3::ZERO, p, q),
        rb,
        b_in_a.transform_vector(Vec3::X),
        margin,
        out,
    );
}

/// Sphere–box, in the box frame: clamp the centre into the box; if it was already inside,
/// push out through the nearest face.
pub fn sphere_box(ra: f32, half: Vec3, b_in_a: &Isometry, margin: f32, out: &mut Manifold) {
    let c = b_in_a.inverse_transform_point(Vec3::ZERO);
    let q = c.clamp(-half, half);
    if q != c {
        // Outside: closest point q, expressed back in A's frame.
        // A centre a hair outside: the way out is still along q − c.
        let way = b_in_a.transform_vector((q - c).try_normalize().unwrap_or(Vec3::Y));
        point_contact(ra, b_in_a.transform_point(q), 0.0, way, margin, out);
        return;
    }
    // Inside: the face with the smallest distance |h_i| − |c_i|.
    let dist = half - c.abs();
    let axis = if dist.x <= dist.y && dist.x <= dist.z {
        0
    } else if dist.y <= dist.z {
        1
    } else {
        2
    };
    let mut outward = Vec3::ZERO;
    outward[axis] = if c[axis] >= 0.0 { 1.0 } else { -1.0 };
    let mut on_face = c;
    on_face[axis] = outward[axis] * half[axis];
    // The sphere is pushed out along `outward`, so the normal from A to B is −outward.
    let normal = b_in_a.transform_vector(-outward);
    out.normal = normal;
    out.push(ManifoldPoint {
        point_a: normal * ra,
        point_b: b_in_a.transform_point(on_face),
        depth: ra + dist[axis],
        id: 0,
    });
}

/// Sphere–hull, in the hull frame: if the centre is inside every face plane, push out through
/// the face of least penetration; otherwise GJK gives the closest point of the hull.
pub fn sphere_hull(ra: f32, hull: &ConvexHull, b_in_a: &Isometry, margin: f32, out: &mut Manifold) {
    let c = b_in_a.inverse_transform_point(Vec3::ZERO);
    let (face, separation) = hull
        .faces
        .iter()
        .enumerate()
        .map(|(i, f)| (i, f.normal.dot(c) - f.offset))
        .fold(
            (0, f32::MIN),
            |best, cur| if cur.1 > best.1 { cur } else { best },
        );
    if separation > ra + margin {
        return;
    }
    if separation <= 0.0 {
        let n = hull.faces[face].normal;
        let normal = b_in_a.transform_vector(-n);
        out.normal = normal;
        out.push(ManifoldPoint {
            point_a: normal * ra,
            point_b: b_in_a.transform_point(c - n * separation),
            depth: ra - separation,
            id: face as u32,
        });
        return;
    }
    let gjk = gjk_distance(&PointSupport(c), hull, &Isometry::IDENTITY);
    // A centre a hair outside: the way out is through the face it is outside of.
    let way = b_in_a.transform_vector(-hull.faces[face].normal);
    point_contact(
        ra,
        b_in_a.transform_point(gjk.point_b),
        0.0,
        way,
        margin,
        out,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::math::Quat;

    #[test]
    fn sphere_sphere_in_the_world_is_the_test_in_a_frame_moved_to_the_world() {
        // Turned and moved spheres, apart, touching, overlapping and concentric: the world
        // space test gives what the test in A's frame does, moved to the world by A's pose.
        let pose_a = Isometry::new(
            Vec3::new(1.0, -2.0, 0.5),
            Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.7),
        );
        for offset in [
            Vec3::new(0.3, 1.2, -0.4),
            Vec3::new(0.0, 1.75, 0.0),
            Vec3::new(0.0, 1.9, 0.0),
            Vec3::new(-1.0, 0.2, 0.1),
            Vec3::ZERO,
        ] {
            let pose_b = Isometry::new(pose_a.translation + offset, Quat::from_rotation_y(1.1));
            let mut world = Manifold::default();
            sphere_sphere_world(1.0, &pose_a, 0.75, &pose_b, 0.02, &mut world);
            let mut local = Manifold::default();
            sphere_sphere(1.0, 0.75, &pose_a.inv_mul(&pose_b), 0.02, &mut local);
            local.transform(&pose_a);
            assert_eq!(world.count, local.count, "{offset}");
            assert!((world.normal - local.normal).length() < 1e-5, "{offset}");
            for (w, l) in world.points().iter().zip(local.points()) {
                assert!((w.point_a - l.point_a).length() < 1e-5);
                assert!((w.point_b - l.point_b).length() < 1e-5);
                assert!((w.depth - l.depth).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn sphere_sphere_depth_is_radius_sum_minus_distance() {
        let mut m = Manifold::default();
        let b = Isometry::from_translation(Vec3::new(0.0, 0.0, 1.5));
        sphere_sphere(1.0, 0.75, &b, 0.0, &mut m);
        // depth = 1 + 0.75 − 1.5 = 0.25
        assert_eq!(m.count, 1);
        assert!((m.points[0].depth - 0.25).abs() < 1e-6);
        assert!((m.normal - Vec3::Z).length() < 1e-6);
        assert!((m.points[0].point_b - Vec3::new(0.0, 0.0, 0.75)).length() < 1e-6);
        let mut far = Manifold::default();
        sphere_sphere(0.5, 0.5, &b, 0.4, &mut far);
        assert_eq!(far.count, 0);
    }

    #[test]
    fn sphere_inside_box_leaves_through_nearest_face() {
        // Box half 1, turned 90° about y; sphere centre at box-local (0, 0.8, 0): nearest face +y,
        // depth = r + (1 − 0.8) = 0.3 + 0.2.
        let b_in_a = Isometry::new(Vec3::new(0.0, -0.8, 0.0), Quat::from_rotation_y(1.0));
        let mut m = Manifold::default();
        sphere_box(0.3, Vec3::ONE, &b_in_a, 0.0, &mut m);
        assert_eq!(m.count, 1);
        assert!((m.points[0].depth - 0.5).abs() < 1e-5);
        assert!((m.normal + Vec3::Y).length() < 1e-5);
    }

    #[test]
    fn sphere_near_box_corner() {
        // Corner of a unit box (half 0.5) at (0.5, 0.5, 0.5); sphere centre at (1, 1, 1):
        // distance = √3·0.5, depth = r − √3/2·1... with r = 1: 1 − 0.866 = 0.134.
        let b_in_a = Isometry::from_translation(Vec3::splat(-1.0));
        let mut m = Manifold::default();
        sphere_box(1.0, Vec3::splat(0.5), &b_in_a, 0.0, &mut m);
        assert!((m.points[0].depth - (1.0 - 0.75f32.sqrt())).abs() < 1e-5);
        assert!((m.normal + Vec3::ONE.normalize()).length() < 1e-5);
    }

    #[test]
    fn sphere_capsule_side_contact() {
        // Capsule along y at x = 1; sphere r 0.6 at origin, capsule r 0.5: depth 0.1, normal +x.
        let b_in_a = Isometry::from_translation(Vec3::new(1.0, 0.3, 0.0));
        let mut m = Manifold::default();
        sphere_capsule(0.6, 1.0, 0.5, &b_in_a, 0.0, &mut m);
        assert!((m.points[0].depth - 0.1).abs() < 1e-6);
        assert!((m.normal - Vec3::X).length() < 1e-6);
    }
}
