//! Random jointed worlds against two invariants: no body is ever frozen (its state stopped
//! being finite, `World::frozen_bodies`), and the mechanical energy never grows past its start
//! plus the work the motors could have done.
//!
//! Each world comes from a seed (xorshift64*, the same on every machine) and is built through
//! the public API: a floor or none, bodies of every shape (spheres, boxes, capsules, hulls,
//! compounds) 1 cm to 1 m across at density 1 (a 1 m cube weighs 1 kg, a 2 cm ball 4 mg), in
//! chains, trees and rings held by every joint kind (ball joints with cones, hinges with limits
//! and motors, welds, rods, ropes, springs up to 30 Hz and bungees), each joint made where its
//! bodies start, so every constraint holds at step 0 (springs at their rest length, bungees
//! slack, limits and cones around the starting pose). No two bodies' bounding balls overlap.
//! Bodies of a cluster are of about one size (one cluster in six of light bodies, 1 to 10 cm);
//! in half the worlds one body in ten takes any size, which joins bodies up to 10⁶ times
//! heavier than their neighbours. A world is one of four classes:
//! - plain: gravity, a floor in four worlds of five;
//! - planar: the same with `planar: true`, hinges mostly about z;
//! - locked: half the bodies with random locked translation and rotation axes;
//! - zero gravity: no floor, every body moving.
//!
//! Hinges whose axis a body on them may not turn about (any hinge not about z in a planar
//! world, or one across a locked rotation axis) are generated on purpose: `create_joint` may
//! refuse them (the world is then simulated without them) or simulate them sanely; both pass.
//!
//! Runs (sleeping is off in every world):
//! - `cargo test --test suite joint_fuzz`: the generator's own checks and the check itself
//!   against the shipped jointed scenes; `--include-ignored` adds 64 small worlds (3 to 16
//!   bodies, 5 s each), the reduced failures in `tests/corpus/joints/` and Newton's cradle,
//!   which fail on today's engine;
//! - `cargo test --release --test suite joint_fuzz::measure -- --ignored --nocapture`: 300
//!   large worlds (10 to 200 bodies, 10 s each): freeze and energy-gain rates by class and by
//!   what the worlds hold, how many fail with their joints removed too (contacts alone), and
//!   the worst seeds; `JOINT_FUZZ_WORLDS`, `JOINT_FUZZ_FIRST_SEED` and `JOINT_FUZZ_SECONDS`
//!   change the run;
//! - `JOINT_FUZZ_SEED=17 [JOINT_FUZZ_SIZE=small] [JOINT_FUZZ_TRACE=STEPS]
//!   [JOINT_FUZZ_SAVE=out.ron] cargo test --release --test suite joint_fuzz::one_world --
//!   --ignored --nocapture`: one world in detail, its energy step by step, saved as a scene;
//! - the same with `joint_fuzz::reduce_world`: removes joints and bodies while the saved scene
//!   still fails (`JOINT_FUZZ_REDUCE_KIND=frozen`: still freezes), and saves what is left
//!   (how `tests/corpus/joints/` was made).

use std::collections::BTreeMap;
use std::f32::consts::{PI, TAU};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use impulse::physics::{
    BodyDef, BodyHandle, BodyType, ColliderDef, JointDef, JointKind, Locks, Quat, Shape, Vec3,
    World, WorldSettings,
};
use impulse::scene;

/// Simulated time of each world of the default run, s.
const SMALL_SECONDS: f32 = 5.0;
/// Simulated time of each world of the large measurement, s.
const LARGE_SECONDS: f32 = 10.0;
/// Worlds in the large measurement.
const LARGE_WORLDS: u64 = 300;
/// Worlds in the default run.
const SMALL_WORLDS: u64 = 64;

/// Allowed energy gain as a share of the world's energy scale (see [`energy_scale`]). Correct
/// physics never raises kinetic plus gravitational energy (every stored energy, a stretched
/// spring's or a soft joint's, is positive, and springs start at rest), but the discrete
/// solver wobbles around it: the rigid rows are 60 Hz springs in the biased pass, a millimetre
/// of drift in them holds ½·m·(2π·60 Hz)²·(1 mm)² ≈ 0.07 J per kg and is given back when they
/// settle; an explicit spring's energy oscillates by up to ω·h/2 of its own (a quarter at the
/// fastest explicit spring); contacts push overlapping bodies apart at up to 3 m/s before the
/// relax pass takes it out again. 5 % covers all of these with room, and the failures this
/// test is for gain 10² to 10⁴ times the scale.
const RELATIVE_TOLERANCE: f64 = 0.05;
/// The allowed gain per kilogram of dynamic body, J/kg, for worlds whose scale is near zero
/// (everything resting on the floor): a 1 kg body lifted 0.1 mm.
const ABSOLUTE_TOLERANCE_PER_KG: f64 = 1.0e-3;
/// Bodies that no joint joins start at least this far apart, m.
const CLEARANCE: f32 = 0.005;

/// xorshift64* (Vigna 2016, "An experimental exploration of Marsaglia's xorshift generators,
/// scrambled"): small, fast and the same on every machine.
struct Rng(u64);

impl Rng {
    /// A generator whose state is the seed passed through SplitMix64, so neighbouring seeds
    /// start far apart (and the state is never 0).
    fn new(seed: u64) -> Self {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Log-uniform in [lo, hi): as many sizes between 1 and 2 cm as between 10 and 20 cm.
    fn log_range(&mut self, lo: f32, hi: f32) -> f32 {
        lo * (hi / lo).powf(self.unit())
    }

    fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }

    /// Uniform in 0..n.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A uniform point in the unit ball.
    fn in_ball(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            if v.length_squared() <= 1.0 {
                return v;
            }
        }
    }

    /// A uniform unit vector; in the x–y plane when `planar`.
    fn direction(&mut self, planar: bool) -> Vec3 {
        loop {
            let mut v = self.in_ball();
            if planar {
                v.z = 0.0;
            }
            if let Some(d) = v.try_normalize() {
                return d;
            }
        }
    }

    fn rotation(&mut self) -> Quat {
        Quat::from_axis_angle(self.direction(false), self.range(0.0, TAU))
    }
}

/// What kind of world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Plain,
    Planar,
    Locked,
    ZeroGravity,
}

impl Class {
    const ALL: [Class; 4] = [
        Class::Plain,
        Class::Planar,
        Class::Locked,
        Class::ZeroGravity,
    ];

    fn name(self) -> &'static str {
        match self {
            Class::Plain => "plain",
            Class::Planar => "planar",
            Class::Locked => "locked",
            Class::ZeroGravity => "zero gravity",
        }
    }
}

/// How many bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Size {
    /// 3 to 16 bodies (the default run).
    Small,
    /// 10 to 200 bodies (the measurement).
    Large,
}

/// A body to make.
#[derive(Clone, Debug)]
struct BodySpec {
    position: Vec3,
    rotation: Quat,
    linear_velocity: Vec3,
    angular_velocity: Vec3,
    locked: Locks,
    colliders: Vec<ColliderDef>,
    /// "sphere", "box", "capsule", "hull" or "compound".
    shape: &'static str,
    /// Radius of a ball about `position` that holds every collider, m.
    radius: f32,
    /// Its mass at density 1, kg.
    mass: f32,
}

/// A joint to make, with world points computed from where the bodies start.
#[derive(Clone, Debug)]
enum JointShape {
    Spherical {
        anchor: Vec3,
    },
    /// A ball joint whose cone is centred on A's direction now, or tilted from it by
    /// `tilt.1` of the half angle towards `tilt.0` (still holding A's direction inside).
    Cone {
        anchor: Vec3,
        half_angle: f32,
        tilt: Option<(Vec3, f32)>,
    },
    Revolute {
        anchor: Vec3,
        axis: Vec3,
        limits: Option<(f32, f32)>,
        motor: Option<(f32, f32)>,
        /// A dynamic body on it may not turn about the axis (a lock or the planar mode).
        axis_locked: bool,
    },
    Fixed {
        anchor: Vec3,
    },
    Distance {
        anchor_a: Vec3,
        anchor_b: Vec3,
        min: f32,
        max: f32,
    },
    Spring {
        anchor_a: Vec3,
        anchor_b: Vec3,
        rest_length: f32,
        hertz: f32,
        damping_ratio: f32,
        bungee: bool,
    },
}

