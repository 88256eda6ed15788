//! From a parsed scene file to a world: validation with messages that name the body and the
//! field, generator expansion, and body creation.

use std::collections::BTreeMap;
use std::sync::Arc;

use glam::EulerRot;

use super::generators::expand;
use super::schema::*;
use crate::physics::shape::{check_size, ConvexHull};
use crate::physics::{
    BodyDef, BodyHandle, BodyType, ColliderDef, CollisionFilter, Cone, JointDef, JointKind, Limits,
    Motor, Quat, Shape, Vec3, World, WorldSettings,
};

/// Largest number of bodies a scene may create (generators included): beyond this a typo
/// like `base: 100000` would eat all memory instead of failing.
pub const MAX_SCENE_BODIES: usize = 100_000;

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

// The loader converts what the file says into engine definitions and lets the engine judge
// them (`Shape::validate`, `ColliderDef::validate`, `BodyDef::validate`,
// `WorldSettings::validate`), adding only where in the file the problem is. The checks below
// are for what the engine never sees: the timestep, the camera, colours, names, generators.

/// Checks one number the engine never sees.
pub(crate) fn finite(field: &str, v: f32) -> Result<f32, String> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("{field} must be a finite number, got {v}"))
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
pub(crate) fn non_negative(field: &str, v: f32) -> Result<f32, String> {
    let v = finite(field, v)?;
    if v >= 0.0 {
        Ok(v)
    } else {
        Err(format!("{field} must be 0 or more, got {v}"))
    }
}

/// Checks a vector the engine never sees.
fn vec3(field: &str, v: V3) -> Result<Vec3, String> {
    Ok(Vec3::new(
        finite(&format!("{field}.x"), v.0)?,
        finite(&format!("{field}.y"), v.1)?,
        finite(&format!("{field}.z"), v.2)?,
    ))
}

/// A vector as it is (the engine checks it).
fn raw(v: V3) -> Vec3 {
    Vec3::new(v.0, v.1, v.2)
}

/// Converts a rotation: Euler angles must be finite; a quaternion goes as it is (the engine
/// normalises any finite non-zero one, however large).
fn rotation(field: &str, r: Rotation) -> Result<Quat, String> {
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
        Rotation::Quat(x, y, z, w) => Ok(Quat::from_xyzw(x, y, z, w)),
    }
}

/// Builds an engine shape from its description and checks it (`Shape::validate`). Pyramids
/// and prisms are built as hulls, so their sizes are checked first and a flat one is refused
/// with the hull builder's reason.
pub fn shape(desc: &ShapeDesc) -> Result<Shape, String> {
    let hull = |kind: &str, sizes: &[(&str, f32)], build: &dyn Fn() -> Result<ConvexHull, _>| {
        for (name, v) in sizes {
            check_size(&format!("{kind} {name}"), *v)?;
        }
        build()
            .map(|h| Shape::ConvexHull(Arc::new(h)))
            .map_err(|e: crate::physics::shape::HullError| format!("{kind} is too flat: {e}"))
    };
    let shape = match desc {
        ShapeDesc::Sphere { radius } => Shape::sphere(*radius),
        ShapeDesc::Cuboid { half_extents } => Shape::cuboid(raw(*half_extents)),
        ShapeDesc::Capsule {
            half_height,
            radius,
        } => Shape::capsule(*half_height, *radius),
        ShapeDesc::Hull { points } => {
            let pts: Vec<Vec3> = points.iter().map(|&p| raw(p)).collect();
            let hull = ConvexHull::new(&pts).map_err(|e| format!("Hull points: {e}"))?;
            Shape::ConvexHull(Arc::new(hull))
        }
        ShapeDesc::Pyramid { half_base, height } => hull(
            "Pyramid",
            &[("half_base", *half_base), ("height", *height)],
            &|| ConvexHull::try_square_pyramid(*half_base, *height),
        )?,
        ShapeDesc::Prism {
            half_width,
            height,
            half_depth,
        } => hull(
            "Prism",
            &[
                ("half_width", *half_width),
                ("height", *height),
                ("half_depth", *half_depth),
            ],
            &|| ConvexHull::try_triangular_prism(*half_width, *height, *half_depth),
        )?,
        // `Shape::plane` normalises; the raw normal is what must not be zero.
        ShapeDesc::Plane { normal } => {
            Shape::Plane {
                normal: raw(*normal),
            }
            .validate()?;
            Shape::plane(raw(*normal))
        }
    };
    shape.validate()?;
    Ok(shape)
}

