//! The pieces every joint is built from (Jolt's `ConstraintPart`): the anchors as the
//! sub-step has moved them, impulses applied at them or as a turn, the three point rows,
//! a one-sided limit row, a motor row, and the small solves they share.
//!
//! Every row follows Catto's sequential impulses (GDC 2005/2006) with Box2D v3's soft
//! step in the biased pass (Catto GDC 2019): Δλ = −s_m·m·(Ċ + b·C) − s_i·λ, with
//! m = 1/k the row's effective mass, b the bias rate and (s_m, s_i) from [`scales`]; the
//! relax pass takes s_m = 1, s_i = 0, b = 0.

use std::ops::{Index, IndexMut};

use super::super::math::{skew, Mat3, Vec3};
use super::super::solver::{Softness, SolverBody};
use super::block::{self, Row, Slot};
use super::{JointConstraint, JointPass, JOINT_DAMPING_RATIO, JOINT_HERTZ};

/// The smallest pivot of one joint's 3×3 solve, as a fraction of its largest diagonal:
/// above what rounding of f32 rows leaves in a locked direction (a tilted planar body's
/// hinge rows), below the mass and inertia ratios of real bodies on one joint.
const JOINT_RANK_TOLERANCE: f64 = 1.0e-6;

/// What a joint's rows reach its bodies through, by solver index: the solver's body slice,
/// or the [`PairBodies`] of one joint.
pub(crate) trait JointBodies: Index<usize, Output = SolverBody> + IndexMut<usize> {}

impl<T: Index<usize, Output = SolverBody> + IndexMut<usize> + ?Sized> JointBodies for T {}

/// One joint's bodies, for a joint solved beside others on several workers: the static
/// stand-in (index 0, read only), and bodies `a` and `b` (`None` for index 0). The rows
/// write only their own bodies, never index 0 (they test for it).
pub(crate) struct PairBodies<'a> {
    pub stand_in: &'a SolverBody,
    pub a: usize,
    pub body_a: Option<&'a mut SolverBody>,
    pub b: usize,
    pub body_b: Option<&'a mut SolverBody>,
}

impl Index<usize> for PairBodies<'_> {
    type Output = SolverBody;

    #[inline]
    fn index(&self, index: usize) -> &SolverBody {
        let body = if index == self.a {
            self.body_a.as_deref()
        } else if index == self.b {
            self.body_b.as_deref()
        } else {
            None
        };
        body.unwrap_or(self.stand_in)
    }
}

impl IndexMut<usize> for PairBodies<'_> {
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut SolverBody {
        let body = if index == self.a {
            self.body_a.as_deref_mut()
        } else if index == self.b {
            self.body_b.as_deref_mut()
        } else {
            None
        };
        body.expect("a joint's rows write only its own bodies, never the static stand-in")
    }
}

/// One pass of one sub-step, as each joint's rows see it.
pub(crate) struct SubStep {
    /// What the pass does.
    pub pass: JointPass,
    /// The rigid rows' softness in the biased pass.
    pub soft: Softness,
    /// The sub-step, s.
    pub h: f32,
}

impl SubStep {
    /// Pass `pass` of a sub-step of `h` seconds.
    pub fn new(pass: JointPass, h: f32) -> Self {
        SubStep {
            pass,
            soft: Softness::new(JOINT_HERTZ, JOINT_DAMPING_RATIO, h),
            h,
        }
    }

    /// Whether the rows are soft and biased (the biased pass) or rigid (the relax pass).
    pub fn biased(&self) -> bool {
        self.pass == JointPass::Biased
    }

    /// (mass scale, impulse scale) of this pass' rigid rows: [`scales`] of the joint
    /// softness when biased, (1, 0) when relaxing.
    pub fn scales(&self) -> (f32, f32) {
        if self.biased() {
            scales(&self.soft)
        } else {
            (1.0, 0.0)
        }
    }
}

/// The two anchors as the sub-step has moved their bodies: d = p_b − p_a, m, and the arms
/// r_a, r_b from the centres of mass, m, in the world's axes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Anchors {
    /// p_b − p_a, m.
    pub d: Vec3,
    /// A's arm, m.
    pub ra: Vec3,
    /// B's arm, m.
    pub rb: Vec3,
}

