//! Scene files: every shipped scene loads and runs; save → load is exact.

use std::path::Path;

use impulse::physics::{CollisionFilter, Shape, Vec3};
use impulse::scene::{self, save};

fn scene_files() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenes/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_shipped_scene_loads_and_runs() {
    let files = scene_files();
    assert!(
        files.len() >= 12,
        "expected the twelve shipped scenes, found {}",
        files.len()
    );
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.trim_start().starts_with("//"),
            "{} must start with a comment saying what it shows",
            path.display()
        );
        let mut s = scene::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.world.body_count() > 0, "{} is empty", path.display());
        for _ in 0..60 {
            s.world.step(s.timestep);
        }
        for (_, b) in s.world.bodies() {
            assert!(
                b.position().is_finite() && b.linear_velocity().is_finite(),
                "{}: a body blew up",
                path.display()
            );
        }
    }
}

#[test]
fn the_compiled_in_default_scene_is_scenes_default_ron() {
    let on_disk =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/default.ron"))
            .unwrap();
    assert_eq!(on_disk, scene::DEFAULT_SCENE);
    assert!(scene::load_default().is_ok());
}

/// Every body's full state as bits.
fn state_bits(world: &impulse::physics::World) -> Vec<u32> {
    world
        .bodies()
        .flat_map(|(_, b)| {
            let mut v: Vec<f32> = Vec::new();
            v.extend(b.position().to_array());
            v.extend(b.rotation().to_array());
            v.extend(b.linear_velocity().to_array());
            v.extend(b.angular_velocity().to_array());
            v.push(b.mass());
            v.push(if b.is_awake() { 1.0 } else { 0.0 });
            v.into_iter().map(f32::to_bits).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn save_then_load_gives_the_identical_state() {
    for name in ["default.ron", "shapes.ron", "launcher.ron"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenes")
            .join(name);
        let mut s = scene::load_file(&path).unwrap();
        // Mid-flight: bodies moving, spinning, some asleep.
        for _ in 0..75 {
            s.world.step(s.timestep);
        }
        let text = save::save(&s.world, &s.meta, &s.camera, s.timestep, "saved by a test").unwrap();
        let loaded = scene::load_str(&text, "saved.ron").unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(
            state_bits(&s.world),
            state_bits(&loaded.world),
            "{name}: state differs after reload"
        );
        assert_eq!(loaded.timestep.to_bits(), s.timestep.to_bits());
        assert_eq!(loaded.world.settings(), s.world.settings());
        let names: Vec<_> = s.meta.values().map(|m| m.name.clone()).collect();
        let loaded_names: Vec<_> = loaded.meta.values().map(|m| m.name.clone()).collect();
        assert_eq!(names, loaded_names);
        // Saving the loaded scene writes the same text again.
        let again = save::save(
            &loaded.world,
            &loaded.meta,
            &loaded.camera,
            loaded.timestep,
            "saved by a test",
        )
        .unwrap();
        assert_eq!(text, again);
        // A save holds body state, not solver caches (last step's impulses), so the reloaded
        // world continues like the original up to warm starting; two loads of the same save
        // continue identically.
        let mut b = loaded;
        let mut c = scene::load_str(&text, "saved.ron").unwrap();
        for _ in 0..30 {
            b.world.step(b.timestep);
            c.world.step(c.timestep);
        }
        assert_eq!(
            state_bits(&b.world),
            state_bits(&c.world),
            "{name}: reloads diverge"
        );
    }
}

/// Save as of a loaded scene file (`scene::save::save_scene`), as the window and
/// `impulse run --save` write it.
fn save_as(s: &scene::Scene, source: &str) -> String {
    let note = save::saved_note(&s.world, "a test");
    save::save_scene(
        &s.world,
        &s.meta,
        Some(&s.camera),
        s.timestep,
        Some(source),
        &note,
    )
    .unwrap()
}

#[test]
fn every_shipped_scene_saved_before_its_first_step_steps_the_same_bits() {
    // The joints are written in their bodies' frames too (`Frames`), so the jointed scenes
    // (chain, door, ragdoll) load to the same joints, not ones a rounding away.
    let mut files = scene_files();
    files.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/bench/joint_grid.ron"));
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut original = scene::load_str(&text, "original").unwrap();
        let saved = save_as(&original, &text);
        let mut again = scene::load_str(&saved, "saved").unwrap_or_else(|e| panic!("{e}"));
        let steps = if original.world.body_count() > 500 {
            3
        } else {
            30
        };
        for _ in 0..steps {
            original.world.step(original.timestep);
            again.world.step(again.timestep);
        }
        assert_eq!(
            original.world.state_hash(),
            again.world.state_hash(),
            "{}",
            path.display()
        );
    }
}

#[test]
fn a_jointed_world_saved_mid_run_loads_to_the_same_state_and_joints() {
    for name in ["ragdoll.ron", "bridge.ron", "door.ron"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("scenes")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut s = scene::load_str(&text, name).unwrap();
        for _ in 0..90 {
            s.world.step(s.timestep);
        }
        let loaded = scene::load_str(&save_as(&s, &text), "saved").unwrap();
        assert_eq!(s.world.state_hash(), loaded.world.state_hash(), "{name}");
        let defs = |w: &impulse::physics::World| {
            w.joints()
                .map(|(_, j)| format!("{:?}", j.def()))
                .collect::<Vec<_>>()
        };
        // The handles are the same (same order of bodies), so the definitions print alike.
        assert_eq!(defs(&s.world), defs(&loaded.world), "{name}");
    }
}

#[test]
fn save_as_keeps_the_description_and_the_generators_whose_bodies_are_untouched() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/pile.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut s = scene::load_str(&text, "pile").unwrap();
    let saved = save_as(&s, &text);
    // The file's leading comment, then the note, then the scene.
    let description = scene::description(&text);
    assert!(
        description.starts_with("1000 mixed bodies"),
        "{description}"
    );
    let note = save::saved_note(&s.world, "a test");
    assert_eq!(
        scene::description(&saved),
        format!("{description}\n\n{note}")
    );
    let file = scene::parse(&saved, "saved").unwrap();
    let original = scene::parse(&text, "pile").unwrap();
    assert_eq!(file.generators, original.generators);
    assert_eq!(
        file.bodies.len(),
        original.bodies.len(),
        "only the walls and floor"
    );
    // Once the bodies have moved the generator no longer describes them: every body is
    // written, awake (a body asleep in a file floats where the file puts it).
    for _ in 0..2 {
        s.world.step(s.timestep);
    }
    let file = scene::parse(&save_as(&s, &text), "saved").unwrap();
    assert!(file.generators.is_empty());
    assert_eq!(file.bodies.len(), s.world.body_count());
    assert!(file.bodies.iter().all(|b| b.awake));
}

#[test]
fn save_as_keeps_the_comments_above_bodies_still_there() {
    // The card house's comments sit above the first card of each level.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/card_house.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    let s = scene::load_str(&text, "card_house").unwrap();
    let saved = save_as(&s, &text);
    let lines: Vec<&str> = saved.lines().map(str::trim).collect();
    let above = |name: &str| {
        let at = lines
            .iter()
            .position(|l| *l == format!("name: \"{name}\","))
            .unwrap_or_else(|| panic!("{name} in\n{saved}"));
        lines[at - 2]
    };
    assert_eq!(above("L3 left"), "// Level 3: one A-frame on top.");
    assert_eq!(
        above("floor 1"),
        "// Floor card on the three apexes (apex height 1.142)."
    );
    // Saved again from the saved file, the comments stay as they are, once each.
    let again = save_as(&scene::load_str(&saved, "saved").unwrap(), &saved);
    assert_eq!(again.matches("// Level 3").count(), 1);
    assert_eq!(scene::description(&again), scene::description(&saved));
    assert_eq!(again.matches("Saved by Impulse").count(), 1);
}

#[test]
fn a_saved_pyramid_asleep_is_written_awake() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/pyramid.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut s = scene::load_str(&text, "pyramid").unwrap();
    for _ in 0..240 {
        s.world.step(s.timestep);
    }
    let asleep = s.world.bodies().filter(|(_, b)| !b.is_awake()).count();
    assert!(asleep > 200, "{asleep} asleep after 4 s");
    let file = scene::parse(&save_as(&s, &text), "saved").unwrap();
    assert!(file.bodies.iter().all(|b| b.awake));
}

