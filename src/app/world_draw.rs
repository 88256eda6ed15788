//! Drawing the world: bodies (lit batches), the ground grid and the debug layers.

use std::collections::HashSet;

use macroquad::prelude::*;

use super::debug_draw;
use super::render::{Layer, Renderer};
use super::sandbox::Sandbox;
use super::View;
use crate::physics::aabb::Aabb;
use crate::physics::{BodyHandle, BodyType, ColliderHandle, Shape};

/// Opacity of sensors (0–255): see-through, so what they hold shows.
const SENSOR_ALPHA: u8 = 70;

/// Half size of the drawn ground square, m.
const GROUND_HALF_SIZE: f32 = 60.0;

/// Colour of island `id` (a golden-angle hue walk).
fn island_color(id: u32) -> [f32; 3] {
    let h = (id as f32 * 0.618_034).fract();
    let c = macroquad::color::hsl_to_rgb(h, 0.65, 0.55);
    [c.r, c.g, c.b]
}

/// Draws bodies, the ground and the debug layers.
pub fn draw_world(sandbox: &Sandbox, view: &View, renderer: &mut Renderer) {
    let world = &sandbox.world;
    let layers = view.layers;
    let touching: HashSet<ColliderHandle> = if layers.touching {
        world
            .contacts()
            .filter(|c| c.is_touching() && c.points().iter().any(|p| p.depth >= 0.0))
            .flat_map(|c| [c.collider_a(), c.collider_b()])
            .collect()
    } else {
        HashSet::new()
    };

    let mut touching_outlines = Vec::new();
    // Sensors are drawn see-through after every solid.
    let mut sensors = Vec::new();
    renderer.begin(&view.camera.camera3d());
    for (handle, body) in world.bodies() {
        let mut rgb = sandbox.body_color(handle);
        // A slight per-body shade so bodies sharing a colour (a stack, a pyramid) read as
        // separate blocks.
        let shade =
            0.88 + 0.24 * ((handle.index().wrapping_mul(2_654_435_761) >> 24) as f32 / 255.0);
        rgb = rgb.map(|c| (c * shade).min(1.0));
        if layers.islands {
            if let Some(island) = body
                .island()
                .filter(|_| body.body_type() == BodyType::Dynamic)
            {
                rgb = island_color(island);
            }
        }
        if body.body_type() == BodyType::Dynamic && !body.is_awake() {
            // Sleeping: dimmed towards grey.
            rgb = rgb.map(|c| c * 0.7 + 0.08);
        }
        if sandbox.selected == Some(handle) {
            rgb = rgb.map(|c| (c * 1.25 + 0.08).min(1.0));
        }
        for ch in world.body_colliders(handle) {
            let Some(collider) = world.collider(ch) else {
                continue;
            };
            renderer.set_layer(if body.body_type() != BodyType::Static {
                Layer::Moving
            } else if super::controls::is_ground(collider) {
                Layer::Floor
            } else {
                Layer::Fixed
            });
            let mut color = rgb;
            // Static bodies (floors, walls) touch everything; tinting them would hide the rest.
            // With the island colours on, touching shows as a red outline instead of a fill.
            if touching.contains(&ch) && body.body_type() != BodyType::Static {
                if layers.islands {
                    touching_outlines.push(ch);
                } else {
                    color = [0.95, 0.15, 0.12];
                }
            }
            let rgba = [
                (color[0] * 255.0) as u8,
                (color[1] * 255.0) as u8,
                (color[2] * 255.0) as u8,
                255,
            ];
            if collider.is_sensor() {
                sensors.push((ch, [rgba[0], rgba[1], rgba[2], SENSOR_ALPHA]));
                continue;
            }
            match collider.shape() {
                Shape::Plane { normal } => renderer.ground(
                    &collider.world_pose(),
                    *normal,
                    GROUND_HALF_SIZE,
                    [118, 116, 110, 255],
                ),
                shape => renderer.shape(shape, &collider.world_pose(), rgba),
            }
        }
    }
    if view.shadows {
        draw_shadows(world, renderer);
    }
    renderer.set_layer(Layer::SeeThrough);
    for &(ch, rgba) in &sensors {
        if let Some(c) = world.collider(ch) {
            renderer.shape(c.shape(), &c.world_pose(), rgba);
        }
    }
    renderer.end();

    // Ground grid on horizontal planes (drawn just above to avoid z-fighting).
    for (_, c) in world.colliders() {
        if let Shape::Plane { normal } = c.shape() {
            let n = c.world_pose().rotation * *normal;
            if n.y > 0.999 {
                let y = c.world_pose().translation.y + 0.002;
                draw_ground_grid(y);
            }
        }
    }

    renderer.overlay(|| draw_layers(sandbox, view, &touching_outlines));
}

