//! Helpers shared by the physics integration tests (not a test binary itself: included
//! with `mod common;`).
#![allow(dead_code)]

use impulse::physics::{BodyDef, BodyHandle, BodyType, ColliderDef, Quat, Shape, Vec3, World};

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

/// Steps `world` `n` times.
pub fn run(world: &mut World, n: usize) {
    for _ in 0..n {
        world.step(DT);
    }
}
