//! The world: owns bodies, colliders, the broad phase and contacts, and steps them.
//!
//! One home per phase: the step's table of contents in `step.rs`; creation, removal,
//! getters and setters in `bodies.rs`; contact bookkeeping and the narrow phase in
//! `contacts.rs`; the solve in `solve/` (sub-step groups in `mod.rs`, the solver's bodies
//! and their finalising in `bodies.rs`, the constraints in `constraints.rs`); islands and
//! sleeping in `../island.rs`; continuous collision in `../continuous.rs`; queries in
//! `../query.rs`. This file holds the world, its settings and its events.

pub(crate) mod bodies;
pub(crate) mod contacts;
pub(crate) mod solve;
mod step;

use super::body::Body;
use super::broad_phase::brute_force::BruteForce;
use super::broad_phase::dynamic_tree::DynamicTree;
use super::broad_phase::pair_set::PairSet;
use super::broad_phase::{grid, quadtree, BroadPhase, BroadPhaseNode, Quadtree, UniformGrid};
use super::collider::Collider;
use super::constants::*;
use super::contact::{Contact, ContactSet};
use super::handle::{Arena, Handle};
use super::island::SleepIslands;
use super::math::Vec3;
use super::profile::{StepCounters, StepProfile};

/// Handle of a body: stale (finds nothing) once the body is removed.
pub type BodyHandle = Handle<Body>;
/// Handle of a collider: stale once the collider or its body is removed.
pub type ColliderHandle = Handle<Collider>;

/// Which broad phase the world uses; switchable at run time with [`World::set_broad_phase`].
/// Every kind finds the same pairs in the same order, so the choice changes the time a step
/// takes, never its result.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum BroadPhaseKind {
    /// Dynamic AABB tree (the default): O(log n) per moving proxy.
    #[default]
    DynamicTree,
    /// Every pair tested: O(n²), the reference for tests.
    BruteForce,
    /// A quadtree over the ground plane (x–z), rebuilt every step.
    Quadtree {
        /// The deepest level (the root is 0), 0 to [`QUADTREE_MAX_DEPTH_LIMIT`].
        max_depth: u32,
        /// Proxies a node holds before it splits, 1 to [`QUADTREE_MAX_CAPACITY`].
        capacity: u32,
    },
    /// A uniform grid of cubic cells (a spatial hash), rebuilt every step.
    Grid {
        /// The cell size, m; None chooses it from the bodies (twice their mean size).
        cell_size: Option<f32>,
    },
}

/// The largest quadtree node capacity accepted.
pub const QUADTREE_MAX_CAPACITY: u32 = 1024;
pub use super::broad_phase::quadtree::MAX_DEPTH_LIMIT as QUADTREE_MAX_DEPTH_LIMIT;

impl BroadPhaseKind {
    /// The quadtree with its default parameters.
    pub const QUADTREE: Self = BroadPhaseKind::Quadtree {
        max_depth: quadtree::DEFAULT_MAX_DEPTH,
        capacity: quadtree::DEFAULT_CAPACITY,
    };
    /// The grid with its cell size chosen from the bodies.
    pub const GRID: Self = BroadPhaseKind::Grid { cell_size: None };

    /// A new, empty broad phase of this kind.
    pub fn create(self) -> Box<dyn BroadPhase + Send + Sync> {
        match self {
            BroadPhaseKind::DynamicTree => Box::new(DynamicTree::default()),
            BroadPhaseKind::BruteForce => Box::new(BruteForce::default()),
            BroadPhaseKind::Quadtree {
                max_depth,
                capacity,
            } => Box::new(Quadtree::new(max_depth, capacity)),
            BroadPhaseKind::Grid { cell_size } => Box::new(UniformGrid::new(cell_size)),
        }
    }

