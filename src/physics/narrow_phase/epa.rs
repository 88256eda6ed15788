//! STUB (placeholder until the real module lands).
use crate::physics::math::{Isometry, Vec3};
use crate::physics::shape::SupportMap;
/// Penetration.
pub struct Penetration {
    pub normal: Vec3,
    pub depth: f32,
    pub point_a: Vec3,
    pub point_b: Vec3,
}
/// EPA.
pub fn penetration<A: SupportMap + ?Sized, B: SupportMap + ?Sized>(
    _a: &A,
    _b: &B,
    _b_in_a: &Isometry,
) -> Option<Penetration> {
    todo!()
}
