//! The iterations over contact constraints: warm start, the biased and relax passes
//! (friction and rolling resistance from `friction.rs`, the normal block) and restitution.
//!
//! They run over [`ConstraintLanes`]: four constraints of one colour at a time, one per
//! SIMD lane (see `lanes.rs`). Each group reads its bodies' velocities, solves, and writes
//! back only the bodies contacts can move (finite mass); the static stand-in and kinematic
//! bodies are never written. The rows r×d are formed from the current arms, so a velocity
//! along a direction is a few lane-wise products; an impulse turns each body by
//! I⁻¹(m × d), with m the moment arm of all the points' impulses together (Σλ_i·r_i), one
//! product with the lanes' inverse inertias per body and application.

use super::block::{solve_lanes, sweep_lanes, Factor};
use super::friction::{
    apply_friction, apply_twist, for_rolling_lanes, solve_friction, solve_rolling,
};
use super::lane_velocities::{arm_shift, arms, shift_now, Bodies, Tracking, Velocities};
use super::lanes::{valid_mask, ColdLanes, ConstraintLanes, PassFactors};
use super::simd::{f32x4, Vec3x4, LANES};
use super::StepContext;
use crate::physics::constants::RELAX_REGULARIZATION;
use crate::physics::narrow_phase::MAX_MANIFOLD_POINTS;

/// Which iteration of a sub-step: the biased one pushes penetration out (soft), the relax
/// one removes the velocity that pushing added (rigid, no bias).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// Before the positions move: friction, then the soft normal block.
    Biased,
    /// After the positions moved: the rigid normal block, then friction.
    Relax,
}

/// Applies one lane group's accumulated impulses at the current arms.
pub(crate) fn warm_start_lanes<B: Bodies + ?Sized>(
    bodies: &mut B,
    c: &mut ConstraintLanes,
    cold: &mut ColdLanes,
    positions_moved: bool,
) {
    let mut v = Velocities::load(bodies, c);
    shift_now(c, bodies, positions_moved);
    // The points' normal impulses at once, as in `solve_normal`.
    let (mut total, mut moment_a, mut moment_b) = (f32x4::ZERO, Vec3x4::ZERO, Vec3x4::ZERO);
    for p in &c.points[..c.count] {
        total += p.normal_impulse;
        moment_a += p.normal_impulse * p.anchor_a;
        moment_b += p.normal_impulse * p.anchor_b;
    }
    apply_normal(c, &mut v, total, (moment_a, moment_b));
    let arms = arms(c, c.centre_a, c.centre_b);
    apply_friction(c, &mut v, c.tangents(), arms, c.friction_impulse);
    apply_twist(c, &mut v, c.twist_impulse);
    if c.any_rolling {
        for_rolling_lanes(
            c,
            cold,
            bodies,
            &mut v,
            |rolling, _, inertia_a, inertia_b, wa, wb| {
                *wa -= *inertia_a * rolling.impulse;
                *wb += *inertia_b * rolling.impulse;
            },
        );
    }
    v.store(bodies, c);
}

/// One iteration over a lane group's contacts (see [`Pass`] for the order within a
/// contact).
/// `positions_moved`: the bodies moved since the last pass (or since packing), so each
/// point's separation is tracked again; otherwise the last pass's is still right (the relax
/// pass and the next sub-step's biased pass see the same positions).
pub(crate) fn solve_contact_lanes<B: Bodies + ?Sized>(
    bodies: &mut B,
    c: &mut ConstraintLanes,
    cold: &mut ColdLanes,
    factors: &mut PassFactors,
    ctx: &StepContext,
    pass: Pass,
    positions_moved: bool,
) {
    let mut v = Velocities::load(bodies, c);
    if positions_moved {
        let tracking = Tracking::current(c, bodies);
        for (p, &start) in c.points[..c.count].iter_mut().zip(&cold.separation) {
            p.separation_now = tracking.separation(p, start);
        }
        c.shift = arm_shift(c, tracking.moved);
    }
    match pass {
        Pass::Biased => {
            solve_friction(c, &mut v, pass);
            solve_normal(c, cold, factors, &mut v, ctx, pass);
        }
        Pass::Relax => {
            solve_normal(c, cold, factors, &mut v, ctx, pass);
            solve_friction(c, &mut v, pass);
        }
    }
    if c.any_rolling {
        solve_rolling(c, cold, bodies, &mut v);
    }
    v.store(bodies, c);
}

