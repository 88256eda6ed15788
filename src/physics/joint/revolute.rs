//! The hinge: the anchors coincide (the point rows of `parts.rs`), two angular rows keep
//! the bodies' axes parallel, and about the axis an optional motor drives the relative spin
//! and optional limits bound the angle (one limit row each way).
//!
//! Alignment: with a and b the hinge axis as A and B carry it, and t₁, t₂ two directions
//! across a, C_i = b·t_i is zero when the axes are parallel; Ċ_i = (ω_b − ω_a)·(b × t_i),
//! K = r_iᵀ(I_a⁻¹ + I_b⁻¹)r_j for r_i = b × t_i (a 2×2 block, solved together). The angle is
//! measured between a direction across the axis fixed in each body, equal when the joint
//! was made.

use super::super::math::{Mat3, Vec3};
use super::super::solver::SolverBody;
use super::super::world::{BodyHandle, World};
use super::block::{Row, Slot};
use super::parts::{self, Anchors, JointBodies, SubStep};
use super::{JointConstraint, JointDef, JointKind, JointPass, JointState};

/// A hinge's angle limits: A's angle relative to B (or the world) about the axis stays
/// between them, rad (right-handed: positive turns A anticlockwise seen from the axis'
/// tip; 0 where the joint was made).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// The lowest angle, rad.
    pub lower: f32,
    /// The highest angle, rad (at least `lower`).
    pub upper: f32,
}

/// A hinge's motor: drives A's spin relative to B (or the world) about the axis towards
/// `speed`, with at most `max_torque`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motor {
    /// Target spin of A relative to B about the axis, rad/s (right-handed, as the angle).
    pub speed: f32,
    /// The largest torque the motor may use, N·m (0 or more).
    pub max_torque: f32,
}

/// A hinge's own accumulated impulses besides its point rows, N·m·s.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct HingeState {
    /// The two alignment rows' impulses (along `Hinge::r1`, `Hinge::r2`).
    pub alignment: [f32; 2],
    /// The motor's impulse about the axis.
    pub motor: f32,
    /// The lower limit's impulse (≥ 0).
    pub lower: f32,
    /// The upper limit's impulse (≥ 0).
    pub upper: f32,
}

impl JointDef {
    /// A hinge at the world point `anchor` about the world direction `axis`, free to turn
    /// (add [`with_limits`](Self::with_limits) and [`with_motor`](Self::with_motor)). Its
    /// angle is 0 where the bodies are now.
    pub fn revolute(
        world: &World,
        a: BodyHandle,
        b: Option<BodyHandle>,
        anchor: Vec3,
        axis: Vec3,
    ) -> Self {
        let axis = axis.normalize_or(Vec3::Y);
        // The angle is measured from the direction towards A's centre of mass across the
        // axis (any direction across it when that centre lies on the axis): a drawn hinge
        // then points along its body.
        let reference = world
            .body(a)
            .and_then(|body| {
                let out = body.center_of_mass() - anchor;
                (out - axis * axis.dot(out)).try_normalize()
            })
            .unwrap_or_else(|| axis.any_orthonormal_vector());
        let to_local = |h: Option<BodyHandle>, v: Vec3| match h.and_then(|h| world.body(h)) {
            Some(body) => body.rotation().inverse() * v,
            None => v,
        };
        Self::between(
            world,
            a,
            b,
            anchor,
            anchor,
            JointKind::Revolute {
                axis_a: to_local(Some(a), axis),
                axis_b: to_local(b, axis),
                reference_a: to_local(Some(a), reference),
                reference_b: to_local(b, reference),
                limits: None,
                motor: None,
            },
        )
    }

    /// This hinge with its angle kept between `lower` and `upper`, rad (0 where it was made).
    ///
    /// # Panics
    /// On a joint that is not a hinge (only a hinge has an angle).
    pub fn with_limits(mut self, lower: f32, upper: f32) -> Self {
        match &mut self.kind {
            JointKind::Revolute { limits, .. } => *limits = Some(Limits { lower, upper }),
            other => panic!("only a hinge has angle limits, not {other:?}"),
        }
        self
    }

    /// This hinge driven by `motor`.
    ///
    /// # Panics
    /// On a joint that is not a hinge (only a hinge has a motor).
    pub fn with_motor(mut self, motor: Motor) -> Self {
        match &mut self.kind {
            JointKind::Revolute { motor: slot, .. } => *slot = Some(motor),
            other => panic!("only a hinge has a motor, not {other:?}"),
        }
        self
    }
}

/// A hinge's geometry in the sub-step: A's axis, the two alignment rows across it, their
/// errors, and the angle of A relative to B about the axis.
struct Hinge {
    /// A's axis in the world, unit.
    axis: Vec3,
    /// The alignment rows' angular directions, r_i = b × t_i.
    r1: Vec3,
    r2: Vec3,
    /// The alignment errors C_i = b·t_i.
    error: (f32, f32),
    /// A's angle relative to B, rad, in (−π, π].
    angle: f32,
}

