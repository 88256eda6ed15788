//! The joints' part of the step: each joint with an awake dynamic body prepared for the
//! solver ([`JointConstraint`]) and its impulses stored back afterwards, the per-pass
//! dispatch to each kind's rows ([`solve_joints`]), and the jointed islands whose equality
//! rows are solved together as one block (`block.rs`).

use super::super::math::{Quat, Vec3};
use super::super::solver::{Softness, SolverBody};
use super::super::world::World;
use super::block::{self, BlockScratch, Row, Slot, MAX_BLOCK_ROWS, MAX_BLOCK_WORK};
use super::parts::{self, Anchors, SubStep};
use super::{distance, fixed, revolute, spherical, spring};
use super::{JointKind, JointState, JOINT_DAMPING_RATIO, JOINT_HERTZ};

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
    /// Whether either body has a locked axis (or the world is planar).
    pub locked: bool,
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
    pub(super) fn is_sequential(&self) -> bool {
        self.component == NO_BLOCK
    }

    /// The accumulated impulse a block row of `slot` stands for.
    fn accumulated(&mut self, slot: Slot) -> &mut f32 {
        match (slot, &mut self.state) {
            (Slot::Linear(k), _) => &mut self.impulse[k],
            (Slot::WeldAngular(k), JointState::Fixed(weld)) => &mut weld.angular[k],
            (Slot::HingeAlignment(k), JointState::Revolute(hinge)) => &mut hinge.alignment[k],
            (Slot::HingeAngle | Slot::HingeLower, JointState::Revolute(hinge)) => &mut hinge.lower,
            (Slot::HingeUpper, JointState::Revolute(hinge)) => &mut hinge.upper,
            (Slot::Swing, JointState::Spherical(swing)) => &mut swing.swing,
            (slot, state) => unreachable!("a {slot:?} row on a joint with {state:?}"),
        }
    }

    /// An equality row of this joint (its index `joint` in the solver's list): J =
    /// (linear a, angular a, linear b, angular b), C = `error`.
    pub(super) fn row(&self, joint: u32, slot: Slot, jacobian: [Vec3; 4], error: f32) -> Row {
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
            locked: self.locked,
            error,
            one_sided: false,
        }
    }

    /// A limit row of this joint for its island's block: as [`JointConstraint::row`], C the
    /// gap (≥ 0 allowed), its impulse ≥ 0.
    pub(super) fn limit_row(&self, joint: u32, slot: Slot, jacobian: [Vec3; 4], gap: f32) -> Row {
        Row {
            one_sided: true,
            ..self.row(joint, slot, jacobian, gap)
        }
    }

    /// Clears the impulses of the rows its island's block solves: the block solves them
    /// whole in every pass, so they carry nothing from one sub-step to the next (a
    /// carried impulse is applied along the sub-step's new rows, and where a contact pushes
    /// against a joint, or two rows hold a light body between them, the two carried
    /// impulses are large and opposite, and no longer cancel once the bodies have turned).
    /// The motor and springs keep theirs: they are solved joint by joint.
    fn forget_block_impulses(&mut self) {
        if self.is_sequential() {
            return;
        }
        match (&self.kind, &mut self.state) {
            (JointKind::Spherical { .. }, JointState::Spherical(swing)) => {
                self.impulse = Vec3::ZERO;
                swing.swing = 0.0;
            }
            (JointKind::Revolute { .. }, JointState::Revolute(hinge)) => {
                self.impulse = Vec3::ZERO;
                hinge.alignment = [0.0; 2];
                hinge.lower = 0.0;
                hinge.upper = 0.0;
            }
            (JointKind::Fixed { .. }, JointState::Fixed(weld)) => {
                self.impulse = Vec3::ZERO;
                weld.angular = Vec3::ZERO;
            }
            (JointKind::Distance { min, max }, _) if min == max => self.impulse = Vec3::ZERO,
            _ => {}
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
    if pass != JointPass::WarmStart {
        // The contacts apply their impulses with the scalar mass and leave velocity along
        // a body's locked translation axes until the speed caps take it out
        // (`clamp_speeds`); the joints must not see it. Read as a rate of their rows, it is
        // motion no impulse of theirs can change (their inverse masses are 0 there), and
        // the block would answer it through the free directions: a push that adds energy.
        for c in joints.iter().filter(|c| c.group == group && c.locked) {
            for (index, inv_mass) in [(c.a, c.inv_mass_a), (c.b, c.inv_mass_b)] {
                let body = &mut bodies[index as usize];
                if index != 0 && body.inv_mass > 0.0 {
                    body.linear_velocity *=
                        Vec3::select(inv_mass.cmpeq(Vec3::ZERO), Vec3::ZERO, Vec3::ONE);
                }
            }
        }
    }
    for c in joints.iter_mut().filter(|c| c.group == group) {
        if pass == JointPass::WarmStart {
            c.forget_block_impulses();
        }
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
                block_rows(index as u32, c, bodies, &mut blocks.rows);
            }
            // A limit joins the block only where it may act this sub-step: holding an
            // impulse, touching, or closing its gap within two sub-steps at the rate it has
            // now. The others would only make the block larger (n³) to be left out of it.
            blocks.accumulated.clear();
            let mut kept = 0;
            for i in 0..blocks.rows.len() {
                let row = blocks.rows[i];
                let accumulated = *joints[row.joint as usize].accumulated(row.slot);
                let near = accumulated > 0.0
                    || row.error <= 0.0
                    || row.error + 2.0 * step.h * row.rate(bodies) < 0.0;
                if !row.one_sided || near {
                    blocks.rows[kept] = row;
                    blocks.accumulated.push(accumulated);
                    kept += 1;
                }
            }
            blocks.rows.truncate(kept);
            // Each joint's rows (they come joint by joint, in the island's order).
            let mut plan = std::mem::take(&mut blocks.plan);
            plan.ranges.clear();
            plan.ranges.resize(end - start, (0, 0));
            for (i, row) in blocks.rows.iter().enumerate() {
                let range = &mut plan.ranges[row.joint as usize - start];
                if range.0 == range.1 {
                    *range = (i as u32, i as u32);
                }
                range.1 = i as u32 + 1;
            }
            let bias_rate = step.biased().then_some(step.soft.bias_rate);
            let scales = (mass_scale, impulse_scale);
            let island = plan.island(start, end);
            block::solve_block(blocks, island, bodies, bias_rate, 1.0 / step.h, scales);
            blocks.plan = plan;
            for (row, &delta) in blocks.rows.iter().zip(&blocks.delta) {
                *joints[row.joint as usize].accumulated(row.slot) += delta;
                row.apply(bodies, delta);
            }
        }
        start = end;
    }
}

