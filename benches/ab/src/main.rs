//! Interleaved A/B of two revisions of the engine (see `run`): each scene is loaded by both,
//! warmed up for 100 steps, then stepped alternately (which one goes first alternates too),
//! each step timed on its own.

use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(steps) = args.get(1).and_then(|s| s.parse::<usize>().ok()) else {
        eprintln!("usage: impulse-ab STEPS SCENE.ron...");
        std::process::exit(2);
    };
    for path in &args[2..] {
        if let Err(e) = race(Path::new(path), steps) {
            eprintln!("{path}: {e}");
        }
    }
}

fn race(path: &Path, steps: usize) -> Result<(), String> {
    let base = base::scene::load_file(path).map_err(|e| e.to_string())?;
    let head = head::scene::load_file(path).map_err(|e| e.to_string())?;
    let (dt_base, dt_head) = (base.timestep, head.timestep);
    let (mut base, mut head) = (base.world, head.world);
    for _ in 0..100 {
        base.step(dt_base);
        head.step(dt_head);
    }
    let (mut t_base, mut t_head) = (Vec::with_capacity(steps), Vec::with_capacity(steps));
    for i in 0..steps {
        for head_turn in [i % 2 == 0, i % 2 != 0] {
            let start = Instant::now();
            if head_turn {
                head.step(dt_head);
                t_head.push(start.elapsed().as_secs_f64() * 1e3);
            } else {
                base.step(dt_base);
                t_base.push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
    }
    let (base_mean, base_median) = stats(&mut t_base);
    let (head_mean, head_median) = stats(&mut t_head);
    println!(
        "{}: base {base_mean:.3} / {base_median:.3} ms, head {head_mean:.3} / {head_median:.3} ms \
         (mean / median); head/base {:.3} / {:.3}",
        path.display(),
        head_mean / base_mean,
        head_median / base_median,
    );
    Ok(())
}

/// Mean and median of the step times.
fn stats(times: &mut [f64]) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    (mean, times[times.len() / 2])
}
