//! Polytope–polytope contacts (hull–hull, box–hull) by the separating axis test and face
//! clipping, after Gregorius, "The Separating Axis Test between Convex Polyhedra", GDC 2013,
//! and "Robust Contact Creation for Physics Simulations", GDC 2015.
//!
//! ```text
//! face query A: max over faces f of A of  n_f · support_B(−n_f) − d_f
//! face query B: the same with the roles swapped
//! edge query:   max over edge pairs that form a face of the Minkowski difference
//!               (their arcs cross on the Gauss map) of  L · (p_b − p_a),  L = e_a × e_b
//! any query > margin          -> separated, no contact
//! edge clearly the best       -> one point: closest points of the two edges
//! otherwise face A or face B  -> clip the most anti-parallel (incident) face of the other
//!                                polytope against the side planes of the reference face,
//!                                keep the points below it, reduce to four
//! that face clips to nothing     -> the other polytope's face, then (`face_fallback`):
//!                                apart: GJK's closest points; overlapping: the edge axis,
//!                                else the deepest vertex on the face axis
//! ```
//! Faces win ties against edges and A wins ties against B (relative and absolute
//! tolerances), so the chosen feature does not flicker between steps.
//!
//! Every fallback reports a depth that is exact along its normal or errs towards a larger
//! push, never a phantom overlap: when the shapes are apart (some axis separates them) the
//! edge axis can be far from the separating one, so only the exact distance may be used.

use std::sync::OnceLock;

use super::clip::{clip_polygon, feature_id, reduce_into, ClipVertex};
use super::geometry::closest_points_segment_segment;
use super::gjk::{gjk_distance, GjkResult};
use super::{Manifold, ManifoldPoint, Scratch};
use crate::physics::constants::{
    SAT_ABSOLUTE_TOLERANCE as ABS_TOL, SAT_EDGE_RELATIVE_TOLERANCE as EDGE_REL_TOL,
    SAT_FACE_RELATIVE_TOLERANCE as FACE_REL_TOL, SAT_PARALLEL_SINE,
};
use crate::physics::math::{Isometry, Vec3};
use crate::physics::shape::{ConvexHull, SupportMap};
use crate::physics::solver::simd::{f32x4, Vec3x4, LANES};

/// The unit cube hull (half extents 1), scaled per box by [`PolyView::cuboid`].
fn unit_cube() -> &'static ConvexHull {
    static CUBE: OnceLock<ConvexHull> = OnceLock::new();
    CUBE.get_or_init(|| ConvexHull::cuboid(Vec3::ONE))
}

/// The face of every box view (the unit cube's) whose outward normal is +e_axis
/// (`positive`) or −e_axis: a table lookup instead of [`PolyView::face_towards`]'s search.
pub fn cuboid_face(axis: usize, positive: bool) -> usize {
    static FACES: OnceLock<[usize; 6]> = OnceLock::new();
    let faces = FACES.get_or_init(|| {
        let view = PolyView::cuboid(Vec3::ONE);
        std::array::from_fn(|k| {
            let mut n = Vec3::ZERO;
            n[k / 2] = if k % 2 == 1 { 1.0 } else { -1.0 };
            view.face_towards(n)
        })
    });
    faces[2 * axis + positive as usize]
}

/// A convex polytope seen through a per-axis scale: a hull as it is (scale 1), or a box as
/// the unit cube scaled by its half extents. Scaling axis-aligned normals by 1/scale keeps
/// them exact, so boxes and hulls share all the code below.
pub struct PolyView<'a> {
    hull: &'a ConvexHull,
    scale: Vec3,
    scaled: bool,
}

impl<'a> PolyView<'a> {
    /// A hull as it is.
    pub fn hull(hull: &'a ConvexHull) -> Self {
        Self {
            hull,
            scale: Vec3::ONE,
            scaled: false,
        }
    }

