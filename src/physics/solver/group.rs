//! The sub-steps of one group of islands (see the pseudo-code in `mod.rs`), as a sequence of
//! stages that a [`Crew`] runs: the calling thread alone, or every worker of the pool.

use std::ops::Range;

use super::body::{clamp_speeds, stop_non_finite, SolverBody, SolverForces};
use super::contact_solve::{run_lanes, Pass, Work};
use super::crew::{Alone, Crew, Shared};
use super::integrate::{
    capped_integrate_positions, integrate_positions, integrate_velocities,
    integrate_velocities_capped,
};
use super::lane_velocities::Bodies;
use super::lanes::{ColdLanes, ConstraintLanes, PassFactors};
use super::StepContext;
use crate::physics::joint::{
    begin_pass, solve_island, solve_joint, solve_joint_shared, BlockPlan, BlockScratch,
    JointConstraint, JointPass, JointRun, SubStep,
};
use crate::physics::math::{Quat, Vec3};
use crate::physics::profile::PhaseTimer;

/// Bodies per block of a per-body stage on several workers: tens of nanoseconds each, so
/// a block is some microseconds.
const BODY_BLOCK: usize = 256;

/// Fewest lane groups per block of a colour on several workers (one takes about 0.7 µs).
const MIN_LANE_BLOCK: usize = 4;

/// Blocks per worker a colour is cut into, so a worker that finishes early takes another.
const BLOCKS_PER_WORKER: usize = 4;

/// Fewest lane groups (about 1 000 contacts) a group needs to be solved by the whole team:
/// below it a stage is tens of microseconds, and waking the team and waiting at each stage
/// cost more than its share of the work saves (the base-20 pyramid's 150 lane groups ran
/// several times slower under a software renderer's threads).
const MIN_LANES_FOR_TEAM: usize = 256;

/// Fewest bodies of its own a group needs to be solved by the whole team whatever its
/// lane groups: its per-body stages (three a sub-step, some tens of nanoseconds a body)
/// then save some 0.3 ms a step on two workers, several times what the stages' syncs
/// cost when the cores are far apart. A pile falling before it touches has thousands of
/// bodies and no contact.
const MIN_BODIES_FOR_TEAM: usize = 2048;

/// Whether a group of `lanes` lane groups and `bodies` bodies of its own, with joints to
/// share (coloured, or islands solved as blocks, [`shares_blocks`]) or not, is solved by
/// the whole team when the step has several workers ([`run_group`]).
pub(crate) fn solved_by_team(lanes: usize, bodies: usize, shared_joints: bool) -> bool {
    lanes >= MIN_LANES_FOR_TEAM || bodies >= MIN_BODIES_FOR_TEAM || shared_joints
}

/// Fewest joints a group's islands solved as blocks need, together, for the islands of a
/// pass to be shared by the team: a ragdoll's block (ten joints, about fifty rows) takes
/// some microseconds a pass, so below this the lead solves them in less time than the
/// team's stage syncs for the whole group would cost.
const MIN_BLOCK_JOINTS_TO_SHARE: usize = 64;

/// Whether a group whose jointed islands solved as blocks are `islands` (ranges of the
/// joint list) has them solved on every worker: two islands at least, and enough joints.
pub(crate) fn shares_blocks(islands: &[(u32, Range<usize>)]) -> bool {
    let joints: usize = islands.iter().map(|(_, range)| range.len()).sum();
    islands.len() >= 2 && joints >= MIN_BLOCK_JOINTS_TO_SHARE
}

/// Fewest joints per block of a joint colour on several workers (one takes about 0.1 µs).
const MIN_JOINT_BLOCK: usize = 16;

