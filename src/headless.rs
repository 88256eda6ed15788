//! Runs without a window: `impulse run`, `impulse bench`, `impulse stress`.

use std::fmt;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use crate::physics::World;
use crate::scene::{self, BodyMeta, Scene};
use crate::stress::Spawner;

/// A failure, with the exit status it maps to.
#[derive(Debug)]
pub enum CliError {
    /// Bad input (usage, unreadable or invalid scene): exit status 2.
    BadInput(String),
    /// Something failed inside (e.g. cannot write an output file): exit status 1.
    Internal(String),
}

impl CliError {
    /// The process exit status.
    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::BadInput(_) => 2,
            CliError::Internal(_) => 1,
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::BadInput(m) | CliError::Internal(m) => write!(f, "{m}"),
        }
    }
}

/// Loads a scene file, or the compiled-in default when `path` is None.
pub fn load(path: Option<&Path>) -> Result<Scene, CliError> {
    let result = match path {
        Some(p) => scene::load_file(p),
        None => scene::load_default(),
    };
    result.map_err(|e| CliError::BadInput(e.to_string()))
}

/// One body in a state dump.
#[derive(Serialize)]
struct BodyState<'a> {
    name: &'a str,
    position: [f32; 3],
    rotation: [f32; 4],
    linear_velocity: [f32; 3],
    angular_velocity: [f32; 3],
    sleeping: bool,
}

/// The state of the world after some steps.
#[derive(Serialize)]
struct WorldState<'a> {
    steps: u64,
    time: f64,
    bodies: Vec<BodyState<'a>>,
    contact_points: usize,
    kinetic_energy: f64,
}

/// Total kinetic energy, J.
pub fn kinetic_energy(world: &World) -> f64 {
    world.bodies().map(|(_, b)| b.kinetic_energy() as f64).sum()
}

/// The world's state: steps, time, every body, contact points, kinetic energy.
fn world_state<'a>(
    world: &World,
    meta: &'a std::collections::BTreeMap<crate::physics::BodyHandle, BodyMeta>,
) -> WorldState<'a> {
    WorldState {
        steps: world.step_count(),
        time: world.time(),
        bodies: world
            .bodies()
            .map(|(h, b)| BodyState {
                name: meta.get(&h).map_or("", |m| m.name.as_str()),
                position: b.position().to_array(),
                rotation: b.rotation().to_array(),
                linear_velocity: b.linear_velocity().to_array(),
                angular_velocity: b.angular_velocity().to_array(),
                sleeping: !b.is_awake(),
            })
            .collect(),
        contact_points: world.counters().contact_points,
        kinetic_energy: kinetic_energy(world),
    }
}

/// The world's state as a JSON value (for the window's `--dump-state`).
pub fn state_value(
    world: &World,
    meta: &std::collections::BTreeMap<crate::physics::BodyHandle, BodyMeta>,
) -> serde_json::Value {
    // Plain numbers, strings and lists: serialising cannot fail (non-finite floats become null).
    serde_json::to_value(world_state(world, meta)).unwrap_or(serde_json::Value::Null)
}

/// The world as one line of JSON.
fn state_json(
    world: &World,
    meta: &std::collections::BTreeMap<crate::physics::BodyHandle, BodyMeta>,
) -> Result<String, CliError> {
    serde_json::to_string(&world_state(world, meta))
        .map_err(|e| CliError::Internal(format!("cannot encode the state: {e}")))
}

/// The name a scene gave a body, or `#slot` for an unnamed one.
pub fn body_name(
    meta: &std::collections::BTreeMap<crate::physics::BodyHandle, BodyMeta>,
    body: crate::physics::BodyHandle,
) -> String {
    match meta.get(&body) {
        Some(m) if !m.name.is_empty() => m.name.clone(),
        _ => format!("#{}", body.index()),
    }
}

