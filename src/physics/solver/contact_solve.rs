//! The iterations over contact constraints: warm start, the biased and relax passes
//! (friction, the normal block, rolling resistance) and restitution.
//!
//! Each constraint reads its two bodies' velocities, solves, and writes back only the bodies
//! contacts can move (finite mass); the static stand-in and kinematic bodies are never
//! written. The angular rows were computed once per step (`ConstraintPoint`), so a point's
//! velocity along a direction is three dot products and an impulse is three scaled
//! additions per body.

use super::block::solve_block;
use super::body::SolverBody;
use super::constraint::{ConstraintPoint, ContactConstraint};
use super::StepContext;
use crate::physics::constants::RELAX_REGULARIZATION;
use crate::physics::math::{Quat, Vec3};
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

/// Direction indices into a point's rows: the normal, then the two tangents.
const NORMAL: usize = 0;
const TANGENTS: [usize; 2] = [1, 2];

/// A body's velocities while one constraint is solved.
#[derive(Clone, Copy, Debug)]
struct Velocity {
    linear: Vec3,
    angular: Vec3,
}

impl Velocity {
    #[inline]
    fn of(body: &SolverBody) -> Velocity {
        Velocity {
            linear: body.linear_velocity,
            angular: body.angular_velocity,
        }
    }
}

/// The impulse arms of a point now, during the step.
///
/// They follow each body's translation but not its rotation, because the contact point of
/// a rolling or turning body stays where the bodies touch, not on the material point
/// (rotating the arms would give a rolling ball a false normal velocity ω × Δ). Between two
/// dynamic bodies both arms follow half the bodies' relative translation during the step,
/// so the gap between the two anchors does not grow while the bodies slide: with
/// s = ½(Δx_b − Δx_a), r_a = anchor_a + s and r_b = anchor_b − s. Against static or
/// kinematic bodies the dynamic body's own arm is used as it is.
///
/// Every angular row is linear in the arm, (anchor + s)×d = anchor×d + s×d, so the shift is
/// one correction per manifold: `rows` holds s×d for the three directions, `turns_*` the
/// bodies' I⁻¹(s×d). A's rows gain it, B's lose it. Zero when the bodies have not moved
/// apart (always at the first sub-step) or one of them cannot move.
#[derive(Clone, Copy, Debug, Default)]
struct Shift {
    rows: [Vec3; 3],
    turns_a: [Vec3; 3],
    turns_b: [Vec3; 3],
}

impl Shift {
    #[inline]
    fn current(c: &ContactConstraint, a: &SolverBody, b: &SolverBody) -> Shift {
        if !c.shared_point {
            return Shift::default();
        }
        let s = 0.5 * (b.delta_position - a.delta_position);
        if s == Vec3::ZERO {
            return Shift::default();
        }
        let rows = [c.normal, c.tangents[0], c.tangents[1]].map(|d| s.cross(d));
        Shift {
            rows,
            turns_a: rows.map(|r| a.inv_inertia * r),
            turns_b: rows.map(|r| b.inv_inertia * r),
        }
    }
}

/// One point's rows along direction `k` with the shift applied:
/// (r_a×d, I_a⁻¹(r_a×d), r_b×d, I_b⁻¹(r_b×d)).
#[derive(Clone, Copy, Debug)]
struct Rows {
    row_a: Vec3,
    turn_a: Vec3,
    row_b: Vec3,
    turn_b: Vec3,
}

impl Rows {
    #[inline]
    fn of(p: &ConstraintPoint, shift: &Shift, k: usize) -> Rows {
        Rows {
            row_a: p.rows_a[k] + shift.rows[k],
            turn_a: p.turns_a[k] + shift.turns_a[k],
            row_b: p.rows_b[k] - shift.rows[k],
            turn_b: p.turns_b[k] - shift.turns_b[k],
        }
    }

    /// Velocity of B's point over A's along direction `d`:
    /// d·(v_b − v_a) + ω_b·(r_b×d) − ω_a·(r_a×d).
    #[inline]
    fn velocity(&self, d: Vec3, a: &Velocity, b: &Velocity) -> f32 {
        d.dot(b.linear - a.linear) + b.angular.dot(self.row_b) - a.angular.dot(self.row_a)
    }
}

/// Applies an impulse of `lambda` along direction `d` (from A to B) with these rows.
#[inline]
fn apply(
    c: &ContactConstraint,
    a: &mut Velocity,
    b: &mut Velocity,
    rows: &Rows,
    d: Vec3,
    lambda: f32,
) {
    a.linear -= (c.inv_mass_a * lambda) * d;
    a.angular -= lambda * rows.turn_a;
    b.linear += (c.inv_mass_b * lambda) * d;
    b.angular += lambda * rows.turn_b;
}