impl JointShape {
    /// The kind, for counts.
    fn kind(&self) -> &'static str {
        match self {
            JointShape::Spherical { .. } => "ball",
            JointShape::Cone { .. } => "cone",
            JointShape::Revolute { motor: Some(_), .. } => "motorised hinge",
            JointShape::Revolute { .. } => "hinge",
            JointShape::Fixed { .. } => "weld",
            JointShape::Distance { .. } => "distance",
            JointShape::Spring { bungee: true, .. } => "bungee",
            JointShape::Spring { .. } => "spring",
        }
    }

    /// A short name for reports.
    fn name(&self) -> String {
        match self {
            JointShape::Spherical { .. } => "ball".into(),
            JointShape::Cone { half_angle, .. } => format!("cone {:.0}°", half_angle.to_degrees()),
            JointShape::Revolute {
                limits,
                motor,
                axis_locked,
                ..
            } => {
                let mut s = String::from("hinge");
                if limits.is_some() {
                    s += "+limits";
                }
                if motor.is_some() {
                    s += "+motor";
                }
                if *axis_locked {
                    s += "(axis locked)";
                }
                s
            }
            JointShape::Fixed { .. } => "weld".into(),
            JointShape::Distance { min, max, .. } => {
                if min == max {
                    "rod".into()
                } else if *min == 0.0 {
                    "rope".into()
                } else {
                    "distance".into()
                }
            }
            JointShape::Spring { hertz, bungee, .. } => {
                format!(
                    "{} {hertz:.1} Hz",
                    if *bungee { "bungee" } else { "spring" }
                )
            }
        }
    }
}

/// A joint between spec bodies `a` and `b` (None: the world).
#[derive(Clone, Debug)]
struct JointSpec {
    a: usize,
    b: Option<usize>,
    shape: JointShape,
    collide: bool,
}

/// Everything needed to build one world.
#[derive(Clone, Debug)]
struct WorldSpec {
    seed: u64,
    class: Class,
    settings: WorldSettings,
    timestep: f32,
    floor: bool,
    bodies: Vec<BodySpec>,
    joints: Vec<JointSpec>,
}

/// Writes the world's worlds: bodies placed one by one, apart from all others.
struct Generator {
    rng: Rng,
    planar: bool,
    locked_class: bool,
    floor: bool,
    gravity: bool,
    /// Half the width of the square in which clusters start, m (grows when it fills up).
    region: f32,
    /// The share of bodies whose size ignores their cluster's (0 or 0.1: large mass ratios
    /// across joints in half the worlds).
    mixed: f32,
    bodies: Vec<BodySpec>,
    joints: Vec<JointSpec>,
}

/// The world of `seed`.
fn generate(seed: u64, size: Size) -> WorldSpec {
    let mut rng = Rng::new(seed);
    let class = Class::ALL[rng.below(4)];
    let gravity = class != Class::ZeroGravity;
    let floor = gravity && rng.chance(0.8);
    let timestep = if rng.chance(0.25) {
        1.0 / 120.0
    } else {
        1.0 / 60.0
    };
    let substeps = [2, 4, 4, 4, 8][rng.below(5)];
    let settings = WorldSettings {
        gravity: if gravity {
            Vec3::new(0.0, -9.81, 0.0)
        } else {
            Vec3::ZERO
        },
        substeps,
        enable_sleeping: false,
        planar: class == Class::Planar,
        ..WorldSettings::default()
    };
    let count = match size {
        Size::Small => 3 + rng.below(14),
        Size::Large => 10 + rng.below(191),
    };
    let rng_mixed = rng.chance(0.5);
    let mut g = Generator {
        rng,
        planar: class == Class::Planar,
        locked_class: class == Class::Locked,
        floor,
        gravity,
        region: 1.0 + (count as f32).sqrt(),
        mixed: if rng_mixed { 0.1 } else { 0.0 },
        bodies: Vec::new(),
        joints: Vec::new(),
    };
    while g.bodies.len() < count {
        let left = count - g.bodies.len();
        let n = 1 + g.rng.below(left.min(30));
        g.cluster(n);
    }
    if !gravity || g.rng.chance(0.5) {
        g.set_velocities();
    }
    WorldSpec {
        seed,
        class,
        settings,
        timestep,
        floor,
        bodies: g.bodies,
        joints: g.joints,
    }
}

impl Generator {
    /// A body's colliders, shape name, bounding radius and mass, `size` m across at most.
    fn colliders(&mut self, size: f32) -> (Vec<ColliderDef>, &'static str, f32) {
        let half = 0.5 * size;
        // Compounds only from 4 cm up: their parts are 40 % to 70 % of the body.
        let kind = self.rng.below(if size < 0.04 { 4 } else { 5 });
        if kind < 4 {
            let (shape, name, radius) = self.primitive(kind, half);
            return (vec![self.material(shape)], name, radius);
        }
        let parts = 2 + self.rng.below(2);
        let mut colliders = Vec::new();
        let mut radius: f32 = 0.0;
        for _ in 0..parts {
            let kind = self.rng.below(4);
            let part = half * self.rng.range(0.4, 0.7);
            let (shape, _, r) = self.primitive(kind, part);
            let offset = self.rng.in_ball() * (half - r).max(0.0);
            let rotation = self.rng.rotation();
            colliders.push(self.material(shape).with_local_pose(offset, rotation));
            radius = radius.max(offset.length() + r);
        }
        (colliders, "compound", radius)
    }

    /// A sphere, box, capsule or hull (`kind` 0 to 3) within `half` m of its origin.
    fn primitive(&mut self, kind: usize, half: f32) -> (Shape, &'static str, f32) {
        let r = &mut self.rng;
        match kind {
            0 => (Shape::sphere(half), "sphere", half),
            1 => {
                let e = Vec3::new(r.range(0.4, 1.0), r.range(0.4, 1.0), r.range(0.4, 1.0));
                let e = e * half / e.length();
                (Shape::cuboid(e), "box", half)
            }
            2 => {
                let radius = half * r.range(0.35, 0.8);
                (Shape::capsule(half - radius, radius), "capsule", half)
            }
            _ => {
                let points: Vec<Vec3> = (0..8 + r.below(9))
                    .map(|_| r.direction(false) * half * r.range(0.7, 1.0))
                    .collect();
                match Shape::convex_hull(&points) {
                    Ok(hull) => (hull, "hull", half),
                    Err(_) => (Shape::sphere(half), "sphere", half),
                }
            }
        }
    }

    /// A collider of `shape` at density 1 with a random friction and, sometimes, a bounce.
    fn material(&mut self, shape: Shape) -> ColliderDef {
        let restitution = if self.rng.chance(0.3) {
            self.rng.range(0.0, 0.5)
        } else {
            0.0
        };
        ColliderDef::new(shape)
            .with_friction(self.rng.range(0.2, 1.0))
            .with_restitution(restitution)
            .with_density(1.0)
    }

    /// A new body (not yet placed) of about `scale` m across (half to twice it, within 1 cm
    /// to 1 m), or, in mixed worlds, sometimes of any size from 1 cm (a milligram at density
    /// 1) to 1 m (half a kilogram).
    fn body(&mut self, scale: f32) -> BodySpec {
        let size = if self.rng.chance(self.mixed) {
            self.rng.log_range(0.01, 1.0)
        } else {
            (scale * self.rng.log_range(0.5, 2.0)).clamp(0.01, 1.0)
        };
        let (colliders, shape, radius) = self.colliders(size);
        let mass = colliders
            .iter()
            .map(|c| c.shape.mass_properties(c.density).mass)
            .sum();
        let locked = if self.locked_class && self.rng.chance(0.5) {
            self.locks()
        } else {
            Locks::NONE
        };
        BodySpec {
            position: Vec3::ZERO,
            rotation: self.rng.rotation(),
            linear_velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            locked,
            colliders,
            shape,
            radius,
            mass,
        }
    }

    /// Some locked axes (at least one).
    fn locks(&mut self) -> Locks {
        loop {
            let mut l = Locks::NONE;
            for i in 0..3 {
                l.translation[i] = self.rng.chance(0.3);
                l.rotation[i] = self.rng.chance(0.4);
            }
            if !l.is_none() {
                return l;
            }
        }
    }

    /// Whether a ball of `radius` at `at` keeps clear of every body and of the floor.
    fn clear(&self, at: Vec3, radius: f32) -> bool {
        (!self.floor || at.y - radius >= CLEARANCE)
            && self
                .bodies
                .iter()
                .all(|b| (b.position - at).length() >= b.radius + radius + CLEARANCE)
    }

