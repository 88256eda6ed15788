//! Islands and sleeping: bodies linked by touching contacts form an island; an
//! island whose bodies all moved slower than the sleep tolerances for `TIME_TO_SLEEP` is put
//! to sleep as a whole and costs nothing until something wakes it.
//!
//! Awake islands are rebuilt every step with union–find over touching contacts between
//! dynamic bodies (static and kinematic bodies do not join islands: a floor would otherwise
//! make the whole scene one island). Sleeping islands are remembered as member lists, so
//! waking one body wakes exactly the bodies that fell asleep with it.
//!
//! Wake-ups: an awake body touching a sleeping one (narrow phase), any force, impulse,
//! velocity or transform set on a member, and the removal of a body it touches.

use super::body::{Body, BodyType, NULL};
use super::constants::{
    ANGULAR_SLEEP_TOLERANCE, LINEAR_SLEEP_TOLERANCE, RELATIVE_SLEEP_TOLERANCE, TIME_TO_SLEEP,
};
use super::contact::prefetch_ahead;
use super::math::Vec3;
use super::solver::crew::{block_offsets, for_each_block, Shared};
use super::solver::StepContext;
use super::world::solve::{SolveGroup, GATHER_BLOCK};
use super::world::World;
use std::ops::Range;

/// The islands' and sub-step groups' buffers of a step, by solver index.
#[derive(Default)]
pub(crate) struct IslandScratch {
    /// Union–find parent of each solver body (islands of touching or jointed dynamic
    /// bodies); from the end of the solver bodies' gather on, each body's root
    /// ([`flatten_roots`]).
    pub parent: Vec<u32>,
    /// Islands of awake dynamic bodies this step (counted by [`flatten_roots`]).
    pub count: usize,
    /// Each solver body's sleep timer after this step, s (kept by `World::finalize_bodies`,
    /// [`sleep_timer`]).
    pub sleep_time: Vec<f32>,
    /// Largest mass ratio of touching or jointed bodies, per island root.
    pub ratio: Vec<f32>,
    /// The touching pairs of awake dynamic bodies this step: solver indices and masses.
    pub pairs: Vec<(u32, u32, f32, f32)>,
    /// Sub-steps of each solver body's island.
    pub body_substeps: Vec<u32>,
    /// Sub-step groups of this step and their step contexts.
    pub groups: Vec<SolveGroup>,
    pub contexts: Vec<StepContext>,
    /// Shortest sleep time of each island's bodies, per root, s.
    pub min_sleep: Vec<f32>,
    /// Solver indices of the bodies falling asleep, sorted by island.
    pub members: Vec<u32>,
    /// Body slots of one island falling asleep.
    pub group: Vec<u32>,
}

/// Member lists of sleeping islands, in reusable slots.
#[derive(Clone, Debug, Default)]
pub(crate) struct SleepIslands {
    islands: Vec<Vec<u32>>,
    free: Vec<u32>,
}

impl SleepIslands {
    /// Stores a new sleeping island and returns its slot.
    fn add(&mut self, members: &[u32]) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.islands[id as usize].extend_from_slice(members);
                id
            }
            None => {
                self.islands.push(members.to_vec());
                (self.islands.len() - 1) as u32
            }
        }
    }

    /// Takes the members of island `id` out into `out` and frees the slot.
    fn take(&mut self, id: u32, out: &mut Vec<u32>) {
        out.clear();
        if let Some(list) = self.islands.get_mut(id as usize) {
            out.append(list);
            self.free.push(id);
        }
    }

    /// Number of sleeping islands.
    pub fn len(&self) -> usize {
        self.islands.len() - self.free.len()
    }
}

/// Union–find root with path halving.
pub(crate) fn find_root(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let grand = parent[parent[i as usize] as usize];
        parent[i as usize] = grand;
        i = grand;
    }
    i
}

