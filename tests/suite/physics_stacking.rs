//! Stacks and pyramids stand and fall asleep.

use crate::common;

use common::*;
use impulse::physics::{Quat, Shape, Vec3, World, WorldSettings};

#[test]
fn stack_of_ten_stands_and_sleeps() {
    // Ten unit cubes resting exactly on each other for 10 s: the top may settle by the
    // contact slop (mm), never topple (< 5 cm), and the resting island falls asleep.
    let mut world = World::default();
    ground(&mut world, 0.6, 0.0);
    let cubes = unit_cube_stack(&mut world, 10);
    let top = *cubes.last().unwrap();
    let start = world.body(top).unwrap().position();
    run(&mut world, 600);
    let moved = (world.body(top).unwrap().position() - start).length();
    assert!(moved < 0.05, "top moved {moved} m");
    for &c in &cubes {
        assert!(!world.body(c).unwrap().is_awake(), "a cube is still awake");
    }
}

#[test]
fn pyramid_of_base_twenty_stands() {
    // 20 + 19 + … + 1 = 210 cubes; after 10 s the top cube is within 5 cm of its start.
    // Sleeping is off so the solver holds the pyramid for all 600 steps.
    let mut world = World::new(WorldSettings {
        enable_sleeping: false,
        ..WorldSettings::default()
    });
    ground(&mut world, 0.6, 0.0);
    let base = 20;
    let mut top = None;
    for row in 0..base {
        let count = base - row;
        for i in 0..count {
            let x = (i as f32 - (count as f32 - 1.0) / 2.0) * 1.0;
            let body = dynamic(
                &mut world,
                Shape::cuboid(Vec3::splat(0.5)),
                Vec3::new(x, 0.5 + row as f32, 0.0),
                Quat::IDENTITY,
                0.6,
            );
            top = Some(body);
        }
    }
    let top = top.unwrap();
    let start = world.body(top).unwrap().position();
    run(&mut world, 600);
    let moved = (world.body(top).unwrap().position() - start).length();
    assert!(moved < 0.05, "top moved {moved} m");
    // And nothing sank or flew: every cube is still within 5 cm of its row height.
    for (_, b) in world.bodies().filter(|(_, b)| b.mass() > 0.0) {
        let row = (b.position().y - 0.5).round();
        assert!(
            (b.position().y - 0.5 - row).abs() < 0.05,
            "a cube is at y = {}",
            b.position().y
        );
    }
}
