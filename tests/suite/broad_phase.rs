//! The broad phase through its public API: the dynamic tree, the quadtree and the uniform grid
//! against the brute-force reference and against O(n²) loops in the test itself, with boxes
//! moving, bouncing, stopping, jumping, appearing and disappearing over a floor wider than the
//! world (a huge proxy: the quadtree's root, the grid's omnipresent list); the height bound
//! under adversarial insertion orders; box and ray queries; and run-to-run determinism. Test names start with `broad_phase_` so that
//! `cargo test broad_phase` selects them together with the unit tests.

use glam::Vec3;
use impulse::physics::aabb::Aabb;
use impulse::physics::broad_phase::{
    BroadPhase, BruteForce, DynamicTree, PairSet, ProxyId, ProxyMove, Quadtree, UniformGrid,
};

/// Side of the cube the boxes live in, m.
const WORLD_SIZE: f32 = 50.0;
/// Time step, s.
const DT: f32 = 1.0 / 60.0;
/// Gravity for the falling boxes, m/s².
const GRAVITY: f32 = 9.81;

/// Knuth's MMIX linear congruential generator: deterministic, no dependency.
struct Lcg(u64);

impl Lcg {
    /// A float uniformly in [lo, hi), from the top 24 bits of the state.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let unit = (self.0 >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }

    /// True with probability `p`.
    fn chance(&mut self, p: f32) -> bool {
        self.range(0.0, 1.0) < p
    }

    /// A vector with each component in [lo, hi).
    fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }

    /// An index in [0, n).
    fn index(&mut self, n: usize) -> usize {
        (self.range(0.0, 1.0) * n as f32) as usize % n
    }
}

/// The largest tree height the balance guarantee allows for `n` proxies: 2·log2(n) + 2.
fn height_bound(n: usize) -> u32 {
    (2.0 * (n.max(1) as f64).log2()).floor() as u32 + 2
}

/// One moving box, registered in both broad phases. Its index in `Scene::bodies` is its user.
struct Body {
    center: Vec3,
    half_extents: Vec3,
    velocity: Vec3,
    /// Falls under gravity and bounces on the floor (restitution 0.8) instead of drifting.
    falls: bool,
    tree_proxy: ProxyId,
    brute_proxy: ProxyId,
    /// In `Scene::others`, in the same order.
    other_proxies: Vec<ProxyId>,
}

impl Body {
    fn tight_aabb(&self) -> Aabb {
        Aabb::from_center_half_extents(self.center, self.half_extents)
    }

    /// Advances one step (explicit Euler), bouncing off the walls of the world cube, and
    /// returns the displacement.
    fn advance(&mut self) -> Vec3 {
        if self.falls {
            self.velocity.y -= GRAVITY * DT;
        }
        let old = self.center;
        self.center += self.velocity * DT;
        for axis in 0..3 {
            let low = self.center[axis] - self.half_extents[axis];
            let high = self.center[axis] + self.half_extents[axis];
            if low < 0.0 && self.velocity[axis] < 0.0 {
                let restitution = if self.falls && axis == 1 { 0.8 } else { 1.0 };
                self.velocity[axis] *= -restitution;
            } else if high > WORLD_SIZE && self.velocity[axis] > 0.0 {
                self.velocity[axis] = -self.velocity[axis];
            }
        }
        self.center - old
    }
}

/// Both broad phases and the pair tables a world would keep from their reports.
struct Scene {
    rng: Lcg,
    /// Indexed by user; `None` once destroyed (users are never reused).
    bodies: Vec<Option<Body>>,
    tree: DynamicTree,
    brute: BruteForce,
    /// The quadtree (small nodes, shallow, to exercise splitting and the depth cap) and the
    /// grids (a given cell and an automatic one), checked against the tree's report.
    others: Vec<Box<dyn BroadPhase>>,
    tree_pairs: PairSet,
    brute_pairs: PairSet,
    /// Highest tree height seen, re-insertions done and steps whose moves rebuilt the
    /// tree, for the report.
    max_height: u32,
    reinsertions: usize,
    rebuilds: usize,
}