/// Points every body of `parent` (a union–find forest built by [`World::build_islands`])
/// straight at its root, and returns how many roots there are from index `first` on.
///
/// One pass in index order is enough: the union makes the smaller root the parent and path
/// halving only moves a body's parent to its grandparent, so every parent is at or below its
/// child's index, and a body's parent has been flattened by the time the body is reached.
pub(crate) fn flatten_roots(parent: &mut [u32], first: usize) -> usize {
    let mut roots = 0;
    for i in 0..parent.len() {
        let up = parent[i] as usize;
        debug_assert!(up <= i, "parent {up} above body {i}");
        parent[i] = parent[up];
        roots += (i >= first && up == i) as usize;
    }
    roots
}

impl World {
    /// Union–find over touching contacts between awake dynamic bodies (static and kinematic
    /// bodies do not join islands: a floor would otherwise make the whole scene one island),
    /// and per root the largest mass ratio of two touching or jointed dynamic bodies.
    pub(crate) fn build_islands(&mut self, count: usize) {
        let first_dynamic = 1 + self.scratch.solver.kinematic_count as u32;
        // Jointed bodies form one island with each other, like touching ones.
        let mut jointed = std::mem::take(&mut self.scratch.joints.pairs);
        self.joint_island_pairs(first_dynamic, &mut jointed);
        let Self {
            bodies,
            contacts,
            scratch,
            ..
        } = self;
        let parent = &mut scratch.islands.parent;
        parent.clear();
        parent.extend(0..count as u32);
        // The pairs of touching awake dynamic bodies, with their masses.
        // Gathered on every worker, in blocks of the touching list written at the offsets
        // their counts add up to (the order of one thread).
        let touching = &scratch.contacts.touching;
        let both_dynamic = |k: usize| {
            let slots = touching[k].bodies;
            match (bodies.at(slots[0]), bodies.at(slots[1])) {
                (Some(a), Some(b)) => {
                    a.solver_index >= first_dynamic && b.solver_index >= first_dynamic
                }
                _ => false,
            }
        };
        let total = block_offsets(
            touching.len(),
            GATHER_BLOCK,
            &mut scratch.constraints.gather_starts,
            &both_dynamic,
        );
        let pairs = &mut scratch.islands.pairs;
        pairs.truncate(total);
        pairs.resize(total, (0, 0, 0.0, 0.0));
        {
            let (out, starts) = (Shared::new(pairs), &scratch.constraints.gather_starts);
            let slots = Shared::new(&mut contacts.slots);
            for_each_block(starts.len() - 1, 1, &|range: Range<usize>| {
                for block in range {
                    let mut index = starts[block] as usize;
                    let end = ((block + 1) * GATHER_BLOCK).min(touching.len());
                    for k in block * GATHER_BLOCK..end {
                        prefetch_ahead(touching, k, slots.as_ptr(), slots.len(), bodies, None);
                        let info = touching[k];
                        let (Some(a), Some(b)) =
                            (bodies.at(info.bodies[0]), bodies.at(info.bodies[1]))
                        else {
                            continue;
                        };
                        // The test of `both_dynamic`, on the bodies at hand.
                        if a.solver_index < first_dynamic || b.solver_index < first_dynamic {
                            continue;
                        }
                        // SAFETY: `index` is this block's own (the offsets above).
                        unsafe {
                            *out.at_mut(index) = (a.solver_index, b.solver_index, a.mass, b.mass)
                        };
                        index += 1;
                    }
                }
            });
        }
        // Each island's largest mass ratio across a pair, kept at its root and carried to
        // the new root when two islands join (a maximum: the same in any order; a NaN
        // ratio, of two infinite masses, is left out by `f32::max` either way).
        let ratio = &mut scratch.islands.ratio;
        ratio.clear();
        ratio.resize(count, 1.0);
        for &(ia, ib, ma, mb) in pairs.iter().chain(&jointed) {
            let (ra, rb) = (find_root(parent, ia), find_root(parent, ib));
            // The larger over the smaller: the larger of ma/mb and mb/ma, with one division.
            let pair = if ma > 0.0 && mb > 0.0 {
                ma.max(mb) / ma.min(mb)
            } else {
                1.0
            };
            // Smaller index as root: deterministic (every root is its island's smallest
            // index).
            let (lo, hi) = (ra.min(rb), ra.max(rb));
            if lo != hi {
                parent[hi as usize] = lo;
                ratio[lo as usize] = ratio[lo as usize].max(ratio[hi as usize]);
            }
            ratio[lo as usize] = ratio[lo as usize].max(pair);
        }
        scratch.joints.pairs = jointed;
    }

