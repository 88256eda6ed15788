//! The velocities of a lane group's bodies while its contacts are solved: gathered from the
//! solver bodies into lanes, scattered back, and the arms' drift as the bodies move within a
//! step.

use super::body::SolverBody;
use super::lanes::ConstraintLanes;
use super::simd::{f32x4, Quatx4, Vec3x4, LANES};
use crate::physics::math::Quat;

/// Where a pass reads and writes the solver bodies: the array itself, or a view of it
/// shared by the workers of a colour, whose writers never touch the same body (`group.rs`).
pub(crate) trait Bodies {
    fn at(&self, index: u32) -> &SolverBody;
    /// Body `index` of a lane group, its bound checked in debug builds only: the loads
    /// and stores of every pass are the solve's innermost work, and a check on each of
    /// their 16 indices costs 2–3 % of a sphere pile's instructions.
    ///
    /// # Safety
    /// `index` is one of the body indices of a [`ConstraintLanes`] prepared this step
    /// against these solver bodies: `ConstraintLanes::prepare` resets a group to the
    /// stand-in (0) and then reads both bodies of each lane through a checked index into
    /// the same array, which nothing resizes until the solve is done.
    unsafe fn lane(&self, index: u32) -> &SolverBody;
    /// [`Bodies::lane`], to write.
    ///
    /// # Safety
    /// As [`Bodies::lane`].
    unsafe fn lane_mut(&mut self, index: u32) -> &mut SolverBody;
}

impl Bodies for [SolverBody] {
    #[inline]
    fn at(&self, index: u32) -> &SolverBody {
        &self[index as usize]
    }

    #[inline]
    unsafe fn lane(&self, index: u32) -> &SolverBody {
        debug_assert!((index as usize) < self.len());
        // SAFETY: in bounds by the caller's promise.
        unsafe { self.get_unchecked(index as usize) }
    }

    #[inline]
    unsafe fn lane_mut(&mut self, index: u32) -> &mut SolverBody {
        debug_assert!((index as usize) < self.len());
        // SAFETY: in bounds by the caller's promise.
        unsafe { self.get_unchecked_mut(index as usize) }
    }
}

/// The inverse masses of the lanes' bodies A and B.
pub(super) type InvMasses = (f32x4, f32x4);

/// The velocities of the four lanes' bodies while their constraints are solved.
#[derive(Clone, Copy, Debug)]
pub(super) struct Velocities {
    pub(super) linear_a: Vec3x4,
    pub(super) angular_a: Vec3x4,
    pub(super) linear_b: Vec3x4,
    pub(super) angular_b: Vec3x4,
}

impl Velocities {
    /// Always inlined, and the lanes' bodies named one by one: the compiler may leave the
    /// four look-ups of an `array::map` closure as an out-of-line call in every solve and
    /// warm start (4 % of pyramid20's instructions).
    #[inline(always)]
    pub(super) fn load<B: Bodies + ?Sized>(bodies: &B, c: &ConstraintLanes) -> Velocities {
        // SAFETY: the group's own body indices.
        let (a, b) = unsafe {
            (
                lane_bodies(bodies, &c.body_a),
                lane_bodies(bodies, &c.body_b),
            )
        };
        let (linear_a, angular_a) = gather_velocities(a);
        let (linear_b, angular_b) = gather_velocities(b);
        Velocities {
            linear_a,
            angular_a,
            linear_b,
            angular_b,
        }
    }