/// The manifold's normal constraints as one block (see the module notes and `block.rs`).
///
/// Per point i, with v_i the normal velocity and s_i the separation now:
/// separated (s > 0):   r_i = −(v_i + s_i/h),            A_ii = K_ii·(1 + ε)
/// biased pass:         r_i = −(v_i + b_i) − γ_i·λ_i,     A_ii = K_ii + γ_i,
///                      b_i = max(bias_rate·s_i, −max push speed)
/// relax pass:          r_i = −v_i,                       A_ii = K_ii·(1 + ε)
///
/// Four lanes at once throughout: the right-hand sides, then the blocks ([`block_delta`]),
/// or a single row where every lane's manifold has one point.
fn solve_normal(
    c: &mut ConstraintLanes,
    cold: &mut ColdLanes,
    factors: &mut PassFactors,
    v: &mut Velocities,
    ctx: &StepContext,
    pass: Pass,
) {
    let normal = c.normal;
    let zero = f32x4::ZERO;
    let regularised = f32x4::splat(1.0 + RELAX_REGULARIZATION);
    let inv_h = f32x4::splat(ctx.inv_h);
    let max_push = f32x4::splat(-ctx.max_push_velocity);
    let mut rhs = [zero; MAX_MANIFOLD_POINTS];
    let mut diagonal = [zero; MAX_MANIFOLD_POINTS];
    // Which points are speculative, as the factorisation key of every lane (biased pass).
    let mut keys = ALL_TOUCHING;
    // v_n = n·(v_b − v_a) + ω_b·(r_b×n) − ω_a·(r_a×n), and ω·(r×n) = r·(n×ω): with the
    // arms r_a = anchor_a + s, r_b = anchor_b − s, the part the points share is
    // n·(v_b − v_a) − s·(n×ω_a + n×ω_b), and each point adds anchor_b·(n×ω_b) −
    // anchor_a·(n×ω_a).
    let (spin_a, spin_b) = (normal.cross(v.angular_a), normal.cross(v.angular_b));
    let shared = normal.dot(v.linear_b - v.linear_a) - c.shift.dot(spin_a + spin_b);
    for (j, p) in c.points[..c.count].iter_mut().enumerate() {
        let vn = shared + p.anchor_b.dot(spin_b) - p.anchor_a.dot(spin_a);
        let separation = p.separation_now;
        let separated = separation.simd_gt(zero);
        // Speculative: allow closing the gap this sub-step, no more. Rigid, but with the
        // relax pass's regularisation: four speculative corners of a face leave K
        // singular (rank 3), and the direct solve needs it positive definite.
        let closing = -(vn + separation * inv_h);
        (rhs[j], diagonal[j]) = match pass {
            Pass::Biased => {
                if c.any_bouncy {
                    // Not pushed yet this step: this is the approach speed before impact.
                    let approach = &mut cold.relative_velocity[j];
                    *approach = p.max_normal_impulse.simd_eq(zero).select(vn, *approach);
                }
                let bias = (c.bias_rate * separation).max(max_push);
                let compliance = p.compliance(c.compliance_scale);
                let soft = -(vn + bias) - compliance * p.normal_impulse;
                (
                    separated.select(closing, soft),
                    separated.select(p.diagonal * regularised, p.diagonal + compliance),
                )
            }
            Pass::Relax => (separated.select(closing, -vn), p.diagonal * regularised),
        };
        if let Pass::Biased = pass {
            keys |= lane_keys(separated.to_bitmask()) << (j + 1);
        }
    }
    let delta = if c.count == 1 {
        // One point in every lane (spheres, a capsule's side): the LCP of one unknown,
        // Δ = r/A_00, which the clamp below keeps from pulling.
        let usable = c.lane_counts.simd_gt(zero) & diagonal[0].simd_gt(zero);
        let d = rhs[0] / diagonal[0];
        let mut delta = [zero; MAX_MANIFOLD_POINTS];
        delta[0] = (usable & d.is_finite()).select(d, zero);
        delta
    } else {
        block_delta(c, cold, factors, &rhs, &diagonal, keys)
    };
    // All the points' impulses at once (`apply_normal`).
    let (mut total_applied, mut moment_a, mut moment_b) = (zero, Vec3x4::ZERO, Vec3x4::ZERO);
    for (p, &delta) in c.points[..c.count].iter_mut().zip(&delta) {
        let total = (p.normal_impulse + delta).max(zero);
        let applied = total - p.normal_impulse;
        p.normal_impulse = total;
        p.max_normal_impulse = p.max_normal_impulse.max(applied);
        total_applied += applied;
        moment_a += applied * p.anchor_a;
        moment_b += applied * p.anchor_b;
    }
    apply_normal(c, v, total_applied, (moment_a, moment_b));
}

