//! The sandbox's state and actions, apart from drawing: the loaded scene, simulation
//! control, selection, dragging and the timeline here; scene files (`files.rs`), spawning
//! (`spawn.rs`) and edits with their undo (`edits.rs`) beside it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use crate::physics::clock::Instant;

use macroquad::prelude::*;

use super::grab::{self, Grab};
use super::timeline::Timeline;
use crate::physics::shape::{check_size, ConvexHull, HullError};
use crate::physics::{
    BodyDef, BodyError, BodyHandle, BodyType, ColliderDef, CollisionFilter, Isometry, Quat, Shape,
    World, WorldSettings,
};
use crate::scene::schema::{CameraDesc, Color as SceneColor};
use crate::scene::{self, save, BodyMeta, Scene, SceneError};

mod edits;
mod files;
mod spawn;

use edits::Snapshot;
use files::modified;
pub use files::{load_initial, Source};
pub use spawn::{SpawnSettings, SpawnShape};

/// A pleasant palette for bodies without a colour.
const PALETTE: [[f32; 3]; 10] = [
    [0.91, 0.45, 0.36],
    [0.36, 0.60, 0.88],
    [0.98, 0.75, 0.30],
    [0.45, 0.78, 0.50],
    [0.70, 0.50, 0.85],
    [0.30, 0.75, 0.78],
    [0.95, 0.58, 0.70],
    [0.60, 0.70, 0.35],
    [0.85, 0.62, 0.40],
    [0.50, 0.55, 0.80],
];

/// The sandbox.
pub struct Sandbox {
    /// Where the scene came from.
    pub source: Source,
    /// The scene text last loaded successfully (Reset rebuilds from it).
    pub source_text: String,
    /// The world.
    pub world: World,
    /// Names and colours.
    pub meta: BTreeMap<BodyHandle, BodyMeta>,
    /// Fixed step, s.
    pub timestep: f32,
    /// The scene file's camera.
    pub scene_camera: CameraDesc,
    /// Did the scene file give that camera?
    pub scene_camera_given: bool,
    /// Running?
    pub playing: bool,
    /// Simulated seconds per real second.
    pub time_scale: f32,
    /// Unsimulated real time, s.
    pub accumulator: f32,
    /// Selected body.
    pub selected: Option<BodyHandle>,
    /// Body held by the mouse.
    pub grab: Option<Grab>,
    /// Where the keys ask the player to walk (unit or zero; see `player.rs`).
    pub drive: Vec3,
    /// Spawn panel settings.
    pub spawn: SpawnSettings,
    /// The last load or save problem (shown in the panel until dismissed).
    pub error: Option<String>,
    /// The last thing that went well, and when (shown for a few seconds).
    pub notice: Option<(String, Instant)>,
    /// Modification time of the watched file when last read.
    watched_mtime: Option<SystemTime>,
    /// Bodies spawned so far (for names).
    spawned: usize,
    /// The recent history, for rewinding (see `timeline.rs`).
    pub timeline: Timeline,
    /// The last contact and sensor events (see `events.rs`).
    pub events: super::events::EventLog,
    /// Edited since the timeline last heard of it (see [`Sandbox::commit_edits`]).
    edited: bool,
    /// Edits and scene loads so far: a change means the world differs from what was last
    /// kept (the web build keeps it in the page's local storage).
    pub edits: u64,
    /// [`Sandbox::edits`] when the scene was loaded: equal while the world is the scene as
    /// loaded, give or take its steps.
    pub loaded_edits: u64,
    /// The joint the panel's Join button makes.
    pub joint_tool: super::joining::JointTool,
    /// The body waiting for a click on the body to join it to.
    pub joining: Option<BodyHandle>,
    /// The states before each edit made while paused since the last step, oldest first.
    undo: Vec<Snapshot>,
    /// The states undone, for redo, most recent last.
    undone: Vec<Snapshot>,
    /// The last frame had an edit: one in this frame continues the same gesture.
    edit_gesture: bool,
    /// `before_edit` kept a state this frame, to be confirmed by an edit at the commit.
    undo_pending: bool,
}

impl Sandbox {
    /// A sandbox on a loaded scene.
    pub fn new(scene: Scene, source: Source, text: String) -> Self {
        let watched_mtime = match &source {
            Source::File(p) => modified(p),
            Source::Default => None,
        };
        let timeline = Timeline::new(&scene.world, &scene.meta, scene.timestep);
        Self {
            source,
            source_text: text,
            world: scene.world,
            meta: scene.meta,
            timestep: scene.timestep,
            scene_camera: scene.camera,
            scene_camera_given: scene.camera_given,
            playing: true,
            time_scale: 1.0,
            accumulator: 0.0,
            selected: None,
            grab: None,
            drive: Vec3::ZERO,
            spawn: SpawnSettings::default(),
            error: None,
            notice: None,
            watched_mtime,
            spawned: 0,
            timeline,
            events: super::events::EventLog::default(),
            edited: false,
            edits: 0,
            loaded_edits: 0,
            joint_tool: super::joining::JointTool::default(),
            joining: None,
            undo: Vec::new(),
            undone: Vec::new(),
            edit_gesture: false,
            undo_pending: false,
        }
    }

    /// Replaces the world with a freshly loaded scene (keeps the view and the controls).
    fn install(&mut self, scene: Scene, source: Source, text: String) {
        self.watched_mtime = match &source {
            Source::File(p) => modified(p),
            Source::Default => None,
        };
        self.source = source;
        self.source_text = text;
        self.world = scene.world;
        self.meta = scene.meta;
        self.timestep = scene.timestep;
        self.scene_camera = scene.camera;
        self.scene_camera_given = scene.camera_given;
        self.selected = None;
        self.grab = None;
        self.joining = None;
        self.accumulator = 0.0;
        self.error = None;
        self.timeline.reset(&self.world, &self.meta, self.timestep);
        self.events.clear();
        self.edited = false;
        self.edits += 1;
        self.loaded_edits = self.edits;
        self.undo.clear();
        self.undone.clear();
    }

