//! Who runs a sub-step group's stages: the calling thread alone, or (with the `parallel`
//! feature) every thread of a team at once (`physics/threads.rs`), as Box2D v3's solver
//! does.
//!
//! The sub-steps are a fixed sequence of stages (integrate velocities, warm start colour by
//! colour, the joints, the biased pass colour by colour, ...). With a team every worker
//! runs the same sequence: a stage's work is cut into blocks, each worker takes the blocks
//! of its own part of the stage first and then what is left of the others' (`Team`), and
//! the last worker to report its blocks done opens the next stage (a microsecond or so on
//! two idle cores, where a fork and join of a pool per stage costs 10–20 µs). A worker
//! reaching a stage that is already over skips it, so a worker the system has not
//! scheduled holds up no one unless it has taken blocks it has not reported. A stage that must run
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

    /// [`Shared::at`] with its bound checked in debug builds only.
    ///
    /// # Safety
    /// As [`Shared::at`], and `index < self.len()`.
    #[inline]
    pub unsafe fn at_unchecked(&self, index: usize) -> &T {
        debug_assert!(index < self.len, "{index} of {}", self.len);
        // SAFETY: in bounds and no writer, by the caller's promise.
        unsafe { &*self.ptr.add(index) }
    }

    /// [`Shared::at_mut`] with its bound checked in debug builds only.
    ///
    /// # Safety
    /// As [`Shared::at_mut`], and `index < self.len()`.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn at_mut_unchecked(&self, index: usize) -> &mut T {
        debug_assert!(index < self.len, "{index} of {}", self.len);
        // SAFETY: in bounds and exclusive, by the caller's promise.
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
    /// This worker's index, 0 to `workers() − 1` (0: the lead).
    fn index(&self) -> usize;
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

    fn index(&self) -> usize {
        0
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

/// Appends `parts(0)`, `parts(1)`, … `parts(n - 1)` to `out`, in that order: copied on every
/// worker the running step may use, part by part into the places their lengths add up to,
/// once they hold [`MIN_TO_APPEND_SHARED`] elements in all, else here. `offsets` is a
/// buffer kept by the caller.
pub(crate) fn append_in_order<'a, T: Copy + Send + Sync + 'a>(
    out: &mut Vec<T>,
    n: usize,
    parts: &(dyn Fn(usize) -> &'a [T] + Sync),
    offsets: &mut Vec<usize>,
) {
    offsets.clear();
    let mut end = out.len();
    for k in 0..n {
        offsets.push(end);
        end += parts(k).len();
    }
    if end - out.len() < MIN_TO_APPEND_SHARED {
        (0..n).for_each(|k| out.extend_from_slice(parts(k)));
        return;
    }
    // Every new element is written below; the first one stands in until then.
    let first = (0..n).find_map(|k| parts(k).first().copied());
    if let Some(first) = first {
        out.resize(end, first);
    }
    let (dest, offsets) = (Shared::new(out), &*offsets);
    for_each_block(n, 1, &|range: Range<usize>| {
        for k in range {
            let part = parts(k);
            // SAFETY: part k's places are its own (the offsets above).
            unsafe { dest.slice(offsets[k]..offsets[k] + part.len()) }.copy_from_slice(part);
        }
    });
}

/// Fewest elements [`append_in_order`] copies on the team: 32 KB and more of contact
/// events, which the lead would otherwise read from the cache of the worker that wrote them.
const MIN_TO_APPEND_SHARED: usize = 1024;

/// Parts a stage's blocks are split into, one per worker: a worker takes its own part's
/// blocks first (see `Team`). With more workers than [`MAX_PARTS`], worker i starts at part
/// i mod [`MAX_PARTS`].
pub(crate) fn parts(workers: usize) -> usize {
    workers.clamp(1, MAX_PARTS)
}

/// The most parts a stage is split into.
const MAX_PARTS: usize = 32;

/// Blocks `part` of `blocks` blocks split into `parts` parts: the parts are contiguous,
/// in order, and differ by at most one block.
fn part_blocks(part: usize, blocks: usize, parts: usize) -> Range<usize> {
    part * blocks / parts..(part + 1) * blocks / parts
}

/// Items `part` of a stage of `n` items in blocks of `block` on `workers` workers: what
/// that worker takes first (the team's split, [`part_blocks`]; a stage of no items, which
/// the team runs as one empty block, has no items in any part).
pub(crate) fn part_range(n: usize, block: usize, workers: usize, part: usize) -> Range<usize> {
    let block = block.max(1);
    let blocks = part_blocks(part, n.div_ceil(block), parts(workers));
    (blocks.start * block).min(n)..(blocks.end * block).min(n)
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

    /// A counter alone on its cache lines (128 bytes: x86 fetches lines in pairs), so that
    /// one worker claiming its blocks does not take the line from another.
    #[repr(align(128))]
    struct Padded(AtomicU64);

    /// What the workers of one group solve share. Stages are numbered in the order every
    /// worker meets them, from 1; `stage` is the one open now.
    ///
    /// A stage's blocks are split into one contiguous part per worker, as Box2D v3's
    /// `b2ExecuteStage` starts each worker at its own block: a worker takes its own part's
    /// blocks first, in order, then the rest of the others' parts. A per-body stage then
    /// gives each worker the same bodies stage after stage, and a colour the same stretch
    /// of its lane groups, so their data stays in that core's cache; where cores are far
    /// apart (a virtual machine's two cores on two dies), moving a body's cache line
    /// between them costs more than solving it. Each part's cursor (its next block,
    /// tagged with the stage) sits on its own cache line; a cursor tagged with an earlier
    /// stage stands at its part's first block. Each worker counts the blocks it finished
    /// and adds them to `done` once, when nothing is left to take; whoever brings `done`
    /// to the stage's total opens the next stage. A worker that reaches a stage already
    /// finished skips it, so one the system did not schedule for a while holds nobody up
    /// unless it has taken blocks it has not reported.
    pub(crate) struct Team {
        workers: usize,
        stage: Padded,
        done: Padded,
        parts: [Padded; super::MAX_PARTS],
    }

    impl Team {
        pub fn new(workers: usize) -> Self {
            Team {
                workers,
                stage: Padded(AtomicU64::new(1)),
                done: Padded(AtomicU64::new(1 << 32)),
                parts: std::array::from_fn(|_| Padded(AtomicU64::new(0))),
            }
        }

        /// Opens stage `next`: a fresh count, then the number every waiter watches (the
        /// parts' cursors are behind it by their tags).
        fn open(&self, next: u64) {
            self.done.0.store(next << 32, Ordering::Relaxed);
            self.stage.0.store(next, Ordering::Release);
        }

        /// Waits until the open stage is at least `stage`; returns it.
        fn wait_for(&self, stage: u64) -> u64 {
            let mut spins = 0u32;
            loop {
                let now = self.stage.0.load(Ordering::Acquire);
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

        /// Takes the next block of `part` (blocks `first..end`) in stage `s`, if any is left.
        fn claim(&self, part: usize, first: u64, end: u64, s: u64) -> Option<u64> {
            let cursor = &self.parts[part].0;
            let mut v = cursor.load(Ordering::Acquire);
            loop {
                let next = match v >> 32 {
                    tag if tag == s => v & COUNT,
                    tag if tag < s => first,
                    _ => return None,
                };
                if next >= end {
                    return None;
                }
                match cursor.compare_exchange_weak(
                    v,
                    (s << 32) | (next + 1),
                    Ordering::AcqRel,
                    Ordering::Acquire,
                ) {
                    Ok(_) => return Some(next),
                    Err(now) => v = now,
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
                next: Cell::new(1),
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
            let items = n;
            let (n, block) = (n.max(1) as u64, block.max(1) as u64);
            let blocks = n.div_ceil(block);
            let parts = super::parts(self.workers);
            let home = self.index % parts;
            let mut finished = 0;
            for p in (home..parts).chain(0..home) {
                let own = super::part_blocks(p, blocks as usize, parts);
                let (first, end) = (own.start as u64, own.end as u64);
                while let Some(b) = team.claim(p, first, end, s) {
                    let start = b * block;
                    let stop = (start + block).min(n);
                    let real = (start as usize)..(stop as usize).min(items);
                    if !real.is_empty() {
                        f(real);
                    }
                    finished += stop - start;
                }
            }
            if finished > 0 {
                let done = team.done.0.fetch_add(finished, Ordering::AcqRel) + finished;
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

        fn index(&self) -> usize {
            self.index
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parts appended in order after what the list held, the same as one `extend` after
    /// another, below and above the count shared with the team, at 1 to 4 workers, with
    /// empty parts among them.
    #[test]
    fn parts_are_appended_in_order() {
        for total in [0, 10, MIN_TO_APPEND_SHARED - 1, MIN_TO_APPEND_SHARED, 5000] {
            // Parts of 0, 7, 14, … 63 elements (every tenth empty) until `total`.
            let mut parts: Vec<Vec<u32>> = Vec::new();
            let mut made = 0;
            while made < total {
                let len = ((parts.len() % 10) * 7).min(total - made);
                parts.push((made..made + len).map(|x| x as u32 * 3 + 1).collect());
                made += len;
            }
            let mut expected = vec![9, 8];
            parts.iter().for_each(|p| expected.extend_from_slice(p));
            for workers in 1..=4 {
                let mut out = vec![9, 8];
                crate::physics::threads::run_with(workers, || {
                    append_in_order(&mut out, parts.len(), &|k| &parts[k], &mut Vec::new())
                });
                assert_eq!(out, expected, "{total} elements, {workers} workers");
            }
        }
    }

    /// The parts are contiguous, in order, and cover every item once, for every split the
    /// stages use (items that are not a multiple of the block, fewer blocks than parts,
    /// more workers than parts); no two parts differ by more than one block.
    #[test]
    fn parts_cover_the_items_once_in_order() {
        for n in [0, 1, 5, 255, 256, 257, 1000, 4000] {
            for block in [1, 4, 16, 256] {
                for workers in [1, 2, 3, 5, 16, 40] {
                    let parts = parts(workers);
                    let mut next = 0;
                    for p in 0..parts {
                        let r = part_range(n, block, workers, p);
                        assert_eq!(r.start, next, "n {n} block {block} workers {workers}");
                        // Every part but the last holds whole blocks; their counts differ by
                        // at most one.
                        let blocks = part_blocks(p, n.div_ceil(block), parts).len();
                        let even = n.div_ceil(block) / parts;
                        assert!(blocks == even || blocks == even + 1);
                        assert_eq!(r.len().div_ceil(block), blocks);
                        next = r.end;
                    }
                    assert_eq!(next, n);
                }
            }
        }
    }

    /// A team's stages, run by threads of its own: parallel stages of 0 to 1 000 items (in
    /// blocks of 1 to 64) between serial ones, 2 to 40 workers (more than there are parts,
    /// so some share a part). Every item is visited once per stage, and each serial stage
    /// sees every item of the stage before it done.
    #[cfg(feature = "parallel")]
    #[test]
    fn a_team_finishes_every_stage_before_the_next_begins() {
        use std::sync::atomic::{AtomicU32, Ordering};
        let stages = [(1000, 7), (0, 16), (5, 64), (1, 1), (777, 1), (64, 64)];
        for workers in [2, 3, 33, 40] {
            let team = Team::new(workers);
            let seen: Vec<AtomicU32> = (0..1000).map(|_| AtomicU32::new(0)).collect();
            let checked = AtomicU32::new(0);
            std::thread::scope(|scope| {
                for index in 0..workers {
                    let (team, seen, checked) = (&team, &seen, &checked);
                    scope.spawn(move || {
                        let member = TeamMember::new(team, index);
                        for _ in 0..3 {
                            for &(n, block) in &stages {
                                member.parallel(n, block, &|r: Range<usize>| {
                                    for i in r {
                                        seen[i].fetch_add(1, Ordering::Relaxed);
                                    }
                                });
                                member.serial(&mut || {
                                    // Counted, not asserted: a panicking lead would
                                    // leave the others waiting for its stage.
                                    let wrong = seen
                                        .iter()
                                        .enumerate()
                                        .filter(|&(i, count)| {
                                            count.swap(0, Ordering::Relaxed) != u32::from(i < n)
                                        })
                                        .count();
                                    if wrong == 0 {
                                        checked.fetch_add(1, Ordering::Relaxed);
                                    }
                                });
                            }
                        }
                    });
                }
            });
            // Every serial stage found its stage's items visited once each.
            assert_eq!(
                checked.load(Ordering::Relaxed),
                3 * stages.len() as u32,
                "{workers} workers"
            );
        }
    }

    /// On a team, every item of a stage is visited exactly once, whoever takes which block
    /// (each worker's own part first, then the others'), stage after stage.
    #[test]
    fn a_team_visits_every_item_once() {
        use std::sync::atomic::{AtomicU32, Ordering};
        for workers in [1, 2, 3, 7] {
            crate::physics::threads::run_with(workers, || {
                for (n, block) in [(1000, 7), (5, 16), (4096, 256), (33, 1)] {
                    let seen: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
                    for _ in 0..3 {
                        for_each_block(n, block, &|r: Range<usize>| {
                            for i in r {
                                seen[i].fetch_add(1, Ordering::Relaxed);
                            }
                        });
                    }
                    assert!(
                        seen.iter().all(|s| s.load(Ordering::Relaxed) == 3),
                        "{workers} workers, {n} items in blocks of {block}"
                    );
                }
            });
        }
    }
}
