//! Unit tests of hull building, merging, queries, mass properties and validation.

use super::merge::{assemble, merged_hull};
use super::quickhull::{quickhull, Cloud};
use super::validate::VALIDATE_SLACK;
use super::*;
use crate::physics::math::{Mat3, Quat};

/// A tiny deterministic generator (Knuth's MMIX LCG), so tests need no dependency.
struct Lcg(u64);

impl Lcg {
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in the cube [-1, 1)³.
    fn in_cube(&mut self) -> Vec3 {
        Vec3::new(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        )
    }

    /// Uniform on the unit sphere (rejection from the cube, then projection).
    fn on_sphere(&mut self) -> Vec3 {
        loop {
            let p = self.in_cube();
            let len = p.length();
            if len > 0.1 && len <= 1.0 {
                return p / len;
            }
        }
    }

    /// A random rotation.
    fn rotation(&mut self) -> Quat {
        let axis = self.on_sphere();
        Quat::from_axis_angle(axis, self.range(0.0, std::f32::consts::TAU))
    }
}

/// `|a − b| <= tol · max(|b|, 1)`.
fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// Number of corners of each face, sorted.
fn face_sizes(hull: &ConvexHull) -> Vec<usize> {
    let mut sizes: Vec<usize> = (0..hull.faces.len())
        .map(|f| hull.face_edges(f).count())
        .collect();
    sizes.sort_unstable();
    sizes
}

/// Builds the hull and checks it against its input (see `check_hull`).
fn check_against_input(points: &[Vec3], rng: &mut Lcg, support_tol: f32) -> ConvexHull {
    let hull = ConvexHull::new(points).expect("cloud has volume");
    check_hull(points, &hull, rng, support_tol);
    hull
}

/// Validates the hull and checks it against its input: every point on or behind every face
/// plane (within the validation slack), every vertex an input point, and the support in 50
/// random directions equal to the brute-force maximum over the input within `support_tol`.
fn check_hull(points: &[Vec3], hull: &ConvexHull, rng: &mut Lcg, support_tol: f32) {
    hull.validate().unwrap();
    let tol = VALIDATE_SLACK * hull.tolerance();
    for p in points {
        for face in &hull.faces {
            let outside = face.normal.dot(*p) - face.offset;
            assert!(
                outside <= tol,
                "point {p} is {outside} outside a face (tol {tol})"
            );
        }
    }
    for v in &hull.vertices {
        assert!(points.contains(v), "vertex {v} is not an input point");
    }
    for _ in 0..50 {
        let dir = rng.on_sphere();
        let best = points
            .iter()
            .map(|p| dir.dot(*p))
            .fold(f32::NEG_INFINITY, f32::max);
        let got = dir.dot(hull.support(dir));
        assert!(
            (best - got).abs() <= support_tol,
            "support {got} vs brute force {best}"
        );
    }
}

/// The 8 corners of a box with the given half extents.
fn box_corners(h: Vec3) -> Vec<Vec3> {
    ConvexHull::cuboid(h).vertices
}

// --- Topology of the primitives -----------------------------------------------------------

#[test]
fn cuboid_is_eight_corners_and_six_quads() {
    let hull = ConvexHull::cuboid(Vec3::new(1.0, 2.0, 3.0));
    hull.validate().unwrap();
    // Euler: 8 − 12 + 6 = 2; 12 edges = 24 half-edges.
    assert_eq!(
        (hull.vertices.len(), hull.faces.len(), hull.edges.len()),
        (8, 6, 24)
    );
    assert_eq!(face_sizes(&hull), vec![4; 6]);
    // Each face normal is an axis; its offset is the half extent along it.
    for face in &hull.faces {
        let axis = (0..3).find(|&k| face.normal[k] != 0.0).unwrap();
        assert_eq!(face.normal.abs()[axis], 1.0);
        assert_eq!(face.offset, [1.0, 2.0, 3.0][axis]);
    }
}