/// The separation of a point now, during the step (Box2D v3): the two material points are
/// moved with their bodies (Δx and Δq),
/// s = s₀ + n·((Δx_b + Δq_b·r_b) − (Δx_a + Δq_a·r_a) − (r_b − r_a)).
///
/// Rewriting n·(Δq·r) as (Δq⁻¹·n)·r would rotate one normal per manifold instead of every
/// arm, but it rounds differently, and a stack of 100 m cubes (arms of 87 m, positions at
/// 250 m, where one f32 step is 15 µm) then settles one step of position higher: 6 % of
/// its 0.94 mm spring depth, past the 5 % that `tests/physics_stability.rs` allows.
#[derive(Clone, Copy, Debug)]
struct Tracking {
    normal: Vec3,
    /// Δx_b − Δx_a.
    moved: Vec3,
    rotation_a: Quat,
    rotation_b: Quat,
}

impl Tracking {
    #[inline]
    fn current(normal: Vec3, a: &SolverBody, b: &SolverBody) -> Tracking {
        Tracking {
            normal,
            moved: b.delta_position - a.delta_position,
            rotation_a: a.delta_rotation,
            rotation_b: b.delta_rotation,
        }
    }

    #[inline]
    fn separation(&self, p: &ConstraintPoint) -> f32 {
        // A body that has not turned (static, or any body in the first sub-step) keeps its
        // arm: rotating by the identity would return it bit for bit, at some 30 flops.
        let turned = |q: Quat, r: Vec3| if q == Quat::IDENTITY { r } else { q * r };
        let moved =
            self.moved + turned(self.rotation_b, p.anchor_b) - turned(self.rotation_a, p.anchor_a);
        p.separation + self.normal.dot(moved - (p.anchor_b - p.anchor_a))
    }
}

/// Reads a constraint's two bodies, runs `f` on their velocities (with the bodies' current
/// pose deltas to read), writes back those that contacts can move.
#[inline]
fn with_velocities(
    bodies: &mut [SolverBody],
    c: &mut ContactConstraint,
    f: impl FnOnce(&mut ContactConstraint, &SolverBody, &SolverBody, &mut Velocity, &mut Velocity),
) {
    let (ia, ib) = (c.body_a as usize, c.body_b as usize);
    let (body_a, body_b) = (&bodies[ia], &bodies[ib]);
    let (mut a, mut b) = (Velocity::of(body_a), Velocity::of(body_b));
    f(c, body_a, body_b, &mut a, &mut b);
    if c.inv_mass_a > 0.0 {
        bodies[ia].linear_velocity = a.linear;
        bodies[ia].angular_velocity = a.angular;
    }
    if c.inv_mass_b > 0.0 {
        bodies[ib].linear_velocity = b.linear;
        bodies[ib].angular_velocity = b.angular;
    }
}

