//! Capsule contacts: capsule–capsule by closest points of segments, capsule–polytope (box or
//! hull) by GJK on the inner segment with the radius as a margin, EPA when the segment itself
//! is inside. A capsule lying on a face or along another capsule gets two points, so it rests
//! instead of rocking on one.

use super::clip::feature_id;
use super::epa::penetration_after_gjk;
use super::geometry::closest_points_segment_segment;
use super::gjk::gjk_distance;
use super::polytope::PolyView;
use super::{Manifold, ManifoldPoint, Scratch};
use crate::physics::constants::{
    CAPSULE_FACE_ALIGN_COS as FACE_ALIGN_COS, CAPSULE_LYING_SIN as LYING_SIN,
    CAPSULE_PARALLEL_COS as PARALLEL_COS, CORE_CONTACT_DISTANCE as CORE_EPS,
};
use crate::physics::math::{Isometry, Vec3};
use crate::physics::shape::{SegmentSupport, SupportMap};

/// Capsule A (segment on A's y axis) against capsule B at `b_in_a`.
pub fn capsule_capsule(
    ha: f32,
    ra: f32,
    hb: f32,
    rb: f32,
    b_in_a: &Isometry,
    margin: f32,
    out: &mut Manifold,
) {
    let (pa, qa) = (Vec3::new(0.0, -ha, 0.0), Vec3::new(0.0, ha, 0.0));
    let pb = b_in_a.transform_point(Vec3::new(0.0, -hb, 0.0));
    let qb = b_in_a.transform_point(Vec3::new(0.0, hb, 0.0));
    let (ca, cb) = closest_points_segment_segment(pa, qa, pb, qb);
    let d = cb - ca;
    let dist = d.length();
    if dist - ra - rb > margin {
        return;
    }
    let dir_b = (qb - pb).normalize_or_zero();
    let normal = if dist > CORE_EPS {
        d / dist
    } else {
        // Crossing cores: a direction perpendicular to both axes, pointing from A's centre
        // towards B's.
        let n = Vec3::Y.cross(dir_b).try_normalize().unwrap_or(Vec3::X);
        if n.dot(b_in_a.translation) < 0.0 {
            -n
        } else {
            n
        }
    };
    out.normal = normal;

    // Parallel and overlapping along A's axis: two points at the ends of the shared range.
    if ha > 0.0 && hb > 0.0 && dir_b.y.abs() > PARALLEL_COS {
        let lo = pb.y.min(qb.y).max(-ha);
        let hi = pb.y.max(qb.y).min(ha);
        if hi - lo > CORE_EPS {
            for (k, y) in [lo, hi].into_iter().enumerate() {
                let s = (y - pb.y) / (qb.y - pb.y);
                let on_b = pb + (qb - pb) * s;
                let on_a = Vec3::new(0.0, y, 0.0);
                let depth = ra + rb - (on_b - on_a).dot(normal);
                if depth >= -margin {
                    out.push(ManifoldPoint {
                        point_a: on_a + normal * ra,
                        point_b: on_b - normal * rb,
                        depth,
                        id: k as u32,
                    });
                }
            }
            if out.count > 0 {
                return;
            }
        }
    }
    out.push(ManifoldPoint {
        point_a: ca + normal * ra,
        point_b: cb - normal * rb,
        depth: ra + rb - dist,
        id: 2,
    });
}

/// Capsule A (half height `h`, radius `r`, on A's y axis) against a polytope at `b_in_a`.
pub fn capsule_polytope(
    h: f32,
    r: f32,
    poly: &PolyView,
    b_in_a: &Isometry,
    margin: f32,
    scratch: &mut Scratch,
    out: &mut Manifold,
) {
    let (p, q) = (Vec3::new(0.0, -h, 0.0), Vec3::new(0.0, h, 0.0));
    let segment = SegmentSupport(p, q);
    let gjk = gjk_distance(&segment, poly, b_in_a);
    if gjk.distance > r + margin {
        return;
    }
    // Normal from A to B, core witness points and depth of the rounded shapes.
    let (normal, core_a, core_b, depth) = if gjk.distance > CORE_EPS {
        let n = (gjk.point_b - gjk.point_a) / gjk.distance;
        (n, gjk.point_a, gjk.point_b, r - gjk.distance)
    } else {
        // EPA for a segment deep inside; when the segment only touches (EPA's simplex is
        // flat, or GJK stopped a hair apart) its normal is arbitrary (it can lie along the
        // segment, and a push along it frees nothing), so take the best separating axis.
        match penetration_after_gjk(&segment, poly, b_in_a, &gjk, &mut scratch.epa) {
            Some(pen) if pen.depth > CORE_EPS => {
                (pen.normal, pen.point_a, pen.point_b, r + pen.depth)
            }
            _ => {
                let (n, separation, core_a, core_b) = segment_polytope_axis(p, q, poly, b_in_a);
                (n, core_a, core_b, r - separation)
            }
        }
    };
    out.normal = normal;
    if segment_on_face((h, r), poly, b_in_a, normal, core_a, margin, out)
        && covers_depth(h, r, poly, b_in_a, out)
    {
        return;
    }
    out.count = 0;
    if segment_along_edge((h, r), poly, b_in_a, normal, core_b, margin, out)
        && covers_depth(h, r, poly, b_in_a, out)
    {
        return;
    }
    out.count = 0;
    out.normal = normal;
    out.push(ManifoldPoint {
        point_a: core_a + normal * r,
        point_b: core_b,
        depth,
        id: 0,
    });
}

