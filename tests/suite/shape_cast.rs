//! `World::cast_shape` against closed forms (a sphere swept at a box face, a box dropped onto a
//! plane, a sphere passing a sphere off-centre), its edge cases (a miss, a cast too short,
//! starting inside, its own body excluded, sensors ignored), and against a reference: at the
//! reported distance the shapes just touch, a little earlier they are apart.

use impulse::physics::narrow_phase::gjk::gjk_distance;
use impulse::physics::{
    BodyDef, BodyHandle, BodyType, ColliderDef, Isometry, Quat, Shape, Vec3, World, WorldSettings,
};

fn world() -> World {
    World::new(WorldSettings::default())
}

/// A static body with one collider.
fn fixed(world: &mut World, position: Vec3, rotation: Quat, shape: Shape) -> BodyHandle {
    let body = world.create_body(BodyDef {
        body_type: BodyType::Static,
        position,
        rotation,
        ..BodyDef::default()
    });
    world
        .add_collider(body, ColliderDef::new(shape))
        .expect("collider");
    body
}

fn at(p: Vec3) -> Isometry {
    Isometry::new(p, Quat::IDENTITY)
}

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).abs().max_element() <= tol
}

#[test]
fn a_sphere_swept_at_a_box_face_hits_at_the_exact_distance() {
    let mut w = world();
    let wall = fixed(&mut w, Vec3::ZERO, Quat::IDENTITY, Shape::cuboid(Vec3::ONE));
    // Sphere r = 0.5 centred at z = −5 moving +z: its front reaches the face z = −1 after
    // 5 − 1 − 0.5 = 3.5 m, at the point (0, 0.3, −1), where the face's normal is −z.
    let ball = Shape::sphere(0.5);
    let hit = w
        .cast_shape(&ball, &at(Vec3::new(0.0, 0.3, -5.0)), Vec3::Z, 10.0, None)
        .expect("hits the wall");
    assert_eq!(hit.body, wall);
    assert!((hit.distance - 3.5).abs() < 1e-4, "{}", hit.distance);
    assert!(close(hit.normal, -Vec3::Z, 1e-4), "{:?}", hit.normal);
    assert!(
        close(hit.point, Vec3::new(0.0, 0.3, -1.0), 1e-3),
        "{:?}",
        hit.point
    );
    // The direction's length does not matter; a cast shorter than 3.5 m misses.
    let again = w
        .cast_shape(
            &ball,
            &at(Vec3::new(0.0, 0.3, -5.0)),
            Vec3::Z * 7.0,
            10.0,
            None,
        )
        .unwrap();
    assert!((again.distance - hit.distance).abs() < 1e-6);
    assert!(w
        .cast_shape(&ball, &at(Vec3::new(0.0, 0.3, -5.0)), Vec3::Z, 3.4, None)
        .is_none());
    // Beside the wall (|x| > 1 + 0.5) it passes.
    assert!(w
        .cast_shape(&ball, &at(Vec3::new(1.6, 0.0, -5.0)), Vec3::Z, 10.0, None)
        .is_none());
}

#[test]
fn a_turned_box_dropped_onto_a_plane_lands_on_its_lowest_corner() {
    let mut w = world();
    let floor = fixed(&mut w, Vec3::ZERO, Quat::IDENTITY, Shape::plane(Vec3::Y));
    // A unit cube (half 0.5) turned 45° about z: its lowest edge is 0.5·√2 below its centre,
    // so from y = 3 it falls 3 − 0.5·√2 before touching.
    let cube = Shape::cuboid(Vec3::splat(0.5));
    let pose = Isometry::new(
        Vec3::new(2.0, 3.0, 0.0),
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
    );
    let hit = w
        .cast_shape(&cube, &pose, -Vec3::Y, 100.0, None)
        .expect("lands");
    assert_eq!(hit.body, floor);
    let expected = 3.0 - 0.5 * std::f32::consts::SQRT_2;
    assert!((hit.distance - expected).abs() < 1e-4, "{}", hit.distance);
    assert!(close(hit.normal, Vec3::Y, 1e-6));
    assert!(hit.point.y.abs() < 1e-4 && (hit.point.x - 2.0).abs() < 1e-3);
}