    /// Writes back the bodies contacts can move (finite mass): never the static stand-in
    /// or a kinematic body, which other lanes may share. (Writing them back unconditionally
    /// saves the branches, 0.9 % of pyramid40's instructions, but a pass does not always
    /// leave them as it found them: with the hostile numbers of `tests/suite/loader_fuzz.rs` it
    /// changed the stand-in's (a non-finite impulse times a zero inverse mass is NaN), and
    /// the stand-in would pass that to everything resting on the ground.)
    #[inline(always)]
    pub(super) fn store<B: Bodies + ?Sized>(&self, bodies: &mut B, c: &ConstraintLanes) {
        let a = scatter_velocities(self.linear_a, self.angular_a);
        let b = scatter_velocities(self.linear_b, self.angular_b);
        let zero = f32x4::ZERO;
        if (c.inv_mass_a.simd_gt(zero) & c.inv_mass_b.simd_gt(zero)).all() {
            // Every body of the group can move (most groups): no test per lane.
            for l in 0..LANES {
                // SAFETY: the group's own body index (`Bodies::lane`).
                unsafe { put_rows(bodies, c.body_a[l], &a, l) };
                // SAFETY: the group's own body index (`Bodies::lane`).
                unsafe { put_rows(bodies, c.body_b[l], &b, l) };
            }
            return;
        }
        let (mass_a, mass_b) = (c.inv_mass_a.to_array(), c.inv_mass_b.to_array());
        for l in 0..LANES {
            if mass_a[l] > 0.0 {
                // SAFETY: the group's own body index (`Bodies::lane`).
                unsafe { put_rows(bodies, c.body_a[l], &a, l) };
            }
            if mass_b[l] > 0.0 {
                // SAFETY: the group's own body index (`Bodies::lane`).
                unsafe { put_rows(bodies, c.body_b[l], &b, l) };
            }
        }
    }

    /// Velocity of B's point over A's along direction `d` with the angular rows r_a×d and
    /// r_b×d: d·(v_b − v_a) + ω_b·(r_b×d) − ω_a·(r_a×d).
    #[inline]
    pub(super) fn along(&self, d: Vec3x4, row_a: Vec3x4, row_b: Vec3x4) -> f32x4 {
        d.dot(self.linear_b - self.linear_a) + self.angular_b.dot(row_b) - self.angular_a.dot(row_a)
    }

    /// Velocity of B's point over A's at arms r_a, r_b: (v_b + ω_b×r_b) − (v_a + ω_a×r_a).
    #[inline]
    pub(super) fn at_point(&self, ra: Vec3x4, rb: Vec3x4) -> Vec3x4 {
        (self.linear_b + self.angular_b.cross(rb)) - (self.linear_a + self.angular_a.cross(ra))
    }

    /// Applies an impulse `lambda` along `d` (from A to B), turning each body by `lambda`
    /// times its turn per unit impulse.
    #[inline]
    pub(super) fn apply(
        &mut self,
        masses: &InvMasses,
        d: Vec3x4,
        lambda: f32x4,
        turns: (Vec3x4, Vec3x4),
    ) {
        self.linear_a -= (masses.0 * lambda) * d;
        self.angular_a -= lambda * turns.0;
        self.linear_b += (masses.1 * lambda) * d;
        self.angular_b += lambda * turns.1;
    }
}

/// The inverse of [`gather_velocities`]: each lane's two rows ([v.x v.y v.z ω.x] and
/// [ω.y ω.z · ·]), as [`SolverBody::set_velocity_rows`] stores them.
#[inline]
pub(super) fn scatter_velocities(
    linear: Vec3x4,
    angular: Vec3x4,
) -> ([f32x4; LANES], [f32x4; LANES]) {
    let zero = f32x4::ZERO;
    (
        f32x4::transpose([linear.x, linear.y, linear.z, angular.x]),
        f32x4::transpose([angular.y, angular.z, zero, zero]),
    )
}

