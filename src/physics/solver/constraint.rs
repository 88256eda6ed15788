//! Contact manifolds turned into solver constraints: lever arms, the normal block's mass
//! matrix, friction masses and warm-start impulses, built once per step.

use super::body::SolverBody;
use super::Softness;
use crate::physics::collider::MixedMaterial;
use crate::physics::math::{orthonormal_basis, Mat3, Vec3};
use crate::physics::narrow_phase::MAX_MANIFOLD_POINTS;

/// One point of a contact constraint.
///
/// The angular rows of the point's three directions (normal, then the two tangents) are
/// computed once per step at the anchors: r×d for each body, and I⁻¹(r×d), the turn a unit
/// impulse along d gives it. The iterations then need dot products and scaled additions
/// only; the arms' shift between dynamic bodies (see `current_arms`) is a per-manifold
/// correction added on top.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConstraintPoint {
    /// From A's centre of mass to where the impulses act, world axes, at the step start.
    pub anchor_a: Vec3,
    /// From B's centre of mass to the same point.
    pub anchor_b: Vec3,
    /// Separation at the step start (−depth), m.
    pub separation: f32,
    /// r_a×d for d = normal, tangent 0, tangent 1, at the anchor.
    pub rows_a: [Vec3; 3],
    /// r_b×d likewise.
    pub rows_b: [Vec3; 3],
    /// I_a⁻¹(r_a×d): A's turn per unit impulse along d.
    pub turns_a: [Vec3; 3],
    /// I_b⁻¹(r_b×d).
    pub turns_b: [Vec3; 3],
    /// 1/K_ii: the effective mass of this point alone, kg.
    pub normal_mass: f32,
    /// The soft compliance (CFM) of this point in the biased pass, γ = K_ii/a₂, 1/kg.
    pub compliance: f32,
    /// Inverse of the 2×2 effective mass matrix of the two friction directions, packed as
    /// [m00, m01, m11], kg.
    pub tangent_mass: [f32; 3],
    /// Accumulated normal impulse of the current sub-step, N·s.
    pub normal_impulse: f32,
    /// Accumulated friction impulse along the two tangents, N·s.
    pub tangent_impulse: [f32; 2],
    /// Largest normal impulse applied by one iteration this step (did the point push?).
    pub max_normal_impulse: f32,
    /// Normal velocity just before the point started pushing (for restitution), m/s.
    pub relative_velocity: f32,
}

/// A contact manifold turned into constraints for this step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactConstraint {
    /// Solver body indices (0 = static stand-in).
    pub body_a: u32,
    pub body_b: u32,
    /// The bodies' inverse masses (zero: contacts never move it, and it is never written).
    pub inv_mass_a: f32,
    pub inv_mass_b: f32,
    /// Id of the contact it came from (to store impulses back).
    pub contact: u32,
    pub normal: Vec3,
    pub tangents: [Vec3; 2],
    pub friction: f32,
    pub restitution: f32,
    /// Lever arm of the rolling resistance torque, m.
    pub rolling_resistance: f32,
    /// (I_a⁻¹ + I_b⁻¹)⁻¹, the effective mass for relative rotation.
    pub rolling_mass: Mat3,
    /// Accumulated rolling resistance angular impulse, N·m·s.
    pub rolling_impulse: Vec3,
    /// Bias rate of penetrating points in the biased pass, 1/s.
    pub bias_rate: f32,
    /// Both bodies dynamic: arms follow half the relative translation (see `current_arms`).
    pub shared_point: bool,
    /// K = J·M⁻¹·Jᵀ of the normal constraints, count × count (symmetric), 1/kg.
    pub normal_k: [[f32; MAX_MANIFOLD_POINTS]; MAX_MANIFOLD_POINTS],
    pub points: [ConstraintPoint; MAX_MANIFOLD_POINTS],
    pub count: usize,
}

/// What a constraint is built from, besides its points.
pub(crate) struct ConstraintShared {
    /// Id of the contact.
    pub contact: u32,
    /// World normal from A to B.
    pub normal: Vec3,
    /// Mixed surface properties.
    pub material: MixedMaterial,
    /// Rolling impulse carried over (per sub-step).
    pub rolling_impulse: Vec3,
    pub softness: Softness,
    pub warm_start: bool,
}

/// What a constraint is built from: a manifold point with its arms and carried-over impulses.
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

