//! Lit solid rendering of colliders: one unit mesh per shape, transformed on the CPU into big
//! batches (a few draw calls for thousands of bodies), shaded by a small custom material
//! with a directional light and a sky/ground ambient.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use macroquad::miniquad::{
    BlendFactor, BlendState, BlendValue, Comparison, CullFace, Equation, PipelineParams,
    PrimitiveType,
};
use macroquad::models::{Mesh, Vertex};
use macroquad::prelude::*;

use crate::physics::shape::ConvexHull;
use crate::physics::{Isometry, Shape};

/// Vertices per batch: must stay below 65 535 (u16 indices) and below the window's
/// `draw_call_vertex_capacity`.
pub const BATCH_VERTICES: usize = 60_000;
/// Indices per batch (below `draw_call_index_capacity`).
pub const BATCH_INDICES: usize = 90_000;

const VERTEX_SHADER: &str = r#"#version 100
attribute vec3 position;
attribute vec2 texcoord;
attribute vec4 color0;
attribute vec4 normal;

varying lowp vec4 color;
varying mediump vec3 world_normal;

uniform mat4 Model;
uniform mat4 Projection;

void main() {
    gl_Position = Projection * Model * vec4(position, 1.0);
    color = color0 / 255.0;
    world_normal = (Model * vec4(normal.xyz, 0.0)).xyz;
}
"#;

const FRAGMENT_SHADER: &str = r#"#version 100
precision mediump float;
varying lowp vec4 color;
varying mediump vec3 world_normal;

uniform vec4 LightDir;

void main() {
    vec3 n = normalize(world_normal);
    vec3 l = normalize(LightDir.xyz);
    float diffuse = max(dot(n, l), 0.0);
    // Hemisphere ambient: cool light from the sky above, warm bounce from below.
    vec3 ambient = mix(vec3(0.40, 0.37, 0.34), vec3(0.58, 0.62, 0.68), 0.5 + 0.5 * n.y);
    // A soft rim so silhouettes read against the background.
    float rim = pow(1.0 - abs(n.z), 3.0) * 0.08;
    gl_FragColor = vec4(color.rgb * (ambient + 0.62 * diffuse) + rim, color.a);
}
"#;

const OVERLAY_VERTEX_SHADER: &str = r#"#version 100
attribute vec3 position;
attribute vec2 texcoord;
attribute vec4 color0;
attribute vec4 normal;

varying lowp vec4 color;

uniform mat4 Model;
uniform mat4 Projection;

void main() {
    gl_Position = Projection * Model * vec4(position, 1.0);
    color = color0 / 255.0;
}
"#;

const OVERLAY_FRAGMENT_SHADER: &str = r#"#version 100
precision mediump float;
varying lowp vec4 color;

uniform vec4 Fade;

void main() {
    gl_FragColor = vec4(color.rgb, color.a * Fade.x);
}
"#;

/// Direction towards the light (not normalised: the shader does it).
const LIGHT_DIR: Vec4 = Vec4::new(0.35, 0.8, 0.55, 0.0);

/// How opaque the parts of debug overlays hidden behind solids are drawn.
pub const HIDDEN_OVERLAY_ALPHA: f32 = 0.45;

/// A unit mesh: positions, normals, triangles.
#[derive(Clone, Debug, Default)]
pub struct Template {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    indices: Vec<u16>,
}

impl Template {
    fn push_vertex(&mut self, p: Vec3, n: Vec3) -> u16 {
        self.positions.push(p);
        self.normals.push(n);
        (self.positions.len() - 1) as u16
    }

    /// A box from −1 to 1, flat normals (24 vertices).
    fn cube() -> Self {
        let mut t = Template::default();
        for axis in 0..3 {
            for sign in [-1.0f32, 1.0] {
                let mut n = Vec3::ZERO;
                n[axis] = sign;
                let (u, v) = {
                    let mut u = Vec3::ZERO;
                    u[(axis + 1) % 3] = 1.0;
                    let mut v = Vec3::ZERO;
                    v[(axis + 2) % 3] = 1.0;
                    (u, v)
                };
                let base = n;
                let corners = [base - u - v, base + u - v, base + u + v, base - u + v];
                let first = t.positions.len() as u16;
                for c in corners {
                    t.push_vertex(c, n);
                }
                // Counter-clockwise seen from outside.
                if sign > 0.0 {
                    t.indices
                        .extend([first, first + 1, first + 2, first, first + 2, first + 3]);
                } else {
                    t.indices
                        .extend([first, first + 2, first + 1, first, first + 3, first + 2]);
                }
            }
        }
        t
    }

