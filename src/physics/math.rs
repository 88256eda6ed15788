//! Small math helpers on top of glam: rigid transforms and orthonormal bases.

pub use glam::{Mat3, Quat, Vec3};

/// A rigid transform: rotate, then translate. Maps local points to the parent frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Isometry {
    /// Where the local origin lands in the parent frame.
    pub translation: Vec3,
    /// Orientation of the local axes in the parent frame (unit quaternion).
    pub rotation: Quat,
}

impl Default for Isometry {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Isometry {
    /// The transform that changes nothing.
    pub const IDENTITY: Isometry = Isometry {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
    };

    /// A transform from a translation and a rotation.
    pub fn new(translation: Vec3, rotation: Quat) -> Self {
        Self {
            translation,
            rotation,
        }
    }

    /// A pure translation.
    pub fn from_translation(translation: Vec3) -> Self {
        Self::new(translation, Quat::IDENTITY)
    }

    /// Maps a local point into the parent frame.
    #[inline]
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    /// Maps a local direction into the parent frame (no translation).
    #[inline]
    pub fn transform_vector(&self, v: Vec3) -> Vec3 {
        self.rotation * v
    }

    /// Maps a parent-frame point into the local frame.
    #[inline]
    pub fn inverse_transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation.inverse() * (p - self.translation)
    }

    /// Maps a parent-frame direction into the local frame.
    #[inline]
    pub fn inverse_transform_vector(&self, v: Vec3) -> Vec3 {
        self.rotation.inverse() * v
    }

    /// The transform that undoes this one.
    pub fn inverse(&self) -> Self {
        let inv = self.rotation.inverse();
        Self::new(inv * -self.translation, inv)
    }

    /// `self * other`: apply `other` first, then `self`.
    pub fn mul(&self, other: &Isometry) -> Self {
        Self::new(
            self.transform_point(other.translation),
            (self.rotation * other.rotation).normalize(),
        )
    }

    /// `self⁻¹ * other`: `other` expressed in this transform's local frame.
    #[inline]
    pub fn inv_mul(&self, other: &Isometry) -> Self {
        let inv = self.rotation.inverse();
        Self::new(
            inv * (other.translation - self.translation),
            (inv * other.rotation).normalize(),
        )
    }
}

/// Two unit vectors that complete `n` (unit) into a right-handed orthonormal basis.
/// Branch-free construction of Duff et al., "Building an Orthonormal Basis, Revisited" (2017).
#[inline]
pub fn orthonormal_basis(n: Vec3) -> (Vec3, Vec3) {
    let sign = 1.0f32.copysign(n.z);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    (
        Vec3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x),
        Vec3::new(b, sign + n.y * n.y * a, -n.y),
    )
}

/// The matrix of `v × (.)`, so that `skew(v) * w == v.cross(w)`.
#[inline]
pub fn skew(v: Vec3) -> Mat3 {
    Mat3::from_cols(
        Vec3::new(0.0, v.z, -v.y),
        Vec3::new(-v.z, 0.0, v.x),
        Vec3::new(v.y, -v.x, 0.0),
    )
}

/// True when every component is finite (no NaN, no infinity).
#[inline]
pub fn is_finite_vec(v: Vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

/// A rotation quaternion made unit length without overflow or underflow: divided by its
/// largest component first, so `Quat(1e20, 0, 0, 1e20)` gives the quarter turn about x it
/// means (its `length_squared` alone would be infinite). `None` when a component is not
/// finite or all are zero.
pub fn unit_rotation(q: Quat) -> Option<Quat> {
    if !q.is_finite() {
        return None;
    }
    let largest = q.to_array().into_iter().fold(0.0f32, |m, c| m.max(c.abs()));
    if largest == 0.0 {
        return None;
    }
    // Components now within [-1, 1] with one of magnitude 1: the length is in [1, 2].
    let scaled = Quat::from_array(q.to_array().map(|c| c / largest));
    Some(scaled.normalize())
}

/// Can `q` be made a rotation ([`unit_rotation`])?
pub fn is_usable_rotation(q: Quat) -> bool {
    unit_rotation(q).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_and_tiny_quaternions_normalize_to_the_rotation_they_mean() {
        // (1, 0, 0, 1)/√2 is a quarter turn about x; scaling by any positive factor keeps it.
        let expected = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
        for scale in [1e20f32, 1.0, 1e-20, 1e-40] {
            let q = unit_rotation(Quat::from_xyzw(scale, 0.0, 0.0, scale)).unwrap();
            assert!(q.abs_diff_eq(expected, 1e-6), "scale {scale}: {q}");
        }
        assert_eq!(unit_rotation(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)), None);
        assert_eq!(
            unit_rotation(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0)),
            None
        );
        assert_eq!(
            unit_rotation(Quat::from_xyzw(f32::INFINITY, 0.0, 0.0, 1.0)),
            None
        );
    }

    #[test]
    fn basis_is_orthonormal_and_right_handed() {
        for n in [
            Vec3::X,
            Vec3::Y,
            Vec3::Z,
            -Vec3::Z,
            Vec3::new(1.0, 2.0, -3.0).normalize(),
        ] {
            let (t1, t2) = orthonormal_basis(n);
            assert!((t1.length() - 1.0).abs() < 1e-6);
            assert!((t2.length() - 1.0).abs() < 1e-6);
            assert!(t1.dot(n).abs() < 1e-6 && t2.dot(n).abs() < 1e-6 && t1.dot(t2).abs() < 1e-6);
            // t1 × t2 = n for a right-handed basis.
            assert!((t1.cross(t2) - n).length() < 1e-5);
        }
    }

    #[test]
    fn isometry_inverse_round_trips() {
        let iso = Isometry::new(Vec3::new(1.0, -2.0, 3.0), Quat::from_rotation_y(0.7));
        let p = Vec3::new(0.3, 0.5, -0.9);
        let back = iso.inverse_transform_point(iso.transform_point(p));
        assert!((back - p).length() < 1e-6);
        let composed = iso.inverse().mul(&iso);
        assert!(composed.translation.length() < 1e-6);
        let rel = iso.inv_mul(&iso);
        assert!(rel.translation.length() < 1e-6);
    }

    #[test]
    fn skew_matches_cross() {
        let v = Vec3::new(1.0, 2.0, 3.0);
        let w = Vec3::new(-4.0, 0.5, 2.0);
        assert!((skew(v) * w - v.cross(w)).length() < 1e-6);
    }
}