/// Everything the sub-steps of one group read and write.
pub(crate) struct GroupData<'a> {
    /// Every solver body (the static stand-in, kinematic bodies, every group's bodies).
    pub bodies: Shared<SolverBody>,
    pub forces: &'a [SolverForces],
    /// Per solver body: its velocity stopped being finite.
    pub faulted: Shared<bool>,
    pub joints: Shared<JointConstraint>,
    /// The group's jointed islands solved as blocks (their ranges of `joints`), the
    /// step's elimination plan, and one solve scratch per worker; with `shared_blocks`
    /// the islands of a pass are one stage on every worker (they share no body).
    pub block_islands: &'a [(u32, Range<usize>)],
    pub block_plan: &'a BlockPlan,
    pub block_solves: Shared<BlockScratch>,
    pub shared_blocks: bool,
    /// The group's runs of its joints (`JointScratch::runs`: all of them), and the order
    /// the per-joint passes take them in (indices of `joints`) with its runs: only the
    /// joints whose own solve does something in the passes (`JointScratch::pass_order`);
    /// the others' warm start is their islands' (`joint::solve_island`).
    pub joint_runs: &'a [JointRun],
    pub pass_joint_order: &'a [u32],
    pub pass_joint_runs: &'a [JointRun],
    /// The joints with a locked body (indices of `joints`, in its order).
    pub locked_joints: &'a [u32],
    /// The group's lane groups, and their cold parts and factorisations (biased, relax).
    pub lanes: Shared<ConstraintLanes>,
    pub cold: Shared<ColdLanes>,
    pub factors: [Shared<PassFactors>; 2],
    /// Each colour's lane groups (ranges of `lanes`); the last the overflow set when
    /// `overflow`.
    pub colours: &'a [Range<usize>],
    pub overflow: bool,
    /// The kinematic bodies, and the group's own.
    pub kinematic: Range<usize>,
    pub own: Range<usize>,
    pub substeps: u32,
    /// The group's index (its joints carry it).
    pub group: u32,
    pub ctx: StepContext,
    pub velocity_iterations: u32,
    pub relax_iterations: u32,
    pub verlet: bool,
}

/// A sweep over some bodies: their solver state, forces and fault flags.
type BodySweep<'a> = dyn Fn(&mut [SolverBody], &[SolverForces], &mut [bool]) + Sync + 'a;

/// Where a group's time went, ms.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GroupTimes {
    pub integration_ms: f32,
    pub solver_ms: f32,
}

/// Runs the sub-steps of a group and its restitution pass: on every worker of the team when
/// the step splits its work ([`split_workers`](crate::physics::threads::split_workers)) and
/// the group has enough lane groups, bodies or joints to share ([`solved_by_team`]), else on this
/// thread.
pub(crate) fn run_group(data: &GroupData) -> GroupTimes {
    #[cfg(feature = "parallel")]
    {
        use crate::physics::threads;
        let workers = threads::split_workers();
        let shared_joints = data.shared_blocks || data.joint_runs.iter().any(|run| run.shared);
        if workers > 1 && solved_by_team(data.lanes.len(), data.own.len(), shared_joints) {
            let team = super::crew::Team::new(workers);
            let lead_times = std::sync::Mutex::new(GroupTimes::default());
            let shared = threads::try_team_run(workers, &|index| {
                let member = super::crew::TeamMember::new(&team, index);
                let times = substeps(&member, data);
                if index == 0 {
                    *lead_times.lock().unwrap_or_else(|e| e.into_inner()) = times;
                }
            });
            if shared {
                return lead_times.into_inner().unwrap_or_else(|e| e.into_inner());
            }
        }
    }
    substeps(&Alone, data)
}

