//! The egui panel: simulation, scene, spawn, object, debug drawing, stats, stress test.

use std::path::{Path, PathBuf};

use egui_macroquad::egui::{self, Color32, RichText, Ui};
use egui_plot::{Line, Plot, PlotPoints};
use macroquad::prelude::{EulerRot, Quat, Vec3};

use super::sandbox::{Sandbox, SpawnShape};
use super::View;
use crate::physics::{BodyType, BroadPhaseKind, ColliderDef};

/// Builds every panel for this frame.
pub fn panels(ctx: &egui::Context, sandbox: &mut Sandbox, view: &mut View) {
    let panel = egui::SidePanel::left("impulse-panel")
        .resizable(true)
        .default_width(310.0)
        .show(ctx, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                header(ui, sandbox);
                simulation(ui, sandbox);
                scene(ui, sandbox, view);
                spawn(ui, sandbox, view);
                object(ui, sandbox, view);
                debug_layers(ui, view);
                stats(ui, sandbox, view);
                stress(ui, sandbox, view);
            });
        });
    // The 3D view starts where the panel ends (egui points are pixels: high_dpi is off).
    view.camera.viewport_left = panel.response.rect.right() * ctx.pixels_per_point();
}

/// Title, the scene's name, messages, and the mouse controls.
fn header(ui: &mut Ui, sandbox: &mut Sandbox) {
    ui.heading("Impulse");
    ui.label(RichText::new(sandbox.source.label()).weak());
    if let Some(error) = sandbox.error.clone() {
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(Color32::from_rgb(220, 60, 50), error);
            if ui.small_button("dismiss").clicked() {
                sandbox.error = None;
            }
        });
    } else if let Some(notice) = &sandbox.notice {
        ui.colored_label(Color32::from_rgb(60, 150, 80), notice);
    }
    ui.label(RichText::new("Drag: orbit · Shift/middle-drag: pan · Scroll: zoom\nClick: select · Ctrl- or right-drag: pull a body · F: frame").small());
    ui.separator();
}

/// Play, pause, step, reset, time scale, counters, solver settings.
fn simulation(ui: &mut Ui, sandbox: &mut Sandbox) {
    egui::CollapsingHeader::new("Simulation")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                let label = if sandbox.playing {
                    "Pause  [Space]"
                } else {
                    "Play  [Space]"
                };
                if ui.button(label).clicked() {
                    sandbox.playing = !sandbox.playing;
                }
                if ui.button("Step  [N]").clicked() {
                    sandbox.playing = false;
                    sandbox.step_once();
                }
                if ui.button("Reset  [R]").clicked() {
                    sandbox.reset();
                }
            });
            ui.add(egui::Slider::new(&mut sandbox.time_scale, 0.05..=2.0).text("time scale"));
            ui.label(format!(
                "step {}   t = {:.2} s   dt = {:.2} ms",
                sandbox.world.step_count(),
                sandbox.world.time(),
                sandbox.timestep * 1000.0
            ));
            egui::CollapsingHeader::new("Solver").show(ui, |ui| {
                let mut settings = sandbox.world.settings().clone();
                let before = settings.clone();
                ui.add(egui::Slider::new(&mut settings.substeps, 1..=16).text("sub-steps"));
                ui.add(
                    egui::Slider::new(&mut settings.velocity_iterations, 1..=8)
                        .text("velocity iterations"),
                );
                ui.add(
                    egui::Slider::new(&mut settings.position_iterations, 0..=8)
                        .text("relax iterations"),
                );
                ui.add(
                    egui::Slider::new(&mut settings.contact_hertz, 5.0..=120.0).text("contact Hz"),
                );
                ui.add(egui::Slider::new(&mut settings.gravity.y, -30.0..=10.0).text("gravity y"));
                ui.checkbox(&mut settings.enable_sleeping, "sleeping");
                ui.checkbox(&mut settings.enable_warm_starting, "warm starting");
                egui::ComboBox::from_label("broad phase")
                    .selected_text(format!("{:?}", settings.broad_phase))
                    .show_ui(ui, |ui| {
                        ui.selectable_value(
                            &mut settings.broad_phase,
                            BroadPhaseKind::DynamicTree,
                            "DynamicTree",
                        );
                        ui.selectable_value(
                            &mut settings.broad_phase,
                            BroadPhaseKind::BruteForce,
                            "BruteForce",
                        );
                    });
                if settings != before {
                    let gravity_changed = settings.gravity != before.gravity;
                    sandbox.world.set_settings(settings);
                    if gravity_changed {
                        sandbox.world.wake_all();
                    }
                }
            });
        });
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

