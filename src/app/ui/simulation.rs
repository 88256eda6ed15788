//! The Simulation and Solver sections: play, step, time scale; the solver's settings, the
//! worker threads and the broad phase.

use super::*;
#[cfg(feature = "parallel")]
use crate::physics::threads;

/// Play, pause, step, reset, time scale, counters, solver settings.
pub(super) fn simulation(ui: &mut Ui, sandbox: &mut Sandbox) {
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
pub(super) fn solver(ui: &mut Ui, sandbox: &mut Sandbox) {
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
        // Without the `parallel` feature (the web build) every step runs on one thread.
        #[cfg(feature = "parallel")]
        workers(ui);
    });
    mark("solver", &header.header_response);
}

/// The Workers slider: threads each step may use, 1 to the machine's hardware threads (the
/// process default, so every scene loaded afterwards uses it too; `--threads` sets it at
/// start). Results are the same at any count; only the physics time changes.
#[cfg(feature = "parallel")]
pub(super) fn workers(ui: &mut Ui) {
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

/// The broad phase menu (switching live changes no result, only the time) and the chosen
/// kind's parameters, in a space of the same height for every kind so that switching moves
/// nothing below it.
pub(super) fn broad_phase_choice(ui: &mut Ui, kind: &mut BroadPhaseKind) {
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
