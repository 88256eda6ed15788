//! The sandbox window (macroquad + egui): the only code that imports them.
//!
//! Each frame: physics (fixed steps from an accumulator, or exactly one step per frame in a
//! scripted `--frames` run), the egui panels, mouse and keyboard (ignored where egui wants
//! them), then the 3D view and debug layers, then egui on top.

mod camera;
mod debug_draw;
mod grab;
mod render;
mod sandbox;
mod stress;
mod ui;

use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use macroquad::prelude::*;

use crate::headless::CliError;
use crate::physics::{BodyType, Shape};
use camera::OrbitCamera;
use debug_draw::Layers;
use grab::Grab;
use render::Renderer;
use sandbox::Sandbox;
use stress::StressTest;

/// At most this many fixed steps per frame: a slow frame drops time instead of spiralling.
const MAX_STEPS_PER_FRAME: u32 = 4;
/// Seconds of step-time history in the stats plot.
const HISTORY_SECONDS: f64 = 10.0;
/// How often the open scene file is checked for changes, s.
const RELOAD_INTERVAL: f32 = 0.5;
/// Half size of the drawn ground square, m.
const GROUND_HALF_SIZE: f32 = 60.0;

/// What the command line asked of the window.
pub struct AppOptions {
    scene: Option<PathBuf>,
    frames: Option<u64>,
    screenshot: Option<PathBuf>,
    layers: Layers,
    stress: bool,
}

impl AppOptions {
    /// Checks the window options (layer names, screenshot path) before opening a window.
    pub fn new(
        scene: Option<PathBuf>,
        frames: Option<u64>,
        screenshot: Option<PathBuf>,
        draw: &[String],
        stress: bool,
    ) -> Result<Self, String> {
        let layers = Layers::parse(draw)?;
        if let Some(path) = &screenshot {
            let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
            if let Some(dir) = dir {
                if !dir.is_dir() {
                    return Err(format!(
                        "{}: the folder for the screenshot does not exist",
                        path.display()
                    ));
                }
            }
        }
        Ok(Self {
            scene,
            frames,
            screenshot,
            layers,
            stress,
        })
    }
}

/// Window settings: MSAA, large batches for thousands of bodies.
fn window_conf() -> macroquad::conf::Conf {
    macroquad::conf::Conf {
        miniquad_conf: macroquad::miniquad::conf::Conf {
            window_title: "Impulse".to_string(),
            window_width: 1400,
            window_height: 860,
            high_dpi: false,
            sample_count: 4,
            ..Default::default()
        },
        draw_call_vertex_capacity: 60_000,
        draw_call_index_capacity: 90_000,
        ..Default::default()
    }
}

/// Opens the window and runs until it is closed (or `--frames` are done).
pub fn run(options: AppOptions) -> Result<(), CliError> {
    // Load before opening the window: a bad scene on the command line is a usage error.
    let (scene, source, text) = sandbox::load_initial(options.scene.as_deref())
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let sandbox = Sandbox::new(scene, source, text);
    let result: Arc<Mutex<Result<(), CliError>>> = Arc::new(Mutex::new(Ok(())));
    let slot = Arc::clone(&result);
    macroquad::Window::from_config(window_conf(), async move {
        let outcome = main_loop(options, sandbox).await;
        if let Ok(mut r) = slot.lock() {
            *r = outcome;
        }
    });
    let mut guard = result
        .lock()
        .map_err(|_| CliError::Internal("the window thread failed".into()))?;
    std::mem::replace(&mut *guard, Ok(()))
}

/// How the current mouse press is being used, decided when it starts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Press {
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

/// Timing history for the stats panel.
#[derive(Default)]
pub struct Stats {
    /// (real time s, physics ms of that frame) for the plot.
    pub history: VecDeque<[f64; 2]>,
    /// Smoothed frame time, s.
    pub frame_time: f32,
    /// Physics ms in the last frame.
    pub physics_ms: f32,
    /// Steps in the last frame.
    pub steps: u32,
    /// Triangles drawn in the last frame.
    pub triangles: usize,
}

impl Stats {
    fn record(&mut self, now: f64, frame_dt: f32, physics_ms: f32, steps: u32) {
        self.frame_time = if self.frame_time == 0.0 {
            frame_dt
        } else {
            self.frame_time * 0.9 + frame_dt * 0.1
        };
        self.physics_ms = physics_ms;
        self.steps = steps;
        if steps > 0 {
            self.history
                .push_back([now, physics_ms as f64 / steps as f64]);
        }
        while self
            .history
            .front()
            .is_some_and(|h| now - h[0] > HISTORY_SECONDS)
        {
            self.history.pop_front();
        }
    }
}

