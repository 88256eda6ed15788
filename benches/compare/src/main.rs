//! Impulse against Rapier, side by side. Not part of the main build: its own
//! package and workspace, so `cargo test` in the main package never builds Rapier.
//!
//! ```sh
//! cd benches/compare && cargo run --release             # every scene, then the stress race
//! cargo run --release -- --scenes pyramid20,pile1000    # some scenes
//! cargo run --release -- --steps 300 --no-stress
//! cargo run --release -- --scenes pile4000 --no-stress --trace 30   # how each pile evolves
//! cargo run --release -- --scenes none --counts    # the stress race only, with pair counts
//! ```
//!
//! Each benchmark scene (`scenes/bench/*.ron`) is loaded by Impulse's own loader, and the
//! Rapier world is built from the loaded Impulse world body for body: same poses, shapes,
//! friction, restitution and density; Rapier keeps its default `IntegrationParameters`, and
//! its bodies may sleep only where the scene turns sleeping on. The two worlds step in
//! turns in one process (Impulse, Rapier, Impulse, ...), each step timed on its own.

use std::path::Path;
use std::time::Instant;

use impulse::physics::{BodyType, Shape, World};
use rapier3d::prelude::*;

/// The scenes, in the order the table lists them.
const SCENES: [&str; 7] = [
    "pyramid20",
    "pyramid40",
    "large_pyramid",
    "pile1000",
    "pile4000",
    "spheres1000",
    "pile4000_sleep",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let steps: usize = value("--steps").and_then(|s| s.parse().ok()).unwrap_or(600);
    let scenes: Vec<String> = value("--scenes")
        .map(|s| s.split(',').map(str::to_string).collect())
        .unwrap_or_else(|| SCENES.iter().map(|s| s.to_string()).collect());
    let trace: usize = value("--trace").and_then(|s| s.parse().ok()).unwrap_or(0);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");

    println!(
        "{} steps per scene, release, one thread, interleaved step by step\n",
        steps
    );
    println!(
        "| scene | bodies | Impulse mean / median / p95 ms | Rapier mean / median / p95 ms | Impulse / Rapier (mean) | stability: Impulse | stability: Rapier |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for name in &scenes {
        let path = root.join(format!("scenes/bench/{name}.ron"));
        match race(&path, steps, trace) {
            Ok(row) => println!("{row}"),
            Err(e) => eprintln!("{name}: {e}"),
        }
    }
    if !args.iter().any(|a| a == "--no-stress") {
        println!();
        stress(args.iter().any(|a| a == "--counts"));
    }
}

