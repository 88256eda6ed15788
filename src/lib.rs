//! Impulse: a 3D rigid-body physics sandbox.
//!
//! - [`physics`]: the engine (on glam, `wide` for its SIMD lanes, and std; its worker
//!   threads are its own, `physics::threads`);
//! - [`scene`]: RON scene files to and from worlds;
//! - [`headless`]: runs without a window (`impulse run|bench|stress`);
//! - `app` (feature `app`): the sandbox window.
//!
//! The engine on its own (`examples/hello.rs` is the same with printing): a world, a ground,
//! a 1 m box dropped from 2 m, two seconds of steps, the box resting on the ground and the
//! contact event of its landing.
//!
//! ```
//! use impulse::physics::{BodyDef, BodyType, ColliderDef, Shape, Vec3, World, WorldSettings};
//!
//! let mut world = World::new(WorldSettings::default());
//! let ground = BodyDef { body_type: BodyType::Static, ..BodyDef::default() };
//! let (ground, _) = world
//!     .create_body_with_colliders(ground, &[ColliderDef::new(Shape::plane(Vec3::Y))])
//!     .unwrap();
//! let cube = BodyDef { position: Vec3::new(0.0, 2.0, 0.0), ..BodyDef::default() };
//! let (cube, _) = world
//!     .create_body_with_colliders(cube, &[ColliderDef::new(Shape::cuboid(Vec3::splat(0.5)))])
//!     .unwrap();
//! let mut landed = None;
//! for _ in 0..120 {
//!     world.step(1.0 / 60.0);
//!     for begin in &world.contact_events().begin {
//!         if [begin.pair.body_a, begin.pair.body_b] == [ground, cube]
//!             || [begin.pair.body_a, begin.pair.body_b] == [cube, ground]
//!         {
//!             landed = Some(begin.approach_speed);
//!         }
//!     }
//! }
//! // It fell 1.5 m: √(2·g·1.5) = 5.4 m/s at impact (the event comes a step before it).
//! let speed = landed.expect("the box landed");
//! assert!((5.0..5.5).contains(&speed), "{speed}");
//! // Its centre rests half its height up.
//! let y = world.body(cube).unwrap().position().y;
//! assert!((y - 0.5).abs() < 0.01, "{y}");
//! ```

#[cfg(feature = "app")]
pub mod app;
pub mod headless;
pub mod physics;
pub mod scene;
pub mod stress;
