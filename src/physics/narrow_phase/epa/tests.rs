use super::super::gjk::test_support::*;
use super::*;
use crate::physics::math::Quat;
use crate::physics::shape::{PointSupport, SegmentSupport, Shape, SupportMap};

fn at(x: f32, y: f32, z: f32) -> Isometry {
    Isometry::from_translation(Vec3::new(x, y, z))
}

/// Checks what every answer must satisfy: finite, unit normal, non-negative depth, and
/// `point_a − point_b = depth · normal`.
fn check(p: &Penetration) {
    assert!(is_finite_vec(p.normal) && is_finite_vec(p.point_a) && is_finite_vec(p.point_b));
    assert!(p.depth.is_finite() && p.depth >= 0.0);
    assert!(
        (p.normal.length() - 1.0).abs() < 1e-4,
        "normal {}",
        p.normal
    );
}

#[test]
fn unit_boxes_offset_along_x() {
    let cube = Shape::cuboid(Vec3::splat(0.5));
    for d in [0.1f32, 0.5, 0.9, 0.99, -0.3, -0.75] {
        let p = penetration(&cube, &cube, &at(d, 0.0, 0.0)).expect("overlapping");
        check(&p);
        // depth = 1 − |d| (overlap of [−0.5, 0.5] and [d − 0.5, d + 0.5]); normal = sign(d)·x.
        assert!(
            (p.depth - (1.0 - d.abs())).abs() < 1e-5,
            "d = {d}: depth {}",
            p.depth
        );
        assert!(
            (p.normal - Vec3::X * d.signum()).length() < 1e-5,
            "d = {d}: {}",
            p.normal
        );
        // Witnesses: A's deepest point is on B's side, at x = 0.5·sign(d), and B's at x = d − 0.5·sign(d).
        assert!((p.point_a.x - 0.5 * d.signum()).abs() < 1e-5);
        assert!((p.point_b.x - (d - 0.5 * d.signum())).abs() < 1e-5);
        assert!((p.point_a - p.point_b - p.normal * p.depth).length() < 1e-5);
    }
}

#[test]
fn sphere_sphere_depth_matches_formula() {
    let cases = [
        (1.0, 0.5, Vec3::new(1.0, 0.0, 0.0)),
        (0.7, 0.7, Vec3::new(0.3, -0.4, 0.5)),
        (2.0, 0.25, Vec3::new(-1.0, 0.5, 1.0)),
    ];
    for (radius_a, radius_b, centre) in cases {
        let p = penetration(
            &Shape::sphere(radius_a),
            &Shape::sphere(radius_b),
            &Isometry::from_translation(centre),
        )
        .expect("overlapping");
        check(&p);
        // depth = r_a + r_b − |d| along d / |d| (curved: tolerance 1e-3).
        let expected = radius_a + radius_b - centre.length();
        assert!(
            (p.depth - expected).abs() < 1e-3,
            "{} vs {expected}",
            p.depth
        );
        assert!(
            (p.normal - centre.normalize()).length() < 2e-2,
            "{}",
            p.normal
        );
        // The deepest points lie on the spheres.
        assert!((p.point_a.length() - radius_a).abs() < 1e-3);
        assert!(((p.point_b - centre).length() - radius_b).abs() < 1e-3);
    }
}

#[test]
fn separated_shapes_have_no_penetration() {
    let cube = Shape::cuboid(Vec3::splat(0.5));
    assert_eq!(penetration(&cube, &cube, &at(1.01, 0.0, 0.0)), None);
    assert_eq!(
        penetration(&Shape::sphere(1.0), &Shape::sphere(1.0), &at(0.0, 2.1, 0.0)),
        None
    );
}

#[test]
fn touching_boxes_have_zero_depth() {
    // Faces x = 0.5 of both cubes coincide: depth 0, normal +x.
    let cube = Shape::cuboid(Vec3::splat(0.5));
    let p = penetration(&cube, &cube, &at(1.0, 0.2, -0.1)).expect("touching counts as contact");
    check(&p);
    assert!(p.depth < 1e-5);
    assert!((p.normal - Vec3::X).length() < 1e-4, "{}", p.normal);
}

#[test]
fn identical_centred_shapes_pick_a_valid_axis() {
    // Concentric spheres: any direction separates after r_a + r_b = 2.
    let p = penetration(
        &Shape::sphere(1.0),
        &Shape::sphere(1.0),
        &Isometry::IDENTITY,
    )
    .expect("overlap");
    check(&p);
    assert!((p.depth - 2.0).abs() < 1e-3, "{}", p.depth);
    // Concentric unit cubes: depth 1 along one of the face normals.
    let cube = Shape::cuboid(Vec3::splat(0.5));
    let p = penetration(&cube, &cube, &Isometry::IDENTITY).expect("overlap");
    check(&p);
    assert!((p.depth - 1.0).abs() < 1e-5, "{}", p.depth);
    assert!(p.normal.abs().max_element() > 1.0 - 1e-5, "{}", p.normal);
}

