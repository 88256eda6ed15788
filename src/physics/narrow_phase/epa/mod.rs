//! Penetration depth of overlapping convex shapes with the Expanding Polytope Algorithm (EPA).
//!
//! When A and B overlap, the origin lies inside their Minkowski difference `C = A − B`, and the
//! smallest translation of B that separates them is the point of C's boundary closest to the
//! origin (van den Bergen, "Proximity Queries and Penetration Depth Computation on 3D Game
//! Objects", GDC 2001). EPA finds it by growing a polytope inside C:
//!
//! ```text
//! polytope ← a tetrahedron of support points around the origin (GJK's last simplex, grown)
//! loop
//!     f ← the face nearest to the origin, at distance d along its outward normal n
//!     w ← s_C(n)
//!     if w·n − d ≤ tolerance: return (n, d)       d ≤ depth ≤ w·n: the bounds have met
//!     remove the faces w can see, and close the hole with a fan of faces around w
//! ```
//!
//! The faces w sees are found by a walk from f across edges (the faces seen from a point form a
//! connected patch on a convex polytope), and the patch's border, the horizon, is closed with one
//! new triangle per horizon edge. Each face keeps its three neighbours so that walk needs no search.
//!
//! Rounding can break the polytope's convexity, so each expansion is checked: the distance to the
//! nearest face of a convex polytope around the origin never decreases as it grows, so a new face
//! nearer than that, or a horizon that is not a single loop, ends the expansion. Then, as at
//! `EPA_MAX_ITERATIONS`, the answer is the direction with the smallest support value `w·n` seen:
//! an upper bound on the depth, and a translation that certainly separates the shapes.
//!
//! Allocation: the polytope lives in the `Vec`s of an [`EpaScratch`]. [`penetration`] makes a fresh
//! one per call; [`penetration_with_scratch`] reuses the caller's, which stops allocating once its
//! vectors have grown to the largest polytope seen (at most `4 + EPA_MAX_ITERATIONS` vertices).

use super::gjk::{gjk_distance, GjkResult, MinkowskiDifference, Simplex, SupportPoint};
use crate::physics::constants::{
    EPA_MAX_ITERATIONS, EPA_RELATIVE_TOLERANCE, GJK_OVERLAP_TOLERANCE,
};
use crate::physics::math::{is_finite_vec, orthonormal_basis, Isometry, Vec3};
use crate::physics::shape::SupportMap;

/// How far two overlapping shapes interpenetrate, in A's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Penetration {
    /// Unit direction from A towards B: moving B by `depth · normal` separates the shapes.
    pub normal: Vec3,
    /// Length of the smallest separating translation, m (≥ 0; 0 when they only touch).
    pub depth: f32,
    /// The point of A deepest inside B.
    pub point_a: Vec3,
    /// The point of B deepest inside A; `point_a = point_b + depth · normal`.
    pub point_b: Vec3,
}

/// Working memory for EPA: the polytope's vertices and faces and the horizon of one expansion.
/// Keep one per thread and pass it to [`penetration_with_scratch`] to avoid allocating per query.
#[derive(Clone, Debug, Default)]
pub struct EpaScratch {
    vertices: Vec<SupportPoint>,
    faces: Vec<Face>,
    horizon: Vec<EdgeRef>,
    stack: Vec<EdgeRef>,
}

/// One edge of one face: edge `k` of a face runs from its vertex `k` to vertex `(k + 1) % 3`.
#[derive(Clone, Copy, Debug, Default)]
struct EdgeRef {
    face: usize,
    edge: usize,
}

/// A triangle of the polytope, counter-clockwise seen from outside.
#[derive(Clone, Copy, Debug, Default)]
struct Face {
    /// Indices into `EpaScratch::vertices`.
    vertices: [usize; 3],
    /// `adjacent[k]` is the same edge as edge `k`, seen from the neighbouring face.
    adjacent: [EdgeRef; 3],
    /// Outward unit normal (zero for a degenerate triangle).
    normal: Vec3,
    /// Signed distance of the face's plane from the origin (infinite for a degenerate triangle,
    /// so it is never the closest).
    distance: f32,
    /// Carved away by an expansion.
    removed: bool,
}

