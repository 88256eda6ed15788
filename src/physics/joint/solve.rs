//! The joints' part of the step: each joint with an awake dynamic body prepared for the
//! solver ([`JointConstraint`]) and its impulses stored back afterwards, the per-pass
//! dispatch to each kind's rows ([`solve_joint`]), and the jointed islands whose equality
//! rows are solved together as one block ([`solve_island`], `block/`).

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use super::super::island::find_root;
use super::super::math::{Quat, Vec3};
use super::super::solver::crew::{block_offsets, for_each_block, Shared};
use super::super::solver::{ConstraintGraph, SolverBody, OVERFLOW};
use super::super::world::World;
use super::block::{
    self, BlockPlan, BlockScratch, Blocks, Row, Slot, MAX_BLOCK_ROWS, MAX_BLOCK_WORK,
};
use super::parts::{self, Anchors, JointBodies, PairBodies, SubStep};
use super::{distance, fixed, revolute, spherical, spring};
use super::{JointKind, JointState};

/// Fewest joints a group needs before its per-joint passes are coloured and may be shared
/// by the team: below it a pass is some tens of microseconds (about 0.1 µs a joint), less
/// than the stage syncs sharing costs, and the joints are taken in the list's order. The
/// count fixes the order, whatever the worker count.
pub(crate) const MIN_JOINTS_TO_COLOUR: usize = 512;

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
    /// Anchors relative to the centres of mass, in world axes at the step's start (the
    /// bodies' local arms turned by `rotation_a`, `rotation_b`): a sub-step turns them on by
    /// its bodies' delta rotations (`parts::side`).
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

/// Joint slots per block of the joints' gather, and joints per block of their store.
const JOINT_GATHER_BLOCK: usize = 256;

impl JointConstraint {
    /// Whether its equality rows are solved joint by joint (not in an island's block).
    pub(super) fn is_sequential(&self) -> bool {
        self.component == NO_BLOCK
    }

