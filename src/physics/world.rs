//! The world: owns bodies, colliders, the broad phase and contacts, and steps them.
//!
//! Creation, removal, getters and setters are in `world_bodies.rs`; sleeping in `island.rs`;
//! queries in `query.rs`. This file holds the step and its phases.

use std::time::Instant;

use super::body::{Body, BodyType, NULL};
use super::broad_phase::brute_force::BruteForce;
use super::broad_phase::dynamic_tree::DynamicTree;
use super::broad_phase::{BroadPhase, BroadPhaseNode};
use super::collider::{Collider, MixedMaterial};
use super::constants::*;
use super::contact::{Contact, ContactSet};
use super::handle::{Arena, Handle};
use super::island::SleepIslands;
use super::math::{Isometry, Vec3};
use super::narrow_phase::{collide, Scratch};
use super::profile::{StepCounters, StepProfile};
use super::solver::{
    self, ConstraintShared, ContactConstraint, PointInput, Softness, SolverBody, SolverForces,
    StepContext,
};

/// Handle of a body: stale (finds nothing) once the body is removed.
pub type BodyHandle = Handle<Body>;
/// Handle of a collider: stale once the collider or its body is removed.
pub type ColliderHandle = Handle<Collider>;

/// Which broad phase the world uses; switchable at run time with [`World::set_broad_phase`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BroadPhaseKind {
    /// Dynamic AABB tree (the default): O(log n) per moving proxy.
    #[default]
    DynamicTree,
    /// Every pair tested: O(n²), the reference for tests.
    BruteForce,
}

impl BroadPhaseKind {
    /// A new, empty broad phase of this kind.
    pub fn create(self) -> Box<dyn BroadPhase + Send> {
        match self {
            BroadPhaseKind::DynamicTree => Box::new(DynamicTree::default()),
            BroadPhaseKind::BruteForce => Box::new(BruteForce::default()),
        }
    }
}

/// Global settings of a world. Every field has a default (see `constants.rs` for why).
#[derive(Clone, Debug, PartialEq)]
pub struct WorldSettings {
    /// Gravity, m/s².
    pub gravity: Vec3,
    /// Sub-steps per step: the solver's main iteration count (see `solver.rs`).
    pub substeps: u32,
    /// Biased (soft) velocity iterations per sub-step.
    pub velocity_iterations: u32,
    /// Relax iterations per sub-step: they remove the velocity that penetration recovery
    /// added, which is what position iterations do in a classic solver.
    pub position_iterations: u32,
    /// Let resting islands sleep.
    pub enable_sleeping: bool,
    /// Start each step from the last step's impulses.
    pub enable_warm_starting: bool,
    /// Contact stiffness, Hz.
    pub contact_hertz: f32,
    /// Contact damping ratio.
    pub contact_damping_ratio: f32,
    /// Cap on penetration recovery speed, m/s.
    pub max_push_velocity: f32,
    /// Approach speed above which restitution applies, m/s.
    pub restitution_threshold: f32,
    /// Broad phase algorithm.
    pub broad_phase: BroadPhaseKind,
}

impl Default for WorldSettings {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            substeps: DEFAULT_SUBSTEPS,
            velocity_iterations: 1,
            position_iterations: 1,
            enable_sleeping: true,
            enable_warm_starting: true,
            contact_hertz: DEFAULT_CONTACT_HERTZ,
            contact_damping_ratio: DEFAULT_CONTACT_DAMPING_RATIO,
            max_push_velocity: DEFAULT_MAX_PUSH_VELOCITY,
            restitution_threshold: DEFAULT_RESTITUTION_THRESHOLD,
            broad_phase: BroadPhaseKind::DynamicTree,
        }
    }
}

/// A pair of colliders (and their bodies) in a contact event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContactPair {
    /// First collider (stale in an end event if it was removed).
    pub collider_a: ColliderHandle,
    /// Second collider.
    pub collider_b: ColliderHandle,
    /// Body of the first collider.
    pub body_a: BodyHandle,
    /// Body of the second collider.
    pub body_b: BodyHandle,
}

