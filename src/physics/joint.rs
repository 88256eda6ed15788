//! Joints and springs between two bodies, or a body and the world: solved in the same
//! sub-steps as the contacts (after them in each pass, one joint after another), warm-started
//! from the last step, and able to break.
//!
//! Kinds (anchors are points fixed in each body; a world anchor is a fixed world point):
//! - **spherical** (ball and socket): the two anchors coincide. C = p_b − p_a (3 rows),
//!   K = (m_a⁻¹ + m_b⁻¹)·𝟙 − [r_a]×I_a⁻¹[r_a]× − [r_b]×I_b⁻¹[r_b]×.
//! - **distance**: min ≤ |p_b − p_a| ≤ max along u = (p_b − p_a)/|p_b − p_a| (1 row,
//!   k = m_a⁻¹ + m_b⁻¹ + (r_a×u)·I_a⁻¹(r_a×u) + (r_b×u)·I_b⁻¹(r_b×u)); a rod when min = max,
//!   a rope when min = 0. Each limit only pushes one way, and a slack one is speculative (it
//!   lets the gap close exactly in a sub-step, like a contact).
//! - **fixed** (a weld): the anchors coincide and A keeps the rotation relative to B it had
//!   when the joint was made. The point rows are the spherical joint's; the angular error is
//!   θ = 2·vec(q_a·(q_b·q_ref)⁻¹) (small angles), its rate ω_a − ω_b, K = I_a⁻¹ + I_b⁻¹.
//! - **spring**: a soft distance of its own `hertz` and `damping_ratio` about `rest_length`;
//!   a bungee pulls only when stretched (seed 003).
//!
//! The rigid rows are soft in the biased pass (Box2D v3's joint softness: [`JOINT_HERTZ`],
//! [`JOINT_DAMPING_RATIO`]) and rigid in the relax pass, exactly like contacts. A spring is
//! solved in the biased pass only (relaxing it would take out the velocity the spring gave):
//! its force explicit and its damping implicit, so an undamped spring keeps its energy, up
//! to [`SYMPLECTIC_SPRING_LIMIT`]; stiffer springs take the soft step with their own
//! frequency, which is stable at any stiffness but loses energy. Joints are solved serially,
//! after each pass over the contacts' colours: they are few next to the contacts, and a
//! chain needs its links in order more than in parallel.

mod block;

use super::body::BodyType;
use super::math::{Mat3, Quat, Vec3};
use super::solver::{Softness, SolverBody};
use super::world::{BodyHandle, World};
pub(crate) use block::BlockScratch;
use block::{Row, Slot, MAX_BLOCK_ROWS};

/// The smallest pivot of one joint's 3×3 solve, as a fraction of its largest diagonal:
/// above what rounding of f32 rows leaves in a locked direction (a tilted planar body's
/// hinge rows), below the mass and inertia ratios of real bodies on one joint.
const JOINT_RANK_TOLERANCE: f64 = 1.0e-6;

/// How far a hinge's axis may lean towards an axis a locked body may not turn about
/// (the length of the unit axis' part along the locked axes; 10⁻³ is 0.06°) before
/// `create_joint` refuses the hinge.
pub const HINGE_AXIS_LOCK_TOLERANCE: f32 = 1.0e-3;

/// Stiffness of the rigid rows in the biased pass, Hz (Box2D v3's joint hertz).
pub const JOINT_HERTZ: f32 = 60.0;
/// Damping ratio of the rigid rows in the biased pass (Box2D v3's joint damping ratio).
pub const JOINT_DAMPING_RATIO: f32 = 2.0;

/// The largest ω·h (ω = 2π·hertz, h the sub-step) at which a spring's force is applied
/// explicitly, keeping its energy (below 19 Hz at the default 240 Hz sub-steps); stiffer
/// springs are solved implicitly, which is stable at any stiffness but damps them. Explicit
/// springs are stable up to ωh = 2 alone; the margin covers bodies held by several.
pub const SYMPLECTIC_SPRING_LIMIT: f32 = 0.5;

/// What a joint holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointKind {
    /// The anchors coincide; optionally A's swing relative to B stays within a cone.
    Spherical {
        /// The swing limit, if any.
        cone: Option<Cone>,
    },
    /// The anchors stay between `min` and `max` apart, m.
    Distance {
        /// Shortest distance, m (0: a rope).
        min: f32,
        /// Longest distance, m.
        max: f32,
    },
    /// A hinge: the anchors coincide and the bodies turn relative to each other only about
    /// the hinge axis; optionally between angle limits, and driven by a motor.
    Revolute {
        /// The hinge axis in A's frame, unit.
        axis_a: Vec3,
        /// The hinge axis in B's frame (or the world's), unit.
        axis_b: Vec3,
        /// A direction across the axis in A's frame; with `reference_b`, equal in the world
        /// when the joint was made: the angle is measured between them.
        reference_a: Vec3,
        /// The same direction in B's frame (or the world's).
        reference_b: Vec3,
        /// Lowest and highest angle of A relative to B (or the world) about the axis, rad
        /// (right-handed: positive turns A anticlockwise seen from the axis' tip).
        limits: Option<(f32, f32)>,
        /// Target spin of A relative to B about the axis, rad/s, and the largest torque to
        /// reach it, N·m.
        motor: Option<(f32, f32)>,
    },
    /// A weld: the anchors coincide and neither body turns relative to the other.
    Fixed {
        /// A's rotation relative to B (or the world) when the joint was made: q_b⁻¹·q_a.
        reference: Quat,
    },
    /// A spring between the anchors.
    Spring {
        /// Length at rest, m.
        rest_length: f32,
        /// Natural frequency for the attached mass, Hz.
        hertz: f32,
        /// Damping ratio (1: critical).
        damping_ratio: f32,
        /// Pulls only when stretched.
        bungee: bool,
    },
}

/// A ball joint's swing limit: the angle between A's axis and B's stays at most
/// `half_angle` (twist about A's axis stays free).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cone {
    /// The direction from the anchor to A's centre of mass when the joint was made, in A's
    /// frame, unit.
    pub axis_a: Vec3,
    /// The cone's axis in B's frame (or the world's), unit.
    pub axis_b: Vec3,
    /// The largest angle between them, rad.
    pub half_angle: f32,
}

/// A joint to create: two bodies (or a body and the world), an anchor in each and a kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointDef {
    /// The first body.
    pub body_a: BodyHandle,
    /// The second body; None attaches to the world.
    pub body_b: Option<BodyHandle>,
    /// Anchor on A, in A's frame (relative to its origin), m.
    pub local_anchor_a: Vec3,
    /// Anchor on B in B's frame, or the world point for a world joint, m.
    pub local_anchor_b: Vec3,
    /// What it holds.
    pub kind: JointKind,
    /// Breaks (is removed) when the force it needs passes this, N; None: never.
    pub break_force: Option<f32>,
    /// Whether the two bodies still collide with each other (false by default, as in Box2D:
    /// jointed bodies usually overlap at their anchor, a ragdoll's limbs at every joint).
    pub collide: bool,
}

