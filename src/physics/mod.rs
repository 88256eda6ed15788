//! The Impulse physics engine: rigid bodies, convex shapes, broad and narrow phase, a
//! sequential-impulse solver, islands and sleeping. Depends on glam and std only.

pub mod aabb;
pub mod broad_phase;
pub mod constants;
pub mod math;
pub mod narrow_phase;
pub mod shape;
pub mod body;
pub mod collider;
pub mod handle;
pub mod contact;
pub(crate) mod solver;
