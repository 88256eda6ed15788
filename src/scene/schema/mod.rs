//! The RON scene format, as serde types. docs/scenes.md documents every field.
//!
//! Every struct denies unknown fields (a typo is an error, not silently ignored) and every
//! field except a collider's shape has a default, so small scenes stay small.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod broad_phase;
mod joints;

pub use broad_phase::BroadPhaseDesc;
pub use joints::{Frames, JointDesc};

/// A vector (x, y, z).
pub type V3 = (f32, f32, f32);

/// A whole scene file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Scene", deny_unknown_fields)]
pub struct SceneFile {
    /// Simulation settings.
    #[serde(default)]
    pub settings: SettingsDesc,
    /// Where the sandbox camera starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<CameraDesc>,
    /// Named materials colliders refer to (a name given twice is an error, not "last wins").
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "unique_keys"
    )]
    pub materials: BTreeMap<String, MaterialDesc>,
    /// Bodies written out one by one.
    #[serde(default)]
    pub bodies: Vec<BodyDesc>,
    /// Patterns that expand into many bodies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generators: Vec<Generator>,
    /// Joints between named bodies (anchors in world coordinates, where the bodies start).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<JointDesc>,
}

/// Locked degrees of freedom of a body, world axes (x, y, z); both fields optional.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LocksDesc {
    /// No motion along these axes.
    pub translation: (bool, bool, bool),
    /// No turning about these axes.
    pub rotation: (bool, bool, bool),
}

impl LocksDesc {
    /// Nothing locked (left out when saving).
    pub fn is_none(&self) -> bool {
        *self == LocksDesc::default()
    }

    /// The engine's value.
    pub fn locks(&self) -> crate::physics::Locks {
        let (t, r) = (self.translation, self.rotation);
        crate::physics::Locks {
            translation: [t.0, t.1, t.2],
            rotation: [r.0, r.1, r.2],
        }
    }

    /// The description of the engine's value.
    pub fn from_locks(l: crate::physics::Locks) -> Self {
        let (t, r) = (l.translation, l.rotation);
        LocksDesc {
            translation: (t[0], t[1], t[2]),
            rotation: (r[0], r[1], r[2]),
        }
    }
}

/// The integrator (see `docs/integrators.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum IntegratorDesc {
    /// Semi-implicit Euler (the default).
    #[default]
    SemiImplicitEuler,
    /// Velocity Verlet.
    Verlet,
}

impl IntegratorDesc {
    /// The engine's value.
    pub fn kind(self) -> crate::physics::Integrator {
        match self {
            IntegratorDesc::SemiImplicitEuler => crate::physics::Integrator::SemiImplicitEuler,
            IntegratorDesc::Verlet => crate::physics::Integrator::Verlet,
        }
    }

    /// The description of the engine's value.
    pub fn from_kind(kind: crate::physics::Integrator) -> Self {
        match kind {
            crate::physics::Integrator::SemiImplicitEuler => IntegratorDesc::SemiImplicitEuler,
            crate::physics::Integrator::Verlet => IntegratorDesc::Verlet,
        }
    }
}

/// Simulation settings; every field optional.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SettingsDesc {
    /// Gravity, m/s².
    pub gravity: V3,
    /// Fixed step, s.
    pub timestep: f32,
    /// Solver sub-steps per step.
    pub substeps: u32,
    /// Biased velocity iterations per sub-step.
    pub velocity_iterations: u32,
    /// Relax iterations per sub-step (what a classic solver calls position iterations;
    /// files may spell it `position_iterations`).
    #[serde(alias = "position_iterations")]
    pub relax_iterations: u32,
    /// Let resting bodies sleep.
    pub sleeping: bool,
    /// Warm-start the solver from the last step.
    pub warm_starting: bool,
    /// Broad phase algorithm.
    pub broad_phase: BroadPhaseDesc,
    /// How bodies move between contact solves: `SemiImplicitEuler` (default) or `Verlet`.
    pub integrator: IntegratorDesc,
    /// Lock every dynamic body to the x–y plane, turning only about z.
    pub planar: bool,
    /// Contact stiffness, Hz.
    pub contact_hertz: f32,
    /// Contact damping ratio.
    pub contact_damping_ratio: f32,
    /// Largest penetration-recovery speed, m/s.
    pub max_push_velocity: f32,
    /// Approach speed above which restitution applies, m/s.
    pub restitution_threshold: f32,
    /// A contact between two dynamic bodies is not created while either already has this many
    /// (a work cap for bodies placed inside each other).
    pub max_contacts_per_body: u32,
}

