//! From a parsed scene file to a world: validation with messages that name the body and the
//! field, generator expansion, and body creation.

use std::collections::BTreeMap;
use std::sync::Arc;

use glam::EulerRot;

use super::generators::expand;
use super::schema::*;
use crate::physics::shape::ConvexHull;
use crate::physics::{
    BodyDef, BodyHandle, BodyType, BroadPhaseKind, ColliderDef, Quat, Shape, Vec3, World,
    WorldSettings,
};

/// Largest number of bodies a scene may create (generators included): beyond this a typo
/// like `base: 100000` would eat all memory instead of failing.
pub const MAX_SCENE_BODIES: usize = 100_000;

/// Coordinates and sizes beyond this (m) are refused: f32 loses millimetres past ~10 km.
pub const MAX_COORDINATE: f32 = 1.0e5;

/// What the sandbox keeps about a body besides its physics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BodyMeta {
    /// The name from the file (or generated, or given when spawned); may be empty.
    pub name: String,
    /// Display colour, if the file gave one.
    pub color: Option<Color>,
}

/// A loaded scene: the world and everything around it.
pub struct Scene {
    /// The simulation.
    pub world: World,
    /// Fixed step, s.
    pub timestep: f32,
    /// Starting camera (the default one when the file gives none).
    pub camera: CameraDesc,
    /// Did the file give a camera? (The sandbox frames the scene when it did not.)
    pub camera_given: bool,
    /// Names and colours by body.
    pub meta: BTreeMap<BodyHandle, BodyMeta>,
}

/// A validation failure: the message and, if known, the name to look for in the file to
/// point at a line.
#[derive(Clone, Debug, PartialEq)]
pub struct Invalid {
    /// What is wrong, naming the body and the field.
    pub message: String,
    /// A body name whose position in the source locates the error.
    pub anchor: Option<String>,
}

impl Invalid {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            anchor: None,
        }
    }
}

/// Checks one number.
pub(crate) fn finite(field: &str, v: f32) -> Result<f32, String> {
    if !v.is_finite() {
        Err(format!("{field} must be a finite number, got {v}"))
    } else if v.abs() > MAX_COORDINATE {
        Err(format!(
            "{field} is too large ({v}; at most {MAX_COORDINATE})"
        ))
    } else {
        Ok(v)
    }
}

/// Checks a number that must be > 0.
fn positive(field: &str, v: f32) -> Result<f32, String> {
    let v = finite(field, v)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err(format!("{field} must be greater than 0, got {v}"))
    }
}

/// Checks a number that must be ≥ 0.
fn non_negative(field: &str, v: f32) -> Result<f32, String> {
    let v = finite(field, v)?;
    if v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("{field} must be 0 or more, got {v}"))
    }
}

/// Checks a vector.
pub(crate) fn vec3(field: &str, v: V3) -> Result<Vec3, String> {
    Ok(Vec3::new(
        finite(&format!("{field}.x"), v.0)?,
        finite(&format!("{field}.y"), v.1)?,
        finite(&format!("{field}.z"), v.2)?,
    ))
}

/// Converts a rotation, checking it.
pub(crate) fn rotation(field: &str, r: Rotation) -> Result<Quat, String> {
    match r {
        Rotation::Euler(x, y, z) => {
            let v = vec3(field, (x, y, z))?;
            Ok(Quat::from_euler(
                EulerRot::XYZ,
                v.x.to_radians(),
                v.y.to_radians(),
                v.z.to_radians(),
            ))
        }
        Rotation::Quat(x, y, z, w) => {
            for (name, c) in [("x", x), ("y", y), ("z", z), ("w", w)] {
                if !c.is_finite() {
                    return Err(format!(
                        "{field} quaternion {name} must be a finite number, got {c}"
                    ));
                }
            }
            let q = Quat::from_xyzw(x, y, z, w);
            if q.length_squared() < 1.0e-12 {
                return Err(format!("{field} quaternion must not be zero"));
            }
            Ok(q)
        }
    }
}

