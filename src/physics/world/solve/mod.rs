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
use std::sync::atomic::{AtomicBool, Ordering};

use crate::physics::body::{Body, BodyType, NULL};
use crate::physics::broad_phase::{fatten_aabb, needs_reinsert};
use crate::physics::constants::*;
use crate::physics::contact::prefetch_ahead;
use crate::physics::island::{find_root, flatten_roots, sleep_timer};
use crate::physics::math::{Isometry, Quat, Vec3};
use crate::physics::prefetch::prefetch_ptr;
use crate::physics::profile::PhaseTimer;
use crate::physics::solver::crew::{block_offsets, for_each_block, Shared};
use crate::physics::solver::{
    self, prepare_colours, substeps_for_mass_ratio, ColdLanes, ConstraintGraph, ConstraintInput,
    ConstraintLanes, ConstraintShared, PassFactors, PointInput, Softness, SolverBody, SolverForces,
    StepContext, COLOURS, OVERFLOW,
};
use crate::physics::world::{Integrator, World};

/// Lane groups per block when the impulses are stored on several workers (about 0.1 µs
/// each, so a block is some microseconds).
const STORE_BLOCK: usize = 64;

/// Solver bodies per block when they are filled on several workers.
const FILL_BLOCK: usize = 256;

/// Touching contacts per block when the constraints are gathered on several workers
/// (about 0.1 µs each).
pub(crate) const GATHER_BLOCK: usize = 128;

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

/// The touching contacts as the solver takes them: gathered, coloured, packed into lanes.
#[derive(Default)]
pub(crate) struct ConstraintScratch {
    /// One per touching contact of awake bodies.
    pub list: Vec<ConstraintInput>,
    /// Where each block of the touching list starts writing (the constraints' gather, the
    /// islands' pairs), and the total last.
    pub gather_starts: Vec<u32>,
    /// Sub-step group of each constraint (parallel to `list`).
    pub group: Vec<u32>,
    /// Colour of each constraint (see `solver::ConstraintGraph`).
    pub colour: Vec<u8>,
    pub graph: ConstraintGraph,
    /// Each constraint's height along −gravity (see `height_key`) in the high 32 bits, its
    /// index in the low ones: sorted, the colouring's order.
    pub height: Vec<u64>,
    /// The radix sort's second buffer for `height` (see `sort_by_height`).
    pub height_spare: Vec<u64>,
    /// The island of each constraint: the root of its dynamic body's (parallel to `list`).
    pub island: Vec<u32>,
    /// The solver bodies each constraint moves (finite mass), [`NOT_MOVED`] for a side it
    /// does not (parallel to `list`): what the colouring reads, eight bytes a constraint
    /// instead of a constraint's and two bodies' cache lines.
    pub movable: Vec<[u32; 2]>,
    /// Some constraint has a single point and restitution: only then can
    /// `solver::propagate_impacts` find an impact (kept by the gather, so a step without
    /// one never walks the constraints for it).
    pub any_impact: bool,
    /// The colouring's order grouped by island (see `colour_constraints`), the counting
    /// sort's working space (one entry per root, one more), and each island's range of
    /// `by_island`.
    pub by_island: Vec<u32>,
    pub island_starts: Vec<u32>,
    pub island_ranges: Vec<Range<usize>>,
    /// Constraint indices: the colouring's order, then colour by colour (see
    /// `colour_ranges`).
    pub order: Vec<u32>,
    /// Ranges of `order` holding each colour of every group (see `SolveGroup::colours`).
    pub colour_ranges: Vec<Range<usize>>,
    /// The constraints four per lane group, colour by colour (see `solver::ConstraintLanes`).
    pub lanes: Vec<ConstraintLanes>,
    /// What the passes rarely touch of each lane group, index for index with `lanes`.
    pub cold_lanes: Vec<ColdLanes>,
    /// The biased and the relax pass's factorisations of each lane group, index for index
    /// with `lanes` (see `solver::PassFactors`).
    pub lane_factors: [Vec<PassFactors>; 2],
    /// Each colour's lane groups (see `SolveGroup::lane_colours`).
    pub lane_colours: Vec<Range<usize>>,
}

