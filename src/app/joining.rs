//! Making joints from the panel: pick a kind for the selected body, press Join, click the
//! second body. A click on a static body (the ground, a wall) fixes the first body to the
//! world there: a joint to a static body would also stop the two colliding, and a body joined
//! to the floor would fall through it.
//!
//! Where the click lands decides the joint: a ball joint, hinge or weld sits at the clicked
//! point, a hinge turns about the normal of the clicked surface (a pin pushed into it); a rope
//! or spring runs from the first body's centre of mass to the clicked point, a rope as long as
//! that is now, a spring at rest there.

use macroquad::prelude::*;

use super::sandbox::Sandbox;
use crate::physics::{BodyHandle, BodyType, JointDef, JointHandle, JointKind};
use crate::scene::BodyMeta;

/// Which joint the Join button makes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JointTool {
    /// Ball and socket at the clicked point.
    #[default]
    Ball,
    /// A hinge at the clicked point about the clicked surface's normal.
    Hinge,
    /// A weld at the clicked point.
    Weld,
    /// A rope from the first body's centre of mass to the clicked point.
    Rope,
    /// A spring (2 Hz, damping ratio 0.3) at rest between the same points.
    Spring,
}

/// A spring made in the panel: its frequency, Hz, and damping ratio.
const SPRING: (f32, f32) = (2.0, 0.3);

impl JointTool {
    /// All, in menu order.
    pub const ALL: [JointTool; 5] = [
        JointTool::Ball,
        JointTool::Hinge,
        JointTool::Weld,
        JointTool::Rope,
        JointTool::Spring,
    ];

    /// Menu label.
    pub fn label(self) -> &'static str {
        match self {
            JointTool::Ball => "Ball joint",
            JointTool::Hinge => "Hinge",
            JointTool::Weld => "Weld",
            JointTool::Rope => "Rope",
            JointTool::Spring => "Spring",
        }
    }
}

/// A joint's kind in a few words, for the panel.
pub fn kind_label(kind: &JointKind) -> &'static str {
    match kind {
        JointKind::Spherical { .. } => "ball joint",
        JointKind::Revolute { .. } => "hinge",
        JointKind::Fixed { .. } => "weld",
        JointKind::Distance { min, max } if min == max => "rod",
        JointKind::Distance { .. } => "rope",
        JointKind::Spring { bungee: true, .. } => "bungee",
        JointKind::Spring { .. } => "spring",
    }
}

impl Sandbox {
    /// Waits for the click on the body to join `first` to.
    pub fn start_joining(&mut self, first: BodyHandle) {
        self.joining = Some(first);
    }

    /// Makes the chosen joint between the body being joined and `second`, which the click
    /// hit at `point` on a surface facing `normal`; shows why if the engine refuses it.
    /// Both bodies get a name if they had none, so the joint is saved with the scene.
    pub fn finish_joining(
        &mut self,
        second: BodyHandle,
        point: Vec3,
        normal: Vec3,
    ) -> Option<JointHandle> {
        self.before_edit();
        let first = self.joining.take()?;
        let world = &self.world;
        let body = world.body(first)?;
        let centre = body.center_of_mass();
        let length = centre.distance(point);
        let fixed = world
            .body(second)
            .is_none_or(|b| b.body_type() == BodyType::Static);
        let other = (!fixed).then_some(second);
        let def = match self.joint_tool {
            JointTool::Ball => JointDef::spherical(world, first, other, point),
            JointTool::Hinge => JointDef::revolute(world, first, other, point, normal),
            JointTool::Weld => JointDef::fixed(world, first, other, point),
            JointTool::Rope => JointDef::between(
                world,
                first,
                other,
                centre,
                point,
                JointKind::Distance {
                    min: 0.0,
                    max: length,
                },
            ),
            JointTool::Spring => JointDef::between(
                world,
                first,
                other,
                centre,
                point,
                JointKind::Spring {
                    rest_length: length,
                    hertz: SPRING.0,
                    damping_ratio: SPRING.1,
                    bungee: false,
                },
            ),
        };
        match self.world.create_joint(def) {
            Ok(joint) => {
                for body in [Some(first), other].into_iter().flatten() {
                    let named = self.meta.get(&body).is_some_and(|m| !m.name.is_empty());
                    if !named {
                        let name = self.unused_name(body);
                        self.meta
                            .entry(body)
                            .or_insert(BodyMeta {
                                name: String::new(),
                                color: None,
                            })
                            .name = name;
                    }
                }
                self.mark_edited();
                Some(joint)
            }
            Err(e) => {
                self.error = Some(format!(
                    "cannot join {} to {}: {e}",
                    self.body_name(first),
                    self.body_name(second)
                ));
                None
            }
        }
    }

    /// A name no body has: `body #<slot>`, with a suffix if a body (named so before a reload
    /// renumbered the slots) already has it.
    fn unused_name(&self, body: BodyHandle) -> String {
        let taken = |name: &str| self.meta.values().any(|m| m.name == name);
        let base = format!("body #{}", body.index());
        let mut name = base.clone();
        let mut k = 2;
        while taken(&name) {
            name = format!("{base} ({k})");
            k += 1;
        }
        name
    }

    /// Removes a joint (its bodies wake).
    pub fn remove_joint(&mut self, joint: JointHandle) {
        self.before_edit();
        if self.world.remove_joint(joint).is_ok() {
            self.mark_edited();
        }
    }

