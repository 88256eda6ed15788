//! Phases 3 and 4's bodies: the awake bodies gathered into the solver's arrays (the layout
//! in `mod.rs`), and after the sub-steps written back with their colliders, proxies and
//! sleep timers.

use std::ops::Range;

use crate::physics::body::{BodyType, NULL};
use crate::physics::broad_phase::{fatten_aabb, needs_reinsert, ProxyMove};
use crate::physics::island::{flatten_roots, sleep_timer};
use crate::physics::math::{Isometry, Quat, Vec3};
use crate::physics::solver::crew::{for_each_block, Shared};
use crate::physics::solver::{self, SolverBody, SolverForces};
use crate::physics::world::World;

/// Solver bodies per block when they are filled on several workers.
const FILL_BLOCK: usize = 256;

impl World {
    /// Fills the solver body array (layout in the module notes), builds the islands of the
    /// awake dynamic bodies and splits them into sub-step groups.
    pub(super) fn gather_solver_bodies(&mut self) {
        // 1. Provisional indices: kinematic bodies first, then dynamic ones in slot order.
        //    A body whose inputs are not finite (forces summed past f32's range) is frozen
        //    first, before it can touch anything. Two sweeps over the body slots in blocks
        //    on every worker: one counts each block's kinematic, dynamic and ccd bodies
        //    (and those to freeze), the other, from the blocks' running sums, gives out the
        //    same indices one pass in slot order would.
        let gravity = self.settings.gravity;
        let slots = self.bodies.capacity();
        let blocks = slots.div_ceil(INDEX_BLOCK);
        let counts = &mut self.scratch.solver.index_counts;
        counts.clear();
        counts.resize(blocks, BlockCounts::default());
        {
            let bodies = &self.bodies;
            let out = Shared::new(counts);
            for_each_block(blocks, 1, &|range: Range<usize>| {
                for block in range {
                    let mut c = BlockCounts::default();
                    for slot in block * INDEX_BLOCK..((block + 1) * INDEX_BLOCK).min(slots) {
                        let Some(body) = bodies.at(slot as u32) else {
                            continue;
                        };
                        let dynamic = body.awake && body.body_type == BodyType::Dynamic;
                        let freezes = dynamic && !body.frozen && !inputs_finite(body, gravity);
                        c.freezing += freezes as u32;
                        if body.awake && body.body_type == BodyType::Kinematic {
                            c.kinematic += 1;
                        } else if dynamic && !body.frozen && !freezes {
                            c.dynamic += 1;
                            c.ccd += body.ccd as u32;
                        }
                    }
                    // SAFETY: each block writes its own counts.
                    unsafe { *out.at_mut(block) = c };
                }
            });
        }
        if counts.iter().any(|c| c.freezing > 0) {
            // Rare: the bodies to freeze, reported in slot order.
            for (handle, body) in self.bodies.iter_mut() {
                if !body.frozen
                    && body.awake
                    && body.body_type == BodyType::Dynamic
                    && !inputs_finite(body, gravity)
                {
                    freeze(body);
                    self.frozen_events.push(handle);
                }
            }
        }
        let counts = &mut self.scratch.solver.index_counts;
        let kinematic: u32 = counts.iter().map(|c| c.kinematic).sum();
        // Each block's first kinematic, dynamic and ccd index, in place of its counts.
        let (mut next_kinematic, mut next_dynamic, mut next_ccd) = (1u32, 1 + kinematic, 0u32);
        for c in counts.iter_mut() {
            let first = BlockCounts {
                kinematic: next_kinematic,
                dynamic: next_dynamic,
                ccd: next_ccd,
                freezing: 0,
            };
            next_kinematic += c.kinematic;
            next_dynamic += c.dynamic;
            next_ccd += c.ccd;
            *c = first;
        }
        let count = next_dynamic;
        let to_body = &mut self.scratch.solver.to_body;
        let ccd = &mut self.scratch.ccd.bodies;
        to_body.clear();
        to_body.resize(count as usize, NULL);
        ccd.clear();
        ccd.resize(next_ccd as usize, (NULL, Vec3::ZERO, Quat::IDENTITY));
        {
            let shared_bodies = self.bodies.shared();
            let (firsts, to_body, ccd) = (&*counts, Shared::new(to_body), Shared::new(ccd));
            for_each_block(blocks, 1, &|range: Range<usize>| {
                for block in range {
                    let mut next = firsts[block];
                    for slot in block * INDEX_BLOCK..((block + 1) * INDEX_BLOCK).min(slots) {
                        // SAFETY: the slot is this block's alone.
                        let Some(body) = (unsafe { shared_bodies.at_mut(slot as u32) }) else {
                            continue;
                        };
                        body.solver_index = match body.body_type {
                            BodyType::Kinematic if body.awake => {
                                next.kinematic += 1;
                                next.kinematic - 1
                            }
                            BodyType::Dynamic if body.awake && !body.frozen => {
                                next.dynamic += 1;
                                next.dynamic - 1
                            }
                            _ => 0,
                        };
                        if body.solver_index != 0 {
                            // SAFETY: each solver index and ccd place is given out once,
                            // from this block's own range of them.
                            unsafe { *to_body.at_mut(body.solver_index as usize) = slot as u32 };
                            // The bodies swept for tunnelling, from where the step starts.
                            if body.ccd && body.body_type == BodyType::Dynamic {
                                // SAFETY: as above.
                                unsafe {
                                    *ccd.at_mut(next.ccd as usize) =
                                        (slot as u32, body.center, body.rotation)
                                };
                                next.ccd += 1;
                            }
                        }
                    }
                }
            });
        }
        let kinematic = kinematic as usize;
        self.scratch.solver.kinematic_count = kinematic;

        // 2. Islands and the largest mass ratio across each island's contacts and joints.
        self.build_islands(count as usize);

        // 3. Sub-step groups; dynamic bodies re-indexed group by group when there are several.
        self.plan_groups(count as usize);

        // 4. Each body's island root at hand, without the union–find's walks (the
        //    constraints' gather records their islands for the colouring).
        let first = 1 + kinematic;
        self.scratch.islands.count = flatten_roots(&mut self.scratch.islands.parent, first);

        // 5. The arrays themselves, in solver index order.
        self.fill_solver_arrays(count as usize);
    }

