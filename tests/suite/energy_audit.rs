//! The energy audit: every shipped scene runs for 30 s of simulated time, once as shipped and
//! once with sleeping off, and may not make energy. After the first 5 s (drops, throws and
//! impacts are over by then) the kinetic energy may never rise above twice its largest value
//! in the first 5 s, nor above 1 J, beyond what a motor or gravity can have put in since.
//! Sleeping hides instability (a sleeping body has no energy), hence the second run.
//!
//! These are the 30-s runs: `#[ignore]`d, run in release in a CI step of their own
//! (`cargo test --release --test suite energy_audit -- --ignored`): 17 s for the top-level
//! scenes, 4 min in all on 2 cores, the large pyramid's 2.5 min beside the rest.

use std::path::{Path, PathBuf};

use impulse::physics::{BodyType, JointKind, Motor, Vec3, World};

/// Simulated time of each run, s.
const RUN_SECONDS: f32 = 30.0;
/// The settling time: the energy reference is the largest kinetic energy before it, s.
const SETTLE_SECONDS: f32 = 5.0;
/// Kinetic energy below this is never a failure, J (a few millimetres per second of jitter in
/// a heavy body is not an explosion).
const FLOOR_JOULES: f64 = 1.0;

/// Scenes where gravity legitimately turns potential energy into kinetic energy after the
/// first 5 s, so the audit subtracts the potential energy released since 5 s:
/// - `dominoes.ron`: the row of 60 falls one domino after another until about 14 s; each
///   domino's fall is potential energy turned kinetic (measured without this: 3.2 times the
///   first 5 s at 13.9 s, 0.58 J, under the 1 J floor only because dominoes are light).
const GRAVITY_DRIVEN: [&str; 1] = ["dominoes.ron"];

/// How a run ended: the worst excess over the limit and the first time it was over.
struct Audit {
    /// Largest kinetic energy in the first 5 s, J.
    reference: f64,
    /// Worst kinetic energy after 5 s, less what a motor or gravity put in, J, and when, s.
    worst: (f64, f32),
    /// The first step over the limit: time, kinetic energy, motor work and potential energy
    /// released since 5 s.
    first_over: Option<Breach>,
}

/// The state of the first step over the limit.
struct Breach {
    time: f32,
    kinetic: f64,
    motor_work: f64,
    released: f64,
}

/// Gravitational potential energy of the dynamic bodies: Σ −m·s·g·x over their centres of mass
/// (s the body's gravity scale), J; zero at the origin's height.
fn potential_energy(world: &World) -> f64 {
    let gravity = world.settings().gravity;
    world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Dynamic)
        .map(|(_, b)| {
            -f64::from(b.mass() * b.gravity_scale()) * f64::from(gravity.dot(b.center_of_mass()))
        })
        .sum()
}

/// The most power the world's hinge motors can put in right now, W: a motor's torque is at
/// most its `max_torque`, so its power τ·ω is at most max_torque × |ω_a − ω_b| about the axis.
fn motor_power_bound(world: &World) -> f64 {
    world
        .joints()
        .filter_map(|(_, joint)| {
            let def = joint.def();
            let JointKind::Revolute {
                axis_a,
                motor: Some(Motor { max_torque, .. }),
                ..
            } = def.kind
            else {
                return None;
            };
            let a = world.body(def.body_a)?;
            let spin_b = def
                .body_b
                .and_then(|b| world.body(b))
                .map_or(Vec3::ZERO, |b| b.angular_velocity());
            let axis = a.rotation() * axis_a;
            let spin = (a.angular_velocity() - spin_b).dot(axis);
            Some(f64::from(max_torque) * f64::from(spin.abs()))
        })
        .sum()
}

