//! Unit tests of the dynamic tree's internals: structure, balance, re-insertion policy, pairs
//! and the validator itself.

use super::*;
use crate::physics::constants::AABB_MARGIN;

/// A tiny deterministic generator (Knuth's MMIX LCG) so tests never depend on a seed source.
struct Lcg(u64);

impl Lcg {
    /// A float uniformly in [lo, hi) from the top 24 bits of the state.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let unit = (self.0 >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }

    /// A random box with centre in [0, extent)³ and half sizes in [0.05, 1).
    fn aabb(&mut self, extent: f32) -> Aabb {
        let center = Vec3::new(
            self.range(0.0, extent),
            self.range(0.0, extent),
            self.range(0.0, extent),
        );
        let half = Vec3::new(
            self.range(0.05, 1.0),
            self.range(0.05, 1.0),
            self.range(0.05, 1.0),
        );
        Aabb::from_center_half_extents(center, half)
    }
}

fn cube(center: Vec3, half: f32) -> Aabb {
    Aabb::from_center_half_extents(center, Vec3::splat(half))
}

fn pairs(tree: &mut DynamicTree) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    tree.update_pairs(&mut |a, b| out.push((a, b)));
    out
}

/// The AVL height bound for n leaves: a tree of height h holds at least F(h + 2) ≥ φ^h leaves
/// (Fibonacci), so h ≤ log_φ(n) ≈ 1.44·log2(n).
fn avl_bound(leaves: usize) -> u32 {
    let golden = (1.0 + 5f64.sqrt()) / 2.0;
    ((leaves.max(1) as f64).ln() / golden.ln()).floor() as u32 + 1
}

#[test]
fn empty_tree_is_valid_and_answers_nothing() {
    let tree = DynamicTree::new();
    tree.validate().unwrap();
    assert_eq!(
        (tree.height(), tree.node_count(), tree.proxy_count()),
        (0, 0, 0)
    );
    tree.query(&cube(Vec3::ZERO, 10.0), &mut |_| {
        panic!("no proxy to visit")
    });
    tree.ray_cast(Vec3::ZERO, Vec3::X, 10.0, &mut |_, _| {
        panic!("no proxy to hit")
    });
}

#[test]
fn node_count_is_two_n_minus_one_and_frees_are_reused() {
    let mut rng = Lcg(7);
    let mut tree = DynamicTree::new();
    let proxies: Vec<ProxyId> = (0..200)
        .map(|user| tree.create_proxy(rng.aabb(20.0), user))
        .collect();
    tree.validate().unwrap();
    assert_eq!(tree.node_count(), 2 * 200 - 1);
    for &proxy in proxies.iter().step_by(2) {
        tree.destroy_proxy(proxy);
        tree.validate().unwrap();
    }
    assert_eq!(tree.node_count(), 2 * 100 - 1);
    let capacity = tree.nodes.len();
    for user in 1000..1100 {
        tree.create_proxy(rng.aabb(20.0), user);
    }
    tree.validate().unwrap();
    assert_eq!(tree.nodes.len(), capacity, "freed nodes are reused first");
    for &proxy in proxies.iter().skip(1).step_by(2) {
        tree.destroy_proxy(proxy);
    }
    assert_eq!(tree.proxy_count(), 100);
    tree.validate().unwrap();
}

#[test]
fn sorted_insertion_stays_avl_balanced() {
    // Boxes along a line, each new one beyond the last: the SAH alone would build a list.
    let mut tree = DynamicTree::new();
    let mut proxies = Vec::new();
    for i in 0..1024u32 {
        proxies.push(tree.create_proxy(cube(Vec3::new(i as f32, 0.0, 0.0), 0.4), i));
        assert!(
            tree.height() <= avl_bound(i as usize + 1),
            "height {}",
            tree.height()
        );
    }
    tree.validate().unwrap();
    // Removing the first half (again in order) must keep the balance too.
    for &proxy in &proxies[..512] {
        tree.destroy_proxy(proxy);
    }
    tree.validate().unwrap();
    assert!(tree.height() <= avl_bound(512));
}

