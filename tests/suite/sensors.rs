//! Sensors and events: a sensor detects overlaps and never pushes; contact begin events carry
//! the approach speed; every begin has its end.

use crate::common;

use common::*;
use impulse::physics::{
    BodyDef, BodyHandle, BodyType, ColliderDef, Quat, Shape, Vec3, World, WorldSettings,
};

const G: f32 = 9.81;

fn world() -> World {
    World::new(WorldSettings {
        enable_sleeping: false,
        ..WorldSettings::default()
    })
}

/// A static sensor box centred at `centre`.
fn sensor_box(world: &mut World, centre: Vec3, half: Vec3) -> BodyHandle {
    let body = world.create_body(BodyDef {
        body_type: BodyType::Static,
        position: centre,
        ..BodyDef::default()
    });
    world
        .add_collider(
            body,
            ColliderDef::new(Shape::cuboid(half)).with_sensor(true),
        )
        .expect("sensor");
    body
}

/// Per step: (ball height, ball vertical velocity, sensor begins, sensor ends).
fn fall(world: &mut World, ball: BodyHandle, steps: usize) -> Vec<(f32, f32, usize, usize)> {
    (0..steps)
        .map(|_| {
            world.step(DT);
            let b = world.body(ball).expect("ball");
            let e = world.contact_events();
            (
                b.position().y,
                b.linear_velocity().y,
                e.sensor_begin.len(),
                e.sensor_end.len(),
            )
        })
        .collect()
}

#[test]
fn a_ball_falls_through_a_sensor_at_free_fall_speed_and_is_reported_entering_and_leaving() {
    // A ball of radius 0.25 dropped from rest at y = 10 through a sensor box spanning
    // y ∈ [4, 6]. Free fall: v(t) = −g·t; with the semi-implicit sub-steps (h = dt/4) the
    // height after N sub-steps is y₀ − g·h²·N(N+1)/2. The sensor must change neither.
    let mut w = world();
    let sensor = sensor_box(&mut w, Vec3::new(0.0, 5.0, 0.0), Vec3::new(1.0, 1.0, 1.0));
    let r = 0.25;
    let ball = dynamic(
        &mut w,
        Shape::sphere(r),
        Vec3::new(0.0, 10.0, 0.0),
        Quat::IDENTITY,
        0.5,
    );
    let mut free = world();
    let free_ball = dynamic(
        &mut free,
        Shape::sphere(r),
        Vec3::new(0.0, 10.0, 0.0),
        Quat::IDENTITY,
        0.5,
    );
    let steps = 100; // 1.67 s: the ball ends near y = −3.6, well below the sensor
    let record = fall(&mut w, ball, steps);
    let reference = fall(&mut free, free_ball, steps);
    let h = DT / 4.0;
    for (n, (&(y, v, _, _), &(y_free, v_free, _, _))) in record.iter().zip(&reference).enumerate() {
        // Bit for bit what the same ball does with no sensor in the world.
        assert_eq!((y, v), (y_free, v_free), "step {}", n + 1);
        let t = (n + 1) as f32 * DT;
        assert!(
            (v + G * t).abs() < 1e-3,
            "step {}: v {v}, −g·t {}",
            n + 1,
            -G * t
        );
        let substeps = 4.0 * (n + 1) as f32;
        let expected = 10.0 - G * h * h * substeps * (substeps + 1.0) / 2.0;
        assert!(
            (y - expected).abs() < 1e-3,
            "step {}: y {y}, formula {expected}",
            n + 1
        );
    }
    // One begin, at the first step whose ball reaches below the sensor's top (y − r < 6),
    // one end, at the first step whose ball is entirely below its bottom (y + r < 4).
    let begins: Vec<usize> = (0..steps).filter(|&n| record[n].2 > 0).collect();
    let ends: Vec<usize> = (0..steps).filter(|&n| record[n].3 > 0).collect();
    let first_in = (0..steps).find(|&n| record[n].0 - r < 6.0).expect("enters");
    let first_out = (0..steps).find(|&n| record[n].0 + r < 4.0).expect("leaves");
    // The narrow phase sees the positions at the start of a step: the overlap found in step
    // n + 1 is that of the positions after step n.
    assert_eq!(begins, vec![first_in + 1], "sensor begin");
    assert_eq!(ends, vec![first_out + 1], "sensor end");
    // No contact events, and the pair is the sensor's.
    let _ = sensor;
}

#[test]
fn sensor_events_name_the_pair_and_two_sensors_ignore_each_other() {
    let mut w = world();
    let sensor = sensor_box(&mut w, Vec3::new(0.0, 5.0, 0.0), Vec3::splat(1.0));
    // A dynamic sensor ball falling through: sensors do not detect sensors.
    let ghost = w.create_body(BodyDef {
        position: Vec3::new(0.0, 8.0, 0.0),
        ..BodyDef::default()
    });
    w.add_collider(
        ghost,
        ColliderDef::new(Shape::sphere(0.3)).with_sensor(true),
    )
    .unwrap();
    let ball = dynamic(
        &mut w,
        Shape::sphere(0.3),
        Vec3::new(0.0, 8.0, 0.0),
        Quat::IDENTITY,
        0.5,
    );
    // The ghost and the ball overlap all the way down: a sensor and a solid body.
    let mut pairs = Vec::new();
    let mut contact_begins = 0;
    for _ in 0..90 {
        w.step(DT);
        let e = w.contact_events();
        contact_begins += e.begin.len();
        for p in &e.sensor_begin {
            pairs.push(("begin", p.body_a, p.body_b));
        }
        for p in &e.sensor_end {
            pairs.push(("end", p.body_a, p.body_b));
        }
    }
    let has = |kind: &str, x: BodyHandle, y: BodyHandle| {
        pairs
            .iter()
            .filter(|(k, a, b)| *k == kind && ((*a == x && *b == y) || (*a == y && *b == x)))
            .count()
    };
    // The ghost overlaps the ball from the first step on, and never leaves it (both fall
    // alike); the ball enters and leaves the static sensor; the two sensors never meet.
    assert_eq!(has("begin", ghost, ball), 1, "{pairs:?}");
    assert_eq!(has("end", ghost, ball), 0, "{pairs:?}");
    assert_eq!(has("begin", ball, sensor), 1, "{pairs:?}");
    assert_eq!(has("end", ball, sensor), 1, "{pairs:?}");
    assert_eq!(has("begin", ghost, sensor), 0, "{pairs:?}");
    // Nothing pushed anything: no contact began.
    assert_eq!(contact_begins, 0);
    // Removing the ball ends its overlap with the ghost in the next step's events.
    assert!(w.remove_body(ball).is_ok());
    w.step(DT);
    let ends = &w.contact_events().sensor_end;
    assert_eq!(ends.len(), 1);
    assert!(ends[0].body_a == ghost || ends[0].body_b == ghost);
}

