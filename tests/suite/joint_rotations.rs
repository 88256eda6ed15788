//! The joints that hold rotation, against formulas and each other: a motorised hinge's speed,
//! its limits and a motor that stalls, welds that hold a cantilever level and move two bodies
//! as one, ball joints' cones, which jointed pairs collide, ragdolls that keep their limits,
//! and each of them through a scene file.

use crate::common;
use crate::joints::{ball, shipped_scene_without_sleeping, world, G};

use common::*;
use impulse::physics::{
    BodyHandle, JointDef, JointKind, Limits, Motor, Quat, Shape, Vec3, World, WorldSettings,
};

/// A 1 m × 2 m × 0.1 m door hinged to the world along its left edge (the y axis through
/// (0, 1, 0)), with a motor and optional limits.
fn door(
    w: &mut World,
    limits: Option<Limits>,
    motor: Option<Motor>,
) -> (BodyHandle, impulse::physics::JointHandle) {
    let body = dynamic(
        w,
        Shape::cuboid(Vec3::new(0.5, 1.0, 0.05)),
        Vec3::new(0.5, 1.0, 0.0),
        Quat::IDENTITY,
        0.5,
    );
    let mut def = JointDef::revolute(w, body, None, Vec3::new(0.0, 1.0, 0.0), Vec3::Y);
    if let Some(Limits { lower, upper }) = limits {
        def = def.with_limits(lower, upper);
    }
    if let Some(motor) = motor {
        def = def.with_motor(motor);
    }
    (body, w.create_joint(def).unwrap())
}

#[test]
fn a_motorised_hinge_turns_at_its_speed_about_its_axis_only() {
    let mut w = world();
    // Gravity pulls the door sideways off its hinge line; the hinge must hold it, and the
    // motor (1 rad/s, torque to spare) turns it at exactly 1 rad/s about +y.
    let (body, joint) = door(
        &mut w,
        None,
        Some(Motor {
            speed: 1.0,
            max_torque: 100.0,
        }),
    );
    for _ in 0..90 {
        w.step(DT);
    }
    let b = w.body(body).unwrap();
    let spin = b.angular_velocity();
    assert!((spin.y - 1.0).abs() < 0.02, "{spin:?}");
    assert!(spin.x.abs() < 0.02 && spin.z.abs() < 0.02, "{spin:?}");
    // 1.5 s at 1 rad/s (less the spin-up of the first steps).
    let angle = w.joint_angle(joint).unwrap();
    assert!((angle - 1.5).abs() < 0.05, "angle {angle}");
    // The hinge edge stays on the axis: the door's centre is 0.5 m from it, at height 1.
    let p = b.position();
    assert!(
        ((p.x * p.x + p.z * p.z).sqrt() - 0.5).abs() < 0.005,
        "{p:?}"
    );
    assert!((p.y - 1.0).abs() < 0.005, "{p:?}");
}

#[test]
fn a_hinge_stops_at_its_limit_and_a_weak_motor_stalls() {
    let mut w = world();
    // The motor (2 rad/s, at most 1 N·m on a 0.2 kg door) drives on, but the upper limit is
    // 45°.
    let (_, limited) = door(
        &mut w,
        Some(Limits {
            lower: -0.2,
            upper: 45f32.to_radians(),
        }),
        Some(Motor {
            speed: 2.0,
            max_torque: 1.0,
        }),
    );
    for _ in 0..180 {
        w.step(DT);
    }
    let angle = w.joint_angle(limited).unwrap();
    assert!(
        (angle - 45f32.to_radians()).abs() < 1f32.to_radians(),
        "{}",
        angle.to_degrees()
    );
    // A motor with no torque turns nothing.
    let mut w = world();
    let (_, weak) = door(
        &mut w,
        None,
        Some(Motor {
            speed: 2.0,
            max_torque: 0.0,
        }),
    );
    for _ in 0..60 {
        w.step(DT);
    }
    assert!(w.joint_angle(weak).unwrap().abs() < 1e-3);
}

