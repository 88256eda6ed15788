//! Continuous collision for bodies with `ccd: true`: after the solver has moved
//! every body, each fast ccd body's motion over the step is swept against everything it
//! could have passed through, and the body is put back at the first time of impact.
//!
//! Speculative contacts already stop most fast bodies: the narrow phase looks as far ahead
//! as the pair can close in a step, up to `MAX_SPECULATIVE_DISTANCE` (2 m). What they miss is
//! a body that crosses a thin obstacle within one step from farther away (a 0.1 m ball at
//! 500 m/s moves 8.3 m per step), or one whose pair was never reported by the broad phase
//! because its fat box lagged behind. For those:
//!
//! ```text
//! for each awake ccd body that moved more than CCD_MOTION_FRACTION of its size:
//!     sweep: centre c(t) = c₀ + t·(c₁ − c₀), rotation q(t) = nlerp(q₀, q₁, t), t ∈ [0, 1]
//!     candidates: colliders whose fat box meets the box swept by its colliders
//!     for each pair (own collider A, other collider B, B where it is now):
//!         conservative advancement (Mirtich 1996):
//!         t ← 0
//!         repeat: d ← distance(A at t, B)   (GJK; a plane's is the support's height)
//!                 if d ≤ target + tolerance: hit at t
//!                 t ← t + (d − target) / bound     bound = |c₁ − c₀| + θ·reach_A
//!                 if t ≥ 1: no hit
//!     move the body to the earliest hit; keep its velocity
//! ```
//! `bound` is the most any point of A can move towards B per unit of t (its centre's
//! displacement plus the rotation angle times A's farthest point from the centre of mass),
//! so each advance is safe: no contact is skipped. A pair that already touches at t = 0 is
//! left to its contact. The body keeps its velocity: the next step's speculative contact
//! sees the obstacle `target` away and stops it on the near side. Other bodies, other ccd
//! bodies among them, are taken where the solver left them (Box2D v3 treats them the same
//! way): every sweep is tested before any body is moved, so the sweeps run on every worker
//! and give the same times in any order.
//!
//! Cost: one broad-phase query per fast ccd body and step, and for each candidate a few GJK
//! distance queries (a 0.1 m ball against a wall: 2 to 4); a ccd body moving slower than a
//! quarter of its size costs nothing.

use super::body::Body;
use super::collider::{move_collider_proxy, Collider};
use super::constants::{
    CCD_MAX_ITERATIONS, CCD_MOTION_FRACTION, CCD_TARGET_SEPARATION, LINEAR_SLOP,
};
use super::math::{Isometry, Quat, Vec3};
use super::narrow_phase::gjk::gjk_distance;
use super::shape::{Shape, SupportMap};
use super::solver::crew::{for_each_block, Shared};
use super::world::World;

/// A body's motion over the step, as a function of t ∈ [0, 1].
#[derive(Clone, Copy, Debug)]
struct Sweep {
    center0: Vec3,
    center1: Vec3,
    rotation0: Quat,
    rotation1: Quat,
    /// The body's centre of mass in its own frame.
    local_center: Vec3,
}

impl Sweep {
    /// The body's pose (origin and rotation) at `t`.
    fn pose(&self, t: f32) -> Isometry {
        let rotation = self.rotation0.lerp(self.rotation1, t).normalize();
        let center = self.center0 + (self.center1 - self.center0) * t;
        Isometry::new(center - rotation * self.local_center, rotation)
    }

    /// The angle the body turns through, rad.
    fn angle(&self) -> f32 {
        let d = self.rotation1 * self.rotation0.inverse();
        2.0 * d.xyz().length().min(1.0).asin()
    }
}

/// The continuous phase's buffers.
#[derive(Default)]
pub(crate) struct CcdScratch {
    /// Awake dynamic bodies with continuous collision: body slot, centre of mass and
    /// rotation at the start of the step.
    pub bodies: Vec<(u32, Vec3, Quat)>,
    /// Each listed body's first time of impact (1: none), index for index with `bodies`.
    pub impacts: Vec<f32>,
    /// Colliders a sweep may hit: one list per block of `bodies`.
    pub candidates: Vec<Vec<u32>>,
}