impl ContactConstraint {
    /// Builds the constraint: effective masses, the normal block and warm-start impulses.
    pub fn prepare(
        (index_a, a): (u32, &SolverBody),
        (index_b, b): (u32, &SolverBody),
        inputs: &[PointInput],
        shared: &ConstraintShared,
    ) -> ContactConstraint {
        let normal = shared.normal;
        let count = inputs.len().min(MAX_MANIFOLD_POINTS);
        let scale = if shared.warm_start { 1.0 } else { 0.0 };
        let tangents = {
            let (t1, t2) = orthonormal_basis(normal);
            [t1, t2]
        };
        let linear = a.inv_mass + b.inv_mass;
        let directions = [normal, tangents[0], tangents[1]];
        let mut points = [ConstraintPoint::default(); MAX_MANIFOLD_POINTS];
        for (cp, input) in points.iter_mut().zip(inputs) {
            let (ra, rb) = (input.anchor_a, input.anchor_b);
            let rows_a = directions.map(|d| ra.cross(d));
            let rows_b = directions.map(|d| rb.cross(d));
            let turns_a = rows_a.map(|r| a.inv_inertia * r);
            let turns_b = rows_b.map(|r| b.inv_inertia * r);
            let k = linear + rows_a[0].dot(turns_a[0]) + rows_b[0].dot(turns_b[0]);
            let normal_mass = if k > 0.0 { 1.0 / k } else { 0.0 };
            let dv = b.linear_velocity + b.angular_velocity.cross(rb)
                - a.linear_velocity
                - a.angular_velocity.cross(ra);
            *cp = ConstraintPoint {
                anchor_a: ra,
                anchor_b: rb,
                separation: -input.depth,
                rows_a,
                rows_b,
                turns_a,
                turns_b,
                normal_mass,
                compliance: k * shared.softness.compliance_scale,
                tangent_mass: tangent_mass(
                    linear,
                    tangent_rows(&rows_a, &turns_a, &rows_b, &turns_b),
                ),
                normal_impulse: scale * input.normal_impulse,
                // Re-project last step's world friction impulse on this step's basis.
                tangent_impulse: [
                    scale * input.tangent_impulse.dot(tangents[0]),
                    scale * input.tangent_impulse.dot(tangents[1]),
                ],
                max_normal_impulse: 0.0,
                relative_velocity: dv.dot(normal),
            };
        }
        let mut normal_k = [[0.0; MAX_MANIFOLD_POINTS]; MAX_MANIFOLD_POINTS];
        for i in 0..count {
            for j in i..count {
                let (pi, pj) = (&points[i], &points[j]);
                let k = linear + pi.rows_a[0].dot(pj.turns_a[0]) + pi.rows_b[0].dot(pj.turns_b[0]);
                normal_k[i][j] = k;
                normal_k[j][i] = k;
            }
        }
        // Rolling resistance acts on the relative angular velocity: K = I_a⁻¹ + I_b⁻¹.
        let rolling_mass = if shared.material.rolling_resistance > 0.0 {
            invert_or_zero(a.inv_inertia + b.inv_inertia)
        } else {
            Mat3::ZERO
        };
        ContactConstraint {
            body_a: index_a,
            body_b: index_b,
            inv_mass_a: a.inv_mass,
            inv_mass_b: b.inv_mass,
            contact: shared.contact,
            normal,
            tangents,
            friction: shared.material.friction,
            restitution: shared.material.restitution,
            rolling_resistance: shared.material.rolling_resistance,
            rolling_mass,
            rolling_impulse: scale * shared.rolling_impulse,
            bias_rate: shared.softness.bias_rate,
            shared_point: a.is_dynamic() && b.is_dynamic(),
            normal_k,
            points,
            count,
        }
    }

    /// The accumulated friction impulse of a point as a world vector.
    pub fn tangent_impulse_world(&self, point: &ConstraintPoint) -> Vec3 {
        self.tangents[0] * point.tangent_impulse[0] + self.tangents[1] * point.tangent_impulse[1]
    }
}

/// The tangent rows of one point: (r_a×t, I_a⁻¹(r_a×t), r_b×t, I_b⁻¹(r_b×t)) for both
/// tangents.
type TangentRows = [(Vec3, Vec3, Vec3, Vec3); 2];

fn tangent_rows(
    rows_a: &[Vec3; 3],
    turns_a: &[Vec3; 3],
    rows_b: &[Vec3; 3],
    turns_b: &[Vec3; 3],
) -> TangentRows {
    [1, 2].map(|k| (rows_a[k], turns_a[k], rows_b[k], turns_b[k]))
}