/// Finds the jointed islands (joints linked through moving bodies), marks the joints of
/// each island with at most [`MAX_BLOCK_ROWS`] equality rows to be solved as one block, and
/// orders the joints by group, then island (each island's joints contiguous, in their
/// original order), so `solve_blocks` finds each island as one run. Then orders each
/// island's elimination (`block::order_island`); an island whose solve would take more
/// than [`MAX_BLOCK_WORK`] is solved joint by joint after all.
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
        counts[c.component as usize] += block_row_count(&c.kind);
    }
    for c in list.iter_mut() {
        let rows = counts[c.component as usize];
        if rows == 0 || rows as usize > MAX_BLOCK_ROWS {
            c.component = NO_BLOCK;
        }
    }
    list.sort_by_key(|c| (c.group, c.component));
    // Each island's elimination order; an island whose elimination would cost too much is
    // solved joint by joint after all.
    scratch.plan.later.clear();
    let mut start = 0;
    while start < list.len() {
        let (group, component) = (list[start].group, list[start].component);
        let end = start
            + list[start..]
                .iter()
                .take_while(|c| c.group == group && c.component == component)
                .count();
        if component != NO_BLOCK {
            let island = &list[start..end];
            scratch.weights.clear();
            scratch
                .weights
                .extend(island.iter().map(|c| block_row_count(&c.kind)));
            scratch.touching.clear();
            for (j, c) in island.iter().enumerate() {
                for body in [c.a, c.b] {
                    if body != 0 {
                        scratch.touching.push((body, j as u32));
                    }
                }
            }
            scratch.touching.sort_unstable();
            let work = block::order_island(
                start,
                &scratch.weights,
                &scratch.touching,
                &mut scratch.plan,
                &mut scratch.adjacency,
                &mut scratch.degree,
                &mut scratch.eliminated,
            );
            let rows: u64 = scratch.weights.iter().map(|&w| w as u64).sum();
            if work + rows * rows > MAX_BLOCK_WORK {
                for c in &mut list[start..end] {
                    c.component = NO_BLOCK;
                }
            }
        }
        start = end;
    }
}

/// How many rows (solved by the island's block) a joint of `kind` has: its equality rows
/// and its limits.
fn block_row_count(kind: &JointKind) -> u32 {
    match *kind {
        JointKind::Spherical { cone } => 3 + cone.is_some() as u32,
        JointKind::Fixed { .. } => 6,
        JointKind::Revolute {
            limits: Some(limits),
            ..
        } if limits.lower == limits.upper => 6,
        JointKind::Revolute { limits, .. } => 5 + 2 * limits.is_some() as u32,
        JointKind::Distance { min, max } if min == max => 1,
        _ => 0,
    }
}