#[test]
fn square_pyramid_is_a_quad_and_four_triangles() {
    let hull = ConvexHull::square_pyramid(1.0, 2.0);
    hull.validate().unwrap();
    // 5 − 8 + 5 = 2.
    assert_eq!(
        (hull.vertices.len(), hull.faces.len(), hull.edges.len()),
        (5, 5, 16)
    );
    assert_eq!(face_sizes(&hull), vec![3, 3, 3, 3, 4]);
    let base = hull
        .faces
        .iter()
        .find(|f| f.normal == -Vec3::Y)
        .expect("base faces down");
    assert_eq!(base.offset, 0.0);
    assert_eq!(hull.support(Vec3::Y), Vec3::new(0.0, 2.0, 0.0));
}

#[test]
fn triangular_prism_is_two_triangles_and_three_quads() {
    let hull = ConvexHull::triangular_prism(1.0, 1.5, 0.5);
    hull.validate().unwrap();
    // 6 − 9 + 5 = 2.
    assert_eq!(
        (hull.vertices.len(), hull.faces.len(), hull.edges.len()),
        (6, 5, 18)
    );
    assert_eq!(face_sizes(&hull), vec![3, 3, 4, 4, 4]);
    let aabb = hull.local_aabb();
    assert_eq!(aabb.min, Vec3::new(-1.0, 0.0, -0.5));
    assert_eq!(aabb.max, Vec3::new(1.0, 1.5, 0.5));
}

#[test]
fn faces_wind_counter_clockwise_around_outward_normals() {
    let hull = ConvexHull::triangular_prism(1.0, 2.0, 3.0);
    for (f, face) in hull.faces.iter().enumerate() {
        let v: Vec<Vec3> = hull
            .face_edges(f)
            .map(|e| hull.vertices[hull.edges[e].origin as usize])
            .collect();
        // (v1 − v0) × (v2 − v0) points along the normal.
        let n = (v[1] - v[0]).cross(v[2] - v[0]).normalize();
        assert!(n.dot(face.normal) > 0.999);
        // Outward: the centroid (0, 2/3, 0) of the prism is behind every face.
        assert!(face.normal.dot(Vec3::new(0.0, 2.0 / 3.0, 0.0)) < face.offset);
    }
}

#[test]
#[should_panic(expected = "ConvexHull::cuboid needs positive, finite sizes")]
fn cuboid_with_zero_size_panics_with_a_message() {
    ConvexHull::cuboid(Vec3::new(1.0, 0.0, 1.0));
}

#[test]
fn validate_catches_broken_meshes() {
    let cube = ConvexHull::cuboid(Vec3::ONE);
    let mut broken = Vec::new();
    let mut twin = cube.clone();
    twin.edges[0].twin = 2;
    broken.push(("twin", twin));
    let mut next = cube.clone();
    next.edges[0].next = next.edges[next.edges[0].next as usize].next;
    broken.push(("next", next));
    let mut normal = cube.clone();
    normal.faces[0].normal = -normal.faces[0].normal;
    normal.faces[0].offset = -normal.faces[0].offset;
    broken.push(("normal", normal));
    let mut dent = cube.clone();
    dent.vertices[0] *= 0.9; // pushed inside: its three faces are no longer planar
    broken.push(("dent", dent));
    let mut missing = cube.clone();
    missing.faces.pop();
    broken.push(("missing face", missing));
    let mut range = cube.clone();
    range.edges[5].origin = 99;
    broken.push(("range", range));
    for (what, hull) in broken {
        assert!(hull.validate().is_err(), "{what} not caught");
    }
}

// --- Merging and cleaning -----------------------------------------------------------------