    /// A sphere (or the two caps of a capsule when `half_height > 0`) of radius 1, smooth.
    fn capsule(half_height: f32, radius: f32, segments: usize, rings: usize) -> Self {
        let mut t = Template::default();
        // Rings from the top pole to the bottom pole; the upper half is lifted by half_height,
        // the lower half lowered, and the equator is doubled so the cylinder has straight sides.
        let half = rings / 2;
        let mut row_starts = Vec::new();
        for ring in 0..=rings + 1 {
            let (r_index, shift) = if ring <= half {
                (ring, half_height)
            } else {
                (ring - 1, -half_height)
            };
            let phi = std::f32::consts::PI * r_index as f32 / rings as f32;
            let (sp, cp) = phi.sin_cos();
            row_starts.push(t.positions.len() as u16);
            for s in 0..=segments {
                let theta = std::f32::consts::TAU * s as f32 / segments as f32;
                let n = Vec3::new(sp * theta.cos(), cp, sp * theta.sin());
                t.push_vertex(n * radius + Vec3::new(0.0, shift, 0.0), n);
            }
        }
        let stride = (segments + 1) as u16;
        for &a in &row_starts[..rings + 1] {
            let b = a + stride;
            for s in 0..segments as u16 {
                t.indices
                    .extend([a + s, a + s + 1, b + s, a + s + 1, b + s + 1, b + s]);
            }
        }
        t
    }

    /// A hull with flat faces, each a triangle fan.
    fn hull(hull: &ConvexHull) -> Self {
        let mut t = Template::default();
        for (f, face) in hull.faces.iter().enumerate() {
            let first = t.positions.len() as u16;
            for e in hull.face_edges(f) {
                t.push_vertex(hull.vertices[hull.edges[e].origin as usize], face.normal);
            }
            let count = t.positions.len() as u16 - first;
            for k in 1..count.saturating_sub(1) {
                t.indices.extend([first, first + k + 1, first + k]);
            }
        }
        t
    }

    /// A flat square of half size 1 in the local x–z plane, facing +y.
    fn quad() -> Self {
        let mut t = Template::default();
        for (x, z) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            t.push_vertex(Vec3::new(x, 0.0, z), Vec3::Y);
        }
        t.indices.extend([0, 2, 1, 0, 3, 2]);
        t
    }
}

/// The solid renderer.
pub struct Renderer {
    material: Material,
    /// The lit material without depth writes, for sensors (drawn after the solids).
    translucent: Material,
    overlay: Material,
    cube: Template,
    sphere: Template,
    quad: Template,
    capsules: HashMap<(u32, u32), Template>,
    hulls: HashMap<usize, (Weak<ConvexHull>, Template)>,
    batch: Mesh,
    /// Triangles drawn in the last frame (for the stats panel).
    pub triangles: usize,
}

impl Renderer {
    /// Compiles the shader and builds the unit meshes.
    pub fn new() -> Result<Self, String> {
        let pipeline_params = PipelineParams {
            depth_test: Comparison::LessOrEqual,
            depth_write: true,
            cull_face: CullFace::Nothing,
            color_blend: Some(BlendState::new(
                Equation::Add,
                BlendFactor::Value(BlendValue::SourceAlpha),
                BlendFactor::OneMinusValue(BlendValue::SourceAlpha),
            )),
            ..Default::default()
        };
        let material = load_material(
            ShaderSource::Glsl {
                vertex: VERTEX_SHADER,
                fragment: FRAGMENT_SHADER,
            },
            MaterialParams {
                pipeline_params,
                uniforms: vec![UniformDesc::new("LightDir", UniformType::Float4)],
                ..Default::default()
            },
        )
        .map_err(|e| format!("cannot compile the lit shader: {e:?}"))?;
        let translucent = load_material(
            ShaderSource::Glsl {
                vertex: VERTEX_SHADER,
                fragment: FRAGMENT_SHADER,
            },
            MaterialParams {
                pipeline_params: PipelineParams {
                    depth_write: false,
                    ..pipeline_params
                },
                uniforms: vec![UniformDesc::new("LightDir", UniformType::Float4)],
                ..Default::default()
            },
        )
        .map_err(|e| format!("cannot compile the translucent shader: {e:?}"))?;
        // Debug lines seen through solids: no depth test, no depth writes, faded.
        let overlay = load_material(
            ShaderSource::Glsl {
                vertex: OVERLAY_VERTEX_SHADER,
                fragment: OVERLAY_FRAGMENT_SHADER,
            },
            MaterialParams {
                // Only lines go through it (draw_line_3d): a custom material's pipeline draws
                // the primitive its params name, and the default is triangles.
                pipeline_params: PipelineParams {
                    depth_test: Comparison::Always,
                    depth_write: false,
                    primitive_type: PrimitiveType::Lines,
                    ..pipeline_params
                },
                uniforms: vec![UniformDesc::new("Fade", UniformType::Float4)],
                ..Default::default()
            },
        )
        .map_err(|e| format!("cannot compile the overlay shader: {e:?}"))?;
        Ok(Self {
            material,
            translucent,
            overlay,
            cube: Template::cube(),
            sphere: Template::capsule(0.0, 1.0, 18, 12),
            quad: Template::quad(),
            capsules: HashMap::new(),
            hulls: HashMap::new(),
            batch: Mesh {
                vertices: Vec::with_capacity(BATCH_VERTICES),
                indices: Vec::with_capacity(BATCH_INDICES),
                texture: None,
            },
            triangles: 0,
        })
    }

