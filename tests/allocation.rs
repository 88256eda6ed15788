//! "No allocation per step in steady state": a counting allocator watches the steps of a
//! settled, awake world.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use impulse::physics::{
    BodyDef, BodyType, ColliderDef, JointDef, Quat, Shape, Vec3, World, WorldSettings,
};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the counter is
// only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on as it is.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on as it is.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on as it is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Steps `world` `warm_up` times, then `counted` times, and returns how many allocations
/// the counted steps made.
fn allocations_of_steps(world: &mut World, warm_up: usize, counted: usize) -> usize {
    for _ in 0..warm_up {
        world.step(1.0 / 60.0);
    }
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for _ in 0..counted {
        world.step(1.0 / 60.0);
    }
    ALLOCATIONS.load(Ordering::Relaxed) - before
}

/// A floor and `n` boxes, balls and capsules resting on it in rows of 6 (sleeping off).
fn resting(n: usize) -> World {
    let mut world = World::new(WorldSettings {
        enable_sleeping: false,
        ..WorldSettings::default()
    });
    let ground = world.create_body(BodyDef {
        body_type: BodyType::Static,
        ..BodyDef::default()
    });
    world
        .add_collider(ground, ColliderDef::new(Shape::plane(Vec3::Y)))
        .unwrap();
    let shapes = [
        Shape::cuboid(Vec3::splat(0.5)),
        Shape::sphere(0.5),
        Shape::capsule(0.3, 0.4),
    ];
    for i in 0..n {
        let (row, layer) = ((i / 6) % 10, i / 60);
        let body = world.create_body(BodyDef {
            position: Vec3::new(
                (i % 6) as f32 * 1.2,
                0.6 + layer as f32 * 1.1,
                row as f32 * 1.2,
            ),
            rotation: Quat::IDENTITY,
            ..BodyDef::default()
        });
        world
            .add_collider(body, ColliderDef::new(shapes[i % 3].clone()))
            .unwrap();
    }
    world
}

/// A chain of `links` 0.4 m boxes hanging from the world by ball joints at (x, z), the
/// last two welded, with a hinged box below them (every joint kind the island's block
/// solves), and a light link in the middle (1/100 of the others: more sub-steps for the
/// island).
fn hang_chain(world: &mut World, links: usize, (x, z): (f32, f32)) {
    let mut above = None;
    for i in 0..links {
        let top = 10.0 - i as f32 * 0.5;
        let body = world.create_body(BodyDef {
            position: Vec3::new(x, top - 0.25, z),
            ..BodyDef::default()
        });
        let density = if i == links / 2 { 0.01 } else { 1.0 };
        world
            .add_collider(
                body,
                ColliderDef::new(Shape::cuboid(Vec3::new(0.1, 0.2, 0.1))).with_density(density),
            )
            .unwrap();
        let anchor = Vec3::new(x, top, z);
        let def = if i + 1 == links {
            JointDef::revolute(world, body, above, anchor, Vec3::Z)
        } else if i + 2 == links {
            JointDef::fixed(world, body, above, anchor)
        } else {
            JointDef::spherical(world, body, above, anchor)
        };
        world.create_joint(def).unwrap();
        above = Some(body);
    }
}

/// A net of 20 × 20 balls (radius 0.2, 0.5 m apart) at y = 12 joined to their neighbours
/// in +x and +z by ball joints, its corners to the world: 764 joints, enough for the
/// joints to be coloured and shared by the team.
fn hang_net(world: &mut World) {
    const N: usize = 20;
    let mut balls = Vec::new();
    for i in 0..N {
        for k in 0..N {
            let body = world.create_body(BodyDef {
                position: Vec3::new(10.0 + 0.5 * i as f32, 12.0, 0.5 * k as f32),
                ..BodyDef::default()
            });
            world
                .add_collider(body, ColliderDef::new(Shape::sphere(0.2)))
                .unwrap();
            balls.push(body);
        }
    }
    let at = |i: usize, k: usize| Vec3::new(10.0 + 0.5 * i as f32, 12.0, 0.5 * k as f32);
    for i in 0..N {
        for k in 0..N {
            let a = balls[i * N + k];
            let mut join = |b: Option<_>, anchor: Vec3| {
                let def = JointDef::spherical(world, a, b, anchor);
                world.create_joint(def).unwrap();
            };
            if i + 1 < N {
                join(
                    Some(balls[(i + 1) * N + k]),
                    at(i, k) + Vec3::new(0.25, 0.0, 0.0),
                );
            }
            if k + 1 < N {
                join(
                    Some(balls[i * N + k + 1]),
                    at(i, k) + Vec3::new(0.0, 0.0, 0.25),
                );
            }
            if (i == 0 || i + 1 == N) && (k == 0 || k + 1 == N) {
                join(None, at(i, k));
            }
        }
    }
}

/// One thread, and three: with three the narrow phase's contacts are split into pieces
/// (a few hundred contacts) and the solver's stages shared by the team's threads, whose
/// buffers are kept too, and handing work to the team allocates nothing. Jointed chains
/// hang beside the bodies ([`hang_chain`]): one, whose block solve keeps its buffers as
/// well, or eight (96 joints, past the 64 at which islands solved as blocks are shared by
/// the workers), whose blocks every worker solves with a scratch of its own;
/// and a jointed net ([`hang_net`]), whose joints are coloured, at one worker and at three.
#[test]
fn resting_steps_allocate_nothing() {
    for (n, workers, chains, net) in [
        (30, 1, 1, false),
        (30, 3, 1, false),
        (300, 3, 1, false),
        (30, 1, 8, false),
        (30, 3, 8, false),
        (30, 1, 1, true),
        (30, 3, 1, true),
    ] {
        let mut world = resting(n);
        for c in 0..chains {
            hang_chain(&mut world, 12, (-6.0 - c as f32, 0.0));
        }
        if net {
            hang_net(&mut world);
        }
        world.set_workers(workers).unwrap();
        let allocated = allocations_of_steps(&mut world, 300, 60);
        assert!(
            world.contacts().count() > 64 || n < 300,
            "split into pieces"
        );
        assert_eq!(
            allocated, 0,
            "{n} bodies, {workers} workers, {chains} chains, net {net}: steps allocated {allocated} times"
        );
    }
    // 2 100 balls falling side by side with the same speed: every step some of them leave
    // their fat boxes, and whenever one does all do (at 5-60 m/s a ball leaves its box
    // every few steps), so the tree is rebuilt over and over in the counted steps; a
    // group of thousands of bodies with no contact is solved by the team; the solver
    // indices are given out in three blocks of body slots.
    for workers in [1, 3] {
        let mut world = World::new(WorldSettings {
            enable_sleeping: false,
            ..WorldSettings::default()
        });
        for i in 0..2100 {
            let at = Vec3::new((i % 50) as f32 * 2.0, 0.0, (i / 50) as f32 * 2.0);
            let ball = world.create_body(BodyDef {
                position: at,
                ..BodyDef::default()
            });
            world
                .add_collider(ball, ColliderDef::new(Shape::sphere(0.4)))
                .unwrap();
        }
        world.set_workers(workers).unwrap();
        let allocated = allocations_of_steps(&mut world, 30, 300);
        assert_eq!(world.contacts().count(), 0, "free fall");
        assert_eq!(
            allocated, 0,
            "falling balls, {workers} workers: steps allocated {allocated} times"
        );
    }
}