impl Scene {
    fn new(seed: u64, count: usize) -> Self {
        let mut scene = Scene {
            rng: Lcg(seed),
            bodies: Vec::new(),
            tree: DynamicTree::new(),
            brute: BruteForce::new(),
            others: vec![
                Box::new(Quadtree::new(5, 4)),
                Box::new(Quadtree::default()),
                Box::new(UniformGrid::new(Some(2.5))),
                Box::new(UniformGrid::new(None)),
            ],
            tree_pairs: PairSet::new(),
            brute_pairs: PairSet::new(),
            max_height: 0,
            reinsertions: 0,
            rebuilds: 0,
        };
        // The floor: 1000 m wide, still.
        scene.add(
            Vec3::new(WORLD_SIZE / 2.0, -0.5, WORLD_SIZE / 2.0),
            Vec3::new(500.0, 0.5, 500.0),
            Vec3::ZERO,
            false,
        );
        for _ in 0..count {
            scene.spawn();
        }
        scene
    }

    /// Registers a box in every broad phase.
    fn add(&mut self, center: Vec3, half_extents: Vec3, velocity: Vec3, falls: bool) {
        let user = self.bodies.len() as u32;
        let tight = Aabb::from_center_half_extents(center, half_extents);
        let tree_proxy = self.tree.create_proxy(tight, user);
        let brute_proxy = self.brute.create_proxy(tight, user);
        let other_proxies = self
            .others
            .iter_mut()
            .map(|bp| bp.create_proxy(tight, user))
            .collect();
        self.bodies.push(Some(Body {
            center,
            half_extents,
            velocity,
            falls,
            tree_proxy,
            brute_proxy,
            other_proxies,
        }));
    }

    /// Creates a box of size 0.1..2 m per axis somewhere in the cube, with a random velocity:
    /// mostly slow (|v| ≤ 3 m/s per axis), one in ten fast (20 m/s), one in five falling.
    fn spawn(&mut self) {
        let half_extents = self.rng.vec3(0.05, 1.0);
        let center = self.rng.vec3(1.0, WORLD_SIZE - 1.0);
        let speed = if self.rng.chance(0.1) { 20.0 } else { 3.0 };
        let velocity = self.rng.vec3(-speed, speed);
        let falls = self.rng.chance(0.2);
        self.add(center, half_extents, velocity, falls);
    }

    /// Destroys a random live body in both broad phases.
    fn despawn_random(&mut self) {
        let user = self.random_live_user();
        let body = self.bodies[user].take().expect("picked a live body");
        self.tree.destroy_proxy(body.tree_proxy);
        self.brute.destroy_proxy(body.brute_proxy);
        for (bp, &proxy) in self.others.iter_mut().zip(&body.other_proxies) {
            bp.destroy_proxy(proxy);
        }
    }

    fn random_live_user(&mut self) -> usize {
        loop {
            let user = self.rng.index(self.bodies.len());
            // The floor (user 0) stays.
            if user > 0 && self.bodies[user].is_some() {
                return user;
            }
        }
    }