impl Default for SettingsDesc {
    fn default() -> Self {
        let w = crate::physics::WorldSettings::default();
        Self {
            gravity: w.gravity.into(),
            timestep: 1.0 / 60.0,
            substeps: w.substeps,
            velocity_iterations: w.velocity_iterations,
            relax_iterations: w.relax_iterations,
            sleeping: w.enable_sleeping,
            warm_starting: w.enable_warm_starting,
            broad_phase: BroadPhaseDesc::DynamicTree,
            integrator: IntegratorDesc::SemiImplicitEuler,
            planar: false,
            contact_hertz: w.contact_hertz,
            contact_damping_ratio: w.contact_damping_ratio,
            max_push_velocity: w.max_push_velocity,
            restitution_threshold: w.restitution_threshold,
            max_contacts_per_body: w.max_contacts_per_body,
        }
    }
}

/// The starting view.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CameraDesc {
    /// Eye position, m.
    pub eye: V3,
    /// Point looked at, m.
    pub target: V3,
    /// Vertical field of view, degrees.
    pub fov_deg: f32,
}

impl Default for CameraDesc {
    fn default() -> Self {
        Self {
            eye: (10.0, 7.0, 10.0),
            target: (0.0, 1.0, 0.0),
            fov_deg: 45.0,
        }
    }
}

/// A named set of surface and bulk properties.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MaterialDesc {
    /// Coulomb friction coefficient, ≥ 0.
    pub friction: f32,
    /// Restitution in [0, 1].
    pub restitution: f32,
    /// Density, kg/m³ (a 1 m cube of density 1 weighs 1 kg).
    pub density: f32,
    /// Rolling resistance, m (0 = balls roll forever).
    pub rolling_resistance: f32,
}

impl Default for MaterialDesc {
    fn default() -> Self {
        Self {
            friction: 0.6,
            restitution: 0.0,
            density: 1.0,
            rolling_resistance: 0.0,
        }
    }
}

/// Body kinds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    /// Never moves.
    Static,
    /// Moves with its velocity, pushes dynamic bodies.
    Kinematic,
    /// Fully simulated.
    #[default]
    Dynamic,
}

/// An orientation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Rotation {
    /// Angles in degrees about x, then y, then z (intrinsic, glam's `EulerRot::XYZ`).
    Euler(f32, f32, f32),
    /// A quaternion (x, y, z, w); normalised on load. Saved scenes use this, exactly.
    Quat(f32, f32, f32, f32),
}

impl Default for Rotation {
    fn default() -> Self {
        Rotation::Euler(0.0, 0.0, 0.0)
    }
}

/// A colour (r, g, b), each in [0, 1].
pub type Color = (f32, f32, f32);

