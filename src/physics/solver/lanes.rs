//! Four contact constraints of one colour side by side, one per SIMD lane, for the passes
//! that run every sub-step (warm start, the biased and relax passes).
//!
//! A colour's constraints move disjoint bodies (`graph_colour.rs`), so the four lanes never
//! read what another lane writes, and solving them together computes what solving them one
//! after the other would. The overflow set is packed one constraint per group, the other
//! lanes empty, which keeps it serial.
//!
//! Built once per step from the prepared [`ContactConstraint`]s, written back to them
//! (impulses, the approach speed) before restitution and storing the impulses. Unused
//! lanes and point slots are zero: no mass, no arms, no impulse, so every pass leaves them
//! at zero and they move nothing. The angular rows r×d are not stored: the iterations form
//! them from the current arms, which is cheaper than reading them back.

use super::block::{CachedFactor, FactorLanes};
use super::body::SolverBody;
use super::constraint::ContactConstraint;
use super::simd::{f32x4, Mat3x4, Vec3x4, LANES};
use crate::physics::math::{Mat3, Vec3};
use crate::physics::narrow_phase::MAX_MANIFOLD_POINTS;

/// Marks an unused lane.
pub(crate) const EMPTY: u32 = u32::MAX;

/// One point slot of four constraints.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PointLanes {
    /// Anchored arms at the step start (see `ConstraintPoint`).
    pub anchor_a: Vec3x4,
    pub anchor_b: Vec3x4,
    /// Separation at the step start, m.
    pub separation: f32x4,
    /// Separation at the bodies' current positions (tracked when they move), m.
    pub separation_now: f32x4,
    /// I_a⁻¹(r_a×d) and I_b⁻¹(r_b×d) at the anchors, for d = normal, tangent 0, tangent 1.
    pub turns_a: [Vec3x4; 3],
    pub turns_b: [Vec3x4; 3],
    /// K_ii of the point, 1/kg.
    pub diagonal: f32x4,
    /// 1/K_ii (0 in unused slots), kg.
    pub normal_mass: f32x4,
    /// Soft compliance of the biased pass, 1/kg.
    pub compliance: f32x4,
    /// Packed inverse tangent mass matrix [m00, m01, m11], kg.
    pub tangent_mass: [f32x4; 3],
    pub normal_impulse: f32x4,
    pub tangent_impulse: [f32x4; 2],
    pub max_normal_impulse: f32x4,
    pub relative_velocity: f32x4,
}

/// The normal block of one lane's manifold: solved lane by lane (`block.rs`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BlockLane {
    /// K = J·M⁻¹·Jᵀ without the pass's diagonal terms.
    pub k: [[f32; MAX_MANIFOLD_POINTS]; MAX_MANIFOLD_POINTS],
    pub factors: [CachedFactor; 2],
    /// Points of this lane's manifold (0: empty lane).
    pub count: usize,
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

/// Four constraints of one colour (see the module notes).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConstraintLanes {
    /// Each lane's index in the step's constraint array, or [`EMPTY`].
    pub constraints: [u32; LANES],
    /// Solver body indices (0, the static stand-in, for empty lanes).
    pub body_a: [u32; LANES],
    pub body_b: [u32; LANES],
    pub inv_mass_a: f32x4,
    pub inv_mass_b: f32x4,
    /// The bodies' world inverse inertias (fixed for the step).
    pub inv_inertia_a: Mat3x4,
    pub inv_inertia_b: Mat3x4,
    pub normal: Vec3x4,
    pub tangents: [Vec3x4; 2],
    pub friction: f32x4,
    pub restitution: f32x4,
    pub bias_rate: f32x4,
    /// All bits set in lanes whose bodies are both dynamic (arms follow half the relative
    /// translation, see `contact_solve.rs`).
    pub shared_point: f32x4,
    /// The most points of any lane.
    pub count: usize,
    /// True when some lane has rolling resistance.
    pub any_rolling: bool,
    pub rolling: [RollingLane; LANES],
    pub blocks: [BlockLane; LANES],
    /// The lanes' cached whole-block factorisations of the biased and the relax pass,
    /// side by side (copies of `blocks[l].factors`).
    pub factors: [FactorLanes; 2],
    pub points: [PointLanes; MAX_MANIFOLD_POINTS],
}

