//! The real window under a display: `impulse SCENE --frames N --screenshot OUT.png --draw ...`
//! exits 0 and the screenshot is a real picture (many colours, none covering most of it).
//!
//! Needs a display: `xvfb-run` (installed by `.ci/run`) or a desktop session. Without either
//! the test says so and passes, unless IMPULSE_REQUIRE_WINDOW_TEST is set (CI sets it), so a
//! missing display can never hide a failure in CI.
#![cfg(feature = "app")]

use std::path::Path;

mod harness;

use harness::*;

#[test]
fn default_scene_with_colliders_and_contacts() {
    assert_real_picture(&screenshot(
        "scenes/default.ron",
        "240",
        "colliders,contacts,velocities",
        "4",
    ));
}

#[test]
fn pyramid_with_tree_and_islands() {
    assert_real_picture(&screenshot(
        "scenes/pyramid.ron",
        "200",
        "tree,islands,centers",
        SAMPLES,
    ));
}

#[test]
fn pile_with_aabbs_and_touching() {
    // 60 frames: the bottom layers have landed (touching pairs drawn), the top ones still
    // fall (their AABBs stretched along the motion). A thousand lit cubes take a quarter of
    // a second a frame in software rendering (Mesa's llvmpipe, as in CI); 200 frames made
    // this the longest test of `cargo test` (57 s).
    assert_real_picture(&screenshot(
        "scenes/pile.ron",
        "60",
        "aabbs,touching",
        SAMPLES,
    ));
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
        .args(["--msaa", SAMPLES])
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

#[test]
fn bad_values_typed_into_the_panel_are_refused_with_a_message() {
    // Select the box, type a position 10⁴ km out into the Object panel's x field, then a
    // density of 1e-40 into its density slider's box (the panel on the right; see
    // `VIEW_CENTRE`). Each is refused with the field named; the box stays put and the world
    // keeps stepping, one step per frame.
    let scene = box_scene("typed");
    let Some(selected) = layout("typed", scene.to_str().unwrap(), true) else {
        return;
    };
    let Some(unselected) = layout("typed-spawn", scene.to_str().unwrap(), false) else {
        return;
    };
    let mut events = click(3, VIEW_CENTRE).to_vec();
    // The first of the position's three fields (x).
    events.extend(type_into(8, widget(&selected, "position", 0.1), "1e9"));
    let Some(state) = scripted("typed-position", scene.to_str().unwrap(), &events, 30, &[]) else {
        return;
    };
    assert_eq!(state["selected"], "box");
    let error = state["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("box: position.x") && error.contains("at most 100000 m"),
        "{error}"
    );
    assert!(
        state["world"]["bodies"][1]["position"][0]
            .as_f64()
            .unwrap()
            .abs()
            < 1e-3
    );
    assert_eq!(state["world"]["steps"], 30);

    let mut events = click(3, VIEW_CENTRE).to_vec();
    // The density slider's value box, at its right end.
    events.extend(type_into(
        8,
        widget(&selected, "body density", 0.93),
        "1e-40",
    ));
    let Some(state) = scripted("typed-density", scene.to_str().unwrap(), &events, 30, &[]) else {
        return;
    };
    let error = state["error"].as_str().unwrap_or_default();
    assert!(error.contains("box: density 1e-40"), "{error}");
    // The box kept its mass: it still rests on the ground, its centre 1 m up.
    let y = state["world"]["bodies"][1]["position"][1].as_f64().unwrap();
    assert!((y - 1.0).abs() < 0.01, "box centre at y = {y}");
    assert_eq!(state["world"]["steps"], 30);

    // A spawn size of infinity, then Throw: refused, nothing spawned.
    let mut events = type_into(3, widget(&unselected, "spawn size", 0.93), "inf");
    events.extend(click(10, widget(&unselected, "throw", 0.5)));
    let Some(state) = scripted("typed-size", scene.to_str().unwrap(), &events, 30, &[]) else {
        return;
    };
    let error = state["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("cannot spawn: spawn size must be between") && error.contains("got inf"),
        "{error}"
    );
    assert_eq!(state["world"]["bodies"].as_array().unwrap().len(), 2);
    assert_eq!(state["world"]["steps"], 30);
}

#[test]
fn a_body_dragged_up_and_held_for_two_seconds_hangs_still() {
    // A 2 m cube straight ahead of the camera; right-drag grabs it at the view's centre (on
    // its front face) and lifts the cursor 200 px over 40 frames, then holds still for two
    // seconds (120 frames at one step per frame).
    let scene = box_scene("drag");
    let events = right_drag_up(3, 40, 5.0);
    let Some(state) = scripted("drag", scene.to_str().unwrap(), &events, 165, &[]) else {
        return;
    };
    assert_eq!(state["grabbing"], true, "{state}");
    assert_eq!(state["selected"], "box");
    let body = &state["world"]["bodies"][1];
    let len = |v: &serde_json::Value| {
        (0..3)
            .map(|i| v[i].as_f64().unwrap().powi(2))
            .sum::<f64>()
            .sqrt()
    };
    let (v, w) = (
        len(&body["linear_velocity"]),
        len(&body["angular_velocity"]),
    );
    assert!(v < 0.5 && w < 2.0, "|v| = {v} m/s, |ω| = {w} rad/s");
    // The grabbed point (about 9 m away) rises 200/430 · tan 22.5° · 9 ≈ 1.7 m, to about
    // 2.7 m; the cube hangs from it with its centre at most 1 m (face to centre) lower.
    let height = body["position"][1].as_f64().unwrap();
    assert!(height > 1.6, "lifted only to {height} m");
}

#[test]
fn load_on_a_broken_file_keeps_the_scene_running_and_shows_the_error() {
    let dir = script_dir();
    let broken = dir.join("broken.ron");
    std::fs::write(
        &broken,
        "Scene(bodies: [(name: \"x\", colliders: [(shape: Sphere(radius: -1.0))])])\n",
    )
    .unwrap();
    let Some(panel) = layout("load", "scenes/stack.ron", false) else {
        return;
    };
    let events = load_by_path(&panel, &broken);
    let Some(state) = scripted("load", "scenes/stack.ron", &events, 60, &[]) else {
        return;
    };
    let error = state["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("broken.ron:1:") && error.contains("radius"),
        "{state}"
    );
    // The stack kept running from the start: one step per frame, never restarted.
    assert_eq!(state["world"]["steps"], 60, "{state}");
    assert_eq!(state["source"], "scenes/stack.ron");
    assert_eq!(state["world"]["bodies"].as_array().unwrap().len(), 21);
}

#[test]
fn a_scene_from_outside_the_list_leaves_the_scene_groups_as_they_were() {
    // The stack opens its group (Stacking) in the scene browser. Loading a file that is in
    // no group must not close it: the buttons under the groups (Load, Save; Open file… and
    // Download in a browser) stay where the user just clicked.
    // Not in the save folder either (the tests' own folder), whose files the list shows.
    let elsewhere = script_dir().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let outside = elsewhere.join("outside.ron");
    std::fs::rename(box_scene("outside"), &outside).unwrap();
    let Some(panel) = layout("outside", "scenes/stack.ron", false) else {
        return;
    };
    let events = load_by_path(&panel, &outside);
    // 40 frames after the click: any collapsing header's animation (0.1 s) has ended.
    let Some(state) = scripted("outside", "scenes/stack.ron", &events, 56, &[]) else {
        return;
    };
    assert_eq!(state["source"], outside.display().to_string(), "{state}");
    assert_eq!(state["world"]["bodies"].as_array().unwrap().len(), 2);
    let (before, after) = (widget(&panel, "load", 0.5), widget(&state, "load", 0.5));
    assert!(
        (after.1 - before.1).abs() < 0.5,
        "the Load button moved from y = {} to {}",
        before.1,
        after.1
    );
}

#[test]
fn ten_wheel_notches_scroll_the_panel() {
    // In a 300 px high window the left panel's sections reach far below the bottom.
    let mut events = vec![at(3, "MouseMove(150.0, 200.0)")];
    for k in 0..10 {
        events.push(at(5 + k, "Wheel(-1.0)"));
    }
    let Some(state) = scripted(
        "wheel",
        "scenes/default.ron",
        &events,
        20,
        &["--size", "1000x300"],
    ) else {
        return;
    };
    let scrolled = state["panel_scroll"].as_f64().unwrap();
    assert!(scrolled >= 200.0, "scrolled {scrolled} px");
}

#[test]
fn the_camera_cannot_orbit_under_the_floor_and_f_frames_from_above() {
    // Drag 600 px upwards (which tilts the view up from below), then press F.
    let (x, y) = VIEW_CENTRE;
    let mut events = vec![
        at(3, &format!("MouseMove({x:.1}, {y:.1})")),
        at(4, "ButtonDown(Left)"),
    ];
    for k in 1..=20 {
        events.push(at(
            4 + k,
            &format!("MouseMove({x:.1}, {:.1})", y - 30.0 * k as f32),
        ));
    }
    events.push(at(25, "ButtonUp(Left)"));
    events.push(at(27, "Key(\"F\")"));
    let Some(state) = scripted("floor", "scenes/default.ron", &events, 30, &[]) else {
        return;
    };
    // The default scene's ground plane is y = 0; the eye keeps 0.3 m above it.
    let eye_y = state["camera"]["eye"][1].as_f64().unwrap();
    assert!(eye_y >= 0.3 - 1e-3, "eye at y = {eye_y}");
    // The drag did act (the pitch is not the scene's 20-odd degrees any more).
    let pitch = state["camera"]["pitch_deg"].as_f64().unwrap();
    assert!(pitch < 10.0, "pitch {pitch}°");
}

#[test]
fn b_steps_back_through_the_recorded_history_while_paused() {
    // The default scene plays one step per frame; Space at frame 60 pauses before that
    // frame's step (input comes first: 60 steps taken); B ten times then shows step 50, with
    // the present kept at 60.
    let mut events = vec![at(60, "Key(\"Space\")")];
    for k in 0..10 {
        events.push(at(62 + 2 * k, "Key(\"B\")"));
    }
    let Some(state) = scripted("rewind", "scenes/default.ron", &events, 90, &[]) else {
        return;
    };
    assert_eq!(state["playing"], false, "{state}");
    let head = state["timeline"]["head"].as_u64().unwrap();
    let step = state["world"]["steps"].as_u64().unwrap();
    assert_eq!(head, 60, "{}", state["timeline"]);
    assert_eq!(step, head - 10);
    assert_eq!(state["timeline"]["oldest"], 0);
}

#[test]
fn the_player_walks_with_the_keys_and_slides_along_a_wall() {
    // topdown.ron: the player starts at (0, 1); D walks it east (+x, the camera looks
    // along −z) at 4 m/s for 135 frames (9 m, more than the 7.7 m to the east wall, clear of
    // the pillars and crates), so it stops against the wall's face x = 8 at
    // 8 − 0.3 − SLIDE_SKIN = 7.695. Then W+D for 30 frames: the diagonal's part along the
    // wall, 4/√2 m/s, carries it 30/60 · 2.83 = 1.41 m north (−z) along the wall.
    let events = [
        at(5, "KeyDown(\"D\")"),
        at(140, "KeyDown(\"W\")"),
        at(170, "KeyUp(\"W\")"),
        at(170, "KeyUp(\"D\")"),
    ];
    let Some(state) = scripted("walk", "scenes/topdown.ron", &events, 180, &[]) else {
        return;
    };
    let bodies = state["world"]["bodies"].as_array().unwrap();
    let player = bodies
        .iter()
        .find(|b| b["name"] == "player")
        .expect("the player");
    let p = |i: usize| player["position"][i].as_f64().unwrap();
    assert!((p(0) - 7.695).abs() < 0.01, "x = {}", p(0));
    assert!((p(1) - 0.82).abs() < 1e-6, "it stays on its height");
    let north = 1.0 - p(2);
    assert!(
        (1.3..1.55).contains(&north),
        "slid {north} m along the wall"
    );
    // Keys released: it stands still.
    let v = &player["linear_velocity"];
    assert!((0..3).all(|i| v[i].as_f64().unwrap().abs() < 1e-6), "{v}");
}

#[test]
fn a_body_is_joined_to_the_ground_from_the_panel() {
    // Select the box, press Join… in the Object panel (a ball joint, the default), then click
    // the ground to the lower right of the box: the box is fixed to the world at that point
    // on the floor (y = 0, right of and nearer than the box), and it still stands on the
    // floor (a joint to the world leaves it colliding with the ground).
    let scene = box_scene("join");
    let Some(selected) = layout("join", scene.to_str().unwrap(), true) else {
        return;
    };
    let mut events = click(3, VIEW_CENTRE).to_vec();
    events.extend(click(8, widget(&selected, "join", 0.5)));
    events.extend(click(13, (VIEW_CENTRE.0 + 185.0, 700.0)));
    let Some(state) = scripted("join", scene.to_str().unwrap(), &events, 60, &[]) else {
        return;
    };
    let joints = state["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 1, "{state}");
    let joint = &joints[0];
    assert_eq!(joint["kind"], "ball joint");
    assert_eq!(joint["a"], "box");
    assert!(joint["b"].is_null());
    let anchor = |i: usize| joint["anchors"][1][i].as_f64().unwrap();
    assert!(
        anchor(1).abs() < 1e-4 && anchor(0) > 0.5 && anchor(2) > 1.0,
        "{joint}"
    );
    let height = state["world"]["bodies"][1]["position"][1].as_f64().unwrap();
    assert!((height - 1.0).abs() < 0.01, "the box at {height} m");
}

#[test]
fn a_narrow_window_keeps_most_of_its_width_for_the_view_and_tab_gives_it_all() {
    let Some(state) = scripted(
        "narrow",
        "scenes/default.ron",
        &[],
        8,
        &["--size", "1000x700"],
    ) else {
        return;
    };
    let width = state["view"][2].as_f64().unwrap();
    assert!(width >= 600.0, "the view is {width} px of 1000");
    assert_eq!(state["panels"]["left"], true);
    assert_eq!(state["panels"]["right"], true);

    let events = [at(3, "Key(\"Tab\")")];
    let Some(state) = scripted(
        "narrow-tab",
        "scenes/default.ron",
        &events,
        8,
        &["--size", "1000x700"],
    ) else {
        return;
    };
    assert_eq!(state["view"][0], 0.0, "{}", state["view"]);
    assert_eq!(state["view"][2], 1000.0, "{}", state["view"]);
    assert_eq!(state["panels"]["left"], false);
    assert_eq!(state["panels"]["right"], false);
}

#[test]
fn opening_the_solver_section_moves_nothing_sideways() {
    // The Solver section holds the widest rows of the left panel (long labels, a combo box
    // with "semi-implicit Euler"): opening it must not widen the panel and move the view.
    for size in ["1400x860", "1000x700"] {
        let Some(before) = scripted(
            "solver-closed",
            "scenes/default.ron",
            &[],
            8,
            &["--size", size],
        ) else {
            return;
        };
        let events = click(3, widget(&before, "solver", 0.3));
        let Some(after) = scripted(
            "solver-open",
            "scenes/default.ron",
            &events,
            8,
            &["--size", size],
        ) else {
            return;
        };
        // Open: the next widget down (Spawn's size) moved down, the view did not change.
        let below = |s: &serde_json::Value| widget(s, "spawn size", 0.5).1;
        assert!(
            below(&after) > below(&before) + 100.0,
            "{size}: the section did not open"
        );
        for i in 0..4 {
            let (a, b) = (before["view"][i].as_f64(), after["view"][i].as_f64());
            let moved = (a.unwrap() - b.unwrap()).abs();
            assert!(
                moved < 0.5,
                "{size}: {} then {}",
                before["view"],
                after["view"]
            );
        }
    }
}

#[test]
fn f1_opens_the_help_and_escape_closes_it() {
    let events = [at(3, "Key(\"F1\")")];
    let Some(state) = scripted("help", "scenes/default.ron", &events, 6, &[]) else {
        return;
    };
    assert_eq!(state["help"], true);
    let events = [at(3, "Key(\"F1\")"), at(5, "Key(\"Escape\")")];
    let Some(state) = scripted("help-closed", "scenes/default.ron", &events, 8, &[]) else {
        return;
    };
    assert_eq!(state["help"], false);
}

#[test]
fn ten_wheel_notches_zoom_toward_the_point_under_the_cursor() {
    // The box scene's camera (eye (0, 3, 10), target (0, 1, 0), 45°); the cursor on the
    // floor right of and below the box. Each notch scales eye and target about the point
    // under the cursor by 0.9, so after ten the distance is 0.9¹⁰ of what it was and that
    // point, recovered as P = (eye' − f·eye)/(1 − f), lies on the floor and shows under the
    // cursor before and after.
    let scene = box_scene("zoom");
    let cursor = (VIEW_CENTRE.0 + 220.0, VIEW_CENTRE.1 + 200.0);
    let mut events = vec![at(
        3,
        &format!("MouseMove({:.1}, {:.1})", cursor.0, cursor.1),
    )];
    for k in 0..10 {
        events.push(at(5 + k, "Wheel(1.0)"));
    }
    let Some(before) = scripted(
        "zoom-before",
        scene.to_str().unwrap(),
        &events[..1],
        20,
        &[],
    ) else {
        return;
    };
    let Some(after) = scripted("zoom", scene.to_str().unwrap(), &events, 20, &[]) else {
        return;
    };
    let distance = |s: &serde_json::Value| s["camera"]["distance"].as_f64().unwrap();
    let f = distance(&after) / distance(&before);
    assert!((f - 0.9f64.powi(10)).abs() < 1e-4, "distance ×{f}");
    let eye = |s: &serde_json::Value, i: usize| s["camera"]["eye"][i].as_f64().unwrap();
    let p = [0, 1, 2].map(|i| (eye(&after, i) - f * eye(&before, i)) / (1.0 - f));
    assert!(
        p[1].abs() < 1e-3,
        "zoomed about {p:?}, not a point on the floor"
    );
    assert!(
        p[0] > 1.0 && p[2] > 1.0,
        "zoomed about {p:?}: right of and nearer than the box"
    );
    for state in [&before, &after] {
        let (x, y) = on_screen(state, 45.0, p);
        assert!(
            (x - cursor.0 as f64).abs() < 3.0 && (y - cursor.1 as f64).abs() < 3.0,
            "the point shows at ({x:.1}, {y:.1}), the cursor is at {cursor:?}"
        );
    }
}

#[test]
fn a_flicked_body_is_let_go_at_the_speed_cap() {
    // Right-drag the box at the view's centre and flick the cursor up 60 px a frame for four
    // frames (about 30 m/s at the box's distance), then let go: the box leaves upward at
    // grab::RELEASE_MAX_SPEED = 10 m/s, less one step of gravity (9.81/60 m/s).
    let scene = box_scene("flick");
    let mut events = right_drag_up(3, 4, 60.0);
    events.push(at(9, "ButtonUp(Right)"));
    let Some(state) = scripted("flick", scene.to_str().unwrap(), &events, 11, &[]) else {
        return;
    };
    assert_eq!(state["grabbing"], false);
    let v = &state["world"]["bodies"][1]["linear_velocity"];
    let v = [0, 1, 2].map(|i| v[i].as_f64().unwrap());
    let speed = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    assert!(
        (9.5..=10.01).contains(&speed) && v[1] > 9.0,
        "let go at {v:?} ({speed} m/s)"
    );
}

#[test]
fn a_scene_saved_from_the_window_steps_as_the_original() {
    // Space on the first frame pauses before any step; Save writes the world to the path its
    // field suggests (in IMPULSE_SAVE_DIR, here the test's folder). The ragdolls (ball
    // joints with cones, hinges with limits) saved so step the same bits as the file.
    let Some(panel) = layout("save", "scenes/ragdoll.ron", false) else {
        return;
    };
    let mut events = vec![at(0, "Key(\"Space\")")];
    events.extend(click(3, widget(&panel, "save", 0.5)));
    let Some(state) = scripted("save", "scenes/ragdoll.ron", &events, 8, &[]) else {
        return;
    };
    assert_eq!(state["world"]["steps"], 0, "{state}");
    assert!(state["error"].is_null(), "{}", state["error"]);
    let saved = script_dir().join("ragdoll-2.ron");
    let text = std::fs::read_to_string(&saved).expect("the saved scene");
    assert!(text.starts_with("// Two ragdolls"), "the description kept");
    let original = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/ragdoll.ron");
    assert_eq!(run_hash(&saved, 120), run_hash(&original, 120));
}

#[test]
fn f_frames_the_selection_with_room_around_it() {
    // The 2 m cube selected, F: the view takes in the cube and a cube's width of room on
    // every side (a 6 m box), centred on it, so the camera is well back from it (about 4 m
    // would fill the view with the cube alone).
    let scene = box_scene("frame");
    let mut events = click(3, VIEW_CENTRE).to_vec();
    events.push(at(8, "Key(\"F\")"));
    let Some(state) = scripted("frame", scene.to_str().unwrap(), &events, 10, &[]) else {
        return;
    };
    assert_eq!(state["selected"], "box");
    let target = &state["camera"]["target"];
    let t = |i: usize| target[i].as_f64().unwrap();
    assert!(
        t(0).abs() < 0.01 && (t(1) - 1.0).abs() < 0.01 && t(2).abs() < 0.01,
        "{target}"
    );
    let distance = state["camera"]["distance"].as_f64().unwrap();
    assert!((9.0..20.0).contains(&distance), "distance {distance} m");
}

#[test]
fn the_camera_follows_the_selected_body() {
    // A ball rolling along +x at 2 m/s (spinning to match); selected and followed from
    // about frame 9, the camera's target moves with it by the same 1.7 m or so by frame 60,
    // along x only.
    let scene = scene_with(
        "follow",
        r#"(name: "ball", position: (0.0, 1.0, 0.0), linear_velocity: (2.0, 0.0, 0.0),
            angular_velocity: (0.0, 0.0, -2.0), colliders: [(shape: Sphere(radius: 1.0))])"#,
    );
    let Some(selected) = layout("follow", scene.to_str().unwrap(), true) else {
        return;
    };
    let mut events = click(3, VIEW_CENTRE).to_vec();
    events.extend(click(6, widget(&selected, "follow", 0.2)));
    let Some(state) = scripted("follow", scene.to_str().unwrap(), &events, 60, &[]) else {
        return;
    };
    assert_eq!(state["following"], "ball", "{state}");
    let ball_x = state["world"]["bodies"][1]["position"][0].as_f64().unwrap();
    let target = &state["camera"]["target"];
    let t = |i: usize| target[i].as_f64().unwrap();
    // Followed from frame 8 or 9: the ball was at 2·8/60 to 2·9/60 m then.
    assert!(
        (ball_x - 0.31..=ball_x - 0.25).contains(&t(0)),
        "target x {} for the ball at {ball_x}",
        t(0)
    );
    assert!((t(1) - 1.0).abs() < 1e-4 && t(2).abs() < 1e-4, "{target}");
}

#[test]
fn a_right_click_on_a_bodys_position_plots_it() {
    // A ball thrown up at 6 m/s, selected on the first frames (paused, so it is where the
    // click lands); a right click on its position opens the plot menu, "Plot position y"
    // adds the series, and play samples it every step: its last value is the ball's height.
    let scene = scene_with(
        "plot",
        r#"(name: "ball", position: (0.0, 1.0, 0.0), linear_velocity: (0.0, 6.0, 0.0),
            colliders: [(shape: Sphere(radius: 0.5))])"#,
    );
    let Some(selected) = layout("plot", scene.to_str().unwrap(), true) else {
        return;
    };
    let mut events = vec![at(0, "Key(\"Space\")")];
    events.extend(click(1, VIEW_CENTRE));
    let field = widget(&selected, "position", 0.2);
    events.extend([
        at(5, &format!("MouseMove({:.1}, {:.1})", field.0, field.1)),
        at(6, "ButtonDown(Right)"),
        at(7, "ButtonUp(Right)"),
    ]);
    let Some(menu) = scripted("plot-menu", scene.to_str().unwrap(), &events, 9, &[]) else {
        return;
    };
    events.extend(click(10, widget(&menu, "plot position y", 0.5)));
    events.push(at(14, "Key(\"Space\")"));
    let Some(state) = scripted("plot", scene.to_str().unwrap(), &events, 80, &[]) else {
        return;
    };
    let plots = state["plots"].as_array().unwrap();
    assert_eq!(plots.len(), 1, "{state}");
    assert_eq!(plots[0]["label"], "ball position y");
    // Played from frame 14: one sample a step from then (66), and the paused step 0.
    let samples = plots[0]["samples"].as_u64().unwrap();
    assert!((60..=70).contains(&samples), "{samples} samples");
    let y = state["world"]["bodies"][1]["position"][1].as_f64().unwrap();
    let last = plots[0]["last"].as_f64().unwrap();
    assert!((last - y).abs() < 1e-6, "last sample {last}, ball at {y}");
}