/// Contacts that started, continued and ended touching during the last step.
#[derive(Clone, Debug, Default)]
pub struct ContactEvents {
    /// Began touching this step.
    pub begin: Vec<ContactPair>,
    /// Touched last step and still do.
    pub persist: Vec<ContactPair>,
    /// Stopped touching this step (or one of them was removed).
    pub end: Vec<ContactPair>,
}

impl ContactEvents {
    fn clear(&mut self) {
        self.begin.clear();
        self.persist.clear();
        self.end.clear();
    }
}

/// Buffers reused from step to step so the steady state allocates nothing.
#[derive(Default)]
pub(crate) struct StepScratch {
    pub narrow: Scratch,
    pub new_pairs: Vec<(u32, u32)>,
    pub to_destroy: Vec<u32>,
    pub to_wake: Vec<u32>,
    pub solver_bodies: Vec<SolverBody>,
    /// Forces and damping of each solver body (read by velocity integration only).
    pub solver_forces: Vec<SolverForces>,
    /// Body slot of each solver body (index 0, the static stand-in, maps to NULL).
    pub solver_to_body: Vec<u32>,
    pub constraints: Vec<ContactConstraint>,
    pub points: Vec<PointInput>,
    pub island_parent: Vec<u32>,
    pub island_min_sleep: Vec<f32>,
    pub island_members: Vec<u32>,
    pub island_group: Vec<u32>,
}

/// A physics world.
pub struct World {
    pub(crate) settings: WorldSettings,
    pub(crate) bodies: Arena<Body>,
    pub(crate) colliders: Arena<Collider>,
    pub(crate) broad_phase: Box<dyn BroadPhase + Send>,
    pub(crate) contacts: ContactSet,
    pub(crate) sleep_islands: SleepIslands,
    pub(crate) scratch: StepScratch,
    pub(crate) events: ContactEvents,
    /// End events of contacts destroyed between steps (a body removed): reported by the
    /// next step, whose events the caller reads.
    pub(crate) pending_end: Vec<ContactPair>,
    /// True while `step` runs.
    pub(crate) stepping: bool,
    pub(crate) profile: StepProfile,
    pub(crate) counters: StepCounters,
    pub(crate) step_count: u64,
    pub(crate) time: f64,
}

impl Default for World {
    fn default() -> Self {
        Self::new(WorldSettings::default())
    }
}

impl World {
    /// An empty world.
    pub fn new(settings: WorldSettings) -> Self {
        Self {
            broad_phase: settings.broad_phase.create(),
            settings,
            bodies: Arena::default(),
            colliders: Arena::default(),
            contacts: ContactSet::default(),
            sleep_islands: SleepIslands::default(),
            scratch: StepScratch::default(),
            events: ContactEvents::default(),
            pending_end: Vec::new(),
            stepping: false,
            profile: StepProfile::default(),
            counters: StepCounters::default(),
            step_count: 0,
            time: 0.0,
        }
    }

    /// The settings.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Changes the settings; a new broad phase kind is switched to at once.
    pub fn set_settings(&mut self, settings: WorldSettings) {
        let kind = settings.broad_phase;
        let stop_sleeping = self.settings.enable_sleeping && !settings.enable_sleeping;
        self.settings = settings;
        self.set_broad_phase(kind);
        if stop_sleeping {
            self.wake_all();
        }
    }

    /// Sets the gravity and wakes every body so the change is felt.
    pub fn set_gravity(&mut self, gravity: Vec3) {
        self.settings.gravity = gravity;
        self.wake_all();
    }

    /// Switches the broad phase algorithm, moving every proxy over. Contacts are kept.
    pub fn set_broad_phase(&mut self, kind: BroadPhaseKind) {
        if kind == self.settings.broad_phase
            && self.broad_phase.proxy_count() == self.colliders.len()
        {
            return;
        }
        self.settings.broad_phase = kind;
        self.broad_phase = kind.create();
        for (handle, collider) in self.colliders.iter_mut() {
            collider.proxy = self.broad_phase.create_proxy(collider.aabb, handle.index());
        }
    }

