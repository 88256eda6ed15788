//! Collision filtering: colliders whose category and mask bits refuse each other get no
//! contact, no sensor event and no continuous collision, in every broad phase; a filter
//! changed at run time ends the refused contacts and finds the allowed pairs.

use crate::common;

use common::{ground, DT};
use impulse::physics::{
    BodyDef, BodyHandle, BodyType, BroadPhaseKind, ColliderDef, CollisionFilter, Quat, Shape, Vec3,
    World, WorldSettings,
};

/// In category 2, touching every category but its own.
const GHOST: CollisionFilter = CollisionFilter::new(2, !2);
/// A sensor in category 4 that does not see ghosts.
const GHOST_BLIND: CollisionFilter = CollisionFilter::new(4, !2);

fn world(broad_phase: BroadPhaseKind) -> World {
    World::new(WorldSettings {
        enable_sleeping: false,
        broad_phase,
        ..WorldSettings::default()
    })
}

/// A unit cube at `position` with `filter`.
fn cube(w: &mut World, position: Vec3, filter: CollisionFilter) -> BodyHandle {
    let (body, _) = w
        .create_body_with_colliders(
            BodyDef::dynamic(position),
            &[ColliderDef::new(Shape::cuboid(Vec3::splat(0.5))).with_filter(filter)],
        )
        .expect("cube");
    body
}

fn y(w: &World, b: BodyHandle) -> f32 {
    w.body(b).expect("body").position().y
}

#[test]
fn the_filter_is_symmetric_and_needs_both_sides() {
    let all = CollisionFilter::DEFAULT;
    assert!(all.allows(all));
    assert!(!GHOST.allows(GHOST));
    assert!(GHOST.allows(all) && all.allows(GHOST));
    // One side refusing is enough: category 1 touching only category 1 refuses a ghost,
    // whose mask does include category 1.
    let only_ones = CollisionFilter::new(1, 1);
    assert!(!only_ones.allows(GHOST) && !GHOST.allows(only_ones));
    // Category 0 is in no category: it touches nothing.
    let nothing = CollisionFilter::new(0, u32::MAX);
    assert!(!nothing.allows(all) && !all.allows(nothing));
}

