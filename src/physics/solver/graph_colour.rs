//! Constraint graph colouring (Box2D v3, `constraint_graph.c`): contact constraints are
//! sorted into colours such that no two constraints of one colour move the same body.
//!
//! Within a colour the constraints are then independent: solving them in any order, four at
//! a time in SIMD lanes, or on several threads, gives the same bits. Only bodies that
//! contacts move (finite mass) take part: the static stand-in and kinematic bodies are read
//! by many constraints of a colour but never written, so they never conflict.
//!
//! Greedy, in the order the caller gives: each constraint takes the lowest colour neither of its
//! movable bodies has yet, found from a per-body bit set in one `trailing_zeros`. A body
//! with more than [`COLOURS`] contacts (a big body under a heap of small ones) sends its
//! extra constraints to the overflow set, solved one by one after the colours.
//!
//! Islands share no movable body, so a constraint's colour depends only on the constraints
//! of its own island taken before it: colouring each island alone, in the order the caller
//! gives restricted to that island, gives every constraint the colour one pass over the
//! whole order gives. [`ConstraintGraph::colour_islands`] colours the islands on every
//! worker that way.

use std::ops::Range;

use super::crew::{for_each_block, Shared};

/// Colours before the overflow set. A cube in a pile touches up to about a dozen others;
/// 32 leave room for bigger bodies.
pub(crate) const COLOURS: usize = 32;

/// The colour index of the overflow set (solved serially, after the colours).
pub(crate) const OVERFLOW: usize = COLOURS;

/// Per-step colouring state, kept between steps for its buffer.
#[derive(Clone, Debug, Default)]
pub(crate) struct ConstraintGraph {
    /// Bit c set: the body already has a constraint of colour c.
    body_colours: Vec<u32>,
}

impl ConstraintGraph {
    /// Colours `count` constraints over `body_count` solver bodies, taking them in `order`
    /// (a permutation of 0..count), and writes each constraint's colour (0..[`COLOURS`], or
    /// [`OVERFLOW`]) into `colours`. `movable(i)`: the solver bodies constraint i can move.
    pub fn colour(
        &mut self,
        count: usize,
        order: &[u32],
        body_count: usize,
        movable: impl Fn(usize) -> [Option<usize>; 2],
        colours: &mut Vec<u8>,
    ) {
        self.reset(count, body_count, colours);
        // SAFETY: one call on this thread is the only user of both arrays.
        unsafe {
            colour_in_order(
                order,
                &movable,
                Shared::new(&mut self.body_colours),
                Shared::new(colours),
            )
        };
    }

    /// Colours as [`Self::colour`] does, with `order` grouped by island: `islands` are
    /// ranges of `order`, and no movable body has constraints in two of them (the
    /// union–find's islands). Each island is coloured alone, on every worker the step may
    /// use; the colours are the same as one pass over `order` gives when each island's
    /// constraints keep the order they had there (module notes).
    pub fn colour_islands(
        &mut self,
        count: usize,
        order: &[u32],
        islands: &[Range<usize>],
        body_count: usize,
        movable: impl Fn(usize) -> [Option<usize>; 2] + Sync,
        colours: &mut Vec<u8>,
    ) {
        self.reset(count, body_count, colours);
        let body_colours = Shared::new(&mut self.body_colours);
        let colours = Shared::new(colours);
        for_each_block(islands.len(), 1, &|range| {
            for island in &islands[range] {
                // SAFETY: the islands' constraints move disjoint bodies and are disjoint
                // constraints, and each island is coloured by one worker.
                unsafe { colour_in_order(&order[island.clone()], &movable, body_colours, colours) };
            }
        });
    }

    /// No body has a colour yet; every constraint is in the overflow set until coloured.
    fn reset(&mut self, count: usize, body_count: usize, colours: &mut Vec<u8>) {
        self.body_colours.clear();
        self.body_colours.resize(body_count, 0);
        colours.clear();
        colours.resize(count, OVERFLOW as u8);
    }
}

