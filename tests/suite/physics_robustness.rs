//! Regressions from the engine review: slow kinematic bodies, spinning bodies and thin
//! walls, near-parallel boxes, bad input, events after removal, tiny bodies.

use crate::common;

use common::*;
use impulse::physics::narrow_phase::{collide, Scratch};
use impulse::physics::{BodyDef, BodyType, ColliderDef, Isometry, Quat, Shape, Vec3, World};

#[test]
fn slow_kinematic_platform_keeps_moving_and_carries_its_rider() {
    // x(t) = v·t for a kinematic body: 0.03 m/s for 2 s is 0.06 m, below the sleep tolerance.
    let mut world = World::default();
    let platform = world.create_body(BodyDef::kinematic(Vec3::ZERO, Vec3::new(0.03, 0.0, 0.0)));
    world
        .add_collider(
            platform,
            ColliderDef::new(Shape::cuboid(Vec3::new(2.0, 0.1, 2.0))),
        )
        .unwrap();
    let rider = dynamic(
        &mut world,
        Shape::cuboid(Vec3::splat(0.25)),
        Vec3::new(0.0, 0.35, 0.0),
        Quat::IDENTITY,
        0.8,
    );
    run(&mut world, 120);
    let p = world.body(platform).unwrap();
    assert!(
        (p.position().x - 0.06).abs() < 1e-4,
        "platform at {}",
        p.position().x
    );
    assert!(p.is_awake());
    let r = world.body(rider).unwrap();
    assert!(
        r.is_awake(),
        "a body carried by a moving platform must not sleep"
    );
    assert!(
        (r.position().x - 0.06).abs() < 0.01,
        "rider at {}",
        r.position().x
    );
}

#[test]
fn spinning_plank_does_not_pass_through_a_thin_slab() {
    // A 4 m plank spinning at 30 rad/s about its centre 1.9 m above a 0.1 m slab: its tips
    // sweep down to 1.9 − 2 = −0.1 m and move at 60 m/s, 1 m per step, ten times the slab's
    // thickness. The speculative margin includes ω × reach, so a tip is caught on the slab's
    // top face instead of being first seen inside or below it.
    let mut world = World::new(impulse::physics::WorldSettings {
        gravity: Vec3::ZERO,
        ..Default::default()
    });
    let slab = world.create_body(BodyDef::static_body(Vec3::ZERO));
    world
        .add_collider(
            slab,
            ColliderDef::new(Shape::cuboid(Vec3::new(5.0, 0.05, 5.0))),
        )
        .unwrap();
    let plank = world.create_body(BodyDef {
        position: Vec3::new(0.0, 1.9, 0.0),
        angular_velocity: Vec3::new(0.0, 0.0, 30.0),
        ..BodyDef::default()
    });
    world
        .add_collider(
            plank,
            ColliderDef::new(Shape::cuboid(Vec3::new(2.0, 0.05, 0.1))),
        )
        .unwrap();
    let mut touched = false;
    for _ in 0..60 {
        world.step(DT);
        touched |= !world.contact_events().begin.is_empty();
        let b = world.body(plank).unwrap();
        // Lowest corner of the plank: no deeper than a few cm into the slab's top (y = 0.05).
        let lowest = (0..8)
            .map(|k| {
                let local = Vec3::new(
                    if k & 1 == 0 { -2.0 } else { 2.0 },
                    if k & 2 == 0 { -0.05 } else { 0.05 },
                    if k & 4 == 0 { -0.1 } else { 0.1 },
                );
                (b.position() + b.rotation() * local).y
            })
            .fold(f32::MAX, f32::min);
        assert!(
            lowest > 0.0,
            "a corner went {lowest} m deep (slab top at 0.05)"
        );
    }
    assert!(touched, "the plank never touched the slab");
}

#[test]
fn nearly_parallel_boxes_get_a_face_manifold() {
    // A cube 1 mm into another, turned by tiny yaws: always the four-point face contact.
    let cube = Shape::cuboid(Vec3::splat(0.5));
    let mut scratch = Scratch::default();
    for k in 0..200 {
        let yaw = 1e-5 * (1.05f32).powi(k);
        let pb = Isometry::new(Vec3::new(0.0, 0.999, 0.0), Quat::from_rotation_y(yaw));
        let m = collide(&cube, &Isometry::IDENTITY, &cube, &pb, 0.0, &mut scratch);
        assert_eq!(m.count, 4, "yaw {yaw}: {} points", m.count);
    }
}