#[test]
fn box_with_points_on_faces_edges_and_inside_keeps_only_corners() {
    let mut rng = Lcg(7);
    let h = Vec3::new(1.0, 0.5, 2.0);
    let mut points = box_corners(h);
    for _ in 0..300 {
        let p = rng.in_cube() * h;
        let axis = (rng.unit() * 3.0) as usize % 3;
        let mut on_face = p;
        on_face[axis] = h[axis].copysign(p[axis]);
        let mut on_edge = on_face;
        on_edge[(axis + 1) % 3] = h[(axis + 1) % 3].copysign(p[(axis + 1) % 3]);
        points.extend([p, on_face, on_edge]);
    }
    points.extend(box_corners(h)); // duplicates
    let hull = check_against_input(&points, &mut rng, 1e-6);
    assert_eq!(
        (hull.vertices.len(), hull.faces.len(), hull.edges.len()),
        (8, 6, 24)
    );
}

#[test]
fn rotated_box_cloud_still_has_six_quads() {
    // f32 rounding after a rotation leaves the face points off their planes by ~1e-7: the
    // tolerance must absorb that.
    let mut rng = Lcg(11);
    for _ in 0..20 {
        let h = Vec3::new(
            rng.range(0.2, 2.0),
            rng.range(0.2, 2.0),
            rng.range(0.2, 2.0),
        );
        let (q, t) = (rng.rotation(), rng.in_cube() * 5.0);
        let mut local = box_corners(h);
        for _ in 0..100 {
            let mut p = rng.in_cube() * h;
            let axis = (rng.unit() * 3.0) as usize % 3;
            p[axis] = h[axis].copysign(p[axis]);
            local.push(p);
        }
        let points: Vec<Vec3> = local.iter().map(|p| q * *p + t).collect();
        let hull = check_against_input(&points, &mut rng, 1e-4);
        assert_eq!(
            (hull.vertices.len(), hull.faces.len(), hull.edges.len()),
            (8, 6, 24)
        );
    }
}

#[test]
fn cylinder_caps_become_single_polygons() {
    // An n-gon prism: n + 2 faces (n quads, two n-gons), 2n vertices, 3n edges.
    let n = 48;
    let mut points = Vec::new();
    for i in 0..n {
        let angle = i as f32 / n as f32 * std::f32::consts::TAU;
        let (s, c) = angle.sin_cos();
        points.push(Vec3::new(c, -0.5, s));
        points.push(Vec3::new(c, 0.5, s));
        points.push(Vec3::new(0.5 * c, 0.5, 0.5 * s)); // inside the top cap
    }
    // Also turned and moved, where f32 rounding leaves the caps only nearly flat.
    let (q, t) = (
        Quat::from_rotation_arc(Vec3::Y, Vec3::new(1.0, 2.0, 3.0).normalize()),
        Vec3::splat(3.0),
    );
    let moved: Vec<Vec3> = points.iter().map(|p| q * *p + t).collect();
    for cloud in [points, moved] {
        let hull = ConvexHull::new(&cloud).unwrap();
        hull.validate().unwrap();
        assert_eq!((hull.vertices.len(), hull.faces.len()), (2 * n, n + 2));
        assert_eq!(hull.edges.len(), 6 * n);
        assert_eq!(face_sizes(&hull)[n + 1], n);
    }
}

#[test]
fn points_in_the_middle_of_edges_are_removed() {
    // A tetrahedron with extra points along its edges and on its faces: 4 corners remain.
    let corners = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
    let mut points = corners.to_vec();
    for (i, a) in corners.iter().enumerate() {
        for b in &corners[i + 1..] {
            points.extend([0.25, 0.5, 0.75].map(|t| a.lerp(*b, t)));
        }
    }
    points.push(Vec3::new(1.0, 1.0, 1.0) / 3.0); // centre of the slanted face
    let hull = ConvexHull::new(&points).unwrap();
    hull.validate().unwrap();
    assert_eq!(
        (hull.vertices.len(), hull.faces.len(), hull.edges.len()),
        (4, 4, 12)
    );
}

