//! The iterations over contact constraints: warm start, the biased and relax passes
//! (friction, the normal block, rolling resistance) and restitution.

use super::block::solve_block;
use super::body::SolverBody;
use super::constraint::{ConstraintPoint, ContactConstraint};
use super::StepContext;
use crate::physics::constants::RELAX_REGULARIZATION;
use crate::physics::math::Vec3;
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

/// The separation of a point now, during the step (Box2D v3): the two material points are
/// moved with their bodies (Δx and Δq),
/// s = s₀ + n·((Δx_b + Δq_b·r_b) − (Δx_a + Δq_a·r_a) − (r_b − r_a)).
#[inline]
fn current_separation(p: &ConstraintPoint, a: &SolverBody, b: &SolverBody, normal: Vec3) -> f32 {
    let d = b.delta_position - a.delta_position;
    let moved = d + b.delta_rotation * p.anchor_b - a.delta_rotation * p.anchor_a;
    p.separation + normal.dot(moved - (p.anchor_b - p.anchor_a))
}

/// The impulse arms of a point now, during the step.
///
/// They follow each body's translation but not its rotation, because the contact point of
/// a rolling or turning body stays where the bodies touch, not on the material point
/// (rotating the arms would give a rolling ball a false normal velocity ω × Δ). Between two
/// dynamic bodies both arms follow half the bodies' relative translation during the step,
/// so the gap between the two anchors does not grow while the bodies slide; against static
/// or kinematic bodies the dynamic body's own arm is used as it is.
#[inline]
fn current_arms(p: &ConstraintPoint, a: &SolverBody, b: &SolverBody, shared: bool) -> (Vec3, Vec3) {
    if shared {
        let half = 0.5 * (b.delta_position - a.delta_position);
        (p.anchor_a + half, p.anchor_b - half)
    } else {
        (p.anchor_a, p.anchor_b)
    }
}

/// Applies the impulse `impulse` (from A to B) at anchors `ra`, `rb`.
#[inline]
fn apply(a: &mut SolverBody, b: &mut SolverBody, ra: Vec3, rb: Vec3, impulse: Vec3) {
    a.linear_velocity -= a.inv_mass * impulse;
    a.angular_velocity -= a.inv_inertia * ra.cross(impulse);
    b.linear_velocity += b.inv_mass * impulse;
    b.angular_velocity += b.inv_inertia * rb.cross(impulse);
}

/// Relative velocity of B's point over A's point.
#[inline]
fn relative_velocity(a: &SolverBody, b: &SolverBody, ra: Vec3, rb: Vec3) -> Vec3 {
    b.linear_velocity + b.angular_velocity.cross(rb)
        - a.linear_velocity
        - a.angular_velocity.cross(ra)
}

/// Reads two bodies, runs `f` on them, writes back those that contacts can move. The static
/// stand-in (index 0) and kinematic bodies have infinite mass and are never written.
#[inline]
fn with_pair(
    bodies: &mut [SolverBody],
    ia: u32,
    ib: u32,
    f: impl FnOnce(&mut SolverBody, &mut SolverBody),
) {
    let (mut a, mut b) = (bodies[ia as usize], bodies[ib as usize]);
    f(&mut a, &mut b);
    if ia != 0 && a.is_dynamic() {
        bodies[ia as usize] = a;
    }
    if ib != 0 && b.is_dynamic() {
        bodies[ib as usize] = b;
    }
}

/// Applies the accumulated impulses at the current anchors.
pub(crate) fn warm_start(bodies: &mut [SolverBody], constraints: &[ContactConstraint]) {
    for c in constraints {
        with_pair(bodies, c.body_a, c.body_b, |a, b| {
            for p in &c.points[..c.count] {
                let (ra, rb) = current_arms(p, a, b, c.shared_point);
                let impulse = c.normal * p.normal_impulse + c.tangent_impulse_world(p);
                apply(a, b, ra, rb, impulse);
            }
            a.angular_velocity -= a.inv_inertia * c.rolling_impulse;
            b.angular_velocity += b.inv_inertia * c.rolling_impulse;
        });
    }
}

/// One iteration over all contacts (see [`Pass`] for the order within a contact).
pub(crate) fn solve_contacts(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    ctx: &StepContext,
    pass: Pass,
) {
    for c in constraints.iter_mut() {
        let (ia, ib) = (c.body_a, c.body_b);
        with_pair(bodies, ia, ib, |a, b| {
            match pass {
                Pass::Biased => {
                    solve_friction(c, a, b);
                    solve_normal(c, a, b, ctx, pass);
                }
                Pass::Relax => {
                    solve_normal(c, a, b, ctx, pass);
                    solve_friction(c, a, b);
                }
            }
            if c.rolling_resistance > 0.0 {
                solve_rolling(c, a, b);
            }
        });
    }
}