impl crate::physics::world::StepScratch {
    /// Colours the constraints (see `graph_colour.rs`), lowest first, records each group's
    /// colours as ranges of `constraint_order`, and prepares them four per lane group.
    ///
    /// The greedy colouring takes the constraints from the lowest up (along gravity), so a
    /// body's supporting contacts tend to take lower colours, and are solved earlier in each
    /// pass, than the contacts of what it carries. That is the order a sequential solver
    /// wants for stacks: colouring in creation order instead doubled how far the top of a
    /// base-40 wall pyramid moved in 10 s (0.05 m to 0.09 m).
    fn colour_constraints(&mut self) {
        let body_count = self.solver.bodies.len();
        // By height, then by index (see `height_key`).
        sort_by_height(
            &mut self.constraints.height,
            &mut self.constraints.height_spare,
        );
        let c = &mut self.constraints;
        c.order.clear();
        c.order.extend(c.height.iter().map(|&key| key as u32));
        let count = c.list.len();
        let moved = c.movable.as_slice();
        let movable = |i: usize| moved[i].map(|b| (b != NOT_MOVED).then_some(b as usize));
        if self.islands.count >= 2
            && count >= MIN_CONSTRAINTS_TO_SHARE_COLOURING
            && crate::physics::threads::split_workers() > 1
        {
            // Island by island on every worker: the same colours (`graph_colour.rs`).
            group_by_island(
                &c.order,
                &c.island,
                body_count,
                (&mut c.by_island, &mut c.island_starts, &mut c.island_ranges),
            );
            c.graph.colour_islands(
                count,
                &c.by_island,
                &c.island_ranges,
                body_count,
                movable,
                &mut c.colour,
            );
        } else {
            c.graph
                .colour(count, &c.order, body_count, movable, &mut c.colour);
        }
        let order = &mut self.constraints.order;
        // Counting sort by key = group × (colours + overflow) + colour, in constraint order.
        const SETS: usize = COLOURS + 1;
        let keys = self.islands.groups.len() * SETS;
        let key = |group: u32, colour: u8| group as usize * SETS + colour as usize;
        let starts = &mut self.solver.order;
        starts.clear();
        starts.resize(keys + 1, 0);
        for (&g, &c) in self.constraints.group.iter().zip(&self.constraints.colour) {
            starts[key(g, c) + 1] += 1;
        }
        for k in 0..keys {
            starts[k + 1] += starts[k];
        }
        self.constraints.colour_ranges.clear();
        for (g, group) in self.islands.groups.iter_mut().enumerate() {
            let first = self.constraints.colour_ranges.len();
            for k in g * SETS..(g + 1) * SETS {
                let range = starts[k] as usize..starts[k + 1] as usize;
                if !range.is_empty() {
                    self.constraints.colour_ranges.push(range);
                }
            }
            group.colours = first..self.constraints.colour_ranges.len();
            let overflow = key(g as u32, OVERFLOW as u8);
            group.overflow = starts[overflow] < starts[overflow + 1];
        }
        for (i, (&g, &colour)) in self
            .constraints
            .group
            .iter()
            .zip(&self.constraints.colour)
            .enumerate()
        {
            let slot = &mut starts[key(g, colour)];
            order[*slot as usize] = i as u32;
            *slot += 1;
        }
        // The lane arrays keep their length from step to step (each lane group is reset
        // where it is prepared), and are cut to what this step used after.
        self.constraints.lane_colours.clear();
        let mut used = 0;
        for group in &mut self.islands.groups {
            let first_colour = self.constraints.lane_colours.len();
            let count = prepare_colours(
                &self.constraints.list,
                &self.solver.bodies,
                order,
                &self.constraints.colour_ranges[group.colours.clone()],
                group.overflow,
                (
                    &mut self.constraints.lanes,
                    &mut self.constraints.cold_lanes,
                    &mut self.constraints.lane_factors,
                    used,
                ),
                &mut self.constraints.lane_colours,
            );
            group.lanes = used..used + count;
            group.lane_colours = first_colour..self.constraints.lane_colours.len();
            used += count;
        }
        self.constraints.lanes.truncate(used);
        self.constraints.cold_lanes.truncate(used);
        self.constraints
            .lane_factors
            .iter_mut()
            .for_each(|f| f.truncate(used));
    }
}

/// Marks a side of a constraint that moves no body ([`ConstraintScratch::movable`]).
pub(crate) const NOT_MOVED: u32 = u32::MAX;

/// Fewest constraints whose colouring is shared island by island: below this the grouping
/// and the team's wake-up cost more than the colouring (about 25 ns a constraint here).
const MIN_CONSTRAINTS_TO_SHARE_COLOURING: usize = 2048;