    /// Copies every awake non-static body into the solver arrays at its solver index.
    fn fill_solver_arrays(&mut self, count: usize) {
        let gravity = self.settings.gravity;
        let planar = self.settings.planar;
        let scratch = &mut self.scratch;
        // Every element is written below (the stand-in here, the others by their blocks):
        // the arrays only change length, so this thread does not write them all first.
        scratch.solver.bodies.truncate(count);
        scratch.solver.bodies.resize(count, SolverBody::STATIC);
        scratch.solver.bodies[0] = SolverBody::STATIC;
        scratch.solver.forces.truncate(count);
        scratch.solver.forces.resize(count, SolverForces::NONE);
        scratch.solver.forces[0] = SolverForces::NONE;
        scratch.solver.faulted.clear();
        scratch.solver.faulted.resize(count, false);
        // Each solver body from its body, in blocks on every worker: the blocks take
        // disjoint solver indices, so disjoint bodies.
        let shared_bodies = self.bodies.shared();
        let to_body = &scratch.solver.to_body;
        let solver_bodies = Shared::new(&mut scratch.solver.bodies);
        let solver_forces = Shared::new(&mut scratch.solver.forces);
        for_each_block(count, FILL_BLOCK, &|range: Range<usize>| {
            for index in range.filter(|&i| i > 0) {
                // SAFETY: solver index `index` names one body, and this block alone has it
                // and its solver body and forces.
                let (body, solver_body, forces) = unsafe {
                    (
                        shared_bodies.at_mut(to_body[index]),
                        solver_bodies.at_mut(index),
                        solver_forces.at_mut(index),
                    )
                };
                let Some(body) = body else {
                    *solver_body = SolverBody::STATIC;
                    *forces = SolverForces::NONE;
                    continue;
                };
                let locks = if body.is_dynamic() && planar {
                    body.locked.union(crate::physics::body::Locks::PLANAR)
                } else if body.is_dynamic() {
                    body.locked
                } else {
                    crate::physics::body::Locks::NONE
                };
                let (linear_free, angular_free) = (locks.linear_free(), locks.angular_free());
                let mut inv_inertia = body.world_inv_inertia();
                if !locks.is_none() {
                    // No turning about a locked axis, however the contacts push.
                    inv_inertia = locks.inv_inertia(body.world_inertia(), inv_inertia);
                    body.linear_velocity *= linear_free;
                    body.angular_velocity *= angular_free;
                }
                // Kinematic velocities are capped like dynamic ones so absurd input cannot
                // overflow positions.
                let max_speed = crate::physics::body::max_linear_speed(body.ccd);
                body.linear_velocity = solver::clamp_length(body.linear_velocity, max_speed);
                *solver_body = SolverBody {
                    linear_velocity: body.linear_velocity,
                    angular_velocity: body.angular_velocity,
                    inv_mass: body.inv_mass,
                    inv_inertia,
                    delta_position: Vec3::ZERO,
                    delta_rotation: Quat::IDENTITY,
                };
                if body.is_dynamic() {
                    *forces = SolverForces {
                        linear_acceleration: (gravity * body.gravity_scale
                            + body.force * body.inv_mass)
                            * linear_free,
                        angular_acceleration: inv_inertia * body.torque,
                        linear_damping: body.linear_damping,
                        angular_damping: body.angular_damping,
                        is_dynamic: true,
                        rotation: body.rotation,
                        local_inertia: body.local_inertia,
                        local_inv_inertia: body.local_inv_inertia,
                        max_linear_speed: crate::physics::body::max_linear_speed(body.ccd),
                        linear_free,
                        angular_free,
                        locked: !locks.is_none(),
                        inertia_floor: 0.0,
                        gyroscopic: false,
                    }
                    .with_gyroscopic();
                } else {
                    *forces = SolverForces::NONE;
                }
            }
        });
    }

