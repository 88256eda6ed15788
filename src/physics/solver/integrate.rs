//! Integration inside a sub-step: velocities from forces, positions from velocities, and the
//! free rotation of bodies with unequal principal inertias.

use super::body::{clamp_length, SolverBody, SolverForces};
use super::StepContext;
use crate::physics::math::{Mat3, Quat, Vec3};

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
    for (body, f) in bodies.iter_mut().zip(forces) {
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
