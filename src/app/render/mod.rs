//! Lit solid rendering of colliders, instanced: one unit mesh per shape kind on the GPU, and
//! per frame one small record per collider (rotation, position, scale, colour), so a frame
//! costs a few draw calls and 44 bytes per body however many triangles the shapes have.
//! Drawn through macroquad's miniquad context (macroquad's own batches are flushed first);
//! shaded with a directional light and a sky/ground ambient (`assets/shaders/`).

mod mesh;

use crate::physics::clock::Instant;
use std::collections::HashMap;
use std::sync::{Arc, Weak};

use macroquad::miniquad::{
    BlendFactor, BlendState, BlendValue, BufferId, BufferLayout, BufferSource, BufferType,
    BufferUsage, Comparison, CullFace, Equation, PassAction, Pipeline, PipelineParams,
    PrimitiveType, RenderingBackend, ShaderId, ShaderMeta, ShaderSource as RawShaderSource,
    UniformBlockLayout, UniformDesc as RawUniformDesc, UniformType as RawUniformType,
    UniformsSource, VertexAttribute, VertexFormat, VertexStep,
};
use macroquad::prelude::*;

use crate::physics::shape::ConvexHull;
use crate::physics::{Isometry, Shape};
use mesh::Template;

const INSTANCED_VERTEX_SHADER: &str = include_str!("../../../assets/shaders/instanced.vert");
const LIT_FRAGMENT_SHADER: &str = include_str!("../../../assets/shaders/lit.frag");
const SHADOW_VERTEX_SHADER: &str = include_str!("../../../assets/shaders/shadow.vert");
const SHADOW_FRAGMENT_SHADER: &str = include_str!("../../../assets/shaders/shadow.frag");
const OVERLAY_VERTEX_SHADER: &str = include_str!("../../../assets/shaders/overlay.vert");
const OVERLAY_FRAGMENT_SHADER: &str = include_str!("../../../assets/shaders/overlay.frag");

/// How opaque the parts of debug overlays hidden behind solids are drawn.
pub const HIDDEN_OVERLAY_ALPHA: f32 = 0.45;

/// Where [`Renderer::shape`] puts a shape: the layers are drawn in this order, with the
/// soft shadows right after the floor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// The ground (planes, wide static slabs): what shadows fall on.
    Floor,
    /// The other static bodies.
    Fixed,
    /// Dynamic and kinematic bodies: drawn over the shadows.
    Moving,
    /// Sensors: blended over everything else, back to front.
    SeeThrough,
}

/// Direction towards the light (not normalised: the shader does it).
const LIGHT_DIR: [f32; 4] = [0.35, 0.8, 0.55, 0.0];

/// Sphere (and capsule cap) tessellation: segments around, rings from pole to pole.
const ROUND_SEGMENTS: usize = 16;
const ROUND_RINGS: usize = 10;

/// One vertex of a unit mesh.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct MeshVertex {
    position: [f32; 3],
    normal: [f32; 3],
}

/// One drawn collider: its mesh placed by rotation, position and per-axis scale.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Instance {
    rotation: [f32; 4],
    position: [f32; 3],
    scale: [f32; 3],
    color: [u8; 4],
}

/// The shader's uniforms, in the order `ShaderMeta` lists them.
#[repr(C)]
struct Uniforms {
    projection: [f32; 16],
    light_dir: [f32; 4],
}

/// A viewport in pixels: left, bottom, width, height.
type Viewport = (i32, i32, i32, i32);

/// Which unit mesh an instance uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum MeshKey {
    Cube,
    Sphere,
    Quad,
    /// The unit square of the contact shadows (its own instance buffer).
    Shadow,
    /// Half height and radius, as bits (a capsule's mesh is not a scaled sphere).
    Capsule(u32, u32),
    /// The hull's address (checked against a weak reference: a freed hull's address may be
    /// reused).
    Hull(usize),
}

/// A unit mesh on the GPU with its instance buffer.
struct GpuMesh {
    vertices: BufferId,
    indices: BufferId,
    index_count: i32,
    instances: BufferId,
    /// Instances the instance buffer holds.
    capacity: usize,
}