#[test]
fn filtered_pairs_never_touch_or_trigger_a_sensor_in_any_broad_phase() {
    for kind in [
        BroadPhaseKind::DynamicTree,
        BroadPhaseKind::BruteForce,
        BroadPhaseKind::QUADTREE,
        BroadPhaseKind::GRID,
    ] {
        let mut w = world(kind);
        ground(&mut w, 0.6, 0.0);
        // Four columns of a ghost cube resting on the ground and a ghost cube dropped from
        // 1.5 m above it, and one column of two plain cubes.
        let mut ghosts = Vec::new();
        let mut dropped_ghosts = Vec::new();
        for i in 0..4 {
            let x = 1.5 * i as f32;
            ghosts.push(cube(&mut w, Vec3::new(x, 0.5, 0.0), GHOST));
            let upper = cube(&mut w, Vec3::new(x, 2.0, 0.0), GHOST);
            ghosts.push(upper);
            dropped_ghosts.push(upper);
        }
        let plain_lower = cube(&mut w, Vec3::new(7.5, 0.5, 0.0), CollisionFilter::DEFAULT);
        let plain_upper = cube(&mut w, Vec3::new(7.5, 2.0, 0.0), CollisionFilter::DEFAULT);
        // A static sensor slab across every column at y ∈ [0.8, 1.2], blind to ghosts.
        let (sensor, _) = w
            .create_body_with_colliders(
                BodyDef::static_body(Vec3::new(3.75, 1.0, 0.0)),
                &[ColliderDef::new(Shape::cuboid(Vec3::new(5.0, 0.2, 1.0)))
                    .with_sensor(true)
                    .with_filter(GHOST_BLIND)],
            )
            .expect("sensor");
        let is_ghost = |b: BodyHandle| ghosts.contains(&b);
        let mut plain_touches = 0;
        let mut sensor_begins = Vec::new();
        for step in 0..120 {
            w.step(DT);
            for c in w.contacts() {
                let (a, b) = (c.body_a(), c.body_b());
                assert!(
                    !(is_ghost(a) && is_ghost(b)),
                    "{kind:?} step {step}: a contact between two ghosts"
                );
                assert!(
                    !(is_ghost(a) && b == sensor || is_ghost(b) && a == sensor),
                    "{kind:?} step {step}: a ghost paired with the ghost-blind sensor"
                );
                plain_touches +=
                    usize::from(c.is_touching() && [a, b] == [plain_lower, plain_upper]);
                plain_touches +=
                    usize::from(c.is_touching() && [b, a] == [plain_lower, plain_upper]);
            }
            let events = w.contact_events();
            for pair in events.sensor_begin.iter().chain(&events.sensor_end) {
                assert!(
                    !is_ghost(pair.body_a) && !is_ghost(pair.body_b),
                    "{kind:?} step {step}: a sensor event for a ghost"
                );
            }
            sensor_begins.extend(events.sensor_begin.iter().map(|p| [p.body_a, p.body_b]));
        }
        // A dropped ghost falls through the ghost below it onto the ground: it rests with
        // its centre at its half-extent, 0.5 m (the soft contact sinks it a few mm at most).
        for &g in &dropped_ghosts {
            assert!(
                (y(&w, g) - 0.5).abs() < 0.02,
                "{kind:?}: ghost at {}",
                y(&w, g)
            );
        }
        // The plain cube lands on the plain cube: 1.0 m (the lower one's top) + 0.5 m.
        assert!(
            (y(&w, plain_upper) - 1.5).abs() < 0.02,
            "{kind:?}: plain upper at {}",
            y(&w, plain_upper)
        );
        assert!(plain_touches > 60, "{kind:?}: the plain cubes touched");
        // The sensor saw both plain cubes (the lower one overlaps it from the start).
        for plain in [plain_lower, plain_upper] {
            assert!(
                sensor_begins.iter().any(|p| p.contains(&plain)),
                "{kind:?}: the sensor saw {plain:?}"
            );
        }
    }
}

#[test]
fn a_filter_changed_at_run_time_ends_refused_contacts_and_finds_allowed_pairs() {
    let mut w = world(BroadPhaseKind::DynamicTree);
    ground(&mut w, 0.6, 0.0);
    let lower = cube(&mut w, Vec3::new(0.0, 0.5, 0.0), GHOST);
    // 2 cm above the lower cube: their fattened boxes overlap from the start, so the broad
    // phase reports the pair once, at the first step, while the filter refuses it.
    let upper = cube(&mut w, Vec3::new(0.0, 1.52, 0.0), GHOST);
    let between = |w: &World| {
        w.contacts()
            .filter(|c| [c.body_a(), c.body_b()].contains(&lower))
            .any(|c| [c.body_a(), c.body_b()].contains(&upper))
    };
    w.step(DT);
    assert!(!between(&w));
    let upper_collider = w.body_colliders(upper).next().expect("collider");
    w.set_collider_filter(upper_collider, CollisionFilter::DEFAULT)
        .expect("live collider");
    // The next step finds the pair, though neither box has left its fattened box since the
    // broad phase last reported it.
    w.step(DT);
    assert!(between(&w));
    for _ in 0..60 {
        w.step(DT);
    }
    // Allowed now, it lands on the lower cube: 1.0 m + 0.5 m.
    assert!(
        (y(&w, upper) - 1.5).abs() < 0.02,
        "upper at {}",
        y(&w, upper)
    );
    // Refused again while touching: the contact ends now, with its end event, and the
    // cube falls through onto the ground.
    w.set_collider_filter(upper_collider, GHOST)
        .expect("live collider");
    assert!(!between(&w));
    w.step(DT);
    let ends = &w.contact_events().end;
    assert!(
        ends.iter()
            .any(|p| [p.body_a, p.body_b].contains(&upper) && [p.body_a, p.body_b].contains(&lower)),
        "an end event for the refused pair: {ends:?}"
    );
    for _ in 0..90 {
        w.step(DT);
        assert!(!between(&w));
    }
    assert!(
        (y(&w, upper) - 0.5).abs() < 0.02,
        "upper at {}",
        y(&w, upper)
    );
    let stale = w.body_colliders(lower).next().expect("collider");
    w.remove_body(lower).expect("live");
    assert!(w.set_collider_filter(stale, GHOST).is_err());
}

