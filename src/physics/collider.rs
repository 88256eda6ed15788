//! Colliders: a shape attached to a body, with its material.

use super::aabb::Aabb;
use super::math::{is_usable_rotation, Isometry, Quat, Vec3};
use super::shape::Shape;

/// Everything needed to attach a shape to a body.
#[derive(Clone, Debug, PartialEq)]
pub struct ColliderDef {
    /// The shape, in the collider's frame.
    pub shape: Shape,
    /// Collider frame origin in the body frame, m.
    pub local_position: Vec3,
    /// Collider frame orientation in the body frame.
    pub local_rotation: Quat,
    /// Coulomb friction coefficient (≥ 0). Mixed per pair as √(μa·μb).
    pub friction: f32,
    /// Restitution (0 = no bounce, 1 = elastic). Mixed per pair as max(ea, eb).
    pub restitution: f32,
    /// Density, kg/m³ (≥ 0). Mass = density × volume.
    pub density: f32,
    /// Rolling resistance, m: the lever arm of the torque that resists rolling, as a
    /// fraction-of-radius times the radius (0 = rolls forever; 0.01–0.05 settles piles).
    /// Mixed per pair as max(ca, cb).
    pub rolling_resistance: f32,
    /// A sensor detects overlaps (sensor begin and end events, see
    /// [`ContactEvents`](super::world::ContactEvents)) and never pushes or is pushed. It still
    /// has its density's mass (give it density 0 to add none). Two sensors never detect each
    /// other.
    pub sensor: bool,
    /// Which colliders it may touch (all, by default).
    pub filter: CollisionFilter,
    /// Free for the user.
    pub user_data: u64,
}

/// Which colliders touch: each collider has category bits (what it is) and mask bits (what
/// it touches), and two colliders touch only when each one's category shares a bit with the
/// other's mask. A filtered pair gets no contact, no sensor event and no continuous
/// collision; ray and shape casts ignore filters. Box2D's `b2Filter` and Rapier's
/// `InteractionGroups` without their group numbers: 32 categories.
///
/// The default, category 1 and every mask bit, touches every default collider.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CollisionFilter {
    /// The categories this collider is in (usually one bit).
    pub category: u32,
    /// The categories it touches.
    pub mask: u32,
}

impl CollisionFilter {
    /// Category 1, touching every category.
    pub const DEFAULT: Self = Self {
        category: 1,
        mask: u32::MAX,
    };

    /// A filter with these bits.
    pub const fn new(category: u32, mask: u32) -> Self {
        Self { category, mask }
    }

    /// True when colliders with these two filters touch: each one's category is in the
    /// other's mask.
    pub const fn allows(self, other: Self) -> bool {
        self.category & other.mask != 0 && other.category & self.mask != 0
    }
}

