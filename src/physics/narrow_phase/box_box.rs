//! Box–box contacts: the separating axis test over all 15 axes, then face clipping or an
//! edge–edge point (Gottschalk 1996; Ericson, "Real-Time Collision Detection" 4.4.1;
//! Gregorius GDC 2015 for the feature choice). Face normals alone miss edge-on-edge
//! contacts; the nine cross products catch them.
//!
//! ```text
//! in A's frame: t = centre of B, R[i][j] = a_i · b_j
//! face of A (axis a_i):   sep = |t_i| − ha_i − Σ_j hb_j |R[i][j]|
//! face of B (axis b_j):   sep = |t · b_j| − Σ_i ha_i |R[i][j]| − hb_j
//! edge (a_i × b_j):       sep = (|t_i2 R[i1][j] − t_i1 R[i2][j]|
//!                                − ha_i1 |R[i2][j]| − ha_i2 |R[i1][j]|
//!                                − hb_j1 |R[i][j2]| − hb_j2 |R[i][j1]|) / |a_i × b_j|
//! ```

use super::clip::{clip_axis_polygon, feature_id, ClipVertex};
use super::geometry::closest_points_segment_segment;
use super::polytope::{
    clearly_beats, cuboid_face, face_fallback, finish_face_contact, FaceIds, FaceQueries, PolyView,
};
use super::{Manifold, ManifoldPoint, Scratch};
use crate::physics::constants::{
    SAT_EDGE_RELATIVE_TOLERANCE as EDGE_REL_TOL, SAT_FACE_RELATIVE_TOLERANCE as FACE_REL_TOL,
    SAT_PARALLEL_SINE as PARALLEL_EPS,
};
use crate::physics::math::{Isometry, Mat3, Vec3};

/// The best axis of one family: (separation, index).
#[derive(Clone, Copy)]
struct Query {
    separation: f32,
    index: usize,
}

impl Query {
    const NONE: Query = Query {
        separation: f32::MIN,
        index: 0,
    };

    fn offer(&mut self, separation: f32, index: usize) {
        if separation > self.separation {
            *self = Query { separation, index };
        }
    }
}

