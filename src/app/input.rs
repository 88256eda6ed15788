//! Input: the window's events (or a script's) in one stream that feeds both egui and the
//! sandbox's own mouse and keyboard handling.
//!
//! macroquad keeps its own input state and egui-macroquad reads the window's events on its
//! own, so neither can be fed anything else. Here every event passes through [`Input`]: in a
//! normal run it comes from the window, in a scripted run (`--script`) from the script, at the
//! frame the script names, and the window's own events are ignored. The panel (egui through
//! egui-miniquad, the backend egui-macroquad is built on) and the 3D view see the same events.
//!
//! Mouse wheels report different units per platform (±1 per notch on X11, ±120 on Windows);
//! they are turned into notches here, and a notch scrolls the panel by [`SCROLL_PER_NOTCH`].

use std::collections::HashSet;
use std::path::Path;

use egui_miniquad::EguiMq;
use macroquad::miniquad::{EventHandler, KeyCode, KeyMods, MouseButton};
use macroquad::prelude::Vec2;
use serde::Deserialize;

/// Panel pixels scrolled per wheel notch.
pub const SCROLL_PER_NOTCH: f32 = 50.0;
/// egui turns a "line" of wheel into this many points (egui 0.31's default `line_scroll_speed`).
const EGUI_POINTS_PER_LINE: f32 = 40.0;

/// One input event.
#[derive(Clone, Debug, PartialEq)]
pub enum InputEvent {
    /// The cursor moved to (x, y), window pixels.
    MouseMove(f32, f32),
    /// A mouse button went down.
    ButtonDown(MouseButton),
    /// A mouse button went up.
    ButtonUp(MouseButton),
    /// Wheel notches (positive = away from the user: scroll up, zoom in).
    Wheel(f32),
    /// A key went down.
    KeyDown(KeyCode),
    /// A key went up.
    KeyUp(KeyCode),
    /// A typed character.
    Char(char),
}

/// Collects the window's events for one frame (a macroquad input subscriber).
#[derive(Default)]
struct WindowEvents {
    events: Vec<InputEvent>,
}

impl EventHandler for WindowEvents {
    fn update(&mut self) {}
    fn draw(&mut self) {}
    fn mouse_motion_event(&mut self, x: f32, y: f32) {
        self.events.push(InputEvent::MouseMove(x, y));
    }
    fn mouse_wheel_event(&mut self, _dx: f32, dy: f32) {
        // Windows reports 120 per notch (WHEEL_DELTA); X11 and macOS about 1.
        let notches = if cfg!(target_os = "windows") {
            dy / 120.0
        } else {
            dy
        };
        self.events.push(InputEvent::Wheel(notches));
    }
    fn mouse_button_down_event(&mut self, button: MouseButton, x: f32, y: f32) {
        self.events.push(InputEvent::MouseMove(x, y));
        self.events.push(InputEvent::ButtonDown(button));
    }
    fn mouse_button_up_event(&mut self, button: MouseButton, x: f32, y: f32) {
        self.events.push(InputEvent::MouseMove(x, y));
        self.events.push(InputEvent::ButtonUp(button));
    }
    fn char_event(&mut self, character: char, _mods: KeyMods, _repeat: bool) {
        self.events.push(InputEvent::Char(character));
    }
    fn key_down_event(&mut self, key: KeyCode, _mods: KeyMods, repeat: bool) {
        if !repeat {
            self.events.push(InputEvent::KeyDown(key));
        }
    }
    fn key_up_event(&mut self, key: KeyCode, _mods: KeyMods) {
        self.events.push(InputEvent::KeyUp(key));
    }
}

/// The mouse and keyboard as the sandbox sees them this frame.
#[derive(Clone, Debug, Default)]
pub struct InputState {
    /// Cursor, window pixels.
    pub mouse: Vec2,
    /// Buttons held (left, right, middle).
    down: [bool; 3],
    /// Buttons that went down this frame.
    pressed: [bool; 3],
    /// Wheel notches this frame.
    pub wheel: f32,
    /// Keys held.
    keys_down: HashSet<KeyCode>,
    /// Keys that went down this frame.
    keys_pressed: HashSet<KeyCode>,
}

