//! Phases 3 and 4 of a step: gather the awake bodies and the touching contacts into the
//! solver's arrays, run the sub-stepped solver island group by island group, store the
//! impulses back, and write the bodies back.
//!
//! Solver body array layout: index 0 is the static stand-in (never written), then every
//! awake kinematic body, then the awake dynamic bodies group by group. A group is the set of
//! islands that need the same sub-step count (see `substeps_for_mass_ratio`); nearly always
//! there is one. Constraints are sorted the same way, so each group solves two contiguous
//! ranges.
//!
//! **Anchored lever arms.** A contact point keeps the arms (from each body's centre of mass
//! to where its impulses act, in world axes) it was first solved with, as long as the
//! narrow phase still finds the point within reach of them on both bodies: within
//! [`ANCHOR_REACH_FRACTION`] (a quarter) of the smaller shape's feature size. The reason
//! is in the solver notes (re-deriving arms every step makes tall soft stacks buckle); a
//! rolling ball keeps touching where its arm points, so its arm stays valid, while a box
//! tipping over or sliding off an edge drifts out of reach within a step or two and gets
//! fresh arms.

use std::ops::Range;

use crate::physics::broad_phase::ProxyMove;
use crate::physics::constants::*;
use crate::physics::island::find_root;
use crate::physics::profile::PhaseTimer;
use crate::physics::solver::crew::Shared;
use crate::physics::solver::{
    self, substeps_for_mass_ratio, Softness, SolverBody, SolverForces, StepContext,
};
use crate::physics::world::{Integrator, World};

mod bodies;
mod constraints;

pub(crate) use constraints::{ConstraintScratch, GATHER_BLOCK};

/// One group of islands solved with its own sub-step count.
#[derive(Clone, Debug)]
pub(crate) struct SolveGroup {
    pub substeps: u32,
    /// Its dynamic bodies in the solver body array.
    pub bodies: Range<usize>,
    /// Its colours' constraint ranges, as a range of `ConstraintScratch::colour_ranges`; the
    /// overflow set, when there is one, comes last.
    pub colours: Range<usize>,
    /// True when the last of its colours is the overflow set.
    pub overflow: bool,
    /// Its constraints packed four per lane group, in `ConstraintScratch::lanes`.
    pub lanes: Range<usize>,
    /// Its colours' lane groups (ranges of its own lanes), as a range of
    /// `ConstraintScratch::lane_colours`.
    pub lane_colours: Range<usize>,
}

/// The solver bodies of a step: index 0 the static stand-in, then the awake kinematic
/// bodies, then the awake dynamic ones group by group.
#[derive(Default)]
pub(crate) struct SolverScratch {
    pub bodies: Vec<SolverBody>,
    /// Forces and damping of each solver body (read by velocity integration only).
    pub forces: Vec<SolverForces>,
    /// Body slot of each solver body (index 0, the static stand-in, maps to NULL).
    pub to_body: Vec<u32>,
    /// Per solver body: one of its colliders outgrew its proxy's fat box this step
    /// (`World::finalize_bodies`).
    pub moved: Vec<bool>,
    /// The proxy moves of those bodies' colliders, in solver order (`finalize_bodies`
    /// hands them to the broad phase together).
    pub proxy_moves: Vec<ProxyMove>,
    /// Per block of body slots: its counts, then its first indices (`gather_solver_bodies`).
    pub index_counts: Vec<bodies::BlockCounts>,
    /// The provisional solver-to-body table, in slot order (work space of `plan_groups`,
    /// which re-indexes the dynamic bodies group by group).
    pub provisional_to_body: Vec<u32>,
    /// Solver bodies whose velocity stopped being finite this step (to be frozen).
    pub faulted: Vec<bool>,
    /// Awake kinematic bodies (solver indices 1 ..= this).
    pub kinematic_count: usize,
    /// Buffers for re-indexing bodies by group (`order` is also the colouring's counting
    /// sort).
    pub order: Vec<u32>,
    pub remap: Vec<u32>,
}

