//! What the runs print: one line per world and per body, counts per group of worlds, and
//! the energy step by step.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use impulse::physics::BodyHandle;

use super::check::{energy, Outcome};
use super::spec::{build, Built, JointShape, Size, WorldSpec};

/// One line about a world: class, floor, step, bodies, lightest mass, joints by kind.
pub(super) fn describe(spec: &WorldSpec) -> String {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for j in &spec.joints {
        *kinds.entry(j.shape.kind()).or_default() += 1;
    }
    let lightest = spec
        .bodies
        .iter()
        .map(|b| b.mass)
        .fold(f32::INFINITY, f32::min);
    let locked = spec.bodies.iter().filter(|b| !b.locked.is_none()).count();
    let axis_locked = spec
        .joints
        .iter()
        .filter(|j| {
            matches!(
                j.shape,
                JointShape::Revolute {
                    axis_locked: true,
                    ..
                }
            )
        })
        .count();
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    format!(
        "{}{}, 1/{:.0} s × {} sub-steps, {} bodies ({} locked, lightest {:.1e} kg), joints: {}{}",
        spec.class.name(),
        if spec.floor { " with floor" } else { "" },
        1.0 / spec.timestep,
        spec.settings.substeps,
        spec.bodies.len(),
        locked,
        lightest,
        kinds.join(", "),
        if axis_locked > 0 {
            format!(" ({axis_locked} hinges about an axis a body may not turn about)")
        } else {
            String::new()
        }
    )
}

/// A body and its joints, for reports: "b12 capsule 2.1e-4 kg locked T[x] R[xy]: hinge to b3
/// (0.52 kg), spring to the world".
pub(super) fn describe_body(spec: &WorldSpec, built: &Built, handle: BodyHandle) -> String {
    let Some(i) = built.bodies.iter().position(|&h| h == handle) else {
        return "the floor".into();
    };
    let body = &spec.bodies[i];
    let axes = |l: [bool; 3]| -> String {
        ["x", "y", "z"]
            .iter()
            .zip(l)
            .filter(|(_, on)| *on)
            .map(|(a, _)| *a)
            .collect()
    };
    let mut s = format!("b{i} {} {:.1e} kg", body.shape, body.mass);
    if !body.locked.is_none() {
        let _ = write!(
            s,
            " locked T[{}] R[{}]",
            axes(body.locked.translation),
            axes(body.locked.rotation)
        );
    }
    let joints: Vec<String> = spec
        .joints
        .iter()
        .enumerate()
        .filter(|(_, j)| j.a == i || j.b == Some(i))
        .map(|(k, j)| {
            let other = if j.a == i { j.b } else { Some(j.a) };
            let refused = if built.refused.iter().any(|(r, _)| *r == k) {
                " (refused)"
            } else {
                ""
            };
            match other {
                Some(o) => format!(
                    "{} to b{o} ({:.1e} kg){refused}",
                    j.shape.name(),
                    spec.bodies[o].mass
                ),
                None => format!("{} to the world{refused}", j.shape.name()),
            }
        })
        .collect();
    let _ = write!(
        s,
        ": {}",
        if joints.is_empty() {
            "no joints".into()
        } else {
            joints.join(", ")
        }
    );
    s
}

/// The largest ratio of the masses of two bodies joined to each other.
pub(super) fn mass_ratio(spec: &WorldSpec) -> f32 {
    spec.joints
        .iter()
        .filter_map(|j| {
            let (a, b) = (spec.bodies[j.a].mass, spec.bodies[j.b?].mass);
            Some(a.max(b) / a.min(b))
        })
        .fold(1.0, f32::max)
}

/// The bodies a failure points at: the frozen ones (first three), else the fastest.
pub(super) fn culprits(spec: &WorldSpec, built: &Built, outcome: &Outcome) -> String {
    let handles: Vec<BodyHandle> = match (&outcome.frozen, outcome.excess_body) {
        (Some((_, frozen)), _) => frozen.iter().take(3).copied().collect(),
        (None, Some(h)) => vec![h],
        (None, None) => Vec::new(),
    };
    handles
        .iter()
        .map(|&h| describe_body(spec, built, h))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Reads a number from the environment.
pub(super) fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

pub(super) fn env_size() -> Size {
    match std::env::var("JOINT_FUZZ_SIZE").as_deref() {
        Ok("small") => Size::Small,
        _ => Size::Large,
    }
}

/// Counts per group of worlds.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) worlds: usize,
    pub(super) frozen: usize,
    pub(super) gained: usize,
    pub(super) failed: usize,
    /// Failed worlds that fail without their joints too (contacts alone).
    pub(super) without_joints: usize,
    pub(super) refused: usize,
}

impl Tally {
    pub(super) fn add(&mut self, outcome: &Outcome, without_joints: bool, refused: usize) {
        self.worlds += 1;
        self.frozen += (outcome.frozen.is_some() || outcome.not_finite.is_some()) as usize;
        self.gained += outcome.gained() as usize;
        self.failed += outcome.failed() as usize;
        self.without_joints += without_joints as usize;
        self.refused += refused;
    }

    pub(super) const HEADER: &'static str =
        "worlds                                count  frozen%    gain%  either%  no-joint%  refused";

    pub(super) fn row(&self, name: &str) -> String {
        let pct = |n: usize| 100.0 * n as f64 / self.worlds.max(1) as f64;
        format!(
            "{name:<36} {:>6} {:>8.1} {:>8.1} {:>8.1} {:>10.1} {:>8}",
            self.worlds,
            pct(self.frozen),
            pct(self.gained),
            pct(self.failed),
            pct(self.without_joints),
            self.refused
        )
    }
}

/// Prints the energy after each of the first `steps` steps, and the body with the most
/// kinetic energy.
pub(super) fn trace(spec: &WorldSpec, steps: u64) {
    let mut built = build(spec);
    let start = energy(&built.world);
    println!("step 0: E = {start:.6e} J");
    for step in 1..=steps {
        built.world.step(spec.timestep);
        let (h, body) = built
            .world
            .bodies()
            .max_by(|x, y| x.1.kinetic_energy().total_cmp(&y.1.kinetic_energy()))
            .expect("a body");
        println!(
            "step {step}: E − E0 = {:+.6e} J; fastest {} at {:.3e} J{}",
            energy(&built.world) - start,
            describe_body(spec, &built, h),
            body.kinetic_energy(),
            if built.world.frozen_bodies().is_empty() {
                String::new()
            } else {
                format!("; {} frozen", built.world.frozen_bodies().len())
            }
        );
    }
}
