//! The bound on how much more mobile one jointed body may be than its partner, as the solver
//! sees them ([`MAX_JOINT_MOBILITY_RATIO`]).
//!
//! The joints' direct solve (`block`) regularises K = J·M⁻¹·Jᵀ by a share of each diagonal,
//! which the most mobile body dominates; what only a far heavier partner can answer is then
//! a pivot below the regularisation, and the partner falls through the joint. The bound
//! keeps such pivots above it: a body that moves far more easily at a joint's anchor than
//! the body at the other end is given, for the step's solver, extra mass or inertia that
//! brings each part of its mobility there down to the bound (one pass against the partners' own
//! mobilities: along a chain of ever lighter bodies a ratio can stay above the bound, each
//! link within it of its heavier neighbour as that neighbour was). The solver sees that
//! body so everywhere (contacts, joints, restitution, the rotation of its inertia between
//! sub-steps), so every impulse conserves momentum in one set of masses; gravity, applied
//! forces, the free motion and everything the body reports keep its own mass and inertia.
//! Every joint kind counts, springs and ropes too.
//!
//! The measure is a row sum in world axes (a bound on the largest eigenvalue within a
//! factor √3), so it depends a little on how a body is turned: the same body can read up
//! to √3 times more in one orientation than in another.
//!
//! A partner locked along every translation axis is not a heavy body to be answered (its
//! locks hold it): jointed within a hair of its centre, it would otherwise count as one, and
//! the body on it would hit others like a far heavier one (a paddle welded 0.1 mm off the
//! centre of a translation-locked rotor would give a ball it strikes energy it never had).

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use super::super::constants::MAX_JOINT_MOBILITY_RATIO;
use super::super::math::{skew, Mat3, Vec3};
use super::super::solver::crew::for_each_block;
use super::super::world::World;
use glam::DMat3;

/// Joints per block of the quick test ([`World::bound_jointed_mobility`]): some tens of
/// nanoseconds each, so a block is tens of microseconds, above what handing it to a
/// worker costs.
const SCAN_BLOCK: usize = 1024;

/// One side of a joint as the bound sees it: the body's inverse mass along the world axes
/// (0 on locked ones), its world inverse inertia (locked rows and columns 0) and the arm from
/// its centre of mass to the anchor, m.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Side {
    pub inv_mass: Vec3,
    pub inv_inertia: Mat3,
    pub arm: Vec3,
}

/// What the solver does to one body: scales its inverse mass by `scale` and adds `floor`
/// (kg·m²) to its inertia about every axis ([`floored_inv_inertia`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bound {
    pub scale: f32,
    pub floor: f32,
}

impl Bound {
    /// Nothing changed.
    pub const NONE: Bound = Bound {
        scale: 1.0,
        floor: 0.0,
    };

    /// The stronger of two bounds, part by part.
    fn join(self, other: Bound) -> Bound {
        Bound {
            scale: self.scale.min(other.scale),
            floor: self.floor.max(other.floor),
        }
    }
}

/// Largest row sum of absolute values: at least the largest eigenvalue of a symmetric
/// matrix (Gershgorin).
fn norm(m: Mat3) -> f32 {
    let t = m.transpose();
    let row = |v: Vec3| v.abs().element_sum();
    row(t.x_axis).max(row(t.y_axis)).max(row(t.z_axis))
}

/// What a side's mobility is at most, for the quick test ([`within`]): its largest free
/// inverse mass, and [`turn_bound`].
#[derive(Clone, Copy, Debug)]
struct Reach {
    linear: f32,
    turn: f32,
}

impl Reach {
    fn of(side: &Side) -> Reach {
        Reach {
            linear: side.inv_mass.max_element(),
            turn: turn_bound(side.inv_inertia, side.arm.length_squared()),
        }
    }
}

/// 2·tr(I⁻¹)·|r|², at least the turning part of [`mobility`] for an inverse inertia
/// `inv_inertia` and an arm of length² `arm2`: a row sum of a symmetric positive
/// semi-definite 3×3 matrix is at most √3 times its largest eigenvalue, that of
/// \[r\]×ᵀ·I⁻¹·\[r\]× at most λ_max(I⁻¹)·|r|², and λ_max(I⁻¹) at most the trace. Three
/// additions, where the turning part itself takes two matrix products.
fn turn_bound(inv_inertia: Mat3, arm2: f32) -> f32 {
    2.0 * (inv_inertia.x_axis.x + inv_inertia.y_axis.y + inv_inertia.z_axis.z) * arm2
}