/// The face EPA stopped at, copied out of the polytope.
#[derive(Clone, Copy, Debug)]
struct ClosestFace {
    points: [SupportPoint; 3],
    normal: Vec3,
    distance: f32,
}

/// The smallest translation separating `a` and `b` (with `b` placed in `a`'s frame by `b_in_a`),
/// or `None` when they are apart. Allocates a fresh [`EpaScratch`]; see
/// [`penetration_with_scratch`] to reuse one.
pub fn penetration<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    b_in_a: &Isometry,
) -> Option<Penetration> {
    penetration_with_scratch(a, b, b_in_a, &mut EpaScratch::default())
}

/// [`penetration`] with caller-owned working memory.
pub fn penetration_with_scratch<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    b_in_a: &Isometry,
    scratch: &mut EpaScratch,
) -> Option<Penetration> {
    let gjk = gjk_distance(a, b, b_in_a);
    penetration_after_gjk(a, b, b_in_a, &gjk, scratch)
}

/// [`penetration`] for a pair on which [`gjk_distance`] has already run (`gjk` must come from the
/// same shapes and pose): `None` when GJK found them apart, otherwise EPA from GJK's simplex.
///
/// Degenerate cases never fail: when the Minkowski difference is flat (zero-thickness shapes,
/// points, segments) it has no interior, so the depth is 0 along the flat's normal (or any
/// axis). The normal is then turned to point from A's origin towards B's.
pub fn penetration_after_gjk<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    a: &A,
    b: &B,
    b_in_a: &Isometry,
    gjk: &GjkResult,
    scratch: &mut EpaScratch,
) -> Option<Penetration> {
    if gjk.distance > 0.0 {
        return None;
    }
    let md = MinkowskiDifference::new(a, b, b_in_a);
    let toward_b = b_in_a.translation;
    let contact = match seed_tetrahedron(&md, &gjk.simplex) {
        Seed::Flat(normal) => touching(gjk, orient(normal, toward_b)),
        Seed::Tetrahedron(points, extent) => {
            scratch.reset(points);
            match expand(&md, scratch, EPA_RELATIVE_TOLERANCE * extent) {
                Some(Outcome::Converged(face)) => from_face(&face),
                Some(Outcome::Bounded(bound)) => from_bound(&bound),
                None => touching(gjk, orient(Vec3::X, toward_b)),
            }
        }
    };
    Some(sanitized(contact, gjk, toward_b))
}

/// A contact of depth 0 at GJK's common point.
fn touching(gjk: &GjkResult, normal: Vec3) -> Penetration {
    Penetration {
        normal,
        depth: 0.0,
        point_a: gjk.point_a,
        point_b: gjk.point_b,
    }
}

/// `normal` flipped, if needed, to point along `toward_b` (kept when perpendicular).
fn orient(normal: Vec3, toward_b: Vec3) -> Vec3 {
    if normal.dot(toward_b) < 0.0 {
        -normal
    } else {
        normal
    }
}

/// The contact itself when every number in it is finite; otherwise (only reachable through
/// non-finite support points) a touching contact, so callers never see NaN.
fn sanitized(contact: Penetration, gjk: &GjkResult, toward_b: Vec3) -> Penetration {
    let finite = is_finite_vec(contact.normal)
        && contact.depth.is_finite()
        && is_finite_vec(contact.point_a)
        && is_finite_vec(contact.point_b);
    if finite && (contact.normal.length() - 1.0).abs() < 1e-3 {
        contact
    } else {
        let mut fallback = touching(gjk, orient(Vec3::X, toward_b));
        if !is_finite_vec(fallback.point_a) || !is_finite_vec(fallback.point_b) {
            fallback.point_a = Vec3::ZERO;
            fallback.point_b = Vec3::ZERO;
        }
        fallback
    }
}

/// The start of EPA: a tetrahedron around the origin and the size of the Minkowski difference
/// (its largest support point along the axes), or the normal of a difference that is flat.
enum Seed {
    Tetrahedron([SupportPoint; 4], f32),
    Flat(Vec3),
}

