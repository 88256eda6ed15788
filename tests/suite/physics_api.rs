//! The public API: events, queries, kinematic bodies, compound mass, body type changes.

use crate::common;

use common::*;
use impulse::physics::aabb::Aabb;
use impulse::physics::{BodyDef, BodyType, ColliderDef, Quat, Shape, Vec3, World, WorldSettings};

#[test]
fn a_contact_names_its_bodies_and_colliders_by_handle() {
    let mut world = World::new(WorldSettings::default());
    let ground = ground(&mut world, 0.5, 0.0);
    // A body removed before the ball is made frees a slot the ball then reuses with a new
    // generation: the contact must report the ball's handle, not the removed body's.
    let gone = dynamic(
        &mut world,
        Shape::sphere(0.5),
        Vec3::new(9.0, 9.0, 9.0),
        Quat::IDENTITY,
        1.0,
    );
    world.remove_body(gone).unwrap();
    let ball = dynamic(
        &mut world,
        Shape::sphere(0.5),
        Vec3::new(0.0, 0.6, 0.0),
        Quat::IDENTITY,
        1.0,
    );
    assert_eq!(ball.index(), gone.index(), "the slot is reused");
    assert_ne!(ball, gone);
    run(&mut world, 30);
    let contact = world
        .contacts()
        .find(|c| c.is_touching())
        .expect("touching");
    let mut bodies = [contact.body_a(), contact.body_b()];
    bodies.sort_by_key(|h| h.index());
    let mut expected = [ground, ball];
    expected.sort_by_key(|h| h.index());
    assert_eq!(bodies, expected);
    for (collider, body) in [
        (contact.collider_a(), contact.body_a()),
        (contact.collider_b(), contact.body_b()),
    ] {
        assert_eq!(world.collider_body(collider), Some(body));
    }
}

#[test]
fn contact_events_begin_persist_end() {
    let mut world = World::new(WorldSettings {
        enable_sleeping: false,
        ..WorldSettings::default()
    });
    let ground = ground(&mut world, 0.5, 0.0);
    let ball = dynamic(
        &mut world,
        Shape::sphere(0.5),
        Vec3::new(0.0, 0.6, 0.0),
        Quat::IDENTITY,
        0.5,
    );
    let mut begins = 0;
    for _ in 0..30 {
        world.step(DT);
        let events = world.contact_events();
        if begins > 0 {
            // Once touching, it persists every step: no flicker, no end.
            assert_eq!((events.persist.len(), events.end.len()), (1, 0));
        }
        begins += events.begin.len();
    }
    assert_eq!(begins, 1, "one begin when the ball lands");
    let pair = world
        .contacts()
        .find(|c| c.is_touching())
        .expect("touching contact");
    assert!(pair.points().iter().all(|p| p.normal_impulse >= 0.0));
    // Lift the ball away: one end event.
    world.set_position(ball, Vec3::new(0.0, 5.0, 0.0)).unwrap();
    world.step(DT);
    let ends = &world.contact_events().end;
    assert_eq!(ends.len(), 1);
    assert!(ends[0].body_a == ground || ends[0].body_b == ground);
}

#[test]
fn ray_cast_finds_the_closest_body() {
    let mut world = World::default();
    ground(&mut world, 0.5, 0.0);
    let near = dynamic(
        &mut world,
        Shape::cuboid(Vec3::splat(0.5)),
        Vec3::new(0.0, 0.5, 3.0),
        Quat::IDENTITY,
        0.5,
    );
    let far = dynamic(
        &mut world,
        Shape::sphere(0.5),
        Vec3::new(0.0, 0.5, -3.0),
        Quat::IDENTITY,
        0.5,
    );
    // From z = 10 looking along −z at y = 0.5: the box face at z = 3.5 comes first, 6.5 m away.
    let hit = world
        .ray_cast(Vec3::new(0.0, 0.5, 10.0), -Vec3::Z, 100.0)
        .expect("hit");
    assert_eq!(hit.body, near);
    assert!((hit.distance - 6.5).abs() < 1e-4);
    assert!((hit.normal - Vec3::Z).length() < 1e-5);
    // Remove it: now the sphere, its surface at z = −2.5, 12.5 m away.
    world.remove_body(near).unwrap();
    let hit = world
        .ray_cast(Vec3::new(0.0, 0.5, 10.0), -Vec3::Z, 100.0)
        .expect("hit");
    assert_eq!(hit.body, far);
    assert!((hit.distance - 12.5).abs() < 1e-4);
    // Looking down from above the empty ground hits the plane at y = 0.
    let hit = world
        .ray_cast(Vec3::new(5.0, 4.0, 0.0), -Vec3::Y, 100.0)
        .expect("ground");
    assert!((hit.point.y).abs() < 1e-5);
    assert!(world
        .ray_cast(Vec3::new(5.0, 4.0, 0.0), Vec3::Y, 100.0)
        .is_none());
}