/// One event of the last step, as `impulse run --events` writes it and the panel's event log
/// shows it.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct EventLine {
    /// The step it happened in (1 for the first step).
    pub step: u64,
    /// `contact_begin`, `contact_end`, `sensor_begin` or `sensor_end`.
    pub kind: &'static str,
    /// The first body's name (the one with the sensor, for a sensor event whose first
    /// collider is the sensor).
    pub a: String,
    /// The second body's name.
    pub b: String,
    /// For `contact_begin`: how fast the surfaces closed, m/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approach_speed: Option<f32>,
}

/// The begin and end events of the world's last step (not the persisting contacts), in the
/// order contact begin, contact end, sensor begin, sensor end.
pub fn step_events(
    world: &World,
    meta: &std::collections::BTreeMap<crate::physics::BodyHandle, BodyMeta>,
) -> Vec<EventLine> {
    let events = world.contact_events();
    let line = |kind, pair: &crate::physics::ContactPair, speed| EventLine {
        step: world.step_count(),
        kind,
        a: body_name(meta, pair.body_a),
        b: body_name(meta, pair.body_b),
        approach_speed: speed,
    };
    let begins = events
        .begin
        .iter()
        .map(|b| line("contact_begin", &b.pair, Some(b.approach_speed)));
    let others = [
        ("contact_end", &events.end),
        ("sensor_begin", &events.sensor_begin),
        ("sensor_end", &events.sensor_end),
    ]
    .into_iter()
    .flat_map(|(kind, pairs)| pairs.iter().map(move |p| (kind, p)))
    .map(|(kind, p)| line(kind, p, None));
    begins.chain(others).collect()
}

/// Creates an output file, with a message naming it on failure.
fn create(path: &Path) -> Result<std::io::BufWriter<std::fs::File>, CliError> {
    std::fs::File::create(path)
        .map(std::io::BufWriter::new)
        .map_err(|e| CliError::Internal(format!("{}: cannot create the file: {e}", path.display())))
}

/// Writes one line to an output file.
fn write_line(out: &mut impl Write, path: &Path, line: &str) -> Result<(), CliError> {
    writeln!(out, "{line}")
        .map_err(|e| CliError::Internal(format!("{}: cannot write: {e}", path.display())))
}

/// When a run hit the contact cap, and how hard.
#[derive(Default)]
struct CappedPairs {
    first_step: Option<u64>,
    most: usize,
}

impl CappedPairs {
    fn record(&mut self, step: u64, capped: usize) {
        if capped > 0 {
            self.first_step.get_or_insert(step);
            self.most = self.most.max(capped);
        }
    }
}