fn button_index(button: MouseButton) -> Option<usize> {
    match button {
        MouseButton::Left => Some(0),
        MouseButton::Right => Some(1),
        MouseButton::Middle => Some(2),
        MouseButton::Unknown => None,
    }
}

impl InputState {
    /// Forgets what happened in the previous frame (keeps what is held).
    fn begin_frame(&mut self) {
        self.pressed = [false; 3];
        self.wheel = 0.0;
        self.keys_pressed.clear();
    }

    fn apply(&mut self, event: &InputEvent) {
        match *event {
            InputEvent::MouseMove(x, y) => self.mouse = Vec2::new(x, y),
            InputEvent::ButtonDown(b) => {
                if let Some(i) = button_index(b) {
                    self.down[i] = true;
                    self.pressed[i] = true;
                }
            }
            InputEvent::ButtonUp(b) => {
                if let Some(i) = button_index(b) {
                    self.down[i] = false;
                }
            }
            InputEvent::Wheel(n) => self.wheel += n,
            InputEvent::KeyDown(k) => {
                self.keys_down.insert(k);
                self.keys_pressed.insert(k);
            }
            InputEvent::KeyUp(k) => {
                self.keys_down.remove(&k);
            }
            InputEvent::Char(_) => {}
        }
    }

    /// Did the button go down this frame?
    pub fn button_pressed(&self, button: MouseButton) -> bool {
        button_index(button).is_some_and(|i| self.pressed[i])
    }

    /// Is any mouse button held?
    pub fn any_button_down(&self) -> bool {
        self.down.iter().any(|&d| d)
    }

    /// Did the key go down this frame?
    pub fn key_pressed(&self, key: KeyCode) -> bool {
        self.keys_pressed.contains(&key)
    }

    /// Is the key held?
    pub fn key_down(&self, key: KeyCode) -> bool {
        self.keys_down.contains(&key)
    }

    /// The held modifier keys.
    pub fn mods(&self) -> KeyMods {
        let held = |a, b| self.key_down(a) || self.key_down(b);
        KeyMods {
            shift: held(KeyCode::LeftShift, KeyCode::RightShift),
            ctrl: held(KeyCode::LeftControl, KeyCode::RightControl),
            alt: held(KeyCode::LeftAlt, KeyCode::RightAlt),
            logo: held(KeyCode::LeftSuper, KeyCode::RightSuper),
        }
    }
}

/// A script of input events by frame (`impulse SCENE --script FILE`), in RON:
///
/// ```ron
/// Script(events: [
///     (frame: 10, event: MouseMove(700, 400)),
///     (frame: 11, event: ButtonDown(Right)),
///     (frame: 12, event: Wheel(-3.0)),
///     (frame: 13, event: Key("Space")),
///     (frame: 14, event: Text("scenes/pile.ron")),
/// ])
/// ```
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// The events, in frame order.
    pub events: Vec<ScriptEvent>,
}

/// One scripted event.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptEvent {
    /// The frame (counted from 0) at whose start it happens.
    pub frame: u64,
    /// What happens.
    pub event: ScriptAction,
}

/// A mouse button in a script.
#[derive(Clone, Copy, Debug, Deserialize)]
pub enum ScriptButton {
    /// Left.
    Left,
    /// Right.
    Right,
    /// Middle.
    Middle,
}

/// What a scripted event does.
#[derive(Clone, Debug, Deserialize)]
pub enum ScriptAction {
    /// Move the cursor to (x, y), window pixels.
    MouseMove(f32, f32),
    /// Press a button (at the cursor).
    ButtonDown(ScriptButton),
    /// Release a button.
    ButtonUp(ScriptButton),
    /// Turn the wheel by this many notches (positive = up).
    Wheel(f32),
    /// Press a key (by name, e.g. "Space", "F", "LeftControl").
    KeyDown(String),
    /// Release a key.
    KeyUp(String),
    /// Press and release a key in the same frame.
    Key(String),
    /// Type text.
    Text(String),
}

