//! Debug layers drawn as lines over the solids: wireframes, AABBs, broad-phase tree nodes,
//! contacts, velocities, centres of mass, selection outline.

use macroquad::prelude::*;

use crate::physics::aabb::Aabb;
use crate::physics::broad_phase::BroadPhaseNode;
use crate::physics::{BodyHandle, Isometry, JointHandle, JointKind, Limits, Shape, World};

/// Joints: the line between their anchors.
pub const JOINT: Color = Color::new(0.98, 0.85, 0.25, 1.0);
/// Joint axes (a hinge's axis, a weld's frame).
pub const JOINT_AXIS: Color = Color::new(0.95, 0.45, 0.1, 1.0);
/// The range a hinge's limits allow, or a distance joint's min and max.
pub const JOINT_LIMIT: Color = Color::new(0.3, 0.85, 0.4, 1.0);
/// Where a hinge is now (its first body's reference direction).
pub const JOINT_ANGLE: Color = Color::new(1.0, 1.0, 1.0, 1.0);
/// Collider wireframes.
pub const COLLIDERS: Color = Color::new(0.1, 0.1, 0.12, 0.9);
/// Sensors' edges (always drawn: their fill is see-through).
pub const SENSORS: Color = Color::new(0.95, 0.95, 0.85, 0.6);
/// Touching colliders (fill, or outline while the island colours are on).
pub const TOUCHING: Color = Color::new(0.95, 0.15, 0.12, 1.0);
/// Tight AABBs.
pub const AABBS: Color = Color::new(0.2, 0.8, 0.3, 0.8);
/// Broad-phase nodes whose children overlap.
pub const TREE_OVERLAP: Color = Color::new(1.0, 0.2, 0.2, 0.8);
/// Broad-phase leaves (fat AABBs).
pub const TREE_LEAF: Color = Color::new(0.7, 0.7, 0.7, 0.5);
/// Contact points that penetrate.
pub const CONTACT_POINT: Color = Color::new(1.0, 0.9, 0.1, 1.0);
/// Speculative contact points (not touching yet).
pub const SPECULATIVE_POINT: Color = Color::new(0.6, 0.6, 0.6, 0.8);
/// Contact normals (length by impulse).
pub const CONTACT_NORMAL: Color = Color::new(1.0, 0.55, 0.1, 1.0);
/// Linear velocity arrows.
pub const LINEAR_VELOCITY: Color = Color::new(0.1, 0.85, 0.95, 1.0);
/// Angular velocity arrows.
pub const ANGULAR_VELOCITY: Color = Color::new(0.9, 0.2, 0.85, 1.0);
/// Centres of mass.
pub const CENTER: Color = Color::new(0.05, 0.05, 0.05, 1.0);

/// What each layer's colours mean, for the panel's legend: [(colour, meaning)] per layer, in
/// the order of [`Layers::NAMES`].
pub fn legend() -> [(&'static str, Vec<(Color, &'static str)>); 9] {
    [
        ("colliders", vec![(COLLIDERS, "wireframe")]),
        ("touching", vec![(TOUCHING, "touching a body")]),
        ("AABBs", vec![(AABBS, "tight box")]),
        (
            "broad-phase tree",
            vec![
                (depth_color(0), "root"),
                (depth_color(12), "deep node"),
                (TREE_OVERLAP, "children overlap"),
                (TREE_LEAF, "leaf (fat box)"),
            ],
        ),
        (
            "contacts",
            vec![
                (CONTACT_POINT, "point"),
                (SPECULATIVE_POINT, "speculative"),
                (CONTACT_NORMAL, "normal × impulse"),
            ],
        ),
        (
            "velocities",
            vec![(LINEAR_VELOCITY, "linear"), (ANGULAR_VELOCITY, "angular")],
        ),
        ("centres of mass", vec![(CENTER, "centre of mass")]),
        (
            "islands",
            vec![(
                Color::new(0.6, 0.6, 0.6, 1.0),
                "one colour per island; dimmer: asleep",
            )],
        ),
        (
            "joints",
            vec![
                (JOINT, "anchors"),
                (JOINT_AXIS, "axis"),
                (JOINT_LIMIT, "allowed range"),
                (JOINT_ANGLE, "angle now"),
            ],
        ),
    ]
}