/// Contact between boxes with half extents `ha` (at the origin) and `hb` (at `b_in_a`).
pub fn box_box(
    ha: Vec3,
    hb: Vec3,
    b_in_a: &Isometry,
    margin: f32,
    scratch: &mut Scratch,
    out: &mut Manifold,
) {
    let rot = Mat3::from_quat(b_in_a.rotation);
    let t = b_in_a.translation;
    // r[i][j] = a_i · b_j; the columns of `rot` are B's axes in A's frame.
    let r = [rot.row(0), rot.row(1), rot.row(2)];
    let abs_r = r.map(|row| row.abs());

    let mut face_a = Query::NONE;
    for i in 0..3 {
        let sep = t[i].abs() - ha[i] - hb.dot(abs_r[i]);
        if sep > margin {
            out.gap = sep;
            return;
        }
        face_a.offer(sep, i);
    }
    let mut face_b = Query::NONE;
    for j in 0..3 {
        let col = rot.col(j);
        let ra = ha.x * abs_r[0][j] + ha.y * abs_r[1][j] + ha.z * abs_r[2][j];
        let sep = t.dot(col).abs() - ra - hb[j];
        if sep > margin {
            out.gap = sep;
            return;
        }
        face_b.offer(sep, j);
    }
    let mut edge = Query::NONE;
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            // |a_i × b_j| from the other two components of column j (no cancellation near
            // parallel, unlike √(1 − R_ij²)).
            let len = (r[i1][j] * r[i1][j] + r[i2][j] * r[i2][j]).sqrt();
            if len < PARALLEL_EPS {
                continue;
            }
            let ra = ha[i1] * abs_r[i2][j] + ha[i2] * abs_r[i1][j];
            let rb = hb[j1] * abs_r[i][j2] + hb[j2] * abs_r[i][j1];
            let dist = (t[i2] * r[i1][j] - t[i1] * r[i2][j]).abs();
            let sep = (dist - ra - rb) / len;
            if sep > margin {
                out.gap = sep;
                return;
            }
            edge.offer(sep, 3 * i + j);
        }
    }

    let best_face = face_a.separation.max(face_b.separation);
    if clearly_beats(edge.separation, best_face, EDGE_REL_TOL) {
        edge_contact(ha, hb, b_in_a, &rot, edge, out);
        return;
    }
    let view_a = PolyView::cuboid(ha);
    let view_b = PolyView::cuboid(hb);
    // Reference face of A facing B, and of B facing A (A's centre in B's frame is −Rᵀt).
    let (i, j) = (face_a.index, face_b.index);
    let sign_a = if t[i] >= 0.0 { 1.0 } else { -1.0 };
    let sign_b = if t.dot(rot.col(j)) > 0.0 { -1.0 } else { 1.0 };
    let faces = FaceQueries {
        a: (face_a.separation, cuboid_face(i, sign_a > 0.0)),
        b: (face_b.separation, cuboid_face(j, sign_b > 0.0)),
        prefer_b: clearly_beats(face_b.separation, face_a.separation, FACE_REL_TOL),
    };
    // The edge contact is a fallback when both faces clip to nothing (see polytope.rs).
    let edge_fallback = (edge.separation > f32::MIN)
        .then_some((edge.separation, |out: &mut Manifold| {
            edge_contact(ha, hb, b_in_a, &rot, edge, out)
        }));
    let clip_face = |on_b: bool, scratch: &mut Scratch, out: &mut Manifold| {
        if on_b {
            let a_in_b = b_in_a.inverse();
            let face = BoxFace {
                axis: j,
                sign: sign_b,
            };
            box_face_contact(
                (hb, ha),
                &a_in_b,
                &rot.transpose(),
                face,
                margin,
                1,
                scratch,
                out,
            );
            out.transform(b_in_a);
            out.flip();
        } else {
            let face = BoxFace {
                axis: i,
                sign: sign_a,
            };
            box_face_contact((ha, hb), b_in_a, &rot, face, margin, 0, scratch, out);
        }
    };
    face_fallback(
        &view_a,
        &view_b,
        b_in_a,
        faces,
        edge_fallback,
        clip_face,
        margin,
        scratch,
        out,
    );
}

/// A face of a box: its axis and which side (±1).
#[derive(Clone, Copy)]
struct BoxFace {
    axis: usize,
    sign: f32,
}

/// A box face's number in feature ids: the face whose outward normal is sign·e_axis.
fn face_number(axis: usize, sign: f32) -> u32 {
    2 * axis as u32 + (sign > 0.0) as u32
}

/// A box corner's (or edge centre's) number in feature ids: a bit per axis, set where it
/// is positive.
fn corner_number(corner: Vec3) -> u32 {
    (corner.x > 0.0) as u32 | ((corner.y > 0.0) as u32) << 1 | ((corner.z > 0.0) as u32) << 2
}

