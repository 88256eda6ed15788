//! Continuous collision: fast ccd bodies stop on the near side of thin obstacles that they
//! would cross within one step.

use crate::common;

use common::DT;
use impulse::physics::{
    BodyDef, BodyHandle, BodyType, ColliderDef, Quat, Shape, Vec3, World, WorldSettings,
};

fn world() -> World {
    World::new(WorldSettings {
        gravity: Vec3::ZERO,
        enable_sleeping: false,
        ..WorldSettings::default()
    })
}

/// A wall of thickness 2·`half_x` centred on x = 0, static or dynamic.
fn wall(w: &mut World, half_x: f32, body_type: BodyType) -> BodyHandle {
    let body = w.create_body(BodyDef {
        body_type,
        ..BodyDef::default()
    });
    w.add_collider(
        body,
        ColliderDef::new(Shape::cuboid(Vec3::new(half_x, 2.0, 2.0))),
    )
    .expect("wall");
    body
}

/// A body of `shape` at x = `x0` flying along +x at `speed`, spinning at `spin`.
fn bullet(w: &mut World, shape: Shape, x0: f32, speed: f32, spin: Vec3, ccd: bool) -> BodyHandle {
    let (body, _) = w
        .create_body_with_colliders(
            BodyDef {
                position: Vec3::new(x0, 0.0, 0.0),
                linear_velocity: Vec3::new(speed, 0.0, 0.0),
                angular_velocity: spin,
                ccd,
                ..BodyDef::default()
            },
            &[ColliderDef::new(shape)],
        )
        .expect("bullet");
    body
}

fn x(w: &World, b: BodyHandle) -> f32 {
    w.body(b).expect("body").position().x
}

fn run(w: &mut World, steps: usize) {
    for _ in 0..steps {
        w.step(DT);
    }
}

#[test]
fn a_fast_ball_stops_on_the_near_side_of_a_thin_wall_only_with_ccd() {
    // A ball of radius 0.05 (0.1 m across) at 500 m/s towards a static wall 0.1 m thick
    // whose near face is at x = −0.05. It moves 8.33 m per step: from x = −21 its centre is
    // at −12.67, −4.33, then +4.0 past the wall, never within the 2 m speculative reach of
    // the wall in between. With ccd it must end with its centre at x ≤ −0.05 − 0.05.
    let mut w = world();
    wall(&mut w, 0.05, BodyType::Static);
    let ball = bullet(&mut w, Shape::sphere(0.05), -21.0, 500.0, Vec3::ZERO, true);
    run(&mut w, 30);
    assert!(x(&w, ball) <= -0.1 + 1e-3, "ball at x = {}", x(&w, ball));
    assert!(x(&w, ball) > -0.2, "stopped too early: x = {}", x(&w, ball));
    // The same shot without ccd (at 390 m/s, the cap without it: 6.5 m per step, crossing
    // from −4.3 to +2.2) goes through.
    let mut w = world();
    wall(&mut w, 0.05, BodyType::Static);
    let ball = bullet(&mut w, Shape::sphere(0.05), -17.3, 390.0, Vec3::ZERO, false);
    run(&mut w, 30);
    assert!(
        x(&w, ball) > 1.0,
        "without ccd the ball should tunnel: x = {}",
        x(&w, ball)
    );
}

#[test]
fn a_spinning_plate_at_300_m_s_stops_on_the_near_side() {
    // A plate of half extents (0.3, 0.02, 0.3) spinning at 40 rad/s about z while moving at
    // 300 m/s (5 m and 0.67 rad per step) at the same wall: no point of it may end past the
    // wall's near face, x = −0.05.
    let mut w = world();
    wall(&mut w, 0.05, BodyType::Static);
    let plate = bullet(
        &mut w,
        Shape::cuboid(Vec3::new(0.3, 0.02, 0.3)),
        -12.6,
        300.0,
        Vec3::new(0.0, 0.0, 40.0),
        true,
    );
    run(&mut w, 30);
    let collider = w.body_colliders(plate).next().expect("collider");
    let aabb = w.collider(collider).expect("collider").aabb();
    assert!(
        aabb.max.x <= -0.05 + 2e-3,
        "plate reaches x = {}",
        aabb.max.x
    );
    assert!(aabb.max.x > -0.6, "plate stopped early: x = {}", aabb.max.x);
}

