//! The ball and socket: the anchors coincide (the three point rows of `parts.rs`), and
//! optionally A's swing relative to B stays within a cone (one limit row about the swing
//! axis).

use super::super::math::{Quat, Vec3};
use super::super::world::{BodyHandle, World};
use super::block::{Row, Slot};
use super::parts::{self, Anchors, JointBodies, SubStep};
use super::{Cone, JointConstraint, JointDef, JointKind, JointPass, JointState};

/// A ball joint's own accumulated impulse besides its point rows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SwingState {
    /// The swing limit's impulse, N·m·s (≥ 0; 0 without a cone).
    pub swing: f32,
}

impl JointDef {
    /// A ball and socket at the world point `anchor`, between `a` and `b` (or the world).
    pub fn spherical(world: &World, a: BodyHandle, b: Option<BodyHandle>, anchor: Vec3) -> Self {
        Self::between(
            world,
            a,
            b,
            anchor,
            anchor,
            JointKind::Spherical { cone: None },
        )
    }

    /// A ball joint at `anchor` whose A may swing at most `half_angle` (rad) away from the
    /// world direction `axis` as B (or the world) carries it: A's axis is the direction from
    /// the anchor to its centre of mass now, so with `axis` None the cone is centred where A
    /// points now. Refused when the anchor is at A's centre of mass (A has no direction).
    pub fn spherical_cone(
        world: &World,
        a: BodyHandle,
        b: Option<BodyHandle>,
        anchor: Vec3,
        axis: Option<Vec3>,
        half_angle: f32,
    ) -> Result<Self, String> {
        let body = world.body(a).ok_or("a is not in the world")?;
        let out = (body.center_of_mass() - anchor)
            .try_normalize()
            .ok_or("a cone needs the anchor away from a's centre of mass")?;
        let axis = match axis {
            Some(axis) => axis
                .try_normalize()
                .ok_or_else(|| format!("cone axis must be a non-zero direction, got {axis}"))?,
            None => out,
        };
        let rotation_b = b
            .and_then(|h| world.body(h))
            .map_or(Quat::IDENTITY, |body| body.rotation());
        let cone = Cone {
            axis_a: body.rotation().inverse() * out,
            axis_b: rotation_b.inverse() * axis,
            half_angle,
        };
        Ok(Self::between(
            world,
            a,
            b,
            anchor,
            anchor,
            JointKind::Spherical { cone: Some(cone) },
        ))
    }
}

/// One pass over a ball joint: the swing limit, then (unless the island's block solves
/// them) the point rows. The swing row changes no position, so the anchors hold for both.
pub(super) fn solve<B: JointBodies + ?Sized>(
    c: &mut JointConstraint,
    cone: Option<Cone>,
    bodies: &mut B,
    step: &SubStep,
) {
    let anchors = Anchors::new(c, bodies);
    let JointState::Spherical(mut state) = c.state else {
        unreachable!("a ball joint carries a swing state");
    };
    if step.pass == JointPass::WarmStart {
        parts::apply(bodies, c, anchors.ra, anchors.rb, c.impulse);
        if let Some(swing) = cone.and_then(|cone| Swing::new(c, bodies, &cone)) {
            let turn = swing.axis * state.swing;
            apply_swing(bodies, c, anchors.ra, turn);
        }
        return;
    }
    // The swing limit is in the island's block unless the joint is sequential.
    if c.is_sequential() {
        if let Some(cone) = cone {
            swing_row(bodies, c, &mut state, &cone, anchors.ra, step);
            c.state = JointState::Spherical(state);
        }
        parts::point_rows(bodies, c, &anchors, step);
    }
}

/// The swing limit as a row of the island's block: Ċ = (ω_a − ω_b)·r for r the swing axis,
/// gap half_angle − θ (as [`swing_row`]); the block's point rows keep the anchors together,
/// so the row turns the bodies about their centres of mass.
pub(super) fn swing_limit_row<B: JointBodies + ?Sized>(
    index: u32,
    c: &JointConstraint,
    bodies: &B,
    cone: &Cone,
    rows: &mut Vec<Row>,
) {
    if let Some(swing) = Swing::new(c, bodies, cone) {
        let r = swing.axis;
        let gap = cone.half_angle - swing.angle;
        rows.push(c.limit_row(index, Slot::Swing, [Vec3::ZERO, r, Vec3::ZERO, -r], gap));
    }
}