    /// Phase 4: writes the solver's results into the bodies, moves their colliders and
    /// broad-phase proxies, clears forces, and keeps each body's sleep timer
    /// (`island::sleep_timer`, also in `IslandScratch::sleep_time` for the sleep phase) and
    /// island label (its root's body slot).
    ///
    /// The bodies and their colliders on every worker, in blocks of solver indices (each
    /// body is one index's, each collider one body's), which also find the proxies that
    /// outgrew their fat boxes; then, in solver order on this thread, the broad phase
    /// re-inserts those and the frozen bodies are reported.
    pub(crate) fn finalize_bodies(&mut self, dt: f32) {
        let Self {
            bodies,
            colliders,
            broad_phase,
            scratch,
            frozen_events,
            ..
        } = self;
        let count = scratch.solver.to_body.len();
        scratch.solver.moved.clear();
        scratch.solver.moved.resize(count, false);
        scratch.islands.sleep_time.clear();
        scratch.islands.sleep_time.resize(count, 0.0);
        {
            let shared_bodies = bodies.shared();
            let shared_colliders = colliders.shared();
            let broad_phase = &**broad_phase;
            let (to_body, solver_bodies) = (&scratch.solver.to_body, &scratch.solver.bodies);
            let roots = &scratch.islands.parent;
            let faulted = Shared::new(&mut scratch.solver.faulted);
            let moved = Shared::new(&mut scratch.solver.moved);
            let sleep_time = Shared::new(&mut scratch.islands.sleep_time);
            for_each_block(count, FILL_BLOCK, &|range: Range<usize>| {
                for solver_index in range.filter(|&i| i > 0) {
                    let s = &solver_bodies[solver_index];
                    // SAFETY: solver index `solver_index` names one body and is this block's
                    // alone; so are the body's colliders, the two flags and its timer.
                    let (body, faulted, moved, sleep_time) = unsafe {
                        (
                            shared_bodies.at_mut(to_body[solver_index]),
                            faulted.at_mut(solver_index),
                            moved.at_mut(solver_index),
                            sleep_time.at_mut(solver_index),
                        )
                    };
                    let Some(body) = body else {
                        continue;
                    };
                    // Its island (the roots are the parents, `flatten_roots`), named by the
                    // root's body slot.
                    body.island = to_body[roots[solver_index] as usize];
                    let finite = s.delta_position.is_finite()
                        && s.delta_rotation.is_finite()
                        && s.linear_velocity.is_finite()
                        && s.angular_velocity.is_finite()
                        && (body.center + s.delta_position).is_finite();
                    if *faulted || !finite {
                        // Its pose is still the last finite one: keep it, stop the body.
                        freeze(body);
                        *faulted = true;
                        body.sleep_time = sleep_timer(body, dt);
                        *sleep_time = body.sleep_time;
                        continue;
                    }
                    body.linear_velocity = s.linear_velocity;
                    body.angular_velocity = s.angular_velocity;
                    body.center += s.delta_position;
                    body.rotation = (s.delta_rotation * body.rotation).normalize();
                    body.position = body.center - body.rotation * body.local_center;
                    body.force = Vec3::ZERO;
                    body.torque = Vec3::ZERO;
                    let pose = Isometry::new(body.position, body.rotation);
                    for &ci in &body.colliders {
                        // SAFETY: a collider belongs to one body (above).
                        if let Some(collider) = unsafe { shared_colliders.at_mut(ci) } {
                            collider.sync(&pose);
                            let fresh = fatten_aabb(&collider.aabb, s.delta_position);
                            debug_assert_eq!(
                                collider.fat_aabb,
                                broad_phase.fat_aabb(collider.proxy)
                            );
                            *moved |= needs_reinsert(
                                &collider.fat_aabb,
                                &collider.aabb,
                                &fresh,
                                s.delta_position,
                            );
                        }
                    }
                    // The velocities are final here (continuous collision keeps them).
                    body.sleep_time = sleep_timer(body, dt);
                    *sleep_time = body.sleep_time;
                }
            });
        }
        let moves = &mut scratch.solver.proxy_moves;
        moves.clear();
        for solver_index in 1..count {
            let body_index = scratch.solver.to_body[solver_index];
            if scratch.solver.faulted[solver_index] {
                if let Some(handle) = bodies.handle_at(body_index) {
                    frozen_events.push(handle);
                }
            } else if scratch.solver.moved[solver_index] {
                let Some(body) = bodies.at(body_index) else {
                    continue;
                };
                let displacement = scratch.solver.bodies[solver_index].delta_position;
                for &ci in &body.colliders {
                    if let Some(collider) = colliders.at(ci) {
                        moves.push(ProxyMove {
                            proxy: collider.proxy,
                            aabb: collider.aabb,
                            displacement,
                            reinserted: false,
                        });
                    }
                }
            }
        }
        if moves.is_empty() {
            return;
        }
        broad_phase.move_proxies(moves);
        // The same colliders in the same order: each keeps a copy of its new fat box.
        let mut next = moves.iter();
        for solver_index in 1..count {
            if scratch.solver.faulted[solver_index] || !scratch.solver.moved[solver_index] {
                continue;
            }
            let Some(body) = bodies.at(scratch.solver.to_body[solver_index]) else {
                continue;
            };
            for &ci in &body.colliders {
                if let Some(collider) = colliders.at_mut(ci) {
                    let Some(m) = next.next() else {
                        debug_assert!(false, "a move for every collider gathered above");
                        return;
                    };
                    debug_assert_eq!(m.proxy, collider.proxy);
                    if m.reinserted {
                        collider.fat_aabb = broad_phase.fat_aabb(m.proxy);
                    }
                }
            }
        }
    }
}

