//! The egui panels: simulation, spawn, scene browser, debug drawing on the left; object,
//! stats, events, stress test on the right; the rewind timeline under the 3D view; over the
//! view, the open scene's description, the status line (errors and notices) and the help.
//!
//! The layout does not move under the cursor: every row of a panel is as wide as the panel
//! ([`row`]), so opening a section never widens it, and errors and notices are overlays on
//! the 3D view instead of lines that push the controls down.

mod catalogue;
pub mod help;

use std::path::{Path, PathBuf};
use std::time::Instant;

use egui::{self, Align, Color32, Layout, RichText, Ui};
use egui_plot::{Line, Plot, PlotPoints};
use macroquad::prelude::{EulerRot, Quat, Vec3};

use super::plots::{Component, Plots, Quantity};
use super::sandbox::{Sandbox, Source, SpawnShape};
use super::View;
use crate::physics::{
    threads, BodyHandle, BodyType, BroadPhaseKind, ColliderDef, Integrator, JointKind,
};
use catalogue::Catalogue;

/// How long a notice ("loaded …", "saved …") shows, s.
const NOTICE_SECONDS: f64 = 4.0;

/// Narrowest the side panels may be made, points: the left one's rows still show a label
/// and a slider, the right one's three fields of a vector.
const MIN_LEFT_WIDTH: f32 = 190.0;
const MIN_RIGHT_WIDTH: f32 = 180.0;

/// Width of a collapsed panel's strip, points.
const STRIP_WIDTH: f32 = 26.0;

/// How often the scene browser reads the scenes folder again, s.
const CATALOGUE_REFRESH: f64 = 2.0;

thread_local! {
    /// Where this frame put the widgets that scripts click, by name ([`mark`]).
    static MARKED: std::cell::RefCell<std::collections::BTreeMap<&'static str, egui::Rect>> =
        Default::default();
}

/// Notes where the widget `name` is this frame, for `--dump-state`'s "widgets" (the window
/// tests click them by name instead of at fixed pixels).
fn mark(name: &'static str, response: &egui::Response) {
    MARKED.with(|m| m.borrow_mut().insert(name, response.rect));
}

/// The widgets [`mark`]ed in the last frame: name → [x, y, width, height] in points (pixels
/// at the window's scale of 1), top left at the window's top left.
pub fn marked_widgets() -> Vec<(&'static str, [f32; 4])> {
    MARKED.with(|m| {
        m.borrow()
            .iter()
            .map(|(name, r)| (*name, [r.left(), r.top(), r.width(), r.height()]))
            .collect()
    })
}

/// Which panels show and how wide they start.
#[derive(Clone, Copy, Debug)]
pub struct PanelLayout {
    /// The left panel is open (else a strip with a button that opens it).
    pub left: bool,
    /// The right panel is open.
    pub right: bool,
    /// Both panels and their strips hidden (Tab): the 3D view takes the whole width.
    pub hidden: bool,
    /// (left, right) widths the panels start with, points: set from the window's width on
    /// the first frame ([`default_widths`]); afterwards the user resizes them.
    widths: Option<(f32, f32)>,
}

impl Default for PanelLayout {
    fn default() -> Self {
        Self {
            left: true,
            right: true,
            hidden: false,
            widths: None,
        }
    }
}

impl PanelLayout {
    /// Whether the left and right panels are open and not hidden.
    pub fn shown(&self) -> (bool, bool) {
        (self.left && !self.hidden, self.right && !self.hidden)
    }
}

/// The widths the panels start with in a window `width` points wide: (left, right). A
/// narrow window gets narrower panels, so that the 3D view keeps at least 60 % of a window
/// 1000 points wide (200 + 190 of 1000) and the panels are at most 300 and 290 in a wide one.
pub fn default_widths(width: f32) -> (f32, f32) {
    (
        (0.2 * width).clamp(MIN_LEFT_WIDTH, 300.0),
        (0.19 * width).clamp(MIN_RIGHT_WIDTH, 290.0),
    )
}

/// The scene browser's groups, read again every [`CATALOGUE_REFRESH`] seconds.
#[derive(Default)]
pub struct SceneBrowser {
    catalogue: Catalogue,
    read_at: Option<Instant>,
    /// The file the groups were last opened for: a newly loaded scene opens its group.
    opened_for: Option<Source>,
}

impl SceneBrowser {
    fn catalogue(&mut self) -> &Catalogue {
        let stale = self
            .read_at
            .is_none_or(|t| t.elapsed().as_secs_f64() > CATALOGUE_REFRESH);
        if stale {
            self.catalogue = Catalogue::scan(&scenes_dir(), Some(&save_dir()));
            self.read_at = Some(Instant::now());
        }
        &self.catalogue
    }
}

/// Builds every panel and overlay for this frame and tells the camera where the 3D view is
/// between them.
pub fn panels(ctx: &egui::Context, sandbox: &mut Sandbox, view: &mut View) {
    MARKED.with(|m| m.borrow_mut().clear());
    let screen = ctx.screen_rect();
    let (left_width, right_width) = *view
        .layout
        .widths
        .get_or_insert_with(|| default_widths(screen.width()));
    let most = (0.45 * screen.width()).max(MIN_LEFT_WIDTH);
    let (mut left_edge, mut right_edge) = (screen.left(), screen.right());
    if !view.layout.hidden {
        left_edge = if view.layout.left {
            egui::SidePanel::left("impulse-panel")
                .resizable(true)
                .default_width(left_width)
                .width_range(MIN_LEFT_WIDTH..=most)
                .show(ctx, |ui| {
                    header(ui, sandbox, view);
                    let scroll = egui::ScrollArea::vertical().show(ui, |ui| {
                        simulation(ui, sandbox);
                        solver(ui, sandbox);
                        spawn(ui, sandbox, view);
                        scene(ui, sandbox, view);
                        debug_layers(ui, view);
                    });
                    view.panel_scroll = scroll.state.offset.y;
                })
                .response
                .rect
                .right()
        } else {
            strip(ctx, true, &mut view.layout.left)
        };
        right_edge = if view.layout.right {
            egui::SidePanel::right("impulse-inspector")
                .resizable(true)
                .default_width(right_width)
                .width_range(MIN_RIGHT_WIDTH..=most)
                .show(ctx, |ui| {
                    ui.horizontal(|ui| {
                        ui.label(RichText::new("Inspector").strong());
                        ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
                            if ui
                                .button("»")
                                .on_hover_text("Collapse this panel to a strip  (Tab hides both)")
                                .clicked()
                            {
                                view.layout.right = false;
                            }
                        });
                    });
                    egui::ScrollArea::vertical().show(ui, |ui| {
                        object(ui, sandbox, view);
                        plots_section(ui, sandbox, view);
                        stats(ui, sandbox, view);
                        events(ui, sandbox);
                        stress(ui, sandbox, view);
                    });
                })
                .response
                .rect
                .left()
        } else {
            strip(ctx, false, &mut view.layout.right)
        };
    }
    // Between the side panels, under the 3D view.
    let bottom = egui::TopBottomPanel::bottom("impulse-timeline")
        .show(ctx, |ui| timeline(ui, sandbox, view))
        .response
        .rect
        .top();
    let area = egui::Rect::from_min_max(
        egui::pos2(left_edge, screen.top()),
        egui::pos2(right_edge, bottom),
    );
    about(ctx, sandbox, area);
    status(ctx, sandbox, area);
    help::window(ctx, &mut view.help);
    match view.files.update(ctx) {
        Some((Purpose::Open, path)) => {
            sandbox.load(&path);
        }
        Some((Purpose::Save, path)) => sandbox.save_as(&path, &view.camera.to_desc()),
        None => {}
    }
    // egui points are pixels (high_dpi is off), scaled by pixels_per_point.
    let scale = ctx.pixels_per_point();
    view.camera.viewport = [
        left_edge * scale,
        ((right_edge - left_edge) * scale).max(1.0),
        (bottom * scale).max(1.0),
    ];
    view.camera.bottom = ((screen.bottom() - bottom) * scale).max(0.0);
}