#[test]
fn bad_values_never_spread_nan() {
    let mut world = World::default();
    ground(&mut world, 0.6, 0.0);
    let good = dynamic(
        &mut world,
        Shape::cuboid(Vec3::splat(0.5)),
        Vec3::new(0.0, 0.5, 0.0),
        Quat::IDENTITY,
        0.6,
    );
    // A definition full of NaN: sanitized, never NaN.
    let def = BodyDef {
        position: Vec3::new(0.2, 1.5, 0.0),
        rotation: Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        linear_velocity: Vec3::new(f32::NAN, 0.0, 0.0),
        angular_velocity: Vec3::splat(f32::INFINITY),
        linear_damping: f32::NAN,
        gravity_scale: f32::NAN,
        ..BodyDef::default()
    };
    assert!(def.validate().is_err());
    let bad = world.create_body(def);
    world
        .add_collider(bad, ColliderDef::new(Shape::cuboid(Vec3::splat(0.5))))
        .unwrap();
    // Overflowing forces and absurd sizes.
    world.apply_force(good, Vec3::splat(3e38)).unwrap();
    world.apply_force(good, Vec3::splat(3e38)).unwrap();
    assert!(world
        .add_collider(bad, ColliderDef::new(Shape::cuboid(Vec3::splat(1e19))))
        .is_err());
    assert!(world
        .add_collider(
            bad,
            ColliderDef::new(Shape::sphere(1.0))
                .with_local_pose(Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0))
        )
        .is_err());
    run(&mut world, 120);
    for (_, b) in world.bodies() {
        assert!(
            b.position().is_finite() && b.linear_velocity().is_finite() && b.rotation().is_finite()
        );
    }
}

#[test]
fn a_plane_normal_of_any_length_is_made_unit() {
    // A sphere resting on a plane given as normal 3·Y must stay resting (the plane's
    // separation is n·x, so an unnormalised n would triple every depth).
    let mut world = World::default();
    let ground = world.create_body(BodyDef::static_body(Vec3::ZERO));
    world
        .add_collider(
            ground,
            ColliderDef::new(Shape::Plane {
                normal: Vec3::new(0.0, 3.0, 0.0),
            }),
        )
        .unwrap();
    let ball = dynamic(
        &mut world,
        Shape::sphere(0.5),
        Vec3::new(0.0, 0.5, 0.0),
        Quat::IDENTITY,
        0.6,
    );
    run(&mut world, 120);
    assert!((world.body(ball).unwrap().position().y - 0.5).abs() < 0.01);
}

#[test]
fn removing_a_touching_body_reports_an_end_event_next_step() {
    let mut world = World::default();
    ground(&mut world, 0.6, 0.0);
    let ball = dynamic(
        &mut world,
        Shape::sphere(0.5),
        Vec3::new(0.0, 0.5, 0.0),
        Quat::IDENTITY,
        0.6,
    );
    run(&mut world, 10);
    assert!(world.contacts().any(|c| c.is_touching()));
    world.remove_body(ball).unwrap();
    world.step(DT);
    let end = &world.contact_events().end;
    assert_eq!(end.len(), 1);
    // Its handles are stale: they find nothing.
    assert!(world.body(end[0].body_a).is_none() || world.body(end[0].body_b).is_none());
    world.step(DT);
    assert!(world.contact_events().end.is_empty());
}

#[test]
fn tiny_and_heavy_bodies_keep_their_inertia() {
    // A 3 cm ball (I = 2/5·m·r² ≈ 4e-8 kg·m²): an off-centre impulse P at arm d spins it at
    // ω = P·d / I. The inverse inertia must not be cut off by an absolute threshold.
    let mut world = World::new(impulse::physics::WorldSettings {
        gravity: Vec3::ZERO,
        ..Default::default()
    });
    let r = 0.03;
    let ball = dynamic(
        &mut world,
        Shape::sphere(r),
        Vec3::ZERO,
        Quat::IDENTITY,
        0.5,
    );
    let b = world.body(ball).unwrap();
    let inertia = 0.4 * b.mass() * r * r;
    let impulse = 1e-6;
    world
        .apply_impulse_at_point(ball, Vec3::new(impulse, 0.0, 0.0), Vec3::new(0.0, r, 0.0))
        .unwrap();
    let w = world.body(ball).unwrap().angular_velocity();
    let expected = impulse * r / inertia;
    assert!(
        (w.z.abs() - expected).abs() < 1e-3 * expected,
        "ω = {w}, expected {expected}"
    );
    assert_eq!(world.body(ball).unwrap().body_type(), BodyType::Dynamic);
}
