//! Rigid bodies: their definitions (what you ask for) and their state (what the world keeps).

use super::constants::{MAX_CCD_LINEAR_SPEED, MAX_COORDINATE, MAX_LINEAR_SPEED};
use super::math::{is_usable_rotation, unit_rotation, Mat3, Quat, Vec3};

/// How a body moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BodyType {
    /// Never moves; infinite mass. Ground, walls.
    Static,
    /// Moved by its velocity only, never by forces or contacts; infinite mass, pushes dynamic
    /// bodies out of its way. Platforms, paddles.
    Kinematic,
    /// Moved by gravity, forces and contacts.
    #[default]
    Dynamic,
}

/// Everything needed to create a body. Colliders are added afterwards.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyDef {
    /// Static, kinematic or dynamic.
    pub body_type: BodyType,
    /// World position of the body origin, m.
    pub position: Vec3,
    /// World orientation (normalised on creation).
    pub rotation: Quat,
    /// Velocity of the centre of mass, m/s.
    pub linear_velocity: Vec3,
    /// Angular velocity, rad/s, world axes.
    pub angular_velocity: Vec3,
    /// Linear damping, 1/s: v is scaled by 1 / (1 + h·damping) each (sub)step.
    pub linear_damping: f32,
    /// Angular damping, 1/s, applied like the linear one.
    pub angular_damping: f32,
    /// Multiplies the world's gravity for this body (0 = floats, -1 = falls up).
    pub gravity_scale: f32,
    /// May this body fall asleep when it rests?
    pub can_sleep: bool,
    /// Start awake (true) or asleep.
    pub awake: bool,
    /// Continuous collision: the body's motion over each step is swept against everything
    /// it could pass through, and it stops at the first hit (see `continuous.rs`); it may go
    /// up to [`MAX_CCD_LINEAR_SPEED`] instead of [`MAX_LINEAR_SPEED`].
    pub ccd: bool,
    /// Free for the user (the scene loader stores the body's index in its file).
    pub user_data: u64,
    /// World axes along which the body may not move, and about which it may not turn.
    pub locked: Locks,
}

/// Locked degrees of freedom of a dynamic body, in world axes (x, y, z). A locked rotation
/// axis is taken out of the body's inverse inertia (see [`Locks::inv_inertia`]), so contacts
/// and joints solve as if the body could not turn that way; a locked
/// translation axis is taken out of the body's velocity after every solver pass, so it never
/// moves along it. Both keep the locked coordinates bit for bit. Static and kinematic bodies
/// ignore them (they move only as told).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Locks {
    /// No motion along x, y, z.
    pub translation: [bool; 3],
    /// No turning about x, y, z.
    pub rotation: [bool; 3],
}

impl Locks {
    /// Nothing locked.
    pub const NONE: Locks = Locks {
        translation: [false; 3],
        rotation: [false; 3],
    };
    /// The x–y plane: no motion along z, turning only about z.
    pub const PLANAR: Locks = Locks {
        translation: [false, false, true],
        rotation: [true, true, false],
    };

    /// Both sets of locks.
    pub fn union(self, other: Locks) -> Locks {
        let or = |a: [bool; 3], b: [bool; 3]| [a[0] || b[0], a[1] || b[1], a[2] || b[2]];
        Locks {
            translation: or(self.translation, other.translation),
            rotation: or(self.rotation, other.rotation),
        }
    }

    /// True when nothing is locked.
    pub fn is_none(&self) -> bool {
        *self == Locks::NONE
    }

    /// 1 on the free translation axes, 0 on the locked ones.
    pub fn linear_free(&self) -> Vec3 {
        Vec3::from_array(self.translation.map(|l| if l { 0.0 } else { 1.0 }))
    }

    /// 1 on the free rotation axes, 0 on the locked ones.
    pub fn angular_free(&self) -> Vec3 {
        Vec3::from_array(self.rotation.map(|l| if l { 0.0 } else { 1.0 }))
    }