#[test]
fn bad_joint_frames_are_refused_naming_the_field() {
    let scene_with = |frames: &str| {
        format!(
            r#"Scene(
                bodies: [(name: "a", position: (0.0, 1.0, 0.0),
                          colliders: [(shape: Sphere(radius: 0.5))])],
                joints: [Revolute(a: "a", anchor: (0.0, 2.0, 0.0), axis: (0.0, 0.0, 1.0),
                                  frames: {frames})],
            )"#
        )
    };
    let missing = scene_with("(anchor_a: (0.0, 1.0, 0.0), anchor_b: (0.0, 2.0, 0.0))");
    let e = scene::load_str(&missing, "s.ron")
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("frames.axis_a is needed"), "{e}");
    let long = scene_with(
        "(anchor_a: (0.0, 1.0, 0.0), anchor_b: (0.0, 2.0, 0.0), axis_a: (0.0, 0.0, 2.0), \
         axis_b: (0.0, 0.0, 1.0), reference_a: (1.0, 0.0, 0.0), reference_b: (1.0, 0.0, 0.0))",
    );
    let e = scene::load_str(&long, "s.ron")
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("frames.axis_a must be a unit direction"), "{e}");
    let along = scene_with(
        "(anchor_a: (0.0, 1.0, 0.0), anchor_b: (0.0, 2.0, 0.0), axis_a: (0.0, 0.0, 1.0), \
         axis_b: (0.0, 0.0, 1.0), reference_a: (0.0, 0.0, 1.0), reference_b: (1.0, 0.0, 0.0))",
    );
    let e = scene::load_str(&along, "s.ron")
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.contains("frames.reference_a must be across the hinge's axis"),
        "{e}"
    );
    let good = scene_with(
        "(anchor_a: (0.0, 1.0, 0.0), anchor_b: (0.0, 2.0, 0.0), axis_a: (0.0, 0.0, 1.0), \
         axis_b: (0.0, 0.0, 1.0), reference_a: (1.0, 0.0, 0.0), reference_b: (1.0, 0.0, 0.0))",
    );
    assert!(scene::load_str(&good, "s.ron").is_ok());
}

