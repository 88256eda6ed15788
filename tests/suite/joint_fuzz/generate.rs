//! The random worlds: seeded numbers, then bodies placed one by one and joined as they go.

use std::f32::consts::{PI, TAU};

use impulse::physics::{ColliderDef, Locks, Quat, Shape, Vec3, WorldSettings};

use super::spec::{BodySpec, Class, JointShape, JointSpec, Size, WorldSpec};

/// Bodies that no joint joins start at least this far apart, m.
pub(super) const CLEARANCE: f32 = 0.005;
/// xorshift64* (Vigna 2016, "An experimental exploration of Marsaglia's xorshift generators,
/// scrambled"): small, fast and the same on every machine.
pub(super) struct Rng(u64);

impl Rng {
    /// A generator whose state is the seed passed through SplitMix64, so neighbouring seeds
    /// start far apart (and the state is never 0).
    pub(super) fn new(seed: u64) -> Self {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    pub(super) fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub(super) fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Log-uniform in [lo, hi): as many sizes between 1 and 2 cm as between 10 and 20 cm.
    pub(super) fn log_range(&mut self, lo: f32, hi: f32) -> f32 {
        lo * (hi / lo).powf(self.unit())
    }

    pub(super) fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }

    /// Uniform in 0..n.
    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A uniform point in the unit ball.
    pub(super) fn in_ball(&mut self) -> Vec3 {
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
    pub(super) fn direction(&mut self, planar: bool) -> Vec3 {
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

    pub(super) fn rotation(&mut self) -> Quat {
        Quat::from_axis_angle(self.direction(false), self.range(0.0, TAU))
    }
}

/// Writes a world's spec: bodies placed one by one, apart from all others.
pub(super) struct Generator {
    pub(super) rng: Rng,
    pub(super) planar: bool,
    pub(super) locked_class: bool,
    pub(super) floor: bool,
    pub(super) gravity: bool,
    /// Half the width of the square in which clusters start, m (grows when it fills up).
    pub(super) region: f32,
    /// The share of bodies whose size ignores their cluster's (0 or 0.1: large mass ratios
    /// across joints in half the worlds).
    pub(super) mixed: f32,
    pub(super) bodies: Vec<BodySpec>,
    pub(super) joints: Vec<JointSpec>,
}

/// The world of `seed`.
pub(super) fn generate(seed: u64, size: Size) -> WorldSpec {
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
    pub(super) fn colliders(&mut self, size: f32) -> (Vec<ColliderDef>, &'static str, f32) {
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
    pub(super) fn primitive(&mut self, kind: usize, half: f32) -> (Shape, &'static str, f32) {
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
    pub(super) fn material(&mut self, shape: Shape) -> ColliderDef {
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
    pub(super) fn body(&mut self, scale: f32) -> BodySpec {
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
    pub(super) fn locks(&mut self) -> Locks {
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
    pub(super) fn clear(&self, at: Vec3, radius: f32) -> bool {
        (!self.floor || at.y - radius >= CLEARANCE)
            && self
                .bodies
                .iter()
                .all(|b| (b.position - at).length() >= b.radius + radius + CLEARANCE)
    }

    /// Places `body` somewhere free in the region (which grows until it fits); its index.
    pub(super) fn place_root(&mut self, mut body: BodySpec) -> usize {
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
    pub(super) fn place_child(&mut self, parent: usize, mut body: BodySpec) -> Option<usize> {
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
    pub(super) fn cluster(&mut self, n: usize) {
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
    pub(super) fn ring(&mut self, n: usize, scale: f32) -> Option<Vec<usize>> {
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
    pub(super) fn locks_of(&self, i: usize) -> Locks {
        let own = self.bodies[i].locked;
        if self.planar {
            own.union(Locks::PLANAR)
        } else {
            own
        }
    }

    /// A point near body `i`'s origin, within half its bounding radius (in the plane when
    /// planar).
    pub(super) fn point_in(&mut self, i: usize) -> Vec3 {
        let mut offset = self.rng.in_ball() * 0.5 * self.bodies[i].radius;
        if self.planar {
            offset.z = 0.0;
        }
        self.bodies[i].position + offset
    }

    /// A hinge axis for bodies `a` and `b`, and whether one of them may not turn about it.
    /// With locks, seven hinges in ten take an axis both may turn about when there is one;
    /// the rest take a random axis or a locked one.
    pub(super) fn hinge_axis(&mut self, a: usize, b: Option<usize>) -> (Vec3, bool) {
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
    pub(super) fn joint(&mut self, a: usize, b: Option<usize>) {
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
    pub(super) fn set_velocities(&mut self) {
        for i in 0..self.bodies.len() {
            let locks = self.locks_of(i);
            let v = self.rng.in_ball() * 2.0 * locks.linear_free();
            let w = self.rng.in_ball() * 3.0 * locks.angular_free();
            self.bodies[i].linear_velocity = v;
            self.bodies[i].angular_velocity = w;
        }
    }
}
