//! The sandbox window (macroquad + egui): the only code that imports them.
//!
//! Each frame: the egui panels, mouse and keyboard (ignored where egui wants them), then
//! physics (fixed steps from an accumulator, or exactly one step per frame in a scripted
//! `--frames` run), then the 3D view and debug layers, then egui on top. Input comes before
//! physics so that a click is judged against the bodies as the last frame drew them.

mod camera;
mod controls;
mod debug_draw;
mod events;
mod grab;
mod input;
mod joining;
mod player;
mod plots;
mod record;
mod render;
mod sandbox;
mod stress;
mod timeline;
mod ui;
#[cfg(target_arch = "wasm32")]
mod web;
mod world_draw;

use crate::physics::clock::Instant;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use macroquad::prelude::*;

use crate::headless::CliError;
use camera::OrbitCamera;
use controls::Press;
use debug_draw::Layers;
use input::{Input, Script};
use render::Renderer;
use sandbox::Sandbox;
use stress::StressTest;

/// At most this many fixed steps per frame: a slow frame drops time instead of spiralling.
const MAX_STEPS_PER_FRAME: u32 = 4;
/// Steps of step-time history in the stats plot (10 s at 60 Hz).
const HISTORY_STEPS: usize = 600;
/// How often the open scene file is checked for changes, s.
const RELOAD_INTERVAL: f32 = 0.5;

/// What the command line asked of the window.
#[derive(Clone, Debug, Default)]
pub struct AppOptions {
    /// The scene to open (the default scene if none).
    pub scene: Option<PathBuf>,
    /// Run this many frames (one fixed step each), then exit.
    pub frames: Option<u64>,
    /// Save a screenshot after the last frame.
    pub screenshot: Option<PathBuf>,
    /// Record the 3D view of every frame as an animated GIF here.
    pub record: Option<PathBuf>,
    /// Debug layers to turn on.
    pub draw: Vec<String>,
    /// Start the stress test at once.
    pub stress: bool,
    /// Drive the window from this input script instead of the mouse and keyboard.
    pub script: Option<PathBuf>,
    /// Write the world's and the window's state as JSON here after the last frame.
    pub dump_state: Option<PathBuf>,
    /// Window size in pixels (default 1400 × 860).
    pub size: Option<(u32, u32)>,
    /// Start with the soft contact shadows off.
    pub no_shadows: bool,
    /// Multisample anti-aliasing samples per pixel: 1, 2, 4 or 8 (default
    /// [`DEFAULT_MSAA_SAMPLES`]).
    pub msaa: Option<u32>,
}

/// Multisample anti-aliasing samples per pixel unless `--msaa` says otherwise.
pub const DEFAULT_MSAA_SAMPLES: u32 = 4;

/// The checked options.
struct Checked {
    options: AppOptions,
    layers: Layers,
    script: Option<Script>,
}

/// A folder that must exist for an output file.
fn check_output(path: &std::path::Path, what: &str) -> Result<(), String> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    match dir {
        Some(dir) if !dir.is_dir() => Err(format!(
            "{}: the folder for the {what} does not exist",
            path.display()
        )),
        _ => Ok(()),
    }
}

impl AppOptions {
    /// Checks the options (layer names, output folders, the script) before opening a window.
    fn check(self) -> Result<Checked, String> {
        let layers = Layers::parse(&self.draw)?;
        if let Some(path) = &self.screenshot {
            check_output(path, "screenshot")?;
        }
        if let Some(path) = &self.dump_state {
            check_output(path, "state dump")?;
        }
        if let Some(path) = &self.record {
            check_output(path, "recording")?;
        }
        if let Some((w, h)) = self.size {
            if !(200..=8192).contains(&w) || !(200..=8192).contains(&h) {
                return Err(format!(
                    "--size: width and height must be between 200 and 8192 pixels, got {w}x{h}"
                ));
            }
        }
        if let Some(samples) = self.msaa {
            if ![1, 2, 4, 8].contains(&samples) {
                return Err(format!(
                    "--msaa: samples per pixel must be 1 (off), 2, 4 or 8, got {samples}"
                ));
            }
        }
        if self.script.is_some() && self.frames.is_none() {
            return Err("--script needs --frames (how long to run the window)".into());
        }
        let script = self.script.as_deref().map(Script::load).transpose()?;
        Ok(Checked {
            options: self,
            layers,
            script,
        })
    }
}

