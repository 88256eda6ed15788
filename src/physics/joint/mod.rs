//! Joints and springs between two bodies, or a body and the world: solved in the same
//! sub-steps as the contacts (after them in each pass, one joint after another), warm-started
//! from the last step, and able to break.
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
//! - **spring** (`spring.rs`): a soft distance of its own `hertz` and `damping_ratio` about
//!   `rest_length`; a bungee pulls only when stretched.
//!
//! The rigid rows are soft in the biased pass (Box2D v3's joint softness: [`JOINT_HERTZ`],
//! [`JOINT_DAMPING_RATIO`]) and rigid in the relax pass, exactly like contacts. A spring is
//! solved in the biased pass only (relaxing it would take out the velocity the spring gave):
//! its force explicit and its damping implicit, so an undamped spring keeps its energy, up
//! to [`SYMPLECTIC_SPRING_LIMIT`]; stiffer springs take the soft step with their own
//! frequency, which is stable at any stiffness but loses energy. Joints are solved serially,
//! after each pass over the contacts' colours: they are few next to the contacts, and a
//! chain needs its links in order more than in parallel. The equality rows of a small
//! jointed island are solved together instead (`block.rs`).

mod block;
mod distance;
mod fixed;
mod parts;
mod revolute;
mod spherical;
mod spring;

use super::body::BodyType;
use super::math::{Quat, Vec3};
use super::solver::{Softness, SolverBody};
use super::world::{BodyHandle, World};
pub(crate) use block::BlockScratch;
use block::{Row, Slot, MAX_BLOCK_ROWS};
use fixed::WeldState;
use parts::{Anchors, SubStep};
use revolute::HingeState;
pub use revolute::{Limits, Motor};
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
    /// The linear impulse, N·s: the point rows' (3 rows along the world axes), or a
    /// distance joint's or a spring's along the line between the anchors (`distance.rs`,
    /// `spring.rs`).
    pub impulse: Vec3,
    /// The kind's other impulses.
    pub state: JointState,
}

/// `JointConstraint::component` of a joint whose rows are solved joint by joint.
pub(crate) const NO_BLOCK: u32 = u32::MAX;

impl JointConstraint {
    /// Whether its equality rows are solved joint by joint (not in an island's block).
    fn is_sequential(&self) -> bool {
        self.component == NO_BLOCK
    }

    /// The accumulated impulse an equality row of `slot` stands for.
    fn accumulated(&mut self, slot: Slot) -> &mut f32 {
        match (slot, &mut self.state) {
            (Slot::Linear(k), _) => &mut self.impulse[k],
            (Slot::WeldAngular(k), JointState::Fixed(weld)) => &mut weld.angular[k],
            (Slot::HingeAlignment(k), JointState::Revolute(hinge)) => &mut hinge.alignment[k],
            (Slot::HingeAngle, JointState::Revolute(hinge)) => &mut hinge.lower,
            (slot, state) => unreachable!("a {slot:?} row on a joint with {state:?}"),
        }
    }

    /// An equality row of this joint (its index `joint` in the solver's list): J =
    /// (linear a, angular a, linear b, angular b), C = `error`.
    fn row(&self, joint: u32, slot: Slot, jacobian: [Vec3; 4], error: f32) -> Row {
        let [linear_a, angular_a, linear_b, angular_b] = jacobian;
        Row {
            joint,
            slot,
            a: self.a,
            b: self.b,
            linear_a,
            angular_a,
            linear_b,
            angular_b,
            inv_mass_a: self.inv_mass_a,
            inv_mass_b: self.inv_mass_b,
            error,
        }
    }
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

/// One pass over the joints of a group: each joint's own rows (all of them, or those its
/// island's block leaves), then the islands' blocks.
pub(crate) fn solve_joints(
    joints: &mut [JointConstraint],
    blocks: &mut BlockScratch,
    bodies: &mut [SolverBody],
    pass: JointPass,
    group: u32,
    h: f32,
) {
    let step = SubStep {
        pass,
        soft: Softness::new(JOINT_HERTZ, JOINT_DAMPING_RATIO, h),
        h,
    };
    for c in joints.iter_mut().filter(|c| c.group == group) {
        match c.kind {
            JointKind::Spherical { cone } => spherical::solve(c, cone, bodies, &step),
            JointKind::Distance { min, max } => distance::solve(c, min, max, bodies, &step),
            JointKind::Revolute { limits, motor, .. } => {
                revolute::solve(c, limits, motor, bodies, &step)
            }
            JointKind::Fixed { reference } => fixed::solve(c, reference, bodies, &step),
            JointKind::Spring {
                rest_length,
                hertz,
                damping_ratio,
                bungee,
            } => {
                let spring = spring::Spring {
                    rest_length,
                    hertz,
                    damping_ratio,
                    bungee,
                };
                spring::solve(c, spring, bodies, &step)
            }
        }
    }
    if pass != JointPass::WarmStart {
        solve_blocks(joints, blocks, bodies, group, &step);
    }
}

/// The islands' equality rows of `group`, each island as one block (`block.rs`).
fn solve_blocks(
    joints: &mut [JointConstraint],
    blocks: &mut BlockScratch,
    bodies: &mut [SolverBody],
    group: u32,
    step: &SubStep,
) {
    let (mass_scale, impulse_scale) = step.scales();
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
            let bias_rate = step.biased().then_some(step.soft.bias_rate);
            block::solve_block(blocks, bodies, bias_rate);
            for (row, &x) in blocks.rows.iter().zip(&blocks.x) {
                let accumulated = joints[row.joint as usize].accumulated(row.slot);
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
        JointKind::Revolute {
            limits: Some(limits),
            ..
        } if limits.lower == limits.upper => 6,
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
    let anchors = Anchors::new(c, bodies);
    match c.kind {
        JointKind::Spherical { .. } => parts::point_equality_rows(index, c, &anchors, rows),
        JointKind::Fixed { reference } => {
            fixed::equality_rows(index, c, bodies, reference, &anchors, rows)
        }
        JointKind::Revolute { .. } => revolute::equality_rows(index, c, bodies, &anchors, rows),
        JointKind::Distance { min, max } if min == max => {
            distance::equality_rows(index, c, bodies, max, &anchors, rows)
        }
        _ => {}
    }
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
        Some(revolute::hinge_angle(
            qa * axis_a,
            qa * reference_a,
            qb * reference_b,
        ))
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
                state: if self.settings.enable_warm_starting {
                    joint.state
                } else {
                    JointState::new(&joint.def.kind)
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
            joint.state = c.state;
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
