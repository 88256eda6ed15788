//! The spring: a soft distance of its own `hertz` and `damping_ratio` about `rest_length`
//! along the line between the anchors (`parts::Line`); a bungee pulls only when stretched.
//! Solved in the biased pass only (relaxing it would take out the velocity the spring
//! gave). Its accumulated impulse is `impulse.x`, along u.

use super::super::solver::{Softness, SolverBody};
use super::parts::{self, Anchors, Line, SubStep};
use super::{JointConstraint, JointPass};

/// The largest ω·h (ω = 2π·hertz, h the sub-step) at which a spring's force is applied
/// explicitly, keeping its energy (below 19 Hz at the default 240 Hz sub-steps); stiffer
/// springs are solved implicitly, which is stable at any stiffness but damps them. Explicit
/// springs are stable up to ωh = 2 alone; the margin covers bodies held by several.
pub const SYMPLECTIC_SPRING_LIMIT: f32 = 0.5;

/// A spring's numbers, as its `JointKind::Spring` holds them.
#[derive(Clone, Copy, Debug)]
pub(super) struct Spring {
    /// Length at rest, m.
    pub rest_length: f32,
    /// Natural frequency for the attached mass, Hz.
    pub hertz: f32,
    /// Damping ratio (1: critical).
    pub damping_ratio: f32,
    /// Pulls only when stretched.
    pub bungee: bool,
}

/// One pass over a spring: the warm start applies last step's impulse, the biased pass
/// solves it, the relax pass leaves it.
pub(super) fn solve(
    c: &mut JointConstraint,
    spring: Spring,
    bodies: &mut [SolverBody],
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
    let omega = std::f32::consts::TAU * hertz;
    let delta = if omega * h <= SYMPLECTIC_SPRING_LIMIT {
        // The spring's force from the stretch at the sub-step's start (explicit, as
        // semi-implicit Euler integrates gravity: energy neither gained nor lost), its
        // damping implicit: v' = (v_free − h·ω²·x) / (1 + d) with d = 2ζωh, v_free the
        // velocity without this sub-step's spring impulse λ. As an update of λ that any
        // number of iterations leaves fixed: Δλ = −(m·(d·v + h·ω²·x) + λ) / (1 + d), m = 1/k.
        let d = 2.0 * damping_ratio * omega * h;
        -((d * v + h * omega * omega * stretch) / k_along + c.impulse.x) / (1.0 + d)
    } else {
        // Too stiff for that: the soft step (implicit, stable at any stiffness, losing
        // (ωh)²/2 of the energy per sub-step).
        let soft = Softness::new(hertz, damping_ratio, h);
        let (mass_scale, impulse_scale) = parts::scales(&soft);
        -mass_scale * (v + soft.bias_rate * stretch) / k_along - impulse_scale * c.impulse.x
    };
    c.impulse.x += delta;
    parts::apply(bodies, c, ra, rb, u * delta);
}