/// Window settings: size, MSAA samples (checked), large batches for thousands of bodies.
fn window_conf(size: Option<(u32, u32)>, msaa: Option<u32>) -> macroquad::conf::Conf {
    let (width, height) = size.unwrap_or((1400, 860));
    let samples = msaa.unwrap_or(DEFAULT_MSAA_SAMPLES);
    macroquad::conf::Conf {
        miniquad_conf: macroquad::miniquad::conf::Conf {
            window_title: "Impulse".to_string(),
            window_width: width as i32,
            window_height: height as i32,
            high_dpi: false,
            sample_count: samples as i32,
            ..Default::default()
        },
        draw_call_vertex_capacity: 60_000,
        draw_call_index_capacity: 90_000,
        ..Default::default()
    }
}

/// Opens the window and runs until it is closed (or `--frames` are done).
pub fn run(options: AppOptions) -> Result<(), CliError> {
    let checked = options.check().map_err(CliError::BadInput)?;
    // Load before opening the window: a bad scene on the command line is a usage error.
    let (scene, source, text) = sandbox::load_initial(checked.options.scene.as_deref())
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let sandbox = Sandbox::new(scene, source, text);
    let result: Arc<Mutex<Result<(), CliError>>> = Arc::new(Mutex::new(Ok(())));
    let slot = Arc::clone(&result);
    let conf = window_conf(checked.options.size, checked.options.msaa);
    macroquad::Window::from_config(conf, async move {
        let outcome = main_loop(checked, sandbox).await;
        if let Ok(mut r) = slot.lock() {
            *r = outcome;
        }
    });
    let mut guard = result
        .lock()
        .map_err(|_| CliError::Internal("the window thread failed".into()))?;
    std::mem::replace(&mut *guard, Ok(()))
}

/// Opens the sandbox in a browser page (wasm32): on the shipped scene `?scene=NAME` in
/// the page's address names, else on the last scene edited in this browser, else on the
/// default scene; one thread, no command line.
#[cfg(target_arch = "wasm32")]
pub fn run_web() {
    web::install();
    let named = web::scene_parameter().map(|name| {
        let path = ["scenes", "scenes/bench"]
            .iter()
            .map(|dir| PathBuf::from(format!("{dir}/{name}.ron")))
            .find(|p| crate::scene::shipped::shipped_text(p).is_some());
        (name, path)
    });
    let mut notice = None;
    let loaded = match named {
        Some((_, Some(path))) => sandbox::load_initial(Some(&path)),
        Some((name, None)) => {
            notice = Some(format!("?scene={name}: no shipped scene has that name"));
            sandbox::load_initial(None)
        }
        None => match web::last_scene() {
            Some((name, text)) => match crate::scene::load_str(&text, &name) {
                Ok(scene) => Ok((scene, sandbox::Source::File(PathBuf::from(&name)), text)),
                Err(_) => sandbox::load_initial(None),
            },
            None => sandbox::load_initial(None),
        },
    };
    let (scene, source, text) = match loaded {
        Ok(l) => l,
        Err(e) => {
            web::console_error(&e.to_string());
            return;
        }
    };
    let mut sandbox = Sandbox::new(scene, source, text);
    sandbox.error = notice;
    let checked = match (AppOptions::default()).check() {
        Ok(c) => c,
        Err(e) => {
            web::console_error(&e);
            return;
        }
    };
    let conf = window_conf(None, None);
    macroquad::Window::from_config(conf, async move {
        if let Err(e) = main_loop(checked, sandbox).await {
            web::console_error(&e.to_string());
        }
    });
}

/// The page's part of a frame in a browser: a file picked with Open file… loads, the page
/// hears how many steps the world took, and an edited world is kept in local storage (at
/// most once a second).
#[cfg(target_arch = "wasm32")]
fn web_frame(sandbox: &mut Sandbox, view: &View, kept: &mut (u64, f64)) {
    if let Some((name, text)) = web::take_upload() {
        sandbox.load_text(std::path::Path::new(&name), text);
    }
    let per_step = view.stats.history.back().map_or(0.0, |h| h[1] as f32);
    web::report(
        sandbox.world.step_count(),
        !sandbox.playing,
        [view.stats.frame_time * 1000.0, view.stats.cpu_ms, per_step],
        sandbox.world.body_count(),
    );
    let now = web::now();
    if sandbox.edits != kept.0 && now - kept.1 > 1.0 {
        // A scene as loaded is kept as its own text (Reset goes back to it as shipped), an
        // edited one as the world is now; the name is the path the scene list knows.
        let name = match &sandbox.source {
            sandbox::Source::Default => "scenes/default.ron".to_string(),
            sandbox::Source::File(p) => p.display().to_string(),
        };
        let text = if sandbox.edits == sandbox.loaded_edits {
            Ok(sandbox.source_text.clone())
        } else {
            sandbox.scene_text(&view.camera.to_desc())
        };
        if let Ok(text) = text {
            web::store_last_scene(&name, &text);
        }
        *kept = (sandbox.edits, now);
    }
}

