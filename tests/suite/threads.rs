//! The step on several threads gives the bits of one thread (`physics/threads.rs`): the
//! same state hash, the same contact events in the same order, at 1 to 4 workers. `.ci/run`
//! compares the state hashes of every shipped and bench scene the same way.

use std::path::Path;

use impulse::physics::{
    threads, BodyDef, BodyType, ColliderDef, JointDef, JointKind, Motor, Quat, Shape, Vec3, World,
};
use impulse::scene;

use crate::common::{self, DT};

/// The state hash and every step's contact and sensor events, as text.
fn trace(world: &mut World, steps: usize) -> (u64, String) {
    let mut events = String::new();
    for step in 0..steps {
        world.step(DT);
        let e = world.contact_events();
        events += &format!(
            "{step}: begin {:?} persist {:?} end {:?} sensor {:?} {:?}\n",
            e.begin
                .iter()
                .map(|b| (b.pair, b.approach_speed.to_bits()))
                .collect::<Vec<_>>(),
            e.persist,
            e.end,
            e.sensor_begin,
            e.sensor_end
        );
    }
    (world.state_hash(), events)
}

/// Builds the world `make` gives at 1 to 4 workers and checks every count against one.
fn same_at_any_worker_count(what: &str, steps: usize, make: impl Fn() -> World) {
    let mut one = make();
    one.set_workers(1).expect("1 worker");
    let (hash, events) = trace(&mut one, steps);
    assert!(events.contains("begin [("), "{what}: no contact began");
    for workers in 2..=4 {
        let mut world = make();
        world.set_workers(workers).expect("workers");
        let (h, e) = trace(&mut world, steps);
        assert_eq!(e, events, "{what}: events differ at {workers} workers");
        assert_eq!(h, hash, "{what}: state differs at {workers} workers");
    }
}

/// 1 600 boxes, balls and capsules dropped into a heap: more contacts than one piece of the
/// narrow phase holds and more bodies than one piece of the integration sweeps.
fn heap() -> World {
    let mut world = World::default();
    common::ground(&mut world, 0.6, 0.0);
    let shapes = [
        Shape::cuboid(Vec3::splat(0.25)),
        Shape::sphere(0.25),
        Shape::capsule(0.2, 0.15),
    ];
    let mut n = 0;
    for y in 0..16 {
        for x in 0..10 {
            for z in 0..10 {
                let position = Vec3::new(x as f32 * 0.55, 0.3 + y as f32 * 0.55, z as f32 * 0.55)
                    + Vec3::new(0.01 * (y % 3) as f32, 0.0, 0.01 * (x % 2) as f32);
                let rotation = Quat::from_rotation_y(0.1 * n as f32);
                common::dynamic(&mut world, shapes[n % 3].clone(), position, rotation, 0.6);
                n += 1;
            }
        }
    }
    world
}

#[test]
fn a_heap_steps_the_same_at_any_worker_count() {
    same_at_any_worker_count("heap", 40, heap);
}

/// Four wall pyramids of base 20 (840 unit cubes, 2 300 resting contacts) on one ground:
/// four islands with enough constraints that the colouring is shared island by island
/// (`world/solve/mod.rs`, 2 048 constraints and two islands at least), two of the pyramids
/// hit by a ball each so the contacts change.
fn pyramids() -> World {
    let mut world = World::default();
    common::ground(&mut world, 0.6, 0.0);
    let cube = Shape::cuboid(Vec3::splat(0.5));
    for p in 0..4 {
        let z = p as f32 * 3.0;
        for row in 0..20 {
            for i in 0..20 - row {
                let x = i as f32 - (19 - row) as f32 / 2.0;
                let position = Vec3::new(x, 0.5 + row as f32, z);
                common::dynamic(&mut world, cube.clone(), position, Quat::IDENTITY, 0.6);
            }
        }
    }
    for z in [0.0, 6.0] {
        let ball = common::dynamic(
            &mut world,
            Shape::sphere(0.5),
            Vec3::new(-14.0, 2.5, z),
            Quat::IDENTITY,
            0.6,
        );
        world
            .set_linear_velocity(ball, Vec3::new(20.0, 0.0, 0.0))
            .expect("a valid velocity");
    }
    world
}

