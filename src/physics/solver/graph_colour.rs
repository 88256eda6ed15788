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

use super::constraint::ContactConstraint;

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
    /// Colours `constraints` over `body_count` solver bodies, taking them in `order` (a
    /// permutation of their indices), and writes each constraint's colour (0..[`COLOURS`],
    /// or [`OVERFLOW`]) into `colours`.
    pub fn colour(
        &mut self,
        constraints: &[ContactConstraint],
        order: &[u32],
        body_count: usize,
        colours: &mut Vec<u8>,
    ) {
        self.body_colours.clear();
        self.body_colours.resize(body_count, 0);
        colours.clear();
        colours.resize(constraints.len(), OVERFLOW as u8);
        let movable = |index: u32, inv_mass: f32| (inv_mass > 0.0).then_some(index as usize);
        for &i in order {
            let c = &constraints[i as usize];
            let a = movable(c.body_a, c.inv_mass_a);
            let b = movable(c.body_b, c.inv_mass_b);
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
    use super::super::body::SolverBody;
    use super::super::constraint::{ConstraintShared, PointInput};
    use super::super::Softness;
    use super::*;
    use crate::physics::collider::MixedMaterial;
    use crate::physics::math::Vec3;

    fn constraint(bodies: &[SolverBody], a: u32, b: u32) -> ContactConstraint {
        let shared = ConstraintShared {
            contact: 0,
            normal: Vec3::Y,
            material: MixedMaterial::default(),
            rolling_impulse: Vec3::ZERO,
            softness: Softness::RIGID,
            warm_start: false,
        };
        let input = PointInput {
            anchor_a: Vec3::ZERO,
            anchor_b: Vec3::ZERO,
            depth: 0.0,
            normal_impulse: 0.0,
            tangent_impulse: Vec3::ZERO,
        };
        ContactConstraint::prepare(
            (a, &bodies[a as usize]),
            (b, &bodies[b as usize]),
            &[input],
            &shared,
        )
    }

    /// The colours of `constraints` taken in index order.
    fn colour_in_order(constraints: &[ContactConstraint], body_count: usize) -> Vec<u8> {
        let order: Vec<u32> = (0..constraints.len() as u32).collect();
        let mut colours = Vec::new();
        ConstraintGraph::default().colour(constraints, &order, body_count, &mut colours);
        colours
    }

    /// No colour holds two constraints that move the same body.
    fn assert_independent(constraints: &[ContactConstraint], colours: &[u8]) {
        for (i, ci) in constraints.iter().enumerate() {
            for (j, cj) in constraints.iter().enumerate().skip(i + 1) {
                if colours[i] != colours[j] || colours[i] as usize == OVERFLOW {
                    continue;
                }
                let moved = |c: &ContactConstraint| {
                    [(c.body_a, c.inv_mass_a), (c.body_b, c.inv_mass_b)]
                        .into_iter()
                        .filter(|&(_, m)| m > 0.0)
                        .map(|(b, _)| b)
                        .collect::<Vec<_>>()
                };
                let (mi, mj) = (moved(ci), moved(cj));
                assert!(
                    mi.iter().all(|b| !mj.contains(b)),
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
        let mut bodies = vec![SolverBody::STATIC];
        bodies.extend((0..5).map(|_| SolverBody::unit_cube(Vec3::ZERO)));
        let mut constraints: Vec<_> = (1..5).map(|i| constraint(&bodies, i, i + 1)).collect();
        constraints.extend((1..=5).map(|i| constraint(&bodies, 0, i)));
        let colours = colour_in_order(&constraints, bodies.len());
        assert_eq!(&colours[..4], &[0, 1, 0, 1]);
        // Body 1 has colour 0, bodies 2..4 colours 0 and 1, body 5 colour 1.
        assert_eq!(&colours[4..], &[1, 2, 2, 2, 0]);
        assert_independent(&constraints, &colours);
    }

    #[test]
    fn a_body_with_more_contacts_than_colours_overflows() {
        // One body touching COLOURS + 3 others: every one of its constraints needs its own
        // colour, so the last three go to the overflow set.
        let n = COLOURS + 3;
        let bodies: Vec<_> = std::iter::once(SolverBody::STATIC)
            .chain((0..=n).map(|_| SolverBody::unit_cube(Vec3::ZERO)))
            .collect();
        let constraints: Vec<_> = (2..=n as u32 + 1)
            .map(|i| constraint(&bodies, 1, i))
            .collect();
        let colours = colour_in_order(&constraints, bodies.len());
        let expected: Vec<u8> = (0..n).map(|i| i.min(OVERFLOW) as u8).collect();
        assert_eq!(colours, expected);
        assert_independent(&constraints, &colours);
    }
}