/// Timing history for the stats panel.
#[derive(Default)]
pub struct Stats {
    /// (step, physics ms per step) for the plot.
    pub history: VecDeque<[f64; 2]>,
    /// Smoothed frame time, s.
    pub frame_time: f32,
    /// Physics ms in the last frame.
    pub physics_ms: f32,
    /// The last frame's own work on the CPU, ms: input, panels, physics, drawing calls
    /// (not the wait for the display; in a browser, what a faster GPU cannot shorten).
    pub cpu_ms: f32,
    /// Steps in the last frame.
    pub steps: u32,
    /// Triangles drawn in the last frame.
    pub triangles: usize,
    /// CPU time of drawing the world in the last frame (instances built and submitted,
    /// debug layers), ms.
    pub render_ms: f32,
    /// Of which building the instance lists, ms.
    pub render_build_ms: f32,
    /// Sums over the frames after the first `WARMUP_FRAMES`, for the means a `--frames`
    /// run reports: (frames, frame ms, render ms, build ms).
    pub sums: (u32, f64, f64, f64),
}

/// Frames left out of the means a `--frames` run reports (start-up, first uploads).
const WARMUP_FRAMES: u64 = 10;

impl Stats {
    /// Records the world's drawing time of frame number `frame`.
    fn record_render(&mut self, frame: u64, frame_dt: f32, render_ms: f32, build_ms: f32) {
        self.render_ms = render_ms;
        self.render_build_ms = build_ms;
        if frame >= WARMUP_FRAMES {
            let s = &mut self.sums;
            *s = (
                s.0 + 1,
                s.1 + frame_dt as f64 * 1000.0,
                s.2 + render_ms as f64,
                s.3 + build_ms as f64,
            );
        }
    }

    /// Mean frame, render and build ms over the frames after the warm-up (0 before any).
    pub fn means(&self) -> [f64; 3] {
        let (n, frame, render, build) = self.sums;
        let n = (n as f64).max(1.0);
        [frame / n, render / n, build / n]
    }
}