/// Applies normal impulses λ_i whose sum is `total` at anchors whose moments are
/// `moments` (Σλ_i·anchor_i, for each body). The arms are anchor + s for A and anchor − s
/// for B, so A turns by I_a⁻¹((Σλ_i·anchor_a,i + (Σλ_i)·s) × n), and B likewise with −s:
/// one product with each body's inverse inertia, however many points.
#[inline(always)]
fn apply_normal(c: &ConstraintLanes, v: &mut Velocities, total: f32x4, moments: (Vec3x4, Vec3x4)) {
    let shifted = total * c.shift;
    let (moment_a, moment_b) = (moments.0 + shifted, moments.1 - shifted);
    v.linear_a -= (c.inv_mass_a * total) * c.normal;
    v.angular_a -= c.turn_a(moment_a.cross(c.normal));
    v.linear_b += (c.inv_mass_b * total) * c.normal;
    v.angular_b += c.turn_b(moment_b.cross(c.normal));
}

/// Bits per lane of a packed factorisation key ([`PassFactors::keys`]).
const KEY_BITS: usize = MAX_MANIFOLD_POINTS + 1;
const KEY_MASK: u32 = (1 << KEY_BITS) - 1;

/// The key of four lanes with every point touching: 1 in each lane's field.
pub(crate) const ALL_TOUCHING: u32 = lane_keys(0b1111);

/// Bit l of `mask` (a lane mask) moved to the lowest bit of lane l's key field: the four
/// bits times 0x1111 are four copies of them 4 bits apart, and copy l holds lane l's bit at
/// 5l (no two copies overlap, so nothing carries).
#[inline]
const fn lane_keys(mask: u32) -> u32 {
    const _: () = assert!(KEY_BITS == 5 && LANES == 4);
    (mask & 0b1111).wrapping_mul(0x1111) & 0x8421
}