#[test]
fn a_sphere_passing_a_sphere_off_centre_touches_where_the_centres_are_r1_plus_r2_apart() {
    let mut w = world();
    fixed(&mut w, Vec3::ZERO, Quat::IDENTITY, Shape::sphere(1.0));
    // A ball r = 0.5 moving +x along y = 0.3 from x = −5: contact when the centres are 1.5
    // apart, at x = −√(1.5² − 0.3²), after 5 − √2.16 m; the normal is the centre line.
    let hit = w
        .cast_shape(
            &Shape::sphere(0.5),
            &at(Vec3::new(-5.0, 0.3, 0.0)),
            Vec3::X,
            10.0,
            None,
        )
        .expect("hits");
    let x = -(1.5f32 * 1.5 - 0.09).sqrt();
    assert!((hit.distance - (5.0 + x)).abs() < 1e-4, "{}", hit.distance);
    let centre = Vec3::new(x, 0.3, 0.0);
    assert!(close(hit.normal, centre / 1.5, 1e-3), "{:?}", hit.normal);
    assert!(close(hit.point, centre / 1.5, 1e-3), "{:?}", hit.point);
}

#[test]
fn edge_cases_start_inside_own_body_sensors_and_the_nearest_of_several() {
    let mut w = world();
    let near = fixed(
        &mut w,
        Vec3::new(0.0, 0.0, 3.0),
        Quat::IDENTITY,
        Shape::cuboid(Vec3::splat(0.5)),
    );
    let far = fixed(
        &mut w,
        Vec3::new(0.0, 0.0, 6.0),
        Quat::IDENTITY,
        Shape::cuboid(Vec3::splat(0.5)),
    );
    let sensor = w.create_body(BodyDef {
        body_type: BodyType::Static,
        position: Vec3::new(0.0, 0.0, 1.5),
        ..BodyDef::default()
    });
    w.add_collider(
        sensor,
        ColliderDef::new(Shape::cuboid(Vec3::splat(0.5))).with_sensor(true),
    )
    .unwrap();
    let ball = Shape::sphere(0.25);
    // The sensor in the way is ignored; the nearer box wins: 3 − 0.5 − 0.25 = 2.25.
    let hit = w
        .cast_shape(&ball, &at(Vec3::ZERO), Vec3::Z, 20.0, None)
        .unwrap();
    assert_eq!(hit.body, near);
    assert!((hit.distance - 2.25).abs() < 1e-4);
    // Excluding the near box's body finds the far one: 6 − 0.5 − 0.25 = 5.25.
    let hit = w
        .cast_shape(&ball, &at(Vec3::ZERO), Vec3::Z, 20.0, Some(near))
        .unwrap();
    assert_eq!(hit.body, far);
    assert!((hit.distance - 5.25).abs() < 1e-4);
    // Starting inside: distance 0, normal against the motion.
    let hit = w
        .cast_shape(&ball, &at(Vec3::new(0.0, 0.0, 3.2)), Vec3::Z, 20.0, None)
        .unwrap();
    assert_eq!((hit.body, hit.distance, hit.normal), (near, 0.0, -Vec3::Z));
    // Nothing to cast: zero direction, negative or NaN distance, a plane.
    assert!(w
        .cast_shape(&ball, &at(Vec3::ZERO), Vec3::ZERO, 20.0, None)
        .is_none());
    assert!(w
        .cast_shape(&ball, &at(Vec3::ZERO), Vec3::Z, -1.0, None)
        .is_none());
    assert!(w
        .cast_shape(&ball, &at(Vec3::ZERO), Vec3::Z, f32::NAN, None)
        .is_none());
    assert!(w
        .cast_shape(&Shape::plane(Vec3::Y), &at(Vec3::ZERO), Vec3::Z, 20.0, None)
        .is_none());
}

