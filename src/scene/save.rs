//! Saving a world as a scene file that loads back to the same state, bit for bit.
//!
//! Everything is written explicitly: rotations as quaternions (no Euler round trip),
//! materials inline (no lookup), hulls as their vertex lists, generators expanded into
//! bodies. Floats are written in Rust's shortest round-trip form, so parsing them gives
//! back the same bits.

use std::collections::BTreeMap;

use super::build::BodyMeta;
use super::schema::*;
use crate::physics::{BodyHandle, BodyType, Quat, Shape, Vec3, World};

fn v3(v: Vec3) -> V3 {
    (v.x, v.y, v.z)
}

fn quat(q: Quat) -> Rotation {
    Rotation::Quat(q.x, q.y, q.z, q.w)
}

/// The description of an engine shape.
pub fn shape_desc(shape: &Shape) -> ShapeDesc {
    match shape {
        Shape::Sphere { radius } => ShapeDesc::Sphere { radius: *radius },
        Shape::Cuboid { half_extents } => ShapeDesc::Cuboid {
            half_extents: v3(*half_extents),
        },
        Shape::Capsule {
            half_height,
            radius,
        } => ShapeDesc::Capsule {
            half_height: *half_height,
            radius: *radius,
        },
        Shape::ConvexHull(hull) => ShapeDesc::Hull {
            points: hull.vertices.iter().map(|&v| v3(v)).collect(),
        },
        Shape::Plane { normal } => ShapeDesc::Plane {
            normal: v3(*normal),
        },
    }
}

/// The world, its names and colours, camera and timestep as a scene file.
pub fn to_scene_file(
    world: &World,
    meta: &BTreeMap<BodyHandle, BodyMeta>,
    camera: &CameraDesc,
    timestep: f32,
) -> SceneFile {
    let s = world.settings();
    let settings = SettingsDesc {
        gravity: v3(s.gravity),
        timestep,
        substeps: s.substeps,
        velocity_iterations: s.velocity_iterations,
        position_iterations: s.position_iterations,
        sleeping: s.enable_sleeping,
        warm_starting: s.enable_warm_starting,
        broad_phase: BroadPhaseDesc::from_kind(s.broad_phase),
        integrator: IntegratorDesc::from_kind(s.integrator),
        planar: s.planar,
        contact_hertz: s.contact_hertz,
        contact_damping_ratio: s.contact_damping_ratio,
        max_push_velocity: s.max_push_velocity,
        restitution_threshold: s.restitution_threshold,
        max_contacts_per_body: s.max_contacts_per_body,
    };
    let bodies = world
        .bodies()
        .map(|(handle, body)| {
            let m = meta.get(&handle);
            let colliders = world
                .body_colliders(handle)
                .filter_map(|c| world.collider(c))
                .map(|c| ColliderDesc {
                    shape: shape_desc(c.shape()),
                    position: v3(c.local_pose().translation),
                    rotation: if c.local_pose().rotation == Quat::IDENTITY {
                        Rotation::default()
                    } else {
                        quat(c.local_pose().rotation)
                    },
                    material: None,
                    friction: Some(c.friction()),
                    restitution: Some(c.restitution()),
                    density: Some(c.density()),
                    rolling_resistance: (c.rolling_resistance() != 0.0)
                        .then_some(c.rolling_resistance()),
                    sensor: c.is_sensor(),
                })
                .collect();
            BodyDesc {
                name: m.map(|m| m.name.clone()).filter(|n| !n.is_empty()),
                kind: match body.body_type() {
                    BodyType::Static => Kind::Static,
                    BodyType::Kinematic => Kind::Kinematic,
                    BodyType::Dynamic => Kind::Dynamic,
                },
                position: v3(body.position()),
                rotation: quat(body.rotation()),
                linear_velocity: v3(body.linear_velocity()),
                angular_velocity: v3(body.angular_velocity()),
                linear_damping: body.linear_damping(),
                angular_damping: body.angular_damping(),
                gravity_scale: body.gravity_scale(),
                can_sleep: body.can_sleep(),
                awake: body.is_awake(),
                ccd: body.has_ccd(),
                locked: LocksDesc::from_locks(body.locked()),
                color: m.and_then(|m| m.color),
                colliders,
            }
        })
        .collect();
    SceneFile {
        settings,
        camera: Some(camera.clone()),
        materials: BTreeMap::new(),
        bodies,
        generators: Vec::new(),
        joints: joints(world, meta),
    }
}

