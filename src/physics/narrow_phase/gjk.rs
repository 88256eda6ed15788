//! Distance between two convex shapes with the Gilbert–Johnson–Keerthi algorithm (GJK).
//!
//! Two convex sets A and B are as far apart as their Minkowski difference `C = A − B` is from the
//! origin: the closest point `v` of C to the origin is `point_a − point_b` for the closest pair of
//! points (Gilbert, Johnson & Keerthi 1988). C is never built; it is probed through its support
//! function, which splits: `s_C(d) = s_A(d) − s_B(−d)`.
//!
//! ```text
//! v ← any point of C;  simplex ← {v}
//! loop
//!     w ← s_C(−v)                          the point of C farthest towards the origin
//!     if |v|² − v·w ≤ ε·|v|·size: stop     v·w/|v| ≤ distance ≤ |v|, the bounds have met
//!     simplex ← closest sub-simplex of (simplex ∪ {w}) to the origin, with its weights
//!     v ← Σ λᵢ wᵢ                          |v| strictly decreases
//! ```
//!
//! The sub-simplex step (Johnson's distance subalgorithm) is done with signed volumes
//! (Montanari, Petrinic & Barbieri 2017): barycentric coordinates of the origin's projection come
//! from the signed areas or volumes that the origin forms with the faces; a negative one names a
//! face on which the closest point lies, and that face is solved recursively. It never divides by
//! a determinant that rounding could have flipped, which is what made the original Johnson
//! subalgorithm fragile (van den Bergen 1999; Catto, "Computing Distance using GJK", GDC 2010).
//!
//! The loop also stops when a support point repeats, when `|v|` stops decreasing, on reaching a
//! tetrahedron that holds the origin (the shapes overlap), or after `GJK_MAX_ITERATIONS` steps.
//! Everything happens in A's local frame; B is placed there by `b_in_a`.

use crate::physics::constants::{
    GJK_DEGENERACY_TOLERANCE, GJK_MAX_ITERATIONS, GJK_OVERLAP_TOLERANCE, GJK_RELATIVE_TOLERANCE,
};
use crate::physics::math::{is_finite_vec, Isometry, Vec3};
use crate::physics::shape::SupportMap;

/// A point of the Minkowski difference `A − B`, kept with the points of A and B it came from so
/// that the closest points can be rebuilt from barycentric weights.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SupportPoint {
    /// The support point of A, in A's frame.
    pub a: Vec3,
    /// The support point of B, in A's frame.
    pub b: Vec3,
    /// `a − b`, the point of the Minkowski difference.
    pub w: Vec3,
}

/// The Minkowski difference `A − B` of two placed shapes, seen only through its support function,
/// in A's frame.
pub struct MinkowskiDifference<'s, A: ?Sized, B: ?Sized> {
    a: &'s A,
    b: &'s B,
    b_in_a: &'s Isometry,
}

impl<'s, A: SupportMap + ?Sized, B: SupportMap + ?Sized> MinkowskiDifference<'s, A, B> {
    /// The difference of `a` and `b`, with `b` placed in `a`'s frame by `b_in_a`.
    pub fn new(a: &'s A, b: &'s B, b_in_a: &'s Isometry) -> Self {
        Self { a, b, b_in_a }
    }

    /// The point of `A − B` farthest along `dir` (any length, may be zero):
    /// `s_A(dir) − s_B(−dir)`, with B's support evaluated in B's frame and brought back.
    pub fn support(&self, dir: Vec3) -> SupportPoint {
        let a = self.a.support(dir);
        let dir_in_b = self.b_in_a.inverse_transform_vector(-dir);
        let b = self.b_in_a.transform_point(self.b.support(dir_in_b));
        SupportPoint { a, b, w: a - b }
    }

    /// Where B is placed in A's frame.
    pub fn b_in_a(&self) -> &Isometry {
        self.b_in_a
    }
}

/// Up to four points of the Minkowski difference with the barycentric weights of the point of
/// their hull closest to the origin.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Simplex {
    vertices: [SupportPoint; 4],
    weights: [f32; 4],
    len: usize,
}

impl Simplex {
    /// The simplex made of the single point `p`, with weight 1.
    pub fn from_point(p: SupportPoint) -> Self {
        Self::weighted(&[p], &[1.0])
    }

    /// A simplex from 1 to 4 vertices, weighted at their centroid until
    /// [`closest_sub_simplex`](Self::closest_sub_simplex) computes the real weights.
    pub fn from_vertices(vertices: &[SupportPoint]) -> Self {
        assert!(
            (1..=4).contains(&vertices.len()),
            "a simplex has 1 to 4 vertices"
        );
        let weight = 1.0 / vertices.len() as f32;
        Self::weighted(vertices, &[weight; 4][..vertices.len()])
    }

