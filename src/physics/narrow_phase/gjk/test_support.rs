//! Shared test helpers for GJK and EPA: a small random generator, point-cloud shapes,
//! brute-force distances.

use super::super::geometry::closest_points_segment_segment;
use crate::physics::math::{Isometry, Quat, Vec3};
use crate::physics::shape::{Shape, SupportMap};

/// A tiny deterministic linear congruential generator (Knuth's MMIX constants).
pub struct Lcg(pub u64);

impl Lcg {
    /// Uniform in [0, 1).
    pub fn next_f32(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// Uniform in the cube [−half, half]³.
    pub fn vec_in(&mut self, half: f32) -> Vec3 {
        Vec3::new(
            self.range(-half, half),
            self.range(-half, half),
            self.range(-half, half),
        )
    }

    /// A rotation about a random axis by a random angle.
    pub fn rotation(&mut self) -> Quat {
        let axis = self.vec_in(1.0).normalize_or(Vec3::Z);
        Quat::from_axis_angle(axis, self.range(0.0, std::f32::consts::TAU))
    }

    /// `pose` moved by a random turn (up to 0.5 rad about a random axis) and shift (up to
    /// 1 m per axis), both scaled down by a random factor into `room`: the moved pose and
    /// how far a point within `reach` of its origin can have moved (translation plus
    /// 2·|Δq.xyz|·reach, the manifold cache's bound), or `None` if that is past `room`.
    pub fn move_within(
        &mut self,
        pose: &Isometry,
        room: f32,
        reach: f32,
    ) -> Option<(Isometry, f32)> {
        let bound = |turn: Quat, shift: Vec3| shift.length() + 2.0 * turn.xyz().length() * reach;
        let turn = Quat::from_axis_angle(self.rotation() * Vec3::X, self.range(0.0, 0.5));
        let shift = self.vec_in(1.0);
        let k = (self.range(0.0, 1.0) * room / bound(turn, shift).max(1.0e-6)).min(1.0);
        let (turn, shift) = (Quat::IDENTITY.slerp(turn, k), shift * k);
        let moved = Isometry::new(pose.translation + shift, turn * pose.rotation);
        let bound = bound(turn, shift);
        (bound <= room).then_some((moved, bound))
    }

    /// For a pair at `b_in_a` whose test reported `gap` (> `margin`): `tries` random moves of
    /// B within gap − margin (see [`Lcg::move_within`]; B's points within `reach` of its
    /// origin), each tested by `collide` at its moved pose, which must find no points.
    /// Returns how many moves were tested.
    pub fn check_moves_within_gap(
        &mut self,
        b_in_a: &Isometry,
        (gap, margin, reach): (f32, f32, f32),
        tries: usize,
        collide: impl Fn(&Isometry) -> super::super::Manifold,
    ) -> usize {
        let room = gap - margin - 1.0e-4;
        let mut moves = 0;
        for _ in 0..tries {
            let Some((moved, bound)) = self.move_within(b_in_a, room, reach) else {
                continue;
            };
            moves += 1;
            let after = collide(&moved);
            assert_eq!(
                after.count, 0,
                "moved {bound} within the gap {gap} − margin"
            );
        }
        moves
    }
}

/// The convex hull of a point list, through a brute-force support function.
pub struct PointCloud(pub Vec<Vec3>);

impl SupportMap for PointCloud {
    fn support(&self, dir: Vec3) -> Vec3 {
        self.0
            .iter()
            .copied()
            .max_by(|p, q| p.dot(dir).total_cmp(&q.dot(dir)))
            .unwrap_or(Vec3::ZERO)
    }
}

/// The 8 corners of a box with half extents `half`, placed by `iso`.
pub fn box_corners(half: Vec3, iso: &Isometry) -> Vec<Vec3> {
    (0..8)
        .map(|i| {
            let sign = Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            );
            iso.transform_point(half * sign)
        })
        .collect()
}