#[test]
fn ctrl_z_brings_back_a_body_deleted_while_paused_and_ctrl_shift_z_deletes_it_again() {
    let scene = box_scene("undo");
    let mut events = vec![at(0, "Key(\"Space\")")];
    events.extend(click(1, VIEW_CENTRE));
    events.push(at(5, "Key(\"Delete\")"));
    let undo = [
        at(8, "KeyDown(\"LeftControl\")"),
        at(9, "Key(\"Z\")"),
        at(10, "KeyUp(\"LeftControl\")"),
    ];
    events.extend(undo.clone());
    let Some(state) = scripted("undo", scene.to_str().unwrap(), &events, 12, &[]) else {
        return;
    };
    let bodies = state["world"]["bodies"].as_array().unwrap();
    assert_eq!(bodies.len(), 2, "{state}");
    assert_eq!(bodies[1]["name"], "box");
    assert_eq!(state["world"]["steps"], 0);
    assert_eq!(
        (state["undo"].as_u64(), state["redo"].as_u64()),
        (Some(0), Some(1))
    );
    events.extend([
        at(12, "KeyDown(\"LeftControl\")"),
        at(13, "KeyDown(\"LeftShift\")"),
        at(14, "Key(\"Z\")"),
        at(15, "KeyUp(\"LeftShift\")"),
        at(15, "KeyUp(\"LeftControl\")"),
    ]);
    let Some(state) = scripted("redo", scene.to_str().unwrap(), &events, 17, &[]) else {
        return;
    };
    assert_eq!(
        state["world"]["bodies"].as_array().unwrap().len(),
        1,
        "{state}"
    );
}

