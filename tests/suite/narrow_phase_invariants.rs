//! Narrow-phase invariants on a large fixed-seed set of every shape pair, with an exact
//! distance of our own as the oracle (GJK on the cores: a point for spheres, a segment for
//! capsules, the polytope itself for boxes and hulls, then minus the radii; the support
//! height for planes), and the regression cases the property tests found.
//!
//! - No phantom depth: when the shapes are apart, no reported point is deeper than 1 mm.
//! - The push separates: moving B by the deepest reported depth along the reported normal
//!   leaves an overlap under 1 mm (checked as: 1 mm further, the shapes are apart).
//! - No overstated gap: when a point reports a gap, moving B back along the normal by that
//!   gap less 1 mm leaves the shapes apart (a speculative contact that does not wake late).

use crate::common;

use impulse::physics::narrow_phase::gjk::gjk_distance;
use impulse::physics::narrow_phase::{collide, Manifold, Scratch};
use impulse::physics::shape::{PointSupport, SegmentSupport, SupportMap};
use impulse::physics::{Isometry, Quat, Shape, Vec3};

/// The speculative margin the world uses at rest (`SPECULATIVE_DISTANCE`), m.
const MARGIN: f32 = 0.02;
/// The tolerance for depth and for the overlap a push leaves, m.
const TOLERANCE: f32 = 1.0e-3;

/// A small deterministic generator (64-bit LCG, high bits), so every run sees the same pairs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
    fn vec(&mut self, half: f32) -> Vec3 {
        Vec3::new(
            self.range(-half, half),
            self.range(-half, half),
            self.range(-half, half),
        )
    }
    fn rotation(&mut self) -> Quat {
        // Aligned poses (identity, quarter turns) are where clipping is most delicate.
        match (self.next() * 4.0) as u32 {
            0 => Quat::IDENTITY,
            1 => Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
            _ => {
                let q = Quat::from_xyzw(
                    self.range(-1.0, 1.0),
                    self.range(-1.0, 1.0),
                    self.range(-1.0, 1.0),
                    self.range(-1.0, 1.0),
                );
                if q.length_squared() > 1e-4 {
                    q.normalize()
                } else {
                    Quat::IDENTITY
                }
            }
        }
    }
    fn shape(&mut self, kind: u32) -> Shape {
        match kind {
            0 => Shape::sphere(self.range(0.1, 1.0)),
            1 => {
                let mut h = Vec3::new(
                    self.range(0.05, 1.0),
                    self.range(0.05, 1.0),
                    self.range(0.05, 1.0),
                );
                if self.next() < 0.25 {
                    h.y = self.range(0.01, 0.05); // thin plates
                }
                Shape::cuboid(h)
            }
            2 => Shape::capsule(self.range(0.0, 1.0), self.range(0.05, 0.8)),
            3 => loop {
                let n = 6 + (self.next() * 9.0) as usize;
                let points: Vec<Vec3> = (0..n).map(|_| self.vec(0.9)).collect();
                if let Ok(hull) = Shape::convex_hull(&points) {
                    break hull;
                }
            },
            _ => Shape::plane(Vec3::Y),
        }
    }
}

/// Radius and core of a shape (the core is the shape itself for polytopes).
enum Core<'s> {
    Point,
    Segment(f32),
    Solid(&'s Shape),
}

fn core(shape: &Shape) -> (Core<'_>, f32) {
    match shape {
        Shape::Sphere { radius } => (Core::Point, *radius),
        Shape::Capsule {
            half_height,
            radius,
        } => (Core::Segment(*half_height), *radius),
        other => (Core::Solid(other), 0.0),
    }
}

fn core_distance(a: &Core, b: &Core, b_in_a: &Isometry) -> f32 {
    fn with_b<A: SupportMap>(a: &A, b: &Core, b_in_a: &Isometry) -> f32 {
        match b {
            Core::Point => gjk_distance(a, &PointSupport(Vec3::ZERO), b_in_a).distance,
            Core::Segment(h) => {
                let s = SegmentSupport(Vec3::new(0.0, -h, 0.0), Vec3::new(0.0, *h, 0.0));
                gjk_distance(a, &s, b_in_a).distance
            }
            Core::Solid(shape) => gjk_distance(a, *shape, b_in_a).distance,
        }
    }
    match a {
        Core::Point => with_b(&PointSupport(Vec3::ZERO), b, b_in_a),
        Core::Segment(h) => with_b(
            &SegmentSupport(Vec3::new(0.0, -h, 0.0), Vec3::new(0.0, *h, 0.0)),
            b,
            b_in_a,
        ),
        Core::Solid(shape) => with_b(*shape, b, b_in_a),
    }
}

