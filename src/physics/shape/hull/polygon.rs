//! Polygon measures shared by face merging and validation.

use glam::DVec3;

/// Twice the area vector of a closed polygon, by Newell's method (Tampieri, "Newell's Method
/// for Computing the Plane Equation of a Polygon", Graphics Gems III): Σ (pᵢ − p₀) × (pᵢ₊₁ − p₀).
/// Exact for planar polygons, a best-fit direction for nearly planar ones, and unlike a single
/// cross product it does not depend on which corners are picked.
pub(super) fn newell_normal(polygon: impl Iterator<Item = DVec3>) -> DVec3 {
    let points: Vec<DVec3> = polygon.collect();
    let Some(&origin) = points.first() else {
        return DVec3::ZERO;
    };
    let mut sum = DVec3::ZERO;
    for i in 1..points.len().saturating_sub(1) {
        sum += (points[i] - origin).cross(points[i + 1] - origin);
    }
    sum
}

/// For each corner b of a polygon, between a and c: its signed distance outside the chord a–c,
/// ((b − a) × (c − b)) · n / |c − a|, positive when convex, near 0 when straight, negative when
/// reflex (−∞ if a = c). Also the total turning angle: 2π for a convex polygon, while a star
/// or a loop wound twice turns more.
pub(super) fn corner_bulges(corners: &[DVec3], normal: DVec3) -> (Vec<f64>, f64) {
    let k = corners.len();
    let mut turning = 0.0;
    let bulges = (0..k)
        .map(|i| {
            let (a, b, c) = (corners[(i + k - 1) % k], corners[i], corners[(i + 1) % k]);
            let (incoming, outgoing) = (b - a, c - b);
            let left = incoming.cross(outgoing).dot(normal);
            turning += left.atan2(incoming.dot(outgoing));
            let chord = (c - a).length();
            if chord > 0.0 {
                left / chord
            } else {
                f64::NEG_INFINITY
            }
        })
        .collect();
    (bulges, turning)
}
