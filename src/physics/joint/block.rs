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
//! K is factorised by elimination with diagonal pivoting that leaves out directions the
//! bodies cannot move along (locked axes, a closed loop's redundant row), as
//! `solve_symmetric` does for one joint. A limit is a one-sided row, in the system while it
//! holds (an active set, [`solve_block`]): solved with the point rows, a knee's limit sees
//! the shin turning about the knee, not about its own centre, and needs no iterations to
//! agree with them.
//!
//! The block's rows carry no impulse from one sub-step to the next: each pass solves them
//! whole, so a warm start would add nothing but the harm of applying an old impulse along
//! rows that have turned since (see `JointConstraint::forget_block_impulses`). Islands with
//! more than [`MAX_BLOCK_ROWS`] rows keep the joint-by-joint solve, warm started. Motors,
//! ropes and springs (rows with a force bound, or soft on purpose) stay sequential, before
//! the block in each pass.

use super::super::math::Vec3;
use super::super::solver::SolverBody;

/// Most rows an island may have to be solved directly: 21 ball joints, or 16 ball joints
/// with cones, or 12 hinges (9 with limits). Elimination costs n³/3 multiply-adds per pass, 87 000 at 64 rows.
pub const MAX_BLOCK_ROWS: usize = 64;

/// The smallest pivot [`eliminate`] solves for, as a fraction of the matrix's largest
/// diagonal. The elimination runs in f64, so what it must tell apart are real directions
/// (a gram body on a 100 kg one makes pivots 10⁻⁷ to 10⁻¹⁰ of the largest, and f32
/// rounding of those would be lost) from directions that exist only through rounding of
/// the f32 rows: a locked axis seen through a rotation rounded to 10⁻⁸ gives a K entry of
/// 10⁻¹⁶ of the body's inverse inertia (K is quadratic in J).
const RANK_TOLERANCE: f64 = 1.0e-13;

/// Added to K's diagonal, relative to each entry, for the elimination, unitless (the
/// contacts' relax pass regularises its blocks the same way). A closed loop whose joints disagree by a millimetre makes its
/// rows nearly, not exactly, redundant: a pivot of 10⁻⁶ of the largest, kept by
/// [`RANK_TOLERANCE`], would take impulses without bound; the regularisation bounds them at
/// 10⁴ times a row's own, and softens a heavy load on light links by at most that share
/// (a 10 kg ball on 0.1 kg links: 0.1 %).
const BLOCK_REGULARIZATION: f64 = 1.0e-4;

/// A row whose K_ii is below this fraction of what its J would give on bodies free in
/// every direction (|J_lin|²·max m⁻¹ + |J_ang|²·max |I⁻¹|, per body) is left out of the
/// block: it asks for motion along a locked axis, and exists only through rounding (a
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
    /// The position error C, m or rad; for a one-sided row the gap, C ≥ 0 allowed.
    pub error: f32,
    /// A limit: its accumulated impulse stays ≥ 0, and while slack (C > 0) it is
    /// speculative, closing at most the gap in the sub-step.
    pub one_sided: bool,
}

impl Row {
    /// Ċ for the bodies' velocities now.
    pub fn rate(&self, bodies: &[SolverBody]) -> f32 {
        let (a, b) = (&bodies[self.a as usize], &bodies[self.b as usize]);
        self.linear_a.dot(a.linear_velocity)
            + self.angular_a.dot(a.angular_velocity)
            + self.linear_b.dot(b.linear_velocity)
            + self.angular_b.dot(b.angular_velocity)
    }

    /// |J_lin|²·max m⁻¹ + |J_ang|²·max |I⁻¹| over its moving bodies: the scale of K_ii
    /// had the bodies no locked axis ([`ROW_MOBILITY_TOLERANCE`]).
    fn free_scale(&self, bodies: &[SolverBody]) -> f64 {
        let side = |index: u32, inv_mass: Vec3, linear: Vec3, angular: Vec3| {
            if index == 0 {
                return 0.0;
            }
            let m = bodies[index as usize].inv_inertia;
            let largest = [m.x_axis, m.y_axis, m.z_axis]
                .iter()
                .map(|c| c.abs().max_element())
                .fold(0.0f32, f32::max);
            linear.length_squared() as f64 * inv_mass.max_element() as f64
                + angular.length_squared() as f64 * largest as f64
        };
        side(self.a, self.inv_mass_a, self.linear_a, self.angular_a)
            + side(self.b, self.inv_mass_b, self.linear_b, self.angular_b)
    }

