//! The contact solver: sequential impulses (Catto, GDC 2006) in Box2D v3's "soft step"
//! arrangement (Catto, "Solver2D", 2024).
//!
//! Why soft step: a classic solver (one step, many velocity iterations, Baumgarte bias)
//! pushes penetration out with a velocity bias that also adds energy, and tall stacks and
//! large mass ratios jitter or sink. Soft step cuts the step into sub-steps, each with one
//! biased iteration whose bias comes from a damped spring (a "soft constraint": stiffness
//! and damping given as a frequency and a damping ratio, so it behaves the same whatever
//! the mass), then a *relax* iteration without bias that removes the velocity the bias
//! added. Catto's comparison found it the most robust on stacks, pyramids and mass ratios;
//! Box2D v3 and Box3D use it. Restitution runs once after the sub-steps, on the normal
//! velocity measured just before impact.
//!
//! Per step:
//! ```text
//! prepare: anchors r_a, r_b (common contact point minus centres), effective masses,
//!          warm-start impulses carried over from the last step
//! for each sub-step of length h:
//!     integrate velocities   v += h·(g + F/m),  ω += h·I⁻¹τ,  damping
//!     warm start             apply the accumulated impulses
//!     solve (with bias)      soft normal constraints, then Coulomb friction
//!     integrate positions    x += h·v,  q turned by ω; free rotation keeps the world
//!                            angular momentum (gyroscopic effect, implicit midpoint)
//!     relax (no bias)        the same iterations with bias 0 and full stiffness
//! restitution                v_n ← −e·v_n(before impact), for points that were hit faster
//!                            than the threshold
//! store impulses             for warm starting the next step
//! ```
//!
//! Normal constraint: C = separation ≥ 0, Jacobian J = [−n, −(r_a×n), n, (r_b×n)],
//! effective mass m_n = 1 / (1/m_a + 1/m_b + (r_a×n)·I_a⁻¹(r_a×n) + (r_b×n)·I_b⁻¹(r_b×n)).
//! Soft impulse: λ = −m_n·s_m·(J·v + b) − s_i·λ_acc with b = ω_s/(2ζ + hω_s)·C,
//! s_m = hω(2ζ + hω) / (1 + hω(2ζ + hω)), s_i = 1 / (1 + hω(2ζ + hω)).
//! Separated points (C > 0) are speculative: b = C/h lets them close exactly the gap.
//!
//! The separation is tracked during the step without re-running collision: each body
//! accumulates its displacement Δx and rotation Δq, and the contact's two material points
//! are moved with them. Impulse arms follow the bodies' translation; between two dynamic
//! bodies they meet at one shared point, so linear and angular momentum are conserved
//! exactly (see `current_arms`).

use super::collider::MixedMaterial;
use super::math::{orthonormal_basis, Mat3, Quat, Vec3};
use super::narrow_phase::MAX_MANIFOLD_POINTS;

/// The part of a body the solver's inner loops touch, gathered into a dense array each step
/// (hot data apart from cold: every contact iteration copies two of these).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverBody {
    pub linear_velocity: Vec3,
    pub angular_velocity: Vec3,
    pub inv_mass: f32,
    /// World inverse inertia at the start of the step.
    pub inv_inertia: Mat3,
    /// Centre-of-mass displacement since the start of the step.
    pub delta_position: Vec3,
    /// Rotation since the start of the step.
    pub delta_rotation: Quat,
}

/// What only velocity integration reads, parallel to the `SolverBody` array.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverForces {
    /// Gravity plus applied force over mass, m/s².
    pub linear_acceleration: Vec3,
    /// Inverse inertia times applied torque, rad/s².
    pub angular_acceleration: Vec3,
    pub linear_damping: f32,
    pub angular_damping: f32,
    /// False for kinematic bodies (and the static stand-in): velocities never change.
    pub is_dynamic: bool,
    /// Orientation at the start of the step (the current one is `delta_rotation · this`).
    pub rotation: Quat,
    /// Inertia about the centre of mass in body axes, and its inverse (free rotation).
    pub local_inertia: Mat3,
    pub local_inv_inertia: Mat3,
}

