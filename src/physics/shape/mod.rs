//! Collision shapes: what they are, their bounds, support functions and mass.

pub mod hull;
pub mod mass;

use std::f32::consts::PI;
use std::sync::Arc;

use super::aabb::{rotated_half_extents, Aabb};
use super::constants::{MAX_SHAPE_SIZE, MIN_SHAPE_SIZE, PLANE_HALF_SIZE};
use super::math::{Isometry, Mat3, Vec3};
pub use hull::{ConvexHull, HullError};
pub use mass::MassProperties;

/// Something with a support function: the point of the shape farthest along a direction.
/// GJK and EPA only ever see shapes through this.
pub trait SupportMap {
    /// The point of the shape (local frame) with the largest dot product with `dir`.
    /// `dir` need not be normalised and may be zero (then any point of the shape).
    fn support(&self, dir: Vec3) -> Vec3;
}

/// The kinds of shape, for dispatch tables and user interfaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShapeKind {
    /// A ball.
    Sphere,
    /// A box.
    Cuboid,
    /// A segment swept by a ball.
    Capsule,
    /// A convex polyhedron.
    ConvexHull,
    /// An infinite half-space.
    Plane,
}

/// A convex collision shape in its own local frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A ball centred on the origin.
    Sphere {
        /// Radius, m.
        radius: f32,
    },
    /// A box centred on the origin, aligned with the local axes.
    Cuboid {
        /// Half the size along each local axis, m.
        half_extents: Vec3,
    },
    /// The points within `radius` of the segment from (0, -half_height, 0) to (0, half_height, 0).
    Capsule {
        /// Half the length of the inner segment (local y axis), m.
        half_height: f32,
        /// Radius, m.
        radius: f32,
    },
    /// A convex polyhedron (shared: cloning a shape does not copy the mesh).
    ConvexHull(Arc<ConvexHull>),
    /// The half-space `normal · x <= 0` of the local frame; only for static bodies.
    Plane {
        /// Outward unit normal (points out of the solid side).
        normal: Vec3,
    },
}

impl Shape {
    /// A sphere.
    pub fn sphere(radius: f32) -> Shape {
        Shape::Sphere { radius }
    }

    /// A box with the given half extents.
    pub fn cuboid(half_extents: Vec3) -> Shape {
        Shape::Cuboid { half_extents }
    }

    /// A capsule along the local y axis.
    pub fn capsule(half_height: f32, radius: f32) -> Shape {
        Shape::Capsule {
            half_height,
            radius,
        }
    }

    /// The hull of a point cloud.
    pub fn convex_hull(points: &[Vec3]) -> Result<Shape, HullError> {
        Ok(Shape::ConvexHull(Arc::new(ConvexHull::new(points)?)))
    }

    /// A half-space whose boundary passes through the local origin.
    pub fn plane(normal: Vec3) -> Shape {
        Shape::Plane {
            normal: normal.normalize_or(Vec3::Y),
        }
    }

    /// Which kind of shape this is.
    pub fn kind(&self) -> ShapeKind {
        match self {
            Shape::Sphere { .. } => ShapeKind::Sphere,
            Shape::Cuboid { .. } => ShapeKind::Cuboid,
            Shape::Capsule { .. } => ShapeKind::Capsule,
            Shape::ConvexHull(_) => ShapeKind::ConvexHull,
            Shape::Plane { .. } => ShapeKind::Plane,
        }
    }