/// The state the panels edit besides the sandbox.
pub struct View {
    /// The orbit camera.
    pub camera: OrbitCamera,
    /// Debug layers.
    pub layers: Layers,
    /// The stress test.
    pub stress: StressTest,
    /// Timings.
    pub stats: Stats,
    /// Where the last click on the world landed (spawn point).
    pub click_point: Option<Vec3>,
    /// Text of the load path field.
    pub load_path: String,
    /// Text of the save path field.
    pub save_path: String,
    /// The scale factor field of the object panel.
    pub scale_factor: f32,
    /// Frame the selection (or the scene) at the end of this frame.
    pub frame_request: bool,
}

async fn main_loop(options: AppOptions, mut sandbox: Sandbox) -> Result<(), CliError> {
    let mut renderer = Renderer::new().map_err(CliError::Internal)?;
    let mut view = View {
        camera: OrbitCamera::from_desc(&sandbox.scene_camera),
        layers: options.layers,
        stress: StressTest::default(),
        stats: Stats::default(),
        click_point: None,
        load_path: String::from("scenes/"),
        save_path: String::from("saved.ron"),
        scale_factor: 1.0,
        frame_request: false,
    };
    if options.stress {
        view.stress.start();
    }
    let scripted = options.frames.is_some();
    let mut press = Press::None;
    let mut last_mouse = Vec2::from(mouse_position());
    let mut reload_timer = 0.0f32;
    let mut frame = 0u64;
    let start = Instant::now();
    let mut camera_source = sandbox.source.clone();

    loop {
        let frame_dt = get_frame_time();

        // Physics.
        let t = Instant::now();
        let steps = if scripted {
            if sandbox.playing {
                sandbox.step_once();
                1
            } else {
                0
            }
        } else {
            sandbox.advance(frame_dt, MAX_STEPS_PER_FRAME)
        };
        let physics_s = t.elapsed().as_secs_f32();
        view.stats.record(
            start.elapsed().as_secs_f64(),
            frame_dt,
            physics_s * 1000.0,
            steps,
        );
        if view.stress.frame(&mut sandbox.world, frame_dt, physics_s) {
            if let Some(o) = view.stress.outcome {
                println!(
                    "stress: {} bodies at {:.1} FPS, physics {:.0}% of the frame time",
                    o.bodies,
                    o.fps,
                    o.physics_share * 100.0
                );
            }
            if options.stress && !scripted {
                return Ok(());
            }
        }

        // Hot reload.
        reload_timer += frame_dt;
        if reload_timer >= RELOAD_INTERVAL {
            reload_timer = 0.0;
            sandbox.hot_reload();
        }
        // A different scene brings its own camera; a reload of the same file keeps the view.
        if sandbox.source != camera_source {
            camera_source = sandbox.source.clone();
            view.camera = OrbitCamera::from_desc(&sandbox.scene_camera);
        }

        // Panels first, so input knows what egui wants.
        let mut wants_pointer = false;
        let mut wants_keyboard = false;
        egui_macroquad::ui(|ctx: &egui_macroquad::egui::Context| {
            ui::panels(ctx, &mut sandbox, &mut view);
            wants_pointer = ctx.wants_pointer_input() || ctx.is_pointer_over_area();
            wants_keyboard = ctx.wants_keyboard_input();
        });

        handle_keys(&mut sandbox, &mut view, wants_keyboard);
        handle_mouse(
            &mut sandbox,
            &mut view,
            &mut press,
            &mut last_mouse,
            wants_pointer,
        );
        if view.frame_request {
            view.frame_request = false;
            frame_view(&sandbox, &mut view.camera);
        }

        // The 3D view.
        clear_background(Color::new(0.70, 0.78, 0.88, 1.0));
        set_camera(&view.camera.camera3d());
        draw_world(&sandbox, &view, &mut renderer);
        view.stats.triangles = renderer.triangles;
        set_default_camera();
        egui_macroquad::draw();

        frame += 1;
        if frame.is_multiple_of(600) {
            renderer.prune();
        }
        if let Some(total) = options.frames {
            if frame >= total {
                if let Some(path) = &options.screenshot {
                    // export_png panics on I/O errors: check we can write the file first.
                    std::fs::write(path, b"").map_err(|e| {
                        CliError::Internal(format!(
                            "{}: cannot write the screenshot: {e}",
                            path.display()
                        ))
                    })?;
                    get_screen_data().export_png(&path.display().to_string());
                    println!(
                        "screenshot: {} ({} frames, {} bodies)",
                        path.display(),
                        frame,
                        sandbox.world.body_count()
                    );
                }
                if options.stress {
                    match view.stress.outcome {
                        Some(o) => println!("stress: finished with {} bodies", o.bodies),
                        None => println!(
                            "stress: still running after {frame} frames with {} bodies",
                            sandbox.world.body_count()
                        ),
                    }
                }
                return Ok(());
            }
        }
        next_frame().await;
    }
}