/// The normal block's Δ of lanes with up to four points, given the pass's right-hand sides,
/// diagonal and each lane's factorisation key (see [`PassFactors::keys`]: which points are
/// speculative).
fn block_delta(
    c: &mut ConstraintLanes,
    cold: &ColdLanes,
    factors: &mut PassFactors,
    rhs: &[f32x4; MAX_MANIFOLD_POINTS],
    diagonal: &[f32x4; MAX_MANIFOLD_POINTS],
    keys: u32,
) -> [f32x4; MAX_MANIFOLD_POINTS] {
    let zero = f32x4::ZERO;
    // Each lane's block: its cached factorisation is refreshed when the pass's matrix
    // changed (it depends on the pass and, in the biased pass, on which points are
    // speculative: that is the key; speculative or not, a relax-pass entry is K_ii·(1 + ε)).
    // A lane with nothing pushing or approaching keeps Δ = 0; the others try the common
    // case, every point pushing, four lanes at once, and sweep if it fails (`block.rs`).
    let lambda: [f32x4; MAX_MANIFOLD_POINTS] = std::array::from_fn(|j| c.points[j].normal_impulse);
    let exists = c.exists();
    // Resting apart: every point's λ = 0 and r ≤ 0, so Δ = 0 meets every condition. A lane
    // with a manifold has a point 0.
    let mut apart = exists[0];
    for j in 0..c.count {
        let resting = lambda[j].simd_eq(zero) & rhs[j].simd_le(zero);
        apart &= resting | !exists[j];
    }
    let working = (exists[0] & !apart).to_bitmask();
    if keys != factors.keys {
        for l in (0..LANES).filter(|l| working & (1 << l) != 0) {
            let lane = KEY_MASK << (KEY_BITS * l);
            if factors.keys & lane == keys & lane {
                continue;
            }
            let a: [[f32; MAX_MANIFOLD_POINTS]; MAX_MANIFOLD_POINTS] = std::array::from_fn(|i| {
                std::array::from_fn(|j| {
                    let k = if i == j { diagonal[i] } else { cold.k[i][j] };
                    k.as_array()[l]
                })
            });
            let factor = Factor::whole(&a, cold.counts[l]);
            factors.factors.set_lane(l, factor.as_ref());
            factors.keys = (factors.keys & !lane) | (keys & lane);
            factors.valid.as_mut_array()[l] = valid_mask(factor.is_some());
        }
    }
    let mut delta = [zero; MAX_MANIFOLD_POINTS];
    let solved = solve_lanes(
        &factors.factors,
        rhs,
        &lambda,
        &exists,
        factors.valid & exists[0] & !apart,
        &mut delta,
    );
    let left = exists[0] & !apart & !solved;
    if left.any() {
        sweep_lanes(&cold.k, diagonal, &exists, left, rhs, &lambda, &mut delta);
    }
    delta
}

/// One kind of per-lane-group work of the sub-steps (`group.rs`).
/// `positions_moved`: the bodies moved since the last pass (or since packing), so the arms'
/// shift (and, for a pass, each point's separation) is measured again; otherwise the last
/// pass's is still right (the relax pass, the next sub-step's warm start and biased pass
/// see the same positions).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Work {
    WarmStart { positions_moved: bool },
    Solve { pass: Pass, positions_moved: bool },
    Restitution { positions_moved: bool },
}

impl Work {
    /// One biased or relax pass.
    pub const fn solve(pass: Pass, positions_moved: bool) -> Work {
        Work::Solve {
            pass,
            positions_moved,
        }
    }

    /// The warm start.
    pub const fn warm_start(positions_moved: bool) -> Work {
        Work::WarmStart { positions_moved }
    }

    /// Restitution.
    pub const fn restitution(positions_moved: bool) -> Work {
        Work::Restitution { positions_moved }
    }

    /// Which pass's factorisations the work uses (see [`PassFactors`]): 1 for a relax
    /// pass, 0 for the rest (only the biased pass reads them).
    pub const fn factors(self) -> usize {
        match self {
            Work::Solve {
                pass: Pass::Relax, ..
            } => 1,
            _ => 0,
        }
    }
}

/// Does `work` on one lane group.
#[inline]
pub(crate) fn run_lanes<B: Bodies + ?Sized>(
    work: Work,
    bodies: &mut B,
    c: &mut ConstraintLanes,
    cold: &mut ColdLanes,
    factors: &mut PassFactors,
    ctx: &StepContext,
) {
    match work {
        Work::WarmStart { positions_moved } => warm_start_lanes(bodies, c, cold, positions_moved),
        Work::Solve {
            pass,
            positions_moved,
        } => solve_contact_lanes(bodies, c, cold, factors, ctx, pass, positions_moved),
        Work::Restitution { positions_moved } => {
            restitution_lanes(bodies, c, cold, ctx, positions_moved)
        }
    }
}