/// Fainter shadows than this (bodies more than about six times their size above the floor)
/// are left out: nearly invisible, they would still cost their whole spread-out area in fill
/// (on a software OpenGL, a tall pyramid's upper rows cost more than everything else).
const MIN_SHADOW_OPACITY: f32 = 0.03;

/// Soft contact shadows of the moving bodies on the scene's floor (see
/// `controls::scene_floor`): a blob straight under each body's bounds that spreads and fades
/// as the body rises, so where a falling body will land, and how high it is, read at a glance.
/// Shadows are drawn on the floor only, so a body over a ramp, a table or any other static
/// collider (its box holds the body's centre in x–z and its top is below the body) casts none.
fn draw_shadows(world: &crate::physics::World, renderer: &mut Renderer) {
    let Some(floor) = super::controls::scene_floor(world) else {
        return;
    };
    let mut shelves = Vec::new();
    for (handle, body) in world.bodies() {
        if body.body_type() != BodyType::Static {
            continue;
        }
        shelves.extend(
            world
                .body_colliders(handle)
                .filter_map(|c| world.collider(c))
                .filter(|c| !c.is_sensor() && !super::controls::is_ground(c))
                .filter(|c| !matches!(c.shape(), Shape::Plane { .. }))
                .map(|c| c.aabb()),
        );
    }
    for (handle, body) in world.bodies() {
        if body.body_type() == BodyType::Static {
            continue;
        }
        let Some(bounds) = world
            .body_colliders(handle)
            .filter_map(|c| world.collider(c))
            .filter(|c| !c.is_sensor())
            .map(|c| c.aabb())
            .reduce(|a, b| a.union(&b))
        else {
            continue;
        };
        let height = bounds.min.y - floor;
        if height < -0.05 {
            // Below the floor: nothing to cast onto.
            continue;
        }
        let centre = bounds.center();
        let over_a_shelf = shelves.iter().any(|s| {
            (s.min.x..=s.max.x).contains(&centre.x)
                && (s.min.z..=s.max.z).contains(&centre.z)
                && s.max.y <= bounds.min.y + 0.05
        });
        if over_a_shelf {
            continue;
        }
        let half = bounds.half_extents();
        let footprint = Vec2::new(half.x, half.z);
        let size = footprint.max_element().max(0.05);
        // Height in body sizes: the shadow spreads and fades with it.
        let rise = height.max(0.0) / size;
        let opacity = 0.5 / (1.0 + 0.5 * rise).powi(2);
        if opacity < MIN_SHADOW_OPACITY {
            continue;
        }
        renderer.shadow(
            Vec3::new(centre.x, floor + 0.001, centre.z),
            footprint * (1.6 + 0.25 * rise),
            opacity,
        );
    }
}

