//! Whole-world properties: conservation, determinism, removal and stale handles.

use crate::common;

use common::*;
use impulse::physics::{
    BodyDef, BodyError, BodyHandle, ColliderDef, Quat, Shape, Vec3, World, WorldSettings,
};

/// Σ m·v and Σ (c × m·v + I·ω) about the origin, in f64.
fn momenta(world: &World) -> ([f64; 3], [f64; 3]) {
    let mut p = [0.0f64; 3];
    let mut l = [0.0f64; 3];
    for (_, b) in world.bodies() {
        let m = b.mass() as f64;
        let v = b.linear_velocity().as_dvec3();
        let c = b.center_of_mass().as_dvec3();
        let spin = (b.world_inertia() * b.angular_velocity()).as_dvec3();
        let mom = v * m;
        let ang = c.cross(mom) + spin;
        for k in 0..3 {
            p[k] += mom[k];
            l[k] += ang[k];
        }
    }
    (p, l)
}

fn norm(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

fn diff(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[test]
fn collision_without_gravity_conserves_momentum() {
    // Contact impulses come in equal and opposite pairs applied at one point, so
    // P = Σ m·v and L = Σ (c × m·v + I·ω) are unchanged by the collision (cubes have
    // isotropic inertia, so free rotation keeps I·ω too).
    let settings = WorldSettings {
        gravity: Vec3::ZERO,
        ..WorldSettings::default()
    };
    let mut world = World::new(settings);
    let a = dynamic(
        &mut world,
        Shape::cuboid(Vec3::splat(0.5)),
        Vec3::new(-2.0, 0.3, 0.1),
        Quat::from_rotation_y(0.3),
        0.5,
    );
    let b = dynamic(
        &mut world,
        Shape::cuboid(Vec3::splat(0.5)),
        Vec3::new(2.0, -0.3, 0.0),
        Quat::from_rotation_z(0.2),
        0.5,
    );
    world
        .set_linear_velocity(a, Vec3::new(3.0, 0.0, 0.2))
        .unwrap();
    world
        .set_angular_velocity(a, Vec3::new(0.0, 1.0, 0.5))
        .unwrap();
    world
        .set_linear_velocity(b, Vec3::new(-3.0, 0.2, 0.0))
        .unwrap();
    let (p0, l0) = momenta(&world);
    let mut touched = false;
    for _ in 0..120 {
        world.step(DT);
        touched |= !world.contact_events().begin.is_empty();
    }
    assert!(touched, "the bodies never collided");
    let (p1, l1) = momenta(&world);
    let scale_p = world
        .bodies()
        .map(|(_, b)| (b.mass() * b.linear_velocity().length()) as f64)
        .sum::<f64>();
    assert!(
        norm(diff(p1, p0)) / scale_p < 1e-4,
        "linear momentum {p0:?} -> {p1:?}"
    );
    assert!(
        norm(diff(l1, l0)) / norm(l0) < 1e-3,
        "angular momentum {l0:?} -> {l1:?}"
    );
}

/// A mixed pile used for determinism and removal tests.
fn pile(world: &mut World) -> Vec<BodyHandle> {
    ground(world, 0.6, 0.1);
    let shapes = [
        Shape::sphere(0.4),
        Shape::cuboid(Vec3::new(0.4, 0.3, 0.5)),
        Shape::capsule(0.3, 0.3),
    ];
    let mut out = Vec::new();
    for i in 0..60 {
        let x = (i % 4) as f32 * 0.9 - 1.35;
        let z = ((i / 4) % 4) as f32 * 0.9 - 1.35;
        let y = 0.6 + (i / 16) as f32 * 1.0;
        let rot = Quat::from_euler(glam::EulerRot::XYZ, i as f32 * 0.3, i as f32 * 0.7, 0.1);
        out.push(dynamic(
            world,
            shapes[i % shapes.len()].clone(),
            Vec3::new(x, y, z),
            rot,
            0.6,
        ));
    }
    out
}

#[test]
fn same_setup_gives_bit_identical_results() {
    let run_once = || {
        let mut world = World::default();
        let bodies = pile(&mut world);
        run(&mut world, 600);
        bodies
            .iter()
            .map(|&h| {
                let b = world.body(h).unwrap();
                [
                    b.position().to_array(),
                    b.linear_velocity().to_array(),
                    b.angular_velocity().to_array(),
                    b.rotation().to_array()[..3].try_into().unwrap(),
                ]
                .concat()
                .iter()
                .map(|f| f.to_bits())
                .collect::<Vec<u32>>()
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(run_once(), run_once());
}

#[test]
fn removed_bodies_leave_stale_handles_that_do_nothing() {
    let mut world = World::default();
    let bodies = pile(&mut world);
    run(&mut world, 90);
    // Remove every third body while they are in contact.
    let removed: Vec<_> = bodies.iter().copied().step_by(3).collect();
    for &h in &removed {
        assert!(world.remove_body(h).is_ok());
    }
    let survivors: Vec<_> = bodies
        .iter()
        .copied()
        .filter(|h| !removed.contains(h))
        .collect();
    let before: Vec<_> = survivors
        .iter()
        .map(|&h| world.body(h).unwrap().position())
        .collect();
    // New bodies may reuse the slots; stale handles must still find nothing.
    let newcomer = dynamic(
        &mut world,
        Shape::sphere(0.2),
        Vec3::new(20.0, 1.0, 0.0),
        Quat::IDENTITY,
        0.5,
    );
    for &h in &removed {
        assert!(world.body(h).is_none());
        assert!(world.remove_body(h).is_err());
        assert_eq!(world.set_position(h, Vec3::ZERO), Err(BodyError::StaleBody));
        assert_eq!(
            world.set_linear_velocity(h, Vec3::X),
            Err(BodyError::StaleBody)
        );
        assert!(world.apply_impulse(h, Vec3::Y).is_err());
        assert!(world.apply_force_at_point(h, Vec3::Y, Vec3::ZERO).is_err());
        assert!(world
            .add_collider(h, ColliderDef::new(Shape::sphere(1.0)))
            .is_err());
        assert_eq!(world.body_colliders(h).count(), 0);
    }
    // None of that touched the survivors or the newcomer.
    for (&h, &p) in survivors.iter().zip(&before) {
        assert_eq!(world.body(h).unwrap().position(), p);
    }
    assert_eq!(
        world.body(newcomer).unwrap().position(),
        Vec3::new(20.0, 1.0, 0.0)
    );
    run(&mut world, 120);
    for &h in &survivors {
        assert!(world.body(h).unwrap().position().is_finite());
    }
    assert_eq!(world.body_count(), survivors.len() + 2);
}

#[test]
fn removing_the_support_wakes_a_sleeping_body() {
    let mut world = World::default();
    ground(&mut world, 0.6, 0.0);
    let support = world.create_body(BodyDef::static_body(Vec3::new(0.0, 1.0, 0.0)));
    world
        .add_collider(
            support,
            ColliderDef::new(Shape::cuboid(Vec3::new(1.0, 0.5, 1.0))),
        )
        .unwrap();
    let top = dynamic(
        &mut world,
        Shape::cuboid(Vec3::splat(0.25)),
        Vec3::new(0.0, 1.75, 0.0),
        Quat::IDENTITY,
        0.6,
    );
    run(&mut world, 120);
    assert!(
        !world.body(top).unwrap().is_awake(),
        "should sleep on its support"
    );
    world.remove_body(support).unwrap();
    assert!(
        world.body(top).unwrap().is_awake(),
        "removing the support must wake it"
    );
    run(&mut world, 60);
    // It fell: 1 s of free fall from 1.75 would reach the ground at y = 0.25.
    assert!(world.body(top).unwrap().position().y < 0.3);
}

#[test]
fn impulse_wakes_a_sleeping_island() {
    let mut world = World::default();
    ground(&mut world, 0.6, 0.0);
    let low = dynamic(
        &mut world,
        Shape::cuboid(Vec3::splat(0.5)),
        Vec3::new(0.0, 0.5, 0.0),
        Quat::IDENTITY,
        0.6,
    );
    let high = dynamic(
        &mut world,
        Shape::cuboid(Vec3::splat(0.5)),
        Vec3::new(0.0, 1.5, 0.0),
        Quat::IDENTITY,
        0.6,
    );
    run(&mut world, 120);
    assert!(!world.body(low).unwrap().is_awake() && !world.body(high).unwrap().is_awake());
    world.apply_impulse(low, Vec3::new(0.5, 0.0, 0.0)).unwrap();
    // The whole island wakes, not just the pushed body.
    assert!(world.body(high).unwrap().is_awake());
}

/// A world whose bodies all sleep steps without touching anything: positions stay
/// bit-identical, the manifolds and points are still reported, nothing is solved; and a
/// body dropped on the sleeping stack still lands on it and wakes it.
#[test]
fn an_all_asleep_world_idles_and_still_wakes() {
    let mut world = World::default();
    ground(&mut world, 0.6, 0.0);
    let stack = unit_cube_stack(&mut world, 3);
    run(&mut world, 240);
    assert!(stack.iter().all(|&h| !world.body(h).unwrap().is_awake()));
    let before: Vec<_> = stack
        .iter()
        .map(|&h| world.body(h).unwrap().position())
        .collect();
    let (manifolds, points) = (world.counters().manifolds, world.counters().contact_points);
    // Ground–cube and two cube–cube faces, four corners each.
    assert_eq!((manifolds, points), (3, 12));
    let (steps, time) = (world.step_count(), world.time());
    run(&mut world, 60);
    let after: Vec<_> = stack
        .iter()
        .map(|&h| world.body(h).unwrap().position())
        .collect();
    assert_eq!(before, after);
    let c = world.counters();
    assert_eq!((c.manifolds, c.contact_points), (manifolds, points));
    assert_eq!((c.awake_bodies, c.constraints, c.bodies), (0, 0, 4));
    assert_eq!(world.step_count(), steps + 60);
    assert!((world.time() - time - 60.0 * DT as f64).abs() < 1e-9);

    // A cube dropped from 2 m above the stack (top face at y = 3) lands on it: 1 s later it
    // rests with its centre at 3.5 (less the contacts' millimetre spring depth), and the
    // stack it hit woke up.
    let dropped = dynamic(
        &mut world,
        Shape::cuboid(Vec3::splat(0.5)),
        Vec3::new(0.0, 5.5, 0.0),
        Quat::IDENTITY,
        0.6,
    );
    let mut woke = false;
    for _ in 0..60 {
        world.step(DT);
        woke |= world.body(stack[2]).unwrap().is_awake();
    }
    assert!(woke, "the impact must wake the stack");
    let y = world.body(dropped).unwrap().position().y;
    assert!((y - 3.5).abs() < 0.01, "dropped cube at y = {y}");
}

/// Every body's pose, velocities and awake flag, as raw bits.
fn state_bits(world: &World) -> Vec<(u32, Vec<u32>, bool)> {
    world
        .bodies()
        .map(|(h, b)| {
            let mut bits = Vec::new();
            for v in [b.position(), b.linear_velocity(), b.angular_velocity()] {
                bits.extend(v.to_array().map(f32::to_bits));
            }
            bits.extend(b.rotation().to_array().map(f32::to_bits));
            (h.index(), bits, b.is_awake())
        })
        .collect()
}

/// A clone taken mid-run (contacts warm-started, islands asleep or not) steps exactly like the
/// original: the sandbox's rewind restores such copies and replays from them.
#[test]
fn a_cloned_world_steps_bit_for_bit_like_the_original() {
    for (file, sleeping) in [
        ("scenes/pile.ron", false),
        ("scenes/pile.ron", true),
        ("scenes/pyramid.ron", false),
    ] {
        let scene = impulse::scene::load_file(std::path::Path::new(file)).unwrap();
        let mut world = scene.world;
        let mut settings = world.settings().clone();
        settings.enable_sleeping = sleeping;
        world.set_settings(settings).unwrap();
        for _ in 0..150 {
            world.step(scene.timestep);
        }
        let mut copy = world.clone();
        assert_eq!(state_bits(&copy), state_bits(&world));
        for step in 0..150 {
            world.step(scene.timestep);
            copy.step(scene.timestep);
            assert_eq!(
                state_bits(&copy),
                state_bits(&world),
                "{file} (sleeping {sleeping}): the copy diverged at step {step} after the clone"
            );
        }
        assert_eq!(copy.step_count(), world.step_count());
        assert!(copy.contacts().count() > 0 && copy.approximate_bytes() > 0);
    }
}