/// Restitution: for points hit faster than the threshold, drive the normal velocity to
/// −e times the approach velocity (the bounce may take back at most the accumulated impulse,
/// which it leaves as it is).
pub(crate) fn restitution_lanes<B: Bodies + ?Sized>(
    bodies: &mut B,
    c: &mut ConstraintLanes,
    cold: &mut ColdLanes,
    ctx: &StepContext,
    positions_moved: bool,
) {
    let zero = f32x4::ZERO;
    let threshold = f32x4::splat(-ctx.restitution_threshold);
    let bouncy = cold.restitution.simd_gt(zero);
    if bouncy.none() {
        return;
    }
    let mut v = Velocities::load(bodies, c);
    let (normal, e) = (c.normal, cold.restitution);
    shift_now(c, bodies, positions_moved);
    let masses = (c.inv_mass_a, c.inv_mass_b);
    let (shift, inertia_a, inertia_b) = (c.shift, c.inv_inertia_a, c.inv_inertia_b);
    for (p, &approach) in c.points[..c.count].iter_mut().zip(&cold.relative_velocity) {
        let hit = bouncy & approach.simd_le(threshold) & p.max_normal_impulse.simd_ne(zero);
        if hit.none() {
            continue;
        }
        let (ra, rb) = (p.anchor_a + shift, p.anchor_b - shift);
        let (row_a, row_b) = (ra.cross(normal), rb.cross(normal));
        let vn = v.along(normal, row_a, row_b);
        // 1/K_ii (0 for an empty slot, K_ii = 0).
        let normal_mass = p
            .diagonal
            .simd_gt(zero)
            .select(f32x4::ONE / p.diagonal, zero);
        let delta = -normal_mass * (vn + e * approach);
        // The bounce is a one-off impulse, not part of what holds the contact: it stays out
        // of the accumulated impulse, which warm-starts the next step. (Kept in, it pushed
        // a ball that had just been hit away from its hitter again at the next step's warm
        // start, and a contact solved while that push was still in recorded the sum as its
        // approach speed: a Newton's cradle with gaps gained half its energy per hit.)
        let total = (p.normal_impulse + delta).max(zero);
        let applied = hit.select(total - p.normal_impulse, zero);
        p.max_normal_impulse = p.max_normal_impulse.max(applied);
        let turns = (inertia_a.mul_vec3(row_a), inertia_b.mul_vec3(row_b));
        v.apply(&masses, normal, applied, turns);
    }
    v.store(bodies, c);
}

#[cfg(test)]
mod tests {
    use super::super::body::SolverBody;
    use super::super::constraint::{ConstraintInput, ConstraintShared, PointInput};
    use super::super::friction::sticking;
    use super::super::lanes::PointImpulses;
    use super::super::Softness;
    use super::*;
    use crate::physics::collider::MixedMaterial;
    use crate::physics::constants::STICKING_FRACTION;
    use crate::physics::math::Vec3;

    /// A lane group with its cold block and both passes' factorisations.
    type Group = (ConstraintLanes, ColdLanes, [PassFactors; 2]);

    /// Lane groups of the constraints `inputs[indices]`, one group per slice.
    fn prepare(inputs: &[ConstraintInput], bodies: &[SolverBody], groups: &[&[u32]]) -> Vec<Group> {
        groups
            .iter()
            .map(|indices| {
                let (mut group, mut cold) = (ConstraintLanes::default(), ColdLanes::default());
                let mut factors = [PassFactors::default(); 2];
                let [biased, relax] = &mut factors;
                group.prepare(&mut cold, [biased, relax], inputs, indices, bodies);
                (group, cold, factors)
            })
            .collect()
    }

    /// `work` on every lane group in order.
    fn run(work: Work, bodies: &mut [SolverBody], lanes: &mut [Group], ctx: &StepContext) {
        for (c, cold, factors) in lanes {
            run_lanes(work, bodies, c, cold, &mut factors[work.factors()], ctx);
        }
    }

    /// The impulses of every constraint in `lanes`, by contact id.
    fn impulses(lanes: &[Group]) -> Vec<(u32, Vec<PointImpulses>)> {
        let mut all: Vec<_> = lanes
            .iter()
            .flat_map(|(group, cold, _)| (0..LANES).filter_map(|l| group.lane_impulses(cold, l)))
            .map(|i| (i.contact, i.points[..i.count].to_vec()))
            .collect();
        all.sort_by_key(|(contact, _)| *contact);
        all
    }