#[test]
fn collision_filters_load_in_any_base_and_save_back() {
    let text = r#"Scene(bodies: [
        (name: "ghost", position: (0.0, 1.0, 0.0),
         colliders: [(shape: Sphere(radius: 0.5), filter: (category: 2, mask: 0xFFFD))]),
        (name: "only mask", position: (2.0, 1.0, 0.0),
         colliders: [(shape: Sphere(radius: 0.5), filter: (mask: 0b101))]),
        (name: "plain", position: (4.0, 1.0, 0.0), colliders: [(shape: Sphere(radius: 0.5))]),
    ])"#;
    let filters = |s: &scene::Scene| {
        ["ghost", "only mask", "plain"].map(|name| {
            let (&body, _) = s.meta.iter().find(|(_, m)| m.name == name).expect(name);
            let collider = s.world.body_colliders(body).next().expect("collider");
            s.world.collider(collider).expect("live").filter()
        })
    };
    let s = scene::load_str(text, "s.ron").expect("loads");
    let expected = [
        CollisionFilter::new(2, 0xFFFD),
        CollisionFilter::new(1, 0b101),
        CollisionFilter::DEFAULT,
    ];
    assert_eq!(filters(&s), expected);
    let saved = save_as(&s, text);
    assert_eq!(saved.matches("filter:").count(), 2, "{saved}");
    let again = scene::load_str(&saved, "saved.ron").expect("the saved scene loads");
    assert_eq!(filters(&again), expected);
}

#[test]
fn relax_iterations_may_be_spelt_position_iterations() {
    // The classic solvers' name for the relax pass count, accepted so older files load.
    for field in ["relax_iterations", "position_iterations"] {
        let text = format!("Scene(settings: ({field}: 7))");
        let s = scene::load_str(&text, "s.ron").expect("loads");
        assert_eq!(s.world.settings().relax_iterations, 7, "{field}");
    }
}