    /// The inverse inertia, world axes, of a body of world inertia `inertia` (kg·m²) that may
    /// turn only about the free axes: E·(Eᵀ·I·E)⁻¹·Eᵀ, E the free axes as columns. With
    /// ω = E·u the locks' torques act along the locked axes only, so Eᵀ·I·E·u̇ = Eᵀ·τ. (The
    /// whole inverse cut down, P·I⁻¹·P, is larger than this for a tensor not aligned with the
    /// axes, by up to its ratio of largest to smallest moment: a tilted capsule in a planar
    /// world would turn about z as if many times lighter than its energy ½·ωᵀ·I·ω says.)
    /// `inv_inertia` is the whole inverse, returned as it is when nothing is locked, and zero
    /// (infinite inertia) stays zero.
    pub fn inv_inertia(&self, inertia: Mat3, inv_inertia: Mat3) -> Mat3 {
        let mut free = [0usize; 3];
        let mut count = 0;
        for i in (0..3).filter(|&i| !self.rotation[i]) {
            free[count] = i;
            count += 1;
        }
        if count == 3 || inv_inertia == Mat3::ZERO {
            return inv_inertia;
        }
        let m = inertia.to_cols_array_2d(); // m[column][row]
        let mut out = [[0.0f32; 3]; 3];
        match free[..count] {
            [i] if m[i][i] > 0.0 => out[i][i] = 1.0 / m[i][i],
            [i, j] => {
                // The 2×2 block's inverse: [a b; c d]⁻¹ = [d −b; −c a] / (a·d − b·c).
                let (a, b, c, d) = (m[i][i], m[j][i], m[i][j], m[j][j]);
                let det = a * d - b * c;
                if det > 0.0 {
                    out[i][i] = d / det;
                    out[j][i] = -b / det;
                    out[i][j] = -c / det;
                    out[j][j] = a / det;
                }
            }
            _ => {}
        }
        Mat3::from_cols_array_2d(&out)
    }
}

impl Default for BodyDef {
    fn default() -> Self {
        Self {
            body_type: BodyType::Dynamic,
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            linear_velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            can_sleep: true,
            awake: true,
            ccd: false,
            user_data: 0,
            locked: Locks::NONE,
        }
    }
}

impl BodyDef {
    /// A dynamic body at `position`.
    pub fn dynamic(position: Vec3) -> Self {
        Self {
            position,
            ..Self::default()
        }
    }

    /// A static body at `position`.
    pub fn static_body(position: Vec3) -> Self {
        Self {
            body_type: BodyType::Static,
            position,
            ..Self::default()
        }
    }

    /// Checks every value: finite numbers, a position within
    /// [`MAX_COORDINATE`] m of the origin on each axis, a speed of at most
    /// [`MAX_LINEAR_SPEED`], a rotation that is not zero, non-negative damping. The message
    /// names the field.
    pub fn validate(&self) -> Result<(), String> {
        let vector = |name: &str, v: Vec3| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(format!("{name} must be finite, got {v}"))
            }
        };
        vector("position", self.position)?;
        vector("linear_velocity", self.linear_velocity)?;
        vector("angular_velocity", self.angular_velocity)?;
        for (axis, v) in ["x", "y", "z"].iter().zip(self.position.to_array()) {
            if v.abs() > MAX_COORDINATE {
                return Err(format!(
                    "position.{axis} is {v} m; at most {MAX_COORDINATE} m from the origin"
                ));
            }
        }
        let speed = self.linear_velocity.length();
        let max = max_linear_speed(self.ccd);
        if speed > max {
            return Err(format!(
                "linear_velocity is {speed} m/s; at most {max} m/s{}",
                if self.ccd {
                    ""
                } else {
                    " (with ccd: true, up to 2000 m/s)"
                }
            ));
        }
        if !is_usable_rotation(self.rotation) {
            return Err(format!(
                "rotation must be a finite non-zero quaternion, got {}",
                self.rotation
            ));
        }
        for (name, v) in [
            ("linear_damping", self.linear_damping),
            ("angular_damping", self.angular_damping),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("{name} must be 0 or more, got {v}"));
            }
        }
        if !self.gravity_scale.is_finite() {
            return Err(format!(
                "gravity_scale must be finite, got {}",
                self.gravity_scale
            ));
        }
        Ok(())
    }

    /// This definition with every value `validate` would refuse replaced by its default.
    pub fn sanitized(&self) -> BodyDef {
        let d = BodyDef::default();
        let vector = |v: Vec3, default: Vec3| if v.is_finite() { v } else { default };
        let non_negative = |v: f32| if v.is_finite() && v >= 0.0 { v } else { 0.0 };
        BodyDef {
            position: if self.position.is_finite()
                && self.position.abs().max_element() <= MAX_COORDINATE
            {
                self.position
            } else {
                d.position
            },
            linear_velocity: if self.linear_velocity.length() <= max_linear_speed(self.ccd) {
                self.linear_velocity
            } else {
                d.linear_velocity
            },
            angular_velocity: vector(self.angular_velocity, d.angular_velocity),
            rotation: if is_usable_rotation(self.rotation) {
                self.rotation
            } else {
                d.rotation
            },
            linear_damping: non_negative(self.linear_damping),
            angular_damping: non_negative(self.angular_damping),
            gravity_scale: if self.gravity_scale.is_finite() {
                self.gravity_scale
            } else {
                1.0
            },
            ..self.clone()
        }
    }

    /// A kinematic body at `position` moving with `linear_velocity`.
    pub fn kinematic(position: Vec3, linear_velocity: Vec3) -> Self {
        Self {
            body_type: BodyType::Kinematic,
            position,
            linear_velocity,
            ..Self::default()
        }
    }
}