/// Face contact between two boxes: the incident box's face most anti-parallel to the
/// reference face's normal, clipped by the reference face's four side planes, the points
/// below the face kept and reduced (`polytope::face_contact` on two cuboids, without walking
/// the hull: a box's side planes are its own axis planes, and the incident face is the one
/// whose axis is most parallel to the normal; it always holds the deepest vertex).
///
/// `(hr, hi)` are the reference and incident half extents, `inc_in_ref` places the incident
/// box, `rot` is its rotation as a matrix (columns: its axes in the reference frame).
#[allow(clippy::too_many_arguments)]
fn box_face_contact(
    (hr, hi): (Vec3, Vec3),
    inc_in_ref: &Isometry,
    rot: &Mat3,
    face: BoxFace,
    margin: f32,
    id_salt: u32,
    scratch: &mut Scratch,
    out: &mut Manifold,
) {
    let t = inc_in_ref.translation;
    let k = face.axis;
    let mut n = Vec3::ZERO;
    n[k] = face.sign;
    let d = hr[k];
    // The normal in the incident box's frame: n · b_m = sign · R[k][m].
    let n_inc = rot.row(k) * face.sign;
    let abs_n = n_inc.abs();
    let m = if abs_n.x >= abs_n.y && abs_n.x >= abs_n.z {
        0
    } else if abs_n.y >= abs_n.z {
        1
    } else {
        2
    };
    let (m1, m2) = ((m + 1) % 3, (m + 2) % 3);
    // The incident face's outward normal is facing·b_m, against n.
    let facing = if n_inc[m] > 0.0 { -1.0 } else { 1.0 };
    let centre = t + rot.col(m) * (facing * hi[m]);
    let (u, v) = (rot.col(m1) * hi[m1], rot.col(m2) * hi[m2]);
    let corner_id = |su: f32, sv: f32| {
        let mut signs = Vec3::ZERO;
        signs[m] = facing;
        signs[m1] = su;
        signs[m2] = sv;
        corner_number(signs)
    };
    scratch.polygon.clear();
    for (su, sv) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
        scratch.polygon.push(ClipVertex {
            point: centre + u * su + v * sv,
            id: corner_id(su, sv),
        });
    }
    // The reference face's side planes: ±e_c at ±hr[c] for its two other axes.
    for c in [(k + 1) % 3, (k + 2) % 3] {
        for side in [1.0f32, -1.0] {
            let plane_id = 8 + face_number(c, side);
            clip_axis_polygon(
                &scratch.polygon,
                c,
                side,
                hr[c],
                plane_id,
                &mut scratch.clipped,
            );
            std::mem::swap(&mut scratch.polygon, &mut scratch.clipped);
        }
    }
    // The incident box's deepest corner along n.
    let corner = Vec3::select(n_inc.cmpgt(Vec3::ZERO), -hi, hi);
    let deepest_point = t + *rot * corner;
    let ids = FaceIds {
        salt: id_salt,
        reference: face_number(k, face.sign),
        incident: face_number(m, facing),
        deepest: corner_number(corner),
    };
    let views = (&PolyView::cuboid(hr), &PolyView::cuboid(hi));
    let push_bound = || box_push((hr, hi), t, rot, n);
    let plane = (n, d);
    finish_face_contact(
        views,
        inc_in_ref,
        plane,
        deepest_point,
        ids,
        push_bound,
        margin,
        scratch,
        out,
    );
}

/// How far the incident box (at `t`, rotation `rot`) must move along the unit `n` to stop
/// overlapping the reference box, both in the reference frame:
///
/// ```text
/// push = min over axes L with n·L ≠ 0 of (r_ref(L) + r_inc(L) − sign(n·L)·L·t) / |n·L|
/// ```
/// the interval of moves τ·n that still overlap along L ends there (`polytope::push_along`).
/// The 15 axes of the box SAT hold every facet normal of the two boxes' Minkowski difference,
/// so this is exact; skipping near-parallel edge pairs, as the SAT does, can only raise it.
fn box_push((hr, hi): (Vec3, Vec3), t: Vec3, rot: &Mat3, n: Vec3) -> f32 {
    // Axes this close to perpendicular to n bound the push by more than any shape here.
    const MIN_COSINE: f32 = 1.0e-4;
    let to_inc = rot.transpose();
    let bound = |l: Vec3| {
        let c = n.dot(l);
        if c.abs() <= MIN_COSINE {
            return f32::MAX;
        }
        let reach = hr.dot(l.abs()) + hi.dot((to_inc * l).abs());
        (reach - t.dot(l) * c.signum()) / c.abs()
    };
    let mut push = f32::MAX;
    for k in 0..3 {
        let mut e = Vec3::ZERO;
        e[k] = 1.0;
        push = push.min(bound(e)).min(bound(rot.col(k)));
        for m in 0..3 {
            let axis = e.cross(rot.col(m));
            let len = axis.length();
            if len >= PARALLEL_EPS {
                push = push.min(bound(axis / len));
            }
        }
    }
    push
}

