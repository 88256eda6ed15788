//! Mouse and keyboard in the 3D view: orbit, pan, zoom, select, hold a body, and the keys.

use macroquad::miniquad::{KeyCode, KeyMods, MouseButton};
use macroquad::prelude::{Vec2, Vec3};

use super::camera::{OrbitCamera, ViewPreset};
use super::grab::{release_velocity, Grab, RELEASE_WINDOW};
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

/// The window's keys, as the help lists them (`ui/help.rs`): F1 help, Ctrl+Z / Ctrl+Shift+Z
/// (Ctrl+Y) undo / redo an edit made while paused, Tab panels, Space
/// play/pause, N step, B step back, R reset, F frame, Delete delete, Escape closes the help
/// or deselects, 1 / 3 / 7 (or the numpad's) view from the front / side / top; WASD or the
/// arrows walk the player (see `player.rs`).
pub fn handle_keys(input: &InputState, sandbox: &mut Sandbox, view: &mut View, egui_wants: bool) {
    sandbox.drive = Vec3::ZERO;
    if egui_wants {
        return;
    }
    if input.key_pressed(KeyCode::F1) {
        view.help = !view.help;
    }
    // Ctrl+Z undoes an edit made while paused; Ctrl+Shift+Z (or Ctrl+Y) redoes it.
    let mods = input.mods();
    if mods.ctrl && input.key_pressed(KeyCode::Z) {
        if mods.shift {
            sandbox.redo();
        } else {
            sandbox.undo();
        }
    }
    if mods.ctrl && input.key_pressed(KeyCode::Y) {
        sandbox.redo();
    }
    if input.key_pressed(KeyCode::Tab) {
        view.layout.hidden = !view.layout.hidden;
    }
    for (keys, preset) in [
        ([KeyCode::Key1, KeyCode::Kp1], ViewPreset::Front),
        ([KeyCode::Key3, KeyCode::Kp3], ViewPreset::Side),
        ([KeyCode::Key7, KeyCode::Kp7], ViewPreset::Top),
    ] {
        if keys.iter().any(|&k| input.key_pressed(k)) {
            view.camera.preset(preset);
        }
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
        // Closes the help first, then gives up a joint being made, then the selection.
        if view.help {
            view.help = false;
        } else if sandbox.joining.take().is_none() {
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
        if *press == Press::Grab {
            view.grab_trail.clear();
        }
    }

    match *press {
        Press::Click { start } if (mouse - start).length() > 4.0 => *press = Press::Orbit,
        Press::Orbit => view.camera.orbit(delta),
        Press::Pan => view.camera.pan(delta),
        Press::Grab => {
            if let Some(grab) = sandbox.grab.as_mut() {
                let (origin, dir) = view.camera.ray(mouse);
                grab.target = origin + dir * grab.distance;
                // The target's recent path, for the velocity it is let go with.
                let now = sandbox.world.time();
                let trail = &mut view.grab_trail;
                trail.push((now, grab.target));
                let keep_from = trail
                    .iter()
                    .position(|(t, _)| *t >= now - 2.0 * RELEASE_WINDOW)
                    .unwrap_or(0);
                trail.drain(..keep_from);
            }
        }
        _ => {}
    }

    if !any_down {
        if let Press::Click { .. } = *press {
            pick(sandbox, view, mouse);
        }
        if *press == Press::Grab {
            sandbox.release_grab(release_velocity(&view.grab_trail));
            view.grab_trail.clear();
        }
        *press = Press::None;
    }

    // The wheel zooms toward what is under the cursor: the body or ground it points at,
    // else the point on the target's plane.
    let wheel = input.wheel;
    if wheel != 0.0 && !egui_wants {
        let (origin, dir) = view.camera.ray(mouse);
        let point = match sandbox.world.ray_cast(origin, dir, 1000.0) {
            Some(hit) => hit.point,
            None => view.camera.on_target_plane(origin, dir),
        };
        view.camera.zoom_at(wheel.signum(), point);
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
    match pick_body(sandbox, view, mouse) {
        Some(body) => sandbox.selected = Some(body),
        None => {
            sandbox.selected = None;
            // A click on the ground sets the spawn point, and says so.
            if let Some(hit) = sandbox.world.ray_cast(origin, dir, 1000.0) {
                let at = hit.point + hit.normal * (sandbox.spawn.size * 2.0 + 0.5);
                view.click_point = Some(at);
                sandbox.notify(format!(
                    "Spawn point set to ({:.1}, {:.1}, {:.1}): Spawn puts new bodies there \
                     (clear it in the Spawn section)",
                    at.x, at.y, at.z
                ));
            }
        }
    }
}

/// How far from the cursor a click still picks a body, pixels: rays through points on
/// rings of these radii are tried when the one under the cursor finds no body.
const PICK_TOLERANCE: [f32; 2] = [3.0, 6.0];

/// The body a click at `mouse` picks: the one under the cursor, else the nearest one (in
/// ray distance) within [`PICK_TOLERANCE`] pixels of it. Ground (planes and wide static
/// slabs, [`is_ground`]) is never picked.
fn pick_body(sandbox: &Sandbox, view: &View, mouse: Vec2) -> Option<BodyHandle> {
    let world = &sandbox.world;
    let body_at = |point: Vec2| {
        let (origin, dir) = view.camera.ray(point);
        let hit = world.ray_cast(origin, dir, 1000.0)?;
        let ground = world
            .body_colliders(hit.body)
            .filter_map(|c| world.collider(c))
            .any(is_ground);
        (!ground).then_some((hit.distance, hit.body))
    };
    if let Some((_, body)) = body_at(mouse) {
        return Some(body);
    }
    PICK_TOLERANCE.iter().find_map(|&radius| {
        (0..8)
            .filter_map(|k| {
                let angle = k as f32 * std::f32::consts::FRAC_PI_4;
                body_at(mouse + radius * Vec2::new(angle.cos(), angle.sin()))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, body)| body)
    })
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

/// What F frames: the selection with its neighbourhood (see [`NEIGHBOURHOOD`]); else the
/// bodies near the scene's centre of interest (its camera target, within 1.2 times the
/// scene camera's distance), leaving out planes and ground slabs, so a ball that rolled far
/// away does not shrink everything; else everything.
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
        // The body, the bodies jointed to it (a ragdoll's torso brings its limbs), and room
        // around them: the selection fills about a third of the view, not all of it.
        let partners = sandbox
            .joints_of(h)
            .into_iter()
            .filter_map(|(_, other)| other);
        let own = collider_bounds(&mut std::iter::once(h).chain(partners))?;
        let size = (own.max - own.min).max_element();
        let margin = (NEIGHBOURHOOD * size).max(MIN_NEIGHBOURHOOD);
        return Some(Aabb::new(
            own.min - Vec3::splat(margin),
            own.max + Vec3::splat(margin),
        ));
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

/// Room F leaves around the selection and the bodies jointed to it, as a share of their
/// largest extent on every side (so they fill about a third of the view).
const NEIGHBOURHOOD: f32 = 1.0;

/// The least room F leaves around a selection, m: a pebble is shown with what it lies on.
const MIN_NEIGHBOURHOOD: f32 = 1.0;

/// Points the camera at what matters (see [`frame_bounds`]).
pub fn frame_view(sandbox: &Sandbox, camera: &mut OrbitCamera) {
    if let Some(b) = frame_bounds(sandbox) {
        camera.frame(&b);
    }
}