#[test]
fn nearly_coplanar_corners_merge_into_quads() {
    // A cube whose corners are nudged by 1e-7 (under the 1e-6 relative tolerance).
    let mut rng = Lcg(3);
    let points: Vec<Vec3> = box_corners(Vec3::ONE)
        .iter()
        .map(|p| *p + rng.in_cube() * 1e-7)
        .collect();
    let hull = ConvexHull::new(&points).unwrap();
    hull.validate().unwrap();
    assert_eq!(face_sizes(&hull), vec![4; 6]);
}

#[test]
fn merge_keeps_faces_that_really_bend() {
    // A roof: a box whose top is raised 1 mm in the middle (0.05% of its size) is not flat.
    let mut points = box_corners(Vec3::ONE);
    points.extend([Vec3::new(0.0, 1.001, -1.0), Vec3::new(0.0, 1.001, 1.0)]);
    let hull = ConvexHull::new(&points).unwrap();
    hull.validate().unwrap();
    // Box (6 faces) with the top split into two slopes: 7 faces, 10 vertices.
    assert_eq!((hull.vertices.len(), hull.faces.len()), (10, 7));
}

// --- Errors -------------------------------------------------------------------------------

#[test]
fn degenerate_clouds_are_rejected() {
    let coplanar = [
        Vec3::ZERO,
        Vec3::X,
        Vec3::Y,
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::splat(0.5).with_z(0.0),
    ];
    let collinear = [Vec3::ZERO, Vec3::X, 2.0 * Vec3::X, 3.0 * Vec3::X];
    let coincident = [Vec3::ONE; 6];
    let thin = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(0.3, 0.3, 1e-6)];
    for points in [
        &coplanar[..],
        &collinear,
        &coincident,
        &thin,
        &[Vec3::ZERO, Vec3::X, Vec3::Y],
    ] {
        assert_eq!(ConvexHull::new(points), Err(HullError::Degenerate));
    }
    assert_eq!(ConvexHull::new(&[]), Err(HullError::Degenerate));
}

#[test]
fn non_finite_and_too_many_points_are_rejected() {
    let mut points = box_corners(Vec3::ONE);
    points[3].y = f32::NAN;
    assert_eq!(ConvexHull::new(&points), Err(HullError::NonFinite));
    points[3].y = f32::INFINITY;
    assert_eq!(ConvexHull::new(&points), Err(HullError::NonFinite));
    let many = vec![Vec3::ONE; MAX_HULL_POINTS + 1];
    assert_eq!(ConvexHull::new(&many), Err(HullError::TooManyPoints(1025)));
}

#[test]
fn errors_explain_themselves() {
    let degenerate = HullError::Degenerate.to_string();
    assert!(degenerate
        .starts_with("a convex hull needs at least 4 points that are not all on one plane"));
    assert!(HullError::NonFinite.to_string().contains("NaN or infinite"));
    assert!(HullError::TooManyPoints(2000)
        .to_string()
        .contains("at most 1024 points but got 2000"));
}

// --- Queries ------------------------------------------------------------------------------