/// Handle of a joint: stale once the joint, or one of its bodies, is removed.
pub type JointHandle = super::handle::Handle<Joint>;

/// A joint in the world.
#[derive(Clone, Debug)]
pub struct Joint {
    pub(crate) def: JointDef,
    /// The accumulated impulse of the last sub-step (3 rows for a spherical joint, the first
    /// for a distance's lower limit or a spring, the second for a distance's upper limit).
    pub(crate) impulse: Vec3,
    /// The force that impulse stands for over its sub-step, N.
    pub(crate) force: f32,
    /// Angular rows: a hinge's two alignment rows, motor, lower and upper limits; a weld's
    /// three rows (the first three).
    pub(crate) extra: [f32; 5],
}

impl Joint {
    /// How it was made.
    pub fn def(&self) -> &JointDef {
        &self.def
    }

    /// The force the joint held in the last step (its last sub-step's impulse over the
    /// sub-step), N: what `break_force` is compared with. Linear only: a hinge's or a weld's
    /// torque is not in it.
    pub fn force(&self) -> f32 {
        self.force
    }
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

    /// A hinge at the world point `anchor` about the world direction `axis`, with optional
    /// limits (rad, the angle of A relative to B, 0 where they start) and motor (target spin,
    /// rad/s, and largest torque, N·m).
    pub fn revolute(
        world: &World,
        a: BodyHandle,
        b: Option<BodyHandle>,
        anchor: Vec3,
        axis: Vec3,
        limits: Option<(f32, f32)>,
        motor: Option<(f32, f32)>,
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
                limits,
                motor,
            },
        )
    }

    /// A joint of `kind` between the world points `anchor_a` (on `a`) and `anchor_b` (on `b`,
    /// or fixed in the world).
    pub fn between(
        world: &World,
        a: BodyHandle,
        b: Option<BodyHandle>,
        anchor_a: Vec3,
        anchor_b: Vec3,
        kind: JointKind,
    ) -> Self {
        let local = |h: Option<BodyHandle>, p: Vec3| match h.and_then(|h| world.body(h)) {
            Some(body) => body.rotation().inverse() * (p - body.position()),
            None => p,
        };
        JointDef {
            body_a: a,
            body_b: b,
            local_anchor_a: local(Some(a), anchor_a),
            local_anchor_b: local(b, anchor_b),
            kind,
            break_force: None,
            collide: false,
        }
    }

    /// Checks the numbers; the message names the field.
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [
            ("anchor_a", self.local_anchor_a),
            ("anchor_b", self.local_anchor_b),
        ] {
            if !v.is_finite() {
                return Err(format!("{name} must be finite, got {v}"));
            }
        }
        super::collider::check_offset("anchor_a", self.local_anchor_a, "a joint's anchor")?;
        if self.body_b.is_some() {
            super::collider::check_offset("anchor_b", self.local_anchor_b, "a joint's anchor")?;
        } else {
            use super::constants::MAX_COORDINATE;
            for (axis, x) in ["x", "y", "z"].iter().zip(self.local_anchor_b.to_array()) {
                if x.abs() > MAX_COORDINATE {
                    return Err(format!(
                        "anchor_b.{axis} is {x} m; a world anchor may sit at most {MAX_COORDINATE} m from the origin"
                    ));
                }
            }
        }
        let non_negative = |name: &str, v: f32| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(format!("{name} must be 0 or more, got {v}"))
            }
        };
        match self.kind {
            JointKind::Spherical { cone: None } => {}
            JointKind::Spherical { cone: Some(cone) } => {
                let pi = std::f32::consts::PI;
                if !(cone.half_angle.is_finite() && (0.0..=pi).contains(&cone.half_angle)) {
                    return Err(format!(
                        "cone must be between 0 and 180 degrees, got {}",
                        cone.half_angle.to_degrees()
                    ));
                }
                for (name, v) in [("a's axis", cone.axis_a), ("cone axis", cone.axis_b)] {
                    if !(v.is_finite() && (v.length() - 1.0).abs() < 1.0e-3) {
                        return Err(format!("{name} must be a unit direction, got {v}"));
                    }
                }
            }
            JointKind::Fixed { reference } => {
                if !(reference.is_finite() && (reference.length() - 1.0).abs() < 1.0e-3) {
                    return Err(format!(
                        "reference must be a unit quaternion, got {reference}"
                    ));
                }
            }
            JointKind::Revolute {
                axis_a,
                limits,
                motor,
                ..
            } => {
                if !(axis_a.is_finite() && axis_a.length_squared() > 0.5) {
                    return Err(format!(
                        "axis must be a finite, non-zero direction, got {axis_a}"
                    ));
                }
                if let Some((lower, upper)) = limits {
                    if !(lower.is_finite() && upper.is_finite() && lower <= upper) {
                        return Err(format!(
                            "limits must be finite with lower ≤ upper, got ({lower}, {upper})"
                        ));
                    }
                }
                if let Some((speed, torque)) = motor {
                    if !speed.is_finite() {
                        return Err(format!("motor speed must be finite, got {speed}"));
                    }
                    non_negative("motor torque", torque)?;
                }
            }
            JointKind::Distance { min, max } => {
                non_negative("min", min)?;
                non_negative("max", max)?;
                if min > max {
                    return Err(format!("min ({min}) must not be more than max ({max})"));
                }
            }
            JointKind::Spring {
                rest_length,
                hertz,
                damping_ratio,
                ..
            } => {
                non_negative("rest_length", rest_length)?;
                non_negative("damping_ratio", damping_ratio)?;
                if !(hertz.is_finite() && hertz > 0.0) {
                    return Err(format!("hertz must be more than 0, got {hertz}"));
                }
            }
        }
        if let Some(f) = self.break_force {
            if !(f.is_finite() && f > 0.0) {
                return Err(format!("break_force must be more than 0, got {f}"));
            }
        }
        Ok(())
    }
}

/// A joint prepared for this step's solver.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JointConstraint {
    /// The joint's slot index.
    pub joint: u32,
    /// Solver indices (0: static, the world, or asleep).
    pub a: u32,
    pub b: u32,
    /// The group that solves it.
    pub group: u32,
    /// Anchors relative to the centres of mass, in the bodies' frames at the step's start.
    pub arm_a: Vec3,
    pub arm_b: Vec3,
    /// Centres of mass and rotations at the step's start.
    pub center_a: Vec3,
    pub center_b: Vec3,
    pub rotation_a: Quat,
    pub rotation_b: Quat,
    /// Inverse masses along the world axes: 0 on a body's locked translation axes, so the
    /// rows see the mass the body really has there (the solver's scalar `inv_mass` would
    /// let a row push along an axis whose velocity the locks then take out).
    pub inv_mass_a: Vec3,
    pub inv_mass_b: Vec3,
    /// The jointed island whose equality rows are solved together (`block.rs`), or
    /// [`NO_BLOCK`] when they are solved joint by joint.
    pub component: u32,
    pub kind: JointKind,
    pub impulse: Vec3,
    pub extra: [f32; 5],
}