    /// A simplex from its vertices and their weights (same length, at most 4).
    fn weighted(vertices: &[SupportPoint], weights: &[f32]) -> Self {
        let mut simplex = Self {
            len: vertices.len(),
            ..Self::default()
        };
        simplex.vertices[..vertices.len()].copy_from_slice(vertices);
        simplex.weights[..weights.len()].copy_from_slice(weights);
        simplex
    }

    /// How many vertices: 1 point, 2 segment, 3 triangle, 4 tetrahedron.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a simplex without vertices (only `Simplex::default()`).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The vertices in use.
    pub fn vertices(&self) -> &[SupportPoint] {
        &self.vertices[..self.len]
    }

    /// The barycentric weights of the closest point, one per vertex, summing to 1.
    pub fn weights(&self) -> &[f32] {
        &self.weights[..self.len]
    }

    /// The point of the simplex closest to the origin: `v = Σ λᵢ wᵢ`.
    pub fn closest_point(&self) -> Vec3 {
        self.weighted_sum(|p| p.w)
    }

    /// The matching points on A and on B: `(Σ λᵢ aᵢ, Σ λᵢ bᵢ)`, whose difference is
    /// `closest_point()`.
    pub fn witness_points(&self) -> (Vec3, Vec3) {
        (self.weighted_sum(|p| p.a), self.weighted_sum(|p| p.b))
    }

    /// The length of the largest vertex, m: the scale against which GJK's relative tolerances
    /// are measured (rounding errors in `v` are proportional to it).
    pub fn size(&self) -> f32 {
        self.vertices()
            .iter()
            .map(|p| p.w.length())
            .fold(0.0, f32::max)
    }

    /// `Σ λᵢ f(pᵢ)` over the vertices in use.
    fn weighted_sum(&self, f: impl Fn(&SupportPoint) -> Vec3) -> Vec3 {
        self.vertices()
            .iter()
            .zip(self.weights())
            .fold(Vec3::ZERO, |sum, (p, &weight)| sum + f(p) * weight)
    }

    /// True when `w` is already a vertex (a repeated support point means no further progress).
    fn contains(&self, w: Vec3) -> bool {
        self.vertices().iter().any(|p| p.w == w)
    }

    /// This simplex with `p` appended (weights to be computed by `closest_sub_simplex`).
    /// Only called on simplices of at most 3 vertices.
    fn with(&self, p: SupportPoint) -> Simplex {
        let mut next = *self;
        next.vertices[self.len] = p;
        next.len = self.len + 1;
        next
    }

    /// The smallest face of this simplex whose Voronoi region holds the point closest to the
    /// origin, with that point's barycentric weights (Johnson's subalgorithm, signed volumes).
    pub fn closest_sub_simplex(&self) -> Simplex {
        let p = self.vertices;
        match self.len {
            0 | 1 => *self,
            2 => closest_on_segment(p[0], p[1]),
            3 => closest_on_triangle([p[0], p[1], p[2]]),
            _ => closest_on_tetrahedron(p),
        }
    }
}

/// The closest point of segment `p0`–`p1` to the origin. Points on it are `w0 + t·e` with
/// `e = w1 − w0`; `|w0 + t·e|²` is smallest at `t = −w0·e / |e|²` (Ericson 5.1.2), and a `t`
/// outside `(0, 1)` means a vertex's region.
fn closest_on_segment(p0: SupportPoint, p1: SupportPoint) -> Simplex {
    let edge = p1.w - p0.w;
    let length_squared = edge.length_squared();
    if length_squared <= f32::MIN_POSITIVE {
        return Simplex::from_point(p0);
    }
    let t = -p0.w.dot(edge) / length_squared;
    if t <= 0.0 {
        Simplex::from_point(p0)
    } else if t >= 1.0 {
        Simplex::from_point(p1)
    } else {
        Simplex::weighted(&[p0, p1], &[1.0 - t, t])
    }
}