    /// Moves every body and tells both broad phases; they must agree on every re-insertion and
    /// every fat AABB. Now and then a body stops dead (its stretched box must shrink back) or
    /// jumps across the world.
    fn move_bodies(&mut self) {
        // The tree takes each step's moves together, as the world hands them over
        // (`move_proxies`: re-insertions, or a rebuild when a quarter move); the others
        // one by one.
        let mut moves = Vec::new();
        for body in self.bodies.iter_mut().flatten() {
            if self.rng.chance(0.005) {
                body.velocity = Vec3::ZERO;
                body.falls = false;
            }
            let mut displacement = body.advance();
            if self.rng.chance(0.002) {
                let jump = self.rng.vec3(1.0, WORLD_SIZE - 1.0) - body.center;
                body.center += jump;
                displacement += jump;
            }
            moves.push(ProxyMove {
                proxy: body.tree_proxy,
                aabb: body.tight_aabb(),
                displacement,
                reinserted: false,
            });
        }
        self.tree.move_proxies(&mut moves);
        let taken = moves.iter().filter(|m| m.reinserted).count();
        if taken * 4 >= self.tree.proxy_count() {
            self.rebuilds += 1;
        }
        for (body, m) in self.bodies.iter().flatten().zip(&moves) {
            let (tight, displacement, tree_moved) = (m.aabb, m.displacement, m.reinserted);
            let brute_moved = self.brute.move_proxy(body.brute_proxy, tight, displacement);
            assert_eq!(tree_moved, brute_moved, "same re-insertion decision");
            for (bp, &proxy) in self.others.iter_mut().zip(&body.other_proxies) {
                assert_eq!(bp.move_proxy(proxy, tight, displacement), tree_moved);
            }
            self.reinsertions += usize::from(tree_moved);
            let fat = self.tree.fat_aabb(body.tree_proxy);
            assert_eq!(fat, self.brute.fat_aabb(body.brute_proxy), "same fat AABB");
            assert!(fat.contains(&tight), "the fat AABB holds the tight one");
        }
    }

    /// One simulation step as a world would run the broad phase, followed by every check.
    fn step(&mut self, step: usize) {
        self.move_bodies();
        if step % 10 == 5 {
            for _ in 0..5 {
                self.despawn_random();
                self.spawn();
            }
        }
        for _ in 0..3 {
            // A woken body or changed filter: its pairs must be reported again.
            let user = self.random_live_user();
            let body = self.bodies[user].as_ref().expect("live");
            self.tree.touch_proxy(body.tree_proxy);
            self.brute.touch_proxy(body.brute_proxy);
            for (bp, &proxy) in self.others.iter_mut().zip(&body.other_proxies) {
                bp.touch_proxy(proxy);
            }
        }
        self.update_pair_tables();
        self.check(step);
    }

    /// Collects both reports (which must be identical: same pairs, same order), inserts them in
    /// the pair tables, then drops pairs whose fat AABBs no longer overlap or whose body is gone.
    fn update_pair_tables(&mut self) {
        let mut tree_report = Vec::new();
        self.tree.update_pairs(&mut |a, b| tree_report.push((a, b)));
        let mut brute_report = Vec::new();
        self.brute
            .update_pairs(&mut |a, b| brute_report.push((a, b)));
        assert_eq!(
            tree_report, brute_report,
            "tree and brute force report alike"
        );
        for bp in &mut self.others {
            let mut report = Vec::new();
            bp.update_pairs(&mut |a, b| report.push((a, b)));
            assert_eq!(report, tree_report, "{} reports like the tree", bp.name());
        }
        assert!(
            tree_report.windows(2).all(|w| w[0] < w[1]),
            "sorted, no repeats"
        );
        assert!(tree_report.iter().all(|&(a, b)| a < b));
        for &(a, b) in &tree_report {
            self.tree_pairs.insert(a, b);
            self.brute_pairs.insert(a, b);
        }
        let bodies = &self.bodies;
        let tree = &self.tree;
        self.tree_pairs
            .retain(|a, b| match (&bodies[a as usize], &bodies[b as usize]) {
                (Some(x), Some(y)) => tree
                    .fat_aabb(x.tree_proxy)
                    .overlaps(&tree.fat_aabb(y.tree_proxy)),
                _ => false,
            });
        let brute = &self.brute;
        self.brute_pairs
            .retain(|a, b| match (&bodies[a as usize], &bodies[b as usize]) {
                (Some(x), Some(y)) => brute
                    .fat_aabb(x.brute_proxy)
                    .overlaps(&brute.fat_aabb(y.brute_proxy)),
                _ => false,
            });
    }