/// The world's joints as scene entries, anchors where the bodies are now. A joint whose
/// body has no name cannot be written (scene joints name their bodies) and is left out.
fn joints(world: &World, meta: &BTreeMap<BodyHandle, BodyMeta>) -> Vec<JointDesc> {
    use crate::physics::JointKind;
    let name = |h: BodyHandle| {
        meta.get(&h)
            .map(|m| m.name.clone())
            .filter(|n| !n.is_empty())
    };
    world
        .joints()
        .filter_map(|(handle, joint)| {
            let def = joint.def();
            let a = name(def.body_a)?;
            let b = match def.body_b {
                Some(h) => Some(name(h)?),
                None => None,
            };
            let (pa, pb) = world.joint_anchors(handle)?;
            let (break_force, collide) = (def.break_force, def.collide);
            Some(match def.kind {
                JointKind::Spherical { cone } => {
                    // The cone's axis as B carries it now; A's axis is found again from
                    // its centre of mass.
                    let rotation_b = def
                        .body_b
                        .and_then(|h| world.body(h))
                        .map_or(crate::physics::Quat::IDENTITY, |body| body.rotation());
                    JointDesc::Spherical {
                        a,
                        b,
                        anchor: v3(pa),
                        cone: cone.map(|c| c.half_angle.to_degrees()),
                        cone_axis: cone.map(|c| v3(rotation_b * c.axis_b)),
                        break_force,
                        collide,
                    }
                }
                // The weld's reference becomes the bodies' poses now (they hold them).
                JointKind::Fixed { .. } => JointDesc::Fixed {
                    a,
                    b,
                    anchor: v3(pa),
                    break_force,
                    collide,
                },
                JointKind::Revolute {
                    axis_a,
                    limits,
                    motor,
                    ..
                } => {
                    // The current angle becomes the new zero: the limits move with it.
                    let rotation = world.body(def.body_a)?.rotation();
                    let angle = world.joint_angle(handle).unwrap_or(0.0);
                    JointDesc::Revolute {
                        a,
                        b,
                        anchor: v3(pa),
                        axis: v3(rotation * axis_a),
                        limits: limits.map(|l| {
                            (
                                (l.lower - angle).to_degrees(),
                                (l.upper - angle).to_degrees(),
                            )
                        }),
                        motor: motor.map(|m| (m.speed, m.max_torque)),
                        break_force,
                        collide,
                    }
                }
                JointKind::Distance { min, max } => JointDesc::Distance {
                    a,
                    b,
                    anchor_a: v3(pa),
                    anchor_b: v3(pb),
                    min,
                    max,
                    break_force,
                    collide,
                },
                JointKind::Spring {
                    rest_length,
                    hertz,
                    damping_ratio,
                    bungee,
                } => JointDesc::Spring {
                    a,
                    b,
                    anchor_a: v3(pa),
                    anchor_b: v3(pb),
                    rest_length,
                    hertz,
                    damping_ratio,
                    bungee,
                    break_force,
                    collide,
                },
            })
        })
        .collect()
}

/// The scene file as RON text, with a header comment.
pub fn to_ron(file: &SceneFile, comment: &str) -> Result<String, String> {
    let pretty = ron::ser::PrettyConfig::new()
        .depth_limit(4)
        .struct_names(true)
        .separate_tuple_members(false)
        .enumerate_arrays(false);
    let body = super::ron_options()
        .to_string_pretty(file, pretty)
        .map_err(|e| format!("cannot write the scene: {e}"))?;
    let header: String = comment.lines().map(|l| format!("// {l}\n")).collect();
    Ok(format!("{header}{body}\n"))
}

/// Saves the world as RON text.
pub fn save(
    world: &World,
    meta: &BTreeMap<BodyHandle, BodyMeta>,
    camera: &CameraDesc,
    timestep: f32,
    comment: &str,
) -> Result<String, String> {
    to_ron(&to_scene_file(world, meta, camera, timestep), comment)
}