/// The separating axis test between the segment p–q and `poly` at `b_in_a`: the axis along
/// which they are farthest apart (or least overlapping), from A to B, with its separation and
/// witness points on the segment and on the polytope. The candidates are the polytope's face
/// normals and the segment crossed with each of its edges: the facet normals of their
/// Minkowski difference, so the best one is exact and pushing along it frees the segment.
fn segment_polytope_axis(
    p: Vec3,
    q: Vec3,
    poly: &PolyView,
    b_in_a: &Isometry,
) -> (Vec3, f32, Vec3, Vec3) {
    let support_b =
        |dir: Vec3| b_in_a.transform_point(poly.support(b_in_a.inverse_transform_vector(dir)));
    let mut best = (f32::MIN, Vec3::Y, p, p);
    for f in 0..poly.face_count() {
        let (m, d) = poly.face_plane(f);
        let m = b_in_a.transform_vector(m);
        let d = d + m.dot(b_in_a.translation);
        // The segment's end deepest below the face (the first on ties).
        let end = if m.dot(q) < m.dot(p) { q } else { p };
        let separation = m.dot(end) - d;
        if separation > best.0 {
            best = (separation, -m, end, end - m * separation);
        }
    }
    let along = q - p;
    for (_, e0, e1) in poly.edge_segments() {
        let (e0, e1) = (b_in_a.transform_point(e0), b_in_a.transform_point(e1));
        let axis = along.cross(e1 - e0);
        let len = axis.length();
        if len <= SEGMENT_EDGE_PARALLEL_SINE * along.length() * (e1 - e0).length() {
            continue;
        }
        for l in [axis / len, -axis / len] {
            let separation = l.dot(support_b(-l)) - l.dot(p).max(l.dot(q));
            if separation > best.0 {
                let (ca, cb) = closest_points_segment_segment(p, q, e0, e1);
                best = (separation, l, ca, cb);
            }
        }
    }
    (best.1, best.0, best.2, best.3)
}

/// Below this sine between the segment and an edge, their cross product is no axis (a face
/// normal covers parallel pairs).
const SEGMENT_EDGE_PARALLEL_SINE: f32 = 1.0e-4;

/// If the capsule lies flat on the face of `poly` that faces it, writes up to two points
/// (the segment clipped to the face) and returns true. Only when the true closest point
/// (`core_a`, GJK's witness on the segment) lies within the clipped part: otherwise the
/// closest feature is an edge or corner beside the face, and the face points would report
/// a larger gap than there is.
fn segment_on_face(
    (h, r): (f32, f32),
    poly: &PolyView,
    b_in_a: &Isometry,
    normal: Vec3,
    core_a: Vec3,
    margin: f32,
    out: &mut Manifold,
) -> bool {
    if h <= 0.0 {
        return false;
    }
    let face = poly.incident_face(b_in_a.inverse_transform_vector(normal));
    let (face_n, face_d) = poly.face_plane(face);
    let face_n_in_a = b_in_a.transform_vector(face_n);
    if face_n_in_a.dot(-normal) < FACE_ALIGN_COS || face_n_in_a.y.abs() > LYING_SIN {
        return false;
    }
    // Clip the segment (in B's frame) to the face's side planes: parameter range [t0, t1].
    let p = b_in_a.inverse_transform_point(Vec3::new(0.0, -h, 0.0));
    let q = b_in_a.inverse_transform_point(Vec3::new(0.0, h, 0.0));
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    poly.for_each_side_plane(face, |side, offset, _| {
        let (dp, dq) = (side.dot(p) - offset, side.dot(q) - offset);
        if dp > 0.0 && dq > 0.0 {
            t1 = -1.0;
        } else if dp > 0.0 {
            t0 = t0.max(dp / (dp - dq));
        } else if dq > 0.0 {
            t1 = t1.min(dp / (dp - dq));
        }
    });
    let witness = (core_a.y + h) / (2.0 * h);
    if t1 < t0 || witness < t0 - 1.0e-3 || witness > t1 + 1.0e-3 {
        return false;
    }
    out.count = 0;
    out.normal = -face_n_in_a;
    for (k, t) in [t0, t1].into_iter().enumerate() {
        let e = p + (q - p) * t;
        let separation = face_n.dot(e) - face_d;
        let depth = r - separation;
        if depth >= -margin {
            let e_in_a = b_in_a.transform_point(e);
            out.push(ManifoldPoint {
                point_a: e_in_a - face_n_in_a * r,
                point_b: b_in_a.transform_point(e - face_n * separation),
                depth,
                id: feature_id(&[face as u32, k as u32]),
            });
        }
    }
    out.count > 0
}

