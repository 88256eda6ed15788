//! `cargo bench`: time steps of the shipped scenes (release build). A plain harness: prints
//! milliseconds per step; `impulse bench` gives the full statistics for one scene.

use std::time::Instant;

fn main() {
    for name in ["pyramid", "stack", "pile"] {
        let path = format!("{}/scenes/{name}.ron", env!("CARGO_MANIFEST_DIR"));
        let mut scene = match impulse::scene::load_file(std::path::Path::new(&path)) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                continue;
            }
        };
        for _ in 0..60 {
            scene.world.step(scene.timestep);
        }
        let steps = 300;
        let start = Instant::now();
        for _ in 0..steps {
            scene.world.step(scene.timestep);
        }
        let ms = start.elapsed().as_secs_f64() * 1000.0 / steps as f64;
        println!(
            "{name:>10}: {:>5} bodies, {ms:.3} ms/step",
            scene.world.body_count()
        );
    }
}
