//! Random jointed worlds against two invariants: no body is ever frozen (its state stopped
//! being finite, `World::frozen_bodies`), and the mechanical energy never grows past its start
//! plus the work the motors could have done.
//!
//! Each world comes from a seed (xorshift64*, the same on every machine) and is built through
//! the public API: a floor or none, bodies of every shape (spheres, boxes, capsules, hulls,
//! compounds) 1 cm to 1 m across at density 1 (a 1 m cube weighs 1 kg, a 2 cm ball 4 mg), in
//! chains, trees and rings held by every joint kind (ball joints with cones, hinges with limits
//! and motors, welds, rods, ropes, springs up to 30 Hz and bungees), each joint made where its
//! bodies start, so every constraint holds at step 0 (springs at their rest length, bungees
//! slack, limits and cones around the starting pose). No two bodies' bounding balls overlap.
//! Bodies of a cluster are of about one size (one cluster in six of light bodies, 1 to 10 cm);
//! in half the worlds one body in ten takes any size, which joins bodies up to 10⁶ times
//! heavier than their neighbours. A world is one of four classes:
//! - plain: gravity, a floor in four worlds of five;
//! - planar: the same with `planar: true`, hinges mostly about z;
//! - locked: half the bodies with random locked translation and rotation axes;
//! - zero gravity: no floor, every body moving.
//!
//! Hinges whose axis a body on them may not turn about (any hinge not about z in a planar
//! world, or one across a locked rotation axis) are generated on purpose: `create_joint` may
//! refuse them (the world is then simulated without them) or simulate them sanely; both pass.
//!
//! Runs (sleeping is off in every world):
//! - `cargo test --test suite joint_fuzz`: the generator's own checks, the check itself
//!   against the shipped jointed scenes and Newton's cradle, 64 small worlds (3 to 16
//!   bodies, 5 s each) and the reduced failures in `tests/corpus/joints/`;
//! - `cargo test --release --test suite joint_fuzz::measure -- --ignored --nocapture`: 300
//!   large worlds (10 to 200 bodies, 10 s each): freeze and energy-gain rates by class and by
//!   what the worlds hold, how many fail with their joints removed too (contacts alone), and
//!   the worst seeds; `JOINT_FUZZ_WORLDS`, `JOINT_FUZZ_FIRST_SEED` and `JOINT_FUZZ_SECONDS`
//!   change the run;
//! - `JOINT_FUZZ_SEED=17 [JOINT_FUZZ_SIZE=small] [JOINT_FUZZ_TRACE=STEPS]
//!   [JOINT_FUZZ_SAVE=out.ron] cargo test --release --test suite joint_fuzz::one_world --
//!   --ignored --nocapture`: one world in detail, its energy step by step, saved as a scene;
//! - `JOINT_FUZZ_NOJOINTS=1` with `one_world`: the same world without its joints (does it
//!   fail on its contacts alone?);
//! - the same with `joint_fuzz::reduce_world`: removes joints and bodies while the saved scene
//!   still fails (`JOINT_FUZZ_REDUCE_KIND=frozen`: still freezes), and saves what is left
//!   (how `tests/corpus/joints/` was made).

mod check;
mod generate;
mod reduce;
mod report;
mod spec;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use impulse::physics::{JointKind, Quat, Vec3};
use impulse::scene;

use check::{run, simulate};
use generate::generate;
use reduce::{failure, reduce, run_loaded, save};
use report::{culprits, describe, env_number, env_size, mass_ratio, trace, Tally};
use spec::{build, Class, JointShape, Size, WorldSpec};

/// Simulated time of each world of the default run, s.
const SMALL_SECONDS: f32 = 5.0;
/// Simulated time of each world of the large measurement, s.
const LARGE_SECONDS: f32 = 10.0;
/// Simulated time of each scene of the reduced corpus, s: a minute, long enough to see a
/// slow creep of energy as well as a burst.
const CORPUS_SECONDS: f32 = 60.0;
/// Worlds in the large measurement.
const LARGE_WORLDS: u64 = 300;
/// Worlds in the default run.
const SMALL_WORLDS: u64 = 64;