/// Runs one scene in both engines; returns its table row. With `trace` > 0, every `trace`
/// steps prints to stderr, for each engine, how many dynamic bodies stand higher than the
/// pit's walls, how many are outside them, and their kinetic energy.
fn race(path: &Path, steps: usize, trace: usize) -> Result<String, String> {
    let scene = impulse::scene::load_file(path).map_err(|e| e.to_string())?;
    let dt = scene.timestep;
    let mut ours = scene.world;
    let sleeping = ours.settings().enable_sleeping;
    let (mut theirs, pairs) = to_rapier(&ours, dt, sleeping);
    let start: Vec<_> = pairs
        .iter()
        .map(|&(h, _)| ours.body(h).unwrap().position())
        .collect();
    let (mut t_ours, mut t_theirs) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    let (inner, wall_top) = (pit_half_width(&ours), wall_top(&ours));
    for step in 1..=steps {
        step_both(&mut ours, &mut theirs, dt, (&mut t_ours, &mut t_theirs));
        if trace > 0 && step % trace == 0 {
            let bodies = pairs.iter().map(|&(h, r)| {
                let (a, b) = (ours.body(h).unwrap(), &theirs.bodies[r]);
                let q = b.translation();
                let theirs = ([q.x, q.y, q.z], b.kinetic_energy());
                let ours = (a.position().to_array(), a.kinetic_energy());
                [ours, theirs]
            });
            let mut tally = [(0, 0, 0.0f32); 2];
            for engines in bodies {
                for (t, (p, ke)) in tally.iter_mut().zip(engines) {
                    t.0 += (p[1] > wall_top) as usize;
                    t.1 += (p[0].abs() > inner || p[2].abs() > inner) as usize;
                    t.2 += ke;
                }
            }
            let [a, b] = tally;
            eprintln!(
                "step {step}: Impulse {} above the walls, {} outside, {:.0} J | Rapier {} above, {} outside, {:.0} J",
                a.0, a.1, a.2, b.0, b.1, b.2
            );
        }
    }
    let (a, b) = (Stats::of(&t_ours), Stats::of(&t_theirs));
    let name = path.file_stem().unwrap().to_string_lossy().to_string();
    let (s_ours, s_theirs) = if name.contains("pyramid") {
        // The generator lays the pyramid out row by row: the last dynamic body is the top.
        let (h, r) = *pairs.last().unwrap();
        let top = start.len() - 1;
        let moved_ours = (ours.body(h).unwrap().position() - start[top]).length();
        let p = theirs.bodies[r].translation();
        let moved_theirs = (impulse::physics::Vec3::new(p.x, p.y, p.z) - start[top]).length();
        (
            format!("top moved {moved_ours:.3} m"),
            format!("top moved {moved_theirs:.3} m"),
        )
    } else {
        let out = |p: [f32; 3]| p[0].abs() > inner || p[2].abs() > inner || p[1] < -0.5;
        let ours_out = pairs
            .iter()
            .filter(|&&(h, _)| out(ours.body(h).unwrap().position().to_array()))
            .count();
        let theirs_out = pairs
            .iter()
            .filter(|&&(_, r)| {
                let p = theirs.bodies[r].translation();
                out([p.x, p.y, p.z])
            })
            .count();
        (
            format!("{ours_out} outside the walls"),
            format!("{theirs_out} outside the walls"),
        )
    };
    Ok(format!(
        "| {name} | {} | {} | {} | {:.2}× | {s_ours} | {s_theirs} |",
        pairs.len(),
        a,
        b,
        a.mean / b.mean
    ))
}

/// One step of each engine, Impulse first, each timed on its own (ms appended to `times`).
fn step_both(
    ours: &mut World,
    theirs: &mut PhysicsWorld,
    dt: f32,
    times: (&mut Vec<f64>, &mut Vec<f64>),
) {
    let t = Instant::now();
    ours.step(dt);
    times.0.push(t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    theirs.step();
    times.1.push(t.elapsed().as_secs_f64() * 1e3);
}

/// Half the width of a pit between the static walls named "wall +x" (thickness 1 m), m.
fn pit_half_width(world: &World) -> f32 {
    world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Static && b.position().x > 0.5)
        .map(|(_, b)| b.position().x - 0.5)
        .fold(f32::MAX, f32::min)
}

/// Height of the top of the wall named "wall +x" (the pit's walls are all as high), m;
/// infinite without walls.
fn wall_top(world: &World) -> f32 {
    world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Static && b.position().x > 0.5)
        .flat_map(|(h, b)| {
            world
                .body_colliders(h)
                .filter_map(move |c| match world.collider(c)?.shape() {
                    Shape::Cuboid { half_extents } => Some(b.position().y + half_extents.y),
                    _ => None,
                })
        })
        .fold(f32::INFINITY, f32::min)
}