    /// Places `body` somewhere free in the region (which grows until it fits); its index.
    fn place_root(&mut self, mut body: BodySpec) -> usize {
        loop {
            for _ in 0..40 {
                let y = if self.floor {
                    body.radius + self.rng.range(CLEARANCE, 3.0)
                } else {
                    self.rng.range(2.0, 8.0)
                };
                let z = if self.planar {
                    0.0
                } else {
                    self.rng.range(-self.region, self.region)
                };
                let at = Vec3::new(self.rng.range(-self.region, self.region), y, z);
                if self.clear(at, body.radius) {
                    body.position = at;
                    self.bodies.push(body);
                    return self.bodies.len() - 1;
                }
            }
            self.region *= 1.3;
        }
    }

    /// Places `body` next to body `parent`, a small gap between their bounding balls; its
    /// index, or None when no direction tried was free.
    fn place_child(&mut self, parent: usize, mut body: BodySpec) -> Option<usize> {
        let (p, rp) = (self.bodies[parent].position, self.bodies[parent].radius);
        for _ in 0..20 {
            let gap = CLEARANCE + self.rng.range(0.0, 0.5) * rp.min(body.radius);
            let at = p + self.rng.direction(self.planar) * (rp + body.radius + gap);
            if self.clear(at, body.radius) {
                body.position = at;
                self.bodies.push(body);
                return Some(self.bodies.len() - 1);
            }
        }
        None
    }

    /// A chain, a tree or a ring of up to `n` bodies (fewer when they do not fit), its root
    /// sometimes joined to the world, and a few extra joints between neighbours (loops).
    fn cluster(&mut self, n: usize) {
        // One cluster in six is of light bodies, 1 to 10 cm across (milligrams to a gram);
        // the rest 10 cm to 1 m.
        let scale = if self.rng.chance(1.0 / 6.0) {
            self.rng.log_range(0.01, 0.1)
        } else {
            self.rng.log_range(0.1, 1.0)
        };
        let topology = self.rng.below(5);
        let members = if topology == 4 && n >= 3 {
            self.ring(n, scale)
        } else {
            None
        };
        let members = match members {
            Some(m) => m,
            None => {
                let first = self.body(scale);
                let root = self.place_root(first);
                let mut members = vec![root];
                for _ in 1..n {
                    // Chains (topology 0, 1) hang on the last body, trees on any.
                    let parent = if topology < 2 {
                        *members.last().unwrap()
                    } else {
                        members[self.rng.below(members.len())]
                    };
                    let body = self.body(scale);
                    let Some(child) = self.place_child(parent, body) else {
                        break;
                    };
                    self.joint(child, Some(parent));
                    members.push(child);
                }
                members
            }
        };
        // Roots hang from the world more often under gravity; a lone body is free half as
        // often again.
        let hang = match (self.gravity, n > 1) {
            (true, true) => 0.6,
            (true, false) => 0.3,
            (false, true) => 0.3,
            (false, false) => 0.15,
        };
        if self.rng.chance(hang) {
            self.joint(members[0], None);
        }
        // Loops: joints between members that happen to be close.
        let mut extra = members.len() / 3;
        for i in 0..members.len() {
            for j in i + 1..members.len() {
                let (a, b) = (members[i], members[j]);
                let (ba, bb) = (&self.bodies[a], &self.bodies[b]);
                let near = (ba.position - bb.position).length() < ba.radius + bb.radius + 0.3;
                let joined = self
                    .joints
                    .iter()
                    .any(|k| (k.a == a && k.b == Some(b)) || (k.a == b && k.b == Some(a)));
                if extra > 0 && near && !joined && self.rng.chance(0.25) {
                    self.joint(b, Some(a));
                    extra -= 1;
                }
            }
        }
    }

    /// `n` bodies on a circle, each joined to the next and the last to the first; None (and
    /// nothing placed) when the circle does not fit.
    fn ring(&mut self, n: usize, scale: f32) -> Option<Vec<usize>> {
        let bodies: Vec<BodySpec> = (0..n).map(|_| self.body(scale)).collect();
        // Neighbours, the closest pairs on the circle, are 2·ρ·sin(π/n) apart: room for two
        // of the largest bounding balls, so no two bodies overlap.
        let largest = bodies.iter().map(|b| b.radius).fold(0.0, f32::max);
        let rho = (2.0 * largest + 2.0 * CLEARANCE) / (2.0 * (PI / n as f32).sin());
        let (u, v) = if self.planar {
            (Vec3::X, Vec3::Y)
        } else {
            self.rng.direction(false).any_orthonormal_pair()
        };
        for _ in 0..20 {
            let y = if self.floor {
                rho + largest + self.rng.range(CLEARANCE, 2.0)
            } else {
                self.rng.range(2.0, 8.0)
            };
            let z = if self.planar {
                0.0
            } else {
                self.rng.range(-self.region, self.region)
            };
            let centre = Vec3::new(self.rng.range(-self.region, self.region), y, z);
            let at = |i: usize| {
                let angle = TAU * i as f32 / n as f32;
                centre + rho * (angle.cos() * u + angle.sin() * v)
            };
            if (0..n).all(|i| self.clear(at(i), bodies[i].radius)) {
                let first = self.bodies.len();
                for (i, mut body) in bodies.into_iter().enumerate() {
                    body.position = at(i);
                    self.bodies.push(body);
                }
                for i in 0..n {
                    self.joint(first + (i + 1) % n, Some(first + i));
                }
                return Some((first..first + n).collect());
            }
        }
        None
    }

    /// The locks that act on body `i`: its own and the planar mode's.
    fn locks_of(&self, i: usize) -> Locks {
        let own = self.bodies[i].locked;
        if self.planar {
            own.union(Locks::PLANAR)
        } else {
            own
        }
    }

    /// A point near body `i`'s origin, within half its bounding radius (in the plane when
    /// planar).
    fn point_in(&mut self, i: usize) -> Vec3 {
        let mut offset = self.rng.in_ball() * 0.5 * self.bodies[i].radius;
        if self.planar {
            offset.z = 0.0;
        }
        self.bodies[i].position + offset
    }

    /// A hinge axis for bodies `a` and `b`, and whether one of them may not turn about it.
    /// With locks, seven hinges in ten take an axis both may turn about when there is one;
    /// the rest take a random axis or a locked one.
    fn hinge_axis(&mut self, a: usize, b: Option<usize>) -> (Vec3, bool) {
        let locked = [Some(a), b]
            .into_iter()
            .flatten()
            .map(|i| self.locks_of(i).rotation)
            .fold([false; 3], |x, y| {
                [x[0] || y[0], x[1] || y[1], x[2] || y[2]]
            });
        let free: Vec<usize> = (0..3).filter(|&k| !locked[k]).collect();
        let axis = if locked == [false; 3] {
            self.rng.direction(false)
        } else if !free.is_empty() && self.rng.chance(0.7) {
            // Any direction in the free axes' span.
            let mut v = Vec3::ZERO;
            while v.length_squared() < 1e-4 {
                for &k in &free {
                    v[k] = if free.len() == 1 {
                        1.0
                    } else {
                        self.rng.range(-1.0, 1.0)
                    };
                }
            }
            v.normalize()
        } else if self.rng.chance(0.5) {
            let k = (0..3).find(|&k| locked[k]).expect("a locked axis");
            Vec3::AXES[k]
        } else {
            self.rng.direction(false)
        };
        let axis_locked = (0..3).any(|k| locked[k] && axis[k].abs() > 1e-6);
        (axis, axis_locked)
    }

