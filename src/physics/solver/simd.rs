//! Four-lane vectors for the contact solver: lane l of every value belongs to the l-th
//! constraint of a group of four from one colour (see `graph_colour.rs`).
//!
//! Only exact IEEE operations (add, subtract, multiply, divide, square root, compare and
//! select) are used, never fused multiply-add, so a lane computes the bits a scalar
//! evaluation of the same expression would, on every x86-64 and AArch64 build.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

pub(crate) use wide::f32x4;

use crate::physics::math::{Isometry, Mat3, Quat, Vec3};

/// The number of lanes.
pub(crate) const LANES: usize = 4;

/// Four 3-vectors, one per lane, stored by component.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Vec3x4 {
    pub x: f32x4,
    pub y: f32x4,
    pub z: f32x4,
}

impl Vec3x4 {
    pub const ZERO: Vec3x4 = Vec3x4 {
        x: f32x4::ZERO,
        y: f32x4::ZERO,
        z: f32x4::ZERO,
    };

    /// Lane l holds `lanes[l]`: each vector is a row of four, and one 4×4 transpose turns
    /// the rows into the components (shuffles, where inserting one number at a time took
    /// twelve inserts).
    #[inline]
    pub fn gather(lanes: [Vec3; LANES]) -> Vec3x4 {
        let [x, y, z, _] = f32x4::transpose(lanes.map(|v| f32x4::new([v.x, v.y, v.z, 0.0])));
        Vec3x4 { x, y, z }
    }

    /// `v` in every lane.
    #[inline]
    pub fn splat(v: Vec3) -> Vec3x4 {
        Vec3x4 {
            x: f32x4::splat(v.x),
            y: f32x4::splat(v.y),
            z: f32x4::splat(v.z),
        }
    }

    /// The inverse of [`Vec3x4::gather`]: every lane's vector.
    #[inline]
    pub fn lanes(&self) -> [Vec3; LANES] {
        let rows = f32x4::transpose([self.x, self.y, self.z, f32x4::ZERO]);
        rows.map(|r| {
            let [x, y, z, _] = r.to_array();
            Vec3::new(x, y, z)
        })
    }

    /// The vector of lane `l`.
    #[inline]
    pub fn lane(&self, l: usize) -> Vec3 {
        Vec3::new(
            self.x.as_array()[l],
            self.y.as_array()[l],
            self.z.as_array()[l],
        )
    }

    /// Writes `v` into lane `l`.
    #[inline]
    pub fn set_lane(&mut self, l: usize, v: Vec3) {
        self.x.as_mut_array()[l] = v.x;
        self.y.as_mut_array()[l] = v.y;
        self.z.as_mut_array()[l] = v.z;
    }

