//! Four contact constraints of one colour side by side, one per SIMD lane, for the passes
//! that run every sub-step (warm start, the biased and relax passes).
//!
//! A colour's constraints move disjoint bodies (`graph_colour.rs`), so the four lanes never
//! read what another lane writes, and solving them together computes what solving them one
//! after the other would. The overflow set is packed one constraint per group, the other
//! lanes empty, which keeps it serial.
//!
//! Built once per step straight from the gathered contacts ([`ConstraintInput`]), four at a
//! time in SIMD; the world reads the impulses back into its contacts after the step's
//! passes and restitution ([`ConstraintLanes::lane_impulses`]). Unused lanes and point
//! slots are zero: no mass, no arms, no impulse, so every pass leaves them
//! at zero and they move nothing. Neither the angular rows r×d nor the turns I⁻¹(r×d) are
//! stored: the iterations form the rows from the current arms, and an impulse's turn once
//! per body from the sum of its points' moments, I⁻¹(Σλ_i·r_i × d), with the lanes'
//! inverse inertias. Reading them back cost more than forming them: the passes stream
//! every lane group, and with the turns stored a group was a fifth larger.

use super::block::FactorLanes;
use super::body::SolverBody;
use super::constraint::{invert_or_zero, ConstraintInput, PointInput};
use super::crew::{self, for_each_block, Shared};
use super::group::{colour_block, solved_by_team};
use super::lane_velocities::{gather_velocities, lane_bodies};
use super::simd::{f32x4, SymMat3x4, Vec3x4, LANES};
use crate::physics::constants::RELAX_REGULARIZATION;
use crate::physics::math::{orthonormal_basis, Mat3, Vec3};
use crate::physics::narrow_phase::MAX_MANIFOLD_POINTS;

/// Marks an unused lane.
pub(crate) const EMPTY: u32 = u32::MAX;

/// One point slot of four constraints.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PointLanes {
    /// Anchored arms at the step start (see `ConstraintPoint`).
    pub anchor_a: Vec3x4,
    pub anchor_b: Vec3x4,
    /// Separation at the bodies' current positions (tracked from
    /// [`ColdLanes::separation`] when they move), m.
    pub separation_now: f32x4,
    /// Distance from the manifold's centre across the normal, m: the point's lever for the
    /// twist friction.
    pub lever: f32x4,
    /// K_ii of the point, 1/kg.
    pub diagonal: f32x4,
    pub normal_impulse: f32x4,
    pub max_normal_impulse: f32x4,
}

impl PointLanes {
    /// Soft compliance of the biased pass, 1/kg: K_ii times the lanes' compliance scale
    /// (zero in an empty slot, whose K_ii is zero). One scale per lane group instead of a
    /// compliance per point: 48 bytes less per group, one product more per point.
    #[inline]
    pub fn compliance(&self, scale: f32x4) -> f32x4 {
        self.diagonal * scale
    }
}

/// Rolling resistance of one lane (rare: solved lane by lane).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RollingLane {
    /// Lever arm, m (0: none).
    pub resistance: f32,
    /// (I_a⁻¹ + I_b⁻¹)⁻¹.
    pub mass: Mat3,
    pub impulse: Vec3,
}

/// The parts of four constraints that a pass rarely touches, kept apart from
/// [`ConstraintLanes`] so the passes stream less memory: the lanes' normal blocks (read
/// when a pass's matrix changes, and when a point lifts off or joins), rolling resistance,
/// and the points' separations at the step start (read once per sub-step). `StepScratch`
/// keeps them in an array of their own, index for index with the lane groups.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ColdLanes {
    pub rolling: [RollingLane; LANES],
    /// K = J·M⁻¹·Jᵀ of the four lanes without the passes' diagonal terms (zero outside each
    /// lane's manifold).
    pub k: [[f32x4; MAX_MANIFOLD_POINTS]; MAX_MANIFOLD_POINTS],
    /// Each point's separation at the step start, m (read when the bodies move, to track
    /// [`PointLanes::separation_now`]).
    pub separation: [f32x4; MAX_MANIFOLD_POINTS],
    /// Each lane's contact id, or [`EMPTY`] (read when the impulses are stored).
    pub contacts: [u32; LANES],
    /// Points of each lane's manifold (0: empty lane).
    pub counts: [usize; LANES],
    /// Restitution (read by the restitution pass, once per step).
    pub restitution: f32x4,
    /// Each point's normal velocity before it first pushed this step, m/s (kept by the
    /// biased pass for the restitution pass, and only where some lane is bouncy:
    /// [`ConstraintLanes::any_bouncy`]).
    pub relative_velocity: [f32x4; MAX_MANIFOLD_POINTS],
}

/// One pass's cached factorisations of a lane group's normal blocks: the lanes'
/// whole-block factorisations, side by side; the key of the matrix each lane's factors
/// (`solve_normal`: which points are speculative); a mask of the lanes where it is valid
/// (positive definite). The biased and the relax pass each keep theirs in an array of their
/// own, index for index with the lane groups, so a pass streams only its own (192 of the
/// 384 bytes both took in each lane group).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PassFactors {
    pub factors: FactorLanes,
    /// What each lane's factorisation is of, packed five bits per lane (lane l's at 5l):
    /// bit 0 set, and bit j + 1 when point j is speculative in the biased pass (its diagonal
    /// is then the relax pass's). 0 in a lane with no factorisation yet.
    pub keys: u32,
    pub valid: f32x4,
}