/// Body slots per block of the sweeps that give out the solver indices
/// (`gather_solver_bodies`: some tens of nanoseconds a slot, so a block is tens of
/// microseconds and a scene of fewer bodies sweeps on one thread).
const INDEX_BLOCK: usize = 1024;

/// What one block of body slots holds (`gather_solver_bodies`): its awake kinematic
/// bodies, its dynamic ones to solve and those of them with continuous collision, and the
/// bodies to freeze; then, in place, its first index of each kind.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BlockCounts {
    kinematic: u32,
    dynamic: u32,
    ccd: u32,
    freezing: u32,
}

/// Whether a dynamic body's force, torque, acceleration, velocity and pose are finite (see
/// [`World::frozen_bodies`]).
#[inline]
fn inputs_finite(body: &crate::physics::body::Body, gravity: Vec3) -> bool {
    let acceleration = gravity * body.gravity_scale + body.force * body.inv_mass;
    acceleration.is_finite()
        && (body.local_inv_inertia * body.torque).is_finite()
        && body.linear_velocity.is_finite()
        && body.angular_velocity.is_finite()
        && body.center.is_finite()
        && body.rotation.is_finite()
}

/// Stops a body whose state stopped being finite: its pose stays the last finite one, its
/// velocities and pending forces are cleared, and the solver leaves it out from now on.
fn freeze(body: &mut crate::physics::body::Body) {
    body.frozen = true;
    body.linear_velocity = Vec3::ZERO;
    body.angular_velocity = Vec3::ZERO;
    body.force = Vec3::ZERO;
    body.torque = Vec3::ZERO;
}
