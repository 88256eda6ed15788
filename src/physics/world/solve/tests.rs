//! The solve phase: sub-steps for a jointed mass ratio, and the height keys bodies are ordered by.

use super::constraints::{group_by_island, height_key, sort_by_height};
use crate::physics::solver::substeps_for_mass_ratio;
use crate::physics::{
    BodyDef, BodyHandle, ColliderDef, JointDef, Shape, Vec3, World, WorldSettings,
};

/// A ball of `radius` at `x` on the x axis (density 1: m = 4/3·π·r³ kg).
fn ball(world: &mut World, x: f32, radius: f32) -> BodyHandle {
    let body = world.create_body(BodyDef {
        position: Vec3::new(x, 0.0, 0.0),
        ..BodyDef::default()
    });
    world
        .add_collider(body, ColliderDef::new(Shape::sphere(radius)))
        .expect("collider");
    body
}

/// A jointed pair of balls 125 times apart in mass (radii 1 and 0.2) is one island with
/// substeps_for_mass_ratio(4, 125) = ⌈4·√(125/25)⌉ = 9 sub-steps; the same two balls
/// apart and unjoined keep the world's 4.
#[test]
fn a_jointed_mass_ratio_gives_its_island_more_substeps() {
    for joined in [false, true] {
        let mut world = World::new(WorldSettings {
            gravity: Vec3::ZERO,
            enable_sleeping: false,
            substeps: 4,
            ..WorldSettings::default()
        });
        let heavy = ball(&mut world, 0.0, 1.0);
        let light = ball(&mut world, 3.0, 0.2);
        let ratio = world.body(heavy).unwrap().mass() / world.body(light).unwrap().mass();
        assert!((ratio - 125.0).abs() < 1.0e-2, "{ratio}");
        assert_eq!(substeps_for_mass_ratio(4, ratio), 9);
        if joined {
            let anchor = Vec3::new(2.0, 0.0, 0.0);
            let def = JointDef::spherical(&world, heavy, Some(light), anchor);
            world.create_joint(def).expect("joint");
        }
        world.step(1.0 / 60.0);
        let groups: Vec<u32> = world
            .scratch
            .islands
            .groups
            .iter()
            .map(|g| g.substeps)
            .collect();
        let expected = if joined { 9 } else { 4 };
        assert_eq!(groups, [expected], "joined: {joined}");
    }
}

#[test]
fn height_keys_sort_as_total_cmp() {
    let heights = [
        -f32::INFINITY,
        -3.5,
        -1.0e-30,
        -0.0,
        0.0,
        1.0e-30,
        0.25,
        7.0,
        f32::INFINITY,
    ];
    for a in heights {
        for b in heights {
            assert_eq!(
                height_key(a).cmp(&height_key(b)),
                a.total_cmp(&b),
                "{a} {b}"
            );
        }
    }
}

proptest::proptest! {
    /// The radix sort orders height keys as a comparison sort of the whole keys does
    /// (heights from a few values, so many ties, which must keep their index order).
    #[test]
    fn heights_sort_as_a_comparison_sort(
        heights in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::sample::select(vec![-2.5f32, -0.0, 0.0, 0.5, 1.0, 1.5, 40.0]),
                -1.0e6f32..1.0e6,
            ],
            0..600,
        ),
    ) {
        let mut keys: Vec<u64> = heights
            .iter()
            .enumerate()
            .map(|(i, &h)| height_key(h) << 32 | i as u64)
            .collect();
        let mut expected = keys.clone();
        expected.sort_unstable();
        sort_by_height(&mut keys, &mut Vec::new());
        proptest::prop_assert_eq!(keys, expected);
    }
}

proptest::proptest! {
    /// Grouping by island is a stable counting sort: islands in root order, each one's
    /// constraints in the order they had, every constraint once, and each range holds one
    /// island's constraints.
    #[test]
    fn grouping_by_island_keeps_each_islands_order(
        island in proptest::collection::vec(0u32..30, 0..300),
        shuffle in proptest::collection::vec(0usize..10_000, 300),
    ) {
        let mut order: Vec<u32> = (0..island.len() as u32).collect();
        let n = order.len();
        for (k, pick) in shuffle.iter().enumerate().take(n) {
            order.swap(k, k + pick % (n - k));
        }
        let (mut grouped, mut starts, mut ranges) = (Vec::new(), Vec::new(), Vec::new());
        group_by_island(&order, &island, 30, (&mut grouped, &mut starts, &mut ranges));
        // Expected: for each root in turn, the constraints of that root in `order`.
        let mut expected: Vec<u32> = Vec::new();
        let mut expected_ranges = Vec::new();
        for root in 0..30 {
            let start = expected.len();
            expected.extend(order.iter().filter(|&&i| island[i as usize] == root));
            if expected.len() > start {
                expected_ranges.push(start..expected.len());
            }
        }
        proptest::prop_assert_eq!(grouped, expected);
        proptest::prop_assert_eq!(ranges, expected_ranges);
    }
}
