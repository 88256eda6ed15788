//! The rows of a jointed island solved together, directly: the anchors that must coincide,
//! a weld's rotation, a hinge's alignment, a rod's length, and the limits (hinge limits,
//! ball joints' cones).
//!
//! Sequential impulses pass a load along a chain one joint per iteration, so a heavy body
//! on light links (a 10 kg ball under ten 0.1 kg links) leaves each joint open by what the
//! iterations cannot carry: the chain stretches by several per cent and stays so. Here
//! every pass solves all of an island's rows at once,
//!
//! ```text
//! K·x = J·v + b,   K = J·M⁻¹·Jᵀ + ε·diag   (n × n, n the island's active rows)
//! biased pass:  Δλ = −s_m·x − s_i·λ,  b = bias_rate·C   (the joints' soft constraint)
//! relax pass:   Δλ = −x,              b = 0
//! ```
//!
//! and applies Jᵀ·Δλ, the same update each row's own solve would reach if its neighbours
//! held still, for all rows at once (Baraff 1996, "Linear-time dynamics using Lagrange
//! multipliers", solves the same system; a dense factorisation is enough at these sizes).
//! K is sparse: rows couple only where their joints share a body, so a chain's K is
//! banded and a tree's needs no fill at all when its leaves go first. The elimination runs
//! joint by joint in the order of a minimum-degree ordering of the island's joint graph
//! ([`order_island`]: the joint coupled to the fewest rows next, its neighbours then
//! coupled to each other), touching only the rows each pivot reaches, and leaves out
//! pivots below a tolerance: directions the bodies cannot move along (locked axes, a closed
//! loop's redundant row, limits out of the active set). A limit is a one-sided row, in the system while it
//! holds (an active set, [`solve_block`]): solved with the point rows, a knee's limit sees
//! the shin turning about the knee, not about its own centre, and needs no iterations to
//! agree with them.
//!
//! The block's rows carry no impulse from one sub-step to the next: each pass solves them
//! whole, so a warm start would add nothing but the harm of applying an old impulse along
//! rows that have turned since (see `JointConstraint::forget_block_impulses`). Islands with
//! more than [`MAX_BLOCK_ROWS`] rows, or whose elimination would take more than
//! [`MAX_BLOCK_WORK`], keep the joint-by-joint solve, warm started. Motors,
//! ropes and springs (rows with a force bound, or soft on purpose) stay sequential, before
//! the block in each pass.

use super::super::math::Vec3;
use super::super::solver::SolverBody;
use super::parts::JointBodies;

mod plan;

pub(crate) use plan::{order_island, BlockPlan, IslandPlan};

/// Most rows an island may have to be solved directly: 85 ball joints, or 36 hinges with
/// limits. Larger islands keep the joint-by-joint solve.
pub const MAX_BLOCK_ROWS: usize = 256;

/// Most work one solve of an island's rows may take, in multiply-adds: the elimination as
/// [`order_island`] estimates it, plus n² for K's n × n entries (assembled, copied per
/// active-set round). A costlier island is solved joint by joint. A chain or a tree costs
/// tens of multiply-adds per row to eliminate (40 ball joints in a chain: about 10 000,
/// and 14 400 entries of K); a dense block of n rows n³/3, so the bound is what 100 rows
/// coupled through one body take.
pub const MAX_BLOCK_WORK: u64 = 350_000;

/// The smallest pivot [`eliminate`] solves for, as a fraction of the matrix's largest
/// diagonal. The elimination runs in f64, so what it must tell apart are real directions
/// (a gram body on a 100 kg one makes pivots 10⁻⁷ to 10⁻¹⁰ of the largest, and f32
/// rounding of those would be lost) from directions that exist only through rounding of
/// the f32 rows: a locked axis seen through a rotation rounded to 10⁻⁸ gives a K entry of
/// 10⁻¹⁶ of the body's inverse inertia (K is quadratic in J).
const RANK_TOLERANCE: f64 = 1.0e-13;

/// A row is left out of the elimination ([`eliminate_island`]) when what the pivots
/// before it left of it is at most this share of what they leave once the bodies may also
/// move a little along the axes they are locked about ([`LOCK_PROBE`]): the locks took
/// the rest. Such a row asks for the motion of rows already solved plus motion along a
/// locked axis; its error there has no answer, and solving it anyway turns that error into
/// a push of error/√(what is left) along the motion that exists (a hinge between bodies
/// locked about all but its axis: 10⁻⁵ rad into tens of rad/s). Rows are compared only
/// where the island has a locked body; elsewhere the probe changes nothing, and a row that
/// is small because of the geometry (a weld's turning rows, its anchor far out on a gram
/// body) or of a mass ratio (a light link between heavy bodies) is as small with it.
const DEPENDENT_ROW: f64 = 1.0e-2;

