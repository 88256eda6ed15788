#![warn(missing_docs)]
//! Impulse: a 3D rigid-body physics sandbox.
//!
//! - [`physics`]: the engine (on glam, `wide` for its SIMD lanes, and std; its worker
//!   threads are its own, `physics::threads`);
//! - [`scene`]: RON scene files to and from worlds;
//! - [`headless`]: runs without a window (`impulse run|bench|stress`);
//! - `app` (feature `app`): the sandbox window.

#[cfg(feature = "app")]
pub mod app;
pub mod headless;
pub mod physics;
pub mod scene;
pub mod stress;