impl Default for CollisionFilter {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl ColliderDef {
    /// Checks the definition on its own: the shape's sizes (see [`Shape::validate`]), a finite
    /// pose with a non-zero rotation, and the material: friction, density and rolling
    /// resistance finite and ≥ 0, restitution in [0, 1]. The message names the field.
    pub fn validate(&self) -> Result<(), String> {
        self.shape.validate()?;
        if !self.local_position.is_finite() {
            return Err(format!(
                "position must be finite, got {}",
                self.local_position
            ));
        }
        check_offset("position", self.local_position, "a collider")?;
        if !is_usable_rotation(self.local_rotation) {
            return Err(format!(
                "rotation must be a finite non-zero quaternion, got {}",
                self.local_rotation
            ));
        }
        for (name, v) in [
            ("friction", self.friction),
            ("density", self.density),
            ("rolling_resistance", self.rolling_resistance),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("{name} must be 0 or more, got {v}"));
            }
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return Err(format!(
                "restitution must be between 0 and 1, got {}",
                self.restitution
            ));
        }
        Ok(())
    }

    /// A collider with the default material: friction 0.6, no bounce, density 1 kg/m³ (so a
    /// 1 m cube weighs 1 kg, which keeps sandbox numbers readable; only ratios matter).
    pub fn new(shape: Shape) -> Self {
        Self {
            shape,
            local_position: Vec3::ZERO,
            local_rotation: Quat::IDENTITY,
            friction: 0.6,
            restitution: 0.0,
            density: 1.0,
            rolling_resistance: 0.0,
            sensor: false,
            filter: CollisionFilter::DEFAULT,
            user_data: 0,
        }
    }

    /// Sets which colliders it touches.
    pub fn with_filter(mut self, filter: CollisionFilter) -> Self {
        self.filter = filter;
        self
    }

    /// Makes it a sensor (or not).
    pub fn with_sensor(mut self, sensor: bool) -> Self {
        self.sensor = sensor;
        self
    }

    /// Sets the rolling resistance.
    pub fn with_rolling_resistance(mut self, rolling_resistance: f32) -> Self {
        self.rolling_resistance = rolling_resistance;
        self
    }

    /// Sets the friction coefficient.
    pub fn with_friction(mut self, friction: f32) -> Self {
        self.friction = friction;
        self
    }

    /// Sets the restitution.
    pub fn with_restitution(mut self, restitution: f32) -> Self {
        self.restitution = restitution;
        self
    }

    /// Sets the density.
    pub fn with_density(mut self, density: f32) -> Self {
        self.density = density;
        self
    }

    /// Sets the placement in the body frame.
    pub fn with_local_pose(mut self, position: Vec3, rotation: Quat) -> Self {
        self.local_position = position;
        self.local_rotation = rotation;
        self
    }
}

/// The friction of a pair: the geometric mean √(μa·μb), so a frictionless side makes the
/// pair frictionless and two equal materials keep their own coefficient.
pub fn mix_friction(a: f32, b: f32) -> f32 {
    (a * b).sqrt()
}

/// The restitution of a pair: the larger one, so a bouncy ball bounces on any floor.
pub fn mix_restitution(a: f32, b: f32) -> f32 {
    a.max(b)
}

/// The surface properties of a pair of colliders, mixed by the rules above.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MixedMaterial {
    /// √(μa·μb).
    pub friction: f32,
    /// max(ea, eb).
    pub restitution: f32,
    /// max(ca, cb), m.
    pub rolling_resistance: f32,
}

impl MixedMaterial {
    /// The mixed properties of two colliders.
    pub fn of(a: &Collider, b: &Collider) -> Self {
        Self {
            friction: mix_friction(a.friction, b.friction),
            restitution: mix_restitution(a.restitution, b.restitution),
            rolling_resistance: a.rolling_resistance.max(b.rolling_resistance),
        }
    }
}

/// A collider as the world stores it.
#[derive(Clone, Debug)]
pub struct Collider {
    /// Slot index of the body it belongs to.
    pub(crate) body: u32,
    pub(crate) shape: Shape,
    /// Placement in the body frame.
    pub(crate) local_pose: Isometry,
    pub(crate) friction: f32,
    pub(crate) restitution: f32,
    pub(crate) density: f32,
    pub(crate) rolling_resistance: f32,
    /// Broad-phase proxy.
    pub(crate) proxy: u32,
    /// Placement in the world (kept in sync with the body).
    pub(crate) world_pose: Isometry,
    /// Tight world bounds.
    pub(crate) aabb: Aabb,
    /// The broad phase's fat box of its proxy, a copy kept with every call that can change
    /// it ([`move_collider_proxy`], proxy creation): the contact update tests each pair's
    /// two fat boxes from the colliders it reads anyway, as Box2D keeps `fatAABB` on its
    /// shapes, rather than from two look-ups into the broad phase's nodes.
    pub(crate) fat_aabb: Aabb,
    /// [`Shape::feature_size`] of the shape, kept with it.
    pub(crate) feature_size: f32,
    pub(crate) sensor: bool,
    pub(crate) filter: CollisionFilter,
    pub(crate) user_data: u64,
}