    /// A box with the given half extents.
    pub fn cuboid(half_extents: Vec3) -> PolyView<'static> {
        PolyView {
            hull: unit_cube(),
            scale: half_extents,
            scaled: true,
        }
    }

    /// Number of faces.
    pub fn face_count(&self) -> usize {
        self.hull.faces.len()
    }

    /// Vertex `i`.
    #[inline]
    pub fn vertex(&self, i: u16) -> Vec3 {
        self.hull.vertices[i as usize] * self.scale
    }

    /// Outward unit normal of face `f`.
    #[inline]
    pub fn face_normal(&self, f: usize) -> Vec3 {
        let n = self.hull.faces[f].normal;
        if self.scaled {
            (n / self.scale).normalize()
        } else {
            n
        }
    }

    /// Face `f` as a plane (normal, offset): n · x = offset on the face.
    #[inline]
    pub fn face_plane(&self, f: usize) -> (Vec3, f32) {
        if !self.scaled {
            let face = &self.hull.faces[f];
            return (face.normal, face.offset);
        }
        let n = self.face_normal(f);
        let e = self.hull.faces[f].edge as usize;
        (n, n.dot(self.vertex(self.hull.edges[e].origin)))
    }

    /// Calls `visit(side_normal, offset, edge_id)` for the plane through each edge of face `f`,
    /// facing out of the face: side_normal = edge × face normal, so inside means
    /// `side_normal · x <= offset`.
    pub fn for_each_side_plane(&self, f: usize, mut visit: impl FnMut(Vec3, f32, u32)) {
        let n = self.face_normal(f);
        let first = self.hull.faces[f].edge;
        let mut e = first;
        for _ in 0..self.hull.edges.len() {
            let edge = self.hull.edges[e as usize];
            let next_origin = self.hull.edges[edge.next as usize].origin;
            let (p, q) = (self.vertex(edge.origin), self.vertex(next_origin));
            let side = (q - p).cross(n).normalize_or_zero();
            visit(side, side.dot(p), e as u32);
            e = edge.next;
            if e == first {
                break;
            }
        }
    }

    /// Whether `p` (this polytope's frame) is inside or on every face plane.
    pub fn contains(&self, p: Vec3) -> bool {
        (0..self.face_count()).all(|f| {
            let (n, d) = self.face_plane(f);
            n.dot(p) <= d
        })
    }

    /// Every edge once: (half-edge index, start, end), in this polytope's frame.
    pub fn edge_segments(&self) -> impl Iterator<Item = (u32, Vec3, Vec3)> + '_ {
        let edges = &self.hull.edges;
        (0..edges.len()).step_by(2).map(move |e| {
            let (start, end) = (edges[e].origin, edges[e + 1].origin);
            (e as u32, self.vertex(start), self.vertex(end))
        })
    }

    /// The face whose outward normal is closest to `n` (for boxes: the face of an axis).
    pub fn face_towards(&self, n: Vec3) -> usize {
        self.incident_face(-n)
    }

    /// A point strictly inside (the mean of the vertices), for orienting edge axes.
    pub fn interior_point(&self) -> Vec3 {
        if self.scaled {
            return Vec3::ZERO;
        }
        let sum = self.hull.vertices.iter().fold(Vec3::ZERO, |s, &v| s + v);
        sum / self.hull.vertices.len().max(1) as f32
    }

    /// Appends the vertices of face `f`, counter-clockwise seen from outside, to `out`.
    /// Each vertex is mapped by `iso` and tagged with its vertex index.
    pub fn face_polygon(&self, f: usize, iso: &Isometry, out: &mut Vec<ClipVertex>) {
        out.clear();
        let first = self.hull.faces[f].edge;
        let mut e = first;
        loop {
            let edge = &self.hull.edges[e as usize];
            out.push(ClipVertex {
                point: iso.transform_point(self.vertex(edge.origin)),
                id: edge.origin as u32,
            });
            e = edge.next;
            if e == first || out.len() > self.hull.edges.len() {
                break;
            }
        }
    }

    /// The face whose normal is most anti-parallel to `normal_here` (in this polytope's frame).
    pub fn incident_face(&self, normal_here: Vec3) -> usize {
        let mut best = 0;
        let mut best_dot = f32::MAX;
        for f in 0..self.face_count() {
            let d = self.face_normal(f).dot(normal_here);
            if d < best_dot {
                best_dot = d;
                best = f;
            }
        }
        best
    }

    /// The vertex farthest along `dir` (this polytope's frame).
    pub fn support_vertex(&self, dir: Vec3) -> u16 {
        self.hull.support_index(dir * self.scale) as u16
    }

    /// Among the faces around vertex `v`, the one most anti-parallel to `normal_here`.
    /// Unlike the globally most anti-parallel face, it always contains the deepest vertex,
    /// so clipping it against a reference face cannot miss the deepest point.
    pub fn incident_face_at(&self, v: u16, normal_here: Vec3) -> usize {
        let mut best = None;
        let mut best_dot = f32::MAX;
        for edge in self.hull.edges.iter().filter(|e| e.origin == v) {
            let d = self.face_normal(edge.face as usize).dot(normal_here);
            if d < best_dot {
                best_dot = d;
                best = Some(edge.face as usize);
            }
        }
        best.unwrap_or_else(|| self.incident_face(normal_here))
    }
}