/// The mobility [`DEPENDENT_ROW`]'s comparison gives every body along the world axes it is
/// locked about, as a fraction of its largest inverse mass (translation) or largest inverse
/// inertia entry (rotation), unitless. With it a row that reaches the bodies' free motion
/// by a share s of its length and a locked axis by the rest is left out once s² is below
/// about `DEPENDENT_ROW`·`LOCK_PROBE` = 10⁻⁵ (s ≈ 0.2°): solved, it would answer its error
/// with pushes 1/s times the error's rate, 300 times at that share.
const LOCK_PROBE: f64 = 1.0e-3;

/// Added to K's diagonal, relative to each entry, for the elimination, unitless (the
/// contacts' relax pass regularises its blocks the same way). A closed loop whose joints disagree by a millimetre makes its
/// rows nearly, not exactly, redundant: a pivot of 10⁻⁶ of the largest, kept by
/// [`RANK_TOLERANCE`], would take impulses without bound; the regularisation bounds them at
/// 10⁴ times a row's own, and softens a heavy load on light links by at most that share
/// (a 10 kg ball on 0.1 kg links: 0.1 %).
const BLOCK_REGULARIZATION: f64 = 1.0e-4;

/// A row whose part of K_ii on each of its bodies is below this fraction of what its J
/// would give on that body were it free in every direction (|J_lin|²·max m⁻¹ +
/// |J_ang|²·max |I⁻¹|; [`Row::along_locks_only`]) is left out of the block: it asks for
/// motion along locked axes only, and exists only through rounding (a
/// hinge's alignment row on a planar body, its axis drifted 10⁻⁵ rad off z: 10⁻¹⁰). Solving
/// it would turn its error into a push of error·bias/|J|, 60 rad/s from 10⁻⁵ rad.
/// Real rows sit far above (a needle of aspect 1000 gives 10⁻⁶ across its axis).
const ROW_MOBILITY_TOLERANCE: f64 = 1.0e-7;

/// Most times the block is solved in one pass while its set of active limits changes
/// ([`solve_block`]); after the last, a limit still pulling is let go.
const ACTIVE_SET_ROUNDS: usize = 4;

/// How far a limit left out of the active set may be driven past its target before it
/// joins, relative to |Ċ| + |b|: rounding, not motion.
const ACTIVE_SET_SLACK: f64 = 1.0e-6;

/// Where a row's accumulated impulse lives in its joint
/// ([`JointConstraint::accumulated`](super::JointConstraint::accumulated)).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Slot {
    /// `impulse[k]`: the point rows along the world axes, a rod's row (k = 0).
    Linear(usize),
    /// Component k of a weld's angular impulse ([`WeldState::angular`](super::fixed::WeldState::angular)).
    WeldAngular(usize),
    /// A hinge's alignment row k of 2 ([`HingeState::alignment`](super::revolute::HingeState::alignment)).
    HingeAlignment(usize),
    /// A hinge held at one angle (its limits equal): the angle row, its impulse in
    /// [`HingeState::lower`](super::revolute::HingeState::lower).
    HingeAngle,
    /// A hinge's lower limit, one-sided, its impulse in
    /// [`HingeState::lower`](super::revolute::HingeState::lower).
    HingeLower,
    /// A hinge's upper limit, one-sided, its impulse in
    /// [`HingeState::upper`](super::revolute::HingeState::upper).
    HingeUpper,
    /// A ball joint's swing limit (its cone), one-sided, its impulse in
    /// [`SwingState::swing`](super::spherical::SwingState::swing).
    Swing,
}

/// One row of the block: Ċ = J·v over the two bodies, its error C and where its impulse is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row {
    /// The joint's index in the solver's joint list.
    pub joint: u32,
    pub slot: Slot,
    /// Solver indices (0: static, the world, or asleep).
    pub a: u32,
    pub b: u32,
    pub linear_a: Vec3,
    pub angular_a: Vec3,
    pub linear_b: Vec3,
    pub angular_b: Vec3,
    /// Inverse masses along the world axes (0 on locked ones).
    pub inv_mass_a: Vec3,
    pub inv_mass_b: Vec3,
    /// Whether either body has a locked axis ([`Row::probe_entry`] is 0 when not).
    pub locked: bool,
    /// The position error C, m or rad; for a one-sided row the gap, C ≥ 0 allowed.
    pub error: f32,
    /// A limit: its accumulated impulse stays ≥ 0, and while slack (C > 0) it is
    /// speculative, closing at most the gap in the sub-step.
    pub one_sided: bool,
}