/// Whether a joint is within `ratio` for sure: each side's linear part and turning bound
/// within `ratio` times the other side's linear part alone (a lower bound of its mobility).
fn within(a: Reach, b: Reach, ratio: f32) -> bool {
    a.linear.max(a.turn) <= ratio * b.linear && b.linear.max(b.turn) <= ratio * a.linear
}

/// (linear, turning) mobility of a side at its anchor: its largest free inverse mass, and
/// how far turning moves the anchor per unit impulse, |\[r\]×ᵀ·I⁻¹·\[r\]×| (a rod's spin about
/// its own axis, along the arm, moves nothing there).
fn mobility(side: &Side) -> (f32, f32) {
    let cross = skew(side.arm);
    (
        side.inv_mass.max_element(),
        norm(cross.transpose() * side.inv_inertia * cross),
    )
}

/// The bounds one joint asks for on its two sides. Where a side's linear part exceeds
/// `ratio` times the other side's whole mobility μ (linear plus turning), its inverse mass
/// is scaled down to it; where its turning part t does, it gets the floor
/// δ = |r|²·(1/(ratio·μ) − 1/t): the inertia about its easiest axis there, |r|²/t, raised to
/// |r|²/(ratio·μ), which keeps the part's largest eigenvalue within the ratio; δ grows from
/// 0 as t passes the ratio, with no jump as a body turns across it. A side whose partner
/// may not move along any axis (a static body, or one locked along every translation axis:
/// its locks hold it, so no weight or momentum of it flows through the joint) or barely
/// moves at the anchor (below f32's normal range, where 1/limit would overflow) is left as
/// it is.
pub(crate) fn pair_bounds(a: &Side, b: &Side, ratio: f32) -> [Bound; 2] {
    if within(Reach::of(a), Reach::of(b), ratio) {
        return [Bound::NONE; 2];
    }
    let (ma, mb) = (mobility(a), mobility(b));
    [(a, ma, mb), (b, mb, ma)].map(|(side, (linear, turn), other)| {
        let limit = ratio * (other.0 + other.1);
        let mut bound = Bound::NONE;
        // A partner locked along every translation axis carries no weight or momentum
        // through the joint (its locks hold it), so it is no heavy body to be answered.
        if other.0 == 0.0 || limit.is_nan() || limit < f32::MIN_POSITIVE {
            return bound;
        }
        if linear > limit {
            bound.scale = limit / linear;
        }
        if turn > limit {
            bound.floor = side.arm.length_squared() * (1.0 / limit - 1.0 / turn);
        }
        bound
    })
}

/// (I + δ·𝟙)⁻¹ from `inv_inertia` = I⁻¹ (world axes) and the floor δ, kg·m²: the body's
/// inverse inertia with δ added about every axis, which caps each of its eigenvalues at
/// 1/δ and leaves those far below it as they are. Computed as I⁻¹·(𝟙 + δ·I⁻¹)⁻¹ in f64,
/// so a locked axis (a zero row and column of I⁻¹) stays locked. Returns `inv_inertia`
/// itself when δ is 0.
pub(crate) fn floored_inv_inertia(inv_inertia: Mat3, floor: f32) -> Mat3 {
    if floor == 0.0 {
        return inv_inertia;
    }
    let m = inv_inertia.as_dmat3();
    let floored = m * (DMat3::IDENTITY + m * floor as f64).inverse();
    // Symmetric up to f64 rounding; made exactly so, as the constraints' K assumes.
    (0.5 * (floored + floored.transpose())).as_mat3()
}