/// A shape and its parameters (all lengths in m).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ShapeDesc {
    /// A ball.
    Sphere {
        /// Radius.
        radius: f32,
    },
    /// A box.
    #[serde(alias = "Box")]
    Cuboid {
        /// Half the size along x, y, z.
        half_extents: V3,
    },
    /// A capsule along the local y axis.
    Capsule {
        /// Half the length of the inner segment.
        half_height: f32,
        /// Radius.
        radius: f32,
    },
    /// The convex hull of a point cloud (at least 4 points not on one plane).
    Hull {
        /// The points.
        points: Vec<V3>,
    },
    /// A square pyramid standing on its base (base at y = 0, apex at y = height).
    Pyramid {
        /// Half the side of the square base.
        half_base: f32,
        /// Height from base to apex.
        height: f32,
    },
    /// A triangular prism: a triangle in the x–y plane extruded along z.
    Prism {
        /// Half the width of the triangle's base.
        half_width: f32,
        /// Height of the triangle.
        height: f32,
        /// Half the extrusion depth.
        half_depth: f32,
    },
    /// An infinite ground: the half-space below the plane through the collider's origin.
    Plane {
        /// Outward normal.
        normal: V3,
    },
}

/// A collider on a body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColliderDesc {
    /// The shape.
    pub shape: ShapeDesc,
    /// Offset from the body origin, m.
    #[serde(default, skip_serializing_if = "is_zero_v3")]
    pub position: V3,
    /// Orientation relative to the body.
    #[serde(default, skip_serializing_if = "is_identity_rotation")]
    pub rotation: Rotation,
    /// A named material (from `materials`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub material: Option<String>,
    /// Overrides the material's friction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<f32>,
    /// Overrides the material's restitution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restitution: Option<f32>,
    /// Overrides the material's density.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub density: Option<f32>,
    /// Overrides the material's rolling resistance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolling_resistance: Option<f32>,
    /// A sensor: detects overlaps (events), never pushes.
    #[serde(default, skip_serializing_if = "is_false")]
    pub sensor: bool,
    /// Which colliders it touches (all when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<FilterDesc>,
}

/// Collision filter bits: `(category: 2, mask: 0xFFFFFFFD)` is in category 2 and touches
/// every category but 2 (see [`CollisionFilter`](crate::physics::CollisionFilter)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterDesc {
    /// The categories it is in, one bit each (default 1).
    #[serde(default = "default_category")]
    pub category: u32,
    /// The categories it touches (default all, 0xFFFFFFFF).
    #[serde(default = "default_mask")]
    pub mask: u32,
}

fn default_category() -> u32 {
    crate::physics::CollisionFilter::DEFAULT.category
}

fn default_mask() -> u32 {
    crate::physics::CollisionFilter::DEFAULT.mask
}

impl ColliderDesc {
    /// A collider of `shape` with everything else default.
    pub fn new(shape: ShapeDesc) -> Self {
        Self {
            shape,
            position: (0.0, 0.0, 0.0),
            rotation: Rotation::default(),
            material: None,
            friction: None,
            restitution: None,
            density: None,
            rolling_resistance: None,
            sensor: false,
            filter: None,
        }
    }
}

/// A body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyDesc {
    /// Unique name (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Static, Kinematic or Dynamic.
    #[serde(default, skip_serializing_if = "is_default")]
    pub kind: Kind,
    /// Position of the body origin, m.
    #[serde(default, skip_serializing_if = "is_zero_v3")]
    pub position: V3,
    /// Orientation.
    #[serde(default, skip_serializing_if = "is_identity_rotation")]
    pub rotation: Rotation,
    /// Velocity of the centre of mass, m/s.
    #[serde(default, skip_serializing_if = "is_zero_v3")]
    pub linear_velocity: V3,
    /// Angular velocity, rad/s.
    #[serde(default, skip_serializing_if = "is_zero_v3")]
    pub angular_velocity: V3,
    /// Linear damping, 1/s.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub linear_damping: f32,
    /// Angular damping, 1/s.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub angular_damping: f32,
    /// Gravity multiplier.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub gravity_scale: f32,
    /// May it sleep?
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub can_sleep: bool,
    /// Starts awake?
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub awake: bool,
    /// Continuous collision: swept against what it could pass through; up to 2000 m/s.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ccd: bool,
    /// Locked world axes: `(translation: (false, false, true), rotation: (true, true,
    /// false))` keeps a dynamic body in the x–y plane turning about z.
    #[serde(default, skip_serializing_if = "LocksDesc::is_none")]
    pub locked: LocksDesc,
    /// Display colour.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<Color>,
    /// Its colliders (several make a compound body).
    #[serde(default)]
    pub colliders: Vec<ColliderDesc>,
}