    /// The pair table equals the O(n²) set of overlapping fat AABBs and the brute-force table,
    /// contains every overlapping pair of tight AABBs, and both structures are valid with the
    /// tree within its height bound.
    fn check(&mut self, step: usize) {
        let live: Vec<(u32, &Body)> = self
            .bodies
            .iter()
            .enumerate()
            .filter_map(|(user, body)| body.as_ref().map(|b| (user as u32, b)))
            .collect();
        let fat: Vec<Aabb> = live
            .iter()
            .map(|(_, body)| self.tree.fat_aabb(body.tree_proxy))
            .collect();
        let mut expected = Vec::new();
        for i in 0..live.len() {
            for j in i + 1..live.len() {
                if fat[i].overlaps(&fat[j]) {
                    expected.push((live[i].0, live[j].0));
                }
                if live[i].1.tight_aabb().overlaps(&live[j].1.tight_aabb()) {
                    assert!(
                        self.tree_pairs.contains(live[i].0, live[j].0),
                        "step {step}: touching pair ({}, {}) missing",
                        live[i].0,
                        live[j].0
                    );
                }
            }
        }
        let mut table: Vec<(u32, u32)> = self.tree_pairs.iter().collect();
        table.sort_unstable();
        assert_eq!(
            table, expected,
            "step {step}: pair table = overlapping fat AABBs"
        );
        assert_eq!(
            self.tree_pairs.as_slice(),
            self.brute_pairs.as_slice(),
            "step {step}: same table, same order"
        );
        let n = self.tree.proxy_count();
        assert_eq!(n, live.len());
        assert_eq!(self.brute.proxy_count(), n);
        let height = self.tree.height();
        assert!(
            height <= height_bound(n),
            "step {step}: height {height}, n {n}"
        );
        self.max_height = self.max_height.max(height);
        self.tree.validate().unwrap();
        self.brute.validate().unwrap();
        for bp in &self.others {
            bp.validate().unwrap();
            assert_eq!(bp.proxy_count(), n);
        }
        self.tree_pairs.validate().unwrap();
    }
}

#[test]
fn broad_phase_tree_quadtree_and_grid_match_brute_force_on_moving_boxes() {
    let start = std::time::Instant::now();
    let mut scene = Scene::new(2024, 1000);
    for step in 0..100 {
        scene.step(step);
    }
    eprintln!(
        "1000 proxies, 100 steps: final height {}, max height {} (bound {}), {} nodes, \
         area ratio {:.2}, {} re-insertions, {} rebuilds, {} pairs, {:.2?}",
        scene.tree.height(),
        scene.max_height,
        height_bound(1000),
        scene.tree.node_count(),
        scene.tree.area_ratio(),
        scene.reinsertions,
        scene.rebuilds,
        scene.tree_pairs.len(),
        start.elapsed()
    );
    assert!(
        scene.reinsertions > 1000,
        "the test must exercise re-insertion"
    );
    assert!(
        scene.rebuilds > 0 && scene.rebuilds < 100,
        "the test must exercise rebuilds and steps without ({} of 100)",
        scene.rebuilds
    );
    assert!(!scene.tree_pairs.is_empty(), "the test must have pairs");
}

#[test]
fn broad_phase_same_calls_give_same_pairs_and_boxes() {
    let run = || {
        let mut scene = Scene::new(77, 200);
        for step in 0..30 {
            scene.step(step);
        }
        let fat: Vec<Option<Aabb>> = scene
            .bodies
            .iter()
            .map(|body| body.as_ref().map(|b| scene.tree.fat_aabb(b.tree_proxy)))
            .collect();
        (scene.tree_pairs.as_slice().to_vec(), fat)
    };
    assert_eq!(run(), run());
}