#[test]
fn record_replays_the_timeline_into_an_animated_gif() {
    // 42 steps played (the click lands on frame 42), then Record at the present: the last
    // 5 s kept (all 42 steps) replay one a frame and every second step is a picture of the
    // view (at 60 Hz a picture every 1/30 s): steps 2 to 42, 21 pictures, written to the
    // save folder.
    let Some(panel) = layout("record", "scenes/default.ron", false) else {
        return;
    };
    let events = click(40, widget(&panel, "record", 0.5));
    let Some(state) = scripted("record", "scenes/default.ron", &events, 100, &[]) else {
        return;
    };
    assert!(state["error"].is_null(), "{}", state["error"]);
    // The replay ends at the step Record was pressed at and stays paused there.
    assert_eq!(state["world"]["steps"], 42, "{state}");
    assert_eq!(state["timeline"]["head"], 42);
    let path = script_dir().join("default-steps-0-42.gif");
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut decoder = options.read_info(file).unwrap();
    let (width, height) = (decoder.width(), decoder.height());
    // The 854 × 838 view, halved.
    assert_eq!((width, height), (427, 419));
    let mut pictures = Vec::new();
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        assert_eq!(frame.delay, 3);
        pictures.push(frame.buffer.to_vec());
    }
    assert_eq!(pictures.len(), 21);
    // The scene moves (the ball on the ramp, the bouncing one): the first and last differ.
    let changed = pictures[0]
        .chunks(4)
        .zip(pictures[20].chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    assert!(changed > 200, "{changed} pixels changed");
}

#[test]
fn turning_off_touches_group_1_drops_the_box_through_the_ground() {
    // The ground is in group 1 (every collider without a filter is). Select the box and
    // turn off "touches 1", the first of the eight toggles: the box no longer touches the
    // ground and falls through it; the panel shows the new bits.
    let scene = box_scene("filter");
    let Some(selected) = layout("filter", scene.to_str().unwrap(), true) else {
        return;
    };
    let mut events = click(3, VIEW_CENTRE).to_vec();
    events.extend(click(8, widget(&selected, "body touches", 1.0 / 16.0)));
    let Some(state) = scripted("filter", scene.to_str().unwrap(), &events, 40, &[]) else {
        return;
    };
    assert_eq!(state["selected"], "box");
    // Released at rest at y = 1 m around frame 10, it falls freely for the remaining ~30
    // frames (0.5 s): y = 1 − ½·9.81·0.5² ≈ −0.2 m, well below where the ground held it.
    let y = state["world"]["bodies"][1]["position"][1].as_f64().unwrap();
    assert!(y < 0.5, "the box fell through the ground: y = {y}");
    assert_eq!(state["error"], serde_json::Value::Null);
}
