//! Locked axes and the planar mode: a planar pile keeps every body's z and its rotation's x
//! and y components bit for bit while it still piles up; a body that may not turn lands on
//! its edge and stays there at the height the geometry gives; a body that may not move along
//! x falls straight down on the free-fall formula; the scene fields round-trip.

use crate::common;

use common::*;
use impulse::physics::{
    BodyDef, ColliderDef, JointDef, Locks, Quat, Shape, Vec3, World, WorldSettings,
};

const G: f32 = 9.81;

fn world(planar: bool) -> World {
    World::new(WorldSettings {
        planar,
        enable_sleeping: false,
        ..WorldSettings::default()
    })
}

/// A pyramid hull: a square base of half side `b`, apex `h` above it.
fn pyramid(b: f32, h: f32) -> Shape {
    let mut points = vec![Vec3::new(0.0, h, 0.0)];
    for (x, z) in [(-b, -b), (b, -b), (b, b), (-b, b)] {
        points.push(Vec3::new(x, 0.0, z));
    }
    Shape::convex_hull(&points).unwrap()
}

#[test]
fn a_planar_pile_keeps_z_and_the_tilt_components_bit_for_bit() {
    let mut w = world(true);
    ground(&mut w, 0.6, 0.0);
    // 48 bodies of four shapes in the plane z = 0.25, turned about z only, thrown sideways
    // and spun about every axis (the planar mode must take out what it may not keep).
    let mut bodies = Vec::new();
    for i in 0..48 {
        let shape = match i % 4 {
            0 => Shape::cuboid(Vec3::new(0.4, 0.25, 0.3)),
            1 => Shape::sphere(0.3),
            2 => Shape::capsule(0.3, 0.2),
            _ => pyramid(0.35, 0.6),
        };
        let x = (i % 8) as f32 * 0.9 - 3.15;
        let y = 1.0 + (i / 8) as f32 * 1.0;
        let rotation = Quat::from_rotation_z(0.3 * i as f32);
        let body = dynamic(&mut w, shape, Vec3::new(x, y, 0.25), rotation, 0.5);
        w.set_linear_velocity(body, Vec3::new((i % 3) as f32 - 1.0, 0.0, 2.0))
            .unwrap();
        w.set_angular_velocity(body, Vec3::new(3.0, -2.0, 1.0))
            .unwrap();
        bodies.push(body);
    }
    let start: Vec<(u32, u32, u32, Vec3)> = bodies
        .iter()
        .map(|&b| {
            let body = w.body(b).unwrap();
            let q = body.rotation();
            (
                body.position().z.to_bits(),
                q.x.to_bits(),
                q.y.to_bits(),
                body.position(),
            )
        })
        .collect();
    for step in 0..600 {
        w.step(DT);
        for (&b, &(z, qx, qy, _)) in bodies.iter().zip(&start) {
            let body = w.body(b).unwrap();
            let (p, q) = (body.position(), body.rotation());
            assert_eq!(p.z.to_bits(), z, "step {step}: z moved to {}", p.z);
            assert_eq!(q.x.to_bits(), qx, "step {step}: tilted about x");
            assert_eq!(q.y.to_bits(), qy, "step {step}: tilted about y");
            let (v, spin) = (body.linear_velocity(), body.angular_velocity());
            assert!(v.z == 0.0 && spin.x == 0.0 && spin.y == 0.0);
        }
    }
    // And it still piled up: every body came down and moved sideways, none sank (a pyramid's
    // origin is the middle of its base, so it may sit a soft contact's depth below 0).
    let moved = bodies
        .iter()
        .zip(&start)
        .filter(|(&b, s)| (w.body(b).unwrap().position().x - s.3.x).abs() > 0.05)
        .count();
    assert!(moved > 24, "only {moved} bodies moved sideways");
    for &b in &bodies {
        let p = w.body(b).unwrap().position();
        assert!(p.y > -0.01 && p.y < 6.0 && p.is_finite(), "{p:?}");
    }
}

#[test]
fn a_cube_that_may_not_turn_rests_on_its_edge() {
    let mut w = world(false);
    ground(&mut w, 0.6, 0.0);
    // A unit cube turned 20° about z with every rotation locked: it lands on its lowest
    // edge and stays turned, its centre 0.5·(cos 20° + sin 20°) = 0.6408 m up.
    let tilt = 20.0f32.to_radians();
    let body = w.create_body(BodyDef {
        position: Vec3::new(0.0, 1.5, 0.0),
        rotation: Quat::from_rotation_z(tilt),
        locked: Locks {
            translation: [false; 3],
            rotation: [true; 3],
        },
        ..BodyDef::default()
    });
    w.add_collider(body, ColliderDef::new(Shape::cuboid(Vec3::splat(0.5))))
        .unwrap();
    let q0 = w.body(body).unwrap().rotation();
    for _ in 0..300 {
        w.step(DT);
    }
    let b = w.body(body).unwrap();
    assert_eq!(b.rotation(), q0, "it turned");
    let rest = 0.5 * (tilt.cos() + tilt.sin());
    assert!(
        (b.position().y - rest).abs() < 2e-3,
        "{} vs {rest}",
        b.position().y
    );
    assert!(b.linear_velocity().length() < 1e-3);
}

