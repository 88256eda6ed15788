//! Queries: ray casts (mouse picking) and AABB overlap.

use super::aabb::Aabb;
use super::math::{is_finite_vec, Isometry, Vec3};
use super::shape::Shape;
use super::world::{BodyHandle, ColliderHandle, World};

/// The closest hit of a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The body hit.
    pub body: BodyHandle,
    /// The collider hit.
    pub collider: ColliderHandle,
    /// World point of the hit.
    pub point: Vec3,
    /// Surface normal at the hit (unit, facing the ray).
    pub normal: Vec3,
    /// Distance from the ray origin, m.
    pub distance: f32,
}

/// Where a ray `origin + t·dir` (unit `dir`, local frame) first meets `shape`, for t in
/// `[0, max_t]`: (t, local normal). A ray starting inside reports t = 0 and the normal −dir.
pub fn ray_cast_shape(shape: &Shape, origin: Vec3, dir: Vec3, max_t: f32) -> Option<(f32, Vec3)> {
    let hit = match shape {
        Shape::Sphere { radius } => ray_sphere(origin, dir, Vec3::ZERO, *radius),
        Shape::Cuboid { half_extents } => ray_box(origin, dir, *half_extents),
        Shape::Capsule {
            half_height,
            radius,
        } => ray_capsule(origin, dir, *half_height, *radius),
        Shape::ConvexHull(hull) => {
            ray_planes(origin, dir, hull.faces.iter().map(|f| (f.normal, f.offset)))
        }
        Shape::Plane { normal } => ray_planes(origin, dir, std::iter::once((*normal, 0.0))),
    }?;
    (hit.0 <= max_t).then_some(hit)
}

/// Ray against a ball: |o + t·d − c|² = r², a quadratic with b = (o − c)·d, c' = |o − c|² − r².
fn ray_sphere(origin: Vec3, dir: Vec3, center: Vec3, radius: f32) -> Option<(f32, Vec3)> {
    let m = origin - center;
    let b = m.dot(dir);
    let c = m.dot(m) - radius * radius;
    if c <= 0.0 {
        return Some((0.0, -dir));
    }
    if b > 0.0 {
        return None;
    }
    let disc = b * b - c;
    if disc < 0.0 {
        return None;
    }
    let t = -b - disc.sqrt();
    Some((t, (m + dir * t).normalize_or(-dir)))
}

/// Ray against a box: the slab test, remembering which slab was entered last.
fn ray_box(origin: Vec3, dir: Vec3, half: Vec3) -> Option<(f32, Vec3)> {
    let (mut t_min, mut t_max) = (0.0f32, f32::MAX);
    let mut normal = -dir;
    for axis in 0..3 {
        if dir[axis].abs() < 1e-12 {
            if origin[axis].abs() > half[axis] {
                return None;
            }
            continue;
        }
        let inv = 1.0 / dir[axis];
        let (mut t1, mut t2) = (
            (-half[axis] - origin[axis]) * inv,
            (half[axis] - origin[axis]) * inv,
        );
        let mut sign = -1.0;
        if t1 > t2 {
            std::mem::swap(&mut t1, &mut t2);
            sign = 1.0;
        }
        if t1 > t_min {
            t_min = t1;
            normal = Vec3::ZERO;
            normal[axis] = sign;
        }
        t_max = t_max.min(t2);
        if t_min > t_max {
            return None;
        }
    }
    Some((t_min, normal))
}

/// Ray against a capsule: the side of the cylinder if hit between the caps, else the caps.
fn ray_capsule(origin: Vec3, dir: Vec3, half_height: f32, radius: f32) -> Option<(f32, Vec3)> {
    // Inside the capsule?
    let on_axis = Vec3::new(0.0, origin.y.clamp(-half_height, half_height), 0.0);
    if (origin - on_axis).length_squared() <= radius * radius {
        return Some((0.0, -dir));
    }
    // Infinite cylinder x² + z² = r²: a t² + 2 b t + c = 0 in the x-z plane.
    let mut best: Option<(f32, Vec3)> = None;
    let a = dir.x * dir.x + dir.z * dir.z;
    if a > 1e-12 {
        let b = origin.x * dir.x + origin.z * dir.z;
        let c = origin.x * origin.x + origin.z * origin.z - radius * radius;
        let disc = b * b - a * c;
        if disc >= 0.0 {
            let t = (-b - disc.sqrt()) / a;
            let y = origin.y + t * dir.y;
            if t >= 0.0 && y.abs() <= half_height {
                let p = origin + dir * t;
                best = Some((t, Vec3::new(p.x, 0.0, p.z).normalize_or(-dir)));
            }
        }
    }
    for cap in [-half_height, half_height] {
        if let Some(hit) = ray_sphere(origin, dir, Vec3::new(0.0, cap, 0.0), radius) {
            if best.is_none_or(|b| hit.0 < b.0) {
                best = Some(hit);
            }
        }
    }
    best
}