    /// Bounding box in the local frame. Planes get a huge but finite box
    /// (`PLANE_HALF_SIZE`) so the broad phase can hold them like any other shape.
    pub fn local_aabb(&self) -> Aabb {
        match self {
            Shape::Sphere { radius } => {
                Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(*radius))
            }
            Shape::Cuboid { half_extents } => {
                Aabb::from_center_half_extents(Vec3::ZERO, *half_extents)
            }
            Shape::Capsule {
                half_height,
                radius,
            } => Aabb::from_center_half_extents(
                Vec3::ZERO,
                Vec3::new(*radius, half_height + radius, *radius),
            ),
            Shape::ConvexHull(hull) => hull.local_aabb(),
            Shape::Plane { normal } => plane_aabb(*normal),
        }
    }

    /// Half the shape's smallest dimension, m: the radius of spheres and capsules, the
    /// smallest half extent of boxes and of a hull's bounding box, infinite for planes.
    /// Distances the engine compares with a shape's features (how far a contact point may
    /// move and keep its identity, how far ahead contacts are predicted) are capped by a
    /// fraction of it, so a 1 cm box is treated like a 1 m one scaled down.
    pub fn feature_size(&self) -> f32 {
        match self {
            Shape::Sphere { radius } | Shape::Capsule { radius, .. } => *radius,
            Shape::Cuboid { half_extents } => half_extents.min_element(),
            Shape::ConvexHull(hull) => hull.local_aabb().half_extents().min_element(),
            Shape::Plane { .. } => f32::INFINITY,
        }
    }

    /// Bounding box after placing the shape with `iso`.
    pub fn world_aabb(&self, iso: &Isometry) -> Aabb {
        match self {
            Shape::Sphere { radius } => {
                Aabb::from_center_half_extents(iso.translation, Vec3::splat(*radius))
            }
            Shape::Capsule {
                half_height,
                radius,
            } => {
                let axis = iso.transform_vector(Vec3::new(0.0, *half_height, 0.0));
                let a = iso.translation + axis;
                let b = iso.translation - axis;
                Aabb::new(
                    a.min(b) - Vec3::splat(*radius),
                    a.max(b) + Vec3::splat(*radius),
                )
            }
            Shape::ConvexHull(hull) => {
                // Tighter than transforming the local box: bound the transformed vertices.
                Aabb::from_points(hull.vertices.iter().map(|&v| iso.transform_point(v)))
                    .unwrap_or_else(|| Aabb::from_center_half_extents(iso.translation, Vec3::ZERO))
            }
            Shape::Plane { normal } => plane_aabb(iso.transform_vector(*normal))
                .transformed(&Isometry::from_translation(iso.translation)),
            // `local_aabb().transformed(iso)` for a box centred on its origin: the centre
            // goes to the translation, the half extents through |R|.
            Shape::Cuboid { half_extents } => Aabb::from_center_half_extents(
                iso.translation,
                rotated_half_extents(iso, *half_extents),
            ),
        }
    }

    /// Mass properties for a uniform `density` (kg/m³), in the shape's local frame.
    /// Planes are massless (they only belong on static bodies).
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        match self {
            Shape::Sphere { radius } => {
                // m = ρ·4/3·π·r³, I = 2/5·m·r² about every axis.
                let r = *radius;
                let mass = density * 4.0 / 3.0 * PI * r * r * r;
                diagonal(mass, Vec3::splat(0.4 * mass * r * r))
            }
            Shape::Cuboid { half_extents } => {
                // m = ρ·w·h·d; about the centre I = m/12·(h² + d², w² + d², w² + h²),
                // a diagonal tensor (about the centre, not a corner).
                let size = 2.0 * *half_extents;
                let mass = density * size.x * size.y * size.z;
                let sq = size * size;
                diagonal(
                    mass,
                    Vec3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y) * (mass / 12.0),
                )
            }
            Shape::Capsule {
                half_height,
                radius,
            } => capsule_mass(*half_height, *radius, density),
            Shape::ConvexHull(hull) => hull.mass_properties(density),
            Shape::Plane { .. } => MassProperties::ZERO,
        }
    }

    /// Volume in m³ (planes: infinite, reported as 0).
    pub fn volume(&self) -> f32 {
        match self {
            Shape::Plane { .. } => 0.0,
            _ => self.mass_properties(1.0).mass,
        }
    }

    /// The same shape scaled by `factor` (> 0) in every direction.
    pub fn scaled(&self, factor: f32) -> Shape {
        match self {
            Shape::Sphere { radius } => Shape::Sphere {
                radius: radius * factor,
            },
            Shape::Cuboid { half_extents } => Shape::Cuboid {
                half_extents: *half_extents * factor,
            },
            Shape::Capsule {
                half_height,
                radius,
            } => Shape::Capsule {
                half_height: half_height * factor,
                radius: radius * factor,
            },
            Shape::ConvexHull(hull) => Shape::ConvexHull(Arc::new(hull.scaled(factor))),
            Shape::Plane { normal } => Shape::Plane { normal: *normal },
        }
    }
}