#[test]
fn a_fast_ball_does_not_pass_through_a_dynamic_body() {
    // The same ball at 500 m/s against a free 1 kg slab (0.1 m thick, no gravity): it must
    // hit it, so it ends behind the slab's near face and the slab moves off along +x.
    let mut w = world();
    let slab = wall(&mut w, 0.05, BodyType::Dynamic);
    let ball = bullet(&mut w, Shape::sphere(0.05), -21.0, 500.0, Vec3::ZERO, true);
    run(&mut w, 30);
    let (xb, xs) = (x(&w, ball), x(&w, slab));
    assert!(xb < xs - 0.05, "ball at {xb}, slab at {xs}");
    assert!(
        w.body(slab).unwrap().linear_velocity().x > 0.1,
        "the slab was hit: v = {}",
        w.body(slab).unwrap().linear_velocity().x
    );
    // Without ccd (390 m/s, crossing from x = −4.3 to +2.2 in one step) it passes through.
    let mut w = world();
    let slab = wall(&mut w, 0.05, BodyType::Dynamic);
    let ball = bullet(&mut w, Shape::sphere(0.05), -17.3, 390.0, Vec3::ZERO, false);
    run(&mut w, 30);
    assert!(
        x(&w, ball) > x(&w, slab) + 1.0,
        "without ccd the ball should tunnel"
    );
}

#[test]
fn ccd_bodies_may_go_up_to_2000_m_s_and_others_are_told_why_not() {
    let mut w = world();
    let def = |speed: f32, ccd: bool| BodyDef {
        linear_velocity: Vec3::new(speed, 0.0, 0.0),
        ccd,
        ..BodyDef::default()
    };
    assert!(def(1000.0, true).validate().is_ok());
    let refused = def(500.0, false).validate().unwrap_err();
    assert!(
        refused.contains("linear_velocity") && refused.contains("ccd"),
        "{refused}"
    );
    assert!(def(2500.0, true).validate().is_err());
    // A ccd body keeps 1000 m/s through a step (no cap below it).
    let b = bullet(&mut w, Shape::sphere(0.05), 0.0, 1000.0, Vec3::ZERO, true);
    w.step(DT);
    let v = w.body(b).unwrap().linear_velocity().x;
    assert_eq!(v, 1000.0);
    // And the scene loader accepts `ccd: true` with such a speed.
    let scene = impulse::scene::load_str(
        "Scene(bodies: [(name: \"bullet\", ccd: true, linear_velocity: (1000.0, 0.0, 0.0), \
         colliders: [(shape: Sphere(radius: 0.05))])])",
        "inline.ron",
    )
    .expect("loads");
    let (_, body) = scene.world.bodies().next().expect("a body");
    assert!(body.has_ccd());
    let _ = Quat::IDENTITY;
}

/// A volley of 48 ccd balls (radius 5 cm, 0.3 m apart, enough to share their sweeps with
/// the team) fired at 300 m/s from 5 m at a 2 cm wall: each would cross it within one step
/// (5 m a step), and each stops on the near side at 1 to 4 workers, in the same state bit
/// for bit.
#[test]
fn a_volley_of_ccd_balls_stops_on_the_near_side_at_any_worker_count() {
    let volley = |workers: usize| {
        let mut w = world();
        w.set_workers(workers).expect("workers");
        wall(&mut w, 0.01, BodyType::Static);
        let mut balls = Vec::new();
        for k in 0..48 {
            let ball = bullet(&mut w, Shape::sphere(0.05), -5.0, 300.0, Vec3::ZERO, true);
            let (y, z) = ((k % 8) as f32 * 0.3 - 1.05, (k / 8) as f32 * 0.3 - 0.75);
            w.set_position(ball, Vec3::new(-5.0, y, z))
                .expect("position");
            balls.push(ball);
        }
        run(&mut w, 30);
        for &ball in &balls {
            // Radius 0.05 against the wall's face at x = −0.01.
            assert!(
                x(&w, ball) < -0.01,
                "{workers} workers: a ball at x = {}",
                x(&w, ball)
            );
        }
        w.state_hash()
    };
    let one = volley(1);
    for workers in 2..=4 {
        assert_eq!(volley(workers), one, "state differs at {workers} workers");
    }
}
