//! A world as plain data (bodies and joints with their world points), so that it can be
//! built again with parts left out, and its building through the public API.

use impulse::physics::{
    BodyDef, BodyHandle, BodyType, ColliderDef, JointDef, JointKind, Locks, Quat, Shape, Vec3,
    World, WorldSettings,
};

/// What kind of world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Class {
    Plain,
    Planar,
    Locked,
    ZeroGravity,
}

impl Class {
    pub(super) const ALL: [Class; 4] = [
        Class::Plain,
        Class::Planar,
        Class::Locked,
        Class::ZeroGravity,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            Class::Plain => "plain",
            Class::Planar => "planar",
            Class::Locked => "locked",
            Class::ZeroGravity => "zero gravity",
        }
    }
}

/// How many bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Size {
    /// 3 to 16 bodies (the default run).
    Small,
    /// 10 to 200 bodies (the measurement).
    Large,
}

/// A body to make.
#[derive(Clone, Debug)]
pub(super) struct BodySpec {
    pub(super) position: Vec3,
    pub(super) rotation: Quat,
    pub(super) linear_velocity: Vec3,
    pub(super) angular_velocity: Vec3,
    pub(super) locked: Locks,
    pub(super) colliders: Vec<ColliderDef>,
    /// "sphere", "box", "capsule", "hull" or "compound".
    pub(super) shape: &'static str,
    /// Radius of a ball about `position` that holds every collider, m.
    pub(super) radius: f32,
    /// Its mass at density 1, kg.
    pub(super) mass: f32,
}

/// A joint to make, with world points computed from where the bodies start.
#[derive(Clone, Debug)]
pub(super) enum JointShape {
    Spherical {
        anchor: Vec3,
    },
    /// A ball joint whose cone is centred on A's direction now, or tilted from it by
    /// `tilt.1` of the half angle towards `tilt.0` (still holding A's direction inside).
    Cone {
        anchor: Vec3,
        half_angle: f32,
        tilt: Option<(Vec3, f32)>,
    },
    Revolute {
        anchor: Vec3,
        axis: Vec3,
        limits: Option<(f32, f32)>,
        motor: Option<(f32, f32)>,
        /// A dynamic body on it may not turn about the axis (a lock or the planar mode).
        axis_locked: bool,
    },
    Fixed {
        anchor: Vec3,
    },
    Distance {
        anchor_a: Vec3,
        anchor_b: Vec3,
        min: f32,
        max: f32,
    },
    Spring {
        anchor_a: Vec3,
        anchor_b: Vec3,
        rest_length: f32,
        hertz: f32,
        damping_ratio: f32,
        bungee: bool,
    },
}

impl JointShape {
    /// The kind, for counts.
    pub(super) fn kind(&self) -> &'static str {
        match self {
            JointShape::Spherical { .. } => "ball",
            JointShape::Cone { .. } => "cone",
            JointShape::Revolute { motor: Some(_), .. } => "motorised hinge",
            JointShape::Revolute { .. } => "hinge",
            JointShape::Fixed { .. } => "weld",
            JointShape::Distance { .. } => "distance",
            JointShape::Spring { bungee: true, .. } => "bungee",
            JointShape::Spring { .. } => "spring",
        }
    }

    /// A short name for reports.
    pub(super) fn name(&self) -> String {
        match self {
            JointShape::Spherical { .. } => "ball".into(),
            JointShape::Cone { half_angle, .. } => format!("cone {:.0}°", half_angle.to_degrees()),
            JointShape::Revolute {
                limits,
                motor,
                axis_locked,
                ..
            } => {
                let mut s = String::from("hinge");
                if limits.is_some() {
                    s += "+limits";
                }
                if motor.is_some() {
                    s += "+motor";
                }
                if *axis_locked {
                    s += "(axis locked)";
                }
                s
            }
            JointShape::Fixed { .. } => "weld".into(),
            JointShape::Distance { min, max, .. } => {
                if min == max {
                    "rod".into()
                } else if *min == 0.0 {
                    "rope".into()
                } else {
                    "distance".into()
                }
            }
            JointShape::Spring { hertz, bungee, .. } => {
                format!(
                    "{} {hertz:.1} Hz",
                    if *bungee { "bungee" } else { "spring" }
                )
            }
        }
    }
}

