//! Joints and springs between two bodies, or a body and the world: solved in the same
//! sub-steps as the contacts (after them in each pass), and able to break.
//!
//! Kinds (anchors are points fixed in each body; a world anchor is a fixed world point),
//! one file each, built from the rows of `parts.rs`:
//! - **spherical** (ball and socket, `spherical.rs`): the anchors coincide. C = p_b − p_a
//!   (3 rows), K = (m_a⁻¹ + m_b⁻¹)·𝟙 − \[r_a\]×I_a⁻¹\[r_a\]× − \[r_b\]×I_b⁻¹\[r_b\]×;
//!   optionally a swing cone.
//! - **revolute** (a hinge, `revolute.rs`): the point rows, two rows keeping the axes
//!   parallel, and about the axis optional limits and a motor.
//! - **distance** (`distance.rs`): min ≤ |p_b − p_a| ≤ max along u = (p_b − p_a)/|p_b − p_a|
//!   (1 row, k = m_a⁻¹ + m_b⁻¹ + (r_a×u)·I_a⁻¹(r_a×u) + (r_b×u)·I_b⁻¹(r_b×u)); a rod when
//!   min = max, a rope when min = 0. Each limit only pushes one way, and a slack one is
//!   speculative (it lets the gap close exactly in a sub-step, like a contact).
//! - **fixed** (a weld, `fixed.rs`): the anchors coincide and A keeps the rotation relative
//!   to B it had when the joint was made. The point rows are the spherical joint's; the
//!   angular error is θ = 2·vec(q_a·(q_b·q_ref)⁻¹) (small angles), its rate ω_a − ω_b,
//!   K = I_a⁻¹ + I_b⁻¹.
//! - **spring** (`spring.rs`): a force −k·x − c·ẋ along the line between the anchors, x
//!   the stretch past `rest_length`, k = m·(2π·hertz)² and c = 2·ζ·m·2π·hertz with m the
//!   bodies' reduced mass; a bungee pulls only when stretched.
//!
//! The rigid rows are soft in the biased pass (Box2D v3's joint softness: [`JOINT_HERTZ`],
//! [`JOINT_DAMPING_RATIO`]) and rigid in the relax pass, exactly like contacts. A spring is
//! solved in the biased pass only (relaxing it would take out the velocity the spring gave):
//! its force explicit and its damping implicit, so an undamped spring keeps its energy, up
//! to [`SYMPLECTIC_SPRING_LIMIT`]; stiffer springs are solved implicitly with the same k
//! and c, which is stable at any stiffness but loses energy. Joints are solved after each
//! pass over the contacts' colours: a jointed island of up to `block::MAX_BLOCK_ROWS` rows
//! (and `block::MAX_BLOCK_WORK`) solves its equality rows and limits together, directly,
//! with no warm start (`block.rs`); its motors and springs, and every joint of a larger
//! island, one joint after another, warm-started from the last sub-step.

mod block;
mod distance;
mod fixed;
mod mobility;
mod parts;
mod revolute;
mod solve;
mod spherical;
mod spring;

use super::body::BodyType;
use super::math::{Quat, Vec3};
use super::world::{BodyHandle, World};
pub(crate) use block::{BlockPlan, BlockScratch};
use fixed::WeldState;
pub(crate) use mobility::floored_inv_inertia;
pub(crate) use parts::SubStep;
use revolute::HingeState;
pub use revolute::{Limits, Motor};
pub(crate) use solve::{
    begin_pass, solve_island, solve_joint, solve_joint_shared, JointConstraint, JointPass,
    JointRun, JointScratch,
};
use spherical::SwingState;
pub use spring::SYMPLECTIC_SPRING_LIMIT;

/// How far a hinge's axis may lean towards an axis a locked body may not turn about
/// (the length of the unit axis' part along the locked axes; 10⁻³ is 0.06°) before
/// `create_joint` refuses the hinge.
pub const HINGE_AXIS_LOCK_TOLERANCE: f32 = 1.0e-3;