/// A collapsed panel: a strip with the button that opens it again. Returns the strip's
/// inner edge.
fn strip(ctx: &egui::Context, left: bool, open: &mut bool) -> f32 {
    let (panel, arrow) = if left {
        (egui::SidePanel::left("impulse-panel-strip"), "»")
    } else {
        (egui::SidePanel::right("impulse-inspector-strip"), "«")
    };
    let rect = panel
        .resizable(false)
        .exact_width(STRIP_WIDTH)
        .show(ctx, |ui| {
            if ui
                .button(arrow)
                .on_hover_text("Show the panel  (Tab shows or hides both)")
                .clicked()
            {
                *open = true;
            }
        })
        .response
        .rect;
    if left {
        rect.right()
    } else {
        rect.left()
    }
}

/// A labelled control on one line, as wide as the panel: the label in a column of fixed
/// width (cut short with "…" when it does not fit), the control in the rest, the tooltip on
/// both. Sliders stretch to the room left beside their value.
fn row(
    ui: &mut Ui,
    label: &str,
    tip: &str,
    add: impl FnOnce(&mut Ui) -> egui::Response,
) -> egui::Response {
    ui.horizontal(|ui| {
        let width = ui.available_width();
        let label_width = (0.38 * width).clamp(60.0, 130.0);
        ui.allocate_ui_with_layout(
            egui::vec2(label_width, ui.spacing().interact_size.y),
            Layout::left_to_right(Align::Center),
            |ui| {
                ui.set_min_width(label_width);
                ui.add(egui::Label::new(label).truncate())
                    .on_hover_text(tip);
            },
        );
        // The value box beside a slider is about 45 points, with 8 between them.
        ui.spacing_mut().slider_width = (ui.available_width() - 60.0).max(40.0);
        add(ui).on_hover_text(tip)
    })
    .inner
}

/// A filter's first eight bits as toggles "1" to "8" (groups 1–8; bit 0 is group 1), in a
/// panel row; the other 24 bits are kept as they are and shown in the tooltip.
fn filter_bits(ui: &mut Ui, label: &str, tip: &str, bits: &mut u32) -> egui::Response {
    let tip = format!("{tip}\nAll 32 bits: 0x{:08X}", *bits);
    row(ui, label, &tip, |ui| {
        ui.spacing_mut().item_spacing.x = 1.0;
        let mut response = ui.allocate_response(egui::Vec2::ZERO, egui::Sense::hover());
        for bit in 0..8 {
            let on = *bits & (1 << bit) != 0;
            let toggle = ui.selectable_label(on, format!("{}", bit + 1));
            if toggle.clicked() {
                *bits ^= 1 << bit;
                response.mark_changed();
            }
            response = response.union(toggle);
        }
        response
    })
}

/// The rewind timeline: a slider over the recorded steps, step back / forward, back to the
/// present, and what the history holds.
fn timeline(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
    let history = &sandbox.timeline;
    if !history.enabled() {
        ui.label(RichText::new("Timeline: not recorded during the stress test").weak());
        return;
    }
    let (oldest, head) = (history.oldest(), history.head());
    let now = sandbox.world.step_count();
    let dt = sandbox.timestep as f64;
    let status = format!(
        "{:.1} s of {:.0} s kept · {:.1} MB",
        (head - oldest) as f64 * dt,
        super::timeline::HISTORY_SECONDS,
        history.bytes() as f64 / (1024.0 * 1024.0)
    );
    ui.horizontal(|ui| {
        if ui
            .add_enabled(now > oldest, egui::Button::new("◀").small())
            .on_hover_text("One step back  [B]")
            .clicked()
        {
            sandbox.scrub_to(now.saturating_sub(1));
        }
        if ui
            .add_enabled(now < head, egui::Button::new("▶").small())
            .on_hover_text("One step forward along the recording  [N]")
            .clicked()
        {
            sandbox.playing = false;
            sandbox.step_once();
        }
        record_button(ui, sandbox, view);
        let mut step = now;
        let status_width = 260.0;
        ui.spacing_mut().slider_width = (ui.available_width() - status_width).max(60.0);
        let slider = egui::Slider::new(&mut step, oldest..=head.max(oldest + 1))
            .show_value(false)
            .clamping(egui::SliderClamping::Always);
        if ui
            .add_enabled(head > oldest, slider)
            .on_hover_text(
                "Drag to rewind: Play replays the recording; an edit or a \
                 grab in the past starts a new branch from there",
            )
            .changed()
        {
            sandbox.scrub_to(step);
        }
        let behind = head.saturating_sub(now);
        if behind > 0 {
            if ui
                .button(format!("−{:.2} s  ⏭", behind as f64 * dt))
                .on_hover_text("Back to the present")
                .clicked()
            {
                sandbox.scrub_to(head);
            }
        } else {
            ui.label(RichText::new("live").color(Color32::from_rgb(60, 150, 80)));
        }
        ui.label(RichText::new(status).small().weak());
    });
}

/// How much of the present a Record pressed at the present takes in, s.
const RECORD_SECONDS: f64 = 5.0;

/// Record: replays the timeline from the step shown (from [`RECORD_SECONDS`] back when at
/// the present) to its end, one step a frame, and writes the view as an animated GIF in
/// the save folder; while it runs, Stop writes what it has.
fn record_button(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
    if let Some(recording) = &view.recording {
        let text = format!("Stop ({} pictures)", recording.frames());
        if ui
            .button(text)
            .on_hover_text("Stop recording and write what is recorded")
            .clicked()
        {
            super::finish_recording(view, sandbox);
        }
        return;
    }
    let history = &sandbox.timeline;
    let (oldest, head, now) = (history.oldest(), history.head(), sandbox.world.step_count());
    let back = (RECORD_SECONDS / sandbox.timestep as f64) as u64;
    let start = if now < head {
        now
    } else {
        head.saturating_sub(back).max(oldest)
    };
    let dir = save_dir();
    let button = ui
        .add_enabled(
            head > start && view.writing.is_none(),
            egui::Button::new("Record"),
        )
        .on_hover_text(format!(
            "Replay from the step shown to the end of the recording (the last {RECORD_SECONDS} s \
             when at the present) and save the view as an animated GIF in {}",
            dir.display()
        ));
    mark("record", &button);
    if button.clicked() {
        // Made the first time it is needed; a failure shows as the recording's.
        let _ = std::fs::create_dir_all(&dir);
        let stem = match &sandbox.source {
            Source::File(p) => p
                .file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_else(|| "scene".into()),
            Source::Default => "default".into(),
        };
        let path = dir.join(format!("{stem}-steps-{start}-{head}.gif"));
        sandbox.scrub_to(start);
        view.recording = Some(super::record::Recording::new(path, sandbox.timestep, head));
    }
}

/// The status line over the bottom of the 3D view: the last load or save error until it
/// is dismissed, else the last notice for a few seconds. It covers the view, not the
/// controls, and wraps at the view's width.
fn status(ctx: &egui::Context, sandbox: &mut Sandbox, area: egui::Rect) {
    let width = (area.width() - 24.0).max(120.0);
    let place = egui::pos2(area.left() + 12.0, area.bottom() - 12.0);
    if let Some(error) = sandbox.error.clone() {
        egui::Area::new(egui::Id::new("impulse-error"))
            .pivot(egui::Align2::LEFT_BOTTOM)
            .fixed_pos(place)
            .show(ctx, |ui| {
                egui::Frame::popup(ui.style()).show(ui, |ui| {
                    ui.set_max_width(width);
                    ui.horizontal_top(|ui| {
                        if ui.small_button("dismiss").clicked() {
                            sandbox.error = None;
                        }
                        ui.add(
                            egui::Label::new(
                                RichText::new(error).color(Color32::from_rgb(230, 90, 80)),
                            )
                            .wrap(),
                        );
                    });
                });
            });
        return;
    }
    let Some((text, at)) = sandbox.notice.clone() else {
        return;
    };
    if at.elapsed().as_secs_f64() > NOTICE_SECONDS {
        sandbox.notice = None;
        return;
    }
    egui::Area::new(egui::Id::new("impulse-notice"))
        .pivot(egui::Align2::LEFT_BOTTOM)
        .fixed_pos(place)
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.set_max_width(width);
                ui.add(
                    egui::Label::new(RichText::new(text).color(Color32::from_rgb(60, 150, 80)))
                        .wrap(),
                );
            });
        });
    ctx.request_repaint();
}