#[test]
fn support_of_a_box_is_the_corner_in_that_octant() {
    let hull = ConvexHull::cuboid(Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(
        hull.support(Vec3::new(1.0, -1.0, 1.0)),
        Vec3::new(1.0, -2.0, 3.0)
    );
    assert_eq!(
        hull.support(Vec3::new(-0.1, 5.0, -3.0)),
        Vec3::new(-1.0, 2.0, -3.0)
    );
    // Zero (or NaN) direction: any vertex, but a vertex.
    assert!(hull.vertices.contains(&hull.support(Vec3::ZERO)));
    assert!(hull.vertices.contains(&hull.support(Vec3::NAN)));
}

#[test]
fn hill_climbing_agrees_with_brute_force() {
    let mut rng = Lcg(5);
    let points: Vec<Vec3> = (0..500)
        .map(|_| rng.on_sphere() * rng.range(0.9, 1.0))
        .collect();
    let hull = ConvexHull::new(&points).unwrap();
    assert!(hull.vertices.len() > BRUTE_FORCE_SUPPORT_VERTICES);
    for _ in 0..2000 {
        let dir = rng.in_cube();
        let climbed = dir.dot(hull.vertices[hull.support_hill_climb(dir)]);
        let brute = dir.dot(hull.vertices[hull.support_brute_force(dir)]);
        assert!(climbed >= brute - 1e-6, "climb {climbed} < brute {brute}");
    }
    assert!(hull.vertices.contains(&hull.support(Vec3::ZERO)));
}

#[test]
fn local_aabb_bounds_the_vertices() {
    let hull = ConvexHull::square_pyramid(0.5, 3.0);
    let aabb = hull.local_aabb();
    assert_eq!(aabb.min, Vec3::new(-0.5, 0.0, -0.5));
    assert_eq!(aabb.max, Vec3::new(0.5, 3.0, 0.5));
}

#[test]
fn scaling_scales_vertices_and_offsets_only() {
    let hull = ConvexHull::cuboid(Vec3::new(1.0, 2.0, 3.0));
    let big = hull.scaled(2.0);
    big.validate().unwrap();
    assert_eq!(big.edges, hull.edges);
    assert_eq!(big.support(Vec3::ONE), Vec3::new(2.0, 4.0, 6.0));
    for (a, b) in hull.faces.iter().zip(&big.faces) {
        assert_eq!((b.normal, b.offset), (a.normal, 2.0 * a.offset));
    }
    // Mass grows as s³ (volume), inertia as s⁵ (mass · length²).
    let (m1, m2) = (hull.mass_properties(1.0), big.mass_properties(1.0));
    assert!(close(m2.mass, 8.0 * m1.mass, 1e-5));
    assert!(close(m2.inertia.x_axis.x, 32.0 * m1.inertia.x_axis.x, 1e-5));
}

// --- Mass properties ----------------------------------------------------------------------

/// Entry (row, col) of a tensor.
fn at(m: &Mat3, row: usize, col: usize) -> f32 {
    m.col(col)[row]
}

#[test]
fn box_mass_matches_the_analytic_box() {
    // 2 x 4 x 6 box, density 3: m = 3·48 = 144, I = m/12·(h² + d², w² + d², w² + h²).
    let mp = ConvexHull::cuboid(Vec3::new(1.0, 2.0, 3.0)).mass_properties(3.0);
    let m = 144.0;
    assert!(close(mp.mass, m, 1e-6));
    assert!(mp.local_center.length() < 1e-6);
    let expected = [
        m / 12.0 * (16.0 + 36.0),
        m / 12.0 * (4.0 + 36.0),
        m / 12.0 * (4.0 + 16.0),
    ];
    for (row, &moment) in expected.iter().enumerate() {
        for col in 0..3 {
            let want = if row == col { moment } else { 0.0 };
            assert!(
                (at(&mp.inertia, row, col) - want).abs() <= 1e-5 * moment,
                "I[{row}][{col}]"
            );
        }
    }
}

#[test]
fn pyramid_mass_matches_the_formulas() {
    // Base side b = 2, height h = 3, density 2: V = b²h/3 = 4, m = 8, centre h/4 above the base.
    // About the centre: I_yy = m·b²/10, I_xx = I_zz = m·(b²/20 + 3h²/80).
    let (b, h) = (2.0f32, 3.0f32);
    let mp = ConvexHull::square_pyramid(b / 2.0, h).mass_properties(2.0);
    let m = 2.0 * b * b * h / 3.0;
    assert!(close(mp.mass, m, 1e-6));
    assert!((mp.local_center - Vec3::new(0.0, h / 4.0, 0.0)).length() < 1e-6);
    let across = m * (b * b / 20.0 + 3.0 * h * h / 80.0);
    assert!(close(mp.inertia.y_axis.y, m * b * b / 10.0, 1e-5));
    assert!(close(mp.inertia.x_axis.x, across, 1e-5));
    assert!(close(mp.inertia.z_axis.z, across, 1e-5));
    assert!(at(&mp.inertia, 0, 1).abs() < 1e-5 && at(&mp.inertia, 0, 2).abs() < 1e-5);
}

#[test]
fn prism_volume_and_centre() {
    // Triangle area = half_width·height, V = area·2·half_depth; centroid at height/3.
    let mp = ConvexHull::triangular_prism(1.0, 1.5, 0.5).mass_properties(1.0);
    assert!(close(mp.mass, 1.5, 1e-6));
    assert!((mp.local_center - Vec3::new(0.0, 0.5, 0.0)).length() < 1e-6);
}

#[test]
fn corner_tetrahedron_mass_matches_the_integrals() {
    // Tetrahedron (0, x, y, z), density ρ = 6: V = 1/6, m = 1, centre (1/4, 1/4, 1/4).
    // Over the unit simplex ∫x² = 1/60 and ∫xy = 1/120, so about the origin
    // I_xx = ρ·2/60 = ρ/30 and I_xy = −ρ/120. Moving to the centre (parallel axis,
    // d = (1/4, 1/4, 1/4)): I_xx = ρ/30 − m·2/16 = ρ/80, I_xy = −ρ/120 + m/16 = ρ/480.
    let rho = 6.0;
    let mp = ConvexHull::new(&[Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z])
        .unwrap()
        .mass_properties(rho);
    assert!(close(mp.mass, 1.0, 1e-6));
    assert!((mp.local_center - Vec3::splat(0.25)).length() < 1e-6);
    for row in 0..3 {
        for col in 0..3 {
            let want = if row == col { rho / 80.0 } else { rho / 480.0 };
            assert!(
                (at(&mp.inertia, row, col) - want).abs() < 1e-6,
                "I[{row}][{col}]"
            );
        }
    }
}

#[test]
fn regular_tetrahedron_is_isotropic() {
    // Regular tetrahedron of edge a: V = a³/(6√2), I = m·a²/20 about every axis through
    // the centre. Corners (1,1,1), (1,−1,−1), (−1,1,−1), (−1,−1,1): a = 2√2.
    let points = [
        Vec3::ONE,
        Vec3::new(1.0, -1.0, -1.0),
        Vec3::new(-1.0, 1.0, -1.0),
        Vec3::new(-1.0, -1.0, 1.0),
    ];
    let mp = ConvexHull::new(&points).unwrap().mass_properties(1.0);
    let a = 2.0 * std::f32::consts::SQRT_2;
    let m = a * a * a / (6.0 * std::f32::consts::SQRT_2);
    assert!(close(mp.mass, m, 1e-6));
    assert!(mp.local_center.length() < 1e-6);
    let diagonal = Mat3::from_diagonal(Vec3::splat(m * a * a / 20.0));
    assert!(mp.inertia.abs_diff_eq(diagonal, 1e-5));
}

#[test]
fn moved_box_hull_has_the_moved_tensor() {
    // Box hull built from rotated and translated corners: I = R·I_box·Rᵀ, centre = t.
    let h = Vec3::new(0.5, 1.0, 1.5);
    let (q, t) = (
        Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 0.7),
        Vec3::new(2.0, -1.0, 0.5),
    );
    let points: Vec<Vec3> = box_corners(h).iter().map(|p| q * *p + t).collect();
    let mp = ConvexHull::new(&points).unwrap().mass_properties(2.0);
    let expected = ConvexHull::cuboid(h).mass_properties(2.0).transformed(t, q);
    assert!(close(mp.mass, expected.mass, 1e-5));
    assert!((mp.local_center - expected.local_center).length() < 1e-5);
    let scale = expected
        .inertia
        .x_axis
        .x
        .abs()
        .max(expected.inertia.z_axis.z.abs());
    assert!(
        mp.inertia.abs_diff_eq(expected.inertia, 1e-5 * scale),
        "{:?}",
        mp.inertia
    );
}