#[cfg(test)]
impl ColdLanes {
    /// Lane `l`'s K, zero outside its manifold.
    pub fn lane_k(&self, l: usize) -> [[f32; MAX_MANIFOLD_POINTS]; MAX_MANIFOLD_POINTS] {
        self.k.map(|row| row.map(|x| x.as_array()[l]))
    }
}

/// M·v, or m·v where every lane of M is m times the identity (`isotropic`).
#[inline(always)]
fn turn(m: &SymMat3x4, isotropic: bool, v: Vec3x4) -> Vec3x4 {
    if isotropic {
        m.xx * v
    } else {
        m.mul_vec3(v)
    }
}

/// Four constraints of one colour (see the module notes): what every pass reads.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConstraintLanes {
    /// Solver body indices (0, the static stand-in, for empty lanes), checked against the
    /// solver bodies when prepared: the passes read them unchecked (`Bodies::lane`).
    pub body_a: [u32; LANES],
    pub body_b: [u32; LANES],
    pub inv_mass_a: f32x4,
    pub inv_mass_b: f32x4,
    /// The bodies' world inverse inertias, fixed for the step.
    pub inv_inertia_a: SymMat3x4,
    pub inv_inertia_b: SymMat3x4,
    /// Every one of those inertias is a multiple of the identity (cubes, spheres, the
    /// static stand-in): a turn I⁻¹·v is then that multiple times v ([`Self::turn_a`]).
    pub isotropic: bool,
    /// How far the arms have followed the bodies since the step start
    /// (`contact_solve.rs`): measured when the bodies move, once per sub-step.
    pub shift: Vec3x4,
    /// The normal (the friction tangents are formed from it, [`ConstraintLanes::tangents`]).
    pub normal: Vec3x4,
    pub friction: f32x4,
    pub bias_rate: f32x4,
    /// A point's soft compliance in the biased pass is this times its K_ii
    /// ([`PointLanes::compliance`]).
    pub compliance_scale: f32x4,
    /// All bits set in lanes whose bodies are both dynamic (arms follow half the relative
    /// translation, see `contact_solve.rs`).
    pub shared_point: f32x4,
    /// The longest shift of those lanes, m ([`ConstraintInput::max_shift`]).
    pub max_shift: f32x4,
    /// The most points of any lane, and each lane's count as a number (the lane masks of
    /// [`ConstraintLanes::exists`] are formed from it).
    pub count: usize,
    pub lane_counts: f32x4,
    /// True when some lane has rolling resistance (in [`ColdLanes`]).
    pub any_rolling: bool,
    /// True when some lane has restitution ([`ColdLanes::restitution`]).
    pub any_bouncy: bool,
    pub points: [PointLanes; MAX_MANIFOLD_POINTS],
    /// Friction of the whole manifold (see `contact_solve.rs`), at its centre: the anchors
    /// (the mean of the points' anchors), the packed inverse tangent mass [m00, m01, m11]
    /// and the accumulated impulse along the tangents.
    pub centre_a: Vec3x4,
    pub centre_b: Vec3x4,
    pub friction_mass: [f32x4; 3],
    pub friction_impulse: [f32x4; 2],
    /// Twist friction about the normal: 1/(n·(I_a⁻¹ + I_b⁻¹)n) and the accumulated angular
    /// impulse (its turns I⁻¹n are formed where applied: 96 bytes less per lane group).
    pub twist_mass: f32x4,
    pub twist_impulse: f32x4,
}

impl ConstraintLanes {
    /// Per point slot j, all bits set in the lanes whose manifold has a point j: four
    /// comparisons where they are used instead of 64 bytes read.
    #[inline]
    pub fn exists(&self) -> [f32x4; MAX_MANIFOLD_POINTS] {
        std::array::from_fn(|j| self.lane_counts.simd_gt(f32x4::splat(j as f32)))
    }

    /// I_a⁻¹·v in every lane: with [`Self::isotropic`] three products instead of nine and
    /// six sums, and the same value (the terms it leaves out are zeros; only the sign of a
    /// zero result can differ).
    #[inline(always)]
    pub fn turn_a(&self, v: Vec3x4) -> Vec3x4 {
        turn(&self.inv_inertia_a, self.isotropic, v)
    }

    /// I_b⁻¹·v in every lane (see [`Self::turn_a`]).
    #[inline(always)]
    pub fn turn_b(&self, v: Vec3x4) -> Vec3x4 {
        turn(&self.inv_inertia_b, self.isotropic, v)
    }

    /// The two friction tangents: each lane's normal completed to an orthonormal basis
    /// (`math::orthonormal_basis`, the same bits). Formed where they are used, which costs
    /// a few products and a division per pass, instead of read: 96 bytes less per lane
    /// group.
    #[inline]
    pub fn tangents(&self) -> [Vec3x4; 2] {
        self.normal.orthonormal_basis()
    }