#[test]
fn generators_make_named_bodies() {
    let s = scene::load_str(
        "Scene(generators: [Pyramid(base: 3), Pyramid(base: 2, origin: (5.0, 0.0, 0.0)), Stack(count: 2), \
         Grid(counts: (2, 1, 2), spacing: (1.0, 1.0, 1.0)), Dominoes(count: 3)])",
        "gen.ron",
    )
    .unwrap();
    let names: Vec<_> = s.meta.values().map(|m| m.name.as_str()).collect();
    // 6 + 3 + 2 + 4 + 3 bodies.
    assert_eq!(names.len(), 18);
    for expected in [
        "pyramid[0]",
        "pyramid[5]",
        "pyramid2[2]",
        "stack[1]",
        "grid[3]",
        "dominoes[2]",
    ] {
        assert!(names.contains(&expected), "missing {expected} in {names:?}");
    }
    // A pyramid of base 3 with half extent 0.5: the top cube sits at y = 0.5 + 2·1.0.
    let top = s
        .meta
        .iter()
        .find(|(_, m)| m.name == "pyramid[5]")
        .map(|(h, _)| *h)
        .unwrap();
    assert!((s.world.body(top).unwrap().position().y - 2.5).abs() < 1e-6);
}

#[test]
fn the_documented_example_loads() {
    // docs/scenes.md shows every field in one example; it must stay a valid scene.
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/scenes.md"))
        .unwrap();
    let start = doc.find("```ron\n").expect("a ron block") + "```ron\n".len();
    let end = start + doc[start..].find("```").expect("end of block");
    let mut s =
        scene::load_str(&doc[start..end], "docs/scenes.md").unwrap_or_else(|e| panic!("{e}"));
    assert!(s.world.body_count() > 100);
    s.world.step(s.timestep);
}

mod fuzz {
    use impulse::scene;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 3000,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5CE4E),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Any edit of a real scene (characters deleted, replaced or inserted) loads or gives
        /// an error with a place or a body; it never panics.
        #[test]
        fn edited_scenes_never_panic(edits in prop::collection::vec((0usize..4000, 0u8..4, any::<char>()), 1..6)) {
            let mut text: Vec<char> = scene::DEFAULT_SCENE.chars().collect();
            for (at, kind, c) in edits {
                let at = at % (text.len() + 1);
                match kind {
                    0 if at < text.len() => { text.remove(at); }
                    1 if at < text.len() => text[at] = c,
                    2 => text.insert(at, c),
                    _ => text.insert(at, ['(', ')', '[', ']', ',', ':', '"', '-', '9', 'e'][at % 10]),
                }
            }
            let text: String = text.into_iter().collect();
            if let Err(e) = scene::load_str(&text, "fuzz.ron") {
                prop_assert!(e.to_string().starts_with("fuzz.ron"));
            }
        }
    }

    #[test]
    fn deep_nesting_and_huge_numbers_are_errors() {
        let deep = format!("Scene(bodies: [{}])", "(".repeat(5000));
        assert!(scene::load_str(&deep, "deep.ron").is_err());
        for text in [
            "Scene(generators: [Grid(counts: (4294967295, 4294967295, 4294967295), spacing: (1.0, 1.0, 1.0))])",
            "Scene(generators: [Stack(count: 4294967295)])",
            "Scene(bodies: [(colliders: [(shape: Sphere(radius: 1e38))])])",
            "Scene(bodies: [(position: (1e39, 0.0, 0.0))])",
            "Scene(settings: (substeps: 100000))",
            "Scene(bodies: [(colliders: [(shape: Hull(points: []))])])",
        ] {
            assert!(scene::load_str(text, "big.ron").is_err(), "{text}");
        }
    }
}

