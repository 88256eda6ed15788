//! The contact solver: sequential impulses (Catto, GDC 2006) in Box2D v3's "soft step"
//! arrangement (Catto, "Solver2D", 2024).
//!
//! Why soft step: a classic solver (one step, many velocity iterations, Baumgarte bias)
//! pushes penetration out with a velocity bias that also adds energy, and tall stacks and
//! large mass ratios jitter or sink. Soft step cuts the step into sub-steps, each with one
//! biased iteration whose bias comes from a damped spring (a "soft constraint": stiffness
//! and damping given as a frequency and a damping ratio, so it behaves the same whatever
//! the mass), then a *relax* iteration without bias that removes the velocity the bias
//! added. Restitution runs once after the sub-steps, on the normal velocity measured just
//! before impact.
//!
//! Per step (for each group of islands, with the group's sub-step count):
//! ```text
//! prepare: lever arms (anchored, see below), the manifold's normal mass matrix K,
//!          friction masses, warm-start impulses carried over from the last step
//! impacts: bouncy dynamic bodies that close on one point this step collide, one pair
//!          after another (`impact.rs`: a Newton's cradle of touching balls)
//! for each sub-step of length h:
//!     integrate velocities   v += h·(g + F/m),  ω += h·I⁻¹τ,  damping, speed caps
//!     warm start             apply the accumulated impulses
//!     solve (with bias)      Coulomb friction, then the soft normal block
//!     integrate positions    x += h·v,  q turned by ω (gyroscopic: world L kept)
//!     relax (no bias)        the normal block (rigid), then friction
//! restitution                v_n ← −e·v_n(before impact), for points hit faster than
//!                            the threshold
//! store impulses             for warm starting the next step
//! ```
//!
//! Normal constraint of one point: C = separation ≥ 0, J = [−n, −(r_a×n), n, (r_b×n)].
//! A soft constraint of frequency ω and damping ratio ζ over a sub-step h is, with
//! a₂ = hω(2ζ + hω): bias b = ω/(2ζ + hω)·C and a compliance (CFM) γ = K_ii/a₂, and the
//! impulse solves (K_ii + γ)Δλ = −(J·v + b) − γλ (Catto, "Soft Constraints", GDC 2011).
//! At rest this is a spring of stiffness k = ω²/K_ii per point: a point carrying the
//! weight W sinks W·K_ii/ω². Separated points (C > 0) are speculative: b = C/h lets them
//! close exactly the gap, and they are rigid (γ = 0).
//!
//! The parts, each argued with measurements in `docs/design/solver.md`:
//!
//! - **The manifold's points are solved together** ([`block`]): the up to four normal
//!   impulses of a contact as one small complementarity problem (a sweep over the points
//!   walks an aligned stack sideways); the relax pass solves the rigid block, regularised by
//!   ε = 10⁻⁴ of K's diagonal.
//! - **Friction comes first in the biased pass and last in the relax pass**, and contacts that
//!   stick (their friction within [`STICKING_FRACTION`](super::constants::STICKING_FRACTION)
//!   of the Coulomb limit) skip it in the biased pass: friction that answers the push-out
//!   velocity rocks a light body under a heavy one.
//! - **Friction acts on the whole manifold** ([`friction`]): two tangent rows at its centre
//!   solved together and a twist about the normal, bounded by μ·Σλ_n and μ·Σλ_i·d_i.
//! - **Lever arms are anchored** (`world/solve/mod.rs`): a point keeps the arms it was first
//!   solved with while it stays within a reach of a quarter of the feature size; re-derived
//!   arms make tall stacks buckle below ~30 Hz contacts.
//! - **Mass ratios get finer sub-steps** ([`substeps_for_mass_ratio`]): islands whose bodies
//!   differ by more than [`MASS_RATIO_FREE`](super::constants::MASS_RATIO_FREE) in mass
//!   (jointed bodies included) get more sub-steps and stiffer contacts in proportion.
//! - **Isotropic inertia**: bodies whose inverse inertia is a multiple of the identity turn
//!   an impulse with three products instead of a 3×3 one (`ConstraintLanes::turn_a`).
//! - **Colours and lanes**: constraints coloured so that no two of a colour move the same body
//!   ([`graph_colour`]), lowest first, each colour solved four at a time in SIMD lanes
//!   ([`lanes`], [`simd`]; the passes over them in [`contact_solve`], the bodies'
//!   velocities gathered into lanes and back in [`lane_velocities`]), bit for bit what one
//!   by one gives.
//! - **No length scale**: a resting contact sinks W·K_ii/ω² whatever the body's size; the
//!   length scales (anchoring reach, sleep thresholds, speculative margin, SAT tolerance) live
//!   elsewhere and are tested from 1 cm to 100 m.

mod block;
mod body;
mod constraint;
mod contact_solve;
pub(crate) mod crew;
mod friction;
mod graph_colour;
mod group;
mod impact;
mod integrate;
mod lane_velocities;
mod lanes;
pub(crate) mod simd;