/// The manifold's normal constraints as one block (see the module notes and `block.rs`).
///
/// Per point i, with v_i the normal velocity and s_i the separation now:
/// separated (s > 0):   r_i = −(v_i + s_i/h),            A_ii = K_ii·(1 + ε)
/// biased pass:         r_i = −(v_i + b_i) − γ_i·λ_i,     A_ii = K_ii + γ_i,
///                      b_i = max(bias_rate·s_i, −max push speed)
/// relax pass:          r_i = −v_i,                       A_ii = K_ii·(1 + ε)
fn solve_normal(
    c: &mut ContactConstraint,
    a: &mut SolverBody,
    b: &mut SolverBody,
    ctx: &StepContext,
    pass: Pass,
) {
    let count = c.count;
    let normal = c.normal;
    let mut matrix = c.normal_k;
    let mut rhs = [0.0; MAX_MANIFOLD_POINTS];
    let mut lambda = [0.0; MAX_MANIFOLD_POINTS];
    let mut arms = [(Vec3::ZERO, Vec3::ZERO); MAX_MANIFOLD_POINTS];
    for (i, p) in c.points[..count].iter_mut().enumerate() {
        let (ra, rb) = current_arms(p, a, b, c.shared_point);
        arms[i] = (ra, rb);
        let vn = relative_velocity(a, b, ra, rb).dot(normal);
        let separation = current_separation(p, a, b, normal);
        lambda[i] = p.normal_impulse;
        if pass == Pass::Biased && p.max_normal_impulse == 0.0 {
            // Not pushed yet this step: this is the approach speed before impact.
            p.relative_velocity = vn;
        }
        rhs[i] = if separation > 0.0 {
            // Speculative: allow closing the gap this sub-step, no more. Rigid, but with the
            // relax pass's regularisation: four speculative corners of a face leave K
            // singular (rank 3), and the direct solve needs it positive definite.
            matrix[i][i] *= 1.0 + RELAX_REGULARIZATION;
            -(vn + separation * ctx.inv_h)
        } else if pass == Pass::Biased {
            matrix[i][i] += p.compliance;
            let bias = (c.bias_rate * separation).max(-ctx.max_push_velocity);
            -(vn + bias) - p.compliance * p.normal_impulse
        } else {
            matrix[i][i] *= 1.0 + RELAX_REGULARIZATION;
            -vn
        };
    }
    let delta = solve_block(&matrix, &rhs, &lambda, count);
    let (mut impulse, mut torque_a, mut torque_b) = (Vec3::ZERO, Vec3::ZERO, Vec3::ZERO);
    for (i, p) in c.points[..count].iter_mut().enumerate() {
        let total = (p.normal_impulse + delta[i]).max(0.0);
        let applied = total - p.normal_impulse;
        p.normal_impulse = total;
        p.max_normal_impulse = p.max_normal_impulse.max(applied);
        let push = normal * applied;
        impulse += push;
        torque_a += arms[i].0.cross(push);
        torque_b += arms[i].1.cross(push);
    }
    a.linear_velocity -= a.inv_mass * impulse;
    a.angular_velocity -= a.inv_inertia * torque_a;
    b.linear_velocity += b.inv_mass * impulse;
    b.angular_velocity += b.inv_inertia * torque_b;
}

/// Coulomb friction at every point, the two directions together:
/// λ_t ← clamp(λ_t − M_t·v_t, |λ_t| ≤ μ·λ_n) with M_t the inverse 2×2 tangent mass matrix.
fn solve_friction(c: &mut ContactConstraint, a: &mut SolverBody, b: &mut SolverBody) {
    let tangents = c.tangents;
    for p in &mut c.points[..c.count] {
        let (ra, rb) = current_arms(p, a, b, c.shared_point);
        let dv = relative_velocity(a, b, ra, rb);
        let (v0, v1) = (dv.dot(tangents[0]), dv.dot(tangents[1]));
        let m = p.tangent_mass;
        let old = p.tangent_impulse;
        let mut new = [
            old[0] - (m[0] * v0 + m[1] * v1),
            old[1] - (m[1] * v0 + m[2] * v1),
        ];
        let max = c.friction * p.normal_impulse;
        let len2 = new[0] * new[0] + new[1] * new[1];
        if len2 > max * max {
            let s = max / len2.sqrt();
            new = [new[0] * s, new[1] * s];
        }
        p.tangent_impulse = new;
        let impulse = tangents[0] * (new[0] - old[0]) + tangents[1] * (new[1] - old[1]);
        apply(a, b, ra, rb, impulse);
    }
}