/// The open scene's description (its file's leading comment) in a window at the top left
/// of the 3D view, titled with the scene's name; its title bar collapses it. Each scene
/// has its own window (by its source), so a newly picked scene shows its description open.
fn about(ctx: &egui::Context, sandbox: &Sandbox, area: egui::Rect) {
    let text = catalogue::description(&sandbox.source_text);
    if text.is_empty() || area.width() < 200.0 {
        return;
    }
    let name = match &sandbox.source {
        Source::Default => "default".to_string(),
        Source::File(p) => p
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default(),
    };
    let width = (area.width() - 24.0).min(440.0);
    egui::Window::new(format!("About {name}"))
        .id(egui::Id::new(("impulse-about", sandbox.source.label())))
        .collapsible(true)
        .resizable(false)
        .movable(false)
        .default_width(width)
        .max_width(width)
        .fixed_pos(area.left_top() + egui::vec2(10.0, 10.0))
        .show(ctx, |ui| {
            ui.set_max_width(width);
            egui::ScrollArea::vertical()
                .max_height((0.4 * area.height()).max(80.0))
                .show(ui, |ui| ui.label(RichText::new(text).small()));
        });
}

/// Title with the help and collapse buttons, and the open scene's file.
fn header(ui: &mut Ui, sandbox: &Sandbox, view: &mut View) {
    ui.horizontal(|ui| {
        ui.heading("Impulse");
        ui.with_layout(Layout::right_to_left(Align::Center), |ui| {
            if ui
                .button("«")
                .on_hover_text("Collapse this panel to a strip  (Tab hides both)")
                .clicked()
            {
                view.layout.left = false;
            }
            if ui
                .button(" ? ")
                .on_hover_text("Every key and mouse action  [F1]")
                .clicked()
            {
                view.help = !view.help;
            }
        });
    });
    ui.add(egui::Label::new(RichText::new(sandbox.source.label()).weak()).truncate());
    ui.separator();
}

/// Play, pause, step, reset, time scale, counters, solver settings.
fn simulation(ui: &mut Ui, sandbox: &mut Sandbox) {
    egui::CollapsingHeader::new("Simulation")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                let label = if sandbox.playing { "Pause" } else { "Play" };
                // A fixed width, so Step and Reset stay put when the label changes.
                if ui
                    .add_sized([52.0, 20.0], egui::Button::new(label))
                    .on_hover_text("Play or pause  [Space]")
                    .clicked()
                {
                    sandbox.playing = !sandbox.playing;
                }
                if ui
                    .button("Step")
                    .on_hover_text("One step forward, paused  [N]")
                    .clicked()
                {
                    sandbox.playing = false;
                    sandbox.step_once();
                }
                if ui
                    .button("Reset")
                    .on_hover_text("Back to the scene as it was loaded  [R]")
                    .clicked()
                {
                    sandbox.reset();
                }
            });
            ui.horizontal(|ui| {
                let (undo, redo) = sandbox.undo_depth();
                if ui
                    .add_enabled(undo > 0, egui::Button::new("Undo"))
                    .on_hover_text(format!(
                        "Undo the last edit made while paused  [Ctrl+Z] ({undo} to undo)"
                    ))
                    .on_disabled_hover_text("Nothing to undo: edits made while paused, since the last step, can be undone")
                    .clicked()
                {
                    sandbox.undo();
                }
                if ui
                    .add_enabled(redo > 0, egui::Button::new("Redo"))
                    .on_hover_text(format!("Redo  [Ctrl+Shift+Z] ({redo} to redo)"))
                    .clicked()
                {
                    sandbox.redo();
                }
            });
            row(
                ui,
                "time scale",
                "Simulated seconds per real second. The step stays the same; \
                 slow motion takes fewer steps per frame.",
                |ui| ui.add(egui::Slider::new(&mut sandbox.time_scale, 0.05..=2.0)),
            );
            ui.label(format!(
                "step {}   t = {:.2} s   dt = {:.2} ms",
                sandbox.world.step_count(),
                sandbox.world.time(),
                sandbox.timestep * 1000.0
            ));
        });
}

/// The world's solver settings and the worker threads.
fn solver(ui: &mut Ui, sandbox: &mut Sandbox) {
    let header = egui::CollapsingHeader::new("Solver").show(ui, |ui| {
        let mut settings = sandbox.world.settings().clone();
        let before = settings.clone();
        row(
            ui,
            "sub-steps",
            "Sub-steps per step: the solver integrates and solves every \
             contact and joint this many times per step (a soft step). \
             More are stiffer and cost more.",
            |ui| ui.add(typed(egui::Slider::new(&mut settings.substeps, 1..=16))),
        );
        row(
            ui,
            "velocity iterations",
            "Passes over the contacts and joints per sub-step with the \
             push that corrects overlap. More settle tall stacks and long \
             chains sooner.",
            |ui| {
                ui.add(typed(egui::Slider::new(
                    &mut settings.velocity_iterations,
                    1..=8,
                )))
            },
        );
        row(
            ui,
            "relax iterations",
            "Passes per sub-step without that push: they take back the \
             speed the push gave, so bodies stop bouncing out of overlap. \
             0 keeps it.",
            |ui| {
                ui.add(typed(egui::Slider::new(
                    &mut settings.relax_iterations,
                    0..=8,
                )))
            },
        );
        row(
            ui,
            "contact Hz",
            "Stiffness of the soft contacts as a spring's frequency, Hz: \
             higher sinks less into the ground and needs smaller steps \
             (at most a quarter of the sub-step rate).",
            |ui| {
                ui.add(typed(egui::Slider::new(
                    &mut settings.contact_hertz,
                    5.0..=120.0,
                )))
            },
        );
        row(
            ui,
            "gravity y",
            "Gravity along y, m/s² (Earth: −9.81).",
            |ui| {
                ui.add(typed(egui::Slider::new(
                    &mut settings.gravity.y,
                    -30.0..=10.0,
                )))
            },
        );
        ui.checkbox(&mut settings.enable_sleeping, "sleeping")
            .on_hover_text(format!(
                "Bodies that have barely moved for {} s stop being simulated \
                 until something touches them. Off, every body is stepped \
                 every step.",
                crate::physics::constants::TIME_TO_SLEEP
            ));
        ui.checkbox(&mut settings.enable_warm_starting, "warm starting")
            .on_hover_text(
                "Start each step from the impulses of the last one: stacks \
                 hold with fewer iterations.",
            );
        ui.checkbox(&mut settings.planar, "planar (x–y plane)")
            .on_hover_text(
                "Lock every dynamic body to the x–y plane, turning about z \
                 only: a 2D world, seen from the front.",
            );
        row(
            ui,
            "integrator",
            "How positions follow velocities: semi-implicit Euler \
             (velocity first, then position) or position Verlet.",
            |ui| {
                egui::ComboBox::from_id_salt("integrator")
                    .width(ui.available_width() - 16.0)
                    .truncate()
                    .selected_text(match settings.integrator {
                        Integrator::SemiImplicitEuler => "semi-implicit Euler",
                        Integrator::Verlet => "Verlet",
                    })
                    .show_ui(ui, |ui| {
                        ui.selectable_value(
                            &mut settings.integrator,
                            Integrator::SemiImplicitEuler,
                            "semi-implicit Euler",
                        );
                        ui.selectable_value(&mut settings.integrator, Integrator::Verlet, "Verlet");
                    })
                    .response
            },
        );
        broad_phase_choice(ui, &mut settings.broad_phase);
        if settings != before {
            sandbox.set_settings(settings);
        }
        workers(ui);
    });
    mark("solver", &header.header_response);
}