/// The linear and angular velocities of four bodies, one per lane. Each body's six numbers
/// are read as two rows, [v.x v.y v.z ω.x] and [ω.y ω.z 0 0] ([`SolverBody::velocity_rows`]),
/// and the rows of the four bodies transposed into lanes: 0.5 % fewer instructions on
/// pyramid40 than two [`Vec3x4::gather`]s, whose rows carry a padding zero each. Stored back
/// the same way ([`scatter_velocities`]): taking each lane's two vectors out number by number
/// instead cost 1.1 % of pyramid20's instructions more.
#[inline(always)]
pub(super) fn gather_velocities(bodies: [&SolverBody; LANES]) -> (Vec3x4, Vec3x4) {
    let [r0, r1, r2, r3] = [
        bodies[0].velocity_rows(),
        bodies[1].velocity_rows(),
        bodies[2].velocity_rows(),
        bodies[3].velocity_rows(),
    ];
    let [vx, vy, vz, wx] = f32x4::transpose([r0.0, r1.0, r2.0, r3.0]);
    let [wy, wz, _, _] = f32x4::transpose([r0.1, r1.1, r2.1, r3.1]);
    (
        Vec3x4 {
            x: vx,
            y: vy,
            z: vz,
        },
        Vec3x4 {
            x: wx,
            y: wy,
            z: wz,
        },
    )
}

/// Lane `l` of `rows` (as [`scatter_velocities`] gives them) into body `index`.
///
/// # Safety
/// As [`Bodies::lane`].
#[inline(always)]
unsafe fn put_rows<B: Bodies + ?Sized>(
    bodies: &mut B,
    index: u32,
    rows: &([f32x4; LANES], [f32x4; LANES]),
    l: usize,
) {
    // SAFETY: by the caller's promise.
    unsafe { bodies.lane_mut(index) }.set_velocity_rows(rows.0[l], rows.1[l]);
}

/// The bodies of the lanes `indices`, one look-up each (no closure left to the inliner).
///
/// # Safety
/// `indices` is a [`ConstraintLanes`]' `body_a` or `body_b` (as [`Bodies::lane`]).
#[inline(always)]
pub(super) unsafe fn lane_bodies<'a, B: Bodies + ?Sized>(
    bodies: &'a B,
    indices: &[u32; LANES],
) -> [&'a SolverBody; LANES] {
    // SAFETY: by the caller's promise.
    unsafe {
        [
            bodies.lane(indices[0]),
            bodies.lane(indices[1]),
            bodies.lane(indices[2]),
            bodies.lane(indices[3]),
        ]
    }
}

/// How the impulse arms move during the step: `c.shift`, the s below.
///
/// They follow each body's translation but not its rotation, because the contact point of
/// a rolling or turning body stays where the bodies touch, not on the material point
/// (rotating the arms would give a rolling ball a false normal velocity ω × Δ). Between two
/// dynamic bodies both arms follow half the bodies' relative translation during the step,
/// so the gap between the two anchors does not grow while the bodies slide: with
/// s = ½(Δx_b − Δx_a), r_a = anchor_a + s and r_b = anchor_b − s. Against static or
/// kinematic bodies the dynamic body's own arm is used as it is (s = 0).
///
/// The shift is at most a quarter of the smaller collider's size (half its bounding box's
/// diagonal, `world/solve/constraints.rs`). The normal block's K is formed once per step from the
/// unshifted arms, and a body small against its speed (a 5 mm box passing a hull at 2 m/s
/// moves its own size in a sixtieth of a second) would otherwise be pushed through arms
/// several times longer, with several times the K its impulses were sized for, so each
/// pass overshoots and the pair gains energy without bound. Within the bound a sphere's K
/// grows by at most (¼·√3)²/0.4 ≈ 47 % (its rotational term |s|²/(0.4·m·R²) against 1/m),
/// inside the factor 2 that a Gauss–Seidel row can be off by and still take velocity out;
/// a bridge's crate riding a swinging plank keeps its arms following it.
///
/// Measured again when the bodies moved since the last pass (`positions_moved`), else the
/// one kept stays (zero at the step start, when nothing has moved).
#[inline]
pub(super) fn shift_now<B: Bodies + ?Sized>(
    c: &mut ConstraintLanes,
    bodies: &B,
    positions_moved: bool,
) {
    if positions_moved {
        c.shift = arm_shift(c, relative_motion(c, bodies));
    }
}