#[test]
fn a_body_locked_along_x_falls_straight_down() {
    let mut w = world(false);
    let body = w.create_body(BodyDef {
        position: Vec3::new(1.0, 50.0, 0.0),
        linear_velocity: Vec3::new(5.0, 0.0, 0.0),
        locked: Locks {
            translation: [true, false, false],
            rotation: [false; 3],
        },
        ..BodyDef::default()
    });
    w.add_collider(body, ColliderDef::new(Shape::sphere(0.5)))
        .unwrap();
    let substeps = WorldSettings::default().substeps as f32;
    let h = DT / substeps;
    for k in 1..=60 {
        w.step(DT);
        let b = w.body(body).unwrap();
        assert_eq!(b.position().x.to_bits(), 1.0f32.to_bits());
        // Semi-implicit Euler after N sub-steps: y₀ − g h² N(N+1)/2.
        let n = k as f32 * substeps;
        let y = 50.0 - 0.5 * G * h * h * n * (n + 1.0);
        assert!(
            (b.position().y - y).abs() < 1e-4,
            "{} vs {y}",
            b.position().y
        );
    }
}

/// Two capsules locked about y, tilted so their inertias line up with no world axis,
/// joined by a ball joint and spun about x and z in zero gravity, for a minute: nothing
/// does work on them, so their kinetic energy may only fall (the joint's soft rows damp).
/// Rows solved with the step start's inverse inertia while the bodies turn (not turned
/// with them) would raise it from 0.12 J to 0.30 J.
#[test]
fn locked_bodies_tumbling_on_a_ball_joint_gain_no_energy_in_a_minute() {
    let mut w = World::new(WorldSettings {
        gravity: Vec3::ZERO,
        enable_sleeping: false,
        ..WorldSettings::default()
    });
    let locked = Locks {
        translation: [false; 3],
        rotation: [false, true, false],
    };
    let mut capsule = |at: Vec3, rotation: Quat, spin: Vec3| {
        let body = w.create_body(BodyDef {
            position: at,
            rotation: rotation.normalize(),
            angular_velocity: spin,
            locked,
            ..BodyDef::default()
        });
        w.add_collider(body, ColliderDef::new(Shape::capsule(0.4, 0.1)))
            .unwrap();
        body
    };
    let a = capsule(
        Vec3::new(0.0, 5.0, 0.0),
        Quat::from_xyzw(0.3, 0.2, 0.4, 0.84),
        Vec3::new(6.0, 0.0, 4.0),
    );
    let b = capsule(
        Vec3::new(0.0, 5.0, 1.2),
        Quat::from_xyzw(-0.2, 0.5, 0.1, 0.84),
        Vec3::new(-3.0, 0.0, 7.0),
    );
    w.create_joint(JointDef::spherical(
        &w,
        a,
        Some(b),
        Vec3::new(0.0, 5.0, 0.6),
    ))
    .unwrap();
    let energy = |w: &World| {
        [a, b]
            .iter()
            .map(|&h| w.body(h).unwrap().kinetic_energy())
            .sum::<f32>()
    };
    let start = energy(&w);
    let mut most = start;
    for _ in 0..3600 {
        w.step(DT);
        most = most.max(energy(&w));
    }
    assert!(
        most <= 1.01 * start,
        "the energy rose from {start} J to {most} J"
    );
}

#[test]
fn the_scene_fields_round_trip() {
    use impulse::scene::{load_str, save};
    let text = "Scene(settings: (planar: true), bodies: [(name: \"b\", \
                locked: (rotation: (true, false, false)), colliders: [(shape: Sphere(radius: 1.0))])])";
    let scene = load_str(text, "l.ron").unwrap();
    assert!(scene.world.settings().planar);
    let (_, body) = scene.world.bodies().next().unwrap();
    assert_eq!(body.locked().rotation, [true, false, false]);
    let file = save::to_scene_file(&scene.world, &scene.meta, &scene.camera, scene.timestep);
    let again = load_str(&save::to_ron(&file, "").unwrap(), "again.ron").unwrap();
    assert!(again.world.settings().planar);
    let (_, body) = again.world.bodies().next().unwrap();
    assert_eq!(
        body.locked(),
        Locks {
            translation: [false; 3],
            rotation: [true, false, false],
        }
    );
    let err = load_str(
        "Scene(bodies: [(locked: (spin: (true, true, true)))])",
        "bad.ron",
    )
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("spin"), "{err}");
}