/// Rolling resistance: an angular impulse against the relative spin, at most (lever arm ×
/// total normal impulse), like Coulomb friction for rotation.
fn solve_rolling(c: &mut ContactConstraint, a: &mut SolverBody, b: &mut SolverBody) {
    let total_normal: f32 = c.points[..c.count].iter().map(|p| p.normal_impulse).sum();
    let max = c.rolling_resistance * total_normal;
    let old = c.rolling_impulse;
    let spin = b.angular_velocity - a.angular_velocity;
    let mut new = old - c.rolling_mass * spin;
    if new.length_squared() > max * max {
        new = new.normalize_or_zero() * max;
    }
    c.rolling_impulse = new;
    let delta = new - old;
    a.angular_velocity -= a.inv_inertia * delta;
    b.angular_velocity += b.inv_inertia * delta;
}

/// Restitution: for points hit faster than the threshold, drive the normal velocity to
/// −e times the approach velocity (accumulated impulse stays ≥ 0).
pub(crate) fn apply_restitution(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    ctx: &StepContext,
) {
    for c in constraints.iter_mut().filter(|c| c.restitution > 0.0) {
        let (normal, e, count, shared) = (c.normal, c.restitution, c.count, c.shared_point);
        with_pair(bodies, c.body_a, c.body_b, |a, b| {
            for p in &mut c.points[..count] {
                if p.relative_velocity > -ctx.restitution_threshold || p.max_normal_impulse == 0.0 {
                    continue;
                }
                let (ra, rb) = current_arms(p, a, b, shared);
                let vn = relative_velocity(a, b, ra, rb).dot(normal);
                let delta = -p.normal_mass * (vn + e * p.relative_velocity);
                let total = (p.normal_impulse + delta).max(0.0);
                let applied = total - p.normal_impulse;
                p.normal_impulse = total;
                p.max_normal_impulse = p.max_normal_impulse.max(applied);
                apply(a, b, ra, rb, normal * applied);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::super::constraint::{ConstraintShared, PointInput};
    use super::super::Softness;
    use super::*;

    impl ContactConstraint {
        /// The points in use.
        fn points(&self) -> &[ConstraintPoint] {
            &self.points[..self.count]
        }
    }
    use crate::physics::collider::MixedMaterial;

    fn context(h: f32) -> StepContext {
        StepContext {
            h,
            inv_h: 1.0 / h,
            contact_softness: Softness::RIGID,
            static_softness: Softness::RIGID,
            max_push_velocity: 3.0,
            restitution_threshold: 1.0,
            max_linear_speed: 100.0,
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
            softness,
            warm_start: true,
        }
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
        let mut c = [ContactConstraint::prepare(
            (1, &bodies[1]),
            (2, &bodies[2]),
            &[input],
            &shared(Vec3::X, Softness::RIGID),
        )];
        solve_contacts(&mut bodies, &mut c, &context(0.01), Pass::Relax);
        let eps = RELAX_REGULARIZATION / (1.0 + RELAX_REGULARIZATION);
        for body in &bodies[1..] {
            assert!((body.linear_velocity.length() - eps).abs() < 1e-6);
        }
        // λ = m_eff·Δv/(1 + ε) = 0.5·2/(1 + ε) N·s.
        let expected = 1.0 / (1.0 + RELAX_REGULARIZATION);
        assert!((c[0].points[0].normal_impulse - expected).abs() < 1e-6);
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
        let mut c = [ContactConstraint::prepare(
            (0, &bodies[0]),
            (1, &bodies[1]),
            &inputs,
            &shared(Vec3::Y, Softness::RIGID),
        )];
        solve_contacts(&mut bodies, &mut c, &context(0.01), Pass::Relax);
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
        let total: f32 = c[0].points().iter().map(|p| p.normal_impulse).sum();
        assert!((total - (1.0 - eps)).abs() < 1e-5, "{total}");
        for p in c[0].points() {
            assert!(
                (p.normal_impulse - 0.25).abs() < 1e-3,
                "{}",
                p.normal_impulse
            );
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
        let inputs = bottom_corners(load);
        let mut c = ContactConstraint::prepare(
            (0, &bodies[0]),
            (1, &bodies[1]),
            &inputs,
            &shared(Vec3::Y, soft),
        );
        let gamma = c.points[0].compliance;
        let depth = gamma * load / soft.bias_rate;
        for p in &mut c.points[..4] {
            p.separation = -depth;
        }
        let mut cs = [c];
        let mut ctx = context(h);
        ctx.static_softness = soft;
        solve_contacts(&mut bodies, &mut cs, &ctx, Pass::Biased);
        // At the fixed point nothing changes: no velocity, the same impulses.
        assert!(bodies[1].linear_velocity.length() < 1e-6);
        for p in cs[0].points() {
            assert!((p.normal_impulse - load).abs() < 1e-6 * load.max(1.0));
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
}
