//! The sandbox without a window: loading, hot reload, saving, spawning, dragging, stepping.

use super::*;

const TWO_BOXES: &str = "Scene(bodies: [
    (name: \"ground\", kind: Static, colliders: [(shape: Plane(normal: (0.0, 1.0, 0.0)))]),
    (name: \"a\", position: (0.0, 0.5, 0.0), colliders: [(shape: Cuboid(half_extents: (0.5, 0.5, 0.5)))]),
    (name: \"b\", position: (3.0, 0.5, 0.0), colliders: [(shape: Cuboid(half_extents: (0.5, 0.5, 0.5)))]),
])";

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("impulse-sandbox-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn sandbox_on(path: &Path) -> Sandbox {
    let (scene, source, text) = load_initial(Some(path)).unwrap();
    Sandbox::new(scene, source, text)
}

#[test]
fn a_broken_file_shows_its_error_and_keeps_the_scene() {
    let good = temp_file("good.ron", TWO_BOXES);
    let mut s = sandbox_on(&good);
    s.step_once();
    let bad = temp_file(
        "bad.ron",
        "Scene(bodies: [(name: \"x\", colliders: [(shape: Sphere(radius: -1.0))])])",
    );
    assert!(!s.load(&bad));
    let error = s.error.clone().unwrap();
    assert!(
        error.contains("bad.ron") && error.contains("radius"),
        "{error}"
    );
    // The scene loaded before the broken file is still there and still runs.
    assert_eq!(s.world.body_count(), 3);
    assert_eq!(s.world.step_count(), 1);
    s.step_once();
    assert_eq!(s.world.step_count(), 2);
    // The running scene's watch is untouched: the good file did not change, so it is not
    // reloaded (which would restart it at step 0), and the error stays until dismissed.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(&bad, "Scene(bodies: [").unwrap();
    assert!(!s.load(&bad));
    assert!(!s.hot_reload());
    assert_eq!(s.world.step_count(), 2);
    assert!(s.error.as_deref().unwrap_or("").contains("bad.ron:1:"));
    assert_eq!(s.source, Source::File(good.clone()));
}

#[test]
fn hot_reload_picks_up_edits_and_survives_broken_ones() {
    let path = temp_file("hot.ron", TWO_BOXES);
    let mut s = sandbox_on(&path);
    assert!(!s.hot_reload(), "nothing changed yet");
    // Some file systems keep whole-second times: make the change visible.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(
        &path,
        TWO_BOXES.replace("(3.0, 0.5, 0.0)", "(6.0, 0.5, 0.0)"),
    )
    .unwrap();
    assert!(s.hot_reload());
    let b = s
        .meta
        .iter()
        .find(|(_, m)| m.name == "b")
        .map(|(h, _)| *h)
        .unwrap();
    assert_eq!(s.world.body(b).unwrap().position().x, 6.0);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(&path, "Scene(bodies: [").unwrap();
    assert!(!s.hot_reload());
    assert!(s.error.as_deref().unwrap_or("").contains("hot.ron:1:"));
    assert_eq!(s.world.body_count(), 3, "the last good scene keeps running");
    assert!(
        !s.hot_reload(),
        "a broken version is not retried until it changes again"
    );
}

#[test]
fn save_as_writes_a_scene_that_loads_back() {
    let path = temp_file("save-src.ron", TWO_BOXES);
    let mut s = sandbox_on(&path);
    for _ in 0..10 {
        s.step_once();
    }
    let out = temp_file("saved.ron", "");
    s.save_as(&out, &CameraDesc::default());
    assert!(s.error.is_none(), "{:?}", s.error);
    let again = sandbox_on(&out);
    assert_eq!(again.world.body_count(), 3);
    let names: Vec<_> = again.meta.values().map(|m| m.name.clone()).collect();
    assert_eq!(names, ["ground", "a", "b"]);
}

#[test]
fn spawn_scale_and_delete() {
    let path = temp_file("edit.ron", TWO_BOXES);
    let mut s = sandbox_on(&path);
    s.spawn.shape = SpawnShape::Box;
    s.spawn.size = 0.5;
    s.spawn.density = 2.0;
    let h = s
        .spawn_at(Vec3::new(0.0, 5.0, 0.0), Vec3::new(1.0, 0.0, 0.0))
        .unwrap();
    assert_eq!(s.selected, Some(h));
    // A 1 m cube of density 2 weighs 2 kg; scaling by 2 multiplies the mass by 2³.
    let m0 = s.world.body(h).unwrap().mass();
    assert!((m0 - 2.0).abs() < 1e-5);
    s.scale_body(h, 2.0);
    assert!((s.world.body(h).unwrap().mass() - 16.0).abs() < 1e-3);
    assert_eq!(
        s.world.body(h).unwrap().linear_velocity(),
        Vec3::new(1.0, 0.0, 0.0)
    );
    s.delete_selected();
    assert!(s.world.body(h).is_none());
    assert_eq!(s.world.body_count(), 3);
    // Every spawnable shape builds.
    for shape in SpawnShape::ALL {
        s.spawn.shape = shape;
        assert!(
            s.spawn_at(Vec3::new(0.0, 3.0, 0.0), Vec3::ZERO).is_some(),
            "{shape:?}"
        );
    }
}

