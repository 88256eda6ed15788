//! Creating, removing, reading and changing bodies and colliders.
//!
//! Every call takes a handle; a stale handle (its object was removed) finds nothing:
//! getters return `None`, every call that changes something returns
//! `Err(BodyError::StaleBody)` (or `ColliderError::StaleCollider`), and no other object is
//! ever touched. Every fallible call returns `Result<_, E>`, one error type per concern:
//! [`BodyError`], [`ColliderError`], [`JointError`](crate::physics::JointError),
//! [`SettingsError`](crate::physics::SettingsError).
//! Every change that moves a body or pushes it wakes it (and its sleeping island).

use std::fmt;

use crate::physics::body::{normalized_exactly, Body, BodyDef, BodyType, NULL};
use crate::physics::collider::{
    move_collider_proxy, Collider, ColliderDef, CollisionFilter, MixedMaterial,
};
use crate::physics::math::{is_finite_vec, unit_rotation, Isometry, Mat3, Quat, Vec3};
use crate::physics::shape::{MassProperties, Shape};
use crate::physics::solver::invert_or_zero;
use crate::physics::world::{BodyHandle, ColliderHandle, World};

/// Why a collider could not be added or changed.
#[derive(Clone, Debug, PartialEq)]
pub enum ColliderError {
    /// The body handle is stale.
    StaleBody,
    /// The collider handle is stale.
    StaleCollider,
    /// The definition is unusable; the message says which field and why.
    Invalid(String),
}

impl fmt::Display for ColliderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ColliderError::StaleBody => write!(f, "the body was removed"),
            ColliderError::StaleCollider => write!(f, "the collider was removed"),
            ColliderError::Invalid(msg) => write!(f, "{msg}"),
        }
    }
}

impl std::error::Error for ColliderError {}

/// Why a body could not be changed.
#[derive(Clone, Debug, PartialEq)]
pub enum BodyError {
    /// The body handle is stale.
    StaleBody,
    /// A static body has no velocity, damping or gravity of its own.
    Static,
    /// The value is unusable; the message says which field and why.
    Invalid(String),
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::StaleBody => write!(f, "the body was removed"),
            BodyError::Static => write!(
                f,
                "a static body does not move (make it kinematic or dynamic first)"
            ),
            BodyError::Invalid(msg) => write!(f, "{msg}"),
        }
    }
}

impl std::error::Error for BodyError {}

/// `Ok` for a finite vector, else the error naming `field`.
fn finite(field: &str, v: Vec3) -> Result<(), BodyError> {
    if is_finite_vec(v) {
        Ok(())
    } else {
        Err(BodyError::Invalid(format!(
            "{field} must be finite, got {v}"
        )))
    }
}

/// A collider of a dynamic body must give a mass and an inertia the solver can invert: each a
/// normal positive float whose inverse is normal too (a density of 1e-40 gives an infinite
/// inverse mass). Colliders of density 0 add nothing and pass.
fn check_dynamic_mass(shape: &Shape, density: f32) -> Result<(), String> {
    if density == 0.0 || matches!(shape, Shape::Plane { .. }) {
        return Ok(());
    }
    let props = shape.mass_properties(density);
    let usable = |v: f32| v.is_normal() && v > 0.0 && (1.0 / v).is_normal();
    if !usable(props.mass) {
        return Err(format!(
            "density {density:e} gives a mass of {:e} kg, which the solver cannot use (the mass and its inverse must be normal positive floats)",
            props.mass
        ));
    }
    let diagonal = [
        props.inertia.x_axis.x,
        props.inertia.y_axis.y,
        props.inertia.z_axis.z,
    ];
    if let Some(bad) = diagonal.into_iter().find(|&v| !usable(v)) {
        return Err(format!(
            "density {density:e} gives a moment of inertia of {bad:e} kg·m², which the solver cannot use (inertias and their inverses must be normal positive floats)"
        ));
    }
    Ok(())
}

/// The shape as stored: a plane's normal made unit length.
fn canonical_shape(shape: Shape) -> Shape {
    match shape {
        Shape::Plane { normal } => Shape::plane(normal),
        other => other,
    }
}