    /// Builds the constraints `inputs[indices]` (one to four, of one colour) into these
    /// lanes and `cold`, which must be empty (`Default`): the anchors and inverse inertias,
    /// the normal block's mass matrix K, friction masses and the warm-start impulses. The
    /// two passes' `factors` need no reset: they are written whole where a lane has more
    /// than one point, and where none has, `solve_normal` never reads them.
    ///
    /// Normal constraint of a point: J = [−n, −(r_a×n), n, (r_b×n)], so
    /// K_ij = 1/m_a + 1/m_b + (r_a,i×n)·I_a⁻¹(r_a,j×n) + (r_b,i×n)·I_b⁻¹(r_b,j×n); the two
    /// friction directions at the manifold's centre form the 2×2 matrix K_t likewise,
    /// inverted here, and the twist about the normal has K = n·(I_a⁻¹ + I_b⁻¹)n.
    /// Every lane computes what a scalar evaluation of the same expressions would, bit for
    /// bit (see `simd.rs`).
    pub fn prepare(
        &mut self,
        cold: &mut ColdLanes,
        factors: [&mut PassFactors; 2],
        inputs: &[ConstraintInput],
        indices: &[u32],
        bodies: &[SolverBody],
    ) {
        debug_assert!(!indices.is_empty() && indices.len() <= LANES);
        let zero = f32x4::ZERO;
        cold.contacts = [EMPTY; LANES];
        let mut linear = [0.0; LANES];
        let mut compliance_scale = [0.0; LANES];
        let mut warm = [0.0; LANES];
        let mut twist = [0.0; LANES];
        let mut counts = [0usize; LANES];
        for (l, &index) in indices.iter().enumerate() {
            let c = &inputs[index as usize];
            let (a, b) = (&bodies[c.body_a as usize], &bodies[c.body_b as usize]);
            let shared = &c.shared;
            let scale = if shared.warm_start { 1.0 } else { 0.0 };
            cold.contacts[l] = shared.contact;
            self.body_a[l] = c.body_a;
            self.body_b[l] = c.body_b;
            self.inv_mass_a.as_mut_array()[l] = a.inv_mass;
            self.inv_mass_b.as_mut_array()[l] = b.inv_mass;
            self.inv_inertia_a.set_lane(l, &a.inv_inertia);
            self.inv_inertia_b.set_lane(l, &b.inv_inertia);
            self.normal.set_lane(l, shared.normal);
            self.friction.as_mut_array()[l] = shared.material.friction;
            cold.restitution.as_mut_array()[l] = shared.material.restitution;
            self.any_bouncy |= shared.material.restitution > 0.0;
            self.bias_rate.as_mut_array()[l] = shared.softness.bias_rate;
            if a.is_dynamic() && b.is_dynamic() {
                self.shared_point.as_mut_array()[l] = f32::from_bits(u32::MAX);
                self.max_shift.as_mut_array()[l] = c.max_shift;
            }
            self.count = self.count.max(c.count);
            let resistance = shared.material.rolling_resistance;
            if resistance > 0.0 {
                self.any_rolling = true;
                // Rolling resistance acts on the relative angular velocity: K = I_a⁻¹ + I_b⁻¹.
                cold.rolling[l] = RollingLane {
                    resistance,
                    mass: invert_or_zero(a.inv_inertia + b.inv_inertia),
                    impulse: scale * shared.rolling_impulse,
                };
            }
            cold.counts[l] = c.count;
            linear[l] = a.inv_mass + b.inv_mass;
            compliance_scale[l] = shared.softness.compliance_scale;
            warm[l] = scale;
            twist[l] = scale * shared.twist_impulse;
            counts[l] = c.count;
        }
        self.isotropic = self.inv_inertia_a.is_isotropic() && self.inv_inertia_b.is_isotropic();
        self.lane_counts = f32x4::new(counts.map(|n| n as f32));
        let exists = self.exists();
        let linear = f32x4::new(linear);
        let compliance_scale = f32x4::new(compliance_scale);
        self.compliance_scale = compliance_scale;
        let warm = f32x4::new(warm);
        // Empty lanes name the static stand-in (index 0), which does not move.
        // SAFETY: the group's own body indices, set above from checked look-ups into
        // `bodies` (or the stand-in's 0).
        let (a, b) = unsafe {
            (
                lane_bodies(bodies, &self.body_a),
                lane_bodies(bodies, &self.body_b),
            )
        };
        let (linear_a, angular_a) = gather_velocities(a);
        let (linear_b, angular_b) = gather_velocities(b);
        let [t0, t1] = self.tangents();
        let directions = [self.normal, t0, t1];
        // The manifold's centre: the mean of its points' anchors.
        // (References, not copies: the slots are read once each, and copying four of them
        // per lane group would only move memory.)
        const NO_POINT: PointInput = PointInput {
            anchor_a: Vec3::ZERO,
            anchor_b: Vec3::ZERO,
            depth: 0.0,
            normal_impulse: 0.0,
            tangent_impulse: Vec3::ZERO,
        };
        let point_input = |j: usize| -> [&PointInput; LANES] {
            std::array::from_fn(|l| {
                if j < counts[l] {
                    &inputs[indices[l] as usize].points[j]
                } else {
                    &NO_POINT
                }
            })
        };
        // Each point slot's anchors, depth and normal impulse in lanes, gathered once for
        // the centre and the rows.
        let mut anchors = [(Vec3x4::ZERO, Vec3x4::ZERO); MAX_MANIFOLD_POINTS];
        let mut depths = [[0.0; LANES]; MAX_MANIFOLD_POINTS];
        let mut impulses = [[0.0; LANES]; MAX_MANIFOLD_POINTS];
        let (mut sum_a, mut sum_b, mut friction_impulse) =
            (Vec3x4::ZERO, Vec3x4::ZERO, Vec3x4::ZERO);
        for (j, anchors) in anchors.iter_mut().enumerate().take(self.count) {
            let points = point_input(j);
            *anchors = (
                Vec3x4::gather(points.map(|p| p.anchor_a)),
                Vec3x4::gather(points.map(|p| p.anchor_b)),
            );
            depths[j] = points.map(|p| p.depth);
            impulses[j] = points.map(|p| p.normal_impulse);
            sum_a += anchors.0;
            sum_b += anchors.1;
            friction_impulse += Vec3x4::gather(points.map(|p| p.tangent_impulse));
        }
        let inv_count = f32x4::new(counts.map(|n| if n > 0 { 1.0 / n as f32 } else { 0.0 }));
        let (centre_a, centre_b) = (inv_count * sum_a, inv_count * sum_b);
        {
            let rows_a = directions.map(|d| centre_a.cross(d));
            let rows_b = directions.map(|d| centre_b.cross(d));
            let turns_a = rows_a.map(|r| self.turn_a(r));
            let turns_b = rows_b.map(|r| self.turn_b(r));
            self.centre_a = centre_a;
            self.centre_b = centre_b;
            self.friction_mass = tangent_mass(linear, &rows_a, &turns_a, &rows_b, &turns_b);
            // Last step's world friction impulse (the points' shares summed) on this
            // step's basis.
            self.friction_impulse = [1, 2].map(|d| warm * friction_impulse.dot(directions[d]));
            let (turn_a, turn_b) = (self.turn_a(self.normal), self.turn_b(self.normal));
            let k = self.normal.dot(turn_a) + self.normal.dot(turn_b);
            self.twist_mass = k.simd_gt(zero).select(f32x4::ONE / k, zero);
            self.twist_impulse = f32x4::new(twist);
        }
        // The normal rows r×n and turns I⁻¹(r×n) of every point, for K's off-diagonal
        // entries.
        let mut normal_rows = [(Vec3x4::ZERO, Vec3x4::ZERO); MAX_MANIFOLD_POINTS];
        let mut normal_turns = [(Vec3x4::ZERO, Vec3x4::ZERO); MAX_MANIFOLD_POINTS];
        for (j, rows) in normal_rows.iter_mut().enumerate().take(self.count) {
            // Point slot j exists in lane l when that lane's manifold has more than j points;
            // elsewhere its arms are zero and every value is masked to zero.
            let exists = exists[j];
            let (ra, rb) = anchors[j];
            let (row_a, row_b) = (ra.cross(self.normal), rb.cross(self.normal));
            let turn_a = self.turn_a(row_a);
            let turn_b = self.turn_b(row_b);
            let k = linear + row_a.dot(turn_a) + row_b.dot(turn_b);
            let dv = linear_b + angular_b.cross(rb) - linear_a - angular_a.cross(ra);
            let off = ra - centre_a;
            let across = off - self.normal.dot(off) * self.normal;
            let q = &mut self.points[j];
            q.anchor_a = ra;
            q.anchor_b = rb;
            cold.separation[j] = exists.select(-f32x4::new(depths[j]), zero);
            q.separation_now = cold.separation[j];
            q.lever = exists.select(across.dot(across).sqrt(), zero);
            q.diagonal = exists.select(k, zero);
            q.normal_impulse = exists.select(warm * f32x4::new(impulses[j]), zero);
            q.max_normal_impulse = zero;
            cold.relative_velocity[j] = exists.select(dv.dot(self.normal), zero);
            *rows = (row_a, row_b);
            normal_turns[j] = (turn_a, turn_b);
        }
        // K's entries (symmetric); zero outside each lane's manifold in the blocks' copy.
        let mut k = [[zero; MAX_MANIFOLD_POINTS]; MAX_MANIFOLD_POINTS];
        for (i, &(row_a, row_b)) in normal_rows.iter().enumerate().take(self.count) {
            for (j, &(pj_a, pj_b)) in normal_turns.iter().enumerate().take(self.count).skip(i) {
                let kij = linear + row_a.dot(pj_a) + row_b.dot(pj_b);
                (k[i][j], k[j][i]) = (kij, kij);
                // j ≥ i: point j exists where both do.
                let kij = exists[j].select(kij, zero);
                (cold.k[i][j], cold.k[j][i]) = (kij, kij);
            }
        }
        // Both passes' blocks factored for the common case, every point touching (key 1,
        // see `solve_normal`): the biased pass's diagonal is K_ii + γ_i, the relax pass's
        // K_ii·(1 + ε). Single points need no factorisation (`solve_normal`).
        if self.count == 1 {
            return;
        }
        let regularised = f32x4::splat(1.0 + RELAX_REGULARIZATION);
        for (out, diagonal) in factors.into_iter().zip([
            |p: &PointLanes, _: f32x4, scale: f32x4| p.diagonal + p.compliance(scale),
            |p: &PointLanes, e: f32x4, _: f32x4| p.diagonal * e,
        ]) {
            let on_diagonal = self
                .points
                .each_ref()
                .map(|p| diagonal(p, regularised, compliance_scale));
            out.valid = out.factors.factor_into(&k, &on_diagonal, &exists);
            out.keys = super::contact_solve::ALL_TOUCHING;
        }
    }

