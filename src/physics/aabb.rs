//! Axis-aligned bounding boxes.

use super::math::{Isometry, Vec3};

/// An axis-aligned box given by its minimum and maximum corners.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Corner with the smallest coordinates.
    pub min: Vec3,
    /// Corner with the largest coordinates.
    pub max: Vec3,
}

impl Aabb {
    /// A box from its two corners.
    pub fn new(min: Vec3, max: Vec3) -> Self {
        Self { min, max }
    }

    /// A box centred on `center` with half extents `half`.
    pub fn from_center_half_extents(center: Vec3, half: Vec3) -> Self {
        Self::new(center - half, center + half)
    }

    /// The smallest box containing all `points` (`None` when there are none).
    pub fn from_points(points: impl IntoIterator<Item = Vec3>) -> Option<Self> {
        let mut it = points.into_iter();
        let first = it.next()?;
        Some(it.fold(Self::new(first, first), |b, p| {
            Self::new(b.min.min(p), b.max.max(p))
        }))
    }

    /// The smallest box containing both.
    #[inline]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb::new(self.min.min(other.min), self.max.max(other.max))
    }

    /// True when the boxes overlap or touch.
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.x <= other.max.x
            && self.max.x >= other.min.x
            && self.min.y <= other.max.y
            && self.max.y >= other.min.y
            && self.min.z <= other.max.z
            && self.max.z >= other.min.z
    }

    /// True when `other` lies entirely inside this box.
    #[inline]
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min.x <= other.min.x
            && self.min.y <= other.min.y
            && self.min.z <= other.min.z
            && other.max.x <= self.max.x
            && other.max.y <= self.max.y
            && other.max.z <= self.max.z
    }

    /// True when the point lies inside or on the box.
    #[inline]
    pub fn contains_point(&self, p: Vec3) -> bool {
        p.cmpge(self.min).all() && p.cmple(self.max).all()
    }

    /// The box grown by `margin` on every side.
    #[inline]
    pub fn expanded(&self, margin: f32) -> Aabb {
        Aabb::new(
            self.min - Vec3::splat(margin),
            self.max + Vec3::splat(margin),
        )
    }

    /// Surface area (the cost measure of the dynamic tree's SAH).
    #[inline]
    pub fn surface_area(&self) -> f32 {
        let d = self.max - self.min;
        2.0 * (d.x * d.y + d.y * d.z + d.z * d.x)
    }

    /// The centre point.
    #[inline]
    pub fn center(&self) -> Vec3 {
        0.5 * (self.min + self.max)
    }

    /// Half the size along each axis.
    #[inline]
    pub fn half_extents(&self) -> Vec3 {
        0.5 * (self.max - self.min)
    }

    /// The box of this local box after a rigid transform (Arvo's method on centre/extents).
    pub fn transformed(&self, iso: &Isometry) -> Aabb {
        let center = iso.transform_point(self.center());
        Aabb::from_center_half_extents(center, rotated_half_extents(iso, self.half_extents()))
    }

    /// Slab test: the entry fraction `t` in `[0, max_t]` of the ray `origin + t * dir`, if it hits.
    pub fn ray_intersection(&self, origin: Vec3, dir: Vec3, max_t: f32) -> Option<f32> {
        let mut t_min = 0.0f32;
        let mut t_max = max_t;
        for axis in 0..3 {
            let o = origin[axis];
            let d = dir[axis];
            if d.abs() < 1e-12 {
                if o < self.min[axis] || o > self.max[axis] {
                    return None;
                }
            } else {
                let inv = 1.0 / d;
                let mut t1 = (self.min[axis] - o) * inv;
                let mut t2 = (self.max[axis] - o) * inv;
                if t1 > t2 {
                    std::mem::swap(&mut t1, &mut t2);
                }
                t_min = t_min.max(t1);
                t_max = t_max.min(t2);
                if t_min > t_max {
                    return None;
                }
            }
        }
        Some(t_min)
    }
}

/// The half extents of the box that bounds a box of half extents `h` turned by `iso`'s
/// rotation R: |R|·h, row by row.
#[inline]
pub fn rotated_half_extents(iso: &Isometry, h: Vec3) -> Vec3 {
    let m = glam::Mat3::from_quat(iso.rotation);
    Vec3::new(
        m.row(0).abs().dot(h),
        m.row(1).abs().dot(h),
        m.row(2).abs().dot(h),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    #[test]
    fn overlap_and_contain() {
        let a = Aabb::new(Vec3::ZERO, Vec3::ONE);
        let b = Aabb::new(Vec3::splat(0.5), Vec3::splat(2.0));
        let c = Aabb::new(Vec3::splat(1.5), Vec3::splat(2.0));
        assert!(a.overlaps(&b) && !a.overlaps(&c));
        assert!(a.union(&c).contains(&b));
        // Surface area of the unit cube: 6 faces of area 1.
        assert_eq!(a.surface_area(), 6.0);
    }

    #[test]
    fn transformed_box_is_tight_for_45_degrees() {
        // A unit cube (half 0.5) turned 45° about y spans ±0.5·√2 in x and z.
        let a = Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(0.5));
        let iso = Isometry::new(Vec3::X, Quat::from_rotation_y(std::f32::consts::FRAC_PI_4));
        let t = a.transformed(&iso);
        let h = 0.5 * std::f32::consts::SQRT_2;
        assert!((t.max.x - (1.0 + h)).abs() < 1e-5);
        assert!((t.max.z - h).abs() < 1e-5);
        assert!((t.max.y - 0.5).abs() < 1e-5);
    }

    #[test]
    fn ray_hits_box_at_entry() {
        let a = Aabb::new(Vec3::splat(-1.0), Vec3::splat(1.0));
        let t = a.ray_intersection(Vec3::new(-5.0, 0.0, 0.0), Vec3::X, 100.0);
        assert_eq!(t, Some(4.0));
        assert_eq!(
            a.ray_intersection(Vec3::new(-5.0, 2.0, 0.0), Vec3::X, 100.0),
            None
        );
    }
}