#[test]
fn compound_presets_sum_their_parts() {
    // Size 1, density 1. The L-shape: a bar 2 × 0.5 × 0.5 (0.5 m³) at the origin and a
    // post 0.5 × 1.5 × 0.5 (0.375 m³) centred at (−0.75, 1, 0): mass 0.875 kg, centre of
    // mass (−0.75·0.375, 1·0.375, 0)/0.875 in the body frame. The table: a top
    // 2.4 × 0.2 × 1.6 (0.768 m³) and four legs 0.16 × 0.9 × 0.16 (0.02304 m³ each). The
    // dumbbell: two balls of radius 0.6 and a capsule of half height 1 and radius 0.2,
    // 2·(4/3)π·0.6³ + π·0.2²·2 + (4/3)π·0.2³, symmetric about its centre.
    use std::f32::consts::PI;
    let path = temp_file("compound.ron", TWO_BOXES);
    let mut s = sandbox_on(&path);
    s.spawn.size = 1.0;
    s.spawn.density = 1.0;
    let expected = [
        (
            SpawnShape::LShape,
            2,
            0.875,
            Vec3::new(-0.75 * 0.375 / 0.875, 0.375 / 0.875, 0.0),
        ),
        (
            SpawnShape::Table,
            5,
            0.768 + 4.0 * 0.02304,
            Vec3::new(0.0, 0.55 * 0.768 / (0.768 + 4.0 * 0.02304), 0.0),
        ),
        (
            SpawnShape::Dumbbell,
            3,
            2.0 * 4.0 / 3.0 * PI * 0.216 + PI * 0.04 * 2.0 + 4.0 / 3.0 * PI * 0.008,
            Vec3::ZERO,
        ),
    ];
    for (shape, colliders, mass, center) in expected {
        s.spawn.shape = shape;
        let h = s.spawn_at(Vec3::new(0.0, 3.0, 0.0), Vec3::ZERO).unwrap();
        let body = s.world.body(h).unwrap();
        assert_eq!(s.world.body_colliders(h).count(), colliders, "{shape:?}");
        assert!(
            (body.mass() - mass).abs() < 1e-4 * mass,
            "{shape:?}: {} kg, expected {mass}",
            body.mass()
        );
        let local = body.local_center_of_mass();
        assert!(
            (local - center).length() < 1e-4,
            "{shape:?}: centre {local}, expected {center}"
        );
    }
}

/// Holds the box "a" by `local_point` with the target following `path(t)` for `steps`;
/// returns the largest |ω| seen and the final (|v|, |ω|, |grab point − target|).
fn hold(
    file: &str,
    local_point: Vec3,
    steps: usize,
    path: impl Fn(f32, Vec3) -> Vec3,
) -> (f32, f32, f32, f32) {
    let path_file = temp_file(file, TWO_BOXES);
    let mut s = sandbox_on(&path_file);
    let a = s
        .meta
        .iter()
        .find(|(_, m)| m.name == "a")
        .map(|(h, _)| *h)
        .unwrap();
    let body = s.world.body(a).unwrap();
    let start = body.position() + body.rotation() * local_point;
    s.grab = Some(Grab {
        body: a,
        local_point,
        distance: 5.0,
        target: start,
    });
    let mut max_spin = 0.0f32;
    for i in 0..steps {
        let t = (i + 1) as f32 * s.timestep;
        s.grab.as_mut().unwrap().target = path(t, start);
        s.step_once();
        max_spin = max_spin.max(s.world.body(a).unwrap().angular_velocity().length());
    }
    let body = s.world.body(a).unwrap();
    let point = body.position() + body.rotation() * local_point;
    (
        max_spin,
        body.linear_velocity().length(),
        body.angular_velocity().length(),
        (point - s.grab.unwrap().target).length(),
    )
}

#[test]
fn a_body_held_by_its_corner_hangs_still_under_the_cursor() {
    // Lifted 2 m by a corner over one second, then held for two: a rigid spring at the
    // corner would spin the box up. The soft constraint sags by g/ω² = 9.81/(2π·5)² ≈ 1 cm
    // under the weight; the box swings until its centre hangs below the corner, damped.
    let corner = Vec3::new(0.5, 0.5, 0.5);
    let lift = |t: f32, start: Vec3| start + Vec3::Y * 2.0 * t.min(1.0);
    let (max_spin, v, w, gap) = hold("hang.ron", corner, 180, lift);
    assert!(v < 0.5 && w < 2.0, "|v| = {v}, |ω| = {w}");
    assert!(gap < 0.05, "the corner is {gap} m from the cursor");
    assert!(max_spin < 10.0, "spun up to {max_spin} rad/s");
}

#[test]
fn a_body_follows_a_moving_cursor_without_spinning_up() {
    // The cursor lifts the box 1 m, then circles 2 m wide once every 2 s (3.1 m/s): the
    // box trails by a little and never spins up.
    let corner = Vec3::new(0.5, 0.5, -0.5);
    let circle = |t: f32, start: Vec3| {
        let a = std::f32::consts::PI * t;
        start + Vec3::new(a.cos() - 1.0, 1.0, a.sin())
    };
    let (max_spin, _, _, gap) = hold("follow.ron", corner, 240, circle);
    assert!(gap < 0.5, "trails the cursor by {gap} m");
    assert!(max_spin < 15.0, "spun up to {max_spin} rad/s");
}

#[test]
fn the_accumulator_steps_fixed_dts_and_caps_slow_frames() {
    let path = temp_file("time.ron", TWO_BOXES);
    let mut s = sandbox_on(&path);
    // Two and a half steps of real time: two steps, half a step carried over, which
    // with 0.6 more makes one more.
    assert_eq!(s.advance(2.5 * s.timestep, 4), 2);
    assert_eq!(s.advance(0.6 * s.timestep, 4), 1);
    // A one-second hitch: at most four steps, the rest dropped.
    assert_eq!(s.advance(1.0, 4), 4);
    assert!(s.accumulator <= s.timestep);
    s.playing = false;
    assert_eq!(s.advance(1.0, 4), 0);
}