#[test]
fn separate_pyramids_step_the_same_at_any_worker_count() {
    let mut world = pyramids();
    world.step(DT);
    let counters = world.counters();
    assert!(
        counters.islands >= 2 && counters.constraints >= 2048,
        "the colouring is not shared: {} islands, {} constraints",
        counters.islands,
        counters.constraints
    );
    same_at_any_worker_count("pyramids", 40, pyramids);
}

/// Every broad phase finds its pairs in blocks of moved proxies on several workers: the heap
/// (1 600 proxies created at once, 13 blocks) steps the same at any worker count with each,
/// and the same as with the dynamic tree (every broad phase reports the same pairs).
#[test]
fn every_broad_phase_steps_the_same_at_any_worker_count() {
    use impulse::physics::BroadPhaseKind;
    let steps = 20;
    let (tree_hash, tree_events) = trace(&mut heap(), steps);
    for kind in [
        BroadPhaseKind::BruteForce,
        BroadPhaseKind::QUADTREE,
        BroadPhaseKind::GRID,
    ] {
        let make = || {
            let mut world = heap();
            world.set_broad_phase(kind).expect("a valid broad phase");
            world
        };
        let what = format!("heap, {kind:?}");
        same_at_any_worker_count(&what, steps, make);
        let mut one = make();
        one.set_workers(1).expect("1 worker");
        let (hash, events) = trace(&mut one, steps);
        assert_eq!(events, tree_events, "{what}: events differ from the tree's");
        assert_eq!(hash, tree_hash, "{what}: state differs from the tree's");
    }
}

/// A net of 24 × 24 balls (radius 0.4, 1 m apart in x–z), each joined by a ball joint to
/// its neighbours in +x and +z (1 104 joints: enough to be coloured and shared), its corners
/// hung on ball joints to the world, one edge ball hinged with a motor to a kinematic body
/// that moves, one pair welded, one held by a rope; twelve boxes dropped on it.
fn jointed_net() -> World {
    let mut world = World::default();
    common::ground(&mut world, 0.6, 0.0);
    const N: usize = 24;
    let mut balls = Vec::new();
    for i in 0..N {
        for k in 0..N {
            let at = Vec3::new(i as f32, 6.0, k as f32);
            balls.push(common::dynamic(
                &mut world,
                Shape::sphere(0.4),
                at,
                Quat::IDENTITY,
                0.5,
            ));
        }
    }
    let ball = |i: usize, k: usize| balls[i * N + k];
    let join = |world: &mut World, a, b: Option<_>, at: Vec3, kind| {
        let def = JointDef::between(world, a, b, at, at, kind);
        world.create_joint(def).expect("joint");
    };
    let ball_joint = JointKind::Spherical { cone: None };
    for i in 0..N {
        for k in 0..N {
            let at = Vec3::new(i as f32, 6.0, k as f32);
            if i + 1 < N {
                let mid = at + Vec3::new(0.5, 0.0, 0.0);
                join(
                    &mut world,
                    ball(i, k),
                    Some(ball(i + 1, k)),
                    mid,
                    ball_joint,
                );
            }
            if k + 1 < N {
                let mid = at + Vec3::new(0.0, 0.0, 0.5);
                join(
                    &mut world,
                    ball(i, k),
                    Some(ball(i, k + 1)),
                    mid,
                    ball_joint,
                );
            }
        }
    }
    for (i, k) in [(0, 0), (0, N - 1), (N - 1, 0), (N - 1, N - 1)] {
        let at = Vec3::new(i as f32, 6.0, k as f32);
        join(&mut world, ball(i, k), None, at, ball_joint);
    }
    let driver = world.create_body(BodyDef {
        body_type: BodyType::Kinematic,
        position: Vec3::new(-1.0, 6.0, 12.0),
        linear_velocity: Vec3::new(0.0, 0.5, 0.0),
        ..BodyDef::default()
    });
    world
        .add_collider(driver, ColliderDef::new(Shape::cuboid(Vec3::splat(0.3))))
        .expect("driver");
    let at = Vec3::new(-0.5, 6.0, 12.0);
    let hinge = JointDef::revolute(&world, ball(0, 12), Some(driver), at, Vec3::X)
        .with_limits(-0.5, 0.5)
        .with_motor(Motor {
            speed: 1.0,
            max_torque: 5.0,
        });
    world.create_joint(hinge).expect("hinge");
    let weld = JointDef::fixed(
        &world,
        ball(10, 10),
        Some(ball(11, 11)),
        Vec3::new(10.5, 6.0, 10.5),
    );
    world.create_joint(weld).expect("weld");
    let rope = JointKind::Distance { min: 0.0, max: 1.5 };
    join(
        &mut world,
        ball(5, 20),
        Some(ball(6, 21)),
        Vec3::new(5.5, 6.0, 20.5),
        rope,
    );
    for n in 0..12 {
        let at = Vec3::new(3.0 + 1.5 * n as f32, 8.0, 4.0 + 1.3 * n as f32);
        common::dynamic(
            &mut world,
            Shape::cuboid(Vec3::splat(0.3)),
            at,
            Quat::IDENTITY,
            0.6,
        );
    }
    world
}

