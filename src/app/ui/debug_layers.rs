//! The Debug drawing section: which layers the view draws.

use super::*;

/// The debug layer toggles.
pub(super) fn debug_layers(ui: &mut Ui, view: &mut View) {
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
            let legend = super::super::debug_draw::legend();
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
