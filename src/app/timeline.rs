//! Rewind and branch: the last seconds of the simulation, kept as keyframes (copies of the
//! world) plus the inputs between them, so any recent step can be shown again exactly.
//!
//! A full copy per step would cost hundreds of megabytes for a pile of a thousand bodies, so
//! the timeline keeps a copy every [`KEYFRAME_INTERVAL`] steps and replays from the nearest one:
//! stepping is deterministic ([`World`]'s `Clone` steps bit for bit like the original), so the
//! replayed state is the recorded one. The only input that acts between keyframes is the mouse
//! grab, logged per step; every other edit (a position typed in, a body spawned, a setting) makes
//! a keyframe of its own at the step it happened, and drops whatever history came after it: that
//! is the branch.

use std::collections::{BTreeMap, VecDeque};

use super::grab::Grab;
use crate::physics::{BodyHandle, Vec3, World};
use crate::scene::BodyMeta;

/// How much simulated time the timeline keeps, s.
pub const HISTORY_SECONDS: f32 = 30.0;
/// Steps between keyframes: a scrub replays at most this many steps minus one.
pub const KEYFRAME_INTERVAL: u64 = 30;
/// Memory the keyframes may take, bytes; older ones go first when a big scene passes it (the
/// panel then shows less than [`HISTORY_SECONDS`] of history).
pub const HISTORY_BYTE_LIMIT: usize = 512 << 20;

/// Body names and colours, which edits change along with the world.
pub type Meta = BTreeMap<BodyHandle, BodyMeta>;

/// A copy of the world (and its names and colours) at the start of a step.
struct Keyframe {
    step: u64,
    world: World,
    meta: Meta,
    bytes: usize,
}

/// The recorded history. Steps are the world's step counter (`World::step_count`).
pub struct Timeline {
    /// Oldest first; never empty while enabled.
    keyframes: VecDeque<Keyframe>,
    /// The grab that acted before each step, by the step's number.
    grabs: BTreeMap<u64, Grab>,
    /// The player's velocity set before each step (see `player.rs`).
    drives: BTreeMap<u64, (BodyHandle, Vec3)>,
    /// The latest recorded step: the present.
    head: u64,
    /// Sum of the keyframes' sizes.
    bytes: usize,
    /// Steps the history spans at most.
    max_steps: u64,
    /// Off while the stress test spawns bodies every frame.
    enabled: bool,
}

impl Timeline {
    /// A history that starts at `world`'s present, stepped `timestep` s at a time.
    pub fn new(world: &World, meta: &Meta, timestep: f32) -> Self {
        let mut timeline = Self {
            keyframes: VecDeque::new(),
            grabs: BTreeMap::new(),
            drives: BTreeMap::new(),
            head: 0,
            bytes: 0,
            max_steps: 0,
            enabled: true,
        };
        timeline.reset(world, meta, timestep);
        timeline
    }

    /// Forgets everything and starts again from `world` (a scene was loaded or reset).
    pub fn reset(&mut self, world: &World, meta: &Meta, timestep: f32) {
        self.keyframes.clear();
        self.grabs.clear();
        self.drives.clear();
        self.bytes = 0;
        self.max_steps = (HISTORY_SECONDS / timestep.max(1e-4)).ceil() as u64;
        self.head = world.step_count();
        if self.enabled {
            self.push(world, meta);
        }
    }

    /// Turns recording on or off; turned back on, the history starts again from `world`.
    pub fn set_enabled(&mut self, enabled: bool, world: &World, meta: &Meta, timestep: f32) {
        if enabled == self.enabled {
            return;
        }
        self.enabled = enabled;
        self.reset(world, meta, timestep);
    }

    /// Is the history being recorded?
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The first step that can be shown again.
    pub fn oldest(&self) -> u64 {
        self.keyframes.front().map_or(self.head, |k| k.step)
    }

    /// The latest recorded step.
    pub fn head(&self) -> u64 {
        self.head
    }

    /// Memory the keyframes hold, bytes (approximate, see `World::approximate_bytes`).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Is `step` before the present (so recorded steps follow it)?
    pub fn is_past(&self, step: u64) -> bool {
        step < self.head
    }

    /// The grab recorded before `step`, if any.
    pub fn grab_at(&self, step: u64) -> Option<Grab> {
        self.grabs.get(&step).copied()
    }

    /// Remembers that `grab` acted before `step`.
    pub fn record_grab(&mut self, step: u64, grab: Grab) {
        if self.enabled {
            self.grabs.insert(step, grab);
        }
    }

