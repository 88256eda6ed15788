//! Single bodies against closed-form motion: free fall, bounce, sliding, rolling.

use crate::common;

use common::*;
use impulse::physics::{BodyDef, ColliderDef, Quat, Shape, Vec3, World, WorldSettings};

#[test]
fn free_fall_matches_semi_implicit_euler() {
    // Semi-implicit Euler with sub-step h: v_k = −g·k·h, y_N = y0 − g·h²·N(N+1)/2.
    let settings = WorldSettings::default();
    let mut world = World::new(settings.clone());
    let body = dynamic(
        &mut world,
        Shape::sphere(0.5),
        Vec3::new(0.0, 10.0, 0.0),
        Quat::IDENTITY,
        0.5,
    );
    run(&mut world, 60);
    let g = 9.81f64;
    let h = DT as f64 / settings.substeps as f64;
    let n = (60 * settings.substeps) as f64;
    let expected_y = 10.0 - g * h * h * n * (n + 1.0) / 2.0;
    let expected_v = -g * h * n;
    let b = world.body(body).unwrap();
    assert!(
        (b.position().y as f64 - expected_y).abs() < 1e-4,
        "y = {}, expected {expected_y}",
        b.position().y
    );
    assert!((b.linear_velocity().y as f64 - expected_v).abs() < 1e-4);
    // Also close to the exact parabola y0 − g t²/2 (t = 1 s): the method's error is g·h·t/2.
    assert!((b.position().y as f64 - (10.0 - g / 2.0)).abs() < g * h);
}

#[test]
fn bounce_height_is_restitution_squared() {
    // Dropped from h = 2 m (lowest point above the floor) with e = 0.5, the ball leaves the
    // floor at e·v and climbs to (e·v)²/2g = e²·h = 0.5 m.
    let mut world = World::default();
    ground(&mut world, 0.5, 0.0);
    let r = 0.25;
    let body = world.create_body(BodyDef::dynamic(Vec3::new(0.0, 2.0 + r, 0.0)));
    world
        .add_collider(
            body,
            ColliderDef::new(Shape::sphere(r)).with_restitution(0.5),
        )
        .unwrap();
    let mut bounced = false;
    let mut peak = 0.0f32;
    for _ in 0..240 {
        world.step(DT);
        let b = world.body(body).unwrap();
        let v = b.linear_velocity().y;
        if !bounced && v > 0.0 {
            bounced = true;
        }
        if bounced {
            peak = peak.max(b.position().y - r);
            if v < 0.0 && peak > 0.1 {
                break;
            }
        }
    }
    let expected = 0.5 * 0.5 * 2.0;
    assert!(bounced);
    assert!(
        (peak - expected).abs() < 0.05 * expected,
        "peak {peak}, expected {expected}"
    );
}

/// A static plane through the origin tilted by `angle` about z (it descends towards +x),
/// and a unit-size body resting on it. Returns (world, body, unit vector down the slope).
fn on_slope(
    angle: f32,
    shape: Shape,
    half_height: f32,
    friction: f32,
) -> (World, impulse::physics::BodyHandle, Vec3) {
    let mut world = World::default();
    let normal = Vec3::new(angle.sin(), angle.cos(), 0.0);
    let slope = world.create_body(BodyDef::static_body(Vec3::ZERO));
    world
        .add_collider(
            slope,
            ColliderDef::new(Shape::plane(normal)).with_friction(friction),
        )
        .unwrap();
    let rotation = Quat::from_rotation_z(-angle);
    let body = dynamic(&mut world, shape, normal * half_height, rotation, friction);
    let down = Vec3::new(angle.cos(), -angle.sin(), 0.0);
    (world, body, down)
}

#[test]
fn box_holds_on_slope_with_high_friction() {
    // tan 30° = 0.577 < μ = 0.8: static friction holds the box.
    let (mut world, body, _) = on_slope(
        30f32.to_radians(),
        Shape::cuboid(Vec3::splat(0.5)),
        0.5,
        0.8,
    );
    let start = world.body(body).unwrap().position();
    run(&mut world, 180);
    let moved = (world.body(body).unwrap().position() - start).length();
    assert!(moved < 0.01, "moved {moved} m");
}

#[test]
fn box_slides_with_coulomb_acceleration() {
    // a = g·(sin θ − μ·cos θ) = 9.81·(0.5 − 0.2·0.866) ≈ 3.206 m/s².
    let theta = 30f32.to_radians();
    let mu = 0.2;
    let (mut world, body, down) = on_slope(theta, Shape::cuboid(Vec3::splat(0.5)), 0.5, mu);
    run(&mut world, 60);
    let v1 = world.body(body).unwrap().linear_velocity().dot(down);
    run(&mut world, 60);
    let v2 = world.body(body).unwrap().linear_velocity().dot(down);
    let measured = v2 - v1;
    let expected = 9.81 * (theta.sin() - mu * theta.cos());
    assert!(
        (measured - expected).abs() < 0.05 * expected,
        "a = {measured}, expected {expected}"
    );
}

