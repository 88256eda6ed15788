//! Driving the app under a display: starting it on a scene with a script of input events,
//! reading its screenshot and its state dump, and the events and scenes the tests share.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to reach a display: through xvfb-run, directly, or not at all.
pub fn display_command() -> Option<Command> {
    let has_xvfb = Command::new("xvfb-run").arg("--help").output().is_ok();
    if has_xvfb {
        let mut c = Command::new("xvfb-run");
        c.args([
            "-a",
            "-s",
            "-screen 0 1280x800x24",
            env!("CARGO_BIN_EXE_impulse"),
        ]);
        return Some(c);
    }
    if std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some() {
        return Some(Command::new(env!("CARGO_BIN_EXE_impulse")));
    }
    None
}

/// Samples per pixel for the window tests (`--msaa`): multisampling off, which Mesa's
/// software renderer draws about twice as fast (the window tests took 85 s with the default
/// 4 samples, 39 s without). One test keeps the default.
pub const SAMPLES: &str = "1";

/// Decodes an RGB(A) PNG into pixels.
pub fn pixels(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("screenshot exists"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG data");
    let channels = info.color_type.samples();
    let px = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width, info.height, px)
}

/// The window's screenshot of `scene` after `frames` frames with the debug layers `draw`,
/// with `samples` samples per pixel.
pub fn screenshot(scene: &str, frames: &str, draw: &str, samples: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("impulse-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(format!(
        "{}.png",
        Path::new(scene).file_stem().unwrap().to_string_lossy()
    ));
    let Some(mut command) = display_command() else {
        assert!(
            std::env::var_os("IMPULSE_REQUIRE_WINDOW_TEST").is_none(),
            "no display and no xvfb-run, but the window test is required"
        );
        eprintln!("window test skipped: no display (install xvfb, or run on a desktop)");
        return PathBuf::new();
    };
    let result = command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("IMPULSE_SAVE_DIR", &dir)
        .args([
            scene,
            "--frames",
            frames,
            "--screenshot",
            out.to_str().unwrap(),
            "--draw",
            draw,
            "--msaa",
            samples,
        ])
        .output()
        .expect("start the window");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(
        result.status.code(),
        Some(0),
        "{scene}: exit status; stderr:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{scene} panicked:\n{stderr}");
    out
}

pub fn assert_real_picture(path: &Path) {
    if path.as_os_str().is_empty() {
        return;
    }
    let (w, h, px) = pixels(path);
    assert!(w >= 640 && h >= 400, "tiny screenshot {w}x{h}");
    let mut counts: HashMap<[u8; 3], usize> = HashMap::new();
    for p in &px {
        *counts.entry(*p).or_default() += 1;
    }
    let most = counts.values().copied().max().unwrap_or(0);
    assert!(
        counts.len() > 500,
        "{}: only {} distinct colours",
        path.display(),
        counts.len()
    );
    assert!(
        most * 2 < px.len(),
        "{}: one colour covers {:.0}% of the picture",
        path.display(),
        100.0 * most as f64 / px.len() as f64
    );
    // The panel (dark, on the left) and a busy 3D view (on the right) are both there.
    let (w, h) = (w as usize, h as usize);
    let left: Vec<_> = (0..h)
        .flat_map(|y| px[y * w..y * w + w / 5].iter())
        .collect();
    let dark = left.iter().filter(|p| p.iter().all(|&c| c < 60)).count();
    assert!(
        dark * 2 > left.len(),
        "{}: no panel on the left",
        path.display()
    );
    let right: std::collections::HashSet<_> = (0..h)
        .flat_map(|y| px[y * w + w / 3..y * w + w].iter())
        .collect();
    assert!(
        right.len() > 300,
        "{}: the 3D view has only {} colours",
        path.display(),
        right.len()
    );
}

