//! The help overlay (F1 or the panel's `?`): every key and mouse action of the window.

use egui::{Align2, RichText, Ui};

/// The keys, as (key, what it does), in the order the help lists them.
pub const KEYS: [(&str, &str); 12] = [
    ("F1", "show or hide this help"),
    ("Tab", "hide or show both side panels"),
    ("Space", "play / pause"),
    ("N", "one step forward (pauses)"),
    ("B", "one step back through the recorded history"),
    ("R", "reset the scene to how it was loaded"),
    ("F", "frame the selected body, or the whole scene"),
    ("Delete, Backspace", "delete the selected body"),
    (
        "Escape",
        "close the help, cancel a joint being made, or deselect",
    ),
    (
        "W A S D, arrows",
        "walk the player (a body named \"player\")",
    ),
    ("1 / 3 / 7 (or numpad)", "view from the front / side / top"),
    (
        "Ctrl+Z, Ctrl+Shift+Z",
        "undo, redo an edit made while paused (Ctrl+Y redoes too)",
    ),
];

/// The mouse, as (action, what it does).
pub const MOUSE: [(&str, &str); 6] = [
    ("Click a body", "select it (the Object panel shows it)"),
    (
        "Click the ground",
        "set where Spawn puts new bodies (the Spawn section clears it)",
    ),
    ("Drag", "orbit the camera"),
    ("Shift-drag, middle-drag", "pan"),
    ("Wheel", "zoom toward the cursor"),
    (
        "Ctrl-drag, right-drag",
        "pull a body; let go to throw it (speed capped)",
    ),
];

/// Draws the help window while `open`; its close button clears `open`.
pub fn window(ctx: &egui::Context, open: &mut bool) {
    egui::Window::new("Help")
        .open(open)
        .collapsible(false)
        .resizable(false)
        .anchor(Align2::CENTER_CENTER, [0.0, 0.0])
        .show(ctx, |ui| {
            table(ui, "Keys", &KEYS);
            ui.add_space(6.0);
            table(ui, "Mouse", &MOUSE);
            ui.add_space(6.0);
            ui.label(
                RichText::new(
                    "Hover any setting for what it does and its unit. Keys act when no \
                     text field has the focus.",
                )
                .small()
                .weak(),
            );
        });
}

fn table(ui: &mut Ui, title: &str, rows: &[(&str, &str)]) {
    ui.label(RichText::new(title).strong());
    egui::Grid::new(title)
        .num_columns(2)
        .spacing([16.0, 3.0])
        .show(ui, |ui| {
            for (key, action) in rows {
                ui.label(RichText::new(*key).monospace());
                ui.label(*action);
                ui.end_row();
            }
        });
}