/// The Workers slider: threads each step may use, 1 to the machine's hardware threads (the
/// process default, so every scene loaded afterwards uses it too; `--threads` sets it at
/// start). Results are the same at any count; only the physics time changes.
fn workers(ui: &mut Ui) {
    let most = threads::hardware_threads().max(threads::default_workers());
    let mut n = threads::default_workers();
    let slider = row(
        ui,
        "workers",
        "Threads each physics step may use. The simulation is the same bit for bit at any \
         count; more workers only make large scenes step faster.",
        |ui| ui.add(egui::Slider::new(&mut n, 1..=most)),
    );
    if slider.changed() {
        let _ = threads::set_default_workers(n);
    }
}

/// The scenes/ folder: next to the working directory if there is one, else the source tree.
fn scenes_dir() -> PathBuf {
    let local = PathBuf::from("scenes");
    if local.is_dir() {
        local
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")
    }
}

/// Where Save as puts scenes: the folder `IMPULSE_SAVE_DIR` names when it is set, else
/// "Impulse" in the user's documents folder (in the home folder when there is none, in the
/// working directory when there is no home either). Saved scenes stay out of the project's
/// `scenes/`, whose files the browser lists as shipped; the browser lists this folder's as
/// "Your scenes".
pub fn save_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("IMPULSE_SAVE_DIR") {
        return PathBuf::from(dir);
    }
    let user = directories::UserDirs::new();
    let documents = user
        .as_ref()
        .and_then(|u| u.document_dir().map(Path::to_path_buf));
    let home = user.as_ref().map(|u| u.home_dir().to_path_buf());
    documents
        .or(home)
        .unwrap_or_else(|| PathBuf::from("."))
        .join("Impulse")
}

/// A file name for Save as that does not exist yet: in [`save_dir`], named after the open
/// scene with the first free number.
pub fn suggested_save_path(source: &Source) -> PathBuf {
    let stem = match source {
        Source::File(p) => p
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "scene".into()),
        Source::Default => "default".into(),
    };
    let dir = save_dir();
    (2..)
        .map(|n| dir.join(format!("{stem}-{n}.ron")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join(format!("{stem}-saved.ron")))
}

/// What the file dialog is open for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    Open,
    Save,
}

/// The file dialog of Open… and Save as… and what it was opened for.
pub struct FileBrowser {
    dialog: egui_file_dialog::FileDialog,
    purpose: Option<Purpose>,
}

impl Default for FileBrowser {
    fn default() -> Self {
        let ron = |p: &Path| p.extension().is_some_and(|x| x == "ron");
        Self {
            dialog: egui_file_dialog::FileDialog::new()
                .add_file_filter("Scenes (.ron)", std::sync::Arc::new(ron))
                .default_file_filter("Scenes (.ron)")
                .add_save_extension("Scene", "ron")
                .default_save_extension("Scene")
                .default_size([680.0, 420.0])
                .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
                .as_modal(true),
            purpose: None,
        }
    }
}

impl FileBrowser {
    /// Opens the dialog to pick a scene to load, in `dir`.
    fn open(&mut self, dir: PathBuf) {
        self.dialog.config_mut().initial_directory = dir;
        self.dialog.config_mut().title = Some("Open a scene".into());
        self.purpose = Some(Purpose::Open);
        self.dialog.pick_file();
    }

    /// Opens the dialog to pick where to save, starting at `suggested`.
    fn save(&mut self, suggested: &Path) {
        let config = self.dialog.config_mut();
        config.initial_directory = suggested
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        config.default_file_name = suggested
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        config.title = Some("Save the scene as".into());
        self.purpose = Some(Purpose::Save);
        self.dialog.save_file();
    }

    /// Shows the dialog while it is open; what the user picked in it, once.
    fn update(&mut self, ctx: &egui::Context) -> Option<(Purpose, PathBuf)> {
        self.dialog.update(ctx);
        let picked = self.dialog.take_picked()?;
        Some((self.purpose.take()?, picked))
    }
}

/// The scene browser (the scene files grouped, the open one's group open, each file's
/// description on hover), then load by path and save as.
fn scene(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
    egui::CollapsingHeader::new("Scene")
        .default_open(true)
        .show(ui, |ui| {
            let open_file = match &sandbox.source {
                Source::File(p) => Some(p.clone()),
                Source::Default => Some(scenes_dir().join("default.ron")),
            };
            let same = |a: &Path, b: &Path| {
                a == b
                    || a.canonicalize()
                        .ok()
                        .is_some_and(|a| Some(a) == b.canonicalize().ok())
            };
            // A newly loaded scene opens its own group (once; the user may close it).
            let reopen = view.browser.opened_for.as_ref() != Some(&sandbox.source);
            view.browser.opened_for = Some(sandbox.source.clone());
            let catalogue = view.browser.catalogue().clone();
            let mut pick = None;
            for (group, entries) in &catalogue.groups {
                let holds_open = entries
                    .iter()
                    .any(|e| open_file.as_deref().is_some_and(|f| same(&e.path, f)));
                let mut header =
                    egui::CollapsingHeader::new(format!("{group} ({})", entries.len()))
                        .id_salt(("scene group", *group));
                if reopen {
                    header = header.open(Some(holds_open));
                }
                header.show(ui, |ui| {
                    ui.horizontal_wrapped(|ui| {
                        for entry in entries {
                            let is_open =
                                open_file.as_deref().is_some_and(|f| same(&entry.path, f));
                            let first = entry.description.split("\n\n").next().unwrap_or("");
                            let button = ui.selectable_label(is_open, &entry.name);
                            let button = if first.is_empty() {
                                button
                            } else {
                                button.on_hover_ui(|ui| {
                                    ui.set_max_width(320.0);
                                    ui.label(first);
                                })
                            };
                            if button.clicked() {
                                pick = Some(entry.path.clone());
                            }
                        }
                    });
                });
            }
            if let Some(path) = pick {
                sandbox.load(&path);
            }
            ui.add_space(4.0);
            ui.horizontal(|ui| {
                if ui
                    .button("Open…")
                    .on_hover_text("Browse for a scene file to load")
                    .clicked()
                {
                    let dir = match &sandbox.source {
                        Source::File(p) => p.parent().map(Path::to_path_buf).unwrap_or_default(),
                        Source::Default => scenes_dir(),
                    };
                    view.files.open(dir);
                }
                if ui
                    .button("Save as…")
                    .on_hover_text("Browse for where to save the world as it is now")
                    .clicked()
                {
                    // The save folder is made the first time it is needed; if that fails,
                    // the dialog says it cannot open it and another can be picked.
                    let _ = std::fs::create_dir_all(save_dir());
                    view.files.save(&suggested_save_path(&sandbox.source));
                }
            });
            ui.horizontal(|ui| {
                let load = ui
                    .button("Load")
                    .on_hover_text("Load the scene file whose path is typed on the right");
                mark("load", &load);
                if load.clicked() {
                    let path = PathBuf::from(view.load_path.trim());
                    sandbox.load(&path);
                }
                let field = ui.add(
                    egui::TextEdit::singleline(&mut view.load_path)
                        .hint_text("path/to/scene.ron")
                        .desired_width(f32::INFINITY),
                );
                mark("load path", &field);
            });
            // Save: the field starts as a new name in the save folder; an existing file is
            // only replaced after asking.
            if view.save_path.is_empty() {
                view.save_path = suggested_save_path(&sandbox.source).display().to_string();
            }
            ui.horizontal(|ui| {
                let save = ui
                    .button("Save")
                    .on_hover_text("Write the world as it is now to the path typed on the right");
                mark("save", &save);
                if save.clicked() {
                    let path = PathBuf::from(view.save_path.trim());
                    if path.parent() == Some(save_dir().as_path()) {
                        // Made the first time it is needed; a failure shows as the save's.
                        let _ = std::fs::create_dir_all(save_dir());
                    }
                    if path.exists() {
                        view.confirm_overwrite = Some(path);
                    } else {
                        sandbox.save_as(&path, &view.camera.to_desc());
                        view.save_path.clear();
                    }
                }
                let field = ui.add(
                    egui::TextEdit::singleline(&mut view.save_path).desired_width(f32::INFINITY),
                );
                mark("save path", &field);
            });
            if let Some(path) = view.confirm_overwrite.clone() {
                ui.horizontal_wrapped(|ui| {
                    ui.colored_label(
                        Color32::from_rgb(230, 160, 60),
                        format!("{} exists. Replace it?", path.display()),
                    );
                    if ui.small_button("Replace").clicked() {
                        sandbox.save_as(&path, &view.camera.to_desc());
                        view.confirm_overwrite = None;
                        view.save_path.clear();
                    }
                    if ui.small_button("Cancel").clicked() {
                        view.confirm_overwrite = None;
                    }
                });
            }
            ui.label(
                RichText::new(format!(
                    "Saved scenes go to {} (listed above as Your scenes). The open file \
                     reloads when it changes on disk.",
                    save_dir().display()
                ))
                .small()
                .weak(),
            );
        });
}