impl World {
    /// Creates a body (without colliders: a dynamic body without colliders weighs 1 kg).
    /// Values [`BodyDef::validate`] would refuse are replaced by their defaults, so a bad
    /// definition can never fill the world with NaN; validate first to report them.
    pub fn create_body(&mut self, def: BodyDef) -> BodyHandle {
        let mut body = Body::new(&def.sanitized());
        body.sync_center();
        let handle = self.bodies.insert(body);
        self.update_mass(handle.index());
        handle
    }

    /// Creates a body with its colliders in one go. Unlike `create_body` followed by
    /// `add_collider`, the velocities and the awake state are exactly those of `def` (adding
    /// colliders one by one moves the centre of mass, which changes its velocity when the
    /// body spins). On error nothing is left behind.
    pub fn create_body_with_colliders(
        &mut self,
        def: BodyDef,
        colliders: &[ColliderDef],
    ) -> Result<(BodyHandle, Vec<ColliderHandle>), ColliderError> {
        let handle = self.create_body(BodyDef {
            linear_velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            ..def.clone()
        });
        let mut handles = Vec::with_capacity(colliders.len());
        for (i, collider) in colliders.iter().enumerate() {
            match self.add_collider(handle, collider.clone()) {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // Made just above, so it is there to remove.
                    let _ = self.remove_body(handle);
                    return Err(match e {
                        ColliderError::Invalid(m) => {
                            ColliderError::Invalid(format!("collider {i}: {m}"))
                        }
                        other => other,
                    });
                }
            }
        }
        if let Some(body) = self.bodies.get_mut(handle) {
            if body.body_type != BodyType::Static {
                body.linear_velocity = def.linear_velocity;
                body.angular_velocity = def.angular_velocity;
            }
            body.awake = def.awake || body.body_type == BodyType::Static;
        }
        Ok((handle, handles))
    }

    /// Attaches a collider to a body; the body's mass and inertia are recomputed.
    pub fn add_collider(
        &mut self,
        body: BodyHandle,
        def: ColliderDef,
    ) -> Result<ColliderHandle, ColliderError> {
        let body_ref = self.bodies.get(body).ok_or(ColliderError::StaleBody)?;
        def.validate().map_err(ColliderError::Invalid)?;
        if body_ref.body_type == BodyType::Dynamic {
            check_dynamic_mass(&def.shape, def.density).map_err(ColliderError::Invalid)?;
        }
        if matches!(def.shape, Shape::Plane { .. }) && body_ref.body_type != BodyType::Static {
            return Err(ColliderError::Invalid(
                "a Plane can only belong to a Static body".into(),
            ));
        }
        let body_pose = Isometry::new(body_ref.position, body_ref.rotation);
        let shape = canonical_shape(def.shape);
        let mut collider = Collider {
            body: body.index(),
            feature_size: shape.feature_size(),
            shape,
            local_pose: Isometry::new(def.local_position, normalized_exactly(def.local_rotation)),
            friction: def.friction,
            restitution: def.restitution,
            density: def.density,
            rolling_resistance: def.rolling_resistance,
            proxy: NULL,
            world_pose: Isometry::IDENTITY,
            aabb: crate::physics::aabb::Aabb::new(Vec3::ZERO, Vec3::ZERO),
            fat_aabb: crate::physics::aabb::Aabb::new(Vec3::ZERO, Vec3::ZERO),
            sensor: def.sensor,
            filter: def.filter,
            user_data: def.user_data,
        };
        collider.sync(&body_pose);
        let aabb = collider.aabb;
        let handle = self.colliders.insert(collider);
        let proxy = self.broad_phase.create_proxy(aabb, handle.index());
        if let Some(c) = self.colliders.get_mut(handle) {
            c.proxy = proxy;
            c.fat_aabb = self.broad_phase.fat_aabb(proxy);
        }
        if let Some(b) = self.bodies.get_mut(body) {
            b.colliders.push(handle.index());
        }
        self.update_mass(body.index());
        self.wake_body_index(body.index());
        Ok(handle)
    }

    /// Removes a body with its colliders, joints and contacts. Bodies it touched wake up.
    pub fn remove_body(&mut self, handle: BodyHandle) -> Result<(), BodyError> {
        if self.bodies.get(handle).is_none() {
            return Err(BodyError::StaleBody);
        }
        let index = handle.index();
        self.remove_joints_of(index);
        self.detach_contacts(index);
        let Some(body) = self.bodies.remove(handle) else {
            return Err(BodyError::StaleBody);
        };
        for &ci in &body.colliders {
            if let Some(handle) = self.colliders.handle_at(ci) {
                if let Some(collider) = self.colliders.remove(handle) {
                    self.broad_phase.destroy_proxy(collider.proxy);
                }
            }
        }
        Ok(())
    }

    /// Removes one collider; its body's mass is recomputed and what it touched wakes up.
    pub fn remove_collider(&mut self, handle: ColliderHandle) -> Result<(), ColliderError> {
        let Some(collider) = self.colliders.get(handle) else {
            return Err(ColliderError::StaleCollider);
        };
        let body = collider.body;
        self.wake_touching(body);
        self.wake_body_index(body);
        self.destroy_collider_contacts(handle.index());
        let Some(collider) = self.colliders.remove(handle) else {
            return Err(ColliderError::StaleCollider);
        };
        self.broad_phase.destroy_proxy(collider.proxy);
        if let Some(b) = self.bodies.at_mut(body) {
            b.colliders.retain(|&c| c != handle.index());
        }
        self.update_mass(body);
        Ok(())
    }

    /// Wakes a body and everything it touches, then destroys its contacts (before the body
    /// is removed or changes type).
    fn detach_contacts(&mut self, index: u32) {
        self.wake_touching(index);
        self.wake_body_index(index);
        let mut ids = Vec::new();
        self.body_contacts(index, &mut ids);
        for id in ids {
            self.destroy_contact(id);
        }
    }

    /// Destroys the contacts of one collider slot.
    fn destroy_collider_contacts(&mut self, collider: u32) {
        let Some(body) = self.colliders.at(collider).map(|c| c.body) else {
            return;
        };
        let mut ids = Vec::new();
        self.body_contacts(body, &mut ids);
        for id in ids {
            let c = &self.contacts.slots[id as usize];
            if c.collider_a == collider || c.collider_b == collider {
                self.destroy_contact(id);
            }
        }
    }

    /// The body, if the handle is live.
    pub fn body(&self, handle: BodyHandle) -> Option<&Body> {
        self.bodies.get(handle)
    }

    /// The collider, if the handle is live.
    pub fn collider(&self, handle: ColliderHandle) -> Option<&Collider> {
        self.colliders.get(handle)
    }

    /// The body a collider belongs to.
    pub fn collider_body(&self, handle: ColliderHandle) -> Option<BodyHandle> {
        let c = self.colliders.get(handle)?;
        self.bodies.handle_at(c.body)
    }

    /// The colliders of a body (empty for a stale handle).
    pub fn body_colliders(&self, handle: BodyHandle) -> impl Iterator<Item = ColliderHandle> + '_ {
        self.bodies
            .get(handle)
            .map(|b| b.colliders.as_slice())
            .unwrap_or(&[])
            .iter()
            .filter_map(|&c| self.colliders.handle_at(c))
    }

    /// All bodies, in slot order.
    pub fn bodies(&self) -> impl Iterator<Item = (BodyHandle, &Body)> {
        self.bodies.iter()
    }

    /// All colliders, in slot order.
    pub fn colliders(&self) -> impl Iterator<Item = (ColliderHandle, &Collider)> {
        self.colliders.iter()
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Number of colliders.
    pub fn collider_count(&self) -> usize {
        self.colliders.len()
    }

    /// Moves the body (origin) to `position`, wakes it.
    pub fn set_position(&mut self, handle: BodyHandle, position: Vec3) -> Result<(), BodyError> {
        let rotation = self
            .bodies
            .get(handle)
            .ok_or(BodyError::StaleBody)?
            .rotation;
        self.set_transform(handle, position, rotation)
    }

    /// Turns the body to `rotation` (normalised), wakes it.
    pub fn set_rotation(&mut self, handle: BodyHandle, rotation: Quat) -> Result<(), BodyError> {
        let position = self
            .bodies
            .get(handle)
            .ok_or(BodyError::StaleBody)?
            .position;
        self.set_transform(handle, position, rotation)
    }

    /// Places the body, moves its colliders and proxies, wakes it and what it touches.
    /// Refused (with the reason) for a position [`BodyDef::validate`] would refuse, or a
    /// rotation that is zero or not finite.
    pub fn set_transform(
        &mut self,
        handle: BodyHandle,
        position: Vec3,
        rotation: Quat,
    ) -> Result<(), BodyError> {
        BodyDef {
            position,
            rotation,
            ..BodyDef::default()
        }
        .validate()
        .map_err(BodyError::Invalid)?;
        let body = self.bodies.get_mut(handle).ok_or(BodyError::StaleBody)?;
        body.position = position;
        body.rotation = unit_rotation(rotation).unwrap_or(Quat::IDENTITY);
        body.frozen = false;
        body.sync_center();
        self.sync_body_colliders(handle.index());
        self.wake_touching(handle.index());
        self.wake_body_index(handle.index());
        Ok(())
    }

    /// Recomputes a body's collider poses and moves their proxies (teleport: no prediction).
    fn sync_body_colliders(&mut self, index: u32) {
        let Some(body) = self.bodies.at(index) else {
            return;
        };
        let pose = Isometry::new(body.position, body.rotation);
        for &ci in &body.colliders {
            if let Some(collider) = self.colliders.at_mut(ci) {
                collider.sync(&pose);
                move_collider_proxy(&mut *self.broad_phase, collider, Vec3::ZERO);
            }
        }
    }

    /// Runs `f` on a live non-static body, then wakes it. False for stale or static bodies.
    /// Runs `f` on a live non-static body, then wakes it; the reason when it cannot.
    fn change_moving_body(
        &mut self,
        handle: BodyHandle,
        f: impl FnOnce(&mut Body),
    ) -> Result<(), BodyError> {
        let body = self.bodies.get_mut(handle).ok_or(BodyError::StaleBody)?;
        if body.body_type == BodyType::Static {
            return Err(BodyError::Static);
        }
        f(body);
        self.wake_body_index(handle.index());
        Ok(())
    }

    /// Sets the velocity of the centre of mass, m/s (finite, at most
    /// [`MAX_LINEAR_SPEED`](crate::physics::constants::MAX_LINEAR_SPEED), or
    /// [`MAX_CCD_LINEAR_SPEED`](crate::physics::constants::MAX_CCD_LINEAR_SPEED) for a ccd body).
    pub fn set_linear_velocity(
        &mut self,
        handle: BodyHandle,
        velocity: Vec3,
    ) -> Result<(), BodyError> {
        let ccd = self.bodies.get(handle).is_some_and(|b| b.ccd);
        BodyDef {
            linear_velocity: velocity,
            ccd,
            ..BodyDef::default()
        }
        .validate()
        .map_err(BodyError::Invalid)?;
        self.change_moving_body(handle, |b| b.linear_velocity = velocity)
    }

    /// Sets the angular velocity, rad/s (finite; a step keeps at most
    /// [`WorldSettings::max_angular_speed`](crate::physics::WorldSettings::max_angular_speed)).
    pub fn set_angular_velocity(
        &mut self,
        handle: BodyHandle,
        velocity: Vec3,
    ) -> Result<(), BodyError> {
        if !is_finite_vec(velocity) {
            return Err(BodyError::Invalid(format!(
                "angular_velocity must be finite, got {velocity}"
            )));
        }
        self.change_moving_body(handle, |b| b.angular_velocity = velocity)
    }

    /// Adds a force through the centre of mass for the next step, N.
    pub fn apply_force(&mut self, handle: BodyHandle, force: Vec3) -> Result<(), BodyError> {
        finite("force", force)?;
        self.change_moving_body(handle, |b| b.force += force)
    }

    /// Adds a force at a world point (also a torque (p − c) × F) for the next step.
    pub fn apply_force_at_point(
        &mut self,
        handle: BodyHandle,
        force: Vec3,
        point: Vec3,
    ) -> Result<(), BodyError> {
        finite("force", force)?;
        finite("point", point)?;
        self.change_moving_body(handle, |b| {
            b.force += force;
            b.torque += (point - b.center).cross(force);
        })
    }

    /// Adds a torque for the next step, N·m.
    pub fn apply_torque(&mut self, handle: BodyHandle, torque: Vec3) -> Result<(), BodyError> {
        finite("torque", torque)?;
        self.change_moving_body(handle, |b| b.torque += torque)
    }

    /// Changes the velocity at once by impulse / mass, N·s.
    pub fn apply_impulse(&mut self, handle: BodyHandle, impulse: Vec3) -> Result<(), BodyError> {
        finite("impulse", impulse)?;
        self.change_moving_body(handle, |b| b.linear_velocity += impulse * b.inv_mass)
    }

    /// An impulse at a world point: Δv = P/m, Δω = I⁻¹·((p − c) × P).
    pub fn apply_impulse_at_point(
        &mut self,
        handle: BodyHandle,
        impulse: Vec3,
        point: Vec3,
    ) -> Result<(), BodyError> {
        finite("impulse", impulse)?;
        finite("point", point)?;
        self.change_moving_body(handle, |b| {
            b.linear_velocity += impulse * b.inv_mass;
            b.angular_velocity += b.world_inv_inertia() * (point - b.center).cross(impulse);
        })
    }

    /// Wakes a body (and its island).
    pub fn wake_body(&mut self, handle: BodyHandle) -> Result<(), BodyError> {
        if self.bodies.get(handle).is_none() {
            return Err(BodyError::StaleBody);
        }
        self.wake_body_index(handle.index());
        Ok(())
    }

    /// Sets linear and angular damping, 1/s.
    pub fn set_damping(
        &mut self,
        handle: BodyHandle,
        linear: f32,
        angular: f32,
    ) -> Result<(), BodyError> {
        BodyDef {
            linear_damping: linear,
            angular_damping: angular,
            ..BodyDef::default()
        }
        .validate()
        .map_err(BodyError::Invalid)?;
        self.change_moving_body(handle, |b| {
            b.linear_damping = linear;
            b.angular_damping = angular;
        })
    }

    /// Sets the gravity multiplier.
    pub fn set_gravity_scale(&mut self, handle: BodyHandle, scale: f32) -> Result<(), BodyError> {
        if !scale.is_finite() {
            return Err(BodyError::Invalid(format!(
                "gravity_scale must be finite, got {scale}"
            )));
        }
        self.change_moving_body(handle, |b| b.gravity_scale = scale)
    }

    /// Locks degrees of freedom of the body (see [`Locks`](crate::physics::body::Locks)); its
    /// velocity along them is dropped at the next step, where it stands stays.
    pub fn set_locked(
        &mut self,
        handle: BodyHandle,
        locked: crate::physics::body::Locks,
    ) -> Result<(), BodyError> {
        self.change_moving_body(handle, |b| b.locked = locked)
    }

    /// Allows or forbids sleeping (forbidding wakes the body).
    pub fn set_can_sleep(&mut self, handle: BodyHandle, can_sleep: bool) -> Result<(), BodyError> {
        self.change_moving_body(handle, |b| b.can_sleep = can_sleep)
    }

    /// Changes the body type. Contacts are rebuilt, mass recomputed, the body woken;
    /// a body that becomes static stops. Refused for a body with a plane (planes are static)
    /// and, to dynamic, for colliders whose mass the solver could not use.
    pub fn set_body_type(
        &mut self,
        handle: BodyHandle,
        body_type: BodyType,
    ) -> Result<(), BodyError> {
        let body = self.bodies.get(handle).ok_or(BodyError::StaleBody)?;
        if body.body_type == body_type {
            return Ok(());
        }
        for c in body.colliders.iter().filter_map(|&c| self.colliders.at(c)) {
            if matches!(c.shape, Shape::Plane { .. }) && body_type != BodyType::Static {
                return Err(BodyError::Invalid(
                    "a body with a Plane collider must stay static".into(),
                ));
            }
            if body_type == BodyType::Dynamic {
                check_dynamic_mass(&c.shape, c.density).map_err(BodyError::Invalid)?;
            }
        }
        let index = handle.index();
        self.detach_contacts(index);
        if let Some(body) = self.bodies.get_mut(handle) {
            body.body_type = body_type;
            body.awake = true;
            body.sleep_time = 0.0;
            if body_type == BodyType::Static {
                body.linear_velocity = Vec3::ZERO;
                body.angular_velocity = Vec3::ZERO;
            }
        }
        self.touch_body_proxies(index);
        self.update_mass(index);
        Ok(())
    }

    /// Changes a collider's material (friction, restitution, density, rolling resistance
    /// from `material`; its shape and pose are kept). Contacts pick up the new mixed values,
    /// mass is recomputed, the body woken.
    pub fn set_collider_material(
        &mut self,
        handle: ColliderHandle,
        material: &ColliderDef,
    ) -> Result<(), ColliderError> {
        let collider = self
            .colliders
            .get(handle)
            .ok_or(ColliderError::StaleCollider)?;
        let def = ColliderDef {
            friction: material.friction,
            restitution: material.restitution,
            density: material.density,
            rolling_resistance: material.rolling_resistance,
            ..collider.to_def()
        };
        def.validate().map_err(ColliderError::Invalid)?;
        let body = collider.body;
        if self.bodies.at(body).map(|b| b.body_type) == Some(BodyType::Dynamic) {
            check_dynamic_mass(&def.shape, def.density).map_err(ColliderError::Invalid)?;
        }
        if let Some(c) = self.colliders.get_mut(handle) {
            c.friction = def.friction;
            c.restitution = def.restitution;
            c.density = def.density;
            c.rolling_resistance = def.rolling_resistance;
        }
        let mut ids = Vec::new();
        self.body_contacts(body, &mut ids);
        for id in ids {
            let (ca, cb) = {
                let c = &self.contacts.slots[id as usize];
                (c.collider_a, c.collider_b)
            };
            if ca != handle.index() && cb != handle.index() {
                continue;
            }
            let (Some(a), Some(b)) = (self.colliders.at(ca), self.colliders.at(cb)) else {
                continue;
            };
            let mixed = MixedMaterial::of(a, b);
            self.contacts.slots[id as usize].material = mixed;
        }
        self.update_mass(body);
        self.wake_body_index(body);
        Ok(())
    }

    /// Changes which colliders a collider touches. Its contacts with colliders the new
    /// filter refuses end now (with their end events) and wake the other body; pairs it
    /// newly allows are found by the next step's broad phase, and the bodies of the colliders
    /// its box overlaps that it touches only now are woken, so that a sleeping one takes
    /// part.
    pub fn set_collider_filter(
        &mut self,
        handle: ColliderHandle,
        filter: CollisionFilter,
    ) -> Result<(), ColliderError> {
        let collider = self
            .colliders
            .get_mut(handle)
            .ok_or(ColliderError::StaleCollider)?;
        let before = std::mem::replace(&mut collider.filter, filter);
        let (body, proxy) = (collider.body, collider.proxy);
        let mut ids = Vec::new();
        self.body_contacts(body, &mut ids);
        for id in ids {
            let c = &self.contacts.slots[id as usize];
            let (other, other_body) = match (c.collider_a, c.collider_b) {
                (a, b) if a == handle.index() => (b, c.edges[1].body),
                (a, b) if b == handle.index() => (a, c.edges[0].body),
                _ => continue,
            };
            if self
                .colliders
                .at(other)
                .is_some_and(|o| !o.filter.allows(filter))
            {
                self.destroy_contact(id);
                self.wake_body_index(other_body);
            }
        }
        let mut near = Vec::new();
        self.broad_phase
            .query(&self.broad_phase.fat_aabb(proxy), &mut |user| {
                near.push(user);
                true
            });
        for other in near {
            let Some(o) = self.colliders.at(other) else {
                continue;
            };
            if o.body != body && o.filter.allows(filter) && !o.filter.allows(before) {
                let other_body = o.body;
                self.wake_body_index(other_body);
            }
        }
        self.broad_phase.touch_proxy(proxy);
        self.wake_body_index(body);
        Ok(())
    }

    /// Replaces a collider's shape and its placement on the body (for resizing in an
    /// editor); mass is recomputed and the body woken.
    pub fn set_collider_shape(
        &mut self,
        handle: ColliderHandle,
        shape: Shape,
        local_pose: Isometry,
    ) -> Result<(), ColliderError> {
        let collider = self
            .colliders
            .get(handle)
            .ok_or(ColliderError::StaleCollider)?;
        let mut def = collider.to_def();
        def.shape = shape.clone();
        def.local_position = local_pose.translation;
        def.local_rotation = local_pose.rotation;
        def.validate().map_err(ColliderError::Invalid)?;
        let body = collider.body;
        let body_type = self.bodies.at(body).map(|b| b.body_type);
        if body_type == Some(BodyType::Dynamic) {
            check_dynamic_mass(&def.shape, def.density).map_err(ColliderError::Invalid)?;
        }
        if matches!(shape, Shape::Plane { .. }) && body_type != Some(BodyType::Static) {
            return Err(ColliderError::Invalid(
                "a Plane can only belong to a Static body".into(),
            ));
        }
        if let Some(c) = self.colliders.get_mut(handle) {
            c.shape = canonical_shape(shape);
            c.feature_size = c.shape.feature_size();
            c.local_pose = Isometry::new(
                local_pose.translation,
                unit_rotation(local_pose.rotation).unwrap_or(Quat::IDENTITY),
            );
        }
        self.sync_body_colliders(body);
        self.forget_manifolds(body);
        self.update_mass(body);
        self.wake_touching(body);
        self.wake_body_index(body);
        Ok(())
    }

    /// Recomputes mass, centre of mass and inertia from the colliders (parallel axis
    /// theorem over the colliders' own centres). Keeps the velocity of the material point
    /// at the new centre of mass.
    pub(crate) fn update_mass(&mut self, index: u32) {
        let Some(body) = self.bodies.at(index) else {
            return;
        };
        let dynamic = body.body_type == BodyType::Dynamic;
        let parts: Vec<MassProperties> = if dynamic {
            body.colliders
                .iter()
                .filter_map(|&c| self.colliders.at(c))
                .map(|c| {
                    c.shape
                        .mass_properties(c.density)
                        .transformed(c.local_pose.translation, c.local_pose.rotation)
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut props = MassProperties::sum(&parts);
        let extent = self.collider_extent(index, props.local_center);
        let Some(body) = self.bodies.at_mut(index) else {
            return;
        };
        let old_center = body.center;
        body.extent = extent;
        if dynamic && props.mass <= 0.0 {
            // A dynamic body needs some mass: 1 kg with the inertia of a 1 m ball-ish point.
            props = MassProperties {
                mass: 1.0,
                local_center: props.local_center,
                inertia: Mat3::from_diagonal(Vec3::splat(0.4)),
            };
        }
        body.mass = props.mass;
        body.inv_mass = if props.mass > 0.0 {
            1.0 / props.mass
        } else {
            0.0
        };
        body.local_center = props.local_center;
        body.local_inertia = props.inertia;
        body.local_inv_inertia = if dynamic {
            invert_or_zero(props.inertia)
        } else {
            Mat3::ZERO
        };
        body.sync_center();
        if dynamic {
            body.linear_velocity += body.angular_velocity.cross(body.center - old_center);
        }
    }

    /// Distance from `center` (body frame) to the farthest corner of the colliders' local
    /// bounding boxes; planes, which have no far point, are left out.
    fn collider_extent(&self, index: u32, center: Vec3) -> f32 {
        let Some(body) = self.bodies.at(index) else {
            return 0.0;
        };
        body.colliders
            .iter()
            .filter_map(|&c| self.colliders.at(c))
            .filter(|c| !matches!(c.shape, Shape::Plane { .. }))
            .map(|c| {
                let local = c.shape.local_aabb();
                let offset =
                    c.local_pose.translation + c.local_pose.rotation * local.center() - center;
                offset.length() + local.half_extents().length()
            })
            .fold(0.0, f32::max)
    }
}