/// The 12 edges of a box as pairs of corners (corners differing in one bit of their index).
pub fn box_edges(corners: &[Vec3]) -> Vec<(Vec3, Vec3)> {
    let mut edges = Vec::new();
    for i in 0..8usize {
        for bit in [1usize, 2, 4] {
            if i & bit == 0 {
                edges.push((corners[i], corners[i | bit]));
            }
        }
    }
    edges
}

/// Distance from `p` (box frame) to a box centred at the origin: clamp into the box.
pub fn point_box_distance(p: Vec3, half: Vec3) -> f32 {
    (p - p.clamp(-half, half)).length()
}

/// Exact distance between a box at the origin and a box placed by `b_in_a`: the minimum over
/// corner-to-box and edge-to-edge distances, which between them contain every closest pair of
/// two convex polyhedra (a closest pair of faces always has a closest pair on their edges).
pub fn brute_force_box_distance(half_a: Vec3, half_b: Vec3, b_in_a: &Isometry) -> f32 {
    let corners_a = box_corners(half_a, &Isometry::IDENTITY);
    let corners_b = box_corners(half_b, b_in_a);
    let a_to_b = corners_a
        .iter()
        .map(|&p| point_box_distance(b_in_a.inverse_transform_point(p), half_b));
    let b_to_a = corners_b.iter().map(|&p| point_box_distance(p, half_a));
    let mut best = a_to_b.chain(b_to_a).fold(f32::INFINITY, f32::min);
    for &(p1, q1) in &box_edges(&corners_a) {
        for &(p2, q2) in &box_edges(&corners_b) {
            let (c1, c2) = closest_points_segment_segment(p1, q1, p2, q2);
            best = best.min((c2 - c1).length());
        }
    }
    best
}

/// The separating-axis test of two boxes over their 15 candidate axes: the largest gap
/// `|t·u| − (r_a(u) + r_b(u))` between their projections. Positive: separated, and the distance
/// is at least this. Negative: overlapping, and the penetration depth is exactly `−gap`, since
/// these axes are all the face normals of the Minkowski difference. Returns (gap, axis).
pub fn sat_box_gap(half_a: Vec3, half_b: Vec3, b_in_a: &Isometry) -> (f32, Vec3) {
    let axes_a = [Vec3::X, Vec3::Y, Vec3::Z];
    let axes_b = axes_a.map(|axis| b_in_a.transform_vector(axis));
    let mut candidates: Vec<Vec3> = axes_a.iter().chain(axes_b.iter()).copied().collect();
    for ea in axes_a {
        for eb in axes_b {
            let cross = ea.cross(eb);
            if cross.length() > 1e-3 {
                candidates.push(cross.normalize());
            }
        }
    }
    let radius = |half: Vec3, axes: &[Vec3; 3], u: Vec3| {
        (0..3).map(|k| half[k] * axes[k].dot(u).abs()).sum::<f32>()
    };
    let mut best = (f32::NEG_INFINITY, Vec3::X);
    for u in candidates {
        let centre = b_in_a.translation.dot(u);
        let gap = centre.abs() - radius(half_a, &axes_a, u) - radius(half_b, &axes_b, u);
        if gap > best.0 {
            best = (gap, if centre >= 0.0 { u } else { -u });
        }
    }
    best
}

/// Zero-size, flat and thin shapes next to ordinary ones, for the no-panic/no-NaN sweeps.
pub fn degenerate_shapes() -> [Shape; 10] {
    [
        Shape::sphere(0.0),
        Shape::sphere(1e-6),
        Shape::sphere(1.0),
        Shape::cuboid(Vec3::ZERO),
        Shape::cuboid(Vec3::new(1.0, 0.0, 0.0)),
        Shape::cuboid(Vec3::new(1.0, 1.0, 0.0)),
        Shape::cuboid(Vec3::splat(0.5)),
        Shape::capsule(0.0, 0.0),
        Shape::capsule(1.0, 0.0),
        Shape::capsule(1.0, 0.5),
    ]
}
