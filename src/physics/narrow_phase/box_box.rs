//! Box–box contacts: the separating axis test over all 15 axes, then face clipping or an
//! edge–edge point (Gottschalk 1996; Ericson, "Real-Time Collision Detection" 4.4.1;
//! Gregorius GDC 2015 for the feature choice). Seed 001 tested face normals only, which
//! misses edge-on-edge contacts; the nine cross products are what catch them.
//!
//! ```text
//! in A's frame: t = centre of B, R[i][j] = a_i · b_j
//! face of A (axis a_i):   sep = |t_i| − ha_i − Σ_j hb_j |R[i][j]|
//! face of B (axis b_j):   sep = |t · b_j| − Σ_i ha_i |R[i][j]| − hb_j
//! edge (a_i × b_j):       sep = (|t_i2 R[i1][j] − t_i1 R[i2][j]|
//!                                − ha_i1 |R[i2][j]| − ha_i2 |R[i1][j]|
//!                                − hb_j1 |R[i][j2]| − hb_j2 |R[i][j1]|) / |a_i × b_j|
//! ```

use super::clip::feature_id;
use super::geometry::closest_points_segment_segment;
use super::polytope::{face_fallback, FaceQueries, PolyView};
use super::{Manifold, ManifoldPoint, Scratch};
use crate::physics::constants::{
    SAT_ABSOLUTE_TOLERANCE as ABS_TOL, SAT_EDGE_RELATIVE_TOLERANCE as EDGE_REL_TOL,
    SAT_FACE_RELATIVE_TOLERANCE as FACE_REL_TOL, SAT_PARALLEL_SINE as PARALLEL_EPS,
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
                return;
            }
            edge.offer(sep, 3 * i + j);
        }
    }

    let best_face = face_a.separation.max(face_b.separation);
    if edge.separation > EDGE_REL_TOL * best_face + ABS_TOL && edge.separation > best_face {
        edge_contact(ha, hb, b_in_a, &rot, edge, out);
        return;
    }
    let view_a = PolyView::cuboid(ha);
    let view_b = PolyView::cuboid(hb);
    // Reference face of A facing B, and of B facing A (A's centre in B's frame is −Rᵀt).
    let (i, j) = (face_a.index, face_b.index);
    let mut n_a = Vec3::ZERO;
    n_a[i] = if t[i] >= 0.0 { 1.0 } else { -1.0 };
    let mut n_b = Vec3::ZERO;
    n_b[j] = if t.dot(rot.col(j)) > 0.0 { -1.0 } else { 1.0 };
    let faces = FaceQueries {
        a: (face_a.separation, view_a.face_towards(n_a)),
        b: (face_b.separation, view_b.face_towards(n_b)),
        prefer_b: face_b.separation > FACE_REL_TOL * face_a.separation + ABS_TOL,
    };
    // The edge contact is a fallback when both faces clip to nothing (see polytope.rs).
    let edge_fallback = (edge.separation > f32::MIN)
        .then_some((edge.separation, |out: &mut Manifold| {
            edge_contact(ha, hb, b_in_a, &rot, edge, out)
        }));
    face_fallback(
        &view_a,
        &view_b,
        b_in_a,
        faces,
        edge_fallback,
        margin,
        scratch,
        out,
    );
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
    let sign_bits =
        |v: Vec3| (v.x > 0.0) as u32 | ((v.y > 0.0) as u32) << 1 | ((v.z > 0.0) as u32) << 2;
    out.push(ManifoldPoint {
        point_a: ca,
        point_b: cb,
        depth: (ca - cb).dot(normal),
        id: feature_id(&[
            0xB0B0,
            edge.index as u32,
            sign_bits(center_a),
            sign_bits(center_b),
        ]),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::math::Quat;
    use std::f32::consts::FRAC_PI_2;

    fn collide(ha: Vec3, hb: Vec3, b_in_a: Isometry) -> Manifold {
        let mut m = Manifold::default();
        box_box(ha, hb, &b_in_a, 0.0, &mut Scratch::default(), &mut m);
        m
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

    #[test]
    fn separated_boxes_give_nothing() {
        let m = collide(
            Vec3::splat(0.5),
            Vec3::splat(0.5),
            Isometry::from_translation(Vec3::new(1.2, 0.0, 0.0)),
        );
        assert_eq!(m.count, 0);
    }
}