/// Signed distance between the shapes (negative: they overlap, but only the sign and the
/// positive values are exact; an overlap reads as 0 from GJK, or as the plane depth).
fn signed_distance(a: &Shape, pa: &Isometry, b: &Shape, pb: &Isometry) -> f32 {
    if let Shape::Plane { normal } = b {
        // Height of A's lowest point above the plane.
        let n = pb.transform_vector(*normal);
        let lowest = pa.transform_point(a.support(pa.inverse_transform_vector(-n)));
        return n.dot(lowest - pb.translation);
    }
    let (ca, ra) = core(a);
    let (cb, rb) = core(b);
    core_distance(&ca, &cb, &pa.inv_mul(pb)) - ra - rb
}

fn deepest(m: &Manifold) -> f32 {
    m.points().iter().map(|p| p.depth).fold(f32::MIN, f32::max)
}

/// Checks both invariants for one pair; returns a message on failure.
fn check(a: &Shape, pa: &Isometry, b: &Shape, pb: &Isometry) -> Result<(), String> {
    let mut scratch = Scratch::default();
    let m = collide(a, pa, b, pb, MARGIN, &mut scratch);
    if m.count == 0 {
        return Ok(());
    }
    if m.points().iter().any(|p| !p.depth.is_finite()) || !m.normal.is_finite() {
        return Err(format!(
            "non-finite manifold: {}",
            common::describe_pair(a, pa, b, pb)
        ));
    }
    let depth = deepest(&m);
    let distance = signed_distance(a, pa, b, pb);
    if distance > 1.0e-4 && depth > TOLERANCE {
        return Err(format!(
            "apart by {distance} but a point is {depth} deep: {}",
            common::describe_pair(a, pa, b, pb)
        ));
    }
    if depth < -TOLERANCE && !matches!(b, Shape::Plane { .. }) {
        // Apart along the normal by the reported gap −depth: B moved that far back less 1 mm
        // must still be apart, or the gap was overstated (a contact that wakes too late).
        let closer = Isometry::new(pb.translation + m.normal * (depth + TOLERANCE), pb.rotation);
        if signed_distance(a, pa, b, &closer) <= 0.0 {
            return Err(format!(
                "gap overstated: reported {} along {}: {}",
                -depth,
                m.normal,
                common::describe_pair(a, pa, b, pb)
            ));
        }
    }
    if depth > 0.0 && !matches!(b, Shape::Plane { .. }) {
        let pushed = Isometry::new(pb.translation + m.normal * (depth + TOLERANCE), pb.rotation);
        let after = signed_distance(a, pa, b, &pushed);
        if after <= 0.0 {
            let epa = impulse::physics::narrow_phase::epa::penetration(a, b, &pa.inv_mul(pb));
            return Err(format!(
                "pushed by {depth} along {} and still overlapping: {} || {} pts {:?} epa {:?}",
                m.normal,
                common::describe_pair(a, pa, b, pb),
                m.count,
                m.points().iter().map(|p| p.depth).collect::<Vec<_>>(),
                epa.map(|e| (e.depth, pa.transform_vector(e.normal)))
            ));
        }
    }
    if let (true, Shape::Plane { normal }) = (depth > 0.0, b) {
        // A plane is B: push A the other way instead.
        let _ = normal;
        let pushed = Isometry::new(pa.translation - m.normal * (depth + TOLERANCE), pa.rotation);
        if signed_distance(a, &pushed, b, pb) <= 0.0 {
            return Err(format!(
                "plane push failed: {}",
                common::describe_pair(a, pa, b, pb)
            ));
        }
    }
    Ok(())
}

