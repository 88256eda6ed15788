//! The `parallel` feature: the lane groups of one colour solved on several threads (rayon).
//!
//! A colour's constraints move disjoint bodies (`graph_colour.rs`): no body that one lane
//! group writes is read or written by another lane group of the same colour, and the bodies
//! they share (the static stand-in, kinematic bodies) are only read. So the lane groups of
//! a colour can run in any order, on any threads, and each computes exactly what it computes
//! on one thread: the step is bit-identical at any thread count (the test below, and
//! `.ci/run`'s runs at 1 to 4 threads).
//! Colours still run one after the other, and the overflow set (constraints that could not
//! be coloured) in order on the calling thread.

use rayon::prelude::*;

use super::body::SolverBody;
use super::contact_solve::{run_lanes, Bodies, Work};
use super::lanes::{ConstraintLanes, LaneBlocks, PassFactors};
use super::StepContext;

/// Lane groups per task. One lane group's pass takes about 0.7 µs and a fork-join of the
/// pool some 10–20 µs on a shared two-core machine, so a task gets a few dozen.
const MIN_LANES_PER_TASK: usize = 32;

/// A colour with fewer lane groups runs on the calling thread: splitting it costs more
/// than it saves. Measured on a shared two-core machine with every colour of 32 or more
/// split: the base-40 wall pyramid (about 80 lane groups per colour) 20 % slower on two
/// threads, pile4000 (one to two hundred) 15 % slower, the base-100 pyramid (about 460)
/// 25–30 % faster.
const MIN_LANES_TO_SPLIT: usize = 256;

/// The solver body array shared by the threads working on one colour.
#[derive(Clone, Copy)]
struct SharedBodies {
    ptr: *mut SolverBody,
    len: usize,
}

// SAFETY: the pointer comes from a `&mut [SolverBody]` borrowed for the whole colour
// (`run_colour`); the threads access it only through `Bodies`, and by the colouring no two
// of them touch the same element while one of them writes it (module notes).
unsafe impl Send for SharedBodies {}
unsafe impl Sync for SharedBodies {}

impl Bodies for SharedBodies {
    #[inline]
    fn at(&self, index: u32) -> &SolverBody {
        let index = index as usize;
        assert!(index < self.len, "solver body {index} out of range");
        // SAFETY: in bounds; no other thread writes this body during the colour.
        unsafe { &*self.ptr.add(index) }
    }

    #[inline]
    fn at_mut(&mut self, index: u32) -> &mut SolverBody {
        let index = index as usize;
        assert!(index < self.len, "solver body {index} out of range");
        // SAFETY: in bounds; this lane group is the only one of its colour that reads or
        // writes a body it moves, and the reference lives only for the write.
        unsafe { &mut *self.ptr.add(index) }
    }
}

/// Does `work` on the lane groups of one colour, spread over the rayon pool.
pub(crate) fn run_colour(
    work: Work,
    bodies: &mut [SolverBody],
    lanes: &mut [ConstraintLanes],
    cold: &mut [LaneBlocks],
    factors: &mut [PassFactors],
    ctx: &StepContext,
) {
    if lanes.len() < MIN_LANES_TO_SPLIT || !crate::physics::threads::split_here() {
        for ((c, cold), factors) in lanes.iter_mut().zip(cold).zip(factors) {
            run_lanes(work, bodies, c, cold, factors, ctx);
        }
        return;
    }
    let shared = SharedBodies {
        ptr: bodies.as_mut_ptr(),
        len: bodies.len(),
    };
    lanes
        .par_iter_mut()
        .zip(cold.par_iter_mut())
        .zip(factors.par_iter_mut())
        .with_min_len(MIN_LANES_PER_TASK)
        .for_each(|((c, cold), factors)| {
            let mut bodies = shared;
            run_lanes(work, &mut bodies, c, cold, factors, ctx);
        });
}

#[cfg(test)]
mod tests {
    use super::super::constraint::{ConstraintInput, ConstraintShared, PointInput};
    use super::super::contact_solve::Pass;
    use super::super::lanes::prepare_colours;
    use super::super::simd::LANES;
    use super::super::Softness;
    use super::*;
    use crate::physics::collider::MixedMaterial;
    use crate::physics::math::Vec3;
    use crate::physics::narrow_phase::gjk::test_support::Lcg;

    /// One colour big enough to be split: `n` cubes landing on the ground (static, index 0),
    /// each at its own speed and spin, four corner points each.
    type Lanes = (Vec<ConstraintLanes>, Vec<LaneBlocks>, [Vec<PassFactors>; 2]);

