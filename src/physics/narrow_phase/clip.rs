//! Polygon clipping and manifold reduction, shared by box-box and hull-hull contacts.

use super::{Manifold, ManifoldPoint, MAX_MANIFOLD_POINTS};
use crate::physics::constants::CLIP_PLANE_TOLERANCE;
use crate::physics::math::Vec3;

/// A polygon vertex with the feature id it came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipVertex {
    /// Position (in the frame of the clipping).
    pub point: Vec3,
    /// Feature id: an incident vertex, or an incident edge cut by a reference side plane.
    pub id: u32,
}

/// Mixes several small feature numbers into one id (deterministic, well spread).
pub fn feature_id(parts: &[u32]) -> u32 {
    parts.iter().fold(0x9E37_79B9u32, |h, &p| {
        (h ^ p.wrapping_mul(0x85EB_CA6B))
            .rotate_left(13)
            .wrapping_mul(5)
            .wrapping_add(0xE654_6B64)
    })
}

/// Sutherland–Hodgman: keeps the part of `input` where `normal · x <= offset`.
/// A vertex made by cutting edge (v_i → v_j) gets an id mixing v_i's id, v_j's id and
/// `plane_id`, so the same cut gets the same id next step.
///
/// A vertex within [`CLIP_PLANE_TOLERANCE`] of the plane (relative to the size of the
/// polygon) counts as on it and is kept as it is. Faces lying exactly on top of each other
/// (every aligned stack) put incident vertices on the side planes to within rounding; a
/// strict test would cut an edge that runs along a side plane at whatever parameter the
/// rounding noise gives, and the reduction could then keep that arbitrary point instead of
/// the corner, shifting the support polygon from step to step.
pub fn clip_polygon(
    input: &[ClipVertex],
    normal: Vec3,
    offset: f32,
    plane_id: u32,
    out: &mut Vec<ClipVertex>,
) {
    clip_by(input, |p| normal.dot(p) - offset, offset, plane_id, out);
}

/// [`clip_polygon`] for the plane `side · x[axis] <= offset` (`side` ±1): a box's side
/// plane in its own frame. The same vertices, ids and bits as `clip_polygon` with the normal
/// `side · e_axis` (whose dot product with a finite point is exactly `side · x[axis]`), with
/// one coordinate per vertex instead of a dot product.
pub fn clip_axis_polygon(
    input: &[ClipVertex],
    axis: usize,
    side: f32,
    offset: f32,
    plane_id: u32,
    out: &mut Vec<ClipVertex>,
) {
    clip_by(input, |p| side * p[axis] - offset, offset, plane_id, out);
}

/// The clipping of [`clip_polygon`], with `distance` each point's signed distance to the
/// plane (outside positive), computed once per vertex.
#[inline(always)]
fn clip_by(
    input: &[ClipVertex],
    distance: impl Fn(Vec3) -> f32,
    offset: f32,
    plane_id: u32,
    out: &mut Vec<ClipVertex>,
) {
    out.clear();
    let Some(&last) = input.last() else {
        return;
    };
    // `f32::max`'s NaN rule costs three instructions per use; the points here are finite
    // (the world freezes a body before a non-finite pose reaches the narrow phase), and for
    // finite numbers this is the same maximum.
    let max = |a: f32, b: f32| if a > b { a } else { b };
    let size = input.iter().fold(offset.abs(), |size, v| {
        let a = v.point.abs();
        max(size, max(max(a.x, a.y), a.z))
    });
    let tolerance = CLIP_PLANE_TOLERANCE * size;
    let mut prev = last;
    let mut prev_dist = distance(prev.point);
    let mut prev_inside = prev_dist <= tolerance;
    for &cur in input {
        let cur_dist = distance(cur.point);
        let cur_inside = cur_dist <= tolerance;
        if prev_inside != cur_inside {
            // The edge crosses the plane (one end clearly outside): add the crossing point.
            let t = prev_dist / (prev_dist - cur_dist);
            out.push(ClipVertex {
                point: prev.point + (cur.point - prev.point) * t.clamp(0.0, 1.0),
                id: feature_id(&[prev.id, cur.id, plane_id]),
            });
        }
        if cur_inside {
            out.push(cur);
        }
        prev = cur;
        prev_dist = cur_dist;
        prev_inside = cur_inside;
    }
}

