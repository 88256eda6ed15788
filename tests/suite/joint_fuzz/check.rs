//! The checks: energy, its scale and the motors' bound, and a run that watches both
//! invariants after every step.

use std::fmt::Write as _;

use impulse::physics::{BodyHandle, BodyType, JointKind, Shape, World};

use super::spec::{build, Built, WorldSpec};

/// Allowed energy gain as a share of the world's energy scale (see [`energy_scale`]). Correct
/// physics never raises kinetic plus gravitational energy (every stored energy, a stretched
/// spring's or a soft joint's, is positive, and springs start at rest), but the discrete
/// solver wobbles around it: the rigid rows are 60 Hz springs in the biased pass, a millimetre
/// of drift in them holds ½·m·(2π·60 Hz)²·(1 mm)² ≈ 0.07 J per kg and is given back when they
/// settle; an explicit spring's energy oscillates by up to ω·h/2 of its own (a quarter at the
/// fastest explicit spring); contacts push overlapping bodies apart at up to 3 m/s before the
/// relax pass takes it out again. 5 % covers all of these with room, and the failures this
/// test is for gain 10² to 10⁴ times the scale.
pub(super) const RELATIVE_TOLERANCE: f64 = 0.05;
/// The allowed gain as a share of the most kinetic energy the world has reached so far,
/// unitless. A world without a floor falls for the whole run; after 40 s a body passes 4 km
/// at the 400 m/s speed cap, where its height in f32 is rounded to 0.5 mm on every sub-step's
/// 1.7 m move, the same way each time: m·g·y drifts by about 10⁻⁶ of the kinetic energy per
/// step (a 0.5 kg pair: 12 J against 4·10⁴ J by step 2 400). The failures this test is for
/// gain 10² to 10⁴ times the world's starting scale, far above this.
pub(super) const KINETIC_TOLERANCE: f64 = 1.0e-3;
/// The allowed gain per kilogram of dynamic body, J/kg, for worlds whose scale is near zero
/// (everything resting on the floor): a 1 kg body lifted 0.1 mm.
pub(super) const ABSOLUTE_TOLERANCE_PER_KG: f64 = 1.0e-3;

/// Kinetic plus gravitational energy of the dynamic bodies, J:
/// Σ ½·m·v² + ½·ωᵀ·I·ω − m·s·(g·x), with x the centre of mass and s the gravity scale.
pub(super) fn energy(world: &World) -> f64 {
    let g = world.settings().gravity.as_dvec3();
    world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Dynamic)
        .map(|(_, b)| {
            let potential = -(b.mass() as f64)
                * b.gravity_scale() as f64
                * g.dot(b.center_of_mass().as_dvec3());
            b.kinetic_energy() as f64 + potential
        })
        .sum()
}

/// The energy the world could turn into motion, J: its kinetic energy plus each dynamic
/// body's weight times its height above the floor (a static plane facing up), or, without
/// one, above 1 m below the lowest centre of mass.
pub(super) fn energy_scale(world: &World) -> f64 {
    let kinetic: f64 = world.bodies().map(|(_, b)| b.kinetic_energy() as f64).sum();
    let g = world.settings().gravity;
    let Some(up) = (-g).try_normalize() else {
        return kinetic;
    };
    let dynamic = || {
        world
            .bodies()
            .filter(|(_, b)| b.body_type() == BodyType::Dynamic)
            .map(|(_, b)| b)
    };
    let floor = world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Static)
        .flat_map(|(h, _)| world.body_colliders(h))
        .filter_map(|c| world.collider(c))
        .filter_map(|c| match c.shape() {
            Shape::Plane { normal } if (c.world_pose().rotation * *normal).dot(up) > 0.7 => {
                Some(c.world_pose().translation.dot(up))
            }
            _ => None,
        })
        .fold(f32::NEG_INFINITY, f32::max);
    let reference = if floor.is_finite() {
        floor
    } else {
        dynamic()
            .map(|b| b.center_of_mass().dot(up) - 1.0)
            .fold(f32::INFINITY, f32::min)
    };
    let potential: f64 = dynamic()
        .map(|b| {
            let height = (b.center_of_mass().dot(up) - reference).max(0.0) as f64;
            b.mass() as f64 * (b.gravity_scale() * g.length()) as f64 * height
        })
        .sum();
    kinetic + potential
}

/// The most power the world's motors can put in, W: Σ τ_max·|ω_target|. A motor's power
/// τ·ω_rel is positive only while ω_rel lies between 0 and its target (pushing it on), and the
/// torque is at most τ_max, so its work by time t is at most τ_max·|ω_target|·t.
pub(super) fn motor_power(world: &World) -> f64 {
    world
        .joints()
        .filter_map(|(_, j)| match j.def().kind {
            JointKind::Revolute {
                motor: Some(motor), ..
            } => Some(motor.speed.abs() as f64 * motor.max_torque as f64),
            _ => None,
        })
        .sum()
}