impl Anchors {
    /// The anchors of `c` for `bodies` as they stand in the sub-step.
    pub fn new<B: JointBodies + ?Sized>(c: &JointConstraint, bodies: &B) -> Self {
        let (pa, ra) = side(&bodies[c.a as usize], c.center_a, c.arm_a);
        let (pb, rb) = side(&bodies[c.b as usize], c.center_b, c.arm_b);
        Anchors { d: pb - pa, ra, rb }
    }
}

/// The line from A's anchor to B's, for the rows along it (a distance joint's, a spring's).
#[derive(Clone, Copy, Debug)]
pub(super) struct Line {
    /// u = d/|d|, unit (+y while the anchors coincide).
    pub u: Vec3,
    /// |d|, m.
    pub length: f32,
    /// The inverse effective mass of a row along u:
    /// k = u·(m_a⁻¹ + m_b⁻¹)u + (r_a×u)·I_a⁻¹(r_a×u) + (r_b×u)·I_b⁻¹(r_b×u).
    pub k: f32,
    /// Ċ = (v_b(r_b) − v_a(r_a))·u for the velocities when the line was taken, m/s.
    pub rate: f32,
}

impl Line {
    /// The line between `anchors` of `c`, for `bodies` as they move now.
    pub fn new<B: JointBodies + ?Sized>(
        c: &JointConstraint,
        bodies: &B,
        anchors: &Anchors,
    ) -> Self {
        let Anchors { d, ra, rb } = *anchors;
        let (body_a, body_b) = (bodies[c.a as usize], bodies[c.b as usize]);
        let length = d.length();
        let u = if length > 1.0e-6 { d / length } else { Vec3::Y };
        let k = {
            let (ua, ub) = (ra.cross(u), rb.cross(u));
            u.dot((c.inv_mass_a + c.inv_mass_b) * u)
                + ua.dot(body_a.inv_inertia * ua)
                + ub.dot(body_b.inv_inertia * ub)
        };
        let relative = point_velocity(&body_b, rb) - point_velocity(&body_a, ra);
        Line {
            u,
            length,
            k,
            rate: relative.dot(u),
        }
    }
}

/// The anchor's world point and arm of one side, as the sub-step has moved its body:
/// `arm` (world axes at the step's start) turned by the body's delta rotation (Box2D v3's
/// joints do the same, `b2RotateVector(deltaRotation, frame.p)`).
#[inline]
pub(super) fn side(body: &SolverBody, center: Vec3, arm: Vec3) -> (Vec3, Vec3) {
    let r = body.delta_rotation * arm;
    (center + body.delta_position + r, r)
}

/// Velocity of the anchor point at arm `r`, m/s.
#[inline]
pub(super) fn point_velocity(body: &SolverBody, r: Vec3) -> Vec3 {
    body.linear_velocity + body.angular_velocity.cross(r)
}

/// Applies impulse `p` at arms `ra` (−p) and `rb` (+p).
pub(super) fn apply<B: JointBodies + ?Sized>(
    bodies: &mut B,
    c: &JointConstraint,
    ra: Vec3,
    rb: Vec3,
    p: Vec3,
) {
    if c.a != 0 {
        let a = &mut bodies[c.a as usize];
        a.linear_velocity -= c.inv_mass_a * p;
        a.angular_velocity -= a.inv_inertia * ra.cross(p);
    }
    if c.b != 0 {
        let b = &mut bodies[c.b as usize];
        b.linear_velocity += c.inv_mass_b * p;
        b.angular_velocity += b.inv_inertia * rb.cross(p);
    }
}

/// Applies the angular impulse `l` (−l to A, +l to B).
pub(super) fn apply_angular<B: JointBodies + ?Sized>(bodies: &mut B, c: &JointConstraint, l: Vec3) {
    if c.a != 0 {
        let a = &mut bodies[c.a as usize];
        a.angular_velocity -= a.inv_inertia * l;
    }
    if c.b != 0 {
        let b = &mut bodies[c.b as usize];
        b.angular_velocity += b.inv_inertia * l;
    }
}