/// Groups `order` by island (`island[i]`: the root of constraint i's island, below
/// `body_count`) into `by_island`, keeping each island's constraints in the order they have
/// in `order` (a counting sort, islands by root), and writes each island's range of it.
fn group_by_island(
    order: &[u32],
    island: &[u32],
    body_count: usize,
    (by_island, starts, ranges): (&mut Vec<u32>, &mut Vec<u32>, &mut Vec<Range<usize>>),
) {
    starts.clear();
    starts.resize(body_count + 1, 0);
    for &root in island {
        starts[root as usize + 1] += 1;
    }
    ranges.clear();
    for root in 0..body_count {
        let (start, size) = (starts[root], starts[root + 1]);
        if size > 0 {
            ranges.push(start as usize..(start + size) as usize);
        }
        starts[root + 1] = start + size;
    }
    by_island.clear();
    by_island.resize(order.len(), 0);
    for &i in order {
        let slot = &mut starts[island[i as usize] as usize];
        by_island[*slot as usize] = i;
        *slot += 1;
    }
}

/// Sorts `keys` whose low 32 bits increase along the slice (each constraint's index, in
/// index order) into ascending order, the order `sort_unstable` gives: a stable radix sort
/// on the high 32 bits (the height key), eight bits a pass, least significant first, so
/// keys of equal height keep their index order. A pass whose digit is the same in every key
/// is skipped (heights in a few metres share their top bits). O(n) instead of the
/// comparison sort's O(n log n): the colouring's order is taken on one thread every step.
/// `spare` is the second buffer, kept between steps.
fn sort_by_height(keys: &mut Vec<u64>, spare: &mut Vec<u64>) {
    const DIGITS: usize = 4;
    const BUCKETS: usize = 256;
    let n = keys.len();
    // Counts of every digit's values, all four in one read of the keys.
    let mut counts = [[0u32; BUCKETS]; DIGITS];
    for &key in keys.iter() {
        for (d, count) in counts.iter_mut().enumerate() {
            count[(key >> (32 + 8 * d)) as usize & (BUCKETS - 1)] += 1;
        }
    }
    spare.clear();
    spare.resize(n, 0);
    for (d, count) in counts.iter().enumerate() {
        if count.iter().any(|&c| c as usize == n) {
            continue;
        }
        let mut next = [0u32; BUCKETS];
        let mut start = 0;
        for (slot, &c) in next.iter_mut().zip(count) {
            *slot = start;
            start += c;
        }
        for &key in keys.iter() {
            let slot = &mut next[(key >> (32 + 8 * d)) as usize & (BUCKETS - 1)];
            spare[*slot as usize] = key;
            *slot += 1;
        }
        std::mem::swap(keys, spare);
    }
}

