//! Saving a world as a scene file that loads back to the same state, bit for bit.
//!
//! Everything is written explicitly: rotations as quaternions (no Euler round trip),
//! materials inline (no lookup), hulls as their vertex lists. Floats are written in Rust's
//! shortest round-trip form, so parsing them gives back the same bits.
//!
//! [`save_scene`] (Save as in the window, `impulse run --save`) also keeps what it can of
//! the file the world came from: its description (the comment it opens with), and its
//! generators while the bodies and joints they made are still the world's last ones,
//! exactly as they made them; other generators are written body by body. A world that has
//! stepped is written with every body awake: a body asleep in a file stays where the file
//! puts it until something touches it, so a resting body moved up by hand would float, and
//! what the save cannot carry (the contacts' impulses, the sleep timers) makes the
//! continuation differ a little anyway. Saved before its first step, the world loads back
//! to the scene it was loaded from, and steps the same bits.

use std::collections::BTreeMap;

use super::build::BodyMeta;
use super::schema::*;
use crate::physics::{BodyHandle, BodyType, CollisionFilter, Quat, Shape, Vec3, World};

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
        relax_iterations: s.relax_iterations,
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
                    filter: (c.filter() != CollisionFilter::DEFAULT).then(|| FilterDesc {
                        category: c.filter().category,
                        mask: c.filter().mask,
                    }),
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
            // The joint exactly as the engine holds it (what loading uses when given).
            let mut frames = Frames {
                anchor_a: v3(def.local_anchor_a),
                anchor_b: v3(def.local_anchor_b),
                axis_a: None,
                axis_b: None,
                reference_a: None,
                reference_b: None,
                limits: None,
                cone: None,
                rotation: None,
            };
            Some(match def.kind {
                JointKind::Spherical { cone } => {
                    // The cone's axis as B carries it now; A's axis is found again from
                    // its centre of mass.
                    let rotation_b = def
                        .body_b
                        .and_then(|h| world.body(h))
                        .map_or(crate::physics::Quat::IDENTITY, |body| body.rotation());
                    if let Some(c) = cone {
                        frames.axis_a = Some(v3(c.axis_a));
                        frames.axis_b = Some(v3(c.axis_b));
                        frames.cone = Some(c.half_angle);
                    }
                    JointDesc::Spherical {
                        a,
                        b,
                        anchor: v3(pa),
                        cone: cone.map(|c| c.half_angle.to_degrees()),
                        cone_axis: cone.map(|c| v3(rotation_b * c.axis_b)),
                        break_force,
                        collide,
                        frames: Some(frames),
                    }
                }
                // The world fields describe the weld where the bodies are now; its
                // reference rotation is in the frames.
                JointKind::Fixed { reference } => {
                    frames.rotation = Some((reference.x, reference.y, reference.z, reference.w));
                    JointDesc::Fixed {
                        a,
                        b,
                        anchor: v3(pa),
                        break_force,
                        collide,
                        frames: Some(frames),
                    }
                }
                JointKind::Revolute {
                    axis_a,
                    axis_b,
                    reference_a,
                    reference_b,
                    limits,
                    motor,
                } => {
                    frames.axis_a = Some(v3(axis_a));
                    frames.axis_b = Some(v3(axis_b));
                    frames.reference_a = Some(v3(reference_a));
                    frames.reference_b = Some(v3(reference_b));
                    frames.limits = limits.map(|l| (l.lower, l.upper));
                    // In the world fields the current angle is the zero the limits are
                    // measured from (a scene's hinge starts at 0); the frames keep the
                    // engine's reference and its limits as they are.
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
                        frames: Some(frames),
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
                    frames: Some(frames),
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
                    frames: Some(frames),
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
    let header: String = comment
        .lines()
        .map(|l| {
            if l.is_empty() {
                "//\n".to_string()
            } else {
                format!("// {l}\n")
            }
        })
        .collect();
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

/// How the note of [`saved_note`] begins.
const SAVED_NOTE: &str = "Saved by Impulse from ";

/// The line a saved file's header ends with: where and when it was saved from.
pub fn saved_note(world: &World, from: &str) -> String {
    format!(
        "{SAVED_NOTE}{from} at step {} (t = {:.3} s), {} bodies.",
        world.step_count(),
        world.time(),
        world.body_count()
    )
}

/// What Save as writes: `world` as a scene file (see the module documentation), headed by
/// the description of `source` (the text of the file the world was loaded from, when there
/// is one) and `note`. `camera` is written when given.
pub fn save_scene(
    world: &World,
    meta: &BTreeMap<BodyHandle, BodyMeta>,
    camera: Option<&CameraDesc>,
    timestep: f32,
    source: Option<&str>,
    note: &str,
) -> Result<String, String> {
    let default_camera = CameraDesc::default();
    let mut file = to_scene_file(world, meta, camera.unwrap_or(&default_camera), timestep);
    file.camera = camera.cloned();
    if world.step_count() > 0 {
        for body in &mut file.bodies {
            body.awake = true;
        }
    }
    let parsed = source.and_then(|text| super::parse(text, "source").ok());
    if let Some(original) = &parsed {
        keep_generators(&mut file, original, world.step_count() == 0);
    }
    let description = source.map(super::description).unwrap_or_default();
    let mut header = String::new();
    // A file saved before says so in its last paragraph: that note is replaced.
    let described = description
        .split("\n\n")
        .filter(|p| !p.is_empty() && !p.starts_with(SAVED_NOTE));
    for paragraph in described {
        header += &wrap(paragraph, 88);
        header += "\n";
    }
    header += note;
    let text = to_ron(&file, &header)?;
    Ok(match source {
        Some(source) => carry_comments(source, &text),
        None => text,
    })
}

/// What a comment in a scene file sits above: a body (by name) or a top-level section.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Anchor {
    Body(String),
    Section(String),
}

/// The anchor a line of a scene file starts: a body's entry (the line holds its
/// `name: "…"`) or a top-level section (`settings:`, `bodies:` …).
fn anchor_of(line: &str) -> Option<Anchor> {
    let trimmed = line.trim_start();
    const SECTIONS: [&str; 6] = [
        "settings:",
        "camera:",
        "materials:",
        "bodies:",
        "generators:",
        "joints:",
    ];
    if let Some(section) = SECTIONS.iter().find(|s| trimmed.starts_with(*s)) {
        return Some(Anchor::Section(section.trim_end_matches(':').to_string()));
    }
    let after = &line[line.find("name: \"")? + "name: \"".len()..];
    Some(Anchor::Body(after[..after.find('"')?].to_string()))
}

/// The comments of `source` (after the description it opens with) with what they sit
/// above, in order; a comment above anything else is not carried.
fn comments_by_anchor(source: &str) -> Vec<(Anchor, Vec<String>)> {
    let mut found = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    let lines = source
        .lines()
        .skip_while(|l| l.trim_start().starts_with("//"));
    for line in lines {
        let trimmed = line.trim();
        if let Some(comment) = trimmed.strip_prefix("//") {
            pending.push(comment.trim().to_string());
        } else if !trimmed.is_empty() && !pending.is_empty() {
            match anchor_of(line) {
                Some(anchor) => found.push((anchor, std::mem::take(&mut pending))),
                // A saved file opens a body's entry on a line of its own, the name below.
                None if trimmed.ends_with('(') => {}
                None => pending.clear(),
            }
        }
    }
    found
}

/// `saved` (a scene as [`to_ron`] writes it) with the comments of `source` put back above
/// the bodies and sections they sat above there, indented as their line.
fn carry_comments(source: &str, saved: &str) -> String {
    let comments = comments_by_anchor(source);
    if comments.is_empty() {
        return saved.to_string();
    }
    let lines: Vec<&str> = saved.lines().collect();
    let mut out = String::with_capacity(saved.len() + 1024);
    for (i, line) in lines.iter().enumerate() {
        // A body's entry opens on the line before its name.
        let anchor = match lines.get(i + 1).and_then(|next| anchor_of(next)) {
            Some(Anchor::Body(name)) if line.trim_end().ends_with('(') => Some(Anchor::Body(name)),
            _ => anchor_of(line).filter(|a| matches!(a, Anchor::Section(_))),
        };
        if let Some((_, text)) = anchor.and_then(|a| comments.iter().find(|(b, _)| *b == a)) {
            let indent = &line[..line.len() - line.trim_start().len()];
            for comment in text {
                out += indent;
                out += "// ";
                out += comment;
                out.push('\n');
            }
        }
        out += line;
        out.push('\n');
    }
    out
}

/// Replaces the world's last bodies and joints by the generators of `original` that made
/// them, for the longest run of its last generators whose bodies and joints are the world's
/// last ones exactly as a fresh load of `original` makes them (so a load of the result puts
/// every body and joint in the same order as the world has them). `fresh_awake`: the world
/// has not stepped, so its bodies' sleep flags are compared too; after a step every body is
/// written awake and compared so.
fn keep_generators(file: &mut SceneFile, original: &SceneFile, fresh_awake: bool) {
    if original.generators.is_empty() {
        return;
    }
    let Ok(fresh) = super::build::build(original) else {
        return;
    };
    let camera = file.camera.clone().unwrap_or_default();
    let mut made = to_scene_file(&fresh.world, &fresh.meta, &camera, fresh.timestep);
    if !fresh_awake {
        for body in &mut made.bodies {
            body.awake = true;
        }
    }
    // Bodies and joints each generator adds, from expanding them one more at a time (a
    // generator's names depend on the ones before it).
    let n = original.generators.len();
    let mut sizes = Vec::with_capacity(n + 1);
    for k in 0..=n {
        let (mut bodies, mut joints) = (Vec::new(), Vec::new());
        if super::generators::expand(
            &original.generators[..k],
            &mut bodies,
            &mut joints,
            usize::MAX,
        )
        .is_err()
        {
            return;
        }
        sizes.push((bodies.len(), joints.len()));
    }
    let (all_bodies, all_joints) = sizes[n];
    let tail_matches = |kept: usize| {
        let (from_bodies, from_joints) = sizes[n - kept];
        let (b, j) = (all_bodies - from_bodies, all_joints - from_joints);
        b <= file.bodies.len()
            && j <= file.joints.len()
            && b <= made.bodies.len()
            && j <= made.joints.len()
            && file.bodies[file.bodies.len() - b..] == made.bodies[made.bodies.len() - b..]
            && file.joints[file.joints.len() - j..] == made.joints[made.joints.len() - j..]
    };
    let Some(kept) = (1..=n).rev().find(|&k| tail_matches(k)) else {
        return;
    };
    let (from_bodies, from_joints) = sizes[n - kept];
    let bodies = file.bodies.len() - (all_bodies - from_bodies);
    let joints = file.joints.len() - (all_joints - from_joints);
    file.bodies.truncate(bodies);
    file.joints.truncate(joints);
    file.generators = original.generators[n - kept..].to_vec();
    // Generators may name materials.
    file.materials = original.materials.clone();
}

/// `text` as `//`-free lines of at most `width` characters (longer words alone on theirs).
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out += &line;
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += word;
    }
    out += &line;
    out.push('\n');
    out
}