    /// What lane `l`'s constraint accumulated, to store into its contact; `None` for an
    /// empty lane.
    pub fn lane_impulses(&self, cold: &ColdLanes, l: usize) -> Option<LaneImpulses> {
        let contact = cold.contacts[l];
        if contact == EMPTY {
            return None;
        }
        // The lane's tangents, as `tangents` forms them (the same bits).
        let (t0, t1) = orthonormal_basis(self.normal.lane(l));
        let count = cold.counts[l];
        let mut points = [PointImpulses::default(); MAX_MANIFOLD_POINTS];
        // The manifold's friction impulse is shared out by load (evenly when nothing
        // pushes): the next step sums the shares of the points it keeps, so dropping a
        // point that carried nothing loses nothing.
        let friction = self.friction_impulse.map(|t| t.as_array()[l]);
        let friction = t0 * friction[0] + t1 * friction[1];
        let load: f32 = self.points[..count]
            .iter()
            .map(|p| p.normal_impulse.as_array()[l])
            .sum();
        for (out, p) in points.iter_mut().zip(&self.points).take(count) {
            let normal = p.normal_impulse.as_array()[l];
            let part = if load > 0.0 {
                normal / load
            } else {
                1.0 / count as f32
            };
            *out = PointImpulses {
                normal,
                tangent: friction * part,
                max_normal: p.max_normal_impulse.as_array()[l],
            };
        }
        Some(LaneImpulses {
            contact,
            count,
            points,
            rolling: cold.rolling[l].impulse,
            twist: self.twist_impulse.as_array()[l],
        })
    }
}

