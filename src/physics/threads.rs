//! The step's worker threads ([`World::set_workers`](super::World::set_workers)).
//!
//! With the `parallel` feature (on by default) a world with more than one worker runs its
//! step inside a rayon pool of that many threads, shared by every world asking for the same
//! count, and the phases that can split their work do: the narrow phase's contacts, the
//! solver's per-body loops and each colour's lane groups. Every split is into pieces fixed
//! by the data, never by the thread count, and each piece computes what it computes on one
//! thread, merged in a fixed order: the state after a step is the same bit for bit at any
//! worker count (`tests/suite/threads.rs`, and `.ci/run` compares state hashes of every
//! shipped and bench scene at 1 to 4 workers). Without the feature every world steps on the
//! calling thread whatever its worker count.

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
pub fn set_default_workers(workers: usize) -> Result<(), String> {
    check_workers(workers)?;
    DEFAULT_WORKERS.store(workers, Ordering::Relaxed);
    Ok(())
}

/// `Ok` for 1 to [`MAX_WORKERS`] workers, else the message.
pub(crate) fn check_workers(workers: usize) -> Result<(), String> {
    if (1..=MAX_WORKERS).contains(&workers) {
        Ok(())
    } else {
        Err(format!("workers must be 1 to {MAX_WORKERS}, got {workers}"))
    }
}

/// Runs `f` with `workers` threads available to the phases that split their work: inside
/// the shared pool of that many threads, or on the calling thread for one worker (and
/// always without the `parallel` feature). Already on a thread of that pool ([`in_pool`]),
/// `f` runs where it is.
pub(crate) fn run_with<R: Send>(workers: usize, f: impl FnOnce() -> R + Send) -> R {
    #[cfg(feature = "parallel")]
    if workers > 1 {
        if rayon::current_thread_index().is_some() && rayon::current_num_threads() == workers {
            return with_split(true, f);
        }
        if let Some(pool) = pool(workers) {
            return pool.install(|| with_split(true, f));
        }
    }
    let _ = workers;
    with_split(false, f)
}

/// Runs `f` on a thread of the pool of `workers` threads (on the calling thread for one
/// worker or without the `parallel` feature). Steps of worlds with that many workers taken
/// inside `f` run where they are, instead of each handing itself to the pool: rayon's queue
/// for work from outside its threads takes a new block of memory every 63 hand-overs, and a
/// loop of steps inside `f` allocates nothing at all once it is warm (`tests/allocation.rs`).
pub fn in_pool<R: Send>(workers: usize, f: impl FnOnce() -> R + Send) -> R {
    #[cfg(feature = "parallel")]
    if workers > 1 {
        if let Some(pool) = pool(workers) {
            return pool.install(f);
        }
    }
    let _ = workers;
    f()
}

thread_local! {
    /// Whether the step running on this thread splits its phases ([`split_here`]).
    static SPLIT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with [`split_here`] answering `split` on this thread, and puts the old answer
/// back afterwards (also when `f` panics).
fn with_split<R>(split: bool, f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SPLIT.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SPLIT.with(|s| s.replace(split)));
    f()
}

/// Whether the step running on this thread should split its work over the pool: it runs
/// inside [`run_with`] with more than one worker (never without the `parallel` feature).
#[inline]
pub(crate) fn split_here() -> bool {
    cfg!(feature = "parallel") && SPLIT.with(|s| s.get())
}

/// The pool of `workers` threads, made on first use and kept for the process (a pool per
/// count asked for: the sandbox's Workers slider moves through a few). `None` if the
/// threads could not be started; the step then runs on the calling thread.
#[cfg(feature = "parallel")]
fn pool(workers: usize) -> Option<std::sync::Arc<rayon::ThreadPool>> {
    use std::sync::{Arc, Mutex};
    static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, pool)) = pools.iter().find(|(n, _)| *n == workers) {
        return Some(pool.clone());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .thread_name(|i| format!("impulse-worker-{i}"))
        .build()
        .ok()?;
    let pool = Arc::new(pool);
    pools.push((workers, pool.clone()));
    Some(pool)
}

/// Calls `f` on matching pieces of `a`, `b` and `c` (`piece` elements each, the last
/// shorter), on the pool's threads when the caller is in one ([`split_here`]). The pieces
/// are the same at any thread count, so where `f` treats each element on its own the result
/// is the same too.
pub(crate) fn for_each_piece<A: Send, B: Sync, C: Send>(
    (a, b, c): (&mut [A], &[B], &mut [C]),
    piece: usize,
    f: impl Fn(&mut [A], &[B], &mut [C]) + Sync + Send,
) {
    #[cfg(feature = "parallel")]
    if a.len() > piece && split_here() {
        use rayon::prelude::*;
        a.par_chunks_mut(piece)
            .zip(b.par_chunks(piece))
            .zip(c.par_chunks_mut(piece))
            .for_each(|((a, b), c)| f(a, b, c));
        return;
    }
    let _ = piece;
    f(a, b, c);
}