/// The solid renderer.
pub struct Renderer {
    opaque: Pipeline,
    /// Soft contact shadows on the floor.
    shadow_pipeline: Pipeline,
    /// This frame's shadows (instances of the unit square).
    shadows: HashMap<MeshKey, Vec<Instance>>,
    /// Shadows drawn in the last frame.
    pub shadow_count: usize,
    overlay: Material,
    meshes: HashMap<MeshKey, GpuMesh>,
    hulls: HashMap<usize, Weak<ConvexHull>>,
    /// This frame's instances per mesh, per layer (see [`Layer`]).
    floor: HashMap<MeshKey, Vec<Instance>>,
    fixed: HashMap<MeshKey, Vec<Instance>>,
    solids: HashMap<MeshKey, Vec<Instance>>,
    see_through: HashMap<MeshKey, Vec<Instance>>,
    /// The layer the next shapes go to.
    layer: Layer,
    /// The eye, to draw the see-through shapes from back to front.
    eye: Vec3,
    /// This frame's camera (`begin`): projection × view, and the viewport in pixels.
    camera: Option<(Mat4, Option<Viewport>)>,
    /// Triangles drawn in the last frame (for the stats panel).
    pub triangles: usize,
    /// CPU time spent building the instance lists in the last frame, ms.
    pub build_ms: f32,
}

/// The instanced pipeline's vertex layout: the mesh (per vertex) and the instances.
fn layout() -> ([BufferLayout; 2], [VertexAttribute; 6]) {
    (
        [
            BufferLayout {
                stride: std::mem::size_of::<MeshVertex>() as i32,
                ..Default::default()
            },
            BufferLayout {
                stride: std::mem::size_of::<Instance>() as i32,
                step_func: VertexStep::PerInstance,
                step_rate: 1,
            },
        ],
        [
            VertexAttribute::with_buffer("position", VertexFormat::Float3, 0),
            VertexAttribute::with_buffer("normal", VertexFormat::Float3, 0),
            VertexAttribute::with_buffer("inst_rotation", VertexFormat::Float4, 1),
            VertexAttribute::with_buffer("inst_position", VertexFormat::Float3, 1),
            VertexAttribute::with_buffer("inst_scale", VertexFormat::Float3, 1),
            VertexAttribute::with_buffer("inst_color", VertexFormat::Byte4, 1),
        ],
    )
}

/// Compiles an instanced shader pair whose uniforms are [`Uniforms`]; `what` names it in the
/// error.
fn compile(
    ctx: &mut dyn RenderingBackend,
    vertex: &str,
    fragment: &str,
    what: &str,
) -> Result<ShaderId, String> {
    let meta = ShaderMeta {
        uniforms: UniformBlockLayout {
            uniforms: vec![
                RawUniformDesc::new("Projection", RawUniformType::Mat4),
                RawUniformDesc::new("LightDir", RawUniformType::Float4),
            ],
        },
        images: vec![],
    };
    ctx.new_shader(RawShaderSource::Glsl { vertex, fragment }, meta)
        .map_err(|e| format!("cannot compile the {what} shader: {e:?}"))
}