/// The world settings (checked by `WorldSettings::validate`) and the timestep.
fn settings(s: &SettingsDesc) -> Result<(WorldSettings, f32), String> {
    let timestep = positive("settings.timestep", s.timestep)?;
    if timestep > 1.0 {
        return Err(format!(
            "settings.timestep must be at most 1 s, got {timestep}"
        ));
    }
    let world = WorldSettings {
        gravity: raw(s.gravity),
        substeps: s.substeps,
        velocity_iterations: s.velocity_iterations,
        relax_iterations: s.relax_iterations,
        enable_sleeping: s.sleeping,
        enable_warm_starting: s.warm_starting,
        contact_hertz: s.contact_hertz,
        contact_damping_ratio: s.contact_damping_ratio,
        max_push_velocity: s.max_push_velocity,
        restitution_threshold: s.restitution_threshold,
        max_contacts_per_body: s.max_contacts_per_body,
        broad_phase: s.broad_phase.kind(),
        integrator: s.integrator.kind(),
        planar: s.planar,
        ..WorldSettings::default()
    };
    world.validate().map_err(|e| format!("settings.{e}"))?;
    Ok((world, timestep))
}

/// Creates the joint a scene file describes, its bodies found by name.
fn joint(
    world: &mut World,
    handles: &BTreeMap<&str, BodyHandle>,
    desc: &JointDesc,
) -> Result<(), String> {
    let find = |field: &str, name: &str| {
        handles
            .get(name)
            .copied()
            .ok_or_else(|| format!("{field}: no body is named \"{name}\""))
    };
    let (a, b, anchor_a, anchor_b, kind, break_force, collide, frames) = match desc {
        JointDesc::Spherical {
            a,
            b,
            anchor,
            cone,
            cone_axis,
            break_force,
            collide,
            frames,
        } => (
            a,
            b,
            *anchor,
            *anchor,
            JointKind::Spherical {
                // The axes are found below, from the bodies (zero: none given).
                cone: cone.map(|degrees| Cone {
                    axis_a: Vec3::ZERO,
                    axis_b: cone_axis.map_or(Vec3::ZERO, raw),
                    half_angle: degrees.to_radians(),
                }),
            },
            *break_force,
            *collide,
            frames,
        ),
        JointDesc::Fixed {
            a,
            b,
            anchor,
            break_force,
            collide,
            frames,
        } => (
            a,
            b,
            *anchor,
            *anchor,
            JointKind::Fixed {
                reference: Quat::IDENTITY,
            },
            *break_force,
            *collide,
            frames,
        ),
        JointDesc::Revolute {
            a,
            b,
            anchor,
            axis,
            limits,
            motor,
            break_force,
            collide,
            frames,
        } => {
            let axis = raw(*axis);
            if !(axis.is_finite() && axis.length() > 1e-6) {
                return Err(format!("axis must be a non-zero direction, got {axis}"));
            }
            (
                a,
                b,
                *anchor,
                *anchor,
                JointKind::Revolute {
                    axis_a: axis,
                    axis_b: axis,
                    reference_a: Vec3::ZERO,
                    reference_b: Vec3::ZERO,
                    limits: limits.map(|(lower, upper)| Limits { lower, upper }),
                    motor: motor.map(|(speed, max_torque)| Motor { speed, max_torque }),
                },
                *break_force,
                *collide,
                frames,
            )
        }
        JointDesc::Distance {
            a,
            b,
            anchor_a,
            anchor_b,
            min,
            max,
            break_force,
            collide,
            frames,
        } => (
            a,
            b,
            *anchor_a,
            *anchor_b,
            JointKind::Distance {
                min: *min,
                max: *max,
            },
            *break_force,
            *collide,
            frames,
        ),
        JointDesc::Spring {
            a,
            b,
            anchor_a,
            anchor_b,
            rest_length,
            hertz,
            damping_ratio,
            bungee,
            break_force,
            collide,
            frames,
        } => (
            a,
            b,
            *anchor_a,
            *anchor_b,
            JointKind::Spring {
                rest_length: *rest_length,
                hertz: *hertz,
                damping_ratio: *damping_ratio,
                bungee: *bungee,
            },
            *break_force,
            *collide,
            frames,
        ),
    };
    let a = find("a", a)?;
    let b = b.as_deref().map(|n| find("b", n)).transpose()?;
    let mut def = match frames {
        Some(frames) => from_frames(a, b, kind, frames)?,
        None => from_world(world, a, b, raw(anchor_a), raw(anchor_b), kind)?,
    };
    def.break_force = break_force;
    def.collide = collide;
    world.create_joint(def).map_err(|e| e.to_string())?;
    Ok(())
}