/// Runs `path` for 30 s with sleeping on or off, sampling every step.
fn audit(path: &Path, sleeping: bool) -> Audit {
    let mut scene = impulse::scene::load_file(path).unwrap_or_else(|e| panic!("{e}"));
    let mut settings = scene.world.settings().clone();
    settings.enable_sleeping = sleeping;
    scene.world.set_settings(settings).unwrap();
    let gravity_driven = GRAVITY_DRIVEN
        .iter()
        .any(|name| path.file_name().is_some_and(|f| f == *name));
    let dt = scene.timestep;
    let steps = (RUN_SECONDS / dt).round() as usize;
    let settle_steps = (SETTLE_SECONDS / dt).round() as usize;
    let mut reference = 0.0f64;
    let mut settled_potential = 0.0;
    let mut motor_work = 0.0;
    let mut worst = (f64::NEG_INFINITY, 0.0);
    let mut first_over = None;
    for step in 1..=steps {
        scene.world.step(dt);
        // A kinematic body is moved only by the window's keys (topdown.ron's player): here
        // it stays still, and a still body does no work. One that moved would put in work
        // this audit does not count.
        for (handle, body) in scene.world.bodies() {
            if body.body_type() == BodyType::Kinematic {
                assert!(
                    body.linear_velocity() == Vec3::ZERO && body.angular_velocity() == Vec3::ZERO,
                    "{}: kinematic body {:?} moves; count its work in the audit",
                    path.display(),
                    scene.meta.get(&handle).map(|m| m.name.as_str())
                );
            }
        }
        let kinetic = impulse::headless::kinetic_energy(&scene.world);
        if step <= settle_steps {
            reference = reference.max(kinetic);
            settled_potential = potential_energy(&scene.world);
            continue;
        }
        motor_work += motor_power_bound(&scene.world) * f64::from(dt);
        // Potential energy turned kinetic since 5 s (negative when bodies were lifted).
        let released = if gravity_driven {
            settled_potential - potential_energy(&scene.world)
        } else {
            0.0
        };
        let excess = kinetic - motor_work - released;
        let time = step as f32 * dt;
        if excess > worst.0 {
            worst = (excess, time);
        }
        if excess > (2.0 * reference).max(FLOOR_JOULES) && first_over.is_none() {
            first_over = Some(Breach {
                time,
                kinetic,
                motor_work,
                released,
            });
        }
    }
    Audit {
        reference,
        worst,
        first_over,
    }
}

/// Audits each of `files` with sleeping as shipped and with sleeping off, and fails with
/// every scene that made energy.
fn audit_all(files: &[PathBuf]) {
    let mut failures = Vec::new();
    for path in files {
        let name = path
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap_or(path)
            .display();
        let shipped = impulse::scene::load_file(path)
            .unwrap_or_else(|e| panic!("{e}"))
            .world
            .settings()
            .enable_sleeping;
        // As shipped, then the other way (a scene shipped without sleeping is run with it).
        for sleeping in [shipped, !shipped] {
            let mode = if sleeping {
                "sleeping on"
            } else {
                "sleeping off"
            };
            let run = audit(path, sleeping);
            eprintln!(
                "{} ({mode}): largest kinetic energy in the first 5 s {:.4} J; after 5 s at most \
                 {:.4} J less motor work and released potential energy (at {:.2} s)",
                name, run.reference, run.worst.0, run.worst.1
            );
            if let Some(b) = run.first_over {
                failures.push(format!(
                    "{} ({mode}): at {:.2} s the kinetic energy is {:.4} J, above {:.4} J (twice \
                     the first 5 s's largest, {:.4} J, or 1 J); motor work since 5 s {:.4} J, \
                     potential energy released since 5 s {:.4} J; worst excess {:.4} J at {:.2} s",
                    name,
                    b.time,
                    b.kinetic,
                    (2.0 * run.reference).max(FLOOR_JOULES),
                    run.reference,
                    b.motor_work,
                    b.released,
                    run.worst.0,
                    run.worst.1
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "scenes that made energy:\n{}",
        failures.join("\n")
    );
}

/// The `.ron` files directly in `dir`, sorted.
fn scene_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    files.sort();
    files
}

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")
}

#[test]
#[ignore = "30 s of every scene: run in release (`.ci/run`)"]
fn every_scene_keeps_its_energy_for_thirty_seconds() {
    let files = scene_files(&scenes_dir());
    assert!(files.len() >= 20, "found {} scenes", files.len());
    audit_all(&files);
}

/// The benchmark scenes but three: `pile4000_sleep.ron` is `pile4000.ron` with sleeping on,
/// so its two runs are `pile4000.ron`'s two runs again; `large_pyramid.ron` (5050 cubes, as
/// long as all the others together) has a test of its own so that the two run side by side;
/// `convex_pile.ron` (5 120 hulls of 32 points, over half a second per step once piled,
/// which would make 30 s of it over an hour) is a timing benchmark only.
#[test]
#[ignore = "30 s of every benchmark scene: run in release (`.ci/run`)"]
fn every_benchmark_scene_keeps_its_energy_for_thirty_seconds() {
    let files: Vec<_> = scene_files(&scenes_dir().join("bench"))
        .into_iter()
        .filter(|p| {
            !p.ends_with("pile4000_sleep.ron")
                && !p.ends_with("large_pyramid.ron")
                && !p.ends_with("convex_pile.ron")
        })
        .collect();
    assert!(files.len() >= 5, "found {} benchmark scenes", files.len());
    audit_all(&files);
}

#[test]
#[ignore = "30 s of 5050 cubes: run in release (`.ci/run`)"]
fn the_large_pyramid_keeps_its_energy_for_thirty_seconds() {
    audit_all(&[scenes_dir().join("bench/large_pyramid.ron")]);
}
