//! The egui panels: simulation, scene, spawn, debug drawing on the left; object, stats, stress
//! test on the right; the rewind timeline under the 3D view.

use std::path::{Path, PathBuf};

use egui::{self, Color32, RichText, Ui};
use egui_plot::{Line, Plot, PlotPoints};
use macroquad::prelude::{EulerRot, Quat, Vec3};

use super::sandbox::{Sandbox, Source, SpawnShape};
use super::View;
use crate::physics::{
    threads, BodyHandle, BodyType, BroadPhaseKind, ColliderDef, Integrator, JointKind,
};

/// How long a notice ("loaded …", "saved …") shows, s.
const NOTICE_SECONDS: f64 = 4.0;

/// Builds every panel for this frame and tells the camera where the 3D view is between them.
pub fn panels(ctx: &egui::Context, sandbox: &mut Sandbox, view: &mut View) {
    let left = egui::SidePanel::left("impulse-panel")
        .resizable(true)
        .default_width(300.0)
        .show(ctx, |ui| {
            header(ui, sandbox);
            let scroll = egui::ScrollArea::vertical().show(ui, |ui| {
                simulation(ui, sandbox);
                spawn(ui, sandbox, view);
                scene(ui, sandbox, view);
                debug_layers(ui, view);
            });
            view.panel_scroll = scroll.state.offset.y;
        });
    let right = egui::SidePanel::right("impulse-inspector")
        .resizable(true)
        .default_width(290.0)
        .show(ctx, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                object(ui, sandbox, view);
                stats(ui, sandbox, view);
                events(ui, sandbox);
                stress(ui, sandbox, view);
            });
        });
    // Between the side panels, under the 3D view.
    let bottom = egui::TopBottomPanel::bottom("impulse-timeline")
        .show(ctx, |ui| timeline(ui, sandbox))
        .response
        .rect
        .top();
    notice(ctx, sandbox, left.response.rect.right(), bottom);
    // egui points are pixels (high_dpi is off), scaled by pixels_per_point.
    let scale = ctx.pixels_per_point();
    let screen = ctx.screen_rect();
    let left_px = left.response.rect.right() * scale;
    let right_px = right.response.rect.left() * scale;
    view.camera.viewport = [
        left_px,
        (right_px - left_px).max(1.0),
        (bottom * scale).max(1.0),
    ];
    view.camera.bottom = ((screen.bottom() - bottom) * scale).max(0.0);
}

/// The rewind timeline: a slider over the recorded steps, step back / forward, back to the
/// present, and what the history holds.
fn timeline(ui: &mut Ui, sandbox: &mut Sandbox) {
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
        let mut step = now;
        let status_width = 260.0;
        ui.spacing_mut().slider_width = (ui.available_width() - status_width).max(60.0);
        let slider = egui::Slider::new(&mut step, oldest..=head.max(oldest + 1))
            .show_value(false)
            .clamping(egui::SliderClamping::Always);
        if ui
            .add_enabled(head > oldest, slider)
            .on_hover_text("Drag to rewind: Play replays the recording; an edit or a grab in the past starts a new branch from there")
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

/// The last notice, over the bottom of the 3D view, for a few seconds.
fn notice(ctx: &egui::Context, sandbox: &mut Sandbox, left: f32, bottom: f32) {
    let Some((text, at)) = sandbox.notice.clone() else {
        return;
    };
    if at.elapsed().as_secs_f64() > NOTICE_SECONDS {
        sandbox.notice = None;
        return;
    }
    egui::Area::new(egui::Id::new("impulse-notice"))
        .fixed_pos(egui::pos2(left + 12.0, bottom - 40.0))
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.colored_label(Color32::from_rgb(60, 150, 80), text);
            });
        });
    ctx.request_repaint();
}

/// Title, the scene's name, an error until dismissed, and the mouse controls.
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
                // A fixed width, so Step and Reset stay put when the label changes.
                if ui
                    .add_sized([104.0, 20.0], egui::Button::new(label))
                    .clicked()
                {
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
                ui.add(typed(egui::Slider::new(&mut settings.substeps, 1..=16)).text("sub-steps"));
                ui.add(
                    typed(egui::Slider::new(&mut settings.velocity_iterations, 1..=8))
                        .text("velocity iterations"),
                );
                ui.add(
                    typed(egui::Slider::new(&mut settings.position_iterations, 0..=8))
                        .text("relax iterations"),
                );
                ui.add(
                    typed(egui::Slider::new(&mut settings.contact_hertz, 5.0..=120.0))
                        .text("contact Hz"),
                );
                ui.add(
                    typed(egui::Slider::new(&mut settings.gravity.y, -30.0..=10.0))
                        .text("gravity y"),
                );
                ui.checkbox(&mut settings.enable_sleeping, "sleeping");
                ui.checkbox(&mut settings.enable_warm_starting, "warm starting");
                ui.checkbox(&mut settings.planar, "planar (x–y plane, front view)");
                egui::ComboBox::from_label("integrator")
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
                    });
                broad_phase_choice(ui, &mut settings.broad_phase);
                if settings != before {
                    sandbox.set_settings(settings);
                }
                workers(ui);
            });
        });
}