// --- Brute force and fuzz -----------------------------------------------------------------

#[test]
fn random_clouds_match_brute_force() {
    let mut rng = Lcg(42);
    for trial in 0..60 {
        let n = [8, 20, 100, 400, 1024][trial % 5];
        let points: Vec<Vec3> = (0..n)
            .map(|_| match trial % 3 {
                0 => rng.in_cube(),
                1 => rng.on_sphere(),
                _ => rng.on_sphere() * rng.unit().cbrt(),
            })
            .collect();
        check_against_input(&points, &mut rng, 1e-5);
    }
}

/// An awkward cloud of kind `kind`: near-planes, needles, spheres, boxes with face points,
/// lattices (exactly coplanar runs), jittered clusters; at scales from 1e-20 to 1e20 and
/// sometimes far from the origin.
fn awkward_cloud(rng: &mut Lcg, kind: usize) -> Vec<Vec3> {
    let n = 4 + (rng.unit() * 200.0) as usize;
    let thickness = 10f32.powf(rng.range(-7.0, 0.0));
    let jitter = 10f32.powf(rng.range(-9.0, -2.0));
    let mut cloud: Vec<Vec3> = match kind {
        0 => (0..n)
            .map(|_| rng.in_cube() * Vec3::new(1.0, thickness, 1.0))
            .collect(),
        1 => (0..n)
            .map(|_| rng.in_cube() * Vec3::new(1.0, thickness, thickness))
            .collect(),
        2 => (0..n)
            .map(|_| rng.on_sphere() * (1.0 + jitter * rng.unit()))
            .collect(),
        3 => {
            let h = Vec3::new(1.0, 0.3, 2.0);
            let mut points = box_corners(h);
            for _ in 0..n {
                let mut p = rng.in_cube() * h;
                let axis = (rng.unit() * 3.0) as usize % 3;
                p[axis] = h[axis].copysign(p[axis]);
                points.push(p + rng.in_cube() * jitter);
            }
            points
        }
        4 => (0..n).map(|_| (rng.in_cube() * 3.0).round()).collect(),
        5 => {
            // Clusters at the corners of a k-gon prism.
            let k = 3 + (rng.unit() * 30.0) as usize;
            (0..n)
                .map(|i| {
                    let angle = (i % k) as f32 / k as f32 * std::f32::consts::TAU;
                    let y = (i / k % 2) as f32;
                    Vec3::new(angle.cos(), y, angle.sin()) + rng.in_cube() * jitter
                })
                .collect()
        }
        _ => {
            let base: Vec<Vec3> = (0..6).map(|_| rng.in_cube()).collect();
            (0..n)
                .map(|i| base[i % 6] + rng.in_cube() * jitter)
                .collect()
        }
    };
    let (q, scale) = (rng.rotation(), 10f32.powf(rng.range(-20.0, 20.0)));
    let offset = rng.in_cube() * scale * 10f32.powf(rng.range(-3.0, 3.0));
    for p in &mut cloud {
        *p = q * *p * scale + offset;
    }
    cloud
}