pub(crate) use body::{clamp_length, SolverBody, SolverForces};
pub(crate) use constraint::{invert_or_zero, ConstraintInput, ConstraintShared, PointInput};
pub(crate) use graph_colour::{ConstraintGraph, COLOURS, OVERFLOW};
pub(crate) use group::{run_group, shares_blocks, GroupData};
pub(crate) use impact::propagate_impacts;
pub(crate) use lanes::{prepare_colours, ColdLanes, ConstraintLanes, PassFactors};
pub(crate) use simd::LANES;

use super::constants::{MASS_RATIO_FREE, MAX_SUBSTEPS};

/// Soft constraint coefficients of one spring over one sub-step (see the module notes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Softness {
    /// b/C = ω/(2ζ + hω), 1/s.
    pub bias_rate: f32,
    /// 1/a₂ = 1/(hω(2ζ + hω)): the compliance of a point is this times its K_ii.
    pub compliance_scale: f32,
}

impl Softness {
    /// A rigid constraint: no bias, no give.
    pub const RIGID: Softness = Softness {
        bias_rate: 0.0,
        compliance_scale: 0.0,
    };

    /// Coefficients of a spring of `hertz` and damping ratio `zeta` over a sub-step `h`.
    pub fn new(hertz: f32, zeta: f32, h: f32) -> Softness {
        if hertz <= 0.0 {
            return Softness::RIGID;
        }
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        Softness {
            bias_rate: omega / a1,
            compliance_scale: 1.0 / a2,
        }
    }

    /// Box2D's form of the same update for one point, Δλ = −m·s_m·(v + b) − s_i·λ:
    /// (mass scale s_m, impulse scale s_i) with s_m + s_i = 1.
    #[cfg(test)]
    pub fn scales(&self) -> (f32, f32) {
        let impulse_scale = self.compliance_scale / (1.0 + self.compliance_scale);
        (1.0 - impulse_scale, impulse_scale)
    }
}

/// Per-step constants the solver loops need (one set per sub-step group).
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
    pub max_angular_speed: f32,
}

/// Sub-steps for an island whose touching dynamic bodies differ in mass by `ratio` (≥ 1),
/// given the world's `base` count: the base up to [`MASS_RATIO_FREE`], then growing with
/// √ratio so that ratio/n² (the depth of a heavy body on a light one, contacts stiffened
/// with n) stays where it is at the free ratio; at most [`MAX_SUBSTEPS`].
pub(crate) fn substeps_for_mass_ratio(base: u32, ratio: f32) -> u32 {
    let base = base.max(1);
    // NaN compares false: the base count.
    if ratio.is_nan() || ratio <= MASS_RATIO_FREE {
        return base;
    }
    let wanted = (base as f32 * (ratio / MASS_RATIO_FREE).sqrt()).ceil();
    (wanted.min(MAX_SUBSTEPS as f32) as u32).max(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_hertz_is_rigid() {
        assert_eq!(Softness::new(0.0, 1.0, 0.01), Softness::RIGID);
    }

    #[test]
    fn softness_coefficients_match_the_spring_formulas() {
        // ω = 2π·30, ζ = 10, h = 1/240: a1 = 2ζ + hω, a2 = hω·a1, bias rate ω/a1, and
        // Box2D's scales s_m = a2/(1+a2), s_i = 1/(1+a2).
        let (hz, zeta, h) = (30.0f32, 10.0f32, 1.0f32 / 240.0);
        let w = 2.0 * std::f32::consts::PI * hz;
        let a1 = 2.0 * zeta + h * w;
        let a2 = h * w * a1;
        let s = Softness::new(hz, zeta, h);
        assert!((s.bias_rate - w / a1).abs() < 1e-4);
        let (mass_scale, impulse_scale) = s.scales();
        assert!((mass_scale - a2 / (1.0 + a2)).abs() < 1e-6);
        assert!((impulse_scale - 1.0 / (1.0 + a2)).abs() < 1e-6);
    }

    #[test]
    fn substeps_grow_with_the_square_root_of_the_mass_ratio() {
        assert_eq!(substeps_for_mass_ratio(4, 1.0), 4);
        assert_eq!(substeps_for_mass_ratio(4, MASS_RATIO_FREE), 4);
        // 4·√(4·free/free) = 8.
        assert_eq!(substeps_for_mass_ratio(4, 4.0 * MASS_RATIO_FREE), 8);
        assert_eq!(substeps_for_mass_ratio(4, 1.0e9), MAX_SUBSTEPS);
        assert_eq!(substeps_for_mass_ratio(4, f32::NAN), 4);
        // A world already finer than the ratio needs keeps its own count.
        assert_eq!(substeps_for_mass_ratio(32, 4.0 * MASS_RATIO_FREE), 32);
    }
}
