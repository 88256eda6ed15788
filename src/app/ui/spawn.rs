//! The Spawn section: what the Spawn and Throw buttons make.

use super::*;

/// Spawn a shape at the clicked point or in front of the camera; throw it.
pub(super) fn spawn(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
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