impl SupportMap for PolyView<'_> {
    fn support(&self, dir: Vec3) -> Vec3 {
        // argmax over v of (S·v)·d = argmax of v·(S·d).
        self.hull.support(dir * self.scale) * self.scale
    }
}

/// The best separation over the faces of `a`, against `b` placed at `b_in_a`.
/// Returns (separation, face). Stops early once a separation exceeds `margin`.
fn query_faces(a: &PolyView, b: &PolyView, b_in_a: &Isometry, margin: f32) -> (f32, usize) {
    let mut best = (f32::MIN, 0);
    for f in 0..a.face_count() {
        let (n, d) = a.face_plane(f);
        let v = b_in_a.transform_point(b.support(b_in_a.inverse_transform_vector(-n)));
        let separation = n.dot(v) - d;
        if separation > best.0 {
            best = (separation, f);
            if separation > margin {
                break;
            }
        }
    }
    best
}

/// Gregorius's Minkowski face test for one edge of A against four of B: do the Gauss-map
/// arcs a→b and c→d cross? (a, b: normals of the faces at A's edge, `bxa` = b × a, in
/// every lane; c, d: the negated normals at each of B's edges, `dxc` = d × c.) The lanes
/// whose arcs cross, as bits. Each lane computes what the scalar products would (exact
/// operations in the same order, `solver::simd`); a lane of zeros never crosses.
#[inline]
fn minkowski_faces((a, b, bxa): (Vec3x4, Vec3x4, Vec3x4), [c, d, dxc]: &[Vec3x4; 3]) -> u32 {
    let cba = c.dot(bxa);
    let dba = d.dot(bxa);
    let adc = dxc.dot(a);
    let bdc = dxc.dot(b);
    let zero = f32x4::ZERO;
    ((cba * dba).simd_lt(zero) & (adc * bdc).simd_lt(zero) & (cba * bdc).simd_gt(zero)).to_bitmask()
}

/// Calls `visit(axis, (pa, qa), (pb, qb), half-edge of A, half-edge of B)` for every edge
/// pair that builds a face of the Minkowski difference, with the edges in A's frame and the
/// unit axis `e_a × e_b` pointing out of A. Parallel pairs are skipped (a face axis covers
/// them). Stops when `visit` returns true. `arcs` is room for B's edges as the face test
/// reads them, four to a group (their faces' negated normals turned into A's frame once,
/// not once per pair; the last group's spare lanes zero).
fn for_each_minkowski_edge_pair(
    a: &PolyView,
    b: &PolyView,
    b_in_a: &Isometry,
    arcs: &mut Vec<[Vec3x4; 3]>,
    mut visit: impl FnMut(Vec3, (Vec3, Vec3), (Vec3, Vec3), u16, u16) -> bool,
) {
    let center_a = a.interior_point();
    let edges_a = &a.hull.edges;
    let edges_b = &b.hull.edges;
    arcs.clear();
    let normal = |f: u16| -b_in_a.transform_vector(b.face_normal(f as usize));
    for group in edges_b.chunks(2 * LANES) {
        let mut arc = [Vec3x4::ZERO; 3];
        for (l, pair) in group.chunks_exact(2).enumerate() {
            let (c, d) = (normal(pair[0].face), normal(pair[1].face));
            for (lanes, v) in arc.iter_mut().zip([c, d, d.cross(c)]) {
                lanes.set_lane(l, v);
            }
        }
        arcs.push(arc);
    }
    for ea in (0..edges_a.len()).step_by(2) {
        let (e1, e2) = (edges_a[ea], edges_a[ea + 1]);
        let (pa, qa) = (a.vertex(e1.origin), a.vertex(e2.origin));
        let (u1, u2) = (
            a.face_normal(e1.face as usize),
            a.face_normal(e2.face as usize),
        );
        let arc_a = (
            Vec3x4::splat(u1),
            Vec3x4::splat(u2),
            Vec3x4::splat(u2.cross(u1)),
        );
        let dir_a = qa - pa;
        for (g, arc) in arcs.iter().enumerate() {
            let mut crossing = minkowski_faces(arc_a, arc);
            // The crossing lanes in order: the pairs in the order of B's edges.
            while crossing != 0 {
                let eb = 2 * (LANES * g + crossing.trailing_zeros() as usize);
                crossing &= crossing - 1;
                let (f1, f2) = (edges_b[eb], edges_b[eb + 1]);
                let pb = b_in_a.transform_point(b.vertex(f1.origin));
                let qb = b_in_a.transform_point(b.vertex(f2.origin));
                let axis = dir_a.cross(qb - pb);
                let len = axis.length();
                if len < SAT_PARALLEL_SINE * (dir_a.length() * (qb - pb).length()).max(1e-12) {
                    continue;
                }
                let mut axis = axis / len;
                if axis.dot(pa - center_a) < 0.0 {
                    axis = -axis;
                }
                if visit(axis, (pa, qa), (pb, qb), ea as u16, eb as u16) {
                    return;
                }
            }
        }
    }
}

