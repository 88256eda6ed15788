//! Mouse and keyboard in the 3D view: orbit, pan, zoom, select, hold a body, and the keys.

use macroquad::miniquad::{KeyCode, KeyMods, MouseButton};
use macroquad::prelude::{Vec2, Vec3};

use super::camera::OrbitCamera;
use super::grab::Grab;
use super::input::InputState;
use super::sandbox::Sandbox;
use super::View;
use crate::physics::aabb::Aabb;
use crate::physics::{BodyHandle, BodyType, Collider, Shape, World};

/// How the current mouse press is being used, decided when it starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Press {
    /// No button down.
    None,
    /// egui has it.
    Ui,
    /// A left press that is a click unless it moves; then it orbits.
    Click { start: Vec2 },
    /// Orbiting.
    Orbit,
    /// Panning.
    Pan,
    /// Holding a body.
    Grab,
}

/// Space play/pause, N step, B step back, R reset, F frame, Delete delete, Escape deselect;
/// WASD or the arrows walk the player (see `player.rs`).
pub fn handle_keys(input: &InputState, sandbox: &mut Sandbox, view: &mut View, egui_wants: bool) {
    sandbox.drive = Vec3::ZERO;
    if egui_wants {
        return;
    }
    let axis = |plus: [KeyCode; 2], minus: [KeyCode; 2]| {
        let held = |keys: [KeyCode; 2]| keys.iter().any(|&k| input.key_down(k));
        f32::from(u8::from(held(plus))) - f32::from(u8::from(held(minus)))
    };
    let keys = (
        axis([KeyCode::D, KeyCode::Right], [KeyCode::A, KeyCode::Left]),
        axis([KeyCode::W, KeyCode::Up], [KeyCode::S, KeyCode::Down]),
    );
    let forward = view.camera.target - view.camera.eye();
    sandbox.drive = super::player::intent(forward, keys);
    if input.key_pressed(KeyCode::Space) {
        sandbox.playing = !sandbox.playing;
    }
    if input.key_pressed(KeyCode::N) {
        sandbox.playing = false;
        sandbox.step_once();
    }
    if input.key_pressed(KeyCode::B) {
        let step = sandbox.world.step_count();
        sandbox.scrub_to(step.saturating_sub(1));
    }
    if input.key_pressed(KeyCode::R) {
        sandbox.reset();
    }
    if input.key_pressed(KeyCode::F) {
        view.frame_request = true;
    }
    if input.key_pressed(KeyCode::Delete) || input.key_pressed(KeyCode::Backspace) {
        sandbox.delete_selected();
    }
    if input.key_pressed(KeyCode::Escape) {
        // Gives up a joint being made first, then the selection.
        if sandbox.joining.take().is_none() {
            sandbox.selected = None;
        }
    }
}

/// Orbit, pan, zoom, click to select, Ctrl-drag or right-drag to hold a body.
pub fn handle_mouse(
    input: &InputState,
    sandbox: &mut Sandbox,
    view: &mut View,
    press: &mut Press,
    last: &mut Vec2,
    egui_wants: bool,
) {
    let mouse = input.mouse;
    let delta = mouse - *last;
    *last = mouse;
    let any_down = input.any_button_down();

    // Decide what a new press does, once, when it starts.
    let pressed_left = input.button_pressed(MouseButton::Left);
    let pressed_right = input.button_pressed(MouseButton::Right);
    let pressed_middle = input.button_pressed(MouseButton::Middle);
    if *press == Press::None && (pressed_left || pressed_right || pressed_middle) {
        let KeyMods { shift, ctrl, .. } = input.mods();
        *press = if egui_wants {
            Press::Ui
        } else if pressed_middle || (pressed_left && shift) {
            Press::Pan
        } else if (pressed_right || (pressed_left && ctrl)) && start_grab(sandbox, view, mouse) {
            Press::Grab
        } else if pressed_left {
            Press::Click { start: mouse }
        } else {
            Press::Orbit
        };
    }

    match *press {
        Press::Click { start } if (mouse - start).length() > 4.0 => *press = Press::Orbit,
        Press::Orbit => view.camera.orbit(delta),
        Press::Pan => view.camera.pan(delta),
        Press::Grab => {
            if let Some(grab) = sandbox.grab.as_mut() {
                let (origin, dir) = view.camera.ray(mouse);
                grab.target = origin + dir * grab.distance;
            }
        }
        _ => {}
    }

    if !any_down {
        if let Press::Click { .. } = *press {
            pick(sandbox, view, mouse);
        }
        if *press == Press::Grab {
            sandbox.grab = None;
        }
        *press = Press::None;
    }

    let wheel = input.wheel;
    if wheel != 0.0 && !egui_wants {
        view.camera.zoom(wheel.signum());
    }
}