    /// Number of steps taken.
    pub fn step_count(&self) -> u64 {
        self.step_count
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Phase timings of the last step.
    pub fn profile(&self) -> &StepProfile {
        &self.profile
    }

    /// Counters of the last step.
    pub fn counters(&self) -> &StepCounters {
        &self.counters
    }

    /// Contact begin / persist / end events of the last step.
    pub fn contact_events(&self) -> &ContactEvents {
        &self.events
    }

    /// The broad phase's nodes (AABB, depth, leaf, children overlap) for debug drawing.
    pub fn broad_phase_nodes(&self, out: &mut Vec<BroadPhaseNode>) {
        out.clear();
        self.broad_phase.debug_nodes(out);
    }

    /// The broad phase, for inspection (name, validate, fat AABBs).
    pub fn broad_phase(&self) -> &dyn BroadPhase {
        self.broad_phase.as_ref()
    }

    /// Advances the world by `dt` seconds (a fixed step, typically 1/60 s):
    ///
    /// 1. broad phase: new pairs of overlapping fat AABBs become contacts;
    /// 2. narrow phase: manifolds for every awake contact, begin/persist/end events, bodies
    ///    touched by awake ones wake up;
    /// 3. solve: sub-stepped soft contacts with integration inside (see `solver.rs`);
    /// 4. finalize: bodies written back, colliders and proxies moved;
    /// 5. islands: resting islands fall asleep.
    ///
    /// A non-positive or non-finite `dt` does nothing.
    pub fn step(&mut self, dt: f32) {
        if !(dt > 0.0 && dt.is_finite()) {
            return;
        }
        let start = Instant::now();
        self.profile = StepProfile::default();
        self.events.clear();
        self.events.end.append(&mut self.pending_end);
        self.stepping = true;

        let t = Instant::now();
        self.update_pairs();
        self.profile.broad_phase_ms = ms_since(t);

        let t = Instant::now();
        self.update_contacts(dt);
        self.profile.narrow_phase_ms = ms_since(t);

        self.solve(dt);

        let t = Instant::now();
        self.finalize_bodies();
        self.profile.broad_phase_ms += ms_since(t);

        let t = Instant::now();
        self.update_sleep(dt);
        self.profile.islands_ms = ms_since(t);

        self.stepping = false;
        self.step_count += 1;
        self.time += dt as f64;
        self.count();
        self.profile.total_ms = ms_since(start);
    }

    /// Phase 1: asks the broad phase for new pairs and creates their contacts.
    fn update_pairs(&mut self) {
        let mut pairs = std::mem::take(&mut self.scratch.new_pairs);
        pairs.clear();
        self.broad_phase
            .update_pairs(&mut |a, b| pairs.push((a, b)));
        for &(a, b) in &pairs {
            self.try_create_contact(a, b);
        }
        self.scratch.new_pairs = pairs;
    }

    /// Creates the contact between two collider slots if it may exist and does not yet.
    pub(crate) fn try_create_contact(&mut self, ca: u32, cb: u32) {
        let (Some(col_a), Some(col_b)) = (self.colliders.at(ca), self.colliders.at(cb)) else {
            return;
        };
        if col_a.body == col_b.body || self.contacts.find(ca, cb).is_some() {
            return;
        }
        let (Some(body_a), Some(body_b)) = (self.bodies.at(col_a.body), self.bodies.at(col_b.body))
        else {
            return;
        };
        // Only pairs where something can be pushed matter.
        if !body_a.is_dynamic() && !body_b.is_dynamic() {
            return;
        }
        let material = MixedMaterial::of(col_a, col_b);
        let (body_a, body_b) = (col_a.body, col_b.body);
        let id = self.contacts.create(ca, cb, body_a, body_b, material);
        self.link_contact(id);
    }

    /// The contact edge `key` (contact id << 1 | side).
    fn edge_mut(&mut self, key: u32) -> &mut super::contact::ContactEdge {
        &mut self.contacts.slots[(key >> 1) as usize].edges[(key & 1) as usize]
    }

    /// Pushes both sides of contact `id` at the front of their bodies' lists.
    fn link_contact(&mut self, id: u32) {
        for side in 0..2u32 {
            let key = id << 1 | side;
            let body_index = self.contacts.slots[id as usize].edges[side as usize].body;
            let Some(body) = self.bodies.at_mut(body_index) else {
                continue;
            };
            let head = body.contact_head;
            body.contact_head = key;
            body.contact_count += 1;
            let edge = self.edge_mut(key);
            edge.prev = NULL;
            edge.next = head;
            if head != NULL {
                self.edge_mut(head).prev = key;
            }
        }
    }

    /// Takes both sides of contact `id` out of their bodies' lists.
    fn unlink_contact(&mut self, id: u32) {
        for side in 0..2u32 {
            let edge = self.contacts.slots[id as usize].edges[side as usize];
            if edge.prev != NULL {
                self.edge_mut(edge.prev).next = edge.next;
            } else if let Some(body) = self.bodies.at_mut(edge.body) {
                body.contact_head = edge.next;
            }
            if edge.next != NULL {
                self.edge_mut(edge.next).prev = edge.prev;
            }
            if let Some(body) = self.bodies.at_mut(edge.body) {
                body.contact_count -= 1;
            }
        }
    }

    /// Destroys contact `id`, reporting an end event if it was touching.
    pub(crate) fn destroy_contact(&mut self, id: u32) {
        if self.contacts.slots[id as usize].touching {
            let pair = self.contact_pair(&self.contacts.slots[id as usize]);
            if self.stepping {
                self.events.end.push(pair);
            } else {
                self.pending_end.push(pair);
            }
        }
        self.unlink_contact(id);
        self.contacts.destroy(id);
    }

    /// The handles of a contact's colliders and bodies.
    fn contact_pair(&self, c: &Contact) -> ContactPair {
        make_pair(&self.bodies, &self.colliders, c)
    }

    /// Contact ids of a body, following its intrusive list.
    pub(crate) fn body_contacts(&self, body: u32, out: &mut Vec<u32>) {
        out.clear();
        let Some(b) = self.bodies.at(body) else {
            return;
        };
        let mut key = b.contact_head;
        while key != NULL {
            out.push(key >> 1);
            key = self.contacts.slots[(key >> 1) as usize].edges[(key & 1) as usize].next;
        }
    }

    /// Phase 2: recomputes the manifold of every contact with an awake body.
    fn update_contacts(&mut self, dt: f32) {
        self.scratch.to_destroy.clear();
        self.scratch.to_wake.clear();
        let Self {
            bodies,
            colliders,
            contacts,
            broad_phase,
            scratch,
            events,
            ..
        } = self;
        for &id in &contacts.active {
            let contact = &mut contacts.slots[id as usize];
            let (Some(col_a), Some(col_b)) = (
                colliders.at(contact.collider_a),
                colliders.at(contact.collider_b),
            ) else {
                scratch.to_destroy.push(id);
                continue;
            };
            let (Some(body_a), Some(body_b)) = (bodies.at(col_a.body), bodies.at(col_b.body))
            else {
                scratch.to_destroy.push(id);
                continue;
            };
            let active_a = body_a.awake && body_a.body_type != BodyType::Static;
            let active_b = body_b.awake && body_b.body_type != BodyType::Static;
            if !active_a && !active_b {
                continue;
            }
            if !broad_phase
                .fat_aabb(col_a.proxy)
                .overlaps(&broad_phase.fat_aabb(col_b.proxy))
            {
                scratch.to_destroy.push(id);
                continue;
            }
            // How fast any point of the pair can close: relative linear speed plus each
            // body's spin times the reach of its collider from the centre of mass.
            let closing = (body_a.linear_velocity - body_b.linear_velocity).length()
                + spin_reach(body_a, col_a)
                + spin_reach(body_b, col_b);
            let margin = (SPECULATIVE_DISTANCE + closing * dt).min(MAX_SPECULATIVE_DISTANCE);
            let manifold = collide(
                &col_a.shape,
                &col_a.world_pose,
                &col_b.shape,
                &col_b.world_pose,
                margin,
                &mut scratch.narrow,
            );
            let was_touching = contact.touching;
            contact.update_points(manifold.normal, manifold.points());
            contact.touching = manifold.count > 0;
            if contact.touching || was_touching {
                let pair = make_pair(bodies, colliders, contact);
                match (was_touching, contact.touching) {
                    (false, true) => events.begin.push(pair),
                    (true, true) => events.persist.push(pair),
                    _ => events.end.push(pair),
                }
            }
            // An awake body touching a sleeping one wakes its island.
            if contact.touching && active_a != active_b {
                let (sleeper, sleeper_index) = if active_a {
                    (body_b, col_b.body)
                } else {
                    (body_a, col_a.body)
                };
                if sleeper.is_dynamic() && !sleeper.awake {
                    scratch.to_wake.push(sleeper_index);
                }
            }
        }
        let to_destroy = std::mem::take(&mut self.scratch.to_destroy);
        for &id in &to_destroy {
            self.destroy_contact(id);
        }
        self.scratch.to_destroy = to_destroy;
        let to_wake = std::mem::take(&mut self.scratch.to_wake);
        for &body in &to_wake {
            self.wake_body_index(body);
        }
        self.scratch.to_wake = to_wake;
    }

    /// Phase 3: gathers awake bodies and touching contacts, runs the sub-stepped solver,
    /// stores impulses back into the contacts.
    fn solve(&mut self, dt: f32) {
        let t = Instant::now();
        let substeps = self.settings.substeps.max(1);
        let h = dt / substeps as f32;
        let contact_hertz = self.settings.contact_hertz.min(0.25 / h);
        let ctx = StepContext {
            h,
            inv_h: 1.0 / h,
            contact_softness: Softness::new(contact_hertz, self.settings.contact_damping_ratio, h),
            static_softness: Softness::new(
                2.0 * contact_hertz,
                self.settings.contact_damping_ratio,
                h,
            ),
            max_push_velocity: self.settings.max_push_velocity,
            restitution_threshold: self.settings.restitution_threshold,
            max_linear_speed: MAX_LINEAR_SPEED,
            max_angular_speed: MAX_ROTATION_PER_SUBSTEP / h,
        };
        self.gather_solver_bodies();
        self.gather_constraints(&ctx);
        self.profile.solver_ms += ms_since(t);

        let Self {
            scratch,
            profile,
            settings,
            ..
        } = self;
        let bodies = &mut scratch.solver_bodies;
        let forces = &scratch.solver_forces;
        let constraints = &mut scratch.constraints;
        for _ in 0..substeps {
            let t = Instant::now();
            solver::integrate_velocities(bodies, forces, &ctx);
            let t2 = Instant::now();
            profile.integration_ms += ms_between(t, t2);
            solver::warm_start(bodies, constraints);
            for _ in 0..settings.velocity_iterations.max(1) {
                solver::solve_contacts(bodies, constraints, &ctx, true);
            }
            let t3 = Instant::now();
            profile.solver_ms += ms_between(t2, t3);
            solver::integrate_positions(bodies, forces, &ctx);
            let t4 = Instant::now();
            profile.integration_ms += ms_between(t3, t4);
            for _ in 0..settings.position_iterations {
                solver::solve_contacts(bodies, constraints, &ctx, false);
            }
            profile.solver_ms += ms_since(t4);
        }
        let t = Instant::now();
        solver::apply_restitution(bodies, constraints, &ctx);
        self.store_impulses();
        self.profile.solver_ms += ms_since(t);
    }

    /// Fills the solver body array: index 0 is the static stand-in, then every awake
    /// non-static body.
    fn gather_solver_bodies(&mut self) {
        let gravity = self.settings.gravity;
        let bodies = &mut self.scratch.solver_bodies;
        let forces = &mut self.scratch.solver_forces;
        let map = &mut self.scratch.solver_to_body;
        bodies.clear();
        forces.clear();
        map.clear();
        bodies.push(SolverBody::STATIC);
        forces.push(SolverForces::NONE);
        map.push(NULL);
        for (handle, body) in self.bodies.iter_mut() {
            if body.body_type == BodyType::Static || !body.awake {
                body.solver_index = 0;
                continue;
            }
            body.solver_index = bodies.len() as u32;
            let inv_inertia = body.world_inv_inertia();
            let dynamic = body.is_dynamic();
            // Kinematic velocities are capped like dynamic ones so absurd input cannot
            // overflow positions.
            body.linear_velocity = solver::clamp_length(body.linear_velocity, MAX_LINEAR_SPEED);
            bodies.push(SolverBody {
                linear_velocity: body.linear_velocity,
                angular_velocity: body.angular_velocity,
                inv_mass: body.inv_mass,
                inv_inertia,
                delta_position: Vec3::ZERO,
                delta_rotation: glam::Quat::IDENTITY,
            });
            forces.push(if dynamic {
                SolverForces {
                    linear_acceleration: gravity * body.gravity_scale + body.force * body.inv_mass,
                    angular_acceleration: inv_inertia * body.torque,
                    linear_damping: body.linear_damping,
                    angular_damping: body.angular_damping,
                    is_dynamic: true,
                    rotation: body.rotation,
                    local_inertia: body.local_inertia,
                    local_inv_inertia: body.local_inv_inertia,
                }
            } else {
                SolverForces::NONE
            });
            map.push(handle.index());
        }
    }

    /// Turns every touching contact with an awake body into a constraint.
    fn gather_constraints(&mut self, ctx: &StepContext) {
        let Self {
            bodies,
            contacts,
            scratch,
            settings,
            ..
        } = self;
        scratch.constraints.clear();
        for &id in &contacts.active {
            let c = &contacts.slots[id as usize];
            if !c.touching {
                continue;
            }
            let (Some(body_a), Some(body_b)) =
                (bodies.at(c.edges[0].body), bodies.at(c.edges[1].body))
            else {
                continue;
            };
            let (ia, ib) = (body_a.solver_index, body_b.solver_index);
            if ia == 0 && ib == 0 {
                continue;
            }
            scratch.points.clear();
            scratch.points.extend(c.points().iter().map(|p| PointInput {
                point_a: p.point_a,
                point_b: p.point_b,
                depth: p.depth,
                normal_impulse: p.normal_impulse,
                tangent_impulse: p.tangent_impulse,
            }));
            let softness = if body_a.is_dynamic() && body_b.is_dynamic() {
                ctx.contact_softness
            } else {
                ctx.static_softness
            };
            let sa = &scratch.solver_bodies[ia as usize];
            let sb = &scratch.solver_bodies[ib as usize];
            let shared = ConstraintShared {
                contact: id,
                normal: c.normal,
                material: c.material,
                rolling_impulse: c.rolling_impulse,
                softness,
                warm_start: settings.enable_warm_starting,
            };
            scratch.constraints.push(ContactConstraint::prepare(
                (ia, sa, body_a.center),
                (ib, sb, body_b.center),
                &scratch.points,
                &shared,
            ));
        }
    }

    /// Copies the accumulated impulses back into the persistent contacts.
    fn store_impulses(&mut self) {
        for c in &self.scratch.constraints {
            let contact = &mut self.contacts.slots[c.contact as usize];
            contact.rolling_impulse = c.rolling_impulse;
            for (dst, src) in contact.points.iter_mut().zip(&c.points[..c.count]) {
                dst.normal_impulse = src.normal_impulse;
                dst.tangent_impulse = c.tangent_impulse_world(src);
                dst.max_normal_impulse = src.max_normal_impulse;
            }
        }
    }

    /// Phase 4: writes the solver's results into the bodies, moves their colliders and
    /// broad-phase proxies, clears forces.
    fn finalize_bodies(&mut self) {
        let t = Instant::now();
        let Self {
            bodies,
            colliders,
            broad_phase,
            scratch,
            ..
        } = self;
        for (solver_index, &body_index) in scratch.solver_to_body.iter().enumerate().skip(1) {
            let s = &scratch.solver_bodies[solver_index];
            let Some(body) = bodies.at_mut(body_index) else {
                continue;
            };
            body.linear_velocity = s.linear_velocity;
            body.angular_velocity = s.angular_velocity;
            body.center += s.delta_position;
            body.rotation = (s.delta_rotation * body.rotation).normalize();
            body.position = body.center - body.rotation * body.local_center;
            body.force = Vec3::ZERO;
            body.torque = Vec3::ZERO;
            let pose = Isometry::new(body.position, body.rotation);
            for &ci in &body.colliders {
                if let Some(collider) = colliders.at_mut(ci) {
                    collider.sync(&pose);
                    broad_phase.move_proxy(collider.proxy, collider.aabb, s.delta_position);
                }
            }
        }
        self.profile.integration_ms += ms_since(t);
    }

    /// Fills the counters of the last step.
    fn count(&mut self) {
        let mut manifolds = 0;
        let mut points = 0;
        for &id in &self.contacts.active {
            let c = &self.contacts.slots[id as usize];
            if c.touching {
                manifolds += 1;
                points += c.count;
            }
        }
        self.counters.bodies = self.bodies.len();
        self.counters.awake_bodies = self.scratch.solver_bodies.len().saturating_sub(1);
        self.counters.colliders = self.colliders.len();
        self.counters.pairs = self.contacts.len();
        self.counters.manifolds = manifolds;
        self.counters.contact_points = points;
        self.counters.constraints = self.scratch.constraints.len();
    }

    /// Every live contact (touching or only overlapping in the broad phase).
    pub fn contacts(&self) -> impl Iterator<Item = &Contact> {
        self.contacts
            .active
            .iter()
            .map(|&id| &self.contacts.slots[id as usize])
    }

    /// The contact between two colliders, if their fat AABBs overlap.
    pub fn contact_between(&self, a: ColliderHandle, b: ColliderHandle) -> Option<&Contact> {
        self.colliders.get(a)?;
        self.colliders.get(b)?;
        let id = self.contacts.find(a.index(), b.index())?;
        Some(&self.contacts.slots[id as usize])
    }
}

/// |ω| times the farthest a collider's AABB reaches from the body's centre of mass: the
/// fastest any of its points moves because of the spin.
fn spin_reach(body: &Body, collider: &Collider) -> f32 {
    let w = body.angular_velocity.length();
    if w == 0.0 {
        return 0.0;
    }
    let aabb = collider.aabb;
    w * ((aabb.center() - body.center).abs() + aabb.half_extents()).length()
}

/// Milliseconds since `t`.
fn ms_since(t: Instant) -> f32 {
    t.elapsed().as_secs_f32() * 1000.0
}

/// Milliseconds from `a` to `b`.
fn ms_between(a: Instant, b: Instant) -> f32 {
    (b - a).as_secs_f32() * 1000.0
}

/// The handles of a contact's colliders and bodies; a removed one gets a stale handle
/// (generation u32::MAX) that finds nothing.
fn make_pair(bodies: &Arena<Body>, colliders: &Arena<Collider>, c: &Contact) -> ContactPair {
    fn stale<T>(i: u32) -> Handle<T> {
        Handle::from_raw_parts(i, u32::MAX)
    }
    ContactPair {
        collider_a: colliders
            .handle_at(c.collider_a)
            .unwrap_or_else(|| stale(c.collider_a)),
        collider_b: colliders
            .handle_at(c.collider_b)
            .unwrap_or_else(|| stale(c.collider_b)),
        body_a: bodies
            .handle_at(c.edges[0].body)
            .unwrap_or_else(|| stale(c.edges[0].body)),
        body_b: bodies
            .handle_at(c.edges[1].body)
            .unwrap_or_else(|| stale(c.edges[1].body)),
    }
}