impl SolverForces {
    /// Nothing acts (static stand-in, kinematic bodies).
    pub const NONE: SolverForces = SolverForces {
        linear_acceleration: Vec3::ZERO,
        angular_acceleration: Vec3::ZERO,
        linear_damping: 0.0,
        angular_damping: 0.0,
        is_dynamic: false,
        rotation: Quat::IDENTITY,
        local_inertia: Mat3::ZERO,
        local_inv_inertia: Mat3::ZERO,
    };
}

impl SolverBody {
    /// The stand-in for every static body: never moves, infinite mass.
    pub const STATIC: SolverBody = SolverBody {
        linear_velocity: Vec3::ZERO,
        angular_velocity: Vec3::ZERO,
        inv_mass: 0.0,
        inv_inertia: Mat3::ZERO,
        delta_position: Vec3::ZERO,
        delta_rotation: Quat::IDENTITY,
    };
}

/// Soft constraint coefficients (see the module notes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Softness {
    pub bias_rate: f32,
    pub mass_scale: f32,
    pub impulse_scale: f32,
}

impl Softness {
    /// Coefficients of a spring of `hertz` and damping ratio `zeta` over a step `h`.
    pub fn new(hertz: f32, zeta: f32, h: f32) -> Softness {
        if hertz <= 0.0 {
            return Softness {
                bias_rate: 0.0,
                mass_scale: 1.0,
                impulse_scale: 0.0,
            };
        }
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
            impulse_scale: a3,
        }
    }
}

/// Per-step constants the solver loops need.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StepContext {
    /// Sub-step length, s.
    pub h: f32,
    pub inv_h: f32,
    pub contact_softness: Softness,
    /// Stiffer softness for contacts with static or kinematic bodies.
    pub static_softness: Softness,
    /// Largest speed at which penetration is pushed out, m/s.
    pub max_push_velocity: f32,
    /// Normal approach speed above which restitution applies, m/s.
    pub restitution_threshold: f32,
    pub max_linear_speed: f32,
    pub max_angular_speed: f32,
}

/// One point of a contact constraint.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConstraintPoint {
    /// From A's centre of mass to the contact point, world axes, at the step start.
    pub anchor_a: Vec3,
    /// From B's centre of mass to the contact point.
    pub anchor_b: Vec3,
    /// Separation at the step start (−depth), m.
    pub separation: f32,
    pub normal_mass: f32,
    pub tangent_mass: [f32; 2],
    pub normal_impulse: f32,
    pub tangent_impulse: [f32; 2],
    pub max_normal_impulse: f32,
    /// Normal velocity just before the point started pushing (for restitution), m/s.
    pub relative_velocity: f32,
}

/// A contact manifold turned into constraints for this step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactConstraint {
    /// Solver body indices (0 = static stand-in).
    pub body_a: u32,
    pub body_b: u32,
    /// Id of the contact it came from (to store impulses back).
    pub contact: u32,
    pub normal: Vec3,
    pub tangents: [Vec3; 2],
    pub friction: f32,
    pub restitution: f32,
    /// Lever arm of the rolling resistance torque, m.
    pub rolling_resistance: f32,
    /// (I_a⁻¹ + I_b⁻¹)⁻¹, the effective mass for relative rotation.
    pub rolling_mass: Mat3,
    /// Accumulated rolling resistance angular impulse, N·m·s.
    pub rolling_impulse: Vec3,
    pub softness: Softness,
    /// Both bodies dynamic: impulses act at one shared point (see `current_arms`).
    pub shared_point: bool,
    pub points: [ConstraintPoint; MAX_MANIFOLD_POINTS],
    pub count: usize,
}

