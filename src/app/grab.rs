//! Holding a body with the mouse: a soft point constraint between a point on the body and the
//! cursor (Box2D's mouse joint, in 3D).
//!
//! The constraint C = p − target (p the grabbed point, r = p − centre of mass) is made soft with
//! a spring of frequency f and damping ratio ζ, scaled by the body's mass so that every body
//! follows alike: k = m·ω², c = 2·m·ζ·ω with ω = 2πf. It is solved implicitly once per step of
//! length h, before the world steps:
//!
//!   γ = 1 / (h·(c + h·k))                     (softness, m/(N·s))
//!   β = h·k·γ                                 (position feedback, 1/s)
//!   K = (1/m + γ)·I − [r]× · I⁻¹ · [r]×       (effective mass matrix at the point, softened)
//!   P = −K⁻¹ · (v + ω × r + β·C)              (the impulse applied at p) Because K is the effective mass *at the point* (far lower
//! than m when the point is off-centre), the impulse never overshoots: the implicit spring is
//! stable at any step. The force is capped at [`MAX_FORCE_PER_WEIGHT`] times the body's weight,
//! and the rotation about the held point is damped so a body hangs still instead of swinging.

use macroquad::prelude::{Mat3, Vec3};

use crate::physics::{BodyHandle, BodyType, World};

/// Frequency of the mouse spring, Hz.
pub const GRAB_HERTZ: f32 = 5.0;
/// Damping ratio of the mouse spring (1 = critical).
pub const GRAB_DAMPING_RATIO: f32 = 0.9;
/// The largest pull, as a multiple of the body's weight m·|g| (with |g| at least 9.81 m/s², so
/// bodies can be held without gravity too).
pub const MAX_FORCE_PER_WEIGHT: f32 = 50.0;
/// Angular velocity kept per step while held, as rotation about the held point (Box2D's
/// mouse joint keeps 0.98 of the spin about the centre).
pub const GRAB_SPIN_KEPT_PER_STEP: f32 = 0.95;

/// How far back the cursor's motion is measured for the velocity a body is let go with,
/// s of simulated time ([`release_velocity`]).
pub const RELEASE_WINDOW: f64 = 0.1;

/// The fastest a body is let go, m/s: a quick flick of the mouse moves the held point at
/// tens of m/s, which would throw the body out of the scene; a body let go this fast flies
/// about 10 m.
pub const RELEASE_MAX_SPEED: f32 = 10.0;

/// The velocity a body is let go with: the held point's target's mean velocity over the
/// last [`RELEASE_WINDOW`] of the `trail` ((simulated time, target) samples, oldest
/// first), at most [`RELEASE_MAX_SPEED`]; zero when the trail spans no time (paused).
pub fn release_velocity(trail: &[(f64, Vec3)]) -> Vec3 {
    let Some(&(now, last)) = trail.last() else {
        return Vec3::ZERO;
    };
    let Some(&(then, first)) = trail
        .iter()
        .find(|(t, _)| *t >= now - RELEASE_WINDOW - 1e-9)
    else {
        return Vec3::ZERO;
    };
    let span = (now - then) as f32;
    if span <= 1e-6 {
        return Vec3::ZERO;
    }
    ((last - first) / span).clamp_length_max(RELEASE_MAX_SPEED)
}

/// A body held by the mouse.
#[derive(Clone, Copy, Debug)]
pub struct Grab {
    /// The body.
    pub body: BodyHandle,
    /// The grabbed point in the body frame.
    pub local_point: Vec3,
    /// Distance from the camera along the mouse ray, m.
    pub distance: f32,
    /// Where the cursor wants the point, world.
    pub target: Vec3,
}

/// The state of a held body that the constraint needs.
#[derive(Clone, Copy, Debug)]
pub struct HeldBody {
    /// Mass, kg.
    pub mass: f32,
    /// Inverse inertia in world axes.
    pub inv_inertia: Mat3,
    /// Centre of mass, world.
    pub center: Vec3,
    /// Linear velocity, m/s.
    pub linear_velocity: Vec3,
    /// Angular velocity, rad/s.
    pub angular_velocity: Vec3,
}