/// `JointConstraint::component` of a joint whose rows are solved joint by joint.
pub(crate) const NO_BLOCK: u32 = u32::MAX;

/// The anchor's world point and arm of one side, as the sub-step has moved its body.
#[inline]
fn side(body: &SolverBody, center: Vec3, rotation: Quat, arm: Vec3) -> (Vec3, Vec3) {
    let r = (body.delta_rotation * rotation) * arm;
    (center + body.delta_position + r, r)
}

/// Velocity of the anchor point.
#[inline]
fn point_velocity(body: &SolverBody, r: Vec3) -> Vec3 {
    body.linear_velocity + body.angular_velocity.cross(r)
}

/// Applies impulse `p` at arms `ra` (−p) and `rb` (+p).
fn apply(bodies: &mut [SolverBody], c: &JointConstraint, ra: Vec3, rb: Vec3, p: Vec3) {
    if c.a != 0 {
        let a = &mut bodies[c.a as usize];
        a.linear_velocity -= c.inv_mass_a * p;
        a.angular_velocity -= a.inv_inertia * ra.cross(p);
    }
    if c.b != 0 {
        let b = &mut bodies[c.b as usize];
        b.linear_velocity += c.inv_mass_b * p;
        b.angular_velocity += b.inv_inertia * rb.cross(p);
    }
}

/// The skew matrix of `v`: [v]×·x = v × x.
fn skew(v: Vec3) -> Mat3 {
    Mat3::from_cols(
        Vec3::new(0.0, v.z, -v.y),
        Vec3::new(-v.z, 0.0, v.x),
        Vec3::new(v.y, -v.x, 0.0),
    )
}

/// What a pass does with the joints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum JointPass {
    /// Apply the carried-over impulses.
    WarmStart,
    /// Soft rows and springs.
    Biased,
    /// Rigid rows, no bias, no springs.
    Relax,
}

