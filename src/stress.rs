//! The stress test's body spawner, shared by `impulse stress` and the sandbox's button: drops
//! a batch of mixed bodies a few metres above the pile, every step.

use crate::physics::{
    BodyDef, BodyHandle, BodyType, ColliderDef, Isometry, Quat, Shape, Vec3, World,
};

/// The stress test's default scene: a floor with four walls, 12 m square inside.
pub const WALLED_FLOOR: &str = r#"// Stress test arena: a floor with four walls.
Scene(
    camera: (eye: (22.0, 18.0, 22.0), target: (0.0, 2.0, 0.0)),
    bodies: [
        (name: "floor", kind: Static, colliders: [(shape: Plane(normal: (0.0, 1.0, 0.0)))]),
        (name: "wall +x", kind: Static, position: (6.5, 3.0, 0.0), colliders: [(shape: Cuboid(half_extents: (0.5, 3.0, 7.0)))]),
        (name: "wall -x", kind: Static, position: (-6.5, 3.0, 0.0), colliders: [(shape: Cuboid(half_extents: (0.5, 3.0, 7.0)))]),
        (name: "wall +z", kind: Static, position: (0.0, 3.0, 6.5), colliders: [(shape: Cuboid(half_extents: (6.0, 3.0, 0.5)))]),
        (name: "wall -z", kind: Static, position: (0.0, 3.0, -6.5), colliders: [(shape: Cuboid(half_extents: (6.0, 3.0, 0.5)))]),
    ],
)
"#;

/// Bodies dropped per spawn.
pub const BATCH: usize = 4;

/// A deterministic spawner (same scene, same bodies, same places).
#[derive(Clone, Debug)]
pub struct Spawner {
    seed: u64,
    spawned: usize,
    /// Half size of the square (x, z) the bodies appear over, m.
    pub half_width: f32,
}

impl Default for Spawner {
    fn default() -> Self {
        Self {
            seed: 0x5EED_1234_ABCD_0001,
            spawned: 0,
            half_width: 5.0,
        }
    }
}