/// Sentinel for "no index" in intrusive lists and side tables.
pub(crate) const NULL: u32 = u32::MAX;

/// A body as the world stores it.
#[derive(Clone, Debug)]
pub struct Body {
    pub(crate) body_type: BodyType,
    /// World position of the body origin.
    pub(crate) position: Vec3,
    /// World orientation.
    pub(crate) rotation: Quat,
    /// World position of the centre of mass.
    pub(crate) center: Vec3,
    /// Centre of mass in the body frame.
    pub(crate) local_center: Vec3,
    pub(crate) linear_velocity: Vec3,
    pub(crate) angular_velocity: Vec3,
    /// Force accumulated for the next step, N (cleared after it).
    pub(crate) force: Vec3,
    /// Torque accumulated for the next step, N·m (cleared after it).
    pub(crate) torque: Vec3,
    pub(crate) mass: f32,
    pub(crate) inv_mass: f32,
    /// Inertia about the centre of mass, body axes.
    pub(crate) local_inertia: Mat3,
    /// Its inverse (zero for infinite inertia).
    pub(crate) local_inv_inertia: Mat3,
    pub(crate) linear_damping: f32,
    pub(crate) angular_damping: f32,
    pub(crate) gravity_scale: f32,
    pub(crate) can_sleep: bool,
    pub(crate) awake: bool,
    /// Continuous collision (see [`BodyDef::ccd`]).
    pub(crate) ccd: bool,
    /// Locked degrees of freedom (dynamic bodies only).
    pub(crate) locked: Locks,
    /// Its state stopped being finite in a step: kept at its last finite pose, at rest, and
    /// left out of the solver (others see it as fixed) until it is placed again.
    pub(crate) frozen: bool,
    /// Distance from the centre of mass to the farthest point of the colliders' local
    /// bounding boxes, m (0 without colliders); scales the sleep thresholds.
    pub(crate) extent: f32,
    /// How long the body has moved slower than the sleep thresholds, s.
    pub(crate) sleep_time: f32,
    /// Index of the sleeping island holding this body, or NULL when awake.
    pub(crate) sleep_island: u32,
    /// Island id of the last step (for debug drawing), or NULL.
    pub(crate) island: u32,
    /// Slot indices of the body's colliders.
    pub(crate) colliders: ColliderIds,
    /// Head of the intrusive list of contact edges (contact id << 1 | side), or NULL.
    pub(crate) contact_head: u32,
    /// Number of contacts in that list.
    pub(crate) contact_count: u32,
    /// How many joints to another body keep this one from colliding with it (most bodies
    /// have none, and a new pair of them needs no look at the joints).
    pub(crate) joints_without_contact: u32,
    /// Position in the solver's body array this step, or NULL.
    pub(crate) solver_index: u32,
    pub(crate) user_data: u64,
}

