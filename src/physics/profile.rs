//! What a step cost and what it worked on.

use super::clock::Instant;

/// Measures consecutive phases: each `lap` returns the milliseconds since the last one.
pub(crate) struct PhaseTimer {
    last: Instant,
}

impl PhaseTimer {
    /// Starts timing now.
    pub fn start() -> Self {
        Self {
            last: Instant::now(),
        }
    }

    /// Milliseconds since the start or the last lap, and starts the next lap.
    pub fn lap(&mut self) -> f32 {
        let now = Instant::now();
        let ms = (now - self.last).as_secs_f32() * 1000.0;
        self.last = now;
        ms
    }

    /// Milliseconds since the start or the last lap, without starting a new one.
    pub fn elapsed_ms(&self) -> f32 {
        self.last.elapsed().as_secs_f32() * 1000.0
    }
}

/// Wall-clock time of each phase of the last step, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepProfile {
    /// Finding new pairs and moving proxies.
    pub broad_phase_ms: f32,
    /// Computing manifolds.
    pub narrow_phase_ms: f32,
    /// Preparing and iterating contact constraints (warm start, solve, relax, restitution).
    pub solver_ms: f32,
    /// Integrating velocities and positions (inside the sub-steps) and writing bodies back.
    pub integration_ms: f32,
    /// Sweeping fast ccd bodies (continuous collision).
    pub continuous_ms: f32,
    /// Building islands and putting them to sleep.
    pub islands_ms: f32,
    /// The whole step.
    pub total_ms: f32,
}

/// How much there was to do in the last step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepCounters {
    /// Bodies in the world.
    pub bodies: usize,
    /// Awake, non-static bodies.
    pub awake_bodies: usize,
    /// Colliders in the world.
    pub colliders: usize,
    /// Pairs whose fat AABBs overlap (live contacts).
    pub pairs: usize,
    /// Pairs with manifold points.
    pub manifolds: usize,
    /// Manifold points.
    pub contact_points: usize,
    /// Pairs whose shapes were tested by the narrow phase this step.
    pub pair_tests: usize,
    /// Boxes the broad phase tested for overlap this step (tree or quadtree nodes, grid
    /// candidates, proxies): what the choice of broad phase changes.
    pub broad_phase_tests: u64,
    /// Pairs whose kept manifold was reused instead (they had barely moved), or that were
    /// known to be still apart (they cannot have closed the gap their last test found).
    pub manifolds_reused: usize,
    /// Awake islands built this step.
    pub islands: usize,
    /// Contact constraints solved.
    pub constraints: usize,
    /// Bodies frozen this step because their state stopped being finite.
    pub newly_frozen: usize,
    /// Bodies frozen in the world (this step or earlier, not yet placed again).
    pub frozen_bodies: usize,
    /// Overlapping pairs of dynamic bodies left without a contact because one of the bodies
    /// had [`WorldSettings::max_contacts_per_body`](super::WorldSettings) contacts already:
    /// not 0 only when bodies sit inside each other.
    pub capped_pairs: usize,
}
