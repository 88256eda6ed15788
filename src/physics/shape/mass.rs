//! Mass properties of shapes and of bodies made of several shapes.

use crate::physics::math::{Mat3, Quat, Vec3};

/// Mass, centre of mass and inertia tensor of a solid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Mass in kg.
    pub mass: f32,
    /// Centre of mass in the shape's (or body's) local frame, m.
    pub local_center: Vec3,
    /// Inertia tensor about `local_center`, in local axes, kg·m².
    pub inertia: Mat3,
}

impl MassProperties {
    /// No mass at all (static shapes, planes).
    pub const ZERO: MassProperties = MassProperties {
        mass: 0.0,
        local_center: Vec3::ZERO,
        inertia: Mat3::ZERO,
    };

    /// These properties after the solid is rotated by `rotation` and moved by `translation`.
    /// The tensor rotates as R·I·Rᵀ; the centre moves with the solid.
    pub fn transformed(&self, translation: Vec3, rotation: Quat) -> MassProperties {
        let r = Mat3::from_quat(rotation);
        MassProperties {
            mass: self.mass,
            local_center: translation + rotation * self.local_center,
            inertia: r * self.inertia * r.transpose(),
        }
    }

    /// Sums several solids in one frame. The parallel axis theorem moves each tensor from its
    /// own centre to the common one: I = I_c + m·((d·d)·E − d·dᵀ), d = c_i − c.
    pub fn sum(parts: &[MassProperties]) -> MassProperties {
        let mass: f32 = parts.iter().map(|p| p.mass).sum();
        if mass <= 0.0 {
            return MassProperties::ZERO;
        }
        let center = parts
            .iter()
            .fold(Vec3::ZERO, |acc, p| acc + p.mass * p.local_center)
            / mass;
        let inertia = parts.iter().fold(Mat3::ZERO, |acc, p| {
            acc + p.inertia + parallel_axis(p.mass, p.local_center - center)
        });
        MassProperties {
            mass,
            local_center: center,
            inertia,
        }
    }
}

/// The term m·((d·d)·E − d·dᵀ) that moves an inertia tensor by offset `d`.
pub fn parallel_axis(mass: f32, d: Vec3) -> Mat3 {
    let dd = d.dot(d);
    let outer = Mat3::from_cols(d * d.x, d * d.y, d * d.z);
    (Mat3::IDENTITY * dd - outer) * mass
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_axis_of_point_mass() {
        // A point mass m at distance r from the x axis: I_xx = m r².
        let i = parallel_axis(2.0, Vec3::new(0.0, 3.0, 0.0));
        assert!((i.x_axis.x - 18.0).abs() < 1e-6);
        assert!(i.y_axis.y.abs() < 1e-6);
        assert!((i.z_axis.z - 18.0).abs() < 1e-6);
    }

    #[test]
    fn two_point_masses_sum() {
        let a = MassProperties {
            mass: 1.0,
            local_center: Vec3::new(-1.0, 0.0, 0.0),
            inertia: Mat3::ZERO,
        };
        let b = MassProperties {
            local_center: Vec3::new(1.0, 0.0, 0.0),
            ..a
        };
        let s = MassProperties::sum(&[a, b]);
        // Dumbbell: I_yy = I_zz = 2·m·1² = 2, I_xx = 0; centre at the middle.
        assert_eq!(s.mass, 2.0);
        assert!(s.local_center.length() < 1e-6);
        assert!((s.inertia.y_axis.y - 2.0).abs() < 1e-6);
        assert!(s.inertia.x_axis.x.abs() < 1e-6);
    }
}