/// The best separation over edge pairs that build a Minkowski face.
/// Returns (separation, half-edge of A, half-edge of B in A's frame, axis).
fn query_edges(
    a: &PolyView,
    b: &PolyView,
    b_in_a: &Isometry,
    margin: f32,
    arcs: &mut Vec<[Vec3x4; 3]>,
) -> (f32, u16, u16, Vec3) {
    let mut best = (f32::MIN, 0u16, 0u16, Vec3::ZERO);
    for_each_minkowski_edge_pair(a, b, b_in_a, arcs, |axis, (pa, _), (pb, _), ea, eb| {
        let separation = axis.dot(pb - pa);
        if separation > best.0 {
            best = (separation, ea, eb, axis);
        }
        separation > margin
    });
    best
}

/// How far B must move along the unit `n` (A's frame) to stop overlapping A, with the
/// touching points: (push, point on A, point on B), the point on B where it is now.
///
/// ```text
/// B + t·n overlaps A  <=>  t·n ∈ D = A ⊖ B
/// push = max { t : t·n ∈ D } = min over facet normals L of D with n·L > 0 of h_D(L) / n·L
/// ```
/// where h_D(L), D's support, is the overlap of the shapes along L (minus the separation the
/// SAT queries compute). The facet normals are A's face normals, B's negated face normals
/// and the Minkowski-face edge axes, so this is one more pass over the same candidates as the
/// SAT; only called when clipping lost the deepest part of the overlap.
pub(super) fn push_along(
    a: &PolyView,
    b: &PolyView,
    b_in_a: &Isometry,
    n: Vec3,
    arcs: &mut Vec<[Vec3x4; 3]>,
) -> (f32, Vec3, Vec3) {
    // Axes this close to perpendicular to n bound the push by more than any shape here.
    const MIN_COSINE: f32 = 1.0e-4;
    let mut best = (f32::MAX, Vec3::ZERO, Vec3::ZERO);
    for f in 0..a.face_count() {
        let (l, d) = a.face_plane(f);
        let cos = n.dot(l);
        if cos > MIN_COSINE {
            let vb = b_in_a.transform_point(b.support(b_in_a.inverse_transform_vector(-l)));
            let t = (d - l.dot(vb)) / cos;
            if t < best.0 {
                best = (t, vb + n * t, vb);
            }
        }
    }
    let a_in_b = b_in_a.inverse();
    for g in 0..b.face_count() {
        let (m, d) = b.face_plane(g);
        let l = -b_in_a.transform_vector(m);
        let cos = n.dot(l);
        if cos > MIN_COSINE {
            // A's point deepest below B's face, in A's frame.
            let va = a.support(l);
            let t = (d - m.dot(a_in_b.transform_point(va))) / cos;
            if t < best.0 {
                best = (t, va, va - n * t);
            }
        }
    }
    for_each_minkowski_edge_pair(a, b, b_in_a, arcs, |l, (pa, qa), (pb, qb), _, _| {
        let cos = n.dot(l);
        if cos > MIN_COSINE {
            let t = l.dot(pa - pb) / cos;
            if t < best.0 {
                // After the push the two edges' lines cross: their closest points.
                let (ca, cb) = closest_points_segment_segment(pa, qa, pb + n * t, qb + n * t);
                best = (t, ca, cb - n * t);
            }
        }
        false
    });
    best
}