/// Up to four support points being grown into a tetrahedron.
#[derive(Clone, Copy, Default)]
struct Points {
    points: [SupportPoint; 4],
    len: usize,
}

impl Points {
    fn from_slice(slice: &[SupportPoint]) -> Self {
        let mut points = Self::default();
        points.points[..slice.len()].copy_from_slice(slice);
        points.len = slice.len();
        points
    }

    fn push(&mut self, p: SupportPoint) {
        self.points[self.len] = p;
        self.len += 1;
    }

    fn w(&self, i: usize) -> Vec3 {
        self.points[i].w
    }
}

/// Turns GJK's final simplex into a tetrahedron of positive volume containing the origin.
///
/// GJK may stop on a point, segment or triangle when the origin lies on it (touching shapes, or
/// the centre of symmetric overlaps). The simplex is first stripped of any dimension it has only
/// by rounding, then blown up one dimension at a time with the support point farthest from its
/// span, searched along the axes (point), around the segment (segment) or along the normal
/// (triangle). The origin stays on the grown simplex, so it is inside or on the tetrahedron.
/// Lengths below `GJK_OVERLAP_TOLERANCE` of the difference's size count as zero; if no direction
/// gives a point farther than that, the difference is flat and its depth is 0.
fn seed_tetrahedron<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    md: &MinkowskiDifference<A, B>,
    simplex: &Simplex,
) -> Seed {
    let axes = [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
    let axis_points = axes.map(|axis| md.support(axis));
    let extent = axis_points
        .iter()
        .chain(simplex.vertices())
        .map(|p| p.w.length())
        .fold(0.0, f32::max);
    let tolerance = GJK_OVERLAP_TOLERANCE * extent;
    let mut points = drop_flat_dimensions(simplex, tolerance);
    if points.len == 0 {
        // Only a hand-made `GjkResult` can carry an empty simplex; start from any support point.
        points.push(axis_points[0]);
    }
    if points.len == 1 {
        let origin = points.w(0);
        match farthest(
            axis_points.iter().copied(),
            |w| (w - origin).length(),
            tolerance,
        ) {
            Some(p) => points.push(p),
            None => return Seed::Flat(Vec3::X),
        }
    }
    if points.len == 2 {
        let axis = (points.w(1) - points.w(0)).normalize_or(Vec3::X);
        let (t1, t2) = orthonormal_basis(axis);
        let origin = points.w(0);
        let around = (0..6).map(|k| {
            let angle = k as f32 * std::f32::consts::FRAC_PI_3;
            md.support(t1 * angle.cos() + t2 * angle.sin())
        });
        let off_line = |w: Vec3| (w - origin).reject_from_normalized(axis).length();
        match farthest(around, off_line, tolerance) {
            Some(p) => points.push(p),
            None => return Seed::Flat(t1),
        }
    }
    if points.len == 3 {
        let normal = (points.w(1) - points.w(0))
            .cross(points.w(2) - points.w(0))
            .normalize_or(Vec3::Z);
        let origin = points.w(0);
        let off_plane = |w: Vec3| (w - origin).dot(normal).abs();
        match farthest(
            [md.support(normal), md.support(-normal)].into_iter(),
            off_plane,
            tolerance,
        ) {
            Some(p) => points.push(p),
            None => return Seed::Flat(normal),
        }
    }
    Seed::Tetrahedron(points.points, extent)
}

/// The candidate with the largest `measure`, if that exceeds `tolerance`.
fn farthest(
    candidates: impl Iterator<Item = SupportPoint>,
    measure: impl Fn(Vec3) -> f32,
    tolerance: f32,
) -> Option<SupportPoint> {
    candidates
        .map(|p| (measure(p.w), p))
        .filter(|(m, _)| *m > tolerance)
        .max_by(|x, y| x.0.total_cmp(&y.0))
        .map(|(_, p)| p)
}

/// GJK's simplex without the dimensions it has only within `tolerance`: a tetrahedron thinner than
/// that becomes its face nearest the origin, a triangle its longest edge, a segment one end.
fn drop_flat_dimensions(simplex: &Simplex, tolerance: f32) -> Points {
    let mut points = Points::from_slice(simplex.vertices());
    if points.len == 4 && tetrahedron_height(&points) <= tolerance {
        points = nearest_face(&points);
    }
    if points.len == 3 && triangle_height(&points) <= tolerance {
        points = longest_edge(&points);
    }
    if points.len == 2 && (points.w(1) - points.w(0)).length() <= tolerance {
        points.len = 1;
    }
    points
}

/// Smallest height of a tetrahedron: 6·volume over twice the largest face area.
fn tetrahedron_height(points: &Points) -> f32 {
    let [w0, w1, w2, w3] = [0, 1, 2, 3].map(|i| points.w(i));
    let volume6 = (w1 - w0).dot((w2 - w0).cross(w3 - w0)).abs();
    let largest_area2 = [(w0, w1, w2), (w0, w1, w3), (w0, w2, w3), (w1, w2, w3)]
        .iter()
        .map(|&(a, b, c)| (b - a).cross(c - a).length())
        .fold(0.0, f32::max);
    if largest_area2 > 0.0 {
        volume6 / largest_area2
    } else {
        0.0
    }
}

/// Smallest height of a triangle: twice its area over its longest edge.
fn triangle_height(points: &Points) -> f32 {
    let [w0, w1, w2] = [0, 1, 2].map(|i| points.w(i));
    let area2 = (w1 - w0).cross(w2 - w0).length();
    let longest = (w1 - w0)
        .length()
        .max((w2 - w1).length())
        .max((w0 - w2).length());
    if longest > 0.0 {
        area2 / longest
    } else {
        0.0
    }
}

/// The part of a flat tetrahedron nearest the origin: the best of its faces' closest sub-simplices.
fn nearest_face(points: &Points) -> Points {
    let p = points.points;
    let faces = [
        [p[1], p[2], p[3]],
        [p[0], p[2], p[3]],
        [p[0], p[1], p[3]],
        [p[0], p[1], p[2]],
    ];
    let best = faces
        .iter()
        .map(|face| Simplex::from_vertices(face).closest_sub_simplex())
        .min_by(|x, y| {
            let dx = x.closest_point().length_squared();
            let dy = y.closest_point().length_squared();
            dx.total_cmp(&dy)
        })
        .unwrap_or_else(|| Simplex::from_point(p[0]));
    Points::from_slice(best.vertices())
}

/// The two vertices of a (nearly collinear) triangle farthest apart: their segment covers the third.
fn longest_edge(points: &Points) -> Points {
    let p = points.points;
    let edges = [(p[0], p[1]), (p[1], p[2]), (p[2], p[0])];
    let (a, b) = edges
        .iter()
        .copied()
        .max_by(|x, y| {
            (x.1.w - x.0.w)
                .length_squared()
                .total_cmp(&(y.1.w - y.0.w).length_squared())
        })
        .unwrap_or((p[0], p[1]));
    Points::from_slice(&[a, b])
}

/// How EPA ended: on the nearest face, within tolerance of the true depth, or (iteration cap,
/// or a polytope that rounding made inconsistent) on the best separating direction found.
enum Outcome {
    Converged(ClosestFace),
    Bounded(SupportBound),
}

/// A direction `n` with the support value `h = s_C(n)·n` of the Minkowski difference along it.
/// Moving B by `h·n` puts it on the support plane of C, so this always separates the shapes and
/// bounds the depth from above.
#[derive(Clone, Copy, Debug)]
struct SupportBound {
    normal: Vec3,
    value: f32,
    point: SupportPoint,
}

/// EPA proper: expands the polytope in `scratch` until the support point along the nearest face's
/// normal lies within `tolerance` of that face. If the iteration cap is hit first, or the polytope
/// can no longer be kept convex, it returns the smallest upper bound met on the way instead of a
/// lower bound, so the answer always separates the shapes.
fn expand<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    md: &MinkowskiDifference<A, B>,
    scratch: &mut EpaScratch,
    tolerance: f32,
) -> Option<Outcome> {
    let mut best: Option<SupportBound> = None;
    for _ in 0..EPA_MAX_ITERATIONS {
        let Some(nearest) = scratch.nearest_face() else {
            break;
        };
        let face = scratch.snapshot(nearest);
        let point = md.support(face.normal);
        // d ≤ depth ≤ w·n: the polytope is inside C, and C is behind its support plane.
        let bound = SupportBound {
            normal: face.normal,
            value: point.w.dot(face.normal),
            point,
        };
        let gain = bound.value - face.distance;
        if gain <= tolerance || gain.is_nan() {
            return Some(Outcome::Converged(face));
        }
        if best.is_none_or(|b| bound.value < b.value) {
            best = Some(bound);
        }
        let apex = scratch.vertices.len();
        scratch.vertices.push(point);
        // The distance to the nearest face never decreases as the polytope grows; a new face
        // nearer than this (beyond rounding) means the polytope has lost its convexity.
        if !scratch.carve(nearest, apex, face.distance - tolerance) {
            break;
        }
    }
    best.map(Outcome::Bounded)
}

