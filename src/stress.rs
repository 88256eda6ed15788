//! The stress test's body spawner, shared by `impulse stress` and the sandbox's button: drops
//! a batch of mixed bodies above everything already in the scene, every step.

use crate::physics::{BodyDef, BodyHandle, ColliderDef, Quat, Shape, Vec3, World};

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

    /// Drops `BATCH` bodies 2 m above the highest dynamic body (or at 4 m), spread over the
    /// square. Returns their handles.
    pub fn spawn(&mut self, world: &mut World) -> Vec<BodyHandle> {
        let top = world
            .bodies()
            .filter(|(_, b)| b.body_type() == crate::physics::BodyType::Dynamic)
            .map(|(_, b)| b.position().y)
            .fold(2.0f32, f32::max);
        let mut out = Vec::with_capacity(BATCH);
        for _ in 0..BATCH {
            let x = (self.next() * 2.0 - 1.0) * self.half_width;
            let z = (self.next() * 2.0 - 1.0) * self.half_width;
            let y = top + 2.0 + self.next();
            let rotation = Quat::from_euler(
                glam::EulerRot::XYZ,
                self.next() * 3.0,
                self.next() * 3.0,
                0.0,
            );
            let shape = self.shape(self.spawned);
            let def = BodyDef {
                position: Vec3::new(x, y, z),
                rotation,
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