impl SupportMap for Shape {
    fn support(&self, dir: Vec3) -> Vec3 {
        match self {
            Shape::Sphere { radius } => dir.normalize_or_zero() * *radius,
            Shape::Cuboid { half_extents } => Vec3::new(
                half_extents.x.copysign(dir.x),
                half_extents.y.copysign(dir.y),
                half_extents.z.copysign(dir.z),
            ),
            Shape::Capsule {
                half_height,
                radius,
            } => {
                Vec3::new(0.0, half_height.copysign(dir.y), 0.0) + dir.normalize_or_zero() * *radius
            }
            Shape::ConvexHull(hull) => hull.support(dir),
            Shape::Plane { normal } => {
                // The half-space is unbounded: clamp it to the same huge box as its AABB.
                let tangent = dir - *normal * dir.dot(*normal);
                let below = if dir.dot(*normal) >= 0.0 {
                    0.0
                } else {
                    -PLANE_HALF_SIZE
                };
                tangent.normalize_or_zero() * PLANE_HALF_SIZE + *normal * below
            }
        }
    }
}

impl SupportMap for ConvexHull {
    fn support(&self, dir: Vec3) -> Vec3 {
        ConvexHull::support(self, dir)
    }
}

/// A point: the core of a sphere (its radius is handled as a margin).
pub struct PointSupport(pub Vec3);

impl SupportMap for PointSupport {
    fn support(&self, _dir: Vec3) -> Vec3 {
        self.0
    }
}

/// A segment: the core of a capsule.
pub struct SegmentSupport(pub Vec3, pub Vec3);

impl SupportMap for SegmentSupport {
    fn support(&self, dir: Vec3) -> Vec3 {
        if dir.dot(self.0) >= dir.dot(self.1) {
            self.0
        } else {
            self.1
        }
    }
}

/// A diagonal inertia tensor about the origin.
fn diagonal(mass: f32, moments: Vec3) -> MassProperties {
    MassProperties {
        mass,
        local_center: Vec3::ZERO,
        inertia: Mat3::from_diagonal(moments),
    }
}

/// Capsule = cylinder of height 2h plus a sphere split in two hemispheres.
/// Axis: I_yy = m_c·r²/2 + m_s·2r²/5.
/// Across: I_xx = m_c·(r²/4 + (2h)²/12) + m_s·(2r²/5 + h² + 3hr/4), where each hemisphere's
/// 2/5·m·r² about its flat face is moved to its own centre (3r/8 away) and then to the capsule's.
fn capsule_mass(half_height: f32, radius: f32, density: f32) -> MassProperties {
    let (h, r) = (half_height, radius);
    let m_cyl = density * PI * r * r * 2.0 * h;
    let m_sph = density * 4.0 / 3.0 * PI * r * r * r;
    let axial = m_cyl * r * r / 2.0 + m_sph * 0.4 * r * r;
    let across = m_cyl * (r * r / 4.0 + (2.0 * h) * (2.0 * h) / 12.0)
        + m_sph * (0.4 * r * r + h * h + 0.75 * h * r);
    diagonal(m_cyl + m_sph, Vec3::new(across, axial, across))
}

/// The huge box standing in for a half-space with unit `normal` through the origin: the full cube
/// of `PLANE_HALF_SIZE`, cut at 0 along a normal that is exactly an axis.
fn plane_aabb(normal: Vec3) -> Aabb {
    let s = PLANE_HALF_SIZE;
    let mut min = Vec3::splat(-s);
    let mut max = Vec3::splat(s);
    for axis in 0..3 {
        let other = (normal[(axis + 1) % 3], normal[(axis + 2) % 3]);
        if other.0 == 0.0 && other.1 == 0.0 {
            if normal[axis] > 0.0 {
                max[axis] = 0.0;
            } else if normal[axis] < 0.0 {
                min[axis] = 0.0;
            }
        }
    }
    Aabb::new(min, max)
}

/// Checks one size of a shape: finite and within [`MIN_SHAPE_SIZE`, `MAX_SHAPE_SIZE`] m;
/// `name` names the shape and the field ("Sphere radius").
pub fn check_size(name: &str, v: f32) -> Result<(), String> {
    if v.is_finite() && (MIN_SHAPE_SIZE..=MAX_SHAPE_SIZE).contains(&v) {
        Ok(())
    } else {
        Err(format!(
            "{name} must be between {MIN_SHAPE_SIZE} and {MAX_SHAPE_SIZE} m, got {v}"
        ))
    }
}