impl World {
    /// Phase 3: gathers awake bodies and touching contacts, runs the sub-stepped solver per
    /// group, stores impulses back into the contacts.
    pub(crate) fn solve(&mut self, dt: f32) {
        let mut timer = PhaseTimer::start();
        self.gather_solver_bodies();
        self.bound_jointed_mobility();
        let contexts = &mut self.scratch.islands.contexts;
        contexts.clear();
        for g in 0..self.scratch.islands.groups.len() {
            let ctx = self.step_context(dt, self.scratch.islands.groups[g].substeps);
            self.scratch.islands.contexts.push(ctx);
        }
        self.gather_constraints();
        self.gather_joints();
        if self.scratch.constraints.any_impact {
            solver::propagate_impacts(
                &self.scratch.constraints.list,
                &mut self.scratch.solver.bodies,
                dt,
                self.settings.restitution_threshold,
            );
        }
        self.profile.solver_ms += timer.lap();
        for g in 0..self.scratch.islands.groups.len() {
            self.solve_group(g, &mut timer);
        }
        self.store_impulses();
        self.store_joint_impulses(dt);
        self.profile.solver_ms += timer.lap();
    }

    /// The step context of a group with `substeps` sub-steps. Contacts are stiffened in
    /// proportion to the extra sub-steps, so a group solved finer is also stiffer, which is
    /// what a mass ratio needs. Both stiffnesses are capped at a quarter of the sub-step rate
    /// (hω ≤ π/2): static contacts at twice the frequency uncapped (hω ≈ 2 at 40 Hz) made a
    /// light cube under a heavy one creep sideways 3 cm in 10 s.
    fn step_context(&self, dt: f32, substeps: u32) -> StepContext {
        let s = &self.settings;
        let base = s.substeps.max(1);
        let h = dt / substeps as f32;
        let cap = 0.25 / h;
        let hertz = (s.contact_hertz * substeps as f32 / base as f32).min(cap);
        StepContext {
            h,
            inv_h: 1.0 / h,
            contact_softness: Softness::new(hertz, s.contact_damping_ratio, h),
            static_softness: Softness::new((2.0 * hertz).min(cap), s.contact_damping_ratio, h),
            max_push_velocity: s.max_push_velocity,
            restitution_threshold: s.restitution_threshold,
            max_angular_speed: MAX_ROTATION_PER_SUBSTEP / h,
        }
    }

    /// Runs the sub-steps of group `g`, then its restitution pass: on every worker at once
    /// when the step has several and the group enough lane groups or joints to share
    /// ([`solver::Crew`]), else on this thread. Both run the same stages in the same order
    /// and give the same bits.
    fn solve_group(&mut self, g: usize, timer: &mut PhaseTimer) {
        let group = self.scratch.islands.groups[g].clone();
        let ctx = self.scratch.islands.contexts[g];
        let kinematic = 1..1 + self.scratch.solver.kinematic_count;
        let Self {
            scratch,
            profile,
            settings,
            ..
        } = self;
        let [biased, relax] = &mut scratch.constraints.lane_factors;
        // The group's islands solved as blocks (the list is by group).
        let runs = &scratch.joints.blocks.runs;
        let islands =
            runs.partition_point(|r| r.0 < g as u32)..runs.partition_point(|r| r.0 <= g as u32);
        let block_islands = &runs[islands];
        let data = solver::GroupData {
            bodies: Shared::new(&mut scratch.solver.bodies),
            forces: &scratch.solver.forces,
            faulted: Shared::new(&mut scratch.solver.faulted),
            joint_runs: &scratch.joints.runs[scratch.joints.group_runs[g].clone()],
            pass_joint_order: &scratch.joints.pass_order,
            pass_joint_runs: &scratch.joints.pass_runs[scratch.joints.pass_group_runs[g].clone()],
            locked_joints: &scratch.joints.locked,
            joints: Shared::new(&mut scratch.joints.constraints),
            block_islands,
            block_plan: &scratch.joints.blocks.plan,
            block_solves: Shared::new(&mut scratch.joints.blocks.solves),
            shared_blocks: solver::shares_blocks(block_islands),
            lanes: Shared::new(&mut scratch.constraints.lanes[group.lanes.clone()]),
            cold: Shared::new(&mut scratch.constraints.cold_lanes[group.lanes.clone()]),
            factors: [
                Shared::new(&mut biased[group.lanes.clone()]),
                Shared::new(&mut relax[group.lanes.clone()]),
            ],
            colours: &scratch.constraints.lane_colours[group.lane_colours.clone()],
            overflow: group.overflow,
            kinematic,
            own: group.bodies.clone(),
            substeps: group.substeps,
            group: g as u32,
            ctx,
            velocity_iterations: settings.velocity_iterations.max(1),
            relax_iterations: settings.relax_iterations,
            verlet: settings.integrator == Integrator::Verlet,
        };
        profile.solver_ms += timer.lap();
        let times = solver::run_group(&data);
        timer.lap();
        profile.integration_ms += times.integration_ms;
        profile.solver_ms += times.solver_ms;
    }