/// −\[r\]×·M·\[r\]× for a symmetric M (an inverse inertia), the arm's part of a point's
/// effective mass matrix: x ↦ (M·(r × x)) × r. Its six entries from M's upper triangle
/// and the skew matrix's zeros (28 products, a third of the two 3×3 matrix products).
#[inline]
pub(super) fn arm_mass(m: Mat3, r: Vec3) -> Mat3 {
    let (a, b, c) = (m.x_axis.x, m.y_axis.x, m.z_axis.x);
    let (d, e, f) = (m.y_axis.y, m.z_axis.y, m.z_axis.z);
    // t_j = M·(r × e_j), the components the entries below read.
    let (tx_y, tx_z) = (d * r.z - e * r.y, e * r.z - f * r.y);
    let ty = Vec3::new(c * r.x - a * r.z, e * r.x - b * r.z, f * r.x - c * r.z);
    let tz = Vec3::new(a * r.y - b * r.x, b * r.y - d * r.x, c * r.y - e * r.x);
    // Column j is t_j × r.
    let xx = tx_y * r.z - tx_z * r.y;
    let xy = ty.y * r.z - ty.z * r.y;
    let xz = tz.y * r.z - tz.z * r.y;
    let yy = ty.z * r.x - ty.x * r.z;
    let yz = tz.z * r.x - tz.x * r.z;
    let zz = tz.x * r.y - tz.y * r.x;
    Mat3::from_cols(
        Vec3::new(xx, xy, xz),
        Vec3::new(xy, yy, yz),
        Vec3::new(xz, yz, zz),
    )
}

/// (mass scale, impulse scale) of a softness: Δλ = −s_m·m·(v + b) − s_i·λ.
pub(super) fn scales(s: &Softness) -> (f32, f32) {
    let impulse_scale = s.compliance_scale / (1.0 + s.compliance_scale);
    (1.0 - impulse_scale, impulse_scale)
}

/// Solves K·x = b for a symmetric positive semi-definite 3×3 K (an effective mass matrix),
/// leaving out the directions the bodies cannot move along ([`block::eliminate`]) or
/// move along less than [`JOINT_RANK_TOLERANCE`] of the easiest one.
///
/// Where det K ≥ tolerance · d³ (d the largest diagonal) every pivot of that elimination
/// is at least tolerance · d (the three pivots multiply to det K and none exceeds d), so
/// nothing would be left out: the solve is then x = adj(K)·b / det K (Cramer's rule, in
/// f64), the same answer for a fraction of the work.
pub(super) fn solve_symmetric(k: Mat3, b: Vec3) -> Vec3 {
    let [a, kb, kc] = k.x_axis.to_array().map(f64::from);
    let [_, d, e] = k.y_axis.to_array().map(f64::from);
    let f = k.z_axis.z as f64;
    // The cofactors of the symmetric [[a, kb, kc], [kb, d, e], [kc, e, f]].
    let (c00, c01, c02) = (d * f - e * e, kc * e - kb * f, kb * e - kc * d);
    let (c11, c12, c22) = (a * f - kc * kc, kb * kc - a * e, a * d - kb * kb);
    let det = a * c00 + kb * c01 + kc * c02;
    let largest = a.max(d).max(f);
    if det.is_finite() && det >= JOINT_RANK_TOLERANCE * largest * largest * largest && det > 0.0 {
        let [x, y, z] = b.to_array().map(f64::from);
        return Vec3::new(
            ((c00 * x + c01 * y + c02 * z) / det) as f32,
            ((c01 * x + c11 * y + c12 * z) / det) as f32,
            ((c02 * x + c12 * y + c22 * z) / det) as f32,
        );
    }
    let mut k = k.transpose().to_cols_array().map(f64::from); // row-major
    let mut rhs = b.to_array().map(f64::from);
    let mut x = [0.0; 3];
    block::eliminate(
        &mut k,
        &mut rhs,
        &mut x,
        &mut [0; 3],
        &mut [false; 3],
        JOINT_RANK_TOLERANCE,
    );
    Vec3::from_array(x.map(|x| x as f32))
}

/// The inverse inertia of a body about the point at `arm` from its centre of mass, as the
/// ball joint there holds it: turning about that point moves the centre of mass too
/// (parallel axes). Woodbury's identity on I + m·\[r\]×ᵀ\[r\]× gives it from I⁻¹ without
/// inverting I (which a locked axis makes singular): M + M\[r\]×K⁻¹\[r\]×M, with M = I⁻¹ and
/// K = diag(m⁻¹) − \[r\]×M\[r\]× the point's effective mass matrix (m⁻¹ per world axis, 0 on
/// a locked one). Where K is singular the anchor cannot move that way at all and
/// [`solve_symmetric`] leaves that direction out. Zero for a body that does not move.
pub(super) fn pivot_inv_inertia(inv_mass: Vec3, inv_inertia: Mat3, arm: Vec3) -> Mat3 {
    let k = Mat3::from_diagonal(inv_mass) - skew(arm) * inv_inertia * skew(arm);
    let y = skew(arm) * inv_inertia;
    let k_inv_y = Mat3::from_cols(
        solve_symmetric(k, y.x_axis),
        solve_symmetric(k, y.y_axis),
        solve_symmetric(k, y.z_axis),
    );
    inv_inertia + inv_inertia * skew(arm) * k_inv_y
}