/// The stages of [`run_group`], run by every worker of `crew`.
fn substeps<C: Crew>(crew: &C, d: &GroupData) -> GroupTimes {
    let mut times = GroupTimes::default();
    let mut timer = PhaseTimer::start();
    let mut lap = |into: &mut f32| {
        let ms = timer.lap();
        if crew.lead() {
            *into += ms;
        }
    };
    let ctx = d.ctx;
    let own = d.own.clone();
    // Kinematic bodies are shared by every group: each group moves them along its own
    // sub-steps from the start of the step.
    let kinematic = |f: &mut dyn FnMut(&mut [SolverBody], &[SolverForces])| {
        if !d.kinematic.is_empty() {
            crew.serial(&mut || {
                let k = d.kinematic.clone();
                // SAFETY: the lead alone, the others waiting.
                f(unsafe { d.bodies.slice(k.clone()) }, &d.forces[k]);
            });
        }
    };
    kinematic(&mut |bodies, _| {
        for body in bodies {
            body.delta_position = Vec3::ZERO;
            body.delta_rotation = Quat::IDENTITY;
        }
    });
    // A sweep over the group's own bodies, in blocks.
    let per_body = |f: &BodySweep<'_>| {
        crew.parallel(own.len(), BODY_BLOCK, &|r: Range<usize>| {
            let range = own.start + r.start..own.start + r.end;
            // SAFETY: the blocks of a stage are disjoint.
            let (bodies, faulted) = unsafe {
                (
                    d.bodies.slice(range.clone()),
                    d.faulted.slice(range.clone()),
                )
            };
            f(bodies, &d.forces[range], faulted);
        });
    };
    let max_w = ctx.max_angular_speed;
    let clamp = || per_body(&|b, f, faulted| clamp_speeds(b, f, faulted, max_w));
    // The packed separations are the step start's; after the positions move, the next
    // pass tracks them again and the passes after it reuse them.
    let mut moved = false;
    // Verlet: half a kick before the first drift and half after the final one (see
    // `Integrator`); the half kicks use a half sub-step.
    let half = StepContext {
        h: 0.5 * ctx.h,
        inv_h: 2.0 * ctx.inv_h,
        ..ctx
    };
    let last = d.substeps.saturating_sub(1);
    for substep in 0..d.substeps {
        let kick = if d.verlet && substep == 0 {
            &half
        } else {
            &ctx
        };
        // The kick and the speed caps in one sweep; kinematic bodies take no kick.
        per_body(&|b, f, faulted| integrate_velocities_capped(b, f, faulted, kick));
        lap(&mut times.integration_ms);
        run_colours(crew, d, Work::warm_start(moved));
        joints(crew, d, JointPass::WarmStart);
        // No speed caps here (`stop_non_finite`): the passes below take the warm start's
        // transients back, and the drift caps what is left.
        per_body(&|b, f, faulted| stop_non_finite(b, f, faulted));
        for _ in 0..d.velocity_iterations {
            run_colours(crew, d, Work::solve(Pass::Biased, moved));
            joints(crew, d, JointPass::Biased);
            moved = false;
        }
        lap(&mut times.solver_ms);
        // The speed caps and the drift in one sweep for the group's own bodies.
        kinematic(&mut |bodies, forces| integrate_positions(bodies, forces, &ctx));
        per_body(&|b, f, faulted| capped_integrate_positions(b, f, faulted, &ctx));
        if d.verlet && substep == last {
            kinematic(&mut |bodies, forces| integrate_velocities(bodies, forces, &half));
            per_body(&|b, f, _| integrate_velocities(b, f, &half));
            clamp();
        }
        moved = true;
        lap(&mut times.integration_ms);
        for _ in 0..d.relax_iterations {
            run_colours(crew, d, Work::solve(Pass::Relax, moved));
            joints(crew, d, JointPass::Relax);
            moved = false;
        }
        // The next sub-step's kick caps the speeds after it (`integrate_velocities_capped`),
        // which is the same where nothing exceeds a cap; the last sub-step caps here.
        if substep == last {
            clamp();
        }
        lap(&mut times.solver_ms);
    }
    run_colours(crew, d, Work::restitution(moved));
    clamp();
    lap(&mut times.solver_ms);
    times
}