    #[inline]
    pub fn dot(self, o: Vec3x4) -> f32x4 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    #[inline]
    pub fn cross(self, o: Vec3x4) -> Vec3x4 {
        Vec3x4 {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }

    /// Two unit tangents completing each lane's unit vector to an orthonormal basis: the
    /// operations of [`crate::physics::math::orthonormal_basis`] in the same order, so a
    /// lane gets the scalar bits (a zero lane gets the x and y axes).
    #[inline]
    pub fn orthonormal_basis(self) -> [Vec3x4; 2] {
        let n = self;
        // copysign(1, n.z): the sign bit of n.z on 1.
        let sign = f32x4::ONE | (n.z & f32x4::splat(-0.0));
        let a = f32x4::splat(-1.0) / (sign + n.z);
        let b = n.x * n.y * a;
        [
            Vec3x4 {
                x: f32x4::ONE + sign * n.x * n.x * a,
                y: sign * b,
                z: -sign * n.x,
            },
            Vec3x4 {
                x: b,
                y: sign + n.y * n.y * a,
                z: -n.y,
            },
        ]
    }

    /// Per lane: `self` where `mask` is set, `other` elsewhere.
    #[inline]
    pub fn select(mask: f32x4, if_true: Vec3x4, if_false: Vec3x4) -> Vec3x4 {
        Vec3x4 {
            x: mask.select(if_true.x, if_false.x),
            y: mask.select(if_true.y, if_false.y),
            z: mask.select(if_true.z, if_false.z),
        }
    }
}

impl Add for Vec3x4 {
    type Output = Vec3x4;
    #[inline]
    fn add(self, o: Vec3x4) -> Vec3x4 {
        Vec3x4 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

impl Sub for Vec3x4 {
    type Output = Vec3x4;
    #[inline]
    fn sub(self, o: Vec3x4) -> Vec3x4 {
        Vec3x4 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

impl AddAssign for Vec3x4 {
    #[inline]
    fn add_assign(&mut self, o: Vec3x4) {
        *self = *self + o;
    }
}

impl SubAssign for Vec3x4 {
    #[inline]
    fn sub_assign(&mut self, o: Vec3x4) {
        *self = *self - o;
    }
}

impl Neg for Vec3x4 {
    type Output = Vec3x4;
    #[inline]
    fn neg(self) -> Vec3x4 {
        Vec3x4 {
            x: -self.x,
            y: -self.y,
            z: -self.z,
        }
    }
}

/// Scales each lane's vector by that lane's scalar.
impl Mul<Vec3x4> for f32x4 {
    type Output = Vec3x4;
    #[inline]
    fn mul(self, v: Vec3x4) -> Vec3x4 {
        Vec3x4 {
            x: self * v.x,
            y: self * v.y,
            z: self * v.z,
        }
    }
}

/// Four symmetric 3×3 matrices (world inverse inertias), one per lane: the six entries
/// of the upper triangle, 96 bytes where four full matrices take 144.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SymMat3x4 {
    pub xx: f32x4,
    pub yy: f32x4,
    pub zz: f32x4,
    pub xy: f32x4,
    pub xz: f32x4,
    pub yz: f32x4,
}

impl SymMat3x4 {
    /// Writes the upper triangle of `m` (symmetric) into lane `l`.
    #[inline]
    pub fn set_lane(&mut self, l: usize, m: &Mat3) {
        self.xx.as_mut_array()[l] = m.x_axis.x;
        self.yy.as_mut_array()[l] = m.y_axis.y;
        self.zz.as_mut_array()[l] = m.z_axis.z;
        self.xy.as_mut_array()[l] = m.y_axis.x;
        self.xz.as_mut_array()[l] = m.z_axis.x;
        self.yz.as_mut_array()[l] = m.z_axis.y;
    }

    /// True when every lane is a multiple of the identity: zero off the diagonal, the three
    /// diagonal entries equal.
    #[inline]
    pub fn is_isotropic(&self) -> bool {
        let zero = f32x4::ZERO;
        let off = self.xy.simd_eq(zero) & self.xz.simd_eq(zero) & self.yz.simd_eq(zero);
        (off & self.xx.simd_eq(self.yy) & self.yy.simd_eq(self.zz)).all()
    }

    /// M·v per lane, each row summed in the order glam's scalar `Mat3 * Vec3` uses (so a
    /// lane of an exactly symmetric matrix gets the scalar bits).
    #[inline]
    pub fn mul_vec3(&self, v: Vec3x4) -> Vec3x4 {
        Vec3x4 {
            x: v.x * self.xx + v.y * self.xy + v.z * self.xz,
            y: v.x * self.xy + v.y * self.yy + v.z * self.yz,
            z: v.x * self.xz + v.y * self.yz + v.z * self.zz,
        }
    }
}

/// Four unit quaternions (rotations), one per lane.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Quatx4 {
    pub xyz: Vec3x4,
    pub w: f32x4,
}

impl Quatx4 {
    /// Lane l holds `lanes[l]`.
    #[inline]
    pub fn gather(lanes: [Quat; LANES]) -> Quatx4 {
        // Each quaternion is one row of four; transposed, the rows become the components.
        let [x, y, z, w] = f32x4::transpose(lanes.map(|q| f32x4::new(q.to_array())));
        Quatx4 {
            xyz: Vec3x4 { x, y, z },
            w,
        }
    }

    /// Rotates v per lane by the inverse rotation (the conjugate: q's vector part negated).
    #[inline]
    pub fn inverse_rotate(&self, v: Vec3x4) -> Vec3x4 {
        let zero = Vec3x4::ZERO;
        Quatx4 {
            xyz: zero - self.xyz,
            w: self.w,
        }
        .rotate(v)
    }

    /// Rotates v per lane: v + w·t + q×t with t = 2(q×v). The identity returns v exactly
    /// (t = 0), so unturned bodies keep their arms bit for bit.
    #[inline]
    pub fn rotate(&self, v: Vec3x4) -> Vec3x4 {
        let t = f32x4::splat(2.0) * self.xyz.cross(v);
        v + self.w * t + self.xyz.cross(t)
    }
}

/// `pose` applied to the point of every lane: glam's scalar `rotation * p + translation`
/// (`Quat::mul_vec3`: p·(w² − |b|²) + b·(2·p·b) + (b × p)·2w, b the vector part) with the
/// operations in the same order, so each lane gets the bits the scalar transform gives.
#[inline]
pub(crate) fn transform_points(pose: &Isometry, p: Vec3x4) -> Vec3x4 {
    let q = pose.rotation;
    let (w, b) = (q.w, Vec3::new(q.x, q.y, q.z));
    let along = f32x4::splat(w * w - b.dot(b));
    let twice_w = f32x4::splat(w * 2.0);
    let wide_b = Vec3x4::splat(b);
    let rotated =
        along * p + (p.dot(wide_b) * f32x4::splat(2.0)) * wide_b + twice_w * wide_b.cross(p);
    rotated + Vec3x4::splat(pose.translation)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes<T: Copy>(f: impl Fn(usize) -> T) -> [T; LANES] {
        std::array::from_fn(f)
    }

    #[test]
    fn lane_operations_match_glam_per_lane() {
        let a = lanes(|l| Vec3::new(1.0 + l as f32, -2.0 * l as f32, 0.5));
        let b = lanes(|l| Vec3::new(0.3, 1.0 - l as f32, 2.0 + l as f32));
        let (wa, wb) = (Vec3x4::gather(a), Vec3x4::gather(b));
        let dot = wa.dot(wb).to_array();
        let cross = wa.cross(wb);
        for l in 0..LANES {
            assert_eq!(dot[l], a[l].dot(b[l]));
            assert_eq!(cross.lane(l), a[l].cross(b[l]));
            assert_eq!((wa + wb).lane(l), a[l] + b[l]);
        }
        // Gathered and taken apart again, every vector comes back.
        assert_eq!(wa.lanes(), a);
    }

    #[test]
    fn transformed_points_are_the_scalar_transform_bit_for_bit() {
        // Turned and shifted poses (one the identity), points of every sign and a zero.
        let poses = [
            Isometry::new(
                Vec3::new(0.3, -2.0, 7.5),
                Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 0.7),
            ),
            Isometry::new(Vec3::new(-4.0, 0.0, 1e-3), Quat::from_rotation_y(-2.9)),
            Isometry::IDENTITY,
        ];
        let p = [
            Vec3::new(0.5, -0.5, 0.5),
            Vec3::new(-1.25, 3.0, 0.001),
            Vec3::ZERO,
            Vec3::new(1e4, -2e-3, 7.0),
        ];
        for pose in &poses {
            let out = transform_points(pose, Vec3x4::gather(p)).lanes();
            for l in 0..LANES {
                assert_eq!(out[l], pose.transform_point(p[l]), "lane {l}");
            }
        }
    }

    #[test]
    fn the_tangent_basis_is_the_scalar_one_bit_for_bit() {
        // Normals on both sides of z = 0 (the formula's two branches), one along −z, and a
        // zero lane (an empty lane's normal).
        let n = [
            Vec3::new(0.3, -0.8, 0.52).normalize(),
            Vec3::new(-0.6, 0.1, -0.79).normalize(),
            Vec3::NEG_Z,
            Vec3::ZERO,
        ];
        let [t0, t1] = Vec3x4::gather(n).orthonormal_basis();
        for (l, &n) in n.iter().enumerate() {
            let (s0, s1) = crate::physics::math::orthonormal_basis(n);
            assert_eq!((t0.lane(l), t1.lane(l)), (s0, s1), "lane {l}");
        }
        assert_eq!((t0.lane(3), t1.lane(3)), (Vec3::X, Vec3::Y));
    }

    #[test]
    fn rotation_and_matrix_products_agree_with_glam() {
        // The rotation may round differently from glam: it agrees to f32 precision, and the
        // identity rotation returns the vector bit for bit.
        let q = lanes(|l| {
            Quat::from_axis_angle(Vec3::new(1.0, l as f32, 2.0).normalize(), 0.3 * l as f32)
        });
        let v = lanes(|l| Vec3::new(0.5, -1.0 + l as f32, 2.0));
        let m = lanes(|l| {
            Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0 + l as f32))
                + Mat3::from_cols_array(&[0.1; 9])
        });
        let rotated = Quatx4::gather(q).rotate(Vec3x4::gather(v));
        let mut matrices = SymMat3x4::default();
        for (l, m) in m.iter().enumerate() {
            matrices.set_lane(l, m);
        }
        let product = matrices.mul_vec3(Vec3x4::gather(v));
        for l in 0..LANES {
            assert!((rotated.lane(l) - q[l] * v[l]).length() < 1e-6, "lane {l}");
            // Symmetric matrices: the same products summed in the same order.
            assert_eq!(product.lane(l), m[l] * v[l], "lane {l}");
        }
        assert_eq!(rotated.lane(0), v[0]);
    }
}