/// The cross-product matrix [r]× with [r]×·v = r × v.
fn skew(r: Vec3) -> Mat3 {
    Mat3::from_cols(
        Vec3::new(0.0, r.z, -r.y),
        Vec3::new(-r.z, 0.0, r.x),
        Vec3::new(r.y, -r.x, 0.0),
    )
}

/// The impulse (N·s) the soft point constraint applies at `point` this step of `h` seconds to
/// pull it towards `target`; zero when the body cannot be moved.
pub fn grab_impulse(body: &HeldBody, point: Vec3, target: Vec3, h: f32, gravity: f32) -> Vec3 {
    if !(body.mass > 0.0 && h > 0.0) {
        return Vec3::ZERO;
    }
    let omega = std::f32::consts::TAU * GRAB_HERTZ;
    let stiffness = body.mass * omega * omega;
    let damping = 2.0 * body.mass * GRAB_DAMPING_RATIO * omega;
    // γ softens the constraint (a compliance per impulse), β feeds back the position error.
    let gamma = 1.0 / (h * (damping + h * stiffness));
    let beta = h * stiffness * gamma;

    let r = point - body.center;
    let rx = skew(r);
    let k = Mat3::from_diagonal(Vec3::splat(1.0 / body.mass + gamma)) - rx * body.inv_inertia * rx;
    let velocity = body.linear_velocity + body.angular_velocity.cross(r);
    let error = point - target;
    let impulse = k.inverse() * -(velocity + error * beta);
    let max_impulse = MAX_FORCE_PER_WEIGHT * body.mass * gravity.max(9.81) * h;
    let impulse = if impulse.length() > max_impulse {
        impulse * (max_impulse / impulse.length())
    } else {
        impulse
    };
    if impulse.is_finite() {
        impulse
    } else {
        Vec3::ZERO
    }
}

