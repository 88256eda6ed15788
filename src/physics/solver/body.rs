//! The solver's view of a body: the hot velocities and pose deltas, apart from what only
//! velocity integration reads.

use super::simd::f32x4;
use crate::physics::math::{Mat3, Quat, Vec3};

/// The part of a body the solver's inner loops touch, gathered into a dense array each step
/// (hot data apart from cold: every contact iteration copies two of these).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverBody {
    pub linear_velocity: Vec3,
    pub angular_velocity: Vec3,
    pub inv_mass: f32,
    /// World inverse inertia at the start of the step.
    pub inv_inertia: Mat3,
    /// Centre-of-mass displacement since the start of the step.
    pub delta_position: Vec3,
    /// Rotation since the start of the step.
    pub delta_rotation: Quat,
}

/// Where the six velocity numbers start in a `SolverBody`: `linear_velocity`, followed
/// directly by `angular_velocity` (three `f32`s each, no padding between), which
/// [`SolverBody::velocity_rows`] reads as 24 contiguous bytes. The build fails if a change
/// of the struct breaks that.
const VELOCITY_OFFSET: usize = std::mem::offset_of!(SolverBody, linear_velocity);
const _: () = assert!(
    std::mem::size_of::<Vec3>() == 12
        && std::mem::offset_of!(SolverBody, angular_velocity) == VELOCITY_OFFSET + 12
);

impl SolverBody {
    /// The stand-in for every static body: never moves, infinite mass. It sits at index 0 of
    /// the solver's array and is never written.
    pub const STATIC: SolverBody = SolverBody {
        linear_velocity: Vec3::ZERO,
        angular_velocity: Vec3::ZERO,
        inv_mass: 0.0,
        inv_inertia: Mat3::ZERO,
        delta_position: Vec3::ZERO,
        delta_rotation: Quat::IDENTITY,
    };

    /// A unit cube (m = 1 kg, I⁻¹ = 6 kg⁻¹m⁻², as for a 1 m cube of density 1) moving at
    /// `v`: the body of the solver's unit tests.
    #[cfg(test)]
    pub fn unit_cube(v: Vec3) -> SolverBody {
        SolverBody {
            inv_mass: 1.0,
            inv_inertia: Mat3::IDENTITY * 6.0,
            linear_velocity: v,
            ..SolverBody::STATIC
        }
    }

    /// Its six velocity numbers as the two rows the solver's lanes are transposed from:
    /// [v.x v.y v.z ω.x] and [ω.y ω.z 0 0]. One 16-byte and one 8-byte load, where reading
    /// the fields one by one costs six loads and the inserts that put them together.
    #[inline]
    pub fn velocity_rows(&self) -> (f32x4, f32x4) {
        let base = (self as *const SolverBody).cast::<u8>();
        // SAFETY: the 24 bytes from `VELOCITY_OFFSET` lie inside `*self` and are the six
        // `f32`s of the two velocities, side by side (checked where the offset is defined);
        // any bits are a valid `f32`, and the reads are unaligned ones.
        let (row, [wy, wz]) = unsafe {
            let p = base.add(VELOCITY_OFFSET);
            (
                p.cast::<f32x4>().read_unaligned(),
                p.add(16).cast::<[f32; 2]>().read_unaligned(),
            )
        };
        (row, f32x4::new([wy, wz, 0.0, 0.0]))
    }

    /// Sets both velocities from the rows of [`SolverBody::velocity_rows`] (the last two
    /// numbers of `rest` are ignored): one 16-byte and one 8-byte store.
    #[inline]
    pub fn set_velocity_rows(&mut self, row: f32x4, rest: f32x4) {
        let [wy, wz, _, _] = rest.to_array();
        let base = (self as *mut SolverBody).cast::<u8>();
        // SAFETY: as in `velocity_rows`; the pointer comes from `&mut self`, so the writes
        // stay within the body this call borrows mutably.
        unsafe {
            let p = base.add(VELOCITY_OFFSET);
            p.cast::<f32x4>().write_unaligned(row);
            p.add(16).cast::<[f32; 2]>().write_unaligned([wy, wz]);
        }
    }

    /// True when contacts change its velocity (finite mass).
    #[inline]
    pub fn is_dynamic(&self) -> bool {
        self.inv_mass > 0.0
    }
}

/// What only velocity integration reads, parallel to the `SolverBody` array.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverForces {
    /// Gravity plus applied force over mass, m/s².
    pub linear_acceleration: Vec3,
    /// Inverse inertia times applied torque, rad/s².
    pub angular_acceleration: Vec3,
    pub linear_damping: f32,
    pub angular_damping: f32,
    /// False for kinematic bodies (and the static stand-in): velocities never change.
    pub is_dynamic: bool,
    /// Orientation at the start of the step (the current one is `delta_rotation · this`).
    pub rotation: Quat,
    /// Inertia about the centre of mass in body axes, and its inverse (free rotation).
    pub local_inertia: Mat3,
    pub local_inv_inertia: Mat3,
    /// The body's speed cap, m/s (higher with continuous collision).
    pub max_linear_speed: f32,
    /// Locked degrees of freedom: 1 on the free axes, 0 on the locked ones (world axes), and
    /// whether anything is locked at all.
    pub linear_free: Vec3,
    pub angular_free: Vec3,
    pub locked: bool,
    /// Inertia the solver adds about every axis this step, kg·m², so that its world inverse
    /// inertia stays bounded as it turns (`joint/mobility.rs`); 0 for nearly every body.
    pub inertia_floor: f32,
    /// Its rotation takes the gyroscopic update (`integrate.rs`): dynamic, no rotation axis
    /// locked, and an inertia that is not a multiple of the identity. Decided once per step
    /// ([`SolverForces::with_gyroscopic`]) instead of in every sub-step's drift.
    pub gyroscopic: bool,
}