/// A joint as the bodies' own frames give it ([`Frames`], what Save as writes); `kind`
/// carries the file's motor and range (its limits still in the file's degrees, unused here).
fn from_frames(
    a: BodyHandle,
    b: Option<BodyHandle>,
    kind: JointKind,
    frames: &Frames,
) -> Result<JointDef, String> {
    let needed = |field: &str| format!("frames.{field} is needed for this joint");
    let unit = |field: &str, v: Option<V3>| -> Result<Vec3, String> {
        let v = raw(v.ok_or_else(|| needed(field))?);
        if v.is_finite() && (v.length() - 1.0).abs() < 1.0e-3 {
            Ok(v)
        } else {
            Err(format!("frames.{field} must be a unit direction, got {v}"))
        }
    };
    let kind = match kind {
        JointKind::Spherical { cone: Some(_) } => JointKind::Spherical {
            cone: Some(Cone {
                axis_a: unit("axis_a", frames.axis_a)?,
                axis_b: unit("axis_b", frames.axis_b)?,
                half_angle: frames.cone.ok_or_else(|| needed("cone"))?,
            }),
        },
        JointKind::Fixed { .. } => {
            let (x, y, z, w) = frames.rotation.ok_or_else(|| needed("rotation"))?;
            JointKind::Fixed {
                reference: Quat::from_xyzw(x, y, z, w),
            }
        }
        JointKind::Revolute { limits, motor, .. } => {
            let axis_a = unit("axis_a", frames.axis_a)?;
            let axis_b = unit("axis_b", frames.axis_b)?;
            let reference_a = unit("reference_a", frames.reference_a)?;
            let reference_b = unit("reference_b", frames.reference_b)?;
            for (field, axis, reference) in [
                ("reference_a", axis_a, reference_a),
                ("reference_b", axis_b, reference_b),
            ] {
                if axis.dot(reference).abs() > 1.0e-3 {
                    return Err(format!(
                        "frames.{field} must be across the hinge's axis, got {reference} for axis {axis}"
                    ));
                }
            }
            let limits = match limits {
                Some(_) => {
                    let (lower, upper) = frames.limits.ok_or_else(|| needed("limits"))?;
                    Some(Limits { lower, upper })
                }
                None => None,
            };
            JointKind::Revolute {
                axis_a,
                axis_b,
                reference_a,
                reference_b,
                limits,
                motor,
            }
        }
        other => other,
    };
    Ok(JointDef {
        body_a: a,
        body_b: b,
        local_anchor_a: raw(frames.anchor_a),
        local_anchor_b: raw(frames.anchor_b),
        kind,
        break_force: None,
        collide: false,
    })
}

/// A joint as its world-space fields give it, in the bodies' frames where they start.
fn from_world(
    world: &World,
    a: BodyHandle,
    b: Option<BodyHandle>,
    anchor_a: Vec3,
    anchor_b: Vec3,
    kind: JointKind,
) -> Result<JointDef, String> {
    Ok(match kind {
        // The hinge's frames come from its world axis.
        JointKind::Revolute {
            axis_a,
            limits,
            motor,
            ..
        } => {
            let mut def = JointDef::revolute(world, a, b, anchor_a, axis_a);
            // The file's limits are in degrees.
            if let Some(Limits { lower, upper }) = limits {
                def = def.with_limits(lower.to_radians(), upper.to_radians());
            }
            if let Some(motor) = motor {
                def = def.with_motor(motor);
            }
            def
        }
        JointKind::Spherical { cone: Some(cone) } => JointDef::spherical_cone(
            world,
            a,
            b,
            anchor_a,
            (cone.axis_b != Vec3::ZERO).then_some(cone.axis_b),
            cone.half_angle,
        )?,
        // The weld keeps the poses the bodies start in.
        JointKind::Fixed { .. } => JointDef::fixed(world, a, b, anchor_a),
        _ => JointDef::between(world, a, b, anchor_a, anchor_b, kind),
    })
}

