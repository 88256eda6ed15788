//! The desktop binary's command line: parses it, then hands over to the sandbox window or
//! to a headless run.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use impulse::headless::{self, CliError};

const EXAMPLES: &str = "\
Examples:
  impulse                                   open the sandbox on the default scene
  impulse scenes/pyramid.ron                open a scene
  impulse scenes/pile.ron --frames 300 --screenshot pile.png --draw contacts,tree
  impulse run scenes/pyramid.ron --steps 600 --dump state.json
  impulse run scenes/bounce.ron --steps 300 --dump trace.jsonl --dump-every 10
  impulse bench scenes/pile.ron --steps 500 --warmup 100
  impulse bench scenes/bench/pile4000.ron --steps 100 --threads 2 --csv threads.csv
  impulse stress --budget-ms 16.7 --csv stress.csv

Exit status: 0 ok, 2 bad input (usage, unreadable or invalid scene), 1 internal error.";

/// Impulse: a 3D rigid-body physics sandbox.
#[derive(Parser, Debug)]
#[command(name = "impulse", version, about, after_help = EXAMPLES, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// Threads each physics step may use, 1 to 256 (default: the machine's hardware
    /// threads). Results are the same bit for bit at any count.
    #[arg(long, value_name = "N", global = true)]
    threads: Option<usize>,

    /// Scene to open in the sandbox (default: the built-in default scene).
    scene: Option<PathBuf>,

    /// Run the window for this many frames (one fixed step each), then exit.
    #[arg(long, value_name = "N")]
    frames: Option<u64>,

    /// Save a screenshot (with the panel) after the last frame; needs --frames.
    #[arg(long, value_name = "OUT.png", requires = "frames")]
    screenshot: Option<PathBuf>,

    /// Record the 3D view of every frame (one step each) as an animated GIF, a picture
    /// every 1/30 s of simulated time or so; needs --frames.
    #[arg(long, value_name = "OUT.gif", requires = "frames")]
    record: Option<PathBuf>,

    /// Debug layers to turn on: colliders, touching, aabbs, tree, contacts, velocities,
    /// centers, islands (comma separated).
    #[arg(long, value_name = "LAYERS", value_delimiter = ',')]
    draw: Vec<String>,

    /// Start the stress test at once and print its result.
    #[arg(long)]
    stress: bool,

    /// Drive the window from an input script (mouse, wheel, keys, text by frame; see
    /// src/app/input.rs) instead of the mouse and keyboard; needs --frames.
    #[arg(long, value_name = "ACTIONS.ron", requires = "frames")]
    script: Option<PathBuf>,

    /// After the last frame, write the world's and the window's state as JSON; needs --frames.
    #[arg(long, value_name = "OUT.json", requires = "frames")]
    dump_state: Option<PathBuf>,

    /// Window size in pixels, WIDTHxHEIGHT (default 1400x860).
    #[arg(long, value_name = "WxH", value_parser = parse_size)]
    size: Option<(u32, u32)>,

    /// Start with the soft contact shadows off (the Shadows box in the panel).
    #[arg(long)]
    no_shadows: bool,

    /// Multisample anti-aliasing: samples per pixel, 1 (off), 2, 4 or 8 (default 4). A
    /// software renderer (Mesa's llvmpipe, as under Xvfb) draws about twice as fast with 1.
    #[arg(long, value_name = "SAMPLES")]
    msaa: Option<u32>,
}