/// A jittered, limited grid (the benchmark piles): `limit` stops after that many bodies in
/// x, z, y order; each body moves by at most `jitter` per axis, the same offsets for the same
/// seed and other offsets for another seed.
#[test]
fn grid_limit_and_seeded_jitter() {
    let load = |seed: u64| {
        let text = format!(
            "Scene(generators: [Grid(counts: (3, 2, 3), spacing: (2.0, 2.0, 2.0), limit: Some(11), \
             jitter: (0.2, 0.0, 0.2), seed: {seed})])"
        );
        let s = scene::load_str(&text, "grid.ron").unwrap();
        let mut positions = Vec::new();
        for (h, m) in &s.meta {
            let i: usize = m.name["grid[".len()..m.name.len() - 1].parse().unwrap();
            positions.push((i, s.world.body(*h).unwrap().position()));
        }
        positions.sort_by_key(|p| p.0);
        positions
    };
    let a = load(7);
    assert_eq!(a.len(), 11);
    for &(i, p) in &a {
        // Body i sits at grid cell (i mod 3, i / 9, (i / 3) mod 3), spacing 2.
        let cell = glam::Vec3::new((i % 3) as f32, (i / 9) as f32, ((i / 3) % 3) as f32) * 2.0;
        let offset = p - cell;
        assert!(
            offset.x.abs() <= 0.2 && offset.z.abs() <= 0.2,
            "{i}: {offset}"
        );
        assert_eq!(offset.y, 0.0);
    }
    assert_eq!(a, load(7));
    let b = load(8);
    assert!(a.iter().zip(&b).all(|(p, q)| p.1 != q.1));
    let bad = scene::load_str(
        "Scene(generators: [Grid(counts: (1, 1, 1), spacing: (1.0, 1.0, 1.0), jitter: (-1.0, 0.0, 0.0))])",
        "bad.ron",
    );
    let message = bad.err().expect("a negative jitter is refused").to_string();
    assert!(message.contains("jitter x"), "{message}");
}

/// The benchmark scenes (`scenes/bench/`) are laid out as their comments say: pyramid row r
/// has base − r cubes at x = i − (base − r − 1)/2, y = 0.5 + r; pile body k sits within
/// 0.2 m (x, z) of ((k mod s − (s−1)/2)·1.5, 2 + 1.5·⌊k/s²⌋, (⌊k/s⌋ mod s − (s−1)/2)·1.5),
/// s = ⌈∛N⌉; plus the ground and, for piles, four walls.
#[test]
fn benchmark_scenes_match_their_layout() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/bench");
    let position_of = |s: &scene::Scene, name: &str| {
        let (h, _) = s.meta.iter().find(|(_, m)| m.name == name).unwrap();
        s.world.body(*h).unwrap().position()
    };
    for (file, base) in [("pyramid20", 20), ("pyramid40", 40), ("large_pyramid", 100)] {
        let s = scene::load_file(&dir.join(format!("{file}.ron"))).unwrap();
        assert_eq!(s.world.body_count(), 1 + base * (base + 1) / 2, "{file}");
        assert!(!s.world.settings().enable_sleeping, "{file}");
        let mut k = 0;
        for r in 0..base {
            for i in 0..base - r {
                let expected =
                    glam::Vec3::new(i as f32 - (base - r - 1) as f32 / 2.0, 0.5 + r as f32, 0.0);
                let p = position_of(&s, &format!("pyramid[{k}]"));
                assert!(
                    (p - expected).length() < 1e-5,
                    "{file} {k}: {p} vs {expected}"
                );
                k += 1;
            }
        }
    }
    for (file, n, sleeping) in [
        ("pile1000", 1000usize, false),
        ("pile4000", 4000, false),
        ("pile4000_sleep", 4000, true),
        ("spheres1000", 1000, false),
    ] {
        let s = scene::load_file(&dir.join(format!("{file}.ron"))).unwrap();
        assert_eq!(s.world.body_count(), n + 5, "{file}");
        assert_eq!(s.world.settings().enable_sleeping, sleeping, "{file}");
        let side = (1..).find(|s| s * s * s >= n).unwrap();
        let half = (side - 1) as f32 / 2.0;
        for k in 0..n {
            let cell = glam::Vec3::new(
                ((k % side) as f32 - half) * 1.5,
                2.0 + 1.5 * (k / (side * side)) as f32,
                (((k / side) % side) as f32 - half) * 1.5,
            );
            let offset = position_of(&s, &format!("grid[{k}]")) - cell;
            assert!(
                offset.x.abs() <= 0.2 && offset.z.abs() <= 0.2 && offset.y.abs() < 1e-5,
                "{file} {k}: {offset}"
            );
        }
    }
}