impl World {
    /// Bounds the mobility ratio of every joint between two awake dynamic bodies
    /// ([`pair_bounds`] at [`MAX_JOINT_MOBILITY_RATIO`], each body taking the strongest
    /// bound its joints ask for) in the solver's bodies, after they are gathered and before
    /// any constraint reads them: their inverse masses and inverse inertias, and the floor
    /// the sub-steps keep as the bodies turn (`SolverForces::inertia_floor`). Mobilities are
    /// the step start's. A quick test ([`within`]) of every joint, on every worker, comes
    /// first; nothing is written, and no more work done, unless some joint fails it.
    pub(crate) fn bound_jointed_mobility(&mut self) {
        let Self {
            joints,
            bodies,
            scratch,
            ..
        } = self;
        let first_dynamic = 1 + scratch.solver.kinematic_count as u32;
        let (solver_bodies, forces) = (&scratch.solver.bodies, &scratch.solver.forces);
        let bounds = &mut scratch.joints.mobility_bounds;
        bounds.clear();
        // The joint's two bodies and their sides, where both are awake and dynamic.
        let pair = |joint: &super::Joint| {
            let a = bodies.get(joint.def.body_a)?;
            let b = bodies.get(joint.def.body_b?)?;
            let awake = |index: u32| index != super::super::body::NULL && index >= first_dynamic;
            if !(awake(a.solver_index) && awake(b.solver_index)) {
                return None;
            }
            Some((a, b))
        };
        let side = |body: &super::super::body::Body, local_anchor: Vec3| {
            let i = body.solver_index as usize;
            Side {
                inv_mass: solver_bodies[i].inv_mass * forces[i].linear_free,
                inv_inertia: solver_bodies[i].inv_inertia,
                arm: body.rotation * (local_anchor - body.local_center),
            }
        };
        // The quick test's bounds, from the arm in the body's frame (same length).
        let reach = |body: &super::super::body::Body, local_anchor: Vec3| {
            let i = body.solver_index as usize;
            let arm2 = (local_anchor - body.local_center).length_squared();
            Reach {
                linear: (solver_bodies[i].inv_mass * forces[i].linear_free).max_element(),
                turn: turn_bound(solver_bodies[i].inv_inertia, arm2),
            }
        };
        // The quick test on every joint, on every worker; most scenes stop here (long thin
        // links, whose trace counts their spin about their own axis, go on).
        let needed = AtomicBool::new(false);
        for_each_block(joints.capacity(), SCAN_BLOCK, &|range: Range<usize>| {
            let exceeds = range.into_iter().any(|slot| {
                let Some(j) = joints.at(slot as u32) else {
                    return false;
                };
                pair(j).is_some_and(|(a, b)| {
                    let (a, b) = (
                        reach(a, j.def.local_anchor_a),
                        reach(b, j.def.local_anchor_b),
                    );
                    !within(a, b, MAX_JOINT_MOBILITY_RATIO)
                })
            });
            if exceeds {
                needed.store(true, Ordering::Relaxed);
            }
        });
        if !needed.load(Ordering::Relaxed) {
            return;
        }
        bounds.resize(solver_bodies.len(), Bound::NONE);
        for (_, joint) in joints.iter() {
            let Some((a, b)) = pair(joint) else {
                continue;
            };
            let asked = pair_bounds(
                &side(a, joint.def.local_anchor_a),
                &side(b, joint.def.local_anchor_b),
                MAX_JOINT_MOBILITY_RATIO,
            );
            for (body, bound) in [a, b].into_iter().zip(asked) {
                let slot = &mut bounds[body.solver_index as usize];
                *slot = slot.join(bound);
            }
        }
        let solver = &mut scratch.solver;
        for ((body, f), bound) in solver.bodies.iter_mut().zip(&mut solver.forces).zip(bounds) {
            if *bound != Bound::NONE {
                body.inv_mass *= bound.scale;
                body.inv_inertia = floored_inv_inertia(body.inv_inertia, bound.floor);
                f.inertia_floor = bound.floor;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The floor caps each eigenvalue λ of I⁻¹ at λ/(1 + δ·λ) < 1/δ along its own axis,
    /// keeps a locked axis's row and column exactly 0, and changes nothing at δ = 0.
    #[test]
    fn the_inertia_floor_caps_each_eigenvalue_and_keeps_the_locks() {
        // Eigenvalues 10¹⁰ and 2 along x and y, then 10³ and 2 about axes turned 30° in the
        // x–y plane (f32 holds such a matrix's small eigenvalue to 10⁻⁴ of the large one);
        // z locked in both.
        let floor = 1.0e-4;
        for (large, angle) in [(1.0e10f32, 0.0f32), (1.0e3, 30.0)] {
            let turn = Mat3::from_rotation_z(angle.to_radians());
            let inv_inertia =
                turn * Mat3::from_diagonal(Vec3::new(large, 2.0, 0.0)) * turn.transpose();
            let floored = floored_inv_inertia(inv_inertia, floor);
            for (axis, lambda) in [(turn.x_axis, large as f64), (turn.y_axis, 2.0)] {
                let expected = lambda / (1.0 + floor as f64 * lambda);
                let got = (floored * axis).as_dvec3();
                // Along the world axes to f32 rounding of the result; turned, to what f32
                // kept of the input (10⁻⁴ of λ = 10³: 0.1, 5 % of λ = 2).
                let tolerance = if angle == 0.0 {
                    1.0e-6 * expected
                } else {
                    1.0e-4 * large as f64
                };
                assert!(
                    (got - axis.as_dvec3() * expected).length() < tolerance,
                    "λ = {lambda}: I'⁻¹·e = {got}, expected {expected}·e"
                );
            }
            assert_eq!(floored.z_axis, Vec3::ZERO);
            assert_eq!(floored.row(2), Vec3::ZERO);
            assert_eq!(floored, floored.transpose());
            assert_eq!(floored_inv_inertia(inv_inertia, 0.0), inv_inertia);
        }
    }

    /// A 1 µg body (m⁻¹ = 10⁶, I⁻¹ = 10⁹) on a 0.5 m arm jointed to a 2 kg body at its centre
    /// (mobility μ = 0.5 there): its inverse mass is scaled to exactly ratio·μ, and the
    /// floor δ = |r|²·(1/(ratio·μ) − 1/t), t = |\[r\]×ᵀ·10⁹·\[r\]×| = 2.5·10⁸, brings its turning
    /// at the arm to ratio·μ; the 2 kg body is left as it is. A 1 kg body on the 2 kg one
    /// (ratio 2), and the light body on a body that cannot move, are left as they are.
    #[test]
    fn a_body_far_more_mobile_than_its_partner_is_bounded_to_the_ratio() {
        let ratio = MAX_JOINT_MOBILITY_RATIO;
        let light = Side {
            inv_mass: Vec3::splat(1.0e6),
            inv_inertia: Mat3::from_diagonal(Vec3::splat(1.0e9)),
            arm: Vec3::new(0.5, 0.0, 0.0),
        };
        let heavy = Side {
            inv_mass: Vec3::splat(0.5),
            inv_inertia: Mat3::from_diagonal(Vec3::splat(3.0)),
            arm: Vec3::ZERO,
        };
        let [bounded, other] = pair_bounds(&light, &heavy, ratio);
        let limit = ratio * 0.5;
        assert!(
            (bounded.scale * 1.0e6 - limit).abs() < 1.0e-6 * limit,
            "{bounded:?}"
        );
        let expected_floor = 0.25 * (1.0 / limit - 1.0 / 2.5e8);
        assert!(
            (bounded.floor - expected_floor).abs() < 1.0e-6 * expected_floor,
            "{} vs {expected_floor}",
            bounded.floor
        );
        let cross = skew(light.arm);
        let at_arm =
            cross.transpose() * floored_inv_inertia(light.inv_inertia, bounded.floor) * cross;
        let turning = norm(at_arm);
        assert!(
            (turning - limit).abs() <= 1.0e-4 * limit,
            "{turning} against {limit}"
        );
        assert_eq!(other, Bound::NONE);
        let medium = Side {
            inv_mass: Vec3::ONE,
            inv_inertia: Mat3::from_diagonal(Vec3::splat(6.0)),
            arm: Vec3::new(0.0, 0.5, 0.0),
        };
        assert_eq!(pair_bounds(&medium, &heavy, ratio), [Bound::NONE; 2]);
        let immobile = Side {
            inv_mass: Vec3::ZERO,
            inv_inertia: Mat3::ZERO,
            arm: Vec3::ZERO,
        };
        assert_eq!(pair_bounds(&light, &immobile, ratio), [Bound::NONE; 2]);
        // Locked along every translation axis, its anchor 0.1 mm or 10⁻²² m from its centre
        // (a turning mobility of 10⁻⁸ or 10⁻⁴⁴): its locks hold it, so nothing is bounded.
        for offset in [1.0e-4, 1.0e-22] {
            let pinned = Side {
                inv_mass: Vec3::ZERO,
                inv_inertia: Mat3::from_diagonal(Vec3::splat(1.0)),
                arm: Vec3::new(offset, 0.0, 0.0),
            };
            assert_eq!(pair_bounds(&light, &pinned, ratio), [Bound::NONE; 2]);
        }
        // Bodies with a denormal partner mobility would overflow 1/limit: left alone too.
        let faint = Side {
            inv_mass: Vec3::splat(1.0e-40),
            inv_inertia: Mat3::ZERO,
            arm: Vec3::ZERO,
        };
        assert_eq!(pair_bounds(&light, &faint, ratio), [Bound::NONE; 2]);
    }
}