impl Body {
    pub(crate) fn new(def: &BodyDef) -> Self {
        let rotation = normalized_exactly(def.rotation);
        let mut body = Self {
            body_type: def.body_type,
            position: def.position,
            rotation,
            center: def.position,
            local_center: Vec3::ZERO,
            linear_velocity: def.linear_velocity,
            angular_velocity: def.angular_velocity,
            force: Vec3::ZERO,
            torque: Vec3::ZERO,
            mass: 0.0,
            inv_mass: 0.0,
            local_inertia: Mat3::ZERO,
            local_inv_inertia: Mat3::ZERO,
            linear_damping: def.linear_damping,
            angular_damping: def.angular_damping,
            gravity_scale: def.gravity_scale,
            can_sleep: def.can_sleep,
            awake: def.awake || def.body_type == BodyType::Static,
            ccd: def.ccd,
            locked: def.locked,
            frozen: false,
            extent: 0.0,
            sleep_time: 0.0,
            sleep_island: NULL,
            island: NULL,
            colliders: ColliderIds::default(),
            contact_head: NULL,
            contact_count: 0,
            joints_without_contact: 0,
            solver_index: NULL,
            user_data: def.user_data,
        };
        if def.body_type == BodyType::Static {
            body.linear_velocity = Vec3::ZERO;
            body.angular_velocity = Vec3::ZERO;
        }
        body
    }

    /// Static, kinematic or dynamic.
    pub fn body_type(&self) -> BodyType {
        self.body_type
    }

    /// World position of the body origin, m.
    pub fn position(&self) -> Vec3 {
        self.position
    }

    /// World orientation.
    pub fn rotation(&self) -> Quat {
        self.rotation
    }

    /// World position of the centre of mass, m.
    pub fn center_of_mass(&self) -> Vec3 {
        self.center
    }

    /// Centre of mass in the body frame, m.
    pub fn local_center_of_mass(&self) -> Vec3 {
        self.local_center
    }

    /// Velocity of the centre of mass, m/s.
    pub fn linear_velocity(&self) -> Vec3 {
        self.linear_velocity
    }

    /// Angular velocity, rad/s.
    pub fn angular_velocity(&self) -> Vec3 {
        self.angular_velocity
    }

    /// Velocity of a world point attached to the body, m/s.
    pub fn velocity_at_point(&self, point: Vec3) -> Vec3 {
        self.linear_velocity + self.angular_velocity.cross(point - self.center)
    }

    /// Mass, kg (0 for static and kinematic bodies).
    pub fn mass(&self) -> f32 {
        self.mass
    }

    /// 1 / mass, or 0 for infinite mass.
    pub fn inv_mass(&self) -> f32 {
        self.inv_mass
    }

    /// Inertia tensor about the centre of mass in body axes, kg·m².
    pub fn local_inertia(&self) -> Mat3 {
        self.local_inertia
    }

    /// Inertia tensor about the centre of mass in world axes: R·I·Rᵀ.
    pub fn world_inertia(&self) -> Mat3 {
        let r = Mat3::from_quat(self.rotation);
        r * self.local_inertia * r.transpose()
    }

    /// Inverse inertia in world axes: R·I⁻¹·Rᵀ (zero for infinite inertia). A multiple of
    /// the identity (a cube, a sphere) is the same in every frame and is returned as it is,
    /// without the rounding of the two products, so the solver can use it as one number.
    pub fn world_inv_inertia(&self) -> Mat3 {
        let m = self.local_inv_inertia;
        if m == Mat3::from_diagonal(Vec3::splat(m.x_axis.x)) {
            return m;
        }
        let r = Mat3::from_quat(self.rotation);
        r * self.local_inv_inertia * r.transpose()
    }

    /// Linear damping, 1/s.
    pub fn linear_damping(&self) -> f32 {
        self.linear_damping
    }

    /// Angular damping, 1/s.
    pub fn angular_damping(&self) -> f32 {
        self.angular_damping
    }

    /// Gravity multiplier.
    pub fn gravity_scale(&self) -> f32 {
        self.gravity_scale
    }