/// Knuth's MMIX LCG, for repeatable random shapes.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }
    fn shape(&mut self) -> Shape {
        match (self.unit() * 4.0) as u32 {
            0 => Shape::sphere(self.range(0.2, 1.0)),
            1 => Shape::cuboid(self.vec3(0.2, 1.0)),
            2 => Shape::capsule(self.range(0.1, 0.8), self.range(0.1, 0.6)),
            _ => {
                // A pyramid: a square base of half side b, apex h above it.
                let (b, h) = (self.range(0.3, 1.0), self.range(0.4, 1.5));
                let mut points = vec![Vec3::new(0.0, h, 0.0)];
                for (x, z) in [(-b, -b), (b, -b), (b, b), (-b, b)] {
                    points.push(Vec3::new(x, 0.0, z));
                }
                Shape::convex_hull(&points).expect("a solid pyramid")
            }
        }
    }
    fn rotation(&mut self) -> Quat {
        Quat::from_xyzw(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        )
        .normalize()
    }
}

#[test]
fn random_casts_stop_where_gjk_says_the_shapes_just_touch() {
    // Reference: GJK distance. At the reported distance the gap is (nearly) zero; 1 cm
    // earlier it is positive, so no earlier contact was skipped. Casts that miss are checked
    // by sampling the path every 2 cm: the shapes never touch.
    let mut rng = Lcg(42);
    let mut hits = 0;
    for _ in 0..200 {
        let mut w = world();
        let target_shape = rng.shape();
        let target_pose = Isometry::new(rng.vec3(-1.0, 1.0), rng.rotation());
        fixed(
            &mut w,
            target_pose.translation,
            target_pose.rotation,
            target_shape.clone(),
        );
        let moving = rng.shape();
        let rotation = rng.rotation();
        let start = rng.vec3(-1.0, 1.0).normalize() * 5.0;
        // Aim near the target, off by up to 1.5 m.
        let dir = (rng.vec3(-1.5, 1.5) - start).normalize();
        let gap = |t: f32| {
            let pose = Isometry::new(start + dir * t, rotation);
            gjk_distance(&moving, &target_shape, &pose.inv_mul(&target_pose)).distance
        };
        match w.cast_shape(&moving, &Isometry::new(start, rotation), dir, 12.0, None) {
            Some(hit) => {
                hits += 1;
                assert!(
                    gap(hit.distance) < 2e-4,
                    "gap {} at the hit",
                    gap(hit.distance)
                );
                if hit.distance > 0.01 {
                    assert!(gap(hit.distance - 0.01) > 0.0, "touched earlier");
                }
                assert!((hit.normal.length() - 1.0).abs() < 1e-4);
                assert!(hit.normal.dot(dir) <= 1e-3, "the normal faces the motion");
            }
            None => {
                for i in 0..=600 {
                    assert!(
                        gap(i as f32 * 0.02) > 0.0,
                        "missed a contact at {}",
                        i as f32 * 0.02
                    );
                }
            }
        }
    }
    assert!(hits > 50 && hits < 200, "a mix of hits and misses: {hits}");
}

#[test]
fn a_grazing_cast_still_finds_the_wall() {
    let mut w = world();
    // A wall 100 m long whose face is the plane x = 0.5 (a box centred at x = 1).
    fixed(
        &mut w,
        Vec3::new(1.0, 0.0, 0.0),
        Quat::IDENTITY,
        Shape::cuboid(Vec3::new(0.5, 1.0, 50.0)),
    );
    // A ball r = 0.1 at the origin moving 1° off the wall's direction: its surface reaches
    // x = 0.5 after (0.5 − 0.1) / sin 1° = 22.92 m.
    let angle = 1.0f32.to_radians();
    let dir = Vec3::new(angle.sin(), 0.0, angle.cos());
    let hit = w
        .cast_shape(&Shape::sphere(0.1), &at(Vec3::ZERO), dir, 40.0, None)
        .expect("hits at a grazing angle");
    let expected = 0.4 / angle.sin();
    assert!(
        (hit.distance - expected).abs() < 2e-3,
        "{} vs {expected}",
        hit.distance
    );
    assert!(close(hit.normal, -Vec3::X, 1e-3));
}