#[test]
fn a_saved_hinge_keeps_its_limits_where_they_were() {
    use impulse::scene::{load_file, load_str, save};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/door.ron");
    let mut scene = load_file(&path).unwrap();
    for _ in 0..30 {
        scene.world.step(scene.timestep);
    }
    let (handle, _) = scene.world.joints().next().unwrap();
    let angle = scene.world.joint_angle(handle).unwrap();
    assert!(angle > 0.3, "the motor opened the door: {angle}");
    // Saved, the joint's frames keep its reference and limits exactly: it loads at the
    // same angle within the same range.
    let mut file = save::to_scene_file(&scene.world, &scene.meta, &scene.camera, scene.timestep);
    let exact = load_str(&save::to_ron(&file, "").unwrap(), "exact.ron").unwrap();
    let (loaded, joint) = exact.world.joints().next().unwrap();
    let (_, before) = scene.world.joints().next().unwrap();
    assert_eq!(joint.def().kind, before.def().kind);
    assert_eq!(exact.world.joint_angle(loaded), Some(angle));
    // Without the frames (a hand edit that deletes them) the world fields are used: the
    // current angle becomes 0, so the limits (0°, 100°) move down by it.
    for j in &mut file.joints {
        if let impulse::scene::schema::JointDesc::Revolute { frames, .. } = j {
            *frames = None;
        }
    }
    let again = load_str(&save::to_ron(&file, "").unwrap(), "again.ron").unwrap();
    let (_, joint) = again.world.joints().next().unwrap();
    let JointKind::Revolute { limits, motor, .. } = joint.def().kind else {
        panic!("a hinge");
    };
    let Limits {
        lower: lo,
        upper: hi,
    } = limits.unwrap();
    assert!((lo + angle).abs() < 1e-4 && (hi - (100f32.to_radians() - angle)).abs() < 1e-4);
    assert_eq!(
        motor,
        Some(Motor {
            speed: 1.5,
            max_torque: 40.0
        })
    );
}

/// The angle of the rotation `q`, rad.
fn rotation_angle(q: Quat) -> f32 {
    2.0 * q.w.abs().min(1.0).acos()
}

/// A 2 m × 0.2 m × 0.2 m beam (density 0.5) level at (1, 5, 0), its left end at (0, 5, 0).
fn cantilever_beam(w: &mut World) -> BodyHandle {
    dynamic(
        w,
        Shape::cuboid(Vec3::new(1.0, 0.1, 0.1)),
        Vec3::new(1.0, 5.0, 0.0),
        Quat::IDENTITY,
        0.5,
    )
}

#[test]
fn a_weld_holds_a_cantilever_level_for_a_minute() {
    let mut w = world();
    // A 2 m × 0.2 m × 0.2 m beam welded to the world at its left end (0, 5, 0). A rigid weld
    // holds it level: no turn, its far end at (2, 5, 0). The weld is soft in the biased pass
    // (60 Hz), so it sags like a spring of that frequency: about g/ω² = 9.81/(2π·60)² = 0.07 mm
    // per row, far below the 1 mm and 0.1° asked here.
    let beam = cantilever_beam(&mut w);
    let weld = w
        .create_joint(JointDef::fixed(&w, beam, None, Vec3::new(0.0, 5.0, 0.0)))
        .unwrap();
    let mut worst_angle = 0.0f32;
    let mut worst_end = 0.0f32;
    for _ in 0..3600 {
        w.step(DT);
        let body = w.body(beam).unwrap();
        worst_angle = worst_angle.max(rotation_angle(body.rotation()));
        let end = body.position() + body.rotation() * Vec3::new(1.0, 0.0, 0.0);
        worst_end = worst_end.max(end.distance(Vec3::new(2.0, 5.0, 0.0)));
    }
    assert!(
        worst_angle < 0.1f32.to_radians(),
        "turned {worst_angle} rad"
    );
    assert!(worst_end < 1.0e-3, "far end moved {worst_end} m");
    // It holds the beam's weight: m·g = 2 × 0.2 × 0.2 × 1 kg/m³ × 9.81 = 0.785 N.
    let force = w.joint(weld).unwrap().force();
    assert!((force - 0.785).abs() < 0.01, "holds {force} N");
}