/// A folder for this run's scripts, scenes and state dumps.
pub fn script_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("impulse-script-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the window for `frames` frames driven by a script of `events` (RON, one per line, as
/// in `Script(events: [...])`), with `extra` arguments, and returns the `--dump-state` JSON;
/// None when there is no display (and the window test is not required).
pub fn scripted(
    name: &str,
    scene: &str,
    events: &[String],
    frames: u32,
    extra: &[&str],
) -> Option<serde_json::Value> {
    let Some(mut command) = display_command() else {
        assert!(
            std::env::var_os("IMPULSE_REQUIRE_WINDOW_TEST").is_none(),
            "no display for the interaction test"
        );
        eprintln!("interaction test skipped: no display");
        return None;
    };
    let dir = script_dir();
    let script = dir.join(format!("{name}.ron"));
    std::fs::write(
        &script,
        format!("Script(events: [\n{}\n])\n", events.join(",\n")),
    )
    .unwrap();
    let state = dir.join(format!("{name}.json"));
    let result = command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("IMPULSE_SAVE_DIR", &dir)
        .arg(scene)
        .args(["--frames", &frames.to_string()])
        .arg("--script")
        .arg(&script)
        .arg("--dump-state")
        .arg(&state)
        .args(["--msaa", SAMPLES])
        .args(extra)
        .output()
        .expect("start the window");
    let stderr = String::from_utf8_lossy(&result.stderr);
    assert_eq!(result.status.code(), Some(0), "{name}: stderr:\n{stderr}");
    let text = std::fs::read_to_string(&state).expect("the state dump");
    Some(serde_json::from_str(&text).expect("JSON"))
}

/// A scripted event at `frame`.
pub fn at(frame: u32, event: &str) -> String {
    format!("(frame: {frame}, event: {event})")
}

/// The 3D view's centre in the default 1400 × 860 window: between the left panel (280 px)
/// and the right one (266 px), above the timeline (22 px). [`layout`] checks it.
pub const VIEW_CENTRE: (f32, f32) = (707.0, 419.0);

/// The window's layout after a few frames on `scene` (with the body at the view's centre
/// selected when `select`): the state dump, whose "widgets" name the rectangles of the
/// widgets the tests click ([`widget`]). Checks [`VIEW_CENTRE`] against the dumped view.
pub fn layout(name: &str, scene: &str, select: bool) -> Option<serde_json::Value> {
    let events = if select {
        click(3, VIEW_CENTRE).to_vec()
    } else {
        Vec::new()
    };
    let state = scripted(&format!("layout-{name}"), scene, &events, 8, &[])?;
    let view = &state["view"];
    let x = view[0].as_f64().unwrap() + 0.5 * view[2].as_f64().unwrap();
    let y = view[1].as_f64().unwrap() + 0.5 * view[3].as_f64().unwrap();
    assert!(
        (x - VIEW_CENTRE.0 as f64).abs() < 2.0 && (y - VIEW_CENTRE.1 as f64).abs() < 2.0,
        "the view's centre is ({x}, {y}), not VIEW_CENTRE: {view}"
    );
    Some(state)
}

/// A point in the widget `name` of a [`layout`]: `along` of its width from its left edge,
/// half way down.
pub fn widget(state: &serde_json::Value, name: &str, along: f32) -> (f32, f32) {
    let rect = &state["widgets"][name];
    let n = |i: usize| {
        rect[i]
            .as_f64()
            .unwrap_or_else(|| panic!("no widget {name:?} in {}", state["widgets"])) as f32
    };
    (n(0) + along * n(2), n(1) + 0.5 * n(3))
}

/// A 2 m cube straight ahead of the camera, filling the middle of the view, on a plane; in
/// a file of the test's own (`name`), since the app reloads a file that changes on disk.
pub fn box_scene(name: &str) -> PathBuf {
    scene_with(
        name,
        r#"(name: "box", position: (0.0, 1.0, 0.0),
            colliders: [(shape: Cuboid(half_extents: (1.0, 1.0, 1.0)))])"#,
    )
}

/// A scene of the test's own (`name`): the camera at (0, 3, 10) looking at (0, 1, 0), a
/// ground plane, and `body` (a scene file's body entry) as the second body.
pub fn scene_with(name: &str, body: &str) -> PathBuf {
    let scene = script_dir().join(format!("{name}-scene.ron"));
    std::fs::write(
        &scene,
        format!(
            r#"Scene(
            camera: (eye: (0.0, 3.0, 10.0), target: (0.0, 1.0, 0.0), fov_deg: 45.0),
            bodies: [
                (name: "ground", kind: Static, colliders: [(shape: Plane(normal: (0.0, 1.0, 0.0)))]),
                {body},
            ],
        )"#
        ),
    )
    .unwrap();
    scene
}