impl Row {
    /// Ċ for the bodies' velocities now.
    pub fn rate<B: JointBodies + ?Sized>(&self, bodies: &B) -> f32 {
        let (a, b) = (&bodies[self.a as usize], &bodies[self.b as usize]);
        self.linear_a.dot(a.linear_velocity)
            + self.angular_a.dot(a.angular_velocity)
            + self.linear_b.dot(b.linear_velocity)
            + self.angular_b.dot(b.angular_velocity)
    }

    /// Whether every moving body sees this row only along axes it is locked about: its
    /// part of K_ii, J·M⁻¹·Jᵀ for that body alone, is below [`ROW_MOBILITY_TOLERANCE`] of
    /// what it would be had the body no locked axis (|J_lin|²·max m⁻¹ + |J_ang|²·max |I⁻¹|).
    /// Body by body: a row that a light body sees along its locks and a heavy one moves
    /// along freely is a real row, however small the heavy body's part.
    fn along_locks_only<B: JointBodies + ?Sized>(&self, bodies: &B) -> bool {
        let side = |index: u32, inv_mass: Vec3, linear: Vec3, angular: Vec3| {
            if index == 0 {
                return true;
            }
            let body = &bodies[index as usize];
            let (largest_linear, largest_angular) = mobility(body, inv_mass);
            let free = linear.length_squared() as f64 * largest_linear as f64
                + angular.length_squared() as f64 * largest_angular as f64;
            let own = dot64(linear, inv_mass * linear) + dot64(angular, body.inv_inertia * angular);
            own < ROW_MOBILITY_TOLERANCE * free
        };
        side(self.a, self.inv_mass_a, self.linear_a, self.angular_a)
            && side(self.b, self.inv_mass_b, self.linear_b, self.angular_b)
    }

    /// J_i·P·J_jᵀ of this row (i) and `other` (j), P each body's probe mobility
    /// (`scales`, per side of this row: linear, angular) along the axes it is locked about
    /// only ([`LOCK_PROBE`], [`probe_scales`]). A locked world axis is one whose entry of
    /// the row's inverse masses, or whose diagonal entry of the body's inverse inertia, is
    /// exactly 0 (`Locks::inv_inertia` clears its row and column).
    fn probe_entry<B: JointBodies + ?Sized>(
        &self,
        scales: [(f32, f32); 2],
        other: &Row,
        bodies: &B,
    ) -> f64 {
        let sides = |r: &Row| {
            [
                (r.a, r.inv_mass_a, r.linear_a, r.angular_a),
                (r.b, r.inv_mass_b, r.linear_b, r.angular_b),
            ]
        };
        let mut entry = 0.0f64;
        for ((body, inv_mass, linear, angular), (linear_scale, angular_scale)) in
            sides(self).into_iter().zip(scales)
        {
            if body == 0 {
                continue;
            }
            let m = bodies[body as usize].inv_inertia;
            let locked = |v: Vec3| Vec3::select(v.cmpeq(Vec3::ZERO), Vec3::ONE, Vec3::ZERO);
            let (locked_linear, locked_angular) = (
                locked(inv_mass),
                locked(Vec3::new(m.x_axis.x, m.y_axis.y, m.z_axis.z)),
            );
            if locked_linear == Vec3::ZERO && locked_angular == Vec3::ZERO {
                continue;
            }
            let (linear_probe, angular_probe) = (
                linear_scale * locked_linear * linear,
                angular_scale * locked_angular * angular,
            );
            for (other_body, _, other_linear, other_angular) in sides(other) {
                if other_body == body {
                    entry +=
                        dot64(linear_probe, other_linear) + dot64(angular_probe, other_angular);
                }
            }
        }
        entry
    }

    /// Applies the impulse λ along the row: Δv = M⁻¹·Jᵀ·λ for each moving body.
    pub fn apply<B: JointBodies + ?Sized>(&self, bodies: &mut B, lambda: f32) {
        if self.a != 0 {
            let a = &mut bodies[self.a as usize];
            a.linear_velocity += self.inv_mass_a * self.linear_a * lambda;
            a.angular_velocity += a.inv_inertia * self.angular_a * lambda;
        }
        if self.b != 0 {
            let b = &mut bodies[self.b as usize];
            b.linear_velocity += self.inv_mass_b * self.linear_b * lambda;
            b.angular_velocity += b.inv_inertia * self.angular_b * lambda;
        }
    }
}

