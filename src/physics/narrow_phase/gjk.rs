//! STUB (placeholder until the real module lands).
use crate::physics::math::{Isometry, Vec3};
use crate::physics::shape::SupportMap;
/// Result.
pub struct GjkResult {
    pub distance: f32,
    pub point_a: Vec3,
    pub point_b: Vec3,
    pub iterations: u32,
}
/// Distance.
pub fn gjk_distance<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    _a: &A,
    _b: &B,
    _b_in_a: &Isometry,
) -> GjkResult {
    todo!()
}
