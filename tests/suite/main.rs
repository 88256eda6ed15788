//! The integration tests, one test binary (`cargo test --test suite`): one module per area,
//! so the library and its dependencies are linked once rather than once per file. Filter by module as by name: `cargo test --test suite joints::`.
//!
//! Three tests keep binaries of their own, next to this folder: `allocation` and `soak`
//! install a counting global allocator (other tests in the same process would disturb the
//! count), and `window` drives the real window under Xvfb (`--test window`). A new test file
//! goes here as a module, unless it needs a process of its own.

mod common;

mod broad_phase;
mod broad_phase_choice;
mod ccd;
mod cli;
mod contact_cap;
mod energy_audit;
mod filtering;
mod integrators;
mod joint_energy;
mod joint_fuzz;
mod joint_rotations;
mod joints;
mod loader_fuzz;
mod locks;
mod manifold_reuse;
mod narrow_phase;
mod narrow_phase_invariants;
mod physics_api;
mod physics_motion;
mod physics_nonfinite;
mod physics_robustness;
mod physics_stability;
mod physics_stacking;
mod physics_world;
mod scene_promises;
mod scenes;
mod sensors;
mod shape_cast;
mod threads;
