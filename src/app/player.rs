//! The top-down character: in a scene with a kinematic body named `player`, WASD
//! or the arrow keys move it across the floor, relative to the view (W away from the camera),
//! sliding along walls instead of stopping ([`World::slide_shape`]). It moves by velocity, so
//! its contacts push crates, and its moves are recorded per step like a grab, so the timeline
//! replays them exactly.

use crate::physics::{BodyHandle, BodyType, Vec3, World};
use crate::scene::BodyMeta;
use std::collections::BTreeMap;

/// The name a scene gives the body the keys move.
pub const PLAYER_NAME: &str = "player";
/// Walking speed, m/s.
pub const PLAYER_SPEED: f32 = 4.0;
/// Slides per step (a move into a corner needs two).
const SLIDE_MOVES: u32 = 4;

/// The kinematic body named [`PLAYER_NAME`], if the scene has one.
pub fn find(world: &World, meta: &BTreeMap<BodyHandle, BodyMeta>) -> Option<BodyHandle> {
    meta.iter()
        .find(|(_, m)| m.name == PLAYER_NAME)
        .map(|(&h, _)| h)
        .filter(|&h| {
            world
                .body(h)
                .is_some_and(|b| b.body_type() == BodyType::Kinematic)
        })
}

/// The direction the keys ask for, on the ground plane and relative to the view: `forward`
/// is the camera's looking direction, `keys` = (right, forward) in −1..=1 each. Unit length
/// or zero.
pub fn intent(forward: Vec3, keys: (f32, f32)) -> Vec3 {
    let ahead = Vec3::new(forward.x, 0.0, forward.z)
        .try_normalize()
        .unwrap_or(-Vec3::Z);
    let right = ahead.cross(Vec3::Y);
    (right * keys.0 + ahead * keys.1).normalize_or_zero()
}

/// The velocity that moves the player along `intent` at walking speed for one step of `dt`
/// s, as far as the walls let it (zero when it has no solid collider).
pub fn velocity(world: &World, player: BodyHandle, intent: Vec3, dt: f32) -> Vec3 {
    if intent == Vec3::ZERO || dt <= 0.0 {
        return Vec3::ZERO;
    }
    let Some(collider) = world
        .body_colliders(player)
        .filter_map(|c| world.collider(c))
        .find(|c| !c.is_sensor())
    else {
        return Vec3::ZERO;
    };
    let wanted = intent * (PLAYER_SPEED * dt);
    let allowed = world.slide_shape(
        collider.shape(),
        &collider.world_pose(),
        wanted,
        Some(player),
        SLIDE_MOVES,
    );
    allowed / dt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_view() {
        // Looking along −z (the default view from +z): W is −z, D is +x.
        let forward = Vec3::new(0.0, -0.7, -0.7);
        assert!((intent(forward, (0.0, 1.0)) - Vec3::new(0.0, 0.0, -1.0)).length() < 1e-6);
        assert!((intent(forward, (1.0, 0.0)) - Vec3::X).length() < 1e-6);
        // Diagonals are unit length; no key, no move; straight down counts as looking −z.
        assert!((intent(forward, (1.0, 1.0)).length() - 1.0).abs() < 1e-6);
        assert_eq!(intent(forward, (0.0, 0.0)), Vec3::ZERO);
        assert!((intent(-Vec3::Y, (0.0, 1.0)) + Vec3::Z).length() < 1e-6);
    }
}
