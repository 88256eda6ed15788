//! The real window under a display: `impulse SCENE --frames N --screenshot OUT.png --draw ...`
//! exits 0 and the screenshot is a real picture (many colours, none covering most of it).
//!
//! Needs a display: `xvfb-run` (installed by `.ci/run`) or a desktop session. Without either
//! the test says so and passes, unless IMPULSE_REQUIRE_WINDOW_TEST is set (CI sets it), so a
//! missing display can never hide a failure in CI.
#![cfg(feature = "app")]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// How to reach a display: through xvfb-run, directly, or not at all.
fn display_command() -> Option<Command> {
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

/// Decodes an RGB(A) PNG into pixels.
fn pixels(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
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

fn screenshot(scene: &str, frames: &str, draw: &str) -> PathBuf {
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
        .args([
            scene,
            "--frames",
            frames,
            "--screenshot",
            out.to_str().unwrap(),
            "--draw",
            draw,
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

fn assert_real_picture(path: &Path) {
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

#[test]
fn default_scene_with_colliders_and_contacts() {
    assert_real_picture(&screenshot(
        "scenes/default.ron",
        "240",
        "colliders,contacts,velocities",
    ));
}

#[test]
fn pyramid_with_tree_and_islands() {
    assert_real_picture(&screenshot(
        "scenes/pyramid.ron",
        "200",
        "tree,islands,centers",
    ));
}

#[test]
fn pile_with_aabbs_and_touching() {
    assert_real_picture(&screenshot("scenes/pile.ron", "200", "aabbs,touching"));
}

#[test]
fn stress_flag_runs_the_stress_test_in_the_window() {
    let Some(mut command) = display_command() else {
        assert!(
            std::env::var_os("IMPULSE_REQUIRE_WINDOW_TEST").is_none(),
            "no display for the stress test"
        );
        return;
    };
    let result = command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["scenes/stack.ron", "--stress", "--frames", "90"])
        .output()
        .expect("start the window");
    assert_eq!(
        result.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let stdout = String::from_utf8_lossy(&result.stdout);
    // Either finished (FPS fell under 30) or still spawning after 90 frames; both say how many.
    assert!(
        stdout.contains("stress:") && stdout.contains("bodies"),
        "{stdout}"
    );
    // 4 bodies per frame: after 90 frames well past the scene's 21.
    let count: usize = stdout
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .max()
        .unwrap_or(0);
    assert!(count > 21, "{stdout}");
}