impl EpaScratch {
    /// Empty working memory (allocates on first use).
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts a polytope from a tetrahedron: orients it positively, then makes its four faces
    /// counter-clockwise seen from outside, each facing away from the vertex it lacks.
    fn reset(&mut self, mut points: [SupportPoint; 4]) {
        self.vertices.clear();
        self.faces.clear();
        let [w0, w1, w2, w3] = points.map(|p| p.w);
        // Positive orientation: w3 on the side of (w1 − w0) × (w2 − w0).
        if (w1 - w0).cross(w2 - w0).dot(w3 - w0) < 0.0 {
            points.swap(1, 2);
        }
        self.vertices.extend_from_slice(&points);
        for vertices in [[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]] {
            self.add_face(vertices);
        }
        self.link_all();
    }

    /// Fills in `adjacent` for all faces by matching each edge with its reverse.
    fn link_all(&mut self) {
        for f in 0..self.faces.len() {
            for k in 0..3 {
                let (from, to) = self.edge_vertices(EdgeRef { face: f, edge: k });
                let twin = (0..self.faces.len())
                    .flat_map(|g| (0..3).map(move |e| EdgeRef { face: g, edge: e }))
                    .find(|&other| self.edge_vertices(other) == (to, from));
                if let Some(twin) = twin {
                    self.faces[f].adjacent[k] = twin;
                }
            }
        }
    }

