//! The engine as a library: a world, a ground, a box dropped on it, the steps, the box's
//! position and the contact events. Run with `cargo run --example hello`.

use impulse::physics::{BodyDef, BodyType, ColliderDef, Shape, Vec3, World, WorldSettings};

fn main() {
    let mut world = World::new(WorldSettings::default());

    // A static ground plane facing up through the origin.
    let (ground, _) = world
        .create_body_with_colliders(
            BodyDef {
                body_type: BodyType::Static,
                ..BodyDef::default()
            },
            &[ColliderDef::new(Shape::plane(Vec3::Y))],
        )
        .expect("a valid ground");

    // A 1 m box (half extents 0.5 m) dropped from 2 m: its bottom face 1.5 m up.
    let (cube, _) = world
        .create_body_with_colliders(
            BodyDef {
                position: Vec3::new(0.0, 2.0, 0.0),
                ..BodyDef::default()
            },
            &[ColliderDef::new(Shape::cuboid(Vec3::splat(0.5)))],
        )
        .expect("a valid box");

    // Two seconds at 60 steps a second.
    for step in 1..=120 {
        world.step(1.0 / 60.0);
        for begin in &world.contact_events().begin {
            let other = if begin.pair.body_a == cube {
                begin.pair.body_b
            } else {
                begin.pair.body_a
            };
            let what = if other == ground {
                "the ground"
            } else {
                "a body"
            };
            println!(
                "step {step}: the box touches {what} at {:.2} m/s",
                begin.approach_speed
            );
        }
    }
    let cube = world.body(cube).expect("the box is still there");
    println!(
        "after {:.1} s the box rests at y = {:.3} m ({})",
        world.time(),
        cube.position().y,
        if cube.is_awake() { "awake" } else { "asleep" }
    );
}