    /// A joint of a random kind between bodies `a` and `b` (None: the world), holding at the
    /// start.
    fn joint(&mut self, a: usize, b: Option<usize>) {
        let pa = self.bodies[a].position;
        let ra = self.bodies[a].radius;
        // The point joints' anchor, in the gap between the bodies (or just outside `a`,
        // above it under gravity, for a world joint); the distance joints' far end.
        let (anchor, far) = match b {
            Some(b) => {
                let pb = self.bodies[b].position;
                let d = (pb - pa).length();
                let t = self.rng.unit();
                let gap = d - ra - self.bodies[b].radius;
                let anchor = pa + (pb - pa) / d * (ra + t * gap);
                (anchor, self.point_in(b))
            }
            None => {
                let mut dir = self.rng.direction(self.planar);
                if self.gravity {
                    dir = (dir + Vec3::Y * 1.5).normalize();
                }
                let gap = self.rng.range(CLEARANCE, 0.5 * ra.max(0.05));
                let far = pa + dir * (ra + gap + self.rng.range(0.05, 1.0));
                (pa + dir * (ra + gap), far)
            }
        };
        let r = &mut self.rng;
        let shape = match r.below(7) {
            0 => JointShape::Spherical { anchor },
            1 => JointShape::Cone {
                anchor,
                half_angle: r.range(5.0, 150.0).to_radians(),
                tilt: if r.chance(0.5) {
                    Some((r.direction(self.planar), r.range(0.0, 0.8)))
                } else {
                    None
                },
            },
            2 | 3 => {
                let limits = if r.chance(0.05) {
                    Some((0.0, 0.0))
                } else if r.chance(0.5) {
                    Some((
                        -r.range(0.0, 150.0).to_radians(),
                        r.range(0.0, 150.0).to_radians(),
                    ))
                } else {
                    None
                };
                let motor = if r.chance(0.35) {
                    let speed = if r.chance(0.2) {
                        0.0
                    } else {
                        r.range(-3.0, 3.0)
                    };
                    let torque = r.range(0.05, 2.0) * self.bodies[a].mass * 9.81 * ra;
                    Some((speed, torque))
                } else {
                    None
                };
                let (axis, axis_locked) = self.hinge_axis(a, b);
                JointShape::Revolute {
                    anchor,
                    axis,
                    limits,
                    motor,
                    axis_locked,
                }
            }
            4 => JointShape::Fixed { anchor },
            5 => {
                let anchor_a = self.point_in(a);
                let length = (far - anchor_a).length();
                let (min, max) = match self.rng.below(3) {
                    0 => (length, length),
                    1 => (0.0, length * self.rng.range(1.0, 1.3)),
                    _ => (
                        length * self.rng.range(0.5, 1.0),
                        length * self.rng.range(1.0, 1.5),
                    ),
                };
                JointShape::Distance {
                    anchor_a,
                    anchor_b: far,
                    min,
                    max,
                }
            }
            _ => {
                let anchor_a = self.point_in(a);
                let length = (far - anchor_a).length();
                let r = &mut self.rng;
                let bungee = r.chance(0.4);
                JointShape::Spring {
                    anchor_a,
                    anchor_b: far,
                    rest_length: if bungee {
                        length * r.range(1.0, 1.2)
                    } else {
                        length
                    },
                    hertz: r.log_range(0.5, 30.0),
                    damping_ratio: if r.chance(0.3) {
                        0.0
                    } else {
                        r.range(0.0, 1.0)
                    },
                    bungee,
                }
            }
        };
        let collide = b.is_some() && self.rng.chance(0.15);
        self.joints.push(JointSpec {
            a,
            b,
            shape,
            collide,
        });
    }

    /// Gives every body a random velocity (up to 2 m/s and 3 rad/s), without the parts its
    /// locks would take out.
    fn set_velocities(&mut self) {
        for i in 0..self.bodies.len() {
            let locks = self.locks_of(i);
            let v = self.rng.in_ball() * 2.0 * locks.linear_free();
            let w = self.rng.in_ball() * 3.0 * locks.angular_free();
            self.bodies[i].linear_velocity = v;
            self.bodies[i].angular_velocity = w;
        }
    }
}

/// A world built from its spec.
struct Built {
    world: World,
    /// The bodies, in the spec's order.
    bodies: Vec<BodyHandle>,
    /// Joints `create_joint` (or the `JointDef` constructor) refused: spec index and why.
    refused: Vec<(usize, String)>,
}

fn build(spec: &WorldSpec) -> Built {
    let mut world = World::new(spec.settings.clone());
    if spec.floor {
        let floor = world.create_body(BodyDef {
            body_type: BodyType::Static,
            ..BodyDef::default()
        });
        world
            .add_collider(floor, ColliderDef::new(Shape::plane(Vec3::Y)))
            .expect("the floor");
    }
    let bodies = spec
        .bodies
        .iter()
        .map(|b| {
            let def = BodyDef {
                position: b.position,
                rotation: b.rotation,
                linear_velocity: b.linear_velocity,
                angular_velocity: b.angular_velocity,
                locked: b.locked,
                ..BodyDef::default()
            };
            world
                .create_body_with_colliders(def, &b.colliders)
                .unwrap_or_else(|e| panic!("seed {}: a generated body: {e:?}", spec.seed))
                .0
        })
        .collect::<Vec<_>>();
    let mut refused = Vec::new();
    for (i, j) in spec.joints.iter().enumerate() {
        let made = joint_def(&world, &bodies, j).and_then(|def| {
            let def = JointDef {
                collide: j.collide,
                ..def
            };
            world.create_joint(def)
        });
        if let Err(e) = made {
            refused.push((i, e));
        }
    }
    Built {
        world,
        bodies,
        refused,
    }
}

/// The engine's definition of joint `j`.
fn joint_def(world: &World, bodies: &[BodyHandle], j: &JointSpec) -> Result<JointDef, String> {
    let a = bodies[j.a];
    let b = j.b.map(|i| bodies[i]);
    Ok(match j.shape {
        JointShape::Spherical { anchor } => JointDef::spherical(world, a, b, anchor),
        JointShape::Cone {
            anchor,
            half_angle,
            tilt,
        } => {
            let out = world.body(a).map(|body| body.center_of_mass() - anchor);
            let axis = tilt.and_then(|(towards, share)| {
                let out = out?.try_normalize()?;
                let across = out.cross(towards).try_normalize()?;
                Some(Quat::from_axis_angle(across, share * half_angle) * out)
            });
            JointDef::spherical_cone(world, a, b, anchor, axis, half_angle)?
        }
        JointShape::Revolute {
            anchor,
            axis,
            limits,
            motor,
            ..
        } => JointDef::revolute(world, a, b, anchor, axis, limits, motor),
        JointShape::Fixed { anchor } => JointDef::fixed(world, a, b, anchor),
        JointShape::Distance {
            anchor_a,
            anchor_b,
            min,
            max,
        } => JointDef::between(
            world,
            a,
            b,
            anchor_a,
            anchor_b,
            JointKind::Distance { min, max },
        ),
        JointShape::Spring {
            anchor_a,
            anchor_b,
            rest_length,
            hertz,
            damping_ratio,
            bungee,
        } => JointDef::between(
            world,
            a,
            b,
            anchor_a,
            anchor_b,
            JointKind::Spring {
                rest_length,
                hertz,
                damping_ratio,
                bungee,
            },
        ),
    })
}

/// Kinetic plus gravitational energy of the dynamic bodies, J:
/// Σ ½·m·v² + ½·ωᵀ·I·ω − m·s·(g·x), with x the centre of mass and s the gravity scale.
fn energy(world: &World) -> f64 {
    let g = world.settings().gravity.as_dvec3();
    world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Dynamic)
        .map(|(_, b)| {
            let potential = -(b.mass() as f64)
                * b.gravity_scale() as f64
                * g.dot(b.center_of_mass().as_dvec3());
            b.kinetic_energy() as f64 + potential
        })
        .sum()
}

/// The energy the world could turn into motion, J: its kinetic energy plus each dynamic
/// body's weight times its height above the floor (a static plane facing up), or, without
/// one, above 1 m below the lowest centre of mass.
fn energy_scale(world: &World) -> f64 {
    let kinetic: f64 = world.bodies().map(|(_, b)| b.kinetic_energy() as f64).sum();
    let g = world.settings().gravity;
    let Some(up) = (-g).try_normalize() else {
        return kinetic;
    };
    let dynamic = || {
        world
            .bodies()
            .filter(|(_, b)| b.body_type() == BodyType::Dynamic)
            .map(|(_, b)| b)
    };
    let floor = world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Static)
        .flat_map(|(h, _)| world.body_colliders(h))
        .filter_map(|c| world.collider(c))
        .filter_map(|c| match c.shape() {
            Shape::Plane { normal } if (c.world_pose().rotation * *normal).dot(up) > 0.7 => {
                Some(c.world_pose().translation.dot(up))
            }
            _ => None,
        })
        .fold(f32::NEG_INFINITY, f32::max);
    let reference = if floor.is_finite() {
        floor
    } else {
        dynamic()
            .map(|b| b.center_of_mass().dot(up) - 1.0)
            .fold(f32::INFINITY, f32::min)
    };
    let potential: f64 = dynamic()
        .map(|b| {
            let height = (b.center_of_mass().dot(up) - reference).max(0.0) as f64;
            b.mass() as f64 * (b.gravity_scale() * g.length()) as f64 * height
        })
        .sum();
    kinetic + potential
}