/// Stiffness of the rigid rows in the biased pass, Hz (Box2D v3's joint hertz).
pub const JOINT_HERTZ: f32 = 60.0;
/// Damping ratio of the rigid rows in the biased pass (Box2D v3's joint damping ratio).
pub const JOINT_DAMPING_RATIO: f32 = 2.0;

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
        /// The range of A's angle relative to B (or the world) about the axis, if bounded.
        limits: Option<Limits>,
        /// The motor driving A's spin relative to B about the axis, if any.
        motor: Option<Motor>,
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
        /// Natural frequency of the bodies' masses on the spring, Hz: stiffness
        /// k = m·(2π·hertz)², m the reduced mass m_a·m_b/(m_a + m_b) (a body's own mass
        /// against the world), fixed however the bodies turn.
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
    /// The kind's other impulses: a hinge's alignment rows, motor and limits, a weld's
    /// angular rows, a ball joint's swing limit.
    pub(crate) state: JointState,
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
                if let Some(Limits { lower, upper }) = limits {
                    if !(lower.is_finite() && upper.is_finite() && lower <= upper) {
                        return Err(format!(
                            "limits must be finite with lower ≤ upper, got ({lower}, {upper})"
                        ));
                    }
                }
                if let Some(Motor { speed, max_torque }) = motor {
                    if !speed.is_finite() {
                        return Err(format!("motor speed must be finite, got {speed}"));
                    }
                    non_negative("motor torque", max_torque)?;
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

/// A joint's accumulated impulses besides its linear ones (`impulse`), one variant per
/// kind, carried from step to step for the warm start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum JointState {
    /// A ball joint's swing limit.
    Spherical(SwingState),
    /// A distance joint keeps its rows in `impulse`.
    Distance,
    /// A hinge's alignment rows, motor and limits.
    Revolute(HingeState),
    /// A weld's angular rows.
    Fixed(WeldState),
    /// A spring keeps its row in `impulse`.
    Spring,
}

impl JointState {
    /// The state of a joint of `kind` with no impulse yet.
    pub fn new(kind: &JointKind) -> Self {
        match kind {
            JointKind::Spherical { .. } => JointState::Spherical(SwingState::default()),
            JointKind::Distance { .. } => JointState::Distance,
            JointKind::Revolute { .. } => JointState::Revolute(HingeState::default()),
            JointKind::Fixed { .. } => JointState::Fixed(WeldState::default()),
            JointKind::Spring { .. } => JointState::Spring,
        }
    }
}

/// Why a joint could not be made or removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JointError {
    /// The joint handle is stale.
    StaleJoint,
    /// A body handle is stale: `body_a` or `body_b`, as named.
    StaleBody(&'static str),
    /// The definition is unusable; the message says which field and why.
    Invalid(String),
}

impl std::fmt::Display for JointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JointError::StaleJoint => write!(f, "the joint was removed"),
            JointError::StaleBody(which) => write!(f, "{which} is not in the world"),
            JointError::Invalid(msg) => write!(f, "{msg}"),
        }
    }
}

impl std::error::Error for JointError {}

impl World {
    /// Adds a joint; refused, with the reason, for a stale body, a body joined to itself, a
    /// joint with no dynamic body, or numbers out of range. Both bodies wake.
    pub fn create_joint(&mut self, def: JointDef) -> Result<JointHandle, JointError> {
        def.validate().map_err(JointError::Invalid)?;
        let a = self
            .bodies
            .get(def.body_a)
            .ok_or(JointError::StaleBody("body_a"))?;
        let mut dynamic = a.body_type == BodyType::Dynamic;
        if let Some(b) = def.body_b {
            if b == def.body_a {
                return Err(JointError::Invalid(
                    "a joint needs two different bodies".into(),
                ));
            }
            let b = self.bodies.get(b).ok_or(JointError::StaleBody("body_b"))?;
            dynamic |= b.body_type == BodyType::Dynamic;
        }
        if !dynamic {
            return Err(JointError::Invalid(
                "a joint needs a dynamic body on one side".into(),
            ));
        }
        self.check_hinge_axis(&def).map_err(JointError::Invalid)?;
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
            state: JointState::new(&def.kind),
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

    /// Removes a joint (its bodies wake).
    pub fn remove_joint(&mut self, handle: JointHandle) -> Result<(), JointError> {
        let Some(joint) = self.joints.remove(handle) else {
            return Err(JointError::StaleJoint);
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
        Ok(())
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
        Some(revolute::hinge_angle(
            qa * axis_a,
            qa * reference_a,
            qb * reference_b,
        ))
    }

    /// Counts a joint between two bodies that keeps them from colliding, on both bodies and
    /// for the pair (`change` 1 when it is made, −1 when it goes).
    fn count_joint_without_contact(&mut self, def: &JointDef, change: i32) {
        let Some(b) = def.body_b else {
            return;
        };
        for h in [def.body_a, b] {
            if let Some(body) = self.bodies.get_mut(h) {
                body.joints_without_contact =
                    body.joints_without_contact.saturating_add_signed(change);
            }
        }
        let (i, j) = (def.body_a.index(), b.index());
        let count = self.joined_pairs.entry((i.min(j), i.max(j))).or_insert(0);
        *count = count.saturating_add_signed(change);
        if *count == 0 {
            self.joined_pairs.remove(&(i.min(j), i.max(j)));
        }
    }

    /// Whether bodies slots `a` and `b` are joined by a joint that keeps them from colliding.
    pub(crate) fn joined_without_contact(&self, a: u32, b: u32) -> bool {
        let counted = |i: u32| {
            self.bodies
                .at(i)
                .is_some_and(|b| b.joints_without_contact > 0)
        };
        counted(a) && counted(b) && self.joined_pairs.contains_key(&(a.min(b), a.max(b)))
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
            // Found in the list just above, so each is there to remove.
            let _ = self.remove_joint(h);
        }
    }
}