#[test]
fn sphere_rolls_at_five_sevenths_g_sin_theta() {
    // Rolling without slipping (μ = 0.5 > 2/7·tan θ): a = 5/7·g·sin θ ≈ 2.397 m/s² for 20°.
    let theta = 20f32.to_radians();
    let (mut world, body, down) = on_slope(theta, Shape::sphere(0.5), 0.5, 0.5);
    run(&mut world, 30);
    let v1 = world.body(body).unwrap().linear_velocity().dot(down);
    run(&mut world, 60);
    let v2 = world.body(body).unwrap().linear_velocity().dot(down);
    let measured = v2 - v1;
    let expected = 5.0 / 7.0 * 9.81 * theta.sin();
    assert!(
        (measured - expected).abs() < 0.05 * expected,
        "a = {measured}, expected {expected}"
    );
    // Rolling: ω·r equals the speed.
    let b = world.body(body).unwrap();
    let spin = b.angular_velocity().length() * 0.5;
    assert!((spin - b.linear_velocity().length()).abs() < 0.02 * b.linear_velocity().length());
}

#[test]
fn rolling_resistance_decelerates_at_five_sevenths_c_g_over_r() {
    // A resisting torque c·N = c·m·g on a ball rolling without slip: m·a = −f and
    // (2/5)·m·r²·(a/r) = f·r − c·m·g give a = −(5/7)·c·g/r (c = 0.02 m, r = 0.5 m: 0.2803 m/s²).
    let mut world = World::default();
    ground(&mut world, 0.8, 0.0);
    let (c, r) = (0.02, 0.5);
    let body = world.create_body(BodyDef {
        position: Vec3::new(0.0, r, 0.0),
        linear_velocity: Vec3::new(3.0, 0.0, 0.0),
        // Already rolling: ω = v/r about −z for motion along +x.
        angular_velocity: Vec3::new(0.0, 0.0, -3.0 / r),
        ..BodyDef::default()
    });
    world
        .add_collider(
            body,
            ColliderDef::new(Shape::sphere(r))
                .with_friction(0.8)
                .with_rolling_resistance(c),
        )
        .unwrap();
    run(&mut world, 30);
    let v1 = world.body(body).unwrap().linear_velocity().x;
    run(&mut world, 60);
    let v2 = world.body(body).unwrap().linear_velocity().x;
    let measured = v2 - v1;
    let expected = -5.0 / 7.0 * c * 9.81 / r;
    assert!(
        (measured - expected).abs() < 0.05 * expected.abs(),
        "a = {measured}, expected {expected}"
    );
}

/// A free 0.2 × 1 × 3 m box (inertias ∝ 10, 9.04, 1.04 about x, y, z) spinning at `spin`.
fn free_box(spin: Vec3) -> (World, impulse::physics::BodyHandle) {
    free_cuboid(Vec3::new(0.1, 0.5, 1.5), spin)
}

/// A free box of half extents `half` spinning at `spin`, no gravity.
fn free_cuboid(half: Vec3, spin: Vec3) -> (World, impulse::physics::BodyHandle) {
    let mut world = World::new(WorldSettings {
        gravity: Vec3::ZERO,
        ..WorldSettings::default()
    });
    let body = world.create_body(BodyDef {
        angular_velocity: spin,
        ..BodyDef::default()
    });
    world
        .add_collider(body, ColliderDef::new(Shape::cuboid(half)))
        .unwrap();
    (world, body)
}

/// Tosses a free box and checks world L, |L| and E every step of 2 s: all torque-free
/// invariants, to within `tolerance` relative (the method keeps them up to rounding).
fn tumble_keeps_invariants(half: Vec3, spin: Vec3, tolerance: f32) {
    let (mut world, body) = free_cuboid(half, spin);
    let state = |w: &World| {
        let b = w.body(body).unwrap();
        (b.world_inertia() * b.angular_velocity(), b.kinetic_energy())
    };
    let (l0, e0) = state(&world);
    let mut spin_changed = 0.0f32;
    for _ in 0..120 {
        world.step(DT);
        let (l, e) = state(&world);
        assert!(
            (l - l0).length() <= tolerance * l0.length(),
            "L {l0} -> {l}"
        );
        assert!((l.length() - l0.length()).abs() <= tolerance * l0.length());
        assert!((e - e0).abs() <= tolerance * e0, "E {e0} -> {e}");
        let w = world.body(body).unwrap().angular_velocity();
        spin_changed = spin_changed.max((w - spin).length());
    }
    // Not a trivial pass: the body tumbles, so ω itself moves a lot.
    assert!(spin_changed > 1.0, "ω stayed near {spin}");
}

