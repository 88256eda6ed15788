//! The weld: the anchors coincide (the point rows of `parts.rs`) and A keeps the rotation
//! relative to B it had when the joint was made: three angular rows, the error
//! θ = 2·vec(q_a·(q_b·q_ref)⁻¹) (small angles), its rate ω_a − ω_b, K = I_a⁻¹ + I_b⁻¹.

use super::super::math::{Quat, Vec3};
use super::super::solver::SolverBody;
use super::super::world::{BodyHandle, World};
use super::block::{Row, Slot};
use super::parts::{self, Anchors, JointBodies, SubStep};
use super::{JointConstraint, JointDef, JointKind, JointPass, JointState};

/// A weld's own accumulated impulse besides its point rows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct WeldState {
    /// The angular rows' impulse, N·m·s (applied −to A, +to B).
    pub angular: Vec3,
}

impl JointDef {
    /// A weld at the world point `anchor` between `a` and `b` (or the world): they keep the
    /// poses they have now relative to each other.
    pub fn fixed(world: &World, a: BodyHandle, b: Option<BodyHandle>, anchor: Vec3) -> Self {
        let rotation = |h: Option<BodyHandle>| {
            h.and_then(|h| world.body(h))
                .map_or(Quat::IDENTITY, |body| body.rotation())
        };
        let reference = (rotation(b).inverse() * rotation(Some(a))).normalize();
        Self::between(world, a, b, anchor, anchor, JointKind::Fixed { reference })
    }
}

/// One pass over a weld: the angular rows, then the point rows (the angular rows change no
/// position, so the anchors hold), unless the island's block solves them.
pub(super) fn solve<B: JointBodies + ?Sized>(
    c: &mut JointConstraint,
    reference: Quat,
    bodies: &mut B,
    step: &SubStep,
) {
    let anchors = Anchors::new(c, bodies);
    let JointState::Fixed(mut state) = c.state else {
        unreachable!("a weld carries a weld state");
    };
    if step.pass == JointPass::WarmStart {
        parts::apply(bodies, c, anchors.ra, anchors.rb, c.impulse);
        parts::apply_angular(bodies, c, state.angular);
        return;
    }
    if c.is_sequential() {
        weld_rows(bodies, c, &mut state, reference, step);
        c.state = JointState::Fixed(state);
        parts::point_rows(bodies, c, &anchors, step);
    }
}

/// A weld's angular error θ = 2·vec(q_a·(q_b·q_ref)⁻¹), rad, of the smaller of the two
/// turns that q and −q (the same rotation) describe.
fn weld_error(c: &JointConstraint, a: &SolverBody, b: &SolverBody, reference: Quat) -> Vec3 {
    let qa = a.delta_rotation * c.rotation_a;
    let qb = b.delta_rotation * c.rotation_b;
    let e = qa * (qb * reference).inverse();
    2.0 * e.w.signum() * Vec3::new(e.x, e.y, e.z)
}

/// The three rows that keep A's rotation relative to B at `reference`, soft in the biased
/// pass; the accumulated impulse is `state.angular`.
fn weld_rows<B: JointBodies + ?Sized>(
    bodies: &mut B,
    c: &JointConstraint,
    state: &mut WeldState,
    reference: Quat,
    step: &SubStep,
) {
    let (body_a, body_b) = (bodies[c.a as usize], bodies[c.b as usize]);
    // An axis neither body may turn about (a locked rotation, or a planar world welded to
    // a static body) leaves K singular: `solve_symmetric` solves the free axes only.
    let k = body_a.inv_inertia + body_b.inv_inertia;
    // The rate of the error θ is ω_a − ω_b; `apply_angular(l)` changes it by −K·l.
    let rate = body_a.angular_velocity - body_b.angular_velocity;
    let accumulated = state.angular;
    let l = if step.biased() {
        let error = weld_error(c, &body_a, &body_b, reference);
        let (mass_scale, impulse_scale) = parts::scales(&step.soft);
        mass_scale * parts::solve_symmetric(k, rate + step.soft.bias_rate * error)
            - impulse_scale * accumulated
    } else {
        parts::solve_symmetric(k, rate)
    };
    state.angular = accumulated + l;
    parts::apply_angular(bodies, c, l);
}

/// A weld's equality rows for its island's block: the angular rows (J = (0, −e, 0, e) per
/// world axis e, C = −θ·e, the sign of their rate ω_b − ω_a) and the point rows.
pub(super) fn equality_rows<B: JointBodies + ?Sized>(
    index: u32,
    c: &JointConstraint,
    bodies: &B,
    reference: Quat,
    anchors: &Anchors,
    rows: &mut Vec<Row>,
) {
    let error = weld_error(c, &bodies[c.a as usize], &bodies[c.b as usize], reference);
    for (k, e) in [Vec3::X, Vec3::Y, Vec3::Z].into_iter().enumerate() {
        rows.push(c.row(
            index,
            Slot::WeldAngular(k),
            [Vec3::ZERO, -e, Vec3::ZERO, e],
            -error[k],
        ));
    }
    parts::point_equality_rows(index, c, anchors, rows);
}
