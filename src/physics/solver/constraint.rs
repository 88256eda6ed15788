//! What a contact constraint is built from: the manifold's points with their anchored lever
//! arms and carried-over impulses, and what the points share. The constraint itself (lever
//! rows, the normal block's mass matrix, friction masses) is built once per step straight
//! into the solver's lanes, see `lanes.rs`.

use super::Softness;
use crate::physics::collider::MixedMaterial;
use crate::physics::math::{Mat3, Vec3};
use crate::physics::narrow_phase::MAX_MANIFOLD_POINTS;

/// What a constraint is built from, besides its points.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConstraintShared {
    /// Id of the contact (to store the impulses back).
    pub contact: u32,
    /// World normal from A to B.
    pub normal: Vec3,
    /// Mixed surface properties.
    pub material: MixedMaterial,
    /// Rolling impulse carried over (per sub-step).
    pub rolling_impulse: Vec3,
    /// Twist friction impulse carried over (per sub-step), N·m·s.
    pub twist_impulse: f32,
    pub softness: Softness,
    pub warm_start: bool,
}

/// What a constraint is built from: a manifold point with its arms and carried-over impulses.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PointInput {
    /// Lever arms from each body's centre of mass (anchored by the world, see there).
    pub anchor_a: Vec3,
    pub anchor_b: Vec3,
    /// Penetration depth at the step start, m (negative: apart).
    pub depth: f32,
    /// Normal impulse to warm-start with, per sub-step, N·s.
    pub normal_impulse: f32,
    /// Friction impulse to warm-start with, world vector per sub-step, N·s.
    pub tangent_impulse: Vec3,
}

/// One touching contact of this step, as the world gathers it: prepared four at a time
/// straight into the solver's lanes (`ConstraintLanes::prepare`), once the colouring has
/// said which four go together.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConstraintInput {
    /// Solver body indices (0 = static stand-in).
    pub body_a: u32,
    pub body_b: u32,
    pub shared: ConstraintShared,
    /// The points; only the first `count` are read (the gather leaves the rest as they
    /// were).
    pub points: [PointInput; MAX_MANIFOLD_POINTS],
    pub count: usize,
    /// The farthest the arms may follow the bodies' relative translation during the step,
    /// m (see `contact_solve.rs`, `arm_shift`): a quarter of the smaller collider's size.
    /// Infinite unless set.
    pub max_shift: f32,
}

impl ConstraintInput {
    /// A constraint between solver bodies `body_a` and `body_b` on the first
    /// [`MAX_MANIFOLD_POINTS`] of `points`.
    pub fn new(body_a: u32, body_b: u32, points: &[PointInput], shared: ConstraintShared) -> Self {
        let count = points.len().min(MAX_MANIFOLD_POINTS);
        let mut input = ConstraintInput {
            body_a,
            body_b,
            shared,
            points: [PointInput::default(); MAX_MANIFOLD_POINTS],
            count,
            max_shift: f32::INFINITY,
        };
        input.points[..count].copy_from_slice(&points[..count]);
        input
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