    /// The start and end vertex of an edge.
    fn edge_vertices(&self, edge: EdgeRef) -> (usize, usize) {
        let vertices = self.faces[edge.face].vertices;
        (vertices[edge.edge], vertices[(edge.edge + 1) % 3])
    }

    /// Appends a face with its plane; adjacency is set by the caller.
    fn add_face(&mut self, vertices: [usize; 3]) -> usize {
        let [a, b, c] = vertices.map(|i| self.vertices[i].w);
        let cross = (b - a).cross(c - a);
        let length = cross.length();
        let (normal, distance) = if length > f32::MIN_POSITIVE && length.is_finite() {
            let normal = cross / length;
            (normal, normal.dot(a))
        } else {
            (Vec3::ZERO, f32::INFINITY)
        };
        self.faces.push(Face {
            vertices,
            normal,
            distance,
            ..Face::default()
        });
        self.faces.len() - 1
    }

    /// The live face whose plane is nearest to the origin.
    fn nearest_face(&self) -> Option<usize> {
        self.faces
            .iter()
            .enumerate()
            .filter(|(_, face)| !face.removed && face.distance.is_finite())
            .min_by(|x, y| x.1.distance.total_cmp(&y.1.distance))
            .map(|(index, _)| index)
    }

    /// A copy of a face with its vertices.
    fn snapshot(&self, index: usize) -> ClosestFace {
        let face = &self.faces[index];
        ClosestFace {
            points: face.vertices.map(|i| self.vertices[i]),
            normal: face.normal,
            distance: face.distance,
        }
    }

