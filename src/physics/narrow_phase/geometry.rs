//! Closest points between points and segments: the building blocks of capsule contacts.
//!
//! Both queries minimise a squared distance that is quadratic in the segment parameters, then clamp
//! the parameters to the segments (Ericson, "Real-Time Collision Detection", 5.1.2 and 5.1.9).

use crate::physics::constants::PARALLEL_SINE_TOLERANCE;
use crate::physics::math::Vec3;

/// The point of segment `a`–`b` closest to `p`. A segment of zero length is the point `a`.
///
/// Points on the segment are `a + t·(b − a)` with `t ∈ [0, 1]`; the squared distance to `p` is
/// smallest at `t = (p − a)·(b − a) / |b − a|²` (Ericson 5.1.2), clamped to the segment.
pub fn closest_point_on_segment(p: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let ab = b - a;
    let length_squared = ab.length_squared();
    if length_squared <= f32::MIN_POSITIVE {
        return a;
    }
    let t = ((p - a).dot(ab) / length_squared).clamp(0.0, 1.0);
    a + ab * t
}

/// The closest pair of points between segments `p1`–`q1` and `p2`–`q2`: `(c1, c2)` with `c1` on the
/// first and `c2` on the second. Parallel segments have many closest pairs; this one is taken at the
/// middle of the overlap of their projections, which keeps capsule contacts centred. Segments of
/// zero length are treated as points.
///
/// With `c1 = p1 + s·d1`, `c2 = p2 + t·d2` and `r = p1 − p2`, the squared distance
/// `|r + s·d1 − t·d2|²` is minimised where both partial derivatives vanish (Ericson 5.1.9):
///
/// ```text
/// a·s − b·t = −c      a = d1·d1, b = d1·d2, c = d1·r
/// b·s − e·t = −f      e = d2·d2, f = d2·r
/// ```
///
/// The determinant `a·e − b²` equals `|d1 × d2|²`, computed here from the cross product (no
/// cancellation for nearly parallel segments). If the solution leaves `[0, 1]²`, `t` is clamped
/// and `s` recomputed for the clamped `t`, which gives the constrained minimum for a convex quadratic.
pub fn closest_points_segment_segment(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> (Vec3, Vec3) {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let first_is_point = a <= f32::MIN_POSITIVE;
    let second_is_point = e <= f32::MIN_POSITIVE;
    match (first_is_point, second_is_point) {
        (true, true) => (p1, p2),
        (true, false) => (p1, closest_point_on_segment(p1, p2, q2)),
        (false, true) => (closest_point_on_segment(p2, p1, q1), p2),
        (false, false) => {
            let (s, t) = segment_parameters(d1, d2, p1 - p2);
            (p1 + d1 * s, p2 + d2 * t)
        }
    }
}

/// Parameters `(s, t)` of the closest points for two proper segments (see
/// [`closest_points_segment_segment`]); `r = p1 − p2`.
fn segment_parameters(d1: Vec3, d2: Vec3, r: Vec3) -> (f32, f32) {
    let a = d1.length_squared();
    let e = d2.length_squared();
    let b = d1.dot(d2);
    let c = d1.dot(r);
    let f = d2.dot(r);
    let normal = d1.cross(d2);
    let determinant = normal.length_squared();
    let parallel_limit = PARALLEL_SINE_TOLERANCE * PARALLEL_SINE_TOLERANCE * a * e;
    // An infinite determinant means f32 overflowed on absurd coordinates: fall back to the
    // parallel rule rather than divide infinity by infinity.
    let s = if determinant > parallel_limit && determinant.is_finite() {
        // Cramer's rule: s = (b·f − c·e) / (a·e − b²), where the numerator is the triple
        // product (d1 × d2)·(d2 × r) by the Binet–Cauchy identity.
        (normal.dot(d2.cross(r)) / determinant).clamp(0.0, 1.0)
    } else {
        parallel_overlap_middle(a, b, c)
    };
    // The point of line 2 closest to p1 + s·d1: t = (r + s·d1)·d2 / e.
    let t = (b * s + f) / e;
    if t < 0.0 {
        // Clamped to p2: s for the point of segment 1 closest to p2 is −c / a.
        ((-c / a).clamp(0.0, 1.0), 0.0)
    } else if t > 1.0 {
        // Clamped to q2 = p2 + d2: s = (q2 − p1)·d1 / a = (b − c) / a.
        (((b - c) / a).clamp(0.0, 1.0), 1.0)
    } else {
        (s, t)
    }
}

/// For parallel segments: the parameter on segment 1 at the middle of the part of it covered by
/// the projection of segment 2 (whose ends project to `s = −c/a` and `s = (b − c)/a`). When they do
/// not overlap this is the end of segment 1 nearer to segment 2.
fn parallel_overlap_middle(a: f32, b: f32, c: f32) -> f32 {
    let s_p2 = (-c / a).clamp(0.0, 1.0);
    let s_q2 = ((b - c) / a).clamp(0.0, 1.0);
    0.5 * (s_p2 + s_q2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::math::is_finite_vec;

    const TOLERANCE: f32 = 1e-5;

    /// A tiny deterministic linear congruential generator (Knuth's MMIX constants).
    struct Lcg(u64);

    impl Lcg {
        fn next_f32(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        fn vec_in(&mut self, half: f32) -> Vec3 {
            Vec3::new(self.next_f32(), self.next_f32(), self.next_f32()) * (2.0 * half)
                - Vec3::splat(half)
        }
    }

    /// Smallest distance between the segments over a dense grid of parameters: an upper bound on
    /// the true minimum that is within `|d|/steps` of it.
    fn sampled_distance(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3, steps: usize) -> f32 {
        let mut best = f32::INFINITY;
        for i in 0..=steps {
            let c1 = p1.lerp(q1, i as f32 / steps as f32);
            best = best.min((closest_point_on_segment(c1, p2, q2) - c1).length());
        }
        best
    }

    #[test]
    fn point_projects_inside_segment() {
        // p = (0.3, 2, 0) above the segment (0,0,0)–(1,0,0): closest point (0.3, 0, 0).
        let c = closest_point_on_segment(Vec3::new(0.3, 2.0, 0.0), Vec3::ZERO, Vec3::X);
        assert!((c - Vec3::new(0.3, 0.0, 0.0)).length() < TOLERANCE);
    }

    #[test]
    fn point_beyond_an_end_clamps_to_it() {
        // t = (p − a)·(b − a)/|b − a|² = −2 < 0: the closest point is a; t = 3 > 1: it is b.
        assert_eq!(
            closest_point_on_segment(Vec3::new(-2.0, 1.0, 0.0), Vec3::ZERO, Vec3::X),
            Vec3::ZERO
        );
        assert_eq!(
            closest_point_on_segment(Vec3::new(3.0, 0.0, 1.0), Vec3::ZERO, Vec3::X),
            Vec3::X
        );
    }

    #[test]
    fn zero_length_segment_is_its_point() {
        let a = Vec3::new(1.0, 2.0, 3.0);
        assert_eq!(closest_point_on_segment(Vec3::ZERO, a, a), a);
    }

    #[test]
    fn skew_segments_meet_at_the_common_perpendicular() {
        // Segment 1 along x at z = 0, segment 2 along y at z = 1, crossing above (0.25, 0.5):
        // closest points (0.25, 0.5, 0) and (0.25, 0.5, 1), distance 1.
        let (c1, c2) = closest_points_segment_segment(
            Vec3::new(-1.0, 0.5, 0.0),
            Vec3::new(1.0, 0.5, 0.0),
            Vec3::new(0.25, -1.0, 1.0),
            Vec3::new(0.25, 2.0, 1.0),
        );
        assert!((c1 - Vec3::new(0.25, 0.5, 0.0)).length() < TOLERANCE);
        assert!((c2 - Vec3::new(0.25, 0.5, 1.0)).length() < TOLERANCE);
    }

    #[test]
    fn parallel_overlapping_segments_meet_in_the_middle_of_the_overlap() {
        // x ∈ [0, 2] at y = 0 and x ∈ [1, 4] at y = 1: overlap x ∈ [1, 2], middle x = 1.5,
        // distance 1.
        let (c1, c2) = closest_points_segment_segment(
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(4.0, 1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
        );
        assert!((c1 - Vec3::new(1.5, 0.0, 0.0)).length() < TOLERANCE, "{c1}");
        assert!((c2 - Vec3::new(1.5, 1.0, 0.0)).length() < TOLERANCE, "{c2}");
    }

    #[test]
    fn parallel_disjoint_segments_meet_at_the_nearest_ends() {
        // x ∈ [0, 1] and x ∈ [3, 5], both at y = 0 (collinear): closest ends (1,0,0), (3,0,0).
        let (c1, c2) = closest_points_segment_segment(
            Vec3::ZERO,
            Vec3::X,
            Vec3::new(3.0, 0.0, 0.0),
            Vec3::new(5.0, 0.0, 0.0),
        );
        assert!((c1 - Vec3::X).length() < TOLERANCE);
        assert!((c2 - Vec3::new(3.0, 0.0, 0.0)).length() < TOLERANCE);
    }

    #[test]
    fn degenerate_segments_reduce_to_point_queries() {
        let p = Vec3::new(0.5, 1.0, 0.0);
        // Point vs segment x ∈ [0, 1]: closest (0.5, 0, 0).
        let (c1, c2) = closest_points_segment_segment(p, p, Vec3::ZERO, Vec3::X);
        assert_eq!(c1, p);
        assert!((c2 - Vec3::new(0.5, 0.0, 0.0)).length() < TOLERANCE);
        let (c1, c2) = closest_points_segment_segment(Vec3::ZERO, Vec3::X, p, p);
        assert!((c1 - Vec3::new(0.5, 0.0, 0.0)).length() < TOLERANCE);
        assert_eq!(c2, p);
        assert_eq!(
            closest_points_segment_segment(p, p, Vec3::ZERO, Vec3::ZERO),
            (p, Vec3::ZERO)
        );
    }

    #[test]
    fn random_segments_match_dense_sampling() {
        let mut rng = Lcg(7);
        for _ in 0..300 {
            let (p1, q1, p2, q2) = (
                rng.vec_in(1.0),
                rng.vec_in(1.0),
                rng.vec_in(1.0),
                rng.vec_in(1.0),
            );
            let (c1, c2) = closest_points_segment_segment(p1, q1, p2, q2);
            // Both points lie on their segments: projecting onto the segment changes nothing.
            assert!((closest_point_on_segment(c1, p1, q1) - c1).length() < 1e-5);
            assert!((closest_point_on_segment(c2, p2, q2) - c2).length() < 1e-5);
            // No sampled pair is closer: sampling with 4000 steps errs by at most |d1|/4000.
            let distance = (c2 - c1).length();
            let sampled = sampled_distance(p1, q1, p2, q2, 4000);
            assert!(distance <= sampled + 1e-5, "{distance} vs {sampled}");
            assert!(sampled - distance <= (q1 - p1).length() / 4000.0 + 1e-5);
        }
    }

    #[test]
    fn nearly_parallel_segments_stay_accurate() {
        // Two unit segments at y = 0 and y = 1 whose angle is 1e-6 rad: distance 1 within 1e-5.
        let (c1, c2) = closest_points_segment_segment(
            Vec3::ZERO,
            Vec3::X,
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(1.0, 1.0 + 1e-6, 0.0),
        );
        assert!(((c2 - c1).length() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn extreme_inputs_never_produce_nan() {
        let values = [0.0, 1e-30, -1e-30, 1e-20, 1.0, 1e10, -1e10];
        for &x in &values {
            for &y in &values {
                let p1 = Vec3::new(x, 0.0, 0.0);
                let q1 = Vec3::new(x, y, 0.0);
                let p2 = Vec3::new(0.0, y, x);
                let q2 = Vec3::new(y, y, x);
                let (c1, c2) = closest_points_segment_segment(p1, q1, p2, q2);
                assert!(is_finite_vec(c1) && is_finite_vec(c2), "{x} {y} {c1} {c2}");
                assert!(is_finite_vec(closest_point_on_segment(p1, q1, p2)));
            }
        }
    }
}