/// A Rapier world with the same bodies, and (Impulse handle, Rapier handle) for every
/// dynamic body, in Impulse's order.
fn to_rapier(
    world: &World,
    dt: f32,
    sleeping: bool,
) -> (
    PhysicsWorld,
    Vec<(impulse::physics::BodyHandle, RigidBodyHandle)>,
) {
    let mut out = PhysicsWorld::new();
    out.integration_parameters.dt = dt;
    let g = world.settings().gravity;
    out.gravity = Vector::new(g.x, g.y, g.z);
    let mut pairs = Vec::new();
    for (handle, body) in world.bodies() {
        let p = body.position();
        let q = body.rotation();
        let builder = match body.body_type() {
            BodyType::Static => RigidBodyBuilder::fixed(),
            BodyType::Kinematic => RigidBodyBuilder::kinematic_velocity_based(),
            BodyType::Dynamic => RigidBodyBuilder::dynamic().can_sleep(sleeping),
        };
        let rigid = builder
            .translation(Vector::new(p.x, p.y, p.z))
            .rotation(Rotation::from_xyzw(q.x, q.y, q.z, q.w).to_scaled_axis());
        let r = out.insert_body(rigid);
        for c in world.body_colliders(handle) {
            let c = world.collider(c).unwrap();
            let builder = match c.shape() {
                Shape::Sphere { radius } => ColliderBuilder::ball(*radius),
                Shape::Cuboid { half_extents: h } => ColliderBuilder::cuboid(h.x, h.y, h.z),
                Shape::Capsule {
                    half_height,
                    radius,
                } => ColliderBuilder::capsule_y(*half_height, *radius),
                Shape::ConvexHull(hull) => {
                    let points: Vec<_> = hull
                        .vertices
                        .iter()
                        .map(|v| Vector::new(v.x, v.y, v.z))
                        .collect();
                    ColliderBuilder::convex_hull(&points).expect("a hull Impulse accepted")
                }
                Shape::Plane { normal } => ColliderBuilder::halfspace(
                    rapier3d::na::Unit::new_unchecked(Vector::new(normal.x, normal.y, normal.z)),
                ),
            };
            let (lp, lq) = (c.local_pose().translation, c.local_pose().rotation);
            let collider = builder
                .translation(Vector::new(lp.x, lp.y, lp.z))
                .rotation(Rotation::from_xyzw(lq.x, lq.y, lq.z, lq.w).to_scaled_axis())
                .friction(c.friction())
                .restitution(c.restitution())
                .density(c.density());
            out.insert_collider(collider, Some(r));
        }
        if body.body_type() == BodyType::Dynamic {
            pairs.push((handle, r));
        }
    }
    (out, pairs)
}

/// Mean, median and 95th percentile of step times, ms.
struct Stats {
    mean: f64,
    median: f64,
    p95: f64,
}

impl Stats {
    fn of(samples: &[f64]) -> Stats {
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let at = |q: f64| s[((s.len() - 1) as f64 * q).round() as usize];
        Stats {
            mean: s.iter().sum::<f64>() / s.len() as f64,
            median: at(0.5),
            p95: at(0.95),
        }
    }
}

impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.2} / {:.2} / {:.2}", self.mean, self.median, self.p95)
    }
}