/// The debug layers, the selection, the held point and the spawn point (lines only).
fn draw_layers(sandbox: &Sandbox, view: &View, touching_outlines: &[ColliderHandle]) {
    let world = &sandbox.world;
    let layers = view.layers;
    // Joints: a line between their anchors, a cross at each (always shown: they are part of
    // the scene, like the bodies); axes and limits on their layer.
    for (handle, _) in world.joints() {
        debug_draw::joint(world, handle, layers.joints);
    }
    // Sensors' edges, so their extent reads through the tint.
    for (_, c) in world.colliders().filter(|(_, c)| c.is_sensor()) {
        debug_draw::wireframe(c.shape(), &c.world_pose(), debug_draw::SENSORS);
    }
    for &handle in touching_outlines {
        if let Some(c) = world.collider(handle) {
            debug_draw::wireframe(c.shape(), &c.world_pose(), debug_draw::TOUCHING);
        }
    }
    // "Selected body only": the layers show the selection's colliders, boxes, contacts,
    // velocities and centre, and the broad-phase nodes that hold it.
    let only = view.selected_only.then_some(sandbox.selected).flatten();
    let shown = |body: Option<BodyHandle>| only.is_none() || body == only;
    if layers.colliders {
        for (h, c) in world.colliders() {
            if shown(world.collider_body(h)) {
                debug_draw::wireframe(c.shape(), &c.world_pose(), debug_draw::COLLIDERS);
            }
        }
    }
    let selected_boxes: Vec<Aabb> = only
        .map(|b| {
            world
                .body_colliders(b)
                .filter_map(|c| world.collider(c))
                .map(|c| c.aabb())
                .collect()
        })
        .unwrap_or_default();
    if layers.aabbs {
        for (h, c) in world.colliders() {
            if shown(world.collider_body(h)) && !matches!(c.shape(), Shape::Plane { .. }) {
                debug_draw::aabb(&c.aabb(), debug_draw::AABBS);
            }
        }
    }
    if layers.tree {
        let mut nodes = Vec::new();
        world.broad_phase_nodes(&mut nodes);
        let holds_selection = |n: &&crate::physics::broad_phase::BroadPhaseNode| {
            only.is_none() || selected_boxes.iter().any(|b| n.aabb.contains(b))
        };
        debug_draw::tree(nodes.iter().filter(holds_selection), view.tree_depth);
    }
    if layers.contacts {
        debug_draw::contacts(world, only);
    }
    if layers.velocities || layers.centers {
        // A shaft about three pixels wide at the camera's target.
        let camera = &view.camera;
        let pixel = camera.distance * 2.0 * (0.5 * camera.fov).tan() / camera.viewport[2].max(1.0);
        let across = camera.forward().cross(Vec3::Y).normalize_or(Vec3::X) * pixel;
        for (_, b) in world
            .bodies()
            .filter(|(h, b)| b.body_type() != BodyType::Static && shown(Some(*h)))
        {
            let c = b.center_of_mass();
            if layers.velocities {
                debug_draw::thick_arrow(
                    c,
                    c + b.linear_velocity() * VELOCITY_ARROW_SECONDS,
                    debug_draw::LINEAR_VELOCITY,
                    across,
                );
                debug_draw::thick_arrow(
                    c,
                    c + b.angular_velocity() * SPIN_ARROW_SECONDS,
                    debug_draw::ANGULAR_VELOCITY,
                    across,
                );
            }
            if layers.centers {
                debug_draw::cross(c, 0.25, debug_draw::CENTER);
            }
        }
    }
    if let Some(selected) = sandbox.selected {
        for ch in world.body_colliders(selected) {
            if let Some(c) = world.collider(ch) {
                debug_draw::wireframe(c.shape(), &c.world_pose(), Color::new(1.0, 0.85, 0.1, 1.0));
            }
        }
    }
    if let Some(grab) = sandbox.grab {
        if let Some(b) = world.body(grab.body) {
            let p = b.position() + b.rotation() * grab.local_point;
            draw_line_3d(p, grab.target, WHITE);
            debug_draw::cross(grab.target, 0.08, WHITE);
        }
    }
    if let Some(p) = view.click_point {
        debug_draw::cross(p, 0.12, Color::new(1.0, 1.0, 1.0, 0.6));
    }
}