/// The three rows that keep the anchors together: C = d = p_b − p_a, Ċ = v_b(r_b) − v_a(r_a),
/// K = (m_a⁻¹ + m_b⁻¹)·𝟙 − \[r_a\]×I_a⁻¹\[r_a\]× − \[r_b\]×I_b⁻¹\[r_b\]× (m⁻¹ per world axis);
/// soft in the biased pass, rigid in the relax pass. The accumulated impulse is
/// `c.impulse`.
pub(super) fn point_rows<B: JointBodies + ?Sized>(
    bodies: &mut B,
    c: &mut JointConstraint,
    anchors: &Anchors,
    step: &SubStep,
) {
    let Anchors { d, ra, rb } = *anchors;
    let (k, relative) = {
        let (body_a, body_b) = (&bodies[c.a as usize], &bodies[c.b as usize]);
        let k = Mat3::from_diagonal(c.inv_mass_a + c.inv_mass_b)
            + arm_mass(body_a.inv_inertia, ra)
            + arm_mass(body_b.inv_inertia, rb);
        (k, point_velocity(body_b, rb) - point_velocity(body_a, ra))
    };
    let p = if step.biased() {
        let (mass_scale, impulse_scale) = scales(&step.soft);
        -mass_scale * solve_symmetric(k, relative + step.soft.bias_rate * d)
            - impulse_scale * c.impulse
    } else {
        -solve_symmetric(k, relative)
    };
    c.impulse += p;
    apply(bodies, c, ra, rb, p);
}

/// The point rows as equality rows of an island's block (`block.rs`), joint `index`:
/// J = (−𝟙, −\[r_a\]×, 𝟙, \[r_b\]×) per world axis e, C = d·e.
pub(super) fn point_equality_rows(
    index: u32,
    c: &JointConstraint,
    anchors: &Anchors,
    rows: &mut Vec<Row>,
) {
    let Anchors { d, ra, rb } = *anchors;
    for (k, e) in [Vec3::X, Vec3::Y, Vec3::Z].into_iter().enumerate() {
        rows.push(c.row(
            index,
            Slot::Linear(k),
            [-e, -ra.cross(e), e, rb.cross(e)],
            d[k],
        ));
    }
}

/// One step of a one-sided row (a limit): C = `gap` ≥ 0, Ċ = `rate`, k its inverse
/// effective mass; returns the accumulated impulse after `old`, kept ≥ 0 (it only pushes
/// the limit's way). While slack (gap > 0) the row is speculative, like a contact: it may
/// close exactly the gap this sub-step, Δλ = −(Ċ + gap/h)/k. Past the limit it is soft in
/// the biased pass and rigid in the relax pass.
pub(super) fn limit_impulse(old: f32, rate: f32, gap: f32, k: f32, step: &SubStep) -> f32 {
    let delta = if gap > 0.0 {
        -(rate + gap / step.h) / k
    } else if step.biased() {
        let (mass_scale, impulse_scale) = scales(&step.soft);
        -mass_scale * (rate + step.soft.bias_rate * gap) / k - impulse_scale * old
    } else {
        -rate / k
    };
    (old + delta).max(0.0)
}

/// One step of a two-sided row (C = `error`, Ċ = `rate`, k its inverse effective mass):
/// soft in the biased pass, rigid in the relax pass, its accumulated impulse of either
/// sign. Returns the change of the accumulated impulse `old`. A length or an angle held at
/// one value is such a row: as two one-sided limits at the same value, the one slack in a
/// sub-step stays speculative and keeps its warm-started impulse while the other pulls
/// against it, and two such joints on one body (two rods in a V) ring up without bound.
pub(super) fn equality_delta(old: f32, rate: f32, error: f32, k: f32, step: &SubStep) -> f32 {
    if step.biased() {
        let (mass_scale, impulse_scale) = scales(&step.soft);
        -mass_scale * (rate + step.soft.bias_rate * error) / k - impulse_scale * old
    } else {
        -rate / k
    }
}