impl Shape {
    /// Checks the sizes: finite and within [`MIN_SHAPE_SIZE`, `MAX_SHAPE_SIZE`] m where a size
    /// is asked for (a capsule's half height may be 0). The message names the shape and the
    /// field, e.g. "Sphere radius must be between 0.0001 and 10000 m, got -1".
    pub fn validate(&self) -> Result<(), String> {
        let size = check_size;
        match self {
            Shape::Sphere { radius } => size("Sphere radius", *radius),
            Shape::Cuboid { half_extents } => {
                for (axis, v) in ["x", "y", "z"].iter().zip(half_extents.to_array()) {
                    size(&format!("Cuboid half_extents.{axis}"), v)?;
                }
                Ok(())
            }
            Shape::Capsule {
                half_height,
                radius,
            } => {
                size("Capsule radius", *radius)?;
                if half_height.is_finite() && (0.0..=MAX_SHAPE_SIZE).contains(half_height) {
                    Ok(())
                } else {
                    Err(format!(
                        "Capsule half_height must be between 0 and {MAX_SHAPE_SIZE} m, got {half_height}"
                    ))
                }
            }
            Shape::ConvexHull(hull) => {
                if hull
                    .vertices
                    .iter()
                    .all(|v| v.is_finite() && v.abs().max_element() <= MAX_SHAPE_SIZE)
                {
                    Ok(())
                } else {
                    Err(format!(
                        "Hull points must be finite and within {MAX_SHAPE_SIZE} m of the origin"
                    ))
                }
            }
            Shape::Plane { normal } => {
                if normal.is_finite() && normal.length() > 0.5 {
                    Ok(())
                } else {
                    Err(format!(
                        "Plane normal must be a non-zero finite vector, got {normal}"
                    ))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol * b.abs().max(1.0)
    }

    #[test]
    fn box_inertia_is_diagonal_about_centre() {
        // 2 x 1 x 1 box of density 1: m = 2, I = m/12·(1+1, 4+1, 4+1).
        let mp = Shape::cuboid(Vec3::new(1.0, 0.5, 0.5)).mass_properties(1.0);
        assert!(close(mp.mass, 2.0, 1e-6));
        assert!(close(mp.inertia.x_axis.x, 2.0 / 12.0 * 2.0, 1e-6));
        assert!(close(mp.inertia.y_axis.y, 2.0 / 12.0 * 5.0, 1e-6));
        assert_eq!(mp.inertia.x_axis.y, 0.0);
    }

    #[test]
    fn capsule_with_zero_height_is_a_sphere() {
        let c = Shape::capsule(0.0, 0.7).mass_properties(3.0);
        let s = Shape::sphere(0.7).mass_properties(3.0);
        assert!(close(c.mass, s.mass, 1e-6));
        assert!(close(c.inertia.x_axis.x, s.inertia.x_axis.x, 1e-5));
        assert!(close(c.inertia.y_axis.y, s.inertia.y_axis.y, 1e-5));
    }

    #[test]
    fn thin_capsule_tends_to_a_rod() {
        // Rod of length L = 2h: I_across = m·L²/12.
        let (h, r) = (1.0, 1e-3);
        let c = Shape::capsule(h, r).mass_properties(1.0);
        let rod = c.mass * (2.0 * h) * (2.0 * h) / 12.0;
        assert!(close(c.inertia.x_axis.x, rod, 1e-2));
    }

    #[test]
    fn supports_are_extreme_points() {
        let b = Shape::cuboid(Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(
            b.support(Vec3::new(1.0, -1.0, 1.0)),
            Vec3::new(1.0, -2.0, 3.0)
        );
        let c = Shape::capsule(1.0, 0.5);
        assert!((c.support(Vec3::Y) - Vec3::new(0.0, 1.5, 0.0)).length() < 1e-6);
        let s = Shape::sphere(2.0);
        assert!((s.support(Vec3::new(0.0, 0.0, -3.0)) - Vec3::new(0.0, 0.0, -2.0)).length() < 1e-6);
    }

    #[test]
    fn plane_aabb_is_cut_at_the_surface() {
        let a = Shape::plane(Vec3::Y).local_aabb();
        assert_eq!(a.max.y, 0.0);
        assert_eq!(a.min.y, -PLANE_HALF_SIZE);
        let tilted = Shape::plane(Vec3::new(1.0, 1.0, 0.0)).local_aabb();
        assert_eq!(tilted.max.y, PLANE_HALF_SIZE);
    }
}