#[test]
fn two_welded_bodies_move_as_one_and_keep_their_momentum() {
    let mut w = World::new(WorldSettings {
        gravity: Vec3::ZERO,
        enable_sleeping: false,
        ..WorldSettings::default()
    });
    // Two unit cubes side by side, welded at their shared face, started with different
    // velocities and spins: the weld's impulses are equal and opposite, so the total momentum
    // m_a·v_a + m_b·v_b stays what it was, and the pair ends up turning as one body.
    let a = dynamic(
        &mut w,
        Shape::cuboid(Vec3::splat(0.5)),
        Vec3::ZERO,
        Quat::IDENTITY,
        0.5,
    );
    let b = dynamic(
        &mut w,
        Shape::cuboid(Vec3::splat(0.5)),
        Vec3::new(1.0, 0.0, 0.0),
        Quat::from_rotation_y(0.3),
        0.5,
    );
    let def = JointDef::fixed(&w, a, Some(b), Vec3::new(0.5, 0.0, 0.0));
    let JointKind::Fixed { reference } = def.kind else {
        unreachable!()
    };
    let weld = w.create_joint(def).unwrap();
    w.set_linear_velocity(a, Vec3::new(1.0, 0.5, 0.0)).unwrap();
    w.set_angular_velocity(a, Vec3::new(0.0, 0.0, 2.0)).unwrap();
    w.set_linear_velocity(b, Vec3::new(-0.5, 0.0, 0.2)).unwrap();
    let momentum = |w: &World| {
        let (ba, bb) = (w.body(a).unwrap(), w.body(b).unwrap());
        ba.mass() * ba.linear_velocity() + bb.mass() * bb.linear_velocity()
    };
    let start = momentum(&w);
    for step in 0..600 {
        w.step(DT);
        assert!(
            momentum(&w).distance(start) < 1.0e-4,
            "momentum {} at step {step}, started {start}",
            momentum(&w)
        );
        if step >= 60 {
            // After the first second the pair is one rigid body: the relative rotation is
            // the weld's, the anchors coincide, the spins are equal.
            let (ba, bb) = (w.body(a).unwrap(), w.body(b).unwrap());
            let relative = bb.rotation().inverse() * ba.rotation();
            let off = rotation_angle(relative * reference.inverse());
            assert!(off < 0.2f32.to_radians(), "off by {off} rad at step {step}");
            let (pa, pb) = w.joint_anchors(weld).unwrap();
            assert!(
                pa.distance(pb) < 1.0e-3,
                "anchors {} apart",
                pa.distance(pb)
            );
            let spin = ba.angular_velocity() - bb.angular_velocity();
            assert!(spin.length() < 1.0e-2, "relative spin {spin}");
        }
    }
}

/// Joints keep only the pairs they join from colliding: four unit cubes in a 2 × 2 square,
/// each overlapping its neighbours by 0.2 m, the bottom two joined and the top two joined.
/// The joined pairs get no contact; the other four pairs (two above each other, two
/// across the diagonal), whose bodies all have joints too, do; once the bottom joint goes,
/// its pair collides again.
#[test]
fn a_joint_keeps_only_its_own_pair_from_colliding() {
    let mut w = World::new(WorldSettings {
        gravity: Vec3::ZERO,
        enable_sleeping: false,
        ..WorldSettings::default()
    });
    let cube = |w: &mut World, x: f32, y: f32| {
        dynamic(
            w,
            Shape::cuboid(Vec3::splat(0.5)),
            Vec3::new(x, y, 0.0),
            Quat::IDENTITY,
            0.5,
        )
    };
    let (a, b) = (cube(&mut w, 0.0, 0.0), cube(&mut w, 0.8, 0.0));
    let (c, d) = (cube(&mut w, 0.0, 0.8), cube(&mut w, 0.8, 0.8));
    let ab = w
        .create_joint(JointDef::spherical(
            &w,
            a,
            Some(b),
            Vec3::new(0.4, 0.0, 0.0),
        ))
        .unwrap();
    w.create_joint(JointDef::spherical(
        &w,
        c,
        Some(d),
        Vec3::new(0.4, 0.8, 0.0),
    ))
    .unwrap();
    let key = |x: BodyHandle, y: BodyHandle| (x.index().min(y.index()), x.index().max(y.index()));
    let pairs = |w: &World| {
        let mut pairs: Vec<_> = w
            .contacts()
            .filter(|c| c.is_touching())
            .map(|c| key(c.body_a(), c.body_b()))
            .collect();
        pairs.sort();
        pairs
    };
    w.step(DT);
    let mut free = vec![key(a, c), key(b, d), key(a, d), key(b, c)];
    free.sort();
    assert_eq!(pairs(&w), free);
    w.remove_joint(ab).unwrap();
    w.step(DT);
    free.push(key(a, b));
    free.sort();
    assert_eq!(pairs(&w), free);
}