#[test]
fn awkward_clouds_never_panic_and_always_validate() {
    let mut rng = Lcg(1234);
    let (mut built, mut rejected) = (0, 0);
    for round in 0..280 {
        let cloud = awkward_cloud(&mut rng, round % 7);
        let Ok(hull) = ConvexHull::new(&cloud) else {
            assert_eq!(ConvexHull::new(&cloud), Err(HullError::Degenerate));
            rejected += 1;
            continue;
        };
        built += 1;
        // Every point inside, every vertex an input point, supports within the tolerance.
        let tol = VALIDATE_SLACK * hull.tolerance();
        check_hull(&cloud, &hull, &mut rng, tol);
        // The merged mesh itself validated (the triangle fallback was not needed) ...
        let snapped = Cloud::new(&cloud).unwrap();
        let mesh = quickhull(&snapped).unwrap();
        assert!(
            merged_hull(&cloud, &snapped, &mesh).is_some(),
            "merge failed"
        );
        // ... and building again gives the very same hull (no hash-order dependence).
        assert_eq!(ConvexHull::new(&cloud).as_ref(), Ok(&hull));
    }
    assert!(
        built > 150 && rejected > 10,
        "built {built}, rejected {rejected}"
    );
}

#[test]
fn hill_climbing_sees_past_dips_on_merged_faces() {
    // Jittered clusters at the corners of a prism make merged faces that are flat only
    // within the tolerance; climbing along edges alone got stuck on them.
    let mut rng = Lcg(77);
    for _ in 0..30 {
        let cloud = awkward_cloud(&mut rng, 5);
        let Ok(hull) = ConvexHull::new(&cloud) else {
            continue;
        };
        for _ in 0..300 {
            let dir = rng.in_cube();
            let climbed = dir.dot(hull.vertices[hull.support_hill_climb(dir)]);
            let brute = dir.dot(hull.vertices[hull.support_brute_force(dir)]);
            assert_eq!(climbed, brute);
        }
    }
}

