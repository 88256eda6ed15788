//! Plots of anything: a value of a body or a joint (picked with a right click in the Object
//! panel) or of the whole world (energy, momentum), sampled after the steps, over simulated
//! time. A sample is stored by step, so a rewind and replay write over the same steps and a
//! branch (an edit in the past) drops what came after it, as the timeline does.

use std::collections::BTreeMap;

use macroquad::prelude::Vec3;

use crate::physics::{BodyHandle, BodyType, JointHandle, World};

/// Most steps a series keeps (10 minutes at 60 Hz): older samples are dropped.
pub const MAX_SAMPLES: usize = 36_000;

/// A component of a vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    X,
    Y,
    Z,
    /// Its length.
    Length,
}

impl Component {
    /// All four, in menu order.
    pub const ALL: [Component; 4] = [Self::X, Self::Y, Self::Z, Self::Length];

    fn of(self, v: Vec3) -> f64 {
        match self {
            Self::X => v.x as f64,
            Self::Y => v.y as f64,
            Self::Z => v.z as f64,
            Self::Length => v.length() as f64,
        }
    }

    /// "x", "y", "z" or "|·|".
    pub fn label(self) -> &'static str {
        match self {
            Self::X => "x",
            Self::Y => "y",
            Self::Z => "z",
            Self::Length => "length",
        }
    }
}

/// What a series measures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Quantity {
    /// A body's position, m.
    Position(BodyHandle, Component),
    /// A body's velocity, m/s.
    Velocity(BodyHandle, Component),
    /// A body's angular velocity, rad/s.
    Spin(BodyHandle, Component),
    /// A body's kinetic energy, J.
    KineticEnergy(BodyHandle),
    /// A hinge's angle, degrees, or a rope's or spring's length, m.
    JointAngleOrLength(JointHandle),
    /// The force a joint held in the step, N.
    JointForce(JointHandle),
    /// The world's kinetic energy, J.
    WorldKinetic,
    /// The world's potential energy in gravity, −Σ m·g·p (0 at the origin), J.
    WorldPotential,
    /// Kinetic plus potential, J.
    WorldTotal,
    /// |Σ m·v|, N·s.
    LinearMomentum,
    /// |Σ (p × m·v + I·ω)| about the origin, N·m·s.
    AngularMomentum,
}

impl Quantity {
    /// The value now, or None when its body or joint is gone.
    pub fn sample(self, world: &World) -> Option<f64> {
        self.sample_with(world, &mut WorldSums::default())
    }

    /// [`Quantity::sample`], the world's sums taken from `sums` (computed once for all the
    /// series sampled together).
    fn sample_with(self, world: &World, sums: &mut WorldSums) -> Option<f64> {
        let body = |h: BodyHandle| world.body(h);
        Some(match self {
            Self::Position(h, c) => c.of(body(h)?.position()),
            Self::Velocity(h, c) => c.of(body(h)?.linear_velocity()),
            Self::Spin(h, c) => c.of(body(h)?.angular_velocity()),
            Self::KineticEnergy(h) => body(h)?.kinetic_energy() as f64,
            Self::JointAngleOrLength(j) => match world.joint_angle(j) {
                Some(angle) => angle.to_degrees() as f64,
                None => {
                    let (a, b) = world.joint_anchors(j)?;
                    a.distance(b) as f64
                }
            },
            Self::JointForce(j) => world.joint(j)?.force() as f64,
            Self::WorldKinetic => sums.energy(world).0,
            Self::WorldPotential => sums.energy(world).1,
            Self::WorldTotal => {
                let (k, p) = sums.energy(world);
                k + p
            }
            Self::LinearMomentum => sums.momentum(world).0,
            Self::AngularMomentum => sums.momentum(world).1,
        })
    }

    /// The unit its values are in.
    pub fn unit(self) -> &'static str {
        match self {
            Self::Position(..) => "m",
            Self::Velocity(..) => "m/s",
            Self::Spin(..) => "rad/s",
            Self::KineticEnergy(_)
            | Self::WorldKinetic
            | Self::WorldPotential
            | Self::WorldTotal => "J",
            Self::JointAngleOrLength(_) => "° or m",
            Self::JointForce(_) => "N",
            Self::LinearMomentum => "N·s",
            Self::AngularMomentum => "N·m·s",
        }
    }
}

/// The world's energy and momentum, each summed over the bodies at most once per sample.
#[derive(Default)]
struct WorldSums {
    energy: Option<(f64, f64)>,
    momentum: Option<(f64, f64)>,
}

impl WorldSums {
    fn energy(&mut self, world: &World) -> (f64, f64) {
        *self.energy.get_or_insert_with(|| world_energy(world))
    }

    fn momentum(&mut self, world: &World) -> (f64, f64) {
        *self.momentum.get_or_insert_with(|| world_momentum(world))
    }
}

/// The dynamic bodies' kinetic and potential energy (J): Σ ½·m·v² + ½·ωᵀ·I·ω and
/// Σ −m·g·p·(gravity scale), in f64.
pub fn world_energy(world: &World) -> (f64, f64) {
    let g = world.settings().gravity;
    world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Dynamic)
        .fold((0.0, 0.0), |(k, p), (_, b)| {
            let height = -(g * b.gravity_scale()).dot(b.center_of_mass()) as f64;
            (k + b.kinetic_energy() as f64, p + b.mass() as f64 * height)
        })
}