/// One pass over the joints of a group.
pub(crate) fn solve_joints(
    joints: &mut [JointConstraint],
    blocks: &mut BlockScratch,
    bodies: &mut [SolverBody],
    pass: JointPass,
    group: u32,
    h: f32,
) {
    let soft = Softness::new(JOINT_HERTZ, JOINT_DAMPING_RATIO, h);
    for c in joints.iter_mut().filter(|c| c.group == group) {
        let sequential = c.component == NO_BLOCK;
        let (pa, ra) = side(&bodies[c.a as usize], c.center_a, c.rotation_a, c.arm_a);
        let (pb, rb) = side(&bodies[c.b as usize], c.center_b, c.rotation_b, c.arm_b);
        let (body_a, body_b) = (bodies[c.a as usize], bodies[c.b as usize]);
        let d = pb - pa;
        let length = d.length();
        let u = if length > 1.0e-6 { d / length } else { Vec3::Y };
        // The row along u: effective mass inverse.
        let k_along = {
            let (ua, ub) = (ra.cross(u), rb.cross(u));
            u.dot((c.inv_mass_a + c.inv_mass_b) * u)
                + ua.dot(body_a.inv_inertia * ua)
                + ub.dot(body_b.inv_inertia * ub)
        };
        let relative = point_velocity(&body_b, rb) - point_velocity(&body_a, ra);
        match (pass, c.kind) {
            (JointPass::WarmStart, JointKind::Spherical { cone }) => {
                apply(bodies, c, ra, rb, c.impulse);
                if let Some(swing) = cone.and_then(|cone| Swing::new(c, bodies, &cone)) {
                    let turn = swing.axis * c.extra[0];
                    apply_swing(bodies, c, ra, turn);
                }
            }
            (JointPass::WarmStart, JointKind::Fixed { .. }) => {
                apply(bodies, c, ra, rb, c.impulse);
                apply_angular(bodies, c, Vec3::from_slice(&c.extra[..3]));
            }
            (pass, JointKind::Fixed { reference }) => {
                let biased = pass == JointPass::Biased;
                if sequential {
                    weld_rows(bodies, c, reference, biased, &soft);
                    // The anchors coincide (the rows above changed no position: `d`, the
                    // arms hold).
                    point_rows(bodies, c, d, ra, rb, biased, &soft);
                }
            }
            (JointPass::WarmStart, JointKind::Revolute { .. }) => {
                apply(bodies, c, ra, rb, c.impulse);
                let hinge = Hinge::new(c, &bodies[c.a as usize], &bodies[c.b as usize]);
                let [p1, p2, motor, lower, upper] = c.extra;
                let turn = hinge.r1 * p1 + hinge.r2 * p2 - hinge.axis * (motor + lower - upper);
                apply_angular(bodies, c, turn);
            }
            (pass, JointKind::Revolute { limits, motor, .. }) => {
                let hinge = Hinge::new(c, &bodies[c.a as usize], &bodies[c.b as usize]);
                let biased = pass == JointPass::Biased;
                let (mass_scale, impulse_scale) = if biased { scales(&soft) } else { (1.0, 0.0) };
                let inv_sum = bodies[c.a as usize].inv_inertia + bodies[c.b as usize].inv_inertia;
                // Motor and limits act on A's spin relative to B (the world, for a door).
                let spin = |bodies: &[SolverBody]| {
                    bodies[c.a as usize].angular_velocity - bodies[c.b as usize].angular_velocity
                };
                let k_axis = hinge.axis.dot(inv_sum * hinge.axis);
                // Motor: the relative spin about the axis towards its target, within the
                // torque it may use this sub-step.
                if let Some((speed, torque)) = motor {
                    if k_axis > 0.0 {
                        let cdot = spin(bodies).dot(hinge.axis) - speed;
                        let old = c.extra[2];
                        let max = torque * h;
                        c.extra[2] = (old - cdot / k_axis).clamp(-max, max);
                        apply_angular(bodies, c, -hinge.axis * (c.extra[2] - old));
                    }
                }
                // Limits: each pushes one way only; slack ones are speculative.
                if let Some((lower, upper)) = limits {
                    if k_axis > 0.0 {
                        let angle = angle_near(hinge.angle, 0.5 * (lower + upper));
                        for (slot, gap, sign) in
                            [(3usize, angle - lower, 1.0f32), (4, upper - angle, -1.0)]
                        {
                            let cdot = sign * spin(bodies).dot(hinge.axis);
                            let delta = if gap > 0.0 {
                                -(cdot + gap / h) / k_axis
                            } else if biased {
                                -mass_scale * (cdot + soft.bias_rate * gap) / k_axis
                                    - impulse_scale * c.extra[slot]
                            } else {
                                -cdot / k_axis
                            };
                            let old = c.extra[slot];
                            c.extra[slot] = (old + delta).max(0.0);
                            apply_angular(bodies, c, -hinge.axis * (sign * (c.extra[slot] - old)));
                        }
                    }
                }
                if !sequential {
                    continue;
                }
                // Alignment: the two axes stay parallel (2 rows across the axis), K the
                // 2×2 block (a third, empty row and column for `solve_symmetric`).
                let k11 = hinge.r1.dot(inv_sum * hinge.r1);
                let k12 = hinge.r1.dot(inv_sum * hinge.r2);
                let k22 = hinge.r2.dot(inv_sum * hinge.r2);
                let k = Mat3::from_cols(
                    Vec3::new(k11, k12, 0.0),
                    Vec3::new(k12, k22, 0.0),
                    Vec3::ZERO,
                );
                // These rows' rate is B's spin relative to A's (see `Hinge`).
                let w = -spin(bodies);
                let mut rate = Vec3::new(w.dot(hinge.r1), w.dot(hinge.r2), 0.0);
                if biased {
                    rate += soft.bias_rate * Vec3::new(hinge.error.0, hinge.error.1, 0.0);
                }
                // Solve K·λ = −ċ.
                let l = -solve_symmetric(k, rate);
                let (d1, d2) = (
                    mass_scale * l.x - impulse_scale * c.extra[0],
                    mass_scale * l.y - impulse_scale * c.extra[1],
                );
                c.extra[0] += d1;
                c.extra[1] += d2;
                apply_angular(bodies, c, hinge.r1 * d1 + hinge.r2 * d2);
                // The anchors coincide: the ball-and-socket rows (the anchors and arms depend
                // on the sub-step's positions only, which the rows above did not change).
                point_rows(bodies, c, d, ra, rb, biased, &soft);
            }
            (JointPass::WarmStart, _) => {
                apply(bodies, c, ra, rb, u * (c.impulse.x + c.impulse.y));
            }
            (pass, JointKind::Spherical { cone }) => {
                let biased = pass == JointPass::Biased;
                if let Some(cone) = cone {
                    swing_row(bodies, c, &cone, ra, biased, &soft, h);
                }
                // The swing row changed no position: `d` and the arms hold.
                if sequential {
                    point_rows(bodies, c, d, ra, rb, biased, &soft);
                }
            }
            (pass, JointKind::Distance { min, max }) => {
                if k_along <= 0.0 {
                    continue;
                }
                let v = relative.dot(u);
                if min == max && !sequential {
                    continue;
                }
                if min == max {
                    // A rod: one two-sided row, C = |d| − L, Ċ = v, its impulse of either
                    // sign. (As two one-sided limits at the same length, the row that is
                    // slack in a sub-step stays speculative and keeps its warm-started
                    // impulse while the other pulls against it: two rods in a V rang up
                    // and exploded.)
                    let delta = if pass == JointPass::Biased {
                        let (mass_scale, impulse_scale) = scales(&soft);
                        -mass_scale * (v + soft.bias_rate * (length - max)) / k_along
                            - impulse_scale * c.impulse.x
                    } else {
                        -v / k_along
                    };
                    c.impulse.x += delta;
                    apply(bodies, c, ra, rb, u * delta);
                    continue;
                }
                // Lower limit (pushes apart, impulse ≥ 0), then upper (pulls, ≤ 0).
                for (row, limit, sign) in [(0usize, min, 1.0f32), (1, max, -1.0)] {
                    if row == 0 && min <= 0.0 {
                        continue;
                    }
                    // Gap to the limit, positive when slack.
                    let gap = sign * (length - limit);
                    let accumulated = c.impulse[row];
                    let delta = if gap > 0.0 {
                        // Slack: speculative, may close exactly the gap this sub-step.
                        -(sign * v + gap / h) / k_along
                    } else if pass == JointPass::Biased {
                        let (mass_scale, impulse_scale) = scales(&soft);
                        -mass_scale * (sign * v + soft.bias_rate * gap) / k_along
                            - impulse_scale * sign * accumulated
                    } else {
                        -(sign * v) / k_along
                    };
                    // Accumulated impulse along the limit's own direction stays ≥ 0.
                    let old = sign * accumulated;
                    let new = (old + delta).max(0.0);
                    c.impulse[row] = sign * new;
                    let p = u * (sign * (new - old));
                    apply(bodies, c, ra, rb, p);
                }
            }
            (
                JointPass::Biased,
                JointKind::Spring {
                    rest_length,
                    hertz,
                    damping_ratio,
                    bungee,
                },
            ) => {
                let stretch = length - rest_length;
                if (bungee && stretch <= 0.0) || k_along <= 0.0 {
                    // Slack: take back what the warm start applied.
                    apply(bodies, c, ra, rb, -u * c.impulse.x);
                    c.impulse.x = 0.0;
                    continue;
                }
                let v = relative.dot(u);
                let omega = std::f32::consts::TAU * hertz;
                let delta = if omega * h <= SYMPLECTIC_SPRING_LIMIT {
                    // The spring's force from the stretch at the sub-step's start (explicit,
                    // as semi-implicit Euler integrates gravity: energy neither gained nor
                    // lost), its damping implicit: v' = (v_free − h·ω²·x) / (1 + d) with
                    // d = 2ζωh, v_free the velocity without this sub-step's spring impulse λ.
                    // As an update of λ that any number of iterations leaves fixed:
                    // Δλ = −(m·(d·v + h·ω²·x) + λ) / (1 + d), m = 1/k.
                    let d = 2.0 * damping_ratio * omega * h;
                    -((d * v + h * omega * omega * stretch) / k_along + c.impulse.x) / (1.0 + d)
                } else {
                    // Too stiff for that: the soft step (implicit, stable at any stiffness,
                    // losing (ωh)²/2 of the energy per sub-step).
                    let spring = Softness::new(hertz, damping_ratio, h);
                    let (mass_scale, impulse_scale) = scales(&spring);
                    -mass_scale * (v + spring.bias_rate * stretch) / k_along
                        - impulse_scale * c.impulse.x
                };
                c.impulse.x += delta;
                apply(bodies, c, ra, rb, u * delta);
            }
            (JointPass::Relax, JointKind::Spring { .. }) => {}
        }
    }
    if pass != JointPass::WarmStart {
        solve_blocks(joints, blocks, bodies, pass, group, &soft);
    }
}