/// The Workers slider: threads each step may use, 1 to the machine's hardware threads (the
/// process default, so every scene loaded afterwards uses it too; `--threads` sets it at
/// start). Results are the same at any count; only the physics time changes.
fn workers(ui: &mut Ui) {
    let most = threads::hardware_threads().max(threads::default_workers());
    let mut n = threads::default_workers();
    let slider = ui
        .add(egui::Slider::new(&mut n, 1..=most).text("workers"))
        .on_hover_text(
            "Threads each physics step may use. The simulation is the same bit for bit at \
             any count; more workers only make large scenes step faster.",
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

/// A file name for Save as that does not exist yet: next to the open scene (in scenes/ for
/// the built-in one), named after it with the first free number.
pub fn suggested_save_path(source: &Source) -> PathBuf {
    let (dir, stem) = match source {
        Source::File(p) => (
            p.parent().map(Path::to_path_buf).unwrap_or_default(),
            p.file_stem()
                .map(|s| s.to_string_lossy().to_string())
                .unwrap_or_else(|| "scene".into()),
        ),
        Source::Default => (scenes_dir(), "default".into()),
    };
    (2..)
        .map(|n| dir.join(format!("{stem}-{n}.ron")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| dir.join(format!("{stem}-saved.ron")))
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
            ui.horizontal(|ui| {
                ui.add(egui::TextEdit::singleline(&mut view.load_path).desired_width(180.0));
                if ui.button("Load").clicked() {
                    let path = PathBuf::from(view.load_path.trim());
                    sandbox.load(&path);
                }
            });
            // Save as: the field starts as a new name next to the open scene; an existing file
            // is only replaced after asking.
            if view.save_path.is_empty() {
                view.save_path = suggested_save_path(&sandbox.source).display().to_string();
            }
            ui.horizontal(|ui| {
                ui.add(egui::TextEdit::singleline(&mut view.save_path).desired_width(180.0));
                if ui.button("Save as").clicked() {
                    let path = PathBuf::from(view.save_path.trim());
                    if path.exists() {
                        view.confirm_overwrite = Some(path);
                    } else {
                        sandbox.save_as(&path, &view.camera.to_desc());
                        view.save_path.clear();
                    }
                }
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
                RichText::new("The open file reloads when it changes on disk.")
                    .small()
                    .weak(),
            );
            // The shipped scenes, one click each. Last in the section, so the list can grow
            // without moving anything above it (the window tests click at fixed places).
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
            ui.add(typed(egui::Slider::new(&mut s.size, 0.1..=2.0)).text("size (m)"));
            ui.add(
                typed(egui::Slider::new(&mut s.density, 0.1..=20.0))
                    .logarithmic(true)
                    .text("density"),
            );
            ui.add(typed(egui::Slider::new(&mut s.friction, 0.0..=1.5)).text("friction"));
            ui.add(typed(egui::Slider::new(&mut s.restitution, 0.0..=1.0)).text("restitution"));
            ui.add(
                typed(egui::Slider::new(&mut s.throw_speed, 1.0..=60.0)).text("throw speed (m/s)"),
            );
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

/// A slider whose handle stays in its range but whose typed values do not: they go to the
/// world (or the spawner), which refuses a bad one with a message instead of it being
/// clamped silently.
fn typed(slider: egui::Slider<'_>) -> egui::Slider<'_> {
    slider.clamping(egui::SliderClamping::Never)
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
                sandbox.set_position(handle, position);
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
                sandbox.set_rotation(handle, q);
            }
            ui.horizontal(|ui| {
                ui.label("scale ×");
                ui.add(egui::DragValue::new(&mut view.scale_factor).speed(0.01));
                if ui.button("Apply").clicked() {
                    sandbox.scale_body(handle, view.scale_factor);
                    view.scale_factor = 1.0;
                }
            });
            let linear_changed = vec3_edit(ui, "velocity", &mut linear, 0.05);
            if vec3_edit(ui, "spin rad/s", &mut angular, 0.05) || linear_changed {
                sandbox.set_velocity(handle, linear, angular);
            }
            let mut new_type = body_type;
            egui::ComboBox::from_label("type")
                .selected_text(format!("{body_type:?}"))
                .show_ui(ui, |ui| {
                    for t in [BodyType::Static, BodyType::Kinematic, BodyType::Dynamic] {
                        ui.selectable_value(&mut new_type, t, format!("{t:?}"));
                    }
                });
            if new_type != body_type {
                sandbox.set_body_type(handle, new_type);
            }
            // Material: shown from the first collider, applied to all.
            let first = sandbox.world.body_colliders(handle).next();
            if let Some(first) = first.and_then(|c| sandbox.world.collider(c)) {
                let mut m: ColliderDef = first.to_def();
                let mut changed = false;
                changed |= ui
                    .add(typed(egui::Slider::new(&mut m.friction, 0.0..=1.5)).text("friction"))
                    .changed();
                changed |= ui
                    .add(
                        typed(egui::Slider::new(&mut m.restitution, 0.0..=1.0)).text("restitution"),
                    )
                    .changed();
                changed |= ui
                    .add(
                        typed(egui::Slider::new(&mut m.density, 0.01..=100.0))
                            .logarithmic(true)
                            .text("density"),
                    )
                    .changed();
                if changed {
                    sandbox.set_material(handle, &m);
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
            joints(ui, sandbox, handle);
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

/// The selected body's joints (each with its angle or length and force, and a Remove
/// button) and the Join button that makes a new one.
fn joints(ui: &mut Ui, sandbox: &mut Sandbox, handle: BodyHandle) {
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
        ui.horizontal(|ui| {
            ui.label(RichText::new(text).small());
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
        } else if ui
            .button("Join…")
            .on_hover_text(
                "Then click the body to join this one to (the ground: fixed to the world). \
                 Ball joint, hinge and weld sit where you click; a hinge turns about the \
                 clicked surface's normal; a rope or spring runs from this body's centre.",
            )
            .clicked()
        {
            sandbox.start_joining(handle);
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
            egui::Grid::new("layers").num_columns(2).show(ui, |ui| {
                ui.checkbox(&mut l.colliders, "colliders");
                ui.checkbox(&mut l.touching, "touching");
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
                ui.checkbox(&mut l.joints, "joint axes, limits");
                ui.checkbox(&mut view.shadows, "shadows");
                ui.end_row();
            });
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
                        "frozen bodies: {} (their state stopped being finite; move one to release it)",
                        c.frozen_bodies
                    ))
                    .color(Color32::from_rgb(230, 120, 90)),
                );
            }
            let p = sandbox.world.profile();
            ui.label(
                RichText::new(format!(
                    "broad {:.2}  narrow {:.2}  solver {:.2}  integrate {:.2}  ccd {:.2}  islands {:.2} ms",
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
                    .show(ui, |plot| {
                        plot.line(Line::new(points).color(Color32::from_rgb(220, 120, 60)))
                    });
            }
        });
}

/// The broad phase menu (switching live changes no result, only the time) and the chosen
/// kind's parameters.
fn broad_phase_choice(ui: &mut Ui, kind: &mut BroadPhaseKind) {
    let label = |k: &BroadPhaseKind| match k {
        BroadPhaseKind::DynamicTree => "dynamic tree",
        BroadPhaseKind::BruteForce => "brute force",
        BroadPhaseKind::Quadtree { .. } => "quadtree",
        BroadPhaseKind::Grid { .. } => "uniform grid",
    };
    egui::ComboBox::from_label("broad phase")
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
        });
    match kind {
        BroadPhaseKind::Quadtree {
            max_depth,
            capacity,
        } => {
            ui.add(
                egui::Slider::new(max_depth, 0..=crate::physics::QUADTREE_MAX_DEPTH_LIMIT)
                    .text("max depth"),
            );
            ui.add(egui::Slider::new(capacity, 1..=64).text("node capacity"));
        }
        BroadPhaseKind::Grid { cell_size } => {
            let mut auto = cell_size.is_none();
            ui.checkbox(&mut auto, "cell size from the bodies");
            if auto {
                *cell_size = None;
            } else {
                let mut size = cell_size.unwrap_or(2.0);
                ui.add(
                    egui::Slider::new(&mut size, 0.1..=20.0)
                        .logarithmic(true)
                        .text("cell size (m)"),
                );
                *cell_size = Some(size);
            }
        }
        _ => {}
    }
}