/// The dynamic bodies' linear momentum |Σ m·v| (N·s) and angular momentum about the origin
/// |Σ (c × m·v + I·ω)| (N·m·s), c the centre of mass, in f64.
pub fn world_momentum(world: &World) -> (f64, f64) {
    let (mut linear, mut angular) = (glam::DVec3::ZERO, glam::DVec3::ZERO);
    for (_, b) in world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Dynamic)
    {
        let p = (b.linear_velocity() * b.mass()).as_dvec3();
        linear += p;
        angular += b.center_of_mass().as_dvec3().cross(p)
            + (b.world_inertia() * b.angular_velocity()).as_dvec3();
    }
    (linear.length(), angular.length())
}

/// One plotted value over time.
#[derive(Clone, Debug)]
pub struct Series {
    /// What it measures.
    pub quantity: Quantity,
    /// Its name in the legend ("box position y").
    pub label: String,
    /// Value by step.
    pub points: BTreeMap<u64, f64>,
}

/// The plotted series.
#[derive(Default)]
pub struct Plots {
    /// In the order they were added.
    pub series: Vec<Series>,
}

impl Plots {
    /// Adds a series (nothing if it is plotted already).
    pub fn add(&mut self, quantity: Quantity, label: String) {
        if self.series.iter().all(|s| s.quantity != quantity) {
            self.series.push(Series {
                quantity,
                label,
                points: BTreeMap::new(),
            });
        }
    }

    /// Whether `quantity` is plotted.
    pub fn has(&self, quantity: Quantity) -> bool {
        self.series.iter().any(|s| s.quantity == quantity)
    }

    /// Records every series' value at the world's step. Samples after `head` (the last
    /// step the timeline holds) belong to a branch that was cut off, and go.
    pub fn sample(&mut self, world: &World, head: u64) {
        let step = world.step_count();
        let mut sums = WorldSums::default();
        for s in &mut self.series {
            s.points.split_off(&(head + 1));
            if let Some(v) = s
                .quantity
                .sample_with(world, &mut sums)
                .filter(|v| v.is_finite())
            {
                s.points.insert(step, v);
            }
            while s.points.len() > MAX_SAMPLES {
                s.points.pop_first();
            }
        }
    }

    /// Forgets every sample (a new scene: the handles mean other bodies now).
    pub fn clear(&mut self) {
        self.series.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::{BodyDef, ColliderDef, Shape, WorldSettings};

    fn falling_ball() -> (World, BodyHandle) {
        let mut world = World::new(WorldSettings::default());
        let (ball, _) = world
            .create_body_with_colliders(
                BodyDef {
                    position: Vec3::new(0.0, 10.0, 0.0),
                    ..BodyDef::default()
                },
                &[ColliderDef::new(Shape::sphere(0.5))],
            )
            .unwrap();
        (world, ball)
    }

    #[test]
    fn a_falling_ball_keeps_its_energy_and_its_height_follows_the_formula() {
        // Free fall from 10 m: y(t) = 10 − ½·g·t² − ½·g·(h/n)·t, semi-implicit Euler over n
        // sub-steps of each step h being ahead by the last term; kinetic + potential stays
        // m·g·10 to the integrator's error.
        let (mut world, ball) = falling_ball();
        let mut plots = Plots::default();
        plots.add(Quantity::Position(ball, Component::Y), "y".into());
        plots.add(Quantity::WorldTotal, "E".into());
        plots.add(Quantity::LinearMomentum, "p".into());
        let h = 1.0 / 60.0;
        let e0 = Quantity::WorldTotal.sample(&world).unwrap();
        let mass = world.body(ball).unwrap().mass() as f64;
        assert!((e0 - mass * 9.81 * 10.0).abs() < 1e-3 * e0, "{e0}");
        for step in 1..=60 {
            world.step(h);
            plots.sample(&world, step);
        }
        let y = &plots.series[0].points;
        assert_eq!(y.len(), 60);
        let t = 1.0;
        let n = world.settings().substeps as f64;
        let expected = 10.0 - 0.5 * 9.81 * t * t - 0.5 * 9.81 * (h as f64 / n) * t;
        assert!(
            (y[&60] - expected).abs() < 1e-4,
            "{} against {expected}",
            y[&60]
        );
        let e = plots.series[1].points[&60];
        assert!((e - e0).abs() < 0.01 * e0, "{e} against {e0}");
        // p = m·g·t.
        let p = plots.series[2].points[&60];
        assert!((p - mass * 9.81).abs() < 1e-3 * p, "{p}");
    }

    #[test]
    fn a_branch_drops_the_samples_after_it_and_a_replay_writes_over_them() {
        let (mut world, ball) = falling_ball();
        let mut plots = Plots::default();
        plots.add(Quantity::Velocity(ball, Component::Length), "v".into());
        for step in 1..=10 {
            world.step(1.0 / 60.0);
            plots.sample(&world, step);
        }
        // Rewound to step 4 with the recording kept to step 10: nothing goes.
        let (mut earlier, _) = falling_ball();
        for _ in 0..4 {
            earlier.step(1.0 / 60.0);
        }
        plots.sample(&earlier, 10);
        assert_eq!(plots.series[0].points.len(), 10);
        // An edit at step 4 cut the recording there: steps 5-10 go.
        plots.sample(&earlier, 4);
        assert_eq!(plots.series[0].points.keys().last(), Some(&4));
        // A body that is gone gives no sample.
        earlier.remove_body(ball).unwrap();
        earlier.step(1.0 / 60.0);
        plots.sample(&earlier, 5);
        assert_eq!(plots.series[0].points.len(), 4);
    }
}