/// The generator keeps its promises: the same seed gives the same world; no two bodies'
/// bounding balls overlap, nor the floor; and every joint holds where it is made (point
/// anchors together, distances within their range, springs at rest or slack, hinges at
/// angle 0 within their limits, ball joints inside their cones).
#[test]
fn generated_worlds_start_with_every_joint_satisfied() {
    let seeds = (1..=64)
        .map(|s| (s, Size::Small))
        .chain((1..=4).map(|s| (s, Size::Large)));
    for (seed, size) in seeds {
        let spec = generate(seed, size);
        assert_eq!(
            format!("{spec:?}"),
            format!("{:?}", generate(seed, size)),
            "seed {seed}: not deterministic"
        );
        for (i, a) in spec.bodies.iter().enumerate() {
            assert!(
                !spec.floor || a.position.y - a.radius > 0.0,
                "seed {seed}: b{i} in the floor"
            );
            for (j, b) in spec.bodies.iter().enumerate().skip(i + 1) {
                let gap = (a.position - b.position).length() - a.radius - b.radius;
                assert!(gap > 0.0, "seed {seed}: b{i} and b{j} overlap by {}", -gap);
            }
        }
        let built = build(&spec);
        let w = &built.world;
        for (h, joint) in w.joints() {
            let def = joint.def();
            let (pa, pb) = w.joint_anchors(h).expect("anchors");
            let d = (pa - pb).length();
            // f32 rounding of world → local → world, m.
            let tol = 1e-4 * (1.0 + pa.abs().max_element());
            let what = format!("seed {seed}: {:?}", def.kind);
            match def.kind {
                JointKind::Spherical { cone } => {
                    assert!(d < tol, "{what}: anchors {d} m apart");
                    if let Some(c) = cone {
                        let ra = w.body(def.body_a).unwrap().rotation();
                        let rb = def
                            .body_b
                            .map_or(Quat::IDENTITY, |b| w.body(b).unwrap().rotation());
                        let angle = (ra * c.axis_a).angle_between(rb * c.axis_b);
                        assert!(angle <= c.half_angle + 1e-3, "{what}: {angle} rad out");
                    }
                }
                JointKind::Fixed { .. } => assert!(d < tol, "{what}: anchors {d} m apart"),
                JointKind::Revolute { limits, .. } => {
                    assert!(d < tol, "{what}: anchors {d} m apart");
                    let angle = w.joint_angle(h).expect("a hinge angle");
                    assert!(angle.abs() < 1e-3, "{what}: angle {angle}");
                    if let Some(limits) = limits {
                        assert!(limits.lower <= 0.0 && 0.0 <= limits.upper, "{what}");
                    }
                }
                JointKind::Distance { min, max } => {
                    assert!(min - tol <= d && d <= max + tol, "{what}: {d} m")
                }
                JointKind::Spring {
                    rest_length,
                    bungee,
                    ..
                } => {
                    if bungee {
                        assert!(d <= rest_length + tol, "{what}: {d} m");
                    } else {
                        assert!((d - rest_length).abs() <= tol, "{what}: {d} m");
                    }
                }
            }
        }
        assert!(
            built.refused.iter().all(|(k, _)| matches!(
                spec.joints[*k].shape,
                JointShape::Revolute {
                    axis_locked: true,
                    ..
                }
            )),
            "seed {seed}: valid joints refused: {:?}",
            built.refused
        );
    }
}