/// The shift s of lanes whose bodies moved apart by `moved` (Δx_b − Δx_a).
#[inline]
pub(super) fn arm_shift(c: &ConstraintLanes, moved: Vec3x4) -> Vec3x4 {
    let half = f32x4::splat(0.5) * moved;
    let length2 = half.dot(half);
    let over = length2.simd_gt(c.max_shift * c.max_shift);
    let shortened = (c.max_shift / length2.sqrt()) * half;
    let shift = Vec3x4::select(over, shortened, half);
    Vec3x4::select(c.shared_point, shift, Vec3x4::ZERO)
}

/// The arms (r_a, r_b) now of anchors `anchor_a` and `anchor_b`.
#[inline]
pub(super) fn arms(c: &ConstraintLanes, anchor_a: Vec3x4, anchor_b: Vec3x4) -> (Vec3x4, Vec3x4) {
    (anchor_a + c.shift, anchor_b - c.shift)
}

/// The separation of a point now, during the step (Box2D v3): the two material points are
/// moved with their bodies (Δx and Δq),
/// s = s₀ + n·((Δx_b + Δq_b·r_b) − (Δx_a + Δq_a·r_a) − (r_b − r_a)).
/// With n·(Δq·r) = (Δq⁻¹·n)·r, that is s₀ + n·(Δx_b − Δx_a) + m_b·r_b − m_a·r_a, where
/// m = Δq⁻¹·n − n: one rotation per body and lane group instead of two per point.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tracking {
    /// Δx_b − Δx_a.
    pub(super) moved: Vec3x4,
    /// n·(Δx_b − Δx_a).
    pub(super) shared: f32x4,
    /// m_a and m_b.
    pub(super) turned_a: Vec3x4,
    pub(super) turned_b: Vec3x4,
}

impl Tracking {
    #[inline]
    pub(super) fn current<B: Bodies + ?Sized>(c: &ConstraintLanes, bodies: &B) -> Tracking {
        // SAFETY: the group's own body indices.
        let (a, b) = unsafe {
            (
                lane_bodies(bodies, &c.body_a),
                lane_bodies(bodies, &c.body_b),
            )
        };
        let moved = relative_motion(c, bodies);
        let normal = c.normal;
        let turned = |q: Quatx4| q.inverse_rotate(normal) - normal;
        Tracking {
            moved,
            shared: normal.dot(moved),
            turned_a: turned(Quatx4::gather(delta_rotations(a))),
            turned_b: turned(Quatx4::gather(delta_rotations(b))),
        }
    }

    #[inline]
    pub(super) fn separation(&self, p: &super::lanes::PointLanes, start: f32x4) -> f32x4 {
        start + self.shared + (self.turned_b.dot(p.anchor_b) - self.turned_a.dot(p.anchor_a))
    }
}

/// The lanes' bodies' rotations since the step start.
#[inline(always)]
fn delta_rotations([b0, b1, b2, b3]: [&SolverBody; LANES]) -> [Quat; LANES] {
    [
        b0.delta_rotation,
        b1.delta_rotation,
        b2.delta_rotation,
        b3.delta_rotation,
    ]
}

/// Δx_b − Δx_a of every lane's bodies since the step start.
#[inline]
pub(super) fn relative_motion<B: Bodies + ?Sized>(c: &ConstraintLanes, bodies: &B) -> Vec3x4 {
    // `index` is `c.body_a` or `c.body_b`.
    let delta = |index: &[u32; LANES]| {
        // SAFETY: the group's own body indices.
        let [b0, b1, b2, b3] = unsafe { lane_bodies(bodies, index) };
        Vec3x4::gather([
            b0.delta_position,
            b1.delta_position,
            b2.delta_position,
            b3.delta_position,
        ])
    };
    delta(&c.body_b) - delta(&c.body_a)
}