impl Default for BodyDesc {
    /// The same defaults a file gets for missing fields.
    fn default() -> Self {
        Self {
            name: None,
            kind: Kind::Dynamic,
            position: (0.0, 0.0, 0.0),
            rotation: Rotation::default(),
            linear_velocity: (0.0, 0.0, 0.0),
            angular_velocity: (0.0, 0.0, 0.0),
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            can_sleep: true,
            awake: true,
            ccd: false,
            locked: LocksDesc::default(),
            color: None,
            colliders: Vec::new(),
        }
    }
}

/// Patterns that expand into bodies named `kind[i]` (`pyramid[12]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Generator {
    /// A vertical column of `count` copies of `shape`.
    Stack {
        /// Number of bodies.
        count: u32,
        /// Shape of each (default: unit cube).
        #[serde(default = "unit_cube")]
        shape: ShapeDesc,
        /// Centre of the bottom of the column, m.
        #[serde(default)]
        origin: V3,
        /// Gap between bodies, m.
        #[serde(default)]
        gap: f32,
        /// Named material.
        #[serde(default)]
        material: Option<String>,
        /// Display colour.
        #[serde(default)]
        color: Option<Color>,
    },
    /// A 2D pyramid of cubes in the x–y plane: `base` cubes at the bottom, one on top.
    Pyramid {
        /// Cubes in the bottom row.
        base: u32,
        /// Half the side of each cube, m.
        #[serde(default = "half")]
        half_extent: f32,
        /// Centre of the bottom row, on the ground, m.
        #[serde(default)]
        origin: V3,
        /// Horizontal gap between neighbours, m.
        #[serde(default)]
        gap: f32,
        /// Named material.
        #[serde(default)]
        material: Option<String>,
        /// Display colour.
        #[serde(default)]
        color: Option<Color>,
    },
    /// A 3D grid of `counts` bodies, `spacing` apart (centre to centre).
    Grid {
        /// Bodies along x, y, z.
        counts: (u32, u32, u32),
        /// Centre-to-centre distance along x, y, z, m.
        spacing: V3,
        /// Shape of each (default: unit cube).
        #[serde(default = "unit_cube")]
        shape: ShapeDesc,
        /// Centre of the first body, m.
        #[serde(default)]
        origin: V3,
        /// Static, Kinematic or Dynamic.
        #[serde(default)]
        kind: Kind,
        /// Named material.
        #[serde(default)]
        material: Option<String>,
        /// Display colour.
        #[serde(default)]
        color: Option<Color>,
        /// Stop after this many bodies (x fastest, then z, then y), for a count that is not
        /// a product of three.
        #[serde(default)]
        limit: Option<u32>,
        /// Offset each body by a uniform random amount in [−jitter, jitter] per axis, m.
        #[serde(default)]
        jitter: V3,
        /// Seed of the jitter (the same seed gives the same offsets on every machine).
        #[serde(default)]
        seed: u64,
    },
    /// A wall of spheres in the x–y plane, `columns` across and `rows` down, `spacing` apart,
    /// each joined by a ball joint (at the midpoint) to the sphere above it and, below the
    /// top row, to the one on its left; the top row static. Box3D's joint_grid benchmark is
    /// 100 × 100.
    JointGrid {
        /// Spheres along +x.
        columns: u32,
        /// Spheres along −y (the first row is the top, static one).
        rows: u32,
        /// Radius of each sphere, m.
        #[serde(default = "joint_grid_radius")]
        radius: f32,
        /// Centre-to-centre distance, m.
        #[serde(default = "one")]
        spacing: f32,
        /// Centre of the top-left sphere, m.
        #[serde(default)]
        origin: V3,
        /// Named material.
        #[serde(default)]
        material: Option<String>,
        /// Display colour.
        #[serde(default)]
        color: Option<Color>,
    },
    /// A 3D grid of ragdolls standing in T-pose, `spacing` apart (centre to centre), every
    /// other one turned a quarter turn about y so that layers dropped on each other
    /// tangle: the shipped ragdoll's eleven bodies (a box pelvis, capsule limbs and torso,
    /// a ball head, 1000 kg/m³) on ball joints with cones at the neck, shoulders and hips
    /// and limited hinges at the waist, knees and elbows.
    Ragdolls {
        /// Ragdolls along x, y, z.
        counts: (u32, u32, u32),
        /// Centre-to-centre distance along x, y, z, m.
        #[serde(default = "ragdoll_spacing")]
        spacing: V3,
        /// Where the first ragdoll stands: the middle of its feet, m.
        #[serde(default)]
        origin: V3,
        /// Named material (default: the default material at a density of 1000 kg/m³).
        #[serde(default)]
        material: Option<String>,
        /// Display colour of every part (default: clothes and skin).
        #[serde(default)]
        color: Option<Color>,
    },
    /// Standing dominoes along +x, or along an arc when `arc_deg` is not 0.
    Dominoes {
        /// Number of dominoes.
        count: u32,
        /// Half extents of one domino, m (thin along x).
        #[serde(default = "domino")]
        half_extents: V3,
        /// Distance between neighbours along the path, m.
        #[serde(default = "domino_spacing")]
        spacing: f32,
        /// Where the first domino stands (on the ground), m.
        #[serde(default)]
        origin: V3,
        /// Total turn of the path, degrees (0 = straight row; 180 = a half circle).
        #[serde(default)]
        arc_deg: f32,
        /// Tip the first domino over (an initial spin about z, rad/s).
        #[serde(default)]
        push: f32,
        /// Named material.
        #[serde(default)]
        material: Option<String>,
        /// Display colour.
        #[serde(default)]
        color: Option<Color>,
    },
}