#[test]
fn move_inside_fat_box_is_not_reinserted() {
    let mut tree = DynamicTree::new();
    let proxy = tree.create_proxy(cube(Vec3::ZERO, 0.5), 1);
    let fat = tree.fat_aabb(proxy);
    let nudged = cube(Vec3::splat(0.5 * AABB_MARGIN), 0.5);
    assert!(!tree.move_proxy(proxy, nudged, Vec3::splat(0.05)));
    assert_eq!(tree.fat_aabb(proxy), fat);
    let escaped = cube(Vec3::splat(2.0 * AABB_MARGIN), 0.5);
    let displacement = Vec3::new(0.2, 0.0, 0.0);
    assert!(tree.move_proxy(proxy, escaped, displacement));
    assert_eq!(tree.fat_aabb(proxy), fatten_aabb(&escaped, displacement));
    assert_eq!(
        tree.user_data(proxy),
        1,
        "the proxy id survives re-insertion"
    );
    tree.validate().unwrap();
}

#[test]
fn huge_fat_box_shrinks_after_stopping() {
    let mut tree = DynamicTree::new();
    let start = cube(Vec3::ZERO, 0.5);
    let proxy = tree.create_proxy(start, 1);
    let moved = cube(Vec3::new(0.5, 0.0, 0.0), 0.5);
    // Fast motion: the box is stretched 2 × 0.5 m ahead.
    assert!(tree.move_proxy(proxy, moved, Vec3::new(0.5, 0.0, 0.0)));
    assert!(tree.fat_aabb(proxy).max.x > 2.0);
    // The body stops: still inside, but the stretched box is now too big and is rebuilt.
    assert!(tree.move_proxy(proxy, moved, Vec3::ZERO));
    assert_eq!(tree.fat_aabb(proxy), fatten_aabb(&moved, Vec3::ZERO));
    assert!(!tree.move_proxy(proxy, moved, Vec3::ZERO), "now stable");
}

#[test]
fn pairs_of_two_moved_proxies_are_reported_once_and_sorted() {
    let mut tree = DynamicTree::new();
    let a = tree.create_proxy(cube(Vec3::ZERO, 0.5), 30);
    let b = tree.create_proxy(cube(Vec3::new(0.8, 0.0, 0.0), 0.5), 10);
    tree.create_proxy(cube(Vec3::new(0.0, 0.8, 0.0), 0.5), 20);
    tree.create_proxy(cube(Vec3::new(9.0, 0.0, 0.0), 0.5), 40);
    assert_eq!(pairs(&mut tree), vec![(10, 20), (10, 30), (20, 30)]);
    assert!(pairs(&mut tree).is_empty());
    tree.touch_proxy(a);
    tree.touch_proxy(b);
    assert_eq!(pairs(&mut tree), vec![(10, 20), (10, 30), (20, 30)]);
    tree.validate().unwrap();
}

#[test]
fn destroyed_proxy_leaves_move_buffer() {
    let mut tree = DynamicTree::new();
    tree.create_proxy(cube(Vec3::ZERO, 0.5), 1);
    let b = tree.create_proxy(cube(Vec3::ZERO, 0.5), 2);
    tree.destroy_proxy(b);
    tree.validate().unwrap();
    assert!(pairs(&mut tree).is_empty());
}

#[test]
fn debug_nodes_match_structure() {
    let mut rng = Lcg(3);
    let mut tree = DynamicTree::new();
    for user in 0..50 {
        tree.create_proxy(rng.aabb(10.0), user);
    }
    let mut nodes = Vec::new();
    tree.debug_nodes(&mut nodes);
    assert_eq!(nodes.len(), tree.node_count());
    assert_eq!(nodes.iter().filter(|n| n.is_leaf).count(), 50);
    let deepest = nodes.iter().map(|n| n.depth).max().unwrap();
    assert_eq!(deepest, tree.height());
    assert!(nodes.iter().all(|n| !(n.is_leaf && n.children_overlap)));
}

#[test]
fn node_stack_spills_in_lifo_order() {
    let mut stack = NodeStack::starting_at(NULL_NODE);
    for i in 0..100 {
        stack.push(i);
    }
    let popped: Vec<u32> = std::iter::from_fn(|| stack.pop()).collect();
    assert_eq!(popped, (0..100).rev().collect::<Vec<_>>());
}

#[test]
fn ray_cast_clip_finds_closest_proxy() {
    let mut tree = DynamicTree::new();
    let mut fat_by_user = Vec::new();
    // Inserted far to near, so the first leaf visited is unlikely to be the closest.
    for i in (0..10u32).rev() {
        let proxy = tree.create_proxy(cube(Vec3::new(2.0 * i as f32 + 2.0, 0.0, 0.0), 0.5), i);
        fat_by_user.push((i, tree.fat_aabb(proxy)));
    }
    fat_by_user.sort_by_key(|&(user, _)| user);
    // Clip at each hit's entry: the closest box spans x = 2 ± 0.6 (0.5 + margin), t = 1.4.
    let mut closest = None;
    tree.ray_cast(Vec3::ZERO, Vec3::X, 100.0, &mut |user, clip| {
        let t = fat_by_user[user as usize]
            .1
            .ray_intersection(Vec3::ZERO, Vec3::X, clip);
        match t {
            Some(t) => {
                closest = Some(user);
                t
            }
            None => clip,
        }
    });
    assert_eq!(closest, Some(0));
}