/// The bits of `height` as an unsigned integer in the order of `f32::total_cmp`: a sign
/// bit set flips every bit, a clear one is set, so negative heights come first, most
/// negative first.
fn height_key(height: f32) -> u64 {
    let bits = height.to_bits();
    let key = if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    };
    key as u64
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
            joint_order: &scratch.joints.order,
            joint_runs: &scratch.joints.runs[scratch.joints.group_runs[g].clone()],
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

    /// Fills the solver body array (layout in the module notes), builds the islands of the
    /// awake dynamic bodies and splits them into sub-step groups.
    fn gather_solver_bodies(&mut self) {
        // 1. Provisional indices: kinematic bodies first, then dynamic ones in slot order.
        //    A body whose inputs are not finite (forces summed past f32's range) is frozen
        //    first, before it can touch anything.
        let mut kinematic = 0u32;
        let mut dynamic = 0u32;
        let gravity = self.settings.gravity;
        for (handle, body) in self.bodies.iter_mut() {
            if !body.frozen
                && body.awake
                && body.body_type == BodyType::Dynamic
                && !inputs_finite(body, gravity)
            {
                freeze(body);
                self.frozen_events.push(handle);
            }
            if body.awake && body.body_type == BodyType::Kinematic {
                kinematic += 1;
            } else if body.awake && body.body_type == BodyType::Dynamic && !body.frozen {
                dynamic += 1;
            }
        }
        let count = 1 + kinematic + dynamic;
        let (mut next_kinematic, mut next_dynamic) = (1u32, 1 + kinematic);
        let to_body = &mut self.scratch.solver.to_body;
        let ccd = &mut self.scratch.ccd.bodies;
        ccd.clear();
        to_body.clear();
        to_body.resize(count as usize, NULL);
        for (handle, body) in self.bodies.iter_mut() {
            body.solver_index = match body.body_type {
                BodyType::Kinematic if body.awake => {
                    next_kinematic += 1;
                    next_kinematic - 1
                }
                BodyType::Dynamic if body.awake && !body.frozen => {
                    next_dynamic += 1;
                    next_dynamic - 1
                }
                _ => 0,
            };
            if body.solver_index != 0 {
                to_body[body.solver_index as usize] = handle.index();
                // The bodies swept for tunnelling, from where the step starts.
                if body.ccd && body.body_type == BodyType::Dynamic {
                    ccd.push((handle.index(), body.center, body.rotation));
                }
            }
        }
        self.scratch.solver.kinematic_count = kinematic as usize;

        // 2. Islands and the largest mass ratio across each island's contacts and joints.
        self.build_islands(count as usize);

        // 3. Sub-step groups; dynamic bodies re-indexed group by group when there are several.
        self.plan_groups(count as usize);

        // 4. Each body's island root at hand, without the union–find's walks (the
        //    constraints' gather records their islands for the colouring).
        let first = 1 + kinematic as usize;
        self.scratch.islands.count = flatten_roots(&mut self.scratch.islands.parent, first);

        // 5. The arrays themselves, in solver index order.
        self.fill_solver_arrays(count as usize);
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

    /// Copies every awake non-static body into the solver arrays at its solver index.
    fn fill_solver_arrays(&mut self, count: usize) {
        let gravity = self.settings.gravity;
        let planar = self.settings.planar;
        let scratch = &mut self.scratch;
        scratch.solver.bodies.clear();
        scratch.solver.bodies.resize(count, SolverBody::STATIC);
        scratch.solver.forces.clear();
        scratch.solver.forces.resize(count, SolverForces::NONE);
        scratch.solver.faulted.clear();
        scratch.solver.faulted.resize(count, false);
        // Each solver body from its body, in blocks on every worker: the blocks take
        // disjoint solver indices, so disjoint bodies.
        let shared_bodies = self.bodies.shared();
        let to_body = &scratch.solver.to_body;
        let solver_bodies = Shared::new(&mut scratch.solver.bodies);
        let solver_forces = Shared::new(&mut scratch.solver.forces);
        for_each_block(count, FILL_BLOCK, &|range: Range<usize>| {
            for index in range.filter(|&i| i > 0) {
                // SAFETY: solver index `index` names one body, and this block alone has it.
                let Some(body) = (unsafe { shared_bodies.at_mut(to_body[index]) }) else {
                    continue;
                };
                let locks = if body.is_dynamic() && planar {
                    body.locked.union(crate::physics::body::Locks::PLANAR)
                } else if body.is_dynamic() {
                    body.locked
                } else {
                    crate::physics::body::Locks::NONE
                };
                let (linear_free, angular_free) = (locks.linear_free(), locks.angular_free());
                let mut inv_inertia = body.world_inv_inertia();
                if !locks.is_none() {
                    // No turning about a locked axis, however the contacts push.
                    inv_inertia = locks.inv_inertia(body.world_inertia(), inv_inertia);
                    body.linear_velocity *= linear_free;
                    body.angular_velocity *= angular_free;
                }
                // Kinematic velocities are capped like dynamic ones so absurd input cannot
                // overflow positions.
                let max_speed = crate::physics::body::max_linear_speed(body.ccd);
                body.linear_velocity = solver::clamp_length(body.linear_velocity, max_speed);
                // SAFETY: as above, index `index` is this block's.
                let (solver_body, forces) =
                    unsafe { (solver_bodies.at_mut(index), solver_forces.at_mut(index)) };
                *solver_body = SolverBody {
                    linear_velocity: body.linear_velocity,
                    angular_velocity: body.angular_velocity,
                    inv_mass: body.inv_mass,
                    inv_inertia,
                    delta_position: Vec3::ZERO,
                    delta_rotation: Quat::IDENTITY,
                };
                if body.is_dynamic() {
                    *forces = SolverForces {
                        linear_acceleration: (gravity * body.gravity_scale
                            + body.force * body.inv_mass)
                            * linear_free,
                        angular_acceleration: inv_inertia * body.torque,
                        linear_damping: body.linear_damping,
                        angular_damping: body.angular_damping,
                        is_dynamic: true,
                        rotation: body.rotation,
                        local_inertia: body.local_inertia,
                        local_inv_inertia: body.local_inv_inertia,
                        max_linear_speed: crate::physics::body::max_linear_speed(body.ccd),
                        linear_free,
                        angular_free,
                        locked: !locks.is_none(),
                        inertia_floor: 0.0,
                        gyroscopic: false,
                    }
                    .with_gyroscopic();
                }
            }
        });
    }

    /// Turns every touching contact with an awake dynamic body into a constraint, anchoring
    /// its points' lever arms (module notes), and sorts the constraints by group.
    ///
    /// On every worker, in blocks of the touching list: each block first counts the
    /// contacts it keeps, then (at the offset the counts before it add up to) writes their
    /// constraints, so each constraint has the index one thread would give it.
    fn gather_constraints(&mut self) {
        let warm_start = self.settings.enable_warm_starting;
        let planar = self.settings.planar;
        let down = self.settings.gravity.normalize_or_zero();
        let Self {
            bodies,
            colliders,
            contacts,
            scratch,
            ..
        } = self;
        let first_dynamic = 1 + scratch.solver.kinematic_count as u32;
        let touching = &scratch.contacts.touching;
        // Whether the contact of two body slots is solved: both bodies there, one of them
        // awake and dynamic.
        let kept = |slots: [u32; 2]| match (bodies.at(slots[0]), bodies.at(slots[1])) {
            (Some(a), Some(b)) => {
                a.solver_index >= first_dynamic || b.solver_index >= first_dynamic
            }
            _ => false,
        };
        let blocks = touching.len().div_ceil(GATHER_BLOCK);
        let total = block_offsets(
            touching.len(),
            GATHER_BLOCK,
            &mut scratch.constraints.gather_starts,
            &|k| kept(touching[k].bodies),
        );
        let placeholder = ConstraintInput::new(
            0,
            0,
            &[],
            ConstraintShared {
                contact: 0,
                normal: Vec3::ZERO,
                material: Default::default(),
                rolling_impulse: Vec3::ZERO,
                twist_impulse: 0.0,
                softness: Softness::default(),
                warm_start,
            },
        );
        // Every element below `total` is written by the blocks below, so what the last
        // step left there stays until then (no fill of the whole array).
        scratch.constraints.list.truncate(total);
        scratch.constraints.list.resize(total, placeholder);
        scratch.constraints.group.truncate(total);
        scratch.constraints.group.resize(total, 0);
        scratch.constraints.height.truncate(total);
        scratch.constraints.height.resize(total, 0);
        scratch.constraints.island.truncate(total);
        scratch.constraints.island.resize(total, 0);
        scratch.constraints.movable.truncate(total);
        scratch.constraints.movable.resize(total, [NOT_MOVED; 2]);
        let out = (
            Shared::new(&mut scratch.constraints.list),
            Shared::new(&mut scratch.constraints.group),
            Shared::new(&mut scratch.constraints.height),
            Shared::new(&mut scratch.constraints.island),
            Shared::new(&mut scratch.constraints.movable),
        );
        let roots = &scratch.islands.parent;
        let any_impact = AtomicBool::new(false);
        let slots = Shared::new(&mut contacts.slots);
        let (starts, groups, body_substeps, contexts) = (
            &scratch.constraints.gather_starts,
            &scratch.islands.groups,
            &scratch.islands.body_substeps,
            &scratch.islands.contexts,
        );
        for_each_block(blocks, 1, &|range: Range<usize>| {
            for block in range {
                let mut index = starts[block] as usize;
                let end = ((block + 1) * GATHER_BLOCK).min(touching.len());
                for k in block * GATHER_BLOCK..end {
                    prefetch_ahead(
                        touching,
                        k,
                        slots.as_ptr(),
                        slots.len(),
                        bodies,
                        Some(colliders),
                    );
                    let info = touching[k];
                    let (Some(body_a), Some(body_b)) =
                        (bodies.at(info.bodies[0]), bodies.at(info.bodies[1]))
                    else {
                        continue;
                    };
                    let (ia, ib) = (body_a.solver_index, body_b.solver_index);
                    // The test of `kept`, on the bodies at hand.
                    if ia < first_dynamic && ib < first_dynamic {
                        continue;
                    }
                    // SAFETY: the touching list names each contact once, and `index` is
                    // this block's own (the counts above).
                    let (c, input, group_out, height_out, island_out, movable_out) = unsafe {
                        (
                            slots.at_mut(info.id as usize),
                            out.0.at_mut(index),
                            out.1.at_mut(index),
                            out.2.at_mut(index),
                            out.3.at_mut(index),
                            out.4.at_mut(index),
                        )
                    };
                    debug_assert!(c.touching);
                    let dynamic_index = if ia >= first_dynamic { ia } else { ib };
                    *island_out = roots[dynamic_index as usize];
                    // Index 0 (the static stand-in, and any body left out of the solve)
                    // never moves; the others move when their mass is finite. The solver
                    // body filled from them has the same inverse mass, or that times a
                    // positive mobility bound (`joint/mobility.rs`), so every body the
                    // solver moves is counted movable (one whose scaled inverse mass
                    // rounded to zero would be too: the colouring is then only more
                    // cautious).
                    let moves = |index: u32, body: &Body| {
                        if index != 0 && body.inv_mass > 0.0 {
                            index
                        } else {
                            NOT_MOVED
                        }
                    };
                    *movable_out = [moves(ia, body_a), moves(ib, body_b)];
                    // The colouring shares islands between workers on this: every body a
                    // constraint moves is in the constraint's island.
                    debug_assert!(movable_out
                        .iter()
                        .all(|&b| b == NOT_MOVED || roots[b as usize] == *island_out));
                    let substeps = body_substeps[dynamic_index as usize];
                    let group = if groups.len() == 1 {
                        0
                    } else {
                        groups
                            .iter()
                            .position(|g| g.bodies.contains(&(dynamic_index as usize)))
                            .unwrap_or(0)
                    };
                    let (reach, max_shift) =
                        match (colliders.at(c.collider_a), colliders.at(c.collider_b)) {
                            (Some(a), Some(b)) => (
                                ANCHOR_REACH_FRACTION * a.feature_size.min(b.feature_size),
                                // The smaller collider's size: half its bounding box's diagonal.
                                ANCHOR_REACH_FRACTION
                                    * a.aabb
                                        .half_extents()
                                        .length()
                                        .min(b.aabb.half_extents().length()),
                            ),
                            _ => (0.0, 0.0),
                        };
                    let (center_a, center_b) = (body_a.center, body_b.center);
                    let dynamic_pair = body_a.is_dynamic() && body_b.is_dynamic();
                    let scale = 1.0 / substeps as f32;
                    let ctx = &contexts[group];
                    // Contacts with static or kinematic bodies are stiffer (Box2D: twice the
                    // frequency), so bodies are not pushed into the ground by what they carry.
                    let softness = if dynamic_pair {
                        ctx.contact_softness
                    } else {
                        ctx.static_softness
                    };
                    input.body_a = ia;
                    input.body_b = ib;
                    input.shared = ConstraintShared {
                        contact: info.id,
                        normal: if planar { in_plane(c.normal) } else { c.normal },
                        material: c.material,
                        rolling_impulse: c.rolling_impulse * scale,
                        twist_impulse: c.twist_impulse * scale,
                        softness,
                        warm_start,
                    };
                    input.count = c.count.min(input.points.len());
                    if input.count == 1 && c.material.restitution > 0.0 {
                        any_impact.store(true, Ordering::Relaxed);
                    }
                    input.max_shift = max_shift;
                    input.points[input.count..].fill(PointInput::default());
                    for (p, slot) in c.points[..c.count].iter_mut().zip(&mut input.points) {
                        let mid = p.point();
                        // Squared: two square roots per point less (their latency showed in
                        // profiles of resting stacks).
                        let within = |center: Vec3, arm: Vec3| {
                            (center + arm).distance_squared(mid) <= reach * reach
                        };
                        if !(p.anchored && within(center_a, p.arm_a) && within(center_b, p.arm_b)) {
                            p.arm_a = mid - center_a;
                            p.arm_b = mid - center_b;
                            p.anchored = true;
                        }
                        // Each body's impulses act at its own anchored point. The two points
                        // may sit apart by up to `reach`, so the pair's angular momentum is
                        // off by at most reach × impulse; a shared point (their midpoint,
                        // say) would move with the bodies' relative motion and bring back
                        // the buckling.
                        *slot = PointInput {
                            anchor_a: p.arm_a,
                            anchor_b: p.arm_b,
                            depth: p.depth,
                            normal_impulse: p.normal_impulse * scale,
                            tangent_impulse: p.tangent_impulse * scale,
                        };
                    }
                    *group_out = group as u32;
                    // Height of the manifold's first point along −g (0 without gravity).
                    let height = c.points[..c.count]
                        .first()
                        .map_or(0.0, |p| -down.dot(p.point()));
                    *height_out = height_key(height) << 32 | index as u64;
                    index += 1;
                }
                debug_assert_eq!(index, starts[block + 1] as usize);
            }
        });
        scratch.constraints.any_impact = any_impact.into_inner();
        scratch.colour_constraints();
    }

    /// Copies the accumulated impulses back into the persistent contacts, as impulses over
    /// the whole step (the solver's are per sub-step). Lane groups in blocks on every
    /// worker: each contact is in one lane of one lane group, so the blocks write disjoint
    /// contacts.
    fn store_impulses(&mut self) {
        let Self {
            scratch, contacts, ..
        } = self;
        let slots = Shared::new(&mut contacts.slots);
        for group in &scratch.islands.groups {
            let substeps = group.substeps as f32;
            let cold_groups = &scratch.constraints.cold_lanes[group.lanes.clone()];
            let groups = &scratch.constraints.lanes[group.lanes.clone()];
            for_each_block(groups.len(), STORE_BLOCK, &|range: Range<usize>| {
                for g in range {
                    let (lanes, cold) = (&groups[g], &cold_groups[g]);
                    // The next lane group's contacts, loaded while this one's are written (a
                    // hint).
                    for &id in cold_groups
                        .get(g + 1)
                        .map_or(&[][..], |next| &next.contacts)
                    {
                        if (id as usize) < slots.len() {
                            prefetch_ptr(slots.as_ptr().wrapping_add(id as usize));
                        }
                    }
                    for l in 0..solver::LANES {
                        let Some(impulses) = lanes.lane_impulses(cold, l) else {
                            continue;
                        };
                        // SAFETY: each contact is in one lane of one lane group (above).
                        let contact = unsafe { slots.at_mut(impulses.contact as usize) };
                        contact.rolling_impulse = impulses.rolling * substeps;
                        contact.twist_impulse = impulses.twist * substeps;
                        let solved = &impulses.points[..impulses.count];
                        for (dst, src) in contact.points.iter_mut().zip(solved) {
                            dst.normal_impulse = src.normal * substeps;
                            dst.tangent_impulse = src.tangent * substeps;
                            dst.max_normal_impulse = src.max_normal;
                        }
                    }
                }
            });
        }
    }

    /// Phase 4: writes the solver's results into the bodies, moves their colliders and
    /// broad-phase proxies, clears forces, and keeps each body's sleep timer
    /// (`island::sleep_timer`, also in `IslandScratch::sleep_time` for the sleep phase) and
    /// island label (its root's body slot).
    ///
    /// The bodies and their colliders on every worker, in blocks of solver indices (each
    /// body is one index's, each collider one body's), which also find the proxies that
    /// outgrew their fat boxes; then, in solver order on this thread, the broad phase
    /// re-inserts those and the frozen bodies are reported.
    pub(crate) fn finalize_bodies(&mut self, dt: f32) {
        let Self {
            bodies,
            colliders,
            broad_phase,
            scratch,
            frozen_events,
            ..
        } = self;
        let count = scratch.solver.to_body.len();
        scratch.solver.moved.clear();
        scratch.solver.moved.resize(count, false);
        scratch.islands.sleep_time.clear();
        scratch.islands.sleep_time.resize(count, 0.0);
        {
            let shared_bodies = bodies.shared();
            let shared_colliders = colliders.shared();
            let broad_phase = &**broad_phase;
            let (to_body, solver_bodies) = (&scratch.solver.to_body, &scratch.solver.bodies);
            let roots = &scratch.islands.parent;
            let faulted = Shared::new(&mut scratch.solver.faulted);
            let moved = Shared::new(&mut scratch.solver.moved);
            let sleep_time = Shared::new(&mut scratch.islands.sleep_time);
            for_each_block(count, FILL_BLOCK, &|range: Range<usize>| {
                for solver_index in range.filter(|&i| i > 0) {
                    let s = &solver_bodies[solver_index];
                    // SAFETY: solver index `solver_index` names one body and is this block's
                    // alone; so are the body's colliders, the two flags and its timer.
                    let (body, faulted, moved, sleep_time) = unsafe {
                        (
                            shared_bodies.at_mut(to_body[solver_index]),
                            faulted.at_mut(solver_index),
                            moved.at_mut(solver_index),
                            sleep_time.at_mut(solver_index),
                        )
                    };
                    let Some(body) = body else {
                        continue;
                    };
                    // Its island (the roots are the parents, `flatten_roots`), named by the
                    // root's body slot.
                    body.island = to_body[roots[solver_index] as usize];
                    let finite = s.delta_position.is_finite()
                        && s.delta_rotation.is_finite()
                        && s.linear_velocity.is_finite()
                        && s.angular_velocity.is_finite()
                        && (body.center + s.delta_position).is_finite();
                    if *faulted || !finite {
                        // Its pose is still the last finite one: keep it, stop the body.
                        freeze(body);
                        *faulted = true;
                        body.sleep_time = sleep_timer(body, dt);
                        *sleep_time = body.sleep_time;
                        continue;
                    }
                    body.linear_velocity = s.linear_velocity;
                    body.angular_velocity = s.angular_velocity;
                    body.center += s.delta_position;
                    body.rotation = (s.delta_rotation * body.rotation).normalize();
                    body.position = body.center - body.rotation * body.local_center;
                    body.force = Vec3::ZERO;
                    body.torque = Vec3::ZERO;
                    let pose = Isometry::new(body.position, body.rotation);
                    for &ci in &body.colliders {
                        // SAFETY: a collider belongs to one body (above).
                        if let Some(collider) = unsafe { shared_colliders.at_mut(ci) } {
                            collider.sync(&pose);
                            let fresh = fatten_aabb(&collider.aabb, s.delta_position);
                            *moved |= needs_reinsert(
                                &broad_phase.fat_aabb(collider.proxy),
                                &collider.aabb,
                                &fresh,
                                s.delta_position,
                            );
                        }
                    }
                    // The velocities are final here (continuous collision keeps them).
                    body.sleep_time = sleep_timer(body, dt);
                    *sleep_time = body.sleep_time;
                }
            });
        }
        for solver_index in 1..count {
            let body_index = scratch.solver.to_body[solver_index];
            if scratch.solver.faulted[solver_index] {
                if let Some(handle) = bodies.handle_at(body_index) {
                    frozen_events.push(handle);
                }
            } else if scratch.solver.moved[solver_index] {
                let Some(body) = bodies.at(body_index) else {
                    continue;
                };
                let displacement = scratch.solver.bodies[solver_index].delta_position;
                for &ci in &body.colliders {
                    if let Some(collider) = colliders.at(ci) {
                        broad_phase.move_proxy(collider.proxy, collider.aabb, displacement);
                    }
                }
            }
        }
    }
}