/// The jointed islands solved as blocks this step, found once a step (`assign_blocks`), and
/// the buffers of their solves: one set per worker, so the islands, which share no body,
/// are solved side by side.
#[derive(Default)]
pub(crate) struct Blocks {
    /// Union–find parents and equality-row counts per solver body (`assign_blocks`).
    pub parent: Vec<u32>,
    pub row_count: Vec<u32>,
    /// The jointed islands solved as blocks this step: each one's sub-step group and its
    /// range of the joint list (`assign_blocks`), in list order (so by group).
    pub runs: Vec<(u32, std::ops::Range<usize>)>,
    /// Every island's elimination order ([`order_island`]), kept for the step.
    pub plan: BlockPlan,
    /// Work space of [`order_island`].
    pub adjacency: Vec<bool>,
    pub degree: Vec<u64>,
    pub eliminated: Vec<bool>,
    pub touching: Vec<(u32, u32)>,
    pub weights: Vec<u32>,
    /// One island's solve buffers per worker (index: the worker's).
    pub solves: Vec<BlockScratch>,
}

/// Buffers for one island's direct solve, kept from step to step.
#[derive(Default)]
pub(crate) struct BlockScratch {
    pub rows: Vec<Row>,
    /// Each row's J and M⁻¹·Jᵀ for its two bodies, in f64 (K's entries, [`RowSides`]).
    sides: Vec<RowSides>,
    /// K, row-major, n × n (f64: see [`RANK_TOLERANCE`]).
    k: Vec<f64>,
    rhs: Vec<f64>,
    /// K as assembled, kept while the active set changes.
    k_full: Vec<f64>,
    /// Each row's Ċ now and its target b (K·x = Ċ + b).
    rate: Vec<f64>,
    target: Vec<f64>,
    /// Whether a row is in the active set (every equality row is).
    active: Vec<bool>,
    x: Vec<f64>,
    /// Each row's accumulated impulse, λ in Δλ = −s_m·x − s_i·λ (filled by the caller).
    pub accumulated: Vec<f32>,
    /// The change of each row's accumulated impulse the solve asks for.
    pub delta: Vec<f32>,
    /// Rows whose pivot was left out of the elimination.
    skipped: Vec<bool>,
    /// The rows one pivot updates.
    update: Vec<u32>,
    /// The rows in the order [`eliminate_island`] pivots them.
    pivots: Vec<u32>,
    /// The pivot's row at the rows it updates ([`eliminate_island`]).
    pivot_row: Vec<f64>,
    /// K with the locked axes probed ([`LOCK_PROBE`]) as assembled, and as eliminated
    /// alongside K; empty when no body of the island has a locked axis.
    probe_full: Vec<f64>,
    probe: Vec<f64>,
    /// Whether each row moves a body along an axis it is locked about.
    reaches_lock: Vec<bool>,
    /// Each row's sides' probe mobility ([`probe_scales`]).
    probe_scales: Vec<[(f32, f32); 2]>,
    /// Per solver body, its joint partners' largest mobility ([`probe_scales`]).
    partners: Vec<Option<(f32, f32)>>,
    /// Each joint's rows in the block being solved (its place in the island → start and
    /// end row), for [`BlockPlan::island`].
    pub ranges: Vec<(u32, u32)>,
}

/// u·v in f64.
fn dot64(u: Vec3, v: Vec3) -> f64 {
    dot3(wide(u), wide(v))
}

/// `v` in f64 (exact).
fn wide(v: Vec3) -> [f64; 3] {
    [v.x as f64, v.y as f64, v.z as f64]
}

/// u·v of vectors already in f64, summed as [`dot64`] sums.
#[inline]
fn dot3(u: [f64; 3], v: [f64; 3]) -> f64 {
    u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
}

/// One row of the block as K's entries read it, in f64 (converted once per solve instead
/// of once per entry): for each side (body a, then b) the body, the row's J (linear,
/// angular) and M⁻¹·Jᵀ (the inverse mass times the linear part, the inverse inertia times
/// the angular part, formed in f32 as the row applies them).
#[derive(Clone, Copy, Debug)]
struct RowSides {
    body: [u32; 2],
    jacobian: [[[f64; 3]; 2]; 2],
    turn: [[[f64; 3]; 2]; 2],
}