/// Appends joint `index`'s block rows (equality rows, then limits), for the bodies as the
/// sub-step has moved them.
/// Each row's Ċ = J·v and C follow the sign of the row it stands for: the point rows
/// d = p_b − p_a, a weld's −θ (its rate ω_b − ω_a), a hinge's alignment errors (their rate
/// (ω_b − ω_a)·r), a rod's |d| − L.
fn block_rows(index: u32, c: &JointConstraint, bodies: &[SolverBody], rows: &mut Vec<Row>) {
    let anchors = Anchors::new(c, bodies);
    match c.kind {
        JointKind::Spherical { cone } => {
            parts::point_equality_rows(index, c, &anchors, rows);
            if let Some(cone) = cone {
                spherical::swing_limit_row(index, c, bodies, &cone, rows);
            }
        }
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

/// The joint phases' buffers.
#[derive(Default)]
pub(crate) struct JointScratch {
    /// This step's joints, prepared for the solver.
    pub constraints: Vec<JointConstraint>,
    /// Buffers of the jointed islands' direct solve.
    pub blocks: BlockScratch,
    /// Pairs of jointed awake dynamic bodies (solver indices and masses), for the islands.
    pub pairs: Vec<(u32, u32, f32, f32)>,
}

impl World {
    /// The solver indices and masses of jointed awake dynamic bodies (they form one
    /// island), into `out` (a buffer kept from step to step).
    pub(crate) fn joint_island_pairs(
        &self,
        first_dynamic: u32,
        out: &mut Vec<(u32, u32, f32, f32)>,
    ) {
        out.clear();
        out.extend(self.joints.iter().filter_map(|(_, j)| {
            let a = self.bodies.get(j.def.body_a)?;
            let b = self.bodies.get(j.def.body_b?)?;
            (a.solver_index >= first_dynamic
                && b.solver_index >= first_dynamic
                && a.solver_index != super::super::body::NULL
                && b.solver_index != super::super::body::NULL)
                .then_some((a.solver_index, b.solver_index, a.mass(), b.mass()))
        }));
    }

    /// Prepares every joint with an awake dynamic body for this step (after the solver's
    /// bodies are indexed and grouped).
    pub(crate) fn gather_joints(&mut self) {
        let mut list = std::mem::take(&mut self.scratch.joints.constraints);
        list.clear();
        let groups = &self.scratch.islands.groups;
        let group_of = |index: u32| {
            groups
                .iter()
                .position(|g| g.bodies.contains(&(index as usize)))
                .map(|g| g as u32)
        };
        let first_dynamic = 1 + self.scratch.solver.kinematic_count as u32;
        let (solver_bodies, forces) = (&self.scratch.solver.bodies, &self.scratch.solver.forces);
        let inv_mass = |index: u32| {
            let i = index as usize;
            solver_bodies[i].inv_mass * forces[i].linear_free
        };
        for (handle, joint) in self.joints.iter() {
            let Some(a) = self.bodies.get(joint.def.body_a) else {
                continue;
            };
            let b = joint.def.body_b.and_then(|h| self.bodies.get(h));
            let index = |body: Option<&super::super::body::Body>| {
                body.map_or(0, |b| {
                    if b.solver_index == super::super::body::NULL {
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
            let frame = |body: Option<&super::super::body::Body>, local: Vec3| match body {
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
                locked: forces[ia as usize].locked || forces[ib as usize].locked,
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
            &mut self.scratch.joints.blocks,
            self.scratch.solver.bodies.len(),
        );
        self.scratch.joints.constraints = list;
    }

    /// Stores the joints' impulses for the next step and removes those that broke (their
    /// force, the last sub-step's impulse over the sub-step, passed `break_force`).
    pub(crate) fn store_joint_impulses(&mut self, dt: f32) {
        self.broken_joints.clear();
        let list = std::mem::take(&mut self.scratch.joints.constraints);
        for c in &list {
            let Some(handle) = self.joints.handle_at(c.joint) else {
                continue;
            };
            let Some(joint) = self.joints.get_mut(handle) else {
                continue;
            };
            joint.impulse = c.impulse;
            joint.state = c.state;
            let substeps = self.scratch.islands.groups[c.group as usize].substeps as f32;
            joint.force = c.impulse.length() * substeps / dt;
            if let Some(limit) = joint.def.break_force {
                if joint.force > limit {
                    let def = joint.def;
                    self.remove_joint(handle);
                    self.broken_joints.push(def);
                }
            }
        }
        self.scratch.joints.constraints = list;
    }
}