/// What a run showed.
#[derive(Clone, Debug)]
pub(super) struct Outcome {
    pub(super) steps: u64,
    /// The first step (1-based) in which bodies froze, and those bodies.
    pub(super) frozen: Option<(u64, Vec<BodyHandle>)>,
    /// The first step after which some body's state was not finite (never expected: the
    /// engine freezes such bodies).
    pub(super) not_finite: Option<u64>,
    /// Energy at the start, J.
    pub(super) start: f64,
    /// See [`energy_scale`], J.
    pub(super) scale: f64,
    /// The largest gain allowed past the motors' work, J.
    pub(super) tolerance: f64,
    /// The largest E(t) − E(0) − W(t) − [`KINETIC_TOLERANCE`]·K(t), J (W the motors'
    /// bound, K the most kinetic energy reached by then), and its step.
    pub(super) excess: f64,
    pub(super) excess_step: u64,
    /// The body with the most kinetic energy at that step.
    pub(super) excess_body: Option<BodyHandle>,
}

impl Outcome {
    pub(super) fn gained(&self) -> bool {
        self.excess > self.tolerance
    }

    pub(super) fn failed(&self) -> bool {
        self.frozen.is_some() || self.not_finite.is_some() || self.gained()
    }

    /// The largest gain past the motors' work in units of the energy scale.
    pub(super) fn growth(&self) -> f64 {
        self.excess / self.scale.max(1e-12)
    }

    pub(super) fn summary(&self) -> String {
        let mut s = String::new();
        if let Some((step, bodies)) = &self.frozen {
            let _ = write!(s, "{} frozen at step {step}; ", bodies.len());
        }
        if let Some(step) = self.not_finite {
            let _ = write!(s, "not finite at step {step}; ");
        }
        let _ = write!(
            s,
            "energy {:.3e} J at the start (scale {:.3e} J), gain past motors {:.3e} J = {:.3}× scale at step {} (allowed {:.3e} J)",
            self.start,
            self.scale,
            self.excess,
            self.growth(),
            self.excess_step,
            self.tolerance
        );
        s
    }
}

/// Steps `world` `steps` times by `dt`, checking after every step that no body froze or
/// stopped being finite and that the energy stays within its start plus the motors' work
/// plus the tolerance. Returns early once `stop` holds for the outcome so far.
pub(super) fn simulate(
    world: &mut World,
    dt: f32,
    steps: u64,
    stop: &dyn Fn(&Outcome) -> bool,
) -> Outcome {
    let start = energy(world);
    let scale = energy_scale(world);
    let mass: f64 = world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Dynamic)
        .map(|(_, b)| b.mass() as f64)
        .sum();
    let tolerance = RELATIVE_TOLERANCE * scale + ABSOLUTE_TOLERANCE_PER_KG * mass;
    let power = motor_power(world);
    let mut out = Outcome {
        steps: 0,
        frozen: None,
        not_finite: None,
        start,
        scale,
        tolerance,
        excess: f64::NEG_INFINITY,
        excess_step: 0,
        excess_body: None,
    };
    let mut kinetic_peak = 0.0f64;
    for step in 1..=steps {
        world.step(dt);
        out.steps = step;
        if out.frozen.is_none() && !world.frozen_bodies().is_empty() {
            out.frozen = Some((step, world.frozen_bodies().to_vec()));
        }
        let finite = world.bodies().all(|(_, b)| {
            b.position().is_finite()
                && b.rotation().is_finite()
                && b.linear_velocity().is_finite()
                && b.angular_velocity().is_finite()
        });
        if !finite && out.not_finite.is_none() {
            out.not_finite = Some(step);
        }
        let kinetic: f64 = world.bodies().map(|(_, b)| b.kinetic_energy() as f64).sum();
        kinetic_peak = kinetic_peak.max(kinetic);
        let excess = energy(world)
            - start
            - power * (step as f64 * dt as f64)
            - KINETIC_TOLERANCE * kinetic_peak;
        if excess > out.excess {
            out.excess = excess;
            out.excess_step = step;
            out.excess_body = world
                .bodies()
                .max_by(|x, y| x.1.kinetic_energy().total_cmp(&y.1.kinetic_energy()))
                .map(|(h, _)| h);
        }
        if stop(&out) {
            break;
        }
    }
    out
}

/// Builds and runs the world of a spec for `seconds`.
pub(super) fn run(
    spec: &WorldSpec,
    seconds: f32,
    stop: &dyn Fn(&Outcome) -> bool,
) -> (Built, Outcome) {
    let mut built = build(spec);
    let steps = (seconds / spec.timestep).round() as u64;
    let outcome = simulate(&mut built.world, spec.timestep, steps, stop);
    (built, outcome)
}