#[test]
fn jointed_bodies_collide_only_when_the_joint_says_so() {
    // Two unit cubes overlapping by 0.2 m, joined by a ball joint in their overlap, in zero
    // gravity. By default a joint keeps its bodies from colliding: nothing pushes them, they
    // stay at rest, and once the joint is removed their contact comes back. With
    // `collide: true` the contact stays and pushes against the joint.
    for collide in [false, true] {
        let mut w = World::new(WorldSettings {
            gravity: Vec3::ZERO,
            enable_sleeping: false,
            ..WorldSettings::default()
        });
        let cube = |w: &mut World, x: f32| {
            dynamic(
                w,
                Shape::cuboid(Vec3::splat(0.5)),
                Vec3::new(x, 0.0, 0.0),
                Quat::IDENTITY,
                0.5,
            )
        };
        let (a, b) = (cube(&mut w, 0.0), cube(&mut w, 0.8));
        // The contact exists before the joint, and a joint that does not collide removes it.
        w.step(DT);
        assert_eq!(w.contacts().count(), 1);
        let joint = w
            .create_joint(JointDef {
                collide,
                ..JointDef::spherical(&w, a, Some(b), Vec3::new(0.4, 0.0, 0.0))
            })
            .unwrap();
        assert_eq!(w.contacts().count(), usize::from(collide));
        // Start from rest (the first step's contact pushed them a little).
        for body in [a, b] {
            w.set_linear_velocity(body, Vec3::ZERO).unwrap();
            w.set_angular_velocity(body, Vec3::ZERO).unwrap();
        }
        for _ in 0..30 {
            w.step(DT);
        }
        assert_eq!(w.contacts().count(), usize::from(collide));
        let moving = w.body(a).unwrap().angular_velocity().length()
            + w.body(a).unwrap().linear_velocity().length();
        if collide {
            // The joint holds the cubes in their overlap, the contact keeps pushing.
            let pushed: f32 = w
                .contacts()
                .flat_map(|c| c.points())
                .map(|p| p.normal_impulse)
                .sum();
            assert!(pushed > 1.0e-3, "the contact pushed nothing: {pushed}");
        } else {
            assert_eq!(moving, 0.0, "nothing may push them");
            w.remove_joint(joint).unwrap();
            w.step(DT);
            assert_eq!(w.contacts().count(), 1, "the pair collides again");
            let apart =
                w.body(b).unwrap().linear_velocity().x - w.body(a).unwrap().linear_velocity().x;
            assert!(apart > 0.0, "the contact pushes them apart: {apart}");
        }
    }
}

#[test]
fn the_ragdolls_keep_their_joints_and_limits_while_they_tumble() {
    let mut scene = shipped_scene_without_sleeping("ragdoll");
    assert_eq!(scene.world.joints().count(), 20);
    let named = |scene: &impulse::scene::Scene, name: &str| {
        let (h, _) = scene.meta.iter().find(|(_, m)| m.name == name).unwrap();
        scene.world.body(*h).unwrap().position()
    };
    let start = named(&scene, "A pelvis");
    let (mut worst_gap, mut worst_limit) = (0.0f32, 0.0f32);
    // Ten seconds of falling down the stairs and across the bar, with sleeping off.
    for _ in 0..600 {
        scene.world.step(scene.timestep);
        for (handle, joint) in scene.world.joints() {
            let (pa, pb) = scene.world.joint_anchors(handle).unwrap();
            worst_gap = worst_gap.max(pa.distance(pb));
            match joint.def().kind {
                JointKind::Revolute {
                    limits: Some(Limits { lower, upper }),
                    ..
                } => {
                    let angle = scene.world.joint_angle(handle).unwrap();
                    worst_limit = worst_limit.max(lower - angle).max(angle - upper);
                }
                JointKind::Spherical { cone: Some(cone) } => {
                    // The limb's axis against the cone's, as the bodies carry them.
                    let rotation = |h| scene.world.body(h).unwrap().rotation();
                    let limb = rotation(joint.def().body_a) * cone.axis_a;
                    let axis = rotation(joint.def().body_b.unwrap()) * cone.axis_b;
                    worst_limit = worst_limit.max(limb.angle_between(axis) - cone.half_angle);
                }
                _ => {}
            }
        }
    }
    // The joints hold through the impacts (the anchors within 2 cm) and the waist, knees
    // and elbows stay within their limits, the neck, shoulders and hips within their cones
    // (as soft as contacts: measured 1.7 cm and 3.3° at worst).
    assert!(worst_gap < 0.02, "anchors {worst_gap} m apart");
    assert!(
        worst_limit < 4.5f32.to_radians(),
        "{} degrees past a limit",
        worst_limit.to_degrees()
    );
    // A was pushed off the top step: it ends at the foot of the stairs, on the floor.
    let end = named(&scene, "A pelvis");
    assert!(
        end.z > start.z + 1.0 && end.y < start.y - 1.0,
        "A's pelvis at {end}"
    );
    for (_, body) in scene.world.bodies() {
        assert!(body.position().is_finite() && body.position().y >= 0.0);
    }
}