/// One point at the closest points of the two supporting edges of axis a_i × b_j.
fn edge_contact(
    ha: Vec3,
    hb: Vec3,
    b_in_a: &Isometry,
    rot: &Mat3,
    edge: Query,
    out: &mut Manifold,
) {
    let (i, j) = (edge.index / 3, edge.index % 3);
    let mut axis_a = Vec3::ZERO;
    axis_a[i] = 1.0;
    let dir_b = rot.col(j);
    let mut normal = axis_a.cross(dir_b).normalize();
    if normal.dot(b_in_a.translation) < 0.0 {
        normal = -normal;
    }
    // Supporting edge of A along +normal: fix the two other coordinates at their extreme.
    let mut center_a = Vec3::ZERO;
    for k in 0..3 {
        if k != i {
            center_a[k] = ha[k].copysign(normal[k]);
        }
    }
    // Supporting edge of B along −normal, built in B's frame.
    let n_in_b = b_in_a.inverse_transform_vector(-normal);
    let mut center_b = Vec3::ZERO;
    let mut axis_b = Vec3::ZERO;
    axis_b[j] = 1.0;
    for k in 0..3 {
        if k != j {
            center_b[k] = hb[k].copysign(n_in_b[k]);
        }
    }
    let (pa, qa) = (center_a - axis_a * ha[i], center_a + axis_a * ha[i]);
    let pb = b_in_a.transform_point(center_b - axis_b * hb[j]);
    let qb = b_in_a.transform_point(center_b + axis_b * hb[j]);
    let (ca, cb) = closest_points_segment_segment(pa, qa, pb, qb);
    out.normal = normal;
    out.push(ManifoldPoint {
        point_a: ca,
        point_b: cb,
        depth: (ca - cb).dot(normal),
        id: feature_id(&[
            0xB0B0,
            edge.index as u32,
            corner_number(center_a),
            corner_number(center_b),
        ]),
    });
}

#[cfg(test)]
mod tests {
    use super::super::gjk::test_support::Lcg;
    use super::super::polytope::{face_contact, push_along};
    use super::*;
    use crate::physics::math::Quat;
    use std::f32::consts::FRAC_PI_2;

    fn collide(ha: Vec3, hb: Vec3, b_in_a: Isometry) -> Manifold {
        let mut m = Manifold::default();
        box_box(ha, hb, &b_in_a, 0.0, &mut Scratch::default(), &mut m);
        m
    }

    #[test]
    fn the_face_table_names_the_face_each_axis_points_out_of() {
        // The face found by searching the hull, for boxes of several shapes, and its plane:
        // normal sign·e_axis at distance half_extent[axis].
        for half in [
            Vec3::ONE,
            Vec3::new(0.5, 2.0, 0.1),
            Vec3::new(3.0, 0.2, 0.7),
        ] {
            let view = PolyView::cuboid(half);
            for axis in 0..3 {
                for sign in [-1.0f32, 1.0] {
                    let mut n = Vec3::ZERO;
                    n[axis] = sign;
                    let face = cuboid_face(axis, sign > 0.0);
                    assert_eq!(face, view.face_towards(n));
                    let (normal, offset) = view.face_plane(face);
                    assert!((normal - n).length() < 1e-6, "{normal} for {n}");
                    assert!((offset - half[axis]).abs() < 1e-6);
                }
            }
        }
    }

    #[test]
    fn a_reported_gap_keeps_the_boxes_apart_for_any_smaller_motion() {
        // The contact update skips the test of a pair whose last test reported `gap` while
        // B's points cannot have moved more than gap − margin since (`ManifoldCache::
        // remaining_gap`; motion bound |Δt| + 2·|Δq.xyz|·reach). Check against the test itself:
        // random boxes, random poses with a gap, random moves within the bound: no points.
        let margin = 0.02;
        let mut rng = Lcg(41);
        let (mut with_gap, mut moves) = (0, 0);
        for _ in 0..3000 {
            let (ha, hb) = (
                Vec3::new(
                    rng.range(0.1, 1.0),
                    rng.range(0.1, 1.0),
                    rng.range(0.1, 1.0),
                ),
                Vec3::new(
                    rng.range(0.1, 1.0),
                    rng.range(0.1, 1.0),
                    rng.range(0.1, 1.0),
                ),
            );
            let b_in_a = Isometry::new(rng.vec_in(2.0), rng.rotation());
            let tested = collide(ha, hb, b_in_a);
            let mut m = Manifold::default();
            box_box(ha, hb, &b_in_a, margin, &mut Scratch::default(), &mut m);
            if m.gap <= margin {
                continue;
            }
            assert_eq!(m.count, 0);
            assert_eq!(
                tested.count, 0,
                "apart by more than the margin: no points at 0"
            );
            with_gap += 1;
            moves +=
                rng.check_moves_within_gap(&b_in_a, (m.gap, margin, hb.length()), 10, |moved| {
                    let mut after = Manifold::default();
                    box_box(ha, hb, moved, margin, &mut Scratch::default(), &mut after);
                    after
                });
        }
        assert!(
            with_gap > 500 && moves > 3000,
            "{with_gap} gaps, {moves} moves"
        );
    }