/// Starts holding the dynamic body under the cursor; false if there is none.
fn start_grab(sandbox: &mut Sandbox, view: &View, mouse: Vec2) -> bool {
    let (origin, dir) = view.camera.ray(mouse);
    let Some(hit) = sandbox.world.ray_cast(origin, dir, 1000.0) else {
        return false;
    };
    let Some(body) = sandbox.world.body(hit.body) else {
        return false;
    };
    if body.body_type() != BodyType::Dynamic {
        return false;
    }
    let local_point = body.rotation().inverse() * (hit.point - body.position());
    sandbox.grab = Some(Grab {
        body: hit.body,
        local_point,
        distance: hit.distance,
        target: hit.point,
    });
    // The grab wakes the body at the next step (so a rewound history replays it exactly).
    sandbox.selected = Some(hit.body);
    true
}

/// Selects the body under the cursor (or nothing), remembers the point for spawning; while
/// a joint is being made, joins to the body under the cursor instead (a click on nothing
/// gives up).
fn pick(sandbox: &mut Sandbox, view: &mut View, mouse: Vec2) {
    let (origin, dir) = view.camera.ray(mouse);
    // A joint is being made for the selected body only: a selection changed since (a
    // spawn, a grab, a delete, a rewind) gives it up.
    if sandbox.joining.is_some() && sandbox.joining != sandbox.selected {
        sandbox.joining = None;
    }
    if sandbox.joining.is_some() {
        match sandbox.world.ray_cast(origin, dir, 1000.0) {
            Some(hit) => {
                sandbox.finish_joining(hit.body, hit.point, hit.normal);
            }
            None => sandbox.joining = None,
        }
        return;
    }
    match sandbox.world.ray_cast(origin, dir, 1000.0) {
        Some(hit) => {
            view.click_point = Some(hit.point + hit.normal * (sandbox.spawn.size * 2.0 + 0.5));
            let is_ground = sandbox.world.body_colliders(hit.body).any(|c| {
                sandbox
                    .world
                    .collider(c)
                    .is_some_and(|c| matches!(c.shape(), Shape::Plane { .. }))
            });
            sandbox.selected = if is_ground { None } else { Some(hit.body) };
        }
        None => sandbox.selected = None,
    }
}

/// Static colliders wider than this both ways are ground, not something to look at, m.
const GROUND_WIDTH: f32 = 30.0;

/// Whether a static collider is ground: an upward-facing plane, or a collider wider than
/// [`GROUND_WIDTH`] both ways.
pub fn is_ground(c: &Collider) -> bool {
    if let Shape::Plane { normal } = c.shape() {
        (c.world_pose().rotation * *normal).y > 0.999
    } else {
        let size = c.aabb().max - c.aabb().min;
        size.x > GROUND_WIDTH && size.z > GROUND_WIDTH
    }
}

/// The top of the scene's ground (see [`is_ground`]): the highest upward-facing static plane,
/// or else the top of the highest wide static collider; None without either.
pub fn scene_floor(world: &World) -> Option<f32> {
    let mut planes: Option<f32> = None;
    let mut slabs: Option<f32> = None;
    for (handle, c) in world.colliders() {
        let is_static = world
            .collider_body(handle)
            .and_then(|b| world.body(b))
            .is_some_and(|b| b.body_type() == BodyType::Static);
        if !is_static || !is_ground(c) {
            continue;
        }
        if let Shape::Plane { .. } = c.shape() {
            let y = c.world_pose().translation.y;
            planes = Some(planes.map_or(y, |p| p.max(y)));
        } else {
            let top = c.aabb().max.y;
            slabs = Some(slabs.map_or(top, |s| s.max(top)));
        }
    }
    planes.or(slabs)
}

/// What F frames: the selection; else the bodies near the scene's centre of interest (its
/// camera target, within 1.2 times the scene camera's distance), leaving out planes and
/// ground slabs, so a ball that rolled far away does not shrink everything; else everything.
pub fn frame_bounds(sandbox: &Sandbox) -> Option<Aabb> {
    let world = &sandbox.world;
    let collider_bounds = |handles: &mut dyn Iterator<Item = BodyHandle>| {
        handles
            .flat_map(|h| world.body_colliders(h))
            .filter_map(|c| world.collider(c))
            .filter(|c| !matches!(c.shape(), Shape::Plane { .. }))
            .map(|c| c.aabb())
            .filter(|b| {
                let size = b.max - b.min;
                !(size.x > GROUND_WIDTH && size.z > GROUND_WIDTH)
            })
            .reduce(|a, b| a.union(&b))
    };
    if let Some(h) = sandbox.selected {
        return collider_bounds(&mut std::iter::once(h));
    }
    let desc = &sandbox.scene_camera;
    let target = Vec3::new(desc.target.0, desc.target.1, desc.target.2);
    let eye = Vec3::new(desc.eye.0, desc.eye.1, desc.eye.2);
    let reach = ((eye - target).length() * 1.2).max(5.0);
    let near = collider_bounds(
        &mut world
            .bodies()
            .filter(|(_, b)| (b.position() - target).length() <= reach)
            .map(|(h, _)| h),
    );
    near.or_else(|| collider_bounds(&mut world.bodies().map(|(h, _)| h)))
}

/// Points the camera at what matters (see [`frame_bounds`]).
pub fn frame_view(sandbox: &Sandbox, camera: &mut OrbitCamera) {
    if let Some(b) = frame_bounds(sandbox) {
        camera.frame(&b);
    }
}
