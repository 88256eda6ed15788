use super::test_support::*;
use super::*;
use crate::physics::math::Quat;
use crate::physics::shape::{PointSupport, SegmentSupport, Shape};

fn at(x: f32, y: f32, z: f32) -> Isometry {
    Isometry::from_translation(Vec3::new(x, y, z))
}

/// Checks the invariants of every answer: finite, distance = |point_b − point_a|, capped.
fn check(result: &GjkResult) {
    assert!(result.distance.is_finite() && result.distance >= 0.0);
    assert!(is_finite_vec(result.point_a) && is_finite_vec(result.point_b));
    assert!(result.iterations <= GJK_MAX_ITERATIONS);
    if result.distance > 0.0 {
        assert!(((result.point_b - result.point_a).length() - result.distance).abs() < 1e-6);
    }
}

#[test]
fn segment_subalgorithm_projects_the_origin() {
    // Segment (−1, 1, 0)–(3, 1, 0): closest point to the origin (0, 1, 0), weights 3/4, 1/4.
    let p = |w: Vec3| SupportPoint {
        a: w,
        b: Vec3::ZERO,
        w,
    };
    let s = closest_on_segment(p(Vec3::new(-1.0, 1.0, 0.0)), p(Vec3::new(3.0, 1.0, 0.0)));
    assert!((s.closest_point() - Vec3::Y).length() < 1e-6);
    assert!((s.weights()[0] - 0.75).abs() < 1e-6);
}

#[test]
fn triangle_subalgorithm_finds_face_edge_and_vertex_regions() {
    let p = |x: f32, y: f32, z: f32| {
        let w = Vec3::new(x, y, z);
        SupportPoint {
            a: w,
            b: Vec3::ZERO,
            w,
        }
    };
    // Triangle in the plane z = 2 around the z axis: closest point (0, 0, 2), all three kept.
    let face = closest_on_triangle([p(-1.0, -1.0, 2.0), p(2.0, -1.0, 2.0), p(-1.0, 2.0, 2.0)]);
    assert_eq!(face.len(), 3);
    assert!((face.closest_point() - Vec3::new(0.0, 0.0, 2.0)).length() < 1e-6);
    // Triangle at x ∈ [1, 3] in the plane z = 0: the closest point (1, 0, 0) is on the edge
    // from (1, −1, 0) to (1, 1, 0). Then one whose corner (1, 1, 0) is closest.
    let edge = closest_on_triangle([p(1.0, -1.0, 0.0), p(1.0, 1.0, 0.0), p(3.0, 0.0, 0.0)]);
    assert_eq!(edge.len(), 2);
    assert!((edge.closest_point() - Vec3::X).length() < 1e-6);
    let vertex = closest_on_triangle([p(1.0, 1.0, 0.0), p(2.0, 1.0, 0.0), p(1.0, 2.0, 1.0)]);
    assert_eq!(vertex.len(), 1);
    assert!((vertex.closest_point() - Vec3::new(1.0, 1.0, 0.0)).length() < 1e-6);
}

#[test]
fn tetrahedron_subalgorithm_detects_containment_and_faces() {
    let p = |x: f32, y: f32, z: f32| {
        let w = Vec3::new(x, y, z);
        SupportPoint {
            a: w,
            b: Vec3::ZERO,
            w,
        }
    };
    let inside = closest_on_tetrahedron([
        p(1.0, 1.0, 1.0),
        p(-1.0, -1.0, 1.0),
        p(-1.0, 1.0, -1.0),
        p(1.0, -1.0, -1.0),
    ]);
    assert_eq!(inside.len(), 4);
    assert!(inside.closest_point().length() < 1e-6);
    assert!((inside.weights().iter().sum::<f32>() - 1.0).abs() < 1e-6);
    // Tetrahedron above the plane z = 1 with a face on it around the z axis: closest (0, 0, 1).
    let above = closest_on_tetrahedron([
        p(-1.0, -1.0, 1.0),
        p(2.0, -1.0, 1.0),
        p(-1.0, 2.0, 1.0),
        p(0.0, 0.0, 3.0),
    ]);
    assert_eq!(above.len(), 3);
    assert!((above.closest_point() - Vec3::Z).length() < 1e-6);
    // A flat tetrahedron (all in z = 1) still gives the closest point (0, 0, 1).
    let flat = closest_on_tetrahedron([
        p(-1.0, -1.0, 1.0),
        p(2.0, -1.0, 1.0),
        p(-1.0, 2.0, 1.0),
        p(0.5, 0.5, 1.0),
    ]);
    assert!((flat.closest_point() - Vec3::Z).length() < 1e-6);
}