/// A joint between spec bodies `a` and `b` (None: the world).
#[derive(Clone, Debug)]
pub(super) struct JointSpec {
    pub(super) a: usize,
    pub(super) b: Option<usize>,
    pub(super) shape: JointShape,
    pub(super) collide: bool,
}

/// Everything needed to build one world.
#[derive(Clone, Debug)]
pub(super) struct WorldSpec {
    pub(super) seed: u64,
    pub(super) class: Class,
    pub(super) settings: WorldSettings,
    pub(super) timestep: f32,
    pub(super) floor: bool,
    pub(super) bodies: Vec<BodySpec>,
    pub(super) joints: Vec<JointSpec>,
}

/// A world built from its spec.
pub(super) struct Built {
    pub(super) world: World,
    /// The bodies, in the spec's order.
    pub(super) bodies: Vec<BodyHandle>,
    /// Joints `create_joint` (or the `JointDef` constructor) refused: spec index and why.
    pub(super) refused: Vec<(usize, String)>,
}

pub(super) fn build(spec: &WorldSpec) -> Built {
    let mut world = World::new(spec.settings.clone());
    if spec.floor {
        let floor = world.create_body(BodyDef {
            body_type: BodyType::Static,
            ..BodyDef::default()
        });
        world
            .add_collider(floor, ColliderDef::new(Shape::plane(Vec3::Y)))
            .expect("the floor");
    }
    let bodies = spec
        .bodies
        .iter()
        .map(|b| {
            let def = BodyDef {
                position: b.position,
                rotation: b.rotation,
                linear_velocity: b.linear_velocity,
                angular_velocity: b.angular_velocity,
                locked: b.locked,
                ..BodyDef::default()
            };
            world
                .create_body_with_colliders(def, &b.colliders)
                .unwrap_or_else(|e| panic!("seed {}: a generated body: {e:?}", spec.seed))
                .0
        })
        .collect::<Vec<_>>();
    let mut refused = Vec::new();
    for (i, j) in spec.joints.iter().enumerate() {
        let made = joint_def(&world, &bodies, j).and_then(|def| {
            let def = JointDef {
                collide: j.collide,
                ..def
            };
            world.create_joint(def).map_err(|e| e.to_string())
        });
        if let Err(e) = made {
            refused.push((i, e));
        }
    }
    Built {
        world,
        bodies,
        refused,
    }
}

/// The engine's definition of joint `j`.
pub(super) fn joint_def(
    world: &World,
    bodies: &[BodyHandle],
    j: &JointSpec,
) -> Result<JointDef, String> {
    let a = bodies[j.a];
    let b = j.b.map(|i| bodies[i]);
    Ok(match j.shape {
        JointShape::Spherical { anchor } => JointDef::spherical(world, a, b, anchor),
        JointShape::Cone {
            anchor,
            half_angle,
            tilt,
        } => {
            let out = world.body(a).map(|body| body.center_of_mass() - anchor);
            let axis = tilt.and_then(|(towards, share)| {
                let out = out?.try_normalize()?;
                let across = out.cross(towards).try_normalize()?;
                Some(Quat::from_axis_angle(across, share * half_angle) * out)
            });
            JointDef::spherical_cone(world, a, b, anchor, axis, half_angle)?
        }
        JointShape::Revolute {
            anchor,
            axis,
            limits,
            motor,
            ..
        } => {
            let mut def = JointDef::revolute(world, a, b, anchor, axis);
            if let Some((lower, upper)) = limits {
                def = def.with_limits(lower, upper);
            }
            if let Some((speed, max_torque)) = motor {
                def = def.with_motor(impulse::physics::Motor { speed, max_torque });
            }
            def
        }
        JointShape::Fixed { anchor } => JointDef::fixed(world, a, b, anchor),
        JointShape::Distance {
            anchor_a,
            anchor_b,
            min,
            max,
        } => JointDef::between(
            world,
            a,
            b,
            anchor_a,
            anchor_b,
            JointKind::Distance { min, max },
        ),
        JointShape::Spring {
            anchor_a,
            anchor_b,
            rest_length,
            hertz,
            damping_ratio,
            bungee,
        } => JointDef::between(
            world,
            a,
            b,
            anchor_a,
            anchor_b,
            JointKind::Spring {
                rest_length,
                hertz,
                damping_ratio,
                bungee,
            },
        ),
    })
}