/// Spawn a shape at the clicked point or in front of the camera; throw it.
fn spawn(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
    egui::CollapsingHeader::new("Spawn")
        .default_open(true)
        .show(ui, |ui| {
            let s = &mut sandbox.spawn;
            row(ui, "shape", "What Spawn and Throw make.", |ui| {
                egui::ComboBox::from_id_salt("spawn shape")
                    .width(ui.available_width() - 16.0)
                    .truncate()
                    .selected_text(s.shape.label())
                    .show_ui(ui, |ui| {
                        for shape in SpawnShape::ALL {
                            ui.selectable_value(&mut s.shape, shape, shape.label());
                        }
                    })
                    .response
            });
            let size = row(
                ui,
                "size (m)",
                "The shape's radius (sphere, capsule), half-extent (box: half \
                 its edge) or the like, in metres.",
                |ui| ui.add(typed(egui::Slider::new(&mut s.size, 0.1..=2.0))),
            );
            mark("spawn size", &size);
            row(
                ui,
                "density",
                "Mass per volume, kg/m³ (water: 1000, wood: about 600).",
                |ui| ui.add(typed(egui::Slider::new(&mut s.density, 0.1..=20.0)).logarithmic(true)),
            );
            row(
                ui,
                "friction",
                "Coulomb friction coefficient; a pair uses √(μa·μb).",
                |ui| ui.add(typed(egui::Slider::new(&mut s.friction, 0.0..=1.5))),
            );
            row(
                ui,
                "restitution",
                "Bounciness: the share of the approach speed a bounce gives \
                 back (0 none, 1 all), above the world's restitution \
                 threshold.",
                |ui| ui.add(typed(egui::Slider::new(&mut s.restitution, 0.0..=1.0))),
            );
            row(ui, "throw speed", "Speed of a thrown body, m/s.", |ui| {
                ui.add(typed(egui::Slider::new(&mut s.throw_speed, 1.0..=60.0)))
            });
            ui.horizontal(|ui| {
                let camera = &view.camera;
                let in_front =
                    camera.eye() + camera.forward() * (camera.distance * 0.5).clamp(2.0, 8.0);
                let tip = if view.click_point.is_some() {
                    "At the point you clicked on the ground (clear it below to \
                     spawn in front of the camera)"
                } else {
                    "In front of the camera (click the ground to choose a point)"
                };
                if ui.button("Spawn").on_hover_text(tip).clicked() {
                    let at = view.click_point.unwrap_or(in_front);
                    sandbox.spawn_at(at, Vec3::ZERO);
                }
                let throw = ui
                    .button("Throw")
                    .on_hover_text("From the camera, along the view, at the throw speed");
                mark("throw", &throw);
                if throw.clicked() {
                    let speed = sandbox.spawn.throw_speed;
                    let from = camera.eye() + camera.forward() * 1.5;
                    sandbox.spawn_at(from, camera.forward() * speed);
                }
            });
            let (text, clear) = match view.click_point {
                Some(p) => (
                    format!(
                        "Spawns at the clicked point ({:.1}, {:.1}, {:.1}).",
                        p.x, p.y, p.z
                    ),
                    true,
                ),
                None => (
                    "Spawns in front of the camera; click the ground to choose a point.".into(),
                    false,
                ),
            };
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new(text).small().weak());
                if clear && ui.small_button("clear").clicked() {
                    view.click_point = None;
                }
            });
        });
}