impl Hinge {
    fn new(c: &JointConstraint, a: &SolverBody, b: &SolverBody) -> Self {
        let JointKind::Revolute {
            axis_a,
            axis_b,
            reference_a,
            reference_b,
            ..
        } = c.kind
        else {
            unreachable!("a hinge from a revolute joint");
        };
        let qa = a.delta_rotation * c.rotation_a;
        let qb = b.delta_rotation * c.rotation_b;
        let (axis, other) = (qa * axis_a, qb * axis_b);
        let across = axis.any_orthonormal_pair();
        // C = b's axis · (a direction across a's axis): zero when they are parallel; its
        // rate is (ω_b − ω_a)·(b's axis × that direction).
        let (r1, r2) = (other.cross(across.0), other.cross(across.1));
        let error = (other.dot(across.0), other.dot(across.1));
        let angle = hinge_angle(axis, qa * reference_a, qb * reference_b);
        Hinge {
            axis,
            r1,
            r2,
            error,
            angle,
        }
    }
}

/// The angle from B's reference direction to A's about `axis` (A's turn relative to B),
/// rad, in (−π, π].
pub(super) fn hinge_angle(axis: Vec3, reference_a: Vec3, reference_b: Vec3) -> f32 {
    reference_b
        .cross(reference_a)
        .dot(axis)
        .atan2(reference_a.dot(reference_b))
}

/// The angle equal to `angle` up to whole turns that lies within half a turn of `middle`
/// (the middle of a hinge's limits), rad. The hinge's angle wraps at ±π; measured this way,
/// an angle in the forbidden arc counts against the nearer limit, and a limit at −π or π
/// is not met at once from the other side when the angle wraps.
fn angle_near(angle: f32, middle: f32) -> f32 {
    let tau = std::f32::consts::TAU;
    let turns = ((angle - middle) / tau).round();
    angle - turns * tau
}

/// One pass over a hinge: the motor, the limits, then (unless the island's block solves
/// them) the alignment and point rows. The angular rows change no position, so the anchors
/// hold throughout.
pub(super) fn solve<B: JointBodies + ?Sized>(
    c: &mut JointConstraint,
    limits: Option<Limits>,
    motor: Option<Motor>,
    bodies: &mut B,
    step: &SubStep,
) {
    let anchors = Anchors::new(c, bodies);
    let JointState::Revolute(mut state) = c.state else {
        unreachable!("a revolute joint carries a hinge state");
    };
    let hinge = Hinge::new(c, &bodies[c.a as usize], &bodies[c.b as usize]);
    if step.pass == JointPass::WarmStart {
        parts::apply(bodies, c, anchors.ra, anchors.rb, c.impulse);
        let [p1, p2] = state.alignment;
        let turn =
            hinge.r1 * p1 + hinge.r2 * p2 - hinge.axis * (state.motor + state.lower - state.upper);
        parts::apply_angular(bodies, c, turn);
        return;
    }
    let inv_sum = bodies[c.a as usize].inv_inertia + bodies[c.b as usize].inv_inertia;
    // Motor and limits act on A's spin relative to B (the world, for a door).
    let spin =
        |bodies: &B| bodies[c.a as usize].angular_velocity - bodies[c.b as usize].angular_velocity;
    let k_axis = hinge.axis.dot(inv_sum * hinge.axis);
    // Motor: the relative spin about the axis towards its target, within the torque it
    // may use this sub-step.
    if let Some(motor) = motor {
        if k_axis > 0.0 {
            let cdot = spin(bodies).dot(hinge.axis) - motor.speed;
            let old = state.motor;
            let max = motor.max_torque * step.h;
            state.motor = parts::motor_impulse(old, cdot, k_axis, max);
            parts::apply_angular(bodies, c, -hinge.axis * (state.motor - old));
        }
    }
    // Limits: each pushes one way only (the lower one raises the angle, the upper one
    // lowers it); slack ones are speculative.
    if let Some(limits) = limits.filter(|l| l.lower == l.upper) {
        // Held at one angle: one two-sided row (`parts::equality_delta`), its impulse in
        // `lower`; an equality row, in the island's block unless the joint is sequential.
        if k_axis > 0.0 && c.is_sequential() {
            let angle = angle_near(hinge.angle, limits.lower);
            let rate = spin(bodies).dot(hinge.axis);
            let delta =
                parts::equality_delta(state.lower, rate, angle - limits.lower, k_axis, step);
            state.lower += delta;
            parts::apply_angular(bodies, c, -hinge.axis * delta);
        }
    } else if let Some(limits) = limits {
        // In the island's block unless the joint is sequential.
        if k_axis > 0.0 && c.is_sequential() {
            let angle = angle_near(hinge.angle, 0.5 * (limits.lower + limits.upper));
            for (impulse, gap, sign) in [
                (&mut state.lower, angle - limits.lower, 1.0f32),
                (&mut state.upper, limits.upper - angle, -1.0),
            ] {
                let cdot = sign * spin(bodies).dot(hinge.axis);
                let old = *impulse;
                *impulse = parts::limit_impulse(old, cdot, gap, k_axis, step);
                parts::apply_angular(bodies, c, -hinge.axis * (sign * (*impulse - old)));
            }
        }
    }
    if c.is_sequential() {
        alignment_rows(bodies, c, &mut state, &hinge, inv_sum, step);
        parts::point_rows(bodies, c, &anchors, step);
    }
    c.state = JointState::Revolute(state);
}

