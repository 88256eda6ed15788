//! Every shipped scene does what its leading comment promises, with numbers: one test per
//! scene, each as short in simulated time as its promise allows. Bodies are found by the names
//! the scene gives them, so a scene's layout may change without touching these tests.
//!
//! Promises tested elsewhere: `bridge.ron` (the deck holds its crates, in `joints.rs`),
//! `ragdoll.ron`'s first ragdoll down the stairs (`joints.rs`), `newtons_cradle.ron`'s first
//! swing through the row (`joints.rs`), `sensors.ron`'s events (`cli.rs`), and the walk along
//! a wall in `topdown.ron` (`tests/window/`).

use std::path::Path;

use impulse::physics::{BodyHandle, BodyType, Quat, Vec3};
use impulse::scene::Scene;

/// `scenes/NAME.ron` as shipped.
fn shipped(name: &str) -> Scene {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenes")
        .join(format!("{name}.ron"));
    impulse::scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// `scenes/NAME.ron` with sleeping off (a sleeping body cannot fall over).
fn shipped_without_sleeping(name: &str) -> Scene {
    let mut scene = shipped(name);
    let mut settings = scene.world.settings().clone();
    settings.enable_sleeping = false;
    scene.world.set_settings(settings).unwrap();
    scene
}

/// The body the scene names `name`.
fn named(scene: &Scene, name: &str) -> BodyHandle {
    scene
        .meta
        .iter()
        .find(|(_, m)| m.name == name)
        .map(|(&h, _)| h)
        .unwrap_or_else(|| panic!("no body is named {name:?}"))
}

/// The dynamic bodies whose names start with `prefix`, with their names, in name order.
fn named_like(scene: &Scene, prefix: &str) -> Vec<(BodyHandle, String)> {
    let mut found: Vec<_> = scene
        .meta
        .iter()
        .filter(|(h, m)| {
            m.name.starts_with(prefix)
                && scene.world.body(**h).unwrap().body_type() == BodyType::Dynamic
        })
        .map(|(&h, m)| (h, m.name.clone()))
        .collect();
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

/// Position of a body, m.
fn position(scene: &Scene, body: BodyHandle) -> Vec3 {
    scene.world.body(body).unwrap().position()
}

/// Rotation of a body.
fn rotation(scene: &Scene, body: BodyHandle) -> Quat {
    scene.world.body(body).unwrap().rotation()
}

/// Angle between a body's local y axis and the world's, degrees (0: upright).
fn tilt_deg(scene: &Scene, body: BodyHandle) -> f32 {
    (rotation(scene, body) * Vec3::Y)
        .angle_between(Vec3::Y)
        .to_degrees()
}

/// Angle of the rotation that takes `from` to `to`, degrees.
fn turn_deg(from: Quat, to: Quat) -> f32 {
    let q = to * from.inverse();
    (2.0 * q.w.abs().min(1.0).acos()).to_degrees()
}

/// Height of the lowest point of a body's colliders, m.
fn lowest_point(scene: &Scene, body: BodyHandle) -> f32 {
    scene
        .world
        .body_colliders(body)
        .map(|c| scene.world.collider(c).unwrap().aabb().min.y)
        .fold(f32::INFINITY, f32::min)
}

/// Steps the scene for `seconds` of simulated time, calling `each` after every step with the
/// time, s.
fn run_for(scene: &mut Scene, seconds: f32, mut each: impl FnMut(&Scene, f32)) {
    let steps = (seconds / scene.timestep).round() as usize;
    for step in 1..=steps {
        scene.world.step(scene.timestep);
        each(scene, step as f32 * scene.timestep);
    }
}

/// The linear slop: how deep a resting contact may sink, m (`constants::LINEAR_SLOP`).
const SLOP: f32 = impulse::physics::constants::LINEAR_SLOP;

#[test]
fn bounce_each_ball_rebounds_to_e_squared_of_its_drop() {
    let mut scene = shipped("bounce");
    // Each ball's bottom starts 4 m up (centre 4.4 m, radius 0.4 m).
    let (drop, radius) = (4.0f32, 0.4f32);
    let balls: Vec<(f32, BodyHandle)> = [0.0, 0.25, 0.5, 0.75, 1.0]
        .into_iter()
        .map(|e| (e, named(&scene, &format!("e = {e}"))))
        .collect();
    // Highest point of each ball after its first bounce (once it moves up).
    let mut rebound = vec![0.0f32; balls.len()];
    let mut bounced = vec![false; balls.len()];
    // The first bounce is at √(2·4/9.81) = 0.90 s, the highest e = 1 rebound 0.90 s later.
    run_for(&mut scene, 2.0, |scene, _| {
        for (k, &(_, ball)) in balls.iter().enumerate() {
            let body = scene.world.body(ball).unwrap();
            bounced[k] |= body.linear_velocity().y > 0.0 && body.position().y < 1.0;
            if bounced[k] {
                rebound[k] = rebound[k].max(body.position().y - radius);
            }
        }
    });
    for (k, &(e, _)) in balls.iter().enumerate() {
        // Restitution e keeps e of the speed, so e² of the height: h = e²·4 m. The pair's
        // restitution is the larger one (the ground's is 0). Within 1.5 % of the drop
        // (measured 0.9 % at e = 1): the bounce falls between two steps.
        let expected = e * e * drop;
        assert!(
            (rebound[k] - expected).abs() < 0.015 * drop,
            "e = {e}: rebounded to {} m, expected {expected} m",
            rebound[k]
        );
    }
}

#[test]
fn bullets_with_ccd_stop_at_their_wall_and_the_others_cross_theirs_to_the_backstop() {
    let mut scene = shipped("bullets");
    let ccd = named_like(&scene, "ccd ");
    let plain: Vec<_> = [
        "ball 350",
        "ball 390",
        "ball 390 b",
        "plate 350",
        "plate 390",
    ]
    .iter()
    .map(|n| (named(&scene, n), n.to_string()))
    .collect();
    assert_eq!(ccd.len(), 5);
    // The walls' near faces are at x = −0.05; the backstop is the half-space x > 6.
    let mut furthest_ccd = vec![f32::NEG_INFINITY; ccd.len()];
    run_for(&mut scene, 2.0, |scene, _| {
        for (k, (h, _)) in ccd.iter().enumerate() {
            furthest_ccd[k] = furthest_ccd[k].max(position(scene, *h).x);
        }
    });
    for (k, (_, name)) in ccd.iter().enumerate() {
        // Swept against the wall, a ccd bullet's centre never passes its near face.
        assert!(
            furthest_ccd[k] < -0.05,
            "{name} reached x = {} m, past the wall's near face at −0.05 m",
            furthest_ccd[k]
        );
    }
    for (h, name) in &plain {
        // 350 m/s × 1/60 s = 5.8 m per step: it jumps the 0.1 m wall, hits the backstop and
        // lies at its foot: within 1 m of x = 6, on the ground (a plate 1 cm thick standing on
        // edge is 0.15 m up).
        let p = position(&scene, *h);
        assert!(
            p.x > 5.0 && p.x < 6.0 && p.y < 0.2,
            "{name} ended at {p}, not at the backstop's foot"
        );
    }
}

#[test]
fn the_card_house_stands_for_ten_seconds() {
    // Sleeping off: a sleeping house cannot fall.
    let mut scene = shipped_without_sleeping("card_house");
    let cards: Vec<_> = named_like(&scene, "L")
        .into_iter()
        .chain(named_like(&scene, "floor"))
        .map(|(h, name)| (h, name, position(&scene, h), rotation(&scene, h)))
        .collect();
    assert_eq!(cards.len(), 14);
    run_for(&mut scene, 10.0, |_, _| {});
    for (h, name, start, start_rotation) in &cards {
        // Friction 0.8 > tan 20° = 0.36 holds each leaning card: every card stays within
        // 1 cm and 1° of where it was put (measured 4 mm at the top, 0.0°), the contacts'
        // settling into their slop.
        let moved = position(&scene, *h).distance(*start);
        let turned = turn_deg(*start_rotation, rotation(&scene, *h));
        assert!(
            moved < 0.01 && turned < 1.0,
            "{name} moved {moved} m and turned {turned}°"
        );
    }
}

#[test]
fn the_chain_knocks_a_crate_over_within_ten_seconds() {
    let mut scene = shipped("chain");
    let crates: Vec<_> = ["crate 1", "crate 2"]
        .iter()
        .map(|n| {
            let h = named(&scene, n);
            (h, position(&scene, h))
        })
        .collect();
    // Knocked over: a crate moved by more than 0.3 m, or tipped more than 30° (a cube on
    // its edge is at 45°).
    let mut most = (0.0f32, 0.0f32);
    run_for(&mut scene, 10.0, |scene, _| {
        for (h, start) in &crates {
            let moved = position(scene, *h).distance(*start);
            most = (most.0.max(moved), most.1.max(tilt_deg(scene, *h)));
        }
    });
    assert!(
        most.0 > 0.3 || most.1 > 30.0,
        "no crate was knocked over in 10 s: the crates moved {} m and tipped {}° at most",
        most.0,
        most.1
    );
}

#[test]
fn compound_tables_stack_dumbbells_lie_on_both_balls_and_l_shapes_pile_up() {
    let mut scene = shipped("compound");
    run_for(&mut scene, 4.0, |_, _| {});
    // Each table is 0.66 m tall (legs 0.54 m, top 0.12 m) with its origin 0.27 m above its
    // feet: table k stands upright on the one below, its origin at 0.27 + 0.66·(k − 1) m
    // (within the slop of each of the k contacts under it), over the first one (within
    // 10 cm).
    for k in 1..=3 {
        let table = named(&scene, &format!("table {k}"));
        let p = position(&scene, table);
        let expected = 0.27 + 0.66 * (k - 1) as f32;
        assert!(
            (p.y - expected).abs() < k as f32 * SLOP && (p.x + 3.0).abs() < 0.1 && p.z.abs() < 0.1,
            "table {k} at {p}, expected at height {expected} over (−3, 0)"
        );
        assert!(tilt_deg(&scene, table) < 1.0, "table {k} tipped");
    }
    // A dumbbell at rest lies on both balls: its bar (local x) level and its centre one
    // ball radius (0.3 m) up.
    for k in 1..=3 {
        let dumbbell = named(&scene, &format!("dumbbell {k}"));
        let bar = rotation(&scene, dumbbell) * Vec3::X;
        let y = position(&scene, dumbbell).y;
        assert!(
            bar.y.abs() < 0.02 && (y - 0.3).abs() < SLOP,
            "dumbbell {k}: bar {bar}, centre at {y} m"
        );
    }
    // They pile up. Dropped flat, an L-shape (0.25 m thick) lying on the ground has its
    // centre of mass 0.125 m up; one lying on another at 0.375 m, leaning on one at
    // least 0.3 m when it tilts no more than 20°.
    let highest = named_like(&scene, "L ")
        .iter()
        .map(|(h, _)| position(&scene, *h).y)
        .fold(f32::NEG_INFINITY, f32::max);
    assert!(
        highest > 0.3,
        "every L-shape lies on the ground (centres up to {highest} m)"
    );
}

#[test]
fn the_default_scene_stands_rolls_bounces_and_settles() {
    let mut scene = shipped("default");
    let cubes: Vec<_> = named_like(&scene, "stack")
        .into_iter()
        .chain(named_like(&scene, "pyramid["))
        .map(|(h, name)| (h, name, position(&scene, h)))
        .collect();
    assert_eq!(cubes.len(), 8 + 28);
    let bouncy = named(&scene, "bouncy ball");
    let start_height = position(&scene, bouncy).y - 0.4;
    let mut bounced = false;
    let mut rebound = 0.0f32;
    run_for(&mut scene, 3.0, |scene, _| {
        let ball = scene.world.body(bouncy).unwrap();
        bounced |= ball.linear_velocity().y > 0.0 && ball.position().y < 1.0;
        if bounced && ball.linear_velocity().y >= 0.0 {
            rebound = rebound.max(ball.position().y - 0.4);
        }
    });
    // The stack and the pyramid stand until knocked over: every cube within 2 cm of its place.
    for (h, name, start) in &cubes {
        let moved = position(&scene, *h).distance(*start);
        assert!(moved < 0.02, "{name} moved {moved} m");
    }
    // The balls rolled down the ramp (its foot at x = −6 + 3·cos 18° = −3.15) and on along
    // the ground.
    for name in ["ball 1", "ball 2"] {
        let p = position(&scene, named(&scene, name));
        assert!(p.x > -3.0 && p.y < 0.4, "{name} at {p}");
    }
    // Rubber's restitution 0.85 (the larger of the pair's): the first rebound reaches
    // 0.85² = 72 % of the 5.6 m drop (measured 71 %).
    let expected = 0.85f32.powi(2) * start_height;
    assert!(
        (rebound - expected).abs() < 0.03 * start_height,
        "the bouncy ball rebounded to {rebound} m, expected {expected} m"
    );
    // The hulls tumbled onto the ground and rest there: lowest point on the ground (within
    // the slop), still. The capsule lies on the ground too, rolling on (it has no rolling
    // resistance).
    for name in ["pyramid hull", "prism", "gem", "capsule"] {
        let h = named(&scene, name);
        let low = lowest_point(&scene, h);
        let speed = scene.world.body(h).unwrap().linear_velocity().length();
        assert!(
            low.abs() < SLOP && (name == "capsule" || speed < 0.05),
            "{name}: lowest point {low} m, speed {speed} m/s"
        );
    }
}

#[test]
fn every_domino_falls_in_turn_within_fifteen_seconds() {
    let mut scene = shipped("dominoes");
    let dominoes: Vec<_> = (0..60)
        .map(|k| named(&scene, &format!("dominoes[{k}]")))
        .collect();
    // When each domino first leans 20° (it has been hit), and how far it leans at the end.
    let mut tipped_at = vec![f32::NAN; dominoes.len()];
    run_for(&mut scene, 15.0, |scene, t| {
        for (k, &d) in dominoes.iter().enumerate() {
            if tipped_at[k].is_nan() && tilt_deg(scene, d) > 20.0 {
                tipped_at[k] = t;
            }
        }
    });
    for (k, &d) in dominoes.iter().enumerate() {
        // Fallen: lying on the next one (measured 73°) or flat (90°). A domino 0.16 m thick
        // and 1 m tall tips over past atan(0.16 / 1) = 9°; 45° is well past it.
        let tilt = tilt_deg(&scene, d);
        assert!(
            tilt > 45.0,
            "domino {k} leans {tilt}° after 15 s (tipped at {} s)",
            tipped_at[k]
        );
        // In turn: each one is hit after the one before it.
        if k > 0 {
            assert!(
                tipped_at[k] > tipped_at[k - 1],
                "domino {k} tipped at {} s, before domino {} at {} s",
                tipped_at[k],
                k - 1,
                tipped_at[k - 1]
            );
        }
    }
}

#[test]
fn the_door_motor_opens_to_its_limit_and_sweeps_the_crates() {
    let mut scene = shipped("door");
    let door = named(&scene, "door");
    let (hinge, _) = scene.world.joints().next().expect("the hinge");
    let crates: Vec<_> = ["crate 1", "crate 2"]
        .iter()
        .map(|n| {
            let h = named(&scene, n);
            (h, n.to_string(), position(&scene, h))
        })
        .collect();
    let mut spin_mid_swing = f32::NAN;
    run_for(&mut scene, 2.0, |scene, t| {
        if (t - 0.6).abs() < 1e-3 {
            spin_mid_swing = scene.world.body(door).unwrap().angular_velocity().y;
        }
    });
    // The motor turns it at its 1.5 rad/s (40 N·m is enough to push the crates): the 100°
    // limit is reached after 1.75 rad / 1.5 rad/s = 1.2 s, and it stays there.
    assert!(
        (spin_mid_swing - 1.5).abs() < 0.05,
        "the door turns at {spin_mid_swing} rad/s mid-swing"
    );
    let angle = scene.world.joint_angle(hinge).unwrap().to_degrees();
    assert!((angle - 100.0).abs() < 1.0, "the door stopped at {angle}°");
    let spin = scene.world.body(door).unwrap().angular_velocity().length();
    assert!(spin < 0.01, "the door still turns at {spin} rad/s");
    // Swept: each crate pushed well out of the door's way.
    for (h, name, start) in &crates {
        let moved = position(&scene, *h).distance(*start);
        assert!(moved > 1.0, "{name} moved {moved} m");
    }
}

#[test]
fn friction_ramp_the_first_three_slide_and_the_last_two_hold() {
    let mut scene = shipped("friction_ramp");
    let theta = 25f32.to_radians();
    // Down the ramp: −y and +z, turned 25° about x.
    let down = Vec3::new(0.0, -theta.sin(), theta.cos());
    let boxes: Vec<_> = [0.0f32, 0.2, 0.4, 0.6, 0.8]
        .into_iter()
        .map(|mu| (mu, named(&scene, &format!("mu {mu}"))))
        .collect();
    // The boxes start 8 mm above the ramp; by 0.5 s they have landed.
    run_for(&mut scene, 0.5, |_, _| {});
    let landed: Vec<Vec3> = boxes.iter().map(|(_, h)| position(&scene, *h)).collect();
    run_for(&mut scene, 0.5, |_, _| {});
    for ((mu, h), landed) in boxes.iter().zip(&landed) {
        let body = scene.world.body(*h).unwrap();
        let speed = body.linear_velocity().dot(down);
        if mu.atan() < theta {
            // tan 25° = 0.47 > μ: it slides with a = g·(sin θ − μ·cos θ) from rest, v = a·t
            // after 1 s, within 10 % (the landing takes a few steps; measured 4 % at μ = 0.4).
            let expected = 9.81 * (theta.sin() - mu * theta.cos());
            assert!(
                (speed - expected).abs() < 0.1 * expected,
                "μ = {mu}: slides at {speed} m/s after 1 s, expected {expected} m/s"
            );
        } else {
            // tan 25° = 0.47 < μ: static friction holds it, still from 0.5 s to 1 s.
            let slid = (body.position() - *landed).dot(down);
            assert!(
                slid.abs() < 1.0e-3 && speed.abs() < 0.01,
                "μ = {mu}: slid {slid} m, at {speed} m/s"
            );
        }
    }
}

#[test]
fn filtering_the_blue_crates_stack_on_the_shelf_and_the_ghosts_fall_through_to_the_floor() {
    let mut scene = shipped_without_sleeping("filtering");
    run_for(&mut scene, 4.0, |_, _| {});
    // The shelf's top is at 3.1 m: the blue crates (1 m cubes) rest centred at 3.6, 4.6 and
    // 5.6 m, in the order they fell. The ghosts rest on the floor at 0.5 m, inside one
    // another, under the shelf.
    for (i, blue) in ["blue 1", "blue 2", "blue 3"].iter().enumerate() {
        let p = position(&scene, named(&scene, blue));
        let expected = 3.6 + i as f32;
        assert!(
            (p.y - expected).abs() < 0.03 && p.x.abs() < 0.05 && p.z.abs() < 0.05,
            "{blue} at {p}, not on the stack at y = {expected}"
        );
    }
    for ghost in ["ghost 1", "ghost 2", "ghost 3"] {
        let p = position(&scene, named(&scene, ghost));
        assert!(
            (p.y - 0.5).abs() < 0.03 && p.x.abs() < 0.05 && p.z.abs() < 0.05,
            "{ghost} at {p}, not on the floor under the shelf"
        );
    }
}

#[test]
fn the_funnel_empties_onto_the_ground_within_four_seconds() {
    let mut scene = shipped("funnel");
    run_for(&mut scene, 4.0, |_, _| {});
    // Poured through: every body's centre is below the funnel's lower edge (y = 4 m). The
    // last ones are poured from 17.5 m: free fall to the neck takes √(2·13.5/9.81) = 1.7 s.
    let stuck: Vec<_> = scene
        .world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Dynamic && b.position().y > 4.0)
        .map(|(h, b)| format!("{} at {}", scene.meta[&h].name, b.position()))
        .collect();
    assert!(
        stuck.is_empty(),
        "{} bodies are still in the funnel after 4 s, among them {}",
        stuck.len(),
        stuck[..stuck.len().min(6)].join(", ")
    );
}

#[test]
fn the_launcher_throws_every_small_block_higher_than_six_metres() {
    let mut scene = shipped("launcher");
    let blocks: Vec<_> = ["block 1", "block 2", "block 3"]
        .iter()
        .map(|n| named(&scene, n))
        .collect();
    let mut highest = vec![0.0f32; blocks.len()];
    // The heavy block falls 5.4 m onto the plank's high end (its top 2.1 m up at x = 3.6), in
    // √(2·5.4/9.81) = 1.05 s; the blocks peak about 1.4 s later.
    run_for(&mut scene, 2.5, |scene, _| {
        for (k, &b) in blocks.iter().enumerate() {
            highest[k] = highest[k].max(position(scene, b).y);
        }
    });
    // 6 kg dropped 5.4 m throws the 0.125-kg blocks from below 1.6 m to more than 6 m
    // (measured 10.3, 10.6 and 11.4 m).
    for (k, h) in highest.iter().enumerate() {
        assert!(*h > 6.0, "block {} rose to {h} m", k + 1);
    }
}

#[test]
fn the_light_boxes_hold_the_heavy_box_up_sagging_less_than_a_centimetre() {
    let mut scene = shipped_without_sleeping("mass_ratio");
    let heavy = named(&scene, "heavy");
    let lights: Vec<_> = (1..=3)
        .map(|k| {
            let h = named(&scene, &format!("light {k}"));
            (h, position(&scene, h))
        })
        .collect();
    run_for(&mut scene, 3.0, |_, _| {});
    // The heavy box's bottom (its centre less 0.5 m) sinks into the light boxes' tops (their
    // centres plus 0.5 m) by at most the scene comment's "about 1 cm" (measured 1 mm: within
    // the contact slop of 5 mm), and stays level.
    let bottom = position(&scene, heavy).y - 0.5;
    for (k, (h, start)) in lights.iter().enumerate() {
        let p = position(&scene, *h);
        let sag = p.y + 0.5 - bottom;
        assert!(
            sag < 0.01,
            "the heavy box sinks {sag} m into light {}",
            k + 1
        );
        // The light boxes are not squeezed out sideways.
        let drift = Vec3::new(p.x - start.x, 0.0, p.z - start.z).length();
        assert!(drift < 0.01, "light {} moved {drift} m sideways", k + 1);
    }
    assert!(tilt_deg(&scene, heavy) < 0.5, "the heavy box tipped");
}

#[test]
fn newtons_cradle_keeps_swinging_for_ten_seconds() {
    let mut scene = shipped("newtons_cradle");
    let balls: Vec<_> = (1..=5)
        .map(|k| named(&scene, &format!("ball {k}")))
        .collect();
    // Each ball hangs on two rods of 2.0881 m from its centre to the beam (world anchors);
    // at rest its centre is at y = 2.
    let rods: Vec<Vec<Vec3>> = balls
        .iter()
        .map(|&ball| {
            scene
                .world
                .joints()
                .filter(|(_, j)| j.def().body_a == ball)
                .map(|(_, j)| j.def().local_anchor_b)
                .collect()
        })
        .collect();
    assert!(rods.iter().all(|r| r.len() == 2));
    let rest = 2.0f32;
    // Let go from 40° on its rods (2 m below the beam's axis): it falls L·(1 − cos 40°).
    let release = 2.0 * (1.0 - 40f32.to_radians().cos());
    let mut highest = 0.0f32;
    let mut worst_rod = 0.0f32;
    // Throws of the end balls: each time one rises through 80 % of the release height.
    let mut throws = [0usize; 2];
    let mut above = [true, false];
    let mut heights = [Vec::new(), Vec::new()];
    run_for(&mut scene, 10.0, |scene, t| {
        for (k, &ball) in balls.iter().enumerate() {
            let p = position(scene, ball);
            for &anchor in &rods[k] {
                worst_rod = worst_rod.max((p.distance(anchor) - 2.0881).abs());
            }
            if t > 0.5 {
                highest = highest.max(p.y - rest);
            }
        }
        for (end, &ball) in [balls[0], balls[4]].iter().enumerate() {
            let h = position(scene, ball).y - rest;
            heights[end].push(h);
            let now_above = h > 0.8 * release;
            if now_above && !above[end] {
                throws[end] += 1;
            }
            above[end] = now_above;
        }
    });
    // The rods hold (within 1 cm); no ball ever rises above the release height (energy is
    // never made; 0.5 % for the collisions falling between steps). The swing goes on: a
    // period of 2π√(2/9.81) = 2.84 s, so the end balls are thrown out alternately every
    // 1.42 s, at 1.5, 2.9, 4.3, 5.7, 7.1, 8.5 and 9.9 s: each end at least three times, each
    // time to more than 80 % of the release height.
    let peaks = |h: &[f32]| -> Vec<String> {
        h.windows(3)
            .enumerate()
            .filter(|(_, w)| w[1] > w[0] && w[1] >= w[2] && w[1] > 0.05 * release)
            .take(8)
            .map(|(i, w)| format!("{:.3} m at {:.2} s", w[1], (i + 2) as f32 * scene.timestep))
            .collect()
    };
    assert!(
        worst_rod < 0.01 && highest < 1.005 * release && throws[0] >= 3 && throws[1] >= 3,
        "rods stretched by up to {worst_rod} m; a ball rose to {highest} m (released from \
         {release} m); ball 1 was thrown out {} times, ball 5 {} times (to 80 % of the release \
         height); ball 1's first peaks: {:?}; ball 5's: {:?}",
        throws[0],
        throws[1],
        peaks(&heights[0]),
        peaks(&heights[1])
    );
}

#[test]
fn the_pile_tumbles_into_a_heap_inside_the_walls() {
    let mut scene = shipped("pile");
    run_for(&mut scene, 3.0, |_, _| {});
    let bodies: Vec<_> = scene
        .world
        .bodies()
        .filter(|(_, b)| b.body_type() == BodyType::Dynamic)
        .map(|(_, b)| b.position())
        .collect();
    assert_eq!(bodies.len(), 1000);
    // Inside the walls (inner faces at ±8 m) and on or above the floor.
    for p in &bodies {
        assert!(
            p.x.abs() < 8.0 && p.z.abs() < 8.0 && p.y > 0.0,
            "a body is outside the pit at {p}"
        );
    }
    // A heap, not columns: the ten layers were dropped from up to 14.5 m; 1000 bodies of about
    // 0.4 m³ in a 16 m × 16 m pit are 1.6 m of solid, 3 m or so of heap. The highest centre
    // is below 6 m (measured 4.9 m after 3 s).
    let top = bodies.iter().map(|p| p.y).fold(f32::NEG_INFINITY, f32::max);
    assert!(top < 6.0, "the pile stands {top} m tall");
}

#[test]
fn planar_bodies_stay_in_the_plane_and_end_in_the_box() {
    let mut scene = shipped("planar_boxes");
    let bodies: Vec<_> = named_like(&scene, "grid");
    assert_eq!(bodies.len(), 33);
    let mut off_plane = 0.0f32;
    run_for(&mut scene, 6.0, |scene, _| {
        for (h, _) in &bodies {
            let body = scene.world.body(*h).unwrap();
            // Planar: z stays 0 and the rotation is about z only (its x and y parts stay 0).
            let q = body.rotation();
            off_plane = off_plane
                .max(body.position().z.abs())
                .max(q.x.abs())
                .max(q.y.abs());
        }
    });
    assert_eq!(off_plane, 0.0, "a body left the x–y plane");
    // In the box: between the walls' inner faces (x = ±7.75) and below their tops (y = 10).
    let outside: Vec<_> = bodies
        .iter()
        .map(|(h, name)| (name, position(&scene, *h)))
        .filter(|(_, p)| p.x.abs() > 7.75 || p.y > 10.0)
        .map(|(name, p)| format!("{name} at {p}"))
        .collect();
    assert!(
        outside.is_empty(),
        "{} bodies are not in the box after 6 s: {}",
        outside.len(),
        outside.join(", ")
    );
}

#[test]
fn the_pyramid_stands_still_and_falls_asleep() {
    let mut scene = shipped("pyramid");
    let cubes: Vec<_> = named_like(&scene, "pyramid[")
        .into_iter()
        .map(|(h, name)| (h, name, position(&scene, h)))
        .collect();
    assert_eq!(cubes.len(), 210);
    run_for(&mut scene, 2.0, |_, _| {});
    for (h, name, start) in &cubes {
        let p = position(&scene, *h);
        // Row r (centre at 0.5 + r) rests on r + 1 contacts below it, each sunk at most
        // the slop; sideways it stays within 1 cm.
        let row = (start.y - 0.5).round();
        let sink = start.y - p.y;
        let drift = Vec3::new(p.x - start.x, 0.0, p.z - start.z).length();
        assert!(
            sink < (row + 1.0) * SLOP && sink > -0.001 && drift < 0.01,
            "{name} (row {row}) sank {sink} m and drifted {drift} m"
        );
        assert!(!scene.world.body(*h).unwrap().is_awake(), "{name} is awake");
    }
}

#[test]
fn the_second_ragdoll_falls_across_the_bar() {
    let mut scene = shipped("ragdoll");
    let bar = named(&scene, "bar");
    let body_of = |name: &str| named(&scene, &format!("B {name}"));
    let (head, torso, pelvis) = (body_of("head"), body_of("torso"), body_of("pelvis"));
    let shins = [body_of("shin left"), body_of("shin right")];
    // The bar runs along x at z = 1.41. Across it: the torso or pelvis lies on the bar while
    // the head hangs on one side (z < 1.41) and the shins on the other (z > 1.41).
    let mut across = false;
    run_for(&mut scene, 1.5, |scene, _| {
        let on_bar = scene.world.contacts().any(|c| {
            let pair = [c.body_a(), c.body_b()];
            c.is_touching()
                && pair.contains(&bar)
                && (pair.contains(&torso) || pair.contains(&pelvis))
        });
        let head_side = position(scene, head).z < 1.41;
        let feet_side = shins.iter().all(|&s| position(scene, s).z > 1.41);
        across |= on_bar && head_side && feet_side;
    });
    assert!(across, "the second ragdoll never lay across the bar");
}

#[test]
fn every_shape_comes_to_rest_on_the_ground_side_by_side() {
    let mut scene = shipped("shapes");
    let shapes: Vec<_> = [
        "sphere", "box", "capsule", "hull", "pyramid", "prism", "compound",
    ]
    .iter()
    .map(|n| {
        let h = named(&scene, n);
        (h, *n, position(&scene, h))
    })
    .collect();
    run_for(&mut scene, 3.0, |_, _| {});
    for (h, name, start) in &shapes {
        // Dropped from 1.5-2.5 m, each lands and rests: asleep, its lowest point on the ground
        // (within the slop), within 0.1 m of its place in the row (2 m apart).
        let body = scene.world.body(*h).unwrap();
        let low = lowest_point(&scene, *h);
        let p = body.position();
        assert!(!body.is_awake(), "{name} is still moving");
        assert!(low.abs() < SLOP, "{name}'s lowest point is at {low} m");
        assert!(
            (p.x - start.x).abs() < 0.1 && (p.z - start.z).abs() < 0.1,
            "{name} wandered from {start} to {p}"
        );
    }
}

#[test]
fn the_stack_of_twenty_stands_and_falls_asleep() {
    let mut scene = shipped("stack");
    let cubes: Vec<_> = named_like(&scene, "stack[")
        .into_iter()
        .map(|(h, name)| (h, name, position(&scene, h)))
        .collect();
    assert_eq!(cubes.len(), 20);
    run_for(&mut scene, 2.0, |_, _| {});
    for (h, name, start) in &cubes {
        // Cube k (centre at 0.5 + k) rests on k + 1 contacts, each sunk at most the slop
        // (measured 4.8 cm at the top, 2.4 mm a contact); it stays upright over the base.
        let p = position(&scene, *h);
        let k = (start.y - 0.5).round();
        let sink = start.y - p.y;
        let drift = Vec3::new(p.x - start.x, 0.0, p.z - start.z).length();
        assert!(
            sink < (k + 1.0) * SLOP && drift < 0.01 && tilt_deg(&scene, *h) < 0.5,
            "{name} sank {sink} m, drifted {drift} m"
        );
        assert!(!scene.world.body(*h).unwrap().is_awake(), "{name} is awake");
    }
}

/// The velocity that walks `player` by `displacement` this step as far as the walls let it,
/// sliding along what it meets: what the window's keys do (`app/player.rs`: a cast of its
/// collider through [`impulse::physics::World::slide_shape`], at most four slides a step).
fn walk(scene: &Scene, player: BodyHandle, displacement: Vec3) -> Vec3 {
    let collider = scene
        .world
        .body_colliders(player)
        .filter_map(|c| scene.world.collider(c))
        .find(|c| !c.is_sensor())
        .expect("the player has a solid collider");
    let allowed = scene.world.slide_shape(
        collider.shape(),
        &collider.world_pose(),
        displacement,
        Some(player),
        4,
    );
    allowed / scene.timestep
}

#[test]
fn the_topdown_player_pushes_a_crate_and_picks_up_a_coin() {
    let mut scene = shipped("topdown");
    let me = named(&scene, "player");
    assert_eq!(
        scene.world.body(me).unwrap().body_type(),
        BodyType::Kinematic
    );
    let crate_1 = named(&scene, "crate 1");
    let coin = named(&scene, "coin 4");
    let crate_start = position(&scene, crate_1);
    let height = position(&scene, me).y;
    let mut picked_up = false;
    // The window's walking speed, m/s. North to the line of crate 1 (z = −0.5), east through
    // it to x = 4, then to coin 4 at (6.5, 4.5): 1.5 + 4 + 5.6 m, under 3 s; 3.5 s leaves time
    // to spare.
    let speed = 4.0;
    let targets = [
        Vec3::new(0.0, height, -0.5),
        Vec3::new(4.0, height, -0.5),
        Vec3::new(6.5, height, 4.5),
    ];
    let mut next = 0;
    let steps = (3.5 / scene.timestep).round() as usize;
    for _ in 0..steps {
        let to = targets[next] - position(&scene, me);
        if to.length() < 1.0e-3 && next + 1 < targets.len() {
            next += 1;
        }
        // Full speed, but no further than the target.
        let to = targets[next] - position(&scene, me);
        let reach = speed * scene.timestep;
        let step = if to.length() > reach {
            to.normalize() * reach
        } else {
            to
        };
        let v = walk(&scene, me, step);
        scene.world.set_linear_velocity(me, v).unwrap();
        scene.world.step(scene.timestep);
        picked_up |= scene
            .world
            .contact_events()
            .sensor_begin
            .iter()
            .any(|p| [p.body_a, p.body_b] == [me, coin] || [p.body_a, p.body_b] == [coin, me]);
    }
    let at = position(&scene, me);
    assert!(
        at.distance(targets[2]) < 0.01,
        "the player stopped at {at}, short of {}",
        targets[2]
    );
    // Crate 1 (centred on the player's way east) was pushed ahead of it, past x = 4.
    let pushed = position(&scene, crate_1);
    assert!(
        pushed.x > 4.0 && pushed.distance(crate_start) > 3.0,
        "crate 1 is at {pushed}, from {crate_start}"
    );
    assert!(picked_up, "the coin's sensor never saw the player");
}