/// Applies the accumulated impulses at the current arms.
pub(crate) fn warm_start(bodies: &mut [SolverBody], constraints: &mut [ContactConstraint]) {
    for c in constraints {
        with_velocities(bodies, c, |c, body_a, body_b, a, b| {
            let shift = Shift::current(c, body_a, body_b);
            let directions = [c.normal, c.tangents[0], c.tangents[1]];
            for p in &c.points[..c.count] {
                let impulses = [p.normal_impulse, p.tangent_impulse[0], p.tangent_impulse[1]];
                for (k, (&d, &lambda)) in directions.iter().zip(&impulses).enumerate() {
                    apply(c, a, b, &Rows::of(p, &shift, k), d, lambda);
                }
            }
            if c.rolling_resistance > 0.0 {
                a.angular -= body_a.inv_inertia * c.rolling_impulse;
                b.angular += body_b.inv_inertia * c.rolling_impulse;
            }
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
        with_velocities(bodies, c, |c, body_a, body_b, a, b| {
            let shift = Shift::current(c, body_a, body_b);
            let tracking = Tracking::current(c.normal, body_a, body_b);
            match pass {
                Pass::Biased => {
                    solve_friction(c, &shift, a, b);
                    solve_normal(c, &shift, &tracking, a, b, ctx, pass);
                }
                Pass::Relax => {
                    solve_normal(c, &shift, &tracking, a, b, ctx, pass);
                    solve_friction(c, &shift, a, b);
                }
            }
            if c.rolling_resistance > 0.0 {
                solve_rolling(c, body_a, body_b, a, b);
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
    shift: &Shift,
    tracking: &Tracking,
    a: &mut Velocity,
    b: &mut Velocity,
    ctx: &StepContext,
    pass: Pass,
) {
    let count = c.count;
    let normal = c.normal;
    let mut matrix = c.normal_k;
    let mut rhs = [0.0; MAX_MANIFOLD_POINTS];
    let mut lambda = [0.0; MAX_MANIFOLD_POINTS];
    // The matrix depends on the pass and, in the biased pass, on which points are
    // speculative: that is the key of its cached factorisation.
    let mut key = 1u32;
    for (i, p) in c.points[..count].iter_mut().enumerate() {
        let vn = Rows::of(p, shift, NORMAL).velocity(normal, a, b);
        let separation = tracking.separation(p);
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
            key |= 2 << i;
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
    let (cache, key) = match pass {
        Pass::Biased => (&mut c.factors[0], key),
        // Speculative or not, a point's entry is K_ii·(1 + ε).
        Pass::Relax => (&mut c.factors[1], 1),
    };
    let delta = solve_block(&matrix, &rhs, &lambda, count, cache, key);
    // All the points' impulses at once: Σλ_i along n, and each body's turn Σλ_i·I⁻¹(r_i×n),
    // of which the shift's part is (Σλ_i)·I⁻¹(s×n).
    let (mut total_applied, mut turn_a, mut turn_b) = (0.0, Vec3::ZERO, Vec3::ZERO);
    for (i, p) in c.points[..count].iter_mut().enumerate() {
        let total = (p.normal_impulse + delta[i]).max(0.0);
        let applied = total - p.normal_impulse;
        p.normal_impulse = total;
        p.max_normal_impulse = p.max_normal_impulse.max(applied);
        total_applied += applied;
        turn_a += applied * p.turns_a[NORMAL];
        turn_b += applied * p.turns_b[NORMAL];
    }
    turn_a += total_applied * shift.turns_a[NORMAL];
    turn_b -= total_applied * shift.turns_b[NORMAL];
    a.linear -= (c.inv_mass_a * total_applied) * normal;
    a.angular -= turn_a;
    b.linear += (c.inv_mass_b * total_applied) * normal;
    b.angular += turn_b;
}

/// Coulomb friction at every point, the two directions together:
/// λ_t ← clamp(λ_t − M_t·v_t, |λ_t| ≤ μ·λ_n) with M_t the inverse 2×2 tangent mass matrix.
fn solve_friction(c: &mut ContactConstraint, shift: &Shift, a: &mut Velocity, b: &mut Velocity) {
    let tangents = c.tangents;
    let friction = c.friction;
    let (inv_mass_a, inv_mass_b) = (c.inv_mass_a, c.inv_mass_b);
    for p in &mut c.points[..c.count] {
        let rows = TANGENTS.map(|k| Rows::of(p, shift, k));
        let v0 = rows[0].velocity(tangents[0], a, b);
        let v1 = rows[1].velocity(tangents[1], a, b);
        let m = p.tangent_mass;
        let old = p.tangent_impulse;
        let mut new = [
            old[0] - (m[0] * v0 + m[1] * v1),
            old[1] - (m[1] * v0 + m[2] * v1),
        ];
        let max = friction * p.normal_impulse;
        let len2 = new[0] * new[0] + new[1] * new[1];
        if len2 > max * max {
            let s = max / len2.sqrt();
            new = [new[0] * s, new[1] * s];
        }
        p.tangent_impulse = new;
        let (d0, d1) = (new[0] - old[0], new[1] - old[1]);
        let impulse = tangents[0] * d0 + tangents[1] * d1;
        a.linear -= inv_mass_a * impulse;
        a.angular -= d0 * rows[0].turn_a + d1 * rows[1].turn_a;
        b.linear += inv_mass_b * impulse;
        b.angular += d0 * rows[0].turn_b + d1 * rows[1].turn_b;
    }
}

/// Rolling resistance: an angular impulse against the relative spin, at most (lever arm ×
/// total normal impulse), like Coulomb friction for rotation.
fn solve_rolling(
    c: &mut ContactConstraint,
    body_a: &SolverBody,
    body_b: &SolverBody,
    a: &mut Velocity,
    b: &mut Velocity,
) {
    let total_normal: f32 = c.points[..c.count].iter().map(|p| p.normal_impulse).sum();
    let max = c.rolling_resistance * total_normal;
    let old = c.rolling_impulse;
    let spin = b.angular - a.angular;
    let mut new = old - c.rolling_mass * spin;
    if new.length_squared() > max * max {
        new = new.normalize_or_zero() * max;
    }
    c.rolling_impulse = new;
    let delta = new - old;
    a.angular -= body_a.inv_inertia * delta;
    b.angular += body_b.inv_inertia * delta;
}

/// Restitution: for points hit faster than the threshold, drive the normal velocity to
/// −e times the approach velocity (accumulated impulse stays ≥ 0).
pub(crate) fn apply_restitution(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    ctx: &StepContext,
) {
    for c in constraints.iter_mut().filter(|c| c.restitution > 0.0) {
        with_velocities(bodies, c, |c, body_a, body_b, a, b| {
            let shift = Shift::current(c, body_a, body_b);
            let (normal, e) = (c.normal, c.restitution);
            for i in 0..c.count {
                let p = c.points[i];
                if p.relative_velocity > -ctx.restitution_threshold || p.max_normal_impulse == 0.0 {
                    continue;
                }
                let rows = Rows::of(&p, &shift, NORMAL);
                let vn = rows.velocity(normal, a, b);
                let delta = -p.normal_mass * (vn + e * p.relative_velocity);
                let total = (p.normal_impulse + delta).max(0.0);
                let applied = total - p.normal_impulse;
                let point = &mut c.points[i];
                point.normal_impulse = total;
                point.max_normal_impulse = point.max_normal_impulse.max(applied);
                apply(c, a, b, &rows, normal, applied);
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
