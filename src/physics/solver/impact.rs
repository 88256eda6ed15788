//! Impacts passed along rows of touching bouncy bodies, before the sub-steps.
//!
//! The sub-steps solve every contact of a step together and inelastically, and restitution
//! then bounces each contact by the speed it closed at before the step. A ball hitting the
//! end of a row of touching balls (a Newton's cradle) closes only the first contact; the
//! solver pushes the whole row along at a fifth of the speed, the rest of the row's contacts
//! never closed, and the last ball leaves with a fraction of what it should.
//!
//! Here each impact between two bouncy dynamic bodies is resolved as a two-body collision
//! in turn, with the velocities the earlier impacts left (sequential impulses in the order
//! the impact travels, the propagation of Guendelman et al. 2003 applied to impacts):
//!
//! ```text
//! repeat until no contact closes (at most one sweep per contact):
//!     for each single-point contact between dynamic bodies with restitution e > 0:
//!         v_n = n·(v_b + ω_b×r_b − v_a − ω_a×r_a)
//!         if v_n < −threshold and the gap closes this step (gap + v_n·dt ≤ 0):
//!             λ = −(1 + e)·v_n / K,  K = m_a⁻¹ + m_b⁻¹ + (r_a×n)·I_a⁻¹(r_a×n) + (r_b×n)·I_b⁻¹(r_b×n)
//!             apply λ·n to b, −λ·n to a
//! ```
//!
//! A ball striking a row of equal touching balls at v then stops, and the last ball leaves
//! at e^n·v; each collision keeps (e = 1) or loses energy. The contact leaves the impact
//! separating, so the sub-steps have nothing to push and restitution nothing to add.
//! Single-point contacts only (spheres, a capsule's side): a face landing on a face has
//! several points, and bouncing them one after another would spin it.

use super::{ConstraintInput, SolverBody};

/// Resolves the step's impacts between bouncy dynamic bodies (module notes). `dt` is the
/// step, `threshold` the slowest approach that bounces (m/s).
pub(crate) fn propagate_impacts(
    constraints: &[ConstraintInput],
    bodies: &mut [SolverBody],
    dt: f32,
    threshold: f32,
) {
    let bouncy = |c: &ConstraintInput, bodies: &[SolverBody]| {
        c.count == 1
            && c.shared.material.restitution > 0.0
            && bodies[c.body_a as usize].is_dynamic()
            && bodies[c.body_b as usize].is_dynamic()
    };
    let sweeps = constraints.iter().filter(|c| bouncy(c, bodies)).count();
    for _ in 0..sweeps {
        let mut any = false;
        for c in constraints {
            if !bouncy(c, bodies) {
                continue;
            }
            let (ia, ib) = (c.body_a as usize, c.body_b as usize);
            let (a, b) = (bodies[ia], bodies[ib]);
            let p = &c.points[0];
            let n = c.shared.normal;
            let (ra, rb) = (p.anchor_a, p.anchor_b);
            let vn = n.dot(
                b.linear_velocity + b.angular_velocity.cross(rb)
                    - a.linear_velocity
                    - a.angular_velocity.cross(ra),
            );
            let gap = -p.depth;
            if vn >= -threshold || gap + vn * dt > 0.0 {
                continue;
            }
            let (ua, ub) = (ra.cross(n), rb.cross(n));
            let k =
                a.inv_mass + b.inv_mass + ua.dot(a.inv_inertia * ua) + ub.dot(b.inv_inertia * ub);
            if k.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
                continue;
            }
            let lambda = -(1.0 + c.shared.material.restitution) * vn / k;
            let a = &mut bodies[ia];
            a.linear_velocity -= a.inv_mass * lambda * n;
            a.angular_velocity -= a.inv_inertia * (lambda * ua);
            let b = &mut bodies[ib];
            b.linear_velocity += b.inv_mass * lambda * n;
            b.angular_velocity += b.inv_inertia * (lambda * ub);
            any = true;
        }
        if !any {
            break;
        }
    }
}