    #[test]
    fn resting_boxes_give_four_points() {
        // Unit cube on unit cube, 0.01 deep: four corners of the top face, depth 0.01, normal +y.
        let m = collide(
            Vec3::splat(0.5),
            Vec3::splat(0.5),
            Isometry::from_translation(Vec3::new(0.0, 0.99, 0.0)),
        );
        assert_eq!(m.count, 4);
        assert!((m.normal - Vec3::Y).length() < 1e-6);
        for p in m.points() {
            assert!((p.depth - 0.01).abs() < 1e-5);
            assert!(
                (p.point_a.x.abs() - 0.5).abs() < 1e-5 && (p.point_a.z.abs() - 0.5).abs() < 1e-5
            );
        }
    }

    #[test]
    fn crossed_boxes_touch_edge_on_edge() {
        // Two long bars crossed at 90°, one turned 45° about its length so an edge faces down,
        // the other turned 45° so an edge faces up: they touch along the cross product of the
        // edges, x × z = −y, i.e. the normal is ±y.
        let h = Vec3::new(2.0, 0.5, 0.5);
        let a_rot = Quat::from_rotation_x(std::f32::consts::FRAC_PI_4);
        let b_rot =
            Quat::from_rotation_y(FRAC_PI_2) * Quat::from_rotation_x(std::f32::consts::FRAC_PI_4);
        // Each edge sits 0.5·√2 from its bar's axis; overlap by 0.01.
        let gap = 2.0 * 0.5 * std::f32::consts::SQRT_2 - 0.01;
        let pose_a = Isometry::new(Vec3::ZERO, a_rot);
        let pose_b = Isometry::new(Vec3::new(0.0, gap, 0.0), b_rot);
        let b_in_a = pose_a.inv_mul(&pose_b);
        let m = collide(h, h, b_in_a);
        assert_eq!(m.count, 1);
        let world_normal = a_rot * m.normal;
        assert!((world_normal - Vec3::Y).length() < 1e-4, "{world_normal}");
        assert!((m.points[0].depth - 0.01).abs() < 1e-4);
    }

    /// A box B placed on A's +y face with a random turn, a random lateral offset and a depth
    /// between 5 cm apart and 10 cm deep, with random sizes: (ha, hb, b_in_a).
    fn random_resting_pair(rng: &mut Lcg) -> (Vec3, Vec3, Isometry) {
        // Half extents in [0.2, 1.5] m.
        let ha = Vec3::splat(0.85) + rng.vec_in(0.65);
        let hb = Vec3::splat(0.85) + rng.vec_in(0.65);
        let rotation = rng.rotation();
        // B's lowest reach below its centre along y: Σ_m hb_m |b_m · y|.
        let reach = hb.dot(Mat3::from_quat(rotation).row(1).abs());
        let x = rng.range(-ha.x, ha.x);
        let z = rng.range(-ha.z, ha.z);
        let y = ha.y + reach - rng.range(-0.05, 0.1);
        (ha, hb, Isometry::new(Vec3::new(x, y, z), rotation))
    }