    /// Sorts the islands into sub-step groups and, when there is more than one group,
    /// re-indexes the dynamic bodies so each group is contiguous.
    fn plan_groups(&mut self, count: usize) {
        let base = self.settings.substeps.max(1);
        let first = 1 + self.scratch.solver.kinematic_count;
        let scratch = &mut self.scratch;
        scratch.islands.body_substeps.clear();
        scratch.islands.body_substeps.resize(count, base);
        let mut finer = false;
        for i in first..count {
            let root = find_root(&mut scratch.islands.parent, i as u32) as usize;
            let n = substeps_for_mass_ratio(base, scratch.islands.ratio[root]);
            scratch.islands.body_substeps[i] = n;
            finer |= n != base;
        }
        scratch.islands.groups.clear();
        if !finer {
            scratch.islands.groups.push(SolveGroup {
                substeps: base,
                bodies: first..count,
                colours: 0..0,
                overflow: false,
                lanes: 0..0,
                lane_colours: 0..0,
            });
            return;
        }
        // New order: by sub-step count, then by the provisional index (deterministic).
        let order = &mut scratch.solver.order;
        order.clear();
        order.extend(first as u32..count as u32);
        order.sort_unstable_by_key(|&i| (scratch.islands.body_substeps[i as usize], i));
        // remap[old] = new
        let remap = &mut scratch.solver.remap;
        remap.clear();
        remap.resize(count, 0);
        for (k, &old) in order.iter().enumerate() {
            remap[old as usize] = (first + k) as u32;
        }
        for (_, body) in self.bodies.iter_mut() {
            if body.solver_index as usize >= first {
                body.solver_index = remap[body.solver_index as usize];
            }
        }
        // The solver-to-body table follows: new index first + k holds old index order[k].
        let provisional = &mut scratch.solver.provisional_to_body;
        provisional.clear();
        provisional.extend_from_slice(&scratch.solver.to_body);
        for (k, &old) in order.iter().enumerate() {
            scratch.solver.to_body[first + k] = provisional[old as usize];
        }
        let mut start = first;
        while start < count {
            let n = scratch.islands.body_substeps[order[start - first] as usize];
            let mut end = start;
            while end < count && scratch.islands.body_substeps[order[end - first] as usize] == n {
                end += 1;
            }
            scratch.islands.groups.push(SolveGroup {
                substeps: n,
                bodies: start..end,
                colours: 0..0,
                overflow: false,
                lanes: 0..0,
                lane_colours: 0..0,
            });
            start = end;
        }
        // Islands and sub-step counts follow the new indices.
        let kinematic = scratch.solver.kinematic_count;
        self.build_islands(count);
        let scratch = &mut self.scratch;
        for group in &scratch.islands.groups {
            for i in group.bodies.clone() {
                scratch.islands.body_substeps[i] = group.substeps;
            }
        }
        debug_assert_eq!(kinematic, scratch.solver.kinematic_count);
    }
}

#[cfg(test)]
mod tests;