#[test]
fn aabb_query_matches_brute_force() {
    let mut world = World::default();
    for i in 0..50 {
        let p = Vec3::new((i % 10) as f32 * 1.5, (i / 10) as f32 * 1.5, 0.0);
        dynamic(&mut world, Shape::sphere(0.4), p, Quat::IDENTITY, 0.5);
    }
    let query = Aabb::new(Vec3::new(2.0, 2.0, -1.0), Vec3::new(6.0, 4.0, 1.0));
    let mut found = Vec::new();
    world.query_aabb(&query, |c| {
        found.push(c);
        true
    });
    found.sort();
    let mut expected: Vec<_> = world
        .colliders()
        .filter(|(_, c)| c.aabb().overlaps(&query))
        .map(|(h, _)| h)
        .collect();
    expected.sort();
    assert_eq!(found, expected);
    assert!(!found.is_empty());
}

#[test]
fn kinematic_body_pushes_and_keeps_its_velocity() {
    let mut world = World::default();
    ground(&mut world, 0.5, 0.0);
    let pusher = world.create_body(BodyDef::kinematic(
        Vec3::new(-3.0, 0.5, 0.0),
        Vec3::new(2.0, 0.0, 0.0),
    ));
    world
        .add_collider(
            pusher,
            ColliderDef::new(Shape::cuboid(Vec3::new(0.5, 0.5, 1.0))),
        )
        .unwrap();
    let block = dynamic(
        &mut world,
        Shape::cuboid(Vec3::splat(0.5)),
        Vec3::new(0.0, 0.5, 0.0),
        Quat::IDENTITY,
        0.5,
    );
    run(&mut world, 120);
    // 2 s at 2 m/s: the kinematic body moved 4 m, unaffected by the block.
    let p = world.body(pusher).unwrap();
    assert!(
        (p.position().x - 1.0).abs() < 1e-3,
        "kinematic at {}",
        p.position().x
    );
    assert_eq!(p.linear_velocity(), Vec3::new(2.0, 0.0, 0.0));
    // The block was pushed ahead of it: its left face is at or beyond the pusher's right face.
    let b = world.body(block).unwrap();
    assert!(
        b.position().x - 0.5 >= p.position().x + 0.5 - 0.02,
        "block at {}",
        b.position().x
    );
}

#[test]
fn compound_body_mass_uses_parallel_axis() {
    // Two unit cubes (1 kg each) at x = ±1: m = 2, centre at 0,
    // I_yy = 2·(1/6 + 1·1²) = 2.333..., I_xx = 2·(1/6) = 0.333...
    let mut world = World::default();
    let body = world.create_body(BodyDef::dynamic(Vec3::new(0.0, 5.0, 0.0)));
    for x in [-1.0, 1.0] {
        world
            .add_collider(
                body,
                ColliderDef::new(Shape::cuboid(Vec3::splat(0.5)))
                    .with_local_pose(Vec3::new(x, 0.0, 0.0), Quat::IDENTITY),
            )
            .unwrap();
    }
    let b = world.body(body).unwrap();
    assert!((b.mass() - 2.0).abs() < 1e-5);
    assert!(b.local_center_of_mass().length() < 1e-6);
    let i = b.local_inertia();
    assert!((i.y_axis.y - 2.0 * (1.0 / 6.0 + 1.0)).abs() < 1e-4);
    assert!((i.x_axis.x - 2.0 / 6.0).abs() < 1e-4);
    // Off-centre compound: remove one cube, the centre moves to the other.
    let first = world.body_colliders(body).next().unwrap();
    world.remove_collider(first).unwrap();
    let b = world.body(body).unwrap();
    assert!((b.mass() - 1.0).abs() < 1e-5);
    assert!((b.local_center_of_mass() - Vec3::new(1.0, 0.0, 0.0)).length() < 1e-5);
}

#[test]
fn body_type_changes_take_effect() {
    let mut world = World::default();
    ground(&mut world, 0.5, 0.0);
    let body = dynamic(
        &mut world,
        Shape::sphere(0.5),
        Vec3::new(0.0, 3.0, 0.0),
        Quat::IDENTITY,
        0.5,
    );
    world.set_body_type(body, BodyType::Static).unwrap();
    run(&mut world, 30);
    assert_eq!(
        world.body(body).unwrap().position().y,
        3.0,
        "a static body does not fall"
    );
    assert_eq!(world.body(body).unwrap().mass(), 0.0);
    world.set_body_type(body, BodyType::Dynamic).unwrap();
    run(&mut world, 30);
    assert!(
        world.body(body).unwrap().position().y < 3.0,
        "a dynamic body falls"
    );
    assert!(world.body(body).unwrap().mass() > 0.0);
}