    /// The player's velocity recorded before `step`, if any.
    pub fn drive_at(&self, step: u64) -> Option<(BodyHandle, Vec3)> {
        self.drives.get(&step).copied()
    }

    /// Remembers the player's velocity set before `step`.
    pub fn record_drive(&mut self, step: u64, drive: (BodyHandle, Vec3)) {
        if self.enabled {
            self.drives.insert(step, drive);
        }
    }

    /// Called after every step: moves the present forward and keeps a keyframe every
    /// [`KEYFRAME_INTERVAL`] steps.
    pub fn after_step(&mut self, world: &World, meta: &Meta) {
        if !self.enabled {
            return;
        }
        let step = world.step_count();
        self.head = self.head.max(step);
        let newest = self.keyframes.back().map_or(0, |k| k.step);
        if step.is_multiple_of(KEYFRAME_INTERVAL) && step > newest {
            self.push(world, meta);
        }
    }

    /// The world was edited at its current step: what came after is dropped, and the edited
    /// state becomes a keyframe (the start of the new branch).
    pub fn branch(&mut self, world: &World, meta: &Meta) {
        if !self.enabled {
            return;
        }
        let step = world.step_count();
        self.truncate_after(step);
        if self.keyframes.back().is_some_and(|k| k.step == step) {
            if let Some(k) = self.keyframes.pop_back() {
                self.bytes -= k.bytes;
            }
        }
        self.push(world, meta);
    }

    /// Drops everything recorded after the start of `step` (keyframes after it, grabs from
    /// it on): a new input acts at `step`.
    pub fn truncate_after(&mut self, step: u64) {
        while self.keyframes.back().is_some_and(|k| k.step > step) {
            if let Some(k) = self.keyframes.pop_back() {
                self.bytes -= k.bytes;
            }
        }
        self.grabs.split_off(&step);
        self.drives.split_off(&step);
        self.head = step;
    }

    /// The newest keyframe at or before `step`: its step, world and names.
    pub fn keyframe_before(&self, step: u64) -> Option<(u64, World, Meta)> {
        self.keyframes
            .iter()
            .rev()
            .find(|k| k.step <= step)
            .map(|k| (k.step, k.world.clone(), k.meta.clone()))
    }

    fn push(&mut self, world: &World, meta: &Meta) {
        let bytes = world.approximate_bytes();
        self.keyframes.push_back(Keyframe {
            step: world.step_count(),
            world: world.clone(),
            meta: meta.clone(),
            bytes,
        });
        self.bytes += bytes;
        self.evict();
    }

    /// Drops the oldest keyframes while the next one still reaches back the full span, or
    /// while the memory limit is passed (the newest keyframe always stays).
    fn evict(&mut self) {
        let start = self.head.saturating_sub(self.max_steps);
        while self.keyframes.len() > 1
            && (self.keyframes[1].step <= start || self.bytes > HISTORY_BYTE_LIMIT)
        {
            if let Some(k) = self.keyframes.pop_front() {
                self.bytes -= k.bytes;
            }
        }
        let oldest = self.oldest();
        self.grabs = self.grabs.split_off(&oldest);
        self.drives = self.drives.split_off(&oldest);
    }
}

#[cfg(test)]
mod tests {
    use super::super::sandbox::{load_initial, Sandbox};
    use super::*;
    use crate::physics::Vec3;

    /// Every body's pose and velocities as raw bits, and whether it is awake.
    fn bits(world: &World) -> Vec<(u32, [u32; 13], bool)> {
        world
            .bodies()
            .map(|(h, b)| {
                let mut out = [0u32; 13];
                let values = [b.position(), b.linear_velocity(), b.angular_velocity()]
                    .into_iter()
                    .flat_map(|v| v.to_array())
                    .chain(b.rotation().to_array())
                    .map(f32::to_bits);
                for (o, v) in out.iter_mut().zip(values) {
                    *o = v;
                }
                (h.index(), out, b.is_awake())
            })
            .collect()
    }

    fn default_sandbox() -> Sandbox {
        let (scene, source, text) = load_initial(None).unwrap();
        let mut sandbox = Sandbox::new(scene, source, text);
        // Sleeping would make a replay trivially equal once everything rests.
        let mut settings = sandbox.world.settings().clone();
        settings.enable_sleeping = false;
        sandbox.world.set_settings(settings).unwrap();
        sandbox
            .timeline
            .reset(&sandbox.world, &sandbox.meta, sandbox.timestep);
        sandbox
    }