/// Checks a material's values (as a collider's: `ColliderDef::validate`).
fn material(name: &str, m: &MaterialDesc) -> Result<(), String> {
    let def = ColliderDef {
        friction: m.friction,
        restitution: m.restitution,
        density: m.density,
        rolling_resistance: m.rolling_resistance,
        ..ColliderDef::new(Shape::sphere(1.0))
    };
    def.validate()
        .map_err(|e| format!("material \"{name}\": {e}"))
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
    let def = ColliderDef {
        shape: shape(&desc.shape)?,
        local_position: raw(desc.position),
        local_rotation: rotation("rotation", desc.rotation)?,
        friction: desc.friction.unwrap_or(base.friction),
        restitution: desc.restitution.unwrap_or(base.restitution),
        density: desc.density.unwrap_or(base.density),
        rolling_resistance: desc.rolling_resistance.unwrap_or(base.rolling_resistance),
        sensor: desc.sensor,
        filter: desc.filter.map_or(CollisionFilter::DEFAULT, |f| {
            CollisionFilter::new(f.category, f.mask)
        }),
        user_data: 0,
    };
    def.validate()?;
    Ok(def)
}

/// One body's engine definitions.
fn body(
    desc: &BodyDesc,
    materials: &BTreeMap<String, MaterialDesc>,
    max_spin: f32,
) -> Result<(BodyDef, Vec<ColliderDef>), String> {
    let body_type = match desc.kind {
        Kind::Static => BodyType::Static,
        Kind::Kinematic => BodyType::Kinematic,
        Kind::Dynamic => BodyType::Dynamic,
    };
    let def = BodyDef {
        body_type,
        position: raw(desc.position),
        rotation: rotation("rotation", desc.rotation)?,
        linear_velocity: raw(desc.linear_velocity),
        angular_velocity: raw(desc.angular_velocity),
        linear_damping: desc.linear_damping,
        angular_damping: desc.angular_damping,
        gravity_scale: desc.gravity_scale,
        can_sleep: desc.can_sleep,
        ccd: desc.ccd,
        awake: desc.awake,
        user_data: 0,
        locked: desc.locked.locks(),
    };
    def.validate()?;
    if body_type != BodyType::Static {
        let spin = def.angular_velocity.length();
        if spin > max_spin {
            return Err(format!(
                "angular_velocity is {spin} rad/s; at most {max_spin} rad/s at this timestep and sub-step count (a quarter turn over two per sub-step)"
            ));
        }
    }
    if let Some(c) = desc.color {
        for (name, v) in [("r", c.0), ("g", c.1), ("b", c.2)] {
            unit_interval(&format!("color.{name}"), v)?;
        }
    }
    let colliders = desc
        .colliders
        .iter()
        .enumerate()
        .map(|(i, c)| collider(c, materials).map_err(|e| format!("collider {i}: {e}")))
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
    let mut generated_joints = Vec::new();
    expand(
        &file.generators,
        &mut descs,
        &mut generated_joints,
        MAX_SCENE_BODIES,
    )
    .map_err(Invalid::new)?;
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

    let max_spin = world_settings.max_angular_speed(timestep);
    let mut world = World::new(world_settings);
    let mut meta = BTreeMap::new();
    for (i, (label, d)) in descs.iter().enumerate() {
        let fail = |message: String| Invalid {
            message: format!("{label}: {message}"),
            anchor: d.name.clone(),
        };
        let (mut def, colliders) = body(d, &file.materials, max_spin).map_err(fail)?;
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
    let handles: BTreeMap<&str, BodyHandle> = meta
        .iter()
        .filter(|(_, m)| !m.name.is_empty())
        .map(|(&h, m)| (m.name.as_str(), h))
        .collect();
    for (i, j) in file.joints.iter().enumerate() {
        joint(&mut world, &handles, j).map_err(|message| Invalid {
            message: format!("joints[{i}]: {message}"),
            anchor: None,
        })?;
    }
    for (i, j) in generated_joints.iter().enumerate() {
        joint(&mut world, &handles, j).map_err(|message| Invalid {
            message: format!("generated joint {i}: {message}"),
            anchor: None,
        })?;
    }
    Ok(Scene {
        world,
        timestep,
        camera,
        camera_given: file.camera.is_some(),
        meta,
    })
}
