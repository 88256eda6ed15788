//! Who runs a sub-step group's stages: the calling thread alone, or (with the `parallel`
//! feature) every thread of a team at once (`physics/threads.rs`), as Box2D v3's solver
//! does.
//!
//! The sub-steps are a fixed sequence of stages (integrate velocities, warm start colour by
//! colour, the joints, the biased pass colour by colour, ...). With a team every worker
//! runs the same sequence: a stage's work is cut into blocks that the workers claim from an
//! atomic counter, and whoever finishes the stage's last block opens the next stage (a
//! microsecond or so on two idle cores, where a fork and join of a pool per stage costs
//! 10–20 µs). A worker reaching a stage that is already over skips it, so a worker the
//! system has not scheduled holds up no one unless it holds a block. A stage that must run
//! in order (the joints, the overflow set) runs on the lead worker while the others wait.
//! The blocks of a stage touch disjoint data (a colour's lane groups move disjoint bodies,
//! `graph_colour.rs`; a per-body stage gives each block its own bodies), so which worker
//! takes a block changes nothing: the result is the bits of one thread.

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
// SAFETY: as for `Send`: shared references to it only reach elements one worker at a time.
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

    /// The first element's address (for prefetch hints; never read through here).
    pub fn as_ptr(&self) -> *const T {
        self.ptr
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
pub(crate) trait Crew {
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
        if workers > 1 && n > block {
            let team = Team::new(workers);
            let shared = threads::try_team_run(workers, &|index| {
                TeamMember::new(&team, index).parallel(n, block, f);
            });
            if shared {
                return;
            }
        }
    }
    Alone.parallel(n, block, f);
}

/// Where each block of `block` items (of `n`) starts writing what it keeps, when the
/// blocks fill one array together in the order one thread would: `starts[b]` for block b,
/// the total last (returned too). `kept(i)` says whether item i writes; the counting runs
/// on every worker ([`for_each_block`]).
pub(crate) fn block_offsets(
    n: usize,
    block: usize,
    starts: &mut Vec<u32>,
    kept: &(dyn Fn(usize) -> bool + Sync),
) -> usize {
    let blocks = n.div_ceil(block);
    starts.clear();
    starts.resize(blocks + 1, 0);
    let counts = Shared::new(&mut starts[1..]);
    for_each_block(blocks, 1, &|range: Range<usize>| {
        for b in range {
            let count = (b * block..((b + 1) * block).min(n))
                .filter(|&i| kept(i))
                .count();
            // SAFETY: each block writes its own count.
            unsafe { *counts.at_mut(b) = count as u32 };
        }
    });
    for b in 0..blocks {
        starts[b + 1] += starts[b];
    }
    starts[blocks] as usize
}

#[cfg(feature = "parallel")]
pub(crate) use team::{Team, TeamMember};

#[cfg(feature = "parallel")]
mod team {
    use std::cell::Cell;
    use std::ops::Range;
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::Crew;

    /// Spins before a waiting worker starts yielding its core: a stage of a large scene
    /// ends within microseconds, but on a machine with more busy threads than cores the
    /// worker being waited on may need the core back.
    const SPINS_BEFORE_YIELD: u32 = 1 << 10;

    /// The stage number in the high 32 bits of a counter, the count in the low 32.
    const COUNT: u64 = (1 << 32) - 1;

    /// What the workers of one group solve share. Stages are numbered in the order every
    /// worker meets them; `stage` is the one open now. A stage's blocks are claimed from
    /// `claimed` and counted done in `done`, both tagged with the stage's number, and the
    /// worker that finishes its last block opens the next stage. A worker that reaches a
    /// stage already finished skips it, so one the system did not schedule for a while
    /// holds nobody up unless it holds a block.
    pub(crate) struct Team {
        workers: usize,
        stage: AtomicU64,
        claimed: AtomicU64,
        done: AtomicU64,
    }

    impl Team {
        pub fn new(workers: usize) -> Self {
            Team {
                workers,
                stage: AtomicU64::new(0),
                claimed: AtomicU64::new(0),
                done: AtomicU64::new(0),
            }
        }

        /// Opens stage `next`: fresh counters, then the number every waiter watches.
        fn open(&self, next: u64) {
            self.claimed.store(next << 32, Ordering::Relaxed);
            self.done.store(next << 32, Ordering::Relaxed);
            self.stage.store(next, Ordering::Release);
        }

        /// Waits until the open stage is at least `stage`; returns it.
        fn wait_for(&self, stage: u64) -> u64 {
            let mut spins = 0u32;
            loop {
                let now = self.stage.load(Ordering::Acquire);
                if now >= stage {
                    return now;
                }
                if spins < SPINS_BEFORE_YIELD {
                    spins += 1;
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
    }

    /// One worker of a [`Team`] of `workers`; worker 0 leads. `next` is the number of the
    /// next stage it meets.
    pub(crate) struct TeamMember<'a> {
        pub team: &'a Team,
        pub index: usize,
        pub workers: usize,
        pub next: Cell<u64>,
    }

    impl<'a> TeamMember<'a> {
        pub fn new(team: &'a Team, index: usize) -> Self {
            TeamMember {
                team,
                index,
                workers: team.workers,
                next: Cell::new(0),
            }
        }

        /// This worker's next stage number, counted on.
        fn take_stage(&self) -> u64 {
            let s = self.next.get();
            self.next.set(s + 1);
            s
        }
    }

    impl Crew for TeamMember<'_> {
        fn parallel(&self, n: usize, block: usize, f: &(dyn Fn(Range<usize>) + Sync)) {
            let team = self.team;
            let s = self.take_stage();
            if team.wait_for(s) > s {
                return;
            }
            // An empty stage is one empty block, so that someone finishes it.
            let (n, block) = (n.max(1) as u64, block.max(1) as u64);
            loop {
                let v = team.claimed.load(Ordering::Acquire);
                let start = v & COUNT;
                if v >> 32 != s || start >= n {
                    break;
                }
                if team
                    .claimed
                    .compare_exchange_weak(v, v + block, Ordering::AcqRel, Ordering::Relaxed)
                    .is_err()
                {
                    continue;
                }
                let end = (start + block).min(n);
                let real = (start as usize)..(end as usize).min(n as usize);
                if !real.is_empty() {
                    f(real);
                }
                let done = team.done.fetch_add(end - start, Ordering::AcqRel) + (end - start);
                if done & COUNT == n {
                    team.open(s + 1);
                }
            }
            team.wait_for(s + 1);
        }

        fn serial(&self, f: &mut dyn FnMut()) {
            let s = self.take_stage();
            if self.lead() {
                self.team.wait_for(s);
                f();
                self.team.open(s + 1);
            } else {
                self.team.wait_for(s + 1);
            }
        }

        fn lead(&self) -> bool {
            self.index == 0
        }

        fn workers(&self) -> usize {
            self.workers
        }
    }
}