#[test]
fn validate_catches_corruption() {
    let build = || {
        let mut rng = Lcg(11);
        let mut tree = DynamicTree::new();
        for user in 0..20 {
            tree.create_proxy(rng.aabb(10.0), user);
        }
        tree
    };
    build().validate().unwrap();
    let root = build().root as usize;

    let mut grown = build();
    grown.nodes[root].aabb = grown.nodes[root].aabb.expanded(1.0);
    assert!(grown.validate().is_err(), "root box larger than the union");

    let mut tall = build();
    tall.nodes[root].height += 1;
    assert!(tall.validate().is_err(), "wrong height");

    let mut cycle = build();
    let child = cycle.nodes[root].child_a as usize;
    cycle.nodes[child].child_a = root as u32;
    assert!(cycle.validate().is_err(), "cycle");

    let mut moved = build();
    moved.move_buffer.push(moved.move_buffer[0]);
    assert!(moved.validate().is_err(), "duplicate move");

    let mut leaked = build();
    leaked.nodes.push(Node::leaf(cube(Vec3::ZERO, 1.0), 99));
    assert!(leaked.validate().is_err(), "leaked node");
}

#[test]
fn union_area_is_the_area_of_the_union() {
    // The descent's `union_area` against `Aabb::union` then `surface_area`, bit for bit, on
    // overlapping, nested, disjoint and touching boxes.
    let mut rng = Lcg(7);
    for i in 0..2000 {
        let a = rng.aabb(if i % 2 == 0 { 3.0 } else { 100.0 });
        let b = match i % 4 {
            0 => a,
            1 => Aabb::new(a.max, a.max + Vec3::ONE),
            _ => rng.aabb(3.0),
        };
        let expected = a.union(&b).surface_area();
        assert_eq!(
            union_area(&a, &b).to_bits(),
            expected.to_bits(),
            "{a:?} {b:?}"
        );
        assert_eq!(
            union_area(&b, &a).to_bits(),
            expected.to_bits(),
            "{b:?} {a:?}"
        );
    }
}

/// Random boxes in a tree, moved about by [`Drifting::drift`].
struct Drifting {
    tree: DynamicTree,
    proxies: Vec<ProxyId>,
    boxes: Vec<Aabb>,
}

impl Drifting {
    /// `count` random boxes (`Lcg::aabb(extent)`), user values 0, 1, ….
    fn new(rng: &mut Lcg, count: u32, extent: f32) -> Self {
        let mut tree = DynamicTree::new();
        let mut proxies = Vec::new();
        let mut boxes = Vec::new();
        for user in 0..count {
            let aabb = rng.aabb(extent);
            proxies.push(tree.create_proxy(aabb, user));
            boxes.push(aabb);
        }
        Self {
            tree,
            proxies,
            boxes,
        }
    }

    /// Shifts every box by up to `reach` on each axis (uniform), through `move_proxy`.
    fn drift(&mut self, rng: &mut Lcg, reach: f32) {
        for (proxy, aabb) in self.proxies.iter().zip(&mut self.boxes) {
            let shift = Vec3::new(
                rng.range(-reach, reach),
                rng.range(-reach, reach),
                rng.range(-reach, reach),
            );
            *aabb = Aabb::new(aabb.min + shift, aabb.max + shift);
            self.tree.move_proxy(*proxy, *aabb, shift);
        }
    }
}

#[test]
fn moves_leave_every_box_the_union_of_its_children() {
    // The refit walk stops where nothing changed; the boxes above must still be exactly the
    // unions (the validator checks every node) after many small and large moves.
    let mut rng = Lcg(11);
    let mut world = Drifting::new(&mut rng, 200, 20.0);
    for round in 0..50 {
        world.drift(&mut rng, if round % 5 == 0 { 3.0 } else { 0.2 });
        world.tree.validate().unwrap();
        pairs(&mut world.tree);
    }
}

