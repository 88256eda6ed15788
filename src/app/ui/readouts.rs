//! The read-outs of the right panel: plots, stats, the event log and the stress test.

use super::*;

/// The series picked to plot, over simulated time, with a line at the time shown (it moves
/// as the timeline is scrubbed), and each series' remove button.
pub(super) fn plots_section(ui: &mut Ui, sandbox: &Sandbox, view: &mut View) {
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
pub(super) fn series_plot(
    ui: &mut Ui,
    id: &str,
    series: &[super::super::plots::Series],
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
pub(super) fn stats(ui: &mut Ui, sandbox: &Sandbox, view: &View) {
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
pub(super) fn events(ui: &mut Ui, sandbox: &mut Sandbox) {
    // Open at first in a scene with sensors (their events are what it is for).
    let sensors = sandbox.world.colliders().any(|(_, c)| c.is_sensor());
    let log = &mut sandbox.events;
    egui::CollapsingHeader::new(format!("Events ({})", log.total))
        .id_salt("events")
        .default_open(sensors)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                for ((_, label), on) in super::super::events::KINDS.iter().zip(log.show.iter_mut())
                {
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

pub(super) fn stress(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
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