/// What a constraint is built from, besides its points.
pub(crate) struct ConstraintShared {
    /// Id of the contact.
    pub contact: u32,
    /// World normal from A to B.
    pub normal: Vec3,
    /// Mixed surface properties.
    pub material: MixedMaterial,
    /// Rolling impulse carried over from the last step.
    pub rolling_impulse: Vec3,
    pub softness: Softness,
    pub warm_start: bool,
}

/// What a constraint is built from: a manifold point with its carried-over impulses.
pub(crate) struct PointInput {
    pub point_a: Vec3,
    pub point_b: Vec3,
    pub depth: f32,
    pub normal_impulse: f32,
    pub tangent_impulse: Vec3,
}

impl ContactConstraint {
    /// Builds the constraint: anchors, effective masses and warm-start impulses.
    pub fn prepare(
        (index_a, a, center_a): (u32, &SolverBody, Vec3),
        (index_b, b, center_b): (u32, &SolverBody, Vec3),
        inputs: &[PointInput],
        shared: &ConstraintShared,
    ) -> ContactConstraint {
        let normal = shared.normal;
        let warm_start = shared.warm_start;
        let tangents = {
            let (t1, t2) = orthonormal_basis(normal);
            [t1, t2]
        };
        let mut points = [ConstraintPoint::default(); MAX_MANIFOLD_POINTS];
        for (cp, input) in points.iter_mut().zip(inputs) {
            let mid = 0.5 * (input.point_a + input.point_b);
            let (ra, rb) = (mid - center_a, mid - center_b);
            let mass = |dir: Vec3| {
                let (ca, cb) = (ra.cross(dir), rb.cross(dir));
                let k = a.inv_mass
                    + b.inv_mass
                    + ca.dot(a.inv_inertia * ca)
                    + cb.dot(b.inv_inertia * cb);
                if k > 0.0 {
                    1.0 / k
                } else {
                    0.0
                }
            };
            let dv = b.linear_velocity + b.angular_velocity.cross(rb)
                - a.linear_velocity
                - a.angular_velocity.cross(ra);
            let scale = if warm_start { 1.0 } else { 0.0 };
            *cp = ConstraintPoint {
                anchor_a: ra,
                anchor_b: rb,
                separation: -input.depth,
                normal_mass: mass(normal),
                tangent_mass: [mass(tangents[0]), mass(tangents[1])],
                normal_impulse: scale * input.normal_impulse,
                // Re-project last step's world friction impulse on this step's basis.
                tangent_impulse: [
                    scale * input.tangent_impulse.dot(tangents[0]),
                    scale * input.tangent_impulse.dot(tangents[1]),
                ],
                max_normal_impulse: 0.0,
                relative_velocity: dv.dot(normal),
            };
        }
        // Rolling resistance acts on the relative angular velocity: K = I_a⁻¹ + I_b⁻¹.
        let rolling_k = a.inv_inertia + b.inv_inertia;
        let rolling_mass = if shared.material.rolling_resistance > 0.0 {
            invert_or_zero(rolling_k)
        } else {
            Mat3::ZERO
        };
        ContactConstraint {
            body_a: index_a,
            body_b: index_b,
            contact: shared.contact,
            normal,
            tangents,
            friction: shared.material.friction,
            restitution: shared.material.restitution,
            rolling_resistance: shared.material.rolling_resistance,
            rolling_mass,
            rolling_impulse: if warm_start {
                shared.rolling_impulse
            } else {
                Vec3::ZERO
            },
            softness: shared.softness,
            shared_point: a.inv_mass > 0.0 && b.inv_mass > 0.0,
            points,
            count: inputs.len().min(MAX_MANIFOLD_POINTS),
        }
    }

    /// The accumulated friction impulse as a world vector.
    pub fn tangent_impulse_world(&self, point: &ConstraintPoint) -> Vec3 {
        self.tangents[0] * point.tangent_impulse[0] + self.tangents[1] * point.tangent_impulse[1]
    }
}