    /// The first dynamic body (the one the tests grab).
    fn first_dynamic(sandbox: &Sandbox) -> crate::physics::BodyHandle {
        sandbox
            .world
            .bodies()
            .find(|(_, b)| b.body_type() == crate::physics::BodyType::Dynamic)
            .map(|(h, _)| h)
            .unwrap()
    }

    /// Runs 400 steps with a grab dragging a body through steps 120..180, keeping each step's
    /// state.
    fn record(sandbox: &mut Sandbox) -> Vec<Vec<(u32, [u32; 13], bool)>> {
        let body = first_dynamic(sandbox);
        let mut states = vec![bits(&sandbox.world)];
        for step in 0..400 {
            if step == 120 {
                let b = sandbox.world.body(body).unwrap();
                sandbox.grab = Some(Grab {
                    body,
                    local_point: Vec3::new(0.1, 0.2, 0.0),
                    distance: 5.0,
                    target: b.position() + Vec3::Y,
                });
            }
            if let Some(grab) = sandbox.grab.as_mut() {
                grab.target += Vec3::new(0.02, 0.01, 0.0);
            }
            if step == 180 {
                sandbox.grab = None;
            }
            sandbox.step_once();
            states.push(bits(&sandbox.world));
        }
        states
    }

    #[test]
    fn rewinding_200_steps_and_replaying_gives_the_same_state_bit_for_bit() {
        let mut sandbox = default_sandbox();
        let states = record(&mut sandbox);
        assert_eq!(sandbox.world.step_count(), 400);
        // The grab moved the body: the replay has something to get wrong.
        assert_ne!(states[180], states[120]);
        for back_to in [200u64, 150, 121, 37] {
            sandbox.scrub_to(back_to);
            assert_eq!(sandbox.world.step_count(), back_to);
            assert!(!sandbox.playing);
            assert_eq!(
                bits(&sandbox.world),
                states[back_to as usize],
                "at step {back_to}"
            );
            // Stepping on from the past replays the recording (the grab included).
            sandbox.playing = true;
            while sandbox.world.step_count() < 400 {
                sandbox.step_once();
            }
            assert_eq!(
                bits(&sandbox.world),
                states[400],
                "replayed from step {back_to}"
            );
            assert_eq!(sandbox.timeline.head(), 400);
        }
        // Scrubbing forward along the recording works too.
        sandbox.scrub_to(100);
        sandbox.scrub_to(333);
        assert_eq!(bits(&sandbox.world), states[333]);
    }

    #[test]
    fn an_edit_in_the_past_branches_the_history_there() {
        let mut sandbox = default_sandbox();
        let states = record(&mut sandbox);
        let body = first_dynamic(&sandbox);
        sandbox.scrub_to(90);
        let moved = sandbox.world.body(body).unwrap().position() + Vec3::new(0.0, 3.0, 0.0);
        sandbox.set_position(body, moved);
        sandbox.commit_edits();
        // The future after the edit is gone; the edited state is the present.
        assert_eq!(sandbox.timeline.head(), 90);
        sandbox.playing = true;
        for _ in 0..30 {
            sandbox.step_once();
        }
        assert_eq!(sandbox.timeline.head(), 120);
        let branch_120 = bits(&sandbox.world);
        assert_ne!(branch_120, states[120], "the edit changed nothing");
        // Going back before the edit shows the old past; forward again shows the branch.
        sandbox.scrub_to(60);
        assert_eq!(bits(&sandbox.world), states[60]);
        sandbox.scrub_to(90);
        assert_eq!(sandbox.world.body(body).unwrap().position(), moved);
        sandbox.scrub_to(120);
        assert_eq!(bits(&sandbox.world), branch_120);
    }

    #[test]
    fn the_history_keeps_30_seconds_and_no_more() {
        let mut sandbox = default_sandbox();
        let steps_kept = (HISTORY_SECONDS / sandbox.timestep).ceil() as u64;
        let total = steps_kept + 5 * KEYFRAME_INTERVAL + 7;
        for _ in 0..total {
            sandbox.step_once();
        }
        let (oldest, head) = (sandbox.timeline.oldest(), sandbox.timeline.head());
        assert_eq!(head, total);
        // At least 30 s reachable, at most one keyframe interval more.
        assert!(head - oldest >= steps_kept, "{oldest}..{head}");
        assert!(
            head - oldest < steps_kept + KEYFRAME_INTERVAL,
            "{oldest}..{head}"
        );
        // Keyframes every KEYFRAME_INTERVAL steps over that span, each about the world's size
        // (contact storage grows and shrinks a little between them).
        let keyframes = (head - oldest) / KEYFRAME_INTERVAL + 1;
        let expected = keyframes as f64 * sandbox.world.approximate_bytes() as f64;
        let bytes = sandbox.timeline.bytes() as f64;
        assert!(
            (bytes / expected - 1.0).abs() < 0.01,
            "{bytes} bytes, {expected} expected"
        );
        sandbox.scrub_to(0);
        assert_eq!(sandbox.world.step_count(), oldest);
    }

