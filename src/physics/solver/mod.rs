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
//! **The manifold's points are solved together** ([`block`]): the up to four normal
//! impulses of one contact solve (K + Γ)Δλ = −(J·v + b) − Γλ with λ + Δλ ≥ 0, K = J·M⁻¹·Jᵀ
//! the 4×4 effective mass matrix. One Gauss–Seidel sweep over the points instead gives the
//! first point more than its share; in an aligned stack that imbalance turns every cube a
//! little, the friction answers, and the stack walks sideways (measured: a 20-cube stack's
//! bottom cube slid 1.2 mm in the first second with a sweep, under 0.01 mm with the
//! block). The relax pass solves the rigid block (Γ = ε·diag K, ε = 10⁻⁴: four coplanar
//! points leave K singular, and the regularisation picks the smallest impulses without
//! a measurable give). The block is solved exactly when every point pushes (a resting face:
//! one substitution with a factorisation cached for the step); when a point lifts off or
//! joins, two projected Gauss–Seidel sweeps over the block take its place for that pass
//! (`block.rs`), and the sub-steps carry on from there as they do for any other row.
//! Single-point manifolds (spheres) are one row: Δλ = r/A₀₀.
//!
//! **Friction comes first in the biased pass and last in the relax pass.** Friction solved
//! after the biased normal block answers the push-out velocity as well as the real motion;
//! the impulses it accumulates that way are warm-started into the next sub-step as if they
//! were load, and a light body squeezed under a heavy one rocks on them (a 100 kg cube on a
//! 1 kg cube jittered at 0.2 m/s; Rapier keeps friction out of its biased pass for the same
//! reason). Solved before the block, it only sees gravity, forces and the carried-over
//! impulses; the relax pass then removes any sliding the push-out left. Where a contact
//! *sticks* (its friction impulses use at most
//! [`STICKING_FRACTION`](super::constants::STICKING_FRACTION) of their Coulomb limits, or it
//! carries no load and no friction at all) the biased pass skips its friction rows, a lane
//! group at a time when all four lanes stick: what they would answer there is the kick and
//! the warm start, which undo each other up to what the relax pass left. Rapier 0.36 leaves
//! friction out of its biased pass altogether; here contacts that slide or are about to keep
//! both solves (skipping them too let a crate slide off the swinging bridge scene). The
//! resting wall pyramids skip it in 84 % (base 20) and 81 % (base 40) of their lane groups.
//!
//! **Friction acts on the whole manifold** (as Rapier's and Bepu's contact constraints):
//! the two tangent directions at the manifold's centre, solved together with their 2×2
//! mass matrix and bounded by μ·Σλ_n, and a twist about the normal bounded by μ·Σλ_i·d_i
//! (d_i: each point's distance from the centre across the normal, so a box spinning on its
//! corners slows at the rate per-point Coulomb friction gives). Three rows per manifold
//! instead of two per point made the pyramids' steps 10–18 % faster with the tops moving no
//! more (docs/performance.md, seventh round). The two tangents are solved together:
//! solving them one after the other leaves a residual along the other direction when the
//! body's inertia couples them, and iterating that residual pumps energy into tall
//! stacks.
//!
//! **Lever arms are anchored** (see `world/solve.rs`): a contact point keeps the arms it was
//! first solved with while the narrow phase still finds it within a small reach of them.
//! Re-deriving them every step from the clipped geometry lets a resting soft contact follow
//! its body's tilt with a one-step lag; in a tall stack the weight above then shifts over
//! supports that stay put, and below ~30 Hz contacts this geometric feedback exceeds the
//! contacts' rotational stiffness: the stack buckles. Measured on 20 unit cubes at 30 Hz,
//! the lean doubled every 1.07 s, exactly the growth rate of the linearised column of 19
//! springy joints (k = ω²/K_ii per corner) under its own weight. With anchored arms the
//! same stack leans less than a millimetre in a minute. The narrow phase still measures the
//! separation every step, so nothing sinks or passes through.
//!
//! **Mass ratios get finer sub-steps** (see [`substeps_for_mass_ratio`]): a contact is a
//! spring relative to the *lighter* body (k = ω²/K_ii), so a light body under a heavy one
//! sinks by the mass ratio times the usual depth, and a stiffer spring than the sub-step can
//! resolve rocks. An island whose touching bodies differ in mass by more than
//! [`MASS_RATIO_FREE`](super::constants::MASS_RATIO_FREE) is solved with more sub-steps and
//! contacts stiffer in proportion, so the depth of a heavy body on a light one stays about
//! what equal masses give. Jointed bodies count as touching: the joints of a light body
//! between heavy ones are solved one after another, each undoing part of what the last
//! gave it, and at the base count a half-milligram body on a rope and a ball joint to
//! bodies a hundred and two thousand times heavier pumped them to the speed cap, where
//! twice the sub-steps keep its energy level
//! (`tests/corpus/joints/locked_microgram_rope_cone_energy.ron`). Other islands keep the
//! base count and cost nothing extra.
//!
//! The separation is tracked during the step without re-running collision: each body
//! accumulates its displacement Δx and rotation Δq, and the contact's two material points
//! are moved with them. Impulse arms follow the bodies' translation. Each body's impulses
//! act at its own anchored point; the two anchors of a point sit at most twice the anchoring
//! reach apart (a quarter of the smaller shape's feature size: 12.5 cm on unit cubes), so
//! linear momentum is conserved exactly and angular momentum up to that distance × impulse.
//! The reach is a trade: a small one (it was 2 cm, about 2° of turning on a unit cube)
//! re-derives the arms of a slowly leaning column often enough to bring the buckling back,
//! and 16-cube columns of offset cubes toppled where Rapier's stand
//! (`tests/suite/physics_stability.rs`); much larger and a sliding or tumbling body acts through
//! arms that are visibly stale. A single shared point (the anchors' midpoint) would be
//! exact but moves with the bodies' relative motion, which is the buckling feedback again
//! (measured: the 20-stack fell at 12 s with a shared midpoint, held with separate anchors).
//!
//! **Isotropic inertia.** A cube's or a sphere's inverse inertia is a multiple of the
//! identity in every frame (`Body::world_inv_inertia` returns it unrotated), and a lane
//! group whose eight bodies all have one turns an impulse by three products instead of a
//! symmetric 3×3 product (`ConstraintLanes::turn_a`), the same value.
//!
//! **Colours and lanes.** The constraints are coloured so that no two of a colour move the
//! same body ([`graph_colour`]), taking them from the lowest up so that a body's supports
//! are solved before what it carries, and each colour is solved four constraints at a
//! time, one per SIMD lane ([`lanes`], [`simd`]). Lanes never share a movable body, so the
//! result is what solving the colour's constraints one by one gives, bit for bit.
//!
//! **Size.** Nothing in the solver has a length scale: the soft contact is set by a
//! frequency, so a resting contact sinks by W·K_ii/ω², a depth set by gravity and the
//! frequency alone (a body's weight W and its K_ii scale inversely). A stack of three 1 cm
//! cubes sinks exactly as far as a stack of three 1 m cubes (0.94 mm at 45 Hz), which is
//! 0.03 % of the 1 m stack and 3 % of each 1 cm cube: tiny bodies visibly overlap a fraction
//! of a millimetre, as in Box2D and Rapier. The length scales live elsewhere and are either
//! relative to size or absolute and tested from 1 cm to 100 m
//! (`tests/suite/physics_stability.rs`): the anchoring reach (¼ feature size), the sleep
//! thresholds (`island::sleep_tolerances`), the speculative margin (absolute 2 cm, harmless
//! on small bodies because the plane, box and hull manifolds only take points from the
//! support face) and the narrow phase's SAT tolerance (2.5 mm absolute plus 5–10 % of the
//! penetration; it only chooses between face and edge contacts).

mod block;
mod body;
mod constraint;
mod contact_solve;
pub(crate) mod crew;
mod graph_colour;
mod group;
mod impact;
mod integrate;
mod lanes;
mod simd;

pub(crate) use body::{clamp_length, SolverBody, SolverForces};
pub(crate) use constraint::{invert_or_zero, ConstraintInput, ConstraintShared, PointInput};
pub(crate) use graph_colour::{ConstraintGraph, COLOURS, OVERFLOW};
pub(crate) use group::{run_group, GroupData};
pub(crate) use impact::propagate_impacts;
pub(crate) use lanes::{prepare_colours, ConstraintLanes, LaneBlocks, PassFactors};
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
