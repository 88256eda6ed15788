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
pub(crate) mod test_support;

#[cfg(test)]
mod tests;