/// The impulses one point accumulated this step (per sub-step).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PointImpulses {
    /// Normal impulse, N·s.
    pub normal: f32,
    /// Friction impulse as a world vector, N·s.
    pub tangent: Vec3,
    /// Largest normal impulse applied by one iteration (did the point push?), N·s.
    pub max_normal: f32,
}

/// What one lane's constraint accumulated (see [`ConstraintLanes::lane_impulses`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaneImpulses {
    /// Id of the contact it came from.
    pub contact: u32,
    pub count: usize,
    pub points: [PointImpulses; MAX_MANIFOLD_POINTS],
    /// Rolling resistance angular impulse, N·m·s.
    pub rolling: Vec3,
    /// Twist friction impulse about the normal, N·m·s.
    pub twist: f32,
}

/// All bits set when `on` (a lane mask), else zero.
#[inline]
pub(crate) fn valid_mask(on: bool) -> f32 {
    if on {
        f32::from_bits(u32::MAX)
    } else {
        0.0
    }
}

/// Inverse of the 2×2 matrix K_t = [t_i·(1/m_a + 1/m_b)t_j + (r_a×t_i)·I_a⁻¹(r_a×t_j) + …]
/// of the two friction directions at arms r (rows and turns 1 and 2), packed [m00, m01, m11];
/// zero where singular. `linear` is 1/m_a + 1/m_b.
fn tangent_mass(
    linear: f32x4,
    rows_a: &[Vec3x4; 3],
    turns_a: &[Vec3x4; 3],
    rows_b: &[Vec3x4; 3],
    turns_b: &[Vec3x4; 3],
) -> [f32x4; 3] {
    // The tangents are orthonormal: the linear part is diagonal.
    let k00 = linear + rows_a[1].dot(turns_a[1]) + rows_b[1].dot(turns_b[1]);
    let k11 = linear + rows_a[2].dot(turns_a[2]) + rows_b[2].dot(turns_b[2]);
    let k01 = rows_a[1].dot(turns_a[2]) + rows_b[1].dot(turns_b[2]);
    let det = k00 * k11 - k01 * k01;
    let regular = det.simd_gt(f32x4::splat(f32::EPSILON) * k00 * k11) & det.is_finite();
    [k11 / det, -k01 / det, k00 / det].map(|m| regular.select(m, f32x4::ZERO))
}