/// Applies the held body's constraint impulse and spin damping for a step of `h` seconds.
/// Returns false when the grab no longer applies (the body is gone or not dynamic).
pub fn apply_grab(world: &mut World, grab: &Grab, h: f32) -> bool {
    let Some(body) = world.body(grab.body) else {
        return false;
    };
    if body.body_type() != BodyType::Dynamic {
        return false;
    }
    let point = body.position() + body.rotation() * grab.local_point;
    let center = body.center_of_mass();
    // Damp the rotation about the held point, not about the centre: the point keeps its
    // velocity, so a body hanging from a corner stops swinging instead of the constraint
    // turning the lost spin back into a swing.
    let point_velocity = body.velocity_at_point(point);
    let angular_velocity = body.angular_velocity() * GRAB_SPIN_KEPT_PER_STEP;
    let held = HeldBody {
        mass: body.mass(),
        inv_inertia: body.world_inv_inertia(),
        center,
        linear_velocity: point_velocity - angular_velocity.cross(point - center),
        angular_velocity,
    };
    let gravity = world.settings().gravity.length();
    let impulse = grab_impulse(&held, point, grab.target, h, gravity);
    // Refused only for a body gone, or velocities no body can have (the step caps them below
    // the limits): the grab lets go rather than push a value the world refused.
    world
        .wake_body(grab.body)
        .and_then(|()| world.set_linear_velocity(grab.body, held.linear_velocity))
        .and_then(|()| world.set_angular_velocity(grab.body, held.angular_velocity))
        .and_then(|()| world.apply_impulse_at_point(grab.body, impulse, point))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_let_go_with_the_cursors_recent_velocity_capped() {
        // Samples every 1/60 s: at 1.2 m/s along x for 0.5 s the last 0.1 s gives 1.2 m/s
        // (older samples, at another speed, are left out).
        let mut trail: Vec<(f64, Vec3)> = (0..30)
            .map(|k| (k as f64 / 60.0, Vec3::new(0.0, 0.05 * k as f32, 0.0)))
            .collect();
        let (t0, p0) = *trail.last().unwrap();
        for k in 1..=30 {
            let dt = k as f64 / 60.0;
            trail.push((t0 + dt, p0 + Vec3::X * (1.2 * dt as f32)));
        }
        let v = release_velocity(&trail);
        assert!((v - Vec3::X * 1.2).length() < 1e-3, "{v}");
        // A flick of 2 m in 0.05 s (40 m/s) is let go at the cap.
        let flick = [(0.0, Vec3::ZERO), (0.05, Vec3::new(0.0, 2.0, 0.0))];
        let v = release_velocity(&flick);
        assert!((v - Vec3::Y * RELEASE_MAX_SPEED).length() < 1e-4, "{v}");
        // Paused (no time passed), or no samples: let go at rest.
        assert_eq!(
            release_velocity(&[(1.0, Vec3::ZERO), (1.0, Vec3::ONE)]),
            Vec3::ZERO
        );
        assert_eq!(release_velocity(&[]), Vec3::ZERO);
    }

    /// A 2 × 1 × 0.5 m box of 3 kg, at rest, with its inverse inertia in body axes
    /// (I = m/12·(b² + c²) about each axis), turned so that the world inertia is not diagonal.
    fn plank() -> HeldBody {
        let m = 3.0f32;
        let (a, b, c) = (2.0f32, 1.0, 0.5);
        let inertia = Vec3::new(b * b + c * c, a * a + c * c, a * a + b * b) * (m / 12.0);
        let r = Mat3::from_quat(macroquad::prelude::Quat::from_euler(
            macroquad::prelude::EulerRot::XYZ,
            0.4,
            -0.7,
            0.2,
        ));
        HeldBody {
            mass: m,
            inv_inertia: r * Mat3::from_diagonal(inertia.recip()) * r.transpose(),
            center: Vec3::new(1.0, 2.0, -1.0),
            linear_velocity: Vec3::new(0.3, -1.0, 0.2),
            angular_velocity: Vec3::new(2.0, -0.5, 1.0),
        }
    }

    #[test]
    fn the_impulse_solves_the_soft_constraint_at_the_grab_point() {
        // After the impulse P at r, the point's velocity v' = v + P/m + (I⁻¹(r × P)) × r must
        // satisfy the soft constraint v' + β·C + γ·P = 0 (the equation K·P = −(v + β·C) solves).
        let body = plank();
        let h = 1.0 / 60.0;
        let point = body.center + Vec3::new(0.9, 0.4, -0.2);
        let target = point + Vec3::new(0.05, 0.02, -0.03);
        let p = grab_impulse(&body, point, target, h, 9.81);
        let omega = std::f32::consts::TAU * GRAB_HERTZ;
        let (k, c) = (
            body.mass * omega * omega,
            2.0 * body.mass * GRAB_DAMPING_RATIO * omega,
        );
        let gamma = 1.0 / (h * (c + h * k));
        let beta = h * k * gamma;
        let r = point - body.center;
        let v = body.linear_velocity + body.angular_velocity.cross(r);
        let w_after = body.angular_velocity + body.inv_inertia * r.cross(p);
        let v_after = body.linear_velocity + p / body.mass + w_after.cross(r);
        let residual = v_after + (point - target) * beta + p * gamma;
        assert!(residual.length() < 1e-4 * v.length().max(1.0), "{residual}");
        assert!(p.length() < MAX_FORCE_PER_WEIGHT * body.mass * 9.81 * h);
    }

    #[test]
    fn the_pull_is_capped_at_fifty_times_the_weight() {
        // A target 100 m away would need an impulse far above the cap: it is scaled down to
        // exactly 50·m·g·h, along the same direction.
        let mut body = plank();
        body.linear_velocity = Vec3::ZERO;
        body.angular_velocity = Vec3::ZERO;
        let h = 1.0 / 60.0;
        let p = grab_impulse(&body, body.center, body.center + Vec3::X * 100.0, h, 9.81);
        let cap = MAX_FORCE_PER_WEIGHT * body.mass * 9.81 * h;
        assert!((p.length() - cap).abs() < 1e-3 * cap, "{p}");
        assert!(p.normalize().dot(Vec3::X) > 0.9999);
        // Without gravity the cap still uses 9.81 m/s², so bodies can be held in space.
        let q = grab_impulse(&body, body.center, body.center + Vec3::X * 100.0, h, 0.0);
        assert_eq!(p, q);
    }

    #[test]
    fn a_body_without_mass_gets_no_impulse() {
        let mut body = plank();
        body.mass = 0.0;
        let p = grab_impulse(&body, Vec3::ONE, Vec3::ZERO, 1.0 / 60.0, 9.81);
        assert_eq!(p, Vec3::ZERO);
    }
}
