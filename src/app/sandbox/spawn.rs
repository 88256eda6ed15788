//! Spawning: the Spawn section's shapes and settings, and the bodies it makes; deleting
//! and scaling them.

use super::*;

/// Shapes the spawn panel offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpawnShape {
    /// A ball.
    Sphere,
    /// A cube.
    Box,
    /// A capsule.
    Capsule,
    /// A square pyramid.
    Pyramid,
    /// A triangular prism.
    Prism,
    /// A random-looking gem (hull of a point cloud).
    Hull,
    /// Two balls on a bar (compound: three colliders).
    Dumbbell,
    /// A table top on four legs (compound: five boxes).
    Table,
    /// Two bars at a right angle (compound: two boxes).
    LShape,
}

impl SpawnShape {
    /// All, in menu order.
    pub const ALL: [SpawnShape; 9] = [
        SpawnShape::Sphere,
        SpawnShape::Box,
        SpawnShape::Capsule,
        SpawnShape::Pyramid,
        SpawnShape::Prism,
        SpawnShape::Hull,
        SpawnShape::Dumbbell,
        SpawnShape::Table,
        SpawnShape::LShape,
    ];

    /// Menu label.
    pub fn label(self) -> &'static str {
        match self {
            SpawnShape::Sphere => "Sphere",
            SpawnShape::Box => "Box",
            SpawnShape::Capsule => "Capsule",
            SpawnShape::Pyramid => "Pyramid",
            SpawnShape::Prism => "Prism",
            SpawnShape::Hull => "Hull",
            SpawnShape::Dumbbell => "Dumbbell",
            SpawnShape::Table => "Table",
            SpawnShape::LShape => "L-shape",
        }
    }

    /// The colliders' shapes with their places in the body (offset, rotation) at
    /// characteristic size `size` (m): one for a simple shape, several for a compound one,
    /// whose mass, centre of mass and inertia the engine sums. Or why that size cannot be
    /// used.
    pub fn parts(self, size: f32) -> Result<Vec<(Shape, Vec3, Quat)>, String> {
        check_size("spawn size", size)?;
        let s = size;
        let at = |shape: Shape, x: f32, y: f32, z: f32| (shape, Vec3::new(x, y, z), Quat::IDENTITY);
        Ok(match self {
            SpawnShape::Dumbbell => vec![
                at(Shape::sphere(0.6 * s), -1.2 * s, 0.0, 0.0),
                at(Shape::sphere(0.6 * s), 1.2 * s, 0.0, 0.0),
                // The bar: a capsule (along its own y) turned to lie along x.
                (
                    Shape::capsule(1.0 * s, 0.2 * s),
                    Vec3::ZERO,
                    Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
                ),
            ],
            SpawnShape::Table => {
                let leg = Shape::cuboid(Vec3::new(0.08 * s, 0.45 * s, 0.08 * s));
                let mut parts = vec![at(
                    Shape::cuboid(Vec3::new(1.2 * s, 0.1 * s, 0.8 * s)),
                    0.0,
                    0.55 * s,
                    0.0,
                )];
                for (x, z) in [(1.0, 0.6), (-1.0, 0.6), (1.0, -0.6), (-1.0, -0.6)] {
                    parts.push(at(leg.clone(), x * s, 0.0, z * s));
                }
                parts
            }
            SpawnShape::LShape => vec![
                at(
                    Shape::cuboid(Vec3::new(1.0 * s, 0.25 * s, 0.25 * s)),
                    0.0,
                    0.0,
                    0.0,
                ),
                at(
                    Shape::cuboid(Vec3::new(0.25 * s, 0.75 * s, 0.25 * s)),
                    -0.75 * s,
                    1.0 * s,
                    0.0,
                ),
            ],
            simple => vec![(simple.simple_shape(s)?, Vec3::ZERO, Quat::IDENTITY)],
        })
    }

    /// The shape of a one-collider preset with characteristic size `size` (m), already
    /// checked, or why that size cannot be used (the shape's own limits apply too, when the
    /// body is made).
    fn simple_shape(self, s: f32) -> Result<Shape, String> {
        let hull = |built: Result<ConvexHull, HullError>| {
            built
                .map(|h| Shape::ConvexHull(Arc::new(h)))
                .map_err(|e| format!("{} of size {s}: {e}", self.label()))
        };
        Ok(match self {
            SpawnShape::Sphere => Shape::sphere(s),
            SpawnShape::Dumbbell | SpawnShape::Table | SpawnShape::LShape => {
                return Err(format!("{} is made of several shapes", self.label()));
            }
            SpawnShape::Box => Shape::cuboid(Vec3::splat(s)),
            SpawnShape::Capsule => Shape::capsule(s, 0.6 * s),
            SpawnShape::Pyramid => hull(ConvexHull::try_square_pyramid(s, 1.6 * s))?,
            SpawnShape::Prism => hull(ConvexHull::try_triangular_prism(s, 1.4 * s, 0.8 * s))?,
            SpawnShape::Hull => {
                // An elongated octahedron with two shaved corners.
                let p = [
                    Vec3::new(0.0, 1.3, 0.0),
                    Vec3::new(0.0, -1.3, 0.0),
                    Vec3::new(0.9, 0.0, 0.0),
                    Vec3::new(-0.9, 0.0, 0.0),
                    Vec3::new(0.0, 0.0, 0.8),
                    Vec3::new(0.0, 0.0, -0.8),
                    Vec3::new(0.6, 0.5, 0.5),
                    Vec3::new(-0.5, -0.6, -0.5),
                ];
                hull(ConvexHull::new(&p.map(|v| v * s)))?
            }
        })
    }
}

