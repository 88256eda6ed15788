//! The spring: a force −k·x − c·ẋ along the line between the anchors (`parts::Line`), x
//! the stretch past `rest_length`, k and c fixed by `hertz`, `damping_ratio` and the
//! bodies' masses; a bungee pulls only when stretched.
//! Solved in the biased pass only (relaxing it would take out the velocity the spring
//! gave). Its accumulated impulse is `impulse.x`, along u.

use super::parts::{self, Anchors, JointBodies, Line, SubStep};
use super::{JointConstraint, JointPass};

/// The largest ω·h (ω the spring's frequency on the bodies as they turn now, 2π·hertz
/// for anchors at the centres of mass; h the sub-step) at which a spring's force is applied
/// explicitly, keeping its energy (below 19 Hz at the default 240 Hz sub-steps); stiffer
/// springs are solved implicitly, which is stable at any stiffness but damps them. Explicit
/// springs are stable up to ωh = 2 alone; the margin covers bodies held by several.
pub const SYMPLECTIC_SPRING_LIMIT: f32 = 0.5;

/// A spring's numbers, as its `JointKind::Spring` holds them.
#[derive(Clone, Copy, Debug)]
pub(super) struct Spring {
    /// Length at rest, m.
    pub rest_length: f32,
    /// Natural frequency of the bodies' masses on it, Hz (`JointKind::Spring`).
    pub hertz: f32,
    /// Damping ratio (1: critical).
    pub damping_ratio: f32,
    /// Pulls only when stretched.
    pub bungee: bool,
}

/// One pass over a spring: the warm start applies last step's impulse, the biased pass
/// solves it, the relax pass leaves it.
pub(super) fn solve<B: JointBodies + ?Sized>(
    c: &mut JointConstraint,
    spring: Spring,
    bodies: &mut B,
    step: &SubStep,
) {
    if step.pass == JointPass::Relax {
        return;
    }
    let anchors = Anchors::new(c, bodies);
    let Anchors { ra, rb, .. } = anchors;
    let line = Line::new(c, bodies, &anchors);
    let (u, length, k_along, v) = (line.u, line.length, line.k, line.rate);
    if step.pass == JointPass::WarmStart {
        parts::apply(bodies, c, ra, rb, u * (c.impulse.x + c.impulse.y));
        return;
    }
    let h = step.h;
    let Spring {
        rest_length,
        hertz,
        damping_ratio,
        bungee,
    } = spring;
    let stretch = length - rest_length;
    if (bungee && stretch <= 0.0) || k_along <= 0.0 {
        // Slack: take back what the warm start applied.
        parts::apply(bodies, c, ra, rb, -u * c.impulse.x);
        c.impulse.x = 0.0;
        return;
    }
    // The spring's stiffness and damping are the bodies' own, fixed: k_s = m·ω², c_s =
    // 2ζ·m·ω with m the reduced mass of the two (m_a·m_b/(m_a + m_b); a body's own mass
    // against the world), so the force is −k_s·x − c_s·ẋ along the line whatever the
    // bodies turn, and stores ½·k_s·x². Taken relative to the row's effective mass 1/k
    // instead (as a soft constraint's would be), the stiffness would follow the arms'
    // turning: a spring on an off-centre anchor of a spinning body would pump energy.
    let inv_mass = bodies[c.a as usize].inv_mass + bodies[c.b as usize].inv_mass;
    if inv_mass <= 0.0 {
        return;
    }
    let mass = 1.0 / inv_mass;
    let omega = std::f32::consts::TAU * hertz;
    let stiffness = mass * omega * omega;
    // Implicit damping, a = h·c_s; the stiffness explicit (b = 0) while the spring's
    // frequency on the bodies as they turn now, ω·√(m·k), keeps ω·h within
    // [`SYMPLECTIC_SPRING_LIMIT`] (semi-implicit Euler, as gravity is integrated: energy
    // neither gained nor lost), else implicit too (b = h²·k_s: stable at any stiffness,
    // and it damps). With v_free = v − k·λ the velocity without this sub-step's impulse
    // λ: λ' = −(h·k_s·x + (a + b)·v_free) / (1 + (a + b)·k).
    let a = h * 2.0 * damping_ratio * mass * omega;
    let explicit = omega * h * (mass * k_along).sqrt() <= SYMPLECTIC_SPRING_LIMIT;
    let b = if explicit { 0.0 } else { h * h * stiffness };
    let v_free = v - k_along * c.impulse.x;
    let lambda = -(h * stiffness * stretch + (a + b) * v_free) / (1.0 + (a + b) * k_along);
    let delta = lambda - c.impulse.x;
    c.impulse.x += delta;
    parts::apply(bodies, c, ra, rb, u * delta);
}