/// Space play/pause, N step, R reset, F frame, Delete delete, Escape deselect.
fn handle_keys(sandbox: &mut Sandbox, view: &mut View, egui_wants: bool) {
    if egui_wants {
        return;
    }
    if is_key_pressed(KeyCode::Space) {
        sandbox.playing = !sandbox.playing;
    }
    if is_key_pressed(KeyCode::N) {
        sandbox.playing = false;
        sandbox.step_once();
    }
    if is_key_pressed(KeyCode::R) {
        sandbox.reset();
    }
    if is_key_pressed(KeyCode::F) {
        view.frame_request = true;
    }
    if is_key_pressed(KeyCode::Delete) || is_key_pressed(KeyCode::Backspace) {
        sandbox.delete_selected();
    }
    if is_key_pressed(KeyCode::Escape) {
        sandbox.selected = None;
    }
}

/// Orbit, pan, zoom, click to select, Ctrl-drag or right-drag to hold a body.
fn handle_mouse(
    sandbox: &mut Sandbox,
    view: &mut View,
    press: &mut Press,
    last: &mut Vec2,
    egui_wants: bool,
) {
    let mouse = Vec2::from(mouse_position());
    let delta = mouse - *last;
    *last = mouse;
    let any_down = is_mouse_button_down(MouseButton::Left)
        || is_mouse_button_down(MouseButton::Right)
        || is_mouse_button_down(MouseButton::Middle);

    // Decide what a new press does, once, when it starts.
    let pressed_left = is_mouse_button_pressed(MouseButton::Left);
    let pressed_right = is_mouse_button_pressed(MouseButton::Right);
    let pressed_middle = is_mouse_button_pressed(MouseButton::Middle);
    if *press == Press::None && (pressed_left || pressed_right || pressed_middle) {
        let shift = is_key_down(KeyCode::LeftShift) || is_key_down(KeyCode::RightShift);
        let ctrl = is_key_down(KeyCode::LeftControl) || is_key_down(KeyCode::RightControl);
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

    let wheel = mouse_wheel().1;
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
    sandbox.selected = Some(hit.body);
    sandbox.world.wake_body(hit.body);
    true
}

/// Selects the body under the cursor (or nothing), remembers the point for spawning.
fn pick(sandbox: &mut Sandbox, view: &mut View, mouse: Vec2) {
    let (origin, dir) = view.camera.ray(mouse);
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

/// Points the camera at the selection, or at every body that is not a plane.
fn frame_view(sandbox: &Sandbox, camera: &mut OrbitCamera) {
    let bodies: Vec<_> = match sandbox.selected {
        Some(h) => vec![h],
        None => sandbox.world.bodies().map(|(h, _)| h).collect(),
    };
    let bounds = bodies
        .iter()
        .flat_map(|&h| sandbox.world.body_colliders(h))
        .filter_map(|c| sandbox.world.collider(c))
        .filter(|c| !matches!(c.shape(), Shape::Plane { .. }))
        .map(|c| c.aabb())
        .reduce(|a, b| a.union(&b));
    if let Some(b) = bounds {
        camera.frame(&b);
    }
}

/// Colour of island `id` (a golden-angle hue walk).
fn island_color(id: u32) -> [f32; 3] {
    let h = (id as f32 * 0.618_034).fract();
    let c = macroquad::color::hsl_to_rgb(h, 0.65, 0.55);
    [c.r, c.g, c.b]
}

/// Draws bodies, the ground and the debug layers.
fn draw_world(sandbox: &Sandbox, view: &View, renderer: &mut Renderer) {
    let world = &sandbox.world;
    let layers = view.layers;
    let touching: HashSet<u32> = if layers.touching {
        world
            .contacts()
            .filter(|c| c.is_touching() && c.points().iter().any(|p| p.depth >= 0.0))
            .flat_map(|c| [c.collider_a(), c.collider_b()])
            .collect()
    } else {
        HashSet::new()
    };

    renderer.begin();
    for (handle, body) in world.bodies() {
        let mut rgb = sandbox.body_color(handle);
        // A slight per-body shade so bodies sharing a colour (a stack, a pyramid) read as
        // separate blocks.
        let shade =
            0.88 + 0.24 * ((handle.index().wrapping_mul(2_654_435_761) >> 24) as f32 / 255.0);
        rgb = rgb.map(|c| (c * shade).min(1.0));
        if layers.islands {
            if let Some(island) = body
                .island()
                .filter(|_| body.body_type() == BodyType::Dynamic)
            {
                rgb = island_color(island);
            }
        }
        if body.body_type() == BodyType::Dynamic && !body.is_awake() {
            // Sleeping: dimmed towards grey.
            rgb = rgb.map(|c| c * 0.7 + 0.08);
        }
        if sandbox.selected == Some(handle) {
            rgb = rgb.map(|c| (c * 1.25 + 0.08).min(1.0));
        }
        for ch in world.body_colliders(handle) {
            let Some(collider) = world.collider(ch) else {
                continue;
            };
            let mut color = rgb;
            // Static bodies (floors, walls) touch everything; tinting them would hide the rest.
            if touching.contains(&ch.index()) && body.body_type() != BodyType::Static {
                color = [0.95, 0.15, 0.12];
            }
            let rgba = [
                (color[0] * 255.0) as u8,
                (color[1] * 255.0) as u8,
                (color[2] * 255.0) as u8,
                255,
            ];
            match collider.shape() {
                Shape::Plane { normal } => renderer.ground(
                    &collider.world_pose(),
                    *normal,
                    GROUND_HALF_SIZE,
                    [118, 116, 110, 255],
                ),
                shape => renderer.shape(shape, &collider.world_pose(), rgba),
            }
        }
    }
    renderer.end();

    // Ground grid on horizontal planes (drawn just above to avoid z-fighting).
    for (_, c) in world.colliders() {
        if let Shape::Plane { normal } = c.shape() {
            let n = c.world_pose().rotation * *normal;
            if n.y > 0.999 {
                let y = c.world_pose().translation.y + 0.002;
                draw_ground_grid(y);
            }
        }
    }

    if layers.colliders {
        for (_, c) in world.colliders() {
            debug_draw::wireframe(c.shape(), &c.world_pose(), Color::new(0.1, 0.1, 0.12, 0.9));
        }
    }
    if layers.aabbs {
        for (_, c) in world.colliders() {
            if !matches!(c.shape(), Shape::Plane { .. }) {
                debug_draw::aabb(&c.aabb(), Color::new(0.2, 0.8, 0.3, 0.8));
            }
        }
    }
    if layers.tree {
        let mut nodes = Vec::new();
        world.broad_phase_nodes(&mut nodes);
        debug_draw::tree(&nodes);
    }
    if layers.contacts {
        debug_draw::contacts(world);
    }
    if layers.velocities || layers.centers {
        for (_, b) in world
            .bodies()
            .filter(|(_, b)| b.body_type() != BodyType::Static)
        {
            let c = b.center_of_mass();
            if layers.velocities {
                debug_draw::arrow(
                    c,
                    c + b.linear_velocity() * 0.25,
                    Color::new(0.1, 0.85, 0.95, 1.0),
                );
                debug_draw::arrow(
                    c,
                    c + b.angular_velocity() * 0.15,
                    Color::new(0.9, 0.2, 0.85, 1.0),
                );
            }
            if layers.centers {
                debug_draw::cross(c, 0.15, Color::new(0.05, 0.05, 0.05, 1.0));
            }
        }
    }
    if let Some(selected) = sandbox.selected {
        for ch in world.body_colliders(selected) {
            if let Some(c) = world.collider(ch) {
                debug_draw::wireframe(c.shape(), &c.world_pose(), Color::new(1.0, 0.85, 0.1, 1.0));
            }
        }
    }
    if let Some(grab) = sandbox.grab {
        if let Some(b) = world.body(grab.body) {
            let p = b.position() + b.rotation() * grab.local_point;
            draw_line_3d(p, grab.target, WHITE);
            debug_draw::cross(grab.target, 0.08, WHITE);
        }
    }
    if let Some(p) = view.click_point {
        debug_draw::cross(p, 0.12, Color::new(1.0, 1.0, 1.0, 0.6));
    }
}

/// A 1 m grid with brighter lines every 5 m, 40 m across, at height `y`.
fn draw_ground_grid(y: f32) {
    let half = 20;
    for i in -half..=half {
        let major = i % 5 == 0;
        let color = if major {
            Color::new(0.30, 0.30, 0.30, 0.9)
        } else {
            Color::new(0.42, 0.42, 0.41, 0.7)
        };
        let f = i as f32;
        let h = half as f32;
        draw_line_3d(Vec3::new(f, y, -h), Vec3::new(f, y, h), color);
        draw_line_3d(Vec3::new(-h, y, f), Vec3::new(h, y, f), color);
    }
}
