//! Unit meshes of the shapes (positions, normals, triangles), built once and drawn instanced.

use macroquad::prelude::*;

use crate::physics::shape::ConvexHull;

/// A unit mesh: positions, normals, triangles.
#[derive(Clone, Debug, Default)]
pub struct Template {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub indices: Vec<u16>,
}

impl Template {
    fn push_vertex(&mut self, p: Vec3, n: Vec3) -> u16 {
        self.positions.push(p);
        self.normals.push(n);
        (self.positions.len() - 1) as u16
    }

    /// A box from −1 to 1, flat normals (24 vertices).
    pub fn cube() -> Self {
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
    pub fn capsule(half_height: f32, radius: f32, segments: usize, rings: usize) -> Self {
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
    pub fn hull(hull: &ConvexHull) -> Self {
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
    pub fn quad() -> Self {
        let mut t = Template::default();
        for (x, z) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            t.push_vertex(Vec3::new(x, 0.0, z), Vec3::Y);
        }
        t.indices.extend([0, 2, 1, 0, 3, 2]);
        t
    }
}