/// Face contact: clips the incident face of `inc` (placed at `inc_in_ref`) against face
/// `ref_face` of `reference`. Writes a manifold in the reference frame, normal from the
/// reference towards the incident polytope, points `point_a` on the reference.
#[allow(clippy::too_many_arguments)]
pub fn face_contact(
    reference: &PolyView,
    inc: &PolyView,
    inc_in_ref: &Isometry,
    ref_face: usize,
    margin: f32,
    id_salt: u32,
    scratch: &mut Scratch,
    out: &mut Manifold,
) {
    let (n, d) = reference.face_plane(ref_face);
    let n_in_inc = inc_in_ref.inverse_transform_vector(n);
    let deepest = inc.support_vertex(-n_in_inc);
    let inc_face = inc.incident_face_at(deepest, n_in_inc);
    inc.face_polygon(inc_face, inc_in_ref, &mut scratch.polygon);

    // Clip by the side plane through every edge of the reference face.
    reference.for_each_side_plane(ref_face, |side, offset, edge_id| {
        clip_polygon(
            &scratch.polygon,
            side,
            offset,
            edge_id,
            &mut scratch.clipped,
        );
        std::mem::swap(&mut scratch.polygon, &mut scratch.clipped);
    });

    let deepest_point = inc_in_ref.transform_point(inc.vertex(deepest));
    let ids = FaceIds {
        salt: id_salt,
        reference: ref_face as u32,
        incident: inc_face as u32,
        deepest: deepest as u32,
    };
    let plane = (n, d);
    let views = (reference, inc);
    let no_bound = || f32::MAX;
    finish_face_contact(
        views,
        inc_in_ref,
        plane,
        deepest_point,
        ids,
        no_bound,
        margin,
        scratch,
        out,
    );
}

/// The feature numbers a face contact's point ids are made from.
pub(super) struct FaceIds {
    /// 0 when A's face is the reference, 1 when B's.
    pub salt: u32,
    /// The reference face.
    pub reference: u32,
    /// The incident face.
    pub incident: u32,
    /// The incident polytope's deepest vertex along the normal.
    pub deepest: u32,
}

/// The end of a face contact: keeps the clipped incident polygon's vertices
/// (`scratch.polygon`, reference frame) that lie within `margin` of the reference face's
/// plane (n · x = d), adds the exact push when clipping lost the deepest part of the overlap
/// (`deepest_point`: the incident polytope's deepest vertex along n), and reduces to four.
/// `push_bound()` is a cheap upper bound on that push (boxes: exact), or `f32::MAX`; the full
/// search for the push runs only when the bound leaves it deeper than the kept points.
#[allow(clippy::too_many_arguments)]
pub(super) fn finish_face_contact(
    (reference, inc): (&PolyView, &PolyView),
    inc_in_ref: &Isometry,
    (n, d): (Vec3, f32),
    deepest_point: Vec3,
    ids: FaceIds,
    push_bound: impl FnOnce() -> f32,
    margin: f32,
    scratch: &mut Scratch,
    out: &mut Manifold,
) {
    scratch.points.clear();
    for v in &scratch.polygon {
        let separation = n.dot(v.point) - d;
        if separation <= margin {
            scratch.points.push(ManifoldPoint {
                point_a: v.point - n * separation,
                point_b: v.point,
                depth: -separation,
                id: feature_id(&[ids.salt, ids.reference, ids.incident, v.id]),
            });
        }
    }
    // A hull is not inside the prism of its face's side planes, so a part of the incident
    // polytope that clipping cut away may still be inside the reference polytope, deeper
    // than every point kept; the points left then under-report the overlap along n, and
    // pushing by their depth leaves the shapes overlapping (by up to 8 cm in random pairs).
    // When the deepest vertex along n is deeper than every kept point, find the exact push
    // along n and, if it is deeper still, add a point where the shapes last touch.
    // (Not the deepest vertex itself: a cube straddling two others has its far corner
    // beyond each support's side, over the other support, and a point there would prop it
    // up in the air; the exact push is the kept depth then.)
    let deepest_kept = scratch
        .points
        .iter()
        .map(|p| p.depth)
        .fold(f32::MIN, f32::max);
    let deepest_overlap = d - n.dot(deepest_point);
    let deeper = |push: f32| push > deepest_kept + CLIPPED_DEEPEST_TOLERANCE;
    if !scratch.points.is_empty() && deeper(deepest_overlap) && deeper(push_bound()) {
        let (push, point_a, point_b) = push_along(reference, inc, inc_in_ref, n, &mut scratch.arcs);
        if deeper(push) {
            scratch.points.push(ManifoldPoint {
                point_a,
                point_b,
                depth: push,
                id: feature_id(&[ids.salt, 0xDEE9, ids.reference, ids.deepest]),
            });
        }
    }
    reduce_into(&scratch.points, n, out);
}