/// The first kinematic body of `s`, checked to turn at `turn` (rad/s).
fn kinematic_turning(s: &scene::Scene, turn: glam::Vec3) -> impulse::physics::BodyHandle {
    let (handle, body) = s
        .world
        .bodies()
        .find(|(_, b)| b.body_type() == impulse::physics::BodyType::Kinematic)
        .expect("a kinematic body");
    assert!((body.angular_velocity() - turn).length() < 1e-6);
    handle
}

/// Checks that every dynamic body of `s` stands on the grid from `origin` with `spacing` and
/// is one hull of `points` vertices at `radius` from its centre; returns how many there are
/// and the lowest one's height.
fn check_hull_grid(
    s: &scene::Scene,
    origin: glam::Vec3,
    spacing: f32,
    points: usize,
    radius: f32,
) -> (usize, f32) {
    let (mut count, mut lowest) = (0, f32::INFINITY);
    for (h, body) in s.world.bodies() {
        if body.body_type() != impulse::physics::BodyType::Dynamic {
            continue;
        }
        count += 1;
        let p = body.position();
        lowest = lowest.min(p.y);
        for (axis, start) in [(p.x, origin.x), (p.y, origin.y), (p.z, origin.z)] {
            let steps = (axis - start) / spacing;
            assert!(
                (steps - steps.round()).abs() < 1e-4,
                "{}: {p}",
                s.meta[&h].name
            );
        }
        let collider = s.world.body_colliders(h).next().unwrap();
        let Shape::ConvexHull(hull) = s.world.collider(collider).unwrap().shape() else {
            panic!("{} is not a hull", s.meta[&h].name);
        };
        assert_eq!(hull.vertices.len(), points);
        for v in &hull.vertices {
            assert!(
                (v.length() - radius).abs() < 1e-3,
                "a vertex {} from the centre",
                v.length()
            );
        }
    }
    (count, lowest)
}