    /// Applies the impulse λ along the row: Δv = M⁻¹·Jᵀ·λ for each moving body.
    pub fn apply(&self, bodies: &mut [SolverBody], lambda: f32) {
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

/// Buffers for the direct solve, kept from step to step.
#[derive(Default)]
pub(crate) struct BlockScratch {
    pub rows: Vec<Row>,
    /// M⁻¹·Jᵀ of each row for its two bodies: (linear a, angular a, linear b, angular b).
    turns: Vec<[Vec3; 4]>,
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
    pivots: Vec<usize>,
    done: Vec<bool>,
    /// Union–find parents and equality-row counts per solver body (`assign_blocks`).
    pub parent: Vec<u32>,
    pub row_count: Vec<u32>,
}

/// u·v in f64.
fn dot64(u: Vec3, v: Vec3) -> f64 {
    u.x as f64 * v.x as f64 + u.y as f64 * v.y as f64 + u.z as f64 * v.z as f64
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
pub(crate) fn solve_block(
    scratch: &mut BlockScratch,
    bodies: &[SolverBody],
    bias_rate: Option<f32>,
    inv_h: f32,
    (mass_scale, impulse_scale): (f32, f32),
) {
    let n = scratch.rows.len();
    assemble(scratch, bodies);
    let rows = &scratch.rows;
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
    scratch.pivots.resize(n, 0);
    scratch.done.resize(n, false);
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
        for j in 0..n {
            if scratch.active[j] {
                scratch.k[j * n + j] *= 1.0 + BLOCK_REGULARIZATION;
            } else {
                for i in 0..n {
                    scratch.k[i * n + j] = 0.0;
                    scratch.k[j * n + i] = 0.0;
                }
                scratch.rhs[j] = 0.0;
            }
        }
        eliminate(
            &mut scratch.k,
            &mut scratch.rhs,
            &mut scratch.x[..n],
            &mut scratch.pivots[..n],
            &mut scratch.done[..n],
            RANK_TOLERANCE,
        );
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
}

/// K = J·M⁻¹·Jᵀ of `scratch.rows` into `scratch.k_full` (rows along locked directions
/// cleared, [`ROW_MOBILITY_TOLERANCE`]).
fn assemble(scratch: &mut BlockScratch, bodies: &[SolverBody]) {
    let n = scratch.rows.len();
    let rows = &scratch.rows;
    scratch.turns.clear();
    scratch.turns.extend(rows.iter().map(|r| {
        let ia = bodies[r.a as usize].inv_inertia;
        let ib = bodies[r.b as usize].inv_inertia;
        [
            r.inv_mass_a * r.linear_a,
            ia * r.angular_a,
            r.inv_mass_b * r.linear_b,
            ib * r.angular_b,
        ]
    }));
    // K_ij = Σ over the bodies rows i and j share of J_i·M⁻¹·J_jᵀ.
    let k = &mut scratch.k_full;
    k.clear();
    k.resize(n * n, 0.0);
    for (i, ri) in rows.iter().enumerate() {
        for (j, (rj, tj)) in rows.iter().zip(&scratch.turns).enumerate().skip(i) {
            let mut kij = 0.0f64;
            for (body, linear, angular) in [
                (ri.a, ri.linear_a, ri.angular_a),
                (ri.b, ri.linear_b, ri.angular_b),
            ] {
                if body == 0 {
                    continue;
                }
                if body == rj.a {
                    kij += dot64(linear, tj[0]) + dot64(angular, tj[1]);
                }
                if body == rj.b {
                    kij += dot64(linear, tj[2]) + dot64(angular, tj[3]);
                }
            }
            k[i * n + j] = kij;
            k[j * n + i] = kij;
        }
    }
    for (i, r) in rows.iter().enumerate() {
        if k[i * n + i] < ROW_MOBILITY_TOLERANCE * r.free_scale(bodies) {
            for j in 0..n {
                k[i * n + j] = 0.0;
                k[j * n + i] = 0.0;
            }
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
mod tests {
    use super::*;

    /// [`eliminate`] on a row-major K and rhs, returning x.
    fn solve(mut k: Vec<f64>, mut rhs: Vec<f64>) -> Vec<f64> {
        let n = rhs.len();
        let mut x = vec![0.0; n];
        eliminate(
            &mut k,
            &mut rhs,
            &mut x,
            &mut vec![0; n],
            &mut vec![false; n],
            RANK_TOLERANCE,
        );
        x
    }

    /// A full system with a known solution; a singular one whose null direction gets
    /// x = 0 while the rest is solved exactly; a redundant pair of rows.
    #[test]
    fn elimination_solves_full_and_rank_deficient_systems() {
        // K = [[4, 1, 0], [1, 3, 1], [0, 1, 2]], x = (1, −2, 3): rhs = K·x = (2, −2, 4).
        let x = solve(
            vec![4.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 2.0],
            vec![2.0, -2.0, 4.0],
        );
        for (x, want) in x.iter().zip([1.0, -2.0, 3.0]) {
            assert!((x - want).abs() < 1e-5, "{x}");
        }
        // K = diag(2, 0, 5): the middle direction is left out.
        let x = solve(
            vec![2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0],
            vec![4.0, 7.0, 10.0],
        );
        assert_eq!(x, vec![2.0, 0.0, 2.0]);
        // Two equal rows (a redundant constraint): K = [[1, 1], [1, 1]], rhs (3, 3); one
        // row takes it all and K·x = rhs holds.
        let x = solve(vec![1.0, 1.0, 1.0, 1.0], vec![3.0, 3.0]);
        assert!((x[0] + x[1] - 3.0).abs() < 1e-6, "{x:?}");
        // Rounding noise (10⁻¹⁵ of the largest diagonal) is no direction; a gram body's
        // share next to a heavy one (10⁻¹⁰) is.
        let x = solve(vec![1.0, 0.0, 0.0, 1.0e-15], vec![1.0, 1.0]);
        assert_eq!(x, vec![1.0, 0.0]);
        let x = solve(vec![1.0, 0.0, 0.0, 1.0e-10], vec![1.0, 1.0e-10]);
        assert!((x[1] - 1.0).abs() < 1e-9, "{x:?}");
    }
}