/// The greedy colouring of the constraints in `order` (module notes).
///
/// # Safety
/// No other thread may use the entries of `body_colours` of the movable bodies of the
/// constraints in `order`, or the entries of `colours` those constraints name, while this runs.
unsafe fn colour_in_order(
    order: &[u32],
    movable: &impl Fn(usize) -> [Option<usize>; 2],
    body_colours: Shared<u32>,
    colours: Shared<u8>,
) {
    for &i in order {
        let [a, b] = movable(i as usize);
        let taken = [a, b].into_iter().flatten().fold(0, |taken, body| {
            // SAFETY: the body's entry is this call's (above).
            taken | unsafe { *body_colours.at(body) }
        });
        let colour = (!taken).trailing_zeros() as usize;
        if colour >= COLOURS {
            continue;
        }
        for body in [a, b].into_iter().flatten() {
            // SAFETY: as above.
            unsafe { *body_colours.at_mut(body) |= 1 << colour };
        }
        // SAFETY: the constraint's entry is this call's (above).
        unsafe { *colours.at_mut(i as usize) = colour as u8 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Constraints between solver bodies, index 0 the static stand-in (never moved).
    fn movable(pairs: &[(u32, u32)]) -> impl Fn(usize) -> [Option<usize>; 2] + Sync + '_ {
        |i| {
            let (a, b) = pairs[i];
            [a, b].map(|x| (x != 0).then_some(x as usize))
        }
    }

    /// The colours of `pairs` taken in index order.
    fn colour_in_order(pairs: &[(u32, u32)], body_count: usize) -> Vec<u8> {
        let order: Vec<u32> = (0..pairs.len() as u32).collect();
        let mut colours = Vec::new();
        ConstraintGraph::default().colour(
            pairs.len(),
            &order,
            body_count,
            movable(pairs),
            &mut colours,
        );
        colours
    }

    /// No colour holds two constraints that move the same body.
    fn assert_independent(pairs: &[(u32, u32)], colours: &[u8]) {
        let moved = movable(pairs);
        for i in 0..pairs.len() {
            for j in i + 1..pairs.len() {
                if colours[i] != colours[j] || colours[i] as usize == OVERFLOW {
                    continue;
                }
                let (mi, mj) = (moved(i), moved(j));
                assert!(
                    mi.iter().flatten().all(|b| !mj.contains(&Some(*b))),
                    "constraints {i} and {j} share a body in colour {}",
                    colours[i]
                );
            }
        }
    }

    proptest::proptest! {
        /// Islands coloured one by one on several workers get the colours one pass over
        /// the whole order gives: random islands of up to 12 bodies, constraints between
        /// two bodies of one island or between one and the static stand-in, taken in a
        /// random order.
        #[test]
        fn islands_coloured_apart_match_one_pass(
            sizes in proptest::collection::vec(1usize..12, 1..40),
            picks in proptest::collection::vec((0usize..1000, 0usize..1000, 0usize..1000), 0..400),
            shuffle in proptest::collection::vec(0usize..10_000, 400),
            workers in 1usize..5,
        ) {
            // Bodies 1.. by island: each island's first body.
            let mut first = vec![1usize];
            for size in &sizes {
                first.push(first.last().unwrap() + size);
            }
            let body_count = *first.last().unwrap();
            let (pairs, island): (Vec<(u32, u32)>, Vec<usize>) = picks
                .iter()
                .map(|&(k, a, b)| {
                    let i = k % sizes.len();
                    let body = |x: usize| (first[i] + x % sizes[i]) as u32;
                    // One pick in five is a contact with the static stand-in.
                    let other = if b % 5 == 0 { 0 } else { body(b) };
                    ((body(a), other), i)
                })
                .unzip();
            // A random order (each place swaps with a pick from the rest).
            let mut order: Vec<u32> = (0..pairs.len() as u32).collect();
            let n = order.len();
            for (k, pick) in shuffle.iter().enumerate().take(n) {
                order.swap(k, k + pick % (n - k));
            }
            let mut one_pass = Vec::new();
            ConstraintGraph::default().colour(
                pairs.len(),
                &order,
                body_count,
                movable(&pairs),
                &mut one_pass,
            );
            // The order grouped by island, each island's constraints as they come in it.
            let mut grouped = Vec::new();
            let mut ranges = Vec::new();
            for i in 0..sizes.len() {
                let start = grouped.len();
                grouped.extend(order.iter().filter(|&&c| island[c as usize] == i));
                ranges.push(start..grouped.len());
            }
            let mut apart = Vec::new();
            crate::physics::threads::run_with(workers, || {
                ConstraintGraph::default().colour_islands(
                    pairs.len(),
                    &grouped,
                    &ranges,
                    body_count,
                    movable(&pairs),
                    &mut apart,
                )
            });
            proptest::prop_assert_eq!(&apart, &one_pass);
            assert_independent(&pairs, &apart);
        }
    }

    #[test]
    fn a_chain_alternates_two_colours_and_static_bodies_never_conflict() {
        // Bodies 1..=5 in a row on the ground (0, static): chain links 1-2, 2-3, 3-4, 4-5
        // need only two colours; each body's ground contact takes the lowest colour its
        // body has free, and the shared ground never forces a new one.
        let mut pairs: Vec<_> = (1..5).map(|i| (i, i + 1)).collect();
        pairs.extend((1..=5).map(|i| (0, i)));
        let colours = colour_in_order(&pairs, 6);
        assert_eq!(&colours[..4], &[0, 1, 0, 1]);
        // Body 1 has colour 0, bodies 2..4 colours 0 and 1, body 5 colour 1.
        assert_eq!(&colours[4..], &[1, 2, 2, 2, 0]);
        assert_independent(&pairs, &colours);
    }

    #[test]
    fn a_body_with_more_contacts_than_colours_overflows() {
        // One body touching COLOURS + 3 others: every one of its constraints needs its own
        // colour, so the last three go to the overflow set.
        let n = COLOURS + 3;
        let pairs: Vec<_> = (2..=n as u32 + 1).map(|i| (1, i)).collect();
        let colours = colour_in_order(&pairs, n + 2);
        let expected: Vec<u8> = (0..n).map(|i| i.min(OVERFLOW) as u8).collect();
        assert_eq!(colours, expected);
        assert_independent(&pairs, &colours);
    }
}