/// A slider whose handle stays in its range but whose typed values do not: they go to the
/// world (or the spawner), which refuses a bad one with a message instead of it being
/// clamped silently.
fn typed(slider: egui::Slider<'_>) -> egui::Slider<'_> {
    slider.clamping(egui::SliderClamping::Never)
}

/// Three drag values for a vector, as wide as the panel: beside their label where three
/// fields of [`FIELD_WIDTH`] fit beside it, else under it; their responses as one.
fn vec3_edit(ui: &mut Ui, label: &str, tip: &str, v: &mut Vec3, speed: f64) -> egui::Response {
    let fields = |ui: &mut Ui, v: &mut Vec3| {
        let gap = ui.spacing().item_spacing.x;
        let width = ((ui.available_width() - 4.0 - 2.0 * gap) / 3.0).max(FIELD_WIDTH);
        let mut response = None::<egui::Response>;
        for i in 0..3 {
            let r = ui.add_sized(
                [width, ui.spacing().interact_size.y],
                egui::DragValue::new(&mut v[i]).speed(speed).max_decimals(3),
            );
            response = Some(match response {
                Some(all) => all.union(r),
                None => r,
            });
        }
        response.expect("three fields")
    };
    // Beside the label when the row's label column (see `row`) leaves room for them.
    let width = ui.available_width();
    let label_width = (0.38 * width).clamp(60.0, 130.0);
    let gap = ui.spacing().item_spacing.x;
    let response = if width - label_width - gap >= 3.0 * FIELD_WIDTH + 2.0 * gap + 4.0 {
        row(ui, label, tip, |ui| fields(ui, v))
    } else {
        ui.add(egui::Label::new(label).truncate())
            .on_hover_text(tip);
        ui.horizontal(|ui| fields(ui, v).on_hover_text(tip)).inner
    };
    if label == "position" {
        mark("position", &response);
    }
    response
}

/// A right-click menu on `response` that plots a component of a body's vector (`what`: its
/// name in the menu and the legend); `quantity` makes the series of a component.
fn plot_menu(
    response: &egui::Response,
    plots: &mut Plots,
    body: &str,
    what: &str,
    quantity: impl Fn(Component) -> Quantity,
) {
    response.context_menu(|ui| {
        for c in Component::ALL {
            let q = quantity(c);
            let item = ui.add_enabled(
                !plots.has(q),
                egui::Button::new(format!("Plot {what} {}", c.label())),
            );
            if what == "position" && c == Component::Y {
                mark("plot position y", &item);
            }
            if item.clicked() {
                plots.add(q, format!("{body} {what} {}", c.label()));
                ui.close_menu();
            }
        }
    });
}

/// The narrowest a field of [`vec3_edit`] is made, points: "-0.000" in it.
const FIELD_WIDTH: f32 = 42.0;

/// The selected body: transform, scale, velocities, type, material, delete.
fn object(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
    egui::CollapsingHeader::new("Object")
        .default_open(true)
        .show(ui, |ui| {
            let Some(handle) = sandbox.selected else {
                ui.label(RichText::new("Click a body to select it.").weak());
                return;
            };
            let Some(body) = sandbox.world.body(handle) else {
                sandbox.selected = None;
                return;
            };
            let (mut position, rotation) = (body.position(), body.rotation());
            let (mut linear, mut angular) = (body.linear_velocity(), body.angular_velocity());
            let body_type = body.body_type();
            let (mass, awake) = (body.mass(), body.is_awake());
            let kinetic = body.kinetic_energy();
            ui.label(RichText::new(sandbox.body_name(handle)).strong());
            ui.label(format!(
                "{:?}, {}  mass {:.3} kg",
                body_type,
                if awake { "awake" } else { "asleep" },
                mass
            ));
            let name = sandbox.body_name(handle);
            let edit = vec3_edit(
                ui,
                "position",
                "The body's origin x, y, z, m. Drag or type; right-click to plot.",
                &mut position,
                0.02,
            );
            plot_menu(&edit, &mut view.plots, &name, "position", |c| {
                Quantity::Position(handle, c)
            });
            if edit.changed() {
                sandbox.set_position(handle, position);
            }
            let (ex, ey, ez) = rotation.to_euler(EulerRot::XYZ);
            let mut euler = Vec3::new(ex.to_degrees(), ey.to_degrees(), ez.to_degrees());
            if vec3_edit(
                ui,
                "rotation °",
                "Turn about x, then y, then z, degrees.",
                &mut euler,
                0.5,
            )
            .changed()
            {
                let q = Quat::from_euler(
                    EulerRot::XYZ,
                    euler.x.to_radians(),
                    euler.y.to_radians(),
                    euler.z.to_radians(),
                );
                sandbox.set_rotation(handle, q);
            }
            row(
                ui,
                "scale ×",
                "Grow or shrink every collider of the body by this factor \
                 about its origin; Apply does it.",
                |ui| {
                    let field = ui.add(egui::DragValue::new(&mut view.scale_factor).speed(0.01));
                    if ui.button("Apply").clicked() {
                        sandbox.scale_body(handle, view.scale_factor);
                        view.scale_factor = 1.0;
                    }
                    field
                },
            );
            let velocity = vec3_edit(
                ui,
                "velocity",
                "Velocity of the centre of mass along x, y, z, m/s; right-click to plot.",
                &mut linear,
                0.05,
            );
            plot_menu(&velocity, &mut view.plots, &name, "velocity", |c| {
                Quantity::Velocity(handle, c)
            });
            let spin = vec3_edit(
                ui,
                "spin",
                "Angular velocity about x, y, z, rad/s; right-click to plot.",
                &mut angular,
                0.05,
            );
            plot_menu(&spin, &mut view.plots, &name, "spin", |c| {
                Quantity::Spin(handle, c)
            });
            let energy = ui
                .label(format!("kinetic energy {:.4} J", kinetic))
                .on_hover_text("½·m·v² + ½·ω·I·ω; right-click to plot");
            energy.context_menu(|ui| {
                if ui.button("Plot kinetic energy").clicked() {
                    view.plots.add(
                        Quantity::KineticEnergy(handle),
                        format!("{name} kinetic energy"),
                    );
                    ui.close_menu();
                }
            });
            if velocity.changed() || spin.changed() {
                sandbox.set_velocity(handle, linear, angular);
            }
            let mut new_type = body_type;
            row(
                ui,
                "type",
                "Static: never moves. Kinematic: moves at its set velocity, \
                 pushes and is not pushed. Dynamic: moved by forces and \
                 contacts.",
                |ui| {
                    egui::ComboBox::from_id_salt("body type")
                        .width(ui.available_width() - 16.0)
                        .truncate()
                        .selected_text(format!("{body_type:?}"))
                        .show_ui(ui, |ui| {
                            for t in [BodyType::Static, BodyType::Kinematic, BodyType::Dynamic] {
                                ui.selectable_value(&mut new_type, t, format!("{t:?}"));
                            }
                        })
                        .response
                },
            );
            if new_type != body_type {
                sandbox.set_body_type(handle, new_type);
            }
            // Material: shown from the first collider, applied to all.
            let first = sandbox.world.body_colliders(handle).next();
            if let Some(first) = first.and_then(|c| sandbox.world.collider(c)) {
                let mut m: ColliderDef = first.to_def();
                let mut filter = first.filter();
                let mut changed = false;
                changed |= row(
                    ui,
                    "friction",
                    "Coulomb friction coefficient of every collider of the body; \
                     a pair uses √(μa·μb).",
                    |ui| ui.add(typed(egui::Slider::new(&mut m.friction, 0.0..=1.5))),
                )
                .changed();
                changed |= row(
                    ui,
                    "restitution",
                    "Bounciness of every collider of the body: the share of the \
                     approach speed a bounce gives back.",
                    |ui| ui.add(typed(egui::Slider::new(&mut m.restitution, 0.0..=1.0))),
                )
                .changed();
                let density = row(
                    ui,
                    "density",
                    "Mass per volume of every collider of the body, kg/m³: the \
                     mass follows.",
                    |ui| {
                        ui.add(
                            typed(egui::Slider::new(&mut m.density, 0.01..=100.0))
                                .logarithmic(true),
                        )
                    },
                );
                mark("body density", &density);
                changed |= density.changed();
                if changed {
                    sandbox.set_material(handle, &m);
                }
                let category = filter_bits(
                    ui,
                    "category",
                    "The groups the body's colliders are in (collision filtering). \
                     Two colliders touch when each one's groups are among the \
                     other's \"touches\" groups.",
                    &mut filter.category,
                );
                mark("body category", &category);
                let mask = filter_bits(
                    ui,
                    "touches",
                    "The groups the body's colliders touch. Turn off a group to \
                     let the body pass through its members (ghosts: in 2, touching \
                     all but 2).",
                    &mut filter.mask,
                );
                mark("body touches", &mask);
                if category.changed() || mask.changed() {
                    sandbox.set_filter(handle, filter);
                }
            }
            let mut rgb = sandbox.body_color(handle);
            if row(
                ui,
                "colour",
                "The body's colour in the view (saved with the scene).",
                |ui| ui.color_edit_button_rgb(&mut rgb),
            )
            .changed()
            {
                sandbox.set_color(handle, (rgb[0], rgb[1], rgb[2]));
            }
            joints(ui, sandbox, handle, &mut view.plots);
            ui.horizontal(|ui| {
                if ui.button("Delete  [Del]").clicked() {
                    sandbox.delete_selected();
                }
                if ui.button("Frame  [F]").clicked() {
                    view.frame_request = true;
                }
                let mut follow = view.follow.is_some_and(|(h, _)| h == handle);
                let toggle = ui
                    .checkbox(&mut follow, "follow")
                    .on_hover_text("The camera moves with this body (orbit and zoom still work)");
                mark("follow", &toggle);
                if toggle.changed() {
                    view.follow = follow.then_some((handle, position));
                }
            });
        });
}

/// The selected body's joints (each with its angle or length and force, and a Remove
/// button) and the Join button that makes a new one.
fn joints(ui: &mut Ui, sandbox: &mut Sandbox, handle: BodyHandle, plots: &mut Plots) {
    use super::joining::{kind_label, JointTool};
    // A joint being made for another body (the selection changed since) is given up.
    if sandbox.joining.is_some_and(|j| j != handle) {
        sandbox.joining = None;
    }
    ui.separator();
    let mut remove = None;
    for (joint, other) in sandbox.joints_of(handle) {
        let Some(j) = sandbox.world.joint(joint) else {
            continue;
        };
        let other = other.map_or("the world".to_string(), |b| sandbox.body_name(b));
        let mut text = format!("{} to {other}", kind_label(&j.def().kind));
        if let Some(angle) = sandbox.world.joint_angle(joint) {
            text += &format!(", {:.0}°", angle.to_degrees());
        } else if let (Some((a, b)), JointKind::Distance { .. } | JointKind::Spring { .. }) =
            (sandbox.world.joint_anchors(joint), j.def().kind)
        {
            text += &format!(", {:.2} m", a.distance(b));
        }
        // The force it held in the last step, what `break_force` is compared with.
        text += &format!(", {:.1} N", j.force());
        let label = format!("{} to {other}", kind_label(&j.def().kind));
        ui.horizontal(|ui| {
            let line = ui
                .label(RichText::new(text).small())
                .on_hover_text("Right-click to plot its angle or length, or its force");
            line.context_menu(|ui| {
                for (q, what) in [
                    (Quantity::JointAngleOrLength(joint), "angle or length"),
                    (Quantity::JointForce(joint), "force"),
                ] {
                    let item = ui
                        .add_enabled(!plots.has(q), egui::Button::new(format!("Plot its {what}")));
                    if item.clicked() {
                        plots.add(q, format!("{label} {what}"));
                        ui.close_menu();
                    }
                }
            });
            if ui.small_button("Remove").clicked() {
                remove = Some(joint);
            }
        });
    }
    if let Some(joint) = remove {
        sandbox.remove_joint(joint);
    }
    ui.horizontal(|ui| {
        egui::ComboBox::from_id_salt("joint tool")
            .width((ui.available_width() - 70.0).clamp(60.0, 140.0))
            .truncate()
            .selected_text(sandbox.joint_tool.label())
            .show_ui(ui, |ui| {
                for tool in JointTool::ALL {
                    ui.selectable_value(&mut sandbox.joint_tool, tool, tool.label());
                }
            });
        if sandbox.joining == Some(handle) {
            if ui.button("Cancel  [Esc]").clicked() {
                sandbox.joining = None;
            }
        } else {
            let join = ui.button("Join…").on_hover_text(
                "Then click the body to join this one to (the ground: fixed to the world). \
                 Ball joint, hinge and weld sit where you click; a hinge turns about the \
                 clicked surface's normal; a rope or spring runs from this body's centre.",
            );
            mark("join", &join);
            if join.clicked() {
                sandbox.start_joining(handle);
            }
        }
    });
    if sandbox.joining == Some(handle) {
        ui.label(
            RichText::new("Click the body to join it to.")
                .small()
                .color(Color32::from_rgb(250, 215, 65)),
        );
    }
}

/// The debug layer toggles.
fn debug_layers(ui: &mut Ui, view: &mut View) {
    egui::CollapsingHeader::new("Debug drawing")
        .default_open(true)
        .show(ui, |ui| {
            let l = &mut view.layers;
            let layers: [(&mut bool, &str, &str); 10] = [
                (
                    &mut l.colliders,
                    "colliders",
                    "Each collider's outline, over the solid bodies.",
                ),
                (
                    &mut l.touching,
                    "touching",
                    "Colliders touching another collider (in the narrow phase), \
                     drawn red.",
                ),
                (
                    &mut l.aabbs,
                    "AABBs",
                    "Each collider's tight axis-aligned bounding box.",
                ),
                (
                    &mut l.tree,
                    "broad phase",
                    "The broad phase's nodes, coloured by depth, red where a \
                     node's children overlap; leaves (the enlarged boxes it \
                     tests) grey.",
                ),
                (
                    &mut l.contacts,
                    "contacts",
                    "Contact points (grey: speculative, not touching yet) and \
                     normals, longer for a larger impulse.",
                ),
                (
                    &mut l.velocities,
                    "velocities",
                    "Each moving body's velocity as an arrow from its centre of \
                     mass.",
                ),
                (
                    &mut l.centers,
                    "centres of mass",
                    "Where each body's mass is centred.",
                ),
                (
                    &mut l.islands,
                    "islands",
                    "Bodies that touch or are joined are solved and put to sleep \
                     together: one colour per island, dimmer when asleep.",
                ),
                (
                    &mut l.joints,
                    "joints",
                    "Each joint's anchors, axes and limits.",
                ),
                (
                    &mut view.shadows,
                    "shadows",
                    "Soft shadows under the moving bodies.",
                ),
            ];
            // Two columns that split the panel's width (a label too long for one wraps).
            ui.columns(2, |columns| {
                for (i, (on, label, tip)) in layers.into_iter().enumerate() {
                    columns[i % 2].checkbox(on, label).on_hover_text(tip);
                }
            });
            ui.checkbox(&mut view.selected_only, "selected body only")
                .on_hover_text(
                    "With a body selected, the layers show only its colliders, boxes, \
                     contacts, velocities, centre and the broad-phase nodes that hold it.",
                );
            row(
                ui,
                "tree depth",
                "Deepest level of the broad phase's nodes drawn (0: the root only); deeper \
                 levels of a large tree cover the scene.",
                |ui| ui.add(egui::Slider::new(&mut view.tree_depth, 0..=40)),
            );
            // The legend of the layers that are on. Lines behind bodies show faded.
            let flags = l.flags();
            let legend = super::debug_draw::legend();
            let on: Vec<_> = legend
                .iter()
                .zip(flags)
                .filter(|(_, on)| *on)
                .flat_map(|((_, entries), _)| entries.iter())
                .collect();
            if !on.is_empty() {
                ui.horizontal_wrapped(|ui| {
                    ui.spacing_mut().item_spacing.x = 4.0;
                    for (color, meaning) in on {
                        let c = Color32::from_rgb(
                            (color.r * 255.0) as u8,
                            (color.g * 255.0) as u8,
                            (color.b * 255.0) as u8,
                        );
                        ui.label(RichText::new("■").color(c));
                        ui.label(RichText::new(*meaning).small());
                        ui.add_space(6.0);
                    }
                });
                ui.label(
                    RichText::new("Faded where hidden behind a body.")
                        .small()
                        .weak(),
                );
            }
        });
}

/// The series picked to plot, over simulated time, with a line at the time shown (it moves
/// as the timeline is scrubbed), and each series' remove button.
fn plots_section(ui: &mut Ui, sandbox: &Sandbox, view: &mut View) {
    egui::CollapsingHeader::new(format!("Plots ({})", view.plots.series.len()))
        .id_salt("plots")
        .default_open(true)
        .show(ui, |ui| {
            if view.plots.series.is_empty() {
                ui.label(
                    RichText::new(
                        "Right-click a body's position, velocity, spin or kinetic energy, or \
                         a joint, in Object to plot it.",
                    )
                    .small()
                    .weak(),
                );
                return;
            }
            let dt = sandbox.timestep as f64;
            series_plot(
                ui,
                "picked",
                &view.plots.series,
                dt,
                sandbox.world.time(),
                140.0,
            );
            let mut remove = None;
            for (i, s) in view.plots.series.iter().enumerate() {
                ui.horizontal(|ui| {
                    if ui
                        .small_button("×")
                        .on_hover_text("Stop plotting it")
                        .clicked()
                    {
                        remove = Some(i);
                    }
                    let last = s.points.last_key_value().map_or(String::new(), |(_, v)| {
                        format!(": {v:.4} {}", s.quantity.unit())
                    });
                    ui.add(
                        egui::Label::new(RichText::new(format!("{}{last}", s.label)).small())
                            .truncate(),
                    );
                });
            }
            if let Some(i) = remove {
                view.plots.series.remove(i);
            }
        });
}

/// A plot of `series` against simulated time (step × `dt`, s), with a vertical line at
/// `now` (s).
fn series_plot(
    ui: &mut Ui,
    id: &str,
    series: &[super::plots::Series],
    dt: f64,
    now: f64,
    height: f32,
) {
    Plot::new(id)
        .height(height)
        .allow_scroll(false)
        .allow_zoom(false)
        .allow_drag(false)
        .legend(
            egui_plot::Legend::default()
                .text_style(egui::TextStyle::Small)
                .background_alpha(0.5),
        )
        .x_axis_label("t (s)")
        .show(ui, |plot| {
            for s in series {
                let points: Vec<[f64; 2]> = s
                    .points
                    .iter()
                    .map(|(&step, &v)| [step as f64 * dt, v])
                    .collect();
                plot.line(Line::new(PlotPoints::from(points)).name(&s.label));
            }
            plot.vline(egui_plot::VLine::new(now).color(Color32::from_gray(160)));
        });
}

/// FPS, counters, phase times and the step-time plot.
fn stats(ui: &mut Ui, sandbox: &Sandbox, view: &View) {
    egui::CollapsingHeader::new("Stats")
        .default_open(true)
        .show(ui, |ui| {
            let s = &view.stats;
            let fps = if s.frame_time > 0.0 {
                1.0 / s.frame_time
            } else {
                0.0
            };
            ui.label(format!(
                "{fps:.0} FPS   frame {:.1} ms   physics {:.2} ms ({} steps)",
                s.frame_time * 1000.0,
                s.physics_ms,
                s.steps
            ));
            // Bodies are counted now (the step counters are from the last step, which a
            // reset while paused has not taken yet).
            let c = sandbox.world.counters();
            let world = &sandbox.world;
            let awake = world
                .bodies()
                .filter(|(_, b)| b.body_type() != BodyType::Static && b.is_awake())
                .count();
            ui.label(format!(
                "bodies {}   awake {}   awake islands {}\npairs {}   touching {}   contact points {}\n\
                 pairs tested {}   manifolds reused {}\n{}: {} box tests",
                world.body_count(),
                awake,
                c.islands,
                c.pairs,
                c.manifolds,
                c.contact_points,
                c.pair_tests,
                c.manifolds_reused,
                world.broad_phase().name(),
                c.broad_phase_tests
            ));
            if c.frozen_bodies > 0 {
                ui.label(
                    RichText::new(format!(
                        "frozen bodies: {} (their state stopped being finite; move \
                         one to release it)",
                        c.frozen_bodies
                    ))
                    .color(Color32::from_rgb(230, 120, 90)),
                );
            }
            let p = sandbox.world.profile();
            ui.label(
                RichText::new(format!(
                    "broad {:.2}  narrow {:.2}  solver {:.2}  integrate {:.2}  \
                     ccd {:.2}  islands {:.2} ms",
                    p.broad_phase_ms,
                    p.narrow_phase_ms,
                    p.solver_ms,
                    p.integration_ms,
                    p.continuous_ms,
                    p.islands_ms
                ))
                .small(),
            );
            let points: Vec<[f64; 2]> = s.history.iter().copied().collect();
            Plot::new("step-time")
                .height(110.0)
                .allow_scroll(false)
                .allow_zoom(false)
                .allow_drag(false)
                .x_axis_label("step")
                .y_axis_label("ms per step")
                .show(ui, |plot| {
                    plot.line(
                        Line::new(PlotPoints::from(points)).color(Color32::from_rgb(70, 130, 220)),
                    )
                });
            // The world's energy (J) and momentum: what a scene gains or loses shows here.
            let dt = sandbox.timestep as f64;
            let now = sandbox.world.time();
            let series = &view.world_plots.series;
            ui.label(RichText::new("energy (J): kinetic, potential (0 at the origin), sum").small());
            series_plot(ui, "energy", &series[..3], dt, now, 110.0);
            ui.label(RichText::new("momentum: linear (N·s), angular about the origin (N·m·s)").small());
            series_plot(ui, "momentum", &series[3..], dt, now, 90.0);
        });
}

/// The stress test button, its result and the FPS-by-bodies plot.
/// The event log: the last contact and sensor events, filterable by kind, and how many
/// times each sensor was entered.
fn events(ui: &mut Ui, sandbox: &mut Sandbox) {
    // Open at first in a scene with sensors (their events are what it is for).
    let sensors = sandbox.world.colliders().any(|(_, c)| c.is_sensor());
    let log = &mut sandbox.events;
    egui::CollapsingHeader::new(format!("Events ({})", log.total))
        .id_salt("events")
        .default_open(sensors)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                for ((_, label), on) in super::events::KINDS.iter().zip(log.show.iter_mut()) {
                    ui.checkbox(on, *label);
                }
            });
            for (sensor, count) in &log.entered {
                ui.label(format!("{sensor}: entered {count} times"));
            }
            if log.lines.is_empty() {
                ui.label(
                    RichText::new("No contact or sensor has begun or ended yet.")
                        .small()
                        .weak(),
                );
            }
            egui::ScrollArea::vertical()
                .id_salt("event-lines")
                .max_height(160.0)
                .show(ui, |ui| {
                    for line in log.shown().take(60) {
                        let speed = line
                            .approach_speed
                            .map(|v| format!(" at {v:.2} m/s"))
                            .unwrap_or_default();
                        ui.label(
                            RichText::new(format!(
                                "{:>6}  {}  {} · {}{speed}",
                                line.step,
                                line.kind.replace('_', " "),
                                line.a,
                                line.b
                            ))
                            .monospace()
                            .small(),
                        );
                    }
                });
        });
}

