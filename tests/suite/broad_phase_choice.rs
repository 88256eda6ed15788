//! The simulation does not depend on the broad phase: the same scene run with each of the four
//! gives byte-identical state dumps, switching in the middle of a run changes nothing, and the
//! scene syntax round-trips through save. (`broad_phase.rs` checks the pair sets themselves
//! against brute force.)

use impulse::headless::state_value;
use impulse::physics::BroadPhaseKind;
use impulse::scene::{load_str, save};

/// A pile of mixed shapes falling into a walled box on a plane, with a fast ball thrown across
/// and sleeping off, so pairs keep appearing and disappearing for the whole run.
const SCENE: &str = r#"Scene(
    settings: (sleeping: false),
    bodies: [
        (name: "floor", kind: Static, colliders: [(shape: Plane(normal: (0.0, 1.0, 0.0)))]),
        (name: "wall +x", kind: Static, position: (4.5, 2.0, 0.0),
         colliders: [(shape: Cuboid(half_extents: (0.5, 2.0, 5.0)))]),
        (name: "wall -x", kind: Static, position: (-4.5, 2.0, 0.0),
         colliders: [(shape: Cuboid(half_extents: (0.5, 2.0, 5.0)))]),
        (name: "wall +z", kind: Static, position: (0.0, 2.0, 4.5),
         colliders: [(shape: Cuboid(half_extents: (4.0, 2.0, 0.5)))]),
        (name: "wall -z", kind: Static, position: (0.0, 2.0, -4.5),
         colliders: [(shape: Cuboid(half_extents: (4.0, 2.0, 0.5)))]),
        (name: "ball", position: (-3.0, 6.0, 0.0), linear_velocity: (8.0, 0.0, 1.0),
         colliders: [(shape: Sphere(radius: 0.3))]),
    ],
    generators: [
        Grid(counts: (5, 3, 5), spacing: (1.3, 1.3, 1.3), origin: (-2.6, 1.0, -2.6),
             shape: Cuboid(half_extents: (0.4, 0.4, 0.4)), jitter: (0.2, 0.0, 0.2), seed: 1),
        Grid(counts: (5, 2, 5), spacing: (1.3, 1.3, 1.3), origin: (-2.6, 5.0, -2.6),
             shape: Sphere(radius: 0.45), jitter: (0.2, 0.0, 0.2), seed: 2),
        Grid(counts: (4, 2, 4), spacing: (1.5, 1.5, 1.5), origin: (-2.25, 8.0, -2.25),
             shape: Capsule(half_height: 0.3, radius: 0.3), jitter: (0.2, 0.0, 0.2), seed: 3),
    ],
)"#;

const STEPS: u32 = 240;

/// Every kind, with parameters that make the quadtree split deep and the grid fine.
fn kinds() -> [BroadPhaseKind; 6] {
    [
        BroadPhaseKind::DynamicTree,
        BroadPhaseKind::BruteForce,
        BroadPhaseKind::QUADTREE,
        BroadPhaseKind::Quadtree {
            max_depth: 6,
            capacity: 1,
        },
        BroadPhaseKind::GRID,
        BroadPhaseKind::Grid {
            cell_size: Some(0.7),
        },
    ]
}

/// Runs the scene with `kind` (switching to `later` at step `switch_at` if given) and returns
/// the JSON dump of the final state.
fn run(kind: BroadPhaseKind, later: Option<(u32, BroadPhaseKind)>) -> String {
    let mut scene = load_str(SCENE, "pile.ron").expect("the test scene loads");
    scene.world.set_broad_phase(kind).expect("valid kind");
    for step in 0..STEPS {
        if let Some((at, next)) = later {
            if step == at {
                scene.world.set_broad_phase(next).expect("valid kind");
            }
        }
        scene.world.step(scene.timestep);
        scene.world.broad_phase().validate().unwrap();
    }
    assert!(
        scene.world.counters().pairs > 100,
        "the scene must keep many pairs"
    );
    state_value(&scene.world, &scene.meta).to_string()
}

#[test]
fn every_broad_phase_gives_byte_identical_dumps() {
    let reference = run(BroadPhaseKind::DynamicTree, None);
    for kind in kinds() {
        let dump = run(kind, None);
        assert!(dump == reference, "{kind:?} changed the simulation");
    }
}

#[test]
fn switching_broad_phase_mid_run_changes_nothing() {
    let reference = run(BroadPhaseKind::DynamicTree, None);
    let kinds = kinds();
    for (i, &kind) in kinds.iter().enumerate() {
        let next = kinds[(i + 2) % kinds.len()];
        let dump = run(kind, Some((STEPS / 2, next)));
        assert!(
            dump == reference,
            "{kind:?} then {next:?} changed the simulation"
        );
    }
}

#[test]
fn broad_phase_parameters_round_trip_and_bad_ones_name_the_field() {
    for kind in kinds() {
        let mut scene = load_str(SCENE, "pile.ron").unwrap();
        scene.world.set_broad_phase(kind).unwrap();
        let file = save::to_scene_file(&scene.world, &scene.meta, &scene.camera, scene.timestep);
        let text = save::to_ron(&file, "round trip").expect("saves");
        let again = load_str(&text, "saved.ron").expect("the saved scene loads");
        assert_eq!(again.world.settings().broad_phase, kind);
    }
    let with = |bp: &str| SCENE.replace("sleeping: false", &format!("broad_phase: {bp}"));
    let cases = [
        (
            "Quadtree(max_depth: 13)",
            "max_depth must be between 0 and 12",
        ),
        (
            "Quadtree(capacity: 0)",
            "capacity must be between 1 and 1024",
        ),
        (
            "Grid(cell_size: -1.0)",
            "cell_size must be between 0.01 and 10000 m",
        ),
        ("Grid(size: 1.0)", "unexpected field named `size`"),
        ("Octree", "unexpected variant named `Octree`"),
    ];
    for (bp, expected) in cases {
        let err = load_str(&with(bp), "bad.ron")
            .err()
            .expect("refused")
            .to_string();
        assert!(err.contains(expected), "{bp}: {err}");
        assert!(err.starts_with("bad.ron:"), "{bp}: {err}");
    }
    // The bare names take the defaults.
    let bare = load_str(&with("Quadtree"), "q.ron").unwrap();
    assert_eq!(bare.world.settings().broad_phase, BroadPhaseKind::QUADTREE);
    let bare = load_str(&with("Grid"), "g.ron").unwrap();
    assert_eq!(bare.world.settings().broad_phase, BroadPhaseKind::GRID);
}