/// Prepares the constraints listed in `order`, whose colours are the ranges `colours` of
/// it, four per lane group within each colour, into the lanes, their cold blocks and each
/// pass's factorisations from index `first` on (the vectors grow as needed; returns how
/// many lane groups it wrote). The last range is the overflow set when `overflow` is true
/// (one constraint per group). Each colour's lane groups, as a range of those written, go
/// to `lane_colours`.
pub(crate) fn prepare_colours(
    inputs: &[ConstraintInput],
    bodies: &[SolverBody],
    order: &[u32],
    colours: &[std::ops::Range<usize>],
    overflow: bool,
    (out, out_cold, out_factors, first): (
        &mut Vec<ConstraintLanes>,
        &mut Vec<ColdLanes>,
        &mut [Vec<PassFactors>; 2],
        usize,
    ),
    lane_colours: &mut Vec<std::ops::Range<usize>>,
) -> usize {
    let first_colour = lane_colours.len();
    // The overflow set, when there is one, is the last "colour"; its constraints share
    // bodies and go one per lane group, in order.
    let overflow_set = |i: usize| overflow && i + 1 == colours.len();
    let width = |i: usize| if overflow_set(i) { 1 } else { LANES };
    let mut count = 0;
    for (i, range) in colours.iter().enumerate() {
        let n = range.len().div_ceil(width(i));
        lane_colours.push(count..count + n);
        count += n;
    }
    // Every lane group reset (`Default`) and prepared by the block that takes it: each one
    // only reads the inputs and bodies and writes itself, so the blocks may go to any
    // worker. The vectors only grow here; the caller truncates them to what it used.
    let end = first + count;
    if out.len() < end {
        out.resize_with(end, ConstraintLanes::default);
        out_cold.resize_with(end, ColdLanes::default);
    }
    let [biased, relax] = &mut *out_factors;
    if biased.len() < end {
        biased.resize_with(end, PassFactors::default);
        relax.resize_with(end, PassFactors::default);
    }
    let (lanes, cold) = (
        Shared::new(&mut out[first..]),
        Shared::new(&mut out_cold[first..]),
    );
    let (biased, relax) = (
        Shared::new(&mut biased[first..]),
        Shared::new(&mut relax[first..]),
    );
    let lane_colours = &lane_colours[first_colour..];
    // Each worker prepares the lane groups it will solve first: unit u is part u / C of
    // colour u % C (C colours), so a worker's own units are its own part of every colour
    // (`crew::part_range`, split as `group::run_colours` splits them; a colour the lead
    // solves alone is part 0's). A group the lead will solve alone is prepared here alone.
    let workers = crate::physics::threads::split_workers();
    let parts = crew::parts(workers);
    let units = parts * colours.len();
    let prepare = |r: std::ops::Range<usize>| {
        for u in r {
            let (part, i) = (u / colours.len(), u % colours.len());
            let (range, lanes_of) = (&colours[i], &lane_colours[i]);
            let len = lanes_of.len();
            let mine = match colour_block(len, overflow_set(i), workers) {
                Some(block) => crew::part_range(len, block, workers, part),
                None if part == 0 => 0..len,
                None => 0..0,
            };
            for l in lanes_of.start + mine.start..lanes_of.start + mine.end {
                let k = range.start + (l - lanes_of.start) * width(i);
                let chunk = &order[k..(k + width(i)).min(range.end)];
                // SAFETY: lane group l belongs to this block alone.
                unsafe {
                    let (lane, cold, biased, relax) = (
                        lanes.at_mut(l),
                        cold.at_mut(l),
                        biased.at_mut(l),
                        relax.at_mut(l),
                    );
                    *lane = ConstraintLanes::default();
                    *cold = ColdLanes::default();
                    lane.prepare(cold, [biased, relax], inputs, chunk, bodies);
                }
            }
        }
    };
    // The lane groups alone decide: the bodies' stages are not here.
    if solved_by_team(count, 0, false) {
        for_each_block(units, 1, &prepare);
    } else {
        prepare(0..units);
    }
    count
}

#[cfg(test)]
mod tests {
    use super::super::constraint::ConstraintShared;
    use super::super::Softness;
    use super::*;
    use crate::physics::collider::MixedMaterial;
    use crate::physics::narrow_phase::gjk::test_support::Lcg;

    fn shared(contact: u32, normal: Vec3) -> ConstraintShared {
        ConstraintShared {
            contact,
            normal,
            material: MixedMaterial {
                friction: 0.6,
                restitution: 0.0,
                rolling_resistance: 0.0,
            },
            rolling_impulse: Vec3::ZERO,
            twist_impulse: 0.0,
            softness: Softness::new(30.0, 10.0, 1.0 / 240.0),
            warm_start: true,
        }
    }

    fn point(anchor_a: Vec3, anchor_b: Vec3) -> PointInput {
        PointInput {
            anchor_a,
            anchor_b,
            ..PointInput::default()
        }
    }

    fn prepared(inputs: &[ConstraintInput], bodies: &[SolverBody]) -> (ConstraintLanes, ColdLanes) {
        let indices: Vec<u32> = (0..inputs.len() as u32).collect();
        let mut lanes = ConstraintLanes::default();
        let mut cold = ColdLanes::default();
        let mut factors = [PassFactors::default(); 2];
        let [biased, relax] = &mut factors;
        lanes.prepare(&mut cold, [biased, relax], inputs, &indices, bodies);
        (lanes, cold)
    }