#[test]
fn a_tree_of_moving_boxes_stays_as_good_as_a_fresh_one() {
    // A moved leaf descends from the lowest ancestor holding its new box. After 400 moves
    // of drifting boxes (each a random walk, up to 0.3 m a move) the tree's SAH cost
    // (`area_ratio`) must be no worse than that of a tree built afresh from the same boxes
    // in index order.
    let mut rng = Lcg(23);
    let mut world = Drifting::new(&mut rng, 500, 40.0);
    for _ in 0..400 {
        world.drift(&mut rng, 0.3);
        pairs(&mut world.tree);
    }
    world.tree.validate().unwrap();
    let mut fresh = DynamicTree::new();
    for (user, proxy) in world.proxies.iter().enumerate() {
        fresh.create_proxy_fat(world.tree.fat_aabb(*proxy), user as u32);
    }
    let (moved, built) = (world.tree.area_ratio(), fresh.area_ratio());
    assert!(moved <= built, "moved {moved}, fresh {built}");
}

/// Moves every `every`-th drifting box by up to `reach` through `move_proxies` on `bulk` and
/// through `move_proxy` on `single`, the same calls; returns how many took new boxes.
fn move_both(
    bulk: &mut Drifting,
    single: &mut DynamicTree,
    rng: &mut Lcg,
    every: usize,
    reach: f32,
) -> usize {
    let mut moves = Vec::new();
    for (k, (proxy, aabb)) in bulk.proxies.iter().zip(&mut bulk.boxes).enumerate() {
        if k % every != 0 {
            continue;
        }
        let shift = Vec3::new(
            rng.range(-reach, reach),
            rng.range(-reach, reach),
            rng.range(-reach, reach),
        );
        *aabb = Aabb::new(aabb.min + shift, aabb.max + shift);
        moves.push(ProxyMove {
            proxy: *proxy,
            aabb: *aabb,
            displacement: shift,
            reinserted: false,
        });
    }
    bulk.tree.move_proxies(&mut moves);
    for m in &moves {
        let alone = single.move_proxy(m.proxy, m.aabb, m.displacement);
        assert_eq!(m.reinserted, alone, "proxy {}: the same answer", m.proxy);
        assert_eq!(bulk.tree.fat_aabb(m.proxy), single.fat_aabb(m.proxy));
    }
    moves.iter().filter(|m| m.reinserted).count()
}

#[test]
fn many_moves_at_once_rebuild_the_tree_and_report_the_same_pairs() {
    // Moving all the boxes far (every one takes a new box: a rebuild), a third of them
    // (still a rebuild) or a tenth (re-insertions, as `move_proxy`): the answers, the fat
    // boxes and the pairs are those of the same moves one by one, and the tree stays
    // valid (AVL, boxes exactly the unions, free list, move buffer).
    let mut rng = Lcg(41);
    let mut bulk = Drifting::new(&mut rng, 600, 30.0);
    let mut single = bulk.tree.clone();
    pairs(&mut bulk.tree);
    pairs(&mut single);
    for (round, every) in [1, 3, 10, 1, 3, 10].into_iter().enumerate() {
        let taken = move_both(&mut bulk, &mut single, &mut rng, every, 2.0);
        assert!(taken > 0);
        bulk.tree.validate().unwrap();
        single.validate().unwrap();
        assert_eq!(pairs(&mut bulk.tree), pairs(&mut single), "round {round}");
        assert_eq!(bulk.tree.node_count(), 2 * 600 - 1);
        assert!(bulk.tree.height() <= avl_bound(600));
    }
}

/// The tree's nodes as drawn (every box, depth and leaf flag, depth first).
fn shape(tree: &DynamicTree) -> Vec<BroadPhaseNode> {
    let mut out = Vec::new();
    tree.debug_nodes(&mut out);
    out
}

#[test]
fn few_moves_at_once_are_reinserted_and_many_rebuild_a_tree_as_good_as_a_fresh_one() {
    let mut rng = Lcg(43);
    let mut bulk = Drifting::new(&mut rng, 800, 40.0);
    let mut single = bulk.tree.clone();
    // A tenth move: under a quarter, so re-inserted one by one, the very same tree.
    let taken = move_both(&mut bulk, &mut single, &mut rng, 10, 3.0);
    assert!(taken > 0 && taken * REBUILD_DIVISOR < 800);
    assert_eq!(shape(&bulk.tree), shape(&single));
    // All of them move: rebuilt. Its SAH cost (`area_ratio`) is no worse than that of
    // the tree the same moves made one by one, nor of one built by inserting the boxes
    // afresh in index order.
    let taken = move_both(&mut bulk, &mut single, &mut rng, 1, 3.0);
    assert!(taken * REBUILD_DIVISOR >= 800);
    assert_ne!(shape(&bulk.tree), shape(&single));
    let mut fresh = DynamicTree::new();
    for (user, proxy) in bulk.proxies.iter().enumerate() {
        fresh.create_proxy_fat(bulk.tree.fat_aabb(*proxy), user as u32);
    }
    let rebuilt = bulk.tree.area_ratio();
    assert!(
        rebuilt <= single.area_ratio(),
        "{rebuilt} vs {}",
        single.area_ratio()
    );
    assert!(
        rebuilt <= fresh.area_ratio(),
        "{rebuilt} vs {}",
        fresh.area_ratio()
    );
}