impl ConstraintLanes {
    /// Packs the constraints at `indices` (one to four) into these lanes, which must be
    /// empty (`Default`).
    pub fn pack(
        &mut self,
        constraints: &[ContactConstraint],
        bodies: &[SolverBody],
        indices: &[u32],
    ) {
        debug_assert!(!indices.is_empty() && indices.len() <= LANES);
        self.constraints = [EMPTY; LANES];
        for (l, &index) in indices.iter().enumerate() {
            let c = &constraints[index as usize];
            self.constraints[l] = index;
            self.body_a[l] = c.body_a;
            self.body_b[l] = c.body_b;
            self.inv_mass_a.as_mut_array()[l] = c.inv_mass_a;
            self.inv_mass_b.as_mut_array()[l] = c.inv_mass_b;
            self.inv_inertia_a
                .set_lane(l, &bodies[c.body_a as usize].inv_inertia);
            self.inv_inertia_b
                .set_lane(l, &bodies[c.body_b as usize].inv_inertia);
            self.normal.set_lane(l, c.normal);
            self.tangents[0].set_lane(l, c.tangents[0]);
            self.tangents[1].set_lane(l, c.tangents[1]);
            self.friction.as_mut_array()[l] = c.friction;
            self.restitution.as_mut_array()[l] = c.restitution;
            self.bias_rate.as_mut_array()[l] = c.bias_rate;
            if c.shared_point {
                self.shared_point.as_mut_array()[l] = f32::from_bits(u32::MAX);
            }
            self.count = self.count.max(c.count);
            if c.rolling_resistance > 0.0 {
                self.any_rolling = true;
                self.rolling[l] = RollingLane {
                    resistance: c.rolling_resistance,
                    mass: c.rolling_mass,
                    impulse: c.rolling_impulse,
                };
            }
            self.blocks[l] = BlockLane {
                k: c.normal_k,
                factors: Default::default(),
                count: c.count,
            };
            for (j, p) in c.points[..c.count].iter().enumerate() {
                let q = &mut self.points[j];
                q.anchor_a.set_lane(l, p.anchor_a);
                q.anchor_b.set_lane(l, p.anchor_b);
                q.separation.as_mut_array()[l] = p.separation;
                q.separation_now.as_mut_array()[l] = p.separation;
                for k in 0..3 {
                    q.turns_a[k].set_lane(l, p.turns_a[k]);
                    q.turns_b[k].set_lane(l, p.turns_b[k]);
                    q.tangent_mass[k].as_mut_array()[l] = p.tangent_mass[k];
                }
                q.diagonal.as_mut_array()[l] = c.normal_k[j][j];
                q.normal_mass.as_mut_array()[l] = p.normal_mass;
                q.compliance.as_mut_array()[l] = p.compliance;
                q.normal_impulse.as_mut_array()[l] = p.normal_impulse;
                q.tangent_impulse[0].as_mut_array()[l] = p.tangent_impulse[0];
                q.tangent_impulse[1].as_mut_array()[l] = p.tangent_impulse[1];
                q.max_normal_impulse.as_mut_array()[l] = p.max_normal_impulse;
                q.relative_velocity.as_mut_array()[l] = p.relative_velocity;
            }
        }
    }

    /// Writes what the passes changed (impulses, approach speeds) back into the
    /// constraints.
    pub fn unpack(&self, constraints: &mut [ContactConstraint]) {
        for (l, &index) in self.constraints.iter().enumerate() {
            if index == EMPTY {
                continue;
            }
            let c = &mut constraints[index as usize];
            c.rolling_impulse = self.rolling[l].impulse;
            for (j, p) in c.points[..c.count].iter_mut().enumerate() {
                let lanes = &self.points[j];
                p.normal_impulse = lanes.normal_impulse.as_array()[l];
                p.tangent_impulse = lanes.tangent_impulse.map(|t| t.as_array()[l]);
                p.max_normal_impulse = lanes.max_normal_impulse.as_array()[l];
                p.relative_velocity = lanes.relative_velocity.as_array()[l];
            }
        }
    }
}

/// Packs the constraints listed in `order`, whose colours are the ranges `colours` of
/// it, four per lane group within each colour; the last range is the overflow set when
/// `overflow` is true (one constraint per group).
pub(crate) fn pack_colours(
    constraints: &[ContactConstraint],
    bodies: &[SolverBody],
    order: &[u32],
    colours: &[std::ops::Range<usize>],
    overflow: bool,
    out: &mut Vec<ConstraintLanes>,
) {
    for (i, range) in colours.iter().enumerate() {
        let width = if overflow && i + 1 == colours.len() {
            1
        } else {
            LANES
        };
        for chunk in order[range.clone()].chunks(width) {
            out.push(ConstraintLanes::default());
            if let Some(lanes) = out.last_mut() {
                lanes.pack(constraints, bodies, chunk);
            }
        }
    }
}