/// Whether a two-point manifold's deepest point is as deep as the overlap along its normal:
/// the depth to push the whole capsule out along n, max(n·p, n·q) + r − n·support_B(−n).
/// Points clipped to a face or an edge measure only the part of the segment over it; when
/// the rest of the segment hangs lower (a capsule tipping over the face's edge, or deep
/// inside), pushing by their depth would leave the shapes overlapping, so the single
/// exact point is used instead.
fn covers_depth(h: f32, r: f32, poly: &PolyView, b_in_a: &Isometry, out: &Manifold) -> bool {
    let n = out.normal;
    let lowest_b = b_in_a.transform_point(poly.support(b_in_a.inverse_transform_vector(-n)));
    let needed = h * n.y.abs() + r - n.dot(lowest_b);
    let deepest = out
        .points()
        .iter()
        .map(|p| p.depth)
        .fold(f32::MIN, f32::max);
    deepest >= needed - CORE_EPS
}

/// If the capsule lies along an edge of `poly` (parallel within `PARALLEL_COS`, and GJK's
/// witness `core_b` on that edge), writes two points at the ends of the range they share
/// along the capsule's axis and returns true: one point would let the capsule see-saw on
/// the edge. Depths are measured along the common `normal`, as for parallel capsules.
fn segment_along_edge(
    (h, r): (f32, f32),
    poly: &PolyView,
    b_in_a: &Isometry,
    normal: Vec3,
    core_b: Vec3,
    margin: f32,
    out: &mut Manifold,
) -> bool {
    if h <= 0.0 {
        return false;
    }
    let edges = poly.edge_segments();
    let on_edge = edges.into_iter().find_map(|(k, v0, v1)| {
        let (a0, a1) = (b_in_a.transform_point(v0), b_in_a.transform_point(v1));
        let dir = (a1 - a0).try_normalize()?;
        let (_, closest) = closest_points_segment_segment(core_b, core_b, a0, a1);
        let near = (closest - core_b).length() <= CORE_EPS + 1.0e-4 * (a1 - a0).length();
        (dir.y.abs() > PARALLEL_COS && near).then_some((k, a0, a1))
    });
    let Some((k, a0, a1)) = on_edge else {
        return false;
    };
    let lo = a0.y.min(a1.y).max(-h);
    let hi = a0.y.max(a1.y).min(h);
    if hi - lo <= CORE_EPS {
        return false;
    }
    out.count = 0;
    out.normal = normal;
    for (end, y) in [lo, hi].into_iter().enumerate() {
        let on_b = a0 + (a1 - a0) * ((y - a0.y) / (a1.y - a0.y));
        let on_a = Vec3::new(0.0, y, 0.0);
        let depth = r - (on_b - on_a).dot(normal);
        if depth >= -margin {
            out.push(ManifoldPoint {
                point_a: on_a + normal * r,
                point_b: on_b,
                depth,
                id: feature_id(&[0xED6E, k, end as u32]),
            });
        }
    }
    out.count > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::math::Quat;
    use std::f32::consts::FRAC_PI_2;

    #[test]
    fn parallel_capsules_touch_at_two_points() {
        // Two horizontal-ish capsules (both along A's y), side by side 0.9 apart, radii 0.5:
        // depth = 1 − 0.9 = 0.1 at both ends of the shared range [−0.5, 1].
        let b_in_a = Isometry::from_translation(Vec3::new(0.9, 1.5, 0.0));
        let mut m = Manifold::default();
        capsule_capsule(1.0, 0.5, 1.0, 0.5, &b_in_a, 0.0, &mut m);
        assert_eq!(m.count, 2);
        for p in m.points() {
            assert!((p.depth - 0.1).abs() < 1e-5);
        }
        assert!((m.normal - Vec3::X).length() < 1e-5);
    }

    #[test]
    fn crossed_capsules_touch_at_one_point() {
        // B along z, above A by 0.8 in x: depth = 0.5 + 0.5 − 0.8.
        let b_in_a = Isometry::new(Vec3::new(0.8, 0.0, 0.0), Quat::from_rotation_x(FRAC_PI_2));
        let mut m = Manifold::default();
        capsule_capsule(1.0, 0.5, 1.0, 0.5, &b_in_a, 0.0, &mut m);
        assert_eq!(m.count, 1);
        assert!((m.points[0].depth - 0.2).abs() < 1e-5);
    }
}