    #[test]
    fn normal_block_is_j_m_inverse_j_transpose() {
        // Two unit cubes (I⁻¹ = 6) stacked, points at two top corners of the lower one:
        // r×n for r = (±½, ½, ½), n = y is (−½, 0, ±½)… K_ii = 1 + 1 + 6·½ + 6·½ = 8, and
        // for the two corners (½,·,½) and (−½,·,½): (r_i×n)·(r_j×n) = −¼ + ¼ = 0, so
        // K_ij = 2 + 0 + 0.
        let bodies = [
            SolverBody::STATIC,
            SolverBody::unit_cube(Vec3::ZERO),
            SolverBody::unit_cube(Vec3::ZERO),
        ];
        let (p0, p1) = (Vec3::new(0.5, 0.5, 0.5), Vec3::new(-0.5, 0.5, 0.5));
        let below = Vec3::new(0.0, -1.0, 0.0);
        let s = shared(7, Vec3::Y);
        let input = ConstraintInput::new(1, 2, &[point(p0, p0 + below), point(p1, p1 + below)], s);
        let (c, cold) = prepared(&[input], &bodies);
        let k = cold.lane_k(0);
        assert!((k[0][0] - 8.0).abs() < 1e-5);
        assert!((k[1][1] - 8.0).abs() < 1e-5);
        assert!((k[0][1] - 2.0).abs() < 1e-5 && k[1][0] == k[0][1]);
        // Only the manifold's two points: the rest of the block is zero.
        assert!(k[2].iter().chain(&k[3]).all(|&x| x == 0.0));
        assert!((c.points[0].diagonal.as_array()[0] - 8.0).abs() < 1e-5);
        // γ = K_ii/a2.
        let gamma = 8.0 * s.softness.compliance_scale;
        let compliance = c.points[0].compliance(c.compliance_scale);
        assert!((compliance.as_array()[0] - gamma).abs() < 1e-6);
        assert_eq!(
            c.lane_impulses(&cold, 0).map(|i| (i.contact, i.count)),
            Some((7, 2))
        );
        assert!(c.lane_impulses(&cold, 1).is_none());
    }

    #[test]
    fn tangent_mass_inverts_the_coupled_matrix() {
        // A point off every axis couples the two tangents through the inertia: the packed
        // inverse times K_t must be the identity, K_t,ij = t_i·t_j/m + (r×t_i)·I⁻¹(r×t_j).
        let bodies = [SolverBody::STATIC, SolverBody::unit_cube(Vec3::ZERO)];
        let r = Vec3::new(0.3, -0.5, 0.2);
        let input = ConstraintInput::new(1, 0, &[point(r, Vec3::ZERO)], shared(0, Vec3::Y));
        let (c, _) = prepared(&[input], &bodies);
        let t = c.tangents().map(|t| t.lane(0));
        let k = |i: usize, j: usize| {
            let (ui, wj) = (r.cross(t[i]), bodies[1].inv_inertia * r.cross(t[j]));
            t[i].dot(t[j]) + ui.dot(wj)
        };
        let (k00, k01, k11) = (k(0, 0), k(0, 1), k(1, 1));
        assert!(k01.abs() > 0.1, "the example must couple the directions");
        // One point: the manifold's centre is that point.
        let m = c.friction_mass.map(|m| m.as_array()[0]);
        assert!((m[0] * k00 + m[1] * k01 - 1.0).abs() < 1e-5);
        assert!((m[0] * k01 + m[1] * k11).abs() < 1e-5);
        assert!((m[1] * k01 + m[2] * k11 - 1.0).abs() < 1e-5);
    }