#[test]
fn point_inside_box_leaves_by_the_nearest_face() {
    // Box half (1, 2, 3), point at (0.8, 0.5, −1): nearest face x = 1 at 0.2, normal from the
    // box to the point +x.
    let p = penetration(
        &Shape::cuboid(Vec3::new(1.0, 2.0, 3.0)),
        &PointSupport(Vec3::ZERO),
        &at(0.8, 0.5, -1.0),
    )
    .expect("inside");
    check(&p);
    assert!((p.depth - 0.2).abs() < 1e-5);
    assert!((p.normal - Vec3::X).length() < 1e-5);
}

#[test]
fn capsules_depth_is_radii_minus_segment_distance() {
    use super::super::geometry::closest_points_segment_segment;
    // Two capsules (half height 1, radius 0.5) crossing at right angles 0.6 apart along z:
    // segment distance 0.6, depth = 0.5 + 0.5 − 0.6 = 0.4 along +z.
    let capsule = Shape::capsule(1.0, 0.5);
    let b_in_a = Isometry::new(
        Vec3::new(0.0, 0.0, 0.6),
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
    );
    let p = penetration(&capsule, &capsule, &b_in_a).expect("overlap");
    check(&p);
    let (c1, c2) = closest_points_segment_segment(
        Vec3::new(0.0, -1.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        b_in_a.transform_point(Vec3::new(0.0, -1.0, 0.0)),
        b_in_a.transform_point(Vec3::new(0.0, 1.0, 0.0)),
    );
    let expected = 1.0 - (c2 - c1).length();
    assert!(
        (p.depth - expected).abs() < 1e-3,
        "{} vs {expected}",
        p.depth
    );
    assert!((p.normal - Vec3::Z).length() < 2e-2, "{}", p.normal);
}

#[test]
fn random_overlapping_boxes_match_separating_axes() {
    let mut rng = Lcg(11);
    let mut scratch = EpaScratch::new();
    let mut overlapping = 0;
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
        let b_in_a = Isometry::new(rng.vec_in(1.2), rng.rotation());
        let (gap, _) = sat_box_gap(half_a, half_b, &b_in_a);
        let result = penetration_with_scratch(
            &Shape::cuboid(half_a),
            &Shape::cuboid(half_b),
            &b_in_a,
            &mut scratch,
        );
        let size = half_a.length() + half_b.length();
        if gap < -1e-4 {
            overlapping += 1;
            let p = result.expect("SAT says they overlap");
            check(&p);
            // For boxes the 15 SAT axes are all the face normals of A − B, so the smallest
            // overlap among them is the exact depth: depth = −gap.
            assert!(
                (p.depth + gap).abs() < 1e-4 * size,
                "{} vs {}",
                p.depth,
                -gap
            );
            // Moving B by depth·normal leaves them touching: the gap along the normal is 0.
            let moved = Isometry::new(b_in_a.translation + p.normal * p.depth, b_in_a.rotation);
            assert!(sat_box_gap(half_a, half_b, &moved).0.abs() < 1e-3 * size);
            // The deepest points are on their boxes.
            assert!(point_box_distance(p.point_a, half_a) < 1e-4 * size);
            assert!(
                point_box_distance(b_in_a.inverse_transform_point(p.point_b), half_b) < 1e-4 * size
            );
        } else if gap > 1e-4 {
            assert_eq!(result, None);
        }
    }
    assert!(overlapping > 200, "the sample should be mostly overlapping");
}

#[test]
fn scratch_reuse_gives_identical_answers() {
    let mut scratch = EpaScratch::new();
    let a = Shape::cuboid(Vec3::new(0.5, 0.3, 0.7));
    let b = Shape::sphere(0.6);
    let poses = [
        at(0.5, 0.2, 0.1),
        at(-0.2, 0.4, 0.9),
        Isometry::new(Vec3::new(0.3, 0.0, 0.0), Quat::from_rotation_y(0.4)),
    ];
    for pose in &poses {
        let fresh = penetration(&a, &b, pose);
        let reused = penetration_with_scratch(&a, &b, pose, &mut scratch);
        assert_eq!(fresh, reused);
    }
}

#[test]
fn degenerate_inputs_never_panic_or_produce_nan() {
    let shapes = degenerate_shapes();
    let poses = [
        Isometry::IDENTITY,
        at(1e-7, 0.0, 0.0),
        at(0.5, 0.0, 0.0),
        at(1.0, 0.0, 0.0),
        at(0.0, 1.5, 0.0),
        Isometry::new(Vec3::ZERO, Quat::from_rotation_y(0.3)),
        Isometry::new(
            Vec3::new(0.5, 0.5, 0.5),
            Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        ),
    ];
    let mut scratch = EpaScratch::new();
    for a in &shapes {
        for b in &shapes {
            for pose in &poses {
                if let Some(p) = penetration_with_scratch(a, b, pose, &mut scratch) {
                    check(&p);
                }
            }
        }
    }
    // Coincident points, collinear segments and coplanar triangles: flat differences.
    let point = PointSupport(Vec3::new(0.1, 0.2, 0.3));
    let p = penetration(&point, &point, &Isometry::IDENTITY).expect("coincident");
    check(&p);
    assert_eq!(p.depth, 0.0);
    let segment = SegmentSupport(Vec3::ZERO, Vec3::X);
    let p = penetration(&segment, &segment, &at(0.5, 0.0, 0.0)).expect("collinear overlap");
    check(&p);
    assert_eq!(p.depth, 0.0);
    let triangle = PointCloud(vec![Vec3::ZERO, Vec3::X, Vec3::Y]);
    let p = penetration(&triangle, &triangle, &at(0.1, 0.1, 0.0)).expect("coplanar overlap");
    check(&p);
    assert!(p.depth < 1e-5);
    assert!(p.normal.z.abs() > 1.0 - 1e-5, "{}", p.normal);
}

