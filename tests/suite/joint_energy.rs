//! Jointed scenes that must not gain energy, each the smallest scene that once did: two rods
//! in a V, hinges on planar and rotation-locked bodies, hinge limits at ±180°, a tumbling
//! pair on a ball joint. Energy is E = Σ ½m·v² + ½ωᵀIω + m·g·y (gravity along −y), which
//! joints, being workless, may only lose.

use impulse::physics::{Vec3, World};
use impulse::scene::{load_str, Scene};

/// Σ ½m·v² + ½ωᵀIω (the bodies' own kinetic energy) + m·g·y over the dynamic bodies, J.
fn mechanical_energy(world: &World) -> f64 {
    let g = -world.settings().gravity.y as f64;
    world
        .bodies()
        .filter(|(_, b)| b.inv_mass() > 0.0)
        .map(|(_, b)| b.kinetic_energy() as f64 + b.mass() as f64 * g * b.center_of_mass().y as f64)
        .sum()
}

fn scene(text: &str) -> Scene {
    load_str(text, "test.ron").unwrap_or_else(|e| panic!("{e}"))
}

/// Steps `scene` for `seconds` and returns the largest mechanical energy met after the
/// first step (which may take out velocity the joints forbid), with the first step's.
fn energy_over(scene: &mut Scene, seconds: f32) -> (f64, f64) {
    scene.world.step(scene.timestep);
    let first = mechanical_energy(&scene.world);
    let mut largest = first;
    let steps = (seconds / scene.timestep).round() as usize;
    for step in 0..steps {
        scene.world.step(scene.timestep);
        let e = mechanical_energy(&scene.world);
        assert!(e.is_finite(), "energy not finite at step {step}");
        largest = largest.max(e);
        for (_, b) in scene.world.bodies() {
            assert!(!b.is_frozen(), "a body froze at step {step}");
        }
    }
    (first, largest)
}

/// A ball on two rods in a V, as each ball of the shipped Newton's cradle hangs, knocked
/// along its rods (a velocity the rods take out) and left to swing for a minute.
#[test]
fn a_ball_on_two_rods_in_a_v_never_gains_energy() {
    let mut s = scene(
        "Scene(settings: (sleeping: false), bodies: [
           (name: \"ball\", position: (1.7297, 2.0078, 0.0), linear_velocity: (0.645, -0.3, 0.1),
            colliders: [(shape: Sphere(radius: 0.25), density: 8.0)]),
         ], joints: [
           Distance(a: \"ball\", anchor_a: (1.7297, 2.0078, 0.0), anchor_b: (1.56, 4.0, -0.6), min: 2.08751, max: 2.08751),
           Distance(a: \"ball\", anchor_a: (1.7297, 2.0078, 0.0), anchor_b: (1.56, 4.0, 0.6), min: 2.08751, max: 2.08751),
         ])",
    );
    // The rods as long as the file places them: |(0.1697, −1.9922, ±0.6)| = 2.08751 m. The
    // velocity along them is taken out in the first step, which only loses energy.
    let (first, largest) = energy_over(&mut s, 60.0);
    assert!(
        largest <= first + 1.0e-3,
        "energy rose from {first:.4} J to {largest:.4} J"
    );
}

/// The shipped cradle: five balls on rods that swing and collide (restitution 1) for a
/// minute; the rods and the bounces may keep or lose the energy of the raised first ball,
/// never add to it.
#[test]
fn the_newtons_cradle_never_gains_energy_in_a_minute() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/newtons_cradle.ron");
    let mut s = impulse::scene::load_file(&path).unwrap();
    let (first, largest) = energy_over(&mut s, 60.0);
    // Soft contacts store a little energy while the balls press on each other and give it
    // back: 0.1 % of the swing's energy, not a gain that grows.
    assert!(
        largest <= first * 1.001,
        "energy rose from {first:.4} J to {largest:.4} J"
    );
}