/// The debug layers, each a toggle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layers {
    /// Collider wireframes.
    pub colliders: bool,
    /// Colliders touching in the narrow phase drawn red.
    pub touching: bool,
    /// Tight AABBs.
    pub aabbs: bool,
    /// Broad-phase tree nodes by depth; nodes whose children overlap in red.
    pub tree: bool,
    /// Contact points with normals (length by impulse).
    pub contacts: bool,
    /// Linear (cyan) and angular (magenta) velocity arrows.
    pub velocities: bool,
    /// Centres of mass.
    pub centers: bool,
    /// Bodies coloured by island.
    pub islands: bool,
    /// Joint axes, limits and angles (anchors are always drawn).
    pub joints: bool,
}

impl Layers {
    /// Every layer name the command line accepts.
    pub const NAMES: [&'static str; 9] = [
        "colliders",
        "touching",
        "aabbs",
        "tree",
        "contacts",
        "velocities",
        "centers",
        "islands",
        "joints",
    ];

    /// Each layer's switch, in the order of [`Layers::NAMES`].
    pub fn flags(&self) -> [bool; 9] {
        [
            self.colliders,
            self.touching,
            self.aabbs,
            self.tree,
            self.contacts,
            self.velocities,
            self.centers,
            self.islands,
            self.joints,
        ]
    }

    /// Turns on the layers named in `names` (e.g. from `--draw contacts,tree`).
    pub fn parse(names: &[String]) -> Result<Layers, String> {
        let mut layers = Layers::default();
        for name in names
            .iter()
            .map(|n| n.trim().to_lowercase())
            .filter(|n| !n.is_empty())
        {
            match name.as_str() {
                "colliders" | "wireframe" => layers.colliders = true,
                "touching" => layers.touching = true,
                "aabbs" | "aabb" => layers.aabbs = true,
                "tree" | "broadphase" => layers.tree = true,
                "contacts" => layers.contacts = true,
                "velocities" | "velocity" => layers.velocities = true,
                "centers" | "centres" | "com" => layers.centers = true,
                "islands" => layers.islands = true,
                "joints" => layers.joints = true,
                "all" => {
                    layers = Layers {
                        colliders: true,
                        touching: true,
                        aabbs: true,
                        tree: true,
                        contacts: true,
                        velocities: true,
                        centers: true,
                        islands: true,
                        joints: true,
                    }
                }
                other => {
                    return Err(format!(
                        "unknown debug layer `{other}` (known: {}, all)",
                        Layers::NAMES.join(", ")
                    ))
                }
            }
        }
        Ok(layers)
    }
}

/// The twelve edges of a box given by its eight corners (index bits x, y, z).
const BOX_EDGES: [(usize, usize); 12] = [
    (0, 1),
    (2, 3),
    (4, 5),
    (6, 7),
    (0, 2),
    (1, 3),
    (4, 6),
    (5, 7),
    (0, 4),
    (1, 5),
    (2, 6),
    (3, 7),
];

/// Draws the edges of an axis-aligned box.
pub fn aabb(b: &Aabb, color: Color) {
    let corner = |k: usize| {
        Vec3::new(
            if k & 1 == 0 { b.min.x } else { b.max.x },
            if k & 2 == 0 { b.min.y } else { b.max.y },
            if k & 4 == 0 { b.min.z } else { b.max.z },
        )
    };
    for (i, j) in BOX_EDGES {
        draw_line_3d(corner(i), corner(j), color);
    }
}

/// A circle of `radius` around `center` in the plane spanned by `u` and `v`.
fn circle(center: Vec3, u: Vec3, v: Vec3, radius: f32, color: Color) {
    arc(center, u, v, radius, (0.0, std::f32::consts::TAU), color);
}

/// The part of that circle between the angles `range` (rad, from `u` towards `v`), in
/// segments of at most 15°.
pub fn arc(center: Vec3, u: Vec3, v: Vec3, radius: f32, range: (f32, f32), color: Color) {
    let (from, to) = range;
    let n = ((to - from).abs() / 15f32.to_radians()).ceil().max(1.0) as usize;
    let point = |k: usize| {
        let a = from + (to - from) * k as f32 / n as f32;
        center + (u * a.cos() + v * a.sin()) * radius
    };
    for k in 0..n {
        draw_line_3d(point(k), point(k + 1), color);
    }
}