/// The default run: small worlds, all of which must keep every body and their energy.
#[test]
fn random_jointed_worlds_neither_freeze_nor_gain_energy() {
    let mut failures = Vec::new();
    for seed in 1..=SMALL_WORLDS {
        let spec = generate(seed, Size::Small);
        let (built, outcome) = run(&spec, SMALL_SECONDS, &|_| false);
        println!("seed {seed}: {}", outcome.summary());
        if outcome.failed() {
            failures.push(format!(
                "seed {seed}: {}\n    {}\n    {}",
                describe(&spec),
                outcome.summary(),
                culprits(&spec, &built, &outcome)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {SMALL_WORLDS} small jointed worlds failed (rerun one with JOINT_FUZZ_SEED=N \
         JOINT_FUZZ_SIZE=small and joint_fuzz::one_world):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The check itself against scenes that behave: the shipped jointed scenes (a chain, a
/// bridge of planks on bungees, a motorised door, ragdolls down stairs) run 10 s without a
/// frozen body or an energy gain past the tolerance. (Newton's cradle is below.)
#[test]
fn the_shipped_jointed_scenes_pass_the_check() {
    for name in ["chain", "bridge", "door", "ragdoll"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenes")
            .join(format!("{name}.ron"));
        let mut scene = scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut settings = scene.world.settings().clone();
        settings.enable_sleeping = false;
        scene.world.set_settings(settings).expect("settings");
        let steps = (LARGE_SECONDS / scene.timestep).round() as u64;
        let outcome = simulate(&mut scene.world, scene.timestep, steps, &|_| false);
        println!("{name}: {}", outcome.summary());
        assert!(!outcome.failed(), "{name}: {}", outcome.summary());
    }
}

/// Newton's cradle (`scenes/newtons_cradle.ron`: steel balls with restitution 1 on rods)
/// keeps its energy for 10 s.
#[test]
fn newtons_cradle_keeps_its_energy() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/newtons_cradle.ron");
    let mut scene = scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let steps = (LARGE_SECONDS / scene.timestep).round() as u64;
    let outcome = simulate(&mut scene.world, scene.timestep, steps, &|_| false);
    assert!(!outcome.failed(), "{}", outcome.summary());
}

/// The measurement: large worlds, their freeze and energy-gain rates by class and the worst
/// seeds with what went wrong. Reports; asserts nothing.
#[test]
#[ignore = "a measurement (minutes in release); run with --ignored --nocapture"]
fn measure() {
    let worlds = env_number("JOINT_FUZZ_WORLDS").unwrap_or(LARGE_WORLDS);
    let first = env_number("JOINT_FUZZ_FIRST_SEED").unwrap_or(1u64);
    let seconds = env_number("JOINT_FUZZ_SECONDS").unwrap_or(LARGE_SECONDS);
    let started = Instant::now();
    let mut by_class: BTreeMap<Class, Tally> = BTreeMap::new();
    let mut by_tag: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut all = Tally::default();
    let mut gains = Vec::new();
    let mut freezes = Vec::new();
    let mut refusals = Vec::new();
    let mut growths = Vec::new();
    for seed in first..first + worlds {
        let spec = generate(seed, Size::Large);
        let (built, outcome) = run(&spec, seconds, &|_| false);
        let refused = built.refused.len();
        // A failed world again without its joints: does it fail on its contacts alone?
        let without_joints = outcome.failed() && {
            let bare = WorldSpec {
                joints: Vec::new(),
                ..spec.clone()
            };
            run(&bare, seconds, &|o| o.failed()).1.failed()
        };
        by_class
            .entry(spec.class)
            .or_default()
            .add(&outcome, without_joints, refused);
        all.add(&outcome, without_joints, refused);
        let lightest = spec
            .bodies
            .iter()
            .map(|b| b.mass)
            .fold(f32::INFINITY, f32::min);
        let any = |f: fn(&JointShape) -> bool| spec.joints.iter().any(|j| f(&j.shape));
        let axis_locked = any(|s| {
            matches!(
                s,
                JointShape::Revolute {
                    axis_locked: true,
                    ..
                }
            )
        });
        let motor = any(|s| matches!(s, JointShape::Revolute { motor: Some(_), .. }));
        let moving = spec.bodies.iter().any(|b| b.linear_velocity != Vec3::ZERO);
        let ratio = mass_ratio(&spec);
        let n = spec.bodies.len();
        let tags = [
            ("lightest body: under 10 mg", lightest < 1e-5),
            (
                "lightest body: 10 mg to 1 g",
                (1e-5..1e-3).contains(&lightest),
            ),
            ("lightest body: 1 g or more", lightest >= 1e-3),
            ("mass ratio across a joint: ≤ 100", ratio <= 100.0),
            (
                "mass ratio across a joint: 100–10⁴",
                ratio > 100.0 && ratio <= 1e4,
            ),
            ("mass ratio across a joint: > 10⁴", ratio > 1e4),
            ("bodies: 10–25", n <= 25),
            ("bodies: 26–50", (26..=50).contains(&n)),
            ("bodies: 51–100", (51..=100).contains(&n)),
            ("bodies: 101–200", n > 100),
            ("hinge axis a body can't turn: yes", axis_locked),
            ("hinge axis a body can't turn: no", !axis_locked),
            ("motor: yes", motor),
            ("motor: no", !motor),
            ("floor: yes", spec.floor),
            ("floor: no", !spec.floor),
            ("initial velocities: yes", moving),
            ("initial velocities: no", !moving),
        ];
        for (tag, on) in tags {
            if on {
                by_tag
                    .entry(tag)
                    .or_default()
                    .add(&outcome, without_joints, refused);
            }
        }
        let line = format!(
            "seed {seed}: {}\n      {}{}\n      {}",
            describe(&spec),
            outcome.summary(),
            if without_joints {
                " (fails without joints too)"
            } else {
                ""
            },
            culprits(&spec, &built, &outcome)
        );
        if let Some((step, _)) = outcome.frozen {
            freezes.push((step, line.clone()));
        }
        if outcome.gained() {
            gains.push((outcome.growth(), line));
        }
        growths.push(outcome.growth());
        for (k, why) in &built.refused {
            refusals.push(format!(
                "seed {seed} joint {k} ({}): {why}",
                spec.joints[*k].shape.name()
            ));
        }
    }
    println!(
        "\n{worlds} jointed worlds (seeds {first}..={}), {seconds} s each, in {:.0} s \
         (no-joint%: worlds that fail with their joints removed too):\n{}",
        first + worlds - 1,
        started.elapsed().as_secs_f32(),
        Tally::HEADER
    );
    for (class, tally) in &by_class {
        println!("{}", tally.row(class.name()));
    }
    println!("{}", all.row("all"));
    println!("by what the world holds:");
    for (tag, tally) in &by_tag {
        println!("{}", tally.row(tag));
    }
    println!("\nlargest gain past the motors' work, in units of the energy scale (worlds):");
    let edges = [0.0, 0.01, 0.05, 0.2, 1.0, 10.0, 100.0, f64::INFINITY];
    let mut line = format!(
        "  below 0: {}",
        growths.iter().filter(|&&g| g < 0.0).count()
    );
    for w in edges.windows(2) {
        let n = growths.iter().filter(|&&g| g >= w[0] && g < w[1]).count();
        let _ = write!(line, ", {}–{}: {n}", w[0], w[1]);
    }
    println!("{line}");
    gains.sort_by(|a, b| b.0.total_cmp(&a.0));
    freezes.sort_by_key(|f| f.0);
    println!("\nlargest energy gains (past the motors' work, in units of the energy scale):");
    for (_, line) in gains.iter().take(12) {
        println!("  {line}");
    }
    println!("\nearliest freezes:");
    for (_, line) in freezes.iter().take(12) {
        println!("  {line}");
    }
    println!("\nrefused joints: {}", refusals.len());
    for line in refusals.iter().take(12) {
        println!("  {line}");
    }
}

/// One world (`JOINT_FUZZ_SEED`, `JOINT_FUZZ_SIZE=small` for the default run's) in detail;
/// `JOINT_FUZZ_SAVE=FILE` writes it as a scene.
#[test]
#[ignore = "a tool: JOINT_FUZZ_SEED=N cargo test --release --test suite joint_fuzz::one_world -- --ignored --nocapture"]
fn one_world() {
    let Some(seed) = env_number("JOINT_FUZZ_SEED") else {
        println!("set JOINT_FUZZ_SEED");
        return;
    };
    let seconds = env_number("JOINT_FUZZ_SECONDS").unwrap_or(LARGE_SECONDS);
    let mut spec = generate(seed, env_size());
    if std::env::var_os("JOINT_FUZZ_NOJOINTS").is_some() {
        spec.joints.clear();
    }
    let (built, outcome) = run(&spec, seconds, &|_| false);
    println!(
        "seed {seed}: {}\n{}\n{}",
        describe(&spec),
        outcome.summary(),
        culprits(&spec, &built, &outcome)
    );
    for (k, why) in &built.refused {
        println!(
            "refused joint {k} ({}): {why}",
            spec.joints[*k].shape.name()
        );
    }
    if let Some(steps) = env_number::<u64>("JOINT_FUZZ_TRACE") {
        trace(&spec, steps);
    }
    if let Ok(path) = std::env::var("JOINT_FUZZ_SAVE") {
        let comment = format!("joint_fuzz seed {seed}: {}", describe(&spec));
        save(&spec, Path::new(&path), &comment);
    }
}

/// Reduces the world of `JOINT_FUZZ_SEED` and prints (and with `JOINT_FUZZ_SAVE=FILE`
/// saves) what is left.
#[test]
#[ignore = "a tool: JOINT_FUZZ_SEED=N [JOINT_FUZZ_SAVE=FILE] cargo test --release --test suite joint_fuzz::reduce_world -- --ignored --nocapture"]
fn reduce_world() {
    let Some(seed) = env_number("JOINT_FUZZ_SEED") else {
        println!("set JOINT_FUZZ_SEED");
        return;
    };
    let seconds = env_number("JOINT_FUZZ_SECONDS").unwrap_or(LARGE_SECONDS);
    let spec = generate(seed, env_size());
    let Some((reduced, kind)) = reduce(&spec, seconds) else {
        println!("seed {seed} does not fail");
        return;
    };
    let (built, outcome) = run(&reduced, seconds, &|_| false);
    let loaded = run_loaded(&reduced, seconds, &|_| false).expect("the reduced scene loads");
    let kind = failure(&loaded).unwrap_or(kind);
    println!(
        "seed {seed} reduced ({kind:?}): {}\nas built: {}\nas saved: {}\n{}",
        describe(&reduced),
        outcome.summary(),
        loaded.summary(),
        culprits(&reduced, &built, &outcome)
    );
    for (i, j) in reduced.joints.iter().enumerate() {
        println!("  joint {i}: {:?}", j);
    }
    for (i, b) in reduced.bodies.iter().enumerate() {
        println!(
            "  b{i}: {} {:.2e} kg r {:.3} m at {:?} locks {:?}",
            b.shape, b.mass, b.radius, b.position, b.locked
        );
    }
    if let Ok(path) = std::env::var("JOINT_FUZZ_SAVE") {
        let comment = format!(
            "joint_fuzz seed {seed} reduced ({kind:?}): {}",
            describe(&reduced)
        );
        save(&reduced, Path::new(&path), &comment);
    }
}

/// The folder of reduced jointed scenes.
fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/joints")
}

/// Every scene in `tests/corpus/joints/` (small worlds that froze or gained energy) runs for
/// a minute without a frozen body or an energy gain past its motors' work, or is refused by the
/// loader for one of its joints.
#[test]
fn the_joint_corpus() {
    check_corpus(&corpus_dir());
}

/// Runs every scene file in `dir` for [`CORPUS_SECONDS`] and fails if any freezes or gains
/// energy; a scene the loader refuses for a joint (a hinge about an axis its body may not
/// turn about) passes.
fn check_corpus(dir: &Path) {
    let mut failures = Vec::new();
    let mut count = 0;
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a corpus folder")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        count += 1;
        let mut scene = match scene::load_file(&path) {
            Ok(scene) => scene,
            // A joint refused with a reason (the hinges about an axis a body may not turn
            // about should be) passes; any other load error does not.
            Err(e) if e.message.contains("joints[") => {
                println!("{name}: refused: {e}");
                continue;
            }
            Err(e) => panic!("{e}"),
        };
        let steps = (CORPUS_SECONDS / scene.timestep).round() as u64;
        let outcome = simulate(&mut scene.world, scene.timestep, steps, &|_| false);
        println!("{name}: {}", outcome.summary());
        if outcome.failed() {
            failures.push(format!("{name}: {}", outcome.summary()));
        }
    }
    assert!(count > 0, "no scenes in {}", dir.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
