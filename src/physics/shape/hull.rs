//! Convex hulls: built from a point cloud, stored as a half-edge mesh for SAT and clipping.
//!
//! STUB: being written (quickhull, coplanar face merging, polyhedral mass properties).

use crate::physics::aabb::Aabb;
use crate::physics::math::Vec3;
use crate::physics::shape::mass::MassProperties;

/// Why a point cloud gave no hull.
#[derive(Clone, Debug, PartialEq)]
pub enum HullError {
    /// Fewer than 4 points, or all points on a plane / line / point (no volume).
    Degenerate,
    /// A point had a NaN or infinite coordinate.
    NonFinite,
    /// More input points than `MAX_HULL_POINTS`.
    TooManyPoints(usize),
}

/// A face of a hull: its outward plane and one of its half-edges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HullFace {
    /// Outward unit normal.
    pub normal: Vec3,
    /// Plane offset: points `x` on the face satisfy `normal · x == offset`.
    pub offset: f32,
    /// Index of one half-edge on this face's boundary (counter-clockwise seen from outside).
    pub edge: u16,
}

/// A directed edge of the half-edge mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HalfEdge {
    /// Vertex index this edge starts at.
    pub origin: u16,
    /// The opposite half-edge (same edge, other face, reversed).
    pub twin: u16,
    /// The next half-edge around the same face (counter-clockwise seen from outside).
    pub next: u16,
    /// The face this half-edge borders.
    pub face: u16,
}

/// A convex polyhedron.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull {
    /// Hull vertices (only the extreme points of the input), local frame.
    pub vertices: Vec<Vec3>,
    /// Faces, coplanar triangles merged into polygons.
    pub faces: Vec<HullFace>,
    /// Half-edges; `edges[2k]` and `edges[2k + 1]` are twins.
    pub edges: Vec<HalfEdge>,
}

impl ConvexHull {
    /// Builds the hull of `points`.
    pub fn new(_points: &[Vec3]) -> Result<ConvexHull, HullError> {
        todo!()
    }

    /// A box.
    pub fn cuboid(_half_extents: Vec3) -> ConvexHull {
        todo!()
    }

    /// Vertex farthest along `dir`.
    pub fn support(&self, _dir: Vec3) -> Vec3 {
        todo!()
    }

    /// Local bounding box.
    pub fn local_aabb(&self) -> Aabb {
        todo!()
    }

    /// Mass properties for a uniform density (kg/m³).
    pub fn mass_properties(&self, _density: f32) -> MassProperties {
        todo!()
    }

    /// The same hull scaled uniformly by `factor` (> 0) about the local origin.
    pub fn scaled(&self, _factor: f32) -> ConvexHull {
        todo!()
    }
}