/// The closest point of a triangle to the origin.
///
/// With `n = (w1 − w0) × (w2 − w0)`, the origin's projection `q` onto the plane has barycentric
/// coordinates proportional to the signed areas of the sub-triangles it forms with each edge,
/// measured along n. Because q is parallel to n, `n·((wⱼ − q) × (wₖ − q)) = n·(wⱼ × wₖ)`, so
///
/// ```text
/// λ0 ∝ n·(w1 × w2),  λ1 ∝ n·(w2 × w0),  λ2 ∝ n·(w0 × w1),  sum = n·n
/// ```
///
/// All positive: q is inside and is the answer. Otherwise the answer lies on an edge whose opposite
/// vertex has `λ ≤ 0` (its region), and the closest of those edges wins (Montanari et al. 2017).
fn closest_on_triangle(p: [SupportPoint; 3]) -> Simplex {
    let [w0, w1, w2] = [p[0].w, p[1].w, p[2].w];
    let normal = (w1 - w0).cross(w2 - w0);
    let longest = (w1 - w0)
        .length_squared()
        .max((w2 - w1).length_squared())
        .max((w0 - w2).length_squared());
    // Flat when the area is tiny next to the longest edge: the normal would be rounding noise.
    let flat = normal.length_squared() <= (GJK_DEGENERACY_TOLERANCE * longest).powi(2);
    let areas = [
        normal.dot(w1.cross(w2)),
        normal.dot(w2.cross(w0)),
        normal.dot(w0.cross(w1)),
    ];
    let total: f32 = areas.iter().sum();
    if !flat && total > 0.0 && areas.iter().all(|&area| area > 0.0) {
        let weights = areas.map(|area| area / total);
        return Simplex::weighted(&p, &weights);
    }
    let edges = (0..3)
        .filter(|&i| flat || areas[i] <= 0.0)
        .map(|i| closest_on_segment(p[(i + 1) % 3], p[(i + 2) % 3]));
    nearest(edges).unwrap_or_else(|| Simplex::from_point(p[0]))
}

/// The closest point of a tetrahedron to the origin.
///
/// The origin's barycentric coordinates are the signed volumes of the tetrahedra obtained by
/// putting the origin in place of each vertex, over the full signed volume. With the triple
/// product `[x, y, z] = x·(y × z)`:
///
/// ```text
/// c0 = [w1, w2, w3],  c1 = −[w0, w2, w3],  c2 = [w0, w1, w3],  c3 = −[w0, w1, w2],  det = Σ cᵢ
/// ```
///
/// All `cᵢ` of the sign of `det`: the origin is inside and the shapes overlap. Otherwise each face
/// opposite a vertex whose `cᵢ` disagrees is a candidate region, solved as a triangle; a flat
/// tetrahedron (rounding decides its signs) tries all four faces (Montanari et al. 2017).
fn closest_on_tetrahedron(p: [SupportPoint; 4]) -> Simplex {
    let [w0, w1, w2, w3] = [p[0].w, p[1].w, p[2].w, p[3].w];
    let volumes = [
        w1.dot(w2.cross(w3)),
        -w0.dot(w2.cross(w3)),
        w0.dot(w1.cross(w3)),
        -w0.dot(w1.cross(w2)),
    ];
    let det: f32 = volumes.iter().sum();
    let longest = (w1 - w0)
        .length()
        .max((w2 - w0).length())
        .max((w3 - w0).length());
    let flat = det.abs() <= GJK_DEGENERACY_TOLERANCE * longest.powi(3);
    let agrees = |c: f32| c * det > 0.0;
    if !flat && volumes.iter().all(|&c| agrees(c)) {
        let weights = volumes.map(|c| c / det);
        return Simplex::weighted(&p, &weights);
    }
    let faces = (0..4)
        .filter(|&i| flat || !agrees(volumes[i]))
        .map(|i| closest_on_triangle([p[(i + 1) % 4], p[(i + 2) % 4], p[(i + 3) % 4]]));
    nearest(faces).unwrap_or_else(|| Simplex::from_point(p[0]))
}

/// The candidate whose closest point is nearest to the origin.
fn nearest(candidates: impl Iterator<Item = Simplex>) -> Option<Simplex> {
    candidates.min_by(|x, y| {
        let dx = x.closest_point().length_squared();
        let dy = y.closest_point().length_squared();
        dx.total_cmp(&dy)
    })
}

/// Why a GJK query stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GjkTermination {
    /// The origin is in the Minkowski difference (within `GJK_OVERLAP_TOLERANCE`): the shapes
    /// overlap or touch, and the distance is 0.
    Overlap,
    /// The upper and lower bounds on the distance met within `GJK_RELATIVE_TOLERANCE`.
    Converged,
    /// A support point repeated or the distance stopped decreasing: rounding limits the answer,
    /// which is then as good as f32 allows.
    NoProgress,
    /// `GJK_MAX_ITERATIONS` support queries were made.
    IterationLimit,
    /// Only from [`intersects`]: a separating plane was found and the query stopped early.
    Separated,
}

/// The answer of a GJK distance query, everything in A's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GjkResult {
    /// `|point_b − point_a|`, m; exactly 0 when the shapes overlap or touch.
    pub distance: f32,
    /// The point of A closest to B (a point of A ∩ B when they overlap).
    pub point_a: Vec3,
    /// The point of B closest to A (equal to `point_a` up to rounding when they overlap).
    pub point_b: Vec3,
    /// Support queries made (at most `GJK_MAX_ITERATIONS`).
    pub iterations: u32,
    /// The final simplex of the Minkowski difference; EPA starts from it.
    pub simplex: Simplex,
    /// Why the loop stopped.
    pub termination: GjkTermination,
}

