//! The step's worker threads ([`World::set_workers`](super::World::set_workers)).
//!
//! With the `parallel` feature (on by default) a world with more than one worker splits the
//! phases that can split over a team of that many threads: every broad phase's queries for
//! moved proxies, the narrow phase's contacts, gathering and filling the solver's arrays,
//! and the solver's sub-steps stage by stage (per-body sweeps, each colour's lane groups and
//! each colour of a group's joints, `solver/crew.rs`, `solver/group.rs`). The caller's thread is worker 0; the others are threads kept for the
//! process, one team per worker count, parked between phases. Every split is into blocks
//! fixed by the data, never by the thread count, and each block computes what it computes
//! on one thread, merged in a fixed order: the state after a step is the same bit for bit at
//! any worker count (`tests/suite/threads.rs`, and `.ci/run` compares state hashes of every
//! shipped and bench scene at 1 to 4 workers). Handing work to the team allocates nothing
//! (`tests/allocation.rs`). Without the feature every world steps on the calling thread
//! whatever its worker count.

use super::world::SettingsError;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The most workers a world takes ([`World::set_workers`](super::World::set_workers)).
pub const MAX_WORKERS: usize = 256;

/// The count set by [`set_default_workers`]; 0 until then.
static DEFAULT_WORKERS: AtomicUsize = AtomicUsize::new(0);

/// The worker count a new world gets: what [`set_default_workers`] last set, else the
/// machine's hardware threads (1 where unknown).
pub fn default_workers() -> usize {
    match DEFAULT_WORKERS.load(Ordering::Relaxed) {
        0 => hardware_threads(),
        n => n,
    }
}

/// The machine's hardware threads (1 where unknown).
pub fn hardware_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Sets the worker count of every world made from now on in this process (the command
/// line's `--threads N`), 1 to [`MAX_WORKERS`].
pub fn set_default_workers(workers: usize) -> Result<(), SettingsError> {
    check_workers(workers)?;
    DEFAULT_WORKERS.store(workers, Ordering::Relaxed);
    Ok(())
}

/// `Ok` for 1 to [`MAX_WORKERS`] workers, else the message.
pub(crate) fn check_workers(workers: usize) -> Result<(), SettingsError> {
    if (1..=MAX_WORKERS).contains(&workers) {
        Ok(())
    } else {
        Err(SettingsError(format!(
            "workers must be 1 to {MAX_WORKERS}, got {workers}"
        )))
    }
}

thread_local! {
    /// The workers the step running on this thread may split its phases over (1: none).
    static WORKERS: std::cell::Cell<usize> = const { std::cell::Cell::new(1) };
}

/// Runs `f` (a step) with `workers` available to the phases that split their work
/// ([`split_workers`]), then restores the caller's count (also when `f` panics).
pub(crate) fn run_with<R>(workers: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            WORKERS.with(|w| w.set(self.0));
        }
    }
    let workers = if cfg!(feature = "parallel") {
        workers
    } else {
        1
    };
    let _restore = Restore(WORKERS.with(|w| w.replace(workers)));
    f()
}

/// How many workers the step running on this thread may split a phase over: more than one
/// only inside [`run_with`] with several (never without the `parallel` feature).
#[inline]
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(crate) fn split_workers() -> usize {
    WORKERS.with(|w| w.get())
}

/// Runs `job(i)` for every worker i of `0..workers` at once, worker 0 on this thread, and
/// returns true when all are done. Returns false at once, having run nothing, when the team
/// of that count is busy with another thread's step (two worlds stepping on two threads),
/// could not be started, or without the `parallel` feature: the caller then does the work
/// on its own thread, which gives the same result.
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
pub(crate) fn try_team_run(workers: usize, job: &(dyn Fn(usize) + Sync)) -> bool {
    #[cfg(feature = "parallel")]
    if workers > 1 {
        if let Some(team) = team::get(workers) {
            return team.run(job);
        }
    }
    let _ = (workers, job);
    false
}

#[cfg(feature = "parallel")]
mod team {
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
    use std::sync::{Arc, Condvar, Mutex};

    /// A parked worker spins this many times before it sleeps: back-to-back phases then
    /// find it awake, and an idle team stops using the cores within microseconds.
    const SPINS_BEFORE_SLEEP: u32 = 1 << 14;