/// Scene list, load by path, save as.
fn scene(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
    egui::CollapsingHeader::new("Scene")
        .default_open(true)
        .show(ui, |ui| {
            let mut files: Vec<PathBuf> = std::fs::read_dir(scenes_dir())
                .map(|d| {
                    d.filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
                        .collect()
                })
                .unwrap_or_default();
            files.sort();
            ui.horizontal_wrapped(|ui| {
                for file in &files {
                    let name = file
                        .file_stem()
                        .map(|s| s.to_string_lossy().to_string())
                        .unwrap_or_default();
                    if ui.small_button(name).clicked() {
                        sandbox.load(file);
                    }
                }
            });
            ui.horizontal(|ui| {
                ui.add(egui::TextEdit::singleline(&mut view.load_path).desired_width(180.0));
                if ui.button("Load").clicked() {
                    let path = PathBuf::from(view.load_path.trim());
                    sandbox.load(&path);
                }
            });
            ui.horizontal(|ui| {
                ui.add(egui::TextEdit::singleline(&mut view.save_path).desired_width(180.0));
                if ui.button("Save as").clicked() {
                    let path = PathBuf::from(view.save_path.trim());
                    let camera = view.camera.to_desc();
                    sandbox.save_as(&path, &camera);
                }
            });
            ui.label(
                RichText::new("The open file reloads when it changes on disk.")
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
            egui::ComboBox::from_label("shape")
                .selected_text(s.shape.label())
                .show_ui(ui, |ui| {
                    for shape in SpawnShape::ALL {
                        ui.selectable_value(&mut s.shape, shape, shape.label());
                    }
                });
            ui.add(egui::Slider::new(&mut s.size, 0.1..=2.0).text("size (m)"));
            ui.add(
                egui::Slider::new(&mut s.density, 0.1..=20.0)
                    .logarithmic(true)
                    .text("density"),
            );
            ui.add(egui::Slider::new(&mut s.friction, 0.0..=1.5).text("friction"));
            ui.add(egui::Slider::new(&mut s.restitution, 0.0..=1.0).text("restitution"));
            ui.add(egui::Slider::new(&mut s.throw_speed, 1.0..=60.0).text("throw speed (m/s)"));
            ui.horizontal(|ui| {
                let camera = &view.camera;
                let in_front =
                    camera.eye() + camera.forward() * (camera.distance * 0.5).clamp(2.0, 8.0);
                let label = if view.click_point.is_some() {
                    "Spawn at click"
                } else {
                    "Spawn in front"
                };
                if ui.button(label).clicked() {
                    let at = view.click_point.unwrap_or(in_front);
                    sandbox.spawn_at(at, Vec3::ZERO);
                }
                if ui.button("Throw").clicked() {
                    let speed = sandbox.spawn.throw_speed;
                    let from = camera.eye() + camera.forward() * 1.5;
                    sandbox.spawn_at(from, camera.forward() * speed);
                }
            });
            ui.label(
                RichText::new("Click the ground to choose where things spawn.")
                    .small()
                    .weak(),
            );
        });
}

/// Three drag values for a vector; true when changed.
fn vec3_edit(ui: &mut Ui, label: &str, v: &mut Vec3, speed: f64) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        ui.label(label);
        for (i, axis) in ["x ", "y ", "z "].iter().enumerate() {
            changed |= ui
                .add(
                    egui::DragValue::new(&mut v[i])
                        .speed(speed)
                        .prefix(*axis)
                        .max_decimals(3),
                )
                .changed();
        }
    });
    changed
}

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
            ui.label(RichText::new(sandbox.body_name(handle)).strong());
            ui.label(format!(
                "{:?}, {}  mass {:.3} kg",
                body_type,
                if awake { "awake" } else { "asleep" },
                mass
            ));
            if vec3_edit(ui, "position", &mut position, 0.02) {
                sandbox.world.set_position(handle, position);
            }
            let (ex, ey, ez) = rotation.to_euler(EulerRot::XYZ);
            let mut euler = Vec3::new(ex.to_degrees(), ey.to_degrees(), ez.to_degrees());
            if vec3_edit(ui, "rotation°", &mut euler, 0.5) {
                let q = Quat::from_euler(
                    EulerRot::XYZ,
                    euler.x.to_radians(),
                    euler.y.to_radians(),
                    euler.z.to_radians(),
                );
                sandbox.world.set_rotation(handle, q);
            }
            ui.horizontal(|ui| {
                ui.label("scale ×");
                ui.add(
                    egui::DragValue::new(&mut view.scale_factor)
                        .speed(0.01)
                        .range(0.1..=10.0),
                );
                if ui.button("Apply").clicked() {
                    sandbox.scale_body(handle, view.scale_factor);
                    view.scale_factor = 1.0;
                }
            });
            if vec3_edit(ui, "velocity", &mut linear, 0.05) {
                sandbox.world.set_linear_velocity(handle, linear);
            }
            if vec3_edit(ui, "spin rad/s", &mut angular, 0.05) {
                sandbox.world.set_angular_velocity(handle, angular);
            }
            let mut new_type = body_type;
            egui::ComboBox::from_label("type")
                .selected_text(format!("{body_type:?}"))
                .show_ui(ui, |ui| {
                    for t in [BodyType::Static, BodyType::Kinematic, BodyType::Dynamic] {
                        ui.selectable_value(&mut new_type, t, format!("{t:?}"));
                    }
                });
            if new_type != body_type && !sandbox.world.set_body_type(handle, new_type) {
                sandbox.error = Some("a body with a plane must stay static".into());
            }
            // Material: shown from the first collider, applied to all.
            let colliders: Vec<_> = sandbox.world.body_colliders(handle).collect();
            if let Some(first) = colliders.first().and_then(|&c| sandbox.world.collider(c)) {
                let mut m: ColliderDef = first.to_def();
                let mut changed = false;
                changed |= ui
                    .add(egui::Slider::new(&mut m.friction, 0.0..=1.5).text("friction"))
                    .changed();
                changed |= ui
                    .add(egui::Slider::new(&mut m.restitution, 0.0..=1.0).text("restitution"))
                    .changed();
                changed |= ui
                    .add(
                        egui::Slider::new(&mut m.density, 0.01..=100.0)
                            .logarithmic(true)
                            .text("density"),
                    )
                    .changed();
                if changed {
                    for c in colliders {
                        if let Err(e) = sandbox.world.set_collider_material(c, &m) {
                            sandbox.error = Some(e.to_string());
                        }
                    }
                }
            }
            let mut rgb = sandbox.body_color(handle);
            if ui
                .horizontal(|ui| {
                    ui.label("colour");
                    ui.color_edit_button_rgb(&mut rgb).changed()
                })
                .inner
            {
                sandbox.set_color(handle, (rgb[0], rgb[1], rgb[2]));
            }
            ui.horizontal(|ui| {
                if ui.button("Delete  [Del]").clicked() {
                    sandbox.delete_selected();
                }
                if ui.button("Frame  [F]").clicked() {
                    view.frame_request = true;
                }
            });
        });
}