#[test]
fn needle_tips_are_kept() {
    // Along a needle 2 long and 1e-4 thick every face plane passes within the tolerance of
    // points well beyond the tip; they must still become vertices (support along the axis
    // equals the farthest input point).
    let mut rng = Lcg(8);
    for _ in 0..20 {
        let cloud: Vec<Vec3> = (0..200)
            .map(|_| rng.in_cube() * Vec3::new(1.0, 1e-4, 1e-4))
            .collect();
        let hull = ConvexHull::new(&cloud).unwrap();
        for dir in [Vec3::X, -Vec3::X] {
            let best = cloud.iter().map(|p| dir.dot(*p)).fold(f32::MIN, f32::max);
            assert!((dir.dot(hull.support(dir)) - best).abs() <= hull.tolerance());
        }
    }
}

#[test]
fn triangle_fallback_is_a_valid_hull_too() {
    // The unmerged quickhull mesh of a box: 12 triangles, 18 edges, 8 corners (8 − 18 + 12
    // = 2), coplanar pairs and all, still passes every check.
    let points = box_corners(Vec3::new(1.0, 2.0, 0.5));
    let cloud = Cloud::new(&points).unwrap();
    let mesh = quickhull(&cloud).unwrap();
    let hull = assemble(&points, &cloud, &mesh.triangle_loops()).unwrap();
    hull.validate().unwrap();
    assert_eq!(
        (hull.vertices.len(), hull.faces.len(), hull.edges.len()),
        (8, 12, 36)
    );
}

/// The four-lane search returns the vertex the search in order does, index for index: on
/// random hulls of 4 to 40 points (every remainder of four), in random directions, along
/// the axes of a cube (four vertices tie at each maximum: the first must win), and for
/// zero, infinite and NaN directions.
#[test]
fn the_four_lane_support_is_the_first_best_vertex() {
    let mut rng = Lcg(11);
    let cube = ConvexHull::cuboid(Vec3::splat(0.5));
    for axis in [
        Vec3::X,
        Vec3::Y,
        Vec3::Z,
        -Vec3::X,
        -Vec3::Y,
        -Vec3::Z,
        Vec3::ONE,
    ] {
        assert_eq!(cube.support_brute_force(axis), cube.support_in_order(axis));
    }
    for n in 4..=40 {
        let points: Vec<Vec3> = (0..n).map(|_| rng.on_sphere()).collect();
        let hull = ConvexHull::new(&points).unwrap();
        let odd = [
            Vec3::ZERO,
            Vec3::NAN,
            Vec3::INFINITY,
            Vec3::new(f32::NEG_INFINITY, 0.0, 1.0),
        ];
        for dir in (0..50).map(|_| rng.in_cube()).chain(odd) {
            assert_eq!(
                hull.support_brute_force(dir),
                hull.support_in_order(dir),
                "{n} points, direction {dir}"
            );
        }
    }
}