/// Parses a window size such as `1000x600`.
fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT such as 1000x600, got {text:?}"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| format!("expected WIDTHxHEIGHT such as 1000x600, got {text:?}"))
    };
    Ok((number(w)?, number(h)?))
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a scene without a window for N fixed steps; print a summary, optionally dump JSON.
    Run {
        /// The scene file.
        scene: PathBuf,
        /// Number of fixed steps.
        #[arg(long, value_name = "N")]
        steps: u64,
        /// Write the final state as JSON here.
        #[arg(long, value_name = "OUT.json")]
        dump: Option<PathBuf>,
        /// With --dump: one JSON object per line every K steps instead of the final state.
        #[arg(long, value_name = "K", requires = "dump")]
        dump_every: Option<u64>,
        /// Print a hash of the final state (every body's pose and velocities, bit for bit).
        #[arg(long)]
        hash: bool,
        /// Write every contact and sensor begin and end event here, one JSON object per
        /// line: step, kind, the two bodies' names (and the approach speed of a contact
        /// begin).
        #[arg(long, value_name = "OUT.jsonl")]
        events: Option<PathBuf>,
        /// Save the world after the last step as a scene file here (what the window's Save
        /// as writes: the file's description and unchanged generators kept).
        #[arg(long, value_name = "OUT.ron")]
        save: Option<PathBuf>,
    },
    /// Time N steps of a scene (after W warm-up steps); print JSON statistics.
    Bench {
        /// The scene file.
        scene: PathBuf,
        /// Number of timed steps.
        #[arg(long, value_name = "N")]
        steps: u64,
        /// Untimed steps first.
        #[arg(long, value_name = "W", default_value_t = 0)]
        warmup: u64,
        /// Use this broad phase instead of the scene's: tree, brute, quadtree, grid, or the
        /// scene syntax such as "Quadtree(max_depth: 6, capacity: 4)" or "Grid(cell_size: 2.0)".
        #[arg(long, value_name = "KIND", value_parser = impulse::scene::parse_broad_phase)]
        broad_phase: Option<impulse::physics::BroadPhaseKind>,
        /// Also append one row to this CSV file (scene, bodies, workers, steps, ms per step
        /// and per phase), after a header line when the file is new: run it once per
        /// worker count (`--threads N`) to collect a thread-scaling table.
        #[arg(long, value_name = "OUT.csv")]
        csv: Option<PathBuf>,
    },
    /// Spawn bodies every step until the mean step time of the last 30 steps passes the budget.
    Stress {
        /// Scene to spawn into (default: a walled floor).
        scene: Option<PathBuf>,
        /// Step time budget, ms.
        #[arg(long, value_name = "MS", default_value_t = 33.3)]
        budget_ms: f64,
        /// Write one row per step (step, bodies, step ms).
        #[arg(long, value_name = "OUT.csv")]
        csv: Option<PathBuf>,
        /// Stop after this many steps whatever the budget.
        #[arg(long, value_name = "N", default_value_t = 100_000)]
        max_steps: u64,
    },
}

/// Runs what the command line asks for.
pub fn main() -> ExitCode {
    let mut cli = Cli::parse();
    let threads = cli.threads.map_or(Ok(()), |n| {
        impulse::physics::threads::set_default_workers(n)
            .map_err(|e| CliError::BadInput(format!("--threads: {e}")))
    });
    let result = threads.and_then(|()| match cli.command.take() {
        Some(Command::Run {
            scene,
            steps,
            dump,
            dump_every,
            hash,
            events,
            save,
        }) => headless::run(
            &scene,
            steps,
            dump.as_deref(),
            dump_every,
            hash,
            events.as_deref(),
            save.as_deref(),
        ),
        Some(Command::Bench {
            scene,
            steps,
            warmup,
            broad_phase,
            csv,
        }) => headless::bench(&scene, steps, warmup, broad_phase, csv.as_deref()),
        Some(Command::Stress {
            scene,
            budget_ms,
            csv,
            max_steps,
        }) => headless::stress(scene.as_deref(), budget_ms, csv.as_deref(), max_steps),
        None => open_window(cli),
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("impulse: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// Opens the sandbox window.
#[cfg(feature = "app")]
fn open_window(cli: Cli) -> Result<(), CliError> {
    impulse::app::run(impulse::app::AppOptions {
        scene: cli.scene,
        frames: cli.frames,
        screenshot: cli.screenshot,
        record: cli.record,
        draw: cli.draw,
        stress: cli.stress,
        script: cli.script,
        dump_state: cli.dump_state,
        size: cli.size,
        no_shadows: cli.no_shadows,
        msaa: cli.msaa,
    })
}

/// Without the `app` feature there is no window to open.
#[cfg(not(feature = "app"))]
fn open_window(_: Cli) -> Result<(), CliError> {
    Err(CliError::BadInput(
        "this build has no sandbox window (built without the `app` feature); use `impulse run|bench|stress`".into(),
    ))
}