    /// Starts drawing solids (after `set_camera`).
    pub fn begin(&mut self) {
        self.triangles = 0;
        gl_use_material(&self.material);
        self.material.set_uniform("LightDir", LIGHT_DIR);
    }

    /// Starts drawing see-through shapes (sensors), after the solids: lit like them, blended
    /// by their colour's alpha, and hiding nothing behind them. End with [`Renderer::end`].
    pub fn begin_translucent(&mut self) {
        gl_use_material(&self.translucent);
        self.translucent.set_uniform("LightDir", LIGHT_DIR);
    }

    /// Draws `lines` twice (they must be lines only: `draw_line_3d`): faded through everything (so lines inside or behind bodies show),
    /// then at full strength where they are in front.
    pub fn overlay(&mut self, mut lines: impl FnMut()) {
        gl_use_material(&self.overlay);
        self.overlay
            .set_uniform("Fade", Vec4::new(HIDDEN_OVERLAY_ALPHA, 0.0, 0.0, 0.0));
        lines();
        gl_use_default_material();
        lines();
    }

    /// Draws what is batched and returns to the default material (for lines and egui).
    pub fn end(&mut self) {
        self.flush();
        gl_use_default_material();
    }

    /// Sends the batch to macroquad.
    fn flush(&mut self) {
        if self.batch.indices.is_empty() {
            return;
        }
        draw_mesh(&self.batch);
        self.triangles += self.batch.indices.len() / 3;
        self.batch.vertices.clear();
        self.batch.indices.clear();
    }

    /// Appends a template placed by `pose` and scaled per axis by `scale`.
    fn push(template: &Template, batch: &mut Mesh, pose: &Isometry, scale: Vec3, color: [u8; 4]) {
        let base = batch.vertices.len() as u16;
        let rotation = Mat3::from_quat(pose.rotation);
        for (p, n) in template.positions.iter().zip(&template.normals) {
            let world = rotation * (*p * scale) + pose.translation;
            // Normals scale by the inverse (exact for the axis-aligned scales used here).
            let normal = (rotation * (*n / scale)).normalize_or_zero();
            batch.vertices.push(Vertex {
                position: world,
                uv: Vec2::ZERO,
                color,
                normal: normal.extend(0.0),
            });
        }
        batch
            .indices
            .extend(template.indices.iter().map(|i| base + i));
    }

    /// Draws one collider shape.
    pub fn shape(&mut self, shape: &Shape, pose: &Isometry, color: [u8; 4]) {
        let (template, scale): (&Template, Vec3) = match shape {
            Shape::Sphere { radius } => (&self.sphere, Vec3::splat(*radius)),
            Shape::Cuboid { half_extents } => (&self.cube, *half_extents),
            Shape::Capsule {
                half_height,
                radius,
            } => {
                let key = (half_height.to_bits(), radius.to_bits());
                let t = self
                    .capsules
                    .entry(key)
                    .or_insert_with(|| Template::capsule(*half_height, *radius, 16, 10));
                (&*t, Vec3::ONE)
            }
            Shape::ConvexHull(hull) => {
                let key = Arc::as_ptr(hull) as usize;
                let fresh = match self.hulls.get(&key) {
                    Some((weak, _)) => !weak.upgrade().is_some_and(|h| Arc::ptr_eq(&h, hull)),
                    None => true,
                };
                if fresh {
                    self.hulls
                        .insert(key, (Arc::downgrade(hull), Template::hull(hull)));
                }
                (&self.hulls[&key].1, Vec3::ONE)
            }
            Shape::Plane { .. } => return,
        };
        if self.batch.vertices.len() + template.positions.len() > BATCH_VERTICES
            || self.batch.indices.len() + template.indices.len() > BATCH_INDICES
        {
            // Flush inline (the template borrows self's caches).
            draw_mesh(&self.batch);
            self.triangles += self.batch.indices.len() / 3;
            self.batch.vertices.clear();
            self.batch.indices.clear();
        }
        Self::push(template, &mut self.batch, pose, scale, color);
    }

    /// Draws the ground: a square of half size `half` on the plane through `pose` with
    /// local normal `normal`.
    pub fn ground(&mut self, pose: &Isometry, normal: Vec3, half: f32, color: [u8; 4]) {
        let rotation = Quat::from_rotation_arc(Vec3::Y, pose.rotation * normal);
        let placed = Isometry::new(pose.translation, rotation);
        let template = self.quad.clone();
        Self::push(
            &template,
            &mut self.batch,
            &placed,
            Vec3::new(half, 1.0, half),
            color,
        );
    }

    /// Forgets cached meshes of hulls that no longer exist.
    pub fn prune(&mut self) {
        self.hulls.retain(|_, (weak, _)| weak.strong_count() > 0);
        if self.capsules.len() > 256 {
            self.capsules.clear();
        }
    }
}