/// SAT feature choice: does an axis of separation `challenger` clearly beat one of
/// separation `incumbent`, by `1 − relative` of the incumbent's magnitude plus [`ABS_TOL`]
/// (`relative`: [`EDGE_REL_TOL`] for an edge against the best face, [`FACE_REL_TOL`] for
/// B's face against A's)? Gregorius (GDC 2015) writes the test as
/// `challenger > relative · incumbent + ABS_TOL`, which is this for overlapping shapes
/// (negative separations) but turns the preference round for shapes still apart: 0.9 × a
/// positive separation is *easier* to beat. A cube falling onto a cube tilted a few
/// degrees then got an edge axis and its single point as its speculative manifold instead
/// of the face's four, hit on that point at 12 m/s, spun, and drove its other corners
/// 8–27 cm into the cube below within the step; the push-out threw pile4000's columns up
/// at 1–2 m/s and they toppled over the walls.
pub(super) fn clearly_beats(challenger: f32, incumbent: f32, relative: f32) -> bool {
    challenger > incumbent + (1.0 - relative) * incumbent.abs() + ABS_TOL
}

/// How much deeper than every clipped point the exact push along the normal must be to add
/// a point for it, m: well under the 1 mm a push may leave, and above rounding, so a face
/// resting flat (all vertices equally deep) never gains a point beyond the reference face.
const CLIPPED_DEEPEST_TOLERANCE: f32 = 2.0e-4;

/// Last resort when clipping leaves nothing and there is no edge axis: the deepest vertex of
/// `inc` along the reference face's normal, whose depth is exactly that axis's separation.
/// (Among tied vertices the choice is arbitrary, which is why the edge contact comes first.)
pub fn deepest_vertex_contact(
    reference: &PolyView,
    inc: &PolyView,
    inc_in_ref: &Isometry,
    ref_face: usize,
    margin: f32,
    out: &mut Manifold,
) {
    let (n, d) = reference.face_plane(ref_face);
    let deepest = inc.support_vertex(-inc_in_ref.inverse_transform_vector(n));
    let p = inc_in_ref.transform_point(inc.vertex(deepest));
    let separation = n.dot(p) - d;
    if separation <= margin {
        out.normal = n;
        out.push(ManifoldPoint {
            point_a: p - n * separation,
            point_b: p,
            depth: -separation,
            id: feature_id(&[0xDEE9, ref_face as u32, deepest as u32]),
        });
    }
}

/// Edge contact: one point at the closest points of the two edges.
fn edge_contact(
    a: &PolyView,
    b: &PolyView,
    b_in_a: &Isometry,
    query: (f32, u16, u16, Vec3),
    out: &mut Manifold,
) {
    let (separation, ea, eb, axis) = query;
    let (e1, e2) = (a.hull.edges[ea as usize], a.hull.edges[ea as usize + 1]);
    let (f1, f2) = (b.hull.edges[eb as usize], b.hull.edges[eb as usize + 1]);
    let (ca, cb) = closest_points_segment_segment(
        a.vertex(e1.origin),
        a.vertex(e2.origin),
        b_in_a.transform_point(b.vertex(f1.origin)),
        b_in_a.transform_point(b.vertex(f2.origin)),
    );
    out.normal = axis;
    out.push(ManifoldPoint {
        point_a: ca,
        point_b: cb,
        depth: -separation,
        id: feature_id(&[0xED6E, ea as u32, eb as u32]),
    });
}

