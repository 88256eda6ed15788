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
        self.body_colours.clear();
        self.body_colours.resize(body_count, 0);
        colours.clear();
        colours.resize(count, OVERFLOW as u8);
        for &i in order {
            let [a, b] = movable(i as usize);
            let taken = [a, b]
                .into_iter()
                .flatten()
                .fold(0, |taken, body| taken | self.body_colours[body]);
            let colour = (!taken).trailing_zeros() as usize;
            if colour >= COLOURS {
                continue;
            }
            for body in [a, b].into_iter().flatten() {
                self.body_colours[body] |= 1 << colour;
            }
            colours[i as usize] = colour as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Constraints between solver bodies, index 0 the static stand-in (never moved).
    fn movable(pairs: &[(u32, u32)]) -> impl Fn(usize) -> [Option<usize>; 2] + '_ {
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