/// Builds an engine shape from its description.
pub fn shape(desc: &ShapeDesc) -> Result<Shape, String> {
    Ok(match desc {
        ShapeDesc::Sphere { radius } => Shape::sphere(positive("Sphere radius", *radius)?),
        ShapeDesc::Cuboid { half_extents } => {
            let h = vec3("Cuboid half_extents", *half_extents)?;
            for (axis, v) in ["x", "y", "z"].iter().zip(h.to_array()) {
                positive(&format!("Cuboid half_extents.{axis}"), v)?;
            }
            Shape::cuboid(h)
        }
        ShapeDesc::Capsule {
            half_height,
            radius,
        } => Shape::capsule(
            non_negative("Capsule half_height", *half_height)?,
            positive("Capsule radius", *radius)?,
        ),
        ShapeDesc::Hull { points } => {
            let pts = points
                .iter()
                .enumerate()
                .map(|(i, &p)| vec3(&format!("Hull points[{i}]"), p))
                .collect::<Result<Vec<_>, _>>()?;
            let hull = ConvexHull::new(&pts).map_err(|e| format!("Hull points: {e}"))?;
            Shape::ConvexHull(Arc::new(hull))
        }
        ShapeDesc::Pyramid { half_base, height } => {
            Shape::ConvexHull(Arc::new(ConvexHull::square_pyramid(
                positive("Pyramid half_base", *half_base)?,
                positive("Pyramid height", *height)?,
            )))
        }
        ShapeDesc::Prism {
            half_width,
            height,
            half_depth,
        } => Shape::ConvexHull(Arc::new(ConvexHull::triangular_prism(
            positive("Prism half_width", *half_width)?,
            positive("Prism height", *height)?,
            positive("Prism half_depth", *half_depth)?,
        ))),
        ShapeDesc::Plane { normal } => {
            let n = vec3("Plane normal", *normal)?;
            if n.length_squared() < 1.0e-12 {
                return Err("Plane normal must not be zero".into());
            }
            Shape::plane(n)
        }
    })
}

/// The world settings and the timestep.
fn settings(s: &SettingsDesc) -> Result<(WorldSettings, f32), String> {
    let timestep = positive("settings.timestep", s.timestep)?;
    if timestep > 1.0 {
        return Err(format!(
            "settings.timestep must be at most 1 s, got {timestep}"
        ));
    }
    let count = |field: &str, v: u32, min: u32, max: u32| {
        if (min..=max).contains(&v) {
            Ok(v)
        } else {
            Err(format!(
                "settings.{field} must be between {min} and {max}, got {v}"
            ))
        }
    };
    let world = WorldSettings {
        gravity: vec3("settings.gravity", s.gravity)?,
        substeps: count("substeps", s.substeps, 1, 64)?,
        velocity_iterations: count("velocity_iterations", s.velocity_iterations, 1, 100)?,
        position_iterations: count("position_iterations", s.position_iterations, 0, 100)?,
        enable_sleeping: s.sleeping,
        enable_warm_starting: s.warm_starting,
        contact_hertz: non_negative("settings.contact_hertz", s.contact_hertz)?,
        contact_damping_ratio: non_negative(
            "settings.contact_damping_ratio",
            s.contact_damping_ratio,
        )?,
        max_push_velocity: non_negative("settings.max_push_velocity", s.max_push_velocity)?,
        restitution_threshold: non_negative(
            "settings.restitution_threshold",
            s.restitution_threshold,
        )?,
        broad_phase: match s.broad_phase {
            BroadPhaseDesc::DynamicTree => BroadPhaseKind::DynamicTree,
            BroadPhaseDesc::BruteForce => BroadPhaseKind::BruteForce,
        },
        ..WorldSettings::default()
    };
    Ok((world, timestep))
}

/// Checks a material's values.
fn material(name: &str, m: &MaterialDesc) -> Result<(), String> {
    let field = |f: &str| format!("material \"{name}\": {f}");
    non_negative(&field("friction"), m.friction)?;
    unit_interval(&field("restitution"), m.restitution)?;
    non_negative(&field("density"), m.density)?;
    non_negative(&field("rolling_resistance"), m.rolling_resistance)?;
    Ok(())
}

/// Checks a number in [0, 1].
fn unit_interval(field: &str, v: f32) -> Result<f32, String> {
    let v = finite(field, v)?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{field} must be between 0 and 1, got {v}"))
    }
}

/// One collider's engine definition: shape, pose and the material with overrides.
fn collider(
    desc: &ColliderDesc,
    materials: &BTreeMap<String, MaterialDesc>,
) -> Result<ColliderDef, String> {
    let base = match &desc.material {
        None => MaterialDesc::default(),
        Some(name) => materials.get(name).cloned().ok_or_else(|| {
            let known: Vec<_> = materials.keys().map(|k| format!("\"{k}\"")).collect();
            if known.is_empty() {
                format!("material \"{name}\" is not defined (the scene has no materials)")
            } else {
                format!(
                    "material \"{name}\" is not defined (known: {})",
                    known.join(", ")
                )
            }
        })?,
    };
    Ok(ColliderDef {
        shape: shape(&desc.shape)?,
        local_position: vec3("position", desc.position)?,
        local_rotation: rotation("rotation", desc.rotation)?,
        friction: non_negative("friction", desc.friction.unwrap_or(base.friction))?,
        restitution: unit_interval("restitution", desc.restitution.unwrap_or(base.restitution))?,
        density: non_negative("density", desc.density.unwrap_or(base.density))?,
        rolling_resistance: non_negative(
            "rolling_resistance",
            desc.rolling_resistance.unwrap_or(base.rolling_resistance),
        )?,
        user_data: 0,
    })
}