/// Whether a dynamic body's force, torque, acceleration, velocity and pose are finite (see
/// [`World::frozen_bodies`]).
#[inline]
fn inputs_finite(body: &crate::physics::body::Body, gravity: Vec3) -> bool {
    let acceleration = gravity * body.gravity_scale + body.force * body.inv_mass;
    acceleration.is_finite()
        && (body.local_inv_inertia * body.torque).is_finite()
        && body.linear_velocity.is_finite()
        && body.angular_velocity.is_finite()
        && body.center.is_finite()
        && body.rotation.is_finite()
}

/// A contact normal of a planar world, in the x–y plane. The solver moves a body's centre
/// along the scalar-mass impulse and takes out the locked z only after the pass, so a z part
/// of the normal (a tilted box meeting the floor) would reach the pass's other contacts and
/// turn into motion in the plane. A normal along z (two bodies face to face across the
/// plane) stays as it is: it can push neither.
fn in_plane(normal: Vec3) -> Vec3 {
    Vec3::new(normal.x, normal.y, 0.0)
        .try_normalize()
        .unwrap_or(normal)
}

/// Stops a body whose state stopped being finite: its pose stays the last finite one, its
/// velocities and pending forces are cleared, and the solver leaves it out from now on.
fn freeze(body: &mut crate::physics::body::Body) {
    body.frozen = true;
    body.linear_velocity = Vec3::ZERO;
    body.angular_velocity = Vec3::ZERO;
    body.force = Vec3::ZERO;
    body.torque = Vec3::ZERO;
}

#[cfg(test)]
mod tests;