/// Closest points and distance between convex shapes `a` and `b`, with `b` placed in `a`'s frame
/// by `b_in_a`. Never loops forever and never returns NaN for finite inputs, even for coincident
/// or zero-size shapes.
pub fn gjk_distance<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    b_in_a: &Isometry,
) -> GjkResult {
    run(&MinkowskiDifference::new(a, b, b_in_a), Query::Distance)
}

/// True when the shapes overlap or touch (distance 0 within `GJK_OVERLAP_TOLERANCE`). Stops as
/// soon as a separating plane is found, so it is cheaper than [`gjk_distance`] for separated pairs.
pub fn intersects<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    b_in_a: &Isometry,
) -> bool {
    let result = run(&MinkowskiDifference::new(a, b, b_in_a), Query::Intersection);
    result.termination == GjkTermination::Overlap
}

/// Whether the loop may stop at the first separating plane.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Query {
    Distance,
    Intersection,
}

/// The GJK loop on the Minkowski difference `md`.
fn run<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    md: &MinkowskiDifference<A, B>,
    query: Query,
) -> GjkResult {
    let mut simplex = Simplex::from_point(md.support(initial_direction(md.b_in_a())));
    let mut iterations = 0;
    let termination = loop {
        if holds_origin(&simplex) {
            break GjkTermination::Overlap;
        }
        if iterations >= GJK_MAX_ITERATIONS {
            break GjkTermination::IterationLimit;
        }
        iterations += 1;
        match step(md, &simplex, query) {
            Ok(next) => simplex = next,
            Err(termination) => break termination,
        }
    };
    let (point_a, point_b) = simplex.witness_points();
    let distance = match termination {
        GjkTermination::Overlap => 0.0,
        _ => (point_b - point_a).length(),
    };
    GjkResult {
        distance,
        point_a,
        point_b,
        iterations,
        simplex,
        termination,
    }
}

/// The first search direction: from A's origin towards B's, so the first support points face
/// each other (any direction works; a good one saves iterations).
fn initial_direction(b_in_a: &Isometry) -> Vec3 {
    if b_in_a.translation.length_squared() > f32::MIN_POSITIVE {
        b_in_a.translation
    } else {
        Vec3::X
    }
}

/// True when the simplex contains the origin: a full tetrahedron (only kept when the origin is
/// inside), or a closest point shorter than `GJK_OVERLAP_TOLERANCE` of the simplex size.
fn holds_origin(simplex: &Simplex) -> bool {
    let limit = GJK_OVERLAP_TOLERANCE * simplex.size();
    simplex.len() == 4 || simplex.closest_point().length_squared() <= limit * limit
}

/// One GJK iteration: the next simplex, or the reason to stop.
fn step<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    md: &MinkowskiDifference<A, B>,
    simplex: &Simplex,
    query: Query,
) -> Result<Simplex, GjkTermination> {
    let v = simplex.closest_point();
    let vertex = md.support(-v);
    if !is_finite_vec(vertex.w) {
        return Err(GjkTermination::NoProgress);
    }
    let size = simplex.size().max(vertex.w.length());
    let v_length = v.length();
    let v_dot_w = v.dot(vertex.w);
    // The plane through w orthogonal to v bounds C, so distance ≥ v·w / |v|: a positive bound
    // beyond the contact tolerance proves separation.
    if query == Query::Intersection && v_dot_w > GJK_OVERLAP_TOLERANCE * size * v_length {
        return Err(GjkTermination::Separated);
    }
    // |v| − v·w/|v| bounds the error of |v|; stop once it is a tiny fraction of the scale.
    if v_length * v_length - v_dot_w <= GJK_RELATIVE_TOLERANCE * v_length * v_length.max(size) {
        return Err(GjkTermination::Converged);
    }
    if simplex.contains(vertex.w) {
        return Err(GjkTermination::NoProgress);
    }
    let next = simplex.with(vertex).closest_sub_simplex();
    // In exact arithmetic a positive gap means the new closest point moves towards w, so w is kept
    // and |v| shrinks. If rounding drops w or fails to shrink |v|, another step would only cycle.
    let kept_new_vertex = next.contains(vertex.w);
    if !kept_new_vertex || next.closest_point().length_squared() >= v_length * v_length {
        return Err(GjkTermination::NoProgress);
    }
    Ok(next)
}

/// Helpers shared by the narrow-phase unit tests: randomness, a point-cloud support map and
/// brute-force references for boxes.
#[cfg(test)]
pub(crate) mod test_support {
    use super::super::geometry::closest_points_segment_segment;
    use crate::physics::math::{Isometry, Quat, Vec3};
    use crate::physics::shape::SupportMap;

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
}