#[test]
fn a_contact_begins_with_the_speed_it_hits_at() {
    // A ball dropped from rest at y = 3 onto the ground: the contact begins when it comes
    // within the speculative margin, with the approach speed of the ball then, −v_y at the
    // end of the step before (the narrow phase runs before the step's integration). That is
    // about √(2·g·2.5) ≈ 7.0 m/s for the 2.5 m it fell.
    let mut w = world();
    ground(&mut w, 0.5, 0.0);
    let ball = dynamic(
        &mut w,
        Shape::sphere(0.5),
        Vec3::new(0.0, 3.0, 0.0),
        Quat::IDENTITY,
        0.5,
    );
    let mut previous_v = 0.0;
    let mut begins = Vec::new();
    for _ in 0..120 {
        w.step(DT);
        for b in &w.contact_events().begin {
            begins.push((b.approach_speed, previous_v));
        }
        previous_v = w.body(ball).unwrap().linear_velocity().y;
    }
    assert_eq!(begins.len(), 1, "{begins:?}");
    let (speed, v) = begins[0];
    assert!((speed + v).abs() < 1e-5, "approach {speed}, ball {v}");
    let drop = (2.0 * G * 2.5f32).sqrt();
    assert!(
        (speed - drop).abs() < 0.3,
        "approach {speed}, √(2gh) {drop}"
    );
}

#[test]
fn a_sensor_survives_save_and_load() {
    let text = r#"Scene(bodies: [
        (name: "zone", kind: Static, colliders: [(shape: Cuboid(half_extents: (1.0, 1.0, 1.0)), sensor: true)]),
        (name: "ball", position: (0.0, 5.0, 0.0), colliders: [(shape: Sphere(radius: 0.5))]),
    ])"#;
    let scene = impulse::scene::load_str(text, "inline.ron").expect("loads");
    let sensors = |w: &World| w.colliders().filter(|(_, c)| c.is_sensor()).count();
    assert_eq!(sensors(&scene.world), 1);
    let saved = impulse::scene::save::save(
        &scene.world,
        &scene.meta,
        &scene.camera,
        scene.timestep,
        "saved",
    )
    .expect("saves");
    assert!(saved.contains("sensor: true"), "{saved}");
    let again = impulse::scene::load_str(&saved, "saved.ron").expect("loads again");
    assert_eq!(sensors(&again.world), 1);
}

/// A kinematic box 0.5 m wide moved at 2 m/s through a static sensor 1 m wide (a player
/// walking through a coin): the boxes first overlap after (4 − 0.5 − 0.25)/2 = 1.625 s and
/// last overlap 1.5 m later, 0.75 s on. The narrow phase sees the overlap at the start of
/// the step after the move that made it, so each event comes at most two steps late; two
/// static bodies never make a pair.
#[test]
fn a_kinematic_body_walking_through_a_static_sensor_enters_and_leaves_it() {
    let mut w = world();
    sensor_box(&mut w, Vec3::new(4.0, 0.5, 0.0), Vec3::splat(0.5));
    // A static body inside the sensor from the start: never an event.
    let rock = w.create_body(BodyDef {
        body_type: BodyType::Static,
        position: Vec3::new(4.0, 0.5, 0.0),
        ..BodyDef::default()
    });
    w.add_collider(rock, ColliderDef::new(Shape::sphere(0.1)))
        .unwrap();
    let player = w.create_body(BodyDef::kinematic(
        Vec3::new(0.0, 0.5, 0.0),
        Vec3::new(2.0, 0.0, 0.0),
    ));
    w.add_collider(player, ColliderDef::new(Shape::cuboid(Vec3::splat(0.25))))
        .unwrap();
    let (mut entered, mut left) = (None, None);
    for step in 1..=240 {
        w.step(DT);
        let events = w.contact_events();
        for e in &events.sensor_begin {
            assert!(e.body_a == player || e.body_b == player, "{e:?}");
            entered.get_or_insert(step as f32 * DT);
        }
        for e in &events.sensor_end {
            assert!(e.body_a == player || e.body_b == player, "{e:?}");
            left.get_or_insert(step as f32 * DT);
        }
    }
    let (entered, left) = (entered.expect("never entered"), left.expect("never left"));
    assert!(
        (1.625..=1.625 + 2.0 * DT).contains(&entered),
        "entered at {entered} s"
    );
    assert!(
        (left - entered - 0.75).abs() <= 2.0 * DT,
        "left at {left} s"
    );
}