/// Reduces `points` (all sharing `normal`) to at most four that keep the contact area:
/// the deepest point, the point farthest from it, the point making the largest triangle
/// with those two, and the point farthest outside that triangle.
pub fn reduce_into(points: &[ManifoldPoint], normal: Vec3, out: &mut Manifold) {
    out.normal = normal;
    out.count = 0;
    if points.len() <= MAX_MANIFOLD_POINTS {
        for &p in points {
            out.push(p);
        }
        return;
    }
    let pos = |i: usize| points[i].point_b;
    let first = (0..points.len())
        .max_by(|&i, &j| points[i].depth.total_cmp(&points[j].depth))
        .unwrap_or(0);
    let second = argmax(points.len(), |i| (pos(i) - pos(first)).length_squared());
    let area = |i: usize| {
        (pos(second) - pos(first))
            .cross(pos(i) - pos(first))
            .dot(normal)
    };
    let third_signed = argmax(points.len(), |i| area(i).abs());
    // Orient the triangle counter-clockwise about the normal.
    let (a, b, c) = if area(third_signed) >= 0.0 {
        (first, second, third_signed)
    } else {
        (second, first, third_signed)
    };
    // Area added by a point outside the triangle: the largest outward distance over its edges.
    let outside = |i: usize| {
        [(a, b), (b, c), (c, a)]
            .iter()
            .map(|&(u, v)| -(pos(v) - pos(u)).cross(pos(i) - pos(u)).dot(normal))
            .fold(f32::MIN, f32::max)
    };
    let fourth = argmax(points.len(), outside);
    for i in [first, second, third_signed] {
        out.push(points[i]);
    }
    if outside(fourth) > 0.0 {
        out.push(points[fourth]);
    }
}

/// Index in `0..n` with the largest key (the first one on ties).
fn argmax(n: usize, key: impl Fn(usize) -> f32) -> usize {
    let mut best = 0;
    let mut best_key = f32::MIN;
    for i in 0..n {
        let k = key(i);
        if k > best_key {
            best_key = k;
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(half: f32) -> Vec<ClipVertex> {
        [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .iter()
            .enumerate()
            .map(|(i, &(x, z))| ClipVertex {
                point: Vec3::new(x * half, 0.0, z * half),
                id: i as u32,
            })
            .collect()
    }

    #[test]
    fn clipping_a_square_by_a_plane_halves_it() {
        let mut out = Vec::new();
        clip_polygon(&square(1.0), Vec3::X, 0.0, 7, &mut out);
        // Keeps x <= 0: two original corners and two cut points at x = 0.
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|v| v.point.x <= 1e-6));
        assert_eq!(out.iter().filter(|v| v.point.x.abs() < 1e-6).count(), 2);
        // The same cut gives the same ids.
        let mut again = Vec::new();
        clip_polygon(&square(1.0), Vec3::X, 0.0, 7, &mut again);
        assert_eq!(out, again);
    }

    #[test]
    fn an_edge_lying_on_the_plane_is_not_cut() {
        // The square's edge x = 1 lies on the plane x = 1 up to rounding noise (±1e-7, as when
        // two boxes' faces sit exactly on top of each other). The clip must keep exactly the
        // four corners: a strict test would cut that edge at whatever parameter the noise
        // gives and add a point in the middle of it.
        let mut square = square(1.0);
        square[1].point.x += 1.0e-7;
        square[2].point.x -= 1.0e-7;
        let mut out = Vec::new();
        clip_polygon(&square, Vec3::X, 1.0, 7, &mut out);
        assert_eq!(out.len(), 4);
        assert_eq!(
            out.iter().map(|v| v.id).collect::<Vec<_>>(),
            vec![0, 1, 2, 3],
            "the corners, unchanged"
        );
    }

    #[test]
    fn reduction_keeps_the_corners_of_an_octagon() {
        // Eight points on a circle: the reduced four must span a large area (> half the octagon's).
        let points: Vec<ManifoldPoint> = (0..8)
            .map(|i| {
                let a = i as f32 * std::f32::consts::TAU / 8.0;
                let p = Vec3::new(a.cos(), 0.0, a.sin());
                ManifoldPoint {
                    point_a: p,
                    point_b: p,
                    depth: 0.01 * i as f32,
                    id: i,
                }
            })
            .collect();
        let mut m = Manifold::default();
        reduce_into(&points, Vec3::Y, &mut m);
        assert_eq!(m.count, 4);
        // The deepest point (i = 7) is kept.
        assert!(m.points().iter().any(|p| p.id == 7));
        // Quadrilateral area by the shoelace formula in x-z, after sorting by angle.
        let mut pts: Vec<Vec3> = m.points().iter().map(|p| p.point_b).collect();
        pts.sort_by(|a, b| a.z.atan2(a.x).total_cmp(&b.z.atan2(b.x)));
        let area: f32 = (0..4)
            .map(|i| {
                let (p, q) = (pts[i], pts[(i + 1) % 4]);
                0.5 * (p.x * q.z - q.x * p.z)
            })
            .sum();
        // Regular octagon of radius 1 has area 2√2 ≈ 2.83; the best inscribed quad has area 2.
        assert!(area > 1.9, "area {area}");
    }
}