/// The inverse of a symmetric positive semi-definite matrix, or zero when it is singular.
/// The test is relative (det against (trace/3)³), so tiny and huge bodies are treated alike.
pub(crate) fn invert_or_zero(m: Mat3) -> Mat3 {
    let trace = m.x_axis.x + m.y_axis.y + m.z_axis.z;
    let scale = (trace / 3.0).powi(3);
    let det = m.determinant();
    if trace > 0.0 && det > 1.0e-7 * scale {
        let inv = m.inverse();
        if inv.is_finite() {
            return inv;
        }
    }
    Mat3::ZERO
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
/// dynamic bodies both arms end at the midpoint of the two translated anchors, so every
/// impulse is an equal and opposite pair at one point and linear and angular momentum are
/// conserved exactly; against static or kinematic bodies (infinite mass, nothing to
/// conserve) the dynamic body's own arm is used as it is.
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

/// Reads two bodies, runs `f` on them, writes them back.
#[inline]
fn with_pair(
    bodies: &mut [SolverBody],
    ia: u32,
    ib: u32,
    f: impl FnOnce(&mut SolverBody, &mut SolverBody),
) {
    let (mut a, mut b) = (bodies[ia as usize], bodies[ib as usize]);
    f(&mut a, &mut b);
    // The static stand-in (index 0) has infinite mass: writing it back changes nothing.
    bodies[ia as usize] = a;
    bodies[ib as usize] = b;
}

/// v += h·a, ω += h·α, then damping v /= 1 + h·c (unconditionally stable), then speed caps.
pub(crate) fn integrate_velocities(
    bodies: &mut [SolverBody],
    forces: &[SolverForces],
    ctx: &StepContext,
) {
    let h = ctx.h;
    for (body, f) in bodies.iter_mut().zip(forces).filter(|(_, f)| f.is_dynamic) {
        let v = (body.linear_velocity + h * f.linear_acceleration) / (1.0 + h * f.linear_damping);
        let w =
            (body.angular_velocity + h * f.angular_acceleration) / (1.0 + h * f.angular_damping);
        body.linear_velocity = clamp_length(v, ctx.max_linear_speed);
        body.angular_velocity = clamp_length(w, ctx.max_angular_speed);
    }
}

/// Shortens `v` to at most `max`; a non-finite `v` (from an overflowing force) becomes zero.
#[inline]
pub(crate) fn clamp_length(v: Vec3, max: f32) -> Vec3 {
    let len2 = v.length_squared();
    if !len2.is_finite() {
        Vec3::ZERO
    } else if len2 > max * max {
        v * (max / len2.sqrt())
    } else {
        v
    }
}

/// q advanced by angular velocity `w` over time `h`: q + ½·h·(ω, 0)·q, normalised.
#[inline]
fn rotate(q: Quat, w: Vec3, h: f32) -> Quat {
    let dq = Quat::from_xyzw(w.x, w.y, w.z, 0.0) * q;
    Quat::from_xyzw(
        q.x + 0.5 * h * dq.x,
        q.y + 0.5 * h * dq.y,
        q.z + 0.5 * h * dq.z,
        q.w + 0.5 * h * dq.w,
    )
    .normalize()
}

/// True when an inertia tensor is a multiple of the identity (spheres, cubes): free
/// rotation then never changes ω.
fn isotropic(inertia: &Mat3) -> bool {
    let d = inertia.x_axis.x;
    let tol = 1.0e-6 * d.abs();
    (inertia.y_axis.y - d).abs() <= tol
        && (inertia.z_axis.z - d).abs() <= tol
        && inertia.x_axis.y.abs() <= tol
        && inertia.x_axis.z.abs() <= tol
        && inertia.y_axis.z.abs() <= tol
}

/// x += h·v, and the rotation advanced by ω (for every moving body, kinematic included).
///
/// Free rotation (the gyroscopic effect): without torque the world angular momentum
/// L = R·I·Rᵀ·ω stays constant while the body turns, so ω must change as I_world does.
/// The turn uses the implicit midpoint rule on L (symplectic: momentum exact, energy error
/// bounded): ω_mid = R_mid·I⁻¹·R_midᵀ·L with R_mid the rotation half a sub-step on, found by
/// two fixed-point passes; then R₁ = R₀ turned by ω_mid over h, and ω₁ = R₁·I⁻¹·R₁ᵀ·L. A
/// tumbling plank keeps its axis of momentum; a book spun about its middle axis flips.
pub(crate) fn integrate_positions(
    bodies: &mut [SolverBody],
    forces: &[SolverForces],
    ctx: &StepContext,
) {
    let h = ctx.h;
    for (body, f) in bodies.iter_mut().zip(forces).skip(1) {
        body.delta_position += h * body.linear_velocity;
        let w = body.angular_velocity;
        let q0 = body.delta_rotation;
        // Slow spins (resting bodies) gain nothing measurable from the gyroscopic update.
        if !f.is_dynamic || w.length_squared() < 1.0e-4 || isotropic(&f.local_inertia) {
            body.delta_rotation = rotate(q0, w, h);
            continue;
        }
        let omega_from = |q: Quat, momentum: Vec3| {
            let r = Mat3::from_quat(q * f.rotation);
            r * (f.local_inv_inertia * (r.transpose() * momentum))
        };
        let r0 = Mat3::from_quat(q0 * f.rotation);
        let momentum = r0 * (f.local_inertia * (r0.transpose() * w));
        // Exact turns (exponential map) here: the first-order update's error would show as
        // energy drift over long spins.
        let turn = |w: Vec3, t: f32| (Quat::from_scaled_axis(w * t) * q0).normalize();
        let mut w_mid = w;
        for _ in 0..3 {
            w_mid = omega_from(turn(w_mid, 0.5 * h), momentum);
        }
        body.delta_rotation = turn(w_mid, h);
        body.angular_velocity = omega_from(body.delta_rotation, momentum);
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

/// One iteration over all contacts: normal constraints (soft when `use_bias`), then
/// friction clamped to the cone |λ_t| ≤ μ·λ_n.
pub(crate) fn solve_contacts(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    ctx: &StepContext,
    use_bias: bool,
) {
    for c in constraints.iter_mut() {
        let (normal, tangents, friction, soft) = (c.normal, c.tangents, c.friction, c.softness);
        let (count, shared) = (c.count, c.shared_point);
        let (ia, ib) = (c.body_a, c.body_b);
        with_pair(bodies, ia, ib, |a, b| {
            for p in &mut c.points[..count] {
                let (ra, rb) = current_arms(p, a, b, shared);
                let separation = current_separation(p, a, b, normal);
                let (bias, mass_scale, impulse_scale) = if separation > 0.0 {
                    // Speculative: allow closing the gap this sub-step, no more.
                    (separation * ctx.inv_h, 1.0, 0.0)
                } else if use_bias {
                    (
                        (soft.bias_rate * separation).max(-ctx.max_push_velocity),
                        soft.mass_scale,
                        soft.impulse_scale,
                    )
                } else {
                    (0.0, 1.0, 0.0)
                };
                let vn = relative_velocity(a, b, ra, rb).dot(normal);
                if use_bias && p.max_normal_impulse == 0.0 {
                    p.relative_velocity = vn;
                }
                let delta =
                    -p.normal_mass * mass_scale * (vn + bias) - impulse_scale * p.normal_impulse;
                let total = (p.normal_impulse + delta).max(0.0);
                let applied = total - p.normal_impulse;
                p.normal_impulse = total;
                p.max_normal_impulse = p.max_normal_impulse.max(applied);
                apply(a, b, ra, rb, normal * applied);
            }
            for p in &mut c.points[..count] {
                let (ra, rb) = current_arms(p, a, b, shared);
                let dv = relative_velocity(a, b, ra, rb);
                let old = p.tangent_impulse;
                let mut new = [
                    old[0] - p.tangent_mass[0] * dv.dot(tangents[0]),
                    old[1] - p.tangent_mass[1] * dv.dot(tangents[1]),
                ];
                let max = friction * p.normal_impulse;
                let len2 = new[0] * new[0] + new[1] * new[1];
                if len2 > max * max {
                    let s = max / len2.sqrt();
                    new = [new[0] * s, new[1] * s];
                }
                p.tangent_impulse = new;
                let impulse = tangents[0] * (new[0] - old[0]) + tangents[1] * (new[1] - old[1]);
                apply(a, b, ra, rb, impulse);
            }
            if c.rolling_resistance > 0.0 {
                // Rolling resistance: an angular impulse against the relative spin, at most
                // (lever arm × total normal impulse), like Coulomb friction for rotation.
                let total_normal: f32 = c.points[..count].iter().map(|p| p.normal_impulse).sum();
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
        });
    }
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
    use super::*;

    #[test]
    fn rigid_softness_is_plain_sequential_impulse() {
        let s = Softness::new(0.0, 1.0, 0.01);
        assert_eq!(
            (s.bias_rate, s.mass_scale, s.impulse_scale),
            (0.0, 1.0, 0.0)
        );
    }

    #[test]
    fn softness_coefficients_match_the_spring_formulas() {
        // ω = 2π·30, ζ = 10, h = 1/240: a1 = 2ζ + hω, a2 = hω·a1, s_m = a2/(1+a2), s_i = 1/(1+a2).
        let (hz, zeta, h) = (30.0f32, 10.0f32, 1.0f32 / 240.0);
        let w = 2.0 * std::f32::consts::PI * hz;
        let a1 = 2.0 * zeta + h * w;
        let a2 = h * w * a1;
        let s = Softness::new(hz, zeta, h);
        assert!((s.bias_rate - w / a1).abs() < 1e-4);
        assert!((s.mass_scale - a2 / (1.0 + a2)).abs() < 1e-6);
        assert!((s.impulse_scale + s.mass_scale - 1.0).abs() < 1e-6);
    }

    #[test]
    fn head_on_impulse_stops_equal_masses() {
        // Two unit masses closing at 2 m/s along x, touching: one rigid iteration gives the
        // perfectly inelastic result, both at rest (momentum 0 before and after).
        let mut body = SolverBody::STATIC;
        body.inv_mass = 1.0;
        body.inv_inertia = Mat3::IDENTITY;
        let mut a = body;
        a.linear_velocity = Vec3::X;
        let mut b = body;
        b.linear_velocity = -Vec3::X;
        let mut bodies = [SolverBody::STATIC, a, b];
        let input = PointInput {
            point_a: Vec3::ZERO,
            point_b: Vec3::ZERO,
            depth: 0.0,
            normal_impulse: 0.0,
            tangent_impulse: Vec3::ZERO,
        };
        let soft = Softness::new(0.0, 0.0, 0.01);
        let shared = ConstraintShared {
            contact: 0,
            normal: Vec3::X,
            material: MixedMaterial::default(),
            rolling_impulse: Vec3::ZERO,
            softness: soft,
            warm_start: true,
        };
        let mut c = [ContactConstraint::prepare(
            (1, &bodies[1], Vec3::new(-0.5, 0.0, 0.0)),
            (2, &bodies[2], Vec3::new(0.5, 0.0, 0.0)),
            &[input],
            &shared,
        )];
        let ctx = StepContext {
            h: 0.01,
            inv_h: 100.0,
            contact_softness: soft,
            static_softness: soft,
            max_push_velocity: 3.0,
            restitution_threshold: 1.0,
            max_linear_speed: 100.0,
            max_angular_speed: 100.0,
        };
        solve_contacts(&mut bodies, &mut c, &ctx, false);
        assert!(bodies[1].linear_velocity.length() < 1e-6);
        assert!(bodies[2].linear_velocity.length() < 1e-6);
        // λ = m_eff·Δv = 0.5·2 = 1 N·s.
        assert!((c[0].points[0].normal_impulse - 1.0).abs() < 1e-6);
    }
}