impl Renderer {
    /// Compiles the shaders. Fails with a message when the OpenGL in use cannot draw
    /// instanced meshes (it needs OpenGL 3.3 or OpenGL ES 3.0).
    pub fn new() -> Result<Self, String> {
        let blend = Some(BlendState::new(
            Equation::Add,
            BlendFactor::Value(BlendValue::SourceAlpha),
            BlendFactor::OneMinusValue(BlendValue::SourceAlpha),
        ));
        let solid_params = PipelineParams {
            depth_test: Comparison::LessOrEqual,
            depth_write: true,
            cull_face: CullFace::Nothing,
            color_blend: blend,
            // The window stays opaque: blending a shadow or a sensor must not write its alpha
            // into the framebuffer (a screenshot would show the floor see-through there).
            alpha_blend: Some(BlendState::new(
                Equation::Add,
                BlendFactor::Zero,
                BlendFactor::One,
            )),
            ..Default::default()
        };
        let (opaque, shadow_pipeline) = {
            // SAFETY: on the main thread at start-up, before anything is drawn; only new
            // pipelines and shaders are made.
            let gl = unsafe { get_internal_gl() };
            let ctx = gl.quad_context;
            let info = ctx.info();
            if !info.features.instancing {
                return Err(format!(
                    "this OpenGL ({}) cannot draw instanced meshes; the sandbox needs OpenGL \
                     3.3 or OpenGL ES 3.0",
                    info.gl_version_string.trim()
                ));
            }
            let shader = compile(ctx, INSTANCED_VERTEX_SHADER, LIT_FRAGMENT_SHADER, "lit")?;
            let (buffers, attributes) = layout();
            // Solids and sensors alike: sensors are blended over the solids, drawn last and
            // back to front, and write depth because miniquad 0.4 turns the depth test off in
            // a pipeline that does not (a sensor behind a wall must stay hidden).
            let opaque = ctx.new_pipeline(&buffers, &attributes, shader, solid_params);
            let shadow_shader =
                compile(ctx, SHADOW_VERTEX_SHADER, SHADOW_FRAGMENT_SHADER, "shadow")?;
            // Blended onto the floor before anything else is drawn over it (see `end`);
            // miniquad 0.4 tests no depth in a pipeline that writes none.
            let shadow_pipeline = ctx.new_pipeline(
                &buffers,
                &attributes,
                shadow_shader,
                PipelineParams {
                    depth_write: false,
                    ..solid_params
                },
            );
            (opaque, shadow_pipeline)
        };
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
                    ..solid_params
                },
                uniforms: vec![UniformDesc::new("Fade", UniformType::Float4)],
                ..Default::default()
            },
        )
        .map_err(|e| format!("cannot compile the overlay shader: {e:?}"))?;
        Ok(Self {
            opaque,
            shadow_pipeline,
            shadows: HashMap::new(),
            shadow_count: 0,
            overlay,
            meshes: HashMap::new(),
            hulls: HashMap::new(),
            floor: HashMap::new(),
            fixed: HashMap::new(),
            solids: HashMap::new(),
            see_through: HashMap::new(),
            layer: Layer::Floor,
            eye: Vec3::ZERO,
            camera: None,
            triangles: 0,
            build_ms: 0.0,
        })
    }

    /// Starts a frame's solids, seen by `camera` (the one `set_camera` got).
    pub fn begin(&mut self, camera: &Camera3D) {
        self.triangles = 0;
        self.build_ms = 0.0;
        self.camera = Some((camera.matrix(), camera.viewport));
        self.eye = camera.position;
        self.layer = Layer::Floor;
        for list in self
            .floor
            .values_mut()
            .chain(self.fixed.values_mut())
            .chain(self.solids.values_mut())
            .chain(self.see_through.values_mut())
            .chain(self.shadows.values_mut())
        {
            list.clear();
        }
    }

    /// A soft shadow on the floor: an ellipse centred at `centre` with half axes `half`
    /// (x, z) and darkness `opacity` (0–1) in its middle.
    pub fn shadow(&mut self, centre: Vec3, half: Vec2, opacity: f32) {
        let started = Instant::now();
        self.ensure_mesh(MeshKey::Shadow, Template::quad);
        let alpha = (opacity.clamp(0.0, 1.0) * 255.0) as u8;
        self.shadows
            .entry(MeshKey::Shadow)
            .or_default()
            .push(instance(
                Quat::IDENTITY,
                centre,
                Vec3::new(half.x, 1.0, half.y),
                [20, 22, 30, alpha],
            ));
        self.build_ms += started.elapsed().as_secs_f32() * 1000.0;
    }

    /// Which layer the next shapes go to (see [`Layer`]).
    pub fn set_layer(&mut self, layer: Layer) {
        self.layer = layer;
    }

    /// Draws `lines` twice (they must be lines only: `draw_line_3d`): faded through
    /// everything (so lines inside or behind bodies show), then at full strength where they
    /// are in front.
    pub fn overlay(&mut self, mut lines: impl FnMut()) {
        gl_use_material(&self.overlay);
        self.overlay
            .set_uniform("Fade", Vec4::new(HIDDEN_OVERLAY_ALPHA, 0.0, 0.0, 0.0));
        lines();
        gl_use_default_material();
        lines();
    }

    /// Draws what was added since `begin` (solids first, then the see-through ones) and
    /// hands the window back to macroquad.
    pub fn end(&mut self) {
        let Some((matrix, viewport)) = self.camera else {
            return;
        };
        // SAFETY: on the main thread; what macroquad batched so far is flushed first, so
        // its draws and these never interleave.
        let mut gl = unsafe { get_internal_gl() };
        gl.flush();
        let ctx = gl.quad_context;
        let uniforms = Uniforms {
            projection: matrix.to_cols_array(),
            light_dir: LIGHT_DIR,
        };
        ctx.begin_default_pass(PassAction::Nothing);
        if let Some((x, y, w, h)) = viewport {
            ctx.apply_viewport(x, y, w, h);
            ctx.apply_scissor_rect(x, y, w, h);
        }
        self.shadow_count = self.shadows.values().map(Vec::len).sum();
        // The see-through shapes from back to front, so nearer ones blend over farther ones.
        let eye = self.eye;
        for list in self.see_through.values_mut() {
            list.sort_by(|a, b| {
                let da = (Vec3::from(a.position) - eye).length_squared();
                let db = (Vec3::from(b.position) - eye).length_squared();
                db.total_cmp(&da)
            });
        }
        // Shadows go right after the floor they fall on, without a depth test (so no depth
        // buffer's precision can make them flicker), and everything else is drawn after them:
        // seen from above the floor, anything that stands over a shadow is in front of it.
        let passes = [
            (self.opaque, &self.floor),
            (self.shadow_pipeline, &self.shadows),
            (self.opaque, &self.fixed),
            (self.opaque, &self.solids),
            (self.opaque, &self.see_through),
        ];
        for (pipeline, lists) in passes {
            if lists.values().all(|l| l.is_empty()) {
                continue;
            }
            ctx.apply_pipeline(&pipeline);
            ctx.apply_uniforms(UniformsSource::table(&uniforms));
            // A fixed order, so overlapping see-through shapes blend the same every frame.
            let mut keys: Vec<&MeshKey> = lists.keys().collect();
            keys.sort_by_key(|k| format!("{k:?}"));
            for key in keys {
                let list = &lists[key];
                let Some(mesh) = self.meshes.get_mut(key) else {
                    continue;
                };
                if list.is_empty() {
                    continue;
                }
                if mesh.capacity < list.len() {
                    ctx.delete_buffer(mesh.instances);
                    mesh.capacity = list.len().next_power_of_two();
                    mesh.instances = ctx.new_buffer(
                        BufferType::VertexBuffer,
                        BufferUsage::Stream,
                        BufferSource::empty::<Instance>(mesh.capacity),
                    );
                }
                ctx.buffer_update(mesh.instances, BufferSource::slice(list));
                ctx.apply_bindings_from_slice(&[mesh.vertices, mesh.instances], mesh.indices, &[]);
                ctx.draw(0, mesh.index_count, list.len() as i32);
                self.triangles += mesh.index_count as usize / 3 * list.len();
            }
        }
        ctx.end_render_pass();
        self.layer = Layer::Floor;
    }

    /// The list this frame's next instance goes to.
    fn push(&mut self, key: MeshKey, instance: Instance) {
        let lists = match self.layer {
            Layer::Floor => &mut self.floor,
            Layer::Fixed => &mut self.fixed,
            Layer::Moving => &mut self.solids,
            Layer::SeeThrough => &mut self.see_through,
        };
        lists.entry(key).or_default().push(instance);
    }

    /// Makes sure the unit mesh of `key` is on the GPU, building it with `build` if not.
    fn ensure_mesh(&mut self, key: MeshKey, build: impl FnOnce() -> Template) {
        if self.meshes.contains_key(&key) {
            return;
        }
        let template = build();
        let vertices: Vec<MeshVertex> = template
            .positions
            .iter()
            .zip(&template.normals)
            .map(|(p, n)| MeshVertex {
                position: p.to_array(),
                normal: n.to_array(),
            })
            .collect();
        // SAFETY: on the main thread; only new buffers of our own are made.
        let gl = unsafe { get_internal_gl() };
        let ctx = gl.quad_context;
        let mesh = GpuMesh {
            vertices: ctx.new_buffer(
                BufferType::VertexBuffer,
                BufferUsage::Immutable,
                BufferSource::slice(&vertices),
            ),
            indices: ctx.new_buffer(
                BufferType::IndexBuffer,
                BufferUsage::Immutable,
                BufferSource::slice(&template.indices),
            ),
            index_count: template.indices.len() as i32,
            instances: ctx.new_buffer(
                BufferType::VertexBuffer,
                BufferUsage::Stream,
                BufferSource::empty::<Instance>(64),
            ),
            capacity: 64,
        };
        self.meshes.insert(key, mesh);
    }

    /// Frees a mesh's buffers.
    fn drop_mesh(&mut self, key: MeshKey) {
        if let Some(mesh) = self.meshes.remove(&key) {
            // SAFETY: on the main thread; only our own buffers, no longer drawn, are freed.
            let gl = unsafe { get_internal_gl() };
            for buffer in [mesh.vertices, mesh.indices, mesh.instances] {
                gl.quad_context.delete_buffer(buffer);
            }
        }
        self.floor.remove(&key);
        self.fixed.remove(&key);
        self.solids.remove(&key);
        self.see_through.remove(&key);
    }

    /// Draws one collider shape (planes are drawn by [`Renderer::ground`]).
    pub fn shape(&mut self, shape: &Shape, pose: &Isometry, color: [u8; 4]) {
        let started = Instant::now();
        let (key, scale) = match shape {
            Shape::Sphere { radius } => {
                self.ensure_mesh(MeshKey::Sphere, || {
                    Template::capsule(0.0, 1.0, ROUND_SEGMENTS, ROUND_RINGS)
                });
                (MeshKey::Sphere, Vec3::splat(*radius))
            }
            Shape::Cuboid { half_extents } => {
                self.ensure_mesh(MeshKey::Cube, Template::cube);
                (MeshKey::Cube, *half_extents)
            }
            Shape::Capsule {
                half_height,
                radius,
            } => {
                let key = MeshKey::Capsule(half_height.to_bits(), radius.to_bits());
                let (h, r) = (*half_height, *radius);
                self.ensure_mesh(key, || Template::capsule(h, r, ROUND_SEGMENTS, ROUND_RINGS));
                (key, Vec3::ONE)
            }
            Shape::ConvexHull(hull) => {
                let address = Arc::as_ptr(hull) as usize;
                let key = MeshKey::Hull(address);
                let same = self
                    .hulls
                    .get(&address)
                    .and_then(Weak::upgrade)
                    .is_some_and(|h| Arc::ptr_eq(&h, hull));
                if !same {
                    self.drop_mesh(key);
                    self.hulls.insert(address, Arc::downgrade(hull));
                }
                self.ensure_mesh(key, || Template::hull(hull));
                (key, Vec3::ONE)
            }
            Shape::Plane { .. } => return,
        };
        self.push(key, instance(pose.rotation, pose.translation, scale, color));
        self.build_ms += started.elapsed().as_secs_f32() * 1000.0;
    }

    /// Draws the ground: a square of half size `half` on the plane through `pose` with
    /// local normal `normal`.
    pub fn ground(&mut self, pose: &Isometry, normal: Vec3, half: f32, color: [u8; 4]) {
        self.ensure_mesh(MeshKey::Quad, Template::quad);
        let rotation = Quat::from_rotation_arc(Vec3::Y, pose.rotation * normal);
        let scale = Vec3::new(half, 1.0, half);
        self.push(
            MeshKey::Quad,
            instance(rotation, pose.translation, scale, color),
        );
    }

    /// Frees the meshes of hulls and capsules that are no longer drawn.
    pub fn prune(&mut self) {
        let stale: Vec<MeshKey> = self
            .meshes
            .keys()
            .copied()
            .filter(|k| match k {
                MeshKey::Hull(address) => self
                    .hulls
                    .get(address)
                    .is_none_or(|w| w.strong_count() == 0),
                MeshKey::Capsule(..) => [&self.floor, &self.fixed, &self.solids, &self.see_through]
                    .iter()
                    .all(|lists| lists.get(k).is_none_or(Vec::is_empty)),
                _ => false,
            })
            .collect();
        for key in stale {
            if let MeshKey::Hull(address) = key {
                self.hulls.remove(&address);
            }
            self.drop_mesh(key);
        }
    }
}

/// The instance record of a mesh placed by `rotation` and `position`, scaled per axis.
fn instance(rotation: Quat, position: Vec3, scale: Vec3, color: [u8; 4]) -> Instance {
    Instance {
        rotation: rotation.to_array(),
        position: position.to_array(),
        scale: scale.to_array(),
        color,
    }
}