/// Inserts `boxes` in order, checking the height bound after each insertion and the validity
/// of the tree every 64; then removes them in the same order.
fn insert_in_order(boxes: &[Aabb]) -> u32 {
    let mut tree = DynamicTree::new();
    let mut proxies = Vec::new();
    for (user, aabb) in boxes.iter().enumerate() {
        proxies.push(tree.create_proxy(*aabb, user as u32));
        let n = user + 1;
        assert!(
            tree.height() <= height_bound(n),
            "n {n}: height {}",
            tree.height()
        );
        if n % 64 == 0 {
            tree.validate().unwrap();
        }
    }
    let height = tree.height();
    for (removed, proxy) in proxies.into_iter().enumerate() {
        tree.destroy_proxy(proxy);
        let n = boxes.len() - removed - 1;
        assert!(
            tree.height() <= height_bound(n),
            "n {n}: height {}",
            tree.height()
        );
    }
    tree.validate().unwrap();
    assert_eq!(tree.node_count(), 0);
    height
}

#[test]
fn broad_phase_sorted_and_collinear_insertion_keeps_height_bound() {
    let n = 2048;
    let unit = |center: Vec3| Aabb::from_center_half_extents(center, Vec3::splat(0.4));
    let line: Vec<Aabb> = (0..n)
        .map(|i| unit(Vec3::new(i as f32, 0.0, 0.0)))
        .collect();
    let reversed: Vec<Aabb> = line.iter().rev().copied().collect();
    let diagonal: Vec<Aabb> = (0..n).map(|i| unit(Vec3::splat(0.7 * i as f32))).collect();
    // Nested boxes, each containing all previous ones: every insertion enlarges the root.
    let nested: Vec<Aabb> = (0..n)
        .map(|i| Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(1.0 + i as f32)))
        .collect();
    // All boxes identical: the SAH cannot tell any two places apart.
    let stacked: Vec<Aabb> = (0..n).map(|_| unit(Vec3::ZERO)).collect();
    for (name, boxes) in [
        ("line", &line),
        ("reversed", &reversed),
        ("diagonal", &diagonal),
        ("nested", &nested),
        ("stacked", &stacked),
    ] {
        let height = insert_in_order(boxes);
        eprintln!(
            "{name}: {n} proxies, height {height} (bound {})",
            height_bound(n)
        );
    }
}

/// Every broad phase holding the same random boxes, plus the fat and tight boxes by user. The
/// structures are built (`update_pairs`) and then half of the boxes move, so the quadtree and
/// the grid answer partly from their built structure and partly from their move buffer.
fn random_structures(seed: u64, count: usize) -> (Vec<Box<dyn BroadPhase>>, Vec<Aabb>, Vec<Aabb>) {
    let mut rng = Lcg(seed);
    let mut structures: Vec<Box<dyn BroadPhase>> = vec![
        Box::new(DynamicTree::new()),
        Box::new(BruteForce::new()),
        Box::new(Quadtree::new(6, 4)),
        Box::new(UniformGrid::new(None)),
    ];
    let mut boxes = Vec::new();
    let mut proxies: Vec<Vec<ProxyId>> = Vec::new();
    for user in 0..count as u32 {
        let aabb = Aabb::from_center_half_extents(rng.vec3(0.0, WORLD_SIZE), rng.vec3(0.05, 1.0));
        proxies.push(
            structures
                .iter_mut()
                .map(|s| s.create_proxy(aabb, user))
                .collect(),
        );
        boxes.push(aabb);
    }
    for s in &mut structures {
        s.update_pairs(&mut |_, _| {});
    }
    let mut fat = Vec::new();
    let mut tight = Vec::new();
    for (aabb, ids) in boxes.iter().zip(&proxies) {
        // Half of them moved so that their fat boxes are stretched.
        let (aabb, moved_by) = if rng.chance(0.5) {
            let d = rng.vec3(-0.5, 0.5);
            (Aabb::new(aabb.min + d, aabb.max + d), d)
        } else {
            (*aabb, Vec3::ZERO)
        };
        for (s, &id) in structures.iter_mut().zip(ids) {
            s.move_proxy(id, aabb, moved_by);
        }
        fat.push(structures[0].fat_aabb(ids[0]));
        tight.push(aabb);
    }
    (structures, fat, tight)
}

