//! Nothing non-finite ever leaves a step: thin and long bodies that overflow f32 in the
//! solver, and forces summed past f32's range, are stopped and reported, never spread.

use impulse::physics::{BodyDef, BodyType, ColliderDef, Shape, Vec3, World, WorldSettings};
use impulse::scene;

/// Steps a scene and checks after every step that every body is finite.
fn stays_finite(name: &str, text: &str, steps: usize) {
    let mut scene = scene::load_str(text, name).expect("scene loads");
    for step in 1..=steps {
        scene.world.step(scene.timestep);
        for (_, b) in scene.world.bodies() {
            let finite = b.position().is_finite()
                && b.rotation().is_finite()
                && b.linear_velocity().is_finite()
                && b.angular_velocity().is_finite();
            assert!(finite, "{name}: a body is not finite after step {step}");
        }
    }
}

#[test]
fn a_blade_thin_plank_in_the_card_house_stays_finite() {
    // The middle floor card made a blade 1.4 m × 4 cm × 2 mm (half extents 0.7, 0.02,
    // 0.001): its inertia about its long axis is ~10⁻⁸ kg·m², and the solve went NaN for
    // every body within 20 steps.
    let text = include_str!("../../scenes/card_house.ron");
    let original = "half_extents: (1.2, 0.02, 0.4)";
    assert!(text.contains(original));
    let text = text.replacen(original, "half_extents: (0.7, 0.02, 0.001)", 1);
    stays_finite("card_house (blade)", &text, 600);
}

#[test]
fn capsules_two_hundred_metres_long_in_the_funnel_stay_finite() {
    // Every capsule in the funnel given half_height 100: NaN at step 26 before.
    let text = include_str!("../../scenes/funnel.ron");
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("half_height: ") {
        let (head, tail) = rest.split_at(i + "half_height: ".len());
        out.push_str(head);
        out.push_str("100.0");
        let end = tail
            .find(|c: char| c != '.' && !c.is_ascii_digit())
            .unwrap();
        rest = &tail[end..];
    }
    out.push_str(rest);
    assert!(out.contains("half_height: 100.0"));
    // One layer of them: a grid whose bodies start inside each other is refused now.
    let layers = "counts: (4, 2, 4), spacing: (0.9, 1.0, 0.9)";
    assert!(out.contains(layers));
    let out = out.replacen(layers, "counts: (4, 1, 4), spacing: (0.9, 1.0, 0.9)", 1);
    stays_finite("funnel (long capsules)", &out, 600);
}

#[test]
fn an_overflowing_force_freezes_that_body_alone() {
    // Body A gets f32::MAX twice (each finite, so apply_force accepts it; the sum is +∞).
    // A must be frozen where it was and reported; B, resting on the ground elsewhere, must
    // move exactly as in the same world without the force.
    let build = || {
        let mut world = World::new(WorldSettings {
            enable_sleeping: false,
            ..WorldSettings::default()
        });
        let ground = world.create_body(BodyDef::static_body(Vec3::ZERO));
        world
            .add_collider(ground, ColliderDef::new(Shape::plane(Vec3::Y)))
            .unwrap();
        let mut cube = |x: f32| {
            let b = world.create_body(BodyDef::dynamic(Vec3::new(x, 0.5, 0.0)));
            world
                .add_collider(b, ColliderDef::new(Shape::cuboid(Vec3::splat(0.5))))
                .unwrap();
            b
        };
        let (a, b) = (cube(0.0), cube(3.0));
        (world, a, b)
    };
    let (mut world, a, b) = build();
    let (mut reference, _, b_ref) = build();
    for _ in 0..30 {
        world.step(1.0 / 60.0);
        reference.step(1.0 / 60.0);
    }
    let a_before = world.body(a).unwrap().position();
    assert!(world.apply_force(a, Vec3::new(f32::MAX, 0.0, 0.0)).is_ok());
    assert!(world.apply_force(a, Vec3::new(f32::MAX, 0.0, 0.0)).is_ok());
    world.step(1.0 / 60.0);
    reference.step(1.0 / 60.0);
    assert_eq!(world.frozen_bodies(), &[a]);
    assert_eq!(world.counters().newly_frozen, 1);
    assert_eq!(world.counters().frozen_bodies, 1);
    let frozen = world.body(a).unwrap();
    assert!(frozen.is_frozen());
    assert_eq!(frozen.position(), a_before);
    assert_eq!(frozen.linear_velocity(), Vec3::ZERO);
    for _ in 0..60 {
        world.step(1.0 / 60.0);
        reference.step(1.0 / 60.0);
    }
    // Reported once, still frozen, and B untouched (bit for bit).
    assert!(world.frozen_bodies().is_empty());
    assert_eq!(world.counters().frozen_bodies, 1);
    assert_eq!(world.body(a).unwrap().position(), a_before);
    let (pb, pr) = (world.body(b).unwrap(), reference.body(b_ref).unwrap());
    assert_eq!(pb.position(), pr.position());
    assert_eq!(pb.rotation(), pr.rotation());
    // Placing it again releases it.
    world.set_position(a, Vec3::new(0.0, 2.0, 0.0)).unwrap();
    world.step(1.0 / 60.0);
    let released = world.body(a).unwrap();
    assert!(!released.is_frozen());
    // Free fall from rest for one step: v = g·dt.
    assert!((released.linear_velocity().y + 9.81 / 60.0).abs() < 1e-4);
}