/// An upright capsule (half height 0.5, radius 0.3) standing on the origin's floor level.
fn capsule() -> Shape {
    Shape::capsule(0.5, 0.3)
}

#[test]
fn sliding_keeps_the_motion_along_a_wall_and_stops_in_a_corner() {
    use impulse::physics::shape_cast::SLIDE_SKIN;
    let mut w = world();
    // A wall whose face is the plane x = 2.
    let wall = Shape::cuboid(Vec3::new(0.5, 2.0, 10.0));
    fixed(
        &mut w,
        Vec3::new(2.5, 1.0, 0.0),
        Quat::IDENTITY,
        wall.clone(),
    );
    let start = at(Vec3::new(0.0, 1.0, 0.0));
    // Moving (3, 0, 3): the capsule reaches the wall at x = 2 − 0.3, stops SLIDE_SKIN from
    // it (x = 1.7 − SLIDE_SKIN), and the rest of the move keeps its z part only: z = 3.
    let moved = w.slide_shape(&capsule(), &start, Vec3::new(3.0, 0.0, 3.0), None, 4);
    let x = 1.7 - SLIDE_SKIN;
    assert!((moved.x - x).abs() < 1e-3, "{moved:?}");
    assert!((moved.z - 3.0).abs() < 1e-3, "{moved:?}");
    assert!(moved.y.abs() < 1e-6);
    // Moving away from the wall or along it is not changed.
    let free = w.slide_shape(&capsule(), &start, Vec3::new(-1.0, 0.0, 2.0), None, 4);
    assert!(close(free, Vec3::new(-1.0, 0.0, 2.0), 1e-6));
    // A second wall, face z = 2: the corner stops both parts of the move.
    fixed(
        &mut w,
        Vec3::new(0.0, 1.0, 2.5),
        Quat::IDENTITY,
        Shape::cuboid(Vec3::new(10.0, 2.0, 0.5)),
    );
    let cornered = w.slide_shape(&capsule(), &start, Vec3::new(3.0, 0.0, 3.0), None, 4);
    for c in [cornered.x, cornered.z] {
        assert!((1.69..=1.7).contains(&c), "{cornered:?}");
    }
}

#[test]
fn sliding_ignores_dynamic_bodies_and_the_floor_it_glides_over() {
    let mut w = world();
    // A floor plane 5 mm under the capsule's bottom and a dynamic crate in its way: neither
    // stops a horizontal move (the crate is pushed by the moving body's contacts instead).
    fixed(&mut w, Vec3::ZERO, Quat::IDENTITY, Shape::plane(Vec3::Y));
    let crate_body = w.create_body(BodyDef {
        position: Vec3::new(1.5, 0.5, 0.0),
        ..BodyDef::default()
    });
    w.add_collider(
        crate_body,
        ColliderDef::new(Shape::cuboid(Vec3::splat(0.5))),
    )
    .unwrap();
    let start = at(Vec3::new(0.0, 0.805, 0.0));
    let moved = w.slide_shape(&capsule(), &start, Vec3::new(3.0, 0.0, 0.0), None, 4);
    assert!(close(moved, Vec3::new(3.0, 0.0, 0.0), 1e-6), "{moved:?}");
    // Pressing down into the floor, already SLIDE_SKIN above it: only the horizontal part
    // of the move is made.
    let down = w.slide_shape(&capsule(), &start, Vec3::new(1.0, -1.0, 0.0), None, 4);
    assert!(close(down, Vec3::X, 1e-4), "{down:?}");
}