#[cfg(test)]
mod tests {
    use super::test_support::*;
    use super::*;
    use crate::physics::math::Quat;
    use crate::physics::shape::{PointSupport, SegmentSupport, Shape};

    fn at(x: f32, y: f32, z: f32) -> Isometry {
        Isometry::from_translation(Vec3::new(x, y, z))
    }

    /// Checks the invariants of every answer: finite, distance = |point_b − point_a|, capped.
    fn check(result: &GjkResult) {
        assert!(result.distance.is_finite() && result.distance >= 0.0);
        assert!(is_finite_vec(result.point_a) && is_finite_vec(result.point_b));
        assert!(result.iterations <= GJK_MAX_ITERATIONS);
        if result.distance > 0.0 {
            assert!(((result.point_b - result.point_a).length() - result.distance).abs() < 1e-6);
        }
    }

    #[test]
    fn segment_subalgorithm_projects_the_origin() {
        // Segment (−1, 1, 0)–(3, 1, 0): closest point to the origin (0, 1, 0), weights 3/4, 1/4.
        let p = |w: Vec3| SupportPoint {
            a: w,
            b: Vec3::ZERO,
            w,
        };
        let s = closest_on_segment(p(Vec3::new(-1.0, 1.0, 0.0)), p(Vec3::new(3.0, 1.0, 0.0)));
        assert!((s.closest_point() - Vec3::Y).length() < 1e-6);
        assert!((s.weights()[0] - 0.75).abs() < 1e-6);
    }

    #[test]
    fn triangle_subalgorithm_finds_face_edge_and_vertex_regions() {
        let p = |x: f32, y: f32, z: f32| {
            let w = Vec3::new(x, y, z);
            SupportPoint {
                a: w,
                b: Vec3::ZERO,
                w,
            }
        };
        // Triangle in the plane z = 2 around the z axis: closest point (0, 0, 2), all three kept.
        let face = closest_on_triangle([p(-1.0, -1.0, 2.0), p(2.0, -1.0, 2.0), p(-1.0, 2.0, 2.0)]);
        assert_eq!(face.len(), 3);
        assert!((face.closest_point() - Vec3::new(0.0, 0.0, 2.0)).length() < 1e-6);
        // Triangle at x ∈ [1, 3] in the plane z = 0: the closest point (1, 0, 0) is on the edge
        // from (1, −1, 0) to (1, 1, 0). Then one whose corner (1, 1, 0) is closest.
        let edge = closest_on_triangle([p(1.0, -1.0, 0.0), p(1.0, 1.0, 0.0), p(3.0, 0.0, 0.0)]);
        assert_eq!(edge.len(), 2);
        assert!((edge.closest_point() - Vec3::X).length() < 1e-6);
        let vertex = closest_on_triangle([p(1.0, 1.0, 0.0), p(2.0, 1.0, 0.0), p(1.0, 2.0, 1.0)]);
        assert_eq!(vertex.len(), 1);
        assert!((vertex.closest_point() - Vec3::new(1.0, 1.0, 0.0)).length() < 1e-6);
    }

    #[test]
    fn tetrahedron_subalgorithm_detects_containment_and_faces() {
        let p = |x: f32, y: f32, z: f32| {
            let w = Vec3::new(x, y, z);
            SupportPoint {
                a: w,
                b: Vec3::ZERO,
                w,
            }
        };
        let inside = closest_on_tetrahedron([
            p(1.0, 1.0, 1.0),
            p(-1.0, -1.0, 1.0),
            p(-1.0, 1.0, -1.0),
            p(1.0, -1.0, -1.0),
        ]);
        assert_eq!(inside.len(), 4);
        assert!(inside.closest_point().length() < 1e-6);
        assert!((inside.weights().iter().sum::<f32>() - 1.0).abs() < 1e-6);
        // Tetrahedron above the plane z = 1 with a face on it around the z axis: closest (0, 0, 1).
        let above = closest_on_tetrahedron([
            p(-1.0, -1.0, 1.0),
            p(2.0, -1.0, 1.0),
            p(-1.0, 2.0, 1.0),
            p(0.0, 0.0, 3.0),
        ]);
        assert_eq!(above.len(), 3);
        assert!((above.closest_point() - Vec3::Z).length() < 1e-6);
        // A flat tetrahedron (all in z = 1) still gives the closest point (0, 0, 1).
        let flat = closest_on_tetrahedron([
            p(-1.0, -1.0, 1.0),
            p(2.0, -1.0, 1.0),
            p(-1.0, 2.0, 1.0),
            p(0.5, 0.5, 1.0),
        ]);
        assert!((flat.closest_point() - Vec3::Z).length() < 1e-6);
    }