impl Stats {
    /// Records a frame: its time, and the physics time per step against the step count (so
    /// the plot keeps its history while paused).
    fn record(&mut self, step: u64, frame_dt: f32, physics_ms: f32, steps: u32) {
        self.frame_time = if self.frame_time == 0.0 {
            frame_dt
        } else {
            self.frame_time * 0.9 + frame_dt * 0.1
        };
        self.physics_ms = physics_ms;
        self.steps = steps;
        if steps > 0 {
            // A reset starts the count again: start the plot again too.
            if self.history.back().is_some_and(|h| h[0] >= step as f64) {
                self.history.clear();
            }
            self.history
                .push_back([step as f64, physics_ms as f64 / steps as f64]);
        }
        while self.history.len() > HISTORY_STEPS {
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
    /// Soft contact shadows under the moving bodies.
    pub shadows: bool,
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
    /// How far the left panel is scrolled, points.
    pub panel_scroll: f32,
    /// Save as found this file already there: replace it?
    pub confirm_overwrite: Option<PathBuf>,
    /// Which side panels show (Tab, their collapse buttons).
    pub layout: ui::PanelLayout,
    /// The help window is open (F1, the `?` button).
    pub help: bool,
    /// The scene browser's groups.
    pub browser: ui::SceneBrowser,
    /// Where the held body's target was lately: (simulated time, point), oldest first.
    pub grab_trail: Vec<(f64, Vec3)>,
    /// The file dialog of Open… and Save as….
    #[cfg(not(target_arch = "wasm32"))]
    pub files: ui::FileBrowser,
    /// The body the camera follows, and where it was when the camera last moved with it.
    pub follow: Option<(crate::physics::BodyHandle, Vec3)>,
    /// The debug layers show the selected body's part only (when a body is selected).
    pub selected_only: bool,
    /// The broad-phase layer's deepest level drawn (0: the root).
    pub tree_depth: u32,
    /// The values picked to plot (right click in the Object panel).
    pub plots: plots::Plots,
    /// The world's energy and momentum, plotted in Stats.
    pub world_plots: plots::Plots,
    /// The timeline's Record: the recording being made while the history replays.
    pub recording: Option<record::Recording>,
    /// A recording being written on its own thread: its path and the outcome to come.
    pub writing: Option<(PathBuf, Writing)>,
}

/// A recording being written on its own thread: how many pictures and bytes, or why not.
pub type Writing = std::thread::JoinHandle<Result<(usize, u64), String>>;

/// The world's series in Stats: energy, then momentum.
fn world_plots() -> plots::Plots {
    use plots::Quantity::*;
    let mut p = plots::Plots::default();
    for (q, label) in [
        (WorldKinetic, "kinetic"),
        (WorldPotential, "potential"),
        (WorldTotal, "kinetic + potential"),
        (LinearMomentum, "linear momentum"),
        (AngularMomentum, "angular momentum"),
    ] {
        p.add(q, label.to_string());
    }
    p
}

/// How deep the broad-phase layer draws at first: 127 nodes of a tree at most, which still
/// read as boxes in a pile of a thousand bodies.
pub const DEFAULT_TREE_DEPTH: u32 = 6;

async fn main_loop(checked: Checked, mut sandbox: Sandbox) -> Result<(), CliError> {
    let Checked {
        options,
        layers,
        script,
    } = checked;
    let mut renderer = Renderer::new().map_err(CliError::Internal)?;
    let mut input = Input::new(script);
    let mut view = View {
        camera: OrbitCamera::from_desc(&sandbox.scene_camera),
        layers,
        shadows: !options.no_shadows,
        stress: StressTest::default(),
        stats: Stats::default(),
        click_point: None,
        load_path: String::new(),
        save_path: String::new(),
        scale_factor: 1.0,
        frame_request: false,
        panel_scroll: 0.0,
        confirm_overwrite: None,
        layout: ui::PanelLayout::default(),
        help: false,
        browser: ui::SceneBrowser::default(),
        grab_trail: Vec::new(),
        #[cfg(not(target_arch = "wasm32"))]
        files: ui::FileBrowser::default(),
        follow: None,
        selected_only: false,
        tree_depth: DEFAULT_TREE_DEPTH,
        plots: plots::Plots::default(),
        world_plots: world_plots(),
        recording: None,
        writing: None,
    };
    // `--record`: every frame of the run, written when it ends.
    let mut cli_recording = options
        .record
        .clone()
        .map(|path| record::Recording::new(path, sandbox.timestep, u64::MAX));
    if options.stress {
        view.stress.start();
    }
    let scripted = options.frames.is_some();
    let mut press = Press::None;
    let mut last_mouse = Vec2::ZERO;
    let mut reload_timer = 0.0f32;
    let mut frame = 0u64;
    let mut camera_source = None;
    // The edit count and time of the scene last kept in the browser's local storage.
    #[cfg(target_arch = "wasm32")]
    let mut web_kept = (sandbox.edits, 0.0);

    loop {
        let frame_start = Instant::now();
        let frame_dt = get_frame_time();
        input.begin_frame(frame);

        // Hot reload.
        reload_timer += frame_dt;
        if reload_timer >= RELOAD_INTERVAL {
            reload_timer = 0.0;
            sandbox.hot_reload();
        }
        // A planar world is seen from the front, orthographic (switched with the setting).
        let planar = sandbox.world.settings().planar;
        if planar != view.camera.orthographic {
            view.camera.set_orthographic(planar);
        }
        // A different scene brings its own camera (or is framed to fit when it has none); a
        // reload of the same file keeps the view.
        if camera_source.as_ref() != Some(&sandbox.source) {
            camera_source = Some(sandbox.source.clone());
            let (viewport, bottom) = (view.camera.viewport, view.camera.bottom);
            view.camera = OrbitCamera::from_desc(&sandbox.scene_camera);
            view.camera.viewport = viewport;
            view.camera.bottom = bottom;
            view.camera.floor = controls::scene_floor(&sandbox.world);
            view.camera.keep_above_floor();
            view.click_point = None;
            view.follow = None;
            // The plots start again with the new scene (its handles are other bodies).
            view.stats.history.clear();
            view.plots.clear();
            view.world_plots = world_plots();
            view.save_path.clear();
            if !sandbox.scene_camera_given {
                view.frame_request = true;
            }
        }

        // Panels first, so input knows what egui wants.
        let mut wants_pointer = false;
        let mut wants_keyboard = false;
        input.ui(|ctx| {
            ui::panels(ctx, &mut sandbox, &mut view);
            wants_pointer = ctx.wants_pointer_input() || ctx.is_pointer_over_area();
            wants_keyboard = ctx.wants_keyboard_input();
        });

        // While the timeline is recorded the replay is left alone.
        let replaying = view.recording.is_some();
        controls::handle_keys(
            &input.state,
            &mut sandbox,
            &mut view,
            wants_keyboard || replaying,
        );
        controls::handle_mouse(
            &input.state,
            &mut sandbox,
            &mut view,
            &mut press,
            &mut last_mouse,
            wants_pointer || replaying,
        );
        sandbox.commit_edits();
        if view.frame_request {
            view.frame_request = false;
            controls::frame_view(&sandbox, &mut view.camera);
        }

        // Physics after the input: a click picks among the bodies where the last frame
        // drew them, where the user saw them.
        // (The stress test changes the world every frame: no history meanwhile.)
        sandbox.set_recording(!view.stress.running());
        let t = Instant::now();
        let steps = if let Some(recording) = &view.recording {
            // One step of the replay a frame, however long the frame took.
            if sandbox.world.step_count() < recording.end {
                sandbox.step_once();
                1
            } else {
                0
            }
        } else if scripted {
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
            sandbox.world.step_count(),
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

        // The plotted values at this step (a rewound step is written over; samples past a
        // branch point go).
        let head = sandbox.timeline.head().max(sandbox.world.step_count());
        view.plots.sample(&sandbox.world, head);
        view.world_plots.sample(&sandbox.world, head);

        // The camera moves with the followed body (gone: it stops following).
        if let Some((body, last)) = view.follow {
            match sandbox.world.body(body) {
                Some(b) => {
                    view.camera.target += b.position() - last;
                    view.follow = Some((body, b.position()));
                }
                None => view.follow = None,
            }
        }

        // The 3D view.
        clear_background(Color::new(0.70, 0.78, 0.88, 1.0));
        set_camera(&view.camera.camera3d());
        let drawing = Instant::now();
        world_draw::draw_world(&sandbox, &view, &mut renderer);
        let render_ms = drawing.elapsed().as_secs_f32() * 1000.0;
        view.stats.triangles = renderer.triangles;
        view.stats
            .record_render(frame, frame_dt, render_ms, renderer.build_ms);
        set_default_camera();
        if view.layers.tree {
            world_draw::draw_node_counts(&sandbox.world, &view.camera.camera3d());
        }
        // Recordings take the view as drawn so far: the world and its layers, no panels.
        let viewport = view.camera.camera3d().viewport.unwrap_or_default();
        let step = sandbox.world.step_count();
        if let Some(recording) = cli_recording.as_mut() {
            recording.capture(step, viewport);
        }
        if let Some(recording) = view.recording.as_mut() {
            recording.capture(step, viewport);
            if step >= recording.end {
                finish_recording(&mut view, &mut sandbox);
            }
        }
        poll_writing(&mut view, &mut sandbox);
        input.draw_ui();
        view.stats.cpu_ms = frame_start.elapsed().as_secs_f32() * 1000.0;
        #[cfg(target_arch = "wasm32")]
        web_frame(&mut sandbox, &view, &mut web_kept);

        frame += 1;
        if frame.is_multiple_of(600) {
            renderer.prune();
        }
        if let Some(total) = options.frames {
            if frame >= total {
                finish(&options, &sandbox, &view, frame)?;
                if let Some(recording) = cli_recording.take() {
                    let path = recording.path.clone();
                    let (pictures, bytes) = recording.write().map_err(CliError::Internal)?;
                    println!(
                        "recorded {} ({pictures} pictures, {:.1} MB)",
                        path.display(),
                        bytes as f64 / 1.0e6
                    );
                }
                if let Some((_, writing)) = view.writing.take() {
                    // The GIF of a Record running in a scripted run is written before the window closes.
                    let _ = writing.join();
                }
                return Ok(());
            }
        }
        next_frame().await;
    }
}

/// Ends the timeline's recording: its pictures are written on a thread of their own (the
/// palette of each takes a while), the window goes on.
pub fn finish_recording(view: &mut View, sandbox: &mut Sandbox) {
    let Some(recording) = view.recording.take() else {
        return;
    };
    let path = recording.path.clone();
    sandbox.notify(format!(
        "writing {} ({} pictures)…",
        path.display(),
        recording.frames()
    ));
    view.writing = Some((path, std::thread::spawn(move || recording.write())));
}

/// Says how the writing of a recording ended, once it has.
fn poll_writing(view: &mut View, sandbox: &mut Sandbox) {
    if !view.writing.as_ref().is_some_and(|(_, w)| w.is_finished()) {
        return;
    }
    let Some((path, writing)) = view.writing.take() else {
        return;
    };
    match writing.join() {
        Ok(Ok((pictures, bytes))) => sandbox.notify(format!(
            "recorded {} ({pictures} pictures, {:.1} MB)",
            path.display(),
            bytes as f64 / 1.0e6
        )),
        Ok(Err(e)) => sandbox.error = Some(e),
        Err(_) => sandbox.error = Some(format!("{}: the recording failed", path.display())),
    }
}

/// The end of a `--frames` run: the screenshot, the state dump, the stress result.
fn finish(
    options: &AppOptions,
    sandbox: &Sandbox,
    view: &View,
    frame: u64,
) -> Result<(), CliError> {
    if let Some(path) = &options.screenshot {
        // export_png panics on I/O errors: check we can write the file first.
        std::fs::write(path, b"").map_err(|e| {
            CliError::Internal(format!(
                "{}: cannot write the screenshot: {e}",
                path.display()
            ))
        })?;
        get_screen_data().export_png(&path.display().to_string());
        let [frame_ms, render_ms, build_ms] = view.stats.means();
        println!(
            "screenshot: {} ({} frames, {} bodies; mean frame {frame_ms:.1} ms, drawing the world {render_ms:.2} ms CPU of which building instances {build_ms:.2} ms)",
            path.display(),
            frame,
            sandbox.world.body_count()
        );
    }
    if let Some(path) = &options.dump_state {
        let camera = &view.camera;
        let state = serde_json::json!({
            "frames": frame,
            "world": crate::headless::state_value(&sandbox.world, &sandbox.meta),
            "playing": sandbox.playing,
            "source": sandbox.source.label(),
            "error": sandbox.error,
            "selected": sandbox.selected.map(|h| sandbox.body_name(h)),
            "grabbing": sandbox.grab.is_some(),
            "joints": sandbox.world.joints().map(|(h, j)| {
                let def = j.def();
                serde_json::json!({
                    "kind": joining::kind_label(&def.kind),
                    "a": sandbox.body_name(def.body_a),
                    "b": def.body_b.map(|b| sandbox.body_name(b)),
                    "anchors": sandbox.world.joint_anchors(h).map(|(a, b)| [a.to_array(), b.to_array()]),
                })
            }).collect::<Vec<_>>(),
            "panel_scroll": view.panel_scroll,
            "view": [
                camera.viewport[0],
                0.0,
                camera.viewport[1],
                camera.viewport[2],
            ],
            "panels": {
                "left": view.layout.shown().0,
                "right": view.layout.shown().1,
            },
            "help": view.help,
            "following": view.follow.map(|(h, _)| sandbox.body_name(h)),
            "undo": sandbox.undo_depth().0,
            "redo": sandbox.undo_depth().1,
            "plots": view.plots.series.iter().map(|s| serde_json::json!({
                "label": s.label,
                "samples": s.points.len(),
                "last": s.points.last_key_value().map(|(_, v)| *v),
            })).collect::<Vec<_>>(),
            "widgets": ui::marked_widgets()
                .into_iter()
                .map(|(name, rect)| (name.to_string(), serde_json::json!(rect)))
                .collect::<serde_json::Map<_, _>>(),
            "frame_ms": view.stats.means()[0],
            "render_cpu_ms": view.stats.means()[1],
            "render_build_ms": view.stats.means()[2],
            "timeline": {
                "oldest": sandbox.timeline.oldest(),
                "head": sandbox.timeline.head(),
                "bytes": sandbox.timeline.bytes(),
            },
            "camera": {
                "eye": camera.eye().to_array(),
                "target": camera.target.to_array(),
                "pitch_deg": camera.pitch.to_degrees(),
                "distance": camera.distance,
            },
        });
        std::fs::write(path, state.to_string()).map_err(|e| {
            CliError::Internal(format!("{}: cannot write the state: {e}", path.display()))
        })?;
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
    Ok(())
}