/// 400 000 pairs of every kind (sphere, box, capsule, hull; planes as B), a third placed at
/// random, a third moved to just apart (0–30 mm, inside the speculative margin) and a third
/// moved to just overlapping (0–10 cm), along the line of their closest points.
#[test]
fn no_phantom_depth_and_the_push_separates() {
    let mut rng = Rng(0x1557_E008);
    let mut failures = Vec::new();
    let mut cases = [0usize; 3];
    for i in 0..400_000 {
        let (ka, kb) = ((rng.next() * 4.0) as u32, (rng.next() * 5.0) as u32);
        let (a, b) = (rng.shape(ka), rng.shape(kb));
        let pa = Isometry::new(rng.vec(0.5), rng.rotation());
        let mut pb = Isometry::new(rng.vec(1.6), rng.rotation());
        let mode = i % 3;
        if mode > 0 && kb < 4 {
            // Slide B along the line between the centres until the gap is the target:
            // bisection on the exact distance (monotone enough along this line).
            let target = if mode == 1 {
                rng.range(0.0, 0.03)
            } else {
                -rng.range(0.0, 0.1)
            };
            let dir = (pb.translation - pa.translation).normalize_or_zero();
            if dir == Vec3::ZERO {
                continue;
            }
            let (mut lo, mut hi) = (0.0f32, 4.0f32);
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                let p = Isometry::new(pa.translation + dir * mid, pb.rotation);
                let d = signed_distance(&a, &pa, &b, &p);
                let gap = if d > 0.0 { d } else { -0.0 };
                if gap > target.max(0.0) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            let overlap = (-target).max(0.0);
            pb = Isometry::new(pa.translation + dir * (hi - overlap), pb.rotation);
        }
        cases[mode] += 1;
        if let Err(e) = check(&a, &pa, &b, &pb) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {:?} pairs failed; first: {}",
        failures.len(),
        cases,
        failures.join("\n")
    );
}

fn hull(points: &[[f32; 3]]) -> Shape {
    Shape::convex_hull(&points.iter().map(|p| Vec3::from(*p)).collect::<Vec<_>>()).unwrap()
}

/// Issue 8, example 1: a box and a hull 19 mm apart got one point 0.159 m deep (the edge
/// fallback after the face clipped to nothing). Now: no point deeper than 1 mm, and a point
/// at the true gap when within the margin.
#[test]
fn box_and_hull_apart_report_no_phantom_depth() {
    let a = Shape::cuboid(Vec3::new(0.3969217, 0.597551, 0.32498598));
    let pa = Isometry::new(
        Vec3::new(-2.5235653, 0.83747935, -2.280181),
        Quat::from_xyzw(0.3863931, 0.7559518, -0.5276315, 0.029021692).normalize(),
    );
    let b = hull(&[
        [0.09558887, 0.13687067, 0.098553106],
        [-0.46545798, 0.48873943, -0.18864734],
        [-0.6233406, 0.005609378, -0.49041712],
        [-0.062241532, -0.113163665, 0.051585913],
        [-0.61144835, 0.3756646, -0.38694936],
        [-0.6592298, 0.030795217, -0.23163159],
        [0.71499157, 0.46462244, -0.19776008],
        [-0.8716792, 0.22819316, -0.49006796],
        [-0.23446387, 0.48668724, -0.1872087],
        [0.51149505, 0.06013927, 0.0054195225],
        [0.6313868, 0.18175042, -0.47480154],
        [0.5669372, 0.40474045, -0.43538007],
    ]);
    let pb = Isometry::new(
        Vec3::new(-1.9310199, -0.58328307, -2.1544023),
        Quat::from_xyzw(0.2920412, -0.48141325, 0.45315492, -0.69108886).normalize(),
    );
    let gap = signed_distance(&a, &pa, &b, &pb);
    assert!((gap - 0.019).abs() < 1.0e-3, "gap {gap}");
    let m = collide(&a, &pa, &b, &pb, 0.02, &mut Scratch::default());
    assert_eq!(m.count, 1);
    // The one point is GJK's closest pair: depth = −gap.
    assert!(
        (m.points[0].depth + gap).abs() < 1.0e-4,
        "{}",
        m.points[0].depth
    );
    check(&a, &pa, &b, &pb).unwrap();
}