fn one() -> f32 {
    1.0
}
fn half() -> f32 {
    0.5
}
fn joint_grid_radius() -> f32 {
    0.4
}
fn yes() -> bool {
    true
}
fn unit_cube() -> ShapeDesc {
    ShapeDesc::Cuboid {
        half_extents: (0.5, 0.5, 0.5),
    }
}
fn domino() -> V3 {
    (0.08, 0.5, 0.25)
}
fn domino_spacing() -> f32 {
    0.5
}
fn ragdoll_spacing() -> V3 {
    (2.0, 2.2, 2.0)
}
fn is_zero(v: &f32) -> bool {
    *v == 0.0 && v.is_sign_positive()
}
fn is_one(v: &f32) -> bool {
    *v == 1.0
}
fn is_true(v: &bool) -> bool {
    *v
}
fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero_v3(v: &V3) -> bool {
    is_zero(&v.0) && is_zero(&v.1) && is_zero(&v.2)
}
fn is_identity_rotation(r: &Rotation) -> bool {
    *r == Rotation::default()
}
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// Reads a map refusing a key given twice, at the second one (before its value is read, so
/// the error's position is that key's).
fn unique_keys<'de, D, V>(deserializer: D) -> Result<BTreeMap<String, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    V: Deserialize<'de>,
{
    struct Unique<V>(std::marker::PhantomData<V>);
    impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Unique<V> {
        type Value = BTreeMap<String, V>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of names to materials, each name once")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some(key) = map.next_key::<String>()? {
                if out.contains_key(&key) {
                    return Err(serde::de::Error::custom(format!(
                        "material \"{key}\" is defined twice; each name may appear once"
                    )));
                }
                let value = map.next_value()?;
                out.insert(key, value);
            }
            Ok(out)
        }
    }
    deserializer.deserialize_map(Unique(std::marker::PhantomData))
}