    /// One pass over `inputs`, each in a lane group of its own; the points' impulses after
    /// it.
    fn solve_once(
        bodies: &mut [SolverBody],
        inputs: &[ConstraintInput],
        ctx: &StepContext,
        pass: Pass,
    ) -> Vec<PointImpulses> {
        let groups: Vec<[u32; 1]> = (0..inputs.len() as u32).map(|i| [i]).collect();
        let groups: Vec<&[u32]> = groups.iter().map(|g| &g[..]).collect();
        let mut lanes = prepare(inputs, bodies, &groups);
        run(Work::solve(pass, false), bodies, &mut lanes, ctx);
        impulses(&lanes).into_iter().flat_map(|(_, p)| p).collect()
    }

    #[test]
    fn contacts_well_inside_their_friction_cone_or_unloaded_stick() {
        // μ = 0.5, Σλ_n = 10, Σλ_n·d = 2 (limits 5 across and 1 about the normal; the
        // sticking bounds are STICKING_FRACTION = 0.8 of them: 4 and 0.8).
        // lane 0: |λ_t| = 3.9, twist 0.5: sticks;  lane 1: |λ_t| = 4.1: near sliding;
        // lane 2: nothing carried and no load: sticks (its rows would do nothing);
        // lane 3: |λ_t| = 1 with twist 0.9 past 0.8: turning, does not stick.
        assert_eq!(STICKING_FRACTION, 0.8);
        let mut c = ConstraintLanes {
            friction: f32x4::splat(0.5),
            friction_impulse: [
                f32x4::new([0.0, 4.1, 0.0, 0.6]),
                f32x4::new([3.9, 0.0, 0.0, 0.8]),
            ],
            twist_impulse: f32x4::new([0.5, 0.0, 0.0, -0.9]),
            ..ConstraintLanes::default()
        };
        let total = f32x4::new([10.0, 10.0, 0.0, 10.0]);
        let twist_limit = f32x4::new([2.0, 2.0, 0.0, 2.0]);
        assert_eq!(sticking(&c, total, twist_limit).to_bitmask(), 0b0101);
        // Unloaded but still carrying a friction impulse (the biased rows take it back to
        // zero): lane 2 no longer sticks.
        c.friction_impulse[0] = f32x4::new([0.0, 4.1, 0.1, 0.6]);
        assert_eq!(sticking(&c, total, twist_limit).to_bitmask(), 0b0001);
    }

    fn context(h: f32) -> StepContext {
        StepContext {
            h,
            inv_h: 1.0 / h,
            contact_softness: Softness::RIGID,
            static_softness: Softness::RIGID,
            max_push_velocity: 3.0,
            restitution_threshold: 1.0,
            max_angular_speed: 100.0,
        }
    }

    /// The four bottom corners of a unit cube (B) resting on the ground (A) at y = 0, each
    /// warm-started with `normal_impulse`.
    fn bottom_corners(normal_impulse: f32) -> Vec<PointInput> {
        [(0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5), (0.5, -0.5)]
            .iter()
            .map(|&(x, z)| PointInput {
                anchor_a: Vec3::new(x, 0.5, z),
                anchor_b: Vec3::new(x, -0.5, z),
                depth: 0.0,
                normal_impulse,
                tangent_impulse: Vec3::ZERO,
            })
            .collect()
    }

    fn shared(normal: Vec3, softness: Softness) -> ConstraintShared {
        ConstraintShared {
            contact: 0,
            normal,
            material: MixedMaterial::default(),
            rolling_impulse: Vec3::ZERO,
            twist_impulse: 0.0,
            softness,
            warm_start: true,
        }
    }

    #[test]
    fn packed_keys_put_each_lanes_bit_in_its_field() {
        // Lane l's field (bits 5l..5l+5) gets bit l of the mask at its bottom, and nothing
        // else: the per-lane definition, key_l = (mask >> l) & 1, for every mask.
        for mask in 0..16u32 {
            let packed = lane_keys(mask);
            for l in 0..LANES {
                assert_eq!(
                    (packed >> (KEY_BITS * l)) & KEY_MASK,
                    (mask >> l) & 1,
                    "{mask:04b}"
                );
            }
        }
        assert_eq!(ALL_TOUCHING, 0b00001_00001_00001_00001);
    }