/// Issue 8, example 4: a capsule lying along a box's vertical edge touches along 1.87 m of
/// it; it gets two points at the ends of the shared range, each as deep as the capsule
/// radius minus the axis-to-edge distance.
#[test]
fn capsule_along_a_box_edge_gets_two_points() {
    let a = Shape::capsule(0.9352169, 0.26328424);
    let pa = Isometry::from_translation(Vec3::new(-2.8951325, -1.2110554, -0.17471543));
    let half = Vec3::new(0.06982165, 1.5616314, 0.036217287);
    let b = Shape::cuboid(half);
    let pb = Isometry::from_translation(Vec3::new(-2.7097516, -1.3181144, -0.44667625));
    let m = collide(&a, &pa, &b, &pb, 0.0, &mut Scratch::default());
    assert_eq!(m.count, 2, "{:?}", m.points());
    // The nearest edge is at x = −2.7097516 − hx, z = −0.44667625 + hz.
    let edge = Vec3::new(pb.translation.x - half.x, 0.0, pb.translation.z + half.z);
    let offset = Vec3::new(edge.x - pa.translation.x, 0.0, edge.z - pa.translation.z);
    let expected = 0.26328424 - offset.length();
    let span = (m.points[0].point_b.y - m.points[1].point_b.y).abs();
    // The shared range: the whole capsule segment (2 × 0.935), inside the box's 3.12 m.
    assert!((span - 2.0 * 0.9352169).abs() < 1.0e-4, "span {span}");
    for p in m.points() {
        assert!(
            (p.depth - expected).abs() < 1.0e-4,
            "{} vs {expected}",
            p.depth
        );
    }
}

/// Issue 8, item 3: a sphere centred exactly on a capsule's segment is pushed out
/// perpendicular to the segment by r_a + r_b (along the segment the capsule would still
/// hold it). The capsule is along y, so the old +y fallback left 0.99 m of overlap.
#[test]
fn sphere_centred_on_a_capsule_segment_is_pushed_out_sideways() {
    let sphere = Shape::sphere(0.3);
    let capsule = Shape::capsule(1.0, 0.2);
    for q in [
        Quat::IDENTITY,
        Quat::from_rotation_z(0.7),
        Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
    ] {
        let pb = Isometry::new(Vec3::new(0.1, 0.2, 0.3), q);
        let pa = Isometry::from_translation(pb.transform_point(Vec3::new(0.0, 0.4, 0.0)));
        let m = collide(&sphere, &pa, &capsule, &pb, 0.0, &mut Scratch::default());
        assert_eq!(m.count, 1);
        assert!(
            (m.points[0].depth - 0.5).abs() < 1e-5,
            "{}",
            m.points[0].depth
        );
        let axis = q * Vec3::Y;
        assert!(
            m.normal.dot(axis).abs() < 1e-5,
            "normal {} along the axis",
            m.normal
        );
        check(&sphere, &pa, &capsule, &pb).unwrap();
    }
}

/// A box, a box-shaped hull and a tilted hull resting on a hull's top face, and a box on a
/// box: four points each, spanning the overlap (the four corners of the smaller bottom face,
/// all as deep as the overlap).
#[test]
fn faces_resting_on_faces_get_four_points() {
    let slab = hull(&[
        [-2.0, -0.5, -2.0],
        [2.0, -0.5, -2.0],
        [2.0, 0.5, -2.0],
        [-2.0, 0.5, -2.0],
        [-2.0, -0.5, 2.0],
        [2.0, -0.5, 2.0],
        [2.0, 0.5, 2.0],
        [-2.0, 0.5, 2.0],
        [0.0, -0.7, 0.0],
    ]);
    let cube = Shape::cuboid(Vec3::splat(0.5));
    let cube_hull = hull(&[
        [-0.5, -0.5, -0.5],
        [0.5, -0.5, -0.5],
        [0.5, 0.5, -0.5],
        [-0.5, 0.5, -0.5],
        [-0.5, -0.5, 0.5],
        [0.5, -0.5, 0.5],
        [0.5, 0.5, 0.5],
        [-0.5, 0.5, 0.5],
    ]);
    let depth = 0.01;
    let ground = Isometry::IDENTITY;
    for (top, bottom) in [
        (&cube, &slab),
        (&cube_hull, &slab),
        (&cube, &Shape::cuboid(Vec3::new(2.0, 0.5, 2.0))),
    ] {
        for tilt in [0.0f32, 0.01] {
            let q = Quat::from_rotation_y(0.3) * Quat::from_rotation_x(tilt);
            let pose = Isometry::new(Vec3::new(0.3, 1.0 - depth, -0.2), q);
            let m = collide(top, &pose, bottom, &ground, 0.0, &mut Scratch::default());
            assert_eq!(m.count, 4, "tilt {tilt}: {:?}", m.points());
            // Each corner's depth is how far below the top face (y = 0.5) it is.
            for p in m.points() {
                let corner_y = p.point_a.y;
                assert!(
                    (p.depth - (0.5 - corner_y)).abs() < 1e-4,
                    "{} vs {}",
                    p.depth,
                    0.5 - corner_y
                );
            }
            check(top, &pose, bottom, &ground).unwrap();
        }
    }
}