#[test]
fn broad_phase_box_queries_match_brute_force() {
    let (structures, fat, _) = random_structures(5, 800);
    let mut rng = Lcg(99);
    for _ in 0..300 {
        let query = Aabb::from_center_half_extents(rng.vec3(0.0, WORLD_SIZE), rng.vec3(0.1, 5.0));
        let expected: Vec<u32> = (0..fat.len() as u32)
            .filter(|&user| fat[user as usize].overlaps(&query))
            .collect();
        for structure in structures.iter().map(|s| s.as_ref()) {
            let mut found = Vec::new();
            structure.query(&query, &mut |user| {
                found.push(user);
                true
            });
            found.sort_unstable();
            assert_eq!(found, expected, "{}", structure.name());
            // Returning false stops after the first hit.
            let mut visits = 0;
            structure.query(&query, &mut |_| {
                visits += 1;
                false
            });
            assert_eq!(visits, expected.len().min(1), "{}", structure.name());
        }
    }
}

#[test]
fn broad_phase_ray_casts_match_brute_force() {
    let (structures, fat, tight) = random_structures(6, 800);
    let mut rng = Lcg(123);
    for _ in 0..300 {
        let origin = rng.vec3(0.0, WORLD_SIZE);
        let dir = rng.vec3(-1.0, 1.0);
        let max_t = 40.0;
        // Without clipping every fat box the ray crosses is visited.
        let crossed: Vec<u32> = (0..fat.len() as u32)
            .filter(|&u| {
                fat[u as usize]
                    .ray_intersection(origin, dir, max_t)
                    .is_some()
            })
            .collect();
        // The closest-hit query's answer: the smallest entry fraction into a tight box.
        let closest_t = closest_tight_hit(&tight, origin, dir, max_t);
        for structure in structures.iter().map(|s| s.as_ref()) {
            let mut visited = Vec::new();
            structure.ray_cast(origin, dir, max_t, &mut |user, clip| {
                visited.push(user);
                clip
            });
            visited.sort_unstable();
            assert_eq!(visited, crossed, "{}", structure.name());
            let hit = clipped_cast(structure, &tight, origin, dir, max_t);
            assert_eq!(hit.map(|(t, _)| t), closest_t, "{}", structure.name());
            if let Some((t, user)) = hit {
                // Ties may pick any of the tied boxes, but the reported one must really be hit there.
                let again = tight[user as usize].ray_intersection(origin, dir, max_t);
                assert_eq!(again, Some(t));
            }
            let mut visits = 0;
            structure.ray_cast(origin, dir, max_t, &mut |_, _| {
                visits += 1;
                0.0
            });
            assert_eq!(visits, crossed.len().min(1), "returning 0 stops");
        }
    }
}

/// The smallest entry fraction of the ray into any of the `tight` boxes, by an O(n) loop.
fn closest_tight_hit(tight: &[Aabb], origin: Vec3, dir: Vec3, max_t: f32) -> Option<f32> {
    tight
        .iter()
        .filter_map(|aabb| aabb.ray_intersection(origin, dir, max_t))
        .min_by(|a, b| a.total_cmp(b))
}

/// A closest-hit ray cast through `structure`, with the tight boxes standing in for shapes: each
/// visited proxy is tested against its tight box and the clip shrinks to the best hit so far
/// (a hit at t = 0 returns 0 and so ends the cast: nothing can be closer).
fn clipped_cast(
    structure: &dyn BroadPhase,
    tight: &[Aabb],
    origin: Vec3,
    dir: Vec3,
    max_t: f32,
) -> Option<(f32, u32)> {
    let mut best: Option<(f32, u32)> = None;
    structure.ray_cast(
        origin,
        dir,
        max_t,
        &mut |user, clip| match tight[user as usize].ray_intersection(origin, dir, clip) {
            Some(t) if best.is_none_or(|(best_t, _)| t < best_t) => {
                best = Some((t, user));
                t
            }
            _ => clip,
        },
    );
    best
}