/// A ball joint's swing in the sub-step: the axis A would turn about to reach B's cone axis
/// ((a × b)/|a × b|) and the angle between them.
struct Swing {
    /// The swing axis, unit.
    axis: Vec3,
    /// The angle between A's axis and the cone's, rad.
    angle: f32,
}

impl Swing {
    /// None when A's axis lies along the cone's (no direction to limit; the angle is 0 or π,
    /// and π is refused by the limit below 180° before it is reached).
    fn new<B: JointBodies + ?Sized>(c: &JointConstraint, bodies: &B, cone: &Cone) -> Option<Swing> {
        let qa = bodies[c.a as usize].delta_rotation * c.rotation_a;
        let qb = bodies[c.b as usize].delta_rotation * c.rotation_b;
        let (a, b) = (qa * cone.axis_a, qb * cone.axis_b);
        let cross = a.cross(b);
        let sin = cross.length();
        (sin > 1.0e-6).then(|| Swing {
            axis: cross / sin,
            angle: sin.atan2(a.dot(b)),
        })
    }
}

/// Applies the swing impulse `turn` (+ to A, − to B). Against the world (B = 0), A turns
/// about the anchor at arm `ra`, which stays where it is: Δω = I_p⁻¹·L and Δv = r_a × Δω with
/// I_p the inertia about the anchor ([`parts::pivot_inv_inertia`]). Between two moving
/// bodies, a couple on each (about its centre of mass), which conserves their momentum; the
/// point rows then hold the anchors together.
fn apply_swing<B: JointBodies + ?Sized>(bodies: &mut B, c: &JointConstraint, ra: Vec3, turn: Vec3) {
    if c.b != 0 {
        parts::apply_angular(bodies, c, -turn);
        return;
    }
    let body = &mut bodies[c.a as usize];
    let spin = parts::pivot_inv_inertia(c.inv_mass_a, body.inv_inertia, ra) * turn;
    body.angular_velocity += spin;
    // The centre of mass turns about the anchor, along the axes the body may move on.
    let free = Vec3::select(c.inv_mass_a.cmpgt(Vec3::ZERO), Vec3::ONE, Vec3::ZERO);
    body.linear_velocity += free * ra.cross(spin);
}

/// The swing limit of a ball joint: C = half_angle − θ ≥ 0 with θ the angle between A's axis
/// and the cone's, Ċ = (ω_a − ω_b)·r for r the swing axis; a limit row
/// ([`parts::limit_impulse`]) whose accumulated impulse is `state.swing`. Its impulse turns
/// each body about the anchor (`apply_swing`), so the point rows, which keep the anchors
/// together, have nothing to undo: a row on the rotation alone would let the point rows drag
/// a small mass far from its anchor on past the limit.
fn swing_row<B: JointBodies + ?Sized>(
    bodies: &mut B,
    c: &JointConstraint,
    state: &mut SwingState,
    cone: &Cone,
    ra: Vec3,
    step: &SubStep,
) {
    let Some(swing) = Swing::new(c, bodies, cone) else {
        return;
    };
    let (body_a, body_b) = (&bodies[c.a as usize], &bodies[c.b as usize]);
    let r = swing.axis;
    // Against the world (or a static body) A turns about the anchor; between two moving
    // bodies each turns about its centre of mass (see `apply_swing`).
    let k = if c.b == 0 {
        r.dot(parts::pivot_inv_inertia(c.inv_mass_a, body_a.inv_inertia, ra) * r)
    } else {
        r.dot((body_a.inv_inertia + body_b.inv_inertia) * r)
    };
    if k <= f32::MIN_POSITIVE {
        return;
    }
    let cdot = (body_a.angular_velocity - body_b.angular_velocity).dot(r);
    let gap = cone.half_angle - swing.angle;
    let old = state.swing;
    state.swing = parts::limit_impulse(old, cdot, gap, k, step);
    // +λr to A, −λr to B (about the anchor) raises Ċ by λ·k.
    apply_swing(bodies, c, ra, r * (state.swing - old));
}