    /// Checks the parameters; the message names the field.
    pub fn validate(self) -> Result<(), String> {
        match self {
            BroadPhaseKind::Quadtree {
                max_depth,
                capacity,
            } => {
                if max_depth > QUADTREE_MAX_DEPTH_LIMIT {
                    return Err(format!(
                        "broad_phase: Quadtree max_depth must be between 0 and \
                         {QUADTREE_MAX_DEPTH_LIMIT}, got {max_depth}"
                    ));
                }
                if !(1..=QUADTREE_MAX_CAPACITY).contains(&capacity) {
                    return Err(format!(
                        "broad_phase: Quadtree capacity must be between 1 and \
                         {QUADTREE_MAX_CAPACITY}, got {capacity}"
                    ));
                }
            }
            BroadPhaseKind::Grid { cell_size: Some(c) }
                if !(c.is_finite() && (grid::MIN_CELL_SIZE..=grid::MAX_CELL_SIZE).contains(&c)) =>
            {
                return Err(format!(
                    "broad_phase: Grid cell_size must be between {} and {} m, got {c}",
                    grid::MIN_CELL_SIZE,
                    grid::MAX_CELL_SIZE
                ));
            }
            _ => {}
        }
        Ok(())
    }
}

/// How a sub-step moves bodies by their velocities and forces (see `docs/integrators.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Integrator {
    /// Semi-implicit (symplectic) Euler, the default: each sub-step v += h·a, then the
    /// contacts, then x += h·v. Under a constant force its positions run ahead of the exact
    /// parabola by g·h·t/2 (half a sub-step's fall per unit of time).
    #[default]
    SemiImplicitEuler,
    /// Velocity Verlet (kick, drift, kick): half a kick before the first sub-step's
    /// drift and half after the last one, whole kicks between. Under a constant force the
    /// positions follow x₀ + v₀t + ½at² to rounding; with contacts the last half kick comes
    /// before the relax pass, so resting bodies end the step at rest.
    Verlet,
}

/// Why a setting (the world's settings, its broad phase, its worker count) was refused: the
/// message names the field and the range it must be in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsError(pub String);

impl std::fmt::Display for SettingsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for SettingsError {}

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
    pub relax_iterations: u32,
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
    /// The integrator.
    pub integrator: Integrator,
    /// Lock every dynamic body to the x–y plane and to turning about z (2D worlds, like
    /// as Jolt's Plane2D): [`Locks::PLANAR`](super::Locks::PLANAR) added to
    /// each body's own.
    pub planar: bool,
    /// Reuse a contact's manifold while its pair has barely moved (see
    /// [`MANIFOLD_REUSE_DISTANCE`]); off, every touching pair is tested every step.
    pub reuse_manifolds: bool,
    /// Work cap for bodies placed inside each other: a contact between two dynamic bodies is
    /// not created while either of them already has this many contacts (of any kind). The
    /// refused pairs wait in a list, are retried every step while their fat AABBs overlap, and
    /// are counted in [`StepCounters::capped_pairs`]. Contacts with static and kinematic
    /// bodies are never refused.
    pub max_contacts_per_body: u32,
}

impl Default for WorldSettings {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            substeps: DEFAULT_SUBSTEPS,
            velocity_iterations: 1,
            relax_iterations: 1,
            enable_sleeping: true,
            enable_warm_starting: true,
            contact_hertz: DEFAULT_CONTACT_HERTZ,
            contact_damping_ratio: DEFAULT_CONTACT_DAMPING_RATIO,
            max_push_velocity: DEFAULT_MAX_PUSH_VELOCITY,
            restitution_threshold: DEFAULT_RESTITUTION_THRESHOLD,
            broad_phase: BroadPhaseKind::DynamicTree,
            integrator: Integrator::SemiImplicitEuler,
            planar: false,
            reuse_manifolds: true,
            max_contacts_per_body: DEFAULT_MAX_CONTACTS_PER_BODY,
        }
    }
}