#[test]
fn sphere_sphere_distance_matches_formula() {
    let cases = [
        (1.0, 0.5, Vec3::new(3.0, 0.0, 0.0)),
        (0.3, 0.7, Vec3::new(1.0, 2.0, -2.0)),
        (2.0, 0.01, Vec3::new(-0.5, 3.0, 0.2)),
    ];
    for (radius_a, radius_b, centre_b) in cases {
        let result = gjk_distance(
            &Shape::sphere(radius_a),
            &Shape::sphere(radius_b),
            &Isometry::from_translation(centre_b),
        );
        check(&result);
        // d = |c_b − c_a| − r_a − r_b
        let expected = centre_b.length() - radius_a - radius_b;
        assert!(
            (result.distance - expected).abs() < 1e-4,
            "{} vs {expected}",
            result.distance
        );
        // The closest points lie on the spheres, on the line of centres.
        assert!((result.point_a.length() - radius_a).abs() < 1e-4);
        assert!(((result.point_b - centre_b).length() - radius_b).abs() < 1e-4);
    }
}

#[test]
fn box_box_separated_along_an_axis() {
    // Half extents 0.5 and (1, 0.25, 0.25), centres 3 apart along x: d = 3 − 0.5 − 1 = 1.5.
    let a = Shape::cuboid(Vec3::splat(0.5));
    let b = Shape::cuboid(Vec3::new(1.0, 0.25, 0.25));
    let result = gjk_distance(&a, &b, &at(3.0, 0.1, -0.1));
    check(&result);
    assert!((result.distance - 1.5).abs() < 1e-5);
    assert!((result.point_a.x - 0.5).abs() < 1e-5 && (result.point_b.x - 2.0).abs() < 1e-5);
}

#[test]
fn box_box_separated_along_a_diagonal() {
    // Unit cubes (half 0.5) offset by (2, 3, 4): the gap per axis is |Δ| − 1 = (1, 2, 3), so
    // the corners are closest and d = √(1² + 2² + 3²) = √14.
    let cube = Shape::cuboid(Vec3::splat(0.5));
    let result = gjk_distance(&cube, &cube, &at(2.0, 3.0, 4.0));
    check(&result);
    assert!((result.distance - 14f32.sqrt()).abs() < 1e-5);
    assert!((result.point_a - Vec3::splat(0.5)).length() < 1e-5);
}

#[test]
fn point_to_box_distance_clamps_into_the_box() {
    // Box half (1, 2, 3), point at (3, −1, 5): outside along x by 2 and z by 2, d = √8.
    let half = Vec3::new(1.0, 2.0, 3.0);
    let result = gjk_distance(
        &Shape::cuboid(half),
        &PointSupport(Vec3::ZERO),
        &at(3.0, -1.0, 5.0),
    );
    check(&result);
    assert!((result.distance - 8f32.sqrt()).abs() < 1e-5);
    assert!((result.point_a - Vec3::new(1.0, -1.0, 3.0)).length() < 1e-5);
    // A point inside the box: distance 0.
    let inside = gjk_distance(
        &Shape::cuboid(half),
        &PointSupport(Vec3::ZERO),
        &at(0.5, 1.0, -2.0),
    );
    assert_eq!(inside.distance, 0.0);
    assert_eq!(inside.termination, GjkTermination::Overlap);
}

#[test]
fn segment_to_box_distance() {
    // Segment from (2, −5, 0.5) to (2, 5, 0.5) passes beside a box of half 1: d = 2 − 1 = 1.
    let segment = SegmentSupport(Vec3::new(0.0, -5.0, 0.0), Vec3::new(0.0, 5.0, 0.0));
    let result = gjk_distance(&Shape::cuboid(Vec3::ONE), &segment, &at(2.0, 0.0, 0.5));
    check(&result);
    assert!((result.distance - 1.0).abs() < 1e-5);
    // Tilted segment (3 − 1.5t, 0, 2t) passing the box edge x = z = 1: the squared distance
    // (2 − 1.5t)² + (2t − 1)² is least where 12.5t − 10 = 0, t = 0.8, at (1.8, 0, 1.6); the
    // box point is (1, 0, 1) and d = √(0.8² + 0.6²) = 1.
    let tilted = SegmentSupport(Vec3::new(3.0, 0.0, 0.0), Vec3::new(1.5, 0.0, 2.0));
    let result = gjk_distance(&Shape::cuboid(Vec3::ONE), &tilted, &Isometry::IDENTITY);
    check(&result);
    assert!((result.distance - 1.0).abs() < 1e-5, "{}", result.distance);
    assert!((result.point_b - Vec3::new(1.8, 0.0, 1.6)).length() < 1e-5);
}