    #[test]
    fn head_on_impulse_stops_equal_masses() {
        // Two unit masses closing at 2 m/s along x, touching: one rigid iteration gives the
        // perfectly inelastic result, both at rest (momentum 0 before and after), up to the
        // relax block's regularisation ε: Δλ = Δv/(K(1 + ε)) leaves ε/(1 + ε) of each
        // body's 1 m/s.
        let mut bodies = [
            SolverBody::STATIC,
            SolverBody::unit_cube(Vec3::X),
            SolverBody::unit_cube(-Vec3::X),
        ];
        let input = PointInput {
            anchor_a: Vec3::new(0.5, 0.0, 0.0),
            anchor_b: Vec3::new(-0.5, 0.0, 0.0),
            depth: 0.0,
            normal_impulse: 0.0,
            tangent_impulse: Vec3::ZERO,
        };
        let c = [ConstraintInput::new(
            1,
            2,
            &[input],
            shared(Vec3::X, Softness::RIGID),
        )];
        let points = solve_once(&mut bodies, &c, &context(0.01), Pass::Relax);
        let eps = RELAX_REGULARIZATION / (1.0 + RELAX_REGULARIZATION);
        for body in &bodies[1..] {
            assert!((body.linear_velocity.length() - eps).abs() < 1e-6);
        }
        // λ = m_eff·Δv/(1 + ε) = 0.5·2/(1 + ε) N·s.
        let expected = 1.0 / (1.0 + RELAX_REGULARIZATION);
        assert!((points[0].normal - expected).abs() < 1e-6);
    }

    #[test]
    fn a_falling_box_lands_flat_on_all_four_corners_at_once() {
        // A unit cube falling flat at 1 m/s onto the static ground, four corner points: one
        // rigid block solve stops it without turning it (ω stays 0, each corner takes a
        // quarter of m·v = 0.25 N·s, less the regularisation's share ε/(1 + ε)). A
        // point-by-point sweep would give the first corner more and spin the cube.
        let mut bodies = [
            SolverBody::STATIC,
            SolverBody::unit_cube(Vec3::new(0.0, -1.0, 0.0)),
        ];
        let inputs = bottom_corners(0.0);
        // Ground is A (static, index 0), the cube B; normal from A to B is +y.
        let c = [ConstraintInput::new(
            0,
            1,
            &inputs,
            shared(Vec3::Y, Softness::RIGID),
        )];
        let points = solve_once(&mut bodies, &c, &context(0.01), Pass::Relax);
        let eps = RELAX_REGULARIZATION / (1.0 + RELAX_REGULARIZATION);
        let v = bodies[1].linear_velocity;
        assert!(
            (v.y + eps).abs() < 1e-6 && v.x == 0.0 && v.z == 0.0,
            "{v:?}"
        );
        assert!(
            bodies[1].angular_velocity.length() < 1e-6,
            "{:?}",
            bodies[1].angular_velocity
        );
        // Four coplanar corners leave K singular: impulses alternating ±δ round the square
        // change no velocity, and f32 rounding in the regularised solve (conditioning ~1/ε)
        // may leave such a δ of order 10⁻⁷/ε. The sum is exact.
        assert_eq!(points.len(), 4);
        let total: f32 = points.iter().map(|p| p.normal).sum();
        assert!((total - (1.0 - eps)).abs() < 1e-5, "{total}");
        for p in &points {
            assert!((p.normal - 0.25).abs() < 1e-3, "{}", p.normal);
        }
        // The stand-in was never written.
        assert_eq!(bodies[0].linear_velocity, Vec3::ZERO);
    }