/// The two rows that keep the axes parallel, solved together: K the 2×2 block of
/// `inv_sum` = I_a⁻¹ + I_b⁻¹ (with a third, empty row and column for
/// [`parts::solve_symmetric`]).
fn alignment_rows<B: JointBodies + ?Sized>(
    bodies: &mut B,
    c: &JointConstraint,
    state: &mut HingeState,
    hinge: &Hinge,
    inv_sum: Mat3,
    step: &SubStep,
) {
    let (mass_scale, impulse_scale) = step.scales();
    let k11 = hinge.r1.dot(inv_sum * hinge.r1);
    let k12 = hinge.r1.dot(inv_sum * hinge.r2);
    let k22 = hinge.r2.dot(inv_sum * hinge.r2);
    let k = Mat3::from_cols(
        Vec3::new(k11, k12, 0.0),
        Vec3::new(k12, k22, 0.0),
        Vec3::ZERO,
    );
    // These rows' rate is B's spin relative to A's: −(ω_a − ω_b).
    let w = -(bodies[c.a as usize].angular_velocity - bodies[c.b as usize].angular_velocity);
    let mut rate = Vec3::new(w.dot(hinge.r1), w.dot(hinge.r2), 0.0);
    if step.biased() {
        rate += step.soft.bias_rate * Vec3::new(hinge.error.0, hinge.error.1, 0.0);
    }
    // Solve K·λ = −ċ.
    let l = -parts::solve_symmetric(k, rate);
    let (d1, d2) = (
        mass_scale * l.x - impulse_scale * state.alignment[0],
        mass_scale * l.y - impulse_scale * state.alignment[1],
    );
    state.alignment[0] += d1;
    state.alignment[1] += d2;
    parts::apply_angular(bodies, c, hinge.r1 * d1 + hinge.r2 * d2);
}

/// A hinge's equality rows for its island's block: the two alignment rows (J = (0, −r_i,
/// 0, r_i), C = the alignment error) and the point rows.
pub(super) fn equality_rows<B: JointBodies + ?Sized>(
    index: u32,
    c: &JointConstraint,
    bodies: &B,
    anchors: &Anchors,
    rows: &mut Vec<Row>,
) {
    let hinge = Hinge::new(c, &bodies[c.a as usize], &bodies[c.b as usize]);
    for (k, (r, error)) in [(hinge.r1, hinge.error.0), (hinge.r2, hinge.error.1)]
        .into_iter()
        .enumerate()
    {
        rows.push(c.row(
            index,
            Slot::HingeAlignment(k),
            [Vec3::ZERO, -r, Vec3::ZERO, r],
            error,
        ));
    }
    // Held at one angle (limits with lower = upper): the angle row too, Ċ = (ω_a − ω_b)·axis,
    // C = angle − lower, its impulse in `lower` (as `solve` keeps it when sequential).
    let turn = [Vec3::ZERO, hinge.axis, Vec3::ZERO, -hinge.axis];
    if let JointKind::Revolute {
        limits: Some(limits),
        ..
    } = c.kind
    {
        if limits.lower == limits.upper {
            let angle = angle_near(hinge.angle, limits.lower);
            rows.push(c.row(index, Slot::HingeAngle, turn, angle - limits.lower));
        }
    }
    parts::point_equality_rows(index, c, anchors, rows);
    // Distinct limits: two one-sided rows, the lower one raising the angle (J as the angle
    // row's, gap angle − lower), the upper one lowering it (−J, gap upper − angle).
    if let JointKind::Revolute {
        limits: Some(limits),
        ..
    } = c.kind
    {
        if limits.lower != limits.upper {
            let angle = angle_near(hinge.angle, 0.5 * (limits.lower + limits.upper));
            let [la, aa, lb, ab] = turn;
            let back = [-la, -aa, -lb, -ab];
            rows.push(c.limit_row(index, Slot::HingeLower, turn, angle - limits.lower));
            rows.push(c.limit_row(index, Slot::HingeUpper, back, limits.upper - angle));
        }
    }
}