/// The key called `name` (macroquad's `KeyCode` names: "A"…"Z", "Key0"…"Key9",
/// "Kp0"…"Kp9" (the numpad), "F1"…"F12", "Space", "Enter", "Escape", "Delete",
/// "Backspace", "Tab", "Left"/"Right"/"Up"/"Down", "LeftShift", "LeftControl", "LeftAlt"
/// and their Right twins): every key the window uses.
pub fn key_named(name: &str) -> Option<KeyCode> {
    use KeyCode::*;
    const LETTERS: [KeyCode; 26] = [
        A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X, Y, Z,
    ];
    const DIGITS: [KeyCode; 10] = [Key0, Key1, Key2, Key3, Key4, Key5, Key6, Key7, Key8, Key9];
    const NUMPAD: [KeyCode; 10] = [Kp0, Kp1, Kp2, Kp3, Kp4, Kp5, Kp6, Kp7, Kp8, Kp9];
    const FUNCTION: [KeyCode; 12] = [F1, F2, F3, F4, F5, F6, F7, F8, F9, F10, F11, F12];
    if let [c] = name.as_bytes() {
        if c.is_ascii_uppercase() {
            return Some(LETTERS[(c - b'A') as usize]);
        }
    }
    if let Some(d) = name
        .strip_prefix("Key")
        .and_then(|d| d.parse::<usize>().ok())
    {
        return DIGITS.get(d).copied();
    }
    if let Some(d) = name
        .strip_prefix("Kp")
        .and_then(|d| d.parse::<usize>().ok())
    {
        return NUMPAD.get(d).copied();
    }
    if let Some(n) = name.strip_prefix('F').and_then(|n| n.parse::<usize>().ok()) {
        return n.checked_sub(1).and_then(|i| FUNCTION.get(i)).copied();
    }
    Some(match name {
        "Space" => Space,
        "Enter" => Enter,
        "Escape" => Escape,
        "Delete" => Delete,
        "Backspace" => Backspace,
        "Tab" => Tab,
        "Left" => Left,
        "Right" => Right,
        "Up" => Up,
        "Down" => Down,
        "LeftShift" => LeftShift,
        "RightShift" => RightShift,
        "LeftControl" => LeftControl,
        "RightControl" => RightControl,
        "LeftAlt" => LeftAlt,
        "RightAlt" => RightAlt,
        _ => return None,
    })
}

impl Script {
    /// Reads and checks a script file; errors name the file, the position and the problem.
    pub fn load(path: &Path) -> Result<Script, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: cannot read the script: {e}", path.display()))?;
        Script::parse(&text, &path.display().to_string())
    }

    /// Parses script text (`file` names it in errors).
    pub fn parse(text: &str, file: &str) -> Result<Script, String> {
        let script: Script = ron::from_str(text)
            .map_err(|e| format!("{file}:{}:{}: {}", e.position.line, e.position.col, e.code))?;
        for (i, e) in script.events.iter().enumerate() {
            if let ScriptAction::KeyDown(k) | ScriptAction::KeyUp(k) | ScriptAction::Key(k) =
                &e.event
            {
                if key_named(k).is_none() {
                    return Err(format!(
                        "{file}: events[{i}]: unknown key {k:?} (use names like \"Space\", \"F\", \"LeftControl\")"
                    ));
                }
            }
        }
        if script.events.windows(2).any(|w| w[1].frame < w[0].frame) {
            return Err(format!("{file}: events must be in frame order"));
        }
        Ok(script)
    }

    /// The input events of `frame`.
    fn events_at(&self, frame: u64, out: &mut Vec<InputEvent>) {
        let button = |b: ScriptButton| match b {
            ScriptButton::Left => MouseButton::Left,
            ScriptButton::Right => MouseButton::Right,
            ScriptButton::Middle => MouseButton::Middle,
        };
        let key = |k: &str| key_named(k).unwrap_or(KeyCode::Unknown);
        for e in self.events.iter().filter(|e| e.frame == frame) {
            match &e.event {
                ScriptAction::MouseMove(x, y) => out.push(InputEvent::MouseMove(*x, *y)),
                ScriptAction::ButtonDown(b) => out.push(InputEvent::ButtonDown(button(*b))),
                ScriptAction::ButtonUp(b) => out.push(InputEvent::ButtonUp(button(*b))),
                ScriptAction::Wheel(n) => out.push(InputEvent::Wheel(*n)),
                ScriptAction::KeyDown(k) => out.push(InputEvent::KeyDown(key(k))),
                ScriptAction::KeyUp(k) => out.push(InputEvent::KeyUp(key(k))),
                ScriptAction::Key(k) => {
                    out.push(InputEvent::KeyDown(key(k)));
                    out.push(InputEvent::KeyUp(key(k)));
                }
                ScriptAction::Text(t) => out.extend(t.chars().map(InputEvent::Char)),
            }
        }
    }
}