/// Draws a collider's outline.
pub fn wireframe(shape: &Shape, pose: &Isometry, color: Color) {
    let (x, y, z) = (
        pose.rotation * Vec3::X,
        pose.rotation * Vec3::Y,
        pose.rotation * Vec3::Z,
    );
    let c = pose.translation;
    match shape {
        Shape::Sphere { radius } => {
            circle(c, x, y, *radius, color);
            circle(c, y, z, *radius, color);
            circle(c, z, x, *radius, color);
        }
        Shape::Cuboid { half_extents } => {
            let h = *half_extents;
            let corner = |k: usize| {
                pose.transform_point(Vec3::new(
                    if k & 1 == 0 { -h.x } else { h.x },
                    if k & 2 == 0 { -h.y } else { h.y },
                    if k & 4 == 0 { -h.z } else { h.z },
                ))
            };
            for (i, j) in BOX_EDGES {
                draw_line_3d(corner(i), corner(j), color);
            }
        }
        Shape::Capsule {
            half_height,
            radius,
        } => {
            let (top, bottom) = (c + y * *half_height, c - y * *half_height);
            circle(top, x, z, *radius, color);
            circle(bottom, x, z, *radius, color);
            circle(top, x, y, *radius, color);
            circle(bottom, x, y, *radius, color);
            for side in [x, -x, z, -z] {
                draw_line_3d(top + side * *radius, bottom + side * *radius, color);
            }
        }
        Shape::ConvexHull(hull) => {
            for pair in hull.edges.chunks(2) {
                let (a, b) = (
                    hull.vertices[pair[0].origin as usize],
                    hull.vertices[pair[1].origin as usize],
                );
                draw_line_3d(pose.transform_point(a), pose.transform_point(b), color);
            }
        }
        Shape::Plane { .. } => {}
    }
}

/// A line with a small head.
pub fn arrow(from: Vec3, to: Vec3, color: Color) {
    thick_arrow(from, to, color, Vec3::ZERO);
}

/// An arrow whose shaft is three lines `width` apart (a world offset across the view, about a
/// pixel at the arrow: a shaft three pixels wide, which reads where a one-pixel line is lost
/// among bodies).
pub fn thick_arrow(from: Vec3, to: Vec3, color: Color, width: Vec3) {
    draw_line_3d(from, to, color);
    if width != Vec3::ZERO {
        draw_line_3d(from + width, to + width, color);
        draw_line_3d(from - width, to - width, color);
    }
    let dir = to - from;
    let len = dir.length();
    if len < 1e-4 {
        return;
    }
    let d = dir / len;
    let side = d.any_orthonormal_vector() * len.min(1.0) * 0.08;
    let back = to - d * len.min(1.0) * 0.15;
    draw_line_3d(to, back + side, color);
    draw_line_3d(to, back - side, color);
}

