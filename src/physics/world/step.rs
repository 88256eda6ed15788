//! [`World::step`]: the phases of a step in order, each timed into the step's profile.

use super::World;
use crate::physics::body::BodyType;
use crate::physics::profile::{PhaseTimer, StepProfile};

impl World {
    /// Advances the world by `dt` seconds (a fixed step, typically 1/60 s):
    ///
    /// 1. broad phase: new pairs of overlapping fat AABBs become contacts;
    /// 2. narrow phase: manifolds for every awake contact, begin/persist/end events, bodies
    ///    touched by awake ones wake up;
    /// 3. solve: islands of touching and jointed bodies (`island.rs`) sorted into sub-step
    ///    groups, touching contacts gathered and coloured, then sub-stepped soft contacts
    ///    and joints with integration inside, group by group (see `solver/mod.rs` and
    ///    `world/solve/`);
    /// 4. finalize: bodies written back, colliders and proxies moved;
    /// 5. continuous: each fast body with `ccd` is swept over its motion in the step and put
    ///    back at its first time of impact (see `continuous.rs`);
    /// 6. islands: resting islands fall asleep.
    ///
    /// A non-positive or non-finite `dt` does nothing. The step uses up to
    /// [`World::workers`] threads and its result is the same bit for bit at any count.
    pub fn step(&mut self, dt: f32) {
        if !(dt > 0.0 && dt.is_finite()) {
            return;
        }
        crate::physics::threads::run_with(self.workers, || self.step_here(dt));
    }

    /// Threads the step may use: 1 steps on the calling thread; more split the phases that
    /// can split (see `physics/threads.rs`). A new world takes
    /// [`threads::default_workers`](crate::physics::threads::default_workers).
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Sets [`World::workers`], 1 to [`MAX_WORKERS`](crate::physics::threads::MAX_WORKERS). The
    /// state after every step is the same at any count; only the time taken changes.
    pub fn set_workers(&mut self, workers: usize) -> Result<(), super::SettingsError> {
        crate::physics::threads::check_workers(workers)?;
        self.workers = workers;
        Ok(())
    }

    /// [`World::step`] on the current thread (inside the workers' pool when there is one).
    fn step_here(&mut self, dt: f32) {
        let start = PhaseTimer::start();
        let mut timer = PhaseTimer::start();
        self.profile = StepProfile::default();
        self.events.clear();
        self.events.end.append(&mut self.pending_end);
        self.events.sensor_end.append(&mut self.pending_sensor_end);
        self.frozen_events.clear();
        self.stepping = true;

        self.update_pairs();
        self.profile.broad_phase_ms = timer.lap();

        let (awake, frozen) = self.scan_bodies();
        if !awake {
            // Every body that can move is asleep (or there is none): nothing can collide,
            // move or wake, so the step is the broad phase's bookkeeping only. Contacts are
            // destroyed eagerly when a body or collider goes, and a new pair of sleeping or
            // static bodies is not collided until one of them wakes, so nothing is skipped
            // that a full step would have done.
            self.idle_step(dt, frozen, start);
            return;
        }

        self.update_contacts(dt);
        self.profile.narrow_phase_ms = timer.lap();

        self.solve(dt);
        timer.lap();

        self.finalize_bodies(dt);
        self.profile.integration_ms += timer.lap();

        self.solve_continuous();
        self.profile.continuous_ms = timer.lap();

        self.update_sleep();
        self.profile.islands_ms = timer.lap();

        self.stepping = false;
        self.step_count += 1;
        self.time += dt as f64;
        self.count(frozen);
        self.profile.total_ms = start.elapsed_ms();
    }

    /// One pass over the bodies: is any non-static body awake, and how many are frozen.
    fn scan_bodies(&self) -> (bool, usize) {
        let mut awake = false;
        let mut frozen = 0;
        for (_, body) in self.bodies.iter() {
            awake |= body.awake && body.body_type != BodyType::Static;
            frozen += body.frozen as usize;
        }
        (awake, frozen)
    }

    /// The end of a step in which every body sleeps: the solver's arrays are emptied (no
    /// body was gathered) and the counters that can change are updated; manifolds and
    /// points stay as they were.
    fn idle_step(&mut self, dt: f32, frozen: usize, start: PhaseTimer) {
        let scratch = &mut self.scratch;
        scratch.solver.bodies.clear();
        scratch.solver.forces.clear();
        scratch.solver.to_body.clear();
        scratch.constraints.list.clear();
        self.stepping = false;
        self.step_count += 1;
        self.time += dt as f64;
        self.counters.islands = 0;
        self.counters.pair_tests = 0;
        self.counters.manifolds_reused = 0;
        self.count_sizes(frozen);
        self.profile.total_ms = start.elapsed_ms();
    }

    /// Fills the counters of the last step (the contact update counted the manifolds).
    /// `frozen`: the bodies frozen when the step began. A step never thaws a body, so when
    /// it froze none (no frozen events) the count is the same; else the bodies are counted
    /// again (a frozen kinematic body that faults again is reported again).
    fn count(&mut self, frozen: usize) {
        let recount = || self.bodies.iter().filter(|(_, b)| b.frozen).count();
        let frozen = if self.frozen_events.is_empty() {
            debug_assert_eq!(frozen, recount());
            frozen
        } else {
            recount()
        };
        self.count_sizes(frozen);
    }

    /// The counters that need no walk over the contacts: sizes, what the solver gathered,
    /// and the `frozen` bodies.
    fn count_sizes(&mut self, frozen: usize) {
        self.counters.bodies = self.bodies.len();
        self.counters.awake_bodies = self.scratch.solver.bodies.len().saturating_sub(1);
        self.counters.colliders = self.colliders.len();
        self.counters.pairs = self.contacts.len();
        self.counters.constraints = self.scratch.constraints.list.len();
        self.counters.newly_frozen = self.frozen_events.len();
        self.counters.frozen_bodies = frozen;
    }
}