    /// May it sleep?
    pub fn can_sleep(&self) -> bool {
        self.can_sleep
    }

    /// Was it frozen because its state stopped being finite (see [`World::frozen_bodies`])?
    /// Placing it again with [`World::set_transform`] releases it.
    ///
    /// [`World::frozen_bodies`]: super::World::frozen_bodies
    /// [`World::set_transform`]: super::World::set_transform
    pub fn is_frozen(&self) -> bool {
        self.frozen
    }

    /// Is it simulated this step? (Static bodies count as awake.)
    pub fn is_awake(&self) -> bool {
        self.awake
    }

    /// Island index of the last step (for colouring islands), if it was in one.
    pub fn island(&self) -> Option<u32> {
        (self.island != NULL).then_some(self.island)
    }

    /// Number of colliders attached.
    pub fn collider_count(&self) -> usize {
        self.colliders.len()
    }

    /// The user's number.
    pub fn user_data(&self) -> u64 {
        self.user_data
    }

    /// Kinetic energy ½·m·v² + ½·ωᵀ·I·ω, J.
    pub fn kinetic_energy(&self) -> f32 {
        if self.body_type != BodyType::Dynamic {
            return 0.0;
        }
        let w = self.angular_velocity;
        0.5 * self.mass * self.linear_velocity.length_squared()
            + 0.5 * w.dot(self.world_inertia() * w)
    }

    /// The state for a new `BodyDef` that recreates this body (colliders not included).
    pub fn to_def(&self) -> BodyDef {
        BodyDef {
            body_type: self.body_type,
            position: self.position,
            rotation: self.rotation,
            linear_velocity: self.linear_velocity,
            angular_velocity: self.angular_velocity,
            linear_damping: self.linear_damping,
            angular_damping: self.angular_damping,
            gravity_scale: self.gravity_scale,
            can_sleep: self.can_sleep,
            awake: self.awake,
            ccd: self.ccd,
            user_data: self.user_data,
            locked: self.locked,
        }
    }

    /// The body's own locked degrees of freedom (the world's planar setting adds its own).
    pub fn locked(&self) -> Locks {
        self.locked
    }

    /// True when the body has continuous collision.
    pub fn has_ccd(&self) -> bool {
        self.ccd
    }

    /// Moves the centre of mass to follow the origin (after a transform change).
    pub(crate) fn sync_center(&mut self) {
        self.center = self.position + self.rotation * self.local_center;
    }

    /// True when forces and contacts can move it.
    pub(crate) fn is_dynamic(&self) -> bool {
        self.body_type == BodyType::Dynamic
    }
}

/// The speed cap of a body with (`true`) or without continuous collision, m/s.
pub fn max_linear_speed(ccd: bool) -> f32 {
    if ccd {
        MAX_CCD_LINEAR_SPEED
    } else {
        MAX_LINEAR_SPEED
    }
}

/// `q` normalised, but returned bit for bit when it is already unit length to rounding, so
/// a saved and reloaded rotation is exactly the one that was saved.
pub(crate) fn normalized_exactly(q: Quat) -> Quat {
    if (q.length_squared() - 1.0).abs() < 1.0e-6 {
        q
    } else {
        unit_rotation(q).unwrap_or(Quat::IDENTITY)
    }
}

/// A body's collider slot indices, in the order they were added. Up to two live in the body
/// itself (almost every body has one): the step's walks over the bodies (finalising poses,
/// bounding boxes, proxies) then reach a body's collider without first loading a heap
/// block, a cache miss per body in large scenes. More spill into a heap slice holding all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ColliderIds {
    inline: [u32; 2],
    len: u32,
    spilled: Vec<u32>,
}

impl ColliderIds {
    /// The indices as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[u32] {
        if self.spilled.is_empty() {
            &self.inline[..self.len as usize]
        } else {
            &self.spilled
        }
    }

    /// Appends an index.
    pub fn push(&mut self, index: u32) {
        let len = self.len as usize;
        if len < self.inline.len() {
            self.inline[len] = index;
        } else {
            if self.spilled.is_empty() {
                self.spilled.extend_from_slice(&self.inline);
            }
            self.spilled.push(index);
        }
        self.len += 1;
    }

    /// Keeps the indices `keep` accepts, in order.
    pub fn retain(&mut self, keep: impl FnMut(&u32) -> bool) {
        let mut kept = ColliderIds::default();
        for index in self.as_slice().iter().copied().filter(keep) {
            kept.push(index);
        }
        *self = kept;
    }
}