#[test]
fn capsule_capsule_distance_is_segment_distance_minus_radii() {
    use super::super::geometry::closest_points_segment_segment;
    let b_in_a = Isometry::new(Vec3::new(1.5, 0.4, 0.9), Quat::from_rotation_z(1.1));
    let (half_a, radius_a, half_b, radius_b) = (0.8, 0.2, 0.5, 0.3);
    let result = gjk_distance(
        &Shape::capsule(half_a, radius_a),
        &Shape::capsule(half_b, radius_b),
        &b_in_a,
    );
    check(&result);
    // d = |segment distance| − r_a − r_b
    let (c1, c2) = closest_points_segment_segment(
        Vec3::new(0.0, -half_a, 0.0),
        Vec3::new(0.0, half_a, 0.0),
        b_in_a.transform_point(Vec3::new(0.0, -half_b, 0.0)),
        b_in_a.transform_point(Vec3::new(0.0, half_b, 0.0)),
    );
    let expected = (c2 - c1).length() - radius_a - radius_b;
    assert!(
        (result.distance - expected).abs() < 1e-4,
        "{} vs {expected}",
        result.distance
    );
}

#[test]
fn rotated_boxes_match_brute_force() {
    // Unit cube vs a box turned 45° about z and 30° about x, 2.5 along x.
    let (half_a, half_b) = (Vec3::splat(0.5), Vec3::new(0.6, 0.3, 0.4));
    let rotation = Quat::from_rotation_z(std::f32::consts::FRAC_PI_4) * Quat::from_rotation_x(0.5);
    let b_in_a = Isometry::new(Vec3::new(2.5, 0.3, -0.2), rotation);
    let result = gjk_distance(&Shape::cuboid(half_a), &Shape::cuboid(half_b), &b_in_a);
    check(&result);
    let expected = brute_force_box_distance(half_a, half_b, &b_in_a);
    assert!(
        (result.distance - expected).abs() < 1e-5,
        "{} vs {expected}",
        result.distance
    );
}

#[test]
fn random_boxes_match_brute_force_and_separating_axes() {
    let mut rng = Lcg(42);
    let mut separated = 0;
    for _ in 0..500 {
        let half_a = Vec3::new(
            rng.range(0.1, 1.0),
            rng.range(0.1, 1.0),
            rng.range(0.1, 1.0),
        );
        let half_b = Vec3::new(
            rng.range(0.1, 1.0),
            rng.range(0.1, 1.0),
            rng.range(0.1, 1.0),
        );
        let b_in_a = Isometry::new(rng.vec_in(2.5), rng.rotation());
        let result = gjk_distance(&Shape::cuboid(half_a), &Shape::cuboid(half_b), &b_in_a);
        check(&result);
        let (gap, _) = sat_box_gap(half_a, half_b, &b_in_a);
        let exact = brute_force_box_distance(half_a, half_b, &b_in_a);
        let size = half_a.length() + half_b.length();
        if gap > 1e-4 {
            separated += 1;
            // Separated: the distance is exact, and at least the best separating-axis gap.
            assert!(
                (result.distance - exact).abs() < 1e-5 * size,
                "{} vs {exact}",
                result.distance
            );
            assert!(result.distance >= gap - 1e-5 * size);
            // The witness points lie on their boxes.
            let local_b = b_in_a.inverse_transform_point(result.point_b);
            assert!(point_box_distance(result.point_a, half_a) < 1e-5 * size);
            assert!(point_box_distance(local_b, half_b) < 1e-5 * size);
        } else if gap < -1e-4 {
            // Overlapping on every axis: distance 0 and a common point.
            assert_eq!(result.distance, 0.0);
            assert!(point_box_distance(result.point_a, half_a) < 1e-5 * size);
            let local = b_in_a.inverse_transform_point(result.point_a);
            assert!(point_box_distance(local, half_b) < 1e-5 * size);
        }
        assert_eq!(
            intersects(&Shape::cuboid(half_a), &Shape::cuboid(half_b), &b_in_a),
            result.distance == 0.0
        );
    }
    assert!(
        separated > 100,
        "the sample should mix separated and overlapping pairs"
    );
}