/// One pass of the group's joints: the pass's start on the lead; the per-joint runs, a
/// coloured run in blocks on every worker (its joints move disjoint bodies), the others in
/// order on the lead; then the jointed islands solved as blocks, on the lead, or in the
/// biased and relax passes an island a block on every worker when the group shares them
/// ([`shares_blocks`]). Consecutive parts on the lead are one stage.
fn joints<C: Crew>(crew: &C, d: &GroupData, pass: JointPass) {
    if d.joint_runs.is_empty() {
        return;
    }
    let step = SubStep::new(pass, d.ctx.h);
    let (order, runs) = (d.pass_joint_order, d.pass_joint_runs);
    // The warm start of an island solved as a block only clears what the block carried
    // (`joint::solve_island`): the lead does it in its own stage, no team stage for it.
    let share_blocks = d.shared_blocks && pass != JointPass::WarmStart;
    let mut i = 0;
    loop {
        let j = (i..runs.len())
            .find(|&k| runs[k].shared)
            .unwrap_or(runs.len());
        let (first, last) = (i == 0, j == runs.len());
        crew.serial(&mut || {
            // SAFETY: the lead alone, the others waiting.
            let (joints, bodies) = unsafe {
                (
                    d.joints.slice(0..d.joints.len()),
                    d.bodies.slice(0..d.bodies.len()),
                )
            };
            if first {
                begin_pass(joints, d.locked_joints, bodies, &step, d.group);
            }
            for run in &runs[i..j] {
                for &k in &order[run.range.clone()] {
                    solve_joint(&mut joints[k as usize], bodies, &step);
                }
            }
            if last && !share_blocks {
                // SAFETY: as above (and the lead's solve scratch is its own).
                let scratch = unsafe { d.block_solves.at_mut(0) };
                for (_, range) in d.block_islands {
                    let island = &mut joints[range.clone()];
                    solve_island(island, range.start, d.block_plan, scratch, bodies, &step);
                }
            }
        });
        if last {
            if share_blocks {
                let me = crew.index();
                crew.parallel(d.block_islands.len(), 1, &|r: Range<usize>| {
                    // SAFETY: the scratch of this worker (`me` is the index of the worker
                    // that made this closure and runs its blocks), used by no other.
                    let scratch = unsafe { d.block_solves.at_mut(me) };
                    for (_, range) in &d.block_islands[r] {
                        // SAFETY: the islands' ranges of the joint list are disjoint, and
                        // each island is in one block of this stage.
                        let island = unsafe { d.joints.slice(range.clone()) };
                        let mut bodies = IslandBodies(d.bodies);
                        solve_island(
                            island,
                            range.start,
                            d.block_plan,
                            scratch,
                            &mut bodies,
                            &step,
                        );
                    }
                });
            }
            return;
        }
        let range = runs[j].range.clone();
        let block = (range.len() / (BLOCKS_PER_WORKER * crew.workers())).max(MIN_JOINT_BLOCK);
        crew.parallel(range.len(), block, &|r: Range<usize>| {
            for &k in &order[range.start + r.start..range.start + r.end] {
                // SAFETY: the joints of a colour move disjoint bodies of the group's own and
                // only read the static stand-in and kinematic bodies, which no one writes
                // in this stage; each joint is in one block.
                unsafe { solve_joint_shared(d.joints.at_mut(k as usize), d.bodies, &d.own, &step) };
            }
        });
        i = j + 1;
    }
}

/// The solver bodies as one jointed island's block solve sees them on one of several
/// workers (`joint::solve_island`).
struct IslandBodies(Shared<SolverBody>);

// SAFETY (for the accesses through these impls): the islands of a stage are the
// components of the joint graph over every body but the static stand-in, so no two share
// a body; an island's solve reads and writes only its own bodies and reads the stand-in,
// which no one writes (its rows skip index 0 when applying). Kinematic bodies are in the
// components too (`joint::assign_blocks` joins through them), and must be: a row applies
// its (zero) change to every body but the stand-in, a kinematic one included, so two
// islands sharing a kinematic body would both write it.
impl std::ops::Index<usize> for IslandBodies {
    type Output = SolverBody;