fn stress(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
    egui::CollapsingHeader::new("Stress test")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                if view.stress.running() {
                    if ui.button("Stop").clicked() {
                        view.stress.stop(&sandbox.world);
                    }
                    ui.label(format!("spawning… {} bodies", sandbox.world.body_count()));
                } else if ui.button("Start stress test").clicked() {
                    view.stress.start();
                    sandbox.playing = true;
                }
            });
            if let Some(o) = view.stress.outcome {
                ui.label(format!(
                    "{} bodies at {:.0} FPS; physics {:.0}% of the frame{}",
                    o.bodies,
                    o.fps,
                    o.physics_share * 100.0,
                    if o.stopped_by_user { " (stopped)" } else { "" }
                ));
            }
            if !view.stress.samples.is_empty() {
                let points = PlotPoints::from(view.stress.samples.clone());
                Plot::new("stress-fps")
                    .height(110.0)
                    .allow_scroll(false)
                    .allow_zoom(false)
                    .allow_drag(false)
                    .x_axis_label("bodies")
                    .y_axis_label("FPS")
                    // From zero, so the axes have several ticks and the drop shows to scale.
                    .include_x(0.0)
                    .include_y(0.0)
                    .show(ui, |plot| {
                        plot.line(Line::new(points).color(Color32::from_rgb(220, 120, 60)))
                    });
            }
        });
}