impl Spawner {
    /// A number in [0, 1) from a 64-bit LCG (Knuth's MMIX constants).
    fn next(&mut self) -> f32 {
        self.seed = self
            .seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.seed >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Bodies spawned so far.
    pub fn spawned(&self) -> usize {
        self.spawned
    }

    /// The shape of body number `k`: spheres, boxes, capsules in turn, small and varied.
    fn shape(&mut self, k: usize) -> Shape {
        let s = 0.25 + 0.2 * self.next();
        match k % 3 {
            0 => Shape::sphere(s),
            1 => Shape::cuboid(Vec3::new(s, 0.8 * s, 1.2 * s)),
            _ => Shape::capsule(s, 0.6 * s),
        }
    }

    /// Drops `BATCH` bodies over the square, [`DROP_HEIGHT`] above the top of the pile (the
    /// highest dynamic body not falling, see [`FALLING_SPEED`]; at least 2 m), each moved up
    /// [`CLEARANCE_STEP`] at a time until its bounding box overlaps no collider's, and
    /// thrown down at [`THROW_SPEED`]. Returns their handles.
    ///
    /// Why not above the highest body: the highest body is the batch of the step before,
    /// which has barely moved, so each batch went 2.5 m above the last one and the drops
    /// grew by that much every step (750 m after 300 steps, and impacts at 120 m/s).
    pub fn spawn(&mut self, world: &mut World) -> Vec<BodyHandle> {
        let pile_top = world
            .bodies()
            .filter(|(_, b)| {
                b.body_type() == BodyType::Dynamic && b.linear_velocity().y > -FALLING_SPEED
            })
            .map(|(_, b)| b.position().y)
            .fold(2.0f32, f32::max);
        let mut out = Vec::with_capacity(BATCH);
        for _ in 0..BATCH {
            let x = (self.next() * 2.0 - 1.0) * self.half_width;
            let z = (self.next() * 2.0 - 1.0) * self.half_width;
            let mut y = pile_top + DROP_HEIGHT + self.next();
            let rotation = Quat::from_euler(
                glam::EulerRot::XYZ,
                self.next() * 3.0,
                self.next() * 3.0,
                0.0,
            );
            let shape = self.shape(self.spawned);
            for _ in 0..MAX_CLEARANCE_TRIES {
                let pose = Isometry::new(Vec3::new(x, y, z), rotation);
                let mut clear = true;
                world.query_aabb(&shape.world_aabb(&pose), |_| {
                    clear = false;
                    false
                });
                if clear {
                    break;
                }
                y += CLEARANCE_STEP;
            }
            let def = BodyDef {
                position: Vec3::new(x, y, z),
                rotation,
                linear_velocity: Vec3::new(0.0, -THROW_SPEED, 0.0),
                ..BodyDef::default()
            };
            if let Ok((handle, _)) =
                world.create_body_with_colliders(def, &[ColliderDef::new(shape)])
            {
                out.push(handle);
            }
            self.spawned += 1;
        }
        out
    }
}

/// How far above the pile's top a batch appears, m (plus up to 1 m at random).
pub const DROP_HEIGHT: f32 = 3.0;
/// Downward speed at which a body counts as falling, not as part of the pile, m/s. The
/// spawned bodies start faster than this ([`THROW_SPEED`]), so they never count until
/// they have landed (or bounced).
pub const FALLING_SPEED: f32 = 2.0;
/// Downward speed of a spawned body, m/s: it leaves the spawning band sooner than one
/// dropped from rest (1 m in 0.15 s instead of 0.45 s), so fewer later bodies have to go
/// higher to clear it. (Measured in the default arena over 300 steps: the highest body
/// peaked at 16 m with 4 m/s and 1 m steps, 12 m with 6 m/s and 0.5 m steps, 11 m with
/// 8 m/s, which lands harder.)
pub const THROW_SPEED: f32 = 6.0;
/// How far a body is moved up when its spot is taken, m.
pub const CLEARANCE_STEP: f32 = 0.5;
/// Spots tried per body; after the last the body is dropped where it is (it may overlap,
/// and the contacts push it out).
pub const MAX_CLEARANCE_TRIES: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    /// The default arena, spawning every step for `steps` steps: the highest body's height
    /// after each step.
    fn tops(steps: usize) -> Vec<f32> {
        let mut scene = crate::scene::load_str(WALLED_FLOOR, "<walled floor>").unwrap();
        let mut spawner = Spawner::default();
        (0..steps)
            .map(|_| {
                spawner.spawn(&mut scene.world);
                scene.world.step(scene.timestep);
                scene
                    .world
                    .bodies()
                    .map(|(_, b)| b.position().y)
                    .fold(0.0f32, f32::max)
            })
            .collect()
    }

    #[test]
    fn the_drops_stay_a_few_metres_above_the_pile() {
        // 1200 bodies in 300 steps. Their volume: sizes s in [0.25, 0.45] m, each at most a
        // box of 2s × 1.6s × 2.4s = 7.68 s³ ≤ 0.70 m³, so at most 840 m³ in the 12 m × 12 m
        // arena; at a packing of a half that is at most 11.7 m of pile, and the drops start
        // at most DROP_HEIGHT + 1 m above it; 3 m more leave room for the moves to a free
        // spot (measured: the highest body peaks at 12.3 m). Bodies spawned 2.5 m above the
        // previous batch instead climb on each other: 750 m up after 300 steps.
        let tops = tops(300);
        let highest = tops.iter().copied().fold(0.0f32, f32::max);
        assert!(
            highest < 11.7 + DROP_HEIGHT + 1.0 + 3.0,
            "highest body {highest} m"
        );
        // And it does not keep climbing: the last 100 steps' highest body is no more than
        // 3 m above the 100 before them.
        let late = tops[200..].iter().copied().fold(0.0f32, f32::max);
        let earlier = tops[100..200].iter().copied().fold(0.0f32, f32::max);
        assert!(late < earlier + 3.0, "climbing: {earlier} m, then {late} m");
    }
}