/// Two boxes hinged about z in a planar world, one tilted 30° about x and spinning about
/// z: with no floor they fall together, so E = KE + PE stays what it was.
#[test]
fn a_hinge_on_a_tilted_spinning_body_in_a_planar_world_falls_freely() {
    for locks in ["settings: (planar: true)", "settings: ()"] {
        let lock = if locks.contains("planar") {
            ""
        } else {
            "locked: (translation: (false, false, true), rotation: (true, true, false)), "
        };
        let mut s = scene(&format!(
            "Scene({locks}, bodies: [
               (name: \"a\", position: (0.0, 6.0, 0.0), {lock}colliders: [(shape: Cuboid(half_extents: (0.4, 0.4, 0.4)))]),
               (name: \"b\", position: (0.0, 7.0, 0.0), {lock}angular_velocity: (0.0, 0.0, 1.7), rotation: Euler(30.0, 0.0, 0.0),
                colliders: [(shape: Cuboid(half_extents: (0.4, 0.45, 0.07)))]),
             ], joints: [Revolute(a: \"a\", b: \"b\", anchor: (0.0, 6.5, 0.0), axis: (0, 0, 1))])"
        ));
        let (first, largest) = energy_over(&mut s, 10.0);
        // Free fall keeps E exactly up to rounding of m·g·y at y ≈ −480 m (f32: ~10⁻⁴ J).
        assert!(
            largest <= first + 0.05,
            "{locks}: energy rose from {first:.4} J to {largest:.4} J"
        );
    }
}

/// A hinge whose axis a body's locks forbid it to turn about could only hold it as a weld
/// does; the loader refuses it and names the joint.
#[test]
fn a_hinge_about_an_axis_its_body_may_not_turn_about_is_refused() {
    let body = "(name: \"a\", position: (0.0, 3.0, 0.0), colliders: [(shape: Cuboid(half_extents: (0.5, 0.2, 0.2)))])";
    for (settings, locked, axis, refused) in [
        ("(planar: true)", "", "(1.0, 0.0, 0.0)", true),
        ("(planar: true)", "", "(0.0, 0.0, 1.0)", false),
        (
            "()",
            "locked: (rotation: (true, true, false)), ",
            "(0.0, 1.0, 0.0)",
            true,
        ),
        (
            "()",
            "locked: (rotation: (true, true, false)), ",
            "(0.0, 0.0, 1.0)",
            false,
        ),
        ("()", "", "(1.0, 0.0, 0.0)", false),
    ] {
        let body = body.replace("position", &format!("{locked}position"));
        let text = format!(
            "Scene(settings: {settings}, bodies: [{body}], joints: [
               Revolute(a: \"a\", anchor: (0.5, 3.0, 0.0), axis: {axis})])"
        );
        match load_str(&text, "hinge.ron") {
            Ok(_) => assert!(!refused, "{settings} {locked} axis {axis}: accepted"),
            Err(e) => {
                let e = e.to_string();
                assert!(refused, "{settings} {locked} axis {axis}: {e}");
                assert!(
                    e.contains("joints[0]") && e.contains("hinge axis") && e.contains("body a"),
                    "{e}"
                );
            }
        }
    }
}

/// A door hinged about the world's z axis, limits −180° and 90°, turning towards −180° at
/// 2 rad/s with no gravity: the lower limit stops it at −180°, where the measured angle
/// wraps to +180° (past the upper limit as a number, but the nearer limit is the lower).
/// The angle never passes −180° by more than the soft limit gives (2°), and the stop takes
/// energy out.
#[test]
fn a_hinge_stops_at_a_limit_of_minus_180_degrees_without_a_kick() {
    let mut s = scene(
        "Scene(settings: (sleeping: false, gravity: (0.0, 0.0, 0.0)), bodies: [
           (name: \"door\", position: (0.5, 0.0, 0.0), angular_velocity: (0.0, 0.0, -2.0),
            linear_velocity: (0.0, -1.0, 0.0),
            colliders: [(shape: Cuboid(half_extents: (0.5, 0.05, 0.05)))]),
         ], joints: [Revolute(a: \"door\", anchor: (0.0, 0.0, 0.0), axis: (0.0, 0.0, 1.0), limits: (-180.0, 90.0))])",
    );
    let (joint, _) = s.world.joints().next().unwrap();
    let start = mechanical_energy(&s.world);
    let mut reached = false;
    for step in 0..300 {
        s.world.step(s.timestep);
        let angle = s.world.joint_angle(joint).unwrap().to_degrees();
        // Past −180° the angle reads as a little under +180°.
        let unwrapped = if angle > 90.0 { angle - 360.0 } else { angle };
        assert!(
            (-182.0..=0.5).contains(&unwrapped),
            "step {step}: angle {angle}°"
        );
        reached |= unwrapped < -178.0;
        let e = mechanical_energy(&s.world);
        assert!(e <= start + 1.0e-6, "step {step}: {e} J from {start} J");
    }
    // At 2 rad/s it reaches −180° after π/2 s (94 steps).
    assert!(reached, "the door never reached its lower limit");
}

/// Two hulls tumbling in zero gravity on one ball joint, 64 sub-steps and no relax pass:
/// the joint keeps or loses their kinetic energy for 20 s, and the world inverse inertia
/// that its rows use follows each turning body through the sub-steps.
#[test]
fn a_pair_tumbling_on_a_ball_joint_keeps_its_energy() {
    let mut s = scene(
        "Scene(settings: (gravity: (0.0, 0.0, 0.0), timestep: 0.0333333, substeps: 64, position_iterations: 0, sleeping: false, integrator: Verlet),
         bodies: [
          (name: \"a\", position: (-5.55704, 1.55202, 1.16291), linear_velocity: (-2.09431, 1.52628, 2.76117), angular_velocity: (1.59899, -1.24006, 2.84529),
           colliders: [(shape: Hull(points: [(-0.402601, -0.357108, 0.0218938), (0.113831, -0.0561267, -0.341671), (-0.486301, 0.185532, -0.0258408), (-0.17979, -0.0747627, 0.223721), (0.00661626, 0.205265, -0.338706), (0.185873, 0.0710119, 0.177839)]), position: (0.33209, -0.263086, -0.342219), density: 10),
                       (shape: Prism(half_width: 0.144307, height: 0.351729, half_depth: 0.481554), position: (-0.280994, -0.261489, 0.244472), density: 10)]),
          (name: \"b\", position: (-5.57582, 1.52827, 3.35777), rotation: Euler(-49.8081, 134.33, 73.8183), linear_velocity: (2.80219, -1.90365, -2.18352), angular_velocity: (-1.58302, -2.89632, 0.336928),
           colliders: [(shape: Hull(points: [(0.314298, -0.320041, -0.431625), (0.0570148, 0.544568, -0.211885), (-0.460544, -0.0957924, -0.421294), (0.216632, 0.391548, 0.433918), (0.515687, -0.502443, 0.471545), (0.276281, 0.275985, 0.372096), (-0.170803, -0.398877, 0.313273), (-0.479034, 0.211738, -0.291653), (-0.0680335, 0.516256, 0.227983), (0.194386, 0.407047, -0.537729), (-0.416855, -0.430936, 0.498494), (0.113452, 0.496021, 0.191654)]), density: 10)]),
         ],
         joints: [Spherical(a: \"b\", b: \"a\", anchor: (-5.56643, 1.54014, 2.26034))])",
    );
    let (first, largest) = energy_over(&mut s, 20.0);
    // No relax pass leaves the soft rows' push-out velocity in the bodies: a little over
    // the first step's energy (under 1 %) is that, not a gain that grows.
    assert!(
        largest <= first * 1.01,
        "energy rose from {first:.4} J to {largest:.4} J"
    );
}

/// A 0.07 g box welded to the world with a 0.2 kg box on a ball joint to it (zero gravity,
/// the big box moving off at 1.7 m/s): the weld holds the small box still and the big one
/// swings about the joint, keeping or losing its energy, for 10 s. The light box's spin
/// from the warm start goes far past the speed cap for an instant; the passes take it back.
#[test]
fn a_heavy_body_on_a_ball_joint_to_a_light_welded_one_keeps_its_energy() {
    let mut s = scene(
        "Scene(settings: (gravity: (0.0, 0.0, 0.0), timestep: 0.008333334, substeps: 2, sleeping: false),
         bodies: [
          (name: \"light\", position: (1.897866, 6.657095, -0.52554417), rotation: Quat(-0.18295333, 0.5069507, 0.4733326, 0.6967678),
           linear_velocity: (0.60539603, 0.44082928, -0.5526571), angular_velocity: (0.5326624, 1.3399869, 2.085197),
           colliders: [(shape: Cuboid(half_extents: (0.026252983, 0.013219153, 0.025636407)))]),
          (name: \"heavy\", position: (1.5701464, 6.283104, 0.35356346), rotation: Quat(0.13435806, 0.08613748, 0.056788158, -0.98554724),
           linear_velocity: (1.1316588, -1.2138693, 0.34127402), angular_velocity: (-0.9898099, -0.7070879, -1.1109778),
           colliders: [(shape: Cuboid(half_extents: (0.26547477, 0.31722772, 0.28087315)))]),
         ],
         joints: [
          Spherical(a: \"light\", b: \"heavy\", anchor: (1.767268, 6.5080576, -0.1752148)),
          Fixed(a: \"light\", anchor: (1.8945931, 6.6868014, -0.4761345)),
         ])",
    );
    let (first, largest) = energy_over(&mut s, 10.0);
    assert!(
        largest <= first * 1.01,
        "energy rose from {first:.5} J to {largest:.5} J"
    );
    let light = s.world.bodies().next().unwrap().1;
    assert!(
        light.linear_velocity().length() < 0.01,
        "the welded box moves at {} m/s",
        light.linear_velocity()
    );
}

/// A rod spinning in zero gravity on an undamped spring from the world to its end: the
/// spring's line turns against the rod, so the arm's share of the row's effective mass
/// changes all the time. The spring is the bodies' own, stiffness k = m·(2π·f)² with m the
/// rod's mass, and E = ½m·v² + ½ωᵀIω + ½k·(|d| − L)² stays within 3 % of its start for a
/// minute (semi-implicit Euler's energy wobbles by about ω·h, here 1 %, and does not drift). A
/// stiffness taken from the effective mass along the line instead would follow the turning
/// arm and pump energy in or out (this rod: from 38 J to 170 J).
#[test]
fn a_spring_on_a_spinning_rods_end_keeps_its_energy() {
    let mut s = scene(
        "Scene(settings: (gravity: (0.0, 0.0, 0.0), sleeping: false),
         bodies: [(name: \"rod\", position: (1.5, 0.0, 0.0), linear_velocity: (0.0, 1.0, 0.0), angular_velocity: (0.0, 0.0, 3.0),
                   colliders: [(shape: Cuboid(half_extents: (0.4, 0.05, 0.05)), density: 1000.0)])],
         joints: [Spring(a: \"rod\", anchor_a: (1.9, 0.0, 0.0), anchor_b: (0.0, 0.0, 0.0), rest_length: 1.0, hertz: 0.5, damping_ratio: 0.0)])",
    );
    let (rod, rest_length, hertz) = (s.world.bodies().next().unwrap().0, 1.0f64, 0.5f64);
    let arm = Vec3::new(0.4, 0.0, 0.0);
    let mass = s.world.body(rod).unwrap().mass() as f64;
    let stiffness = mass * (std::f64::consts::TAU * hertz).powi(2);
    let energy = |world: &World| {
        let body = world.body(rod).unwrap();
        let end = body.position() + body.rotation() * arm;
        let stretch = end.length() as f64 - rest_length;
        body.kinetic_energy() as f64 + 0.5 * stiffness * stretch * stretch
    };
    let start = energy(&s.world);
    let (mut low, mut high) = (start, start);
    for _ in 0..(60.0 / s.timestep).round() as usize {
        s.world.step(s.timestep);
        let e = energy(&s.world);
        (low, high) = (low.min(e), high.max(e));
    }
    assert!(
        low > start * 0.97 && high < start * 1.03,
        "energy from {start:.4} J ranged over {low:.4}..{high:.4} J"
    );
}