/// The scenes of Box3D's benchmark layouts: `many_pyramids` is 14 × 14 wall
/// pyramids of base 10 (55 unit cubes each), 11 m apart in x and 11.69 m in z, on a ground
/// box 77 × 1 × 77 (half extents) whose top is y = 0; `convex_pile` is an 8 × 80 × 8 grid of
/// one hull of 32 points on a sphere of radius 2, 4 m apart from y = 2; `joint_grid` is a
/// 100 × 100 wall of jointed spheres; `washer` 8000 cubes in a turning drum; `junkyard`
/// 10 584 hull rocks and a sweeping cylinder. All sleep never.
#[test]
fn box3d_benchmark_scenes_match_their_layout() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/bench");
    let s = scene::load_file(&dir.join("many_pyramids.ron")).unwrap();
    assert_eq!(s.world.body_count(), 1 + 14 * 14 * 55);
    assert!(!s.world.settings().enable_sleeping);
    let mut bottom_left: Vec<glam::Vec3> = s
        .world
        .bodies()
        .filter(|(h, _)| s.meta[h].name.ends_with("[0]"))
        .map(|(_, b)| b.position())
        .collect();
    bottom_left.sort_by(|a, b| (a.z, a.x).partial_cmp(&(b.z, b.x)).unwrap());
    assert_eq!(bottom_left.len(), 196);
    for (k, p) in bottom_left.iter().enumerate() {
        // The first cube of each pyramid: 4.5 m left of its centre, resting on y = 0.
        let (i, j) = ((k % 14) as f32, (k / 14) as f32);
        let expected = glam::Vec3::new((i - 6.5) * 11.0 - 4.5, 0.5, (j - 6.5) * 11.69);
        assert!(
            (*p - expected).length() < 1e-3,
            "pyramid {k}: {p} vs {expected}"
        );
    }
    let s = scene::load_file(&dir.join("convex_pile.ron")).unwrap();
    assert_eq!(s.world.body_count(), 1 + 8 * 80 * 8);
    assert!(!s.world.settings().enable_sleeping);
    let (count, lowest) = check_hull_grid(&s, glam::Vec3::new(-14.0, 2.0, -14.0), 4.0, 32, 2.0);
    assert_eq!(count, 8 * 80 * 8);
    assert_eq!(lowest, 2.0);

    // joint_grid: 100 × 100 spheres of radius 0.4, 1 m apart in the x–y plane, the top row
    // static; a ball joint from each sphere below the top row to the one above, and to the
    // one on its left: 99·100 + 99·99 joints, each at the midpoint of its two spheres.
    let s = scene::load_file(&dir.join("joint_grid.ron")).unwrap();
    assert_eq!(s.world.body_count(), 100 * 100);
    assert!(!s.world.settings().enable_sleeping);
    let statics = s
        .world
        .bodies()
        .filter(|(_, b)| b.body_type() == impulse::physics::BodyType::Static)
        .inspect(|(_, b)| assert_eq!(b.position().y, 0.0))
        .count();
    assert_eq!(statics, 100);
    assert_eq!(s.world.joints().count(), 99 * 100 + 99 * 99);
    for (h, _) in s.world.joints() {
        let (a, b) = s.world.joint_anchors(h).unwrap();
        assert!((a - b).length() < 1e-6);
        let joint = s.world.joint(h).unwrap().def();
        let pa = s.world.body(joint.body_a).unwrap().position();
        let pb = s.world.body(joint.body_b.unwrap()).unwrap().position();
        assert!(((pa - pb).length() - 1.0).abs() < 1e-5);
        assert!((a - 0.5 * (pa + pb)).length() < 1e-5);
    }

    // washer: 8000 cubes of half extent 0.2 on a 0.8 m grid centred on the drum's axis, in
    // a kinematic drum turning at 25°/s about z: 36 ring segments, 4 paddles and its ends
    // (a back disc and 36 front ring segments), every hull point within radius 18 and
    // 10.5 m of the middle.
    let s = scene::load_file(&dir.join("driven/washer.ron")).unwrap();
    assert_eq!(s.world.body_count(), 1 + 8000);
    assert!(!s.world.settings().enable_sleeping);
    let drum = kinematic_turning(&s, glam::Vec3::new(0.0, 0.0, 25f32.to_radians()));
    assert_eq!(s.world.body_colliders(drum).count(), 36 + 4 + 1 + 36);
    for c in s.world.body_colliders(drum) {
        let Shape::ConvexHull(hull) = s.world.collider(c).unwrap().shape() else {
            panic!("a drum part is not a hull");
        };
        for v in &hull.vertices {
            assert!(v.truncate().length() <= 18.0 + 1e-3 && v.z.abs() <= 10.5 + 1e-4);
        }
    }
    for (_, b) in s.world.bodies().filter(|(h, _)| *h != drum) {
        let p = b.position();
        for axis in [p.x, p.y, p.z] {
            let steps = (axis + 7.6) / 0.8;
            assert!((steps - steps.round()).abs() < 1e-4 && (-0.01..19.01).contains(&steps));
        }
    }

    // junkyard: 21 × 24 × 21 copies of a hull of 10 points at radius 1.5 on a 4 m grid from
    // (−40, 2, −40), a ground, four walls, and a kinematic arm turning at 6°/s about y whose
    // cylinder stands 35 m out.
    let s = scene::load_file(&dir.join("driven/junkyard.ron")).unwrap();
    assert_eq!(s.world.body_count(), 1 + 4 + 1 + 21 * 24 * 21);
    assert!(!s.world.settings().enable_sleeping);
    let arm = kinematic_turning(&s, glam::Vec3::new(0.0, 6f32.to_radians(), 0.0));
    let cylinder = s.world.body_colliders(arm).next().unwrap();
    let aabb = s.world.collider(cylinder).unwrap().aabb();
    assert!((0.5 * (aabb.min + aabb.max) - glam::Vec3::new(35.0, 10.0, 0.0)).length() < 0.5);
    let (rocks, _) = check_hull_grid(&s, glam::Vec3::new(-40.0, 2.0, -40.0), 4.0, 10, 1.5);
    assert_eq!(rocks, 21 * 24 * 21);
}