/// Inverse of the 2×2 matrix K_t = [t_i·(1/m_a + 1/m_b)t_j + (r_a×t_i)·I_a⁻¹(r_a×t_j) + …]
/// of the two friction directions at one point, packed [m00, m01, m11]; zero when singular.
/// `linear` is 1/m_a + 1/m_b.
fn tangent_mass(linear: f32, t: TangentRows) -> [f32; 3] {
    let [(ua0, wa0, ub0, wb0), (ua1, wa1, ub1, wb1)] = t;
    // The tangents are orthonormal: the linear part is diagonal.
    let k00 = linear + ua0.dot(wa0) + ub0.dot(wb0);
    let k11 = linear + ua1.dot(wa1) + ub1.dot(wb1);
    let k01 = ua0.dot(wa1) + ub0.dot(wb1);
    let det = k00 * k11 - k01 * k01;
    if det > f32::EPSILON * k00 * k11 && det.is_finite() {
        [k11 / det, -k01 / det, k00 / det]
    } else {
        [0.0; 3]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn input(ra: Vec3, rb: Vec3) -> PointInput {
        PointInput {
            anchor_a: ra,
            anchor_b: rb,
            depth: 0.0,
            normal_impulse: 0.0,
            tangent_impulse: Vec3::ZERO,
        }
    }

    #[test]
    fn normal_block_is_j_m_inverse_j_transpose() {
        // Two unit cubes (I⁻¹ = 6) stacked, points at two top corners of the lower one:
        // r×n for r = (±½, ½, ½), n = y is (−½, 0, ±½)… K_ii = 1 + 1 + 6·½ + 6·½ = 8, and
        // for the two corners (½,·,½) and (−½,·,½): (r_i×n)·(r_j×n) = −¼ + ¼ = 0, so
        // K_ij = 2 + 0 + 0.
        let (a, b) = (
            SolverBody::unit_cube(Vec3::ZERO),
            SolverBody::unit_cube(Vec3::ZERO),
        );
        let p0 = Vec3::new(0.5, 0.5, 0.5);
        let p1 = Vec3::new(-0.5, 0.5, 0.5);
        let below = Vec3::new(0.0, -1.0, 0.0);
        let shared = ConstraintShared {
            contact: 0,
            normal: Vec3::Y,
            material: MixedMaterial::default(),
            rolling_impulse: Vec3::ZERO,
            softness: Softness::new(30.0, 10.0, 1.0 / 240.0),
            warm_start: true,
        };
        let c = ContactConstraint::prepare(
            (1, &a),
            (2, &b),
            &[input(p0, p0 + below), input(p1, p1 + below)],
            &shared,
        );
        assert!((c.normal_k[0][0] - 8.0).abs() < 1e-5);
        assert!((c.normal_k[1][1] - 8.0).abs() < 1e-5);
        assert!((c.normal_k[0][1] - 2.0).abs() < 1e-5);
        assert!((c.points[0].normal_mass - 0.125).abs() < 1e-6);
        // γ = K_ii/a2.
        assert!((c.points[0].compliance - 8.0 * shared.softness.compliance_scale).abs() < 1e-6);
    }

    #[test]
    fn tangent_mass_inverts_the_coupled_matrix() {
        // A point off every axis couples the two tangents through the inertia: the packed
        // inverse times K must be the identity.
        let (a, b) = (SolverBody::unit_cube(Vec3::ZERO), SolverBody::STATIC);
        let r = Vec3::new(0.3, -0.5, 0.2);
        let t = [Vec3::X, Vec3::Z];
        let rows = t.map(|d| {
            let u = r.cross(d);
            (u, a.inv_inertia * u, Vec3::ZERO, b.inv_inertia * Vec3::ZERO)
        });
        let m = tangent_mass(a.inv_mass + b.inv_mass, rows);
        let k = |i: usize, j: usize| {
            let (ui, wj) = (r.cross(t[i]), a.inv_inertia * r.cross(t[j]));
            (if i == j { 1.0 } else { 0.0 }) + ui.dot(wj)
        };
        let (k00, k01, k11) = (k(0, 0), k(0, 1), k(1, 1));
        assert!(k01.abs() > 0.1, "the example must couple the directions");
        assert!((m[0] * k00 + m[1] * k01 - 1.0).abs() < 1e-5);
        assert!((m[0] * k01 + m[1] * k11).abs() < 1e-5);
        assert!((m[1] * k01 + m[2] * k11 - 1.0).abs() < 1e-5);
    }
}
