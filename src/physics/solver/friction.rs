//! Friction, twist friction and rolling resistance of a lane group's contacts: the rows
//! along the two tangents and about the normal, bounded by μ times the normal impulse.

use super::contact_solve::Pass;
use super::lane_velocities::{arms, Bodies, Velocities};
use super::lanes::{ColdLanes, ConstraintLanes};
use super::simd::{f32x4, Vec3x4, LANES};
use crate::physics::constants::STICKING_FRACTION;
use crate::physics::math::Vec3;

/// The lanes whose friction the biased pass can leave to the relax pass: no load and no
/// friction impulse (the rows would do nothing: their limit is zero), or friction impulses
/// within [`STICKING_FRACTION`] of their Coulomb limits (μ·Σλ_n across, μ·Σλ_n,i·d_i about
/// the normal), where the biased rows would only answer the kick and the warm start, which
/// undo each other up to what the relax pass left over (see the module notes).
#[inline(always)]
pub(super) fn sticking(c: &ConstraintLanes, total: f32x4, twist_limit: f32x4) -> f32x4 {
    let zero = f32x4::ZERO;
    let [t0, t1] = c.friction_impulse;
    let len2 = t0 * t0 + t1 * t1;
    let twist = c.twist_impulse;
    let unloaded = total.simd_eq(zero) & len2.simd_eq(zero) & twist.simd_eq(zero);
    let fraction = f32x4::splat(STICKING_FRACTION) * c.friction;
    let (max, twist_max) = (fraction * total, fraction * twist_limit);
    let within = total.simd_gt(zero) & len2.simd_le(max * max) & twist.abs().simd_le(twist_max);
    unloaded | within
}

/// Coulomb friction of the whole manifold (as Rapier's and Bepu's contact constraints):
/// - at its centre, the two directions together: λ_t ← clamp(λ_t − M_t·v_t,
///   |λ_t| ≤ μ·Σλ_n) with M_t the inverse 2×2 tangent mass matrix at the centre;
/// - about its normal (twist): τ ← clamp(τ − w/(n·(I_a⁻¹ + I_b⁻¹)n), |τ| ≤ μ·Σλ_n,i·d_i)
///   with w the relative spin about the normal and d_i each point's distance from the
///   centre across the normal.
///
/// Three rows per manifold in place of two per point: the passes' most repeated work.
pub(super) fn solve_friction(c: &mut ConstraintLanes, v: &mut Velocities, pass: Pass) {
    let (mut total, mut twist_limit) = (f32x4::ZERO, f32x4::ZERO);
    for p in &c.points[..c.count] {
        total += p.normal_impulse;
        twist_limit += p.normal_impulse * p.lever;
    }
    if let Pass::Biased = pass {
        if sticking(c, total, twist_limit).all() {
            return;
        }
    }
    let tangents = c.tangents();
    let (ra, rb) = arms(c, c.centre_a, c.centre_b);
    let relative = v.at_point(ra, rb);
    let (v0, v1) = (tangents[0].dot(relative), tangents[1].dot(relative));
    let m = c.friction_mass;
    let old = c.friction_impulse;
    let mut new = [
        old[0] - (m[0] * v0 + m[1] * v1),
        old[1] - (m[1] * v0 + m[2] * v1),
    ];
    let max = c.friction * total;
    let len2 = new[0] * new[0] + new[1] * new[1];
    let over = len2.simd_gt(max * max);
    if over.any() {
        let scale = over.select(max / len2.sqrt(), f32x4::ONE);
        new = [new[0] * scale, new[1] * scale];
    }
    c.friction_impulse = new;
    apply_friction(c, v, tangents, (ra, rb), [new[0] - old[0], new[1] - old[1]]);
    // Twist (none where every lane's manifold is a single point, like two spheres': no
    // lever, no twist).
    let limit = c.friction * twist_limit;
    if !limit.simd_gt(f32x4::ZERO).any() && !c.twist_impulse.simd_ne(f32x4::ZERO).any() {
        return;
    }
    let spin = c.normal.dot(v.angular_b - v.angular_a);
    let old = c.twist_impulse;
    let new = (old - c.twist_mass * spin).max(-limit).min(limit);
    c.twist_impulse = new;
    let d = new - old;
    apply_twist(c, v, d);
}