#[test]
fn point_cloud_polytope_matches_box_and_analytic_distances() {
    // A box given as 8 points behaves like the cuboid: same distance to a sphere core point.
    let half = Vec3::new(0.7, 0.2, 0.4);
    let cloud = PointCloud(box_corners(half, &Isometry::IDENTITY));
    let b_in_a = at(1.5, 1.0, -0.3);
    let from_cloud = gjk_distance(&cloud, &PointSupport(Vec3::ZERO), &b_in_a);
    let from_box = gjk_distance(&Shape::cuboid(half), &PointSupport(Vec3::ZERO), &b_in_a);
    assert!((from_cloud.distance - from_box.distance).abs() < 1e-6);
    // A flat triangle (zero volume) in z = 0 vs a point above its interior at height 2: d = 2.
    let triangle = PointCloud(vec![
        Vec3::ZERO,
        Vec3::new(2.0, 0.0, 0.0),
        Vec3::new(0.0, 2.0, 0.0),
    ]);
    let result = gjk_distance(
        &triangle,
        &PointSupport(Vec3::new(0.5, 0.5, 2.0)),
        &Isometry::IDENTITY,
    );
    check(&result);
    assert!((result.distance - 2.0).abs() < 1e-6);
    // Regular tetrahedron with vertices (1,1,1), (1,−1,−1), (−1,1,−1), (−1,−1,1); the face
    // opposite (1,1,1) has plane x + y + z = −1, at distance 1/√3 from the centre, and its
    // centroid is on the line through −(1,1,1). A point at −s·(1,1,1)/√3 is d = s − 1/√3 away.
    let tetra = PointCloud(vec![
        Vec3::new(1.0, 1.0, 1.0),
        Vec3::new(1.0, -1.0, -1.0),
        Vec3::new(-1.0, 1.0, -1.0),
        Vec3::new(-1.0, -1.0, 1.0),
    ]);
    let s = 2.0;
    let point = -Vec3::ONE.normalize() * s;
    let result = gjk_distance(&tetra, &PointSupport(point), &Isometry::IDENTITY);
    check(&result);
    assert!((result.distance - (s - 1.0 / 3f32.sqrt())).abs() < 1e-5);
}

#[test]
fn overlapping_shapes_have_zero_distance_and_a_common_point() {
    let result = gjk_distance(
        &Shape::sphere(1.0),
        &Shape::cuboid(Vec3::splat(0.5)),
        &at(1.2, 0.1, 0.0),
    );
    assert_eq!(result.distance, 0.0);
    assert_eq!(result.termination, GjkTermination::Overlap);
    assert!((result.point_a - result.point_b).length() < 1e-5);
    // The common point is in the sphere and in the box (centre 1.2, 0.1, 0, half 0.5).
    assert!(result.point_a.length() <= 1.0 + 1e-5);
    assert!(point_box_distance(result.point_a - Vec3::new(1.2, 0.1, 0.0), Vec3::splat(0.5)) < 1e-5);
}

#[test]
fn touching_boxes_count_as_intersecting() {
    // Unit cubes 1 apart along x share the face x = 0.5: distance 0.
    let cube = Shape::cuboid(Vec3::splat(0.5));
    let result = gjk_distance(&cube, &cube, &at(1.0, 0.3, 0.2));
    check(&result);
    assert!(result.distance < 1e-5);
    assert!(intersects(&cube, &cube, &at(1.0, 0.3, 0.2)));
    assert!(!intersects(&cube, &cube, &at(1.001, 0.3, 0.2)));
}

#[test]
fn curved_shapes_converge_within_the_iteration_cap() {
    let mut rng = Lcg(3);
    for _ in 0..200 {
        let (radius_a, radius_b) = (rng.range(0.05, 2.0), rng.range(0.05, 2.0));
        let centre = rng.vec_in(5.0);
        let result = gjk_distance(
            &Shape::sphere(radius_a),
            &Shape::sphere(radius_b),
            &Isometry::from_translation(centre),
        );
        check(&result);
        // d = max(|c| − r_a − r_b, 0)
        let expected = (centre.length() - radius_a - radius_b).max(0.0);
        let size = radius_a + radius_b;
        assert!(
            (result.distance - expected).abs() < 1e-4 * size.max(1.0),
            "{} vs {expected}",
            result.distance
        );
        assert_ne!(result.termination, GjkTermination::IterationLimit);
    }
}

#[test]
fn degenerate_inputs_never_panic_or_produce_nan() {
    let shapes = degenerate_shapes();
    let poses = [
        Isometry::IDENTITY,
        at(1e-7, 0.0, 0.0),
        at(1.0, 0.0, 0.0),
        at(0.0, 2.0, 0.0),
        at(1e4, -1e4, 1e4),
        Isometry::new(Vec3::ZERO, Quat::from_rotation_y(0.3)),
        Isometry::new(
            Vec3::new(0.5, 0.5, 0.5),
            Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        ),
    ];
    for a in &shapes {
        for b in &shapes {
            for pose in &poses {
                let result = gjk_distance(a, b, pose);
                check(&result);
                let _ = intersects(a, b, pose);
            }
        }
    }
    // Two points at the same place, and two identical flat triangles.
    let result = gjk_distance(
        &PointSupport(Vec3::ONE),
        &PointSupport(Vec3::ONE),
        &Isometry::IDENTITY,
    );
    assert_eq!(result.distance, 0.0);
    let triangle = PointCloud(vec![Vec3::ZERO, Vec3::X, Vec3::Y]);
    let result = gjk_distance(&triangle, &triangle, &Isometry::IDENTITY);
    assert_eq!(result.distance, 0.0);
}