#[test]
fn a_rebuild_is_the_same_on_any_number_of_workers() {
    // 3 000 leaves: eight subtrees built as tasks, shared when there are workers.
    let mut rng = Lcg(47);
    let world = Drifting::new(&mut rng, 3000, 60.0);
    let mut trees = Vec::new();
    for workers in [1, 2, 3] {
        let mut tree = world.tree.clone();
        crate::physics::threads::run_with(workers, || tree.rebuild());
        tree.validate().unwrap();
        trees.push(shape(&tree));
    }
    assert_ne!(trees[0], shape(&world.tree), "rebuilt");
    assert_eq!(trees[0], trees[1]);
    assert_eq!(trees[0], trees[2]);
}

/// A tree's shape from `index` down: a leaf's index, or its two children's shapes.
#[derive(Debug, PartialEq)]
enum Shape {
    Leaf(u32),
    Split(Box<Shape>, Box<Shape>),
}

fn shape_of(tree: &DynamicTree, index: u32) -> Shape {
    let node = &tree.nodes[index as usize];
    if node.is_leaf() {
        Shape::Leaf(index)
    } else {
        Shape::Split(
            Box::new(shape_of(tree, node.child_a)),
            Box::new(shape_of(tree, node.child_b)),
        )
    }
}

/// The median-split tree built the plain way, as the reference for `rebuild`: the leaves
/// (index, centre) sorted whole along the axis whose centres spread most (largest
/// max − min, x before y before z on ties), by coordinate then index, and cut in half.
fn reference_build(leaves: &mut [(u32, Vec3)]) -> Shape {
    if let [(leaf, _)] = leaves {
        return Shape::Leaf(*leaf);
    }
    let spread = |k: usize| {
        let values = leaves.iter().map(|(_, c)| c[k]);
        values.clone().fold(f32::NEG_INFINITY, f32::max) - values.fold(f32::INFINITY, f32::min)
    };
    let (x, y, z) = (spread(0), spread(1), spread(2));
    let axis = if x >= y && x >= z {
        0
    } else if y >= z {
        1
    } else {
        2
    };
    leaves.sort_by(|a, b| a.1[axis].total_cmp(&b.1[axis]).then(a.0.cmp(&b.0)));
    let half = leaves.len() / 2;
    let (first, second) = leaves.split_at_mut(half);
    Shape::Split(
        Box::new(reference_build(first)),
        Box::new(reference_build(second)),
    )
}

#[test]
fn a_rebuild_splits_every_run_at_its_median_as_a_plain_sort_does() {
    // 2 500 boxes (three levels split on the calling thread, eight subtrees as tasks), some with
    // equal centres on an axis (ties go by index), and small trees of 1, 2 and 3.
    for (count, seed) in [(2500, 53), (3, 59), (2, 61), (1, 67)] {
        let mut rng = Lcg(seed);
        let mut tree = DynamicTree::new();
        for user in 0..count {
            let mut aabb = rng.aabb(30.0);
            if user % 7 == 0 {
                // On the plane y = 5 exactly.
                let h = aabb.half_extents();
                aabb = Aabb::from_center_half_extents(
                    Vec3::new(aabb.center().x, 5.0, aabb.center().z),
                    h,
                );
            }
            tree.create_proxy_fat(aabb, user);
        }
        tree.rebuild();
        tree.validate().unwrap();
        let mut leaves: Vec<(u32, Vec3)> = (0..tree.nodes.len() as u32)
            .filter(|&i| !tree.nodes[i as usize].free && tree.nodes[i as usize].is_leaf())
            .map(|i| {
                let aabb = tree.nodes[i as usize].aabb;
                (i, aabb.min + aabb.max)
            })
            .collect();
        assert_eq!(
            shape_of(&tree, tree.root),
            reference_build(&mut leaves),
            "{count} boxes"
        );
    }
}