    /// Removes the faces that vertex `apex` sees (lies strictly in front of), starting from
    /// `start`, which it must see, and closes the hole with a fan of new faces around `apex`.
    /// Returns false when the result cannot be trusted: the horizon is not a simple loop, or a new
    /// face is nearer to the origin than `min_distance`. The polytope is then unusable.
    fn carve(&mut self, start: usize, apex: usize, min_distance: f32) -> bool {
        let w = self.vertices[apex].w;
        self.horizon.clear();
        self.stack.clear();
        self.faces[start].removed = true;
        self.stack.extend(self.faces[start].adjacent);
        while let Some(edge) = self.stack.pop() {
            let face = self.faces[edge.face];
            if face.removed {
                continue;
            }
            if face.normal.dot(w) - face.distance > 0.0 {
                self.faces[edge.face].removed = true;
                self.stack.extend(face.adjacent);
            } else {
                self.horizon.push(edge);
            }
        }
        let first_new = self.faces.len();
        self.stitch(apex)
            && self.faces[first_new..]
                .iter()
                .all(|face| face.distance >= min_distance)
    }

    /// Adds one face per horizon edge, joining the edge to `apex`, and links the new faces to the
    /// old ones across the horizon and to each other around `apex`.
    fn stitch(&mut self, apex: usize) -> bool {
        let count = self.horizon.len();
        if count < 3 {
            return false;
        }
        let first = self.faces.len();
        for i in 0..count {
            let outer = self.horizon[i];
            let (from, to) = self.edge_vertices(outer);
            // Reversed so that the new face is counter-clockwise like its neighbour.
            let new = self.add_face([to, from, apex]);
            self.faces[new].adjacent[0] = outer;
            self.faces[outer.face].adjacent[outer.edge] = EdgeRef { face: new, edge: 0 };
        }
        // New face i has edge 1 = (from → apex); its twin (apex → from) is edge 2 of the one new
        // face that starts at `from`.
        for i in first..first + count {
            let from = self.faces[i].vertices[1];
            let mut partners =
                (first..first + count).filter(|&j| self.faces[j].vertices[0] == from);
            let (Some(j), None) = (partners.next(), partners.next()) else {
                return false;
            };
            self.faces[i].adjacent[1] = EdgeRef { face: j, edge: 2 };
            self.faces[j].adjacent[2] = EdgeRef { face: i, edge: 1 };
        }
        true
    }
}

/// The penetration given by EPA's nearest face: its normal and distance, and witness points from
/// the barycentric coordinates of the origin's projection `d·n` on the face.
fn from_face(face: &ClosestFace) -> Penetration {
    let projection = face.normal * face.distance;
    let weights = barycentric(projection, face.points.map(|p| p.w));
    let combine = |f: fn(&SupportPoint) -> Vec3| {
        face.points
            .iter()
            .zip(weights)
            .fold(Vec3::ZERO, |sum, (p, weight)| sum + f(p) * weight)
    };
    Penetration {
        normal: face.normal,
        depth: face.distance.max(0.0),
        point_a: combine(|p| p.a),
        point_b: combine(|p| p.b),
    }
}

/// The penetration given by a support bound: depth `h` along `n`, with witness points from the
/// support point `w = a − b`, each moved by half of w's component off `h·n` so that
/// `point_a − point_b = h·n` exactly.
fn from_bound(bound: &SupportBound) -> Penetration {
    let off_normal = bound.point.w - bound.normal * bound.value;
    Penetration {
        normal: bound.normal,
        depth: bound.value.max(0.0),
        point_a: bound.point.a - off_normal * 0.5,
        point_b: bound.point.b + off_normal * 0.5,
    }
}

/// Barycentric coordinates of `p` in triangle `w`, from the signed areas of the sub-triangles
/// `p` forms with each edge, measured along the normal (Ericson 3.4); clamped to the triangle.
fn barycentric(p: Vec3, w: [Vec3; 3]) -> [f32; 3] {
    let normal = (w[1] - w[0]).cross(w[2] - w[0]);
    let areas = [
        normal.dot((w[1] - p).cross(w[2] - p)),
        normal.dot((w[2] - p).cross(w[0] - p)),
        normal.dot((w[0] - p).cross(w[1] - p)),
    ]
    .map(|area| area.max(0.0));
    let total: f32 = areas.iter().sum();
    if total > f32::MIN_POSITIVE && total.is_finite() {
        areas.map(|area| area / total)
    } else {
        [1.0 / 3.0; 3]
    }
}

#[cfg(test)]
mod tests;