/// The stress race: both engines spawn 4 unit cubes per step at seeded random (x, z) in
/// [−10, 10], y in [10, 20], inside walls whose inner faces are at ±12, sleeping off. Prints
/// each one's mean step time around 1000, 2000, 3000 and 4000 bodies, and the body count at
/// which its 30-step mean first passes 33.3 ms (30 frames a second).
/// The stress race; with `counts`, prints to stderr at every 1000 bodies each engine's
/// broad-phase pairs, touching manifolds and points (and Impulse's pairs tested and reused).
fn stress(counts: bool) {
    use impulse::physics::{BodyDef, ColliderDef, Vec3, WorldSettings};
    let dt = 1.0 / 60.0;
    let settings = WorldSettings {
        enable_sleeping: false,
        ..WorldSettings::default()
    };
    let mut ours = World::new(settings);
    let mut theirs = PhysicsWorld::new();
    theirs.integration_parameters.dt = dt;
    // Ground and four walls 10 m high, 1 m thick, inner faces at ±12.
    let statics = [
        (Vec3::new(0.0, -0.5, 0.0), Vec3::new(100.0, 0.5, 100.0)),
        (Vec3::new(12.5, 5.0, 0.0), Vec3::new(0.5, 5.0, 13.0)),
        (Vec3::new(-12.5, 5.0, 0.0), Vec3::new(0.5, 5.0, 13.0)),
        (Vec3::new(0.0, 5.0, 12.5), Vec3::new(13.0, 5.0, 0.5)),
        (Vec3::new(0.0, 5.0, -12.5), Vec3::new(13.0, 5.0, 0.5)),
    ];
    for (p, h) in statics {
        let body = ours.create_body(BodyDef::static_body(p));
        ours.add_collider(body, ColliderDef::new(Shape::cuboid(h)).with_friction(0.6))
            .unwrap();
        theirs.insert(
            RigidBodyBuilder::fixed().translation(Vector::new(p.x, p.y, p.z)),
            ColliderBuilder::cuboid(h.x, h.y, h.z).friction(0.6),
        );
    }
    let mut seed = 0x5EED_u64;
    let mut random = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    let (mut t_ours, mut t_theirs) = (Vec::new(), Vec::new());
    let mut report = [(0.0f64, 0.0f64); 4];
    let mut limit: [Option<usize>; 2] = [None, None];
    let mut bodies = 0;
    while bodies < 4000 || limit.iter().any(Option::is_none) {
        if bodies >= 8000 {
            break;
        }
        for _ in 0..4 {
            let p = Vec3::new(
                random() * 20.0 - 10.0,
                10.0 + random() * 10.0,
                random() * 20.0 - 10.0,
            );
            let body = ours.create_body(BodyDef::dynamic(p));
            ours.add_collider(
                body,
                ColliderDef::new(Shape::cuboid(Vec3::splat(0.5))).with_friction(0.6),
            )
            .unwrap();
            theirs.insert(
                RigidBodyBuilder::dynamic()
                    .translation(Vector::new(p.x, p.y, p.z))
                    .can_sleep(false),
                ColliderBuilder::cuboid(0.5, 0.5, 0.5).friction(0.6),
            );
        }
        bodies += 4;
        step_both(&mut ours, &mut theirs, dt, (&mut t_ours, &mut t_theirs));
        let last30 = |t: &[f64]| t[t.len().saturating_sub(30)..].iter().sum::<f64>() / 30.0;
        if t_ours.len() >= 30 {
            for (engine, times) in [&t_ours, &t_theirs].into_iter().enumerate() {
                if limit[engine].is_none() && last30(times) > 1000.0 / 30.0 {
                    limit[engine] = Some(bodies);
                }
            }
        }
        if counts && bodies % 1000 == 0 && bodies <= 4000 {
            let c = ours.counters();
            let (mut pairs, mut mans, mut pts) = (0, 0, 0);
            for p in theirs.narrow_phase.contact_pairs() {
                pairs += 1;
                for m in p.manifolds() {
                    mans += !m.data.solver_contacts.is_empty() as usize;
                    pts += m.data.solver_contacts.len();
                }
            }
            eprintln!(
                "{bodies} bodies: Impulse {} pairs ({} tested, {} reused), {} manifolds, \
                 {} points | Rapier {pairs} pairs, {mans} manifolds, {pts} solver points",
                c.pairs, c.pair_tests, c.manifolds_reused, c.manifolds, c.contact_points
            );
        }
        if bodies % 1000 == 0 && bodies <= 4000 {
            report[bodies / 1000 - 1] = (last30(&t_ours), last30(&t_theirs));
        }
    }
    println!("Stress: 4 cubes per step, sleeping off (mean of the 30 steps up to each count)\n");
    println!("| bodies | Impulse ms | Rapier ms | Impulse / Rapier |");
    println!("| --- | --- | --- | --- |");
    for (i, (a, b)) in report.iter().enumerate() {
        println!("| {} | {a:.2} | {b:.2} | {:.2}× |", (i + 1) * 1000, a / b);
    }
    let show = |l: Option<usize>| l.map_or("not reached by 8000".to_string(), |n| n.to_string());
    println!(
        "\n30-step mean passes 33.3 ms at: Impulse {}, Rapier {}",
        show(limit[0]),
        show(limit[1])
    );
}