#[test]
fn a_jointed_net_steps_the_same_at_any_worker_count() {
    same_at_any_worker_count("jointed net", 60, jointed_net);
}

#[test]
fn shipped_scenes_step_the_same_at_any_worker_count() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for name in [
        "scenes/pile.ron",
        "scenes/ragdoll.ron",
        "scenes/sensors.ron",
    ] {
        same_at_any_worker_count(name, 120, || {
            scene::load_file(&root.join(name)).expect(name).world
        });
    }
}

#[test]
fn worker_counts_outside_the_limits_are_refused_by_name() {
    let mut world = World::default();
    let default = world.workers();
    assert!(default >= 1);
    for bad in [0, threads::MAX_WORKERS + 1] {
        let e = world.set_workers(bad).expect_err("refused").to_string();
        assert!(e.contains("workers") && e.contains(&bad.to_string()), "{e}");
        assert_eq!(world.workers(), default, "a refused count changes nothing");
    }
    assert!(threads::set_default_workers(0).is_err());
}

/// Two worlds stepping at once on two threads share one team of two workers: whichever
/// finds it busy does its work alone, and both end as one world stepped by itself does.
#[test]
fn two_worlds_stepping_at_once_share_the_team() {
    let alone = {
        let mut world = heap();
        world.set_workers(2).expect("2 workers");
        trace(&mut world, 30).0
    };
    let hashes: Vec<u64> = std::thread::scope(|s| {
        let runs: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut world = heap();
                    world.set_workers(2).expect("2 workers");
                    trace(&mut world, 30).0
                })
            })
            .collect();
        runs.into_iter()
            .map(|r| r.join().expect("a stepping thread"))
            .collect()
    });
    assert_eq!(hashes, vec![alone, alone]);
}

/// Twelve ragdolls dropped onto each other in two layers: twelve jointed islands whose rows
/// are solved as blocks, shared by the team (more than 64 joints, `group::shares_blocks`),
/// with contacts between them.
#[test]
fn ragdolls_step_the_same_at_any_worker_count() {
    let make = || {
        let text = "Scene(settings: (sleeping: false), bodies: [(kind: Static, \
                    colliders: [(shape: Plane(normal: (0.0, 1.0, 0.0)))])], \
                    generators: [Ragdolls(counts: (3, 2, 2), spacing: (1.2, 2.1, 1.2))])";
        scene::load_str(text, "ragdolls.ron").unwrap().world
    };
    same_at_any_worker_count("ragdolls", 90, make);
}