/// The spawn panel's settings.
#[derive(Clone, Debug)]
pub struct SpawnSettings {
    /// Shape.
    pub shape: SpawnShape,
    /// Characteristic size (radius or half extent), m.
    pub size: f32,
    /// Density, kg/m³.
    pub density: f32,
    /// Friction.
    pub friction: f32,
    /// Restitution.
    pub restitution: f32,
    /// Launch speed of Throw, m/s.
    pub throw_speed: f32,
}

impl Default for SpawnSettings {
    fn default() -> Self {
        Self {
            shape: SpawnShape::Box,
            size: 0.5,
            density: 1.0,
            friction: 0.6,
            restitution: 0.1,
            throw_speed: 15.0,
        }
    }
}

impl Sandbox {
    /// Spawns the configured shape at `position` with `velocity`; selects it.
    pub fn spawn_at(&mut self, position: Vec3, velocity: Vec3) -> Option<BodyHandle> {
        self.before_edit();
        let s = &self.spawn;
        let parts = match s.shape.parts(s.size) {
            Ok(parts) => parts,
            Err(e) => {
                self.error = Some(format!("cannot spawn: {e}"));
                return None;
            }
        };
        // Out-of-range values typed into the spawner are refused by the body's validation,
        // with the field's name, not clamped here.
        let colliders: Vec<ColliderDef> = parts
            .into_iter()
            .map(|(shape, offset, rotation)| {
                ColliderDef::new(shape)
                    .with_local_pose(offset, rotation)
                    .with_density(s.density)
                    .with_friction(s.friction)
                    .with_restitution(s.restitution)
                    .with_rolling_resistance(0.01 * s.size)
            })
            .collect();
        let def = BodyDef {
            position,
            rotation: Quat::from_euler(EulerRot::XYZ, 0.3, 0.7, 0.1),
            linear_velocity: velocity,
            ..BodyDef::default()
        };
        match self.world.create_body_with_colliders(def, &colliders) {
            Ok((handle, _)) => {
                self.spawned += 1;
                let name = format!("{} {}", s.shape.label().to_lowercase(), self.spawned);
                self.meta.insert(handle, BodyMeta { name, color: None });
                self.selected = Some(handle);
                self.mark_edited();
                Some(handle)
            }
            Err(e) => {
                self.error = Some(format!("cannot spawn: {e}"));
                None
            }
        }
    }

    /// Deletes the selected body.
    pub fn delete_selected(&mut self) {
        self.before_edit();
        self.joining = None;
        if let Some(h) = self.selected.take() {
            if self.world.remove_body(h).is_err() {
                // Gone already (a rewind, a reload): nothing to delete.
                return;
            }
            self.meta.remove(&h);
            if self.grab.is_some_and(|g| g.body == h) {
                self.grab = None;
            }
            self.mark_edited();
        }
    }

    /// Scales a body's colliders (shapes and offsets) by `factor`; mass follows.
    pub fn scale_body(&mut self, handle: BodyHandle, factor: f32) {
        self.before_edit();
        if !(factor.is_finite() && factor > 0.0) {
            self.error = Some(format!(
                "cannot scale: the factor must be a positive number, got {factor}"
            ));
            return;
        }
        if factor == 1.0 {
            return;
        }
        let colliders: Vec<_> = self.world.body_colliders(handle).collect();
        for c in colliders {
            let Some(collider) = self.world.collider(c) else {
                continue;
            };
            let shape = collider.shape().scaled(factor);
            let pose = collider.local_pose();
            let scaled_pose = Isometry::new(pose.translation * factor, pose.rotation);
            if let Err(e) = self.world.set_collider_shape(c, shape, scaled_pose) {
                self.error = Some(format!("cannot scale: {e}"));
            }
        }
        self.mark_edited();
    }
}