impl Collider {
    /// The shape, in the collider frame.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Placement in the body frame.
    pub fn local_pose(&self) -> Isometry {
        self.local_pose
    }

    /// Placement in the world.
    pub fn world_pose(&self) -> Isometry {
        self.world_pose
    }

    /// Tight world bounding box.
    pub fn aabb(&self) -> Aabb {
        self.aabb
    }

    /// True for a sensor (see [`ColliderDef::sensor`]).
    pub fn is_sensor(&self) -> bool {
        self.sensor
    }

    /// Which colliders it touches.
    pub fn filter(&self) -> CollisionFilter {
        self.filter
    }

    /// Friction coefficient.
    pub fn friction(&self) -> f32 {
        self.friction
    }

    /// Restitution.
    pub fn restitution(&self) -> f32 {
        self.restitution
    }

    /// Density, kg/m³.
    pub fn density(&self) -> f32 {
        self.density
    }

    /// Rolling resistance, m.
    pub fn rolling_resistance(&self) -> f32 {
        self.rolling_resistance
    }

    /// The user's number.
    pub fn user_data(&self) -> u64 {
        self.user_data
    }

    /// The definition that recreates this collider.
    pub fn to_def(&self) -> ColliderDef {
        ColliderDef {
            shape: self.shape.clone(),
            local_position: self.local_pose.translation,
            local_rotation: self.local_pose.rotation,
            friction: self.friction,
            restitution: self.restitution,
            density: self.density,
            rolling_resistance: self.rolling_resistance,
            sensor: self.sensor,
            filter: self.filter,
            user_data: self.user_data,
        }
    }

    /// Recomputes the world pose and bounds from the body's pose.
    pub(crate) fn sync(&mut self, body_pose: &Isometry) {
        self.world_pose = self.pose_on(body_pose);
        self.aabb = self.shape.world_aabb(&self.world_pose);
    }

    /// The collider's world pose for its body at `body_pose` (unit rotation): `body_pose ·
    /// local_pose`, or the body's pose itself for a collider at the body's origin, unturned
    /// (most colliders: no product, and no renormalising of a rotation already unit).
    #[inline]
    pub(crate) fn pose_on(&self, body_pose: &Isometry) -> Isometry {
        if self.local_pose == Isometry::IDENTITY {
            *body_pose
        } else {
            body_pose.mul(&self.local_pose)
        }
    }
}

/// Moves `collider`'s proxy to its tight box (see
/// [`BroadPhase::move_proxy`](super::broad_phase::BroadPhase::move_proxy)) and keeps its
/// copy of the fat box.
pub(crate) fn move_collider_proxy(
    broad_phase: &mut (dyn super::broad_phase::BroadPhase + Send + Sync),
    collider: &mut Collider,
    displacement: Vec3,
) {
    if broad_phase.move_proxy(collider.proxy, collider.aabb, displacement) {
        collider.fat_aabb = broad_phase.fat_aabb(collider.proxy);
    }
}

/// Refuses a body-local point (a collider's position, a joint's anchor) farther than
/// [`MAX_LOCAL_OFFSET`](super::constants::MAX_LOCAL_OFFSET) from the body's origin on some
/// axis; `field` names it and `what` says whose it is.
pub(crate) fn check_offset(field: &str, v: Vec3, what: &str) -> Result<(), String> {
    use super::constants::MAX_LOCAL_OFFSET;
    for (axis, x) in ["x", "y", "z"].iter().zip(v.to_array()) {
        if x.abs() > MAX_LOCAL_OFFSET {
            // Written out, 1e30 would be 31 digits.
            let x = if x.abs() < 1.0e7 {
                format!("{x}")
            } else {
                format!("{x:e}")
            };
            return Err(format!(
                "{field}.{axis} is {x} m; {what} may sit at most {MAX_LOCAL_OFFSET} m from its body's origin"
            ));
        }
    }
    Ok(())
}