#[test]
fn random_sphere_and_box_pairs_stay_within_bounds() {
    let mut rng = Lcg(99);
    let mut scratch = EpaScratch::new();
    for _ in 0..300 {
        let radius = rng.range(0.1, 1.0);
        let half = Vec3::new(
            rng.range(0.1, 1.0),
            rng.range(0.1, 1.0),
            rng.range(0.1, 1.0),
        );
        let pose = Isometry::new(rng.vec_in(1.0), rng.rotation());
        let Some(p) = penetration_with_scratch(
            &Shape::cuboid(half),
            &Shape::sphere(radius),
            &pose,
            &mut scratch,
        ) else {
            continue;
        };
        check(&p);
        // Sphere centre c outside the box: depth = r − |c − clamp(c)|; inside: r + distance to
        // the nearest face.
        let c = pose.translation;
        let outside = point_box_distance(c, half);
        let expected = if outside > 0.0 {
            radius - outside
        } else {
            radius + (half - c.abs()).min_element()
        };
        assert!(
            (p.depth - expected).abs() < 1e-3 * (1.0 + radius),
            "{} vs {expected}",
            p.depth
        );
    }
}

/// A random convex shape of random size, often degenerate (zero radius, flat box, point,
/// segment, flat point cloud).
fn random_shape(rng: &mut Lcg) -> Box<dyn SupportMap> {
    let scale = [1e-4f32, 1e-2, 1.0, 100.0][(rng.next_f32() * 4.0) as usize];
    let maybe_zero = |rng: &mut Lcg| {
        if rng.next_f32() < 0.3 {
            0.0
        } else {
            rng.range(0.0, 1.0)
        }
    };
    match (rng.next_f32() * 6.0) as usize {
        0 => Box::new(Shape::sphere(maybe_zero(rng) * scale)),
        1 => Box::new(Shape::cuboid(
            Vec3::new(rng.range(0.0, 1.0), rng.range(0.0, 1.0), maybe_zero(rng)) * scale,
        )),
        2 => Box::new(Shape::capsule(
            rng.range(0.0, 1.0) * scale,
            maybe_zero(rng) * scale,
        )),
        3 => Box::new(PointSupport(rng.vec_in(scale))),
        4 => Box::new(SegmentSupport(rng.vec_in(scale), rng.vec_in(scale))),
        _ => {
            let count = 1 + (rng.next_f32() * 6.0) as usize;
            let flat = rng.next_f32() < 0.5;
            let points = (0..count).map(|_| {
                rng.vec_in(scale)
                    * if flat {
                        Vec3::new(1.0, 1.0, 0.0)
                    } else {
                        Vec3::ONE
                    }
            });
            Box::new(PointCloud(points.collect()))
        }
    }
}

#[test]
fn random_pairs_give_finite_separating_answers() {
    let mut rng = Lcg(2024);
    let mut scratch = EpaScratch::new();
    for _ in 0..3000 {
        let (a, b) = (random_shape(&mut rng), random_shape(&mut rng));
        let offset = [0.0, 1e-3, 1.0, 100.0][(rng.next_f32() * 4.0) as usize];
        let pose = Isometry::new(rng.vec_in(offset), rng.rotation());
        let gjk = gjk_distance(a.as_ref(), b.as_ref(), &pose);
        assert!(
            gjk.distance.is_finite() && is_finite_vec(gjk.point_a) && is_finite_vec(gjk.point_b)
        );
        let Some(p) = penetration_after_gjk(a.as_ref(), b.as_ref(), &pose, &gjk, &mut scratch)
        else {
            continue;
        };
        check(&p);
        // Moving B by the answer, plus 1e-3 of the difference's size (or 1 µm when it is a
        // single point), must separate the pair.
        let md = MinkowskiDifference::new(a.as_ref(), b.as_ref(), &pose);
        let size = [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z]
            .map(|d| md.support(d).w.length())
            .into_iter()
            .fold(0.0, f32::max);
        let moved = Isometry::new(
            pose.translation + p.normal * (p.depth + (1e-3 * size).max(1e-6)),
            pose.rotation,
        );
        assert!(
            gjk_distance(a.as_ref(), b.as_ref(), &moved).distance > 0.0,
            "{p:?} does not separate"
        );
    }
}