/// `impulse run`: N fixed steps, a summary line, optional JSON dumps and state hash. Fails (exit status 1)
/// when any body was frozen because its state stopped being finite.
pub fn run(
    path: &Path,
    steps: u64,
    dump: Option<&Path>,
    dump_every: Option<u64>,
    hash: bool,
    events: Option<&Path>,
    save: Option<&Path>,
) -> Result<(), CliError> {
    if dump_every == Some(0) {
        return Err(CliError::BadInput("--dump-every must be at least 1".into()));
    }
    let mut scene = load(Some(path))?;
    // Saving keeps the file's description and generators (`scene::save::save_scene`).
    let source = match save {
        Some(_) => Some(std::fs::read_to_string(path).map_err(|e| {
            CliError::BadInput(format!("{}: cannot read the file: {e}", path.display()))
        })?),
        None => None,
    };
    let mut saved = save.map(create).transpose()?;
    let mut out = dump.map(create).transpose()?;
    let mut event_out = events.map(create).transpose()?;
    let start = Instant::now();
    let mut first_frozen = None;
    let mut capped = CappedPairs::default();
    for step in 1..=steps {
        scene.world.step(scene.timestep);
        if first_frozen.is_none() && !scene.world.frozen_bodies().is_empty() {
            first_frozen = Some(step);
        }
        capped.record(step, scene.world.counters().capped_pairs);
        if let (Some(out), Some(p)) = (event_out.as_mut(), events) {
            for event in step_events(&scene.world, &scene.meta) {
                let line = serde_json::to_string(&event)
                    .map_err(|e| CliError::Internal(format!("cannot encode an event: {e}")))?;
                write_line(out, p, &line)?;
            }
        }
        if let (Some(out), Some(every), Some(p)) = (out.as_mut(), dump_every, dump) {
            if step % every == 0 {
                write_line(out, p, &state_json(&scene.world, &scene.meta)?)?;
            }
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    if let (Some(out), Some(p)) = (out.as_mut(), dump) {
        if dump_every.is_none() {
            write_line(out, p, &state_json(&scene.world, &scene.meta)?)?;
        }
        out.flush()
            .map_err(|e| CliError::Internal(format!("{}: cannot write: {e}", p.display())))?;
    }
    if let (Some(out), Some(p)) = (event_out.as_mut(), events) {
        out.flush()
            .map_err(|e| CliError::Internal(format!("{}: cannot write: {e}", p.display())))?;
    }
    let w = &scene.world;
    let asleep = w.bodies().filter(|(_, b)| !b.is_awake()).count();
    println!(
        "{}: {} steps ({:.3} s simulated) in {:.3} s, {:.3} ms/step; {} bodies, {} asleep, {} contact points, kinetic energy {:.4} J",
        path.display(),
        steps,
        w.time(),
        elapsed,
        if steps > 0 { elapsed * 1000.0 / steps as f64 } else { 0.0 },
        w.body_count(),
        asleep,
        w.counters().contact_points,
        kinetic_energy(w)
    );
    if hash {
        println!("state hash: {:016x}", w.state_hash());
    }
    if let (Some(out), Some(p)) = (saved.as_mut(), save) {
        let note = scene::save::saved_note(w, &path.display().to_string());
        let camera = scene.camera_given.then_some(&scene.camera);
        let text = scene::save::save_scene(
            w,
            &scene.meta,
            camera,
            scene.timestep,
            source.as_deref(),
            &note,
        )
        .map_err(CliError::Internal)?;
        out.write_all(text.as_bytes())
            .and_then(|()| out.flush())
            .map_err(|e| CliError::Internal(format!("{}: cannot write: {e}", p.display())))?;
        println!("saved {}", p.display());
    }
    if let Some(first) = capped.first_step {
        eprintln!(
            "warning: {}: up to {} overlapping pairs of dynamic bodies got no contact (first at step \
             {first}) because a body already had settings.max_contacts_per_body = {} contacts; \
             are bodies placed inside each other?",
            path.display(),
            capped.most,
            w.settings().max_contacts_per_body
        );
    }
    let frozen = w.counters().frozen_bodies;
    match first_frozen {
        Some(step) if frozen > 0 => Err(CliError::Internal(format!(
            "{}: {frozen} bodies frozen (their state stopped being finite, first at step {step}); \
             they were kept at their last finite pose",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// Mean, median, 95th percentile and max of some timings, ms.
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
pub struct Stats {
    /// Arithmetic mean.
    pub mean: f64,
    /// Middle value.
    pub median: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// Largest.
    pub max: f64,
}

impl Stats {
    /// Statistics of `samples` (all zero when empty).
    pub fn of(samples: &[f64]) -> Stats {
        if samples.is_empty() {
            return Stats {
                mean: 0.0,
                median: 0.0,
                p95: 0.0,
                max: 0.0,
            };
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let rank =
            |q: f64| sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
        Stats {
            mean: samples.iter().sum::<f64>() / samples.len() as f64,
            median: rank(0.5),
            p95: rank(0.95),
            max: sorted[sorted.len() - 1],
        }
    }
}

/// `impulse bench`: warm-up steps, then timed steps; JSON on stdout. `broad_phase` replaces
/// the scene's broad phase.
pub fn bench(
    path: &Path,
    steps: u64,
    warmup: u64,
    broad_phase: Option<crate::physics::BroadPhaseKind>,
    csv: Option<&Path>,
) -> Result<(), CliError> {
    if steps == 0 {
        return Err(CliError::BadInput("--steps must be at least 1".into()));
    }
    let mut scene = load(Some(path))?;
    if let Some(kind) = broad_phase {
        scene
            .world
            .set_broad_phase(kind)
            .map_err(|e| CliError::BadInput(e.to_string()))?;
    }
    time_steps(&mut scene, path, steps, warmup, csv)
}

/// The columns of `impulse bench --csv`, one row per run; times in ms.
pub const BENCH_CSV_HEADER: &str = "scene,bodies,workers,steps,warmup,mean_ms,median_ms,p95_ms,\
broad_phase_ms,narrow_phase_ms,solver_ms,integration_ms,islands_ms,continuous_ms";

/// Appends `row` to the CSV file `path`, after [`BENCH_CSV_HEADER`] when the file is new or
/// empty.
fn append_bench_row(path: &Path, row: &str) -> Result<(), CliError> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| CliError::Internal(format!("{}: cannot open: {e}", path.display())))?;
    let empty = file
        .metadata()
        .map_err(|e| CliError::Internal(format!("{}: cannot read: {e}", path.display())))?
        .len()
        == 0;
    if empty {
        write_line(&mut file, path, BENCH_CSV_HEADER)?;
    }
    write_line(&mut file, path, row)
}

/// The steps of [`bench`] and its report (and CSV row).
fn time_steps(
    scene: &mut Scene,
    path: &Path,
    steps: u64,
    warmup: u64,
    csv: Option<&Path>,
) -> Result<(), CliError> {
    for _ in 0..warmup {
        scene.world.step(scene.timestep);
    }
    let mut totals = Vec::with_capacity(steps as usize);
    let mut phases = [0.0f64; 6];
    let mut counters = [0u64; 10];
    for _ in 0..steps {
        let t = Instant::now();
        scene.world.step(scene.timestep);
        totals.push(t.elapsed().as_secs_f64() * 1000.0);
        let p = scene.world.profile();
        for (acc, v) in phases.iter_mut().zip([
            p.broad_phase_ms,
            p.narrow_phase_ms,
            p.solver_ms,
            p.integration_ms,
            p.islands_ms,
            p.continuous_ms,
        ]) {
            *acc += v as f64 / steps as f64;
        }
        let c = scene.world.counters();
        for (acc, v) in counters.iter_mut().zip([
            c.bodies,
            c.awake_bodies,
            c.pairs,
            c.manifolds,
            c.contact_points,
            c.islands,
            c.pair_tests,
            c.manifolds_reused,
            c.capped_pairs,
            c.broad_phase_tests as usize,
        ]) {
            *acc += v as u64;
        }
    }
    // Integer sums divided once: 1005 bodies every step reads 1005, not 1004.9999999999982.
    let counters = counters.map(|sum| sum as f64 / steps as f64);
    let report = serde_json::json!({
        "scene": path.display().to_string(),
        "broad_phase": format!("{:?}", scene.world.settings().broad_phase),
        "bodies": scene.world.body_count(),
        "workers": scene.world.workers(),
        "steps": steps,
        "warmup": warmup,
        "step_ms": Stats::of(&totals),
        "phase_mean_ms": {
            "broad_phase": phases[0], "narrow_phase": phases[1], "solver": phases[2],
            "integration": phases[3], "islands": phases[4], "continuous": phases[5],
        },
        "counter_means": {
            "bodies": counters[0], "awake_bodies": counters[1], "pairs": counters[2],
            "manifolds": counters[3], "contact_points": counters[4], "islands": counters[5],
            "pair_tests": counters[6], "manifolds_reused": counters[7],
            "capped_pairs": counters[8], "broad_phase_tests": counters[9],
        },
    });
    let text =
        serde_json::to_string_pretty(&report).map_err(|e| CliError::Internal(e.to_string()))?;
    println!("{text}");
    if let Some(out) = csv {
        let name = path.file_stem().map_or_else(
            || path.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        let stats = Stats::of(&totals);
        let mut row = format!(
            "{name},{},{},{steps},{warmup},{:.4},{:.4},{:.4}",
            scene.world.body_count(),
            scene.world.workers(),
            stats.mean,
            stats.median,
            stats.p95
        );
        for phase in phases {
            row += &format!(",{phase:.4}");
        }
        append_bench_row(out, &row)?;
    }
    Ok(())
}

/// The result of a stress run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StressResult {
    /// Bodies in the world when it stopped.
    pub bodies: usize,
    /// Steps taken.
    pub steps: u64,
    /// Mean step time of the last 30 steps, ms.
    pub last_mean_ms: f64,
}

/// Steps in the moving window the budget is checked against.
pub const STRESS_WINDOW: usize = 30;

/// Spawns bodies every step until the mean of the last `STRESS_WINDOW` step times exceeds
/// `budget_ms` (or `max_steps` pass). Calls `row(bodies, step_ms)` after every step.
pub fn stress_loop(
    scene: &mut Scene,
    budget_ms: f64,
    max_steps: u64,
    mut row: impl FnMut(usize, f64) -> Result<(), CliError>,
) -> Result<StressResult, CliError> {
    let mut spawner = Spawner::default();
    let mut window = std::collections::VecDeque::with_capacity(STRESS_WINDOW);
    let mut steps = 0;
    let mut mean = 0.0;
    while steps < max_steps {
        spawner.spawn(&mut scene.world);
        let t = Instant::now();
        scene.world.step(scene.timestep);
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        steps += 1;
        row(scene.world.body_count(), ms)?;
        if window.len() == STRESS_WINDOW {
            window.pop_front();
        }
        window.push_back(ms);
        mean = window.iter().sum::<f64>() / window.len() as f64;
        if window.len() == STRESS_WINDOW && mean > budget_ms {
            break;
        }
    }
    Ok(StressResult {
        bodies: scene.world.body_count(),
        steps,
        last_mean_ms: mean,
    })
}

/// `impulse stress`: spawns bodies until a step costs more than the budget.
pub fn stress(
    path: Option<&Path>,
    budget_ms: f64,
    csv: Option<&Path>,
    max_steps: u64,
) -> Result<(), CliError> {
    if !(budget_ms > 0.0 && budget_ms.is_finite()) {
        return Err(CliError::BadInput(format!(
            "--budget-ms must be a positive number, got {budget_ms}"
        )));
    }
    let mut scene = match path {
        Some(p) => load(Some(p))?,
        None => scene::load_str(crate::stress::WALLED_FLOOR, "<walled floor>")
            .map_err(|e| CliError::Internal(e.to_string()))?,
    };
    let mut out = csv.map(create).transpose()?;
    if let (Some(out), Some(p)) = (out.as_mut(), csv) {
        write_line(out, p, "step,bodies,step_ms")?;
    }
    let mut step = 0u64;
    let result = stress_loop(&mut scene, budget_ms, max_steps, |bodies, ms| {
        step += 1;
        match (out.as_mut(), csv) {
            (Some(out), Some(p)) => write_line(out, p, &format!("{step},{bodies},{ms:.4}")),
            _ => Ok(()),
        }
    })?;
    if let (Some(out), Some(p)) = (out.as_mut(), csv) {
        out.flush()
            .map_err(|e| CliError::Internal(format!("{}: cannot write: {e}", p.display())))?;
    }
    println!(
        "stress: reached {} bodies after {} steps (mean step {:.2} ms over the last {} steps, budget {:.2} ms)",
        result.bodies, result.steps, result.last_mean_ms, STRESS_WINDOW, budget_ms
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_use_nearest_rank() {
        // 1..=20: mean 10.5, median = 10th value = 10, p95 = 19th value = 19, max 20.
        let samples: Vec<f64> = (1..=20).map(|i| i as f64).collect();
        let s = Stats::of(&samples);
        assert_eq!((s.mean, s.median, s.p95, s.max), (10.5, 10.0, 19.0, 20.0));
    }
}