/// A joint: a line between its anchors and a cross at each; with `details`, what it holds:
/// a hinge's axis (arrow towards its tip), the arc of angles its limits allow (a full circle
/// without limits, 0 at B's reference direction) and where its first body is now; a weld's
/// frame; a distance joint's min to max; a spring's rest length.
pub fn joint(world: &World, handle: JointHandle, details: bool) {
    let (Some((a, b)), Some(joint)) = (world.joint_anchors(handle), world.joint(handle)) else {
        return;
    };
    draw_line_3d(a, b, JOINT);
    cross(a, 0.06, JOINT);
    cross(b, 0.06, JOINT);
    if !details {
        return;
    }
    let def = joint.def();
    let rotation = |h: Option<BodyHandle>| {
        h.and_then(|h| world.body(h))
            .map_or(Quat::IDENTITY, |body| body.rotation())
    };
    let (qa, qb) = (rotation(Some(def.body_a)), rotation(def.body_b));
    // Drawn at the size of the first body: its radius of gyration √(tr I / 2m) (0.77 r for a
    // ball, 0.5 m for a unit cube).
    let size = world
        .body(def.body_a)
        .filter(|body| body.mass() > 0.0)
        .map_or(0.25, |body| {
            let i = body.local_inertia();
            ((i.x_axis.x + i.y_axis.y + i.z_axis.z) / (2.0 * body.mass())).sqrt()
        })
        .clamp(0.1, 1.0);
    // From B's anchor towards A's, for the distance marks.
    let along = (a - b).try_normalize().unwrap_or(Vec3::Y);
    let tick = |p: Vec3| {
        let (u, v) = along.any_orthonormal_pair();
        draw_line_3d(p - u * 0.05, p + u * 0.05, JOINT_LIMIT);
        draw_line_3d(p - v * 0.05, p + v * 0.05, JOINT_LIMIT);
    };
    match def.kind {
        JointKind::Revolute {
            axis_a,
            reference_a,
            reference_b,
            limits,
            ..
        } => {
            let axis = qa * axis_a;
            draw_line_3d(a - axis * size, a, JOINT_AXIS);
            arrow(a, a + axis * 1.6 * size, JOINT_AXIS);
            // Angle θ puts A's reference at zero·cos θ + (axis × zero)·sin θ.
            let zero = qb * reference_b;
            let quarter = axis.cross(zero);
            match limits {
                Some(Limits { lower, upper }) => {
                    // The angle is within (−π, π]: limits beyond never bind.
                    let pi = std::f32::consts::PI;
                    let (lower, upper) = (lower.clamp(-pi, pi), upper.clamp(-pi, pi));
                    arc(a, zero, quarter, size, (lower, upper), JOINT_LIMIT);
                    for end in [lower, upper] {
                        let d = zero * end.cos() + quarter * end.sin();
                        draw_line_3d(a, a + d * size, JOINT_LIMIT);
                    }
                }
                None => circle(a, zero, quarter, size, JOINT_LIMIT),
            }
            draw_line_3d(a, a + (qa * reference_a) * 1.2 * size, JOINT_ANGLE);
        }
        JointKind::Fixed { .. } => {
            for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
                draw_line_3d(a, a + qa * axis * size, JOINT_AXIS);
            }
        }
        JointKind::Distance { min, max } => {
            draw_line_3d(b + along * min, b + along * max, JOINT_LIMIT);
            tick(b + along * min);
            tick(b + along * max);
        }
        JointKind::Spring { rest_length, .. } => tick(b + along * rest_length),
        JointKind::Spherical { cone: None } => {}
        JointKind::Spherical { cone: Some(cone) } => {
            // The cone's axis, its rim at the length of the axis, four lines on its surface,
            // and where A points now.
            let axis = qb * cone.axis_b;
            draw_line_3d(a, a + axis * size, JOINT_AXIS);
            let (u, v) = axis.any_orthonormal_pair();
            let (sin, cos) = cone.half_angle.sin_cos();
            circle(a + axis * (size * cos), u, v, size * sin, JOINT_LIMIT);
            for k in 0..4 {
                let turn = std::f32::consts::FRAC_PI_2 * k as f32;
                let side = u * turn.cos() + v * turn.sin();
                draw_line_3d(a, a + (axis * cos + side * sin) * size, JOINT_LIMIT);
            }
            draw_line_3d(a, a + (qa * cone.axis_a) * (1.2 * size), JOINT_ANGLE);
        }
    }
}

/// A small three-axis cross.
pub fn cross(p: Vec3, size: f32, color: Color) {
    draw_line_3d(p - Vec3::X * size, p + Vec3::X * size, color);
    draw_line_3d(p - Vec3::Y * size, p + Vec3::Y * size, color);
    draw_line_3d(p - Vec3::Z * size, p + Vec3::Z * size, color);
}

/// A colour for tree depth `depth`: from blue at the root to green at the leaves' level.
pub fn depth_color(depth: u32) -> Color {
    let t = (depth as f32 / 12.0).min(1.0);
    Color::new(0.25 + 0.2 * t, 0.45 + 0.45 * t, 1.0 - 0.6 * t, 0.75)
}

/// Draws the broad phase's nodes down to `max_depth`: internal nodes by depth, red where
/// their children overlap; leaves (fat AABBs) thin grey.
pub fn tree<'a>(nodes: impl IntoIterator<Item = &'a BroadPhaseNode>, max_depth: u32) {
    for node in nodes.into_iter().filter(|n| n.depth <= max_depth) {
        // Huge boxes (planes) would only cover the screen.
        if node.aabb.half_extents().max_element() > 500.0 {
            continue;
        }
        let color = if node.is_leaf {
            TREE_LEAF
        } else if node.children_overlap {
            TREE_OVERLAP
        } else {
            depth_color(node.depth)
        };
        aabb(&node.aabb, color);
    }
}

/// Contact points as crosses, normals as arrows whose length grows with the impulse; only
/// the contacts of `only` when given.
pub fn contacts(world: &World, only: Option<crate::physics::BodyHandle>) {
    let involves = |c: &&crate::physics::contact::Contact| {
        only.is_none_or(|b| c.body_a() == b || c.body_b() == b)
    };
    for contact in world
        .contacts()
        .filter(|c| c.is_touching())
        .filter(involves)
    {
        for p in contact.points() {
            let point = p.point();
            let penetrating = p.depth >= 0.0;
            let color = if penetrating {
                CONTACT_POINT
            } else {
                SPECULATIVE_POINT
            };
            cross(point, 0.05, color);
            let length = 0.15 + (p.normal_impulse * 4.0).min(1.5);
            arrow(point, point + contact.normal() * length, CONTACT_NORMAL);
        }
    }
}