/// Ccd bodies per block of the sweeps.
const CCD_BLOCK: usize = 4;

/// Fewest ccd bodies whose sweeps are shared with the team: a fast body's sweep takes a
/// few microseconds (a broad-phase query and a few GJK distances), a slow one's next to
/// nothing, and waking the team costs tens of microseconds.
const MIN_CCD_BODIES_TO_SHARE: usize = 32;

impl World {
    /// Puts every fast ccd body back at its first time of impact (see the module notes).
    ///
    /// The sweeps run on every worker (blocks of [`CCD_BLOCK`] bodies, once there are
    /// [`MIN_CCD_BODIES_TO_SHARE`]), each against the world as the solver left it, so their
    /// times do not depend on the order they are taken in; the bodies are then moved in
    /// list order.
    pub(crate) fn solve_continuous(&mut self) {
        let list = std::mem::take(&mut self.scratch.ccd.bodies);
        let mut impacts = std::mem::take(&mut self.scratch.ccd.impacts);
        let mut candidates = std::mem::take(&mut self.scratch.ccd.candidates);
        let blocks = list.len().div_ceil(CCD_BLOCK);
        impacts.clear();
        impacts.resize(list.len(), 1.0);
        if candidates.len() < blocks {
            candidates.resize_with(blocks, Vec::new);
        }
        {
            let world = &*self;
            let (out, lists) = (Shared::new(&mut impacts), Shared::new(&mut candidates));
            let sweep_block = |block: usize| {
                let first = block * CCD_BLOCK;
                for (k, &entry) in list.iter().enumerate().skip(first).take(CCD_BLOCK) {
                    // SAFETY: block `block` alone has its candidate list and entries k.
                    unsafe {
                        *out.at_mut(k) = world.first_impact(entry, lists.at_mut(block));
                    }
                }
            };
            if list.len() >= MIN_CCD_BODIES_TO_SHARE {
                for_each_block(blocks, 1, &|range| range.for_each(sweep_block));
            } else {
                (0..blocks).for_each(sweep_block);
            }
        }
        for (&(index, center0, rotation0), &t) in list.iter().zip(&impacts) {
            if t < 1.0 {
                if let Some(sweep) = self.sweep(index, center0, rotation0) {
                    self.move_to_impact(index, &sweep, t);
                }
            }
        }
        self.scratch.ccd.bodies = list;
        self.scratch.ccd.impacts = impacts;
        self.scratch.ccd.candidates = candidates;
    }

    /// The motion of body slot `index` over the step, from where it started (`center0`,
    /// `rotation0`) to where it is; `None` when it is gone or frozen.
    fn sweep(&self, index: u32, center0: Vec3, rotation0: Quat) -> Option<Sweep> {
        let body = self.bodies.at(index).filter(|body| !body.frozen)?;
        Some(Sweep {
            center0,
            center1: body.center,
            rotation0,
            rotation1: body.rotation,
            local_center: body.local_center,
        })
    }

    /// The first time of impact of a listed ccd body's sweep, or 1 when it hits nothing or
    /// moved too little to be swept. `candidates`: a buffer for the colliders the sweep may
    /// hit.
    fn first_impact(
        &self,
        (index, center0, rotation0): (u32, Vec3, Quat),
        candidates: &mut Vec<u32>,
    ) -> f32 {
        let Some(sweep) = self.sweep(index, center0, rotation0) else {
            return 1.0;
        };
        let Some(body) = self.bodies.at(index) else {
            return 1.0;
        };
        let reach = self.reach(body);
        let bound = (sweep.center1 - sweep.center0).length() + sweep.angle() * reach;
        let size = body
            .colliders
            .iter()
            .filter_map(|&c| self.colliders.at(c))
            .filter(|c| !c.sensor)
            .map(|c| c.feature_size)
            .fold(f32::INFINITY, f32::min);
        let fast = bound > CCD_MOTION_FRACTION * size;
        if !fast || !bound.is_finite() {
            return 1.0;
        }
        // The box swept by the body's colliders: their boxes at both ends, grown by the
        // rotation's reach (a turning box may sweep outside both).
        let mut swept: Option<super::aabb::Aabb> = None;
        for &c in &body.colliders {
            let Some(col) = self.colliders.at(c) else {
                continue;
            };
            if col.sensor {
                continue;
            }
            let start = col.pose_on(&sweep.pose(0.0));
            let both = col.shape.world_aabb(&start).union(&col.aabb);
            swept = Some(swept.map_or(both, |s| s.union(&both)));
        }
        let Some(swept) = swept else {
            return 1.0;
        };
        let swept = swept.expanded(sweep.angle().min(std::f32::consts::PI) * reach);
        candidates.clear();
        self.broad_phase.query(&swept, &mut |user| {
            candidates.push(user);
            true
        });
        candidates.sort_unstable();
        let mut first = 1.0f32;
        for &other in candidates.iter() {
            let Some(col_b) = self.colliders.at(other) else {
                continue;
            };
            if col_b.body == index || col_b.sensor {
                continue;
            }
            for &c in &body.colliders {
                let Some(col_a) = self.colliders.at(c) else {
                    continue;
                };
                if col_a.sensor || !col_a.filter.allows(col_b.filter) {
                    continue;
                }
                if let Some(t) = time_of_impact(col_a, col_b, &sweep, bound) {
                    first = first.min(t);
                }
            }
        }
        first
    }