/// A velocity arrow is as long as the distance the body covers in this time, s.
const VELOCITY_ARROW_SECONDS: f32 = 0.25;

/// A spin arrow (along the axis) is this long per rad/s, m.
const SPIN_ARROW_SECONDS: f32 = 0.15;

/// A 1 m grid with brighter lines every 5 m, 40 m across, at height `y`.
fn draw_ground_grid(y: f32) {
    let half = 20;
    for i in -half..=half {
        let major = i % 5 == 0;
        let color = if major {
            Color::new(0.30, 0.30, 0.30, 0.9)
        } else {
            Color::new(0.42, 0.42, 0.41, 0.7)
        };
        let f = i as f32;
        let h = half as f32;
        draw_line_3d(Vec3::new(f, y, -h), Vec3::new(f, y, h), color);
        draw_line_3d(Vec3::new(-h, y, f), Vec3::new(h, y, f), color);
    }
}

/// The height half way up a box.
fn centre_y(min: Vec3, max: Vec3) -> f32 {
    0.5 * (min.y + max.y)
}

/// Labels beyond this many are left out (a grid of thousands of cells would be unreadable).
const MAX_NODE_LABELS: usize = 400;

/// With the broad-phase layer on, how many proxies each quadtree node or grid cell holds,
/// written at its centre (in screen space, after the 3D pass).
pub fn draw_node_counts(world: &crate::physics::World, camera: &Camera3D) {
    let mut nodes = Vec::new();
    world.broad_phase_nodes(&mut nodes);
    let matrix = camera.matrix();
    let Some((left, bottom, width, height)) = camera.viewport else {
        return;
    };
    let labelled = nodes
        .iter()
        .filter(|n| !n.is_leaf && n.count > 0 && n.aabb.half_extents().max_element() < 500.0);
    // Where a point of the world shows in the window, if in front of the camera.
    let to_screen = |p: Vec3| {
        let clip = matrix * p.extend(1.0);
        (clip.w > 0.0).then(|| {
            let ndc = clip.truncate() / clip.w;
            Vec2::new(
                left as f32 + (ndc.x + 1.0) * 0.5 * width as f32,
                screen_height() - (bottom as f32 + (ndc.y + 1.0) * 0.5 * height as f32),
            )
        })
    };
    // A label goes where its node is wider on screen than the label, and where no label
    // written already is: overlapping counts could not be read.
    let mut placed: Vec<Rect> = Vec::new();
    for node in labelled.take(MAX_NODE_LABELS) {
        let Some(centre) = to_screen(node.aabb.center()) else {
            continue;
        };
        let inside = |p: Vec2| {
            (left as f32..=(left + width) as f32).contains(&p.x)
                && p.y >= 0.0
                && p.y <= screen_height()
        };
        if !inside(centre) {
            continue;
        }
        let text = node.count.to_string();
        let label = Rect::new(
            centre.x - 4.0,
            centre.y - 10.0,
            9.0 * text.len() as f32 + 4.0,
            18.0,
        );
        let (min, max) = (node.aabb.min, node.aabb.max);
        let across = [
            Vec3::new(min.x, centre_y(min, max), min.z),
            Vec3::new(max.x, centre_y(min, max), max.z),
        ]
        .map(to_screen);
        let wide_enough = match across {
            [Some(a), Some(b)] => (a.x - b.x).abs() > label.w + 4.0,
            _ => false,
        };
        if !wide_enough || placed.iter().any(|r| r.overlaps(&label)) {
            continue;
        }
        placed.push(label);
        let (x, y) = (centre.x, centre.y);
        draw_text(
            &text,
            x - 3.0,
            y + 5.0,
            18.0,
            Color::new(0.0, 0.0, 0.0, 0.8),
        );
        draw_text(&text, x - 4.0, y + 4.0, 18.0, WHITE);
    }
}