    /// A job as the team's threads see it: the borrowed closure of [`Team::run`], its
    /// lifetime erased. `run` waits for every worker before it returns, so the closure
    /// outlives every use.
    #[derive(Clone, Copy)]
    struct JobPtr(*const (dyn Fn(usize) + Sync + 'static));

    // SAFETY: the closure is `Sync`, and it is only called while `Team::run` keeps it alive.
    unsafe impl Send for JobPtr {}

    /// The threads of one worker count (worker 0 is whoever calls [`Team::run`]).
    pub(super) struct Team {
        workers: usize,
        /// Generation of the current job: a worker runs a job once when it changes.
        generation: AtomicU64,
        job: Mutex<Option<JobPtr>>,
        wake: Condvar,
        /// Workers (other than 0) that have finished the current job.
        finished: AtomicUsize,
        /// One job at a time: a second thread asking meanwhile works alone.
        running: Mutex<()>,
    }

    impl Team {
        /// Runs `job(i)` on every worker i and waits for all of them; false (nothing run)
        /// when another thread is running a job on this team.
        pub(super) fn run(&self, job: &(dyn Fn(usize) + Sync)) -> bool {
            let _one = match self.running.try_lock() {
                Ok(guard) => guard,
                Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => return false,
            };
            // SAFETY: the lifetime is erased; the pointer is cleared before this returns,
            // and every worker is done with it by then (the wait below).
            let ptr = JobPtr(unsafe {
                std::mem::transmute::<
                    *const (dyn Fn(usize) + Sync + '_),
                    *const (dyn Fn(usize) + Sync + 'static),
                >(job as *const _)
            });
            self.finished.store(0, Ordering::Relaxed);
            {
                let mut slot = self.job.lock().unwrap_or_else(|e| e.into_inner());
                *slot = Some(ptr);
                self.generation.fetch_add(1, Ordering::Release);
            }
            self.wake.notify_all();
            job(0);
            let mut spins = 0u32;
            while self.finished.load(Ordering::Acquire) + 1 < self.workers {
                if spins < SPINS_BEFORE_SLEEP {
                    spins += 1;
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
            *self.job.lock().unwrap_or_else(|e| e.into_inner()) = None;
            true
        }

        /// The loop of worker `index`: wait for a new generation, run its job, report. It
        /// starts from generation 0, the team's before its first job, whenever the thread
        /// itself gets going.
        fn serve(&self, index: usize) {
            let mut seen = 0;
            loop {
                let mut spins = 0u32;
                while self.generation.load(Ordering::Acquire) == seen && spins < SPINS_BEFORE_SLEEP
                {
                    spins += 1;
                    std::hint::spin_loop();
                }
                let job = {
                    let mut slot = self.job.lock().unwrap_or_else(|e| e.into_inner());
                    while self.generation.load(Ordering::Acquire) == seen {
                        slot = self.wake.wait(slot).unwrap_or_else(|e| e.into_inner());
                    }
                    seen = self.generation.load(Ordering::Acquire);
                    *slot
                };
                if let Some(JobPtr(job)) = job {
                    // SAFETY: `run` keeps the closure alive until this worker reports.
                    unsafe { (*job)(index) };
                }
                self.finished.fetch_add(1, Ordering::Release);
            }
        }
    }

    /// The team of `workers` threads, started on first use and kept for the process. `None`
    /// if a thread could not be started.
    pub(super) fn get(workers: usize) -> Option<Arc<Team>> {
        static TEAMS: Mutex<Vec<(usize, Arc<Team>)>> = Mutex::new(Vec::new());
        let mut teams = TEAMS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, team)) = teams.iter().find(|(n, _)| *n == workers) {
            return Some(team.clone());
        }
        let team = Arc::new(Team {
            workers,
            generation: AtomicU64::new(0),
            job: Mutex::new(None),
            wake: Condvar::new(),
            finished: AtomicUsize::new(0),
            running: Mutex::new(()),
        });
        for index in 1..workers {
            let team = team.clone();
            std::thread::Builder::new()
                .name(format!("impulse-worker-{index}/{workers}"))
                .spawn(move || team.serve(index))
                .ok()?;
        }
        teams.push((workers, team.clone()));
        Some(team)
    }
}