/// Solves `scratch.rows` (filled by the caller, with their accumulated impulses in
/// `scratch.accumulated`) for the changes of those impulses, into `scratch.delta`:
/// (K + ε·diag K)·x = J·v + b over the active rows, Δλ = −s_m·x − s_i·λ, with ε =
/// [`BLOCK_REGULARIZATION`] and (s_m, s_i) = `scales`. b is `bias_rate`·C for the
/// equality rows in the biased pass (None: b = 0), and for a slack limit gap/h (it may
/// close its gap this sub-step), else as an equality row.
///
/// The limits take part by an active set (Baraff 1994, "Fast contact force computation for
/// nonpenetrating rigid bodies", in its simplest form): every limit that is touching, or
/// would close its gap this sub-step, starts active, and is solved as an equality row;
/// one whose impulse comes out pulling (λ + Δλ < 0) leaves the set, one left out that the
/// others drive past its gap joins it, and the block is solved again, at most
/// [`ACTIVE_SET_ROUNDS`] times. A limit out of the set releases what it holds (Δλ = −λ).
pub(crate) fn solve_block<B: JointBodies + ?Sized>(
    scratch: &mut BlockScratch,
    plan: IslandPlan<'_>,
    bodies: &B,
    bias_rate: Option<f32>,
    inv_h: f32,
    (mass_scale, impulse_scale): (f32, f32),
) {
    let n = scratch.rows.len();
    assemble(scratch, plan, bodies);
    // Out of the scratch while the elimination borrows the rest of it.
    let rows = std::mem::take(&mut scratch.rows);
    scratch.rate.clear();
    scratch.target.clear();
    scratch.active.clear();
    for (r, &lambda) in rows.iter().zip(&scratch.accumulated) {
        let rate = r.rate(bodies) as f64;
        let target = if r.one_sided && r.error > 0.0 {
            r.error as f64 * inv_h as f64
        } else {
            bias_rate.map_or(0.0, |b| b as f64 * r.error as f64)
        };
        scratch.rate.push(rate);
        scratch.target.push(target);
        scratch
            .active
            .push(!r.one_sided || r.error <= 0.0 || rate + target < 0.0 || lambda > 0.0);
    }
    scratch.delta.resize(n, 0.0);
    scratch.x.resize(n, 0.0);
    scratch.skipped.resize(n, false);
    let (ms, is) = (mass_scale as f64, impulse_scale as f64);
    for round in 0..ACTIVE_SET_ROUNDS {
        // Rows out of the set release their impulse: Δλ = −λ, which is x = λ·(1 − s_i)/s_m.
        scratch.k.clear();
        scratch.k.extend_from_slice(&scratch.k_full);
        scratch.rhs.clear();
        scratch
            .rhs
            .extend((0..n).map(|i| scratch.rate[i] + scratch.target[i]));
        for j in (0..n).filter(|&j| !scratch.active[j]) {
            let x = scratch.accumulated[j] as f64 * (1.0 - is) / ms;
            if x != 0.0 {
                for i in 0..n {
                    scratch.rhs[i] -= scratch.k_full[i * n + j] * x;
                }
            }
        }
        scratch.probe.clear();
        scratch.probe.extend_from_slice(&scratch.probe_full);
        let probed = !scratch.probe.is_empty();
        for j in 0..n {
            if scratch.active[j] {
                scratch.k[j * n + j] *= 1.0 + BLOCK_REGULARIZATION;
                if probed {
                    scratch.probe[j * n + j] *= 1.0 + BLOCK_REGULARIZATION;
                }
            } else {
                for i in 0..n {
                    scratch.k[i * n + j] = 0.0;
                    scratch.k[j * n + i] = 0.0;
                    if probed {
                        scratch.probe[i * n + j] = 0.0;
                        scratch.probe[j * n + i] = 0.0;
                    }
                }
                scratch.rhs[j] = 0.0;
            }
        }
        eliminate_island(scratch, plan, n);
        for i in 0..n {
            let lambda = scratch.accumulated[i] as f64;
            scratch.delta[i] = if scratch.active[i] {
                (-ms * scratch.x[i] - is * lambda) as f32
            } else {
                -lambda as f32
            };
        }
        if round + 1 == ACTIVE_SET_ROUNDS {
            break;
        }
        let mut changed = false;
        for i in (0..n).filter(|&i| rows[i].one_sided) {
            if scratch.active[i] {
                if scratch.accumulated[i] + scratch.delta[i] < 0.0 {
                    scratch.active[i] = false;
                    changed = true;
                }
            } else {
                let after: f64 = scratch.rate[i]
                    + (0..n)
                        .map(|j| scratch.k_full[i * n + j] * scratch.delta[j] as f64)
                        .sum::<f64>();
                let target = scratch.target[i];
                if after + target < -ACTIVE_SET_SLACK * (scratch.rate[i].abs() + target.abs()) {
                    scratch.active[i] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // A limit only pushes: one still pulling after the final round releases its impulse.
    for (i, r) in rows.iter().enumerate() {
        if r.one_sided && scratch.accumulated[i] + scratch.delta[i] < 0.0 {
            scratch.delta[i] = -scratch.accumulated[i];
        }
    }
    scratch.rows = rows;
}

/// K = J·M⁻¹·Jᵀ of `scratch.rows` into `scratch.k_full` (rows along locked directions
/// cleared, [`ROW_MOBILITY_TOLERANCE`]): the entries of each joint's rows with its own and
/// with those of the joints `plan` couples it to; the rest of K is zero (no shared body).
fn assemble<B: JointBodies + ?Sized>(scratch: &mut BlockScratch, plan: IslandPlan<'_>, bodies: &B) {
    let n = scratch.rows.len();
    let rows = &scratch.rows;
    scratch.sides.clear();
    scratch.sides.extend(rows.iter().map(|r| {
        let ia = bodies[r.a as usize].inv_inertia;
        let ib = bodies[r.b as usize].inv_inertia;
        RowSides {
            body: [r.a, r.b],
            jacobian: [[r.linear_a, r.angular_a], [r.linear_b, r.angular_b]].map(|s| s.map(wide)),
            turn: [
                [r.inv_mass_a * r.linear_a, ia * r.angular_a],
                [r.inv_mass_b * r.linear_b, ib * r.angular_b],
            ]
            .map(|s| s.map(wide)),
        }
    }));
    // K_ij = Σ over the bodies rows i and j share of J_i·M⁻¹·J_jᵀ.
    let k = &mut scratch.k_full;
    k.clear();
    k.resize(n * n, 0.0);
    let sides = &scratch.sides;
    let entry = |i: usize, j: usize| {
        let (si, sj) = (&sides[i], &sides[j]);
        let mut kij = 0.0f64;
        for (&body, jacobian) in si.body.iter().zip(&si.jacobian) {
            if body == 0 {
                continue;
            }
            for (&other, turn) in sj.body.iter().zip(&sj.turn) {
                if body == other {
                    kij += dot3(jacobian[0], turn[0]) + dot3(jacobian[1], turn[1]);
                }
            }
        }
        kij
    };
    for (r, &joint) in plan.order.iter().enumerate() {
        let own = plan.rows(joint);
        for i in own.clone() {
            for j in i..own.end {
                let kij = entry(i, j);
                k[i * n + j] = kij;
                k[j * n + i] = kij;
            }
        }
        for &other in plan.later(r) {
            for i in own.clone() {
                for j in plan.rows(other) {
                    let kij = entry(i, j);
                    k[i * n + j] = kij;
                    k[j * n + i] = kij;
                }
            }
        }
    }
    for (i, r) in rows.iter().enumerate() {
        if r.along_locks_only(bodies) {
            for j in 0..n {
                k[i * n + j] = 0.0;
                k[j * n + i] = 0.0;
            }
        }
    }
    // K again with the locked axes probed, where the island has any (entries only where K
    // has them: the probe acts through the same shared bodies).
    let probe = &mut scratch.probe_full;
    probe.clear();
    let reaches_lock = &mut scratch.reaches_lock;
    reaches_lock.clear();
    if !rows.iter().any(|r| r.locked) {
        return;
    }
    let scales = &mut scratch.probe_scales;
    probe_scales(rows, bodies, &mut scratch.partners, scales);
    reaches_lock.extend((0..n).map(|i| {
        rows[i].locked
            && k[i * n + i] != 0.0
            && rows[i].probe_entry(scales[i], &rows[i], bodies) != 0.0
    }));
    if reaches_lock.iter().any(|&l| l) {
        probe.extend_from_slice(k);
        for i in (0..n).filter(|&i| reaches_lock[i]) {
            for j in (0..n).filter(|&j| reaches_lock[j]) {
                probe[i * n + j] += LOCK_PROBE * rows[i].probe_entry(scales[i], &rows[j], bodies);
            }
        }
    }
}

/// A body's largest inverse mass along its free axes and largest |I⁻¹| entry, as a row's
/// side (`inv_mass` with its locked axes 0) sees it.
fn mobility(body: &SolverBody, inv_mass: Vec3) -> (f32, f32) {
    let m = body.inv_inertia;
    let turn = [m.x_axis, m.y_axis, m.z_axis]
        .iter()
        .map(|c| c.abs().max_element())
        .fold(0.0f32, f32::max);
    (inv_mass.max_element(), turn)
}

/// Each row's sides' probe mobility (linear, angular), the same for a body in every row:
/// the smaller of the body's own mobility ([`mobility`]) and the largest of its joint
/// partners' in the island (its own where its only partner is the world). A row that a
/// heavy body answers and a light one sees along its locks is then measured against what
/// the heavy body can move: probed with the light body's own mobility, a locked axis of a
/// 3 mg body would outweigh a 0.2 kg body's whole answer and mark a real row dependent.
/// `partners` is work space, one entry per solver body up to the island's largest index
/// (only the island's are touched).
fn probe_scales<B: JointBodies + ?Sized>(
    rows: &[Row],
    bodies: &B,
    partners: &mut Vec<Option<(f32, f32)>>,
    scales: &mut Vec<[(f32, f32); 2]>,
) {
    let reach = rows.iter().map(|r| r.a.max(r.b) as usize + 1).max();
    if partners.len() < reach.unwrap_or(0) {
        partners.resize(reach.unwrap_or(0), None);
    }
    for r in rows {
        partners[r.a as usize] = None;
        partners[r.b as usize] = None;
    }
    for r in rows.iter().filter(|r| r.a != 0 && r.b != 0) {
        for (this, other, other_inv_mass) in [(r.a, r.b, r.inv_mass_b), (r.b, r.a, r.inv_mass_a)] {
            let (l, t) = mobility(&bodies[other as usize], other_inv_mass);
            let (ml, mt) = partners[this as usize].unwrap_or((0.0, 0.0));
            partners[this as usize] = Some((ml.max(l), mt.max(t)));
        }
    }
    scales.clear();
    scales.extend(rows.iter().map(|r| {
        [(r.a, r.inv_mass_a), (r.b, r.inv_mass_b)].map(|(body, inv_mass)| {
            if body == 0 {
                return (0.0, 0.0);
            }
            let own = mobility(&bodies[body as usize], inv_mass);
            match partners[body as usize] {
                Some((l, t)) => (own.0.min(l), own.1.min(t)),
                None => own,
            }
        })
    }));
}

/// Solves `scratch.k`·x = `scratch.rhs` into `scratch.x` (K row-major, n × n, symmetric
/// positive semi-definite) by elimination in the order of `plan`, each pivot updating only
/// the rows it reaches (its joint's rows not yet eliminated and those of the joints coupled
/// to it then). Within a joint the largest remaining diagonal goes first (diagonal
/// pivoting, as [`eliminate`]): the joint's rows all reach the same others, so the order
/// inside a joint costs no fill. A pivot is left out, its x 0 and its part of rhs
/// unanswered, when it is at or below [`RANK_TOLERANCE`] of K's largest diagonal, or when
/// the locks took nearly all of it ([`DEPENDENT_ROW`]: `scratch.probe`, when not empty, is
/// eliminated alongside with the same pivots).
///
/// Why the order matters: two rows that the bodies can move along only one common direction
/// (a hinge's alignment rows on bodies locked about all but one axis) make a rank-one
/// block. Solving first the row that barely reaches that direction (K_ii 10⁻⁷ of the
/// other's) answers its error, which is mostly along directions nothing can move, by a
/// push of error/√(K_ii) through the one that can: 10⁻⁵ rad turned into tens of rad/s.
/// Solving the larger first answers it along its own direction and leaves the smaller
/// with what the locks forbid, which [`DEPENDENT_ROW`] then leaves out.
fn eliminate_island(scratch: &mut BlockScratch, plan: IslandPlan<'_>, n: usize) {
    let BlockScratch {
        k,
        rhs,
        x,
        skipped,
        update,
        pivots,
        probe,
        pivot_row,
        ..
    } = scratch;
    // The unchecked updates below index rows of `plan`'s ranges and of `pivots`: checked
    // here once, so that they are below n whoever built the plan.
    assert!(plan.rows_within(n), "an island's rows outside its {n} rows");
    x[..n].fill(0.0);
    skipped[..n].fill(false);
    pivots.clear();
    pivots.extend(0..n as u32);
    let probed = !probe.is_empty();
    let largest = (0..n).map(|i| k[i * n + i]).fold(0.0f64, f64::max);
    if !(largest > 0.0 && largest.is_finite()) {
        return;
    }
    let tolerance = RANK_TOLERANCE * largest;
    // The rows a pivot of the r-th joint reaches are its joint's rows after it (in
    // `pivots`), then the later joints' rows, which are the same for every pivot of the
    // joint: `update` holds room for the joint's rows, then the later joints' rows, listed
    // once per joint; a pivot writes its joint's rows after it just before those, and its
    // rows are the slice from there.
    let reach = |update: &mut Vec<u32>, r: usize| {
        update.clear();
        update.resize(plan.rows(plan.order[r]).len(), 0);
        for &other in plan.later(r) {
            update.extend(plan.rows(other).map(|i| i as u32));
        }
    };
    let reached = |update: &mut Vec<u32>, own: &[u32], width: usize| -> usize {
        let first = width - own.len();
        update[first..width].copy_from_slice(own);
        first
    };
    for r in 0..plan.order.len() {
        let rows = plan.rows(plan.order[r]);
        reach(update, r);
        for t in rows.clone() {
            let best = (t..rows.end)
                .max_by(|&a, &b| {
                    let (a, b) = (pivots[a] as usize, pivots[b] as usize);
                    k[a * n + a].total_cmp(&k[b * n + b])
                })
                .unwrap_or(t);
            pivots.swap(t, best);
            let p = pivots[t] as usize;
            let pivot = k[p * n + p];
            if pivot.partial_cmp(&tolerance) != Some(std::cmp::Ordering::Greater)
                || (probed && pivot <= DEPENDENT_ROW * probe[p * n + p])
            {
                skipped[p] = true;
                continue;
            }
            let first = reached(update, &pivots[t + 1..rows.end], rows.len());
            let update = &update[first..];
            for (matrix, solve_rhs) in [(&mut *k, true), (&mut *probe, false)] {
                if !solve_rhs && !probed {
                    continue;
                }
                let pivot = matrix[p * n + p];
                // Row p's entries the updates read (the same in each: p is not among
                // them), gathered once.
                pivot_row.clear();
                pivot_row.extend(update.iter().map(|&j| matrix[p * n + j as usize]));
                for &i in update {
                    let i = i as usize;
                    let f = matrix[i * n + p] / pivot;
                    if f == 0.0 {
                        continue;
                    }
                    let row = &mut matrix[i * n..(i + 1) * n];
                    for (&j, &kpj) in update.iter().zip(pivot_row.iter()) {
                        // SAFETY: `update` holds rows of the island, each below n (its
                        // joints' rows from the plan, asserted within n above, and the
                        // pivot order of them, 0..n), and `row` has n entries. (A checked
                        // index would be a tenth of the elimination's instructions.)
                        unsafe { *row.get_unchecked_mut(j as usize) -= f * kpj };
                    }
                    if solve_rhs {
                        rhs[i] -= f * rhs[p];
                    }
                }
            }
        }
    }
    for r in (0..plan.order.len()).rev() {
        let rows = plan.rows(plan.order[r]);
        reach(update, r);
        for t in rows.clone().rev() {
            let p = pivots[t] as usize;
            if skipped[p] {
                continue;
            }
            let first = reached(update, &pivots[t + 1..rows.end], rows.len());
            let later: f64 = update[first..]
                .iter()
                .map(|&j| k[p * n + j as usize] * x[j as usize])
                .sum();
            x[p] = (rhs[p] - later) / k[p * n + p];
        }
    }
}

/// Solves K·x = rhs in place (K row-major, n × n, symmetric positive semi-definite; n the
/// length of `rhs`) by elimination with diagonal pivoting: the largest remaining diagonal
/// first, stopping when what remains is below `rank_tolerance` of K's largest diagonal.
/// Those directions are ones the bodies cannot move along (a locked axis, a hinge on a
/// planar body, a closed loop's redundant row), up to rounding: their part of x is 0 and
/// their part of rhs is left unanswered, where a plain inverse would divide by the rounding
/// error and fling the bodies. `pivots` and `done` are work space of n entries.
pub(crate) fn eliminate(
    k: &mut [f64],
    rhs: &mut [f64],
    x: &mut [f64],
    pivots: &mut [usize],
    done: &mut [bool],
    rank_tolerance: f64,
) {
    let n = rhs.len();
    x.fill(0.0);
    done.fill(false);
    let largest = (0..n).map(|i| k[i * n + i]).fold(0.0f64, f64::max);
    if !(largest > 0.0 && largest.is_finite()) {
        return;
    }
    let tolerance = rank_tolerance * largest;
    let mut rank = 0;
    while rank < n {
        let Some(p) = (0..n)
            .filter(|&i| !done[i])
            .max_by(|&i, &j| k[i * n + i].total_cmp(&k[j * n + j]))
        else {
            break;
        };
        let pivot = k[p * n + p];
        if pivot.partial_cmp(&tolerance) != Some(std::cmp::Ordering::Greater) {
            break;
        }
        done[p] = true;
        pivots[rank] = p;
        rank += 1;
        for i in (0..n).filter(|&i| !done[i]) {
            let f = k[i * n + p] / pivot;
            if f == 0.0 {
                continue;
            }
            for j in 0..n {
                k[i * n + j] -= f * k[p * n + j];
            }
            rhs[i] -= f * rhs[p];
        }
    }
    for step in (0..rank).rev() {
        let p = pivots[step];
        let later: f64 = pivots[step + 1..rank]
            .iter()
            .map(|&j| k[p * n + j] * x[j])
            .sum();
        x[p] = (rhs[p] - later) / k[p * n + p];
    }
}

#[cfg(test)]
mod tests;
