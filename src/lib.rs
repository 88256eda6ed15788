//! Impulse: a 3D rigid-body physics sandbox. The engine lives in [`physics`].

pub mod physics;
pub mod scene;