    #[test]
    fn the_biased_block_rests_at_the_spring_depth() {
        // A unit cube on the ground, its weight m·g·h per sub-step carried by four points:
        // the soft block's fixed point at zero velocity is γ_i·λ_i = −b_i, i.e. each point
        // rests at separation s = −γ·λ/bias_rate, the spring depth (see the module notes).
        let h = 1.0 / 240.0;
        let soft = Softness::new(60.0, 10.0, h);
        let mut bodies = [SolverBody::STATIC, SolverBody::unit_cube(Vec3::ZERO)];
        let load = 9.81 * h / 4.0;
        let mut inputs = bottom_corners(load);
        let c = [ConstraintInput::new(0, 1, &inputs, shared(Vec3::Y, soft))];
        let lanes = &prepare(&c, &bodies, &[&[0]])[0].0;
        let gamma = lanes.points[0]
            .compliance(lanes.compliance_scale)
            .as_array()[0];
        let depth = gamma * load / soft.bias_rate;
        for p in &mut inputs {
            p.depth = depth;
        }
        let c = [ConstraintInput::new(0, 1, &inputs, shared(Vec3::Y, soft))];
        let mut ctx = context(h);
        ctx.static_softness = soft;
        let points = solve_once(&mut bodies, &c, &ctx, Pass::Biased);
        // At the fixed point nothing changes: no velocity, the same impulses.
        assert!(bodies[1].linear_velocity.length() < 1e-6);
        for p in &points {
            assert!((p.normal - load).abs() < 1e-6 * load.max(1.0));
        }
        // And that depth is the weight over the spring stiffness k = ω²/K_ii per point:
        // (m·g/4)·K_ii/ω² with K_ii = 1 + 6·½ = 4 for a corner of a unit cube on the ground.
        let omega = 2.0 * std::f32::consts::PI * 60.0;
        let spring_depth = (9.81 / 4.0) * 4.0 / (omega * omega);
        assert!(
            (depth - spring_depth).abs() < 0.01 * spring_depth,
            "{depth} vs {spring_depth}"
        );
    }

    #[test]
    fn four_lanes_compute_what_four_constraints_solved_alone_do() {
        // Four cubes, each landing on the ground differently (tilted, sliding, spinning,
        // one with three points): a colour's constraints touch disjoint bodies, so solving
        // them in one lane group must give the same bits as solving each on its own.
        let h = 1.0 / 240.0;
        let mut ctx = context(h);
        ctx.static_softness = Softness::new(60.0, 10.0, h);
        let velocities = [
            (Vec3::new(0.0, -1.0, 0.0), Vec3::ZERO),
            (Vec3::new(0.7, -0.3, 0.1), Vec3::new(0.0, 0.5, 0.0)),
            (Vec3::new(-0.2, -2.0, 0.4), Vec3::new(1.0, 0.0, -0.3)),
            (Vec3::new(0.0, -0.5, -1.0), Vec3::new(0.2, 0.2, 0.2)),
        ];
        let mut bodies = vec![SolverBody::STATIC];
        bodies.extend(velocities.iter().map(|&(v, w)| SolverBody {
            angular_velocity: w,
            ..SolverBody::unit_cube(v)
        }));
        let constraints: Vec<_> = (1..=4u32)
            .map(|i| {
                let mut inputs = bottom_corners(0.01 * i as f32);
                inputs.truncate(if i == 4 { 3 } else { 4 });
                for (k, p) in inputs.iter_mut().enumerate() {
                    p.depth = 0.001 * (k as f32 - 1.0) * i as f32;
                }
                let shared = ConstraintShared {
                    contact: i,
                    ..shared(Vec3::Y, ctx.static_softness)
                };
                ConstraintInput::new(0, i, &inputs, shared)
            })
            .collect();
        let run = |groups: &[&[u32]]| {
            let mut bodies = bodies.clone();
            let mut lanes = prepare(&constraints, &bodies, groups);
            run(Work::warm_start(false), &mut bodies, &mut lanes, &ctx);
            for pass in [Pass::Biased, Pass::Relax, Pass::Biased] {
                run(Work::solve(pass, false), &mut bodies, &mut lanes, &ctx);
            }
            (bodies, impulses(&lanes))
        };
        let (together, together_c) = run(&[&[0, 1, 2, 3]]);
        let (alone, alone_c) = run(&[&[0], &[1], &[2], &[3]]);
        for (x, y) in together.iter().zip(&alone) {
            assert_eq!(x.linear_velocity, y.linear_velocity);
            assert_eq!(x.angular_velocity, y.angular_velocity);
        }
        assert_eq!(together_c.len(), 4);
        assert_eq!(together_c, alone_c);
        // And the solve did something: every constraint pushed its cube up.
        for (_, points) in &together_c {
            let total: f32 = points.iter().map(|p| p.normal).sum();
            assert!(total > 0.0, "{total}");
        }
    }
}