    #[test]
    fn box_face_clipping_gives_the_hull_face_clipping() {
        // Reference: polytope::face_contact on the two boxes as scaled unit-cube hulls, which
        // walks the hull's faces and edges; the box version must find the same points.
        let mut rng = Lcg(17);
        let mut compared = 0;
        for _ in 0..2000 {
            let (ha, hb, b_in_a) = random_resting_pair(&mut rng);
            let rot = Mat3::from_quat(b_in_a.rotation);
            let face = BoxFace { axis: 1, sign: 1.0 };
            let mut fast = Manifold::default();
            let mut scratch = Scratch::default();
            box_face_contact(
                (ha, hb),
                &b_in_a,
                &rot,
                face,
                0.1,
                0,
                &mut scratch,
                &mut fast,
            );
            let (view_a, view_b) = (PolyView::cuboid(ha), PolyView::cuboid(hb));
            let ref_face = view_a.face_towards(Vec3::Y);
            let mut hull = Manifold::default();
            face_contact(
                &view_a,
                &view_b,
                &b_in_a,
                ref_face,
                0.1,
                0,
                &mut scratch,
                &mut hull,
            );
            assert_eq!(fast.count, hull.count, "{ha} {hb} {b_in_a:?}");
            // The hull's normal is normalised from a scaled one (1 − 6e-8); the box's is exact.
            assert_eq!(fast.normal, Vec3::Y);
            assert!((hull.normal - Vec3::Y).length() < 1e-6);
            for p in fast.points() {
                // Same clipping up to rounding (the corners are placed by a matrix here and a
                // quaternion there): 1e-5 of the boxes' size.
                let q = hull
                    .points()
                    .iter()
                    .min_by(|q, r| {
                        let dq = q.point_b.distance(p.point_b);
                        dq.total_cmp(&r.point_b.distance(p.point_b))
                    })
                    .expect("same count");
                assert!(p.point_a.distance(q.point_a) < 1e-5, "{p:?} {q:?}");
                assert!(p.point_b.distance(q.point_b) < 1e-5, "{p:?} {q:?}");
                assert!((p.depth - q.depth).abs() < 1e-5, "{p:?} {q:?}");
            }
            compared += fast.count;
        }
        // Most pairs touch with several points (the test must not pass on empty manifolds).
        assert!(compared > 2000, "{compared} points compared");
    }

    #[test]
    fn box_push_is_the_exact_push_of_the_hull_search() {
        // Reference: polytope::push_along, which searches every face and Minkowski edge pair
        // of the two boxes as hulls. box_push bounds it from above and is exact for boxes.
        let mut rng = Lcg(23);
        for _ in 0..2000 {
            let (ha, hb, b_in_a) = random_resting_pair(&mut rng);
            let rot = Mat3::from_quat(b_in_a.rotation);
            let n = Vec3::Y;
            let fast = box_push((ha, hb), b_in_a.translation, &rot, n);
            let (view_a, view_b) = (PolyView::cuboid(ha), PolyView::cuboid(hb));
            let (exact, _, _) = push_along(&view_a, &view_b, &b_in_a, n, &mut Vec::new());
            assert!(
                (fast - exact).abs() < 1e-5,
                "{fast} vs {exact}: {ha} {hb} {b_in_a:?}"
            );
        }
    }

    #[test]
    fn separated_boxes_give_nothing() {
        let m = collide(
            Vec3::splat(0.5),
            Vec3::splat(0.5),
            Isometry::from_translation(Vec3::new(1.2, 0.0, 0.0)),
        );
        assert_eq!(m.count, 0);
    }

    #[test]
    fn a_cube_falling_onto_a_tilted_cube_gets_the_face_manifold() {
        // Two of pile4000's cubes (seed 9, after step 42): the upper one falls flat at
        // 6.9 m/s onto the lower one, which leans 0.9°; they are 4.5 cm apart and the
        // speculative margin is 0.14 m. The face pair is the contact, every corner of the
        // upper cube's bottom face a point. (The tolerances scaled the faces' positive
        // separation, which let an edge axis win: one point, the cube hit on it and spun,
        // and its other corners went 8 cm into the lower cube within the step.)
        let pose = |p: [f32; 3], q: [f32; 4]| {
            Isometry::new(Vec3::from_array(p), Quat::from_array(q).normalize())
        };
        let a = pose(
            [-8.456501, 1.5291137, -9.8881035],
            [0.0003345328, -2.2757938e-6, 0.008200232, 0.9999663],
        );
        let b = pose([-8.399671, 2.582245, -9.681628], [0.0, 0.0, 0.0, 1.0]);
        let mut m = Manifold::default();
        let half = Vec3::splat(0.5);
        box_box(
            half,
            half,
            &a.inv_mul(&b),
            0.14,
            &mut Scratch::default(),
            &mut m,
        );
        assert_eq!(m.count, 4, "{:?}", m.points());
        for p in m.points() {
            assert!((-0.08..-0.02).contains(&p.depth), "{:?}", m.points());
        }
    }
}