    /// The joints of `body`, each with the body at its other end (None: the world).
    pub fn joints_of(&self, body: BodyHandle) -> Vec<(JointHandle, Option<BodyHandle>)> {
        self.world
            .joints()
            .filter_map(|(h, j)| {
                let def = j.def();
                if def.body_a == body {
                    Some((h, def.body_b))
                } else if def.body_b == Some(body) {
                    Some((h, Some(def.body_a)))
                } else {
                    None
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::sandbox::Source;

    /// Two unit cubes 3 m apart on the ground, a third in the air.
    const SCENE: &str = "Scene(bodies: [
        (name: \"ground\", kind: Static, colliders: [(shape: Plane(normal: (0.0, 1.0, 0.0)))]),
        (name: \"a\", position: (0.0, 0.5, 0.0), colliders: [(shape: Cuboid(half_extents: (0.5, 0.5, 0.5)))]),
        (name: \"b\", position: (3.0, 0.5, 0.0), colliders: [(shape: Cuboid(half_extents: (0.5, 0.5, 0.5)))]),
        (position: (0.0, 4.0, 0.0), colliders: [(shape: Sphere(radius: 0.5))]),
    ])";

    fn sandbox() -> Sandbox {
        let scene = crate::scene::load_str(SCENE, "joins.ron").unwrap();
        Sandbox::new(scene, Source::Default, SCENE.into())
    }

    fn named(s: &Sandbox, name: &str) -> BodyHandle {
        *s.meta.iter().find(|(_, m)| m.name == name).unwrap().0
    }

    #[test]
    fn each_tool_makes_its_joint_where_the_click_lands() {
        let mut s = sandbox();
        let (a, b, ground) = (named(&s, "a"), named(&s, "b"), named(&s, "ground"));
        // The click lands on b's face towards a, at (2.5, 0.7, 0.1), facing −x.
        let (point, normal) = (Vec3::new(2.5, 0.7, 0.1), Vec3::NEG_X);
        let centre = Vec3::new(0.0, 0.5, 0.0);
        for tool in JointTool::ALL {
            s.joint_tool = tool;
            s.start_joining(a);
            let joint = s.finish_joining(b, point, normal).expect("joined");
            assert_eq!(s.joining, None);
            let def = *s.world.joint(joint).unwrap().def();
            assert_eq!((def.body_a, def.body_b), (a, Some(b)));
            let (pa, pb) = s.world.joint_anchors(joint).unwrap();
            match (tool, def.kind) {
                (JointTool::Ball, JointKind::Spherical { cone: None })
                | (JointTool::Weld, JointKind::Fixed { .. }) => {
                    assert!(pa.distance(point) < 1e-5 && pb.distance(point) < 1e-5);
                }
                (JointTool::Hinge, JointKind::Revolute { axis_a, .. }) => {
                    assert!(pa.distance(point) < 1e-5);
                    // The axis is the clicked surface's normal (a is not turned).
                    assert!(axis_a.distance(normal) < 1e-5, "{axis_a}");
                }
                (JointTool::Rope, JointKind::Distance { min, max }) => {
                    // From a's centre to the click: as long as that is now.
                    assert!(pa.distance(centre) < 1e-5 && pb.distance(point) < 1e-5);
                    assert_eq!(min, 0.0);
                    assert!((max - centre.distance(point)).abs() < 1e-5);
                }
                (
                    JointTool::Spring,
                    JointKind::Spring {
                        rest_length, hertz, ..
                    },
                ) => {
                    assert!((rest_length - centre.distance(point)).abs() < 1e-5);
                    assert_eq!(hertz, SPRING.0);
                }
                other => panic!("{tool:?} made {other:?}"),
            }
            assert_eq!(s.joints_of(a), vec![(joint, Some(b))]);
            assert_eq!(s.joints_of(b), vec![(joint, Some(a))]);
            s.remove_joint(joint);
            assert!(s.joints_of(a).is_empty());
        }
        // A click on the ground fixes the body to the world (and leaves a and the ground
        // colliding); a click on the body itself is refused with a message.
        s.start_joining(a);
        let joint = s
            .finish_joining(ground, Vec3::new(1.0, 0.0, 1.0), Vec3::Y)
            .unwrap();
        assert_eq!(s.world.joint(joint).unwrap().def().body_b, None);
        s.start_joining(a);
        assert!(s.finish_joining(a, centre, Vec3::Y).is_none());
        let error = s.error.clone().unwrap_or_default();
        assert!(
            error.contains("cannot join a to a") && error.contains("two different"),
            "{error}"
        );
    }

    #[test]
    fn a_joint_made_in_the_panel_is_saved_with_names_for_its_bodies() {
        let mut s = sandbox();
        let (a, ball) = (
            named(&s, "a"),
            *s.meta.iter().find(|(_, m)| m.name.is_empty()).unwrap().0,
        );
        // Another body already has the name the ball's slot would give (as after a reload
        // renumbered the slots).
        let b = named(&s, "b");
        s.meta.get_mut(&b).unwrap().name = format!("body #{}", ball.index());
        s.joint_tool = JointTool::Rope;
        s.start_joining(ball);
        s.finish_joining(a, Vec3::new(0.0, 1.0, 0.0), Vec3::Y)
            .unwrap();
        // The nameless ball got a name of its own, so the file can name it.
        let name = s.meta[&ball].name.clone();
        assert_eq!(name, format!("body #{} (2)", ball.index()));
        let text =
            crate::scene::save::save(&s.world, &s.meta, &s.scene_camera, s.timestep, "").unwrap();
        let again = crate::scene::load_str(&text, "saved.ron").unwrap();
        let joints: Vec<_> = again.world.joints().map(|(_, j)| *j.def()).collect();
        assert_eq!(joints.len(), 1, "{text}");
        assert!(
            matches!(joints[0].kind, JointKind::Distance { min, max } if min == 0.0 && (max - 3.0).abs() < 1e-4)
        );
        assert_eq!(again.meta[&joints[0].body_a].name, name);
    }
}