/// The islands' equality rows of `group`, each island as one block (`block.rs`).
fn solve_blocks(
    joints: &mut [JointConstraint],
    blocks: &mut BlockScratch,
    bodies: &mut [SolverBody],
    pass: JointPass,
    group: u32,
    soft: &Softness,
) {
    let biased = pass == JointPass::Biased;
    let (mass_scale, impulse_scale) = if biased { scales(soft) } else { (1.0, 0.0) };
    let mut start = 0;
    while start < joints.len() {
        let component = joints[start].component;
        let end = start
            + joints[start..]
                .iter()
                .take_while(|c| c.component == component && c.group == joints[start].group)
                .count();
        if joints[start].group == group && component != NO_BLOCK {
            blocks.rows.clear();
            for (index, c) in joints.iter().enumerate().take(end).skip(start) {
                equality_rows(index as u32, c, bodies, &mut blocks.rows);
            }
            block::solve_block(blocks, bodies, biased.then_some(soft.bias_rate));
            for (row, &x) in blocks.rows.iter().zip(&blocks.x) {
                let c = &mut joints[row.joint as usize];
                let accumulated = match row.slot {
                    Slot::Impulse(k) => &mut c.impulse[k],
                    Slot::Extra(k) => &mut c.extra[k],
                };
                let delta = -mass_scale * x as f32 - impulse_scale * *accumulated;
                *accumulated += delta;
                row.apply(bodies, delta);
            }
        }
        start = end;
    }
}