    /// Wakes body slot `index` and, if it was asleep in an island, the whole island.
    pub(crate) fn wake_body_index(&mut self, index: u32) {
        let Some(body) = self.bodies.at_mut(index) else {
            return;
        };
        if body.body_type == BodyType::Static {
            return;
        }
        body.sleep_time = 0.0;
        if body.awake {
            return;
        }
        let island = body.sleep_island;
        body.awake = true;
        if island == NULL {
            return;
        }
        let mut members = std::mem::take(&mut self.scratch.islands.members);
        self.sleep_islands.take(island, &mut members);
        for &m in &members {
            if let Some(b) = self.bodies.at_mut(m) {
                b.awake = true;
                b.sleep_time = 0.0;
                b.sleep_island = NULL;
            }
        }
        self.scratch.islands.members = members;
    }

    /// Wakes every body.
    pub fn wake_all(&mut self) {
        let sleeping: Vec<u32> = self
            .bodies
            .iter()
            .filter(|(_, b)| !b.awake)
            .map(|(h, _)| h.index())
            .collect();
        for index in sleeping {
            self.wake_body_index(index);
        }
    }

    /// Wakes every body touching body slot `index` (before it is removed or changed).
    pub(crate) fn wake_touching(&mut self, index: u32) {
        let mut ids = Vec::new();
        self.body_contacts(index, &mut ids);
        for id in ids {
            let c = &self.contacts.slots[id as usize];
            let (a, b) = (c.edges[0].body, c.edges[1].body);
            self.wake_body_index(if a == index { b } else { a });
        }
    }

    /// Number of islands currently asleep.
    pub fn sleeping_island_count(&self) -> usize {
        self.sleep_islands.len()
    }

    /// Phase 5: islands of the awake bodies, and sleep for resting islands. The bodies'
    /// sleep timers and island labels were kept by `World::finalize_bodies` on every worker
    /// (the timers in `IslandScratch::sleep_time` too, [`sleep_timer`]).
    pub(crate) fn update_sleep(&mut self) {
        let n = self.scratch.solver.bodies.len();
        // 1. The islands were built for the solve (`World::build_islands`); a body carried
        //    by a moving kinematic body must stay awake (only sleep reads this: without
        //    kinematic bodies, or with sleeping off, the walk over the contacts is skipped).
        let parent = &mut self.scratch.islands.parent;
        let carried = &mut self.scratch.contacts.to_wake;
        carried.clear();
        let any_carrier = self.scratch.solver.kinematic_count > 0 && self.settings.enable_sleeping;
        let touching = if any_carrier {
            &self.scratch.contacts.touching[..]
        } else {
            &[]
        };
        for info in touching {
            let (Some(a), Some(b)) = (
                self.bodies.at(info.bodies[0]),
                self.bodies.at(info.bodies[1]),
            ) else {
                continue;
            };
            let (ia, ib) = (a.solver_index, b.solver_index);
            if ia == 0 || ib == 0 {
                continue;
            }
            match (a.body_type, b.body_type) {
                (BodyType::Kinematic, BodyType::Dynamic) if a.sleep_time == 0.0 => carried.push(ib),
                (BodyType::Dynamic, BodyType::Kinematic) if b.sleep_time == 0.0 => carried.push(ia),
                _ => {}
            }
        }

        // 2. Minimum sleep time per island root (the parents are the roots,
        //    `flatten_roots`), and the islands counted.
        let min_sleep = &mut self.scratch.islands.min_sleep;
        min_sleep.clear();
        min_sleep.resize(n, f32::MAX);
        let mut islands = 0;
        let sleep_time = &self.scratch.islands.sleep_time;
        for solver_index in 1..n {
            let root = parent[solver_index] as usize;
            if min_sleep[root] == f32::MAX {
                islands += 1;
            }
            min_sleep[root] = min_sleep[root].min(sleep_time[solver_index]);
        }
        for &carried in &self.scratch.contacts.to_wake {
            let root = parent[carried as usize] as usize;
            min_sleep[root] = 0.0;
        }
        self.scratch.contacts.to_wake.clear();
        self.counters.islands = islands;
        if !self.settings.enable_sleeping {
            return;
        }

        // 3. Islands resting long enough fall asleep together; members are grouped by root.
        let mut members = std::mem::take(&mut self.scratch.islands.members);
        members.clear();
        for solver_index in 1..n {
            let root = find_root(parent, solver_index as u32) as usize;
            if min_sleep[root] >= TIME_TO_SLEEP {
                members.push(solver_index as u32);
            }
        }
        members.sort_unstable_by_key(|&i| (find_root(parent, i), i));
        let mut start = 0;
        let mut group = std::mem::take(&mut self.scratch.islands.group);
        while start < members.len() {
            let root = find_root(parent, members[start]);
            let mut end = start;
            group.clear();
            while end < members.len() && find_root(parent, members[end]) == root {
                group.push(self.scratch.solver.to_body[members[end] as usize]);
                end += 1;
            }
            let island = self.sleep_islands.add(&group);
            for &body_index in &group {
                if let Some(body) = self.bodies.at_mut(body_index) {
                    body.awake = false;
                    body.sleep_island = island;
                    body.linear_velocity = Vec3::ZERO;
                    body.angular_velocity = Vec3::ZERO;
                }
            }
            start = end;
        }
        self.scratch.islands.members = members;
        self.scratch.islands.group = group;
    }
}

