//! Integration inside a sub-step: velocities from forces, positions from velocities, and the
//! free rotation of bodies with unequal principal inertias.

use super::body::{clamp_speed, SolverBody, SolverForces};
use super::StepContext;
use crate::physics::joint::floored_inv_inertia;
use crate::physics::math::{Mat3, Quat, Vec3};

/// v += h·a, ω += h·α, then damping v /= 1 + h·c (unconditionally stable). The speed caps
/// follow ([`clamp_speeds`](super::body::clamp_speeds)).
pub(crate) fn integrate_velocities(
    bodies: &mut [SolverBody],
    forces: &[SolverForces],
    ctx: &StepContext,
) {
    for (body, f) in bodies.iter_mut().zip(forces) {
        integrate_velocity(body, f, ctx.h);
    }
}

/// [`integrate_velocities`] of one body.
#[inline]
fn integrate_velocity(body: &mut SolverBody, f: &SolverForces, h: f32) {
    if !f.is_dynamic {
        return;
    }
    let v = (body.linear_velocity + h * f.linear_acceleration) / (1.0 + h * f.linear_damping);
    let w = (body.angular_velocity + h * f.angular_acceleration) / (1.0 + h * f.angular_damping);
    body.linear_velocity = v;
    body.angular_velocity = w;
}

/// [`integrate_velocities`], then each body's speeds capped
/// ([`clamp_speeds`](super::body::clamp_speeds)), in one sweep over the bodies: the same
/// result as the two sweeps, each body on its own.
pub(crate) fn integrate_velocities_capped(
    bodies: &mut [SolverBody],
    forces: &[SolverForces],
    faulted: &mut [bool],
    ctx: &StepContext,
) {
    for ((body, f), fault) in bodies.iter_mut().zip(forces).zip(faulted) {
        integrate_velocity(body, f, ctx.h);
        clamp_speed(body, f, fault, ctx.max_angular_speed);
    }
}

