//! The Object section: the selected body's pose, motion, type, material, collision groups,
//! colour and joints.

use super::*;

/// The selected body: transform, scale, velocities, type, material, delete.
pub(super) fn object(ui: &mut Ui, sandbox: &mut Sandbox, view: &mut View) {
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
pub(super) fn joints(ui: &mut Ui, sandbox: &mut Sandbox, handle: BodyHandle, plots: &mut Plots) {
    use super::super::joining::{kind_label, JointTool};
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

/// A filter's first eight bits as toggles "1" to "8" (groups 1–8; bit 0 is group 1), in a
/// panel row; the other 24 bits are kept as they are and shown in the tooltip.
pub(super) fn filter_bits(ui: &mut Ui, label: &str, tip: &str, bits: &mut u32) -> egui::Response {
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

/// A right-click menu on `response` that plots a component of a body's vector (`what`: its
/// name in the menu and the legend); `quantity` makes the series of a component.
pub(super) fn plot_menu(
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