#[test]
fn continuous_collision_ignores_filtered_obstacles() {
    // A 0.1 m sphere at 300 m/s crosses 5 m per step: only the sweep can stop it at a 10 cm
    // wall. A plain one stops before the wall; a ghost at a ghost wall flies on, 300 m/s ·
    // 10 steps · 1/60 s = 50 m.
    let run = |filter: CollisionFilter| {
        let mut w = World::new(WorldSettings {
            gravity: Vec3::ZERO,
            enable_sleeping: false,
            ..WorldSettings::default()
        });
        let wall = w.create_body(BodyDef {
            body_type: BodyType::Static,
            ..BodyDef::default()
        });
        w.add_collider(
            wall,
            ColliderDef::new(Shape::cuboid(Vec3::new(0.05, 2.0, 2.0))).with_filter(filter),
        )
        .expect("wall");
        let (bullet, _) = w
            .create_body_with_colliders(
                BodyDef {
                    position: Vec3::new(-3.0, 0.0, 0.0),
                    rotation: Quat::IDENTITY,
                    linear_velocity: Vec3::new(300.0, 0.0, 0.0),
                    ccd: true,
                    ..BodyDef::default()
                },
                &[ColliderDef::new(Shape::sphere(0.1)).with_filter(filter)],
            )
            .expect("bullet");
        for _ in 0..10 {
            w.step(DT);
        }
        w.body(bullet).expect("bullet").position().x
    };
    let plain = run(CollisionFilter::DEFAULT);
    assert!(
        plain < -0.05,
        "the plain bullet stops before the wall: x = {plain}"
    );
    let ghost = run(GHOST);
    assert!(
        (ghost - 47.0).abs() < 0.1,
        "the ghost flies on: x = {ghost}"
    );
}

#[test]
fn a_static_collider_that_now_touches_a_sleeping_body_wakes_it() {
    // A cube asleep on the floor inside a static slab that touched nothing (mask 0). Given
    // the default filter, the slab must wake the cube, or the sleeping cube would never be
    // pushed out of it.
    let mut w = World::new(WorldSettings::default());
    ground(&mut w, 0.6, 0.0);
    let (slab, _) = w
        .create_body_with_colliders(
            BodyDef::static_body(Vec3::new(0.0, 0.25, 0.0)),
            &[ColliderDef::new(Shape::cuboid(Vec3::new(2.0, 0.25, 2.0)))
                .with_filter(CollisionFilter::new(8, 0))],
        )
        .expect("slab");
    let cube = cube(&mut w, Vec3::new(0.0, 0.5, 0.0), CollisionFilter::DEFAULT);
    for _ in 0..180 {
        w.step(DT);
    }
    assert!(
        !w.body(cube).expect("cube").is_awake(),
        "the cube fell asleep"
    );
    let slab_collider = w.body_colliders(slab).next().expect("collider");
    w.set_collider_filter(slab_collider, CollisionFilter::DEFAULT)
        .expect("live collider");
    assert!(w.body(cube).expect("cube").is_awake(), "the cube was woken");
    for _ in 0..120 {
        w.step(DT);
    }
    // Pushed out of the slab: it rests on the slab's top (0.5 m) or has moved off it.
    let p = w.body(cube).expect("cube").position();
    assert!(
        p.y > 0.9 || p.x.abs() > 2.0 || p.z.abs() > 2.0,
        "the cube left the slab's inside: {p}"
    );
}
