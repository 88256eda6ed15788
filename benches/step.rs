//! `cargo bench`: time steps of the shipped scenes (release build). A plain harness: prints
//! milliseconds per step; `impulse bench` gives the full statistics for one scene. Then the
//! stability benchmark: the base-100 wall pyramid awake for 10 s (too slow for a unit test),
//! reporting how far its top cube moved (goal: under 0.5 m, see `docs/performance.md`). Last,
//! the cost of a step once every body sleeps (`scenes/bench/pile4000_sleep.ron` after it
//! settles; goal: under 0.05 ms). Last, thread scaling: the large benchmark scenes at 1, 2,
//! 4, … workers up to the machine's hardware threads; `cargo bench -- --csv OUT.csv` also
//! appends them to a CSV file (`scene,bodies,workers,steps,ms_per_step`, a header when the
//! file is new) for `benches/results/<machine>/`.

use std::time::Instant;

/// Loads `scenes/NAME.ron`, printing the error when it does not load.
fn load(name: &str) -> Option<impulse::scene::Scene> {
    let path = format!("{}/scenes/{name}.ron", env!("CARGO_MANIFEST_DIR"));
    impulse::scene::load_file(std::path::Path::new(&path))
        .map_err(|e| eprintln!("{e}"))
        .ok()
}

/// Steps `scene` `steps` times; the mean wall-clock milliseconds per step.
fn ms_per_step(scene: &mut impulse::scene::Scene, steps: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..steps {
        scene.world.step(scene.timestep);
    }
    start.elapsed().as_secs_f64() * 1000.0 / steps as f64
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let csv = args
        .iter()
        .position(|a| a == "--csv")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from);
    shipped_scenes();
    wall_pyramid_100();
    sleeping_pile();
    thread_scaling(csv.as_deref());
}

/// Steps timed per scene and worker count, after as many untimed ones.
const SCALING_STEPS: u32 = 60;

/// ms per step of the large benchmark scenes at 1, 2, 4, … workers (up to the hardware
/// threads, which is the last count when it is not a power of two), each count on a fresh
/// load of the scene after [`SCALING_STEPS`] untimed steps; rows appended to `csv`.
fn thread_scaling(csv: Option<&std::path::Path>) {
    let hardware = impulse::physics::threads::hardware_threads();
    let mut counts: Vec<usize> = std::iter::successors(Some(1), |n| Some(n * 2))
        .take_while(|&n| n < hardware)
        .collect();
    counts.push(hardware);
    let mut rows = String::new();
    for name in [
        "large_pyramid",
        "many_pyramids",
        "pile4000",
        "joint_grid",
        "ragdolls",
    ] {
        let mut one = None;
        for &workers in &counts {
            let Some(mut scene) = load(&format!("bench/{name}")) else {
                continue;
            };
            if let Err(e) = scene.world.set_workers(workers) {
                eprintln!("{name}: {e}");
                continue;
            }
            for _ in 0..SCALING_STEPS {
                scene.world.step(scene.timestep);
            }
            let ms = ms_per_step(&mut scene, SCALING_STEPS);
            let speedup = one.get_or_insert(ms).to_owned() / ms;
            println!("{name:>14}: {workers:>3} workers, {ms:8.3} ms/step ({speedup:.2}x one)");
            let bodies = scene.world.body_count();
            rows += &format!("{name},{bodies},{workers},{SCALING_STEPS},{ms:.4}\n");
        }
    }
    if let Some(path) = csv {
        use std::io::Write;
        let new = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut file| {
                if new {
                    writeln!(file, "scene,bodies,workers,steps,ms_per_step")?;
                }
                file.write_all(rows.as_bytes())
            });
        if let Err(e) = written {
            eprintln!("{}: cannot write: {e}", path.display());
        }
    }
}

/// `scenes/bench/pile4000_sleep.ron` stepped until every body sleeps (at most a minute of
/// simulated time), then 1000 steps timed.
fn sleeping_pile() {
    let Some(mut scene) = load("bench/pile4000_sleep") else {
        return;
    };
    let mut settled_at = None;
    for step in 0..3600 {
        scene.world.step(scene.timestep);
        if scene.world.counters().awake_bodies == 0 {
            settled_at = Some(step + 1);
            break;
        }
    }
    let Some(settled_at) = settled_at else {
        println!("pile4000_sleep: still awake after 3600 steps");
        return;
    };
    let ms = ms_per_step(&mut scene, 1000);
    println!(
        "pile4000_sleep: {} bodies all asleep after {settled_at} steps, then {ms:.4} ms/step \
         (goal < 0.05 ms)",
        scene.world.body_count()
    );
}

/// 600 steps of `scenes/bench/large_pyramid.ron`; prints the top cube's displacement.
fn wall_pyramid_100() {
    let Some(mut scene) = load("bench/large_pyramid") else {
        return;
    };
    // The generator lays the pyramid out row by row, so the last body is the top cube.
    let Some(top) = scene.world.bodies().map(|(h, _)| h).last() else {
        return;
    };
    let start_position = scene.world.body(top).unwrap().position();
    let ms = ms_per_step(&mut scene, 600);
    let moved = scene.world.body(top).unwrap().position() - start_position;
    println!(
        "wall pyramid 100: {} bodies, {ms:.3} ms/step, top cube moved {:.3} m in 10 s \
         (x {:+.3}, y {:+.3}, z {:+.3}; goal < 0.5 m)",
        scene.world.body_count(),
        moved.length(),
        moved.x,
        moved.y,
        moved.z
    );
}

/// Time per step of the shipped scenes.
fn shipped_scenes() {
    for name in ["pyramid", "stack", "pile"] {
        let Some(mut scene) = load(name) else {
            continue;
        };
        for _ in 0..60 {
            scene.world.step(scene.timestep);
        }
        let ms = ms_per_step(&mut scene, 300);
        println!(
            "{name:>10}: {:>5} bodies, {ms:.3} ms/step",
            scene.world.body_count()
        );
    }
}