impl WorldSettings {
    /// Checks every value: gravity finite and at most [`MAX_GRAVITY`] per axis; sub-steps
    /// between 1 and [`MAX_SETTINGS_SUBSTEPS`]; velocity iterations between 1 and
    /// [`MAX_ITERATIONS`], relax iterations between 0 and it; contacts per body between 1 and
    /// [`MAX_CONTACTS_PER_BODY_LIMIT`]; contact stiffness, damping,
    /// push velocity and restitution threshold finite and ≥ 0. The message names the field.
    pub fn validate(&self) -> Result<(), String> {
        for (axis, g) in ["x", "y", "z"].iter().zip(self.gravity.to_array()) {
            if !(g.is_finite() && g.abs() <= MAX_GRAVITY) {
                return Err(format!(
                    "gravity.{axis} must be a number between -{MAX_GRAVITY} and {MAX_GRAVITY} m/s², got {g}"
                ));
            }
        }
        let count = |field: &str, v: u32, min: u32, max: u32| {
            if (min..=max).contains(&v) {
                Ok(())
            } else {
                Err(format!("{field} must be between {min} and {max}, got {v}"))
            }
        };
        count("substeps", self.substeps, 1, MAX_SETTINGS_SUBSTEPS)?;
        count(
            "velocity_iterations",
            self.velocity_iterations,
            1,
            MAX_ITERATIONS,
        )?;
        count("relax_iterations", self.relax_iterations, 0, MAX_ITERATIONS)?;
        self.broad_phase.validate()?;
        count(
            "max_contacts_per_body",
            self.max_contacts_per_body,
            1,
            MAX_CONTACTS_PER_BODY_LIMIT,
        )?;
        for (field, v) in [
            ("contact_hertz", self.contact_hertz),
            ("contact_damping_ratio", self.contact_damping_ratio),
            ("max_push_velocity", self.max_push_velocity),
            ("restitution_threshold", self.restitution_threshold),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("{field} must be 0 or more, got {v}"));
            }
        }
        Ok(())
    }

    /// The fastest spin a step of `dt` s lets a body keep, rad/s: a quarter turn over two per
    /// sub-step ([`MAX_ROTATION_PER_SUBSTEP`]), 188.5 rad/s at 60 Hz with 4 sub-steps.
    pub fn max_angular_speed(&self, dt: f32) -> f32 {
        MAX_ROTATION_PER_SUBSTEP * self.substeps.max(1) as f32 / dt
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

/// A contact that began touching, with how fast it closed (for a sound, say).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactBegin {
    /// The colliders and bodies.
    pub pair: ContactPair,
    /// How fast the two surfaces approached along the normal when the contact began, m/s
    /// (positive: closing), before the solver acted: the largest over the manifold's points
    /// of −(v_B + ω_B×r_B − v_A − ω_A×r_A)·n.
    pub approach_speed: f32,
}

/// What happened between colliders during the last step.
///
/// A contact *touches* while its manifold has points: the shapes overlap or are within the
/// speculative margin (2 cm plus how far they can close in a step), as in Box2D, so a begin
/// event comes at the step before impact, with the speed of the impact. Sensors report real
/// overlaps only (some point deeper than 0).
#[derive(Clone, Debug, Default)]
pub struct ContactEvents {
    /// Began touching this step.
    pub begin: Vec<ContactBegin>,
    /// Touched last step and still do.
    pub persist: Vec<ContactPair>,
    /// Stopped touching this step (or one of them was removed).
    pub end: Vec<ContactPair>,
    /// A sensor and another collider began to overlap.
    pub sensor_begin: Vec<ContactPair>,
    /// A sensor and another collider stopped overlapping (or one of them was removed).
    pub sensor_end: Vec<ContactPair>,
}

impl ContactEvents {
    pub(crate) fn clear(&mut self) {
        self.begin.clear();
        self.persist.clear();
        self.end.clear();
        self.sensor_begin.clear();
        self.sensor_end.clear();
    }
}

/// Buffers reused from step to step so the steady state allocates nothing, one set per
/// phase, each declared beside the phase that fills it.
#[derive(Default)]
pub(crate) struct StepScratch {
    /// Broad-phase pairs and the narrow phase's results (`contacts.rs`).
    pub contacts: contacts::ContactScratch,
    /// The solver's bodies and their indexing (`solve/`).
    pub solver: solve::SolverScratch,
    /// Islands, sub-step groups and sleep (`../island.rs`).
    pub islands: super::island::IslandScratch,
    /// The touching contacts as constraints, coloured and packed into lanes (`solve/constraints.rs`).
    pub constraints: solve::ConstraintScratch,
    /// The joints' constraints and their direct solve (`../joint/solve.rs`).
    pub joints: super::joint::JointScratch,
    /// Continuous collision (`../continuous.rs`).
    pub ccd: super::continuous::CcdScratch,
}