#[test]
fn a_tossed_rod_keeps_its_momentum_and_energy() {
    // A 5 × 0.1 × 0.1 m rod (50:1, I_long/I_across = 2·0.05²/(2.5² + 0.05²) ≈ 1/1250) tossed
    // at ω = (5, 20, 3) rad/s; a fixed-point midpoint diverged here (|ω| grew 20.8 → 187).
    tumble_keeps_invariants(Vec3::new(2.5, 0.05, 0.05), Vec3::new(5.0, 20.0, 3.0), 0.001);
}

#[test]
fn a_tossed_plate_keeps_its_momentum_and_energy() {
    // A 1.4 × 0.04 × 1 m plate spun near its intermediate axis with a wobble.
    tumble_keeps_invariants(Vec3::new(0.7, 0.02, 0.5), Vec3::new(2.0, 3.0, 15.0), 0.001);
}

#[test]
fn free_rotation_conserves_angular_momentum_and_energy() {
    // Torque-free: L = R·I·Rᵀ·ω and E = ½·ωᵀ·I_world·ω are constant, while ω itself is not
    // (the box does not spin about a principal axis).
    let (mut world, body) = free_box(Vec3::new(0.3, 4.0, 0.2));
    let momentum = |w: &World| {
        let b = w.body(body).unwrap();
        b.world_inertia() * b.angular_velocity()
    };
    let (l0, e0, w0) = (
        momentum(&world),
        world.body(body).unwrap().kinetic_energy(),
        world.body(body).unwrap().angular_velocity(),
    );
    run(&mut world, 600);
    let (l1, e1, w1) = (
        momentum(&world),
        world.body(body).unwrap().kinetic_energy(),
        world.body(body).unwrap().angular_velocity(),
    );
    assert!((l1 - l0).length() < 0.01 * l0.length(), "L {l0} -> {l1}");
    assert!((e1 - e0).abs() < 0.01 * e0, "E {e0} -> {e1}");
    assert!((w1 - w0).length() > 0.1, "ω must precess, stayed {w0}");
}

#[test]
fn spin_about_the_intermediate_axis_flips() {
    // The Dzhanibekov effect: spin about the middle principal axis (y) is unstable; a small
    // perturbation grows at λ = ω·√((I_x − I_y)(I_y − I_z)/(I_x·I_z)) ≈ 4.3 /s for ω = 5, so
    // from 0.01 rad/s the body-frame spin about y reverses within about ln(500)/λ ≈ 1.5 s.
    let (mut world, body) = free_box(Vec3::new(0.01, 5.0, 0.01));
    let mut flipped_at = None;
    for step in 0..300 {
        world.step(DT);
        let b = world.body(body).unwrap();
        let local = b.rotation().inverse() * b.angular_velocity();
        if local.y < 0.0 {
            flipped_at = Some(step as f32 * DT);
            break;
        }
    }
    let t = flipped_at.expect("the spin never flipped");
    assert!((0.5..4.0).contains(&t), "flipped after {t} s");
}

#[test]
fn a_box_spinning_on_the_floor_stops_at_the_coulomb_twist_rate() {
    // A unit cube (m = 1 kg, I = m/6 about its vertical axis) resting on its four bottom
    // corners, each carrying m·g/4 at d = √2/2 from the centre, spun at 4 rad/s about y.
    // Coulomb friction at the corners opposes the spin with τ = μ·m·g·d, so
    // ω(t) = ω₀ − (μ·g·d·6)·t: with μ = 0.5 (floor and box 0.5), 20.8 rad/s², it stops
    // after 0.19 s. The manifold's twist friction (limit μ·Σλᵢ·dᵢ) gives the same rate.
    let mut w = World::new(WorldSettings {
        enable_sleeping: false,
        ..WorldSettings::default()
    });
    ground(&mut w, 0.5, 0.0);
    let cube = dynamic(
        &mut w,
        Shape::cuboid(Vec3::splat(0.5)),
        Vec3::new(0.0, 0.5, 0.0),
        Quat::IDENTITY,
        0.5,
    );
    // Let it settle, then spin it.
    for _ in 0..30 {
        w.step(DT);
    }
    let omega0 = 4.0;
    w.set_angular_velocity(cube, Vec3::new(0.0, omega0, 0.0))
        .unwrap();
    let rate = 0.5 * 9.81 * 0.5f32.sqrt() * 6.0;
    for step in 1..=6 {
        w.step(DT);
        let spin = w.body(cube).unwrap().angular_velocity().y;
        let expected = omega0 - rate * step as f32 * DT;
        assert!(
            (spin - expected).abs() < 0.03 * omega0,
            "step {step}: {spin} rad/s, expected {expected}"
        );
    }
    for _ in 0..12 {
        w.step(DT);
    }
    assert!(w.body(cube).unwrap().angular_velocity().length() < 1e-3);
}