    fn colour(n: u32) -> (Vec<SolverBody>, Lanes) {
        let mut rng = Lcg(7);
        let mut bodies = vec![SolverBody::STATIC];
        bodies.extend((0..n).map(|_| SolverBody {
            linear_velocity: rng.vec_in(1.0) - Vec3::Y,
            angular_velocity: rng.vec_in(1.0),
            inv_mass: 1.0,
            inv_inertia: crate::physics::math::Mat3::IDENTITY * 6.0,
            ..SolverBody::STATIC
        }));
        let h = 1.0 / 240.0;
        let inputs: Vec<ConstraintInput> = (1..=n)
            .map(|i| {
                let points: Vec<PointInput> = [(0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5), (0.5, -0.5)]
                    .iter()
                    .map(|&(x, z)| PointInput {
                        anchor_a: Vec3::new(x, 0.5, z),
                        anchor_b: Vec3::new(x, -0.5, z),
                        depth: rng.range(-0.01, 0.02),
                        normal_impulse: rng.range(0.0, 0.02),
                        tangent_impulse: rng.vec_in(0.005),
                    })
                    .collect();
                let shared = ConstraintShared {
                    contact: i,
                    normal: Vec3::Y,
                    material: MixedMaterial {
                        friction: 0.6,
                        restitution: 0.3,
                        rolling_resistance: 0.0,
                    },
                    rolling_impulse: Vec3::ZERO,
                    twist_impulse: 0.0,
                    softness: Softness::new(45.0, 10.0, h),
                    warm_start: true,
                };
                ConstraintInput::new(0, i, &points, shared)
            })
            .collect();
        let order: Vec<u32> = (0..n).collect();
        let one_colour = [0..n as usize; 1];
        let (mut lanes, mut cold, mut factors) = (Vec::new(), Vec::new(), [Vec::new(), Vec::new()]);
        let mut ranges = Vec::new();
        prepare_colours(
            &inputs,
            &bodies,
            &order,
            &one_colour,
            false,
            (&mut lanes, &mut cold, &mut factors),
            &mut ranges,
        );
        (bodies, (lanes, cold, factors))
    }

    fn context() -> StepContext {
        let h = 1.0 / 240.0;
        StepContext {
            h,
            inv_h: 1.0 / h,
            contact_softness: Softness::new(45.0, 10.0, h),
            static_softness: Softness::new(90.0, 10.0, h),
            max_push_velocity: 3.0,
            restitution_threshold: 0.5,
            max_angular_speed: 100.0,
        }
    }

    const WORK: [Work; 5] = [
        Work::warm_start(false),
        Work::solve(Pass::Biased, false),
        Work::solve(Pass::Relax, false),
        Work::solve(Pass::Biased, false),
        Work::restitution(false),
    ];

    #[test]
    fn a_split_colour_gives_the_bits_of_one_thread_at_any_thread_count() {
        // 4000 constraints, 1000 lane groups: well over the split threshold. Every body and
        // every impulse after warm start, three passes and restitution must be the bits of
        // the same work done in order on one thread.
        let ctx = context();
        let (bodies, lanes) = colour(4000);
        assert!(lanes.0.len() >= MIN_LANES_TO_SPLIT * 2);
        let mut serial = (bodies.clone(), lanes.clone());
        for work in WORK {
            let factors = &mut serial.1 .2[work.factors()];
            for ((c, cold), factors) in serial.1 .0.iter_mut().zip(&mut serial.1 .1).zip(factors) {
                run_lanes(work, serial.0.as_mut_slice(), c, cold, factors, &ctx);
            }
        }
        let impulses = |lanes: &Lanes| -> Vec<_> {
            lanes
                .0
                .iter()
                .zip(&lanes.1)
                .flat_map(|(c, cold)| (0..LANES).filter_map(|l| c.lane_impulses(cold, l)))
                .map(|i| (i.contact, i.points))
                .collect()
        };
        for threads in [1, 2, 3, 4] {
            let (mut b, mut l) = (bodies.clone(), lanes.clone());
            crate::physics::threads::run_with(threads, || {
                for work in WORK {
                    let factors = &mut l.2[work.factors()];
                    run_colour(work, &mut b, &mut l.0, &mut l.1, factors, &ctx);
                }
            });
            for (x, y) in b.iter().zip(&serial.0) {
                assert_eq!(x.linear_velocity, y.linear_velocity, "{threads} threads");
                assert_eq!(x.angular_velocity, y.angular_velocity, "{threads} threads");
            }
            assert_eq!(impulses(&l), impulses(&serial.1), "{threads} threads");
        }
        // And the passes did something: they slowed the fall of most cubes (the others are
        // still a few millimetres apart, and speculative contacts let them close the gap).
        let slowed = serial.0[1..]
            .iter()
            .zip(&bodies[1..])
            .filter(|(after, before)| after.linear_velocity.y > before.linear_velocity.y + 0.1)
            .count();
        assert!(slowed > 2000, "{slowed} of 4000");
    }
}