/// A physics world.
pub struct World {
    pub(crate) settings: WorldSettings,
    pub(crate) bodies: Arena<Body>,
    pub(crate) colliders: Arena<Collider>,
    pub(crate) broad_phase: Box<dyn BroadPhase + Send + Sync>,
    pub(crate) contacts: ContactSet,
    pub(crate) sleep_islands: SleepIslands,
    pub(crate) scratch: StepScratch,
    pub(crate) events: ContactEvents,
    /// End events of contacts destroyed between steps (a body removed): reported by the
    /// next step, whose events the caller reads.
    pub(crate) pending_end: Vec<ContactPair>,
    /// Sensor end events likewise.
    pub(crate) pending_sensor_end: Vec<ContactPair>,
    /// True while `step` runs.
    pub(crate) stepping: bool,
    pub(crate) profile: StepProfile,
    pub(crate) counters: StepCounters,
    pub(crate) step_count: u64,
    pub(crate) time: f64,
    /// Bodies frozen during the last step (see [`World::frozen_bodies`]).
    pub(crate) frozen_events: Vec<BodyHandle>,
    /// Pairs refused a contact by [`WorldSettings::max_contacts_per_body`], retried each step.
    pub(crate) capped_pairs: PairSet,
    /// Joints and springs (see `joint.rs`).
    pub(crate) joints: Arena<super::joint::Joint>,
    /// The joints that broke in the last step.
    pub(crate) broken_joints: Vec<super::joint::JointDef>,
    /// How many joints keep each pair of bodies from colliding, by body slots (smaller
    /// first); pairs with none are absent.
    pub(crate) joined_pairs: std::collections::BTreeMap<(u32, u32), u32>,
    /// Threads the step may use (see [`World::set_workers`]).
    pub(crate) workers: usize,
}

impl Default for World {
    fn default() -> Self {
        Self::new(WorldSettings::default())
    }
}