/// A right-drag from the view's centre: the cursor there at `frame`, the button down on
/// the next, then `moves` frames each moving it `step` px up (the button stays down).
pub fn right_drag_up(frame: u32, moves: u32, step: f32) -> Vec<String> {
    let (x, y) = VIEW_CENTRE;
    let mut events = vec![
        at(frame, &format!("MouseMove({x:.1}, {y:.1})")),
        at(frame + 1, "ButtonDown(Right)"),
    ];
    for k in 1..=moves {
        events.push(at(
            frame + 1 + k,
            &format!("MouseMove({x:.1}, {:.1})", y - step * k as f32),
        ));
    }
    events
}

/// Clicks at (x, y) at `frame` (move, press, release on three frames).
pub fn click(frame: u32, (x, y): (f32, f32)) -> [String; 3] {
    [
        at(frame, &format!("MouseMove({x:.1}, {y:.1})")),
        at(frame + 1, "ButtonDown(Left)"),
        at(frame + 2, "ButtonUp(Left)"),
    ]
}

/// Loads `path` by the panel's Load field on frames 3–16 of a [`layout`]: clicks the field
/// (it reads "scenes/"), erases it, types the path and clicks Load.
pub fn load_by_path(panel: &serde_json::Value, path: &Path) -> Vec<String> {
    let mut events = click(3, widget(panel, "load path", 0.9)).to_vec();
    for k in 0..7 {
        events.push(at(6 + k, "Key(\"Backspace\")"));
    }
    events.push(at(13, &format!("Text({:?})", path.display().to_string())));
    events.extend(click(14, widget(panel, "load", 0.5)));
    events
}

/// Clicks a number field at `at_xy`, selects all its text (Ctrl+A), types `text` and
/// presses Enter. (A click alone puts the cursor where it lands: in a field showing a value
/// like -2.3e-11 to full precision, "1e9" would go into the middle of its digits.)
pub fn type_into(frame: u32, at_xy: (f32, f32), text: &str) -> Vec<String> {
    let mut events = click(frame, at_xy).to_vec();
    events.push(at(frame + 3, "KeyDown(\"LeftControl\")"));
    events.push(at(frame + 3, "Key(\"A\")"));
    events.push(at(frame + 4, "KeyUp(\"LeftControl\")"));
    events.push(at(frame + 4, &format!("Text({text:?})")));
    events.push(at(frame + 5, "Key(\"Enter\")"));
    events
}

/// Where the world point `p` shows in the window, for the camera of a state dump (a pinhole
/// of vertical field of view `fov_deg` from eye to target, y up, in the dumped view).
pub fn on_screen(state: &serde_json::Value, fov_deg: f64, p: [f64; 3]) -> (f64, f64) {
    let v3 = |v: &serde_json::Value| [0, 1, 2].map(|i| v[i].as_f64().unwrap());
    let (eye, target) = (v3(&state["camera"]["eye"]), v3(&state["camera"]["target"]));
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let unit = |a: [f64; 3]| {
        let l = dot(a, a).sqrt();
        [a[0] / l, a[1] / l, a[2] / l]
    };
    let forward = unit(sub(target, eye));
    let right = unit(cross(forward, [0.0, 1.0, 0.0]));
    let up = cross(right, forward);
    let d = sub(p, eye);
    let view = &state["view"];
    let [left, top, width, height] = [0, 1, 2, 3].map(|i| view[i].as_f64().unwrap());
    let tan = (0.5 * fov_deg.to_radians()).tan();
    let x = dot(d, right) / dot(d, forward) / (tan * width / height);
    let y = dot(d, up) / dot(d, forward) / tan;
    (
        left + 0.5 * (x + 1.0) * width,
        top + 0.5 * (1.0 - y) * height,
    )
}

/// `impulse run SCENE --steps N --hash`'s hash line.
pub fn run_hash(scene: &Path, steps: u32) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_impulse"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("run")
        .arg(scene)
        .args(["--steps", &steps.to_string(), "--hash"])
        .output()
        .expect("run impulse");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}: {stdout}", scene.display());
    stdout
        .lines()
        .find(|l| l.starts_with("state hash"))
        .expect("a hash line")
        .to_string()
}