/// Finds the jointed islands (joints linked through moving bodies), marks the joints of
/// each island with at most [`MAX_BLOCK_ROWS`] equality rows to be solved as one block, and
/// orders the joints by group, then island (each island's joints contiguous, in their
/// original order), so `solve_blocks` finds each island as one run.
fn assign_blocks(list: &mut [JointConstraint], scratch: &mut BlockScratch, bodies: usize) {
    let parent = &mut scratch.parent;
    parent.clear();
    parent.extend(0..bodies as u32);
    fn root(parent: &mut [u32], mut i: u32) -> u32 {
        while parent[i as usize] != i {
            parent[i as usize] = parent[parent[i as usize] as usize];
            i = parent[i as usize];
        }
        i
    }
    for c in list.iter() {
        if c.a != 0 && c.b != 0 {
            let (ra, rb) = (root(parent, c.a), root(parent, c.b));
            // The smaller index as the root: the same islands whatever the joints' order.
            parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
    let counts = &mut scratch.row_count;
    counts.clear();
    counts.resize(bodies, 0);
    for c in list.iter_mut() {
        c.component = root(parent, if c.a != 0 { c.a } else { c.b });
        counts[c.component as usize] += equality_row_count(&c.kind);
    }
    for c in list.iter_mut() {
        let rows = counts[c.component as usize];
        if rows == 0 || rows as usize > MAX_BLOCK_ROWS {
            c.component = NO_BLOCK;
        }
    }
    list.sort_by_key(|c| (c.group, c.component));
}

/// How many equality rows (solved by the island's block) a joint of `kind` has.
fn equality_row_count(kind: &JointKind) -> u32 {
    match *kind {
        JointKind::Spherical { .. } => 3,
        JointKind::Fixed { .. } => 6,
        JointKind::Revolute { .. } => 5,
        JointKind::Distance { min, max } if min == max => 1,
        _ => 0,
    }
}

/// Appends joint `index`'s equality rows, for the bodies as the sub-step has moved them.
/// Each row's Ċ = J·v and C follow the sign of the row it stands for: the point rows
/// d = p_b − p_a, a weld's −θ (its rate ω_b − ω_a), a hinge's alignment errors (their rate
/// (ω_b − ω_a)·r), a rod's |d| − L.
fn equality_rows(index: u32, c: &JointConstraint, bodies: &[SolverBody], rows: &mut Vec<Row>) {
    let (body_a, body_b) = (&bodies[c.a as usize], &bodies[c.b as usize]);
    let (pa, ra) = side(body_a, c.center_a, c.rotation_a, c.arm_a);
    let (pb, rb) = side(body_b, c.center_b, c.rotation_b, c.arm_b);
    let d = pb - pa;
    let row = |slot, linear_a, angular_a, linear_b, angular_b, error| Row {
        joint: index,
        slot,
        a: c.a,
        b: c.b,
        linear_a,
        angular_a,
        linear_b,
        angular_b,
        inv_mass_a: c.inv_mass_a,
        inv_mass_b: c.inv_mass_b,
        error,
    };
    let point = |rows: &mut Vec<Row>| {
        for (k, e) in [Vec3::X, Vec3::Y, Vec3::Z].into_iter().enumerate() {
            rows.push(row(
                Slot::Impulse(k),
                -e,
                -ra.cross(e),
                e,
                rb.cross(e),
                d[k],
            ));
        }
    };
    match c.kind {
        JointKind::Spherical { .. } => point(rows),
        JointKind::Fixed { reference } => {
            let error = weld_error(c, body_a, body_b, reference);
            for (k, e) in [Vec3::X, Vec3::Y, Vec3::Z].into_iter().enumerate() {
                rows.push(row(
                    Slot::Extra(k),
                    Vec3::ZERO,
                    -e,
                    Vec3::ZERO,
                    e,
                    -error[k],
                ));
            }
            point(rows);
        }
        JointKind::Revolute { .. } => {
            let hinge = Hinge::new(c, body_a, body_b);
            for (k, (r, error)) in [(hinge.r1, hinge.error.0), (hinge.r2, hinge.error.1)]
                .into_iter()
                .enumerate()
            {
                rows.push(row(Slot::Extra(k), Vec3::ZERO, -r, Vec3::ZERO, r, error));
            }
            point(rows);
        }
        JointKind::Distance { min, max } if min == max => {
            let length = d.length();
            let u = if length > 1.0e-6 { d / length } else { Vec3::Y };
            rows.push(row(
                Slot::Impulse(0),
                -u,
                -ra.cross(u),
                u,
                rb.cross(u),
                length - max,
            ));
        }
        _ => {}
    }
}

/// A weld's angular error θ = 2·vec(q_a·(q_b·q_ref)⁻¹), the short way round (q and −q are
/// the same rotation), rad.
fn weld_error(c: &JointConstraint, a: &SolverBody, b: &SolverBody, reference: Quat) -> Vec3 {
    let qa = a.delta_rotation * c.rotation_a;
    let qb = b.delta_rotation * c.rotation_b;
    let e = qa * (qb * reference).inverse();
    2.0 * e.w.signum() * Vec3::new(e.x, e.y, e.z)
}

/// The three rows that keep the anchors together (`d` = p_b − p_a), soft when `biased`.
fn point_rows(
    bodies: &mut [SolverBody],
    c: &mut JointConstraint,
    d: Vec3,
    ra: Vec3,
    rb: Vec3,
    biased: bool,
    soft: &Softness,
) {
    let (body_a, body_b) = (bodies[c.a as usize], bodies[c.b as usize]);
    let k = Mat3::from_diagonal(c.inv_mass_a + c.inv_mass_b)
        - skew(ra) * body_a.inv_inertia * skew(ra)
        - skew(rb) * body_b.inv_inertia * skew(rb);
    let relative = point_velocity(&body_b, rb) - point_velocity(&body_a, ra);
    let p = if biased {
        let (mass_scale, impulse_scale) = scales(soft);
        -mass_scale * solve_symmetric(k, relative + soft.bias_rate * d) - impulse_scale * c.impulse
    } else {
        -solve_symmetric(k, relative)
    };
    c.impulse += p;
    apply(bodies, c, ra, rb, p);
}

/// The three rows that keep A's rotation relative to B at `reference` (soft when `biased`).
fn weld_rows(
    bodies: &mut [SolverBody],
    c: &mut JointConstraint,
    reference: Quat,
    biased: bool,
    soft: &Softness,
) {
    let (body_a, body_b) = (bodies[c.a as usize], bodies[c.b as usize]);
    // An axis neither body may turn about (a locked rotation, or a planar world welded to
    // a static body) leaves K singular: `solve_symmetric` solves the free axes only.
    let k = body_a.inv_inertia + body_b.inv_inertia;
    // The rate of the error θ is ω_a − ω_b; `apply_angular(l)` changes it by −K·l.
    let rate = body_a.angular_velocity - body_b.angular_velocity;
    let accumulated = Vec3::from_slice(&c.extra[..3]);
    let l = if biased {
        let error = weld_error(c, &body_a, &body_b, reference);
        let (mass_scale, impulse_scale) = scales(soft);
        mass_scale * solve_symmetric(k, rate + soft.bias_rate * error) - impulse_scale * accumulated
    } else {
        solve_symmetric(k, rate)
    };
    (accumulated + l).write_to_slice(&mut c.extra[..3]);
    apply_angular(bodies, c, l);
}

/// A ball joint's swing in the sub-step: the axis A would turn about to reach B's cone axis
/// ((a × b)/|a × b|) and the angle between them.
struct Swing {
    axis: Vec3,
    angle: f32,
}

impl Swing {
    /// None when A's axis lies along the cone's (no direction to limit; the angle is 0 or π,
    /// and π is refused by the limit below 180° before it is reached).
    fn new(c: &JointConstraint, bodies: &[SolverBody], cone: &Cone) -> Option<Swing> {
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

/// The inverse inertia of a body about the point at `arm` from its centre of mass, as the
/// ball joint there holds it: turning about that point moves the centre of mass too
/// (parallel axes). Woodbury's identity on I + m·[r]×ᵀ[r]× gives it from I⁻¹ without
/// inverting I (which a locked axis makes singular): M + M[r]×K⁻¹[r]×M, with M = I⁻¹ and
/// K = diag(m⁻¹) − [r]×M[r]× the point's effective mass matrix (m⁻¹ per world axis, 0 on
/// a locked one). Where K is singular the anchor cannot move that way at all and
/// `solve_symmetric` leaves that direction out. Zero for a body that does not move.
fn pivot_inv_inertia(inv_mass: Vec3, inv_inertia: Mat3, arm: Vec3) -> Mat3 {
    let k = Mat3::from_diagonal(inv_mass) - skew(arm) * inv_inertia * skew(arm);
    let y = skew(arm) * inv_inertia;
    let k_inv_y = Mat3::from_cols(
        solve_symmetric(k, y.x_axis),
        solve_symmetric(k, y.y_axis),
        solve_symmetric(k, y.z_axis),
    );
    inv_inertia + inv_inertia * skew(arm) * k_inv_y
}

/// Solves K·x = b for a symmetric positive semi-definite 3×3 K (an effective mass matrix),
/// leaving out the directions the bodies cannot move along ([`block::eliminate`]) or
/// move along less than [`JOINT_RANK_TOLERANCE`] of the easiest one.
fn solve_symmetric(k: Mat3, b: Vec3) -> Vec3 {
    let mut k = k.transpose().to_cols_array().map(f64::from); // row-major
    let mut rhs = b.to_array().map(f64::from);
    let mut x = [0.0; 3];
    block::eliminate(
        &mut k,
        &mut rhs,
        &mut x,
        &mut [0; 3],
        &mut [false; 3],
        JOINT_RANK_TOLERANCE,
    );
    Vec3::from_array(x.map(|x| x as f32))
}

/// Applies the swing impulse `turn` (+ to A, − to B). Against the world (B = 0), A turns
/// about the anchor at arm `ra`, which stays where it is: Δω = I_p⁻¹·L and Δv = r_a × Δω with
/// I_p the inertia about the anchor ([`pivot_inv_inertia`]). Between two moving bodies, a
/// couple on each (about its centre of mass), which conserves their momentum; the point rows
/// then hold the anchors together.
fn apply_swing(bodies: &mut [SolverBody], c: &JointConstraint, ra: Vec3, turn: Vec3) {
    if c.b != 0 {
        apply_angular(bodies, c, -turn);
        return;
    }
    let body = &mut bodies[c.a as usize];
    let spin = pivot_inv_inertia(c.inv_mass_a, body.inv_inertia, ra) * turn;
    body.angular_velocity += spin;
    // The centre of mass turns about the anchor, along the axes the body may move on.
    let free = Vec3::select(c.inv_mass_a.cmpgt(Vec3::ZERO), Vec3::ONE, Vec3::ZERO);
    body.linear_velocity += free * ra.cross(spin);
}

/// The swing limit of a ball joint: C = half_angle − θ ≥ 0 with θ the angle between A's axis
/// and the cone's, Ċ = (ω_a − ω_b)·r for r the swing axis; pushes one way only, speculative
/// while slack (like a hinge limit), soft when `biased`. The accumulated impulse is
/// `extra[0]`. Its impulse turns each body about the anchor (`apply_swing`), so the point
/// rows, which keep the anchors together, have nothing to undo: a row on the rotation alone
/// let the point rows drag a small mass far from its anchor on past the limit.
fn swing_row(
    bodies: &mut [SolverBody],
    c: &mut JointConstraint,
    cone: &Cone,
    ra: Vec3,
    biased: bool,
    soft: &Softness,
    h: f32,
) {
    let Some(swing) = Swing::new(c, bodies, cone) else {
        return;
    };
    let (body_a, body_b) = (&bodies[c.a as usize], &bodies[c.b as usize]);
    let r = swing.axis;
    // Against the world (or a static body) A turns about the anchor; between two moving
    // bodies each turns about its centre of mass (see `apply_swing`).
    let k = if c.b == 0 {
        r.dot(pivot_inv_inertia(c.inv_mass_a, body_a.inv_inertia, ra) * r)
    } else {
        r.dot((body_a.inv_inertia + body_b.inv_inertia) * r)
    };
    if k <= f32::MIN_POSITIVE {
        return;
    }
    let cdot = (body_a.angular_velocity - body_b.angular_velocity).dot(r);
    let gap = cone.half_angle - swing.angle;
    let delta = if gap > 0.0 {
        -(cdot + gap / h) / k
    } else if biased {
        let (mass_scale, impulse_scale) = scales(soft);
        -mass_scale * (cdot + soft.bias_rate * gap) / k - impulse_scale * c.extra[0]
    } else {
        -cdot / k
    };
    let old = c.extra[0];
    c.extra[0] = (old + delta).max(0.0);
    // +λr to A, −λr to B (about the anchor) raises Ċ by λ·k.
    apply_swing(bodies, c, ra, r * (c.extra[0] - old));
}

/// Applies the angular impulse `l` (−l to A, +l to B).
fn apply_angular(bodies: &mut [SolverBody], c: &JointConstraint, l: Vec3) {
    if c.a != 0 {
        let a = &mut bodies[c.a as usize];
        a.angular_velocity -= a.inv_inertia * l;
    }
    if c.b != 0 {
        let b = &mut bodies[c.b as usize];
        b.angular_velocity += b.inv_inertia * l;
    }
}

/// A hinge's geometry in the sub-step: A's axis, the two alignment rows across it, their
/// errors, and the angle of B relative to A about the axis.
struct Hinge {
    axis: Vec3,
    r1: Vec3,
    r2: Vec3,
    error: (f32, f32),
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
fn hinge_angle(axis: Vec3, reference_a: Vec3, reference_b: Vec3) -> f32 {
    reference_b
        .cross(reference_a)
        .dot(axis)
        .atan2(reference_a.dot(reference_b))
}

/// The angle equal to `angle` up to whole turns that lies within half a turn of `middle`
/// (the middle of a hinge's limits), rad. The hinge's angle wraps at ±π; measured this way,
/// an angle past a limit is past the nearer one (the way round through the forbidden arc),
/// and a limit at −π or π is not met at once from the other side when the angle wraps.
fn angle_near(angle: f32, middle: f32) -> f32 {
    let tau = std::f32::consts::TAU;
    let turns = ((angle - middle) / tau).round();
    angle - turns * tau
}

/// (mass scale, impulse scale) of a softness: Δλ = −s_m·m·(v + b) − s_i·λ.
fn scales(s: &Softness) -> (f32, f32) {
    let impulse_scale = s.compliance_scale / (1.0 + s.compliance_scale);
    (1.0 - impulse_scale, impulse_scale)
}

impl World {
    /// Adds a joint; refused, with the reason, for a stale body, a body joined to itself, a
    /// joint with no dynamic body, or numbers out of range. Both bodies wake.
    pub fn create_joint(&mut self, def: JointDef) -> Result<JointHandle, String> {
        def.validate()?;
        let a = self
            .bodies
            .get(def.body_a)
            .ok_or("body_a is not in the world")?;
        let mut dynamic = a.body_type == BodyType::Dynamic;
        if let Some(b) = def.body_b {
            if b == def.body_a {
                return Err("a joint needs two different bodies".into());
            }
            let b = self.bodies.get(b).ok_or("body_b is not in the world")?;
            dynamic |= b.body_type == BodyType::Dynamic;
        }
        if !dynamic {
            return Err("a joint needs a dynamic body on one side".into());
        }
        self.check_hinge_axis(&def)?;
        self.wake_body_index(def.body_a.index());
        if let Some(b) = def.body_b {
            self.wake_body_index(b.index());
            if !def.collide {
                self.destroy_contacts_between(def.body_a.index(), b.index());
                self.count_joint_without_contact(&def, 1);
            }
        }
        Ok(self.joints.insert(Joint {
            def,
            impulse: Vec3::ZERO,
            force: 0.0,
            extra: [0.0; 5],
        }))
    }

    /// Refuses a hinge whose axis a dynamic body's locks (its own, or the planar world's)
    /// forbid it to turn about: the hinge could only hold such a body still, as a weld does.
    fn check_hinge_axis(&self, def: &JointDef) -> Result<(), String> {
        let JointKind::Revolute { axis_a, axis_b, .. } = def.kind else {
            return Ok(());
        };
        let sides = [("a", Some(def.body_a), axis_a), ("b", def.body_b, axis_b)];
        for (side, handle, local_axis) in sides {
            let Some(body) = handle.and_then(|h| self.bodies.get(h)) else {
                continue;
            };
            if !body.is_dynamic() {
                continue;
            }
            let locks = if self.settings.planar {
                body.locked.union(super::body::Locks::PLANAR)
            } else {
                body.locked
            };
            let axis = (body.rotation() * local_axis).normalize_or_zero();
            let locked_part = axis * (Vec3::ONE - locks.angular_free());
            if locked_part.length() > HINGE_AXIS_LOCK_TOLERANCE {
                let names = ["x", "y", "z"];
                let locked: Vec<&str> = (0..3)
                    .filter(|&i| locks.rotation[i])
                    .map(|i| names[i])
                    .collect();
                let why = if self.settings.planar {
                    "the planar world lets it turn about z only"
                } else {
                    "its rotation is locked"
                };
                return Err(format!(
                    "hinge axis ({:.3}, {:.3}, {:.3}) is one body {side} may not turn about \
                     ({why}: about {}); use a weld (Fixed) to hold it, or a hinge about a free axis",
                    axis.x,
                    axis.y,
                    axis.z,
                    locked.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// Removes a joint (its bodies wake); false if it was already gone.
    pub fn remove_joint(&mut self, handle: JointHandle) -> bool {
        let Some(joint) = self.joints.remove(handle) else {
            return false;
        };
        self.wake_body_index(joint.def.body_a.index());
        if let Some(b) = joint.def.body_b {
            self.wake_body_index(b.index());
            if !joint.def.collide {
                // The pair may collide again: let the broad phase report it anew.
                self.touch_body_proxies(joint.def.body_a.index());
                self.count_joint_without_contact(&joint.def, -1);
            }
        }
        true
    }

    /// A joint, if it is still there.
    pub fn joint(&self, handle: JointHandle) -> Option<&Joint> {
        self.joints.get(handle)
    }

    /// Every joint.
    pub fn joints(&self) -> impl Iterator<Item = (JointHandle, &Joint)> {
        self.joints.iter()
    }

    /// The joints that broke in the last step (already removed).
    pub fn broken_joints(&self) -> &[JointDef] {
        &self.broken_joints
    }

    /// The world points of a joint's two anchors.
    pub fn joint_anchors(&self, handle: JointHandle) -> Option<(Vec3, Vec3)> {
        let def = &self.joints.get(handle)?.def;
        let a = self.bodies.get(def.body_a)?;
        let pa = a.position() + a.rotation() * def.local_anchor_a;
        let pb = match def.body_b {
            Some(h) => {
                let b = self.bodies.get(h)?;
                b.position() + b.rotation() * def.local_anchor_b
            }
            None => def.local_anchor_b,
        };
        Some((pa, pb))
    }

    /// A hinge's angle of A relative to B (or the world) about its axis, rad (0 where it was
    /// made).
    pub fn joint_angle(&self, handle: JointHandle) -> Option<f32> {
        let def = &self.joints.get(handle)?.def;
        let JointKind::Revolute {
            axis_a,
            reference_a,
            reference_b,
            ..
        } = def.kind
        else {
            return None;
        };
        let qa = self.bodies.get(def.body_a)?.rotation();
        let qb = match def.body_b {
            Some(h) => self.bodies.get(h)?.rotation(),
            None => Quat::IDENTITY,
        };
        Some(hinge_angle(qa * axis_a, qa * reference_a, qb * reference_b))
    }

    /// Counts a joint between two bodies that keeps them from colliding on both (`change`
    /// 1 when it is made, −1 when it goes).
    fn count_joint_without_contact(&mut self, def: &JointDef, change: i32) {
        for h in [Some(def.body_a), def.body_b].into_iter().flatten() {
            if let Some(body) = self.bodies.get_mut(h) {
                body.joints_without_contact =
                    body.joints_without_contact.saturating_add_signed(change);
            }
        }
    }

    /// Whether bodies slots `a` and `b` are joined by a joint that keeps them from colliding.
    pub(crate) fn joined_without_contact(&self, a: u32, b: u32) -> bool {
        let counted = |i: u32| {
            self.bodies
                .at(i)
                .is_some_and(|b| b.joints_without_contact > 0)
        };
        counted(a)
            && counted(b)
            && self.joints.iter().any(|(_, j)| {
                let (ja, jb) = (j.def.body_a.index(), j.def.body_b.map(|h| h.index()));
                !j.def.collide && ((ja == a && jb == Some(b)) || (ja == b && jb == Some(a)))
            })
    }

    /// Removes the joints of body slot `index` (the body is being removed).
    pub(crate) fn remove_joints_of(&mut self, index: u32) {
        let gone: Vec<JointHandle> = self
            .joints
            .iter()
            .filter(|(_, j)| {
                j.def.body_a.index() == index || j.def.body_b.is_some_and(|b| b.index() == index)
            })
            .map(|(h, _)| h)
            .collect();
        for h in gone {
            self.remove_joint(h);
        }
    }

    /// The solver indices of jointed awake dynamic bodies (they form one island), into
    /// `out` (a buffer kept from step to step).
    pub(crate) fn joint_island_pairs(&self, first_dynamic: u32, out: &mut Vec<(u32, u32)>) {
        out.clear();
        out.extend(self.joints.iter().filter_map(|(_, j)| {
            let a = self.bodies.get(j.def.body_a)?;
            let b = self.bodies.get(j.def.body_b?)?;
            (a.solver_index >= first_dynamic
                && b.solver_index >= first_dynamic
                && a.solver_index != super::body::NULL
                && b.solver_index != super::body::NULL)
                .then_some((a.solver_index, b.solver_index))
        }));
    }

    /// Prepares every joint with an awake dynamic body for this step (after the solver's
    /// bodies are indexed and grouped).
    pub(crate) fn gather_joints(&mut self) {
        let mut list = std::mem::take(&mut self.scratch.joints);
        list.clear();
        let groups = &self.scratch.groups;
        let group_of = |index: u32| {
            groups
                .iter()
                .position(|g| g.bodies.contains(&(index as usize)))
                .map(|g| g as u32)
        };
        let first_dynamic = 1 + self.scratch.kinematic_count as u32;
        let (solver_bodies, forces) = (&self.scratch.solver_bodies, &self.scratch.solver_forces);
        let inv_mass = |index: u32| {
            let i = index as usize;
            solver_bodies[i].inv_mass * forces[i].linear_free
        };
        for (handle, joint) in self.joints.iter() {
            let Some(a) = self.bodies.get(joint.def.body_a) else {
                continue;
            };
            let b = joint.def.body_b.and_then(|h| self.bodies.get(h));
            let index = |body: Option<&super::body::Body>| {
                body.map_or(0, |b| {
                    if b.solver_index == super::body::NULL {
                        0
                    } else {
                        b.solver_index
                    }
                })
            };
            let (ia, ib) = (index(Some(a)), index(b));
            let dynamic = [ia, ib].into_iter().find(|&i| i >= first_dynamic);
            let Some(group) = dynamic.and_then(group_of) else {
                continue;
            };
            let frame = |body: Option<&super::body::Body>, local: Vec3| match body {
                Some(b) => (b.center, b.rotation, local - b.local_center),
                None => (Vec3::ZERO, Quat::IDENTITY, local),
            };
            let (center_a, rotation_a, arm_a) = frame(Some(a), joint.def.local_anchor_a);
            let (center_b, rotation_b, arm_b) = frame(b, joint.def.local_anchor_b);
            list.push(JointConstraint {
                joint: handle.index(),
                a: ia,
                b: ib,
                group,
                arm_a,
                arm_b,
                center_a,
                center_b,
                rotation_a,
                rotation_b,
                inv_mass_a: inv_mass(ia),
                inv_mass_b: inv_mass(ib),
                component: NO_BLOCK,
                kind: joint.def.kind,
                impulse: if self.settings.enable_warm_starting {
                    joint.impulse
                } else {
                    Vec3::ZERO
                },
                extra: if self.settings.enable_warm_starting {
                    joint.extra
                } else {
                    [0.0; 5]
                },
            });
        }
        assign_blocks(
            &mut list,
            &mut self.scratch.joint_blocks,
            self.scratch.solver_bodies.len(),
        );
        self.scratch.joints = list;
    }

    /// Stores the joints' impulses for the next step and removes those that broke (their
    /// force, the last sub-step's impulse over the sub-step, passed `break_force`).
    pub(crate) fn store_joint_impulses(&mut self, dt: f32) {
        self.broken_joints.clear();
        let list = std::mem::take(&mut self.scratch.joints);
        for c in &list {
            let Some(handle) = self.joints.handle_at(c.joint) else {
                continue;
            };
            let Some(joint) = self.joints.get_mut(handle) else {
                continue;
            };
            joint.impulse = c.impulse;
            joint.extra = c.extra;
            let substeps = self.scratch.groups[c.group as usize].substeps as f32;
            joint.force = c.impulse.length() * substeps / dt;
            if let Some(limit) = joint.def.break_force {
                if joint.force > limit {
                    let def = joint.def;
                    self.remove_joint(handle);
                    self.broken_joints.push(def);
                }
            }
        }
        self.scratch.joints = list;
    }
}