/// A body's sleep timer after a step of `dt` s: a body resting below both tolerances
/// ([`sleep_tolerances`]) adds `dt`; any other starts again at zero. A kinematic body moves
/// exactly as told: it rests only when fully still.
pub(crate) fn sleep_timer(body: &Body, dt: f32) -> f32 {
    let (linear, angular) = sleep_tolerances(body.extent);
    let slow = body.linear_velocity.length() < linear && body.angular_velocity.length() < angular;
    let still = body.linear_velocity == Vec3::ZERO && body.angular_velocity == Vec3::ZERO;
    let resting = body.can_sleep
        && if body.body_type == BodyType::Kinematic {
            still
        } else {
            slow
        };
    if resting {
        body.sleep_time + dt
    } else {
        0.0
    }
}

/// Linear (m/s) and angular (rad/s) speeds below which a body of the given extent counts as
/// resting. Relative to size: a small body must move less than a fraction of its extent per
/// second, and a large one must not turn its far points faster than the linear limit. A body
/// without colliders (extent 0) uses the absolute tolerances.
pub(crate) fn sleep_tolerances(extent: f32) -> (f32, f32) {
    if extent <= 0.0 {
        return (LINEAR_SLEEP_TOLERANCE, ANGULAR_SLEEP_TOLERANCE);
    }
    (
        LINEAR_SLEEP_TOLERANCE.min(RELATIVE_SLEEP_TOLERANCE * extent),
        ANGULAR_SLEEP_TOLERANCE.min(LINEAR_SLEEP_TOLERANCE / extent),
    )
}

#[cfg(test)]
mod tests {
    use super::{find_root, flatten_roots};

    proptest::proptest! {
        /// After unions made as `World::build_islands` makes them (the smaller root the
        /// parent, path halving on the way), one pass points every body at the root
        /// `find_root` finds, and counts the roots from `first` on.
        #[test]
        fn flattened_parents_are_the_roots(
            count in 1usize..200,
            unions in proptest::collection::vec((0usize..200, 0usize..200), 0..300),
            first in 0usize..4,
        ) {
            let mut parent: Vec<u32> = (0..count as u32).collect();
            for &(a, b) in &unions {
                let (ra, rb) = (
                    find_root(&mut parent, (a % count) as u32),
                    find_root(&mut parent, (b % count) as u32),
                );
                if ra != rb {
                    parent[ra.max(rb) as usize] = ra.min(rb);
                }
            }
            let mut walked = parent.clone();
            let roots: Vec<u32> = (0..count as u32).map(|i| find_root(&mut walked, i)).collect();
            let expected = (first..count).filter(|&i| roots[i] == i as u32).count();
            let islands = flatten_roots(&mut parent, first);
            proptest::prop_assert_eq!(parent, roots);
            proptest::prop_assert_eq!(islands, expected);
        }
    }
}