/// How far B must move along `n` to stop overlapping A: bisection on the exact distance
/// (the reference for the push, independent of the SAT's own candidate axes).
fn push_needed(a: &Shape, pa: &Isometry, b: &Shape, pb: &Isometry, n: Vec3) -> f32 {
    let (mut lo, mut hi) = (0.0f32, 4.0f32);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        let moved = Isometry::new(pb.translation + n * mid, pb.rotation);
        if signed_distance(a, pa, b, &moved) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// Issue 8, item 2: the last two random pairs whose face contact under-reported the push.
/// Part of the incident polytope that clipping cuts away is still inside the reference
/// (hulls bulge beyond their faces' side planes); the deepest point now reports the exact
/// push along the normal, 0.5404 m where the clipped points gave 0.5383 m, and 0.0736 m
/// where they gave 0.0710 m.
#[test]
fn clipped_overlap_reports_the_full_push() {
    let cases = [
        (
            hull(&[
                [-0.15349561, 0.29617202, 0.51493454],
                [-0.60525894, -0.56098306, 0.273901],
                [-0.099981904, -0.8081362, 0.27188444],
                [0.7212571, -0.43513766, 0.55887115],
                [0.21749592, 0.81225824, 0.24824345],
                [-0.7557803, 0.6032107, -0.26612717],
                [0.49155605, 0.085094154, 0.7514472],
                [0.6271299, -0.6811651, -0.63848805],
                [0.717751, 0.17257094, -0.7006403],
                [-0.16997534, -0.7225839, -0.8662849],
                [0.07323408, -0.8038579, -0.4845948],
            ]),
            Isometry::new(
                Vec3::new(-0.17589444, 0.088329375, 0.40400475),
                Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
            ),
            Shape::cuboid(Vec3::new(0.06636332, 0.3578491, 0.8200564)),
            Isometry::from_translation(Vec3::new(0.0993458, -0.19017386, -0.2224853)),
        ),
        (
            Shape::cuboid(Vec3::new(0.050719187, 0.85578847, 0.24810164)),
            Isometry::new(
                Vec3::new(-0.19333774, 0.47167647, -0.45935804),
                Quat::from_xyzw(0.3487113, 0.69478506, -0.4673551, 0.42101467).normalize(),
            ),
            hull(&[
                [-0.41841227, -0.5796215, 0.7276113],
                [-0.1223526, -0.57638526, 0.38098955],
                [-0.07882571, 0.4979893, 0.022226393],
                [-0.3523866, -0.15712833, 0.8348973],
                [0.6177597, -0.11244279, 0.12855768],
                [-0.39332277, -0.824433, -0.07994902],
                [-0.7031949, 0.8268806, -0.61896265],
                [0.53110445, 0.123108745, 0.62506735],
            ]),
            Isometry::new(
                Vec3::new(-0.18946004, -0.16894913, -0.38522714),
                Quat::from_xyzw(-0.44167545, -0.5159142, -0.42440432, -0.5988626).normalize(),
            ),
        ),
    ];
    for (a, pa, b, pb) in &cases {
        let m = collide(a, pa, b, pb, MARGIN, &mut Scratch::default());
        let needed = push_needed(a, pa, b, pb, m.normal);
        let reported = deepest(&m);
        assert!(
            (reported - needed).abs() < 2.0e-4,
            "reported {reported}, needed {needed}"
        );
        check(a, pa, b, pb).unwrap();
    }
}

/// A capsule whose segment just touches a hull (GJK stops a hair apart, EPA's simplex is
/// flat): the normal was the capsule's own axis, along which a push frees nothing. Now the
/// best separating axis: the push by the radius separates.
#[test]
fn capsule_core_touching_a_hull_is_pushed_out_sideways() {
    let a = hull(&[
        [0.005045533, -0.09334743, -0.77539796],
        [-0.55019003, -0.6040492, -0.39371842],
        [0.35050786, -0.8415454, 0.3712387],
        [0.6327735, 0.163795, -0.16509664],
        [-0.47344604, -0.36221814, 0.12337494],
        [-0.8574918, -0.60641396, -0.40318674],
        [-0.34955704, 0.40632963, -0.019192815],
    ]);
    let pa = Isometry::new(
        Vec3::new(0.27737623, 0.38387024, 0.03414762),
        Quat::from_xyzw(-0.2592528, -0.757824, 0.58524287, 0.12641826).normalize(),
    );
    let (h, r) = (0.779426, 0.050664026);
    let b = Shape::capsule(h, r);
    let pb = Isometry::from_translation(Vec3::new(0.0774703, 0.3119609, -0.18745813));
    let m = collide(&a, &pa, &b, &pb, MARGIN, &mut Scratch::default());
    assert!(m.count > 0);
    // Not along the capsule's axis (y): a push along it would leave the segment inside.
    assert!(m.normal.y.abs() < 0.5, "normal {}", m.normal);
    let needed = push_needed(&a, &pa, &b, &pb, m.normal);
    assert!(
        deepest(&m) >= needed - TOLERANCE,
        "{} < {needed}",
        deepest(&m)
    );
    check(&a, &pa, &b, &pb).unwrap();
}

/// Issue 8, item 5: a box tilted 15° on a faceted dome. The box's bottom face wins the face
/// query, but the dome's face at its deepest vertex lies beside the box, so clipping it
/// leaves nothing; the dome's own face under the box is the reference instead and the box
/// gets a face's points, not the one point of a vertex or edge fallback.
#[test]
fn box_on_a_dome_falls_back_to_the_dome_face() {
    use impulse::physics::narrow_phase::polytope::{face_contact, PolyView};
    let mut dome = vec![Vec3::new(0.0, -1.0, 0.0)];
    dome.extend(
        [
            [-0.46851033, 0.57498825, 0.67073584],
            [-0.71966153, 0.5368509, -0.44031614],
            [0.964758, -0.2578333, -0.05257369],
            [0.66539663, 0.002767086, 0.7464849],
            [0.7941909, 0.49299455, -0.35527077],
            [0.17001082, -0.08883464, -0.9814299],
            [0.035752553, -0.31095105, -0.9497532],
            [-0.46097156, -0.84776914, -0.2622836],
            [0.5857808, 0.78753364, 0.1914461],
            [0.39090276, -0.91286206, -0.11780444],
            [-0.61151505, -0.22642344, -0.7581436],
            [-0.97076577, 0.23973942, -0.011785563],
            [0.36984646, -0.9284484, -0.03460063],
            [-0.49978116, -0.63503355, -0.58902556],
            [-0.96224415, 0.12003338, -0.24429108],
            [0.25784305, 0.32105827, -0.911284],
            [0.1373519, -0.5414186, 0.8294579],
            [-0.91511023, 0.12597609, 0.38301873],
            [-0.29504552, -0.44178003, -0.8472181],
        ]
        .map(Vec3::from),
    );
    let Shape::ConvexHull(dome_hull) = Shape::convex_hull(&dome).unwrap() else {
        unreachable!()
    };
    let half = Vec3::new(0.122971185, 0.11661833, 0.4193992);
    let pa = Isometry::new(
        Vec3::new(0.18800598, 1.0000308, 0.18074113),
        Quat::from_xyzw(0.10053957, 0.5959161, 0.07773615, -0.7929267).normalize(),
    );
    let b_in_a = pa.inverse();
    let (box_view, dome_view) = (PolyView::cuboid(half), PolyView::hull(&dome_hull));
    // The box's face towards the dome, as the face query picks it: clips to nothing.
    let bottom = box_view.face_towards(b_in_a.transform_vector(Vec3::NEG_Y));
    let mut alone = Manifold::default();
    face_contact(
        &box_view,
        &dome_view,
        &b_in_a,
        bottom,
        0.0,
        0,
        &mut Scratch::default(),
        &mut alone,
    );
    assert_eq!(alone.count, 0);
    let (a, b) = (Shape::cuboid(half), Shape::ConvexHull(dome_hull));
    let m = collide(
        &a,
        &pa,
        &b,
        &Isometry::IDENTITY,
        0.0,
        &mut Scratch::default(),
    );
    assert!(m.count >= 3, "{:?}", m.points());
    // Every point lies on the dome face the normal comes from: the same plane n · x = c.
    let c = m.normal.dot(m.points[0].point_b);
    for p in m.points() {
        assert!((m.normal.dot(p.point_b) - c).abs() < 1.0e-4);
    }
    check(&a, &pa, &b, &Isometry::IDENTITY).unwrap();
}