#[test]
fn planes_only_on_static_bodies_and_bad_values_are_refused() {
    let mut world = World::default();
    let body = world.create_body(BodyDef::dynamic(Vec3::ZERO));
    assert!(world
        .add_collider(body, ColliderDef::new(Shape::plane(Vec3::Y)))
        .is_err());
    assert!(world
        .add_collider(body, ColliderDef::new(Shape::sphere(-1.0)))
        .is_err());
    assert!(world
        .add_collider(
            body,
            ColliderDef::new(Shape::sphere(1.0)).with_friction(-0.5)
        )
        .is_err());
    assert!(world
        .add_collider(
            body,
            ColliderDef::new(Shape::sphere(1.0)).with_restitution(1.5)
        )
        .is_err());
    assert!(world
        .add_collider(
            body,
            ColliderDef::new(Shape::cuboid(Vec3::new(1.0, f32::NAN, 1.0)))
        )
        .is_err());
    let refused = world.set_position(body, Vec3::new(f32::INFINITY, 0.0, 0.0));
    assert!(
        matches!(&refused, Err(impulse::physics::BodyError::Invalid(m)) if m.contains("position")),
        "{refused:?}"
    );
    assert_eq!(world.body_colliders(body).count(), 0);
    assert_eq!(world.body(body).unwrap().position(), Vec3::ZERO);
}

#[test]
fn profile_and_counters_are_filled() {
    let mut world = World::default();
    ground(&mut world, 0.5, 0.0);
    for i in 0..4 {
        dynamic(
            &mut world,
            Shape::cuboid(Vec3::splat(0.5)),
            Vec3::new(0.0, 0.5 + i as f32, 0.0),
            Quat::IDENTITY,
            0.5,
        );
    }
    world.step(DT);
    let c = world.counters();
    assert_eq!(c.bodies, 5);
    assert_eq!(c.awake_bodies, 4);
    // Ground–bottom, and three cube–cube faces: 4 manifolds of 4 points.
    assert_eq!(c.manifolds, 4);
    assert_eq!(c.contact_points, 16);
    assert_eq!(c.islands, 1);
    let p = world.profile();
    assert!(p.total_ms > 0.0);
    assert!(p.total_ms + 1e-3 >= p.broad_phase_ms + p.narrow_phase_ms + p.solver_ms + p.islands_ms);
    // The broad phase stays consistent.
    assert!(world.broad_phase().validate().is_ok());
}

#[test]
fn a_cube_and_a_sphere_have_the_same_inverse_inertia_in_every_frame() {
    // I⁻¹ of a multiple of the identity is unchanged by R·I⁻¹·Rᵀ: a turned cube and sphere
    // give exactly their body-frame value, a multiple of the identity (density 1: a unit
    // cube has m = 1, I = m/6 per axis; a sphere of radius 0.5 has I = 2/5·m·r² with
    // m = 4/3·π·r³), while a 1 × 2 × 3 box turned the same way gives R·I⁻¹·Rᵀ with
    // I_x = m/12·(b² + c²) and so on.
    use impulse::physics::math::Mat3;
    let mut world = World::default();
    let turn = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
    let cube = dynamic(
        &mut world,
        Shape::cuboid(Vec3::splat(0.5)),
        Vec3::ZERO,
        turn,
        0.5,
    );
    let sphere = dynamic(&mut world, Shape::sphere(0.5), Vec3::X * 3.0, turn, 0.5);
    let boxed = dynamic(
        &mut world,
        Shape::cuboid(Vec3::new(0.5, 1.0, 1.5)),
        Vec3::X * 6.0,
        turn,
        0.5,
    );
    let inverse = |h| world.body(h).unwrap().world_inv_inertia();
    let sphere_mass = 4.0 / 3.0 * std::f32::consts::PI * 0.125;
    for (m, expected) in [
        (inverse(cube), 6.0),
        (inverse(sphere), 1.0 / (0.4 * sphere_mass * 0.25)),
    ] {
        assert_eq!(
            m,
            Mat3::IDENTITY * m.x_axis.x,
            "exactly a multiple of the identity"
        );
        assert!((m.x_axis.x - expected).abs() < 1.0e-5 * expected, "{m}");
    }
    let (a, b, c) = (1.0f32, 2.0f32, 3.0f32);
    let principal = Vec3::new(b * b + c * c, a * a + c * c, a * a + b * b) * (6.0 / 12.0);
    let r = Mat3::from_quat(turn);
    let expected = r * Mat3::from_diagonal(principal.recip()) * r.transpose();
    let m = inverse(boxed);
    for (got, want) in m.to_cols_array().iter().zip(expected.to_cols_array()) {
        assert!((got - want).abs() < 1.0e-5, "{m} against {expected}");
    }
    assert!(
        m.x_axis.y.abs() > 0.01,
        "turned, the box's inverse inertia is not diagonal"
    );
}
