//! The real binary: malformed and invalid scenes give exit status 2 and a clear message on
//! stderr, never a panic; headless runs are deterministic.

use std::path::PathBuf;
use std::process::{Command, Output};

fn impulse(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_impulse"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run impulse")
}

/// A fresh temporary directory for this test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("impulse-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const BALL: &str = "colliders: [(shape: Sphere(radius: 0.5))]";

#[test]
fn bad_scenes_exit_2_with_a_message() {
    let dir = temp_dir("bad");
    // (scene text, what stderr must contain)
    let cases: Vec<(String, &str)> = vec![
        ("Scene(\n    bodies: [\n        (position: (1.0, 2.0, 3.0),\n    ],\n)".into(), "bad.ron:4:"),
        ("Scene(bodiez: [])".into(), "bodiez"),
        ("Scene(settings: (gravity: \"down\"))".into(), "bad.ron:1:"),
        ("Scene(bodies: [(name: \"ball\", colors: (1.0, 0.0, 0.0))])".into(), "colors"),
        ("Scene(bodies: [(name: \"tiny\", colliders: [(shape: Sphere(radius: 0.0))])])".into(), "body \"tiny\": collider 0: Sphere radius must be between 0.0001 and 10000 m, got 0"),
        ("Scene(bodies: [(colliders: [(shape: Cuboid(half_extents: (1.0, -1.0, 1.0)))])])".into(), "bodies[0]: collider 0: Cuboid half_extents.y must be between 0.0001 and 10000 m, got -1"),
        (format!("Scene(bodies: [(name: \"heavy\", {BALL}), (name: \"lead\", colliders: [(shape: Sphere(radius: 1.0), density: -2.0)])])"), "body \"lead\": collider 0: density must be 0 or more, got -2"),
        ("Scene(bodies: [(name: \"far\", position: (inf, 0.0, 0.0))])".into(), "body \"far\": position must be finite"),
        ("Scene(bodies: [(name: \"nan\", linear_velocity: (0.0, NaN, 0.0))])".into(), "body \"nan\": linear_velocity must be finite"),
        ("Scene(bodies: [(name: \"slick\", colliders: [(shape: Sphere(radius: 1.0), friction: -0.1)])])".into(), "body \"slick\": collider 0: friction must be 0 or more"),
        ("Scene(bodies: [(name: \"super ball\", colliders: [(shape: Sphere(radius: 1.0), restitution: 1.5)])])".into(), "restitution must be between 0 and 1, got 1.5"),
        (format!("Scene(bodies: [(name: \"twin\", {BALL}), (name: \"twin\", {BALL})])"), "body name \"twin\" is used twice"),
        ("Scene(materials: {\"wood\": ()}, bodies: [(name: \"b\", colliders: [(shape: Sphere(radius: 1.0), material: \"steel\")])])".into(), "material \"steel\" is not defined (known: \"wood\")"),
        ("Scene(bodies: [(name: \"flat\", colliders: [(shape: Hull(points: [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (1.0, 1.0, 0.0)]))])])".into(), "body \"flat\": collider 0: Hull points: a convex hull needs"),
        ("Scene(bodies: [(name: \"three\", colliders: [(shape: Hull(points: [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]))])])".into(), "body \"three\": collider 0: Hull points"),
        ("Scene(bodies: [(name: \"floor\", colliders: [(shape: Plane(normal: (0.0, 1.0, 0.0)))])])".into(), "a Plane can only belong to a Static body"),
        ("Scene(settings: (timestep: 0.0))".into(), "settings.timestep must be greater than 0"),
        ("Scene(generators: [Pyramid(base: 100000)])".into(), "at most 100000"),
        ("Scene(bodies: [(rotation: Quat(0.0, 0.0, 0.0, 0.0))])".into(), "bodies[0]: rotation must be a finite non-zero quaternion"),
        ("".into(), "bad.ron"),
        // Inputs that each once panicked, hung or were accepted.
        ("Scene(bodies:[(name:\"p\",colliders:[(shape:Pyramid(half_base:1000.0,height:0.001))])])".into(), "body \"p\": collider 0: Pyramid is too flat"),
        ("Scene(bodies:[(name:\"p\",colliders:[(shape:Prism(half_width:1000.0,height:0.001,half_depth:1000.0))])])".into(), "body \"p\": collider 0: Prism is too flat"),
        ("Scene(generators:[Stack(count: 3, shape: Pyramid(half_base:1000.0,height:0.001))])".into(), "generators[0] (stack): Pyramid is too flat"),
        ("Scene(bodies:[(name:\"d\",colliders:[(shape:Sphere(radius:1.0), density: 1e-40)])])".into(), "body \"d\": collider 0: density 1e-40 gives a mass of"),
        ("Scene(\n  materials: {\n    \"ice\": (friction: 0.0),\n    \"ice\": (friction: 1.0),\n  },\n)".into(), "bad.ron:4:"),
        ("Scene(materials: {\"ice\": (), \"ice\": ()})".into(), "material \"ice\" is defined twice"),
        ("Scene(generators:[Grid(counts: (5000, 1, 1), spacing: (0.0, 0.0, 0.0), shape: Cuboid(half_extents:(0.5,0.5,0.5)))])".into(), "spacing.x is 0 m but the shape is 1 m wide along x"),
        ("Scene(generators:[Stack(count: 3, shape: Sphere(radius: 0.5), gap: -1.0)])".into(), "generators[0] (stack): gap must be 0 or more, got -1"),
        ("Scene(bodies:[(name:\"s\",colliders:[(shape:Sphere(radius:20000.0))])])".into(), "body \"s\": collider 0: Sphere radius must be between 0.0001 and 10000 m, got 20000"),
        ("Scene(bodies:[(name:\"far\",position:(200000.0, 0.0, 0.0))])".into(), "body \"far\": position.x is 200000 m; at most 100000 m"),
        ("Scene(bodies:[(name:\"fast\",linear_velocity:(500.0, 0.0, 0.0))])".into(), "body \"fast\": linear_velocity is 500 m/s; at most 400 m/s"),
        ("Scene(bodies:[(name:\"spin\",angular_velocity:(0.0, 1000.0, 0.0))])".into(), "body \"spin\": angular_velocity is 1000 rad/s; at most 188.4"),
        ("Scene(settings: (substeps: 0))".into(), "settings.substeps must be between 1 and 64, got 0"),
        // A collider or an anchor as far out as a body may be: limited like a shape's size.
        ("Scene(bodies:[(name:\"b\",colliders:[(shape:Sphere(radius:0.5)),(shape:Sphere(radius:0.5),position:(1e30,0.0,0.0))])])".into(), "body \"b\": collider 1: position.x is 1e30 m; a collider may sit at most 10000 m from its body's origin"),
        ("Scene(bodies:[(name:\"b\",colliders:[(shape:Sphere(radius:0.5),position:(0.0,-1e6,0.0))])])".into(), "position.y is -1000000 m; a collider may sit at most 10000 m"),
        (format!("Scene(bodies:[(name:\"a\",{BALL}),(name:\"b\",{BALL})],joints:[Spherical(a:\"a\",b:\"b\",anchor:(0.0,2e4,0.0))])"), "joints[0]: anchor_a.y is 20000 m; a joint's anchor may sit at most 10000 m from its body's origin"),
        (format!("Scene(bodies:[(name:\"a\",{BALL})],joints:[Distance(a:\"a\",anchor_a:(0.0,0.0,0.0),anchor_b:(3e5,0.0,0.0),min:0.0,max:1.0)])"), "joints[0]: anchor_b.x is 300000 m; a world anchor may sit at most 100000 m from the origin"),
        ("Scene(bodies:[(colliders:[(shape:Torus(radius:1.0))])])".into(), "variant named `Torus` in enum `ShapeDesc`"),
    ];
    for (i, (text, expected)) in cases.iter().enumerate() {
        let path = dir.join("bad.ron");
        std::fs::write(&path, text).unwrap();
        let out = impulse(&["run", path.to_str().unwrap(), "--steps", "1"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "case {i}: exit status for {text:?}; stderr: {stderr}"
        );
        assert!(
            stderr.contains(expected),
            "case {i}: stderr {stderr:?} lacks {expected:?}"
        );
        assert!(!stderr.contains("panicked"), "case {i} panicked: {stderr}");
        // The message starts with the file name so editors can jump to it.
        assert!(
            stderr.contains(path.to_str().unwrap()),
            "case {i}: no file name in {stderr:?}"
        );
    }
}

#[test]
fn bodies_inside_each_other_hit_the_contact_cap_with_a_warning() {
    let dir = temp_dir("cap");
    let path = dir.join("heap.ron");
    // 40 coincident boxes: 780 pairs; a cap of 8 leaves all but 4 cliques of 9 (4 · 36 = 144
    // contacts) and one body of 4 more (6), so 780 - 150 = 630 pairs wait on the first step.
    let boxes = vec![
            "(position: (0.0, 2.0, 0.0), colliders: [(shape: Box(half_extents: (0.5, 0.5, 0.5)))])";
            40
        ];
    let text = format!(
        "Scene(settings: (max_contacts_per_body: 8), bodies: [{}])",
        boxes.join(", ")
    );
    std::fs::write(&path, text).unwrap();
    let out = impulse(&["run", path.to_str().unwrap(), "--steps", "5"]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "up to 630 overlapping pairs of dynamic bodies got no contact (first at step 1)"
        ) && stderr.contains("settings.max_contacts_per_body = 8"),
        "{stderr}"
    );
    // A scene without overlaps says nothing of the kind.
    let out = impulse(&["run", "scenes/pyramid.ron", "--steps", "5"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("max_contacts_per_body"));
}

#[test]
fn missing_file_and_bad_usage_exit_2() {
    let out = impulse(&["run", "no/such/scene.ron", "--steps", "5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no/such/scene.ron: cannot read the file")
    );
    // --steps is required.
    let out = impulse(&["run", "scenes/pyramid.ron"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--steps"));
    let out = impulse(&[
        "run",
        "scenes/pyramid.ron",
        "--steps",
        "5",
        "--dump-every",
        "0",
        "--dump",
        "/dev/null",
    ]);
    assert_eq!(out.status.code(), Some(2));
    // A sample count the window cannot have is refused before any window opens (a build
    // without the window refuses every window option with its own message).
    if cfg!(feature = "app") {
        let out = impulse(&["scenes/pyramid.ron", "--msaa", "3", "--frames", "1"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr)
            .contains("--msaa: samples per pixel must be 1 (off), 2, 4 or 8, got 3"));
    }
    let out = impulse(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Examples:"));
}

#[test]
fn two_runs_of_the_pyramid_give_identical_dumps() {
    let dir = temp_dir("determinism");
    let (a, b) = (dir.join("a.json"), dir.join("b.json"));
    for path in [&a, &b] {
        let out = impulse(&[
            "run",
            "scenes/pyramid.ron",
            "--steps",
            "300",
            "--dump",
            path.to_str().unwrap(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (ta, tb) = (
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap(),
    );
    assert_eq!(ta, tb);
    let json: serde_json::Value = serde_json::from_str(&ta).unwrap();
    assert_eq!(json["steps"], 300);
    assert_eq!(json["bodies"].as_array().unwrap().len(), 211);
    assert_eq!(json["bodies"][1]["name"], "pyramid[0]");
    for key in [
        "position",
        "rotation",
        "linear_velocity",
        "angular_velocity",
        "sleeping",
    ] {
        assert!(!json["bodies"][1][key].is_null(), "missing {key}");
    }
    assert!(json["contact_points"].as_u64().unwrap() > 0);
    assert!(json["kinetic_energy"].as_f64().is_some());
}

#[test]
fn dump_every_writes_one_line_per_k_steps() {
    let dir = temp_dir("every");
    let path = dir.join("trace.jsonl");
    let out = impulse(&[
        "run",
        "scenes/bounce.ron",
        "--steps",
        "100",
        "--dump",
        path.to_str().unwrap(),
        "--dump-every",
        "10",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(lines.len(), 10);
    let last: serde_json::Value = serde_json::from_str(lines[9]).unwrap();
    assert_eq!(last["steps"], 100);
    // The summary line names the scene and the step count.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("scenes/bounce.ron: 100 steps"), "{stdout}");
}

/// `bench --csv` appends one row per run under one header: the scene's name, its bodies,
/// the worker count each run had, and the same mean the JSON report gives.
#[test]
fn bench_appends_a_csv_row_per_worker_count() {
    let dir = temp_dir("bench-csv");
    let csv = dir.join("threads.csv");
    let mut means = Vec::new();
    for threads in ["1", "2"] {
        let out = impulse(&[
            "bench",
            "scenes/stack.ron",
            "--steps",
            "10",
            "--threads",
            threads,
            "--csv",
            csv.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        means.push(json["step_ms"]["mean"].as_f64().unwrap());
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(lines.len(), 3, "{text}");
    let header = &lines[0];
    assert_eq!(header[..3], ["scene", "bodies", "workers"]);
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for (row, (workers, mean)) in lines[1..].iter().zip([(1, means[0]), (2, means[1])]) {
        assert_eq!(row.len(), header.len());
        assert_eq!(row[0], "stack");
        assert_eq!(row[1], "21");
        assert_eq!(row[column("workers")], workers.to_string());
        assert_eq!(row[column("steps")], "10");
        let csv_mean: f64 = row[column("mean_ms")].parse().unwrap();
        assert!((csv_mean - mean).abs() < 1e-4, "{csv_mean} against {mean}");
    }
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn bench_and_stress_report() {
    let out = impulse(&[
        "bench",
        "scenes/stack.ron",
        "--steps",
        "20",
        "--warmup",
        "5",
        "--threads",
        "3",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["bodies"], 21);
    assert_eq!(json["workers"], 3, "--threads sets the worker count");
    // The body count never changes, so its mean over the steps is exactly 21 (integer sums
    // divided once, not 21/20 added twenty times).
    assert_eq!(json["counter_means"]["bodies"].as_f64(), Some(21.0));
    let step = &json["step_ms"];
    let (mean, median, p95, max) = (
        step["mean"].as_f64().unwrap(),
        step["median"].as_f64().unwrap(),
        step["p95"].as_f64().unwrap(),
        step["max"].as_f64().unwrap(),
    );
    assert!(median <= p95 && p95 <= max && mean <= max && mean > 0.0);
    for phase in [
        "broad_phase",
        "narrow_phase",
        "solver",
        "integration",
        "islands",
        "continuous",
    ] {
        assert!(
            json["phase_mean_ms"][phase].as_f64().is_some(),
            "missing {phase}"
        );
    }
    // A tiny budget stops the stress test after the first 30-step window.
    let dir = temp_dir("stress");
    let csv = dir.join("stress.csv");
    let out = impulse(&[
        "stress",
        "--budget-ms",
        "0.000001",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    // 5 walls/floor + 4 bodies per step × 30 steps.
    assert!(
        stdout.contains("reached 125 bodies after 30 steps"),
        "{stdout}"
    );
    let rows = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(rows.lines().count(), 31);
    assert!(rows.starts_with("step,bodies,step_ms"));
}

/// `bench --broad-phase` times the scene with another broad phase (same counters but for the
/// broad phase's own box tests) and refuses an unknown one with the accepted values.
#[test]
fn bench_with_another_broad_phase() {
    let bench = |kind: &str| {
        let out = impulse(&[
            "bench",
            "scenes/bench/pile1000.ron",
            "--warmup",
            "60",
            "--steps",
            "10",
            "--broad-phase",
            kind,
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let tree = bench("tree");
    assert_eq!(tree["broad_phase"], "DynamicTree");
    // After a second of falling the cubes have landed: many pairs to agree on.
    assert!(tree["counter_means"]["contact_points"].as_f64().unwrap() > 1000.0);
    for (kind, name) in [
        ("quadtree", "Quadtree { max_depth: 8, capacity: 8 }"),
        ("Grid(cell_size: 3.0)", "Grid { cell_size: Some(3.0) }"),
        ("brute", "BruteForce"),
    ] {
        let json = bench(kind);
        assert_eq!(json["broad_phase"], name);
        // The same pairs and contacts on every step: the broad phase changes no result.
        for counter in ["pairs", "contact_points", "manifolds"] {
            assert_eq!(
                json["counter_means"][counter], tree["counter_means"][counter],
                "{kind}: {counter}"
            );
        }
    }
    let out = impulse(&[
        "bench",
        "scenes/stack.ron",
        "--steps",
        "1",
        "--broad-phase",
        "octree",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("expected tree, brute, quadtree, grid"),
        "{err}"
    );
}

/// `--hash` prints the final state's hash: equal for two runs, different after one more step
/// (a hash that ignored the state would print the same for both).
#[test]
fn run_hash_is_repeatable_and_follows_the_state() {
    let hash = |steps: &str| {
        let out = impulse(&["run", "scenes/pyramid.ron", "--steps", steps, "--hash"]);
        assert_eq!(out.status.code(), Some(0));
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let line = stdout
            .lines()
            .find(|l| l.starts_with("state hash: "))
            .unwrap_or_else(|| panic!("no hash in {stdout}"))
            .to_string();
        assert_eq!(line.len(), "state hash: ".len() + 16, "{line}");
        line
    };
    assert_eq!(hash("60"), hash("60"));
    assert_ne!(hash("60"), hash("61"));
}

#[test]
fn run_writes_the_sensor_scenes_events_as_json_lines() {
    // scenes/sensors.ron: five balls roll through the trigger gate into the pickup zone, two
    // strays fall beside the ramp. Every ball enters the gate, leaves it, then enters the
    // zone, in that order; the strays meet no sensor; the sensors push nothing, so no
    // contact event names one.
    let dir = temp_dir("events");
    let events = dir.join("events.jsonl");
    let out = impulse(&[
        "run",
        "scenes/sensors.ron",
        "--steps",
        "600",
        "--events",
        events.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&events).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let field = |v: &serde_json::Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
    let step_of = |kind: &str, sensor: &str, ball: &str| -> Vec<u64> {
        lines
            .iter()
            .filter(|v| {
                field(v, "kind") == kind && field(v, "a") == sensor && field(v, "b") == ball
            })
            .map(|v| v["step"].as_u64().unwrap())
            .collect()
    };
    for i in 1..=5 {
        let ball = format!("ball {i}");
        let (enter, leave) = (
            step_of("sensor_begin", "trigger", &ball),
            step_of("sensor_end", "trigger", &ball),
        );
        let zone = step_of("sensor_begin", "pickup zone", &ball);
        assert_eq!(
            (enter.len(), leave.len(), zone.len()),
            (1, 1, 1),
            "{ball}: {text}"
        );
        assert!(enter[0] < leave[0] && leave[0] < zone[0], "{ball}: {text}");
    }
    for v in &lines {
        let kind = field(v, "kind");
        let names = [field(v, "a"), field(v, "b")];
        assert!(
            !names.iter().any(|n| n.starts_with("stray")) || kind.starts_with("contact"),
            "{v}"
        );
        if kind.starts_with("contact") {
            assert!(
                !names.iter().any(|n| n == "trigger" || n == "pickup zone"),
                "{v}"
            );
        }
        if kind == "contact_begin" {
            assert!(v["approach_speed"].as_f64().is_some(), "{v}");
        }
    }
}

#[test]
fn a_worker_count_out_of_range_is_refused_by_name() {
    let out = impulse(&["run", "scenes/stack.ron", "--steps", "1", "--threads", "0"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--threads") && err.contains("1 to 256"),
        "{err}"
    );
}

#[test]
fn run_save_writes_a_scene_that_continues_from_the_same_state() {
    // `impulse run --save` is the window's Save as, headless: after 60 steps of the door
    // (a motorised hinge with limits), the saved scene's state hash at its first step is the
    // one the run printed, and it keeps the file's description.
    let dir = temp_dir("save");
    let saved = dir.join("door-60.ron");
    let out = impulse(&[
        "run",
        "scenes/door.ron",
        "--steps",
        "60",
        "--hash",
        "--save",
        saved.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let hash = |out: &Output| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find(|l| l.starts_with("state hash"))
            .expect("a hash")
            .to_string()
    };
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(text.starts_with("// A motorised door"), "{}", &text[..80]);
    assert!(
        text.contains("at step 60 (t = 1.000 s)"),
        "the note says when"
    );
    let again = impulse(&["run", saved.to_str().unwrap(), "--steps", "0", "--hash"]);
    assert!(again.status.success(), "{again:?}");
    assert_eq!(hash(&out), hash(&again));
    // A folder that does not exist is refused before the run, as --dump's is.
    let bad = impulse(&[
        "run",
        "scenes/door.ron",
        "--steps",
        "1",
        "--save",
        dir.join("no/such/folder.ron").to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(1), "{bad:?}");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("cannot create the file"));
}