/// One body's engine definitions.
fn body(
    desc: &BodyDesc,
    materials: &BTreeMap<String, MaterialDesc>,
) -> Result<(BodyDef, Vec<ColliderDef>), String> {
    let body_type = match desc.kind {
        Kind::Static => BodyType::Static,
        Kind::Kinematic => BodyType::Kinematic,
        Kind::Dynamic => BodyType::Dynamic,
    };
    let def = BodyDef {
        body_type,
        position: vec3("position", desc.position)?,
        rotation: rotation("rotation", desc.rotation)?,
        linear_velocity: vec3("linear_velocity", desc.linear_velocity)?,
        angular_velocity: vec3("angular_velocity", desc.angular_velocity)?,
        linear_damping: non_negative("linear_damping", desc.linear_damping)?,
        angular_damping: non_negative("angular_damping", desc.angular_damping)?,
        gravity_scale: finite("gravity_scale", desc.gravity_scale)?,
        can_sleep: desc.can_sleep,
        awake: desc.awake,
        user_data: 0,
    };
    if let Some(c) = desc.color {
        for (name, v) in [("r", c.0), ("g", c.1), ("b", c.2)] {
            unit_interval(&format!("color.{name}"), v)?;
        }
    }
    let colliders = desc
        .colliders
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let def = collider(c, materials).map_err(|e| format!("collider {i}: {e}"))?;
            if matches!(def.shape, Shape::Plane { .. }) && body_type != BodyType::Static {
                return Err(format!(
                    "collider {i}: a Plane can only belong to a Static body (kind: Static)"
                ));
            }
            Ok(def)
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((def, colliders))
}

/// How a body is named in messages: `body "box"` or `bodies[3]`.
fn label(desc: &BodyDesc, index: usize) -> String {
    match &desc.name {
        Some(name) => format!("body \"{name}\""),
        None => format!("bodies[{index}]"),
    }
}

/// Validates a parsed scene and builds its world.
pub fn build(file: &SceneFile) -> Result<Scene, Invalid> {
    let (world_settings, timestep) = settings(&file.settings).map_err(Invalid::new)?;
    for (name, m) in &file.materials {
        material(name, m).map_err(Invalid::new)?;
    }
    let camera = file.camera.clone().unwrap_or_default();
    vec3("camera.eye", camera.eye).map_err(Invalid::new)?;
    vec3("camera.target", camera.target).map_err(Invalid::new)?;
    let fov = finite("camera.fov_deg", camera.fov_deg).map_err(Invalid::new)?;
    if !(1.0..=170.0).contains(&fov) {
        return Err(Invalid::new(format!(
            "camera.fov_deg must be between 1 and 170, got {fov}"
        )));
    }

    let mut descs: Vec<(String, BodyDesc)> = Vec::with_capacity(file.bodies.len());
    for (i, b) in file.bodies.iter().enumerate() {
        descs.push((label(b, i), b.clone()));
    }
    expand(&file.generators, &mut descs, MAX_SCENE_BODIES).map_err(Invalid::new)?;
    if descs.len() > MAX_SCENE_BODIES {
        return Err(Invalid::new(format!(
            "the scene has {} bodies; at most {MAX_SCENE_BODIES} are allowed",
            descs.len()
        )));
    }

    let mut names: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, (_, d)) in descs.iter().enumerate() {
        if let Some(name) = &d.name {
            if let Some(first) = names.insert(name, i) {
                return Err(Invalid {
                    message: format!("body name \"{name}\" is used twice (bodies {first} and {i}); names must be unique"),
                    anchor: Some(name.clone()),
                });
            }
        }
    }

    let mut world = World::new(world_settings);
    let mut meta = BTreeMap::new();
    for (i, (label, d)) in descs.iter().enumerate() {
        let fail = |message: String| Invalid {
            message: format!("{label}: {message}"),
            anchor: d.name.clone(),
        };
        let (mut def, colliders) = body(d, &file.materials).map_err(fail)?;
        def.user_data = i as u64;
        let (handle, _) = world
            .create_body_with_colliders(def, &colliders)
            .map_err(|e| fail(e.to_string()))?;
        meta.insert(
            handle,
            BodyMeta {
                name: d.name.clone().unwrap_or_default(),
                color: d.color,
            },
        );
    }
    Ok(Scene {
        world,
        timestep,
        camera,
        camera_given: file.camera.is_some(),
        meta,
    })
}