    #[test]
    fn the_players_walk_is_replayed_exactly_and_a_key_in_the_past_branches() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/topdown.ron");
        let (scene, source, text) = load_initial(Some(&path)).unwrap();
        let mut sandbox = Sandbox::new(scene, source, text);
        let player = crate::app::player::find(&sandbox.world, &sandbox.meta).expect("a player");
        // East for 60 steps (into crate 3's row), then north-east for 60, then nothing.
        let mut states = vec![bits(&sandbox.world)];
        for step in 0..200 {
            sandbox.drive = match step {
                0..60 => Vec3::X,
                60..120 => Vec3::new(1.0, 0.0, -1.0).normalize(),
                _ => Vec3::ZERO,
            };
            sandbox.step_once();
            states.push(bits(&sandbox.world));
        }
        let walked = sandbox.world.body(player).unwrap().position();
        assert!(walked.x > 4.0, "the player walked: {walked:?}");
        // Back to step 90 (keys up, as a scrub leaves them) and on: the same walk, bit for bit.
        sandbox.scrub_to(90);
        assert_eq!(bits(&sandbox.world), states[90]);
        while sandbox.world.step_count() < 200 {
            sandbox.step_once();
        }
        assert_eq!(bits(&sandbox.world), states[200]);
        // Back to step 30 and walking west instead: a new branch, the old future is gone.
        sandbox.scrub_to(30);
        sandbox.drive = -Vec3::X;
        sandbox.step_once();
        assert_eq!(sandbox.timeline.head(), 31);
        assert!(sandbox.world.body(player).unwrap().linear_velocity().x < 0.0);
    }

    #[test]
    fn undo_and_redo_take_back_edits_made_while_paused_gesture_by_gesture() {
        let mut sandbox = default_sandbox();
        sandbox.playing = false;
        let (body, _) = sandbox
            .world
            .bodies()
            .find(|(_, b)| b.body_type() == crate::physics::BodyType::Dynamic)
            .unwrap();
        let start = sandbox.world.body(body).unwrap().position();
        let original = bits(&sandbox.world);
        // A drag over three frames (one gesture), an idle frame, then a second edit.
        for k in 1..=3 {
            sandbox.set_position(body, start + Vec3::X * k as f32);
            sandbox.commit_edits();
        }
        sandbox.commit_edits();
        let dragged = bits(&sandbox.world);
        sandbox.set_position(body, start + Vec3::Y * 5.0);
        sandbox.commit_edits();
        let moved_up = bits(&sandbox.world);
        assert_eq!(sandbox.undo_depth(), (2, 0));
        assert!(sandbox.undo());
        assert_eq!(bits(&sandbox.world), dragged);
        assert!(sandbox.undo());
        assert_eq!(bits(&sandbox.world), original);
        assert!(!sandbox.undo(), "nothing older");
        assert!(sandbox.redo());
        assert_eq!(bits(&sandbox.world), dragged);
        assert!(sandbox.redo());
        assert_eq!(bits(&sandbox.world), moved_up);
        // An undo is an edit the timeline branches on; a new edit forgets what was undone.
        sandbox.commit_edits();
        assert!(sandbox.undo());
        sandbox.commit_edits();
        sandbox.commit_edits();
        sandbox.set_position(body, start - Vec3::X);
        sandbox.commit_edits();
        assert_eq!(sandbox.undo_depth(), (2, 0));
        // An edit refused (a position out of range) keeps nothing to undo.
        sandbox.commit_edits();
        sandbox.set_position(body, Vec3::splat(1e9));
        sandbox.commit_edits();
        assert_eq!(sandbox.undo_depth(), (2, 0));
        assert!(sandbox.error.is_some());
        // A step ends what can be undone.
        sandbox.step_once();
        assert_eq!(sandbox.undo_depth(), (0, 0));
        // While playing, edits are not kept for undo.
        sandbox.playing = true;
        sandbox.set_position(body, start);
        assert_eq!(sandbox.undo_depth(), (0, 0));
    }
}