/// A quaternion of any finite size is the rotation it points at: (1e20, 0, 0, 1e20) is a
/// quarter turn about x (its squared length alone overflows to infinity), and the body stays
/// finite when stepped.
#[test]
fn a_huge_quaternion_is_the_rotation_it_means() {
    let text = "Scene(bodies: [(name: \"q\", rotation: Quat(1e20, 0.0, 0.0, 1e20), \
                colliders: [(shape: Cuboid(half_extents: (1.0, 0.5, 0.25)))])])";
    let mut scene = impulse::scene::load_str(text, "q.ron").unwrap();
    let (_, body) = scene.world.bodies().next().unwrap();
    let expected = impulse::physics::Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    assert!(
        body.rotation().abs_diff_eq(expected, 1e-6),
        "{}",
        body.rotation()
    );
    for _ in 0..60 {
        scene.world.step(scene.timestep);
    }
    let (_, body) = scene.world.bodies().next().unwrap();
    assert!(body.position().is_finite() && body.rotation().is_finite());
    // Free fall for 1 s from rest: y = −g t²/2 (semi-implicit Euler adds g·dt²/2·… at most
    // one step's worth: 9.81/60 m).
    assert!(
        (body.position().y + 0.5 * 9.81).abs() < 9.81 / 60.0,
        "{}",
        body.position()
    );
}

/// The `Ragdolls` generator builds the shipped ragdoll (`scenes/ragdoll.ron`'s first one,
/// upright in T-pose) once per grid place: the same parts at the same places relative to the
/// pelvis, the same masses and ten joints each; every other ragdoll is turned a quarter turn
/// about y, its arms along z; spacing closer than the ragdolls' width is refused.
#[test]
fn ragdolls_are_the_shipped_ragdoll_on_a_grid() {
    let shipped =
        scene::load_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/ragdoll.ron"))
            .unwrap();
    let part = |s: &scene::Scene, name: &str| {
        let (h, _) = s.meta.iter().find(|(_, m)| m.name == name).unwrap();
        let b = s.world.body(*h).unwrap();
        (b.position(), b.mass())
    };
    let parts = [
        "pelvis",
        "torso",
        "head",
        "thigh left",
        "shin left",
        "upper arm left",
        "forearm left",
        "thigh right",
        "shin right",
        "upper arm right",
        "forearm right",
    ];
    let s = scene::load_str(
        "Scene(generators: [Ragdolls(counts: (2, 1, 1), spacing: (2.0, 2.2, 2.0), origin: (1.0, 0.0, 0.0))])",
        "ragdolls.ron",
    )
    .unwrap();
    assert_eq!(s.world.body_count(), 22);
    assert_eq!(s.world.joints().count(), 20);
    let (pelvis, _) = part(&shipped, "A pelvis");
    let (first, _) = part(&s, "ragdoll[0]");
    // The feet of the first ragdoll are at the origin, its pelvis 1 m above them.
    assert!(
        (first - Vec3::new(1.0, 1.0, 0.0)).length() < 1e-6,
        "{first}"
    );
    for (k, name) in parts.iter().enumerate() {
        let (at, mass) = part(&shipped, &format!("A {name}"));
        let (made, made_mass) = part(&s, &format!("ragdoll[{k}]"));
        assert!(
            ((made - first) - (at - pelvis)).length() < 1e-5,
            "{name}: {} against {}",
            made - first,
            at - pelvis
        );
        assert!(
            (made_mass - mass).abs() <= 1e-6 * mass,
            "{name}: {made_mass} kg against {mass} kg"
        );
        // The second ragdoll, 2 m along x, is turned a quarter turn about +y: (x, z) → (z, −x).
        let (turned, _) = part(&s, &format!("ragdoll[{}]", 11 + k));
        let offset = at - pelvis;
        let expected = Vec3::new(offset.z, offset.y, -offset.x);
        assert!(
            ((turned - first - Vec3::new(2.0, 0.0, 0.0)) - expected).length() < 1e-5,
            "{name} turned: {}",
            turned - first
        );
    }
    let Err(error) = scene::load_str(
        "Scene(generators: [Ragdolls(counts: (2, 1, 1), spacing: (0.9, 2.2, 2.0))])",
        "close.ron",
    ) else {
        panic!("ragdolls 0.9 m apart loaded");
    };
    let error = error.to_string();
    assert!(error.contains("spacing.x"), "{error}");
}