/// A copy that steps exactly like the original, bit for bit (the step's scratch buffers are
/// not copied: every step rebuilds them). The sandbox's rewind keeps copies as keyframes.
impl Clone for World {
    fn clone(&self) -> Self {
        Self {
            settings: self.settings.clone(),
            bodies: self.bodies.clone(),
            colliders: self.colliders.clone(),
            broad_phase: self.broad_phase.box_clone(),
            contacts: self.contacts.clone(),
            sleep_islands: self.sleep_islands.clone(),
            scratch: StepScratch::default(),
            events: self.events.clone(),
            pending_end: self.pending_end.clone(),
            pending_sensor_end: self.pending_sensor_end.clone(),
            stepping: false,
            profile: self.profile,
            counters: self.counters,
            step_count: self.step_count,
            time: self.time,
            frozen_events: self.frozen_events.clone(),
            capped_pairs: self.capped_pairs.clone(),
            joints: self.joints.clone(),
            broken_joints: self.broken_joints.clone(),
            joined_pairs: self.joined_pairs.clone(),
            workers: self.workers,
        }
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
            pending_sensor_end: Vec::new(),
            stepping: false,
            profile: StepProfile::default(),
            counters: StepCounters::default(),
            step_count: 0,
            time: 0.0,
            frozen_events: Vec::new(),
            capped_pairs: PairSet::new(),
            joints: Arena::default(),
            broken_joints: Vec::new(),
            joined_pairs: std::collections::BTreeMap::new(),
            workers: super::threads::default_workers(),
        }
    }

    /// Roughly how many bytes a [`clone`](Clone::clone) of this world holds: bodies,
    /// colliders, contacts and the broad phase (shared hull data counted once, elsewhere).
    pub fn approximate_bytes(&self) -> usize {
        let bodies =
            self.bodies.len() * (std::mem::size_of::<Body>() + 2 * std::mem::size_of::<u32>());
        let colliders = self.colliders.len() * std::mem::size_of::<Collider>();
        std::mem::size_of::<Self>()
            + bodies
            + colliders
            + self.contacts.heap_bytes()
            + self.broad_phase.heap_bytes()
    }

    /// A 64-bit FNV-1a hash of every body's handle, position, rotation and velocities, bit
    /// for bit, in storage order: equal hashes mean (almost surely) identical states, so
    /// determinism can be checked across runs, builds and machines with one number.
    pub fn state_hash(&self) -> u64 {
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |word: u32| {
            for byte in word.to_le_bytes() {
                hash = (hash ^ byte as u64).wrapping_mul(PRIME);
            }
        };
        for (handle, body) in self.bodies.iter() {
            eat(handle.index());
            eat(handle.generation());
            let vectors = [body.position, body.linear_velocity, body.angular_velocity];
            let components = vectors.iter().flat_map(|v| v.to_array());
            for c in components.chain(body.rotation.to_array()) {
                eat(c.to_bits());
            }
        }
        hash
    }

    /// The settings.
    pub fn settings(&self) -> &WorldSettings {
        &self.settings
    }

    /// Changes the settings (refused, with the reason, when [`WorldSettings::validate`]
    /// refuses them); a new broad phase kind is switched to at once.
    pub fn set_settings(&mut self, settings: WorldSettings) -> Result<(), SettingsError> {
        settings.validate().map_err(SettingsError)?;
        let new_broad_phase = settings.broad_phase != self.settings.broad_phase;
        let stop_sleeping = self.settings.enable_sleeping && !settings.enable_sleeping;
        self.settings = settings;
        if new_broad_phase {
            self.rebuild_broad_phase();
        }
        if stop_sleeping {
            self.wake_all();
        }
        Ok(())
    }

    /// Sets the gravity and wakes every body so the change is felt.
    pub fn set_gravity(&mut self, gravity: Vec3) {
        self.settings.gravity = gravity;
        self.wake_all();
    }

    /// Switches the broad phase algorithm, moving every proxy over with its fat box, so the
    /// pairs, the contacts and what follows are exactly as if nothing had changed (every
    /// broad phase reports the same pairs in the same order). Refused, with the reason, when
    /// the kind's parameters are out of range.
    pub fn set_broad_phase(&mut self, kind: BroadPhaseKind) -> Result<(), SettingsError> {
        kind.validate().map_err(SettingsError)?;
        if kind == self.settings.broad_phase {
            return Ok(());
        }
        self.settings.broad_phase = kind;
        self.rebuild_broad_phase();
        Ok(())
    }

    /// Replaces the broad phase by a new one of the settings' kind holding the same proxies.
    fn rebuild_broad_phase(&mut self) {
        let old = std::mem::replace(&mut self.broad_phase, self.settings.broad_phase.create());
        for (handle, collider) in self.colliders.iter_mut() {
            let fat = old.fat_aabb(collider.proxy);
            collider.proxy = self.broad_phase.create_proxy_fat(fat, handle.index());
            collider.fat_aabb = self.broad_phase.fat_aabb(collider.proxy);
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

    /// The bodies frozen during the last step: their force, velocity or pose stopped being
    /// finite (an overflowing force, or a solve too ill-conditioned for f32). Each is put
    /// back to its pose before that step, at rest, and left out of the solver (other bodies
    /// see it as fixed) until [`World::set_transform`] places it again. Nothing non-finite
    /// ever leaves a step.
    pub fn frozen_bodies(&self) -> &[BodyHandle] {
        &self.frozen_events
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

    /// Every live contact (touching or only overlapping in the broad phase).
    pub fn contacts(&self) -> impl Iterator<Item = &Contact> {
        self.contacts
            .active
            .iter()
            .map(|info| &self.contacts.slots[info.id as usize])
    }

    /// The contact between two colliders, if their fat AABBs overlap.
    pub fn contact_between(&self, a: ColliderHandle, b: ColliderHandle) -> Option<&Contact> {
        self.colliders.get(a)?;
        self.colliders.get(b)?;
        let id = self.contacts.find(a.index(), b.index())?;
        Some(&self.contacts.slots[id as usize])
    }
}
