//! The Impulse physics engine: rigid bodies, convex shapes, broad and narrow phase, a
//! sequential-impulse solver, islands and sleeping, stepped on one thread or a team of worker
//! threads (`threads.rs`). Depends on glam, `wide` (four-lane SIMD) and std.

pub mod aabb;
pub mod body;
pub mod broad_phase;
pub mod clock;
pub mod collider;
pub mod constants;
pub mod contact;
mod continuous;
pub mod handle;
pub mod island;
pub mod joint;
pub mod math;
pub mod narrow_phase;
mod prefetch;
pub mod profile;
pub mod query;
pub mod shape;
pub mod shape_cast;
pub(crate) mod solver;
pub mod threads;
pub mod world;

pub use body::{Body, BodyDef, BodyType, Locks};
pub use collider::{Collider, ColliderDef, CollisionFilter};
pub use joint::{Cone, Joint, JointDef, JointError, JointHandle, JointKind, Limits, Motor};
pub use math::{Isometry, Quat, Vec3};
pub use query::RayHit;
pub use shape::Shape;
pub use shape_cast::ShapeHit;
pub use world::bodies::{BodyError, ColliderError};
pub use world::{
    BodyHandle, BroadPhaseKind, ColliderHandle, ContactBegin, ContactEvents, ContactPair,
    Integrator, SettingsError, World, WorldSettings, QUADTREE_MAX_CAPACITY,
    QUADTREE_MAX_DEPTH_LIMIT,
};