/// Applies friction impulses `[d0, d1]` along the tangents `[t0, t1]` at the manifold's
/// centre, whose arms are now `(ra, rb)`: the impulse p = d0·t0 + d1·t1 turns each body by
/// I⁻¹(r × p).
#[inline(always)]
pub(super) fn apply_friction(
    c: &ConstraintLanes,
    v: &mut Velocities,
    [t0, t1]: [Vec3x4; 2],
    (ra, rb): (Vec3x4, Vec3x4),
    [d0, d1]: [f32x4; 2],
) {
    let impulse = d0 * t0 + d1 * t1;
    v.linear_a -= c.inv_mass_a * impulse;
    v.angular_a -= c.turn_a(ra.cross(impulse));
    v.linear_b += c.inv_mass_b * impulse;
    v.angular_b += c.turn_b(rb.cross(impulse));
}

/// Applies a twist impulse `d` about the normal: each body turns by d·I⁻¹n.
#[inline(always)]
pub(super) fn apply_twist(c: &ConstraintLanes, v: &mut Velocities, d: f32x4) {
    let moment = d * c.normal;
    v.angular_a -= c.turn_a(moment);
    v.angular_b += c.turn_b(moment);
}

/// Runs `f` on every lane with rolling resistance: its rolling data, its total normal
/// impulse, the bodies' inverse inertias and the lane's angular velocities.
pub(super) fn for_rolling_lanes<B: Bodies + ?Sized>(
    c: &ConstraintLanes,
    cold: &mut ColdLanes,
    bodies: &B,
    v: &mut Velocities,
    mut f: impl FnMut(
        &mut super::lanes::RollingLane,
        f32,
        &crate::physics::math::Mat3,
        &crate::physics::math::Mat3,
        &mut Vec3,
        &mut Vec3,
    ),
) {
    for l in 0..LANES {
        if cold.rolling[l].resistance <= 0.0 {
            continue;
        }
        let total_normal: f32 = c.points[..cold.counts[l]]
            .iter()
            .map(|p| p.normal_impulse.as_array()[l])
            .sum();
        let (mut wa, mut wb) = (v.angular_a.lane(l), v.angular_b.lane(l));
        let inertia_a = &bodies.at(c.body_a[l]).inv_inertia;
        let inertia_b = &bodies.at(c.body_b[l]).inv_inertia;
        f(
            &mut cold.rolling[l],
            total_normal,
            inertia_a,
            inertia_b,
            &mut wa,
            &mut wb,
        );
        v.angular_a.set_lane(l, wa);
        v.angular_b.set_lane(l, wb);
    }
}

/// Rolling resistance: an angular impulse against the relative spin, at most (lever arm ×
/// total normal impulse), like Coulomb friction for rotation.
pub(super) fn solve_rolling<B: Bodies + ?Sized>(
    c: &ConstraintLanes,
    cold: &mut ColdLanes,
    bodies: &B,
    v: &mut Velocities,
) {
    for_rolling_lanes(
        c,
        cold,
        bodies,
        v,
        |rolling, total_normal, inertia_a, inertia_b, wa, wb| {
            let max = rolling.resistance * total_normal;
            let old = rolling.impulse;
            let mut new = old - rolling.mass * (*wb - *wa);
            if new.length_squared() > max * max {
                new = new.normalize_or_zero() * max;
            }
            rolling.impulse = new;
            let delta = new - old;
            *wa -= *inertia_a * delta;
            *wb += *inertia_b * delta;
        },
    );
}