    #[test]
    fn sphere_sphere_distance_matches_formula() {
        let cases = [
            (1.0, 0.5, Vec3::new(3.0, 0.0, 0.0)),
            (0.3, 0.7, Vec3::new(1.0, 2.0, -2.0)),
            (2.0, 0.01, Vec3::new(-0.5, 3.0, 0.2)),
        ];
        for (radius_a, radius_b, centre_b) in cases {
            let result = gjk_distance(
                &Shape::sphere(radius_a),
                &Shape::sphere(radius_b),
                &Isometry::from_translation(centre_b),
            );
            check(&result);
            // d = |c_b − c_a| − r_a − r_b
            let expected = centre_b.length() - radius_a - radius_b;
            assert!(
                (result.distance - expected).abs() < 1e-4,
                "{} vs {expected}",
                result.distance
            );
            // The closest points lie on the spheres, on the line of centres.
            assert!((result.point_a.length() - radius_a).abs() < 1e-4);
            assert!(((result.point_b - centre_b).length() - radius_b).abs() < 1e-4);
        }
    }

    #[test]
    fn box_box_separated_along_an_axis() {
        // Half extents 0.5 and (1, 0.25, 0.25), centres 3 apart along x: d = 3 − 0.5 − 1 = 1.5.
        let a = Shape::cuboid(Vec3::splat(0.5));
        let b = Shape::cuboid(Vec3::new(1.0, 0.25, 0.25));
        let result = gjk_distance(&a, &b, &at(3.0, 0.1, -0.1));
        check(&result);
        assert!((result.distance - 1.5).abs() < 1e-5);
        assert!((result.point_a.x - 0.5).abs() < 1e-5 && (result.point_b.x - 2.0).abs() < 1e-5);
    }

    #[test]
    fn box_box_separated_along_a_diagonal() {
        // Unit cubes (half 0.5) offset by (2, 3, 4): the gap per axis is |Δ| − 1 = (1, 2, 3), so
        // the corners are closest and d = √(1² + 2² + 3²) = √14.
        let cube = Shape::cuboid(Vec3::splat(0.5));
        let result = gjk_distance(&cube, &cube, &at(2.0, 3.0, 4.0));
        check(&result);
        assert!((result.distance - 14f32.sqrt()).abs() < 1e-5);
        assert!((result.point_a - Vec3::splat(0.5)).length() < 1e-5);
    }

    #[test]
    fn point_to_box_distance_clamps_into_the_box() {
        // Box half (1, 2, 3), point at (3, −1, 5): outside along x by 2 and z by 2, d = √8.
        let half = Vec3::new(1.0, 2.0, 3.0);
        let result = gjk_distance(
            &Shape::cuboid(half),
            &PointSupport(Vec3::ZERO),
            &at(3.0, -1.0, 5.0),
        );
        check(&result);
        assert!((result.distance - 8f32.sqrt()).abs() < 1e-5);
        assert!((result.point_a - Vec3::new(1.0, -1.0, 3.0)).length() < 1e-5);
        // A point inside the box: distance 0.
        let inside = gjk_distance(
            &Shape::cuboid(half),
            &PointSupport(Vec3::ZERO),
            &at(0.5, 1.0, -2.0),
        );
        assert_eq!(inside.distance, 0.0);
        assert_eq!(inside.termination, GjkTermination::Overlap);
    }

    #[test]
    fn segment_to_box_distance() {
        // Segment from (2, −5, 0.5) to (2, 5, 0.5) passes beside a box of half 1: d = 2 − 1 = 1.
        let segment = SegmentSupport(Vec3::new(0.0, -5.0, 0.0), Vec3::new(0.0, 5.0, 0.0));
        let result = gjk_distance(&Shape::cuboid(Vec3::ONE), &segment, &at(2.0, 0.0, 0.5));
        check(&result);
        assert!((result.distance - 1.0).abs() < 1e-5);
        // Tilted segment (3 − 1.5t, 0, 2t) passing the box edge x = z = 1: the squared distance
        // (2 − 1.5t)² + (2t − 1)² is least where 12.5t − 10 = 0, t = 0.8, at (1.8, 0, 1.6); the
        // box point is (1, 0, 1) and d = √(0.8² + 0.6²) = 1.
        let tilted = SegmentSupport(Vec3::new(3.0, 0.0, 0.0), Vec3::new(1.5, 0.0, 2.0));
        let result = gjk_distance(&Shape::cuboid(Vec3::ONE), &tilted, &Isometry::IDENTITY);
        check(&result);
        assert!((result.distance - 1.0).abs() < 1e-5, "{}", result.distance);
        assert!((result.point_b - Vec3::new(1.8, 0.0, 1.6)).length() < 1e-5);
    }

