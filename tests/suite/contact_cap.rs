//! The contact cap (`WorldSettings::max_contacts_per_body`): bodies placed inside each other
//! cost a bounded amount of work, the refused pairs are counted and retried, and no shipped
//! scene comes near the cap.

use crate::common;

use common::{dynamic, ground, run, DT};
use impulse::physics::{BodyHandle, Quat, Shape, Vec3, World, WorldSettings};

/// Dynamic-dynamic contacts of each body, by body slot.
fn dynamic_contacts_per_body(world: &World) -> Vec<usize> {
    let mut counts = vec![0; world.body_count() + 1];
    for c in world.contacts() {
        let is_dynamic = |h: BodyHandle| {
            world
                .body(h)
                .is_some_and(|b| b.body_type() == impulse::physics::BodyType::Dynamic)
        };
        if is_dynamic(c.body_a()) && is_dynamic(c.body_b()) {
            counts[c.body_a().index() as usize] += 1;
            counts[c.body_b().index() as usize] += 1;
        }
    }
    counts
}

fn coincident_boxes(world: &mut World, n: usize) -> Vec<BodyHandle> {
    (0..n)
        .map(|_| {
            dynamic(
                world,
                Shape::cuboid(Vec3::splat(0.5)),
                Vec3::new(0.0, 2.0, 0.0),
                Quat::IDENTITY,
                0.6,
            )
        })
        .collect()
}

#[test]
fn coincident_boxes_get_at_most_the_cap_and_the_rest_are_counted() {
    const N: usize = 120;
    const CAP: u32 = 16;
    let mut world = World::new(WorldSettings {
        enable_sleeping: false,
        max_contacts_per_body: CAP,
        ..WorldSettings::default()
    });
    ground(&mut world, 0.6, 0.0);
    coincident_boxes(&mut world, N);
    world.step(DT);
    // Every body overlaps the N - 1 others: N (N - 1) / 2 = 7140 pairs. A contact needs both
    // bodies below the cap, so at most N · CAP / 2 = 960 dynamic contacts exist; the first
    // CAP + 1 bodies in pair order fill each other's budgets (a clique of 17), then the next
    // 17, and so on: 7 cliques of 17 and one body alone, 7 · 17 · 16 / 2 = 952 contacts.
    let per_body = dynamic_contacts_per_body(&world);
    assert!(per_body.iter().all(|&c| c <= CAP as usize), "{per_body:?}");
    let dynamic_contacts: usize = per_body.iter().sum::<usize>() / 2;
    assert_eq!(dynamic_contacts, 7 * 17 * 16 / 2);
    assert_eq!(
        world.counters().capped_pairs,
        N * (N - 1) / 2 - dynamic_contacts
    );
    // The pile pulls itself apart; the work stays bounded and everything stays finite.
    for _ in 0..120 {
        world.step(DT);
        assert!(dynamic_contacts_per_body(&world)
            .iter()
            .all(|&c| c <= CAP as usize));
    }
    for (_, b) in world.bodies() {
        assert!(b.position().is_finite() && b.linear_velocity().is_finite());
    }
}

/// Weightless unit cubes A at the origin, B overlapping its right side and C at `c_x` on its
/// left, with a cap of one contact per body: A-B comes first in pair order, A-C waits.
fn three_cubes_capped_at_one(c_x: f32) -> (World, [BodyHandle; 3]) {
    let mut world = World::new(WorldSettings {
        gravity: Vec3::ZERO,
        enable_sleeping: false,
        max_contacts_per_body: 1,
        ..WorldSettings::default()
    });
    let bodies = [0.0, 0.9, c_x].map(|x| {
        dynamic(
            &mut world,
            Shape::cuboid(Vec3::splat(0.5)),
            Vec3::new(x, 0.0, 0.0),
            Quat::IDENTITY,
            0.6,
        )
    });
    world.step(DT);
    assert_eq!(world.counters().capped_pairs, 1);
    (world, bodies)
}

fn has_contact(world: &World, x: BodyHandle, y: BodyHandle) -> bool {
    world.contacts().any(|k| {
        let pair = [k.body_a(), k.body_b()];
        pair.contains(&x) && pair.contains(&y)
    })
}

#[test]
fn a_capped_pair_gets_its_contact_once_the_body_has_room() {
    // Without gravity nothing moves much, so the broad phase would not report A-C again:
    // only the retry list can.
    let (mut world, [a, b, c]) = three_cubes_capped_at_one(-0.9);
    assert!(has_contact(&world, a, b));
    assert!(!has_contact(&world, a, c));
    assert!(world.remove_body(b).is_ok());
    world.step(DT);
    assert!(
        has_contact(&world, a, c),
        "the waiting pair was not retried"
    );
    assert_eq!(world.counters().capped_pairs, 0);
}

#[test]
fn a_pair_that_separates_leaves_the_retry_list() {
    // C is thrown away from A while capped; once their fat boxes part, the list is empty.
    let (mut world, [a, _, c]) = three_cubes_capped_at_one(-1.05);
    world
        .set_linear_velocity(c, Vec3::new(-20.0, 0.0, 0.0))
        .unwrap();
    run(&mut world, 10);
    assert_eq!(world.counters().capped_pairs, 0);
    assert!(!has_contact(&world, a, c));
    assert!(world.body(a).unwrap().position().is_finite());
}

#[test]
fn max_contacts_per_body_is_validated_by_name() {
    let settings = WorldSettings {
        max_contacts_per_body: 0,
        ..WorldSettings::default()
    };
    let message = settings.validate().unwrap_err();
    assert!(
        message.contains("max_contacts_per_body") && message.contains("got 0"),
        "{message}"
    );
    let scene = "Scene(settings: (max_contacts_per_body: 0), bodies: [])";
    let Err(err) = impulse::scene::load_str(scene, "cap.ron") else {
        panic!("a cap of 0 was accepted");
    };
    let err = err.to_string();
    assert!(err.contains("settings.max_contacts_per_body"), "{err}");
}

#[test]
fn the_busiest_shipped_scenes_stay_under_the_default_cap() {
    // funnel.ron has the most contacts per body of the shipped scenes (33 at most, measured),
    // a cube pile about 12: both must stay clear of the default of 64.
    for name in ["funnel.ron", "card_house.ron"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenes")
            .join(name);
        let mut s = impulse::scene::load_file(&path).unwrap();
        for step in 0..600 {
            s.world.step(s.timestep);
            assert_eq!(s.world.counters().capped_pairs, 0, "{name} step {step}");
        }
    }
}