impl SolverForces {
    /// Nothing acts (static stand-in, kinematic bodies).
    pub const NONE: SolverForces = SolverForces {
        linear_acceleration: Vec3::ZERO,
        angular_acceleration: Vec3::ZERO,
        linear_damping: 0.0,
        angular_damping: 0.0,
        is_dynamic: false,
        rotation: Quat::IDENTITY,
        local_inertia: Mat3::ZERO,
        local_inv_inertia: Mat3::ZERO,
        max_linear_speed: 0.0,
        linear_free: Vec3::ONE,
        angular_free: Vec3::ONE,
        locked: false,
        inertia_floor: 0.0,
        gyroscopic: false,
    };

    /// These forces with [`SolverForces::gyroscopic`] decided from the other fields.
    /// Inlined: called apart, its result went through a memory copy.
    #[inline]
    pub fn with_gyroscopic(self) -> SolverForces {
        let rotation_locked = self.locked && self.angular_free != Vec3::ONE;
        SolverForces {
            gyroscopic: self.is_dynamic
                && !rotation_locked
                && !super::integrate::isotropic(&self.local_inertia),
            ..self
        }
    }
}

/// Caps every dynamic body's speeds at the step's documented limits, and takes out the
/// velocity along its locked axes (see [`Locks`](crate::physics::Locks))
/// ([`MAX_LINEAR_SPEED`](crate::physics::constants::MAX_LINEAR_SPEED) and
/// [`MAX_ROTATION_PER_SUBSTEP`](crate::physics::constants::MAX_ROTATION_PER_SUBSTEP) per
/// sub-step). A body whose velocity is no longer finite is stopped so it cannot spread NaN
/// through its contacts, and marked in `faulted`: the world then freezes and reports it.
pub(crate) fn clamp_speeds(
    bodies: &mut [SolverBody],
    forces: &[SolverForces],
    faulted: &mut [bool],
    max_angular_speed: f32,
) {
    for ((body, fault), f) in bodies.iter_mut().zip(faulted).zip(forces) {
        clamp_speed(body, f, fault, max_angular_speed);
    }
}

/// [`clamp_speeds`] for one body.
#[inline]
pub(crate) fn clamp_speed(
    body: &mut SolverBody,
    f: &SolverForces,
    fault: &mut bool,
    max_angular_speed: f32,
) {
    if !body.is_dynamic() {
        return;
    }
    let (v, w) = (body.linear_velocity, body.angular_velocity);
    let (v2, w2) = (v.length_squared(), w.length_squared());
    if !(v2.is_finite() && w2.is_finite()) {
        body.linear_velocity = Vec3::ZERO;
        body.angular_velocity = Vec3::ZERO;
        *fault = true;
        return;
    }
    // `clamp_length` with the squared lengths already taken (both finite here).
    let clamp = |v: Vec3, len2: f32, max: f32| {
        if len2 > max * max {
            v * (max / len2.sqrt())
        } else {
            v
        }
    };
    body.linear_velocity = clamp(v, v2, f.max_linear_speed);
    body.angular_velocity = clamp(w, w2, max_angular_speed);
    if f.locked {
        // Locked axes: what the pass put there is taken out (rotation locks are already
        // out of the inverse inertia; this catches the linear impulses).
        body.linear_velocity *= f.linear_free;
        body.angular_velocity *= f.angular_free;
    }
}

/// Stops (and marks in `faulted`) every dynamic body whose velocity is no longer finite and
/// takes out the velocity along its locked axes, as [`clamp_speeds`] does, but caps no speed.
/// Run after the warm start: a light body between heavy ones may take a warm-started impulse
/// that moves it far faster than a cap for an instant, and the next pass takes it back
/// exactly; capped in between, the pass takes back the whole impulse from a body that kept
/// only part of it, and the difference goes into its neighbours (`tests/suite/
/// joint_energy.rs`: a 0.07 g body welded to the world under a 0.2 kg one).
pub(crate) fn stop_non_finite(
    bodies: &mut [SolverBody],
    forces: &[SolverForces],
    faulted: &mut [bool],
) {
    for ((body, f), fault) in bodies.iter_mut().zip(forces).zip(faulted) {
        if !body.is_dynamic() {
            continue;
        }
        let (v, w) = (body.linear_velocity, body.angular_velocity);
        if !(v.length_squared().is_finite() && w.length_squared().is_finite()) {
            body.linear_velocity = Vec3::ZERO;
            body.angular_velocity = Vec3::ZERO;
            *fault = true;
        } else if f.locked {
            body.linear_velocity *= f.linear_free;
            body.angular_velocity *= f.angular_free;
        }
    }
}

/// Shortens `v` to at most `max`; a non-finite `v` (from an overflowing force) becomes zero.
#[inline]
pub(crate) fn clamp_length(v: Vec3, max: f32) -> Vec3 {
    let len2 = v.length_squared();
    if !len2.is_finite() {
        Vec3::ZERO
    } else if len2 > max * max {
        v * (max / len2.sqrt())
    } else {
        v
    }
}