/// The window's input and the egui context it feeds.
pub struct Input {
    /// The sandbox's view of the mouse and keyboard.
    pub state: InputState,
    /// Keys that went down and up within this frame (a scripted tap): seen as pressed, then
    /// released at the start of the next frame.
    tapped: Vec<KeyCode>,
    script: Option<Script>,
    window: WindowEvents,
    subscriber: usize,
    egui: EguiMq,
    frame_events: Vec<InputEvent>,
}

impl Input {
    /// Input from the window, or from `script` (the window's events are then ignored).
    pub fn new(script: Option<Script>) -> Self {
        // SAFETY: called on the main thread, which owns the window, before any drawing;
        // egui only creates its textures here.
        let gl = unsafe { macroquad::window::get_internal_gl() };
        let egui = EguiMq::new(gl.quad_context);
        egui.egui_ctx().options_mut(|o| {
            o.line_scroll_speed = EGUI_POINTS_PER_LINE;
        });
        // Sliders narrow enough that their labels fit the panels.
        egui.egui_ctx()
            .style_mut(|s| s.spacing.slider_width = 130.0);
        Self {
            state: InputState::default(),
            tapped: Vec::new(),
            script,
            window: WindowEvents::default(),
            subscriber: macroquad::input::utils::register_input_subscriber(),
            egui,
            frame_events: Vec::new(),
        }
    }

    /// Gathers this frame's events (from the window or the script) into the state and egui.
    pub fn begin_frame(&mut self, frame: u64) {
        self.state.begin_frame();
        for key in self.tapped.drain(..) {
            self.state.keys_down.remove(&key);
        }
        self.window.events.clear();
        macroquad::input::utils::repeat_all_miniquad_input(&mut self.window, self.subscriber);
        self.frame_events.clear();
        match &self.script {
            Some(script) => script.events_at(frame, &mut self.frame_events),
            None => self.frame_events.append(&mut self.window.events),
        }
        let mut released_now: Vec<KeyCode> = Vec::new();
        let events = std::mem::take(&mut self.frame_events);
        for event in &events {
            // A key that goes down and up in one frame stays held until the next, so the
            // sandbox sees the press.
            if let InputEvent::KeyUp(k) = event {
                if self.state.keys_pressed.contains(k) {
                    released_now.push(*k);
                    self.forward_to_egui(event);
                    continue;
                }
            }
            self.state.apply(event);
            self.forward_to_egui(event);
        }
        self.frame_events = events;
        self.tapped = released_now;
    }

    /// Passes an event on to egui. Tab is kept from it: Tab hides the panels here, and
    /// egui would move the keyboard focus to a text field with it (which then takes the
    /// keys the window uses).
    fn forward_to_egui(&mut self, event: &InputEvent) {
        let (x, y) = (self.state.mouse.x, self.state.mouse.y);
        match *event {
            InputEvent::KeyDown(KeyCode::Tab) | InputEvent::KeyUp(KeyCode::Tab) => {}
            InputEvent::MouseMove(x, y) => self.egui.mouse_motion_event(x, y),
            InputEvent::ButtonDown(b) => self.egui.mouse_button_down_event(b, x, y),
            InputEvent::ButtonUp(b) => self.egui.mouse_button_up_event(b, x, y),
            InputEvent::Wheel(n) => self
                .egui
                .mouse_wheel_event(0.0, n * SCROLL_PER_NOTCH / EGUI_POINTS_PER_LINE),
            InputEvent::KeyDown(k) => self.egui.key_down_event(k, self.state.mods()),
            InputEvent::KeyUp(k) => self.egui.key_up_event(k, self.state.mods()),
            InputEvent::Char(c) => self.egui.char_event(c),
        }
    }