    #[test]
    fn isotropic_groups_turn_by_one_number_with_the_matrix_bits() {
        // Cubes of different masses and the static stand-in: every inertia a multiple of
        // the identity, so the group is isotropic and a turn is m·v, the same bits as the
        // full product (whose other terms are zeros); one rotated box among them makes the
        // group take the full product.
        let mut rng = Lcg(7);
        let cube = |scale: f32| SolverBody {
            inv_mass: scale,
            inv_inertia: Mat3::IDENTITY * (6.0 * scale),
            ..SolverBody::STATIC
        };
        let mut bodies = vec![
            SolverBody::STATIC,
            cube(1.0),
            cube(0.25),
            cube(3.0),
            cube(0.5),
        ];
        let inputs: Vec<ConstraintInput> = [(1, 2), (0, 3), (4, 0), (3, 1)]
            .iter()
            .enumerate()
            .map(|(l, &(a, b))| {
                let p = point(rng.vec_in(0.5), rng.vec_in(0.5));
                ConstraintInput::new(a, b, &[p], shared(l as u32, Vec3::Y))
            })
            .collect();
        let (c, _) = prepared(&inputs, &bodies);
        assert!(c.isotropic);
        for _ in 0..100 {
            let v = Vec3x4::gather(std::array::from_fn(|_| rng.vec_in(3.0)));
            let (full_a, full_b) = (c.inv_inertia_a.mul_vec3(v), c.inv_inertia_b.mul_vec3(v));
            for l in 0..LANES {
                assert_eq!(c.turn_a(v).lane(l), full_a.lane(l));
                assert_eq!(c.turn_b(v).lane(l), full_b.lane(l));
            }
        }
        let axes = Mat3::from_quat(rng.rotation());
        let turned = axes * Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0)) * axes.transpose();
        // Symmetric to the last bit, as the lanes keep only the upper triangle.
        bodies[4].inv_inertia = (turned + turned.transpose()) * 0.5;
        let (c, _) = prepared(&inputs, &bodies);
        assert!(!c.isotropic);
        let v = Vec3x4::gather([Vec3::new(0.3, -1.0, 2.0); LANES]);
        assert_eq!(c.turn_a(v).lane(2), c.inv_inertia_a.mul_vec3(v).lane(2));
        assert_eq!(
            c.turn_a(v).lane(2),
            bodies[4].inv_inertia * Vec3::new(0.3, -1.0, 2.0)
        );
    }

    #[test]
    fn four_lanes_hold_what_the_scalar_formulas_give() {
        // Four random constraints of one to four points between random bodies: every lane
        // holds, bit for bit, the scalar evaluation of the same formulas (K_ij, 1/K_ii, the
        // compliance, the turns I⁻¹(r×d), the approach speed), and the point slots a
        // manifold does not have are zero.
        let mut rng = Lcg(42);
        let mut bodies = vec![SolverBody::STATIC];
        for _ in 0..8 {
            let axes = rng.rotation();
            let inertia = Mat3::from_quat(axes)
                * Mat3::from_diagonal(Vec3::new(
                    rng.range(0.5, 3.0),
                    rng.range(0.5, 3.0),
                    rng.range(0.5, 3.0),
                ))
                * Mat3::from_quat(axes.inverse());
            // Symmetric to the last bit, as the lanes keep only the upper triangle.
            let inertia = (inertia + inertia.transpose()) * 0.5;
            bodies.push(SolverBody {
                linear_velocity: rng.vec_in(2.0),
                angular_velocity: rng.vec_in(2.0),
                inv_mass: rng.range(0.2, 2.0),
                inv_inertia: inertia,
                ..SolverBody::STATIC
            });
        }
        let pairs = [(1, 2), (0, 3), (4, 5), (6, 0)];
        let inputs: Vec<ConstraintInput> = pairs
            .iter()
            .enumerate()
            .map(|(l, &(a, b))| {
                let points: Vec<PointInput> = (0..=l)
                    .map(|_| PointInput {
                        anchor_a: rng.vec_in(0.6),
                        anchor_b: rng.vec_in(0.6),
                        depth: rng.range(-0.01, 0.02),
                        normal_impulse: rng.range(0.0, 1.0),
                        tangent_impulse: rng.vec_in(0.1),
                    })
                    .collect();
                let normal = rng.vec_in(1.0).normalize();
                ConstraintInput::new(a, b, &points, shared(l as u32, normal))
            })
            .collect();
        let (c, cold) = prepared(&inputs, &bodies);
        for (l, input) in inputs.iter().enumerate() {
            let (a, b) = (
                &bodies[input.body_a as usize],
                &bodies[input.body_b as usize],
            );
            let n = input.shared.normal;
            let linear = a.inv_mass + b.inv_mass;
            let rows = |p: &PointInput| (p.anchor_a.cross(n), p.anchor_b.cross(n));
            let turns = |p: &PointInput| {
                let (ua, ub) = rows(p);
                (a.inv_inertia * ua, b.inv_inertia * ub)
            };
            for i in 0..4 {
                let lane = &c.points[i];
                if i >= input.count {
                    assert_eq!(lane.diagonal.as_array()[l], 0.0);
                    assert_eq!(lane.lever.as_array()[l], 0.0);
                    assert_eq!(lane.normal_impulse.as_array()[l], 0.0);
                    assert_eq!(cold.lane_k(l)[i], [0.0; 4]);
                    continue;
                }
                let p = &input.points[i];
                let (ua, ub) = rows(p);
                for j in 0..input.count {
                    // The block is symmetric: the entry is formed once, as row i·turn j for
                    // i ≤ j.
                    let (ui, wj) = (
                        rows(&input.points[i.min(j)]),
                        turns(&input.points[i.max(j)]),
                    );
                    let expected = linear + ui.0.dot(wj.0) + ui.1.dot(wj.1);
                    assert_eq!(cold.lane_k(l)[i][j], expected);
                }
                let (wa, wb) = turns(p);
                let k = linear + ua.dot(wa) + ub.dot(wb);
                assert_eq!(lane.diagonal.as_array()[l], k);
                let compliance = k * input.shared.softness.compliance_scale;
                let scale = c.compliance_scale;
                assert_eq!(lane.compliance(scale).as_array()[l], compliance);
                let turn = |m: &SymMat3x4, row: Vec3| m.mul_vec3(Vec3x4::gather([row; LANES]));
                assert_eq!(turn(&c.inv_inertia_a, ua).lane(l), wa);
                assert_eq!(turn(&c.inv_inertia_b, ub).lane(l), wb);
                assert_eq!(cold.separation[i].as_array()[l], -p.depth);
                assert_eq!(lane.normal_impulse.as_array()[l], p.normal_impulse);
                let dv = b.linear_velocity + b.angular_velocity.cross(p.anchor_b)
                    - a.linear_velocity
                    - a.angular_velocity.cross(p.anchor_a);
                assert_eq!(cold.relative_velocity[i].as_array()[l], dv.dot(n));
            }
        }
    }
}
