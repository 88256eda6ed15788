//! Mass properties of a hull by exact polyhedral integration.

use glam::{DMat3, DVec3};

use super::ConvexHull;
use crate::physics::shape::mass::MassProperties;

impl ConvexHull {
    /// Mass properties for a uniform density (kg/m³): mass, centre of mass (local frame) and
    /// the inertia tensor about the centre of mass.
    ///
    /// Exact polyhedral integration (Blow & Binstock, "How to find the inertia tensor (or other
    /// mass properties) of a 3D solid body represented by a triangle mesh", 2004; Tonon,
    /// "Explicit exact formulas for the 3-D tetrahedron inertia tensor", 2004): each face is
    /// split into a fan of triangles (a, b, c), each triangle makes a tetrahedron with a
    /// reference point r inside the hull, and with a, b, c taken relative to r:
    /// - 6·volume = det[a b c] = a · (b × c) (positive: faces wind counter-clockwise outside),
    /// - centroid = r + (a + b + c)/4,
    /// - covariance ∫ x xᵀ dV = det/120 · (a aᵀ + b bᵀ + c cᵀ + s sᵀ), s = a + b + c.
    ///
    /// Summing, the covariance C moves to the centre of mass c as C − m·c cᵀ, and the inertia
    /// tensor is I = tr(C)·E − C. Sums run in f64 about r to avoid cancellation.
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        if self.vertices.is_empty() {
            return MassProperties::ZERO;
        }
        let reference = self
            .vertices
            .iter()
            .fold(DVec3::ZERO, |acc, v| acc + v.as_dvec3())
            / self.vertices.len() as f64;
        let mut six_volume = 0.0;
        let mut first_moment = DVec3::ZERO;
        let mut second_moment = DMat3::ZERO;
        for face in 0..self.faces.len() {
            let corners: Vec<DVec3> = self
                .face_edges(face)
                .map(|e| self.vertices[self.edges[e].origin as usize].as_dvec3() - reference)
                .collect();
            let Some((&a, rest)) = corners.split_first() else {
                continue;
            };
            for pair in rest.windows(2) {
                let (b, c) = (pair[0], pair[1]);
                let det = a.dot(b.cross(c));
                let s = a + b + c;
                six_volume += det;
                first_moment += det * s;
                second_moment += (outer(a) + outer(b) + outer(c) + outer(s)) * det;
            }
        }
        if six_volume <= 0.0 {
            return MassProperties::ZERO;
        }
        let density = f64::from(density);
        let mass = density * six_volume / 6.0;
        // Σ (det/6)·(s/4) / Σ (det/6)
        let center = first_moment / (4.0 * six_volume);
        let covariance = second_moment * (density / 120.0) - outer(center) * mass;
        let trace = covariance.x_axis.x + covariance.y_axis.y + covariance.z_axis.z;
        let inertia = DMat3::IDENTITY * trace - covariance;
        MassProperties {
            mass: mass as f32,
            local_center: (reference + center).as_vec3(),
            inertia: inertia.as_mat3(),
        }
    }
}

/// The outer product v vᵀ.
fn outer(v: DVec3) -> DMat3 {
    DMat3::from_cols(v * v.x, v * v.y, v * v.z)
}