/// One step of a velocity motor: drives the row's rate Ċ (already less its target) to 0
/// within ±`max` of accumulated impulse this sub-step; k the row's inverse effective mass.
/// Returns the accumulated impulse after `old`.
pub(super) fn motor_impulse(old: f32, rate: f32, k: f32, max: f32) -> f32 {
    (old - rate / k).clamp(-max, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniform numbers in [−0.5, 0.5) from a xorshift generator started at `seed`.
    fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        }
    }

    /// [`solve_symmetric`] against the pivoted elimination it stands in for: random
    /// K = Aᵀ·A (positive definite, conditions up to 10⁵), the same x to 10⁻⁶ (both solve
    /// in f64 and round to f32); and where K is singular along a direction (a locked axis)
    /// or nearly so, no push along it.
    #[test]
    fn the_three_by_three_solve_matches_the_elimination() {
        let mut uniform = uniform(0x9e37_79b9_7f4a_7c15);
        let mut random = move || uniform() as f32;
        for case in 0..200 {
            let mut column = || Vec3::new(random(), random(), random());
            let a = Mat3::from_cols(column(), column(), column());
            // Scale one direction down by up to 10⁻²·⁵ (K's condition by up to 10⁵).
            let squeeze = Mat3::from_diagonal(Vec3::new(
                1.0,
                1.0,
                10f32.powf(-2.5 * (case % 5) as f32 / 4.0),
            ));
            let a = squeeze * a;
            let k = a.transpose() * a;
            let b = Vec3::new(random(), random(), random());
            let mut rows = k.transpose().to_cols_array().map(f64::from);
            let mut rhs = b.to_array().map(f64::from);
            let mut x = [0.0; 3];
            block::eliminate(
                &mut rows,
                &mut rhs,
                &mut x,
                &mut [0; 3],
                &mut [false; 3],
                JOINT_RANK_TOLERANCE,
            );
            let want = Vec3::from_array(x.map(|x| x as f32));
            let got = solve_symmetric(k, b);
            let scale = want.abs().max_element().max(1.0);
            assert!(
                (got - want).abs().max_element() <= 1.0e-6 * scale,
                "case {case}: {got} against {want}"
            );
        }
        // A locked axis: K = diag(2, 3, 0) gives nothing along z, whatever b asks there.
        let x = solve_symmetric(Mat3::from_diagonal(Vec3::new(2.0, 3.0, 0.0)), Vec3::ONE);
        assert_eq!(x, Vec3::new(0.5, 1.0 / 3.0, 0.0));
        // Nearly locked (10⁻⁸ of the easiest direction): left out too.
        let x = solve_symmetric(Mat3::from_diagonal(Vec3::new(2.0, 3.0, 2.0e-8)), Vec3::ONE);
        assert_eq!(x.z, 0.0);
    }

    /// [`arm_mass`] against the matrix products it stands in for, −\[r\]×·M·\[r\]×, in
    /// f64: random symmetric M = Aᵀ·A and arms r up to 2 m, every entry to 10⁻⁶ of the
    /// largest (f32 rounding of a few products); and for M = 𝟙 the closed form
    /// |r|²·𝟙 − r·rᵀ.
    #[test]
    fn the_arm_mass_matches_the_skew_products() {
        let mut random = uniform(0x2545_f491_4f6c_dd1d);
        for case in 0..200 {
            let a = glam::DMat3::from_cols_array(&std::array::from_fn(|_| random()));
            let m = a.transpose() * a;
            let r = 4.0 * glam::DVec3::new(random(), random(), random());
            let skew = glam::DMat3::from_cols(
                glam::DVec3::new(0.0, r.z, -r.y),
                glam::DVec3::new(-r.z, 0.0, r.x),
                glam::DVec3::new(r.y, -r.x, 0.0),
            );
            let want = -(skew * m * skew);
            let got = arm_mass(m.as_mat3(), r.as_vec3()).as_dmat3();
            let scale = want
                .to_cols_array()
                .iter()
                .fold(0.0f64, |s, x| s.max(x.abs()));
            for (g, w) in got.to_cols_array().iter().zip(want.to_cols_array()) {
                assert!(
                    (g - w).abs() <= 1.0e-6 * scale,
                    "case {case}: {got} against {want}"
                );
            }
        }
        let r = Vec3::new(1.0, 2.0, 3.0);
        let want = Mat3::from_diagonal(Vec3::splat(r.length_squared()))
            - Mat3::from_cols(r * r.x, r * r.y, r * r.z);
        assert_eq!(arm_mass(Mat3::IDENTITY, r), want);
    }
}