/// Ray against the intersection of half-spaces n·x ≤ d (Cyrus–Beck clipping).
fn ray_planes(
    origin: Vec3,
    dir: Vec3,
    planes: impl Iterator<Item = (Vec3, f32)>,
) -> Option<(f32, Vec3)> {
    let (mut t_enter, mut t_exit) = (0.0f32, f32::MAX);
    let mut normal = -dir;
    for (n, d) in planes {
        let dist = d - n.dot(origin);
        let denom = n.dot(dir);
        if denom.abs() < 1e-12 {
            if dist < 0.0 {
                return None;
            }
            continue;
        }
        let t = dist / denom;
        if denom < 0.0 {
            if t > t_enter {
                t_enter = t;
                normal = n;
            }
        } else {
            t_exit = t_exit.min(t);
        }
        if t_enter > t_exit {
            return None;
        }
    }
    Some((t_enter, normal))
}

impl World {
    /// The closest collider hit by the ray from `origin` along `direction` within
    /// `max_distance` (m). `direction` need not be unit length; a zero or non-finite ray
    /// hits nothing.
    pub fn ray_cast(&self, origin: Vec3, direction: Vec3, max_distance: f32) -> Option<RayHit> {
        let dir = direction.try_normalize()?;
        if !is_finite_vec(origin) || max_distance.is_nan() || max_distance < 0.0 {
            return None;
        }
        let max_distance = max_distance.min(1.0e6);
        let mut best: Option<(f32, Vec3, u32)> = None;
        self.broad_phase
            .ray_cast(origin, dir, max_distance, &mut |user, clip| {
                let Some(collider) = self.colliders.at(user) else {
                    return clip;
                };
                let pose: &Isometry = &collider.world_pose;
                let local_origin = pose.inverse_transform_point(origin);
                let local_dir = pose.inverse_transform_vector(dir);
                match ray_cast_shape(&collider.shape, local_origin, local_dir, clip) {
                    Some((t, n)) if best.is_none_or(|b| t < b.0) => {
                        best = Some((t, pose.transform_vector(n), user));
                        t
                    }
                    _ => clip,
                }
            });
        let (t, normal, user) = best?;
        let collider = self.colliders.handle_at(user)?;
        let body = self.bodies.handle_at(self.colliders.at(user)?.body)?;
        Some(RayHit {
            body,
            collider,
            point: origin + dir * t,
            normal,
            distance: t,
        })
    }

    /// Calls `visit` for every collider whose tight AABB overlaps `aabb`; stop by returning
    /// false.
    pub fn query_aabb(&self, aabb: &Aabb, mut visit: impl FnMut(ColliderHandle) -> bool) {
        self.broad_phase
            .query(aabb, &mut |user| match self.colliders.at(user) {
                Some(c) if c.aabb.overlaps(aabb) => match self.colliders.handle_at(user) {
                    Some(h) => visit(h),
                    None => true,
                },
                _ => true,
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ray_hits_sphere_at_its_surface() {
        // Ray from (−5, 0, 0) along +x against a sphere of radius 1 at the origin: t = 4.
        let (t, n) = ray_cast_shape(
            &Shape::sphere(1.0),
            Vec3::new(-5.0, 0.0, 0.0),
            Vec3::X,
            100.0,
        )
        .unwrap();
        assert!((t - 4.0).abs() < 1e-5);
        assert!((n + Vec3::X).length() < 1e-5);
    }

    #[test]
    fn ray_hits_box_face() {
        let (t, n) = ray_cast_shape(
            &Shape::cuboid(Vec3::splat(0.5)),
            Vec3::new(0.2, 3.0, 0.1),
            -Vec3::Y,
            100.0,
        )
        .unwrap();
        assert!((t - 2.5).abs() < 1e-5);
        assert_eq!(n, Vec3::Y);
    }

    #[test]
    fn ray_hits_capsule_side_and_cap() {
        let cap = Shape::capsule(1.0, 0.5);
        let (t, n) = ray_cast_shape(&cap, Vec3::new(-3.0, 0.5, 0.0), Vec3::X, 100.0).unwrap();
        assert!((t - 2.5).abs() < 1e-5);
        assert!((n + Vec3::X).length() < 1e-5);
        // From above: top of the cap at y = 1.5.
        let (t, _) = ray_cast_shape(&cap, Vec3::new(0.0, 4.0, 0.0), -Vec3::Y, 100.0).unwrap();
        assert!((t - 2.5).abs() < 1e-5);
    }

    #[test]
    fn ray_misses_and_plane_hits() {
        assert!(ray_cast_shape(
            &Shape::sphere(1.0),
            Vec3::new(-5.0, 2.0, 0.0),
            Vec3::X,
            100.0
        )
        .is_none());
        let (t, n) = ray_cast_shape(
            &Shape::plane(Vec3::Y),
            Vec3::new(1.0, 2.0, 3.0),
            -Vec3::Y,
            100.0,
        )
        .unwrap();
        assert!((t - 2.0).abs() < 1e-6);
        assert_eq!(n, Vec3::Y);
    }
}
