//! The egui panels: simulation, spawn, scene browser, debug drawing on the left; object,
//! stats, events, stress test on the right; the rewind timeline under the 3D view; over the
//! view, the open scene's description, the status line (errors and notices) and the help.
//!
//! The layout does not move under the cursor: every row of a panel is as wide as the panel
//! ([`row`]), so opening a section never widens it, and errors and notices are overlays on
//! the 3D view instead of lines that push the controls down.

#[cfg(target_arch = "wasm32")]
mod browser;
mod catalogue;
mod debug_layers;
#[cfg(not(target_arch = "wasm32"))]
mod disk;
mod files;
pub mod help;
mod inspector;
mod readouts;
mod simulation;
mod spawn;
mod timeline;

use crate::physics::clock::Instant;
use std::path::{Path, PathBuf};

use egui::{self, Align, Color32, Layout, RichText, Ui};
use egui_plot::{Line, Plot, PlotPoints};
use macroquad::prelude::{EulerRot, Quat, Vec3};

use super::plots::{Component, Plots, Quantity};
use super::sandbox::{Sandbox, Source, SpawnShape};
use super::View;
use crate::physics::{BodyHandle, BodyType, BroadPhaseKind, ColliderDef, Integrator, JointKind};
use catalogue::Catalogue;
use debug_layers::debug_layers;
#[cfg(not(target_arch = "wasm32"))]
pub use disk::{save_dir, FileBrowser};
use files::scene;
pub use files::SceneBrowser;
use inspector::object;
use readouts::{events, plots_section, stats, stress};
use simulation::{simulation, solver};
use spawn::spawn;
use timeline::timeline;

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
    #[cfg(not(target_arch = "wasm32"))]
    disk::file_dialog(ctx, sandbox, view);
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

/// A slider whose handle stays in its range but whose typed values do not: they go to the
/// world (or the spawner), which refuses a bad one with a message instead of it being
/// clamped silently.
fn typed(slider: egui::Slider<'_>) -> egui::Slider<'_> {
    slider.clamping(egui::SliderClamping::Never)
}

/// The narrowest a field of [`vec3_edit`] is made, points: "-0.000" in it.
const FIELD_WIDTH: f32 = 42.0;

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