/// The most power the world's motors can put in, W: Σ τ_max·|ω_target|. A motor's power
/// τ·ω_rel is positive only while ω_rel lies between 0 and its target (pushing it on), and the
/// torque is at most τ_max, so its work by time t is at most τ_max·|ω_target|·t.
fn motor_power(world: &World) -> f64 {
    world
        .joints()
        .filter_map(|(_, j)| match j.def().kind {
            JointKind::Revolute {
                motor: Some((speed, torque)),
                ..
            } => Some(speed.abs() as f64 * torque as f64),
            _ => None,
        })
        .sum()
}

/// What a run showed.
#[derive(Clone, Debug)]
struct Outcome {
    steps: u64,
    /// The first step (1-based) in which bodies froze, and those bodies.
    frozen: Option<(u64, Vec<BodyHandle>)>,
    /// The first step after which some body's state was not finite (never expected: the
    /// engine freezes such bodies).
    not_finite: Option<u64>,
    /// Energy at the start, J.
    start: f64,
    /// See [`energy_scale`], J.
    scale: f64,
    /// The largest gain allowed past the motors' work, J.
    tolerance: f64,
    /// The largest E(t) − E(0) − W(t), J (W the motors' bound), and its step.
    excess: f64,
    excess_step: u64,
    /// The body with the most kinetic energy at that step.
    excess_body: Option<BodyHandle>,
}

impl Outcome {
    fn gained(&self) -> bool {
        self.excess > self.tolerance
    }

    fn failed(&self) -> bool {
        self.frozen.is_some() || self.not_finite.is_some() || self.gained()
    }

    /// The largest gain past the motors' work in units of the energy scale.
    fn growth(&self) -> f64 {
        self.excess / self.scale.max(1e-12)
    }

    fn summary(&self) -> String {
        let mut s = String::new();
        if let Some((step, bodies)) = &self.frozen {
            let _ = write!(s, "{} frozen at step {step}; ", bodies.len());
        }
        if let Some(step) = self.not_finite {
            let _ = write!(s, "not finite at step {step}; ");
        }
        let _ = write!(
            s,
            "energy {:.3e} J at the start (scale {:.3e} J), gain past motors {:.3e} J = {:.3}× scale at step {} (allowed {:.3e} J)",
            self.start,
            self.scale,
            self.excess,
            self.growth(),
            self.excess_step,
            self.tolerance
        );
        s
    }
}

/// Steps `world` `steps` times by `dt`, checking after every step that no body froze or
/// stopped being finite and that the energy stays within its start plus the motors' work
/// plus the tolerance. Returns early once `stop` holds for the outcome so far.
fn simulate(world: &mut World, dt: f32, steps: u64, stop: &dyn Fn(&Outcome) -> bool) -> Outcome {
    let start = energy(world);
    let scale = energy_scale(world);
    let mass: f64 = world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Dynamic)
        .map(|(_, b)| b.mass() as f64)
        .sum();
    let tolerance = RELATIVE_TOLERANCE * scale + ABSOLUTE_TOLERANCE_PER_KG * mass;
    let power = motor_power(world);
    let mut out = Outcome {
        steps: 0,
        frozen: None,
        not_finite: None,
        start,
        scale,
        tolerance,
        excess: f64::NEG_INFINITY,
        excess_step: 0,
        excess_body: None,
    };
    for step in 1..=steps {
        world.step(dt);
        out.steps = step;
        if out.frozen.is_none() && !world.frozen_bodies().is_empty() {
            out.frozen = Some((step, world.frozen_bodies().to_vec()));
        }
        let finite = world.bodies().all(|(_, b)| {
            b.position().is_finite()
                && b.rotation().is_finite()
                && b.linear_velocity().is_finite()
                && b.angular_velocity().is_finite()
        });
        if !finite && out.not_finite.is_none() {
            out.not_finite = Some(step);
        }
        let excess = energy(world) - start - power * (step as f64 * dt as f64);
        if excess > out.excess {
            out.excess = excess;
            out.excess_step = step;
            out.excess_body = world
                .bodies()
                .max_by(|x, y| x.1.kinetic_energy().total_cmp(&y.1.kinetic_energy()))
                .map(|(h, _)| h);
        }
        if stop(&out) {
            break;
        }
    }
    out
}

/// Builds and runs the world of a spec for `seconds`.
fn run(spec: &WorldSpec, seconds: f32, stop: &dyn Fn(&Outcome) -> bool) -> (Built, Outcome) {
    let mut built = build(spec);
    let steps = (seconds / spec.timestep).round() as u64;
    let outcome = simulate(&mut built.world, spec.timestep, steps, stop);
    (built, outcome)
}

/// One line about a world: class, floor, step, bodies, lightest mass, joints by kind.
fn describe(spec: &WorldSpec) -> String {
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for j in &spec.joints {
        *kinds.entry(j.shape.kind()).or_default() += 1;
    }
    let lightest = spec
        .bodies
        .iter()
        .map(|b| b.mass)
        .fold(f32::INFINITY, f32::min);
    let locked = spec.bodies.iter().filter(|b| !b.locked.is_none()).count();
    let axis_locked = spec
        .joints
        .iter()
        .filter(|j| {
            matches!(
                j.shape,
                JointShape::Revolute {
                    axis_locked: true,
                    ..
                }
            )
        })
        .count();
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    format!(
        "{}{}, 1/{:.0} s × {} sub-steps, {} bodies ({} locked, lightest {:.1e} kg), joints: {}{}",
        spec.class.name(),
        if spec.floor { " with floor" } else { "" },
        1.0 / spec.timestep,
        spec.settings.substeps,
        spec.bodies.len(),
        locked,
        lightest,
        kinds.join(", "),
        if axis_locked > 0 {
            format!(" ({axis_locked} hinges about an axis a body may not turn about)")
        } else {
            String::new()
        }
    )
}

/// A body and its joints, for reports: "b12 capsule 2.1e-4 kg locked T[x] R[xy]: hinge to b3
/// (0.52 kg), spring to the world".
fn describe_body(spec: &WorldSpec, built: &Built, handle: BodyHandle) -> String {
    let Some(i) = built.bodies.iter().position(|&h| h == handle) else {
        return "the floor".into();
    };
    let body = &spec.bodies[i];
    let axes = |l: [bool; 3]| -> String {
        ["x", "y", "z"]
            .iter()
            .zip(l)
            .filter(|(_, on)| *on)
            .map(|(a, _)| *a)
            .collect()
    };
    let mut s = format!("b{i} {} {:.1e} kg", body.shape, body.mass);
    if !body.locked.is_none() {
        let _ = write!(
            s,
            " locked T[{}] R[{}]",
            axes(body.locked.translation),
            axes(body.locked.rotation)
        );
    }
    let joints: Vec<String> = spec
        .joints
        .iter()
        .enumerate()
        .filter(|(_, j)| j.a == i || j.b == Some(i))
        .map(|(k, j)| {
            let other = if j.a == i { j.b } else { Some(j.a) };
            let refused = if built.refused.iter().any(|(r, _)| *r == k) {
                " (refused)"
            } else {
                ""
            };
            match other {
                Some(o) => format!(
                    "{} to b{o} ({:.1e} kg){refused}",
                    j.shape.name(),
                    spec.bodies[o].mass
                ),
                None => format!("{} to the world{refused}", j.shape.name()),
            }
        })
        .collect();
    let _ = write!(
        s,
        ": {}",
        if joints.is_empty() {
            "no joints".into()
        } else {
            joints.join(", ")
        }
    );
    s
}

/// The largest ratio of the masses of two bodies joined to each other.
fn mass_ratio(spec: &WorldSpec) -> f32 {
    spec.joints
        .iter()
        .filter_map(|j| {
            let (a, b) = (spec.bodies[j.a].mass, spec.bodies[j.b?].mass);
            Some(a.max(b) / a.min(b))
        })
        .fold(1.0, f32::max)
}