/// Contact between two polytopes, in A's frame (see the module notes).
pub fn polytope_polytope(
    a: &PolyView,
    b: &PolyView,
    b_in_a: &Isometry,
    margin: f32,
    scratch: &mut Scratch,
    out: &mut Manifold,
) {
    // An axis separating the shapes by more than the margin: no contact, and that
    // separation is a lower bound on their distance (`Manifold::gap`).
    let face_a = query_faces(a, b, b_in_a, margin);
    if face_a.0 > margin {
        out.gap = face_a.0;
        return;
    }
    let a_in_b = b_in_a.inverse();
    let face_b = query_faces(b, a, &a_in_b, margin);
    if face_b.0 > margin {
        out.gap = face_b.0;
        return;
    }
    let edge = query_edges(a, b, b_in_a, margin, &mut scratch.arcs);
    if edge.0 > margin {
        out.gap = edge.0;
        return;
    }
    let best_face = face_a.0.max(face_b.0);
    let has_edge = edge.0 > f32::MIN;
    if has_edge && clearly_beats(edge.0, best_face, EDGE_REL_TOL) {
        edge_contact(a, b, b_in_a, edge, out);
        return;
    }
    let faces = FaceQueries {
        a: face_a,
        b: face_b,
        prefer_b: clearly_beats(face_b.0, face_a.0, FACE_REL_TOL),
    };
    let edge_fallback = has_edge.then_some((edge.0, |out: &mut Manifold| {
        edge_contact(a, b, b_in_a, edge, out)
    }));
    let clip_face = |on_b: bool, scratch: &mut Scratch, out: &mut Manifold| {
        if on_b {
            face_contact(b, a, &a_in_b, faces.b.1, margin, 1, scratch, out);
            out.transform(b_in_a);
            out.flip();
        } else {
            face_contact(a, b, b_in_a, faces.a.1, margin, 0, scratch, out);
        }
    };
    face_fallback(
        a,
        b,
        b_in_a,
        faces,
        edge_fallback,
        clip_face,
        margin,
        scratch,
        out,
    );
}

/// The best face of each polytope: (separation, face index), and which one is the
/// reference (B only when clearly better, so the choice does not flicker).
#[derive(Clone, Copy, Debug)]
pub struct FaceQueries {
    /// A's best face: (separation, face index).
    pub a: (f32, usize),
    /// B's best face, in B's frame.
    pub b: (f32, usize),
    /// B's face is the reference.
    pub prefer_b: bool,
}

/// Face contact on the preferred reference face; if its incident face clips to nothing,
/// the other polytope's face (a box resting on a hull face that A's face query narrowly
/// won); if that clips to nothing too:
/// - the shapes are apart (the best separation over all axes is positive): GJK's closest
///   points, one point at the exact gap. The edge axis is not a fallback here: it may
///   separate far less than the best axis, and its depth would be a phantom overlap.
/// - overlapping: the edge contact if there is an edge axis (a true separating-axis
///   candidate: pushing by its depth separates the shapes), else the deepest vertex along
///   the preferred face's normal (exactly that axis's depth).
///
/// `edge` is the edge axis's separation and a function writing its contact, in A's frame.
/// `clip_face(on_b, scratch, out)` writes the face contact on A's face (`on_b` false) or
/// B's (`on_b` true) into `out`, in A's frame; boxes pass their own, hulls [`face_contact`].
#[allow(clippy::too_many_arguments)]
pub fn face_fallback(
    a: &PolyView,
    b: &PolyView,
    b_in_a: &Isometry,
    faces: FaceQueries,
    edge: Option<(f32, impl FnOnce(&mut Manifold))>,
    clip_face: impl Fn(bool, &mut Scratch, &mut Manifold),
    margin: f32,
    scratch: &mut Scratch,
    out: &mut Manifold,
) {
    let a_in_b = b_in_a.inverse();
    let on_b = |scratch: &mut Scratch, out: &mut Manifold| clip_face(true, scratch, out);
    let on_a = |scratch: &mut Scratch, out: &mut Manifold| clip_face(false, scratch, out);
    let edge_separation = edge.as_ref().map_or(f32::MIN, |e| e.0);
    let separation = faces.a.0.max(faces.b.0).max(edge_separation);
    // A face's points are at most as deep as its axis overlaps (−its separation). When the
    // shapes are apart, a face whose axis does not separate them could report a phantom
    // overlap, so only separating faces may be used.
    // When they overlap, a face may overstate the depth only by the documented SAT face
    // bias (as when it wins the face query): within FACE_REL_TOL and ABS_TOL of the best.
    let best_face = faces.a.0.max(faces.b.0);
    let usable = |face_separation: f32| {
        if separation > 0.0 {
            face_separation > 0.0
        } else {
            face_separation >= best_face / FACE_REL_TOL - ABS_TOL
        }
    };
    let (first, second) = if faces.prefer_b {
        (faces.b.0, faces.a.0)
    } else {
        (faces.a.0, faces.b.0)
    };
    if usable(first) {
        if faces.prefer_b {
            on_b(scratch, out);
        } else {
            on_a(scratch, out);
        }
    }
    if out.count == 0 && usable(second) {
        if faces.prefer_b {
            on_a(scratch, out);
        } else {
            on_b(scratch, out);
        }
    }
    if out.count > 0 {
        return;
    }
    if separation > 0.0 {
        let gjk = gjk_distance(a, b, b_in_a);
        if gjk.distance > 0.0 {
            closest_points_contact(&gjk, margin, out);
            return;
        }
        // Touching within GJK's tolerance: the face axis's own depth (≤ 0) below.
    }
    if let (true, Some((_, edge_contact))) = (separation <= 0.0, edge) {
        edge_contact(out);
    } else if faces.prefer_b {
        deepest_vertex_contact(b, a, &a_in_b, faces.b.1, margin, out);
        out.transform(b_in_a);
        out.flip();
    } else {
        deepest_vertex_contact(a, b, b_in_a, faces.a.1, margin, out);
    }
}

