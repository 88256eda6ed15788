//! Phase 3's constraints: every touching contact with an awake dynamic body gathered into
//! a constraint (its lever arms anchored, see the notes in `mod.rs`), coloured island by
//! island in height order and prepared four per lane group; after the sub-steps, the
//! impulses stored back into the contacts.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::physics::body::Body;
use crate::physics::constants::*;
use crate::physics::contact::prefetch_ahead;
use crate::physics::math::Vec3;
use crate::physics::prefetch::prefetch_ptr;
use crate::physics::solver::crew::{block_offsets, for_each_block, Shared};
use crate::physics::solver::{
    self, prepare_colours, ColdLanes, ConstraintGraph, ConstraintInput, ConstraintLanes,
    ConstraintShared, PassFactors, PointInput, Softness, COLOURS, OVERFLOW,
};
use crate::physics::world::World;

/// Lane groups per block when the impulses are stored on several workers (about 0.1 µs
/// each, so a block is some microseconds).
const STORE_BLOCK: usize = 64;

/// Touching contacts per block when the constraints are gathered on several workers
/// (about 0.1 µs each).
pub(crate) const GATHER_BLOCK: usize = 128;

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
pub(super) fn group_by_island(
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
pub(super) fn sort_by_height(keys: &mut Vec<u64>, spare: &mut Vec<u64>) {
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
pub(super) fn height_key(height: f32) -> u64 {
    let bits = height.to_bits();
    let key = if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    };
    key as u64
}

impl World {
    /// Turns every touching contact with an awake dynamic body into a constraint, anchoring
    /// its points' lever arms (module notes), and sorts the constraints by group.
    ///
    /// On every worker, in blocks of the touching list: each block first counts the
    /// contacts it keeps, then (at the offset the counts before it add up to) writes their
    /// constraints, so each constraint has the index one thread would give it.
    pub(super) fn gather_constraints(&mut self) {
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
                    // The slots past the count keep what an earlier step left: nothing
                    // reads them (the lanes take `count` points, impacts the first).
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
    pub(super) fn store_impulses(&mut self) {
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