    /// Shows a notice for a few seconds.
    pub fn notify(&mut self, text: String) {
        self.notice = Some((text, Instant::now()));
    }

    /// One fixed step, with the mouse grab applied first. In the past (after a rewind) a
    /// step replays the recorded one, grab included, unless the user grabs a body now: that
    /// branches the history.
    pub fn step_once(&mut self) {
        self.commit_edits();
        // Undo takes back edits made while paused, up to the step after them.
        self.undo.clear();
        self.undone.clear();
        let step = self.world.step_count();
        match self.grab {
            Some(grab) => {
                if self.timeline.is_past(step) {
                    self.timeline.truncate_after(step);
                }
                self.timeline.record_grab(step, grab);
                self.apply_grab();
            }
            None => {
                if let Some(grab) = self.timeline.grab_at(step) {
                    grab::apply_grab(&mut self.world, &grab, self.timestep);
                }
            }
        }
        self.drive_player(step);
        // The Workers slider's count (`--threads`), whatever world the timeline or a load
        // put here: the count changes only how fast the step runs, never its result.
        let workers = crate::physics::threads::default_workers();
        if self.world.workers() != workers {
            let _ = self.world.set_workers(workers);
        }
        self.world.step(self.timestep);
        self.events.record(&self.world, &self.meta);
        self.timeline.after_step(&self.world, &self.meta);
    }

    /// Sets the player's velocity before `step`: from the keys in the present (or when a key
    /// is held in the past, which branches like a grab), else as recorded.
    fn drive_player(&mut self, step: u64) {
        let Some(player) = super::player::find(&self.world, &self.meta) else {
            return;
        };
        let past = self.timeline.is_past(step);
        let velocity = if self.drive != Vec3::ZERO || !past {
            if past {
                self.timeline.truncate_after(step);
            }
            let v = super::player::velocity(&self.world, player, self.drive, self.timestep);
            self.timeline.record_drive(step, (player, v));
            Some((player, v))
        } else {
            self.timeline.drive_at(step)
        };
        if let Some((body, v)) = velocity {
            // A kinematic body takes any finite velocity; nothing to report.
            let _ = self.world.set_linear_velocity(body, v);
        }
    }

    /// Shows step `step` again (clamped to the recorded history): the nearest keyframe before
    /// it, replayed. Pauses, and lets go of a held body.
    pub fn scrub_to(&mut self, step: u64) {
        self.commit_edits();
        self.playing = false;
        self.grab = None;
        self.drive = Vec3::ZERO;
        let step = step.clamp(self.timeline.oldest(), self.timeline.head());
        if step == self.world.step_count() {
            return;
        }
        let Some((_, world, meta)) = self.timeline.keyframe_before(step) else {
            return;
        };
        self.world = world;
        self.meta = meta;
        while self.world.step_count() < step {
            self.step_once();
        }
    }

    /// Records the history (or stops, for the stress test, which changes the world every
    /// frame); recording again starts from the present.
    pub fn set_recording(&mut self, on: bool) {
        self.timeline
            .set_enabled(on, &self.world, &self.meta, self.timestep);
    }

    /// Advances real time `frame_dt` (s): as many fixed steps as fit, at most `max_steps`
    /// (a slow frame drops time instead of spiralling). Returns the steps taken.
    pub fn advance(&mut self, frame_dt: f32, max_steps: u32) -> u32 {
        if !self.playing {
            self.accumulator = 0.0;
            return 0;
        }
        self.accumulator += frame_dt.min(0.25) * self.time_scale;
        let mut steps = 0;
        while self.accumulator >= self.timestep && steps < max_steps {
            self.step_once();
            self.accumulator -= self.timestep;
            steps += 1;
        }
        if steps == max_steps {
            self.accumulator = self.accumulator.min(self.timestep);
        }
        steps
    }

    /// Pulls the grabbed body towards the cursor (a soft point constraint, see `grab.rs`).
    fn apply_grab(&mut self) {
        if let Some(grab) = self.grab {
            if !grab::apply_grab(&mut self.world, &grab, self.timestep) {
                self.grab = None;
            }
        }
    }

    /// The display colour of a body.
    pub fn body_color(&self, handle: BodyHandle) -> [f32; 3] {
        if let Some(c) = self.meta.get(&handle).and_then(|m| m.color) {
            return [c.0, c.1, c.2];
        }
        match self.world.body(handle).map(|b| b.body_type()) {
            Some(BodyType::Static) => [0.62, 0.64, 0.68],
            Some(BodyType::Kinematic) => [0.55, 0.7, 0.75],
            _ => PALETTE[(handle.index() as usize * 7 + 3) % PALETTE.len()],
        }
    }

    /// The name of a body, or a stand-in.
    pub fn body_name(&self, handle: BodyHandle) -> String {
        match self.meta.get(&handle).map(|m| m.name.as_str()) {
            Some(name) if !name.is_empty() => name.to_string(),
            _ => format!("body #{}", handle.index()),
        }
    }

    /// Lets go of the held body, moving at `velocity` (m/s; see
    /// [`grab::release_velocity`]), its spin kept.
    pub fn release_grab(&mut self, velocity: Vec3) {
        let Some(grab) = self.grab.take() else {
            return;
        };
        let Some(body) = self.world.body(grab.body) else {
            return;
        };
        if body.body_type() == BodyType::Dynamic {
            let spin = body.angular_velocity();
            self.set_velocity(grab.body, velocity, spin);
        }
    }
}

#[cfg(test)]
mod tests;
