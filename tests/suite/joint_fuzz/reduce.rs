//! Reduction of a failing world to the fewest joints and bodies, judged on its saved scene.

use std::collections::BTreeMap;
use std::path::Path;

use impulse::physics::{BodyHandle, Vec3};
use impulse::scene;

use super::check::{run, simulate, Outcome};
use super::report::env_number;
use super::spec::{build, BodySpec, JointSpec, WorldSpec};

/// What kind of failure, for the reduction to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Failure {
    Frozen,
    /// A gain past the motors' work of at least the whole energy scale (so the reduced world
    /// fails clearly, not by a rounding), or `JOINT_FUZZ_REDUCE_GROWTH` times it.
    Energy,
}

pub(super) fn failure(outcome: &Outcome) -> Option<Failure> {
    let growth = env_number("JOINT_FUZZ_REDUCE_GROWTH").unwrap_or(1.0);
    if outcome.frozen.is_some() || outcome.not_finite.is_some() {
        Some(Failure::Frozen)
    } else if outcome.gained() && outcome.growth() >= growth {
        Some(Failure::Energy)
    } else {
        None
    }
}

/// The spec without the bodies marked in `drop` (and their joints).
pub(super) fn without_bodies(spec: &WorldSpec, drop: &[bool]) -> WorldSpec {
    let mut index = Vec::with_capacity(drop.len());
    let mut next = 0;
    for &d in drop {
        index.push((!d).then_some(next));
        next += !d as usize;
    }
    WorldSpec {
        bodies: spec
            .bodies
            .iter()
            .zip(drop)
            .filter(|(_, &d)| !d)
            .map(|(b, _)| b.clone())
            .collect(),
        joints: spec
            .joints
            .iter()
            .filter_map(|j| {
                let a = index[j.a]?;
                let b = match j.b {
                    Some(b) => Some(index[b]?),
                    None => None,
                };
                Some(JointSpec { a, b, ..j.clone() })
            })
            .collect(),
        ..spec.clone()
    }
}

/// Removes chunks of `len` items (halves, then quarters, ... then single ones) while `fails`
/// still holds without them; `without` makes the spec without the items marked.
pub(super) fn remove_chunks(
    spec: WorldSpec,
    len: impl Fn(&WorldSpec) -> usize,
    without: impl Fn(&WorldSpec, &[bool]) -> WorldSpec,
    fails: &impl Fn(&WorldSpec) -> bool,
) -> WorldSpec {
    let mut spec = spec;
    let mut chunk = len(&spec).div_ceil(2).max(1);
    loop {
        let mut start = 0;
        while start < len(&spec) {
            let n = len(&spec);
            let marked: Vec<bool> = (0..n)
                .map(|i| (start..start + chunk).contains(&i))
                .collect();
            let candidate = without(&spec, &marked);
            if len(&candidate) < n && fails(&candidate) {
                spec = candidate;
            } else {
                start += chunk;
            }
        }
        if chunk == 1 {
            return spec;
        }
        chunk = chunk.div_ceil(2);
    }
}

/// The smallest world (fewest joints, then bodies) found that still fails clearly (a frozen
/// body or a gain of the whole energy scale, either: one usually brings the other), and how
/// the world of `spec` failed; None when it does not fail (or, with
/// `JOINT_FUZZ_REDUCE_KIND=frozen`, does not freeze).
pub(super) fn reduce(spec: &WorldSpec, seconds: f32) -> Option<(WorldSpec, Failure)> {
    let (_, outcome) = run(spec, seconds, &|_| false);
    let kind = failure(&outcome)?;
    // `JOINT_FUZZ_REDUCE_KIND=frozen`: keep a frozen body (a world that freezes usually gains
    // energy first, and the reduction otherwise keeps whichever comes).
    let frozen_only = std::env::var("JOINT_FUZZ_REDUCE_KIND").is_ok_and(|k| k == "frozen");
    if frozen_only && kind != Failure::Frozen {
        return None;
    }
    let stop = move |o: &Outcome| match failure(o) {
        Some(k) => !frozen_only || k == Failure::Frozen,
        None => false,
    };
    // Judged as the scene file loads, so that the saved file fails as the reduction did.
    let fails = |s: &WorldSpec| run_loaded(s, seconds, &stop).is_some_and(|o| stop(&o));
    let mut spec = spec.clone();
    loop {
        let (bodies, joints) = (spec.bodies.len(), spec.joints.len());
        spec = remove_chunks(
            spec,
            |s| s.joints.len(),
            |s, drop| WorldSpec {
                joints: s
                    .joints
                    .iter()
                    .zip(drop)
                    .filter(|(_, &d)| !d)
                    .map(|(j, _)| j.clone())
                    .collect(),
                ..s.clone()
            },
            &fails,
        );
        spec = remove_chunks(spec, |s| s.bodies.len(), without_bodies, &fails);
        if (spec.bodies.len(), spec.joints.len()) == (bodies, joints) {
            break;
        }
    }
    // Simpler still: without the floor, and without the starting velocities.
    if spec.floor {
        let candidate = WorldSpec {
            floor: false,
            ..spec.clone()
        };
        if fails(&candidate) {
            spec = candidate;
        }
    }
    let still = WorldSpec {
        bodies: spec
            .bodies
            .iter()
            .map(|b| BodySpec {
                linear_velocity: Vec3::ZERO,
                angular_velocity: Vec3::ZERO,
                ..b.clone()
            })
            .collect(),
        ..spec.clone()
    };
    if fails(&still) {
        spec = still;
    }
    Some((spec, kind))
}

/// The world of `spec` (as built, before its first step) as scene text, bodies named `b0`,
/// `b1`, ... in the spec's order.
pub(super) fn scene_text(spec: &WorldSpec, comment: &str) -> String {
    let built = build(spec);
    let meta: BTreeMap<BodyHandle, scene::BodyMeta> = built
        .bodies
        .iter()
        .enumerate()
        .map(|(i, &h)| {
            (
                h,
                scene::BodyMeta {
                    name: format!("b{i}"),
                    color: None,
                },
            )
        })
        .collect();
    scene::save::save(
        &built.world,
        &meta,
        &scene::schema::CameraDesc::default(),
        spec.timestep,
        comment,
    )
    .expect("the scene as RON")
}

/// Runs the world of `spec` as its scene file loads (the loader makes each joint again from
/// its world anchors, which changes the last bits of its frames, so a chaotic failure can
/// differ from the spec's own run); None when the loader refuses it.
pub(super) fn run_loaded(
    spec: &WorldSpec,
    seconds: f32,
    stop: &dyn Fn(&Outcome) -> bool,
) -> Option<Outcome> {
    let mut scene = scene::load_str(&scene_text(spec, ""), "reduced.ron").ok()?;
    let steps = (seconds / scene.timestep).round() as u64;
    Some(simulate(&mut scene.world, scene.timestep, steps, stop))
}

/// Writes the world of `spec` as a scene (see [`scene_text`]).
pub(super) fn save(spec: &WorldSpec, path: &Path, comment: &str) {
    std::fs::write(path, scene_text(spec, comment))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    println!("saved {}", path.display());
}