/// The debug layer toggles.
fn debug_layers(ui: &mut Ui, view: &mut View) {
    egui::CollapsingHeader::new("Debug drawing")
        .default_open(true)
        .show(ui, |ui| {
            let l = &mut view.layers;
            egui::Grid::new("layers").num_columns(2).show(ui, |ui| {
                ui.checkbox(&mut l.colliders, "colliders");
                ui.checkbox(&mut l.touching, "touching (red)");
                ui.end_row();
                ui.checkbox(&mut l.aabbs, "AABBs");
                ui.checkbox(&mut l.tree, "broad-phase tree");
                ui.end_row();
                ui.checkbox(&mut l.contacts, "contacts");
                ui.checkbox(&mut l.velocities, "velocities");
                ui.end_row();
                ui.checkbox(&mut l.centers, "centres of mass");
                ui.checkbox(&mut l.islands, "islands");
                ui.end_row();
            });
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
            let c = sandbox.world.counters();
            ui.label(format!(
                "bodies {}   awake {}   islands {}\npairs {}   touching {}   contact points {}\n\
                 pairs tested {}   manifolds reused {}",
                c.bodies,
                c.awake_bodies,
                c.islands,
                c.pairs,
                c.manifolds,
                c.contact_points,
                c.pair_tests,
                c.manifolds_reused
            ));
            if c.frozen_bodies > 0 {
                ui.label(
                    RichText::new(format!(
                        "frozen bodies: {} (their state stopped being finite; move one to release it)",
                        c.frozen_bodies
                    ))
                    .color(Color32::from_rgb(230, 120, 90)),
                );
            }
            let p = sandbox.world.profile();
            ui.label(
                RichText::new(format!(
                    "broad {:.2}  narrow {:.2}  solver {:.2}  integrate {:.2}  islands {:.2} ms",
                    p.broad_phase_ms,
                    p.narrow_phase_ms,
                    p.solver_ms,
                    p.integration_ms,
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
                .y_axis_label("step ms")
                .show(ui, |plot| {
                    plot.line(
                        Line::new(PlotPoints::from(points)).color(Color32::from_rgb(70, 130, 220)),
                    )
                });
        });
}

/// The stress test button, its result and the FPS-by-bodies plot.
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
                    .show(ui, |plot| {
                        plot.line(Line::new(points).color(Color32::from_rgb(220, 120, 60)))
                    });
            }
        });
}