    /// The farthest point of the body's colliders from its centre of mass, m.
    fn reach(&self, body: &Body) -> f32 {
        body.colliders
            .iter()
            .filter_map(|&c| self.colliders.at(c))
            .map(|c| {
                let local = c.shape.local_aabb();
                let origin = c.local_pose.translation - body.local_center;
                origin.length() + (local.center().length() + local.half_extents().length())
            })
            .fold(0.0, f32::max)
    }

    /// Moves body `index` to its sweep's pose at `t`, with its colliders and proxies.
    fn move_to_impact(&mut self, index: u32, sweep: &Sweep, t: f32) {
        let pose = sweep.pose(t);
        let Some(body) = self.bodies.at_mut(index) else {
            return;
        };
        body.position = pose.translation;
        body.rotation = pose.rotation;
        body.sync_center();
        let moved = body.center - sweep.center0;
        for &ci in &body.colliders {
            if let Some(collider) = self.colliders.at_mut(ci) {
                collider.sync(&pose);
                move_collider_proxy(&mut *self.broad_phase, collider, moved);
            }
        }
    }
}

/// The first t ∈ [0, 1) at which collider `a`, moving with `sweep`, comes within the target
/// separation of `b` (where `b` is now); `None` when it never does, or touches already at
/// t = 0. `bound`: the most any point of `a` moves per unit of t.
fn time_of_impact(a: &Collider, b: &Collider, sweep: &Sweep, bound: f32) -> Option<f32> {
    let target = CCD_TARGET_SEPARATION.min(0.25 * a.feature_size.min(b.feature_size));
    let tolerance = 0.25 * LINEAR_SLOP.min(target);
    let mut t = 0.0f32;
    for iteration in 0..CCD_MAX_ITERATIONS {
        let pose_a = a.pose_on(&sweep.pose(t));
        let d = distance(&a.shape, &pose_a, &b.shape, &b.world_pose);
        if d <= target + tolerance {
            return (iteration > 0).then_some(t);
        }
        t += (d - target) / bound;
        // A NaN distance ends the search as no hit.
        if t >= 1.0 || t.is_nan() {
            return None;
        }
    }
    None
}

/// Distance between two placed shapes, m (0 when they overlap); against a plane, the signed
/// height of the other shape's lowest point over it.
fn distance(a: &Shape, pose_a: &Isometry, b: &Shape, pose_b: &Isometry) -> f32 {
    let plane = |shape: &Shape, pose: &Isometry, normal: Vec3, plane_pose: &Isometry| {
        let n = plane_pose.rotation * normal;
        let lowest = pose.transform_point(shape.support(pose.rotation.inverse() * -n));
        n.dot(lowest - plane_pose.translation)
    };
    match (a, b) {
        (_, Shape::Plane { normal }) => plane(a, pose_a, *normal, pose_b),
        (Shape::Plane { normal }, _) => plane(b, pose_b, *normal, pose_a),
        _ => gjk_distance(a, b, &pose_a.inv_mul(pose_b)).distance,
    }
}
