//! The sandbox's stress test: spawn bodies every frame until the frame rate stays below 30
//! FPS for a second, then report the body count, the physics share of the frame time and a
//! plot of FPS against body count.

use std::collections::VecDeque;

use crate::physics::World;
use crate::stress::Spawner;

/// Frames per second below which the test stops (held for `HOLD_SECONDS`).
pub const MIN_FPS: f32 = 30.0;
/// How long the frame rate must stay low, s.
pub const HOLD_SECONDS: f32 = 1.0;

/// The result of a finished (or stopped) run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StressOutcome {
    /// Bodies in the world at the end.
    pub bodies: usize,
    /// Frame rate over the last second.
    pub fps: f32,
    /// Physics step time over frame time, last second (0..1).
    pub physics_share: f32,
    /// True when stopped by the user rather than by the frame rate.
    pub stopped_by_user: bool,
}

/// A stress test in progress or finished.
#[derive(Debug, Default)]
pub struct StressTest {
    spawner: Spawner,
    running: bool,
    /// (frame time s, physics time s) over the last second.
    window: VecDeque<(f32, f32)>,
    /// Time the frame rate has been below `MIN_FPS`, s.
    low_for: f32,
    /// (bodies, fps) samples for the plot, one per 10 frames.
    pub samples: Vec<[f64; 2]>,
    frames: u64,
    /// The last result.
    pub outcome: Option<StressOutcome>,
}

impl StressTest {
    /// Is it spawning?
    pub fn running(&self) -> bool {
        self.running
    }

    /// Starts over.
    pub fn start(&mut self) {
        *self = StressTest {
            running: true,
            ..StressTest::default()
        };
    }

    /// Stops it now.
    pub fn stop(&mut self, world: &World) {
        if self.running {
            self.finish(world, true);
        }
    }

    fn finish(&mut self, world: &World, by_user: bool) {
        self.running = false;
        let (fps, share) = self.rates();
        self.outcome = Some(StressOutcome {
            bodies: world.body_count(),
            fps,
            physics_share: share,
            stopped_by_user: by_user,
        });
    }

    /// Frame rate and physics share over the window.
    fn rates(&self) -> (f32, f32) {
        let frame: f32 = self.window.iter().map(|w| w.0).sum();
        let physics: f32 = self.window.iter().map(|w| w.1).sum();
        if frame <= 0.0 {
            return (0.0, 0.0);
        }
        (self.window.len() as f32 / frame, (physics / frame).min(1.0))
    }

    /// Called once per frame with the last frame's wall time and the physics time in it.
    /// Spawns a batch while running; returns true when the test just finished.
    pub fn frame(&mut self, world: &mut World, frame_seconds: f32, physics_seconds: f32) -> bool {
        if !self.running {
            return false;
        }
        self.frames += 1;
        self.window
            .push_back((frame_seconds.max(1e-6), physics_seconds));
        let mut total: f32 = self.window.iter().map(|w| w.0).sum();
        while total > 1.0 && self.window.len() > 1 {
            if let Some((t, _)) = self.window.pop_front() {
                total -= t;
            }
        }
        let (fps, _) = self.rates();
        if self.frames.is_multiple_of(10) {
            self.samples.push([world.body_count() as f64, fps as f64]);
        }
        // Ignore the first frames (shader compilation, first layout) before judging.
        if self.frames > 30 && fps < MIN_FPS {
            self.low_for += frame_seconds;
        } else {
            self.low_for = 0.0;
        }
        if self.low_for >= HOLD_SECONDS {
            self.finish(world, false);
            return true;
        }
        self.spawner.spawn(world);
        false
    }
}