impl std::ops::Deref for ColliderIds {
    type Target = [u32];

    #[inline]
    fn deref(&self) -> &[u32] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a ColliderIds {
    type Item = &'a u32;
    type IntoIter = std::slice::Iter<'a, u32>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

#[cfg(test)]
mod tests {
    use super::{ColliderIds, Locks};
    use crate::physics::math::{Mat3, Quat, Vec3};

    /// E·(Eᵀ·I·E)⁻¹·Eᵀ for every set of locked rotation axes of a tilted box's tensor:
    /// Eᵀ·(I⁻¹_locked·I)·E is the identity on the free axes (the free block is inverted
    /// exactly), every row and column of a locked axis is zero, and one free axis k gives
    /// 1/I_kk, the moment about it, not the whole inverse's (I⁻¹)_kk.
    #[test]
    fn locked_inverse_inertia_inverts_the_free_block() {
        // A 1 kg box of half extents 0.1, 0.3, 0.6 m: I = m/3·(b² + c², a² + c², a² + b²).
        let (a, b, c) = (0.1f32, 0.3, 0.6);
        let local =
            Mat3::from_diagonal(Vec3::new(b * b + c * c, a * a + c * c, a * a + b * b) / 3.0);
        let r = Mat3::from_quat(Quat::from_euler(glam::EulerRot::XYZ, 0.7, -0.4, 1.1));
        let inertia = r * local * r.transpose();
        let whole = r * local.inverse() * r.transpose();
        for bits in 0..8u8 {
            let locks = Locks {
                translation: [false; 3],
                rotation: [bits & 1 != 0, bits & 2 != 0, bits & 4 != 0],
            };
            let inv = locks.inv_inertia(inertia, whole);
            let product = inv * inertia;
            for row in 0..3 {
                for col in 0..3 {
                    let got = inv.col(col)[row];
                    if locks.rotation[row] || locks.rotation[col] {
                        assert_eq!(got, 0.0, "locks {bits:03b}: entry ({row}, {col})");
                    } else {
                        let expected = if row == col { 1.0 } else { 0.0 };
                        let p = product.col(col)[row];
                        assert!(
                            (p - expected).abs() < 1e-5,
                            "locks {bits:03b}: (I⁻¹I)[{row}][{col}] = {p}"
                        );
                    }
                }
            }
            let free: Vec<usize> = (0..3).filter(|&i| !locks.rotation[i]).collect();
            if let [k] = free[..] {
                let moment = inertia.col(k)[k];
                assert!((inv.col(k)[k] * moment - 1.0).abs() < 1e-6);
                assert!(
                    whole.col(k)[k] * moment > 1.05,
                    "the tensor is tilted enough to tell"
                );
            }
        }
        assert_eq!(Locks::NONE.inv_inertia(inertia, whole), whole);
        assert_eq!(Locks::PLANAR.inv_inertia(inertia, Mat3::ZERO), Mat3::ZERO);
    }

    #[test]
    fn collider_ids_keep_their_order_inline_and_spilled() {
        let mut ids = ColliderIds::default();
        assert!(ids.is_empty());
        for i in 0..5 {
            ids.push(10 + i);
            let expected: Vec<u32> = (10..=10 + i).collect();
            assert_eq!(ids.as_slice(), &expected[..], "after {} pushes", i + 1);
        }
        // Removing down to two brings them back inline; the order is kept throughout.
        ids.retain(|&i| i % 2 == 0);
        assert_eq!(ids.as_slice(), &[10, 12, 14]);
        ids.retain(|&i| i != 12);
        assert_eq!(ids.as_slice(), &[10, 14]);
        ids.push(7);
        assert_eq!(ids.as_slice(), &[10, 14, 7]);
        ids.retain(|_| false);
        assert!(ids.is_empty());
        assert_eq!((&ids).into_iter().count(), 0);
    }
}