/// The bodies a failure points at: the frozen ones (first three), else the fastest.
fn culprits(spec: &WorldSpec, built: &Built, outcome: &Outcome) -> String {
    let handles: Vec<BodyHandle> = match (&outcome.frozen, outcome.excess_body) {
        (Some((_, frozen)), _) => frozen.iter().take(3).copied().collect(),
        (None, Some(h)) => vec![h],
        (None, None) => Vec::new(),
    };
    handles
        .iter()
        .map(|&h| describe_body(spec, built, h))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Reads a number from the environment.
fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

fn env_size() -> Size {
    match std::env::var("JOINT_FUZZ_SIZE").as_deref() {
        Ok("small") => Size::Small,
        _ => Size::Large,
    }
}

/// The generator keeps its promises: the same seed gives the same world; no two bodies'
/// bounding balls overlap, nor the floor; and every joint holds where it is made (point
/// anchors together, distances within their range, springs at rest or slack, hinges at
/// angle 0 within their limits, ball joints inside their cones).
#[test]
fn generated_worlds_start_with_every_joint_satisfied() {
    let seeds = (1..=64)
        .map(|s| (s, Size::Small))
        .chain((1..=4).map(|s| (s, Size::Large)));
    for (seed, size) in seeds {
        let spec = generate(seed, size);
        assert_eq!(
            format!("{spec:?}"),
            format!("{:?}", generate(seed, size)),
            "seed {seed}: not deterministic"
        );
        for (i, a) in spec.bodies.iter().enumerate() {
            assert!(
                !spec.floor || a.position.y - a.radius > 0.0,
                "seed {seed}: b{i} in the floor"
            );
            for (j, b) in spec.bodies.iter().enumerate().skip(i + 1) {
                let gap = (a.position - b.position).length() - a.radius - b.radius;
                assert!(gap > 0.0, "seed {seed}: b{i} and b{j} overlap by {}", -gap);
            }
        }
        let built = build(&spec);
        let w = &built.world;
        for (h, joint) in w.joints() {
            let def = joint.def();
            let (pa, pb) = w.joint_anchors(h).expect("anchors");
            let d = (pa - pb).length();
            // f32 rounding of world → local → world, m.
            let tol = 1e-4 * (1.0 + pa.abs().max_element());
            let what = format!("seed {seed}: {:?}", def.kind);
            match def.kind {
                JointKind::Spherical { cone } => {
                    assert!(d < tol, "{what}: anchors {d} m apart");
                    if let Some(c) = cone {
                        let ra = w.body(def.body_a).unwrap().rotation();
                        let rb = def
                            .body_b
                            .map_or(Quat::IDENTITY, |b| w.body(b).unwrap().rotation());
                        let angle = (ra * c.axis_a).angle_between(rb * c.axis_b);
                        assert!(angle <= c.half_angle + 1e-3, "{what}: {angle} rad out");
                    }
                }
                JointKind::Fixed { .. } => assert!(d < tol, "{what}: anchors {d} m apart"),
                JointKind::Revolute { limits, .. } => {
                    assert!(d < tol, "{what}: anchors {d} m apart");
                    let angle = w.joint_angle(h).expect("a hinge angle");
                    assert!(angle.abs() < 1e-3, "{what}: angle {angle}");
                    if let Some((lower, upper)) = limits {
                        assert!(lower <= 0.0 && 0.0 <= upper, "{what}");
                    }
                }
                JointKind::Distance { min, max } => {
                    assert!(min - tol <= d && d <= max + tol, "{what}: {d} m")
                }
                JointKind::Spring {
                    rest_length,
                    bungee,
                    ..
                } => {
                    if bungee {
                        assert!(d <= rest_length + tol, "{what}: {d} m");
                    } else {
                        assert!((d - rest_length).abs() <= tol, "{what}: {d} m");
                    }
                }
            }
        }
        assert!(
            built.refused.iter().all(|(k, _)| matches!(
                spec.joints[*k].shape,
                JointShape::Revolute {
                    axis_locked: true,
                    ..
                }
            )),
            "seed {seed}: valid joints refused: {:?}",
            built.refused
        );
    }
}

/// The default run: small worlds, all of which must keep every body and their energy.
#[test]
#[ignore = "fails on the engine at 5901e62: 30 of the 64 small worlds freeze or gain energy"]
fn random_jointed_worlds_neither_freeze_nor_gain_energy() {
    let mut failures = Vec::new();
    for seed in 1..=SMALL_WORLDS {
        let spec = generate(seed, Size::Small);
        let (built, outcome) = run(&spec, SMALL_SECONDS, &|_| false);
        println!("seed {seed}: {}", outcome.summary());
        if outcome.failed() {
            failures.push(format!(
                "seed {seed}: {}\n    {}\n    {}",
                describe(&spec),
                outcome.summary(),
                culprits(&spec, &built, &outcome)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {SMALL_WORLDS} small jointed worlds failed (rerun one with JOINT_FUZZ_SEED=N \
         JOINT_FUZZ_SIZE=small and joint_fuzz::one_world):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The check itself against scenes that behave: the shipped jointed scenes (a chain, a
/// bridge of planks on bungees, a motorised door, ragdolls down stairs) run 10 s without a
/// frozen body or an energy gain past the tolerance. (Newton's cradle is below.)
#[test]
fn the_shipped_jointed_scenes_pass_the_check() {
    for name in ["chain", "bridge", "door", "ragdoll"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenes")
            .join(format!("{name}.ron"));
        let mut scene = scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut settings = scene.world.settings().clone();
        settings.enable_sleeping = false;
        scene.world.set_settings(settings).expect("settings");
        let steps = (LARGE_SECONDS / scene.timestep).round() as u64;
        let outcome = simulate(&mut scene.world, scene.timestep, steps, &|_| false);
        println!("{name}: {}", outcome.summary());
        assert!(!outcome.failed(), "{name}: {}", outcome.summary());
    }
}

/// Newton's cradle (`scenes/newtons_cradle.ron`: steel balls with restitution 1 on rods)
/// keeps its energy for 10 s.
#[test]
#[ignore = "fails on the engine at 5901e62: the fourth ball is kicked at step 414 and the kinetic energy reaches 1.7e5 J"]
fn newtons_cradle_keeps_its_energy() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/newtons_cradle.ron");
    let mut scene = scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
    let steps = (LARGE_SECONDS / scene.timestep).round() as u64;
    let outcome = simulate(&mut scene.world, scene.timestep, steps, &|_| false);
    assert!(!outcome.failed(), "{}", outcome.summary());
}

/// Counts per group of worlds.
#[derive(Default)]
struct Tally {
    worlds: usize,
    frozen: usize,
    gained: usize,
    failed: usize,
    /// Failed worlds that fail without their joints too (contacts alone).
    without_joints: usize,
    refused: usize,
}

impl Tally {
    fn add(&mut self, outcome: &Outcome, without_joints: bool, refused: usize) {
        self.worlds += 1;
        self.frozen += (outcome.frozen.is_some() || outcome.not_finite.is_some()) as usize;
        self.gained += outcome.gained() as usize;
        self.failed += outcome.failed() as usize;
        self.without_joints += without_joints as usize;
        self.refused += refused;
    }

    const HEADER: &'static str =
        "worlds                                count  frozen%    gain%  either%  no-joint%  refused";

    fn row(&self, name: &str) -> String {
        let pct = |n: usize| 100.0 * n as f64 / self.worlds.max(1) as f64;
        format!(
            "{name:<36} {:>6} {:>8.1} {:>8.1} {:>8.1} {:>10.1} {:>8}",
            self.worlds,
            pct(self.frozen),
            pct(self.gained),
            pct(self.failed),
            pct(self.without_joints),
            self.refused
        )
    }
}

/// The measurement: large worlds, their freeze and energy-gain rates by class and the worst
/// seeds with what went wrong. Reports; asserts nothing.
#[test]
#[ignore = "a measurement (minutes in release); run with --ignored --nocapture"]
fn measure() {
    let worlds = env_number("JOINT_FUZZ_WORLDS").unwrap_or(LARGE_WORLDS);
    let first = env_number("JOINT_FUZZ_FIRST_SEED").unwrap_or(1u64);
    let seconds = env_number("JOINT_FUZZ_SECONDS").unwrap_or(LARGE_SECONDS);
    let started = Instant::now();
    let mut by_class: BTreeMap<Class, Tally> = BTreeMap::new();
    let mut by_tag: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut all = Tally::default();
    let mut gains = Vec::new();
    let mut freezes = Vec::new();
    let mut refusals = Vec::new();
    let mut growths = Vec::new();
    for seed in first..first + worlds {
        let spec = generate(seed, Size::Large);
        let (built, outcome) = run(&spec, seconds, &|_| false);
        let refused = built.refused.len();
        // A failed world again without its joints: does it fail on its contacts alone?
        let without_joints = outcome.failed() && {
            let bare = WorldSpec {
                joints: Vec::new(),
                ..spec.clone()
            };
            run(&bare, seconds, &|o| o.failed()).1.failed()
        };
        by_class
            .entry(spec.class)
            .or_default()
            .add(&outcome, without_joints, refused);
        all.add(&outcome, without_joints, refused);
        let lightest = spec
            .bodies
            .iter()
            .map(|b| b.mass)
            .fold(f32::INFINITY, f32::min);
        let any = |f: fn(&JointShape) -> bool| spec.joints.iter().any(|j| f(&j.shape));
        let axis_locked = any(|s| {
            matches!(
                s,
                JointShape::Revolute {
                    axis_locked: true,
                    ..
                }
            )
        });
        let motor = any(|s| matches!(s, JointShape::Revolute { motor: Some(_), .. }));
        let moving = spec.bodies.iter().any(|b| b.linear_velocity != Vec3::ZERO);
        let ratio = mass_ratio(&spec);
        let n = spec.bodies.len();
        let tags = [
            ("lightest body: under 10 mg", lightest < 1e-5),
            (
                "lightest body: 10 mg to 1 g",
                (1e-5..1e-3).contains(&lightest),
            ),
            ("lightest body: 1 g or more", lightest >= 1e-3),
            ("mass ratio across a joint: ≤ 100", ratio <= 100.0),
            (
                "mass ratio across a joint: 100–10⁴",
                ratio > 100.0 && ratio <= 1e4,
            ),
            ("mass ratio across a joint: > 10⁴", ratio > 1e4),
            ("bodies: 10–25", n <= 25),
            ("bodies: 26–50", (26..=50).contains(&n)),
            ("bodies: 51–100", (51..=100).contains(&n)),
            ("bodies: 101–200", n > 100),
            ("hinge axis a body can't turn: yes", axis_locked),
            ("hinge axis a body can't turn: no", !axis_locked),
            ("motor: yes", motor),
            ("motor: no", !motor),
            ("floor: yes", spec.floor),
            ("floor: no", !spec.floor),
            ("initial velocities: yes", moving),
            ("initial velocities: no", !moving),
        ];
        for (tag, on) in tags {
            if on {
                by_tag
                    .entry(tag)
                    .or_default()
                    .add(&outcome, without_joints, refused);
            }
        }
        let line = format!(
            "seed {seed}: {}\n      {}{}\n      {}",
            describe(&spec),
            outcome.summary(),
            if without_joints {
                " (fails without joints too)"
            } else {
                ""
            },
            culprits(&spec, &built, &outcome)
        );
        if let Some((step, _)) = outcome.frozen {
            freezes.push((step, line.clone()));
        }
        if outcome.gained() {
            gains.push((outcome.growth(), line));
        }
        growths.push(outcome.growth());
        for (k, why) in &built.refused {
            refusals.push(format!(
                "seed {seed} joint {k} ({}): {why}",
                spec.joints[*k].shape.name()
            ));
        }
    }
    println!(
        "\n{worlds} jointed worlds (seeds {first}..={}), {seconds} s each, in {:.0} s \
         (no-joint%: worlds that fail with their joints removed too):\n{}",
        first + worlds - 1,
        started.elapsed().as_secs_f32(),
        Tally::HEADER
    );
    for (class, tally) in &by_class {
        println!("{}", tally.row(class.name()));
    }
    println!("{}", all.row("all"));
    println!("by what the world holds:");
    for (tag, tally) in &by_tag {
        println!("{}", tally.row(tag));
    }
    println!("\nlargest gain past the motors' work, in units of the energy scale (worlds):");
    let edges = [0.0, 0.01, 0.05, 0.2, 1.0, 10.0, 100.0, f64::INFINITY];
    let mut line = format!(
        "  below 0: {}",
        growths.iter().filter(|&&g| g < 0.0).count()
    );
    for w in edges.windows(2) {
        let n = growths.iter().filter(|&&g| g >= w[0] && g < w[1]).count();
        let _ = write!(line, ", {}–{}: {n}", w[0], w[1]);
    }
    println!("{line}");
    gains.sort_by(|a, b| b.0.total_cmp(&a.0));
    freezes.sort_by_key(|f| f.0);
    println!("\nlargest energy gains (past the motors' work, in units of the energy scale):");
    for (_, line) in gains.iter().take(12) {
        println!("  {line}");
    }
    println!("\nearliest freezes:");
    for (_, line) in freezes.iter().take(12) {
        println!("  {line}");
    }
    println!("\nrefused joints: {}", refusals.len());
    for line in refusals.iter().take(12) {
        println!("  {line}");
    }
}

/// One world (`JOINT_FUZZ_SEED`, `JOINT_FUZZ_SIZE=small` for the default run's) in detail;
/// `JOINT_FUZZ_SAVE=FILE` writes it as a scene.
#[test]
#[ignore = "a tool: JOINT_FUZZ_SEED=N cargo test --release --test suite joint_fuzz::one_world -- --ignored --nocapture"]
fn one_world() {
    let Some(seed) = env_number("JOINT_FUZZ_SEED") else {
        println!("set JOINT_FUZZ_SEED");
        return;
    };
    let seconds = env_number("JOINT_FUZZ_SECONDS").unwrap_or(LARGE_SECONDS);
    let spec = generate(seed, env_size());
    let (built, outcome) = run(&spec, seconds, &|_| false);
    println!(
        "seed {seed}: {}\n{}\n{}",
        describe(&spec),
        outcome.summary(),
        culprits(&spec, &built, &outcome)
    );
    for (k, why) in &built.refused {
        println!(
            "refused joint {k} ({}): {why}",
            spec.joints[*k].shape.name()
        );
    }
    if let Some(steps) = env_number::<u64>("JOINT_FUZZ_TRACE") {
        trace(&spec, steps);
    }
    if let Ok(path) = std::env::var("JOINT_FUZZ_SAVE") {
        let comment = format!("joint_fuzz seed {seed}: {}", describe(&spec));
        save(&spec, Path::new(&path), &comment);
    }
}

/// Prints the energy after each of the first `steps` steps, and the body with the most
/// kinetic energy.
fn trace(spec: &WorldSpec, steps: u64) {
    let mut built = build(spec);
    let start = energy(&built.world);
    println!("step 0: E = {start:.6e} J");
    for step in 1..=steps {
        built.world.step(spec.timestep);
        let (h, body) = built
            .world
            .bodies()
            .max_by(|x, y| x.1.kinetic_energy().total_cmp(&y.1.kinetic_energy()))
            .expect("a body");
        println!(
            "step {step}: E − E0 = {:+.6e} J; fastest {} at {:.3e} J{}",
            energy(&built.world) - start,
            describe_body(spec, &built, h),
            body.kinetic_energy(),
            if built.world.frozen_bodies().is_empty() {
                String::new()
            } else {
                format!("; {} frozen", built.world.frozen_bodies().len())
            }
        );
    }
}

/// What kind of failure, for the reduction to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Failure {
    Frozen,
    /// A gain past the motors' work of at least the whole energy scale (so the reduced world
    /// fails clearly, not by a rounding), or `JOINT_FUZZ_REDUCE_GROWTH` times it.
    Energy,
}

fn failure(outcome: &Outcome) -> Option<Failure> {
    let growth = env_number("JOINT_FUZZ_REDUCE_GROWTH").unwrap_or(1.0);
    if outcome.frozen.is_some() || outcome.not_finite.is_some() {
        Some(Failure::Frozen)
    } else if outcome.gained() && outcome.growth() >= growth {
        Some(Failure::Energy)
    } else {
        None
    }
}

/// The spec without the bodies marked in `drop` (and their joints).
fn without_bodies(spec: &WorldSpec, drop: &[bool]) -> WorldSpec {
    let mut index = Vec::with_capacity(drop.len());
    let mut next = 0;
    for &d in drop {
        index.push((!d).then_some(next));
        next += !d as usize;
    }
    WorldSpec {
        bodies: spec
            .bodies
            .iter()
            .zip(drop)
            .filter(|(_, &d)| !d)
            .map(|(b, _)| b.clone())
            .collect(),
        joints: spec
            .joints
            .iter()
            .filter_map(|j| {
                let a = index[j.a]?;
                let b = match j.b {
                    Some(b) => Some(index[b]?),
                    None => None,
                };
                Some(JointSpec { a, b, ..j.clone() })
            })
            .collect(),
        ..spec.clone()
    }
}

/// Removes chunks of `len` items (halves, then quarters, ... then single ones) while `fails`
/// still holds without them; `without` makes the spec without the items marked.
fn remove_chunks(
    spec: WorldSpec,
    len: impl Fn(&WorldSpec) -> usize,
    without: impl Fn(&WorldSpec, &[bool]) -> WorldSpec,
    fails: &impl Fn(&WorldSpec) -> bool,
) -> WorldSpec {
    let mut spec = spec;
    let mut chunk = len(&spec).div_ceil(2).max(1);
    loop {
        let mut start = 0;
        while start < len(&spec) {
            let n = len(&spec);
            let marked: Vec<bool> = (0..n)
                .map(|i| (start..start + chunk).contains(&i))
                .collect();
            let candidate = without(&spec, &marked);
            if len(&candidate) < n && fails(&candidate) {
                spec = candidate;
            } else {
                start += chunk;
            }
        }
        if chunk == 1 {
            return spec;
        }
        chunk = chunk.div_ceil(2);
    }
}

/// The smallest world (fewest joints, then bodies) found that still fails clearly (a frozen
/// body or a gain of the whole energy scale, either: one usually brings the other), and how
/// the world of `spec` failed; None when it does not fail (or, with
/// `JOINT_FUZZ_REDUCE_KIND=frozen`, does not freeze).
fn reduce(spec: &WorldSpec, seconds: f32) -> Option<(WorldSpec, Failure)> {
    let (_, outcome) = run(spec, seconds, &|_| false);
    let kind = failure(&outcome)?;
    // `JOINT_FUZZ_REDUCE_KIND=frozen`: keep a frozen body (a world that freezes usually gains
    // energy first, and the reduction otherwise keeps whichever comes).
    let frozen_only = std::env::var("JOINT_FUZZ_REDUCE_KIND").is_ok_and(|k| k == "frozen");
    if frozen_only && kind != Failure::Frozen {
        return None;
    }
    let stop = move |o: &Outcome| match failure(o) {
        Some(k) => !frozen_only || k == Failure::Frozen,
        None => false,
    };
    // Judged as the scene file loads, so that the saved file fails as the reduction did.
    let fails = |s: &WorldSpec| run_loaded(s, seconds, &stop).is_some_and(|o| stop(&o));
    let mut spec = spec.clone();
    loop {
        let (bodies, joints) = (spec.bodies.len(), spec.joints.len());
        spec = remove_chunks(
            spec,
            |s| s.joints.len(),
            |s, drop| WorldSpec {
                joints: s
                    .joints
                    .iter()
                    .zip(drop)
                    .filter(|(_, &d)| !d)
                    .map(|(j, _)| j.clone())
                    .collect(),
                ..s.clone()
            },
            &fails,
        );
        spec = remove_chunks(spec, |s| s.bodies.len(), without_bodies, &fails);
        if (spec.bodies.len(), spec.joints.len()) == (bodies, joints) {
            break;
        }
    }
    // Simpler still: without the floor, and without the starting velocities.
    if spec.floor {
        let candidate = WorldSpec {
            floor: false,
            ..spec.clone()
        };
        if fails(&candidate) {
            spec = candidate;
        }
    }
    let still = WorldSpec {
        bodies: spec
            .bodies
            .iter()
            .map(|b| BodySpec {
                linear_velocity: Vec3::ZERO,
                angular_velocity: Vec3::ZERO,
                ..b.clone()
            })
            .collect(),
        ..spec.clone()
    };
    if fails(&still) {
        spec = still;
    }
    Some((spec, kind))
}

/// The world of `spec` (as built, before its first step) as scene text, bodies named `b0`,
/// `b1`, ... in the spec's order.
fn scene_text(spec: &WorldSpec, comment: &str) -> String {
    let built = build(spec);
    let meta: BTreeMap<BodyHandle, scene::BodyMeta> = built
        .bodies
        .iter()
        .enumerate()
        .map(|(i, &h)| {
            (
                h,
                scene::BodyMeta {
                    name: format!("b{i}"),
                    color: None,
                },
            )
        })
        .collect();
    scene::save::save(
        &built.world,
        &meta,
        &scene::schema::CameraDesc::default(),
        spec.timestep,
        comment,
    )
    .expect("the scene as RON")
}

/// Runs the world of `spec` as its scene file loads (the loader makes each joint again from
/// its world anchors, which changes the last bits of its frames, so a chaotic failure can
/// differ from the spec's own run); None when the loader refuses it.
fn run_loaded(spec: &WorldSpec, seconds: f32, stop: &dyn Fn(&Outcome) -> bool) -> Option<Outcome> {
    let mut scene = scene::load_str(&scene_text(spec, ""), "reduced.ron").ok()?;
    let steps = (seconds / scene.timestep).round() as u64;
    Some(simulate(&mut scene.world, scene.timestep, steps, stop))
}

/// Writes the world of `spec` as a scene (see [`scene_text`]).
fn save(spec: &WorldSpec, path: &Path, comment: &str) {
    std::fs::write(path, scene_text(spec, comment))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    println!("saved {}", path.display());
}

/// Reduces the world of `JOINT_FUZZ_SEED` and prints (and with `JOINT_FUZZ_SAVE=FILE`
/// saves) what is left.
#[test]
#[ignore = "a tool: JOINT_FUZZ_SEED=N [JOINT_FUZZ_SAVE=FILE] cargo test --release --test suite joint_fuzz::reduce_world -- --ignored --nocapture"]
fn reduce_world() {
    let Some(seed) = env_number("JOINT_FUZZ_SEED") else {
        println!("set JOINT_FUZZ_SEED");
        return;
    };
    let seconds = env_number("JOINT_FUZZ_SECONDS").unwrap_or(LARGE_SECONDS);
    let spec = generate(seed, env_size());
    let Some((reduced, kind)) = reduce(&spec, seconds) else {
        println!("seed {seed} does not fail");
        return;
    };
    let (built, outcome) = run(&reduced, seconds, &|_| false);
    let loaded = run_loaded(&reduced, seconds, &|_| false).expect("the reduced scene loads");
    let kind = failure(&loaded).unwrap_or(kind);
    println!(
        "seed {seed} reduced ({kind:?}): {}\nas built: {}\nas saved: {}\n{}",
        describe(&reduced),
        outcome.summary(),
        loaded.summary(),
        culprits(&reduced, &built, &outcome)
    );
    for (i, j) in reduced.joints.iter().enumerate() {
        println!("  joint {i}: {:?}", j);
    }
    for (i, b) in reduced.bodies.iter().enumerate() {
        println!(
            "  b{i}: {} {:.2e} kg r {:.3} m at {:?} locks {:?}",
            b.shape, b.mass, b.radius, b.position, b.locked
        );
    }
    if let Ok(path) = std::env::var("JOINT_FUZZ_SAVE") {
        let comment = format!(
            "joint_fuzz seed {seed} reduced ({kind:?}): {}",
            describe(&reduced)
        );
        save(&reduced, Path::new(&path), &comment);
    }
}

/// The folder of reduced jointed scenes.
fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/joints")
}

/// Every scene in `tests/corpus/joints/` (small worlds that froze or gained energy) runs for
/// 10 s without a frozen body or an energy gain past its motors' work, or is refused by the
/// loader for one of its joints.
#[test]
#[ignore = "fails on the engine at 5901e62: all 17 scenes, its failures reduced"]
fn the_joint_corpus() {
    let mut failures = Vec::new();
    let mut count = 0;
    let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/corpus/joints")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        count += 1;
        let mut scene = match scene::load_file(&path) {
            Ok(scene) => scene,
            // A joint refused with a reason (the hinges about an axis a body may not turn
            // about should be) passes; any other load error does not.
            Err(e) if e.message.contains("joints[") => {
                println!("{name}: refused: {e}");
                continue;
            }
            Err(e) => panic!("{e}"),
        };
        let steps = (LARGE_SECONDS / scene.timestep).round() as u64;
        let outcome = simulate(&mut scene.world, scene.timestep, steps, &|_| false);
        println!("{name}: {}", outcome.summary());
        if outcome.failed() {
            failures.push(format!("{name}: {}", outcome.summary()));
        }
    }
    assert!(count > 0, "no scenes in {}", corpus_dir().display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