/// The broad phase menu (switching live changes no result, only the time) and the chosen
/// kind's parameters, in a space of the same height for every kind so that switching moves
/// nothing below it.
fn broad_phase_choice(ui: &mut Ui, kind: &mut BroadPhaseKind) {
    let label = |k: &BroadPhaseKind| match k {
        BroadPhaseKind::DynamicTree => "dynamic tree",
        BroadPhaseKind::BruteForce => "brute force",
        BroadPhaseKind::Quadtree { .. } => "quadtree",
        BroadPhaseKind::Grid { .. } => "uniform grid",
    };
    row(
        ui,
        "broad phase",
        "How pairs of bodies that may touch are found. Switching \
         changes no result, only the time (Stats shows the box \
         tests).",
        |ui| {
            egui::ComboBox::from_id_salt("broad phase")
                .width(ui.available_width() - 16.0)
                .truncate()
                .selected_text(label(kind))
                .show_ui(ui, |ui| {
                    for choice in [
                        BroadPhaseKind::DynamicTree,
                        BroadPhaseKind::QUADTREE,
                        BroadPhaseKind::GRID,
                        BroadPhaseKind::BruteForce,
                    ] {
                        let same = std::mem::discriminant(kind) == std::mem::discriminant(&choice);
                        if ui.selectable_label(same, label(&choice)).clicked() && !same {
                            *kind = choice;
                        }
                    }
                })
                .response
        },
    );
    let rows = 2.0 * ui.spacing().interact_size.y + ui.spacing().item_spacing.y;
    ui.allocate_ui(egui::vec2(ui.available_width(), rows), |ui| {
        ui.set_min_height(rows);
        match kind {
            BroadPhaseKind::Quadtree {
                max_depth,
                capacity,
            } => {
                row(
                    ui,
                    "max depth",
                    "Deepest level of the quadtree (over x and z): deeper cells \
                     hold fewer bodies but cost more to walk.",
                    |ui| {
                        ui.add(egui::Slider::new(
                            max_depth,
                            0..=crate::physics::QUADTREE_MAX_DEPTH_LIMIT,
                        ))
                    },
                );
                row(
                    ui,
                    "node capacity",
                    "Bodies a cell holds before it splits.",
                    |ui| ui.add(egui::Slider::new(capacity, 1..=64)),
                );
            }
            BroadPhaseKind::Grid { cell_size } => {
                let mut auto = cell_size.is_none();
                ui.checkbox(&mut auto, "cell size from the bodies")
                    .on_hover_text(
                        "Cells twice the mean largest extent of the bodies' boxes, \
                         chosen at every rebuild; off, the size below.",
                    );
                if auto {
                    *cell_size = None;
                    ui.label(RichText::new("cell size: from the bodies").small().weak());
                } else {
                    let mut size = cell_size.unwrap_or(2.0);
                    row(ui, "cell size (m)", "Edge of a grid cell, m.", |ui| {
                        ui.add(egui::Slider::new(&mut size, 0.1..=20.0).logarithmic(true))
                    });
                    *cell_size = Some(size);
                }
            }
            BroadPhaseKind::DynamicTree => {
                ui.label(
                    RichText::new(
                        "A tree of enlarged boxes, refitted as bodies move (Box2D's). \
                         No settings.",
                    )
                    .small()
                    .weak(),
                );
            }
            BroadPhaseKind::BruteForce => {
                ui.label(
                    RichText::new(
                        "Every pair of boxes tested: the reference the others must \
                         match. No settings.",
                    )
                    .small()
                    .weak(),
                );
            }
        }
    });
}