    /// Runs the panels for this frame.
    pub fn ui(&mut self, mut build: impl FnMut(&egui::Context)) {
        // SAFETY: on the main thread; egui only updates its textures, which macroquad's
        // batches never use.
        let gl = unsafe { macroquad::window::get_internal_gl() };
        self.egui.run(gl.quad_context, |_, ctx| build(ctx));
    }

    /// Draws the panels built by [`Input::ui`] over what is drawn so far.
    pub fn draw_ui(&mut self) {
        // SAFETY: on the main thread; macroquad's batched drawing is flushed before egui
        // draws with the context directly, so the two never interleave.
        let mut gl = unsafe { macroquad::window::get_internal_gl() };
        gl.flush();
        self.egui.draw(gl.quad_context);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_parses_into_events_by_frame() {
        let script = Script::parse(
            r#"Script(events: [
                (frame: 2, event: MouseMove(10.0, 20.0)),
                (frame: 2, event: ButtonDown(Right)),
                (frame: 3, event: Key("Space")),
                (frame: 5, event: Text("ab")),
                (frame: 5, event: Wheel(-2.0)),
            ])"#,
            "t.ron",
        )
        .unwrap();
        let mut out = Vec::new();
        script.events_at(2, &mut out);
        assert_eq!(
            out,
            [
                InputEvent::MouseMove(10.0, 20.0),
                InputEvent::ButtonDown(MouseButton::Right)
            ]
        );
        out.clear();
        script.events_at(3, &mut out);
        assert_eq!(
            out,
            [
                InputEvent::KeyDown(KeyCode::Space),
                InputEvent::KeyUp(KeyCode::Space)
            ]
        );
        out.clear();
        script.events_at(5, &mut out);
        assert_eq!(
            out,
            [
                InputEvent::Char('a'),
                InputEvent::Char('b'),
                InputEvent::Wheel(-2.0)
            ]
        );
        out.clear();
        script.events_at(4, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn bad_scripts_say_where_and_what() {
        let e = Script::parse("Script(events: [(frame: 1, event: Jump)])", "s.ron").unwrap_err();
        assert!(e.starts_with("s.ron:1:"), "{e}");
        let e = Script::parse(
            r#"Script(events: [(frame: 1, event: Key("Hyper"))])"#,
            "s.ron",
        )
        .unwrap_err();
        assert!(e.contains("events[0]") && e.contains("Hyper"), "{e}");
        let e = Script::parse(
            "Script(events: [(frame: 3, event: Wheel(1.0)), (frame: 1, event: Wheel(1.0))])",
            "s.ron",
        )
        .unwrap_err();
        assert!(e.contains("frame order"), "{e}");
    }

    #[test]
    fn key_names_cover_letters_digits_and_modifiers() {
        assert_eq!(key_named("F"), Some(KeyCode::F));
        assert_eq!(key_named("Key7"), Some(KeyCode::Key7));
        assert_eq!(key_named("LeftControl"), Some(KeyCode::LeftControl));
        assert_eq!(key_named("f"), None);
        assert_eq!(key_named("Key12"), None);
        assert_eq!(key_named("F1"), Some(KeyCode::F1));
        assert_eq!(key_named("F12"), Some(KeyCode::F12));
        assert_eq!(key_named("Kp7"), Some(KeyCode::Kp7));
        assert_eq!(key_named("F0"), None);
        assert_eq!(key_named("F13"), None);
    }

    #[test]
    fn state_tracks_presses_holds_and_modifiers() {
        let mut s = InputState::default();
        s.apply(&InputEvent::KeyDown(KeyCode::LeftControl));
        s.apply(&InputEvent::MouseMove(5.0, 6.0));
        s.apply(&InputEvent::ButtonDown(MouseButton::Left));
        assert!(s.button_pressed(MouseButton::Left) && s.any_button_down());
        assert!(s.mods().ctrl && !s.mods().shift);
        assert_eq!(s.mouse, Vec2::new(5.0, 6.0));
        s.begin_frame();
        assert!(!s.button_pressed(MouseButton::Left) && s.any_button_down());
        s.apply(&InputEvent::ButtonUp(MouseButton::Left));
        assert!(!s.any_button_down());
    }
}
