//! Who runs a sub-step group's stages: the calling thread alone, or (with the `parallel`
//! feature) every thread of the workers' pool at once, as Box2D v3's solver does.
//!
//! The sub-steps are a fixed sequence of stages (integrate velocities, warm start colour by
//! colour, the joints, the biased pass colour by colour, ...). With a team every worker
//! runs the same sequence: a stage's work is cut into blocks that the workers claim with an
//! atomic counter, and a barrier (a spin on an atomic generation count, a microsecond or
//! two) closes each stage, where a fork and join of the pool per stage costs 10–20 µs. A
//! stage that must run in order (the joints, the overflow set) runs on the lead worker while
//! the others wait at its barrier. The blocks of a stage touch disjoint data (a colour's
//! lane groups move disjoint bodies, `graph_colour.rs`; a per-body stage gives each block
//! its own bodies), so which worker takes a block changes nothing: the result is the bits
//! of one thread.

use std::ops::Range;

/// A slice that the workers of a team share: each stage hands disjoint parts of it to its
/// blocks, and a serial stage all of it to the lead.
pub(crate) struct Shared<T> {
    ptr: *mut T,
    len: usize,
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Shared<T> {}

// SAFETY: a `Shared` is made from a `&mut [T]` borrowed for the whole group solve, and the
// stages hand each part of it to one worker at a time (module notes).
unsafe impl<T: Send> Send for Shared<T> {}
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    pub fn new(slice: &mut [T]) -> Self {
        Shared {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Elements `range`.
    ///
    /// # Safety
    /// No other worker may use them while the returned slice lives.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice(&self, range: Range<usize>) -> &mut [T] {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "{range:?} of {}",
            self.len
        );
        // SAFETY: in bounds; exclusive by the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.len()) }
    }

    /// Element `index`.
    ///
    /// # Safety
    /// No other worker may write it while the returned reference lives, nor read it while
    /// a reference from [`Shared::at_mut`] lives.
    #[inline]
    pub unsafe fn at(&self, index: usize) -> &T {
        assert!(index < self.len, "{index} of {}", self.len);
        // SAFETY: in bounds; no writer by the caller's promise.
        unsafe { &*self.ptr.add(index) }
    }

    /// Element `index`, to write.
    ///
    /// # Safety
    /// No other worker may use it while the returned reference lives.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn at_mut(&self, index: usize) -> &mut T {
        assert!(index < self.len, "{index} of {}", self.len);
        // SAFETY: in bounds; exclusive by the caller's promise.
        unsafe { &mut *self.ptr.add(index) }
    }
}

/// Runs the stages of a group: every worker calls the same methods in the same order.
pub(crate) trait Crew: Sync {
    /// Runs `f` on blocks of `0..n` of about `block` elements each, every element in one
    /// block, then waits until every block is done.
    fn parallel(&self, n: usize, block: usize, f: &(dyn Fn(Range<usize>) + Sync));
    /// Runs `f` on the lead worker only, the others waiting until it is done.
    fn serial(&self, f: &mut dyn FnMut());
    /// True on the worker that runs the serial stages (and keeps the phase times).
    fn lead(&self) -> bool;
    /// How many workers run the stages.
    fn workers(&self) -> usize;
}

/// The calling thread alone: a stage is one call over all its elements.
pub(crate) struct Alone;

impl Crew for Alone {
    #[inline]
    fn parallel(&self, n: usize, _block: usize, f: &(dyn Fn(Range<usize>) + Sync)) {
        if n > 0 {
            f(0..n);
        }
    }

    #[inline]
    fn serial(&self, f: &mut dyn FnMut()) {
        f();
    }

    fn lead(&self) -> bool {
        true
    }

    fn workers(&self) -> usize {
        1
    }
}

/// Runs `f` on blocks of `0..n` (`block` elements each, the last shorter) on every worker
/// the running step may use ([`split_workers`](crate::physics::threads::split_workers)),
/// else in one call here; returns when all are done. For one stage with no serial part.
pub(crate) fn for_each_block(n: usize, block: usize, f: &(dyn Fn(Range<usize>) + Sync)) {
    #[cfg(feature = "parallel")]
    {
        use crate::physics::threads;
        let workers = threads::split_workers();
        if workers > 1 && n > block && threads::team_ready(workers) {
            let team = Team::new(workers);
            threads::team_run(workers, &|index| {
                TeamMember {
                    team: &team,
                    index,
                    workers,
                }
                .parallel(n, block, f);
            });
            return;
        }
    }
    Alone.parallel(n, block, f);
}

#[cfg(feature = "parallel")]
pub(crate) use team::{Team, TeamMember};

#[cfg(feature = "parallel")]
mod team {
    use std::ops::Range;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::Crew;

    /// Spins before a waiting worker starts yielding its core: a stage of a large scene
    /// ends within microseconds, but on a machine with more busy threads than cores the
    /// worker being waited on may need the core back.
    const SPINS_BEFORE_YIELD: u32 = 1 << 12;

    /// What the workers of one group solve share: the block counter of the current stage
    /// and the barrier's arrivals and generation.
    pub(crate) struct Team {
        workers: usize,
        next: AtomicUsize,
        arrived: AtomicUsize,
        generation: AtomicUsize,
    }

    impl Team {
        pub fn new(workers: usize) -> Self {
            Team {
                workers,
                next: AtomicUsize::new(0),
                arrived: AtomicUsize::new(0),
                generation: AtomicUsize::new(0),
            }
        }

        /// Waits until every worker has arrived. The last to arrive resets the block
        /// counter for the next stage, then lets the others go.
        fn barrier(&self) {
            let generation = self.generation.load(Ordering::Acquire);
            if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.workers {
                self.arrived.store(0, Ordering::Relaxed);
                self.next.store(0, Ordering::Relaxed);
                self.generation.fetch_add(1, Ordering::Release);
                return;
            }
            let mut spins = 0u32;
            while self.generation.load(Ordering::Acquire) == generation {
                if spins < SPINS_BEFORE_YIELD {
                    spins += 1;
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
    }

    /// One worker of a [`Team`] of `workers`; worker 0 leads.
    pub(crate) struct TeamMember<'a> {
        pub team: &'a Team,
        pub index: usize,
        pub workers: usize,
    }

    impl Crew for TeamMember<'_> {
        fn parallel(&self, n: usize, block: usize, f: &(dyn Fn(Range<usize>) + Sync)) {
            let block = block.max(1);
            loop {
                let start = self.team.next.fetch_add(block, Ordering::Relaxed);
                if start >= n {
                    break;
                }
                f(start..(start + block).min(n));
            }
            self.team.barrier();
        }

        fn serial(&self, f: &mut dyn FnMut()) {
            if self.lead() {
                f();
            }
            self.team.barrier();
        }

        fn lead(&self) -> bool {
            self.index == 0
        }

        fn workers(&self) -> usize {
            self.workers
        }
    }
}