    #[test]
    fn capsule_capsule_distance_is_segment_distance_minus_radii() {
        use super::super::geometry::closest_points_segment_segment;
        let b_in_a = Isometry::new(Vec3::new(1.5, 0.4, 0.9), Quat::from_rotation_z(1.1));
        let (half_a, radius_a, half_b, radius_b) = (0.8, 0.2, 0.5, 0.3);
        let result = gjk_distance(
            &Shape::capsule(half_a, radius_a),
            &Shape::capsule(half_b, radius_b),
            &b_in_a,
        );
        check(&result);
        // d = |segment distance| − r_a − r_b
        let (c1, c2) = closest_points_segment_segment(
            Vec3::new(0.0, -half_a, 0.0),
            Vec3::new(0.0, half_a, 0.0),
            b_in_a.transform_point(Vec3::new(0.0, -half_b, 0.0)),
            b_in_a.transform_point(Vec3::new(0.0, half_b, 0.0)),
        );
        let expected = (c2 - c1).length() - radius_a - radius_b;
        assert!(
            (result.distance - expected).abs() < 1e-4,
            "{} vs {expected}",
            result.distance
        );
    }

    #[test]
    fn rotated_boxes_match_brute_force() {
        // Unit cube vs a box turned 45° about z and 30° about x, 2.5 along x.
        let (half_a, half_b) = (Vec3::splat(0.5), Vec3::new(0.6, 0.3, 0.4));
        let rotation =
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_4) * Quat::from_rotation_x(0.5);
        let b_in_a = Isometry::new(Vec3::new(2.5, 0.3, -0.2), rotation);
        let result = gjk_distance(&Shape::cuboid(half_a), &Shape::cuboid(half_b), &b_in_a);
        check(&result);
        let expected = brute_force_box_distance(half_a, half_b, &b_in_a);
        assert!(
            (result.distance - expected).abs() < 1e-5,
            "{} vs {expected}",
            result.distance
        );
    }

    #[test]
    fn random_boxes_match_brute_force_and_separating_axes() {
        let mut rng = Lcg(42);
        let mut separated = 0;
        for _ in 0..500 {
            let half_a = Vec3::new(
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
            );
            let half_b = Vec3::new(
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
            );
            let b_in_a = Isometry::new(rng.vec_in(2.5), rng.rotation());
            let result = gjk_distance(&Shape::cuboid(half_a), &Shape::cuboid(half_b), &b_in_a);
            check(&result);
            let (gap, _) = sat_box_gap(half_a, half_b, &b_in_a);
            let exact = brute_force_box_distance(half_a, half_b, &b_in_a);
            let size = half_a.length() + half_b.length();
            if gap > 1e-4 {
                separated += 1;
                // Separated: the distance is exact, and at least the best separating-axis gap.
                assert!(
                    (result.distance - exact).abs() < 1e-5 * size,
                    "{} vs {exact}",
                    result.distance
                );
                assert!(result.distance >= gap - 1e-5 * size);
                // The witness points lie on their boxes.
                let local_b = b_in_a.inverse_transform_point(result.point_b);
                assert!(point_box_distance(result.point_a, half_a) < 1e-5 * size);
                assert!(point_box_distance(local_b, half_b) < 1e-5 * size);
            } else if gap < -1e-4 {
                // Overlapping on every axis: distance 0 and a common point.
                assert_eq!(result.distance, 0.0);
                assert!(point_box_distance(result.point_a, half_a) < 1e-5 * size);
                let local = b_in_a.inverse_transform_point(result.point_a);
                assert!(point_box_distance(local, half_b) < 1e-5 * size);
            }
            assert_eq!(
                intersects(&Shape::cuboid(half_a), &Shape::cuboid(half_b), &b_in_a),
                result.distance == 0.0
            );
        }
        assert!(
            separated > 100,
            "the sample should mix separated and overlapping pairs"
        );
    }

    #[test]
    fn point_cloud_polytope_matches_box_and_analytic_distances() {
        // A box given as 8 points behaves like the cuboid: same distance to a sphere core point.
        let half = Vec3::new(0.7, 0.2, 0.4);
        let cloud = PointCloud(box_corners(half, &Isometry::IDENTITY));
        let b_in_a = at(1.5, 1.0, -0.3);
        let from_cloud = gjk_distance(&cloud, &PointSupport(Vec3::ZERO), &b_in_a);
        let from_box = gjk_distance(&Shape::cuboid(half), &PointSupport(Vec3::ZERO), &b_in_a);
        assert!((from_cloud.distance - from_box.distance).abs() < 1e-6);
        // A flat triangle (zero volume) in z = 0 vs a point above its interior at height 2: d = 2.
        let triangle = PointCloud(vec![
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(0.0, 2.0, 0.0),
        ]);
        let result = gjk_distance(
            &triangle,
            &PointSupport(Vec3::new(0.5, 0.5, 2.0)),
            &Isometry::IDENTITY,
        );
        check(&result);
        assert!((result.distance - 2.0).abs() < 1e-6);
        // Regular tetrahedron with vertices (1,1,1), (1,−1,−1), (−1,1,−1), (−1,−1,1); the face
        // opposite (1,1,1) has plane x + y + z = −1, at distance 1/√3 from the centre, and its
        // centroid is on the line through −(1,1,1). A point at −s·(1,1,1)/√3 is d = s − 1/√3 away.
        let tetra = PointCloud(vec![
            Vec3::new(1.0, 1.0, 1.0),
            Vec3::new(1.0, -1.0, -1.0),
            Vec3::new(-1.0, 1.0, -1.0),
            Vec3::new(-1.0, -1.0, 1.0),
        ]);
        let s = 2.0;
        let point = -Vec3::ONE.normalize() * s;
        let result = gjk_distance(&tetra, &PointSupport(point), &Isometry::IDENTITY);
        check(&result);
        assert!((result.distance - (s - 1.0 / 3f32.sqrt())).abs() < 1e-5);
    }

    #[test]
    fn overlapping_shapes_have_zero_distance_and_a_common_point() {
        let result = gjk_distance(
            &Shape::sphere(1.0),
            &Shape::cuboid(Vec3::splat(0.5)),
            &at(1.2, 0.1, 0.0),
        );
        assert_eq!(result.distance, 0.0);
        assert_eq!(result.termination, GjkTermination::Overlap);
        assert!((result.point_a - result.point_b).length() < 1e-5);
        // The common point is in the sphere and in the box (centre 1.2, 0.1, 0, half 0.5).
        assert!(result.point_a.length() <= 1.0 + 1e-5);
        assert!(
            point_box_distance(result.point_a - Vec3::new(1.2, 0.1, 0.0), Vec3::splat(0.5)) < 1e-5
        );
    }

    #[test]
    fn touching_boxes_count_as_intersecting() {
        // Unit cubes 1 apart along x share the face x = 0.5: distance 0.
        let cube = Shape::cuboid(Vec3::splat(0.5));
        let result = gjk_distance(&cube, &cube, &at(1.0, 0.3, 0.2));
        check(&result);
        assert!(result.distance < 1e-5);
        assert!(intersects(&cube, &cube, &at(1.0, 0.3, 0.2)));
        assert!(!intersects(&cube, &cube, &at(1.001, 0.3, 0.2)));
    }

    #[test]
    fn curved_shapes_converge_within_the_iteration_cap() {
        let mut rng = Lcg(3);
        for _ in 0..200 {
            let (radius_a, radius_b) = (rng.range(0.05, 2.0), rng.range(0.05, 2.0));
            let centre = rng.vec_in(5.0);
            let result = gjk_distance(
                &Shape::sphere(radius_a),
                &Shape::sphere(radius_b),
                &Isometry::from_translation(centre),
            );
            check(&result);
            // d = max(|c| − r_a − r_b, 0)
            let expected = (centre.length() - radius_a - radius_b).max(0.0);
            let size = radius_a + radius_b;
            assert!(
                (result.distance - expected).abs() < 1e-4 * size.max(1.0),
                "{} vs {expected}",
                result.distance
            );
            assert_ne!(result.termination, GjkTermination::IterationLimit);
        }
    }

    #[test]
    fn degenerate_inputs_never_panic_or_produce_nan() {
        let shapes = [
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
        ];
        let poses = [
            Isometry::IDENTITY,
            at(1e-7, 0.0, 0.0),
            at(1.0, 0.0, 0.0),
            at(0.0, 2.0, 0.0),
            at(1e4, -1e4, 1e4),
            Isometry::new(Vec3::ZERO, Quat::from_rotation_y(0.3)),
            Isometry::new(
                Vec3::new(0.5, 0.5, 0.5),
                Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
            ),
        ];
        for a in &shapes {
            for b in &shapes {
                for pose in &poses {
                    let result = gjk_distance(a, b, pose);
                    check(&result);
                    let _ = intersects(a, b, pose);
                }
            }
        }
        // Two points at the same place, and two identical flat triangles.
        let result = gjk_distance(
            &PointSupport(Vec3::ONE),
            &PointSupport(Vec3::ONE),
            &Isometry::IDENTITY,
        );
        assert_eq!(result.distance, 0.0);
        let triangle = PointCloud(vec![Vec3::ZERO, Vec3::X, Vec3::Y]);
        let result = gjk_distance(&triangle, &triangle, &Isometry::IDENTITY);
        assert_eq!(result.distance, 0.0);
    }
}