    #[inline]
    fn index(&self, index: usize) -> &SolverBody {
        // SAFETY: see above.
        unsafe { self.0.at(index) }
    }
}

impl std::ops::IndexMut<usize> for IslandBodies {
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut SolverBody {
        debug_assert!(index != 0, "the stand-in is never written");
        // SAFETY: see above.
        unsafe { self.0.at_mut(index) }
    }
}

/// `work` on every lane group of the group, colour by colour: a colour's lane groups in
/// blocks (they move disjoint bodies, `graph_colour.rs`), the overflow set and colours of
/// a few lane groups in order on the lead.
fn run_colours<C: Crew>(crew: &C, d: &GroupData, work: Work) {
    let factors = d.factors[work.factors()];
    let mut bodies = d.bodies;
    let lane = |k: usize, bodies: &mut Shared<SolverBody>| {
        // SAFETY: lane group k belongs to one block of its colour (or to the lead), and
        // the bodies it writes to no other lane group of the colour (`Bodies` below).
        let (c, cold, f) = unsafe { (d.lanes.at_mut(k), d.cold.at_mut(k), factors.at_mut(k)) };
        run_lanes(work, bodies, c, cold, f, &d.ctx);
    };
    // Colours too small to share (two blocks' worth, some microseconds) and the overflow
    // set run on the lead, several in a row as one stage: one barrier for all of them. A
    // colour of more is shared however many workers there are: with fewer blocks than
    // workers, the idle ones wait at the stage's end about as long as the lead alone
    // would take, and the blocks go faster.
    let split = |i: usize| {
        let last_overflow = d.overflow && i + 1 == d.colours.len();
        colour_block(d.colours[i].len(), last_overflow, crew.workers())
    };
    let mut i = 0;
    while i < d.colours.len() {
        if let Some(block) = split(i) {
            let range = d.colours[i].clone();
            crew.parallel(range.len(), block, &|r: Range<usize>| {
                let mut bodies = d.bodies;
                r.for_each(|j| lane(range.start + j, &mut bodies));
            });
            i += 1;
        } else {
            let end = (i..d.colours.len())
                .find(|&j| split(j).is_some())
                .unwrap_or(d.colours.len());
            crew.serial(&mut || {
                for range in &d.colours[i..end] {
                    range.clone().for_each(|k| lane(k, &mut bodies));
                }
            });
            i = end;
        }
    }
}

/// How a colour of `len` lane groups is split over `workers` workers: `None` when it runs
/// on the lead (the overflow set, or too few lane groups to share), else the lane groups
/// per block. The colours' lane groups are prepared in the same parts
/// (`lanes::prepare_colours`), so each worker finds its own in its cache.
pub(crate) fn colour_block(len: usize, overflow_set: bool, workers: usize) -> Option<usize> {
    (!overflow_set && len >= 2 * MIN_LANE_BLOCK)
        .then(|| (len / (BLOCKS_PER_WORKER * workers)).max(MIN_LANE_BLOCK))
}

// SAFETY (for the accesses through this impl): a colour's lane groups move disjoint bodies
// and only read the static stand-in and kinematic bodies, so no body a block writes is used
// by another block of the same stage; the overflow set runs on the lead alone.
impl Bodies for Shared<SolverBody> {
    #[inline]
    fn at(&self, index: u32) -> &SolverBody {
        // SAFETY: see above.
        unsafe { Shared::at(self, index as usize) }
    }

    #[inline]
    unsafe fn lane(&self, index: u32) -> &SolverBody {
        // SAFETY: in bounds by the caller's promise; shared as above.
        unsafe { Shared::at_unchecked(self, index as usize) }
    }

    #[inline]
    unsafe fn lane_mut(&mut self, index: u32) -> &mut SolverBody {
        // SAFETY: in bounds by the caller's promise; exclusive as above.
        unsafe { Shared::at_mut_unchecked(self, index as usize) }
    }
}