/// Each body's speeds capped ([`clamp_speeds`](super::body::clamp_speeds)), then
/// [`integrate_positions`], in one sweep over the bodies.
pub(crate) fn capped_integrate_positions(
    bodies: &mut [SolverBody],
    forces: &[SolverForces],
    faulted: &mut [bool],
    ctx: &StepContext,
) {
    for ((body, f), fault) in bodies.iter_mut().zip(forces).zip(faulted) {
        clamp_speed(body, f, fault, ctx.max_angular_speed);
        integrate_position(body, f, ctx.h);
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
pub(super) fn isotropic(inertia: &Mat3) -> bool {
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
/// Free rotation (the gyroscopic effect): without torque the angular momentum stays
/// constant in the world while the body turns, so ω changes as the world inertia does.
/// The turn is the implicit midpoint rule on Euler's equations in the body frame,
/// I·(ω₁ − ω₀)/h = −ω_m × I·ω_m with ω_m = (ω₀ + ω₁)/2, with the body turned by the Cayley
/// rotation of h·ω_m. The midpoint rule keeps every quadratic invariant, so the energy
/// ½·ωᵀIω and |L| = |Iω| are kept exactly, and with the Cayley turn the world angular
/// momentum is kept exactly too (cay(hω_m)·L₁ = L₀ is the same equation). The midpoint
/// equation is solved by Newton's method; a fixed-point iteration diverges once
/// h·|ω|·I_max/I_min exceeds about 2, which a 50:1 rod tossed at 20 rad/s does.
pub(crate) fn integrate_positions(
    bodies: &mut [SolverBody],
    forces: &[SolverForces],
    ctx: &StepContext,
) {
    for (body, f) in bodies.iter_mut().zip(forces) {
        integrate_position(body, f, ctx.h);
    }
}

/// [`integrate_positions`] of one body.
#[inline]
fn integrate_position(body: &mut SolverBody, f: &SolverForces, h: f32) {
    body.delta_position += h * body.linear_velocity;
    let w = body.angular_velocity;
    let q0 = body.delta_rotation;
    // Slow spins (resting bodies) gain nothing measurable from the gyroscopic update; a
    // body with a locked rotation axis turns about the free ones only, as told
    // (`SolverForces::gyroscopic`).
    if !f.gyroscopic || w.length_squared() < 1.0e-4 {
        body.delta_rotation = rotate(q0, w, h);
        if f.locked && f.angular_free != Vec3::ONE && w != Vec3::ZERO {
            turn_locked_inertia(body, f);
        }
        return;
    }
    let world = q0 * f.rotation;
    let w0 = world.inverse() * w;
    let Some(w_mid) = midpoint_spin(&f.local_inertia, &f.local_inv_inertia, w0, h) else {
        // Newton failed to converge (a singular or non-finite inertia): no gyroscopic
        // term this sub-step rather than a wrong one.
        body.delta_rotation = rotate(q0, w, h);
        return;
    };
    let turned = (world * cayley(h * w_mid)).normalize();
    body.delta_rotation = (turned * f.rotation.inverse()).normalize();
    body.angular_velocity = turned * (2.0 * w_mid - w0);
    // The world inverse inertia follows the turn, so the next sub-step's joint rows (which
    // read it from the body) push the body as it now lies. Rows solved with the step
    // start's inertia on a body turning fast change its energy by what the two inertias
    // disagree on, which grows without bound in a pair tumbling on a ball joint.
    let r = Mat3::from_quat(turned);
    body.inv_inertia =
        floored_inv_inertia(r * f.local_inv_inertia * r.transpose(), f.inertia_floor);
}

/// The inverse inertia of a body locked about some world axes (over the free ones,
/// [`Locks::inv_inertia`](crate::physics::Locks::inv_inertia)) after it turned this
/// sub-step, so the next sub-step's rows push the body as it now lies, as a free body's
/// (`integrate_position`). Rows solved with the step start's inertia on a locked body that
/// turns fast change its energy by what the two inertias disagree on, without bound for
/// locked bodies tumbling on joints (`tests/suite/locks.rs`).
fn turn_locked_inertia(body: &mut SolverBody, f: &SolverForces) {
    let r = Mat3::from_quat((body.delta_rotation * f.rotation).normalize());
    let locks = crate::physics::Locks {
        translation: [false; 3],
        rotation: f.angular_free.to_array().map(|free| free == 0.0),
    };
    body.inv_inertia = floored_inv_inertia(
        locks.inv_inertia(
            r * f.local_inertia * r.transpose(),
            r * f.local_inv_inertia * r.transpose(),
        ),
        f.inertia_floor,
    );
}

/// The rotation of the Cayley map of `a` (angle 2·atan(|a|/2) about a): the unit quaternion
/// along (a/2, 1).
#[inline]
fn cayley(a: Vec3) -> Quat {
    Quat::from_xyzw(0.5 * a.x, 0.5 * a.y, 0.5 * a.z, 1.0).normalize()
}

/// Newton iterations of the body-frame midpoint equation, scaled by I⁻¹ so it stays well
/// conditioned for thin bodies: F(x) = 2(x − ω₀) + h·I⁻¹(x × Ix) = 0, with Jacobian
/// 2·𝟙 + h·I⁻¹([x]×I − [Ix]×). Returns ω_m, or None if it does not converge.
fn midpoint_spin(inertia: &Mat3, inv_inertia: &Mat3, w0: Vec3, h: f32) -> Option<Vec3> {
    let skew = |v: Vec3| {
        Mat3::from_cols(
            Vec3::new(0.0, v.z, -v.y),
            Vec3::new(-v.z, 0.0, v.x),
            Vec3::new(v.y, -v.x, 0.0),
        )
    };
    let mut x = w0;
    let mut last = f32::INFINITY;
    for _ in 0..MIDPOINT_NEWTON_ITERATIONS {
        let ix = *inertia * x;
        let residual = 2.0 * (x - w0) + h * (*inv_inertia * x.cross(ix));
        let jacobian = Mat3::from_diagonal(Vec3::splat(2.0))
            + h * (*inv_inertia * (skew(x) * *inertia - skew(ix)));
        let det = jacobian.determinant();
        if !det.is_finite() || det == 0.0 {
            return None;
        }
        let step = jacobian.inverse() * residual;
        x -= step;
        if !x.is_finite() {
            return None;
        }
        last = step.length() / x.length().max(f32::MIN_POSITIVE);
        // Converged to 10⁻⁶ relative: near f32's resolution of ω.
        if last <= 1.0e-6 {
            return Some(x);
        }
    }
    // Rounding can keep the last steps at a few 10⁻⁶; anything still moving more is no root.
    (last <= 1.0e-4).then_some(x)
}

/// At most this many Newton iterations per body and sub-step; from ω₀ the iteration
/// converges quadratically, in 2–4 iterations for h·|ω| below 1.
const MIDPOINT_NEWTON_ITERATIONS: usize = 8;