    /// Whether its own solve does anything in a biased or relax pass: not when its
    /// island's block solves all its rows (a ball joint and its cone, a weld, a rod, a
    /// hinge and its limits without a motor); a motor, a rope's limits and a spring stay
    /// with the joint. Such a joint's warm start would only clear what its block carried
    /// and apply nothing.
    pub(super) fn solves_in_passes(&self) -> bool {
        self.is_sequential()
            || match self.kind {
                JointKind::Spherical { .. } | JointKind::Fixed { .. } => false,
                JointKind::Distance { min, max } => min != max,
                JointKind::Revolute { motor, .. } => motor.is_some(),
                JointKind::Spring { .. } => true,
            }
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

/// The start of a pass, ahead of the joints' own rows.
pub(crate) fn begin_pass(
    joints: &[JointConstraint],
    locked: &[u32],
    bodies: &mut [SolverBody],
    step: &SubStep,
    group: u32,
) {
    if step.pass != JointPass::WarmStart {
        // The contacts apply their impulses with the scalar mass and leave velocity along
        // a body's locked translation axes until the speed caps take it out
        // (`clamp_speeds`); the joints must not see it. Read as a rate of their rows, it is
        // motion no impulse of theirs can change (their inverse masses are 0 there), and
        // the block would answer it through the free directions: a push that adds energy.
        // `locked`: the joints with a locked body, in list order
        // (`JointScratch::locked`).
        let locked = locked.iter().map(|&k| &joints[k as usize]);
        for c in locked.filter(|c| c.group == group) {
            for (index, inv_mass) in [(c.a, c.inv_mass_a), (c.b, c.inv_mass_b)] {
                let body = &mut bodies[index as usize];
                if index != 0 && body.inv_mass > 0.0 {
                    body.linear_velocity *=
                        Vec3::select(inv_mass.cmpeq(Vec3::ZERO), Vec3::ZERO, Vec3::ONE);
                }
            }
        }
    }
}

/// A joint's own rows (all of them, or those its island's block leaves) for one pass.
/// It writes only its two bodies, never the static stand-in.
pub(crate) fn solve_joint<B: JointBodies + ?Sized>(
    c: &mut JointConstraint,
    bodies: &mut B,
    step: &SubStep,
) {
    if step.pass == JointPass::WarmStart {
        c.forget_block_impulses();
    }
    match c.kind {
        JointKind::Spherical { cone } => spherical::solve(c, cone, bodies, step),
        JointKind::Distance { min, max } => distance::solve(c, min, max, bodies, step),
        JointKind::Revolute { limits, motor, .. } => {
            revolute::solve(c, limits, motor, bodies, step)
        }
        JointKind::Fixed { reference } => fixed::solve(c, reference, bodies, step),
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
            spring::solve(c, spring, bodies, step)
        }
    }
}

/// [`solve_joint`] for a joint of a colour on one of several workers: it writes its bodies
/// in `movable` in place, and what it would write to a body outside (a kinematic one, whose
/// velocity a joint cannot change) to a copy, so no two workers write one body.
///
/// # Safety
/// No other thread may write the bodies the joint reads, nor use those in `movable` that
/// it writes, while it runs.
pub(crate) unsafe fn solve_joint_shared(
    c: &mut JointConstraint,
    bodies: Shared<SolverBody>,
    movable: &Range<usize>,
    step: &SubStep,
) {
    let (a, b) = (c.a as usize, c.b as usize);
    let (mut copy_a, mut copy_b);
    let body_a = match a {
        0 => None,
        // SAFETY: the caller's: no other thread uses the joint's bodies in `movable`.
        a if movable.contains(&a) => Some(unsafe { bodies.at_mut(a) }),
        a => {
            // SAFETY: the caller's: no other thread writes the bodies the joint reads.
            copy_a = unsafe { *bodies.at(a) };
            Some(&mut copy_a)
        }
    };
    let body_b = match b {
        0 => None,
        // SAFETY: as for body A.
        b if movable.contains(&b) => Some(unsafe { bodies.at_mut(b) }),
        b => {
            // SAFETY: as for body A.
            copy_b = unsafe { *bodies.at(b) };
            Some(&mut copy_b)
        }
    };
    let mut pair = PairBodies {
        // SAFETY: slot 0 is the world's stand-in body, which no pass writes.
        stand_in: unsafe { bodies.at(0) },
        a,
        body_a,
        b,
        body_b,
    };
    solve_joint(c, &mut pair, step);
}

/// The equality rows of one jointed island solved as one block (`block.rs`) in a biased
/// or relax pass; in the warm start, what the block's rows carried cleared (the rows start
/// every sub-step from nothing). `joints` are the island's (positions `start..` of the
/// joint list, whose indices the rows carry), `plan` the step's elimination orders,
/// `scratch` the solve's buffers. It reads and writes only the island's bodies (and reads
/// the static stand-in), so islands may be solved side by side.
pub(crate) fn solve_island<B: JointBodies + ?Sized>(
    joints: &mut [JointConstraint],
    start: usize,
    plan: &BlockPlan,
    scratch: &mut BlockScratch,
    bodies: &mut B,
    step: &SubStep,
) {
    if step.pass == JointPass::WarmStart {
        // The block's rows start every sub-step from nothing; the joints the passes leave
        // out (`solves_in_passes`) carry nothing else, so their warm start ends here.
        joints
            .iter_mut()
            .for_each(JointConstraint::forget_block_impulses);
        return;
    }
    let (mass_scale, impulse_scale) = step.scales();
    let end = start + joints.len();
    scratch.rows.clear();
    for (k, c) in joints.iter().enumerate() {
        block_rows((start + k) as u32, c, bodies, &mut scratch.rows);
    }
    // A limit joins the block only where it may act this sub-step: holding an impulse,
    // touching, or closing its gap within two sub-steps at the rate it has now. The others
    // would only make the block larger (n³) to be left out of it.
    scratch.accumulated.clear();
    let mut kept = 0;
    for i in 0..scratch.rows.len() {
        let row = scratch.rows[i];
        let accumulated = *joints[row.joint as usize - start].accumulated(row.slot);
        let near = accumulated > 0.0
            || row.error <= 0.0
            || row.error + 2.0 * step.h * row.rate(bodies) < 0.0;
        if !row.one_sided || near {
            scratch.rows[kept] = row;
            scratch.accumulated.push(accumulated);
            kept += 1;
        }
    }
    scratch.rows.truncate(kept);
    // Each joint's rows (they come joint by joint, in the island's order).
    let mut ranges = std::mem::take(&mut scratch.ranges);
    ranges.clear();
    ranges.resize(end - start, (0, 0));
    for (i, row) in scratch.rows.iter().enumerate() {
        let range = &mut ranges[row.joint as usize - start];
        if range.0 == range.1 {
            *range = (i as u32, i as u32);
        }
        range.1 = i as u32 + 1;
    }
    let bias_rate = step.biased().then_some(step.soft.bias_rate);
    let scales = (mass_scale, impulse_scale);
    let island = plan.island(start, end, &ranges);
    block::solve_block(scratch, island, bodies, bias_rate, 1.0 / step.h, scales);
    scratch.ranges = ranges;
    for (row, &delta) in scratch.rows.iter().zip(&scratch.delta) {
        *joints[row.joint as usize - start].accumulated(row.slot) += delta;
        row.apply(bodies, delta);
    }
}

/// Finds the jointed islands (joints linked through dynamic and kinematic bodies), marks
/// the joints of each island with at most [`MAX_BLOCK_ROWS`] equality rows (counted over
/// the whole island, whatever groups its joints are in) to be solved as one block, and
/// orders the joints by group, then island (each island's joints contiguous, in their
/// original order), so each island is one run of the list. Then orders each
/// island's elimination (`block::order_island`); an island whose solve would take more
/// than [`MAX_BLOCK_WORK`] is solved joint by joint after all. The islands left to solve
/// as blocks are listed in `scratch.runs`.
fn assign_blocks(list: &mut [JointConstraint], scratch: &mut Blocks, bodies: usize) {
    let parent = &mut scratch.parent;
    parent.clear();
    parent.extend(0..bodies as u32);
    for c in list.iter() {
        if c.a != 0 && c.b != 0 {
            let (ra, rb) = (find_root(parent, c.a), find_root(parent, c.b));
            // The smaller index as the root: the same islands whatever the joints' order.
            parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
    let counts = &mut scratch.row_count;
    counts.clear();
    counts.resize(bodies, 0);
    for c in list.iter_mut() {
        c.component = find_root(parent, if c.a != 0 { c.a } else { c.b });
        counts[c.component as usize] += block_row_count(&c.kind);
    }
    for c in list.iter_mut() {
        let rows = counts[c.component as usize];
        if rows == 0 || rows as usize > MAX_BLOCK_ROWS {
            c.component = NO_BLOCK;
        }
    }
    // The list comes in slot order (`joint` ascending): with the slot as the last key, an
    // unstable sort (which needs no buffer, unlike the stable one) keeps it within a run.
    list.sort_unstable_by_key(|c| (c.group, c.component, c.joint));
    // Each island's elimination order; an island whose elimination would cost too much is
    // solved joint by joint after all.
    scratch.plan.later.clear();
    scratch.runs.clear();
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
            } else {
                scratch.runs.push((group, start..end));
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
fn block_rows<B: JointBodies + ?Sized>(
    index: u32,
    c: &JointConstraint,
    bodies: &B,
    rows: &mut Vec<Row>,
) {
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
    /// The jointed islands solved as blocks, and their solves' buffers.
    pub blocks: Blocks,
    /// Pairs of jointed awake dynamic bodies (solver indices and masses), for the islands.
    pub pairs: Vec<(u32, u32, f32, f32)>,
    /// Indices of `constraints` with a locked body, in list order (what `begin_pass`
    /// walks).
    pub locked: Vec<u32>,
    /// Where each block of joint slots starts writing its constraints, the total last
    /// (`gather_joints`).
    pub gather_starts: Vec<u32>,
    /// Indices of `constraints` in the order the per-joint passes take them: group by
    /// group, each coloured group colour by colour, the others in the list's order.
    pub order: Vec<u32>,
    /// Runs of `order` (see [`JointRun`]); each group's are `group_runs[group]`.
    pub runs: Vec<JointRun>,
    pub group_runs: Vec<Range<usize>>,
    /// What the passes walk: `order` without the joints whose own solve does nothing in
    /// the biased and relax passes ([`JointConstraint::solves_in_passes`]; their warm
    /// start, which clears what their block carried, is their island's), in the same runs
    /// (empty ones left out).
    pub pass_order: Vec<u32>,
    pub pass_runs: Vec<JointRun>,
    pub pass_group_runs: Vec<Range<usize>>,
    /// The colouring's state and each joint's colour (by index in its group).
    pub graph: ConstraintGraph,
    pub colour: Vec<u8>,
    /// Per solver body, the bound of its mobility this step (`mobility.rs`); empty when no
    /// joint needs one.
    pub mobility_bounds: Vec<super::mobility::Bound>,
}

/// A run of [`JointScratch::order`]: `shared` when it is one colour (its joints move
/// disjoint bodies, `solver/graph_colour.rs`), which workers may split; else it is taken
/// in order by one thread.
#[derive(Clone, Debug)]
pub(crate) struct JointRun {
    pub range: Range<usize>,
    pub shared: bool,
}

impl JointScratch {
    /// Fills `order` and the runs for `groups` (joint list sorted by group): a group of at
    /// least [`MIN_JOINTS_TO_COLOUR`] joints is coloured greedily in list order over the
    /// bodies it can move (solver indices `first_dynamic..body_count`), the others keep
    /// the list's order as one run.
    fn colour(&mut self, groups: usize, first_dynamic: u32, body_count: usize) {
        let list = &self.constraints;
        self.order.clear();
        self.runs.clear();
        self.group_runs.clear();
        let mut start = 0;
        for g in 0..groups as u32 {
            let end = start + list[start..].iter().take_while(|c| c.group == g).count();
            let first_run = self.runs.len();
            let n = end - start;
            if n >= MIN_JOINTS_TO_COLOUR {
                let identity = &mut self.order;
                let base = identity.len();
                identity.extend(0..n as u32);
                let movable = |i: usize| {
                    let c = &list[start + i];
                    [c.a, c.b].map(|k| (k >= first_dynamic).then_some(k as usize))
                };
                self.graph
                    .colour(n, &identity[base..], body_count, movable, &mut self.colour);
                identity.truncate(base);
                // Counting sort by colour, in list order within a colour.
                let mut counts = [0usize; OVERFLOW + 2];
                for &colour in &self.colour[..n] {
                    counts[colour as usize + 1] += 1;
                }
                for k in 0..=OVERFLOW {
                    counts[k + 1] += counts[k];
                }
                for k in 0..=OVERFLOW {
                    if counts[k] < counts[k + 1] {
                        self.runs.push(JointRun {
                            range: base + counts[k]..base + counts[k + 1],
                            shared: k != OVERFLOW,
                        });
                    }
                }
                self.order.resize(base + n, 0);
                for (i, &colour) in self.colour[..n].iter().enumerate() {
                    let slot = &mut counts[colour as usize];
                    self.order[base + *slot] = (start + i) as u32;
                    *slot += 1;
                }
            } else if n > 0 {
                let base = self.order.len();
                self.order.extend(start as u32..end as u32);
                self.runs.push(JointRun {
                    range: base..base + n,
                    shared: false,
                });
            }
            self.group_runs.push(first_run..self.runs.len());
            start = end;
        }
        self.pass_order.clear();
        self.pass_runs.clear();
        self.pass_group_runs.clear();
        for runs in &self.group_runs {
            let first = self.pass_runs.len();
            for run in &self.runs[runs.clone()] {
                let from = self.pass_order.len();
                let order = &self.order[run.range.clone()];
                self.pass_order.extend(
                    order
                        .iter()
                        .filter(|&&k| list[k as usize].solves_in_passes()),
                );
                if self.pass_order.len() > from {
                    self.pass_runs.push(JointRun {
                        range: from..self.pass_order.len(),
                        shared: run.shared,
                    });
                }
            }
            self.pass_group_runs.push(first..self.pass_runs.len());
        }
    }
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
    /// bodies are indexed and grouped), in slot order.
    ///
    /// On every worker, in blocks of joint slots: each block first counts the joints it
    /// keeps, then (at the offset the counts before it add up to) writes their constraints,
    /// so each has the index one thread would give it.
    pub(crate) fn gather_joints(&mut self) {
        let mut list = std::mem::take(&mut self.scratch.joints.constraints);
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
        let (joints, bodies) = (&self.joints, &self.bodies);
        let warm_start = self.settings.enable_warm_starting;
        let index = |body: Option<&super::super::body::Body>| {
            body.map_or(0, |b| {
                if b.solver_index == super::super::body::NULL {
                    0
                } else {
                    b.solver_index
                }
            })
        };
        // The joint in slot k, its bodies, their solver indices and its group, when it has
        // an awake dynamic body.
        let kept = |k: usize| {
            let joint = joints.at(k as u32)?;
            let a = bodies.get(joint.def.body_a)?;
            let b = joint.def.body_b.and_then(|h| bodies.get(h));
            let (ia, ib) = (index(Some(a)), index(b));
            let dynamic = [ia, ib].into_iter().find(|&i| i >= first_dynamic);
            let group = dynamic.and_then(group_of)?;
            Some((joint, a, b, ia, ib, group))
        };
        let prepare = |k: usize| {
            let (joint, a, b, ia, ib, group) = kept(k)?;
            let frame = |body: Option<&super::super::body::Body>, local: Vec3| match body {
                Some(b) => (b.center, b.rotation, b.rotation * (local - b.local_center)),
                None => (Vec3::ZERO, Quat::IDENTITY, local),
            };
            let (center_a, rotation_a, arm_a) = frame(Some(a), joint.def.local_anchor_a);
            let (center_b, rotation_b, arm_b) = frame(b, joint.def.local_anchor_b);
            Some(JointConstraint {
                joint: k as u32,
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
                impulse: if warm_start {
                    joint.impulse
                } else {
                    Vec3::ZERO
                },
                state: if warm_start {
                    joint.state
                } else {
                    JointState::new(&joint.def.kind)
                },
            })
        };
        let slots = joints.capacity();
        let starts = &mut self.scratch.joints.gather_starts;
        let total = block_offsets(slots, JOINT_GATHER_BLOCK, starts, &|k| kept(k).is_some());
        // Every element is written below; the first kept joint stands in until then.
        list.clear();
        if total > 0 {
            if let Some(first) = (0..slots).find_map(prepare) {
                list.resize(total, first);
            }
        }
        let (out, starts) = (Shared::new(&mut list), &*starts);
        for_each_block(starts.len() - 1, 1, &|range: Range<usize>| {
            for block in range {
                let mut at = starts[block] as usize;
                let end = ((block + 1) * JOINT_GATHER_BLOCK).min(slots);
                for k in block * JOINT_GATHER_BLOCK..end {
                    if let Some(c) = prepare(k) {
                        // SAFETY: `at` is this block's own (the counts above).
                        unsafe { *out.at_mut(at) = c };
                        at += 1;
                    }
                }
            }
        });
        let body_count = self.scratch.solver.bodies.len();
        assign_blocks(&mut list, &mut self.scratch.joints.blocks, body_count);
        // One set of solve buffers per worker that may solve an island (kept: they grow
        // only when the worker count does).
        let workers = crate::physics::threads::split_workers().max(1);
        let solves = &mut self.scratch.joints.blocks.solves;
        if solves.len() < workers {
            solves.resize_with(workers, BlockScratch::default);
        }
        let joints = &mut self.scratch.joints;
        joints.locked.clear();
        joints
            .locked
            .extend((0..list.len() as u32).filter(|&k| list[k as usize].locked));
        joints.constraints = list;
        joints.colour(self.scratch.islands.groups.len(), first_dynamic, body_count);
    }

    /// Stores the joints' impulses for the next step and removes those that broke (their
    /// force, the last sub-step's impulse over the sub-step, passed `break_force`).
    ///
    /// The impulses and forces on every worker, in blocks of the list (each constraint is
    /// one joint's); then, only when one broke, the broken joints are removed in list order
    /// on this thread.
    pub(crate) fn store_joint_impulses(&mut self, dt: f32) {
        self.broken_joints.clear();
        let list = std::mem::take(&mut self.scratch.joints.constraints);
        let breaks = |joint: &super::Joint| joint.def.break_force.is_some_and(|f| joint.force > f);
        let any_broke = AtomicBool::new(false);
        {
            let joints = self.joints.shared();
            let groups = &self.scratch.islands.groups;
            for_each_block(list.len(), JOINT_GATHER_BLOCK, &|range: Range<usize>| {
                for c in &list[range] {
                    // SAFETY: each constraint is its own joint's, and each block has its
                    // own constraints.
                    let Some(joint) = (unsafe { joints.at_mut(c.joint) }) else {
                        continue;
                    };
                    joint.impulse = c.impulse;
                    joint.state = c.state;
                    let substeps = groups[c.group as usize].substeps as f32;
                    joint.force = c.impulse.length() * substeps / dt;
                    if breaks(joint) {
                        any_broke.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
        if any_broke.into_inner() {
            for c in &list {
                let Some(handle) = self.joints.handle_at(c.joint) else {
                    continue;
                };
                let Some(joint) = self.joints.get(handle).filter(|joint| breaks(joint)) else {
                    continue;
                };
                let def = joint.def;
                // The joint just read: it is there to remove.
                let _ = self.remove_joint(handle);
                self.broken_joints.push(def);
            }
        }
        self.scratch.joints.constraints = list;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::joint::Motor;

    /// A ball joint between solver bodies `a` and `b` of `group`.
    fn ball(a: u32, b: u32, group: u32) -> JointConstraint {
        let kind = JointKind::Spherical { cone: None };
        JointConstraint {
            joint: 0,
            a,
            b,
            group,
            arm_a: Vec3::ZERO,
            arm_b: Vec3::ZERO,
            center_a: Vec3::ZERO,
            center_b: Vec3::ZERO,
            rotation_a: Quat::IDENTITY,
            rotation_b: Quat::IDENTITY,
            inv_mass_a: Vec3::ONE,
            inv_mass_b: Vec3::ONE,
            locked: false,
            component: NO_BLOCK,
            kind,
            impulse: Vec3::ZERO,
            state: JointState::new(&kind),
        }
    }

    /// Group 0: a small chain (kept in list order, one run); group 1: a grid of 30 × 30
    /// bodies joined to their right and lower neighbours plus a joint from every body of
    /// the first row to the world (0) and to the kinematic body 1 (coloured). Every joint is
    /// in exactly one run of its group; a shared run never has two joints moving one body,
    /// and keeps the list's order; the kinematic and static bodies never count as shared.
    #[test]
    fn joint_runs_cover_each_group_and_share_no_moving_body() {
        let first_dynamic = 2;
        let mut list: Vec<JointConstraint> = (0..5).map(|i| ball(2 + i, 3 + i, 0)).collect();
        const N: u32 = 30;
        let body = |i: u32, k: u32| 10 + i * N + k;
        for i in 0..N {
            for k in 0..N {
                if i + 1 < N {
                    list.push(ball(body(i, k), body(i + 1, k), 1));
                }
                if k + 1 < N {
                    list.push(ball(body(i, k), body(i, k + 1), 1));
                }
            }
            list.push(ball(body(0, i), 0, 1));
            list.push(ball(1, body(0, i), 1));
        }
        let body_count = body(N - 1, N - 1) as usize + 1;
        let mut scratch = JointScratch {
            constraints: list.clone(),
            ..JointScratch::default()
        };
        scratch.colour(2, first_dynamic, body_count);
        let runs = |g: usize| &scratch.runs[scratch.group_runs[g].clone()];
        // Group 0: below MIN_JOINTS_TO_COLOUR, the list's order in one run on the lead.
        const { assert!(5 < MIN_JOINTS_TO_COLOUR) };
        assert_eq!(runs(0).len(), 1);
        assert!(!runs(0)[0].shared);
        assert_eq!(&scratch.order[runs(0)[0].range.clone()], &[0, 1, 2, 3, 4]);
        // Group 1: coloured.
        assert!(
            list.len() - 5 >= MIN_JOINTS_TO_COLOUR,
            "group 1 is coloured"
        );
        let mut seen = vec![0; list.len()];
        for run in runs(1) {
            let joints = &scratch.order[run.range.clone()];
            assert!(run.shared, "a grid of degree 4 fits in the colours");
            assert!(
                joints.windows(2).all(|w| w[0] < w[1]),
                "list order in a run"
            );
            let mut moved = vec![false; body_count];
            for &j in joints {
                seen[j as usize] += 1;
                let c = &list[j as usize];
                assert_eq!(c.group, 1);
                for index in [c.a, c.b].into_iter().filter(|&i| i >= first_dynamic) {
                    assert!(!moved[index as usize], "body {index} twice in a run");
                    moved[index as usize] = true;
                }
            }
        }
        assert!(runs(1).len() > 1, "several colours");
        assert!(seen[5..].iter().all(|&n| n == 1), "every joint once");
    }

    /// The passes' runs are the colouring's without the joints whose own solve does nothing
    /// in the biased and relax passes: in an island's block, a ball joint, a weld, a rod
    /// and a hinge without a motor; out of one (sequential), or a rope, a spring or a
    /// motor, every joint stays. Each run keeps its joints' order and its sharing; an
    /// emptied run is left out.
    #[test]
    fn pass_runs_leave_out_the_joints_their_block_solves() {
        let in_block = |mut c: JointConstraint, kind: JointKind| {
            c.component = 7;
            c.kind = kind;
            c.state = JointState::new(&kind);
            c
        };
        let hinge = |motor: Option<Motor>| JointKind::Revolute {
            axis_a: Vec3::X,
            axis_b: Vec3::X,
            reference_a: Vec3::Y,
            reference_b: Vec3::Y,
            limits: None,
            motor,
        };
        let motor = Motor {
            speed: 1.0,
            max_torque: 2.0,
        };
        let list = vec![
            in_block(ball(2, 3, 0), JointKind::Spherical { cone: None }),
            ball(3, 4, 0),
            in_block(ball(4, 5, 0), JointKind::Distance { min: 1.0, max: 1.0 }),
            in_block(ball(5, 6, 0), JointKind::Distance { min: 0.0, max: 1.0 }),
            in_block(ball(6, 7, 0), hinge(None)),
            in_block(ball(7, 8, 0), hinge(Some(motor))),
            in_block(ball(8, 9, 1), JointKind::Spherical { cone: None }),
        ];
        let mut scratch = JointScratch {
            constraints: list,
            ..JointScratch::default()
        };
        scratch.colour(2, 2, 10);
        let pass = |g: usize| -> Vec<u32> {
            scratch.pass_runs[scratch.pass_group_runs[g].clone()]
                .iter()
                .flat_map(|run| scratch.pass_order[run.range.clone()].iter().copied())
                .collect()
        };
        assert_eq!(pass(0), [1, 3, 5]);
        assert!(
            scratch.pass_group_runs[1].is_empty(),
            "group 1's only joint is in a block"
        );
        // The colouring's order keeps every joint (the team's choice counts them all).
        assert_eq!(scratch.order, [0, 1, 2, 3, 4, 5, 6]);
    }
}