#[test]
fn a_fixed_joint_and_the_collide_flag_round_trip_through_a_scene_file() {
    use impulse::scene::{load_str, save};
    let text = "Scene(bodies: [
        (name: \"post\", kind: Static, colliders: [(shape: Cuboid(half_extents: (0.1, 1.0, 0.1)))]),
        (name: \"sign\", position: (0.5, 1.0, 0.0), rotation: Euler(0.0, 0.0, 30.0),
         colliders: [(shape: Cuboid(half_extents: (0.4, 0.2, 0.02)))]),
        (name: \"lamp\", position: (0.0, 2.0, 0.0), colliders: [(shape: Sphere(radius: 0.2))]),
    ], joints: [
        Fixed(a: \"sign\", b: \"post\", anchor: (0.1, 1.0, 0.0), break_force: 500.0),
        Spherical(a: \"lamp\", anchor: (0.0, 2.3, 0.0), collide: true),
    ])";
    let mut scene = load_str(text, "sign.ron").unwrap();
    for _ in 0..120 {
        scene.world.step(scene.timestep);
    }
    // The welded sign keeps its 30° turn and its place.
    let (h, _) = scene.meta.iter().find(|(_, m)| m.name == "sign").unwrap();
    let sign = scene.world.body(*h).unwrap();
    let turn = Quat::from_rotation_z(30.0f32.to_radians());
    assert!(rotation_angle(sign.rotation() * turn.inverse()) < 0.2f32.to_radians());
    assert!(sign.position().distance(Vec3::new(0.5, 1.0, 0.0)) < 2.0e-3);
    let file = save::to_scene_file(&scene.world, &scene.meta, &scene.camera, scene.timestep);
    let written = save::to_ron(&file, "").unwrap();
    assert!(written.contains("Fixed("), "{written}");
    assert!(written.contains("collide: true"), "{written}");
    let again = load_str(&written, "again.ron").unwrap();
    let kinds: Vec<(JointKind, Option<f32>, bool)> = again
        .world
        .joints()
        .map(|(_, j)| (j.def().kind, j.def().break_force, j.def().collide))
        .collect();
    assert!(matches!(kinds[0], (JointKind::Fixed { .. }, Some(f), false) if f == 500.0));
    assert!(matches!(
        kinds[1],
        (JointKind::Spherical { cone: None }, None, true)
    ));
}

#[test]
fn a_weld_holds_in_a_planar_world() {
    // The cantilever of `a_weld_holds_a_cantilever_level_for_a_minute` in a planar world:
    // the bodies may turn about z only, so the weld's x and y rows have nothing to turn;
    // the z row must still hold the beam level (it once skipped all three and let the beam
    // swing down like a hinge).
    let mut w = World::new(WorldSettings {
        enable_sleeping: false,
        planar: true,
        ..WorldSettings::default()
    });
    let beam = cantilever_beam(&mut w);
    w.create_joint(JointDef::fixed(&w, beam, None, Vec3::new(0.0, 5.0, 0.0)))
        .unwrap();
    let mut worst = 0.0f32;
    for _ in 0..600 {
        w.step(DT);
        worst = worst.max(rotation_angle(w.body(beam).unwrap().rotation()));
    }
    assert!(worst < 0.1f32.to_radians(), "turned {worst} rad");
}

#[test]
fn a_ball_joint_cone_stops_the_swing_at_its_angle() {
    // A small ball hanging 1 m below a ball joint to the world, pushed sideways at 3 m/s:
    // free, it swings up to θ with 1 − cos θ = v²/(2gL), θ = 57°. With a 30° cone about
    // straight down (A's direction when the joint is made) it stops at 30°, as soft as a
    // contact; inside the cone nothing holds it back.
    let swing = |cone: Option<f32>| {
        let mut w = world();
        let pivot = Vec3::new(0.0, 5.0, 0.0);
        let bob = ball(&mut w, pivot - Vec3::Y, 0.05);
        let def = match cone {
            Some(degrees) => {
                JointDef::spherical_cone(&w, bob, None, pivot, None, degrees.to_radians()).unwrap()
            }
            None => JointDef::spherical(&w, bob, None, pivot),
        };
        w.create_joint(def).unwrap();
        w.set_linear_velocity(bob, Vec3::new(3.0, 0.0, 0.0))
            .unwrap();
        let mut widest = 0.0f32;
        for _ in 0..120 {
            w.step(DT);
            let down = (w.body(bob).unwrap().position() - pivot).normalize();
            widest = widest.max(down.angle_between(Vec3::NEG_Y));
        }
        widest.to_degrees()
    };
    let free = swing(None);
    let expected = (1.0 - 9.0 / (2.0 * G)).acos().to_degrees();
    assert!(
        (free - expected).abs() < 1.0,
        "free: {free}°, formula {expected}°"
    );
    let limited = swing(Some(30.0));
    assert!((29.5..31.5).contains(&limited), "with the cone: {limited}°");
    // A cone wider than the swing changes nothing.
    assert!((swing(Some(80.0)) - free).abs() < 0.01);
}

#[test]
fn a_cone_round_trips_through_a_scene_file() {
    use impulse::scene::{load_str, save};
    let text = "Scene(bodies: [
        (name: \"post\", kind: Static, colliders: [(shape: Cuboid(half_extents: (0.1, 1.0, 0.1)))]),
        (name: \"arm\", position: (0.5, 1.0, 0.0), colliders: [(shape: Capsule(half_height: 0.3, radius: 0.05))],
         rotation: Euler(0.0, 0.0, 90.0)),
    ], joints: [
        Spherical(a: \"arm\", b: \"post\", anchor: (0.1, 1.0, 0.0), cone: 45.0, cone_axis: (1.0, -1.0, 0.0)),
    ])";
    let scene = load_str(text, "cone.ron").unwrap();
    let cone_of =
        |scene: &impulse::scene::Scene| match scene.world.joints().next().unwrap().1.def().kind {
            JointKind::Spherical { cone: Some(cone) } => cone,
            other => panic!("{other:?}"),
        };
    let cone = cone_of(&scene);
    assert!((cone.half_angle - 45f32.to_radians()).abs() < 1e-6);
    assert!(cone.axis_b.distance(Vec3::new(1.0, -1.0, 0.0).normalize()) < 1e-6);
    // A's axis: from the anchor to the arm's centre, +x.
    assert!(
        cone.axis_a
            .distance(Quat::from_rotation_z(90f32.to_radians()).inverse() * Vec3::X)
            < 1e-5
    );
    let file = save::to_scene_file(&scene.world, &scene.meta, &scene.camera, scene.timestep);
    let again = load_str(&save::to_ron(&file, "").unwrap(), "again.ron").unwrap();
    let back = cone_of(&again);
    assert!((back.half_angle - cone.half_angle).abs() < 1e-5);
    assert!(back.axis_a.distance(cone.axis_a) < 1e-5 && back.axis_b.distance(cone.axis_b) < 1e-5);
    // Out of range: named.
    let err = load_str(&text.replace("cone: 45.0", "cone: 200.0"), "bad.ron")
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("cone must be between 0 and 180 degrees"),
        "{err}"
    );
}
