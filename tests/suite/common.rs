//! Helpers shared by the physics integration tests (a module of the suite, `mod common;` in
//! `main.rs`; each test module imports it with `use crate::common;`).
#![allow(dead_code)]

use impulse::physics::{
    BodyDef, BodyHandle, BodyType, ColliderDef, Isometry, JointDef, JointKind, Quat, Shape, Vec3,
    World,
};

/// The fixed step of every test, s.
pub const DT: f32 = 1.0 / 60.0;

/// A static ground plane y = 0 with the given friction and restitution.
pub fn ground(world: &mut World, friction: f32, restitution: f32) -> BodyHandle {
    let body = world.create_body(BodyDef {
        body_type: BodyType::Static,
        ..BodyDef::default()
    });
    world
        .add_collider(
            body,
            ColliderDef::new(Shape::plane(Vec3::Y))
                .with_friction(friction)
                .with_restitution(restitution),
        )
        .expect("ground collider");
    body
}

/// A dynamic body with one collider.
pub fn dynamic(
    world: &mut World,
    shape: Shape,
    position: Vec3,
    rotation: Quat,
    friction: f32,
) -> BodyHandle {
    let body = world.create_body(BodyDef {
        position,
        rotation,
        ..BodyDef::default()
    });
    world
        .add_collider(body, ColliderDef::new(shape).with_friction(friction))
        .expect("collider");
    body
}

/// `n` unit cubes (friction 0.6) resting exactly on each other on y = 0, bottom first.
pub fn unit_cube_stack(world: &mut World, n: usize) -> Vec<BodyHandle> {
    (0..n)
        .map(|i| {
            dynamic(
                world,
                Shape::cuboid(Vec3::splat(0.5)),
                Vec3::new(0.0, 0.5 + i as f32, 0.0),
                Quat::IDENTITY,
                0.6,
            )
        })
        .collect()
}

/// Hangs `bob` (at (1.2, 0, 0)) on an undamped spring of `hertz` and rest length 1 m to the
/// world origin: pulled 0.2 m from rest along x.
pub fn undamped_spring_to_origin(world: &mut World, bob: BodyHandle, hertz: f32) {
    let def = JointDef::between(
        world,
        bob,
        None,
        Vec3::new(1.2, 0.0, 0.0),
        Vec3::ZERO,
        JointKind::Spring {
            rest_length: 1.0,
            hertz,
            damping_ratio: 0.0,
            bungee: false,
        },
    );
    world.create_joint(def).expect("spring");
}

/// Steps `world` `n` times.
pub fn run(world: &mut World, n: usize) {
    for _ in 0..n {
        world.step(DT);
    }
}

/// A short description of a shape pair for failure messages (a hull's debug dump is huge).
pub fn describe_pair(a: &Shape, pa: &Isometry, b: &Shape, pb: &Isometry) -> String {
    let shape = |s: &Shape| match s {
        Shape::ConvexHull(h) => format!(
            "hull{:?}",
            h.vertices.iter().map(|v| v.to_array()).collect::<Vec<_>>()
        ),
        other => format!("{other:?}"),
    };
    let pose = |p: &Isometry| {
        format!(
            "t={:?} q={:?}",
            p.translation.to_array(),
            p.rotation.to_array()
        )
    };
    format!(
        "A {} at {}; B {} at {}",
        shape(a),
        pose(pa),
        shape(b),
        pose(pb)
    )
}