/// One point at GJK's closest points of two shapes that are apart, if within `margin`.
fn closest_points_contact(gjk: &GjkResult, margin: f32, out: &mut Manifold) {
    if gjk.distance > margin {
        return;
    }
    out.normal = (gjk.point_b - gjk.point_a) / gjk.distance;
    out.push(ManifoldPoint {
        point_a: gjk.point_a,
        point_b: gjk.point_b,
        depth: -gjk.distance,
        id: feature_id(&[0xC105, 0]),
    });
}

#[cfg(test)]
mod tests {
    use super::super::gjk::test_support::Lcg;
    use super::*;

    #[test]
    fn a_reported_gap_keeps_hulls_apart_for_any_smaller_motion() {
        // As for boxes (`box_box` tests): the separation an early-out reports bounds the
        // distance, so B moved by less than gap − margin (translation plus the rotation's
        // chord at B's reach) still gives no points. Pyramids, prisms and a box view.
        let margin = 0.02;
        let hulls = [
            ConvexHull::square_pyramid(0.5, 1.0),
            ConvexHull::triangular_prism(0.4, 0.8, 0.6),
        ];
        let views = [
            PolyView::hull(&hulls[0]),
            PolyView::hull(&hulls[1]),
            PolyView::cuboid(Vec3::new(0.3, 0.6, 0.4)),
        ];
        let reach = |v: &PolyView| {
            let far = |d: Vec3| v.support(d).length();
            // Every vertex is the support of some direction; sample enough of them.
            let mut rng = Lcg(5);
            (0..400)
                .map(|_| far(rng.rotation() * Vec3::X))
                .fold(0.0f32, f32::max)
                * 1.01
        };
        let mut rng = Lcg(43);
        let (mut with_gap, mut moves) = (0, 0);
        for _ in 0..2000 {
            let (a, b) = (
                &views[(rng.next_f32() * 3.0) as usize % 3],
                &views[(rng.next_f32() * 3.0) as usize % 3],
            );
            let reach_b = reach(b);
            let b_in_a = Isometry::new(rng.vec_in(2.0), rng.rotation());
            let mut m = Manifold::default();
            polytope_polytope(a, b, &b_in_a, margin, &mut Scratch::default(), &mut m);
            if m.gap <= margin {
                continue;
            }
            assert_eq!(m.count, 0);
            with_gap += 1;
            moves += rng.check_moves_within_gap(&b_in_a, (m.gap, margin, reach_b), 5, |moved| {
                let mut after = Manifold::default();
                polytope_polytope(a, b, moved, margin, &mut Scratch::default(), &mut after);
                after
            });
        }
        assert!(
            with_gap > 300 && moves > 1000,
            "{with_gap} gaps, {moves} moves"
        );
    }
}