#[test]
fn a_kinematic_body_spun_past_f32_is_counted_frozen_once() {
    // A kinematic body told, before each step, to turn at 3·10³⁸ rad/s about every axis
    // (finite, so accepted): its rotation over a step overflows, so it is frozen, and
    // frozen again. The counters count it once, step after step (the step recounts frozen
    // bodies whenever it reports one).
    let mut world = World::default();
    let spinner = world.create_body(BodyDef {
        body_type: BodyType::Kinematic,
        ..BodyDef::default()
    });
    world
        .add_collider(spinner, ColliderDef::new(Shape::cuboid(Vec3::splat(0.5))))
        .unwrap();
    for step in 0..3 {
        world
            .set_angular_velocity(spinner, Vec3::splat(3.0e38))
            .unwrap();
        world.step(1.0 / 60.0);
        assert!(world.body(spinner).unwrap().is_frozen(), "step {step}");
        assert_eq!(world.counters().frozen_bodies, 1, "step {step}");
    }
}

#[test]
fn overflowing_forces_across_many_bodies_freeze_those_alone_in_slot_order() {
    // 2 600 free spheres (their slots span three of the blocks the solver indices are given
    // out in), three of them, in three blocks, handed f32::MAX twice: those three are frozen
    // and reported in slot order, the rest fall as in the same world without the forces,
    // and every worker count gives the same bits.
    let run = |workers: usize| {
        let mut world = World::new(WorldSettings {
            enable_sleeping: false,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            ..WorldSettings::default()
        });
        world.set_workers(workers).unwrap();
        let bodies: Vec<_> = (0..2600)
            .map(|i| {
                let at = Vec3::new((i % 52) as f32 * 2.0, 10.0 + (i / 52) as f32 * 2.0, 0.0);
                let b = world.create_body(BodyDef::dynamic(at));
                world
                    .add_collider(b, ColliderDef::new(Shape::sphere(0.4)))
                    .unwrap();
                b
            })
            .collect();
        world.step(1.0 / 60.0);
        let hit = [bodies[2300], bodies[10], bodies[1500]];
        for &b in &hit {
            world.apply_force(b, Vec3::new(0.0, f32::MAX, 0.0)).unwrap();
            world.apply_force(b, Vec3::new(0.0, f32::MAX, 0.0)).unwrap();
        }
        world.step(1.0 / 60.0);
        let reported = world.frozen_bodies().to_vec();
        let state: Vec<(Vec3, Vec3)> = bodies
            .iter()
            .map(|&b| {
                let body = world.body(b).unwrap();
                (body.position(), body.linear_velocity())
            })
            .collect();
        (reported, state, [bodies[10], bodies[1500], bodies[2300]])
    };
    let (reported, state, in_slot_order) = run(1);
    assert_eq!(reported, in_slot_order);
    for (i, (position, velocity)) in state.iter().enumerate() {
        if [10, 1500, 2300].contains(&i) {
            // Frozen where the first step left it.
            assert_eq!(*velocity, Vec3::ZERO, "body {i}");
        } else {
            // Two steps of free fall from rest: v = 2·g·dt (sub-stepped, so to rounding).
            assert!(
                (velocity.y + 2.0 * 9.81 / 60.0).abs() < 1e-4,
                "body {i}: {velocity}"
            );
            assert!(position.is_finite());
        }
    }
    for workers in [2, 3] {
        let (other_reported, other_state, _) = run(workers);
        assert_eq!(other_reported, reported, "{workers} workers");
        assert_eq!(other_state, state, "{workers} workers");
    }
}
